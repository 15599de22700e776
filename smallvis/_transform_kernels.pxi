# Included by smallvis/_kernels.pyx: the Cython twins of the transform kernels
# (new points against a fixed reference; see the "transform" section of
# smallvis/reference.py for the formulas).
#
# Each new point s is one row: its squared distances to all N reference
# points, its stored affinities scattered into a dense row, then one pass
# that sums the row's cost and writes grad[s] = 2 sum_j c_sj (y_s - y_j).
# Rows are independent and each is computed by one thread from start to end,
# so the result for a point does not depend on the batch it is in or on
# n_threads; the row costs are summed serially in row order.

cdef enum:
    _TR_GAUSS = 0
    _TR_CAUCHY_KL = 1
    _TR_LARGEVIS = 2
    _TR_LARGEVIS_EXP = 3
    _TR_UMAP = 4
    _TR_TUMAP = 5
    _TR_NCVIS = 6


cdef inline double _xlogy(double x, double y) noexcept nogil:
    return x * log(y) if x > 0.0 else 0.0


cdef double _transform_row(int kind, const double* y, const double* R,
                           Py_ssize_t n, Py_ssize_t dim, const int64_t* ix,
                           const double* dv, int64_t k0, int64_t k1,
                           const double* q, double* d2, double* prow,
                           double* g) noexcept nogil:
    """Cost of row s; writes its gradient to g (dim values) unless g is NULL."""
    cdef Py_ssize_t j, d
    cdef int64_t k
    cdef double diff, s, c, w, u, p, e, qm, r
    cdef double psum = 0.0, z = 0.0, lz = 0.0, dmin = INFINITY, cost = 0.0
    for j in range(n):
        s = 0.0
        for d in range(dim):
            diff = y[d] - R[j * dim + d]
            s = s + diff * diff
        d2[j] = s
    for k in range(k0, k1):
        prow[ix[k]] += dv[k]
        psum += dv[k]
    if g != NULL:
        for d in range(dim):
            g[d] = 0.0
    if kind == _TR_GAUSS:
        for j in range(n):
            dmin = fmin(dmin, d2[j])
        for j in range(n):
            z += exp(-(d2[j] - dmin))
        lz = log(z)
    elif kind == _TR_CAUCHY_KL:
        for j in range(n):
            z += 1.0 / (1.0 + d2[j])
        lz = log(z)
    r = q[1] * psum / n  # ncvis: nu p_n(s)
    for j in range(n):
        p = prow[j]
        c = 0.0
        if kind == _TR_GAUSS:
            e = d2[j] - dmin
            if p > 0.0:
                cost += p * (log(p) + e + lz)
            c = 2.0 * (p - psum * exp(-e - lz))
        elif kind == _TR_CAUCHY_KL:
            w = 1.0 / (1.0 + d2[j])
            if p > 0.0:
                cost += p * (log(p) + log1p(d2[j]) + lz)
            c = 2.0 * (p - psum * w / z) * w
        elif kind == _TR_LARGEVIS:
            u = q[2] * d2[j]
            w = 1.0 / (1.0 + u)
            cost += p * log1p(u) - q[0] * (_floored_log(u) - log1p(u))
            if d2[j] > 0.0:
                c = 2.0 * (q[2] * w * p - q[0] * w / (d2[j] + q[1]))
        elif kind == _TR_LARGEVIS_EXP:
            e = log1p(exp(-d2[j]))
            cost += p * (d2[j] + e) + q[0] * e
            if d2[j] > 0.0:
                w = 1.0 / (1.0 + exp(d2[j]))
                c = 2.0 * ((1.0 - w) * p - q[0] * w)
        elif kind == _TR_UMAP or kind == _TR_TUMAP:
            if kind == _TR_UMAP:
                u = q[0] * exp(q[1] * log(d2[j])) if d2[j] > 0.0 else 0.0
            else:
                u = d2[j]
            w = 1.0 / (1.0 + u)
            cost += (_xlogx(p) + _xlogx(1.0 - p) + p * log1p(u)
                     - (1.0 - p) * (_floored_log(u) - log1p(u)))
            if d2[j] > 0.0:
                if kind == _TR_UMAP:
                    c = 2.0 * q[1] * (p - w) / (d2[j] + q[2])
                else:
                    c = 2.0 * (p - w) * w / (d2[j] * w + q[2])
        else:  # _TR_NCVIS: q = (exp(-Q), nu, a, b)
            w = 1.0 / (1.0 + q[2] * exp(q[3] * log(d2[j]))) if d2[j] > 0.0 else 1.0
            qm = q[0] * w
            cost -= _xlogy(p, qm / (qm + r)) + _xlogy(r, r / (qm + r))
            if d2[j] > 0.0:
                c = (2.0 * r / (qm + r) * (p - qm) * q[2] * q[3]
                     * exp((q[3] - 1.0) * log(d2[j])) * w)
        if g != NULL and c != 0.0:
            for d in range(dim):
                g[d] += c * (y[d] - R[j * dim + d])
    for k in range(k0, k1):
        prow[ix[k]] = 0.0
    return cost


