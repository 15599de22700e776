# Included by smallvis/_kernels.pyx: the Cython twins of the transform kernels
# (new points against a fixed reference; see the "transform" section of
# smallvis/reference.py for the formulas).
#
# Each new point s is one row: its squared distances to all N reference
# points, its stored affinities scattered into a dense row, then the
# coefficients c_sj and grad[s] = sum_j c_sj (y_s - y_j) (C loops below), or
# the row's cost.
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


cdef extern from *:
    """
    /* The gradient loops of one new point s against the n reference points,
     * in C so that each is a plain loop the compiler vectorises (with the
     * vector exp/log of _pairloops.h when available) and clones per
     * instruction set.  d2: squared distances; p: the dense row of P; q: the
     * method's parameters; c: output coefficients c_sj, so that
     * grad_s = sum_j c_sj (y_s - y_j).  Coincident pairs get c = 0 where the
     * reference twin removes them. */
    static SMALLVIS_CLONES void smallvis_tr_sq_dists(
        const double* Rt, Py_ssize_t n, Py_ssize_t dim, const double* y, double* d2)
    {
        for (Py_ssize_t j = 0; j < n; j++) d2[j] = 0.0;
        for (Py_ssize_t d = 0; d < dim; d++) {
            const double* r = Rt + d * n;
            const double yd = y[d];
            for (Py_ssize_t j = 0; j < n; j++) {
                const double diff = yd - r[j];
                d2[j] += diff * diff;
            }
        }
    }

    static SMALLVIS_CLONES void smallvis_tr_coef(
        int kind, const double* d2, const double* p, Py_ssize_t n, double psum,
        const double* q, double* c)
    {
        Py_ssize_t j;
        double z = 0.0, dmin = INFINITY;
        switch (kind) {
        case 0:  /* Gaussian row KL */
            for (j = 0; j < n; j++) dmin = d2[j] < dmin ? d2[j] : dmin;
            for (j = 0; j < n; j++) { c[j] = exp(-(d2[j] - dmin)); z += c[j]; }
            for (j = 0; j < n; j++) c[j] = 2.0 * (p[j] - psum * c[j] / z);
            break;
        case 1:  /* Cauchy row KL */
            for (j = 0; j < n; j++) { c[j] = 1.0 / (1.0 + d2[j]); z += c[j]; }
            for (j = 0; j < n; j++) c[j] = 2.0 * (p[j] - psum * c[j] / z) * c[j];
            break;
        case 2: {  /* LargeVis: q = (gamma, eps, alpha) */
            const double gamma = q[0], eps = q[1], alpha = q[2];
            for (j = 0; j < n; j++) {
                const double w = 1.0 / (1.0 + alpha * d2[j]);
                const double v = 2.0 * (alpha * w * p[j] - gamma * w / (d2[j] + eps));
                c[j] = d2[j] > 0.0 ? v : 0.0;
            }
            break;
        }
        case 3: {  /* LargeVis, exponential weight: q = (gamma,) */
            const double gamma = q[0];
            for (j = 0; j < n; j++) {
                const double w = 1.0 / (1.0 + exp(d2[j]));
                const double v = 2.0 * ((1.0 - w) * p[j] - gamma * w);
                c[j] = d2[j] > 0.0 ? v : 0.0;
            }
            break;
        }
        case 4: {  /* UMAP: q = (a, b, eps) */
            const double a = q[0], b = q[1], eps = q[2];
            for (j = 0; j < n; j++) {
                const double dd = d2[j] > 0.0 ? d2[j] : 1.0;
                const double w = 1.0 / (1.0 + a * SMALLVIS_POW_POS(dd, b));
                const double v = 2.0 * b * (p[j] - w) / (d2[j] + eps);
                c[j] = d2[j] > 0.0 ? v : 0.0;
            }
            break;
        }
        case 5: {  /* t-UMAP: q = (0, 0, eps) */
            const double eps = q[2];
            for (j = 0; j < n; j++) {
                const double w = 1.0 / (1.0 + d2[j]);
                const double v = 2.0 * (p[j] - w) * w / (d2[j] * w + eps);
                c[j] = d2[j] > 0.0 ? v : 0.0;
            }
            break;
        }
        default: {  /* NCVis: q = (exp(-Q), nu, a, b) */
            const double e = q[0], a = q[2], b = q[3];
            const double r = q[1] * psum / (double)n;
            for (j = 0; j < n; j++) {
                const double dd = d2[j] > 0.0 ? d2[j] : 1.0;
                const double t = SMALLVIS_POW_POS(dd, b);
                const double qh = 1.0 / (1.0 + a * t);
                const double qm = e * qh;
                const double v = 2.0 * r / (qm + r) * (p[j] - qm) * a * b * (t / dd) * qh;
                c[j] = d2[j] > 0.0 ? v : 0.0;
            }
        }
        }
    }

    static SMALLVIS_CLONES double smallvis_tr_force(
        const double* Rt, Py_ssize_t n, const double* c, double yd)
    {
        double s = 0.0;
        for (Py_ssize_t j = 0; j < n; j++) s += c[j] * (yd - Rt[j]);
        return s;
    }
    """
    void smallvis_tr_sq_dists(const double* Rt, Py_ssize_t n, Py_ssize_t dim,
                              const double* y, double* d2) noexcept nogil
    void smallvis_tr_coef(int kind, const double* d2, const double* p, Py_ssize_t n,
                          double psum, const double* q, double* c) noexcept nogil
    double smallvis_tr_force(const double* Rt, Py_ssize_t n, const double* c,
                             double yd) noexcept nogil


