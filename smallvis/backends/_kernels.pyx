# cython: language_level=3
# cython: boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""Cython twins of :mod:`smallvis.backends.reference`.

Each public function here has the same name, the same ``inspect.signature``
and the same meaning as its NumPy twin; see the reference docstrings for the
formulas.  The loops read their arrays unchecked, so a wrapper checks them
first.  The pair units' entry points (``pair_cost``, ``pair_gradient``,
``pair_transform_cost``, ``pair_transform_gradient`` and the named pair
kernels such as ``umap_gradient``) and those of the normalised units
(``normalised_cost``, ``normalised_gradient`` and their transform pair) call
the reference twin's own ``_check_pair_arrays``, so that both twins refuse
the same input with the same message; the named fit kernels skip only its index-range pass, on a
``P`` checked once before the optimizer starts.  For the other kernels the
callers (:mod:`smallvis.api`, :mod:`smallvis.plans`,
:func:`smallvis._validation.check_affinities`) guarantee shapes, dtypes,
contiguity and index ranges.

Exact gradients of the symmetric methods visit every unordered pair once, row
by row: a row ``i`` computes the pair quantities for ``j > i`` into O(N)
scratch vectors and adds the pair's contribution to ``i`` and, with the
opposite sign, to ``j``.  No N x N array is allocated.  Rows are spread over
threads in a fixed cyclic order and every thread accumulates into its own
buffer; the buffers and the per-row partial sums are reduced serially in a
fixed order.  The result is therefore deterministic for a given
``n_threads``, and differs between thread counts only by the rounding of that
final reduction (about 1e-15 relative).
"""

from cython.parallel cimport prange, threadid
from libc.math cimport exp, log, fabs, floor, fmin, fmax, frexp, ldexp, sqrt, INFINITY
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t, INT64_MAX

cdef extern from *:
    # Non-aliasing pointers let the C compiler vectorise the fused pair loops
    # (GCC otherwise gives up on the many run-time alias checks).
    ctypedef double* dptr "double * __restrict__"
    ctypedef const double* cdptr "const double * __restrict__"

# The normalised methods' units (smallvis/methods/<method>.h): the weights
# that their loops here use.  The pair units need no declaration here: the
# entry points pick them from the list's tables (_pairloops.h, methods/units.h).
cdef extern from "methods/tsne/unit.h" nogil:
    double smallvis_tsne_w(double d2, double scale) noexcept
    double smallvis_tsne_edge(double p, double d2) noexcept
    ctypedef struct smallvis_tsne_params:
        double dof
    double smallvis_tsne_dof_neg_log_w(double d2, double dof) noexcept
    double smallvis_tsne_dof_slope(double d2, double dof) noexcept
    double smallvis_tsne_dof_edge(double p, double d2, double dof) noexcept

cdef extern from "methods/infonce/unit.h" nogil:
    double smallvis_infonce_phi(double d2) noexcept
    double smallvis_infonce_row(double* phi, Py_ssize_t n_cols, Py_ssize_t skip,
                                const int64_t* pos, const double* p, Py_ssize_t n_pos,
                                double m, double* slopes, double* e) noexcept

cdef extern from "methods/asne/unit.h" nogil:
    double smallvis_asne_w(double d2, double shift) noexcept

cdef extern from "methods/ssne/unit.h" nogil:
    double smallvis_ssne_w(double d2, double shift) noexcept

cdef extern from "_pairloops.h" nogil:
    # C loops compiled once per instruction set (see the header)
    void smallvis_tsne_rows4_2d(const double* x, const double* y, Py_ssize_t n,
                                Py_ssize_t i, const double* p0,
                                const double* p1, const double* p2,
                                const double* p3, double* ax, double* ay,
                                double* rx, double* ry, double* z) noexcept
    void smallvis_tsne_rows4_2d_scaled(const double* x, const double* y,
                                       Py_ssize_t n, Py_ssize_t i,
                                       const double* p0, const double* p1,
                                       const double* p2, const double* p3,
                                       double scale, double* ax, double* ay,
                                       double* rx, double* ry,
                                       double* z) noexcept
    # an un-normalised unit's exact rows (see the header)
    ctypedef struct smallvis_exact_unit:
        double (*coef_row)(const double* d2, const double* p, const double* aux,
                           Py_ssize_t i, Py_ssize_t start, Py_ssize_t n,
                           const void* params, double* coef) noexcept nogil
        void (*row_2d)(const double* x, const double* y, Py_ssize_t n,
                       Py_ssize_t i, const double* p, const void* params,
                       double* gx, double* gy) noexcept nogil
        double (*repulsion_row)(const double* d2, const double* aux, Py_ssize_t i,
                                Py_ssize_t start, Py_ssize_t n,
                                const void* params) noexcept nogil
        double (*edge_row)(const int64_t* indptr, const int64_t* indices,
                           const double* data, int dense, const double* d2,
                           const double* aux, Py_ssize_t i, Py_ssize_t n,
                           const void* params) noexcept nogil
    # a unit's rows for new points (see the header)
    ctypedef struct smallvis_transform_unit:
        void (*coef_row)(const double* d2, const double* p, Py_ssize_t n,
                         double psum, const void* params, double* c) noexcept nogil
        double (*cost_row)(const double* d2, const double* p, Py_ssize_t n,
                           double psum, const void* params) noexcept nogil
    # the pair units of the one list (methods/units.h), in its order
    ctypedef union smallvis_unit_params:
        pass
    ctypedef void (*smallvis_unit_loader)(const double* f, double n_others,
                                          void* k) noexcept nogil
    const smallvis_exact_unit** smallvis_exact_units
    const smallvis_transform_unit** smallvis_transform_units
    const char** smallvis_unit_names
    const char** smallvis_unit_fields
    const smallvis_unit_loader* smallvis_unit_loaders
    Py_ssize_t SMALLVIS_N_UNITS
    # a normalised unit's passes (see the header, "engine: normalised units")
    ctypedef struct smallvis_normalised_unit:
        double (*shift)(double d2_min, const void* params) noexcept nogil
        double (*offset)(double mass, double dual, const void* params) noexcept nogil
        double (*z_row)(const double* d2, Py_ssize_t start, Py_ssize_t n, double shift,
                        const void* params) noexcept nogil
        double (*dual_row)(const double* d2, const double* p, Py_ssize_t start,
                           Py_ssize_t n, double shift, double z,
                           const void* params) noexcept nogil
        void (*coef_row)(const double* d2, const double* p, Py_ssize_t start, Py_ssize_t n,
                         double shift, double z, double S, double scale,
                         const void* params, double* c) noexcept nogil
        double (*cost_row)(const double* d2, const double* p, Py_ssize_t start,
                           Py_ssize_t n, double shift, double z,
                           const void* params) noexcept nogil
        void (*self_coef_row)(const double* d2, const double* p, Py_ssize_t n,
                              double mass, const void* params, double* c) noexcept nogil
        double (*self_cost_row)(const double* d2, const double* p, Py_ssize_t n,
                                double mass, const void* params) noexcept nogil
        smallvis_transform_unit transform
        double (*z_row_a)(const double* d2, const double* a, Py_ssize_t start, Py_ssize_t n,
                          double shift, const void* params) noexcept nogil
        double (*dual_row_a)(const double* d2, const double* p, const double* a,
                             Py_ssize_t start, Py_ssize_t n, double shift, double z,
                             const void* params) noexcept nogil
        void (*coef_row_a)(const double* d2, const double* p, const double* a,
                           Py_ssize_t start, Py_ssize_t n, double shift, double z, double S,
                           double scale, const void* params, double* c) noexcept nogil
        double (*cost_row_a)(const double* d2, const double* p, const double* a,
                             const double* la, Py_ssize_t start, Py_ssize_t n, double shift,
                             double z, const void* params) noexcept nogil
        void (*self_coef_row_a)(const double* d2, const double* p, const double* a,
                                Py_ssize_t n, double mass, const void* params,
                                double* c) noexcept nogil
        double (*self_cost_row_a)(const double* d2, const double* p, const double* a,
                                  const double* la, Py_ssize_t n, double mass,
                                  const void* params) noexcept nogil
    ctypedef union smallvis_normalised_params:
        pass
    const smallvis_normalised_unit** smallvis_normalised_units
    const char** smallvis_normalised_names
    const char** smallvis_normalised_fields
    const smallvis_unit_loader* smallvis_normalised_loaders
    Py_ssize_t SMALLVIS_N_NORMALISED_UNITS
    double smallvis_nq_min(const double* d2, Py_ssize_t n) noexcept
    double smallvis_tsne_dof_coef_row(const double* d2, const double* p, Py_ssize_t start,
                                      Py_ssize_t n, double dof, double log_w_max,
                                      double* ca, double* cr) noexcept
    double smallvis_tsne_dof_z_row(const double* d2, Py_ssize_t start, Py_ssize_t n,
                                   double dof, double log_w_max) noexcept
    double smallvis_tsne_dof_row_2d(const double* x, const double* y, Py_ssize_t n,
                                    Py_ssize_t i, const double* p, double dof,
                                    double log_w_max, double* ax, double* ay,
                                    double* rx, double* ry) noexcept
    double smallvis_tsne_dof_cost_row(const double* d2, const double* p, Py_ssize_t start,
                                      Py_ssize_t n, double dof, double log_w_max,
                                      double* z, double* psum) noexcept
    void smallvis_tr_sq_dists(const double* Rt, Py_ssize_t n, Py_ssize_t dim,
                              const double* y, double* d2) noexcept
    double smallvis_tr_force(const double* Rt, Py_ssize_t n, const double* c,
                             double yd) noexcept
    double smallvis_row_entropy(const double* d2, Py_ssize_t m, double dmin,
                                double beta, double* p, double* z) noexcept
    double smallvis_row_entropy_slope(const double* d2, Py_ssize_t m, double dmin,
                                      double beta, double* slope) noexcept
    double smallvis_tsne_cost_row(const double* d2, const double* p,
                                  Py_ssize_t start, Py_ssize_t n,
                                  double* z, double* psum) noexcept
    double smallvis_tsne_cost_row_2d(const double* x, const double* y,
                                     Py_ssize_t i, const double* p,
                                     Py_ssize_t start, Py_ssize_t n,
                                     double* z, double* psum) noexcept
    double smallvis_tie_key(double d2) noexcept
    void smallvis_sq_dists_to(const double* X, Py_ssize_t dim, const double* xi,
                              const int64_t* cand, Py_ssize_t m, double* out) noexcept
    void smallvis_sq_dists_to_f32(const float* X, Py_ssize_t dim, const double* xi,
                                  const int64_t* cand, Py_ssize_t m, double* out) noexcept
    int smallvis_sq_dists_simd(int on) noexcept

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define SMALLVIS_KNN_PREFETCH(p) __builtin_prefetch((const void *)(p))
    #else
    #define SMALLVIS_KNN_PREFETCH(p) ((void)(p))
    #endif
    """
    # a hint to the cache: no effect on any result
    void _prefetch "SMALLVIS_KNN_PREFETCH"(const void* p) noexcept nogil

# Iterations ahead that the kNN rows' gathers prefetch (a hint: any value
# gives the same results).
DEF _AHEAD = 4

cdef extern from "_metric_dists.h" nogil:
    void smallvis_metric_dists_to(int code, const double* X, Py_ssize_t dim, const double* xi,
                                  const int64_t* cand, Py_ssize_t m, double* out) noexcept


cdef inline void _core_dists_to(int code, const double* x, Py_ssize_t dim, const double* xi,
                                const int64_t* cand, Py_ssize_t m, double* out) noexcept nogil:
    """The kNN kernels' distance of metric ``code`` (0: squared Euclidean)."""
    if code == 0:
        smallvis_sq_dists_to(x, dim, xi, cand, m, out)
    else:
        smallvis_metric_dists_to(code, x, dim, xi, cand, m, out)

import numpy as np


def _vector_sq_dists(on):
    """Switch the AVX2 loop of the kNN kernels' squared distances on or off.

    The two loops give the same bits (``_sq_dists_simd.h``); tests compare
    them.  Returns whether the vector loop is now on (it stays off on a
    processor without AVX2).
    """
    return bool(smallvis_sq_dists_simd(1 if on else 0))


def _tie_keys(d2):
    """The kNN kernels' tie keys of the float64 array ``d2`` (a new array).

    The C twin of :func:`smallvis._numeric.tie_key`, which tests compare
    with it bit for bit.
    """
    cdef const double[::1] v = np.ascontiguousarray(d2, dtype=np.float64).ravel()
    out = np.empty(v.shape[0])
    cdef double[::1] o = out
    cdef Py_ssize_t t
    for t in range(v.shape[0]):
        o[t] = smallvis_tie_key(v[t])
    return out.reshape(np.shape(d2))

# The twin contract: exactly the public names of the NumPy reference
# (tests/test_twins.py checks that each is defined here, with its signature).
from smallvis.backends.reference import __all__ as _twin_names
from smallvis.backends.reference import CALIBRATION_BLOCK
from smallvis.backends.reference import _check_pair_arrays
from smallvis.methods._common import (log_importances, pair_importances, row_bandwidths,
                                      second_input_triplet, symmetric_p, unit_engine,
                                      unit_field_values)
from smallvis.methods.asne.unit import ASNEUnit
from smallvis.methods.ssne.unit import SSNEUnit
from smallvis.methods.tsne.unit import TSNEUnit
from smallvis.methods.largevis.unit import LargeVisUnit, LargeVisExpUnit
from smallvis.methods.ncvis.unit import NCVisUnit
from smallvis.methods.tumap.unit import TUMAPUnit
from smallvis.methods.umap.unit import UMAPUnit

__all__ = list(_twin_names)


# ---------------------------------------------------------------------------
# shared row helpers
# ---------------------------------------------------------------------------


cdef inline void _sq_dist_row(const double* Yt, Py_ssize_t n, Py_ssize_t dim,
                              Py_ssize_t i, Py_ssize_t start,
                              double* d2) noexcept nogil:
    """d2[j] = |y_i - y_j|^2 for start <= j < n; Yt is (dim, n) row-major."""
    cdef Py_ssize_t d, j
    cdef const double* yd
    cdef double yi, diff
    for j in range(start, n):
        d2[j] = 0.0
    for d in range(dim):
        yd = Yt + d * n
        yi = yd[i]
        for j in range(start, n):
            diff = yi - yd[j]
            d2[j] += diff * diff


