"""Reading the command line's input tables: built-in datasets, ``.npy`` and CSV-like text.

What :mod:`smallvis.cli` reads before any computation, checked so that a
column is never silently shifted or mis-assigned: the separator is chosen
by the most numeric cells (commas, tabs, semicolons or runs of spaces), a
header must name every column exactly once, a labels file's first line is a
header only when it cannot be a label, and ``smallvis transform`` matches a
new table's columns to the training columns by name
(:func:`columns_by_name`).  Every problem is a :class:`CLIError`: one line
naming the file, the line and what is wrong.
"""

import collections
import csv
import io
import os
import re
import shlex
import warnings
import zipfile

import numpy as np

from . import datasets
from .model_io.archive import NPY_MAGIC

#: Extensions accepted as input files: tables first, then arrays.
TABLE_FORMATS = (".csv", ".tsv", ".txt")
INPUT_FORMATS = TABLE_FORMATS + (".npy", ".npz")


class Loaded(collections.namedtuple("Loaded", "X labels feature_names row_ids")):
    """What :func:`load_input` read.

    Attributes
    ----------
    X : ndarray or sparse matrix
        The features.
    labels : ndarray or None
    feature_names : list of str or None
        The header's names of the columns of ``X``; None without a header.
    row_ids : RowIds or None
        The ``--id`` column, None without one.
    """


#: An identifier column: its name (the header's, or ``"id"`` without a
#: header) and one text cell per row, as written in the file.
RowIds = collections.namedtuple("RowIds", "name values")


class CLIError(Exception):
    """An input problem reported as one line and exit status 2."""


def _is_number(cell):
    try:
        float(cell)
    except ValueError:
        return False
    return True


#: Cell separators a table may use, in order of preference on a tie; a run
#: of spaces (NumPy's savetxt, R's write.table) is tried last.
DELIMITERS = (",", "\t", ";", " ")

#: Lines looked at to choose the separator.
_SNIFF_ROWS = 200


def _has_decimal_comma(cell):
    return re.fullmatch(r"[+-]?\d*,\d+([eE][+-]?\d+)?", cell.strip()) is not None


def _reads_as_number(cell):
    """A number with a '.' or a ',' decimal mark (only '.' is read, but a
    decimal comma still tells a data cell from a header name)."""
    return _is_number(cell) or _has_decimal_comma(cell)


def _read_text(path):
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
        return raw.decode("utf-8-sig")  # drops a byte-order mark (Excel writes one)
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise CLIError(f"cannot read {path!r}: line {line} is not UTF-8 text (byte "
                       f"{raw[exc.start]:#04x}); save the file as UTF-8 (Excel: 'CSV UTF-8'; "
                       f"R: fileEncoding='UTF-8')") from None
    except OSError as exc:
        raise CLIError(f"cannot read {path!r}: {exc}") from None


def _records(text, delimiter, strict=False):
    """A csv reader of ``text``; with spaces, a run of them is one separator.

    Spaces after a separator are skipped, so that a cell quoted after
    ``", "`` (``1.5, "type 2, large"``) is read as quoted, not split at its
    comma; the cells are stripped anyway.
    """
    if delimiter == " ":
        text = "\n".join(line.strip() for line in text.split("\n"))
    return csv.reader(io.StringIO(text, newline=""), delimiter=delimiter,
                      skipinitialspace=True, strict=strict)


def _is_blank(cells):
    """An empty or all-space line; a quoted empty cell (``""``) is not blank."""
    return not cells or (len(cells) == 1 and cells[0] != "" and not cells[0].strip())


def _split_score(text, delimiter):
    """How ``delimiter`` splits the rows of ``text`` (the first few hundred).

    Returns
    -------
    tuple of int
        ``(number cells, -cells per row, names)``: among the rows after the
        first (the header, if any), the cells that are numbers (by
        :func:`_reads_as_number`, so that a file with decimal commas splits
        at its semicolons and is refused for its decimals) and the most
        common number of cells in a row; and the cells of the first row.
        ``(0, 0, 0)`` if a quote is misplaced for this separator.
    """
    try:
        rows = [cells for cells in _records(text, delimiter, strict=True)
                if not _is_blank(cells)]
    except csv.Error:
        return 0, 0, 0
    if not rows:
        return 0, 0, 0
    data = rows[1:] or rows
    numbers = sum(_reads_as_number(c) for cells in data for c in cells)
    return numbers, -_common_width(data), len(rows[0])


