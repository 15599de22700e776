"""Guard rails of the documentation: every registered method is documented.

A method's maths is its folder's page (tests/test_method_folders.py), from
which the site makes its page; CHANGELOG.md must name it (CONTRIBUTING.md,
"Adding a method"); the hand-written method tables of the README and the
user guide may leave it out but must not name a method that does not exist.
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


@pytest.mark.parametrize("name, heading", [
    ("README.md", "## The methods"),
    ("docs/guide/methods.md", "## What each method is"),
])
def test_the_method_tables_name_only_registered_methods(name, heading):
    """The hand-written tables are a chosen few; the site's method index lists every one.

    A method's own page (its folder's page, its unit's maths, a figure) is
    generated from its folder when the site is built (docs/_ext), so a new
    method is documented without a row here; a row that names no method is
    stale.
    """
    rows = _method_rows(name, heading)
    assert rows, f"{name} has no method table under {heading!r}"
    assert rows <= set(smallvis.METHODS), f"{name} names unknown methods: {rows - set(smallvis.METHODS)}"


def test_the_site_indexes_every_method():
    import sys
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        import smallvis_docs
    finally:
        sys.path.pop(0)
    index = smallvis_docs.methods_index([(m.name, m.summary) for m in smallvis.METHODS.values()])
    for name in smallvis.METHODS:
        assert f":doc:`{name}`" in index


@pytest.mark.parametrize("method", list(smallvis.METHODS))
def test_every_method_is_in_the_changelog(method):
    assert re.search(rf"`{method}`|\b{method}\b", _text("CHANGELOG.md")), \
        f"CHANGELOG.md does not name {method}"
