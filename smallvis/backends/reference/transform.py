"""New points against a fixed training map (docs/theory.md §6).

Each method family's cost and gradient for new points (``Y``) placed
against a fixed reference (``Y_train``): the normalised engine's
(:func:`normalised_transform_cost`), the pair engine's
(:func:`pair_transform_cost`), InfoNCE's, and the named wrappers of the
methods that have them.
"""

import numpy as np
from scipy.sparse import csr_matrix
from scipy.spatial.distance import cdist

from ...methods._common import pair_importances, row_bandwidths, unit_field_values
from ...methods.asne.unit import ASNEUnit
from ...methods.infonce.unit import InfoNCEUnit
from ...methods.largevis.unit import LargeVisUnit, LargeVisExpUnit
from ...methods.ncvis.unit import NCVisUnit
from ...methods.ssne.unit import SSNEUnit
from ...methods.tsne.unit import TSNEUnit
from ...methods.tumap.unit import TUMAPUnit
from ...methods.umap.unit import UMAPUnit
from ._helpers import _check_pair_arrays
from .infonce import _infonce_rows
from scipy import special

from .normalised import (_normalised_coefficients, _normalised_q, _off_diagonal_distances,
                         _pair_products, _scaled_rows)
from .pairs import _row_noise


# ``P`` is an M x N CSR triplet: row s holds the affinities of new point s to
# the N reference (training) points; ``Y`` (M x dim) holds the moving new
# points and ``Y_train`` (N x dim) the fixed reference.  The cost is the sum
# over the new points of the terms of *their own row* of the method's cost,
# taken over every reference point (no pair of two new points: a new point is
# placed as if it were the only one added, so the result for a point does not
# depend on the batch it came in).  The gradients are exact for their costs
# (``eps = 0``); for a symmetric method they are half of the method's exact
# gradient row, whose cost counts the pair (s, j) twice.


def _transform_dense(indptr, indices, data, Y, Y_train):
    """Dense M x N P and squared distances between the new and training points."""
    m, n = Y.shape[0], Y_train.shape[0]
    P = csr_matrix((data, indices, indptr), shape=(m, n)).toarray()
    return P, cdist(Y, Y_train, "sqeuclidean")


def _transform_force(K, D2, Y, Y_train):
    r""":math:`2 \sum_j K_{sj} (y_s - y_j)`, coincident pairs removed.

    Evaluated relative to the training map's first point (exact differences for
    nearby points, as :func:`_gradient_from_coefficients`).
    """
    K = np.where(D2 > 0, K, 0.0)
    origin = Y_train[0] if Y_train.shape[0] else 0.0
    return 2.0 * (K.sum(axis=1)[:, None] * (Y - origin) - K @ (Y_train - origin))


def normalised_transform_cost(unit, indptr, indices, data, Y, Y_train, n_threads):
    r"""Cost of new points placed by a normalised unit against a fixed reference.

    .. math::

        C = \sum_s \sum_j f(p_{j|s}, q_{j|s}),
        \qquad
        q_{j|s} = \frac{w(\|y_s - y_j\|^2)}{\sum_k w(\|y_s - y_k\|^2)},

    ``j, k`` over the training points: each new point is normalised over
    its own row, whatever the unit's normalisation in a fit (as openTSNE
    does for t-SNE), so the result for a point does not depend on its batch.
    A unit with a bandwidth per row takes the new points' own, one per
    row of ``Y`` (:func:`~smallvis.methods._common.row_bandwidths`); a
    unit with an importance per point weighs the pair ``(s, j)`` by the
    training point's :math:`m_j` (the new point's own :math:`m_s` cancels
    from its row's normalisation,
    :func:`~smallvis.methods._common.pair_importances`).
    """
    unit_field_values(unit)
    _check_pair_arrays(indptr, indices, data, Y, Y_train=Y_train)
    return _normalised_transform_cost(unit, indptr, indices, data, Y, Y_train)


def _normalised_transform_cost(unit, indptr, indices, data, Y, Y_train):
    """:func:`normalised_transform_cost` on arrays the caller has checked."""
    P, D2 = _transform_dense(indptr, indices, data, Y, Y_train)
    A = _pair_products(None, pair_importances(unit, Y_train.shape[0]))
    Q, log_Q = _normalised_q(unit, _scaled_rows(D2, row_bandwidths(unit, Y.shape[0])), 1, A)
    return unit.cost(P, Q, log_Q)


