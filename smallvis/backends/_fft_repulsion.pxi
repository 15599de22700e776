# Included by _kernels.pyx: t-SNE with FFT-accelerated interpolation.
#
# Cython twins of smallvis.backends.reference.tsne_fft_cost and tsne_fft_gradient; the
# algorithm and its formulas are in the reference docstrings and in
# docs/theory.md §3.9.  The grid geometry, the Lagrange weights, the spreading
# of charges onto the nodes and the interpolation back to the points are C
# loops; the circulant convolution on the lattice uses scipy.fft, as the
# reference does.

from scipy import fft as _fft

from smallvis.backends.reference import _fft_grid


def _fft_grid_of(Y, Py_ssize_t p, double dof=1.0):
    """(lo, n_boxes, h): the reference's ``_fft_grid``, the one rule of the grid's size.

    Called, not copied, so that both twins read the limits
    (``FFT_MAX_NODES`` and the others) from the reference at each call.
    """
    lo, n_boxes, h = _fft_grid(Y, p, dof)
    return np.ascontiguousarray(lo, dtype=np.float64), n_boxes, h


def _check_fft_dim(dim):
    if dim not in (1, 2):
        raise ValueError(f"FFT interpolation supports 1-D and 2-D output; got {dim}-D")


cdef inline void _lagrange_row(double t, Py_ssize_t p, double* out) noexcept nogil:
    """Weights of the p nodes (k + 1/2) / p of a box at position t in [0, 1]."""
    cdef Py_ssize_t k, m
    cdef double sk, sm
    for k in range(p):
        sk = (k + 0.5) / p
        out[k] = 1.0
        for m in range(p):
            if m != k:
                sm = (m + 0.5) / p
                out[k] *= (t - sm) / (sk - sm)


def _kernel_hat(kernel_power, Py_ssize_t m, Py_ssize_t size, Py_ssize_t dim, double step2,
                n_threads, double dof=1.0):
    """Fourier transform of w^power on the node offsets, circulant-embedded.

    w = 1 / (1 + d^2) for ``dof`` = 1; otherwise the heavy-tailed weight
    (1 + d^2/dof)^-dof, and power 2 stands for the repulsion's kernel
    w^(1 + 1/dof) = (1 + d^2/dof)^-(dof + 1) (methods/tsne/unit.py).

    The circulant's first column holds the kernel at the offsets 0..m-1,
    mirrored at size-m+1..size-1, and zeros between (``size`` is even and
    at least 2m).  It is even, so its transform is real and equals the
    type-I DCT of its first half (offsets 0..size/2), computed on a quarter
    of the data in 2-D; the rows k > size/2 of the ``rfftn`` layout repeat
    rows size - k.
    """
    cdef Py_ssize_t half = size // 2, t
    near2 = np.arange(m, dtype=np.float64) ** 2
    d2 = near2 if dim == 1 else near2[:, None] + near2[None, :]
    quadrant = np.empty_like(d2)
    cdef const double[::1] d2v = d2.reshape(-1)
    cdef double[::1] wv = quadrant.reshape(-1)
    cdef double exponent = dof if kernel_power == 1 else dof + 1.0
    if dof == 1.0:
        for t in range(wv.shape[0]):
            wv[t] = smallvis_tsne_w(d2v[t] * step2, 1.0)
        if kernel_power == 2:
            quadrant *= quadrant
    else:
        for t in range(wv.shape[0]):
            wv[t] = exp(-exponent / dof * smallvis_tsne_dof_neg_log_w(d2v[t] * step2, dof))
    first_half = np.zeros((half + 1,) * dim)
    first_half[(slice(0, m),) * dim] = quadrant
    spectrum = _fft.dctn(first_half, type=1, workers=n_threads)
    if dim == 1:
        return spectrum
    return np.concatenate([spectrum, spectrum[half - 1:0:-1]], axis=0)


