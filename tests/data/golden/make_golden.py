"""Write the golden cases shipped in the method folders, smallvis/methods/<name>/.

Run from the repository root::

    python tests/data/golden/make_golden.py              # computes the missing cases only
    python tests/data/golden/make_golden.py jse sjse     # (re)computes the cases named
    python tests/data/golden/make_golden.py --all        # recomputes every case

A method's case is its folder's golden.json (the record) and golden.npz
(its Y, gradient and, when it has one, its own P); the inputs several cases
share are smallvis/testing/golden/inputs.npz.  By default only the
registered methods without a shipped case are computed, and only their
folders are written: the shipped cases are not touched, nor is inputs.npz
unless it is missing or differs from the R fixtures.

Inputs: the R smallvis fixtures in tests/data/rsmallvis (P and final Y of
R smallvis runs, see the README there), and smallvis's joint P of the
jittered iris, which the generic cases whose P it is share rather than
each storing a copy.  For each method the golden case is
R's P and R's final layout Y (ncvis, which R smallvis does not have: the
layout of a short smallvis run on the same jittered iris), and the cost and
gradient of smallvis's NumPy reference there.  The script prints the
independent checks (R's own cost at that layout, scikit-learn's
_kl_divergence for t-SNE, finite differences); tests/test_testing_golden.py
repeats them against the installed files.
"""

import json
import os
import sys

import numpy as np
import scipy.sparse as sp

import smallvis
import smallvis.testing
from smallvis.inputs.affinities import fit_curve_ab
from smallvis.testing._golden import CASE_FILES, INPUTS_FILE, case_package

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
RDIR = os.path.join(ROOT, "tests", "data", "rsmallvis")
#: The package's folder (smallvis/), under which the cases and inputs are written.
OUT = os.path.join(ROOT, "smallvis")

#: The format of a case's golden.json: 2 is one case per method folder.
FORMAT = 2

R_SOURCE = ("R package smallvis by James Melville (github.com/jlmelville/smallvis; the R "
            "sources and commits listed in tests/data/rsmallvis/README.md of the smallvis "
            "Python repository), run with R 4.2.2 by tests/data/rsmallvis/generate.R")


NOTES = {
    "asne": ("R smallvis clamps q at machine epsilon before taking its log, which raises its "
             "cost where pairs are far apart; smallvis reports the exact KL divergence. With the "
             "clamp applied, R's formula gives R's number (tests/test_testing_golden.py)."),
    "tsne": ("R smallvis adds eps log(eps) for every entry of P below machine epsilon eps "
             "(150 zero entries here), about 3.5e-10 relative."),
}
NOTES["ssne"] = NOTES["asne"]


def r_fixture(name):
    with open(os.path.join(RDIR, f"{name}.json")) as fh:
        return json.load(fh)


def sparse_parts(prefix, M):
    """``M``'s arrays as the golden loader reads them (``smallvis.testing._golden._matrix``).

    A symmetric ``M`` with a zero diagonal that is denser than half its
    entries keeps its upper triangle alone (``{prefix}__upper``, row by
    row): half the bytes of its pairs, where a sparse one keeps its CSR parts.
    """
    dense = M.toarray() if sp.issparse(M) else np.asarray(M)
    n = dense.shape[0]
    if (np.count_nonzero(dense) > n * (n - 1) // 2 and np.array_equal(dense, dense.T)
            and not np.any(np.diag(dense))):
        return {f"{prefix}__upper": dense[np.triu_indices(dense.shape[0], 1)]}
    M = sp.csr_matrix(M)
    M.sort_indices()
    return {f"{prefix}__data": M.data, f"{prefix}__indices": M.indices.astype(np.int32),
            f"{prefix}__indptr": M.indptr.astype(np.int32)}


def case_folder(name):
    """The folder of ``name``'s case under :data:`OUT`, as the package finds it."""
    return os.path.join(OUT, *case_package(name).split(".")[1:])


