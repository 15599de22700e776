"""How many threads a kernel call may use: the package's one thread policy.

More threads help only when each parallel region holds enough work.  A
region of about a millisecond (one exact t-SNE gradient on the 1797 digits)
gains little on an idle machine, and on a machine where another process
keeps a core busy it loses a lot: a thread that loses its core stalls the
others at the region's end, every iteration.  So below a measured amount of
work per call a kernel runs on one thread, whatever ``n_threads`` says, and
the result is then the one-thread result, bit for bit.

The crossovers below come from ``benchmarks/bench_threads.py`` (its
``t-SNE gradient kernel`` rows, one thread against two with and without a
busy core; the figures are in docs/experiments.md, 2026-11-23); rerun it on
new hardware to move them.

The default thread count (``n_threads=None`` everywhere) is
:func:`default_threads`: the cores this process may use
(:func:`available_cores`), at most ``OMP_NUM_THREADS`` when that is set to
a positive integer.
"""

import contextlib
import numbers
import os
import sys
from concurrent.futures import ThreadPoolExecutor

#: Exact cost and gradient kernels (all pairs, every method): below this many
#: unordered pairs ``N (N - 1) / 2`` per call (N = 20,000) they run on one
#: thread.  One call is one parallel region, and a region must last several
#: scheduler time slices (a few ms each) before losing a core for one slice
#: stops dominating: smaller calls gain little from a second thread on an
#: idle machine and lose much when another process keeps a core busy.  From
#: this size on, two threads stay within 1.15 x the one-thread time even
#: with a core busy.
EXACT_MIN_PAIRS = 199_990_000


def exact_threads(n_threads, n_samples):
    """Threads for an exact (all-pairs) kernel call on ``n_samples`` points.

    Parameters
    ----------
    n_threads : int
        The validated request (:func:`smallvis._validation.check_threads`).
    n_samples : int

    Returns
    -------
    int
        ``n_threads``, or 1 below :data:`EXACT_MIN_PAIRS` pairs.
    """
    pairs = n_samples * (n_samples - 1) // 2
    return n_threads if pairs >= EXACT_MIN_PAIRS else 1


def placement_threads(n_threads, n_new, n_fixed):
    """Threads for a kernel call that places ``n_new`` points against ``n_fixed`` fixed ones.

    The exact placement of new points (:mod:`smallvis.transform`) visits the
    ``n_new * n_fixed`` pairs of a new point and a training point per call,
    the same work per pair as a fit's exact kernels, so it takes the same
    crossover, :data:`EXACT_MIN_PAIRS`.  Each point's row is computed by one
    thread, so the placement is the same bit for bit on any thread count.

    Parameters
    ----------
    n_threads : int
        The validated request (:func:`smallvis._validation.check_threads`).
    n_new, n_fixed : int

    Returns
    -------
    int
        ``n_threads``, or 1 below :data:`EXACT_MIN_PAIRS` pairs.
    """
    return n_threads if n_new * n_fixed >= EXACT_MIN_PAIRS else 1


def exact_min_samples():
    """The smallest ``N`` whose exact kernels use more than one thread."""
    n = 2
    while n * (n - 1) // 2 < EXACT_MIN_PAIRS:
        n += 1
    return n


#: Stochastic optimizer: below this many positive samples per epoch
#: (:func:`smallvis.engines.sgd.positive_samples_per_epoch`) it runs on one
#: thread.
#: With several threads every epoch is a parallel region of its own (the
#: threads' changes are added at its end, :mod:`smallvis.engines.sgd`), so an
#: epoch must hold enough work that the region's start and end, and a
#: thread that loses its core for a time slice, do not dominate: at this
#: size an epoch lasts a few milliseconds on one thread.  A judgement, not
#: yet a measured crossover: the ``UMAP SGD`` rows of
#: benchmarks/bench_threads.py (sizes set by ``--sgd-sizes``) can move it.
#: The decision depends on the problem only (not on how the epochs are
#: split into kernel calls), so a run's thread count, and with it its
#: result, does not change with ``callback_every``.
SGD_MIN_EPOCH_SAMPLES = 20_000


def sgd_threads(n_threads, samples_per_epoch):
    """Threads of the stochastic optimizer on a problem of ``samples_per_epoch``.

    Parameters
    ----------
    n_threads : int
        The validated request.
    samples_per_epoch : int
        Positive samples per epoch.

    Returns
    -------
    int
        ``n_threads``, or 1 below :data:`SGD_MIN_EPOCH_SAMPLES`.
    """
    return n_threads if samples_per_epoch >= SGD_MIN_EPOCH_SAMPLES else 1


#: Annoy queries (:func:`smallvis.inputs.neighbors.nearest_neighbors`): below this
#: many inspected nodes, ``n_samples * search_k``, the queries run on one
#: thread.  Annoy releases the GIL while it searches, but each query also
#: holds it for the Python call and its result list, and the queries of a
#: small search take a tenth of a second in all: below this size a second
#: thread gains nothing, above it it saves time even with a core busy.
#: The chunks of queries are handed out one after another, so a thread that
#: loses its core does not hold the others up.
ANNOY_MIN_NODES = 2_000_000