def _delimiter(text):
    """The separator of a table, one of :data:`DELIMITERS`.

    The one that splits the data rows (the rows after the first, among the
    first few hundred) into the most cells that are numbers; on a tie, the
    fewest cells per row (spaces inside a text label do not split it), then
    the most names in the first row (so that a one-column table under a
    header of several names is refused, not read as one name holding
    separators; quote a name to keep a separator in it), then the first in
    :data:`DELIMITERS`.  A wrong choice never reads silently: a cell that
    still holds the real separator between two numbers is not a number.
    """
    lines = text.split("\n", _SNIFF_ROWS)
    sample = "\n".join(lines[:-1]) if len(lines) > _SNIFF_ROWS else text
    scores = [(_split_score(sample, d), -k) for k, d in enumerate(DELIMITERS)]
    return DELIMITERS[-max(scores)[1]]


def _refuse_backslash_quotes(path, text, delimiter):
    """Refuse a quote escaped by a backslash inside a cell (``"the \\"big\\" one"``).

    R's ``write.table`` escapes quotes so by default (``qmethod="escape"``);
    CSV doubles them (``""``), and read as CSV such a cell silently loses
    its quotes and gains text.  A backslash before a quote that ends a cell
    (a Windows folder, ``"C:\\data\\"``) is left alone.
    """
    ends = re.escape(delimiter) + r"\r\n"
    match = re.search(r'\\"(?=[^' + ends + "])", text)
    if match is not None:
        line = text.count("\n", 0, match.start()) + 1
        raise CLIError(f"{path!r}, line {line}: a quote escaped by a backslash (\\\") inside "
                       "a cell, as R's write.table writes by default; CSV doubles quotes "
                       "instead: write the file with write.csv, or write.table(..., "
                       "qmethod=\"double\")")


def _read_rows(path, delimiter=","):
    """Non-blank CSV rows of ``path`` as ``(line_number, cells)``, cells stripped.

    ``delimiter`` None: chosen by :func:`_delimiter`.
    """
    text = _read_text(path)
    delimiter = _delimiter(text) if delimiter is None else delimiter
    _refuse_backslash_quotes(path, text, delimiter)
    reader = _records(text, delimiter)
    rows = []
    try:
        for cells in reader:
            if not _is_blank(cells):  # a blank line is not a row
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
    return any(c and not _reads_as_number(c) and k < len(second)
               and _reads_as_number(second[k]) for k, c in enumerate(first))


def _looks_like_column_numbers(cells):
    """Whether the numbers in ``cells`` (at least 3) count 0, 1, 2, ... or 1, 2, 3, ...

    Text cells are skipped: pandas writes ``0,1,2,3,label`` over a frame
    with integer column names and a label column.
    """
    values = [float(c) for c in cells if _is_number(c)]
    k = len(values)
    return k >= 3 and values in (list(range(k)), list(range(1, k + 1)))


def _lacks_row_names_name(names, width):
    """Whether the header ``names`` over ``width`` data columns leaves the
    first (row names) unnamed: one name short, or an empty first name."""
    return len(names) == width - 1 or (len(names) == width and not names[0])


def _unused_name(name, names):
    """``name``, or ``name_1``, ``name_2``, ... the first not among ``names``."""
    k = 0
    candidate = name
    while candidate in names:
        k += 1
        candidate = f"{name}_{k}"
    return candidate


def _header_over_row_names(first, second):
    """Whether ``first`` (cells) is a header over row names: an empty corner
    over a non-empty first cell of ``second``, and names after it that are
    all text, or count the columns (pandas' integer column names).  A data
    row whose first identifier is empty has numbers there instead."""
    rest = first[1:]
    return (first[:1] == [""] and second[:1] != [""] and bool(rest)
            and (all(not _reads_as_number(c) for c in rest)
                 or _looks_like_column_numbers(rest)))


