"""Exact optimizer: full gradient with delta-bar-delta gains (smallvis-compatible).

One iteration, numbered ``it = 1 .. n_iter`` as in the R package smallvis:

1. ``G = gradient(Y)``, using ``exaggeration * P`` while ``it <= exaggeration_iter``
   and ``late_exaggeration * P`` once ``it > late_exaggeration_iter``
   (:meth:`OptimizerSettings.exaggeration_at`).
2. Gains: ``gains + 0.2`` where ``sign(G) != sign(update)``, else ``gains * 0.8``;
   floored at ``min_gain``.  (``update`` starts at zero, and ``sign(0) = 0``.)
3. ``update = mu * update - learning_rate * gains * G``; ``Y += update``;
   ``mu`` is ``momentum`` while ``it <= momentum_switch_iter`` and
   ``final_momentum`` after.  With ``max_step`` set, each component of
   ``update`` is clipped to ``[-max_step, max_step]`` before it is added
   (and kept so in the momentum buffer).
4. Re-centre: subtract the column means of ``Y`` (unless ``recentre`` is
   False).
5. Every ``cost_every`` iterations and at the last one, evaluate the cost of the
   true (unexaggerated) ``P`` at the new ``Y``; stop early when the relative
   change per iteration falls below ``tol`` (after early exaggeration and after
   the start of late exaggeration, with a wait of 15 iterations as in smallvis).  ``cost_every=None``: the cost is never
   evaluated, and the run makes exactly ``n_iter`` iterations.
6. ``callback(it, Y, cost)`` is called (``cost`` is None when it was not
   evaluated); a truthy return value stops the run.

Divergence guard
----------------
A run that blows up is never returned as it stands.  Divergence is judged by
what diverges, not by how large the map is: the optimizer counts its run as
diverging when

* any coordinate (or learned scalar) stops being finite (checked every
  iteration), or a cost evaluation is not finite;
* the coordinates spread so far that the squared distance between two
  points would overflow float64 (the bound of
  :func:`smallvis._validation.check_coordinate_span`, checked every
  iteration, before the next gradient could turn it into inf or NaN);
* the cost rises by more than :data:`RISE_ONCE` (a doubling) above the
  lowest cost seen, at one evaluation; or it stays more than
  :data:`RISE_TWICE` (10%) above it for :data:`RISE_PATIENCE` iterations
  (at every evaluation from the first one that saw the rise to one at least
  that many iterations later): while ``P`` is not exaggerated (after early
  exaggeration when there is some, and from the start, whose cost is
  evaluated once, not recorded, when there is none).  Exaggeration moves
  the map away from the minimum of the true cost on purpose, so the rise
  rule is off while it lasts, late exaggeration included; the other
  checks stay on.  A rise is relative to the lowest cost, or to
  :data:`RISE_FLOOR` times the size of the cost's terms
  (``cost_scale``: the sum of ``P``'s entries in a fit) when the lowest
  cost is smaller: the cost of a map that fits its input exactly is
  rounding, and rounding rises by any factor.

The lasting rise is measured in iterations, not in evaluations, so that how
often the cost is evaluated (``cost_every``) does not decide how long a rise
may last: delta-bar-delta with momentum does not descend monotonically, and a
converging run can climb well above its best for tens of iterations (a point
that its growing gains carry fast across the map is thrown out when it
meets a cluster) before it falls below it again by itself.  Counted in
evaluations, a rise of a few iterations would stop a run whose cost is
evaluated every iteration and go unseen at the default ``cost_every``.

A wide map is not a diverging one: a heavy-tailed map of a few points
legitimately spans hundreds of units (R smallvis's own 10-point t-SNE test
ends spanning about 565), and its cost keeps falling.

It then recovers in a defined way: it goes back to the last good state (the
evaluation with the lowest cost, the start included, while ``P`` is not
exaggerated; the latest one during exaggeration), halves the
learning rate, resets the gains and the momentum buffer, and carries on
from that iteration, so the run still ends at ``n_iter``.  Each recovery is
recorded (``OptimizerTrace.recoveries``, ``EmbedResult.recoveries``) and
printed when verbose.  The callback sees the repeated iterations again.
After :data:`MAX_RECOVERIES` halvings the run stops with
:class:`DivergenceError`, which names the iteration and the setting to
change.

Collapsed layouts
-----------------
A start whose rows differ but whose squared distances all underflow
(coordinates spanning less than about 1.5e-154) is refused with a
``ValueError`` (:func:`check_starting_layout`): every output kernel would
see one point and the run would end where it began.  A run that ends with
every squared distance below float64's relative precision (its output
weights all equal their value at distance 0, e.g. from a very small start
and too few iterations) warns with a ``RuntimeWarning``.  ``tol`` never
stops a run whose squared distances are all below
:data:`TOL_MIN_SQUARED_SPAN`, a hundredth of the output kernels' unit:
the cost of so small a map is flat without having converged.

Placing new points against a fixed reference
--------------------------------------------
:meth:`smallvis.transform.TrainingMap.transform` runs this same engine on the
new points only (the training rows enter through its gradient, fixed).
What differs is settings: a learning rate per row (``row_learning_rate``),
a clip of the step (``max_step``), no re-centring (the training map's frame is
fixed), its own momentum schedule, a fixed number of iterations
(``cost_every=None``), a check that the gradient is finite
(``check_gradient``), no collapse checks (``check_collapse``: the new
points' spread among themselves is not a layout) and no recovery
(``recover=False``: a divergence raises :class:`DivergenceError` at once,
with its ``iteration`` and ``reason``).

Learned scalars (NCVis's normalisation ``Q``) are optimised together with
``Y``: they are extra coordinates with their own gains and update, under the
same rule and learning rate, and are not re-centred.

Scalars set by a rule
---------------------
A method may instead set its learned scalars by a rule of its own (R
smallvis's "epoch" functions: pstsne's normaliser, dhssne's tail), given as
``rule``: ``rule(Y, learned)`` writes the new values into ``learned``, after
the step, the re-centring and the cost evaluation of every ``rule.every``-th
iteration and of the last one.  Such scalars are not descended (their
derivative is taken as 0, so their update stays 0), a recovery restores them
with ``Y``, and an iteration at which ``tol`` stops the run does not apply
the rule (R applies its epoch function after its stopping tests).

Learning-rate convention: gradients are the true gradients of the documented
costs (including t-SNE's factor 4), so a learning rate of 200 here is the
same as 200 in scikit-learn, openTSNE and smallvis.
"""