cdef inline void _accumulate_pairs(const double* Yt, Py_ssize_t n,
                                   Py_ssize_t dim, Py_ssize_t i,
                                   Py_ssize_t start, const double* coef,
                                   double* acc) noexcept nogil:
    """acc_i += sum_j c_j (y_i - y_j); acc_j -= c_j (y_i - y_j), j in [start, n).

    ``acc`` is (dim, n) row-major.
    """
    cdef Py_ssize_t d, j
    cdef const double* yd
    cdef double* ad
    cdef double yi, f, s
    for d in range(dim):
        yd = Yt + d * n
        ad = acc + d * n
        yi = yd[i]
        s = 0.0
        for j in range(start, n):
            f = coef[j] * (yi - yd[j])
            s = s + f
            ad[j] -= f
        ad[i] += s


cdef inline void _scatter_row(const int64_t* indptr, const int64_t* indices,
                              const double* data, Py_ssize_t i,
                              Py_ssize_t start, double* prow) noexcept nogil:
    """prow[j] = P[i, j] for the stored entries of row i with j >= start."""
    cdef int64_t k, j
    for k in range(indptr[i], indptr[i + 1]):
        j = indices[k]
        if j >= start:
            prow[j] += data[k]


cdef inline void _clear_row(const int64_t* indptr, const int64_t* indices,
                            Py_ssize_t i, double* prow) noexcept nogil:
    cdef int64_t k
    for k in range(indptr[i], indptr[i + 1]):
        prow[indices[k]] = 0.0


cdef inline double _plogp_sum(const double* data, int64_t nnz) noexcept nogil:
    """sum of p log p over the stored positive entries."""
    cdef int64_t k
    cdef double s = 0.0
    for k in range(nnz):
        if data[k] > 0.0:
            s += data[k] * log(data[k])
    return s


cdef inline double _p_sum(const double* data, int64_t nnz) noexcept nogil:
    cdef int64_t k
    cdef double s = 0.0
    for k in range(nnz):
        s += data[k]
    return s


cdef inline double _pair_sq_dist(const double* Yt, Py_ssize_t n,
                                 Py_ssize_t dim, Py_ssize_t i,
                                 Py_ssize_t j) noexcept nogil:
    cdef Py_ssize_t d
    cdef double diff, s = 0.0
    for d in range(dim):
        diff = Yt[d * n + i] - Yt[d * n + j]
        s += diff * diff
    return s


def _scratch(Py_ssize_t n_threads, Py_ssize_t k, Py_ssize_t n):
    return np.zeros((n_threads, k, n), dtype=np.float64)


cdef void _combine_threads(const double[:, :, ::1] attr, const double[:, :, ::1] rep,
                           double Z, double scale, double[:, :] grad) noexcept:
    """grad[i, d] = scale (A[d, i] - R[d, i] / Z), A and R summed over threads in order.

    ``rep`` may be empty (no repulsion term), and then ``Z`` is unused.
    """
    cdef Py_ssize_t nt = attr.shape[0], dim = attr.shape[1], n = attr.shape[2]
    cdef Py_ssize_t i, d, t
    cdef bint has_rep = rep.shape[0] > 0
    cdef double a, r
    with nogil:
        for i in range(n):
            for d in range(dim):
                a = attr[0, d, i]
                for t in range(1, nt):
                    a = a + attr[t, d, i]
                if has_rep:
                    r = rep[0, d, i]
                    for t in range(1, nt):
                        r = r + rep[t, d, i]
                    grad[i, d] = scale * (a - r / Z)
                else:
                    grad[i, d] = scale * a


_NO_THREADS = np.zeros((0, 1, 1))


# ---------------------------------------------------------------------------
# input affinities
# ---------------------------------------------------------------------------


cdef void _nearest_fallback(const double* d2, Py_ssize_t m,
                            Py_ssize_t n_nearest, double* p) noexcept nogil:
    """Put 1/n_nearest on the n_nearest smallest d2 (ties: lowest index)."""
    cdef Py_ssize_t j, r, best
    for j in range(m):
        p[j] = 0.0
    for r in range(n_nearest):
        best = -1
        for j in range(m):
            if p[j] == 0.0 and (best < 0 or d2[j] < d2[best]):
                best = j
        p[best] = 1.0 / n_nearest


# Certified skipping in the calibration: an entropy computed at least this
# far beyond the tolerance band (nats) is beyond it whatever the rounding
# (the rounding error of H is about 1e-13 here).
cdef double _CERTAIN = 1e-9
# The Newton search of _certify stops within this fraction of the tolerance
# of the root.  It only places the certified bounds (any stopping point gives
# the same result); half the band leaves them tight with fewer entropy
# evaluations than a tighter stop (docs/experiments.md, 2026-11-23).
cdef double _NEWTON_STOP = 0.5


cdef void _certify(const double* d2, Py_ssize_t m, double dmin, double b0,
                   double log_u, double ctol, double* above, double* below) noexcept nogil:
    """Bounds ``above`` <= root <= ``below`` with certified entropies.

    Every b <= above has H(b) > log_u + tol and every b >= below has
    H(b) < log_u - tol (H decreases in b).  Found by a safeguarded Newton
    iteration on log(b) from ``b0``, then one evaluation just outside each
    edge of the tolerance band.  Either bound may stay uninformative
    (0 or inf); the caller then simply evaluates.
    """
    cdef double t = log(b0), tl = -INFINITY, th = INFINITY, H, g, tn, te, g_edge
    cdef double hi_thr = log_u + ctol + _CERTAIN, lo_thr = log_u - ctol - _CERTAIN
    cdef int it
    cdef bint at_t = False  # H and g are those at exp(t)
    above[0] = 0.0
    below[0] = INFINITY
    H = 0.0
    g = 0.0
    for it in range(12):
        H = smallvis_row_entropy_slope(d2, m, dmin, exp(t), &g)
        if H > hi_thr and exp(t) > above[0]:
            above[0] = exp(t)
        if H < lo_thr and exp(t) < below[0]:
            below[0] = exp(t)
        if H > log_u:
            tl = t
        else:
            th = t
        if fabs(H - log_u) < _NEWTON_STOP * ctol or not (g < 0.0):
            at_t = True
            break
        tn = t - (H - log_u) / g
        if not (tn > tl and tn < th):   # outside the bracket: bisect or expand
            if tl == -INFINITY:
                tn = th - 1.0
            elif th == INFINITY:
                tn = tl + 1.0
            else:
                tn = 0.5 * (tl + th)
        t = tn
    if not (g < 0.0):
        return
    if not at_t:  # twelve steps without converging: t moved after the last one
        H = smallvis_row_entropy_slope(d2, m, dmin, exp(t), &g)
        if not (g < 0.0):
            return
    # just outside each edge of the band, along the local slope at t
    te = t + 1.1 * (hi_thr - H) / g
    if exp(te) > above[0] and smallvis_row_entropy_slope(d2, m, dmin, exp(te),
                                                         &g_edge) > hi_thr:
        above[0] = exp(te)
    te = t + 1.1 * (lo_thr - H) / g
    if exp(te) < below[0] and smallvis_row_entropy_slope(d2, m, dmin, exp(te),
                                                         &g_edge) < lo_thr:
        below[0] = exp(te)


cdef Py_ssize_t _calibrate_block(const double* D2, double* P, double* beta, Py_ssize_t m,
                                 Py_ssize_t start, Py_ssize_t stop, double perplexity,
                                 double ctol, Py_ssize_t cmax,
                                 Py_ssize_t n_nearest) noexcept nogil:
    """Rows start..stop-1 of perplexity_rows, each warm-started from the last.

    The bisection is the reference's, step for step (the same sequence of
    precisions, so the same result to the bit); a step whose precision lies
    beyond a certified bound (see _certify) is known to be above or below
    the tolerance band and is taken without computing its entropy.
    """
    cdef double log_u = log(perplexity), guess, b, lo, hi, H, z, dmin, mean0 = 0.0
    cdef double above, below
    cdef Py_ssize_t i, j, tries, n_failed = 0
    cdef int state  # 1: entropy above the band, -1: below, 0: inside
    cdef const double* d2
    cdef double* p
    for j in range(m):
        mean0 += D2[start * m + j]
    mean0 /= m
    guess = 0.5 * perplexity / mean0 if mean0 > 0 else 1.0
    for i in range(start, stop):
        d2 = D2 + i * m
        p = P + i * m
        dmin = INFINITY
        for j in range(m):
            if d2[j] < dmin:
                dmin = d2[j]
        b = guess
        _certify(d2, m, dmin, b if b > 0 else 1.0, log_u, ctol, &above, &below)
        lo = -INFINITY
        hi = INFINITY
        tries = 0
        while True:
            if b <= above:
                state = 1
            elif b >= below:
                state = -1
            else:
                H = smallvis_row_entropy(d2, m, dmin, b, p, &z)
                if fabs(H - log_u) > ctol:
                    state = 1 if H > log_u else -1
                else:
                    state = 0
            if state == 0 or tries >= cmax:
                break
            if state > 0:
                lo = b
                if hi == INFINITY:
                    b = b * 2.0
                else:
                    b = 0.5 * (b + hi)
            else:
                hi = b
                if lo == -INFINITY:
                    b = b * 0.5
                else:
                    b = 0.5 * (b + lo)
            tries += 1
        if state != 0:
            n_failed += 1
            _nearest_fallback(d2, m, n_nearest, p)
            guess = 1.0
        else:
            for j in range(m):
                p[j] = p[j] / z
            guess = b
        beta[i] = b
    return n_failed


def perplexity_rows(D2, perplexity, tol, max_tries, P, beta, n_threads):
    """Calibrate Gaussian bandwidths row by row; see the reference twin.

    Blocks of ``CALIBRATION_BLOCK`` rows are independent (each restarts the
    warm-start chain), so they are spread over threads, one block at a
    time in a fixed cyclic order, and the result does not depend on
    ``n_threads``.
    """
    cdef const double[:, ::1] d2v = D2
    cdef double[:, ::1] pv = P
    cdef double[::1] bv = beta
    cdef Py_ssize_t n = d2v.shape[0], m = d2v.shape[1], blk, n_blocks
    cdef Py_ssize_t cmax = max_tries, n_failed = 0, size = CALIBRATION_BLOCK
    cdef Py_ssize_t n_nearest = <Py_ssize_t>floor(perplexity)
    cdef double cperp = perplexity, ctol = tol
    cdef int nt
    if n_nearest < 1:
        n_nearest = 1
    if n == 0 or m == 0:
        return 0
    n_blocks = (n + size - 1) // size
    nt = max(1, min(<int>n_threads, <int>n_blocks))
    with nogil:
        for blk in prange(n_blocks, schedule="static", chunksize=1, num_threads=nt):
            n_failed += _calibrate_block(&d2v[0, 0], &pv[0, 0], &bv[0], m, blk * size,
                                         min(n, (blk + 1) * size), cperp, ctol, cmax,
                                         n_nearest)
    return n_failed


def smooth_knn_rows(distances, target, local_connectivity, tol, n_iter,
                    min_scale, sigma, rho, start=0, stop=None):
    """UMAP's smoothed kNN distances (rho, sigma) per row; see the reference twin.

    Rows ``start`` to ``stop - 1`` only (clamped to the array); the floor's
    global mean is always over every row.
    """
    cdef const double[:, ::1] dv = distances
    cdef double[::1] sv = sigma
    cdef double[::1] rv = rho
    cdef Py_ssize_t n = dv.shape[0], k = dv.shape[1], i, j, m, c
    cdef double ctarget = target, ctol = tol, lc = local_connectivity
    cdef double cscale = min_scale
    cdef Py_ssize_t it, cn_iter = n_iter, n_failed = 0
    cdef Py_ssize_t whole = <Py_ssize_t>floor(lc)
    cdef double frac = lc - whole
    cdef double total = 0.0, row_sum, r, lo, hi, mid, s, x, z_prev, z, floor_
    cdef bint converged
    for i in range(n):
        row_sum = 0.0
        for j in range(k):
            row_sum += dv[i, j]
        total += row_sum
    cdef double global_mean = total / (n * k)
    cdef Py_ssize_t first = max(0, <Py_ssize_t>start)
    cdef Py_ssize_t last = n if stop is None else min(n, <Py_ssize_t>stop)
    with nogil:
        for i in range(first, last):
            # rho: the whole-th non-zero distance, interpolated towards the next
            r = 0.0
            m = 0            # number of non-zero distances seen so far
            z_prev = 0.0     # the m-th non-zero distance
            row_sum = 0.0
            for j in range(k):
                row_sum += dv[i, j]
                if dv[i, j] > 0.0:
                    m += 1
                    z = dv[i, j]
                    if whole > 0 and m == whole:
                        r = z
                    elif whole > 0 and m == whole + 1 and frac > 1e-5:
                        r = r + frac * (z - r)
                    elif whole == 0 and m == 1:
                        r = frac * z
                    z_prev = z
            if m < lc:
                r = z_prev   # fewer non-zero distances than asked: the largest (0 if none)
            lo = 0.0
            hi = INFINITY
            mid = 1.0
            converged = False
            for it in range(cn_iter):
                s = 0.0
                for j in range(1, k):
                    x = dv[i, j] - r
                    if x > 0.0:
                        s += exp(-x / mid)
                    else:
                        s += 1.0
                if fabs(s - ctarget) < ctol:
                    converged = True
                    break
                if s > ctarget:
                    hi = mid
                    mid = 0.5 * (lo + hi)
                else:
                    lo = mid
                    if hi == INFINITY:
                        mid = mid * 2.0
                    else:
                        mid = 0.5 * (lo + hi)
            if not converged:
                n_failed += 1
            if r > 0.0:
                floor_ = cscale * (row_sum / k)
            else:
                floor_ = cscale * global_mean
            sv[i] = mid if mid > floor_ else floor_
            rv[i] = r
    return n_failed



# ---------------------------------------------------------------------------
# tsne
# ---------------------------------------------------------------------------


