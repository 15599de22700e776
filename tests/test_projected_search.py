"""The search of dense data with many features in a projection (smallvis.inputs.projected_search).

Recall against brute force, the twins bitwise, the row order of the
``knn_candidates`` twins, every metric, one-thread reproducibility, new
points and model files with the stored projection, the self-check's
fallback, and the randomised PCA initialisation of many features.  The
feature threshold is lowered where a small case keeps the NumPy twin fast.
"""

import pickle

import numpy as np
import pytest
from scipy.spatial.distance import cdist

import smallvis
from smallvis.backends import _kernels, reference
from smallvis.engines import init as init_module
from smallvis.inputs import projected_search
from smallvis.inputs.neighbors import KNNIndex, knn_graph


def _low_rank(n, dim, rank=8, seed=0, noise=0.05):
    """Clusters on a ``rank``-dimensional subspace of ``dim`` features, a little noise."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 4.0, size=(10, rank))
    Z = centres[np.arange(n) % 10] + rng.standard_normal((n, rank))
    basis = np.linalg.qr(rng.standard_normal((dim, rank)))[0]
    return 3.0 * (Z @ basis.T + noise * rng.standard_normal((n, dim))) + 7.0


def _recall(exact, approx):
    return np.mean([len(np.intersect1d(a, b)) for a, b in zip(exact, approx)]) / exact.shape[1]


@pytest.fixture
def low_threshold(monkeypatch):
    """Project from 40 features on, so that small cases take the projected path."""
    monkeypatch.setattr(projected_search, "MIN_FEATURES", 40)


# ---------------------------------------------------------------------------
# the row order of knn_candidates
# ---------------------------------------------------------------------------

def test_knn_candidates_order_changes_nothing_and_twins_agree():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((150, 9))
    X[7] = X[8]  # a duplicate
    cand = rng.integers(-1, 150, size=(150, 14)).astype(np.int32)
    cand[:, 0] = np.arange(150)
    order = rng.permutation(150).astype(np.int64)
    results = []
    for module in (reference, _kernels):
        for row_order, n_threads in ((None, 1), (order, 1), (order, 3)):
            idx, d2 = np.empty((150, 5), dtype=np.int32), np.empty((150, 5))
            short = module.knn_candidates(X, cand, idx, d2, n_threads, 0, 0, None, row_order)
            results.append((short, idx, d2))
    for short, idx, d2 in results[1:]:
        assert short == results[0][0]
        assert np.array_equal(idx, results[0][1]) and np.array_equal(d2, results[0][2])
    # independently: the best 5 valid candidates by direct distances
    i = 3
    valid = np.unique(cand[i][(cand[i] >= 0) & (cand[i] != i)])
    d = ((X[valid] - X[i]) ** 2).sum(axis=1)
    assert set(results[0][1][i]) == set(valid[np.argsort(d, kind="stable")[:5]])


def test_knn_candidates_order_computes_only_its_positions():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((60, 4))
    cand = np.tile(np.arange(60, dtype=np.int32), (60, 1))
    order = rng.permutation(60).astype(np.int64)
    for module in (reference, _kernels):
        idx = np.full((60, 3), -7, dtype=np.int32)
        d2 = np.full((60, 3), -1.0)
        module.knn_candidates(X, cand, idx, d2, 1, 0, 10, 25, order)
        done = np.zeros(60, dtype=bool)
        done[order[10:25]] = True
        assert (idx[done] >= 0).all() and (idx[~done] == -7).all()


def test_leaf_order_is_a_permutation_that_keeps_near_rows_together():
    X = _low_rank(2000, 5, rank=5, seed=3)
    order = projected_search.leaf_order(X, _kernels, leaf_size=32, n_threads=2)
    assert order.dtype == np.int64 and np.array_equal(np.sort(order), np.arange(2000))
    step = np.linalg.norm(X[order[1:]] - X[order[:-1]], axis=1)
    shuffled = np.random.default_rng(0).permutation(2000)
    random_step = np.linalg.norm(X[shuffled[1:]] - X[shuffled[:-1]], axis=1)
    assert np.median(step) < 0.5 * np.median(random_step)


# ---------------------------------------------------------------------------
# the search
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def many_features():
    """2,000 points of 520 features (above the threshold) and their exact 40 neighbours."""
    X = _low_rank(2000, 520)
    return X, knn_graph(X, 40, method="exact")


@pytest.mark.parametrize("k", [15, 40])
def test_projected_search_recall_and_exact_distances(k, many_features):
    X, (exact, exact_dist) = many_features
    exact, exact_dist = exact[:, :k], exact_dist[:, :k]
    index = KNNIndex(X, method="annoy", random_state=0, fast=True)
    idx, dist = index.neighbors(k)
    assert index._projected() and index._search_projection is not None
    assert index.n_trees == projected_search.DEFAULT_TREES
    assert _recall(exact, idx) >= 0.98
    # the reported distances are the exact distances of the pairs found
    rows = np.arange(0, 2000, 37)
    direct = np.sqrt(np.array([cdist(X[r:r + 1], X[idx[r]], "sqeuclidean")[0] for r in rows]))
    np.testing.assert_allclose(dist[rows], direct, rtol=1e-12)
    same = idx == exact
    assert np.array_equal(dist[same], exact_dist[same])


def test_short_proposals_are_grown_to_whole_lists_by_the_rounds(many_features, monkeypatch):
    """The forest proposes ``n_proposals(m)`` per row; the rounds fill the other slots."""
    from smallvis.inputs import neighbors, search_forest
    X, (exact, _) = many_features
    monkeypatch.setattr(projected_search, "PROPOSALS", 10)
    candidates, fill_short_rows = search_forest.candidates, neighbors.fill_short_rows
    asked, short = [], []

    def recording(forest, S, m, search_k, n_threads, kernels):
        asked.append(m)
        return candidates(forest, S, m, search_k, n_threads, kernels)

    def counting(rows, indices, sq_dist, metric):
        short.append(int(np.sum(indices[:, -1] < 0)))
        return fill_short_rows(rows, indices, sq_dist, metric)

    monkeypatch.setattr(search_forest, "candidates", recording)
    monkeypatch.setattr(neighbors, "fill_short_rows", counting)
    idx, _ = KNNIndex(X, method="annoy", random_state=0, fast=True).neighbors(40)
    assert asked == [11]  # ten proposals and the row itself, for 120 candidates
    assert projected_search.n_candidates(40, len(X)) == 120
    # no row was left for brute force to finish
    assert short == [0] and (idx >= 0).all()
    assert _recall(exact, idx) >= 0.98


@pytest.mark.parametrize("proposals", [projected_search.PROPOSALS, 10])
def test_projected_search_twins_agree_bitwise(low_threshold, monkeypatch, proposals):
    # 10 proposals for 57 candidates: the rounds fill empty slots in both twins
    monkeypatch.setattr(projected_search, "PROPOSALS", proposals)
    X = _low_rank(700, 48, seed=4)
    found = [knn_graph(X, 12, method="annoy", random_state=5, fast=fast) for fast in (False, True)]
    assert np.array_equal(found[0][0], found[1][0])
    assert np.array_equal(found[0][1], found[1][1])
    assert KNNIndex(X, method="annoy", random_state=5)._projected()


def test_projected_search_is_reproducible_and_thread_independent(low_threshold):
    X = _low_rank(2000, 64, seed=6)
    runs = [knn_graph(X, 10, method="annoy", random_state=9, fast=True, n_threads=t)
            for t in (1, 1, 2)]
    for idx, dist in runs[1:]:
        assert np.array_equal(idx, runs[0][0]) and np.array_equal(dist, runs[0][1])


@pytest.mark.parametrize("metric", ["euclidean", "cosine", "correlation", "manhattan",
                                    "hamming"])
def test_every_metric(metric, low_threshold):
    X = _low_rank(1500, 60, seed=7)
    if metric == "hamming":
        X = np.round(X / 6.0)
    index = KNNIndex(X, method="annoy", random_state=1, fast=True, metric=metric)
    assert index._projected() == (metric in projected_search.METRICS)
    idx, dist = index.neighbors(10)
    exact, exact_dist = knn_graph(X, 10, method="exact", metric=metric)
    assert _recall(exact, idx) >= 0.95
    same = idx == exact
    assert np.array_equal(dist[same], exact_dist[same])


def test_below_the_threshold_nothing_is_projected():
    X = _low_rank(600, projected_search.MIN_FEATURES - 1, seed=8)
    index = KNNIndex(X, method="annoy", random_state=0)
    assert not index._projected() and index.n_trees == 10
    index.neighbors(5)
    assert index._search_projection is None


def test_data_without_a_faithful_projection_are_refined_in_their_own_space(low_threshold,
                                                                           monkeypatch):
    rng = np.random.default_rng(10)
    X = rng.standard_normal((1500, 300))  # noise of full rank: no projection keeps it
    exact, _ = knn_graph(X, 10, method="exact")
    with_check = _recall(exact, knn_graph(X, 10, method="annoy", random_state=2, fast=True)[0])
    monkeypatch.setattr(projected_search, "RECALL_FLOOR", 0.0)
    without = _recall(exact, knn_graph(X, 10, method="annoy", random_state=2, fast=True)[0])
    assert without < 0.8 and with_check > without + 0.1


@pytest.mark.parametrize("block", [1 << 15, 97])
@pytest.mark.parametrize("n_threads", [1, 3])
@pytest.mark.parametrize("bound", ["none", "kth", "loose", "too small", "some"])
def test_exact_neighbours_of_the_checked_rows(monkeypatch, block, n_threads, bound):
    # in one block of columns, or in blocks that split the rows' own columns;
    # any bound at least the k-th distance, none, or one too small for some
    # rows (searched again without it) gives the exact neighbours
    monkeypatch.setattr(projected_search, "_CHECK_BLOCK", block)
    X = _low_rank(800, 30, seed=11)
    exact, dist = knn_graph(X, 6, method="exact")
    rows = projected_search.check_rows(800)
    kth = dist[rows, -1] ** 2
    bounds = {"none": None, "kth": kth, "loose": 4.0 * kth, "too small": kth / 4.0,
              "some": np.where(np.arange(len(rows)) % 3 == 0, np.inf, kth / (rows % 2 + 1))}
    found = projected_search.exact_neighbours(X, rows, 6, bounds[bound], n_threads)
    assert found.shape == (len(rows), 6)
    assert all(set(found[r]) == set(exact[row]) for r, row in enumerate(rows))


def test_exact_neighbours_break_ties_by_index():
    # rows 0 to 7 are one point: the 3 nearest of row 0 are rows 1 to 3 on any
    # number of threads, with or without a bound, and the copies' own rows never
    X = np.repeat(np.arange(20.0)[:, None], 4, axis=1)
    X = np.vstack([np.zeros((7, 4)), X])
    for bound in (None, np.zeros(2)):
        for n_threads in (1, 2):
            found = projected_search.exact_neighbours(X, np.array([0, 3]), 3, bound, n_threads)
            assert np.array_equal(np.sort(found, axis=1), [[1, 2, 3], [0, 1, 2]])


@pytest.mark.parametrize("k", [0, 5])
def test_exact_neighbours_refuse_k_outside_the_rows(k):
    with pytest.raises(ValueError, match="k must be"):
        projected_search.exact_neighbours(np.ones((5, 2)), np.array([0]), k)


def test_sample_recall_counts_exact_neighbours():
    X = _low_rank(800, 30, seed=11)
    exact, _ = knn_graph(X, 6, method="exact")
    rows = projected_search.check_rows(800)
    assert len(rows) == projected_search.CHECK_ROWS
    reference = exact[rows]
    assert projected_search.sample_recall(reference, exact, rows) == 1.0
    half = exact.copy()
    half[:, 3:] = (half[:, 3:] + 400) % 800  # far points instead of the last three
    assert projected_search.sample_recall(reference, half, rows) == pytest.approx(0.5, abs=0.02)


# ---------------------------------------------------------------------------
# new points and stored models
# ---------------------------------------------------------------------------

def test_new_points_use_the_stored_projection(low_threshold):
    X = _low_rank(3000, 64, seed=12)
    X_new = X[:40] + 0.01
    index = KNNIndex(X, method="annoy", random_state=3, fast=True)
    found = index.query(X_new, 8)
    assert np.array_equal(found[0][:, 0], np.arange(40))
    exact = np.argsort(cdist(X_new, X, "sqeuclidean"), axis=1, kind="stable")[:, :8]
    assert _recall(exact, found[0]) >= 0.98
    copy = pickle.loads(pickle.dumps(index))
    assert np.array_equal(copy._search_projection.components,
                          index._search_projection.components)
    again = copy.query(X_new, 8)
    assert np.array_equal(again[0], found[0]) and np.array_equal(again[1], found[1])
    far = index.query(X[:2] * 1e250, 3)  # far points: finite scores, an answer
    assert np.all(far[0] >= 0)


def test_model_file_round_trip_with_the_projection(low_threshold, monkeypatch, tmp_path):
    from smallvis import transform
    from smallvis.inputs import neighbors
    monkeypatch.setattr(transform, "EXACT_MAX_N", 300)  # Annoy for new points
    monkeypatch.setattr(neighbors, "EXACT_MAX_N", 300)  # and for the fit
    X = _low_rank(500, 64, seed=13)
    # 400 points run the exact optimizer: n_iter, not n_epochs, keeps the fit short
    model = smallvis.Embedding("umap", random_state=2, n_iter=30, n_epochs=30,
                               n_threads=1).fit(X[:400])
    assert model.training_map_.knn_index()._projected()
    path = tmp_path / "model.npz"
    smallvis.save_model(model, path)
    loaded = smallvis.load_model(path)
    assert loaded.training_map_.knn_index()._projected()
    assert np.array_equal(loaded.transform(X[400:]), model.transform(X[400:]))


def _float32_valued(X):
    """``X`` rounded to float32 values, held as float64 (images of bytes or float32 pixels)."""
    return X.astype(np.float32).astype(np.float64)


def test_projection_products_in_float32_only_near_the_origin():
    X = _float32_valued(_low_rank(600, 50, seed=4))
    X32 = projected_search.float32_rows(X)
    assert projected_search.projection_rows(X, X32) is X32
    assert projected_search.projection_rows(X, None) is X
    # a mean 1e5 from the origin against a spread of about 40: products
    # before centring would round away the spread in float32
    far = _float32_valued(X + 1e5)
    assert projected_search.projection_rows(far, projected_search.float32_rows(far)) is far
    huge = X * 2.0 ** 40  # products near float32's range
    assert projected_search.projection_rows(huge, projected_search.float32_rows(huge)) is huge


def test_float32_products_find_the_float64_projection():
    X = _float32_valued(_low_rank(2000, 520, seed=5))
    X32 = projected_search.float32_rows(X)
    p64 = projected_search.fit_search_projection(X, 0)
    p32 = projected_search.fit_search_projection(X32, 0)
    # the 8 directions of the signal: the same subspace (principal angles near 0)
    cosines = np.linalg.svd(p32.components[:8] @ p64.components[:8].T, compute_uv=False)
    np.testing.assert_allclose(cosines, 1.0, atol=1e-6)
    S64 = projected_search.scores(p32, X)
    S32 = projected_search.scores(p32, X32)
    assert S32.dtype == np.float64
    np.testing.assert_allclose(S32, S64, atol=1e-5 * np.abs(S64).max())


def test_reloaded_index_of_float32_valued_data_answers_alike(low_threshold):
    X = _float32_valued(_low_rank(3000, 64, seed=12))
    assert projected_search.projection_rows(X, projected_search.float32_rows(X)) is not X
    X_new = X[:40] + 0.01
    index = KNNIndex(X, method="annoy", random_state=3, fast=True)
    graph = index.neighbors(8)
    found = index.query(X_new, 8)  # Annoy's forest of the new points, built from the scores
    fitted = index._score_frame  # the centre and extent of those scores
    assert np.array_equal(found[0][:, 0], np.arange(40))
    copy = pickle.loads(pickle.dumps(index))  # no forest: rebuilt from the data
    again = copy.query(X_new, 8)
    assert np.array_equal(again[0], found[0]) and np.array_equal(again[1], found[1])
    # each rebuilt forest's scores have the fit's bits (float32 products again)
    for frame in (index._score_frame, copy._score_frame):
        assert np.array_equal(frame[0], fitted[0]) and frame[1] == fitted[1]
    fresh = KNNIndex(X, method="annoy", random_state=3, fast=True)
    assert np.array_equal(fresh.query(X_new, 8)[0], found[0])  # the query first, no graph
    np.testing.assert_array_equal(fresh.neighbors(8)[0], graph[0])


# ---------------------------------------------------------------------------
# the PCA initialisation of many features
# ---------------------------------------------------------------------------

def test_randomised_pca_scores_match_the_svd(monkeypatch):
    X = _low_rank(600, 520, seed=14)
    fast = init_module.pca_scores(X, 2)
    monkeypatch.setattr(init_module, "RANDOMISED_PCA_MIN_FEATURES", 10**9)
    svd = init_module.pca_scores(X, 2)
    np.testing.assert_allclose(fast, svd, rtol=1e-7, atol=1e-7 * np.abs(svd).max())