import sys
import time
from dataclasses import dataclass, field

import numpy as np

from .._validation import (MAX_SQUARED_DISTANCE, coordinate_span_overflows,
                           coordinate_span_underflows, squared_span_bound, tiny_span_message,
                           warn_from_caller, warn_not_laid_out)

#: smallvis waits this many iterations after exaggeration before testing tol.
TOL_WAIT = 15

#: ``tol`` does not stop a run whose squared distances are all below this.
#: The methods' output kernels reach about a unit, and a map a tenth of a
#: unit across has a cost that hardly depends on where its points are: a
#: map growing out of a collapse (t-SNE after exaggeration on data without
#: clusters) kept its cost to eight digits while it grew 1.8-fold per
#: iteration, and ``tol`` stopped it at a width of 0.001 (docs/reliability.md).
TOL_MIN_SQUARED_SPAN = 1e-2

#: Divergence: a cost this far (relative) above the lowest one, at one evaluation.
RISE_ONCE = 1.0
#: Divergence: a cost this far (relative) above the lowest one, for
#: :data:`RISE_PATIENCE` iterations.  A converging run may climb higher, but
#: only for a while; a run that stays this far above its best is not
#: converging.
RISE_TWICE = 0.1
#: Divergence: iterations a rise of more than :data:`RISE_TWICE` must last.
#: Two evaluations in a row at the default ``cost_every`` (50), whose
#: verdicts it keeps at every ``cost_every``.  Longer than the bumps that a
#: converging run climbs and leaves by itself once the gains of
#: delta-bar-delta carry a point fast into a cluster (docs/reliability.md,
#: "What the divergence guard judges"); shorter than the bouncing of a
#: learning rate a few times too large, which the guard lowers.
RISE_PATIENCE = 50
#: Divergence: rises are measured against the best cost, or against this
#: fraction of :attr:`OptimizerSettings.cost_scale` when the best cost is
#: smaller.  A map that fits its input exactly (points on a plane under a
#: stress) has a cost that is rounding, of either sign, and rounding
#: relative to itself rises by any factor.
RISE_FLOOR = 1e-10
#: Halvings of the learning rate before the run gives up.
MAX_RECOVERIES = 20


