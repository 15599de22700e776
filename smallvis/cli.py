"""Command-line interface: ``smallvis embed INPUT --method M --out Y.csv --plot Y.png``.

``smallvis embed ... --save-model model.npz`` also writes the fitted model
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
truncated file where a good one stood.

Exit status: 0 success, 1 an output could not be written, 2 bad input or
options (a damaged ``--model`` file, or an input too large for memory with
these options, included), 130 interrupted (Ctrl-C).
"""

import argparse
import csv
import io
import os
import re
import sys
import tempfile
import warnings

import numpy as np

from . import __version__, datasets
from .api import embed
from .methods import METHODS

#: Extensions accepted by ``--out`` (coordinates) and ``--plot``.
OUT_FORMATS = (".csv", ".txt", ".npy")
PLOT_FORMATS = (".png", ".pdf", ".svg")
MODEL_FORMATS = (".npz",)
INPUT_FORMATS = (".csv", ".txt", ".npy")


class CLIError(Exception):
    """An input problem reported as one line and exit status 2."""


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


def check_outputs(outputs, inputs):
    """Refuse outputs that cannot be written, or that would destroy an input.

    Parameters
    ----------
    outputs : list of (option, path, extensions)
        E.g. ``("--plot", "y.png", PLOT_FORMATS)``; ``path`` None is skipped.
    inputs : list of str
        Paths of existing input files (data, labels).

    Raises
    ------
    CLIError
        Unsupported extension, missing or unwritable directory, a path that
        is a directory or a read-only file, an output that resolves to an
        input, or two outputs that resolve to the same file.
    """
    outputs = [(o, p, e) for o, p, e in outputs if p is not None]
    for k, (option, path, _) in enumerate(outputs):  # data loss first
        for source in inputs:
            if _same_file(path, source):
                raise CLIError(f"{option} {path!r} is the input file {source!r}; "
                               "refusing to overwrite it")
        for other_option, other, _ in outputs[:k]:
            if _same_file(path, other):
                raise CLIError(f"{other_option} and {option} are the same file {path!r}")
    for option, path, extensions in outputs:
        ext = os.path.splitext(path)[1].lower()
        if ext not in extensions:
            raise CLIError(f"{option} {path!r}: unsupported extension {ext or '(none)'!r}; "
                           f"use {', '.join(extensions)}")
        directory = os.path.dirname(os.path.realpath(path))
        if not os.path.isdir(directory):
            raise CLIError(f"{option} {path!r}: directory {directory!r} does not exist")
        if not os.access(directory, os.W_OK | os.X_OK):
            raise CLIError(f"{option} {path!r}: directory {directory!r} is not writable")
        if os.path.isdir(path):
            raise CLIError(f"{option} {path!r} is a directory")
        if os.path.exists(path) and not os.access(path, os.W_OK):
            raise CLIError(f"{option} {path!r} exists and is read-only")


def atomic_write(path, write):
    """Write a file by ``write(binary_file)`` into a temporary file, then rename.

    The temporary file lives in the target's directory, so the final
    :func:`os.replace` is atomic: readers see the old file or the complete
    new one, never a truncated one.  On any error (or Ctrl-C) the temporary
    file is removed and the target is untouched.  The new file gets the
    old one's permissions, or the default ones (0666 minus the umask).
    """
    target = os.path.realpath(path)
    directory, name = os.path.split(target)
    if os.path.exists(target):
        mode = os.stat(target).st_mode & 0o7777
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _write_coordinates(fh, Y, path):
    if path.lower().endswith(".npy"):
        np.save(fh, Y, allow_pickle=False)
        return
    header = ",".join(f"y{k + 1}" for k in range(Y.shape[1]))
    text = io.StringIO()
    np.savetxt(text, Y, delimiter=",", header=header, comments="", fmt="%.17g")
    fh.write(text.getvalue().encode("ascii"))


# ---------------------------------------------------------------------------
# input: datasets, .npy, and CSV with a safe header guess
# ---------------------------------------------------------------------------


