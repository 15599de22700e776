"""The weighted SNE of R smallvis (wtsne, wssne) against transcriptions of its formulas.

R smallvis's ``wssne`` and ``wtsne`` (``R/sne.R``) multiply the output
weight of each pair by :math:`m_i m_j`, ``M <- outer(deg, deg)`` with
``deg <- colSums(P)`` of the normalised joint ``P`` (``pdeg`` in
``R/perplexity.R``), and normalise over all pairs.  Each function below
writes out R's ``update``, cost and ``gr`` matrix by matrix in NumPy,
independently of smallvis's units and engines; the tests check smallvis's
exact cost and gradient (both backends) against them at the degrees of
``P`` and at other importances, the plain method where every importance is
equal, and the data flow of the degrees: from ``P`` into the fit, unchanged
into the training map's new points, and through a model file.  R floors
``q`` (wssne) and ``P`` in its ``P log P`` at machine epsilon; the
transcriptions leave the floors out, as smallvis does (no ``q`` of these
layouts comes near it).
"""

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
from smallvis.backends import _kernels, reference
from smallvis.inputs.affinities import conditional_perplexity
from smallvis.registry import METHODS

#: The methods whose pairs are weighted by the product of per-point values.
WEIGHTED = [name for name, m in METHODS.items() if m.pair_inputs]


def _sq_dists(Y):
    return ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)


def _k2g(Y, K):
    """R smallvis's ``k2g`` without symmetrisation: ``Y * colSums(K) - K %*% Y``."""
    return Y * K.sum(axis=0)[:, None] - K @ Y


def _r_weighted(P, Y, deg, kernel):
    """R smallvis's ``wssne`` (``kernel="gauss"``) or ``wtsne`` (``"cauchy"``).

    ``deg``: R's ``pdeg`` (``colSums(P)``) or any other importances.  wtsne:
    ``W <- M / (1 + d2)``, ``Z <- sum(W)``, ``gr = k2g(Y, 4 W invM (P - W /
    Z))``.  wssne: ``expQ(Y, A = M, matrix_normalize = TRUE)``, i.e. ``Q <-
    M exp(-d2) / sum(M exp(-d2))`` (``exp_shift`` subtracts each column's
    largest ``-d2``, the diagonal's 0), ``gr = k2g(Y, 4 (P - Q))``.  Both
    costs are ``sum(P log(P / Q))``.
    """
    M = np.outer(deg, deg)
    D2 = _sq_dists(Y)
    if kernel == "cauchy":
        W = M / (1.0 + D2)
    else:
        W = M * np.exp(-D2)
    np.fill_diagonal(W, 0.0)
    Z = W.sum()
    Q = W / Z
    if kernel == "cauchy":
        K = 4.0 * W * (1.0 / M) * (P - Q)
    else:
        K = 4.0 * (P - Q)
    mask = P > 0
    return float(np.sum(P[mask] * np.log(P[mask] / Q[mask]))), _k2g(Y, K)


R_FORMULAS = {"wtsne": lambda P, Y, deg: _r_weighted(P, Y, deg, "cauchy"),
              "wssne": lambda P, Y, deg: _r_weighted(P, Y, deg, "gauss")}

#: The registered method each becomes with every importance equal.
PLAIN = {"wtsne": "tsne", "wssne": "ssne"}


@pytest.fixture(scope="module")
def case():
    """Data of two unequal groups, its joint P (perplexity 4) and a layout."""
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(size=(9, 5)), rng.normal(loc=3.0, scale=0.3, size=(6, 5))])
    C, _ = conditional_perplexity(X, 4.0, reference)
    P = (C + C.T) / (C + C.T).sum()
    Y = rng.normal(size=(15, 2))
    return X, P, Y


def test_the_r_formulas_cover_the_weighted_methods():
    assert WEIGHTED and set(WEIGHTED) == set(R_FORMULAS)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("method", WEIGHTED)
