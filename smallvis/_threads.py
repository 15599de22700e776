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
#: unordered pairs ``N (N - 1) / 2`` per call they run on one thread.  On the
#: 2-core machine of benchmarks/bench_threads.py the t-SNE gradient at N = 3000
#: (4.5e6 pairs, about 3 ms per call) was the smallest N where two threads
#: stayed under 1.15 x the one-thread time with a busy core.
EXACT_MIN_PAIRS = 4_500_000

#: Stochastic optimizer: below this many positive samples per kernel call
#: (one call runs a block of epochs in one parallel region) it runs on one
#: thread.  Small problems gain nothing from threads, and lock-free updates
#: from several threads then collide often.
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
