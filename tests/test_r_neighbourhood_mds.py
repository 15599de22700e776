"""knnmmds and ballmmds against a transcription of R smallvis's ``R/mmds.R``.

R's ``knnmmds`` and ``ballmmds`` keep mmds's stress, ``(R - D)^2``, and zero
the terms (``pfn``) and the force constants (``gr``) of the pairs outside
the neighbourhood that the map puts farther apart than their input
distance: ``Ddiff[knn == 0 & D > R] <- 0`` and ``K[knn == 0 & D > R] <- 0``
(``R > rmax`` in place of ``knn == 0`` for the ball).  The neighbourhoods
are written here from R's ``init``: ``knn_graph`` (each point's ``k``
nearest others, then ``pmax(knn, t(knn))``) and ``rmax =
Rfast::nth(rs, max(1, round(f * length(rs))))`` over the upper triangle.
Everything here is plain dense NumPy, independent of the units, engines
and builders; the methods come from the registry (those whose ``P`` is
the input distances with a second per-pair input).
"""

import numpy as np
import pytest

import smallvis
from smallvis.backends._backend import kernels as select_kernels

NEIGHBOURHOOD = [name for name, m in smallvis.METHODS.items()
                 if m.p_family.distances and m.second_input_units]


def _distances(A):
    return np.sqrt(np.sum((A[:, None, :] - A[None, :, :]) ** 2, axis=2))


def _k2g(Y, K):
    """R smallvis's ``k2g``: ``Y * rowSums(K) - K %*% Y``."""
    return Y * K.sum(axis=1, keepdims=True) - K @ Y


def r_knn_graph(R, k):
    """R's ``knn_graph`` (exact, self excluded) symmetrised by ``pmax``: 1 on neighbours."""
    n = R.shape[0]
    G = np.zeros((n, n))
    for i in range(n):
        order = [j for j in np.argsort(R[i], kind="stable") if j != i]
        G[i, order[:k]] = 1.0
    return np.maximum(G, G.T)


def r_ball(R, f):
    """R's ball: 1 where ``R <= rmax``, ``rmax`` the ``max(1, round(f M))``-th smallest pair distance."""
    rs = np.sort(R[np.triu_indices(R.shape[0], 1)])
    rmax = rs[max(1, int(np.round(f * rs.size))) - 1]
    return (R <= rmax).astype(float)


def r_cost_and_gradient(R, D, inside, Y):
    """R's ``pfn`` and ``gr`` (without ``eps``): the stress, its hinge outside ``inside``."""
    off = ~np.eye(R.shape[0], dtype=bool)
    Ddiff = R - D
    Ddiff[(inside == 0) & (D > R)] = 0.0
    K = np.zeros_like(R)
    K[off] = -4.0 * (R[off] - D[off]) / D[off]
    K[(inside == 0) & (D > R)] = 0.0
    return np.sum(Ddiff[off] ** 2), _k2g(Y, K)


def _case(method):
    X = np.asarray(smallvis.datasets.load("iris")[0][:40], dtype=np.float64)
    X = X + 1e-3 * np.random.default_rng(3).standard_normal(X.shape)  # no duplicate rows
    return X, _distances(X)


def _r_inside(method, R, params):
    return r_knn_graph(R, params["n_neighbors"]) if method == "knnmmds" else r_ball(R, params["f"])


PARAMS = {"knnmmds": [{"n_neighbors": 3}, {"n_neighbors": 8}],
          "ballmmds": [{"f": 0.05}, {"f": 0.1}, {"f": 0.5}]}


def test_every_neighbourhood_stress_method_has_a_transcription():
    assert NEIGHBOURHOOD and set(NEIGHBOURHOOD) <= set(PARAMS), set(NEIGHBOURHOOD) - set(PARAMS)


@pytest.mark.parametrize("method", NEIGHBOURHOOD)
@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("scale", [0.3, 1.0, 3.0])
def test_cost_and_gradient_follow_r_smallvis(method, fast, scale):
    X, R = _case(method)
    Y = scale * np.random.default_rng(7).standard_normal((X.shape[0], 2))
    D = _distances(Y)
    for params in PARAMS[method]:
        inside = _r_inside(method, R, params)
        np.fill_diagonal(inside, 0.0)
        expected_cost, expected_grad = r_cost_and_gradient(R, D, inside, Y)
        # both branches are reached: stretched pairs inside and outside
        assert np.any((inside == 0) & (D > R)) and np.any((inside == 1) & (D > R))
        cost, grad = smallvis.cost_and_gradient(method, R, Y, fast=fast,
                                                neighbour_distances=inside * R)
        assert cost == pytest.approx(expected_cost, rel=1e-10)
        np.testing.assert_allclose(grad, expected_grad, rtol=1e-9,
                                   atol=1e-12 * np.abs(expected_grad).max())


@pytest.mark.parametrize("method", NEIGHBOURHOOD)
def test_the_builders_neighbourhoods_are_r_smallvis(method):
    X, R = _case(method)
    m = smallvis.METHODS[method]
    for params in PARAMS[method]:
        full = {**m.affinity_params, **params, **({"knn_method": "exact"}
                                                 if "knn_method" in m.affinity_params else {})}
        P, inputs = m.split_built(m.build_affinities(X, select_kernels(False), 0, 1, **full))
        T = inputs["neighbour_distances"]
        inside = _r_inside(method, R, params)
        np.fill_diagonal(inside, 0.0)
        np.testing.assert_allclose(P, R, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(T > 0, inside == 1)
        # in units of the mean input distance, as the fit divides P
        unit = R.sum() / (R.shape[0] * (R.shape[0] - 1))
        np.testing.assert_allclose(T * unit, inside * R, rtol=1e-12)


@pytest.mark.parametrize("method", NEIGHBOURHOOD)
def test_with_every_pair_inside_the_cost_is_mmds(method):
    X, R = _case(method)
    Y = np.random.default_rng(1).standard_normal((X.shape[0], 2))
    expected = smallvis.cost_and_gradient("mmds", R, Y, fast=False)
    cost, grad = smallvis.cost_and_gradient(method, R, Y, fast=False, neighbour_distances=R)
    assert cost == pytest.approx(expected[0], rel=1e-12)
    np.testing.assert_allclose(grad, expected[1], rtol=1e-10, atol=1e-12)
