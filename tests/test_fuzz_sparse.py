"""Fuzzing sparse X: the promises of dense X (docs/reliability.md §1) hold for it.

Hypothesis draws sparse matrices in every scipy format (CSR, CSC, COO
with duplicate entries), with empty rows, explicit zeros and wide shapes
(a few entries in thousands of columns), in units from 1e-300 to 1e300.
For each, the neighbours and ``P`` are checked against

* the same matrix in other units: a power of two changes no bit, a power
  of ten changes the distances by rounding only;
* the same data as a dense array: the same neighbours' distances and P;

and every call either works or raises one of the documented exceptions.
The example counts are small (a few seconds); ``SMALLVIS_FUZZ_EXAMPLES``
raises them, as for tests/test_fuzz.py.
"""

import warnings

import numpy as np
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import smallvis
from smallvis.inputs.distances import SCALED_METRICS
from smallvis.inputs.neighbors import nearest_neighbors
from smallvis.inputs.sparse_search import SPARSE_METRICS

from test_fuzz import CLEAN_ERRORS, fuzz_settings

FORMATS = ("csr", "csc", "coo")


@st.composite
def sparse_X(draw):
    """``(S, dense)``: a sparse matrix in some format and the array it stores."""
    wide = draw(st.booleans())
    n = draw(st.integers(4, 30))
    d = draw(st.integers(2000, 5000)) if wide else draw(st.integers(1, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    nnz = draw(st.integers(1, min(n * d, 4 * n if wide else n * d)))
    rows = rng.integers(n, size=nnz)
    cols = rng.integers(d, size=nnz)
    # values of a few decades either side of 1, both signs; some exact zeros
    vals = rng.choice([-1.0, 1.0], size=nnz) * 10.0 ** rng.uniform(-3, 3, size=nnz)
    vals[rng.random(nnz) < draw(st.sampled_from([0.0, 0.1]))] = 0.0
    if draw(st.booleans()):  # an empty row
        keep = rows != rng.integers(n)
        rows, cols, vals = rows[keep], cols[keep], vals[keep]
    # COO keeps duplicate (row, column) entries, summed by every reader
    S = sp.coo_matrix((vals, (rows, cols)), shape=(n, d))
    dense = S.toarray()
    fmt = draw(st.sampled_from(FORMATS))
    return (S if fmt == "coo" else S.asformat(fmt)), dense


def _quiet(f, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kw)


def _neighbours(X, k, metric):
    """The neighbours, or None where the data are refused with a documented error."""
    try:
        return _quiet(nearest_neighbors, X, k, metric=metric)
    except CLEAN_ERRORS:
        return None


def _scaled(S, c):
    T = S.copy()
    T.data = T.data * c
    return T


@fuzz_settings(25)
@given(case=sparse_X(), metric=st.sampled_from(SPARSE_METRICS),
       exponent=st.integers(-900, 900))
def test_a_power_of_two_changes_no_bit_of_sparse_neighbours(case, metric, exponent):
    S, _ = case
    k = min(4, S.shape[0] - 1)
    found = _neighbours(S, k, metric)
    scaled = _neighbours(_scaled(S, 2.0**exponent), k, metric)
    assert (found is None) == (scaled is None)  # refused alike (a row of zeros)
    if found is None:
        return
    np.testing.assert_array_equal(scaled[0], found[0])
    factor = 2.0**exponent if metric in SCALED_METRICS else 1.0
    np.testing.assert_array_equal(scaled[1], found[1] * factor)


@fuzz_settings(25)
@given(case=sparse_X(), metric=st.sampled_from(SPARSE_METRICS),
       power=st.integers(-300, 300))
def test_sparse_neighbours_follow_units_and_match_dense(case, metric, power):
    S, dense = case
    k = min(4, S.shape[0] - 1)
    c = 10.0**power
    found = _neighbours(S, k, metric)
    scaled = _neighbours(_scaled(S, c), k, metric)
    as_dense = _neighbours(dense * c, k, metric)
    assert (found is None) == (scaled is None) == (as_dense is None)
    if found is None:
        return
    assert np.all(np.isfinite(scaled[1]))
    factor = c if metric in SCALED_METRICS else 1.0
    # sorted distances are robust to near ties changing places by rounding
    np.testing.assert_allclose(scaled[1], found[1] * factor, rtol=1e-12, atol=1e-12 * factor)
    np.testing.assert_allclose(scaled[1], as_dense[1], rtol=1e-12, atol=1e-12 * factor)


@fuzz_settings(12)
@given(case=sparse_X(), metric=st.sampled_from(SPARSE_METRICS),
       power=st.integers(-300, 300), exponent=st.integers(-900, 900), fast=st.booleans(),
       method=st.sampled_from(sorted(smallvis.METHODS)))
def test_sparse_p_follows_units_and_matches_dense(case, metric, power, exponent, fast,
                                                  method):
    """P of sparse X: a power of two changes no bit, dense data give the same.

    A power of ten changes the distances' last bits, and the calibrations,
    which search to a tolerance, absorb them to within it.
    """
    S, dense = case
    kw = ({"perplexity": float(max(1, min(5, (S.shape[0] - 1) // 3)))}
          if "perplexity" in smallvis.METHODS[method].affinity_params else {})
    c = 10.0**power
    results, fallback = [], False
    for X in (S, _scaled(S, 2.0**exponent), _scaled(S, c), dense * c):
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                P = smallvis.affinities(X, method, metric=metric, fast=fast, **kw)
        except CLEAN_ERRORS:
            results.append(None)
            continue
        fallback |= any("did not converge" in str(w.message) for w in caught)
        P = P.toarray() if sp.issparse(P) else np.asarray(P)
        assert np.all(np.isfinite(P)) and np.all(P >= 0)
        results.append(P)
    assert all(r is None for r in results) or all(r is not None for r in results)
    if results[0] is None:
        return
    P, P_two, P_ten, P_dense = results
    if (smallvis.METHODS[method].p_family.units == "equivariant"
            and metric in SCALED_METRICS):
        # input distances follow the data's units: back to those of S
        # (a power of two exactly); a cosine distance has no units
        P_two, P_ten, P_dense = (np.ldexp(P_two, -exponent), P_ten / c, P_dense / c)
    np.testing.assert_array_equal(P_two, P)
    if fallback:
        # a row whose calibration fails puts its mass on its nearest few
        # neighbours (a documented fallback); among tied distances, whose last
        # bits differ between the sparse and dense kernels, which it keeps
        # follows the labels
        return
    scale = P.max()
    np.testing.assert_allclose(P_ten, P_dense, rtol=1e-9, atol=1e-12 * scale)
    np.testing.assert_allclose(P_ten, P, rtol=1e-4, atol=1e-5 * scale)
