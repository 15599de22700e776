"""Command-line interface: ``smallvis embed INPUT --method M --out Y.csv --plot Y.png``.

``smallvis embed ... --animate run.gif`` also writes an animation of the run
(:mod:`smallvis.animation`); ``--save-model model.npz`` the fitted model
(:func:`smallvis.save_model`), and ``smallvis transform NEW.csv --model
model.npz --out Y_new.csv --plot both.png`` places new points into it.

Everything that can be checked is checked before any computation: the
input can be read, every output path has a supported extension and a
writable directory, no output is an input, and no two outputs are the same
file.  A problem prints one line, ``smallvis: error: ...``, to stderr and
exits with status 2, without a traceback.  Warnings print as one line each,
``smallvis: warning: ...``.

Outputs are written atomically (a temporary file in the same directory,
then :func:`os.replace`), so a failed or interrupted write never leaves a
truncated file where a good one stood.  An output that is a link is written
at its final target (the link stays); a character device or FIFO (``--out
/dev/stdout``) is written into, never replaced; a read-only output is
refused, for root too (:mod:`smallvis._outputs`).

Exit status: 0 success, 1 an output could not be written, 2 bad input or
options (a damaged ``--model`` file, an input too large for memory with
these options, or compiled kernels that are not built, included), 130
interrupted (Ctrl-C).

Ctrl-C (SIGINT) interrupts a run that was started with SIGINT at its
default.  A run started with SIGINT ignored, as a non-interactive shell
starts its background jobs (``smallvis embed ... &`` or ``nohup smallvis
embed ... &`` in a script), keeps it ignored and runs to its end: that is
the Unix convention, which lets such a job outlive a Ctrl-C typed at the
terminal.  ``--save-partial`` warns when it cannot apply for that reason.
"""

import argparse
import csv
import functools
import io
import os
import re
import signal
import stat
import sys
import warnings

import numpy as np

from . import __version__, datasets
from . import animation as _animation
from . import plotting as _plotting
from ._outputs import check_output, is_stream, write_output
from ._tables import CLIError, columns_by_name, load_input, number_type
from .inputs.neighbors import check_fit_input
from ._validation import spell_options
from .exceptions import KernelsNotBuiltError
from .api import embed
from .plans import EXACT_N_ITER
from .engines.init import GRAPH_INITS, INIT_NAME_CHOICES, INIT_NAMES, check_init_name
from .registry import ALIASES, DEFAULT_METHOD, METHODS, knn_only_methods

#: Extensions accepted by ``--out`` (coordinates) and ``--plot``.
OUT_FORMATS = (".csv", ".tsv", ".txt", ".npy")
PLOT_FORMATS = tuple(f".{fmt}" for fmt in _plotting.PLOT_FORMATS)
MODEL_FORMATS = (".npz",)
ANIMATION_FORMATS = tuple(f".{fmt}" for fmt in _animation.ANIMATION_FORMATS)

#: Largest dense copy ``transform`` makes of sparse new points for a model
#: fitted on dense data (1 GiB: 1,000,000 points of 134 features).  The
#: densified rows are what a dense file of them would load as; beyond this
#: a sparse input of modest size on disk could ask for any amount of memory.
MAX_DENSIFIED_BYTES = 2**30


# ---------------------------------------------------------------------------
# output paths: checked before any work, written atomically
# ---------------------------------------------------------------------------


def _same_file(a, b):
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return False


def _same_device(a, b):
    """Whether ``a`` and ``b`` are one character device (e.g. /dev/null twice)."""
    try:
        return stat.S_ISCHR(os.stat(a).st_mode) and os.path.samefile(a, b)
    except OSError:
        return False


def output_format(path, extensions):
    """The format of an output: its extension, or for a stream without one
    (``--out /dev/stdout``) the first of ``extensions``; None if unsupported."""
    ext = os.path.splitext(path)[1].lower()
    if ext in extensions:
        return ext
    if not ext and is_stream(path):
        return extensions[0]
    return None


def check_outputs(outputs, inputs):
    """Refuse outputs that cannot be written, or that would destroy an input.

    Links are followed to their final target (which is what gets written).
    The rules for what may be written are those of :mod:`smallvis._outputs`:
    regular files (replaced atomically), character devices and FIFOs
    (written into, so ``--out /dev/stdout`` works); a FIFO is not opened here.

    Parameters
    ----------
    outputs : list of (option, path, extensions)
        E.g. ``("--plot", "y.png", PLOT_FORMATS)``; ``path`` None is skipped.
    inputs : list of str
        Paths of existing input files (data, labels).

    Raises
    ------
    CLIError
        An output that resolves to an input, two outputs that resolve to the
        same file (one character device twice is allowed), an unsupported
        extension, a missing or read-only directory, a read-only file (for
        root too), a directory, block device, socket or link loop.
    """
    outputs = [(o, p, e) for o, p, e in outputs if p is not None]
    for k, (option, path, _) in enumerate(outputs):  # data loss first
        for source in inputs:
            if _same_file(path, source):
                raise CLIError(f"{option} {path!r} is the input file {source!r}; "
                               "refusing to overwrite it")
        for other_option, other, _ in outputs[:k]:
            if _same_file(path, other) and not _same_device(path, other):
                raise CLIError(f"{other_option} and {option} are the same file {path!r}")
    for option, path, extensions in outputs:
        if output_format(path, extensions) is None:
            ext = os.path.splitext(path)[1].lower()
            raise CLIError(f"{option} {path!r}: unsupported extension {ext or '(none)'!r}; "
                           f"use {', '.join(extensions)}")
        try:
            check_output(path, option)
        except ValueError as exc:
            raise CLIError(str(exc)) from None


