"""The smallvis command line."""

import os
import signal
import subprocess
import sys

import numpy as np
import pytest

import smallvis
import smallvis.cli as cli
import smallvis.plotting as plotting
from smallvis.cli import main

from conftest import one_error_line


def test_embed_builtin_dataset_writes_csv_and_png(tmp_path, capsys):
    out, png = tmp_path / "y.csv", tmp_path / "y.png"
    code = main(["embed", "iris", "--method", "tsne", "--fast", "--n-iter", "300",
                 "--random-state", "1", "--out", str(out), "--plot", str(png)])
    assert code == 0
    Y = np.loadtxt(out, delimiter=",", skiprows=1)
    assert Y.shape == (150, 2) and np.all(np.isfinite(Y))
    assert open(out).readline().strip() == "y1,y2"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    err = capsys.readouterr().err
    assert "iter    300/300" in err and "ETA" in err and "elapsed" in err


def test_embed_csv_with_header_and_npy(tmp_path):
    X = np.random.default_rng(0).normal(size=(40, 3))
    csv = tmp_path / "x.csv"
    np.savetxt(csv, X, delimiter=",", header="a,b,c", comments="")
    npy = tmp_path / "x.npy"
    np.save(npy, X)
    for source in (csv, npy):
        out = tmp_path / f"{source.suffix[1:]}.csv"
        assert main(["embed", str(source), "--method", "ssne", "--perplexity", "5",
                     "--n-iter", "50", "--quiet", "--out", str(out)]) == 0
        assert np.loadtxt(out, delimiter=",", skiprows=1).shape == (40, 2)


