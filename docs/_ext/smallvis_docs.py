"""Pages that the smallvis site makes from the package at build time.

* One page per method, for every entry of :data:`smallvis.METHODS`: its
  summary, its parameters with their defaults, the text and maths of its
  NumPy unit, links to the unit's source and a small map drawn with it.  A
  method added to the registry gets its page without an edit here.
* The API reference's page of estimator classes, one per method.
* The command line's ``--help`` texts, for the command-line page.
* The tutorials of ``tutorials/``, copied beside the pages so that myst-nb
  executes them, with their repository-relative links made site-relative.
* Pages of highlighted source of the package's modules, to which a
  docstring's reference to an internal name (one the API reference does
  not document) links, at the line that defines it: one for each module
  linked to.

The source pages are written into the built site; everything else under
``docs/_generated/`` (not under version control), where a file is
rewritten only when its text changes, so that an unchanged page is not
read again.
"""

import ast
import functools
import hashlib
import importlib
import inspect
import json
import re
import warnings
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
REPO = DOCS.parent
GENERATED = DOCS / "_generated"
TUTORIALS = REPO / "tutorials"

#: The method figures are small maps, so that the site builds in minutes
#: whatever the number of methods: this many points of digits ...
FIGURE_POINTS = 300
#: ... and at most this many iterations of the exact optimizer (the default
#: is 1000).  The slowest exact methods (the generic normalised engine) take
#: about 1.7 s of CPU for such a map, the pair methods 0.05-0.4 s.
FIGURE_ITERATIONS = 500
#: The method folders, whose C units the pages show.
METHODS_SOURCE = DOCS.parent / "smallvis" / "methods"
#: Changing the recipe of the figures (below) redraws them: bump this.
FIGURE_RECIPE = 3
#: Most frames of a method's animation (the recorder keeps half to all of them).
FIGURE_FRAMES = 30


# -- where a method's text and unit live -------------------------------------------------

def method_sources(method, package="smallvis.methods"):
    """Where the documentation of one registry entry lives.

    The one place that knows the layout of ``smallvis/methods``: the page
    text is the docstring of the module (or package) named after the method
    (``smallvis.methods.<name>``), or else of the module of its pair units;
    its units are the ``NamedTuple`` classes defined in that module, or in
    the package's ``unit`` module when the method is a package.

    Parameters
    ----------
    method : smallvis.registry.Method
        An entry of :data:`smallvis.METHODS`.
    package : str
        The package of the method modules.

    Returns
    -------
    page_text : str
        reStructuredText: the method's maths and references.
    unit_classes : list of type
        The NumPy units, documented with autodoc under the text.
    source_module : str
        The dotted name of the module that holds the units (its source is
        what ``viewcode`` shows).
    """
    try:
        module = importlib.import_module(f"{package}.{method.name}")
    except ModuleNotFoundError:
        units = list(method.pair_units.values())
        if not units:
            raise LookupError(
                f"method {method.name!r}: no module {package}.{method.name} "
                "and no pair units to find its documentation from") from None
        module = importlib.import_module(units[0].__module__)
    unit_module = module
    if hasattr(module, "__path__"):
        unit_module = importlib.import_module(f"{module.__name__}.unit")
    page_text = inspect.getdoc(module) or ""
    unit_classes = [value for value in vars(unit_module).values()
                    if isinstance(value, type) and issubclass(value, tuple)
                    and value.__module__ == unit_module.__name__]
    return page_text, unit_classes, unit_module.__name__


# -- writing files -----------------------------------------------------------------------

