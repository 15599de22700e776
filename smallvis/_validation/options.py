"""Checks of the option values a user sets: numbers, integers, counts, threads, seeds.

Each check returns the value in its canonical type or raises a
:class:`~smallvis._validation.errors.ParameterError` (a ``ValueError``) or
:class:`~smallvis._validation.errors.ParameterTypeError` (a ``TypeError``)
that names the option and the allowed range.
"""

import numbers
import warnings

import numpy as np

from .. import _threads
from .errors import ParameterError, ParameterTypeError


def check_number(value, name, *, low=None, high=None, low_open=False, high_open=False):
    """Return ``value`` as float (or int) if it lies in the allowed range.

    Parameters
    ----------
    value : object
        The value to check.
    name : str
        Argument name used in the message.
    low, high : float or None
        Bounds; None means unbounded.
    low_open, high_open : bool
        Whether the bound itself is excluded.

    Returns
    -------
    float
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ParameterTypeError(f"{name} must be a real number; got {value!r}", (name,))
    value = float(value)
    if not np.isfinite(value):
        raise ParameterError(f"{name} must be finite; got {value!r}", (name,))
    too_low = low is not None and (value <= low if low_open else value < low)
    too_high = high is not None and (value >= high if high_open else value > high)
    if too_low or too_high:
        # an absent bound is infinite, and infinity itself is refused above
        lo = "(" if low_open or low is None else "["
        hi = ")" if high_open or high is None else "]"
        lo_s = "-inf" if low is None else f"{low:g}"
        hi_s = "inf" if high is None else f"{high:g}"
        raise ParameterError(f"{name} must be in {lo}{lo_s}, {hi_s}{hi}; got {value!r}",
                             (name,))
    return value


def check_integer(value, name, low=None, high=None, *, why=None):
    """Return ``value`` as an int in ``[low, high]``, or raise naming ``name``.

    The one integer check of the package.  Accepted: Python and NumPy
    integers, and real numbers with an integral value (``15.0``); rejected
    with ``TypeError``: booleans, non-integral or non-finite numbers and
    non-numbers.  A value out of range raises ``ValueError`` with the
    interval, as :func:`check_number` words it.

    Parameters
    ----------
    value : object
        The value to check.
    name : str
        Argument name used in the message.
    low, high : int or None
        Inclusive bounds; None means unbounded.
    why : str, optional
        Where the bounds come from, for the message (e.g. ``"below
        n_samples / 2 = 75"``).

    Returns
    -------
    int
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ParameterTypeError(f"{name} must be an integer; got {value!r}", (name,))
    if not isinstance(value, numbers.Integral):
        if not (np.isfinite(value) and float(value).is_integer()):
            raise ParameterTypeError(f"{name} must be an integer; got {value!r}", (name,))
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        lo = "(-inf" if low is None else f"[{low}"
        hi = "inf)" if high is None else f"{high}]"
        reason = f" ({why})" if why else ""
        raise ParameterError(f"{name} must be in {lo}, {hi}{reason}; got {value}", (name,))
    return value


#: Largest accepted iteration count (``n_iter``, ``n_epochs``,
#: ``exaggeration_iter``, ``momentum_switch_iter``, ``cost_every``): 100
#: times the longest default run (t-SNE's 1000 iterations, UMAP's 500
#: epochs on small data); a run this long takes hours, a larger count is a
#: typo or a forged file.
MAX_ITERATIONS = 100_000

#: Largest accepted ``transform`` iteration count (``n_iter`` of
#: :meth:`smallvis.transform.TrainingMap.transform`, ``transform_n_iter``):
#: 100 times the default of 100.
MAX_TRANSFORM_ITERATIONS = 10_000

#: Largest accepted ``n_refine`` (rounds of neighbour refinement after an
#: Annoy search): 250 times the default of 4; refinement stops by itself
#: long before when nothing changes.
MAX_REFINE_ROUNDS = 1_000


def check_iterations(value, name, low=0, high=MAX_ITERATIONS):
    """Return an iteration count ``value`` as an int in ``[low, high]``.

    The one bound on every count of iterations, epochs or rounds that a
    caller, an estimator or a model file sets, so that no value makes a run
    that never ends; otherwise as :func:`check_integer`.
    """
    return check_integer(value, name, low=low, high=high,
                         why="the bound keeps a run from never ending")


#: Largest accepted ``n_threads``: every thread gets O(N) scratch buffers.
MAX_THREADS = 1024


def check_threads(n_threads):
    """Return a positive thread count from ``n_threads`` (None, -1 or a positive integer).

    The one rule for every ``n_threads`` of the package:

    * None (the default everywhere) is :func:`smallvis.default_threads`:
      the cores this process may use (CPU affinity, cgroup CPU quota), at
      most ``OMP_NUM_THREADS`` when that is a positive integer;
    * -1 is every core this process may use
      (:func:`smallvis._threads.available_cores`), whatever ``OMP_NUM_THREADS``
      says;
    * a positive count is used as given, but one above the available cores
      is lowered to them with a ``RuntimeWarning``: extra threads only add
      per-thread scratch memory (O(N) each) and wait for one another.
      Above ``MAX_THREADS`` (1024) is an error.

    Whatever the count, small calls run on one thread (:mod:`smallvis._threads`).
    Results of the exact optimizer depend on the thread count in the last
    bits only (see :mod:`smallvis.backends._kernels`); the stochastic
    optimizer's are bit-identical from run to run for a given count
    (:mod:`smallvis.engines.sgd`).
    """
    if n_threads is None:
        return _threads.default_threads()
    n_threads = check_integer(n_threads, "n_threads", low=-1, high=MAX_THREADS)
    if n_threads == 0:
        raise ParameterError("n_threads must be a positive integer or -1 (all available "
                             "cores), or None (the default); got 0", ("n_threads",))
    cores = _threads.available_cores()
    if n_threads == -1:
        return cores
    if n_threads > cores:
        warnings.warn(
            f"n_threads = {n_threads} is more than the {cores} core(s) this process may "
            f"use (CPU affinity and cgroup quota); using n_threads = {cores}",
            RuntimeWarning, stacklevel=3,
        )
        return cores
    return n_threads


def check_random_state(random_state):
    """Return a ``numpy.random.Generator`` from None, an int or a Generator."""
    if random_state is None or isinstance(random_state, np.random.Generator):
        return np.random.default_rng(random_state)
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ParameterError(
                f"random_state must be a non-negative integer; got {random_state}",
                ("random_state",))
        return np.random.default_rng(int(random_state))
    raise ParameterTypeError(
        f"random_state must be None, a non-negative int or a numpy Generator; got {random_state!r}",
        ("random_state",))


def check_callback(callback):
    """Return ``callback`` wrapped so that it cannot leave garbage in ``Y``.

    ``callback(iteration, Y, cost)`` receives the live coordinates (no copy,
    so that a callback per iteration stays cheap).  If it writes NaN or an
    infinite value into them, the wrapper raises ``ValueError`` at once,
    naming the iteration, instead of letting the optimizer carry on with (or
    return) non-finite coordinates.  None stays None.
    """
    if callback is None:
        return None
    if not callable(callback):
        raise TypeError(f"callback must be callable; got {callback!r}")

    def checked(iteration, Y, cost):
        stop = callback(iteration, Y, cost)
        if not np.all(np.isfinite(Y)):
            raise ValueError(
                f"callback left NaN or infinite values in Y after iteration "
                f"{iteration}; a callback may read Y (or change it to finite "
                f"values) but must not write NaN or inf into it"
            )
        return stop

    return checked