def normalised_transform_gradient(unit, indptr, indices, data, Y, Y_train, grad, n_threads):
    r"""Gradient of :func:`normalised_transform_cost` in the new points (writes ``grad``).

    .. math::

        \frac{\partial C}{\partial y_s} = 2 \sum_j c_{sj} (y_s - y_j),

    with :math:`c` of :func:`_normalised_coefficients` over each row, whose
    ``mass`` is the row's :math:`\pi_s = \sum_k p_{k|s}` (1 for a
    calibrated row; the KL divergence's coefficient is then
    :math:`(p_{j|s} - \pi_s q_{j|s})\, s_{sj}`).
    """
    unit_field_values(unit)
    _check_pair_arrays(indptr, indices, data, Y, grad, Y_train)
    _normalised_transform_gradient(unit, indptr, indices, data, Y, Y_train, grad)


def _normalised_transform_gradient(unit, indptr, indices, data, Y, Y_train, grad):
    """:func:`normalised_transform_gradient` on arrays the caller has checked."""
    P, D2 = _transform_dense(indptr, indices, data, Y, Y_train)
    bandwidth = row_bandwidths(unit, Y.shape[0])
    A = _pair_products(None, pair_importances(unit, Y_train.shape[0]))
    K = _normalised_coefficients(unit, P, _scaled_rows(D2, bandwidth), 1,
                                 P.sum(axis=1, keepdims=True), A)
    if bandwidth is not None:  # the chain rule through beta_s d2_sj
        K *= bandwidth[:, None]
    grad[...] = _transform_force(K, np.ones_like(D2), Y, Y_train)


def fixed_row_sums(unit, P, Y_train):
    r"""Each fixed row's normaliser, offset and bandwidth: ``(N, 4)``, :math:`(\log Z_j, Z_j, S_j, \beta_j)`.

    For a unit normalised over each row (``normalisation == "rows"``),

    .. math::

        Z_j = \sum_{k \ne j} w_{jk},
        \qquad
        S_j = \sum_{k \ne j} q_{k|j} \frac{\partial f}{\partial q}(p_{k|j}, q_{k|j}),

    the mass of row ``j`` its sum of ``P``; for a unit normalised over all
    pairs (``"total"``) every row holds the fit's single normaliser and
    offset,

    .. math::

        Z = \sum_{k \ne l} w_{kl},
        \qquad
        S = \sum_{k \ne l} q_{kl} \frac{\partial f}{\partial q}(p_{kl}, q_{kl}),

    the mass the sum of ``P``.  A unit with a bandwidth per row
    (:func:`~smallvis.methods._common.row_bandwidths`) weighs the pair
    ``(j, k)`` by :math:`w(\beta_j d_{jk}^2)` with the training points'
    :math:`\beta_j` (the unit's ``bandwidth``, one per training point),
    and :math:`\beta_j` is the fourth column (1 without a bandwidth): the
    column kernels weigh a new point's pair in row ``j`` with it.  Over
    the training map's rows (``P`` its dense ``N x N`` affinities,
    ``Y_train`` its coordinates).  What
    :func:`normalised_column_transform_cost` holds fixed.  Computed once
    per training map, in NumPy for both backends (the transform kernels'
    input, as ``P`` is).
    """
    _check_column_unit(unit)
    P = np.asarray(P.toarray() if hasattr(P, "toarray") else P, dtype=np.float64)
    n = Y_train.shape[0]
    bandwidth = row_bandwidths(unit, n)
    D2 = _scaled_rows(_off_diagonal_distances(np.ascontiguousarray(Y_train, dtype=np.float64)),
                      bandwidth)
    axis = 1 if unit.normalisation == "rows" else None
    if unit.log_domain:
        log_z = special.logsumexp(unit.log_weight(D2), axis=axis)
    else:
        log_z = np.log(unit.weight(D2).sum(axis=axis))
    Q, _ = _normalised_q(unit, D2, axis)
    S = unit.offset(P, Q, P.sum(axis=axis, keepdims=axis is not None), axis)
    log_z = np.broadcast_to(np.ravel(log_z), (n,))
    S = np.broadcast_to(np.ravel(S), (n,))
    beta = np.ones(n) if bandwidth is None else bandwidth
    # Z_j itself for a unit that normalises w (its C hooks divide by it); a
    # unit in the log domain reads log Z_j (Z_j may underflow)
    return np.ascontiguousarray(np.column_stack([log_z, np.exp(log_z), S, beta]))


