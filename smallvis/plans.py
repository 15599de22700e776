"""Run plans: what each optimizer needs, built from the method and the user's keywords.

:func:`smallvis.embed` checks its input and builds ``P``, and the plan takes
it from there: the initial ``Y`` (``start``, of the init the plan
resolved), the optimisation (``run``) and the check of the final layout
(:func:`warn_if_points_merged`).  There is one plan per optimizer:

* :class:`ExactPlan`, the full-gradient delta-bar-delta optimizer
  (:mod:`smallvis.engines.optim`): its :class:`~smallvis.engines.optim.OptimizerSettings`,
  with defaults from the method's ``optimizer_defaults`` and
  ``auto_learning_rate`` in the registry;
* :class:`SgdPlan`, the edge- and negative-sampling optimizer
  (:mod:`smallvis.engines.sgd`): the method's :class:`~smallvis.engines.sgd.SgdSpec`, the
  number of epochs and the initial learning rate.

Each plan validates only the keywords it uses (the other optimizer's
keywords are ignored) and reports the settings that ran in
:attr:`RunOutcome.settings`.  Both evaluate the method's cost through one
:class:`Objective`: the exact cost and gradient, or, for the exact
optimizer with ``gradient=`` naming one of the method's approximations
(t-SNE's ``"fft"``), the approximate twin kernels, whose costs are labelled
``cost_kind="approximate"``.
"""

import functools
from dataclasses import dataclass, field, replace

import numpy as np
import scipy.sparse as sp

from . import _progress
from . import _threads
from .engines import sgd as _sgd
from .inputs.affinities import kernel_triplet
from ._validation import ParameterError, check_iterations, check_number, warn_from_caller
from .registry import METHODS, choose_gradient
from .output_curve import output_curve
from .engines.optim import OptimizerSettings, optimize_exact
from .engines.sampled_cost import RowSampledCost, SampledCost
from .engines.sampled_cost import supports as supports_sampled_cost
from .engines.init import check_init, count_merged_rows, describe_init, initialize, sized_init

#: The exact optimizer's iterations when ``n_iter`` is not given.
EXACT_N_ITER = 1000


@dataclass
class Objective:
    """The method's cost and gradient on one ``P``: exact, or approximate.

    Attributes
    ----------
    P : ndarray or scipy.sparse.csr_matrix
        The validated affinities.
    triplet : tuple of ndarray
        ``P`` as the kernels read it (:func:`smallvis.inputs.affinities.kernel_triplet`),
        made on first use: the stochastic optimizer at scale never needs it,
        and its int64 indices cost 8 bytes per edge.
    cost_fn, gradient_fn : callable
        The twin kernels ``<prefix>_cost`` and ``<prefix>_gradient``.
    args : tuple
        Their method arguments (after ``Y`` and the learned scalars).
    learned : ndarray of shape (n_learned,)
        Current values of the learned scalars (NCVis's ``Q``), updated by
        the optimizers.
    n_threads : int
        The requested threads (the stochastic optimizer's, before its own
        policy, :func:`smallvis._threads.sgd_threads`).
    kernel_threads : int
        Threads of the exact cost and gradient calls: ``n_threads``, or 1
        below the thread policy's amount of work
        (:func:`smallvis._threads.exact_threads`).
    cost_kind : {"exact", "approximate"}
        What :meth:`cost` returns: the exact cost, or that of an approximate
        gradient's kernels (O(N) instead of O(N^2)).
    """

    P: object
    cost_fn: object
    gradient_fn: object
    args: tuple
    learned: np.ndarray
    n_threads: int
    kernel_threads: int
    cost_kind: str = "exact"

    @classmethod
    def build(cls, method, kernels, P, cost_params, n_threads, gradient="exact"):
        """The objective of ``method`` for validated affinities ``P``.

        ``gradient``: ``"exact"`` or the name of one of the method's
        approximations (as resolved by :func:`smallvis.registry.choose_gradient`).
        """
        cost_fn, gradient_fn, args = method.cost_kernels(kernels, cost_params, gradient)
        learned = np.array([cost_params[k] for k in method.learned], dtype=np.float64)
        return cls(P, cost_fn, gradient_fn, args, learned, n_threads,
                   _threads.exact_threads(n_threads, P.shape[0]),
                   "exact" if gradient == "exact" else "approximate")

    @functools.cached_property
    def triplet(self):
        return kernel_triplet(self.P)

    def cost(self, Y, learned):
        """Cost at ``Y`` and ``learned`` with the true ``P``."""
        return float(self.cost_fn(*self.triplet, Y, *learned, *self.args, self.kernel_threads))

    def gradient(self, Y, learned, out, data=None):
        """Gradient in ``Y`` into ``out``; ``data`` replaces ``P``'s values."""
        indptr, indices, values = self.triplet
        return self.gradient_fn(indptr, indices, values if data is None else data, Y,
                                *learned, *self.args, out, self.kernel_threads)