def tsne_cost(indptr, indices, data, Y, n_threads):
    """t-SNE cost KL(P||Q); see the reference twin.

    With P symmetric (the wrappers require it) each unordered pair is visited
    once: KL = 2 sum_{i<j, p>0} p_ij log(p_ij (1 + d_ij^2)) + (sum P) log Z,
    and sum P is gathered from the same half of P (2 sum_{i<j} p_ij plus the
    diagonal), so dense P is read once.
    """
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = indices
    cdef const double[::1] dv = data
    cdef Py_ssize_t n = Y.shape[0], dim = Y.shape[1], i, j
    cdef int nt = n_threads
    Yt_arr = np.ascontiguousarray(Y.T)
    cdef const double[:, ::1] Yt = Yt_arr
    cdef double[:, :, ::1] sc = _scratch(nt, 1, n)
    cdef double[::1] zrow = np.zeros(n)
    cdef double[::1] lrow = np.zeros(n)
    cdef double[::1] prow_sum = np.zeros(n)
    cdef bint dense = ip[n] == n * n
    cdef double* d2
    cdef double z, s, p, ps
    cdef int64_t k
    with nogil:
        for i in prange(n, schedule="static", chunksize=1, num_threads=nt):
            z = 0.0
            s = 0.0
            ps = 0.0
            if dense and dim == 2:
                s = smallvis_tsne_cost_row_2d(&Yt[0, 0], &Yt[1, 0], i, &dv[i * n],
                                              i + 1, n, &z, &ps)
                ps = 2.0 * ps + dv[i * n + i]
            elif dense:
                d2 = &sc[threadid(), 0, 0]
                _sq_dist_row(&Yt[0, 0], n, dim, i, i + 1, d2)
                s = smallvis_tsne_cost_row(d2, &dv[i * n], i + 1, n, &z, &ps)
                ps = 2.0 * ps + dv[i * n + i]
            else:
                d2 = &sc[threadid(), 0, 0]
                _sq_dist_row(&Yt[0, 0], n, dim, i, i + 1, d2)
                for j in range(i + 1, n):
                    z = z + smallvis_tsne_w(d2[j], 1.0)
                for k in range(ip[i], ip[i + 1]):
                    j = ix[k]
                    p = dv[k]
                    ps = ps + p
                    if j > i and p > 0.0:
                        s = s + smallvis_tsne_edge(p, d2[j])
            zrow[i] = z
            lrow[i] = s
            prow_sum[i] = ps
    cdef double Z = 0.0, total = 0.0, P_sum = 0.0
    for i in range(n):
        Z += zrow[i]
        total += lrow[i]
        P_sum += prow_sum[i]
    Z *= 2.0
    return 2.0 * total + P_sum * log(Z)


cdef void _tsne_pair(const double* Yt, Py_ssize_t n, Py_ssize_t dim,
                     Py_ssize_t i, Py_ssize_t j, double p, double scale,
                     double* attr, double* rep, double* zi) noexcept nogil:
    """One unordered pair (i, j) of the t-SNE gradient (w scaled by ``scale``)."""
    cdef Py_ssize_t d
    cdef double w = smallvis_tsne_w(_pair_sq_dist(Yt, n, dim, i, j), scale)
    cdef double a = p * w, r = w * w, diff
    zi[0] += w
    for d in range(dim):
        diff = Yt[d * n + i] - Yt[d * n + j]
        attr[d * n + i] += a * diff
        attr[d * n + j] -= a * diff
        rep[d * n + i] += r * diff
        rep[d * n + j] -= r * diff


cdef void _tsne_row(const double* Yt, Py_ssize_t n, Py_ssize_t dim,
                    Py_ssize_t i, Py_ssize_t start, const double* prow,
                    double scale, double* d2, double* ca, double* cr,
                    double* attr, double* rep, double* zi) noexcept nogil:
    """t-SNE row i against columns j >= start, any output dimension."""
    cdef Py_ssize_t j
    cdef double z = 0.0, w
    _sq_dist_row(Yt, n, dim, i, start, d2)
    for j in range(start, n):
        w = smallvis_tsne_w(d2[j], scale)
        z += w
        ca[j] = prow[j] * w
        cr[j] = w * w
    _accumulate_pairs(Yt, n, dim, i, start, ca, attr)
    _accumulate_pairs(Yt, n, dim, i, start, cr, rep)
    zi[0] += z


cdef double _cauchy_scale(Y):
    """Scale c of the t-SNE weights: 1, or a power of two for huge layouts.

    B, the sum over columns of the squared coordinate ranges, bounds every
    squared distance, so w = 1 / (1 + d^2) >= 1 / (1 + B).  While
    1 + B < 2^511, w^2 is a normal number and c = 1.  Beyond, c is the
    largest power of two at most sqrt(1 + B): the scaled weights c w lie in
    [1 / (2 sqrt(1 + B)), sqrt(1 + B)] and their squares neither underflow
    nor overflow while B stays below the float64 maximum (which the
    wrappers check).  Multiplying by a power of two is exact.
    """
    cdef const double[:, ::1] y = Y
    cdef Py_ssize_t n = y.shape[0], dim = y.shape[1], i, d
    cdef double lo, hi, bound = 0.0
    cdef int e
    for d in range(dim):
        lo = INFINITY
        hi = -INFINITY
        for i in range(n):
            lo = fmin(lo, y[i, d])
            hi = fmax(hi, y[i, d])
        if n:
            bound += (hi - lo) * (hi - lo)
    if 1.0 + bound < 2.0 ** 511:
        return 1.0
    frexp(sqrt(fmin(1.0 + bound, 1.7e308)), &e)
    return ldexp(1.0, e - 1)


