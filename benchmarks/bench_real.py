"""smallvis against its peers on a dataset you point it at, side by side.

The data are a dense ``.npy`` array or a sparse ``.npz`` matrix (from
:func:`scipy.sparse.save_npz`), with a ``.npy`` of one label per row
(``make_image_data.py`` and ``make_text_data.py`` beside this file build a
dense image-like and a sparse text-like set).  Each call runs in its own
child process, from data it loads itself, in one or both of two modes
(``--threads``):

* ``one`` (the default): every package on one thread, which compares the
  kernels;
* ``defaults``: every package as its README calls it, threads included,
  which is what a user gets.  No thread variable is set for the child:
  smallvis uses the cores the process may use (``n_threads=None``),
  umap-learn's ``UMAP()`` is given no ``random_state`` (which would turn
  its parallelism off), openTSNE gets ``n_jobs=-1`` (its README's example
  asks for 8 threads; its default is 1) and uwot its own defaults
  (``n_threads`` half the cores, ``n_sgd_threads`` 0).

The one-thread calls:

* ``largevis``, ``umap``, ``tsne``: smallvis
  ``embed(X, method, fast=True, random_state=seed)``, with ``metric=``
  passed only when it is not "euclidean" (smallvis's default);
* ``umap-learn``: ``UMAP(metric=..., n_jobs=1, random_state=seed)``, numba's
  JIT compiled first on 5,000 rows (not timed);
* ``opentsne``: openTSNE ``TSNE(metric=..., n_jobs=1, random_state=seed)``,
  after a short untimed run on 2,000 rows (compiles pynndescent when used);
* ``uwot-lvish``, ``uwot-umap``: R's uwot ``lvish`` and ``umap`` with
  ``n_threads=1, n_sgd_threads=1`` through ``Rscript`` (dense data only;
  Debian packages ``r-base-core`` and ``r-cran-uwot``).

With ``--threads both`` a seed's two runs follow one another (one thread,
then the defaults), and a second table gives each package's gain from its
defaults: the median over seeds of the one-thread time over the default
time, a ratio of two runs made a minute apart, then each seed's ratio.

Columns, medians over ``--repeats`` runs (seeds ``--first-seed``,
``--first-seed`` + 1, ...; more seeds of a call can be added in a later run
without repeating the first ones):

* time: wall clock of the call alone (loading and the JIT warm-up excluded);
* peak RSS: the child's whole-process peak (``os.wait4``'s ``ru_maxrss``),
  input included; "before" is the peak just before the call (interpreter,
  libraries and X);
* 10-NN accuracy: leave-one-out over all points
  (:func:`smallvis.metrics.knn_accuracy`);
* 15-NN preservation: overlap of the exact 15 nearest neighbours in X (in
  ``--metric``) and in Y, over 5,000 fixed points (:func:`knn_preservation_at`);
* pieces per class: DBSCAN pieces of each class in the map, averaged over
  the classes (:func:`pieces_per_class`; needs scikit-learn), then the
  median and each run's value: one satellite of one class moves a map's
  value by 0.1, so a few seeds say more than their median.

The parent process never loads the data (a child's ``ru_maxrss`` starts at
its parent's RSS); the quality measures run in one more child at the end,
with ``--python`` (the pieces column is left empty, with a note, where
that interpreter has no scikit-learn).
The peers may live in another environment: ``--peers-python``.

Usage: python benchmarks/bench_real.py DATA.npy|DATA.npz LABELS.npy
       [--metric euclidean] [--methods largevis umap tsne umap-learn opentsne
       uwot-lvish uwot-umap] [--threads one|defaults|both]
       [--repeats 1] [--first-seed 0]
       [--peers-python PATH]
       [--out-dir DIR] [--verbose]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import _common  # first: it caps the threads before numpy is imported
import numpy as np
import scipy.sparse as sp
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SMALLVIS_METHODS = ("largevis", "umap", "tsne")
PEER_METHODS = ("umap-learn", "opentsne")
R_METHODS = ("uwot-lvish", "uwot-umap")
ALL_METHODS = SMALLVIS_METHODS + PEER_METHODS + R_METHODS
#: How each value of ``--threads`` is printed beside a call
MODE_NAMES = {"one": "1 thread", "defaults": "defaults"}
#: The peers' metric names that SciPy spells otherwise
SCIPY_NAMES = {"manhattan": "cityblock", "l1": "cityblock", "l2": "euclidean"}
#: float64 entries in one block of distances (64 MB)
BLOCK_ENTRIES = 8_000_000


# ---------------------------------------------------------------- quality


def load_data(path):
    """X from a dense ``.npy`` (as float64) or a sparse ``.npz`` (as CSR float64)."""
    if path.endswith(".npz"):
        return sp.csr_matrix(sp.load_npz(path), dtype=np.float64)
    if path.endswith(".npy"):
        return np.asarray(np.load(path), dtype=np.float64)
    raise ValueError(f"data must be a .npy (dense) or .npz (sparse) file, got {path!r}")


def _dense_rows(X, rows):
    return X[rows].toarray() if sp.issparse(X) else X[rows]


def _distance_block(X, rows, metric, sq_norms):
    """Distances from ``X[rows]`` to every row of X, shape (len(rows), n).

    Euclidean, cosine and correlation use matrix products (sparse products
    for a sparse X); other metrics :func:`scipy.spatial.distance.cdist`
    (dense X only).  Only the order of each row matters to the callers.
    """
    if metric == "euclidean":
        G = X[rows] @ X.T
        G = G.toarray() if sp.issparse(G) else G
        return sq_norms[rows][:, None] + sq_norms[None, :] - 2.0 * G
    if metric in ("cosine", "correlation"):
        G = X[rows] @ X.T  # X was normalised (and centred) by the caller
        return -(G.toarray() if sp.issparse(G) else G)
    if sp.issparse(X):
        raise ValueError(f"metric {metric!r} needs a dense X here; a sparse X "
                         f"works with 'euclidean', 'cosine' and 'correlation'")
    return cdist(X[rows], X, SCIPY_NAMES.get(metric, metric))


def _prepared(X, metric):
    """X transformed so that :func:`_distance_block`'s products are the metric."""
    if metric == "correlation":
        if sp.issparse(X):
            raise ValueError("metric 'correlation' needs a dense X here")
        X = X - X.mean(axis=1, keepdims=True)
        metric = "cosine"
    if metric == "cosine":
        norms = np.sqrt(np.asarray(
            (X.multiply(X) if sp.issparse(X) else X * X).sum(axis=1)).ravel())
        norms[norms == 0] = 1.0
        X = sp.diags(1.0 / norms) @ X if sp.issparse(X) else X / norms[:, None]
    return X


