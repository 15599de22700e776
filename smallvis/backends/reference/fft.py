"""t-SNE with FFT-accelerated interpolation (docs/theory.md §3.9).

An approximate repulsion, O(N) per evaluation, for large data in 1-D and
2-D: :func:`tsne_fft_cost`, :func:`tsne_fft_gradient` and their heavy-tailed
twins.  The grid's size follows one rule, :func:`_fft_grid`, which the
compiled twins call too.  Its limits (``FFT_MAX_NODES`` and the others) are
defined here and read at each call; assigning one on
:mod:`smallvis.backends.reference` (the documented place) assigns it here.
"""

import numpy as np

from ...methods.tsne.unit import TSNEUnit

#: Fewest intervals (boxes) per output dimension of the interpolation grid,
#: and their preferred width in output units (Linderman et al. 2019 and
#: openTSNE use 50 and 1).
FFT_MIN_INTERVALS = 50
FFT_INTERVAL_WIDTH = 1.0

#: Widest box for a heavy-tailed kernel (t-SNE's ``dof`` below 1), in units
#: of the kernel's length scale ``sqrt(dof)``: the weight (1 + d^2/dof)^-dof
#: and its repulsion kernel bend over distances of about ``sqrt(dof)``, so
#: boxes of width 1 interpolate them coarsely when ``dof`` is small.  With
#: boxes of ``FFT_WIDTH_PER_SCALE * sqrt(dof)`` (never wider than
#: ``FFT_INTERVAL_WIDTH``) the error stays at or below that of ``dof = 1`` on
#: boxes of width 1 (docs/reliability.md, "The FFT gradient's accuracy");
#: ``dof >= 1 / FFT_WIDTH_PER_SCALE**2`` keeps boxes of width
#: ``FFT_INTERVAL_WIDTH``.
FFT_WIDTH_PER_SCALE = 2.0

#: Most interpolation nodes in the whole grid, ``(n_boxes * n_interpolation)
#: ** dim``.  It bounds the memory of one evaluation (2-D: about 10 arrays of
#: ``(2 sqrt(FFT_MAX_NODES))**2`` complex numbers, ~350 MB; 1-D: ~50 MB)
#: whatever the spread of ``Y``.  The kernels give a layout too wide for
#: boxes of width :func:`_fft_box_width` within this bound wider boxes (a
#: coarser, less accurate grid) instead of more memory; the registered
#: ``gradient="fft"`` then evaluates such a layout with the exact kernels
#: instead, up to :data:`FFT_WIDE_EXACT_MAX_N` points
#: (:func:`_fft_exact_instead`).  Both twins read it at each call: raising
#: it buys accuracy on wide layouts with memory.
FFT_MAX_NODES = 2 ** 20

#: Most points for which ``gradient="fft"`` evaluates a layout too wide for
#: its grid with the exact gradient.  The exact gradient costs O(N^2), the
#: capped grid a fixed amount whatever N: at this N the two cost about the
#: same (docs/reliability.md, "The FFT gradient's accuracy").  Above it the
#: coarse grid is kept and a warning estimates its error.
FFT_WIDE_EXACT_MAX_N = 50_000

#: Output dimensions the FFT interpolation supports.
FFT_DIMENSIONS = (1, 2)



def _fft_box_width(dof=1.0):
    """Widest box the grid may use for the kernel of ``dof``: the one accuracy rule.

    ``FFT_INTERVAL_WIDTH`` for ``dof >= 1 / FFT_WIDTH_PER_SCALE**2``, and
    ``FFT_WIDTH_PER_SCALE * sqrt(dof)`` (the kernel's length scale times a
    fixed number) below.
    """
    return FFT_INTERVAL_WIDTH * min(1.0, FFT_WIDTH_PER_SCALE * float(np.sqrt(dof)))


