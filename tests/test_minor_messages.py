"""Messages that say what the user can do: the real set of input types,
the call that needs a fitted model, the mode a model file is opened in."""

import io

import numpy as np
import pytest

import smallvis
from smallvis._tables import INPUT_FORMATS
from smallvis.cli import main


@pytest.fixture(scope="module")
def fitted():
    X = np.random.default_rng(0).normal(size=(20, 2))
    return smallvis.UMAP(n_iter=5, random_state=0).fit(X)


@pytest.mark.parametrize("command", ["embed", "transform"])
@pytest.mark.parametrize("name", ["x.tsv", "x.json", "x.CSV2"])
def test_an_unsupported_input_lists_every_accepted_type(command, name, fitted, tmp_path,
                                                        capsys):
    source = tmp_path / name
    source.write_text("1,2\n3,4\n")
    model = tmp_path / "m.npz"
    smallvis.save_model(fitted, model)
    extra = ["--model", str(model)] if command == "transform" else []
    assert main([command, str(source), *extra, "--out", str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err
    assert "use .csv, .txt, .npy or .npz" in err
    assert INPUT_FORMATS == (".csv", ".txt", ".npy", ".npz")


def test_save_model_on_an_unfitted_estimator_names_save_model():
    with pytest.raises(smallvis.NotFittedError, match=r"call fit\(X\) before save_model"):
        smallvis.save_model(smallvis.UMAP(), io.BytesIO())


def test_transform_on_an_unfitted_estimator_still_names_transform():
    with pytest.raises(smallvis.NotFittedError, match=r"before transform\(X_new\)"):
        smallvis.UMAP().transform(np.zeros((2, 4)))


def test_save_model_into_a_text_mode_file_says_to_open_it_in_binary(fitted, tmp_path):
    with open(tmp_path / "m.npz", "w") as text_file:
        with pytest.raises(TypeError, match="open it in binary mode"):
            smallvis.save_model(fitted, text_file)
    with pytest.raises(TypeError, match="open it in binary mode"):
        smallvis.save_model(fitted, io.StringIO())


def test_save_model_into_a_file_open_for_reading_is_refused(fitted, tmp_path):
    path = tmp_path / "m.npz"
    path.write_bytes(b"keep")
    with open(path, "rb") as read_only:
        with pytest.raises(TypeError, match="binary file object open for writing"):
            smallvis.save_model(fitted, read_only)
    assert path.read_bytes() == b"keep"
    with pytest.raises(TypeError, match="path or a binary file object"):
        smallvis.save_model(fitted, 42)
