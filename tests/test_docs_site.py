"""The documentation site's generated pages, checked without building the site.

The extension ``docs/_ext/smallvis_docs.py`` writes one page per entry of
:data:`smallvis.METHODS`, copies the tutorials with site-relative links and
widens the docstring tables that docutils would refuse.  These tests call
its functions directly; they draw no figure and run no notebook.  The
gallery's scripts (``examples/``) are checked for the docstring
sphinx-gallery needs; with ``SMALLVIS_LONG_TESTS=1`` each is also run.
"""

import ast
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import smallvis
from conftest import LONG_TESTS

ROOT = Path(__file__).resolve().parents[1]
EXTENSION = ROOT / "docs" / "_ext" / "smallvis_docs.py"


@pytest.fixture(scope="module")
def ext():
    spec = importlib.util.spec_from_file_location("smallvis_docs", EXTENSION)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", list(smallvis.METHODS))
def test_every_method_has_a_page_with_its_parameters_and_unit(ext, name):
    method = smallvis.METHODS[name]
    page_text, units, source_module = ext.method_sources(method)
    assert page_text.strip(), f"{name}: no text for its page"
    assert units, f"{name}: no NumPy unit found in {source_module}"
    page = ext.method_page(method, f"{name}.png")
    assert page.splitlines()[2] == name            # the title, under its label
    assert method.summary in page
    for param in (*method.affinity_params, *method.cost_params):
        assert f"``{param}``" in page, f"{name}: parameter {param} not on its page"
    for unit in units:
        assert f".. autoclass:: {unit.__module__}.{unit.__qualname__}" in page
    assert f".. figure:: {name}.png" in page


def test_the_methods_index_links_every_page(ext):
    index = ext.methods_index([(n, m.summary) for n, m in smallvis.METHODS.items()])
    for name in smallvis.METHODS:
        assert f":doc:`{name}`" in index