def inputs_path():
    """The shared inputs' file under :data:`OUT`."""
    return os.path.join(OUT, "testing", "golden", INPUTS_FILE)


def shipped():
    """The registered methods whose folder holds a case (its golden.json)."""
    return [name for name in smallvis.METHODS
            if os.path.exists(os.path.join(case_folder(name), CASE_FILES[0]))]


def write_inputs(arrays):
    """Write inputs.npz unless it holds these arrays already; whether it was written."""
    path = inputs_path()
    if os.path.exists(path):
        with np.load(path) as old:
            if set(old.files) == set(arrays) and all(
                    old[k].dtype == v.dtype and np.array_equal(old[k], v)
                    for k, v in arrays.items()):
                return False
    os.makedirs(os.path.dirname(path), exist_ok=True)
    np.savez_compressed(path, **arrays)
    return True


def write_case(name, case, own, version):
    """Write ``name``'s record and arrays into its folder."""
    folder = case_folder(name)
    record_file, arrays_file = (os.path.join(folder, f) for f in CASE_FILES)
    np.savez_compressed(arrays_file, **own)
    record = {"format": FORMAT, "produced_with": f"smallvis {version}", **case}
    with open(record_file, "w") as fh:
        json.dump(record, fh, indent=1, sort_keys=True)
        fh.write("\n")


def methods_to_compute(argv, shipped_cases):
    """The methods whose case this run computes.

    A case is a frozen number: a later run of an optimizer may end on
    another layout (NCVis's 100 exact iterations do since the optimizer's
    reliability changes), so a shipped case is recomputed only when asked:
    by name, or every case with ``--all``.  Without arguments, the
    registered methods that have no shipped case.
    """
    names = [a for a in argv if not a.startswith("-")]
    flags = set(argv) - set(names)
    if flags - {"--all"} or (names and flags):
        raise SystemExit("usage: make_golden.py [--all | METHOD ...]")
    unknown = [name for name in names if name not in smallvis.METHODS]
    if unknown:
        raise SystemExit(f"unknown method(s) {', '.join(unknown)}; registered: "
                         f"{', '.join(smallvis.METHODS)}")
    if flags:
        return list(smallvis.METHODS)
    if names:
        return list(dict.fromkeys(names))
    return [name for name in smallvis.METHODS if name not in shipped_cases]


def input_arrays():
    """The shared inputs: X and P of iris (R's) and of the jittered iris (R's umap fixture)."""
    arrays = {}
    iris, jitter = r_fixture("tsne"), r_fixture("umap_jitter")
    arrays["iris__X"] = np.array(iris["X"])
    arrays["iris__P_conditional"] = np.array(r_fixture("asne")["P"])
    arrays["iris__P_joint"] = np.array(iris["P"])
    arrays["iris_jitter__X"] = np.array(jitter["X"])
    arrays.update(sparse_parts("iris_jitter__P_fuzzy", np.array(jitter["P"])))
    for other in ("ssne", "largevis"):
        assert np.array_equal(np.array(r_fixture(other)["P"]), arrays["iris__P_joint"])
    assert np.array_equal(np.array(r_fixture("tumap_jitter")["P"]), np.array(jitter["P"]))
    # the joint P of the jittered iris (perplexity 30), which R has no fixture
    # of: smallvis's, stored once for every generic case whose P it is, so
    # that a new method with the joint P adds its Y and gradient alone
    # Once shipped it is an input like R's: kept as it is, not recomputed by
    # another numpy or scipy, whose last bits may differ
    path = inputs_path()
    shipped = None
    if os.path.exists(path):
        with np.load(path) as old:
            if "iris_jitter__P_joint" in old.files:
                shipped = np.array(old["iris_jitter__P_joint"])
    arrays["iris_jitter__P_joint"] = (shipped if shipped is not None else np.asarray(
        smallvis.affinities(arrays["iris_jitter__X"], "ssne")))
    return arrays


