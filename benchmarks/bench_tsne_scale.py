"""t-SNE at scale: smallvis's FFT gradient against openTSNE and scikit-learn.

From raw X to Y on 70,000 x 50 synthetic data (20 Gaussian clusters of
intrinsic dimension 5, ``bench_sgd.gaussian_clusters``), 750 iterations
(250 with exaggeration 12, then 500), perplexity 30, PCA-type
initialisation, one thread unless ``--threads``.  Columns:

* smallvis ``embed(X, "tsne", fast=True, gradient="fft", tol=0)``;
* openTSNE with FFT interpolation (``negative_gradient_method="fft"``), and
  with Barnes-Hut (``"bh"``), through its step-by-step API so that the
  affinity, initialisation and optimisation times can be split;
* scikit-learn ``TSNE(method="barnes_hut")`` (only its total time).

Each package builds its own P.  Quality: 15-NN preservation
(smallvis.metrics.knn_preservation) within a random subsample of 5,000
points, and the KL divergence of every Y under one common P (smallvis's
kNN P), evaluated with smallvis's FFT cost at ``n_interpolation=8``
(relative error about 1e-6; the exact O(N^2) KL would take minutes).  Each
package's own final cost estimate is printed too.

``--crossover [N ...]`` times instead the optimisation of whole runs (same
kNN P, same start), exact against FFT gradient, for a few N (the data for
``gradient="auto"``).

Usage: python benchmarks/bench_tsne_scale.py [--n 70000] [--repeats 1]
       [--threads 1] [--skip-bh] [--skip-sklearn] [--crossover [N ...]]
"""

import argparse
import resource
import time

import _common  # noqa: F401  (sets single-threaded environment first)
import numpy as np

import smallvis
from _common import median_time, print_table
from bench_sgd import gaussian_clusters
from smallvis.metrics import knn_preservation


def smallvis_run(X, threads, n_iter):
    r = smallvis.embed(X, "tsne", fast=True, gradient="fft", n_iter=n_iter, tol=0.0,
                       random_state=0, n_threads=threads, return_result=True)
    # smallvis runs first: the process's peak so far is that of data + smallvis
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2
    print(f"peak RSS of the process after the smallvis run: {peak:.2f} GiB", flush=True)
    split = (r.timings["affinities"], r.timings["init"], r.timings["optimize"])
    return r.Y, split, f"{r.cost:.4f} (FFT)"


def opentsne_run(X, threads, n_iter, method):
    from openTSNE import TSNEEmbedding, affinity, initialization

    t0 = time.perf_counter()
    P = affinity.PerplexityBasedNN(X, perplexity=30, n_jobs=threads, random_state=0)
    t1 = time.perf_counter()
    init = initialization.pca(X, random_state=0)
    t2 = time.perf_counter()
    emb = TSNEEmbedding(init, P, negative_gradient_method=method, n_jobs=threads,
                        random_state=0)
    emb = emb.optimize(n_iter=250, exaggeration=12, momentum=0.5)
    emb = emb.optimize(n_iter=n_iter - 250, momentum=0.8)
    t3 = time.perf_counter()
    return np.ascontiguousarray(emb), (t1 - t0, t2 - t1, t3 - t2), f"{emb.kl_divergence:.4f}"


def sklearn_run(X, threads, n_iter):
    import inspect

    from sklearn.manifold import TSNE

    iters = "max_iter" if "max_iter" in inspect.signature(TSNE).parameters else "n_iter"
    tsne = TSNE(method="barnes_hut", init="pca", learning_rate="auto", perplexity=30,
                n_jobs=threads, random_state=0, **{iters: n_iter})
    t0 = time.perf_counter()
    Y = tsne.fit_transform(X)
    return Y, (float("nan"), float("nan"), time.perf_counter() - t0), \
        f"{tsne.kl_divergence_:.4f} (BH)"


