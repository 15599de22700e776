# cython: language_level=3
# cython: boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The stochastic optimizer's Cython twins, re-exported by :mod:`smallvis.backends._kernels`.

Twins of :func:`smallvis.backends.reference.counter_random`, ``counter_randint``,
``counter_uniform``, ``alias_table`` and ``sgd_epochs``; see the reference
docstrings for the maths.  The arithmetic here follows the reference
operation by operation, so that with one thread both loops produce the same
numbers, bit for bit.

That promise needs the C compiler to evaluate every expression as written.
This module is therefore its own extension, built without the flags that let
the compiler regroup floating-point arithmetic (setup.py): with
``-fassociative-math`` GCC turned NCVis's ``alpha * (c * (y_i - y_k))`` and
its products of four factors into other groupings, and the twins drifted
apart by 1e-13 after 40 epochs; ``-ffp-contract=off`` keeps a platform with
fused multiply-add (e.g. aarch64) from rounding ``a * b + c`` once instead of
twice.  The exact-gradient kernels of :mod:`smallvis.backends._kernels` keep those
flags: their reductions need them to vectorise, and their twins agree to
rounding, not bitwise.
"""

from cython.parallel cimport parallel, prange, threadid
from libc.math cimport log2, NAN
from libc.stdint cimport int32_t, int64_t, uint64_t, uintptr_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy

import numpy as np

from smallvis.backends._sgd_reference import (SGD_COEFFICIENTS, SGD_GROUPS, _problem_fields,
                                              check_group_arrays)

cdef extern from *:
    # rows of Y that never alias (i != k is guaranteed by the callers)
    ctypedef double* dptr "double * __restrict__"

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define SMALLVIS_PREFETCH(p) __builtin_prefetch((const void *)(p))
    #else
    #define SMALLVIS_PREFETCH(p) ((void)(p))
    #endif
    """
    # a hint to the cache: no effect on any result
    void _prefetch "SMALLVIS_PREFETCH"(const void* p) noexcept nogil

cdef extern from *:
    """
    /* A barrier whose waiting threads sleep at once (a mutex and a
     * condition variable), for the parallel epochs of sgd_epochs. */
    #ifdef _OPENMP
    #include <omp.h>
    static int smallvis_team_size(void) { return omp_get_num_threads(); }
    #else
    static int smallvis_team_size(void) { return 1; }
    #endif
    #if defined(_WIN32)
    #include <windows.h>
    typedef struct { SRWLOCK m; CONDITION_VARIABLE c; int count; unsigned gen; } smallvis_barrier;
    static int smallvis_barrier_init(smallvis_barrier *b)
    {
        InitializeSRWLock(&b->m);
        InitializeConditionVariable(&b->c);
        b->count = 0;
        b->gen = 0;
        return 0;
    }
    static void smallvis_barrier_destroy(smallvis_barrier *b) { (void)b; }
    #define SMALLVIS_LOCK(b) AcquireSRWLockExclusive(&(b)->m)
    #define SMALLVIS_UNLOCK(b) ReleaseSRWLockExclusive(&(b)->m)
    #define SMALLVIS_WAIT(b) SleepConditionVariableSRW(&(b)->c, &(b)->m, INFINITE, 0)
    #define SMALLVIS_WAKE_ALL(b) WakeAllConditionVariable(&(b)->c)
    #else
    #include <pthread.h>
    typedef struct { pthread_mutex_t m; pthread_cond_t c; int count; unsigned gen; } smallvis_barrier;
    static int smallvis_barrier_init(smallvis_barrier *b)
    {
        b->count = 0;
        b->gen = 0;
        if (pthread_mutex_init(&b->m, NULL) != 0)
            return -1;
        if (pthread_cond_init(&b->c, NULL) != 0) {
            pthread_mutex_destroy(&b->m);
            return -1;
        }
        return 0;
    }
    static void smallvis_barrier_destroy(smallvis_barrier *b)
    {
        pthread_cond_destroy(&b->c);
        pthread_mutex_destroy(&b->m);
    }
    #define SMALLVIS_LOCK(b) pthread_mutex_lock(&(b)->m)
    #define SMALLVIS_UNLOCK(b) pthread_mutex_unlock(&(b)->m)
    #define SMALLVIS_WAIT(b) pthread_cond_wait(&(b)->c, &(b)->m)
    #define SMALLVIS_WAKE_ALL(b) pthread_cond_broadcast(&(b)->c)
    #endif
    /* Wait until n threads have arrived; 1 in the last one to arrive. */
    static int smallvis_barrier_wait(smallvis_barrier *b, int n)
    {
        unsigned gen;
        SMALLVIS_LOCK(b);
        gen = b->gen;
        if (++b->count == n) {
            b->count = 0;
            b->gen++;
            SMALLVIS_WAKE_ALL(b);
            SMALLVIS_UNLOCK(b);
            return 1;
        }
        while (gen == b->gen)
            SMALLVIS_WAIT(b);
        SMALLVIS_UNLOCK(b);
        return 0;
    }
    """
    ctypedef struct smallvis_barrier:
        pass
    int smallvis_barrier_init(smallvis_barrier* b) noexcept nogil
    void smallvis_barrier_destroy(smallvis_barrier* b) noexcept nogil
    int smallvis_barrier_wait(smallvis_barrier* b, int n) noexcept nogil
    int smallvis_team_size() noexcept nogil


cdef uint64_t _GOLDEN = 0x9E3779B97F4A7C15ULL
cdef double _TWO_POW_MINUS_53 = 1.0 / 9007199254740992.0


