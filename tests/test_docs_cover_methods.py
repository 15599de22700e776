"""Guard rails of the documentation: every registered method is documented.

Adding a method to the registry makes these fail until its maths has a
section of docs/theory.md, its row is in the method tables of the README and
of the user guide's methods page (docs/guide/methods.md), and CHANGELOG.md
names it (CONTRIBUTING.md, "Adding a method").
"""

import re
from pathlib import Path

import pytest

import smallvis

ROOT = Path(__file__).resolve().parent.parent


def _text(name):
    return (ROOT / name).read_text(encoding="utf-8")


def _method_rows(name, heading):
    """The methods named in the first cell of the table under ``heading`` of ``name``."""
    text = _text(name)
    start = text.index(heading)
    end = text.find("\n#", start + 1)
    section = text[start:end if end >= 0 else len(text)]
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
@pytest.mark.parametrize("name, heading", [
    ("README.md", "## The methods"),
    ("docs/guide/methods.md", "## What each method is"),
])
def test_every_method_has_a_row_in_the_method_tables(method, name, heading):
    assert method in _method_rows(name, heading), f"{name}'s method table has no row for {method}"


@pytest.mark.parametrize("method", list(smallvis.METHODS))
def test_every_method_is_in_the_changelog(method):
    assert re.search(rf"`{method}`|\b{method}\b", _text("CHANGELOG.md")), \
        f"CHANGELOG.md does not name {method}"
