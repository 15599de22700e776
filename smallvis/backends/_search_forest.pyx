# cython: language_level=3
# cython: boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The projected search's forest, re-exported by :mod:`smallvis.backends._kernels`.

Twins of :func:`smallvis.backends.reference.forest_tree`,
:func:`smallvis.backends.reference.forest_query` and
:func:`smallvis.backends.reference.leaf_order` (the maths and the arrays
are described in :mod:`smallvis.backends.reference.search_forest`).  A
split decided by one rounding more or less would give another tree, so
this module is its own extension, built without the flags that let the
compiler regroup a sum or fuse a multiply with an add (setup.py): every sum
is taken one term after another, as the reference takes it, and the two
give the same bits.  The queries share the rows among threads, and a row's
walk reads nothing another row writes, so they have the same bits on any
number of threads; the build of one tree runs without the interpreter lock,
so several trees can be built at once.
"""

from cython.parallel cimport parallel, prange
from libc.math cimport INFINITY
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc, qsort, realloc
from libc.string cimport memcpy

import numpy as np

from smallvis.backends.reference.search_forest import SPLIT_ROUNDS, SPLIT_SAMPLE


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define SMALLVIS_FOREST_PREFETCH(p) __builtin_prefetch((const void *)(p))
    #else
    #define SMALLVIS_FOREST_PREFETCH(p) ((void)(p))
    #endif
    """
    # a hint to the cache: no effect on any result
    void _prefetch "SMALLVIS_FOREST_PREFETCH"(const void* p) noexcept nogil

# Rows ahead whose lines the leaf order's scans ask the cache for (a hint:
# any value gives the same order).
cdef enum:
    _ROWS_AHEAD = 4

cdef uint64_t _GOLDEN = 0x9E3779B97F4A7C15ULL


cdef inline uint64_t _mix64(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline int64_t _draw(uint64_t seed, int64_t tree, int64_t node, int64_t j,
                          int64_t size) noexcept nogil:
    cdef uint64_t h = _mix64(seed + _GOLDEN * <uint64_t>(tree + 1))
    h = _mix64(h ^ <uint64_t>node)
    return <int64_t>(_mix64(h ^ <uint64_t>j) % <uint64_t>size)


cdef inline double _lanes(const double* s) noexcept nogil:
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))


cdef inline double _dot(const double* a, const double* b, Py_ssize_t r) noexcept nogil:
    # in the reference's 8 lanes (reference.search_forest._sums)
    cdef double s[8]
    cdef Py_ssize_t t, l
    for l in range(8):
        s[l] = 0.0
    for t in range(0, r - 7, 8):
        for l in range(8):
            s[l] = s[l] + a[t + l] * b[t + l]
    for t in range(r - r % 8, r):
        s[t % 8] = s[t % 8] + a[t] * b[t]
    return _lanes(s)


cdef inline double _sq_dist(const double* a, const double* b, Py_ssize_t r) noexcept nogil:
    # a - b, as the reference subtracts: (S[j] - x); in its 8 lanes
    cdef double s[8]
    cdef double diff
    cdef Py_ssize_t t, l
    for l in range(8):
        s[l] = 0.0
    for t in range(0, r - 7, 8):
        for l in range(8):
            diff = a[t + l] - b[t + l]
            s[l] = s[l] + diff * diff
    for t in range(r - r % 8, r):
        diff = a[t] - b[t]
        s[t % 8] = s[t % 8] + diff * diff
    return _lanes(s)


cdef struct Keyed:
    double key
    int32_t row


cdef int _by_key_then_row(const void* a, const void* b) noexcept nogil:
    cdef const Keyed* x = <const Keyed*>a
    cdef const Keyed* y = <const Keyed*>b
    if x.key < y.key:
        return -1
    if x.key > y.key:
        return 1
    return (x.row > y.row) - (x.row < y.row)


cdef inline bint _worse(const Keyed* a, const Keyed* b) noexcept nogil:
    """Whether (key, row) ``a`` comes after ``b``."""
    return a.key > b.key or (a.key == b.key and a.row > b.row)