def _transform(int kind, indptr, indices, data, Y, Y_ref, params, grad, n_threads):
    """Run _transform_row over the rows of Y; return the summed cost."""
    cdef Py_ssize_t m = Y.shape[0], n = Y_ref.shape[0], dim = Y.shape[1], s
    if m == 0:
        return 0.0
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = np.ascontiguousarray(indices) if len(indices) else np.zeros(1, dtype=np.int64)
    cdef const double[::1] dv = np.ascontiguousarray(data) if len(data) else np.zeros(1)
    cdef const double[:, ::1] y = Y
    cdef const double[:, ::1] R = Y_ref
    q_arr = np.zeros(4)
    q_arr[:len(params)] = params
    cdef const double[::1] q = q_arr
    cdef int nt = n_threads
    cdef double[:, :, ::1] sc = _scratch(nt, 2, n)
    cdef double[::1] rowcost = np.zeros(m)
    cdef bint want = grad is not None
    cdef double[:, ::1] G = grad if want else np.zeros((1, 1))
    cdef int t
    with nogil:
        for s in prange(m, schedule="static", chunksize=1, num_threads=nt):
            t = threadid()
            rowcost[s] = _transform_row(kind, &y[s, 0], &R[0, 0], n, dim, &ix[0],
                                        &dv[0], ip[s], ip[s + 1], &q[0],
                                        &sc[t, 0, 0], &sc[t, 1, 0],
                                        &G[s, 0] if want else NULL)
    cdef double total = 0.0
    for s in range(m):
        total += rowcost[s]
    return total


def asne_transform_cost(indptr, indices, data, Y, Y_ref, n_threads):
    """Gaussian row KL of new points; see the reference twin."""
    return _transform(_TR_GAUSS, indptr, indices, data, Y, Y_ref, (), None, n_threads)


def asne_transform_gradient(indptr, indices, data, Y, Y_ref, grad, n_threads):
    """Gradient of asne_transform_cost; see the reference twin."""
    _transform(_TR_GAUSS, indptr, indices, data, Y, Y_ref, (), grad, n_threads)


def ssne_transform_cost(indptr, indices, data, Y, Y_ref, n_threads):
    """Gaussian row KL of new points (as asne); see the reference twin."""
    return _transform(_TR_GAUSS, indptr, indices, data, Y, Y_ref, (), None, n_threads)


def ssne_transform_gradient(indptr, indices, data, Y, Y_ref, grad, n_threads):
    """Gradient of ssne_transform_cost; see the reference twin."""
    _transform(_TR_GAUSS, indptr, indices, data, Y, Y_ref, (), grad, n_threads)


def tsne_transform_cost(indptr, indices, data, Y, Y_ref, n_threads):
    """Cauchy row KL of new points; see the reference twin."""
    return _transform(_TR_CAUCHY_KL, indptr, indices, data, Y, Y_ref, (), None, n_threads)


def tsne_transform_gradient(indptr, indices, data, Y, Y_ref, grad, n_threads):
    """Gradient of tsne_transform_cost; see the reference twin."""
    _transform(_TR_CAUCHY_KL, indptr, indices, data, Y, Y_ref, (), grad, n_threads)


def largevis_transform_cost(indptr, indices, data, Y, Y_ref, gamma, eps, alpha, n_threads):
    """LargeVis row terms of new points; see the reference twin."""
    return _transform(_TR_LARGEVIS, indptr, indices, data, Y, Y_ref, (gamma, eps, alpha),
                      None, n_threads)


def largevis_transform_gradient(indptr, indices, data, Y, Y_ref, gamma, eps, alpha, grad,
                                n_threads):
    """Gradient of largevis_transform_cost; see the reference twin."""
    _transform(_TR_LARGEVIS, indptr, indices, data, Y, Y_ref, (gamma, eps, alpha), grad,
               n_threads)


def largevis_exp_transform_cost(indptr, indices, data, Y, Y_ref, gamma, n_threads):
    """Exponential-weight LargeVis row terms; see the reference twin."""
    return _transform(_TR_LARGEVIS_EXP, indptr, indices, data, Y, Y_ref, (gamma,), None,
                      n_threads)


def largevis_exp_transform_gradient(indptr, indices, data, Y, Y_ref, gamma, grad, n_threads):
    """Gradient of largevis_exp_transform_cost; see the reference twin."""
    _transform(_TR_LARGEVIS_EXP, indptr, indices, data, Y, Y_ref, (gamma,), grad, n_threads)


def umap_transform_cost(indptr, indices, data, Y, Y_ref, a, b, eps, n_threads):
    """UMAP row terms of new points; see the reference twin."""
    return _transform(_TR_UMAP, indptr, indices, data, Y, Y_ref, (a, b, eps), None,
                      n_threads)


def umap_transform_gradient(indptr, indices, data, Y, Y_ref, a, b, eps, grad, n_threads):
    """Gradient of umap_transform_cost; see the reference twin."""
    _transform(_TR_UMAP, indptr, indices, data, Y, Y_ref, (a, b, eps), grad, n_threads)


def tumap_transform_cost(indptr, indices, data, Y, Y_ref, eps, n_threads):
    """t-UMAP row terms of new points; see the reference twin."""
    return _transform(_TR_TUMAP, indptr, indices, data, Y, Y_ref, (0.0, 0.0, eps), None,
                      n_threads)


def tumap_transform_gradient(indptr, indices, data, Y, Y_ref, eps, grad, n_threads):
    """Gradient of tumap_transform_cost; see the reference twin."""
    _transform(_TR_TUMAP, indptr, indices, data, Y, Y_ref, (0.0, 0.0, eps), grad, n_threads)


def ncvis_transform_cost(indptr, indices, data, Y, Y_ref, Q, nu, a, b, n_threads):
    """NCVis row terms of new points, Q fixed; see the reference twin."""
    return _transform(_TR_NCVIS, indptr, indices, data, Y, Y_ref,
                      (exp(-<double>Q), nu, a, b), None, n_threads)


def ncvis_transform_gradient(indptr, indices, data, Y, Y_ref, Q, nu, a, b, grad, n_threads):
    """Gradient of ncvis_transform_cost; see the reference twin."""
    _transform(_TR_NCVIS, indptr, indices, data, Y, Y_ref, (exp(-<double>Q), nu, a, b), grad,
               n_threads)