@dataclass
class RunOutcome:
    """What a plan's run produced (the optimizer-specific part of the result)."""

    n_run: int
    final_cost: float
    costs: list
    cost_iterations: list
    stopped_early: bool
    settings: dict = field(default_factory=dict)
    recoveries: list = field(default_factory=list)
    #: "exact"; "estimate" for the sampled cost of a large stochastic run;
    #: "approximate" for the cost of an approximate gradient (t-SNE "fft")
    cost_kind: str = "exact"


def method_keywords(method, perplexity, method_params, defaults=None):
    """The user's method keywords, with ``perplexity`` and optimizer defaults merged."""
    params = {**(defaults or {}), **method_params}
    if perplexity is not None:
        if "perplexity" not in method.affinity_params:
            valid = ", ".join(sorted({*method.affinity_params, *method.cost_params})) or "none"
            raise ValueError(f"method {method.name!r} does not take a perplexity; valid method "
                             f"parameters: {valid}")
        params["perplexity"] = perplexity
    return params


class _ScaledValues:
    """``values * factor``, with one scaled copy kept for the factor last asked for.

    The exact optimizer asks for the same factor for many iterations in a
    row (early exaggeration, then the true ``P``, then late exaggeration),
    so at most one copy of ``P``'s values exists besides ``P`` itself, and
    it is recomputed only when the factor changes.
    """

    def __init__(self, values):
        self.values = values
        self.factor, self.scaled = None, None

    def __call__(self, factor):
        if factor == 1.0:
            return self.values
        if factor != self.factor:
            self.scaled = self.values * factor
            self.factor = factor
        return self.scaled


class _Start:
    """What both plans share: the initial layout of the init they resolved."""

    def start(self, X, P, n_components, rng, seed, kernels=None, n_threads=1):
        """The initial ``Y`` of :attr:`init` (:func:`smallvis.engines.init.initialize`).

        ``X`` is the data as the stages before ran on them (an ``(n, 0)``
        array without data), ``P`` the checked affinities (the graph inits
        lay them out), ``seed`` seeds the coordinates that stand for
        sparse ``X``, and the graph inits' eigensolver multiplies with
        ``kernels``' product on ``n_threads`` threads (the same layout on
        any number).
        """
        described = describe_init(self.init) if isinstance(self.init, str) else "user array"
        with _progress.stage("init", described):
            return initialize(self.init, X, n_components, rng, P=P, seed=seed,
                              kernels=kernels, n_threads=n_threads)


class _LearnedRuleStep:
    """A method's :class:`~smallvis.method_spec.LearnedRule` as the exact optimizer calls it.

    ``step(Y, learned)`` writes the rule's new values into ``learned``;
    ``every`` is the rule's interval for this run's ``n_iter``.  False
    (no rule) for a method without one, or whose learned scalars are
    descended.
    """

    def __init__(self, method, objective, n_iter):
        self.rule = None if method is None else method.learned_rule
        self.objective = objective
        self.every = (check_iterations(self.rule.every(n_iter), "the rule's interval", low=1)
                      if self.rule is not None and n_iter else 1)

    def __bool__(self):
        return self.rule is not None and self.objective.learned.size > 0

    def __call__(self, Y, learned):
        values = np.asarray(self.rule.update(self.objective, Y, learned.copy()),
                            dtype=np.float64)
        learned[...] = values


