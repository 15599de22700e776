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
"""

#: Exact cost and gradient kernels (all pairs, every method): below this many
#: unordered pairs ``N (N - 1) / 2`` per call (N = 20,000) they run on one
#: thread.  One call is one parallel region, and a region must last several
#: scheduler time slices (a few ms each) before losing a core for one slice
#: stops dominating: smaller calls gain little from a second thread on an
#: idle machine and lose much when another process keeps a core busy.  From
#: this size on, two threads stay within 1.15 x the one-thread time even
#: with a core busy.
EXACT_MIN_PAIRS = 199_990_000

#: Stochastic optimizer: below this many positive samples (or edges) per
#: kernel call (one call runs a block of epochs, a tenth of the run, in one
#: parallel region without barriers between epochs) it runs on one thread.
#: Such a call lasts some 10 to 50 ms on one thread; smaller problems gain
#: nothing from threads, and lock-free updates from several threads then
#: collide often.  A judgement, not yet a measured crossover: the ``UMAP
#: SGD`` rows of benchmarks/bench_threads.py (sizes set by ``--sgd-sizes``)
#: can move it.
SGD_MIN_UPDATES = 200_000


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


def exact_min_samples():
    """The smallest ``N`` whose exact kernels use more than one thread."""
    n = 2
    while n * (n - 1) // 2 < EXACT_MIN_PAIRS:
        n += 1
    return n


def sgd_threads(n_threads, samples_per_call):
    """Threads for one call of the stochastic optimizer's kernel.

    Parameters
    ----------
    n_threads : int
        The validated request.
    samples_per_call : int
        Positive samples (or edges) the call processes, all its epochs
        together.

    Returns
    -------
    int
        ``n_threads``, or 1 below :data:`SGD_MIN_UPDATES`.
    """
    return n_threads if samples_per_call >= SGD_MIN_UPDATES else 1


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
