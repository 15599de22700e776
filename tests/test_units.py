"""The method units (smallvis/methods/<name>.py): pure maths, defined once, used by the engines.

A unit holds one method's maths: its parameters (a NamedTuple's fields),
its weight, exact pair coefficient, cost terms and stochastic coefficients.
These tests check the units against themselves (the split cost terms add up
to the whole term, the pair coefficient is the derivative of the term) and
guard the rule that the engines take a unit and spell out no method's
formula.
"""

import ast
import inspect
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

from smallvis.engines import sampled_cost

from smallvis.backends import _sgd_reference

from smallvis.backends import reference
from smallvis.registry import METHODS

from conftest import example_params

PACKAGE = Path(__file__).resolve().parent.parent / "smallvis"

#: Every unit of a pair-sum cost, by kernel prefix, from the registry.
PAIR_UNITS = {prefix: unit for m in METHODS.values() for prefix, unit in m.pair_units.items()}

#: Parameters (in field order) to try for each unit field.
FIELD_VALUES = {"gamma": 1.7, "eps": 0.0, "alpha": 0.6, "a": 1.3, "b": 0.8, "Q": 0.7,
                "nu": 3.0}

#: What the engines read from a pair unit.
PAIR_INTERFACE = ("row_noise", "coefficient", "cost_term", "edge_term", "pair_term")
#: What they read besides from a unit with ``row_noise = True``.
ROW_NOISE_INTERFACE = ("noise",)

#: What the stochastic loop reads from a unit of ``SGD_COEFFICIENTS``, and
#: from what its ``sgd_unit`` gives (the unit itself, or an object of its own).
SGD_INTERFACE = ("sgd_coefficient", "sgd_unit")
SGD_EPOCH_INTERFACE = ("sgd_attract", "sgd_repel", "weight")

#: The engine functions of the NumPy reference that take a unit.
PAIR_ENGINES = {"_pair_cost", "_pair_gradient", "_transform_pair_cost",
                "_transform_pair_gradient"}


def _example_unit(prefix):
    """The unit of ``prefix`` at its method's first registry example that selects it."""
    for name, m in METHODS.items():
        for params in example_params(name, 40):
            selected, args = m.kernel_name(params)
            if selected == prefix:
                return m.pair_units[prefix](*(params[k] for k in m.learned), *args)
    raise AssertionError(f"{prefix}: give FIELD_VALUES its fields or its method examples")


def _unit(prefix, **changes):
    cls = PAIR_UNITS[prefix]
    if all(f in FIELD_VALUES for f in cls._fields):
        return cls(*(changes.get(f, FIELD_VALUES[f]) for f in cls._fields))
    # fields without a hand-written value: the registry's example
    return _example_unit(prefix)._replace(**changes)


def _pairs(rng, n=200):
    """Entries p in (0, 1), squared distances (one 0: coincident points), row noise."""
    p = rng.uniform(0.01, 0.9, n)
    d2 = np.concatenate([[0.0], rng.uniform(0.05, 6.0, n - 1)])
    noise = rng.uniform(0.01, 0.5, n)
    return p, d2, noise


def _noise(unit, noise):
    return noise if unit.row_noise else None


def test_the_registry_names_every_pair_unit():
    assert set(PAIR_UNITS) >= {"largevis", "largevis_exp", "umap", "tumap", "ncvis"}
    # every pair unit of smallvis/methods is registered under its kernel prefix
    from smallvis.methods import unit_classes

    units = {cls.kernel: cls for cls in unit_classes() if hasattr(cls, "kernel")}
    assert PAIR_UNITS == units, set(PAIR_UNITS) ^ set(units)
    for prefix, unit in PAIR_UNITS.items():
        assert not _missing_interface(unit), (prefix, _missing_interface(unit))


def _missing_interface(unit):
    """What the engines read from a pair unit and ``unit`` lacks."""
    needed = PAIR_INTERFACE + (ROW_NOISE_INTERFACE if getattr(unit, "row_noise", False)
                               else ())
    return [name for name in needed if not hasattr(unit, name)]


def test_a_unit_with_row_noise_must_give_its_noise():
    from smallvis.methods.negtsne.unit import NegTSNEUnit

    class WithoutNoise(NamedTuple):
        z_bar: float
        m: float
        row_noise = True
        coefficient = NegTSNEUnit.coefficient
        cost_term = NegTSNEUnit.cost_term
        edge_term = NegTSNEUnit.edge_term
        pair_term = NegTSNEUnit.pair_term

    assert _missing_interface(WithoutNoise) == ["noise"]
    assert _missing_interface(NegTSNEUnit) == []


@pytest.mark.parametrize("prefix", sorted(PAIR_UNITS))
def test_the_split_cost_terms_add_up_to_the_pair_term(prefix, rng):
    unit = _unit(prefix)
    p, d2, noise = _pairs(rng)
    r = _noise(unit, noise)
    whole = unit.cost_term(p, d2, r)
    np.testing.assert_allclose(unit.edge_term(p, d2, r) + unit.pair_term(d2, r), whole,
                               rtol=1e-12, atol=1e-12)
    # a pair without affinity costs its pair term, and adds nothing as an edge
    np.testing.assert_allclose(unit.cost_term(0.0 * p, d2, r), unit.pair_term(d2, r),
                               rtol=1e-12)
    assert not np.any(unit.edge_term(0.0 * p[1:], d2[1:], None if r is None else r[1:]))


