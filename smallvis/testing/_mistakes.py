"""Known mistakes and conventions, and the reference split into its two terms.

:func:`check_gradient` compares a user's function with each entry of
:data:`KNOWN_MISTAKES` for its method; a match names the mistake in the
report.  Which mistakes a method has is part of its registry entry
(:attr:`smallvis.method_spec.Method.known_mistakes`): names of entries of
:data:`CATALOGUE`, each a small dense NumPy cost/gradient written the way
the mistake is usually made, or a :class:`~smallvis.method_spec.Confusion` with
another method, which is matched against that method's reference.
:func:`reference_terms` splits the reference gradient into the part that is
linear in ``P`` (attraction) and the part that does not depend on ``P``
(repulsion), for the attraction/repulsion diagnosis.
"""

from dataclasses import dataclass
from typing import Callable

import numpy as np
import scipy.sparse as sp

from ..backends import reference
from ..inputs.affinities import kernel_triplet
from ..registry import METHODS, Confusion, get_method

__all__ = ["CATALOGUE", "KNOWN_MISTAKES", "Mistake", "reference_terms", "resolved_params"]


@dataclass(frozen=True)
class Mistake:
    """A known way of getting a method's cost or gradient wrong.

    Attributes
    ----------
    description : str
        What the report says when the user's function matches.
    function : callable
        ``function(P, Y, params) -> (cost or None, gradient)`` with dense
        ``P`` and the resolved cost parameters (see :func:`resolved_params`).
    """

    description: str
    function: Callable


def resolved_params(method, method_params, n_samples):
    """The cost parameters of ``method`` with defaults filled and ``a, b`` fitted."""
    m = get_method(method)
    # the cost parameters only: no affinity parameter is fitted to n_samples
    # (nor warned about) here
    _, cost = m.split_params(dict(method_params), None)
    if n_samples is not None:
        cost = m.resolve_auto(cost, n_samples)
    if not m.fitted_params:
        return cost
    # "auto" values (resolved per case when n_samples is None) do not change
    # the fitted parameters read here
    _, args = m.kernel_name(m.resolve_auto(cost, 2 if n_samples is None else n_samples))
    return {**cost, **dict(zip(m.fitted_params, args))}


def _d2(Y):
    diff = Y[:, None, :] - Y[None, :, :]
    return np.einsum("ijk,ijk->ij", diff, diff)


def _forces(K, Y):
    """sum_j K_ij (y_i - y_j) for a dense coefficient matrix K (diagonal ignored)."""
    K = K.copy()
    np.fill_diagonal(K, 0.0)
    return K.sum(axis=1)[:, None] * Y - K @ Y


def _kl(P, Qm):
    off = ~np.eye(len(P), dtype=bool)
    mask = off & (P > 0)
    return float(np.sum(P[mask] * np.log(P[mask] / Qm[mask])))


def _gaussian_output_kernel(P, Y, params):
    W = np.exp(-_d2(Y))
    np.fill_diagonal(W, 0.0)
    Qm = W / W.sum()
    return _kl(P, Qm), _forces(4.0 * (P - Qm) * W, Y)


def _unsquared_repulsion(P, Y, params):
    W = 1.0 / (1.0 + _d2(Y))
    np.fill_diagonal(W, 0.0)
    Qm = W / W.sum()
    return _kl(P, Qm), _forces(4.0 * (P * W - Qm), Y)


def _row_normalised_q(P, Y, params):
    W = 1.0 / (1.0 + _d2(Y))
    np.fill_diagonal(W, 0.0)
    Qm = W / W.sum(axis=1, keepdims=True)
    return _kl(P, Qm), _forces(4.0 * (P - Qm) * W, Y)


def _unnormalised_q(P, Y, params):
    W = 1.0 / (1.0 + _d2(Y))
    np.fill_diagonal(W, 0.0)
    return _kl(P, W), _forces(4.0 * (P - W) * W, Y)


def _z_with_diagonal(P, Y, params):
    W = 1.0 / (1.0 + _d2(Y))
    np.fill_diagonal(W, 0.0)
    # the diagonal's weights 1 / (1 + 0) added to the normaliser
    Qm = W / (W.sum() + len(W))
    return _kl(P, Qm), _forces(4.0 * (P - Qm) * W, Y)


