"""Peak resident memory (RSS) of smallvis calls, one fresh process per cell.

For each N and path this runs, in a child process, either the whole
``embed`` (affinities + a few exact-optimizer iterations) or only the kernels
(``cost_and_gradient`` on a given sparse kNN-like P, which skips the dense
affinity step), and prints the child's peak RSS from ``getrusage``.  The
baseline (Python + numpy + scipy + smallvis imported, data built) is
subtracted in the last column.

What to expect: the Cython kernels keep O(N) scratch, so
``cost_and_gradient`` with a sparse P grows linearly; ``embed`` with t-SNE
calibrates P over all points (dense) up to 4096 points and over 3 x
perplexity nearest neighbours (sparse) above, so at N = 20,000 the whole
Cython exact run stays in a few hundred MiB; the NumPy reference holds about
``smallvis.backends.reference.DENSE_ARRAYS`` dense N x N arrays and refuses N above
the limit set by ``smallvis.backends.reference.MAX_DENSE_BYTES`` (N > 4096 by
default) before allocating anything.

``--graph``: instead, the LargeVis input graph alone
(``joint_perplexity_knn`` with k = 150 = 3 x perplexity 50, Cython kernels,
Annoy with 7 trees as ``optimizer="sgd"`` uses) on structured synthetic
50-D data (``gaussian_clusters`` of bench_sgd.py) at each size, with the
child's whole-process peak RSS (the data, the Annoy index, the neighbour
arrays and the sparse P; C allocations are invisible to tracemalloc).

``--stages``: instead, the headline call of ``bench_scale.py``
(``embed(X, "largevis", fast=True, random_state=0)`` on its structured
50-D data, with ``--n-epochs`` epochs, 3 by default: the optimizer's
arrays are all allocated before its first epoch) in a child that samples
its resident set every 20 ms and prints the highest value seen in each
stage: the kNN search (queries, candidate distances, refinement, package
order), the calibration, the symmetrisation, the start and the stochastic
optimizer's preparation (edges and alias tables) and run.  The stage
functions are wrapped by name, so the child reports what each holds at
its peak; the number of edges of P per point comes last.

Usage: python benchmarks/bench_memory.py [--sizes 1000 2000 4000 8000 20000] [--n-iter 5]
       python benchmarks/bench_memory.py --graph [--sizes 20000 70000]
       python benchmarks/bench_memory.py --stages [--sizes 100000] [--n-epochs 3]
"""

import argparse
import json
import subprocess
import sys

import _common  # noqa: F401  (sets single-threaded environment first)

CHILD = r"""
import json, resource, sys
import numpy as np, scipy.sparse as sp
import smallvis
n, what, fast, n_iter = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "1", int(sys.argv[4])
rng = np.random.default_rng(0)
X = rng.normal(size=(n, 10))
k = 30
rows = np.repeat(np.arange(n), k)
cols = (rows + rng.integers(1, n, size=n * k)) % n
P = sp.csr_matrix((np.ones(n * k), (rows, cols)), shape=(n, n))
P = P + P.T
P = P / P.sum()
Y = rng.normal(size=(n, 2))
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
status = "ok"
try:
    if what == "embed":
        smallvis.embed(X, "tsne", fast=fast, n_iter=n_iter, random_state=0)
    else:
        smallvis.cost_and_gradient("tsne", P, Y, fast=fast)
except ValueError as exc:
    status = "refused: " + str(exc).split(":")[0]
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"base_kb": base, "peak_kb": peak, "status": status}))
"""


GRAPH_CHILD = r"""
import importlib, json, resource, sys, time
import numpy as np
from smallvis.backends import _kernels
aff = importlib.import_module("smallvis.inputs.affinities")
n = int(sys.argv[1])
# gaussian_clusters(n) of bench_sgd.py (same draws), its einsum done in
# blocks so that making the data does not set the peak
rng = np.random.default_rng(0)
dim, n_clusters, latent_dim = 50, 20, 5
centres = rng.normal(scale=4.0, size=(n_clusters, dim))
maps = rng.normal(scale=1.0 / np.sqrt(latent_dim), size=(n_clusters, latent_dim, dim))
labels = rng.integers(n_clusters, size=n)
latent = rng.normal(size=(n, latent_dim))
X = centres[labels]
for s in range(0, n, 4096):
    X[s:s + 4096] += np.einsum("nl,nld->nd", latent[s:s + 4096], maps[labels[s:s + 4096]])
X += rng.normal(scale=0.1, size=(n, dim))
del latent, labels
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
P = aff.joint_perplexity_knn(X, 50.0, _kernels, n_neighbors=150, knn_method="annoy",
                             n_trees=7, random_state=0, n_threads=1)
seconds = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"base_kb": base, "peak_kb": peak, "nnz": int(P.nnz), "seconds": seconds}))
"""