@pytest.mark.parametrize("prefix", sorted(PAIR_UNITS))
def test_the_pair_coefficient_is_the_derivative_of_the_pair_term(prefix, rng):
    unit = _unit(prefix)  # eps = 0: the exact coefficient
    p, d2, noise = _pairs(rng)
    p, d2, noise = p[1:], d2[1:], noise[1:]  # coincident points exert no force
    r = _noise(unit, noise)
    h = 1e-6 * d2
    numeric = (unit.cost_term(p, d2 + h, r) - unit.cost_term(p, d2 - h, r)) / (2 * h)
    c, dq = unit.coefficient(p, d2, r)
    np.testing.assert_allclose(c, numeric, rtol=1e-6, atol=1e-9)
    if "Q" in unit._fields:  # the derivative in the learned scalar
        up, down = unit._replace(Q=unit.Q + 1e-6), unit._replace(Q=unit.Q - 1e-6)
        numeric_q = (up.cost_term(p, d2, r) - down.cost_term(p, d2, r)) / 2e-6
        np.testing.assert_allclose(dq, numeric_q, rtol=1e-6, atol=1e-9)
    else:
        assert dq is None


@pytest.mark.parametrize("prefix", sorted(PAIR_UNITS))
def test_eps_softens_only_the_coefficient(prefix, rng):
    unit = _unit(prefix)
    if "eps" not in unit._fields:
        pytest.skip("no eps")
    soft = unit._replace(eps=0.1)
    p, d2, _ = _pairs(rng)
    assert np.array_equal(soft.cost_term(p, d2, None), unit.cost_term(p, d2, None))
    assert not np.allclose(soft.coefficient(p[1:], d2[1:], None)[0],
                           unit.coefficient(p[1:], d2[1:], None)[0])


def test_sgd_coefficients_come_from_the_units():
    for key, unit in _sgd_reference.SGD_COEFFICIENTS.items():
        for name in SGD_INTERFACE:
            assert hasattr(unit, name), (key, name)
        fields = {**FIELD_VALUES, **unit._field_defaults}
        epoch_unit = unit(*(fields.get(f, 1.0) for f in unit._fields)).sgd_unit(99, 5.0)
        for name in SGD_EPOCH_INTERFACE:
            assert hasattr(epoch_unit, name), (key, name)
    # a grouped step's unit computes a whole sample's coefficients
    for key, unit in _sgd_reference.SGD_GROUPS.items():
        epoch_unit = unit(*(1.0 for f in unit._fields)).sgd_unit(99, 5.0)
        assert hasattr(epoch_unit, "sgd_group") and hasattr(epoch_unit, "weight"), key
    # every stochastic method's coefficient (or grouped step) is a unit's
    for m in METHODS.values():
        if m.sgd is not None:
            assert m.sgd.coefficient in {**_sgd_reference.SGD_COEFFICIENTS,
                                         **_sgd_reference.SGD_GROUPS}


# ---------------------------------------------------------------------------
# what a unit may import: numpy, scipy, the standard library's maths and
# typing, smallvis._numeric and the shared pieces methods/_common.py
# ---------------------------------------------------------------------------

UNIT_FILES = sorted(p for p in (PACKAGE / "methods").glob("*.py")
                    if p.stem != "__init__")
ALLOWED_IMPORTS = {"numpy", "scipy", "math", "typing", "smallvis._numeric",
                   "smallvis.methods._common"}


