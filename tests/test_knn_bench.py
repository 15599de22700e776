"""benchmarks/bench_knn.py --stages: the kNN stage split into its sub-stages.

The issue-45 measurements (docs/experiments.md, 2026-12-02) come from this
mode; a small run checks that it still finds the search's sub-stages under
the names the search calls them by, and reports a recall.
"""

import argparse
import importlib
import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture
def bench_knn(monkeypatch):
    """benchmarks/bench_knn.py, imported without keeping its thread settings
    or the timing wrappers it puts on the search's functions."""
    saved_env, saved_path = dict(os.environ), list(sys.path)
    sys.path.insert(0, str(BENCHMARKS))
    try:
        module = importlib.import_module("bench_knn")
    finally:
        sys.path[:] = saved_path
        os.environ.clear()
        os.environ.update(saved_env)
    for module_name, name in module.STAGE_FUNCTIONS:  # undone after the test
        target = importlib.import_module(module_name)
        if hasattr(target, name):
            monkeypatch.setattr(target, name, getattr(target, name))
    return module


def _run(bench_knn, path, metric, capsys):
    args = argparse.Namespace(stages=str(path), n=500, k=10, repeats=1, knn_trees=3,
                              threads=1, metric=metric, knn_method="annoy")
    bench_knn.stages(args)
    return capsys.readouterr().out


def _recall(out):
    return float(re.search(r"recall of the exact 10-NN on \d+ rows: ([0-9.]+)", out).group(1))


def test_stages_of_the_projected_search_are_all_timed(bench_knn, tmp_path, capsys):
    # 500 features: the projected search of images (projected_search.MIN_FEATURES)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((500, 5)) @ rng.standard_normal((5, 500))
    path = tmp_path / "dense.npy"
    np.save(path, X.astype(np.float32))
    out = _run(bench_knn, path, "euclidean", capsys)
    for label in ("fit_search_projection", "forest_build", "forest_candidates", "refine",
                  "candidate distances (projected)", "exact distances", "exact_neighbours",
                  "kNN stage (total)"):
        assert re.search(rf"^  {re.escape(label)} +\d+\.\d\d", out, re.M), label
    assert 0.0 <= _recall(out) <= 1.0


def test_stages_of_sparse_text_are_timed(bench_knn, tmp_path, capsys):
    X = sp.random(500, 300, density=0.05, random_state=0, format="csr")
    X = X[np.flatnonzero(X.getnnz(axis=1))]  # cosine refuses empty rows
    path = tmp_path / "text.npz"
    sp.save_npz(path, X)
    out = _run(bench_knn, path, "cosine", capsys)
    assert re.search(r"^  kNN stage \(total\) +\d+\.\d\d", out, re.M)
    assert 0.0 <= _recall(out) <= 1.0
