"""NCVis's per-row correction of Q (docs/theory.md §4.5) on data with and without hubs.

The NCVis reference learns one scalar for all heads, as if the noise
probability p_i^- = (sum_k p_ik) / (N - 1) were the same for every row.  In a
kNN graph with hubs it is not: a hub's union-symmetrised row is far longer.
``correct_q=True`` adds log p_i^- per head, so the learned scalar estimates
the normalisation Q.  For each dataset and setting this prints the spread of
log p_i^-, the learned Q, the exact NCE cost -J of the final layout at that
Q and at the best Q for the layout, 15-NN preservation, and the time.

Usage: python benchmarks/bench_ncvis_correct_q.py [--repeats 3]
"""

import argparse
import statistics
import time
import warnings

import _common  # noqa: F401  (single-threaded environment first)
import numpy as np
from scipy.optimize import minimize_scalar

import smallvis


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    _common.report_provenance()
    warnings.simplefilter("ignore")
    print(f"NCVis SGD (50 epochs, fast=True, 1 thread), median of {args.repeats} seeds")
    print(f"{'data':<6} {'sd log p_i^-':>12} {'correct_q':>9} {'learned Q':>10} "
          f"{'-J at Q':>10} {'-J at best Q':>13} {'15-NN pres.':>11} {'seconds':>8}")
    for name in ("hubs", "s1k"):
        X, _ = smallvis.datasets.load(name)
        P = smallvis.affinities(X, "ncvis", random_state=0)
        log_p = np.log(np.asarray(P.sum(axis=1)).ravel() / (len(X) - 1))
        for correct_q in (False, True):
            rows = []
            for seed in range(args.repeats):
                t = time.perf_counter()
                r = smallvis.embed(X, "ncvis", fast=True, optimizer="sgd", random_state=seed,
                                   correct_q=correct_q, return_result=True)
                seconds = time.perf_counter() - t
                at_q = smallvis.cost_and_gradient("ncvis", P, r.Y, fast=True, Q=r.Q)[0]
                best = minimize_scalar(
                    lambda q: smallvis.cost_and_gradient("ncvis", P, r.Y, fast=True, Q=q)[0],
                    bracket=(r.Q - 1.0, r.Q + 1.0))
                pres = smallvis.metrics.knn_preservation(X, r.Y, 15)
                rows.append((r.Q, at_q, best.fun, pres, seconds))
            med = [statistics.median(col) for col in zip(*rows)]
            print(f"{name:<6} {log_p.std():>12.3f} {str(correct_q):>9} {med[0]:>10.3f} "
                  f"{med[1]:>10.4f} {med[2]:>13.4f} {med[3]:>11.3f} {med[4]:>8.2f}")


if __name__ == "__main__":
    main()
