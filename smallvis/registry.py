"""The method registry: the only table of methods in the package.

``embed``, ``affinities``, ``cost_and_gradient``, ``transform``, the sampled
cost, the CLI, the testing kit, the docs and the tests all read
:data:`METHODS`; no other module of the package names a method
(tests/test_registry_only.py).  What is particular to a method sits in its
:class:`Method` entry, and :meth:`Method.kernels` is the one rule that turns
a method into its twin kernels.
"""

import functools
import warnings
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Mapping

import numpy as np

from .inputs import affinities as aff
# the parts of the entries (LEARNED_LIMIT and SizedParam re-exported: they were
# defined here)
from ._method_rules import (  # noqa: F401  (LEARNED_LIMIT, SizedParam: re-exported)
                            KNN_GRAPH_SIZE, LARGEVIS_SGD_EARLY_GAMMA, LARGEVIS_SGD_GAMMA,
                            LARGEVIS_SGD_NEGATIVES,
                            LEARNED_LIMIT, OTHERS_SIZE, PERPLEXITY_SIZE, UMAP_SIZE, AffinityFamily,
                            Approximation, Confusion, SizedParam, check_learned, check_ncvis_graph,
                            check_param_value, check_perplexity, check_perplexity_knn,
                            check_umap_graph, conditional_auto_learning_rate,
                            fuzzy_auto_learning_rate, gaussian_auto_learning_rate, is_real_number,
                            joint_auto_learning_rate, largevis_auto_gamma,
                            largevis_auto_learning_rate, ncvis_auto_learning_rate,
                            umap_output_kernel)
from ._validation import (ParameterError, SmallDataWarning, check_integer, check_number,
                          warn_from_caller)
from .inputs.distances import check_metric
from .inputs.neighbors import check_search_params
from .engines.sgd import SgdSpec, largevis_early_epochs, largevis_n_epochs, umap_n_epochs
from .methods import units_named  # noqa: F401  (for the entries of methods added below)
from .methods.largevis import LargeVis, LargeVisExp
from .methods.ncvis import NCVis
from .methods.tumap import TUMAP
from .methods.umap import UMAP

#: Up to this many points, t-SNE calibrates P over all other points (dense
#: P); above it, over 3 x perplexity nearest neighbours (sparse P).
DENSE_P_MAX_N = 4096


#: Values of ``gradient=`` that every method accepts.
GRADIENTS = ("auto", "exact")

#: The method of ``embed``, ``affinities``, ``Embedding`` and the CLI when
#: none is given.
DEFAULT_METHOD = "tsne"

#: Kernel families: ``family -> (cost suffix, gradient suffix)``.  The twin
#: kernels of a family are ``<prefix>_<suffix>``, where the prefix comes
#: from :meth:`Method.kernel_name`.  ``"embed"``: the cost and gradient of an
#: embedding (``cost(indptr, indices, data, Y, *learned, *args, n_threads)``);
#: ``"transform"``: those of new points placed against a fixed map
#: (``cost(indptr, indices, data, Y, Y_ref, *learned, *args, n_threads)``).
KERNEL_FAMILIES = MappingProxyType({
    "embed": ("cost", "gradient"),
    "transform": ("transform_cost", "transform_gradient"),
})


#: asne's conditional Gaussian ``p_{j|i}``, calibrated to a perplexity.
CONDITIONAL = AffinityFamily("conditional", normalised="rows", knn_graph=False)
#: ``(p_{j|i} + p_{i|j}) / (2N)``, over all points or nearest neighbours.
JOINT = AffinityFamily("joint", normalised="total", knn_graph=False, conditional="asne")
#: UMAP's fuzzy kNN graph: memberships in [0, 1].
FUZZY = AffinityFamily("fuzzy", normalised="", knn_graph=True)
#: NCVis's symmetric kNN graph, normalised to sum 1.
KNN_GRAPH = AffinityFamily("knn graph", normalised="total", knn_graph=True)


class _UnitKernel:
    """A generic unit kernel called as a named kernel would be.

    ``entry`` is ``pair_cost``, ``pair_gradient``, ``pair_transform_cost``
    or ``pair_transform_gradient`` of a kernel module (or their
    ``normalised_`` kin, for a unit with normalised ``q``; :meth:`engine`); the call
    ``kernel(indptr, indices, data, Y[, Y_ref], *unit_args[, grad], n_threads)``
    becomes ``entry(unit(*unit_args), indptr, indices, data, Y[, Y_ref][, grad],
    n_threads)``.  It belongs to the entry's module (``__module__``), as a
    named kernel does.
    """

    @staticmethod
    def engine(unit):
        """The prefix of a unit's generic entry points: ``"normalised"`` or ``"pair"``.

        A unit whose weights are normalised to ``q`` (it has a
        ``normalisation``, over ``"rows"`` or ``"total"``) runs on
        ``normalised_cost`` and its kin; any other on ``pair_cost`` and its kin.
        """
        return "normalised" if getattr(unit, "normalisation", None) else "pair"

    def __init__(self, entry, unit, family, n_trailing):
        self.entry, self.unit = entry, unit
        self.n_leading = 5 if family == "transform" else 4
        self.n_trailing = n_trailing
        self.__module__, self.__name__ = entry.__module__, entry.__name__

    def __call__(self, *args):
        lead, split = self.n_leading, len(args) - self.n_trailing
        return self.entry(self.unit(*args[lead:split]), *args[:lead], *args[split:])

    def __repr__(self):
        return f"<{self.__name__} of {self.unit.__name__}>"


