"""Calling the user's cost-and-gradient function (shared by the checks and the diagnosis)."""

import numpy as np
import scipy.sparse as sp


class UserOutputError(ValueError):
    """The user's function returned something that is not a real cost and gradient.

    Raised by :func:`call_user`; :func:`smallvis.testing.check_gradient`
    reports it as the case's failure ("fn returned ..."), never as a pass
    and never as an exception raised by ``fn`` itself.
    """


def _real_array(value, what):
    """``value`` as a float64 array, or UserOutputError saying why it is not real."""
    return _checked_real(value, what).astype(np.float64)


def _checked_real(value, what):
    arr = np.asarray(value)
    if np.iscomplexobj(arr):
        raise UserOutputError(f"{what} is complex (dtype {arr.dtype}); return real values")
    if arr.dtype.kind not in "biuf":
        raise UserOutputError(f"{what} must be real numbers; got dtype {arr.dtype}")
    return arr


def returned_eps(out):
    """Machine epsilon of the least precise floating type among ``fn``'s return values.

    float64's for integers, Python floats and float64 arrays; float32's
    (about 1.2e-7) when the cost or the gradient comes back as float32,
    as from a GPU or a single-precision build.
    """
    eps = np.finfo(np.float64).eps
    for value in out:
        dtype = np.asarray(value).dtype
        if dtype.kind == "f":
            eps = max(eps, float(np.finfo(dtype).eps))
    return eps


def call_user(fn, P, Y, learned, sparse, *, precision=False):
    """Call ``fn(P, Y, *learned)`` on copies; return (cost, gradient, d_learned or None).

    With ``precision=True`` a fourth value follows: :func:`returned_eps`
    of what ``fn`` returned.

    Exceptions raised by ``fn`` propagate as they are; a return value that is
    not ``(cost, gradient)`` (or ``(cost, gradient, dcost_dQ)`` with learned
    scalars) of real numbers, the cost a scalar (a number or a 0-d array: an
    array of shape ``(1,)`` or ``(1, 1)`` is not a scalar) and the gradient of
    the shape of ``Y``, raises :class:`UserOutputError`.
    """
    P_arg = sp.csr_matrix(P) if sparse else P.copy()
    out = fn(P_arg, Y.copy(), *learned)
    if not isinstance(out, (tuple, list)) or len(out) not in (2, 3):
        raise UserOutputError("fn must return (cost, gradient)"
                              + (" or (cost, gradient, dcost_dQ)" if learned else "")
                              + f"; got {type(out).__name__}")
    if len(out) == 3 and not learned:
        raise UserOutputError("fn returned three values, but the method learns no scalar "
                              "(such as ncvis's Q): return (cost, gradient)")
    cost = _real_array(out[0], "the cost")
    if cost.ndim != 0:
        raise UserOutputError(f"the cost must be a scalar; got an array of shape {cost.shape}")
    grad = _real_array(out[1], "the gradient")
    if grad.shape != Y.shape:
        raise UserOutputError(f"the gradient has shape {grad.shape}; Y has shape {Y.shape}")
    d_learned = None
    if len(out) == 3:
        d_learned = np.atleast_1d(_real_array(out[2], "the derivative in the learned "
                                                      "scalars")).ravel()
    if precision:
        return float(cost.reshape(())), grad, d_learned, returned_eps(out)
    return float(cost.reshape(())), grad, d_learned
