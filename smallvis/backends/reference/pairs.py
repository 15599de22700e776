"""Costs summed over pairs (docs/theory.md §3.5-3.8, §3.10): the pair engine.

largevis, umap, tumap, ncvis, negtsne and any method added since have
un-normalised output weights and share one engine, :func:`_pair_cost` and
:func:`_pair_gradient` over all pairs, reached through the public
:func:`pair_cost` and :func:`pair_gradient`, which take the unit.  The named
kernels of the first five methods (``umap_cost``, ``largevis_gradient``, ...)
are thin wrappers that build the unit from their arguments.
"""

import numpy as np

from ...methods._common import unit_field_values
from ...methods.largevis.unit import LargeVisUnit, LargeVisExpUnit
from ...methods.ncvis.unit import NCVisUnit
from ...methods.tumap.unit import TUMAPUnit
from ...methods.umap.unit import UMAPUnit
from ._helpers import (_check_pair_arrays, _dense, _gradient_from_coefficients,
                       _indices_in_range, _squared_distances)


# The cost of these methods is a sum of pair terms f_i(p_ij, d_ij^2) over the
# ordered pairs i != j, and each unit (smallvis/methods/<name>.py) defines its
# term (``cost_term``) and the pair coefficient c = df/d(d^2) (``coefficient``)
# once.  Coincident points (d_ij = 0) exert no force: their direction is
# undefined.


def _off_diagonal_sum(M):
    """Sum of the entries of M off its diagonal."""
    return float(M.sum() - np.trace(M))


def _row_noise(unit, P, n_others):
    """``unit.noise`` of each row when the unit's cost depends on the row, else None."""
    return unit.noise(P.sum(axis=1, keepdims=True), n_others) if unit.row_noise else None


def _pair_cost(unit, indptr, indices, data, Y, in_range=_indices_in_range):
    r"""The exact cost :math:`C = \sum_{i \ne j} f_i(p_{ij}, d_{ij}^2)` of a unit.

    Parameters
    ----------
    unit : NamedTuple
        A method unit with its parameters (e.g.
        :class:`smallvis.methods.largevis.unit.LargeVisUnit`).
    indptr, indices, data : ndarray
        ``P`` as a CSR triplet.
    Y : ndarray of shape (n_samples, n_components)

    Returns
    -------
    float
    """
    unit_field_values(unit)
    _check_pair_arrays(indptr, indices, data, Y, in_range=in_range)
    n = Y.shape[0]
    P = _dense(indptr, indices, data, n)
    noise = _row_noise(unit, P, n - 1)
    return _off_diagonal_sum(unit.cost_term(P, _squared_distances(Y), noise))


