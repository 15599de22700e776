"""The method registry: the only table of methods in the package.

``embed``, ``affinities``, ``cost_and_gradient``, the CLI, the docs and the
tests all read :data:`METHODS`.  Adding a method means adding its twin
kernels and one :class:`Method` entry here.
"""

import numbers
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Callable, Mapping

import numpy as np

from . import affinities as aff
from ._validation import (ParameterError, SmallDataWarning, check_integer, check_number,
                          warn_from_caller)
from .neighbors import check_search_params
from .sgd import SgdSpec, largevis_n_epochs, umap_n_epochs

#: Up to this many points, t-SNE calibrates P over all other points (dense
#: P); above it, over 3 x perplexity nearest neighbours (sparse P).
DENSE_P_MAX_N = 4096


#: Values of ``gradient=`` that every method accepts.
GRADIENTS = ("auto", "exact")


@dataclass(frozen=True)
class Approximation:
    """An approximate gradient of a method's cost, selected by ``gradient=name``.

    Attributes
    ----------
    name : str
        The value of ``gradient=`` that selects it, e.g. ``"fft"``.
    summary : str
        One line: the algorithm and where it comes from.
    resolve_cost : callable
        ``resolve_cost(**cost_params) -> (kernel prefix, args)``, as
        :attr:`Method.resolve_cost`, for the approximate twin kernels
        ``<prefix>_cost`` and ``<prefix>_gradient``.
    dimensions : tuple of int
        The output dimensions it supports.
    auto_min_n : int
        ``gradient="auto"`` selects it above this many points (in a supported
        dimension); the exact gradient up to it.
    """

    name: str
    summary: str
    resolve_cost: Callable
    dimensions: tuple
    auto_min_n: int


@dataclass(frozen=True)
class SizedParam:
    """A method parameter whose largest valid value depends on the number of points.

    Attributes
    ----------
    limit_text : str
        The largest value as a formula in ``n_samples``, for messages
        (``"n_samples - 1"``).
    limit : callable
        ``limit(n_samples)``: the largest value accepted.
    small_data : callable
        ``small_data(n_samples)``: the value used instead of a default that
        exceeds ``limit(n_samples)``.
    default_limit : callable or None
        ``default_limit(n_samples)``: the largest default kept, when it is
        below ``limit`` (a default that fits but makes no map); None: ``limit``.
    """

    limit_text: str
    limit: Callable
    small_data: Callable
    default_limit: Callable = None

    def keeps_default(self, value, n_samples):
        """Whether the default ``value`` is used as it is for ``n_samples`` points."""
        largest = self.default_limit or self.limit
        return value <= largest(n_samples)


def perplexity_for_small_data(n_samples):
    """``(N - 1) / 3``, at least 1: openTSNE's perplexity for small data.

    The calibration then runs over ``3 x perplexity = N - 1`` neighbours (all
    other points), as the kNN calibration would at any size.
    """
    return max(1.0, (n_samples - 1) / 3.0)


def umap_neighbors_for_small_data(n_samples):
    """``N - 1``, at least 2 (the point itself and one other): umap-learn's rule."""
    return max(2, n_samples - 1)