class DivergenceError(RuntimeError, FloatingPointError):
    """An optimisation blew up and could not be recovered.

    A ``RuntimeError`` (and, for code written against earlier versions, a
    ``FloatingPointError``) whose message names the iteration and the
    setting to change.
    """


@dataclass
class OptimizerSettings:
    """Settings of the exact optimizer (see the module docstring).

    The fit uses the defaults of the last six; new points are placed with
    ``cost_every=None``, ``max_step`` set, ``recentre``,
    ``check_collapse`` and ``recover`` False and ``check_gradient`` True
    (module docstring, "Placing new points against a fixed reference").
    """

    learning_rate: float
    n_iter: int = 1000
    exaggeration: float = 1.0
    exaggeration_iter: int = 250
    #: factor multiplying ``P`` after iteration ``late_exaggeration_iter``
    late_exaggeration: float = 1.0
    #: the last iteration before late exaggeration; None: ``exaggeration_iter``
    late_exaggeration_iter: int = None
    #: the learning rate of the late-exaggerated phase; None: ``learning_rate``
    late_learning_rate: float = None
    momentum: float = 0.5
    final_momentum: float = 0.8
    momentum_switch_iter: int = 250
    min_gain: float = 0.01
    tol: float = 1e-7
    #: evaluate the cost every this many iterations; None: never
    cost_every: int = 50
    #: clip of each component of the update; None: no clip
    max_step: float = None
    #: subtract the column means of ``Y`` after every step
    recentre: bool = True
    #: refuse a collapsed start, warn about a collapsed end
    check_collapse: bool = True
    #: count a gradient that is not finite as a divergence
    check_gradient: bool = False
    #: recover from a divergence (halve the learning rate); False: raise
    recover: bool = True
    #: the size of the cost's terms (the fit: the sum of ``P``'s entries);
    #: rises smaller than :data:`RISE_FLOOR` times it are rounding, never
    #: divergence.  0: every rise counts
    cost_scale: float = 0.0

    @property
    def late_start(self):
        """The last iteration before late exaggeration (``late_exaggeration_iter`` resolved)."""
        return (self.exaggeration_iter if self.late_exaggeration_iter is None
                else self.late_exaggeration_iter)

    def exaggeration_at(self, it):
        """The factor multiplying ``P`` in the gradient of iteration ``it`` (1: none).

        ``exaggeration`` while ``it <= exaggeration_iter``, then
        ``late_exaggeration`` once ``it > late_start``, else 1.  Early
        exaggeration wins where both would apply.
        """
        if it <= self.exaggeration_iter and self.exaggeration != 1.0:
            return self.exaggeration
        if it > self.late_start and self.late_exaggeration != 1.0:
            return self.late_exaggeration
        return 1.0

    def exaggeration_ends(self):
        """The last iteration of early exaggeration; 0 without it."""
        return self.exaggeration_iter if self.exaggeration != 1.0 else 0

    def late_exaggeration_starts(self):
        """The last iteration before late exaggeration; None without it."""
        return self.late_start if self.late_exaggeration != 1.0 else None


@dataclass
class OptimizerTrace:
    """What the optimizer recorded."""

    iterations: list = field(default_factory=list)
    costs: list = field(default_factory=list)
    n_iter: int = 0
    stopped_early: bool = False
    #: one dict per recovery: ``iteration`` (where divergence was seen),
    #: ``restart`` (the iteration of the good state it went back to),
    #: ``reason`` and the new ``learning_rate``
    recoveries: list = field(default_factory=list)


def _progress(it, n_iter, cost, start):
    elapsed = time.perf_counter() - start
    eta = elapsed / it * (n_iter - it) if it else float("nan")
    cost_s = "" if cost is None else f"  cost {cost:.6g}"
    print(f"iter {it:>6d}/{n_iter}{cost_s}  elapsed {elapsed:7.2f}s  ETA {eta:7.2f}s",
          file=sys.stderr, flush=True)


