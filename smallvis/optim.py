"""Exact optimizer: full gradient with delta-bar-delta gains (smallvis-compatible).

One iteration, numbered ``it = 1 .. n_iter`` as in the R package smallvis:

1. ``G = gradient(Y)``, using ``exaggeration * P`` while ``it <= exaggeration_iter``.
2. Gains: ``gains + 0.2`` where ``sign(G) != sign(update)``, else ``gains * 0.8``;
   floored at ``min_gain``.  (``update`` starts at zero, and ``sign(0) = 0``.)
3. ``update = mu * update - learning_rate * gains * G``; ``Y += update``;
   ``mu`` is ``momentum`` while ``it <= momentum_switch_iter`` and
   ``final_momentum`` after.
4. Re-centre: subtract the column means of ``Y``.
5. Every ``cost_every`` iterations and at the last one, evaluate the cost of the
   true (unexaggerated) ``P`` at the new ``Y``; stop early when the relative
   change per iteration falls below ``tol`` (after exaggeration, with a wait of
   15 iterations as in smallvis).
6. ``callback(it, Y, cost)`` is called (``cost`` is None when it was not
   evaluated); a truthy return value stops the run.

Learned scalars (NCVis's normalisation ``Q``) are optimised together with
``Y``: they are extra coordinates with their own gains and update, under the
same rule and learning rate, and are not re-centred.

Learning-rate convention: gradients are the true gradients of the documented
costs (including t-SNE's factor 4), so a learning rate of 200 here is the
same as 200 in scikit-learn, openTSNE and smallvis.
"""

import sys
import time
from dataclasses import dataclass, field

import numpy as np

#: smallvis waits this many iterations after exaggeration before testing tol.
TOL_WAIT = 15


@dataclass
class OptimizerSettings:
    """Settings of the exact optimizer (see the module docstring)."""

    learning_rate: float
    n_iter: int = 1000
    exaggeration: float = 1.0
    exaggeration_iter: int = 250
    momentum: float = 0.5
    final_momentum: float = 0.8
    momentum_switch_iter: int = 250
    min_gain: float = 0.01
    tol: float = 1e-7
    cost_every: int = 50


@dataclass
class OptimizerTrace:
    """What the optimizer recorded."""

    iterations: list = field(default_factory=list)
    costs: list = field(default_factory=list)
    n_iter: int = 0
    stopped_early: bool = False


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
    ``mu * update - (learning_rate * gains) * G`` (an internal buffer).
    """

    def __init__(self, size, min_gain):
        self.min_gain = min_gain
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
        return update


def optimize_exact(Y, gradient, cost, settings, *, learned=None, callback=None,
                   verbose=False):
    """Run delta-bar-delta gradient descent in place on ``Y`` (and ``learned``).

    Parameters
    ----------
    Y : ndarray of shape (n_samples, n_components)
        Initial coordinates; updated in place.
    gradient : callable
        ``gradient(Y, learned, exaggerated, out)`` writes the gradient in
        ``Y`` into ``out`` and returns the gradient in ``learned`` (an array
        like ``learned``, or None when there is nothing learned).
    cost : callable
        ``cost(Y, learned)`` returns the cost with the true ``P``.
    settings : OptimizerSettings
    learned : ndarray of shape (n_learned,) or None
        Extra scalars optimised with ``Y``; updated in place.
    callback : callable or None
        ``callback(iteration, Y, cost)``; return True to stop.
    verbose : bool
        Print a progress line (iteration, cost, elapsed time, ETA) at every
        cost evaluation.

    Returns
    -------
    OptimizerTrace
    """
    s = settings
    trace = OptimizerTrace()
    if learned is None:
        learned = np.zeros(0)
    # one flat parameter vector: Y's entries, then the learned scalars
    theta = np.concatenate([Y.ravel(), learned])
    Yv = theta[:Y.size].reshape(Y.shape)
    Lv = theta[Y.size:]
    G = np.empty_like(theta)
    GY = G[:Y.size].reshape(Y.shape)
    step = _DeltaBarDelta(theta.size, s.min_gain)
    ones = np.ones(Y.shape[0])
    start = time.perf_counter()
    previous_cost = None
    exaggerating = s.exaggeration != 1.0 and s.exaggeration_iter > 0
    tol_from = (s.exaggeration_iter if exaggerating else 0) + TOL_WAIT
    for it in range(1, s.n_iter + 1):
        g_learned = gradient(Yv, Lv, exaggerating and it <= s.exaggeration_iter, GY)
        if Lv.size:
            G[Y.size:] = g_learned
        mu = s.momentum if it <= s.momentum_switch_iter else s.final_momentum
        theta += step(G, s.learning_rate, mu)
        # re-centre column by column: (n, dim) broadcasting is slow in NumPy
        centre = (ones @ Yv) / Y.shape[0]
        for d in range(Y.shape[1]):
            Yv[:, d] -= centre[d]
        Y[...] = Yv
        learned[...] = Lv
        trace.n_iter = it

        current = None
        if it % s.cost_every == 0 or it == s.n_iter:
            current = cost(Y, learned)
            trace.iterations.append(it)
            trace.costs.append(current)
            if not np.all(np.isfinite(theta)) or not np.isfinite(current):
                raise FloatingPointError(
                    f"the optimisation diverged at iteration {it} (cost {current}); "
                    "lower the learning_rate"
                )
            if verbose:
                _progress(it, s.n_iter, current, start)
            if previous_cost is not None and s.tol > 0 and it > tol_from:
                scale = min(abs(current), abs(previous_cost))
                change = abs(current - previous_cost) / scale if scale > 0 else 0.0
                if change / s.cost_every < s.tol and current <= previous_cost:
                    trace.stopped_early = True
                    if callback is not None:
                        callback(it, Y, current)
                    break
            previous_cost = current
        if callback is not None and callback(it, Y, current):
            trace.stopped_early = True
            break
    return trace
