"""Reverse-KL SNE, NeRV and asne and JSE on the rsr P against transcriptions of R smallvis.

Each function below writes out R smallvis's own expression for the
method (its ``pfn`` and ``gr``, matrix by matrix, from ``R/fdiv.R``,
``R/nerv.R``, ``R/sne.R`` and ``R/jse.R``) in dense NumPy, independently of smallvis's units and
engines; the tests check smallvis's exact cost and gradient, in both
backends, against it.  R floors ``P`` at its ``eps`` (machine epsilon by
default) before the reverse KL divergence's log, as smallvis's
``p_floor`` does; where R floors anything else, the transcription keeps
the floor and the test says what it moves.  Limits tie the new methods
to registered ones.
"""

import numpy as np
import pytest

import smallvis
from smallvis.testing import golden

EPS = np.finfo(float).eps


def _r_logm(M):
    """R smallvis's ``logm``: the log off the diagonal, 0 on it."""
    M = M.copy()
    np.fill_diagonal(M, EPS)
    L = np.log(M)
    np.fill_diagonal(L, 0.0)
    return L


def _k2g(Y, K, symmetrize):
    """R smallvis's ``k2g``: ``Y * rowSums(K) - K %*% Y``."""
    if symmetrize:
        K = K + K.T
    return Y * K.sum(axis=1, keepdims=True) - K @ Y


def _d2(Y):
    return ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)


def _layouts(method, P=None):
    """The golden case's P (or ``P``) with three layouts: its own, shrunk, and a random one."""
    g = golden(method)
    rng = np.random.default_rng(7)
    P = g["P"] if P is None else P
    return [(P, Y) for Y in (g["Y"], 0.5 * g["Y"], rng.normal(size=g["Y"].shape))]


def _check(method, r_cost, r_grad, P, Y, fast, **params):
    cost, grad = smallvis.cost_and_gradient(method, P, Y, fast=fast, **params)
    assert cost == pytest.approx(r_cost, rel=1e-9)
    np.testing.assert_allclose(grad, r_grad, rtol=0, atol=1e-9 * np.abs(r_grad).max())
    return cost, grad


# ---------------------------------------------------------------------------
# rklsne (R/fdiv.R)
# ---------------------------------------------------------------------------


def r_rklsne(P, Y, eps=EPS):
    """R smallvis's ``rklsne`` cost and gradient, with its ``eps``.

    ``lP = logm(P floored at eps)``, ``W = 1 / (1 + d2)`` off the diagonal,
    ``Q = W / sum(W)``, ``lQP = logm(Q) - lP``, cost ``sum(Q lQP)``,
    gradient ``k2g(4 Q^2 sumW (sum(Q lQP) - lQP))``.
    """
    lP = _r_logm(np.maximum(P, eps))
    W = 1.0 / (1.0 + _d2(Y))
    np.fill_diagonal(W, 0.0)
    sumW = W.sum()
    Q = W / sumW
    lQP = _r_logm(Q) - lP
    QlQPcs = (Q * lQP).sum(axis=0)
    K = 4 * Q * Q * sumW * (QlQPcs.sum() - lQP)
    return QlQPcs.sum(), _k2g(Y, K, symmetrize=False)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("p_floor", [EPS, 1e-6, 1e-3])
def test_rklsne_matches_r_smallvis(fast, p_floor):
    for P, Y in _layouts("rklsne"):
        r_cost, r_grad = r_rklsne(P, Y, eps=p_floor)
        _check("rklsne", r_cost, r_grad, P, Y, fast, p_floor=p_floor)


def test_rklsne_floor_acts_only_below_it():
    """The cost depends on ``p_floor`` only through the pairs whose p lies below it."""
    P, Y = _layouts("rklsne")[0]
    off = ~np.eye(len(P), dtype=bool)
    low = P[off].min()
    assert low > 0.0
    at_low = smallvis.cost_and_gradient("rklsne", P, Y, p_floor=low)
    below = smallvis.cost_and_gradient("rklsne", P, Y, p_floor=0.5 * low)
    assert below[0] == pytest.approx(at_low[0], rel=1e-12)
    np.testing.assert_allclose(below[1], at_low[1], rtol=1e-12, atol=0)
    # a floor above some p lowers their terms q log(q / max(p, floor))
    above = smallvis.cost_and_gradient("rklsne", P, Y, p_floor=np.median(P[off]))
    assert above[0] < at_low[0]


