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
busy core); rerun it on new hardware to move them.
"""

#: Exact cost and gradient kernels (all pairs, every method): below this many
#: unordered pairs ``N (N - 1) / 2`` per call (N = 20,000) they run on one
#: thread.  One call is one parallel region.  On digits (1.6e6 pairs, about
#: 2 ms per t-SNE gradient on one thread) two threads gained 13% on an idle
#: 2-core machine and lost 57% with one core busy: a region must last
#: several scheduler time slices (a few ms each) before losing a core for
#: one slice stops dominating.  The ``t-SNE gradient kernel`` rows of
#: benchmarks/bench_threads.py measure the crossover.  On a quiet 2-core
#: machine (load average 1.8) two threads took 0.54, 0.49, 0.52 and 0.51 x
#: the one-thread time per call at N = 2000, 5000, 10,000 and 20,000 when
#: idle, but 12, 1.26, 1.32 and 1.05 x with one core kept busy by another
#: process (one call lasting 1, 5, 17 and 64 ms).  Only from N = 20,000 do
#: two threads stay within the 1.15 x allowed when a core is busy.
EXACT_MIN_PAIRS = 199_990_000

#: Stochastic optimizer: below this many positive samples (or edges) per
#: kernel call (one call runs a block of epochs, a tenth of the run, in one
#: parallel region without barriers between epochs) it runs on one thread.
#: Such a call lasts some 10 to 50 ms on one thread; smaller problems gain
#: nothing from threads, and lock-free updates from several threads then
#: collide often.  A judgement, not yet a measurement: the ``UMAP SGD`` rows
#: of benchmarks/bench_threads.py (sizes set by ``--sgd-sizes``) can move it.
#: Under heavy load (load average 10 on 2 cores) 2 threads took 0.54-0.71 x
#: the one-thread time for UMAP at 6,000 points (millions of edge visits per call).
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
#: small search take a tenth of a second in all.  Measured on a loaded 2-core
#: machine (the queries alone, Annoy's 10 trees, one thread against two,
#: medians of 5 interleaved pairs): 2000 and 5000 points at search_k = 160
#: (0.3e6 and 0.8e6 nodes, 20 to 90 ms) gained nothing (1.05 and 1.01 x);
#: from 3e6 nodes on two threads took 0.83 to 0.87 x (20,000 points,
#: search_k = 160) and 0.65 to 0.73 x (1e7 to 3e7 nodes, k = 90 and 150),
#: and no more than 0.84 x with one core kept busy.  The chunks of queries
#: are handed out one after another, so a thread that loses its core does
#: not hold the others up.
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
