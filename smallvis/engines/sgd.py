"""The stochastic optimizer: one edge- and negative-sampling engine for all methods.

A method with a stochastic form carries an :class:`SgdSpec` in its entry
(``smallvis/methods/<name>/method.py``, collected in
:data:`smallvis.registry.METHODS`), with its own epoch budget and early
phase.  The spec names the method's per-edge
coefficient (a method unit's ``sgd_coefficient`` or ``sgd_grouped``, such as
``"umap"`` for :math:`1/(1 + a d^{2b})` or ``"cauchy"`` for
:math:`1/(1 + d^2)`), its sampling scheme and its defaults; everything else
(sampling, schedule, threads, randomness) is written once, in the twin
kernels ``sgd_epochs`` of :mod:`smallvis.backends.reference` (a readable
per-edge loop, defined in :mod:`smallvis.backends._sgd_reference`) and
:mod:`smallvis.backends._sgd_kernels` (Cython).  The coefficients are the
method units' own functions (:mod:`smallvis.methods`), collected by name in
``smallvis.backends.reference.SGD_COEFFICIENTS`` and ``SGD_GROUPS``;
derivations in docs/theory.md.

Sampling schemes
----------------
``"epochs_per_sample"`` (umap, tumap; umap-learn)
    Edge ``(i, j)`` with membership ``v_ij`` is sampled every
    ``v_max / v_ij`` epochs (``v_max`` the largest membership); edges with
    ``v_ij < v_max / n_epochs`` are dropped.  Epoch ``e = 0, 1, ...`` samples the edges whose next sample is
    due at or before ``e + 1`` (umap-learn compares with ``e`` and so skips
    its first epoch entirely; here the strongest edges are sampled in every
    one of the ``n_epochs`` epochs).  Each sample draws
    ``negative_sample_rate = 5`` negatives on average (the same
    bookkeeping), uniformly over all points; a negative equal to the head
    is at distance 0 and skipped, as in umap-learn.  The tail moves
    opposite to the head, negatives do not move, each gradient component is
    clipped to ±4 before it is multiplied by the learning rate
    ``alpha_e = alpha_0 (1 - e / n_epochs)``.
``"alias"`` (largevis; the LargeVis reference code)
    Each epoch draws ``n_samples`` edges in proportion to ``p_ij`` (Walker's
    alias table), so that every point is, on average, the head of one
    positive sample per epoch.  Each sample draws 5 negatives in proportion
    to the weighted degree ``(sum_j p_ij)^0.75`` (a second alias table),
    skipping a negative equal to the positive's tail.  The tail and the
    negatives move at once (by the clipped step computed from the head's
    old position); the head's steps are summed and applied after its
    negatives.  Clip ±5 before the step; ``alpha_e = alpha_0 max(1 - e /
    n_epochs, 1e-4)``.
``"every_edge"`` (ncvis, negtsne, infonce; the NCVis reference code)
    Every edge once per epoch, with the epoch's number of uniform noise
    samples (``noise_schedule``: NCVis's cubic schedule, below, or a
    constant count) drawn from the points other than the head.

The learned normalisation (NCVis)
---------------------------------
NCVis (Artemenkov & Panov 2020) uses the loop with ``scheme="every_edge"``,
``noise="uniform_others"`` (``j != i``, exact: draw in ``[0, N - 1)`` and
skip ``i``), moving negatives and the clip after the step, plus:

* a per-epoch number of noise samples (``n_noise``: linspace(0, 1, E)^3
  rescaled to ``nu * E`` in all, rounded, at least 1 per epoch).  Each
  update divides by its epoch's count, NCVis's ``w' = e^{-Q'} q_hat / nu``,
  as the NCVis reference code does, so the expected update of an epoch is
  the exact gradient of the NCE objective at that epoch's ``nu``
  (``tests/test_sgd.py`` enumerates it);
* a learned scalar ``q`` updated after every positive and negative sample
  by ``q += q_learning_rate * dJ/dQ``; each coefficient receives
  ``q + q_offset[i]``, where ``q_offset`` is the per-row ``log p_i^-`` of
  ``correct_q=True`` (J. Melville's notes on NCVis; docs/theory.md) or
  empty;
* the learning rate ``alpha (1 - (e / E)^2)`` (an array, ``alphas``).

Placing new points: frozen rows
-------------------------------
:func:`prepare_frozen` builds the problem of placing new points into a
fitted layout (umap-learn's transform; :mod:`smallvis.transform`) for the
same loop: the rows are the new points, then the training points, which
no step moves (``n_free``: the number of rows that move; a tail or negative
from ``n_free`` on stays put).  Each new point is the head of its edges to
the training points, scheme ``"epochs_per_sample"`` with each row scaled by its
own strongest edge, and its negatives are drawn uniformly from the
training rows (noise ``"reference"``, ``FROZEN_NOISE``).  Each edge
carries its own random key (``edge_key``, from its point's key and its
place in the point's row) in place of its index, so that a point's draws,
and with one thread its whole path, do not depend on the other new points.
The coefficient, clip, switches, learning rate and decay are the method's
spec's; the learned normalisation stays at its fitted value.

Randomness and threads
----------------------
Every random draw is a pure function of ``(seed, epoch, edge or sample,
draw index)`` (:func:`smallvis.backends.reference.counter_random`, splitmix64 mixing;
integers by Lemire's multiply-shift, doubles from the top 53 bits), computed
identically by both kernels.  Hence:

* the NumPy and Cython loops make the same draws and, with one thread, the
  same floating-point operations in the same order: they agree bit for bit
  (the Cython loop is compiled without the flags that would let the
  compiler regroup its arithmetic; see :mod:`smallvis.backends._sgd_kernels`);
* with one thread the items of an epoch run in order, in place; with
  ``T > 1`` threads every epoch runs a fixed schedule: each thread runs its
  contiguous share of the epoch's items on its own copy of ``Y`` and ``q``,
  and at the epoch's end the copies' changes are added into ``Y`` in
  thread order (``q`` takes their mean; see
  :func:`smallvis.backends.reference.sgd_epochs`).  The NumPy loop runs the
  same schedule one share after another, so the twins agree bit for bit
  at any thread count;
* hence the same ``random_state`` and thread count give the same ``Y``, bit
  for bit, on every run, and running the epochs in blocks gives the same
  result as one long run.  A different thread count gives a different
  map, of the same quality (docs/experiments.md, 2026-12-02).  The thread
  count of a run is decided once, from its positive samples per epoch
  (:func:`positive_samples_per_epoch`, :mod:`smallvis._threads`), so that
  the blocks (callbacks, the early phase) cannot change it.  With several
  threads the Cython loop draws a sample's first negatives before its
  positive step and asks the cache for their rows, and for the tail row of
  the edge a few places ahead; these hints change no number, only how long
  a thread waits for a row (docs/experiments.md, 2026-11-23).
"""

