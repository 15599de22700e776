"""The MDS methods against a transcription of R smallvis's formulas (``R/mmds.R``).

Each cost and gradient is written here in plain dense NumPy from R
smallvis's ``pfn`` and ``gr`` (without R's ``eps``, machine epsilon added
to the output distance in the gradient's denominator), independently of
the units, and compared with ``smallvis.cost_and_gradient`` in both
backends.  The methods come from the registry: those whose ``P`` is the
input distances.
"""

import warnings

import numpy as np
import pytest

import smallvis

#: R smallvis's metric MDS, by method: ``(cost(R, D), K(R, D))`` with
#: ``grad = k2g(Y, K)``, i.e. ``grad_i = sum_j K_ij (y_i - y_j)``.
R_MDS = {
    # mmds: pcost = colSums((R - D)^2); K = -4 (R - D) / D
    "mmds": (lambda R, D: np.sum((R - D) ** 2), lambda R, D: -4.0 * (R - D) / D),
    # sammon: pcost = colSums((R - D)^2 / R) / sum(R);
    #         K = -4 (R - D) / (R D) / sum(R)
    "sammon": (lambda R, D: np.sum((R - D) ** 2 / R) / np.sum(R),
               lambda R, D: -4.0 * (R - D) / (R * D) / np.sum(R)),
    # smmds: pcost = colSums((R2 - D2)^2); K = -8 (R2 - D2)
    "smmds": (lambda R, D: np.sum((R * R - D * D) ** 2), lambda R, D: -8.0 * (R * R - D * D)),
    # gmmds: mmds's pfn and gr (lreplace keeps them), of geodesic distances
    "gmmds": (lambda R, D: np.sum((R - D) ** 2), lambda R, D: -4.0 * (R - D) / D),
}

#: The methods whose R formula divides by the sum of the distances over the
#: pairs, a constant that smallvis's unit leaves out (it moves no minimum;
#: the fit runs in units of the mean distance): their cost and gradient are
#: R's times that sum.
DIVIDED_BY_THE_SUM = {"sammon"}

#: The stress methods of one input; those with a second per-pair input (the
#: distances inside each neighbourhood) are in test_r_neighbourhood_mds.py.
STRESS = [name for name, m in smallvis.METHODS.items()
          if m.p_family.distances and not m.second_input_units]


def _iris10():
    X = smallvis.datasets.load("iris")[0][:10]
    return np.asarray(X, dtype=np.float64)


def _distances(A):
    return np.sqrt(np.sum((A[:, None, :] - A[None, :, :]) ** 2, axis=2))


def _k2g(Y, K):
    return Y * K.sum(axis=1, keepdims=True) - K @ Y


def test_every_stress_method_has_a_transcription():
    assert STRESS and set(STRESS) <= set(R_MDS), set(STRESS) - set(R_MDS)


@pytest.mark.parametrize("method", sorted(R_MDS))
@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("scale", [1e-2, 1.0, 10.0])
def test_cost_and_gradient_follow_r_smallvis(method, fast, scale):
    X = _iris10()
    R = _distances(X)
    Y = scale * np.random.default_rng(7).standard_normal((10, 2))
    D = _distances(Y)
    off = ~np.eye(10, dtype=bool)
    cost_r, k_r = R_MDS[method]
    K = np.zeros_like(R)
    K[off] = k_r(R[off], D[off])
    expected_cost, expected_grad = cost_r(R[off], D[off]), _k2g(Y, K)
    if method in DIVIDED_BY_THE_SUM:
        expected_cost, expected_grad = R.sum() * expected_cost, R.sum() * expected_grad
    cost, grad = smallvis.cost_and_gradient(method, R, Y, fast=fast)
    assert cost == pytest.approx(expected_cost, rel=1e-10)
    np.testing.assert_allclose(grad, expected_grad, rtol=1e-9,
                               atol=1e-12 * np.abs(grad).max())