def knn_neighbors_for_small_data(n_samples):
    """``floor((N - 1) / 3)``, at least 1: a third of the other points.

    The neighbourhood of :func:`perplexity_for_small_data`.  Unlike the
    perplexity-calibrated and fuzzy affinities, which weigh neighbours by
    distance, a plain kNN graph (NCVis) does not: with k above a third of
    the other points its symmetric union joins most pairs and ``P`` is close
    to uniform.  NCVis's default of 15 on 20 stratified iris rows leaves a
    quarter of the setosa points nearest to another species; 6 separates
    them (tests/test_small_data.py).
    """
    return max(1, (n_samples - 1) // 3)


#: Perplexity: the calibration needs at least ``perplexity`` other points.
PERPLEXITY_SIZE = SizedParam("n_samples - 1", lambda n: n - 1, perplexity_for_small_data)
#: kNN size not counting the point itself (tsne, largevis: no default, as
#: 3 x perplexity is capped at N - 1).
OTHERS_SIZE = SizedParam("n_samples - 1", lambda n: n - 1, knn_neighbors_for_small_data)
#: NCVis's kNN graph: its default is kept up to a third of the other points.
KNN_GRAPH_SIZE = SizedParam("n_samples - 1", lambda n: n - 1, knn_neighbors_for_small_data,
                            default_limit=lambda n: (n - 1) / 3.0)
#: UMAP's n_neighbors, which counts the point itself.
UMAP_SIZE = SizedParam("n_samples", lambda n: n, umap_neighbors_for_small_data)


@dataclass(frozen=True)
class Method:
    """One neighbour-embedding method.

    Attributes
    ----------
    name : str
        Registry key, e.g. ``"tsne"``.
    summary : str
        One line for ``list_methods`` and the CLI help.
    kernel : str
        Prefix of the twin kernels ``<kernel>_cost`` and ``<kernel>_gradient``.
    build_affinities : callable
        ``build_affinities(X, kernels, random_state, n_threads, **affinity_params) -> P``.
    affinity_params : mapping
        Affinity parameters and their defaults (e.g. ``perplexity``).
    cost_params : mapping
        Cost parameters and their defaults.
    resolve_cost : callable or None
        ``resolve_cost(cost_params) -> (kernel prefix, args)``: validates the
        cost parameters and turns them into the kernels' positional
        arguments.  Default: ``kernel`` and the values in declared order.
    symmetric : bool
        Whether the cost requires a symmetric ``P``.
    fuzzy : bool
        Whether ``P`` holds fuzzy memberships, which must lie in [0, 1].
    optimizer_defaults : mapping
        Defaults of ``embed`` for this method: ``learning_rate``,
        ``exaggeration`` and ``init``.
    auto_learning_rate : callable
        ``auto_learning_rate(n_samples, exaggeration)``: the value of
        ``learning_rate="auto"``.
    learned : tuple of str
        Cost parameters that the exact optimizer learns together with ``Y``
        (NCVis's normalisation ``Q``); their values are the starting point.
        The kernels take them right after ``Y``, and the gradient kernel
        returns the derivative in them (one float).
    sgd : SgdSpec or None
        The method's stochastic form (``optimizer="sgd"``), or None.
    auto_params : mapping
        Cost parameters whose default ``"auto"`` depends on the number of
        points: ``{name: rule}``, where ``rule(n_samples)`` gives the value
        (largevis's ``gamma``).
    approximations : mapping
        The method's approximate gradients, ``{name: Approximation}``
        (``gradient=name`` in ``embed`` and ``cost_and_gradient``); empty
        when only the exact gradient exists.
    sized_params : mapping
        Affinity parameters bounded by the number of points,
        ``{name: SizedParam}``.  A value given that exceeds the bound is
        refused; a default that exceeds it is lowered with a
        :class:`~smallvis._validation.SmallDataWarning`.
    check_affinity_params : callable or None
        ``check_affinity_params(n_samples, **affinity_params)``: raises on
        the values that ``build_affinities`` refuses for ``n_samples``
        points, computing nothing (the checks it shares with the builder);
        None when :meth:`split_params` checks everything.
    """

    name: str
    summary: str
    kernel: str
    build_affinities: Callable
    affinity_params: Mapping = field(default_factory=dict)
    cost_params: Mapping = field(default_factory=dict)
    resolve_cost: Callable = None
    symmetric: bool = True
    fuzzy: bool = False
    optimizer_defaults: Mapping = field(default_factory=dict)
    auto_learning_rate: Callable = None
    learned: tuple = ()
    sgd: SgdSpec = None
    auto_params: Mapping = field(default_factory=dict)
    approximations: Mapping = field(default_factory=dict)
    sized_params: Mapping = field(default_factory=dict)
    check_affinity_params: Callable = None

    def resolve_auto(self, cost_params, n_samples):
        """``cost_params`` with every ``"auto"`` value of :attr:`auto_params` resolved."""
        return {k: (self.auto_params[k](n_samples)
                    if k in self.auto_params and isinstance(v, str) and v == "auto" else v)
                for k, v in cost_params.items()}

    def cost_kernels(self, kernels, cost_params, gradient="exact"):
        """The ``(cost, gradient, args)`` kernels of a kernel module.

        Both are called as ``cost(indptr, indices, data, Y, *learned, *args,
        n_threads)`` and ``gradient(indptr, indices, data, Y, *learned, *args,
        grad, n_threads)``, where ``learned`` are the values of
        :attr:`learned` (usually none).  ``gradient`` is ``"exact"`` or the
        name of one of :attr:`approximations` (resolved by
        :func:`choose_gradient`).
        """
        fixed = {k: v for k, v in cost_params.items() if k not in self.learned}
        if gradient != "exact":
            prefix, args = self.approximations[gradient].resolve_cost(**fixed)
        elif self.resolve_cost is None:
            prefix, args = self.kernel, tuple(fixed.values())
        else:
            prefix, args = self.resolve_cost(**fixed)
        return (getattr(kernels, f"{prefix}_cost"), getattr(kernels, f"{prefix}_gradient"),
                args)

    def split_params(self, params, n_samples):
        """Split user keywords into (affinity, cost) dicts with defaults filled.

        Unknown keywords raise ``ValueError`` naming the valid ones.
        """
        known = set(self.affinity_params) | set(self.cost_params)
        unknown = sorted(set(params) - known)
        if unknown:
            valid = ", ".join(sorted(known)) or "none"
            raise ValueError(
                f"unknown parameter(s) {', '.join(map(repr, unknown))} for method "
                f"{self.name!r}; valid method parameters: {valid}"
            )
        affinity = {k: check_param_value(k, params.get(k, v), v)
                    for k, v in self.affinity_params.items()}
        cost = {k: check_param_value(k, params.get(k, v), v)
                for k, v in self.cost_params.items()}
        if n_samples is not None:
            cost = self.resolve_auto(cost, n_samples)
            affinity = self.fit_sizes(affinity, given=set(params), n_samples=n_samples)
        if "perplexity" in affinity:
            affinity["perplexity"] = check_perplexity(affinity["perplexity"], n_samples)
        for name in self.learned:
            cost[name] = check_learned(name, cost[name])
        if self.resolve_cost is not None:  # validate early, before any work
            probe = self.resolve_auto(cost, 2)  # "auto" left for a later N is valid
            self.resolve_cost(**{k: v for k, v in probe.items() if k not in self.learned})
        return affinity, cost


    def check_affinity_values(self, n_samples, **affinity):
        """Raise on what :attr:`build_affinities` refuses for ``n_samples`` points.

        Computes nothing: every value is checked as if the user had given it
        (:meth:`fit_sizes`), then by :attr:`check_affinity_params`, the
        checks the builder itself runs.
        """
        self.fit_sizes(affinity, given=set(affinity), n_samples=n_samples)
        if self.check_affinity_params is not None:
            self.check_affinity_params(n_samples, **affinity)

    def fit_sizes(self, affinity, *, given, n_samples):
        """``affinity`` with :attr:`sized_params` checked against ``n_samples``.

        A value in ``given`` (the user's) above its limit raises
        :class:`~smallvis._validation.ParameterError`; a default above it is
        lowered to the parameter's ``small_data`` value, and one
        :class:`~smallvis._validation.SmallDataWarning` lists every lowered
        default.
        """
        affinity = dict(affinity)
        lowered = []
        for name, size in self.sized_params.items():
            value = affinity.get(name)
            if not _is_real(value):
                continue
            if name in given and value > size.limit(n_samples):
                raise ParameterError(
                    f"{name} must be at most {size.limit_text} = {size.limit(n_samples)} "
                    f"for {n_samples} samples; got {value}", (name,))
            if name in given or size.keeps_default(value, n_samples):
                continue
            affinity[name] = size.small_data(n_samples)
            lowered.append(name)
        if lowered:
            changes = ", ".join(f"{name} lowered from {self.affinity_params[name]:g} to "
                                f"{affinity[name]:g}" for name in lowered)
            options = " or ".join(f"{name}=" for name in lowered)
            warn_from_caller(SmallDataWarning(
                f"{self.name}: {changes} for {n_samples} samples (the default does not "
                f"fit so few); pass {options} to choose another value", lowered))
        return affinity


def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_param_value(name, value, default):
    """Generic check of a method parameter against the type of its default.

    A parameter whose default is a real number must be a finite real number
    (an integer if the default is one); the method-specific range checks
    (e.g. :func:`check_perplexity`) come on top.  Other defaults are not
    checked here.
    """
    if isinstance(default, numbers.Real) and not isinstance(default, bool):
        if value is default:
            return value
        if isinstance(default, numbers.Integral):
            return check_integer(value, name)
        return check_number(value, name)
    return value


#: Largest |value| of a learned log-scale (NCVis's Q): exp(-Q) must stay a
#: normal positive float64 (exp(709.8) overflows), with room for the
#: optimizer to move it.
LEARNED_LIMIT = 700.0


def check_learned(name, value):
    """A learned log-scale such as NCVis's ``Q``: a real number in [-700, 700]."""
    return check_number(value, name, low=-LEARNED_LIMIT, high=LEARNED_LIMIT)


def check_perplexity(perplexity, n_samples):
    """Perplexity must lie in ``[1, n_samples - 1]``."""
    if n_samples is None:
        return check_number(perplexity, "perplexity", low=1)
    if not isinstance(perplexity, bool) and isinstance(perplexity, (int, float)) \
            and perplexity > n_samples - 1:
        raise ParameterError(
            f"perplexity must be at most n_samples - 1 = {n_samples - 1} for "
            f"{n_samples} samples; got {perplexity}", ("perplexity",)
        )
    return check_number(perplexity, "perplexity", low=1, high=n_samples - 1)


# ---------------------------------------------------------------------------
# learning-rate rules
# ---------------------------------------------------------------------------


def joint_auto_learning_rate(n_samples, exaggeration):
    """``max(N / exaggeration / 4, 50)``: Belkina et al. (2019), as scikit-learn.

    For a ``P`` that sums to 1 and the true gradient (factor 4 included).
    """
    return max(n_samples / exaggeration / 4.0, 50.0)


def largevis_auto_learning_rate(n_samples, exaggeration):
    """``N / exaggeration / 4``: the joint rule without its floor of 50.

    Exact LargeVis repels every pair by ``gamma`` directly, not through
    t-SNE's normalisation, and below 200 points the floor multiplies the
    step that the rule derives: on 20 iris rows (perplexity lowered to 6.3)
    a rate of 50 threw pairs of points hundreds of units from their species
    (the map spanned 1,300 units, and 3 of 20 points lay nearest another
    species), where ``N / 4`` = 5 draws the three species apart within 100.
    From 200 points on the two rules agree.
    """
    return n_samples / exaggeration / 4.0


def gaussian_auto_learning_rate(n_samples, exaggeration):
    """A quarter of the joint rule, for the Gaussian output kernel (ssne).

    The joint rule suits t-SNE, whose heavy-tailed weights soften the
    attraction inside a cluster to ``4 p_ij w_ij`` with ``w_ij`` well below 1.
    Under the Gaussian kernel clusters contract until ``w_ij`` is close to 1,
    so the attraction's curvature at point i is the full ``4 sum_j p_ij``,
    about ``4 / N``, and more at points whose symmetrised row sum is a few
    times ``1 / N``.  ``N / 4`` then puts the step ``eta * gain * 4 / N`` at
    about 1 before the delta-bar-delta gains grow: once they do, under
    momentum 0.8, structured data of a few thousand points oscillate and
    blow up after the momentum switch.  ``N / 16`` leaves a factor of 4 of
    room.
    """
    return joint_auto_learning_rate(n_samples, exaggeration) / 4.0


def conditional_auto_learning_rate(n_samples, exaggeration):
    """The Gaussian rule divided by N: a conditional ``P`` sums to N, not 1 (asne)."""
    return gaussian_auto_learning_rate(n_samples, exaggeration) / n_samples


#: Exact UMAP-type costs repel every pair; with delta-bar-delta gains a step
#: of 1 (R smallvis's usual choice) lets the layout blow up, and so does 0.3.
#: 0.03 gives the lowest final cost on iris and is within 3% of the best
#: (0.1) on s1k (benchmarks/bench_fuzzy_learning_rate.py).
FUZZY_LEARNING_RATE = 0.03


def fuzzy_auto_learning_rate(n_samples, exaggeration):
    """A fixed small step for the un-normalised umap and tumap costs."""
    return FUZZY_LEARNING_RATE


def ncvis_auto_learning_rate(n_samples, exaggeration):
    """1, NCVis's own step: it moves ``Q`` too, whose gradient is O(1)."""
    return 1.0


# ---------------------------------------------------------------------------
# affinity builders
# ---------------------------------------------------------------------------

_KNN_DEFAULTS = {"knn_method": "auto", "knn": None, "n_trees": None}


def _check_dense_size(n_samples):
    """Refuse an all-pairs calibration too large for memory, naming what can run."""
    try:
        aff.check_dense_affinity_size(n_samples)
    except ValueError:
        usable = [name for name, m in METHODS.items() if m.build_affinities not in _DENSE_ONLY]
        need = aff.DENSE_AFFINITY_ARRAYS * 8 * n_samples ** 2
        n_max = int((aff.MAX_DENSE_AFFINITY_BYTES / (8 * aff.DENSE_AFFINITY_ARRAYS)) ** 0.5)
        raise ValueError(
            f"n_samples = {n_samples} is too large for a dense perplexity calibration: "
            f"it needs O(N^2) memory, about {need / 1024**3:.1f} GiB (limit "
            f"{aff.MAX_DENSE_AFFINITY_BYTES / 1024**3:.0f} GiB, n_samples <= {n_max}); "
            f"use one of {', '.join(usable)}, which calibrate over nearest "
            "neighbours at this size"
        ) from None


def _conditional(X, kernels, random_state, n_threads, perplexity):
    _check_dense_size(X.shape[0])
    return aff.conditional_perplexity(X, perplexity, kernels)[0]


def _joint(X, kernels, random_state, n_threads, perplexity):
    _check_dense_size(X.shape[0])
    return aff.joint_perplexity(X, perplexity, kernels)


#: Affinity builders that always calibrate over all pairs (asne, ssne).
_DENSE_ONLY = (_conditional, _joint)


#: Interpolation nodes per box and dimension of ``gradient="fft"`` (t-SNE's
#: ``n_interpolation``): 3, as Linderman et al. (2019) and openTSNE.  On
#: digits after 250 iterations it gives a relative gradient error of about
#: 1e-4; each extra node divides the error by roughly 20-40, down to about
#: 1e-12 at 8 to 10 (tests/test_fft.py, tutorials/05_fast_path.ipynb).
FFT_N_INTERPOLATION = 3

#: Largest ``n_interpolation``: equispaced Lagrange interpolation of higher
#: degree loses accuracy to rounding (its Lebesgue constant grows like 2^p).
FFT_MAX_INTERPOLATION = 20

#: ``gradient="auto"`` uses the FFT-interpolated t-SNE gradient above this
#: many points.  750 iterations, one thread, 2-D, the same kNN P
#: (benchmarks/bench_tsne_scale.py --crossover): exact/FFT optimisation time
#: 0.14 at 2,000 points, 0.49 at 5,000, 1.47 at 10,000 (the FFT's grid costs
#: the same whatever N, the exact gradient grows as N^2), so they cross near
#: 8,000; up to 10,000 the exact gradient is kept for its exactness at at
#: most 1.5 times the time.
FFT_AUTO_MIN_N = 10_000


def _tsne_cost(n_interpolation=FFT_N_INTERPOLATION):
    check_integer(n_interpolation, "n_interpolation", low=1, high=FFT_MAX_INTERPOLATION)
    return "tsne", ()


def _tsne_fft_cost(n_interpolation=FFT_N_INTERPOLATION):
    n_interpolation = check_integer(n_interpolation, "n_interpolation", low=1,
                                    high=FFT_MAX_INTERPOLATION)
    return "tsne_fft", (n_interpolation,)


def _tsne_affinities(X, kernels, random_state, n_threads, perplexity, n_neighbors,
                     knn_method, knn, n_trees):
    # checked here too: the dense branch below does not search neighbours
    check_search_params(knn_method, n_trees, name="knn_method")
    if n_neighbors is None and knn is None and X.shape[0] <= DENSE_P_MAX_N:
        return aff.joint_perplexity(X, perplexity, kernels)
    return aff.joint_perplexity_knn(X, perplexity, kernels, n_neighbors=n_neighbors,
                                    knn=knn, knn_method=knn_method, n_trees=n_trees,
                                    random_state=random_state, n_threads=n_threads)


def _largevis_affinities(X, kernels, random_state, n_threads, perplexity, n_neighbors,
                         knn_method, knn, n_trees):
    return aff.joint_perplexity_knn(X, perplexity, kernels, n_neighbors=n_neighbors,
                                    knn=knn, knn_method=knn_method, n_trees=n_trees,
                                    random_state=random_state, n_threads=n_threads)


def _umap_affinities(X, kernels, random_state, n_threads, n_neighbors, local_connectivity,
                     bandwidth, set_op_mix_ratio, knn_method, knn, n_trees):
    return aff.umap_graph(X, n_neighbors, kernels, local_connectivity=local_connectivity,
                          bandwidth=bandwidth, set_op_mix_ratio=set_op_mix_ratio, knn=knn,
                          knn_method=knn_method, random_state=random_state,
                          n_threads=n_threads, n_trees=n_trees)


def _check_search(n_samples, k, knn_method, knn, n_trees):
    """The builders' checks of the neighbour search, or of a precomputed ``knn``."""
    check_search_params(knn_method, n_trees, name="knn_method")
    if knn is not None:
        aff.check_knn(knn, n_samples, k)


def _check_perplexity_knn(n_samples, perplexity, n_neighbors=None, knn_method="auto",
                          knn=None, n_trees=None):
    """What the kNN perplexity builders refuse (tsne, largevis), computing nothing."""
    k = aff.check_perplexity_neighbors(perplexity, n_neighbors, n_samples)
    _check_search(n_samples, k, knn_method, knn, n_trees)


def _check_umap_graph(n_samples, n_neighbors, local_connectivity, bandwidth,
                      set_op_mix_ratio, knn_method="auto", knn=None, n_trees=None):
    """What :func:`smallvis.affinities.umap_graph` refuses, computing nothing."""
    k = aff.check_umap_graph_params(n_samples, n_neighbors, local_connectivity, bandwidth,
                                    set_op_mix_ratio)[0] - 1  # the point itself counted
    _check_search(n_samples, k, knn_method, knn, n_trees)


def _check_ncvis_graph(n_samples, n_neighbors, knn_method="auto", knn=None, n_trees=None):
    """What :func:`smallvis.affinities.ncvis_graph` refuses, computing nothing."""
    k = aff.check_ncvis_neighbors(n_neighbors, n_samples)
    _check_search(n_samples, k, knn_method, knn, n_trees)


_UMAP_GRAPH_PARAMS = {"n_neighbors": 15, "local_connectivity": 1.0, "bandwidth": 1.0,
                      "set_op_mix_ratio": 1.0, **_KNN_DEFAULTS}


# ---------------------------------------------------------------------------
# cost parameters -> kernel arguments
# ---------------------------------------------------------------------------

LARGEVIS_KERNELS = ("cauchy", "cauchy_alpha", "exp")

#: The LargeVis reference's repulsion weight and negatives per positive
#: sample: its stochastic form weighs every unit of attraction against
#: ``5 * 7 = 35`` units of repulsion.
LARGEVIS_REFERENCE_GAMMA = 7.0
LARGEVIS_SGD_NEGATIVES = 5

#: largevis's ``gamma`` under the stochastic optimizer.  The reference's 7
#: needs the reference's sample count (about 10,000 N samples and more, see
#: smallvis.sgd.largevis_n_epochs) to pull the classes apart; with a budget
#: of the order of umap's it stops short: on the 25-class data of
#: benchmarks/bench_scale.py, 500 epochs reach a 10-NN accuracy of 0.972
#: (20,000 points) with gamma = 3, 0.996 with 2 and 0.999 with 1, and 1000
#: epochs with gamma = 7 reach 0.947 (20,000) and 0.92 (70,000) where
#: gamma = 1 reaches 1.000.  ``gamma = 1`` is umap's balance of repulsion to
#: attraction (5 negatives of weight 1 per positive sample).  ``gamma=7``
#: gives the reference's setting.
LARGEVIS_SGD_GAMMA = 1.0


def largevis_auto_gamma(n_samples):
    """``gamma="auto"`` of the exact LargeVis cost: ``35 / (N (N - 1))``.

    The exact cost weighs the attraction by ``P`` (which sums to 1) and the
    repulsion by ``gamma`` on each of the ``N (N - 1)`` ordered pairs.  The
    stochastic form of the LargeVis reference draws, for every positive
    sample (attraction of weight 1), 5 negative samples of weight
    ``gamma = 7``.  Giving the exact cost the same balance of repulsion to
    attraction, ``gamma N (N - 1) = 35``, gives this value.  With ``gamma=1``
    (a naive transfer of the stochastic setting, R smallvis's default) the
    repulsion outweighs the attraction by ``N**2``, and the map spreads into a
    uniform disc (J. Melville's smallvis documentation, LargeVis page,
    reaches the same ``gamma`` of order ``1/N**2`` for normalised ``P``).
    """
    n = max(int(n_samples), 2)
    return LARGEVIS_SGD_NEGATIVES * LARGEVIS_REFERENCE_GAMMA / (n * (n - 1.0))


def _largevis_cost(gamma, eps, kernel, alpha):
    gamma = check_number(gamma, "gamma", low=0)
    eps = check_number(eps, "eps", low=0)
    alpha = check_number(alpha, "alpha", low=0, low_open=True)
    if kernel not in LARGEVIS_KERNELS:
        raise ValueError(f"kernel must be one of {', '.join(LARGEVIS_KERNELS)}; got {kernel!r}")
    if kernel == "exp":
        return "largevis_exp", (gamma,)
    if kernel == "cauchy" and alpha != 1.0:
        raise ValueError("alpha is used only with kernel='cauchy_alpha'")
    return "largevis", (gamma, eps, alpha)


@lru_cache(maxsize=32)
def _fitted_ab(spread, min_dist):
    return aff.umap_ab(spread, min_dist)


#: Largest UMAP exponent b accepted.  Fits give 0.79 to 1.93; d^(2b) with a
#: larger b overflows float64 already at moderate distances (b = 200:
#: d > 6), where the kernels' limits are not computed.
MAX_UMAP_B = 10.0


def umap_output_kernel(a=None, b=None, spread=1.0, min_dist=0.1):
    """UMAP's ``(a, b)``: given directly, or fitted to ``spread`` and ``min_dist``."""
    if (a is None) != (b is None):
        raise ValueError("give both a and b, or neither (then spread and min_dist set them)")
    if a is not None:
        return (check_number(a, "a", low=0, low_open=True),
                check_number(b, "b", low=0, low_open=True, high=MAX_UMAP_B))
    spread = check_number(spread, "spread", low=0, low_open=True)
    min_dist = check_number(min_dist, "min_dist", low=0)
    if min_dist > spread:
        raise ValueError(f"min_dist must be at most spread = {spread:g}; got {min_dist:g}")
    return _fitted_ab(spread, min_dist)


def _umap_cost(a, b, spread, min_dist, eps):
    a, b = umap_output_kernel(a, b, spread, min_dist)
    return "umap", (a, b, check_number(eps, "eps", low=0))


def _tumap_cost(eps):
    return "tumap", (check_number(eps, "eps", low=0),)


def _ncvis_affinities(X, kernels, random_state, n_threads, n_neighbors, knn_method, knn,
                      n_trees):
    return aff.ncvis_graph(X, n_neighbors, knn=knn, knn_method=knn_method,
                           random_state=random_state, n_threads=n_threads, n_trees=n_trees,
                           kernels=kernels)


def _ncvis_cost(nu, a, b, spread, min_dist, correct_q):
    nu = check_number(nu, "nu", low=0, low_open=True)
    a, b = umap_output_kernel(a, b, spread, min_dist)
    if not isinstance(correct_q, (bool, np.bool_)):
        raise TypeError(f"correct_q must be True or False; got {correct_q!r}")
    return "ncvis", (nu, a, b)


def _ncvis_sgd_params(Q, nu, a, b, spread, min_dist, correct_q):
    """nu is the mean of the noise schedule; each epoch's update uses its own count."""
    _, (nu, a, b) = _ncvis_cost(nu, a, b, spread, min_dist, correct_q)
    return {"a": a, "b": b, "n_negative": nu}


def ncvis_n_epochs(n_samples):
    """The NCVis reference's default: 50 epochs."""
    return 50


# ---------------------------------------------------------------------------
# cost parameters -> the SGD coefficients' parameters
# ---------------------------------------------------------------------------

#: umap-learn's repulsion strength (its ``repulsion_strength`` default).
UMAP_SGD_GAMMA = 1.0


def _umap_sgd_params(a, b, spread, min_dist, eps):
    a, b = umap_output_kernel(a, b, spread, min_dist)
    return {"a": a, "b": b, "gamma": UMAP_SGD_GAMMA, "eps": check_number(eps, "eps", low=0)}


def _tumap_sgd_params(eps):
    return {"gamma": UMAP_SGD_GAMMA, "eps": check_number(eps, "eps", low=0)}


def _largevis_sgd_params(gamma, eps, kernel, alpha):
    _largevis_cost(gamma, eps, kernel, alpha)
    if kernel != "cauchy":
        raise ValueError(f"optimizer='sgd' supports largevis with kernel='cauchy' only "
                         f"(the LargeVis reference); got kernel={kernel!r}")
    return {"gamma": float(gamma), "eps": float(eps)}


#: Annoy trees under optimizer="sgd" (large data).  Every Annoy search is
#: followed by neighbour-of-neighbour refinement (smallvis.neighbors), which
#: makes a small forest enough: 7 trees find 99.8% of the exact 14
#: neighbours on the 70,000-point data of benchmarks/bench_sgd.py and 92.4%
#: on the harder full-rank data of benchmarks/bench_knn.py, against 99.7%
#: and 86.2% for the 20 unrefined trees used before, in about half the time.
SGD_ANNOY_TREES = 7

# umap-learn's optimize_layout_euclidean (docs/theory.md §4.2)
_UMAP_SGD = dict(coefficient="umap", scheme="epochs_per_sample", noise="uniform",
                 n_epochs=umap_n_epochs, n_negative=5, clip=4.0, learning_rate=1.0,
                 init="spectral", param_defaults={"n_trees": SGD_ANNOY_TREES})

#: What umap and tumap share: the fuzzy graph, its validation and defaults.
_FUZZY_METHOD = dict(
    build_affinities=_umap_affinities,
    affinity_params=_UMAP_GRAPH_PARAMS,
    sized_params={"n_neighbors": UMAP_SIZE},
    check_affinity_params=_check_umap_graph,
    fuzzy=True,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=fuzzy_auto_learning_rate,
)

# ---------------------------------------------------------------------------
# the registry
# ---------------------------------------------------------------------------

METHODS = MappingProxyType({
    m.name: m
    for m in (
        Method(
            name="asne",
            summary="asymmetric SNE: conditional Gaussian P and Q, KL per row",
            kernel="asne",
            build_affinities=_conditional,
            affinity_params={"perplexity": 30.0},
            sized_params={"perplexity": PERPLEXITY_SIZE},
            symmetric=False,
            optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
            auto_learning_rate=conditional_auto_learning_rate,
        ),
        Method(
            name="ssne",
            summary="symmetric SNE: joint Gaussian P and Q, KL(P||Q)",
            kernel="ssne",
            build_affinities=_joint,
            affinity_params={"perplexity": 30.0},
            sized_params={"perplexity": PERPLEXITY_SIZE},
            optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
            auto_learning_rate=gaussian_auto_learning_rate,
        ),
        Method(
            name="tsne",
            summary="t-SNE: joint Gaussian P, Student-t (Cauchy) Q, KL(P||Q)",
            kernel="tsne",
            build_affinities=_tsne_affinities,
            check_affinity_params=_check_perplexity_knn,
            affinity_params={"perplexity": 30.0, "n_neighbors": None, **_KNN_DEFAULTS},
            sized_params={"perplexity": PERPLEXITY_SIZE, "n_neighbors": OTHERS_SIZE},
            # n_interpolation: the accuracy of gradient="fft" (unused by "exact")
            cost_params={"n_interpolation": FFT_N_INTERPOLATION},
            resolve_cost=_tsne_cost,
            optimizer_defaults={"learning_rate": "auto", "exaggeration": 12.0, "init": "spca"},
            auto_learning_rate=joint_auto_learning_rate,
            approximations={"fft": Approximation(
                name="fft",
                summary="FFT-accelerated interpolation of the repulsion (FIt-SNE, "
                        "Linderman et al. 2019), O(N) per iteration",
                resolve_cost=_tsne_fft_cost, dimensions=(1, 2),
                auto_min_n=FFT_AUTO_MIN_N)},
        ),
        Method(
            name="largevis",
            summary="LargeVis: kNN perplexity P, Cauchy weights, gamma-weighted repulsion",
            kernel="largevis",
            build_affinities=_largevis_affinities,
            check_affinity_params=_check_perplexity_knn,
            affinity_params={"perplexity": 50.0, "n_neighbors": None, **_KNN_DEFAULTS},
            sized_params={"perplexity": PERPLEXITY_SIZE, "n_neighbors": OTHERS_SIZE},
            cost_params={"gamma": "auto", "eps": 0.1, "kernel": "cauchy", "alpha": 1.0},
            auto_params={"gamma": largevis_auto_gamma},
            resolve_cost=_largevis_cost,
            optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
            auto_learning_rate=largevis_auto_learning_rate,
            # the LargeVis reference code (LargeVis.cpp, visualize_thread)
            sgd=SgdSpec(coefficient="cauchy", scheme="alias", noise="degree",
                        n_epochs=largevis_n_epochs, kernel_params=_largevis_sgd_params,
                        n_negative=LARGEVIS_SGD_NEGATIVES, clip=5.0, learning_rate=1.0,
                        min_learning_rate=1e-4, move_negatives=True, defer_head=True,
                        skip_tail=True, init="random",
                        param_defaults={"gamma": LARGEVIS_SGD_GAMMA,
                                        "n_trees": SGD_ANNOY_TREES}),
        ),
        Method(
            name="umap",
            summary="UMAP: fuzzy kNN graph, 1/(1 + a d^2b) weights, fuzzy cross-entropy",
            kernel="umap",
            cost_params={"a": None, "b": None, "spread": 1.0, "min_dist": 0.1, "eps": 0.001},
            resolve_cost=_umap_cost,
            sgd=SgdSpec(kernel_params=_umap_sgd_params, **_UMAP_SGD),
            **_FUZZY_METHOD,
        ),
        Method(
            name="tumap",
            summary="t-UMAP: UMAP with a = b = 1 (Cauchy weights)",
            kernel="tumap",
            cost_params={"eps": 0.001},
            resolve_cost=_tumap_cost,
            # umap's loop with a = b = 1, written as the Cauchy coefficient:
            # the same numbers as d^(2b) = exp(b log d^2) with b = 1, without
            # the exp and log
            sgd=SgdSpec(kernel_params=_tumap_sgd_params,
                        **{**_UMAP_SGD, "coefficient": "cauchy"}),
            **_FUZZY_METHOD,
        ),
        Method(
            name="ncvis",
            summary="NCVis: noise-contrastive estimation with a learned normalisation Q",
            kernel="ncvis",
            build_affinities=_ncvis_affinities,
            check_affinity_params=_check_ncvis_graph,
            affinity_params={"n_neighbors": 15, **_KNN_DEFAULTS},
            sized_params={"n_neighbors": KNN_GRAPH_SIZE},
            cost_params={"Q": 0.0, "nu": 5.0, "a": None, "b": None, "spread": 1.0,
                         "min_dist": 0.4, "correct_q": False},
            resolve_cost=_ncvis_cost,
            learned=("Q",),
            # from a 1e-4-sized start the exact run sits on a plateau that the
            # tol test mistakes for convergence; NCVis's own start avoids it
            optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "power"},
            auto_learning_rate=ncvis_auto_learning_rate,
            # the NCVis reference code (docs/theory.md §4.4)
            sgd=SgdSpec(coefficient="ncvis", scheme="every_edge", noise="uniform_others",
                        n_epochs=ncvis_n_epochs, kernel_params=_ncvis_sgd_params,
                        n_negative=5, clip=4.0, learning_rate=1.0, move_negatives=True,
                        clip_after_step=True, init="power", decay="quadratic",
                        noise_schedule="cubic", q_learning_rate=1.0,
                        param_defaults={"n_trees": SGD_ANNOY_TREES}),
        ),
    )
})