def annoy_query_threads(n_threads, n_samples, search_k):
    """Threads for the Annoy queries of ``n_samples`` points.

    Parameters
    ----------
    n_threads : int
        The validated request.
    n_samples : int
        Points queried.
    search_k : int
        Annoy's ``search_k`` (nodes inspected per query).

    Returns
    -------
    int
        ``n_threads``, or 1 below :data:`ANNOY_MIN_NODES`.
    """
    return n_threads if n_samples * search_k >= ANNOY_MIN_NODES else 1


#: The copy and check of dense data (:func:`smallvis._validation.check_data`):
#: below this many entries (32 MB of float64) they take a few milliseconds
#: and run on one thread, where a pool of threads would cost more.
DATA_MIN_ENTRIES = 1 << 22


def data_threads(n_threads, n_entries):
    """Threads that copy and check data of ``n_entries`` entries, before ``n_threads`` is checked.

    The data are checked before any option, so that a NaN is reported
    first; ``n_threads`` is therefore read here as it was given: a positive
    integer is used (at most the available cores), -1 is every available
    core, and anything else (None, or a value that the option's own check
    refuses later) is :func:`default_threads`.  One thread below
    :data:`DATA_MIN_ENTRIES`.  The copy is the same on any number of threads.

    Parameters
    ----------
    n_threads : object
        The request as given.
    n_entries : int
        Entries of the data.

    Returns
    -------
    int
    """
    if n_entries < DATA_MIN_ENTRIES:
        return 1
    if isinstance(n_threads, numbers.Integral) and not isinstance(n_threads, bool):
        if n_threads == -1:
            return available_cores()
        if n_threads >= 1:
            return min(int(n_threads), available_cores())
    return default_threads()


# ---------------------------------------------------------------------------
# the default thread count
# ---------------------------------------------------------------------------

#: Where the cgroup file systems are mounted, and the file naming this
#: process's cgroups (module fields, so that a test can point them at a
#: directory of its own).
CGROUP_ROOT = "/sys/fs/cgroup"
PROC_CGROUP = "/proc/self/cgroup"


def _read(path):
    """The stripped text of ``path``, or None when it cannot be read."""
    try:
        with open(path) as fh:
            return fh.read().strip()
    except (OSError, UnicodeDecodeError):
        return None