class _ExactInstead:
    """An approximation's kernel that hands the layouts it cannot serve to the exact one.

    Called as the approximate kernel is, ``kernel(indptr, indices, data, Y,
    *learned, *args[, grad], n_threads)``.  At each call ``rule(Y)`` (the
    approximation's :attr:`~smallvis._method_rules.Approximation.exact_instead`
    with the cost parameters bound) says whether this ``Y`` goes to the
    exact kernel, whose own ``exact_args`` replace ``args``.  Its warning
    is issued once per ``shared`` state: the cost and gradient kernels of
    one objective share it, so a run warns at most once.  It belongs to the
    approximate kernel's module, as :class:`_UnitKernel` does.
    """

    def __init__(self, approximate, exact, n_args, exact_args, n_trailing, rule, shared):
        self.approximate, self.exact, self.rule, self.shared = approximate, exact, rule, shared
        self.n_args, self.exact_args, self.n_trailing = n_args, tuple(exact_args), n_trailing
        self.__module__, self.__name__ = approximate.__module__, approximate.__name__

    def __call__(self, *args):
        exact, warning = self.rule(args[3])
        if warning is not None and not self.shared["warned"]:
            self.shared["warned"] = True
            warnings.warn(warning, stacklevel=2)
        if not exact:
            return self.approximate(*args)
        end = len(args) - self.n_trailing
        return self.exact(*args[:end - self.n_args], *self.exact_args, *args[end:])

    def __repr__(self):
        return f"<{self.__name__}, exact where {self.rule.func.__name__} says>"


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
        points: ``{name: rule}``, where ``rule(n_samples, **other_params)``
        gives the value (largevis's ``gamma``).
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
    kernel_options : tuple of mapping
        Cost parameter values that select an exact kernel other than the
        default's (largevis's ``{"kernel": "exp"}``); with the default,
        :meth:`kernel_prefixes` lists every exact kernel the method can use.
    pair_units : mapping
        ``{kernel prefix: unit}`` for the costs that are sums of pair
        terms: the NumPy unit (``smallvis/methods/<name>.py``) whose cost
        terms :class:`smallvis.engines.sampled_cost.SampledCost` samples,
        and that the generic kernels (``pair_cost``, ``pair_gradient`` and
        their transform pair; ``normalised_cost`` and its kin for a unit
        with normalised ``q``) run for a prefix without named kernels.
        The unit is built from the kernel's arguments (the learned values
        first).  Empty: no estimate.
    fitted_params : tuple of str
        Cost parameters that ``resolve_cost`` turns into the kernel's
        leading arguments, in their order (UMAP's ``a`` and ``b``, fitted
        to ``spread`` and ``min_dist`` when not given).
    fit_inputs : tuple of str
        Cost parameters that only feed that fit (``spread``, ``min_dist``).
    exact_gradient : callable or None
        ``exact_gradient(cost_params) -> bool``: whether the gradient kernel
        is the exact gradient of the cost kernel (a positive ``eps``
        smooths UMAP's); None: always.
    p_family : AffinityFamily
        The kind of ``P`` the method builds.
    case_affinities : callable
        ``case_affinities(X, n_neighbors, perplexity, affinities) -> P``:
        the dense ``P`` of the testing kit's cases (all points, or a kNN
        graph of ``n_neighbors`` other points), built with
        :func:`smallvis.affinities` passed as ``affinities``.
    known_mistakes : tuple
        The testing kit's known mistakes for this method, checked in order:
        names of entries of :data:`smallvis.testing._mistakes.CATALOGUE`
        or :class:`Confusion` with another method.
    constant_term : {"entropy", "memberships", ""}
        The term of the cost that depends on ``P`` only, which the testing
        kit names when a user's cost differs by it: ``sum p log p``, ``sum
        [v log v + (1 - v) log(1 - v)]`` over fuzzy memberships, or none.
    factor_4_convention : bool
        Whether the gradient carries t-SNE's factor 4, which openTSNE's
        convention leaves out (a user gradient of 1/4 the reference is then
        named as that convention).
    examples : tuple of mapping
        Example cost parameters, at which the gradient is the exact
        gradient of the cost (``eps = 0``): the tests' tables of parameters
        (finite differences, twins, transform, frozen rows, the stochastic
        loop, the units) take a method's rows from here when they have no
        hand-written rows for it, and the golden script its case.  The
        first is the golden case's.
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
    kernel_options: tuple = ()
    pair_units: Mapping = field(default_factory=dict)
    fitted_params: tuple = ()
    fit_inputs: tuple = ()
    exact_gradient: Callable = None
    p_family: AffinityFamily = JOINT
    case_affinities: Callable = None
    known_mistakes: tuple = ()
    constant_term: str = ""
    factor_4_convention: bool = True
    examples: tuple = ()

    def resolve_auto(self, cost_params, n_samples):
        """``cost_params`` with every ``"auto"`` value of :attr:`auto_params` resolved.

        A rule is called as ``rule(n_samples, **others)``, ``others`` the
        other cost parameters (Neg-t-SNE's ``z_bar`` depends on the
        negatives per positive sample).
        """
        def resolved(k, v):
            if k in self.auto_params and isinstance(v, str) and v == "auto":
                return self.auto_params[k](n_samples, **{o: w for o, w in cost_params.items()
                                                         if o != k})
            return v
        return {k: resolved(k, v) for k, v in cost_params.items()}

    def kernel_name(self, cost_params, gradient="exact"):
        """The one rule from a method to its kernels: ``(prefix, args)``.

        ``prefix`` names the twin kernels (``<prefix>_cost`` and so on, see
        :data:`KERNEL_FAMILIES`) and ``args`` are their positional arguments
        after the learned values.  ``gradient`` is ``"exact"`` or the name
        of one of :attr:`approximations` (resolved by
        :func:`choose_gradient`).  The values of :attr:`learned` in
        ``cost_params`` are not arguments; ``"auto"`` values must be
        resolved (:meth:`resolve_auto`).
        """
        fixed = {k: v for k, v in cost_params.items() if k not in self.learned}
        if gradient != "exact":
            return self.approximations[gradient].resolve_cost(**fixed)
        if self.resolve_cost is None:
            return self.kernel, tuple(fixed.values())
        return self.resolve_cost(**fixed)

    def kernels(self, module, cost_params, gradient="exact", family="embed", guarded=True):
        """The ``(cost, gradient, args)`` kernels of ``family`` in a kernel module.

        ``module`` is :mod:`smallvis.backends.reference` or :mod:`smallvis.backends._kernels`;
        ``family`` a key of :data:`KERNEL_FAMILIES`.  The embedding kernels
        are called as ``cost(indptr, indices, data, Y, *learned, *args,
        n_threads)`` and ``gradient(indptr, indices, data, Y, *learned,
        *args, grad, n_threads)``, where ``learned`` are the values of
        :attr:`learned` (usually none); the transform kernels take
        ``Y_ref`` after ``Y``.  Arguments as :meth:`kernel_name`.  An
        approximation with an ``exact_instead`` rule comes wrapped so that
        the layouts the rule names go to the exact kernels (``guarded=False``:
        the bare approximate kernels).
        """
        approx = self.approximations.get(gradient) if gradient != "exact" else None
        if guarded and approx is not None and approx.exact_instead is not None:
            kernels = self.kernels(module, cost_params, gradient, family, guarded=False)
            exact = self.kernels(module, cost_params, "exact", family)
            fixed = {k: v for k, v in cost_params.items() if k not in self.learned}
            rule = functools.partial(approx.exact_instead, **fixed)
            shared = {"warned": False}
            return tuple(_ExactInstead(a, e, len(kernels[2]), exact[2], n_trailing, rule, shared)
                         for a, e, n_trailing in zip(kernels[:2], exact[:2], (1, 2))
                         ) + (kernels[2],)
        prefix, args = self.kernel_name(cost_params, gradient)
        cost_suffix, gradient_suffix = KERNEL_FAMILIES[family]
        if not hasattr(module, f"{prefix}_{cost_suffix}") and prefix in self.pair_units:
            # no named kernels: the generic entry points of the unit's engine
            unit = self.pair_units[prefix]
            engine = _UnitKernel.engine(unit)
            return (_UnitKernel(getattr(module, f"{engine}_{cost_suffix}"), unit, family, 1),
                    _UnitKernel(getattr(module, f"{engine}_{gradient_suffix}"), unit, family, 2),
                    tuple(args))
        return (getattr(module, f"{prefix}_{cost_suffix}"),
                getattr(module, f"{prefix}_{gradient_suffix}"), tuple(args))

    def cost_kernels(self, kernels, cost_params, gradient="exact"):
        """The embedding kernels: :meth:`kernels` with ``family="embed"``."""
        return self.kernels(kernels, cost_params, gradient)

    def kernel_prefixes(self):
        """Every exact kernel prefix the method can select (see :attr:`kernel_options`)."""
        defaults = self.resolve_auto(dict(self.cost_params), 2)
        return tuple(dict.fromkeys(self.kernel_name({**defaults, **option})[0]
                                   for option in ({},) + tuple(self.kernel_options)))

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
            if not is_real_number(value):
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