def test_rklsne_is_zero_where_q_equals_p():
    g = golden("rklsne")
    W = 1.0 / (1.0 + _d2(g["Y"]))
    np.fill_diagonal(W, 0.0)
    P = W / W.sum()
    for fast in (False, True):
        cost, grad = smallvis.cost_and_gradient("rklsne", P, g["Y"], fast=fast)
        assert abs(cost) < 1e-13
        scale = np.abs(smallvis.cost_and_gradient("rklsne", P, 1.5 * g["Y"])[1]).max()
        assert np.abs(grad).max() < 1e-9 * scale


def test_rklsne_on_a_sparse_p_is_finite_and_repels_the_unlinked():
    """A kNN P has zeros: the floor keeps the cost finite and pushes those pairs apart."""
    g = golden("rklsne")
    P = smallvis.METHODS["rklsne"].case_affinities(g["X"], 5, 30.0, smallvis.affinities)
    assert (P == 0).sum() > P.size / 2
    cost, grad = smallvis.cost_and_gradient("rklsne", P, g["Y"], fast=True)
    assert np.isfinite(cost) and np.all(np.isfinite(grad))
    r_cost, r_grad = r_rklsne(P, g["Y"])
    assert cost == pytest.approx(r_cost, rel=1e-9)


@pytest.mark.parametrize("bad", [0.0, -1e-16, np.inf, np.nan])
def test_p_floor_must_be_positive_and_finite(bad):
    P, Y = _layouts("rklsne")[0]
    with pytest.raises(ValueError, match="p_floor"):
        smallvis.cost_and_gradient("rklsne", P, Y, p_floor=bad)
    with pytest.raises(TypeError, match="p_floor"):
        smallvis.cost_and_gradient("rklsne", P, Y, p_floor="1e-16")


# ---------------------------------------------------------------------------
# arsrsne (R/sne.R), rsrjse (R/jse.R) on R's row-normalised symmetrised P
# ---------------------------------------------------------------------------


def _r_gaussian_rows(Y):
    """R smallvis's ``expQ`` with row normalisation: exp(-d2) off the diagonal over each row."""
    W = np.exp(-_d2(Y))
    np.fill_diagonal(W, 0.0)
    return W / W.sum(axis=1, keepdims=True)


def r_arsrsne(P, Y):
    """R smallvis's ``asne`` on the rsr ``P``: ``sum(P log(P / Q))``, ``k2g(2 (P - Q), TRUE)``."""
    Q = _r_gaussian_rows(Y)
    nz = P > 0
    cost = float(np.sum(P[nz] * np.log(P[nz] / Q[nz])))
    return cost, _k2g(Y, 2 * (P - Q), symmetrize=True)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
def test_arsrsne_matches_r_smallvis(fast):
    for P, Y in _layouts("arsrsne"):
        r_cost, r_grad = r_arsrsne(P, Y)
        _check("arsrsne", r_cost, r_grad, P, Y, fast)


def test_rsr_methods_take_the_row_normalised_symmetrised_p():
    """Every method of trsrsne's family has its P, R's "rsr" affinities."""
    g = golden("trsrsne")
    want = smallvis.affinities(g["X"], "trsrsne", perplexity=10.0)
    family = smallvis.METHODS["trsrsne"].p_family
    for method in [n for n, m in smallvis.METHODS.items() if m.p_family is family]:
        np.testing.assert_array_equal(smallvis.affinities(g["X"], method, perplexity=10.0),
                                      want)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("kappa", [0.5, 0.1])
def test_rsrjse_matches_r_smallvis(fast, kappa):
    from test_r_formulas import _r_floor_offset, r_jse

    for P, Y in _layouts("rsrjse")[1:]:  # away from the converged layout (as jse's test)
        r_cost, r_grad = r_jse(P, Y, kappa, symmetric=False)
        _check("rsrjse", r_cost - _r_floor_offset(P, kappa), r_grad, P, Y, fast, kappa=kappa)


# ---------------------------------------------------------------------------
# nerv, rsrnerv (R/nerv.R)
# ---------------------------------------------------------------------------


