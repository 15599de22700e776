r"""Placing new points into a fitted embedding, the training map fixed.

:class:`TrainingMap` holds what a fitted run leaves behind (training data,
coordinates, the method's settings) and places new points into it with
:meth:`TrainingMap.transform`, in four steps (docs/theory.md §6):

1. **Neighbours.**  The ``k`` nearest training points of each new point,
   from the :class:`smallvis.inputs.neighbors.KNNIndex` over the training data
   (:meth:`TrainingMap.knn_index`), the index the fit's own kNN graph comes
   from: the same distance, the same tie rule ((snapped distance, index)),
   exact search when the training set has at most
   :data:`smallvis.inputs.neighbors.EXACT_MAX_N` points, otherwise the Annoy forest
   (seeded from the fitted seed, built on one thread, so it is the same in
   every process; it is rebuilt, not stored) followed by the fit's
   neighbour-of-neighbour refinement, so new points get the fit's recall.
   Distances are measured in the fit's units (a power of two when the data
   are very large or very small, the larger of the training data's and the
   new point's own, so a new point at 1e160 against data near 1 neither
   overflows nor underflows; a power of two is exact, so a change of units
   by one changes no bit of the placement).  A point farther than
   ``2**FAR_EXPONENT`` times the training data's extent from their centre
   has distances that tie in float64; its neighbours are ranked (and, for
   the perplexity methods, its row calibrated) by the projection form of
   the distance (:meth:`smallvis.inputs.neighbors.KNNIndex.query_scaled`): they
   are the training points extreme in its direction, as in exact
   arithmetic.
2. **Affinities.**  Each new point's row of ``P``, by the method's own rule,
   read from the registry entry: perplexity calibration over ``k =
   min(floor(3 perplexity), N)`` neighbours (the twin kernel
   ``perplexity_rows``) for the methods with a ``perplexity``; smooth-kNN
   memberships for the fuzzy methods (umap, tumap), the new point's row
   built exactly as a training point's (``n_neighbors - 1`` others and the
   point itself, kernel ``smooth_knn_rows``); kNN indicators over
   ``n_neighbors`` neighbours otherwise (ncvis).  Rows of a normalised
   ``P`` are scaled so that they sum to the mean row sum of the training
   ``P`` (``sum(P) / N``): the new point then weighs attraction against the
   fitted repulsion (LargeVis's ``gamma``, NCVis's ``Q``) as a training
   point does.  Fuzzy memberships are not scaled.  The calibrations run on
   each row's distances divided by the row's largest
   (:func:`relative_distances`), so that their search, which stops at a
   tolerance, takes the same path in any units: the rows of ``c X`` and
   ``X`` agree to rounding for any ``c``.
3. **Start.**  The ``P``-weighted mean of the neighbours' fitted positions
   (as umap-learn and openTSNE).
4. **Optimisation.**  The method's ``<kernel>_transform_cost`` and
   ``_gradient`` twins (:mod:`smallvis.backends.reference`): the terms of each new
   point's own row of the method's cost, over every training point, with the
   training coordinates fixed.  **New points do not interact**: a point is
   placed as if it were the only one added, as umap-learn and openTSNE do.
   Repulsion between new points would make a point's position depend on the
   batch it arrived in, and transforming a large batch (or the training set
   itself) would count the data's density twice.  The optimizer
   is the fit's own, :func:`smallvis.engines.optim.optimize_exact` (delta-bar-delta
   with momentum), run on the new points' rows with the settings of
   :func:`placement_settings`: no re-centring (the training map's frame is
   fixed), the step of point ``s`` scaled by ``1 / sum_j p_sj`` so that one
   learning rate suits every method (normalised and fuzzy ``P`` differ in
   scale by a factor ``N``), each step clipped to :data:`MAX_STEP` times
   the typical distance between training neighbours in the embedding, and
   exactly ``n_iter`` iterations.

When the fit used the stochastic optimizer (``optimizer="sgd"``, the
default of every method with a stochastic form above its spec's
``auto_min_n``: 5,000 points for largevis and negtsne, 1,000 for umap,
tumap and ncvis, any size for infonce), the new points are placed by the
fit's stochastic engine instead
(:meth:`TrainingMap._place_sgd`: :func:`smallvis.engines.sgd.optimize_sgd` on the
problem of :func:`smallvis.engines.sgd.prepare_frozen`, umap-learn's transform:
edge samples and uniform negatives from the training points, the training
rows frozen, the method's coefficients, clip, learning rate and decay from
its registry ``sgd`` spec): O(M k) per epoch instead of O(M N).  Its
negatives are drawn by the package's counter-based generator keyed by
(seed, epoch, the edge's key, draw), the key being built from a hash of the
point's set of training neighbours (:func:`neighbour_keys`), never from its
position in the batch or the batch's size.

Every operation of both forms is per point, so with ``n_threads=1`` (and
with any number of threads for the exact form: each point's row is computed
by one thread) the result for a point is the same bit for bit whatever else
is in the batch and in whatever order, and a fixed ``random_state`` gives
the same output in every process.  A placement that is not finite, or
whose squared distances would overflow float64 (a fitted map too wide for
float64), raises ``ValueError``.
The exact restricted gradient costs O(M N) per iteration for M new points
against N training points.
"""

from dataclasses import dataclass, field, replace

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import cdist