def test_cost_and_gradient_match_r_smallvis(method, case, fast):
    _, P, Y = case
    deg = P.sum(axis=0)  # R's pdeg
    assert deg.max() > 1.5 * deg.min()  # unequal degrees: the weights matter here
    rng = np.random.default_rng(2)
    # P's own degrees (from P, and as R's colSums, whose scale cancels), and others
    for importance, r_deg in (("input", deg), (deg, deg), (len(deg) * deg, deg),
                              (rng.uniform(0.2, 5.0, size=deg.shape),) * 2):
        r_cost, r_grad = R_FORMULAS[method](P, Y, r_deg)
        cost, grad = smallvis.cost_and_gradient(method, P, Y, fast=fast, importance=importance)
        assert cost == pytest.approx(r_cost, rel=1e-10)
        np.testing.assert_allclose(grad, r_grad, rtol=0, atol=1e-10 * np.abs(r_grad).max())
    # and the weighting changes the numbers: the plain method's differ
    _, plain_grad = smallvis.cost_and_gradient(PLAIN[method], P, Y, fast=fast)
    r_grad = R_FORMULAS[method](P, Y, deg)[1]
    assert np.abs(plain_grad - r_grad).max() > 0.05 * np.abs(r_grad).max()


@pytest.mark.parametrize("method", WEIGHTED)
def test_with_every_importance_equal_it_is_the_plain_method(method, case):
    _, P, Y = case
    plain = smallvis.cost_and_gradient(PLAIN[method], P, Y)
    for importance in (1.0, 7.0, np.full(P.shape[0], 0.3)):
        cost, grad = smallvis.cost_and_gradient(method, P, Y, importance=importance)
        assert cost == pytest.approx(plain[0], rel=1e-10)
        np.testing.assert_allclose(grad, plain[1], rtol=0, atol=1e-10 * np.abs(plain[1]).max())


@pytest.mark.parametrize("method", WEIGHTED)
def test_the_gradient_is_the_derivative_of_the_cost(method, case):
    _, P, Y = case
    importance = np.random.default_rng(3).uniform(0.2, 5.0, size=P.shape[0])
    _, grad = smallvis.cost_and_gradient(method, P, Y, importance=importance)
    h = 1e-6
    fd = np.zeros_like(Y)
    for i in range(Y.shape[0]):
        for d in range(Y.shape[1]):
            step = np.zeros_like(Y)
            step[i, d] = h
            up = smallvis.cost_and_gradient(method, P, Y + step, importance=importance)[0]
            down = smallvis.cost_and_gradient(method, P, Y - step, importance=importance)[0]
            fd[i, d] = (up - down) / (2 * h)
    np.testing.assert_allclose(grad, fd, rtol=0, atol=1e-6 * np.abs(grad).max())


@pytest.mark.parametrize("method", WEIGHTED)
def test_bad_importances_are_refused(method, case):
    _, P, Y = case
    for bad in (np.ones(3), -1.0, 0.0, np.inf, np.full(P.shape[0], np.nan), "x",
                np.ones((P.shape[0], 2))):
        with pytest.raises(ValueError, match="importance"):
            smallvis.cost_and_gradient(method, P, Y, importance=bad)
    with pytest.raises(TypeError, match="importance"):
        smallvis.cost_and_gradient(method, P, Y, importance=None)


def _transform_problem(P, Y):
    rows = sp.csr_matrix(P[:5, 5:] / P[:5, 5:].sum(axis=1, keepdims=True))
    triplet = (rows.indptr.astype(np.int64), rows.indices.astype(np.int64), rows.data)
    return triplet, Y[:5] + 0.1, np.ascontiguousarray(Y[5:])