import math
import sys
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Mapping, Optional

import numpy as np
import scipy.sparse as sp

from .. import _threads
from .._validation import ParameterError, squared_span_bound, warn_not_laid_out
from .optim import DivergenceError, check_starting_layout
from ..backends._sgd_reference import (ENGINE_NOISES, FROZEN_NOISE, SGD_COEFFICIENTS, SGD_GROUPS,
                                      SGD_NOISES, SGD_SCHEMES, _absorb)

#: Every step the loop runs by name: the per-pair coefficients and the
#: grouped steps (``SgdSpec.coefficient``).
SGD_STEPS = {**SGD_COEFFICIENTS, **SGD_GROUPS}

#: ``optimizer="auto"`` uses the exact optimizer up to this many points and
#: the stochastic one above: the default of :attr:`SgdSpec.auto_min_n`,
#: which a method's stochastic form may set otherwise (umap, tumap and
#: ncvis: 1,000; infonce: 0).
AUTO_SGD_MIN_N = 5000

#: With the stochastic optimizer the exact cost of the final ``Y`` (an
#: O(N^2) evaluation) is reported only up to this many points; above, the
#: result's ``cost`` is a sampled estimate (:mod:`smallvis.engines.sampled_cost`).
SGD_COST_MAX_N = 5000

OPTIMIZERS = ("auto", "exact", "sgd")

#: Points and edges are indexed by int32 in the stochastic optimizer (half
#: the memory of int64 for its per-edge arrays): at most this many.
MAX_INDEX = 2 ** 31 - 1

#: LargeVis's exponent of the weighted degree in the negative-sampling
#: distribution (as word2vec).
DEGREE_POWER = 0.75