def same_to_rounding(shipped, computed):
    """Whether a shipped ``P`` is ``computed`` up to the last bits another numpy may give.

    A shipped ``P`` is kept once shipped (another release of numpy computes
    other last bits), so a new case whose ``P`` is that one to rounding
    reads it instead of shipping a copy, and its cost and gradient are
    computed at the shipped ``P``.
    """
    shipped = np.asarray(shipped.toarray() if sp.issparse(shipped) else shipped)
    return (np.array_equal(shipped == 0, computed == 0)
            and np.allclose(shipped, computed, rtol=1e-12, atol=0))


def shared_p_key(P, inputs, data):
    """The key of the shared input of ``data`` that equals ``P`` (dense), or None."""
    dense = P.toarray() if sp.issparse(P) else np.asarray(P)
    for key, value in inputs.items():
        if (key.startswith(f"{data}__P_") and np.ndim(value) == 2
                and value.shape == dense.shape and same_to_rounding(value, dense)):
            return key.split("__", 1)[1]
    return None


def r_runs():
    """The methods with an R smallvis fixture: ``{method: (fixture, data, P, params, affinity)}``.

    Named because the fixtures exist for these methods only
    (tests/data/rsmallvis).
    """
    jitter = r_fixture("umap_jitter")
    return {
        "asne": ("asne", "iris", "P_conditional", {}, {"perplexity": 20.0}),
        "ssne": ("ssne", "iris", "P_joint", {}, {"perplexity": 20.0}),
        "tsne": ("tsne", "iris", "P_joint", {}, {"perplexity": 20.0}),
        "largevis": ("largevis", "iris", "P_joint",
                     {"gamma": 1.0, "eps": 0.1, "kernel": "cauchy", "alpha": 1.0},
                     {"perplexity": 20.0, "n_neighbors": 149, "knn_method": "exact"}),
        "umap": ("umap_jitter", "iris_jitter", "P_fuzzy",
                 {"a": jitter["a"], "b": jitter["b"], "eps": 0.1},
                 {"n_neighbors": 15, "knn_method": "exact"}),
        "tumap": ("tumap_jitter", "iris_jitter", "P_fuzzy", {"eps": 0.1},
                  {"n_neighbors": 15, "knn_method": "exact"}),
    }


def r_case(method, run, version, own):
    """R's P and final Y, and the NumPy reference's cost and gradient there."""
    fixture, data, p_key, params, aff_params = run
    fx = r_fixture(fixture)
    P = np.array(fx["P"])
    Y = np.array(fx["Y"])
    cost, grad = smallvis.cost_and_gradient(method, P, Y, **params)
    r_cost = fx["itercosts"]["cost"][-1]
    own["Y"] = Y
    own["gradient"] = grad
    size = "perplexity" if "perplexity" in smallvis.METHODS[method].affinity_params \
        else "n_neighbors"
    case = {
        "data": data, "P": p_key, "params": params, "affinity_params": aff_params,
        "cost": cost, "learned_gradient": {},
        "source": (f"X, P and Y: {R_SOURCE}; method {method!r}, "
                   f"{'iris' if data == 'iris' else 'iris plus a small jitter (no ties)'}, "
                   f"{size} {fx['r_args']['perplexity']}, "
                   f"Y = R's layout after {fx['iter']} iterations. cost and gradient: smallvis "
                   f"{version} NumPy reference (smallvis.cost_and_gradient) at that P and Y."),
        "checks": {"R smallvis cost at Y": r_cost,
                   "relative difference from R smallvis": (cost - r_cost) / abs(r_cost)},
    }
    if method in NOTES:
        case["checks"]["note"] = NOTES[method]
    print(f"{method:9s} cost {cost:.17g}  R {r_cost:.17g}  rel diff {(cost - r_cost) / abs(r_cost):.2e}")
    return case


