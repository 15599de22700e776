"""The API reference of the documentation site lists every public name.

The site's API pages come from the ``autosummary`` lists of
``docs/api/*.rst``; the estimator classes, one per method, come from a page
that the site's extension writes from the registry.  These tests read the
lists as text (no Sphinx build): a public name of :mod:`smallvis` or
:mod:`smallvis.testing` without an entry fails here, with the file to edit.
"""

import importlib
import importlib.util
import re
import subprocess
from pathlib import Path

import pytest

import smallvis
import smallvis.testing

ROOT = Path(__file__).resolve().parents[1]
API_DIR = ROOT / "docs" / "api"
EXTENSION = ROOT / "docs" / "_ext" / "smallvis_docs.py"


def _extension():
    spec = importlib.util.spec_from_file_location("smallvis_docs", EXTENSION)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def autosummary_entries(text):
    """The fully qualified names listed by the ``autosummary`` blocks of an .rst text.

    A name is qualified by the ``currentmodule`` in force, as Sphinx does.
    """
    entries, module, in_block = [], "", False
    for line in text.splitlines():
        current = re.match(r"\.\. (?:current)?module:: *(\S+)", line)
        if current:
            module, in_block = current.group(1), False
            continue
        if re.match(r"\.\. autosummary::", line.strip()):
            in_block = True
            continue
        if not in_block:
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith(":"):
            continue
        if not line.startswith((" ", "\t")):
            in_block = False
            continue
        name = stripped.lstrip("~")
        entries.append(f"{module}.{name}" if module else name)
    return entries


def resolve(dotted):
    """The object a dotted name stands for: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def missing_names(package, names, entries):
    """The names of ``package`` whose object no entry resolves to."""
    listed = [resolve(entry) for entry in entries]
    return [name for name in names
            if not any(obj is getattr(package, name) for obj in listed)]


def _hand_written_entries():
    # estimators.rst is written by the extension at build time (not a source)
    files = [p for p in sorted(API_DIR.glob("*.rst")) if p.name != "estimators.rst"]
    assert files, f"no API reference source in {API_DIR}"
    return [entry for p in files for entry in autosummary_entries(p.read_text())]


def test_every_public_name_of_smallvis_has_an_api_entry():
    generated = set(_extension().estimator_names())
    hand_written = [n for n in smallvis.__all__ if n not in generated]
    missing = missing_names(smallvis, hand_written, _hand_written_entries())
    assert not missing, (
        f"public names of smallvis without an entry in docs/api/index.rst: {missing}; "
        "add them to an autosummary list there")


def test_every_public_name_of_smallvis_testing_has_an_api_entry():
    missing = missing_names(smallvis.testing, smallvis.testing.__all__,
                            _hand_written_entries())
    assert not missing, (
        f"public names of smallvis.testing without an entry in docs/api/index.rst: "
        f"{missing}; add them under its currentmodule smallvis.testing")


def test_the_generated_page_lists_every_estimator_class():
    # the estimators are the public subclasses of Embedding, found here by
    # their type, not from the list the extension reads
    estimators = [n for n in smallvis.__all__
                  if isinstance(getattr(smallvis, n), type)
                  and issubclass(getattr(smallvis, n), smallvis.Embedding)
                  and getattr(smallvis, n) is not smallvis.Embedding]
    assert estimators
    page = _extension().estimators_page()
    entries = [e.rsplit(".", 1)[-1] for e in autosummary_entries(page)]
    assert sorted(entries) == sorted(estimators)


def test_a_missing_name_is_reported():
    text = """
.. currentmodule:: smallvis

.. autosummary::
   :toctree: generated/

   embed
   backends.reference

Next section
"""
    entries = autosummary_entries(text)
    assert entries == ["smallvis.embed", "smallvis.backends.reference"]
    assert missing_names(smallvis, ["embed", "reference", "plot"], entries) == ["plot"]


@pytest.mark.parametrize("name", ["reference", "input_affinities"])
def test_a_module_alias_is_covered_by_its_real_name(name):
    real = getattr(smallvis, name).__name__
    assert missing_names(smallvis, [name], [real]) == []


#: A dotted name of the package as the prose writes it: ``smallvis.x.y``
#: inside backquotes (Markdown's one, reStructuredText's two, a role's, with
#: or without its ``~``) or as the target of a titled link ``<smallvis.x>``.
QUOTED_NAME = re.compile(r"(?:`~?|<)(smallvis(?:\.[A-Za-z_]\w*)+)")

#: Where the names are read: the sources of the docs, the package, the
#: examples, the benchmarks and the notebooks (the tests name made-up ones).
PROSE_SUFFIXES = (".md", ".rst", ".py", ".pyx", ".pxi", ".h", ".ipynb")
PROSE_FOLDERS = ("docs", "smallvis", "examples", "benchmarks", "tutorials")


def quoted_names(text):
    """The dotted ``smallvis.…`` names that ``text`` quotes as code."""
    return QUOTED_NAME.findall(text)


def _prose_files():
    # the files git tracks: a local build's output (docs/_build, the API and
    # gallery pages it writes) would make the answer depend on the last build
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                                capture_output=True, text=True).stdout.split("\0")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked sources are unknown")
    paths = [Path(name) for name in listed if name]
    # the changelog names what was there then
    return sorted(ROOT / p for p in paths if p.suffix in PROSE_SUFFIXES
                  and (p.parts[0] in PROSE_FOLDERS or len(p.parts) == 1)
                  and p.name != "CHANGELOG.md")


def _resolves(dotted):
    """True when the module, or the attribute chain from the longest importable module, exists.

    A field of a dataclass or a typed class without a class-level value
    (``EmbedResult.learned``) counts: it exists on every instance.
    """
    head, _, last = dotted.rpartition(".")
    try:
        resolve(dotted)
        return True
    except (ImportError, AttributeError):
        pass
    try:
        owner = resolve(head)
    except (ImportError, AttributeError):
        return False
    fields = {**getattr(owner, "__dataclass_fields__", {}),
              **getattr(owner, "__annotations__", {})} if isinstance(owner, type) else {}
    return last in fields


def test_the_name_finder_reads_each_quoting_and_tells_a_missing_name():
    text = ("`smallvis.embed`, ``smallvis.output_curve.MAX_CURVE_B``, "
            ":func:`smallvis.registry.check_learned`, `smallvis.registry.NO_SUCH_NAME`, "
            ":attr:`~smallvis.api.EmbedResult.learned`, `the API <smallvis.api.NO_SUCH>`_")
    names = quoted_names(text)
    assert names == ["smallvis.embed", "smallvis.output_curve.MAX_CURVE_B",
                     "smallvis.registry.check_learned", "smallvis.registry.NO_SUCH_NAME",
                     "smallvis.api.EmbedResult.learned", "smallvis.api.NO_SUCH"]
    assert [_resolves(n) for n in names] == [True, True, True, False, True, False]


def test_every_package_name_the_docs_and_docstrings_quote_exists():
    # a constant or function renamed or moved leaves the prose that cites it
    # pointing nowhere; Sphinx checks its own roles, not Markdown's quotes
    missing = sorted({(str(p.relative_to(ROOT)), name) for p in _prose_files()
                      for name in quoted_names(p.read_text(encoding="utf-8"))
                      if not _resolves(name)})
    assert not missing, "names that do not exist: " + "; ".join(f"{f}: {n}" for f, n in missing)