STAGES_CHILD = r"""
import importlib, json, sys, threading, time
sys.path.insert(0, sys.argv[1])
import _common
import numpy as np
from bench_scale import structured_data
n, n_epochs = int(sys.argv[2]), int(sys.argv[3])
X, _ = structured_data(n)
import smallvis
from smallvis import plans


def rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


stages = []  # [name, peak MiB]: the innermost open stage gets the samples
open_stages = []
done = threading.Event()


def sample():
    while not done.is_set():
        value = rss_mib()
        for entry in open_stages[-1:]:
            entry[1] = max(entry[1], value)
        time.sleep(0.02)


def wrapped(name, f):
    def g(*args, **kwargs):
        entry = [name, rss_mib()]
        stages.append(entry)
        open_stages.append(entry)
        try:
            return f(*args, **kwargs)
        finally:
            entry[1] = max(entry[1], rss_mib())
            open_stages.pop()
            if open_stages:  # what the caller holds after its callee
                open_stages[-1][1] = max(open_stages[-1][1], rss_mib())
    return g


for module, name, label in [
        ("smallvis.inputs.neighbors", "annoy_candidates", "kNN: queries"),
        ("smallvis.inputs.neighbors", "candidate_sq_distances", "kNN: candidate distances"),
        ("smallvis.inputs.neighbors", "refine", "kNN: refinement"),
        ("smallvis.inputs.affinities", "_perplexity_rows", "calibration"),
        ("smallvis.inputs.affinities", "symmetric_union", "symmetrisation"),
        ("smallvis.engines.sgd", "prepare", "sgd: edges and alias tables"),
        ("smallvis.engines.sgd", "optimize_sgd", "sgd: epochs")]:
    m = importlib.import_module(module)
    setattr(m, name, wrapped(label, getattr(m, name)))
nb = importlib.import_module("smallvis.inputs.neighbors")
nb.KNNIndex._in_package_order = wrapped("kNN: package order", nb.KNNIndex._in_package_order)
plans.initialize = wrapped("start", plans.initialize)
edges = []
sgd = importlib.import_module("smallvis.engines.sgd")
counted = sgd.prepare
sgd.prepare = lambda spec, P, *a, **kw: (edges.append(P.nnz), counted(spec, P, *a, **kw))[1]
base = rss_mib()
threading.Thread(target=sample, daemon=True).start()
# the user's call: without return_result, which would keep P through the optimizer
smallvis.embed(X, "largevis", fast=True, random_state=0, n_epochs=n_epochs)
done.set()
print(json.dumps({"base": base, "stages": stages, "edges_per_point": edges[0] / n}))
"""


def measure_stages(n, n_epochs):
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run([sys.executable, "-c", STAGES_CHILD, here, str(n), str(n_epochs)],
                         cwd=here, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure_graph(n):
    import os

    here = os.path.dirname(os.path.abspath(__file__))  # the child imports smallvis
    out = subprocess.run([sys.executable, "-c", GRAPH_CHILD, str(n)], cwd=here,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(n, what, fast, n_iter):
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(n), what, "1" if fast else "0", str(n_iter)],
        capture_output=True, text=True, check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000, 8000, 20000])
    parser.add_argument("--n-iter", type=int, default=5)
    parser.add_argument("--graph", action="store_true",
                        help="peak RSS of the LargeVis graph (k = 150) alone")
    parser.add_argument("--stages", action="store_true",
                        help="peak RSS of each stage of embed(X, 'largevis')")
    parser.add_argument("--n-epochs", type=int, default=3,
                        help="--stages: epochs of the stochastic optimizer")
    args = parser.parse_args()
    _common.report_provenance()
    if args.stages:
        for n in args.sizes:
            r = measure_stages(n, args.n_epochs)
            print(f"embed(X, 'largevis'), {n} x 50 points, {r['edges_per_point']:.1f} edges "
                  f"of P per point; before the call {r['base']:.0f} MiB")
            print(f"{'stage':<32} {'peak RSS MiB':>13} {'above base MiB':>15}")
            for name, peak in r["stages"]:
                print(f"{name:<32} {peak:>13.0f} {peak - r['base']:>15.0f}", flush=True)
        return
    if args.graph:
        print(f"{'LargeVis graph, k = 150':<28} {'N':>7} {'nnz(P)':>10} {'seconds':>8} "
              f"{'peak RSS MiB':>13} {'above base MiB':>15}")
        for n in args.sizes:
            r = measure_graph(n)
            print(f"{'joint_perplexity_knn':<28} {n:>7} {r['nnz']:>10} {r['seconds']:>8.2f} "
                  f"{r['peak_kb'] / 1024:>13.0f} {(r['peak_kb'] - r['base_kb']) / 1024:>15.0f}",
                  flush=True)
        return
    print(f"{'call':<36} {'N':>7} {'peak RSS MiB':>13} {'above base MiB':>15}  status")
    for what in ("cost_and_gradient", "embed"):
        for fast in (True, False):
            for n in args.sizes:
                r = measure(n, what, fast, args.n_iter)
                label = f"{what} fast={fast}" + (f" n_iter={args.n_iter}" if what == "embed" else "")
                print(f"{label:<36} {n:>7} {r['peak_kb'] / 1024:>13.0f} "
                      f"{(r['peak_kb'] - r['base_kb']) / 1024:>15.0f}  {r['status']}",
                      flush=True)


if __name__ == "__main__":
    main()
