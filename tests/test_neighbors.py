"""Nearest neighbours: exact brute force and Annoy behind one interface."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from smallvis import datasets
from smallvis.inputs.neighbors import EXACT_MAX_N, nearest_neighbors


def _brute(X, k):
    """Independent check: full argsort of the distance matrix, self removed."""
    D = cdist(X, X)
    np.fill_diagonal(D, np.inf)
    idx = np.argsort(D, axis=1, kind="stable")[:, :k]
    return idx, np.take_along_axis(D, idx, 1)


@pytest.mark.parametrize("name", ["iris", "s1k", "digits"])
def test_annoy_recovers_exact_neighbours(name):
    X, _ = datasets.load(name)
    ie, de = nearest_neighbors(X, 15, method="exact")
    # digits through the Cython refinement: the NumPy twin's loop over its
    # 1,797 rows takes seconds, for the same neighbours bit for bit
    # (test_knn_refine_twins_agree_bitwise_over_rounds)
    ia, da = nearest_neighbors(X, 15, method="annoy", random_state=42, fast=name == "digits")
    recall = np.mean([len(set(a) & set(b)) for a, b in zip(ie, ia)]) / 15
    assert recall >= 0.95
    # the k-th distance is what matters for ties: Annoy never beats exact
    assert np.all(da[:, -1] >= de[:, -1] - 1e-12)


def test_exact_matches_an_independent_brute_force():
    X = np.random.default_rng(3).normal(size=(300, 7))  # no ties
    ie, de = nearest_neighbors(X, 12, method="exact")
    ib, db = _brute(X, 12)
    np.testing.assert_array_equal(ie, ib)
    np.testing.assert_allclose(de, db, rtol=1e-12)
    assert ie.dtype == np.int64 and de.dtype == np.float64


def test_rows_sorted_without_self_and_ties_by_index():
    X = np.array([[0.0], [1.0], [-1.0], [2.0], [-2.0]])
    idx, dist = nearest_neighbors(X, 4, method="exact")
    np.testing.assert_array_equal(idx[0], [1, 2, 3, 4])  # 1 and 2 tie: lower index first
    np.testing.assert_allclose(dist[0], [1, 1, 2, 2])
    for method in ("exact", "annoy"):
        i, d = nearest_neighbors(datasets.load("iris")[0], 10, method=method, random_state=0)
        assert not np.any(i == np.arange(150)[:, None])
        assert np.all(np.diff(d, axis=1) >= 0)


def test_rounding_ties_resolve_by_index():
    """Iris distances equal on paper but not in floating point still tie."""
    X = np.array([[5.1, 3.5], [5.4, 3.5], [4.8, 3.5]])  # both at 0.3 from row 0
    d2 = cdist(X[:1], X[1:], "sqeuclidean")[0]
    assert d2[0] > d2[1]  # in floating point row 1 is (very slightly) farther
    idx, _ = nearest_neighbors(X, 2, method="exact")
    np.testing.assert_array_equal(idx[0], [1, 2])


@pytest.mark.parametrize("method", ["exact", "annoy"])
def test_duplicates(method):
    rng = np.random.default_rng(0)
    base = rng.normal(size=(50, 4))
    X = np.vstack([base, base[:10], base[:10]])  # rows 0..9 appear three times
    idx, dist = nearest_neighbors(X, 5, method=method, random_state=1)
    assert not np.any(idx == np.arange(len(X))[:, None])
    for i in range(10):
        copies = {i, 50 + i, 60 + i} - {i}
        assert set(idx[i, :2]) == copies
        np.testing.assert_array_equal(dist[i, :2], 0.0)
    # the duplicate pairs come first, by index
    np.testing.assert_array_equal(idx[50, :2], [0, 60])


def test_annoy_is_deterministic_for_a_seed():
    X, _ = datasets.load("s1k")
    a = nearest_neighbors(X, 15, method="annoy", random_state=7)
    b = nearest_neighbors(X, 15, method="annoy", random_state=7)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


def test_auto_switches_at_the_documented_size():
    assert EXACT_MAX_N == 4096
    X, _ = datasets.load("iris")
    np.testing.assert_array_equal(nearest_neighbors(X, 5)[0],
                                  nearest_neighbors(X, 5, method="exact")[0])


def test_every_other_point():
    X = np.random.default_rng(1).normal(size=(6, 2))
    idx, _ = nearest_neighbors(X, 5, method="exact")
    for i in range(6):
        assert sorted(idx[i]) == [j for j in range(6) if j != i]


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(n_neighbors=0), ValueError, "n_neighbors"),
    (dict(n_neighbors=150), ValueError, "n_neighbors"),
    (dict(n_neighbors=2.5), TypeError, "n_neighbors"),
    (dict(n_neighbors=True), TypeError, "n_neighbors"),
    (dict(n_neighbors=5, method="kdtree"), ValueError, "method"),
    (dict(n_neighbors=5, method="annoy", n_trees=0), ValueError, "n_trees"),
    (dict(n_neighbors=5, method="annoy", search_k=0), ValueError, "search_k"),
    (dict(n_neighbors=5, method="annoy", n_refine=-1), ValueError, "n_refine"),
    (dict(n_neighbors=5, method="annoy", n_refine=1.5), TypeError, "n_refine"),
    (dict(n_neighbors=5, random_state=-1), ValueError, "random_state"),
])
def test_bad_inputs(kwargs, exc, match):
    X, _ = datasets.load("iris")
    with pytest.raises(exc, match=match):
        nearest_neighbors(X, **kwargs)


def test_bad_data():
    with pytest.raises(ValueError, match="NaN"):
        nearest_neighbors(np.array([[0.0], [np.nan], [1.0]]), 1)
    with pytest.raises(ValueError, match="at least 2 rows"):
        nearest_neighbors(np.zeros((1, 3)), 1)


# ---------------------------------------------------------------------------
# neighbour-of-neighbour refinement (knn_refine, after every Annoy search)
# ---------------------------------------------------------------------------


def _column_sq_dist(X, idx):
    """Squared distances of idx's pairs, summed feature by feature in order."""
    d2 = np.zeros(idx.shape)
    for f in range(X.shape[1]):
        diff = X[idx, f] - X[:, f][:, None]
        d2 += diff * diff
    return d2


