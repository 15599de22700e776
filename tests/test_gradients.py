"""Every exact gradient matches central differences of its own cost."""

import numpy as np
import pytest

import smallvis
from smallvis.registry import METHODS

from conftest import EXACT_VARIANTS, method_affinities, random_affinities


def central_differences(cost, Y, h=1e-5):
    G = np.zeros_like(Y)
    for idx in np.ndindex(Y.shape):
        Yp, Ym = Y.copy(), Y.copy()
        Yp[idx] += h
        Ym[idx] -= h
        G[idx] = (cost(Yp) - cost(Ym)) / (2 * h)
    return G


def test_every_method_has_exact_variants():
    assert set(EXACT_VARIANTS) == set(METHODS)


@pytest.mark.parametrize("method,params", [(m, p) for m, ps in EXACT_VARIANTS.items() for p in ps])
@pytest.mark.parametrize("n,dim,scale,density", [(9, 1, 1.0, 1.0), (10, 2, 0.5, 1.0),
                                                 (12, 2, 2.0, 0.3), (8, 3, 1.0, 0.6)])
def test_gradient_matches_finite_differences(method, params, n, dim, scale, density, fast, rng):
    """Each method's gradient, at each of its variants, both paths, against central differences.

    Each coordinate is checked on its own, so that a few points suffice:
    a check costs two cost evaluations per coordinate, of O(n^2) each.
    """
    P = method_affinities(method, n, rng, density=density)
    Y = rng.normal(scale=scale, size=(n, dim))
    _, grad = smallvis.cost_and_gradient(method, P, Y, fast=fast, **params)

    def cost(Yc):
        return smallvis.cost_and_gradient(method, P, Yc, fast=fast, **params)[0]

    fd = central_differences(cost, Y)
    assert np.abs(grad).max() > 1e-6
    np.testing.assert_allclose(grad, fd, rtol=0, atol=1e-6 * np.abs(grad).max())


@pytest.mark.parametrize("params", EXACT_VARIANTS["ncvis"])
def test_ncvis_derivative_in_q_matches_finite_differences(params, fast, rng):
    n = 14
    P = method_affinities("ncvis", n, rng, density=0.5)
    Y = rng.normal(size=(n, 2))
    _, _, learned = smallvis.cost_and_gradient("ncvis", P, Y, fast=fast, return_learned=True,
                                               **params)
    Q, h = params["Q"], 1e-5
    rest = {k: v for k, v in params.items() if k != "Q"}
    up = smallvis.cost_and_gradient("ncvis", P, Y, fast=fast, Q=Q + h, **rest)[0]
    down = smallvis.cost_and_gradient("ncvis", P, Y, fast=fast, Q=Q - h, **rest)[0]
    assert abs(learned["Q"]) > 1e-8
    assert learned["Q"] == pytest.approx((up - down) / (2 * h), rel=1e-6)


def test_learned_gradient_is_empty_for_other_methods(rng):
    P = random_affinities(8, rng)
    out = smallvis.cost_and_gradient("tsne", P, rng.normal(size=(8, 2)), return_learned=True)
    assert len(out) == 3 and out[2] == {}


def test_finite_difference_check_detects_a_wrong_gradient(rng):
    """Guard against a vacuous check: a halved gradient must fail it."""
    P = random_affinities(10, rng)
    Y = rng.normal(size=(10, 2))
    _, grad = smallvis.cost_and_gradient("tsne", P, Y)
    fd = central_differences(lambda Yc: smallvis.cost_and_gradient("tsne", P, Yc)[0], Y)
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(grad / 2, fd, rtol=0, atol=1e-6 * np.abs(grad).max())


def test_tsne_gradient_matches_scikit_learn(rng):
    """scikit-learn's exact t-SNE gradient (dof=1) is the same true gradient."""
    pytest.importorskip("sklearn")
    from scipy.spatial.distance import squareform
    from sklearn.manifold._t_sne import _kl_divergence

    n = 25
    P = random_affinities(n, rng)
    Y = rng.normal(size=(n, 2))
    kl, grad_sk = _kl_divergence(Y.ravel(), squareform(P, checks=False), 1.0, n, 2)
    for fast in (False, True):
        cost, grad = smallvis.cost_and_gradient("tsne", P, Y, fast=fast)
        np.testing.assert_allclose(grad.ravel(), grad_sk, rtol=1e-6, atol=1e-12)
        # scikit-learn floors Q at machine epsilon inside the log
        np.testing.assert_allclose(cost, kl, rtol=1e-6)


def test_asne_gradient_equals_three_term_form(rng):
    """docs/theory.md §3.2: -grad = [I] + [II] + [III]; check the assembled terms."""
    n = 8
    P = random_affinities(n, rng, symmetric=False)
    Y = rng.normal(size=(n, 2))
    W = np.exp(-((Y[:, None] - Y[None]) ** 2).sum(-1))
    np.fill_diagonal(W, 0)
    Q = W / W.sum(axis=1, keepdims=True)
    minus_grad = np.zeros_like(Y)
    for l in range(n):
        diff = Y[l] - Y  # y_l - y_i
        term1 = -2 * (P[l][:, None] * diff).sum(0) + 2 * (Q[l][:, None] * diff).sum(0)
        term2 = -2 * (P[:, l][:, None] * diff).sum(0) + 2 * ((P[:, l] * Q[:, l])[:, None] * diff).sum(0)
        term3 = 2 * ((Q[:, l] * (1 - P[:, l]))[:, None] * diff).sum(0)
        minus_grad[l] = term1 + term2 + term3
    _, grad = smallvis.cost_and_gradient("asne", P, Y)
    np.testing.assert_allclose(grad, -minus_grad, rtol=1e-10, atol=1e-14)
