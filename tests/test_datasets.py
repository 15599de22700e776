"""Tests for smallvis.datasets."""

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial.distance import cdist

from smallvis import datasets

EXPECTED = {
    # name: (shape, number of classes)
    "curves": ((3000, 50), 10),
    "digits": ((1797, 64), 10),
    "hubs": ((1000, 50), 5),
    "iris": ((150, 4), 3),
    "s1k": ((1000, 9), 10),
    "swiss_roll": ((1000, 3), 6),
    "two_clusters": ((200, 10), 2),
}


def exact_knn(X, k):
    """Indices of the k nearest other points (brute force)."""
    D = cdist(X, X, "sqeuclidean")
    np.fill_diagonal(D, np.inf)
    return np.argpartition(D, k - 1, axis=1)[:, :k]


def test_names_sorted_and_complete():
    assert datasets.names() == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_shapes_dtypes_and_labels(name):
    X, labels = datasets.load(name)
    shape, n_classes = EXPECTED[name]
    assert isinstance(X, np.ndarray) and X.dtype == np.float64
    assert X.shape == shape
    assert np.all(np.isfinite(X))
    assert labels.ndim == 1 and labels.shape[0] == shape[0]
    assert np.issubdtype(labels.dtype, np.integer)
    np.testing.assert_array_equal(np.unique(labels), np.arange(n_classes))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_loading_is_deterministic(name):
    X1, l1 = datasets.load(name)
    X2, l2 = datasets.load(name)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(l1, l2)
    # callers get fresh arrays they may modify
    X1[0, 0] += 1.0
    np.testing.assert_array_equal(datasets.load(name)[0], X2)


def test_unknown_name_lists_valid_names():
    with pytest.raises(ValueError, match="unknown dataset name 'mnist'") as err:
        datasets.load("mnist")
    for name in EXPECTED:
        assert name in str(err.value)


def test_name_must_be_a_string():
    with pytest.raises(TypeError, match="name must be a str"):
        datasets.load(3)


def test_iris_matches_r():
    X, labels = datasets.load("iris")
    np.testing.assert_array_equal(X[0], [5.1, 3.5, 1.4, 0.2])
    np.testing.assert_array_equal(np.bincount(labels), [50, 50, 50])
    # labels come in blocks of 50 in R's order: setosa, versicolor, virginica
    np.testing.assert_array_equal(labels, np.repeat([0, 1, 2], 50))
    # rows 35 and 38 (1-based) follow R / Fisher, not the UCI file
    np.testing.assert_array_equal(X[34], [4.9, 3.1, 1.5, 0.2])
    np.testing.assert_array_equal(X[37], [4.9, 3.6, 1.4, 0.1])
    np.testing.assert_array_equal(X[-1], [5.9, 3.0, 5.1, 1.8])
    assert X.sum() == pytest.approx(2078.7)


def test_digits_values():
    X, labels = datasets.load("digits")
    assert X.shape == (1797, 64)
    assert X.min() == 0 and X.max() == 16
    np.testing.assert_array_equal(X, np.round(X))
    assert labels[:10].tolist() == list(range(10))
    assert np.bincount(labels).min() >= 170


def test_synthetic_class_sizes():
    for name in ("s1k", "two_clusters", "hubs"):
        _, labels = datasets.load(name)
        counts = np.bincount(labels)
        assert np.all(counts == counts[0]), name
    _, labels = datasets.load("swiss_roll")
    assert np.bincount(labels).min() > 100


def test_hubs_has_hubs():
    k = 15
    X, labels = datasets.load("hubs")
    in_degree = np.bincount(exact_knn(X, k).ravel(), minlength=X.shape[0])
    assert in_degree.max() / k >= 5
    # the biggest hub sits among the points closest to the centre
    assert labels[np.argmax(in_degree)] == 0


def test_two_clusters_knn_graph_is_disconnected():
    k = 15
    X, labels = datasets.load("two_clusters")
    n = X.shape[0]
    nn = exact_knn(X, k)
    graph = csr_matrix((np.ones(n * k), (np.repeat(np.arange(n), k),
                                         nn.ravel())), shape=(n, n))
    n_components, component = connected_components(graph, directed=False)
    assert n_components >= 2
    # no neighbour crosses between the blobs
    assert np.all(labels[nn] == labels[:, None])


def test_swiss_roll_labels_follow_the_roll():
    X, labels = datasets.load("swiss_roll")
    # distance from the roll's axis grows with the position t along it
    radius = np.hypot(X[:, 0], X[:, 2])
    means = [radius[labels == b].mean() for b in range(6)]
    assert np.all(np.diff(means) > 0)


def test_s1k_clusters_have_increasing_spread():
    X, labels = datasets.load("s1k")
    spreads = [X[labels == j].std(axis=0).mean() for j in range(10)]
    assert spreads[0] < spreads[-1]
    assert np.corrcoef(np.arange(10), spreads)[0, 1] > 0.9