class _DeltaBarDelta:
    """Steps 2 and 3 of the module docstring, in place on preallocated buffers.

    ``step(G, learning_rate, mu)`` updates the gains from the signs of ``G``
    and of the previous update, then returns the new update
    ``mu * update - (learning_rate * gains) * G`` (an internal buffer),
    clipped to ``[-max_step, max_step]`` when ``max_step`` is not None.
    ``learning_rate`` is a float or an array of one rate per entry.
    """

    def __init__(self, size, min_gain, max_step=None):
        self.min_gain = min_gain
        self.max_step = max_step
        self.update = np.zeros(size)
        self.gains = np.ones(size)
        self._shrunk = np.empty(size)
        self._sign_g = np.empty(size)
        self._sign_u = np.empty(size)
        self._same = np.empty(size, dtype=bool)

    def __call__(self, G, learning_rate, mu):
        gains, update = self.gains, self.update
        np.equal(np.sign(G, out=self._sign_g), np.sign(update, out=self._sign_u),
                 out=self._same)
        np.multiply(gains, 0.8, out=self._shrunk)
        gains += 0.2
        np.copyto(gains, self._shrunk, where=self._same)
        np.maximum(gains, self.min_gain, out=gains)
        update *= mu
        scaled = np.multiply(gains, learning_rate, out=self._shrunk)
        scaled *= G
        update -= scaled
        if self.max_step is not None:
            np.clip(update, -self.max_step, self.max_step, out=update)
        return update


def _range(theta):
    """max - min of all coordinates: NaN or inf when any is not finite."""
    return float(theta.max() - theta.min()) if theta.size else 0.0


def _diverged_coordinates(theta, Y):
    """Why the coordinates diverged (a reason string), or None when they did not.

    ``theta`` holds ``Y`` and the learned scalars.  Not finite: diverged.
    Finite, but so far apart that a squared distance between two rows of
    ``Y`` could overflow float64: diverged, caught before any kernel sees
    it.  The cheap bound ``dim * range(theta)**2`` decides almost always;
    only near the limit are the column ranges measured.
    """
    spread = _range(theta)
    if not np.isfinite(spread):
        return "the coordinates are no longer finite"
    if spread < np.sqrt(MAX_SQUARED_DISTANCE / max(Y.shape[1], 1)):
        return None
    if coordinate_span_overflows(Y):
        return (f"the coordinates range over {spread:.3g}: squared distances would "
                "overflow float64")
    return None


class _Checkpoint:
    """The last good state of a run: where a recovery goes back to."""

    def __init__(self, iteration, theta, cost):
        self.iteration, self.theta, self.cost = iteration, theta.copy(), cost


class _DivergenceWatch:
    """Decides, at each cost evaluation, whether the run is diverging.

    ``best`` is the lowest cost seen while ``P`` is not exaggerated;
    ``rising_since`` the iteration of the first evaluation of the current
    stretch more than :data:`RISE_TWICE` above it (None outside one).
    """

    def __init__(self, settings):
        self.settings = settings
        self.best = None
        self.rising_since = None

    def judges(self, it):
        """Whether the rise rule applies at iteration ``it`` (``P`` not exaggerated)."""
        return self.settings.exaggeration_at(it) == 1.0

    def reset(self, best):
        self.best, self.rising_since = best, None

    def check(self, it, cost):
        """A reason string if the run diverges at this evaluation, else None."""
        if not np.isfinite(cost):
            return f"the cost is {cost}"
        if not self.judges(it):
            # a rise seen before exaggeration does not last through it
            self.rising_since = None
            return None
        if self.best is None or cost <= self.best:
            self.reset(cost)
            return None
        return self._judge_rise(it, cost)

    def _judge_rise(self, it, cost):
        """The rise rule for a cost above ``best``: a reason string, or None."""
        scale = max(abs(self.best), RISE_FLOOR * self.settings.cost_scale, 1e-300)
        rise = (cost - self.best) / scale
        if rise > RISE_ONCE:
            return f"the cost rose from {self.best:.6g} to {cost:.6g}"
        if rise <= RISE_TWICE:
            self.rising_since = None
            return None
        if self.rising_since is None:
            self.rising_since = it
        lasted = it - self.rising_since
        if lasted >= RISE_PATIENCE:
            return (f"the cost rose from {self.best:.6g} to {cost:.6g} and stayed more than "
                    f"{RISE_TWICE:.0%} above it for {lasted} iterations")
        return None


def check_starting_layout(Y, name="the initial layout (init)", remedy=None):
    """Refuse a start whose rows differ but whose squared distances all underflow.

    From there every output kernel sees a single point and the run would
    end where it began (:func:`smallvis._validation.coordinate_span_underflows`).
    An ``init`` array is refused earlier, by name; this catches a named
    initialisation of data of such a size (``init="pca"`` keeps the units
    of ``X``).  A caller whose layout ``init`` does not set passes its own
    ``name`` and ``remedy`` (:func:`smallvis._validation.tiny_span_message`).
    """
    if coordinate_span_underflows(Y):
        raise ValueError(tiny_span_message(Y, name, array=False, remedy=remedy))


