"""Spectral and Laplacian-eigenmap initialisation from the input graph."""

import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
import smallvis.engines.init
from smallvis import datasets
from smallvis.backends._backend import kernels
from smallvis.inputs.affinities import joint_perplexity, symmetric_knn_graph, fuzzy_graph
from scipy.sparse.linalg import LinearOperator, eigsh

from smallvis.engines.init import SPECTRAL_SCALE, initialize, spectral_layout
from smallvis.inputs.neighbors import nearest_neighbors


def _label_agreement(Y, labels, k=10):
    idx, _ = nearest_neighbors(Y, k, method="exact")
    return (labels[idx] == labels[:, None]).mean()


@pytest.mark.parametrize("init", ["spectral", "laplacian"])
def test_disconnected_graph_warns_and_is_fast(init):
    X, labels = datasets.load("two_clusters")
    P = fuzzy_graph(X, 15, kernels(True))
    t0 = time.perf_counter()
    with pytest.warns(RuntimeWarning, match="2 connected components"):
        Y = initialize(init, X, 2, np.random.default_rng(0), P=P)
    assert time.perf_counter() - t0 < 30  # generous: it must not hang
    assert Y.shape == (200, 2) and np.all(np.isfinite(Y))
    np.testing.assert_allclose(np.abs(Y).max(), SPECTRAL_SCALE)
    # the two blobs do not overlap
    a, b = Y[labels == 0], Y[labels == 1]
    gap = np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)).min()
    assert gap > 0.5 * max(np.ptp(a, axis=0).max(), np.ptp(b, axis=0).max()) / 2


@pytest.mark.parametrize("name, graph, min_agreement", [
    ("iris", "perplexity", 0.85),
    ("iris", "umap", 0.85),
    ("s1k", "ncvis", 0.9),
    ("s1k", "perplexity", 0.7),
])
@pytest.mark.parametrize("init", ["spectral", "laplacian"])
def test_spectral_layout_scale_and_separation(name, graph, min_agreement, init):
    X, labels = datasets.load(name)
    P = {"perplexity": lambda: joint_perplexity(X, 30.0, kernels(True)),
         "umap": lambda: fuzzy_graph(X, 15, kernels(True)),
         "ncvis": lambda: symmetric_knn_graph(X, 15)}[graph]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # kNN graphs may be disconnected
        Y = initialize(init, X, 2, np.random.default_rng(1), P=P)
    assert Y.shape == (len(X), 2) and np.all(np.isfinite(Y))
    np.testing.assert_allclose(np.abs(Y).max(), SPECTRAL_SCALE)
    assert np.all(Y.std(axis=0) > 0.1)
    assert _label_agreement(Y, labels) > min_agreement


def test_spectral_is_an_eigenvector_of_the_normalised_laplacian():
    X, _ = datasets.load("digits")
    P = symmetric_knn_graph(X[:600], 15)
    Y = initialize("spectral", X[:600], 2, np.random.default_rng(0), P=P)
    W = 0.5 * (P + P.T)
    d = np.asarray(W.sum(axis=1)).ravel()
    M = sp.diags(d ** -0.5) @ W @ sp.diags(d ** -0.5)
    for c in range(2):
        u = Y[:, c] / np.linalg.norm(Y[:, c])
        lam = u @ (M @ u)
        np.testing.assert_allclose(M @ u, lam * u, atol=1e-6)
        assert abs(u @ np.sqrt(d)) < 1e-6  # orthogonal to the trivial vector
    # Laplacian eigenmap: generalised problem W v = mu D v
    Y = initialize("laplacian", X[:600], 2, np.random.default_rng(0), P=P)
    for c in range(2):
        v = Y[:, c]
        mu = (v @ (W @ v)) / (v @ (d * v))
        np.testing.assert_allclose(W @ v, mu * d * v, atol=1e-6 * np.abs(d * v).max())


def test_spectral_is_deterministic_for_a_seed():
    X, _ = datasets.load("s1k")
    P = joint_perplexity(X, 30.0, kernels(True))
    a = initialize("spectral", X, 2, np.random.default_rng(5), P=P)
    b = initialize("spectral", X, 2, np.random.default_rng(5), P=P)
    np.testing.assert_array_equal(a, b)


