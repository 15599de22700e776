"""The exact optimizer: delta-bar-delta, exaggeration, stopping, callback."""

import numpy as np
import pytest

import smallvis
from smallvis.engines.optim import MAX_RECOVERIES, DivergenceError, OptimizerSettings, optimize_exact

from conftest import quadratic_problem


def test_first_steps_follow_the_delta_bar_delta_rule():
    target = np.array([[1.0, -2.0], [3.0, 0.5]])
    gradient, cost = quadratic_problem(target)
    Y = np.zeros((2, 2))
    s = OptimizerSettings(learning_rate=0.1, n_iter=2, tol=0, cost_every=1, momentum=0.5)
    seen = []
    optimize_exact(Y, gradient, cost, s, callback=lambda it, Yc, c: seen.append(Yc.copy()))
    # by hand: G1 = -target; sign(update=0)=0 != sign(G1) -> gains 1.2
    # update1 = -0.1*1.2*G1 = 0.12*target; Y1 = centred(0.12 target)
    centre = lambda A: A - A.mean(axis=0)
    u1 = 0.12 * target
    Y1 = centre(u1)
    np.testing.assert_allclose(seen[0], Y1)
    # G2 = Y1 - target; where sign(G2) == sign(u1) gains 1.2*0.8, else 1.4
    G2 = Y1 - target
    gains = np.where(np.sign(G2) == np.sign(u1), 0.96, 1.4)
    u2 = 0.5 * u1 - 0.1 * gains * G2
    np.testing.assert_allclose(seen[1], centre(Y1 + u2))


def test_exaggeration_applies_to_the_first_iterations_only():
    flags = []
    def gradient(Y, learned, exaggeration, out):
        flags.append(exaggeration)
        out[...] = 0.0
    s = OptimizerSettings(learning_rate=1, n_iter=6, exaggeration=4, exaggeration_iter=3, tol=0)
    optimize_exact(np.zeros((3, 2)), gradient, lambda Y, learned: 0.0, s)
    assert flags == [4.0, 4.0, 4.0, 1.0, 1.0, 1.0]


def test_reported_costs_use_true_p():
    X, _ = smallvis.datasets.load("iris")
    r = smallvis.embed(X, "tsne", fast=True, n_iter=100, cost_every=10, exaggeration=12,
                       exaggeration_iter=100, return_result=True)
    cost, _ = smallvis.cost_and_gradient("tsne", r.P, r.Y)
    assert r.itercosts[-1] == pytest.approx(cost, rel=1e-12)


def test_tolerance_stops_early_and_zero_tol_does_not():
    X, _ = smallvis.datasets.load("iris")
    early = smallvis.embed(X, "ssne", fast=True, n_iter=3000, tol=1e-5, return_result=True)
    assert early.stopped_early and early.n_iter < 3000
    full = smallvis.embed(X, "ssne", fast=True, n_iter=300, tol=0, return_result=True)
    assert not full.stopped_early and full.n_iter == 300


def test_callback_receives_every_iteration_and_can_stop():
    X, _ = smallvis.datasets.load("iris")
    calls = []
    def cb(it, Y, cost):
        calls.append((it, cost is not None))
        return it == 30
    r = smallvis.embed(X, "tsne", fast=True, n_iter=100, cost_every=10, callback=cb,
                       return_result=True)
    assert [c[0] for c in calls] == list(range(1, 31))
    assert [it for it, has_cost in calls if has_cost] == [10, 20, 30]
    assert r.n_iter == 30 and r.stopped_early


def test_unrecoverable_divergence_raises_a_clear_error():
    # a gradient that is never finite: every restart diverges again
    def gradient(Y, learned, exaggerated, out):
        out[...] = np.nan
    s = OptimizerSettings(learning_rate=1.0, n_iter=50, tol=0)
    with pytest.raises(DivergenceError, match="iteration 1 .*lower the learning_rate") as err:
        optimize_exact(np.ones((3, 2)), gradient, lambda Y, learned: 0.0, s)
    assert isinstance(err.value, RuntimeError) and isinstance(err.value, FloatingPointError)
    assert f"{MAX_RECOVERIES} halvings" in str(err.value)