def r_nerv(P, Y, lam=0.9, eps=EPS):
    """R smallvis's ``nerv`` cost and gradient (``rsrnerv``'s on the rsr ``P``).

    ``cache_input`` floors all of ``P`` at ``eps``; ``update``: ``Q`` the
    Gaussian over each row, ``lPQ = logm(P / Q)``, ``kl_rev = rowSums(Q *
    -lPQ)``; ``pfn``: ``lam rowSums(P lPQ) + (1 - lam) kl_rev``; ``gr``:
    ``k2g(2 lam (P - Q) + 2 (1 - lam) Q (lPQ + kl_rev), TRUE)``.
    """
    P = np.maximum(P, eps)
    Q = _r_gaussian_rows(Y)
    lPQ = _r_logm(P / np.where(Q > 0, Q, 1.0))
    kl_rev = (Q * -lPQ).sum(axis=1, keepdims=True)
    cost = (lam * (P * lPQ).sum(axis=1) + (1 - lam) * kl_rev[:, 0]).sum()
    K = 2 * lam * (P - Q) + 2 * (1 - lam) * Q * (lPQ + kl_rev)
    return cost, _k2g(Y, K, symmetrize=True)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("method", [n for n, m in smallvis.METHODS.items()
                                    if {"lam", "p_floor"} <= set(m.cost_params)
                                    and m.p_family.normalised == "rows"
                                    and not m.input_params])
@pytest.mark.parametrize("lam", [0.9, 0.5, 0.0])
def test_nerv_matches_r_smallvis(fast, method, lam):
    """R floors every p at eps, the forward divergence's too: pairs with p = 0
    move the cost by at most N^2 eps |log(eps / q)|, far below the tolerance."""
    for P, Y in _layouts(method):
        r_cost, r_grad = r_nerv(P, Y, lam=lam)
        _check(method, r_cost, r_grad, P, Y, fast, lam=lam)


def test_nerv_at_lam_1_is_asne_and_its_floor_acts_only_in_the_reverse_divergence():
    P, Y = _layouts("nerv")[2]
    for fast in (False, True):
        asne = smallvis.cost_and_gradient("asne", P, Y, fast=fast)
        for p_floor in (EPS, 1e-3):
            nerv = smallvis.cost_and_gradient("nerv", P, Y, fast=fast, lam=1.0,
                                              p_floor=p_floor)
            assert nerv[0] == pytest.approx(asne[0], rel=1e-12)
            np.testing.assert_allclose(nerv[1], asne[1], rtol=0,
                                       atol=1e-12 * np.abs(asne[1]).max())
    # below lam = 1 a floor above some p lowers their reverse terms
    off = ~np.eye(len(P), dtype=bool)
    low = smallvis.cost_and_gradient("nerv", P, Y, p_floor=EPS)[0]
    high = smallvis.cost_and_gradient("nerv", P, Y, p_floor=np.median(P[off]))[0]
    assert high < low


@pytest.mark.parametrize("bad", [-0.1, 1.5, np.nan])
def test_lam_must_lie_in_the_unit_interval(bad):
    P, Y = _layouts("nerv")[0]
    with pytest.raises(ValueError, match="lam"):
        smallvis.cost_and_gradient("nerv", P, Y, lam=bad)


# ---------------------------------------------------------------------------
# snerv, bnerv (R/nerv.R)
# ---------------------------------------------------------------------------


def r_snerv(P, Y, lam=0.9, eps=EPS):
    """R smallvis's ``snerv`` cost and gradient.

    ``cache_input`` floors all of ``P`` at ``eps``; ``update``: ``Q =
    expQ(matrix_normalize = TRUE)``, exp(-d2) off the diagonal over its
    grand sum, ``lPQ = logm(P / Q)``, ``kl_rev = colSums(Q * -lPQ)``,
    ``QlPQs = sum(kl_rev)``; ``pfn``: ``lam colSums(P lPQ) + (1 - lam)
    kl_rev``; ``gr``: ``k2g(4 lam (P - Q) + 4 (1 - lam) Q (lPQ + QlPQs),
    FALSE)``.
    """
    P = np.maximum(P, eps)
    W = np.exp(-_d2(Y))
    np.fill_diagonal(W, 0.0)
    Q = W / W.sum()
    lPQ = _r_logm(P / np.where(Q > 0, Q, 1.0))
    kl_rev = (Q * -lPQ).sum(axis=0)
    cost = (lam * (P * lPQ).sum(axis=0) + (1 - lam) * kl_rev).sum()
    K = 4 * lam * (P - Q) + 4 * (1 - lam) * Q * (lPQ + kl_rev.sum())
    return cost, _k2g(Y, K, symmetrize=False)


