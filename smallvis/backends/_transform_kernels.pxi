# Included by smallvis/backends/_kernels.pyx: the Cython twins of the transform kernels
# (new points against a fixed reference; see the "transform" section of
# smallvis/backends/reference/transform.py for the formulas).
#
# Each new point s is one row: its squared distances to all N reference
# points, its stored affinities scattered into a dense row, then the
# coefficients c_sj and grad[s] = sum_j c_sj (y_s - y_j) (C loops of _pairloops.h), or
# the row's cost.
# Rows are independent and each is computed by one thread from start to end,
# so the result for a point does not depend on the batch it is in or on
# n_threads; the row costs are summed serially in row order.

# Each method's row functions are instantiated from its unit
# (smallvis/methods/<method>.h) in _pairloops.h, from the one list of
# methods/units.h; pair_transform_cost and pair_transform_gradient pick a
# unit's table and load its parameters, and the named functions call them.


cdef double _transform_row(const smallvis_transform_unit* unit, const void* params,
                           const double* y, const double* Rt,
                           Py_ssize_t n, Py_ssize_t dim, const int64_t* ix,
                           const double* dv, int64_t k0, int64_t k1,
                           double* d2, double* prow, double* coef,
                           double* g, const double* bw,
                           const smallvis_normalised_unit* nunit,
                           const double* imp, const double* limp) noexcept nogil:
    """Row s: its gradient into g (dim values) if g is not NULL, else its cost.

    bw: the row's bandwidth (a normalised unit's beta_s), or NULL: the
    distances are scaled by it before the unit's hooks, the coefficients after.
    imp, limp: the reference points' importances m_j of a weighted normalised
    unit ``nunit`` and their logs, or NULL: its rows named _a run instead of
    ``unit``'s (the new point's own m_s cancels from its row's normalisation).
    """
    cdef Py_ssize_t d, j
    cdef int64_t k
    cdef double psum = 0.0, cost = 0.0
    smallvis_tr_sq_dists(Rt, n, dim, y, d2)
    if bw != NULL:
        for j in range(n):
            d2[j] *= bw[0]
    for k in range(k0, k1):
        prow[ix[k]] += dv[k]
        psum += dv[k]
    if g != NULL:
        if imp != NULL:
            nunit.self_coef_row_a(d2, prow, imp, n, psum, params, coef)
        else:
            unit.coef_row(d2, prow, n, psum, params, coef)
        if bw != NULL:
            for j in range(n):
                coef[j] *= bw[0]
        for d in range(dim):
            g[d] = smallvis_tr_force(Rt + d * n, n, coef, y[d])
    elif imp != NULL:
        cost = nunit.self_cost_row_a(d2, prow, imp, limp, n, psum, params)
    else:
        cost = unit.cost_row(d2, prow, n, psum, params)
    for k in range(k0, k1):
        prow[ix[k]] = 0.0
    return cost


cdef double _transform(const smallvis_transform_unit* unit, const void* params, indptr,
                       indices, data, Y, Y_train, grad, n_threads, bandwidth=None,
                       const smallvis_normalised_unit* nunit=NULL, importance=None):
    """Run _transform_row over the rows of Y; return the summed cost.

    ``bandwidth``: each new point's own (``row_bandwidths``), or None.
    ``importance``: each reference point's of the weighted normalised unit
    ``nunit`` (``pair_importances``), or None.
    """
    cdef Py_ssize_t m = Y.shape[0], n = Y_train.shape[0], dim = Y.shape[1], s
    if m == 0:
        return 0.0
    bw_arr = None if bandwidth is None else np.ascontiguousarray(bandwidth, dtype=np.float64)
    cdef const double[::1] bwv = bw_arr if bw_arr is not None else np.ones(1)
    cdef bint has_bw = bw_arr is not None
    imp_arr = None if importance is None else np.ascontiguousarray(importance, dtype=np.float64)
    limp_arr = log_importances(imp_arr)
    cdef const double[::1] impv = imp_arr if imp_arr is not None else np.ones(1)
    cdef const double[::1] limpv = limp_arr if imp_arr is not None else np.zeros(1)
    cdef bint has_imp = imp_arr is not None
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = np.ascontiguousarray(indices) if len(indices) else np.zeros(1, dtype=np.int64)
    cdef const double[::1] dv = np.ascontiguousarray(data) if len(data) else np.zeros(1)
    cdef const double[:, ::1] y = Y
    Rt_arr = np.ascontiguousarray(Y_train.T)
    cdef const double[:, ::1] Rt = Rt_arr
    cdef int nt = n_threads
    cdef double[:, :, ::1] sc = _scratch(nt, 3, n)
    cdef double[::1] rowcost = np.zeros(m)
    cdef bint want = grad is not None
    cdef double[:, ::1] G = grad if want else np.zeros((1, 1))
    cdef int t
    with nogil:
        for s in prange(m, schedule="static", chunksize=1, num_threads=nt):
            t = threadid()
            rowcost[s] = _transform_row(unit, params, &y[s, 0], &Rt[0, 0], n, dim, &ix[0],
                                        &dv[0], ip[s], ip[s + 1],
                                        &sc[t, 0, 0], &sc[t, 1, 0], &sc[t, 2, 0],
                                        &G[s, 0] if want else NULL,
                                        &bwv[s] if has_bw else NULL, nunit,
                                        &impv[0] if has_imp else NULL,
                                        &limpv[0] if has_imp else NULL)
    cdef double total = 0.0
    for s in range(m):
        total += rowcost[s]
    return total


