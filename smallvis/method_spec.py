"""What a method's registry entry is made of: :class:`Method` and its parts.

A method's folder (``smallvis/methods/<name>/method.py``) builds its entry
``METHOD`` from these pieces; :mod:`smallvis.registry` collects the entries.
The records an entry holds (approximate gradients, kinds of ``P``,
confusions with another method, size limits), the generic checks of method
parameters, the rules for ``learning_rate="auto"`` that several methods
share, and :meth:`Method.kernels`, the one rule that turns a method into
its twin kernels.  Nothing here names a method: what is particular to one
lives in its folder, and the kinds of ``P`` with their builders in
:mod:`smallvis.families`.
"""

import functools
import numbers
import warnings
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Mapping

import numpy as np

from ._validation import (ParameterError, SmallDataWarning, check_integer, check_number,
                          warn_from_caller)
from .engines.sgd import SgdSpec
from .inputs.distances import check_metric
from .methods._common import unit_engine

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
    exact_instead : callable or None
        ``exact_instead(Y, **cost_params) -> (exact, warning)``, asked at
        every evaluation: ``exact`` true evaluates this ``Y`` with the exact
        kernels (where the approximation would miss its promised accuracy
        and the exact gradient is affordable); ``warning`` (a ``Warning``
        instance or None) is issued once per run.  None: always the
        approximation.
    """

    name: str
    summary: str
    resolve_cost: Callable
    dimensions: tuple
    auto_min_n: int
    exact_instead: Callable = None


@dataclass(frozen=True)
class AffinityFamily:
    """The kind of input affinities ``P`` a method builds, as the testing kit checks it.

    Attributes
    ----------
    name : str
        For messages.
    normalised : {"rows", "total", ""}
        Every row of ``P`` sums to 1 (conditional ``p_{j|i}``), the whole of
        ``P`` sums to 1, or neither (fuzzy memberships).
    knn_graph : bool
        Whether ``P`` is a nearest-neighbour graph whatever its parameters,
        so that its non-zero pattern (the neighbour sets) matters.
    conditional : AffinityFamily or None
        The family of the conditional ``p_{j|i}`` that this family
        symmetrises, or None (not symmetrised).  A new point placed over its
        row and column (``Method.placed_with_column``) then takes the mean
        of its two conditionals both ways.
    memberships : bool
        Whether ``P`` is made of the fuzzy graph's memberships (as they
        are, or normalised), so that a new point's row is its memberships.
    distances_to : callable or None
        For a ``P`` of input distances, not affinities (the stress
        methods): ``distances_to(X, X_new, **affinity_params)``, the new
        points' rows, their distances to every training point in the
        data's units, as the fit's ``P``.  None for affinities.
    new_pair_input : callable or None
        For a family whose builder returns a second per-pair input beside
        ``P`` (the input distances inside each point's neighbourhood):
        ``new_pair_input(P, fitted, **affinity_params)``, the new points'
        rows of that input from their rows of ``P`` (CSR, ``M x N``, in the
        fit's units) and the fit's ``N x N`` input.  None: a new point's
        row is the mean of its neighbours' rows weighted by its ``P``.
    units : {"invariant", "equivariant"}
        What a change of the data's units ``X -> c X`` does to ``P`` and to
        the map, the promise the generic tests check for every method of
        the family.  ``"invariant"`` (affinities): ``P`` and the map are
        those of ``X``.  ``"equivariant"`` (input distances, which a stress
        compares with output distances): ``P`` is ``c`` times that of
        ``X``, and so is the map; its reported cost, measured in units of
        the mean input distance (:func:`smallvis.families.distance_unit`),
        is that of ``X``.  Both are invariant to an offset of the data and
        to the order of the features, and follow a permutation of the rows.
    title : str
        The heading of the family's page on the site (the name when empty).
    description : str
        What ``P`` is, for that page: a paragraph of reStructuredText.
    """

    name: str
    normalised: str
    knn_graph: bool
    conditional: str = None
    memberships: bool = False
    distances_to: Callable = None
    units: str = "invariant"
    new_pair_input: Callable = None

    @property
    def distances(self):
        """Whether ``P`` holds input distances (:attr:`distances_to` is given)."""
        return self.distances_to is not None
    title: str = ""
    description: str = ""


@dataclass(frozen=True)
class Alias:
    """Another name of a registered method: the same cost at parameters mapped onto its own.

    A method of the literature that is another's at a change of parameters
    (Yang et al.'s heavy-tailed SSNE is t-SNE's heavy-tailed kernel) is an
    alias, not a second folder: the two could not drift apart.  ``embed``,
    ``affinities``, ``cost_and_gradient`` and the CLI accept its name and
    its own parameters (:func:`smallvis.registry.resolve_method`); the
    result is the target method's, whose page shows the alias's.

    Attributes
    ----------
    name : str
        The alias, unique among methods and aliases.
    summary : str
        One line, for the CLI help and the site's index.
    params : mapping
        The alias's own parameters and their defaults (Yang et al.'s
        ``alpha``); empty when the alias is the target's cost as it is.
    translate : callable or None
        ``translate(**params) -> {target parameter: value}``: checks the
        alias's parameters (a clear ``ValueError`` naming them) and maps
        them onto the target's.  The target parameters it writes cannot
        be given with the alias.  None: no parameters.
    page : str
        The alias's section of the target's page (reST, with its formulas,
        why it is the target and its references).
    """

    name: str
    summary: str
    params: Mapping = field(default_factory=dict)
    translate: Callable = None
    page: str = ""

    def sets(self):
        """The target's parameters the alias sets (those of ``translate`` at the defaults)."""
        return tuple(self.translate(**self.params)) if self.translate is not None else ()

    def target_params(self, method, params, defaults=True):
        """``params`` in the target ``method``'s terms.

        The alias's own parameters are checked (against the type of their
        defaults, then by ``translate``) and replaced by the target
        parameters they map to; the rest pass as they are.  With
        ``defaults=False`` an alias parameter not given maps to nothing
        (``affinities``, which takes no cost parameter).
        """
        clash = sorted(set(params) & set(self.sets()))
        if clash:
            own = ", ".join(self.params)
            raise ParameterError(
                f"method {self.name!r} is {method!r} with {', '.join(clash)} set from its "
                f"own parameters ({own}); pass those, or use method={method!r} with "
                f"{', '.join(clash)}", tuple(clash))
        rest = {k: v for k, v in params.items() if k not in self.params}
        if self.translate is None or not (defaults or set(params) & set(self.params)):
            return rest
        own = {k: check_param_value(k, params.get(k, v), v) for k, v in self.params.items()}
        return {**rest, **self.translate(**own)}


@dataclass(frozen=True)
class Confusion:
    """A user's function that computes another registered method's cost instead.

    Attributes
    ----------
    method : str
        The registered method the function matches.
    description : str
        What differs, for the testing kit's report.
    """

    method: str
    description: str


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


def is_real_number(value):
    """Whether ``value`` is a real number (a bool is not)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_param_value(name, value, default):
    """Generic check of a method parameter against the type of its default.

    A parameter whose default is a real number must be a finite real number
    (an integer if the default is one); the method-specific range checks
    (e.g. :func:`check_perplexity`) come on top.  Other defaults are not
    checked here, but for ``metric``, which every method checks alike
    (:func:`smallvis.inputs.distances.check_metric`).
    """
    if name == "metric":
        return check_metric(value)
    if isinstance(default, numbers.Real) and not isinstance(default, bool):
        if value is default:
            return value
        if isinstance(default, numbers.Integral):
            return check_integer(value, name)
        return check_number(value, name)
    return value


#: The default of a cost parameter of :attr:`Method.input_params`: its
#: per-point values come from the calibration of the input affinities.
FROM_INPUT = "input"

def check_pair_input(value, name, *, positive):
    """A second per-pair input: :data:`FROM_INPUT`, a finite number or an N x N matrix of them.

    Every value is at least 0; with ``positive`` a number must be above 0
    and a matrix must have a positive sum.  The matrix's shape (one value
    per pair) is checked where the points are known
    (:func:`smallvis.methods._common.second_input_triplet`).

    Returns
    -------
    str, float or ndarray
        :data:`FROM_INPUT`, the number as a ``float``, or the matrix.
    """
    number = "a positive number" if positive else "a non-negative number"
    if isinstance(value, str):
        if value != FROM_INPUT:
            raise ParameterError(f"{name} must be {FROM_INPUT!r}, {number} or a matrix of one "
                                 f"per pair; got {value!r}", (name,))
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (numbers.Real, np.ndarray, list, tuple)):
        raise TypeError(f"{name} must be {FROM_INPUT!r}, {number} or a matrix of one per "
                        f"pair; got {value!r}")
    try:
        values = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be {number} or a matrix of one per pair; "
                        f"got {value!r}") from None
    if (values.ndim not in (0, 2) or not np.all(np.isfinite(values) & (values >= 0.0))
            or (positive and not values.sum() > 0.0)):
        matrix = "non-negative ones with a positive sum" if positive else "them"
        raise ParameterError(f"{name} must be a finite {number[2:]}, or an N x N matrix of "
                             f"{matrix} (one per pair)", (name,))
    return float(values) if values.ndim == 0 else values


#: Its value where the input carries none (a ``P`` given as it is): the
#: same on every point, the plain method's (a bandwidth or a degree of 1).
WITHOUT_INPUT = 1.0


#: Largest |value| of a learned log-scale (NCVis's Q): exp(-Q) must stay a
#: normal positive float64 (exp(709.8) overflows), with room for the
#: optimizer to move it.
LEARNED_LIMIT = 700.0


def check_learned(name, value):
    """A learned log-scale such as NCVis's ``Q``: a real number in [-700, 700]."""
    return check_number(value, name, low=-LEARNED_LIMIT, high=LEARNED_LIMIT)


