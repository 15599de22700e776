"""The package's import graph: no cycles, and layers in data-flow order.

The imports are read from the source with :mod:`ast` (every ``import``
statement, also those inside functions, since a deferred import is still a
dependency), so the test needs no import side effects.  Cython sources are
scanned for their ``smallvis`` imports by a regular expression.
"""

import ast
import fnmatch
import re
from pathlib import Path

import pytest

PACKAGE = "smallvis"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE

#: The layers, lowest first.  A module may import only from its own layer or
#: below, so the list reads as the pipeline: helpers, kernels, kNN search,
#: input affinities, the stages after it, the registry, the plans, the API.
#: A name may be a pattern (:func:`fnmatch.fnmatch`); a module takes the
#: layer of the longest name that matches it.
LAYERS = [
    # the ground floor: helpers, the subpackages' docstrings, and the method
    # folders' pages and units (pure maths, which the kernels take)
    {"_numeric", "_validation", "_validation.arrays", "_validation.spans",
     "_validation.options", "_validation.affinity_checks", "_validation.errors", "_threads",
     "_memory", "_outputs", "exceptions", "methods", "methods.*", "methods.*.unit", "backends",
     "inputs", "engines"},
    {"_progress"},
    {"backends._sgd_reference", "backends._sgd_kernels", "backends._graph_products"},
    {"backends.reference", "backends.reference.*", "backends._kernels", "backends._backend",
     "backends._search_forest"},
    {"inputs._new_points", "inputs.neighbors", "inputs.knn_checks", "inputs.exact_search",
     "inputs.annoy_forest", "inputs.refinement", "inputs.distances", "inputs.precomputed",
     "inputs.projection", "inputs.sparse_search", "inputs.projected_search",
     "inputs.search_forest"},
    {"inputs.affinities"},
    {"engines.init", "engines.optim", "engines.sgd", "metrics", "datasets",
     "engines.sampled_cost"},
    # the method folders' entries, what they are built from, and the registry
    # that collects them
    {"registry", "method_spec", "families", "output_curve", "methods.*.method"},
    {"plans", "transform"},
    {"api", "plotting"},
    {"animation"},
    {"estimator", "estimators"},
    {"model_io", "model_io.archive", "model_io.encoding", "model_io.schema",
     "model_io.rebuild", "model_io.save", "_tables"},
    {"cli", "testing", "__init__", "__main__"},
]


def _module_name(path):
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def _resolve(importer, level, module):
    """Absolute dotted name of ``from <level dots><module> import ...``."""
    if level == 0:
        return module
    package = [PACKAGE] + importer.split(".")
    is_package = (ROOT / Path(*importer.split("."))).is_dir() or importer == "__init__"
    if not is_package or importer == "__init__":
        package = package[:-1]
    base = package[:len(package) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _strip(name):
    """``smallvis.x.y`` -> ``x.y`` (``__init__`` for the package); None outside."""
    parts = name.split(".")
    if parts[0] != PACKAGE:
        return None
    return ".".join(parts[1:]) or "__init__"


def _targets(importer, tree, modules):
    """Package modules imported anywhere in ``tree`` (names as in ``modules``)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(_strip(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(importer, node.level, node.module)
            for alias in node.names:
                # "from smallvis import reference" imports a submodule;
                # "from .registry import METHODS" imports the module itself
                sub = _strip(f"{base}.{alias.name}")
                found.add(sub if sub in modules else _strip(base))
    return {name for name in found if name in modules and name != importer}


def import_graph():
    """``{module: set of package modules it imports}`` for every module."""
    trees = {_module_name(path): ast.parse(path.read_text(encoding="utf-8"))
             for path in sorted(ROOT.rglob("*.py"))}
    compiled = {_module_name(path): path for path in sorted(ROOT.rglob("*.pyx"))}
    modules = set(trees) | set(compiled)
    graph = {name: _targets(name, tree, modules) for name, tree in trees.items()}
    for name, path in compiled.items():
        # an extension's source is its .pyx and the .pxi files it includes
        source = path.read_text(encoding="utf-8")
        source += "".join((path.parent / name).read_text(encoding="utf-8")
                          for name in re.findall(r'^include "([^"]+)"', source, re.M))
        graph[name] = {
            m for m in re.findall(rf"^\s*from {PACKAGE}\.([\w.]+) c?import", source, re.M)
            if m in modules
        }
    return graph


def find_cycle(graph):
    """One import cycle as a list of modules, or None."""
    state = {}

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt, stack)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node, [])
            if cycle:
                return cycle
    return None


def test_graph_sees_the_imports():
    graph = import_graph()
    assert "backends._backend" in graph["api"]
    assert "backends.reference" in graph["backends._backend"]
    assert "backends.reference" in graph["backends._kernels"]  # the twin list, from the .pyx
    assert "registry" in graph["__init__"]


def test_find_cycle_detects_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycles():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def _layer(module):
    # a module of its own or a pattern (the longest that matches), else the
    # subpackage it belongs to (datasets, testing)
    for name in (module, module.split(".")[0]):
        matches = [(len(pattern), rank) for rank, layer in enumerate(LAYERS)
                   for pattern in layer if fnmatch.fnmatchcase(name, pattern)]
        if matches:
            return max(matches)[1]
    pytest.fail(f"smallvis.{module} is in no layer of tests/test_imports.py::LAYERS; "
                "add it where it belongs in the data flow")


def test_layers_follow_the_data_flow():
    graph = import_graph()
    upward = sorted(
        f"{src} imports {dst}"
        for src, targets in graph.items()
        for dst in targets
        if _layer(dst) > _layer(src)
    )
    assert not upward, "imports against the data flow: " + "; ".join(upward)


def test_every_subpackage_is_shipped():
    """A folder of modules that pyproject.toml's package search misses is missing from the wheel.

    The import graph above reads the source tree, where every folder imports;
    an installed smallvis has only the packages that ``[tool.setuptools.packages.find]``
    finds (a method folder, ``smallvis/methods/<name>/``, is one of them).
    """
    import tomllib

    from setuptools import find_packages

    pyproject = ROOT.parent / "pyproject.toml"
    find = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["setuptools"]
    find = find["packages"]["find"]
    shipped = set(find_packages(where=str(ROOT.parent), include=find["include"],
                                exclude=find.get("exclude", ())))
    folders = {".".join((PACKAGE, *init.parent.relative_to(ROOT).parts))
               for init in ROOT.rglob("__init__.py")}
    assert folders <= shipped, f"not found by pyproject.toml's package search: {sorted(folders - shipped)}"


def test_every_module_compiles_without_warnings():
    """No invalid escape sequence (a docstring's ``\\log`` outside a raw string) and the like.

    Python 3.12 and later print such warnings when a user first imports the
    module; compiled here with every warning an error.
    """
    import warnings

    for path in sorted(ROOT.rglob("*.py")):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compile(path.read_text(encoding="utf-8"), str(path), "exec")