def _write_coordinates(fh, Y, path, row_ids=None):
    """``Y`` as .npy, or as a table with a ``y1,y2,...`` header (tab-separated
    for .tsv), led by the ``--id`` column ``row_ids`` if given."""
    if path.lower().endswith(".npy"):
        np.save(fh, Y, allow_pickle=False)
        return
    delimiter = "\t" if path.lower().endswith(".tsv") else ","
    names = [f"y{k + 1}" for k in range(Y.shape[1])]
    text = io.StringIO()
    if row_ids is None:
        np.savetxt(text, Y, delimiter=delimiter, header=delimiter.join(names),
                   comments="", fmt="%.17g")
    else:
        # the identifiers as read (quoted where they hold the separator)
        writer = csv.writer(text, delimiter=delimiter, lineterminator="\n")
        writer.writerow([row_ids.name] + names)
        writer.writerows([ident] + [f"{v:.17g}" for v in row]
                         for ident, row in zip(row_ids.values, Y))
    fh.write(text.getvalue().encode("utf-8"))


def _check_id_name(row_ids, n_components):
    """Refuse an --id column named as a coordinate column of --out (y1, y2, ...)."""
    if row_ids is not None and row_ids.name in {f"y{k + 1}" for k in range(n_components)}:
        raise CLIError(f"--id: the column is named {row_ids.name!r}, as a coordinate column "
                       f"of --out; rename it in the input")


def _written_text(written, options):
    """The summary line's list of outputs, or that none was asked for."""
    if written:
        return "".join(f"; {w}" for w in written)
    return f"; nothing written (no {', '.join(options[:-1])} or {options[-1]} given)"


def _check_row_ids(args):
    """Refuse --id with an --out that cannot hold identifiers, before any work."""
    if args.row_ids is not None and args.out is not None \
            and output_format(args.out, OUT_FORMATS) == ".npy":
        raise CLIError(f"--id writes the identifiers into a table --out "
                       f"({', '.join(f for f in OUT_FORMATS if f != '.npy')}); "
                       f"--out {args.out!r} is a .npy array of numbers only")


# ---------------------------------------------------------------------------
# the parser
# ---------------------------------------------------------------------------


def _number_or_text(text):
    """A number if ``text`` reads as one (``7``, ``0.5``), else the text (``auto``)."""
    kind = number_type([text])
    return text if kind is None else kind(text)


def _method_defaults():
    """``(method, parameter, default, stochastic default or None)`` for every
    parameter of every registered method."""
    for name, m in METHODS.items():
        stochastic = m.sgd.param_defaults if m.sgd is not None else {}
        for param, default in {**m.affinity_params, **m.cost_params}.items():
            yield name, param, default, stochastic.get(param)


@functools.lru_cache(maxsize=None)
def _registry_parameters():
    """``{parameter: ({method: default}, example values)}`` over the registry.

    Computed once (the registry does not change); callers must not modify it.

    The example values are the defaults of both optimizers (the stochastic
    form's ``param_defaults`` too); they give the option's type.
    """
    table = {}
    for name, param, default, stochastic in _method_defaults():
        by_method, examples = table.setdefault(param, ({}, []))
        by_method[name] = default
        examples += [v for v in (default, stochastic) if v is not None]
    for name, (alias, target) in ALIASES.items():
        for param, default in alias.params.items():
            by_method, examples = table.setdefault(param, ({}, []))
            by_method[name] = default
            examples.append(default)
    return table


def method_parameter_defaults():
    """``{parameter: {method: default}}`` for the parameters that have an option.

    Every parameter with a default other than None in some method or
    optimizer; the rest (a ``knn`` array, UMAP's ``a`` and ``b``, which
    ``spread`` and ``min_dist`` set) have no command-line form.
    """
    return {param: by_method for param, (by_method, examples) in _registry_parameters().items()
            if examples}


def _or_auto(kind):
    """``kind``, or None (the method's own rule) for ``auto``."""
    def parse(text):
        return None if text == "auto" else kind(text)

    parse.__name__ = kind.__name__  # argparse's "invalid int value" names it
    return parse


def _option_type(param):
    """argparse keywords for ``param``: its type read from the registry's defaults.

    A parameter that some method leaves to its own rule (a default of None,
    shown as ``auto``) takes ``auto`` too.
    """
    by_method, values = _registry_parameters()[param]
    auto = any(v is None for v in by_method.values())
    if all(isinstance(v, bool) for v in values):
        return dict(action=argparse.BooleanOptionalAction)
    for kind, metavar in ((int, "INT"), (float, "X")):
        if all(isinstance(v, kind) and not isinstance(v, bool) for v in values):
            if auto:
                return dict(type=_or_auto(kind), metavar=f"{metavar}|auto")
            return dict(type=kind, metavar=metavar)
    return dict(type=_or_auto(_number_or_text) if auto else _number_or_text, metavar="VALUE")


def _stochastic_defaults_text(param):
    """'; sgd: largevis 6'-style text of the stochastic forms' own defaults of ``param``."""
    parts = []
    for name, this, own, value in _method_defaults():
        if this == param and value is not None and value != own \
                and not (value == "auto" and own is None):
            parts.append(f"{name} {value:g}" if isinstance(value, float) else f"{name} {value}")
    return f"; under the sgd optimizer: {', '.join(parts)}" if parts else ""