@dataclass(frozen=True)
class ExactPlan(_Start):
    """The exact optimizer's run: settings, initialisation and method parameters."""

    settings: OptimizerSettings
    init: object
    affinity_params: dict
    cost_params: dict
    #: "exact" or the name of the method's approximation that runs
    gradient: str = "exact"
    #: the learning rate came from "auto" (so late exaggeration may lower it)
    auto_learning_rate: bool = False
    name = "exact"

    @classmethod
    def build(cls, method, n_samples, keywords, *, init=None, learning_rate=None,
              n_iter=EXACT_N_ITER, exaggeration=None, exaggeration_iter=250,
              late_exaggeration=1.0, late_exaggeration_iter=None, momentum=0.5,
              final_momentum=0.8, momentum_switch_iter=250, min_gain=0.01, tol=1e-7,
              cost_every=50, gradient="exact"):
        """Validate the exact optimizer's keywords; defaults from the registry.

        ``gradient`` is already resolved (:func:`smallvis.registry.choose_gradient`).
        """
        affinity_params, cost_params = method.split_params(keywords, n_samples)
        defaults = method.optimizer_defaults
        if exaggeration is None:
            exaggeration = defaults.get("exaggeration", 1.0)
        exaggeration = check_number(exaggeration, "exaggeration", low=0, low_open=True)
        if learning_rate is None:
            learning_rate = defaults.get("learning_rate", "auto")
        auto = isinstance(learning_rate, str)
        if auto:
            if learning_rate != "auto":
                raise ValueError("learning_rate must be a positive number or 'auto'; "
                                 f"got {learning_rate!r}")
            learning_rate = method.auto_learning_rate(n_samples, exaggeration)
        late_exaggeration, late_exaggeration_iter = check_late_exaggeration(
            late_exaggeration, late_exaggeration_iter, n_iter)
        settings = OptimizerSettings(
            learning_rate=check_number(learning_rate, "learning_rate", low=0, low_open=True),
            n_iter=check_iterations(n_iter, "n_iter", low=0),
            exaggeration=exaggeration,
            exaggeration_iter=check_iterations(exaggeration_iter, "exaggeration_iter", low=0),
            late_exaggeration=late_exaggeration,
            late_exaggeration_iter=late_exaggeration_iter,
            momentum=check_number(momentum, "momentum", low=0, high=1),
            final_momentum=check_number(final_momentum, "final_momentum", low=0, high=1),
            momentum_switch_iter=check_iterations(momentum_switch_iter,
                                                  "momentum_switch_iter", low=0),
            min_gain=check_number(min_gain, "min_gain", low=0),
            tol=check_number(tol, "tol", low=0),
            cost_every=check_iterations(cost_every, "cost_every", low=1),
        )
        init = sized_init(defaults.get("init", "spca"), n_samples) if init is None else init
        return cls(settings, init, affinity_params, cost_params, gradient, auto)

    @property
    def learning_rate(self):
        return self.settings.learning_rate

    def describe(self):
        return "exact optimizer" + ("" if self.gradient == "exact"
                                    else f", {self.gradient} gradient")

    def run(self, Y, objective, *, P, kernels, rng, callback=None, verbose=False,
            method=None, consume_P=False):
        """Delta-bar-delta on ``Y`` (in place) and the learned scalars.

        ``consume_P`` is accepted for the plans' common call and unused:
        every iteration reads ``P``.
        """
        s = self.settings
        if verbose:  # a line at least every few seconds between cost evaluations
            callback = _progress.Heartbeat(s.n_iter, callback)
        scaled_p = _ScaledValues(objective.triplet[2])
        # the cost is a sum of terms of the size of P's entries (each
        # method's units: P sums to 1, fuzzy weights, distances in their
        # mean's units), so rounding is small against their sum
        s = replace(s, cost_scale=float(np.sum(np.abs(objective.triplet[2]))))
        # both "auto" rules read the rows' sums of |P|: summed once
        row_sums = absolute_row_sums(objective.triplet) if self.auto_learning_rate else None
        if self.auto_learning_rate:
            rate = stiffest_row_learning_rate(s.learning_rate, s.exaggeration, Y.shape[0],
                                              row_sums, s.cost_scale)
            if rate != s.learning_rate:
                _progress.say(f"learning rate {rate:g}: the auto rate {s.learning_rate:g} "
                              "lowered to the reach of P's stiffest row")
                s = replace(s, learning_rate=rate)
        if self.auto_learning_rate and s.late_exaggeration > 1.0:
            s = replace(s, late_learning_rate=late_learning_rate(
                s.learning_rate, s.late_exaggeration, Y.shape[0],
                float(np.sum(objective.triplet[2]))))
        damping = (_RowDamping(row_sums)
                   if self.auto_learning_rate
                   and max(s.exaggeration, s.late_exaggeration) > 1.0 else None)

        def gradient(Ycur, lcur, exaggeration, out):
            return objective.gradient(Ycur, lcur, out, scaled_p(exaggeration))

        rule = _LearnedRuleStep(method, objective, s.n_iter)
        trace = optimize_exact(Y, gradient, objective.cost, s, learned=objective.learned,
                               callback=callback, verbose=verbose, rule=rule or None,
                               row_damping=damping)
        if damping is not None and damping.most:
            _progress.say(f"{damping.most} row{'s' if damping.most > 1 else ''} of P beyond "
                          "the rate's reach took a smaller step of their own under exaggeration")
        if rule:
            _progress.say(f"{method.name}: {rule.rule.summary or 'learned by its rule'}; "
                          "fitted " + ", ".join(f"{k} = {v:.6g}" for k, v in
                                                 zip(method.learned, objective.learned)))
        # a rule may have changed the learned scalars after the last evaluation
        final_cost = (trace.costs[-1] if trace.costs and trace.iterations[-1] == trace.n_iter
                      and not rule else objective.cost(Y, objective.learned))
        settings = {k: getattr(s, k) for k in (
            "n_iter", "learning_rate", "exaggeration", "exaggeration_iter", "late_exaggeration",
            "late_start", "late_learning_rate", "momentum", "final_momentum",
            "momentum_switch_iter", "min_gain", "tol", "cost_every")}
        settings["late_exaggeration_iter"] = settings.pop("late_start")
        settings["gradient"] = self.gradient
        settings["rows_damped"] = 0 if damping is None else damping.most
        # an approximate gradient's run monitors (tol, progress, divergence)
        # and reports its approximate cost: O(N) where the exact one is O(N^2)
        return RunOutcome(trace.n_iter, final_cost, trace.costs, trace.iterations,
                          trace.stopped_early, settings, list(trace.recoveries),
                          cost_kind=objective.cost_kind)