def epoch_every(n_iter):
    """R smallvis's default ``epoch``: every ``max(1, round(n_iter / 10))`` iterations.

    R rounds half to even (``base::round``), as Python's :func:`round` does.
    """
    return max(1, round(n_iter / 10))


@dataclass(frozen=True)
class LearnedRule:
    """A method's own rule that sets its learned scalars during an exact run.

    Some methods change a scalar of their cost (a normaliser, a tail) not by
    gradient descent but by a rule of their own, once every few
    iterations: R smallvis's "epoch" functions.  The scalars are the
    entry's :attr:`Method.learned` (kernel arguments, reported in
    ``EmbedResult.learned``, stored in model files and used by
    ``transform`` at their fitted values, as NCVis's ``Q``), but the exact
    optimizer does not descend them: their derivative is taken as 0, and
    after the step (and the cost evaluation) of every ``every(n_iter)``-th
    iteration and of the last one, the rule replaces them.  A run that
    ``tol`` stops does not apply the rule at its last iteration (as R).

    Attributes
    ----------
    update : callable
        ``update(objective, Y, learned) -> values``: the new values of the
        learned scalars (a sequence as long as ``learned``), from the
        current layout ``Y`` and values ``learned``.  ``objective`` gives
        the method's twin kernels on the true ``P``
        (:class:`smallvis.plans.Objective`: ``cost(Y, learned)``,
        ``gradient(Y, learned, out)``, which returns the derivative in the
        learned scalars, and ``triplet``), so that both backends follow the
        same rule through their own kernels.
    every : callable
        ``every(n_iter) -> int``: iterations between two applications
        (default R smallvis's ``epoch``, :func:`epoch_every`).
    summary : str
        One line: what the rule does, for the method's page and ``verbose``.
    check : callable or None
        ``check(name, value) -> value``: the check of a starting value the
        user gives (a ``ValueError`` naming the range); None:
        :func:`check_learned`, a log-scale.
    """

    update: Callable
    every: Callable = epoch_every
    summary: str = ""
    check: Callable = None


