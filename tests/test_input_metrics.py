"""``metric=``: every search and every P measures the distance SciPy defines."""

import io

import numpy as np
import pytest
from scipy.spatial.distance import cdist

import smallvis
from smallvis.backends import _kernels, reference
from smallvis.inputs import affinities as aff
from smallvis.inputs import distances
from smallvis.inputs.neighbors import KNNIndex, knn_graph
from smallvis._numeric import tie_key

from conftest import (KNN_METHODS, LONG_TESTS, PERPLEXITY_METHODS,
                      one_method_per_affinity_builder, perplexity_and_fuzzy_methods)

METRICS = distances.METRICS

#: SciPy's name of each metric.
SCIPY = {"euclidean": "euclidean", "cosine": "cosine", "correlation": "correlation",
         "manhattan": "cityblock", "hamming": "hamming"}


def _clusters(n, dim=10, n_clusters=6, seed=0):
    centres = np.random.default_rng(0).normal(scale=4.0, size=(n_clusters, dim))
    rng = np.random.default_rng(seed)
    labels = rng.integers(n_clusters, size=n)
    return centres[labels] + rng.normal(size=(n, dim)) + 0.5


def _categorical(n, dim=16, seed=0):
    """Codes 0..3 with cluster structure: rows copy one of a few prototypes, with noise."""
    rng = np.random.default_rng(seed)
    protos = rng.integers(0, 4, size=(8, dim))
    X = protos[rng.integers(8, size=n)]
    flip = rng.random(X.shape) < 0.25
    X[flip] = rng.integers(0, 4, size=int(flip.sum()))
    return X.astype(float)


def _data(metric, n, seed=0):
    """Data the metric is meant for: counts for hamming, clusters otherwise."""
    return _categorical(n, seed=seed) if metric == "hamming" else _clusters(n, seed=seed)


def _scipy_knn_distances(X, k, metric):
    D = cdist(X, X, SCIPY[metric])
    np.fill_diagonal(D, np.inf)
    return np.sort(D, axis=1)[:, :k]


# ---------------------------------------------------------------------------
# the exact path is SciPy's cdist
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("metric", METRICS)
def test_exact_neighbours_have_scipys_distances(metric):
    X = _data(metric, 300, seed=1)
    k = 12
    idx, dist = knn_graph(X, k, method="exact", metric=metric)
    D = cdist(X, X, SCIPY[metric])
    np.testing.assert_allclose(dist, np.take_along_axis(D, idx.astype(np.int64), 1),
                               rtol=1e-12, atol=1e-14)
    # and they are the k smallest (ties may pick other indices at the same distance)
    np.testing.assert_allclose(dist, _scipy_knn_distances(X, k, metric), rtol=1e-12,
                               atol=1e-14)


