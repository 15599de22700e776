"""The thread policy (smallvis._threads): one thread below a measured amount of work."""

import copy
import inspect
import os

import numpy as np
import pytest

import smallvis
from smallvis import _threads
from smallvis.backends import _kernels
from smallvis.engines import sgd as _sgd
from smallvis.registry import METHODS
from smallvis._validation import check_threads

from conftest import digits_sample


def test_exact_threads_crossover():
    n0 = _threads.exact_min_samples()
    assert n0 * (n0 - 1) // 2 >= _threads.EXACT_MIN_PAIRS > (n0 - 1) * (n0 - 2) // 2
    assert _threads.exact_threads(2, n0 - 1) == 1
    assert _threads.exact_threads(2, n0) == 2
    assert _threads.exact_threads(1, 10 * n0) == 1
    assert _threads.exact_threads(8, 10 * n0) == 8


def test_the_docs_state_the_exact_kernels_crossover():
    # 20,000 x 19,999 / 2 = 199,990,000 pairs, by hand: the first N with
    # that many pairs is 20,000
    assert _threads.EXACT_MIN_PAIRS == 199_990_000
    assert _threads.exact_min_samples() == 20_000
    doc = " ".join(smallvis.cost_and_gradient.__doc__.split())
    assert "fewer than 20,000 points" in doc
    assert "10,000 points" not in doc


def test_sgd_threads_crossover():
    m = _threads.SGD_MIN_EPOCH_SAMPLES
    assert _threads.sgd_threads(2, m - 1) == 1
    assert _threads.sgd_threads(2, m) == 2
    assert _threads.sgd_threads(1, 10 * m) == 1


def _spy(monkeypatch, name):
    """Record the n_threads (last argument) of every call of a Cython kernel."""
    seen, real = [], getattr(_kernels, name)

    def spy(*args):
        seen.append(args[-1])
        return real(*args)
    monkeypatch.setattr(_kernels, name, spy)
    return seen


@pytest.mark.parametrize("min_pairs, expected", [(None, 1), (0, 2)])
def test_small_exact_runs_use_one_thread(monkeypatch, min_pairs, expected):
    """Below the crossover a request for 2 threads runs (and reproduces) 1 thread."""
    if min_pairs is not None:
        monkeypatch.setattr(_threads, "EXACT_MIN_PAIRS", min_pairs)
    seen = _spy(monkeypatch, "tsne_gradient")
    X, _ = smallvis.datasets.load("iris")
    Y2 = smallvis.embed(X, "tsne", fast=True, n_threads=2, n_iter=60, random_state=0)
    assert set(seen) == {expected}
    if expected == 1:
        Y1 = smallvis.embed(X, "tsne", fast=True, n_threads=1, n_iter=60, random_state=0)
        np.testing.assert_array_equal(Y1, Y2)


def test_cost_and_gradient_follows_the_policy(monkeypatch):
    seen = _spy(monkeypatch, "tsne_gradient")
    P = smallvis.affinities(np.random.default_rng(0).normal(size=(40, 5)), "tsne",
                            perplexity=10)
    Y = np.random.default_rng(1).normal(size=(40, 2))
    smallvis.cost_and_gradient("tsne", P, Y, fast=True, n_threads=2)
    monkeypatch.setattr(_threads, "EXACT_MIN_PAIRS", 40 * 39 // 2)
    smallvis.cost_and_gradient("tsne", P, Y, fast=True, n_threads=2)
    assert seen == [1, 2]


@pytest.mark.parametrize("callback_every", [None, 1, 7])
def test_sgd_threads_depend_on_the_problem_not_on_the_blocks(monkeypatch, callback_every):
    """Every kernel call of a run gets the same thread count, from the samples per epoch.

    So the blocks of epochs (``callback_every``, the early phase) cannot
    change a run's thread count, and with it its result.
    """
    seen = _spy(monkeypatch, "sgd_epochs")
    P = smallvis.affinities(np.random.default_rng(0).normal(size=(60, 5)), "umap")
    Y0 = np.random.default_rng(1).normal(size=(60, 2))
    prob = _sgd.prepare(METHODS["umap"].sgd, P, 95, {"a": 1.6, "b": 0.9}, 1.0, _kernels)
    samples = _sgd.positive_samples_per_epoch(prob)
    # epochs_per_sample: one sample every edge_weight epochs, summed
    assert 0 < samples <= P.nnz
    callback = None if callback_every is None else (lambda *a: False)
    results = []
    for threshold, expected in ((samples + 1, 1), (samples, 2)):
        monkeypatch.setattr(_threads, "SGD_MIN_EPOCH_SAMPLES", threshold)
        seen.clear()
        Y = Y0.copy()
        _sgd.optimize_sgd(Y, _kernels, copy.deepcopy(prob), 7, n_threads=2, callback=callback,
                          callback_every=callback_every or 1)
        assert set(seen) == {expected} and len(seen) >= 10
        results.append(Y)
    assert not np.array_equal(results[0], results[1])  # two threads: another schedule


@pytest.mark.filterwarnings("ignore:the affinity graph")
@pytest.mark.parametrize("name", [n for n, m in METHODS.items() if m.sgd is not None])
def test_sgd_on_two_threads_keeps_quality(monkeypatch, name):
    """Every sampling scheme on 2 threads (the prefetching loop): finite, as good.

    Each method's own block size must reach the two-thread loop, so the
    crossover is lowered; the floors are those of the one-thread quality test
    in tests/test_sgd.py.
    """
    from smallvis.metrics import knn_accuracy, knn_preservation
    monkeypatch.setattr(_threads, "SGD_MIN_EPOCH_SAMPLES", 0)
    seen = _spy(monkeypatch, "sgd_epochs")
    X, labels = digits_sample()
    Y = smallvis.embed(X, name, fast=True, optimizer="sgd", n_threads=2, random_state=1)
    assert set(seen) == {2}
    assert np.all(np.isfinite(Y))
    assert knn_preservation(X, Y, 15) >= 0.45
    assert knn_accuracy(Y, labels, 10) >= 0.90


# ---------------------------------------------------------------------------
# the default thread count: affinity, cgroup quota, OMP_NUM_THREADS
# ---------------------------------------------------------------------------


def _cgroups(monkeypatch, tmp_path, proc_lines, files, cores=8):
    """Point the cgroup reader at ``tmp_path`` (``files``: relative path -> text),
    with ``cores`` cores in the affinity mask and no OMP_NUM_THREADS."""
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    proc = tmp_path / "proc_self_cgroup"
    proc.write_text("\n".join(proc_lines) + "\n")
    monkeypatch.setattr(_threads, "CGROUP_ROOT", str(tmp_path))
    monkeypatch.setattr(_threads, "PROC_CGROUP", str(proc))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)


