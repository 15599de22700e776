"""InfoNCE (docs/theory.md §3.11): the expected loss, one Frullani integral per pair.

The loss is evaluated row by row (:func:`_infonce_rows`), with the maths in
the method's unit (:mod:`smallvis.methods.infonce`).
"""

import numpy as np

from ...methods.infonce.unit import InfoNCEUnit
from ._helpers import _dense, _gradient_from_coefficients, _squared_distances


def _infonce_rows(unit, P, D2, skip_self):
    """Each row's cost and the matrix of ``dC_i/d(d2_ik)`` (rows of ``P`` over the columns of ``D2``)."""
    n_rows, n_cols = D2.shape
    costs, K = np.zeros(n_rows), np.zeros((n_rows, n_cols))
    for i in range(n_rows):
        others = np.arange(n_cols) != i if skip_self else np.ones(n_cols, dtype=bool)
        phi = unit.weight(D2[i, others])
        pos = np.flatnonzero(P[i, others])
        costs[i], slopes = unit.row_cost_and_slopes(phi, pos, P[i, others][pos])
        K[i, others] = -slopes * phi * phi  # d phi / d(d2) = -phi^2
    return costs, K


def infonce_cost(indptr, indices, data, Y, m, n_threads):
    r"""The expected InfoNCE loss of a map (:mod:`smallvis.methods.infonce`).

    .. math::

        C = \sum_{i \ne j} p_{ij} \Bigl[-\log \phi_{ij} + \int_0^\infty
            \bigl(e^{-t} - e^{-\phi_{ij} t} M_i(t)^m\bigr) \frac{dt}{t}\Bigr],
        \qquad M_i(t) = \frac{1}{N - 1} \sum_{k \ne i} e^{-t \phi_{ik}},

    the integral by the trapezoid rule in :math:`\log t`
    (:meth:`~smallvis.methods.infonce.unit.InfoNCEUnit.row_cost_and_slopes`).
    """
    n = Y.shape[0]
    costs, _ = _infonce_rows(InfoNCEUnit(m), _dense(indptr, indices, data, n),
                             _squared_distances(Y), True)
    return float(costs.sum())


def infonce_gradient(indptr, indices, data, Y, m, grad, n_threads):
    r"""Gradient of :func:`infonce_cost`: the analytic derivative of the same quadrature.

    .. math::

        \frac{\partial C}{\partial y_i} = 2 \sum_{k \ne i} (K_{ik} + K_{ki})(y_i - y_k),
        \qquad K_{ik} = \frac{\partial C_i}{\partial d_{ik}^2}
        = -\phi_{ik}^2 \frac{\partial C_i}{\partial \phi_{ik}},

    :math:`C_i` row ``i``'s terms, which depend on every :math:`\phi_{ik}`
    through :math:`M_i`.
    """
    n = Y.shape[0]
    _, K = _infonce_rows(InfoNCEUnit(m), _dense(indptr, indices, data, n),
                         _squared_distances(Y), True)
    grad[...] = 2.0 * _gradient_from_coefficients(K + K.T, Y)
