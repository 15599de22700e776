"""Tests for smallvis.metrics."""

import numpy as np
import pytest

from smallvis import metrics

# Six points on a line with all pairwise gaps distinct, so no distance ties:
#   p0=0, p1=1, p2=3, p3=7, p4=15, p5=31
LINE = np.array([0.0, 1.0, 3.0, 7.0, 15.0, 31.0])[:, None]
# The embedding puts the same coordinates on the points but swaps p0 and p5:
#   p0=31, p1=1, p2=3, p3=7, p4=15, p5=0
SWAPPED = LINE[[5, 1, 2, 3, 4, 0]]


def test_trustworthiness_hand_example():
    # Ranks in X (1 = nearest), from the distances along the line:
    #   p0: p1=1 p2=2 p3=3 p4=4 p5=5      p3: p2=1 p1=2 p0=3 p4=4 p5=5
    #   p1: p0=1 p2=2 p3=3 p4=4 p5=5      p4: p3=1 p2=2 p1=3 p0=4 p5=5
    #   p2: p1=1 p0=2 p3=3 p4=4 p5=5      p5: p4=1 p3=2 p2=3 p1=4 p0=5
    # 2 nearest neighbours in Y and their penalty max(0, rank_X - k), k=2:
    #   p0 (at 31): p4, p3 -> (4-2) + (3-2) = 3
    #   p1 (at 1):  p5, p2 -> (5-2) + 0     = 3
    #   p2 (at 3):  p1, p5 -> 0 + (5-2)     = 3
    #   p3 (at 7):  p2, p1 -> 0
    #   p4 (at 15): p3, p2 -> 0
    #   p5 (at 0):  p1, p2 -> (4-2) + (3-2) = 3
    # Sum = 12; T = 1 - 2 / (n k (2n - 3k - 1)) * 12
    #             = 1 - 2 / (6 * 2 * 5) * 12 = 1 - 0.4 = 0.6
    assert metrics.trustworthiness(LINE, SWAPPED, n_neighbors=2) == \
        pytest.approx(0.6)


def test_knn_preservation_hand_example():
    # 2-NN in X:  p0 {1,2} p1 {0,2} p2 {0,1} p3 {1,2} p4 {2,3} p5 {3,4}
    # 2-NN in Y:  p0 {3,4} p1 {2,5} p2 {1,5} p3 {1,2} p4 {2,3} p5 {1,2}
    # shared:     0        1        1        2        2        0   -> 6
    # preservation = 6 / (6 points * 2) = 0.5
    assert metrics.knn_preservation(LINE, SWAPPED, n_neighbors=2) == \
        pytest.approx(0.5)


def test_knn_accuracy_hand_example():
    labels = np.array([0, 0, 1, 1, 1, 0])
    # k=1, nearest other point on the line: p0->p1 (0, right), p1->p0 (0,
    # right), p2->p1 (0, wrong), p3->p2 (1, right), p4->p3 (1, right),
    # p5->p4 (1, wrong): 4/6.
    assert metrics.knn_accuracy(LINE, labels, n_neighbors=1) == \
        pytest.approx(4 / 6)
    # k=2: p0 {p1,p2} votes 0,1 tie -> 0 right; p1 {p0,p2} 0,1 tie -> 0
    # right; p2 {p1,p0} 0,0 -> 0 wrong; p3 {p2,p1} 1,0 tie -> 0 wrong;
    # p4 {p3,p2} 1,1 -> 1 right; p5 {p4,p3} 1,1 -> 1 wrong: 3/6.
    assert metrics.knn_accuracy(LINE, labels, n_neighbors=2) == \
        pytest.approx(0.5)


@pytest.mark.parametrize("labels", [
    [5, 5, 3, 3, 3, 5],
    ["b", "b", "a", "a", "a", "b"],
])
def test_knn_accuracy_ties_go_to_smallest_label(labels):
    # k=2, ties to the smallest label (3 / "a"):
    #   p0 {p1,p2} 5,3 -> 3 wrong     p3 {p2,p1} 3,5 -> 3 right
    #   p1 {p0,p2} 5,3 -> 3 wrong     p4 {p3,p2} 3,3 -> 3 right
    #   p2 {p1,p0} 5,5 -> 5 wrong     p5 {p4,p3} 3,3 -> 3 wrong
    # accuracy 2/6.  (Breaking ties by the nearest neighbour would give 4/6.)
    assert metrics.knn_accuracy(LINE, labels, n_neighbors=2) == \
        pytest.approx(1 / 3)


def test_perfect_embedding_scores_one():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    Y = 2.0 * X[:, :3] + 1.0  # similarity transform keeps all neighbours
    assert metrics.trustworthiness(X, Y, n_neighbors=5) == pytest.approx(1.0)
    assert metrics.knn_preservation(X, Y, n_neighbors=5) == pytest.approx(1.0)


