"""The tutorial notebooks: valid, their code compiles, each on the site, and run.

The documentation site's build executes every notebook and fails on a cell's
error (``docs/conf.py``, CI's third job), so the default run checks what
that build relies on, in well under a second: each notebook is valid
nbformat, its code cells compile, it is listed on the site's tutorials page,
and the site's configuration executes the notebooks and stops on an error.
With ``SMALLVIS_LONG_TESTS=1`` every notebook is also run here, cell by
cell (about two minutes).  The committed notebooks carry no outputs, cite
public sources, use public API, and have a current rendered copy in
docs/tutorials/.

The kernel ("python3") must import the smallvis under test: in CI smallvis is
installed into the environment whose ipykernel provides the kernelspec;
locally the kernel inherits ``PYTHONPATH``.
"""

import ast
import fnmatch
import importlib.util
import re
from pathlib import Path

import pytest

from conftest import LONG_TESTS

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parent.parent
TUTORIALS = ROOT / "tutorials"
NOTEBOOKS = sorted(TUTORIALS.glob("*.ipynb"))


def test_tutorials_exist():
    names = [p.name for p in NOTEBOOKS]
    assert len(names) >= 5, names
    readme = (TUTORIALS / "README.md").read_text()
    for name in names:
        assert name in readme, f"{name} is not listed in tutorials/README.md"


def test_tutorials_are_numbered_without_gaps():
    # 01_, 02_, ... in order: a reader (and the READMEs' numbered lists)
    # meets no missing number
    numbers = [int(p.name.split("_", 1)[0]) for p in NOTEBOOKS]
    assert numbers == list(range(1, len(NOTEBOOKS) + 1)), [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_notebook_s_title_carries_its_file_s_number(path):
    # the site lists the tutorials by their titles: "07 · ..." for 07_*.ipynb
    nb = nbformat.read(path, as_version=4)
    title = next(line for line in nb.cells[0].source.splitlines() if line.startswith("# "))
    number = path.name.split("_", 1)[0]
    assert title.startswith(f"# {number} · "), f"{path.name}: title {title!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_outputs_cleared(path):
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        assert cell.get("outputs", []) == [], f"{path.name}: cell {i} has outputs"
        assert cell.get("execution_count") is None, f"{path.name}: cell {i} has an execution count"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_notebook_is_valid_and_its_code_compiles(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3", f"{path.name}: kernel {nb.metadata.kernelspec}"
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        # IPython's line magics and shell escapes are no Python: compiled as comments
        source = re.sub(r"(?m)^(\s*)([%!])", r"\1# \2", cell.source)
        compile(source, f"{path.name}, cell {i}", "exec")
        # a tag that lets a cell fail or go unexecuted would let the site's build pass
        tags = set(cell.metadata.get("tags", ()))
        assert not tags & {"raises-exception", "skip-execution"}, f"{path.name}: cell {i} {tags}"


def test_every_notebook_is_on_the_sites_tutorials_page():
    page = (ROOT / "docs" / "tutorials.md").read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        assert f"_generated/tutorials/{path.stem}" in page, f"{path.name} is not on docs/tutorials.md"


def _site_settings():
    """The top-level assignments of docs/conf.py whose values are literals."""
    tree = ast.parse((ROOT / "docs" / "conf.py").read_text(encoding="utf-8"))
    settings = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            try:
                settings[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    return settings


def test_the_site_build_executes_the_notebooks_and_fails_on_an_error():
    """What lets the default run skip the notebooks: the site's build runs them.

    myst-nb executes a notebook without outputs in the modes "auto", "cache"
    and "force", and raises on a failing cell with
    ``nb_execution_raise_on_error``; CI builds the site with warnings as errors.
    """
    conf = _site_settings()
    assert "myst_nb" in conf["extensions"]
    assert conf.get("nb_execution_mode") in ("auto", "cache", "force"), conf.get(
        "nb_execution_mode")
    assert conf.get("nb_execution_raise_on_error") is True
    assert not conf.get("nb_execution_allow_errors", False)
    assert not conf.get("nb_execution_excludepatterns")
    # the extension copies the notebooks to docs/_generated/tutorials: no
    # excluded pattern covers a copy or a folder above it (fnmatch's "*"
    # spans "/", so it errs towards seeing an exclusion)
    for path in NOTEBOOKS:
        parts = ("_generated", "tutorials", path.name)
        for depth in range(1, len(parts) + 1):
            prefix = "/".join(parts[:depth])
            assert not any(fnmatch.fnmatch(prefix, pattern) for pattern in
                           conf["exclude_patterns"]), f"docs/conf.py excludes {prefix}"
    assert "sphinx-build -W" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


@pytest.mark.skipif(not LONG_TESTS, reason="the site's build runs every notebook; "
                                           "SMALLVIS_LONG_TESTS=1 runs them here too")
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path):
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, kernel_name="python3", timeout=120,
        resources={"metadata": {"path": str(TUTORIALS)}},
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    for cell in nb.cells:
        if cell.cell_type == "code":
            for out in cell.outputs:
                assert out.output_type != "error", f"{path.name}: {out}"


# -- rendered copies (docs/tutorials/, made by tools/render_tutorials.py) ------------

RENDERED = TUTORIALS.parent / "docs" / "tutorials"


def _render_module():
    spec = importlib.util.spec_from_file_location(
        "render_tutorials", TUTORIALS.parent / "tools" / "render_tutorials.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_rendered_copy_is_current(path):
    """Fails when a notebook changed after its rendered copy was made."""
    copy = RENDERED / f"{path.stem}.md"
    hint = "run: python tools/render_tutorials.py " + path.stem
    assert copy.exists(), f"no rendered copy of {path.name}; {hint}"
    text = copy.read_text(encoding="utf-8")
    recorded = re.search(r"notebook-sha256: ([0-9a-f]{64})", text.splitlines()[0])
    assert recorded, f"{copy.name} records no notebook hash; {hint}"
    current = _render_module().source_hash(nbformat.read(path, as_version=4))
    assert recorded.group(1) == current, f"{copy.name} is older than {path.name}; {hint}"
    for image in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
        assert (RENDERED / image).is_file(), f"{copy.name} shows a missing figure {image}"
    machine = re.search(r"(?m)^/\S*/smallvis/\S+", text)
    assert machine is None, f"{copy.name} shows a directory of the machine that rendered it: " \
                            f"{machine.group(0)}; {hint}"


def test_rendering_drops_the_machine_s_directories_from_warnings():
    render = _render_module()
    line = "/home/me/venv/lib/python3.13/site-packages/smallvis/api.py:345: RuntimeWarning: x"
    assert render._package_paths(line + "\n  code\n") == \
        "smallvis/api.py:345: RuntimeWarning: x\n  code\n"


def test_source_hash_sees_edits_not_outputs():
    nb = nbformat.read(NOTEBOOKS[0], as_version=4)
    render = _render_module()
    digest = render.source_hash(nb)
    code = next(c for c in nb.cells if c.cell_type == "code")
    code.outputs = [nbformat.v4.new_output("stream", text="x")]
    assert render.source_hash(nb) == digest
    code.source += "\n# an edit"
    assert render.source_hash(nb) != digest


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_use_public_api_and_public_sources(path):
    nb = nbformat.read(path, as_version=4)
    text = "\n".join(cell.source for cell in nb.cells)
    assert "/work/" not in text and "seed" not in text.lower()
    assert not re.search(r"smallvis\._\w+|importlib", text), "private API in a tutorial"
    assert re.search(r"\]\(https://", text), "cite the papers the maths comes from, with links"
