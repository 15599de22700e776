"""The kNN graph pipeline at scale: candidates, calibration blocks, symmetric union.

Each kernel is compared with its NumPy twin (bitwise where the arithmetic is
the same), with an independent computation, and across thread counts.
"""

import importlib

import numpy as np
import pytest
import scipy.sparse as sp

from smallvis import _threads

from smallvis.backends import _kernels

from smallvis.backends import reference

from smallvis.inputs import annoy_forest
from smallvis._numeric import tie_key
from smallvis.inputs.neighbors import knn_graph, nearest_neighbors

aff = importlib.import_module("smallvis.inputs.affinities")


def _clusters(n, dim=8, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 3.0, size=(6, dim))
    return centres[np.arange(n) % 6] + rng.standard_normal((n, dim))


def _recall(exact, approx):
    k = exact.shape[1]
    return np.mean([len(np.intersect1d(a, b)) for a, b in zip(exact, approx)]) / k


# ---------------------------------------------------------------------------
# knn_candidates
# ---------------------------------------------------------------------------


def _candidate_lists(n, m, seed):
    """Random candidate rows with the point itself, repeats and -1 padding."""
    rng = np.random.default_rng(seed)
    cand = rng.integers(-1, n, size=(n, m)).astype(np.int32)
    cand[:, 0] = np.arange(n)  # the point itself
    cand[:, 1] = cand[:, 2]  # a repeat
    return cand


@pytest.mark.parametrize("k", [1, 4, 9])
def test_knn_candidates_twins_agree_bitwise(k):
    X = _clusters(200)
    X[50] = X[51]  # a duplicate: a neighbour at distance 0
    cand = _candidate_lists(200, 12, seed=k)
    outs = []
    for module in (reference, _kernels):
        idx = np.empty((200, k), dtype=np.int32)
        d2 = np.empty((200, k))
        short = module.knn_candidates(X, cand, idx, d2, 1)
        outs.append((short, idx, d2))
    assert outs[0][0] == outs[1][0]
    np.testing.assert_array_equal(outs[0][1], outs[1][1])
    np.testing.assert_array_equal(outs[0][2], outs[1][2])


def test_knn_candidates_against_a_direct_computation():
    X = _clusters(150)
    cand = _candidate_lists(150, 10, seed=1)
    k = 5
    idx = np.empty((150, k), dtype=np.int32)
    d2 = np.empty((150, k))
    short = _kernels.knn_candidates(X, cand, idx, d2, 3)
    n_short = 0
    for i in range(150):
        valid = sorted({int(c) for c in cand[i] if c >= 0 and c != i},
                       key=lambda c: (tie_key(np.sum((X[c] - X[i]) ** 2)), c))
        n_short += len(valid) < k
        got = [c for c in idx[i] if c >= 0]
        assert got == valid[:k]
        assert np.all(idx[i, len(got):] == -1) and np.all(np.isinf(d2[i, len(got):]))
        np.testing.assert_allclose(d2[i, :len(got)], [np.sum((X[c] - X[i]) ** 2) for c in got],
                                   rtol=1e-13)
    assert short == n_short


# ---------------------------------------------------------------------------
# perplexity_rows: blocks and threads
# ---------------------------------------------------------------------------


def test_perplexity_rows_restarts_every_block_in_both_twins():
    """Rows past CALIBRATION_BLOCK restart the chain: twins agree, any thread count."""
    rng = np.random.default_rng(2)
    n, m = reference.CALIBRATION_BLOCK + 300, 12
    D2 = rng.gamma(2.0, 1.0, size=(n, m))
    D2[reference.CALIBRATION_BLOCK] *= 1e4  # a far block start: its own initial guess
    results = {}
    for name, module, threads in (("numpy", reference, 1), ("cython1", _kernels, 1),
                                  ("cython2", _kernels, 2), ("cython3", _kernels, 3)):
        P = np.zeros_like(D2)
        beta = np.zeros(n)
        failed = module.perplexity_rows(D2, 5.0, 1e-5, 50, P, beta, threads)
        results[name] = (failed, P, beta)
    for name in ("cython2", "cython3"):  # the block split makes threads bitwise equal
        assert results[name][0] == results["cython1"][0]
        np.testing.assert_array_equal(results[name][1], results["cython1"][1])
        np.testing.assert_array_equal(results[name][2], results["cython1"][2])
    np.testing.assert_allclose(results["cython1"][1], results["numpy"][1], rtol=1e-10,
                               atol=1e-15)
    np.testing.assert_allclose(results["cython1"][2], results["numpy"][2], rtol=1e-10)
    H = -np.sum(np.where(results["cython1"][1] > 0,
                         results["cython1"][1] * np.log(results["cython1"][1]), 0.0), axis=1)
    np.testing.assert_allclose(H, np.log(5.0), atol=1e-5)