# ---------------------------------------------------------------------------
# affinity builders
# ---------------------------------------------------------------------------

_KNN_DEFAULTS = {"knn_method": "auto", "knn": None, "n_trees": None, "metric": "euclidean"}


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


def _conditional(X, kernels, random_state, n_threads, perplexity, metric):
    _check_dense_size(X.shape[0])
    return aff.conditional_perplexity(X, perplexity, kernels, metric=check_metric(metric))[0]


def _joint(X, kernels, random_state, n_threads, perplexity, metric):
    _check_dense_size(X.shape[0])
    return aff.joint_perplexity(X, perplexity, kernels, metric=check_metric(metric))


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
#: many points.  The FFT's grid costs the same whatever N while the exact
#: gradient grows as N^2, so the FFT wins from some thousands of points
#: (benchmarks/bench_tsne_scale.py --crossover); up to 10,000 the exact
#: gradient is kept for its exactness at no more than about 1.5 times the
#: time (docs/experiments.md, 2026-11-23).
FFT_AUTO_MIN_N = 10_000


#: Smallest t-SNE ``dof`` (the heavy tail alpha of (1 + d^2/alpha)^-alpha).
#: The weight needs d^2/alpha as a float64: at alpha = 1e-8 it stays finite
#: up to d^2 = 1.8e300, coordinates spanning about 1e150, near the 1e154 at
#: which any layout is refused (``check_coordinate_span``); a smaller alpha
#: overflows it on narrower layouts, down to every layout at the smallest
#: subnormal, and the cost and gradient become NaN.  Near the floor every
#: weight is 1 to within alpha log(d^2/alpha) (2e-7 at unit distance): q is
#: nearly uniform and the forces, of order alpha/d^2, barely move a map.
DOF_MIN = 1e-8


