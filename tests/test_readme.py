"""The README's "What you can expect" table and limits agree with the code."""

import re
from pathlib import Path

import smallvis
from smallvis.engines import sgd
from smallvis.backends import reference
from smallvis.inputs.neighbors import EXACT_MAX_N

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def _section(title):
    start = README.index(f"## {title}")
    end = README.find("\n## ", start + 1)
    return README[start:end]


def _number(n):
    return f"{n:,}"


def test_expectations_table_covers_every_method_and_its_optimizer():
    table = _section("What you can expect")
    rows = {}
    for line in table.splitlines():
        if line.startswith("| `"):
            names = re.findall(r"`(\w+)`", line.split("|")[1])
            for name in names:
                rows[name] = line
    assert set(rows) == set(smallvis.METHODS)
    for name, method in smallvis.METHODS.items():
        optimizer_cell = rows[name].split("|")[2]
        assert ("stochastic" in optimizer_cell and "no stochastic" not in optimizer_cell) \
            == (method.sgd is not None), rows[name]


def test_limits_quoted_in_the_readme_are_the_code_s():
    aff = smallvis.input_affinities
    numpy_limit = int((reference.MAX_DENSE_BYTES / (8 * reference.DENSE_ARRAYS)) ** 0.5)
    dense_limit = int((aff.MAX_DENSE_AFFINITY_BYTES / (8 * aff.DENSE_AFFINITY_ARRAYS)) ** 0.5)
    table = " ".join(_section("What you can expect").split())  # line breaks as spaces
    assert f"`fast=False` (the NumPy reference) is refused above {_number(numpy_limit)}" \
        in table
    assert f"above {_number(dense_limit)} points" in table
    assert f"up to {_number(sgd.AUTO_SGD_MIN_N)} points" in table
    assert f"exact up to {_number(EXACT_MAX_N)} points" in table
    assert f"exact cost of the final Y up to {_number(sgd.SGD_COST_MAX_N)} points" \
        in " ".join(README.split())