cdef inline uint64_t _mix64(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t _absorb(uint64_t h, uint64_t x) noexcept nogil:
    return _mix64(h ^ (x + _GOLDEN))


cdef inline uint64_t _epoch_key(uint64_t seed, int64_t epoch) noexcept nogil:
    return _absorb(_absorb(0, seed), <uint64_t>epoch)


cdef inline uint64_t _edge_key(uint64_t seed, int64_t epoch, int64_t edge) noexcept nogil:
    return _absorb(_epoch_key(seed, epoch), <uint64_t>edge)


cdef inline int64_t _randint(uint64_t bits, uint64_t n) noexcept nogil:
    # Lemire's multiply-shift from 32-bit halves, exact for n < 2**32
    return <int64_t>((((bits >> 32) * n) + (((bits & 0xFFFFFFFFULL) * n) >> 32)) >> 32)


cdef inline double _uniform(uint64_t bits) noexcept nogil:
    return <double>(bits >> 11) * _TWO_POW_MINUS_53


def counter_random(seed, epochs, edges, draws, out):
    """Cython twin of :func:`smallvis.backends.reference.counter_random`."""
    cdef const int64_t[::1] ep = epochs, ed = edges, dr = draws
    cdef uint64_t[::1] o = out
    cdef uint64_t s = seed
    cdef Py_ssize_t t
    for t in range(o.shape[0]):
        o[t] = _absorb(_edge_key(s, ep[t], ed[t]), <uint64_t>dr[t])


def counter_randint(seed, epochs, edges, draws, n, out):
    """Cython twin of :func:`smallvis.backends.reference.counter_randint`."""
    cdef const int64_t[::1] ep = epochs, ed = edges, dr = draws
    cdef int64_t[::1] o = out
    cdef uint64_t s = seed, nn = n
    cdef Py_ssize_t t
    for t in range(o.shape[0]):
        o[t] = _randint(_absorb(_edge_key(s, ep[t], ed[t]), <uint64_t>dr[t]), nn)


def counter_uniform(seed, epochs, edges, draws, out):
    """Cython twin of :func:`smallvis.backends.reference.counter_uniform`."""
    cdef const int64_t[::1] ep = epochs, ed = edges, dr = draws
    cdef double[::1] o = out
    cdef uint64_t s = seed
    cdef Py_ssize_t t
    for t in range(o.shape[0]):
        o[t] = _uniform(_absorb(_edge_key(s, ep[t], ed[t]), <uint64_t>dr[t]))


def alias_table(prob, alias):
    """Cython twin of :func:`smallvis.backends.reference.alias_table` (the same linked stacks).

    ``alias`` is int32; the stacks are threaded through it and the work
    values live in ``prob``, so nothing else is allocated.
    """
    cdef double[::1] pr = prob
    cdef int32_t[::1] al = alias
    cdef Py_ssize_t n = pr.shape[0], i
    cdef int32_t small = -1, large = -1, s, g
    with nogil:
        for i in range(n):
            if pr[i] < 1.0:
                al[i] = small
                small = <int32_t>i
            else:
                al[i] = large
                large = <int32_t>i
        while small >= 0 and large >= 0:
            s = small
            small = al[s]
            g = large
            large = al[g]
            al[s] = g
            pr[g] = (pr[g] + pr[s]) - 1.0
            if pr[g] < 1.0:
                al[g] = small
                small = g
            else:
                al[g] = large
                large = g
        while small >= 0:
            i = small
            small = al[i]
            pr[i] = 1.0
            al[i] = <int32_t>i
        while large >= 0:
            i = large
            large = al[i]
            pr[i] = 1.0
            al[i] = <int32_t>i


# ---------------------------------------------------------------------------
# the per-method coefficients (reference: SGD_COEFFICIENTS; docs/theory.md),
# each defined in its method's unit (smallvis/methods/<method>.h)
# ---------------------------------------------------------------------------


cdef extern from *:
    """
    /* The units and their one list (SMALLVIS_PAIR_UNITS): each line's SGD
     * kind says whether the unit has a stochastic loop and whether its
     * coefficients see the learned scalar and the epoch's noise count
     * (LEARNED: (k, d2, q, nu, &dq)) or only the distance (PLAIN: (k, d2)). */
    #include "methods/units.h"

    /* c (the head moves by alpha c (y_i - y_other)); writes dJ/dQ into dq */
    typedef double (*smallvis_sgd_coef)(const smallvis_unit_params *k, double d2,
                                        double q, double nu, double *dq);

    typedef struct {
        const char *name;
        smallvis_unit_loader load;
        smallvis_sgd_coef attract, repel;
    } smallvis_sgd_unit;

    /* One unit's entry points of the uniform signature, around its inline
     * functions. */
    #define SMALLVIS_SGD_CALL_PLAIN(name, fn)                                   \
        (void)q;                                                                \
        (void)nu;                                                               \
        *dq = 0.0;                                                              \
        return smallvis_##name##_sgd_##fn(&k->name, d2);
    #define SMALLVIS_SGD_CALL_LEARNED(name, fn)                                 \
        return smallvis_##name##_sgd_##fn(&k->name, d2, q, nu, dq);
    #define SMALLVIS_SGD_FUNCTIONS(name, kind)                                  \
        static double smallvis_##name##_sgd_attract_any(                        \
            const smallvis_unit_params *k, double d2, double q, double nu, double *dq) \
        {                                                                       \
            SMALLVIS_SGD_CALL_##kind(name, attract)                             \
        }                                                                       \
        static double smallvis_##name##_sgd_repel_any(                          \
            const smallvis_unit_params *k, double d2, double q, double nu, double *dq) \
        {                                                                       \
            SMALLVIS_SGD_CALL_##kind(name, repel)                               \
        }
    #define SMALLVIS_SGD_INSTANTIATE_NO_SGD(name)
    #define SMALLVIS_SGD_INSTANTIATE_PLAIN(name) SMALLVIS_SGD_FUNCTIONS(name, PLAIN)
    #define SMALLVIS_SGD_INSTANTIATE_LEARNED(name) SMALLVIS_SGD_FUNCTIONS(name, LEARNED)
    #define SMALLVIS_SGD_INSTANTIATE(name, row_2d, sgd) SMALLVIS_SGD_INSTANTIATE_##sgd(name)
    SMALLVIS_PAIR_UNITS(SMALLVIS_SGD_INSTANTIATE)

    /* The table of the units with a stochastic loop, in the order of the list. */
    #define SMALLVIS_SGD_ENTRY_NO_SGD(name)
    #define SMALLVIS_SGD_ENTRY_ANY(name)                                        \
        {#name, smallvis_##name##_load_any, smallvis_##name##_sgd_attract_any, \
         smallvis_##name##_sgd_repel_any},
    #define SMALLVIS_SGD_ENTRY_PLAIN(name) SMALLVIS_SGD_ENTRY_ANY(name)
    #define SMALLVIS_SGD_ENTRY_LEARNED(name) SMALLVIS_SGD_ENTRY_ANY(name)
    #define SMALLVIS_SGD_ENTRY(name, row_2d, sgd) SMALLVIS_SGD_ENTRY_##sgd(name)
    static const smallvis_sgd_unit smallvis_sgd_units[] = {
        SMALLVIS_PAIR_UNITS(SMALLVIS_SGD_ENTRY)
    };
    #define SMALLVIS_N_SGD_UNITS \
        ((Py_ssize_t)(sizeof(smallvis_sgd_units) / sizeof(smallvis_sgd_units[0])))

    /* The grouped steps (SMALLVIS_ROW_UNITS): c[0 .. m] of a sample from the
     * squared distances of its positive and its m negatives. */
    typedef void (*smallvis_sgd_group_fn)(double d2_pos, const double *d2_neg,
                                          int64_t m, double *c);
    typedef struct {
        const char *name;
        smallvis_sgd_group_fn group;
    } smallvis_sgd_group_unit;
    #define SMALLVIS_SGD_GROUP_ENTRY(name) {#name, smallvis_##name##_sgd_group},
    static const smallvis_sgd_group_unit smallvis_sgd_group_units[] = {
        SMALLVIS_ROW_UNITS(SMALLVIS_SGD_GROUP_ENTRY)
    };
    #define SMALLVIS_N_SGD_GROUP_UNITS \
        ((Py_ssize_t)(sizeof(smallvis_sgd_group_units) / sizeof(smallvis_sgd_group_units[0])))
    """
    ctypedef struct smallvis_umap_params:
        pass
    ctypedef struct smallvis_largevis_params:
        pass
    ctypedef union smallvis_unit_params:
        smallvis_umap_params umap
        smallvis_largevis_params largevis
    ctypedef void (*smallvis_unit_loader)(const double* f, double n_others,
                                          void* k) noexcept nogil
    ctypedef double (*smallvis_sgd_coef)(const smallvis_unit_params* k, double d2, double q,
                                         double nu, double* dq) noexcept nogil
    ctypedef struct smallvis_sgd_unit:
        const char* name
        smallvis_unit_loader load
        smallvis_sgd_coef attract
        smallvis_sgd_coef repel
    const smallvis_sgd_unit* smallvis_sgd_units
    Py_ssize_t SMALLVIS_N_SGD_UNITS
    ctypedef void (*smallvis_sgd_group_fn)(double d2_pos, const double* d2_neg, int64_t m,
                                           double* c) noexcept nogil
    ctypedef struct smallvis_sgd_group_unit:
        const char* name
        smallvis_sgd_group_fn group
    const smallvis_sgd_group_unit* smallvis_sgd_group_units
    Py_ssize_t SMALLVIS_N_SGD_GROUP_UNITS
    # UMAP's and LargeVis's fast paths call their unit's coefficients
    # directly (inlined)
    double smallvis_umap_sgd_attract(const smallvis_umap_params* k, double d2) noexcept nogil
    double smallvis_umap_sgd_repel(const smallvis_umap_params* k, double d2) noexcept nogil
    double smallvis_umap_sgd_attract_any(const smallvis_unit_params* k, double d2, double q,
                                         double nu, double* dq) noexcept nogil
    double smallvis_largevis_sgd_attract(const smallvis_largevis_params* k,
                                         double d2) noexcept nogil
    double smallvis_largevis_sgd_repel(const smallvis_largevis_params* k,
                                       double d2) noexcept nogil
    double smallvis_largevis_sgd_attract_any(const smallvis_unit_params* k, double d2,
                                             double q, double nu, double* dq) noexcept nogil


cdef const smallvis_sgd_unit* _sgd_unit(problem) except NULL:
    """The C unit of ``problem.coefficient`` (a key of reference.SGD_COEFFICIENTS)."""
    cdef Py_ssize_t u
    try:
        name = SGD_COEFFICIENTS[problem.coefficient].kernel
    except (KeyError, TypeError):
        raise ValueError(f"unknown SGD coefficient {problem.coefficient!r}") from None
    for u in range(SMALLVIS_N_SGD_UNITS):
        if smallvis_sgd_units[u].name.decode() == name:
            return &smallvis_sgd_units[u]
    raise ValueError(f"SGD coefficient {problem.coefficient!r}: no compiled stochastic "
                     f"loop for the unit {name!r}")


cdef smallvis_sgd_group_fn _sgd_group(problem) except NULL:
    """The grouped step of ``problem.coefficient`` (a key of reference.SGD_GROUPS)."""
    cdef Py_ssize_t u
    name = SGD_GROUPS[problem.coefficient].sgd_grouped
    for u in range(SMALLVIS_N_SGD_GROUP_UNITS):
        if smallvis_sgd_group_units[u].name.decode() == name:
            return smallvis_sgd_group_units[u].group
    raise ValueError(f"SGD coefficient {problem.coefficient!r}: no compiled grouped step "
                     f"{name!r}")


def _is_grouped(problem):
    return isinstance(problem.coefficient, str) and problem.coefficient in SGD_GROUPS


def sgd_group_coefficients(problem, d2, out):
    """Cython twin of :func:`smallvis.backends.reference.sgd_group_coefficients`."""
    if not _is_grouped(problem):
        raise ValueError(f"{problem.coefficient!r} is not a grouped step; expected one of "
                         f"{', '.join(SGD_GROUPS)}")
    check_group_arrays(d2, out)
    _problem_fields(problem)  # the unit's fields, checked as the reference does
    cdef smallvis_sgd_group_fn group = _sgd_group(problem)
    cdef const double[::1] dd = d2
    cdef double[::1] o = out
    group(dd[0], &dd[1] if dd.shape[0] > 1 else NULL, dd.shape[0] - 1, &o[0])


cdef _load_sgd_unit(const smallvis_sgd_unit* unit, problem, smallvis_unit_params* k):
    """Fill ``k`` from ``problem.params`` (the unit's fields in order) and ``n_others``."""
    cdef const double[::1] f = np.ascontiguousarray(_problem_fields(problem),
                                                     dtype=np.float64)
    unit.load(&f[0], <double>problem.n_others, k)


def sgd_coefficients(problem, d2, q, nu, out):
    """Cython twin of :func:`smallvis.backends.reference.sgd_coefficients`."""
    if _is_grouped(problem):
        raise ValueError(f"{problem.coefficient!r} is a grouped step: its coefficients "
                         "depend on the whole sample (sgd_group_coefficients)")
    cdef const double[::1] dd = d2
    cdef double[:, ::1] o = out
    cdef const smallvis_sgd_unit* unit = _sgd_unit(problem)
    cdef smallvis_unit_params k
    cdef double qq = q, cnu = nu, dq
    cdef Py_ssize_t t
    _load_sgd_unit(unit, problem, &k)
    for t in range(dd.shape[0]):
        o[0, t] = unit.attract(&k, dd[t], qq, cnu, &dq)
        o[1, t] = dq
        if dd[t] > 0.0:
            o[2, t] = unit.repel(&k, dd[t], qq, cnu, &dq)
            o[3, t] = dq
        else:  # never evaluated by the loop
            o[2, t] = o[3, t] = NAN


# ---------------------------------------------------------------------------
# the epoch loop
# ---------------------------------------------------------------------------


cdef enum Scheme:
    EPOCHS_PER_SAMPLE, ALIAS, EVERY_EDGE


cdef enum Noise:
    UNIFORM, UNIFORM_OTHERS, DEGREE, REFERENCE


cdef int _scheme(name) except -1:
    if name == "epochs_per_sample":
        return EPOCHS_PER_SAMPLE
    if name == "alias":
        return ALIAS
    if name == "every_edge":
        return EVERY_EDGE
    raise ValueError(f"unknown SGD scheme {name!r}")


cdef int _noise(name) except -1:
    if name == "uniform":
        return UNIFORM
    if name == "uniform_others":
        return UNIFORM_OTHERS
    if name == "degree":
        return DEGREE
    if name == "reference":
        return REFERENCE
    raise ValueError(f"unknown SGD noise {name!r}")


cdef struct SgdLoop:
    # read-only inputs
    const int32_t* head          # empty for the alias scheme: see _edge_head
    const int32_t* tail
    const int32_t* indptr
    const int32_t* block_row     # alias scheme: see _block_rows
    int64_t block_shift
    const double* edge_weight
    const int32_t* edge_alias
    const double* noise_prob
    const int32_t* noise_alias
    const double* alphas
    const int64_t* n_noise
    const double* q_offset
    const int64_t* edge_key      # the key part of each edge; NULL: the edge's index
    # updated in place
    double* Y
    double* state
    double* q
    # the method: its unit's coefficients and parameters (the epoch's noise
    # count nu is passed per sample)
    smallvis_sgd_coef attract
    smallvis_sgd_coef repel
    smallvis_unit_params params
    int inline_kind         # INLINE_UMAP/INLINE_LARGEVIS: coefficients inlined (_sgd_sample)
    # a grouped step (SGD_GROUPS): one call for a whole sample, its work room
    # in each thread's accumulator block after the dim entries of acc
    smallvis_sgd_group_fn group
    Scheme scheme
    Noise noise
    bint move_negatives, clip_after, defer_head, skip_tail, has_offset
    bint prefetch           # ask the cache early for the negatives' rows
    bint rows_ahead         # ask the cache for the rows of samples ahead (large Y)
    double clip, alpha_q
    # sizes
    int64_t n, dim, n_edges, n_noise_table, samples_per_epoch
    int64_t n_free          # rows from n_free on are frozen (never moved)


cdef inline double _clip(double x, double bound) noexcept nogil:
    # written as two selects so that the compiler emits maxsd/minsd (no branch)
    x = x if x > -bound else -bound
    return x if x < bound else bound


cdef inline double _sq_dist_rows(const double* yi, const double* yk,
                                 int64_t dim) noexcept nogil:
    cdef double d2 = 0.0, diff, diff1
    cdef int64_t d
    if dim == 2:  # the common case, without the generic loop's overhead
        diff = yi[0] - yk[0]
        diff1 = yi[1] - yk[1]
        return diff * diff + diff1 * diff1
    for d in range(dim):
        diff = yi[d] - yk[d]
        d2 += diff * diff
    return d2


cdef inline double _scaled_step(double g, double alpha, double bound,
                                bint clip_after) noexcept nogil:
    # one coordinate's move: the force g scaled by alpha, clipped to
    # +-bound after the scaling (clip_after) or before it
    if clip_after:
        return _clip(alpha * g, bound)
    return alpha * _clip(g, bound)


cdef inline void _step(const SgdLoop* L, dptr yi, dptr yk, double c, double alpha,
                       double* acc, bint move_other) noexcept nogil:
    # Non-aliasing rows (i != k is guaranteed by the callers) and local copies
    # of the settings: stores to Y then do not force reloads of L's fields.
    cdef int64_t d, dim = L.dim
    cdef double s, bound = L.clip
    cdef bint clip_after = L.clip_after
    for d in range(dim):
        s = _scaled_step(c * (yi[d] - yk[d]), alpha, bound, clip_after)
        if acc != NULL:
            acc[d] += s
        else:
            yi[d] += s
        if move_other:
            yk[d] -= s


cdef inline int64_t _alias_draw(uint64_t u_column, uint64_t u_coin, const double* prob,
                                const int32_t* alias, int64_t size) noexcept nogil:
    cdef int64_t column = _randint(u_column, <uint64_t>size)
    if _uniform(u_coin) < prob[column]:
        return column
    return alias[column]


cdef enum:
    # negatives drawn (and their rows requested from the cache) before a
    # positive step; later ones, if any, are drawn when they are used
    EARLY_NEGATIVES = 16


cdef inline int64_t _negative(const SgdLoop* L, uint64_t key, int64_t draw,
                              int64_t i) noexcept nogil:
    """The negative of draws ``draw, draw + 1`` of a sample with head ``i``."""
    cdef int64_t k
    if L.noise == DEGREE:
        return _alias_draw(_absorb(key, <uint64_t>draw), _absorb(key, <uint64_t>(draw + 1)),
                           L.noise_prob, L.noise_alias, L.n_noise_table)
    if L.noise == UNIFORM_OTHERS:
        k = _randint(_absorb(key, <uint64_t>draw), <uint64_t>(L.n - 1))
        return k + 1 if k >= i else k
    if L.noise == REFERENCE:
        return L.n_free + _randint(_absorb(key, <uint64_t>draw), <uint64_t>(L.n - L.n_free))
    return _randint(_absorb(key, <uint64_t>draw), <uint64_t>L.n)


cdef void _grouped_sample(const SgdLoop* L, int64_t epoch, int64_t i, int64_t j,
                          uint64_t key, int64_t first_draw, int64_t m,
                          double* room) noexcept nogil:
    """One positive edge (i, j) and its m negatives in one grouped step (reference:
    ``grouped_sample``): every difference at the current Y, the sample's
    coefficients from one call, then the steps in draw order."""
    cdef double alpha = L.alphas[epoch]
    cdef int64_t dim = L.dim, q, d, k
    cdef int64_t* others = <int64_t*>room
    cdef double* d2 = room + (m + 1)
    cdef double* c = d2 + (m + 1)
    cdef double* diff = c + (m + 1)
    cdef double* yi = L.Y + i * dim
    cdef double* yk
    cdef double s
    cdef bint move
    others[0] = j
    for q in range(m):
        others[1 + q] = _negative(L, key, first_draw + 2 * q, i)
    for q in range(m + 1):
        yk = L.Y + others[q] * dim
        for d in range(dim):
            diff[q * dim + d] = yi[d] - yk[d]
        d2[q] = _sq_dist_rows(yi, yk, dim)
    L.group(d2[0], d2 + 1, m, c)
    for q in range(m + 1):
        k = others[q]
        yk = L.Y + k * dim
        move = k < L.n_free if q == 0 else (L.move_negatives and k < L.n_free)
        for d in range(dim):
            s = _scaled_step(c[q] * diff[q * dim + d], alpha, L.clip, L.clip_after)
            yi[d] += s
            if move:
                yk[d] -= s


cdef void _sgd_sample(const SgdLoop* L, int64_t epoch, int64_t i, int64_t j, uint64_t key,
                      int64_t first_draw, int64_t m, double* acc) noexcept nogil:
    """One positive edge (i, j) and its m negatives (reference: ``sample``)."""
    # UMAP's and LargeVis's coefficients called directly (inlined), not
    # through the pointers
    cdef _UmapKind* umap = NULL
    cdef _LargeVisKind* largevis = NULL
    cdef _AnyKind* other = NULL
    if L.group != NULL:
        _grouped_sample(L, epoch, i, j, key, first_draw, m, acc + L.dim)
    elif L.inline_kind == INLINE_UMAP:
        _sample(L, epoch, i, j, key, first_draw, m, acc, umap)
    elif L.inline_kind == INLINE_LARGEVIS:
        _sample(L, epoch, i, j, key, first_draw, m, acc, largevis)
    else:
        _sample(L, epoch, i, j, key, first_draw, m, acc, other)


cdef enum:
    # SgdLoop.inline_kind: which unit's coefficients _sample calls inline
    INLINE_NONE = 0
    INLINE_UMAP = 1
    INLINE_LARGEVIS = 2


cdef struct _UmapKind:
    char unused


cdef struct _LargeVisKind:
    char unused


cdef struct _AnyKind:
    char unused


# a compile-time switch: _sample is compiled once per kind
ctypedef fused _Kind:
    _UmapKind
    _LargeVisKind
    _AnyKind


cdef inline double _inline_attract(_Kind* kind, const smallvis_unit_params* k,
                                   double d2) noexcept nogil:
    """The attraction coefficient of an inlined kind (UMAP's or LargeVis's unit)."""
    if _Kind is _UmapKind:
        return smallvis_umap_sgd_attract(&k.umap, d2)
    else:
        return smallvis_largevis_sgd_attract(&k.largevis, d2)


cdef inline double _inline_repel(_Kind* kind, const smallvis_unit_params* k,
                                 double d2) noexcept nogil:
    """The repulsion coefficient of an inlined kind (UMAP's or LargeVis's unit)."""
    if _Kind is _UmapKind:
        return smallvis_umap_sgd_repel(&k.umap, d2)
    else:
        return smallvis_largevis_sgd_repel(&k.largevis, d2)


cdef inline void _sample_2d(const SgdLoop* L, _Kind* kind, const smallvis_unit_params* kp,
                            double* yi, double* yj,
                            int64_t i, int64_t j, uint64_t key, int64_t first_draw,
                            int64_t m, int64_t n_early, const int64_t* negatives,
                            double alpha) noexcept nogil:
    """:func:`_sample` for an inlined kind in two dimensions (no q, no deferred head).

    The head row is held in registers and stored after every step, so that
    memory stays current while the next distance need not wait for those
    stores to come back through the loads.  The operations and their order
    are those of the generic loop; a negative equal to the head takes the
    generic path through memory.
    """
    cdef double y0 = yi[0], y1 = yi[1], d0, d1, d2, c, g, s, dq
    cdef double bound = L.clip
    cdef bint clip_after = L.clip_after, move = L.move_negatives
    cdef bint skip_tail = L.skip_tail, move_tail = j < L.n_free
    cdef int64_t n_free = L.n_free
    cdef double* yk
    cdef int64_t p, k
    # the positive edge (i != j): both rows move (the tail unless frozen)
    d0 = y0 - yj[0]
    d1 = y1 - yj[1]
    c = _inline_attract(kind, kp, d0 * d0 + d1 * d1)
    g = c * d0
    s = _scaled_step(g, alpha, bound, clip_after)
    y0 = y0 + s
    yi[0] = y0
    if move_tail:
        yj[0] -= s
    g = c * d1
    s = _scaled_step(g, alpha, bound, clip_after)
    y1 = y1 + s
    yi[1] = y1
    if move_tail:
        yj[1] -= s
    for p in range(m):
        k = negatives[p] if p < n_early else _negative(L, key, first_draw + 2 * p, i)
        if skip_tail and k == j:
            continue
        if k == i:
            d2 = _sq_dist_rows(yi, yi, 2)
            if d2 <= 0.0:
                continue
            _step(L, yi, yi, _inline_repel(kind, kp, d2), alpha, NULL, move and k < n_free)
            y0 = yi[0]
            y1 = yi[1]
            continue
        yk = L.Y + k * 2
        d0 = y0 - yk[0]
        d1 = y1 - yk[1]
        d2 = d0 * d0 + d1 * d1
        if d2 <= 0.0:
            continue
        c = _inline_repel(kind, kp, d2)
        g = c * d0
        s = _scaled_step(g, alpha, bound, clip_after)
        y0 = y0 + s
        yi[0] = y0
        if move and k < n_free:
            yk[0] -= s
        g = c * d1
        s = _scaled_step(g, alpha, bound, clip_after)
        y1 = y1 + s
        yi[1] = y1
        if move and k < n_free:
            yk[1] -= s


cdef inline void _sample_2d_deferred(const SgdLoop* L, _Kind* kind,
                                     const smallvis_unit_params* kp, double* yi, double* yj,
                                     int64_t i, int64_t j, uint64_t key, int64_t first_draw,
                                     int64_t m, int64_t n_early, const int64_t* negatives,
                                     double alpha) noexcept nogil:
    """:func:`_sample` for an inlined kind in two dimensions with a deferred head step.

    LargeVis's form: the head's steps add up in (a0, a1), held in registers,
    and move the head once at the end; until then every distance is taken
    from the head's row as it was, so the negatives' distances do not wait
    on one another.  The operations and their order are those of the
    generic loop (the accumulator starts at 0 and adds the steps in draw
    order); a negative equal to the head is at distance 0 and skipped there
    too.
    """
    cdef double y0 = yi[0], y1 = yi[1], a0 = 0.0, a1 = 0.0, d0, d1, d2, c, s
    cdef double bound = L.clip
    cdef bint clip_after = L.clip_after, move = L.move_negatives
    cdef bint skip_tail = L.skip_tail, move_tail = j < L.n_free
    cdef int64_t n_free = L.n_free
    cdef double* yk
    cdef int64_t p, k
    d0 = y0 - yj[0]
    d1 = y1 - yj[1]
    c = _inline_attract(kind, kp, d0 * d0 + d1 * d1)
    s = _scaled_step(c * d0, alpha, bound, clip_after)
    a0 += s
    if move_tail:
        yj[0] -= s
    s = _scaled_step(c * d1, alpha, bound, clip_after)
    a1 += s
    if move_tail:
        yj[1] -= s
    for p in range(m):
        k = negatives[p] if p < n_early else _negative(L, key, first_draw + 2 * p, i)
        if skip_tail and k == j:
            continue
        yk = L.Y + k * 2
        d0 = y0 - yk[0]
        d1 = y1 - yk[1]
        d2 = d0 * d0 + d1 * d1
        if d2 <= 0.0:
            continue
        c = _inline_repel(kind, kp, d2)
        s = _scaled_step(c * d0, alpha, bound, clip_after)
        a0 += s
        if move and k < n_free:
            yk[0] -= s
        s = _scaled_step(c * d1, alpha, bound, clip_after)
        a1 += s
        if move and k < n_free:
            yk[1] -= s
    yi[0] = y0 + a0
    yi[1] = y1 + a1


cdef void _sample(const SgdLoop* L, int64_t epoch, int64_t i, int64_t j, uint64_t key,
                  int64_t first_draw, int64_t m, double* acc,
                  _Kind* kind) noexcept nogil:
    cdef double alpha = L.alphas[epoch]
    cdef double* yi = L.Y + i * L.dim
    cdef double* yk
    cdef double c, d2, dq, qi
    cdef int64_t p, k, d
    cdef double* head_acc = acc if L.defer_head else NULL
    # local copies: stores to Y then do not force reloads of L's fields
    cdef smallvis_sgd_coef repel = L.repel
    cdef smallvis_unit_params k_params = L.params
    cdef double nu = <double>L.n_noise[epoch]  # NCVis's noise ratio of this epoch
    cdef int64_t negatives[EARLY_NEGATIVES]
    cdef int64_t n_early = 0 if not L.prefetch else (
        m if m < EARLY_NEGATIVES else EARLY_NEGATIVES)
    # The negatives are pure functions of (key, draw): draw the first ones
    # now and ask the cache for their rows, which then arrive while the
    # positive step is computed.  A row outside the core's own cache (Y
    # larger than it, or last written by another core) is a miss; early
    # requests overlap those misses.
    # Same draws, same order of operations: no number changes.
    for p in range(n_early):
        negatives[p] = _negative(L, key, first_draw + 2 * p, i)
        _prefetch(L.Y + negatives[p] * L.dim)
    yk = L.Y + j * L.dim
    if _Kind is not _AnyKind:
        if L.dim == 2 and L.alpha_q == 0.0:  # no accumulator, no q: registers only
            if L.defer_head:
                _sample_2d_deferred(L, kind, &k_params, yi, yk, i, j, key, first_draw, m,
                                    n_early, negatives, alpha)
            else:
                _sample_2d(L, kind, &k_params, yi, yk, i, j, key, first_draw, m, n_early,
                           negatives, alpha)
            return
    if L.defer_head:
        for d in range(L.dim):
            acc[d] = 0.0
    qi = L.q[0] + (L.q_offset[i] if L.has_offset else 0.0)
    if _Kind is not _AnyKind:
        c = _inline_attract(kind, &k_params, _sq_dist_rows(yi, yk, L.dim))
        dq = 0.0
    else:
        c = L.attract(&k_params, _sq_dist_rows(yi, yk, L.dim), qi, nu, &dq)
    _step(L, yi, yk, c, alpha, head_acc, j < L.n_free)
    if L.alpha_q != 0.0:
        L.q[0] += L.alpha_q * dq
    for p in range(m):
        k = negatives[p] if p < n_early else _negative(L, key, first_draw + 2 * p, i)
        if L.skip_tail and k == j:
            continue
        yk = L.Y + k * L.dim
        d2 = _sq_dist_rows(yi, yk, L.dim)
        if d2 <= 0.0:
            continue
        qi = L.q[0] + (L.q_offset[i] if L.has_offset else 0.0)
        if _Kind is not _AnyKind:
            c = _inline_repel(kind, &k_params, d2)
            dq = 0.0
        else:
            c = repel(&k_params, d2, qi, nu, &dq)
        _step(L, yi, yk, c, alpha, head_acc, L.move_negatives and k < L.n_free)
        if L.alpha_q != 0.0:
            L.q[0] += L.alpha_q * dq
    if L.defer_head:
        for d in range(L.dim):
            yi[d] = yi[d] + acc[d]


cdef int32_t* _block_rows(const int32_t* indptr, int64_t n_edges,
                         int64_t shift) noexcept nogil:
    """For every block ``b`` of ``2**shift`` edges, the row of its first edge ``r``.

    ``r`` when the whole block lies in row ``r``, ``~r`` (negative) when it
    ends in a later row; one entry more holds the row of the last edge.
    With this table :func:`_edge_head` finds the head of an edge without a
    head array of one int32 per edge (60 MB at 70,000 points and 150
    neighbours).  A block holds 1/32 to 1/16 of an average row (8 edges
    there: the table is an eighth of the head array), so most blocks lie in
    one row and need no search; larger blocks cross rows more often and
    are slower (docs/experiments.md, 2026-11-23).  NULL when out of memory.
    """
    cdef int64_t n_blocks = ((n_edges - 1) >> shift) + 1, b, e, r = 0, r_last
    cdef int32_t* out = <int32_t*>malloc((n_blocks + 1) * sizeof(int32_t))
    if out == NULL:
        return NULL
    for b in range(n_blocks):
        e = b << shift
        while indptr[r + 1] <= e:
            r += 1
        r_last = r  # the row of the block's last edge
        while indptr[r_last + 1] <= min((b + 1) << shift, n_edges) - 1:
            r_last += 1
        out[b] = <int32_t>r if r_last == r else ~(<int32_t>r)
    out[n_blocks] = <int32_t>r_last
    return out


cdef inline int64_t _edge_head(const SgdLoop* L, int64_t e) noexcept nogil:
    """The head of edge ``e`` (alias scheme): the last row ``r`` with ``indptr[r] <= e``.

    The reference's ``searchsorted(indptr, e, "right") - 1``: read from the
    table of :func:`_block_rows` when ``e``'s block lies in one row, else
    searched between the rows of the ends of the block (which bracket it).
    """
    cdef int64_t b = e >> L.block_shift
    cdef int64_t lo = L.block_row[b], hi, mid
    if lo >= 0:
        return lo
    lo = ~lo
    hi = L.block_row[b + 1]
    if hi < 0:
        hi = ~hi
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if L.indptr[mid] <= e:
            lo = mid
        else:
            hi = mid - 1
    return lo


cdef inline uint64_t _item_key(const SgdLoop* L, int64_t e) noexcept nogil:
    """The key part of edge ``e``: its edge key when there are edge keys, else ``e``."""
    if L.edge_key != NULL:
        return <uint64_t>L.edge_key[e]
    return <uint64_t>e


cdef void _sgd_item(const SgdLoop* L, int64_t epoch, uint64_t epoch_key, int64_t e,
                    double* acc) noexcept nogil:
    """Item ``e`` of an epoch: an edge (epochs_per_sample, every_edge) or a sample (alias).

    ``epoch_key`` is ``_epoch_key(seed, epoch)``.
    """
    cdef uint64_t key
    cdef int64_t edge, m
    cdef double per_negative
    if L.scheme == EPOCHS_PER_SAMPLE:
        if L.state[e] > <double>(epoch + 1):
            return  # not due: no key needed
        L.state[e] += L.edge_weight[e]
        per_negative = L.edge_weight[e] / <double>L.n_noise[epoch]
        m = <int64_t>((<double>(epoch + 1) - L.state[L.n_edges + e]) / per_negative)
        L.state[L.n_edges + e] += <double>m * per_negative
        # a grouped step's loss is defined with the epoch's count of negatives
        _sgd_sample(L, epoch, L.head[e], L.tail[e], _absorb(epoch_key, _item_key(L, e)), 0,
                    m if L.group == NULL else L.n_noise[epoch], acc)
        return
    if L.scheme == ALIAS:
        key = _absorb(epoch_key, <uint64_t>e)
        edge = _alias_draw(_absorb(key, 0), _absorb(key, 1), L.edge_weight, L.edge_alias,
                           L.n_edges)
        _sgd_sample(L, epoch, _edge_head(L, edge), L.tail[edge], key, 2, L.n_noise[epoch],
                    acc)
    else:
        _sgd_sample(L, epoch, L.head[e], L.tail[e], _absorb(epoch_key, _item_key(L, e)), 0,
                    L.n_noise[epoch], acc)


#: How many samples ahead the alias scheme fetches its edges (see _run_items).
DEF PREFETCH_AHEAD = 8
#: How many samples ahead the loop asks for the rows of Y a sample reads,
#: when Y is larger than ROWS_AHEAD_MIN_BYTES (see _run_items).
DEF ROWS_AHEAD = 4

#: Above this size of Y (bytes) the loop asks the cache for the rows of the
#: samples ROWS_AHEAD on: then Y no longer fits in a core's L2 cache and every
#: row a sample reads (head, tail, negatives) is a miss.  Read at each call, so
#: that a test can set it to 0 and run the hints on a small problem.
ROWS_AHEAD_MIN_BYTES = 4 << 20


cdef inline int64_t _alias_column(const SgdLoop* L, uint64_t epoch_key,
                                  int64_t e) noexcept nogil:
    return _randint(_absorb(_absorb(epoch_key, <uint64_t>e), 0), <uint64_t>L.n_edges)


cdef void _run_items(const SgdLoop* L, int64_t epoch, uint64_t epoch_key, int64_t lo,
                     int64_t hi, double* acc) noexcept nogil:
    """Items ``lo <= e < hi`` of an epoch, in order.

    The edge schemes run the edges in order; with several threads the loop
    asks the cache early for the tail row of the edge PREFETCH_AHEAD on (a
    row the other thread wrote is a miss).  The alias scheme reads four
    arrays with one entry per edge at a random edge per sample: at 70,000
    points and 150 neighbours they hold 13 million entries each, far beyond
    the caches, and the loop waits on memory.  The
    draws are pure functions of (seed, epoch, item), so the loop computes
    the edge of sample e + PREFETCH_AHEAD (its alias-table column of sample
    e + 2 PREFETCH_AHEAD) early and asks the cache for it.  This changes
    what is in the cache, never a number.

    When Y outgrows the L2 cache (``rows_ahead``), its rows are misses too:
    the loop then also asks for the rows of the sample ROWS_AHEAD on (head,
    tail and first negatives) and, in the alias scheme, for the noise-table
    entries of the sample PREFETCH_AHEAD on.  With Y in L2 these hints save
    nothing, so they are off there.  The hints are written out in the loop
    because inline helpers made them less effective (docs/experiments.md,
    2026-11-25).
    """
    cdef int64_t e, c, edge
    cdef uint64_t key
    cdef double due = <double>(epoch + 1)
    # the epoch's count of negatives (an edge's own count may differ: the
    # hints then cover a few rows more or less)
    cdef int64_t m = L.n_noise[epoch], p, head, ahead
    cdef bint rows_ahead = L.rows_ahead
    cdef bint every_edge = L.scheme == EVERY_EDGE
    if L.scheme != ALIAS:
        # the edges run in order, their tails are anywhere: ask early for
        # the tail row of the edge PREFETCH_AHEAD on (if it is due), and
        # for a large Y the rows of the edge ROWS_AHEAD on
        for e in range(lo, hi):
            ahead = e + PREFETCH_AHEAD
            if L.prefetch and ahead < hi and (every_edge or L.state[ahead] <= due):
                _prefetch(L.Y + L.tail[ahead] * L.dim)
            ahead = e + ROWS_AHEAD
            if rows_ahead and ahead < hi and (every_edge or L.state[ahead] <= due):
                head = L.head[ahead]
                _prefetch(L.Y + head * L.dim)
                _prefetch(L.Y + L.tail[ahead] * L.dim)
                key = _absorb(epoch_key, _item_key(L, ahead))
                for p in range(m if m < EARLY_NEGATIVES else EARLY_NEGATIVES):
                    _prefetch(L.Y + _negative(L, key, 2 * p, head) * L.dim)
            _sgd_item(L, epoch, epoch_key, e, acc)
        return
    for e in range(lo, hi):
        if e + 2 * PREFETCH_AHEAD < hi:
            c = _alias_column(L, epoch_key, e + 2 * PREFETCH_AHEAD)
            _prefetch(&L.edge_weight[c])
            _prefetch(&L.edge_alias[c])
        if e + PREFETCH_AHEAD < hi:
            key = _absorb(epoch_key, <uint64_t>(e + PREFETCH_AHEAD))
            edge = _alias_draw(_absorb(key, 0), _absorb(key, 1), L.edge_weight,
                               L.edge_alias, L.n_edges)
            _prefetch(&L.block_row[edge >> L.block_shift])
            _prefetch(&L.tail[edge])
            if rows_ahead and L.noise == DEGREE:
                for p in range(m):
                    c = _randint(_absorb(key, <uint64_t>(2 + 2 * p)), <uint64_t>L.n_noise_table)
                    _prefetch(&L.noise_prob[c])
                    _prefetch(&L.noise_alias[c])
        if rows_ahead and e + ROWS_AHEAD < hi:
            # the edge of that sample again: its entries came in above
            key = _absorb(epoch_key, <uint64_t>(e + ROWS_AHEAD))
            edge = _alias_draw(_absorb(key, 0), _absorb(key, 1), L.edge_weight,
                               L.edge_alias, L.n_edges)
            head = _edge_head(L, edge)
            _prefetch(L.Y + head * L.dim)
            _prefetch(L.Y + L.tail[edge] * L.dim)
            for p in range(m):
                _prefetch(L.Y + _negative(L, key, 2 + 2 * p, head) * L.dim)
        _sgd_item(L, epoch, epoch_key, e, acc)


cdef enum:
    CACHE_LINE = 64  # bytes


cdef inline int64_t _padded(int64_t dim) noexcept nogil:
    # doubles per row when every row starts a cache line of its own
    cdef int64_t per_line = CACHE_LINE // sizeof(double)
    return (dim + per_line - 1) // per_line * per_line


cdef inline void* _align(void* block) noexcept nogil:
    # the first cache-line boundary in a block allocated CACHE_LINE bytes long
    return <void*>((<uintptr_t>block + CACHE_LINE - 1) & ~(<uintptr_t>(CACHE_LINE - 1)))


def sgd_epochs(problem, Y, seed, epoch_start, epoch_end, n_threads):
    """Cython twin of :func:`smallvis.backends.reference.sgd_epochs`.

    One thread runs the items of an epoch in the reference's order, in
    place on ``Y``.  With ``n_threads > 1`` each epoch runs the reference's
    schedule for several threads (:func:`_parallel_epochs`): thread ``t``
    runs its fixed contiguous share of the items on a private copy of
    ``Y`` and ``q``, and at the end of the epoch the changes of the
    copies are added into ``Y`` and ``q`` in thread order.  So a run gives
    the same bits on every run for a given thread count, and the NumPy twin
    reproduces it.  At any number of threads the loop draws a sample's
    first negatives before its positive step and asks the cache for their
    rows, and when Y is larger than ``ROWS_AHEAD_MIN_BYTES`` it also asks
    for the rows of the samples a few places ahead (:func:`_run_items`).
    None of the hints changes a number.
    """
    cdef const int32_t[::1] h = problem.head, t = problem.tail, ea = problem.edge_alias
    cdef const int32_t[::1] ip = problem.indptr
    cdef const int32_t[::1] na = problem.noise_alias
    cdef const int64_t[::1] nn = problem.n_noise
    cdef const double[::1] ew = problem.edge_weight, npb = problem.noise_prob
    cdef const double[::1] al = problem.alphas, qo = problem.q_offset
    cdef const int64_t[::1] ek = problem.edge_key
    cdef double[:, ::1] y = Y, st = problem.state
    cdef double[::1] qq = problem.q
    cdef SgdLoop L
    cdef const smallvis_sgd_unit* unit
    cdef int64_t epoch, n_items
    cdef int64_t first = epoch_start, last = epoch_end
    cdef int nthreads = max(1, n_threads)
    cdef uint64_t key_seed = seed
    cdef double* acc
    cdef void* acc_block
    cdef int64_t acc_stride
    pr = problem
    cdef int64_t group_room = 0
    L.group = NULL
    L.inline_kind = INLINE_NONE
    if _is_grouped(pr):
        _problem_fields(pr)  # the unit's fields, checked as the reference does
        L.group = _sgd_group(pr)
        L.attract = L.repel = NULL
        # per sample: its rows, distances and coefficients, and its differences
        group_room = (int(np.max(nn)) + 1) * (y.shape[1] + 3) if nn.shape[0] else 0
    else:
        unit = _sgd_unit(pr)
        L.attract, L.repel = unit.attract, unit.repel
        if unit.attract == smallvis_umap_sgd_attract_any:
            L.inline_kind = INLINE_UMAP
        elif unit.attract == smallvis_largevis_sgd_attract_any:
            L.inline_kind = INLINE_LARGEVIS
        _load_sgd_unit(unit, pr, &L.params)
    L.scheme = <Scheme>_scheme(pr.scheme)
    L.noise = <Noise>_noise(pr.noise)
    L.move_negatives, L.clip_after = pr.move_negatives, pr.clip_after_step
    L.defer_head, L.skip_tail = pr.defer_head, pr.skip_tail
    L.clip, L.alpha_q = pr.clip, pr.q_learning_rate
    L.samples_per_epoch = pr.samples_per_epoch
    L.head = &h[0] if h.shape[0] else NULL
    L.indptr = &ip[0] if ip.shape[0] else NULL
    L.tail = &t[0] if t.shape[0] else NULL
    L.edge_weight = &ew[0] if ew.shape[0] else NULL
    L.edge_alias = &ea[0] if ea.shape[0] else NULL
    L.noise_prob = &npb[0] if npb.shape[0] else NULL
    L.noise_alias = &na[0] if na.shape[0] else NULL
    L.alphas = &al[0]
    L.n_noise = &nn[0]
    L.q_offset = &qo[0] if qo.shape[0] else NULL
    L.edge_key = &ek[0] if ek.shape[0] else NULL
    L.has_offset = qo.shape[0] > 0
    L.Y = &y[0, 0]
    L.state = &st[0, 0] if st.shape[1] else NULL
    L.q = &qq[0]
    L.n, L.dim, L.n_edges, L.n_noise_table = y.shape[0], y.shape[1], t.shape[0], npb.shape[0]
    L.n_free = min(<int64_t>problem.n_free, L.n)
    # the early negatives pay once Y outgrows a core's own cache (one
    # thread on 70,000 points: 2.2 times faster) and cost nothing
    # measurable below (docs/experiments.md, 2026-12-02)
    L.prefetch = True
    L.rows_ahead = L.n * L.dim * <int64_t>sizeof(double) > ROWS_AHEAD_MIN_BYTES
    # blocks of 2**shift edges, 1/32 to 1/16 of an average row: most lie
    # within one row, and _edge_head then reads no indptr
    L.block_shift = max(0, <int64_t>log2(max(1.0, <double>L.n_edges / max(1, L.n))) - 4)
    L.block_row = NULL
    if L.scheme == ALIAS and L.n_edges > 0:
        L.block_row = _block_rows(L.indptr, L.n_edges, L.block_shift)
        if L.block_row == NULL:
            raise MemoryError()
    n_items = L.samples_per_epoch if L.scheme == ALIAS else L.n_edges
    # each thread's accumulator on cache lines of its own
    acc_stride = _padded(max(1, L.dim) + group_room)
    acc_block = calloc(nthreads * acc_stride * sizeof(double) + CACHE_LINE, 1)
    if acc_block == NULL:
        free(L.block_row)
        raise MemoryError()
    acc = <double*>_align(acc_block)
    cdef ParallelEpoch P
    P.loops = NULL
    P.block = NULL
    try:
        if nthreads > 1:
            _parallel_setup(&P, &L, nthreads)
        with nogil:
            if nthreads == 1:
                for epoch in range(first, last):
                    _run_items(&L, epoch, _epoch_key(key_seed, epoch), 0, n_items, acc)
            else:
                _parallel_epochs(&P, &L, first, last, key_seed, n_items, acc, acc_stride)
    finally:
        free(P.loops)
        free(P.block)
        free(acc_block)
        free(L.block_row)


cdef struct ParallelEpoch:
    # the schedule of several threads: thread t works on loops[t], a copy
    # of the loop whose Y and q point into its own part of block
    SgdLoop* loops
    void* block
    int nthreads
    int64_t y_stride        # doubles per thread's copy of Y (whole cache lines)


cdef int _parallel_setup(ParallelEpoch* P, const SgdLoop* L, int nthreads) except -1:
    """Allocate each thread's copy of ``Y`` and ``q`` (cache-line aligned, never shared)."""
    cdef int64_t size = L.n * L.dim, t
    P.nthreads = nthreads
    # the copy, then q on a line of its own
    P.y_stride = _padded(size) + _padded(1)
    P.loops = <SgdLoop*>malloc(nthreads * sizeof(SgdLoop))
    P.block = malloc(nthreads * P.y_stride * sizeof(double) + CACHE_LINE)
    if P.loops == NULL or P.block == NULL:
        raise MemoryError()
    cdef double* base = <double*>_align(P.block)
    for t in range(nthreads):
        P.loops[t] = L[0]
        P.loops[t].Y = base + t * P.y_stride
        P.loops[t].q = base + t * P.y_stride + _padded(size)
    return 0


cdef void _epoch_sum(ParallelEpoch* P, SgdLoop* L, int part, int n_parts) noexcept nogil:
    """Part ``part`` of ``n_parts`` of the end of a parallel epoch (reference: ``sgd_epochs``).

    ``Y`` becomes ``Y + (Y_0 - Y) + (Y_1 - Y) + ...`` element by element in
    thread order, and ``q`` takes the mean of the copies' changes.  Each
    part sums its own contiguous run of ``Y``'s elements (part 0 also
    ``q``); an element's sum is the same whichever part computes it, so
    the parts may run on as many threads as there are.
    """
    cdef int nthreads = P.nthreads
    cdef int64_t size = L.n * L.dim, r, t
    cdef int64_t lo = part * size // n_parts, hi = (part + 1) * size // n_parts
    cdef double old, total
    cdef double* y = L.Y
    cdef double* base = P.loops[0].Y
    for r in range(lo, hi):
        old = y[r]
        total = old
        for t in range(nthreads):
            total = total + (base[t * P.y_stride + r] - old)
        y[r] = total
    if part != 0:
        return
    old = L.q[0]
    total = 0.0
    for t in range(nthreads):
        total = total + (P.loops[t].q[0] - old)
    L.q[0] = old + total / <double>nthreads


cdef void _parallel_epochs(ParallelEpoch* P, SgdLoop* L, int64_t first, int64_t last,
                           uint64_t key_seed, int64_t n_items, double* acc,
                           int64_t acc_stride) noexcept nogil:
    """Epochs ``first .. last - 1`` on ``P.nthreads`` shares, in one parallel region.

    In every epoch share ``s`` copies ``Y`` and ``q``, runs items ``s n / T
    <= e < (s + 1) n / T`` in order on its copy (it sees its own updates at
    once, the other shares' at the next epoch); once every share is done,
    the threads add the changes, each its own part of ``Y``
    (:func:`_epoch_sum`), and the next epoch starts when all have.
    Nothing depends on which thread finishes first, nor on how many
    threads OpenMP grants (a thread runs shares ``t, t + team, ...``, and
    sums part ``t`` of ``team``).  The items' bookkeeping (``state``, one
    entry per edge) is written by the share that owns the edge only.  The
    threads wait for one another on a barrier that sleeps at once
    (:c:func:`smallvis_barrier_wait`): OpenMP's own barriers spin first,
    and on a machine with more runnable threads than cores the spinning
    thread takes the core from the one it waits for (docs/experiments.md,
    2026-12-02).
    """
    cdef int nthreads = P.nthreads, team, me
    cdef int64_t epoch, share, lo, hi, size = L.n * L.dim
    cdef uint64_t key
    cdef smallvis_barrier barrier
    if smallvis_barrier_init(&barrier) != 0:
        # no barrier to wait on: the same schedule, one thread after another
        for epoch in range(first, last):
            key = _epoch_key(key_seed, epoch)
            for share in range(nthreads):
                lo = share * n_items // nthreads
                hi = (share + 1) * n_items // nthreads
                memcpy(P.loops[share].Y, L.Y, size * sizeof(double))
                P.loops[share].q[0] = L.q[0]
                _run_items(&P.loops[share], epoch, key, lo, hi, acc + share * acc_stride)
            _epoch_sum(P, L, 0, 1)
        return
    with parallel(num_threads=nthreads):
        team = smallvis_team_size()
        me = threadid()
        for epoch in range(first, last):
            key = _epoch_key(key_seed, epoch)
            share = me
            while share < nthreads:
                lo = share * n_items // nthreads
                hi = (share + 1) * n_items // nthreads
                memcpy(P.loops[share].Y, L.Y, size * sizeof(double))
                P.loops[share].q[0] = L.q[0]
                _run_items(&P.loops[share], epoch, key, lo, hi, acc + share * acc_stride)
                share = share + team
            smallvis_barrier_wait(&barrier, team)
            _epoch_sum(P, L, me, team)
            smallvis_barrier_wait(&barrier, team)
    smallvis_barrier_destroy(&barrier)