def _fft_grid(Y, n_interpolation, dof=1.0):
    """Geometry of the interpolation grid of ``Y`` for the kernel of ``dof``.

    Returns ``(lo, n_boxes, h)``: the lower corner (per dimension), the
    number of boxes per dimension and their width.  The grid is the square
    (cube) ``[lo, lo + n_boxes h]`` of equal boxes covering ``Y``; boxes are
    at most :func:`_fft_box_width` wide unless that needs more than
    :data:`FFT_MAX_NODES` nodes.
    """
    dim = Y.shape[1]
    width = _fft_box_width(dof)
    lo = Y.min(axis=0)
    span = float((Y.max(axis=0) - lo).max())
    if not span > 0.0:  # every point at one place: any box holds them
        span = width
    n_boxes = max(FFT_MIN_INTERVALS, int(np.ceil(span / width)))
    cap = max(1, int(round(FFT_MAX_NODES ** (1.0 / dim))) // n_interpolation)
    n_boxes = min(n_boxes, cap)
    return lo, n_boxes, span / n_boxes


class FFTAccuracyWarning(UserWarning):
    """``gradient="fft"`` met a layout too wide for its grid's boxes (:func:`_fft_box_width`)."""


def _fft_exact_instead(Y, n_interpolation, dof=1.0):
    """Whether ``gradient="fft"`` evaluates ``Y`` with the exact kernels, and why.

    The one rule both backends follow (the kernels themselves always
    interpolate).  The interpolation error grows about as the box width to
    the power ``n_interpolation``, relative to the kernel's length scale, so
    the grid keeps boxes at most :func:`_fft_box_width` wide (1 for ``dof >=
    1 / FFT_WIDTH_PER_SCALE**2``, narrower for heavier tails); a layout that
    would need more than :data:`FFT_MAX_NODES` nodes for that is evaluated
    with the exact gradient when ``N`` is at most
    :data:`FFT_WIDE_EXACT_MAX_N`, where that costs no more than the capped
    grid, and on the capped grid otherwise.

    Parameters
    ----------
    Y : ndarray of shape (n_samples, 1 or 2)
    n_interpolation : int
    dof : float, default=1.0
        t-SNE's heavy-tail parameter: the kernel's length scale is about
        ``sqrt(dof)``.

    Returns
    -------
    exact : bool
        Evaluate ``Y`` with the exact kernels.
    warning : FFTAccuracyWarning or None
        What to tell the user (once per run): ``None`` when the grid's boxes
        are at most :func:`_fft_box_width` wide.
    """
    n, dim = Y.shape
    p = n_interpolation
    width = _fft_box_width(dof)
    _, n_boxes, h = _fft_grid(Y, p, dof)
    if not h > width:
        return False, None
    span = h * n_boxes
    why = ("" if width == FFT_INTERVAL_WIDTH else
           f", the widest that keeps the promised accuracy for dof={dof:g} (its kernel "
           f"bends over about sqrt(dof) = {np.sqrt(dof):.3g} units)")
    head = (f"gradient='fft': the layout spans {span:.4g} units, wider than the "
            f"interpolation grid covers with boxes of width {width:.3g}{why} "
            f"({n_boxes} boxes of {p} nodes per dimension, "
            f"smallvis.backends.reference.FFT_MAX_NODES = {FFT_MAX_NODES})")
    if n <= FFT_WIDE_EXACT_MAX_N:
        return True, FFTAccuracyWarning(
            f"{head}; with {n} points (at most FFT_WIDE_EXACT_MAX_N = "
            f"{FFT_WIDE_EXACT_MAX_N}) the exact gradient is used while the layout is that wide")
    needed = (int(np.ceil(span / width)) * p) ** dim
    ratio = h / width
    # measured with the default 3 nodes; other counts scale the same way
    scale = (" (median per-point error about 2e-2 at ratio 1, 0.2 at 2, 1 at 4 on "
             "clustered layouts)" if p == 3 else "")
    return False, FFTAccuracyWarning(
        f"{head}; its boxes are {h:.3g} wide, {ratio:.3g} times that width, and with "
        f"n_interpolation = {p} nodes per box the interpolated gradient's error grows about "
        f"as that ratio to the power {p}{scale}, here about {ratio ** p:.3g} times the error "
        f"of the promised grid.  Pass gradient='exact', or raise FFT_MAX_NODES to about "
        f"{needed} if memory allows (2-D: about 300 MB per 2**20 nodes)")


def _check_fft_dim(dim):
    if dim not in FFT_DIMENSIONS:
        raise ValueError(f"FFT interpolation supports 1-D and 2-D output; got {dim}-D")


def _lagrange_weights(t, n_interpolation):
    r"""Lagrange weights :math:`L_k(t)` of the nodes ``(k + 1/2) / p`` of a box.

    ``t`` holds positions within their box, scaled to [0, 1].  Returns an
    array of shape ``(len(t), p)``.
    """
    p = n_interpolation
    s = (np.arange(p) + 0.5) / p
    W = np.ones((t.shape[0], p))
    for k in range(p):
        for m in range(p):
            if m != k:
                W[:, k] *= (t - s[m]) / (s[k] - s[m])
    return W


def _fft_potentials(Y, n_interpolation, kernels, charges, n_threads, dof=1.0):
    r"""Interpolated potentials :math:`\phi_c(y_i) \approx \sum_j K_c(y_i, y_j)\, q_{cj}`.

    ``kernels`` is a list of functions of the squared distance, ``charges``
    a list (one per kernel) of arrays of shape ``(N, n_charges)``.  Returns
    one array of shape ``(N, n_charges)`` per kernel.  The sums include
    ``j = i``.  ``dof`` sets the grid's box width (:func:`_fft_grid`).
    """
    from scipy import fft

    n, dim = Y.shape
    p = n_interpolation
    lo, n_boxes, h = _fft_grid(Y, p, dof)
    m = n_boxes * p                       # nodes per dimension
    size = 2 * fft.next_fast_len(m)       # circulant embedding length (even, >= 2m)
    # box of each point and its position in it, then the weights of the p
    # nodes of that box, per dimension
    node = []
    weights = []
    for d in range(dim):
        u = (Y[:, d] - lo[d]) / h
        box = np.minimum(u.astype(np.int64), n_boxes - 1)
        node.append(box * p)
        weights.append(_lagrange_weights(u - box, p))
    # kernel on node offsets, embedded in a circulant of length ``size``
    offset = np.zeros(size)
    near = np.arange(m)
    offset[near] = near
    offset[size - near[1:]] = near[1:]
    valid = np.zeros(size, dtype=bool)
    valid[near] = True
    valid[size - near[1:]] = True
    step2 = (h / p) ** 2
    if dim == 1:
        d2 = offset ** 2 * step2
        mask = valid
    else:
        d2 = (offset[:, None] ** 2 + offset[None, :] ** 2) * step2
        mask = valid[:, None] & valid[None, :]
    shape = (size,) * dim
    out = []
    for kernel, q in zip(kernels, charges):
        kernel_hat = fft.rfftn(np.where(mask, kernel(d2), 0.0), workers=n_threads)
        phi = np.zeros((n, q.shape[1]))
        for c in range(q.shape[1]):
            # spread the charges onto the nodes
            grid = np.zeros(shape)
            for k in np.ndindex(*(p,) * dim):
                w = q[:, c].copy()
                for d in range(dim):
                    w *= weights[d][:, k[d]]
                index = tuple(node[d] + k[d] for d in range(dim))
                np.add.at(grid, index, w)
            # node potentials: the circulant convolution with the kernel
            pot = fft.irfftn(fft.rfftn(grid, workers=n_threads) * kernel_hat, s=shape,
                             workers=n_threads)
            # interpolate back to the points
            for k in np.ndindex(*(p,) * dim):
                w = np.ones(n)
                for d in range(dim):
                    w *= weights[d][:, k[d]]
                index = tuple(node[d] + k[d] for d in range(dim))
                phi[:, c] += w * pot[index]
        out.append(phi)
    return out


def _cauchy(d2):
    return TSNEUnit().weight(d2)


def _cauchy_squared(d2):
    return 1.0 / (1.0 + d2) ** 2


def _fft_z(Y, n_interpolation, n_threads):
    """Interpolated Z = sum_{i != j} w_ij (the exact self terms w_ii = 1 removed)."""
    (phi,) = _fft_potentials(Y, n_interpolation, [_cauchy], [np.ones((Y.shape[0], 1))],
                             n_threads)
    return float(np.sum(phi[:, 0] - 1.0))


def _csr_rows(indptr, n):
    """Row index of every stored entry of a CSR matrix."""
    return np.repeat(np.arange(n), np.diff(indptr))


def tsne_fft_cost(indptr, indices, data, Y, n_interpolation, n_threads):
    r"""t-SNE cost with Z from FFT-accelerated interpolation.

    The cost of :func:`tsne_cost`, written with the un-normalised weights,

    .. math::

        C = \sum_{i \ne j} p_{ij} \log\bigl(p_{ij} (1 + d_{ij}^2)\bigr)
            + \Bigl(\sum_{i \ne j} p_{ij}\Bigr) \log Z,
        \qquad Z = \sum_{k \ne l} \frac{1}{1 + d_{kl}^2},

    is exact in its first term (a sum over the stored entries of ``P``,
    O(nnz)) and approximates ``Z`` by the interpolation of
    :func:`tsne_fft_gradient` (O(N)).  It is the cost that an optimizer
    using the approximate gradient monitors.

    Parameters
    ----------
    indptr, indices, data : ndarray
        ``P`` as a CSR triplet (symmetric, zero diagonal).
    Y : ndarray of shape (n_samples, 1 or 2)
    n_interpolation : int
        Interpolation nodes per box and dimension (>= 1).
    n_threads : int
        Workers of the FFTs.

    Returns
    -------
    float
    """
    n = Y.shape[0]
    _check_fft_dim(Y.shape[1])
    rows = _csr_rows(indptr, n)
    diff = Y[rows] - Y[indices]
    d2 = np.sum(diff * diff, axis=1)
    keep = (data > 0) & (rows != indices)
    attraction = float(np.sum(data[keep] * np.log(data[keep] * (1.0 + d2[keep]))))
    p_sum = float(np.sum(data[rows != indices]))
    return attraction + p_sum * np.log(_fft_z(Y, n_interpolation, n_threads))


def tsne_fft_gradient(indptr, indices, data, Y, n_interpolation, grad, n_threads):
    r"""t-SNE gradient with the repulsion from FFT-accelerated interpolation.

    Linderman et al. (2019, "Fast interpolation-based t-SNE for improved
    visualization of single-cell RNA-seq data", Nature Methods 16, 243),
    FIt-SNE.  The gradient of :func:`tsne_gradient` splits into an
    attraction over the stored entries of ``P`` (computed exactly, O(nnz))
    and a repulsion over all pairs:

    .. math::

        \frac{\partial C}{\partial y_i}
        = 4 \sum_{j} p_{ij} w_{ij} (y_i - y_j)
          - \frac{4}{Z} \sum_{j} w_{ij}^2 (y_i - y_j),
        \qquad w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2}.

    With the kernels :math:`K_1(y, z) = 1/(1 + \|y - z\|^2)` and
    :math:`K_2 = K_1^2` the all-pairs sums are potentials of "charges" at
    the points,

    .. math::

        \phi_1(y_i) = \sum_j K_1(y_i, y_j), \quad
        \phi_2(y_i) = \sum_j K_2(y_i, y_j), \quad
        \phi_3(y_i) = \sum_j K_2(y_i, y_j)\, (y_j - c),

    (sums including ``j = i``; ``c`` the grid's lower corner), so that

    .. math::

        Z = \sum_i \bigl(\phi_1(y_i) - 1\bigr), \qquad
        \sum_j w_{ij}^2 (y_i - y_j) = (y_i - c)\, \phi_2(y_i) - \phi_3(y_i).

    The potentials are interpolated:

    1. **Grid.**  A square of ``B`` boxes per dimension covers ``Y``; each
       box is ``h`` wide (``h = 1`` with at least 50 boxes, wider when the
       node count would pass :data:`FFT_MAX_NODES`; the registered
       ``gradient="fft"`` then uses the exact kernels or warns, as
       :func:`_fft_exact_instead` decides).  Each box holds ``p =
       n_interpolation`` equispaced nodes per dimension at ``(k + 1/2) h /
       p``, so the nodes form one regular lattice of spacing ``h / p``.
    2. **Spread the charges.**  A point in a box is given the Lagrange
       weights of that box's nodes, :math:`L_k(t) = \prod_{m \ne k}
       (t - s_m)/(s_k - s_m)` (a tensor product in 2-D), and node ``a``
       receives :math:`\tilde q_a = \sum_i L_a(y_i) q_i`.
    3. **Convolve.**  On a regular lattice :math:`K(x_a, x_b)` depends only
       on ``a - b``: the node potentials :math:`\tilde\phi_a = \sum_b
       K(x_a, x_b) \tilde q_b` are a Toeplitz product, evaluated by
       embedding it in a circulant of twice the size and multiplying in
       Fourier space (``scipy.fft``), in O(M log M) for M nodes.
    4. **Interpolate back**: :math:`\phi(y_i) \approx \sum_a L_a(y_i)
       \tilde\phi_a`.

    The error comes from the interpolation only and falls quickly as
    ``n_interpolation`` grows (the kernels are smooth on the scale of a
    box); the cost of one evaluation is O(N p^dim + M log M).

    Parameters
    ----------
    indptr, indices, data : ndarray
        ``P`` as a CSR triplet (symmetric, zero diagonal).
    Y : ndarray of shape (n_samples, 1 or 2)
    n_interpolation : int
        Interpolation nodes per box and dimension (>= 1).
    grad : ndarray of shape (n_samples, n_components)
        Output.
    n_threads : int
        Workers of the FFTs.
    """
    n, dim = Y.shape
    _check_fft_dim(dim)
    lo, _, _ = _fft_grid(Y, n_interpolation)
    Yc = Y - lo
    # exact attraction over the stored entries
    rows = _csr_rows(indptr, n)
    diff = Y[rows] - Y[indices]
    coef = data / (1.0 + np.sum(diff * diff, axis=1))
    attraction = np.zeros((n, dim))
    for d in range(dim):
        attraction[:, d] = np.bincount(rows, weights=coef * diff[:, d], minlength=n)
    # interpolated repulsion and Z
    phi1, phi2 = _fft_potentials(
        Y, n_interpolation, [_cauchy, _cauchy_squared],
        [np.ones((n, 1)), np.column_stack([np.ones(n), Yc])], n_threads)
    Z = float(np.sum(phi1[:, 0] - 1.0))
    repulsion = Yc * phi2[:, :1] - phi2[:, 1:]
    grad[...] = 4.0 * (attraction - repulsion / Z)



def tsne_dof_fft_cost(indptr, indices, data, Y, n_interpolation, dof, n_threads):
    r"""Cost of :func:`tsne_dof_cost` with Z from FFT-accelerated interpolation.

    .. math::

        C = \sum_{i \ne j} p_{ij} \Bigl(\log p_{ij}
            + \alpha \log\bigl(1 + d_{ij}^2/\alpha\bigr)\Bigr)
            + \Bigl(\sum_{i \ne j} p_{ij}\Bigr) \log Z,
        \qquad Z = \sum_{k \ne l} \bigl(1 + d_{kl}^2/\alpha\bigr)^{-\alpha},

    exact over the stored entries of ``P``, ``Z`` interpolated as in
    :func:`tsne_fft_gradient` with the kernel :math:`w` of ``dof`` =
    :math:`\alpha` (:func:`tsne_fft_cost` is the case :math:`\alpha = 1`).
    """
    n = Y.shape[0]
    _check_fft_dim(Y.shape[1])
    unit = TSNEUnit(dof)
    rows = _csr_rows(indptr, n)
    diff = Y[rows] - Y[indices]
    d2 = np.sum(diff * diff, axis=1)
    keep = (data > 0) & (rows != indices)
    attraction = float(np.sum(data[keep] * (np.log(data[keep]) - unit.log_weight(d2[keep]))))
    p_sum = float(np.sum(data[rows != indices]))
    (phi,) = _fft_potentials(Y, n_interpolation, [unit.weight], [np.ones((n, 1))], n_threads,
                             dof)
    return attraction + p_sum * np.log(float(np.sum(phi[:, 0] - 1.0)))


def tsne_dof_fft_gradient(indptr, indices, data, Y, n_interpolation, dof, grad, n_threads):
    r"""Gradient of :func:`tsne_dof_cost` with the repulsion from FFT-accelerated interpolation.

    The algorithm of :func:`tsne_fft_gradient` with the kernels of ``dof``
    = :math:`\alpha`:

    .. math::

        \frac{\partial C}{\partial y_i}
        = 4 \sum_{j} p_{ij} w_{ij}^{1/\alpha} (y_i - y_j)
          - \frac{4}{Z} \sum_{j} w_{ij}^{1 + 1/\alpha} (y_i - y_j),

    :math:`K_1 = w = (1 + d^2/\alpha)^{-\alpha}` interpolated for ``Z`` and
    :math:`K_2 = w^{1 + 1/\alpha} = (1 + d^2/\alpha)^{-(\alpha + 1)}` for
    the repulsion; the attraction is exact over the stored entries of ``P``.
    The grid's boxes are at most :func:`_fft_box_width` ``(dof)`` wide:
    narrower than 1 for a heavy tail, whose kernels bend over distances of
    about :math:`\sqrt{\alpha}`.
    """
    n, dim = Y.shape
    _check_fft_dim(dim)
    unit = TSNEUnit(dof)
    lo, _, _ = _fft_grid(Y, n_interpolation, dof)
    Yc = Y - lo
    rows = _csr_rows(indptr, n)
    diff = Y[rows] - Y[indices]
    coef = data * unit.slope_at(np.sum(diff * diff, axis=1))
    attraction = np.zeros((n, dim))
    for d in range(dim):
        attraction[:, d] = np.bincount(rows, weights=coef * diff[:, d], minlength=n)
    phi1, phi2 = _fft_potentials(
        Y, n_interpolation, [unit.weight, unit.repulsion_kernel],
        [np.ones((n, 1)), np.column_stack([np.ones(n), Yc])], n_threads, dof)
    Z = float(np.sum(phi1[:, 0] - 1.0))
    repulsion = Yc * phi2[:, :1] - phi2[:, 1:]
    grad[...] = 4.0 * (attraction - repulsion / Z)