def test_a_method_module_that_is_a_package_gives_its_unit_module(ext, tmp_path, monkeypatch):
    # a method folder smallvis/methods/<name>/ with the page text in
    # __init__.py and the unit in unit.py resolves as a module does
    package = tmp_path / "docpkg_methods" / "fake"
    package.mkdir(parents=True)
    (package.parent / "__init__.py").write_text("")
    (package / "__init__.py").write_text('"""The page text."""\n')
    (package / "unit.py").write_text(
        "from typing import NamedTuple\n\n"
        "class Unit(NamedTuple):\n    \"\"\"The unit.\"\"\"\n    a: float = 1.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    class Fake:
        name = "fake"
        pair_units = {}
    text, units, source = ext.method_sources(Fake, package="docpkg_methods")
    assert text == "The page text."
    assert [u.__name__ for u in units] == ["Unit"]
    assert source == "docpkg_methods.fake.unit"


def test_tutorial_links_into_docs_point_to_the_same_file_from_the_copy(ext):
    tutorials = ext.TUTORIALS
    target = ext.GENERATED / "tutorials"      # docs/_generated/tutorials
    text = "see [`docs/theory.md`](../docs/theory.md) and [x](../docs/theory.md#references)"
    assert ext.site_links(text, tutorials, target) == (
        "see [`docs/theory.md`](../../theory.md) and [x](../../theory.md#references)")
    # links elsewhere are left alone
    for kept in ("[a](https://arxiv.org/abs/1802.03426)", "[b](../README.md)",
                 "[c](02_sne_to_tsne.ipynb)"):
        assert ext.site_links(kept, tutorials, target) == kept


def test_a_simple_table_with_an_overflowing_cell_is_widened(ext):
    lines = [
        "=====  ===  ======",
        "name   n    source",
        "=====  ===  ======",
        "``a``  1    x y z",
        "``two_c`` 200  synthetic (MIT)",
        "=====  ===  ======",
    ]
    ext.widen_simple_tables(None, "module", "m", None, {}, lines)
    borders = [lines[0], lines[2], lines[5]]
    assert len(set(borders)) == 1
    starts = [i for i, c in enumerate(borders[0]) if c == "=" and (i == 0 or borders[0][i - 1] == " ")]
    for row in (lines[1], lines[3], lines[4]):
        # every cell begins at its column's start, with a space before it
        for start in starts[1:]:
            assert row[start - 1] == " " and row[start] != " "
    assert lines[4].split()[:2] == ["``two_c``", "200"]


def test_the_datasets_table_is_readable_after_widening(ext):
    lines = smallvis.datasets.__doc__.splitlines()
    ext.widen_simple_tables(None, "module", "smallvis.datasets", None, {}, lines)
    border = next(line for line in lines if line.startswith("="))
    first_width = len(border.split()[0])
    names = [line.split()[0] for line in lines if line.startswith('``"')]
    assert names and all(len(n) <= first_width for n in names)


def _check_site_module():
    spec = importlib.util.spec_from_file_location("check_site", ROOT / "docs" / "check_site.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_site_check_finds_broken_links_images_and_fragments(tmp_path):
    check = _check_site_module()
    (tmp_path / "sub").mkdir()
    (tmp_path / "img.png").write_bytes(b"")
    (tmp_path / "index.html").write_text(
        '<h1 id="top">t</h1><a href="sub/page.html#here">ok</a> <a href="#top">ok</a>'
        '<img src="img.png"> <a href="https://example.org/x">outside</a>'
        '<a href="sub/page.html#gone">bad fragment</a> <img src="missing.png">'
        '<a href="nowhere.html">missing page</a> <a href="../../etc/passwd">leaves</a>')
    (tmp_path / "sub" / "page.html").write_text('<p id="here">x</p><a href="../index.html#top">b</a>')
    problems, n_pages = check.check_links(tmp_path)
    assert n_pages == 2
    assert len(problems) == 4, problems
    assert any("no id 'gone'" in p for p in problems)
    assert any("missing.png" in p and "missing file" in p for p in problems)
    assert any("nowhere.html" in p and "missing file" in p for p in problems)
    assert any("leaves the site" in p for p in problems)


def _page(tmp_path, body, name="page.html"):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"<html><body>{body}</body></html>")
    return path


def test_the_site_check_reads_titles_alt_text_raw_markup_and_network(tmp_path):
    check = _check_site_module()
    good = check._parse_page(_page(tmp_path, (
        '<h1>T</h1><img src="a.png" alt="a map"><p>prose with <code>:func:`x`</code>, '
        '<span class="math">\\(\\frac{a}{b}\\)</span> and <pre>$$ \\sum $$</pre></p>'
        '<a href="https://example.org">an outside link is fine</a>'
        '<script src="_static/local.js"></script>')))
    assert check.page_problems(good, "good") == []
    cases = {
        '<img src="a.png">': "no alt text",
        '<img src="a.png" alt=" ">': "no alt text",
        "<p>no title</p>": "0 <h1>",
        "<h1>a</h1><h1>b</h1>": "2 <h1>",
        "<p>see :func:`smallvis.embed`</p>": "reStructuredText role",
        "<p>see {doc}`/theory`</p>": "MyST role",
        "<p>where \\frac{1}{2} is</p>": "TeX outside the maths",
        "<p>$$ x $$</p>": "TeX display delimiters",
        "<p>the rate $\\beta_i$ here</p>": "inline TeX",
        "<p>see ??</p>": "'??'",
        '<div class="system-message">x</div>': "error boxes",
        '<script src="https://cdn.example.org/mathjax.js"></script>': "fetched from the network",
        '<link rel="stylesheet" href="//fonts.example.org/a.css">': "fetched from the network",
    }
    for body, expected in cases.items():
        title = "" if "<h1>" in body or "no title" in body else "<h1>T</h1>"
        parser = check._parse_page(_page(tmp_path, title + body, "case.html"))
        problems = check.page_problems(parser, "case")
        assert any(expected in p for p in problems), (body, problems)


def test_the_site_check_wants_method_pages_whole_and_api_source_links(tmp_path):
    check = _check_site_module()
    method = check._parse_page(_page(tmp_path, (
        '<h1>m</h1><span class="math">x</span><img src="m.png" alt="m">'
        "<table><tr><th>parameter</th><th>default</th></tr></table>"
        '<a href="../../_modules/smallvis/methods/m/unit.html">unit.py</a>')))
    assert check.method_page_problems(method, "m") == []
    bare = check._parse_page(_page(tmp_path, "<h1>m</h1><p>text</p>", "bare.html"))
    assert len(check.method_page_problems(bare, "m")) == 4
    api = check._parse_page(_page(tmp_path, (
        '<h1>f</h1><dl class="py function"><dt class="sig sig-object py" id="f">f()'
        '<a href="../_modules/x.html#f"><span class="viewcode-link">[source]</span></a></dt>'
        '<dd><dl class="py method"><dt class="sig sig-object py" id="f.g">g()</dt>'
        "<dd>no source</dd></dl></dd></dl>"
        '<dl class="py data"><dt class="sig sig-object py" id="D">D</dt></dl>'), "api.html"))
    assert check.api_page_problems(api, "api") == ["api: no [source] link for f.g"]
    linked = ('<td><p><a class="reference internal" href="E.html#E.fit"><code class="xref py '
              'py-obj docutils literal notranslate"><span class="pre">fit</span></code></a>')
    bare = '<td><p><code class="xref py py-obj docutils literal notranslate"><span class="pre">fit'
    assert check.summary_link_problems(linked, "api") == []
    assert check.summary_link_problems(bare, "api") == ["api: the summary entry fit links nowhere"]


def test_the_site_check_follows_the_readme_to_the_site(tmp_path):
    check = _check_site_module()
    repo, site = tmp_path / "repo", tmp_path / "site"
    (repo / "docs" / "guide").mkdir(parents=True)
    (repo / "docs" / "guide" / "scale.md").write_text("# s")
    (repo / "LICENSE").write_text("")
    readme = repo / "README.md"
    readme.write_text("[a](docs/guide/scale.md) [b](docs/gone.md) [c](LICENSE) "
                      "[d](https://example.org) [e](#top) [f](docs/guide/scale.md#nowhere)")
    _page(site, '<h1>x</h1><a href="guide/scale.html">a</a>', "index.html")
    _page(site, '<h1 id="scale">s</h1>', "guide/scale.html")
    problems = check.check_readme_links(site, readme)
    assert len(problems) == 3, problems
    assert any("docs/gone.md does not exist" in p for p in problems)
    assert any("LICENSE is outside docs/" in p for p in problems)
    assert any("nowhere: no such anchor" in p for p in problems)


def test_the_readmes_relative_links_exist_in_the_repository():
    check = _check_site_module()
    links = check.readme_links(ROOT / "README.md")
    assert links
    missing = [path for path, _ in links if not (ROOT / path).exists()]
    assert not missing, f"README links to missing files: {missing}"


#: a built site to check, when there is one (the docs job builds it there)
BUILT_SITE = Path(os.environ.get("SMALLVIS_SITE", ROOT / "docs" / "_build" / "html"))


@pytest.mark.skipif(not (BUILT_SITE / "index.html").is_file(),
                    reason="no built site (SMALLVIS_SITE or docs/_build/html)")
def test_the_built_site_passes_every_html_check():
    check = _check_site_module()
    problems, n_pages = check.check_html(BUILT_SITE, ROOT / "README.md")
    assert n_pages > 50
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:30])


