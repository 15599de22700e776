"""The smallvis command line."""

import os
import subprocess
import sys

import numpy as np
import pytest

from smallvis.cli import main


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


def test_sgd_optimizer_from_the_command_line(tmp_path, capsys):
    out = tmp_path / "u.csv"
    assert main(["embed", "iris", "--method", "umap", "--fast", "--optimizer", "sgd",
                 "--n-epochs", "30", "--random-state", "0", "--out", str(out)]) == 0
    assert np.loadtxt(out, delimiter=",", skiprows=1).shape == (150, 2)
    assert "sgd optimizer, 30 epochs" in capsys.readouterr().err
    assert main(["embed", "iris", "--method", "tsne", "--optimizer", "sgd", "--quiet"]) == 2
    assert "no stochastic form" in capsys.readouterr().err
