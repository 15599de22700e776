"""Compare two embeddings up to translation, rotation and reflection.

Neighbour embeddings are defined only up to a rigid motion: the costs depend
on distances between output points, so a run that returns ``Y`` could just
as well have returned ``Y @ R + t`` for any orthogonal ``R``.  Two
implementations (or two versions of one) are compared after aligning one
result to the other by orthogonal Procrustes analysis.
"""

import numpy as np
from scipy.linalg import orthogonal_procrustes

__all__ = ["align_embedding", "assert_embeddings_close"]

#: How many of the worst points a failure message lists.
N_WORST_REPORTED = 5


def _as_embedding(Y, name):
    arr = np.asarray(Y)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a numeric array; got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_components); got shape {arr.shape}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def align_embedding(Y1, Y2, *, allow_scale=False):
    r"""Move ``Y2`` as close as possible to ``Y1`` by a rigid motion.

    Solves

    .. math::

        \min_{R^\top R = I,\; t,\; s} \; \| Y_1 - (s\, Y_2 R + t) \|_F

    with ``s = 1`` unless ``allow_scale``: both are centred, ``R`` is the
    orthogonal Procrustes rotation (reflections included) and ``t`` restores
    the centre of ``Y1``.

    Parameters
    ----------
    Y1 : array-like of shape (n_samples, n_components)
        The target embedding.
    Y2 : array-like of shape (n_samples, n_components)
        The embedding to move.
    allow_scale : bool, default=False
        Also fit one isotropic scale factor ``s``.

    Returns
    -------
    Y2_aligned : ndarray of shape (n_samples, n_components)
    """
    Y1 = _as_embedding(Y1, "Y1")
    Y2 = _as_embedding(Y2, "Y2")
    if Y1.shape != Y2.shape:
        raise ValueError(f"Y1 and Y2 must have the same shape; got {Y1.shape} and {Y2.shape}")
    c1 = Y1.mean(axis=0)
    A = Y1 - c1
    B = Y2 - Y2.mean(axis=0)
    R, trace = orthogonal_procrustes(B, A)  # B @ R ~ A
    aligned = B @ R
    if allow_scale:
        norm = float(np.sum(B * B))
        aligned *= trace / norm if norm > 0 else 1.0
    return aligned + c1


def assert_embeddings_close(Y1, Y2, *, atol=0.0, rtol=1e-7, allow_scale=False):
    r"""Assert that two embeddings agree up to translation, rotation and reflection.

    ``Y2`` is aligned to ``Y1`` with :func:`align_embedding`, then every
    point must satisfy

    .. math::

        \| y^{(1)}_i - y^{(2)}_i \| \le \mathrm{atol} + \mathrm{rtol}\cdot r,
        \qquad r = \max_k \| y^{(1)}_k - \bar y^{(1)} \|,

    the tolerance being relative to the radius ``r`` of ``Y1`` (a point's
    own distance from the centre is no measure of its precision).

    Parameters
    ----------
    Y1, Y2 : array-like of shape (n_samples, n_components)
        Embeddings of the same points, in the same order.
    atol : float, default=0
        Absolute tolerance on each point's distance.
    rtol : float, default=1e-7
        Tolerance relative to the radius of ``Y1``.
    allow_scale : bool, default=False
        Also allow one isotropic scale factor (for example between
        implementations whose costs differ by a constant factor of the
        output coordinates).

    Raises
    ------
    AssertionError
        With the number of points out of tolerance and the worst of them
        (index, distance after alignment, tolerance).
    """
    atol = float(atol)
    rtol = float(rtol)
    if not (atol >= 0 and rtol >= 0):
        raise ValueError(f"atol and rtol must be non-negative; got atol={atol}, rtol={rtol}")
    Y1 = _as_embedding(Y1, "Y1")
    aligned = align_embedding(Y1, Y2, allow_scale=allow_scale)
    radius = float(np.max(np.linalg.norm(Y1 - Y1.mean(axis=0), axis=1)))
    bound = atol + rtol * radius
    errors = np.linalg.norm(Y1 - aligned, axis=1)
    bad = np.flatnonzero(errors > bound)
    if bad.size == 0:
        return
    worst = bad[np.argsort(errors[bad])[::-1][:N_WORST_REPORTED]]
    lines = [
        "embeddings differ after alignment (rotation, reflection, translation"
        f"{' and scale' if allow_scale else ''}): {bad.size} of {len(errors)} points "
        f"are further apart than atol + rtol * radius = {bound:.3g} "
        f"(radius of Y1 = {radius:.3g}); worst points:"
    ]
    for i in worst:
        lines.append(f"  point {i}: distance {errors[i]:.3g} (Y1 {np.array2string(Y1[i], precision=4)}, "
                     f"aligned Y2 {np.array2string(aligned[i], precision=4)})")
    raise AssertionError("\n".join(lines))
