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
from smallvis import _units_list

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
#: a name not inside a longer word ("ee" in "between"): letters around it
#: break the match, an underscore or a digit does not ("smallvis_tsne_w")
NAME_PATTERN = re.compile("(?<![a-z])(?:" + "|".join(sorted(METHOD_NAMES, key=len, reverse=True))
                          + ")(?![a-z])", re.IGNORECASE)
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


def _declared():
    """``{folder: [(kind, name, arguments), ...]}``: each unit.h's own declarations."""
    return {folder: units for folder, units in _units_list.collect(UNIT_DIR)}


def _declared_names(kind):
    """The names of the declared units of one kind, in the generated list's order."""
    return [name for units in _declared().values() for k, name, _ in units if k == kind]


def test_every_method_has_a_c_unit():
    units = {_unit_name(path) for path in _unit_headers()}
    assert set(smallvis.METHODS) <= units


def test_every_unit_is_included_by_the_engine():
    for name in ("_pairloops.h", "_sgd_kernels.pyx"):
        assert '#include "methods/units.h"' in _source(name), name


def test_the_generated_list_is_current(tmp_path):
    """methods/_units_list.h is what the folders' declarations give now (rebuild if not)."""
    shipped = UNIT_DIR / _units_list.HEADER
    assert shipped.exists(), ("methods/_units_list.h is missing: run "
                              "python setup.py build_ext --inplace")
    fresh = _units_list.write(UNIT_DIR, out_dir=tmp_path)
    assert fresh != shipped  # a fresh copy, not the file under test
    assert shipped.read_text(encoding="utf-8") == fresh.read_text(encoding="utf-8"), (
        "methods/_units_list.h is stale: run python setup.py build_ext --inplace")


def test_the_list_follows_the_registry_s_folders():
    """The includes and the lines come in the order of registry.FOLDERS, a file's in file order."""
    from smallvis.registry import FOLDERS

    text = (UNIT_DIR / _units_list.HEADER).read_text(encoding="utf-8")
    included = re.findall(r'#include "(\w+)/unit\.h"', text)
    assert included == [f for f in FOLDERS if (UNIT_DIR / f / "unit.h").exists()]
    for kind, (macro, _) in _units_list.KINDS.items():
        match = re.search(rf"#define {macro}\(X\)(.*?)(?:\n\n|\Z)", text, flags=re.S)
        assert match, macro
        assert re.findall(r"X\((\w+)", match.group(1)) == _declared_names(kind)


def test_units_h_lists_no_unit_by_hand():
    """units.h takes its lists and the units' #includes from the generated file only."""
    code = _c_comments_dropped((UNIT_DIR / "units.h").read_text(encoding="utf-8"))
    assert '#include "_units_list.h"' in code
    assert not re.search(r'#include "\w+/unit\.h"', code)
    for macro, _ in _units_list.KINDS.values():
        assert f"#define {macro}" not in code


def test_every_unit_h_declares_its_units():
    """Each unit a unit.h defines (a loader, a row) is declared there, with its kind."""
    declared = _declared()
    definitions = {"pair": r"static inline void smallvis_(\w+?)_load\s*\(",
                   "normalised": r"static inline void smallvis_(\w+?)_load_fields\s*\(",
                   "row": r"static inline double smallvis_(\w+?)_row\s*\("}
    for path in _unit_headers():
        units = declared[_unit_name(path)]
        assert units, f"{path} declares no unit"
        code = _c_comments_dropped(path.read_text(encoding="utf-8"))
        for kind, pattern in definitions.items():
            defined = re.findall(pattern, code)
            assert sorted(defined) == sorted(n for k, n, _ in units if k == kind), (path, kind)


def _numpy_unit_names(cls):
    """``{(kind, C unit name)}`` that a NumPy unit class reaches."""
    if hasattr(cls, "kernel"):
        return {("pair", cls.kernel)}
    if hasattr(cls, "c_unit"):
        # c_unit may depend on the parameters (a property): try a few values
        values = [()] if not cls._fields else [(v,) * len(cls._fields) for v in (1.0, 0.5, 7.0)]
        return {("normalised", cls(*v).c_unit) for v in values}
    if hasattr(cls, "sgd_grouped"):
        return {("row", cls.sgd_grouped)}
    return set()  # stochastic coefficients only: they belong to a pair unit's line