def _imports(path):
    """Absolute names of the modules ``path`` imports (relative ones resolved)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                found.add(node.module)
            else:
                base = ["smallvis", "methods"][:3 - node.level]
                found.add(".".join(base + ([node.module] if node.module else [])))
    return found


def _allowed(module):
    return any(module == a or module.startswith(a + ".") for a in ALLOWED_IMPORTS)


def test_the_import_rule_catches_a_unit_that_reads_the_package():
    assert not _allowed("smallvis.registry")
    assert not _allowed("smallvis.backends.reference")
    assert _allowed("scipy.special") and _allowed("smallvis.methods._common")


@pytest.mark.parametrize("path", UNIT_FILES, ids=lambda p: p.name)
def test_a_unit_is_pure_maths(path):
    bad = sorted(m for m in _imports(path) if not _allowed(m))
    assert not bad, f"{path.name} imports {bad}: a unit imports numpy, scipy and math only"


# ---------------------------------------------------------------------------
# guard rails: no method's maths outside its unit
# ---------------------------------------------------------------------------


def _source(module):
    """The source of ``module``; of a package, that of every module in it."""
    if not hasattr(module, "__path__"):
        return inspect.getsource(module)
    return "".join(path.read_text(encoding="utf-8")
                   for path in sorted(Path(module.__path__[0]).glob("*.py")))


def _function(module, name):
    tree = ast.parse(_source(module))
    return next(node for node in tree.body
                if isinstance(node, ast.FunctionDef) and node.name == name)


def _body_without_docstring(fn):
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return body


def wrapper_problems(fn, unit_name):
    """Why ``fn`` is not a thin wrapper: one call of an engine on ``unit_name(...)``."""
    body = _body_without_docstring(fn)
    if len(body) != 1 or not isinstance(body[0], (ast.Return, ast.Expr)):
        return "more than one statement"
    call = body[0].value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            and call.func.id in PAIR_ENGINES):
        return "not a call of a pair engine"
    unit = call.args[0] if call.args else None
    if not (isinstance(unit, ast.Call) and isinstance(unit.func, ast.Name)
            and unit.func.id == unit_name):
        return f"the engine is not given a {unit_name}"
    if any(not isinstance(a, ast.Name) for a in unit.args):
        return "the unit's parameters are computed"
    return None


def test_the_wrapper_rule_catches_maths_in_a_wrapper():
    source = '''
def umap_cost(indptr, indices, data, Y, a, b, eps, n_threads):
    """doc"""
    return _pair_cost(UMAP(a, b, eps), indptr, indices, data, Y)

def bad_cost(indptr, indices, data, Y, a, b, eps, n_threads):
    W = 1.0 / (1.0 + a * Y ** b)
    return _pair_cost(UMAP(a, b, eps), indptr, indices, data, Y)

def scaled_cost(indptr, indices, data, Y, a, b, eps, n_threads):
    return _pair_cost(UMAP(2 * a, b, eps), indptr, indices, data, Y)
'''
    fns = {f.name: f for f in ast.parse(source).body}
    assert wrapper_problems(fns["umap_cost"], "UMAP") is None
    assert wrapper_problems(fns["bad_cost"], "UMAP") == "more than one statement"
    assert wrapper_problems(fns["scaled_cost"], "UMAP") == "the unit's parameters are computed"
    assert wrapper_problems(fns["umap_cost"], "TUMAP") == "the engine is not given a TUMAP"


@pytest.mark.parametrize("family", ["cost", "gradient", "transform_cost",
                                    "transform_gradient"])
@pytest.mark.parametrize("prefix", sorted(PAIR_UNITS))
def test_the_pair_twins_are_thin_wrappers_of_the_engines(prefix, family):
    if f"{prefix}_{family}" not in reference.__all__:
        pytest.skip(f"{prefix}: no named kernels (the generic pair_{family} runs its unit)")
    fn = _function(reference, f"{prefix}_{family}")
    problem = wrapper_problems(fn, PAIR_UNITS[prefix].__name__)
    assert problem is None, f"reference.{fn.name}: {problem}"


#: Maths that a module without method formulas never calls.
FORMULA_CALLS = {"log", "log1p", "log2", "exp", "exp2", "expm1", "xlogy", "logaddexp",
                 "power", "reciprocal", "sqrt"}


def formula_calls(source):
    """The maths functions called in ``source`` (``np.log1p(...)``, ``math.exp(...)``)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if name in FORMULA_CALLS:
                found.add(name)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and not (
                isinstance(node.right, ast.Constant) and node.right.value == 2):
            found.add("**")  # a power other than the square of a distance
    return found


def test_the_formula_check_sees_a_formula():
    assert formula_calls("w = np.log1p(a * d2 ** b)\n") == {"log1p", "**"}
    assert formula_calls("x = math.exp(-q) / nu\n") == {"exp"}
    assert formula_calls("y = unit.edge_term(p, d2, None)\n") == set()
    assert formula_calls("d2 = np.sum((Y[i] - Y[j]) ** 2)\n") == set()


@pytest.mark.parametrize("module", [sampled_cost, _sgd_reference], ids=lambda m: m.__name__)
def test_the_sampled_cost_and_the_sgd_loop_write_no_formula(module):
    assert formula_calls(inspect.getsource(module)) == set()


def test_the_pair_engines_write_no_formula():
    for name in PAIR_ENGINES:
        source = ast.unparse(_function(reference, name))
        assert formula_calls(source) == set(), name


def unit_attributes_read(source):
    """Attributes read on a name containing "unit" (``unit.edge_term``, ``self.unit.noise``)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            owner = ast.unparse(node.value)
            if "unit" in owner.split(".")[-1].lower():
                found.add(node.attr)
    return found


def test_the_read_check_sees_unit_reads_only():
    assert unit_attributes_read("c = unit.coefficient(p, d2)\nx = problem.coefficient\n") \
        == {"coefficient"}
    assert unit_attributes_read("n = self.unit.noise(r, 3)\nm = pr.noise\n") == {"noise"}


def test_every_unit_function_is_read_by_an_engine():
    engines = "".join(_source(m) for m in (reference, sampled_cost, _sgd_reference))
    read = unit_attributes_read(engines)
    missing = [name for name in PAIR_INTERFACE + SGD_INTERFACE + ("noise",) if name not in read]
    assert not missing, f"unit functions no engine reads: {missing}"