def check_perplexity(perplexity, n_samples):
    """Perplexity must lie in ``[1, n_samples - 1]`` (``n_samples=None``: at least 1).

    A range check only: :meth:`Method.fit_sizes` has
    already refused a value above ``n_samples - 1`` with its own message
    (:data:`smallvis.families.PERPLEXITY_SIZE`).
    """
    high = None if n_samples is None else n_samples - 1
    return check_number(perplexity, "perplexity", low=1, high=high)

#: Annoy trees under optimizer="sgd" (large data).  Every Annoy search is
#: followed by neighbour-of-neighbour refinement (smallvis.inputs.neighbors),
#: which makes a small forest enough: 7 refined trees find more of the
#: exact neighbours than a larger unrefined forest, in less time
#: (benchmarks/bench_knn.py; docs/experiments.md, 2026-11-21).
SGD_ANNOY_TREES = 7


def eps_smooths(cost_params):
    """The gradient is the exact gradient of the cost for ``eps = 0`` only."""
    return cost_params.get("eps", 0.0) == 0.0


# ---------------------------------------------------------------------------
# learning-rate rules that several methods share
# ---------------------------------------------------------------------------


def joint_auto_learning_rate(n_samples, exaggeration):
    """``max(N / exaggeration / 4, 50)``: Belkina et al. (2019), as scikit-learn.

    For a ``P`` that sums to 1 and the true gradient (factor 4 included),
    with t-SNE's early exaggeration (12), where the floor binds up to 2,400
    points.  The methods without exaggeration take
    :func:`unfloored_auto_learning_rate`.
    """
    return max(n_samples / exaggeration / 4.0, 50.0)


