"""The quality measures of benchmarks/bench_real.py against brute force.

Every expected value is computed here independently: full distance matrices
written out with NumPy broadcasting on 30 points, neighbour sets compared
as Python sets, and maps built by hand whose number of pieces per class is
known.
"""

import importlib
import os
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture(scope="module")
def bench_real():
    """The benchmark module, imported without keeping its thread settings."""
    saved_env, saved_path = dict(os.environ), list(sys.path)
    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module("bench_real")
    finally:
        sys.path[:] = saved_path
        os.environ.clear()
        os.environ.update(saved_env)


def brute_distances(A, metric):
    """All pairwise distances of the rows of A, by broadcasting."""
    diff = A[:, None, :] - A[None, :, :]
    if metric == "euclidean":
        return np.sqrt((diff ** 2).sum(axis=2))
    if metric in ("cityblock", "manhattan"):
        return np.abs(diff).sum(axis=2)
    if metric == "correlation":
        A = A - A.mean(axis=1, keepdims=True)
    unit = A / np.linalg.norm(A, axis=1, keepdims=True)
    return 1.0 - unit @ unit.T


def brute_neighbors(A, rows, k, metric):
    D = brute_distances(A, metric)
    np.fill_diagonal(D, np.inf)
    return np.argsort(D[rows], axis=1, kind="stable")[:, :k]


@pytest.fixture
def points():
    rng = np.random.default_rng(3)
    X = rng.random((30, 6))
    X[X < 0.4] = 0.0  # zeros, so the sparse form is really sparse
    return X


@pytest.mark.parametrize("metric", ["euclidean", "cosine", "correlation", "cityblock",
                                    "manhattan"])
def test_exact_neighbors_dense(bench_real, points, metric):
    rows = np.array([0, 4, 7, 21, 29])
    got = bench_real.exact_neighbors_of(points, rows, 5, metric)
    np.testing.assert_array_equal(got, brute_neighbors(points, rows, 5, metric))


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_exact_neighbors_sparse(bench_real, points, metric):
    rows = np.arange(30)
    got = bench_real.exact_neighbors_of(sp.csr_matrix(points), rows, 5, metric)
    np.testing.assert_array_equal(got, brute_neighbors(points, rows, 5, metric))


def test_exact_neighbors_in_blocks(bench_real, points, monkeypatch):
    # two rows per block: the blocks are stitched in the right order
    monkeypatch.setattr(bench_real, "BLOCK_ENTRIES", 60)
    rows = np.arange(30)
    got = bench_real.exact_neighbors_of(points, rows, 4, "euclidean")
    np.testing.assert_array_equal(got, brute_neighbors(points, rows, 4, "euclidean"))


def test_sparse_other_metric_is_a_clear_error(bench_real, points):
    with pytest.raises(ValueError, match="cityblock"):
        bench_real.exact_neighbors_of(sp.csr_matrix(points), [0], 3, "cityblock")


def test_preservation_against_sets(bench_real, points):
    rng = np.random.default_rng(4)
    Y = points[:, :2] + 0.05 * rng.standard_normal((30, 2))
    rows = np.array([1, 2, 3, 10, 20, 25])
    k = 6
    nn_x = bench_real.exact_neighbors_of(points, rows, k)
    got = bench_real.knn_preservation_at(nn_x, Y, rows, k)
    in_x = brute_neighbors(points, rows, k, "euclidean")
    in_y = brute_neighbors(Y, rows, k, "euclidean")
    shared = sum(len(set(a) & set(b)) for a, b in zip(in_x, in_y))
    assert got == pytest.approx(shared / (len(rows) * k))
    assert 0.0 < got < 1.0
    assert bench_real.knn_preservation_at(nn_x, points, rows, k) == 1.0


