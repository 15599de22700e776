"""Costs and gradients against direct transcriptions of R smallvis's formulas.

For the methods that R smallvis has and no R fixture pins (R cannot be
installed here), each function below writes out R smallvis's own
expression (its ``pfn`` and ``gr`` for the method, matrix by matrix) in
NumPy, independently of smallvis's units and engines, and the tests check
smallvis's exact cost and gradient against it.  R floors ``P``, ``Z`` and
``q / z`` at machine epsilon before taking logs; the transcriptions keep
the floors, which move these costs by far less than the tolerance (the
layouts and affinities are chosen so that no ``q`` underflows).
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


def _gaussian_q(Y, matrix_normalize):
    """R smallvis's ``expQ``: exp(-d2) off the diagonal, over each row or all pairs."""
    D2 = ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)
    W = np.exp(-D2)
    np.fill_diagonal(W, 0.0)
    return W / (W.sum() if matrix_normalize else W.sum(axis=1, keepdims=True))


def r_jse(P, Y, kappa, symmetric):
    """R smallvis's ``jse`` (``symmetric=False``) and ``sjse`` cost and gradient (R/jse.R)."""
    Q = _gaussian_q(Y, matrix_normalize=symmetric)
    Z = kappa * P + (1 - kappa) * Q
    Z[Z < EPS] = EPS
    np.fill_diagonal(Z, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        lQZ = _logm(np.nan_to_num(Q / Z))
    Pf = np.maximum(P, EPS)
    plogp = (Pf * np.log(Pf)).sum(axis=1)
    QlQZc = (Q * lQZ).sum(axis=1)
    with np.errstate(divide="ignore"):
        pcost = (plogp - (P * _logm(Z)).sum(axis=1)) / (1 - kappa) + QlQZc / kappa
    if symmetric:
        K = -4 / kappa * Q * (lQZ - QlQZc.sum())
        return pcost.sum(), _k2g(Y, K, symmetrize=False)
    K = -2 / kappa * Q * (lQZ - QlQZc[:, None])
    return pcost.sum(), _k2g(Y, K, symmetrize=True)


#: R's own diagonal terms: it floors the whole of P, the diagonal's zeros too,
#: before its sum of p log p, adding eps log eps per zero of P.
def _r_floor_offset(P, kappa):
    return float(np.sum(P < EPS) * EPS * np.log(EPS) / (1 - kappa))


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("kappa", [0.5, 0.1, 0.9])
@pytest.mark.parametrize("method, symmetric", [("jse", False), ("sjse", True)])
def test_jse_matches_r_smallvis(method, symmetric, kappa, fast):
    g = golden(method)
    # away from the golden case's converged layout, whose gradient is a
    # near-cancellation of its terms
    rng = np.random.default_rng(7)
    for P, Y in ((g["P"], 0.5 * g["Y"]), (g["P"], rng.normal(size=g["Y"].shape))):
        r_cost, r_grad = r_jse(P, Y, kappa, symmetric)
        cost, grad = smallvis.cost_and_gradient(method, P, Y, kappa=kappa, fast=fast)
        assert cost == pytest.approx(r_cost - _r_floor_offset(P, kappa), rel=1e-9)
        np.testing.assert_allclose(grad, r_grad, rtol=0, atol=1e-9 * np.abs(r_grad).max())


def test_jse_near_kappa_zero_is_asne():
    """R's note: kappa -> 0 behaves like asne (KL(P || Q) per row).

    On a compact layout: where q is far below kappa p the mixture caps
    log(p / z) at log(1 / kappa), so the limit is not uniform in q.
    """
    g = golden("jse")
    Y = 0.1 * g["Y"]
    cost, grad = smallvis.cost_and_gradient("jse", g["P"], Y, kappa=1e-7)
    a_cost, a_grad = smallvis.cost_and_gradient("asne", g["P"], Y)
    assert cost == pytest.approx(a_cost, rel=1e-5)
    np.testing.assert_allclose(grad, a_grad, rtol=0, atol=1e-5 * np.abs(a_grad).max())


@pytest.mark.parametrize("kappa", [0.0, 1.0, -0.5, 2.0, float("nan")])
def test_jse_refuses_kappa_outside_the_open_unit_interval(kappa):
    g = golden("jse")
    with pytest.raises(ValueError, match="kappa"):
        smallvis.cost_and_gradient("jse", g["P"], g["Y"], kappa=kappa)


def _cauchy_q(Y):
    """R smallvis's t-SNE weight 1 / (1 + d2) off the diagonal, normalised over all pairs."""
    D2 = ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)
    W = 1.0 / (1.0 + D2)
    np.fill_diagonal(W, 0.0)
    return W / W.sum(), W.sum()


def r_hlsne(P, Y):
    """R smallvis's ``hlsne`` cost and gradient (R/fdiv.R): its ``pfn`` and ``gr``.

    R's ``eps`` is an argument of ``hlsne`` that its Hellinger formulas
    never use, so there is no floor to keep here.
    """
    Q, Z = _cauchy_q(Y)
    sP, sQ = np.sqrt(P), np.sqrt(Q)
    pcost = ((sP - sQ) ** 2).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        PQ = sP / sQ
    np.fill_diagonal(PQ, 0.0)
    K = 4 * Q * Q * Z * (PQ - (sP * sQ).sum())
    return pcost.sum(), _k2g(Y, K, symmetrize=False)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
def test_hlsne_matches_r_smallvis(fast):
    g = golden("hlsne")
    rng = np.random.default_rng(7)
    for P, Y in ((g["P"], g["Y"]), (g["P"], 0.5 * g["Y"]), (g["P"], rng.normal(size=g["Y"].shape))):
        r_cost, r_grad = r_hlsne(P, Y)
        cost, grad = smallvis.cost_and_gradient("hlsne", P, Y, fast=fast)
        assert cost == pytest.approx(r_cost, rel=1e-9)
        # the squared Hellinger distance of two distributions lies in [0, 2]
        assert 0.0 < cost < 2.0
        np.testing.assert_allclose(grad, r_grad, rtol=0, atol=1e-9 * np.abs(r_grad).max())
