# Included by _kernels.pyx: exact distances between rows of sparse input.

cdef extern from "_metric_dists.h" nogil:
    double smallvis_sparse_pair_sq(const int64_t* indptr, const int64_t* indices,
                                   const double* data, int64_t a, int64_t b) noexcept
    void smallvis_sparse_row_dots(const int64_t* indptr, const int64_t* indices,
                                  const double* data, const int64_t* col_indptr,
                                  const int64_t* col_rows, const double* col_data,
                                  int64_t a, int64_t n, double* out) noexcept
    int64_t smallvis_sparse_row_nearest(const int64_t* indptr, const int64_t* indices,
                                        const double* data, const int64_t* col_indptr,
                                        const int64_t* col_rows, const double* col_data,
                                        const double* half_sq, int64_t a, int64_t skip,
                                        int64_t n, int64_t width, double slack, double* dots,
                                        double* keys, int64_t* idx) noexcept


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


def sparse_row_dots(indptr, indices, data, col_indptr, col_rows, col_data, rows, out,
                    n_threads):
    """Dot products of some CSR rows with every row; see the reference twin."""
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = indices
    cdef const double[::1] dx = data
    cdef const int64_t[::1] cp = col_indptr
    cdef const int64_t[::1] cr = col_rows
    cdef const double[::1] cd = col_data
    cdef const int64_t[::1] ra = rows
    cdef double[:, ::1] o = out
    cdef Py_ssize_t m = ra.shape[0], n = o.shape[1], t
    cdef int nt = max(1, min(<int>n_threads, <int>m)) if m > 0 else 1
    if m == 0:
        return
    with nogil:
        for t in prange(m, schedule="static", num_threads=nt):
            smallvis_sparse_row_dots(&ip[0], &ix[0] if ix.shape[0] else NULL,
                                     &dx[0] if dx.shape[0] else NULL, &cp[0],
                                     &cr[0] if cr.shape[0] else NULL,
                                     &cd[0] if cd.shape[0] else NULL, ra[t], n, &o[t, 0])


def sparse_row_nearest(indptr, indices, data, col_indptr, col_rows, col_data, half_sq, rows,
                       skip, slack, out_idx, out_count, n_threads):
    """Each row's ``width`` smallest keys ``half_sq - x_a . X^T``; see the reference twin."""
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = indices
    cdef const double[::1] dx = data
    cdef const int64_t[::1] cp = col_indptr
    cdef const int64_t[::1] cr = col_rows
    cdef const double[::1] cd = col_data
    cdef const double[::1] hs = half_sq
    cdef const int64_t[::1] ra = rows
    cdef const int64_t[::1] sk = skip
    cdef const double[::1] sl = slack
    cdef int64_t[:, ::1] oi = out_idx
    cdef int64_t[::1] oc = out_count
    cdef Py_ssize_t m = ra.shape[0], n = hs.shape[0], width = oi.shape[1], t
    cdef int nt = max(1, min(<int>n_threads, <int>m)) if m > 0 else 1
    if m == 0:
        return
    cdef double[:, ::1] dots = np.empty((nt, n))
    cdef double[:, ::1] keys = np.empty((nt, width))
    cdef int tid
    with nogil:
        for t in prange(m, schedule="static", num_threads=nt):
            tid = threadid()
            oc[t] = smallvis_sparse_row_nearest(
                &ip[0], &ix[0] if ix.shape[0] else NULL, &dx[0] if dx.shape[0] else NULL,
                &cp[0], &cr[0] if cr.shape[0] else NULL, &cd[0] if cd.shape[0] else NULL,
                &hs[0], ra[t], sk[t], n, width, sl[t], &dots[tid, 0], &keys[tid, 0],
                &oi[t, 0])
