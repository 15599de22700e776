"""Record the frozen numbers checked by tests/test_testing_frozen.py.

Run from the repository root, only when a change of these numbers is
intended (a version bump and a CHANGELOG.md line; docs/stability.md)::

    python tests/data/frozen/make_frozen.py

Every setting is explicit (no defaults, a stored initial layout, UMAP's a
and b given rather than fitted), so that only a change of an algorithm can
change the numbers.
"""

import hashlib
import json
import os
import platform

import numpy as np

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


def sgd_run(method, X, Y0):
    params = dict(SGD_RUNS[method])
    n_epochs = params.pop("n_epochs")
    knn = {"knn_method": "exact"}
    return smallvis.embed(X, method, optimizer="sgd", fast=True, n_threads=1, random_state=7,
                          init=Y0.copy(), n_epochs=n_epochs, learning_rate=1.0, **knn, **params)


def exact_run(method, X, Y0):
    params = dict(EXACT_RUNS[method])
    exaggeration = {"exaggeration": params.pop("exaggeration", 1.0),
                    "exaggeration_iter": params.pop("exaggeration_iter", 0)}
    if "n_neighbors" in params:
        params["knn_method"] = "exact"
    return smallvis.embed(X, method, optimizer="exact", init=Y0.copy(), return_result=True,
                          **exaggeration, **EXACT_COMMON, **params)


def main():
    X, Y0 = data()
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