from . import _progress, _threads
from .inputs.affinities import (MIN_K_DIST_SCALE, PERPLEXITY_MAX_TRIES, PERPLEXITY_TOL,
                                SMOOTH_K_N_ITER, SMOOTH_K_TOL)
from .backends._backend import kernels as select_kernels
from .backends._sgd_reference import _absorb
from .backends.reference.transform import fixed_row_sums
from ._validation import (MAX_TRANSFORM_ITERATIONS, _as_array, check_data, check_iterations,
                          check_number, check_threads, coordinate_span_overflows)
from .registry import get_method
from .families import distance_unit
from .inputs.neighbors import EXACT_MAX_N, KNNIndex, check_points
from .inputs._new_points import FAR_EXPONENT
# re-exported: smallvis.transform.NotFittedError is a public spelling too
from .exceptions import NotFittedError  # noqa: F401
from .inputs.precomputed import NO_DATA_TO_PLACE, is_graph
from .inputs.sparse_search import searched_exactly
from .engines.optim import DivergenceError, OptimizerSettings, optimize_exact
from .engines.sgd import optimize_sgd, prepare_frozen

#: Default number of iterations of the transform optimisation.
TRANSFORM_N_ITER = 100

#: Default learning rate, relative to ``1 / sum_j p_sj`` per point (see the
#: module docstring); chosen on the digits split of benchmarks/bench_transform.py.
TRANSFORM_LEARNING_RATE = 0.5

#: Momentum for the first quarter of the iterations, then the final momentum.
TRANSFORM_MOMENTUM = (0.5, 0.8)

#: Largest step of a coordinate per iteration, in units of the median
#: distance between training points and their nearest neighbour in the
#: embedding.
MAX_STEP = 2.0

#: Affinity parameters that a :class:`TrainingMap` does not keep: the
#: training data's own neighbours, and the backend that searched them.
UNSTORED_AFFINITY_PARAMS = ("knn", "knn_method")



def check_new_points(X_new, n_features, name="X_new", sparse=False):
    """``X_new`` as a C-contiguous float64 array with ``n_features`` columns, or raise.

    ``sparse``: the training data were sparse; ``X_new`` may be dense or
    sparse and is returned as a canonical CSR matrix.

    Refused with a ``ValueError`` naming the problem: not 2-D, no rows, a
    different number of features from the training data, NaN or infinite
    values.  Nothing is changed by a refusal.
    """
    if sparse or sp.issparse(X_new):
        if not sparse:
            raise TypeError(f"{name} is sparse but the model was fitted on dense data; pass "
                            f"{name}.toarray()")
        arr = check_points(X_new if sp.issparse(X_new) else check_data(X_new, name, 1),
                           name, min_rows=1)
        if arr.shape[1] != n_features:
            raise ValueError(f"X has {arr.shape[1]} features, but the model is expecting "
                             f"{n_features} features as input")
        return sp.csr_matrix(arr)
    arr = _as_array(X_new, name)
    if arr.ndim == 1:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features); got a "
            f"1-D array of shape {arr.shape}; Reshape your data with "
            "x.reshape(1, -1) if it holds a single point"
        )
    if arr.ndim == 2 and arr.shape[0] == 0:
        raise ValueError(f"{name} is empty: it must have at least 1 row (new point); got 0")
    arr = check_data(arr, name, min_rows=1)  # numeric, 2-D, finite
    if arr.shape[1] != n_features:
        raise ValueError(
            f"X has {arr.shape[1]} features, but the model is expecting {n_features} "
            f"features as input ({name} must have the training data's columns)"
        )
    return arr


def check_transform_settings(n_iter, learning_rate, prefix=""):
    """:meth:`TrainingMap.transform`'s ``n_iter`` and ``learning_rate`` (> 0).

    ``n_iter`` is an integer in ``[0, MAX_TRANSFORM_ITERATIONS]``
    (:data:`smallvis._validation.MAX_TRANSFORM_ITERATIONS`).

    ``prefix`` goes before the names in messages (the estimator's
    ``transform_n_iter``).
    """
    return (check_iterations(n_iter, f"{prefix}n_iter", high=MAX_TRANSFORM_ITERATIONS),
            check_number(learning_rate, f"{prefix}learning_rate", low=0, low_open=True))


