"""R smallvis's t-RM-SNE and t-M-SNE against direct transcriptions of its formulas.

R smallvis (``R/sne.R``) follows its t-SNE with normalisations of the
input weights that do not symmetrise them: ``trmsne`` normalises the rows,
then the whole matrix (the conditional ``P`` over ``N``); ``tmsne`` only
the whole matrix (each row keeps its Gaussian's mass).  It keeps
t-SNE's Cauchy ``Q`` over all pairs, with the gradient
``k2g(Y, 2 * W * (P - W / Z), symmetrize = TRUE)``.  The functions below
write R's ``scale_affinities``, cost and ``gr`` out matrix by matrix, in
NumPy, independently of smallvis's units and engines.  R floors ``P`` and
``q`` at machine epsilon before its logs; the transcriptions leave the
floors out, as smallvis does.
"""

import numpy as np
import pytest

import smallvis
from smallvis.backends import reference
from smallvis.inputs.affinities import conditional_perplexity
from smallvis.registry import METHODS


def _sq_dists(A):
    return ((A[:, None, :] - A[None, :, :]) ** 2).sum(axis=2)


def _k2g(Y, K, symmetrize):
    """R smallvis's ``k2g``: ``Y * rowSums(K) - K %*% Y``, over ``K + t(K)`` if symmetrised."""
    if symmetrize:
        K = K + K.T
    return Y * K.sum(axis=1, keepdims=True) - K @ Y


def r_gaussian_weights(X, beta):
    """R's ``x2aff`` weights: row ``i`` is ``exp(-beta[i] * D2[i, ])``, diagonal 0."""
    V = np.exp(-_sq_dists(X) * beta[:, None])
    np.fill_diagonal(V, 0.0)
    return V


def r_trmsne_p(X, beta):
    """``scale_affinities(symmetrize = "none")``: ``P / rowSums(P)``, then ``P / sum(P)``."""
    V = r_gaussian_weights(X, beta)
    P = V / V.sum(axis=1, keepdims=True)
    return P / P.sum()


def r_cost_and_gradient(P, Y):
    """trmsne's cost (tsne's ``kl_cost``) and ``gr``."""
    W = 1.0 / (1.0 + _sq_dists(Y))
    np.fill_diagonal(W, 0.0)
    Q = W / W.sum()
    mask = P > 0
    cost = float(np.sum(P[mask] * np.log(P[mask] / Q[mask])))
    return cost, _k2g(Y, 2 * W * (P - Q), symmetrize=True)


def r_tmsne_p(X, beta):
    """``scale_affinities(symmetrize = "none", row_normalize = FALSE)``: ``P / sum(P)``."""
    V = r_gaussian_weights(X, beta)
    return V / V.sum()


R_P = {"trmsne": r_trmsne_p, "tmsne": r_tmsne_p}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(5)
    # two groups of different spread: the rows' Gaussian masses differ
    X = np.vstack([rng.normal(size=(10, 4)), rng.normal(loc=4.0, scale=0.3, size=(8, 4))])
    _, beta = conditional_perplexity(X, 5.0, reference)
    return X, beta, rng.normal(size=(18, 2))


def test_the_transcriptions_cover_the_methods():
    # the registered methods of the normalised engine whose P over all pairs
    # is not symmetric
    asymmetric = [name for name, m in METHODS.items() if not m.symmetric
                  and m.p_family.normalised == "total"]
    assert sorted(asymmetric) == sorted(R_P)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("method", sorted(R_P))
def test_p_is_r_smallvis_s(method, data, fast):
    X, beta, _ = data
    P = smallvis.affinities(X, method, perplexity=5.0, fast=fast)
    P = P.toarray() if hasattr(P, "toarray") else np.asarray(P)
    expected = R_P[method](X, beta)
    np.testing.assert_allclose(P, expected, rtol=1e-8, atol=1e-14)
    assert np.abs(P - P.T).max() > 1e-3 * P.max()  # not symmetric
    # and the same for X in other units (beta d^2 does not depend on them)
    P2 = smallvis.affinities(1e-3 * X, method, perplexity=5.0, fast=fast)
    P2 = P2.toarray() if hasattr(P2, "toarray") else np.asarray(P2)
    np.testing.assert_allclose(P2, P, rtol=1e-8, atol=1e-14)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("method", sorted(R_P))
def test_cost_and_gradient_match_r_smallvis(method, data, fast):
    X, beta, Y = data
    rng = np.random.default_rng(8)
    A = rng.uniform(size=(18, 18))
    np.fill_diagonal(A, 0.0)
    # the method's own P, and any P over all pairs that is not symmetric
    for P in (R_P[method](X, beta), A / A.sum()):
        r_cost, r_grad = r_cost_and_gradient(P, Y)
        cost, grad = smallvis.cost_and_gradient(method, P, Y, fast=fast)
        assert cost == pytest.approx(r_cost, rel=1e-10)
        np.testing.assert_allclose(grad, r_grad, rtol=0, atol=1e-10 * np.abs(r_grad).max())


@pytest.mark.parametrize("method", sorted(R_P))
def test_the_gradient_is_t_sne_s_on_the_symmetrised_p(method, data):
    # 2 (p_ij + p_ji - 2 q_ij) w_ij is t-SNE's 4 (p'_ij - q_ij) w_ij at
    # p' = (P + P^T) / 2; the costs differ by a term of P alone
    X, beta, Y = data
    P = R_P[method](X, beta)
    J = (P + P.T) / 2
    cost, grad = smallvis.cost_and_gradient(method, P, Y)
    t_cost, t_grad = smallvis.cost_and_gradient("tsne", J, Y)
    np.testing.assert_allclose(grad, t_grad, rtol=0, atol=1e-10 * np.abs(t_grad).max())
    Y2 = Y + 0.3
    shift = smallvis.cost_and_gradient(method, P, Y2)[0] - smallvis.cost_and_gradient(
        "tsne", J, Y2)[0]
    assert cost - t_cost == pytest.approx(shift, rel=1e-9)


def test_tmsne_rows_keep_their_gaussian_masses(data):
    """tmsne's rows sum to their Gaussians' shares, trmsne's to 1 / N each."""
    X, beta, _ = data
    rows = np.asarray(smallvis.affinities(X, "tmsne", perplexity=5.0)).sum(axis=1)
    V = r_gaussian_weights(X, beta)
    np.testing.assert_allclose(rows, V.sum(axis=1) / V.sum(), rtol=1e-8)
    assert rows.max() > 2 * rows.min()
    np.testing.assert_allclose(
        np.asarray(smallvis.affinities(X, "trmsne", perplexity=5.0)).sum(axis=1), 1 / len(X))