def _auto_optimizer_text():
    """'sgd always for infonce; above 1000 points for umap, ...' from the registry."""
    above, lines = {}, {}  # threshold -> the methods whose stochastic form starts there
    for name, m in METHODS.items():
        if m.sgd is not None:
            above.setdefault(m.sgd.auto_min_n, []).append(name)
            if m.sgd.auto_min_n_line is not None:
                lines.setdefault(m.sgd.auto_min_n_line, []).append(name)
    parts = [f"{'always' if n == 0 else f'above {n} points'} for {', '.join(names)}"
             for n, names in sorted(above.items())]
    parts += [f"with --n-components 1, above {n} points for {', '.join(names)}"
              for n, names in sorted(lines.items())]
    return "sgd " + "; ".join(parts)


def _flag(param):
    return "--" + param.replace("_", "-")


def _defaults_text(by_method, *, name_common=True):
    """'umap, tumap: 15; tsne, largevis: auto'-style text of a {method: default} mapping.

    ``name_common=False``: the most common value first without its methods
    ('30; largevis: 50'), for an option whose methods are listed elsewhere.
    """
    groups = {}
    for name, value in by_method.items():
        text = "auto" if value is None else (f"{value:g}" if isinstance(value, float)
                                              else str(value))
        groups.setdefault(text, []).append(name)
    parts = [f"{', '.join(names)}: {text}" for text, names in groups.items()]
    if name_common:
        return "; ".join(parts)
    common = max(groups, key=lambda text: len(groups[text]))
    return "; ".join([common] + [part for text, part in zip(groups, parts) if text != common])


def _add_method_parameters(parser, skip):
    """One option per method parameter of the registry (those in ``skip`` exist already)."""
    group = parser.add_argument_group(
        "method parameters", "each applies to the methods listed (defaults from "
        "smallvis.METHODS); a default too large for a small data set is lowered "
        "with a warning")
    for param, by_method in method_parameter_defaults().items():
        if param not in skip:
            group.add_argument(_flag(param), dest=param, default=None,
                               help=_defaults_text(by_method)
                               + _stochastic_defaults_text(param), **_option_type(param))


def method_parameters(args):
    """The method parameters set on the command line, checked against ``--method``."""
    given = {param: getattr(args, param) for param in method_parameter_defaults()
             if param != "perplexity" and getattr(args, param, None) is not None}
    if args.method in ALIASES:
        alias, target = ALIASES[args.method]
        m = METHODS[target]
        takes = {k: v for k, v in {**m.affinity_params, **m.cost_params}.items()
                 if k not in alias.sets()} | dict(alias.params)
    else:
        m = METHODS[args.method]
        takes = {**m.affinity_params, **m.cost_params}
    for param in given:
        if param not in takes:
            users = list(method_parameter_defaults()[param])
            raise CLIError(f"{_flag(param)} is a parameter of {', '.join(users)}, not of "
                           f"--method {args.method}")
    return given


#: Keywords whose option is not ``--`` + the keyword with dashes.
_RENAMED_OPTIONS = {"n_threads": "--threads"}


def option_flag(keyword):
    """The command-line option that sets ``keyword``, or None."""
    if keyword in _RENAMED_OPTIONS:
        return _RENAMED_OPTIONS[keyword]
    flag = _flag(keyword)
    return flag if flag in _embed_flags() else None


@functools.lru_cache(maxsize=None)
def _embed_flags(valued=False):
    """Every option string of ``smallvis embed`` (the parser is built once).

    With ``valued``, only those that take a value: ``n_iter=300`` reads as
    ``--n-iter 300``, but ``fast=False`` has no such form.
    """
    embed_parser = build_parser()._subparsers._group_actions[0].choices["embed"]
    return frozenset(s for action in embed_parser._actions for s in action.option_strings
                     if not valued or action.nargs != 0)


def _keyword_flag(keyword):
    """The option that sets ``keyword`` to a value written after it, or None."""
    flag = _RENAMED_OPTIONS.get(keyword, _flag(keyword))
    return flag if flag in _embed_flags(valued=True) else None


#: A keyword form in a message (``pass n_epochs= to set``, ``optimizer='exact'``).
_KEYWORD_FORM = re.compile(r"(?<![\w./\\'\"-])([a-z][a-z0-9_]*)=")

#: A quoted value in a message (a file name, a column, a keyword's value),
#: which a message's own apostrophes ("umap's") do not open.
_QUOTED = re.compile(r"(?<!\w)'[^'\n]*'" r'|(?<!\w)"[^"\n]*"')


def cli_message(exc_or_warning):
    """The text of an error or warning, led by the options it is about.

    A message about parameters (``options`` on a ParameterError or
    SmallDataWarning) starts with their command-line options
    (``--n-neighbors: n_neighbors must be ...``), and its keyword forms
    (``pass n_neighbors= to ...``) are written as the options, as are those
    of any other message of the package that set an option taking a value
    (``pass optimizer='exact'`` reads ``pass --optimizer 'exact'``).  A message
    of the package that numbers rows ("first: row 5") says that they count
    from 0; the command line's own messages (:class:`CLIError`, which may
    quote what the user typed) count lines and columns from 1 and get no
    such note.
    """
    text = " ".join(str(exc_or_warning).split())
    options = getattr(exc_or_warning, "options", ())
    flags = [flag for flag in map(option_flag, options) if flag is not None]
    text = spell_options(text, options, option_flag)
    if not isinstance(exc_or_warning, CLIError):
        # advice in any other message of the package ("pass optimizer='exact'")
        # names what to type too; the command line's own may quote the user,
        # and so may the package, in quotes ('runs/perplexity=30/x.csv')
        quoted = _QUOTED.findall(text)
        text = _QUOTED.sub("\0", text)
        text = spell_options(text, dict.fromkeys(_KEYWORD_FORM.findall(text)), _keyword_flag)
        text = re.sub("\0", lambda _: quoted.pop(0), text)
    if not isinstance(exc_or_warning, CLIError) and _ROW_NUMBER.search(text):
        # the package numbers rows as Python does; a reader of a file counts
        # lines from 1, past a header
        text += " (rows are counted from 0: row 0 is the first row of data)"
    return f"{', '.join(flags)}: {text}" if flags else text