@dataclass(eq=False)
class TrainingMap:
    """A fitted embedding that new points are placed into.

    Attributes
    ----------
    method : str
        Registry name.
    X : ndarray of shape (n_samples, n_features)
        Training data (float64).
    Y : ndarray of shape (n_samples, n_components)
        Fitted coordinates (not modified).
    affinity_params, cost_params : dict
        The method's settings as the fit resolved them (``"auto"`` values
        resolved, learned scalars such as NCVis's ``Q`` at their fitted value).
    row_scale : float
        Multiplies the new rows of a normalised ``P``: the training ``P``'s
        sum divided by ``n_samples`` (1 for fuzzy memberships); unused by a
        method whose new rows sum to 1 (``Method.normalised_new_rows``).
    seed : int
        Seeds the Annoy forest of large training sets and the stochastic
        placement's negative samples.
    fast : bool
        Cython kernels (True) or the NumPy reference.
    optimizer : {"exact", "sgd"}
        The fit's optimizer: "sgd" (large training sets of the methods with a
        stochastic form) places new points by the stochastic form too.
    """

    method: str
    X: np.ndarray
    Y: np.ndarray
    affinity_params: dict
    cost_params: dict
    row_scale: float
    seed: int
    fast: bool = True
    optimizer: str = "exact"
    #: The fit's ``pca=`` projection (:class:`smallvis.inputs.projection.Projection`):
    #: ``X`` holds the training points' scores and new points are projected
    #: the same way.  None: ``X`` is the training data.
    projection: object = None
    _index: object = field(default=None, repr=False, compare=False)

    def __getstate__(self):
        # the search index is derived from X and the seed: rebuilt, not pickled
        state = self.__dict__.copy()
        state["_index"] = None
        state.pop("_fixed_rows", None)
        state.pop("_column_calibration", None)
        return state

    # ---- neighbours -----------------------------------------------------

    def check_places_new_points(self):
        """Raise ``ValueError`` if the fit has no data to place new points against.

        A fit made from a kNN graph (a sparse ``X`` with
        ``metric="precomputed"``) holds only the graph's distances between
        training points: a new point has no distances to them.
        """
        if is_graph(self.X, self.affinity_params.get("metric")):
            raise ValueError(NO_DATA_TO_PLACE)

    def n_features(self):
        """Columns of the new points: the training data's (before any projection)."""
        return self.X.shape[1] if self.projection is None else self.projection.components.shape[1]

    def takes_sparse(self):
        """Whether the fit's data were sparse (new points may be sparse too)."""
        if self.projection is not None:
            return self.projection.mean is None
        return sp.issparse(self.X)

    def uses_annoy(self):
        """Whether new points are searched with Annoy (large training sets), as the fit's "auto"."""
        if sp.issparse(self.X):
            return not searched_exactly(self.X)
        return self.X.shape[0] > EXACT_MAX_N

    def knn_index(self):
        """The :class:`smallvis.inputs.neighbors.KNNIndex` over the training data, built once.

        Exact search up to :data:`EXACT_MAX_N` training points, Annoy above
        (seeded from :attr:`seed`, ``n_trees`` as the fit's); never stored
        in model files nor pickles, rebuilt identically on first use.
        """
        method = "annoy" if self.uses_annoy() else "exact"
        if self.affinity_params.get("metric") == "precomputed":
            method = "exact"  # rows of distances: a selection, nothing to index
        if self._index is None or self._index.method != method:
            self._index = KNNIndex._of_checked(
                self.X, method=method, n_trees=self.affinity_params.get("n_trees"),
                random_state=int(self.seed) % (2**31 - 1), fast=self.fast,
                metric=self.affinity_params.get("metric", "euclidean"))
        return self._index

    def neighbors(self, X_new, k):
        """Indices and distances (of the fit's metric) of the ``k`` nearest training points."""
        if self.projection is not None:
            X_new = self.projection.apply(check_new_points(X_new, self.n_features(),
                                                           sparse=self.takes_sparse()))
        return self.knn_index().query(X_new, k)

    # ---- affinities -----------------------------------------------------

    def new_inputs(self, P):
        r"""The new points' own values of the fit's per-point cost parameters.

        For each of the method's ``input_params`` that the fit holds as an
        array (one value per training point, as the calibration gave it,
        basne's precisions :math:`\beta_j`), the new point ``s`` takes the
        geometric mean of its neighbours' values weighted by its row of
        ``P``:

        .. math::

            \beta_s = \exp\Bigl(\sum_j p_{j|s} \log \beta_j \Big/ \sum_j p_{j|s}\Bigr).

        The value of its neighbourhood in the fit, on the fit's footing: a
        calibration of the new row itself would run over other candidates
        than the fit's rows (its nearest neighbours, and itself among them
        when it is a training point again), and give a precision on another
        scale.  A number (the same for every point) stays as it is, and so
        do the method's ``pair_inputs`` (the training points' degrees, the
        columns' importances of :func:`smallvis.methods._common.pair_importances`):
        a new point is weighed against them, and its own value cancels
        from its row's normalisation.

        A second per-pair input (an ``N x N`` matrix ``R``, elastic
        embedding's repulsion weights) gives the new point its row against
        the training points, the mean of its neighbours' rows weighted by
        its row of ``P``:

        .. math::

            r_{sj} = \sum_k p_{sk}\, r_{kj} \Big/ \sum_k p_{sk},

        on the fit's scale (its normaliser), from the neighbours ``P``
        already found: for a pair whose value follows the input distance,
        a neighbour's distance to ``j`` differs from the new point's by at
        most their own distance.  A family that gives its own rule
        (:attr:`~smallvis.method_spec.AffinityFamily.new_pair_input`, the
        input distances inside each neighbourhood) builds the rows from
        the new points' rows of ``P`` instead.

        Parameters
        ----------
        P : scipy.sparse.csr_matrix of shape (n_new, n_samples)
            The new points' rows (:meth:`new_rows`).

        Returns
        -------
        dict
            ``{name: ndarray of shape (n_new,)}`` (``(n_new, n_samples)`` for a
            per-pair input); empty for the other methods.
        """
        m = get_method(self.method)
        inputs = {}
        for name in m.input_params:
            fitted = self.cost_params.get(name)
            if isinstance(fitted, np.ndarray) and name not in m.pair_inputs:
                row_sum = np.asarray(P.sum(axis=1)).ravel()
                rows_of = m.p_family.new_pair_input
                if fitted.ndim == 2 and rows_of is not None:  # the family's own rule
                    inputs[name] = np.ascontiguousarray(
                        rows_of(P, fitted, **self.affinity_params), dtype=np.float64)
                elif fitted.ndim == 2:  # a second per-pair input: its rows, mixed by P
                    inputs[name] = np.ascontiguousarray((P @ fitted) / row_sum[:, None])
                else:
                    inputs[name] = np.exp((P @ np.log(fitted)) / row_sum)
        return inputs

    def new_rows(self, X_new, kernels):
        """The new points' rows of ``P`` as an ``(M, N)`` CSR matrix.

        ``X_new`` as :func:`check_new_points` returns it (not checked again).
        """
        m = get_method(self.method)
        n, n_new = self.X.shape[0], X_new.shape[0]
        params = self.affinity_params
        if m.p_family.memberships:
            k = min(int(params["n_neighbors"]) - 1, n)
            # far points: every membership is 1 to within 1e-5 (sigma's floor,
            # 1e-3 of the mean distance, dwarfs the differences of distance)
            idx, dist, _, _ = self.knn_index()._query_checked(X_new, k)
            with_self = np.zeros((n_new, k + 1))
            with_self[:, 1:] = relative_distances(dist)
            sigma, rho = np.zeros(n_new), np.zeros(n_new)
            target = np.log2(k + 1) * float(params["bandwidth"])
            for s in _rows_reported(n_new):  # one row per call: no statistic across rows
                kernels.smooth_knn_rows(with_self[s:s + 1], float(target),
                                        float(params["local_connectivity"]), SMOOTH_K_TOL,
                                        SMOOTH_K_N_ITER, MIN_K_DIST_SCALE, sigma[s:s + 1],
                                        rho[s:s + 1])
            vals = np.exp(-np.maximum(with_self[:, 1:] - rho[:, None], 0.0) / sigma[:, None])
        elif m.p_family.distances:  # the distances to every training point, as the fit's
            k = n
            idx = np.broadcast_to(np.arange(n), (n_new, n))
            vals = m.p_family.distances_to(self.X, X_new, **params)
        elif m.p_family.knn_graph:  # kNN indicators
            k = min(int(params["n_neighbors"]), n)
            idx = self.knn_index()._query_checked(X_new, k).indices
            vals = np.full(idx.shape, 1.0 / k)
        else:  # perplexity calibration (the asne, ssne, t-SNE and LargeVis families)
            perplexity = float(params["perplexity"])
            k = params.get("n_neighbors") or max(int(np.floor(3.0 * perplexity)), 1)
            k = min(int(k), n)
            perplexity = min(perplexity, k)
            idx, dist, _, far_d2 = self.knn_index()._query_checked(X_new, k)
            D2 = relative_distances(dist) ** 2
            far = ~np.isnan(far_d2[:, 0])
            D2[far] = relative_distances(far_d2[far])  # already squared distances
            D2 = np.ascontiguousarray(D2)
            vals = np.zeros_like(D2)
            for s in _rows_reported(n_new):  # one row per call: its search starts from itself
                kernels.perplexity_rows(D2[s:s + 1], perplexity, PERPLEXITY_TOL,
                                        PERPLEXITY_MAX_TRIES, vals[s:s + 1], np.zeros(1), 1)
        if m.normalised_new_rows:
            vals = vals / vals.sum(axis=1, keepdims=True)
        else:
            vals = vals * self.row_scale
        indptr = np.arange(0, n_new * k + 1, k, dtype=np.int64)
        P = sp.csr_matrix((vals.ravel(), idx.ravel(), indptr), shape=(n_new, n))
        P.sum_duplicates()
        P.sort_indices()
        return P

    # ---- the optimisation -----------------------------------------------

    def kernels(self, kernels, inputs=None, column=None):
        """``(cost, gradient, args)``: the method's transform twins and their arguments.

        ``inputs``: the new points' own per-point cost parameters
        (:meth:`new_inputs`), which replace the training points'.  A method
        placed over its row and its column (``Method.placed_with_column``)
        gets the column kernels, called as the others are: its ``column``
        of ``P`` (:meth:`new_columns`) and the fixed rows' sums
        (:meth:`fixed_rows`) come first in ``args``.
        """
        m = get_method(self.method)
        params = {**self.cost_params, **(inputs or {})}
        if m.placed_with_column:
            cost, gradient, args = m.kernels(kernels, params, family="column_transform")
            return cost, gradient, (column, self.fixed_rows()) + args
        cost, gradient, args = m.kernels(kernels, params, family="transform")
        learned = tuple(float(self.cost_params[k]) for k in m.learned)
        return cost, gradient, learned + args

    def column_calibration(self):
        r"""Each training row's Gaussian, to give a new point its column of ``P``.

        Row ``j``'s perplexity calibration over its ``k`` nearest other
        training points (the new rows' ``k``, :meth:`new_rows`), on its
        distances over their largest :math:`m_j`: ``(beta, log_norm, top,
        units)``, so that a point at distance :math:`d` from ``j`` has

        .. math::

            p_{s|j} = \exp\bigl(-\beta_j (d / m_j)^2 - \log N_j\bigr),
            \qquad N_j = \sum_k \exp\bigl(-\beta_j (d_{jk} / m_j)^2\bigr),

        the fixed row's own kernel and normaliser, the new point not among
        its candidates (held, as the fixed rows' sums of ``q`` are).
        ``top`` is :math:`m_j` in units of ``2**units`` (the index's units
        of row ``j``); ``half_sum`` is :math:`r_j = (1 + \sum_k p_{j|k}) / 2`,
        row ``j``'s sum in the symmetrised ``P`` before a family that
        normalises its rows divides by it (:meth:`symmetrised_new_rows`).
        Computed once, kept with the map (not pickled).
        """
        if getattr(self, "_column_calibration", None) is None:
            kernels = select_kernels(self.fast)
            n = self.X.shape[0]
            perplexity = float(self.affinity_params["perplexity"])
            k = min(max(int(np.floor(3.0 * perplexity)), 1), n - 1)
            perplexity = min(perplexity, k)
            found = self.knn_index()._query_checked(self.X, k + 1)
            idx, dist = found.indices, found.distances
            # each row without itself (its first entry that is itself, else its last)
            own = idx == np.arange(n)[:, None]
            drop = np.where(own.any(axis=1), own.argmax(axis=1), k)
            keep = np.ones(idx.shape, dtype=bool)
            keep[np.arange(n), drop] = False
            dist = dist[keep].reshape(n, k)
            top = dist.max(axis=1)
            D2 = np.ascontiguousarray(relative_distances(dist) ** 2)
            beta, vals = np.zeros(n), np.zeros_like(D2)
            for j in range(n):
                kernels.perplexity_rows(D2[j:j + 1], perplexity, PERPLEXITY_TOL,
                                        PERPLEXITY_MAX_TRIES, vals[j:j + 1], beta[j:j + 1], 1)
            log_norm = np.log(np.sum(np.exp(-beta[:, None] * D2), axis=1))
            # each row's sum in the symmetrised P before its normalisation,
            # (1 + sum_k p_{j|k}) / 2
            others = idx[keep].reshape(n, k)
            half_sum = 0.5 * (1.0 + np.bincount(others.ravel(), weights=vals.ravel(),
                                                minlength=n))
            self._column_calibration = (beta, log_norm, top, np.asarray(found.units),
                                        half_sum)
        return self._column_calibration

    def new_columns(self, X_new, P):
        r"""The new points' column of ``P``, :math:`p_{s|j}`, at the entries of ``P``.

        From the fixed rows' kernels (:meth:`column_calibration`) at the
        new point's distances to its ``k`` nearest training points (the
        entries of its row); a far point's column is 0.  Returns the CSR
        data aligned with ``P.data``.
        """
        beta, log_norm, top, units, _ = self.column_calibration()
        n_new, k = P.shape[0], int(P.indptr[1] - P.indptr[0]) if P.shape[0] else 0
        found = self.knn_index()._query_checked(X_new, k)
        idx = found.indices
        # d_sj / m_j in the same units: both are distances over a power of two
        ratio = np.ldexp(found.distances / np.where(top[idx] > 0, top[idx], 1.0),
                         (np.asarray(found.units)[:, None] - units[idx]).astype(int))
        with np.errstate(over="ignore"):  # a far point's ratio: its column is 0 below
            vals = np.exp(-beta[idx] * ratio ** 2 - log_norm[idx])
        vals[~np.isnan(found.far_sq[:, 0])] = 0.0
        vals[top[idx] == 0] = 0.0
        indptr = np.arange(0, n_new * k + 1, k, dtype=np.int64)
        C = sp.csr_matrix((vals.ravel(), idx.ravel(), indptr), shape=P.shape)
        C.sum_duplicates()
        C.sort_indices()
        if not (np.array_equal(C.indices, P.indices) and np.array_equal(C.indptr, P.indptr)):
            raise RuntimeError("a new point's column does not follow its row's neighbours")
        return C.data

    @staticmethod
    def symmetrised_new_rows(P, column, half_sum):
        r"""A symmetrised family's new rows and columns from the conditional ones.

        Both take :math:`(p_{j|s} + p_{s|j}) / 2`: the row scaled back to
        the sum it had (the family's row normalisation), the column divided
        by the fixed row's sum :math:`r_j` (``half_sum``,
        :meth:`column_calibration`), held.
        """
        sym = 0.5 * (P.data + column)
        sums = np.add.reduceat(sym, P.indptr[:-1]) if P.nnz else np.zeros(0)
        before = np.add.reduceat(P.data, P.indptr[:-1]) if P.nnz else np.zeros(0)
        scale = np.repeat(before / sums, np.diff(P.indptr))
        P = P.copy()
        P.data = sym * scale
        return P, sym / half_sum[P.indices]

    def joint_new_rows(self, P, column, symmetrised):
        r"""A new point's entries of a ``P`` over all pairs, its row and its column.

        At the fit's scale (``row_scale``, the fit's ``P``'s sum over
        :math:`N`), from its calibrated row :math:`p_{j|s}` (``P``, each row
        divided by its sum) and its column :math:`p_{s|j}` (``column``,
        :meth:`new_columns`).  A symmetrised family's joint entry is the
        same both ways,

        .. math::

            p_{sj} = p_{js} = \frac{p_{j|s} + p_{s|j}}{2N},

        ``N`` the training points, not ``N + 1``: the fit's ``P`` (which sums
        to 1) is held with the rest of the fit, and the new entries are
        its terms to first order.  A family that is not symmetrised takes
        :math:`p_{j|s}` and :math:`p_{s|j}`, each at the fit's scale.  A far
        point (its column 0) keeps half its row's mass, as its joint
        entries are.
        """
        sums = np.add.reduceat(P.data, P.indptr[:-1]) if P.nnz else np.zeros(0)
        row = P.data / np.repeat(sums, np.diff(P.indptr))
        P = P.copy()
        if symmetrised:
            P.data = 0.5 * (row + column) * self.row_scale
            return P, P.data.copy()
        P.data = row * self.row_scale
        return P, column * self.row_scale

    def column_unit(self):
        """The NumPy unit of a method placed over its column, at the fit's cost parameters."""
        m = get_method(self.method)
        prefix, args = m.kernel_name(self.cost_params)
        return m.normalised_units[prefix](*args)

    def fixed_rows(self):
        r"""The training rows' :math:`(\log Z_j, Z_j, S_j, \beta_j)`, held while new points are placed.

        For a method placed over its row and its column: each training
        row's log normaliser and offset at the fitted map (for a unit
        normalised over all pairs, the fit's single ones in every row) and
        its bandwidth (1 without one), from the fit's ``P`` built again
        from the training data (the settings the fit resolved)
        (:func:`smallvis.backends.reference.transform.fixed_row_sums`),
        computed once and kept with the map (not pickled: rebuilt, as the
        search index).
        """
        if getattr(self, "_fixed_rows", None) is None:
            m = get_method(self.method)
            kern = select_kernels(self.fast)
            params = {k: v for k, v in self.affinity_params.items()}
            P, _ = m.split_built(m.build_affinities(self.X, kern, int(self.seed), 1, **params))
            self._fixed_rows = fixed_row_sums(self.column_unit(), P, self.Y)
        return self._fixed_rows

    def step_scale(self):
        """The clip of one step: :data:`MAX_STEP` x the median nearest-neighbour distance.

        Of the map the placement runs in: the fitted map, or for input
        distances the map in the fit's unit (``Y * row_scale``), whose
        squares neither over- nor underflow in any units of the data.
        """
        if getattr(self, "_clip", None) is None:
            Y = self.Y
            if get_method(self.method).p_family.units == "equivariant":
                Y = Y * self.row_scale
            sample = Y[:: max(1, Y.shape[0] // 2000)]
            D2 = cdist(sample, Y, "sqeuclidean")
            D2[D2 == 0] = np.inf
            nn = np.sqrt(D2.min(axis=1))
            nn = nn[np.isfinite(nn)]
            self._clip = MAX_STEP * (float(np.median(nn)) if nn.size else 1.0)
        return self._clip

    def transform(self, X_new, *, n_iter=TRANSFORM_N_ITER,
                  learning_rate=TRANSFORM_LEARNING_RATE, n_threads=None, return_cost=False):
        """Coordinates of the new points ``X_new`` in the fitted embedding.

        Parameters
        ----------
        X_new : array-like of shape (n_new, n_features)
            Finite, the training data's number of features, at least 1 row.
        n_iter : int, default=100
            Iterations of the optimisation (0: the ``P``-weighted mean start).
        learning_rate : float, default=0.5
            Step relative to ``1 / sum_j p_sj`` per point.  After a fit by the
            stochastic optimizer (``optimizer="sgd"``), the method's own SGD
            learning rate is scaled by ``learning_rate / 0.5`` instead.
        n_threads : int or None, default=None
            Threads for the Cython kernels of the exact form (None: the
            cores this process may use, as :func:`smallvis.embed`); one
            below the fit's crossover in pairs of a new and a training point
            (:func:`smallvis._threads.placement_threads`), where the threads
            would mostly wait; the result is the same bit for bit.  The stochastic
            form always runs on one thread, so that each new point's
            placement does not depend on the rest of the batch.
        return_cost : bool, default=False
            Also return the final transform cost.

        Returns
        -------
        Y_new : ndarray of shape (n_new, n_components)
        cost : float
            Only with ``return_cost=True``.

        Raises
        ------
        ValueError
            The fit was made from a kNN graph (no data to place new points
            against); ``X_new`` is not finite or has the wrong shape, or a
            placement is not finite (the fitted map spans too wide a range).
        """
        self.check_places_new_points()
        X_new = check_new_points(X_new, self.n_features(), sparse=self.takes_sparse())
        n_threads = check_threads(n_threads)
        if self.projection is not None:
            X_new = self.projection.apply(X_new, n_threads)
        n_iter, learning_rate = check_transform_settings(n_iter, learning_rate)
        kern = select_kernels(self.fast)
        _progress.say(f"transform: {X_new.shape[0]} new points into the {self.method} map "
                      f"of {self.X.shape[0]} points")
        P = self.new_rows(X_new, kern)
        m = get_method(self.method)
        # a new point's own per-point values come from its row as calibrated
        # (before a column is mixed in), the rule of every placement
        calibrated = P
        column = None
        if m.placed_with_column:
            column = self.new_columns(X_new, P)
            if self.column_unit().normalisation == "total":
                # over all pairs: the joint P's entries, both ways, at the fit's scale
                P, column = self.joint_new_rows(P, column, m.p_family.conditional is not None)
            elif m.p_family.conditional is not None:
                # a symmetrised P: the pair's affinity both ways is the mean of
                # its two conditionals; the row keeps its sum
                P, column = self.symmetrised_new_rows(P, column,
                                                      self.column_calibration()[4])
        triplet = (P.indptr.astype(np.int64), P.indices.astype(np.int64),
                   np.ascontiguousarray(P.data, dtype=np.float64))
        Y_train = np.ascontiguousarray(self.Y, dtype=np.float64)
        # a small batch's region would mostly wait for its threads
        n_threads = _threads.placement_threads(n_threads, P.shape[0], Y_train.shape[0])
        row_sum = np.asarray(P.sum(axis=1)).ravel()
        equivariant = m.p_family.units == "equivariant"
        if equivariant:
            # input distances: placed in the fit's unit, from the nearest training
            # point (a mean weighted by distances would favour the farthest), as
            # the index finds it (for a far point, by its projection: its
            # distances tie in float64)
            Y_train = Y_train * self.row_scale
            nearest = self.knn_index()._query_checked(X_new, 1).indices[:, 0]
            Y = np.ascontiguousarray(Y_train[nearest])
            # a point beyond 2**FAR_EXPONENT times the map's extent is placed
            # beyond the map whatever its distance (each step is clipped), and
            # its stress's powers of that distance would overflow: capped there
            extent = float(np.ptp(Y_train, axis=0).max()) if len(Y_train) > 1 else 1.0
            cap = np.ldexp(extent if extent > 0 else 1.0, FAR_EXPONENT)
            np.minimum(P.data, cap, out=P.data)
            triplet = (triplet[0], triplet[1], np.ascontiguousarray(P.data, dtype=np.float64))
            row_sum = np.asarray(P.sum(axis=1)).ravel()
        else:
            Y = np.ascontiguousarray((P @ Y_train) / row_sum[:, None])
        cost_fn, grad_fn, args = self.kernels(kern, self.new_inputs(calibrated), column)
        if n_iter:
            form = ("sgd optimizer, {} epochs" if self.optimizer == "sgd"
                    else "exact optimizer, {} iterations")
            with _progress.stage("optimisation", form.format(n_iter)):
                if self.optimizer == "sgd":
                    self._place_sgd(P, Y, kern, n_iter, learning_rate)
                else:
                    self._place_exact(Y, row_sum, lambda Yv, out: grad_fn(
                        *triplet, Yv, Y_train, *args, out, n_threads), n_iter, learning_rate)
        check_placement(Y, self.method)
        cost = float(cost_fn(*triplet, Y, Y_train, *args, n_threads)) if return_cost else None
        if equivariant:
            Y /= self.row_scale
        if return_cost:
            return Y, cost
        return Y

    def _place_exact(self, Y, row_sum, gradient, n_iter, learning_rate):
        """The exact form, in place on ``Y``: the fit's optimizer with the training map fixed.

        :func:`smallvis.engines.optim.optimize_exact` on the new points' rows only
        (``gradient(Y, out)`` sees the training map through its kernel), with
        the settings of :func:`placement_settings`: a learning rate of
        ``learning_rate / sum_j p_sj`` per point, steps clipped to
        :meth:`step_scale`, no re-centring, ``n_iter`` iterations.  A
        gradient or coordinates that are not finite raise ``ValueError``.
        """
        def full_gradient(Yv, learned, exaggerated, out):
            gradient(Yv, out)  # optimize_exact's guard judges what is not finite

        # with reporting on, a line at least every few seconds
        heartbeat = _progress.Heartbeat(n_iter, None) if _progress.active() else None
        try:
            optimize_exact(Y, full_gradient, None,
                           placement_settings(n_iter, self.step_scale()),
                           row_learning_rate=learning_rate / row_sum, callback=heartbeat)
        except DivergenceError as exc:
            raise ValueError(
                f"{self.method} transform: {exc.reason} at iteration {exc.iteration}; the "
                "new points or the fitted embedding span too wide a range"
            ) from None

    def _place_sgd(self, P, Y, kernels, n_epochs, learning_rate):
        """The stochastic form, in place on ``Y``: the fit's SGD engine, reference frozen.

        :func:`smallvis.engines.sgd.optimize_sgd` on the problem of
        :func:`smallvis.engines.sgd.prepare_frozen` (umap-learn's transform): each
        new point is the head of its edges to its training neighbours, an
        edge sampled every ``max_j p_sj / p_sj`` epochs, each sample with
        the method's negatives drawn uniformly from the training points;
        only the new points move.  Coefficients, clip and decay are the
        method's own (its registry ``sgd`` spec); its initial learning rate
        is scaled by ``learning_rate / TRANSFORM_LEARNING_RATE``, so the
        default keeps the spec's own rate.  The engine runs on one thread
        whatever ``n_threads`` :meth:`transform` was given.

        The draws come from the package's counter-based generator, keyed by
        (the training map's seed, epoch, the edge's key, draw), where an edge's
        key is built from its point's key, a hash of the point's set of
        training neighbours (:func:`neighbour_keys`), and its place among
        them: the point's own identity, whatever its position in the
        batch, the size of the batch, or the units of the data.  New points
        do not interact and the engine runs on one thread, so each point's
        path is the one it would follow alone, bit for bit.
        """
        m = get_method(self.method)
        q = float(self.cost_params[m.learned[0]]) if m.learned else 0.0
        k = int(P.indptr[1] - P.indptr[0])
        keys = neighbour_keys(P.indices.reshape(Y.shape[0], k))
        spec = replace(m.sgd, learning_rate=m.sgd.learning_rate
                       * (learning_rate / TRANSFORM_LEARNING_RATE))
        problem = prepare_frozen(spec, P, n_epochs, m.sgd.unit_params(**self.cost_params),
                                 keys, q=q)
        layout = np.ascontiguousarray(np.vstack([Y, self.Y]), dtype=np.float64)
        if coordinate_span_overflows(layout):
            # its steps are clipped, so a layout that starts within range stays there
            raise ValueError(
                f"{self.method} transform: the fitted embedding (with the new points' "
                "starts) spans too wide a range for float64, its squared distances "
                "overflow, so the new points would get non-finite coordinates; refit, "
                "or check X_new"
            )
        try:
            optimize_sgd(layout, kernels, problem, int(self.seed) % 2**64, n_threads=1,
                         verbose=_progress.active(),
                         layout_name=f"{self.method} transform: the fitted embedding (with "
                                     "the new points' starts)",
                         remedy="refit, or check the model file")
        except DivergenceError:
            pass  # the new rows that are not finite are named by check_placement
        Y[...] = layout[:Y.shape[0]]


def _rows_reported(n_rows):
    """``range(n_rows)``, with a progress line in the stage "calibration" when one is due.

    The rows come in chunks (:func:`smallvis._progress.counter`); with
    reporting off, in one.
    """
    progress = _progress.counter("calibration", "rows of new points", n_rows)
    for start, stop in progress.spans():  # one span when not reporting
        yield from range(start, stop)


def placement_settings(n_iter, max_step):
    """The exact optimizer's settings for placing new points (:mod:`smallvis.engines.optim`).

    ``n_iter`` iterations exactly (the cost is not evaluated), momentum
    :data:`TRANSFORM_MOMENTUM` (the first for the first quarter of the
    iterations), minimum gain 0.01, each step clipped to ``max_step``, no
    re-centring (the training map's frame is fixed), a gradient that is not
    finite refused, no recovery.  The learning rate is given per point.
    """
    first, final = TRANSFORM_MOMENTUM
    return OptimizerSettings(learning_rate=1.0, n_iter=n_iter, exaggeration=1.0,
                             exaggeration_iter=0, momentum=first, final_momentum=final,
                             momentum_switch_iter=n_iter // 4, min_gain=0.01, tol=0.0,
                             cost_every=None, max_step=max_step, recentre=False,
                             check_collapse=False, check_gradient=True, recover=False)


def neighbour_keys(neighbours):
    """A 64-bit key per row of training-neighbour indices (as int64), its hash.

    The splitmix64 chain of the package's counter-based generator, absorbing
    the row's indices in order.  It identifies a new point by what it is
    near, so it does not change with the point's position in a batch, nor
    with the units, origin or feature order of the data.
    """
    key = np.zeros(neighbours.shape[0], dtype=np.uint64)
    for column in np.asarray(neighbours, dtype=np.int64).T:
        key = _absorb(key, column)
    return key.view(np.int64)


def relative_distances(dist):
    """Each row of distances divided by its largest (rows of zeros stay zero).

    The calibrations (perplexity, smooth kNN) search a precision from a fixed
    start to a tolerance, so their result depends on the units of the
    distances up to that tolerance; in units of the row's own largest
    distance, the rows of ``c X`` and ``X`` are the same to rounding for any
    ``c`` (bit for bit for a power of two), and so are their ``P``.
    """
    top = dist.max(axis=1, keepdims=True)
    return dist / np.where(top > 0.0, top, 1.0)


def check_placement(Y, method):
    """Raise ``ValueError`` unless every placed coordinate is finite."""
    bad = ~np.all(np.isfinite(Y), axis=1)
    if bad.any():
        raise ValueError(
            f"{method} transform: {int(bad.sum())} of {len(Y)} new points got non-finite "
            f"coordinates (first: row {int(np.flatnonzero(bad)[0])} of X_new); the fitted "
            "embedding spans too wide a range for float64 (refit, or check X_new)"
        )


#: The old name of :class:`TrainingMap`, kept so that pickles written by the
#: previous version (which name the class ``smallvis.transform.Reference``) load.
Reference = TrainingMap


def build_training_map(method, X, result, *, seed, fast=True):
    """A :class:`TrainingMap` from training data and the ``EmbedResult`` of its fit."""
    m = get_method(method)
    params = result.params
    # what placing new points needs; a precomputed training ``knn`` is not
    affinity_params = {k: params[k] for k in m.affinity_params
                       if k in params and k not in UNSTORED_AFFINITY_PARAMS}
    cost_params = {k: params[k] for k in m.cost_params if k in params}
    cost_params.update(result.learned)
    P = result.P
    if P is None:
        raise ValueError("the result has no P (embed(..., keep_affinities=False)); a model "
                         "for new points needs it: fit with keep_affinities=True")
    if m.p_family.units == "equivariant":  # into the unit the fit ran in
        row_scale = 1.0 / distance_unit(P)
    else:  # fuzzy memberships are not scaled
        row_scale = 1.0 if m.fuzzy else float(P.sum()) / X.shape[0]
    X = X if sp.issparse(X) else np.ascontiguousarray(X, dtype=np.float64)
    projection = getattr(result, "projection", None)
    if projection is not None:  # the search ran in the scores: keep those
        scores = getattr(result, "scores", None)
        X = projection.apply(X) if scores is None else scores
    return TrainingMap(method=m.name, X=X, projection=projection,
                     Y=np.ascontiguousarray(result.Y, dtype=np.float64),
                     affinity_params=affinity_params, cost_params=cost_params,
                     row_scale=row_scale, seed=int(seed), fast=bool(fast),
                     optimizer=result.optimizer)
