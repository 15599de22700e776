"""Whole runs (X -> P -> init -> optimizer): fast and reference paths agree.

Exact t-SNE optimisation amplifies rounding differences (delta-bar-delta and
the early symmetry breaking are chaotic): two runs whose gradients differ by
1e-16 drift apart by about a decade every ten iterations once the layout
starts to unfold.  Final costs still agree where the run converges (asne, ssne
with their defaults); for t-SNE the run below is long enough to exercise the
whole optimizer and calm enough for the twins to stay together; see
tutorials/05_fast_path.ipynb for the drift itself.
"""

import time

import numpy as np
import pytest

import smallvis
from conftest import LONG_TESTS

#: The second data set of every method: 300 of s1k's points, 30 from each
#: of its ten clusters (all 1,000 with SMALLVIS_LONG_TESTS=1).  Its rows
#: still run past the normalised engine's blocks of 256 columns, and its P
#: is still the perplexity-30 P of ten clusters of unequal spread, which
#: iris (three classes, 150 points) is not.  The kNN-graph methods' rows
#: (largevis, umap, tumap, ncvis) took 6-8 s each on all of s1k, most of it
#: the reference twin's per-point Python; on the 300 points their runs
#: still go through the same fuzzy/perplexity kNN P, the same epochs of
#: delta-bar-delta and the same costs.
S1K = "s1k" if LONG_TESTS else "s1k300"

RUNS = {
    # (method, dataset): settings, defaults otherwise.  For the UMAP-type
    # costs the delta-bar-delta gains are what amplifies rounding (with the
    # gains frozen, fast and reference stay within 1e-14 over 1000
    # iterations), so those runs stop before the first gain flips apart.
    ("asne", "iris"): dict(),                    # 1000 iterations, defaults
    ("ssne", "iris"): dict(),                    # 1000 iterations, defaults
    ("tsne", "iris"): dict(init="pca", exaggeration=1, learning_rate=10, n_iter=400),
    ("largevis", "iris"): dict(n_iter=100, cost_every=25),
    ("largevis", S1K): dict(n_iter=60, cost_every=20),
    ("umap", "iris"): dict(n_iter=50, cost_every=10),
    ("umap", S1K): dict(n_iter=40, cost_every=10),
    ("tumap", "iris"): dict(n_iter=50, cost_every=10),
    ("tumap", S1K): dict(n_iter=40, cost_every=10),
    ("ncvis", "iris"): dict(n_iter=150, cost_every=50),
    ("ncvis", S1K): dict(n_iter=30, cost_every=10),
    # the exact InfoNCE gradient costs ~200 t-SNE gradients (docs/theory.md
    # §3.11), and "auto" is its stochastic form: a short exact run on iris
    ("infonce", "iris"): dict(optimizer="exact", n_iter=20, cost_every=10),
}
#: A method without hand-written rows: short runs on both data sets, without
#: exaggeration (as t-SNE's row: it amplifies rounding past the twins' bound).
#: 30 iterations, costs at 10, 20 and 30 (60 with SMALLVIS_LONG_TESTS=1):
#: the reference twin's iterations are most of a row's time, and 30 of them
#: take every step of the loop that 60 took (the gains' updates, the step,
#: the recorded costs; neither run reaches the momentum switch at 250).
GENERIC_RUN = (dict(n_iter=60, cost_every=20) if LONG_TESTS
               else dict(n_iter=30, cost_every=10))
RUNS.update({(name, data): dict(GENERIC_RUN, exaggeration=1.0)
             for name in smallvis.METHODS if name not in {m for m, _ in RUNS}
             for data in ("iris", S1K)})


def _load(dataset):
    """A data set of the runs: smallvis's, or ``"s1k300"``, a stratified part of s1k."""
    if dataset != "s1k300":
        return smallvis.datasets.load(dataset)
    X, labels = smallvis.datasets.load("s1k")
    keep = np.concatenate([np.flatnonzero(labels == c)[:30] for c in np.unique(labels)])
    return X[keep], labels[keep]


def test_every_method_has_a_full_run():
    assert {m for m, _ in RUNS} == set(smallvis.METHODS)


