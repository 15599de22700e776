"""CONTRIBUTING.md against the code: its layer table, file names and tests exist."""

import ast
import re
from pathlib import Path

from test_imports import LAYERS

ROOT = Path(__file__).resolve().parent.parent
TEXT = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
SUFFIXES = (".py", ".pyx", ".pxi", ".h", ".md", ".json", ".npz")


def test_contributing_lists_the_layers():
    # the table "| layer | modules | job |" is tests/test_imports.py's LAYERS, row by row
    rows = re.findall(r"^\| (\d+) \| ([^|]+) \|", TEXT, re.M)
    table = [(int(rank), set(re.findall(r"`([\w.*]+)`", modules))) for rank, modules in rows]
    assert table == list(enumerate(LAYERS))


def _named_files():
    """File names in backquotes (without a ``::test`` suffix)."""
    names = set()
    for quoted in re.findall(r"`([^`\s]+)`", TEXT):
        name = quoted.split("::")[0]
        if name.endswith(SUFFIXES) and not name.startswith("."):  # not a bare suffix
            names.add(name)
    return sorted(names)


def test_every_file_named_exists():
    missing = []
    for name in _named_files():
        if "<" in name or "*" in name:  # a pattern (smallvis/methods/<name>.py): some file matches
            found = any(ROOT.glob(re.sub(r"<[^>]*>", "*", name)))
        elif "/" in name:
            found = (ROOT / name).exists()
        else:  # a bare name: somewhere in the package, the tests or the root
            found = any((base / name).exists() for base in (ROOT, ROOT / "tests", ROOT / "docs")) \
                or any((ROOT / "smallvis").rglob(name))
        if not found:
            missing.append(name)
    assert not missing, f"CONTRIBUTING.md names files that do not exist: {missing}"


def test_every_test_named_exists():
    missing = []
    for path, name in re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", TEXT):
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        defined = {node.name for node in ast.walk(tree)
                   if isinstance(node, ast.FunctionDef)}
        defined |= {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
                    for t in node.targets if isinstance(t, ast.Name)}
        if name not in defined:
            missing.append(f"{path}::{name}")
    assert not missing, f"CONTRIBUTING.md names tests that do not exist: {missing}"
