"""benchmarks/bench_scale.py runs end to end on a small size and prints its table.

The quality measures it reuses are checked against brute force in
tests/test_bench_real.py; here the script's plumbing is checked: every
call runs in its own child, a failing call becomes a "failed" row instead
of stopping the table, and the quality columns are filled from the maps.
"""

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_scale.py"


def table_rows(stdout):
    return [line.split("|")[1:-1] for line in stdout.splitlines()
            if line.startswith("| ") and not line.startswith("| N ")]


def test_a_small_run_prints_a_full_row_and_a_failed_one():
    out = subprocess.run(
        [sys.executable, str(BENCH), "--sizes", "400", "--methods", "largevis", "umap",
         "--skip-umap-learn", "--largevis-params", json.dumps({"n_epochs": -3, "optimizer": "sgd"})],
        capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows = table_rows(out.stdout)
    assert len(rows) == 2
    largevis, umap = rows
    assert "failed" in largevis[2] and "n_epochs" in largevis[2]
    assert len(umap) == 11 and umap[1].strip() == "smallvis umap"
    total, cpu, peak, before = (float(umap[i]) for i in (5, 6, 7, 8))
    assert 0 < cpu and 0 < total and 0 < before <= peak
    accuracy, preservation = float(umap[9]), float(umap[10])
    # 25 well-separated classes: a UMAP map of them is nearly all correct
    assert accuracy > 0.9
    assert 0 < preservation <= 1
