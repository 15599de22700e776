"""The measures of ``benchmarks/bench_spectrum.py`` that smallvis.metrics lacks,
against values computed independently on tiny sets."""

import importlib.util
import sys
import types
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_spectrum.py"


@pytest.fixture(scope="module")
def bench():
    # the benchmark's `_common` only pins BLAS threads, which a test process must not do
    saved = sys.modules.get("_common")
    sys.modules["_common"] = types.ModuleType("_common")
    try:
        spec = importlib.util.spec_from_file_location("bench_spectrum", BENCH)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        if saved is None:
            del sys.modules["_common"]
        else:
            sys.modules["_common"] = saved
    return module


def _ranks(values):
    """1-based ranks of distinct values."""
    ranks = np.empty(len(values))
    ranks[np.argsort(values)] = np.arange(1, len(values) + 1)
    return ranks


def test_distance_correlation_of_all_pairs_is_spearman_by_hand(bench):
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(7, 4)), rng.normal(size=(7, 2))
    pairs = [(i, j) for i in range(7) for j in range(i + 1, 7)]
    dx = np.array([np.sqrt(np.sum((X[i] - X[j]) ** 2)) for i, j in pairs])
    dy = np.array([np.sqrt(np.sum((Y[i] - Y[j]) ** 2)) for i, j in pairs])
    # Spearman without ties: 1 - 6 sum(rank differences^2) / (n (n^2 - 1))
    n = len(pairs)
    expected = 1 - 6 * np.sum((_ranks(dx) - _ranks(dy)) ** 2) / (n * (n * n - 1))
    assert bench.distance_correlation(X, Y, n_pairs=None) == pytest.approx(expected, abs=1e-12)


def test_distance_correlation_ignores_scale_and_sees_order(bench):
    # three points on a line: distances 1, 2, 3 in X
    X = np.array([[0.0], [1.0], [3.0]])
    assert bench.distance_correlation(X, 5 * X + 2, n_pairs=None) == pytest.approx(1.0)
    # pairs (0-1, 0-2, 1-2): distances 1, 3, 2 in X, 1, 2, 3 in Y; rank differences 0, 1, -1
    Y = np.array([[0.0], [1.0], [-2.0]])
    assert bench.distance_correlation(X, Y, n_pairs=None) == pytest.approx(0.5)


def test_sampled_pairs_are_distinct_points_uniform_over_pairs(bench):
    i, j = bench.sampled_pairs(4, 60_000, np.random.default_rng(0))
    assert np.all(i != j) and i.min() >= 0 and max(i.max(), j.max()) == 3
    counts = np.zeros((4, 4))
    np.add.at(counts, (np.minimum(i, j), np.maximum(i, j)), 1)
    shares = counts[np.triu_indices(4, 1)] / 60_000
    np.testing.assert_allclose(shares, 1 / 6, atol=0.01)


def test_sampled_distance_correlation_tends_to_all_pairs(bench):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 5))
    Y = X[:, :2] + 0.3 * rng.normal(size=(60, 2))
    full = bench.distance_correlation(X, Y, n_pairs=None)
    assert bench.distance_correlation(X, Y, n_pairs=50_000) == pytest.approx(full, abs=0.02)


def test_partition_function_sums_ordered_pairs(bench):
    Y = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    # squared distances 1, 4, 5; each unordered pair counted twice
    expected = 2 * (1 / 2 + 1 / 5 + 1 / 6)
    assert bench.partition_function(Y) == pytest.approx(expected)
