"""Sphinx configuration of the smallvis documentation site.

Build it with ``sphinx-build -W --keep-going -b html docs docs/_build/html``
after ``pip install -e ".[docs]"``.  The choices, one reason each:

* Theme: furo, because it is light, readable on a phone and needs no
  configuration to show the page's own table of contents.
* Docstrings: numpydoc, because the package's docstrings are numpydoc and
  numpydoc renders their sections (Parameters, Returns, References) as
  written.
* Markdown and notebooks: myst-nb (which brings myst-parser), because the
  pages, theory.md and the tutorials are Markdown and Jupyter notebooks, and
  myst-nb executes the notebooks at build time, caching the results, so that
  the site shows the outputs of the code as it is.
* Maths: MathJax (Sphinx's default), with MyST's ``dollarmath`` and
  ``amsmath`` for ``$...$`` and ``\\begin{align}`` in Markdown, because it
  renders the docstrings' ``.. math::`` and the Markdown maths alike.  The
  site carries its own copy of MathJax 3 (from the ``mathjax`` package that
  ``django-static-mathjax`` installs, part of the docs extra), so that it works offline and fetches
  nothing from the network; without that package the pages load MathJax
  from its CDN, which ``docs/check_site.py`` reports.
* Copy buttons: sphinx-copybutton, so that examples paste without prompts.
* Source links: ``sphinx.ext.viewcode``, because it needs no repository URL
  and shows the NumPy code that the formulas describe beside them.
* Gallery: sphinx-gallery, because it runs each short script of the
  repository's ``examples/`` folder at build time and makes its page, a
  thumbnail and downloads (script and notebook) from the script alone.  The
  scripts live outside ``docs/`` so that a checkout shows them where users
  look for runnable code; the generated pages go to ``docs/gallery/``
  (ignored by git), which the site serves as ``gallery/index.html``.
* Links to numpy, scipy and scikit-learn: ``sphinx.ext.intersphinx`` is on
  only when ``SMALLVIS_DOCS_INTERSPHINX=1``, because it downloads the
  projects' inventories and a build without network would fail under
  ``-W``; the offline build leaves those names as plain text.

The method pages (one per entry of :data:`smallvis.METHODS`, with a figure)
and the executed tutorials are made by the local extension
``_ext/smallvis_docs.py``.
"""

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))
# the package of this checkout, built in place, before any installed copy
sys.path.insert(0, str(DOCS.parent))

import smallvis  # noqa: E402

project = "smallvis"
author = "the smallvis authors"
copyright = "the smallvis authors"
release = smallvis.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",
    "sphinx_copybutton",
    "sphinx_gallery.gen_gallery",
    "smallvis_docs",
]

templates_path = ["_templates"]

# the notebooks' kernels import the package of this checkout too
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(DOCS.parent)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])

exclude_patterns = [
    "_build",
    "**.ipynb_checkpoints",
    # the rendered copies of the notebooks, kept for reading on the
    # repository's web view; the site executes the notebooks instead
    "tutorials",
    # sphinx-gallery writes a notebook beside each generated page, for
    # download; myst-nb would otherwise read it as a second copy of the page
    "gallery/*.ipynb",
    # the local copy of MathJax, served as static files
    "_generated/_static",
    # sphinx-gallery's timing page, which loads scripts from CDNs (off below;
    # an old copy must not come back)
    "sg_execution_times.rst",
]

# -- HTML --------------------------------------------------------------------
html_theme = "furo"
html_title = f"smallvis {release}"
html_static_path = ["_static"]
# the gallery's thumbnails at a readable size
html_css_files = ["gallery.css"]


def _local_mathjax():
    """MathJax 3's files that the pages need, copied under ``_generated``, or None.

    The CHTML bundle, its fonts and the TeX extensions it loads on demand;
    not the speech and SVG builds, which no page asks for.
    """
    import shutil
    try:
        import mathjax  # django-static-mathjax
    except ImportError:
        return None
    source = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    if not (source / "tex-mml-chtml.js").is_file():
        return None
    static = DOCS / "_generated" / "_static"
    target = static / "mathjax"
    if not (target / "tex-mml-chtml.js").is_file():
        for part in ("tex-mml-chtml.js", "output/chtml", "input/tex/extensions",
                     "ui", "a11y", "adaptors"):
            if (source / part).is_dir():
                shutil.copytree(source / part, target / part, dirs_exist_ok=True)
            elif (source / part).is_file():
                target.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source / part, target / part)
    return static


_mathjax_static = _local_mathjax()
if _mathjax_static is not None:
    html_static_path.append(str(_mathjax_static))
    mathjax_path = "mathjax/tex-mml-chtml.js"
# browsers ask for an icon; without one every page logs a failed request
html_favicon = "favicon.svg"
html_last_updated_fmt = None

# -- autodoc, autosummary, numpydoc --------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"
# the classes' own Methods sections list what matters; the generated member
# tables of NamedTuple units and estimators would repeat every field
numpydoc_show_class_members = False
numpydoc_show_inherited_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# -- MyST and notebooks ----------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
# theory.md and the other pages link to their own headings by GitHub's slugs
myst_heading_anchors = 4
nb_execution_mode = "cache"
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True

# -- gallery -----------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(DOCS.parent / "examples"),
    "gallery_dirs": "gallery",
    # every script is executed, not only those named plot_*
    "filename_pattern": r".*\.py$",
    "within_subsection_order": "FileNameSortKey",
    # a script that fails must fail the build, as a notebook does
    "abort_on_example_error": True,
    "remove_config_comments": True,
    "show_memory": False,
    "download_all_examples": False,
    # thumbnails drawn large enough for the wider grid of _static/gallery.css
    "thumbnail_size": (600, 420),
    # the timing pages load jQuery and DataTables from CDNs: the site
    # fetches nothing from the network
    "write_computation_times": False,
}

# -- intersphinx (network) ---------------------------------------------------------
if os.environ.get("SMALLVIS_DOCS_INTERSPHINX") == "1":
    extensions.append("sphinx.ext.intersphinx")
    intersphinx_mapping = {
        "python": ("https://docs.python.org/3", None),
        "numpy": ("https://numpy.org/doc/stable", None),
        "scipy": ("https://docs.scipy.org/doc/scipy", None),
        "sklearn": ("https://scikit-learn.org/stable", None),
    }