def _held_q(unit, U, fixed_rows):
    r""":math:`w(u_{sj}) / Z_j` and its log, with the fixed rows' :math:`\log Z_j`."""
    log_w = unit.log_weight(U) if unit.log_domain else np.log(unit.weight(U))
    log_Q = log_w - fixed_rows[None, :, 0]
    return np.exp(log_Q), log_Q


def _held_cost(unit, Pm, U, fixed_rows):
    r""":math:`\sum_{sj} f(p_{sj}, q_{sj}) - S_j q_{sj}`, :math:`q_{sj} = w(u_{sj}) / Z_j` held."""
    Q, log_Q = _held_q(unit, U, fixed_rows)
    return unit.cost(Pm, Q, log_Q) - float(np.sum(Q @ fixed_rows[:, 2]))


def _held_coefficients(unit, Pm, U, fixed_rows):
    r"""The pair coefficients of :func:`_held_cost` in :math:`u_{sj}`: the unit's force at :math:`(Z_j, S_j)`."""
    Q, _ = _held_q(unit, U, fixed_rows)
    with np.errstate(divide="ignore", invalid="ignore"):
        C = unit.force(Pm, Q, 1.0, unit.slope_at(U), fixed_rows[None, :, 2])
    return np.where((Q == 0.0) & (Pm == 0.0), 0.0, C)


def _check_column_unit(unit):
    if unit.normalisation not in ("rows", "total"):
        raise ValueError(f"{type(unit).__name__}: a new point's column needs q normalised "
                         f"over each row or over all pairs; got {unit.normalisation!r}")
    if pair_importances(unit, 1) is not None:
        raise ValueError(f"{type(unit).__name__}: a new point's column is not defined for "
                         "a unit with an importance per point")


def _check_column(unit, Y_train, fixed_rows):
    _check_column_unit(unit)
    fixed_rows = np.asarray(fixed_rows)
    if fixed_rows.shape != (Y_train.shape[0], 4) or fixed_rows.dtype != np.float64:
        raise ValueError(f"fixed_rows must be a float64 array of shape ({Y_train.shape[0]}, 4) "
                         f"(each training row's log normaliser, normaliser, offset and "
                         f"bandwidth, fixed_row_sums); got {fixed_rows.dtype} "
                         f"{fixed_rows.shape}")
    beta = fixed_rows[:, 3]
    if not np.all(np.isfinite(beta) & (beta > 0)):
        raise ValueError("fixed_rows[:, 3] (the training rows' bandwidths) must be finite "
                         "and positive")
    return fixed_rows


