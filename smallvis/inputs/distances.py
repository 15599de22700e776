r"""The input metrics: how the neighbour searches and the dense P measure a distance.

Every search of the package (:class:`smallvis.inputs.neighbors.KNNIndex`:
exact, Annoy and its refinement, new points) and the all-pairs
calibration of the small-data builders measure distances through this
module, for one of :data:`METRICS`:

``"euclidean"`` (the default)
    :math:`\sqrt{\sum_f (x_f - y_f)^2}`.
``"cosine"``
    :math:`1 - x \cdot y / (|x| |y|)`.
``"correlation"``
    The cosine distance of the rows centred on their own means.
``"manhattan"``
    :math:`\sum_f |x_f - y_f|` (SciPy's ``"cityblock"``).
``"hamming"``
    The fraction of coordinates that differ, :math:`\#\{f : x_f \ne y_f\} / d`.

Each metric is computed from a *core* quantity of *prepared* rows, the one
the twin kernels ``knn_candidates`` and ``knn_refine`` sum
(:data:`KERNEL_CODES`) and the exact search takes from
:func:`scipy.spatial.distance.cdist`, so that both searches rank and report
the same numbers:

=============  ====================================  =======================  ===========
metric         prepared rows                          core                     distance
=============  ====================================  =======================  ===========
euclidean      ``x``                                  squared Euclidean        sqrt(core)
cosine         ``x / |x|``                            squared Euclidean        core / 2
correlation    ``(x - mean(x)) / |x - mean(x)|``      squared Euclidean        core / 2
manhattan      ``x``                                  sum of absolute diffs    core
hamming        ``x``                                  count of unequal         core / d
=============  ====================================  =======================  ===========

For unit rows :math:`u, v`, :math:`|u - v|^2 = 2 (1 - u \cdot v)`, so the
cosine distance is half the squared Euclidean distance of the normalised
rows: the same ranking, computed from differences (two equal directions
are at exactly 0, where ``1 - u.v`` leaves a rounding residue).  A row of
zeros has no direction: ``"cosine"`` refuses it, and ``"correlation"`` a
constant row, as their distance is undefined (SciPy returns NaN).
``"hamming"`` counts equal values, so it measures binary or categorical
data; a training row none of whose values occurs in another row of its
column (every row of continuous data) is at distance 1 from every other
row, and its neighbours would be chosen by their index alone:
:func:`check_hamming_rows` refuses it.

The Annoy forest indexes the prepared rows in Euclidean space for the
metrics whose core is the squared Euclidean distance (Euclidean distance
on unit rows ranks as Annoy's "angular"), in Annoy's "manhattan" space for
``"manhattan"``, and for ``"hamming"`` in Euclidean space on the one-hot
codes of the columns (:func:`hamming_codes`): the squared Euclidean
distance between one-hot codes is twice the number of differing
coordinates, so the forest ranks by the Hamming distance for any values,
binary or categorical, not only for the binary data of Annoy's own
"hamming" space (which packs bits).  The refinement and the reported
distances use the exact core either way.
"""

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import cdist, pdist, squareform

from .._numeric import power_of_two_exponent
from .._validation import ParameterError
from .precomputed import PRECOMPUTED, check_distance_matrix, check_distance_rows

__all__ = ["METRICS", "DEFAULT_METRIC", "KERNEL_CODES", "check_metric", "data_exponent",
           "check_resolved", "UNRESOLVED_SQ",
           "prepare", "unit_length_rows",
           "core_distances", "finish", "pairwise_distances", "annoy_space", "hamming_codes",
           "HAMMING_MAX_CODES", "check_hamming_rows"]

#: The metrics every path accepts.
METRICS = ("euclidean", "cosine", "correlation", "manhattan", "hamming")

DEFAULT_METRIC = "euclidean"

#: The core each metric's kNN kernels sum (``metric_code`` of the twins
#: ``knn_candidates`` and ``knn_refine``): 0 squared Euclidean, 1 sum of
#: absolute differences, 2 count of unequal coordinates.
KERNEL_CODES = {"euclidean": 0, "cosine": 0, "correlation": 0, "manhattan": 1, "hamming": 2}