def _sgd_neighbours(spec, affinity_params, n_samples):
    """``affinity_params`` with the stochastic form's default ``n_neighbors``, if it has one.

    See :attr:`smallvis.engines.sgd.SgdSpec.neighbours_per_perplexity`:
    filled in only when neither ``n_neighbors`` nor ``knn`` was given, from
    the perplexity as sized for ``n_samples`` points.
    """
    ratio = spec.neighbours_per_perplexity
    if (ratio is None or n_samples is None or affinity_params.get("n_neighbors") is not None
            or affinity_params.get("knn") is not None):
        return affinity_params
    k = min(int(np.floor(ratio * affinity_params["perplexity"])), n_samples - 1)
    return {**affinity_params, "n_neighbors": k}


@dataclass(frozen=True)
class SgdPlan(_Start):
    """The stochastic optimizer's run: the method's spec, epochs and step."""

    spec: _sgd.SgdSpec
    n_epochs: int
    learning_rate: float
    unit_params: tuple
    init: object
    affinity_params: dict
    cost_params: dict
    early: object = None  # (unit_params, n_early) of the spec's early phase, or None
    name = "sgd"
    gradient = "exact"  # the exact cost kernels (the run samples its own forces)

    @classmethod
    def build(cls, method, n_samples, keywords, *, init=None, learning_rate=None,
              n_epochs=None):
        """Validate the stochastic optimizer's keywords; defaults from the spec."""
        spec = method.sgd
        # "auto" keywords take the stochastic form's own default
        keywords = {k: v for k, v in keywords.items()
                    if not (k in spec.param_defaults and isinstance(v, str) and v == "auto")}
        affinity_params, cost_params = method.split_params(
            keywords, n_samples, defaults=spec.param_defaults)
        affinity_params = _sgd_neighbours(spec, affinity_params, n_samples)
        if n_epochs is None:
            n_epochs = spec.n_epochs(n_samples)
        n_epochs = check_iterations(n_epochs, "n_epochs", low=1)
        if learning_rate is None or learning_rate == "auto":
            learning_rate = spec.learning_rate
        learning_rate = check_number(learning_rate, "learning_rate", low=0, low_open=True)
        early = None
        if spec.early_phase is not None:  # the params record the phase as run
            cost_params, early = spec.early_phase(n_epochs, **cost_params)
        return cls(spec, n_epochs, learning_rate, spec.unit_params(**cost_params),
                   sized_init(spec.init, n_samples) if init is None else init,
                   affinity_params, cost_params, early)

    def describe(self):
        return f"sgd optimizer, {self.n_epochs} epochs"

    def run(self, Y, objective, *, P, kernels, rng, callback=None, verbose=False,
            method=None, consume_P=False):
        """Edge and negative sampling on ``Y`` (in place).

        Above the spec's ``exact_cost_max_n`` points (``SGD_COST_MAX_N`` unless
        the method's exact cost is slower) the reported cost is a sampled
        estimate (:mod:`smallvis.engines.sampled_cost`: of pairs, or of rows
        for a method without pair terms; ``cost_kind="estimate"``);
        with ``verbose`` each epoch line shows it.

        ``consume_P``: the caller reads neither ``P`` nor ``objective``
        after this call, so when the final cost is the estimate (which
        copies the values it samples) ``P``'s values may become the edges'
        alias table (:func:`smallvis.engines.sgd.prepare`'s
        ``consume_values``).
        """
        learned = objective.learned
        n = Y.shape[0]
        # the CSR arrays as they are (int32 indices) when the kernels' triplet
        # would hold the same entries (kernel_triplet: sparse layout)
        edges = ((P.indptr, P.indices, P.data) if sp.issparse(P) and P.nnz < 0.5 * n * n
                 else objective.triplet)
        cost_max_n = self.spec.exact_cost_max_n
        estimate = None
        if method is not None and (verbose or n > cost_max_n):
            estimate = (SampledCost(method, self.cost_params, edges, n)
                        if supports_sampled_cost(method, self.cost_params)
                        else RowSampledCost(objective.cost_fn, objective.args, objective.triplet,
                                            n, objective.kernel_threads))
        exact_final = estimate is None or n <= cost_max_n or estimate.exact
        problem = _sgd.prepare(self.spec, P, self.n_epochs, self.unit_params,
                               self.learning_rate, kernels,
                               q0=learned[0] if learned.size else 0.0,
                               correct_q=bool(self.cost_params.get("correct_q", False)),
                               early=self.early,
                               consume_values=consume_P and not exact_final)
        seed = int(rng.integers(2 ** 63))
        callback_every = 1
        if verbose and estimate is not None:  # epoch lines with the estimated cost
            lines = _progress.EpochLines(self.n_epochs, callback,
                                         lambda Ycur: estimate(Ycur, problem.q[:learned.size]))
            if callback is None:  # called only where a line is due
                callback_every = lines.every
            callback = lines
        trace = _sgd.optimize_sgd(Y, kernels, problem, seed, n_threads=objective.n_threads,
                                  callback=callback, callback_every=callback_every,
                                  verbose=verbose and estimate is None)
        learned[:] = problem.q[:learned.size]
        cost_kind = "exact"
        if exact_final:
            final_cost = objective.cost(Y, learned)
        else:
            final_cost, cost_kind = estimate(Y, learned), "estimate"
        settings = {"n_epochs": self.n_epochs, "learning_rate": self.learning_rate,
                    "seed": trace.seed}
        return RunOutcome(trace.n_epochs, final_cost, [], [], trace.stopped_early, settings,
                          cost_kind=cost_kind)