@pytest.mark.parametrize("cpu_max, expected", [
    ("max 100000", 8),          # no quota: the affinity
    ("200000 100000", 2),       # two cores
    ("150000 100000", 1),       # 1.5 cores: the floor
    ("50000 100000", 1),        # half a core: at least 1
    ("1600000 100000", 8),      # a quota above the affinity
])
def test_cgroup_v2_quota_caps_the_affinity(monkeypatch, tmp_path, cpu_max, expected):
    _cgroups(monkeypatch, tmp_path, ["0::/job"],
             {"cgroup.controllers": "cpu", "job/cpu.max": cpu_max})
    assert _threads.available_cores() == expected
    assert _threads.default_threads() == expected
    assert check_threads(None) == expected
    assert check_threads(-1) == expected


def test_cgroup_v2_parent_quota_binds(monkeypatch, tmp_path):
    _cgroups(monkeypatch, tmp_path, ["0::/a/b"],
             {"cgroup.controllers": "cpu", "a/cpu.max": "300000 100000",
              "a/b/cpu.max": "max 100000"})
    assert _threads.available_cores() == 3


@pytest.mark.parametrize("quota, expected", [("-1", 8), ("400000", 4), ("250000", 2)])
def test_cgroup_v1_quota(monkeypatch, tmp_path, quota, expected):
    _cgroups(monkeypatch, tmp_path, ["4:memory:/x", "2:cpu,cpuacct:/docker/abc"],
             {"cpu,cpuacct/docker/abc/cpu.cfs_quota_us": quota,
              "cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000"})
    assert _threads.available_cores() == expected


def test_no_cgroup_files_leave_the_affinity(monkeypatch, tmp_path):
    _cgroups(monkeypatch, tmp_path, [], {}, cores=3)
    assert _threads.cgroup_cpu_limit() is None
    assert _threads.available_cores() == 3


@pytest.mark.parametrize("omp, expected", [
    ("2", 2), ("64", 6), ("1", 1), ("3,2", 3),   # a positive count caps the default
    ("0", 6), ("-2", 6), ("four", 6), ("", 6),   # anything else is ignored
])
def test_omp_num_threads_caps_the_default_only(monkeypatch, tmp_path, omp, expected):
    _cgroups(monkeypatch, tmp_path, [], {}, cores=6)
    monkeypatch.setenv("OMP_NUM_THREADS", omp)
    assert check_threads(None) == expected
    # -1 and explicit counts are the caller's: OMP_NUM_THREADS does not cap them
    assert check_threads(-1) == 6
    assert check_threads(5) == 5


