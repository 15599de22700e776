# cython: language_level=3
# cython: boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The sparse product of the spectral start, re-exported by :mod:`smallvis.backends._kernels`.

Twin of :func:`smallvis.backends.reference.csr_matvec`: ``A @ x`` with
each row's terms added one after another, in stored order, from 0.0, which
is the order of SciPy's own CSR product.  Threads share out the rows, and a
row's sum never depends on another's, so the result has the same bits on
any number of threads and the same bits as the reference.

The eigensolver of the spectral start calls the product hundreds of times,
and its iterates amplify a difference in the last bit into another start
(and so another map), so "the same to rounding" is not enough here.  This
module is therefore its own extension, built, like the stochastic
optimizer's, without the flags that let the compiler regroup floating-point
sums or fuse a multiply with an add (setup.py): with them the compiler is
free to split a row's sum into partial sums (vector lanes), or to round
``a * b + s`` once, and either changes its bits.
"""

from cython.parallel cimport prange
from libc.stdint cimport int32_t, int64_t

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
