"""Golden cases (smallvis.testing.golden): installed, reproducible, independently checked.

The golden numbers are frozen (docs/stability.md).  They are not trusted
because this package produced them:

* X, P and Y of six methods are R smallvis's own (tests/data/rsmallvis);
* the costs agree with the cost R smallvis reported at the same layout, once
  R's two conventions (a floor at machine epsilon for q in asne and ssne,
  eps log eps for the zeros of P in t-SNE) are applied by the formulas
  below, which are transcribed from R smallvis, not from this package;
* the gradients agree with R smallvis's gradient formulas (transcribed
  below), with scikit-learn's exact t-SNE gradient, and with central finite
  differences of the cost;
* NCVis, which R smallvis lacks, is checked against the NCE objective
  written out below and by finite differences in Y and Q.
"""

import json
import os
import tomllib
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import xlogy

import smallvis
from smallvis.testing import golden, golden_methods
from smallvis.testing._golden import CASE_FILES, INPUTS_FILE, case_package

REPO = Path(__file__).resolve().parent.parent
RDIR = REPO / "tests" / "data" / "rsmallvis"
EPS = np.finfo(np.float64).eps
R_FIXTURE = {"asne": "asne", "ssne": "ssne", "tsne": "tsne", "largevis": "largevis",
             "umap": "umap_jitter", "tumap": "tumap_jitter"}


def test_every_method_has_a_golden_case():
    assert golden_methods() == smallvis.list_methods()


@pytest.mark.parametrize("method", smallvis.list_methods())
def test_golden_case_is_reproduced(method, fast):
    g = golden(method)
    assert set(g) >= {"X", "P", "Y", "params", "cost", "gradient", "source"}
    assert "smallvis" in g["source"]
    cost, grad, learned = smallvis.cost_and_gradient(method, g["P"], g["Y"], fast=fast,
                                                     return_learned=True, **g["params"])
    assert abs(cost - g["cost"]) <= 1e-10 * abs(g["cost"])
    assert np.abs(grad - g["gradient"]).max() <= 1e-10 * np.abs(g["gradient"]).max()
    for name, value in g["learned_gradient"].items():
        assert abs(learned[name] - value) <= 1e-10 * max(abs(value), 1.0)
    P = smallvis.affinities(g["X"], method, fast=fast, **g["affinity_params"])
    P = P.toarray() if hasattr(P, "toarray") else P
    np.testing.assert_allclose(P, g["P"], rtol=0, atol=1e-12 * g["P"].max())


def test_golden_returns_fresh_copies():
    g = golden("tsne")
    g["Y"][:] = 0.0
    g["params"]["x"] = 1
    assert np.any(golden("tsne")["Y"] != 0) and "x" not in golden("tsne")["params"]


# --- independent checks -------------------------------------------------------


def _r_fixture(method):
    with open(RDIR / f"{R_FIXTURE[method]}.json") as fh:
        return json.load(fh)


def _d2(Y):
    """R smallvis's expanded squared distances, floored at 0."""
    s = np.sum(Y * Y, axis=1)
    return np.maximum(s[:, None] + s[None, :] - 2 * Y @ Y.T, 0.0)


def _k2g(K, Y):
    """R smallvis's k2g: G_i = sum_j K_ji (y_i - y_j)."""
    return Y * K.sum(axis=0)[:, None] - K @ Y


def _r_gradient(method, P, Y, params):
    """R smallvis's gradient formulas (tests/data/rsmallvis/README.md).

    Without R's floor of q at machine epsilon for asne and ssne (which moves
    the ssne gradient here by 2e-8 relative; the exact gradient has no floor).
    """
    D2 = _d2(Y)
    if method in ("asne", "ssne"):
        W = np.exp(-D2)
        np.fill_diagonal(W, 0.0)
        Q = W / (W.sum(axis=1, keepdims=True) if method == "asne" else W.sum())
        if method == "asne":
            K = 2 * (P - Q)
            return _k2g(K + K.T, Y)
        return _k2g(4 * (P - Q), Y)
    if method == "tumap" or method == "umap":
        a, b = (params["a"], params["b"]) if method == "umap" else (1.0, 1.0)
        W = 1 / (1 + a * D2 ** b)
        np.fill_diagonal(W, 0.0)
        if method == "umap":
            K = 4 * (b / (D2 + EPS + params["eps"])) * (P - W)
        else:
            K = 4 * (W / ((1 - W) + EPS + params["eps"])) * (P - W)
        return _k2g(K, Y)
    W = 1 / (1 + D2)
    np.fill_diagonal(W, 0.0)
    if method == "tsne":
        return _k2g(4 * W * (P - W / W.sum()), Y)
    gamma, gr_eps = params["gamma"], params["eps"]
    return _k2g(4 * W * (P - gamma * W / (1 + (gr_eps - 1) * W)), Y)


