"""The headline call at scale: ``embed(X, "largevis", fast=True)`` against umap.

For each size (default 10,000, 30,000, 70,000 and 150,000 points) this runs,
each in a fresh child process, one thread:

* smallvis ``embed(X, "largevis", fast=True)`` with every default (the
  stochastic optimizer above 5,000 points);
* smallvis ``embed(X, "umap", fast=True)`` with every default;
* umap-learn ``UMAP()`` when it is installed (numba's JIT compiled first on
  5,000 points, not timed).

It prints, per run: the wall-clock time of each stage (kNN and P together,
initialisation, optimisation; timed around the plan's start and run, so
that the call is the plain ``embed`` a user makes, without
``return_result``, which would keep P), the total, the
CPU time of the call (``time.process_time``: on a busy machine the wall
clock of a one-thread run grows with the load, its CPU time much less), the
peak resident memory of the child (``os.wait4``'s ``ru_maxrss``: memory
allocated in C is invisible to tracemalloc; the parent never builds the
data, since a child's ``ru_maxrss`` starts from the parent's RSS at the
fork) and the peak before the call (Python, the libraries and X).  The
quality columns are computed in one more child per size, from the maps the
runs saved: the 10-NN accuracy of the map
(:func:`smallvis.metrics.knn_accuracy`) on a fixed random subsample of
10,000 points, and the 15-NN preservation over 5,000 fixed points (the
measure of ``bench_real.py``: exact neighbours in X against those in Y).

The data (:func:`structured_data`): 25 classes on curved two-dimensional
sheets in a 12-dimensional latent space, lifted to 50 dimensions and blurred
by noise; the recipe of :func:`smallvis.datasets.curved_clusters` with more
classes.  At 70,000 points 99.99% of a 10,000-point subsample share the
label of the majority of their 10 nearest neighbours in X.

The million-point row: ``--sizes 1000000`` (about 0.4 GB of X per child;
each call needs a few GiB more, so run the sizes one at a time on a small
machine).  umap-learn may live in another environment: ``--peers-python``.

Usage: python benchmarks/bench_scale.py [--sizes 10000 30000 70000 150000]
       [--skip-umap-learn] [--peers-python PATH] [--methods largevis umap]
       [--largevis-params '{"n_epochs": 500}']
"""

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import _common  # noqa: F401  (sets single-threaded environment first)
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def structured_data(n, seed=0, n_classes=25, dim=50, latent=12):
    """``n`` points in ``n_classes`` classes on curved sheets, in ``dim`` dimensions.

    The recipe of :func:`smallvis.datasets.curved_clusters` (a strip of a
    spiral surface per class, moved to a random centre of sd 2 in a latent
    space, lifted by an orthonormal map, plus noise of sd 0.5 in every
    dimension) with 25 classes in a 12-dimensional latent space; labels are
    shuffled so that any prefix of the rows is a sample of every class.

    Returns
    -------
    X : ndarray of shape (n, dim)
    labels : ndarray of shape (n,)
    """
    rng = np.random.default_rng(seed)
    weights = rng.uniform(0.5, 1.5, n_classes)
    counts = np.floor(weights / weights.sum() * n).astype(np.int64)
    counts[: n - int(counts.sum())] += 1
    centres = rng.normal(0.0, 2.0, size=(n_classes, latent))
    lift, _ = np.linalg.qr(rng.standard_normal((dim, latent)))
    labels = rng.permutation(np.repeat(np.arange(n_classes), counts))
    X = np.empty((n, dim))
    for c in range(n_classes):
        rows = np.flatnonzero(labels == c)
        u, v = rng.random(len(rows)), rng.random(len(rows))
        theta = np.pi * (0.5 + 1.5 * u)
        r = 1.0 + 0.5 * theta
        sheet = np.column_stack([r * np.cos(theta), r * np.sin(theta), 3.0 * v])
        basis, _ = np.linalg.qr(rng.standard_normal((latent, 3)))
        X[rows] = ((centres[c] + sheet @ basis.T) @ lift.T
                   + 0.5 * rng.standard_normal((len(rows), dim)))
    return X, labels


CHILD = r"""
import json, resource, sys, time, warnings
sys.path.insert(0, sys.argv[1])
import _common
import numpy as np
from bench_scale import structured_data
n, who, params, y_path = int(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4]), sys.argv[5]
X, labels = structured_data(n)
del labels
if who == "umap-learn":
    from umap import UMAP
    warnings.simplefilter("ignore")
    # compile numba's functions, NN-descent's included (used above 4096 points)
    UMAP(n_epochs=5).fit_transform(X[:5000])
else:
    import smallvis
    from smallvis import plans
    # the stages timed from outside: the call is the user's (return_result
    # would keep P, which a plain call lets the optimizer reuse)
    marks = {}

    def timed(cls, name):
        inner = getattr(cls, name)

        def wrapper(self, *args, **kwargs):
            marks.setdefault(name, time.perf_counter())
            out = inner(self, *args, **kwargs)
            marks[name + " end"] = time.perf_counter()
            return out
        setattr(cls, name, wrapper)

    timed(plans._Start, "start")
    for plan in (plans.SgdPlan, plans.ExactPlan):
        timed(plan, "run")
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0, c0 = time.perf_counter(), time.process_time()
if who == "umap-learn":
    Y = UMAP(**params).fit_transform(X)
    stages = {}
else:
    Y = smallvis.embed(X, who, fast=True, random_state=0, **params)
    stages = {"affinities": marks["start"] - t0, "init": marks["run"] - marks["start"],
              "optimize": marks["run end"] - marks["run"]}
total, cpu = time.perf_counter() - t0, time.process_time() - c0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
np.save(y_path, np.asarray(Y, dtype=np.float64))
print(json.dumps({"total": total, "cpu": cpu, "stages": stages, "base_kb": base,
                  "peak_kb": peak}))
"""