def _refine_input(X, k, seed):
    """A poor but valid graph: raw single-tree Annoy, rows in package order."""
    idx, _ = nearest_neighbors(X, k, method="annoy", n_trees=1, search_k=k + 1,
                               n_refine=0, random_state=seed)
    return idx.astype(np.int32), _column_sq_dist(X, idx)


def _refine_inputs():
    rng = np.random.default_rng(5)
    grid = rng.integers(0, 4, size=(120, 3)).astype(float)  # many exact ties
    dup = rng.normal(size=(80, 4))
    dup[40:] = dup[:40]  # every point duplicated: neighbours at distance 0
    return [rng.normal(size=(300, 7)), grid, dup, datasets.load("iris")[0]]


def _refine_once(module, X, idx, d2, flags=None, n_explore=1000, n_threads=1):
    """(indices, sq_dist, flags, n_changed) after one round of ``module.knn_refine``."""
    if flags is None:
        flags = np.full(idx.shape, 3, dtype=np.uint8)
    out = (np.empty_like(idx), np.empty_like(d2), np.empty_like(flags))
    n_changed = module.knn_refine(X, idx, d2, flags, n_explore, out[0], out[1], out[2],
                                  n_threads)
    return out + (n_changed,)


def _new_flags(old, new, w):
    """The flags knn_refine must return: 3 new to the row, 2 new to its first w."""
    k = old.shape[1]
    w = min(w, k)
    flags = np.zeros(new.shape, dtype=np.uint8)
    for i in range(len(old)):
        pos = {c: p for p, c in enumerate(old[i])}
        for r, c in enumerate(new[i]):
            if c not in pos:
                flags[i, r] = 3
            elif r < w and pos[c] >= w:
                flags[i, r] = 2
    return flags


@pytest.mark.parametrize("case", range(4))
@pytest.mark.parametrize("k", [1, 5, 12])
@pytest.mark.parametrize("n_explore", [1, 3, 1000])
def test_knn_refine_twins_agree_bitwise_over_rounds(case, k, n_explore):
    """Round after round; from round 2 the Cython twin skips what was examined."""
    from smallvis.backends import _kernels
    from smallvis.backends import reference

    X = _refine_inputs()[case]
    idx, d2 = _refine_input(X, k, seed=case)
    flags = None
    for _ in range(3):
        fast = _refine_once(_kernels, X, idx, d2, flags, n_explore)
        ref = _refine_once(reference, X, idx, d2, flags, n_explore)
        for a, b in zip(fast, ref):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(fast[2], _new_flags(idx, fast[0], n_explore))
        assert fast[3] == np.count_nonzero(np.any(fast[0] != idx, axis=1))
        idx, d2, flags = fast[:3]