@pytest.mark.parametrize("method", list(R_FIXTURE))
def test_golden_gradient_matches_r_formulas(method):
    g = golden(method)
    expected = _r_gradient(method, g["P"], g["Y"], g["params"])
    # R's formulas add machine epsilon in denominators: ~1e-15 relative
    assert np.abs(expected - g["gradient"]).max() <= 1e-10 * np.abs(g["gradient"]).max()


@pytest.mark.parametrize("method", list(R_FIXTURE))
def test_golden_data_are_r_smallvis_data(method):
    g, r = golden(method), _r_fixture(method)
    np.testing.assert_array_equal(g["X"], np.array(r["X"]))
    np.testing.assert_array_equal(g["P"], np.array(r["P"]))
    np.testing.assert_array_equal(g["Y"], np.array(r["Y"]))
    assert "R package smallvis" in g["source"]


def _r_cost(method, P, Y):
    """R smallvis's reported cost for the KL methods, with its two conventions."""
    off = ~np.eye(len(P), dtype=bool)
    Pc = np.where(P < EPS, EPS, P)
    plogp = float(np.sum(xlogy(Pc, Pc)[off]))
    D2 = _d2(Y)
    if method == "tsne":
        W = 1 / (1 + D2)
        np.fill_diagonal(W, 0.0)
        Q = W / W.sum()
    else:
        W = np.exp(-D2)
        np.fill_diagonal(W, 0.0)
        Q = W / (W.sum(axis=1, keepdims=True) if method == "asne" else W.sum())
        Q[Q < EPS] = EPS
    return plogp - float(np.sum((P * np.log(np.where(off, Q, 1.0)))[off]))


#: The R fixtures of KL costs, whose reported cost carries R's two
#: conventions (transcribed in _r_cost); R's other costs compare directly.
R_KL_COSTS = ("asne", "ssne", "tsne")


@pytest.mark.parametrize("method", R_KL_COSTS)
def test_golden_kl_cost_matches_r_with_its_conventions(method):
    g, r = golden(method), _r_fixture(method)
    r_cost = r["itercosts"]["cost"][-1]
    assert abs(_r_cost(method, g["P"], g["Y"]) - r_cost) <= 1e-10 * r_cost
    # the exact KL divergence, written independently of the package
    off = ~np.eye(len(g["P"]), dtype=bool)
    D2 = _d2(g["Y"])
    if method == "tsne":
        W = np.where(off, 1 / (1 + D2), 0.0)
        log_q = np.log(np.where(off, W, 1.0)) - np.log(W.sum())
    else:
        Z = np.where(off, -D2, -np.inf)
        shift = Z.max(axis=1, keepdims=True) if method == "asne" else Z.max()
        norm = np.log(np.exp(Z - shift).sum(axis=1, keepdims=True) if method == "asne"
                      else np.exp(Z - shift).sum()) + shift
        log_q = np.where(off, Z - norm, 0.0)
    kl = float(np.sum((xlogy(g["P"], g["P"]) - g["P"] * log_q)[off]))
    assert abs(kl - g["cost"]) <= 1e-12 * g["cost"]


@pytest.mark.parametrize("method", [name for name in R_FIXTURE if name not in R_KL_COSTS])
def test_golden_cost_matches_r(method):
    g, r = golden(method), _r_fixture(method)
    # R adds machine epsilon inside its logs: a few 1e-13 relative here
    assert abs(g["cost"] - r["itercosts"]["cost"][-1]) <= 1e-10 * g["cost"]


