"""The bandwidth variants of R smallvis against direct transcriptions of its formulas.

R smallvis's "bandwidth experiments" (``R/sne.R``) give each row's output
kernel the precision :math:`\\beta_i` that the perplexity calibration
found for that row.  Each function below writes out R's ``gr`` and cost
for the method, matrix by matrix, in NumPy, independently of smallvis's
units and engines; the tests check smallvis's exact cost and gradient
(both backends) against it at the calibration's own per-point precisions
and at others, the limit where every precision is 1 (the plain method),
and the data flow of the precisions: from the calibration into the fit,
into the training map's new points, and through a model file.  R floors
``P`` and ``q`` at machine epsilon before its logs; the transcriptions
leave the floors out, as smallvis does (the layouts are chosen so that no
``q`` underflows).
"""

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
from smallvis.inputs.affinities import conditional_perplexity
from smallvis.backends import reference
from smallvis.registry import METHODS

#: The methods whose per-point cost parameters come from the calibration.
FROM_INPUT = [name for name, m in METHODS.items() if "bandwidth" in m.input_params]


def _sq_dists(Y):
    return ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)


def _k2g(Y, K, symmetrize):
    """R smallvis's ``k2g``: ``Y * rowSums(K) - K %*% Y``, over ``K + t(K)`` if symmetrised."""
    if symmetrize:
        K = K + K.T
    return Y * K.sum(axis=1, keepdims=True) - K @ Y


def _r_b_variant(P, Y, beta, kernel, rows):
    """R smallvis's bandwidth variants (R/sne.R), written out matrix by matrix.

    R's ``W * beta`` (``beta`` a vector) recycles ``beta`` down the columns:
    row ``i`` of the squared distances is multiplied by ``beta[i]``.
    ``kernel`` is ``"gauss"`` (``W <- exp(-beta * W)``) or ``"cauchy"``
    (``W <- 1 / (1 + beta * W)``); ``rows`` normalises each row (``invZ <-
    1 / rowSums(W)``, basne and btasne) instead of all pairs (``invZ <- 1 /
    sum(W)``, bssne and btsne).  The cost is the KL divergence
    ``P * log(P / (W * invZ))`` summed; the gradient ``k2g(Y, 2 * beta *
    (P - W * invZ), symmetrize = TRUE)`` for the Gaussian and ``k2g(Y, 2 *
    beta * W * (P - W * invZ), symmetrize = TRUE)`` for the Cauchy kernel.
    """
    D2 = _sq_dists(Y) * beta[:, None]
    W = np.exp(-D2) if kernel == "gauss" else 1.0 / (1.0 + D2)
    np.fill_diagonal(W, 0.0)
    Q = W / (W.sum(axis=1, keepdims=True) if rows else W.sum())
    mask = P > 0
    cost = float(np.sum(P[mask] * np.log(P[mask] / Q[mask])))
    K = 2 * beta[:, None] * (P - Q)
    if kernel == "cauchy":
        K = K * W
    return cost, _k2g(Y, K, symmetrize=True)


def r_basne(P, Y, beta):
    """R smallvis's ``basne``."""
    return _r_b_variant(P, Y, beta, "gauss", rows=True)


def r_bssne(P, Y, beta):
    """R smallvis's ``bssne``."""
    return _r_b_variant(P, Y, beta, "gauss", rows=False)


def r_btsne(P, Y, beta):
    """R smallvis's ``btsne``."""
    return _r_b_variant(P, Y, beta, "cauchy", rows=False)


def r_btasne(P, Y, beta):
    """R smallvis's ``btasne``."""
    return _r_b_variant(P, Y, beta, "cauchy", rows=True)


