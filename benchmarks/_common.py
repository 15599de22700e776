"""Helpers shared by the benchmark scripts: single-threaded timing, tables, provenance.

Every script calls :func:`report_provenance` first, so that its output
opens with the date, the machine, the library versions and the exact
command that made it: what the site's benchmarks pages need beside each
table.
"""

import os

#: Set (to any value) in a child process of a "defaults" benchmark, whose
#: libraries must choose their own threads: then nothing is capped here.
DEFAULT_THREADS_VAR = "SMALLVIS_BENCH_DEFAULT_THREADS"

#: The variables that cap the threads of OpenMP, BLAS and numba.
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "NUMBA_NUM_THREADS")

# One thread everywhere: set before numpy/scipy/BLAS are imported.
if DEFAULT_THREADS_VAR not in os.environ:
    for _var in THREAD_VARS:
        os.environ.setdefault(_var, "1")

import datetime  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import shlex  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

#: The distributions whose versions a benchmark's numbers depend on: smallvis,
#: its dependencies and the peers it is compared with (absent ones are left out).
DISTRIBUTIONS = ("smallvis", "numpy", "scipy", "annoy", "scikit-learn", "matplotlib",
                 "umap-learn", "pynndescent", "numba", "openTSNE")

REPO = Path(__file__).resolve().parent.parent


def median_time(fn, repeats):
    """Median wall-clock seconds of ``repeats`` calls, and the last result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times, result


def print_table(title, rows, baseline):
    """Print name, median seconds, runs and speed-up relative to ``baseline``."""
    base = dict((r[0], r[1]) for r in rows).get(baseline)
    print(f"\n{title}")
    print(f"{'implementation':<38} {'median s':>10} {'runs':>28} {'x vs ' + baseline:>22}")
    for name, median, times in rows:
        ratio = f"{base / median:.1f}x" if base else "-"
        runs = ", ".join(f"{t:.2f}" for t in times)
        print(f"{name:<38} {median:>10.3f} {runs:>28} {ratio:>22}")


def _versions_code():
    return ("import importlib.metadata as m, json, platform\n"
            f"names = {DISTRIBUTIONS!r}\n"
            "found = {}\n"
            "for name in names:\n"
            "    try:\n"
            "        found[name] = m.version(name)\n"
            "    except m.PackageNotFoundError:\n"
            "        try:\n"  # a checkout built in place has no metadata
            "            found[name] = __import__(name.replace('-', '_')).__version__\n"
            "        except (ImportError, AttributeError):\n"
            "            pass\n"
            "found['python'] = platform.python_version()\n"
            "print(json.dumps(found))\n")


def versions(python=None):
    """Versions of Python and of :data:`DISTRIBUTIONS` installed for ``python``.

    ``python`` is an interpreter (the peers may live in another
    environment); by default this one, asked in-process.  A distribution
    that is not installed is left out rather than guessed.
    """
    if python is None or python == sys.executable:
        namespace = {}
        with _captured() as out:
            exec(_versions_code(), namespace)
        return json.loads(out.getvalue())
    try:
        done = subprocess.run([python, "-c", _versions_code()], capture_output=True, text=True)
    except OSError as exc:
        return {"error": f"{python}: {exc}"}
    if done.returncode:
        return {"error": f"{python}: {done.stderr.strip().splitlines()[-1:]}"}
    return json.loads(done.stdout)


class _captured:
    def __enter__(self):
        import io
        self._saved, sys.stdout = sys.stdout, io.StringIO()
        return sys.stdout

    def __exit__(self, *exc):
        sys.stdout = self._saved


def _cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gib():
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def _git_commit():
    try:
        done = subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty",
                               "--abbrev=12"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None


def command(argv=None):
    """The command line that reproduces this run, from the repository's root."""
    argv = list(sys.argv if argv is None else argv)
    script = Path(argv[0]).resolve()
    try:
        argv[0] = script.relative_to(REPO).as_posix()
    except ValueError:
        argv[0] = str(script)
    return "python " + shlex.join(argv)


def provenance(argv=None, peers_python=None):
    """Date, machine, versions and command of a benchmark run, as a dict.

    Parameters
    ----------
    argv : list of str, optional
        The script and its arguments (default ``sys.argv``).
    peers_python : str, optional
        An interpreter that runs the peers; its versions are recorded too.
    """
    record = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": command(argv),
        "commit": _git_commit(),
        "machine": {
            "system": f"{platform.system()} {platform.release()} {platform.machine()}",
            "cpu": _cpu_model(),
            "cores": os.cpu_count(),
            "memory_gib": _memory_gib(),
            "load_average": [round(x, 2) for x in os.getloadavg()],
        },
        "versions": versions(),
    }
    if peers_python and peers_python != sys.executable:
        record["peer_versions"] = versions(peers_python)
    return record


def report_provenance(argv=None, peers_python=None, out_dir=None):
    """Print :func:`provenance` as comment lines; also write it to ``out_dir``.

    Returns the record.  ``out_dir`` (when given) gets ``provenance.json``
    beside the run's other files.
    """
    record = provenance(argv, peers_python)
    machine = record["machine"]
    lines = [
        f"date: {record['date']}",
        f"command: {record['command']}",
        f"commit: {record['commit']}",
        f"machine: {machine['system']}, {machine['cpu']}, {machine['cores']} cores, "
        f"{machine['memory_gib']} GiB, load average {machine['load_average']}",
        "versions: " + ", ".join(f"{k} {v}" for k, v in record["versions"].items()),
    ]
    if "peer_versions" in record:
        lines.append("peer versions: " + ", ".join(
            f"{k} {v}" for k, v in record["peer_versions"].items()))
    print("\n".join(f"# {line}" for line in lines), flush=True)
    if out_dir is not None:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        (Path(out_dir) / "provenance.json").write_text(json.dumps(record, indent=1) + "\n")
    return record