def test_golden_tsne_matches_scikit_learn():
    t_sne = pytest.importorskip("sklearn.manifold._t_sne")
    from scipy.spatial.distance import squareform

    g = golden("tsne")
    n, d = g["Y"].shape
    kl, grad = t_sne._kl_divergence(g["Y"].ravel(), squareform(g["P"], checks=False), 1, n, d)
    assert abs(kl - g["cost"]) <= 1e-10 * g["cost"]
    assert np.abs(grad.reshape(n, d) - g["gradient"]).max() <= 1e-10 * np.abs(g["gradient"]).max()


def test_golden_ncvis_matches_the_nce_objective():
    g = golden("ncvis")
    P, Y, p = g["P"], g["Y"], g["params"]
    n = len(P)
    off = ~np.eye(n, dtype=bool)
    q = np.exp(-p["Q"]) / (1 + p["a"] * _d2(Y) ** p["b"])
    noise = p["nu"] * np.broadcast_to(P.sum(axis=1, keepdims=True) / (n - 1), (n, n))
    J = xlogy(P, q / (q + noise)) + noise * np.log(noise / (q + noise))
    assert abs(-float(J[off].sum()) - g["cost"]) <= 1e-12 * abs(g["cost"])


def _fd(f, x, h):
    return (f(x - 2 * h) - 8 * f(x - h) + 8 * f(x + h) - f(x + 2 * h)) / (12 * h)


def _exact_at_its_case(name):
    """Whether the golden case's gradient is the exact gradient of its cost (no eps)."""
    rule = smallvis.METHODS[name].exact_gradient
    return rule is None or rule(golden(name)["params"])


#: The methods whose golden gradient is exact at the case's parameters:
#: every one but those whose case keeps R smallvis's smoothing eps.
EXACT_CASES = [name for name in golden_methods() if _exact_at_its_case(name)]


@pytest.mark.parametrize("method", EXACT_CASES)
def test_golden_gradient_matches_finite_differences(method):
    """Methods whose golden gradient is exact (no eps): central differences of the cost."""
    g = golden(method)
    rng = np.random.default_rng(0)
    cost = lambda Y: smallvis.cost_and_gradient(method, g["P"], Y, **g["params"])[0]
    h = 1e-4 * np.std(g["Y"])
    for _ in range(3):
        v = rng.standard_normal(g["Y"].shape)
        v /= np.linalg.norm(v)
        slope = _fd(lambda t: cost(g["Y"] + t * v), 0.0, h)
        assert abs(slope - np.sum(g["gradient"] * v)) <= 1e-6 * np.linalg.norm(g["gradient"])
    if method == "ncvis":
        cost_q = lambda Q: smallvis.cost_and_gradient(
            method, g["P"], g["Y"], **{**g["params"], "Q": Q})[0]
        slope = _fd(cost_q, g["params"]["Q"], 1e-4)
        assert abs(slope - g["learned_gradient"]["Q"]) <= 1e-8


# --- shipped with the package ---------------------------------------------------


def _shipped_files():
    """``{path relative to the package: resource}`` of the golden files the package finds."""
    files = {f"testing/golden/{INPUTS_FILE}": resources.files("smallvis.testing") / "golden"
             / INPUTS_FILE}
    for name in smallvis.METHODS:
        folder = case_package(name).split(".", 1)[1].replace(".", "/")
        for file in CASE_FILES:
            files[f"{folder}/{file}"] = resources.files(case_package(name)) / file
    return files


def test_each_case_lives_in_its_method_folder():
    for name in smallvis.METHODS:
        assert case_package(name) == f"smallvis.methods.{name}"
        folder = resources.files(case_package(name))
        assert all((folder / file).is_file() for file in CASE_FILES), name
        record = json.loads((folder / CASE_FILES[0]).read_text(encoding="utf-8"))
        assert record["format"] == 2 and record["produced_with"].startswith("smallvis ")
        with (folder / CASE_FILES[1]).open("rb") as fh, np.load(fh) as npz:
            own = set(npz.files)
        # its own arrays: Y, gradient and, for a P of its own, that P's parts
        assert {"Y", "gradient"} <= own
        assert own - {"Y", "gradient"} <= {f"{record['P']}__{part}"
                                           for part in ("data", "indices", "indptr", "upper")}
    # the old all-methods files are gone: a case has one place
    assert not (resources.files("smallvis.testing") / "golden" / "golden.json").is_file()


