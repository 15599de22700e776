"""The command line never loses data.

* An output that resolves to an input, or two outputs that resolve to the
  same file, are refused before any work (exit 2, one line).
* Every output is written atomically: a failed or interrupted write leaves
  the file that stood there untouched, and no temporary file behind.
* The CSV header guess never drops a data row: a byte-order mark is
  stripped, a first row is a header only if it has a non-empty,
  non-numeric cell, and an empty or unparsable cell in a data row is an
  error naming its line and column.  Rows in equals rows out.
"""

import os

import numpy as np
import pytest

import smallvis
import smallvis.cli as cli
from smallvis.cli import main

RUN = ["--method", "tsne", "--fast", "--n-iter", "20", "--perplexity", "5",
       "--random-state", "0", "--quiet"]


@pytest.fixture
def no_embedding(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("embed() ran although the command should have been refused")
    monkeypatch.setattr(cli, "embed", refuse)


def _csv(path, n=40, d=3, text=None):
    if text is None:
        X = np.random.default_rng(1).normal(size=(n, d))
        text = "\n".join(",".join(f"{v:.17g}" for v in row) for row in X) + "\n"
    path.write_text(text)
    return path.read_bytes()


def _one_error_line(capsys, *needles):
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("smallvis: error:"), err
    for needle in needles:
        assert needle in err, err


# -- outputs that would destroy an input or each other ------------------------


@pytest.mark.parametrize("spelling", ["same", "dot", "symlink", "hardlink"])
def test_output_resolving_to_the_input_is_refused(tmp_path, monkeypatch, capsys,
                                                  no_embedding, spelling):
    monkeypatch.chdir(tmp_path)
    before = _csv(tmp_path / "in.csv")
    out = {"same": "in.csv", "dot": "./sub/../in.csv", "symlink": "link.csv",
           "hardlink": "hard.csv"}[spelling]
    (tmp_path / "sub").mkdir()
    if spelling == "symlink":
        os.symlink(tmp_path / "in.csv", tmp_path / "link.csv")
    if spelling == "hardlink":
        os.link(tmp_path / "in.csv", tmp_path / "hard.csv")
    assert main(["embed", "in.csv", "--out", out, *RUN]) == 2
    _one_error_line(capsys, "--out", "is the input file", "refusing to overwrite")
    assert (tmp_path / "in.csv").read_bytes() == before


def test_plot_onto_the_input_or_a_labels_file_is_refused(tmp_path, monkeypatch, capsys,
                                                         no_embedding):
    monkeypatch.chdir(tmp_path)
    np.save("x.npy", np.ones((10, 2)))
    before = (tmp_path / "x.npy").read_bytes()
    os.symlink("x.npy", "x.png")
    assert main(["embed", "x.npy", "--plot", "x.png", *RUN]) == 2
    _one_error_line(capsys, "--plot", "is the input file")
    assert (tmp_path / "x.npy").read_bytes() == before
    (tmp_path / "labels.csv").write_text("a\n" * 150)
    assert main(["embed", "iris", "--labels", "labels.csv", "--out", "labels.csv"]) == 2
    _one_error_line(capsys, "is the input file 'labels.csv'")


def test_two_outputs_on_one_file_are_refused(tmp_path, monkeypatch, capsys, no_embedding):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "same.png").write_bytes(b"precious")
    assert main(["embed", "iris", "--out", "same.png", "--plot", "same.png"]) == 2
    _one_error_line(capsys, "--out and --plot are the same file")
    os.symlink("y.csv", "y.png")  # a dangling link: both names end in y.csv
    assert main(["embed", "iris", "--out", "y.csv", "--plot", "y.png"]) == 2
    _one_error_line(capsys, "--out and --plot are the same file")
    assert (tmp_path / "same.png").read_bytes() == b"precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["same.png", "y.png"]


# -- atomic writes --------------------------------------------------------------


def _failing_savefig(monkeypatch, error):
    from matplotlib.figure import Figure

    def savefig(self, fname, **kwargs):
        fname.write(b"half a picture")
        raise error
    monkeypatch.setattr(Figure, "savefig", savefig)