@pytest.mark.parametrize("n_neighbors", [1, 5, 12])
def test_trustworthiness_matches_sklearn(n_neighbors):
    manifold = pytest.importorskip("sklearn.manifold")
    rng = np.random.default_rng(42)
    X = rng.normal(size=(120, 12))
    Y = X[:, :2] + 0.7 * rng.normal(size=(120, 2))
    expected = manifold.trustworthiness(X, Y, n_neighbors=n_neighbors)
    assert metrics.trustworthiness(X, Y, n_neighbors=n_neighbors) == \
        pytest.approx(expected, abs=1e-12)


def test_blocked_computation_gives_same_results(monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 20))
    Y = rng.normal(size=(150, 2))
    labels = rng.integers(0, 4, size=150)
    full = (metrics.trustworthiness(X, Y, 7),
            metrics.knn_preservation(X, Y, 7),
            metrics.knn_accuracy(Y, labels, 7))
    # Force many small blocks of rows.
    monkeypatch.setattr(metrics, "_BLOCK_ENTRIES", 1000)
    blocked = (metrics.trustworthiness(X, Y, 7),
               metrics.knn_preservation(X, Y, 7),
               metrics.knn_accuracy(Y, labels, 7))
    assert blocked == pytest.approx(full)


def test_kdtree_and_brute_force_neighbours_agree(monkeypatch):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(100, 4))
    Y = rng.normal(size=(100, 2))
    tree = metrics.knn_preservation(X, Y, 6)
    monkeypatch.setattr(metrics, "_KDTREE_MAX_DIM", 0)  # always brute force
    assert metrics.knn_preservation(X, Y, 6) == pytest.approx(tree)


def test_duplicate_points_do_not_count_themselves():
    Y = np.array([[0.0], [0.0], [0.0], [5.0], [5.0], [5.0]])
    # every point's 2 nearest others are its two copies, all same label
    assert metrics.knn_accuracy(Y, [0, 0, 0, 1, 1, 1], n_neighbors=2) == 1.0


@pytest.mark.parametrize("func", [metrics.trustworthiness,
                                  metrics.knn_preservation])
def test_bad_inputs_for_pair_metrics(func):
    X = np.zeros((10, 3)) + np.arange(10)[:, None]
    Y = X[:, :2]
    with pytest.raises(ValueError, match="same number of rows"):
        func(X, Y[:9], n_neighbors=2)
    with pytest.raises(ValueError, match="X must be a 2-D array"):
        func(X[:, 0], Y, n_neighbors=2)
    with pytest.raises(ValueError, match="Y must be a 2-D array"):
        func(X, Y[None], n_neighbors=2)
    bad = Y.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="Y contains NaN or infinite"):
        func(X, bad, n_neighbors=2)
    with pytest.raises(ValueError, match=r"n_neighbors must be in \[1, "):
        func(X, Y, n_neighbors=0)
    with pytest.raises(ValueError, match=r"n_neighbors must be in \[1, "):
        func(X, Y, n_neighbors=10)
    with pytest.raises(TypeError, match="n_neighbors must be an integer"):
        func(X, Y, n_neighbors=2.5)
    with pytest.raises(TypeError, match="X must be a numeric array"):
        func([["a", "b"]] * 10, Y, n_neighbors=2)


def test_trustworthiness_needs_k_below_half_n():
    X = np.arange(10.0)[:, None]
    with pytest.raises(ValueError, match="n_samples / 2"):
        metrics.trustworthiness(X, X, n_neighbors=5)
    assert metrics.trustworthiness(X, X, n_neighbors=4) == pytest.approx(1.0)


def test_bad_inputs_for_knn_accuracy():
    Y = np.arange(20.0).reshape(10, 2)
    labels = np.arange(10) % 2
    with pytest.raises(ValueError, match="labels must be a 1-D array"):
        metrics.knn_accuracy(Y, labels[:, None], n_neighbors=3)
    with pytest.raises(ValueError, match="same number of rows"):
        metrics.knn_accuracy(Y, labels[:8], n_neighbors=3)
    with pytest.raises(ValueError, match=r"n_neighbors must be in \[1, "):
        metrics.knn_accuracy(Y, labels, n_neighbors=10)
    with pytest.raises(ValueError, match="Y contains NaN or infinite"):
        metrics.knn_accuracy(np.full((10, 2), np.inf), labels, n_neighbors=3)
    with pytest.raises(TypeError, match="n_neighbors must be an integer"):
        metrics.knn_accuracy(Y, labels, n_neighbors=True)
    with_missing = labels.astype(float)
    with_missing[[2, 7]] = np.nan
    with pytest.raises(ValueError, match="labels hold 2 NaN"):
        metrics.knn_accuracy(Y, with_missing, n_neighbors=3)
