"""Every benchmark's output records its date, machine, versions and command.

The site's benchmarks pages give each table the command that reproduces
it and the versions it ran with; ``benchmarks/_common.py`` records them,
and every script calls it first.
"""

import ast
import datetime
import importlib
import json
import os
import platform
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture(scope="module")
def common():
    """benchmarks/_common.py, imported without keeping its thread settings."""
    saved_env, saved_path = dict(os.environ), list(sys.path)
    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module("_common")
    finally:
        sys.path[:] = saved_path
        os.environ.clear()
        os.environ.update(saved_env)


def test_the_record_holds_date_machine_versions_and_a_command_that_replays(common):
    argv = [str(BENCHMARKS / "bench_knn.py"), "--n", "20 000", "--data", "a'b"]
    record = common.provenance(argv)
    stamp = datetime.datetime.strptime(record["date"], "%Y-%m-%d %H:%M UTC")
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    assert abs((now - stamp).total_seconds()) < 3600
    # the command, split as a shell splits it, is the run's own argument list,
    # with the script named from the repository's root
    assert shlex.split(record["command"]) == ["python", "benchmarks/bench_knn.py",
                                              "--n", "20 000", "--data", "a'b"]
    assert record["machine"]["cores"] == os.cpu_count()
    assert record["versions"]["numpy"] == np.__version__
    assert record["versions"]["python"] == platform.python_version()
    assert "smallvis" in record["versions"]


def test_another_interpreter_is_asked_for_its_own_versions(common, tmp_path):
    # a second path to this interpreter makes the helper ask it in a child: a
    # script that runs it (a symlink outside a virtual environment would start
    # the base interpreter, with its own packages)
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    record = common.provenance(["bench_x.py"], peers_python=str(python))
    assert record["peer_versions"]["numpy"] == np.__version__
    missing = common.versions(str(tmp_path / "no-such-python"))
    assert "error" in missing and "no-such-python" in missing["error"]


def test_the_report_is_printed_and_written_beside_the_outputs(common, tmp_path, capsys):
    record = common.report_provenance(["benchmarks/bench_x.py", "--n", "5"],
                                      out_dir=tmp_path / "run")
    printed = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in printed[:5]] == [
        "# date", "# command", "# commit", "# machine", "# versions"]
    assert "python benchmarks/bench_x.py --n 5" in printed[1]
    assert json.loads((tmp_path / "run" / "provenance.json").read_text()) == record


@pytest.mark.parametrize("script", sorted(BENCHMARKS.glob("bench_*.py")), ids=lambda p: p.name)
def test_every_benchmark_reports_its_provenance_in_main(script):
    tree = ast.parse(script.read_text())
    main = next(node for node in tree.body
                if isinstance(node, ast.FunctionDef) and node.name == "main")
    calls = [node for node in ast.walk(main) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute) and node.func.attr == "report_provenance"]
    assert calls, f"{script.name}: main() does not call _common.report_provenance"


@pytest.mark.parametrize("script", sorted(p for p in BENCHMARKS.glob("*.py")
                                          if not p.name.startswith("_")), ids=lambda p: p.name)
def test_every_script_is_named_in_the_table_of_the_benchmarks_page(script):
    page = (BENCHMARKS.parent / "docs" / "project" / "benchmarks.md").read_text(encoding="utf-8")
    rows = [line for line in page.splitlines() if line.startswith("| ")]
    assert any(f"`{script.name}`" in row.split(" | ")[0] for row in rows), (
        f"docs/project/benchmarks.md: the table of scripts does not name {script.name}")
