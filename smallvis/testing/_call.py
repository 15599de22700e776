"""Calling the user's cost-and-gradient function (shared by the checks and the diagnosis)."""

import numpy as np
import scipy.sparse as sp


def call_user(fn, P, Y, learned, sparse):
    """Call ``fn(P, Y, *learned)`` on copies; return (cost, gradient, d_learned or None)."""
    P_arg = sp.csr_matrix(P) if sparse else P.copy()
    out = fn(P_arg, Y.copy(), *learned)
    if not isinstance(out, (tuple, list)) or len(out) not in (2, 3):
        raise TypeError("fn must return (cost, gradient)"
                        + (" or (cost, gradient, dcost_dQ)" if learned else "")
                        + f"; got {type(out).__name__}")
    cost = float(np.asarray(out[0]).reshape(()))
    grad = np.asarray(out[1], dtype=np.float64)
    if grad.shape != Y.shape:
        raise ValueError(f"the gradient has shape {grad.shape}; Y has shape {Y.shape}")
    d_learned = None
    if len(out) == 3:
        d_learned = np.atleast_1d(np.asarray(out[2], dtype=np.float64)).ravel()
    return cost, grad, d_learned
