"""The registry only collects the method folders; no other module names a method.

A method is one folder, ``smallvis/methods/<name>/``: its page
(``__init__.py``), its units (``unit.py``, ``unit.h``) and its entry
(``method.py``).  Outside the folders a module names no method, neither as
a string nor in an identifier:

* a string constant (:class:`ast.Constant`) anywhere in a module's code
  that equals the name of a registered method, e.g. ``m.name == "ncvis"``,
  ``("tsne", "umap")`` or a dict key ``"umap":``.  Docstrings (the first
  statement of a module, class or function, when it is a string) are prose
  and doctest examples, and are not code: they may name methods.  Names
  inside longer strings (``"umap's fuzzy graph"``) are text, not a list, and
  are not counted.  Signature defaults are code: they read
  :data:`smallvis.registry.DEFAULT_METHOD`.
* an identifier (a name, attribute, function, class, argument, keyword or
  import alias) one of whose words is a method's name, e.g.
  ``largevis_n_epochs``, ``UMAP_SIZE`` or ``LargeVis``.  Comments are not
  code.

The registry spells each method once, in its tuple of folders, and the
default method.  Three kinds of names are public interfaces that the
registry's fields give by rule, and are not counted where they live: the
named twin kernels of :mod:`smallvis.backends` (``<prefix>_cost``, for each
kernel prefix of an entry, and their private helpers), the units' class
names, which the kernel modules import, and the estimator classes of
:mod:`smallvis.estimators` (:func:`smallvis.estimator.estimator_class_name`).

In a method's folder, the unit ``unit.py`` is that method's maths: it may
name its own method (e.g. the stochastic coefficient ``"ncvis"``) and no
other.  The entry ``method.py`` may also name the methods it refers to (a
:class:`~smallvis.method_spec.Confusion`, the testing kit's recipe).

Cython sources cannot be parsed by :mod:`ast` and are not scanned.
"""

import ast
from pathlib import Path

import numpy as np
import pytest

from smallvis.backends import reference

from smallvis.backends import _kernels
from smallvis.registry import (DEFAULT_METHOD, KERNEL_FAMILIES, METHODS, get_method,
                              knn_only_methods)

PACKAGE = Path(__file__).resolve().parent.parent / "smallvis"

#: The registry itself.
REGISTRY = "registry.py"
#: The module of :meth:`smallvis.method_spec.Method.kernels`, the kernel-name rule.
KERNEL_RULE = "method_spec.py"


def _docstring_nodes(tree):
    """The string constants that are docstrings of ``tree``'s module, classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                found.add(id(body[0].value))
    return found


def method_names_in(source, names):
    """``[(line, name)]``: the string constants of ``source`` equal to one of ``names``."""
    tree = ast.parse(source)
    docstrings = _docstring_nodes(tree)
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and node.value in names and id(node) not in docstrings]


def _modules():
    return sorted(path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py"))


def test_the_rule_finds_names_in_code_and_not_in_docstrings():
    names = {"tsne", "umap"}
    source = '''"""Module text: tsne."""
def f(m, method="tsne"):
    """umap"""
    if m.name in ("umap", "other"):
        return {"tsne": 1}
    return "umap's graph"
'''
    assert sorted(method_names_in(source, names)) == [(2, "tsne"), (4, "umap"), (5, "tsne")]
    assert method_names_in('"""tsne"""\nx = 1\n', names) == []


def _folder_of(module):
    """``(method, file)`` of a module in a method's folder, else ``(None, None)``."""
    parts = module.split("/")
    if len(parts) == 3 and parts[0] == "methods" and parts[1] in METHODS:
        return parts[1], parts[2]
    return None, None


def names_allowed_in(module):
    """The method names ``module`` may spell: a unit its own, an entry or page any."""
    method, file = _folder_of(module)
    if method is None:
        return set()
    return {method} if file == "unit.py" else set(METHODS)


def test_a_unit_may_name_its_own_method_only():
    assert names_allowed_in("methods/ncvis/unit.py") == {"ncvis"}
    assert names_allowed_in("methods/ncvis/method.py") == set(METHODS)
    assert names_allowed_in("methods/_common.py") == set()
    assert names_allowed_in("engines/ncvis.py") == set()
    # a unit that names another method is caught
    source = 'class NCVis:\n    sgd_coefficient = "ncvis"\n    other = "umap"\n'
    found = method_names_in(source, set(METHODS) - names_allowed_in("methods/ncvis/unit.py"))
    assert found == [(3, "umap")]


def _registry_lines():
    """The lines of the registry's folder tuple and its default method."""
    tree = ast.parse((PACKAGE / REGISTRY).read_text(encoding="utf-8"))
    lines = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id in ("FOLDERS", "DEFAULT_METHOD")
                for t in node.targets):
            lines.update(range(node.lineno, node.end_lineno + 1))
    return lines


