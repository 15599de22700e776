r"""Placing new points into a fitted embedding, the reference fixed.

:class:`Reference` holds what a fitted run leaves behind (training data,
coordinates, the method's settings) and places new points into it with
:meth:`Reference.transform`, in four steps (docs/theory.md §6):

1. **Neighbours.**  The ``k`` nearest training points of each new point:
   exact search (:func:`scipy.spatial.distance.cdist`) when the training set
   has at most :data:`smallvis.neighbors.EXACT_MAX_N` points, otherwise an
   Annoy forest over the training data, built once per :class:`Reference`
   with the fitted seed and one thread (so it is the same forest in every
   process; it is rebuilt, not stored).
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
   point does.  Fuzzy memberships are not scaled.
3. **Start.**  The ``P``-weighted mean of the neighbours' fitted positions
   (as umap-learn and openTSNE).
4. **Optimisation.**  The method's ``<kernel>_transform_cost`` and
   ``_gradient`` twins (:mod:`smallvis.reference`): the terms of each new
   point's own row of the method's cost, over every training point, with the
   training coordinates fixed.  **New points do not interact**: a point is
   placed as if it were the only one added, as umap-learn and openTSNE do.
   Repulsion between new points would make a point's position depend on the
   batch it arrived in, and transforming a large batch (or the training set
   itself) would count the data's density twice.  Steps are delta-bar-delta
   with momentum (:mod:`smallvis.optim`'s rule, no re-centring: the
   reference frame is fixed), with the step of point ``s`` scaled by
   ``1 / sum_j p_sj`` so that one learning rate suits every method
   (normalised and fuzzy ``P`` differ in scale by a factor ``N``), and each
   step clipped to :data:`MAX_STEP` times the typical distance between
   training neighbours in the embedding.

When the fit used the stochastic optimizer (``optimizer="sgd"``, the
default of largevis, umap, tumap and ncvis above 5,000 points), the new
points are placed by the stochastic form instead (:meth:`Reference._place_sgd`,
umap-learn's transform: edge samples and uniform negatives from the training
points, only the new points moving): O(M k) per epoch instead of O(M N).

With the exact form, every operation is per point, so with ``n_threads=1`` (and with any number of
threads: each point's row is computed by one thread) the result for a point
is the same bit for bit whatever else is in the batch, and a fixed
``random_state`` gives the same output in every process.  The exact
restricted gradient costs O(M N) per iteration for M new points against N
training points.
"""

from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import cdist

from .affinities import (MIN_K_DIST_SCALE, PERPLEXITY_MAX_TRIES, PERPLEXITY_TOL,
                         SMOOTH_K_N_ITER, SMOOTH_K_TOL)
from ._backend import kernels as select_kernels
from ._numeric import power_of_two_exponent, tie_key
from ._validation import _as_array, check_data, check_integer, check_number, check_threads
from .methods import get_method
from .neighbors import ANNOY_DEFAULT_TREES, EXACT_MAX_N

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

#: Affinity parameters that a :class:`Reference` does not keep: the
#: training data's own neighbours, and the backend that searched them.
UNSTORED_AFFINITY_PARAMS = ("knn", "knn_method")

#: Training points per block of the exact neighbour search of new points.
_BLOCK_ELEMENTS = 4_000_000


class NotFittedError(ValueError, AttributeError):
    """``transform`` (or a fitted attribute) was used before ``fit``.

    A ``ValueError`` and an ``AttributeError``, as scikit-learn's own
    ``NotFittedError``.
    """


def check_new_points(X_new, n_features, name="X_new"):
    """``X_new`` as a C-contiguous float64 array with ``n_features`` columns, or raise.

    Refused with a ``ValueError`` naming the problem: not 2-D, no rows, a
    different number of features from the training data, NaN or infinite
    values.  Nothing is changed by a refusal.
    """
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
    """:meth:`Reference.transform`'s ``n_iter`` (an integer >= 0) and ``learning_rate`` (> 0).

    ``prefix`` goes before the names in messages (the estimator's
    ``transform_n_iter``).
    """
    return (check_integer(n_iter, f"{prefix}n_iter", low=0),
            check_number(learning_rate, f"{prefix}learning_rate", low=0, low_open=True))


def _sorted_rows(cand, d2, k):
    """The ``k`` best of each row of candidates, ordered by (snapped distance, index)."""
    order = np.lexsort((cand, tie_key(d2)), axis=-1)[:, :k]
    return np.take_along_axis(cand, order, 1), np.take_along_axis(d2, order, 1)