def check_late_exaggeration(late_exaggeration, late_exaggeration_iter, n_iter):
    """``(late_exaggeration, late_exaggeration_iter)`` checked.

    A factor other than 1 whose phase would start at or after the last
    iteration is refused: no iteration would use it.
    """
    late_exaggeration = check_number(late_exaggeration, "late_exaggeration", low=0,
                                     low_open=True)
    if late_exaggeration_iter is not None:
        late_exaggeration_iter = check_iterations(late_exaggeration_iter,
                                                  "late_exaggeration_iter", low=0)
        if (late_exaggeration != 1.0 and isinstance(n_iter, (int, np.integer))
                and late_exaggeration_iter >= n_iter):
            raise ParameterError(
                f"late_exaggeration_iter {late_exaggeration_iter} is not below n_iter "
                f"{n_iter}: late exaggeration starts after late_exaggeration_iter, so no "
                "iteration would be exaggerated; lower late_exaggeration_iter= or raise n_iter=",
                ("late_exaggeration_iter", "n_iter"))
    return late_exaggeration, late_exaggeration_iter


#: The largest product of the "auto" step, 4 times the exaggeration and the
#: largest row sum of ``P`` that :func:`stiffest_row_learning_rate` allows.
#: t-SNE maps of documents whose short rows are near every row (the
#: product 129 to 499 at the floor of 50) were thrown apart on some of 6
#: seeds; at 32, 48 and 64 none was; at 96 two sets of five still were.  The
#: evaluation panel reaches 34 (the ``hubs`` set; iris 22, digits 2.5), so
#: no map of it changes (docs/experiments.md, 2026-12-06).
STIFFEST_ROW_STEP = 48.0


def absolute_row_sums(triplet):
    """:math:`\\sum_j |p_{ij}|` for each row of ``P`` given as ``(indptr, indices, data)``."""
    indptr, _, data = triplet
    return _sgd._row_sums(np.asarray(indptr), np.abs(data))


def stiffest_row_learning_rate(learning_rate, exaggeration, n_samples, row_sums, total):
    r"""The "auto" learning rate, kept within reach of ``P``'s stiffest row.

    Point :math:`i`'s exaggerated attraction pulls it toward its neighbours
    with a stiffness of about :math:`4 \rho \sum_j p_{ij}`.  The "auto"
    rules suit the average row, :math:`\sum_j p_{ij} = \sum P / N`, but a
    floor (t-SNE's 50) lifts the step above it on small data, and a row
    that many others count as a neighbour (a hub) can be a hundred times
    as stiff as the average: each step throws it past its neighbours, and
    it drags the map apart.  A rate above the average row's
    :math:`N / (4 \rho \sum P)` is therefore lowered, at most to that
    value, until

    .. math::

        \eta \cdot 4 \rho \max_i \sum_j p_{ij} \le
        \texttt{STIFFEST\_ROW\_STEP}.

    A rate at or below the average row's is returned as it is, so the
    rules without a floor, and t-SNE above 2,400 points, never change.

    Parameters
    ----------
    learning_rate : float
        The rate the method's "auto" rule gave.
    exaggeration : float
        The early exaggeration :math:`\rho` (1: none).
    n_samples : int
    row_sums : ndarray of shape (n_samples,)
        :math:`\sum_j |p_{ij}|` for each row (:func:`absolute_row_sums`).
    total : float
        The sum of the absolute values of ``P``'s entries (the exact plan's
        ``cost_scale``, computed once).
    """
    if not total > 0.0:
        return learning_rate
    average_row = n_samples / (4.0 * exaggeration * total)
    # no floor, nothing to bound (nor rows to sum): N / (4 alpha) for a P
    # whose sum is 1 to rounding keeps its bits
    if learning_rate <= average_row * (1.0 + 1e-9):
        return learning_rate
    largest = float(np.max(row_sums))
    stiffest_row = STIFFEST_ROW_STEP / (4.0 * exaggeration * largest)
    return min(learning_rate, max(average_row, stiffest_row))