# ---- the generic entry points: a unit in, its compiled twin picked from the lists


cdef double _normalised_transform(unit, indptr, indices, data, Y, Y_train, grad,
                                  n_threads) except? -1.0:
    """A normalised unit's rows of new points (its cost, or its gradient into grad)."""
    cdef smallvis_normalised_params k
    cdef Py_ssize_t u = _load_normalised(unit, &k)
    return _transform(&smallvis_normalised_units[u].transform, &k, indptr, indices, data, Y,
                      Y_train, grad, n_threads, row_bandwidths(unit, Y.shape[0]),
                      smallvis_normalised_units[u], pair_importances(unit, Y_train.shape[0]))


def normalised_transform_cost(unit, indptr, indices, data, Y, Y_train, n_threads):
    """A normalised unit's cost of new points (each over its own row); see the reference twin."""
    _check_pair_arrays(indptr, indices, data, Y, Y_train=Y_train, in_range=_indices_in_range)
    return _normalised_transform(unit, indptr, indices, data, Y, Y_train, None, n_threads)


def normalised_transform_gradient(unit, indptr, indices, data, Y, Y_train, grad, n_threads):
    """Gradient of normalised_transform_cost in the new points; see the reference twin."""
    _check_pair_arrays(indptr, indices, data, Y, grad, Y_train, in_range=_indices_in_range)
    _normalised_transform(unit, indptr, indices, data, Y, Y_train, grad, n_threads)


# ---- a new point over its row and its column (Method.placed_with_column)


cdef double _column_row(const smallvis_normalised_unit* unit, const void* params,
                        const double* y, const double* Rt, Py_ssize_t n, Py_ssize_t dim,
                        const int64_t* ix, const double* dv, const double* cv,
                        int64_t k0, int64_t k1, double* d2, double* prow, double* pcol,
                        double* coef, double* col, double* ucol,
                        const double* shift, const double* z, const double* S,
                        const double* beta, const double* bw, bint total,
                        double* g) noexcept nogil:
    """Row s over its row and its column: its gradient into g if not NULL, else its cost.

    The column's pair j is the unit's hooks at fixed row j's (shift, z, S)
    in u = beta_j d2 (ucol), one pair at a time (under "rows" each row of
    the fit has its own sums); its coefficient scales by beta_j.  The row
    is in u = beta_s d2 (bw: the new point's beta_s, or NULL for 1):
    normalised over itself (total False), or held against the fit's
    (shift, z, S) of every row (total True), its coefficients scaled by
    beta_s.
    """
    cdef Py_ssize_t d, j
    cdef int64_t k
    cdef double psum = 0.0, csum = 0.0, cost = 0.0
    smallvis_tr_sq_dists(Rt, n, dim, y, d2)
    for j in range(n):
        ucol[j] = beta[j] * d2[j]
    if bw != NULL:
        for j in range(n):
            d2[j] *= bw[0]
    for k in range(k0, k1):
        prow[ix[k]] += dv[k]
        pcol[ix[k]] += cv[k]
        psum += dv[k]
        csum += cv[k]
    # under "rows", a point that no fixed row counts among its neighbours:
    # its row alone; over all pairs its column's normaliser terms stay
    cdef Py_ssize_t n_col = n if (csum > 0.0 or total) else 0
    if g != NULL:
        if total:
            unit.coef_row(d2, prow, 0, n, shift[0], z[0], S[0], 2.0, params, coef)
        else:
            unit.self_coef_row(d2, prow, n, psum, params, coef)
        if bw != NULL:
            for j in range(n):
                coef[j] *= bw[0]
        for j in range(n_col):
            unit.coef_row(ucol, pcol, j, j + 1, shift[j], z[j], S[j], 2.0, params, col)
            coef[j] += beta[j] * col[j]
        for d in range(dim):
            g[d] = smallvis_tr_force(Rt + d * n, n, coef, y[d])
    else:
        if total:
            cost = (unit.cost_row(d2, prow, 0, n, shift[0], z[0], params)
                    - S[0] * (unit.z_row(d2, 0, n, shift[0], params) / z[0]))
        else:
            cost = unit.self_cost_row(d2, prow, n, psum, params)
        for j in range(n_col):
            cost += (unit.cost_row(ucol, pcol, j, j + 1, shift[j], z[j], params)
                     - S[j] * (unit.z_row(ucol, j, j + 1, shift[j], params) / z[j]))
    for k in range(k0, k1):
        prow[ix[k]] = 0.0
        pcol[ix[k]] = 0.0
    return cost