def _starting_cost(Y, learned, cost, watch, settings):
    """The cost at the start, the first baseline of the rise rule; None when exaggerated.

    Without exaggeration a run is judged from its first iteration: a cost
    that has doubled by the first evaluation (or risen by 10% twice) is a
    rising cost, although no lower cost was evaluated on the way.  A
    starting cost that is not finite gives no baseline, nor does a run
    that never evaluates its cost (``cost_every=None``).
    """
    if not watch.judges(1) or settings.cost_every is None:
        return None
    with _judged_by_the_guard():
        start = cost(Y, learned)
    if not np.isfinite(start):
        return None
    watch.reset(start)
    return start


def _learning_rates(settings, row_learning_rate, Y, n_learned):
    """The learning rate of every entry of theta: a float, or one per entry.

    ``row_learning_rate`` (one per row of ``Y``) replaces
    ``settings.learning_rate`` for the coordinates of each row; learned
    scalars keep ``settings.learning_rate``.
    """
    if row_learning_rate is None:
        return settings.learning_rate
    if settings.recover:
        raise ValueError("row_learning_rate needs settings.recover=False: a run with one "
                         "learning rate per row does not recover from divergence")
    rates = np.asarray(row_learning_rate, dtype=np.float64)
    if rates.shape != (Y.shape[0],):
        raise ValueError(f"row_learning_rate must have one entry per row of Y "
                         f"({Y.shape[0]}); got shape {rates.shape}")
    return np.concatenate([np.repeat(rates, Y.shape[1]),
                           np.full(n_learned, float(settings.learning_rate))])


def _recentre(Yv, ones):
    """Subtract the column means of ``Yv`` in place, column by column.

    (n, dim) broadcasting is slow in NumPy.
    """
    centre = (ones @ Yv) / Yv.shape[0]
    for d in range(Yv.shape[1]):
        Yv[:, d] -= centre[d]


def _nonfinite_gradient(G):
    """A reason string when the gradient is not finite, else None."""
    return None if np.all(np.isfinite(G)) else "the gradient is not finite"


def _evaluates_cost(settings, it):
    """Whether iteration ``it`` evaluates the cost."""
    every = settings.cost_every
    return every is not None and (it % every == 0 or it == settings.n_iter)