#: The largest product of the step, 4 times the exaggeration and one
#: row's sum of ``P``, that any single row is given at an "auto" rate
#: (:class:`_RowDamping`).  Of 260 sets of 300 to 800 documents with empty
#: rows, default t-SNE threw 11 apart without it and none with it
#: (docs/experiments.md, 2026-12-06).
ROW_STEP = 24.0

#: A row is damped only when it is also this many times as stiff as the
#: median row: where every row is about as stiff (small sets at the
#: floor), the rate's own rule governs them all.
HUB_RATIO = 2.0


class _RowDamping:
    r"""One factor per row that keeps each row's exaggerated step within reach.

    :func:`stiffest_row_learning_rate` lowers the rate of every row, and no
    further than the average row's, so a row of ``P`` that is stiffer still
    (a hub, which many rows count as a neighbour) is thrown past its
    neighbours at each exaggerated step.  Here such a row alone takes a
    smaller step: at an iteration with exaggeration :math:`\rho > 1` (early
    or late) and learning rate :math:`\eta` (the rate in use then: the late
    phase's, or one the divergence guard halved), its gradient is
    multiplied by

    .. math::

        f_i = \min\left(1, \frac{L}{K_i}\right), \qquad
        K_i = 4 \rho \eta \sum_j |p_{ij}|, \qquad
        L = \max\left(\texttt{ROW\_STEP},\;
            \texttt{HUB\_RATIO} \cdot \operatorname{median}_j K_j\right),

    which is the same as giving row :math:`i` the rate :math:`f_i \eta`
    (:func:`smallvis.engines.optim.optimize_exact`, ``row_damping``).  The
    median keeps small sets at t-SNE's floor, whose rows are all about as
    stiff, as they were: the rate's own rule governs them.  Iterations
    without exaggeration keep every row's step.  The cost and its minima
    are unchanged; only the path toward them is.

    Parameters
    ----------
    row_sums : ndarray of shape (n_samples,)
        :math:`\sum_j |p_{ij}|` for each row (:func:`absolute_row_sums`).

    Attributes
    ----------
    most : int
        The most rows damped at any one iteration so far.
    """

    def __init__(self, row_sums):
        self.stiffness = 4.0 * row_sums
        self.typical = float(np.median(self.stiffness)) if len(row_sums) else 0.0
        self.key, self.scale, self.most = None, None, 0

    def __call__(self, exaggeration, learning_rate):
        """The factors as a column of shape (n_samples, 1), or None where all are 1."""
        if not exaggeration > 1.0:
            return None
        if (exaggeration, learning_rate) != self.key:
            product = (exaggeration * learning_rate) * self.stiffness
            limit = max(ROW_STEP, HUB_RATIO * (exaggeration * learning_rate) * self.typical)
            n_damped = int(np.count_nonzero(product > limit))
            self.scale = ((limit / np.maximum(product, limit))[:, None]
                          if n_damped else None)
            self.most = max(self.most, n_damped)
            self.key = (exaggeration, learning_rate)
        return self.scale


def late_learning_rate(learning_rate, late_exaggeration, n_samples, p_sum):
    """The "auto" learning rate of the late-exaggerated phase.

    Multiplying ``P`` by ρ multiplies the attraction's stiffness: each
    point's is about 4ρ times its row sum, ``p_sum / n_samples`` on
    average.  A step above ``n_samples / (4 ρ p_sum)`` then overshoots (on
    400 digits, ρ = 12 at the auto rate of 50 oscillates; at 8 it converges),
    so the phase uses ``min(learning_rate, n_samples / (4 ρ p_sum))``, as
    openTSNE's "auto" rate divides by the exaggeration of the current phase.
    """
    return min(learning_rate, n_samples / (4.0 * late_exaggeration * p_sum))