def _check_dof(dof):
    """t-SNE's ``dof``: a finite real number in [:data:`DOF_MIN`, inf).

    The limit ``dof -> inf`` is the Gaussian weight exp(-d^2) normalised over
    all pairs, which ``ssne`` computes exactly.
    """
    dof = check_number(dof, "dof")
    if dof < DOF_MIN:
        why = ("" if dof <= 0 else f": below {DOF_MIN:g} the heavy-tailed weight "
               "(1 + d^2/dof)^-dof overflows float64 on ordinary layouts (and well before "
               "that the map hardly moves from its start)")
        raise ParameterError(f"dof must be in [{DOF_MIN:g}, inf); got {dof!r}{why}", ("dof",))
    return dof


def _tsne_cost(n_interpolation=FFT_N_INTERPOLATION, dof=1.0):
    check_integer(n_interpolation, "n_interpolation", low=1, high=FFT_MAX_INTERPOLATION)
    dof = _check_dof(dof)
    # dof = 1: the Cauchy kernels, whose numbers t-SNE has always had
    return ("tsne", ()) if dof == 1.0 else ("tsne_dof", (dof,))


def _tsne_fft_cost(n_interpolation=FFT_N_INTERPOLATION, dof=1.0):
    n_interpolation = check_integer(n_interpolation, "n_interpolation", low=1,
                                    high=FFT_MAX_INTERPOLATION)
    dof = _check_dof(dof)
    if dof == 1.0:
        return "tsne_fft", (n_interpolation,)
    return "tsne_dof_fft", (n_interpolation, dof)


def _tsne_fft_exact_instead(Y, n_interpolation=FFT_N_INTERPOLATION, dof=1.0):
    """gradient="fft": exact kernels where the layout is too wide for the grid (reference rule).

    ``dof`` goes along: a heavier tail needs narrower boxes.
    """
    from .backends.reference import _fft_exact_instead
    return _fft_exact_instead(Y, check_integer(n_interpolation, "n_interpolation", low=1,
                                               high=FFT_MAX_INTERPOLATION), _check_dof(dof))


def _tsne_affinities(X, kernels, random_state, n_threads, perplexity, n_neighbors,
                     knn_method, knn, n_trees, metric):
    # checked here too: the dense branch below does not search neighbours
    check_search_params(knn_method, n_trees, name="knn_method")
    metric = check_metric(metric)
    if n_neighbors is None and knn is None and X.shape[0] <= DENSE_P_MAX_N:
        return aff.joint_perplexity(X, perplexity, kernels, metric=metric)
    return aff.joint_perplexity_knn(X, perplexity, kernels, n_neighbors=n_neighbors,
                                    knn=knn, knn_method=knn_method, n_trees=n_trees,
                                    random_state=random_state, n_threads=n_threads,
                                    metric=metric)


def _largevis_affinities(X, kernels, random_state, n_threads, perplexity, n_neighbors,
                         knn_method, knn, n_trees, metric):
    return aff.joint_perplexity_knn(X, perplexity, kernels, n_neighbors=n_neighbors,
                                    knn=knn, knn_method=knn_method, n_trees=n_trees,
                                    random_state=random_state, n_threads=n_threads,
                                    metric=check_metric(metric))


def _umap_affinities(X, kernels, random_state, n_threads, n_neighbors, local_connectivity,
                     bandwidth, set_op_mix_ratio, knn_method, knn, n_trees, metric):
    return aff.umap_graph(X, n_neighbors, kernels, local_connectivity=local_connectivity,
                          bandwidth=bandwidth, set_op_mix_ratio=set_op_mix_ratio, knn=knn,
                          knn_method=knn_method, random_state=random_state,
                          n_threads=n_threads, n_trees=n_trees, metric=check_metric(metric))


_UMAP_GRAPH_PARAMS = {"n_neighbors": 15, "local_connectivity": 1.0, "bandwidth": 1.0,
                      "set_op_mix_ratio": 1.0, **_KNN_DEFAULTS}


# ---------------------------------------------------------------------------
# cost parameters -> kernel arguments
# ---------------------------------------------------------------------------

LARGEVIS_KERNELS = ("cauchy", "cauchy_alpha", "exp")

def _early_epochs_given(early_epochs):
    """largevis's ``early_epochs`` checked: None for "auto" (or None), else an integer >= 0."""
    if early_epochs is None or (isinstance(early_epochs, str) and early_epochs == "auto"):
        return None
    return check_integer(early_epochs, "early_epochs", low=0)


def _largevis_cost(gamma, eps, kernel, alpha, early_gamma=None, early_epochs=None):
    # early_gamma and early_epochs belong to the stochastic optimizer
    # (_largevis_early_phase); the exact cost does not use them, but a bad
    # value is refused on every path
    if early_gamma is not None:
        check_number(early_gamma, "early_gamma", low=0)
    _early_epochs_given(early_epochs)
    gamma = check_number(gamma, "gamma", low=0)
    eps = check_number(eps, "eps", low=0)
    alpha = check_number(alpha, "alpha", low=0, low_open=True)
    if kernel not in LARGEVIS_KERNELS:
        raise ParameterError(f"kernel must be one of {', '.join(LARGEVIS_KERNELS)}; "
                             f"got {kernel!r}", ("kernel",))
    if kernel == "exp":
        return "largevis_exp", (gamma,)
    if kernel == "cauchy" and alpha != 1.0:
        raise ParameterError("alpha is used only with kernel='cauchy_alpha'", ("alpha", "kernel"))
    return "largevis", (gamma, eps, alpha)