@pytest.mark.parametrize("content,match", [
    ("a,b\n1,2\n3,x\n", "non-numeric value 'x'"),
    ("1,2\n3\n", "has 1 columns, expected 2"),
    ("", "is empty"),
])
def test_bad_csv_exits_2_with_one_line(tmp_path, capsys, content, match):
    f = tmp_path / "bad.csv"
    f.write_text(content)
    assert main(["embed", str(f), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert match in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_a_run_that_tol_ends_says_so_in_its_last_line(tmp_path, capsys):
    # the last progress line gave an ETA for iterations that never ran
    out = tmp_path / "y.csv"
    assert main(["embed", "iris", "--method", "mmds", "--random-state", "1",
                 "--out", str(out)]) == 0
    result = smallvis.embed(smallvis.datasets.load("iris")[0], "mmds", random_state=1,
                            return_result=True)
    assert result.stopped_early and result.n_iter < 1000  # the case shows the message
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"after {result.n_iter} of 1000 iterations (the cost had settled" in last
    # a run to its end says nothing of the kind
    assert main(["embed", "iris", "--method", "tsne", "--n-iter", "60", "--random-state", "1",
                 "--out", str(out)]) == 0
    assert "settled" not in capsys.readouterr().err


def test_missing_file_and_bad_parameter_exit_2(capsys):
    assert main(["embed", "no-such-file.csv"]) == 2
    assert "neither an existing file nor a built-in dataset" in capsys.readouterr().err
    assert main(["embed", "iris", "--perplexity", "500", "--quiet"]) == 2
    assert "at most n_samples - 1 = 149" in capsys.readouterr().err


def test_console_script_runs(tmp_path):
    """The installed entry point (as the README uses it)."""
    exe = os.path.join(os.path.dirname(sys.executable), "smallvis")
    cmd = [exe] if os.path.exists(exe) else [sys.executable, "-m", "smallvis.cli"]
    out = tmp_path / "s.csv"
    proc = subprocess.run(cmd + ["embed", "iris", "--fast", "--n-iter", "100", "--quiet",
                                 "--out", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert out.exists()
    bad = subprocess.run(cmd + ["embed", "missing.npy"], capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_python_dash_m_smallvis_is_the_command(tmp_path):
    # run outside the source tree: "-m" puts the working directory first on
    # sys.path, and a clone's root holds an unbuilt copy of the package
    out = tmp_path / "m.csv"
    proc = subprocess.run([sys.executable, "-m", "smallvis", "embed", "iris", "--n-iter", "50",
                           "--quiet", "--out", str(out)], capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert np.loadtxt(out, delimiter=",", skiprows=1).shape == (150, 2)
    bad = subprocess.run([sys.executable, "-m", "smallvis", "embed", "missing.npy"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_sgd_optimizer_from_the_command_line(tmp_path, capsys):
    out = tmp_path / "u.csv"
    assert main(["embed", "iris", "--method", "umap", "--fast", "--optimizer", "sgd",
                 "--n-epochs", "30", "--random-state", "0", "--out", str(out)]) == 0
    assert np.loadtxt(out, delimiter=",", skiprows=1).shape == (150, 2)
    assert "sgd optimizer, 30 epochs" in capsys.readouterr().err
    assert main(["embed", "iris", "--method", "tsne", "--optimizer", "sgd", "--quiet"]) == 2
    assert "no stochastic form" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# first contact: checks before work, labels, headers, formats, warnings
# ---------------------------------------------------------------------------


@pytest.fixture
def no_embedding(monkeypatch):
    """Fail the test if the CLI starts computing."""
    def refuse(*args, **kwargs):
        raise AssertionError("embed() ran although the command should have been refused")
    monkeypatch.setattr(cli, "embed", refuse)



def test_only_the_package_s_own_deprecations_are_shown(tmp_path, capsys, monkeypatch):
    """Another library's deprecation (an older matplotlib under a newer pyparsing) is not a
    message for the user; the package's own warnings and deprecations are."""
    import warnings

    real_embed = cli.embed

    def embed_warning(X, *args, **kwargs):
        warnings.warn_explicit("parseString deprecated", DeprecationWarning, "lib.py", 1,
                               module="someotherlib")
        warnings.warn_explicit("an old smallvis spelling", DeprecationWarning, "api.py", 1,
                               module="smallvis.api")
        warnings.warn("the package's own warning", RuntimeWarning)
        return real_embed(X, *args, **kwargs)

    monkeypatch.setattr(cli, "embed", embed_warning)
    assert main(["embed", "iris", "--fast", "--n-iter", "60", "--out", str(tmp_path / "y.csv"),
                 "--quiet"]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if "warning:" in line]
    assert len(lines) == 2, lines
    assert "old smallvis spelling" in lines[0] and "own warning" in lines[1]


@pytest.mark.parametrize("option,name,needle", [
    ("--out", "missing_dir/y.csv", "does not exist"),
    ("--plot", "missing_dir/y.png", "does not exist"),
    ("--plot", "y.gif", "unsupported extension '.gif'"),
    ("--out", "y.xlsx", "unsupported extension '.xlsx'"),
    ("--out", "y", "unsupported extension '(none)'"),
    ("--out", ".", "unsupported extension"),
])
def test_bad_output_path_exits_2_before_any_work(tmp_path, capsys, no_embedding,
                                                 option, name, needle):
    assert main(["embed", "iris", option, str(tmp_path / name)]) == 2
    one_error_line(capsys, option, needle)
    assert list(tmp_path.iterdir()) == []


def test_output_that_is_a_directory_exits_2(tmp_path, capsys, no_embedding):
    (tmp_path / "d.csv").mkdir()
    assert main(["embed", "iris", "--out", str(tmp_path / "d.csv")]) == 2
    one_error_line(capsys, "is a directory")


def _labelled_csv(path, header=True, label_first=False):
    X, y = smallvis.datasets.load("iris")
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    lines = ["species,a,b,c,d" if label_first else "a,b,c,d,species"] if header else []
    for row, name in zip(X, names):
        cells = [f"{v:g}" for v in row]
        lines.append(",".join([name] + cells if label_first else cells + [name]))
    path.write_text("\n".join(lines) + "\n")
    return X, names


@pytest.fixture
def captured(monkeypatch):
    """Record what the CLI passes to embed() and save_plot()."""
    seen = {}
    real_embed, real_save = cli.embed, plotting.save_plot

    def embed(X, **kwargs):
        seen["X"] = np.array(X)
        return real_embed(X, **kwargs)

    def save_plot(Y, path, labels=None, title=None, **kwargs):
        seen["labels"], seen["title"] = labels, title
        return real_save(Y, path, labels=labels, title=title, **kwargs)

    monkeypatch.setattr(cli, "embed", embed)
    monkeypatch.setattr(plotting, "save_plot", save_plot)
    return seen


FAST_RUN = ["--method", "tsne", "--fast", "--n-iter", "30", "--perplexity", "10",
            "--random-state", "0", "--quiet"]


@pytest.mark.parametrize("spec,header,label_first", [
    ("species", True, False), ("-1", True, False), ("5", False, False),
    ("1", False, True), ("species", True, True),
])
def test_label_column_colours_the_plot_and_is_not_a_feature(tmp_path, captured, spec,
                                                            header, label_first):
    X, names = _labelled_csv(tmp_path / "iris.csv", header, label_first)
    png = tmp_path / "y.png"
    assert main(["embed", str(tmp_path / "iris.csv"), "--labels", spec, "--plot", str(png),
                 *FAST_RUN]) == 0
    np.testing.assert_array_equal(captured["X"], X)  # 4 features, every row
    assert list(captured["labels"]) == list(names)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_labels_from_a_file(tmp_path, captured):
    X, _ = smallvis.datasets.load("iris")
    np.savetxt(tmp_path / "x.csv", X, delimiter=",", fmt="%g")
    y = np.arange(150) % 4
    (tmp_path / "y.txt").write_text("group\n" + "\n".join(map(str, y)) + "\n")
    assert main(["embed", str(tmp_path / "x.csv"), "--labels", str(tmp_path / "y.txt"),
                 "--plot", str(tmp_path / "y.svg"), *FAST_RUN]) == 0
    np.testing.assert_array_equal(captured["labels"], y)
    assert captured["X"].shape == (150, 4)


def test_labels_that_fit_nothing_exit_2(tmp_path, capsys, no_embedding):
    _labelled_csv(tmp_path / "iris.csv")
    assert main(["embed", str(tmp_path / "iris.csv"), "--labels", "colour"]) == 2
    one_error_line(capsys, "--labels 'colour'", "no column of that name")
    assert main(["embed", str(tmp_path / "iris.csv"), "--labels", "9"]) == 2
    one_error_line(capsys, "column numbers run from 1 to 5")
    (tmp_path / "short.txt").write_text("a\nb\n")
    assert main(["embed", "iris", "--labels", str(tmp_path / "short.txt")]) == 2
    one_error_line(capsys, "has 2 labels for 150 data rows")


def test_text_column_without_labels_says_how_to_use_it(tmp_path, capsys, no_embedding):
    _labelled_csv(tmp_path / "iris.csv", header=False)
    assert main(["embed", str(tmp_path / "iris.csv")]) == 2
    one_error_line(capsys, "line 1, column 5", "'setosa'", "--labels")


def test_numeric_header_needs_header_flag(tmp_path, captured, capsys):
    X = np.random.default_rng(0).normal(size=(30, 4))
    f = tmp_path / "x.csv"
    np.savetxt(f, X, delimiter=",", header="1,2,3,4", comments="")
    assert main(["embed", str(f), "--header", *FAST_RUN]) == 0
    np.testing.assert_allclose(captured["X"], X, rtol=1e-15)
    # the default reads it as data, and says so in one line
    assert main(["embed", str(f), *FAST_RUN]) == 0
    assert captured["X"].shape == (31, 4)
    err = capsys.readouterr().err.strip().splitlines()
    assert [line for line in err if line.startswith("smallvis: warning:")] == err
    assert len(err) == 1 and "pass --header" in err[0]
    # --no-header with a text first row: an error, not a dropped row
    np.savetxt(f, X, delimiter=",", header="a,b,c,d", comments="")
    assert main(["embed", str(f), "--no-header", *FAST_RUN]) == 2
    one_error_line(capsys, "line 1, column 1", "'a'")


@pytest.mark.parametrize("ext,magic", [("pdf", b"%PDF"), ("svg", b"<?xml"), ("png", b"\x89PNG")])
def test_plot_format_follows_the_extension(tmp_path, ext, magic):
    path = tmp_path / f"y.{ext.upper() if ext == 'pdf' else ext}"
    assert main(["embed", "iris", "--plot", str(path), *FAST_RUN]) == 0
    data = path.read_bytes()
    assert data.startswith(magic), data[:20]
    if ext == "svg":
        assert b"<svg" in data[:1000]


def test_warnings_print_as_one_line(capsys):
    # two_clusters gives a disconnected UMAP graph: the spectral init warns
    assert main(["embed", "two_clusters", "--method", "umap", "--init", "spectral",
                 "--n-iter", "5", "--quiet"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err and all(line.startswith("smallvis: warning: ") for line in err), err
    assert any("connected components" in line for line in err)
    assert not any("warnings.warn" in line or ".py:" in line for line in err)


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"smallvis {smallvis.__version__}"


def test_every_option_has_help():
    parser = cli.build_parser()
    embed_parser = next(a for a in parser._actions
                        if isinstance(a, cli.argparse._SubParsersAction)).choices["embed"]
    for p in (parser, embed_parser):
        for action in p._actions:
            assert action.help, f"{action.option_strings or action.dest} has no help text"


def test_stochastic_cost_above_5000_points_is_a_labelled_estimate(tmp_path, captured, capsys):
    X = np.random.default_rng(0).normal(size=(5200, 3))
    np.save(tmp_path / "x.npy", X)
    assert main(["embed", str(tmp_path / "x.npy"), "--method", "umap", "--fast",
                 "--optimizer", "sgd", "--n-epochs", "10", "--init", "random",
                 "--random-state", "0", "--plot", str(tmp_path / "y.png")]) == 0
    err = capsys.readouterr().err
    assert "nan" not in err.lower()
    final = err.strip().splitlines()[-1]
    assert "estimated cost" in final and "(sampled)" in final, final
    assert "estimated cost" in captured["title"] and "nan" not in captured["title"]
    epoch_lines = [line for line in err.splitlines() if line.startswith("epoch")]
    assert epoch_lines and all("est. cost" in line for line in epoch_lines)


def test_progress_announces_every_stage_before_the_iterations(capsys):
    assert main(["embed", "iris", "--method", "umap", "--n-iter", "50"]) == 0
    err = capsys.readouterr().err.splitlines()
    first_iter = next(k for k, line in enumerate(err) if line.startswith("iter"))
    head = "\n".join(err[:first_iter])
    for stage in ("kNN:", "calibration:", "init:", "optimisation:"):
        assert f"smallvis: {stage}" in head, head
    assert "done in" in head


def _start_run(tmp_path, n_iter, *options, sigint=signal.SIG_DFL):
    """Start the CLI on iris with SIGINT set to ``sigint`` in the child.

    The disposition is set between fork and exec, so the child's Python
    starts with it whatever the test runner's own is: a runner started as a
    script's background job has SIGINT ignored, and its children would
    inherit that.
    """
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(smallvis.__file__)), os.environ.get("PYTHONPATH", "")]))
    return subprocess.Popen(
        [sys.executable, "-m", "smallvis.cli", "embed", "iris", "--fast", "--n-iter",
         str(n_iter), "--random-state", "0", "--out", "y.csv", "--plot", "y.png", *options],
        cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint))


def _press_ctrl_c_once_it_iterates(proc):
    """Send SIGINT at the first progress line of the iterations; return (status, stderr)."""
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if line.startswith("iter"):
            proc.send_signal(signal.SIGINT)
            break
    rest = proc.communicate(timeout=120)[1]
    return proc.returncode, "".join(lines) + rest


def _interrupt_a_run(tmp_path, *options):
    """Start a long run, press Ctrl-C once it iterates, return (status, stderr)."""
    return _press_ctrl_c_once_it_iterates(_start_run(tmp_path, 100000, *options))


def test_ctrl_c_saves_nothing_by_default(tmp_path):
    status, err = _interrupt_a_run(tmp_path)
    assert status == 130, err
    assert "nothing was saved" in err and "Traceback" not in err
    assert not (tmp_path / "y.csv").exists() and not (tmp_path / "y.png").exists()


def test_ctrl_c_with_save_partial_writes_the_coordinates_so_far(tmp_path):
    status, err = _interrupt_a_run(tmp_path, "--save-partial")
    assert status == 130, err
    assert "partial results saved" in err and "Traceback" not in err, err
    Y = np.loadtxt(tmp_path / "y.csv", delimiter=",", skiprows=1)
    assert Y.shape == (150, 2) and np.all(np.isfinite(Y))
    assert (tmp_path / "y.png").read_bytes()[:4] == b"\x89PNG"


def test_a_run_started_with_sigint_ignored_keeps_it_ignored(tmp_path):
    """A script's background job (``smallvis ... &``) inherits SIGINT ignored.

    The CLI keeps it so (the Unix convention): Ctrl-C does not stop it, the
    run ends normally with all its outputs, and --save-partial, which can
    then never apply, says so up front.
    """
    # 1000 iterations: Ctrl-C comes at the first progress line (iteration
    # 50), with most of the run still ahead, where a run that heeded it
    # would stop (status 130)
    proc = _start_run(tmp_path, 1000, "--save-partial", sigint=signal.SIG_IGN)
    status, err = _press_ctrl_c_once_it_iterates(proc)
    assert status == 0, err
    assert "interrupted" not in err and "Traceback" not in err, err
    warning = [line for line in err.splitlines() if line.startswith("smallvis: warning:")]
    assert len(warning) == 1 and "--save-partial" in warning[0], err
    assert "SIGINT is ignored" in warning[0], err
    Y = np.loadtxt(tmp_path / "y.csv", delimiter=",", skiprows=1)
    assert Y.shape == (150, 2) and np.all(np.isfinite(Y))
    assert (tmp_path / "y.png").read_bytes()[:4] == b"\x89PNG"


def test_unbuilt_kernels_say_what_to_do(monkeypatch):
    """Importing an unbuilt source tree used to end in a 'circular import' message."""
    import smallvis.backends._backend as backend

    monkeypatch.setattr(backend, "_kernels", None)
    monkeypatch.setattr(backend, "_IMPORT_ERROR", ImportError("circular import"))
    with pytest.raises(ImportError, match="source tree of a clone.*build_ext --inplace"):
        backend.kernels(True)


def test_many_text_labels_are_plotted_without_a_legend(tmp_path, monkeypatch):
    """More than 20 text labels (cell types, samples) get a colour each and no legend."""
    import matplotlib.pyplot as plt

    drawn = {}
    real_close = plt.close

    def close(fig):
        ax = fig.axes[0]
        drawn["legend"] = ax.get_legend()
        drawn["colours"] = np.unique(ax.collections[0].get_facecolors(), axis=0)
        real_close(fig)

    monkeypatch.setattr(plt, "close", close)
    rows = [f"{i},{(i * 7) % 11},name{i}" for i in range(30)]
    (tmp_path / "x.csv").write_text("a,b,who\n" + "\n".join(rows) + "\n")
    assert main(["embed", str(tmp_path / "x.csv"), "--labels", "who", "--n-iter", "20",
                 "--quiet", "--plot", str(tmp_path / "y.png")]) == 0
    assert drawn["legend"] is None
    assert len(drawn["colours"]) == 30


def test_the_recovery_warning_names_the_command_line_option():
    """The advice after a recovered divergence is spelled as the option a command-line user sets."""
    import warnings
    from types import SimpleNamespace

    from smallvis.engines.optim import _warn_if_recovered

    trace = SimpleNamespace(recoveries=[{"iteration": 7, "reason": "the cost rose",
                                         "learning_rate": 25.0}])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _warn_if_recovered(trace, 50.0)
    text = cli.cli_message(caught[0].message)
    assert "pass a smaller --learning-rate to avoid it" in text
    assert "learning_rate=" not in text


def test_a_warning_s_advice_is_spelled_as_options(tmp_path, capsys):
    """A warning of the package that says which keyword to pass (``optimizer='sgd'``,
    ``n_iter=``) names the option a command-line user types instead."""
    assert main(["embed", "iris", "--method", "umap", "--n-epochs", "5", "--n-iter", "20",
                 "--random-state", "0", "--quiet"]) == 0
    err = capsys.readouterr().err
    warning = [line for line in err.splitlines() if "is ignored" in line]
    assert len(warning) == 1, err
    assert "--n-epochs 5 is ignored" in warning[0]
    assert "pass --optimizer 'sgd' to run n_epochs epochs, or --n-iter to set" in warning[0]
    assert "=" not in warning[0]


def test_keyword_forms_of_switches_and_unknown_names_are_left_alone():
    """Only options that take a value are rewritten: ``fast=False`` has no ``--fast False``."""
    text = cli.cli_message(UserWarning("pass fast=False, axis=0 or n_neighbors=30"))
    assert text == "pass fast=False, axis=0 or --n-neighbors 30"
    assert cli.cli_message(cli.CLIError("--labels 'n_iter=3' is not a column")) == (
        "--labels 'n_iter=3' is not a column")
    # the package quotes what the user named (a path of a parameter sweep)
    path = "'runs/perplexity=30/data.csv', column 1 counts the rows"
    assert cli.cli_message(UserWarning(path)) == path
    assert cli.cli_message(UserWarning("umap's optimizer='sgd' in runs/n_iter=3")) == (
        "umap's --optimizer 'sgd' in runs/n_iter=3")


def test_a_run_without_outputs_says_that_nothing_was_written(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["embed", "iris", "--n-iter", "20", "--random-state", "0"]) == 0
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "nothing written (no --out, --plot, --animate or --save-model given)" in last
    assert list(tmp_path.iterdir()) == []


def test_auto_is_accepted_where_the_help_shows_it():
    """A parameter a method leaves to its own rule ("auto" in the help) takes `auto`,
    which is the same as leaving the option out."""
    parser = cli.build_parser()
    args = parser.parse_args(["embed", "iris", "--method", "largevis", "--n-neighbors", "auto",
                              "--early-gamma", "auto", "--early-epochs", "auto"])
    assert cli.method_parameters(args) == {}
    args = parser.parse_args(["embed", "iris", "--method", "largevis", "--early-epochs", "30"])
    assert cli.method_parameters(args) == {"early_epochs": 30}
    args = parser.parse_args(["embed", "iris", "--method", "largevis", "--n-neighbors", "40"])
    assert cli.method_parameters(args) == {"n_neighbors": 40}
    text = parser._subparsers._group_actions[0].choices["embed"].format_help()
    assert "--n-neighbors INT|auto" in text
    assert "largevis: auto; under the sgd optimizer: largevis 6" in " ".join(text.split())