cdef inline double _xlogy(double x, double y) noexcept nogil:
    return x * log(y) if x > 0.0 else 0.0


cdef double _transform_row_cost(int kind, const double* d2, const double* prow,
                                Py_ssize_t n, double psum,
                                const double* q) noexcept nogil:
    """The row's cost (see the reference twins); run once per call, not per step."""
    cdef Py_ssize_t j
    cdef double p, u, e, w, qm, cost = 0.0, z = 0.0, lz = 0.0, dmin = INFINITY
    cdef double r = q[1] * psum / n  # ncvis: nu p_n(s)
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
    for j in range(n):
        p = prow[j]
        if kind == _TR_GAUSS:
            if p > 0.0:
                cost += p * (log(p) + (d2[j] - dmin) + lz)
        elif kind == _TR_CAUCHY_KL:
            if p > 0.0:
                cost += p * (log(p) + log1p(d2[j]) + lz)
        elif kind == _TR_LARGEVIS:
            u = q[2] * d2[j]
            cost += p * log1p(u) - q[0] * (_floored_log(u) - log1p(u))
        elif kind == _TR_LARGEVIS_EXP:
            e = log1p(exp(-d2[j]))
            cost += p * (d2[j] + e) + q[0] * e
        elif kind == _TR_UMAP or kind == _TR_TUMAP:
            if kind == _TR_UMAP:
                u = q[0] * exp(q[1] * log(d2[j])) if d2[j] > 0.0 else 0.0
            else:
                u = d2[j]
            cost += (_xlogx(p) + _xlogx(1.0 - p) + p * log1p(u)
                     - (1.0 - p) * (_floored_log(u) - log1p(u)))
        else:
            w = 1.0 / (1.0 + q[2] * exp(q[3] * log(d2[j]))) if d2[j] > 0.0 else 1.0
            qm = q[0] * w
            cost -= _xlogy(p, qm / (qm + r)) + _xlogy(r, r / (qm + r))
    return cost


cdef double _transform_row(int kind, const double* y, const double* Rt,
                           Py_ssize_t n, Py_ssize_t dim, const int64_t* ix,
                           const double* dv, int64_t k0, int64_t k1,
                           const double* q, double* d2, double* prow, double* coef,
                           double* g) noexcept nogil:
    """Row s: its gradient into g (dim values) if g is not NULL, else its cost."""
    cdef Py_ssize_t d
    cdef int64_t k
    cdef double psum = 0.0, cost = 0.0
    smallvis_tr_sq_dists(Rt, n, dim, y, d2)
    for k in range(k0, k1):
        prow[ix[k]] += dv[k]
        psum += dv[k]
    if g != NULL:
        smallvis_tr_coef(kind, d2, prow, n, psum, q, coef)
        for d in range(dim):
            g[d] = smallvis_tr_force(Rt + d * n, n, coef, y[d])
    else:
        cost = _transform_row_cost(kind, d2, prow, n, psum, q)
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
    Rt_arr = np.ascontiguousarray(Y_ref.T)
    cdef const double[:, ::1] Rt = Rt_arr
    q_arr = np.zeros(4)
    q_arr[:len(params)] = params
    cdef const double[::1] q = q_arr
    cdef int nt = n_threads
    cdef double[:, :, ::1] sc = _scratch(nt, 3, n)
    cdef double[::1] rowcost = np.zeros(m)
    cdef bint want = grad is not None
    cdef double[:, ::1] G = grad if want else np.zeros((1, 1))
    cdef int t
    with nogil:
        for s in prange(m, schedule="static", chunksize=1, num_threads=nt):
            t = threadid()
            rowcost[s] = _transform_row(kind, &y[s, 0], &Rt[0, 0], n, dim, &ix[0],
                                        &dv[0], ip[s], ip[s + 1], &q[0],
                                        &sc[t, 0, 0], &sc[t, 1, 0], &sc[t, 2, 0],
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
