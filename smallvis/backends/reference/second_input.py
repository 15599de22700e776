r"""Costs with a second per-pair input beside ``P``: the two-input engine.

A method such as elastic embedding (a repulsion weighted per pair by the
input distances) or global t-SNE (a second, all-pairs ``P`` with its own
normaliser) has a cost of two parts,

.. math::

    C = C_1(P, Y) + \lambda\, C_2(R, Y),

each of which is a cost the pair or the normalised engine already runs:
the first on ``P``, the second on the second input ``R``.  The unit's
``parts()`` gives the two units and :math:`\lambda`; its field named by
``second_input`` holds ``R`` (:func:`~smallvis.methods._common.second_input_triplet`).
The entry points here run each part on its own engine and add them, so
that whatever those engines do (the dense and sparse ``P``, new points'
rows, the checks of their arrays) holds for both parts.
"""

import numpy as np

from ...methods._common import second_input_triplet, unit_engine, unit_field_values
from .normalised import normalised_cost, normalised_gradient
from .pairs import pair_cost, pair_gradient
from .transform import (normalised_transform_cost, normalised_transform_gradient,
                        pair_transform_cost, pair_transform_gradient)

_ENTRIES = {"pair": (pair_cost, pair_gradient, pair_transform_cost, pair_transform_gradient),
            "normalised": (normalised_cost, normalised_gradient, normalised_transform_cost,
                           normalised_transform_gradient)}


def _parts(unit):
    """``((first, its entries), (second, its entries), weight)`` of a two-input unit."""
    unit_field_values(unit)
    first, second, weight = unit.parts()
    return (first, _ENTRIES[unit_engine(first)]), (second, _ENTRIES[unit_engine(second)]), weight


def second_input_cost(unit, indptr, indices, data, Y, n_threads):
    r"""The exact cost of a two-input unit: :math:`C = C_1(P) + \lambda C_2(R)`.

    Parameters
    ----------
    unit : NamedTuple
        A unit with a second per-pair input (``second_input``, ``parts``).
    indptr, indices, data : ndarray
        ``P`` as a CSR triplet.
    Y : ndarray of shape (n_samples, n_components)
    n_threads : int
        Passed to the parts' engines (ignored here).

    Returns
    -------
    float
    """
    (first, e1), (second, e2), weight = _parts(unit)
    cost = e1[0](first, indptr, indices, data, Y, n_threads)
    if weight != 0.0:
        R = second_input_triplet(unit, Y.shape[0])
        cost += weight * e2[0](second, *R, Y, n_threads)
    return float(cost)


def second_input_gradient(unit, indptr, indices, data, Y, grad, n_threads):
    r"""The exact gradient of :func:`second_input_cost` (into ``grad``).

    .. math::

        \frac{\partial C}{\partial y_i} = \frac{\partial C_1}{\partial y_i}
            + \lambda \frac{\partial C_2}{\partial y_i}.

    Returns
    -------
    None
        No learned scalar.
    """
    (first, e1), (second, e2), weight = _parts(unit)
    e1[1](first, indptr, indices, data, Y, grad, n_threads)
    if weight != 0.0:
        R = second_input_triplet(unit, Y.shape[0])
        other = np.zeros_like(grad)
        e2[1](second, *R, Y, other, n_threads)
        grad += weight * other
    return None


def second_input_transform_cost(unit, indptr, indices, data, Y, Y_train, n_threads):
    r"""The cost of new points ``Y`` against a fixed ``Y_train``: both parts' transform costs.

    ``P`` holds the new points' rows; the unit's second input their rows of
    ``R`` against the training points (``M x N``).
    """
    (first, e1), (second, e2), weight = _parts(unit)
    cost = e1[2](first, indptr, indices, data, Y, Y_train, n_threads)
    if weight != 0.0:
        R = second_input_triplet(unit, Y.shape[0], Y_train.shape[0])
        cost += weight * e2[2](second, *R, Y, Y_train, n_threads)
    return float(cost)


def second_input_transform_gradient(unit, indptr, indices, data, Y, Y_train, grad, n_threads):
    """Gradient of :func:`second_input_transform_cost` in the new points (into ``grad``)."""
    (first, e1), (second, e2), weight = _parts(unit)
    e1[3](first, indptr, indices, data, Y, Y_train, grad, n_threads)
    if weight != 0.0:
        R = second_input_triplet(unit, Y.shape[0], Y_train.shape[0])
        other = np.zeros_like(grad)
        e2[3](second, *R, Y, Y_train, other, n_threads)
        grad += weight * other
    return None