def test_fixed_rows(bench_real):
    rows = bench_real.fixed_rows(70_000)
    assert rows.size == 5000 and np.all(np.diff(rows) > 0) and rows[-1] < 70_000
    np.testing.assert_array_equal(rows, bench_real.fixed_rows(70_000))
    np.testing.assert_array_equal(bench_real.fixed_rows(30), np.arange(30))


def _grid(nx, ny, origin):
    gx, gy = np.meshgrid(np.arange(nx), np.arange(ny))
    return np.column_stack([gx.ravel(), gy.ravel()]) + np.asarray(origin, float)


def test_pieces_per_class(bench_real):
    pytest.importorskip("sklearn")
    # class 0: two 20 x 20 grids far apart, plus a 12-point satellite (a
    # DBSCAN cluster, but 12 / 812 < 2% of the class); class 1: one grid.
    # The 15th neighbour of a grid point is at most sqrt(8) away, so eps is
    # below 6, far below the gaps of 100: 2 and 1 pieces, mean 1.5.
    class0 = np.vstack([_grid(20, 20, (0, 0)), _grid(20, 20, (100, 0)),
                        _grid(3, 4, (0, 100))])
    class1 = _grid(20, 20, (100, 100))
    Y = np.vstack([class0, class1])
    labels = np.repeat([0, 1], [len(class0), len(class1)])
    assert bench_real.pieces_per_class(Y, labels) == 1.5
    # with a 1% threshold the satellite counts: 3 and 1 pieces
    assert bench_real.pieces_per_class(Y, labels, min_fraction=0.01) == 2.0


def test_pieces_needs_sklearn(bench_real, monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn", None)
    monkeypatch.setitem(sys.modules, "sklearn.cluster", None)
    with pytest.raises(ImportError, match="scikit-learn"):
        bench_real.pieces_per_class(np.zeros((20, 2)), np.zeros(20))


def test_load_data(bench_real, points, tmp_path):
    np.save(tmp_path / "X.npy", points.astype(np.float32))
    sp.save_npz(tmp_path / "X.npz", sp.csc_matrix(points))
    dense = bench_real.load_data(str(tmp_path / "X.npy"))
    sparse = bench_real.load_data(str(tmp_path / "X.npz"))
    assert dense.dtype == np.float64 and sp.isspmatrix_csr(sparse)
    np.testing.assert_array_equal(sparse.toarray(), points)
    with pytest.raises(ValueError, match=".npy"):
        bench_real.load_data(str(tmp_path / "X.csv"))


def test_the_table_lists_each_runs_pieces(bench_real):
    runs = [{"seconds": s, "peak_kb": 2 * 1024 ** 2, "base_kb": 1024 ** 2, "acc10": 0.9,
             "pres15": 0.1, "pieces": p, "y": f"{i}.npy"}
            for i, (s, p) in enumerate([(3.0, 1.6), (1.0, 1.2), (2.0, 1.3)])]
    header, _, row = bench_real.format_rows({"largevis": runs})
    assert header.endswith("| pieces per class (runs) |")
    # medians by hand: 2.0 s, 1.3 pieces; the runs in their order
    assert row == ("| largevis | 2.0 (3.0, 1.0, 2.0) | 2.00 | 1.00 | 0.900 | 0.100 "
                   "| 1.3 (1.6, 1.2, 1.3) |")
    without = [dict(r, pieces=None) for r in runs]
    assert bench_real.format_rows({"tsne": without})[2].endswith("| - |")


def test_the_runs_take_the_seeds_from_first_seed(bench_real, tmp_path, monkeypatch):
    data, labels = tmp_path / "X.npy", tmp_path / "labels.npy"
    np.save(data, np.zeros((4, 2)))
    np.save(labels, np.zeros(4))
    seeds = []
    monkeypatch.setattr(bench_real, "run_method",
                        lambda method, seed, *rest: seeds.append(seed) or {"error": "skipped"})
    monkeypatch.setattr(sys, "argv", ["bench_real.py", str(data), str(labels),
                                      "--methods", "largevis", "--repeats", "3",
                                      "--first-seed", "6"])
    bench_real.main()
    assert seeds == [6, 7, 8]
    monkeypatch.setattr(sys, "argv", ["bench_real.py", str(data), str(labels),
                                      "--first-seed", "-1"])
    with pytest.raises(SystemExit, match="first-seed"):
        bench_real.main()


def _thread_caps_seen_by_a_child(bench_real, mode):
    """The thread variables as a child started in ``mode`` sees them after importing _common."""
    import json
    import subprocess

    code = ("import json, os, sys; sys.path.insert(0, sys.argv[1]); import _common; "
            "print(json.dumps({v: os.environ.get(v) for v in _common.THREAD_VARS}))")
    out = subprocess.run([sys.executable, "-c", code, str(BENCHMARKS)], check=True,
                         capture_output=True, text=True, env=bench_real.child_env(mode))
    return json.loads(out.stdout)


def test_children_run_on_one_thread_or_at_the_libraries_defaults(bench_real, monkeypatch):
    # the parent's own caps must not reach a child run at the defaults
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("RCPP_PARALLEL_NUM_THREADS", "1")
    one, defaults = bench_real.child_env("one"), bench_real.child_env("defaults")
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "NUMBA_NUM_THREADS", "RCPP_PARALLEL_NUM_THREADS"):
        assert one[var] == "1"
        assert var not in defaults
    # and importing the benchmarks' helpers in the child must not cap them again
    assert set(_thread_caps_seen_by_a_child(bench_real, "one").values()) == {"1"}
    assert set(_thread_caps_seen_by_a_child(bench_real, "defaults").values()) == {None}