# ---------------------------------------------------------------------------
# knn_union_count / knn_union_fill, symmetric_union
# ---------------------------------------------------------------------------


def _graph(n, k, seed, zeros=True):
    rng = np.random.default_rng(seed)
    idx = np.array([rng.choice(np.delete(np.arange(n), i), k, replace=False)
                    for i in range(n)], dtype=np.int32)
    val = rng.random((n, k))
    if zeros:
        val[rng.random((n, k)) < 0.1] = 0.0  # dropped edges
    return idx, val


@pytest.mark.parametrize("n, k", [(1, 1), (30, 4), (200, 15)])
def test_reverse_lists_twins_agree(n, k):
    """The sources of each point's incoming positive edges, ascending, as flat positions."""
    idx, val = (np.zeros((1, 1), dtype=np.int32), np.ones((1, 1))) if n == 1 \
        else _graph(n, k, seed=n + 2)
    got = []
    for module in (reference, _kernels):
        rptr, rsrc = np.empty(n + 1, dtype=np.int64), np.full(n * k, -1, dtype=np.int32)
        module.knn_reverse_lists(idx, val, rptr, rsrc)
        got.append((rptr, rsrc[:rptr[-1]]))
    np.testing.assert_array_equal(got[0][0], got[1][0])
    np.testing.assert_array_equal(got[0][1], got[1][1])
    rptr, rsrc = got[0]
    for j in range(n):  # by definition
        sources = rsrc[rptr[j]:rptr[j + 1]]
        expected = [i * k + r for i in range(n) for r in range(k)
                    if idx[i, r] == j and val[i, r] > 0]
        np.testing.assert_array_equal(sources, expected)


def _union_with(module, idx, val, threads=1):
    n = len(idx)
    counts = np.empty(n, dtype=np.int64)
    module.knn_union_count(idx, val, counts, threads)
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    out_i = np.empty(indptr[-1], dtype=np.int32)
    out_d = np.empty(indptr[-1])
    module.knn_union_fill(idx, val, indptr, out_i, out_d, threads)
    return indptr, out_i, out_d


@pytest.mark.parametrize("n, k", [(2, 1), (30, 4), (200, 15)])
def test_union_twins_agree_bitwise_and_on_any_thread_count(n, k):
    idx, val = _graph(n, k, seed=n)
    ref = _union_with(reference, idx, val)
    for threads in (1, 2, 3):
        fast = _union_with(_kernels, idx, val, threads)
        for a, b in zip(ref, fast):
            np.testing.assert_array_equal(a, b)