def _count(n, noun):
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _common_width(rows):
    """The number of cells most of ``rows`` (lists of cells) have; the first's on a tie."""
    return collections.Counter(len(cells) for cells in rows).most_common(1)[0][0]


def _check_header(path, line, names, width, row_names=False):
    """The header's names, or an error unless they name each of the ``width``
    data columns once.

    A header one name short is what R's ``write.table(df, sep=",")`` writes
    (no name over the row names); an empty first name is what ``write.csv``
    and pandas' ``to_csv`` write.  Either way, guessing which name belongs
    to which column could colour by, or learn from, the wrong column; so
    they are accepted only with ``row_names`` (``--id 1``: the first column
    holds the rows' names), and that column is then named ``"id"`` (or
    ``"id_1"``, ... if the header has an ``"id"`` already).
    """
    where = f"{path!r}, line {line}"
    if row_names and _lacks_row_names_name(names, width):
        rest = names[len(names) - width + 1:]
        names = [_unused_name("id", rest)] + rest
    if len(names) != width:
        hint = ""
        if len(names) == width - 1:
            hint = ("; R's write.table writes a header one name short when it writes "
                    "row names: pass --id 1 to keep them as the rows' identifiers, or "
                    "write the file with row.names=FALSE")
        raise CLIError(f"{where}: the header has {_count(len(names), 'name')} but the "
                       f"data rows have {_count(width, 'column')}; each column needs "
                       f"exactly one name (quote a name that holds a separator){hint}")
    for k, name in enumerate(names):
        if not name:
            hint = ""
            if k == 0:
                hint = ("; if it holds row names, pass --id 1 to keep them as the rows' "
                        "identifiers, or write the file without them (R: "
                        "write.csv(..., row.names=FALSE); pandas: to_csv(..., "
                        "index=False))")
            raise CLIError(f"{where}, column {k + 1}: the header gives this column no "
                           f"name{hint}")
    for k, name in enumerate(names):
        if name in names[:k]:
            raise CLIError(f"{where}: the header names columns {names.index(name) + 1} "
                           f"and {k + 1} both {name!r}; column names must be unique")
    return names


def _column_index(spec, names, width, path, option="--labels"):
    """Index of the column ``spec`` of ``option`` (a name, or a number counted from 1)."""
    if names is not None and spec in names:
        return names.index(spec)
    if re.fullmatch(r"[+-]?\d+", spec):
        number = int(spec)
        if number == 0 or abs(number) > width:
            raise CLIError(f"{option} {spec}: column numbers run from 1 to {width} "
                           f"(or -1 for the last) in {path!r}")
        return number - 1 if number > 0 else width + number
    return None


def number_type(texts):
    """``int`` or ``float``, the first that reads every one of ``texts``, or None."""
    for kind in (int, float):
        try:
            for text in texts:
                kind(text)
        except ValueError:
            continue
        return kind
    return None


#: A number written with a leading zero ("02139", "007", "-01"): a code
#: (postcode, identifier), whose zeros a conversion to a number would drop.
_LEADING_ZERO = re.compile(r"[+-]?0[0-9]")


def _typed_labels(cells, where):
    """Labels as int, float or str values (whichever fits all of them).

    Labels written as codes with leading zeros stay text: as numbers,
    "02139" and "2139" would become one class.
    """
    for k, c in enumerate(cells):
        if not c:
            raise CLIError(f"{where(k)}: empty label")
    if any(_LEADING_ZERO.match(c.strip()) for c in cells):
        return np.array(cells)
    kind = number_type(cells)
    return np.array(cells if kind is None else [kind(c) for c in cells])