cdef class _FftGrid:
    """Nodes and Lagrange weights of every point, for one ``Y`` (grid of ``dof``'s kernel)."""

    cdef public object lo
    cdef public Py_ssize_t p, n_boxes, m, size, dim, n
    cdef public double h
    cdef public object base_arr, weights_arr
    cdef int64_t[:, ::1] base      # (n, dim): first node of the point's box
    cdef double[:, :, ::1] weights  # (n, dim, p)

    def __init__(self, Y, Py_ssize_t p, double dof=1.0):
        cdef const double[:, ::1] y = Y
        cdef Py_ssize_t i, d, box
        cdef double u
        self.n, self.dim, self.p = Y.shape[0], Y.shape[1], p
        self.lo, self.n_boxes, self.h = _fft_grid_of(Y, p, dof)
        self.m = self.n_boxes * p
        self.size = 2 * _fft.next_fast_len(self.m)
        self.base_arr = np.empty((self.n, self.dim), dtype=np.int64)
        self.weights_arr = np.empty((self.n, self.dim, p))
        self.base = self.base_arr
        self.weights = self.weights_arr
        cdef const double[::1] lo = self.lo
        cdef double h = self.h
        cdef Py_ssize_t nb = self.n_boxes
        with nogil:
            for i in range(self.n):
                for d in range(self.dim):
                    u = (y[i, d] - lo[d]) / h
                    box = <Py_ssize_t>u
                    if box > nb - 1:
                        box = nb - 1
                    self.base[i, d] = box * p
                    _lagrange_row(u - box, p, &self.weights[i, d, 0])

    def potentials(self, charges, bint squared, n_threads, double dof=1.0):
        """Interpolated potentials of the charges (sums include j = i).

        Column 0 of the result is sum_j K1(y_i, y_j) charges[j, 0]; with
        ``squared``, columns 1 + c are sum_j K2(y_i, y_j) charges[j, c]
        (K1 = 1 / (1 + d^2), K2 = K1^2; for ``dof`` != 1, K1 = (1 +
        d^2/dof)^-dof and K2 = K1^(1 + 1/dof)).  The charges are spread and
        transformed once for both kernels.  They are spread onto a compact
        node array with the charges innermost (a point touches p^dim short
        runs of it, which stay in cache); the zero padding of the circulant
        embedding is left to the FFTs (``n=size``), and only the m^dim node
        potentials are kept.
        """
        cdef const double[:, ::1] q = charges
        cdef Py_ssize_t nc = q.shape[1], n = self.n, p = self.p, size = self.size
        cdef Py_ssize_t m = self.m, dim = self.dim
        cdef Py_ssize_t i, c, k, l, a, b, row
        cdef double w, wk
        cdef Py_ssize_t n_nodes = m if dim == 1 else m * m
        cdef Py_ssize_t n_out = 1 + nc if squared else 1
        nodes_arr = np.zeros((n_nodes, nc))
        cdef double[:, ::1] nodes = nodes_arr
        # spread the charges onto the nodes (serial: points share nodes)
        with nogil:
            for i in range(n):
                a = self.base[i, 0]
                if dim == 1:
                    for k in range(p):
                        w = self.weights[i, 0, k]
                        for c in range(nc):
                            nodes[a + k, c] += w * q[i, c]
                else:
                    b = self.base[i, 1]
                    for k in range(p):
                        wk = self.weights[i, 0, k]
                        row = (a + k) * m + b
                        for l in range(p):
                            w = wk * self.weights[i, 1, l]
                            for c in range(nc):
                                nodes[row + l, c] += w * q[i, c]
        step2 = (self.h / p) ** 2
        grid = np.moveaxis(nodes_arr.reshape((m,) * dim + (nc,)), -1, 0)
        spectrum = _fft.rfft(grid, n=size, axis=-1, workers=n_threads)
        if dim == 2:
            spectrum = _fft.fft(spectrum, n=size, axis=-2, workers=n_threads, overwrite_x=True)
        products = np.empty((n_out,) + spectrum.shape[1:], dtype=spectrum.dtype)
        np.multiply(spectrum[0], _kernel_hat(1, m, size, dim, step2, n_threads, dof),
                    out=products[0])
        if squared:
            np.multiply(spectrum, _kernel_hat(2, m, size, dim, step2, n_threads, dof),
                        out=products[1:])
        del spectrum
        if dim == 1:
            pot_arr = _fft.irfft(products, n=size, axis=-1, workers=n_threads)[:, :m]
        else:
            products = _fft.ifft(products, axis=-2, workers=n_threads, overwrite_x=True)[:, :m]
            pot_arr = _fft.irfft(products, n=size, axis=-1, workers=n_threads)[:, :, :m]
        nc = n_out
        pot_arr = np.ascontiguousarray(np.moveaxis(pot_arr, 0, -1)).reshape(n_nodes, nc)
        cdef const double[:, ::1] pot = pot_arr
        phi_arr = np.zeros((n, nc))
        cdef double[:, ::1] phi = phi_arr
        cdef int nt = n_threads
        # interpolate back to the points
        with nogil:
            for i in prange(n, schedule="static", num_threads=nt):
                a = self.base[i, 0]
                if dim == 1:
                    for k in range(p):
                        w = self.weights[i, 0, k]
                        for c in range(nc):
                            phi[i, c] += w * pot[a + k, c]
                else:
                    b = self.base[i, 1]
                    for k in range(p):
                        wk = self.weights[i, 0, k]
                        row = (a + k) * m + b
                        for l in range(p):
                            w = wk * self.weights[i, 1, l]
                            for c in range(nc):
                                phi[i, c] += w * pot[row + l, c]
        return phi_arr


