"""f-divergence SNE and the RSR methods against transcriptions of R smallvis.

Each function below writes out R smallvis's own expression for the
method (its ``pfn`` and ``gr``, matrix by matrix, from ``R/fdiv.R`` and
``R/sne.R``) in dense NumPy, independently of smallvis's units and
engines; the tests check smallvis's exact cost and gradient, in both
backends, against it.  Where R floors ``P`` or a ratio
at machine epsilon before a log, the transcription keeps the floor and the
test says what it moves.  Limits tie the new methods to registered ones.
"""

import numpy as np
import pytest

import smallvis
from smallvis.testing import golden

EPS = np.finfo(float).eps


def _logm(M):
    """R smallvis's ``logm``: the log of ``M`` floored at machine epsilon."""
    return np.log(np.maximum(M, EPS))


def _k2g(Y, K, symmetrize):
    """R smallvis's ``k2g``: ``Y * rowSums(K) - K %*% Y``."""
    if symmetrize:
        K = K + K.T
    return Y * K.sum(axis=1, keepdims=True) - K @ Y


def _d2(Y):
    return ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)


def _cauchy_q(Y):
    """R's t-SNE weight 1 / (1 + d2) off the diagonal, normalised over all pairs; and its sum."""
    W = 1.0 / (1.0 + _d2(Y))
    np.fill_diagonal(W, 0.0)
    return W / W.sum(), W.sum()


def _layouts(method):
    """The golden case's P with three layouts: its own, shrunk, and a random one."""
    g = golden(method)
    rng = np.random.default_rng(7)
    return [(g["P"], Y) for Y in (g["Y"], 0.5 * g["Y"], rng.normal(size=g["Y"].shape))]


def _check(method, r_cost, r_grad, P, Y, fast, **params):
    cost, grad = smallvis.cost_and_gradient(method, P, Y, fast=fast, **params)
    assert cost == pytest.approx(r_cost, rel=1e-9)
    np.testing.assert_allclose(grad, r_grad, rtol=0, atol=1e-9 * np.abs(r_grad).max())
    return cost


# ---------------------------------------------------------------------------
# f-divergences (R/fdiv.R)
# ---------------------------------------------------------------------------


def r_jssne(P, Y):
    """R smallvis's ``jssne`` cost and gradient.

    R floors ``P`` at machine epsilon for its sum of ``p log p`` only, which
    adds ``eps log eps / 2`` per zero of ``P`` (the diagonal): returned
    apart, as the second value, for the test to take off.
    """
    Q, sumW = _cauchy_q(Y)
    Z = 0.5 * (P + Q)
    Pf = np.maximum(P, EPS)
    PlP = (Pf * np.log(Pf)).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        lQZ = _logm(np.nan_to_num(Q / Z))
    QlQZ = (Q * lQZ).sum(axis=0)
    pcost = 0.5 * (PlP + QlQZ - (P * _logm(Z)).sum(axis=0))
    K = 2 * Q * Q * sumW * (QlQZ.sum() - lQZ)
    floor = 0.5 * np.sum(P < EPS) * EPS * np.log(EPS)
    return pcost.sum(), _k2g(Y, K, symmetrize=False), floor


def r_chsne(P, Y):
    """R smallvis's ``chsne`` cost and gradient (no floor: its ``eps`` is unused)."""
    Q, Z = _cauchy_q(Y)
    with np.errstate(divide="ignore"):
        invQ = 1.0 / Q
    np.fill_diagonal(invQ, 0.0)
    PQ = P - Q
    pcost = (PQ * PQ * invQ).sum(axis=0)
    P2Q = P * P * invQ
    K = 4 * Q * Q * Z * (P2Q * invQ - P2Q.sum())
    return pcost.sum(), _k2g(Y, K, symmetrize=False)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
def test_jssne_matches_r_smallvis(fast):
    for P, Y in _layouts("jssne"):
        r_cost, r_grad, floor = r_jssne(P, Y)
        cost = _check("jssne", r_cost - floor, r_grad, P, Y, fast)
        # the Jensen-Shannon divergence lies in [0, log 2]
        assert 0.0 < cost < np.log(2.0)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
def test_chsne_matches_r_smallvis(fast):
    for P, Y in _layouts("chsne"):
        r_cost, r_grad = r_chsne(P, Y)
        cost = _check("chsne", r_cost, r_grad, P, Y, fast)
        assert cost > 0.0