cdef Keyed _select(Keyed* a, Py_ssize_t n, Py_ssize_t k) noexcept nogil:
    """The ``k``-th smallest (from 0) of the distinct (key, row) pairs ``a[0:n]`` (reordered)."""
    cdef Py_ssize_t lo = 0, hi = n - 1, i, j, mid
    cdef Keyed pivot, tmp
    while lo < hi:
        mid = lo + (hi - lo) // 2
        # the median of three as pivot, at a[mid]
        if _worse(&a[lo], &a[mid]):
            tmp = a[lo]; a[lo] = a[mid]; a[mid] = tmp
        if _worse(&a[mid], &a[hi]):
            tmp = a[mid]; a[mid] = a[hi]; a[hi] = tmp
            if _worse(&a[lo], &a[mid]):
                tmp = a[lo]; a[lo] = a[mid]; a[mid] = tmp
        pivot = a[mid]
        i = lo
        j = hi
        while i <= j:
            while _worse(&pivot, &a[i]):
                i = i + 1
            while _worse(&a[j], &pivot):
                j = j - 1
            if i <= j:
                tmp = a[i]; a[i] = a[j]; a[j] = tmp
                i = i + 1
                j = j - 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            break
    return a[k]


cdef void _split_direction(const double* P, Py_ssize_t m, Py_ssize_t r, double* c0,
                           double* c1, double* acc0, double* acc1, int rounds,
                           double* w) noexcept nogil:
    """Two-means of the m sample rows P (m x r); w = c0 - c1 (the reference's rule)."""
    cdef Py_ssize_t j, t, n1
    cdef int k
    cdef bint to_c1
    cdef double middle
    memcpy(c0, P, r * sizeof(double))
    memcpy(c1, P + r, r * sizeof(double))
    for k in range(rounds):
        n1 = 0
        for t in range(r):
            acc0[t] = 0.0
            acc1[t] = 0.0
            w[t] = c0[t] - c1[t]
            acc1[t] = (c0[t] + c1[t]) * 0.5  # the midpoint, until the sums below
        middle = _dot(w, acc1, r)
        for t in range(r):
            acc1[t] = 0.0
        for j in range(m):
            to_c1 = _dot(P + j * r, w, r) < middle
            if to_c1:
                n1 = n1 + 1
                for t in range(r):
                    acc1[t] = acc1[t] + P[j * r + t]
            else:
                for t in range(r):
                    acc0[t] = acc0[t] + P[j * r + t]
        if n1 == 0 or n1 == m:
            break
        for t in range(r):
            c0[t] = acc0[t] / <double>(m - n1)
            c1[t] = acc1[t] / <double>n1
    for t in range(r):
        w[t] = c0[t] - c1[t]