def tsne_gradient(indptr, indices, data, Y, grad, n_threads):
    """t-SNE gradient 4 sum_j (p_ij - q_ij) w_ij (y_i - y_j); see the reference.

    Computed as 4 / c (sum_j p_ij w'_ij d_ij - sum_j w'_ij^2 d_ij / Z') with
    w' = c w and Z' = c Z, where c is a power of two from
    :func:`_cauchy_scale`: at coordinates of 1e100 w is about 1e-200 and w^2
    would underflow to 0, losing the whole repulsion.
    """
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = indices
    cdef const double[::1] dv = data
    cdef Py_ssize_t n = Y.shape[0], dim = Y.shape[1], b, i, r, m
    cdef int nt = n_threads
    Yt_arr = np.ascontiguousarray(Y.T)
    cdef const double[:, ::1] Yt = Yt_arr
    # per thread: d2, attraction and repulsion coefficients, four P rows
    cdef double[:, :, ::1] sc = _scratch(nt, 7, n)
    attr_arr = np.zeros((nt, dim, n))
    rep_arr = np.zeros((nt, dim, n))
    cdef double[:, :, ::1] attr = attr_arr
    cdef double[:, :, ::1] rep = rep_arr
    cdef double[::1] zrow = np.zeros(n)
    cdef bint dense = ip[n] == n * n
    cdef const double *p0
    cdef const double *p1
    cdef const double *p2
    cdef const double *p3
    cdef double* A
    cdef double* R
    cdef int t
    cdef double scale = _cauchy_scale(Y)
    # rows are taken four at a time: block b holds rows 4b .. 4b + 3.  Row
    # i + r of a block reads its P row at &dv[(i + r) n] (dense layout) or
    # from scratch row 3 + r of the thread (scattered from CSR).
    with nogil:
        for b in prange((n + 3) // 4, schedule="static", chunksize=1, num_threads=nt):
            t = threadid()
            i = 4 * b
            m = n - i if n - i < 4 else 4
            A = &attr[t, 0, 0]
            R = &rep[t, 0, 0]
            if not dense:
                for r in range(m):
                    _scatter_row(&ip[0], &ix[0], &dv[0], i + r, i + r + 1, &sc[t, 3 + r, 0])
            if dim == 2 and m == 4:
                p0 = &dv[i * n] if dense else &sc[t, 3, 0]
                p1 = &dv[(i + 1) * n] if dense else &sc[t, 4, 0]
                p2 = &dv[(i + 2) * n] if dense else &sc[t, 5, 0]
                p3 = &dv[(i + 3) * n] if dense else &sc[t, 6, 0]
                # the six pairs inside the block, then all four rows against j >= i + 4
                _tsne_pair(&Yt[0, 0], n, dim, i, i + 1, p0[i + 1], scale, A, R, &zrow[i])
                _tsne_pair(&Yt[0, 0], n, dim, i, i + 2, p0[i + 2], scale, A, R, &zrow[i])
                _tsne_pair(&Yt[0, 0], n, dim, i, i + 3, p0[i + 3], scale, A, R, &zrow[i])
                _tsne_pair(&Yt[0, 0], n, dim, i + 1, i + 2, p1[i + 2], scale, A, R, &zrow[i + 1])
                _tsne_pair(&Yt[0, 0], n, dim, i + 1, i + 3, p1[i + 3], scale, A, R, &zrow[i + 1])
                _tsne_pair(&Yt[0, 0], n, dim, i + 2, i + 3, p2[i + 3], scale, A, R, &zrow[i + 2])
                if scale == 1.0:
                    smallvis_tsne_rows4_2d(&Yt[0, 0], &Yt[1, 0], n, i, p0, p1, p2,
                                           p3, A, A + n, R, R + n, &zrow[i])
                else:
                    smallvis_tsne_rows4_2d_scaled(&Yt[0, 0], &Yt[1, 0], n, i, p0, p1,
                                                  p2, p3, scale, A, A + n, R, R + n,
                                                  &zrow[i])
            else:
                for r in range(m):
                    p0 = &dv[(i + r) * n] if dense else &sc[t, 3 + r, 0]
                    _tsne_row(&Yt[0, 0], n, dim, i + r, i + r + 1, p0, scale, &sc[t, 0, 0],
                              &sc[t, 1, 0], &sc[t, 2, 0], A, R, &zrow[i + r])
            if not dense:
                for r in range(m):
                    _clear_row(&ip[0], &ix[0], i + r, &sc[t, 3 + r, 0])
    cdef double Z = 0.0
    for i in range(n):
        Z += zrow[i]
    Z *= 2.0
    _combine_threads(attr, rep, Z, 4.0 / scale, grad)


# tsne with heavy tails, dof != 1 (dof = 1 runs the Cauchy kernels above)


cdef double _tsne_dof_log_w_max(const double* Yt, Py_ssize_t n, Py_ssize_t dim, int nt,
                                double dof, double[:, :, ::1] sc,
                                double[::1] mrow) noexcept nogil:
    """-log w at the smallest squared distance: the loops' weights are relative to it."""
    cdef double m = _global_min_sq_dist(Yt, n, dim, nt, sc, mrow) if n > 1 else 0.0
    return smallvis_tsne_dof_neg_log_w(m, dof)


def tsne_dof_cost(indptr, indices, data, Y, dof, n_threads):
    """t-SNE cost KL(P||Q) with the heavy-tailed weight; see the reference twin.

    With P symmetric each unordered pair is visited once: KL = 2 sum_{i<j,
    p>0} p_ij (log p_ij - log w_ij) + (sum P) log Z, with Z summed over the
    weights relative to the largest (tsne.h).
    """
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = indices
    cdef const double[::1] dv = data
    cdef Py_ssize_t n = Y.shape[0], dim = Y.shape[1], i, j
    cdef int nt = n_threads
    cdef double a = dof
    Yt_arr = np.ascontiguousarray(Y.T)
    cdef const double[:, ::1] Yt = Yt_arr
    cdef double[:, :, ::1] sc = _scratch(nt, 1, n)
    cdef double[::1] zrow = np.zeros(n)
    cdef double[::1] lrow = np.zeros(n)
    cdef double[::1] prow_sum = np.zeros(n)
    cdef double* d2
    cdef double s, p, ps, z, top
    cdef bint dense = ip[n] == n * n
    cdef int64_t k
    with nogil:
        top = _tsne_dof_log_w_max(&Yt[0, 0], n, dim, nt, a, sc, zrow)
        for i in prange(n, schedule="static", chunksize=1, num_threads=nt):
            d2 = &sc[threadid(), 0, 0]
            _sq_dist_row(&Yt[0, 0], n, dim, i, i + 1, d2)
            s = 0.0
            ps = 0.0
            if dense:
                z = 0.0
                s = smallvis_tsne_dof_cost_row(d2, &dv[i * n], i + 1, n, a, top, &z, &ps)
                zrow[i] = z
                ps = 2.0 * ps
            else:
                zrow[i] = smallvis_tsne_dof_z_row(d2, i + 1, n, a, top)
                for k in range(ip[i], ip[i + 1]):
                    j = ix[k]
                    p = dv[k]
                    if j != i:
                        ps = ps + p
                    if j > i and p > 0.0:
                        s = s + smallvis_tsne_dof_edge(p, d2[j], a)
            lrow[i] = s
            prow_sum[i] = ps
    cdef double Z = 0.0, total = 0.0, P_sum = 0.0
    for i in range(n):
        Z += zrow[i]
        total += lrow[i]
        P_sum += prow_sum[i]
    Z *= 2.0
    return 2.0 * total + P_sum * (log(Z) - top)


def tsne_dof_gradient(indptr, indices, data, Y, dof, grad, n_threads):
    """t-SNE gradient 4 sum_j (p_ij - q_ij) w_ij^(1/dof) (y_i - y_j); see the reference.

    Row by row (any output dimension): the attraction coefficients p s and
    the repulsion coefficients w' s of a row (_pairloops.h), w' the weight
    relative to the largest, accumulated per thread as in tsne_gradient.
    """
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = indices
    cdef const double[::1] dv = data
    cdef Py_ssize_t n = Y.shape[0], dim = Y.shape[1], i
    cdef int nt = n_threads
    cdef double a = dof
    Yt_arr = np.ascontiguousarray(Y.T)
    cdef const double[:, ::1] Yt = Yt_arr
    # per thread: d2, attraction and repulsion coefficients, the P row
    cdef double[:, :, ::1] sc = _scratch(nt, 4, n)
    attr_arr = np.zeros((nt, dim, n))
    rep_arr = np.zeros((nt, dim, n))
    cdef double[:, :, ::1] attr = attr_arr
    cdef double[:, :, ::1] rep = rep_arr
    cdef double[::1] zrow = np.zeros(n)
    cdef bint dense = ip[n] == n * n
    cdef const double* prow
    cdef double top
    cdef int t
    with nogil:
        top = _tsne_dof_log_w_max(&Yt[0, 0], n, dim, nt, a, sc, zrow)
        for i in prange(n, schedule="static", chunksize=1, num_threads=nt):
            t = threadid()
            if dense:
                prow = &dv[i * n]
            else:
                _scatter_row(&ip[0], &ix[0], &dv[0], i, i + 1, &sc[t, 3, 0])
                prow = &sc[t, 3, 0]
            if dim == 2:
                zrow[i] = smallvis_tsne_dof_row_2d(&Yt[0, 0], &Yt[1, 0], n, i, prow, a, top,
                                                   &attr[t, 0, 0], &attr[t, 1, 0],
                                                   &rep[t, 0, 0], &rep[t, 1, 0])
            else:
                _sq_dist_row(&Yt[0, 0], n, dim, i, i + 1, &sc[t, 0, 0])
                zrow[i] = smallvis_tsne_dof_coef_row(&sc[t, 0, 0], prow, i + 1, n, a, top,
                                                     &sc[t, 1, 0], &sc[t, 2, 0])
                _accumulate_pairs(&Yt[0, 0], n, dim, i, i + 1, &sc[t, 1, 0],
                                  &attr[t, 0, 0])
                _accumulate_pairs(&Yt[0, 0], n, dim, i, i + 1, &sc[t, 2, 0],
                                  &rep[t, 0, 0])
            if not dense:
                _clear_row(&ip[0], &ix[0], i, &sc[t, 3, 0])
    cdef double Z = 0.0
    for i in range(n):
        Z += zrow[i]
    Z *= 2.0
    _combine_threads(attr, rep, Z, 4.0, grad)


# ---------------------------------------------------------------------------
# ssne
# ---------------------------------------------------------------------------
# infonce: each row's expected loss is one unit call (methods/infonce/unit.h)
# ---------------------------------------------------------------------------


cdef Py_ssize_t _infonce_positives(const int64_t* ip, const int64_t* ix, const double* dv,
                                   Py_ssize_t i, Py_ssize_t n_cols, bint full,
                                   Py_ssize_t skip, int64_t* pos,
                                   double* p) noexcept nogil:
    """The stored positive entries of row ``i`` (not column ``skip``): their count."""
    cdef Py_ssize_t count = 0, k
    cdef int64_t q
    if full:
        for k in range(n_cols):
            if k != skip and dv[i * n_cols + k] > 0.0:
                pos[count] = k
                p[count] = dv[i * n_cols + k]
                count += 1
        return count
    for q in range(ip[i], ip[i + 1]):
        if ix[q] != skip and dv[q] > 0.0:
            pos[count] = ix[q]
            p[count] = dv[q]
            count += 1
    return count


cdef double _infonce_row(const double* y, const double* yr, Py_ssize_t dim,
                         Py_ssize_t i, Py_ssize_t n_cols, Py_ssize_t skip,
                         const int64_t* ip, const int64_t* ix, const double* dv, bint full,
                         double m, bint want_grad, double* work, int64_t* pos,
                         double* acc_row, double* acc_cols) noexcept nogil:
    """Row ``i``'s cost; with ``want_grad`` its forces: ``acc_row`` (y_i's) and
    ``acc_cols`` (the columns', ``n_cols x dim``; NULL for fixed columns)."""
    cdef double* phi = work
    cdef double* phi0 = work + n_cols
    cdef double* slopes = work + 2 * n_cols
    cdef double* e = work + 3 * n_cols
    cdef double* p = work + 4 * n_cols
    cdef const double* yi = y + i * dim
    cdef Py_ssize_t k, d, n_pos
    cdef double d2, diff, c, cost
    for k in range(n_cols):
        d2 = 0.0
        for d in range(dim):
            diff = yi[d] - yr[k * dim + d]
            d2 = d2 + diff * diff
        phi[k] = smallvis_infonce_phi(d2)
        phi0[k] = phi[k]
    n_pos = _infonce_positives(ip, ix, dv, i, n_cols, full, skip, pos, p)
    cost = smallvis_infonce_row(phi, n_cols, skip, pos, p, n_pos, m,
                                slopes if want_grad else NULL, e)
    if want_grad and n_pos > 0:
        for k in range(n_cols):
            if k == skip:
                continue
            # dC_i/d(d2) = -phi^2 dC_i/dphi; d(d2)/dy_i = 2 (y_i - y_k)
            c = -2.0 * slopes[k] * phi0[k] * phi0[k]
            for d in range(dim):
                diff = c * (yi[d] - yr[k * dim + d])
                acc_row[d] += diff
                if acc_cols != NULL:
                    acc_cols[k * dim + d] -= diff
    return cost


cdef double _infonce(indptr, indices, data, Y, Y_train, double m, grad, int nt):
    """The expected InfoNCE loss (and gradient into ``grad``, when given) of a map
    (``Y_train`` None) or of new points against ``Y_train``."""
    fit = Y_train is None
    Yr = Y if fit else Y_train
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = indices
    cdef const double[::1] dv = data
    cdef const double[:, ::1] y = Y
    cdef const double[:, ::1] yr = Yr
    cdef Py_ssize_t n_rows = y.shape[0], n_cols = yr.shape[0], dim = y.shape[1], i, d, t
    cdef bint full = fit and dv.shape[0] == n_rows * n_cols
    cdef bint want_grad = grad is not None, is_fit = fit
    nt = max(1, nt)
    cdef double[:, ::1] work = np.zeros((nt, 5 * n_cols))
    cdef int64_t[:, ::1] pos = np.zeros((nt, n_cols), dtype=np.int64)
    # per thread: the forces on every row (a fit moves the columns too)
    cdef double[:, :, ::1] acc = np.zeros((nt, n_rows if want_grad else 1,
                                           dim if want_grad else 1))
    cdef double[::1] costs = np.zeros(n_rows)
    cdef const int64_t* ipp = &ip[0]
    cdef const int64_t* ixp = &ix[0] if ix.shape[0] else NULL
    cdef const double* dvp = &dv[0] if dv.shape[0] else NULL
    with nogil:
        for i in prange(n_rows, schedule="static", chunksize=1, num_threads=nt):
            t = threadid()
            costs[i] = _infonce_row(&y[0, 0], &yr[0, 0], dim, i, n_cols,
                                    i if is_fit else -1, ipp, ixp, dvp, full, m, want_grad,
                                    &work[t, 0], &pos[t, 0],
                                    &acc[t, i, 0] if want_grad else NULL,
                                    &acc[t, 0, 0] if want_grad and is_fit else NULL)
    cdef double total = 0.0, s
    cdef double[:, ::1] g
    for i in range(n_rows):
        total += costs[i]
    if want_grad:
        g = grad
        for i in range(n_rows):
            for d in range(dim):
                s = acc[0, i, d]
                for t in range(1, nt):
                    s = s + acc[t, i, d]
                g[i, d] = s
    return total


def infonce_cost(indptr, indices, data, Y, m, n_threads):
    """The expected InfoNCE loss; see the reference twin."""
    return _infonce(indptr, indices, data, Y, None, m, None, n_threads)


def infonce_gradient(indptr, indices, data, Y, m, grad, n_threads):
    """Gradient of infonce_cost (the derivative of its quadrature); see the reference twin."""
    _infonce(indptr, indices, data, Y, None, m, grad, n_threads)


def infonce_transform_cost(indptr, indices, data, Y, Y_train, m, n_threads):
    """The expected InfoNCE loss of new points; see the reference twin."""
    return _infonce(indptr, indices, data, Y, Y_train, m, None, n_threads)


def infonce_transform_gradient(indptr, indices, data, Y, Y_train, m, grad, n_threads):
    """Gradient of infonce_transform_cost; see the reference twin."""
    _infonce(indptr, indices, data, Y, Y_train, m, grad, n_threads)


# ---------------------------------------------------------------------------


cdef double _global_min_sq_dist(const double* Yt, Py_ssize_t n, Py_ssize_t dim,
                                int nt, double[:, :, ::1] sc,
                                double[::1] mrow) noexcept nogil:
    """Smallest squared distance over all pairs (computed row-parallel)."""
    cdef Py_ssize_t i, j
    cdef double* d2
    cdef double m
    for i in prange(n - 1, schedule="static", chunksize=1, num_threads=nt):
        d2 = &sc[threadid(), 0, 0]
        _sq_dist_row(Yt, n, dim, i, i + 1, d2)
        m = INFINITY
        for j in range(i + 1, n):
            if d2[j] < m:
                m = d2[j]
        mrow[i] = m
    m = INFINITY
    for i in range(n - 1):
        if mrow[i] < m:
            m = mrow[i]
    return m


def ssne_cost(indptr, indices, data, Y, n_threads):
    """Symmetric SNE cost KL(P||Q); see the reference twin."""
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = indices
    cdef const double[::1] dv = data
    cdef Py_ssize_t n = Y.shape[0], dim = Y.shape[1], i, j
    cdef int nt = n_threads
    Yt_arr = np.ascontiguousarray(Y.T)
    cdef const double[:, ::1] Yt = Yt_arr
    cdef double[:, :, ::1] sc = _scratch(nt, 1, n)
    cdef double[::1] zrow = np.zeros(n)
    cdef double[::1] lrow = np.zeros(n)
    cdef double* d2
    cdef double z, s, m
    cdef int64_t k
    cdef int64_t nnz = ip[n]
    with nogil:
        m = _global_min_sq_dist(&Yt[0, 0], n, dim, nt, sc, zrow)
        for i in prange(n, schedule="static", chunksize=1, num_threads=nt):
            d2 = &sc[threadid(), 0, 0]
            _sq_dist_row(&Yt[0, 0], n, dim, i, i + 1, d2)
            z = 0.0
            for j in range(i + 1, n):
                z = z + smallvis_ssne_w(d2[j], m)
            zrow[i] = z
            s = 0.0
            for k in range(ip[i], ip[i + 1]):
                if dv[k] > 0.0:
                    s = s + dv[k] * _pair_sq_dist(&Yt[0, 0], n, dim, i, ix[k])
            lrow[i] = s
    cdef double Z = 0.0, attr = 0.0
    for i in range(n):
        Z += zrow[i]
        attr += lrow[i]
    Z *= 2.0
    return _plogp_sum(&dv[0], nnz) + attr + _p_sum(&dv[0], nnz) * (log(Z) - m)


def ssne_gradient(indptr, indices, data, Y, grad, n_threads):
    """Symmetric SNE gradient 4 sum_j (p_ij - q_ij)(y_i - y_j); see the reference."""
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = indices
    cdef const double[::1] dv = data
    cdef Py_ssize_t n = Y.shape[0], dim = Y.shape[1], i, j
    cdef int nt = n_threads
    Yt_arr = np.ascontiguousarray(Y.T)
    cdef const double[:, ::1] Yt = Yt_arr
    cdef double[:, :, ::1] sc = _scratch(nt, 3, n)
    attr_arr = np.zeros((nt, dim, n))
    rep_arr = np.zeros((nt, dim, n))
    cdef double[:, :, ::1] attr = attr_arr
    cdef double[:, :, ::1] rep = rep_arr
    cdef double[::1] zrow = np.zeros(n)
    cdef double *d2
    cdef double *prow
    cdef double z, e, m
    cdef int t
    with nogil:
        m = _global_min_sq_dist(&Yt[0, 0], n, dim, nt, sc, zrow)
        for i in prange(n, schedule="static", chunksize=1, num_threads=nt):
            t = threadid()
            d2 = &sc[t, 0, 0]
            prow = &sc[t, 1, 0]
            _sq_dist_row(&Yt[0, 0], n, dim, i, i + 1, d2)
            _scatter_row(&ip[0], &ix[0], &dv[0], i, i + 1, prow)
            z = 0.0
            for j in range(i + 1, n):
                e = smallvis_ssne_w(d2[j], m)
                z = z + e
                d2[j] = e
            zrow[i] = z
            _accumulate_pairs(&Yt[0, 0], n, dim, i, i + 1, prow, &attr[t, 0, 0])
            _accumulate_pairs(&Yt[0, 0], n, dim, i, i + 1, d2, &rep[t, 0, 0])
            _clear_row(&ip[0], &ix[0], i, prow)
    cdef double Z = 0.0
    for i in range(n):
        Z += zrow[i]
    Z *= 2.0
    _combine_threads(attr, rep, Z, 4.0, grad)


# ---------------------------------------------------------------------------
# asne
# ---------------------------------------------------------------------------


cdef inline double _asne_row_weights(const double* Yt, Py_ssize_t n,
                                     Py_ssize_t dim, Py_ssize_t i,
                                     double* d2, double* e,
                                     double* m_out) noexcept nogil:
    """Full row i: e_j = exp(-(d2_ij - m_i)), e_i = 0; returns sum_j e_j."""
    cdef Py_ssize_t j
    cdef double m = INFINITY, z = 0.0
    _sq_dist_row(Yt, n, dim, i, 0, d2)
    for j in range(n):
        if j != i and d2[j] < m:
            m = d2[j]
    for j in range(n):
        if j == i:
            e[j] = 0.0
        else:
            e[j] = smallvis_asne_w(d2[j], m)
            z += e[j]
    m_out[0] = m
    return z


def asne_cost(indptr, indices, data, Y, n_threads):
    """Asymmetric SNE cost sum_i KL(P_i||Q_i); see the reference twin."""
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = indices
    cdef const double[::1] dv = data
    cdef Py_ssize_t n = Y.shape[0], dim = Y.shape[1], i
    cdef int nt = n_threads
    Yt_arr = np.ascontiguousarray(Y.T)
    cdef const double[:, ::1] Yt = Yt_arr
    cdef double[:, :, ::1] sc = _scratch(nt, 2, n)
    cdef double[::1] lrow = np.zeros(n)
    cdef double z, s, m, logz
    cdef int t
    cdef int64_t k
    with nogil:
        for i in prange(n, schedule="static", chunksize=1, num_threads=nt):
            t = threadid()
            if ip[i + 1] == ip[i]:
                lrow[i] = 0.0
                continue
            m = 0.0
            z = _asne_row_weights(&Yt[0, 0], n, dim, i, &sc[t, 0, 0],
                                  &sc[t, 1, 0], &m)
            logz = log(z) - m
            s = 0.0
            for k in range(ip[i], ip[i + 1]):
                if dv[k] > 0.0:
                    s = s + dv[k] * (log(dv[k]) + sc[t, 0, ix[k]] + logz)
            lrow[i] = s
    cdef double total = 0.0
    for i in range(n):
        total += lrow[i]
    return total


def asne_gradient(indptr, indices, data, Y, grad, n_threads):
    """Asymmetric SNE gradient (docs/theory.md §3.2); see the reference twin."""
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = indices
    cdef const double[::1] dv = data
    cdef Py_ssize_t n = Y.shape[0], dim = Y.shape[1], i, j
    cdef int nt = n_threads
    Yt_arr = np.ascontiguousarray(Y.T)
    cdef const double[:, ::1] Yt = Yt_arr
    cdef double[:, :, ::1] sc = _scratch(nt, 3, n)
    acc_arr = np.zeros((nt, dim, n))
    cdef double[:, :, ::1] acc = acc_arr
    cdef double *d2
    cdef double *e
    cdef double *prow
    cdef double z, m
    cdef int t
    with nogil:
        for i in prange(n, schedule="static", chunksize=1, num_threads=nt):
            t = threadid()
            d2 = &sc[t, 0, 0]
            e = &sc[t, 1, 0]
            prow = &sc[t, 2, 0]
            m = 0.0
            z = _asne_row_weights(&Yt[0, 0], n, dim, i, d2, e, &m)
            _scatter_row(&ip[0], &ix[0], &dv[0], i, 0, prow)
            for j in range(n):
                e[j] = 2.0 * (prow[j] - e[j] / z)
            e[i] = 0.0
            _clear_row(&ip[0], &ix[0], i, prow)
            _accumulate_pairs(&Yt[0, 0], n, dim, i, 0, e, &acc[t, 0, 0])
    _combine_threads(acc, _NO_THREADS, 1.0, 1.0, grad)


# ---------------------------------------------------------------------------
# normalised units: one engine for all, fed by each unit's hooks
# (smallvis/methods/<method>.h, instantiated in _pairloops.h from
# SMALLVIS_NORMALISED_UNITS); the SNE family's named kernels above are its
# fast paths for the KL divergence
# ---------------------------------------------------------------------------

# ---- normalised engine: begin

#: ``{unit name: (index in the list, its fields)}`` of the normalised units
#: (methods/units.h).
_NORMALISED_UNITS = {smallvis_normalised_names[_u].decode():
                     (_u, tuple(f for f in smallvis_normalised_fields[_u].decode().split()))
                     for _u in range(SMALLVIS_N_NORMALISED_UNITS)}


cdef Py_ssize_t _load_normalised(unit, smallvis_normalised_params* k) except -1:
    """Fill ``k`` from a normalised NumPy unit's fields; return its index in the list."""
    values = unit_field_values(unit)
    try:
        u, fields = _NORMALISED_UNITS[unit.c_unit]
    except (AttributeError, KeyError):
        raise ValueError(f"no compiled normalised unit for {unit!r}; compiled: "
                         f"{', '.join(_NORMALISED_UNITS)}") from None
    if len(unit) != len(fields):
        raise ValueError(f"{type(unit).__name__} has {len(unit)} fields; its C unit reads "
                         f"{len(fields)} ({' '.join(fields)})")
    # a per-point field (row_bandwidths) is read by the engine: 0 in its place
    scalars = iter(values)
    per_point = getattr(type(unit), "point_fields", ())
    values = tuple(0.0 if name in per_point else next(scalars) for name in type(unit)._fields)
    cdef const double[::1] f = np.ascontiguousarray(values + (0.0,), dtype=np.float64)
    smallvis_normalised_loaders[u](&f[0], 0.0, k)
    return u


ctypedef struct _EngineInput:
    # Y transposed (dim, n) and P as CSR
    const double* Yt
    const int64_t* ip
    const int64_t* ix
    const double* dv
    Py_ssize_t n
    Py_ssize_t dim
    # each row's precision beta_i of a bandwidth unit (row_bandwidths), or NULL
    const double* bw
    # each point's importance m_i of a weighted unit (pair_importances) and its
    # log, or NULL; then per thread 2 rows of n: a pair's a_ij = m_i m_j, its log
    const double* imp
    const double* limp
    double* arow


cdef inline double* _engine_row(const _EngineInput* a, double* scratch, Py_ssize_t i,
                                Py_ssize_t start, bint with_p) noexcept nogil:
    """Row i in the calling thread's scratch (3 rows of n): its d2 over start <= j < n, returned.

    The other scratch rows follow it: P's row (scattered when ``with_p``; the caller
    clears it with :func:`_clear_row`), then the coefficients.  A full row
    (``start`` 0) has d2[i] = inf: the pair (i, i) has weight 0.  With a
    bandwidth, d2 is row i's argument of the weight, beta_i |y_i - y_j|^2.
    """
    cdef double* d2 = scratch + 3 * a.n * threadid()
    cdef Py_ssize_t j
    _sq_dist_row(a.Yt, a.n, a.dim, i, start, d2)
    if start == 0:
        d2[i] = INFINITY
    if a.bw != NULL:
        for j in range(start, a.n):
            d2[j] *= a.bw[i]
    if with_p:
        _scatter_row(a.ip, a.ix, a.dv, i, start, d2 + a.n)
    return d2


cdef inline double* _importance_row(const _EngineInput* a, Py_ssize_t i, Py_ssize_t start,
                                    bint logs) noexcept nogil:
    """Row i's pair importances a_ij = m_i m_j over start <= j < n in the thread's scratch.

    Their logs (log m_i + log m_j) follow them, n further on, when ``logs``.
    """
    cdef double* r = a.arow + 2 * a.n * threadid()
    cdef Py_ssize_t j
    for j in range(start, a.n):
        r[j] = a.imp[i] * a.imp[j]
    if logs:
        for j in range(start, a.n):
            r[a.n + j] = a.limp[i] + a.limp[j]
    return r


cdef inline Py_ssize_t _first_pair(Py_ssize_t i, bint half) noexcept nogil:
    """The first column of row i's pairs over all pairs: i + 1 on half rows, else 0."""
    return i + 1 if half else 0


cdef double _normalised(const smallvis_normalised_unit* unit, const void* params,
                        bint rows, indptr, indices, data, Y, grad, int nt,
                        bandwidth=None, bint p_symmetric=True, importance=None):
    """The cost (grad None, returned) or the gradient of a normalised unit.

    Over each row (``rows``) a row is one pass; over all pairs the passes
    follow the global sums (the shift, z, the offset S), each over the
    unordered pairs j > i of a row (``P`` symmetric), but the cost, which
    reads ``P`` as given.

    ``bandwidth``: each row's precision beta_i of a bandwidth unit
    (``row_bandwidths``), or None.  Row i's squared distances are scaled by
    beta_i before the hooks see them (:func:`_engine_row`) and its
    coefficients after (the chain rule).  The weight of (i, j) is then not
    that of (j, i), so over all pairs every pass runs over full rows, each
    ordered pair once; so too without ``p_symmetric`` (a ``P`` that is not
    symmetric, :func:`~smallvis.methods._common.symmetric_p`).

    ``importance``: each point's importance m_i of a weighted unit
    (``pair_importances``), or None.  The weight of (i, j) is then m_i m_j
    times the unit's (the rows named _a of _pairloops.h), still symmetric.
    """
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = np.ascontiguousarray(indices) if len(indices) else np.zeros(1, dtype=np.int64)
    cdef const double[::1] dv = np.ascontiguousarray(data) if len(data) else np.zeros(1)
    cdef Py_ssize_t n = Y.shape[0], dim = Y.shape[1], i, j, j0
    Yt_arr = np.ascontiguousarray(Y.T)
    cdef const double[:, ::1] Yt = Yt_arr
    bw_arr = None if bandwidth is None else np.ascontiguousarray(bandwidth, dtype=np.float64)
    cdef const double[::1] bwv = bw_arr if bw_arr is not None else np.ones(1)
    cdef _EngineInput a
    a.Yt, a.ip, a.ix, a.dv, a.n, a.dim = &Yt[0, 0], &ip[0], &ix[0], &dv[0], n, dim
    a.bw = &bwv[0] if bw_arr is not None else NULL
    imp_arr = None if importance is None else np.ascontiguousarray(importance, dtype=np.float64)
    limp_arr = log_importances(imp_arr)
    cdef const double[::1] impv = imp_arr if imp_arr is not None else np.ones(1)
    cdef const double[::1] limpv = limp_arr if imp_arr is not None else np.zeros(1)
    cdef double[:, :, ::1] asc = _scratch(nt if imp_arr is not None else 1, 2,
                                          n if imp_arr is not None else 1)
    a.imp = &impv[0] if imp_arr is not None else NULL
    a.limp = &limpv[0] if imp_arr is not None else NULL
    a.arow = &asc[0, 0, 0]
    cdef bint weighted = a.imp != NULL
    cdef double* ar
    # over all pairs: half rows (j > i, each unordered pair standing for
    # both orders) when the weights and P are symmetric, else full rows
    cdef bint half = a.bw == NULL and p_symmetric
    cdef double pairs = 2.0 if half else 1.0
    # per thread: d2, P row, coefficients
    cdef double[:, :, ::1] sc = _scratch(nt, 3, n)
    cdef bint want = grad is not None
    acc_arr = np.zeros((nt if want else 1, dim, n))
    cdef double[:, :, ::1] acc = acc_arr
    cdef double[::1] rmin = np.zeros(n)
    cdef double[::1] rz = np.zeros(n)
    cdef double[::1] rs = np.zeros(n)
    cdef double[::1] rcost = np.zeros(n)
    cdef double shift = 0.0, z = 0.0, S = 0.0, dmin, total
    cdef double* d2
    with nogil:
        if rows:
            for i in prange(n, schedule="static", chunksize=1, num_threads=nt):
                d2 = _engine_row(&a, &sc[0, 0, 0], i, 0, True)
                if want:
                    # row i's q: every pair (i, j), both ends
                    if weighted:
                        ar = _importance_row(&a, i, 0, False)
                        unit.self_coef_row_a(d2, d2 + n, ar, n, 1.0, params, d2 + 2 * n)
                    else:
                        unit.self_coef_row(d2, d2 + n, n, 1.0, params, d2 + 2 * n)
                    if a.bw != NULL:
                        for j in range(n):
                            d2[2 * n + j] *= a.bw[i]
                    _accumulate_pairs(a.Yt, n, dim, i, 0, d2 + 2 * n, &acc[threadid(), 0, 0])
                elif weighted:
                    ar = _importance_row(&a, i, 0, True)
                    rcost[i] = unit.self_cost_row_a(d2, d2 + n, ar, ar + n, n, 1.0, params)
                else:
                    rcost[i] = unit.self_cost_row(d2, d2 + n, n, 1.0, params)
                _clear_row(a.ip, a.ix, i, d2 + n)
        else:
            # the shift, from the smallest d2 over all pairs
            for i in prange(n, schedule="static", chunksize=1, num_threads=nt):
                j0 = _first_pair(i, half)
                d2 = _engine_row(&a, &sc[0, 0, 0], i, j0, False)
                rmin[i] = smallvis_nq_min(d2 + j0, n - j0)
            dmin = INFINITY
            for i in range(n):
                dmin = fmin(dmin, rmin[i])
            shift = unit.shift(dmin, params)
            # z (on half rows each unordered pair counted twice)
            for i in prange(n, schedule="static", chunksize=1, num_threads=nt):
                j0 = _first_pair(i, half)
                d2 = _engine_row(&a, &sc[0, 0, 0], i, j0, False)
                if weighted:
                    ar = _importance_row(&a, i, j0, False)
                    rz[i] = unit.z_row_a(d2, ar, j0, n, shift, params)
                else:
                    rz[i] = unit.z_row(d2, j0, n, shift, params)
            for i in range(n):
                z += rz[i]
            z = pairs * z
        if not rows and want:
            # the offset S (on half rows P symmetric: each unordered pair
            # twice), then the coefficients of the pairs, each at both ends
            for i in prange(n, schedule="static", chunksize=1, num_threads=nt):
                j0 = _first_pair(i, half)
                d2 = _engine_row(&a, &sc[0, 0, 0], i, j0, True)
                if weighted:
                    ar = _importance_row(&a, i, j0, False)
                    rs[i] = unit.dual_row_a(d2, d2 + n, ar, j0, n, shift, z, params)
                else:
                    rs[i] = unit.dual_row(d2, d2 + n, j0, n, shift, z, params)
                _clear_row(a.ip, a.ix, i, d2 + n)
            for i in range(n):
                S += rs[i]
            S = unit.offset(1.0, pairs * S, params)
            for i in prange(n, schedule="static", chunksize=1, num_threads=nt):
                j0 = _first_pair(i, half)
                d2 = _engine_row(&a, &sc[0, 0, 0], i, j0, True)
                if weighted:
                    ar = _importance_row(&a, i, j0, False)
                    unit.coef_row_a(d2, d2 + n, ar, j0, n, shift, z, S,
                                    4.0 if half else (2.0 * a.bw[i] if a.bw != NULL else 2.0),
                                    params, d2 + 2 * n)
                else:
                    unit.coef_row(d2, d2 + n, j0, n, shift, z, S,
                                  4.0 if half else (2.0 * a.bw[i] if a.bw != NULL else 2.0),
                                  params, d2 + 2 * n)
                _accumulate_pairs(a.Yt, n, dim, i, j0, d2 + 2 * n, &acc[threadid(), 0, 0])
                _clear_row(a.ip, a.ix, i, d2 + n)
        elif not rows:
            for i in prange(n, schedule="static", chunksize=1, num_threads=nt):
                d2 = _engine_row(&a, &sc[0, 0, 0], i, 0, True)
                if weighted:
                    ar = _importance_row(&a, i, 0, True)
                    rcost[i] = unit.cost_row_a(d2, d2 + n, ar, ar + n, 0, n, shift, z, params)
                else:
                    rcost[i] = unit.cost_row(d2, d2 + n, 0, n, shift, z, params)
                _clear_row(a.ip, a.ix, i, d2 + n)
    if want:
        _combine_threads(acc, _NO_THREADS, 1.0, 1.0, grad)
        return 0.0
    total = 0.0
    for i in range(n):
        total += rcost[i]
    return total


def _normalised_rows(unit):
    """Whether a unit normalises over each row (else over all pairs)."""
    if unit.normalisation not in ("rows", "total"):
        raise ValueError(f"{type(unit).__name__}.normalisation must be 'rows' or 'total'; "
                         f"got {unit.normalisation!r}")
    return unit.normalisation == "rows"


def _checked_normalised(unit, indptr, indices, data, Y, grad, n_threads):
    """The cost (grad None) or gradient of a normalised unit, its arrays checked."""
    cdef smallvis_normalised_params k
    cdef Py_ssize_t u = _load_normalised(unit, &k)
    cdef bint rows = _normalised_rows(unit)
    _check_pair_arrays(indptr, indices, data, Y, grad, in_range=_indices_in_range)
    return _normalised(smallvis_normalised_units[u], &k, rows, indptr, indices, data, Y,
                       grad, n_threads, row_bandwidths(unit, Y.shape[0]), symmetric_p(unit),
                       pair_importances(unit, Y.shape[0], (indptr, indices, data)))


def normalised_cost(unit, indptr, indices, data, Y, n_threads):
    """A normalised unit's exact cost; see the reference twin."""
    return _checked_normalised(unit, indptr, indices, data, Y, None, n_threads)


def normalised_gradient(unit, indptr, indices, data, Y, grad, n_threads):
    """A normalised unit's exact gradient (into grad); see the reference twin."""
    _checked_normalised(unit, indptr, indices, data, Y, grad, n_threads)
# ---- normalised engine: end


# ---------------------------------------------------------------------------
# un-normalised methods: one engine for all, fed by each method's unit
# (smallvis/methods/<method>.h, instantiated in _pairloops.h)
# ---------------------------------------------------------------------------

# ---- engine: begin


cdef double _coef_gradient(const smallvis_exact_unit* unit, const void* params,
                           indptr, indices, data, Y, grad, int nt, aux=None):
    """Gradient 4 sum_j c_ij (y_i - y_j) over unordered pairs (P symmetric).

    Writes ``grad``; returns the sum of the rows' learned-scalar terms.
    The unit's fused 2-D row, when it has one, runs for 2-D output.
    """
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = indices
    cdef const double[::1] dv = data
    cdef Py_ssize_t n = Y.shape[0], dim = Y.shape[1], i
    cdef const double[::1] av = np.zeros(n) if aux is None else aux
    Yt_arr = np.ascontiguousarray(Y.T)
    cdef const double[:, ::1] Yt = Yt_arr
    # per thread: d2, P row, coefficients
    cdef double[:, :, ::1] sc = _scratch(nt, 3, n)
    acc_arr = np.zeros((nt, dim, n))
    cdef double[:, :, ::1] acc = acc_arr
    cdef double[::1] lrow = np.zeros(n)
    cdef bint dense = ip[n] == n * n
    cdef bint fused = dim == 2 and unit.row_2d != NULL
    cdef const double* prow
    cdef int t
    with nogil:
        for i in prange(n, schedule="static", chunksize=1, num_threads=nt):
            t = threadid()
            if dense:
                prow = &dv[i * n]
            else:
                _scatter_row(&ip[0], &ix[0], &dv[0], i, i + 1, &sc[t, 1, 0])
                prow = &sc[t, 1, 0]
            if fused:
                unit.row_2d(&Yt[0, 0], &Yt[1, 0], n, i, prow, params, &acc[t, 0, 0],
                            &acc[t, 1, 0])
            else:
                _sq_dist_row(&Yt[0, 0], n, dim, i, i + 1, &sc[t, 0, 0])
                lrow[i] = unit.coef_row(&sc[t, 0, 0], prow, &av[0], i, i + 1, n,
                                        params, &sc[t, 2, 0])
                _accumulate_pairs(&Yt[0, 0], n, dim, i, i + 1, &sc[t, 2, 0],
                                  &acc[t, 0, 0])
            if not dense:
                _clear_row(&ip[0], &ix[0], i, &sc[t, 1, 0])
    _combine_threads(acc, _NO_THREADS, 1.0, 4.0, grad)
    cdef double total = 0.0
    for i in range(n):
        total += lrow[i]
    return total


cdef double _pair_cost(const smallvis_exact_unit* unit, const void* params, indptr,
                       indices, data, Y, int nt, aux=None):
    """2 * sum_{i<j} [repulsion(d2) + edge(p_ij, d2) for stored p_ij > 0]."""
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = np.ascontiguousarray(indices) if len(indices) else np.zeros(1, dtype=np.int64)
    cdef const double[::1] dv = np.ascontiguousarray(data) if len(data) else np.zeros(1)
    cdef Py_ssize_t n = Y.shape[0], dim = Y.shape[1], i
    cdef const double[::1] av = np.zeros(n) if aux is None else aux
    Yt_arr = np.ascontiguousarray(Y.T)
    cdef const double[:, ::1] Yt = Yt_arr
    cdef double[:, :, ::1] sc = _scratch(nt, 1, n)
    cdef double[::1] rrow = np.zeros(n)
    cdef double[::1] erow = np.zeros(n)
    cdef int dense = ip[n] == n * n
    cdef double* d2
    with nogil:
        for i in prange(n, schedule="static", chunksize=1, num_threads=nt):
            d2 = &sc[threadid(), 0, 0]
            _sq_dist_row(&Yt[0, 0], n, dim, i, i + 1, d2)
            rrow[i] = unit.repulsion_row(d2, &av[0], i, i + 1, n, params)
            erow[i] = unit.edge_row(&ip[0], &ix[0], &dv[0], dense, d2, &av[0], i, n,
                                    params)
    cdef double total = 0.0
    for i in range(n):
        total += rrow[i] + erow[i]
    return 2.0 * total
# ---- engine: end


# ---------------------------------------------------------------------------
# the entry points of the pair units: a unit (its NumPy NamedTuple) in, its
# compiled twin picked from the list's tables by the unit's ``kernel``, its
# fields (in NamedTuple order) loaded into its C struct by its loader
# ---------------------------------------------------------------------------

#: ``{unit name: (index in the list, its fields)}``, from the list itself
#: (methods/units.h); tests compare the fields with the NumPy units'.
_PAIR_UNITS = {smallvis_unit_names[_u].decode():
               (_u, tuple(smallvis_unit_fields[_u].decode().split()))
               for _u in range(SMALLVIS_N_UNITS)}


cdef Py_ssize_t _load_unit(unit, double n_others, smallvis_unit_params* k) except -1:
    """Fill ``k`` from a NumPy unit's fields; return the unit's index in the list.

    Each field is checked to be a real number (``unit_field_values``, as the
    reference twin checks it) before it is read as a double.
    """
    values = unit_field_values(unit)
    try:
        u, fields = _PAIR_UNITS[type(unit).kernel]
    except (AttributeError, KeyError):
        raise ValueError(f"no compiled pair unit for {unit!r}; compiled: "
                         f"{', '.join(_PAIR_UNITS)}") from None
    if len(unit) != len(fields):
        raise ValueError(f"{type(unit).__name__} has {len(unit)} fields; its C unit reads "
                         f"{len(fields)} ({' '.join(fields)})")
    # a per-point field (row_bandwidths) is read by the engine: 0 in its place
    scalars = iter(values)
    per_point = getattr(type(unit), "point_fields", ())
    values = tuple(0.0 if name in per_point else next(scalars) for name in type(unit)._fields)
    cdef const double[::1] f = np.ascontiguousarray(values, dtype=np.float64)
    smallvis_unit_loaders[u](&f[0], n_others, k)
    return u


def _indices_in_range(indices, int64_t n_columns):
    """Whether every index lies in ``[0, n_columns)``: one pass, no temporaries."""
    cdef const int64_t[::1] ix = indices
    cdef Py_ssize_t k, nnz = ix.shape[0]
    cdef int outside = 0
    with nogil:
        for k in range(nnz):
            outside |= <uint64_t>ix[k] >= <uint64_t>n_columns
    return outside == 0


def _row_noise(unit, indptr, data, Py_ssize_t n, n_others):
    """The unit's noise of every row (``unit.noise``), or None without row noise."""
    if not unit.row_noise:
        return None
    owner = np.repeat(np.arange(n), np.diff(indptr))
    rows = np.bincount(owner, weights=data, minlength=n)
    return np.ascontiguousarray(np.broadcast_to(unit.noise(rows, n_others), (n,)),
                                dtype=np.float64)


def _checked_pair_cost(unit, indptr, indices, data, Y, n_threads, in_range):
    """pair_cost, the index-range pass ``in_range`` (None: skipped; see _check_pair_arrays)."""
    cdef smallvis_unit_params k
    cdef Py_ssize_t u = _load_unit(unit, <double>(Y.shape[0] - 1), &k)
    _check_pair_arrays(indptr, indices, data, Y, in_range=in_range)
    return _pair_cost(smallvis_exact_units[u], &k, indptr, indices, data, Y, n_threads,
                      aux=_row_noise(unit, indptr, data, Y.shape[0], Y.shape[0] - 1))


def _checked_pair_gradient(unit, indptr, indices, data, Y, grad, n_threads, in_range):
    """pair_gradient, the index-range pass ``in_range`` (None: skipped)."""
    cdef smallvis_unit_params k
    cdef Py_ssize_t u = _load_unit(unit, <double>(Y.shape[0] - 1), &k)
    _check_pair_arrays(indptr, indices, data, Y, grad, in_range=in_range)
    learned = _coef_gradient(smallvis_exact_units[u], &k, indptr, indices, data, Y, grad,
                             n_threads,
                             aux=_row_noise(unit, indptr, data, Y.shape[0], Y.shape[0] - 1))
    return learned if getattr(unit, "learned", ()) else None


def pair_cost(unit, indptr, indices, data, Y, n_threads):
    """A pair unit's exact cost; see the reference twin."""
    return _checked_pair_cost(unit, indptr, indices, data, Y, n_threads, _indices_in_range)


def pair_gradient(unit, indptr, indices, data, Y, grad, n_threads):
    """A pair unit's exact gradient (into grad); see the reference twin."""
    return _checked_pair_gradient(unit, indptr, indices, data, Y, grad, n_threads,
                                  _indices_in_range)


# The named functions of the methods that have them: thin wrappers (the
# tutorials and users call them by name); a new method needs none.  The
# exact optimizer calls them every iteration on a P checked once, so they
# skip the O(nnz) index-range pass (see reference._check_pair_arrays).

def largevis_cost(indptr, indices, data, Y, gamma, eps, alpha, n_threads):
    """LargeVis cost with w = 1 / (1 + alpha d^2); see the reference twin."""
    return _checked_pair_cost(LargeVisUnit(gamma, eps, alpha), indptr, indices, data, Y,
                              n_threads, None)


def largevis_gradient(indptr, indices, data, Y, gamma, eps, alpha, grad,
                      n_threads):
    """LargeVis gradient; see the reference twin."""
    _checked_pair_gradient(LargeVisUnit(gamma, eps, alpha), indptr, indices, data, Y,
                           grad, n_threads, None)


def largevis_exp_cost(indptr, indices, data, Y, gamma, n_threads):
    """LargeVis cost with w = 1 / (1 + exp(d^2)); see the reference twin."""
    return _checked_pair_cost(LargeVisExpUnit(gamma), indptr, indices, data, Y, n_threads, None)


def largevis_exp_gradient(indptr, indices, data, Y, gamma, grad, n_threads):
    """LargeVis gradient with the exponential weight; see the reference twin."""
    _checked_pair_gradient(LargeVisExpUnit(gamma), indptr, indices, data, Y, grad, n_threads, None)


def umap_cost(indptr, indices, data, Y, a, b, eps, n_threads):
    """UMAP fuzzy cross-entropy; see the reference twin."""
    return _checked_pair_cost(UMAPUnit(a, b, eps), indptr, indices, data, Y, n_threads, None)


def umap_gradient(indptr, indices, data, Y, a, b, eps, grad, n_threads):
    """UMAP gradient 4 sum_j b (v_ij - w_ij) / (d^2 + eps) (y_i - y_j)."""
    _checked_pair_gradient(UMAPUnit(a, b, eps), indptr, indices, data, Y, grad, n_threads, None)


def tumap_cost(indptr, indices, data, Y, eps, n_threads):
    """t-UMAP cost (UMAP with a = b = 1); see the reference twin."""
    return _checked_pair_cost(TUMAPUnit(eps), indptr, indices, data, Y, n_threads, None)


def tumap_gradient(indptr, indices, data, Y, eps, grad, n_threads):
    """t-UMAP gradient 4 sum_j (v - w) w / (1 - w + eps) (y_i - y_j)."""
    _checked_pair_gradient(TUMAPUnit(eps), indptr, indices, data, Y, grad, n_threads, None)


def ncvis_cost(indptr, indices, data, Y, Q, nu, a, b, n_threads):
    """NCVis cost -J(Y, Q); see the reference twin."""
    return _checked_pair_cost(NCVisUnit(Q, nu, a, b), indptr, indices, data, Y, n_threads, None)


def ncvis_gradient(indptr, indices, data, Y, Q, nu, a, b, grad, n_threads):
    """NCVis gradient in Y (into grad); returns the derivative in Q."""
    return _checked_pair_gradient(NCVisUnit(Q, nu, a, b), indptr, indices, data, Y,
                                  grad, n_threads, None)


# The stochastic optimizer's twins are compiled as their own extension,
# without the flags that regroup floating-point arithmetic, so that they match
# the reference bit for bit (see smallvis/backends/_sgd_kernels.pyx); they belong to
# this module's interface.
from smallvis.backends._sgd_kernels import (alias_table, counter_randint, counter_random,
                                   counter_uniform, sgd_coefficients, sgd_epochs,
                                   sgd_group_coefficients)
# The spectral start's sparse product, likewise built in exact order, and the
# selection of its graph (smallvis/backends/_graph_products.pyx).
from smallvis.backends._graph_products import csr_matvec, row_strongest
# The projected search's forest, likewise (smallvis/backends/_search_forest.pyx).
from smallvis.backends._search_forest import forest_query, forest_tree, leaf_order
for _twin in (alias_table, counter_randint, counter_random, counter_uniform,
              sgd_coefficients, sgd_epochs, sgd_group_coefficients, csr_matvec,
              row_strongest, forest_tree, forest_query, leaf_order):
    _twin.__module__ = __name__
del _twin


# ---------------------------------------------------------------------------
# approximate nearest neighbours: candidates, refinement, symmetric union
# ---------------------------------------------------------------------------


cdef inline bint _before(double ka, int64_t ia, double kb, int64_t ib) noexcept nogil:
    """(key, index) order of the package's neighbour lists."""
    return ka < kb or (ka == kb and ia < ib)


cdef inline bint _slot_before(const double* key, const int64_t* idx, int32_t a,
                              int32_t b) noexcept nogil:
    """Whether slot a comes before slot b in the (key, index) order."""
    return _before(key[a], idx[a], key[b], idx[b])


cdef void _sort_slots(const double* key, const int64_t* idx, int32_t* slots, int32_t* tmp,
                      Py_ssize_t m) noexcept nogil:
    """Sort ``slots[:m]`` by (key, index) of the slots (no two equal): runs of 16 by
    insertion, then bottom-up merges through ``tmp``."""
    cdef Py_ssize_t lo, hi, mid, r, a, b, o, width = 16
    cdef int32_t v
    cdef int32_t* src = slots
    cdef int32_t* dst = tmp
    cdef int32_t* swap
    for lo in range(0, m, 16):
        hi = lo + 16 if lo + 16 < m else m
        for r in range(lo + 1, hi):
            v = slots[r]
            a = r
            while a > lo and _slot_before(key, idx, v, slots[a - 1]):
                slots[a] = slots[a - 1]
                a -= 1
            slots[a] = v
    while width < m:
        lo = 0
        while lo < m:
            mid = lo + width if lo + width < m else m
            hi = lo + 2 * width if lo + 2 * width < m else m
            a = lo
            b = mid
            o = lo
            while a < mid and b < hi:
                if _slot_before(key, idx, src[b], src[a]):
                    dst[o] = src[b]
                    b += 1
                else:
                    dst[o] = src[a]
                    a += 1
                o += 1
            while a < mid:
                dst[o] = src[a]
                a += 1
                o += 1
            while b < hi:
                dst[o] = src[b]
                b += 1
                o += 1
            lo = hi
        swap = src
        src = dst
        dst = swap
        width *= 2
    if src != slots:
        for r in range(m):
            slots[r] = src[r]


cdef Py_ssize_t _candidates_gather(const int32_t* crow, Py_ssize_t m, Py_ssize_t i,
                                   int32_t* stamp, int64_t* cand) noexcept nogil:
    """Row i's valid candidates, each once and without i, into cand; returns their count."""
    cdef Py_ssize_t t, v = 0
    cdef int32_t c
    stamp[i] = <int32_t>i
    for t in range(m):
        c = crow[t]
        if c >= 0 and stamp[c] != i:
            stamp[c] = <int32_t>i
            cand[v] = c
            v += 1
    return v


cdef Py_ssize_t _candidates_row(const double* x, Py_ssize_t dim, const int32_t* crow,
                                Py_ssize_t m, Py_ssize_t i, Py_ssize_t k,
                                int32_t* stamp, int64_t* cand, double* cd2,
                                double* keys, int32_t* slots, int32_t* tmp, int32_t* oi,
                                double* od, int code) noexcept nogil:
    """Row i of knn_candidates; returns 1 if fewer than k candidates were valid."""
    cdef Py_ssize_t v = _candidates_gather(crow, m, i, stamp, cand)
    _core_dists_to(code, x, dim, x + i * dim, cand, v, cd2)
    return _candidates_best(cand, v, k, cd2, keys, slots, tmp, oi, od)


cdef Py_ssize_t _candidates_row_f32(const float* x, Py_ssize_t dim, const int32_t* crow,
                                    Py_ssize_t m, Py_ssize_t i, Py_ssize_t k,
                                    int32_t* stamp, int64_t* cand, double* cd2,
                                    double* keys, int32_t* slots, int32_t* tmp, int32_t* oi,
                                    double* od, double* xi) noexcept nogil:
    """Row i of knn_candidates on float32 rows, squared Euclidean; ``xi`` a buffer of dim."""
    cdef Py_ssize_t f, v = _candidates_gather(crow, m, i, stamp, cand)
    for f in range(dim):
        xi[f] = <double>x[i * dim + f]
    smallvis_sq_dists_to_f32(x, dim, xi, cand, v, cd2)
    return _candidates_best(cand, v, k, cd2, keys, slots, tmp, oi, od)


cdef Py_ssize_t _candidates_best(const int64_t* cand, Py_ssize_t v, Py_ssize_t k,
                                 const double* cd2, double* keys, int32_t* slots,
                                 int32_t* tmp, int32_t* oi, double* od) noexcept nogil:
    """The best k of v candidates with distances cd2 into oi, od; returns 1 if v < k."""
    cdef Py_ssize_t t, r
    cdef int32_t slot
    # sorted by (key, index), a merge sort: the candidates of a projection
    # come in an order far from the exact one
    for t in range(v):
        keys[t] = smallvis_tie_key(cd2[t])
        slots[t] = <int32_t>t
    _sort_slots(keys, cand, slots, tmp, v)
    for r in range(k):
        if r < v:
            slot = slots[r]
            oi[r] = <int32_t>cand[slot]
            od[r] = cd2[slot]
        else:
            oi[r] = -1
            od[r] = INFINITY
    return 1 if v < k else 0


def knn_candidates(X, candidates, indices, sq_dist, n_threads, metric_code=0, start=0,
                   stop=None, order=None):
    """Best k of each row's candidate list, with float64 distances; see the reference twin."""
    # float32 rows keep their own copy under squared Euclidean, each entry
    # widened as it is read (the same distances, a copy half the size); any
    # other metric reads float64
    cdef bint single = X.dtype == np.float32 and metric_code == 0
    if X.dtype == np.float32 and not single:
        X = np.ascontiguousarray(X, dtype=np.float64)
    cdef const float[:, ::1] x32 = X if single else np.zeros((1, 1), dtype=np.float32)
    cdef const double[:, ::1] x64 = np.zeros((1, 1)) if single else X
    cdef const int32_t[:, ::1] cv = candidates
    cdef int32_t[:, ::1] oi = indices
    cdef double[:, ::1] od = sq_dist
    cdef Py_ssize_t n = X.shape[0], dim = X.shape[1], m = cv.shape[1], k = oi.shape[1]
    cdef Py_ssize_t i, tid, n_short = 0
    cdef int nt = max(1, min(<int>n_threads, <int>n)) if n > 0 else 1
    cdef int32_t[:, ::1] stamp = np.full((nt, max(n, 1)), -1, dtype=np.int32)
    cdef int64_t[:, ::1] cand = np.empty((nt, max(m, 1)), dtype=np.int64)
    cdef double[:, ::1] cd2 = np.empty((nt, max(m, 1)))
    cdef double[:, ::1] keys = np.empty((nt, max(m, 1)))
    cdef int32_t[:, ::1] slots = np.empty((nt, max(m, 1)), dtype=np.int32)
    cdef int32_t[:, ::1] tmp = np.empty((nt, max(m, 1)), dtype=np.int32)
    cdef double[:, ::1] xi = np.empty((nt, max(dim, 1) if single else 1))
    cdef int code = <int>metric_code
    cdef Py_ssize_t first = start, last = n if stop is None else stop
    cdef Py_ssize_t p
    cdef const int64_t[::1] rows
    if n == 0 or k == 0:
        return 0
    if order is None:
        rows = np.arange(n, dtype=np.int64)
    else:
        rows = order
    with nogil:
        # rows in chunks of 64, handed to whichever thread is free: the rows of
        # a search come in leaf order, so costly ones lie together, and halves
        # fixed in advance leave one thread the larger share of the work
        for p in prange(first, last, schedule="dynamic", chunksize=64, num_threads=nt):
            i = rows[p]
            tid = threadid()
            if single:
                n_short += _candidates_row_f32(&x32[0, 0], dim, &cv[i, 0], m, i, k,
                                               &stamp[tid, 0], &cand[tid, 0], &cd2[tid, 0],
                                               &keys[tid, 0], &slots[tid, 0], &tmp[tid, 0],
                                               &oi[i, 0], &od[i, 0], &xi[tid, 0])
            else:
                n_short += _candidates_row(&x64[0, 0], dim, &cv[i, 0], m, i, k,
                                           &stamp[tid, 0], &cand[tid, 0], &cd2[tid, 0],
                                           &keys[tid, 0], &slots[tid, 0], &tmp[tid, 0],
                                           &oi[i, 0], &od[i, 0], code)
    return n_short


cdef Py_ssize_t _refine_row(const double* x, Py_ssize_t dim, const int32_t* nb,
                            const double* d2, const uint8_t* flags, const int32_t* win,
                            const uint8_t* win_new, const uint8_t* has_new,
                            Py_ssize_t k, Py_ssize_t w, Py_ssize_t i, int32_t* stamp,
                            int64_t* cand, double* cd2, double* ckeys, int32_t* slots,
                            int32_t* tmp, double* keys, double* own_d2, int32_t* oi,
                            double* od, uint8_t* of, int code) noexcept nogil:
    """Row i of knn_refine; returns 1 if the row changed.

    The row's distances are read from ``own_d2``, a copy, so that ``od``
    may be the row of ``d2`` itself.
    """
    cdef const int32_t* row = nb + i * k
    cdef const uint8_t* fl = flags + i * k
    cdef const int32_t* wj
    cdef const uint8_t* nj
    cdef Py_ssize_t r, s, t, m = 0, na = 0, a, b
    cdef int32_t j, c, slot
    cdef double key, last_key
    cdef int64_t last_index
    cdef bint changed = False
    stamp[i] = <int32_t>i
    for r in range(k):
        if row[r] >= 0:
            stamp[row[r]] = <int32_t>i
    # the windows' entries first, then the duplicates out: both loops read
    # rows of tables too large for the cache at addresses known ahead, so
    # they are fetched a few iterations early
    for r in range(k):
        if r + _AHEAD < k and row[r + _AHEAD] >= 0:
            _prefetch(win + row[r + _AHEAD] * w)
            _prefetch(win_new + row[r + _AHEAD] * w)
        j = row[r]
        if j < 0:           # an empty slot (index -1, distance inf)
            continue
        wj = win + j * w
        if fl[r] & 1:       # j is new in i's list: its whole window joins
            for s in range(w):
                if wj[s] >= 0:
                    cand[m] = wj[s]
                    m += 1
        elif has_new[j]:    # examined last round: only what is new in its window
            nj = win_new + j * w
            for s in range(w):
                if nj[s] and wj[s] >= 0:
                    cand[m] = wj[s]
                    m += 1
    na = m
    m = 0
    for t in range(na):
        if t + 4 * _AHEAD < na:
            _prefetch(stamp + cand[t + 4 * _AHEAD])
        c = <int32_t>cand[t]
        if stamp[c] != i:
            stamp[c] = <int32_t>i
            cand[m] = c
            m += 1
    na = 0
    _core_dists_to(code, x, dim, x + i * dim, cand, m, cd2)
    # the candidates that beat the row's last entry, moved to the front;
    # the new list is the first k of the row and these, merged in order
    last_key = smallvis_tie_key(d2[i * k + k - 1])
    last_index = row[k - 1]
    for t in range(m):
        key = smallvis_tie_key(cd2[t])
        if _before(key, cand[t], last_key, last_index):
            ckeys[na] = key
            cand[na] = cand[t]
            cd2[na] = cd2[t]
            slots[na] = <int32_t>na
            na += 1
    if na == 0:
        # the merge would copy the row and clear its flags: most rows of the
        # later rounds, whose distances are then neither read nor rewritten
        # in place (od is d2's row in refinement.refine)
        for r in range(k):
            oi[r] = row[r]
            of[r] = 0
        if od != d2 + i * k:
            for r in range(k):
                od[r] = d2[i * k + r]
        return 0
    for r in range(k):
        own_d2[r] = d2[i * k + r]
        keys[r] = smallvis_tie_key(own_d2[r])
    _sort_slots(ckeys, cand, slots, tmp, na)
    a = 0
    b = 0
    for r in range(k):
        if b < na:
            slot = slots[b]
            if _before(ckeys[slot], cand[slot], keys[a], row[a]):
                oi[r] = <int32_t>cand[slot]
                od[r] = cd2[slot]
                of[r] = 3
                b += 1
                changed = True
                continue
        oi[r] = row[a]
        od[r] = own_d2[a]
        of[r] = 2 if (r < w and a >= w) else 0
        a += 1
    return 1 if changed else 0


def knn_refine(X, indices, sq_dist, flags, n_explore, out_indices, out_sq_dist,
               out_flags, n_threads, metric_code=0, start=0, stop=None):
    """One local-join round; see the reference twin.

    The first ``w`` entries of every list and their "new" bits are copied
    into a compact table first (``n * w`` entries, read by every row that
    has the point as a neighbour: the whole lists would be read a cache
    line per neighbour).  Candidates are deduplicated with a stamp per
    point and thread (``stamp[c] == i``: already seen for row i); those
    that beat the row's last entry are sorted and merged with the row's
    sorted list.  The flags skip exactly the pairs that the previous round
    examined (see the reference), so later rounds cost a fraction of the
    first.  Rows are independent (a Jacobi round), so the result is the
    same for every ``n_threads``.  ``out_sq_dist`` may be ``sq_dist``: a
    row reads only its own distances, copied before it writes them.
    """
    cdef const double[:, ::1] x = X
    cdef const int32_t[:, ::1] nb = indices
    cdef const double[:, ::1] d2 = sq_dist
    cdef const uint8_t[:, ::1] fl = flags
    cdef int32_t[:, ::1] oi = out_indices
    cdef double[:, ::1] od = out_sq_dist
    cdef uint8_t[:, ::1] of = out_flags
    cdef Py_ssize_t n = x.shape[0], dim = x.shape[1], k = nb.shape[1]
    cdef Py_ssize_t w = min(<Py_ssize_t>n_explore, k)
    cdef Py_ssize_t i, tid, n_changed = 0
    cdef int nt = max(1, min(<int>n_threads, <int>n)) if n > 0 else 1
    cdef int32_t[:, ::1] stamp = np.full((nt, max(n, 1)), -1, dtype=np.int32)
    cdef int64_t[:, ::1] cand = np.empty((nt, max(1, k * w)), dtype=np.int64)
    cdef double[:, ::1] cd2 = np.empty((nt, max(1, k * w)))
    cdef double[:, ::1] ckeys = np.empty((nt, max(1, k * w)))
    cdef int32_t[:, ::1] slots = np.empty((nt, max(1, k * w)), dtype=np.int32)
    cdef int32_t[:, ::1] tmp = np.empty((nt, max(1, k * w)), dtype=np.int32)
    cdef double[:, ::1] keys = np.empty((nt, max(1, k)))
    cdef double[:, ::1] own_d2 = np.empty((nt, max(1, k)))
    cdef uint8_t[::1] has_new = np.zeros(max(n, 1), dtype=np.uint8)
    cdef int32_t[:, ::1] win = np.empty((max(n, 1), max(w, 1)), dtype=np.int32)
    cdef uint8_t[:, ::1] win_new = np.empty((max(n, 1), max(w, 1)), dtype=np.uint8)
    cdef Py_ssize_t s
    cdef int code = <int>metric_code
    cdef Py_ssize_t first = start, last = n if stop is None else stop
    if n == 0 or k == 0:
        return 0
    with nogil:
        for i in range(n):  # the windows, and the rows with something new in theirs
            for s in range(w):
                win[i, s] = nb[i, s]
                win_new[i, s] = fl[i, s] & 2
                if fl[i, s] & 2:
                    has_new[i] = 1
        # chunks of rows as in knn_candidates: the rows that still change in
        # the late rounds lie together in the leaf order
        for i in prange(first, last, schedule="dynamic", chunksize=64, num_threads=nt):
            tid = threadid()
            n_changed += _refine_row(&x[0, 0], dim, &nb[0, 0], &d2[0, 0], &fl[0, 0],
                                     &win[0, 0], &win_new[0, 0], &has_new[0], k, w, i,
                                     &stamp[tid, 0], &cand[tid, 0], &cd2[tid, 0],
                                     &ckeys[tid, 0], &slots[tid, 0], &tmp[tid, 0],
                                     &keys[tid, 0], &own_d2[tid, 0], &oi[i, 0], &od[i, 0],
                                     &of[i, 0], code)
    return n_changed


cdef inline void _sort_int64(int64_t* a, Py_ssize_t n) noexcept nogil:
    """Shell sort (Ciura's gaps) of a short array, ascending."""
    cdef Py_ssize_t gi, g, i, j
    cdef int64_t v
    cdef Py_ssize_t gaps[8]
    gaps[0] = 701; gaps[1] = 301; gaps[2] = 132; gaps[3] = 57
    gaps[4] = 23; gaps[5] = 10; gaps[6] = 4; gaps[7] = 1
    for gi in range(8):
        g = gaps[gi]
        for i in range(g, n):
            v = a[i]
            j = i
            while j >= g and a[j - g] > v:
                a[j] = a[j - g]
                j -= g
            a[j] = v


cdef void _reverse_lists(const int32_t[:, ::1] nb, const double[:, ::1] val,
                         int64_t[::1] rptr, int32_t[::1] rsrc) noexcept nogil:
    """Sources of the positive edges into each point, sorted by source (counting sort)."""
    cdef Py_ssize_t n = nb.shape[0], k = nb.shape[1], i, r, j
    for j in range(n + 1):
        rptr[j] = 0
    for i in range(n):
        for r in range(k):
            if val[i, r] > 0.0:
                rptr[nb[i, r] + 1] += 1
    for j in range(n):
        rptr[j + 1] += rptr[j]
    for i in range(n):
        for r in range(k):
            if val[i, r] > 0.0:
                j = nb[i, r]
                rsrc[rptr[j]] = <int32_t>(i * k + r)
                rptr[j] += 1
    for j in range(n, 0, -1):
        rptr[j] = rptr[j - 1]
    rptr[0] = 0


cdef Py_ssize_t _union_row(const int32_t* nb, const double* val, Py_ssize_t k,
                           Py_ssize_t i, const int64_t* rptr, const int32_t* rsrc,
                           int64_t* fwd, int32_t* oi, double* od) noexcept nogil:
    """Row i of the union, sorted by column; written if oi is not NULL."""
    cdef Py_ssize_t r, nf = 0, a = 0, cnt = 0
    cdef int64_t b = rptr[i], e = rptr[i + 1], jf, jr
    cdef double vf, vr
    for r in range(k):
        if val[i * k + r] > 0.0:
            fwd[nf] = (<int64_t>nb[i * k + r] << 20) | r
            nf += 1
    _sort_int64(fwd, nf)
    while a < nf or b < e:
        jf = fwd[a] >> 20 if a < nf else INT64_MAX
        jr = rsrc[b] // k if b < e else INT64_MAX
        if jf <= jr:
            vf = val[i * k + (fwd[a] & 0xFFFFF)]
            if jf == jr:
                vr = val[rsrc[b]]
                b += 1
                vf = vf + vr
            if oi != NULL:
                oi[cnt] = <int32_t>jf
                od[cnt] = 0.5 * vf
            a += 1
        else:
            if oi != NULL:
                oi[cnt] = <int32_t>jr
                od[cnt] = 0.5 * val[rsrc[b]]
            b += 1
        cnt += 1
    return cnt


def knn_union_count(indices, values, counts, n_threads):
    """Entries per row of (A + A^T) / 2; see the reference twin."""
    cdef const int32_t[:, ::1] nb = indices
    cdef const double[:, ::1] val = values
    cdef int64_t[::1] cv = counts
    cdef Py_ssize_t n = nb.shape[0], k = nb.shape[1], i, tid
    cdef int nt = max(1, min(<int>n_threads, <int>n)) if n > 0 else 1
    cdef int64_t[::1] rptr = np.empty(n + 1, dtype=np.int64)
    cdef int32_t[::1] rsrc = np.empty(max(1, n * k), dtype=np.int32)
    cdef int32_t[:, ::1] mark = np.full((nt, max(n, 1)), -1, dtype=np.int32)
    cdef Py_ssize_t r, c
    cdef int64_t b
    if n == 0:
        return
    with nogil:
        _reverse_lists(nb, val, rptr, rsrc)
        for i in prange(n, schedule="static", num_threads=nt):
            tid = threadid()
            c = 0
            for r in range(k):
                if val[i, r] > 0.0:
                    mark[tid, nb[i, r]] = <int32_t>i
                    c = c + 1
            for b in range(rptr[i], rptr[i + 1]):
                if mark[tid, rsrc[b] // k] != i:
                    c = c + 1
            cv[i] = c


def knn_union_fill(indices, values, indptr, out_indices, out_data, n_threads):
    """Rows of (A + A^T) / 2, sorted by column; see the reference twin."""
    cdef const int32_t[:, ::1] nb = indices
    cdef const double[:, ::1] val = values
    cdef const int64_t[::1] ip = indptr
    cdef int32_t[::1] oi = out_indices
    cdef double[::1] od = out_data
    cdef Py_ssize_t n = nb.shape[0], k = nb.shape[1], i, tid
    cdef int nt = max(1, min(<int>n_threads, <int>n)) if n > 0 else 1
    cdef int64_t[::1] rptr = np.empty(n + 1, dtype=np.int64)
    cdef int32_t[::1] rsrc = np.empty(max(1, n * k), dtype=np.int32)
    cdef int64_t[:, ::1] fwd = np.empty((nt, max(1, k)), dtype=np.int64)
    if n == 0 or od.shape[0] == 0:
        return
    with nogil:
        _reverse_lists(nb, val, rptr, rsrc)
        for i in prange(n, schedule="static", num_threads=nt):
            tid = threadid()
            _union_row(&nb[0, 0], &val[0, 0], k, i, &rptr[0], &rsrc[0], &fwd[tid, 0],
                       &oi[ip[i]], &od[ip[i]])


def knn_reverse_lists(indices, values, rptr, rsrc):
    """The sources of the positive edges into each point; see the reference twin."""
    cdef const int32_t[:, ::1] nb = indices
    cdef const double[:, ::1] val = values
    cdef int64_t[::1] rp = rptr
    cdef int32_t[::1] rs = rsrc
    if nb.shape[0] == 0:
        rp[0] = 0
        return
    with nogil:
        _reverse_lists(nb, val, rp, rs)


cdef int64_t _reverse_only(const int32_t[:, ::1] nb, const double[:, ::1] val,
                           const int64_t[::1] rptr, const int32_t[::1] rsrc,
                           int32_t[:, ::1] mark, Py_ssize_t i, int tid, int32_t* oi,
                           double* od) noexcept nogil:
    """Row i's entries that only the transpose stores: their count; written if oi is not NULL."""
    cdef Py_ssize_t k = nb.shape[1], r, j
    cdef int64_t b, c = 0
    for r in range(k):
        if val[i, r] > 0.0:
            mark[tid, nb[i, r]] = <int32_t>i
    for b in range(rptr[i], rptr[i + 1]):  # sources ascending
        j = rsrc[b] // k
        if mark[tid, j] != i:
            if oi != NULL:
                oi[c] = <int32_t>j
                od[c] = 0.5 * val[j, rsrc[b] % k]
            c = c + 1
    return c


def knn_union_reverse_count(indices, values, rptr, rsrc, counts, n_threads):
    """Entries per row that only the transpose stores; see the reference twin."""
    cdef const int32_t[:, ::1] nb = indices
    cdef const double[:, ::1] val = values
    cdef const int64_t[::1] rp = rptr
    cdef const int32_t[::1] rs = rsrc
    cdef int64_t[::1] cv = counts
    cdef Py_ssize_t n = nb.shape[0], i
    cdef int tid, nt = max(1, min(<int>n_threads, <int>n)) if n > 0 else 1
    cdef int32_t[:, ::1] mark = np.full((nt, max(n, 1)), -1, dtype=np.int32)
    if n == 0:
        return
    with nogil:
        for i in prange(n, schedule="static", num_threads=nt):
            tid = threadid()
            cv[i] = _reverse_only(nb, val, rp, rs, mark, i, tid, NULL, NULL)


def knn_union_reverse_fill(indices, values, rptr, rsrc, indptr, out_indices, out_data,
                           n_threads):
    """The union's entries that only the transpose stores; see the reference twin."""
    cdef const int32_t[:, ::1] nb = indices
    cdef const double[:, ::1] val = values
    cdef const int64_t[::1] rp = rptr
    cdef const int32_t[::1] rs = rsrc
    cdef const int64_t[::1] ip = indptr
    cdef int32_t[::1] oi = out_indices
    cdef double[::1] od = out_data
    cdef Py_ssize_t n = nb.shape[0], i
    cdef int tid, nt = max(1, min(<int>n_threads, <int>n)) if n > 0 else 1
    cdef int32_t[:, ::1] mark = np.full((nt, max(n, 1)), -1, dtype=np.int32)
    if n == 0 or od.shape[0] == 0:
        return
    with nogil:
        for i in prange(n, schedule="static", num_threads=nt):
            tid = threadid()
            _reverse_only(nb, val, rp, rs, mark, i, tid, &oi[ip[i]], &od[ip[i]])


cdef enum:
    # what knn_union_forward's first pass found in a slot
    SLOT_DROPPED = 0
    SLOT_ALONE = 1      # A_ij > 0, A_ji not
    SLOT_MUTUAL = 2     # both: written by the row of the smaller index


def knn_union_forward(indices, values, rptr, rsrc, n_threads):
    """values replaced in place by the union's entries at the same slots; see the reference twin.

    Two passes over the rows: the first only reads (each slot's state from
    A's values), the second writes.  A pair stored both ways is written,
    at both of its slots, by the row of the smaller index, which reads the
    other slot before anyone writes it (its own row skips that slot), so
    no slot is read by one thread while another writes it.
    """
    cdef const int32_t[:, ::1] nb = indices
    cdef double[:, ::1] val = values
    cdef const int64_t[::1] rp = rptr
    cdef const int32_t[::1] rs = rsrc
    cdef Py_ssize_t n = nb.shape[0], k = nb.shape[1], i, tid, r, j
    cdef int nt = max(1, min(<int>n_threads, <int>n)) if n > 0 else 1
    cdef uint8_t[:, ::1] state = np.empty((max(n, 1), max(k, 1)), dtype=np.uint8)
    cdef int32_t[:, ::1] mark = np.full((nt, max(n, 1)), -1, dtype=np.int32)
    cdef int32_t[:, ::1] where = np.empty((nt, max(n, 1)), dtype=np.int32)
    cdef int64_t b
    cdef int32_t p
    cdef double s
    if n == 0 or k == 0:
        return
    with nogil:
        for i in prange(n, schedule="static", num_threads=nt):
            tid = threadid()
            for b in range(rp[i], rp[i + 1]):
                mark[tid, rs[b] // k] = <int32_t>i
            for r in range(k):
                if not val[i, r] > 0.0:
                    state[i, r] = SLOT_DROPPED
                elif mark[tid, nb[i, r]] == i:
                    state[i, r] = SLOT_MUTUAL
                else:
                    state[i, r] = SLOT_ALONE
        for i in prange(n, schedule="static", num_threads=nt):
            tid = threadid()
            for b in range(rp[i], rp[i + 1]):  # where each j > i stores i
                where[tid, rs[b] // k] = rs[b]
            for r in range(k):
                if state[i, r] == SLOT_DROPPED:
                    val[i, r] = -1.0
                elif state[i, r] == SLOT_ALONE:
                    val[i, r] = 0.5 * val[i, r]
                else:
                    j = nb[i, r]
                    if j > i:
                        p = where[tid, j]
                        s = 0.5 * (val[i, r] + val[p // k, p % k])
                        val[i, r] = s
                        val[p // k, p % k] = s


def knn_union_merge(indices, values, rev_indptr, rev_indices, rev_data, indptr, out_indices,
                    out_data, n_threads, start=0, stop=None):
    """Rows start .. stop - 1 of the union from their own arrays; see the reference twin."""
    cdef const int32_t[:, ::1] nb = indices
    cdef const double[:, ::1] val = values
    cdef const int64_t[::1] rp = rev_indptr
    cdef const int32_t[::1] ri = rev_indices
    cdef const double[::1] rd = rev_data
    cdef const int64_t[::1] ip = indptr
    cdef int32_t[::1] oi = out_indices
    cdef double[::1] od = out_data
    cdef Py_ssize_t n = nb.shape[0], k = nb.shape[1], i, tid, r, nf, a
    cdef Py_ssize_t first = start, last = n if stop is None else stop
    cdef int nt = max(1, min(<int>n_threads, <int>n)) if n > 0 else 1
    cdef int64_t[:, ::1] fwd = np.empty((nt, max(1, k)), dtype=np.int64)
    cdef int64_t b, e, c, jf, jr
    if n == 0 or last <= first:
        return
    with nogil:
        for i in prange(first, last, schedule="static", num_threads=nt):
            tid = threadid()
            nf = 0
            for r in range(k):
                if val[i, r] >= 0.0:
                    fwd[tid, nf] = (<int64_t>nb[i, r] << 20) | r
                    nf = nf + 1
            _sort_int64(&fwd[tid, 0], nf)
            a = 0
            b = rp[i]
            e = rp[i + 1]
            c = ip[i]
            while a < nf or b < e:
                jf = fwd[tid, a] >> 20 if a < nf else INT64_MAX
                jr = ri[b] if b < e else INT64_MAX
                if jf < jr:
                    oi[c] = <int32_t>jf
                    od[c] = val[i, fwd[tid, a] & 0xFFFFF]
                    a = a + 1
                else:
                    oi[c] = <int32_t>jr
                    od[c] = rd[b]
                    b = b + 1
                c = c + 1


# t-SNE with FFT-accelerated interpolation (twins of reference.tsne_fft_*)
include "_fft_repulsion.pxi"

include "_transform_kernels.pxi"

include "_sparse_kernels.pxi"

include "_second_input.pxi"