def make_plan(method, n_samples, optimizer, keywords, *, init, learning_rate, n_epochs,
              gradient="auto", n_components=2, **exact_settings):
    """The plan of the optimizer that ``optimizer`` ("auto", "exact", "sgd") selects.

    ``gradient`` ("auto", "exact" or an approximation of the method) is
    checked for every method and used by the exact optimizer
    (:func:`smallvis.registry.choose_gradient`).  A named ``init`` is
    checked here, before any work (an array when it is used).
    """
    if isinstance(init, str):
        check_init(init, n_samples, n_components)
    stochastic = [name for name, m in METHODS.items() if m.sgd is not None]
    gradient = choose_gradient(method, gradient, n_samples, n_components)
    chosen = _sgd.choose_optimizer(method, optimizer, n_samples, stochastic, n_components)
    if chosen == "sgd":
        late = exact_settings.get("late_exaggeration", 1.0)
        late, _ = check_late_exaggeration(late, exact_settings.get("late_exaggeration_iter"),
                                          None)
        if late != 1.0:
            warn_from_caller(UserWarning(
                f"late_exaggeration={late:g} is ignored: {method.name} runs the stochastic "
                "optimizer (optimizer='sgd'), and late exaggeration belongs to the exact "
                "one; pass optimizer='exact' to use it"))
        n_iter = check_iterations(exact_settings.get("n_iter", EXACT_N_ITER), "n_iter",
                                  low=0)
        if optimizer == "auto" and n_iter != EXACT_N_ITER:
            # "auto" chose the optimizer, so the user may not know that
            # their iterations do not run
            warn_from_caller(UserWarning(
                f"n_iter={n_iter} is ignored: optimizer='auto' chose {method.name}'s "
                f"stochastic optimizer here ({n_samples:,} points, n_components="
                f"{n_components}), which runs n_epochs epochs instead; pass "
                "optimizer='exact' to run n_iter iterations, or n_epochs= to set the epochs"))
        return SgdPlan.build(method, n_samples, keywords, init=init,
                             learning_rate=learning_rate, n_epochs=n_epochs)
    if n_epochs is not None:
        # not used by the exact optimizer, but a bad value is still refused
        n_epochs = check_iterations(n_epochs, "n_epochs", low=1)
        if optimizer == "auto":
            # as for n_iter above: nobody asked for the exact optimizer by
            # name, so the user may not know that their epochs do not run
            if method.sgd is None:
                why = (f"{method.name} has no stochastic optimizer, and its exact one runs "
                       "n_iter iterations (n_iter= sets them)")
            else:
                why = (f"optimizer='auto' chose {method.name}'s exact optimizer here "
                       f"({n_samples:,} points, n_components={n_components}), which runs "
                       "n_iter iterations instead; pass optimizer='sgd' to run n_epochs "
                       "epochs, or n_iter= to set the iterations")
            warn_from_caller(UserWarning(f"n_epochs={n_epochs} is ignored: {why}"))
    sgd_only = [k for k in (method.sgd.sgd_only_params if method.sgd is not None else ())
                if keywords.get(k) is not None]
    if sgd_only:
        warn_from_caller(UserWarning(
            f"{', '.join(sgd_only)} {'is' if len(sgd_only) == 1 else 'are'} ignored: "
            f"{method.name} runs the exact optimizer here, and the early phase belongs "
            "to the stochastic one; pass optimizer='sgd' to use it"))
    return ExactPlan.build(method, n_samples, keywords, init=init,
                           learning_rate=learning_rate, gradient=gradient,
                           **exact_settings)


#: Points closer than this fraction of the map's span are one dot in any figure.
ONE_SPOT = 1e-6

#: Merged points warn once they are this share of the map (at least one point):
#: on small data one merged point is a visible loss, while NCVis's default
#: maps of iris and digits merge 2 of 150 and 3 of 1,797 points, which no
#: figure shows.
MERGED_SHARE = 0.02


#: A map from ``init="pca"`` whose points moved, at the median, less than this
#: share of the start's radius has hardly left its start: on Fashion-MNIST's
#: pixels (0 to 255) largevis, umap and tsne moved 0.01 to 0.08 of it and drew
#: poor maps, while starts from the same pixels divided by 16 (a map that
#: matches the default's) moved 0.17 or more (docs/experiments.md, 2026-12-03).
KEPT_START_SHARE = 0.125

#: ... and only when the start's radius (root mean square distance from its
#: centre) exceeds this many map units: there the kernels of the affinity
#: methods have faded (``1 / (1 + d^2)`` is 4e-4 at 50), and a short run from
#: a small start is no sign of a start in the wrong units.
KEPT_START_RADIUS = 50.0


def _radius(Y):
    """The root mean square distance of the rows of ``Y`` from their centre."""
    centred = Y - Y.mean(axis=0)
    return float(np.sqrt(np.mean(np.einsum("ij,ij->i", centred, centred))))


def kept_start_check(init, method):
    """Whether :func:`warn_if_start_kept` applies: ``init="pca"`` for a method whose map has no units.

    The PCA scores are in the data's units.  A stress method fits its map in
    those units (its family is ``"equivariant"``) and rescales any start;
    an affinity method's map is drawn in the units of its output kernel,
    whatever the data's.
    """
    return isinstance(init, str) and init == "pca" and method.p_family.units != "equivariant"


