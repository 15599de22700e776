"""The projected search's forest: its twins, its trees and its walks."""

import numpy as np
import pytest

from smallvis.backends import _kernels, reference
from smallvis.inputs import search_forest


def _rows(n, r, seed, coarse=False):
    rng = np.random.default_rng(seed)
    S = rng.normal(size=(n, r)) * 10.0 ** rng.integers(-2, 3, size=r)
    S[40:50] = S[3]  # repeated rows: equal keys, ties broken by row number
    if coarse:  # few distinct values: many equal keys and distances
        S = np.round(S)
    return np.ascontiguousarray(S)


def _forest(S, n_trees, seed, leaf_size, n_threads, kernels):
    return search_forest.build(S, n_trees, seed, leaf_size, n_threads, kernels)


@pytest.mark.parametrize("n, r, coarse", [(700, 8, False), (300, 13, False), (257, 3, True),
                                          (500, 64, False), (90, 1, True)])
def test_twins_build_and_walk_with_the_same_bits(n, r, coarse):
    # the contract of the exact-order extension: a split decided by one
    # rounding more or less would be another tree, so nothing less will do
    S = _rows(n, r, seed=n + r, coarse=coarse)
    slow = _forest(S, 3, 7, 16, 1, reference)
    for n_threads in (1, 2, 3):
        fast = _forest(S, 3, 7, 16, n_threads, _kernels)
        for name in search_forest.Forest._fields:
            np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name), name)
    expected = search_forest.candidates(slow, S, 12, 3 * 13, 1, reference)
    for n_threads in (1, 2, 3):
        np.testing.assert_array_equal(
            search_forest.candidates(fast, S, 12, 3 * 13, n_threads, _kernels), expected)
    # a span of rows is walked alone, the others left as they were
    for kernels in (_kernels, reference):
        out = np.full((n, 12), 7, dtype=np.int32)
        kernels.forest_query(S, fast.roots, fast.children, fast.normals, fast.offsets,
                             fast.leaf_start, fast.items, 3 * 13, out, 2, 10, 30)
        np.testing.assert_array_equal(out[10:30], expected[10:30])
        assert np.all(out[:10] == 7) and np.all(out[30:] == 7)


@pytest.mark.parametrize("n, leaf_size", [(1, 4), (4, 4), (5, 4), (1000, 10), (777, 64)])
def test_every_tree_holds_each_row_once_in_halves(n, leaf_size):
    S = _rows(max(n, 50), 6, seed=3)[:n].copy()
    forest = _forest(S, 4, 0, leaf_size, 2, _kernels)
    nodes, leaves = search_forest.tree_size(n, leaf_size)
    assert forest.children.shape == (4 * nodes, 2) and len(forest.leaf_start) == 4 * leaves + 1
    sizes = np.diff(forest.leaf_start)
    assert sizes.min() >= 1 and sizes.max() <= leaf_size
    for tree in range(4):
        assert sorted(forest.items[tree * n:(tree + 1) * n]) == list(range(n))

    def rows_below(node):
        left, right = forest.children[node]
        if left < 0:
            return forest.items[forest.leaf_start[right]:forest.leaf_start[right + 1]]
        return np.concatenate([rows_below(left), rows_below(right)])

    for node in np.flatnonzero(forest.children[:, 0] >= 0):
        left, right = forest.children[node]
        a, b = rows_below(left), rows_below(right)
        assert len(a) == (len(a) + len(b)) // 2  # the smaller half goes left
        w, offset = forest.normals[node], forest.offsets[node]
        scale = 1e-9 * (np.abs(S) @ np.abs(w) + abs(offset) + 1e-300)
        assert np.all(S[a] @ w - offset <= scale[a])  # left of the split, to rounding
        assert np.all(S[b] @ w - offset >= -scale[b])


def test_a_walk_of_the_whole_forest_finds_the_exact_neighbours():
    # with search_k as large as the forest, every row is reached, so the
    # answer is the brute-force ranking (ties by row number)
    S = _rows(400, 5, seed=9, coarse=True)
    m = 15
    d2 = ((S[:, None, :] - S[None, :, :]) ** 2).sum(-1)
    expected = np.array([np.lexsort((np.arange(400), row))[:m] for row in d2])
    for kernels in (_kernels, reference):
        forest = _forest(S, 3, 1, 8, 2, kernels)
        found = search_forest.candidates(forest, S, m, 3 * 400, 2, kernels)
        np.testing.assert_array_equal(found, expected)


def test_a_short_walk_pads_with_minus_one():
    S = np.random.default_rng(5).normal(size=(200, 4))  # distinct rows, no equal keys
    forest = _forest(S, 1, 2, 8, 1, _kernels)
    found = search_forest.candidates(forest, S, 30, 1, 1, _kernels)  # one leaf each
    assert np.all(found[:, 0] == np.arange(200))  # a row's own leaf holds it
    width = (found >= 0).sum(axis=1)
    assert width.max() <= 8 and np.all(found[np.arange(200), width - 1] >= 0)
    assert np.all(found[:, 8:] == -1)