QUALITY_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import _common
import numpy as np
from bench_real import exact_neighbors_of, fixed_rows, knn_preservation_at
from bench_scale import structured_data
from smallvis.metrics import knn_accuracy
n, y_paths = int(sys.argv[2]), sys.argv[3:]
X, labels = structured_data(n)
rows = fixed_rows(n)
nn_x = exact_neighbors_of(X, rows, 15)
del X
sub = np.random.default_rng(1).choice(n, size=min(n, 10000), replace=False)
out = {}
for path in y_paths:
    Y = np.load(path)
    out[path] = {"acc": knn_accuracy(Y[sub], labels[sub], 10),
                 "pres15": knn_preservation_at(nn_x, Y, rows, 15)}
print(json.dumps(out))
"""


def _smallvis_parent():
    """The folder holding the smallvis this interpreter would import (not importing it).

    An installed package (CI installs one) where there is one; otherwise this
    checkout, built in place.
    """
    spec = importlib.util.find_spec("smallvis")
    return os.path.dirname(os.path.dirname(spec.origin)) if spec and spec.origin else ROOT


def child_env():
    """One thread, and the same smallvis importable (the peers' interpreter too)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (_smallvis_parent(), env.get("PYTHONPATH")) if p)
    return env


def _last_json(out):
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr else "failed"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_child(n, who, params, y_path, python=sys.executable):
    """Run one call in a child; its timings and memory (the map goes to ``y_path``)."""
    return _last_json(subprocess.run(
        [python, "-c", CHILD, HERE, str(n), who, json.dumps(params), y_path],
        capture_output=True, text=True, env=child_env(), cwd=os.path.dirname(y_path)))


def run_quality(n, y_paths):
    """10-NN accuracy and 15-NN preservation of each saved map, in one child."""
    if not y_paths:
        return {}
    res = _last_json(subprocess.run([sys.executable, "-c", QUALITY_CHILD, HERE, str(n),
                                     *y_paths], capture_output=True, text=True,
                                    env=child_env(), cwd=os.path.dirname(y_paths[0])))
    return {path: res for path in y_paths} if "error" in res else res


def fmt_row(n, name, res, qual):
    if "error" in res:
        return f"| {n:,} | {name} | failed: {res['error']} | | | | | | | | |"
    st = res["stages"]
    cell = (lambda k: f"{st[k]:.1f}") if st else (lambda k: "-")
    gib = res["peak_kb"] / 1024 ** 2
    base = res["base_kb"] / 1024 ** 2
    if "error" in qual:
        acc = pres = f"failed: {qual['error']}"
    else:
        acc, pres = f"{qual['acc']:.3f}", f"{qual['pres15']:.3f}"
    return (f"| {n:,} | {name} | {cell('affinities')} | {cell('init')} | "
            f"{cell('optimize')} | {res['total']:.1f} | {res['cpu']:.1f} | {gib:.2f} | "
            f"{base:.2f} | {acc} | {pres} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+",
                        default=[10_000, 30_000, 70_000, 150_000])
    parser.add_argument("--methods", nargs="*", default=["largevis", "umap"],
                        help="smallvis methods to run (none: only umap-learn)")
    parser.add_argument("--largevis-params", type=json.loads, default={},
                        help="extra embed keywords for largevis, as JSON")
    parser.add_argument("--skip-umap-learn", action="store_true")
    parser.add_argument("--peers-python", default=sys.executable,
                        help="the Python that has umap-learn (default: this one)")
    args = parser.parse_args()
    _common.report_provenance(peers_python=args.peers_python)
    # not imported here: a child inherits the parent's peak RSS through
    # fork and exec, and umap-learn's imports (numba, llvmlite, ...) would
    # raise every child's floor to about 0.25 GiB
    have_umap = not args.skip_umap_learn and subprocess.run(
        [args.peers_python, "-c", "import umap"], capture_output=True).returncode == 0
    print(f"one thread; load average at start: "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("\n| N | call | kNN + P s | init s | optimise s | total s | CPU s | peak RSS GiB "
          "| RSS before GiB | 10-NN accuracy | 15-NN preservation |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="bench_scale_") as work:
        for n in args.sizes:
            calls = []
            for method in args.methods:
                params = args.largevis_params if method == "largevis" else {}
                label = f"smallvis {method}" + (f" {json.dumps(params)}" if params else "")
                calls.append((label, method, params, sys.executable))
            if have_umap:
                calls.append(("umap-learn UMAP()", "umap-learn", {}, args.peers_python))
            runs = []
            for i, (label, who, params, python) in enumerate(calls):
                y_path = os.path.join(work, f"{n}_{i}.npy")
                runs.append((label, y_path, run_child(n, who, params, y_path, python)))
            qual = run_quality(n, [y for _, y, res in runs if "error" not in res])
            for label, y_path, res in runs:
                print(fmt_row(n, label, res, qual.get(y_path, {})), flush=True)
    print(f"\nload average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
