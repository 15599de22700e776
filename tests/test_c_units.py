"""Guard rails of the compiled side: each method's maths lives in its C unit.

A method's compiled maths is written once, in ``smallvis/methods/<method>/unit.h``
(its parameter struct, output weight, pair coefficient, cost terms,
transform-row terms and stochastic coefficients).  The engines
(``_pairloops.h``, the un-normalised engine of ``_kernels.pyx``,
``_transform_kernels.pxi`` and ``_sgd_kernels.pyx``) are instantiated per
unit from one list and never spell out a formula or name a method, except
in the marked unit lists, the marked fast paths and the thin named
functions that fill a unit's parameters.  These tests fail when a formula
or a method name creeps back into an engine, or when parameters travel in
fixed slots again.
"""

import re
from pathlib import Path

import pytest

import smallvis

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "smallvis"


def _source(name):
    """An engine source, wherever the package keeps it."""
    found = sorted(PACKAGE.rglob(name))
    assert found, f"{name} not found under smallvis/"
    return found[0].read_text(encoding="utf-8")


UNIT_DIR = PACKAGE / "methods"
#: every method name, the registry's and the LargeVis variant's
METHOD_NAMES = sorted(set(smallvis.METHODS) | {"largevis_exp"})
NAME_PATTERN = re.compile("|".join(sorted(METHOD_NAMES, key=len, reverse=True)),
                          re.IGNORECASE)
#: the maths of an output weight or a cost term, as the units write it
FORMULA_PATTERNS = [r"1\.0\s*/\s*\(1\.0\s*\+", r"/\s*\(1\.0\s*\+", r"\blog1p\s*\(",
                    r"\bexp2\s*\(", r"SMALLVIS_POW_POS\s*\(", r"\bsmallvis_cauchy\s*\(",
                    r"\bsmallvis_power_w\s*\(", r"\bsmallvis_fuzzy_\w+\s*\("]


def _without_blocks(text, begin, end):
    """``text`` less the blocks from a line matching ``begin`` to the next ``end``."""
    return re.sub(rf"{begin}.*?{end}", "", text, flags=re.S)


def _c_comments_dropped(text):
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def _pairloops_engine():
    text = _source("_pairloops.h")
    text = _without_blocks(text, r"---- the units: begin", r"---- the units: end")
    return _without_blocks(text, r"---- fast path:", r"---- fast path: end")


def _unit_headers():
    """Every method folder's C unit, ``methods/<method>/unit.h``."""
    return sorted(UNIT_DIR.glob("*/unit.h"))


def _unit_name(path):
    """The method a C unit belongs to: its folder's name."""
    return path.parent.name


def _list_macro(name):
    """The unit names of one X-macro list of methods/units.h."""
    text = _c_comments_dropped((UNIT_DIR / "units.h").read_text(encoding="utf-8"))
    match = re.search(rf"#define {name}\(X\)(.*?)(?:\n(?!\s)|\Z)", text, flags=re.S)
    assert match, f"{name} not found in methods/units.h"
    return re.findall(r"X\((\w+)", match.group(1))


def test_every_method_has_a_c_unit():
    units = {_unit_name(path) for path in _unit_headers()}
    assert set(smallvis.METHODS) <= units


def test_every_unit_is_in_the_list():
    """Each C unit is included by methods/units.h and named in one of its lists."""
    text = _c_comments_dropped((UNIT_DIR / "units.h").read_text(encoding="utf-8"))
    pair, normalised = _list_macro("SMALLVIS_PAIR_UNITS"), _list_macro("SMALLVIS_NORMALISED_UNITS")
    normalised += _list_macro("SMALLVIS_ROW_UNITS")  # the units that own their rows
    for path in _unit_headers():
        include = f"{_unit_name(path)}/unit.h"
        assert f'#include "{include}"' in text, f"methods/units.h does not include {include}"
        source = path.read_text(encoding="utf-8")
        loaded = re.findall(r"\bsmallvis_(\w+)_load\s*\(", source)
        if loaded:  # a pair unit (or several): each is a line of the pair list
            for name in loaded:
                assert name in pair, f"{name} ({path.name}) is not in SMALLVIS_PAIR_UNITS"
        else:
            assert _unit_name(path) in normalised, f"{path} is in no list of methods/units.h"


def test_every_unit_is_included_by_the_engine():
    for name in ("_pairloops.h", "_sgd_kernels.pyx"):
        assert '#include "methods/units.h"' in _source(name), name


def test_the_compiled_list_is_the_list():
    """The extension was built from the current list (rebuild after editing it)."""
    from smallvis.backends import _kernels

    assert list(_kernels._PAIR_UNITS) == _list_macro("SMALLVIS_PAIR_UNITS")


def test_each_loader_reads_its_numpy_unit_s_fields_in_order():
    """A C unit's ``smallvis_NAME_fields`` (its loader's order) is the NamedTuple's ``_fields``."""
    from smallvis.backends import _kernels
    from smallvis.methods import unit_classes

    pair_units = [cls for cls in unit_classes() if hasattr(cls, "kernel")]
    assert {cls.kernel for cls in pair_units} == set(_kernels._PAIR_UNITS)
    for cls in pair_units:
        assert _kernels._PAIR_UNITS[cls.kernel][1] == cls._fields, cls.__name__