@dataclass(frozen=True)
class SgdSpec:
    """The stochastic form of a method (a field of its registry entry).

    Attributes
    ----------
    coefficient : str
        Per-edge attraction/repulsion coefficients, a key of :data:`SGD_STEPS`
        (one per unit that has a stochastic form, discovered): a key of
        ``smallvis.backends.reference.SGD_COEFFICIENTS`` (a unit's
        ``sgd_coefficient``) or of ``SGD_GROUPS`` (a unit's ``sgd_grouped``,
        whose sample computes its positive and negatives together); see
        :func:`smallvis.backends.reference.sgd_epochs`.
    scheme : {"epochs_per_sample", "alias", "every_edge"}
        How positive edges are sampled (module docstring).
    noise : {"uniform", "uniform_others", "degree"}
        Distribution of the negatives.
    n_epochs : callable
        ``n_epochs(n_samples)``: the default number of epochs.
    unit_params : callable
        ``unit_params(**cost_params) -> dict``: the coefficient unit's
        fields from the method's cost parameters (a field left out takes
        the unit's default or :data:`SGD_FIELD_DEFAULTS`), and
        ``n_negative`` (default: the spec's); raises ``ValueError`` for
        settings without a stochastic form.
    n_negative : int
        Negatives per positive sample (the mean of the noise schedule).
    clip : float
        Bound of each clipped gradient (or step) component.
    learning_rate : float
        Initial learning rate ``alpha_0``.
    min_learning_rate : float
        Floor of the linear decay, as a fraction of ``alpha_0``.
    move_negatives, defer_head, skip_tail, clip_after_step : bool
        Switches of the loop (see ``sgd_epochs``).
    init : str
        Default initialisation, a named init
        (:func:`smallvis.engines.init.check_init`): e.g. ``"spectral:30"``
        for the spectral layout of each point's 30 strongest entries of
        ``P`` (largevis: a smaller eigenproblem than its 60 neighbours'),
        lowered to ``n_samples - 1`` entries on fewer points
        (:func:`smallvis.engines.init.sized_init`: the same graph).
    param_defaults : mapping
        Method parameters whose default differs under the stochastic
        optimizer (e.g. largevis's ``gamma``).
    neighbours_per_perplexity : float, optional
        For a method calibrated to a ``perplexity`` over ``n_neighbors``
        neighbours: the stochastic form's default ``n_neighbors``,
        ``floor(neighbours_per_perplexity * perplexity)`` (at most
        ``n_samples - 1``), in place of the calibration's own three per
        unit of perplexity, when neither ``n_neighbors`` nor ``knn`` is
        given.  None (the default): the calibration's.
    early_phase : callable, optional
        ``early_phase(n_epochs, **cost_params)`` gives ``(cost_params,
        early)``: the cost parameters as run (the phase's resolved, for the
        record) and ``early = (unit_params, n_early)``, the first
        ``n_early`` epochs running with these coefficient parameters instead
        of ``unit_params`` (largevis: ``early_gamma`` in place of
        ``gamma``), or None for no early phase.  None (the default): no
        method parameter makes one.
    sgd_only_params : tuple of str
        Method parameters that only the stochastic form reads (the early
        phase's); the exact optimizer ignores them, with a warning when one
        is given.
    decay : {"linear", "quadratic"}
        Learning-rate schedule: ``alpha_0 max(1 - e/E, min)`` or
        ``alpha_0 (1 - (e/E)^2)`` (NCVis).
    noise_schedule : {"constant", "cubic"}
        Negatives per positive in each epoch: ``n_negative`` throughout, or
        NCVis's ``linspace(0, 1, E)^3`` rescaled to ``n_negative * E`` in
        all, rounded, at least 1.
    q_learning_rate : float
        Step of the learned normalisation (NCVis's ``alpha_Q``); 0: none.
    auto_min_n : int
        ``optimizer="auto"`` takes this stochastic form above this many
        points (:data:`AUTO_SGD_MIN_N`; 0: at every size, for a method whose
        exact gradient is too slow to be a default).
    auto_min_n_line : int or None
        The same for one-dimensional maps (``n_components=1``); None: as
        ``auto_min_n``.  On a line the exact optimizer cannot move a point
        past its neighbours, and a repulsion that grows without bound as
        two points meet holds each class in the pieces the start left it
        in; the stochastic form's clipped steps jump over them.
    exact_cost_max_n : int
        The run reports the exact cost of the final ``Y`` up to this many
        points (:data:`SGD_COST_MAX_N`), an estimate above.
    """

    coefficient: str
    scheme: str
    noise: str
    n_epochs: Callable
    unit_params: Callable
    n_negative: int = 5
    clip: float = 4.0
    learning_rate: float = 1.0
    min_learning_rate: float = 0.0
    move_negatives: bool = False
    defer_head: bool = False
    skip_tail: bool = False
    clip_after_step: bool = False
    init: str = "spectral"
    param_defaults: Mapping = field(default_factory=dict)
    neighbours_per_perplexity: Optional[float] = None
    early_phase: Optional[Callable] = None
    sgd_only_params: tuple = ()
    decay: str = "linear"
    noise_schedule: str = "constant"
    q_learning_rate: float = 0.0
    auto_min_n: int = AUTO_SGD_MIN_N
    auto_min_n_line: Optional[int] = None
    exact_cost_max_n: int = SGD_COST_MAX_N

    def __post_init__(self):
        for name, value, allowed in (("coefficient", self.coefficient, SGD_STEPS),
                                     ("scheme", self.scheme, SGD_SCHEMES),
                                     ("noise", self.noise, SGD_NOISES)):
            if value not in allowed:
                raise ValueError(f"SgdSpec {name} must be one of {', '.join(allowed)}; "
                                 f"got {value!r}")


def noise_counts(n_epochs, n_negative, schedule):
    """Negatives per positive sample in each epoch (see :class:`SgdSpec`).

    ``n_negative`` is the mean; a count is rounded and at least 1.
    """
    if schedule == "constant" or n_epochs == 1:
        return np.full(n_epochs, max(1, int(np.rint(n_negative))), dtype=np.int64)
    ramp = np.linspace(0.0, 1.0, n_epochs) ** 3
    counts = np.rint(ramp / ramp.sum() * n_negative * n_epochs)
    return np.maximum(counts, 1).astype(np.int64)


def learning_rates(n_epochs, learning_rate, decay, floor=0.0):
    """The learning rate of each epoch (see :class:`SgdSpec`)."""
    e = np.arange(n_epochs) / n_epochs
    if decay == "quadratic":
        return learning_rate * (1.0 - e ** 2)
    return learning_rate * np.maximum(1.0 - e, floor)


def choose_optimizer(method, optimizer, n_samples, stochastic_methods=(), n_components=2):
    """Resolve ``optimizer`` ("auto", "exact" or "sgd") for ``method``.

    ``stochastic_methods`` names the methods that have a stochastic form,
    for the error message (the engine does not read the registry).
    "auto" takes the stochastic form above its ``auto_min_n`` points, or
    above ``auto_min_n_line`` for a map of ``n_components=1`` when the
    form gives one (:class:`SgdSpec`).
    """
    if not isinstance(optimizer, str) or optimizer not in OPTIMIZERS:
        raise ParameterError(f"optimizer must be one of "
                             f"{', '.join(map(repr, OPTIMIZERS))}; got {optimizer!r}",
                             ("optimizer",))
    if optimizer == "sgd" and method.sgd is None:
        raise ParameterError(
            f"method {method.name!r} has no stochastic form; optimizer='sgd' is "
            f"available for {', '.join(stochastic_methods)}", ("optimizer",))
    if optimizer == "auto":
        if method.sgd is None:
            return "exact"
        limit = method.sgd.auto_min_n
        if n_components == 1 and method.sgd.auto_min_n_line is not None:
            limit = method.sgd.auto_min_n_line
        return "sgd" if n_samples > limit else "exact"
    return optimizer