def exact_neighbors_of(X, rows, k, metric="euclidean"):
    """Exact ``k`` nearest other rows of X for each of ``rows``, in ``metric``.

    Computed in blocks of rows so that at most :data:`BLOCK_ENTRIES`
    distances are held at once, whatever the size of X.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, d)
    rows : ndarray of int
        The query rows.
    k : int
        Neighbours per query, the point itself excluded.
    metric : str
        "euclidean", "cosine" or "correlation" (dense or sparse X), or any
        metric of :func:`scipy.spatial.distance.cdist` or "manhattan"
        (dense X).

    Returns
    -------
    ndarray of shape (len(rows), k)
        Neighbour indices, nearest first.
    """
    X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    X = _prepared(X, metric)
    metric = "cosine" if metric == "correlation" else metric
    sq_norms = None
    if metric == "euclidean":
        sq_norms = np.asarray((X.multiply(X) if sp.issparse(X) else X * X).sum(axis=1)).ravel()
    rows = np.asarray(rows)
    n = X.shape[0]
    out = np.empty((rows.size, k), dtype=np.intp)
    step = max(1, BLOCK_ENTRIES // n)
    for start in range(0, rows.size, step):
        block = rows[start:start + step]
        D = _distance_block(X, block, metric, sq_norms)
        D[np.arange(block.size), block] = np.inf
        part = np.argpartition(D, k - 1, axis=1)[:, :k]
        order = np.argsort(np.take_along_axis(D, part, axis=1), axis=1, kind="stable")
        out[start:start + step] = np.take_along_axis(part, order, axis=1)
    return out


def map_neighbors_of(Y, rows, k):
    """Exact Euclidean ``k`` nearest other points of ``Y[rows]`` in the map Y."""
    _, idx = cKDTree(Y).query(Y[rows], k=k + 1)
    is_self = idx == np.asarray(rows)[:, None]
    # the point itself is normally first; with duplicates it may be later
    # or missing, then the last candidate goes
    is_self[~is_self.any(axis=1), k] = True
    return idx[~is_self].reshape(len(rows), k)


def knn_preservation_at(nn_x, Y, rows, k=15):
    """Mean overlap of the ``k``-NN of ``rows`` in X (given) and in Y.

    Parameters
    ----------
    nn_x : ndarray of shape (len(rows), k)
        Exact neighbours in X, from :func:`exact_neighbors_of`.
    Y : ndarray of shape (n, n_components)
    rows : ndarray of int

    Returns
    -------
    float
        Mean of ``|N_X(i) & N_Y(i)| / k`` over the rows.
    """
    nn_y = map_neighbors_of(Y, rows, k)
    common = sum(np.intersect1d(a, b).size for a, b in zip(nn_x, nn_y))
    return common / (len(rows) * k)


def pieces_per_class(Y, labels, k=15, eps_factor=2.0, min_samples=10, min_fraction=0.02):
    """Mean number of DBSCAN pieces per class of the map Y.

    ``eps`` is ``eps_factor`` times the median, over all points, of the
    distance to the ``k``-th nearest other point in Y.  Each class's points
    are clustered alone by DBSCAN (``min_samples`` counts the point itself);
    a piece counts when it holds at least ``min_fraction`` of the class, and
    noise points belong to no piece.

    Returns
    -------
    float
        The number of pieces, averaged over the classes.

    Raises
    ------
    ImportError
        If scikit-learn is not installed (only this measure needs it).
    """
    try:
        from sklearn.cluster import DBSCAN
    except ImportError:
        raise ImportError("pieces_per_class needs scikit-learn (pip install "
                          "scikit-learn); the other columns do not") from None
    dist, _ = cKDTree(Y).query(Y, k=k + 1)
    eps = eps_factor * float(np.median(dist[:, k]))
    counts = []
    for c in np.unique(labels):
        pts = Y[labels == c]
        found = DBSCAN(eps=eps, min_samples=min_samples).fit(pts).labels_
        sizes = np.bincount(found[found >= 0])
        counts.append(int(np.count_nonzero(sizes >= min_fraction * len(pts))))
    return float(np.mean(counts))


def fixed_rows(n, size=5000, seed=0):
    """The sorted ``size`` rows (all if fewer) on which preservation is measured."""
    if n <= size:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=size, replace=False))