def _fixed_rows_for_c(unit, Y_train, fixed_rows):
    """The fixed rows' ``(shift, z, S, beta)`` in the C hooks' terms, from ``(log Z, Z, S, beta)``.

    A unit normalised in the log domain has ``weight(d2, shift) = w(d2)
    e**shift``: the shift ``-log Z_j`` with ``z = 1`` gives ``q = w / Z_j``
    without forming ``Z_j`` (which underflows far from a point); the others
    take ``z = Z_j``.  The checks are the reference twin's.
    """
    if unit.normalisation not in ("rows", "total"):
        raise ValueError(f"{type(unit).__name__}: a new point's column needs q normalised "
                         f"over each row or over all pairs; got {unit.normalisation!r}")
    if pair_importances(unit, 1) is not None:
        raise ValueError(f"{type(unit).__name__}: a new point's column is not defined for "
                         "a unit with an importance per point")
    fixed_rows = np.asarray(fixed_rows)
    if fixed_rows.shape != (Y_train.shape[0], 4) or fixed_rows.dtype != np.float64:
        raise ValueError(f"fixed_rows must be a float64 array of shape ({Y_train.shape[0]}, 4) "
                         f"(each training row's log normaliser, normaliser, offset and "
                         f"bandwidth, fixed_row_sums); got {fixed_rows.dtype} "
                         f"{fixed_rows.shape}")
    beta = np.ascontiguousarray(fixed_rows[:, 3])
    if not np.all(np.isfinite(beta) & (beta > 0)):
        raise ValueError("fixed_rows[:, 3] (the training rows' bandwidths) must be finite "
                         "and positive")
    log_z = np.ascontiguousarray(fixed_rows[:, 0])
    S = np.ascontiguousarray(fixed_rows[:, 2])
    if unit.log_domain:
        return -log_z, np.ones_like(log_z), S, beta
    return np.zeros_like(log_z), np.ascontiguousarray(fixed_rows[:, 1]), S, beta


