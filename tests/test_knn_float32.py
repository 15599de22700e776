"""Exact distances read from a float32 copy give the float64 path's bits.

When every entry of the data is a float32 number (8-bit or float32
images), the projected search's exact distances (``knn_candidates``) read
a float32 copy, half the memory, and widen each entry to float64 before
the same subtractions, squares and adds in the same order.  These tests
check the kernels (compiled with the vector loop on and off, and the NumPy
twin) on float32 rows against the same kernels on the float64 copy, bit
for bit, on data whose sums round differently in any other order; the
copy's guard (:func:`smallvis.inputs.projected_search.float32_rows`); and
that the graph of 8-bit images is the graph of the float64 path.
"""

import warnings

import numpy as np
import pytest

from smallvis.backends import _kernels, reference
from smallvis.inputs import neighbors, projected_search


@pytest.fixture
def vector_loop():
    """Yields whether the vector loop could be switched on; always leaves it on (the default)."""
    on = _kernels._vector_sq_dists(True)
    yield on
    _kernels._vector_sq_dists(True)


def _rough_float32(n, dim, seed):
    """float32 rows spanning many orders of magnitude, so that the order of the adds shows."""
    rng = np.random.default_rng(seed)
    scale = 10.0 ** rng.integers(-6, 7, size=(n, dim))
    return (rng.standard_normal((n, dim)) * scale).astype(np.float32)


def _best(module, X, cand, k, n_threads=1, order=None):
    n = X.shape[0]
    idx, d2 = np.empty((n, k), dtype=np.int32), np.empty((n, k))
    short = module.knn_candidates(X, cand, idx, d2, n_threads, 0, 0, None, order)
    return short, idx, d2.view(np.uint64)


@pytest.mark.parametrize("dim", [1, 3, 4, 7, 16, 67])
@pytest.mark.parametrize("m", [3, 5, 20, 37])
def test_float32_rows_give_the_float64_bits(vector_loop, dim, m):
    n = 48
    X32 = _rough_float32(n, dim, seed=dim * 100 + m)
    X32[5] = X32[6]  # a duplicate: a distance of exactly 0
    X64 = X32.astype(np.float64)
    rng = np.random.default_rng(m)
    cand = rng.integers(-1, n, size=(n, m)).astype(np.int32)  # repeats, -1, the row itself
    k = min(m, 12)
    order = rng.permutation(n).astype(np.int64)
    expected = _best(reference, X64, cand, k)
    runs = [_best(reference, X32, cand, k)]
    for on in ((False, True) if vector_loop else (False,)):
        _kernels._vector_sq_dists(on)
        runs.append(_best(_kernels, X64, cand, k))
        runs.append(_best(_kernels, X32, cand, k))
        runs.append(_best(_kernels, X32, cand, k, n_threads=3, order=order))
    for short, idx, bits in runs:
        assert short == expected[0]
        np.testing.assert_array_equal(idx, expected[1])
        np.testing.assert_array_equal(bits, expected[2])


def test_float32_rows_of_other_metrics_are_widened_first():
    X32 = _rough_float32(30, 9, seed=3)
    cand = np.random.default_rng(4).integers(-1, 30, size=(30, 10)).astype(np.int32)
    for code in (1, 2):
        out = []
        for X in (X32.astype(np.float64), X32):
            idx, d2 = np.empty((30, 6), dtype=np.int32), np.empty((30, 6))
            _kernels.knn_candidates(X, cand, idx, d2, 1, code)
            out.append((idx, d2.view(np.uint64)))
        np.testing.assert_array_equal(out[0][0], out[1][0])
        np.testing.assert_array_equal(out[0][1], out[1][1])


@pytest.mark.parametrize("n_threads", [1, 2])
def test_float32_copy_only_when_every_entry_is_a_float32(n_threads, monkeypatch):
    # blocks of 64 rows: the 600 rows span several, the last one short
    monkeypatch.setattr(projected_search, "_FLOAT32_BLOCK_ROWS", 64)
    rng = np.random.default_rng(0)
    pixels = rng.integers(0, 256, size=(600, 20)).astype(np.float64) / 255.0
    pixels32 = pixels.astype(np.float32).astype(np.float64)  # float32 images, read as float64
    copy = projected_search.float32_rows(pixels32, n_threads)
    assert copy is not None and copy.dtype == np.float32
    np.testing.assert_array_equal(copy.astype(np.float64), pixels32)
    assert projected_search.float32_rows(pixels, n_threads) is None  # 1/255 needs float64's fraction
    late = pixels32.copy()
    late[-1, -1] = 0.1  # one float64 entry past the rows tried first, in the last block
    assert projected_search.float32_rows(late, n_threads) is None
    huge = pixels32.copy()
    huge[400, 3] = 1e300  # beyond float32's range, past the rows tried first
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the overflowing cast is expected, not reported
        assert projected_search.float32_rows(huge, n_threads) is None
    tiny = pixels32.copy()
    tiny[3, 3] = 2.0 ** -140  # a float32 subnormal: exact
    assert projected_search.float32_rows(tiny, n_threads) is not None


def test_graph_of_8bit_images_is_the_float64_paths(monkeypatch):
    rng = np.random.default_rng(5)
    n, dim = 900, projected_search.MIN_FEATURES + 12
    centres = rng.integers(0, 256, size=(6, dim))
    X = np.clip(centres[rng.integers(0, 6, n)] + rng.integers(-40, 41, size=(n, dim)), 0, 255)
    X = X.astype(np.uint8)
    read = []
    real = projected_search.float32_rows

    def spy(A, n_threads=1):
        out = real(A, n_threads)
        read.append(out is not None)
        return out

    monkeypatch.setattr(projected_search, "float32_rows", spy)
    got = neighbors.knn_graph(X, 15, method="annoy", n_trees=3, random_state=0, fast=True)
    assert read == [True]
    monkeypatch.setattr(projected_search, "float32_rows", lambda A, n_threads=1: None)
    want = neighbors.knn_graph(X, 15, method="annoy", n_trees=3, random_state=0, fast=True)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(np.asarray(got[1]).view(np.uint64),
                                  np.asarray(want[1]).view(np.uint64))