def _staged_union(module, idx, val, threads=1, block=None):
    """The union by the three-step kernels (reverse entries, slots in place, merge)."""
    n, k = idx.shape
    val = val.copy()
    rptr, rsrc = np.empty(n + 1, dtype=np.int64), np.empty(max(1, n * k), dtype=np.int32)
    module.knn_reverse_lists(idx, val, rptr, rsrc)
    rev_counts = np.empty(n, dtype=np.int64)
    module.knn_union_reverse_count(idx, val, rptr, rsrc, rev_counts, threads)
    counts = rev_counts + np.count_nonzero(val > 0, axis=1)
    rev_ptr = np.concatenate([[0], np.cumsum(rev_counts)]).astype(np.int64)
    rev_i, rev_d = np.empty(rev_ptr[-1], dtype=np.int32), np.empty(rev_ptr[-1])
    module.knn_union_reverse_fill(idx, val, rptr, rsrc, rev_ptr, rev_i, rev_d, threads)
    module.knn_union_forward(idx, val, rptr, rsrc, threads)
    assert np.all((val >= 0) | (val == reference.UNION_DROPPED))
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    out_i, out_d = np.empty(indptr[-1], dtype=np.int32), np.empty(indptr[-1])
    block = block or max(n, 1)
    for start in range(0, n, block):
        module.knn_union_merge(idx, val, rev_ptr, rev_i, rev_d, indptr, out_i, out_d, threads,
                               start, min(n, start + block))
    return indptr, out_i, out_d


@pytest.mark.parametrize("n, k", [(2, 1), (30, 4), (200, 15)])
def test_three_step_union_is_the_one_step_union_bit_for_bit(n, k):
    """Twins, thread counts and blocks of rows: the entries of knn_union_fill, in its order.

    Among the values are zeros (dropped), subnormals (whose halves round
    to 0 but stay entries) and pairs stored both ways.
    """
    idx, val = _graph(n, k, seed=n + 1)
    val[:, -1] = 5e-324  # the smallest subnormal: 0.5 * it is 0
    expected = _union_with(reference, idx, val)
    assert n < 30 or np.any(expected[2] == 0.0)
    for module in (reference, _kernels):
        for threads in (1, 2, 3):
            for block in (None, 7):
                got = _staged_union(module, idx, val, threads, block)
                for a, b in zip(expected, got):
                    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("module", [reference, _kernels], ids=["numpy", "cython"])
def test_symmetric_union_consuming_its_values_gives_the_same_matrix(module, monkeypatch):
    monkeypatch.setattr(aff, "UNION_MERGE_ROWS", 16)  # several blocks, several releases
    idx, val = _graph(300, 12, seed=9)
    S = aff.symmetric_union(idx, val, module, 2)
    given = val.copy()
    T = aff.symmetric_union(idx, given, module, 2, consume_values=True)
    for a, b in ((S.indptr, T.indptr), (S.indices, T.indices), (S.data, T.data)):
        np.testing.assert_array_equal(a, b)
    assert T.has_sorted_indices and not np.array_equal(given, val)  # consumed, as documented


def test_union_is_half_of_a_plus_its_transpose():
    """Against a dense computation: symmetric, sorted, zeros dropped."""
    n, k = 60, 7
    idx, val = _graph(n, k, seed=4)
    A = np.zeros((n, n))
    A[np.repeat(np.arange(n), k), idx.ravel()] = val.ravel()
    S = aff.symmetric_union(idx, val, _kernels, 2)
    assert S.indices.dtype == np.int32 and S.has_sorted_indices
    np.testing.assert_array_equal(S.toarray(), 0.5 * (A + A.T))
    assert S.nnz == np.count_nonzero(A + A.T)
    for i in range(n):
        row = S.indices[S.indptr[i]:S.indptr[i + 1]]
        assert np.all(np.diff(row) > 0)


def test_joint_perplexity_knn_equals_the_scipy_construction(fast):
    """The union kernels give bit for bit SciPy's normalize(symmetrize(P))."""
    from smallvis.backends._backend import kernels

    X = _clusters(300, seed=3)
    kern = kernels(fast)
    P, _ = aff.conditional_perplexity_knn(X, 10.0, kern, n_neighbors=30)
    expected = aff.normalize(aff.symmetrize(P)).tocsr()
    expected.sort_indices()
    J = aff.joint_perplexity_knn(X, 10.0, kern, n_neighbors=30)
    np.testing.assert_array_equal(J.indptr, expected.indptr)
    np.testing.assert_array_equal(J.indices, expected.indices)
    np.testing.assert_array_equal(J.data, expected.data)


def test_joint_perplexity_knn_rejects_unknown_keywords():
    with pytest.raises(TypeError, match="n_neigbors"):
        aff.joint_perplexity_knn(_clusters(50), 5.0, _kernels, n_neigbors=10)


