"""R smallvis's UMAP/t-SNE hybrids against direct transcriptions of its formulas.

Each function below writes out R smallvis's own expressions for a method
(its ``update``, ``pfn`` and ``gr``, matrix by matrix, in ``R/sne.R`` and
``R/umap.R``) in dense NumPy, independently of smallvis's units and
engines, and the tests check smallvis's exact cost and gradient, in both
backends, against them.  R floors ``P`` and ``Q`` at machine epsilon
inside its logs and adds it to ``1 - q``; the transcriptions keep the
floors, which move these costs by far less than the tolerance (the
layouts are chosen so that no ``q`` underflows).  Limits tie each method
to the one it modifies.
"""

import numpy as np
import pytest

import smallvis
from smallvis.families import NORMALISED_FUZZY
from smallvis.testing import golden

EPS = np.finfo(float).eps

#: The methods whose P is UMAP's fuzzy graph normalised to sum 1.
NORMALISED_FUZZY_METHODS = [name for name, m in smallvis.METHODS.items()
                            if m.p_family is NORMALISED_FUZZY]


def _logm(M):
    """R smallvis's ``logm``: the log of ``M`` floored at machine epsilon."""
    return np.log(np.maximum(M, EPS))


def _k2g(Y, K):
    """R smallvis's ``k2g`` for a symmetric ``K``: ``4 (Y * rowSums(K) - K %*% Y)`` without the 4."""
    return Y * K.sum(axis=1, keepdims=True) - K @ Y


def _d2(Y):
    return ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)


def _cauchy_w(Y):
    """R smallvis's t-SNE weight ``1 / (1 + d2)``, 0 on the diagonal."""
    W = 1.0 / (1.0 + _d2(Y))
    np.fill_diagonal(W, 0.0)
    return W


def r_cross_entropy(P, Y):
    """R smallvis's ``cetsne`` (R/sne.R) and ``ntumap`` (R/umap.R): the same ``pfn`` and ``gr``.

    ``cache_input``: ``Cp = colSums(P logm(P) + (1 - P) log1p(-P))`` with
    ``P`` floored at eps; ``update``: ``Q = W / sum(W)``, ``C = (P - Q) /
    (1 - Q)``; ``pfn``: ``-P logm(Q) - (1 - P) log1p(-Q + eps) + Cp``;
    ``gr``: ``k2g(Y, 4 W (C - sum(C) Q))``.  (``ntumap`` adds eps inside
    ``log(P + eps)`` of umap's ``cache_input`` instead of flooring; the
    difference is below the tolerance.)
    """
    Pf = np.maximum(P, EPS)
    Cp = (Pf * _logm(Pf) + (1 - Pf) * np.log1p(-Pf)).sum()
    W = _cauchy_w(Y)
    Q = W / W.sum()
    C = (P - Q) / (1 - Q)
    pcost = (-P * _logm(Q) - (1 - P) * np.log1p(-Q + EPS)).sum() + Cp
    return pcost, _k2g(Y, 4 * W * (C - C.sum() * Q))


def _layouts(g):
    """The golden layout, a compressed one and a random one (away from a converged layout)."""
    rng = np.random.default_rng(7)
    return (g["Y"], 0.5 * g["Y"], rng.normal(size=g["Y"].shape))


def _check(method, r_formula, fast, **params):
    g = golden(method)
    for Y in _layouts(g):
        r_cost, r_grad = r_formula(g["P"], Y, **params)
        cost, grad = smallvis.cost_and_gradient(method, g["P"], Y, fast=fast, **params)
        assert cost == pytest.approx(r_cost, rel=1e-9)
        np.testing.assert_allclose(grad, r_grad, rtol=0, atol=1e-9 * np.abs(r_grad).max())


# ---- cetsne ---------------------------------------------------------------

@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
def test_cetsne_matches_r_smallvis(fast):
    _check("cetsne", r_cross_entropy, fast)


