"""`smallvis embed --save-model` and `smallvis transform`."""

import numpy as np
import pytest

import smallvis
from smallvis.cli import main

RUN = ["--method", "umap", "--fast", "--n-iter", "100", "--random-state", "0", "--quiet"]


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    X, y = smallvis.datasets.load("iris")
    order = np.random.default_rng(0).permutation(len(X))
    np.savetxt("train.csv", X[order[:120]], delimiter=",", fmt="%.17g")
    np.savetxt("new.csv", np.c_[X[order[120:]], y[order[120:]]], delimiter=",", fmt="%.17g")
    return X[order[:120]], X[order[120:]]


def _one_error_line(capsys, *needles):
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("smallvis: error:"), err
    for needle in needles:
        assert needle in err, err


def test_save_model_then_transform(files, tmp_path, capsys):
    X, X_new = files
    assert main(["embed", "train.csv", *RUN, "--out", "Y.csv", "--save-model", "m.npz"]) == 0
    model = smallvis.load_model("m.npz")
    assert np.allclose(model.embedding_, np.loadtxt("Y.csv", delimiter=",", skiprows=1))
    assert main(["transform", "new.csv", "--labels", "-1", "--model", "m.npz",
                 "--out", "Y_new.csv", "--plot", "both.png"]) == 0
    Y_new = np.loadtxt("Y_new.csv", delimiter=",", skiprows=1)
    assert np.array_equal(Y_new, model.transform(X_new))  # written with 17 digits
    assert (tmp_path / "both.png").read_bytes()[:4] == b"\x89PNG"
    assert "placed 30 new points" in capsys.readouterr().err


def test_model_file_never_replaces_an_input(files, capsys):
    assert main(["embed", "train.csv", *RUN, "--save-model", "train.csv"]) == 2
    _one_error_line(capsys, "--save-model", "refusing to overwrite")
    assert main(["embed", "train.csv", *RUN, "--save-model", "m.txt"]) == 2
    _one_error_line(capsys, "unsupported extension")
    assert main(["embed", "train.csv", *RUN, "--save-model", "m.npz"]) == 0
    before = open("m.npz", "rb").read()
    assert main(["transform", "new.csv", "--model", "m.npz", "--out", "m.npz"]) == 2
    _one_error_line(capsys, "refusing to overwrite")
    assert open("m.npz", "rb").read() == before


def test_bad_model_or_data_leave_outputs_untouched(files, capsys):
    open("Y_new.csv", "w").write("precious\n")
    assert main(["transform", "new.csv", "--model", "train.csv", "--out", "Y_new.csv"]) == 2
    _one_error_line(capsys, "not a smallvis model file")
    assert main(["transform", "new.csv", "--model", "missing.npz", "--out", "Y_new.csv"]) == 2
    _one_error_line(capsys, "--model")
    assert main(["embed", "train.csv", *RUN, "--save-model", "m.npz"]) == 0
    # the label column left in: 5 features against 4
    assert main(["transform", "new.csv", "--model", "m.npz", "--out", "Y_new.csv"]) == 2
    _one_error_line(capsys, "'new.csv' has 5 columns, but --model", "fitted on 4")
    assert open("Y_new.csv").read() == "precious\n"


def test_a_point_far_outside_the_training_range_is_never_written_as_nan(files, capsys):
    """A stochastic UMAP model, a new point at 1e160: finite coordinates, exit 0."""
    X, X_new = files
    np.savetxt("far.csv", np.vstack([X_new[:3], np.full(X.shape[1], 1e160),
                                     np.full(X.shape[1], -1e160)]),
               delimiter=",", fmt="%.17g")
    assert main(["embed", "train.csv", "--method", "umap", "--fast", "--optimizer", "sgd",
                 "--n-epochs", "50", "--init", "pca", "--random-state", "0", "--quiet",
                 "--save-model", "m.npz"]) == 0
    assert main(["transform", "far.csv", "--model", "m.npz", "--out", "Y_far.csv"]) == 0
    Y_far = np.loadtxt("Y_far.csv", delimiter=",", skiprows=1)
    assert Y_far.shape == (5, 2) and np.all(np.isfinite(Y_far)), Y_far


def test_sparse_new_points_for_a_dense_model_are_converted(files, capsys):
    """A command-line user cannot call X.toarray(): the command converts the .npz."""
    import scipy.sparse as sp

    X, X_new = files
    assert main(["embed", "train.csv", *RUN, "--save-model", "m.npz"]) == 0
    sp.save_npz("new.npz", sp.csr_matrix(X_new))
    np.save("new.npy", X_new)
    assert main(["transform", "new.npz", "--model", "m.npz", "--out", "Y_sparse.csv",
                 "--quiet"]) == 0
    assert main(["transform", "new.npy", "--model", "m.npz", "--out", "Y_dense.csv",
                 "--quiet"]) == 0
    Y_sparse = np.loadtxt("Y_sparse.csv", delimiter=",", skiprows=1)
    assert np.array_equal(Y_sparse, np.loadtxt("Y_dense.csv", delimiter=",", skiprows=1))
    assert Y_sparse.shape == (len(X_new), 2)


def test_too_large_a_dense_copy_gives_advice_a_command_line_user_can_follow(
        files, capsys, monkeypatch):
    import scipy.sparse as sp

    import smallvis.cli

    X, X_new = files
    assert main(["embed", "train.csv", *RUN, "--save-model", "m.npz"]) == 0
    sp.save_npz("new.npz", sp.csr_matrix(X_new))
    # a bound below this small file's dense size stands for a huge one
    monkeypatch.setattr(smallvis.cli, "MAX_DENSIFIED_BYTES", X_new.nbytes - 1)
    assert main(["transform", "new.npz", "--model", "m.npz", "--out", "Y.csv"]) == 2
    err = capsys.readouterr().err
    missing = [needle for needle in ("--model", "dense", ".npy", "sparse .npz")
               if needle not in err]
    assert not missing and "toarray" not in err and len(err.strip().splitlines()) == 1, err