def alias_table(weights, kernels, *, in_place=False):
    """Walker's alias table for sampling ``i`` in proportion to ``weights``.

    Draw a column ``c`` uniformly and a uniform ``u``: the sample is ``c`` if
    ``u < prob[c]``, else ``alias[c]`` (construction: the twin kernel
    ``alias_table``).

    Parameters
    ----------
    weights : ndarray of shape (n,)
        Non-negative and finite, with a positive sum.
    kernels : module
        The kernel module.
    in_place : bool, default=False
        Build ``prob`` in ``weights`` itself (float64 and contiguous), whose
        values are then lost: the same bits without a second array of the
        size of the weights.

    Returns
    -------
    prob : ndarray of float64, shape (n,)
    alias : ndarray of int32, shape (n,)
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or len(w) == 0:
        raise ValueError("alias-table weights must be a non-empty 1-D array")
    # checked by reductions, without temporaries of the size of w (a NaN
    # makes the minimum NaN, an infinity the sum): all finite and >= 0
    with np.errstate(over="ignore"):  # an overflow is refused just below
        total = w.sum()
    if not (w.min() >= 0 and np.isfinite(total) and total > 0):
        raise ValueError("alias-table weights must be finite, non-negative, with a "
                         "positive (finite) sum")
    if len(w) > MAX_INDEX:
        raise ValueError(f"alias tables hold at most 2**31 - 1 entries; got {len(w)}")
    # the kernel works in place on the scaled weights (mean 1)
    if in_place and not (w is weights and w.flags.c_contiguous and w.flags.writeable):
        raise ValueError("in_place needs writeable, contiguous float64 weights")
    prob = np.multiply(w, len(w) / total, out=w if in_place else None)
    alias = np.empty(len(w), dtype=np.int32)
    kernels.alias_table(prob, alias)
    return prob, alias


#: Edges per call of np.bincount in :func:`_row_sums` (its row numbers are
#: 8 bytes per edge: 0.5 MB).
_ROW_SUM_CHUNK = 1 << 16


def _select_edges(indptr, keep):
    """The CSR row pointers of the edges where ``keep`` is True.

    Each pointer moves back by the dropped edges before it (found by
    search: no running count over all edges).
    """
    dropped = np.flatnonzero(~keep)
    return indptr - np.searchsorted(dropped, indptr)


def _row_sums(indptr, w):
    """Row sums of the CSR values ``w``: ``np.bincount(rows, weights=w)``, the same bits.

    ``rows`` (each edge's row, from ``indptr``) is never formed whole (at
    13 million edges it and bincount's intp copy of it are 150 MB): the
    rows are summed in chunks of whole rows, each row by one call of
    bincount, which adds its values in order from 0 as on the whole array.
    """
    n = len(indptr) - 1
    out = np.zeros(n)
    r0 = 0
    while r0 < n:
        # rows r0 .. r1 - 1: at most _ROW_SUM_CHUNK edges, or one longer row
        r1 = int(np.searchsorted(indptr, indptr[r0] + _ROW_SUM_CHUNK, side="right")) - 1
        r1 = min(n, max(r0 + 1, r1))
        counts = np.diff(indptr[r0:r1 + 1])
        ids = np.repeat(np.arange(r1 - r0), counts)
        out[r0:r1] = np.bincount(ids, weights=w[indptr[r0]:indptr[r1]], minlength=r1 - r0)
        r0 = r1
    return out


@dataclass
class SgdProblem:
    """Everything the kernel ``sgd_epochs`` reads, built once by :func:`prepare`.

    The attributes are documented in :func:`smallvis.backends.reference.sgd_epochs`;
    ``state`` and ``q`` are updated in place by the runs.
    """

    # the edges and the noise distribution
    head: np.ndarray
    tail: np.ndarray
    indptr: np.ndarray
    edge_weight: np.ndarray
    edge_alias: np.ndarray
    noise_prob: np.ndarray
    noise_alias: np.ndarray
    # the schedule
    n_epochs: int
    alphas: np.ndarray
    n_noise: np.ndarray
    # updated in place
    state: np.ndarray
    q: np.ndarray
    q_offset: np.ndarray
    # the method: its coefficient (a unit) and the unit's fields, sampling
    # and switches
    coefficient: str
    params: tuple
    n_others: int
    scheme: str
    noise: str
    samples_per_epoch: int
    clip: float
    clip_after_step: bool
    move_negatives: bool
    defer_head: bool
    skip_tail: bool
    q_learning_rate: float
    # placing new points (see prepare_frozen): rows from n_free on never
    # move; each edge's own random key (empty: its index)
    n_free: int = MAX_INDEX
    edge_key: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    # an early phase: the first early_epochs epochs run with early_params
    # in place of params (the driver, optimize_sgd, swaps them; the kernels
    # read params only)
    early_params: tuple = ()
    early_epochs: int = 0


#: Defaults of the coefficient units' fields that ``unit_params`` may leave
#: out: the weight's shape ``a = b = 1`` (the Cauchy weight), ``gamma = 1``
#: (umap-learn's repulsion strength), ``eps = 0``, LargeVis's ``alpha = 1``
#: and NCVis's ``Q = 0`` and ``nu = 1`` (the loop passes its own ``Q'`` and
#: each epoch's noise count).
SGD_FIELD_DEFAULTS = {"a": 1.0, "b": 1.0, "gamma": 1.0, "eps": 0.0, "alpha": 1.0, "Q": 0.0,
                      "nu": 1.0}


def coefficient_params(spec, unit_params):
    """The coefficient unit's fields and ``n_negative``: ``unit_params`` over the defaults.

    A field missing from ``unit_params`` takes the unit's own default or
    :data:`SGD_FIELD_DEFAULTS`; ``n_negative`` defaults to the spec's (see
    :class:`SgdSpec`).  A name of :data:`SGD_FIELD_DEFAULTS` that the unit
    does not have is ignored (the engine's common parameters); other names
    that are neither a field of the spec's unit nor ``n_negative`` are
    refused.

    Returns
    -------
    params : tuple of float
        The unit's fields, in order (``SgdProblem.params``).
    n_negative : float
    """
    unit = SGD_STEPS[spec.coefficient]
    unknown = set(unit_params) - set(unit._fields) - set(SGD_FIELD_DEFAULTS) - {"n_negative"}
    if unknown:
        raise ValueError(f"unknown SGD kernel parameters: {', '.join(sorted(unknown))}")
    values = {**SGD_FIELD_DEFAULTS, **unit._field_defaults, **unit_params}
    missing = [name for name in unit._fields if name not in values]
    if missing:
        raise ValueError(f"SGD kernel parameters missing: {', '.join(missing)}")
    return (tuple(float(values[name]) for name in unit._fields),
            values.get("n_negative", spec.n_negative))


def prepare(spec, P, n_epochs, unit_params, learning_rate, kernels, *, q0=0.0,
            correct_q=False, early=None, consume_values=False):
    """Edges, tables, schedule and state for running ``spec`` on ``P``.

    Parameters
    ----------
    spec : SgdSpec
    P : ndarray or sparse matrix of shape (n_samples, n_samples)
        Validated affinities (symmetric, zero diagonal).
    n_epochs : int
    unit_params : mapping
        The coefficient's parameters (see :class:`SgdSpec`).
    learning_rate : float
        ``alpha_0``.
    kernels : module
        The kernel module (builds the alias tables).
    q0 : float, default=0.0
        Starting value of the learned normalisation (NCVis's ``Q``).
    correct_q : bool, default=False
        Add the per-row correction ``log p_i^-`` (``p_i^-`` the row sum of
        ``P`` over ``N - 1``) to the normalisation a head sees (module
        docstring).
    early : tuple (mapping, int), optional
        ``(early_unit_params, n_early)``: the first ``n_early`` epochs
        use these coefficient parameters (``SgdSpec.early_phase``).
    consume_values : bool, default=False
        ``P`` is a CSR matrix that nothing reads after this call, so the
        alias scheme may build its edge table in ``P.data`` (whose values
        are then lost): 8 bytes per edge less at the optimizer's peak, the
        same samples.

    Returns
    -------
    SgdProblem
    """
    n = P.shape[0]
    if n > MAX_INDEX:
        raise ValueError(f"the stochastic optimizer supports at most 2**31 - 1 points; "
                         f"got {n}")
    # the edges in row-major order, columns ascending, without copies of
    # P's arrays where none is needed (at 70,000 points and k = 150 there
    # are 15 million edges: each byte per edge is 15 MB)
    M = sp.csr_matrix(P)
    M.sum_duplicates()  # sorts and merges; nothing to do for canonical CSR
    if M.nnz > MAX_INDEX:
        raise ValueError(f"the stochastic optimizer supports at most 2**31 - 1 edges; "
                         f"got {M.nnz}")
    indptr, cols, w = M.indptr, M.indices, M.data
    if len(w) and not w.min() > 0:  # a reduction: no boolean array of the edges
        keep = w > 0
        indptr, cols, w = _select_edges(indptr, keep), cols[keep], w[keep]
    empty_f, empty_i = np.zeros(0), np.zeros(0, dtype=np.int32)
    edge_alias, noise_prob, noise_alias = empty_i, empty_f, empty_i
    if spec.scheme == "epochs_per_sample":
        # umap-learn: drop edges too weak to be sampled once in n_epochs.
        strong = w >= w.max() / n_epochs
        indptr, cols, w = _select_edges(indptr, strong), cols[strong], w[strong]
    # the row sums of the edges kept, before an alias table may overwrite w
    row_sums = _row_sums(indptr, w) if spec.noise == "degree" or correct_q else None
    if spec.scheme == "epochs_per_sample":
        edge_weight = w.max() / w
    elif spec.scheme == "alias":
        # w is P's values (or a copy without P's zeros): the caller gave them up
        in_place = (consume_values and w.dtype == np.float64 and w.flags.c_contiguous
                    and w.flags.writeable)
        edge_weight, edge_alias = alias_table(w, kernels, in_place=in_place)
    else:
        edge_weight = np.ones(len(w))
    if len(w) == 0:
        raise ValueError("P has no positive off-diagonal entries: nothing to optimise")
    indptr = np.ascontiguousarray(indptr, dtype=np.int32)
    # the alias scheme looks an edge's head up in indptr (the kernels'
    # sgd_epochs): a head per edge would cost 4 bytes per edge, 60 MB at
    # 70,000 points; the other schemes walk the edges in order
    head = (empty_i if spec.scheme == "alias"
            else np.repeat(np.arange(n, dtype=np.int32), np.diff(indptr)))
    if spec.noise == "degree":
        noise_prob, noise_alias = alias_table(row_sums ** DEGREE_POWER, kernels)
    params, n_negative = coefficient_params(spec, unit_params)
    early_params, early_epochs = (), 0
    if early is not None and early[1] > 0:
        early_params, early_epochs = coefficient_params(spec, early[0])[0], int(early[1])
    q_offset = empty_f
    if correct_q:
        with np.errstate(divide="ignore"):
            q_offset = np.log(row_sums / (n - 1))
        q_offset[~np.isfinite(q_offset)] = 0.0  # isolated points: never heads
    # only epochs_per_sample keeps per-edge state (np.zeros allocates
    # lazily: the pages of an unused state are never touched)
    state = np.zeros((2, len(w)))
    if spec.scheme == "epochs_per_sample":
        state[0] = edge_weight
        state[1] = edge_weight / n_negative
    return SgdProblem(
        head=head, tail=np.ascontiguousarray(cols, dtype=np.int32), indptr=indptr,
        edge_weight=np.ascontiguousarray(edge_weight, dtype=np.float64),
        edge_alias=np.ascontiguousarray(edge_alias, dtype=np.int32),
        noise_prob=noise_prob, noise_alias=noise_alias,
        n_epochs=n_epochs,
        alphas=learning_rates(n_epochs, learning_rate, spec.decay, spec.min_learning_rate),
        n_noise=noise_counts(n_epochs, n_negative, spec.noise_schedule),
        state=state, q=np.array([float(q0)]),
        q_offset=np.ascontiguousarray(q_offset, dtype=np.float64),
        coefficient=spec.coefficient, params=params, n_others=n - 1,
        scheme=spec.scheme, noise=spec.noise, samples_per_epoch=n,
        clip=float(spec.clip), clip_after_step=bool(spec.clip_after_step),
        move_negatives=bool(spec.move_negatives), defer_head=bool(spec.defer_head),
        skip_tail=bool(spec.skip_tail), q_learning_rate=float(spec.q_learning_rate),
        early_params=early_params, early_epochs=early_epochs,
    )


def prepare_frozen(spec, P_new, n_epochs, unit_params, point_keys, *, q=0.0):
    """The problem of placing new points against a frozen reference (umap-learn's transform).

    The rows of the problem are the ``n_new`` new points, then the
    ``n_ref`` training points, which never move (``n_free = n_new``).  Each
    new point ``s`` is the head of its edges to its reference neighbours
    (the positive entries of row ``s`` of ``P_new``), sampled every
    ``max_j p_sj / p_sj`` epochs (``"epochs_per_sample"``, each row scaled
    by its own maximum; an edge whose period exceeds ``n_epochs`` is never
    due and is left out); each sample draws the method's negatives uniformly
    from the training rows (``"reference"`` noise), the constant number
    ``n_negative`` per sample as umap-learn's bookkeeping.  The method's
    spec gives the rest: its coefficient and ``unit_params``, clip,
    ``clip_after_step``, ``defer_head`` and ``skip_tail``, its initial
    learning rate and decay.  The learned normalisation stays at ``q``.

    Every draw of edge ``r`` of point ``s`` is keyed by
    ``(seed, epoch, absorb(point_keys[s], r), draw)``: nothing about a new
    point depends on the other new points (their number, order or values),
    so each point is placed as it would be alone, bit for bit.

    Parameters
    ----------
    spec : SgdSpec
    P_new : sparse matrix of shape (n_new, n_ref)
        The new points' affinities to the training points (CSR, columns
        sorted within each row).
    n_epochs : int
    unit_params : mapping
        The coefficient's parameters (see :class:`SgdSpec`).
    point_keys : ndarray of int64, shape (n_new,)
        A key per new point that does not depend on the batch.
    q : float, default=0.0
        The fitted normalisation (NCVis's ``Q``).

    Returns
    -------
    SgdProblem
        To run on ``vstack([Y_new, Y_train])``.
    """
    M = sp.csr_matrix(P_new)
    n_new, n_ref = M.shape
    if n_new + n_ref > MAX_INDEX or M.nnz > MAX_INDEX:
        raise ValueError("the stochastic optimizer supports at most 2**31 - 1 points "
                         "and edges")
    counts = np.diff(M.indptr)
    rows = np.repeat(np.arange(n_new), counts)
    position = np.arange(M.nnz) - np.repeat(M.indptr[:-1], counts)  # r within its row
    edge_key = _absorb(np.asarray(point_keys, dtype=np.int64)[rows], position)
    row_max = np.zeros(n_new)
    np.maximum.at(row_max, rows, M.data)
    keep = M.data > 0
    rows, w, edge_key = rows[keep], M.data[keep], edge_key[keep]
    if len(w) == 0:
        raise ValueError("P has no positive entries: nothing to optimise")
    params, n_negative = coefficient_params(spec, unit_params)
    n_noise = noise_counts(n_epochs, n_negative, "constant")
    with np.errstate(over="ignore"):  # inf: far too weak to be sampled
        edge_weight = row_max[rows] / w
    # An edge is sampled in epoch e when its period is at most e + 1, so one
    # whose period exceeds n_epochs never is: dropped, as the fit drops the
    # edges weaker than max / n_epochs.  Nothing else changes (each draw is
    # keyed by the edge's place in its row of P_new), and each row keeps its
    # strongest edge (period 1).
    due = edge_weight <= n_epochs
    rows, w, edge_key, edge_weight = rows[due], w[due], edge_key[due], edge_weight[due]
    tails = M.indices[keep][due]
    indptr = np.zeros(n_new + n_ref + 1, dtype=np.int32)
    indptr[1:n_new + 1] = np.cumsum(np.bincount(rows, minlength=n_new))
    indptr[n_new + 1:] = indptr[n_new]
    empty_f, empty_i = np.zeros(0), np.zeros(0, dtype=np.int32)
    return SgdProblem(
        head=rows.astype(np.int32), tail=(tails + n_new).astype(np.int32),
        indptr=indptr, edge_weight=edge_weight, edge_alias=empty_i,
        noise_prob=empty_f, noise_alias=empty_i, n_epochs=n_epochs,
        alphas=learning_rates(n_epochs, spec.learning_rate, spec.decay,
                              spec.min_learning_rate),
        n_noise=n_noise, state=np.ascontiguousarray([edge_weight, edge_weight / n_noise[0]]),
        q=np.array([float(q)]), q_offset=empty_f,
        # a new point is compared with the n_ref training points (docs/theory.md
        # §3.10: Neg-t-SNE's xi = 1 / (N (N + 1))), as the exact transform loads
        coefficient=spec.coefficient, params=params, n_others=n_ref,
        scheme="epochs_per_sample", noise=FROZEN_NOISE, samples_per_epoch=n_new + n_ref,
        clip=float(spec.clip), clip_after_step=bool(spec.clip_after_step),
        move_negatives=False, defer_head=bool(spec.defer_head),
        skip_tail=bool(spec.skip_tail), q_learning_rate=0.0,
        n_free=n_new, edge_key=np.ascontiguousarray(edge_key.view(np.int64)),
    )


def _check_problem(prob, Y):
    """The kernels run without bounds checks: guarantee what they assume."""
    n, dim = Y.shape
    n_edges = len(prob.tail)
    if not (Y.dtype == np.float64 and Y.flags.c_contiguous and Y.flags.writeable):
        raise ValueError("Y must be a writeable C-contiguous float64 array")
    if (prob.coefficient not in SGD_STEPS or prob.scheme not in SGD_SCHEMES
            or prob.noise not in ENGINE_NOISES):
        raise ValueError(f"unknown coefficient, scheme or noise: {prob.coefficient!r}, "
                         f"{prob.scheme!r}, {prob.noise!r}")
    for name in ("head", "tail", "edge_alias", "noise_alias"):
        arr = getattr(prob, name)
        if arr.dtype != np.int32 or not arr.flags.c_contiguous:
            raise ValueError(f"{name} must be C-contiguous int32")
        if len(arr) and (arr.min() < 0 or arr.max() >= (n if name != "edge_alias" else n_edges)):
            raise ValueError(f"{name} holds out-of-range indices")
    if len(prob.head) != (0 if prob.scheme == "alias" else n_edges) \
            or len(prob.edge_weight) != n_edges:
        raise ValueError("head, tail and edge_weight must have the same length (head "
                         "empty for the alias scheme)")
    ip = prob.indptr
    if (ip.dtype != np.int32 or not ip.flags.c_contiguous or ip.shape != (n + 1,)
            or ip[0] != 0 or ip[-1] != n_edges or np.any(ip[1:] < ip[:-1])):
        raise ValueError("indptr must be C-contiguous int32 row pointers of the edges "
                         "(n_samples + 1 entries, from 0 to n_edges, non-decreasing)")
    if prob.scheme == "alias" and (len(prob.edge_alias) != n_edges
                                   or prob.samples_per_epoch < 0):
        raise ValueError("the alias scheme needs one alias per edge")
    if prob.noise == "degree" and not (len(prob.noise_prob) == len(prob.noise_alias) == n):
        raise ValueError("degree noise needs an alias table over the points")
    if prob.state.shape != (2, n_edges) or not prob.state.flags.c_contiguous:
        raise ValueError("state must be C-contiguous of shape (2, n_edges)")
    if len(prob.alphas) != prob.n_epochs or len(prob.n_noise) != prob.n_epochs:
        raise ValueError("alphas and n_noise need one entry per epoch")
    if np.any(prob.n_noise < 0) or (prob.scheme == "epochs_per_sample"
                                    and np.any(prob.n_noise < 1)):
        raise ValueError("n_noise must be non-negative (positive for epochs_per_sample)")
    if len(prob.q) != 1 or len(prob.q_offset) not in (0, n):
        raise ValueError("q must have length 1 and q_offset length 0 or n_samples")
    if len(prob.params) != len(SGD_STEPS[prob.coefficient]._fields):
        raise ValueError(f"params must hold the {prob.coefficient!r} unit's fields "
                         f"{SGD_STEPS[prob.coefficient]._fields}")
    if prob.noise == "uniform_others" and n < 2:
        raise ValueError("uniform_others noise needs at least 2 points")
    if not 0 < prob.n_free <= MAX_INDEX:
        raise ValueError("n_free must lie in [1, 2**31 - 1]")
    if prob.noise == FROZEN_NOISE and not prob.n_free < n:
        raise ValueError("reference noise needs frozen rows (n_free < n_samples)")
    if not 0 <= prob.early_epochs <= prob.n_epochs or (
            prob.early_epochs and len(prob.early_params) != len(prob.params)):
        raise ValueError("early_epochs must lie in [0, n_epochs], with early_params of "
                         "the unit's fields when positive")
    key = prob.edge_key
    if key.dtype != np.int64 or not key.flags.c_contiguous or len(key) not in (0, n_edges):
        raise ValueError("edge_key must be C-contiguous int64 with 0 or n_edges entries")
    if len(key) and prob.scheme == "alias":
        raise ValueError("edge keys apply to the edge schemes, not to the alias scheme")


@dataclass
class SgdTrace:
    """What the stochastic optimizer recorded."""

    n_epochs: int = 0
    stopped_early: bool = False
    seed: int = 0


def _print_epoch_line(epoch, n_epochs, start):
    """One verbose progress line: epoch, elapsed time and ETA, on stderr."""
    elapsed = time.perf_counter() - start
    eta = elapsed / epoch * (n_epochs - epoch)
    print(f"epoch {epoch:>6d}/{n_epochs}  elapsed {elapsed:7.2f}s  ETA {eta:7.2f}s",
          file=sys.stderr, flush=True)


def positive_samples_per_epoch(prob):
    """The positive samples of an epoch: the work the thread policy weighs.

    Scheme ``"alias"``: ``samples_per_epoch``; ``"every_edge"``: the edges;
    ``"epochs_per_sample"``: the expected count, the sum over the edges of
    one sample every ``edge_weight`` epochs (most edges of a fuzzy graph
    are sampled in few epochs).
    """
    if prob.scheme == "alias":
        return int(prob.samples_per_epoch)
    if prob.scheme == "every_edge":
        return len(prob.tail)
    return int(math.ceil(float(np.sum(1.0 / prob.edge_weight)))) if len(prob.tail) else 0


def _run_epochs(kernels, prob, Y, seed, e0, e1, n_threads):
    """Epochs ``[e0, e1)``: one kernel call, two where the early phase ends inside.

    The epochs before ``prob.early_epochs`` run on a copy of ``prob`` that
    holds ``early_params`` as its ``params`` (the arrays, state and ``q``
    among them, are shared); the counter-based generator and the per-epoch
    schedule of several threads make the split calls identical to one
    call with the same parameters.
    """
    split = min(max(prob.early_epochs, e0), e1)
    if split > e0:
        kernels.sgd_epochs(replace(prob, params=prob.early_params), Y, seed, e0, split,
                           n_threads)
    if e1 > split:
        kernels.sgd_epochs(prob, Y, seed, split, e1, n_threads)


def optimize_sgd(Y, kernels, prob, seed, *, n_threads=1, callback=None, callback_every=1,
                 verbose=False, n_blocks=10, layout_name="the initial layout (init)",
                 remedy=None):
    """Run the stochastic optimizer in place on ``Y``.

    The epochs run in blocks (``callback_every`` epochs per block when
    ``callback`` is given, else ``n_blocks`` blocks) so that progress can be
    reported; the counter-based generator makes the blocks identical to one
    long run.  Each block is one kernel call, whose set-up reads every edge
    of a large problem: one epoch per block costs about a quarter more time
    than ten blocks on 70,000 points with 150 neighbours.

    Parameters
    ----------
    Y : ndarray of shape (n_samples, n_components)
        Initial coordinates, updated in place.
    kernels : module
        :mod:`smallvis.backends.reference` or :mod:`smallvis.backends._kernels`.
    prob : SgdProblem
        From :func:`prepare`.
    seed : int
        Key of the counter-based generator, in ``[0, 2**64)``.
    n_threads : int, default=1
        Requested threads (validated); a problem with fewer positive
        samples per epoch than :data:`smallvis._threads.SGD_MIN_EPOCH_SAMPLES`
        runs on one.  The result depends on the thread count, not on the run.
    callback : callable, optional
        ``callback(epoch, Y, None)`` after every ``callback_every`` epochs
        and after the last; return True to stop.
    callback_every : int, default=1
        Epochs between calls of ``callback`` (a progress line every tenth
        of the run needs no call in between).
    verbose : bool, default=False
        A progress line (epoch, elapsed, ETA) per block.
    layout_name, remedy : str, optional
        How a refusal of a collapsed start names ``Y`` and what it advises
        (:func:`smallvis.engines.optim.check_starting_layout`; by default the fit's
        ``init``).

    Returns
    -------
    SgdTrace
    """
    callback_every = int(callback_every)
    if callback_every < 1:
        raise ValueError(f"callback_every must be at least 1; got {callback_every}")
    _check_problem(prob, Y)
    check_starting_layout(Y, layout_name, remedy)
    seed = int(seed)
    if not 0 <= seed < 2 ** 64:
        raise ValueError(f"seed must lie in [0, 2**64); got {seed}")
    E = prob.n_epochs
    block = callback_every if callback is not None else max(1, math.ceil(E / n_blocks))
    trace = SgdTrace(seed=seed)
    start = time.perf_counter()
    n_threads = _threads.sgd_threads(n_threads, positive_samples_per_epoch(prob))
    for e0 in range(0, E, block):
        e1 = min(E, e0 + block)
        _run_epochs(kernels, prob, Y, seed, e0, e1, n_threads)
        trace.n_epochs = e1
        if not np.all(np.isfinite(Y)):
            raise DivergenceError(f"the stochastic optimisation diverged by epoch {e1} "
                                  "(the coordinates are no longer finite); lower the "
                                  "learning_rate")
        if verbose and (callback is None or e1 % max(1, math.ceil(E / n_blocks)) == 0
                        or e1 == E):
            _print_epoch_line(e1, E, start)
        if callback is not None and callback(e1, Y, None):
            trace.stopped_early = e1 < E
            break
    if prob.n_free >= len(Y):  # a fit (new points sit among a laid-out reference)
        _warn_if_not_spread(Y, prob, trace.n_epochs)
    return trace


#: A map whose every output weight is within this of its value at distance
#: 0 has not been laid out at the kernel's scale (about 1).
UNSPREAD_WEIGHT_CHANGE = 1e-6


def weight_change_at(squared_distance, prob):
    """How far the output weight at ``squared_distance`` is below its value at 0, relative.

    :math:`1 - w(d^2) / w(0)`, with the weight of the method's unit (the
    stochastic loop's, ``prob.coefficient``).
    """
    unit = SGD_STEPS[prob.coefficient](*prob.params).sgd_unit(prob.n_others, 1.0)
    return 1.0 - float(unit.weight(squared_distance)) / float(unit.weight(0.0))


def _warn_if_not_spread(Y, prob, n_epochs):
    """Warn when the stochastic run ended before the points spread to the kernel's scale.

    The forces of a start far smaller than the kernel's unit scale are
    tiny (NCVis's, with ``b > 1``, fall faster than the distance), so the
    epochs can run out with the points still at their start.
    """
    squared = squared_span_bound(Y)
    if not squared > 0 or weight_change_at(squared, prob) >= UNSPREAD_WEIGHT_CHANGE:
        return
    warn_not_laid_out(Y, n_epochs, "n_epochs",
                      f"is within {UNSPREAD_WEIGHT_CHANGE:g} of")