def r_asne(P, Y):
    """R smallvis's ``asne``: ``exp(-d2)`` per row, ``k2g(Y, 2 * (P - Q), symmetrize = TRUE)``."""
    W = np.exp(-_sq_dists(Y))
    np.fill_diagonal(W, 0.0)
    Q = W / W.sum(axis=1, keepdims=True)
    mask = P > 0
    return float(np.sum(P[mask] * np.log(P[mask] / Q[mask]))), _k2g(Y, 2 * (P - Q), True)


def r_ssne(P, Y):
    """R smallvis's ``ssne``: ``exp(-d2)`` over all pairs, ``k2g(Y, 4 * (P - Q))``."""
    W = np.exp(-_sq_dists(Y))
    np.fill_diagonal(W, 0.0)
    Q = W / W.sum()
    mask = P > 0
    return float(np.sum(P[mask] * np.log(P[mask] / Q[mask]))), _k2g(Y, 4 * (P - Q), False)


def r_tsne(P, Y):
    """R smallvis's ``tsne``: ``1 / (1 + d2)`` over all pairs, ``k2g(Y, 4 W (P - Q))``."""
    W = 1.0 / (1.0 + _sq_dists(Y))
    np.fill_diagonal(W, 0.0)
    Q = W / W.sum()
    mask = P > 0
    return float(np.sum(P[mask] * np.log(P[mask] / Q[mask]))), _k2g(Y, 4 * W * (P - Q), False)


def r_tasne(P, Y):
    """R smallvis's ``tasne``: ``1 / (1 + d2)`` per row, ``k2g(Y, 2 W (P - Q), TRUE)``."""
    W = 1.0 / (1.0 + _sq_dists(Y))
    np.fill_diagonal(W, 0.0)
    Q = W / W.sum(axis=1, keepdims=True)
    mask = P > 0
    return float(np.sum(P[mask] * np.log(P[mask] / Q[mask]))), _k2g(Y, 2 * W * (P - Q), True)


def r_bnerv(P, Y, beta):
    """R smallvis's ``bnerv`` at its defaults (``lambda`` 0.9, ``eps`` machine epsilon).

    Written out in ``tests/test_r_nerv.py``.  R floors all of ``P`` at
    ``eps``, the forward divergence's too, where smallvis floors only the
    reverse divergence's log; the few pairs of these cases below ``eps``
    move the cost and gradient by about ``N^2 eps``, far below the
    tolerance.
    """
    from test_r_nerv import r_bnerv as transcription

    return transcription(P, Y, beta)


def r_nerv(P, Y):
    """R smallvis's ``nerv`` at its defaults (``tests/test_r_nerv.py``)."""
    from test_r_nerv import r_nerv as transcription

    return transcription(P, Y)


R_FORMULAS = {"basne": r_basne, "bssne": r_bssne, "btsne": r_btsne, "btasne": r_btasne,
              "bnerv": r_bnerv}

#: R's formula of the method each variant becomes with every bandwidth 1, and
#: the registered method that computes it (btasne's, R's tasne, is none).
R_PLAIN = {"basne": r_asne, "bssne": r_ssne, "btsne": r_tsne, "btasne": r_tasne,
           "bnerv": r_nerv}
PLAIN = {"basne": "asne", "bssne": "ssne", "btsne": "tsne", "btasne": None, "bnerv": "nerv"}


@pytest.fixture(scope="module")
def cases():
    """Small calibrated cases: data, the method's P, the calibration's betas, a layout."""
    rng = np.random.default_rng(11)
    X = np.vstack([rng.normal(size=(8, 5)), rng.normal(loc=3.0, scale=0.4, size=(7, 5))])
    C, beta = conditional_perplexity(X, 4.0, reference)
    J = (C + C.T) / (C + C.T).sum()
    Y = rng.normal(size=(15, 2))
    return {name: (X, C if not METHODS[name].symmetric else J, beta, Y) for name in FROM_INPUT}


@pytest.fixture
def case(cases, method):
    return cases[method]


def test_the_r_formulas_cover_the_methods_from_input():
    assert set(FROM_INPUT) == set(R_FORMULAS)