@pytest.mark.parametrize("fast", [False, True])
def test_mmds_input_distances_are_the_euclidean_distances_in_the_data_units(fast):
    X = _iris10()
    R = _distances(X)
    for c in (1.0, 1e-120, 3e90):
        np.testing.assert_allclose(np.asarray(smallvis.affinities(X * c, "mmds", fast=fast)),
                                   R * c, rtol=1e-12, atol=0)


def test_mmds_cost_is_zero_at_an_exact_embedding():
    # planar data embed with zero stress: X itself
    X = np.random.default_rng(3).standard_normal((12, 2))
    P = smallvis.affinities(X, "mmds")
    Y = X.copy()
    for fast in (False, True):
        cost, grad = smallvis.cost_and_gradient("mmds", P, Y, fast=fast)
        assert cost == pytest.approx(0.0, abs=1e-20 + 1e-12 * np.sum(np.asarray(P) ** 2))
        assert np.abs(grad).max() <= 1e-10 * np.abs(Y).max()


@pytest.mark.parametrize("fast", [False, True])
def test_sammon_is_mmds_divided_by_the_distance_when_all_distances_are_equal(fast):
    # the corners of a simplex are equally distant: Sammon's weights 1 / r are one number
    X = np.eye(8)
    P = smallvis.affinities(X, "sammon", fast=fast)
    r0 = np.asarray(P)[0, 1]
    Y = 1e-2 * np.random.default_rng(5).standard_normal((8, 2))
    cost_s, grad_s = smallvis.cost_and_gradient("sammon", P, Y, fast=fast)
    cost_m, grad_m = smallvis.cost_and_gradient("mmds", P, Y, fast=fast)
    assert cost_s == pytest.approx(cost_m / r0, rel=1e-12)
    np.testing.assert_allclose(grad_s, grad_m / r0, rtol=1e-9, atol=1e-12 * np.abs(grad_s).max())


def _r_geodesic(X, k):
    """R smallvis's ``geodesic``: the kNN distances (others), ``pmin(D, t(D))``, Floyd, fill."""
    R = _distances(X)
    n = len(X)
    D = np.full((n, n), np.inf)
    np.fill_diagonal(D, 0.0)
    for i in range(n):
        order = np.argsort(np.where(np.arange(n) == i, np.inf, R[i]), kind="stable")[:k]
        D[i, order] = R[i, order]
    G = np.minimum(D, D.T)
    for m in range(n):  # Floyd-Warshall
        G = np.minimum(G, G[:, m:m + 1] + G[m:m + 1, :])
    G[np.isinf(G)] = R[np.isinf(G)]
    return G


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("k", [2, 3, 5])
def test_gmmds_input_distances_are_r_smallvis_geodesics(fast, k):
    # jittered: iris has tied distances, which the two neighbour searches may break apart
    X = _iris10() + 1e-3 * np.random.default_rng(1).standard_normal((10, 4))
    G = _r_geodesic(X, k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # k = 2 may leave components
        P = np.asarray(smallvis.affinities(X, "gmmds", fast=fast, n_neighbors=k))
    np.testing.assert_allclose(P, G, rtol=1e-12, atol=0)


def test_gmmds_with_every_other_point_as_a_neighbour_is_mmds():
    X = _iris10()
    np.testing.assert_allclose(np.asarray(smallvis.affinities(X, "gmmds", n_neighbors=9)),
                               np.asarray(smallvis.affinities(X, "mmds")), rtol=1e-12)


def test_gmmds_fills_a_disconnected_graph_with_the_input_distances():
    X, _ = smallvis.datasets.load("two_clusters")
    with pytest.warns(RuntimeWarning, match="2 connected components.*n_neighbors"):
        P = np.asarray(smallvis.affinities(X, "gmmds", n_neighbors=15))
    assert np.all(np.isfinite(P))
    R = _distances(np.asarray(X, dtype=np.float64))
    G = _r_geodesic(np.asarray(X, dtype=np.float64), 15)
    np.testing.assert_allclose(P, G, rtol=1e-10, atol=0)
    # the pairs across the clusters keep their input distance
    first = np.arange(len(X)) < 100
    across = np.outer(first, ~first)
    np.testing.assert_allclose(P[across], R[across], rtol=1e-10)
