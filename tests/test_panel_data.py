"""benchmarks/make_panel_data.py: the clusters its docstring describes, and no file overwritten.

The expected sizes and spreads are worked out here from the recipe's
numbers (shares 2**(-c/2), spreads 3**(c/9)), not read from the module.
"""

import importlib
import os
import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture(scope="module")
def panel_data():
    saved_path = list(sys.path)
    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module("make_panel_data")
    finally:
        sys.path[:] = saved_path


def test_unequal_clusters_have_the_stated_sizes_and_spreads(panel_data):
    X, labels = panel_data.unequal_clusters(6000, seed=3)
    assert X.shape == (6000, 50) and labels.shape == (6000,)
    counts = np.bincount(labels)
    assert len(counts) == 10 and counts.sum() == 6000
    # shares 1, 2**-0.5, ..., 2**-4.5 of 6000: the largest 2**4.5 = 22.6 times the smallest
    assert counts[0] / counts[-1] == pytest.approx(2 ** 4.5, rel=0.02)
    assert np.all(np.diff(counts) < 0)
    # each cluster's spread about its own mean: the last three times the first
    spread = [np.sqrt(((X[labels == c] - X[labels == c].mean(0)) ** 2).sum(1).mean())
              for c in (0, 9)]
    assert spread[1] / spread[0] == pytest.approx(3.0, rel=0.15)
    # the rows are not grouped by cluster
    assert np.count_nonzero(np.diff(labels)) > 1000


def test_the_writer_makes_every_member_and_refuses_to_overwrite(panel_data, tmp_path,
                                                                monkeypatch):
    out = tmp_path / "panel"
    monkeypatch.setattr(sys, "argv", ["make_panel_data.py", str(out), "--n", "300"])
    panel_data.main()
    for name in ("roll", "curves", "unequal"):
        X, labels = np.load(out / f"{name}.npy"), np.load(out / f"{name}_labels.npy")
        assert X.shape[0] == labels.shape[0] == 300 and X.dtype == np.float64
        assert len(np.unique(labels)) == 10
    before = {p: os.path.getmtime(p) for p in out.iterdir()}
    kept = np.load(out / "roll.npy")
    with pytest.raises(SystemExit, match="exists"):
        panel_data.main()
    assert {p: os.path.getmtime(p) for p in out.iterdir()} == before
    np.testing.assert_array_equal(np.load(out / "roll.npy"), kept)
    # only the last member already there: the others are not written either
    for name in ("roll", "curves"):
        (out / f"{name}.npy").unlink()
        (out / f"{name}_labels.npy").unlink()
    with pytest.raises(SystemExit, match="unequal"):
        panel_data.main()
    assert sorted(p.name for p in out.iterdir()) == ["unequal.npy", "unequal_labels.npy"]