@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("case", range(4))
def test_knn_refine_with_its_distances_updated_in_place_is_the_same_round(case, n_threads):
    """out_sq_dist may be sq_dist (refine's use): the same lists, in spans of rows too."""
    from smallvis.backends import _kernels
    from smallvis.backends import reference

    X = _refine_inputs()[case]
    idx, d2 = _refine_input(X, 5, seed=case)
    expected = _refine_once(reference, X, idx, d2, n_explore=3)
    assert expected[3] > 0  # a round that changes rows
    for module in (reference, _kernels):
        in_place = d2.copy()
        out_idx, out_flags = np.empty_like(idx), np.empty((idx.shape), dtype=np.uint8)
        flags = np.full(idx.shape, 3, dtype=np.uint8)
        n = len(X)
        n_changed = sum(module.knn_refine(X, idx, in_place, flags, 3, out_idx, in_place,
                                          out_flags, n_threads, 0, start, min(n, start + 17))
                        for start in range(0, n, 17))
        for a, b in zip(expected, (out_idx, in_place, out_flags, n_changed)):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("n_explore", [2, 1000])
def test_knn_refine_skipping_is_exact(n_explore):
    """Skipping what the last round examined gives the full round's result."""
    from smallvis.backends import _kernels
    from smallvis.backends import reference

    X = _refine_inputs()[0]
    idx, d2 = _refine_input(X, 8, seed=3)
    idx, d2, flags, n_changed = _refine_once(_kernels, X, idx, d2, n_explore=n_explore)
    assert 0 < n_changed < len(X) and not flags.all()
    full = _refine_once(reference, X, idx, d2, n_explore=n_explore)  # all examined
    everything = _refine_once(_kernels, X, idx, d2, n_explore=n_explore)
    skipped = _refine_once(_kernels, X, idx, d2, flags, n_explore)
    for a, b, c in zip(full[:3], skipped[:3], everything[:3]):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("n_threads", [2, 3])
def test_knn_refine_same_on_any_number_of_threads(n_threads):
    from smallvis.backends import _kernels

    X = _refine_inputs()[0]
    idx, d2 = _refine_input(X, 8, seed=3)
    one = _refine_once(_kernels, X, idx, d2, n_threads=1)
    many = _refine_once(_kernels, X, idx, d2, n_threads=n_threads)
    for a, b in zip(one, many):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("case", range(4))
def test_knn_refine_only_improves_and_keeps_the_package_order(case):
    from smallvis.backends import _kernels
    from smallvis._numeric import tie_key as _tie_key

    X = _refine_inputs()[case]
    k = 6
    idx, d2 = _refine_input(X, k, seed=case)
    new_idx, new_d2, _, _ = _refine_once(_kernels, X, idx, d2)
    n = len(X)
    assert not np.any(new_idx == np.arange(n)[:, None])
    assert all(len(set(row)) == k for row in new_idx)
    # the distances are those of the listed pairs, computed independently
    np.testing.assert_array_equal(new_d2, _column_sq_dist(X, new_idx))
    # sorted by (snapped distance, index), and never worse than the input
    keys = _tie_key(new_d2)
    for r in range(n):
        assert list(zip(keys[r], new_idx[r])) == sorted(zip(keys[r], new_idx[r]))
    assert np.all(keys <= _tie_key(d2))


def test_knn_refine_leaves_the_exact_graph_unchanged():
    from smallvis.backends import _kernels

    X = np.random.default_rng(8).normal(size=(200, 5))
    idx, _ = nearest_neighbors(X, 10, method="exact")
    d2 = _column_sq_dist(X, idx)
    idx = idx.astype(np.int32)
    out = _refine_once(_kernels, X, idx, d2)
    np.testing.assert_array_equal(out[0], idx)
    np.testing.assert_array_equal(out[1], d2)
    assert not out[2].any() and out[3] == 0