def add_scikit_learn_check(case, own, inputs):
    """t-SNE: scikit-learn's exact KL divergence and gradient at the case's P and Y."""
    try:
        from scipy.spatial.distance import squareform
        from sklearn.manifold._t_sne import _kl_divergence
        import sklearn
    except ImportError:
        print("scikit-learn not installed: tsne check skipped", file=sys.stderr)
        return
    Y = own["Y"]
    kl, g = _kl_divergence(Y.ravel(), squareform(inputs["iris__P_joint"], checks=False), 1,
                           Y.shape[0], Y.shape[1])
    case["checks"][f"scikit-learn {sklearn.__version__} _kl_divergence cost"] = float(kl)
    print("tsne vs sklearn: cost", (case["cost"] - kl) / kl,
          "grad", np.abs(g.reshape(Y.shape) - own["gradient"]).max()
          / np.abs(own["gradient"]).max())


def ncvis_case(version, inputs, own):
    """ncvis (not in R smallvis): a smallvis layout on the jittered iris.

    Its own recipe (NCVis's a and b, the learned Q) predates
    :func:`generic_case`; it is kept so that ``ncvis`` or ``--all``
    recomputes the shipped case the same way.
    """
    X = inputs["iris_jitter__X"]
    P = smallvis.affinities(X, "ncvis", n_neighbors=15, knn_method="exact")
    own.update(sparse_parts("P_ncvis", P))
    a, b = fit_curve_ab(1.0, 0.4)
    run = smallvis.embed(X, "ncvis", fast=False, n_iter=100, random_state=42,
                         n_neighbors=15, knn_method="exact", a=a, b=b, return_result=True)
    Y, Q = run.Y, run.Q
    params = {"Q": Q, "nu": 5.0, "a": a, "b": b}
    cost, grad, learned = smallvis.cost_and_gradient("ncvis", P, Y, return_learned=True, **params)
    own["Y"] = Y
    own["gradient"] = grad
    print(f"ncvis     cost {cost:.17g}  Q {Q:.17g}  dQ {learned['Q']:.3g}")
    return {
        "data": "iris_jitter", "P": "P_ncvis", "params": params,
        "affinity_params": {"n_neighbors": 15, "knn_method": "exact"},
        "cost": cost, "learned_gradient": {"Q": learned["Q"]},
        "source": (f"X: iris plus a small jitter (as the R smallvis umap fixture); P: smallvis "
                   f"{version} (union 15-NN graph); Y and Q: 100 iterations of smallvis "
                   f"{version}'s exact NCVis optimizer (no other program implements the exact "
                   f"NCVis objective); cost, gradient and dcost/dQ: smallvis {version} NumPy "
                   "reference, checked by finite differences in Y and Q."),
        "checks": {},
    }


def same_p_as(name, P):
    """``(case, key)`` of a shipped case whose own ``P`` is ``P`` bit for bit, or ``(None, key)``.

    The new case then reads that case's ``P`` (its record's ``P_case``)
    instead of shipping a copy: the cases' files stay within the package's
    budget (tests/test_testing_golden.py) as methods sharing a ``P`` are added.
    """
    from smallvis.testing._golden import _case, golden
    dense = np.asarray(P.toarray() if sp.issparse(P) else P)
    for other in shipped():
        record, arrays = _case(other)
        key = record["P"]
        if other != name and not record.get("P_case") and f"{key}__data" in arrays:
            theirs = golden(other)["P"]
            if theirs.shape == dense.shape and same_to_rounding(theirs, dense):
                return other, key
    return None, f"P_{name}"