def forest_tree(S, seed, tree, leaf_size, children, normals, offsets, leaf_start, items):
    """Build tree number ``tree`` over the rows of ``S`` (twin of the reference)."""
    cdef const double[:, ::1] X = S
    cdef int32_t[:, ::1] ch = children
    cdef double[:, ::1] nv = normals
    cdef double[::1] off = offsets
    cdef int64_t[::1] ls = leaf_start
    cdef int32_t[::1] it = items
    cdef Py_ssize_t n = X.shape[0], r = X.shape[1]
    cdef uint64_t sd = <uint64_t>seed
    cdef int64_t tr = tree, leaf = leaf_size
    cdef int rounds = SPLIT_ROUNDS
    cdef Py_ssize_t sample_max = SPLIT_SAMPLE
    if n < 1 or r < 1 or leaf < 1:
        raise ValueError("forest_tree: needs rows, coordinates and leaf_size >= 1")
    if n > 2**31 - 1:
        raise ValueError("forest_tree: more rows than int32 numbers")
    if nv.shape[0] != ch.shape[0] or off.shape[0] != ch.shape[0] or nv.shape[1] != r \
            or it.shape[0] != n or ls.shape[0] < 2:
        raise ValueError("forest_tree: children, normals and offsets need a row per node, "
                         "normals S's width, items a place per row")
    cdef Py_ssize_t max_nodes = ch.shape[0], max_leaves = ls.shape[0] - 1
    cdef bint overflowed = False
    cdef int32_t* perm = <int32_t*>malloc(n * sizeof(int32_t))
    cdef Keyed* keyed = <Keyed*>malloc(n * sizeof(Keyed))
    cdef Keyed* chosen = <Keyed*>malloc(n * sizeof(Keyed))
    cdef double* P = <double*>malloc(sample_max * r * sizeof(double))
    cdef double* work = <double*>malloc(5 * r * sizeof(double))
    # the pending nodes: (node, lo, hi); the depth is at most log2(n) + 1 and each
    # level leaves one node pending, so n entries are more than enough
    cdef int64_t* stack = <int64_t*>malloc(3 * (n + 1) * sizeof(int64_t))
    if perm == NULL or keyed == NULL or chosen == NULL or P == NULL or work == NULL \
            or stack == NULL:
        free(perm); free(keyed); free(chosen); free(P); free(work); free(stack)
        raise MemoryError()
    cdef double* w = work + 4 * r
    cdef Py_ssize_t i, j, t, size, m, half, depth = 1
    cdef int64_t node, lo, hi, first, n_nodes = 1, n_leaves = 0
    cdef Keyed pivot
    cdef double below
    with nogil:
        for i in range(n):
            perm[i] = <int32_t>i
        stack[0] = 0
        stack[1] = 0
        stack[2] = n
        ls[0] = 0
        while depth > 0:
            depth = depth - 1
            node = stack[3 * depth]
            lo = stack[3 * depth + 1]
            hi = stack[3 * depth + 2]
            size = hi - lo
            if size <= leaf:
                if n_leaves >= max_leaves:
                    overflowed = True
                    break
                ch[node, 0] = -1
                ch[node, 1] = <int32_t>n_leaves
                for t in range(r):
                    nv[node, t] = 0.0
                off[node] = 0.0
                for i in range(lo, hi):
                    it[i] = perm[i]
                n_leaves = n_leaves + 1
                ls[n_leaves] = hi
                continue
            if n_nodes + 2 > max_nodes:
                overflowed = True
                break
            m = size if size < sample_max else sample_max
            # the reference's _sample: the first two positions distinct
            first = _draw(sd, tr, node, 0, size)
            memcpy(P, &X[perm[lo + first], 0], r * sizeof(double))
            memcpy(P + r, &X[perm[lo + (first + 1 + _draw(sd, tr, node, 1, size - 1)) % size], 0],
                   r * sizeof(double))
            for j in range(2, m):
                memcpy(P + j * r, &X[perm[lo + _draw(sd, tr, node, j, size)], 0],
                       r * sizeof(double))
            _split_direction(P, m, r, work, work + r, work + 2 * r, work + 3 * r, rounds, w)
            for i in range(size):
                keyed[i].row = perm[lo + i]
                keyed[i].key = _dot(&X[keyed[i].row, 0], w, r)
            half = size // 2
            # the half-th smallest (key, row): the first of the right half
            memcpy(chosen, keyed, size * sizeof(Keyed))
            pivot = _select(chosen, size, half)
            # each half keeps the node's order of its rows, as in the reference
            j = 0
            below = -INFINITY
            for i in range(size):
                if _worse(&pivot, &keyed[i]):
                    perm[lo + j] = keyed[i].row
                    j = j + 1
                    if keyed[i].key > below:
                        below = keyed[i].key
            for i in range(size):
                if not _worse(&pivot, &keyed[i]):
                    perm[lo + j] = keyed[i].row
                    j = j + 1
            for t in range(r):
                nv[node, t] = w[t]
            off[node] = (below + pivot.key) * 0.5
            ch[node, 0] = <int32_t>n_nodes
            ch[node, 1] = <int32_t>(n_nodes + 1)
            stack[3 * depth] = n_nodes + 1
            stack[3 * depth + 1] = lo + half
            stack[3 * depth + 2] = hi
            stack[3 * depth + 3] = n_nodes
            stack[3 * depth + 4] = lo
            stack[3 * depth + 5] = lo + half
            depth = depth + 2
            n_nodes = n_nodes + 2
    free(perm); free(keyed); free(chosen); free(P); free(work); free(stack)
    if overflowed:
        raise ValueError("forest_tree: the arrays hold fewer nodes or leaves than the tree "
                         "(smallvis.inputs.search_forest.tree_size)")


# ---- the queries ---------------------------------------------------------------

cdef struct Queued:
    double priority
    int32_t node