def _near_fit(method, scale):
    """P := Q of a layout Y0 (Cauchy, over all pairs), and Y0 moved by ``scale``."""
    g = golden(method)
    Y0 = g["Y"]
    P, _ = _cauchy_q(Y0)
    return P, Y0, Y0 + scale * np.random.default_rng(3).normal(size=Y0.shape)


@pytest.mark.parametrize("method", ["jssne", "chsne", "hlsne"])
def test_f_divergences_vanish_where_q_equals_p(method):
    P, Y0, _ = _near_fit(method, 0.0)
    cost, grad = smallvis.cost_and_gradient(method, P, Y0)
    scale = np.abs(smallvis.cost_and_gradient("tsne", P, 1.5 * Y0)[1]).max()
    assert abs(cost) < 1e-12
    assert np.abs(grad).max() < 1e-9 * scale


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
def test_f_divergences_near_q_equal_p_are_multiples_of_hellinger(fast):
    """Near Q = P, chi^2 = 4 H^2 = 8 JS to second order (Im et al. 2018, sec. 2)."""
    P, _, Y = _near_fit("hlsne", 1e-3)
    h = smallvis.cost_and_gradient("hlsne", P, Y, fast=fast)[0]
    chi2 = smallvis.cost_and_gradient("chsne", P, Y, fast=fast)[0]
    js = smallvis.cost_and_gradient("jssne", P, Y, fast=fast)[0]
    assert h > 0.0
    assert chi2 == pytest.approx(4.0 * h, rel=1e-2)
    assert js == pytest.approx(0.5 * h, rel=1e-2)


# ---------------------------------------------------------------------------
# "rsr" affinities: R/sne.R's trsrsne
# ---------------------------------------------------------------------------


def r_rsr_affinities(X, perplexity):
    """R's ``sne_init(symmetrize = "symmetric", normalize = FALSE)`` and ``P / rowSums(P)``.

    From the conditional ``p_{j|i}`` (asne's ``P``, whose calibration
    tests/test_rsmallvis.py checks against R's fixtures).
    """
    C = smallvis.affinities(X, "asne", perplexity=perplexity)
    P = 0.5 * (C + C.T)
    return P / P.sum(axis=1, keepdims=True)


def test_rsr_affinities_match_r_smallvis():
    g = golden("trsrsne")
    X = g["X"]
    for perplexity in (5.0, 30.0):
        P = smallvis.affinities(X, "trsrsne", perplexity=perplexity)
        expected = r_rsr_affinities(X, perplexity)
        np.testing.assert_allclose(P, expected, rtol=0, atol=1e-13)
        np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)


def r_trsrsne(P, Y):
    """R smallvis's ``trsrsne`` (``tasne``'s ``update`` and ``gr``; the KL divergence per row).

    ``W = 1 / (1 + d2)``, ``Z = rowSums(W)``, gradient ``k2g(2 W (P - W / Z),
    symmetrize = TRUE)``; the cost ``sum p log(p / q)`` with ``q = W / Z``.
    """
    W = 1.0 / (1.0 + _d2(Y))
    np.fill_diagonal(W, 0.0)
    Z = W.sum(axis=1, keepdims=True)
    Q = W / Z
    pos = P > 0
    cost = np.sum(P[pos] * np.log(P[pos] / Q[pos]))
    return cost, _k2g(Y, 2 * W * (P - W / Z), symmetrize=True)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
def test_trsrsne_matches_r_smallvis(fast):
    for P, Y in _layouts("trsrsne"):
        r_cost, r_grad = r_trsrsne(P, Y)
        _check("trsrsne", r_cost, r_grad, P, Y, fast)


def test_trsrsne_on_one_row_per_pair_is_tsne_on_two_points():
    """Two points: each row holds one pair, q = 1 in both, so the cost is sum p log p."""
    P = np.array([[0.0, 1.0], [1.0, 0.0]])
    Y = np.array([[0.0, 0.0], [1.5, 0.0]])
    for fast in (False, True):
        cost, grad = smallvis.cost_and_gradient("trsrsne", P, Y, fast=fast)
        # log q is log w - log z in the engine: zero to rounding, not exactly
        assert abs(cost) <= 4 * np.finfo(np.float64).eps
        np.testing.assert_allclose(grad, 0.0, rtol=0, atol=4 * np.finfo(np.float64).eps)
