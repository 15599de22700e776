"""Record the frozen numbers checked by tests/test_testing_frozen.py.

Run from the repository root, only when a change of these numbers is
intended (a version bump and a CHANGELOG.md line; docs/stability.md)::

    python tests/data/frozen/make_frozen.py

Every setting is explicit (no defaults, a stored initial layout, UMAP's a
and b given rather than fitted), so that only a change of an algorithm can
change the numbers.

The runs take their input affinities from ``affinities.npz`` beside this
script, computed once by ``smallvis.affinities`` with each run's settings.
Calibration calls numpy's own ``exp`` and ``log``, whose last bits differ
between numpy releases (1.26 and 2.4 differ in a few hundred entries of
UMAP's P, by one unit in the last place), and a chaotic run amplifies one
such bit into a different trajectory; so these numbers pin the optimizers,
and P is pinned separately, to 1e-12, by the golden cases
(tests/test_testing_golden.py).  ``python make_frozen.py --affinities``
records the affinities alone.
"""

import hashlib
import json
import os
import platform
import sys

import numpy as np
import scipy.sparse as sp

import smallvis
from smallvis.testing import golden

HERE = os.path.dirname(os.path.abspath(__file__))

#: Stochastic runs: fast=True, one thread, fixed random_state.
SGD_RUNS = {
    "umap": dict(n_neighbors=15, a=1.577, b=0.895, eps=0.001, n_epochs=60),
    "tumap": dict(n_neighbors=15, eps=0.001, n_epochs=60),
    # the reference's schedule (no early phase), as when these were recorded
    "largevis": dict(perplexity=10.0, n_neighbors=30, gamma=7.0, eps=0.1, early_epochs=0,
                     n_epochs=20),
}

#: Exact-optimizer runs: learning rates of the R smallvis fixtures.
EXACT_RUNS = {
    "asne": dict(learning_rate=0.3125, perplexity=20.0),
    "ssne": dict(learning_rate=10.0, perplexity=20.0),
    "tsne": dict(learning_rate=100.0, perplexity=20.0, exaggeration=4.0, exaggeration_iter=20),
    "largevis": dict(learning_rate=1.0, perplexity=20.0, n_neighbors=149, gamma=1.0, eps=0.1),
    "umap": dict(learning_rate=1.0, n_neighbors=15, a=1.929, b=0.7915, eps=0.1),
    "tumap": dict(learning_rate=1.0, n_neighbors=15, eps=0.1),
    "ncvis": dict(learning_rate=1.0, n_neighbors=15, a=0.767, b=1.223, nu=5.0, Q=0.0),
}

EXACT_COMMON = dict(n_iter=60, cost_every=10, tol=0.0, momentum=0.5, final_momentum=0.8,
                    momentum_switch_iter=30, min_gain=0.01, fast=True, n_threads=1)


def data():
    """Jittered iris (no distance ties) and a fixed initial layout."""
    X = golden("umap")["X"]
    Y0 = 1e-2 * golden("tumap")["Y"] / np.std(golden("tumap")["Y"])
    return X, Y0


def hexes(a):
    return [float(v).hex() for v in np.asarray(a).ravel()]


AFFINITIES = os.path.join(HERE, "affinities.npz")


def _split(method, params):
    """A run's settings as ``(affinity settings, the others)``, by the method's entry."""
    entry = smallvis.registry.METHODS[method]
    of_p = {k: v for k, v in params.items() if k in entry.affinity_params}
    if "knn_method" in entry.affinity_params:
        of_p["knn_method"] = "exact"
    return of_p, {k: v for k, v in params.items() if k not in of_p}


def _runs():
    """``(key, method, settings)`` of every frozen run."""
    return ([(f"sgd_{m}", m, p) for m, p in SGD_RUNS.items()]
            + [(f"exact_{m}", m, p) for m, p in EXACT_RUNS.items()])


def record_affinities(X):
    """Compute each run's P and write them to :data:`AFFINITIES` (dense, or CSR parts)."""
    arrays = {}
    for key, method, params in _runs():
        P = smallvis.affinities(X, method, **_split(method, params)[0])
        if sp.issparse(P):
            P = sp.csr_matrix(P)
            arrays.update({f"{key}.data": P.data, f"{key}.indices": P.indices,
                           f"{key}.indptr": P.indptr})
        else:
            arrays[key] = P
    np.savez_compressed(AFFINITIES, **arrays)


def stored_affinities(key):
    """The P of run ``key`` as :func:`record_affinities` stored it (the same type and bits)."""
    with np.load(AFFINITIES) as f:
        if key in f:
            return f[key]
        data, indices, indptr = (f[f"{key}.{part}"] for part in ("data", "indices", "indptr"))
    n = indptr.shape[0] - 1
    return sp.csr_matrix((data, indices, indptr), shape=(n, n))


def sgd_run(method, X, Y0):
    params = dict(SGD_RUNS[method])
    n_epochs = params.pop("n_epochs")
    rest = _split(method, params)[1]
    return smallvis.embed(X, method, affinities=stored_affinities(f"sgd_{method}"),
                          optimizer="sgd", fast=True, n_threads=1, random_state=7,
                          init=Y0.copy(), n_epochs=n_epochs, learning_rate=1.0, **rest)


def exact_run(method, X, Y0):
    params = dict(EXACT_RUNS[method])
    exaggeration = {"exaggeration": params.pop("exaggeration", 1.0),
                    "exaggeration_iter": params.pop("exaggeration_iter", 0)}
    rest = _split(method, params)[1]
    return smallvis.embed(X, method, affinities=stored_affinities(f"exact_{method}"),
                          optimizer="exact", init=Y0.copy(), return_result=True,
                          **exaggeration, **EXACT_COMMON, **rest)


def main():
    X, Y0 = data()
    record_affinities(X)
    if sys.argv[1:] == ["--affinities"]:
        return
    out = {"recorded_with": f"smallvis {smallvis.__version__}, numpy {np.__version__}",
           "platform": {"system": platform.system(), "machine": platform.machine()},
           "sgd": {}, "exact": {}}
    for method in SGD_RUNS:
        Y = sgd_run(method, X, Y0)
        out["sgd"][method] = {"sha256": hashlib.sha256(np.ascontiguousarray(Y).tobytes()).hexdigest(),
                              "Y": hexes(Y)}
    for method in EXACT_RUNS:
        r = exact_run(method, X, Y0)
        out["exact"][method] = {"iterations": r.cost_iterations.tolist(),
                                "costs": hexes(r.itercosts), "Q": r.learned.get("Q")}
        print(method, r.itercosts[-1])
    with open(os.path.join(HERE, "frozen.json"), "w") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