def warn_if_start_kept(Y, start, name):
    """Warn when a map hardly left a wide ``init="pca"`` start.

    Unscaled PCA scores put the start in the data's units (pixels of 0 to
    255 give a radius in the thousands), where the output kernel's forces
    have faded: the points rearrange locally but the map keeps the start's
    layout, and its neighbourhoods are poor.  The message names the
    method's default start first: "spca" (the same PCA scaled to a standard
    deviation of 1e-4) suits most methods, but not negtsne's 200 stochastic
    epochs above 10,000 points (docs/experiments.md, 2026-12-03).
    """
    radius = _radius(start)
    if not radius > KEPT_START_RADIUS:
        return
    step = Y - start
    moved = float(np.median(np.sqrt(np.einsum("ij,ij->i", step, step))))
    if moved < KEPT_START_SHARE * radius:
        warn_from_caller(RuntimeWarning(
            f"{name}: the map hardly left its init='pca' start (points moved a median "
            f"{moved:.3g} units, against the start's radius of {radius:.3g}): unscaled PCA "
            f"scores are in the units of X, where {name}'s output kernel exerts almost no "
            "force, so the map keeps the start's layout; leave init at the method's "
            "default, pass init='spectral' or init='spca' (the same PCA scaled to a "
            "standard deviation of 1e-4), or pass X in smaller units"))


#: A map whose radius (root mean square distance from its centre) exceeds
#: this many units has been flung apart: the output kernels of the methods
#: with an ``eps`` in their repulsion have faded long before (``1 / (1 +
#: d^2)`` is 1e-8 at 1e4), and their default maps of the test data lie
#: within a few hundred units, while exact umap, tumap and largevis runs
#: on digits with ``eps=0`` from the exact optimizer's default start (the
#: ``spca`` spread of 1e-4) ended at radii of 3e5 to 2e6
#: (docs/experiments.md, 2026-12-04, the exact UMAP-type optimizer on
#: small data; eps=0).
FLUNG_RADIUS = 1e4


def warn_if_flung(Y, cost_params, method):
    """Warn when a map with ``eps = 0`` in its repulsion was flung far beyond its kernel's reach.

    Only for a ``method`` whose default ``eps`` is above 0 (umap, tumap,
    largevis): its default smooths the singularity, and the message can
    send the user back to it.

    With ``eps = 0`` the repulsion is singular where two points meet (it
    grows like ``1 / d``), so the first steps from points that nearly
    coincide (the ``"spca"`` and ``"random"`` starts, of spread 1e-4, or
    duplicate rows of the data, which start on one spot whatever the
    start) throw the points apart, and the run ends in a map of scattered
    points whose cost still looks reasonable.
    """
    default = method.cost_params.get("eps")
    if (cost_params.get("eps") != 0.0 or not isinstance(default, (int, float))
            or not default > 0 or not Y.size):
        return
    radius = _radius(Y)
    if radius > FLUNG_RADIUS:
        warn_from_caller(RuntimeWarning(
            f"{method.name}: the map spans a radius of {radius:.3g} units, far beyond the "
            "reach of its output kernel: with eps=0 the repulsion is singular where points "
            "meet, and the first steps from points that nearly coincide (a start of init "
            "'spca' or 'random', whose spread is 1e-4, or duplicate rows of X, which start "
            f"on one spot) fling them apart; keep eps above 0 ({method.name}'s default is "
            f"{default:g}), or start wider (init='spectral', or an array of coordinates a "
            "few units apart) from data without duplicate rows"))


def warn_if_points_merged(Y, X, cost_params, name):
    """Warn when a UMAP-curve weight with ``b > 1`` and no ε left distinct points at one spot.

    Such a weight's force between two points falls like ``d**(2b - 1)``,
    faster than their distance, so points pulled together by the same
    neighbours (equal rows of ``P``) barely push apart and can end on one
    spot (NCVis's default ``min_dist = 0.4`` gives ``b = 1.22``).  With
    ``b <= 1`` or an ε in the repulsion (umap) the force does not vanish.
    """
    if "min_dist" not in cost_params or "eps" in cost_params:
        return
    _, b = output_curve(cost_params.get("a"), cost_params.get("b"),
                        cost_params.get("spread", 1.0), cost_params["min_dist"])
    span = float(np.max(np.ptp(Y, axis=0))) if Y.size else 0.0
    if b <= 1.0 or not span > 0:
        return
    merged = count_merged_rows(Y, X, ONE_SPOT * span)
    if merged and merged >= MERGED_SHARE * len(Y):
        warn_from_caller(RuntimeWarning(
            f"{name}: {merged} of {len(Y)} points ended on one spot with another point "
            f"whose data differ (closer than {ONE_SPOT:g} of the map's span): its output "
            f"weight's exponent b = {b:.3g} > 1 exerts almost no force between close "
            f"points; pass a smaller min_dist (min_dist=0.1 gives b < 1) or another init"))
