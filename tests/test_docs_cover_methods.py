"""Guard rails of the documentation: every registered method is documented.

Adding a method to the registry makes these fail until its maths has a
section of docs/theory.md, its row is in the README's method table and
CHANGELOG.md names it (CONTRIBUTING.md, "Adding a method").
"""

import re
from pathlib import Path

import pytest

import smallvis

ROOT = Path(__file__).resolve().parent.parent


def _text(name):
    return (ROOT / name).read_text(encoding="utf-8")


def _readme_method_rows():
    """The methods named in the first cell of the README's method table."""
    readme = _text("README.md")
    start = readme.index("## What you can expect")
    section = readme[start:readme.index("\n## ", start + 1)]
    names = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            names.update(re.findall(r"`(\w+)`", line.split("|")[1]))
    return names


@pytest.mark.parametrize("method", list(smallvis.METHODS))
def test_every_method_has_a_theory_section(method):
    """A heading of docs/theory.md §3 (exact costs) names the method."""
    headings = re.findall(r"^### 3\.\d+ (.*)$", _text("docs/theory.md"), flags=re.M)
    assert any(re.match(rf"{method}\b", h) for h in headings), \
        f"docs/theory.md has no section '### 3.x {method}: ...'"


@pytest.mark.parametrize("method", list(smallvis.METHODS))
def test_every_method_has_a_readme_row(method):
    assert method in _readme_method_rows(), f"README.md's method table has no row for {method}"


@pytest.mark.parametrize("method", list(smallvis.METHODS))
def test_every_method_is_in_the_changelog(method):
    assert re.search(rf"`{method}`|\b{method}\b", _text("CHANGELOG.md")), \
        f"CHANGELOG.md does not name {method}"