def generic_case(name, version, inputs, own):
    """Any other registered method: its P of the jittered iris and 100 exact iterations.

    The P is a shared input's key when it equals one, else stored in the case.

    At its first registry example; tests/test_testing_golden.py checks the
    gradient against finite differences of the cost.
    """
    m = smallvis.METHODS[name]
    X = inputs["iris_jitter__X"]
    params = dict(m.examples[0])
    if m.fitted_params:
        # fitted parameters (a curve's a, b) stored as the numbers the fit gave:
        # another scipy fits them to other last bits
        _, args = m.resolve_cost(**{**m.cost_params, **params})
        params.update({k: float(v) for k, v in zip(m.fitted_params, args)})
    affinity_params = ({"n_neighbors": 15, "knn_method": "exact"}
                       if "n_neighbors" in m.affinity_params else {})
    P = smallvis.affinities(X, name, **affinity_params)
    # a shared input's P first, else a shipped case's, else the case's own copy
    p_case, p_key = None, shared_p_key(P, inputs, "iris_jitter")
    if p_key is None:
        p_case, p_key = same_p_as(name, P)
        if p_case is None:
            own.update(sparse_parts(p_key, P))
        else:
            from smallvis.testing._golden import golden
            P = golden(p_case)["P"]
    else:
        P = inputs[f"iris_jitter__{p_key}"]
    run = smallvis.embed(X, name, fast=False, n_iter=100, random_state=42, return_result=True,
                         **affinity_params, **params)
    if run.recoveries:
        # a diverged run's map is no reference: its cost may be far from
        # any converged map's, and a fix of the divergence would change it
        raise SystemExit(
            f"{name}: the golden run (100 exact iterations from the iris start at "
            f"{params}) diverged and recovered {len(run.recoveries)} time(s); give the "
            "method's first example parameters whose run converges (e.g. a smaller eps or "
            "learning rate), then run this script again")
    Y = run.Y
    cost, grad, learned = smallvis.cost_and_gradient(name, P, Y, return_learned=True,
                                                     **params)
    own["Y"] = Y
    own["gradient"] = grad
    print(f"{name:<9} cost {cost:.17g}" + (f"  (P: {p_case}'s)" if p_case else ""))
    shared = {"P_case": p_case} if p_case else {}
    return {
        "data": "iris_jitter", "P": p_key, **shared, "params": params,
        "affinity_params": affinity_params, "cost": cost, "learned_gradient": learned,
        "source": (f"X: iris plus a small jitter (as the R smallvis umap fixture); P: "
                   f"smallvis {version}; Y: 100 iterations of smallvis {version}'s exact "
                   f"{name} optimizer at {params}; cost and gradient: smallvis {version} "
                   "NumPy reference, checked by finite differences."),
        "checks": {},
    }


def compute_case(name, version, inputs):
    """``(case, own)``: the record of ``name``'s case and its own arrays.

    ``own`` holds ``Y``, ``gradient`` and, for a case whose ``P`` is not
    one of the shared ``inputs``, that ``P`` (as ``<case["P"]>__data``,
    ``__indices``, ``__indptr``).
    """
    own = {}
    runs = r_runs()
    if name in runs:
        case = r_case(name, runs[name], version, own)
        if name == "tsne":
            add_scikit_learn_check(case, own, inputs)
    elif name == "ncvis":
        case = ncvis_case(version, inputs, own)
    else:
        case = generic_case(name, version, inputs, own)
    return case, own


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    version = smallvis.__version__
    todo = methods_to_compute(argv, shipped())
    # the inputs come from the R fixtures: written only when they differ
    inputs = input_arrays()
    if write_inputs(inputs):
        print(f"wrote {inputs_path()}")
    if not todo:
        print("every registered method has its case in its folder: nothing to compute "
              "(name methods, or --all, to recompute)")
        return []
    for name in todo:
        write_case(name, *compute_case(name, version, inputs), version)
        total = sum(os.path.getsize(os.path.join(case_folder(name), f)) for f in CASE_FILES)
        print(f"wrote {case_folder(name)}: {total / 1024:.0f} KiB")
    return todo


if __name__ == "__main__":
    main()
