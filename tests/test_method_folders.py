"""A method is one folder: ``smallvis/methods/<name>/``, collected by the registry.

Each registered method has its page (``__init__.py``: the module docstring,
with its formulas and references, importing nothing), its NumPy and C units
(``unit.py``, ``unit.h``), its entry (``method.py``, defining ``METHOD``)
and its golden case (``golden.json``, ``golden.npz``: see
tests/test_testing_golden.py), and the registry's tuple of folders is
exactly the folders there are.
"""

import ast
import importlib
from pathlib import Path

import pytest

from smallvis.registry import FOLDERS, METHODS

METHODS_DIR = Path(__file__).resolve().parent.parent / "smallvis" / "methods"

#: What a method's folder holds.
FOLDER_FILES = ("__init__.py", "unit.py", "unit.h", "method.py", "golden.json", "golden.npz")


def _folders_on_disk():
    return sorted(p.name for p in METHODS_DIR.iterdir()
                  if p.is_dir() and not p.name.startswith(("_", ".")))


def test_the_registry_collects_every_folder_and_nothing_else():
    on_disk = _folders_on_disk()
    unlisted = sorted(set(on_disk) - set(FOLDERS))
    assert not unlisted, f"add {unlisted} to FOLDERS in smallvis/registry.py"
    gone = sorted(set(FOLDERS) - set(on_disk))
    assert not gone, f"FOLDERS in smallvis/registry.py names {gone}, which have no folder"
    assert sorted(FOLDERS) == on_disk, "FOLDERS names a folder twice"
    assert list(METHODS) == list(FOLDERS)


@pytest.mark.parametrize("name", list(METHODS))
def test_each_method_is_a_folder_with_its_files(name):
    missing = [f for f in FOLDER_FILES if not (METHODS_DIR / name / f).is_file()]
    assert not missing, f"smallvis/methods/{name}/ lacks {missing}"
    entry = importlib.import_module(f"smallvis.methods.{name}.method").METHOD
    assert entry is METHODS[name]


@pytest.mark.parametrize("name", list(METHODS))
def test_each_folder_carries_its_page(name):
    source = (METHODS_DIR / name / "__init__.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    page = ast.get_docstring(tree)
    assert page, f"smallvis/methods/{name}/__init__.py has no page (module docstring)"
    assert page.startswith(f"{name}:"), "a page opens with the method's name"
    for part in (".. math::", "References\n----------"):
        assert part in page, f"the page of {name} lacks {part!r}"
    # the kernels below the registry import the units, which sit in this
    # package: the page must not pull the entry (or anything) in
    imports = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert not imports, f"smallvis/methods/{name}/__init__.py imports: a page imports nothing"



def test_a_unit_s_name_is_not_an_estimator_s():
    """``smallvis.methods.<name>.unit`` classes end in ``Unit`` (issue 42).

    ``smallvis.UMAP`` is the estimator; the NumPy unit it runs is
    ``UMAPUnit``, so that one name never means two classes.
    """
    import smallvis
    from smallvis.methods import unit_classes

    units = set(unit_classes())
    for m in METHODS.values():
        units |= set(m.pair_units.values()) | set(m.normalised_units.values())
    assert units
    for cls in units:
        assert cls.__name__.endswith("Unit"), cls.__qualname__
        assert not hasattr(smallvis, cls.__name__), cls.__name__
