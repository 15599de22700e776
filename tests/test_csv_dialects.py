"""Property tests of the command line's table reader.

Hypothesis writes tables with Python's own :mod:`csv` writer in many
dialects (separators, quoting, CRLF or LF, a byte-order mark, a trailing
newline or not, blank lines, padding, numbers in many spellings, a header
or not, a label column anywhere) and checks the promises:

- a well-formed table reads to exactly the numbers written, as Python's
  ``float`` reads each spelling;
- ``smallvis transform`` matches reordered named columns by name: the
  placement is the one of the columns in the training order;
- a malformed or ambiguous table (a header naming too few or too many
  columns, an unnamed or repeated name, a ragged row, a text cell in a
  feature column, a labels file with an extra line) is one error line, exit
  status 2, naming the file and the line; never a shifted column.

The default run takes a few seconds; ``SMALLVIS_LONG_TESTS=1`` tries many
more tables.
"""

import csv
import io
import math
import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import smallvis
from smallvis._tables import CLIError
from smallvis.cli import load_input, main

LONG = os.environ.get("SMALLVIS_LONG_TESTS", "") not in ("", "0")

SETTINGS = settings(max_examples=600 if LONG else 30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

# ---------------------------------------------------------------------------
# tables, written by the csv module
# ---------------------------------------------------------------------------

FINITE = st.floats(allow_nan=False, allow_infinity=False, width=64)
VALUES = st.one_of(FINITE, st.integers(-10**6, 10**6).map(float),
                   st.sampled_from([0.0, -0.0, 0.5, -0.001, 1e-300, 5e-324, 1e300,
                                    math.inf, -math.inf, math.nan]))


@st.composite
def spellings(draw, value):
    """A text that Python's float reads as ``value`` (or near it, for %e)."""
    if math.isnan(value):
        return draw(st.sampled_from(["nan", "NaN", "NAN", "+nan"]))
    if math.isinf(value):
        sign = "-" if value < 0 else draw(st.sampled_from(["", "+"]))
        return sign + draw(st.sampled_from(["inf", "Inf", "INF", "infinity", "Infinity"]))
    forms = [repr(value), f"{value:.17g}", f"{value:.3e}", f"{value:.6E}", f"{value:+.17g}"]
    if value == int(value) and abs(value) < 1e15:
        forms += [str(int(value)), f"{value:.1f}", f"{int(value)}."]
        if value == 0:
            forms += ["-0" if math.copysign(1, value) < 0 else "0"]
    text = repr(value)
    if text.startswith(("0.", "-0.")) and "e" not in text:
        forms.append(text.replace("0.", ".", 1))  # .5, -.001
    return draw(st.sampled_from(forms))


NAME_CHARS = st.characters(codec="utf-8", categories=["L", "N", "Pc", "Pd"],
                           include_characters=" .,;\t\"'()#")


def _is_float(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


NAMES = st.text(NAME_CHARS, min_size=1, max_size=8).map(str.strip).filter(
    lambda t: t and not _is_float(t) and "\t" not in t and "\n" not in t)
LABELS = st.text(st.characters(categories=["L"]), min_size=1, max_size=5).map(
    lambda t: "k" + t)  # text that no float parser reads as a number


@st.composite
def dialects(draw):
    return {
        "delimiter": draw(st.sampled_from([",", "\t", ";", " "])),
        "quoting": draw(st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL])),
        "newline": draw(st.sampled_from(["\n", "\r\n"])),
        "bom": draw(st.booleans()),
        "trailing_newline": draw(st.booleans()),
        "pad": draw(st.sampled_from(["", " ", "  "])),
    }


@st.composite
def tables(draw, min_rows=2):
    """(cells, expected X, names or None, label column or None, labels, dialect)."""
    n = draw(st.integers(min_rows, 7))
    d = draw(st.integers(1, 4))
    spelled = [[draw(spellings(draw(VALUES))) for _ in range(d)] for _ in range(n)]
    header = draw(st.booleans())
    label_at = draw(st.none() | st.integers(0, d))
    names = draw(st.lists(NAMES, min_size=d + (label_at is not None),
                          max_size=d + (label_at is not None), unique=True)) \
        if header else None
    labels = [draw(LABELS) for _ in range(n)] if label_at is not None else None
    rows = [list(r) for r in spelled]
    if labels is not None:
        for row, label in zip(rows, labels):
            row.insert(label_at, label)
    expected = np.array([[float(c) for c in r] for r in spelled], dtype=np.float64)
    return rows, expected, names, label_at, labels, draw(dialects()), draw(st.randoms())