cdef inline bint _above(double p, int32_t a, double q, int32_t b) noexcept nogil:
    """Whether (p, a) is taken before (q, b): higher priority, then higher node."""
    return p > q or (p == q and a > b)


cdef struct Walk:
    Queued* queue
    Py_ssize_t capacity
    int32_t* reached
    Keyed* best
    int32_t* stamp


cdef int _push(Walk* wk, Py_ssize_t* size, double p, int32_t node) noexcept nogil:
    cdef Py_ssize_t i = size[0], parent
    cdef Queued* grown
    if i == wk.capacity:
        grown = <Queued*>realloc(wk.queue, 2 * wk.capacity * sizeof(Queued))
        if grown == NULL:
            return -1
        wk.queue = grown
        wk.capacity = 2 * wk.capacity
    size[0] = i + 1
    while i > 0:
        parent = (i - 1) // 2
        if not _above(p, node, wk.queue[parent].priority, wk.queue[parent].node):
            break
        wk.queue[i] = wk.queue[parent]
        i = parent
    wk.queue[i].priority = p
    wk.queue[i].node = node
    return 0


cdef Queued _pop(Queued* q, Py_ssize_t* size) noexcept nogil:
    cdef Queued top = q[0], last
    cdef Py_ssize_t n, i = 0, c
    size[0] = size[0] - 1
    n = size[0]
    last = q[n]
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and _above(q[c + 1].priority, q[c + 1].node, q[c].priority, q[c].node):
            c = c + 1
        if not _above(q[c].priority, q[c].node, last.priority, last.node):
            break
        q[i] = q[c]
        i = c
    q[i] = last
    return top


cdef void _sift_down(Keyed* h, Py_ssize_t n, Py_ssize_t i) noexcept nogil:
    """Restore the max-heap (worst first) of h[0:n] below i."""
    cdef Py_ssize_t c
    cdef Keyed x = h[i]
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and _worse(&h[c + 1], &h[c]):
            c = c + 1
        if not _worse(&h[c], &x):
            break
        h[i] = h[c]
        i = c
    h[i] = x