def read_csv(path, header=None, labels=None, drop=(), row_ids=None):
    """Read a numeric table, optionally taking a label column out of it.

    The cells are separated by commas, tabs, semicolons or runs of spaces
    (see :func:`_delimiter`).

    Parameters
    ----------
    path : str
    header : bool or None
        True: the first row is a header; False: it is data; None (default):
        a header only if it has a non-empty, non-numeric cell where the next
        row has a number (a numeric first row such as ``1,2,3`` is data).
        A header must name every column exactly once.
    labels : str or None
        A column name (with a header) or number (1 = first, -1 = last) to use
        as labels instead of as a feature.
    drop : sequence of str
        Columns, by name or number as ``labels``, that are neither features
        nor labels (an identifier, a date): left out.
    row_ids : str or None
        A column, by name or number as ``labels``, that names the rows: not
        a feature, and returned as text.

    Returns
    -------
    X : ndarray of float64, shape (n_rows, n_columns)
    labels : ndarray or None
    label_found : bool
        Whether ``labels`` named a column (if not, it may be a file).
    feature_names : list of str or None
        The header's names of the columns of ``X``; None without a header.
    ids : RowIds or None
        The ``row_ids`` column; None without one.
    """
    rows = _read_rows(path, delimiter=None)
    if not rows:
        raise CLIError(f"{path!r} is empty")
    if not any(_reads_as_number(c) for _, cells in rows for c in cells):
        # no separator can be told from the others then, and the messages
        # about columns that would follow count the wrong columns
        line, cells = rows[min(1, len(rows) - 1)]
        raise CLIError(f"{path!r}: no cell reads as a number (line {line}: "
                       f"{_quoted(cells)}); the features must be written as numbers, "
                       "such as 1.5 or -2e3")
    # --id 1: the first column holds the rows' names, which R and pandas
    # write under an empty or missing header name
    row_names = row_ids is not None and row_ids.strip() == "1"
    guessed = header is None
    if guessed:
        # a column named by an option names it in a header (pandas writes
        # "sample,group,0,1,..." over text columns, which the guess misses)
        named = {spec for spec in (labels, row_ids, *drop)
                 if spec is not None and not re.fullmatch(r"[+-]?\d+", spec)}
        # and with --id 1, an empty first cell over the row names is the
        # corner of a header (R's write.csv, pandas' to_csv)
        corner = row_names and len(rows) > 1 and _header_over_row_names(rows[0][1], rows[1][1])
        header = _guess_header(rows) or bool(named & set(rows[0][1])) or corner
    names = rows[0][1] if header else None
    data = rows[1:] if header else rows
    if not data:
        raise CLIError(f"{path!r} has a header but no data rows")
    width = _common_width([cells for _, cells in data])
    for line, cells in data:
        if len(cells) != width:
            raise CLIError(f"{path!r}, line {line}: data row has {len(cells)} columns, "
                           f"expected {width} (as most rows have)")
    # the column that the header leaves unnamed is --id 1's, whatever the
    # other names are (pandas names a frame's columns 0, 1, 2, ...)
    unnamed_row_names = row_names and names is not None and _lacks_row_names_name(names, width)
    if names is not None:
        names = _check_header(path, rows[0][0], names, width, row_names=row_names)
    label_col = _column_index(labels, names, width, path) if labels is not None else None
    if labels is not None and label_col is None and not os.path.isfile(labels):
        columns = f" (columns: {_quoted(names, str)})" if names else ""
        raise CLIError(f"--labels {labels!r}: no column of that name or number{columns}, "
                       "and no such file")
    taken = {label_col: "--labels"} if label_col is not None else {}
    for option, specs in (("--id", [] if row_ids is None else [row_ids]), ("--drop", drop)):
        for spec in specs:
            k = 0 if option == "--id" and unnamed_row_names else \
                _column_index(spec, names, width, path, option=option)
            if k is None:
                columns = f" (columns: {_quoted(names, str)})" if names else ""
                raise CLIError(f"{option} {spec!r}: no column of that name or "
                               f"number{columns}")
            if taken.get(k, option) != option:
                raise CLIError(f"{option} {spec!r} is the {taken[k]} column")
            taken.setdefault(k, option)
    id_col = next((k for k, option in taken.items() if option == "--id"), None)
    keep = [k for k in range(width) if k not in taken]
    if not keep:
        what = {"--labels": "the labels", "--id": "the identifiers",
                "--drop": "the dropped columns"}
        raise CLIError(f"{path!r}: no feature columns left besides "
                       + " and ".join(w for o, w in what.items() if o in taken.values()))
    X = _features(path, data, keep, labels is not None, corner=names is None)
    _warn_of_row_numbers(path, X, keep, names, has_ids=row_ids is not None)
    if guessed and not header and _looks_like_column_numbers(rows[0][1]) and len(rows) > 1 \
            and not all(re.fullmatch(r"[+-]?\d+", c) for c in rows[1][1]):
        warnings.warn(f"{path!r}: the first row ({','.join(rows[0][1])}) is read as "
                      "data; if it is a header, pass --header", UserWarning)
    y = None
    if label_col is not None:
        lines = [line for line, _ in data]
        y = _typed_labels([cells[label_col] for _, cells in data],
                          lambda r: f"{path!r}, line {lines[r]}, column {label_col + 1}")
    feature_names = None if names is None else [names[k] for k in keep]
    ids = None
    if id_col is not None:
        ids = _row_ids(path, data, id_col, "id" if names is None else names[id_col],
                       first_line_guessed=guessed and not header)
    return X, y, label_col is not None, feature_names, ids


