"""One kNN index for the fit and for new points (smallvis.inputs.neighbors.KNNIndex)."""

import pickle

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from smallvis.inputs.neighbors import KNNIndex, knn_graph


def _clusters(n, dim=8, n_clusters=6, seed=0):
    """Structured data: Gaussian clusters of different spreads (fixed centres)."""
    centres = np.random.default_rng(0).normal(scale=5.0, size=(n_clusters, dim))
    rng = np.random.default_rng(seed)
    labels = rng.integers(n_clusters, size=n)
    scales = np.linspace(0.5, 2.0, n_clusters)
    return centres[labels] + scales[labels, None] * rng.normal(size=(n, dim))


def _recall(found, truth):
    return np.mean([len(np.intersect1d(a, b)) for a, b in zip(found, truth)]) / truth.shape[1]


@pytest.mark.parametrize("fast", [False, True])
def test_index_pickles_without_its_forest_and_rebuilds_identically(fast):
    X, X_new = _clusters(300, seed=1), _clusters(40, seed=2)
    index = KNNIndex(X, method="annoy", n_trees=3, random_state=11, fast=fast)
    first = index.query(X_new, 7)
    assert index._forest is not None
    copy = pickle.loads(pickle.dumps(index))
    assert copy._forest is None and copy._graphs == {} and copy.seed == index.seed
    again = copy.query(X_new, 7)
    np.testing.assert_array_equal(again[0], first[0])
    np.testing.assert_array_equal(again[1], first[1])
    # the rebuilt forest also gives the fit's graph of the training points
    fit = knn_graph(X, 6, method="annoy", n_trees=3, random_state=11, fast=fast)
    np.testing.assert_array_equal(copy.neighbors(6)[0], fit[0])
    np.testing.assert_array_equal(copy.neighbors(6)[1], fit[1])


@pytest.mark.parametrize("scale", [1.0, 1e-200, 1e250, 3.0**-7])
def test_querying_the_training_points_gives_the_fits_graph(scale):
    """Exact path: the training points as queries, themselves dropped, are the fit's graph."""
    X = _clusters(300, dim=5, seed=3) * scale
    k = 9
    fit_idx, fit_dist = knn_graph(X, k, method="exact")
    idx, dist = KNNIndex(X, method="exact").query(X, k + 1)
    assert np.all(idx[:, 0] == np.arange(len(X))) and np.all(dist[:, 0] == 0.0)
    np.testing.assert_array_equal(idx[:, 1:], fit_idx)
    np.testing.assert_array_equal(dist[:, 1:], fit_dist)


@pytest.mark.parametrize("method", ["exact", "annoy"])
@pytest.mark.parametrize("fast", [False, True])
def test_new_points_break_ties_by_index(method, fast):
    """Equal distances, exact or equal only up to rounding, are ordered by index."""
    rng = np.random.default_rng(4)
    filler = rng.uniform(5.0, 9.0, size=(60, 1))  # far from the query point 0.1
    # |0.3 - 0.1| and |0.1 - (-0.1)| are both 0.2 mathematically but differ in
    # the last bit in float64; 0.6 and -0.4 are 0.5 away, exactly, as is 0.6
    # again (a duplicate)
    near = np.array([[0.6], [0.3], [-0.4], [-0.1], [0.6]])
    X = np.vstack([filler[:30], near, filler[30:]])
    idx, dist = KNNIndex(X, method=method, n_trees=2, random_state=0,
                         fast=fast).query([[0.1]], 5)
    # by hand: distance 0.2 at rows 31, 33; distance 0.5 at rows 30, 32, 34
    np.testing.assert_array_equal(idx[0], [31, 33, 30, 32, 34])
    np.testing.assert_allclose(dist[0], [0.2, 0.2, 0.5, 0.5, 0.5], rtol=1e-15)


@pytest.mark.parametrize("fast", [False, True])
def test_refinement_raises_the_recall_of_new_points(fast):
    """A poor forest (1 tree, a tiny search) alone misses neighbours; the refinement finds them."""
    X, X_new = _clusters(1500, seed=5), _clusters(150, seed=6)
    k = 10
    truth = KNNIndex(X, method="exact").query(X_new, k)[0]
    poor = dict(method="annoy", n_trees=1, search_k=k, random_state=2, fast=fast)
    raw = KNNIndex(X, n_refine=0, **poor).query(X_new, k)[0]
    refined_index = KNNIndex(X, **poor)
    refined = refined_index.query(X_new, k)[0]
    # measured: 0.35 without, 0.93 with the refinement
    assert _recall(raw, truth) < 0.5
    assert _recall(refined, truth) >= 0.9
    # every step is per point: a point alone gets the answer it got in the batch
    alone = np.vstack([refined_index.query(X_new[s:s + 1], k)[0] for s in (0, 77, 149)])
    np.testing.assert_array_equal(alone, refined[[0, 77, 149]])


def test_query_distances_are_exact_distances():
    X, X_new = _clusters(800, seed=7), _clusters(30, seed=8)
    idx, dist = KNNIndex(X, method="annoy", n_trees=2, random_state=1, fast=True).query(X_new, 6)
    expected = np.sqrt(((X_new[:, None, :] - X[idx]) ** 2).sum(axis=2))
    np.testing.assert_allclose(dist, expected, rtol=1e-14)
    assert np.all(np.diff(dist, axis=1) >= 0)
    # and they are the exact search's for the neighbours both find
    exact_idx, exact_dist = KNNIndex(X, method="exact").query(X_new, 6)
    same = idx == exact_idx
    np.testing.assert_array_equal(dist[same], exact_dist[same])
    assert cdist(X_new[:1], X[idx[0, :1]])[0, 0] == pytest.approx(dist[0, 0], rel=1e-15)


def test_query_refuses_points_of_another_width():
    index = KNNIndex(_clusters(50, seed=9), method="exact")
    with pytest.raises(ValueError, match="X_new has 3 features"):
        index.query(np.zeros((2, 3)), 2)
    with pytest.raises(ValueError, match="n_neighbors"):
        index.query(np.zeros((2, 8)), 51)


def test_transform_validates_its_data_once(monkeypatch):
    """The index trusts what transform has checked: no second scan of X or X_new."""
    import smallvis
    from smallvis.inputs import knn_checks

    X = _clusters(60, dim=4)
    model = smallvis.Embedding(method="umap", method_params={"n_neighbors": 5}, random_state=1,
                               transform_n_iter=0).fit(X)
    scans = []

    def counting(X, *args, **kwargs):
        scans.append(np.shape(X))
        raise AssertionError("the index validated data again")

    monkeypatch.setattr(knn_checks, "check_data", counting)
    model.training_map_._index = None  # built afresh, on the internal path
    model.transform(X[:5] + 0.1)
    assert scans == []
    with pytest.raises(AssertionError, match="validated data again"):
        KNNIndex(X)  # public callers are still checked