@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("method", FROM_INPUT)
def test_cost_and_gradient_match_r_smallvis(method, case, fast):
    X, P, beta, Y = case
    rng = np.random.default_rng(3)
    # the calibration's own precisions, another spread of them, and one precision for all
    for bandwidth in (beta, beta * rng.uniform(0.3, 3.0, size=beta.shape),
                      np.full(beta.shape, 0.7)):
        r_cost, r_grad = R_FORMULAS[method](P, Y, bandwidth)
        cost, grad = smallvis.cost_and_gradient(method, P, Y, fast=fast, bandwidth=bandwidth)
        assert cost == pytest.approx(r_cost, rel=1e-10)
        np.testing.assert_allclose(grad, r_grad, rtol=0, atol=1e-10 * np.abs(r_grad).max())


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("method", FROM_INPUT)
def test_with_every_bandwidth_one_it_is_the_plain_method(method, case, fast):
    _, P, beta, Y = case
    plain_cost, plain_grad = R_PLAIN[method](P, Y)
    if PLAIN[method] is not None:
        cost, grad = smallvis.cost_and_gradient(PLAIN[method], P, Y, fast=fast)
        assert cost == pytest.approx(plain_cost, rel=1e-10)
        np.testing.assert_allclose(grad, plain_grad, rtol=0, atol=1e-10 * np.abs(grad).max())
    for bandwidth in (1.0, np.ones_like(beta)):
        cost, grad = smallvis.cost_and_gradient(method, P, Y, fast=fast, bandwidth=bandwidth)
        assert cost == pytest.approx(plain_cost, rel=1e-10)
        np.testing.assert_allclose(grad, plain_grad, rtol=0,
                                   atol=1e-10 * np.abs(plain_grad).max())


@pytest.mark.parametrize("method", FROM_INPUT)
def test_the_per_point_gradient_is_the_derivative_of_its_cost(method, case):
    _, P, beta, Y = case
    bandwidth = beta / np.exp(np.mean(np.log(beta)))
    _, grad = smallvis.cost_and_gradient(method, P, Y, bandwidth=bandwidth)
    h = 1e-6
    fd = np.zeros_like(Y)
    for i in range(Y.shape[0]):
        for d in range(Y.shape[1]):
            step = np.zeros_like(Y)
            step[i, d] = h
            up = smallvis.cost_and_gradient(method, P, Y + step, bandwidth=bandwidth)[0]
            down = smallvis.cost_and_gradient(method, P, Y - step, bandwidth=bandwidth)[0]
            fd[i, d] = (up - down) / (2 * h)
    np.testing.assert_allclose(grad, fd, rtol=0, atol=1e-6 * np.abs(grad).max())


@pytest.mark.parametrize("method", FROM_INPUT)
def test_the_transform_twins_agree_with_a_bandwidth_per_new_point(method, case):
    from smallvis.backends import _kernels

    _, P, beta, Y = case
    unit_class = next(iter(METHODS[method].normalised_units.values()))
    rows = sp.csr_matrix(P[:5, 5:] / P[:5, 5:].sum(axis=1, keepdims=True))
    triplet = (rows.indptr.astype(np.int64), rows.indices.astype(np.int64), rows.data)
    Y_new, Y_train = Y[:5] + 0.1, np.ascontiguousarray(Y[5:])
    unit = unit_class(bandwidth=beta[:5])
    grads = []
    for module in (reference, _kernels):
        g = np.zeros_like(Y_new)
        module.normalised_transform_gradient(unit, *triplet, Y_new, Y_train, g, 1)
        grads.append((module.normalised_transform_cost(unit, *triplet, Y_new, Y_train, 1), g))
    assert grads[1][0] == pytest.approx(grads[0][0], rel=1e-10)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=0,
                               atol=1e-10 * np.abs(grads[0][1]).max())
    # each new row is its own: a row's bandwidth moves that row's gradient only
    other = unit_class(bandwidth=np.where(np.arange(5) == 2, 3.0 * beta[:5], beta[:5]))
    g2 = np.zeros_like(Y_new)
    reference.normalised_transform_gradient(other, *triplet, Y_new, Y_train, g2, 1)
    changed = np.any(g2 != grads[0][1], axis=1)
    assert changed.tolist() == [False, False, True, False, False]