def _warn_of_row_numbers(path, X, keep, names, has_ids):
    """Warn of a feature column that counts the rows (0, 1, 2, ... or 1, 2, 3, ...).

    Such a column is almost always a row number that a spreadsheet or
    ``to_csv`` wrote, not a measurement; as a feature it stretches the map
    along the file's order.  Only a warning: a time step is a real feature.
    The advice names the column as the options read it (by its header name,
    which they look up before numbers), and offers ``--id`` only when no
    ``--id`` was given.
    """
    n = X.shape[0]
    if n < 10 or X.shape[1] < 2:
        return
    for j, k in enumerate(keep):
        column = X[:, j]
        if column[0] in (0.0, 1.0) and column[1] == column[0] + 1 \
                and np.array_equal(column, np.arange(n) + column[0]):
            spec = shlex.quote(str(k + 1) if names is None else names[k])
            where = "" if names is None else f" ({names[k]!r})"
            advice = (f"pass --drop {spec} to leave it out" if has_ids else
                      f"pass --id {spec} to keep it as their identifiers or --drop {spec} "
                      f"to leave it out")
            warnings.warn(f"{path!r}, column {k + 1}{where} counts the rows "
                          f"({column[0]:g}, {column[1]:g}, {column[2]:g}, ...) and is read as "
                          f"a feature; if it numbers the rows, {advice}", UserWarning)
            return


def _row_ids(path, data, column, name, first_line_guessed=False):
    """The ``--id`` column of the rows ``data``: empty cells are refused (a row
    that could not be joined back), and repeated ones warned of (a join that
    would match several rows).

    ``first_line_guessed``: the file's first line was guessed to be data (an
    empty first cell there may be a header's corner over numeric names).
    """
    values = [cells[column] for _, cells in data]
    first = {}
    repeated = []
    for r, ((line, _), value) in enumerate(zip(data, values)):
        if not value:
            hint = ("; if line 1 is a header, pass --header" if first_line_guessed and r == 0
                    else "")
            raise CLIError(f"{path!r}, line {line}, column {column + 1}: empty identifier "
                           f"(--id); every row needs one to be joined back by it{hint}")
        if value in first:
            repeated.append((value, first[value], line))
        first.setdefault(value, line)
    if repeated:
        value, line_a, line_b = repeated[0]
        more = f" ({_count(len(repeated), 'repeat')} in all)" if len(repeated) > 1 else ""
        warnings.warn(f"{path!r}: the --id column {name!r} names lines {line_a} and {line_b} "
                      f"both {value!r}{more}; a join by it matches several rows",
                      UserWarning)
    return RowIds(name, values)


#: How R, pandas and spreadsheets write a missing value that float() does not read.
_MISSING_MARKS = frozenset({"NA", "N/A", "n/a", "na", "NULL", "null", "None", "#N/A", "?", "-"})