cdef double _fft_z_from(const double[:, ::1] phi1) noexcept nogil:
    cdef Py_ssize_t i
    cdef double z = 0.0
    for i in range(phi1.shape[0]):
        z += phi1[i, 0] - 1.0
    return z


def tsne_fft_cost(indptr, indices, data, Y, n_interpolation, n_threads):
    """t-SNE cost with Z from FFT-accelerated interpolation; see the reference twin."""
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = indices
    cdef const double[::1] dv = data
    cdef const double[:, ::1] y = Y
    cdef Py_ssize_t n = Y.shape[0], dim = Y.shape[1], i, j, d
    cdef int64_t k
    cdef int nt = n_threads
    cdef double[::1] srow = np.zeros(n)
    cdef double[::1] prow = np.zeros(n)
    cdef double s, ps, d2, diff, pv
    _check_fft_dim(dim)
    with nogil:
        for i in prange(n, schedule="static", num_threads=nt):
            s = 0.0
            ps = 0.0
            for k in range(ip[i], ip[i + 1]):
                j = ix[k]
                if j == i:
                    continue
                pv = dv[k]
                ps = ps + pv
                if pv > 0.0:
                    d2 = 0.0
                    for d in range(dim):
                        diff = y[i, d] - y[j, d]
                        d2 = d2 + diff * diff
                    s = s + smallvis_tsne_edge(pv, d2)
            srow[i] = s
            prow[i] = ps
    cdef double total = 0.0, p_sum = 0.0
    for i in range(n):
        total += srow[i]
        p_sum += prow[i]
    grid = _FftGrid(Y, n_interpolation)
    cdef double Z = _fft_z_from(grid.potentials(np.ones((n, 1)), False, n_threads))
    return total + p_sum * log(Z)


def tsne_fft_gradient(indptr, indices, data, Y, n_interpolation, grad, n_threads):
    """t-SNE gradient with the repulsion from FFT-accelerated interpolation.

    See the reference twin for the algorithm.  The attraction over the
    stored entries of P runs row by row in parallel; the repulsion and Z
    come from :class:`_FftGrid`.
    """
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = indices
    cdef const double[::1] dv = data
    cdef const double[:, ::1] y = Y
    cdef double[:, ::1] g = grad
    cdef Py_ssize_t n = Y.shape[0], dim = Y.shape[1], i, j, d
    cdef int64_t k
    cdef int nt = n_threads
    _check_fft_dim(dim)
    grid = _FftGrid(Y, n_interpolation)
    cdef const double[::1] lo = grid.lo
    charges_arr = np.empty((n, dim + 1))
    cdef double[:, ::1] charges = charges_arr
    for i in range(n):
        charges[i, 0] = 1.0
        for d in range(dim):
            charges[i, d + 1] = y[i, d] - lo[d]
    # column 0: K1 potential of unit charges; 1 + c: K2 potentials of charges c
    cdef const double[:, ::1] phi = grid.potentials(charges_arr, True, n_threads)
    cdef double Z = _fft_z_from(phi)
    cdef double inv_z = 1.0 / Z
    cdef double a0, a1, diff, d2, coef
    with nogil:
        for i in prange(n, schedule="static", num_threads=nt):
            a0 = 0.0
            a1 = 0.0
            for k in range(ip[i], ip[i + 1]):
                j = ix[k]
                diff = y[i, 0] - y[j, 0]
                d2 = diff * diff
                if dim == 2:
                    diff = y[i, 1] - y[j, 1]
                    d2 = d2 + diff * diff
                coef = smallvis_tsne_w(d2, dv[k])  # p / (1 + d2)
                a0 = a0 + coef * (y[i, 0] - y[j, 0])
                if dim == 2:
                    a1 = a1 + coef * (y[i, 1] - y[j, 1])
            g[i, 0] = 4.0 * (a0 - ((y[i, 0] - lo[0]) * phi[i, 1] - phi[i, 2]) * inv_z)
            if dim == 2:
                g[i, 1] = 4.0 * (a1 - ((y[i, 1] - lo[1]) * phi[i, 1] - phi[i, 3]) * inv_z)