def _umap_cost(a, b, spread, min_dist, eps):
    a, b = umap_output_kernel(a, b, spread, min_dist)
    return "umap", (a, b, check_number(eps, "eps", low=0))


def _tumap_cost(eps):
    return "tumap", (check_number(eps, "eps", low=0),)


def _ncvis_affinities(X, kernels, random_state, n_threads, n_neighbors, knn_method, knn,
                      n_trees, metric):
    return aff.ncvis_graph(X, n_neighbors, knn=knn, knn_method=knn_method,
                           random_state=random_state, n_threads=n_threads, n_trees=n_trees,
                           kernels=kernels, metric=check_metric(metric))


def _ncvis_cost(nu, a, b, spread, min_dist, correct_q):
    nu = check_number(nu, "nu", low=0, low_open=True)
    a, b = umap_output_kernel(a, b, spread, min_dist)
    if not isinstance(correct_q, (bool, np.bool_)):
        raise TypeError(f"correct_q must be True or False; got {correct_q!r}")
    return "ncvis", (nu, a, b)


#: Largest ``nu`` of NCVis's stochastic form, where it is a count of noise
#: samples drawn per positive sample (200 times the default of 5): the run's
#: time grows with it, and a larger value is a typo or a forged file.
NCVIS_SGD_MAX_NU = 1000.0


def _ncvis_sgd_params(Q, nu, a, b, spread, min_dist, correct_q):
    """nu is the mean of the noise schedule; each epoch's update uses its own count."""
    _, (nu, a, b) = _ncvis_cost(nu, a, b, spread, min_dist, correct_q)
    nu = check_number(nu, "nu", low=0, low_open=True, high=NCVIS_SGD_MAX_NU)
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


def _largevis_sgd_params(gamma, eps, kernel, alpha, early_gamma=None, early_epochs=None):
    _largevis_cost(gamma, eps, kernel, alpha)
    if kernel != "cauchy":
        raise ParameterError(f"optimizer='sgd' supports largevis with kernel='cauchy' only "
                             f"(the LargeVis reference); got kernel={kernel!r}",
                             ("kernel", "optimizer"))
    return {"gamma": float(gamma), "eps": float(eps)}


def _largevis_early_phase(n_epochs, **cost_params):
    """largevis's early phase: ``early_gamma`` for the first ``early_epochs`` epochs.

    ``early_epochs="auto"`` is 15% of ``n_epochs``
    (:func:`smallvis.engines.sgd.largevis_early_epochs`); ``early_epochs=0``
    or ``early_gamma=None`` runs ``gamma`` throughout, as the reference does.
    The values were checked with the other cost parameters (``_largevis_cost``).

    Returns
    -------
    cost_params : dict
        As run: ``early_epochs`` resolved (0 for no phase).
    early : (kernel_params, n_early) or None
    """
    early_epochs = _early_epochs_given(cost_params["early_epochs"])
    if early_epochs is None:
        early_epochs = largevis_early_epochs(n_epochs)
    elif early_epochs > n_epochs:
        raise ParameterError(f"early_epochs must be at most n_epochs ({n_epochs}); "
                             f"got {early_epochs}", ("early_epochs", "n_epochs"))
    early_gamma = cost_params["early_gamma"]
    if early_gamma is None:
        early_epochs = 0
    early = None
    if early_epochs:
        early = (_largevis_sgd_params(**{**cost_params, "gamma": early_gamma}), early_epochs)
    return {**cost_params, "early_epochs": early_epochs}, early


#: Annoy trees under optimizer="sgd" (large data).  Every Annoy search is
#: followed by neighbour-of-neighbour refinement (smallvis.inputs.neighbors),
#: which makes a small forest enough: 7 refined trees find more of the
#: exact neighbours than a larger unrefined forest, in less time
#: (benchmarks/bench_knn.py; docs/experiments.md, 2026-11-21).
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
    check_affinity_params=check_umap_graph,
    fuzzy=True,
    p_family=FUZZY,
    constant_term="memberships",
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=fuzzy_auto_learning_rate,
)

#: Affinity builders that calibrate over nearest neighbours at any size.
_KNN_ONLY = (_largevis_affinities, _umap_affinities, _ncvis_affinities)


def knn_only_methods():
    """The names of the methods whose ``P`` is a nearest-neighbour graph at any size."""
    return [name for name, m in METHODS.items() if m.build_affinities in _KNN_ONLY]


# ---------------------------------------------------------------------------
# the testing kit's P (smallvis.testing.make_case)
# ---------------------------------------------------------------------------


def _conditional_case(X, n_neighbors, perplexity, affinities):
    """asne's own P; its kNN variant keeps each row's largest entries, renormalised."""
    C = affinities(X, "asne", perplexity=perplexity)
    if n_neighbors is None:
        return np.asarray(C, dtype=np.float64)
    keep = np.argsort(-C, axis=1)[:, :n_neighbors]
    S = np.zeros_like(C)
    rows = np.arange(X.shape[0])[:, None]
    S[rows, keep] = C[rows, keep]
    return S / S.sum(axis=1, keepdims=True)