@pytest.mark.parametrize("error,status", [(OSError(28, "No space left on device"), 1),
                                          (KeyboardInterrupt(), 130)])
def test_a_failed_write_leaves_the_old_file_intact(tmp_path, monkeypatch, capsys,
                                                   error, status):
    (tmp_path / "y.png").write_bytes(b"the good old plot")
    _failing_savefig(monkeypatch, error)
    assert main(["embed", "iris", "--plot", str(tmp_path / "y.png"), *RUN]) == status
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert (tmp_path / "y.png").read_bytes() == b"the good old plot"
    assert [p.name for p in tmp_path.iterdir()] == ["y.png"]  # no temporary left


def test_ctrl_c_while_writing_says_which_outputs_are_complete(tmp_path, monkeypatch, capsys):
    (tmp_path / "y.png").write_bytes(b"the good old plot")
    _failing_savefig(monkeypatch, KeyboardInterrupt())
    assert main(["embed", "iris", "--out", str(tmp_path / "y.csv"),
                 "--plot", str(tmp_path / "y.png"), *RUN]) == 130
    err = capsys.readouterr().err.strip()
    assert "interrupted while writing the outputs; complete: coordinates ->" in err, err
    assert np.loadtxt(tmp_path / "y.csv", delimiter=",", skiprows=1).shape == (150, 2)
    assert (tmp_path / "y.png").read_bytes() == b"the good old plot"


def test_outputs_replace_old_files_whole_and_keep_their_mode(tmp_path):
    out = tmp_path / "y.csv"
    out.write_text("old\n" * 1000)
    out.chmod(0o640)
    assert main(["embed", "iris", "--out", str(out), *RUN]) == 0
    assert np.loadtxt(out, delimiter=",", skiprows=1).shape == (150, 2)
    assert out.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["y.csv"]


def test_npy_output(tmp_path):
    assert main(["embed", "iris", "--out", str(tmp_path / "y.npy"), *RUN]) == 0
    assert np.load(tmp_path / "y.npy").shape == (150, 2)


# -- the header guess never drops a row -------------------------------------------


def _rows_out(tmp_path, content, *options):
    f = tmp_path / "x.csv"
    f.write_bytes(content if isinstance(content, bytes) else content.encode())
    out = tmp_path / "y.csv"
    assert main(["embed", str(f), "--out", str(out), *RUN, *options]) == 0
    return len(np.loadtxt(out, delimiter=",", skiprows=1))


def _iris_text(header=None, newline="\n"):
    X, _ = smallvis.datasets.load("iris")
    lines = ([header] if header else []) + [",".join(f"{v:g}" for v in row) for row in X]
    return newline.join(lines) + newline


@pytest.mark.parametrize("content,rows", [
    ("\ufeff" + _iris_text(), 150),                    # Excel's byte-order mark, no header
    ("\ufeff" + _iris_text("a,b,c,d"), 150),           # BOM before a header
    (_iris_text(newline="\r\n"), 150),                 # Windows line ends
    (_iris_text("a,b,c,d") + "\n\n", 150),             # blank lines are not rows
    ('"a","b","c","d"\n' + _iris_text(), 150),         # quoted header
    (_iris_text('"5.1",b,c,d'), 150),                  # header with one numeric name
])
def test_rows_in_equal_rows_out(tmp_path, content, rows):
    assert _rows_out(tmp_path, content) == rows


@pytest.mark.parametrize("content,where", [
    ("1,,3\n4,5,6\n7,8,9\n", "line 1, column 2"),      # an empty cell in the first row
    ("1,2,3\n4,5,6\n7,,9\n", "line 3, column 2"),
    ("a,b,c\n1,2,3\n4,5,x\n", "line 3, column 3"),
    ("1,2,3\n\n4,5,6\n7,8, \n", "line 4, column 3"),   # line numbers count blank lines
])
def test_an_empty_or_bad_cell_is_an_error_naming_line_and_column(tmp_path, capsys,
                                                                 content, where):
    f = tmp_path / "x.csv"
    f.write_text(content)
    assert main(["embed", str(f), *RUN]) == 2
    _one_error_line(capsys, where, "non-numeric value")