def test_the_numpy_units_kinds_are_the_declared_kinds():
    """A NumPy unit's C twin is declared in its own folder's unit.h, as its kind.

    A unit with ``kernel`` is a pair unit, one with ``c_unit`` a normalised
    unit, one with only ``sgd_grouped`` a row unit; and every declared unit
    has its NumPy twin.
    """
    from smallvis.methods import unit_classes

    declared = _declared()
    reached = set()
    for cls in unit_classes():
        folder = cls.__module__.split(".")[-2]
        names = _numpy_unit_names(cls)
        own = {(kind, name) for kind, name, _ in declared.get(folder, [])}
        assert names <= own, f"{cls.__name__}: {names - own} not declared in {folder}/unit.h"
        reached |= names
    everything = {(kind, name) for units in declared.values() for kind, name, _ in units}
    assert reached == everything


def test_the_compiled_lists_are_the_declared_lists():
    """The extension was built from the current declarations (rebuild after editing them)."""
    from smallvis.backends import _kernels

    assert list(_kernels._PAIR_UNITS) == _declared_names("pair")
    assert list(_kernels._NORMALISED_UNITS) == _declared_names("normalised")


def _fake_methods(tmp_path, folders, units):
    """A methods directory with a registry of ``folders`` and these ``{folder: unit.h text}``."""
    methods = tmp_path / "smallvis" / "methods"
    methods.mkdir(parents=True)
    (methods.parent / "registry.py").write_text(f"FOLDERS = {tuple(folders)!r}\n",
                                                encoding="utf-8")
    for folder, text in units.items():
        (methods / folder).mkdir()
        (methods / folder / "unit.h").write_text(text, encoding="utf-8")
    return methods


def test_the_list_is_ordered_by_the_registry_not_by_name(tmp_path):
    methods = _fake_methods(tmp_path, ["zeta", "alpha"], {
        "alpha": "/* smallvis unit: pair alpha FUSED PLAIN */\n",
        "zeta": ("/* smallvis unit: pair zeta NO_ROW_2D LEARNED */\n"
                 "/* smallvis unit: pair zeta_b FUSED NO_SGD */\n"
                 "/* smallvis unit: normalised zeta_n STRICT */\n")})
    text = _units_list.render(methods)
    assert text.index('"zeta/unit.h"') < text.index('"alpha/unit.h"')
    assert re.findall(r"X\((\w+)", text) == ["zeta_n", "zeta", "zeta_b", "alpha"]
    assert "X(zeta_n, STRICT)" in text and "X(zeta, NO_ROW_2D, LEARNED)" in text


@pytest.mark.parametrize("units, folders, message", [
    ({"a": "/* smallvis unit: pair a FUSED */\n"}, ["a"], "a pair unit is declared as"),
    ({"a": "/* smallvis unit: row a EXTRA */\n"}, ["a"], "a row unit is declared as"),
    ({"a": "/* smallvis unit: pairs a FUSED PLAIN */\n"}, ["a"], "no known kind"),
    ({"a": "/* smallvis unit: pair a-b FUSED PLAIN */\n"}, ["a"], "not a C identifier"),
    ({"a": "/* a unit without its line */\n"}, ["a"], "declares no unit"),
    ({"a": "/* smallvis unit: row a */\n"}, [], "add 'a' to FOLDERS"),
    ({"a": "/* smallvis unit: row x */\n", "b": "/* smallvis unit: row x */\n"}, ["a", "b"],
     "declared in both"),
])
def test_a_bad_declaration_stops_the_build_with_its_file(tmp_path, units, folders, message):
    methods = _fake_methods(tmp_path, folders, units)
    with pytest.raises(ValueError, match=message):
        _units_list.render(methods)


def test_the_build_writes_the_list():
    """setup.py runs the generator itself (before cythonize), loaded by its path."""
    setup = (ROOT / "setup.py").read_text(encoding="utf-8")
    assert "_units_list.py" in setup
    assert setup.index("write_units_list()\n\n") < setup.index("cythonize(")


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