#: A row number in a message of the package ("row 5", "rows 3 and 7").
_ROW_NUMBER = re.compile(r"\brows? \d")


#: Help of ``--drop`` (embed and transform).
DROP_HELP = ("leave a column of the table out: neither a feature nor the labels (an "
             "identifier, a name, a date); by header name or by number as --labels; "
             "repeat for several")

#: Help of ``--id`` (embed and transform).
ID_HELP = ("a column of the table that names each row (by header name or by number "
           "as --labels): not a feature, and written as the first column of a "
           "table --out, so that the coordinates can be joined back by it")

#: Help of ``--labels-header`` (embed and transform).
LABELS_HEADER_HELP = ("whether the first line of a --labels FILE is a header (default: "
                      "only if it is not a number and every other line is; a text line "
                      "over text labels is a label unless this is given)")


class _Parser(argparse.ArgumentParser):
    """argparse's parser, with a bad value's message led by its option.

    argparse writes ``argument --n-iter: invalid int value: 'abc'``; every
    other error about an option's value starts with the option itself
    (:func:`cli_message`), and so does this one.  Sub-commands' parsers
    are of this class too (``add_subparsers`` uses the parent's class).
    """

    def error(self, message):
        super().error(message.removeprefix("argument "))


def build_parser():
    """The argument parser (exposed for tests and docs)."""
    parser = _Parser(
        prog="smallvis", description="Neighbour embeddings with smallvis."
    )
    parser.add_argument("--version", action="version", version=f"smallvis {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, help="the command to run")
    e = sub.add_parser(
        "embed", help="embed a dataset and write coordinates and a plot",
        # the method parameters would make argparse's usage line a screenful
        usage="%(prog)s INPUT [--method METHOD] [options] [method parameters]",
        description="Embed INPUT and write its coordinates (--out), a plot (--plot) and "
                    "an animation of the run (--animate). "
                    "Output paths are checked before any work; outputs are written "
                    "atomically and never replace an input.")
    e.add_argument("input", help=f"a table (.csv, .tsv or .txt; cells separated by commas, "
                                 f"tabs, semicolons or spaces), a .npy file, a sparse "
                                 f".npz (scipy.sparse.save_npz), or a "
                                 f"built-in dataset: {', '.join(datasets.names())}")
    e.add_argument("--method", default=DEFAULT_METHOD, choices=list(METHODS) + list(ALIASES),
                   help=f"embedding method (default: {DEFAULT_METHOD}); "
                        + "; ".join(f"{a}: {t} at mapped parameters" for a, (_, t) in
                                    ALIASES.items()))
    # the compiled kernels are the default, as for smallvis.embed; --fast
    # stays accepted, so that commands written with it keep working
    backend = e.add_mutually_exclusive_group()
    backend.add_argument("--fast", dest="fast", action="store_true",
                         help="use the Cython kernels (the default)")
    backend.add_argument("--reference", dest="fast", action="store_false",
                         help="use the NumPy reference kernels instead: the formulas "
                              "written out, the same costs and gradients to rounding "
                              "(a whole run can still settle elsewhere), much slower")
    e.set_defaults(fast=True)
    used = {n: m.affinity_params["perplexity"] for n, m in METHODS.items()
            if m.affinity_params.get("perplexity") is not None}
    e.add_argument("--pca", type=int, default=None, metavar="INT",
                   help="reduce the input to this many principal components first "
                        "(truncated SVD for a sparse .npz); stored in --save-model")
    e.add_argument("--perplexity", type=float, default=None,
                   help=f"perplexity of the input affinities, for {', '.join(used)} "
                        f"(default: {_defaults_text(used, name_common=False)}"
                        f"{_stochastic_defaults_text('perplexity')})")
    e.add_argument("--n-components", type=int, default=2,
                   help="output dimension (default: 2)")
    e.add_argument("--optimizer", default="auto", choices=["auto", "exact", "sgd"],
                   help="exact (full gradient) or sgd (edge sampling); auto: "
                        f"{_auto_optimizer_text()}; exact for the others")
    e.add_argument("--n-iter", type=int, default=EXACT_N_ITER,
                   help=f"iterations of the exact optimizer (default: {EXACT_N_ITER})")
    e.add_argument("--n-epochs", type=int, default=None,
                   help="epochs of the sgd optimizer (default: the method's)")
    e.add_argument("--learning-rate", default=None,
                   help="a positive number or 'auto' (default: the method's)")
    exaggerations = {n: m.optimizer_defaults.get("exaggeration", 1.0)
                     for n, m in METHODS.items()}
    e.add_argument("--exaggeration", type=float, default=None,
                   help=f"factor multiplying P in the first 250 iterations of the exact "
                        f"optimizer (default: {_defaults_text(exaggerations, name_common=False)})")
    e.add_argument("--late-exaggeration", type=float, default=1.0,
                   help="factor multiplying P after --late-exaggeration-iter iterations of "
                        "the exact optimizer, to the end (default: 1, none); above 1 moves "
                        "t-SNE toward UMAP-like maps")
    e.add_argument("--late-exaggeration-iter", type=int, default=None,
                   help="the last iteration before late exaggeration (default: the end of "
                        "early exaggeration, 250)")
    e.add_argument("--init", default=None, type=_init_name, metavar="INIT",
                   help=f"initial layout: {', '.join(INIT_NAMES)}, or "
                        f"{' or '.join(n + ':K' for n in GRAPH_INITS)}, the layout of the "
                        f"graph of each point's K strongest entries of P (default: the "
                        f"method's{_strongest_defaults_text()})")
    e.add_argument("--random-state", type=int, default=None,
                   help="integer seed; the same seed, settings and thread count give "
                        "the same coordinates on every run (default: a fresh seed)")
    e.add_argument("--threads", type=int, default=None,
                   help="threads of the Cython kernels (-1: all available cores; default: "
                        "the cores this process may use, at most OMP_NUM_THREADS)")
    e.add_argument("--labels", default=None, metavar="COLUMN|FILE",
                   help="colour the plot by labels: a column of the input (of a table "
                        "by header name or by number, of a dense .npy array by number; "
                        "1 = first, -1 = last), which is then not a feature; or a file "
                        "with one label per row (.npy, or text with "
                        "one label per line and an optional header line, see "
                        "--labels-header); a legend for at most 20 classes, a colour "
                        "scale for numbers of more values")
    e.add_argument("--labels-header", action=argparse.BooleanOptionalAction, default=None,
                   help=LABELS_HEADER_HELP)
    e.add_argument("--drop", action="append", default=[], metavar="COLUMN",
                   help=DROP_HELP)
    e.add_argument("--id", dest="row_ids", default=None, metavar="COLUMN", help=ID_HELP)
    e.add_argument("--header", action=argparse.BooleanOptionalAction, default=None,
                   help="whether the CSV's first row is a header (default: only if it "
                        "has a non-empty, non-numeric cell where the next row has a "
                        "number, so a numeric first row such as 1,2,3 is read as data); "
                        "a header must name every column exactly once")
    e.add_argument("--out", default=None,
                   help=f"write the coordinates to this file ({', '.join(OUT_FORMATS)}; "
                        "a table has a y1,y2,... header, led by the --id column); "
                        "/dev/stdout writes CSV to standard output")
    e.add_argument("--plot", default=None,
                   help=f"write a scatter plot to this file; the format follows the "
                        f"extension ({', '.join(PLOT_FORMATS)}); of y1 and y2 when "
                        f"--n-components is above 2")
    e.add_argument("--animate", default=None, metavar="RUN.gif|RUN.mp4",
                   help="also write an animation of the run: its layouts as the "
                        "optimizer passes through them, turned onto the final one and "
                        "coloured by --labels (.gif; .mp4 needs the ffmpeg program); "
                        "the numbers of the fit do not change")
    e.add_argument("--animate-fps", type=float, default=10.0, metavar="FPS",
                   help="frames per second of --animate (default: 10; at most 50 for a "
                        "GIF)")
    e.add_argument("--animate-frames", type=int, default=100, metavar="N",
                   help="frames of --animate, evenly spaced over the run, the last "
                        "layout included (default: 100; at least 2; fewer for a run of "
                        "fewer steps); at most twice that many layouts are kept in memory")
    e.add_argument("--save-partial", action="store_true",
                   help="on Ctrl-C during the optimisation, still write the coordinates "
                        "reached so far, and --animate of the run so far (default: write "
                        "nothing); a run started with "
                        "SIGINT ignored (a background job of a script) keeps it "
                        "ignored and cannot be interrupted this way")
    e.add_argument("--save-model", default=None, metavar="MODEL.npz",
                   help="also write the fitted model, for `smallvis transform` "
                        "(.npz arrays and a JSON header; no pickle)")
    e.add_argument("--quiet", action="store_true", help="no progress output")
    _add_method_parameters(e, skip={"perplexity"})
    t = sub.add_parser(
        "transform", help="place new points into a model saved by embed --save-model",
        description="Place the rows of NEW into the embedding of MODEL (written by "
                    "`smallvis embed --save-model`); the fitted map does not move.  "
                    "Outputs are checked before any work, written atomically, and never "
                    "replace an input.")
    t.add_argument("input", help="new points: a table or .npy file with the training "
                                 "data's columns (matched by name when both have a "
                                 "header), a sparse .npz (made dense for a model fitted "
                                 "on dense data), or a built-in dataset")
    t.add_argument("--model", required=True, help="a model file (.npz) from "
                                                  "`smallvis embed --save-model`")
    t.add_argument("--out", default=None,
                   help=f"write the new points' coordinates ({', '.join(OUT_FORMATS)})")
    t.add_argument("--plot", default=None,
                   help=f"plot the training points faded and the new points on top "
                        f"({', '.join(PLOT_FORMATS)})")
    t.add_argument("--labels", default=None, metavar="COLUMN|FILE",
                   help="colour the new points by labels (as for embed)")
    t.add_argument("--labels-header", action=argparse.BooleanOptionalAction, default=None,
                   help=LABELS_HEADER_HELP)
    t.add_argument("--drop", action="append", default=[], metavar="COLUMN",
                   help=DROP_HELP + " (as for embed)")
    t.add_argument("--id", dest="row_ids", default=None, metavar="COLUMN",
                   help=ID_HELP + " (as for embed)")
    t.add_argument("--header", action=argparse.BooleanOptionalAction, default=None,
                   help="whether the CSV's first row is a header (as for embed); with "
                        "both the model's and the CSV's column names, the columns are "
                        "matched by name")
    t.add_argument("--threads", type=int, default=None,
                   help="threads for the placement (-1: all available cores; default: "
                        "the cores this process may use, at most OMP_NUM_THREADS)")
    t.add_argument("--quiet", action="store_true", help="no progress output nor summary line")
    return parser


def _strongest_defaults_text():
    """The stochastic defaults of the form "spectral:K", for ``--init``'s help."""
    parts = [f"{name} with sgd: {m.sgd.init}" for name, m in METHODS.items()
             if m.sgd is not None and ":" in m.sgd.init]
    return "".join(f"; {part}" for part in parts)


def _init_name(text):
    """``--init``: a named init (:func:`smallvis.engines.init.check_init_name`)."""
    try:
        return check_init_name(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {INIT_NAME_CHOICES}; got {text!r}") from None


def _learning_rate(text):
    if text is None or text == "auto":
        return text
    try:
        return float(text)
    except ValueError:
        raise CLIError(f"--learning-rate must be a number or 'auto'; got {text!r}") from None


def _cost_text(result, digits=4):
    if result.cost_kind == "estimate":
        return f"estimated cost {result.cost:.{digits}g} (sampled)"
    return f"cost {result.cost:.{digits}g}"


class _Tracker:
    """What a run has reached, for the message (and --save-partial) on Ctrl-C.

    Called as the optimizer's callback, it keeps the latest coordinates.
    """

    def __init__(self):
        self.Y = None
        self.iteration = 0
        self.labels = None
        self.row_ids = None  # the --id column, leading --out
        self.finished = False
        self.written = []
        self.recorder = None  # the layouts for --animate

    def __call__(self, iteration, Y, cost):
        self.Y, self.iteration = Y, iteration
        if self.recorder is not None:
            self.recorder(iteration, Y, cost)
        return False


def _write_outputs(args, Y, labels, title, written, recorder=None, step="step",
                   row_ids=None):
    """Write --out, --plot and --animate, appending a note to ``written`` after each.

    ``recorder`` holds the layouts of the run for --animate; ``step`` names
    its steps in the frames' titles ("iteration", "epoch"); ``row_ids`` (the
    --id column) leads --out.
    """
    if args.out:
        write_output(args.out, lambda fh: _write_coordinates(fh, Y, args.out, row_ids),
                     "--out")
        written.append(f"coordinates -> {args.out}")
    if args.plot:
        fmt = output_format(args.plot, PLOT_FORMATS).lstrip(".")
        write_output(args.plot, lambda fh: _plotting.save_plot(Y, fh, labels=labels,
                                                               title=title, format=fmt),
                     "--plot")
        written.append(f"plot -> {args.plot}")
    if getattr(args, "animate", None) and recorder is not None:
        _animation.animate(recorder, labels=labels, path=args.animate, fps=args.animate_fps,
                           n_frames=args.animate_frames,
                           format=output_format(args.animate, ANIMATION_FORMATS).lstrip("."),
                           title=f"{args.method}, {step} {{step}}")
        written.append(f"animation -> {args.animate}")


def _check_animation(args):
    """Refuse --animate's options before any work (ffmpeg for .mp4 among them)."""
    if args.animate is None:
        return
    try:
        _animation.check_animation(
            args.animate, args.animate_fps, args.animate_frames,
            output_format(args.animate, ANIMATION_FORMATS).lstrip("."),
            names={"path": "--animate", "fps": "--animate-fps",
                   "n_frames": "--animate-frames"})
    except (ValueError, TypeError) as exc:
        raise CLIError(str(exc)) from None


def run_embed(args, tracker):
    inputs = [p for p in (args.input, args.labels) if p is not None and os.path.isfile(p)]
    check_outputs([("--out", args.out, OUT_FORMATS), ("--plot", args.plot, PLOT_FORMATS),
                   ("--save-model", args.save_model, MODEL_FORMATS),
                   ("--animate", args.animate, ANIMATION_FORMATS)], inputs)
    _check_animation(args)
    _check_row_ids(args)
    X, labels, names, row_ids = load_input(
        args.input, header=args.header, labels=args.labels,
        labels_header=args.labels_header, drop=args.drop, row_ids=args.row_ids)
    _check_id_name(row_ids, args.n_components)
    # the data first: NaN is reported before any option; a kNN graph as stored
    X = check_fit_input(X, getattr(args, "metric", None), n_threads=getattr(args, "threads", None))
    learning_rate = _learning_rate(args.learning_rate)
    method_params = method_parameters(args)
    tracker.labels, tracker.row_ids = labels, row_ids
    if args.plot or args.animate:
        import matplotlib

        matplotlib.use("Agg")  # no display needed, and none opened
    if args.animate:
        # twice the frames asked: thinning keeps at least half of them, so that a
        # run of at least --animate-frames steps gives that many frames
        tracker.recorder = _animation.Recorder(n_frames=2 * args.animate_frames)
    result = embed(
        X, method=args.method, fast=args.fast, n_components=args.n_components,
        init=args.init, perplexity=args.perplexity,
        learning_rate=learning_rate, n_iter=args.n_iter,
        optimizer=args.optimizer, n_epochs=args.n_epochs,
        exaggeration=args.exaggeration, late_exaggeration=args.late_exaggeration,
        late_exaggeration_iter=args.late_exaggeration_iter, random_state=args.random_state,
        n_threads=args.threads, verbose=not args.quiet, return_result=True,
        # only a saved model reads P (its scale): without one, the optimizer
        # may build its edge table in P's memory
        keep_affinities=bool(args.save_model),
        callback=tracker if args.save_partial or args.animate else None, pca=args.pca,
        **method_params,
    )
    tracker.finished = True
    title = f"{args.method} of {os.path.basename(args.input)} ({_cost_text(result)})"
    _write_outputs(args, result.Y, labels, title, tracker.written, tracker.recorder,
                   "epoch" if result.optimizer == "sgd" else "iteration", row_ids)
    if args.save_model:
        _write_model(args, X, result, names)
        tracker.written.append(f"model -> {args.save_model}")
    if not args.quiet:
        # the last progress line may give an ETA for iterations that never ran
        settled = (f" after {result.n_iter} of {args.n_iter} iterations (the cost had "
                   "settled)"
                   if result.stopped_early and result.optimizer == "exact" else "")
        print(f"smallvis: {args.method} finished in {result.elapsed:.2f}s{settled}, "
              f"{_cost_text(result, digits=6)}"
              + _written_text(tracker.written, ("--out", "--plot", "--animate", "--save-model")),
              file=sys.stderr)
    return 0


def _write_model(args, X, result, feature_names):
    """The fitted model of an ``embed`` run, for ``smallvis transform``.

    ``feature_names`` (the input's header, None without one) are stored, so
    that ``transform`` can match a new table's columns by name.
    """
    from .estimator import fitted_from_result
    from .model_io import save_model

    seed = args.random_state
    if seed is None:
        seed = int(np.random.default_rng().integers(2**31 - 1))
    model = fitted_from_result(
        X, result, seed=seed, fast=args.fast, n_components=args.n_components,
        init=args.init, perplexity=args.perplexity,
        learning_rate=_learning_rate(args.learning_rate), n_iter=args.n_iter,
        optimizer=args.optimizer, n_epochs=args.n_epochs, exaggeration=args.exaggeration,
        late_exaggeration=args.late_exaggeration,
        late_exaggeration_iter=args.late_exaggeration_iter,
        random_state=args.random_state, n_threads=args.threads, pca=args.pca,
        method_params=method_parameters(args) or None, feature_names=feature_names)
    write_output(args.save_model, lambda fh: save_model(model, fh), "--save-model")


def _save_placed_plot(fh, Y_train, Y_new, labels, title, fmt):
    """Training points faded in grey, the new points on top (coloured by labels)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 6))
    try:
        second = Y_train[:, 1] if Y_train.shape[1] > 1 else np.zeros(len(Y_train))
        ax.scatter(Y_train[:, 0], second, s=4, c="0.75", alpha=0.5, linewidths=0,
                   label="fitted (training)")
        _plotting.plot(Y_new, labels=labels, ax=ax, title=title)
        _plotting.legend_outside(ax)
        fig.savefig(fh, format=fmt, bbox_inches="tight")
    finally:
        plt.close(fig)


def dense_new_points(X, model, source):
    """Sparse new points as a dense array when ``model`` was fitted on dense data.

    A library caller converts with ``X.toarray()``; a command-line user has
    only the file, so the conversion is done here, up to
    :data:`MAX_DENSIFIED_BYTES`.  Dense points, and sparse points for a
    model fitted on sparse data, are returned as they are.
    """
    import scipy.sparse as sp

    if not sp.issparse(X) or model.training_map_.takes_sparse():
        return X
    need = 8 * X.shape[0] * X.shape[1]
    if need > MAX_DENSIFIED_BYTES:
        raise CLIError(
            f"{source!r} is a sparse matrix and --model was fitted on dense data; as dense "
            f"rows its {X.shape[0]} x {X.shape[1]} values would take {need / 2**30:.1f} GiB "
            f"(at most {MAX_DENSIFIED_BYTES / 2**30:g} GiB are converted): pass the new "
            "points as a dense .npy or .csv file in parts of fewer rows, or fit the model "
            "on a sparse .npz input")
    return X.toarray()


def run_transform(args):
    from .model_io import ModelFileError, load_model

    inputs = [p for p in (args.input, args.labels, args.model)
              if p is not None and os.path.isfile(p)]
    check_outputs([("--out", args.out, OUT_FORMATS), ("--plot", args.plot, PLOT_FORMATS)],
                  inputs)
    _check_row_ids(args)
    if not os.path.isfile(args.model):
        raise CLIError(f"--model {args.model!r} is not an existing file")
    try:
        model = load_model(args.model)
    except ModelFileError as exc:  # an input problem: exit status 2
        raise CLIError(f"--model: {exc}") from None
    # a fit that cannot place new points says so before anything is read
    try:
        model.training_map_.check_places_new_points()
    except ValueError as exc:
        raise CLIError(f"--model {args.model!r}: {exc}") from None
    X, labels, names, row_ids = load_input(
        args.input, header=args.header, labels=args.labels,
        labels_header=args.labels_header, drop=args.drop, row_ids=args.row_ids)
    _check_id_name(row_ids, model.embedding_.shape[1])
    X = columns_by_name(X, names, getattr(model, "feature_names_in_", None), args.input)
    expected = getattr(model, "n_features_in_", None)
    if expected is not None and X.ndim == 2 and X.shape[1] != expected:
        raise CLIError(f"{args.input!r} has {X.shape[1]} columns, but --model {args.model!r} "
                       f"was fitted on {expected}: give the new points' {expected} columns, "
                       f"in the order of the input the model was fitted on")
    X = dense_new_points(X, model, args.input)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
    model.set_params(n_threads=args.threads, verbose=not args.quiet)
    with warnings.catch_warnings():  # the names were matched above
        warnings.filterwarnings("ignore", message="X does not have valid feature names")
        Y_new = model.transform(X)
    written = []
    if args.out:
        write_output(args.out, lambda fh: _write_coordinates(fh, Y_new, args.out, row_ids),
                     "--out")
        written.append(f"coordinates -> {args.out}")
    if args.plot:
        fmt = output_format(args.plot, PLOT_FORMATS).lstrip(".")
        title = (f"{model.training_map_.method}: {len(Y_new)} new points of "
                 f"{os.path.basename(args.input)} placed")
        write_output(args.plot, lambda fh: _save_placed_plot(
            fh, model.embedding_, Y_new, labels, title, fmt), "--plot")
        written.append(f"plot -> {args.plot}")
    if not args.quiet:
        print(f"smallvis: placed {len(Y_new)} new points into the {model.training_map_.method} "
              f"map of {len(model.embedding_)} points"
              + _written_text(written, ("--out", "--plot")),
              file=sys.stderr)
    return 0


def _warn_if_uninterruptible(args):
    """Warn that ``--save-partial`` cannot apply when SIGINT is ignored.

    smallvis leaves an inherited SIGINT disposition as it is: a process
    that was started with SIGINT ignored (a background job of a
    non-interactive shell, ``cmd &`` or ``nohup cmd &`` in a script) was
    meant to outlive a Ctrl-C typed at the terminal, so restoring it would
    defeat that intent.  Such a run cannot be interrupted into saving its
    partial results, which its user should hear before the work starts,
    not after.
    """
    if args.save_partial and signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        warnings.warn("--save-partial: SIGINT is ignored in this process (as in a "
                      "background job that a script started), so Ctrl-C cannot "
                      "interrupt the run and nothing partial will be saved; start it "
                      "with SIGINT at its default (e.g. in the foreground) to be able "
                      "to interrupt it")


def _interrupted(args, tracker):
    """Ctrl-C: save the partial coordinates if asked to, say what happened."""
    if tracker.finished:
        print(f"smallvis: interrupted while writing the outputs; complete: "
              f"{'; '.join(tracker.written) or 'none'}; no file was left half-written",
              file=sys.stderr)
        return 130
    if not args.save_partial or tracker.Y is None:
        why = "" if not args.save_partial else " before the optimisation started"
        print(f"smallvis: interrupted{why}; nothing was saved", file=sys.stderr)
        return 130
    Y = np.array(tracker.Y)
    step = f"{tracker.iteration} optimisation steps"
    try:
        title = f"{args.method} of {os.path.basename(args.input)} (interrupted after {step})"
        # an animation needs two layouts; a run stopped sooner has none to show
        frames = tracker.recorder if tracker.recorder and len(tracker.recorder) >= 2 else None
        _write_outputs(args, Y, tracker.labels, title, tracker.written, frames,
                       row_ids=tracker.row_ids)
    except KeyboardInterrupt:
        print(f"smallvis: interrupted again while saving; complete: "
              f"{'; '.join(tracker.written) or 'none'}; no file was left half-written",
              file=sys.stderr)
        return 130
    print(f"smallvis: interrupted after {step}; partial results saved: "
          f"{'; '.join(tracker.written) or 'no output requested'}", file=sys.stderr)
    return 130


def _one_line_warning(message, category, filename, lineno, file=None, line=None):
    print(f"smallvis: warning: {cli_message(message)}", file=sys.stderr)


#: Exit status of a command whose reader closed the pipe: 128 + SIGPIPE (13),
#: what the shell reports for a command that the signal ended.
BROKEN_PIPE_STATUS = 141


def _reader_gone():
    """End quietly after a write to a closed pipe, with :data:`BROKEN_PIPE_STATUS`.

    Standard output is pointed at the null device, so that flushing it at
    exit does not fail a second time.
    """
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return BROKEN_PIPE_STATUS


def main(argv=None):
    """Entry point of the ``smallvis`` command."""
    parser = build_parser()
    args = parser.parse_args(argv)
    tracker = _Tracker()
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        # deprecations are for the authors of the code that raised them: as
        # Python does by default, show them only for the package's own code
        # (an older matplotlib under a newer pyparsing raises dozens)
        for category in (DeprecationWarning, PendingDeprecationWarning):
            warnings.filterwarnings("ignore", category=category)
            warnings.filterwarnings("default", category=category, module=r"smallvis(\.|$)")
        warnings.showwarning = _one_line_warning
        try:
            if args.command == "embed":
                _warn_if_uninterruptible(args)
                return run_embed(args, tracker)
            if args.command == "transform":
                return run_transform(args)
        except (CLIError, ValueError, TypeError, FloatingPointError) as exc:
            print(f"smallvis: error: {cli_message(exc)}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            if args.command == "embed":
                return _interrupted(args, tracker)
            print("smallvis: interrupted; no file was left half-written", file=sys.stderr)
            return 130
        except BrokenPipeError:  # the reader went away: `smallvis ... | head -1`
            return _reader_gone()
        except OSError as exc:  # e.g. a disk that filled up while writing
            print(f"smallvis: error: {' '.join(str(exc).split())}; no output file was "
                  "left half-written", file=sys.stderr)
            return 1
        except KernelsNotBuiltError as exc:  # the default backend, unbuilt: say what to do
            print(f"smallvis: error: {' '.join(str(exc).split())}", file=sys.stderr)
            return 2
        except MemoryError:  # too large an input for these options: an input error
            advice = ("fewer new points at a time" if args.command == "transform" else
                      ("" if args.fast else "the Cython kernels (without --reference), ")
                      + "fewer points, or a method that runs on a kNN graph "
                      f"({', '.join(knn_only_methods())})")
            print(f"smallvis: error: out of memory; try {advice}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
