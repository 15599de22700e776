"""The battery of (P, Y) cases on which :func:`check_gradient` runs.

Every case is a valid input for its method: ``P`` is built from data ``X``
by :func:`smallvis.affinities` (exact nearest neighbours), and ``Y`` is the
first principal components of ``X``, standardised and multiplied by a scale.
The battery covers

* dense ``P`` (calibrated over all points) and kNN-sparse ``P``;
* real data (iris and digits subsets) and synthetic Gaussian blobs;
* sizes from the smallest legal one (two points) to a few dozen;
* output dimensions 1, 2 and 3;
* ``Y`` at scales from 1e-3 to 1e3;
* near-coincident output points (two points 1e-7 apart).

The cases are small so that a slow implementation (a Python double loop)
still runs the whole battery in seconds.
"""

from dataclasses import dataclass, field

import numpy as np

from .. import datasets
from ..api import affinities
from ..registry import get_method

__all__ = ["GradientCase", "default_cases", "make_case"]

#: Scales of ``Y`` in the scale series on the synthetic data.
SCALES = (1e-3, 1e-1, 1.0, 1e1, 1e3)

#: Distance between the two near-coincident output points.
NEAR_COINCIDENT_GAP = 1e-7


@dataclass
class GradientCase:
    """One input on which a user's cost and gradient are compared.

    Attributes
    ----------
    name : str
        Short description, shown in reports.
    P : ndarray of shape (n_samples, n_samples)
        Input affinities of the method (dense; zeros off the kNN graph for
        kNN cases).
    Y : ndarray of shape (n_samples, n_components)
        Output coordinates.
    learned : dict
        Values of the method's learned scalars (``{"Q": ...}`` for ncvis).
    scale : float or None
        The scale of ``Y`` (its standard deviation per coordinate), if the
        case belongs to the scale series.
    finite_differences : bool
        Whether the finite-difference check applies (not for near-coincident
        points, where any useful step moves the pair by more than its
        distance).
    sparse : bool
        Whether ``P`` is a kNN graph rather than calibrated over all points.
    """

    name: str
    P: np.ndarray
    Y: np.ndarray
    learned: dict = field(default_factory=dict)
    scale: float = None
    finite_differences: bool = True
    sparse: bool = False

    @property
    def n_samples(self):
        return self.Y.shape[0]


def _standardised_layout(X, n_components):
    """First principal components of X, each scaled to standard deviation 1."""
    Xc = X - X.mean(axis=0)
    U, s, _ = np.linalg.svd(Xc, full_matrices=False)
    rank = int(np.sum(s > 1e-10 * s[0])) if s.size and s[0] > 0 else 0
    k = min(n_components, rank)
    Y = U[:, :k] * s[:k]
    if k < n_components:  # fewer features than output dimensions
        rng = np.random.default_rng(7)
        Y = np.hstack([Y, rng.standard_normal((len(X), n_components - k))])
    sd = Y.std(axis=0)
    sd[sd == 0] = 1.0
    return np.ascontiguousarray(Y / sd)


def method_affinities(method, X, n_neighbors=None):
    """A valid dense ``P`` of ``method`` for ``X`` (kNN-sparse with ``n_neighbors``).

    The method's registry entry gives the recipe
    (:attr:`smallvis.method_spec.Method.case_affinities`): asne's own affinities
    are calibrated over all points, and its kNN variant keeps each row's
    ``n_neighbors`` largest entries and renormalises the row; the joint
    methods take the dense joint ``P`` and t-SNE's kNN ``P``; the graph
    methods their own graph.
    """
    n = X.shape[0]
    perplexity = float(min(5.0, max(1.0, (n - 1) / 3.0)))
    return get_method(method).case_affinities(X, n_neighbors, perplexity, affinities)


def make_case(method, X, *, name, n_components=2, scale=1.0, n_neighbors=None,
              learned=None, near_coincident=False):
    """Build one :class:`GradientCase` of ``method`` from data ``X``.

    Parameters
    ----------
    method : str
    X : ndarray of shape (n_samples, n_features)
    name : str
    n_components : int, default=2
    scale : float, default=1.0
        Standard deviation of each output coordinate.
    n_neighbors : int or None
        kNN-sparse ``P`` with this many neighbours; None: all points.
    learned : dict or None
        The learned scalars (ncvis: ``{"Q": value}``); default: the
        method's starting values (ncvis's Q = 0).
    near_coincident : bool, default=False
        Move point 1 to within 1e-7 of point 0.
    """
    m = get_method(method)
    X = np.asarray(X, dtype=np.float64)
    P = method_affinities(method, X, n_neighbors)
    Y = _standardised_layout(X, n_components) * scale
    if near_coincident:
        direction = np.ones(n_components) / np.sqrt(n_components)
        Y[1] = Y[0] + NEAR_COINCIDENT_GAP * scale * direction
    if learned is None:  # the method's own start (ncvis: Q = 0)
        start = m.resolve_auto(dict(m.cost_params), X.shape[0])
        learned = {k: float(start[k]) for k in m.learned}
    return GradientCase(name=name, P=P, Y=Y, learned=dict(learned), scale=scale,
                        finite_differences=not near_coincident,
                        sparse=n_neighbors is not None)


def _iris(n_per_class):
    X, y = datasets.load("iris")
    rows = np.concatenate([np.flatnonzero(y == c)[:n_per_class] for c in range(3)])
    return X[rows]


def _digits(n):
    X, _ = datasets.load("digits")
    return X[:n]


def _blobs(n, dim=5, seed=2026):
    rng = np.random.default_rng(seed)
    centres = 4.0 * rng.standard_normal((3, dim))
    return centres[np.arange(n) % 3] + rng.standard_normal((n, dim))


def default_cases(method):
    """The kit's battery of cases for ``method``: what :func:`check_gradient` tries by default.

    Small, varied and deterministic: the smallest problems (2 points, 3
    points in one dimension), 30 iris rows with a dense ``P`` and with a kNN
    ``P``, 36 digits in three dimensions, 24 points of two blobs with their
    map at scales 1e-3 to 1e3 (where a gradient's far-field or
    near-field mistakes show), and a pair of points 1e-7 apart.  A method
    with a learned normalisation (ncvis's ``Q``) gets cases at other values
    of it.

    Parameters
    ----------
    method : str
        A registered method or alias (:func:`smallvis.list_methods`).

    Returns
    -------
    list of GradientCase
        Each with its ``P``, ``Y``, parameters and a name that reports use;
        pass a part of it, or cases of your own (:func:`make_case`), as
        ``cases=`` to :func:`check_gradient`.
    """
    m = get_method(method)
    q = "Q" in m.learned
    iris, digits, blobs = _iris(10), _digits(36), _blobs(24)
    cases = [
        make_case(method, _blobs(2), name="smallest: 2 points"),
        make_case(method, _blobs(3), name="3 points, 1-D", n_components=1),
        make_case(method, iris, name="iris 30, dense P"),
        make_case(method, iris, name="iris 30, kNN P (k=6)", n_neighbors=6,
                  learned={"Q": 2.0} if q else None),
        make_case(method, digits, name="digits 36, kNN P (k=8), 3-D", n_neighbors=8,
                  n_components=3, learned={"Q": -1.0} if q else None),
    ]
    for s in SCALES:
        cases.append(make_case(method, blobs, name=f"blobs 24, dense P, scale {s:g}", scale=s))
    cases.append(make_case(method, blobs, name="blobs 24, kNN P (k=5)", n_neighbors=5))
    cases.append(make_case(method, iris, name="iris 30, near-coincident pair (1e-7)",
                           near_coincident=True, n_neighbors=6))
    return cases