def _runs_of_main(bench_real, tmp_path, monkeypatch, *options):
    """The (method, seed, mode) of each run ``main`` asks for with ``options``, in order."""
    data, labels = tmp_path / "X.npy", tmp_path / "labels.npy"
    np.save(data, np.zeros((4, 2)))
    np.save(labels, np.zeros(4))
    calls = []
    monkeypatch.setattr(bench_real, "run_method",
                        lambda method, seed, args, work, r_input, mode="one":
                        calls.append((method, seed, mode)) or {"error": "skipped"})
    monkeypatch.setattr(sys, "argv", ["bench_real.py", str(data), str(labels), *options])
    bench_real.main()
    return calls


def test_both_modes_are_run_side_by_side(bench_real, tmp_path, monkeypatch):
    calls = _runs_of_main(bench_real, tmp_path, monkeypatch,
                          "--methods", "largevis", "umap-learn", "--threads", "both")
    assert calls == [("largevis", 0, "one"), ("largevis", 0, "defaults"),
                     ("umap-learn", 0, "one"), ("umap-learn", 0, "defaults")]


def test_a_seeds_two_modes_follow_one_another(bench_real, tmp_path, monkeypatch):
    calls = _runs_of_main(bench_real, tmp_path, monkeypatch,
                          "--methods", "largevis", "--threads", "both", "--repeats", "2")
    assert calls == [("largevis", 0, "one"), ("largevis", 0, "defaults"),
                     ("largevis", 1, "one"), ("largevis", 1, "defaults")]


def test_the_gain_is_the_median_of_each_seeds_ratio(bench_real):
    one = [{"seconds": s} for s in (20.0, 30.0, 18.0)]
    defaults = [{"seconds": s} for s in (10.0, 12.0, 12.0)]
    results = {"largevis (1 thread)": one, "largevis (defaults)": defaults,
               "umap-learn (1 thread)": [{"error": "exit 1"}],
               "umap-learn (defaults)": [{"seconds": 5.0}]}
    lines = bench_real.format_gains(results, ["largevis", "umap-learn"])
    # ratios by hand: 2.0, 2.5, 1.5; their median 2.0 (a ratio of medians would be 20/12)
    assert lines[2] == "| largevis | 2.00 (2.00, 2.50, 1.50) |"
    assert lines[3] == "| umap-learn | - |"