def normalised_column_transform_cost(unit, indptr, indices, data, Y, Y_train, column,
                                     fixed_rows, n_threads):
    r"""Cost of new points placed over their rows and columns against fixed rows.

    For a unit normalised over each row (``normalisation == "rows"``):

    .. math::

        C = \sum_s \Bigl[\sum_j f(p_{j|s}, q_{j|s})
            + \sum_j \bigl(f(p_{s|j}, q_{s|j}) - S_j\, q_{s|j}\bigr)\Bigr],
        \qquad
        q_{s|j} = \frac{w(\beta_j \|y_s - y_j\|^2)}{Z_j},

    the first sum new point ``s``'s own row (:func:`normalised_transform_cost`,
    normalised over itself with its own :math:`\beta_s`), the second the
    terms it adds to the fixed rows ``j``: its own entry, and the
    first-order change of the row's other entries, which its weight scales
    by :math:`Z_j / (Z_j + w_{sj}) \approx 1 - q_{s|j}`, so by
    :math:`-q_{s|j} \sum_k q_{k|j}\, \partial f / \partial q = -q_{s|j} S_j`.
    A point whose column is 0 everywhere (no fixed row counts it among its
    neighbours: a far point) is placed over its row alone, where the
    column's reverse terms would push it from every fixed point at once.

    For a unit normalised over all pairs (``"total"``), the fit's own cost
    with the point's pairs added, every other point fixed, to first order
    in the new terms, its single normaliser :math:`Z` and offset :math:`S`
    held:

    .. math::

        C = \sum_s \sum_j \Bigl[f\Bigl(p_{sj}, \frac{w_{sj}}{Z}\Bigr) - S \frac{w_{sj}}{Z}
            + f\Bigl(p_{js}, \frac{w_{js}}{Z}\Bigr) - S \frac{w_{js}}{Z}\Bigr],
        \qquad
        w_{sj} = w(\beta_s d_{sj}^2), \quad w_{js} = w(\beta_j d_{sj}^2):

    both the row and the column are held against the fit's :math:`Z` (its
    other terms' :math:`q` scale by :math:`Z / (Z + \sum_j (w_{sj} +
    w_{js}))`), and a far point keeps its column's normaliser terms, a
    repulsion of order :math:`1/N` of its row's attraction, which is the
    fit's.  ``data`` and ``column`` are then the joint ``P``'s entries at
    the fit's scale (``TrainingMap.transform`` gives a symmetrised family's
    :math:`(p_{j|s} + p_{s|j}) / 2N`, ``N`` the training points: the fit's
    ``P``, which sums to 1, is held with the rest of the fit).

    :math:`Z_j`, :math:`S_j` and the training points' bandwidths
    :math:`\beta_j` are the training map's (``fixed_rows``,
    :func:`fixed_row_sums`; for ``"total"`` the same :math:`(Z, S)` in
    every row); a unit with a bandwidth per row weighs a new point's own
    row with its own :math:`\beta_s` (the unit's ``bandwidth``, one per
    row of ``Y``), and its pair in fixed row ``j`` with :math:`\beta_j`.
    ``column`` holds :math:`p_{s|j}` (:math:`p_{js}`) at the entries of
    ``P`` (``indices``), 0 elsewhere.  Its gradient is the fit's gradient
    of a point with the other rows' sums held.  For a unit without an
    importance per point.
    """
    unit_field_values(unit)
    _check_pair_arrays(indptr, indices, data, Y, Y_train=Y_train)
    fixed_rows = _check_column(unit, Y_train, fixed_rows)
    _check_pair_arrays(indptr, indices, column, Y, Y_train=Y_train)
    Pc, D2 = _transform_dense(indptr, indices, column, Y, Y_train)
    Uc = D2 * fixed_rows[None, :, 3]
    if unit.normalisation == "total":
        P, _ = _transform_dense(indptr, indices, data, Y, Y_train)
        row = _held_cost(unit, P, _scaled_rows(D2, row_bandwidths(unit, Y.shape[0])),
                         fixed_rows)
        return row + _held_cost(unit, Pc, Uc, fixed_rows)
    # the rows with a column (a point without one is placed over its row alone)
    has = Pc.sum(axis=1) > 0
    return (_normalised_transform_cost(unit, indptr, indices, data, Y, Y_train)
            + _held_cost(unit, Pc[has], Uc[has], fixed_rows))


def normalised_column_transform_gradient(unit, indptr, indices, data, Y, Y_train, column,
                                         fixed_rows, grad, n_threads):
    r"""Gradient of :func:`normalised_column_transform_cost` in the new points (writes ``grad``).

    .. math::

        \frac{\partial C}{\partial y_s} = 2 \sum_j (\beta_s c_{sj} + \beta_j c'_{sj}) (y_s - y_j),
        \qquad
        c'_{sj} = q_{s|j} \Bigl(S_j - \frac{\partial f}{\partial q}(p_{s|j}, q_{s|j})\Bigr)\, s_{sj},

    :math:`c` the row's coefficients in :math:`u = \beta_s d^2`
    (:func:`normalised_transform_gradient` for ``"rows"``; for ``"total"``
    the force :math:`q_{sj}(S - \partial f / \partial q)\, s_{sj}` at the
    held :math:`Z`) and :math:`c'` the column's in :math:`u = \beta_j d^2`,
    the unit's force at the fixed row's :math:`(Z_j, S_j)`, :math:`s` the
    slope :math:`-\partial \log w / \partial u`: each pair's force scales
    by the bandwidth its weight uses (:math:`\beta = 1` without one).
    """
    unit_field_values(unit)
    _check_pair_arrays(indptr, indices, data, Y, grad, Y_train)
    fixed_rows = _check_column(unit, Y_train, fixed_rows)
    _check_pair_arrays(indptr, indices, column, Y, Y_train=Y_train)
    P, D2 = _transform_dense(indptr, indices, data, Y, Y_train)
    bandwidth = row_bandwidths(unit, Y.shape[0])
    U = _scaled_rows(D2, bandwidth)
    if unit.normalisation == "total":
        K = _held_coefficients(unit, P, U, fixed_rows)
    else:
        K = _normalised_coefficients(unit, P, U, 1, P.sum(axis=1, keepdims=True))
    if bandwidth is not None:  # the chain rule through beta_s d2_sj
        K *= bandwidth[:, None]
    Pc, _ = _transform_dense(indptr, indices, column, Y, Y_train)
    C = _held_coefficients(unit, Pc, D2 * fixed_rows[None, :, 3], fixed_rows)
    C *= fixed_rows[None, :, 3]  # the chain rule through beta_j d2_sj
    if unit.normalisation != "total":
        C[Pc.sum(axis=1) == 0] = 0.0
    grad[...] = _transform_force(K + C, np.ones_like(D2), Y, Y_train)