#: Metrics whose distance changes with the scale of the data (the others
#: are measured on unit rows or count coordinates).
SCALED_METRICS = ("euclidean", "manhattan")

#: Most one-hot columns (distinct values summed over the columns) of the
#: Annoy forest of ``metric="hamming"`` (Annoy stores that many floats per
#: point); above, the exact search is the way (``knn_method="exact"``).
HAMMING_MAX_CODES = 4096

_CDIST_CORE = {0: "sqeuclidean", 1: "cityblock"}


def check_metric(metric, name="metric"):
    """``metric`` if it is one of :data:`METRICS` or "precomputed"; else a ``ParameterError``."""
    if not isinstance(metric, str) or metric not in METRICS + (PRECOMPUTED,):
        raise ParameterError(
            f"{name} must be one of {', '.join(map(repr, METRICS))} or 'precomputed' "
            f"(X holds the distances); got {metric!r}", (name,))
    return metric


def data_exponent(points, metric):
    """The power of two ``2**e`` the searches of ``metric`` measure ``points`` in.

    The units rule of every path (dense and sparse data, the fit and new
    points): ``e`` is the exponent of the largest entry of the rows the
    metric measures (:func:`prepare`'s, dense or sparse;
    :func:`smallvis._numeric.power_of_two_exponent`) for the metrics whose
    distance follows the units of the data (:data:`SCALED_METRICS`), so
    that no square over- or underflows; 0 for those measured on unit-length
    rows or by counting.
    """
    return power_of_two_exponent(points) if metric in SCALED_METRICS else 0


#: Squared distances, in the units of the data's largest entry, below which a
#: sum of squares has fallen into float64's subnormal range (below
#: ``2**-1022``, less a margin for the sum of up to ``2**52`` terms) and lost
#: the digits that order the neighbours.
UNRESOLVED_SQ = 2.0 ** -970

#: Entries compared at once by :func:`check_resolved` (bounds its copies).
RESOLVED_BLOCK_ELEMENTS = 2**22