def _joint_case(X, n_neighbors, perplexity, affinities):
    """The dense joint P (ssne's); its kNN variant is t-SNE's kNN P."""
    if n_neighbors is None:
        return np.asarray(affinities(X, "ssne", perplexity=perplexity), dtype=np.float64)
    P = affinities(X, "tsne", perplexity=min(perplexity, n_neighbors / 3.0),
                   n_neighbors=n_neighbors, knn_method="exact")
    return np.ascontiguousarray(P.toarray())


def _graph_case(method):
    """The method's own kNN graph over all other points or ``n_neighbors`` of them."""
    def case_affinities(X, n_neighbors, perplexity, affinities):
        n = X.shape[0]
        size = METHODS[method].sized_params["n_neighbors"]
        # umap's n_neighbors counts the point itself: its limit is n, not n - 1
        k = size.limit(n) if n_neighbors is None else n_neighbors + size.limit(n) - (n - 1)
        P = affinities(X, method, n_neighbors=k, knn_method="exact")
        return np.ascontiguousarray(P.toarray())
    return case_affinities


def _eps_smooths(cost_params):
    """The gradient is exact for ``eps = 0`` only."""
    return cost_params.get("eps", 0.0) == 0.0


def _largevis_exact_gradient(cost_params):
    """The exp kernel has no eps; the Cauchy kernels are exact for ``eps = 0``."""
    return cost_params.get("kernel") == "exp" or _eps_smooths(cost_params)

# ---------------------------------------------------------------------------
# the registry
# ---------------------------------------------------------------------------

#: The entries, in the order of ``list_methods``.  A method added later
#: appends its entry below, after its own helpers (CONTRIBUTING.md, "Adding
#: a method").
_ENTRIES = [
    Method(
        name="asne",
        summary="asymmetric SNE: conditional Gaussian P and Q, KL per row",
        kernel="asne",
        build_affinities=_conditional,
        affinity_params={"perplexity": 30.0, "metric": "euclidean"},
        sized_params={"perplexity": PERPLEXITY_SIZE},
        symmetric=False,
        optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
        auto_learning_rate=conditional_auto_learning_rate,
        p_family=CONDITIONAL,
        constant_term="entropy",
        case_affinities=_conditional_case,
        factor_4_convention=False,
    ),
    Method(
        name="ssne",
        summary="symmetric SNE: joint Gaussian P and Q, KL(P||Q)",
        kernel="ssne",
        build_affinities=_joint,
        affinity_params={"perplexity": 30.0, "metric": "euclidean"},
        sized_params={"perplexity": PERPLEXITY_SIZE},
        optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
        auto_learning_rate=gaussian_auto_learning_rate,
        constant_term="entropy",
        case_affinities=_joint_case,
        known_mistakes=(
            Confusion("tsne", "a Student-t output kernel 1 / (1 + d^2) instead of "
                              "symmetric SNE's Gaussian"),
        ),
    ),
    Method(
        name="tsne",
        summary="t-SNE: joint Gaussian P, Student-t (Cauchy) Q, KL(P||Q)",
        kernel="tsne",
        build_affinities=_tsne_affinities,
        check_affinity_params=check_perplexity_knn,
        affinity_params={"perplexity": 30.0, "n_neighbors": None, **_KNN_DEFAULTS},
        sized_params={"perplexity": PERPLEXITY_SIZE, "n_neighbors": OTHERS_SIZE},
        # n_interpolation: the accuracy of gradient="fft" (unused by "exact");
        # dof: the output kernel's heavy tail (1 + d^2/dof)^-dof, 1 = Cauchy
        cost_params={"n_interpolation": FFT_N_INTERPOLATION, "dof": 1.0},
        resolve_cost=_tsne_cost,
        kernel_options=({"dof": 0.5},),
        optimizer_defaults={"learning_rate": "auto", "exaggeration": 12.0, "init": "spca"},
        auto_learning_rate=joint_auto_learning_rate,
        approximations={"fft": Approximation(
            name="fft",
            summary="FFT-accelerated interpolation of the repulsion (FIt-SNE, "
                    "Linderman et al. 2019), O(N) per iteration",
            resolve_cost=_tsne_fft_cost, dimensions=(1, 2),
            auto_min_n=FFT_AUTO_MIN_N, exact_instead=_tsne_fft_exact_instead)},
        constant_term="entropy",
        case_affinities=_joint_case,
        known_mistakes=(
            "gaussian_output_kernel",
            Confusion("ssne", "symmetric SNE: a Gaussian output kernel instead of "
                              "t-SNE's Student-t"),
            "unsquared_repulsion",
            "row_normalised_q",
        ),
    ),
    Method(
        name="largevis",
        summary="LargeVis: kNN perplexity P, Cauchy weights, gamma-weighted repulsion",
        kernel="largevis",
        build_affinities=_largevis_affinities,
        check_affinity_params=check_perplexity_knn,
        affinity_params={"perplexity": 50.0, "n_neighbors": None, **_KNN_DEFAULTS},
        sized_params={"perplexity": PERPLEXITY_SIZE, "n_neighbors": OTHERS_SIZE},
        cost_params={"gamma": "auto", "eps": 0.1, "kernel": "cauchy", "alpha": 1.0,
                     "early_gamma": None, "early_epochs": None},
        auto_params={"gamma": largevis_auto_gamma},
        resolve_cost=_largevis_cost,
        optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
        auto_learning_rate=largevis_auto_learning_rate,
        # the LargeVis reference code (LargeVis.cpp, visualize_thread),
        # except the start: its N(0, 1e-4) needs the reference's far larger
        # sample count to unfold, and with this budget leaves classes in
        # pieces.  The spectral start draws them whole; its graph of each
        # point's 30 strongest entries of P (the init "spectral:30", which
        # result.params["init"] records) costs a fraction of the
        # eigensolver's time and memory on all of P (docs/theory.md §4.3;
        # docs/experiments.md, 2026-11-24 and 2026-11-25)
        sgd=SgdSpec(coefficient="cauchy", scheme="alias", noise="degree",
                    n_epochs=largevis_n_epochs, kernel_params=_largevis_sgd_params,
                    n_negative=LARGEVIS_SGD_NEGATIVES, clip=5.0, learning_rate=1.0,
                    min_learning_rate=1e-4, move_negatives=True, defer_head=True,
                    skip_tail=True, init="spectral:30",
                    param_defaults={"gamma": LARGEVIS_SGD_GAMMA,
                                    "early_gamma": LARGEVIS_SGD_EARLY_GAMMA,
                                    "early_epochs": "auto",
                                    "n_trees": SGD_ANNOY_TREES},
                    early_phase=_largevis_early_phase,
                    sgd_only_params=("early_gamma", "early_epochs")),
        kernel_options=({"kernel": "exp"},),
        pair_units={"largevis": LargeVis, "largevis_exp": LargeVisExp},
        exact_gradient=_largevis_exact_gradient,
        case_affinities=_joint_case,
    ),
    Method(
        name="umap",
        summary="UMAP: fuzzy kNN graph, 1/(1 + a d^2b) weights, fuzzy cross-entropy",
        kernel="umap",
        cost_params={"a": None, "b": None, "spread": 1.0, "min_dist": 0.1, "eps": 0.001},
        resolve_cost=_umap_cost,
        sgd=SgdSpec(kernel_params=_umap_sgd_params, **_UMAP_SGD),
        **_FUZZY_METHOD,
        pair_units={"umap": UMAP},
        fitted_params=("a", "b"),
        fit_inputs=("spread", "min_dist"),
        exact_gradient=_eps_smooths,
        case_affinities=_graph_case("umap"),
        known_mistakes=(
            Confusion("tumap", "t-UMAP's output kernel (a = b = 1): a and b are not used"),
            "repulsion_without_1_minus_v",
        ),
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
        pair_units={"tumap": TUMAP},
        exact_gradient=_eps_smooths,
        case_affinities=_graph_case("tumap"),
        known_mistakes=("repulsion_without_1_minus_v_cauchy",),
    ),
    Method(
        name="ncvis",
        summary="NCVis: noise-contrastive estimation with a learned normalisation Q",
        kernel="ncvis",
        build_affinities=_ncvis_affinities,
        check_affinity_params=check_ncvis_graph,
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
        pair_units={"ncvis": NCVis},
        fitted_params=("nu", "a", "b"),
        fit_inputs=("spread", "min_dist"),
        p_family=KNN_GRAPH,
        case_affinities=_graph_case("ncvis"),
        factor_4_convention=False,
    ),
]

