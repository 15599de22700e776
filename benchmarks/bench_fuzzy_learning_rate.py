"""Final exact costs of umap and tumap for a range of fixed learning rates.

The exact (delta-bar-delta) optimizer on the un-normalised UMAP-type costs
(docs/theory.md §3.6-3.7): every pair repels, and a step that suits t-SNE's
normalised cost lets the layout blow up.  For iris (150 points) and s1k
(1000 points) this runs ``embed(method, fast=True, learning_rate=eta,
n_iter=1000, random_state=0)`` for each eta and prints the final cost, or
the error when the run diverges.  The method's ``learning_rate="auto"``
value is printed last for comparison.

Usage: python benchmarks/bench_fuzzy_learning_rate.py [--rates 0.01 0.03 0.1 0.3 1]
"""

import argparse
import time

import _common  # noqa: F401  (single-threaded environment first)

import smallvis
from smallvis import datasets


def final_cost(X, method, learning_rate):
    start = time.perf_counter()
    try:
        r = smallvis.embed(X, method, fast=True, learning_rate=learning_rate, n_iter=1000,
                           random_state=0, return_result=True)
    except (FloatingPointError, RuntimeError, ValueError) as exc:
        return f"fails: {type(exc).__name__}", time.perf_counter() - start
    return f"{r.cost:.6g}", time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", type=float, nargs="+", default=[0.01, 0.03, 0.1, 0.3, 1.0])
    args = parser.parse_args()
    _common.report_provenance()
    print(f"{'data':<6} {'method':<6} {'learning_rate':>14} {'final cost':>16} {'seconds':>8}")
    for name in ("iris", "s1k"):
        X, _ = datasets.load(name)
        for method in ("umap", "tumap"):
            for eta in [*args.rates, "auto"]:
                cost, seconds = final_cost(X, method, eta)
                print(f"{name:<6} {method:<6} {eta!s:>14} {cost:>16} {seconds:8.2f}",
                      flush=True)


if __name__ == "__main__":
    main()
