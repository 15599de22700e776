"""The AVX2 loop of the kNN kernels' squared distances gives the scalar loop's bits.

The vector loop (``smallvis/backends/_sq_dists_simd.h``) holds four
candidates per register and must still add each candidate's squared
differences feature by feature in order.  These tests run the kernels that
use it (``knn_candidates``, ``knn_refine``) with it on and off, and check
the distances against a sum written out in plain Python, on data whose
sums round differently in any other order.
"""

import numpy as np
import pytest

from smallvis.backends import _kernels, reference


@pytest.fixture
def vector_loop():
    """Yields whether the vector loop could be switched on; always leaves it on (the default)."""
    on = _kernels._vector_sq_dists(True)
    yield on
    _kernels._vector_sq_dists(True)


def _rough_data(n, dim, seed):
    """Rows whose features span many orders of magnitude, so that the order of the adds shows."""
    rng = np.random.default_rng(seed)
    scale = 10.0 ** rng.integers(-6, 7, size=(n, dim))
    return rng.standard_normal((n, dim)) * scale


def _sequential_sq_dist(a, b):
    """sum_f (a_f - b_f)^2, added one feature after another in plain Python floats."""
    s = 0.0
    for x, y in zip(a.tolist(), b.tolist()):
        e = x - y
        s += e * e
    return s


def _candidates_both_ways(X, cand, k):
    outs = []
    for on in (False, True):
        _kernels._vector_sq_dists(on)
        idx = np.empty((X.shape[0], k), dtype=np.int32)
        d2 = np.empty((X.shape[0], k))
        short = _kernels.knn_candidates(X, cand, idx, d2, 1)
        outs.append((short, idx, d2))
    return outs


@pytest.mark.parametrize("dim", [1, 3, 4, 5, 8, 13, 64, 67])
@pytest.mark.parametrize("m", [3, 4, 7, 8, 12, 21])
def test_vector_loop_gives_the_scalar_bits_and_the_in_order_sum(vector_loop, dim, m):
    if not vector_loop:
        pytest.skip("this processor has no AVX2: only the scalar loop runs")
    n = 40
    X = _rough_data(n, dim, seed=dim * 100 + m)
    X[5] = X[6]  # a duplicate: a distance of exactly 0
    rng = np.random.default_rng(m)
    cand = np.stack([rng.permutation(np.delete(np.arange(n), i))[:m] for i in range(n)])
    cand = cand.astype(np.int32)
    (s0, i0, d0), (s1, i1, d1) = _candidates_both_ways(X, cand, m)
    assert s0 == s1 == 0
    np.testing.assert_array_equal(i0, i1)
    assert np.array_equal(d0.view(np.int64), d1.view(np.int64))
    for i in range(n):
        expected = [_sequential_sq_dist(X[i], X[c]) for c in i1[i]]
        assert d1[i].tolist() == expected


def test_the_order_of_the_adds_shows_on_this_data():
    """The data above is a real check: summed in another order, some distances differ."""
    X = _rough_data(40, 64, seed=1)
    e2 = (X[1:] - X[0]) ** 2
    in_order = np.array([_sequential_sq_dist(X[0], X[c]) for c in range(1, 40)])
    four_lanes = e2.reshape(39, 16, 4).sum(axis=1).sum(axis=1)  # lanes of four features
    assert np.any(in_order != four_lanes)


def test_vector_loop_keeps_nan_and_inf_as_the_scalar_loop(vector_loop):
    if not vector_loop:
        pytest.skip("this processor has no AVX2: only the scalar loop runs")
    X = _rough_data(30, 9, seed=3)
    X[4, 2] = np.inf
    X[7, 8] = np.nan
    cand = np.tile(np.arange(30, dtype=np.int32), (30, 1))
    (s0, i0, d0), (s1, i1, d1) = _candidates_both_ways(X, cand, 29)
    assert s0 == s1
    np.testing.assert_array_equal(i0, i1)
    assert np.array_equal(d0.view(np.int64), d1.view(np.int64))
    assert np.isnan(d1).any() and np.isinf(d1).any()


def test_refinement_rounds_agree_with_the_vector_loop_on_and_off(vector_loop):
    if not vector_loop:
        pytest.skip("this processor has no AVX2: only the scalar loop runs")
    n, k = 120, 9
    X = _rough_data(n, 33, seed=4)
    rng = np.random.default_rng(4)
    start = rng.integers(-1, n, size=(n, 16)).astype(np.int32)
    idx = np.empty((n, k), dtype=np.int32)
    d2 = np.empty((n, k))
    reference.knn_candidates(X, start, idx, d2, 1)
    flags = np.full((n, k), 3, dtype=np.uint8)
    outs = []
    for on in (False, True):
        _kernels._vector_sq_dists(on)
        out = (np.empty_like(idx), np.empty_like(d2), np.empty_like(flags))
        changed = _kernels.knn_refine(X, idx, d2, flags, k, *out, 1)
        outs.append((changed,) + out)
    assert outs[0][0] == outs[1][0] > 0
    for a, b in zip(outs[0][1:], outs[1][1:]):
        assert np.array_equal(a.view(np.uint8), b.view(np.uint8))
