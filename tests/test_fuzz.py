"""Fuzzing (issue 6): the Cython kernels behind the public wrappers never crash.

Two kinds of tests:

* Hostile fuzzing through the PUBLIC wrappers (``cost_and_gradient``,
  ``affinities``, ``embed``): random shapes, random sparse structures in every
  scipy format (unsorted, duplicated, int32/int64 indices, empty rows,
  out-of-range or negative indices, broken indptr), extreme values (1e-300 to
  1e300, zeros, denormals, negatives, NaN).  The outcome must be a clean
  ``ValueError``/``TypeError`` or finite output.  A crash (segfault) in a
  kernel would kill the test process, which is why the wrappers verify every
  index before a kernel sees it.
* Differential fuzzing of the kernels themselves with VALID inputs only
  (kernels do no validation; invalid input is never fed to them directly):
  the Cython twin must agree with the NumPy reference.

Every test enumerates ``smallvis.METHODS``, so new methods are fuzzed as soon
as they register.  The example counts are bounded so the normal suite spends
well under a minute here; set ``SMALLVIS_FUZZ_EXAMPLES=5000`` (say) for a long
run.
"""

import importlib
import os
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import smallvis
from smallvis.backends import _kernels
from smallvis.backends import reference
from smallvis._validation import check_affinities

aff = importlib.import_module("smallvis.inputs.affinities")

METHODS = sorted(smallvis.METHODS)
_LONG = int(os.environ.get("SMALLVIS_FUZZ_EXAMPLES", "0"))


def fuzz_settings(default):
    return settings(max_examples=_LONG or default, deadline=None, derandomize=not _LONG,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.data_too_large])


CLEAN_ERRORS = (ValueError, TypeError)
SPECIAL_VALUES = [0.0, 5e-324, 2.2250738585072014e-308, 1e-300, 1e-150, 1.0,
                  1e150, 1e300, np.finfo(float).max]


# ---------------------------------------------------------------------------
# strategies
# ---------------------------------------------------------------------------


def _magnitudes(rng, size, lo, hi, special):
    """Random values 10**U(lo, hi), some replaced by special values."""
    out = 10.0 ** rng.uniform(lo, hi, size=size)
    if special:
        pick = rng.random(size) < special
        out[pick] = rng.choice(SPECIAL_VALUES, size=int(pick.sum()))
    return out