def test_the_walks_find_most_neighbours_of_clustered_rows():
    # a property of any sound search: a budget of 7 * 61 rows reached (of
    # 3,000) finds nearly all of each row's 10 exact neighbours
    rng = np.random.default_rng(0)
    centres = rng.normal(scale=6.0, size=(20, 16))
    S = np.ascontiguousarray(centres[rng.integers(20, size=3000)] + rng.normal(size=(3000, 16)))
    forest = _forest(S, 7, 0, 64, 2, _kernels)
    found = search_forest.candidates(forest, S, 61, 7 * 61, 2, _kernels)
    d2 = ((S[:300, None, :] - S[None, :, :]) ** 2).sum(-1)
    exact = np.argsort(d2, axis=1)[:, 1:11]
    recall = np.mean([len(np.intersect1d(exact[i], found[i])) / 10 for i in range(300)])
    assert recall > 0.9


def test_the_query_refuses_a_forest_that_does_not_fit():
    S = _rows(100, 4, seed=1)
    forest = _forest(S, 2, 0, 8, 1, _kernels)
    with pytest.raises(ValueError, match="a normal of S's width"):
        _kernels.forest_query(S[:, :3].copy(), forest.roots, forest.children, forest.normals,
                              forest.offsets, forest.leaf_start, forest.items, 20,
                              np.empty((100, 5), dtype=np.int32), 1)
    with pytest.raises(ValueError, match="at least one column"):
        _kernels.forest_query(S, forest.roots, forest.children, forest.normals,
                              forest.offsets, forest.leaf_start, forest.items, 20,
                              np.empty((100, 0), dtype=np.int32), 1)


def test_the_build_refuses_arrays_smaller_than_the_tree():
    S = _rows(300, 4, seed=2)
    nodes, leaves = search_forest.tree_size(300, 16)
    for kernels in (_kernels, reference):
        for n_nodes, n_leaves in ((nodes - 2, leaves), (nodes, leaves - 1)):
            with pytest.raises((ValueError, IndexError)):
                kernels.forest_tree(S, 0, 0, 16, np.empty((n_nodes, 2), dtype=np.int32),
                                    np.empty((n_nodes, 4)), np.empty(n_nodes),
                                    np.empty(n_leaves + 1, dtype=np.int64),
                                    np.empty(300, dtype=np.int32))
    with pytest.raises(ValueError, match="a row per node"):
        _kernels.forest_tree(S, 0, 0, 16, np.empty((nodes, 2), dtype=np.int32),
                             np.empty((nodes, 3)), np.empty(nodes),
                             np.empty(leaves + 1, dtype=np.int64), np.empty(300, dtype=np.int32))


def _leaf_order(S, leaf_size, n_threads, kernels):
    order = np.full(S.shape[0], -5, dtype=np.int64)
    kernels.leaf_order(np.ascontiguousarray(S), leaf_size, order, n_threads)
    return order


@pytest.mark.parametrize("n, r, leaf_size", [(0, 3, 4), (1, 2, 1), (4, 3, 4), (5, 3, 4),
                                             (1000, 5, 7), (3001, 16, 64), (2000, 2, 1),
                                             (600, 70, 48), (600, 70, 49)])
def test_leaf_order_twins_give_the_same_permutation(n, r, leaf_size):
    # a stable ranking: repeated rows, values that tie, signed zeros (equal,
    # so ranked by place), subnormal numbers; parts from a row to hundreds
    rng = np.random.default_rng(n + r)
    S = rng.normal(size=(n, r)) * 10.0 ** rng.integers(-3, 4, size=r)
    S[::7] = S[:1]
    S[1::5] = np.round(S[1::5])
    S[2::13] = 0.0
    S[3::13] = -0.0
    S[4::17] *= 1e-310
    expected = _leaf_order(S, leaf_size, 1, reference)
    assert np.array_equal(np.sort(expected), np.arange(n))
    for n_threads in (1, 2, 3):
        np.testing.assert_array_equal(_leaf_order(S, leaf_size, n_threads, _kernels), expected)


def test_leaf_order_splits_at_the_median_of_the_widest_coordinate():
    # by hand: the second coordinate spans most, so the three rows lowest
    # on it come first (a tie of 2.0 kept in row order), each leaf of at most
    # three rows in the order of the last split
    S = np.array([[0.0, 5.0], [1.0, 2.0], [0.5, 9.0], [0.2, 2.0], [0.9, -1.0], [0.1, 7.0]])
    for kernels in (reference, _kernels):
        np.testing.assert_array_equal(_leaf_order(S, 3, 2, kernels), [4, 1, 3, 0, 5, 2])
        np.testing.assert_array_equal(_leaf_order(S, 6, 2, kernels), np.arange(6))


def test_leaf_order_refuses_an_order_of_another_length_and_rows_without_columns():
    S = np.zeros((10, 2))
    with pytest.raises(ValueError, match="one entry per row"):
        _kernels.leaf_order(S, 4, np.empty(9, dtype=np.int64), 1)
    for kernels in (reference, _kernels):
        with pytest.raises(ValueError, match="leaf_size >= 1"):
            kernels.leaf_order(np.zeros((10, 0)), 4, np.empty(10, dtype=np.int64), 1)
        with pytest.raises(ValueError, match="leaf_size >= 1"):
            kernels.leaf_order(S, 0, np.empty(10, dtype=np.int64), 1)
