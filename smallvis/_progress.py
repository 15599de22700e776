"""Stage announcements for verbose runs: what is running, and how long it took.

``embed(..., verbose=True)`` (and the ``smallvis`` command) switch reporting
on for the duration of the call with :func:`begin`; the stages deeper in
the pipeline (nearest neighbours, calibration, init, optimisation) announce
themselves with :func:`stage` and :func:`step` without being handed a flag.
With reporting off (the default) both are no-ops costing one context-variable
lookup.  Lines go to stderr, each prefixed ``smallvis:``, e.g.::

    smallvis: kNN: annoy, 15 neighbours of 20000 points
    smallvis: kNN: 10 trees built in 0.61s
    smallvis: kNN: 20000 queries in 2.10s
    smallvis: kNN: refinement round 1 in 0.31s, 2406 rows changed
    smallvis: kNN: done in 6.02s

Inside a long stage, :func:`counter` reports how far it has got at least
every :data:`EVERY_SECONDS` (2 s), between chunks of rows (never per row
inside a hot loop), and :func:`ticking` reports a single long call from a
background thread::

    smallvis: kNN: building 10 trees, 2.0s, ETA 2.1s
    smallvis: kNN: queries 23,552/70,000 (33%), 8.1s, ETA 16.0s

The per-iteration lines of the optimizers (iteration, cost, elapsed, ETA)
are printed by the optimizers themselves.  No progress-bar library is used:
the stages are few and the optimizers already print a line per step of
progress, which also reads well in log files and notebooks.
"""

import contextvars
import sys
import threading
import time
import weakref
from contextlib import contextmanager

__all__ = ["reporting", "begin", "active", "stage", "step", "say", "counter", "Counter",
           "ticking", "EpochLines", "Heartbeat", "EVERY_SECONDS"]

_REPORTER = contextvars.ContextVar("smallvis_progress", default=None)


class _Reporter:
    """Writes ``smallvis: ...`` lines to a stream (stderr by default).

    ``alive`` (a weak reference, or None) ties the reporter to the lifetime
    of a token held by the caller (see :func:`begin`).
    """

    def __init__(self, stream=None, alive=None):
        self.stream = stream
        self.alive = alive
        self.last = time.perf_counter()  # when the last line was printed

    def say(self, text):
        print(f"smallvis: {text}", file=self.stream or sys.stderr, flush=True)
        self.last = time.perf_counter()

    def silent_for(self):
        """Seconds since the last line."""
        return time.perf_counter() - self.last


def _current():
    reporter = _REPORTER.get()
    if reporter is None or (reporter.alive is not None and reporter.alive() is None):
        return None
    return reporter


@contextmanager
def reporting(verbose=True, stream=None):
    """Switch stage reporting on (``verbose=True``) or off inside the block."""
    token = _REPORTER.set(_Reporter(stream) if verbose else None)
    try:
        yield
    finally:
        _REPORTER.reset(token)


class _Token:
    """Keeps the reporting of one call alive while the caller holds it."""


def begin(verbose):
    """Switch reporting on or off for the caller, for as long as it holds the result.

    ``embed`` starts with ``progress = begin(verbose)``: reporting is on
    while that local variable lives, that is until ``embed`` returns or its
    exception is discarded, without a ``with`` block around the whole body
    (and without an extra stack frame between the user and the warnings the
    pipeline issues).  Each call replaces the previous setting.

    Returns
    -------
    object
        The token to hold.
    """
    token = _Token()
    _REPORTER.set(_Reporter(alive=weakref.ref(token)) if verbose else None)
    return token


def active():
    """Whether stage reporting is on."""
    return _current() is not None


def say(text):
    """Print ``smallvis: text`` when reporting is on."""
    reporter = _current()
    if reporter is not None:
        reporter.say(text)


@contextmanager
def stage(name, detail=""):
    """Announce stage ``name`` (with ``detail``) now, and its time when it ends."""
    reporter = _current()
    if reporter is None:
        yield
        return
    reporter.say(f"{name}: {detail}" if detail else f"{name} ...")
    start = time.perf_counter()
    yield
    reporter.say(f"{name}: done in {time.perf_counter() - start:.2f}s")


def step(name, text, start):
    """Report that ``text`` (part of stage ``name``) took since ``start``.

    ``start`` is a :func:`time.perf_counter` reading.  Returns the current
    reading, so consecutive steps can chain: ``t = step("kNN", "...", t)``.
    """
    now = time.perf_counter()
    reporter = _current()
    if reporter is not None:
        reporter.say(f"{name}: {text} in {now - start:.2f}s")
    return now


