"""Sparse input affinities on kNN graphs: perplexity, UMAP, NCVis; fit_curve_ab."""

import json
import os
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from smallvis import datasets
from smallvis.backends._backend import kernels
from smallvis.inputs.affinities import (
    conditional_perplexity_knn,
    fuzzy_memberships,
    joint_perplexity,
    joint_perplexity_knn,
    symmetric_knn_graph,
    fit_curve_ab,
    fuzzy_graph,
)
from smallvis.inputs.neighbors import nearest_neighbors

from conftest import LONG_TESTS

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def iris():
    return datasets.load("iris")[0]


def test_perplexity_knn_with_all_neighbours_equals_dense(iris, fast):
    kern = kernels(fast)
    dense = joint_perplexity(iris, 20.0, kern)
    sparse = joint_perplexity_knn(iris, 20.0, kern, n_neighbors=149)
    assert sp.isspmatrix_csr(sparse)
    np.testing.assert_allclose(sparse.toarray(), dense, rtol=1e-9, atol=1e-15)


def test_perplexity_knn_default_k_and_rows(iris, fast):
    P, beta = conditional_perplexity_knn(iris, 10.0, kernels(fast))
    assert sp.isspmatrix_csr(P)
    assert np.diff(P.indptr).max() <= 30  # k = 3 * perplexity
    np.testing.assert_allclose(np.asarray(P.sum(axis=1)).ravel(), 1.0, rtol=1e-12)
    assert P.diagonal().sum() == 0
    # entropy of each row is log(perplexity)
    for i in range(0, 150, 17):
        p = P.getrow(i).data
        np.testing.assert_allclose(-(p * np.log(p)).sum(), np.log(10.0), atol=1e-4)
    J = joint_perplexity_knn(iris, 10.0, kernels(fast))
    np.testing.assert_allclose(J.sum(), 1.0)
    assert abs(J - J.T).max() == 0


def test_perplexity_knn_rejects_bad_k(iris):
    with pytest.raises(ValueError, match="perplexity must be at most n_neighbors") as err:
        conditional_perplexity_knn(iris, 20.0, kernels(False), n_neighbors=10)
    # the default perplexity is not the user's: the message says what to pass either way
    assert "pass perplexity at most 10, or n_neighbors at least 20" in str(err.value)
    with pytest.raises(ValueError, match="n_neighbors"):
        conditional_perplexity_knn(iris, 20.0, kernels(False), n_neighbors=150)


def test_umap_rows_reach_the_target(fast):
    X, _ = datasets.load("s1k")
    k = 15
    V, sigma, rho = fuzzy_memberships(X, k, kernels(fast))
    _, d = nearest_neighbors(X, k - 1, method="exact")
    np.testing.assert_allclose(rho, d[:, 0])  # no duplicates: nearest neighbour
    sums = np.exp(-np.maximum(d - rho[:, None], 0) / sigma[:, None]).sum(axis=1)
    np.testing.assert_allclose(sums, np.log2(k), atol=1e-5)
    np.testing.assert_allclose(np.asarray(V.sum(axis=1)).ravel(), np.log2(k), atol=1e-5)
    assert np.diff(V.indptr).max() == k - 1


def test_umap_local_connectivity_interpolates(fast):
    X, _ = datasets.load("s1k")
    _, sigma, rho = fuzzy_memberships(X, 15, kernels(fast), local_connectivity=1.5)
    _, d = nearest_neighbors(X, 14, method="exact")
    np.testing.assert_allclose(rho, d[:, 0] + 0.5 * (d[:, 1] - d[:, 0]))
    _, _, rho2 = fuzzy_memberships(X, 15, kernels(fast), local_connectivity=2)
    np.testing.assert_allclose(rho2, d[:, 1])


def test_umap_sigma_floor_with_duplicates(fast):
    """All neighbours at distance 0: rho = 0 and sigma is 1e-3 x the global mean."""
    rng = np.random.default_rng(0)
    X = np.vstack([np.zeros((5, 2)), rng.normal(size=(20, 2))])
    V, sigma, rho = fuzzy_memberships(X, 5, kernels(fast))
    _, d = nearest_neighbors(X, 4, method="exact")
    assert np.all(rho[:5] == 0)
    # the mean counts the self column of zeros: 4 distances over 5 columns
    np.testing.assert_allclose(sigma[:5], 1e-3 * d.sum() / (25 * 5))
    np.testing.assert_array_equal(V[:5, :5].toarray(), 1 - np.eye(5))


def test_umap_graph_matches_r_smallvis(iris, fast):
    """R smallvis (brute-force kNN with self, ties by index) on iris.

    R computes distances with the expanded form |x|^2 + |y|^2 - 2 x.y, so
    mathematically equal distances differ in their last bits and R's order
    of tied neighbours at the boundary of the 14-neighbourhood is decided by
    rounding, not by index.  Entries (i, j) where neither row has a tie at its
    boundary must agree to rounding; the others may differ (38 rows of iris
    have such a tie).
    """
    with open(os.path.join(HERE, "data", "rsmallvis", "umap.json")) as fh:
        ref = np.array(json.load(fh)["P"])
    V = fuzzy_graph(iris, 15, kernels(fast))
    assert abs(V - V.T).max() == 0
    _, d = nearest_neighbors(iris, 15, method="exact")
    clear = np.abs(d[:, 13] - d[:, 14]) > 1e-9
    mask = clear[:, None] & clear[None, :]
    assert mask.sum() > 10000
    np.testing.assert_allclose(V.toarray()[mask], ref[mask], rtol=0, atol=1e-10)
    # and overall the graphs are close: same total weight to 0.05%
    np.testing.assert_allclose(V.sum(), ref.sum(), rtol=5e-4)