def test_cetsne_tends_to_tsne_as_q_vanishes():
    """Where every q is small, the cross-entropy's gradient is t-SNE's to O(max q).

    ``(p - q) / (1 - q) + S q = (p - q) + O(q^2)`` with ``S = O(max q)``:
    the gap shrinks with the largest q, not with the data.
    """
    g = golden("cetsne")
    gaps = []
    for scale in (0.1, 10.0):  # max q about 1e-4 and 1e-2
        Y = scale * g["Y"]
        _, grad = smallvis.cost_and_gradient("cetsne", g["P"], Y)
        _, t_grad = smallvis.cost_and_gradient("tsne", g["P"], Y)
        W = _cauchy_w(Y)
        q_max = (W / W.sum()).max()
        gap = np.abs(grad - t_grad).max() / np.abs(t_grad).max()
        assert gap < 10 * q_max
        gaps.append(gap)
    assert gaps[0] < gaps[1] / 10


def test_cetsne_cost_is_zero_only_at_q_equal_to_p():
    """Each summand is a Bernoulli KL divergence: the cost is >= 0, 0 (and flat) at Q = P."""
    rng = np.random.default_rng(3)
    Y = rng.normal(size=(12, 2))
    W = _cauchy_w(Y)
    P = W / W.sum()
    for fast in (False, True):
        cost, grad = smallvis.cost_and_gradient("cetsne", P, Y, fast=fast)
        assert abs(cost) < 1e-14
        assert np.abs(grad).max() < 1e-14
        other, _ = smallvis.cost_and_gradient("cetsne", P, 1.5 * Y, fast=fast)
        assert other > 0


# ---- usne -----------------------------------------------------------------

def r_usne(P, Y, a, b, eps):
    """R smallvis's ``usne`` (R/sne.R): tsne's ``kl_cost`` with its own ``update`` and ``gr``.

    ``update``: ``W = 1 / (1 + a D2^b)``, diagonal 0, ``Z = sum(W)``;
    ``pfn``: ``plogp - colSums(P logm(W / Z))``, ``plogp`` of ``P``
    floored at eps; ``gr``: ``k2g(Y, 4 b (1 - W) / (D2 + gr_eps) (P - W /
    Z))``, ``eps`` here being R's ``gr_eps`` (at 0 the diagonal's 0 / 0 is
    taken as 0).
    """
    D2 = _d2(Y)
    W = 1.0 / (1.0 + a * D2 ** b)
    np.fill_diagonal(W, 0.0)
    Z = W.sum()
    Pf = np.maximum(P, EPS)
    pcost = (Pf * _logm(Pf)).sum() - (P * _logm(W / Z)).sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        K = 4 * (b * (1 - W) / (D2 + eps)) * (P - W / Z)
    np.fill_diagonal(K, 0.0)
    return pcost, _k2g(Y, K)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("a, b, eps", [(1.929, 0.7915, 0.0), (1.929, 0.7915, 0.1),
                                       (0.5, 1.4, 1e-10)])
def test_usne_matches_r_smallvis(a, b, eps, fast):
    _check("usne", r_usne, fast, a=a, b=b, eps=eps)


def test_usne_with_the_cauchy_curve_is_tsne():
    """``a = b = 1``, ``eps = 0``: the weight is t-SNE's, so are the cost and gradient."""
    g = golden("usne")
    for Y in _layouts(g):
        cost, grad = smallvis.cost_and_gradient("usne", g["P"], Y, a=1.0, b=1.0, eps=0.0)
        t_cost, t_grad = smallvis.cost_and_gradient("tsne", g["P"], Y)
        assert cost == pytest.approx(t_cost, rel=1e-12)
        np.testing.assert_allclose(grad, t_grad, rtol=0, atol=1e-12 * np.abs(t_grad).max())


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
def test_usne_gradient_is_continuous_at_coincident_points(fast):
    """A duplicated point (d2 = 0), 1/2 < b < 1: the gradient is the limit of nearby ones.

    The slope b (1 - w) / d2 is infinite at d2 = 0, but the pair's force
    vector, of length about d^(2b - 1), tends to 0.
    """
    g = golden("usne")
    Y = g["Y"].copy()
    Y[1] = Y[0]
    cost, grad = smallvis.cost_and_gradient("usne", g["P"], Y, fast=fast)
    assert np.isfinite(cost) and np.all(np.isfinite(grad))
    near = Y.copy()
    near[1, 0] += 1e-12
    near_cost, near_grad = smallvis.cost_and_gradient("usne", g["P"], near, fast=fast)
    assert cost == pytest.approx(near_cost, rel=1e-9)
    np.testing.assert_allclose(grad, near_grad, rtol=0, atol=1e-5 * np.abs(grad).max())