@pytest.mark.parametrize("module", _modules())
def test_no_module_but_the_registry_names_a_method(module):
    names = set(METHODS) - names_allowed_in(module)
    found = method_names_in((PACKAGE / module).read_text(encoding="utf-8"), names)
    if module == REGISTRY:
        found = [(line, name) for line, name in found if line not in _registry_lines()]
    assert found == [], f"{module} names methods at (line, name) {found}: read the registry"


def test_the_registry_spells_each_method_once_in_its_list():
    from smallvis.registry import FOLDERS

    assert list(FOLDERS) == list(METHODS)
    source = (PACKAGE / REGISTRY).read_text(encoding="utf-8")
    found = [name for _, name in method_names_in(source, set(METHODS))]
    assert sorted(found) == sorted(list(FOLDERS) + [DEFAULT_METHOD])


def _identifiers(tree):
    """``(line, identifier)`` of every name the code of ``tree`` defines or uses."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            yield node.lineno, node.id
        elif isinstance(node, ast.Attribute):
            yield node.lineno, node.attr
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.lineno, node.name
        elif isinstance(node, ast.arg):
            yield node.lineno, node.arg
        elif isinstance(node, ast.keyword) and node.arg is not None:
            yield node.lineno, node.arg
        elif isinstance(node, ast.alias):
            yield node.lineno, node.name.split(".")[-1]
            if node.asname:
                yield node.lineno, node.asname


def identifiers_naming(source, names):
    """``[(line, identifier)]``: the identifiers of ``source`` one of whose words is in ``names``.

    The words of an identifier are its parts between underscores, in lower
    case: ``largevis_n_epochs`` and ``LARGEVIS_EPOCHS`` have the word
    ``largevis``, ``LargeVis`` is one word, ``largevis``.
    """
    return sorted({(line, ident) for line, ident in _identifiers(ast.parse(source))
                   if set(ident.lower().split("_")) & set(names)})


def test_the_identifier_rule_finds_method_words_only():
    names = {"largevis", "umap"}
    source = ("from x import largevis_n_epochs as epochs\n"
              "UMAP_SIZE = epochs(LargeVis.n)\n"
              "def f(umap_like=1, *, fumap=2):\n"
              "    return g(largevisible=umap_like)\n")
    assert identifiers_naming(source, names) == [(1, "largevis_n_epochs"), (2, "LargeVis"),
                                                 (2, "UMAP_SIZE"), (3, "umap_like"),
                                                 (4, "umap_like")]
    assert identifiers_naming("x = 1  # largevis_n_epochs\n", names) == []
    assert identifiers_naming("from x import largevis_n_epochs\n", names) == [
        (1, "largevis_n_epochs")]


def _public_names_by_rule(module):
    """The method-named identifiers ``module`` may define: interfaces the registry gives."""
    import importlib

    from smallvis.estimator import estimator_class_name

    if module == "estimators.py":
        return {estimator_class_name(name) for name in METHODS}
    if not module.startswith("backends/"):
        return set()
    units = {value.__name__ for name in METHODS
             for value in vars(importlib.import_module(f"smallvis.methods.{name}.unit")).values()
             if isinstance(value, type) and value.__module__.startswith("smallvis.methods.")}
    prefixes = {prefix for m in METHODS.values() for prefix in m.kernel_prefixes()}
    return units | {f"{prefix}_" for prefix in prefixes}


def _allowed_identifier(ident, allowed):
    return ident in allowed or any(
        p.endswith("_") and ident.lstrip("_").startswith(p) for p in allowed)


@pytest.mark.parametrize("module", _modules())
def test_no_identifier_outside_the_folders_names_a_method(module):
    if _folder_of(module)[0] is not None:
        pytest.skip("a method's folder is that method's")
    allowed = _public_names_by_rule(module)
    source = (PACKAGE / module).read_text(encoding="utf-8")
    found = [(line, ident) for line, ident in identifiers_naming(source, set(METHODS))
             if not _allowed_identifier(ident, allowed)]
    assert found == [], (f"{module} names methods in identifiers at (line, name) {found}: "
                         "move the rule to the method's folder or give it a generic name")


def test_the_public_names_are_the_registry_s():
    allowed = _public_names_by_rule("backends/reference/pairs.py")
    assert _allowed_identifier("tsne_fft_gradient", allowed)
    assert _allowed_identifier("_infonce_rows", allowed)
    assert not _allowed_identifier("largevis_n_epochs", _public_names_by_rule("engines/sgd.py"))
    assert not _allowed_identifier("NCVIS_SGD_MAX_NU", allowed)


def _uses_kernel_rule(source):
    """Whether ``source`` reads ``.resolve_cost`` or spells a kernel suffix."""
    tree = ast.parse(source)
    suffixes = {f"_{s}" for pair in KERNEL_FAMILIES.values() for s in pair}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "resolve_cost":
            return True
        if isinstance(node, ast.JoinedStr) and any(
                isinstance(v, ast.Constant) and v.value in suffixes for v in node.values):
            return True
    return False


@pytest.mark.parametrize("module", _modules())
def test_the_kernel_name_rule_is_written_once(module):
    if module == KERNEL_RULE:
        pytest.skip("the Method class holds the kernel-name rule")
    source = (PACKAGE / module).read_text(encoding="utf-8")
    assert not _uses_kernel_rule(source), f"{module} rewrites the kernel-name rule"


def test_the_kernel_rule_check_detects_a_rewrite():
    assert _uses_kernel_rule('prefix, args = m.resolve_cost(**fixed)\n')
    assert _uses_kernel_rule('f = getattr(k, f"{prefix}_transform_gradient")\n')
    assert not _uses_kernel_rule('f = m.kernels(k, params, family="transform")\n')


# the one rule, against hand-written expectations
@pytest.mark.parametrize("module", [reference, _kernels], ids=["numpy", "cython"])
@pytest.mark.parametrize("method,params,family,expected", [
    ("tsne", {}, "embed", ("tsne_cost", "tsne_gradient", ())),
    ("asne", {}, "transform", ("asne_transform_cost", "asne_transform_gradient", ())),
    ("largevis", {"gamma": 0.5, "kernel": "exp"}, "embed",
     ("largevis_exp_cost", "largevis_exp_gradient", (0.5,))),
    ("largevis", {"gamma": 0.5, "eps": 0.2}, "transform",
     ("largevis_transform_cost", "largevis_transform_gradient", (0.5, 0.2, 1.0))),
    ("umap", {"a": 1.5, "b": 0.9, "eps": 0.0}, "transform",
     ("umap_transform_cost", "umap_transform_gradient", (1.5, 0.9, 0.0))),
    ("ncvis", {"Q": 3.0, "nu": 2.0, "a": 1.0, "b": 1.0}, "embed",
     ("ncvis_cost", "ncvis_gradient", (2.0, 1.0, 1.0))),
])
def test_kernels_names_the_twins_and_their_arguments(module, method, params, family,
                                                      expected):
    m = get_method(method)
    cost_params = {**m.resolve_auto(dict(m.cost_params), 10), **params}
    cost, gradient, args = m.kernels(module, cost_params, family=family)
    assert (cost.__name__, gradient.__name__, args) == expected
    assert cost is getattr(module, expected[0]) and gradient is getattr(module, expected[1])


def test_kernels_selects_an_approximation():
    m = get_method("tsne")
    cost, gradient, args = m.kernels(reference, {"n_interpolation": 5}, gradient="fft")
    assert (cost.__name__, gradient.__name__, args) == ("tsne_fft_cost", "tsne_fft_gradient",
                                                        (5,))


@pytest.mark.parametrize("family", sorted(KERNEL_FAMILIES))
def test_every_kernel_prefix_has_its_twins(family):
    for m in METHODS.values():
        for prefix in m.kernel_prefixes():
            for suffix in KERNEL_FAMILIES[family]:
                for module in (reference, _kernels):
                    # named twins, or a unit run by its engine's generic twins
                    assert (f"{prefix}_{suffix}" in module.__all__
                            or (prefix in m.pair_units and f"pair_{suffix}" in module.__all__)
                            or (prefix in m.normalised_units
                                and f"normalised_{suffix}" in module.__all__)
                            or (prefix in m.second_input_units
                                and f"second_input_{suffix}" in module.__all__))


def test_the_entry_fields_say_prefix_and_unit_params_not_kernel():
    """"kernel" names the compiled functions only (issue 42: one meaning per name).

    ``Method.prefix`` is the prefix of the twin kernels' names (the first
    of :meth:`Method.kernel_prefixes`, the default cost's) and
    ``SgdSpec.unit_params`` gives the coefficient unit's fields.
    """
    from dataclasses import fields

    from smallvis.engines.sgd import SgdSpec
    from smallvis.method_spec import Method

    assert not {"kernel", "kernel_params"} & {f.name for f in fields(Method)}
    assert "unit_params" in {f.name for f in fields(SgdSpec)}
    assert "kernel_params" not in {f.name for f in fields(SgdSpec)}
    for m in METHODS.values():
        if m.resolve_cost is None:
            assert m.kernel_prefixes()[0] == m.prefix, m.name


#: The methods whose named kernels users and the tutorials call: they stay.
NAMED_KERNELS = ("asne", "ssne", "tsne", "largevis", "largevis_exp", "umap", "tumap", "ncvis")


@pytest.mark.parametrize("family", sorted(KERNEL_FAMILIES))
def test_the_named_kernels_stay(family):
    for prefix in NAMED_KERNELS:
        for suffix in KERNEL_FAMILIES[family]:
            for module in (reference, _kernels):
                assert f"{prefix}_{suffix}" in module.__all__


@pytest.mark.parametrize("module", [reference, _kernels], ids=["numpy", "cython"])
def test_a_method_without_named_kernels_gets_the_generic_ones(module):
    from dataclasses import replace

    largevis = get_method("largevis")
    params = {**largevis.resolve_auto(dict(largevis.cost_params), 10), "eps": 0.0}
    renamed = replace(largevis, prefix="unnamed", resolve_cost=lambda **p: (
        "unnamed", largevis.resolve_cost(**p)[1]),
        pair_units={"unnamed": largevis.pair_units["largevis"]})
    rng = np.random.default_rng(1)
    n = 9
    P = rng.uniform(size=(n, n))
    P = (P + P.T) / (P + P.T).sum()
    np.fill_diagonal(P, 0.0)
    triplet = (np.arange(0, n * n + 1, n, dtype=np.int64),
               np.tile(np.arange(n, dtype=np.int64), n), np.ascontiguousarray(P.ravel()))
    Y = rng.normal(size=(n, 2))
    for family in sorted(KERNEL_FAMILIES):
        named = largevis.kernels(module, params, family=family)
        generic = renamed.kernels(module, params, family=family)
        assert f"{generic[0].__module__}.".startswith(f"{module.__name__}.") and generic[2] == named[2]
        lead = (Y, Y + 0.3) if family == "transform" else (Y,)
        g1, g2 = np.zeros_like(Y), np.zeros_like(Y)
        assert generic[0](*triplet, *lead, *generic[2], 1) == named[0](*triplet, *lead,
                                                                        *named[2], 1)
        generic[1](*triplet, *lead, *generic[2], g1, 1)
        named[1](*triplet, *lead, *named[2], g2, 1)
        np.testing.assert_array_equal(g1, g2)


def test_every_method_has_example_parameters():
    """Each method has hand-written test rows or registry examples, the tests' parameters."""
    from conftest import EXACT_VARIANTS

    for name, m in METHODS.items():
        assert EXACT_VARIANTS[name], f"{name}: give its Method entry examples=(...)"
        for example in m.examples:
            assert set(example) <= set(m.cost_params), (name, example)