# ---------------------------------------------------------------------------
# the whole search: recall, determinism, dtypes
# ---------------------------------------------------------------------------


def test_knn_graph_recall_and_determinism():
    X = _clusters(6000, dim=20, seed=5)
    exact, exact_d = knn_graph(X, 30, method="exact")
    a = knn_graph(X, 30, method="annoy", random_state=3, fast=True)
    b = knn_graph(X, 30, method="annoy", random_state=3, fast=True)
    two = knn_graph(X, 30, method="annoy", random_state=3, n_threads=2, fast=True)
    assert a[0].dtype == np.int32 and exact.dtype == np.int32
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    # the forest is built on one thread; the queries, candidates and
    # refinement do not depend on the number of threads
    np.testing.assert_array_equal(two[0], a[0])
    np.testing.assert_array_equal(two[1], a[1])
    assert _recall(exact, a[0]) >= 0.99
    shared = a[0] == exact
    np.testing.assert_array_equal(a[1][shared], exact_d[shared])


@pytest.mark.parametrize("search_k", [None, 4])
def test_annoy_queries_on_threads_give_the_one_thread_graph(monkeypatch, search_k):
    """Threaded queries (forced on small data, many small chunks) change nothing.

    ``search_k=4`` leaves Annoy short of ``k + 1`` candidates on some rows
    (padded with -1), the rarer path of the chunk conversion.
    """
    X = _clusters(700, dim=6, seed=8)
    one = knn_graph(X, 10, method="annoy", n_trees=2, search_k=search_k, n_refine=0,
                    random_state=4, fast=True)
    monkeypatch.setattr(annoy_forest._threads, "ANNOY_MIN_NODES", 0)
    monkeypatch.setattr(annoy_forest, "_QUERY_CHUNK", 37)
    used, short = [], []
    real_query = annoy_forest._query

    def spy(index, cand, k, threads):
        used.append(threads)
        real_query(index, cand, k, threads)
        short.append(bool((cand < 0).any()))
    monkeypatch.setattr(annoy_forest, "_query", spy)
    two = knn_graph(X, 10, method="annoy", n_trees=2, search_k=search_k, n_refine=0,
                    random_state=4, n_threads=2, fast=True)
    assert used == [2]
    assert short == [search_k is not None]
    np.testing.assert_array_equal(two[0], one[0])
    np.testing.assert_array_equal(two[1], one[1])


def test_annoy_query_threads_crossover():
    m = _threads.ANNOY_MIN_NODES
    assert _threads.annoy_query_threads(2, m // 100, 100) == 2
    assert _threads.annoy_query_threads(2, m // 100 - 1, 100) == 1
    assert _threads.annoy_query_threads(1, 10 * m, 100) == 1


def test_knn_graph_twins_agree_on_the_annoy_path():
    X = _clusters(500, seed=6)
    slow = knn_graph(X, 12, method="annoy", n_trees=2, random_state=1, fast=False)
    quick = knn_graph(X, 12, method="annoy", n_trees=2, random_state=1, fast=True)
    np.testing.assert_array_equal(slow[0], quick[0])
    np.testing.assert_array_equal(slow[1], quick[1])
    public = nearest_neighbors(X, 12, method="annoy", n_trees=2, random_state=1)
    assert public[0].dtype == np.int64
    np.testing.assert_array_equal(public[0], quick[0])


def test_n_explore_is_checked():
    with pytest.raises(ValueError, match="n_explore"):
        nearest_neighbors(_clusters(50), 5, method="annoy", n_explore=0)


def test_joint_perplexity_knn_is_a_probability_matrix():
    X = _clusters(5000, dim=10, seed=7)
    J = aff.joint_perplexity_knn(X, 10.0, _kernels, knn_method="annoy", random_state=0,
                                 n_threads=2)
    assert sp.isspmatrix_csr(J)
    assert abs(J.sum() - 1.0) < 1e-12
    assert abs(J - J.T).max() == 0.0
