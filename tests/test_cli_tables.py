"""Table headers, labels files and column names on the command line.

A header must name every column exactly once, a labels file's first line
is dropped only when it cannot be a label, and ``smallvis transform``
matches NEW's columns to the training columns by name.
"""

import numpy as np
import pytest

import smallvis
import smallvis.cli as cli
import smallvis.plotting as plotting
from smallvis.cli import main

from conftest import one_error_line

# the tests compare the command line with model.transform of a bare array
pytestmark = pytest.mark.filterwarnings("ignore:X does not have valid feature names")

NAMES = ["sepal_length", "sepal_width", "petal_length", "petal_width"]
RUN = ["--method", "umap", "--fast", "--n-iter", "60", "--random-state", "0", "--quiet"]


@pytest.fixture
def iris(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    X, y = smallvis.datasets.load("iris")
    order = np.random.default_rng(1).permutation(len(X))
    return X[order], y[order]


@pytest.fixture
def seen(monkeypatch):
    """What the command line hands to embed() and to the plot."""
    record = {}
    real_embed, real_save, real_plot = cli.embed, plotting.save_plot, plotting.plot

    def embed(X, **kwargs):
        record["X"] = np.array(X)
        return real_embed(X, **kwargs)

    def save_plot(Y, fh, labels=None, **kwargs):
        record["labels"] = labels
        return real_save(Y, fh, labels=labels, **kwargs)

    def plot(Y, labels=None, **kwargs):  # the new points of transform's plot
        record["labels"] = labels
        return real_plot(Y, labels=labels, **kwargs)

    monkeypatch.setattr(cli, "embed", embed)
    monkeypatch.setattr(plotting, "save_plot", save_plot)
    monkeypatch.setattr(plotting, "plot", plot)
    return record


def _write(path, header, rows):
    """A CSV written cell by cell (the test's own writer, not the package's)."""
    lines = [] if header is None else [",".join(header)]
    lines += [",".join(str(c) for c in row) for row in rows]
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


def _numbers(X):
    return [[repr(float(v)) for v in row] for row in X]



def _warnings(capsys):
    return [line for line in capsys.readouterr().err.splitlines()
            if line.startswith("smallvis: warning:")]


# ---------------------------------------------------------------------------
# headers that do not name every column exactly once
# ---------------------------------------------------------------------------


def _r_write_table(path, X, classes, *, empty_corner):
    """What R writes: row names first; write.csv puts "" over them, write.table nothing."""
    header = ['""'] if empty_corner else []
    header += [f'"{n}"' for n in NAMES + ["class"]]
    rows = [[f'"{i + 1}"', *(repr(float(v)) for v in x), f'"{c}"']
            for i, (x, c) in enumerate(zip(X, classes))]
    _write(path, header, rows)


@pytest.mark.parametrize("labels", [None, "class", "-1"])
def test_r_write_table_header_one_name_short_is_refused(iris, capsys, seen, labels):
    X, y = iris
    _r_write_table("r.csv", X, np.array(["a", "b", "c"])[y], empty_corner=False)
    extra = [] if labels is None else ["--labels", labels, "--plot", "r.png"]
    assert main(["embed", "r.csv", *RUN, *extra]) == 2
    one_error_line(capsys, "'r.csv'", "line 1", "5 names", "6 columns", "row.names=FALSE")
    assert "X" not in seen


@pytest.mark.parametrize("header,width", [
    (["id", "a", "b", "c", "d"], 3),      # one name too many
    (["a", "b", "c", "d", "e", "f"], 4),  # two too many
    (["a", "b"], 4),                      # two too few
])
def test_header_and_data_widths_must_agree(iris, capsys, seen, header, width):
    X, _ = iris
    _write("x.csv", header, _numbers(X[:, :width]))
    assert main(["embed", "x.csv", *RUN]) == 2
    one_error_line(capsys, "'x.csv'", "line 1", f"{len(header)} names", f"{width} columns")
    assert "X" not in seen


@pytest.mark.parametrize("writer", ["r_write_csv", "pandas_to_csv"])
def test_unnamed_row_name_column_is_refused(iris, capsys, seen, writer):
    """R's write.csv and pandas' to_csv put row names under an empty first name."""
    X, y = iris
    if writer == "r_write_csv":
        _r_write_table("r.csv", X, y, empty_corner=True)
        fix = "row.names=FALSE"
    else:
        _write("r.csv", [""] + NAMES, [[i, *row] for i, row in enumerate(_numbers(X))])
        fix = "index=False"
    assert main(["embed", "r.csv", *RUN]) == 2
    one_error_line(capsys, "'r.csv'", "line 1", "column 1", "no name", fix)
    assert "X" not in seen


def test_duplicate_column_names_are_refused(iris, capsys, seen):
    X, _ = iris
    _write("x.csv", ["a", "b", "a", "c"], _numbers(X))
    for extra in ([], ["--labels", "a"]):
        assert main(["embed", "x.csv", *RUN, *extra]) == 2
        one_error_line(capsys, "'x.csv'", "line 1", "'a'", "columns 1 and 3")
    assert "X" not in seen


def test_header_naming_every_column_is_read(iris, seen):
    X, y = iris
    _write("x.csv", NAMES + ["class"], [[*row, c] for row, c in zip(_numbers(X), y)])
    assert main(["embed", "x.csv", *RUN, "--labels", "class", "--plot", "x.png"]) == 0
    np.testing.assert_array_equal(seen["X"], X)
    np.testing.assert_array_equal(seen["labels"], y)


def test_labels_written_with_leading_zeros_stay_text(iris, seen):
    """Postcodes: as numbers, "02139" and "2139" would be one class."""
    X, y = iris
    codes = np.where(y == 0, "02139", np.where(y == 1, "2139", "00501"))
    _write("x.csv", NAMES + ["zip"], [[*row, c] for row, c in zip(_numbers(X), codes)])
    assert main(["embed", "x.csv", *RUN, "--labels", "zip", "--plot", "x.png"]) == 0
    np.testing.assert_array_equal(seen["labels"], codes)
    plain = np.where(y == 0, "0", np.where(y == 1, "10", "0.5"))  # no leading zero: numbers
    _write("y.csv", NAMES + ["n"], [[*row, c] for row, c in zip(_numbers(X), plain)])
    assert main(["embed", "y.csv", *RUN, "--labels", "n", "--plot", "y.png"]) == 0
    assert seen["labels"].dtype.kind == "f"


# ---------------------------------------------------------------------------
# labels files: the first line is a header only if it cannot be a label
# ---------------------------------------------------------------------------


def _labels_file(path, lines):
    with open(path, "w") as fh:
        fh.write("\n".join(str(v) for v in lines) + "\n")


@pytest.mark.parametrize("extra", ["7", "0.5", "-1e3"])
def test_labels_file_with_one_extra_number_is_refused(iris, capsys, seen, extra):
    X, y = iris
    np.save("x.npy", X)
    _labels_file("y.txt", [extra, *y])
    assert main(["embed", "x.npy", *RUN, "--labels", "y.txt", "--plot", "x.png"]) == 2
    one_error_line(capsys, "'y.txt'", "151 labels for 150 data rows")
    assert "X" not in seen


@pytest.mark.parametrize("header", ["class", "group id", "NA"])
def test_text_first_line_over_numbers_is_a_header(iris, seen, header):
    X, y = iris
    np.save("x.npy", X)
    _labels_file("y.txt", [header, *y])
    assert main(["embed", "x.npy", *RUN, "--labels", "y.txt", "--plot", "x.png"]) == 0
    np.testing.assert_array_equal(seen["labels"], y)


def test_text_first_line_over_text_labels_needs_labels_header(iris, capsys, seen):
    X, y = iris
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    np.save("x.npy", X)
    _labels_file("y.txt", ["species", *names])
    assert main(["embed", "x.npy", *RUN, "--labels", "y.txt", "--plot", "x.png"]) == 2
    one_error_line(capsys, "'y.txt'", "151 labels for 150 data rows", "--labels-header")
    assert "X" not in seen
    assert main(["embed", "x.npy", *RUN, "--labels", "y.txt", "--labels-header",
                 "--plot", "x.png"]) == 0
    assert list(seen["labels"]) == list(names)


def test_no_labels_header_keeps_the_first_line(iris, capsys, seen):
    X, y = iris
    np.save("x.npy", X)
    _labels_file("y.txt", ["group", *y[1:]])  # 150 lines, the first one text
    assert main(["embed", "x.npy", *RUN, "--labels", "y.txt", "--no-labels-header",
                 "--plot", "x.png"]) == 0
    assert list(seen["labels"]) == ["group", *map(str, y[1:])]
    # by default the same file is a header over 149 labels: refused
    assert main(["embed", "x.npy", *RUN, "--labels", "y.txt", "--plot", "x.png"]) == 2
    one_error_line(capsys, "149 labels for 150 data rows")


# ---------------------------------------------------------------------------
# transform: NEW's columns matched to the training columns by name
# ---------------------------------------------------------------------------


@pytest.fixture
def named_model(iris):
    X, y = iris
    _write("train.csv", NAMES, _numbers(X[:120]))
    assert main(["embed", "train.csv", *RUN, "--save-model", "m.npz"]) == 0
    return smallvis.load_model("m.npz"), X[120:], y[120:]


def _placed(args):
    assert main(["transform", *args, "--model", "m.npz", "--out", "placed.csv",
                 "--quiet"]) == 0
    return np.loadtxt("placed.csv", delimiter=",", skiprows=1)


@pytest.mark.parametrize("order", [[2, 1, 0, 3], [3, 2, 1, 0], [1, 3, 0, 2]])
def test_transform_matches_reordered_columns_by_name(named_model, order):
    model, X_new, _ = named_model
    assert list(model.feature_names_in_) == NAMES
    _write("new.csv", [NAMES[k] for k in order], _numbers(X_new[:, order]))
    # the placement of the columns in the training order, by the Python API
    np.testing.assert_array_equal(_placed(["new.csv"]), model.transform(X_new))


def test_transform_takes_the_label_column_out_before_matching(named_model, seen):
    model, X_new, y_new = named_model
    header = ["class", NAMES[3], NAMES[0], NAMES[2], NAMES[1]]
    rows = [[c, *row] for c, row in zip(y_new, _numbers(X_new[:, [3, 0, 2, 1]]))]
    _write("new.csv", header, rows)
    assert main(["transform", "new.csv", "--labels", "class", "--model", "m.npz",
                 "--out", "placed.csv", "--plot", "placed.png", "--quiet"]) == 0
    np.testing.assert_array_equal(np.loadtxt("placed.csv", delimiter=",", skiprows=1),
                                  model.transform(X_new))
    np.testing.assert_array_equal(seen["labels"], y_new)


@pytest.mark.parametrize("header,needles", [
    (NAMES[:3] + ["colour"], ["missing: 'petal_width'", "not in the training data: 'colour'"]),
    (NAMES + ["class"], ["not in the training data: 'class'", "--labels"]),
    (NAMES[:3], ["missing: 'petal_width'"]),
])
def test_transform_refuses_columns_that_do_not_match(named_model, capsys, header, needles):
    _, X_new, y_new = named_model
    rows = [[*row, c][:len(header)] for row, c in zip(_numbers(X_new), y_new)]
    _write("new.csv", header, rows)
    assert main(["transform", "new.csv", "--model", "m.npz", "--out", "placed.csv"]) == 2
    one_error_line(capsys, "'new.csv'", *needles)


def test_transform_without_header_goes_by_position_and_says_so(named_model, capsys):
    model, X_new, _ = named_model
    _write("new.csv", None, _numbers(X_new))
    np.testing.assert_array_equal(_placed(["new.csv"]), model.transform(X_new))
    warned = _warnings(capsys)
    assert len(warned) == 1 and "by position" in warned[0] and NAMES[0] in warned[0]


def test_transform_with_model_fitted_on_a_dataframe(iris):
    pd = pytest.importorskip("pandas")
    X, _ = iris
    frame = pd.DataFrame(X[:120], columns=NAMES)
    model = smallvis.Embedding("umap", n_iter=60, random_state=0).fit(frame)
    smallvis.save_model(model, "m.npz")
    order = [3, 1, 2, 0]
    _write("new.csv", [NAMES[k] for k in order], _numbers(X[120:, order]))
    np.testing.assert_array_equal(_placed(["new.csv"]), model.transform(
        pd.DataFrame(X[120:], columns=NAMES)))


def test_a_headerless_table_of_the_wrong_width_gets_the_error_alone(named_model, capsys):
    """No "taken by position" warning before the error that the widths differ."""
    _, X_new, _ = named_model
    _write("wide.csv", None, _numbers(np.hstack([X_new, X_new])))
    assert main(["transform", "wide.csv", "--model", "m.npz", "--out", "placed.csv"]) == 2
    err = capsys.readouterr().err
    assert "by position" not in err and "column" in err


def test_model_without_names_takes_a_header_by_position(iris, capsys):
    X, _ = iris
    np.save("train.npy", X[:120])
    assert main(["embed", "train.npy", *RUN, "--save-model", "m.npz"]) == 0
    model = smallvis.load_model("m.npz")
    assert getattr(model, "feature_names_in_", None) is None
    _write("new.csv", ["d", "c", "b", "a"], _numbers(X[120:]))
    assert main(["transform", "new.csv", "--model", "m.npz", "--out", "placed.csv"]) == 0
    np.testing.assert_array_equal(np.loadtxt("placed.csv", delimiter=",", skiprows=1),
                                  model.transform(X[120:]))
    warned = _warnings(capsys)
    assert len(warned) == 1 and "by position" in warned[0]


# ---------------------------------------------------------------------------
# separators
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("delimiter", [",", "\t", ";", " "])
@pytest.mark.parametrize("header", [None, "a{0}b{0}c{0}d"])
def test_tables_separated_by_commas_tabs_semicolons_or_spaces(iris, delimiter, header):
    X, _ = iris
    names = header.format(delimiter) if header else ""
    np.savetxt("x.txt", X, delimiter=delimiter, fmt="%.17g", header=names, comments="")
    got, labels, feature_names, _ = cli.load_input("x.txt")
    np.testing.assert_array_equal(got, X)
    assert feature_names == (["a", "b", "c", "d"] if header else None)


def test_decimal_commas_are_refused_with_the_reason(iris, capsys, seen):
    with open("x.csv", "w") as fh:
        fh.write("a;b\n1,5;2,25\n3,5;4\n-0,5;1e3\n")
    assert main(["embed", "x.csv", *RUN]) == 2
    one_error_line(capsys, "'x.csv', line 2, column 1", "'1,5'", "decimal mark must be '.'")
    assert "X" not in seen


# ---------------------------------------------------------------------------
# pandas' to_csv of a frame with integer column names
# ---------------------------------------------------------------------------


def test_integer_column_names_over_a_label_column_are_not_read_silently(iris, capsys,
                                                                        seen):
    """DataFrame(X).assign(label=y).to_csv(index=False): the header cannot be
    told from data by its cells, so it is read as data with a warning."""
    X, y = iris
    _write("x.csv", ["0", "1", "2", "3", "label"],
           [[*row, f"k{c}"] for row, c in zip(_numbers(X), y)])
    assert main(["embed", "x.csv", *RUN, "--labels", "-1", "--plot", "x.png"]) == 0
    warned = _warnings(capsys)
    assert len(warned) == 1 and "read as data" in warned[0] and "--header" in warned[0]
    assert main(["embed", "x.csv", *RUN, "--labels", "label", "--header",
                 "--plot", "x.png"]) == 0
    np.testing.assert_array_equal(seen["X"], X)
    assert list(seen["labels"]) == [f"k{c}" for c in y]


def test_pandas_index_under_an_unnamed_header_is_refused_with_the_reason(iris, capsys,
                                                                         seen):
    """DataFrame(X).to_csv(): ',0,1,2,3' over '0,5.1,...'."""
    X, _ = iris
    _write("x.csv", ["", "0", "1", "2", "3"], [[i, *row] for i, row in enumerate(_numbers(X))])
    assert main(["embed", "x.csv", *RUN]) == 2
    one_error_line(capsys, "'x.csv', line 1, column 1", "index=False", "row.names=FALSE")
    assert "X" not in seen


def test_labels_header_without_a_labels_file_is_refused(iris, capsys, seen):
    X, y = iris
    _write("x.csv", NAMES + ["class"], [[*row, c] for row, c in zip(_numbers(X), y)])
    for extra in (["--labels", "class"], []):
        assert main(["embed", "x.csv", *RUN, *extra, "--labels-header"]) == 2
        one_error_line(capsys, "--labels-header", "--labels FILE")
    assert "X" not in seen


def test_drop_leaves_an_identifier_column_out(iris, seen):
    """--drop by name or by number: the features and their names are the other columns."""
    X, y = iris
    ids = [f"s{i}" for i in range(len(X))]
    _write("ids.csv", ["sample_id", *NAMES, "species"],
           [[i, *row, str(c)] for i, row, c in zip(ids, _numbers(X), y)])
    for drop in ("sample_id", "1"):
        assert main(["embed", "ids.csv", "--labels", "species", "--drop", drop, *RUN,
                     "--out", "y.csv", "--save-model", "m.npz"]) == 0
        np.testing.assert_array_equal(seen["X"], X)
        assert list(smallvis.load_model("m.npz").feature_names_in_) == NAMES
    # new points from a table with the same identifier column
    _write("new.csv", ["sample_id", *NAMES], [[i, *row] for i, row in zip(ids, _numbers(X))])
    assert main(["transform", "new.csv", "--drop", "sample_id", "--model", "m.npz",
                 "--out", "placed.csv", "--quiet"]) == 0


@pytest.mark.parametrize("args, needles", [
    ([], ("non-numeric value 's0'", "--drop")),
    (["--drop", "nope"], ("--drop 'nope': no column", "sample_id")),
    (["--drop", "species"], ("--drop 'species' is the --labels column",)),
    (["--drop", "9"], ("--drop 9: column numbers run from 1 to 6",)),
])
def test_drop_errors_name_the_option(iris, capsys, args, needles):
    X, y = iris
    _write("ids.csv", ["sample_id", *NAMES, "species"],
           [[f"s{i}", *row, str(c)] for i, (row, c) in enumerate(zip(_numbers(X), y))])
    assert main(["embed", "ids.csv", "--labels", "species", *args, *RUN,
                 "--out", "y.csv"]) == 2
    one_error_line(capsys, *needles)


def test_drop_is_for_tables(iris, capsys):
    np.save("x.npy", iris[0])
    assert main(["embed", "x.npy", "--drop", "1", *RUN, "--out", "y.csv"]) == 2
    one_error_line(capsys, "--drop applies to a table")


def _read_table(path, delimiter=","):
    """A written table as its header and rows of text (the test's own reader)."""
    import csv

    with open(path, newline="") as fh:
        rows = list(csv.reader(fh, delimiter=delimiter))
    return rows[0], rows[1:]


def test_id_leads_the_coordinates_so_that_rows_join_back(iris, seen):
    """--id by name or by number: not a feature, and the first column of --out,
    cell for cell as read (a comma in an identifier is quoted, not split)."""
    X, y = iris
    ids = [f"plant {i}, plot {i % 3}" for i in range(len(X))]
    _write("ids.csv", ["sample", *NAMES, "species"],
           [[f'"{i}"', *row, str(c)] for i, row, c in zip(ids, _numbers(X), y)])
    for spec in ("sample", "1"):
        assert main(["embed", "ids.csv", "--labels", "species", "--id", spec, *RUN,
                     "--out", "y.csv", "--save-model", "m.npz"]) == 0
        np.testing.assert_array_equal(seen["X"], X)
        assert list(smallvis.load_model("m.npz").feature_names_in_) == NAMES
        header, rows = _read_table("y.csv")
        assert header == ["sample", "y1", "y2"]
        assert [r[0] for r in rows] == ids
        assert all(len(r) == 3 for r in rows)
    # new points carry theirs into transform's --out; without a header the
    # column is named "id"
    _write("new.csv", None, [[f"n{i}", *row] for i, row in enumerate(_numbers(X[:5]))])
    assert main(["transform", "new.csv", "--id", "1", "--model", "m.npz",
                 "--out", "placed.tsv", "--quiet"]) == 0
    header, rows = _read_table("placed.tsv", delimiter="\t")
    assert header == ["id", "y1", "y2"] and [r[0] for r in rows] == [f"n{i}" for i in range(5)]


@pytest.mark.parametrize("args, needles", [
    (["--id", "nope"], ("--id 'nope': no column", "sample_id")),
    (["--id", "species"], ("--id 'species' is the --labels column",)),
    (["--id", "1", "--drop", "sample_id"], ("--drop 'sample_id' is the --id column",)),
    (["--id", "1", "--out", "y.npy"], ("--id writes the identifiers into a table --out",
                                        ".npy")),
])
def test_id_errors_name_the_option(iris, capsys, seen, args, needles):
    X, y = iris
    _write("ids.csv", ["sample_id", *NAMES, "species"],
           [[f"s{i}", *row, str(c)] for i, (row, c) in enumerate(zip(_numbers(X), y))])
    out = [] if "--out" in args else ["--out", "y.csv"]
    assert main(["embed", "ids.csv", "--labels", "species", *args, *RUN, *out]) == 2
    one_error_line(capsys, *needles)
    assert "X" not in seen


def test_id_is_for_tables(iris, capsys):
    np.save("x.npy", iris[0])
    for source in ("x.npy", "iris"):
        assert main(["embed", source, "--id", "1", *RUN, "--out", "y.csv"]) == 2
        one_error_line(capsys, "--id applies to a table")


def test_a_tab_separated_table_is_read_and_written(iris, seen):
    """.tsv in (cells split at tabs, so a space inside a label stays) and .tsv out,
    with a JPEG plot."""
    X, y = iris
    names = np.array(["iris " + str(c) for c in y])
    with open("x.tsv", "w") as fh:
        fh.write("\t".join([*NAMES, "species"]) + "\n")
        for row, c in zip(_numbers(X), names):
            fh.write("\t".join([*map(str, row), c]) + "\n")
    assert main(["embed", "x.tsv", "--labels", "species", *RUN, "--out", "y.tsv",
                 "--plot", "y.jpg"]) == 0
    np.testing.assert_array_equal(seen["X"], X)
    np.testing.assert_array_equal(seen["labels"], names)
    header, rows = _read_table("y.tsv", delimiter="\t")
    assert header == ["y1", "y2"] and len(rows) == len(X)
    with open("y.jpg", "rb") as fh:
        assert fh.read(3) == b"\xff\xd8\xff"  # a JPEG's start-of-image marker


def test_empty_identifiers_are_refused_and_repeated_ones_warned_of(iris, capsys, seen):
    X, y = iris
    ids = [f"s{i}" for i in range(len(X))]
    ids[7] = ""
    _write("ids.csv", ["sample", *NAMES], [[i, *row] for i, row in zip(ids, _numbers(X))])
    assert main(["embed", "ids.csv", "--id", "sample", *RUN, "--out", "y.csv"]) == 2
    one_error_line(capsys, "line 9, column 1: empty identifier")
    assert "X" not in seen
    ids[7], ids[9] = "s3", "s4"
    _write("ids.csv", ["sample", *NAMES], [[i, *row] for i, row in zip(ids, _numbers(X))])
    assert main(["embed", "ids.csv", "--id", "sample", *RUN, "--out", "y.csv"]) == 0
    assert "names lines 5 and 9 both 's3' (2 repeats in all)" in capsys.readouterr().err


@pytest.mark.parametrize("corner", ["", None])
def test_row_names_are_kept_as_identifiers_with_id_1(iris, seen, corner):
    """R's write.csv and pandas' to_csv write an empty name over the row names; R's
    write.table writes no name (a header one short).  With --id 1 they are the ids."""
    X, y = iris
    ids = [f"plant{i}" for i in range(len(X))]
    header = NAMES if corner is None else [corner, *NAMES]
    _write("rows.csv", header, [[i, *row] for i, row in zip(ids, _numbers(X))])
    assert main(["embed", "rows.csv", "--id", "1", *RUN, "--out", "y.csv",
                 "--save-model", "m.npz"]) == 0
    np.testing.assert_array_equal(seen["X"], X)
    assert list(smallvis.load_model("m.npz").feature_names_in_) == NAMES
    header, rows = _read_table("y.csv")
    assert header == ["id", "y1", "y2"] and [r[0] for r in rows] == ids


def test_id_1_keeps_row_names_over_integer_column_names(iris, seen):
    """pandas' to_csv of a frame whose columns are named 0, 1, 2, ... writes ",0,1,2,3":
    --id 1 is the unnamed first column, not the column named "1"."""
    X, _ = iris
    ids = [f"row{i}" for i in range(len(X))]
    _write("p.csv", ["", "0", "1", "2", "3"], [[i, *row] for i, row in zip(ids, _numbers(X))])
    assert main(["embed", "p.csv", "--id", "1", *RUN, "--out", "y.csv"]) == 0
    np.testing.assert_array_equal(seen["X"], X)
    header, rows = _read_table("y.csv")
    assert header == ["id", "y1", "y2"] and [r[0] for r in rows] == ids


def test_row_names_under_a_header_that_has_an_id_column_get_another_name(iris, seen):
    """R's write.table of a frame with an "id" column: the row names' column is id_1."""
    X, _ = iris
    ids = [f"r{i}" for i in range(len(X))]
    _write("r.csv", ["id", *NAMES[1:]], [[i, *row] for i, row in zip(ids, _numbers(X))])
    assert main(["embed", "r.csv", "--id", "1", *RUN, "--out", "y.csv"]) == 0
    np.testing.assert_array_equal(seen["X"], X)
    header, rows = _read_table("y.csv")
    assert header == ["id_1", "y1", "y2"] and [r[0] for r in rows] == ids


def test_a_headerless_table_whose_first_identifier_is_empty_is_refused(iris, capsys, seen):
    """The empty first cell of a data row is not a header's corner: the row is data,
    and its empty identifier an error (not a header that loses a row)."""
    X, y = iris
    ids = [""] + [f"s{i}" for i in range(1, len(X))]
    _write("c.csv", None, [[i, *row, f"type {c}"] for i, row, c in zip(ids, _numbers(X), y)])
    assert main(["embed", "c.csv", "--id", "1", "--labels", "-1", *RUN, "--out", "y.csv"]) == 2
    one_error_line(capsys, "line 1, column 1: empty identifier",
                   "if line 1 is a header, pass --header")
    assert "X" not in seen


def test_a_feature_column_that_counts_the_rows_is_warned_of(iris, capsys, seen):
    """A row number written as a column (1, 2, 3, ...) is read as a feature, with a
    warning that names the column as --id and --drop read it (by its header name,
    which they look up first); a column that does not count is not warned of."""
    X, _ = iris
    _write("n.csv", ["n", *NAMES], [[i + 1, *row] for i, row in enumerate(_numbers(X))])
    assert main(["embed", "n.csv", *RUN, "--out", "y.csv"]) == 0
    err = capsys.readouterr().err
    assert "column 1 ('n') counts the rows (1, 2, 3, ...)" in err
    assert "pass --id n to keep it as their identifiers or --drop n to leave it out" in err
    np.testing.assert_array_equal(seen["X"][:, 1:], X)
    _write("m.csv", ["n", *NAMES], [[i + 2, *row] for i, row in enumerate(_numbers(X))])
    assert main(["embed", "m.csv", *RUN, "--out", "y.csv"]) == 0
    assert "counts the rows" not in capsys.readouterr().err
    # numeric names: "--id 1" would be the column named 1, so the name 0 is given
    _write("p.csv", ["0", "1", "2", "3", "4"],
           [[i, *row] for i, row in enumerate(_numbers(X))])
    assert main(["embed", "p.csv", "--header", *RUN, "--out", "y.csv"]) == 0
    assert "pass --id 0 to keep it" in capsys.readouterr().err
    # without a header, by number; with an --id already, only --drop is offered
    _write("q.csv", None, [[f"s{i}", i, *row] for i, row in enumerate(_numbers(X))])
    assert main(["embed", "q.csv", "--id", "1", *RUN, "--out", "y.csv"]) == 0
    err = capsys.readouterr().err
    assert "column 2 counts the rows (0, 1, 2, ...)" in err
    assert "pass --drop 2 to leave it out" in err and "--id 2" not in err


def test_cells_quoted_after_a_comma_and_a_space_are_read_as_quoted(iris, seen):
    """'1.5, "type 2, large"': the space after the comma does not stop the quotes
    from holding the comma (the cell was split there, and the header refused)."""
    X, y = iris
    names = np.array([f"type {c}, large" for c in y])
    lines = [", ".join([*NAMES, '"species, grouped"'])]
    lines += [", ".join([*row, f'"{c}"']) for row, c in zip(_numbers(X), names)]
    with open("cs.csv", "w") as fh:
        fh.write("\n".join(lines) + "\n")
    assert main(["embed", "cs.csv", "--labels", "species, grouped", *RUN, "--out", "y.csv",
                 "--plot", "y.png"]) == 0
    np.testing.assert_array_equal(seen["X"], X)
    np.testing.assert_array_equal(seen["labels"], names)


def test_a_quote_escaped_by_a_backslash_is_refused(iris, capsys, seen):
    """R's write.table escapes a quote as \\" (CSV doubles it): read as CSV, the label
    'the "big" one' would become other text, so it is refused; a cell that ends in a
    backslash (a Windows folder) is read as it is."""
    X, _ = iris
    rows = [[*row, '"the \\"big\\" one"' if i % 2 else '"small"']
            for i, row in enumerate(_numbers(X))]
    _write("r.csv", [*NAMES, "name"], rows)
    assert main(["embed", "r.csv", "--labels", "name", *RUN, "--out", "y.csv"]) == 2
    one_error_line(capsys, "'r.csv', line 3: a quote escaped by a backslash",
                   'qmethod="double"')
    assert "X" not in seen
    rows = [[*row, '"C:\\data\\"' if i % 2 else '"D:\\"'] for i, row in enumerate(_numbers(X))]
    _write("w.csv", [*NAMES, "folder"], rows)
    assert main(["embed", "w.csv", "--labels", "folder", *RUN, "--out", "y.csv",
                 "--plot", "y.png"]) == 0
    assert set(seen["labels"]) == {"C:\\data\\", "D:\\"}


def test_a_header_is_recognised_by_the_columns_the_options_name(iris, seen):
    """pandas over integer column names writes "sample,group,0,1,2,3": no cell of the
    first row is a name over a number, but --id and --labels name two of its cells."""
    X, y = iris
    _write("p.csv", ["sample", "group", "0", "1", "2", "3"],
           [[f"s{i}", f"g{c}", *row] for i, (row, c) in enumerate(zip(_numbers(X), y))])
    assert main(["embed", "p.csv", "--id", "sample", "--labels", "group", *RUN,
                 "--out", "y.csv"]) == 0
    np.testing.assert_array_equal(seen["X"], X)
    header, rows = _read_table("y.csv")
    assert header[0] == "sample" and len(rows) == len(X)


def test_an_identifier_column_named_as_a_coordinate_is_refused(iris, capsys, seen):
    X, _ = iris
    _write("ids.csv", ["y1", *NAMES], [[f"s{i}", *row] for i, row in enumerate(_numbers(X))])
    assert main(["embed", "ids.csv", "--id", "y1", *RUN, "--out", "y.csv"]) == 2
    one_error_line(capsys, "--id: the column is named 'y1'")
    assert "X" not in seen


def test_a_file_that_is_not_utf8_says_so(tmp_path, capsys):
    path = tmp_path / "latin1.csv"
    path.write_bytes("name,a,b\nM\u00fcller,1,2\nB,3,4\n".encode("latin-1"))
    assert main(["embed", str(path), "--drop", "name", "--out", str(tmp_path / "y.csv")]) == 2
    one_error_line(capsys, "line 2 is not UTF-8 text (byte 0xfc)", "save the file as UTF-8")


def test_a_message_about_hundreds_of_columns_lists_a_few(iris, capsys):
    """A 300-column table: the unknown --labels error names the first and last columns only."""
    names = [f"band_{i}" for i in range(300)]
    X = np.random.default_rng(0).normal(size=(20, 300))
    _write("wide.csv", names, _numbers(X))
    assert main(["embed", "wide.csv", *RUN, "--labels", "nosuch", "--out", "w.csv"]) == 2
    line = one_error_line(capsys)
    assert "band_0, band_1" in line and "(290 more)" in line and "band_298, band_299" in line
    assert "band_150" not in line and len(line) < 500


@pytest.mark.parametrize("cell,needle", [("NA", "a missing value ('NA')"),
                                         ("NULL", "a missing value ('NULL')"),
                                         ("nan", "a NaN ('nan')"),
                                         ("-inf", "an infinite value ('-inf')"),
                                         ("1e999", "an infinite value ('1e999')")])
def test_a_missing_feature_cell_is_named_by_line_and_column(iris, capsys, cell, needle):
    X, _ = iris
    rows = _numbers(X[:30])
    rows[6][2] = cell
    _write("x.csv", NAMES, rows)
    assert main(["embed", "x.csv", *RUN, "--out", "y.csv"]) == 2
    one_error_line(capsys, "line 8, column 3", needle)


def test_a_table_with_no_number_in_it_says_so(iris, capsys):
    """No cell is a number: the separator cannot be told, so the column messages would miscount."""
    _write("x.csv", ["a", "b", "cls"], [["f1", "g2", "x"], ["f3", "g4", "y"]])
    assert main(["embed", "x.csv", *RUN, "--labels", "3", "--out", "y.csv"]) == 2
    one_error_line(capsys, "no cell reads as a number (line 2:", "f1")


def test_row_numbers_in_messages_say_they_count_from_zero(iris, capsys):
    # the package's messages number rows as Python does, the files' readers
    # from 1: a user editing "row 5" of a CSV must know which row that is
    X, _ = iris
    X = X[:40].copy()
    X[5] = 0.0
    _write("zero.csv", NAMES, X)
    assert main(["embed", "zero.csv", *RUN, "--metric", "cosine", "--out", "z.csv"]) == 2
    one_error_line(capsys, "(first: row 5)", "counted from 0: row 0 is the first row of data")
    # a message without a row number gets no note, nor one of the command
    # line's own, which counts from 1 and may quote what the user typed
    assert main(["embed", "zero.csv", *RUN, "--perplexity", "-1"]) == 2
    assert "counted from 0" not in capsys.readouterr().err
    assert main(["embed", "zero.csv", *RUN, "--labels", "row 2", "--out", "z.csv"]) == 2
    assert "counted from 0" not in one_error_line(capsys, "'row 2'")
