"""The compiled kNN rows keep the reference's graph bit for bit, on lists long enough to sort.

``knn_candidates`` and ``knn_refine`` snap each squared distance to a
40-bit mantissa (the tie key), sort each row's candidates by (key, index)
and merge them with the row's list.  The compiled rows snap with integer
operations and sort by merges of runs of 16; these tests check the keys
against :func:`smallvis._numeric.tie_key` on the values where a shortcut
could differ (halfway cases, carries into the exponent, the largest
doubles, zeros, subnormals, infinity), and both kernels against the NumPy
twins on rows of more than a hundred candidates with exact ties, on one
and several threads.
"""

import numpy as np
import pytest

from smallvis._numeric import tie_key
from smallvis.backends import _kernels, reference


def _bits(a):
    return np.asarray(a, dtype=np.float64).view(np.uint64)


def test_compiled_tie_keys_are_the_reference_keys_bit_for_bit():
    rng = np.random.default_rng(0)
    spread = rng.random(20000) * 10.0 ** rng.integers(-300, 300, 20000)
    raw = rng.integers(0, 0x7FF0000000000000, 20000, dtype=np.uint64).view(np.float64)
    # fractions whose low 13 bits sit at, just below and just above one half,
    # with the last kept bit even and odd, and with all kept bits set (carry)
    halfway = []
    for kept in (0, 1, 0x7FFFFFFFFF, 0x5555555554, 0x5555555555):
        for low in (0xFFF, 0x1000, 0x1001, 0x1FFF, 0):
            for exponent in (1, 1022, 1023, 1100, 0x7FE):
                halfway.append((exponent << 52) | (kept << 13) | low)
    halfway = np.array(halfway, dtype=np.uint64).view(np.float64)
    special = np.array([0.0, 5e-324, 2.2250738585072009e-308, 2.2250738585072014e-308,
                        1.7976931348623157e308, np.inf, 1.0, 0.5, 2.0, 3.0])
    with np.errstate(over="ignore"):
        for values in (spread, raw, halfway, special):
            np.testing.assert_array_equal(_bits(_kernels._tie_keys(values)),
                                          _bits(tie_key(values)))
    # a value that rounds up from the largest binade overflows, as in the reference
    assert np.isinf(_kernels._tie_keys(np.array([1.7976931348623157e308])))[0]


def _tied_rows(n, dim, seed):
    """Points on a coarse grid, a quarter of them repeated: many equal distances."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, dim)).astype(float)
    X[: n // 4] = X[n // 4: n // 2]
    return X


@pytest.mark.parametrize("n_threads", [1, 3])
def test_knn_candidates_on_long_lists_are_the_reference_s(n_threads):
    n, m, k = 260, 150, 60
    X = _tied_rows(n, 6, seed=1)
    rng = np.random.default_rng(2)
    cand = rng.integers(-1, n, size=(n, m)).astype(np.int32)  # repeats, -1, the row itself
    cand[5, :] = -1  # a row with no valid candidate
    cand[6, :40] = np.arange(40)
    cand[6, 40:] = 3  # a row with fewer than k
    out = []
    for module, threads in ((reference, 1), (_kernels, n_threads)):
        idx, d2 = np.empty((n, k), dtype=np.int32), np.empty((n, k))
        short = module.knn_candidates(X, cand, idx, d2, threads)
        out.append((short, idx, d2))
    assert out[0][0] == out[1][0] >= 2
    np.testing.assert_array_equal(out[0][1], out[1][1])
    np.testing.assert_array_equal(_bits(out[0][2]), _bits(out[1][2]))


def _round(module, X, idx, d2, flags, w, n_threads):
    out = (np.empty_like(idx), np.empty_like(d2), np.empty_like(flags))
    changed = module.knn_refine(X, idx, d2, flags, w, *out, n_threads)
    return out + (changed,)


@pytest.mark.parametrize("n_threads", [1, 2])
def test_knn_refine_on_long_lists_is_the_reference_s(n_threads):
    """Rounds of a 40-neighbour graph (windows of 10: hundreds of candidates a row)."""
    n, k, w = 300, 40, 10
    X = _tied_rows(n, 5, seed=3)
    rng = np.random.default_rng(4)
    # a poor start: random distinct neighbours, some rows padded with -1
    idx = np.array([rng.permutation(np.delete(np.arange(n), i))[:k] for i in range(n)],
                   dtype=np.int32)
    idx[::7, k - 5:] = -1
    d2 = np.where(idx >= 0, ((X[np.maximum(idx, 0)] - X[:, None, :]) ** 2).sum(axis=2),
                  np.inf)
    keys = tie_key(d2)
    by = np.lexsort((np.where(idx < 0, n, idx), keys), axis=-1)
    idx, d2 = np.take_along_axis(idx, by, 1), np.take_along_axis(d2, by, 1)
    flags = np.full(idx.shape, 3, dtype=np.uint8)
    changed = []
    for _ in range(5):
        fast = _round(_kernels, X, idx, d2, flags, w, n_threads)
        ref = _round(reference, X, idx, d2, flags, w, 1)
        np.testing.assert_array_equal(fast[0], ref[0])
        np.testing.assert_array_equal(_bits(fast[1]), _bits(ref[1]))
        np.testing.assert_array_equal(fast[2], ref[2])
        assert fast[3] == ref[3]
        # the distances written in place, as refinement.refine passes them
        in_place = d2.copy()
        out_idx, out_flags = np.empty_like(idx), np.empty_like(flags)
        assert _kernels.knn_refine(X, idx, in_place, flags, w, out_idx, in_place, out_flags,
                                   n_threads) == ref[3]
        np.testing.assert_array_equal(out_idx, ref[0])
        np.testing.assert_array_equal(_bits(in_place), _bits(ref[1]))
        np.testing.assert_array_equal(out_flags, ref[2])
        changed.append(fast[3])
        idx, d2, flags = fast[:3]
    assert (idx >= 0).all()
    # rounds with rows that changed and rows that did not (whose lists are
    # copied without the merge), and a last round in which none changed
    assert any(0 < c < n for c in changed) and changed[-1] == 0