def test_refinement_recovers_what_a_weak_forest_missed():
    """Full-rank clusters are hard for Annoy; two rounds recover most misses."""
    rng = np.random.default_rng(0)
    X = rng.normal(0.0, 3.0, size=(10, 20))[np.arange(3000) % 10]
    X = X + rng.standard_normal(X.shape)
    ie, de = nearest_neighbors(X, 10, method="exact")

    def recall(n_refine):
        ia, da = nearest_neighbors(X, 10, method="annoy", n_trees=3, search_k=66,
                                   n_refine=n_refine, random_state=1)
        shared = ia == ie
        np.testing.assert_array_equal(da[shared], de[shared])  # same float64 distances
        return np.mean([len(set(a) & set(b)) for a, b in zip(ie, ia)]) / 10

    before, after = recall(0), recall(2)
    assert after > before + 0.1
    assert after >= 0.9


def test_annoy_refinement_follows_fast(monkeypatch):
    """fast=False runs no Cython (the refinement is a twin kernel); both agree."""
    import smallvis
    from smallvis.backends import _kernels
    from smallvis.backends import reference

    X = np.random.default_rng(3).normal(size=(300, 6))
    calls = []

    def spy(module):
        original = module.knn_refine

        def wrapped(*args):
            calls.append(module.__name__)
            return original(*args)
        monkeypatch.setattr(module, "knn_refine", wrapped)

    spy(_kernels)
    spy(reference)
    smallvis.affinities(X, "umap", fast=False, knn_method="annoy", n_trees=2, random_state=5)
    assert calls and set(calls) == {"smallvis.backends.reference"}  # through the method's graph
    calls.clear()
    slow = nearest_neighbors(X, 8, method="annoy", n_trees=2, random_state=5, fast=False)
    assert calls and set(calls) == {"smallvis.backends.reference"}
    calls.clear()
    quick = nearest_neighbors(X, 8, method="annoy", n_trees=2, random_state=5, fast=True)
    assert calls and set(calls) == {"smallvis.backends._kernels"}
    np.testing.assert_array_equal(slow[0], quick[0])
    np.testing.assert_array_equal(slow[1], quick[1])


@pytest.mark.parametrize("chunk", [65536, 2])
def test_lists_found_in_leaf_order_come_back_in_package_order_with_ties_by_index(chunk,
                                                                                  monkeypatch):
    """Position p of the working numbering is row order[p]; equal distances go by index."""
    from smallvis.inputs import neighbors
    from smallvis.inputs.neighbors import KNNIndex
    monkeypatch.setattr(neighbors, "_TIE_CHUNK", chunk)  # 2: ties re-sorted chunk by chunk
    X = np.arange(12.0).reshape(6, 2)
    index = KNNIndex(X, method="annoy", random_state=0)
    order = np.array([5, 3, 1, 0, 2, 4], dtype=np.int64)
    index._leaf_order = order
    # lists in working numbers: position 0 (row 5) has positions 1 and 2
    # (rows 3 and 1) tied, working order putting the larger row first
    indices = np.array([[1, 2, 3], [0, 2, 4], [3, 1, 0], [2, 4, 5], [3, 5, 1], [4, 3, 0]],
                       dtype=np.int32)
    sq_dist = np.array([[1.0, 1.0, 2.0], [1.0, 1.0, 3.0], [1.0, 2.0, 3.0],
                        [1.0, 2.0, 2.0], [1.0, 1.0, 4.0], [1.0, 5.0, 6.0]])
    found, d2 = index._in_package_order(indices, sq_dist)
    assert found.dtype == np.int32
    expected = [[1, 2, 4],   # position 3: rows 1, 2, 4 (2 and 4 tied, in index order)
                [0, 3, 5],   # position 2: no tie, order kept
                [0, 4, 3],   # position 4: rows 4 and 0 tied at 1.0: 0 first
                [1, 5, 2],   # position 1: rows 5 and 1 tied: 1 first
                [2, 0, 5],   # position 5: no tie
                [1, 3, 0]]   # position 0: rows 3 and 1 tied: 1 first
    np.testing.assert_array_equal(found, expected)
    np.testing.assert_array_equal(d2[5], [1.0, 1.0, 2.0])
    np.testing.assert_array_equal(d2[2], [1.0, 1.0, 4.0])
