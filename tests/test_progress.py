"""Progress from the first second: verbose runs announce every stage with its time."""

import re
import warnings

import numpy as np
import pytest

import smallvis
from smallvis import _progress
from smallvis.inputs.neighbors import nearest_neighbors


def _stage_lines(err):
    return [line for line in err.splitlines() if line.startswith("smallvis: ")]


def test_verbose_run_announces_each_stage_in_order(capsys):
    X, _ = smallvis.datasets.load("iris")
    smallvis.embed(X, "umap", knn_method="annoy", n_iter=50, random_state=0, verbose=True)
    lines = _stage_lines(capsys.readouterr().err)
    expected = [r"umap, 150 points, exact optimizer", r"kNN: annoy, 14 neighbours of 150",
                r"kNN: 10 trees built in \d+\.\d\ds", r"kNN: 150 queries in \d+\.\d\ds",
                r"kNN: refinement round 1 \(\d+ rows changed\) in \d+\.\d\ds",
                r"kNN: done in", r"calibration: UMAP bandwidths over 15 neighbours",
                r"calibration: done in", r"init: spca", r"init: done in",
                r"optimisation: exact optimizer", r"optimisation: done in"]
    position = 0
    for pattern in expected:  # in this order, other lines may come between
        while not re.search(pattern, lines[position]):
            position += 1
            assert position < len(lines), f"{pattern!r} missing or out of order:\n" + \
                "\n".join(lines)


def test_exact_knn_and_dense_calibration_announce_themselves(capsys):
    X, _ = smallvis.datasets.load("iris")
    smallvis.embed(X, "largevis", n_iter=5, verbose=True)
    smallvis.embed(X, "tsne", n_iter=5, verbose=True)
    err = capsys.readouterr().err
    assert "smallvis: kNN: exact, 149 neighbours of 150 points" in err
    assert "smallvis: calibration: perplexity 50 over 149 neighbours" in err
    assert "smallvis: calibration: perplexity 30 over all 150 points" in err


def test_quiet_by_default_and_after_a_verbose_run(capsys):
    X, _ = smallvis.datasets.load("iris")
    smallvis.embed(X, "umap", n_iter=5)
    assert capsys.readouterr().err == ""
    smallvis.embed(X, "umap", n_iter=5, verbose=True)
    capsys.readouterr()
    nearest_neighbors(X, 5, method="annoy", random_state=0)
    assert capsys.readouterr().err == ""
    with pytest.raises(ValueError):
        smallvis.embed(X, "umap", n_iter=-1, verbose=True)
    nearest_neighbors(X, 5, method="annoy", random_state=0)
    assert capsys.readouterr().err == ""


def test_stage_and_step_are_silent_unless_reporting(capsys):
    with _progress.stage("kNN", "x"):
        _progress.step("kNN", "y", 0.0)
    assert capsys.readouterr().err == ""
    with _progress.reporting():
        with _progress.stage("kNN", "x"):
            _progress.step("kNN", "y", 0.0)
    lines = _stage_lines(capsys.readouterr().err)
    assert lines[0] == "smallvis: kNN: x"
    assert re.fullmatch(r"smallvis: kNN: y in \d+\.\d\ds", lines[1])
    assert re.fullmatch(r"smallvis: kNN: done in \d+\.\d\ds", lines[2])


def test_warnings_still_point_at_the_caller():
    X = np.vstack([np.zeros((20, 2)), np.ones((20, 2)) * 50]) + \
        np.random.default_rng(0).normal(scale=0.1, size=(40, 2))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        smallvis.embed(X, "umap", n_neighbors=5, init="spectral", n_iter=2, verbose=True)
    assert any(w.filename == __file__ for w in caught), [(w.filename, str(w.message))
                                                         for w in caught]


def test_slow_exact_iterations_get_a_heartbeat(capsys):
    """Between cost evaluations (every 50 iterations) a slow run still reports."""
    beat = _progress.Heartbeat(100, None, seconds=0.0)
    assert beat(1, None, None) is False
    beat(50, None, 1.0)  # a cost evaluation: the optimizer printed its own line
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and re.match(r"iter +1/100  elapsed +\d+\.\d\ds  ETA", lines[0])
    calls = []
    beat = _progress.Heartbeat(10, lambda *args: calls.append(args) or True, seconds=1e9)
    assert beat(3, "Y", None) is True and calls == [(3, "Y", None)]
    assert capsys.readouterr().err == ""


def test_verbose_exact_run_is_the_same_run():
    X, _ = smallvis.datasets.load("iris")
    runs = [smallvis.embed(X, "tsne", n_iter=60, random_state=2, verbose=verbose)
            for verbose in (False, True)]
    np.testing.assert_array_equal(runs[0], runs[1])
