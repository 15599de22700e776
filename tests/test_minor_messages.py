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
@pytest.mark.parametrize("name", ["x.xlsx", "x.json", "x.CSV2"])
def test_an_unsupported_input_lists_every_accepted_type(command, name, fitted, tmp_path,
                                                        capsys):
    source = tmp_path / name
    source.write_text("1,2\n3,4\n")
    model = tmp_path / "m.npz"
    smallvis.save_model(fitted, model)
    extra = ["--model", str(model)] if command == "transform" else []
    assert main([command, str(source), *extra, "--out", str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err
    assert "use .csv, .tsv, .txt, .npy or .npz" in err
    assert INPUT_FORMATS == (".csv", ".tsv", ".txt", ".npy", ".npz")


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


# ---------------------------------------------------------------------------
# a bad option value on the command line: the message leads with the option
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("flags") / "x.csv"
    np.savetxt(path, np.random.default_rng(0).normal(size=(40, 4)), delimiter=",")
    return str(path)


def _error_line(capsys, argv):
    """The exit status and the one error line of ``smallvis`` run with ``argv``."""
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's own refusals
        status = exc.code
    errors = [line for line in capsys.readouterr().err.splitlines() if ": error: " in line]
    return status, errors


def _after_error(line):
    return line.split(": error: ", 1)[1]


def test_late_exaggeration_iter_beyond_n_iter_leads_with_both_options(table, capsys):
    status, errors = _error_line(capsys, [
        "embed", table, "--quiet", "--late-exaggeration", "2",
        "--late-exaggeration-iter", "500", "--n-iter", "300"])
    assert status == 2 and len(errors) == 1, errors
    text = _after_error(errors[0])
    assert text.startswith("--late-exaggeration-iter"), text
    assert "500" in text and "300" in text and "--n-iter" in text, text


@pytest.mark.parametrize("value,what", [("abc", "'abc'"), ("-1", "-1")])
def test_z_bar_leads_with_the_option(value, what, table, capsys):
    """A non-number was a TypeError without the option; it now reads as a value out
    of range does."""
    method = next(name for name, m in smallvis.METHODS.items() if "z_bar" in m.cost_params)
    status, errors = _error_line(capsys, ["embed", table, "--quiet", "--method", method,
                                          "--z-bar", value])
    assert status == 2 and len(errors) == 1, errors
    text = _after_error(errors[0])
    assert text.startswith("--z-bar:") and what in text, text


def test_random_state_leads_with_the_option(table, capsys):
    status, errors = _error_line(capsys, ["embed", table, "--quiet", "--random-state", "-1"])
    assert status == 2 and _after_error(errors[0]).startswith("--random-state:"), errors


def test_argparse_refusals_lead_with_the_option(table, capsys):
    status, errors = _error_line(capsys, ["embed", table, "--n-iter", "abc"])
    assert status == 2 and _after_error(errors[0]).startswith("--n-iter:"), errors
    assert "'abc'" in errors[0]


def _method_parameter_options():
    """``(option, a method that takes it)`` for each method parameter with a value."""
    from smallvis.cli import _flag, method_parameter_defaults

    for param, by_method in method_parameter_defaults().items():
        flag = _flag(param)
        if isinstance(next(iter(by_method.values())), bool):
            continue  # --x / --no-x: no value to get wrong
        yield flag, next(iter(by_method))


@pytest.mark.parametrize("flag,method", list(_method_parameter_options()))
@pytest.mark.parametrize("value", ["abc", "-1e300"])
def test_every_method_parameter_error_leads_with_its_option(flag, method, value, table,
                                                            capsys):
    argv = ["embed", table, "--quiet", "--method", method, "--n-iter", "5",
            flag + "=" + value]
    status, errors = _error_line(capsys, argv)
    if status == 0:  # a value the parameter accepts
        return
    assert status == 2 and len(errors) == 1, errors
    assert _after_error(errors[0]).startswith(flag + ":"), errors


# ---------------------------------------------------------------------------
# the disconnected-graph warning says how the components are placed
# ---------------------------------------------------------------------------


def _two_clusters_graph(n=80, k=10):
    import scipy.sparse as sp
    from smallvis.inputs.neighbors import knn_graph

    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(size=(n // 2, 5)), rng.normal(size=(n // 2, 5)) + 100.0])
    idx, dist = knn_graph(X, k, method="exact")
    G = sp.csr_matrix((dist.ravel().copy(), idx.ravel().copy(), np.arange(0, n * k + 1, k)),
                      shape=(n, n))
    return X, G


def test_a_disconnected_graph_fit_does_not_claim_a_pca_of_x():
    """On a kNN-graph fit X is a distance graph: no PCA of its component means places
    the components."""
    from smallvis.engines.init import initialize

    X, G = _two_clusters_graph()
    P = (G + G.T).tocsr()
    P.data[:] = 1.0
    rng = np.random.default_rng(0)
    with pytest.warns(RuntimeWarning, match="connected components") as record:
        initialize("spectral", np.zeros((X.shape[0], 0)), 2, rng, P=P)
    text = " ".join(str(w.message) for w in record)
    assert "PCA of the component means" not in text
    assert "overlapping" in text and "init as an array" in text
    # with data, the PCA of the component means does place them
    with pytest.warns(RuntimeWarning, match="PCA of the component means of X"):
        initialize("spectral", X, 2, rng, P=P)


# ---------------------------------------------------------------------------
# errors about the input and --metric lead with the option or the file
# ---------------------------------------------------------------------------


def test_a_sparse_input_with_a_dense_only_metric_leads_with_metric(tmp_path, capsys):
    import scipy.sparse as sp

    path = tmp_path / "x.npz"
    sp.save_npz(path, sp.random(50, 20, density=0.3, format="csr", random_state=0))
    status, errors = _error_line(capsys, ["embed", str(path), "--quiet", "--n-iter", "5",
                                          "--metric", "correlation"])
    assert status == 2 and len(errors) == 1, errors
    text = _after_error(errors[0])
    assert text.startswith("--metric:") and ".npy" in text, text


def test_precomputed_on_data_rows_leads_with_metric_and_says_to_drop_it(capsys):
    status, errors = _error_line(capsys, ["embed", "iris", "--quiet", "--n-iter", "5",
                                          "--metric", "precomputed"])
    assert status == 2 and len(errors) == 1, errors
    text = _after_error(errors[0])
    assert text.startswith("--metric:") and "drop --metric 'precomputed'" in text, text
    assert "metric=" not in text, text


def test_transform_with_the_wrong_columns_names_the_file_and_the_model(tmp_path, capsys):
    X = np.random.default_rng(0).normal(size=(40, 4))
    table, narrow, model = tmp_path / "t.csv", tmp_path / "t3.csv", tmp_path / "m.npz"
    np.savetxt(table, X, delimiter=",")
    np.savetxt(narrow, X[:, :3], delimiter=",")
    assert main(["embed", str(table), "--quiet", "--n-iter", "5", "--save-model",
                 str(model)]) == 0
    status, errors = _error_line(capsys, ["transform", str(narrow), "--model", str(model)])
    assert status == 2 and len(errors) == 1, errors
    text = _after_error(errors[0])
    assert text.startswith(repr(str(narrow))) and "--model" in text, text
    assert "Embedding" not in text and "4 columns" in text, text