def unfloored_auto_learning_rate(n_samples, exaggeration):
    """``N / exaggeration / 4``: the joint rule without its floor of 50.

    For the methods without exaggeration, whose ``P`` sums to 1: there the
    floor binds below 200 points only, and made runs on a few points
    diverge (pstsne, rklsne, ntumap and skdtsne on 6 to 40 random points:
    10 to 18 runs of 30 needed the divergence guard; none without the
    floor, with the same maps of iris; docs/experiments.md, 2026-12-06).
    Also for costs that repel every pair by a weight of their own
    (``gamma``), not through t-SNE's normalisation, whose small maps the
    floor threw apart (docs/experiments.md, 2026-12-02).  From 200 points
    on the two rules agree when there is no exaggeration.
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

    The joint rule's floor of 50 is kept only up to ``N / 4``, where it
    would put that step above 1 on a few points (docs/experiments.md,
    2026-12-02); from 200 points on the floor is below ``N / 4``.
    """
    return min(joint_auto_learning_rate(n_samples, exaggeration), n_samples / 4.0) / 4.0


def conditional_auto_learning_rate(n_samples, exaggeration):
    """The Gaussian rule divided by N: a conditional ``P`` sums to N, not 1 (asne)."""
    return gaussian_auto_learning_rate(n_samples, exaggeration) / n_samples


#: Exact UMAP-type costs repel every pair, so under delta-bar-delta gains a
#: step of order 1 (R smallvis's usual choice) lets the layout blow up; 0.03
#: is small enough to be safe and still reaches a low final cost
#: (docs/experiments.md, 2026-11-23).
FUZZY_LEARNING_RATE = 0.03


def fuzzy_auto_learning_rate(n_samples, exaggeration):
    """A fixed small step for the un-normalised costs over fuzzy memberships."""
    return FUZZY_LEARNING_RATE


#: Kernel families: ``family -> (cost suffix, gradient suffix)``.  The twin
#: kernels of a family are ``<prefix>_<suffix>``, where the prefix comes
#: from :meth:`Method.kernel_name`.  ``"embed"``: the cost and gradient of an
#: embedding (``cost(indptr, indices, data, Y, *learned, *args, n_threads)``);
#: ``"transform"``: those of new points placed against a fixed map
#: (``cost(indptr, indices, data, Y, Y_train, *learned, *args, n_threads)``).
KERNEL_FAMILIES = MappingProxyType({
    "embed": ("cost", "gradient"),
    "transform": ("transform_cost", "transform_gradient"),
})

#: The kernel family of the methods whose new points are placed over their
#: row and their column (:attr:`Method.placed_with_column`), besides
#: :data:`KERNEL_FAMILIES`: the transform kernels with the new points'
#: column of ``P`` and the fixed rows' sums after ``Y_train``.
COLUMN_FAMILIES = MappingProxyType({
    "column_transform": ("column_transform_cost", "column_transform_gradient"),
})