def test_explicit_threads_above_the_available_cores_are_lowered(monkeypatch, tmp_path):
    _cgroups(monkeypatch, tmp_path, ["0::/"], {"cgroup.controllers": "cpu",
                                              "cpu.max": "200000 100000"}, cores=8)
    with pytest.warns(RuntimeWarning, match=r"n_threads = 5 is more than the 2 core"):
        assert check_threads(5) == 2
    assert check_threads(2) == 2
    for bad in (0, -2, 1.5, "2"):
        with pytest.raises((ValueError, TypeError), match="n_threads"):
            check_threads(bad)


def _public_threads_defaults():
    """Every public callable with an ``n_threads`` parameter, and its default."""
    from smallvis import transform as _transform
    from smallvis.inputs import neighbors
    found = {}
    for owner in (smallvis, smallvis.input_affinities, neighbors, _transform.TrainingMap,
                  smallvis.Embedding, *_METHOD_ESTIMATORS):
        for name in dir(owner):
            obj = getattr(owner, name)
            if name.startswith("_") and name != "__init__" or not callable(obj):
                continue
            try:
                params = inspect.signature(obj).parameters
            except (TypeError, ValueError):
                continue
            if "n_threads" in params and params["n_threads"].default is not inspect._empty:
                found[f"{getattr(owner, '__name__', owner)}.{name}"] = params["n_threads"].default
    return found


_METHOD_ESTIMATORS = [getattr(smallvis, name) for name in dir(smallvis)
                      if isinstance(getattr(smallvis, name), type)
                      and issubclass(getattr(smallvis, name), smallvis.Embedding)]


def test_every_public_default_is_the_available_cores():
    found = _public_threads_defaults()
    assert {"smallvis.embed", "smallvis.affinities", "smallvis.cost_and_gradient",
            "TrainingMap.transform"} <= set(found)
    assert {k: v for k, v in found.items() if v is not None} == {}


def test_cli_threads_default_is_the_available_cores():
    from smallvis import cli
    parser = cli.build_parser()
    for sub in ("embed", "transform"):
        actions = [a for a in _subparser(parser, sub)._actions if "--threads" in a.option_strings]
        assert len(actions) == 1 and actions[0].default is None


def _subparser(parser, name):
    import argparse
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[name]
    raise AssertionError("no subcommands")


@pytest.mark.filterwarnings("ignore:the affinity graph")
def test_default_runs_small_problems_on_one_thread(monkeypatch):
    """With the new default a small run still calls every kernel on one thread."""
    monkeypatch.setattr(_threads, "available_cores", lambda: 2)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    seen = _spy(monkeypatch, "sgd_epochs")
    P = smallvis.affinities(np.random.default_rng(0).normal(size=(60, 5)), "umap")
    assert P.shape == (60, 60)
    X, _ = smallvis.datasets.load("iris")
    smallvis.embed(X, "umap", fast=True, optimizer="sgd", n_epochs=50, random_state=0)
    assert set(seen) == {1}


def test_placement_threads_crossover():
    n = _threads.EXACT_MIN_PAIRS
    assert _threads.placement_threads(2, 1, n - 1) == 1
    assert _threads.placement_threads(2, 1, n) == 2
    assert _threads.placement_threads(2, 1000, n // 1000 + 1) == 2
    assert _threads.placement_threads(1, 10, n) == 1


@pytest.mark.parametrize("min_pairs, expected", [(None, 1), (0, 2)])
def test_small_placements_use_one_thread(monkeypatch, min_pairs, expected):
    """A few new points against a small map run one thread, whatever was asked.

    Each point's row is computed by one thread, so the placement is the same
    bit for bit on either side of the crossover.
    """
    from smallvis.transform import TrainingMap
    X, _ = smallvis.datasets.load("iris")
    est = smallvis.Embedding(method="tsne", n_iter=50, random_state=0).fit(X)
    single = est.training_map_.transform(X[:3], n_iter=20, n_threads=1)
    if min_pairs is not None:
        monkeypatch.setattr(_threads, "EXACT_MIN_PAIRS", min_pairs)
    seen, real = [], TrainingMap.kernels

    def spied(self, *args, **kwargs):
        cost, gradient, extra = real(self, *args, **kwargs)

        def spy(*a):
            seen.append(a[-1])
            return gradient(*a)
        return cost, spy, extra
    monkeypatch.setattr(TrainingMap, "kernels", spied)
    placed = est.training_map_.transform(X[:3], n_iter=20, n_threads=2)
    assert set(seen) == {expected}
    np.testing.assert_array_equal(placed, single)


@pytest.mark.parametrize("n_threads", [1, 3])
def test_each_block_calls_every_start_once_and_raises_a_calls_error(n_threads):
    seen = []
    _threads.each_block(seen.append, range(0, 50, 7), n_threads)
    assert sorted(seen) == list(range(0, 50, 7))

    def fail_at_14(start):
        if start == 14:
            raise ValueError("block 14")

    with pytest.raises(ValueError, match="block 14"):
        _threads.each_block(fail_at_14, range(0, 50, 7), n_threads)
