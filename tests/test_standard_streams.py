"""``--out /dev/stdout``: the bytes go through the process's own descriptor.

A file the shell opened with ``>`` has one offset shared by every command
writing through the shell's descriptor; the table must land between what
came before and what comes after, as it does through a pipe.  A reader that
closes the pipe early (``| head -1``) ends the command quietly.
"""

import os
import subprocess
import sys

import numpy as np
import pytest

import smallvis

# the package this test process imported (installed, or a clone built in
# place), not the clone's source tree, which has no compiled kernels
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(smallvis.__file__)))
SMALLVIS = f"{sys.executable} -m smallvis.cli"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX shell")


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("streams") / "in.csv"
    X = np.random.default_rng(0).normal(size=(20, 3))
    np.savetxt(path, X, delimiter=",", header="a,b,c", comments="")
    return str(path)


def _shell(script, cwd):
    env = {**os.environ, "PYTHONPATH": PACKAGE_PARENT}
    return subprocess.run(["sh", "-c", script], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def _embed(table, out):
    return (f"{SMALLVIS} embed {table} --method tumap --n-iter 5 --random-state 0 "
            f"--quiet --out {out}")


def test_stdout_into_a_truncated_file_keeps_the_order(table, tmp_path):
    piped = _shell(f"{{ echo before; {_embed(table, '/dev/stdout')}; echo after; }} | cat",
                   tmp_path)
    lines = piped.stdout.splitlines()
    assert lines[0] == "before" and lines[1].startswith("y1,y2") and lines[-1] == "after"
    assert len(lines) == 2 + 1 + 20
    redirected = _shell(
        f"{{ echo before; {_embed(table, '/dev/stdout')}; echo after; }} > log.txt", tmp_path)
    assert redirected.returncode == 0, redirected.stderr
    assert (tmp_path / "log.txt").read_text() == piped.stdout


def test_stderr_into_a_truncated_file_keeps_the_order(table, tmp_path):
    result = _shell(f"{{ echo before >&2; {_embed(table, '/dev/stderr')}; "
                    "echo after >&2; } 2> log.txt", tmp_path)
    assert result.returncode == 0
    lines = (tmp_path / "log.txt").read_text().splitlines()
    assert lines[0] == "before" and lines[1].startswith("y1,y2") and lines[-1] == "after"


def test_a_closed_pipe_ends_the_command_quietly(table, tmp_path):
    """The reader (``true``) is gone long before the table is ready."""
    script = f"{_embed(table, '/dev/stdout')} | true; echo status=${{PIPESTATUS[0]}}"
    result = subprocess.run(["bash", "-c", script], cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": PACKAGE_PARENT},
                            capture_output=True, text=True, timeout=120)
    assert result.stderr == ""
    assert result.stdout == "status=141\n"
