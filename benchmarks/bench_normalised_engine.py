"""The compiled normalised engine on the 1797-point digits data, per call.

For each method whose exact kernels run on the generic normalised engine
(a registry entry with ``normalised_units``), the median time of one
``normalised_gradient`` and one ``normalised_cost`` call, with the method's
own affinities and default parameters, beside asne's hand-written gradient
(``asne_gradient``, a fast path of the same maths for the KL divergence).
Y is a fixed random 2-D layout.  Each call is timed alone, so run it with
nothing else on the machine, or compare two builds in alternation.

Usage: python benchmarks/bench_normalised_engine.py [--calls 31] [--threads 1]
"""

import argparse

import _common  # single-threaded environment first
import numpy as np

import smallvis
from _common import median_time
from smallvis.backends import _kernels
from smallvis._validation import check_affinities
from smallvis.inputs.affinities import kernel_triplet
from smallvis.registry import METHODS


def _triplet(method, X):
    m = METHODS[method]
    P = smallvis.affinities(X, method, fast=True, random_state=0)
    return kernel_triplet(check_affinities(P, len(X), symmetric=m.symmetric, fuzzy=m.fuzzy))


def _unit(method, n):
    m = METHODS[method]
    prefix, args = m.kernel_name(m.resolve_auto(dict(m.cost_params), n))
    return m.normalised_units[prefix](*args)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=31)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    _common.report_provenance()
    X, _ = smallvis.datasets.load("digits")
    n, nt = len(X), args.threads
    Y = np.random.default_rng(0).normal(size=(n, 2))
    grad = np.zeros_like(Y)
    print(f"normalised engine, digits (N={n}), 2-D, {nt} thread(s), "
          f"median of {args.calls} calls, ms")
    asne = _triplet("asne", X)
    t, _, _ = median_time(lambda: _kernels.asne_gradient(*asne, Y, grad, nt), args.calls)
    print(f"{'asne_gradient (fast path)':<28} {1e3 * t:8.1f}")
    for method, m in METHODS.items():
        if not m.normalised_units or m.prefix not in m.normalised_units:
            continue
        unit, triplet = _unit(method, n), _triplet(method, X)
        tg, _, _ = median_time(
            lambda: _kernels.normalised_gradient(unit, *triplet, Y, grad, nt), args.calls)
        tc, _, _ = median_time(
            lambda: _kernels.normalised_cost(unit, *triplet, Y, nt), args.calls)
        print(f"{method + ' gradient / cost':<28} {1e3 * tg:8.1f} {1e3 * tc:8.1f}")


if __name__ == "__main__":
    main()