def _features(path, data, keep, has_labels, corner):
    """The float64 matrix of the columns ``keep`` of the rows ``data``, or a
    :class:`CLIError` naming the first cell that is not a number.

    ``corner``: whether the first of ``data`` is the table's first row (then
    an empty first cell there may be the corner of a header over row names).
    """
    X = np.empty((len(data), len(keep)))
    for r, (line, cells) in enumerate(data):
        try:
            X[r] = np.array([cells[k] for k in keep], dtype=np.float64)
        except ValueError:
            k = next(k for k in keep if not _is_number(cells[k]))
            if cells[k] in _MISSING_MARKS:
                raise CLIError(f"{path!r}, line {line}, column {k + 1}: a missing value "
                               f"({cells[k]!r}); the features must all be known: drop or "
                               "fill the rows with missing values first") from None
            raise CLIError(f"{path!r}, line {line}, column {k + 1}: non-numeric value "
                           f"{cells[k]!r} ({'not a number' if cells[k] else 'an empty cell'}"
                           f"); every feature column must be numeric"
                           f"{_cell_hint(cells[k], k, corner and r == 0, has_labels)}"
                           ) from None
    if not np.isfinite(X).all():  # 'nan', 'inf' and numbers beyond float64 read as floats
        r, c = np.argwhere(~np.isfinite(X))[0]
        line, cells = data[r]
        k = keep[c]
        what = "a NaN" if np.isnan(X[r, c]) else "an infinite value"
        raise CLIError(f"{path!r}, line {line}, column {k + 1}: {what} ({cells[k]!r}); "
                       "the features must all be finite numbers: drop or fill those rows "
                       "first")
    return X


def _cell_hint(cell, column, first_row, has_labels):
    """What to do about a feature cell that is not a number."""
    if _has_decimal_comma(cell):
        return "; the decimal mark must be '.' (write the file with '.' decimals)"
    if not cell and column == 0 and first_row:
        return ("; an empty first cell may be the corner over row names that R's write.csv "
                "and pandas' to_csv write: pass --id 1 to keep them as the rows' "
                "identifiers, or write the file without row names (R: row.names=FALSE; "
                "pandas: index=False)")
    if cell and not has_labels:
        return ("; use --labels to take a label column out, --id for a column of "
                "identifiers (written with the coordinates), or --drop for one to leave "
                "out")
    if cell:
        return ("; use --id for a column of identifiers (written with the coordinates) "
                "or --drop for one to leave out")
    return ""


def _labels_header(cells, header):
    """Whether the first line of a labels file is a header.

    ``header`` True or False decides; None: only if the first line cannot be
    a label of the same kind as the others, i.e. it is not a number and all
    the others are.  A text first line over text labels is a label.
    """
    if header is not None:
        return header
    first, rest = cells[0], cells[1:]
    return bool(rest) and not _is_number(first) and all(_is_number(c) for c in rest)


def read_labels_file(path, n_rows, header=None):
    """One label per row of the data: a .npy vector, or a text file with one
    label per line and an optional header line.

    Parameters
    ----------
    path : str
    n_rows : int
        Rows of the data; the file must hold exactly this many labels.
    header : bool or None
        Whether the text file's first line is a header (``--labels-header``);
        None: see :func:`_labels_header`.  Never decided by the line count.
    """
    if path.lower().endswith(".npy"):
        try:
            y = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError) as exc:
            raise CLIError(f"cannot read labels {path!r}: {exc}") from None
        y = np.asarray(y)
        if y.ndim != 1:
            raise CLIError(f"labels {path!r} must be a 1-D array; got shape {y.shape}")
        first = None
    else:
        rows = _read_rows(path)
        if any(len(cells) != 1 for _, cells in rows):
            line = next(line for line, cells in rows if len(cells) != 1)
            raise CLIError(f"labels {path!r}, line {line}: expected one label per line")
        first = rows[0][1][0] if rows else None
        if rows and _labels_header([cells[0] for _, cells in rows], header):
            rows = rows[1:]
            first = None
        y = _typed_labels([cells[0] for _, cells in rows],
                          lambda r: f"labels {path!r}, line {rows[r][0]}")
    if len(y) != n_rows:
        hint = ""
        if first is not None and header is None and len(y) == n_rows + 1:
            hint = (f"; if its first line {first!r} is a header, pass --labels-header "
                    "(a first line is dropped by itself only when it is not a number "
                    "and all the others are)")
        raise CLIError(f"labels {path!r} has {len(y)} labels for {n_rows} data rows{hint}")
    return y