def test_defaults_and_lists_come_from_the_registry():
    import inspect

    from smallvis import Embedding, affinities, embed

    assert DEFAULT_METHOD in METHODS
    for function in (embed, affinities, Embedding.__init__):
        assert inspect.signature(function).parameters["method"].default == DEFAULT_METHOD


def test_knn_only_methods_are_those_whose_default_p_is_a_graph_on_small_data():
    # a kNN-only method leaves some pairs out of P even where every point
    # could be each other's neighbour (300 points); the others calibrate
    # over all pairs at this size.  Read from the P each entry builds, so
    # the list cannot follow the registry's own bookkeeping into a mistake.
    import scipy.sparse as sp

    from smallvis import affinities

    X = np.random.default_rng(0).normal(size=(300, 5))
    graph = []
    for name in METHODS:
        stored = np.diff(sp.csr_matrix(affinities(X, name)).indptr)
        if stored.min() < X.shape[0] - 1:
            graph.append(name)
    assert knn_only_methods() == graph
    assert 0 < len(graph) < len(METHODS)


# what the other modules read from an entry
def test_every_entry_gives_the_testing_kit_its_recipe():
    for m in METHODS.values():
        assert callable(m.case_affinities), m.name
        assert m.p_family.normalised in ("rows", "total", "")
        conditional = m.p_family.conditional
        assert conditional is None or any(o.p_family is conditional for o in METHODS.values())


def test_the_sampled_cost_reads_the_entry():
    from dataclasses import replace

    from smallvis.engines.sampled_cost import supports

    largevis = get_method("largevis")
    params = largevis.resolve_auto(dict(largevis.cost_params), 10)
    assert supports(largevis, params)
    assert supports(largevis, {**params, "kernel": "exp"})
    # the same kernels without the entry's units: no estimate
    assert not supports(replace(largevis, pair_units={}), params)
    # and a method without a pair-sum cost has none
    assert not supports(get_method("tsne"), dict(get_method("tsne").cost_params))


def test_the_mistakes_catalogue_follows_the_entries():
    from smallvis.testing._mistakes import CATALOGUE, KNOWN_MISTAKES

    for name, m in METHODS.items():
        assert len(KNOWN_MISTAKES.get(name, ())) == len(m.known_mistakes)
        for entry in m.known_mistakes:
            assert entry in CATALOGUE or entry.method in METHODS