@pytest.fixture(scope="module")
def umap_learn():
    """umap-learn's ``umap_`` module, its two numba kernels as plain Python by default.

    Compiling ``smooth_knn_dist`` and ``compute_membership_strengths``
    (``parallel=True``) takes numba several seconds; their Python source
    (``py_func``) is the same algorithm and runs in milliseconds on iris
    (in float64 where the compiled code keeps some locals in float32, well
    within the comparison's 1e-5).  SMALLVIS_LONG_TESTS=1 compares with the
    compiled kernels.
    """
    umap_ = pytest.importorskip("umap.umap_")
    if LONG_TESTS:
        yield umap_
        return
    with pytest.MonkeyPatch.context() as patch:
        for name in ("smooth_knn_dist", "compute_membership_strengths"):
            patch.setattr(umap_, name, getattr(umap_, name).py_func)
        yield umap_


@pytest.mark.parametrize("mix, lc", [(1.0, 1.0), (0.3, 1.0), (1.0, 1.5), (1.0, 0.5)])
def test_umap_graph_matches_umap_learn(iris, umap_learn, mix, lc):
    umap_ = umap_learn
    n = len(iris)
    idx, dist = nearest_neighbors(iris, 14, method="exact")
    ki = np.hstack([np.arange(n)[:, None], idx])
    kd = np.hstack([np.zeros((n, 1)), dist])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        G, _, _ = umap_.fuzzy_simplicial_set(iris, 15, 0, "euclidean", knn_indices=ki,
                                             knn_dists=kd, set_op_mix_ratio=mix,
                                             local_connectivity=lc)
    V = fuzzy_graph(iris, 15, kernels(True), set_op_mix_ratio=mix, local_connectivity=lc)
    # umap-learn works in float32
    np.testing.assert_allclose(V.toarray(), G.toarray(), rtol=0, atol=1e-5)
    assert ((V.toarray() > 0) == (G.toarray() > 0)).all()


def test_umap_set_op_mix_ratio_extremes(iris):
    A, _, _ = fuzzy_memberships(iris, 10, kernels(False))
    A = A.toarray()
    inter = fuzzy_graph(iris, 10, kernels(False), set_op_mix_ratio=0.0).toarray()
    union = fuzzy_graph(iris, 10, kernels(False), set_op_mix_ratio=1.0).toarray()
    np.testing.assert_allclose(inter, np.minimum(A, A.T) * np.maximum(A, A.T))
    np.testing.assert_allclose(union, 1 - (1 - A) * (1 - A.T))


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_neighbors=1), "n_neighbors"),
    (dict(n_neighbors=151), "n_neighbors"),
    (dict(n_neighbors=15, set_op_mix_ratio=1.5), "set_op_mix_ratio"),
    (dict(n_neighbors=15, bandwidth=0), "bandwidth"),
    (dict(n_neighbors=15, local_connectivity=-1), "local_connectivity"),
])
def test_umap_graph_bad_inputs(iris, kwargs, match):
    with pytest.raises(ValueError, match=match):
        fuzzy_graph(iris, kernels=kernels(False), **kwargs)


def test_precomputed_knn_is_checked(iris):
    idx, dist = nearest_neighbors(iris, 5, method="exact")
    np.testing.assert_array_equal(
        fuzzy_graph(iris, 6, kernels(False), knn=(idx, dist)).toarray(),
        fuzzy_graph(iris, 6, kernels(False)).toarray())
    with pytest.raises(ValueError, match="6 are needed"):
        symmetric_knn_graph(iris, 6, knn=(idx, dist))
    bad = idx.copy()
    bad[:, 0] = np.arange(150)
    with pytest.raises(ValueError, match="itself"):
        symmetric_knn_graph(iris, 5, knn=(bad, dist))


def test_ncvis_graph():
    X = np.array([[0.0], [1.0], [3.0], [7.0]])
    P = symmetric_knn_graph(X, 1)
    # 1-NN: 0->1, 1->0, 2->1, 3->2; union edges {01, 12, 23}: 6 directed entries
    expected = np.zeros((4, 4))
    for i, j in [(0, 1), (1, 2), (2, 3)]:
        expected[i, j] = expected[j, i] = 1 / 6
    np.testing.assert_allclose(P.toarray(), expected)


def test_ncvis_graph_iris(iris):
    P = symmetric_knn_graph(iris)
    np.testing.assert_allclose(P.sum(), 1.0)
    assert abs(P - P.T).max() == 0
    assert np.unique(P.data).size == 1
    assert np.all(np.diff(P.indptr) >= 15)


@pytest.mark.parametrize("spread, min_dist, a, b", [
    (1.0, 0.1, 1.577, 0.895),
    (1.0, 0.001, 1.929, 0.7915),
    (1.0, 0.4, 0.767, 1.223),
])
def test_umap_ab_known_values(spread, min_dist, a, b):
    fa, fb = fit_curve_ab(spread, min_dist)
    assert abs(fa - a) < 1e-3 and abs(fb - b) < 1e-3


def test_umap_ab_r_value():
    """The R fixture's nls fit (a, b) for spread 1, min_dist 0.001."""
    a, b = fit_curve_ab(1.0, 0.001)
    np.testing.assert_allclose([a, b], [1.92907339605744, 0.791504533476682], rtol=1e-6)


@pytest.mark.parametrize("spread, min_dist, match", [
    (0.0, 0.1, "spread"), (1.0, -0.1, "min_dist"), (1.0, 2.0, "min_dist"),
])
def test_umap_ab_bad_inputs(spread, min_dist, match):
    with pytest.raises(ValueError, match=match):
        fit_curve_ab(spread, min_dist)