def test_the_loader_puts_each_field_in_its_place():
    """Loading a unit whose fields differ one at a time changes the cost: no field is dropped."""
    import numpy as np

    from smallvis.backends import _kernels, reference
    from smallvis.methods import unit_classes

    rng = np.random.default_rng(3)
    n = 12
    P = rng.uniform(0.0, 1.0, (n, n))
    P = (P + P.T) / (2 * (P + P.T).sum())
    np.fill_diagonal(P, 0.0)
    triplet = (np.arange(0, n * n + 1, n, dtype=np.int64),
               np.tile(np.arange(n, dtype=np.int64), n), np.ascontiguousarray(P.ravel()))
    Y = rng.normal(size=(n, 2))
    for cls in (c for c in unit_classes() if hasattr(c, "kernel")):
        base = cls(*(0.7 + 0.1 * i for i in range(len(cls._fields))))
        for field in cls._fields:
            unit = base._replace(**{field: getattr(base, field) * 1.3})
            fast = _kernels.pair_cost(unit, *triplet, Y, 1)
            slow = reference.pair_cost(unit, *triplet, Y, 1)
            np.testing.assert_allclose(fast, slow, rtol=1e-10, err_msg=f"{cls.__name__}.{field}")


def test_each_unit_defines_a_named_parameter_struct():
    for path in _unit_headers():
        text = path.read_text(encoding="utf-8")
        assert re.search(rf"\bsmallvis_{_unit_name(path)}_params\s*;", text), path


def test_the_pair_engine_names_no_method():
    found = NAME_PATTERN.findall(_pairloops_engine())
    assert not found, f"a method named in _pairloops.h outside the unit list and fast paths: {found}"


@pytest.mark.parametrize("pattern", FORMULA_PATTERNS)
def test_the_pair_engine_spells_no_formula(pattern):
    code = _c_comments_dropped(_pairloops_engine())
    assert not re.search(pattern, code), f"{pattern!r} in _pairloops.h: it belongs in a unit"


def _kernels_engine():
    text = _source("_kernels.pyx")
    match = re.search(r"# ---- engine: begin(.*?)# ---- engine: end", text, flags=re.S)
    assert match, "the un-normalised engine of _kernels.pyx lost its marks"
    return match.group(1)


def test_the_exact_engine_names_no_method_and_no_formula():
    engine = _kernels_engine()
    assert not NAME_PATTERN.findall(engine)
    for pattern in FORMULA_PATTERNS + [r"\blog\s*\(", r"\bexp\s*\("]:
        assert not re.search(pattern, engine), pattern


def test_the_transform_engine_names_no_method_and_no_formula():
    text = _source("_transform_kernels.pxi")
    engine = text.split("# ---- the named functions")[0]
    assert engine != text, "the transform engine lost its mark"
    assert not NAME_PATTERN.findall(engine)
    for pattern in FORMULA_PATTERNS + [r"\blog\s*\(", r"\bexp\s*\(", r"\bkind\b"]:
        assert not re.search(pattern, engine), pattern


def test_the_transform_named_functions_only_pick_a_unit():
    text = _source("_transform_kernels.pxi")
    wrappers = text.split("# ---- the named functions")[1]
    for pattern in FORMULA_PATTERNS + [r"\blog\s*\(", r"\bexp\s*\("]:
        assert not re.search(pattern, wrappers), pattern


def test_the_sgd_engine_spells_no_coefficient():
    text = _source("_sgd_kernels.pyx")
    code = _without_blocks(text, r"---- the units: begin", r"---- the units: end")
    for pattern in [r"\bexp2\s*\(", r"_pow_pos", r"/\s*\(1\.0\s*\+", r"\bk\.(a|b|gamma|eps|nu)\b",
                    r"\bCoef\b", r"_bind_coefficient", r"_cauchy_", r"_ncvis_"]:
        assert not re.search(pattern, code), pattern


def test_no_name_ladder_picks_a_coefficient():
    code = _source("_sgd_kernels.pyx")
    ladder = re.findall(r"==\s*[\"'](?:%s|cauchy)[\"']" % NAME_PATTERN.pattern, code,
                        flags=re.IGNORECASE)
    assert not ladder


@pytest.mark.parametrize("name", ["_kernels.pyx", "_sgd_kernels.pyx",
                                  "_transform_kernels.pxi", "_fft_repulsion.pxi"])
def test_no_fixed_parameter_slots(name):
    text = _source(name)
    # (the stochastic loop's L.q[0] is the learned scalar itself, not a slot)
    for pattern in [r"np\.zeros\(\s*[34]\s*\)", r"\bq_arr\b", r"(?<![.\w])q\[\s*\d\s*\]",
                    r"\bparams\[\s*\d\s*\]", r"len\(params\)"]:
        assert not re.search(pattern, text), f"{pattern!r} in {name}"


def test_no_fixed_parameter_slots_in_the_c_engine():
    code = _c_comments_dropped(_source("_pairloops.h"))
    assert not re.search(r"\b(q|params)\[\s*\d\s*\]", code)


def test_the_units_are_package_data():
    # an installed package builds from the headers: each must match a package-data glob
    import fnmatch
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"].get("smallvis.methods", [])
    methods = PACKAGE / "methods"
    headers = sorted(path.relative_to(methods).as_posix() for path in methods.rglob("*.h"))
    assert any(name.endswith("/unit.h") for name in headers)
    unshipped = [name for name in headers
                 if not any(fnmatch.fnmatch(name, pattern) for pattern in globs)]
    assert not unshipped, f"C units missing from the package data: {unshipped}"
    # and each method folder is a package of the distribution, so that its
    # unit.h ships wherever the build looks for it
    import setuptools

    packages = setuptools.find_packages(str(ROOT), **config["tool"]["setuptools"]["packages"]["find"])
    assert {f"smallvis.methods.{name}" for name in smallvis.METHODS} <= set(packages)