@pytest.mark.parametrize("method", WEIGHTED)
def test_new_points_are_weighed_against_the_training_points_importances(method, case):
    _, P, Y = case
    triplet, Y_new, Y_train = _transform_problem(P, Y)
    unit_class = next(iter(METHODS[method].normalised_units.values()))
    m = np.random.default_rng(4).uniform(0.2, 5.0, size=Y_train.shape[0])
    unit = unit_class(m)
    # R's row of a new point: q_{j|s} = m_j w_sj / sum_k m_k w_sk (m_s cancels)
    dense = sp.csr_matrix((triplet[2], triplet[1], triplet[0]),
                          shape=(5, Y_train.shape[0])).toarray()
    D2 = ((Y_new[:, None, :] - Y_train[None, :, :]) ** 2).sum(axis=2)
    w = 1.0 / (1.0 + D2) if method == "wtsne" else np.exp(-D2)
    Q = m * w / (m * w).sum(axis=1, keepdims=True)
    mask = dense > 0
    expected = float(np.sum(dense[mask] * np.log(dense[mask] / Q[mask])))
    out = []
    for module in (reference, _kernels):
        g = np.zeros_like(Y_new)
        module.normalised_transform_gradient(unit, *triplet, Y_new, Y_train, g, 2)
        out.append((module.normalised_transform_cost(unit, *triplet, Y_new, Y_train, 1), g))
        assert out[-1][0] == pytest.approx(expected, rel=1e-10)
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=0,
                               atol=1e-10 * np.abs(out[0][1]).max())
    # the gradient is the derivative of the new points' cost
    h, fd = 1e-6, np.zeros_like(Y_new)
    for s in range(Y_new.shape[0]):
        for d in range(Y_new.shape[1]):
            step = np.zeros_like(Y_new)
            step[s, d] = h
            fd[s, d] = (reference.normalised_transform_cost(unit, *triplet, Y_new + step,
                                                            Y_train, 1)
                        - reference.normalised_transform_cost(unit, *triplet, Y_new - step,
                                                              Y_train, 1)) / (2 * h)
    np.testing.assert_allclose(out[0][1], fd, rtol=0, atol=1e-6 * np.abs(fd).max())
    # and the importances matter: equal ones give another gradient
    g1 = np.zeros_like(Y_new)
    reference.normalised_transform_gradient(unit_class(1.0), *triplet, Y_new, Y_train, g1, 1)
    assert np.abs(g1 - out[0][1]).max() > 1e-3 * np.abs(g1).max()


@pytest.mark.parametrize("method", WEIGHTED)
def test_the_fit_keeps_the_degrees_of_its_p_and_new_points_use_them(method, case, tmp_path):
    X, _, _ = case
    estimator = smallvis.Embedding(method=method, perplexity=4.0, n_iter=100,
                                   random_state=0).fit(X[:12])
    training = estimator.training_map_
    fitted = training.cost_params["importance"]
    # N times the column sums of the fit's normalised joint P (R's pdeg up to N)
    P = smallvis.affinities(X[:12], method=method, perplexity=4.0)
    np.testing.assert_allclose(fitted, 12 * np.asarray(P).sum(axis=0) / np.sum(P), rtol=1e-12)
    assert fitted.mean() == pytest.approx(1.0)
    X_new = np.ascontiguousarray(X[12:], dtype=np.float64)
    rows = training.new_rows(X_new, _kernels)
    assert "importance" not in training.new_inputs(rows)  # the training points' are kept
    placed = estimator.transform(X_new)
    assert np.all(np.isfinite(placed))
    np.testing.assert_array_equal(estimator.transform(X_new[::-1])[::-1], placed)
    path = tmp_path / "model.npz"
    smallvis.save_model(estimator, path)
    loaded = smallvis.load_model(path)
    np.testing.assert_array_equal(loaded.training_map_.cost_params["importance"], fitted)
    np.testing.assert_array_equal(loaded.transform(X_new), placed)


@pytest.mark.parametrize("method", WEIGHTED)
def test_a_p_given_as_it_is_is_weighted_by_its_own_degrees(method, case):
    X, _, _ = case
    P = np.asarray(smallvis.affinities(X, method=method, perplexity=4.0))
    Y0 = np.random.default_rng(1).normal(scale=1e-2, size=(X.shape[0], 2))
    kw = dict(method=method, n_iter=10, init=Y0, fast=False, random_state=0)
    from_x = smallvis.embed(X, perplexity=4.0, **kw)
    # the degrees the engine takes from P, and those the fit took from its
    # builder, differ in their last bits only
    from_p = smallvis.embed(None, affinities=P, perplexity=4.0, **kw)
    np.testing.assert_allclose(from_p, from_x, rtol=0, atol=1e-7 * np.abs(from_x).max())
    plain = smallvis.embed(None, affinities=P, perplexity=4.0, **dict(kw, method=PLAIN[method]))
    assert np.abs(plain - from_x).max() > 1e-3 * np.abs(from_x).max()
