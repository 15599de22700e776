"""Memory: freed heap returned between stages; wide sparse X costs its stored entries."""

import platform
import sys
import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
from smallvis import _memory
from smallvis.engines.init import SPARSE_INIT_RANK, data_coordinates, initialize
from smallvis.inputs.projection import fit_projection

GLIBC = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"


def _rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="madvise is Linux's here")
def test_release_pages_drops_the_front_of_an_array_and_keeps_the_rest():
    a = np.ones(64 * 2**20 // 8)
    before = _rss_mib()
    released = _memory.release_pages(a, a.nbytes // 2)
    assert 31 * 2**20 < released <= 32 * 2**20
    assert before - _rss_mib() > 24
    assert np.all(a[len(a) // 2:] == 1.0)  # the rest untouched
    assert _memory.release_pages(a[::2], a.nbytes) == 0  # not contiguous: nothing


def test_release_runs_exactly_where_glibc_is():
    assert _memory.release_free_heap() is GLIBC


@pytest.mark.skipif(not GLIBC, reason="malloc_trim is glibc's")
def test_release_returns_freed_heap_pages():
    # Freeing a large block raises glibc's mmap threshold (and its trim
    # threshold to twice that, 60 MB), so the 1 MB arrays below come from
    # the heap and stay resident when freed: 40 MB is below the trim
    # threshold, and the small arrays allocated between them pin the heap.
    big = np.ones(30 * 2**20 // 8)
    del big
    blocks, pins = [], []
    for _ in range(40):
        blocks.append(np.ones(2**20 // 8))
        pins.append(np.ones(16))
    del blocks
    before = _rss_mib()
    assert _memory.release_free_heap()
    assert before - _rss_mib() > 20


# ---------------------------------------------------------------------------
# wide sparse X: memory follows the stored entries and the rows
# ---------------------------------------------------------------------------

WIDE_COLUMNS = 2**24  # a hashing vectoriser's default width


def _wide(n=50, nnz=1000, seed=0):
    rng = np.random.default_rng(seed)
    return sp.csr_matrix((rng.random(nnz) + 0.1,
                          (rng.integers(n, size=nnz), rng.integers(WIDE_COLUMNS, size=nnz))),
                         shape=(n, WIDE_COLUMNS))


def _narrow(X):
    """``X`` on its columns that hold entries (what the wide matrix reduces to)."""
    return X[:, np.unique(X.indices)]


def _peak_mib(call):
    """The most memory NumPy and SciPy arrays held at once during ``call()``."""
    tracemalloc.start()
    try:
        out = call()
        return out, tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def test_wide_sparse_coordinates_follow_the_stored_entries():
    """The truncated SVD behind the PCA inits: no array with a number per column."""
    X = _wide()
    scores, peak = _peak_mib(lambda: data_coordinates(X, 3))
    assert peak < 16  # a (2**24, 18) random start alone is 2.25 GiB
    # empty columns add nothing: the scores are those of the columns that hold entries
    np.testing.assert_array_equal(scores, data_coordinates(_narrow(X), 3))


@pytest.mark.parametrize("init", ["spca", "pca", "random", "spectral"])
def test_wide_sparse_fit_follows_the_stored_entries(init):
    X = _wide()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a graph of 50 documents falls apart
        Y, peak = _peak_mib(lambda: smallvis.embed(X, "tsne", init=init, perplexity=5,
                                                   n_iter=30, random_state=0))
        assert np.all(np.isfinite(Y)) and peak < 32
        np.testing.assert_array_equal(
            Y, smallvis.embed(_narrow(X), "tsne", init=init, perplexity=5, n_iter=30,
                              random_state=0))


def test_wide_sparse_neighbour_search_follows_the_stored_entries():
    """The kNN search holds X by column only over the columns that store an entry."""
    X = _wide()
    Y, peak = _peak_mib(lambda: smallvis.embed(X, "umap", n_iter=5, random_state=0))
    assert np.all(np.isfinite(Y)) and peak < 64
    np.testing.assert_array_equal(
        Y, smallvis.embed(_narrow(X), "umap", n_iter=5, random_state=0))


@pytest.mark.parametrize("scale", [1.0, 1e200])
def test_wide_sparse_new_points_follow_the_stored_entries(scale):
    """transform of new wide rows, near and far: no vector with a number per feature."""
    model = smallvis.Embedding("umap", n_iter=5, random_state=0).fit(_wide())
    X_new = _wide(n=3, nnz=60, seed=1) * scale
    Y, peak = _peak_mib(lambda: model.transform(X_new))
    assert np.all(np.isfinite(Y)) and peak < 16


def test_ordinary_sparse_init_is_the_pca_of_the_truncated_svd_scores():
    """Every column used: the start is the PCA of the top 8 singular directions' scores."""
    rng = np.random.default_rng(1)
    X = sp.random(200, 40, density=0.3, random_state=2, format="csr")
    X.data += 1.0
    assert len(np.unique(X.indices)) == X.shape[1]
    scores = fit_projection(X, SPARSE_INIT_RANK, 5, centre=False).apply(X)
    np.testing.assert_array_equal(data_coordinates(X, 5), scores)
    Y0 = initialize("spca", scores, 2, rng)
    np.testing.assert_array_equal(
        smallvis.embed(X, "tsne", init="spca", n_iter=20, random_state=5),
        smallvis.embed(X, "tsne", init=Y0, n_iter=20, random_state=5))


def test_annoy_search_reads_one_copy_of_x_during_the_refinement(monkeypatch):
    """Only the rows in leaf order are held once the forest exists, not the scaled copy too.

    The largest entry of X lies outside [0.5, 1), so the search divides X
    by a power of two (a copy) and searches that copy in leaf order
    (another): the first is dropped once the forest is built.
    """
    from smallvis.inputs import neighbors

    X = 8.0 * np.random.default_rng(0).normal(size=(2000, 100))
    held = []

    def traced_refine(rows, *args, **kwargs):
        held.append(tracemalloc.get_traced_memory()[0])
        return real_refine(rows, *args, **kwargs)

    real_refine = neighbors.refine
    monkeypatch.setattr(neighbors, "refine", traced_refine)
    tracemalloc.start()
    try:
        neighbors.knn_graph(X, 5, method="annoy", random_state=0, fast=True)
    finally:
        tracemalloc.stop()
    # one copy of X (1.6 MB) and the (n, 5) lists (0.1 MB); two copies before
    assert len(held) == 1 and held[0] < 1.5 * X.nbytes


# ---------------------------------------------------------------------------
# the stochastic optimizer reuses P's values when nothing else reads them
# ---------------------------------------------------------------------------

def _record_prepare(monkeypatch):
    """Wrap sgd.prepare: record whether each problem's alias table lives in P's values."""
    from smallvis.engines import sgd

    seen = []
    real = sgd.prepare

    def recording(spec, P, *args, **kwargs):
        problem = real(spec, P, *args, **kwargs)
        seen.append(bool(len(problem.edge_alias))
                    and np.shares_memory(problem.edge_weight, P.data))
        return problem

    monkeypatch.setattr(sgd, "prepare", recording)
    return seen


def _alias_methods():
    from smallvis.registry import METHODS

    return [name for name, m in METHODS.items() if m.sgd is not None
            and m.sgd.scheme == "alias"]


@pytest.mark.parametrize("method", _alias_methods())
def test_the_alias_table_takes_the_place_of_p_only_when_p_is_not_returned(method,
                                                                         monkeypatch):
    """Above the exact-cost size, a P built by embed and not returned holds the edge table.

    The map has the same bits either way; P returned, or given by the
    user, keeps its values.
    """
    from smallvis.engines.sgd import SGD_COST_MAX_N

    X = np.random.default_rng(1).normal(size=(SGD_COST_MAX_N + 500, 5))
    seen = _record_prepare(monkeypatch)
    kw = dict(n_epochs=5, random_state=3)
    Y = smallvis.embed(X, method, **kw)
    result = smallvis.embed(X, method, return_result=True, **kw)
    light = smallvis.embed(X, method, return_result=True, keep_affinities=False, **kw)
    assert seen == [True, False, True]
    np.testing.assert_array_equal(Y, result.Y)
    np.testing.assert_array_equal(Y, light.Y)
    assert light.P is None and light.cost == result.cost
    from smallvis.estimator import fitted_from_result
    with pytest.raises(ValueError, match="keep_affinities"):
        fitted_from_result(X, light, seed=3, n_epochs=5, random_state=3)
    P = result.P.copy()
    Y_given = smallvis.embed(None, method, affinities=result.P, n_epochs=5, random_state=3,
                             init="random")
    assert seen[-1] is False and np.all(np.isfinite(Y_given))
    assert (result.P != P).nnz == 0


@pytest.mark.parametrize("method", _alias_methods())
def test_a_small_run_keeps_p_for_its_exact_final_cost(method, monkeypatch):
    seen = _record_prepare(monkeypatch)
    X = np.random.default_rng(2).normal(size=(300, 4))
    smallvis.embed(X, method, optimizer="sgd", n_epochs=5, random_state=0)
    assert seen == [False]


@pytest.mark.parametrize("method", _alias_methods())
def test_the_command_line_keeps_p_only_for_a_saved_model(method, tmp_path, monkeypatch):
    """Only ``--save-model`` reads P after the fit; without it the optimizer may use its memory."""
    from smallvis.cli import main
    from smallvis.engines.sgd import SGD_COST_MAX_N

    data = tmp_path / "points.npy"
    np.save(data, np.random.default_rng(4).normal(size=(SGD_COST_MAX_N + 500, 5)))
    seen = _record_prepare(monkeypatch)
    common = ["embed", str(data), "--method", method, "--n-epochs", "5", "--quiet",
              "--random-state", "0"]
    assert main(common + ["--out", str(tmp_path / "a.csv")]) == 0
    assert main(common + ["--out", str(tmp_path / "b.csv"),
                          "--save-model", str(tmp_path / "model.npz")]) == 0
    assert seen == [True, False]
    np.testing.assert_array_equal(np.loadtxt(tmp_path / "a.csv", delimiter=",", skiprows=1),
                                  np.loadtxt(tmp_path / "b.csv", delimiter=",", skiprows=1))
