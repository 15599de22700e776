"""One thread against two (and more, where there are cores), idle and with a busy core.

For each workload this prints the median wall-clock time with 1, 2, ...
threads and the ratio to one thread, twice: on an otherwise idle machine
("idle") and while a child process spins on one core ("busy"; the script
starts and stops that process itself).  The targets of the thread policy
(smallvis._threads):

* busy: more threads never take more than 1.15 x the one-thread time;
* idle: 2 threads take at most 0.65 x the one-thread time at 20,000 points
  and above.

Workloads:

* ``exact t-SNE``: a whole exact t-SNE run on digits (N = 1797, 250
  iterations) through ``embed``, i.e. with the thread policy applied;
* ``t-SNE gradient kernel``: one call of ``smallvis.backends._kernels.tsne_gradient``
  on random data of N points with the thread count forced, bypassing the
  policy.  This is the table that sets
  ``smallvis._threads.EXACT_MIN_PAIRS``: the smallest N at which two threads
  help when idle and do not hurt when busy;
* ``UMAP SGD``: the stochastic optimizer of umap (its default epochs) on the
  structured data of bench_scale.py, 10,000 and 20,000 points (more with
  ``--sgd-sizes``), the neighbours computed once beforehand (the time is that
  of ``embed``'s optimisation stage);
* ``kNN graph``: ``smallvis.inputs.neighbors.nearest_neighbors`` with k = 150
  (LargeVis's 3 x perplexity) on 20,000 points of the same data.

Machine load matters more than anything here: run it on a quiet machine
(the first lines print the load average and the number of cores, each row
the load when it started).  The thread counts take turns within a row
(1, 2, 1, 2, ...) and each ratio is the median of the ratios of a turn.
``python benchmarks/bench_threads.py`` without options prints every table
above, idle and busy.

Usage: python benchmarks/bench_threads.py [--threads 1 2] [--repeats 3]
       [--sgd-sizes 10000 20000] [--kernel-sizes 2000 5000 10000 20000]
       [--skip exact kernel sgd knn] [--no-busy]
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

import _common  # noqa: F401  (sets single-threaded BLAS first)
import numpy as np

import smallvis
from bench_scale import structured_data
from smallvis.backends import _kernels
from smallvis.inputs.affinities import kernel_triplet
from smallvis.inputs.neighbors import nearest_neighbors

BUSY = "while True:\n    pass\n"


class BusyCore:
    """A child process spinning on one core while the context is active."""

    def __enter__(self):
        self.proc = subprocess.Popen([sys.executable, "-c", BUSY])
        time.sleep(0.3)
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()


def exact_tsne(threads):
    X, _ = smallvis.datasets.load("digits")
    return lambda: smallvis.embed(X, "tsne", fast=True, n_iter=250, random_state=0,
                                  n_threads=threads)


def kernel_gradient(n):
    rng = np.random.default_rng(0)
    Y = rng.normal(size=(n, 2))
    # a sparse kNN-like P, as t-SNE uses above smallvis.families.DENSE_P_MAX_N
    k = 90
    import scipy.sparse as sp
    rows = np.repeat(np.arange(n), k)
    cols = (rows + rng.integers(1, n, size=n * k)) % n
    P = sp.csr_matrix((np.ones(n * k), (rows, cols)), shape=(n, n))
    P = (P + P.T) / (2.0 * n * k)
    triplet = kernel_triplet(P.tocsr())
    grad = np.zeros_like(Y)

    def make(threads):
        def run():
            for _ in range(5):
                _kernels.tsne_gradient(*triplet, Y, grad, threads)
        return run
    return make


def umap_sgd(n):
    X, _ = structured_data(n)
    knn = nearest_neighbors(X, 14, random_state=0, fast=True)

    def make(threads):
        def run():
            r = smallvis.embed(X, "umap", fast=True, optimizer="sgd", knn=knn,
                               random_state=0, n_threads=threads, return_result=True)
            return r.timings["optimize"]
        return run
    return make


def knn_graph(n):
    X, _ = structured_data(n)

    def make(threads):
        return lambda: nearest_neighbors(X, 150, random_state=0, fast=True,
                                         n_threads=threads)
    return make


def measure(name, make, threads, repeats, busy, stage_time=False):
    """Print one row: median time per thread count and its ratio to the first.

    The thread counts take turns (1, 2, 1, 2, ...), and each ratio is the
    median of the ratios within a turn, so that a change of machine load
    during the row touches both sides alike.  The row ends with the 1-minute
    load average when it started.
    """
    load = os.getloadavg()[0]
    fns = [make(t) for t in threads]
    if not stage_time:  # first calls (imports, data, page faults) are not timed
        fns[0]()
    times = [[] for _ in threads]
    for _ in range(repeats):
        for fn, cell in zip(fns, times):
            if stage_time:  # the function returns the time of the stage itself
                cell.append(fn())
            else:
                start = time.perf_counter()
                fn()
                cell.append(time.perf_counter() - start)
    cells = []
    for t, cell in zip(threads, times):
        ratio = statistics.median(c / b for c, b in zip(cell, times[0]))
        cells.append(f"{t}: {statistics.median(cell):7.3f}s ({ratio:.2f}x)")
    print(f"{name:<34} {'busy' if busy else 'idle':<5} {'  '.join(cells)}"
          f"   [load {load:.2f}]", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="+",
                        default=sorted({1, 2, os.cpu_count() or 1}))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sgd-sizes", type=int, nargs="+", default=[10_000, 20_000])
    parser.add_argument("--kernel-sizes", type=int, nargs="+",
                        default=[2000, 5000, 10000, 20000])
    parser.add_argument("--knn-size", type=int, default=20_000)
    parser.add_argument("--skip", nargs="*", default=[],
                        choices=["exact", "kernel", "sgd", "knn"])
    parser.add_argument("--no-busy", action="store_true",
                        help="only the idle column")
    args = parser.parse_args()
    _common.report_provenance()
    print(f"cores: {os.cpu_count()}, load average at start: "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"thread policy: exact kernels use one thread below "
          f"{smallvis._threads.EXACT_MIN_PAIRS:,} pairs per call "
          f"(N = {smallvis._threads.exact_min_samples():,}); the SGD below "
          f"{smallvis._threads.SGD_MIN_EPOCH_SAMPLES:,} positive samples per epoch; the Annoy "
          f"queries below {smallvis._threads.ANNOY_MIN_NODES:,} nodes")
    print(f"each row: median of {args.repeats} turns; (ratio) = median ratio to "
          f"{args.threads[0]} thread(s) within a turn; targets: busy <= 1.15x, "
          f"idle <= 0.65x with 2 threads from 20,000 points")
    workloads = []
    if "exact" not in args.skip:
        workloads.append(("exact t-SNE digits, 250 it", lambda t: exact_tsne(t), False))
    if "kernel" not in args.skip:
        for n in args.kernel_sizes:
            workloads.append((f"t-SNE gradient kernel N={n} x5", kernel_gradient(n), False))
    if "sgd" not in args.skip:
        for n in args.sgd_sizes:
            workloads.append((f"UMAP SGD N={n}", umap_sgd(n), True))
    if "knn" not in args.skip:
        workloads.append((f"kNN graph k=150 N={args.knn_size}", knn_graph(args.knn_size),
                          False))
    for name, make, stage in workloads:
        measure(name, make, args.threads, args.repeats, False, stage)
        if not args.no_busy:
            with BusyCore():
                measure(name, make, args.threads, args.repeats, True, stage)
    print(f"load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