def check_resolved(points, indices, sq_dist, exponent, name="X", rows=None):
    """Refuse data whose rows' nearest distances underflow in the units of the largest entry.

    Every path measures the data in units of ``2**exponent``, the power of
    two of their largest entry (:func:`data_exponent`), so that no square
    overflows.  Data whose entries span more than float64 can square in one
    unit (one entry of 1e200 among entries near 1) leave the squared
    distances between the other rows at 0 or subnormal there, and their
    neighbours would be chosen by index.  A row is unresolved when the
    farthest of its listed neighbours lies below :data:`UNRESOLVED_SQ` and
    one of them differs from it (duplicates are at 0 by right).

    Parameters
    ----------
    points : ndarray or scipy.sparse matrix of shape (n_samples, n_features)
        The rows as measured (in the data's own units).
    indices : ndarray of shape (n_samples, k)
        Each row's nearest other rows (in any order).
    sq_dist : ndarray of shape (n_samples, k)
        Their squared Euclidean distances in units of ``2**exponent``.
    exponent : int
    name : str, default="X"
    rows : ndarray of int, optional
        The rows of ``points`` that ``indices`` and ``sq_dist`` describe
        (default: all, in order).

    Raises
    ------
    ValueError
        Naming the first unresolved row, the unit, and what to do.
    """
    suspect = np.flatnonzero(sq_dist.max(axis=1) < UNRESOLVED_SQ)
    of_rows = np.arange(len(sq_dist)) if rows is None else np.asarray(rows, dtype=np.int64)
    # rows whose neighbours are all duplicates are suspects too (often, in
    # text or counts): compared in blocks, not row by row
    k = indices.shape[1]
    # a row's size: its features, or for sparse rows its stored entries
    width = points.nnz / max(points.shape[0], 1) if sp.issparse(points) else points.shape[1]
    block = max(1, int(RESOLVED_BLOCK_ELEMENTS // (k * max(width, 1))))
    for start in range(0, len(suspect), block):
        given = suspect[start:start + block]
        rows_of_x = of_rows[given]
        others = np.asarray(indices[given], dtype=np.int64).ravel()
        if sp.issparse(points):
            gap = abs(points[others] - points[np.repeat(rows_of_x, k)]).sum(axis=1)
            differ = np.asarray(gap).reshape(len(given), k) > 0
        else:
            differ = np.any(points[others].reshape(len(given), k, -1)
                            != points[rows_of_x][:, None, :], axis=2)
        unresolved = np.flatnonzero(differ.any(axis=1))
        if len(unresolved):
            i = rows_of_x[unresolved[0]]
            decimal = round(exponent * np.log10(2))
            raise ValueError(
                f"{name} spans too many orders of magnitude for float64 distances: measured "
                f"in units of its largest entry (2**{exponent}, about 1e{decimal}), "
                f"the squared distances from row {int(i)} to its nearest rows, which differ "
                f"from it, fall below {UNRESOLVED_SQ:.1e} and lose the digits that order "
                "them; rescale the columns (e.g. standardise them) or remove the outlying "
                "entries")


def prepare(X, metric, name="X", new_points=False):
    """The rows the searches of ``metric`` work on (see the module table).

    ``X`` is checked float64 data; it is returned as it is for the metrics
    that use the rows as given, else as a new C-contiguous array.  Raises
    ``ValueError`` for a row whose cosine (a row of zeros) or correlation
    (a constant row) distance is undefined, and, for the training data
    (``new_points`` False), a row that has no Hamming neighbours
    (:func:`check_hamming_rows`).
    """
    if metric == PRECOMPUTED:  # rows of distances (to the training points)
        return check_distance_rows(X, name)
    if metric == "hamming" and not new_points:
        check_hamming_rows(X, name)
    if metric not in ("cosine", "correlation"):
        return X
    R = X - X.mean(axis=1, keepdims=True) if metric == "correlation" else np.array(X)
    return np.ascontiguousarray(unit_length_rows(R, metric, name))


def unit_length_rows(R, metric, name="X"):
    """The rows of ``R`` scaled to unit length, in place (dense, or CSR with sorted rows).

    Each row is divided by its largest ``|entry|`` first, so that no square
    of its norm overflows or underflows, whatever the units of the data:
    the rule of the cosine and correlation metrics on every path.  Raises
    ``ValueError`` for a row of zeros, whose direction (and so its
    ``metric`` distance) is undefined.
    """
    sparse = sp.issparse(R)
    if sparse:
        top = np.asarray(abs(R).max(axis=1).todense(), dtype=np.float64).ravel()
    else:
        top = np.max(np.abs(R), axis=1) if R.shape[1] else np.zeros(R.shape[0])
    empty = ~(top > 0)
    if empty.any():
        if metric == "cosine":
            what, advice = "all zeros", (
                "drop them (of a CSR X, keep the rows where np.diff(X.indptr) > 0): under "
                "another metric an empty row of rows scaled to length 1 is at distance 1 "
                "from every row, nearer than most rows' own neighbours")
        else:
            what, advice = "constant", "drop them or use another metric"
        raise ValueError(
            f"{name} has {int(empty.sum())} row(s) that are {what} (first: row "
            f"{int(np.flatnonzero(empty)[0])}); their {metric} distance is undefined; "
            + advice)
    if sparse:
        lengths = np.diff(R.indptr)
        R.data /= np.repeat(top, lengths)
        norms = np.sqrt(np.add.reduceat(R.data * R.data, R.indptr[:-1]) if R.nnz
                        else np.zeros(R.shape[0]))
        R.data /= np.repeat(norms, lengths)
        return R
    R /= top[:, None]
    R /= np.sqrt(np.einsum("ij,ij->i", R, R))[:, None]
    return R


def check_hamming_rows(X, name="X"):
    """Refuse training rows whose Hamming distance to every other row is 1.

    Such a row holds, in every column, a value no other row holds: it is
    equally far from all the others, so its neighbours (and its ``P``)
    would be chosen by the rows' index, not by the data.  Continuous data
    are made of such rows.  With two rows the one neighbour is not a
    choice, and nothing is refused.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Checked float64 data (``-0.0`` and ``0.0`` are one value, as the
        distance counts them).
    name : str, default="X"
        How the message names the data.

    Raises
    ------
    ValueError
        Naming the metric, how many rows, the first of them, and what to
        do instead.
    """
    n = X.shape[0]
    if n < 3:
        return
    shared = np.zeros(n, dtype=bool)
    for f in range(X.shape[1]):
        _, inverse, counts = np.unique(X[:, f], return_inverse=True, return_counts=True)
        shared |= counts[inverse] > 1
        if shared.all():
            return
    alone = np.flatnonzero(~shared)
    raise ValueError(
        f"metric='hamming' counts equal values, and {name} has {alone.size} of {n} row(s) "
        f"whose every value occurs in no other row of its column (first: row {int(alone[0])}): "
        "each is at Hamming distance 1 from every other row, so its neighbours would be "
        "chosen by their index; give binary or categorical data (e.g. X != 0, or the "
        "values binned) or use another metric such as 'euclidean'")


def core_distances(A, B, metric):
    """The core quantity (module table) between prepared rows ``A`` and ``B``.

    :func:`scipy.spatial.distance.cdist`, summed in the order of the kNN
    kernels; the Hamming count is exact (an integer).  With
    ``"precomputed"``, ``A`` holds the distances to the rows of ``B``
    themselves: a copy of ``A``.
    """
    if metric == PRECOMPUTED:  # A holds rows of distances to the rows of B
        return np.array(A, dtype=np.float64)
    code = KERNEL_CODES[metric]
    if code in _CDIST_CORE:
        return cdist(A, B, _CDIST_CORE[code])
    return np.rint(cdist(A, B, "hamming") * A.shape[1])


def finish(core, metric, n_features, out=None):
    """The distances of ``metric`` from their core quantity (module table).

    ``out`` may be ``core`` (computed in place).
    """
    if metric == "euclidean":
        return np.sqrt(core, out=out)
    if metric == PRECOMPUTED:  # the distances themselves
        if out is None:
            return np.array(core)
        out[...] = core
        return out
    scale = {"cosine": 0.5, "correlation": 0.5, "manhattan": 1.0,
             "hamming": 1.0 / max(n_features, 1)}[metric]
    return np.multiply(core, scale, out=out)


def pairwise_distances(X, metric):
    """Dense symmetric ``(n, n)`` matrix of ``metric`` distances between the rows of ``X``.

    Each unordered pair computed once (``pdist``) from the prepared rows,
    as the searches compute it; zero diagonal.  ``X`` is checked data.
    """
    if metric == PRECOMPUTED:
        return np.array(check_distance_matrix(X))
    Z = prepare(X, metric)
    code = KERNEL_CODES[metric]
    if code in _CDIST_CORE:
        core = pdist(Z, _CDIST_CORE[code])
    else:
        core = np.rint(pdist(Z, "hamming") * Z.shape[1])
    return squareform(finish(core, metric, Z.shape[1], out=core), checks=False)


def annoy_space(metric):
    """Annoy's space for the forest of ``metric``'s prepared (or one-hot) rows."""
    return "manhattan" if metric == "manhattan" else "euclidean"


def hamming_codes(X, categories=None):
    """One-hot codes of the values of each column, for the Annoy forest of ``"hamming"``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    categories : list of ndarray, optional
        The sorted distinct values of each column (default: those of ``X``;
        pass the training data's for new points, whose unseen values get no
        code).

    Returns
    -------
    codes : ndarray of shape (n_samples, n_codes), float32
        ``|codes_i - codes_j|^2 = 2 * #{f : x_if != x_jf}`` (values seen in
        ``categories``).
    categories : list of ndarray
    """
    if categories is None:
        categories = [np.unique(X[:, f]) for f in range(X.shape[1])]
        n_codes = sum(len(c) for c in categories)
        if n_codes > HAMMING_MAX_CODES:
            raise ValueError(
                f"metric='hamming' with the Annoy search indexes one-hot codes of the "
                f"columns' values: X has {n_codes} distinct (column, value) pairs, more than "
                f"{HAMMING_MAX_CODES}; use knn_method='exact' (or fewer distinct values)")
    codes = np.zeros((X.shape[0], sum(len(c) for c in categories)), dtype=np.float32)
    start = 0
    for f, values in enumerate(categories):
        pos = np.searchsorted(values, X[:, f])
        pos = np.minimum(pos, len(values) - 1)
        seen = values[pos] == X[:, f]
        codes[np.flatnonzero(seen), start + pos[seen]] = 1.0
        start += len(values)
    return codes, categories