def _is_number(cell):
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _read_rows(path):
    """Non-blank CSV rows of ``path`` as ``(line_number, cells)``, cells stripped."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
        text = raw.decode("utf-8-sig")  # drops a byte-order mark (Excel writes one)
    except (OSError, UnicodeDecodeError) as exc:
        raise CLIError(f"cannot read {path!r}: {exc}") from None
    rows = []
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        for cells in reader:
            if not cells or (len(cells) == 1 and not cells[0].strip()):
                continue  # a blank line is not a row
            rows.append((reader.line_num, [c.strip() for c in cells]))
    except csv.Error as exc:
        raise CLIError(f"{path!r}, line {reader.line_num}: {exc}") from None
    return rows


def _guess_header(rows):
    """A first row is a header only if it has a non-empty, non-numeric cell
    in a column whose next row holds a number there (so a column of text
    labels is not mistaken for a header)."""
    first = rows[0][1]
    if len(rows) == 1:
        return any(c and not _is_number(c) for c in first)
    second = rows[1][1]
    return any(c and not _is_number(c) and k < len(second) and _is_number(second[k])
               for k, c in enumerate(first))


def _looks_like_column_numbers(cells):
    try:
        values = [float(c) for c in cells]
    except ValueError:
        return False
    k = len(values)
    return k >= 3 and values in (list(range(k)), list(range(1, k + 1)))


def _column_index(spec, names, width, path):
    """Index of the label column ``spec`` (a name, or a number counted from 1)."""
    if names is not None and spec in names:
        return names.index(spec)
    if re.fullmatch(r"[+-]?\d+", spec):
        number = int(spec)
        if number == 0 or abs(number) > width:
            raise CLIError(f"--labels {spec}: column numbers run from 1 to {width} "
                           f"(or -1 for the last) in {path!r}")
        return number - 1 if number > 0 else width + number
    return None


def _typed_labels(cells, where):
    """Labels as int, float or str values (whichever fits all of them)."""
    for k, c in enumerate(cells):
        if not c:
            raise CLIError(f"{where(k)}: empty label")
    for kind in (int, float):
        try:
            return np.array([kind(c) for c in cells])
        except ValueError:
            pass
    return np.array(cells)


def read_csv(path, header=None, labels=None):
    """Read a numeric CSV, optionally taking a label column out of it.

    Parameters
    ----------
    path : str
    header : bool or None
        True: the first row is a header; False: it is data; None (default):
        a header only if it has a non-empty, non-numeric cell where the next
        row has a number (a numeric first row such as ``1,2,3`` is data).
    labels : str or None
        A column name (with a header) or number (1 = first, -1 = last) to use
        as labels instead of as a feature.

    Returns
    -------
    X : ndarray of float64, shape (n_rows, n_columns)
    labels : ndarray or None
    label_found : bool
        Whether ``labels`` named a column (if not, it may be a file).
    """
    rows = _read_rows(path)
    if not rows:
        raise CLIError(f"{path!r} is empty")
    if header is None:
        header = _guess_header(rows)
        if not header and _looks_like_column_numbers(rows[0][1]) and len(rows) > 1 \
                and not all(re.fullmatch(r"[+-]?\d+", c) for c in rows[1][1]):
            warnings.warn(f"{path!r}: the first row ({','.join(rows[0][1])}) is read as "
                          "data; if it is a header, pass --header", UserWarning)
    names = rows[0][1] if header else None
    data = rows[1:] if header else rows
    if not data:
        raise CLIError(f"{path!r} has a header but no data rows")
    width = len(data[0][1])
    for line, cells in data:
        if len(cells) != width:
            raise CLIError(f"{path!r}, line {line}: data row has {len(cells)} columns, "
                           f"expected {width}")
    label_col = _column_index(labels, names, width, path) if labels is not None else None
    if labels is not None and label_col is None and not os.path.isfile(labels):
        columns = f" (columns: {', '.join(names)})" if names else ""
        raise CLIError(f"--labels {labels!r}: no column of that name or number{columns}, "
                       "and no such file")
    keep = [k for k in range(width) if k != label_col]
    if not keep:
        raise CLIError(f"{path!r}: no feature columns left besides the labels")
    X = np.empty((len(data), len(keep)))
    for r, (line, cells) in enumerate(data):
        row = [cells[k] for k in keep]
        try:
            X[r] = np.array(row, dtype=np.float64)
        except ValueError:
            k = next(k for k in keep if not _is_number(cells[k]))
            what = "an empty cell" if not cells[k] else "not a number"
            hint = "" if labels is not None or not cells[k] else \
                "; use --labels to take a label column out"
            raise CLIError(f"{path!r}, line {line}, column {k + 1}: non-numeric value "
                           f"{cells[k]!r} ({what}); every feature column must be "
                           f"numeric{hint}") from None
    y = None
    if label_col is not None:
        lines = [line for line, _ in data]
        y = _typed_labels([cells[label_col] for _, cells in data],
                          lambda r: f"{path!r}, line {lines[r]}, column {label_col + 1}")
    return X, y, label_col is not None


def read_labels_file(path, n_rows):
    """One label per row of the data: a .npy vector, or a text file with one
    label per line and an optional header line."""
    if path.lower().endswith(".npy"):
        try:
            y = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError) as exc:
            raise CLIError(f"cannot read labels {path!r}: {exc}") from None
        y = np.asarray(y)
        if y.ndim != 1:
            raise CLIError(f"labels {path!r} must be a 1-D array; got shape {y.shape}")
    else:
        rows = _read_rows(path)
        if any(len(cells) != 1 for _, cells in rows):
            line = next(line for line, cells in rows if len(cells) != 1)
            raise CLIError(f"labels {path!r}, line {line}: expected one label per line")
        if len(rows) == n_rows + 1:
            rows = rows[1:]  # a header line
        y = _typed_labels([cells[0] for _, cells in rows],
                          lambda r: f"labels {path!r}, line {rows[r][0]}")
    if len(y) != n_rows:
        raise CLIError(f"labels {path!r} has {len(y)} labels for {n_rows} data rows")
    return y


def load_input(source, header=None, labels=None):
    """Load ``(X, labels)`` from a dataset name, a .npy or a .csv file.

    ``labels`` (a column name or number, or a file) takes a label column out
    of the features, or reads labels from a separate file.  Built-in
    datasets carry their own labels (a labels file replaces them).
    """
    is_dataset = source in datasets.names() and not os.path.exists(source)
    if not is_dataset and not os.path.exists(source):
        raise CLIError(
            f"input {source!r} is neither an existing file nor a built-in dataset "
            f"({', '.join(datasets.names())})"
        )
    ext = os.path.splitext(source)[1].lower()
    if not is_dataset and ext not in INPUT_FORMATS:
        raise CLIError(f"input {source!r}: unsupported file type {ext!r}; use .csv or .npy")
    found = False
    if is_dataset:
        X, y = datasets.load(source)
    elif ext == ".npy":
        X, y = _load_npy(source), None
        if labels is not None and X.ndim == 2 and re.fullmatch(r"[+-]?\d+", labels):
            k = _column_index(labels, None, X.shape[1], source)
            y, X, found = X[:, k], np.delete(X, k, axis=1), True
            if np.all(np.isfinite(y)) and np.all(y == np.round(y)):
                y = y.astype(np.int64)
    else:
        X, y, found = read_csv(source, header=header, labels=labels)
    if labels is not None and not found:
        if not os.path.isfile(labels):
            where = "a built-in dataset has no label columns" if is_dataset else \
                "no column of that name or number"
            raise CLIError(f"--labels {labels!r}: {where}, and no such file")
        y = read_labels_file(labels, len(X))
    return X, y


def _load_npy(source):
    try:
        X = np.load(source, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:  # EOFError: empty/truncated file
        raise CLIError(f"cannot read {source!r} as a .npy array: "
                       f"{exc or type(exc).__name__}") from None
    if not isinstance(X, np.ndarray):  # an .npz archive under a .npy name
        X.close()
        raise CLIError(f"cannot read {source!r} as a .npy array: it is an .npz archive")
    return X


# ---------------------------------------------------------------------------
# the parser
# ---------------------------------------------------------------------------


def _registry_defaults(values):
    """'30; largevis: 50'-style text for a {method: default} mapping."""
    values = {name: v for name, v in values.items() if v is not None}
    groups = {}
    for name, value in values.items():
        groups.setdefault(f"{value:g}", []).append(name)
    common = max(groups, key=lambda v: len(groups[v]))
    others = "; ".join(f"{', '.join(names)}: {v}" for v, names in groups.items()
                       if v != common)
    return common + (f"; {others}" if others else "")


def build_parser():
    """The argument parser (exposed for tests and docs)."""
    parser = argparse.ArgumentParser(
        prog="smallvis", description="Neighbour embeddings with smallvis."
    )
    parser.add_argument("--version", action="version", version=f"smallvis {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, help="the command to run")
    e = sub.add_parser(
        "embed", help="embed a dataset and write coordinates and a plot",
        description="Embed INPUT and write its coordinates (--out) and a plot (--plot). "
                    "Output paths are checked before any work; outputs are written "
                    "atomically and never replace an input.")
    e.add_argument("input", help=f"a .csv or .npy file, or a built-in dataset: "
                                 f"{', '.join(datasets.names())}")
    e.add_argument("--method", default="tsne", choices=list(METHODS),
                   help="embedding method (default: tsne)")
    e.add_argument("--fast", action="store_true",
                   help="use the Cython kernels (same numbers to rounding, much faster)")
    perplexities = {n: m.affinity_params.get("perplexity") for n, m in METHODS.items()}
    e.add_argument("--perplexity", type=float, default=None,
                   help=f"perplexity of the input affinities, for "
                        f"{', '.join(n for n, v in perplexities.items() if v is not None)} "
                        f"(default: {_registry_defaults(perplexities)})")
    e.add_argument("--n-components", type=int, default=2,
                   help="output dimension (default: 2)")
    e.add_argument("--optimizer", default="auto", choices=["auto", "exact", "sgd"],
                   help="exact (full gradient) or sgd (edge sampling); auto: sgd above "
                        "5000 points for the methods that have it")
    e.add_argument("--n-iter", type=int, default=1000,
                   help="iterations of the exact optimizer (default: 1000)")
    e.add_argument("--n-epochs", type=int, default=None,
                   help="epochs of the sgd optimizer (default: the method's)")
    e.add_argument("--learning-rate", default=None,
                   help="a positive number or 'auto' (default: the method's)")
    exaggerations = {n: m.optimizer_defaults.get("exaggeration", 1.0)
                     for n, m in METHODS.items()}
    e.add_argument("--exaggeration", type=float, default=None,
                   help=f"factor multiplying P in the first 250 iterations of the exact "
                        f"optimizer (default: {_registry_defaults(exaggerations)})")
    e.add_argument("--init", default=None,
                   choices=["spca", "pca", "random", "spectral", "laplacian", "power"],
                   help="initial layout (default: the method's)")
    e.add_argument("--random-state", type=int, default=None,
                   help="integer seed; the same seed, settings and --threads 1 give "
                        "the same coordinates on every run (default: a fresh seed)")
    e.add_argument("--threads", type=int, default=1,
                   help="threads for --fast (-1: all cores; default: 1)")
    e.add_argument("--labels", default=None, metavar="COLUMN|FILE",
                   help="colour the plot by labels: a column of the CSV, by header "
                        "name or by number (1 = first, -1 = last), which is then not a "
                        "feature; or a file with one label per row (.npy, or text with "
                        "one label per line and an optional header line)")
    e.add_argument("--header", action=argparse.BooleanOptionalAction, default=None,
                   help="whether the CSV's first row is a header (default: only if it "
                        "has a non-empty, non-numeric cell where the next row has a "
                        "number, so a numeric first row such as 1,2,3 is read as data)")
    e.add_argument("--out", default=None,
                   help=f"write the coordinates to this file ({', '.join(OUT_FORMATS)}; "
                        "CSV with a y1,y2,... header)")
    e.add_argument("--plot", default=None,
                   help=f"write a scatter plot to this file; the format follows the "
                        f"extension ({', '.join(PLOT_FORMATS)})")
    e.add_argument("--save-partial", action="store_true",
                   help="on Ctrl-C during the optimisation, still write the coordinates "
                        "reached so far (default: write nothing)")
    e.add_argument("--save-model", default=None, metavar="MODEL.npz",
                   help="also write the fitted model, for `smallvis transform` "
                        "(.npz arrays and a JSON header; no pickle)")
    e.add_argument("--quiet", action="store_true", help="no progress output")
    t = sub.add_parser(
        "transform", help="place new points into a model saved by embed --save-model",
        description="Place the rows of NEW into the embedding of MODEL (written by "
                    "`smallvis embed --save-model`); the fitted map does not move.  "
                    "Outputs are checked before any work, written atomically, and never "
                    "replace an input.")
    t.add_argument("input", help="new points: a .csv or .npy file with the training "
                                 "data's columns, or a built-in dataset")
    t.add_argument("--model", required=True, help="a model file (.npz) from "
                                                  "`smallvis embed --save-model`")
    t.add_argument("--out", default=None,
                   help=f"write the new points' coordinates ({', '.join(OUT_FORMATS)})")
    t.add_argument("--plot", default=None,
                   help=f"plot the training points faded and the new points on top "
                        f"({', '.join(PLOT_FORMATS)})")
    t.add_argument("--labels", default=None, metavar="COLUMN|FILE",
                   help="colour the new points by labels (as for embed)")
    t.add_argument("--header", action=argparse.BooleanOptionalAction, default=None,
                   help="whether the CSV's first row is a header (as for embed)")
    t.add_argument("--threads", type=int, default=1,
                   help="threads for the placement (-1: all cores; default: 1)")
    t.add_argument("--quiet", action="store_true", help="no summary line")
    return parser


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
        self.finished = False
        self.written = []

    def __call__(self, iteration, Y, cost):
        self.Y, self.iteration = Y, iteration
        return False


def _write_outputs(args, Y, labels, title, written):
    """Write --out and --plot, appending a note to ``written`` after each."""
    if args.out:
        atomic_write(args.out, lambda fh: _write_coordinates(fh, Y, args.out))
        written.append(f"coordinates -> {args.out}")
    if args.plot:
        from .plotting import save_plot

        fmt = os.path.splitext(args.plot)[1].lower().lstrip(".")
        atomic_write(args.plot, lambda fh: save_plot(Y, fh, labels=labels, title=title,
                                                     format=fmt))
        written.append(f"plot -> {args.plot}")


def run_embed(args, tracker):
    learning_rate = _learning_rate(args.learning_rate)
    inputs = [p for p in (args.input, args.labels) if p is not None and os.path.isfile(p)]
    check_outputs([("--out", args.out, OUT_FORMATS), ("--plot", args.plot, PLOT_FORMATS),
                   ("--save-model", args.save_model, MODEL_FORMATS)], inputs)
    X, labels = load_input(args.input, header=args.header, labels=args.labels)
    tracker.labels = labels
    if args.plot and labels is not None and labels.dtype.kind in "US":
        from .plotting import MAX_CATEGORIES

        n_classes = np.unique(labels).size
        if n_classes > MAX_CATEGORIES:
            raise CLIError(f"--labels: {n_classes} distinct text labels; the plot colours at "
                           f"most {MAX_CATEGORIES} categories (numeric labels get a colour "
                           "scale)")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")  # no display needed, and none opened
    result = embed(
        X, method=args.method, fast=args.fast, n_components=args.n_components,
        init=args.init, perplexity=args.perplexity,
        learning_rate=learning_rate, n_iter=args.n_iter,
        optimizer=args.optimizer, n_epochs=args.n_epochs,
        exaggeration=args.exaggeration, random_state=args.random_state,
        n_threads=args.threads, verbose=not args.quiet, return_result=True,
        callback=tracker if args.save_partial else None,
    )
    tracker.finished = True
    title = f"{args.method} of {os.path.basename(args.input)} ({_cost_text(result)})"
    _write_outputs(args, result.Y, labels, title, tracker.written)
    if args.save_model:
        _write_model(args, X, result)
        tracker.written.append(f"model -> {args.save_model}")
    if not args.quiet:
        print(f"smallvis: {args.method} finished in {result.elapsed:.2f}s, "
              f"{_cost_text(result, digits=6)}" + "".join(f"; {w}" for w in tracker.written),
              file=sys.stderr)
    return 0


def _write_model(args, X, result):
    """The fitted model of an ``embed`` run, for ``smallvis transform``."""
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
        random_state=args.random_state, n_threads=args.threads)
    atomic_write(args.save_model, lambda fh: save_model(model, fh))


def _save_placed_plot(fh, Y_train, Y_new, labels, title, fmt):
    """Training points faded in grey, the new points on top (coloured by labels)."""
    import matplotlib.pyplot as plt

    from .plotting import plot

    fig, ax = plt.subplots(figsize=(6, 6))
    try:
        second = Y_train[:, 1] if Y_train.shape[1] > 1 else np.zeros(len(Y_train))
        ax.scatter(Y_train[:, 0], second, s=4, c="0.75", alpha=0.5, linewidths=0,
                   label="fitted (training)")
        plot(Y_new, labels=labels, ax=ax, title=title)
        fig.savefig(fh, format=fmt, bbox_inches="tight")
    finally:
        plt.close(fig)


def run_transform(args):
    from .model_io import ModelFileError, load_model

    inputs = [p for p in (args.input, args.labels, args.model)
              if p is not None and os.path.isfile(p)]
    check_outputs([("--out", args.out, OUT_FORMATS), ("--plot", args.plot, PLOT_FORMATS)],
                  inputs)
    if not os.path.isfile(args.model):
        raise CLIError(f"--model {args.model!r} is not an existing file")
    try:
        model = load_model(args.model)
    except ModelFileError as exc:  # an input problem: exit status 2
        raise CLIError(f"--model: {exc}") from None
    X, labels = load_input(args.input, header=args.header, labels=args.labels)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
    model.set_params(n_threads=args.threads)
    Y_new = model.transform(X)
    written = []
    if args.out:
        atomic_write(args.out, lambda fh: _write_coordinates(fh, Y_new, args.out))
        written.append(f"coordinates -> {args.out}")
    if args.plot:
        fmt = os.path.splitext(args.plot)[1].lower().lstrip(".")
        title = (f"{model.reference_.method}: {len(Y_new)} new points of "
                 f"{os.path.basename(args.input)} placed")
        atomic_write(args.plot, lambda fh: _save_placed_plot(
            fh, model.embedding_, Y_new, labels, title, fmt))
        written.append(f"plot -> {args.plot}")
    if not args.quiet:
        print(f"smallvis: placed {len(Y_new)} new points into the {model.reference_.method} "
              f"map of {len(model.embedding_)} points" + "".join(f"; {w}" for w in written),
              file=sys.stderr)
    return 0


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
        _write_outputs(args, Y, tracker.labels, title, tracker.written)
    except KeyboardInterrupt:
        print(f"smallvis: interrupted again while saving; complete: "
              f"{'; '.join(tracker.written) or 'none'}; no file was left half-written",
              file=sys.stderr)
        return 130
    print(f"smallvis: interrupted after {step}; partial results saved: "
          f"{'; '.join(tracker.written) or 'no output requested'}", file=sys.stderr)
    return 130


def _one_line_warning(message, category, filename, lineno, file=None, line=None):
    text = " ".join(str(message).split())
    print(f"smallvis: warning: {text}", file=sys.stderr)


def main(argv=None):
    """Entry point of the ``smallvis`` command."""
    parser = build_parser()
    args = parser.parse_args(argv)
    tracker = _Tracker()
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _one_line_warning
        try:
            if args.command == "embed":
                return run_embed(args, tracker)
            if args.command == "transform":
                return run_transform(args)
        except (CLIError, ValueError, TypeError, FloatingPointError) as exc:
            print(f"smallvis: error: {' '.join(str(exc).split())}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            if args.command == "embed":
                return _interrupted(args, tracker)
            print("smallvis: interrupted; no file was left half-written", file=sys.stderr)
            return 130
        except OSError as exc:  # e.g. a disk that filled up while writing
            print(f"smallvis: error: {' '.join(str(exc).split())}; no output file was "
                  "left half-written", file=sys.stderr)
            return 1
        except MemoryError:  # too large an input for these options: an input error
            advice = ("fewer new points at a time" if args.command == "transform" else
                      "--fast, fewer points, or a method that runs on a kNN graph "
                      "(largevis, umap, tumap, ncvis)")
            print(f"smallvis: error: out of memory; try {advice}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
