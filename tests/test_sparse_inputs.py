"""Sparse X (scipy.sparse) on every path, measured exactly, never densified."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist

import smallvis
from smallvis.backends import _kernels, reference
from smallvis.inputs import sparse_search
from smallvis.inputs.neighbors import KNNIndex, knn_graph

from conftest import LONG_TESTS


def _one_method_per_way_of_building_p():
    """Every method with SMALLVIS_LONG_TESTS=1; else the first of each way of building P.

    Methods that share the function building their P (``build_affinities``)
    and its parameters with their defaults compute the same P by the same
    code from the same distances, so one of them checks the others' path;
    a method with a builder or a default of its own joins the list.
    """
    if LONG_TESTS:
        return smallvis.list_methods()
    first = {}
    for name, m in smallvis.METHODS.items():
        key = (m.build_affinities, repr(sorted(m.affinity_params.items())))
        first.setdefault(key, name)
    return list(first.values())


def _text(n, d=400, topics=5, seed=0):
    """Topic-structured counts, TF-IDF weighted: short documents over a vocabulary."""
    rng = np.random.default_rng(seed)
    word_p = rng.dirichlet(np.full(d, 0.1), size=topics)
    labels = rng.integers(topics, size=n)
    rows, cols = [], []
    for i in range(n):
        words = rng.choice(d, size=rng.poisson(25) + 3, p=0.8 * word_p[labels[i]] + 0.2 / d)
        rows += [i] * len(words)
        cols += list(words)
    X = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, d))
    X.sum_duplicates()
    idf = np.log((1 + n) / (1 + np.bincount(X.indices, minlength=d))) + 1
    return sp.csr_matrix(X @ sp.diags(idf)), labels


FORMATS = [sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array, sp.coo_array]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_exact_sparse_neighbours_have_scipys_distances(fmt, metric):
    X, _ = _text(300, seed=1)
    idx, dist = knn_graph(fmt(X), 10, method="exact", metric=metric)
    D = cdist(X.toarray(), X.toarray(), metric)
    np.testing.assert_allclose(dist, np.take_along_axis(D, idx.astype(np.int64), 1),
                               rtol=1e-12, atol=1e-14)
    np.fill_diagonal(D, np.inf)
    np.testing.assert_allclose(dist, np.sort(D, axis=1)[:, :10], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_sparse_and_dense_x_give_the_same_p(metric):
    # the NumPy search of sparse X takes each pair in Python: the 40 documents
    # of _small_text (perplexity 5), whose sparse P the units check below
    # reads too (computed once), by default; 200 (the defaults) with
    # SMALLVIS_LONG_TESTS=1
    X = _text(200, seed=2)[0] if LONG_TESTS else _small_text()
    for method in _one_method_per_way_of_building_p():
        kw = ({"perplexity": 5.0} if not LONG_TESTS
              and "perplexity" in smallvis.METHODS[method].affinity_params else {})
        P = (smallvis.affinities(X, method, metric=metric, **kw) if LONG_TESTS
             else _small_text_p(method, metric))
        Q = smallvis.affinities(X.toarray(), method, metric=metric, **kw)
        P = P.toarray() if sp.issparse(P) else P
        Q = Q.toarray() if sp.issparse(Q) else Q
        np.testing.assert_allclose(P, Q, rtol=1e-9, atol=1e-15, err_msg=method)


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_the_projected_search_finds_most_exact_neighbours(metric):
    # 400 documents: knn_method="annoy" searches the projection at any size
    X, _ = _text(400, seed=3)
    approx = knn_graph(X, 10, method="annoy", metric=metric, random_state=0, fast=True)
    D = cdist(X.toarray(), X.toarray(), metric)
    # exact distances for what it found, and most of the true neighbours:
    # SciPy's tenth-nearest distance of each row, the row itself left out
    np.testing.assert_allclose(approx[1], np.take_along_axis(D, approx[0].astype(np.int64), 1),
                               rtol=1e-12, atol=1e-14)
    np.fill_diagonal(D, np.inf)
    kth = np.sort(D, axis=1)[:, 9:10]
    assert np.mean(approx[1] <= kth * (1 + 1e-12)) >= 0.9


#: (n, d, topics, k, metric) of the recall check above the exact limit: the
#: cosine case always; the Euclidean one on a wider vocabulary (four times
#: the search's time) with SMALLVIS_LONG_TESTS=1, beside the Euclidean
#: projected search that test_the_projected_search_finds_most_exact_neighbours
#: always checks
APPROXIMATE_CASES = [(1200, 300, 4, 10, "cosine")] + (
    [(1000, 1000, 10, 15, "euclidean")] if LONG_TESTS else [])


@pytest.mark.parametrize("n,d,topics,k,metric", APPROXIMATE_CASES)
def test_the_approximate_path_above_the_exact_limit_reaches_recall_098(n, d, topics, k, metric,
                                                                         monkeypatch):
    """``method="auto"`` above SPARSE_EXACT_MAX_N (lowered here) searches the projection."""
    monkeypatch.setattr(sparse_search, "SPARSE_EXACT_MAX_N", 500)
    monkeypatch.setattr(sparse_search, "SPARSE_EXACT_MAX_COST", 0.0)
    X, _ = _text(n, d=d, topics=topics, seed=3)
    index = KNNIndex(X, metric=metric, random_state=0, fast=True)
    assert index.method == "annoy"
    idx, dist = index.neighbors(k)
    D = cdist(X.toarray(), X.toarray(), metric)
    np.fill_diagonal(D, np.inf)
    kth = np.sort(D, axis=1)[:, k - 1:k]
    assert np.mean(dist <= kth * (1 + 1e-12)) >= 0.98


def test_sparse_pair_kernel_twins_agree_bitwise():
    X, _ = _text(120, seed=4)
    X = sp.vstack([X, X[:3]], format="csr")  # duplicates: at exactly 0
    X.sort_indices()
    arrays = (X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data)
    rng = np.random.default_rng(0)
    rows, cols = rng.integers(0, 123, 2000), rng.integers(0, 123, 2000)
    rows[:3], cols[:3] = [0, 1, 2], [120, 121, 122]
    outs = []
    for module in (reference, _kernels):
        out = np.empty(2000)
        module.sparse_pair_sq_distances(*arrays, rows, cols, out, 2)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])
    assert np.all(outs[0][:3] == 0.0)
    D = X.toarray()
    np.testing.assert_allclose(outs[0], ((D[rows] - D[cols]) ** 2).sum(axis=1), rtol=1e-13)


@pytest.mark.parametrize("method", ["exact", "annoy"])
def test_transform_of_a_sparse_fit_takes_sparse_or_dense_new_points(method):
    # (250 training documents: knn_method="annoy" searches the forest at any size)
    X, _ = _text(300, seed=5)
    # 250 points run the exact optimizer: n_iter, not n_epochs, keeps the fit short
    model = smallvis.Embedding("umap", random_state=0, n_iter=30,
                               method_params={"metric": "cosine", "knn_method": method})
    model.fit(X[:250])
    placed = model.transform(X[250:])
    np.testing.assert_array_equal(model.transform(X[250:].toarray()), placed)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).transform(X[250:]), placed)
    # the new points' neighbours are those of the exact search
    ref_idx = KNNIndex(X[:250], method="exact", metric="cosine").query(X[250:], 8)
    got = model.training_map_.neighbors(X[250:], 8)
    assert np.mean(got[1] <= ref_idx[1][:, -1:] * (1 + 1e-12)) >= 0.9


def test_sparse_refusals_name_what_is_allowed():
    X, _ = _text(100, seed=6)
    with pytest.raises(ValueError, match="sparse X takes metric in 'euclidean', 'cosine'"):
        smallvis.embed(X, "umap", metric="manhattan")
    bad = X.copy()
    bad.data[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        smallvis.embed(bad, "umap")
    empty = sp.vstack([X[:50], sp.csr_matrix((1, 400)), X[50:]], format="csr")
    with pytest.raises(ValueError, match=r"1 row.*all zeros \(first: row 50\).*drop them "
                                         r"\(of a CSR X, keep the rows where np.diff\(X.indptr\) "
                                         r"> 0\): under another metric"):
        smallvis.embed(empty, "umap", metric="cosine")
    dense_model = smallvis.Embedding("umap", random_state=0, n_iter=10).fit(X.toarray())
    with pytest.raises(TypeError, match="fitted on dense data"):
        dense_model.transform(X[:5])


def test_the_cli_reads_a_sparse_npz(tmp_path):
    from smallvis.cli import main

    X, _ = _text(150, seed=7)
    sp.save_npz(tmp_path / "x.npz", X)
    code = main(["embed", str(tmp_path / "x.npz"), "--method", "umap", "--metric", "cosine",
                 "--random-state", "2", "--out", str(tmp_path / "y.csv"), "--quiet"])
    assert code in (0, None)
    Y = np.loadtxt(tmp_path / "y.csv", delimiter=",", skiprows=1)
    np.testing.assert_allclose(Y, smallvis.embed(X, "umap", metric="cosine", random_state=2),
                               rtol=1e-12, atol=1e-12)


def test_the_cli_colours_a_sparse_npz_by_a_labels_file(tmp_path):
    """--labels FILE with a sparse .npz: embed and transform, and a wrong count refused."""
    from smallvis.cli import main

    X, _ = _text(180, seed=9)
    sp.save_npz(tmp_path / "x.npz", X[:150])
    sp.save_npz(tmp_path / "new.npz", X[150:])
    np.save(tmp_path / "labels.npy", np.arange(150) % 3)
    (tmp_path / "new_labels.txt").write_text("".join(f"{i % 3}\n" for i in range(30)))
    assert main(["embed", str(tmp_path / "x.npz"), "--method", "umap", "--metric", "cosine",
                 "--labels", str(tmp_path / "labels.npy"), "--out", str(tmp_path / "y.csv"),
                 "--plot", str(tmp_path / "y.png"), "--save-model", str(tmp_path / "m.npz"),
                 "--quiet"]) in (0, None)
    assert (tmp_path / "y.png").stat().st_size > 0
    assert main(["transform", str(tmp_path / "new.npz"), "--model", str(tmp_path / "m.npz"),
                 "--labels", str(tmp_path / "new_labels.txt"), "--out", str(tmp_path / "t.csv"),
                 "--plot", str(tmp_path / "t.png"), "--quiet"]) in (0, None)
    assert np.loadtxt(tmp_path / "t.csv", delimiter=",", skiprows=1).shape == (30, 2)
    assert (tmp_path / "t.png").stat().st_size > 0
    assert main(["embed", str(tmp_path / "new.npz"), "--method", "umap", "--metric", "cosine",
                 "--labels", str(tmp_path / "labels.npy"), "--out", str(tmp_path / "z.csv"),
                 "--quiet"]) == 2
    assert not (tmp_path / "z.csv").exists()


def test_no_dense_copy_of_the_data(monkeypatch):
    """The sparse search never asks SciPy for X as a dense array."""
    # a wide vocabulary, where a dense copy would be large; 300 rows take the
    # same path as more (the refusal fires at the first dense copy)
    X, _ = _text(300, d=5000, seed=8)

    def refuse(self, *args, **kwargs):
        raise AssertionError("a dense copy of X was made")

    monkeypatch.setattr(sp.csr_matrix, "toarray", refuse)
    monkeypatch.setattr(sp.csr_matrix, "todense", refuse)
    knn_graph(X, 10, method="annoy", metric="cosine", random_state=0, fast=True)
    sparse_search.check_sparse_data(X)


def _kernel_arrays(X):
    X = sp.csr_matrix(X)
    X.sort_indices()
    C = X.tocsc()
    C.sort_indices()
    as64 = lambda a: np.ascontiguousarray(a, dtype=np.int64)
    return (as64(X.indptr), as64(X.indices), X.data, as64(C.indptr), as64(C.indices), C.data)


def test_sparse_row_dots_twins_agree_bitwise():
    X, _ = _text(150, seed=9)
    X = sp.vstack([X, X[:2], sp.csr_matrix((1, 400))], format="csr")  # duplicates, an empty row
    arrays = _kernel_arrays(X)
    rows = np.array([0, 5, 150, 151, 152, 7, 7], dtype=np.int64)
    outs = []
    for module in (reference, _kernels):
        out = np.full((len(rows), X.shape[0]), np.nan)
        module.sparse_row_dots(*arrays, rows, out, 3)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])
    D = X.toarray()
    np.testing.assert_allclose(outs[0], D[rows] @ D.T, rtol=1e-13, atol=1e-15)
    assert np.all(outs[0][4] == 0.0)  # the empty row


@pytest.mark.parametrize("width", [1, 12, 151])
def test_sparse_row_nearest_twins_agree_bitwise(width):
    X, _ = _text(150, seed=10)
    X = sp.vstack([X, X[:2]], format="csr")  # duplicates: ties broken by index
    arrays = _kernel_arrays(X)
    half_sq = 0.5 * np.asarray(X.multiply(X).sum(axis=1)).ravel()
    rows = np.array([0, 1, 3, 150, 151, 60], dtype=np.int64)
    skip = np.array([0, 1, 3, 150, 151, -1], dtype=np.int64)
    slack = np.full(len(rows), 1e-9)
    outs = []
    for module in (reference, _kernels):
        idx = np.empty((len(rows), width), dtype=np.int64)
        count = np.empty(len(rows), dtype=np.int64)
        module.sparse_row_nearest(*arrays, half_sq, rows, skip, slack, idx, count, 2)
        outs.append((idx, count))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_array_equal(outs[0][1], outs[1][1])
    # against the distances, with ties by index; the twins' duplicates come first
    D = cdist(X.toarray()[rows], X.toarray(), "sqeuclidean")
    D[np.flatnonzero(skip >= 0), skip[skip >= 0]] = np.inf
    D = np.round(D, 9)
    expect = np.array([np.lexsort((np.arange(X.shape[0]), d))[:width] for d in D])
    np.testing.assert_array_equal(outs[1][0], expect)
    assert outs[1][0][0, 0] == 150 and outs[1][0][3, 0] == 0  # row 0 and its copy
    assert np.all(outs[1][1] >= width)


def test_exact_sparse_search_of_many_rows_matches_scipy_in_chunks(monkeypatch):
    """Rows in several kernel calls, new points too: the exact neighbours."""
    monkeypatch.setattr(sparse_search, "_EXACT_CHUNK", 64)
    X, _ = _text(400, seed=11)
    index = KNNIndex(X[:300], method="exact", metric="cosine")
    idx, dist = index.neighbors(9)
    D = cdist(X[:300].toarray(), X[:300].toarray(), "cosine")
    np.fill_diagonal(D, np.inf)
    np.testing.assert_allclose(dist, np.sort(D, axis=1)[:, :9], rtol=1e-12, atol=1e-14)
    q_idx, q_dist = index.query(X[300:], 9)
    Dq = cdist(X[300:].toarray(), X[:300].toarray(), "cosine")
    np.testing.assert_allclose(q_dist, np.sort(Dq, axis=1)[:, :9], rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(q_idx, np.argsort(Dq, axis=1, kind="stable")[:, :9])


# ---------------------------------------------------------------------------
# model files of sparse fits: the training rows as CSR arrays
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sparse_fit():
    X, _ = _text(300, seed=12)
    # 250 points run the exact optimizer: n_iter, not n_epochs, keeps the fit short
    model = smallvis.Embedding("umap", random_state=0, n_iter=30,
                               method_params={"metric": "cosine", "knn_method": "annoy"})
    model.fit(X[:250])
    return model, X[250:]


def _saved_bytes(model):
    import io

    buf = io.BytesIO()
    smallvis.save_model(model, buf)
    return buf.getvalue()


def _first_method(rule):
    return next(name for name, m in smallvis.METHODS.items() if rule(m))


#: A fuzzy-graph method and a perplexity-calibrated one that takes a kNN
#: graph: the two calibrations a saved sparse fit must bring back.
ROUND_TRIP_CASES = [
    (_first_method(lambda m: m.fuzzy), "euclidean"),
    (_first_method(lambda m: {"perplexity", "knn"} <= set(m.affinity_params)), "cosine"),
]


@pytest.mark.parametrize("method,metric", ROUND_TRIP_CASES)
def test_a_sparse_fit_round_trips_through_a_model_file(method, metric, tmp_path):
    X, _ = _text(300, seed=13)
    model = smallvis.Embedding(method, random_state=1, n_epochs=20, n_iter=50,
                               method_params={"metric": metric})
    model.fit(X[:250])
    smallvis.save_model(model, tmp_path / "m.npz")
    loaded = smallvis.load_model(tmp_path / "m.npz")
    assert sp.issparse(loaded.training_map_.X)
    assert (loaded.training_map_.X != model.training_map_.X).nnz == 0
    np.testing.assert_array_equal(loaded.embedding_, model.embedding_)
    np.testing.assert_array_equal(loaded.transform(X[250:]), model.transform(X[250:]))
    np.testing.assert_array_equal(loaded.transform(X[250:].toarray()),
                                  model.transform(X[250:]))


def test_the_exact_search_cost_counts_shared_columns_and_keys():
    X = sp.csr_matrix(np.array([[1.0, 0, 2, 0], [0, 0, 3, 0], [4, 0, 5, 6], [0, 0, 0, 7]]))
    X.data[0] = 0.0  # an explicitly stored zero counts as stored
    # columns stored by 2, 0, 3 and 2 rows; 4 rows
    assert sparse_search.exact_search_cost(X) == 2 ** 2 + 0 + 3 ** 2 + 2 ** 2 + 4 ** 2
    rng = np.random.default_rng(0)
    Y = sp.random(300, 40, density=0.1, format="csc", random_state=rng)
    counts = [sum(1 for i in range(300) if Y[i, f] != 0) for f in range(40)]
    assert sparse_search.exact_search_cost(Y) == sum(c * c for c in counts) + 300 ** 2


def test_auto_searches_sparse_data_exactly_above_the_row_limit_while_it_is_cheap(monkeypatch):
    # the fit and transform choose alike: exact while the cost fits the limit
    X, _ = _text(600, seed=2)
    cost = sparse_search.exact_search_cost(X)
    monkeypatch.setattr(sparse_search, "SPARSE_EXACT_MAX_N", 500)
    for limit, method in ((cost, "exact"), (cost - 1.0, "annoy")):
        monkeypatch.setattr(sparse_search, "SPARSE_EXACT_MAX_COST", limit)
        assert KNNIndex(X, metric="cosine", random_state=0).method == method
        # 600 points run the exact optimizer: n_iter, not n_epochs, keeps the fit short
        model = smallvis.UMAP(random_state=0, n_iter=5,
                              method_params={"metric": "cosine"}).fit(X)
        assert model.training_map_.knn_index().method == method
    monkeypatch.setattr(sparse_search, "SPARSE_EXACT_MAX_N", 600)  # the row limit alone
    assert KNNIndex(X, metric="cosine", random_state=0).method == "exact"


def test_a_sparse_fit_searched_by_annoy_round_trips(sparse_fit, monkeypatch):
    import io

    # new points are searched exactly up to SPARSE_EXACT_MAX_N training
    # points (or the exact cost's limit): lower both so that both
    # transforms query the Annoy forest
    monkeypatch.setattr(sparse_search, "SPARSE_EXACT_MAX_N", 100)
    monkeypatch.setattr(sparse_search, "SPARSE_EXACT_MAX_COST", 0.0)
    model, X_new = sparse_fit
    loaded = smallvis.load_model(io.BytesIO(_saved_bytes(model)))
    expected = model.transform(X_new)
    assert model.training_map_.knn_index().method == "annoy"
    assert loaded.training_map_.knn_index().method == "annoy"
    np.testing.assert_array_equal(loaded.transform(X_new), expected)


def _forge(raw, edit):
    """The archive ``raw`` with its members changed by ``edit(members, header)``."""
    import io
    import json
    import zipfile

    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        members = {i.filename[:-4]: np.lib.format.read_array(io.BytesIO(zf.read(i)))
                   for i in zf.infolist()}
    header = json.loads(members["header"].tobytes())
    edit(members, header)
    members["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    buf = io.BytesIO()
    np.savez(buf, **members)
    return io.BytesIO(buf.getvalue())


def _set(key, value):
    def edit(members, header):
        members[key] = value(members[key])
    return edit


def _drop_member(key):
    def edit(members, header):
        del members[key]
    return edit


def _unsorted(indices):
    indices = indices.copy()
    indices[[0, 1]] = indices[[1, 0]]
    return indices


def _with_nan(data):
    data = data.copy()
    data[5] = np.nan
    return data


def _x_format(value):
    def edit(members, header):
        header["reference"]["x_format"] = value
    return edit


def _empty_first_row(members, header):
    ip = members["X:indptr"]
    start = ip[1]
    members["X:indices"], members["X:data"] = (members["X:indices"][start:],
                                               members["X:data"][start:])
    members["X:indptr"] = np.concatenate([[0], ip[1:] - start])


@pytest.mark.parametrize("edit,words", [
    (_set("X:indices", lambda a: a + 10_000), r"X:indices must lie in \[0, 400\)"),
    (_set("X:indices", _unsorted), "sorted within each row"),
    (_set("X:indptr", lambda a: a[::-1].copy()), "X:indptr must run from 0"),
    (_set("X:indptr", lambda a: a[:-5]), "X has 245 rows and Y has 250"),
    (_set("X:data", _with_nan), "NaN"),
    (_set("X:data", lambda a: a[:-1]), "equal lengths"),
    (_set("X:indices", lambda a: a.astype(np.int32)), "1-D int64"),
    (_set("X:data", lambda a: a.astype(np.float32)), "1-D float64"),
    (_drop_member("X:data"), "missing member.*X:data"),
    (_x_format("dense"), "unknown member.*'X:data'"),
    (_x_format("coo"), "x_format must be 'dense' or 'csr'"),
    (_empty_first_row, "all zeros"),
])
def test_a_damaged_sparse_model_file_is_refused(edit, words, sparse_fit):
    model, _ = sparse_fit
    with pytest.raises(smallvis.ModelFileError, match=words):
        smallvis.load_model(_forge(_saved_bytes(model), edit))


def test_the_cli_saves_a_sparse_model_and_transforms_with_it(tmp_path):
    from smallvis.cli import main

    X, _ = _text(180, seed=14)
    sp.save_npz(tmp_path / "x.npz", X[:150])
    sp.save_npz(tmp_path / "new.npz", X[150:])
    assert main(["embed", str(tmp_path / "x.npz"), "--method", "umap", "--metric", "cosine",
                 "--random-state", "3", "--out", str(tmp_path / "y.csv"),
                 "--save-model", str(tmp_path / "m.npz"), "--quiet"]) in (0, None)
    assert main(["transform", str(tmp_path / "new.npz"), "--model", str(tmp_path / "m.npz"),
                 "--out", str(tmp_path / "t.csv"), "--quiet"]) in (0, None)
    placed = np.loadtxt(tmp_path / "t.csv", delimiter=",", skiprows=1)
    model = smallvis.load_model(tmp_path / "m.npz")
    np.testing.assert_allclose(placed, model.transform(X[150:]), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------
# units: sparse X is measured in units of a power of two, as dense X
# ---------------------------------------------------------------------------

#: scales whose squares leave float64 (or underflow) unless X is divided by
#: a power of two first
SCALES = [1e-200, 1e-150, 1e154, 1e160, 1e200]


def _small_text():
    X, _ = _text(40, d=60, seed=21)
    return X


def _dense(P):
    return P.toarray() if sp.issparse(P) else np.asarray(P)


_SMALL_TEXT_P = {}


def _small_text_p(method, metric):
    """The dense form of the P of sparse ``_small_text()``, computed once per method and metric.

    The NumPy search of sparse X takes each pair in Python; the units check
    compares every scale with this P and the sparse-against-dense check
    reads it too.  Read-only, so that no test changes what the next reads.
    """
    if (method, metric) not in _SMALL_TEXT_P:
        kw = ({"perplexity": 5.0} if "perplexity" in smallvis.METHODS[method].affinity_params
              else {})
        P = _dense(smallvis.affinities(_small_text(), method, metric=metric, **kw))
        P.flags.writeable = False
        _SMALL_TEXT_P[method, metric] = P
    return _SMALL_TEXT_P[method, metric]


@pytest.mark.parametrize("fmt", [sp.csr_matrix, sp.csc_matrix, sp.coo_matrix])
@pytest.mark.parametrize("metric", sparse_search.SPARSE_METRICS)
@pytest.mark.parametrize("c", SCALES)
def test_sparse_neighbours_do_not_depend_on_units(fmt, metric, c):
    X = _small_text()
    idx, dist = smallvis.inputs.neighbors.nearest_neighbors(X, 6, metric=metric)
    idx_c, dist_c = smallvis.inputs.neighbors.nearest_neighbors(fmt(X * c), 6, metric=metric)
    np.testing.assert_array_equal(idx_c, idx)
    # Euclidean distances follow the units; cosine distances have none
    factor = c if metric in smallvis.inputs.distances.SCALED_METRICS else 1.0
    np.testing.assert_allclose(dist_c, dist * factor, rtol=1e-12)
    # and the sparse search answers as the dense one on the same data
    idx_d, dist_d = smallvis.inputs.neighbors.nearest_neighbors(X.toarray() * c, 6,
                                                                metric=metric)
    np.testing.assert_array_equal(idx_c, idx_d)
    np.testing.assert_allclose(dist_c, dist_d, rtol=1e-12)


#: Units of the P check: one factor that is no power of two on each side
#: and a power of two; all five with SMALLVIS_LONG_TESTS=1.
P_SCALES = ([1e-200, 1e154, 1e200, 2.0**-700, 2.0**600] if LONG_TESTS
            else [1e-200, 1e200, 2.0**600])


@pytest.mark.parametrize("metric", sparse_search.SPARSE_METRICS)
@pytest.mark.parametrize("c", P_SCALES)
def test_sparse_p_does_not_depend_on_units(metric, c):
    """P of ``c X`` is P of ``X`` (every way of building P), and the P of the same dense data.

    A power of two changes no bit.  Another factor changes the distances'
    last bits, which the perplexity calibrations absorb to rounding; the
    fuzzy one (its bandwidths floored at a fraction of the mean distance
    over all rows, so calibrated in one unit for every row) moves within
    its bisection's tolerance.
    """
    X = _small_text()
    exact_scale = np.frexp(c)[0] == 0.5
    for method in _one_method_per_way_of_building_p():
        kw = ({"perplexity": 5.0} if "perplexity" in smallvis.METHODS[method].affinity_params
              else {})
        P = _small_text_p(method, metric)
        P_c = _dense(smallvis.affinities(X * c, method, metric=metric, **kw))
        assert np.all(np.isfinite(P_c)), method
        if (smallvis.METHODS[method].p_family.units == "equivariant"
                and metric in smallvis.inputs.distances.SCALED_METRICS):
            P = P * c  # input distances, in the data's units
        if exact_scale:
            np.testing.assert_array_equal(P_c, P, err_msg=method)
            continue
        rtol = 1e-4 if smallvis.METHODS[method].p_family.memberships else 1e-10
        np.testing.assert_allclose(P_c, P, rtol=rtol, atol=1e-15 * P.max(), err_msg=method)
        P_d = _dense(smallvis.affinities(X.toarray() * c, method, metric=metric, **kw))
        np.testing.assert_allclose(P_c, P_d, rtol=1e-9, atol=1e-15 * P.max(), err_msg=method)


def test_a_sparse_fit_in_huge_units_embeds_finitely():
    X = _small_text() * 1e160
    Y = smallvis.embed(X, "tsne", fast=True, perplexity=5.0, n_iter=50, random_state=2)
    assert np.all(np.isfinite(Y))


def test_a_far_point_after_a_sparse_fit_is_placed_as_after_a_dense_fit():
    """The far point's neighbours are the training points extreme in its direction.

    The oracle needs no distance: as a point recedes along a direction, the
    order of its distances tends to the order of the training points'
    projections on that direction.  The sparse fit places it where the
    dense fit of the same data does.
    """
    from smallvis.transform import build_training_map

    X = _small_text()
    Xd = X.toarray()
    centre = Xd.mean(axis=0)
    direction = Xd[7] - centre
    far = np.vstack([centre + 1e160 * direction, np.full(Xd.shape[1], 1e160)])
    extreme = np.argsort(-(Xd - centre) @ direction)[:8]
    placed = {}
    for form, data, new in (("dense", Xd, far), ("sparse", X, sp.csr_matrix(far))):
        result = smallvis.embed(data, "tsne", fast=True, perplexity=5.0, n_iter=60,
                                random_state=3, init="random", return_result=True)
        ref = build_training_map("tsne", data, result, seed=3)
        idx, dist = ref.neighbors(new, 8)
        assert set(idx[0]) == set(extreme), form
        assert np.all(np.isfinite(dist)), form
        placed[form] = ref.transform(new, n_iter=20)
        assert np.all(np.isfinite(placed[form])), form
    np.testing.assert_allclose(placed["sparse"], placed["dense"], rtol=1e-9, atol=1e-9)