def asne_transform_cost(indptr, indices, data, Y, Y_train, n_threads):
    r"""Cost of new points placed by asymmetric SNE against a fixed reference.

    .. math::

        C = \sum_s \sum_j p_{j|s} \log \frac{p_{j|s}}{q_{j|s}},
        \qquad
        q_{j|s} = \frac{\exp(-\|y_s - y_j\|^2)}{\sum_k \exp(-\|y_s - y_k\|^2)},

    ``j, k`` over the training points: row ``s`` of the asne cost.
    """
    return _normalised_transform_cost(ASNEUnit(), indptr, indices, data, Y, Y_train)


def asne_transform_gradient(indptr, indices, data, Y, Y_train, grad, n_threads):
    r"""Gradient of :func:`asne_transform_cost` in the new points.

    .. math::

        \frac{\partial C}{\partial y_s} = 2 \sum_j (p_{j|s} - \pi_s q_{j|s})(y_s - y_j),
        \qquad \pi_s = \sum_k p_{k|s}

    (:math:`\pi_s = 1` for a calibrated row).
    """
    _normalised_transform_gradient(ASNEUnit(), indptr, indices, data, Y, Y_train, grad)


def ssne_transform_cost(indptr, indices, data, Y, Y_train, n_threads):
    r"""Cost of new points placed by symmetric SNE: the Gaussian row KL.

    .. math::

        C = \sum_s \sum_j p_{j|s} \log \frac{p_{j|s}}{q_{j|s}},
        \qquad
        q_{j|s} = \frac{\exp(-\|y_s - y_j\|^2)}{\sum_k \exp(-\|y_s - y_k\|^2)}.

    The joint normalisation of ssne's ``q`` is replaced by the new point's
    own row (as openTSNE does for t-SNE), so the cost is that of asne.
    """
    return _normalised_transform_cost(SSNEUnit(), indptr, indices, data, Y, Y_train)


def ssne_transform_gradient(indptr, indices, data, Y, Y_train, grad, n_threads):
    r"""Gradient of :func:`ssne_transform_cost`.

    .. math::

        \frac{\partial C}{\partial y_s} = 2 \sum_j (p_{j|s} - \pi_s q_{j|s})(y_s - y_j),
        \qquad \pi_s = \sum_k p_{k|s}.
    """
    _normalised_transform_gradient(SSNEUnit(), indptr, indices, data, Y, Y_train, grad)


def tsne_transform_cost(indptr, indices, data, Y, Y_train, n_threads):
    r"""Cost of new points placed by t-SNE: the Cauchy row KL.

    .. math::

        C = \sum_s \sum_j p_{j|s} \log \frac{p_{j|s}}{q_{j|s}},
        \qquad
        q_{j|s} = \frac{w_{sj}}{\sum_k w_{sk}},
        \qquad
        w_{sj} = \frac{1}{1 + \|y_s - y_j\|^2},

    the joint normalisation replaced by the new point's row, as openTSNE.
    """
    return _normalised_transform_cost(TSNEUnit(), indptr, indices, data, Y, Y_train)


def tsne_transform_gradient(indptr, indices, data, Y, Y_train, grad, n_threads):
    r"""Gradient of :func:`tsne_transform_cost`.

    .. math::

        \frac{\partial C}{\partial y_s} =
        2 \sum_j (p_{j|s} - \pi_s q_{j|s})\, w_{sj}\, (y_s - y_j),
        \qquad \pi_s = \sum_k p_{k|s}

    (:math:`\pi_s = 1` for a calibrated row).
    """
    _normalised_transform_gradient(TSNEUnit(), indptr, indices, data, Y, Y_train, grad)