def _quota_cores(quota, period):
    """``floor(quota / period)``, at least 1; None for no limit or unreadable values."""
    try:
        quota, period = int(quota), int(period)
    except (TypeError, ValueError):
        return None  # "max" (cgroup v2) or a missing file: no limit
    if quota <= 0 or period <= 0:
        return None  # -1 (cgroup v1): no limit
    return max(1, quota // period)


def _cgroup_dirs(controller):
    """The cgroup directories of this process for ``controller``, innermost first.

    ``controller`` None is the unified hierarchy (cgroup v2, the ``0::``
    line of :data:`PROC_CGROUP`), else a v1 controller (``cpu``).  Every
    ancestor up to the mount point is listed too: a limit set on a parent
    cgroup binds its children.  Without a readable :data:`PROC_CGROUP` the
    mount point alone (a container sees its own cgroup there).
    """
    text = _read(PROC_CGROUP)
    rel = None
    for line in (text or "").splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        if controller is None and parts[0] == "0" and parts[1] == "":
            rel = parts[2]
        elif controller is not None and controller in parts[1].split(","):
            rel = parts[2]
    if controller is None:
        # the unified hierarchy, or its mount beside the v1 ones (hybrid)
        base = next((b for b in (CGROUP_ROOT, os.path.join(CGROUP_ROOT, "unified"))
                     if os.path.exists(os.path.join(b, "cgroup.controllers"))), CGROUP_ROOT)
    else:  # v1 mounts the controller on its own (often as "cpu,cpuacct")
        base = next((os.path.join(CGROUP_ROOT, name) for name in ("cpu", "cpu,cpuacct")
                     if os.path.isdir(os.path.join(CGROUP_ROOT, name))), None)
        if base is None:
            return []
    dirs = []
    rel = (rel or "/").strip("/")
    while True:
        dirs.append(os.path.join(base, rel) if rel else base)
        if not rel:
            return dirs
        rel = os.path.dirname(rel)


def cgroup_cpu_limit():
    """The CPU quota of this process's cgroup in whole cores, or None when unlimited.

    cgroup v2: ``cpu.max`` holds ``"<quota> <period>"`` (quota ``max``: no
    limit); cgroup v1: ``cpu.cfs_quota_us`` (-1: no limit) and
    ``cpu.cfs_period_us``.  The limit is ``floor(quota / period)``, at
    least 1 (a quota of 1.5 cores gives one thread: a second one would
    be throttled half the time and stall the first at every barrier); the
    smallest over the cgroup and its ancestors.
    """
    limits = []
    for d in _cgroup_dirs(None):
        text = _read(os.path.join(d, "cpu.max"))
        if text:
            fields = text.split()
            limits.append(_quota_cores(fields[0], fields[1] if len(fields) > 1 else None))
    for d in _cgroup_dirs("cpu"):
        limits.append(_quota_cores(_read(os.path.join(d, "cpu.cfs_quota_us")),
                                   _read(os.path.join(d, "cpu.cfs_period_us"))))
    limits = [c for c in limits if c is not None]
    return min(limits) if limits else None


def affinity_cores():
    """The cores this process may run on (``os.sched_getaffinity``), else ``os.cpu_count()``."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on every platform
        return max(1, os.cpu_count() or 1)


def available_cores():
    """The cores this process may use: its CPU affinity, capped by its cgroup's CPU quota.

    Not ``os.cpu_count()``: a container or a job scheduler often grants a
    process fewer cores than the machine has, and threads beyond them only
    wait for one another.
    """
    cores = affinity_cores()
    limit = cgroup_cpu_limit()
    return cores if limit is None else min(cores, limit)


def omp_num_threads():
    """``OMP_NUM_THREADS`` when it is a positive integer, else None (unset or anything else).

    OpenMP also accepts a list (``"4,2"``, one count per nesting level);
    the first count is the one of an outer parallel region, the only kind
    the kernels run.
    """
    text = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if not text.isdigit():
        return None
    value = int(text)
    return value if value > 0 else None


def default_threads():
    """The number of threads that ``n_threads=None`` uses in this process.

    The cores this process may use (its CPU affinity, capped by a cgroup
    CPU quota rounded down), at most ``OMP_NUM_THREADS``.

    ``OMP_NUM_THREADS`` (a positive integer) lowers the default, as it
    lowers every OpenMP program's, so that a scheduler or a user running
    several jobs side by side can share the cores; it never raises it
    above the available cores, where more threads only contend.  An
    explicit ``n_threads`` is not capped by it.

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> import smallvis
    >>> smallvis.default_threads() >= 1
    True
    """
    cores = available_cores()
    omp = omp_num_threads()
    return cores if omp is None else min(cores, omp)


def each_block(fn, starts, n_threads):
    """Call ``fn(start)`` for every start of ``starts``, on up to ``n_threads`` threads.

    For work that lets go of the interpreter lock (Annoy's searches,
    NumPy's sorts) and whose calls each write their own rows, so that the
    result is the same on any number of threads.  With one thread, or one
    start, the calls run in order here; with more, a pool takes the starts
    one after another (a thread that loses its core for a while simply
    takes fewer), and the first error of a call is raised.
    """
    if n_threads <= 1 or len(starts) <= 1:
        for start in starts:
            fn(start)
        return
    with ThreadPoolExecutor(max_workers=min(int(n_threads), len(starts))) as pool:
        for _ in pool.map(fn, starts):  # re-raises the first error, if any
            pass


@contextlib.contextmanager
def blas_threads(n_threads):
    """Hold the BLAS libraries of the process to ``n_threads`` threads inside the block.

    NumPy's and SciPy's BLAS (OpenBLAS in their wheels) choose their own
    thread count, by default every core, whatever ``n_threads`` says.  A
    sum split over another number of threads ends in other last bits: the
    eigenvectors ARPACK finds for the spectral start change with it, and
    the optimisation then draws another map from the same seed and the same
    ``n_threads`` (docs/experiments.md, 2026-12-03).  Holding the BLAS to
    the call's own thread count makes ``n_threads`` the whole recipe.
    threadpoolctl does this for OpenBLAS, MKL and BLIS alike, and restores
    the previous counts on leaving.  The libraries are found once per set
    of imported modules (:func:`_blas_controller`); the counts are read and
    set afresh on every entry.
    """
    with _blas_controller().limit(limits=int(n_threads), user_api="blas"):
        yield


def each_blas_block(fn, starts, n_threads):
    """:func:`each_block` with the BLAS held to one thread: blocks of BLAS products.

    Each block's products are then summed in one order whatever the call's
    thread count or the BLAS's own (a BLAS that splits one product over its
    threads sums it in another order), so what the blocks write has the
    same bits on any number of threads, and the blocks, not the BLAS, use
    the threads.
    """
    with blas_threads(1):
        each_block(fn, starts, n_threads)


#: ``(number of imported modules, threadpoolctl controller)`` of the last
#: search for thread-pool libraries, or None before the first.
_CONTROLLER = None


def _blas_controller():
    """threadpoolctl's controller of the thread-pool libraries loaded in the process.

    Finding them reads the process's map of loaded libraries, about 1.5 ms,
    which was more than half of a ``cost_and_gradient`` call on ten points.
    A library is loaded by importing a module, so the search is kept until
    the number of imported modules changes, and then made again.
    """
    global _CONTROLLER
    from threadpoolctl import ThreadpoolController  # counted among the modules below

    n_modules = len(sys.modules)
    if _CONTROLLER is None or _CONTROLLER[0] != n_modules:
        _CONTROLLER = (n_modules, ThreadpoolController())
    return _CONTROLLER[1]