@dataclass(eq=False)
class Reference:
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
        sum divided by ``n_samples`` (1 for fuzzy memberships).
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
    _index: object = field(default=None, repr=False, compare=False)

    def __getstate__(self):
        # the Annoy index cannot be pickled: it is rebuilt, with the same seed
        state = self.__dict__.copy()
        state["_index"] = None
        state.pop("_center", None)
        return state

    # ---- neighbours -----------------------------------------------------

    def uses_annoy(self):
        """Whether new points are searched with Annoy (large training sets)."""
        return self.X.shape[0] > EXACT_MAX_N

    def _annoy(self):
        if self._index is None:
            from annoy import AnnoyIndex

            n_trees = self.affinity_params.get("n_trees") or ANNOY_DEFAULT_TREES
            self._center = self.X.mean(axis=0)
            index = AnnoyIndex(self.X.shape[1], "euclidean")
            index.set_seed(int(self.seed) % (2**31 - 1))
            for i, row in enumerate((self.X - self._center).astype(np.float32)):
                index.add_item(i, row)
            index.build(int(n_trees), n_jobs=1)
            self._index = index
        return self._index

    def neighbors(self, X_new, k):
        """Indices and Euclidean distances of the ``k`` nearest training points."""
        n = self.X.shape[0]
        if self.uses_annoy():
            index = self._annoy()
            n_trees = index.get_n_trees()
            search_k = 2 * n_trees * (k + 1)
            queries = (X_new - self._center).astype(np.float32)
            cand = np.array([index.get_nns_by_vector(q, k, search_k=search_k)
                             for q in queries], dtype=np.int64)
            d2 = np.einsum("ijk,ijk->ij", X_new[:, None, :] - self.X[cand],
                           X_new[:, None, :] - self.X[cand])
            idx, d2 = _sorted_rows(cand, d2, k)
            return idx, np.sqrt(d2)
        block = max(1, _BLOCK_ELEMENTS // n)
        out_i = np.empty((X_new.shape[0], k), dtype=np.int64)
        out_d = np.empty((X_new.shape[0], k))
        for start in range(0, X_new.shape[0], block):
            D2 = cdist(X_new[start:start + block], self.X, "sqeuclidean")
            keep = min(n, k + 8)  # room for ties at the k-th distance
            cand = np.argpartition(D2, keep - 1, axis=1)[:, :keep] if keep < n else \
                np.broadcast_to(np.arange(n), D2.shape).copy()
            idx, d2 = _sorted_rows(cand, np.take_along_axis(D2, cand, 1), k)
            out_i[start:start + block], out_d[start:start + block] = idx, np.sqrt(d2)
        return out_i, out_d

    # ---- affinities -----------------------------------------------------

    def new_rows(self, X_new, kernels):
        """The new points' rows of ``P`` as an ``(M, N)`` CSR matrix."""
        m = get_method(self.method)
        n, n_new = self.X.shape[0], X_new.shape[0]
        params = self.affinity_params
        if "perplexity" in params:
            perplexity = float(params["perplexity"])
            k = params.get("n_neighbors") or max(int(np.floor(3.0 * perplexity)), 1)
            k = min(int(k), n)
            perplexity = min(perplexity, k)
            idx, dist = self.neighbors(X_new, k)
            e = np.array([power_of_two_exponent(row) for row in dist])[:, None]
            D2 = np.ascontiguousarray(np.ldexp(dist, -e) ** 2)
            vals = np.zeros_like(D2)
            for s in range(n_new):  # one row per call: its search starts from itself
                kernels.perplexity_rows(D2[s:s + 1], perplexity, PERPLEXITY_TOL,
                                        PERPLEXITY_MAX_TRIES, vals[s:s + 1], np.zeros(1), 1)
        elif m.fuzzy:
            k = min(int(params["n_neighbors"]) - 1, n)
            idx, dist = self.neighbors(X_new, k)
            e = np.array([power_of_two_exponent(row) for row in dist])[:, None]
            with_self = np.zeros((n_new, k + 1))
            with_self[:, 1:] = np.ldexp(dist, -e)
            sigma, rho = np.zeros(n_new), np.zeros(n_new)
            target = np.log2(k + 1) * float(params["bandwidth"])
            for s in range(n_new):  # one row per call: no statistic across rows
                kernels.smooth_knn_rows(with_self[s:s + 1], float(target),
                                        float(params["local_connectivity"]), SMOOTH_K_TOL,
                                        SMOOTH_K_N_ITER, MIN_K_DIST_SCALE, sigma[s:s + 1],
                                        rho[s:s + 1])
            vals = np.exp(-np.maximum(with_self[:, 1:] - rho[:, None], 0.0) / sigma[:, None])
        else:
            k = min(int(params["n_neighbors"]), n)
            idx, _ = self.neighbors(X_new, k)
            vals = np.full(idx.shape, 1.0 / k)
        vals = vals * self.row_scale
        indptr = np.arange(0, n_new * k + 1, k, dtype=np.int64)
        P = sp.csr_matrix((vals.ravel(), idx.ravel(), indptr), shape=(n_new, n))
        P.sum_duplicates()
        P.sort_indices()
        return P

    # ---- the optimisation -----------------------------------------------

    def kernels(self, kernels):
        """``(cost, gradient, args)``: the method's transform twins and their arguments."""
        m = get_method(self.method)
        fixed = {k: v for k, v in self.cost_params.items() if k not in m.learned}
        if m.resolve_cost is None:
            prefix, args = m.kernel, tuple(fixed.values())
        else:
            prefix, args = m.resolve_cost(**fixed)
        learned = tuple(float(self.cost_params[k]) for k in m.learned)
        return (getattr(kernels, f"{prefix}_transform_cost"),
                getattr(kernels, f"{prefix}_transform_gradient"), learned + tuple(args))

    def step_scale(self):
        """The clip of one step: :data:`MAX_STEP` x the median nearest-neighbour distance."""
        if getattr(self, "_clip", None) is None:
            Y = self.Y
            sample = Y[:: max(1, Y.shape[0] // 2000)]
            D2 = cdist(sample, Y, "sqeuclidean")
            D2[D2 == 0] = np.inf
            nn = np.sqrt(D2.min(axis=1))
            nn = nn[np.isfinite(nn)]
            self._clip = MAX_STEP * (float(np.median(nn)) if nn.size else 1.0)
        return self._clip

    def transform(self, X_new, *, n_iter=TRANSFORM_N_ITER,
                  learning_rate=TRANSFORM_LEARNING_RATE, n_threads=1, return_cost=False):
        """Coordinates of the new points ``X_new`` in the fitted embedding.

        Parameters
        ----------
        X_new : array-like of shape (n_new, n_features)
            Finite, the training data's number of features, at least 1 row.
        n_iter : int, default=100
            Iterations of the optimisation (0: the ``P``-weighted mean start).
        learning_rate : float, default=0.5
            Step relative to ``1 / sum_j p_sj`` per point.
        n_threads : int, default=1
            Threads for the Cython kernels.
        return_cost : bool, default=False
            Also return the final transform cost.

        Returns
        -------
        Y_new : ndarray of shape (n_new, n_components)
        cost : float
            Only with ``return_cost=True``.
        """
        X_new = check_new_points(X_new, self.X.shape[1])
        n_iter, learning_rate = check_transform_settings(n_iter, learning_rate)
        n_threads = check_threads(n_threads)
        kern = select_kernels(self.fast)
        P = self.new_rows(X_new, kern)
        triplet = (P.indptr.astype(np.int64), P.indices.astype(np.int64),
                   np.ascontiguousarray(P.data, dtype=np.float64))
        Y_ref = np.ascontiguousarray(self.Y, dtype=np.float64)
        row_sum = np.asarray(P.sum(axis=1)).ravel()
        Y = np.ascontiguousarray((P @ Y_ref) / row_sum[:, None])
        cost_fn, grad_fn, args = self.kernels(kern)
        if n_iter and self.optimizer == "sgd":
            self._place_sgd(P, Y, kern, n_iter)
        elif n_iter:
            step = (learning_rate / row_sum)[:, None]
            clip = self.step_scale()
            grad = np.zeros_like(Y)
            update = np.zeros_like(Y)
            gains = np.ones_like(Y)
            switch = n_iter // 4
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                for it in range(1, n_iter + 1):
                    grad_fn(*triplet, Y, Y_ref, *args, grad, n_threads)
                    if not np.all(np.isfinite(grad)):
                        raise ValueError(
                            f"{self.method} transform: the gradient is not finite at "
                            f"iteration {it}; the new points or the fitted embedding "
                            "span too wide a range"
                        )
                    mu = TRANSFORM_MOMENTUM[0] if it <= switch else TRANSFORM_MOMENTUM[1]
                    same = np.sign(grad) == np.sign(update)
                    gains = np.maximum(np.where(same, gains * 0.8, gains + 0.2), 0.01)
                    update = mu * update - step * gains * grad
                    np.clip(update, -clip, clip, out=update)
                    Y += update
        if return_cost:
            return Y, float(cost_fn(*triplet, Y, Y_ref, *args, n_threads))
        return Y

    def _place_sgd(self, P, Y, kernels, n_epochs):
        """The stochastic form, in place on ``Y``: umap-learn's transform, for every SGD method.

        Each new point is the head of its edges ``(s, j)`` to its training
        neighbours; an edge is sampled every ``max_j p_sj / p_sj`` epochs
        (umap-learn's ``epochs_per_sample``, per row), and each sample draws
        the method's ``n_negative`` negatives uniformly from the training
        points.  Only the new point moves (the reference is fixed); steps use
        the method's own clipped SGD coefficients (the twin kernel
        ``sgd_coefficients``), its initial rate and a linear decay.  New
        points do not interact, so the heads are updated together, edge rank
        by edge rank.  Deterministic for the reference's seed and a given
        batch (the negatives drawn depend on the batch).
        """
        m = get_method(self.method)
        spec = m.sgd
        coef = spec.kernel_params(**self.cost_params)
        problem = SimpleNamespace(coefficient=spec.coefficient, a=float(coef.get("a", 1.0)),
                                  b=float(coef.get("b", 1.0)),
                                  gamma=float(coef.get("gamma", 1.0)),
                                  eps=float(coef.get("eps", 0.0)))
        n_negative = int(round(coef.get("n_negative", spec.n_negative)))
        q = float(self.cost_params.get(m.learned[0], 0.0)) if m.learned else 0.0
        Y_ref = self.Y
        n_new, n = Y.shape[0], Y_ref.shape[0]
        k = int(P.indptr[1] - P.indptr[0])
        tails = P.indices.reshape(n_new, k)
        weight = P.data.reshape(n_new, k)
        per_sample = weight.max(axis=1, keepdims=True) / weight
        next_sample = per_sample.copy()
        rng = np.random.default_rng([int(self.seed), n_new])
        rows = np.arange(n_new)

        def step(heads, other, alpha, which):
            diff = Y[heads] - Y_ref[other]
            d2 = np.einsum("ij,ij->i", diff, diff)
            out = np.zeros((4, len(d2)))
            kernels.sgd_coefficients(problem, d2, q, float(n_negative), out)
            c = np.where(d2 > 0.0, out[which], 0.0)  # coincident: no direction
            Y[heads] += alpha * np.clip(c[:, None] * diff, -spec.clip, spec.clip)

        for epoch in range(n_epochs):
            alpha = spec.learning_rate * max(1.0 - epoch / n_epochs, spec.min_learning_rate)
            for r in range(k):
                fire = next_sample[:, r] <= epoch + 1
                if not fire.any():
                    continue
                heads = rows[fire]
                step(heads, tails[fire, r], alpha, 0)
                next_sample[fire, r] += per_sample[fire, r]
                for _ in range(n_negative):
                    step(heads, rng.integers(n, size=len(heads)), alpha, 2)


def build_reference(method, X, result, *, seed, fast=True):
    """A :class:`Reference` from training data and the ``EmbedResult`` of its fit."""
    m = get_method(method)
    params = result.params
    # what placing new points needs; a precomputed training ``knn`` is not
    affinity_params = {k: params[k] for k in m.affinity_params
                       if k in params and k not in UNSTORED_AFFINITY_PARAMS}
    cost_params = {k: params[k] for k in m.cost_params if k in params}
    cost_params.update(result.learned)
    P = result.P
    row_scale = 1.0 if m.fuzzy else float(P.sum()) / X.shape[0]
    return Reference(method=m.name, X=np.ascontiguousarray(X, dtype=np.float64),
                     Y=np.ascontiguousarray(result.Y, dtype=np.float64),
                     affinity_params=affinity_params, cost_params=cost_params,
                     row_scale=row_scale, seed=int(seed), fast=bool(fast),
                     optimizer=result.optimizer)
