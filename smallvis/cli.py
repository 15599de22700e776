"""Command-line interface: ``smallvis embed INPUT --method M --out Y.csv --plot Y.png``.

Errors in the input (a missing file, an unreadable or non-numeric CSV, a bad
parameter) print one line to stderr and exit with status 2, without a
traceback.
"""

import argparse
import os
import sys

import numpy as np

from . import datasets
from .api import embed
from .methods import METHODS


class CLIError(Exception):
    """An input problem reported as one line and exit status 2."""


def load_input(source):
    """Load ``(X, labels)`` from a dataset name, a .npy or a .csv file.

    A CSV may have one header line; every column must be numeric.  Files
    carry no labels (``labels`` is None).
    """
    if source in datasets.names() and not os.path.exists(source):
        return datasets.load(source)
    if not os.path.exists(source):
        raise CLIError(
            f"input {source!r} is neither an existing file nor a built-in dataset "
            f"({', '.join(datasets.names())})"
        )
    ext = os.path.splitext(source)[1].lower()
    if ext == ".npy":
        try:
            X = np.load(source, allow_pickle=False)
        except (OSError, ValueError, EOFError) as exc:  # EOFError: empty/truncated file
            raise CLIError(f"cannot read {source!r} as a .npy array: "
                           f"{exc or type(exc).__name__}") from None
        if not isinstance(X, np.ndarray):  # an .npz archive under a .npy name
            X.close()
            raise CLIError(f"cannot read {source!r} as a .npy array: it is an .npz archive")
        return X, None
    if ext in (".csv", ".txt"):
        return _read_csv(source), None
    raise CLIError(f"input {source!r}: unsupported file type {ext!r}; use .csv or .npy")


def _read_csv(path):
    try:
        with open(path, encoding="utf-8") as fh:
            lines = [line.strip() for line in fh if line.strip()]
    except (OSError, UnicodeDecodeError) as exc:
        raise CLIError(f"cannot read {path!r}: {exc}") from None
    if not lines:
        raise CLIError(f"{path!r} is empty")
    rows = [line.split(",") for line in lines]
    if _is_header(rows[0]):
        rows = rows[1:]
    if not rows:
        raise CLIError(f"{path!r} has a header but no data rows")
    width = len(rows[0])
    values = []
    for number, row in enumerate(rows, start=1):
        if len(row) != width:
            raise CLIError(f"{path!r}: data row {number} has {len(row)} columns, expected {width}")
        try:
            values.append([float(cell) for cell in row])
        except ValueError:
            bad = next(c for c in row if not _is_float(c))
            raise CLIError(
                f"{path!r}: data row {number} has a non-numeric value {bad.strip()!r}; "
                "every column must be numeric"
            ) from None
    return np.asarray(values, dtype=np.float64)


def _is_float(cell):
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _is_header(row):
    return not all(_is_float(c) for c in row)


def build_parser():
    """The argument parser (exposed for tests and docs)."""
    parser = argparse.ArgumentParser(
        prog="smallvis", description="Neighbour embeddings with smallvis."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    e = sub.add_parser("embed", help="embed a dataset and write coordinates and a plot")
    e.add_argument("input", help=f"a .csv or .npy file, or a dataset: {', '.join(datasets.names())}")
    e.add_argument("--method", default="tsne", choices=list(METHODS),
                   help="embedding method (default: tsne)")
    e.add_argument("--fast", action="store_true", help="use the Cython kernels")
    e.add_argument("--perplexity", type=float, default=None)
    e.add_argument("--n-components", type=int, default=2)
    e.add_argument("--optimizer", default="auto", choices=["auto", "exact", "sgd"],
                   help="exact (full gradient) or sgd (edge sampling); auto: sgd above "
                        "5000 points for methods that have it")
    e.add_argument("--n-iter", type=int, default=1000, help="exact optimizer iterations")
    e.add_argument("--n-epochs", type=int, default=None,
                   help="sgd epochs (default: the method's)")
    e.add_argument("--learning-rate", default=None,
                   help="a positive number or 'auto' (default: the method's)")
    e.add_argument("--exaggeration", type=float, default=None)
    e.add_argument("--init", default=None,
                   choices=["spca", "pca", "random", "spectral", "laplacian", "power"],
                   help="initial layout (default: the method's)")
    e.add_argument("--random-state", type=int, default=None)
    e.add_argument("--threads", type=int, default=1, help="threads for --fast (-1: all)")
    e.add_argument("--out", default=None, help="write the coordinates to this CSV file")
    e.add_argument("--plot", default=None, help="write a PNG scatter plot to this file")
    e.add_argument("--quiet", action="store_true", help="no progress output")
    return parser


def _learning_rate(text):
    if text is None or text == "auto":
        return text
    try:
        return float(text)
    except ValueError:
        raise CLIError(f"--learning-rate must be a number or 'auto'; got {text!r}") from None


def run_embed(args):
    X, labels = load_input(args.input)
    result = embed(
        X, method=args.method, fast=args.fast, n_components=args.n_components,
        init=args.init, perplexity=args.perplexity,
        learning_rate=_learning_rate(args.learning_rate), n_iter=args.n_iter,
        optimizer=args.optimizer, n_epochs=args.n_epochs,
        exaggeration=args.exaggeration, random_state=args.random_state,
        n_threads=args.threads, verbose=not args.quiet, return_result=True,
    )
    if args.out:
        header = ",".join(f"y{k + 1}" for k in range(result.Y.shape[1]))
        np.savetxt(args.out, result.Y, delimiter=",", header=header, comments="", fmt="%.17g")
    if args.plot:
        from .plotting import save_plot
        title = f"{args.method} of {os.path.basename(args.input)} (cost {result.cost:.4g})"
        save_plot(result.Y, args.plot, labels=labels, title=title)
    if not args.quiet:
        print(f"smallvis: {args.method} finished in {result.elapsed:.2f}s, "
              f"cost {result.cost:.6g}"
              + (f"; coordinates -> {args.out}" if args.out else "")
              + (f"; plot -> {args.plot}" if args.plot else ""), file=sys.stderr)
    return 0


def main(argv=None):
    """Entry point of the ``smallvis`` command."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "embed":
            return run_embed(args)
    except (CLIError, ValueError, TypeError, FloatingPointError) as exc:
        print(f"smallvis: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("smallvis: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