def r_bnerv(P, Y, beta, lam=0.9, eps=EPS):
    """R smallvis's ``bnerv`` cost and gradient, ``beta`` one precision per row.

    nerv's, with ``Q = expQ(beta = beta)``: exp(-beta_i d2_ij) off the
    diagonal over each row; ``gr``: ``k2g(2 lam beta (P - Q) + 2 (1 - lam)
    beta Q (lPQ + kl_rev), TRUE)``, R's vector ``beta`` recycled down the
    columns (row i times beta_i).
    """
    P = np.maximum(P, eps)
    W = np.exp(-beta[:, None] * _d2(Y))
    np.fill_diagonal(W, 0.0)
    Q = W / W.sum(axis=1, keepdims=True)
    lPQ = _r_logm(P / np.where(Q > 0, Q, 1.0))
    kl_rev = (Q * -lPQ).sum(axis=1, keepdims=True)
    cost = (lam * (P * lPQ).sum(axis=1) + (1 - lam) * kl_rev[:, 0]).sum()
    b = beta[:, None]
    K = 2 * lam * b * (P - Q) + 2 * (1 - lam) * b * Q * (lPQ + kl_rev)
    return cost, _k2g(Y, K, symmetrize=True)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("lam", [0.9, 0.5, 0.0])
def test_snerv_matches_r_smallvis(fast, lam):
    """R floors every p at eps, the forward divergence's too; the joint P over
    all pairs of iris has pairs below eps, whose forward terms then move the
    gradient of the converged layout by parts in 1e6.  Given a P with no
    entry below eps off its diagonal, the two costs are the same."""
    for P, Y in _layouts("snerv"):
        P = np.maximum(P, EPS)
        np.fill_diagonal(P, 0.0)
        r_cost, r_grad = r_snerv(P, Y, lam=lam)
        _check("snerv", r_cost, r_grad, P, Y, fast, lam=lam)


def test_snerv_at_lam_1_is_ssne():
    P, Y = _layouts("snerv")[2]
    for fast in (False, True):
        ssne = smallvis.cost_and_gradient("ssne", P, Y, fast=fast)
        snerv = smallvis.cost_and_gradient("snerv", P, Y, fast=fast, lam=1.0)
        assert snerv[0] == pytest.approx(ssne[0], rel=1e-12)
        np.testing.assert_allclose(snerv[1], ssne[1], rtol=0, atol=1e-12 * np.abs(ssne[1]).max())


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("lam", [0.9, 0.5])
def test_bnerv_matches_r_smallvis(fast, lam):
    g = golden("bnerv")
    beta = np.random.default_rng(3).uniform(0.3, 3.0, size=len(g["P"]))
    for P, Y in _layouts("bnerv"):
        r_cost, r_grad = r_bnerv(P, Y, beta, lam=lam)
        _check("bnerv", r_cost, r_grad, P, Y, fast, lam=lam, bandwidth=beta)


def test_bnerv_at_unit_bandwidth_is_nerv_and_at_lam_1_is_basne():
    P, Y = _layouts("bnerv")[2]
    beta = np.random.default_rng(4).uniform(0.3, 3.0, size=len(P))
    for fast in (False, True):
        nerv = smallvis.cost_and_gradient("nerv", P, Y, fast=fast)
        bnerv = smallvis.cost_and_gradient("bnerv", P, Y, fast=fast, bandwidth=1.0)
        assert bnerv[0] == pytest.approx(nerv[0], rel=1e-12)
        np.testing.assert_allclose(bnerv[1], nerv[1], rtol=0, atol=1e-12 * np.abs(nerv[1]).max())
        basne = smallvis.cost_and_gradient("basne", P, Y, fast=fast, bandwidth=beta)
        bnerv = smallvis.cost_and_gradient("bnerv", P, Y, fast=fast, lam=1.0, bandwidth=beta)
        assert bnerv[0] == pytest.approx(basne[0], rel=1e-12)
        np.testing.assert_allclose(bnerv[1], basne[1], rtol=0,
                                   atol=1e-12 * np.abs(basne[1]).max())