class _UnitKernel:
    """A generic unit kernel called as a named kernel would be.

    ``entry`` is ``pair_cost``, ``pair_gradient``, ``pair_transform_cost``
    or ``pair_transform_gradient`` of a kernel module (or their
    ``normalised_`` kin, for a unit with normalised ``q``; :meth:`engine`); the call
    ``kernel(indptr, indices, data, Y[, Y_train], *unit_args[, grad], n_threads)``
    becomes ``entry(unit(*unit_args), indptr, indices, data, Y[, Y_train][, grad],
    n_threads)``.  It belongs to the entry's module (``__module__``), as a
    named kernel does.
    """

    @staticmethod
    def engine(unit):
        """The prefix of a unit's generic entry points (:func:`~smallvis.methods._common.unit_engine`).

        ``"second_input"`` for a unit with a second per-pair input,
        ``"normalised"`` for one whose weights are normalised to ``q`` (over
        ``"rows"`` or ``"total"``), ``"pair"`` for any other.
        """
        return unit_engine(unit)

    def __init__(self, entry, unit, family, n_trailing):
        self.entry, self.unit = entry, unit
        self.n_leading = {"transform": 5, "column_transform": 7}.get(family, 4)
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
    approximation's :attr:`Approximation.exact_instead`
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
    r"""One neighbour-embedding method.

    Attributes
    ----------
    name : str
        Registry key: the name of the method's folder.
    summary : str
        One line for ``list_methods`` and the CLI help.
    prefix : str
        Prefix of the names of the twin kernels, ``<prefix>_cost`` and
        ``<prefix>_gradient``.
    build_affinities : callable
        ``build_affinities(X, kernels, random_state, n_threads, **affinity_params) -> P``.
    affinity_params : mapping
        Affinity parameters and their defaults (e.g. ``perplexity``).
    cost_params : mapping
        Cost parameters and their defaults.
    resolve_cost : callable or None
        ``resolve_cost(cost_params) -> (kernel prefix, args)``: validates the
        cost parameters and turns them into the kernels' positional
        arguments.  Default: ``prefix`` and the values in declared order.
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
        returns the derivative in them (one float).  With
        :attr:`learned_rule` they are set by that rule instead.
    learned_rule : LearnedRule or None
        The rule that sets the :attr:`learned` scalars during an exact run,
        in place of gradient descent (:class:`LearnedRule`); None: they are
        descended with ``Y``.
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
        terms: the NumPy unit (``smallvis/methods/<name>/unit.py``) whose cost
        terms :class:`smallvis.engines.sampled_cost.SampledCost` samples,
        and that the generic kernels (``pair_cost``, ``pair_gradient`` and
        their transform pair; ``normalised_cost`` and its kin for a unit
        with normalised ``q``) run for a prefix without named kernels.
        The unit is built from the kernel's arguments (the learned values
        first).  Empty: no estimate.  A method with a second per-pair
        input lists here, under their own prefixes (which its kernel name
        never selects), the pair units its parts run on the pair engine,
        so that the registry names every pair unit of the package.
    normalised_units : mapping
        ``{kernel prefix: unit}`` for the costs whose ``q`` is normalised
        per row or over all pairs (the unit has a ``normalisation``): the
        NumPy unit that the normalised engine (``normalised_cost``,
        ``normalised_gradient`` and their transform pair) runs for a prefix
        without named kernels, built from the kernel's arguments.
    second_input_units : mapping
        ``{kernel prefix: unit}`` for the costs that read a second per-pair
        input beside ``P`` (elastic embedding's repulsion weights, global
        t-SNE's all-pairs affinities): a unit whose class names that input's
        field in ``second_input`` and whose ``parts()`` gives ``(first,
        second, weight)``, a pair or normalised unit on ``P`` and one on
        the second input, the cost being ``first + weight * second``.  The
        input is one of :attr:`input_params` (the builder returns it beside
        ``P``); ``second_input_cost``, ``second_input_gradient`` and their
        transform pair run it (:func:`smallvis.methods._common.second_input_triplet`).
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
    input_params : tuple of str
        Cost parameters whose default :data:`FROM_INPUT` (``"input"``) the
        fit takes from its input affinities: a value per point that the
        calibration found (basne's ``bandwidth``, each row's precision
        :math:`\beta_i`).  The method's ``build_affinities`` then returns
        ``(P, {name: array})`` (:meth:`split_built`); a new point takes the
        value of its neighbourhood (:meth:`smallvis.transform.TrainingMap.new_inputs`),
        and a ``P`` given without its calibration :data:`WITHOUT_INPUT` on
        every point (:meth:`with_inputs`).  A value given by the user (a
        number for every point, or an array of one per point) is kept.
    pair_inputs : tuple of str
        Those of :attr:`input_params` that weigh each pair by the product
        of its two points' values, which the engines can take from the
        ``P`` they are given (the degrees of ``P``, the importances of
        :func:`smallvis.methods._common.pair_importances`): a ``P`` given
        without its calibration keeps :data:`FROM_INPUT`, which the engine
        reads as that ``P``'s own values, and a new point is weighed
        against the training points' values (its own cancels from its
        row's normalisation), which :meth:`smallvis.transform.TrainingMap.new_inputs`
        therefore leaves as the fit gave them.
    aliases : tuple of Alias
        Other names of this method at mapped parameters (:class:`Alias`),
        which :func:`smallvis.registry.resolve_method` resolves.
    normalised_new_rows : bool
        Whether a new point's row of ``P`` is normalised to sum 1, the mass
        of its own row of ``q`` (a cost whose minimiser depends on the scale
        of ``P``, as the cross-entropy's ``(1 - p) log(1 - q)`` terms do);
        otherwise it is scaled as the fit's rows are (``row_scale``), which
        a scale-free cost (the KL divergence) only feels in its step.
    placed_with_column : bool
        Whether a new point is placed over its row and its column (a
        normalised unit, over each row or over all pairs, with or without
        a bandwidth per row, without an importance per point): the cost of
        its own row plus the terms it adds to the fixed points' rows,
        their normalisers and offsets held at the training map's (over
        all pairs, the fit's single normaliser holds its row too)
        (:func:`smallvis.backends.reference.normalised_column_transform_cost`,
        kernel family ``"column_transform"``).  The unit's offset must be
        the whole sum of ``q df/dq`` over its set (no constant of
        ``df/dq`` left out because it cancels from the fit's force).  For
        a cost whose row alone does not hold a
        point where the fit put it (NeRV's reverse divergence, a ``q``
        over all pairs with a bandwidth per row); otherwise a new point is
        placed over its own row.
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
    prefix: str
    build_affinities: Callable
    affinity_params: Mapping = field(default_factory=dict)
    cost_params: Mapping = field(default_factory=dict)
    resolve_cost: Callable = None
    symmetric: bool = True
    fuzzy: bool = False
    optimizer_defaults: Mapping = field(default_factory=dict)
    auto_learning_rate: Callable = None
    learned: tuple = ()
    learned_rule: LearnedRule = None
    sgd: SgdSpec = None
    auto_params: Mapping = field(default_factory=dict)
    approximations: Mapping = field(default_factory=dict)
    sized_params: Mapping = field(default_factory=dict)
    check_affinity_params: Callable = None
    kernel_options: tuple = ()
    pair_units: Mapping = field(default_factory=dict)
    normalised_units: Mapping = field(default_factory=dict)
    second_input_units: Mapping = field(default_factory=dict)
    fitted_params: tuple = ()
    fit_inputs: tuple = ()
    exact_gradient: Callable = None
    p_family: AffinityFamily = None
    case_affinities: Callable = None
    known_mistakes: tuple = ()
    constant_term: str = ""
    factor_4_convention: bool = True
    input_params: tuple = ()
    pair_inputs: tuple = ()
    normalised_new_rows: bool = False
    placed_with_column: bool = False
    examples: tuple = ()
    aliases: tuple = ()

    def split_built(self, built):
        """``(P, inputs)`` from what :attr:`build_affinities` returned.

        ``inputs`` maps each of :attr:`input_params` to its per-point array
        (empty for a method without any, whose builder returns ``P`` alone).
        """
        if not self.input_params:
            return built, {}
        P, inputs = built
        return P, dict(inputs)

    def with_inputs(self, cost_params, inputs):
        """``cost_params`` with each :data:`FROM_INPUT` value replaced from ``inputs``.

        A parameter that ``inputs`` lacks (a ``P`` given as it is, to
        ``cost_and_gradient`` or ``embed(affinities=...)``, carries no
        calibration) is :data:`WITHOUT_INPUT` on every point, which makes
        the method its plain counterpart (basne's bandwidth 1: asne), but
        one of :attr:`pair_inputs`, which stays :data:`FROM_INPUT`: the
        engines take it from that ``P``.
        """
        cost_params = dict(cost_params)
        for name in self.input_params:
            value = cost_params.get(name)
            if name in self.pair_inputs and name not in inputs:
                continue
            if isinstance(value, str) and value == FROM_INPUT:
                cost_params[name] = inputs.get(name, WITHOUT_INPUT)
        return cost_params

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
        resolved (:meth:`resolve_auto`); an :data:`FROM_INPUT` value left
        here has no calibration to come from (:meth:`with_inputs`).
        """
        fixed = self.with_inputs({k: v for k, v in cost_params.items()
                                  if k not in self.learned}, {})
        if gradient != "exact":
            return self.approximations[gradient].resolve_cost(**fixed)
        if self.resolve_cost is None:
            return self.prefix, tuple(fixed.values())
        return self.resolve_cost(**fixed)

    def kernels(self, module, cost_params, gradient="exact", family="embed", guarded=True):
        """The ``(cost, gradient, args)`` kernels of ``family`` in a kernel module.

        ``module`` is :mod:`smallvis.backends.reference` or :mod:`smallvis.backends._kernels`;
        ``family`` a key of :data:`KERNEL_FAMILIES`.  The embedding kernels
        are called as ``cost(indptr, indices, data, Y, *learned, *args,
        n_threads)`` and ``gradient(indptr, indices, data, Y, *learned,
        *args, grad, n_threads)``, where ``learned`` are the values of
        :attr:`learned` (usually none); the transform kernels take
        ``Y_train`` after ``Y``.  Arguments as :meth:`kernel_name`.  An
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
        cost_suffix, gradient_suffix = {**KERNEL_FAMILIES, **COLUMN_FAMILIES}[family]
        units = {**self.pair_units, **self.normalised_units, **self.second_input_units}
        if not hasattr(module, f"{prefix}_{cost_suffix}") and prefix in units:
            # no named kernels: the generic entry points of the unit's engine
            unit = units[prefix]
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

    def check_learned_value(self, name, value):
        """A learned scalar's value checked: by its rule's ``check``, else :func:`check_learned`."""
        rule = self.learned_rule
        return (rule.check if rule is not None and rule.check is not None
                else check_learned)(name, value)

    def split_params(self, params, n_samples, defaults=None):
        """Split user keywords into (affinity, cost) dicts with defaults filled.

        ``defaults`` replaces some of the method's defaults (the stochastic
        optimizer's ``param_defaults``); like the method's own, they are
        lowered on data too small for them, where a user's value is refused.
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
        defaults = dict(defaults or {})
        affinity = {k: check_param_value(k, params.get(k, defaults.get(k, v)), v)
                    for k, v in self.affinity_params.items()}
        cost = {k: check_param_value(k, params.get(k, defaults.get(k, v)), v)
                for k, v in self.cost_params.items()}
        if n_samples is not None:
            cost = self.resolve_auto(cost, n_samples)
            affinity = self.fit_sizes(affinity, given=set(params), n_samples=n_samples,
                                      defaults=defaults)
        if "perplexity" in affinity:
            affinity["perplexity"] = check_perplexity(affinity["perplexity"], n_samples)
        for name in self.learned:
            if (n_samples is None and name in self.auto_params
                    and isinstance(cost[name], str) and cost[name] == "auto"):
                continue  # a start that depends on N is checked once resolved
            cost[name] = self.check_learned_value(name, cost[name])
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

    def fit_sizes(self, affinity, *, given, n_samples, defaults=None):
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
            own = {**self.affinity_params, **(defaults or {})}
            changes = ", ".join(f"{name} lowered from {own[name]:g} to "
                                f"{affinity[name]:g}" for name in lowered)
            options = " or ".join(f"{name}=" for name in lowered)
            warn_from_caller(SmallDataWarning(
                f"{self.name}: {changes} for {n_samples} samples (the default does not "
                f"fit so few); pass {options} to choose another value", lowered))
        return affinity