def test_a_method_without_a_case_is_named(monkeypatch):
    from smallvis.testing import _golden

    name = smallvis.list_methods()[-1]
    # a folder without golden files: the package of the shared inputs' reader
    monkeypatch.setattr(_golden, "case_package",
                        lambda method: "smallvis.testing" if method == name
                        else f"smallvis.methods.{method}")
    _golden._case.cache_clear()
    try:
        assert name not in golden_methods()
        with pytest.raises(ValueError, match=f"no golden case for '{name}'"):
            golden(name)
    finally:
        _golden._case.cache_clear()


def test_golden_files_ship_with_the_imported_package():
    """The golden files come from the installed package, not from tests/.

    In CI (``pip install ".[test]" && pytest`` from a clean clone) smallvis is
    imported from site-packages: the files found there were installed from
    the wheel's package data.  From a source checkout, the files are the ones
    pyproject.toml declares as package data.
    """
    files = _shipped_files()
    assert all(resource.is_file() for resource in files.values())
    # A case is a few KiB once its P is shared; what grows is one dense P
    # (about 180 KB, or 90 KB for a symmetric one stored as its upper
    # triangle) per kind of P that no other case holds.  The budget keeps
    # that growth visible: a new kind of P must share or make room.
    # (tmsne's P, each row's Gaussian weights over their grand sum, is
    # neither symmetric nor any other case's: about 183 KB.)
    assert sum(len(resource.read_bytes()) for resource in files.values()) < 1_900_000
    package_dir = Path(smallvis.__file__).resolve().parent
    in_source_tree = package_dir == (REPO / "smallvis").resolve()
    if os.environ.get("CI"):
        assert not in_source_tree, "CI must test the installed package"
    if in_source_tree:
        import fnmatch

        config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
        packages = config["packages"]
        if "find" in packages:  # found by patterns, not listed
            import setuptools

            packages = setuptools.find_packages(str(REPO), include=packages["find"]["include"])
        globs = config["package-data"]
        for relative in files:
            # the package data of the nearest enclosing package that declares some
            parts = relative.split("/")
            owner = next((cut for cut in range(len(parts) - 1, 0, -1)
                          if "smallvis." + ".".join(parts[:cut]) in globs), None)
            assert owner is not None, f"no package declares {relative} as package data"
            package = "smallvis." + ".".join(parts[:owner])
            assert package in packages
            assert any(fnmatch.fnmatch("/".join(parts[owner:]), pattern)
                       for pattern in globs[package]), f"{relative} is not package data"
    else:
        assert all(Path(str(resource)).resolve().is_relative_to(package_dir)
                   for resource in files.values())


# --- the golden script ------------------------------------------------------------