# ---- methods added to the built-in ones: each one block, its helpers and its entry

# Neg-t-SNE (Damrich, Böhm, Hamprecht & Kobak 2023; docs/theory.md §3.10)

#: ``z_bar="auto"``: the per-pair constant ``c = Z m / (N (N - 1))`` of
#: ``min(NEGTSNE_AUTO_NEIGHBOURS / (N - 1), 1)``.
NEGTSNE_AUTO_NEIGHBOURS = 50.0
#: Largest ``negative_sample_rate`` of Neg-t-SNE's stochastic form, where it
#: is a count of negatives drawn per positive sample (as NCVis's ``nu``).
NEGTSNE_SGD_MAX_NEGATIVES = 1000.0


def negtsne_auto_z_bar(n_samples, negative_sample_rate=5.0, **cost_params):
    """``z_bar="auto"``: ``Z = min(50 N, N (N - 1)) / m``, i.e. ``c = min(50 / (N - 1), 1)``.

    The paper's normalisation ``Z`` (the model is ``q = phi / Z``) enters the
    cost through ``c = Z m / (N (N - 1))`` (docs/theory.md §3.10):
    ``c = 1`` (``Z = N (N - 1) / m``) is UMAP-like, smaller ``c`` adds
    repulsion.  ``c = 50 / (N - 1)`` (``Z = 10 N`` at ``m = 5``) gives the
    digits a 10-NN accuracy of 0.98, as umap and tsne; below 51 points it
    would ask for more attraction than UMAP's balance, under which a
    complete graph's pairs collapse, so it stops at ``c = 1``.
    """
    n = max(int(n_samples), 2)
    m = check_number(negative_sample_rate, "negative_sample_rate", low=0, low_open=True)
    return min(NEGTSNE_AUTO_NEIGHBOURS * n, n * (n - 1.0)) / m


def _negtsne_cost(z_bar, negative_sample_rate):
    z_bar = check_number(z_bar, "z_bar", low=0, low_open=True)
    m = check_number(negative_sample_rate, "negative_sample_rate", low=0, low_open=True)
    return "negtsne", (z_bar, m)