def load_input(source, header=None, labels=None, labels_header=None, drop=(), row_ids=None):
    """Load a dataset name, a .npy or .npz array, or a table.

    ``labels`` (a column name or number, or a file) takes a label column out
    of the features, or reads labels from a separate file (whose first line
    is a header as ``labels_header`` says, see :func:`read_labels_file`).
    Built-in datasets carry their own labels (a labels file replaces them).
    ``drop`` leaves columns of a table out, and ``row_ids`` takes a column
    of identifiers out (:func:`read_csv`); other inputs have no columns to
    drop or take.

    Returns
    -------
    Loaded
        ``(X, labels, feature_names, row_ids)``.
    """
    is_dataset = source in datasets.names() and not os.path.exists(source)
    if not is_dataset and not os.path.exists(source):
        raise CLIError(
            f"input {source!r} is neither an existing file nor a built-in dataset "
            f"({', '.join(datasets.names())})"
        )
    ext = os.path.splitext(source)[1].lower()
    if not is_dataset and ext not in INPUT_FORMATS:
        raise CLIError(f"input {source!r}: unsupported file type {ext!r}; use "
                       f"{', '.join(INPUT_FORMATS[:-1])} or {INPUT_FORMATS[-1]}")
    for option, given in (("--drop", drop), ("--id", row_ids)):
        if given and (is_dataset or ext not in TABLE_FORMATS):
            raise CLIError(f"{option} applies to a table ({', '.join(TABLE_FORMATS)}); "
                           f"{source!r} is "
                           f"{'a built-in dataset' if is_dataset else 'an array'}")
    found, names, ids = False, None, None
    if is_dataset:
        X, y = datasets.load(source)
    elif ext == ".npz":
        X, y = _load_sparse_npz(source), None
    elif ext == ".npy":
        X, y = _load_npy(source), None
        if labels is not None and X.ndim == 2 and re.fullmatch(r"[+-]?\d+", labels):
            k = _column_index(labels, None, X.shape[1], source)
            y, X, found = X[:, k], np.delete(X, k, axis=1), True
            if np.all(np.isfinite(y)) and np.all(y == np.round(y)):
                y = y.astype(np.int64)
    else:
        X, y, found, names, ids = read_csv(source, header=header, labels=labels, drop=drop,
                                           row_ids=row_ids)
    if labels is not None and not found:
        if not os.path.isfile(labels):
            where = "a built-in dataset has no label columns" if is_dataset else \
                "no column of that name or number"
            raise CLIError(f"--labels {labels!r}: {where}, and no such file")
        # X.shape[0]: a sparse matrix has no len()
        y = read_labels_file(labels, X.shape[0] if len(X.shape) else len(X),
                             header=labels_header)
    elif labels_header is not None:
        option = "--labels-header" if labels_header else "--no-labels-header"
        raise CLIError(f"{option} applies to a --labels FILE only (here "
                       f"{'no --labels' if labels is None else '--labels names a column'})")
    return Loaded(X, y, names, ids)


def _load_sparse_npz(source):
    """A sparse matrix written by ``scipy.sparse.save_npz`` (no pickles)."""
    import scipy.sparse as sp

    try:
        return sp.load_npz(source)
    except (OSError, ValueError, KeyError, EOFError) as exc:
        raise CLIError(f"cannot read {source!r} as a sparse matrix (a .npz input must be "
                       f"written by scipy.sparse.save_npz): {exc or type(exc).__name__}"
                       ) from None


