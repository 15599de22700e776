"""CI's lowest-releases job pins exactly the lower bounds pyproject.toml declares."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOWER_BOUND = re.compile(r"^([A-Za-z0-9_.-]+)\s*>=\s*([0-9][0-9.]*)$")
PIN = re.compile(r"^([A-Za-z0-9_.-]+)\s*==\s*([0-9][0-9.]*)$")


def _name(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def _release(text):
    """A release as a tuple of three numbers, so that 1.26 equals 1.26.0."""
    parts = tuple(int(p) for p in text.split("."))
    return parts + (0,) * (3 - len(parts))


def _lower_bounds(requirements):
    bounds = {}
    for req in requirements:
        match = LOWER_BOUND.match(req.strip())
        assert match, f"{req!r}: a dependency needs a plain '>=' lower bound to be tested"
        bounds[_name(match[1])] = _release(match[2])
    return bounds


def _pins():
    pins = {}
    for line in (ROOT / ".ci" / "min-versions.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            match = PIN.match(line)
            assert match, f".ci/min-versions.txt: {line!r} is not an exact pin"
            pins[_name(match[1])] = _release(match[2])
    return pins


def test_every_runtime_lower_bound_is_pinned_in_the_lowest_releases_job():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = _lower_bounds(project["dependencies"])
    pins = _pins()
    missing = sorted(set(runtime) - set(pins))
    assert not missing, f"not pinned in .ci/min-versions.txt: {missing}"
    for name, bound in runtime.items():
        assert pins[name] == bound, (name, pins[name], bound)


def test_every_pin_is_a_declared_lower_bound():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = _lower_bounds(project["dependencies"])
    test_extra = {}
    for req in project["optional-dependencies"]["test"]:
        match = LOWER_BOUND.match(req.strip())
        if match:
            test_extra[_name(match[1])] = _release(match[2])
    for name, pin in _pins().items():
        bound = declared.get(name, test_extra.get(name))
        assert bound is not None, f"{name} is pinned but pyproject.toml declares no bound"
        assert pin == bound, (name, pin, bound)