def optimize_exact(Y, gradient, cost, settings, *, learned=None, callback=None,
                   verbose=False, row_learning_rate=None, rule=None, row_damping=None):
    """Run delta-bar-delta gradient descent in place on ``Y`` (and ``learned``).

    Parameters
    ----------
    Y : ndarray of shape (n_samples, n_components)
        Initial coordinates; updated in place.
    gradient : callable
        ``gradient(Y, learned, exaggeration, out)`` writes the gradient in
        ``Y``, with ``P`` multiplied by the float ``exaggeration`` (1.0: the
        true ``P``; :meth:`OptimizerSettings.exaggeration_at`), into ``out``
        and returns the gradient in ``learned`` (an array like ``learned``,
        or None when there is nothing learned).
    cost : callable or None
        ``cost(Y, learned)`` returns the cost with the true ``P``; None
        only with ``settings.cost_every=None``.
    settings : OptimizerSettings
    learned : ndarray of shape (n_learned,) or None
        Extra scalars optimised with ``Y``; updated in place.
    callback : callable or None
        ``callback(iteration, Y, cost)``; return True to stop.
    verbose : bool
        Print a progress line (iteration, cost, elapsed time, ETA) at every
        cost evaluation, and a line for every recovery.
    row_learning_rate : ndarray of shape (n_samples,) or None
        A learning rate per row of ``Y``, in place of
        ``settings.learning_rate`` (placing new points: module docstring);
        needs ``settings.recover=False``.
    rule : callable or None
        ``rule(Y, learned)`` sets the learned scalars in place, every
        ``rule.every`` iterations and at the last one; they are then not
        descended (module docstring, "Scalars set by a rule").  None: the
        learned scalars are descended with ``Y``.
    row_damping : callable or None
        ``row_damping(exaggeration, learning_rate)`` returns one factor per
        row of ``Y`` (an array of shape (n_samples, 1)), or None for none;
        each iteration's gradient in ``Y`` is multiplied by the factors for
        that iteration's exaggeration and learning rate (halvings and the
        late phase's rate included) before the step, which is the same as
        a rate per row (the gains see only the gradient's signs).  Not with
        ``row_learning_rate``.

    Returns
    -------
    OptimizerTrace

    Raises
    ------
    ValueError
        ``row_learning_rate`` has the wrong shape or comes with
        ``settings.recover=True`` or ``row_damping``.
    DivergenceError
        The run diverged again after :data:`MAX_RECOVERIES` halvings of the
        learning rate (module docstring, "Divergence guard"), or at all with
        ``settings.recover=False``.
    """
    s = settings
    if s.check_collapse:
        check_starting_layout(Y)
    trace = OptimizerTrace()
    if learned is None:
        learned = np.zeros(0)
    # one flat parameter vector: Y's entries, then the learned scalars
    theta = np.concatenate([Y.ravel(), learned])
    Yv = theta[:Y.size].reshape(Y.shape)
    Lv = theta[Y.size:]
    G = np.empty_like(theta)
    GY = G[:Y.size].reshape(Y.shape)
    step = _DeltaBarDelta(theta.size, s.min_gain, s.max_step)
    ones = np.ones(Y.shape[0])
    start = time.perf_counter()
    previous_cost = None
    late = s.late_exaggeration_starts()
    # the late phase's rate, kept in proportion through the guard's halvings
    late_rate_scale = (1.0 if s.late_learning_rate is None
                       else s.late_learning_rate / s.learning_rate)
    # tol never stops a run before late exaggeration has started and settled
    tol_from = max(s.exaggeration_ends(), 0 if late is None else late) + TOL_WAIT
    learning_rate = _learning_rates(s, row_learning_rate, Y, Lv.size)
    if row_damping is not None and row_learning_rate is not None:
        raise ValueError("row_damping and row_learning_rate cannot be combined")
    watch = _DivergenceWatch(s)
    good = _Checkpoint(0, theta, _starting_cost(Y, learned, cost, watch, s))
    it = 0
    while it < s.n_iter:
        it += 1
        with _judged_by_the_guard():
            g_learned = gradient(Yv, Lv, s.exaggeration_at(it), GY)
        if Lv.size:
            # a scalar that its rule sets is no coordinate of the descent
            G[Y.size:] = 0.0 if rule is not None else g_learned
        diverged = _nonfinite_gradient(G) if s.check_gradient else None
        current = None
        if diverged is None:
            mu = s.momentum if it <= s.momentum_switch_iter else s.final_momentum
            rate = (learning_rate * late_rate_scale if late is not None and it > late
                    else learning_rate)
            factors = (None if row_damping is None
                       else row_damping(s.exaggeration_at(it), rate))
            if factors is not None:
                GY *= factors
            with _judged_by_the_guard():
                theta += step(G, rate, mu)
                if s.recentre:
                    _recentre(Yv, ones)
            diverged = _diverged_coordinates(theta, Yv)
        if diverged is None and _evaluates_cost(s, it):
            Y[...] = Yv
            learned[...] = Lv
            with _judged_by_the_guard():
                current = cost(Y, learned)
            diverged = watch.check(it, current)
        if diverged is not None:
            if not s.recover:
                error = DivergenceError(f"the optimisation diverged at iteration {it} "
                                        f"({diverged})")
                error.iteration, error.reason = it, diverged
                raise error
            learning_rate = _recover(trace, it, diverged, good, theta, step, learning_rate,
                                     watch, verbose)
            it, previous_cost = good.iteration, good.cost
            continue

        Y[...] = Yv
        learned[...] = Lv
        trace.n_iter = it
        if current is not None:
            trace.iterations.append(it)
            trace.costs.append(current)
            if not watch.judges(it) or current <= watch.best:
                good = _Checkpoint(it, theta, current)
            if verbose:
                _progress(it, s.n_iter, current, start)
            if previous_cost is not None and s.tol > 0 and it > tol_from:
                scale = min(abs(current), abs(previous_cost))
                change = abs(current - previous_cost) / scale if scale > 0 else 0.0
                if (change / s.cost_every < s.tol and current <= previous_cost
                        and not _collapsed(Y, max(TOL_MIN_SQUARED_SPAN, s.tol))):
                    trace.stopped_early = True
                    if callback is not None:
                        callback(it, Y, current)
                    break
            previous_cost = current
        if rule is not None and (it % rule.every == 0 or it == s.n_iter):
            with _judged_by_the_guard():
                rule(Yv, Lv)
            learned[...] = Lv
        if callback is not None and callback(it, Y, current):
            trace.stopped_early = True
            break
    if s.check_collapse:
        _warn_if_collapsed(Y, trace.n_iter)
    _warn_if_recovered(trace, s.learning_rate)
    return trace


