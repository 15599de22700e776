"""Exact t-SNE on the 1797-point digits data from raw X, one thread.

Times, in one run, for each iteration count (default 250 and 1000):
smallvis fast=True (Cython), smallvis fast=False (NumPy reference, skipped
with --skip-numpy) and scikit-learn's ``TSNE(method="exact")`` when it is
installed.  All use perplexity 30, PCA initialisation, early exaggeration 12
for 250 iterations, learning rate "auto" and no early stopping.  The runs
alternate (ours, theirs, ours, ...) so that a change of machine load hits
both; each ratio is the median of the per-round ratios.  Wall and CPU
seconds are both printed: on a shared machine the CPU time of these
single-threaded runs is the steadier figure.  The load average is printed
first.

Also prints smallvis's own split of the time (affinities / init /
optimisation) from ``EmbedResult.timings``.

Usage: python benchmarks/bench_tsne_exact.py [--repeats 3] [--n-iter 250 1000] [--skip-numpy]
"""

import argparse
import os
import statistics
import time

import _common  # noqa: F401  (sets single-threaded environment first)

import smallvis


def timed(fn):
    c, t = time.process_time(), time.perf_counter()
    out = fn()
    return time.perf_counter() - t, time.process_time() - c, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-iter", type=int, nargs="+", default=[250, 1000])
    parser.add_argument("--skip-numpy", action="store_true")
    args = parser.parse_args()
    _common.report_provenance()
    X, _ = smallvis.datasets.load("digits")
    try:
        from sklearn.manifold import TSNE
    except ImportError:
        TSNE = None
        print("scikit-learn is not installed: skipping TSNE(method='exact')")
    print(f"load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    smallvis.embed(X[:100], "tsne", fast=True, n_iter=10, random_state=0)  # warm caches

    for n_iter in args.n_iter:
        def ours(fast):
            return smallvis.embed(X, "tsne", fast=fast, n_iter=n_iter, tol=0, random_state=0,
                                  n_threads=1, return_result=True)

        def sk():
            return TSNE(method="exact", perplexity=30, max_iter=n_iter, init="pca",
                        learning_rate="auto", early_exaggeration=12, min_grad_norm=0,
                        n_iter_without_progress=n_iter, random_state=0, n_jobs=1).fit(X)

        runs = {"smallvis fast=True (Cython)": lambda: ours(True)}
        if not args.skip_numpy:
            runs["smallvis fast=False (NumPy)"] = lambda: ours(False)
        if TSNE is not None:
            runs["scikit-learn TSNE(method='exact')"] = sk
        wall = {name: [] for name in runs}
        cpu = {name: [] for name in runs}
        last = {}
        for _ in range(args.repeats):
            for name, fn in runs.items():
                w, c, last[name] = timed(fn)
                wall[name].append(w)
                cpu[name].append(c)
        print(f"\nexact t-SNE, digits (N={len(X)}), {n_iter} iterations, 1 thread, "
              f"{args.repeats} alternating rounds")
        base = "scikit-learn TSNE(method='exact')" if TSNE is not None else None
        print(f"{'implementation':<36} {'wall s':>8} {'cpu s':>8} {'x sklearn (wall)':>17} "
              f"{'x sklearn (cpu)':>16}")
        for name in runs:
            if base:
                rw = statistics.median(b / a for a, b in zip(wall[name], wall[base]))
                rc = statistics.median(b / a for a, b in zip(cpu[name], cpu[base]))
                ratios = f"{rw:>16.1f}x {rc:>15.1f}x"
            else:
                ratios = ""
            print(f"{name:<36} {statistics.median(wall[name]):>8.3f} "
                  f"{statistics.median(cpu[name]):>8.3f} {ratios}")
        res = last["smallvis fast=True (Cython)"]
        split = ", ".join(f"{k} {v:.3f}s" for k, v in res.timings.items())
        print(f"smallvis fast=True, last run: {split}; final KL {res.cost:.4f}")
        if base:
            kl = last[base].kl_divergence_
            # after 250 iterations (all of them exaggerated) scikit-learn
            # leaves kl_divergence_ at its start value, the largest float
            print("scikit-learn final KL " + (f"{kl:.4f}" if kl < 1e300 else
                  "not reported (every iteration was exaggerated)"))
    print(f"load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