@st.composite
def hostile_P_and_Y(draw, valid_only=False):
    """(method, P, Y): P in any scipy format or dense, possibly corrupted."""
    method = draw(st.sampled_from(METHODS))
    n = draw(st.integers(2, 30))
    dim = draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    density = draw(st.sampled_from([0.0, 0.05, 0.2, 0.5, 0.9, 1.0]))
    lo = draw(st.integers(-320, 300))
    hi = draw(st.integers(lo, 308))
    special = 0.0 if valid_only else draw(st.sampled_from([0.0, 0.1, 0.5]))
    A = _magnitudes(rng, (n, n), lo, hi, special) * (rng.random((n, n)) < density)
    n_empty = draw(st.integers(0, n))
    A[rng.permutation(n)[:n_empty]] = 0.0  # empty rows
    np.fill_diagonal(A, 0.0)
    symmetric = valid_only or draw(st.booleans())
    if symmetric:
        A = np.maximum(A, A.T)
    if valid_only:
        if not A.any():
            A[0, 1] = A[1, 0] = 1.0
        A /= A.sum()  # as smallvis.affinities returns it: no overflow by construction
    else:
        corruption = draw(st.sampled_from(
            ["none"] * 6 + ["negative", "nan", "inf", "diagonal", "index-high",
                            "index-negative", "indptr", "row-mismatch"]))
        if corruption == "negative":
            A[rng.integers(n), rng.integers(n)] = -1e-3
        elif corruption in ("nan", "inf"):
            A[rng.integers(n), rng.integers(n)] = np.nan if corruption == "nan" else np.inf
        elif corruption == "diagonal":
            i = rng.integers(n)
            A[i, i] = 0.5
    fmt = draw(st.sampled_from(["dense", "list", "coo", "csr", "csc", "lil", "dok", "bsr",
                                "coo-dup", "csr-unsorted"]))
    index_dtype = draw(st.sampled_from([np.int32, np.int64]))
    P = _as_format(A, fmt, index_dtype, rng)
    if not valid_only and corruption in ("index-high", "index-negative", "indptr"):
        P = _corrupt_structure(P, corruption, rng)
    n_rows = n
    if not valid_only and corruption == "row-mismatch":
        n_rows = n + draw(st.sampled_from([-1, 1]))
    y_lo = draw(st.integers(-320, 150 if valid_only else 300))
    y_hi = draw(st.integers(y_lo, 150 if valid_only else 308))
    Y = _magnitudes(rng, (max(n_rows, 1), dim), y_lo, y_hi, special)
    Y *= rng.choice([-1.0, 1.0], size=Y.shape)
    if draw(st.booleans()):  # coincident output points
        Y[rng.integers(len(Y), size=len(Y) // 2)] = Y[0]
    return method, P, Y


def _as_format(A, fmt, index_dtype, rng):
    if fmt == "dense":
        return A
    if fmt == "list":
        return A.tolist()
    C = sp.coo_matrix(A)
    row, col, data = C.row.astype(index_dtype), C.col.astype(index_dtype), C.data
    if fmt == "coo":
        return sp.coo_matrix((data, (row, col)), shape=A.shape)
    if fmt == "coo-dup":  # every entry split in two, in random order
        order = rng.permutation(2 * len(data))
        return sp.coo_matrix((np.r_[data / 2, data / 2][order],
                              (np.r_[row, row][order], np.r_[col, col][order])),
                             shape=A.shape)
    if fmt == "csr-unsorted":
        R = sp.csr_matrix(A)
        perm = np.concatenate([a + rng.permutation(b - a)
                               for a, b in zip(R.indptr[:-1], R.indptr[1:])] or [[]])
        perm = perm.astype(np.int64)
        return sp.csr_matrix((R.data[perm], R.indices[perm].astype(index_dtype),
                              R.indptr.astype(index_dtype)), shape=A.shape)
    return sp.coo_matrix((data, (row, col)), shape=A.shape).asformat(fmt)


def _corrupt_structure(P, corruption, rng):
    """Edit index arrays behind scipy's back (as a buggy caller could)."""
    C = P if sp.issparse(P) and P.format in ("csr", "csc") else sp.csr_matrix(P)
    n = C.shape[0]
    if corruption == "indptr":
        C.indptr[rng.integers(1, n + 1)] = C.indptr[-1] + 3
        return C
    if C.nnz == 0:
        return C
    k = rng.integers(C.nnz)
    C.indices[k] = n + rng.integers(0, 1000) if corruption == "index-high" else -1
    return C


@st.composite
def hostile_X(draw):
    n = draw(st.integers(1, 30))
    d = draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    lo = draw(st.integers(-320, 300))
    hi = draw(st.integers(lo, 308))
    X = _magnitudes(rng, (n, d), lo, hi, draw(st.sampled_from([0.0, 0.1])))
    X *= rng.choice([-1.0, 1.0], size=X.shape)
    if draw(st.booleans()):
        X[rng.integers(n, size=n // 2)] = X[0]  # duplicate rows
    if draw(st.booleans()):
        X[:, rng.integers(d)] = X[0, 0]  # a constant column
    if draw(st.integers(0, 9)) == 0:
        X[rng.integers(n), rng.integers(d)] = draw(st.sampled_from([np.nan, np.inf]))
    return X


# ---------------------------------------------------------------------------
# hostile fuzzing through the public wrappers
# ---------------------------------------------------------------------------


@fuzz_settings(250)
@given(case=hostile_P_and_Y(), fast=st.booleans(), n_threads=st.sampled_from([1, 2]))
def test_cost_and_gradient_never_crashes(case, fast, n_threads):
    method, P, Y = case
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cost, grad = smallvis.cost_and_gradient(method, P, Y, fast=fast,
                                                    n_threads=n_threads)
    except CLEAN_ERRORS:
        return
    assert np.isfinite(cost)
    assert grad.shape == np.shape(Y) and np.all(np.isfinite(grad))


@fuzz_settings(150)
@given(X=hostile_X(), method=st.sampled_from(METHODS), fast=st.booleans(),
       perplexity=st.one_of(st.floats(0.5, 31.0), st.sampled_from([1.0, 29.0])))
def test_affinities_never_crash(X, method, fast, perplexity):
    kw = {"perplexity": perplexity} if "perplexity" in smallvis.METHODS[method].affinity_params else {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            P = smallvis.affinities(X, method, fast=fast, **kw)
    except CLEAN_ERRORS:
        return
    P = P.toarray() if sp.issparse(P) else np.asarray(P)
    assert P.shape == (len(X), len(X)) and np.all(np.isfinite(P)) and np.all(P >= 0)
    np.testing.assert_array_equal(np.diag(P), 0.0)
    m = smallvis.METHODS[method]
    if m.fuzzy:  # memberships, not normalised
        assert P.max() <= 1.0
    # the family's normalisation, not the symmetry, sets the sum: a
    # conditional P over all pairs sums to 1 and is not symmetric; input
    # distances are not normalised at all
    elif m.p_family.normalised == "rows":
        assert P.sum() == pytest.approx(len(X), rel=1e-9)
    elif m.p_family.normalised == "total":
        assert P.sum() == pytest.approx(1.0, rel=1e-9)


@fuzz_settings(60)
@given(X=hostile_X(), method=st.sampled_from(METHODS), fast=st.booleans(),
       n_iter=st.integers(0, 3), n_components=st.integers(1, 3),
       init=st.sampled_from(["spca", "random", "pca", "array"]), seed=st.integers(0, 10))
def test_embed_never_crashes(X, method, fast, n_iter, n_components, init, seed):
    n = len(X)
    kw = {}
    if "perplexity" in smallvis.METHODS[method].affinity_params:
        kw["perplexity"] = float(max(1, min(5, n - 1)))
    if init == "array":
        init = np.random.default_rng(seed).normal(size=(n, n_components))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # n_epochs: a stochastic "auto" run (infonce at any size) as short
            Y = smallvis.embed(X, method, fast=fast, n_iter=n_iter, n_epochs=n_iter + 1,
                               init=init, n_components=n_components, random_state=seed, **kw)
    except CLEAN_ERRORS:
        return
    except FloatingPointError as exc:
        # documented: the optimizer stops a diverging run (e.g. unscaled PCA
        # coordinates of 1e150-sized data under a Gaussian output kernel)
        assert "diverged" in str(exc)
        return
    assert Y.shape == (n, n_components) and np.all(np.isfinite(Y))


# ---------------------------------------------------------------------------
# differential fuzzing of the kernels with valid inputs
# ---------------------------------------------------------------------------


@fuzz_settings(200)
@given(case=hostile_P_and_Y(valid_only=True), n_threads=st.sampled_from([1, 2]))
def test_kernels_twins_agree_on_valid_input(case, n_threads):
    method, P, Y = case
    m = smallvis.METHODS[method]
    Y = np.ascontiguousarray(Y, dtype=np.float64)
    try:
        C = check_affinities(P, Y.shape[0], symmetric=m.symmetric, fuzzy=m.fuzzy)
    except ValueError:
        return  # e.g. every entry underflowed: not a valid kernel input
    triplet = aff.kernel_triplet(C)
    cost_params = m.resolve_auto(dict(m.cost_params), Y.shape[0])
    learned = tuple(cost_params[k] for k in m.learned)
    out = {}
    with np.errstate(all="ignore"):
        for name, module in (("numpy", reference), ("cython", _kernels)):
            cost_fn, gradient_fn, args = m.cost_kernels(module, cost_params)
            g = np.zeros_like(Y)
            gradient_fn(*triplet, Y, *learned, *args, g, n_threads)
            c = cost_fn(*triplet, Y, *learned, *args, n_threads)
            out[name] = (float(c), g)
    (c_ref, g_ref), (c_fast, g_fast) = out["numpy"], out["cython"]
    if not (np.isfinite(c_ref) and np.all(np.isfinite(g_ref))):
        return  # overflow in the reference: the wrapper reports it (tested above)
    assert np.isfinite(c_fast) and np.all(np.isfinite(g_fast))
    # The twins add the same terms in different orders (and the Cython costs
    # split them into sum p d^2 and sum p * log Z), so they agree relative to
    # the size of the terms summed, not of a result that cancellation made small.
    n = len(Y)
    Pd = C.toarray() if sp.issparse(C) else C
    D2 = ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)
    cost_terms = 1.0 + np.sum(Pd * D2) + np.sum(np.abs(Pd * np.log(np.where(Pd > 0, Pd, 1.0))))
    assert abs(c_fast - c_ref) <= 1e-12 * cost_terms + 1e-9 * abs(c_ref)
    dist = np.ptp(Y, axis=0).max() * np.sqrt(Y.shape[1])  # no squaring: no underflow
    weight = 1.0 + Pd.sum(axis=1).max() + Pd.sum(axis=0).max()
    grad_terms = 8.0 * weight * dist
    # That bound takes each pair's coefficient to be of the size of P's sums;
    # a divergence whose coefficient grows as p^2 / q (chsne) sums far larger
    # terms where q is near 0.  The reference sums them from its first point
    # (y_j - y_0, exact near it) and rounds y_i - y_j between two points far
    # from it, so the same reference on the points in reverse order (another
    # first point) shows its own rounding; the twins may differ by a few
    # times that, and a wrong term differs by orders of magnitude more.
    g_reversed = np.zeros_like(Y)
    _, gradient_ref, args_ref = m.cost_kernels(reference, cost_params)
    with np.errstate(all="ignore"):
        gradient_ref(*aff.kernel_triplet(sp.csr_matrix(C)[::-1, ::-1]), Y[::-1].copy(),
                     *learned, *args_ref, g_reversed, n_threads)
    g_reversed = g_reversed[::-1]
    rounding = (float(np.max(np.abs(g_reversed - g_ref)))
                if np.all(np.isfinite(g_reversed)) else 0.0)
    # (+1e-300: below that, denormal results carry only a few significant bits)
    np.testing.assert_allclose(g_fast, g_ref, rtol=1e-9,
                               atol=1e-12 * grad_terms + 8.0 * rounding + 1e-300)


@fuzz_settings(150)
@given(n=st.integers(2, 30), d=st.integers(1, 3), seed=st.integers(0, 2**32 - 1),
       exponent=st.integers(-150, 150), data=st.data())
def test_perplexity_rows_twins_agree_on_valid_input(n, d, seed, exponent, data):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * 10.0**exponent
    e = aff.power_of_two_exponent(X)
    D2 = np.ascontiguousarray(aff._off_diagonal(aff.squared_distances(np.ldexp(X, -e))))
    perplexity = data.draw(st.floats(1.0, float(n - 1)))
    outs = []
    for module in (reference, _kernels):
        P, beta = np.zeros_like(D2), np.zeros(n)
        with np.errstate(all="ignore"):
            failed = module.perplexity_rows(D2, perplexity, 1e-5, 50, P, beta, 1)
        outs.append((failed, P, beta))
    (f_ref, P_ref, b_ref), (f_fast, P_fast, b_fast) = outs
    assert np.all(np.isfinite(P_fast)) and np.all(P_fast >= 0)
    np.testing.assert_allclose(P_fast.sum(axis=1), 1.0, rtol=1e-12)
    if f_ref == f_fast:
        # the bisection takes the same branches unless an entropy lands
        # within rounding of the tolerance; then the outputs differ at tol level
        np.testing.assert_allclose(P_fast, P_ref, rtol=1e-6, atol=1e-9)
    else:
        assert abs(f_ref - f_fast) <= 1
