"""The README and the pages that hold its facts agree with the code.

The README is the landing page (and the site's front page); the method
table with every method's optimizer, input P and limits is on the user
guide's methods page, the limits on the scale page and the reported cost on
the optimisation page.  Each number quoted there is the constant the code
uses.
"""

import re
from pathlib import Path

import pytest

import smallvis
from smallvis.engines import sgd
from smallvis.backends import reference
from smallvis.inputs.neighbors import EXACT_MAX_N

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _read(path):
    return (ROOT / path).read_text(encoding="utf-8")


def _section(text, title):
    """The Markdown section under the heading ``title`` (any level), to the next heading."""
    match = re.search(rf"^#+ {re.escape(title)}\s*$", text, flags=re.M)
    assert match, f"no heading {title!r}"
    end = re.compile(r"^#+ ", flags=re.M).search(text, match.end())
    return text[match.start():end.start() if end else len(text)]


def _flat(text):
    return " ".join(text.split())  # line breaks as spaces


def _table_rows(section):
    """Each method named in a table's first cell, with its whole row."""
    rows = {}
    for line in section.splitlines():
        if line.startswith("| `"):
            for name in re.findall(r"`(\w+)`", line.split("|")[1]):
                rows[name] = line
    return rows


def _number(n):
    return f"{n:,}"


README = _read("README.md")
METHODS_PAGE = _read("docs/guide/methods.md")


@pytest.mark.parametrize("text, title", [
    (METHODS_PAGE, "What each method is"),
    (README, "The methods"),
], ids=["guide/methods.md", "README.md"])
def test_method_tables_state_each_method_s_optimizer(text, title):
    rows = _table_rows(_section(text, title))
    # a chosen few, each a registered method whose optimizer is stated right
    assert rows and set(rows) <= set(smallvis.METHODS)
    for name, method in ((name, smallvis.METHODS[name]) for name in rows):
        optimizer_cell = rows[name].split("|")[3 if text is README else 2]
        assert ("stochastic" in optimizer_cell and "no stochastic" not in optimizer_cell) \
            == (method.sgd is not None), rows[name]


def test_limits_quoted_in_the_docs_are_the_code_s():
    aff = smallvis.input_affinities
    numpy_limit = int((reference.MAX_DENSE_BYTES / (8 * reference.DENSE_ARRAYS)) ** 0.5)
    dense_limit = int((aff.MAX_DENSE_AFFINITY_BYTES / (8 * aff.DENSE_AFFINITY_ARRAYS)) ** 0.5)
    limits = _flat(_section(_read("docs/guide/scale.md"), "Limits"))
    assert f"`fast=False` (the NumPy reference) holds up to {reference.DENSE_ARRAYS} dense" \
        in limits
    assert f"refuses more than {_number(numpy_limit)} points, whatever the method" in limits
    assert f"refuse more than {_number(dense_limit)} points" in limits
    table = _flat(_section(METHODS_PAGE, "What each method is"))
    assert f"above {_number(dense_limit)} points" in table
    assert f"exact up to {_number(sgd.AUTO_SGD_MIN_N)} points; stochastic above" in table
    rows = _table_rows(_section(METHODS_PAGE, "What each method is"))
    # each method's row quotes its own switch (infonce's, at every size, in words)
    limits = {name: m.sgd.auto_min_n for name, m in smallvis.METHODS.items()
              if m.sgd is not None and m.sgd.auto_min_n}
    for name, limit in limits.items():
        assert f"exact up to {_number(limit)} points; stochastic above" in rows[name], name
    lower = {name: limit for name, limit in limits.items() if limit != sgd.AUTO_SGD_MIN_N}
    assert len(set(lower.values())) == 1, lower  # the README's row names one lower limit
    *rest, last = lower
    named = f"{', '.join(rest)} and {last}" if rest else last
    assert (f"exact up to {_number(sgd.AUTO_SGD_MIN_N)} points ({named}: "
            f"{_number(next(iter(lower.values())))}), stochastic above") in _read("README.md")
    neighbours = _flat(_section(METHODS_PAGE, "Nearest neighbours"))
    assert f"exact up to {_number(EXACT_MAX_N)} points" in neighbours
    assert f"exact cost of the final Y up to {_number(sgd.SGD_COST_MAX_N)} points" \
        in _flat(_read("docs/guide/optimisation.md"))


def test_the_readme_keeps_the_two_set_up_commands_and_ci_runs_the_second():
    setup = _section(README, "Set-up: two commands")
    commands = re.findall(r"```bash\n(.*?)\n```", setup, flags=re.S)
    assert commands == [
        "pip install . && smallvis embed digits --method tsne --fast --out digits.csv "
        "--plot digits.png",
        'pip install ".[test]" && pytest',
    ]
    ci = _read(".ci/run")
    assert f"if {commands[1]}; then" in ci


def _relative_links(text):
    """The targets of the Markdown links and images that are not URLs or anchors."""
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    return [t for t in targets if not re.match(r"[a-z]+:|#", t)]


def test_every_relative_link_of_the_readme_is_a_file_and_a_site_page():
    links = _relative_links(README)
    assert links
    for link in links:
        path = link.split("#")[0]
        assert (ROOT / path).is_file(), f"README links to {link}, which does not exist"
        # the site shows the README as its front page: only files under docs/
        # have a home there
        assert path.startswith("docs/"), f"README links to {link}, which is not on the site"
    index = _read("docs/index.md")
    assert "```{include} ../README.md\n:relative-docs: docs/\n:relative-images:" in index


def test_the_readme_is_a_landing_page():
    # the details live on the site's pages; the README stays short enough to read
    assert len(README.splitlines()) <= 160