def quality(data_path, labels_path, metric, y_paths):
    """Quality columns of every map in ``y_paths``; a dict per path."""
    from smallvis.metrics import knn_accuracy

    X, labels = load_data(data_path), np.load(labels_path)
    rows = fixed_rows(X.shape[0])
    nn_x = exact_neighbors_of(X, rows, 15, metric)
    del X
    out = {}
    for path in y_paths:
        Y = np.load(path)
        res = {"acc10": knn_accuracy(Y, labels, 10),
               "pres15": knn_preservation_at(nn_x, Y, rows, 15)}
        try:
            res["pieces"] = pieces_per_class(Y, labels)
        except ImportError as exc:
            res["pieces"], res["note"] = None, str(exc)
        out[path] = res
    return out


# ---------------------------------------------------------------- children

PY_CHILD = r"""
import json, resource, sys, time, warnings
sys.path.insert(0, sys.argv[1])
import _common
import numpy as np
from bench_real import load_data
who, data_path, metric, seed, y_path, verbose, mode = sys.argv[2:9]
seed, verbose, defaults = int(seed), verbose == "1", mode == "defaults"
X = load_data(data_path)
if who == "umap-learn":
    from umap import UMAP
    warnings.simplefilter("ignore")
    # at its defaults a random_state would turn umap-learn's threads off
    threads = {} if defaults else {"n_jobs": 1, "random_state": seed}
    UMAP(metric=metric, n_epochs=5, **threads).fit_transform(X[:5000])
    run = lambda: UMAP(metric=metric, verbose=verbose, **threads).fit_transform(X)
elif who == "opentsne":
    from openTSNE import TSNE
    n_jobs = -1 if defaults else 1
    # compile pynndescent's numba functions (used for sparse X and some metrics)
    TSNE(metric=metric, n_jobs=n_jobs, n_iter=1, early_exaggeration_iter=1).fit(X[:2000])
    run = lambda: np.asarray(TSNE(metric=metric, n_jobs=n_jobs, random_state=seed,
                                  verbose=verbose).fit(X))
else:
    import smallvis
    extra = {} if metric == "euclidean" else {"metric": metric}
    run = lambda: smallvis.embed(X, who, fast=True, random_state=seed,
                                 verbose=verbose, **extra)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
Y = run()
seconds = time.perf_counter() - t0
np.save(y_path, np.asarray(Y, dtype=np.float64))
print(json.dumps({"seconds": seconds, "base_kb": base}))
"""

