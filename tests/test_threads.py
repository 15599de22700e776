"""The thread policy (smallvis._threads): one thread below a measured amount of work."""

import numpy as np
import pytest

import smallvis
from smallvis import _threads
from smallvis.backends import _kernels
from smallvis.engines import sgd as _sgd
from smallvis.registry import METHODS

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
    m = _threads.SGD_MIN_UPDATES
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


def test_sgd_calls_below_the_crossover_use_one_thread(monkeypatch):
    """Each block of epochs gets its own decision, from its own amount of work."""
    seen = _spy(monkeypatch, "sgd_epochs")
    P = smallvis.affinities(np.random.default_rng(0).normal(size=(60, 5)), "umap")
    Y = np.random.default_rng(1).normal(size=(60, 2))
    n_edges = P.nnz
    # blocks of 10 epochs: work 10 * n_edges per call
    monkeypatch.setattr(_threads, "SGD_MIN_UPDATES", 10 * n_edges)
    prob = _sgd.prepare(METHODS["umap"].sgd, P, 95, {"a": 1.6, "b": 0.9}, 1.0, _kernels)
    _sgd.optimize_sgd(Y, _kernels, prob, 7, n_threads=2)
    # nine blocks of 10 epochs, then one of 5
    assert seen == [2] * 9 + [1]
    assert np.all(np.isfinite(Y))


@pytest.mark.filterwarnings("ignore:the affinity graph")
@pytest.mark.parametrize("name", [n for n, m in METHODS.items() if m.sgd is not None])
def test_sgd_on_two_threads_keeps_quality(monkeypatch, name):
    """Every sampling scheme on 2 threads (the prefetching loop): finite, as good.

    Each method's own block size must reach the two-thread loop, so the
    crossover is lowered; the floors are those of the one-thread quality test
    in tests/test_sgd.py.
    """
    from smallvis.metrics import knn_accuracy, knn_preservation
    monkeypatch.setattr(_threads, "SGD_MIN_UPDATES", 0)
    seen = _spy(monkeypatch, "sgd_epochs")
    X, labels = digits_sample()
    Y = smallvis.embed(X, name, fast=True, optimizer="sgd", n_threads=2, random_state=1)
    assert set(seen) == {2}
    assert np.all(np.isfinite(Y))
    assert knn_preservation(X, Y, 15) >= 0.45
    assert knn_accuracy(Y, labels, 10) >= 0.90