def _load_npy(source):
    try:
        # our own handle: NumPy leaves its own open when a damaged zip fails
        with open(source, "rb") as handle:
            X = np.load(handle, allow_pickle=False)
            if not isinstance(X, np.ndarray):  # an .npz archive under a .npy name
                X.close()
                raise CLIError(f"cannot read {source!r} as a .npy array: it is an .npz "
                               "archive")
    # EOFError: empty/truncated file; BadZipFile: a damaged zip, which NumPy takes for .npz
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise CLIError(f"cannot read {source!r} as a .npy array: "
                       f"{_npy_problem(source, exc)}") from None
    return X


def _npy_problem(source, exc):
    """Why ``np.load`` refused ``source``, in a command-line user's terms.

    NumPy reads any file that is not a .npy file (nor a zip) as a pickle
    and then advises ``allow_pickle=``, which the command line does not
    offer (and a pickle may run code, so it reads none).
    """
    if "Object arrays" in str(exc):
        return ("it holds Python objects, which are read only by unpickling, and that can "
                "run code; save a numeric array")
    try:
        with open(source, "rb") as handle:
            head = handle.read(len(NPY_MAGIC))
    except OSError:
        return str(exc) or type(exc).__name__
    if head == NPY_MAGIC:
        return str(exc) or type(exc).__name__
    if NPY_MAGIC.startswith(head):
        return "the file ends before the header of a .npy file"
    return ("it is not a .npy file (which np.save writes, beginning with the bytes "
            "\\x93NUMPY)")


#: Most column names a message lists in full; a longer list (a table of
#: hundreds of columns) shows its first and last few.
_MAX_LISTED = 12


def _quoted(names, quote=repr):
    """``names`` as a message lists them: each quoted, long lists shortened."""
    shown = [quote(str(n)) for n in names]
    if len(shown) > _MAX_LISTED:
        shown = shown[:8] + [f"... ({len(shown) - 10} more)"] + shown[-2:]
    return ", ".join(shown)


def columns_by_name(X, names, fitted_names, source):
    """The columns of ``X`` in the order of the model's training columns.

    Parameters
    ----------
    X : ndarray of shape (n_new, n_columns)
    names : list of str or None
        The header of ``source`` (its columns' names), None without one.
    fitted_names : sequence of str or None
        The model's ``feature_names_in_``: the training table's header or
        DataFrame columns; None if it had none.
    source : str
        The new data's path, for the messages.

    Returns
    -------
    ndarray
        With both names, ``X``'s columns reordered to the training order.
        With names on one side only, ``X`` itself: its columns are taken by
        position (the model checks their number), with a warning saying so
        when that number is the model's.

    Raises
    ------
    CLIError
        Names on both sides that are not the same set: a training column is
        missing, or ``source`` has a column the training data had not.
    """
    if names is None or fitted_names is None:
        # a count that differs is the model's error to raise, with no warning first
        if fitted_names is not None and X.shape[1] == len(fitted_names):
            warnings.warn(f"{source!r} has no column names (no header): its {X.shape[1]} "
                          f"columns are taken by position as the model's columns "
                          f"{_quoted(fitted_names)}", UserWarning)
        elif names is not None:
            warnings.warn(f"the model has no column names (its training data had no "
                          f"header): the columns of {source!r} ({_quoted(names)}) are "
                          "taken by position", UserWarning)
        return X
    fitted_names = [str(n) for n in fitted_names]
    if len(set(fitted_names)) != len(fitted_names):
        raise CLIError(f"the model's column names repeat a name ({_quoted(fitted_names)}), "
                       f"so the columns of {source!r} cannot be matched by name; write it "
                       "without a header to take its columns by position")
    missing = [n for n in fitted_names if n not in names]
    extra = [n for n in names if n not in fitted_names]
    if missing or extra:
        parts = ([f"missing: {_quoted(missing)}"] if missing else []) + \
                ([f"not in the training data: {_quoted(extra)}"] if extra else [])
        hint = ("; take a label column out with --labels NAME, or leave a column out with "
                "--drop NAME") if extra and not missing else ""
        raise CLIError(f"{source!r}: the columns do not match the model's "
                       f"({'; '.join(parts)}); the model was fitted on the columns "
                       f"{_quoted(fitted_names)}{hint}")
    return X[:, [names.index(n) for n in fitted_names]]
