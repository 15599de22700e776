"""The stochastic loop on several threads: the same bits on every run, in both twins.

With ``n_threads > 1`` every epoch runs the schedule of
:func:`smallvis.backends.reference.sgd_epochs`: each thread's share of the
items on its own copy of Y and q, the changes added in thread order at the
epoch's end.  The NumPy twin runs the same schedule in order, so the twins
agree bit for bit at any thread count, and a run does not depend on how the
threads were scheduled.
"""

import copy

import numpy as np
import pytest

import smallvis
from smallvis import _threads, datasets
from smallvis.backends import _kernels, reference
from smallvis.engines import sgd
from smallvis.engines.init import initialize
from smallvis.registry import METHODS

from conftest import digits_sample

SGD_METHODS = [name for name, m in METHODS.items() if m.sgd is not None]


def _problem(name, X, n_epochs, correct_q=False, kernels=reference):
    """The kernel inputs and initial Y of ``name`` on X, as embed() builds them."""
    m = METHODS[name]
    params = {**m.sgd.param_defaults}
    if name == "largevis":
        params["perplexity"] = min(30.0, (X.shape[0] - 1) / 3)
    affinity_params, cost_params = m.split_params(params, X.shape[0])
    P = m.build_affinities(X, kernels, 0, 1, **affinity_params)
    Y0 = initialize(m.sgd.init, X, 2, np.random.default_rng(0), P=P)
    prob = sgd.prepare(m.sgd, P, n_epochs, m.sgd.unit_params(**cost_params),
                       m.sgd.learning_rate, kernels, correct_q=correct_q)
    return prob, Y0


def _run(kernels, prob, Y0, seed, n_threads, blocks=()):
    """Y and q after the whole run, the epochs cut at ``blocks``."""
    prob = copy.deepcopy(prob)
    Y = Y0.copy()
    cuts = [0, *blocks, prob.n_epochs]
    for e0, e1 in zip(cuts[:-1], cuts[1:]):
        kernels.sgd_epochs(prob, Y, seed, e0, e1, n_threads)
    return Y, prob.q.copy()


def _bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


@pytest.mark.filterwarnings("ignore:the affinity graph")
@pytest.mark.parametrize("name,correct_q", [(name, False) for name in SGD_METHODS]
                         + [("ncvis", True)])
def test_twins_agree_bitwise_on_two_and_three_threads(iris60, name, correct_q):
    """The NumPy twin's schedule of T threads is the Cython loop's, bit for bit.

    Every scheme and noise, the grouped step, the learned Q and its
    per-row correction; three threads (NCVis) split the items unevenly.  The
    epochs run in two blocks: the schedule is per epoch, so blocks change
    nothing.
    """
    prob, Y0 = _problem(name, iris60, 8, correct_q=correct_q)
    one, _ = _run(_kernels, prob, Y0, 2024, 1)
    for n_threads in (2, 3) if name == "ncvis" else (2,):
        Y_ref, q_ref = _run(reference, prob, Y0, 2024, n_threads)
        Y_fast, q_fast = _run(_kernels, prob, Y0, 2024, n_threads, blocks=(3,))
        assert np.all(np.isfinite(Y_ref)) and np.abs(Y_ref - Y0).max() > 0.01
        np.testing.assert_array_equal(_bits(Y_fast), _bits(Y_ref))
        np.testing.assert_array_equal(_bits(q_fast), _bits(q_ref))
        # another schedule than one thread's (the threads see each other's
        # updates one epoch late), so a different map
        assert not np.array_equal(Y_fast, one)


@pytest.fixture(scope="module")
def iris60():
    X, _ = datasets.load("iris")
    return X[::2][:60]


@pytest.mark.parametrize("name", SGD_METHODS)
def test_two_threads_give_the_same_bits_on_every_run(name):
    """The Cython loop on two threads, several runs of a digits problem: identical.

    The threads really run at once (the kernel is called with 2 threads,
    below the policy's size), on a problem where a lock-free loop's
    interleaving changes the result from run to run.
    """
    X, _ = digits_sample()
    prob, Y0 = _problem(name, X, 30, kernels=_kernels)
    first, q_first = _run(_kernels, prob, Y0, 11, 2)
    assert np.all(np.isfinite(first))
    for _ in range(3):
        again, q_again = _run(_kernels, prob, Y0, 11, 2)
        np.testing.assert_array_equal(_bits(again), _bits(first))
        np.testing.assert_array_equal(_bits(q_again), _bits(q_first))


@pytest.mark.filterwarnings("ignore:the affinity graph")
def test_embed_on_two_threads_is_reproducible(monkeypatch):
    """embed() with the policy's threshold lowered: two threads, the same map twice,
    and the same map with a callback (one kernel call per epoch: blocks change nothing)."""
    monkeypatch.setattr(_threads, "SGD_MIN_EPOCH_SAMPLES", 0)
    seen, real = [], _kernels.sgd_epochs

    def spy(*args):
        seen.append(args[-1])
        return real(*args)
    monkeypatch.setattr(_kernels, "sgd_epochs", spy)
    X, _ = digits_sample()
    kw = dict(fast=True, optimizer="sgd", n_epochs=60, n_threads=2, random_state=5)
    Y1 = smallvis.embed(X, "umap", **kw)
    Y2 = smallvis.embed(X, "umap", **kw)
    Y3 = smallvis.embed(X, "umap", callback=lambda *a: False, **kw)
    assert set(seen) == {2}
    np.testing.assert_array_equal(_bits(Y1), _bits(Y2))
    np.testing.assert_array_equal(_bits(Y1), _bits(Y3))


def test_fewer_threads_granted_than_asked_give_the_same_bits(tmp_path):
    """When OpenMP grants fewer threads (OMP_THREAD_LIMIT=1), a thread runs several
    shares: the same schedule, the same bits, no thread left waiting."""
    import os
    import subprocess
    import sys

    script = (
        "import sys, numpy as np\n"
        "sys.path[:0] = sys.argv[2:]\n"
        "from test_sgd_threads import _problem, _run\n"
        "from smallvis import datasets\n"
        "from smallvis.backends import _kernels\n"
        "X = datasets.load('iris')[0][::2][:60]\n"
        "prob, Y0 = _problem('umap', X, 8)\n"
        "np.save(sys.argv[1], _run(_kernels, prob, Y0, 2024, 2)[0])\n")
    here = os.path.dirname(os.path.abspath(__file__))
    # the smallvis this process imported (site-packages after `pip install .`,
    # whose source tree has no compiled kernels; the checkout when editable)
    root = os.path.dirname(os.path.dirname(os.path.abspath(smallvis.__file__)))
    out = tmp_path / "limited.npy"
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    subprocess.run([sys.executable, "-c", script, str(out), here, root], check=True, env=env,
                   timeout=120)
    X = datasets.load("iris")[0][::2][:60]
    prob, Y0 = _problem("umap", X, 8)
    expected = _run(_kernels, prob, Y0, 2024, 2)[0]
    np.testing.assert_array_equal(_bits(np.load(out)), _bits(expected))