def test_spectral_needs_p():
    X, _ = datasets.load("iris")
    with pytest.raises(ValueError, match="needs the input affinities"):
        initialize("spectral", X, 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match="shape"):
        initialize("spectral", X, 2, np.random.default_rng(0), P=np.eye(3))


def test_embed_with_spectral_init():
    X, _ = datasets.load("iris")
    res = smallvis.embed(X, "tsne", init="spectral", n_iter=5, random_state=0,
                         return_result=True)
    assert np.all(np.isfinite(res.Y))
    assert res.params["init"] == "spectral"


def _weakly_linked_blobs(n_blobs=10, size=200, weight=1e-4, seed=0):
    """UMAP graphs of far-apart Gaussian blobs, chained by one edge of ``weight``."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(10.0 * b, 1.0, (size, 5)) for b in range(n_blobs)])
    P = sp.lil_matrix(fuzzy_graph(X, 15, kernels(True)))
    for b in range(n_blobs - 1):
        P[b * size, (b + 1) * size] = P[(b + 1) * size, b * size] = weight
    return X, np.repeat(np.arange(n_blobs), size), P.tocsr()


@pytest.mark.parametrize("name, graph", [
    ("iris", "perplexity"), ("iris", "umap"), ("digits", "umap"), ("digits", "perplexity"),
    ("s1k", "ncvis"), ("s1k", "umap"),
])
def test_small_graphs_keep_the_precise_first_eigensolve(name, graph, monkeypatch):
    # The first attempt's restart cap (EIGSH_ATTEMPTS) was lowered from 50 to
    # 20 to waste less on graphs that cannot converge; the graphs of the
    # bundled data must still converge on it, so their layouts (and every
    # frozen number built on them) keep the precise eigenvectors.
    X, _ = datasets.load(name)
    P = {"perplexity": lambda: joint_perplexity(X, 30.0, kernels(True)),
         "umap": lambda: fuzzy_graph(X, 15, kernels(True)),
         "ncvis": lambda: symmetric_knn_graph(X, 15)}[graph]()
    first_tol, first_restarts = smallvis.engines.init.EIGSH_ATTEMPTS[0]
    assert first_tol == 1e-8 and first_restarts == 20
    calls = []

    def recording_eigsh(M, **kwargs):
        calls.append(kwargs["tol"])
        return eigsh(M, **kwargs)

    monkeypatch.setattr(smallvis.engines.init, "eigsh", recording_eigsh)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # kNN graphs may be disconnected
        initialize("spectral", X, 2, np.random.default_rng(0), P=P)
    assert calls and set(calls) == {1e-8}


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("init", ["spectral", "laplacian"])
def test_nearly_disconnected_graph_needs_bounded_work(init, seed, monkeypatch):
    # one connected component of ten weakly linked blobs: the ten lowest
    # eigenvalues of the normalised Laplacian lie below 1e-6, the next above
    # 0.1.  ARPACK asked for a relative residual of 1e-8 takes about 68,000
    # products with M on this graph (seed 0); the layout must cost a small
    # fraction of that and still come from the low-frequency subspace.
    X, labels, P = _weakly_linked_blobs(seed=seed)
    products = [0]

    def counting_eigsh(M, **kwargs):
        def matvec(x):
            products[0] += 1
            return M @ x
        return eigsh(LinearOperator(M.shape, matvec=matvec, dtype=M.dtype), **kwargs)

    monkeypatch.setattr(smallvis.engines.init, "eigsh", counting_eigsh)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # connected, and no fallback to PCA
        Y = initialize(init, X, 2, np.random.default_rng(seed), P=P)
    # the first attempt's 20 restarts and the second attempt's products
    assert products[0] < 1200
    np.testing.assert_allclose(np.abs(Y).max(), SPECTRAL_SCALE)
    assert _label_agreement(Y, labels) > 0.95
    W = 0.5 * (P + P.T)
    d = np.asarray(W.sum(axis=1)).ravel()
    U = Y * np.sqrt(d)[:, None] if init == "laplacian" else Y
    U = U / np.linalg.norm(U, axis=0)
    M = sp.diags(d ** -0.5) @ W @ sp.diags(d ** -0.5)
    assert np.all(1.0 - np.einsum("ij,ij->j", U, M @ U) < 1e-5)  # Rayleigh quotients of L


def test_strongest_entries_keeps_each_rows_k_largest_then_symmetrises():
    # checked against a dense construction: row by row, the k largest
    # entries (distinct values, so no ties), then the element-wise maximum
    # with the transpose
    rng = np.random.default_rng(3)
    n, k = 40, 4
    dense = rng.random((n, n)) * (rng.random((n, n)) < 0.4)
    np.fill_diagonal(dense, 0.0)
    dense[7] = 0.0  # an empty row
    dense[8, :2] = [0.5, 0.25]  # a row with fewer than k entries
    dense[8, 2:] = 0.0
    kept = np.zeros_like(dense)
    for i in range(n):
        cols = np.flatnonzero(dense[i])
        top = cols[np.argsort(dense[i, cols])[::-1][:k]]
        kept[i, top] = dense[i, top]
    expected = np.maximum(kept, kept.T)
    P = sp.csr_matrix(dense)
    before = (P.data.copy(), P.indices.copy(), P.indptr.copy())
    W = smallvis.engines.init.strongest_entries(P, k)
    np.testing.assert_array_equal(W.toarray(), expected)
    assert sp.isspmatrix_csr(W)
    for a, b in zip(before, (P.data, P.indices, P.indptr)):  # P itself untouched
        np.testing.assert_array_equal(a, b)


#: Threads and widths of column indices (SciPy's own int32, or int64) the
#: graph kernels' twins are run with.
_THREADS_AND_WIDTHS = [(t, w) for t in (1, 2, 3) for w in (np.int32, np.int64)]


def _reverse_rows(A):
    """Reverse the stored order of each row of the CSR matrix ``A`` in place."""
    for i in range(A.shape[0]):
        lo, hi = A.indptr[i], A.indptr[i + 1]
        A.indices[lo:hi], A.data[lo:hi] = A.indices[lo:hi][::-1].copy(), A.data[lo:hi][::-1].copy()


def _strongest_by_hand(A, k):
    # each row's entries, strongest first: the larger value, then the smaller column
    keep = np.zeros(A.nnz, dtype=np.uint8)
    for i in range(A.shape[0]):
        lo, hi = A.indptr[i], A.indptr[i + 1]
        ranked = sorted(range(lo, hi), key=lambda t: (-A.data[t], A.indices[t]))
        keep[ranked[:k]] = 1
    return keep


@pytest.mark.parametrize("fast", [False, True])
def test_row_strongest_keeps_the_larger_value_then_the_smaller_column(fast):
    # values in quarters (ties everywhere), columns not sorted, an empty row,
    # short rows and one row holding every column; the twins keep the same
    # entries as a sort by hand, on any number of threads, with either width
    # of columns
    rng = np.random.default_rng(8)
    dense = np.round(4.0 * rng.random((200, 200))) / 4.0 * (rng.random((200, 200)) < 0.3)
    dense[3] = 0.0
    dense[4, :2] = [0.5, 0.5]
    dense[4, 2:] = 0.0
    dense[5] = 0.25 + 0.25 * (np.arange(200) % 2)
    A = sp.csr_matrix(dense)
    _reverse_rows(A)  # each row's columns not sorted
    k_mod = kernels(fast)
    for k in (1, 6, 200):
        expected = _strongest_by_hand(A, k)
        for n_threads, columns in _THREADS_AND_WIDTHS:
            keep = np.full(A.nnz, 7, dtype=np.uint8)
            k_mod.row_strongest(A.indptr.astype(np.int64), A.indices.astype(columns),
                                A.data, k, keep, n_threads)
            np.testing.assert_array_equal(keep, expected)


def test_strongest_entries_sum_duplicates_of_a_copy():
    # a P with two stored entries at one place is read as their sum, and the
    # caller's P keeps its arrays
    P = sp.csr_matrix((np.array([1.0, 2.0, 2.5, 1.0, 1.0]), np.array([1, 2, 2, 0, 0]),
                       np.array([0, 3, 5, 5])), shape=(3, 3))
    before = (P.data.copy(), P.indices.copy(), P.indptr.copy())
    W = smallvis.engines.init.strongest_entries(P, 1).toarray()
    np.testing.assert_array_equal(W, [[0.0, 2.0, 4.5], [2.0, 0.0, 0.0], [4.5, 0.0, 0.0]])
    for a, b in zip(before, (P.data, P.indices, P.indptr)):
        np.testing.assert_array_equal(a, b)


def test_largevis_stochastic_default_start_is_spectral_on_30_strongest_entries():
    # the default start of the stochastic largevis (registry) is the named
    # init "spectral:30", the graph of each row's 30 largest entries of P;
    # an init the user names "spectral", and the exact optimizer's default,
    # use all of P
    from smallvis.engines.init import init_affinities
    from smallvis.plans import make_plan
    from smallvis.registry import METHODS

    X = datasets.load("s1k")[0]
    n = X.shape[0]
    m = METHODS["largevis"]
    P = smallvis.affinities(X, "largevis", perplexity=10)
    common = dict(learning_rate=None, n_epochs=None, gradient="auto", n_components=2,
                  n_iter=1000, exaggeration=None, exaggeration_iter=250,
                  late_exaggeration=1.0, late_exaggeration_iter=None, momentum=0.5,
                  final_momentum=0.8, momentum_switch_iter=250, min_gain=0.01, tol=1e-7,
                  cost_every=50)
    plan = make_plan(m, n, "sgd", {"perplexity": 10}, init=None, **common)
    assert plan.init == "spectral:30"
    W = init_affinities(plan.init, P, n)
    assert W.nnz < P.nnz
    np.testing.assert_array_equal(
        W.toarray(), smallvis.engines.init.strongest_entries(P, 30).toarray())
    named = make_plan(m, n, "sgd", {"perplexity": 10}, init="spectral", **common)
    assert init_affinities(named.init, P, n) is P
    exact = make_plan(m, n, "exact", {"perplexity": 10}, init=None, **common)
    assert init_affinities(exact.init, P, n) is P


def test_a_split_start_graph_is_named_in_the_warning():
    # 40 blobs: largevis's P (150 neighbours, perplexity 50) may link them,
    # the start's graph of 30 strongest entries does not; the warning must
    # say which graph is in pieces, and name P itself when the start used it
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(size=(40, 10)) + 30 * rng.normal(size=10)
                        for _ in range(40)])
    for init, named in ((None, "30 strongest entries of P"), ("spectral", "the affinity graph")):
        with pytest.warns(RuntimeWarning, match="connected components") as record:
            smallvis.embed(X, "largevis", optimizer="sgd", n_epochs=2, init=init,
                           perplexity=10, fast=True)
        message = next(str(w.message) for w in record if "connected" in str(w.message))
        assert named in message


def test_strongest_entries_on_threads_equals_the_reference():
    P = sp.random(300, 300, density=0.2, random_state=6, format="csr")
    one = smallvis.engines.init.strongest_entries(P, 6)
    for n_threads in (1, 2, 3):
        many = smallvis.engines.init.strongest_entries(P, 6, n_threads, kernels(True))
        np.testing.assert_array_equal(many.toarray(), one.toarray())


def _sequential_matvec(A, x):
    # each row's terms added one after another, in stored order, from 0.0
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        s = 0.0
        for t in range(A.indptr[i], A.indptr[i + 1]):
            s = s + A.data[t] * x[A.indices[t]]
        out[i] = s
    return out


@pytest.mark.parametrize("fast", [False, True])
def test_csr_matvec_adds_each_rows_terms_in_stored_order(fast):
    # the order is the contract (the eigensolver amplifies a last-bit
    # difference into another start): both twins, on any number of threads
    # and with columns of either width, give the bits of a plain row-by-row loop, on a matrix with empty rows,
    # unsorted columns and terms of very different sizes
    rng = np.random.default_rng(11)
    dense = sp.random(120, 90, density=0.15, random_state=12).toarray()
    dense[5] = 0.0
    A = sp.csr_matrix(dense)
    A.data *= 10.0 ** rng.integers(-8, 9, size=A.nnz)
    A.data[::3] *= -1.0
    _reverse_rows(A)  # each row's columns not sorted
    x = rng.normal(size=90) * 10.0 ** rng.integers(-5, 6, size=90)
    expected = _sequential_matvec(A, x)
    k = kernels(fast)
    for n_threads, columns in _THREADS_AND_WIDTHS:
        out = np.full(120, np.nan)
        k.csr_matvec(A.indptr.astype(np.int64), A.indices.astype(columns), A.data, x, out,
                     n_threads)
        np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("fast", [False, True])
def test_graph_kernels_refuse_arrays_that_do_not_fit(fast):
    k = kernels(fast)
    indptr, indices, data = np.array([0, 1, 2]), np.array([0, 1]), np.ones(2)
    with pytest.raises(ValueError, match="indptr must have len"):
        k.csr_matvec(indptr, indices, data, np.ones(2), np.empty(3), 1)
    with pytest.raises(ValueError, match="one per stored entry"):
        k.csr_matvec(indptr, indices, np.ones(3), np.ones(2), np.empty(2), 1)
    with pytest.raises(ValueError, match="k must be at least 1"):
        k.row_strongest(indptr, indices, data, 0, np.empty(2, np.uint8), 1)
    with pytest.raises(ValueError, match="one entry per stored entry"):
        k.row_strongest(indptr, indices, data, 1, np.empty(3, np.uint8), 1)


@pytest.mark.filterwarnings("ignore:the graph of each point's 10 strongest entries")
@pytest.mark.parametrize("init", ["spectral", "spectral:10"])
def test_spectral_start_has_the_same_bits_on_threads_and_either_product(init):
    # ARPACK multiplies by the compiled product on two threads, by SciPy's
    # on one: the start must not change in its last bit (it would draw
    # another map); "spectral:10" splits s1k's graph into components,
    # each laid out on its own
    X, _ = datasets.load("s1k")
    P = joint_perplexity(X, 30, kernels(True))
    rng = lambda: np.random.default_rng(4)  # noqa: E731
    base = initialize(init, X, 2, rng(), P=P)
    for fast in (False, True):
        for n_threads in (1, 2):
            Y = initialize(init, X, 2, rng(), P=P, kernels=kernels(fast), n_threads=n_threads)
            np.testing.assert_array_equal(Y, base)


def _strongest_of_a_knn_p(n=400, seed=0):
    from smallvis.engines import init as init_engine

    X = np.random.default_rng(seed).normal(size=(n, 6))
    P = smallvis.affinities(X, "largevis")
    return P, init_engine.strongest_entries(P, 30)


def test_the_strongest_graph_skips_the_symmetrisation_with_the_same_bits():
    """_graph of a strongest-entries graph is the graph itself: returned without copies."""
    from smallvis.engines import init as init_engine

    _, A = _strongest_of_a_knn_p()
    expected = init_engine._graph(A.copy())
    got = init_engine._strongest_graph(A)
    assert got is A
    for a, b in ((expected.indptr, got.indptr), (expected.indices, got.indices),
                 (expected.data, got.data)):
        np.testing.assert_array_equal(a, b)
    with_diagonal = A + sp.eye(A.shape[0], format="csr")  # falls back to _graph
    assert init_engine._strongest_graph(with_diagonal).diagonal().max() == 0


def test_both_sides_scaling_is_scipy_s_product_bit_for_bit():
    from smallvis.engines import init as init_engine

    P, W = _strongest_of_a_knn_p(seed=1)
    for G in (W, P):
        d = 1.0 / np.sqrt(np.asarray(G.sum(axis=1)).ravel())
        expected = sp.csr_matrix(sp.diags(d) @ G @ sp.diags(d))
        got = init_engine._scaled_both_sides(G, d)
        for a, b in ((expected.indptr, got.indptr), (expected.indices, got.indices),
                     (expected.data, got.data)):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("cap, tolerances", [(149, [1e-4]), (150, [1e-8])])
def test_a_graph_above_the_cap_asks_for_the_loose_tolerance_only(cap, tolerances, monkeypatch):
    # Above EIGSH_PRECISE_MAX_N points (10,000) the precise attempt is
    # skipped: one call at umap-learn's 1e-4.  The cap is lowered around
    # iris's 150 points to see both sides on a graph that converges at 1e-8.
    assert smallvis.engines.init.EIGSH_PRECISE_MAX_N == 10_000
    X, _ = datasets.load("iris")
    P = fuzzy_graph(X, 15, kernels(True))
    calls = []

    def recording_eigsh(M, **kwargs):
        calls.append(kwargs["tol"])
        return eigsh(M, **kwargs)

    monkeypatch.setattr(smallvis.engines.init, "EIGSH_PRECISE_MAX_N", cap)
    monkeypatch.setattr(smallvis.engines.init, "eigsh", recording_eigsh)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        Y1 = spectral_layout(P, 2, np.random.default_rng(0))
        Y2 = spectral_layout(P, 2, np.random.default_rng(0))
    assert calls == tolerances * 2
    assert np.all(np.isfinite(Y1)) and np.array_equal(Y1, Y2)