@pytest.mark.parametrize("method,dataset", list(RUNS))
def test_fast_and_reference_final_costs_agree(method, dataset):
    X, labels = _load(dataset)
    settings = RUNS[method, dataset]
    results = [
        smallvis.embed(X, method, fast=fast, random_state=7, tol=0, return_result=True,
                       **settings)
        for fast in (False, True)
    ]
    ref, fast = results
    assert ref.n_iter == fast.n_iter == settings.get("n_iter", 1000)
    assert np.isfinite(ref.cost)
    np.testing.assert_allclose(fast.cost, ref.cost, rtol=1e-6)
    if "n_iter" in settings:  # short runs stay together all the way
        np.testing.assert_allclose(fast.itercosts, ref.itercosts, rtol=1e-6)


def _iris_default_methods():
    """Every method with SMALLVIS_LONG_TESTS=1; else the first of each small-data kind.

    Each method's defaults are held to a floor on digits for every method in
    tests/test_defaults.py.  What 150 points add is the small-data side of
    the defaults: the affinity family's handling of a perplexity or
    neighbour count that is large for N, the step-size rule at small N
    (``auto_learning_rate``) and the optimizer chosen for small data (a
    stochastic form or not).  The first registered method of each such kind
    runs here (17 of 40 today); a method of a new kind joins by itself.
    """
    if LONG_TESTS:
        return list(smallvis.METHODS)
    first = {}
    for name, m in smallvis.METHODS.items():
        first.setdefault((m.p_family.name, m.auto_learning_rate, m.sgd is not None), name)
    return list(first.values())


def test_iris_default_runs_take_every_family_and_step_size_rule():
    chosen = [smallvis.METHODS[m] for m in _iris_default_methods()]
    every = smallvis.METHODS.values()
    assert {m.p_family.name for m in chosen} == {m.p_family.name for m in every}
    assert {m.auto_learning_rate for m in chosen} == {m.auto_learning_rate for m in every}


@pytest.mark.parametrize("method", _iris_default_methods())
def test_default_run_separates_iris_species(method):
    X, labels = smallvis.datasets.load("iris")
    Y = smallvis.embed(X, method, fast=True, random_state=0)
    assert smallvis.metrics.knn_accuracy(Y, labels, n_neighbors=10) > 0.95


def test_same_seed_same_result_bit_for_bit(fast):
    X, _ = smallvis.datasets.load("iris")
    a = smallvis.embed(X, "tsne", fast=fast, init="random", random_state=3, n_iter=100)
    b = smallvis.embed(X, "tsne", fast=fast, init="random", random_state=3, n_iter=100)
    c = smallvis.embed(X, "tsne", fast=fast, init="random", random_state=4, n_iter=100)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_two_threads_reproducible():
    X, _ = smallvis.datasets.load("iris")
    a = smallvis.embed(X, "tsne", fast=True, n_threads=2, random_state=3, n_iter=300)
    b = smallvis.embed(X, "tsne", fast=True, n_threads=2, random_state=3, n_iter=300)
    np.testing.assert_array_equal(a, b)


def test_init_timing_counts_the_initialisation_alone(monkeypatch):
    # a slow plan and a slow init: timings["init"] holds the init's 0.2 s,
    # not the planning's 0.4 s, which only elapsed counts
    from smallvis import api, plans

    def slow(function, seconds):
        def wrapped(*args, **kwargs):
            time.sleep(seconds)
            return function(*args, **kwargs)
        return wrapped

    monkeypatch.setattr(api, "make_plan", slow(api.make_plan, 0.4))
    monkeypatch.setattr(plans, "initialize", slow(plans.initialize, 0.2))
    X, _ = smallvis.datasets.load("iris")
    r = smallvis.embed(X[:40], "tsne", perplexity=10, fast=True, n_iter=10,
                       return_result=True)
    assert 0.2 <= r.timings["init"] < 0.4
    assert r.elapsed - sum(r.timings.values()) >= 0.4


def test_result_object_fields():
    X, _ = smallvis.datasets.load("iris")
    r = smallvis.embed(X, "tsne", fast=True, n_iter=120, cost_every=40, return_result=True)
    assert r.Y.shape == (150, 2)
    assert r.method == "tsne" and r.optimizer == "exact" and r.n_iter == 120
    np.testing.assert_array_equal(r.cost_iterations, [40, 80, 120])
    assert r.cost == r.itercosts[-1]
    assert r.P.shape == (150, 150)
    assert r.params["perplexity"] == 30.0 and r.params["exaggeration"] == 12.0
    assert r.elapsed > 0 and set(r.timings) == {"init", "affinities", "optimize"}
    # the recorded cost is the cost of the true P at the returned Y
    cost, _ = smallvis.cost_and_gradient("tsne", r.P, r.Y)
    assert cost == pytest.approx(r.cost, rel=1e-12)