def tsne_dof_transform_cost(indptr, indices, data, Y, Y_train, dof, n_threads):
    r"""Cost of new points placed by t-SNE with ``dof`` = :math:`\alpha`: the row KL.

    .. math::

        C = \sum_s \sum_j p_{j|s} \log \frac{p_{j|s}}{q_{j|s}},
        \qquad
        q_{j|s} = \frac{w_{sj}}{\sum_k w_{sk}},
        \qquad
        w_{sj} = \Bigl(1 + \frac{\|y_s - y_j\|^2}{\alpha}\Bigr)^{-\alpha}

    (:func:`tsne_transform_cost` is the case :math:`\alpha = 1`).
    """
    return _normalised_transform_cost(TSNEUnit(dof), indptr, indices, data, Y, Y_train)


def tsne_dof_transform_gradient(indptr, indices, data, Y, Y_train, dof, grad, n_threads):
    r"""Gradient of :func:`tsne_dof_transform_cost`.

    .. math::

        \frac{\partial C}{\partial y_s} =
        2 \sum_j (p_{j|s} - \pi_s q_{j|s})\, w_{sj}^{1/\alpha}\, (y_s - y_j),
        \qquad \pi_s = \sum_k p_{k|s}.
    """
    _normalised_transform_gradient(TSNEUnit(dof), indptr, indices, data, Y, Y_train, grad)


def infonce_transform_cost(indptr, indices, data, Y, Y_train, m, n_threads):
    r"""The expected InfoNCE loss of new points against fixed training points.

    .. math::

        C = \sum_s \sum_j p_{sj} \Bigl[-\log \phi_{sj} + \int_0^\infty
            \bigl(e^{-t} - e^{-\phi_{sj} t} M_s(t)^m\bigr) \frac{dt}{t}\Bigr],
        \qquad M_s(t) = \frac{1}{N} \sum_{k} e^{-t \phi_{sk}},

    ``j, k`` over the ``N`` training points: the new point's positives and
    its negatives are training points.
    """
    P, D2 = _transform_dense(indptr, indices, data, Y, Y_train)
    costs, _ = _infonce_rows(InfoNCEUnit(m), P, D2, False)
    return float(costs.sum())


def infonce_transform_gradient(indptr, indices, data, Y, Y_train, m, grad, n_threads):
    r"""Gradient of :func:`infonce_transform_cost` in the new points.

    .. math::

        \frac{\partial C}{\partial y_s} = 2 \sum_k K_{sk} (y_s - y_k),
        \qquad K_{sk} = -\phi_{sk}^2 \frac{\partial C_s}{\partial \phi_{sk}}.
    """
    P, D2 = _transform_dense(indptr, indices, data, Y, Y_train)
    _, K = _infonce_rows(InfoNCEUnit(m), P, D2, False)
    grad[...] = _transform_force(K, D2, Y, Y_train)


def _transform_pair_cost(unit, indptr, indices, data, Y, Y_train):
    r"""The row terms of a unit's cost for new points: :math:`\sum_s \sum_j f_s(p_{sj}, d_{sj}^2)`.

    ``j`` over the training points; a new point's noise (NCVis) is spread
    over the ``N`` training points.
    """
    unit_field_values(unit)
    _check_pair_arrays(indptr, indices, data, Y, Y_train=Y_train)
    P, D2 = _transform_dense(indptr, indices, data, Y, Y_train)
    noise = _row_noise(unit, P, Y_train.shape[0])
    return float(np.sum(unit.cost_term(P, D2, noise)))