def _negtsne_sgd_params(z_bar, negative_sample_rate):
    """The unit's fields, and ``m`` negatives drawn per positive sample.

    The stochastic loop draws a whole number of negatives, and ``c = Z m xi``
    is built from ``m``: both are the same number only when ``m`` is whole,
    so a fractional ``m`` (which the exact cost takes as it is) is refused
    here rather than rounded in the loop and not in ``c``.
    """
    _, (z_bar, m) = _negtsne_cost(z_bar, negative_sample_rate)
    if not (m.is_integer() and 1 <= m <= NEGTSNE_SGD_MAX_NEGATIVES):
        raise ParameterError(
            f"negative_sample_rate of negtsne with optimizer='sgd' is the number of "
            f"negatives drawn per positive sample: a whole number in [1, "
            f"{NEGTSNE_SGD_MAX_NEGATIVES:g}]; got {negative_sample_rate!r} (the exact "
            f"optimizer takes any positive value)", ("negative_sample_rate",))
    return {"z_bar": z_bar, "m": m, "n_negative": m}


_ENTRIES.append(Method(
    name="negtsne",
    summary="Neg-t-SNE: negative sampling with a fixed normalisation z_bar, Cauchy weights",
    kernel="negtsne",
    build_affinities=_ncvis_affinities,
    check_affinity_params=check_ncvis_graph,
    affinity_params={"n_neighbors": 15, **_KNN_DEFAULTS},
    sized_params={"n_neighbors": KNN_GRAPH_SIZE},
    cost_params={"z_bar": "auto", "negative_sample_rate": 5.0},
    auto_params={"z_bar": negtsne_auto_z_bar},
    resolve_cost=_negtsne_cost,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=largevis_auto_learning_rate,
    # every edge once per epoch, m uniform negatives that move (§3.10)
    sgd=SgdSpec(coefficient="negtsne", scheme="every_edge", noise="uniform_others",
                n_epochs=umap_n_epochs, kernel_params=_negtsne_sgd_params,
                n_negative=5, clip=4.0, learning_rate=1.0, move_negatives=True,
                init="spectral", param_defaults={"n_trees": SGD_ANNOY_TREES}),
    pair_units=units_named("negtsne"),
    p_family=KNN_GRAPH,
    case_affinities=_graph_case("negtsne"),
    factor_4_convention=False,
    # z_bar = 50 N / m at iris's N = 150 (the "auto" value) first: the golden case
    examples=({"z_bar": 1500.0}, {"z_bar": 2000.0, "negative_sample_rate": 2.0},
              {"z_bar": 10.0, "negative_sample_rate": 20.0}),
))


# InfoNCE, "InfoNC-t-SNE" (Damrich, Böhm, Hamprecht & Kobak 2023; docs/theory.md §3.11)

#: Largest ``negative_sample_rate`` of InfoNCE: the stochastic step holds a
#: sample's m negatives at once, and the exact cost's quadrature grows with
#: log(m + 1).
INFONCE_MAX_NEGATIVES = 1000
#: With the stochastic optimizer InfoNCE reports the exact cost of the final
#: ``Y`` up to this many points (about 0.6 s on one thread at 1,000 points:
#: the exact cost is O(N^2 T) with T ~ 200 quadrature nodes), a row-sampled
#: estimate above.
INFONCE_EXACT_COST_MAX_N = 1000


def _infonce_negatives(negative_sample_rate):
    """``m``: a whole number in [1, INFONCE_MAX_NEGATIVES], as a float."""
    m = float(check_number(negative_sample_rate, "negative_sample_rate", low=1,
                           high=INFONCE_MAX_NEGATIVES))
    if not m.is_integer():
        raise ParameterError(
            f"negative_sample_rate of infonce is the number of negatives drawn per "
            f"positive sample: a whole number in [1, {INFONCE_MAX_NEGATIVES}]; got "
            f"{negative_sample_rate!r}", ("negative_sample_rate",))
    return m


def _infonce_cost(negative_sample_rate):
    return "infonce", (_infonce_negatives(negative_sample_rate),)


def _infonce_sgd_params(negative_sample_rate):
    m = _infonce_negatives(negative_sample_rate)
    return {"m": m, "n_negative": m}


_ENTRIES.append(Method(
    name="infonce",
    summary="InfoNC-t-SNE: InfoNCE with m negatives per positive sample, Cauchy weights",
    kernel="infonce",
    build_affinities=_ncvis_affinities,
    check_affinity_params=check_ncvis_graph,
    affinity_params={"n_neighbors": 15, **_KNN_DEFAULTS},
    sized_params={"n_neighbors": KNN_GRAPH_SIZE},
    cost_params={"negative_sample_rate": 5.0},
    resolve_cost=_infonce_cost,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=largevis_auto_learning_rate,
    # every edge once per epoch (P is uniform over the edges: p_ij is the
    # edge's probability), m uniform negatives that move, one grouped step
    # per sample (§3.11); the exact gradient is O(N^2 T): "auto" runs the
    # stochastic form at every size
    sgd=SgdSpec(coefficient="infonce", scheme="every_edge", noise="uniform_others",
                n_epochs=umap_n_epochs, kernel_params=_infonce_sgd_params,
                n_negative=5, clip=4.0, learning_rate=1.0, move_negatives=True,
                init="spectral", param_defaults={"n_trees": SGD_ANNOY_TREES},
                auto_min_n=0, exact_cost_max_n=INFONCE_EXACT_COST_MAX_N),
    p_family=KNN_GRAPH,
    case_affinities=_graph_case("infonce"),
    factor_4_convention=False,
    # small m first: the tests enumerate every tuple of negatives
    examples=({"negative_sample_rate": 3.0}, {"negative_sample_rate": 1.0},
              {"negative_sample_rate": 2.0}),
))


#: The registry: every method by name.
METHODS = MappingProxyType({m.name: m for m in _ENTRIES})


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