@pytest.mark.parametrize("method", FROM_INPUT)
def test_the_fit_takes_the_calibration_s_precisions(method, case):
    X, _, _, _ = case
    result = smallvis.embed(X, method=method, perplexity=4.0, n_iter=50, fast=False,
                            return_result=True, random_state=0)
    _, beta = conditional_perplexity(X, 4.0, reference)
    # the calibration's precisions (in the data's units) over their geometric mean
    np.testing.assert_allclose(result.params["bandwidth"],
                               beta / np.exp(np.mean(np.log(beta))), rtol=1e-10)
    # and so the same for X in other units
    scaled = smallvis.embed(1e3 * X, method=method, perplexity=4.0, n_iter=50, fast=False,
                            return_result=True, random_state=0)
    np.testing.assert_allclose(scaled.params["bandwidth"], result.params["bandwidth"],
                               rtol=1e-8)


@pytest.mark.parametrize("method", FROM_INPUT)
def test_a_p_without_its_calibration_gives_the_plain_method(method, case):
    _, P, _, Y = case
    cost, grad = smallvis.cost_and_gradient(method, P, Y)
    r_cost, r_grad = R_PLAIN[method](P, Y)
    assert cost == pytest.approx(r_cost, rel=1e-10)
    np.testing.assert_allclose(grad, r_grad, rtol=0, atol=1e-10 * np.abs(r_grad).max())


@pytest.mark.parametrize("method", FROM_INPUT)
def test_bad_bandwidths_are_refused(method, case):
    _, P, _, Y = case
    for bad in (np.ones(3), -1.0, 0.0, np.inf, np.full(P.shape[0], np.nan), "x",
                np.ones((P.shape[0], 2))):
        with pytest.raises(ValueError, match="bandwidth"):
            smallvis.cost_and_gradient(method, P, Y, bandwidth=bad)
    with pytest.raises(TypeError, match="bandwidth"):
        smallvis.cost_and_gradient(method, P, Y, bandwidth=None)


@pytest.mark.parametrize("method", FROM_INPUT)
def test_new_points_take_their_neighbourhood_s_bandwidth(method, case, tmp_path):
    from smallvis.backends import _kernels

    X, _, _, _ = case
    estimator = smallvis.Embedding(method=method, perplexity=4.0, n_iter=100,
                                   random_state=0).fit(X[:12])
    training = estimator.training_map_
    X_new = X[12:]
    P = training.new_rows(np.ascontiguousarray(X_new, dtype=np.float64), _kernels)
    inputs = training.new_inputs(P)
    fitted = training.cost_params["bandwidth"]
    # the P-weighted geometric mean of the training points' bandwidths, row by row
    dense = P.toarray()
    for s in range(len(X_new)):
        weights = dense[s] / dense[s].sum()
        assert inputs["bandwidth"][s] == pytest.approx(
            np.prod(fitted ** weights), rel=1e-12)
        assert fitted.min() <= inputs["bandwidth"][s] <= fitted.max()
    # batch independence and a model file's round trip
    placed = estimator.transform(X_new)
    np.testing.assert_array_equal(estimator.transform(X_new[::-1])[::-1], placed)
    path = tmp_path / "model.npz"
    smallvis.save_model(estimator, path)
    loaded = smallvis.load_model(path)
    np.testing.assert_array_equal(loaded.training_map_.cost_params["bandwidth"], fitted)
    np.testing.assert_array_equal(loaded.transform(X_new), placed)