def _pair_gradient(unit, indptr, indices, data, Y, grad, in_range=_indices_in_range):
    r"""The exact gradient of :func:`_pair_cost`, from the unit's pair coefficient.

    With :math:`c_{ij} = \partial f_i / \partial d_{ij}^2` (the unit's
    ``coefficient``, smoothed by its ``eps``),

    .. math::

        \frac{\partial C}{\partial y_i} = 2 \sum_j (c_{ij} + c_{ji})(y_i - y_j),

    which is :math:`4 \sum_j c_{ij} (y_i - y_j)` when the term does not
    depend on the row (``P`` symmetric).  Writes ``grad``.

    Returns
    -------
    float or None
        The derivative in the unit's learned scalar (NCVis's ``Q``),
        :math:`\sum_{i \ne j} \partial f_i / \partial Q`; None without one.
    """
    unit_field_values(unit)
    _check_pair_arrays(indptr, indices, data, Y, grad, in_range=in_range)
    n = Y.shape[0]
    P = _dense(indptr, indices, data, n)
    D2 = _squared_distances(Y)
    noise = _row_noise(unit, P, n - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        C, dq = unit.coefficient(P, D2, noise)
    C = np.where(D2 > 0, C, 0.0)  # coincident points, and i = j
    if noise is None:
        grad[...] = 4.0 * _gradient_from_coefficients(C, Y)
    else:
        grad[...] = _gradient_from_coefficients(2.0 * (C + C.T), Y)
    if dq is None:
        return None
    return float(np.sum(np.where(~np.eye(n, dtype=bool), dq, 0.0)))


def pair_cost(unit, indptr, indices, data, Y, n_threads):
    r"""The exact cost of a pair unit: :math:`C = \sum_{i \ne j} f_i(p_{ij}, d_{ij}^2)`.

    The entry point of every method whose cost is a sum of pair terms: the
    registry's kernel rule calls it (through :meth:`smallvis.method_spec.Method.kernels`)
    for a method without named kernels.

    Parameters
    ----------
    unit : NamedTuple
        A method unit with its parameters (``smallvis/methods/<name>.py``).
    indptr, indices, data : ndarray
        ``P`` as a CSR triplet.
    Y : ndarray of shape (n_samples, n_components)
    n_threads : int
        Ignored here.

    Returns
    -------
    float
    """
    return _pair_cost(unit, indptr, indices, data, Y)


def pair_gradient(unit, indptr, indices, data, Y, grad, n_threads):
    r"""The exact gradient of :func:`pair_cost` (into ``grad``).

    .. math::

        \frac{\partial C}{\partial y_i} = 2 \sum_j (c_{ij} + c_{ji})(y_i - y_j),

    with :math:`c` the unit's pair coefficient.

    Returns
    -------
    float or None
        The derivative in the unit's learned scalar; None without one.
    """
    return _pair_gradient(unit, indptr, indices, data, Y, grad)


def largevis_cost(indptr, indices, data, Y, gamma, eps, alpha, n_threads):
    """LargeVis cost, the form R smallvis minimises (:class:`.LargeVisUnit`).

    ``alpha = 1`` is the Cauchy kernel of t-SNE.  ``eps`` regularises only
    the gradient and is ignored here.
    """
    return _pair_cost(LargeVisUnit(gamma, eps, alpha), indptr, indices, data, Y,
                      in_range=None)


def largevis_gradient(indptr, indices, data, Y, gamma, eps, alpha, grad, n_threads):
    """LargeVis gradient, ``P`` symmetric.

    The pair coefficient is
    :meth:`smallvis.methods.largevis.unit.LargeVisUnit.coefficient`.

    Exact when ``eps = 0``; LargeVis uses ``eps = 0.1``.
    """
    _pair_gradient(LargeVisUnit(gamma, eps, alpha), indptr, indices, data, Y, grad,
                   in_range=None)


def largevis_exp_cost(indptr, indices, data, Y, gamma, n_threads):
    """LargeVis cost with the exponential weight (:class:`.LargeVisExpUnit`)."""
    return _pair_cost(LargeVisExpUnit(gamma), indptr, indices, data, Y, in_range=None)


def largevis_exp_gradient(indptr, indices, data, Y, gamma, grad, n_threads):
    """LargeVis gradient with the exponential weight (``P`` symmetric)."""
    _pair_gradient(LargeVisExpUnit(gamma), indptr, indices, data, Y, grad, in_range=None)


def umap_cost(indptr, indices, data, Y, a, b, eps, n_threads):
    """UMAP cost: the fuzzy-set cross-entropy (:class:`.UMAPUnit`).

    The constant terms (in ``v`` only) are kept; ``0 log 0 = 0``.  ``eps``
    regularises only the gradient and is ignored here.
    """
    return _pair_cost(UMAPUnit(a, b, eps), indptr, indices, data, Y, in_range=None)


def umap_gradient(indptr, indices, data, Y, a, b, eps, grad, n_threads):
    """UMAP gradient for the exact optimizer (compact form; exact when ``eps = 0``)."""
    _pair_gradient(UMAPUnit(a, b, eps), indptr, indices, data, Y, grad, in_range=None)


def tumap_cost(indptr, indices, data, Y, eps, n_threads):
    """t-UMAP cost: UMAP's with ``a = b = 1`` (:class:`.TUMAPUnit`)."""
    return _pair_cost(TUMAPUnit(eps), indptr, indices, data, Y, in_range=None)


def tumap_gradient(indptr, indices, data, Y, eps, grad, n_threads):
    """t-UMAP gradient for the exact optimizer (R smallvis's form; exact when ``eps = 0``)."""
    _pair_gradient(TUMAPUnit(eps), indptr, indices, data, Y, grad, in_range=None)


def ncvis_cost(indptr, indices, data, Y, Q, nu, a, b, n_threads):
    r"""NCVis cost :math:`-J(Y, Q)`, the negated NCE objective (:class:`.NCVisUnit`).

    The noise distribution is :math:`p_n(i) = \sum_k p_{ik} / (N - 1)`.
    """
    return _pair_cost(NCVisUnit(Q, nu, a, b), indptr, indices, data, Y, in_range=None)


def ncvis_gradient(indptr, indices, data, Y, Q, nu, a, b, grad, n_threads):
    """Gradient of the NCVis cost in ``Y`` (written to ``grad``) and in ``Q``.

    Returns
    -------
    float
        The derivative in ``Q``.
    """
    return _pair_gradient(NCVisUnit(Q, nu, a, b), indptr, indices, data, Y, grad,
                          in_range=None)