def crossover(threads, n_iter, sizes):
    """Optimisation time of whole runs, exact against FFT gradient, against N."""
    from smallvis.inputs.neighbors import nearest_neighbors

    print(f"t-SNE optimisation ({n_iter} iterations, 2-D, {threads} thread(s), same kNN P): "
          "exact vs FFT gradient (n_interpolation=3)")
    print(f"{'N':>7} {'exact s':>8} {'fft s':>7} {'exact/fft':>9} {'final span':>11}")
    for n in sizes:
        X, _ = gaussian_clusters(n)
        knn = nearest_neighbors(X, 90, method="annoy", random_state=0, n_threads=threads)
        times = {}
        for gradient in ("exact", "fft"):
            r = smallvis.embed(X, "tsne", fast=True, gradient=gradient, knn=knn,
                               n_iter=n_iter, tol=0.0, random_state=0, n_threads=threads,
                               return_result=True)
            times[gradient] = r.timings["optimize"]
        print(f"{n:>7} {times['exact']:>8.2f} {times['fft']:>7.2f} "
              f"{times['exact'] / times['fft']:>9.2f} {np.ptp(r.Y):>11.0f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=70_000)
    parser.add_argument("--n-iter", type=int, default=750)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--subsample", type=int, default=5000)
    parser.add_argument("--skip-bh", action="store_true", help="skip openTSNE BH")
    parser.add_argument("--skip-sklearn", action="store_true")
    parser.add_argument("--crossover", type=int, nargs="*", default=None, metavar="N",
                        help="time exact vs FFT optimisation for these N instead "
                             "(default 2000 5000 10000)")
    args = parser.parse_args()
    _common.report_provenance()
    if args.crossover is not None:
        crossover(args.threads, args.n_iter, args.crossover or [2000, 5000, 10_000])
        return
    X, _ = gaussian_clusters(args.n)
    sub = np.random.default_rng(1).choice(len(X), size=min(args.subsample, len(X)),
                                          replace=False)
    runs = [("smallvis tsne (fast, gradient='fft')",
             lambda: smallvis_run(X, args.threads, args.n_iter))]
    try:
        import openTSNE  # noqa: F401
    except ImportError:
        print("openTSNE is not installed: skipping it")
    else:
        runs.append((f"openTSNE FFT (n_jobs={args.threads})",
                     lambda: opentsne_run(X, args.threads, args.n_iter, "fft")))
        if not args.skip_bh:
            runs.append((f"openTSNE BH (n_jobs={args.threads})",
                         lambda: opentsne_run(X, args.threads, args.n_iter, "bh")))
    if not args.skip_sklearn:
        try:
            import sklearn  # noqa: F401
        except ImportError:
            print("scikit-learn is not installed: skipping it")
        else:
            runs.append((f"scikit-learn BH (n_jobs={args.threads})",
                         lambda: sklearn_run(X, args.threads, args.n_iter)))

    # one common P for the KL column
    P = smallvis.affinities(X, "tsne", fast=True, n_threads=args.threads)
    rows, details = [], []
    for name, fn in runs:
        med, times, (Y, split, own_kl) = median_time(fn, args.repeats)
        kl = smallvis.cost_and_gradient("tsne", P, Y, fast=True, gradient="fft",
                                        n_interpolation=8, n_threads=args.threads)[0]
        quality = knn_preservation(X[sub], Y[sub], 15)
        rows.append((name, med, times))
        details.append((name, split, kl, own_kl, quality))
        print(f"{name:<40} {med:8.2f} s  (P {split[0]:.1f}, init {split[1]:.1f}, optim "
              f"{split[2]:.1f})  KL {kl:.4f}  15-NN {quality:.3f}", flush=True)
    title = (f"t-SNE, {args.n} x {X.shape[1]} Gaussian clusters, {args.n_iter} iterations, "
             f"{args.threads} thread(s), median of {args.repeats} run(s)")
    print_table(title, rows, rows[1][0] if len(rows) > 1 else rows[0][0])
    print(f"\n{'implementation':<40} {'P s':>7} {'init s':>7} {'optim s':>8} "
          f"{'KL (common P)':>14} {'own KL':>16} {'15-NN':>6}")
    for name, (tp, ti, to), kl, own, q in details:
        print(f"{name:<40} {tp:>7.2f} {ti:>7.2f} {to:>8.2f} {kl:>14.4f} {own:>16} {q:>6.3f}")
    print("(P: kNN search and calibration; scikit-learn: total only.  KL (common P): "
          "every Y under smallvis's P, FFT cost with n_interpolation=8.  own KL: each "
          "package's estimate under its own P.  15-NN: preservation within a "
          f"{len(sub)}-point subsample.)")
    if len(rows) > 1:
        ours, peer = rows[0][1], rows[1][1]
        print(f"\nsmallvis / openTSNE FFT, end to end: {ours / peer:.2f} "
              f"(15-NN difference {details[0][4] - details[1][4]:+.3f})")


if __name__ == "__main__":
    main()