def _judged_by_the_guard():
    """Silence floating-point warnings of a step or an evaluation the guard judges.

    An overflow or invalid value there gives a coordinate, gradient or cost
    that is not finite, which the divergence guard sees and recovers from
    (or reports with :class:`DivergenceError`); NumPy's own warnings about
    it would only show the user a library line in the middle of a run.
    """
    return np.errstate(over="ignore", invalid="ignore", divide="ignore")


def _warn_if_recovered(trace, learning_rate):
    """One ``RuntimeWarning`` for a run that recovered from divergence.

    The run went on with a smaller learning rate than the one asked for;
    ``trace.recoveries`` lists each halving.
    """
    if not trace.recoveries:
        return
    n = len(trace.recoveries)
    first, now = trace.recoveries[0], trace.recoveries[-1]["learning_rate"]
    warning = RuntimeWarning(
        f"the run diverged and recovered {n} time{'s' if n > 1 else ''} (first at iteration "
        f"{first['iteration']}: {first['reason']}) by halving the learning rate from "
        f"{learning_rate:.3g} to {now:.3g}; pass a smaller learning_rate= to avoid it "
        f"(from Python, result.recoveries lists each)")
    # the option the advice names, which the command line spells --learning-rate
    warning.options = ("learning_rate",)
    warn_from_caller(warning)


#: A layout whose squared distances are all below this (float64's relative
#: precision) gives every output weight its value at distance 0.
COLLAPSED_SQUARED_SPAN = np.finfo(np.float64).eps


def _collapsed(Y, squared_span=COLLAPSED_SQUARED_SPAN):
    """True when rows of ``Y`` differ but every squared distance is below ``squared_span``.

    Below float64's relative precision (the default) every output weight
    equals its value at distance 0: the cost is flat to rounding there.
    The ``tol`` rule asks with ``squared_span`` :data:`TOL_MIN_SQUARED_SPAN`
    (or ``tol`` if larger): the output weights differ from their values at
    0 by about the squared distances, so the cost of so small a layout
    hardly changes however the points move, and an unchanged cost is not
    convergence.
    """
    return squared_span_bound(Y) < squared_span and bool(np.any(np.ptp(Y, axis=0)))


def _warn_if_collapsed(Y, n_iter):
    """Warn when the returned layout's rows differ but every output kernel sees one point.

    A run from a very small start can end there when ``n_iter`` runs out
    before the points spread (``tol`` does not stop a collapsed run).
    """
    if _collapsed(Y):
        warn_not_laid_out(Y, n_iter, "n_iter", "equals")


def _recover(trace, it, reason, good, theta, step, learning_rate, watch, verbose):
    """Go back to ``good`` with half the learning rate; return the new rate."""
    if len(trace.recoveries) >= MAX_RECOVERIES:
        raise DivergenceError(
            f"the optimisation diverged at iteration {it} ({reason}) even after "
            f"{MAX_RECOVERIES} halvings of the learning rate (now {learning_rate:.3g}); "
            "lower the learning_rate, or start from smaller coordinates (init)"
        )
    learning_rate = learning_rate / 2.0
    trace.recoveries.append({"iteration": it, "restart": good.iteration, "reason": reason,
                             "learning_rate": learning_rate})
    if verbose:
        print(f"smallvis: diverging at iteration {it} ({reason}); going back to "
              f"iteration {good.iteration} with learning rate {learning_rate:.4g}",
              file=sys.stderr, flush=True)
    theta[...] = good.theta
    step.update[...] = 0.0
    step.gains[...] = 1.0
    # a state evaluated with the true P (or the start of a run that begins
    # without exaggeration) is the new baseline; during exaggeration there is none
    judged = watch.judges(max(good.iteration, 1))
    watch.reset(good.cost if judged else None)
    # forget what was recorded after the good state
    keep = sum(1 for i in trace.iterations if i <= good.iteration)
    del trace.iterations[keep:], trace.costs[keep:]
    trace.n_iter = good.iteration
    return learning_rate