def get_method(name):
    """Return the registered :class:`Method` called ``name``."""
    if not isinstance(name, str):
        raise TypeError(f"method must be a string; got {name!r}")
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(
            f"unknown method {name!r}; available methods: {', '.join(METHODS)}"
        ) from None


def choose_gradient(method, gradient, n_samples, n_components):
    """Resolve ``gradient`` ("auto", "exact" or an approximation's name).

    Returns ``"exact"`` or the name of one of ``method.approximations``.
    ``"auto"`` takes the exact gradient up to the approximation's
    ``auto_min_n`` points (or in a dimension it does not support), the
    approximation above.

    Raises
    ------
    ValueError
        An unknown name, an approximation the method does not have, or one
        asked for in a dimension it does not support; the message lists what
        exists.
    """
    approximations = method.approximations
    known = GRADIENTS + tuple(approximations)
    if not isinstance(gradient, str) or gradient not in known:
        offered = {name: sorted(m.approximations) for name, m in METHODS.items()
                   if m.approximations}
        elsewhere = "; ".join(f"{', '.join(map(repr, names))} for {name}"
                              for name, names in offered.items())
        raise ValueError(
            f"gradient must be one of {', '.join(map(repr, known))} for method "
            f"{method.name!r}; got {gradient!r}"
            + (f" (approximate gradients: {elsewhere})" if elsewhere else ""))
    if gradient == "exact":
        return gradient
    if gradient == "auto":
        for name, approx in approximations.items():
            if n_components in approx.dimensions and n_samples > approx.auto_min_n:
                return name
        return "exact"
    approx = approximations[gradient]
    if n_components not in approx.dimensions:
        dims = " and ".join(f"{d}-D" for d in approx.dimensions)
        others = [name for name, a in approximations.items() if n_components in a.dimensions]
        raise ValueError(
            f"gradient={gradient!r} supports {dims} output only; got n_components="
            f"{n_components}.  In {n_components}-D {method.name} has "
            + (f"gradient={', '.join(map(repr, others))} or " if others else "only ")
            + "gradient='exact' (O(N^2) per iteration)")
    return gradient