cdef double _column_transform(unit, indptr, indices, data, Y, Y_train, column, fixed_rows,
                              grad, n_threads) except? -1.0:
    """Run _column_row over the rows of Y; return the summed cost."""
    cdef smallvis_normalised_params kp
    cdef Py_ssize_t u = _load_normalised(unit, &kp)
    shift_arr, z_arr, s_arr, beta_arr = _fixed_rows_for_c(unit, Y_train, fixed_rows)
    cdef Py_ssize_t m = Y.shape[0], n = Y_train.shape[0], dim = Y.shape[1], s
    if m == 0:
        return 0.0
    bandwidth = row_bandwidths(unit, m)
    bw_arr = None if bandwidth is None else np.ascontiguousarray(bandwidth, dtype=np.float64)
    cdef const double[::1] bwv = bw_arr if bw_arr is not None else np.ones(1)
    cdef bint has_bw = bw_arr is not None
    cdef bint total = unit.normalisation == "total"
    cdef const smallvis_normalised_unit* nu = smallvis_normalised_units[u]
    cdef const double[::1] sh = shift_arr
    cdef const double[::1] zz = z_arr
    cdef const double[::1] SS = s_arr
    cdef const double[::1] bb = beta_arr
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = np.ascontiguousarray(indices) if len(indices) else np.zeros(1, dtype=np.int64)
    cdef const double[::1] dv = np.ascontiguousarray(data) if len(data) else np.zeros(1)
    cdef const double[::1] cv = np.ascontiguousarray(column) if len(column) else np.zeros(1)
    cdef const double[:, ::1] y = Y
    Rt_arr = np.ascontiguousarray(Y_train.T)
    cdef const double[:, ::1] Rt = Rt_arr
    cdef int nt = n_threads
    cdef double[:, :, ::1] sc = _scratch(nt, 6, n)
    cdef double[::1] rowcost = np.zeros(m)
    cdef bint want = grad is not None
    cdef double[:, ::1] G = grad if want else np.zeros((1, 1))
    cdef int t
    with nogil:
        for s in prange(m, schedule="static", chunksize=1, num_threads=nt):
            t = threadid()
            rowcost[s] = _column_row(nu, &kp, &y[s, 0], &Rt[0, 0], n, dim, &ix[0], &dv[0],
                                     &cv[0], ip[s], ip[s + 1], &sc[t, 0, 0], &sc[t, 1, 0],
                                     &sc[t, 2, 0], &sc[t, 3, 0], &sc[t, 4, 0], &sc[t, 5, 0],
                                     &sh[0], &zz[0], &SS[0], &bb[0],
                                     &bwv[s] if has_bw else NULL, total,
                                     &G[s, 0] if want else NULL)
    cdef double total_cost = 0.0
    for s in range(m):
        total_cost += rowcost[s]
    return total_cost


def normalised_column_transform_cost(unit, indptr, indices, data, Y, Y_train, column,
                                     fixed_rows, n_threads):
    """A normalised unit's cost of new points over their rows and columns; see the reference twin."""
    _check_pair_arrays(indptr, indices, data, Y, Y_train=Y_train, in_range=_indices_in_range)
    _check_pair_arrays(indptr, indices, column, Y, Y_train=Y_train, in_range=_indices_in_range)
    return _column_transform(unit, indptr, indices, data, Y, Y_train, column, fixed_rows,
                             None, n_threads)


def normalised_column_transform_gradient(unit, indptr, indices, data, Y, Y_train, column,
                                         fixed_rows, grad, n_threads):
    """Gradient of normalised_column_transform_cost in the new points; see the reference twin."""
    _check_pair_arrays(indptr, indices, data, Y, grad, Y_train, in_range=_indices_in_range)
    _check_pair_arrays(indptr, indices, column, Y, Y_train=Y_train, in_range=_indices_in_range)
    _column_transform(unit, indptr, indices, data, Y, Y_train, column, fixed_rows, grad,
                      n_threads)


def pair_transform_cost(unit, indptr, indices, data, Y, Y_train, n_threads):
    """A pair unit's row terms of new points; see the reference twin."""
    cdef smallvis_unit_params k
    cdef Py_ssize_t u = _load_unit(unit, <double>Y_train.shape[0], &k)
    _check_pair_arrays(indptr, indices, data, Y, Y_train=Y_train, in_range=_indices_in_range)
    return _transform(smallvis_transform_units[u], &k, indptr, indices, data, Y, Y_train,
                      None, n_threads)


def pair_transform_gradient(unit, indptr, indices, data, Y, Y_train, grad, n_threads):
    """Gradient of pair_transform_cost in the new points; see the reference twin."""
    cdef smallvis_unit_params k
    cdef Py_ssize_t u = _load_unit(unit, <double>Y_train.shape[0], &k)
    _check_pair_arrays(indptr, indices, data, Y, grad, Y_train, in_range=_indices_in_range)
    _transform(smallvis_transform_units[u], &k, indptr, indices, data, Y, Y_train, grad,
               n_threads)


# ---- the named functions: thin wrappers that build their unit (callers check the arrays)


def asne_transform_cost(indptr, indices, data, Y, Y_train, n_threads):
    """Gaussian row KL of new points; see the reference twin."""
    return _normalised_transform(ASNEUnit(), indptr, indices, data, Y, Y_train, None, n_threads)


def asne_transform_gradient(indptr, indices, data, Y, Y_train, grad, n_threads):
    """Gradient of asne_transform_cost; see the reference twin."""
    _normalised_transform(ASNEUnit(), indptr, indices, data, Y, Y_train, grad, n_threads)


def ssne_transform_cost(indptr, indices, data, Y, Y_train, n_threads):
    """Gaussian row KL of new points (as asne); see the reference twin."""
    return _normalised_transform(SSNEUnit(), indptr, indices, data, Y, Y_train, None, n_threads)