def _golden_script(monkeypatch, out):
    """tests/data/golden/make_golden.py as a module, writing under ``out`` (as under smallvis/)."""
    import importlib.util

    path = REPO / "tests" / "data" / "golden" / "make_golden.py"
    spec = importlib.util.spec_from_file_location("make_golden", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    monkeypatch.setattr(script, "OUT", str(out))
    return script


def _shipped_copy(tmp_path):
    """The shipped golden files, copied under ``tmp_path``; ``{relative path: bytes}``."""
    copied = {}
    for relative, resource in _shipped_files().items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        copied[relative] = resource.read_bytes()
        (tmp_path / relative).write_bytes(copied[relative])
    return copied


def _files_under(root):
    return {path.relative_to(root).as_posix(): path.read_bytes()
            for path in root.rglob("*") if path.is_file()}


def test_golden_script_chooses_the_missing_cases_or_those_asked_for(monkeypatch, tmp_path):
    script = _golden_script(monkeypatch, tmp_path)
    every = list(smallvis.METHODS)
    some = dict.fromkeys(every[1:], {})
    assert script.methods_to_compute([], some) == every[:1]
    assert script.methods_to_compute([], dict.fromkeys(every, {})) == []
    assert script.methods_to_compute(["--all"], some) == every
    assert script.methods_to_compute([every[-1], every[-1]], some) == every[-1:]
    for bad in (["--al"], ["--all", every[0]], ["no such method"]):
        with pytest.raises(SystemExit):
            script.methods_to_compute(bad, some)


def test_golden_script_writes_where_the_package_reads(monkeypatch, tmp_path):
    script = _golden_script(monkeypatch, tmp_path)
    for name in smallvis.METHODS:
        assert script.case_folder(name) == str(tmp_path / "methods" / name)
    assert script.inputs_path() == str(tmp_path / "testing" / "golden" / INPUTS_FILE)


def test_golden_script_leaves_complete_files_untouched(monkeypatch, tmp_path):
    before = _shipped_copy(tmp_path)
    script = _golden_script(monkeypatch, tmp_path)
    assert script.main([]) == []
    assert _files_under(tmp_path) == before


def test_golden_script_computes_only_the_missing_case(monkeypatch, tmp_path):
    before = _shipped_copy(tmp_path)
    script = _golden_script(monkeypatch, tmp_path)
    # the cheapest kind: a case of the generic recipe (not an R fixture, not ncvis's)
    missing = next(name for name in smallvis.METHODS
                   if name not in script.r_runs() and name != "ncvis")
    folder = tmp_path / "methods" / missing
    shipped_case = json.loads((folder / "golden.json").read_text())
    with np.load(folder / "golden.npz") as npz:
        shipped_keys = set(npz.files)
    for file in CASE_FILES:
        (folder / file).unlink()

    def refuse(*args, **kwargs):
        raise AssertionError("a shipped case was recomputed")
    monkeypatch.setattr(script, "r_case", refuse)
    monkeypatch.setattr(script, "ncvis_case", refuse)
    assert script.main([]) == [missing]

    # only the missing case's folder was written; every other file is as shipped
    after = _files_under(tmp_path)
    own = {f"methods/{missing}/{file}" for file in CASE_FILES}
    assert set(after) == set(before)
    assert {k: v for k, v in after.items() if k not in own} == \
        {k: v for k, v in before.items() if k not in own}
    # the new case is a case of its method: its cost and gradient at its own Y
    # (its P may be another shipped case's, named in P_case, instead of its own copy)
    case = json.loads((folder / "golden.json").read_text())
    assert set(case) - {"P_case"} == set(shipped_case) - {"P_case"}
    assert case["params"] == shipped_case["params"]
    assert case["affinity_params"] == shipped_case["affinity_params"]
    assert case["produced_with"] == f"smallvis {smallvis.__version__}"
    P_file = folder / "golden.npz"
    if case.get("P_case"):
        P_file = tmp_path / "methods" / case["P_case"] / "golden.npz"
    with np.load(P_file) as npz:
        key = case["P"]
        if f"{key}__upper" in npz.files:  # a dense symmetric P: its upper triangle
            P = np.zeros((150, 150))
            P[np.triu_indices(150, 1)] = npz[f"{key}__upper"]
            P = P + P.T
        else:
            P = sp.csr_matrix((npz[f"{key}__data"], npz[f"{key}__indices"],
                               npz[f"{key}__indptr"]), shape=(150, 150))
    with np.load(folder / "golden.npz") as npz:
        own_p = {k for k in shipped_keys if k.startswith(shipped_case["P"])}
        assert set(npz.files) == (shipped_keys - own_p if case.get("P_case") else shipped_keys)
        Y, gradient = npz["Y"], npz["gradient"]
    cost, grad = smallvis.cost_and_gradient(missing, P, Y, **case["params"])
    assert cost == case["cost"]
    np.testing.assert_array_equal(grad, gradient)


def test_golden_script_rewrites_the_inputs_only_when_they_differ(monkeypatch, tmp_path):
    before = _shipped_copy(tmp_path)
    script = _golden_script(monkeypatch, tmp_path)
    inputs = script.input_arrays()
    assert script.write_inputs(inputs) is False
    assert _files_under(tmp_path) == before
    path = tmp_path / "testing" / "golden" / INPUTS_FILE
    path.unlink()
    assert script.write_inputs(inputs) is True
    with np.load(path) as npz:
        assert set(npz.files) == set(inputs)
        for key, value in inputs.items():
            np.testing.assert_array_equal(npz[key], value)


def test_a_case_may_read_its_p_from_another_case():
    """A case whose P is another case's names it (``P_case``) and ships no copy."""
    from smallvis.testing._golden import _case
    sharing = [(name, _case(name)) for name in smallvis.METHODS if _case(name)[0].get("P_case")]
    for name, (record, arrays) in sharing:
        assert not any(k.startswith(record["P"]) for k in arrays), name
        g, source = golden(name), golden(record["P_case"])
        np.testing.assert_array_equal(g["P"], source["P"])
        np.testing.assert_array_equal(g["X"], source["X"])