def _write(path, text):
    """Write ``text`` to ``path`` unless it already holds exactly that."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _title(text, char):
    return f"{text}\n{char * len(text)}\n"


def _default(value):
    """A default as the page shows it: ``repr``, with ``None`` meaning "derived"."""
    return f"``{value!r}``"


def _parameter_table(title, params):
    if not params:
        return f"{title}: none.\n"
    rows = "\n".join(f"   * - ``{name}``\n     - {_default(value)}"
                     for name, value in params.items())
    return (f".. list-table:: {title}\n   :header-rows: 1\n   :widths: 30 70\n\n"
            f"   * - parameter\n     - default\n{rows}\n")


#: A numpydoc section title in a unit's docstring ("References" over dashes).
_SECTION = re.compile(r"^(\S[^\n]*)\n-{3,}$", re.M)


def unit_text(source_module, page_module):
    """The docstring of a method folder's ``unit`` module, for its page.

    The unit's own derivations (the engine's hooks, a stochastic form's
    coefficients, a quadrature) are the readable form of the page's maths,
    so the page shows them above the classes; a section title becomes a
    rubric under the page's own.  Empty when the units live in the page's
    module itself.
    """
    if source_module == page_module:
        return ""
    text = inspect.getdoc(importlib.import_module(source_module)) or ""
    # its short references (:func:`quadrature_nodes`) are to its own module
    return (f".. currentmodule:: {source_module}\n\n"
            + _SECTION.sub(r".. rubric:: \1\n", text))


def method_page(method, figure_name, documented=None):
    """The reStructuredText of one method's page.

    ``documented`` collects the shared functions its units take from other
    modules, for the page of shared pieces (:func:`_shared_members`).
    """
    page_text, unit_classes, source_module = method_sources(method)
    source_path = source_module.replace(".", "/") + ".py"
    # the page that sphinx.ext.viewcode writes for the module, from this page
    source_url = "../../_modules/" + source_module.replace(".", "/") + ".html"
    optimizers = "exact (full-batch gradient descent, ``optimizer=\"exact\"``)"
    if method.sgd is not None:
        optimizers += (" and stochastic (``optimizer=\"sgd\"``); "
                       f"``optimizer=\"auto\"`` (the default) {_auto_optimizer(method.sgd)}")
    stochastic = _figure_is_stochastic(method)
    figure_call = (f"smallvis.embed(X, method=\"{method.name}\", random_state=0)" if stochastic
                   else f"smallvis.embed(X, method=\"{method.name}\", n_iter={FIGURE_ITERATIONS}, "
                   "random_state=0)")
    figure_cut = ("The points and iterations are cut so that every method's page is drawn in "
                  "seconds when the site is built; the full data and the default 1000 "
                  "iterations give a tighter map." if not stochastic else
                  f"At {FIGURE_POINTS} points ``optimizer=\"auto\"`` runs the stochastic "
                  f"optimizer, its default {method.sgd.n_epochs(FIGURE_POINTS)} epochs; the "
                  "points are cut so that every method's page is drawn in seconds when the "
                  "site is built.")
    lines = [
        f".. _method-{method.name}:\n",
        _title(f"{method.name}", "="),
        f"{method.summary}.\n",
        f".. figure:: {figure_name}\n   :alt: {method.name} map of 300 handwritten digits, "
        "coloured by digit\n   :width: 420px\n\n"
        f"   A small map: {FIGURE_POINTS} images of :func:`digits <smallvis.datasets.load>` "
        f"embedded by ``{figure_call}``, every other setting at its default; "
        f"colours are the digit labels.  {figure_cut}\n",
        f".. figure:: {Path(figure_name).with_suffix('.gif').name}\n"
        f"   :alt: {method.name} learning the map above, up to its last "
        f"{'epoch' if stochastic else 'iteration'}\n   :width: 390px\n\n"
        f"   The same run as it learns: up to {FIGURE_FRAMES} layouts spread evenly over it, "
        "the last one the map above, each turned onto the last and fitted to the frame "
        "(:class:`smallvis.Recorder` and :func:`smallvis.animate`).\n",
        _title("Use", "-"),
        f".. code-block:: python\n\n"
        f"   import smallvis\n   X, labels = smallvis.datasets.load(\"digits\")\n"
        f"   Y = smallvis.embed(X, method=\"{method.name}\", random_state=0)\n",
        f"Optimizers: {optimizers}.  {_gradients_sentence(method)}  "
        f"Input affinities: :doc:`{_family_title(method.p_family)} "
        f"<families/{_family_slug(method.p_family)}>`.\n",
        _title("Parameters", "-"),
        "Passed to :func:`smallvis.embed`, :func:`smallvis.affinities`, "
        ":func:`smallvis.cost_and_gradient` and the estimators as keywords; "
        "see :doc:`/guide/methods` for what they do.\n",
        _parameter_table("Input affinities", method.affinity_params),
        _parameter_table("Cost", method.cost_params),
        _parameter_table("Optimizer defaults (exact optimizer)", method.optimizer_defaults),
        *_stochastic_defaults(method),
        _title("Maths", "-"),
        page_text + "\n",
        *_alias_sections(method),
        "The papers are listed in full under References above; the derivations that "
        "several methods share are on the theory page, with its own "
        ":ref:`References <theory-references>`.\n",
        _title("The NumPy unit", "-"),
        f"The readable form of the maths above: `{source_path} <{source_url}>`_ "
        "(the ``[source]`` links below go to each function).\n",
        unit_text(source_module, f"smallvis.methods.{method.name}") + "\n",
    ]
    # indexed: this page is the units' only home, and the ``[source]`` pages
    # link back to each unit's anchor here
    for cls in unit_classes:
        # a unit built on another's (sjse on jse) shows the members it
        # inherits too; a NamedTuple's own (count, index) stay out
        lines.append(f".. autoclass:: {cls.__module__}.{cls.__qualname__}\n"
                     "   :members:\n   :inherited-members: tuple\n")
    lines += _shared_members(unit_classes, set() if documented is None else documented)
    header = METHODS_SOURCE / method.name / "unit.h"
    if header.is_file():
        # the compiled twin of the unit above, from the same folder
        lines += [_title("The C unit", "-"),
                  f"The same hooks in C, ``smallvis/methods/{method.name}/unit.h``, which the "
                  "Cython kernels compile in; the tests hold the two to rounding.\n",
                  f".. literalinclude:: /../smallvis/methods/{method.name}/unit.h\n"
                  "   :language: c\n"]
    return "\n".join(lines)


def _shared_members(unit_classes, documented):
    """Which members of the units are functions of another module, linked to their entries.

    A unit's ``cost = kl_cost`` has no source of its own: the autoclass
    entry above shows it, but the code is in the module that defines it
    (``smallvis/methods/_common.py``, or another method's unit).  Each such
    function is documented once, with a ``[source]`` link to its code: on
    the page of the method whose unit module defines it under another name
    (:func:`_module_function_members`), else on the page of shared pieces
    (:func:`shared_page`); ``documented`` collects them all.
    """
    shared = {}
    for cls in unit_classes:
        for name, value in vars(cls).items():
            module = getattr(value, "__module__", None) or ""
            if (callable(value) and not name.startswith("_") and module != cls.__module__
                    and module.startswith("smallvis.")):
                shared.setdefault(f"{module}.{value.__qualname__}", []).append(
                    f"``{cls.__qualname__}.{name}``")
    inherited = _inherited_members(unit_classes)
    local = _module_function_members(unit_classes)
    lines = []
    if local:
        # the autoclass entry shows ``cost`` but has no code of its own to
        # link: the function it names is documented here, with its code
        lines += ["Members written as functions of the unit's module, each with its code "
                  "below:\n"]
        lines += [f"* ``{member}`` is :func:`{target}`" for member, target in local]
        lines += [""]
        lines += [f".. autofunction:: {target}\n"
                  for target in dict.fromkeys(target for _, target in local)]
    if shared:
        documented.update(shared)
        lines += ["Members that other units share, each linked to its entry and code (on "
                  ":doc:`the page of shared pieces </_generated/shared_pieces>`, or on the "
                  "page of the method whose unit defines it):\n"]
        lines += [f"* {', '.join(users)} is :func:`{target}`"
                  for target, users in shared.items()]
        lines += [""]
    if inherited:
        lines += ["Members inherited from another method's unit, documented (with their "
                  "code) on that method's page:\n"]
        lines += [f"* ``{cls}`` takes {', '.join(f'``{n}``' for n in names)} from "
                  f":class:`{base}`" for (cls, base), names in inherited.items()]
        lines += [""]
    return ["\n".join(lines)] if lines else []


def _module_function_members(unit_classes):
    """``[(member, function)]``: a unit's members that name a function of its own module.

    jse's unit says ``cost = jse_cost``: the autoclass entry shows ``cost``,
    but its ``[source]`` link exists only for ``jse_cost``'s own entry.
    """
    local = []
    for cls in unit_classes:
        for name, value in vars(cls).items():
            if (callable(value) and not name.startswith("_") and not isinstance(value, type)
                    and getattr(value, "__module__", None) == cls.__module__
                    and getattr(value, "__name__", name) != name):
                local.append((f"{cls.__qualname__}.{name}", f"{cls.__module__}.{value.__name__}"))
    return local


def _inherited_members(unit_classes):
    """``{(unit, base): names}``: the members a unit inherits from a unit of another method.

    sjse's unit is jse's with another normalisation: its ``cost`` is
    ``JSEUnit.cost``, whose entry and ``[source]`` link are on jse's page.
    """
    inherited = {}
    for cls in unit_classes:
        for base in cls.__mro__[1:]:
            module = getattr(base, "__module__", "") or ""
            if not module.startswith("smallvis.methods.") or module == cls.__module__:
                continue
            names = [name for name in vars(base) if not name.startswith("_")
                     and name not in vars(cls) and not isinstance(vars(base)[name], property)
                     and not _is_namedtuple_field(base, name)]
            if names:
                inherited[(cls.__qualname__, f"{module}.{base.__qualname__}")] = names
    return inherited


def _is_namedtuple_field(cls, name):
    return name in getattr(cls, "_fields", ())


def shared_page(targets):
    """The page of the functions that several units share (one indexed entry each)."""
    # reached from the method pages' links, not from a table of contents
    lines = [":orphan:\n", _title("Shared pieces of the units", "="),
             "Functions that several methods' NumPy units take as members (a unit's "
             "``cost = kl_cost``), documented here once; the ``[source]`` links go to "
             "their code.\n"]
    lines += [f".. autofunction:: {target}\n" for target in sorted(targets)]
    return "\n".join(lines)


def _figure_is_stochastic(method):
    """Whether ``optimizer="auto"`` runs the stochastic optimizer for the page's figure."""
    from smallvis.engines.sgd import choose_optimizer

    return choose_optimizer(method, "auto", FIGURE_POINTS) == "sgd"


def _auto_optimizer(spec):
    """Where ``optimizer="auto"`` takes a method's stochastic form ``spec``, as a clause."""
    if not spec.auto_min_n:
        return "chooses the stochastic one at every size"
    line = (f", and for a map of ``n_components=1`` above {spec.auto_min_n_line:,}"
            if spec.auto_min_n_line is not None else "")
    return f"chooses the stochastic one above {spec.auto_min_n:,} points{line}"


def _gradients_sentence(method):
    """What ``gradient=`` offers the exact optimizer, and what ``"auto"`` takes."""
    if not method.approximations:
        return ("The exact optimizer's gradient (``gradient=``): ``\"exact\"`` only, the sums "
                "over every pair with no approximation.")
    text = ("The exact optimizer's gradient (``gradient=``): ``\"exact\"``, the sums over "
            "every pair with no approximation")
    for name, approx in method.approximations.items():
        dims = " and ".join(f"{d}-D" for d in approx.dimensions)
        text += (f"; or ``\"{name}\"``, for {dims} maps: {approx.summary.rstrip('.')}, "
                 f"which ``gradient=\"auto\"`` (the default) takes above "
                 f"{approx.auto_min_n:,} points")
    return text + "."


#: Sizes at which a method page gives the stochastic optimizer's default epochs.
EPOCH_SIZES = (10_000, 100_000, 1_000_000)


def _stochastic_defaults(method):
    """The table of what ``optimizer="sgd"`` runs with, where it differs from the exact one."""
    spec = method.sgd
    if spec is None:
        return []
    epochs = ", ".join(f"{spec.n_epochs(n)} at {n:,} points" for n in EPOCH_SIZES)
    decay = {"linear": "linearly", "quadratic": "as 1 - (e/E)^2"}[spec.decay]
    floor = (f", never below {spec.min_learning_rate:g} times the first"
             if spec.min_learning_rate > 0 else "")
    rows = {
        "init": _default(spec.init),
        "learning_rate": f"``{spec.learning_rate!r}`` at the first epoch, falling {decay} "
                         f"over the epochs{floor}",
        "n_epochs": epochs,
        **{name: _default(value) for name, value in spec.param_defaults.items()},
    }
    body = "\n".join(f"   * - ``{name}``\n     - {value}" for name, value in rows.items())
    negatives = (f"{spec.n_negative:g} negatives per positive sample"
                 + (" on average, fewer early and more late (NCVis's cubic schedule)"
                    if spec.noise_schedule == "cubic" else
                    " on average (umap-learn's bookkeeping)"
                    if spec.scheme == "epochs_per_sample" else ""))
    clip = (f"clips each component of a step to ±{spec.clip:g}" if spec.clip_after_step
            else f"clips each component of a sample's gradient to ±{spec.clip:g} before "
                 "the step")
    return [f"With ``optimizer=\"sgd\"`` (``optimizer=\"auto\"`` {_auto_optimizer(spec)}) these "
            f"defaults replace those above; the optimizer draws {negatives}, and {clip}.\n",
            f".. list-table:: Stochastic optimizer defaults\n   :header-rows: 1\n"
            f"   :widths: 30 70\n\n   * - parameter\n     - default\n{body}\n"]


def _alias_sections(method):
    """A section per alias of ``method`` (its own name, parameters and maths), for its page."""
    lines = []
    for alias in method.aliases:
        params = ", ".join(f"{k}={v!r}" for k, v in alias.params.items())
        lines += [
            f".. _method-{alias.name}:\n",
            _title(f"Alias: {alias.name}", "-"),
            f"{alias.summary}.  ``smallvis.embed(X, method=\"{alias.name}\"" +
            (f", {params})``" if params else ")``") +
            f" (and ``smallvis embed --method {alias.name}``) runs {method.name}" +
            (" with its parameters mapped as below.\n" if params else ".\n"),
            inspect.cleandoc(alias.page) + "\n",
        ]
    return lines


def _family_slug(family):
    """The file name of a family's page: its name, lower case, words joined by "-"."""
    return re.sub(r"[^a-z0-9]+", "-", family.name.lower()).strip("-")


def methods_by_family(names_and_summaries, aliases=()):
    """The methods grouped by their family of input affinities, in the registry's order.

    Returns a list of ``(family, rows)``, where ``rows`` are the table rows
    of the family's methods and then of the aliases whose target is one of
    them: ``(name, summary, target)``, ``target`` None for a method.
    """
    import smallvis

    groups = {}
    for name, summary in names_and_summaries:
        groups.setdefault(smallvis.METHODS[name].p_family, []).append((name, summary, None))
    for alias, target, summary in aliases:
        groups[smallvis.METHODS[target].p_family].append((alias, summary, target))
    return list(groups.items())


def _methods_table(rows, prefix=""):
    """A list-table of methods and aliases; links relative to the methods' folder via ``prefix``."""
    def link(name):
        return f":doc:`{name} <{prefix}{name}>`" if prefix else f":doc:`{name}`"

    lines = []
    for name, summary, target in rows:
        if target is None:
            lines.append(f"   * - {link(name)}\n     - {summary}")
        else:
            lines.append(f"   * - :ref:`{name} <method-{name}>`\n     - {summary} "
                         f"(an alias of {link(target)})")
    return (".. list-table::\n   :header-rows: 1\n   :widths: 20 80\n\n"
            "   * - method\n     - what it is\n" + "\n".join(lines) + "\n")


def _family_title(family):
    return family.title or family.name


def methods_index(names_and_summaries, aliases=()):
    """The methods' index, a section per family; ``aliases`` are ``(alias, target, summary)``.

    The sidebar reaches the methods through their families' pages
    (:func:`family_pages`), so that it lists a handful of families, not
    every method.
    """
    groups = methods_by_family(names_and_summaries, aliases)
    sections = []
    for family, rows in groups:
        slug = _family_slug(family)
        sections += [_title(_family_title(family), "-"),
                     (family.description + "  " if family.description else "") +
                     f":doc:`More on this family <families/{slug}>`.\n",
                     _methods_table(rows)]
    toctree = "\n".join(f"   families/{_family_slug(family)}" for family, _ in groups)
    return "\n".join([
        _title("Methods", "="),
        "One page per entry of :data:`smallvis.METHODS`, made from the registry "
        "and the NumPy units when the site is built, grouped by the family of input "
        "affinities :math:`P` each method compares its map with.  "
        ":doc:`/guide/methods` says how to choose.\n",
        *sections,
        f".. toctree::\n   :hidden:\n\n{toctree}\n",
    ])


def family_pages(names_and_summaries, aliases=()):
    """A page per family of input affinities: ``{file stem: reStructuredText}``.

    Each lists its methods, whose pages it holds in its (hidden) table of
    contents, so that the sidebar groups the methods by family.
    """
    pages = {}
    for family, rows in methods_by_family(names_and_summaries, aliases):
        methods = [name for name, _, target in rows if target is None]
        pages[_family_slug(family)] = "\n".join([
            _title(_family_title(family), "="),
            (family.description + "\n") if family.description else "",
            f"Its methods, {len(methods)} in all (the :doc:`index <../index>` lists every "
            "family):\n",
            _methods_table(rows, prefix="../"),
            ".. toctree::\n   :hidden:\n\n" +
            "\n".join(f"   ../{name}" for name in methods) + "\n",
        ])
    return pages


# -- figures ---------------------------------------------------------------------------

def _figure_key(method):
    """What a method's figure depends on: the package version, its sources, the recipe."""
    _, unit_classes, source_module = method_sources(method)
    digest = hashlib.sha256()
    import smallvis
    digest.update(f"{smallvis.__version__} {FIGURE_RECIPE} {FIGURE_POINTS} "
                  f"{FIGURE_ITERATIONS} {FIGURE_FRAMES}".encode())
    digest.update(repr(sorted(method.affinity_params.items())).encode())
    digest.update(repr(sorted(method.cost_params.items())).encode())
    source = inspect.getsourcefile(importlib.import_module(source_module))
    digest.update(Path(source).read_bytes())
    # the code that draws them
    for drawing in ("plotting", "animation"):
        digest.update(Path(inspect.getsourcefile(
            importlib.import_module(f"smallvis.{drawing}"))).read_bytes())
    return digest.hexdigest()


def draw_figure(method, path):
    """Draw one method's map of digits into ``path`` (PNG) and its run into a GIF beside it.

    Nothing is drawn when current ones are there.
    """
    key_path = path.with_suffix(".key")
    gif_path = path.with_suffix(".gif")
    key = _figure_key(method)
    if (path.exists() and gif_path.exists() and key_path.exists()
            and key_path.read_text() == key):
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    import smallvis

    X, labels = smallvis.datasets.load("digits")
    rows = np.random.default_rng(0).choice(len(X), FIGURE_POINTS, replace=False)
    with warnings.catch_warnings():
        # a figure of small data: its notes about small data are not the page's
        warnings.simplefilter("ignore")
        # the call the page's caption shows: n_iter where the exact optimizer runs
        stochastic = _figure_is_stochastic(method)
        cut = {} if stochastic else {"n_iter": FIGURE_ITERATIONS}
        recorder = smallvis.Recorder(n_frames=FIGURE_FRAMES)
        Y = smallvis.embed(X[rows], method=method.name, random_state=0, callback=recorder,
                           **cut)
    fig, ax = plt.subplots(figsize=(5.2, 4.2), dpi=100)
    smallvis.plot(Y, labels[rows], ax=ax, title=method.name, s=10, legend=True)
    ax.set_xticks([])
    ax.set_yticks([])
    # the legend beside the map, where it hides no point
    ax.legend(handles=ax.get_legend().legend_handles, loc="center left",
              bbox_to_anchor=(1.0, 0.5), frameon=False, fontsize="small", title="digit")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    smallvis.animate(recorder, labels[rows], gif_path, fps=6, size=4.0, dpi=75,
                     title=f"{method.name}, {'epoch' if stochastic else 'iteration'} {{step}}")
    key_path.write_text(key)


# -- tutorials -------------------------------------------------------------------------

_RELATIVE_LINK = re.compile(r"\]\((\.\./[^)#\s]+)(#[^)\s]*)?\)")


def site_links(text, source_dir, target_dir):
    """Repository-relative Markdown links of a file moved from ``source_dir`` to ``target_dir``.

    A link ``](../docs/theory.md)`` written for the repository's tree points
    to the same file from ``target_dir``; links into files outside ``docs/``
    are left as they are.
    """
    def replace(match):
        target = (source_dir / match.group(1)).resolve()
        if DOCS not in target.parents:
            return match.group(0)
        relative = Path(*([".."] * len(target_dir.relative_to(DOCS).parts)),
                        target.relative_to(DOCS))
        return f"]({relative.as_posix()}{match.group(2) or ''})"
    return _RELATIVE_LINK.sub(replace, text)


def copy_tutorials():
    """Copy ``tutorials/*.ipynb`` into ``_generated/tutorials`` with site-relative links."""
    target_dir = GENERATED / "tutorials"
    names = []
    for notebook in sorted(TUTORIALS.glob("*.ipynb")):
        nb = json.loads(notebook.read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            if cell["cell_type"] == "markdown":
                source = "".join(cell["source"])
                cell["source"] = site_links(source, TUTORIALS, target_dir)
        _write(target_dir / notebook.name, json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
        names.append(notebook.stem)
    stale = {p.stem for p in target_dir.glob("*.ipynb")} - set(names)
    for name in stale:
        (target_dir / f"{name}.ipynb").unlink()
    return names


# -- the command line's help ---------------------------------------------------------------

def write_cli_help():
    """``smallvis [COMMAND] --help`` as the command prints it, one text file per command."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, COLUMNS="88")
    for command in ("", "embed", "transform"):
        args = [sys.executable, "-m", "smallvis.cli", *command.split(), "--help"]
        text = subprocess.run(args, capture_output=True, text=True, check=True, env=env,
                              cwd=REPO).stdout
        _write(GENERATED / "cli" / f"{command or 'smallvis'}.txt", text)


# -- the API's estimator table -------------------------------------------------------------

def estimator_names():
    """The public estimator classes, one per method (``smallvis.TSNE``, ...)."""
    from smallvis.estimator import METHOD_CLASSES
    return [cls.__name__ for cls in METHOD_CLASSES.values()]


def estimators_page():
    """The API page of the estimator classes (``api/estimators.rst``)."""
    entries = "\n".join(f"   {name}" for name in estimator_names())
    return "\n".join([
        _title("Estimators, one per method", "="),
        "scikit-learn style classes with the method fixed; each is "
        ":class:`smallvis.Embedding` with ``method=`` set, so the parameters, "
        "``fit``, ``transform`` and ``save`` are those of :class:`~smallvis.Embedding`.\n",
        ".. currentmodule:: smallvis\n",
        ".. autosummary::\n   :toctree: generated/\n\n" + entries + "\n",
    ])


# -- Sphinx ------------------------------------------------------------------------------

def generate(app, config=None):
    """Write the generated pages before Sphinx looks for its sources."""
    import smallvis

    methods_dir = GENERATED / "methods"
    index, documented, on_own_page = [], set(), set()
    for name, method in smallvis.METHODS.items():
        figure = f"{name}.png"
        draw_figure(method, methods_dir / figure)
        _write(methods_dir / f"{name}.rst", method_page(method, figure, documented))
        index.append((name, method.summary))
        on_own_page.update(target for _, target in
                           _module_function_members(method_sources(method)[1]))
    # a function that its own method's page documents is not documented twice
    _write(GENERATED / "shared_pieces.rst", shared_page(documented - on_own_page))
    aliases = [(a.name, m.name, a.summary) for m in smallvis.METHODS.values()
               for a in m.aliases]
    _write(methods_dir / "index.rst", methods_index(index, aliases))
    families = family_pages(index, aliases)
    for slug, text in families.items():
        _write(methods_dir / "families" / f"{slug}.rst", text)
    for stale in set(p.stem for p in methods_dir.glob("*.rst")) - {n for n, _ in index} - {"index"}:
        for suffix in (".rst", ".png", ".gif", ".key"):
            (methods_dir / f"{stale}{suffix}").unlink(missing_ok=True)
    for stale in set(p.stem for p in (methods_dir / "families").glob("*.rst")) - set(families):
        (methods_dir / "families" / f"{stale}.rst").unlink()
    copy_tutorials()
    write_cli_help()
    _write(DOCS / "api" / "estimators.rst", estimators_page())


_SIMPLE_TABLE_BORDER = re.compile(r"^( *)=+( +=+)+ *$")


def _cells(line, n_columns):
    cells = re.split(r" {2,}", line.strip())
    if len(cells) < n_columns:
        cells = line.split(None, n_columns - 1)
    return cells


def widen_simple_tables(app, what, name, obj, options, lines):
    """Widen the columns of a docstring's simple table to their widest cell.

    docutils refuses a simple table whose cell is wider than its column's
    border; such a table is readable text in ``help()``, so the site widens
    the borders rather than fail.  Cells are told apart by runs of two or
    more spaces, as a reader of the plain text tells them apart.
    """
    borders = [i for i, line in enumerate(lines) if _SIMPLE_TABLE_BORDER.match(line)]
    for start, end in zip(borders[::3], borders[2::3]):
        indent = _SIMPLE_TABLE_BORDER.match(lines[start]).group(1)
        n_columns = len(lines[start].split())
        # a cell that overflows its column may leave one space before the next
        rows = {i: _cells(lines[i], n_columns) for i in range(start, end + 1)
                if i not in borders and lines[i].strip()}
        if any(len(cells) != n_columns for cells in rows.values()):
            continue
        widths = [max([len(b) for b in lines[start].split()[c:c + 1]]
                      + [len(cells[c]) for cells in rows.values()])
                  for c in range(n_columns)]
        for i in range(start, end + 1):
            if i in rows:
                lines[i] = indent + "  ".join(
                    cell.ljust(w) for cell, w in zip(rows[i], widths)).rstrip()
            elif i in borders:
                lines[i] = indent + "  ".join("=" * w for w in widths)


#: Files of the repository outside ``docs/`` that have a page on the site.
REPOSITORY_PAGES = {
    "CHANGELOG.md": "project/changelog",
    "CONTRIBUTING.md": "project/contributing",
    "tutorials/README.md": "tutorials",
}


def link_repository_pages(app, doctree):
    """Point Markdown links to repository files outside ``docs/`` at their pages.

    The pages of ``docs/`` are read on the repository's web view too, where
    ``../CHANGELOG.md`` is a file; on the site it is the page that includes
    that file (:data:`REPOSITORY_PAGES`).
    """
    from sphinx import addnodes
    for node in doctree.findall(addnodes.pending_xref):
        if node.get("reftype") != "myst" or node.get("refdomain") != "doc":
            continue
        if node["reftarget"] in app.env.found_docs:
            continue
        target = (DOCS / node["reftarget"]).resolve()
        for path, page in REPOSITORY_PAGES.items():
            if target == (REPO / path).with_suffix(""):
                node["reftarget"] = page


EXAMPLES = REPO / "examples"
_THUMBNAIL = re.compile(r"sphx_glr_(\w+?)_thumb\.\w+$")


def example_title(stem):
    """The title of the gallery script ``examples/<stem>.py`` (its docstring's first line)."""
    import ast
    path = EXAMPLES / f"{stem}.py"
    if not path.is_file():
        return None
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return docstring.strip().splitlines()[0].strip() if docstring.strip() else None


def thumbnail_alt(uri, alt):
    """The alt text of an image: a gallery thumbnail's, where sphinx-gallery left it empty.

    A thumbnail says what its example draws: "Thumbnail of the example
    <title>", the title being that of the script it was made from.  Any
    other image, or one with alt text, keeps its own.
    """
    match = _THUMBNAIL.search(uri or "")
    if match and not (alt or "").strip():
        title = example_title(match.group(1))
        if title:
            return f"Thumbnail of the example {title}"
    return alt


def thumbnail_alt_text(app, doctree):
    """Give the gallery's thumbnails their alt text (:func:`thumbnail_alt`)."""
    from docutils import nodes
    for image in doctree.findall(nodes.image):
        image["alt"] = thumbnail_alt(image.get("uri"), image.get("alt", ""))


_TITLE_IN_CODE = re.compile(
    r"""(?:suptitle|set_title|title)\s*(?:=|\()\s*([rRfF]{0,2})(["'])(.+?)(?<!\\)\2""")

#: An f-string's doubled brace, or a field (its expression kept, its format dropped).
_FSTRING_PART = re.compile(r"\{\{|\}\}|\{([^{}:!]+)(?:[:!][^{}]*)?\}")


def _title_text(prefix, quote, body):
    """The text of a title's string literal: escapes read, an f-string's fields by name.

    Only an f-string has fields: braces in a plain string (TeX's
    ``$p_{ij}$``) are text.
    """
    if "f" in prefix.lower():
        body = _FSTRING_PART.sub(lambda m: m.group(1) or m.group(0)[0], body)
        prefix = prefix.replace("f", "").replace("F", "")
    try:
        return ast.literal_eval(prefix + quote + body + quote)
    except (SyntaxError, ValueError):
        return body


def figure_alt_from_code(code, page_title):
    """The alt text of a figure drawn by a notebook cell: the titles its code sets.

    The cell's own ``title=``, ``set_title(...)`` and ``suptitle(...)``
    strings say what it draws (an f-string's fields by their expressions,
    without braces or formats); a cell that sets none gets "A figure of
    <page title>, drawn by the code above".
    """
    titles = [_title_text(*match.groups()) for match in _TITLE_IN_CODE.finditer(code or "")]
    if titles:
        shown = "; ".join(dict.fromkeys(titles))
        return f"Figure: {shown}"
    return f"A figure of {page_title}, drawn by the code above"


def notebook_figure_alt_text(app, doctree):
    """Give the figures that the tutorials' cells draw an alt text (myst-nb leaves none)."""
    from docutils import nodes
    title = next(iter(doctree.findall(nodes.title)), None)
    page_title = title.astext() if title is not None else "this page"
    for cell in doctree.findall(nodes.container):
        if "cell" not in cell.get("classes", []):
            continue
        code = "\n".join(block.astext() for block in cell.findall(nodes.literal_block)
                         if not any("cell_output" in parent.get("classes", [])
                                    for parent in _ancestors(block)))
        for image in cell.findall(nodes.image):
            if not image.get("alt", "").strip():
                image["alt"] = figure_alt_from_code(code, page_title)


def _ancestors(node):
    while node.parent is not None:
        node = node.parent
        yield node


#: "theory §3.5" in prose, and "docs/theory.md §3.5" in the docstrings,
#: which also read as plain text in a terminal.
_THEORY_REF = re.compile(r"(?:docs/theory\.md|theory) §(\d+(?:\.\d+)?)")


def _theory_sections(app):
    """Section number ("3.5") -> the anchor of that section on the theory page.

    Kept on ``app``, which lives for one build, not on the environment,
    which Sphinx saves between builds (a renumbered theory page would keep
    the old anchors).
    """
    from docutils import nodes
    sections = getattr(app, "smallvis_theory_sections", None)
    if sections is None:
        sections = {}
        if "theory" in app.env.found_docs:
            for section in app.env.get_doctree("theory").findall(nodes.section):
                number = re.match(r"(\d+(?:\.\d+)?) ", section.next_node(nodes.title).astext())
                if number and section["ids"]:
                    sections[number.group(1)] = section["ids"][-1]
        app.smallvis_theory_sections = sections
    return sections


def link_theory_sections(app, doctree, docname):
    """Make each "theory §N" of a page a link to that section of the theory page."""
    from docutils import nodes
    if docname == "theory":
        return
    sections = _theory_sections(app)
    skip = (nodes.literal, nodes.literal_block, nodes.reference, nodes.math, nodes.raw,
            nodes.title)
    for text in list(doctree.findall(nodes.Text)):
        if any(isinstance(node, skip) for node in (text.parent, *_ancestors(text.parent))):
            continue
        value, pieces, last = str(text), [], 0
        for match in _THEORY_REF.finditer(value):
            anchor = sections.get(match.group(1))
            if anchor is None:  # no such section: the text stays as written
                continue
            uri = app.builder.get_relative_uri(docname, "theory") + "#" + anchor
            pieces += [nodes.Text(value[last:match.start()]),
                       nodes.reference("", f"theory §{match.group(1)}", refuri=uri,
                                       internal=True)]
            last = match.end()
        if pieces:
            text.parent.replace(text, pieces + [nodes.Text(value[last:])])


def skip_namedtuple_fields(app, what, name, obj, skip, options):
    """Leave out the ``Alias for field number N`` entries of NamedTuple units."""
    doc = getattr(obj, "__doc__", None) or ""
    if what == "class" and doc.startswith("Alias for field number"):
        return True
    return None


def _object(dotted):
    """The object a dotted name imports as, or None."""
    parts = dotted.split(".")
    for k in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        try:
            for attr in parts[k:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def link_inherited_members(app, env, node, contnode):
    """Resolve ``Sub.member``, documented only on the class that defines it, to there.

    A class page documents the members the class defines; its summary table
    still lists the inherited ones (``smallvis.TSNE.fit``), which have no
    target of their own.  They link to the defining class's entry
    (``smallvis.Embedding.fit``), under the public name it is documented by
    or its full module path.
    """
    if node.get("refdomain") != "py":
        return None
    owner, _, member = node.get("reftarget", "").rpartition(".")
    cls = _object(owner) if owner.startswith("smallvis.") else None
    if not inspect.isclass(cls):
        return None
    domain = env.get_domain("py")
    for base in cls.__mro__[1:]:
        if member not in vars(base):
            continue
        for name in (f"smallvis.{base.__name__}.{member}",
                     f"{base.__module__}.{base.__qualname__}.{member}"):
            found = domain.resolve_xref(env, node["refdoc"], app.builder, "obj", name,
                                        node, contnode)
            if found is not None:
                return found
        return None
    return None


def link_method_folders(app, env, node, contnode):
    """Link ``:mod:`smallvis.methods.tsne``` (or a module in that folder) to the
    method's page, which shows the folder's code; the folders are not
    autodoc modules of their own."""
    from docutils import nodes

    if node.get("refdomain") != "py" or node.get("reftype") != "mod":
        return None
    match = re.fullmatch(r"smallvis\.methods\.(\w+)(\.\w+)?", node.get("reftarget", ""))
    if match is None or f"_generated/methods/{match.group(1)}" not in env.all_docs:
        return None
    uri = app.builder.get_relative_uri(node["refdoc"], f"_generated/methods/{match.group(1)}")
    reference = nodes.reference("", "", internal=True, refuri=uri)
    reference += contnode
    return reference


#: Where the pages of the package's source go (:func:`source_pages`).
SOURCE_PAGES = "_source"
#: The source pages that links point to, collected while the pages are
#: written (:func:`link_package_source`), so that only those are made.
LINKED_SOURCES = set()
PACKAGE = REPO / "smallvis"


def module_file(modname):
    """The source file of the package's module ``modname`` (a compiled one's
    Cython file), or None for a name outside the package."""
    if modname != "smallvis" and not modname.startswith("smallvis."):
        return None
    base = REPO.joinpath(*modname.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py", base.with_suffix(".pyx")):
        if path.is_file():
            return path
    return None


_CYTHON_FUNCTION = re.compile(r"(?:def|cpdef(?:\s+[\w.\[\]]+)?)\s+(\w+)\s*\(")


@functools.lru_cache(maxsize=None)
def source_anchors(path):
    """``{name: line}`` of what a source page marks in the file ``path``.

    The module's functions, classes and assignments (``FROM_INPUT``), and
    each class's methods and assignments as ``Class.name``; ``line``
    counts from 1, at a definition's first decorator, or at the ``#:``
    comment that documents an assignment.
    """
    import ast

    text = path.read_text(encoding="utf-8")
    source = text.splitlines()
    anchors = {}
    if path.suffix == ".pyx":
        # Cython: the functions Python can call, at the left margin
        for number, line in enumerate(source, 1):
            match = _CYTHON_FUNCTION.match(line)
            if match:
                anchors.setdefault(match.group(1), number)
        return anchors

    def documented_from(line):
        while line > 1 and source[line - 2].lstrip().startswith("#:"):
            line -= 1
        return line

    def mark(body, prefix):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                line = min([node.lineno] + [d.lineno for d in node.decorator_list])
                anchors.setdefault(prefix + node.name, line)
                if isinstance(node, ast.ClassDef) and not prefix:
                    mark(node.body, node.name + ".")
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        anchors.setdefault(prefix + target.id, documented_from(node.lineno))

    mark(ast.parse(text).body, "")
    return anchors


@functools.lru_cache(maxsize=None)
def source_imports(modname):
    """``{name: dotted}`` of what the module ``modname`` of the package takes with
    ``from ... import`` from the package (``dotted``: where the name comes from)."""
    import ast

    path = module_file(modname)
    if path is None or path.suffix != ".py":
        return {}
    package = modname if path.name == "__init__.py" else modname.rpartition(".")[0]
    imports = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.ImportFrom):
            continue
        base = node.module or ""
        if node.level:
            anchor = package.split(".")
            anchor = anchor[:len(anchor) - (node.level - 1)]
            base = ".".join(anchor + ([base] if base else []))
        if base != "smallvis" and not base.startswith("smallvis."):
            continue
        for alias in node.names:
            if alias.name != "*":
                imports[alias.asname or alias.name] = f"{base}.{alias.name}"
    return imports


def source_target(dotted, _hops=0):
    """Where a package name's source is shown: ``(page, fragment)``, or None.

    ``page`` is the source page of the module that defines the name (the
    longest prefix of ``dotted`` that is a module with a source file,
    followed through ``from ... import`` within the package); ``fragment``
    the anchor of the definition ("" for a module).  A class's member that
    its file does not define (an inherited one) goes to the class.  None for
    a name the package's sources do not define, such as ``numpy.unique`` or
    a module's own ``np.unique``.
    """
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        modname = ".".join(parts[:k])
        path = module_file(modname)
        if path is None:
            continue
        page = f"{SOURCE_PAGES}/{modname.replace('.', '/')}"
        rest = parts[k:]
        if not rest:
            return page, ""
        anchors = source_anchors(path)
        if ".".join(rest) in anchors:
            return page, ".".join(rest)
        origin = source_imports(modname).get(rest[0])
        if origin is not None and _hops < 10:
            return source_target(".".join([origin, *rest[1:]]), _hops + 1)
        if rest[0] in anchors and len(rest) > 1 and _object(dotted) is not None:
            return page, rest[0]
        return None
    return None


_DOCSTRING_OF = re.compile(r"docstring of ([\w.]+)")


def _reference_scopes(node):
    """Where a bare name in a docstring is looked up: the class and module the
    page documents it under, then the class and module that define the
    docstring's object (a page may document ``smallvis.registry.Method``,
    whose docstring names what ``smallvis.method_spec`` defines)."""
    module, cls = node.get("py:module"), node.get("py:class")
    scopes = ([f"{module}.{cls}"] if module and cls else []) + ([module] if module else [])
    match = _DOCSTRING_OF.search(str(node.source or ""))
    obj = _object(match.group(1)) if match else None
    if obj is not None:
        home = getattr(obj, "__module__", None)
        qualname = getattr(obj, "__qualname__", "")
        # the docstring's class: the object itself, or the class of a method
        owner = qualname if inspect.isclass(obj) else qualname.rpartition(".")[0]
        if home and owner and "<" not in owner:
            scopes.append(f"{home}.{owner}")
        if home:
            scopes.append(home)
    return list(dict.fromkeys(scopes))


def link_package_source(app, env, node, contnode):
    """Link a reference to a package name that has no page of its own to its source.

    Docstrings name internal modules and functions (``smallvis.engines.sgd``,
    :func:`smallvis.families.distance_unit`) that the API reference does not
    document; they link to the module's source page, at the object's line.
    A bare name is looked up in the module (and class) of the docstring.
    """
    from docutils import nodes

    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    candidates = [target]
    if not target.startswith("smallvis."):
        candidates = [f"{scope}.{target}" for scope in _reference_scopes(node)]
    found = [place for place in map(source_target, candidates) if place is not None]
    if found:
        # the scope that defines the name (a constant imported elsewhere has
        # no anchor there) before one that merely holds it
        page, fragment = next((place for place in found if place[1]), found[0])
        uri = app.builder.get_relative_uri(node["refdoc"], page)
        reference = nodes.reference("", "", internal=True,
                                    refuri=uri + (f"#{fragment}" if fragment else ""))
        reference += contnode
        LINKED_SOURCES.add(page)
        return reference
    return None


def source_pages(app):
    """The source pages that :func:`link_package_source` linked to: a module's
    highlighted source, with an anchor at each name :func:`source_anchors`
    marks (sphinx.ext.viewcode's pages mark only the documented objects).

    The pages are written after every document, so the links are known;
    a parallel build resolves them in other processes, and gets a page for
    every module of the package.
    """
    if not hasattr(app.builder, "highlighter"):
        return
    for path in sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.pyx")]):
        parts = path.relative_to(REPO).with_suffix("").parts
        modname = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        page = f"{SOURCE_PAGES}/{modname.replace('.', '/')}"
        if page not in LINKED_SOURCES and getattr(app, "parallel", 0) <= 1:
            continue
        language = "cython" if path.suffix == ".pyx" else "python"
        # stripnl=False: line n of the file stays line n of the block
        lines = app.builder.highlighter.highlight_block(
            path.read_text(encoding="utf-8"), language, opts={"stripnl": False},
            linenos="inline").splitlines()
        # the first line holds the block's opening markup and the file's first
        # line; from there on line n of the file is lines[n]
        before, after = lines[0].split("<pre>", 1)
        lines[0:1] = [before + "<pre>", after]
        for name, line in source_anchors(path).items():
            if line < len(lines):
                lines[line] = f'<span id="{name}"></span>' + lines[line]
        relative = path.relative_to(REPO).as_posix()
        body = (f"<h1>Source code for {modname}</h1>\n"
                f"<p>The file <code>{relative}</code> of the repository.</p>\n"
                + "\n".join(lines))
        yield page, {"title": modname, "body": body}, "page.html"


def setup(app):
    # before Sphinx lists its sources, so that the generated pages are among them
    app.connect("config-inited", generate)
    app.connect("doctree-read", link_repository_pages)
    app.connect("doctree-read", thumbnail_alt_text)
    app.connect("doctree-read", notebook_figure_alt_text)
    app.connect("doctree-resolved", link_theory_sections)
    app.connect("missing-reference", link_inherited_members)
    app.connect("missing-reference", link_method_folders)
    # last: a name with a page of its own links there, not to its source
    app.connect("missing-reference", link_package_source, priority=900)
    app.connect("html-collect-pages", source_pages)
    app.connect("autodoc-skip-member", skip_namedtuple_fields)
    app.connect("autodoc-process-docstring", widen_simple_tables)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