R_CHILD = r"""
args <- commandArgs(trailingOnly = TRUE)
suppressPackageStartupMessages(library(uwot))
dims <- as.integer(strsplit(args[2], ",")[[1]])
X <- readBin(args[1], "double", n = dims[1] * dims[2])
dim(X) <- dims
hwm <- function() as.numeric(gsub("[^0-9]", "", grep("^VmHWM", readLines("/proc/self/status"), value = TRUE)))
base <- hwm()
set.seed(as.integer(args[5]))
fn <- if (args[3] == "uwot-lvish") lvish else umap
threads <- if (args[8] == "defaults") list() else list(n_threads = 1, n_sgd_threads = 1)
t0 <- proc.time()[["elapsed"]]
Y <- do.call(fn, c(list(X, metric = args[4], verbose = args[7] == "1"), threads))
seconds <- proc.time()[["elapsed"]] - t0
writeBin(as.vector(t(Y)), args[6])
cat(sprintf('{"seconds": %.3f, "base_kb": %.0f}\n', seconds, base))
"""

TO_R = r"""
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from bench_real import load_data
X = load_data(sys.argv[2])
X.T.tofile(sys.argv[3])  # column-major, as R stores a matrix
print(f"{X.shape[0]},{X.shape[1]}")
"""

QUALITY_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import _common
from bench_real import quality
print(json.dumps(quality(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])))
"""


#: The variables that cap a child's threads (R's RcppParallel's included)
CHILD_THREAD_VARS = _common.THREAD_VARS + ("RCPP_PARALLEL_NUM_THREADS",)


def child_env(mode="one"):
    """The environment of a child: this tree importable, and its threads.

    ``mode`` "one" caps every library at one thread; "defaults" removes the
    caps (those of the parent's environment too), so that each library
    chooses as it would for a user.
    """
    env = dict(os.environ)
    for var in CHILD_THREAD_VARS:
        env.pop(var, None)
        if mode == "one":
            env[var] = "1"
    if mode == "defaults":
        env[_common.DEFAULT_THREADS_VAR] = "1"
    else:
        env.pop(_common.DEFAULT_THREADS_VAR, None)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
    return env


def run_child(argv, log_path, mode="one"):
    """Run ``argv``; return (last stdout line, peak RSS in KiB, error or None)."""
    with open(log_path + ".out", "w") as out, open(log_path + ".err", "w") as err:
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=child_env(mode))
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    with open(log_path + ".out") as out, open(log_path + ".err") as err:
        lines, errors = out.read().strip().splitlines(), err.read().strip().splitlines()
    if proc.returncode != 0 or not lines:
        return None, usage.ru_maxrss, (errors[-1] if errors else f"exit {proc.returncode}")
    return lines[-1], usage.ru_maxrss, None


def _r_input(args, work):
    """Write X for R once (column-major float64); return (path, "n,d")."""
    path = os.path.join(work, "X.f64")
    line, _, error = run_child([args.peers_python, "-c", TO_R, HERE, args.data, path],
                               os.path.join(work, "to_r"))
    if error:
        raise RuntimeError(f"could not write X for R: {error}")
    return path, line


def run_method(method, seed, args, work, r_input, mode="one"):
    """One run in its own process; a dict of seconds, base_kb, peak_kb, y (or error)."""
    y_path = os.path.join(work, f"{method}_{mode}_{seed}.npy")
    log = os.path.join(work, f"{method}_{mode}_{seed}")
    verbose = "1" if args.verbose else "0"
    if method in R_METHODS:
        raw = y_path + ".f64"
        argv = ["Rscript", "-e", R_CHILD, r_input[0], r_input[1], method, args.metric,
                str(seed), raw, verbose, mode]
    else:
        python = args.python if method in SMALLVIS_METHODS else args.peers_python
        argv = [python, "-c", PY_CHILD, HERE, method, args.data, args.metric, str(seed),
                y_path, verbose, mode]
    line, peak, error = run_child(argv, log, mode)
    if error:
        return {"error": error}
    if method in R_METHODS:
        np.save(y_path, np.fromfile(raw).reshape(-1, 2))
    res = json.loads(line)
    res.update(peak_kb=peak, y=y_path)
    return res


def _median(runs, key):
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else None


def _median_and_runs(runs, key):
    """"median (run, run, ...)" of ``key`` to one decimal, or "-" when no run has it."""
    values = [r[key] for r in runs if r.get(key) is not None]
    if not values:
        return "-"
    return f"{statistics.median(values):.1f} ({', '.join(f'{v:.1f}' for v in values)})"


def format_rows(results):
    """Markdown table lines of per-method medians."""
    lines = ["| call | time s (runs) | peak RSS GiB | RSS before GiB | 10-NN accuracy "
             "| 15-NN preservation | pieces per class (runs) |",
             "|---|---|---|---|---|---|---|"]
    gib = 1024.0 ** 2
    for method, runs in results.items():
        ok = [r for r in runs if "error" not in r]
        if not ok:
            lines.append(f"| {method} | failed: {runs[0]['error']} | | | | | |")
            continue
        lines.append(
            f"| {method} | {_median_and_runs(ok, 'seconds')} "
            f"| {_median(ok, 'peak_kb') / gib:.2f} | {_median(ok, 'base_kb') / gib:.2f} "
            f"| {_median(ok, 'acc10'):.3f} | {_median(ok, 'pres15'):.3f} "
            f"| {_median_and_runs(ok, 'pieces')} |")
    return lines


def format_gains(results, methods):
    """Markdown table lines of each package's gain from its defaults (threads included).

    A seed's one-thread run and its run at the defaults ran one after the
    other; the gain is the median of those pairs' ratios (one-thread time
    over default time), then each pair's ratio.
    """
    lines = ["| call | gain at the defaults (pairs) |", "|---|---|"]
    for method in methods:
        one = results[f"{method} ({MODE_NAMES['one']})"]
        defaults = results[f"{method} ({MODE_NAMES['defaults']})"]
        ratios = [a["seconds"] / b["seconds"] for a, b in zip(one, defaults)
                  if "error" not in a and "error" not in b]
        cell = (f"{statistics.median(ratios):.2f} ({', '.join(f'{r:.2f}' for r in ratios)})"
                if ratios else "-")
        lines.append(f"| {method} | {cell} |")
    return lines


def _check_args(args):
    for name in ("data", "labels"):
        if not os.path.isfile(getattr(args, name)):
            raise SystemExit(f"{name}: no such file: {getattr(args, name)}")
    if not args.data.endswith((".npy", ".npz")):
        raise SystemExit("data must be a .npy (dense) or .npz (sparse) file")
    if any(m in R_METHODS for m in args.methods) and shutil.which("Rscript") is None:
        print("Rscript not found: the uwot rows are skipped "
              "(apt-get install r-base-core r-cran-uwot)")
        args.methods = [m for m in args.methods if m not in R_METHODS]
    if args.data.endswith(".npz") and any(m in R_METHODS for m in args.methods):
        print("uwot is run on dense data only here: its rows are skipped")
        args.methods = [m for m in args.methods if m not in R_METHODS]
    if args.repeats < 1 or args.first_seed < 0:
        raise SystemExit("--repeats must be at least 1 and --first-seed at least 0")
    if args.out_dir and os.path.exists(args.out_dir):
        raise SystemExit(f"--out-dir {args.out_dir} exists; name a new directory")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="dense .npy or sparse .npz (scipy.sparse.save_npz)")
    parser.add_argument("labels", help=".npy of one label per row")
    parser.add_argument("--metric", default="euclidean")
    parser.add_argument("--methods", nargs="+", default=list(ALL_METHODS),
                        choices=ALL_METHODS)
    parser.add_argument("--threads", choices=("one", "defaults", "both"), default="one",
                        help="one thread for every package, each package's own "
                             "defaults (threads included), or both side by side")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--first-seed", type=int, default=0,
                        help="seed of the first run; the runs take the seeds that follow")
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter for the smallvis runs and the quality "
                             "measures (default: this one)")
    parser.add_argument("--peers-python", default=sys.executable,
                        help="interpreter with umap-learn, openTSNE and scikit-learn")
    parser.add_argument("--out-dir", help="a new directory to keep the maps and logs in")
    parser.add_argument("--verbose", action="store_true",
                        help="verbose runs; their stderr is kept in --out-dir")
    args = parser.parse_args()
    _check_args(args)
    work = args.out_dir or tempfile.mkdtemp(prefix="bench_real_")
    os.makedirs(work, exist_ok=True)
    _common.report_provenance(peers_python=args.peers_python, out_dir=args.out_dir)
    try:
        modes = ("one", "defaults") if args.threads == "both" else (args.threads,)
        print(f"{args.data}, metric {args.metric}, threads: {', '.join(MODE_NAMES[m] for m in modes)} "
              f"({len(os.sched_getaffinity(0))} cores usable), {args.repeats} repeat(s) "
              f"from seed {args.first_seed}; "
              f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        r_input = (_r_input(args, work) if any(m in R_METHODS for m in args.methods)
                   else None)
        results = {}
        for method in args.methods:
            labels = {mode: method if len(modes) == 1 else f"{method} ({MODE_NAMES[mode]})"
                      for mode in modes}
            for label in labels.values():
                results[label] = []
            # a seed's runs in every mode follow one another, so that a slow
            # spell of the machine falls on both sides of a gain
            for seed in range(args.first_seed, args.first_seed + args.repeats):
                for mode in modes:
                    results[labels[mode]].append(run_method(method, seed, args, work,
                                                            r_input, mode))
            for label in labels.values():
                ok = [r for r in results[label] if "error" not in r]
                print(f"  {label}: " + (", ".join(f"{r['seconds']:.1f} s" for r in ok)
                                        or results[label][0]["error"]), flush=True)
        y_paths = [r["y"] for runs in results.values() for r in runs if "error" not in r]
        if y_paths:
            line, _, error = run_child(
                [args.python, "-c", QUALITY_CHILD, HERE, args.data, args.labels,
                 args.metric] + y_paths, os.path.join(work, "quality"))
            if error:
                raise SystemExit(f"quality measures failed: {error}")
            scores = json.loads(line)
            for runs in results.values():
                for r in runs:
                    r.update(scores.get(r.get("y"), {}))
            notes = {s["note"] for s in scores.values() if "note" in s}
            for note in notes:
                print(note)
        print("\n" + "\n".join(format_rows(results)))
        if len(modes) == 2:
            print("\n" + "\n".join(format_gains(results, args.methods)))
        print(f"\nload average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        if not args.out_dir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