def _transform_pair_gradient(unit, indptr, indices, data, Y, Y_train, grad):
    r"""Gradient of :func:`_transform_pair_cost` in the new points (writes ``grad``).

    .. math::

        \frac{\partial C}{\partial y_s} = 2 \sum_j c_{sj} (y_s - y_j),

    with :math:`c` the unit's pair coefficient (exact when ``eps = 0``).
    """
    unit_field_values(unit)
    _check_pair_arrays(indptr, indices, data, Y, grad, Y_train)
    P, D2 = _transform_dense(indptr, indices, data, Y, Y_train)
    noise = _row_noise(unit, P, Y_train.shape[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        C, _ = unit.coefficient(P, D2, noise)
    grad[...] = _transform_force(C, D2, Y, Y_train)


def pair_transform_cost(unit, indptr, indices, data, Y, Y_train, n_threads):
    r"""A pair unit's row terms for new points, :math:`\sum_s \sum_j f_s(p_{sj}, d_{sj}^2)`.

    ``j`` runs over the ``N`` training points (``Y_train``, fixed).
    """
    return _transform_pair_cost(unit, indptr, indices, data, Y, Y_train)


def pair_transform_gradient(unit, indptr, indices, data, Y, Y_train, grad, n_threads):
    r"""Gradient of :func:`pair_transform_cost` in the new points (writes ``grad``).

    .. math::

        \frac{\partial C}{\partial y_s} = 2 \sum_j c_{sj} (y_s - y_j).
    """
    _transform_pair_gradient(unit, indptr, indices, data, Y, Y_train, grad)


def largevis_transform_cost(indptr, indices, data, Y, Y_train, gamma, eps, alpha, n_threads):
    """Row terms of the LargeVis cost for new points (``eps`` regularises only the gradient)."""
    return _transform_pair_cost(LargeVisUnit(gamma, eps, alpha), indptr, indices, data, Y, Y_train)


def largevis_transform_gradient(indptr, indices, data, Y, Y_train, gamma, eps, alpha, grad,
                                n_threads):
    """Gradient of :func:`largevis_transform_cost` (exact when ``eps = 0``)."""
    _transform_pair_gradient(LargeVisUnit(gamma, eps, alpha), indptr, indices, data, Y, Y_train, grad)


def largevis_exp_transform_cost(indptr, indices, data, Y, Y_train, gamma, n_threads):
    """Row terms of the exponential-weight LargeVis cost for new points."""
    return _transform_pair_cost(LargeVisExpUnit(gamma), indptr, indices, data, Y, Y_train)


def largevis_exp_transform_gradient(indptr, indices, data, Y, Y_train, gamma, grad, n_threads):
    """Gradient of :func:`largevis_exp_transform_cost`."""
    _transform_pair_gradient(LargeVisExpUnit(gamma), indptr, indices, data, Y, Y_train, grad)


def umap_transform_cost(indptr, indices, data, Y, Y_train, a, b, eps, n_threads):
    """Row terms of the UMAP cross-entropy for new points."""
    return _transform_pair_cost(UMAPUnit(a, b, eps), indptr, indices, data, Y, Y_train)


def umap_transform_gradient(indptr, indices, data, Y, Y_train, a, b, eps, grad, n_threads):
    """Gradient of :func:`umap_transform_cost` (exact when ``eps = 0``)."""
    _transform_pair_gradient(UMAPUnit(a, b, eps), indptr, indices, data, Y, Y_train, grad)


def tumap_transform_cost(indptr, indices, data, Y, Y_train, eps, n_threads):
    """Row terms of the t-UMAP cross-entropy (UMAP's with ``a = b = 1``) for new points."""
    return _transform_pair_cost(TUMAPUnit(eps), indptr, indices, data, Y, Y_train)


def tumap_transform_gradient(indptr, indices, data, Y, Y_train, eps, grad, n_threads):
    """Gradient of :func:`tumap_transform_cost` (exact when ``eps = 0``)."""
    _transform_pair_gradient(TUMAPUnit(eps), indptr, indices, data, Y, Y_train, grad)


def ncvis_transform_cost(indptr, indices, data, Y, Y_train, Q, nu, a, b, n_threads):
    r"""Row terms of the NCVis cost :math:`-J` for new points, ``Q`` fixed.

    The noise of new point ``s`` is :math:`\nu p_n(s)`, :math:`p_n(s) =
    \sum_k p_{sk} / N` over the ``N`` training points.
    """
    return _transform_pair_cost(NCVisUnit(Q, nu, a, b), indptr, indices, data, Y, Y_train)


def ncvis_transform_gradient(indptr, indices, data, Y, Y_train, Q, nu, a, b, grad, n_threads):
    """Gradient of :func:`ncvis_transform_cost` in the new points."""
    _transform_pair_gradient(NCVisUnit(Q, nu, a, b), indptr, indices, data, Y, Y_train, grad)
