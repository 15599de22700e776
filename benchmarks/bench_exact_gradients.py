"""Exact cost-and-gradient kernels on the 1797-point digits data, one thread.

For each method the input affinities are the method's own (umap: the fuzzy
15-NN graph; largevis: perplexity 50 over 150 neighbours; tsne: the dense
perplexity-30 P), and Y is a fixed random layout of realistic spread.
Prints, for fast=True (Cython) and fast=False (NumPy), the median time of
one gradient-kernel call (what the exact optimizer pays per iteration) and
of one public ``cost_and_gradient`` call (validation + cost + gradient).

Usage: python benchmarks/bench_exact_gradients.py [--repeats 5]
"""

import argparse

import _common  # noqa: F401  (single-threaded environment first)
import numpy as np

import smallvis
from _common import median_time
from smallvis.backends import _kernels
from smallvis.backends import reference
from smallvis._validation import check_affinities
from smallvis.inputs.affinities import kernel_triplet

METHODS = ("tsne", "largevis", "umap", "tumap", "ncvis")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    _common.report_provenance()
    X, _ = smallvis.datasets.load("digits")
    Y = np.random.default_rng(0).normal(scale=5.0, size=(len(X), 2))
    print(f"exact gradients, digits (N={len(X)}), 2-D, 1 thread, median of {args.repeats}")
    print(f"{'method':<9} {'nnz(P)':>8} | {'gradient kernel: Cython ms':>26} {'NumPy ms':>9} "
          f"{'ratio':>7} | {'cost_and_gradient: Cython ms':>28} {'NumPy ms':>9} {'ratio':>7}")
    for method in METHODS:
        m = smallvis.METHODS[method]
        P = smallvis.affinities(X, method, fast=True, random_state=0)
        nnz = P.nnz if hasattr(P, "nnz") else np.count_nonzero(P)
        triplet = kernel_triplet(check_affinities(P, len(X), symmetric=m.symmetric,
                                                  fuzzy=m.fuzzy))
        params = m.resolve_auto(dict(m.cost_params), len(X))
        learned = tuple(params[k] for k in m.learned)
        row = []
        for module in (_kernels, reference):
            _, gradient, fixed = m.cost_kernels(module, params)
            grad = np.zeros_like(Y)
            t, _, _ = median_time(lambda: gradient(*triplet, Y, *learned, *fixed, grad, 1),
                                  args.repeats)
            row.append(t)
        for fast in (True, False):
            t, _, _ = median_time(lambda: smallvis.cost_and_gradient(method, P, Y, fast=fast),
                                  args.repeats)
            row.append(t)
        gk_fast, gk_ref, cg_fast, cg_ref = (1e3 * t for t in row)
        print(f"{method:<9} {nnz:>8d} | {gk_fast:>26.2f} {gk_ref:>9.1f} {gk_ref / gk_fast:>6.1f}x"
              f" | {cg_fast:>28.2f} {cg_ref:>9.1f} {cg_ref / cg_fast:>6.1f}x")


if __name__ == "__main__":
    main()