def _repulsion_without_1_minus_v(P, Y, params):
    a, b = params.get("a", 1.0), params.get("b", 1.0)
    D2 = _d2(Y)
    np.fill_diagonal(D2, 1.0)
    W = 1.0 / (1.0 + a * D2 ** b)
    K = 4.0 * (a * b * D2 ** (b - 1.0) * W * P - b * W / D2)
    return None, _forces(K, Y)


def _reference_of(other):
    def function(P, Y, params):
        from ..api import cost_and_gradient

        keep = {k: v for k, v in params.items() if k in get_method(other).cost_params}
        return cost_and_gradient(other, P, Y, **keep)
    return function


#: The known mistakes, by name; a method's registry entry lists those that
#: apply to it (:attr:`smallvis.method_spec.Method.known_mistakes`).
CATALOGUE = {
    "gaussian_output_kernel": Mistake(
        "a Gaussian output kernel exp(-d^2) instead of t-SNE's Student-t 1 / (1 + d^2)",
        _gaussian_output_kernel),
    "unsquared_repulsion": Mistake(
        "the kernel power missing from the repulsion: 4 sum (p_ij w_ij - q_ij)"
        "(y_i - y_j) instead of 4 sum (p_ij - q_ij) w_ij (y_i - y_j); the repulsion "
        "needs q_ij w_ij, which is proportional to w_ij squared",
        _unsquared_repulsion),
    "row_normalised_q": Mistake(
        "Q normalised per row (q_ij = w_ij / sum_k w_ik) instead of over all pairs "
        "(q_ij = w_ij / sum_kl w_kl)", _row_normalised_q),
    "unnormalised_q": Mistake(
        "Q not normalised: q_ij = w_ij where t-SNE has q_ij = w_ij / Z, Z = sum_(k != l) "
        "w_kl (the repulsion comes out Z times too strong)", _unnormalised_q),
    "z_with_diagonal": Mistake(
        "the normaliser Z summed over all pairs including k = l: each w_kk = 1 adds 1, "
        "so Z is N too large; t-SNE's Z = sum_(k != l) w_kl", _z_with_diagonal),
    "repulsion_without_1_minus_v": Mistake(
        "the repulsion without its (1 - v_ij) factor, as negative sampling "
        "approximates it; the exact gradient has b (1 - v_ij) w_ij / d_ij^2",
        _repulsion_without_1_minus_v),
    "repulsion_without_1_minus_v_cauchy": Mistake(
        "the repulsion without its (1 - v_ij) factor, as negative sampling "
        "approximates it; the exact gradient has (1 - v_ij) w_ij / d_ij^2",
        _repulsion_without_1_minus_v),
}


def _mistake(entry):
    """The :class:`Mistake` of one item of ``Method.known_mistakes``."""
    if isinstance(entry, Confusion):
        return Mistake(f"{entry.description} (your function matches smallvis's "
                       f"{entry.method})", _reference_of(entry.method))
    return CATALOGUE[entry]


#: Known mistakes per method, checked in this order.
KNOWN_MISTAKES = {name: tuple(_mistake(entry) for entry in m.known_mistakes)
                  for name, m in METHODS.items() if m.known_mistakes}


def reference_terms(method, P, Y, params):
    """Split the reference gradient into attraction and repulsion.

    The attraction is the part of the gradient that is linear in ``P``, the
    repulsion the part that does not depend on ``P`` (for a ``P`` with the
    method's normalisation).  It is computed as the reference gradient with
    ``P`` set to zero, which the kernels accept (``cost_and_gradient`` would
    not: a ``P`` without positive entries is no valid input).

    Returns
    -------
    (attraction, repulsion) : tuple of ndarray, or None for ncvis (whose
    noise distribution depends on ``P`` too).
    """
    m = get_method(method)
    if m.learned:
        return None
    cost_params = {k: params.get(k, default) for k, default in m.cost_params.items()}
    _, gradient_fn, args = m.cost_kernels(reference, cost_params)
    indptr, indices, data = kernel_triplet(sp.csr_matrix(P))
    Yc = np.ascontiguousarray(Y, dtype=np.float64)
    full = np.zeros_like(Yc)
    repulsion = np.zeros_like(Yc)
    with np.errstate(all="ignore"):
        gradient_fn(indptr, indices, data, Yc, *args, full, 1)
        gradient_fn(indptr, indices, np.zeros_like(data), Yc, *args, repulsion, 1)
    return full - repulsion, repulsion