def ssne_transform_gradient(indptr, indices, data, Y, Y_train, grad, n_threads):
    """Gradient of ssne_transform_cost; see the reference twin."""
    _normalised_transform(SSNEUnit(), indptr, indices, data, Y, Y_train, grad, n_threads)


def tsne_transform_cost(indptr, indices, data, Y, Y_train, n_threads):
    """Cauchy row KL of new points; see the reference twin."""
    return _normalised_transform(TSNEUnit(), indptr, indices, data, Y, Y_train, None, n_threads)


def tsne_transform_gradient(indptr, indices, data, Y, Y_train, grad, n_threads):
    """Gradient of tsne_transform_cost; see the reference twin."""
    _normalised_transform(TSNEUnit(), indptr, indices, data, Y, Y_train, grad, n_threads)


def tsne_dof_transform_cost(indptr, indices, data, Y, Y_train, dof, n_threads):
    """Heavy-tailed row KL of new points; see the reference twin."""
    return _normalised_transform(TSNEUnit(dof), indptr, indices, data, Y, Y_train, None, n_threads)


def tsne_dof_transform_gradient(indptr, indices, data, Y, Y_train, dof, grad, n_threads):
    """Gradient of tsne_dof_transform_cost; see the reference twin."""
    _normalised_transform(TSNEUnit(dof), indptr, indices, data, Y, Y_train, grad, n_threads)


def largevis_transform_cost(indptr, indices, data, Y, Y_train, gamma, eps, alpha, n_threads):
    """LargeVis row terms of new points; see the reference twin."""
    return pair_transform_cost(LargeVisUnit(gamma, eps, alpha), indptr, indices, data, Y, Y_train,
                               n_threads)


def largevis_transform_gradient(indptr, indices, data, Y, Y_train, gamma, eps, alpha, grad,
                                n_threads):
    """Gradient of largevis_transform_cost; see the reference twin."""
    pair_transform_gradient(LargeVisUnit(gamma, eps, alpha), indptr, indices, data, Y, Y_train,
                            grad, n_threads)


def largevis_exp_transform_cost(indptr, indices, data, Y, Y_train, gamma, n_threads):
    """Exponential-weight LargeVis row terms; see the reference twin."""
    return pair_transform_cost(LargeVisExpUnit(gamma), indptr, indices, data, Y, Y_train,
                               n_threads)


def largevis_exp_transform_gradient(indptr, indices, data, Y, Y_train, gamma, grad, n_threads):
    """Gradient of largevis_exp_transform_cost; see the reference twin."""
    pair_transform_gradient(LargeVisExpUnit(gamma), indptr, indices, data, Y, Y_train, grad,
                            n_threads)


def umap_transform_cost(indptr, indices, data, Y, Y_train, a, b, eps, n_threads):
    """UMAP row terms of new points; see the reference twin."""
    return pair_transform_cost(UMAPUnit(a, b, eps), indptr, indices, data, Y, Y_train, n_threads)


def umap_transform_gradient(indptr, indices, data, Y, Y_train, a, b, eps, grad, n_threads):
    """Gradient of umap_transform_cost; see the reference twin."""
    pair_transform_gradient(UMAPUnit(a, b, eps), indptr, indices, data, Y, Y_train, grad,
                            n_threads)


def tumap_transform_cost(indptr, indices, data, Y, Y_train, eps, n_threads):
    """t-UMAP row terms of new points; see the reference twin."""
    return pair_transform_cost(TUMAPUnit(eps), indptr, indices, data, Y, Y_train, n_threads)


def tumap_transform_gradient(indptr, indices, data, Y, Y_train, eps, grad, n_threads):
    """Gradient of tumap_transform_cost; see the reference twin."""
    pair_transform_gradient(TUMAPUnit(eps), indptr, indices, data, Y, Y_train, grad, n_threads)


def ncvis_transform_cost(indptr, indices, data, Y, Y_train, Q, nu, a, b, n_threads):
    """NCVis row terms of new points, Q fixed; see the reference twin."""
    return pair_transform_cost(NCVisUnit(Q, nu, a, b), indptr, indices, data, Y, Y_train,
                               n_threads)


def ncvis_transform_gradient(indptr, indices, data, Y, Y_train, Q, nu, a, b, grad, n_threads):
    """Gradient of ncvis_transform_cost; see the reference twin."""
    pair_transform_gradient(NCVisUnit(Q, nu, a, b), indptr, indices, data, Y, Y_train, grad,
                            n_threads)