def write_table(path, rows, names, dialect, rnd):
    """Write with the csv module, then add the dialect's extras around it."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=dialect["delimiter"], quoting=dialect["quoting"],
                        lineterminator=dialect["newline"])
    pad = dialect["pad"]
    body = ([names] if names is not None else []) + [[pad + c + pad for c in r] for r in rows]
    lines = []
    for cells in body:
        writer.writerow(cells)
        lines.append(out.getvalue())
        out.seek(0)
        out.truncate()
        if rnd.random() < 0.2:
            lines.append(dialect["newline"])  # a blank line
    text = "".join(lines)
    if not dialect["trailing_newline"]:
        text = text.rstrip("\r\n")
    data = text.encode("utf-8")
    with open(path, "wb") as fh:
        fh.write((b"\xef\xbb\xbf" if dialect["bom"] else b"") + data)


def _same_numbers(got, expected):
    assert got.shape == expected.shape and got.dtype == np.float64
    np.testing.assert_array_equal(got, expected)
    finite = np.isfinite(expected)
    assert np.array_equal(np.signbit(got[finite]), np.signbit(expected[finite]))


@SETTINGS
@given(table=tables())
def test_a_well_formed_table_reads_to_the_numbers_written(tmp_path, table):
    rows, expected, names, label_at, labels, dialect, rnd = table
    path = str(tmp_path / "t.csv")
    write_table(path, rows, names, dialect, rnd)
    spec = None
    if label_at is not None:
        width = expected.shape[1] + 1
        spec = names[label_at] if names is not None and rnd.random() < 0.5 else \
            str(label_at + 1 if rnd.random() < 0.5 else label_at - width)
    bad = np.argwhere(~np.isfinite(expected))
    if len(bad):  # nan, inf, or a number beyond float64 as %e spells it
        r, c = bad[0]
        column = c + 1 if label_at is None or c < label_at else c + 2
        cell = rows[r][column - 1]
        what = "a NaN" if np.isnan(expected[r, c]) else "an infinite value"
        with pytest.raises(CLIError, match=re.escape(f"column {column}: {what} ({cell!r})")):
            load_input(path, labels=spec)
        return
    X, y, feature_names, _ = load_input(path, labels=spec)
    _same_numbers(X, expected)
    if labels is None:
        assert y is None
    else:
        assert list(y) == labels
    if names is None:
        assert feature_names is None
    else:
        assert feature_names == [c for k, c in enumerate(names) if k != label_at]


# ---------------------------------------------------------------------------
# transform: reordered named columns
# ---------------------------------------------------------------------------

TRAIN_NAMES = ["alpha", "beta", "gamma", "delta"]


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("model")
    X, _ = smallvis.datasets.load("iris")
    X = X[np.random.default_rng(2).permutation(len(X))]
    train = folder / "train.csv"
    train.write_text(",".join(TRAIN_NAMES) + "\n" +
                     "\n".join(",".join(repr(float(v)) for v in row) for row in X[:100]) + "\n")
    model_path = str(folder / "m.npz")
    assert main(["embed", str(train), "--method", "umap", "--fast", "--n-iter", "50",
                 "--random-state", "0", "--quiet", "--save-model", model_path]) == 0
    return model_path, smallvis.load_model(model_path), X[100:]


@SETTINGS
@given(order=st.permutations(range(4)), rows=st.lists(st.integers(0, 49), min_size=1,
                                                       max_size=6, unique=True),
       dialect=dialects(), rnd=st.randoms())
@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_transform_places_reordered_named_columns_as_in_training_order(
        tmp_path, fitted, order, rows, dialect, rnd):
    model_path, model, X_new = fitted
    X_new = X_new[rows]
    path = str(tmp_path / "new.csv")
    write_table(path, [[repr(float(v)) for v in r] for r in X_new[:, order]],
                [TRAIN_NAMES[k] for k in order], dialect, rnd)
    out = str(tmp_path / "placed.npy")
    assert main(["transform", path, "--model", model_path, "--out", out, "--quiet"]) == 0
    np.testing.assert_array_equal(np.load(out), model.transform(X_new))


# ---------------------------------------------------------------------------
# malformed tables: one line, exit 2, the file and the line
# ---------------------------------------------------------------------------


def _refused(capsys, path, line):
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("smallvis: error:"), err
    assert repr(path) in err and f"line {line}" in err, err
    return err


@st.composite
def broken_tables(draw):
    """A well-formed table with one defect.

    (rows, names, label column, dialect, rnd, row of the defect, kind)
    """
    rows, _, names, label_at, _, dialect, rnd = draw(tables(min_rows=3))
    kind = draw(st.sampled_from(["short header", "long header", "empty name",
                                 "repeated name", "ragged row", "text cell"]))
    if kind.endswith(("header", "name")) and names is None:
        names = [f"c{k}" for k in range(len(rows[0]))]
    width = len(rows[0])
    bad_line = 1
    if kind == "short header":
        if width == 1:
            rows, width = [r + ["1"] for r in rows], 2
        names = names[:draw(st.integers(1, width - 1))]
    elif kind == "long header":
        names = names + [f"{names[-1]}_extra{k}" for k in range(draw(st.integers(1, 2)))]
    elif kind == "empty name":
        names = list(names)
        names[draw(st.integers(0, width - 1))] = ""
    elif kind == "repeated name":
        if width == 1:
            rows = [r + ["2"] for r in rows]
            names = names + [names[0]]
        else:
            names = list(names)
            k = draw(st.integers(1, width - 1))
            names[k] = names[draw(st.integers(0, k - 1))]
    else:
        r = draw(st.integers(0, len(rows) - 1))
        rows = [list(row) for row in rows]
        if kind == "ragged row":
            rows[r] = rows[r] + ["3"] if width == 1 or draw(st.booleans()) else rows[r][:-1]
        else:
            feature = [k for k in range(width) if k != label_at]
            rows[r][draw(st.sampled_from(feature))] = draw(st.sampled_from(
                ["x", "NA", "1,5", "--", "1e", "0x10", "N/A"]))
        bad_line = r + 1 + (names is not None)
    return rows, names, label_at, dialect, rnd, bad_line, kind


def _physical_line(path, record):
    """The line number where the ``record``-th non-blank row of ``path`` starts."""
    text = open(path, encoding="utf-8-sig", newline="").read().replace("\r\n", "\n")
    seen = 0
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            seen += 1
            if seen == record:
                return number
    raise AssertionError("no such row")


@SETTINGS
@given(case=broken_tables())
def test_a_malformed_table_is_one_error_naming_file_and_line(tmp_path, capsys, case):
    rows, names, label_at, dialect, rnd, bad_record, kind = case
    path = str(tmp_path / "bad.csv")
    write_table(path, rows, names, dialect, rnd)
    labels = [] if label_at is None else ["--labels", str(label_at + 1)]
    assert main(["embed", path, "--header" if names is not None else "--no-header",
                 *labels, "--quiet", "--n-iter", "5"]) == 2
    _refused(capsys, path, _physical_line(path, bad_record))


@SETTINGS
@given(n=st.integers(2, 30), extra=st.sampled_from(["0", "7", "-1", "2.5", "1e3", "nan"]),
       newline=st.sampled_from(["\n", "\r\n"]), rnd=st.randoms())
def test_a_labels_file_with_an_extra_number_is_refused(tmp_path, capsys, n, extra,
                                                       newline, rnd):
    np.save(tmp_path / "x.npy", np.random.default_rng(n).normal(size=(n, 2)))
    labels = [str(rnd.randint(0, 3)) for _ in range(n)]
    path = str(tmp_path / "y.txt")
    with open(path, "w", newline="") as fh:
        fh.write(newline.join([extra] + labels) + newline)
    assert main(["embed", str(tmp_path / "x.npy"), "--labels", path, "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and repr(path) in err, err
    assert f"{n + 1} labels for {n} data rows" in err, err