def tsne_dof_fft_cost(indptr, indices, data, Y, n_interpolation, dof, n_threads):
    """Heavy-tailed t-SNE cost with Z from FFT-accelerated interpolation; see the reference."""
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = indices
    cdef const double[::1] dv = data
    cdef const double[:, ::1] y = Y
    cdef Py_ssize_t n = Y.shape[0], dim = Y.shape[1], i, j, d
    cdef int64_t k
    cdef int nt = n_threads
    cdef double a = dof
    cdef double[::1] srow = np.zeros(n)
    cdef double[::1] prow = np.zeros(n)
    cdef double s, ps, d2, diff, pv
    _check_fft_dim(dim)
    with nogil:
        for i in prange(n, schedule="static", num_threads=nt):
            s = 0.0
            ps = 0.0
            for k in range(ip[i], ip[i + 1]):
                j = ix[k]
                if j == i:
                    continue
                pv = dv[k]
                ps = ps + pv
                if pv > 0.0:
                    d2 = 0.0
                    for d in range(dim):
                        diff = y[i, d] - y[j, d]
                        d2 = d2 + diff * diff
                    s = s + smallvis_tsne_dof_edge(pv, d2, a)
            srow[i] = s
            prow[i] = ps
    cdef double total = 0.0, p_sum = 0.0
    for i in range(n):
        total += srow[i]
        p_sum += prow[i]
    grid = _FftGrid(Y, n_interpolation, a)
    cdef double Z = _fft_z_from(grid.potentials(np.ones((n, 1)), False, n_threads, a))
    return total + p_sum * log(Z)


def tsne_dof_fft_gradient(indptr, indices, data, Y, n_interpolation, dof, grad, n_threads):
    """Heavy-tailed t-SNE gradient with the FFT-interpolated repulsion; see the reference.

    As tsne_fft_gradient, with the attraction coefficient p w^(1/dof) and
    the kernels of ``dof`` in :class:`_FftGrid`.
    """
    cdef const int64_t[::1] ip = indptr
    cdef const int64_t[::1] ix = indices
    cdef const double[::1] dv = data
    cdef const double[:, ::1] y = Y
    cdef double[:, ::1] g = grad
    cdef Py_ssize_t n = Y.shape[0], dim = Y.shape[1], i, j, d
    cdef int64_t k
    cdef int nt = n_threads
    cdef double a = dof
    _check_fft_dim(dim)
    grid = _FftGrid(Y, n_interpolation, a)
    cdef const double[::1] lo = grid.lo
    charges_arr = np.empty((n, dim + 1))
    cdef double[:, ::1] charges = charges_arr
    for i in range(n):
        charges[i, 0] = 1.0
        for d in range(dim):
            charges[i, d + 1] = y[i, d] - lo[d]
    # column 0: K1 potential of unit charges; 1 + c: K2 potentials of charges c
    cdef const double[:, ::1] phi = grid.potentials(charges_arr, True, n_threads, a)
    cdef double Z = _fft_z_from(phi)
    cdef double inv_z = 1.0 / Z
    cdef double a0, a1, diff, d2, coef
    with nogil:
        for i in prange(n, schedule="static", num_threads=nt):
            a0 = 0.0
            a1 = 0.0
            for k in range(ip[i], ip[i + 1]):
                j = ix[k]
                diff = y[i, 0] - y[j, 0]
                d2 = diff * diff
                if dim == 2:
                    diff = y[i, 1] - y[j, 1]
                    d2 = d2 + diff * diff
                coef = dv[k] * smallvis_tsne_dof_slope(d2, a)
                a0 = a0 + coef * (y[i, 0] - y[j, 0])
                if dim == 2:
                    a1 = a1 + coef * (y[i, 1] - y[j, 1])
            g[i, 0] = 4.0 * (a0 - ((y[i, 0] - lo[0]) * phi[i, 1] - phi[i, 2]) * inv_z)
            if dim == 2:
                g[i, 1] = 4.0 * (a1 - ((y[i, 1] - lo[1]) * phi[i, 1] - phi[i, 3]) * inv_z)