def test_a_gallery_thumbnail_gets_its_examples_title_as_alt_text(ext):
    script = sorted((ROOT / "examples").glob("*.py"))[0]
    stem = script.stem
    title = ast.get_docstring(ast.parse(script.read_text())).splitlines()[0]
    thumb = f"/gallery/images/thumb/sphx_glr_{stem}_thumb.png"
    assert ext.thumbnail_alt(thumb, "") == f"Thumbnail of the example {title}"
    assert ext.thumbnail_alt(thumb, "mine") == "mine"
    assert ext.thumbnail_alt("/images/plain.png", "") == ""


def test_a_notebook_figure_is_described_by_the_titles_its_cell_sets(ext):
    code = ('fig, ax = plt.subplots()\nax.set_title("the force curves")\n'
            "smallvis.plot(Y, labels, title=f\"{method}: {n} points\")\n"
            "fig.suptitle('two maps')")
    assert ext.figure_alt_from_code(code, "Tutorial 3") == (
        "Figure: the force curves; method: n points; two maps")
    assert ext.figure_alt_from_code('ax.set_title(f"{t:.2f} s")', "T") == "Figure: t s"
    assert ext.figure_alt_from_code("plt.plot(x, y)", "Tutorial 3") == (
        "A figure of Tutorial 3, drawn by the code above")


# -- the gallery (examples/, built by sphinx-gallery) ------------------------------

EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def test_the_gallery_has_scripts():
    assert EXAMPLES, "examples/ holds no script for the gallery"


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_a_gallery_script_opens_with_a_title_and_a_paragraph(script):
    # sphinx-gallery takes the page's title and the thumbnail's caption from
    # the docstring: an rst title, then the paragraph that says what it shows
    docstring = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8")))
    assert docstring, f"{script.name}: no docstring"
    title, underline, blank, *paragraph = docstring.splitlines()
    assert title.strip() and set(underline) == {"="} and len(underline) == len(title), \
        f"{script.name}: the docstring does not open with a title underlined by '='"
    assert not blank.strip() and " ".join(paragraph).strip(), \
        f"{script.name}: no paragraph after the title"


@pytest.mark.skipif(not LONG_TESTS, reason="runs every gallery script; SMALLVIS_LONG_TESTS=1")
@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_a_gallery_script_runs(script, tmp_path):
    # as the site build runs it, in a directory of its own with no display
    env = {**os.environ, "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]


# -- maths in the Markdown pages -----------------------------------------------------

#: Characters that are maths when they appear in prose: Greek letters, super-
#: and subscripts, the minus sign and the relations and operators.  "·" and "×"
#: are left out: the pages use them as separators and in sizes (70,000 × 50).
UNICODE_MATHS = re.compile(r"[α-ωΑ-Ω²³⁰-⁹₀-₉⁻ᵀ∑∂≤≥≈−∈√∞⌊⌋∘‖→∝∇′\u0303\u0304]")
#: What may hold such characters: code, $...$ maths, roles, link targets.
_NOT_PROSE = re.compile(r"`+[^`]*`+|\$\$?[^$]*\$\$?|\]\([^)]*\)|\{[a-z]+\}`[^`]*`")


def unicode_maths(text):
    """The lines of a Markdown text whose prose holds Unicode maths, as (number, line)."""
    found, fence = [], False
    for number, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if not fence and UNICODE_MATHS.search(_NOT_PROSE.sub("", line)):
            found.append((number, line))
    return found


def test_the_unicode_maths_finder_tells_prose_from_maths_and_code():
    assert unicode_maths("a bisection in β_i finds it") == [(1, "a bisection in β_i finds it")]
    assert unicode_maths("the cost is O(N²) per step")
    assert unicode_maths("where x ≤ 3")
    for fine in ("a bisection in $\\beta_i$ finds it", "`dof=(ν + 1)/2` in code",
                 "```\nβ = 1\n```", "70,000 × 50 points · next", "{math}`\\gamma` = 7"):
        assert unicode_maths(fine) == [], fine


MARKDOWN_PAGES = sorted(p for p in (ROOT / "docs").rglob("*.md")
                        if not {"_generated", "gallery", "_build"} & set(p.parts)
                        and p.parent != ROOT / "docs" / "tutorials")


@pytest.mark.parametrize("page", MARKDOWN_PAGES, ids=lambda p: str(p.relative_to(ROOT / "docs")))
def test_a_page_writes_its_maths_for_mathjax(page):
    # Unicode maths in prose (β_i, d², ≤) is not typeset: MathJax renders
    # $...$ and {math} roles, so that a formula reads the same everywhere
    found = unicode_maths(page.read_text(encoding="utf-8"))
    assert not found, "Unicode maths outside $...$:\n" + "\n".join(
        f"  line {n}: {line.strip()[:100]}" for n, line in found[:10])


def test_the_family_pages_hold_every_method_once(ext):
    # the sidebar reaches each method page through exactly one family page,
    # and the index's hidden table of contents holds every family page
    names = [(n, m.summary) for n, m in smallvis.METHODS.items()]
    pages = ext.family_pages(names)
    held = [line.strip()[len("../"):] for text in pages.values()
            for line in text.split(".. toctree::")[1].splitlines() if line.strip().startswith("../")]
    assert sorted(held) == sorted(smallvis.METHODS)
    by_family = {}
    for name, method in smallvis.METHODS.items():
        by_family.setdefault(method.p_family, set()).add(name)
    assert len(pages) == len(by_family)
    index = ext.methods_index(names)
    toc = index.split(".. toctree::")[1]
    for slug, text in pages.items():
        assert f"families/{slug}" in toc
        members = {line.strip()[3:] for line in text.split(".. toctree::")[1].splitlines()
                   if line.strip().startswith("../")}
        assert members in by_family.values(), f"{slug} mixes families: {members}"


def test_every_family_of_a_registered_method_has_a_title_and_a_description():
    # a family page and the sidebar show these; a family without them would
    # get its bare internal name as a heading and no text
    for family in {m.p_family for m in smallvis.METHODS.values()}:
        assert family.title and family.title != family.name, family.name
        assert len(family.description.split()) >= 12, family.name


def test_package_names_without_a_page_link_to_their_source_line(ext, tmp_path):
    """A docstring's reference to an internal name goes to the line that defines it,
    on the source page of its module (a compiled module's Cython file); names the
    package's sources do not define get no link."""
    page, fragment = ext.source_target("smallvis.engines.sgd._run_epochs")
    assert (page, fragment) == ("_source/smallvis/engines/sgd", "_run_epochs")
    assert ext.source_target("smallvis.engines.sgd") == ("_source/smallvis/engines/sgd", "")
    # a method, and a name imported from the module that defines it
    assert ext.source_target("smallvis.transform.TrainingMap.new_inputs")[1] == \
        "TrainingMap.new_inputs"
    # imported from the module that defines it: a function, a constant, and a
    # member of a class imported by another module
    assert ext.source_target("smallvis.cli.embed") == ("_source/smallvis/api", "embed")
    assert ext.source_target("smallvis.inputs.neighbors.ANNOY_DEFAULT_TREES") == (
        "_source/smallvis/inputs/annoy_forest", "ANNOY_DEFAULT_TREES")
    assert ext.source_target("smallvis.registry.Method.symmetric") == (
        "_source/smallvis/method_spec", "Method.symmetric")
    for name in ("numpy.unique", "smallvis.engines.sgd.no_such_name", "smallvis.cli.np.unique"):
        assert ext.source_target(name) is None
    assert ext.source_target("smallvis.backends._sgd_kernels.sgd_epochs") == (
        "_source/smallvis/backends/_sgd_kernels", "sgd_epochs")

    module = tmp_path / "m.py"
    module.write_text("import os\n\n#: The limit,\n#: in bytes.\nLIMIT = 3\n\n\n"
                      "@staticmethod\ndef f():\n    pass\n\n\n"
                      "class C:\n    x: int = 1\n\n    def g(self):\n        pass\n")
    assert ext.source_anchors(module) == {"LIMIT": 3, "f": 8, "C": 13, "C.x": 14, "C.g": 16}


def test_a_bare_name_is_looked_up_where_the_docstring_is_defined(ext):
    """smallvis.registry.Method is documented under smallvis.registry; its docstring's
    FROM_INPUT is smallvis.method_spec's."""
    from types import SimpleNamespace

    node = SimpleNamespace(get={"py:module": "smallvis.registry", "py:class": "Method"}.get,
                           source="method_spec.py:docstring of smallvis.method_spec.Method")
    scopes = ext._reference_scopes(node)
    assert scopes[:2] == ["smallvis.registry.Method", "smallvis.registry"]
    assert "smallvis.method_spec" in scopes
    assert any(ext.source_target(f"{scope}.FROM_INPUT") == (
        "_source/smallvis/method_spec", "FROM_INPUT") for scope in scopes)


def _docstring_nodes(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                yield first.value


def _segment(lines, node):
    """``ast.get_source_segment`` of ``node`` from the file's ``lines`` split once.

    That function splits the whole source at every call, which made this
    module's docstring check take seconds; column offsets are in UTF-8 bytes.
    """
    first, last = node.lineno - 1, node.end_lineno - 1
    if first == last:
        return lines[first].encode()[node.col_offset:node.end_col_offset].decode()
    return (lines[first].encode()[node.col_offset:].decode() + "".join(lines[first + 1:last])
            + lines[last].encode()[:node.end_col_offset].decode())


#: A backslash before a letter that no backslash escapes (``\\beta`` is fine).
_LETTER_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\[A-Za-z]")


def test_no_docstring_holds_a_control_character_or_an_escaped_letter():
    # "\text" or "\frac" in a docstring that is not raw becomes a tab or a
    # form feed, and the formula renders as "ext" or "rac" on the site;
    # "\nu" or "\nabla" becomes a new line, which no character check sees,
    # so the source of each docstring that is not raw is read too
    bad = []
    for path in sorted((ROOT / "smallvis").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        lines = re.split(r"(?<=\n)", source)
        for node in _docstring_nodes(ast.parse(source)):
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            if re.search(r"[\x00-\x09\x0b-\x1f]", node.value):
                bad.append(where)
            text = _segment(lines, node)
            prefix = re.match(r"[A-Za-z]*", text).group(0)
            if "r" not in prefix.lower() and _LETTER_ESCAPE.search(text):
                bad.append(f"{where} ({_LETTER_ESCAPE.search(text).group(0)})")
    assert not bad, "docstrings with escapes that are not raw: " + ", ".join(bad)


def test_the_escape_finder_tells_escaped_backslashes_apart():
    assert _LETTER_ESCAPE.search(r'"""the weight \beta"""')
    assert _LETTER_ESCAPE.search(r'"""a \\\nu here"""')
    assert not _LETTER_ESCAPE.search(r'"""the weight \\beta"""')
    assert not _LETTER_ESCAPE.search(r'"""no escape at all"""')


def test_a_unit_member_named_for_a_function_of_its_module_gets_that_function_s_code(ext):
    # jse's unit says ``cost = jse_cost``: the entry of ``cost`` has no
    # [source] link of its own, so the page documents jse_cost itself
    page = ext.method_page(smallvis.METHODS["jse"], "jse.png")
    for name in ("cost", "offset", "force"):
        assert f"``JSEUnit.{name}`` is :func:`smallvis.methods.jse.unit.jse_{name}`" in page
        assert f".. autofunction:: smallvis.methods.jse.unit.jse_{name}\n" in page
    assert ".. autofunction::" not in ext.method_page(smallvis.METHODS["tsne"], "tsne.png")


def test_a_method_page_shows_its_unit_s_own_maths(ext):
    """The unit module's derivations (jse's f(p, q), InfoNCE's quadrature) are on the
    page, above the classes; a numpydoc section title in them becomes a rubric."""
    import inspect

    for name in smallvis.METHODS:
        unit = importlib.import_module(f"smallvis.methods.{name}.unit")
        page = ext.method_page(smallvis.METHODS[name], "x.png")
        first = inspect.getdoc(unit).splitlines()[0]
        assert first in page, name
        assert page.index(first) < page.index(".. autoclass::"), name
    jse = ext.method_page(smallvis.METHODS["jse"], "x.png")
    assert r"\frac{p}{1 - \kappa} \log \frac{p}{z}" in jse
    unit = ext.unit_text("smallvis.methods.umap.unit", "smallvis.methods.umap")
    assert ".. rubric:: References\n\nL. McInnes" in unit and "\n---" not in unit


@pytest.mark.parametrize("name", list(smallvis.METHODS))
def test_a_method_page_s_figure_call_is_the_one_its_optimizer_reads(ext, name):
    # the stochastic optimizer ignores n_iter: a page whose figure runs it
    # shows the call without n_iter and names the epochs instead
    from smallvis.engines.sgd import choose_optimizer

    method = smallvis.METHODS[name]
    caption = next(line for line in ext.method_page(method, "x.png").splitlines()
                   if "A small map" in line)
    stochastic = choose_optimizer(method, "auto", ext.FIGURE_POINTS) == "sgd"
    assert ("n_iter=" in caption) is not stochastic
    assert ("epochs" in caption) is stochastic


def test_a_notebook_figure_s_alt_text_keeps_the_braces_of_a_plain_string(ext):
    # TeX's p_{ij} in a plain string is text, not an f-string's field;
    # a raw string's backslashes stay, a plain one's escapes are read
    code = ('ax.set_title("attraction $4F^{att}d$ (per unit $p_{ij}$)")\n'
            'ax.set_title(r"$\\gamma$ scales it")\n'
            'ax.set_title("dashed: $\\\\gamma$=1")\n'
            'ax.set_title(f"{{x}} at {n:d}")')
    assert ext.figure_alt_from_code(code, "T") == (
        "Figure: attraction $4F^{att}d$ (per unit $p_{ij}$); $\\gamma$ scales it; "
        "dashed: $\\gamma$=1; {x} at n")