@pytest.mark.parametrize("bad", [{"eps": -0.1}, {"eps": float("nan")}, {"a": 1.0},
                                 {"a": -1.0, "b": 1.0}, {"min_dist": 2.0}])
def test_usne_refuses_bad_parameters(bad):
    g = golden("usne")
    with pytest.raises(ValueError, match="|".join(bad)):
        smallvis.cost_and_gradient("usne", g["P"], g["Y"], **bad)


# ---- ntumap and skdtsne: UMAP's fuzzy graph, normalised -------------------

@pytest.mark.parametrize("method", NORMALISED_FUZZY_METHODS)
def test_the_normalised_fuzzy_graph_is_umap_s_graph_over_its_sum(method):
    """R smallvis's ``sne_init(kernel = "skd", symmetrize = "umap", normalize = TRUE)``.

    The smooth kNN memberships, their fuzzy union, then ``P / sum(P)``:
    tumap's ``P`` (the union, unnormalised) divided by its sum.
    """
    X, _ = smallvis.datasets.load("iris")
    P = smallvis.affinities(X, method, n_neighbors=10, knn_method="exact")
    V = smallvis.affinities(X, "tumap", n_neighbors=10, knn_method="exact")
    assert P.sum() == pytest.approx(1.0, rel=1e-12)
    np.testing.assert_allclose(P.toarray(), V.toarray() / V.sum(), rtol=1e-12, atol=0)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
def test_ntumap_matches_r_smallvis(fast):
    """R's ``ntumap`` has cetsne's ``pfn`` and ``gr``, with ``eps = 1e-9`` in its logs.

    That ``eps`` moves R's cost by about ``N^2 eps`` (1e-4 relative on
    iris), so the transcription runs at machine epsilon, as R's cetsne.
    """
    _check("ntumap", r_cross_entropy, fast)


def r_tsne(P, Y):
    """R smallvis's ``tsne`` (R/sne.R, which ``skdtsne`` calls with the "skd" kernel).

    ``update``: ``W = 1 / (1 + D2)``, diagonal 0, ``Z = sum(W)``;
    ``pfn`` (``kl_cost``): ``plogp - colSums(P logm(W / Z))``;
    ``gr``: ``k2g(Y, 4 W (P - W / Z))``.
    """
    W = _cauchy_w(Y)
    Z = W.sum()
    Pf = np.maximum(P, EPS)
    pcost = (Pf * _logm(Pf)).sum() - (P * _logm(W / Z)).sum()
    return pcost, _k2g(Y, 4 * W * (P - W / Z))


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
def test_skdtsne_matches_r_smallvis(fast):
    _check("skdtsne", lambda P, Y: r_tsne(P, Y), fast)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
def test_skdtsne_is_tsne_on_the_normalised_fuzzy_graph(fast):
    """On the generic engine, the numbers of t-SNE's own kernels for the same ``P``."""
    g = golden("skdtsne")
    for Y in _layouts(g):
        cost, grad = smallvis.cost_and_gradient("skdtsne", g["P"], Y, fast=fast)
        t_cost, t_grad = smallvis.cost_and_gradient("tsne", g["P"], Y, fast=fast)
        assert cost == pytest.approx(t_cost, rel=1e-12)
        np.testing.assert_allclose(grad, t_grad, rtol=0, atol=1e-12 * np.abs(t_grad).max())


@pytest.mark.parametrize("method", NORMALISED_FUZZY_METHODS)
def test_a_new_point_s_row_is_its_memberships(method):
    """A new point's row of ``P`` holds its smooth kNN memberships, as UMAP's.

    Up to the method's scale of a row (normalised to 1, or the fit's
    ``row_scale``): tumap's row over its sum is the method's over its sum.
    """
    from smallvis.backends import reference
    from smallvis.transform import build_training_map

    X, _ = smallvis.datasets.load("iris")
    X_train, X_new = X[::2], X[1::2][:10]
    rows = []
    for name in (method, "tumap"):
        result = smallvis.embed(X_train, name, n_neighbors=10, n_iter=0, random_state=0,
                                return_result=True)
        rows.append(build_training_map(name, X_train, result, seed=0)
                    .new_rows(X_new, reference).toarray())
    own, umap_rows = rows
    np.testing.assert_allclose(own / own.sum(axis=1, keepdims=True),
                               umap_rows / umap_rows.sum(axis=1, keepdims=True), rtol=1e-12)