cdef int _walk(Py_ssize_t i, const double[:, ::1] X, const int32_t[::1] rt,
               const int32_t[:, ::1] ch, const double[:, ::1] nv, const double[::1] off,
               const int64_t[::1] ls, const int32_t[::1] it, int64_t search_k,
               int32_t[:, ::1] o, Walk* wk) noexcept nogil:
    cdef Py_ssize_t r = X.shape[1], m = o.shape[1], size = 0, n_reached = 0
    cdef Py_ssize_t j, kept = 0
    cdef int64_t count = 0, a, b
    cdef Queued top
    cdef int32_t node, row
    cdef double mu
    cdef Keyed cand
    for j in range(rt.shape[0]):
        if _push(wk, &size, INFINITY, rt[j]):
            return -1
    while count < search_k and size > 0:
        top = _pop(wk.queue, &size)
        node = top.node
        if ch[node, 0] < 0:
            a = ls[ch[node, 1]]
            b = ls[ch[node, 1] + 1]
            count = count + (b - a)
            for j in range(a, b):
                row = it[j]
                if wk.stamp[row] != i:
                    wk.stamp[row] = <int32_t>i
                    wk.reached[n_reached] = row
                    n_reached = n_reached + 1
            continue
        mu = _dot(&nv[node, 0], &X[i, 0], r) - off[node]
        if _push(wk, &size, mu if mu < top.priority else top.priority, ch[node, 1]):
            return -1
        if _push(wk, &size, -mu if -mu < top.priority else top.priority, ch[node, 0]):
            return -1
    # the m best (distance, row) in a heap whose root is the worst kept
    for j in range(n_reached):
        cand.row = wk.reached[j]
        cand.key = _sq_dist(&X[cand.row, 0], &X[i, 0], r)
        if kept < m:
            wk.best[kept] = cand
            kept = kept + 1
            if kept == m:
                for a in range(m // 2 - 1, -1, -1):
                    _sift_down(wk.best, m, a)
        elif _worse(&wk.best[0], &cand):
            wk.best[0] = cand
            _sift_down(wk.best, m, 0)
    qsort(wk.best, kept, sizeof(Keyed), _by_key_then_row)
    for j in range(m):
        o[i, j] = wk.best[j].row if j < kept else -1
    return 0


def forest_query(S, roots, children, normals, offsets, leaf_start, items, search_k, out,
                 n_threads, start=0, stop=None):
    """The rows each row's walk of the forest reaches, nearest first (twin of the reference)."""
    cdef const double[:, ::1] X = S
    cdef const int32_t[::1] rt = roots
    cdef const int32_t[:, ::1] ch = children
    cdef const double[:, ::1] nv = normals
    cdef const double[::1] off = offsets
    cdef const int64_t[::1] ls = leaf_start
    cdef const int32_t[::1] it = items
    cdef int32_t[:, ::1] o = out
    cdef int64_t sk = search_k
    cdef Py_ssize_t n = X.shape[0], m = o.shape[1], i, j
    cdef Py_ssize_t first = start, last = n if stop is None else stop
    cdef int nt = max(1, int(n_threads)), failed = 0, ready
    cdef Py_ssize_t widest = int(np.max(np.diff(leaf_start))) if len(leaf_start) > 1 else 0
    cdef Py_ssize_t room = (sk if sk > 0 else 0) + widest + 1
    cdef Walk* wk
    if o.shape[0] != n or nv.shape[1] != X.shape[1] or ch.shape[0] != nv.shape[0]:
        raise ValueError("forest_query: out needs a row per row of S, and the forest "
                         "a normal of S's width per node")
    if not 0 <= first <= last <= n:
        raise ValueError("forest_query: needs 0 <= start <= stop <= len(S)")
    if room > n + widest + 1:
        room = n + widest + 1
    if m < 1:
        raise ValueError("forest_query: out needs at least one column")
    with nogil, parallel(num_threads=nt):
        ready = 0
        wk = <Walk*>malloc(sizeof(Walk))
        if wk != NULL:
            wk.capacity = 64 + 2 * rt.shape[0]
            wk.queue = <Queued*>malloc(wk.capacity * sizeof(Queued))
            wk.reached = <int32_t*>malloc(room * sizeof(int32_t))
            wk.best = <Keyed*>malloc((m + 1) * sizeof(Keyed))
            wk.stamp = <int32_t*>malloc(n * sizeof(int32_t))
            if wk.queue != NULL and wk.reached != NULL and wk.best != NULL \
                    and wk.stamp != NULL:
                ready = 1
                for j in range(n):
                    wk.stamp[j] = -1
        for i in prange(first, last, schedule="dynamic", chunksize=64):
            if not ready:
                failed += 1
            elif _walk(i, X, rt, ch, nv, off, ls, it, sk, o, wk):
                failed += 1
        if wk != NULL:
            free(wk.queue); free(wk.reached); free(wk.best); free(wk.stamp)
            free(wk)
    if failed:
        raise MemoryError("forest_query: out of memory for a walk's queue")


cdef inline uint64_t _order_key(double v) noexcept nogil:
    """An unsigned key that sorts as ``v`` does; -0.0 and 0.0 get the same key (they are equal)."""
    cdef uint64_t b
    memcpy(&b, &v, sizeof(double))
    if (b << 1) == 0:  # either zero
        return 0x8000000000000000ULL
    if b >> 63:
        return ~b
    return b | 0x8000000000000000ULL


cdef int _split_part(const double* S, Py_ssize_t r, int64_t* rows,
                     Py_ssize_t size) noexcept nogil:
    """Rank a part's ``size`` rows by its widest coordinate, in place, ties in place order.

    A stable sort: one pass of 256 buckets per byte of the keys
    (:func:`_order_key`), least significant first, skipping the bytes that
    all keys share.  Returns -1 when out of memory.
    """
    cdef double* low = <double*>malloc(2 * r * sizeof(double))
    cdef uint64_t* keys = <uint64_t*>malloc(2 * size * sizeof(uint64_t))
    cdef int64_t* moved = <int64_t*>malloc(size * sizeof(int64_t))
    cdef double* high
    cdef const double* x
    cdef uint64_t* other
    cdef uint64_t* swap_keys
    cdef int64_t* swap_rows
    cdef int64_t* src_rows
    cdef int64_t* dst_rows
    cdef uint64_t differ
    cdef Py_ssize_t count[256]
    cdef Py_ssize_t j, c, widest = 0, at, total
    cdef int byte
    cdef double v, span
    if low == NULL or keys == NULL or moved == NULL:
        free(low)
        free(keys)
        free(moved)
        return -1
    high = low + r
    x = S + rows[0] * r
    for c in range(r):
        low[c] = x[c]
        high[c] = x[c]
    for j in range(1, size):
        if j + _ROWS_AHEAD < size:
            # a part's rows lie anywhere in S: their lines are asked for ahead
            x = S + rows[j + _ROWS_AHEAD] * r
            for c in range(0, r, 8):
                _prefetch(x + c)
        x = S + rows[j] * r
        for c in range(r):  # as conditional moves, which the compiler turns into vector min/max
            v = x[c]
            low[c] = v if v < low[c] else low[c]
            high[c] = v if v > high[c] else high[c]
    span = high[0] - low[0]
    for c in range(1, r):
        if high[c] - low[c] > span:
            span = high[c] - low[c]
            widest = c
    for j in range(size):
        keys[j] = _order_key(S[rows[j] * r + widest])
    differ = 0
    for j in range(1, size):
        differ = differ | (keys[j] ^ keys[0])
    other = keys + size
    src_rows = rows
    dst_rows = moved
    for byte in range(8):
        if ((differ >> (8 * byte)) & 0xFF) == 0:
            continue  # every key has this byte: the pass would move nothing
        for c in range(256):
            count[c] = 0
        for j in range(size):
            count[(keys[j] >> (8 * byte)) & 0xFF] += 1
        total = 0
        for c in range(256):
            at = count[c]
            count[c] = total
            total = total + at
        for j in range(size):
            c = (keys[j] >> (8 * byte)) & 0xFF
            other[count[c]] = keys[j]
            dst_rows[count[c]] = src_rows[j]
            count[c] += 1
        swap_keys = keys
        keys = other
        other = swap_keys
        swap_rows = src_rows
        src_rows = dst_rows
        dst_rows = swap_rows
    if src_rows != rows:
        memcpy(rows, src_rows, size * sizeof(int64_t))
    if keys > other:  # free the block from its start
        keys = other
    free(keys)
    free(moved)
    free(low)
    return 0


def leaf_order(S, leaf_size, order, n_threads):
    """The rows of ``S`` ordered leaf by leaf of a median-split tree (twin of the reference).

    The parts of one depth are split at once on the threads: each part is
    its own run of ``order``, and its split reads only its own rows.
    """
    cdef const double[:, ::1] X = S
    cdef int64_t[::1] o = order
    cdef Py_ssize_t n = X.shape[0], r = X.shape[1], s, count, nxt, size, half
    cdef int64_t leaf = leaf_size
    cdef int nt = max(1, int(n_threads)), failed = 0
    if o.shape[0] != n:
        raise ValueError("leaf_order: order needs one entry per row of S")
    if leaf < 1 or r < 1:
        raise ValueError("leaf_order: needs leaf_size >= 1 and S with a column at least")
    for s in range(n):
        o[s] = s
    if n <= leaf:
        return
    # the parts still to split at this depth: (start, size), left to right
    cdef int64_t[:, ::1] parts = np.empty((n // (leaf + 1) + 1, 2), dtype=np.int64)
    cdef int64_t[:, ::1] below = np.empty((n // (leaf + 1) + 1, 2), dtype=np.int64)
    cdef int64_t[:, ::1] swap
    parts[0, 0] = 0
    parts[0, 1] = n
    count = 1
    while count:
        with nogil:
            for s in prange(count, schedule="dynamic", chunksize=1,
                            num_threads=nt if count > 1 else 1):
                if _split_part(&X[0, 0], r, &o[parts[s, 0]], parts[s, 1]):
                    failed += 1
        if failed:
            raise MemoryError("leaf_order: out of memory for a part's split")
        nxt = 0
        for s in range(count):
            size = parts[s, 1]
            half = size // 2
            if half > leaf:
                below[nxt, 0] = parts[s, 0]
                below[nxt, 1] = half
                nxt += 1
            if size - half > leaf:
                below[nxt, 0] = parts[s, 0] + half
                below[nxt, 1] = size - half
                nxt += 1
        swap = parts
        parts = below
        below = swap
        count = nxt
