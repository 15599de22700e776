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
``smallvis.reference.DENSE_ARRAYS`` dense N x N arrays and refuses N above
the limit set by ``smallvis.reference.MAX_DENSE_BYTES`` (N > 4096 by
default) before allocating anything.

Usage: python benchmarks/bench_memory.py [--sizes 1000 2000 4000 8000 20000] [--n-iter 5]
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
    args = parser.parse_args()
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
