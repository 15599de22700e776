"""Placing new points: fit on 80% of digits, transform the other 20%, every method.

Data: the 1,797 digits, split once with ``numpy.random.default_rng(0)``
(1,437 training points, 360 new points).  For every smallvis method,
``smallvis.Embedding(method, random_state=0)`` (defaults, Cython kernels,
one thread) is fitted on the training split, then ``transform`` places the
new points.  Quality: 10-NN classification accuracy of the new points, each
label predicted by majority vote of its 10 nearest *training* points in the
embedding.  Time: median of ``--repeats`` transform calls after one warm-up
call (the warm-up absorbs umap-learn's JIT compilation; ours has none).
Beside them, when installed: umap-learn's ``UMAP(random_state=0)`` and
openTSNE's ``TSNE(random_state=0, n_jobs=1)`` with their own ``transform``.

``--optimizer sgd`` fits (and so places) with the stochastic optimizer
instead (the methods that have one); the other implementations are then
skipped.

Usage: python benchmarks/bench_transform.py [--repeats 3] [--methods tsne,umap]
       [--optimizer sgd] [--no-others]
"""

import argparse
import time

import _common  # noqa: F401  (sets single-threaded environment first)
import numpy as np
from scipy.spatial.distance import cdist

import smallvis
from _common import median_time


def split(seed=0, train=0.8):
    X, y = smallvis.datasets.load("digits")
    order = np.random.default_rng(seed).permutation(len(X))
    n = int(round(train * len(X)))
    return X[order[:n]], y[order[:n]], X[order[n:]], y[order[n:]]


def knn_accuracy(Y_train, y_train, Y_new, y_new, k=10):
    """Fraction of new points whose majority label among their k nearest training points is right."""
    nn = np.argsort(cdist(Y_new, Y_train), axis=1)[:, :k]
    pred = np.array([np.bincount(votes).argmax() for votes in y_train[nn]])
    return float(np.mean(pred == y_new))


def leave_one_out_accuracy(Y, y, k=10):
    """The same vote for the training points themselves, each point left out."""
    D = cdist(Y, Y)
    np.fill_diagonal(D, np.inf)
    nn = np.argsort(D, axis=1)[:, :k]
    pred = np.array([np.bincount(votes).argmax() for votes in y[nn]])
    return float(np.mean(pred == y))


def measure(name, fit, transform, data, repeats):
    X, y, X_new, y_new = data
    start = time.perf_counter()
    Y_train = fit(X)
    fit_s = time.perf_counter() - start
    transform(X_new)  # warm-up
    median, times, Y_new = median_time(lambda: transform(X_new), repeats)
    Y_train = np.asarray(Y_train)
    return dict(name=name, fit=fit_s, transform=median, times=times,
                accuracy=knn_accuracy(Y_train, y, np.asarray(Y_new), y_new),
                ceiling=leave_one_out_accuracy(Y_train, y))


def ours(method, optimizer="auto"):
    model = smallvis.Embedding(method, random_state=0, optimizer=optimizer)
    return (lambda X: model.fit(X).embedding_), model.transform


def umap_learn():
    import umap

    model = umap.UMAP(random_state=0)
    return (lambda X: model.fit(X).embedding_), model.transform


def open_tsne():
    from openTSNE import TSNE

    state = {}

    def fit(X):
        state["embedding"] = TSNE(random_state=0, n_jobs=1).fit(X)
        return state["embedding"]

    return fit, lambda X_new: state["embedding"].transform(X_new)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--methods", default=None,
                        help="comma-separated; default: every method (with --optimizer sgd, "
                             "every method that has a stochastic form)")
    parser.add_argument("--optimizer", default="auto", choices=("auto", "exact", "sgd"))
    parser.add_argument("--no-others", action="store_true",
                        help="skip umap-learn and openTSNE")
    args = parser.parse_args()
    _common.report_provenance()
    data = split()
    print(f"digits: {len(data[0])} training points, {len(data[2])} new points, one thread, "
          f"optimizer {args.optimizer}")
    rows = []
    methods = args.methods.split(",") if args.methods else [
        name for name, entry in smallvis.METHODS.items()
        if args.optimizer != "sgd" or entry.sgd is not None]
    for method in methods:
        rows.append(measure(f"smallvis {method}", *ours(method, args.optimizer), data,
                            args.repeats))
    others = () if args.no_others or args.optimizer != "auto" else (
        ("umap-learn UMAP", umap_learn), ("openTSNE TSNE", open_tsne))
    for name, make in others:
        try:
            rows.append(measure(name, *make(), data, args.repeats))
        except ImportError:
            print(f"({name} not installed)")
    print(f"\n| {'implementation':<20} | {'10-NN acc. (new)':>16} | {'same, fitted map':>16} | "
          f"{'transform s':>11} | {'runs':>20} | {'fit s':>6} |")
    print(f"|{'-' * 22}|{'-' * 17}:|{'-' * 17}:|{'-' * 12}:|{'-' * 21}:|{'-' * 7}:|")
    for r in rows:
        runs = ", ".join(f"{t:.3f}" for t in r["times"])
        print(f"| {r['name']:<20} | {r['accuracy']:>16.3f} | {r['ceiling']:>16.3f} | "
              f"{r['transform']:>11.3f} | "
              f"{runs:>20} | {r['fit']:>6.1f} |")


if __name__ == "__main__":
    main()