class EpochLines:
    """Stochastic-optimizer callback printing a line every tenth of the run.

    Each line gives the epoch, the sampled cost estimate at that epoch
    (labelled "est. cost"), the elapsed time and the ETA.  ``callback``
    (the user's, or None) is called first and may stop the run.

    Parameters
    ----------
    n_epochs : int
    callback : callable or None
        ``callback(epoch, Y, cost)``.
    estimate : callable
        ``estimate(Y) -> float``.
    n_lines : int, default=10
    """

    def __init__(self, n_epochs, callback, estimate, n_lines=10, stream=None):
        self.n_epochs = n_epochs
        self.callback = callback
        self.estimate = estimate
        self.every = max(1, -(-n_epochs // n_lines))
        self.stream = stream
        self.start = time.perf_counter()

    def __call__(self, epoch, Y, cost):
        stop = self.callback is not None and self.callback(epoch, Y, cost)
        if stop or epoch % self.every == 0 or epoch == self.n_epochs:
            elapsed = time.perf_counter() - self.start
            eta = elapsed / epoch * (self.n_epochs - epoch)
            print(f"epoch {epoch:>6d}/{self.n_epochs}  est. cost {self.estimate(Y):.6g}"
                  f"  elapsed {elapsed:7.2f}s  ETA {eta:7.2f}s",
                  file=self.stream or sys.stderr, flush=True)
        return stop


class Heartbeat:
    """Exact-optimizer callback: a progress line when the optimizer has been
    silent for ``seconds`` (it prints its own line only at cost evaluations,
    every ``cost_every`` iterations, which can be minutes apart on large data).

    ``seconds`` defaults to :data:`EVERY_SECONDS` minus the slack an
    iteration needs (1.25 s), so that no silence lasts 2 s while an
    iteration takes under 0.75 s.  ``callback`` (the user's, or None) is
    called first; its answer is returned.
    """

    def __init__(self, n_iter, callback, seconds=None, stream=None):
        self.n_iter = n_iter
        self.callback = callback
        self.seconds = EVERY_SECONDS - _SLACK_SECONDS if seconds is None else seconds
        self.stream = stream
        self.start = self.last = time.perf_counter()

    def __call__(self, iteration, Y, cost):
        stop = self.callback is not None and self.callback(iteration, Y, cost)
        now = time.perf_counter()
        if cost is not None:  # the optimizer has just printed its own line
            self.last = now
        elif now - self.last >= self.seconds:
            self.last = now
            elapsed = now - self.start
            eta = elapsed / iteration * (self.n_iter - iteration)
            print(f"iter {iteration:>6d}/{self.n_iter}  elapsed {elapsed:7.2f}s  "
                  f"ETA {eta:7.2f}s", file=self.stream or sys.stderr, flush=True)
        return stop


#: Longest silence of a long stage while reporting, in seconds.
EVERY_SECONDS = 2.0

#: What a chunk of rows (:meth:`Counter.spans`) aims to take, in seconds.
_CHUNK_SECONDS = 0.25

#: Most chunks :meth:`Counter.spans` cuts a pass into.  A kernel called on
#: a chunk also sets up arrays of one entry per point (the refinement's
#: windows of every row), a cost that does not shrink with the chunk: where
#: that cost alone exceeded :data:`_CHUNK_SECONDS` (a million points), the
#: chunks shrank toward single rows and reporting made a pass many times
#: slower than silence.
_MOST_SPANS = 32

#: A line is due this much before :data:`EVERY_SECONDS` of silence, so that
#: the chunk under way (a quarter to half a second) ends in time.
_SLACK_SECONDS = 0.75


def _thousands(count):
    return f"{count:,}"


class Counter:
    """Progress of ``total`` units of work inside a stage: a line when due.

    Made by :func:`counter`.  :meth:`advance` records finished work and
    prints ``smallvis: <stage>: <what> <done>/<total> (<percent>%),
    <elapsed>s, ETA <seconds>s`` when the last line of the run (of this
    counter or any other) is ``seconds - _SLACK_SECONDS`` old (1.25 s for
    the default :data:`EVERY_SECONDS`), so that with chunks of work of a
    quarter to half a second no silence lasts ``seconds``.
    The ETA assumes the rest goes at the average rate so far.  Safe to call
    from several threads.

    Parameters
    ----------
    reporter : _Reporter
    stage, what : str
    total : int
    seconds : float
        Longest silence.
    clock : callable
        Returns seconds (:func:`time.perf_counter`; tests pass a fake).
    """

    def __init__(self, reporter, stage, what, total, seconds, clock):
        self.reporter = reporter
        self.stage = stage
        self.what = what
        self.total = int(total)
        self.seconds = seconds
        self.clock = clock
        self.due = max(0.0, seconds - _SLACK_SECONDS)
        self.done = 0
        self.start = clock()
        # the run's last line, on this counter's clock
        self.last = self.start - min(reporter.silent_for(), seconds)
        self._lock = threading.Lock()

    def advance(self, n):
        """Record ``n`` more units done; print a line if one is due."""
        with self._lock:
            self.done += n
            now = self.clock()
            if now - self.last < self.due:
                return
            self.last = now
            done, elapsed = self.done, now - self.start
        eta = elapsed / done * (self.total - done) if done else float("nan")
        percent = 100 * done // self.total if self.total else 100
        self.reporter.say(f"{self.stage}: {self.what} {_thousands(done)}/"
                          f"{_thousands(self.total)} ({percent}%), {elapsed:.1f}s, "
                          f"ETA {eta:.1f}s")

    def spans(self, first=1024, multiple=1):
        """``(start, stop)`` chunks of ``range(total)``, advancing after each.

        Chunks aim at ``_CHUNK_SECONDS`` each from the rate measured so far
        (the first has ``first`` units), so that lines can come every
        :data:`EVERY_SECONDS`, but are never so small that a pass takes
        more than :data:`_MOST_SPANS` of them; every chunk but the last is a
        multiple of ``multiple`` units.  The caller does the work of a span
        in the body of its loop.
        """
        start = 0
        least = -(-self.total // _MOST_SPANS)
        least = max(multiple, -(-least // multiple) * multiple)
        size = max(least, first - first % multiple)
        while start < self.total:
            stop = min(self.total, start + size)
            t = self.clock()
            yield start, stop
            took = self.clock() - t
            self.advance(stop - start)
            if took > 0:
                size = int(min(max(size * _CHUNK_SECONDS / took, size / 4), size * 4))
            else:
                size *= 4
            size = max(least, size - size % multiple)
            start = stop


class _Silent:
    """What :func:`counter` returns when reporting is off: does nothing."""

    total = 0

    def advance(self, n):
        pass

    def spans(self, first=1024, multiple=1):
        """One span over everything: the work is done in one call, as unreported."""
        return [(0, self.total)]


def counter(stage, what, total, seconds=None, clock=time.perf_counter):
    """A :class:`Counter` of ``total`` units of ``what`` in ``stage``, or a silent one.

    With reporting off the result's :meth:`~Counter.advance` does nothing and
    its :meth:`~Counter.spans` is one span over all ``total`` units (the
    cost is one context-variable lookup).  ``seconds`` defaults to
    :data:`EVERY_SECONDS`.
    """
    reporter = _current()
    if reporter is None:
        silent = _Silent()
        silent.total = int(total)
        return silent
    return Counter(reporter, stage, what, total,
                   EVERY_SECONDS if seconds is None else seconds, clock)


@contextmanager
def ticking(stage, what, estimate=None, seconds=None):
    """While the block runs, a line every ``seconds`` from a background thread.

    For work that is one long call the package cannot split (Annoy's
    ``build``): ``smallvis: <stage>: <what>, <elapsed>s, ETA <seconds>s``
    (when the run's last line is ``seconds - _SLACK_SECONDS`` old),
    the ETA from ``estimate`` (the expected total seconds, or None: no
    ETA).  Nothing happens with reporting off.
    """
    reporter = _current()
    if reporter is None:
        yield
        return
    seconds = max(0.01, (EVERY_SECONDS if seconds is None else seconds) - _SLACK_SECONDS)
    stop = threading.Event()
    start = time.perf_counter()

    def tick():
        while not stop.wait(max(0.01, seconds - reporter.silent_for())):
            if reporter.silent_for() < seconds:
                continue
            elapsed = time.perf_counter() - start
            if estimate is None:
                eta = ""
            elif elapsed < estimate:
                eta = f", ETA {estimate - elapsed:.1f}s"
            else:
                eta = ", ETA soon (longer than estimated)"
            reporter.say(f"{stage}: {what}, {elapsed:.1f}s{eta}")

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
