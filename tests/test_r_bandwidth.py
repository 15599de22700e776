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


def _heavy_tail(D2, alpha):
    """R smallvis's ``powm(alpha * W + 1, -1 / alpha)``: Yang et al.'s heavy-tailed weight."""
    return (alpha * D2 + 1.0) ** (-1.0 / alpha)


def r_bhssne_literal(P, Y, beta, alpha=0.5):
    """R smallvis's ``bhssne`` as R writes it, for its one number ``beta``.

    ``ab <- alpha * beta``, ``W <- powm(ab * W + 1, -1 / alpha)`` over all
    pairs, the cost ``P * log(P / (W / Z))`` summed, and the gradient
    ``k2g(Y, 4 * beta * (P - W / Z) * powm(W, alpha))``, not symmetrised.
    """
    W = _heavy_tail(_sq_dists(Y) * beta, alpha)
    np.fill_diagonal(W, 0.0)
    Q = W / W.sum()
    mask = P > 0
    cost = float(np.sum(P[mask] * np.log(P[mask] / Q[mask])))
    return cost, _k2g(Y, 4 * beta * (P - Q) * W ** alpha, symmetrize=False)


def r_bhssne(P, Y, beta, alpha=0.5):
    """R smallvis's ``bhssne`` with a precision per row, written as R's other variants.

    R's ``bhssne`` takes one number (:func:`r_bhssne_literal`); with a
    vector ``beta``, R's ``ab * W`` recycles it down the columns as in
    ``btsne``, row ``i``'s kernel :math:`(1 + \alpha \beta_i d^2)^{-1/\alpha}`,
    and the gradient is then btsne's form, ``k2g(Y, 2 * beta * W^alpha *
    (P - W / Z), symmetrize = TRUE)``, which for one number is R's.
    """
    W = _heavy_tail(_sq_dists(Y) * beta[:, None], alpha)
    np.fill_diagonal(W, 0.0)
    Q = W / W.sum()
    mask = P > 0
    cost = float(np.sum(P[mask] * np.log(P[mask] / Q[mask])))
    return cost, _k2g(Y, 2 * beta[:, None] * W ** alpha * (P - Q), symmetrize=True)


def r_hssne(P, Y, alpha=0.5):
    """R smallvis's ``hssne``: ``powm(alpha * d2 + 1, -1 / alpha)``, ``k2g(Y, 4 (P - Q) W^alpha)``."""
    W = _heavy_tail(_sq_dists(Y), alpha)
    np.fill_diagonal(W, 0.0)
    Q = W / W.sum()
    mask = P > 0
    cost = float(np.sum(P[mask] * np.log(P[mask] / Q[mask])))
    return cost, _k2g(Y, 4 * (P - Q) * W ** alpha, symmetrize=False)


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
              "bhssne": r_bhssne, "bnerv": r_bnerv}

#: R's formula of the method each variant becomes with every bandwidth 1, and
#: the registered method that computes it (btasne's, R's tasne, is none).
R_PLAIN = {"basne": r_asne, "bssne": r_ssne, "btsne": r_tsne, "btasne": r_tasne,
           "bhssne": r_hssne, "bnerv": r_nerv}
PLAIN = {"basne": "asne", "bssne": "ssne", "btsne": "tsne", "btasne": None, "bhssne": "hssne",
         "bnerv": "nerv"}


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


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("alpha, beta", [(1e-6, 1.0), (0.5, 1.0), (1.0, 1.0), (1e-6, 0.1),
                                         (0.5, 0.1), (1.4, 0.1), (1.0, 10.0), (0.5, 10.0)])
def test_bhssne_at_one_number_is_r_smallvis_s_code(cases, alpha, beta, fast):
    # R's own settings (its gradient tests' and API test's alpha and beta),
    # against R's code for one number as it is written, not symmetrised
    _, P, _, Y = cases["bhssne"]
    r_cost, r_grad = r_bhssne_literal(P, Y, beta, alpha)
    cost, grad = smallvis.cost_and_gradient("bhssne", P, Y, fast=fast, alpha=alpha,
                                            bandwidth=beta)
    assert cost == pytest.approx(r_cost, rel=1e-10)
    np.testing.assert_allclose(grad, r_grad, rtol=0, atol=1e-10 * np.abs(r_grad).max())


@pytest.mark.parametrize("alpha", [1e-6, 0.5, 1.0, 1.4])
def test_bhssne_at_one_number_is_hssne_on_a_rescaled_layout(cases, alpha):
    # (1 + alpha beta d^2)^(-1/alpha) is hssne's weight at sqrt(beta) Y: the
    # cost is hssne's there, the gradient sqrt(beta) times hssne's
    _, P, _, Y = cases["bhssne"]
    beta = 0.3
    cost, grad = smallvis.cost_and_gradient("bhssne", P, Y, alpha=alpha, bandwidth=beta)
    h_cost, h_grad = smallvis.cost_and_gradient("hssne", P, np.sqrt(beta) * Y, alpha=alpha)
    assert cost == pytest.approx(h_cost, rel=1e-10)
    np.testing.assert_allclose(grad, np.sqrt(beta) * h_grad, rtol=0,
                               atol=1e-10 * np.abs(grad).max())


def test_bhssne_s_tail_limits_are_bssne_and_btsne(cases):
    _, P, beta, Y = cases["bhssne"]
    cost, grad = smallvis.cost_and_gradient("bhssne", P, Y, alpha=1.0, bandwidth=beta)
    t_cost, t_grad = r_btsne(P, Y, beta)
    assert cost == pytest.approx(t_cost, rel=1e-10)
    np.testing.assert_allclose(grad, t_grad, rtol=0, atol=1e-10 * np.abs(t_grad).max())
    # alpha -> 0: the Gaussian, to first order in alpha
    cost, grad = smallvis.cost_and_gradient("bhssne", P, Y, alpha=1e-9, bandwidth=beta)
    g_cost, g_grad = r_bssne(P, Y, beta)
    assert cost == pytest.approx(g_cost, rel=1e-6)
    np.testing.assert_allclose(grad, g_grad, rtol=0, atol=1e-6 * np.abs(g_grad).max())


@pytest.mark.parametrize("bad", [0.0, -0.5, 2e8, np.nan, np.inf])
def test_bhssne_refuses_a_tail_out_of_range(cases, bad):
    _, P, _, Y = cases["bhssne"]
    with pytest.raises(ValueError, match="alpha"):
        smallvis.cost_and_gradient("bhssne", P, Y, alpha=bad)
