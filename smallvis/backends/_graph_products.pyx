# cython: language_level=3
# cython: boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The spectral start's graph kernels, re-exported by :mod:`smallvis.backends._kernels`.

``csr_matvec``, twin of :func:`smallvis.backends.reference.csr_matvec`:
``A @ x`` with each row's terms added one after another, in stored order,
from 0.0, which is the order of SciPy's own CSR product.  Threads share
out the rows, and a row's sum never depends on another's, so the result
has the same bits on any number of threads and the same bits as the
reference.

The eigensolver of the spectral start calls the product hundreds of times,
and its iterates amplify a difference in the last bit into another start
(and so another map), so "the same to rounding" is not enough here.  This
module is therefore its own extension, built, like the stochastic
optimizer's, without the flags that let the compiler regroup floating-point
sums or fuse a multiply with an add (setup.py): with them the compiler is
free to split a row's sum into partial sums (vector lanes), or to round
``a * b + s`` once, and either changes its bits.

``row_strongest``, twin of :func:`smallvis.backends.reference.row_strongest`:
the graph the ``"name:K"`` inits lay out, each row's ``K`` strongest
entries, chosen by a selection in each row (no arithmetic) on threads.
"""

from cython.parallel cimport prange, threadid
from libc.stdint cimport int32_t, int64_t, uint8_t

import numpy as np

ctypedef fused column_t:
    int32_t
    int64_t


def csr_matvec(indptr, indices, data, x, out, n_threads):
    """``out = A @ x`` for the CSR matrix ``A = (indptr, indices, data)``, rows in parallel.

    ``indices`` may be int32 (SciPy's own, for fewer than 2**31 entries) or
    int64: the product reads a third less memory with int32 columns, and
    has the same bits with either.
    """
    cdef const int64_t[::1] ip = indptr
    cdef const double[::1] a = data
    cdef const double[::1] v = x
    cdef double[::1] y = out
    cdef Py_ssize_t n = y.shape[0]
    cdef int nt = max(1, int(n_threads))
    if ip.shape[0] != n + 1 or indices.shape[0] != a.shape[0] or (n and ip[n] > a.shape[0]):
        raise ValueError("csr_matvec: indptr must have len(out) + 1 entries, and "
                         "indices and data one per stored entry")
    if indices.dtype == np.int32:
        _rows[int32_t](ip, indices, a, v, y, nt)
    else:
        _rows[int64_t](ip, indices, a, v, y, nt)


cdef void _rows(const int64_t[::1] ip, const column_t[::1] ix, const double[::1] a,
                const double[::1] v, double[::1] y, int nt) noexcept:
    cdef Py_ssize_t n = y.shape[0], i
    cdef int64_t jj
    cdef double s
    with nogil:
        for i in prange(n, schedule="static", num_threads=nt):
            s = 0.0
            for jj in range(ip[i], ip[i + 1]):
                s = s + a[jj] * v[ix[jj]]
            y[i] = s


def row_strongest(indptr, indices, data, k, keep, n_threads):
    """Mark each row's ``k`` strongest stored entries in ``keep``; see the reference twin.

    A row's entries are copied into its thread's buffer and the ``k``-th
    strongest is found by a selection (Hoare's partition, middle pivot):
    the order is strict, so that entry, and the entries kept, are the same
    whatever the pivots.
    """
    cdef const int64_t[::1] ip = indptr
    cdef const double[::1] a = data
    cdef uint8_t[::1] out = keep
    cdef Py_ssize_t n = ip.shape[0] - 1
    if k < 1 or indices.shape[0] != a.shape[0] or out.shape[0] != a.shape[0] or \
            (n >= 0 and ip[n] > a.shape[0]):
        raise ValueError("row_strongest: k must be at least 1, and indices, data and keep "
                         "must have one entry per stored entry")
    widest = int(np.diff(indptr).max()) if n > 0 else 0
    nt = max(1, min(int(n_threads), max(n, 1)))
    values = np.empty((nt, max(widest, 1)))
    columns = np.empty((nt, max(widest, 1)), dtype=np.int64)
    out[:] = 0
    if indices.dtype == np.int32:
        _strongest[int32_t](ip, indices, a, k, out, values, columns, nt)
    else:
        _strongest[int64_t](ip, indices, a, k, out, values, columns, nt)


cdef inline bint _stronger(double v, int64_t c, double w, int64_t d) noexcept nogil:
    return v > w or (v == w and c < d)


cdef void _strongest(const int64_t[::1] ip, const column_t[::1] ix, const double[::1] a,
                     Py_ssize_t k, uint8_t[::1] out, double[:, ::1] values,
                     int64_t[:, ::1] columns, int nt) noexcept:
    cdef Py_ssize_t n = ip.shape[0] - 1, i, t, m, lo, hi, p, q, mid
    cdef int tid
    cdef double* v
    cdef int64_t* c
    cdef double pv, kv, tv
    cdef int64_t pc, kc, tc
    with nogil:
        for i in prange(n, schedule="dynamic", chunksize=256, num_threads=nt):
            m = ip[i + 1] - ip[i]
            if m <= k:
                for t in range(ip[i], ip[i + 1]):
                    out[t] = 1
                continue
            tid = threadid()
            v = &values[tid, 0]
            c = &columns[tid, 0]
            for t in range(m):
                v[t] = a[ip[i] + t]
                c[t] = ix[ip[i] + t]
            # select: position k - 1 gets the k-th strongest, the stronger before it
            lo = 0
            hi = m - 1
            while lo < hi:
                mid = lo + (hi - lo) // 2
                pv = v[mid]
                pc = c[mid]
                p = lo
                q = hi
                while p <= q:
                    while _stronger(v[p], c[p], pv, pc):
                        p = p + 1
                    while _stronger(pv, pc, v[q], c[q]):
                        q = q - 1
                    if p <= q:
                        tv = v[p]; v[p] = v[q]; v[q] = tv
                        tc = c[p]; c[p] = c[q]; c[q] = tc
                        p = p + 1
                        q = q - 1
                if k - 1 <= q:
                    hi = q
                elif k - 1 >= p:
                    lo = p
                else:
                    break
            kv = v[k - 1]
            kc = c[k - 1]
            for t in range(ip[i], ip[i + 1]):
                if not _stronger(kv, kc, a[t], ix[t]):
                    out[t] = 1