@pytest.mark.parametrize("metric", METRICS)
def test_exact_queries_of_new_points_have_scipys_distances(metric):
    X, X_new = _data(metric, 250, seed=2), _data(metric, 30, seed=3)
    idx, dist = KNNIndex(X, method="exact", metric=metric).query(X_new, 7)
    D = cdist(X_new, X, SCIPY[metric])
    np.testing.assert_allclose(dist, np.take_along_axis(D, idx, 1), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(dist, np.sort(D, axis=1)[:, :7], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("metric", METRICS)
def test_pairwise_distances_of_the_dense_p_are_scipys(metric):
    X = _data(metric, 120, seed=4)
    np.testing.assert_allclose(distances.pairwise_distances(X, metric),
                               cdist(X, X, SCIPY[metric]), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("metric", ["cosine", "manhattan", "hamming"])
def test_dense_p_is_calibrated_on_squared_metric_distances(metric, fast):
    """ssne's P from cdist's distances squared, built here step by step."""
    X = _data(metric, 90, seed=5)
    P = smallvis.affinities(X, "ssne", metric=metric, perplexity=10.0, fast=fast)
    D2 = cdist(X, X, SCIPY[metric]) ** 2
    n = len(X)
    D2_off = np.array([np.delete(D2[i], i) for i in range(n)])
    rows = np.zeros_like(D2_off)
    reference.perplexity_rows(D2_off, 10.0, aff.PERPLEXITY_TOL, aff.PERPLEXITY_MAX_TRIES,
                              rows, np.zeros(n), 1)
    C = np.zeros((n, n))
    for i in range(n):
        C[i, np.arange(n) != i] = rows[i]
    expected = (C + C.T) / 2
    np.testing.assert_allclose(P, expected / expected.sum(), rtol=1e-9, atol=1e-15)


def _graph_methods_one_per_builder():
    """Every kNN-graph method with SMALLVIS_LONG_TESTS=1; else the first of each builder of P.

    The metric reaches P only through the neighbours the builder is given
    (conftest's ``affinity_builder``): methods that share a builder and its
    parameters build the same P from them by the same code.
    """
    if LONG_TESTS:
        return KNN_METHODS
    return [name for name in one_method_per_affinity_builder() if name in KNN_METHODS]


@pytest.mark.parametrize("method", _graph_methods_one_per_builder())
@pytest.mark.parametrize("metric", ["cosine", "correlation"])
def test_knn_affinities_use_the_metrics_neighbours(method, metric):
    """The builders' P equals the P of the same neighbours given as ``knn=`` from SciPy."""
    X = _clusters(150, seed=6)
    D = cdist(X, X, SCIPY[metric])
    np.fill_diagonal(D, np.inf)
    order = np.lexsort((np.broadcast_to(np.arange(150), D.shape), D), axis=1)[:, :60]
    knn = (order, np.take_along_axis(D, order, 1))
    params = ({"perplexity": 10.0, "n_neighbors": 30} if method in PERPLEXITY_METHODS
              else {"n_neighbors": 15})
    P = smallvis.affinities(X, method, metric=metric, knn_method="exact", **params)
    # (the metric fills the pairs a geodesic graph does not connect)
    Q = smallvis.affinities(X, method, knn=knn, metric=metric, **params)
    dense = [A.toarray() if hasattr(A, "toarray") else A for A in (P, Q)]  # input distances
    np.testing.assert_allclose(*dense, rtol=1e-9, atol=1e-15)


# ---------------------------------------------------------------------------
# the approximate path: Annoy, refined with the metric's own distances
# ---------------------------------------------------------------------------


def _recall_by_distance(found_dist, exact_dist):
    """Share of found neighbours within the exact k-th distance (ties count once each)."""
    kth = exact_dist[:, -1:] * (1 + 1e-12) + 1e-15
    return float(np.mean(found_dist <= kth))


#: (dataset, metric) of the recall check: digits for every metric; the
#: clusters run the same search per metric, so only with SMALLVIS_LONG_TESTS=1,
#: except for hamming, whose clusters hold codes 0..3 where digits' pixels
#: are binary (other values per column for the search to index)
RECALL_CASES = [(dataset, metric) for dataset in ("clusters", "digits") for metric in METRICS
                if LONG_TESTS or dataset == "digits" or metric == "hamming"]


@pytest.mark.parametrize("dataset,metric", RECALL_CASES)
def test_annoy_recall_for_every_metric(metric, dataset):
    if dataset == "digits":
        X = smallvis.datasets.load("digits")[0].astype(float)[:1500]
        if metric == "hamming":
            X = (X > 4).astype(float)  # binary pixels
    else:
        X = _data(metric, 2000, seed=7)
    k = 15
    exact = knn_graph(X, k, method="exact", metric=metric)
    approx = knn_graph(X, k, method="annoy", metric=metric, random_state=3, fast=True)
    assert _recall_by_distance(approx[1], exact[1]) >= 0.98
    # the distances reported are the metric's
    D = cdist(X, X, SCIPY[metric])
    np.testing.assert_allclose(approx[1], np.take_along_axis(D, approx[0].astype(np.int64), 1),
                               rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("metric", METRICS)
def test_annoy_queries_of_new_points_reach_the_same_recall(metric):
    data = _data(metric, 1600, seed=8)
    X, X_new = data[:1500], data[1500:]
    k = 10
    exact = KNNIndex(X, method="exact", metric=metric).query(X_new, k)
    # 100 new points: one forest's recall varies by about 0.01 from seed to
    # seed (Manhattan 0.977-0.987), so the mean over three forests is checked.
    # The Cython refinement: its twin gives the same neighbours bit for bit
    # (test_knn_refine_twins_agree_bitwise_for_every_metric_code), in a
    # fraction of the NumPy loop's time over the training points' graph
    recalls = [_recall_by_distance(KNNIndex(X, method="annoy", metric=metric, fast=True,
                                            random_state=seed).query(X_new, k)[1], exact[1])
               for seed in range(3)]
    assert np.mean(recalls) >= 0.98 and min(recalls) >= 0.97


@pytest.mark.parametrize("metric", METRICS)
def test_both_backends_report_the_same_distances_for_the_same_neighbours(metric):
    X = _data(metric, 400, seed=10)
    e_idx, e_dist = knn_graph(X, 8, method="exact", metric=metric)
    a_idx, a_dist = knn_graph(X, 8, method="annoy", metric=metric, random_state=0,
                              n_trees=20, fast=True)
    same = e_idx == a_idx
    assert same.mean() > 0.9
    np.testing.assert_array_equal(e_dist[same], a_dist[same])


# ---------------------------------------------------------------------------
# the twin kernels' metric codes
# ---------------------------------------------------------------------------


def _candidates(n, m, seed):
    rng = np.random.default_rng(seed)
    cand = rng.integers(-1, n, size=(n, m)).astype(np.int32)
    cand[:, 0] = np.arange(n)
    return cand


@pytest.mark.parametrize("code", [0, 1, 2])
def test_knn_candidates_twins_agree_bitwise_for_every_metric_code(code):
    X = _categorical(200, seed=11) if code == 2 else _clusters(200, seed=11)
    cand = _candidates(200, 14, seed=code)
    outs = []
    for module in (reference, _kernels):
        idx = np.empty((200, 6), dtype=np.int32)
        d = np.empty((200, 6))
        short = module.knn_candidates(X, cand, idx, d, 1, code)
        outs.append((short, idx, d))
    assert outs[0][0] == outs[1][0]
    np.testing.assert_array_equal(outs[0][1], outs[1][1])
    np.testing.assert_array_equal(outs[0][2], outs[1][2])
    # against SciPy: the core quantity of each code
    core = {0: cdist(X, X, "sqeuclidean"), 1: cdist(X, X, "cityblock"),
            2: cdist(X, X, "hamming") * X.shape[1]}[code]
    i = np.arange(200)[:, None]
    valid = outs[1][1] >= 0
    np.testing.assert_allclose(outs[1][2][valid], core[np.broadcast_to(i, valid.shape)[valid],
                                                       outs[1][1][valid]], rtol=1e-13)


@pytest.mark.parametrize("code", [1, 2])
def test_knn_refine_twins_agree_bitwise_for_every_metric_code(code):
    X = _categorical(250, seed=12) if code == 2 else _clusters(250, seed=12)
    k = 8
    idx = np.empty((250, k), dtype=np.int32)
    d = np.empty((250, k))
    reference.knn_candidates(X, _candidates(250, 12, seed=5), idx, d, 1, code)
    assert np.all(idx >= 0)
    flags = np.full(idx.shape, 3, dtype=np.uint8)
    for _ in range(3):
        outs = []
        for module in (reference, _kernels):
            out = (np.empty_like(idx), np.empty_like(d), np.empty_like(flags))
            changed = module.knn_refine(X, idx, d, flags, 1000, *out, 1, code)
            outs.append(out + (changed,))
        for a, b in zip(*outs):
            np.testing.assert_array_equal(a, b)
        idx, d, flags = outs[1][:3]
    order = np.lexsort((idx, tie_key(d)), axis=1)
    np.testing.assert_array_equal(order, np.broadcast_to(np.arange(k), idx.shape))


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------


def test_an_unknown_metric_is_refused_naming_the_metrics():
    X = _clusters(50)
    for call in (lambda: smallvis.embed(X, "umap", metric="cosinus"),
                 lambda: smallvis.affinities(X, "asne", metric="cosinus"),
                 lambda: knn_graph(X, 5, metric="cosinus"),
                 lambda: smallvis.embed(X, "tsne", metric=3)):
        with pytest.raises(ValueError, match="metric must be one of 'euclidean', 'cosine'"):
            call()


@pytest.mark.parametrize("metric, row, what", [("cosine", np.zeros(10), "all zeros"),
                                               ("correlation", np.full(10, 3.0), "constant")])
def test_rows_without_a_direction_are_refused(metric, row, what):
    X = _clusters(60)
    X[17] = row
    with pytest.raises(ValueError, match=f"1 row.* {what} .first: row 17.*undefined"):
        smallvis.embed(X, "umap", metric=metric)
    with pytest.raises(ValueError, match=f"X_new has 1 row.* {what}"):
        KNNIndex(_clusters(60), metric=metric).query(row[None, :], 3)


def test_hamming_with_too_many_values_for_annoy_points_to_the_exact_search():
    # categories that repeat within each column, but more than 4096 (column, value) pairs
    X = np.random.default_rng(0).integers(100, size=(300, 60)).astype(float)
    with pytest.raises(ValueError, match="knn_method='exact'"):
        knn_graph(X, 5, method="annoy", metric="hamming")
    knn_graph(X, 5, method="exact", metric="hamming")  # the exact search takes it


def _every_search_and_builder(X):
    """Each path that measures training data by a metric: the searches and the dense P."""
    return (lambda: knn_graph(X, 5, method="exact", metric="hamming"),
            lambda: knn_graph(X, 5, method="annoy", metric="hamming", random_state=0),
            lambda: KNNIndex(X, metric="hamming"),
            lambda: smallvis.affinities(X, "tsne", perplexity=5, metric="hamming"),
            lambda: smallvis.embed(X, "umap", metric="hamming", n_neighbors=5,
                                   n_epochs=5, random_state=0))


def test_hamming_on_continuous_data_is_refused_not_chosen_by_index():
    # every row differs from every other in every coordinate: all distances 1
    X = np.random.default_rng(1).normal(size=(60, 5))
    for call in _every_search_and_builder(X):
        with pytest.raises(ValueError, match=r"metric='hamming'.* 60 of 60 row.*first: row 0"
                                             r".*chosen by their index.*X != 0"):
            call()
    binary = X > 0  # what the message suggests works
    knn_graph(binary.astype(float), 5, method="exact", metric="hamming")


def test_one_row_without_hamming_neighbours_is_named():
    X = np.random.default_rng(2).integers(3, size=(40, 6)).astype(float)
    X[23] = 7.0 + np.arange(6)  # values no other row holds, in every column
    with pytest.raises(ValueError, match=r"1 of 40 row.*first: row 23"):
        knn_graph(X, 5, method="exact", metric="hamming")
    X[23, 4] = X[0, 4]  # one value shared: a distance below 1 exists
    indices, distances = knn_graph(X, 5, method="exact", metric="hamming")
    assert distances[23, 0] < 1.0


def test_hamming_takes_categorical_values_and_zero_signs_alike():
    rng = np.random.default_rng(3)
    X = rng.integers(4, size=(50, 8)).astype(float) - 1.5  # four categories per column
    _, d = knn_graph(X, 5, method="exact", metric="hamming")
    full = cdist(X, X, "hamming")
    np.fill_diagonal(full, np.inf)
    np.testing.assert_array_equal(d, np.sort(full, axis=1)[:, :5])
    Z = np.where(rng.random((30, 4)) < 0.5, 0.0, -0.0)  # -0.0 == 0.0: no distinct values
    Z[:, 0] = np.arange(30) % 2
    knn_graph(Z, 3, method="exact", metric="hamming")  # accepted


def test_new_points_are_not_held_to_the_training_rule():
    X = np.random.default_rng(4).integers(2, size=(60, 8)).astype(float)
    index = KNNIndex(X, metric="hamming")
    new = np.random.default_rng(5).normal(size=(3, 8))  # no value seen in training
    indices, distances = index.query(new, 4)
    np.testing.assert_array_equal(distances, 1.0)


# ---------------------------------------------------------------------------
# new points, model files, the command line
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["cosine", "correlation"])
def test_scale_free_metrics_place_scaled_new_points_at_the_same_spot(metric):
    X = _clusters(200, seed=13)
    model = smallvis.Embedding("umap", random_state=0, n_iter=30,
                               method_params={"metric": metric}).fit(X[:150])
    Y = model.transform(X[150:])
    np.testing.assert_array_equal(model.transform(X[150:] * 8.0), Y)
    # the neighbours of new points are those of the metric
    idx, _ = model.training_map_.neighbors(X[150:] * 1e6, 5)
    D = cdist(X[150:], X[:150], SCIPY[metric])
    np.testing.assert_allclose(np.take_along_axis(D, idx, 1), np.sort(D, 1)[:, :5],
                               rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("method", perplexity_and_fuzzy_methods())
@pytest.mark.parametrize("metric", ["cosine", "manhattan"])
def test_model_files_keep_the_metric(method, metric):
    X = _clusters(160, seed=14)
    model = smallvis.Embedding(method, random_state=1, n_iter=100, n_epochs=30,
                               method_params={"metric": metric}).fit(X[:130])
    buf = io.BytesIO()
    smallvis.save_model(model, buf)
    buf.seek(0)
    loaded = smallvis.load_model(buf)
    assert loaded.method_params == {"metric": metric}
    assert loaded.training_map_.affinity_params["metric"] == metric
    np.testing.assert_array_equal(loaded.transform(X[130:]), model.transform(X[130:]))
    # a Euclidean fit of the same data places the new points elsewhere
    other = smallvis.Embedding(method, random_state=1, n_iter=100, n_epochs=30).fit(X[:130])
    assert other.training_map_.affinity_params["metric"] == "euclidean"


def _with_edited_header(model, edit):
    """``model`` saved to memory, its JSON header changed by ``edit(header)``."""
    import json
    import zipfile

    buf = io.BytesIO()
    smallvis.save_model(model, buf)
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zin, \
            zipfile.ZipFile(out, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "header.npy":
                header = json.loads(np.load(io.BytesIO(data)).tobytes().decode("utf-8"))
                edit(header)
                blob = io.BytesIO()
                np.save(blob, np.frombuffer(json.dumps(header).encode("utf-8"),
                                            dtype=np.uint8))
                data = blob.getvalue()
            zout.writestr(item, data)
    out.seek(0)
    return out


def test_model_files_without_a_metric_load_as_euclidean():
    """Files written before ``metric`` existed ran with the Euclidean distance."""
    X = _clusters(120, seed=15)
    model = smallvis.Embedding("umap", random_state=1, n_iter=20).fit(X[:100])
    out = _with_edited_header(model, lambda header: header["reference"]["affinity_params"]
                              ["__dict__"].pop("metric"))
    loaded = smallvis.load_model(out)
    assert loaded.training_map_.affinity_params["metric"] == "euclidean"
    np.testing.assert_array_equal(loaded.transform(X[100:]), model.transform(X[100:]))


def test_a_forged_metric_in_a_model_file_is_refused():
    X = _clusters(120, seed=16)
    model = smallvis.Embedding("tsne", random_state=1, n_iter=50).fit(X[:100])
    out = _with_edited_header(model, lambda header: header["reference"]["affinity_params"]
                              ["__dict__"].__setitem__("metric", "minkowski"))
    with pytest.raises(smallvis.ModelFileError, match="metric must be one of"):
        smallvis.load_model(out)


def test_cli_metric_gives_the_api_result(tmp_path):
    from smallvis.cli import main

    X = _clusters(120, seed=17)
    np.savetxt(tmp_path / "x.csv", X, delimiter=",")
    code = main(["embed", str(tmp_path / "x.csv"), "--method", "umap", "--metric", "cosine",
                 "--random-state", "4", "--out", str(tmp_path / "y.csv"), "--quiet"])
    assert code in (0, None)
    Y = np.loadtxt(tmp_path / "y.csv", delimiter=",", skiprows=1)
    expected = smallvis.embed(X, "umap", metric="cosine", random_state=4)
    np.testing.assert_allclose(Y, expected, rtol=1e-12, atol=1e-12)
