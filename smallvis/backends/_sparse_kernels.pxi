# Included by _kernels.pyx: exact distances between rows of sparse input.

cdef extern from "_metric_dists.h" nogil:
    double smallvis_sparse_pair_sq(const int64_t* indptr, const int64_t* indices,
                                   const double* data, int64_t a, int64_t b) noexcept


def sparse_pair_sq_distances(indptr, indices, data, rows, cols, out, n_threads):
    """Squared Euclidean distances of pairs of CSR rows; see the reference twin."""
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = indices
    cdef const double[::1] dx = data
    cdef const int64_t[::1] ra = rows
    cdef const int64_t[::1] rb = cols
    cdef double[::1] o = out
    cdef Py_ssize_t m = ra.shape[0], t
    cdef int nt = max(1, min(<int>n_threads, <int>m)) if m > 0 else 1
    if m == 0:
        return
    with nogil:
        for t in prange(m, schedule="static", num_threads=nt):
            o[t] = smallvis_sparse_pair_sq(&ip[0], &ix[0] if ix.shape[0] else NULL,
                                           &dx[0] if dx.shape[0] else NULL, ra[t], rb[t])