def test_a_rising_cost_goes_back_to_the_best_state_with_half_the_rate():
    # the cost (not the gradient) says the run went wrong after iteration 4
    target = np.array([[1.0, -1.0], [-1.0, 1.0]])
    gradient, bowl = quadratic_problem(target)
    calls = []
    def cost(Y, learned):
        calls.append(len(calls))
        # call 1 is the starting cost (the rise rule's first baseline), so
        # call 4 is the evaluation at iteration 6
        return bowl(Y, learned) + (100.0 if len(calls) == 4 else 0.0)
    s = OptimizerSettings(learning_rate=0.1, n_iter=8, tol=0, cost_every=2)
    trace = optimize_exact(np.zeros((2, 2)), gradient, cost, s)
    assert trace.recoveries == [{"iteration": 6, "restart": 4, "learning_rate": 0.05,
                                 "reason": trace.recoveries[0]["reason"]}]
    assert "cost rose" in trace.recoveries[0]["reason"]
    assert trace.iterations == [2, 4, 6, 8] and trace.n_iter == 8


@pytest.mark.parametrize("method, learning_rate, settings", [
    # without the guard: a finite map spread over 1e5, 10-NN accuracy 0.74.
    # From the PCA layout the first steps raise the cost well above its
    # start.  (With exaggeration, or from a layout of sd 1e-4, the points are
    # flung out while the cost is not judged or still falls, and then it only
    # falls: a wide map, not a diverging one; see test_wide_is_not_diverging.)
    ("tsne", 1e7, {"init": "pca", "exaggeration": 1}),
    ("ssne", 1e6, {}),
    # from umap-learn's spectral layout the first steps raise the cost; from
    # a layout of sd 1e-4 they lower it (the repulsion of the collapsed start
    # is larger still), so that run does not diverge, it is only flung wide
    ("umap", 1e3, {"init": "spectral"}),
])
@pytest.mark.filterwarnings("ignore:the affinity graph has 2 connected components")
def test_a_learning_rate_far_too_large_is_recovered_not_returned(method, learning_rate,
                                                                 settings):
    X, labels = smallvis.datasets.load("iris")
    r = smallvis.embed(X, method, fast=True, learning_rate=learning_rate, random_state=0,
                       optimizer="exact", return_result=True, **settings)
    assert r.recoveries, "the divergence went unnoticed"
    assert r.recoveries[-1]["learning_rate"] < learning_rate
    assert np.all(np.isfinite(r.Y))
    # a good map, not the exploded one
    assert np.ptp(r.Y) < 100 * np.sqrt(len(X))
    assert smallvis.metrics.knn_accuracy(r.Y, labels, 10) >= 0.93
    assert np.all(np.diff(r.cost_iterations) > 0)


def test_a_run_that_cannot_recover_names_the_method():
    # coordinates of 1e150 under the Gaussian kernel: no step size helps
    X, _ = smallvis.datasets.load("iris")
    rng = np.random.default_rng(0)
    with pytest.raises(DivergenceError, match="ssne.*iteration"):
        smallvis.embed(X, "ssne", fast=True, init=1e150 * rng.normal(size=(150, 2)),
                       learning_rate=1e300, n_iter=50)


def test_row_learning_rates_with_recovery_are_refused_by_name():
    """A per-row learning rate cannot be halved and reported: refused up front."""
    s = OptimizerSettings(learning_rate=1.0, n_iter=3, tol=0, cost_every=None, recover=True)
    with pytest.raises(ValueError, match="row_learning_rate.*recover"):
        optimize_exact(np.ones((3, 2)), lambda Y, learned, ex, out: out.fill(np.nan), None, s,
                       row_learning_rate=np.ones(3))
