"""The sampled cost estimate of the stochastic optimizer (smallvis.engines.sampled_cost).

Checked against the exact cost kernels (smallvis.cost_and_gradient): equal to
rounding when the samples cover every edge and pair, within a few per cent on
digits when they do not, and the value embed() reports above 5,000 points
(where it used to report NaN).
"""

import sys

import numpy as np
import pytest

import smallvis
from smallvis._validation import check_affinities
from smallvis.registry import get_method
from smallvis.engines.sampled_cost import SampledCost, supports

#: A fuzzy cost (P unnormalised) and one with a learned normalisation, from
#: registry fields: the two kinds of stochastic cost estimated above 5,000 points.
ESTIMATED = [next(n for n, m in smallvis.METHODS.items() if m.fuzzy and m.sgd),
             next(n for n, m in smallvis.METHODS.items() if m.learned and m.sgd)]

aff = sys.modules["smallvis.inputs.affinities"]  # the module, not the function

CASES = [
    ("largevis", {}), ("largevis", {"kernel": "exp"}),
    ("largevis", {"kernel": "cauchy_alpha", "alpha": 0.5, "gamma": 3.0}),
    ("umap", {}), ("umap", {"min_dist": 0.5}), ("tumap", {}),
    ("ncvis", {"Q": 1.7}), ("ncvis", {"Q": -2.0, "nu": 2.0}),
]


def _estimator(name, params, X, **sizes):
    m = get_method(name)
    _, cost_params = m.split_params(params, len(X))
    P = smallvis.affinities(X, name)
    C = check_affinities(P, len(X), symmetric=m.symmetric, fuzzy=m.fuzzy)
    return P, SampledCost(m, cost_params, aff.kernel_triplet(C), len(X), **sizes)


@pytest.mark.parametrize("name,params", CASES)
def test_full_samples_give_the_exact_cost(name, params):
    X, _ = smallvis.datasets.load("iris")
    P, estimate = _estimator(name, params, X)
    assert estimate.exact
    Y = np.random.default_rng(3).normal(scale=2.0, size=(150, 2))
    Y[1] = Y[0]  # coincident points: the floored log(1 - w)
    exact, _ = smallvis.cost_and_gradient(name, P, Y, **params)
    np.testing.assert_allclose(estimate(Y, [params.get("Q", 0.0)]), exact, rtol=1e-10)


@pytest.mark.parametrize("name,params", [c for c in CASES if "kernel" not in c[1]])
def test_sampled_estimate_is_close_on_digits(name, params):
    X, _ = smallvis.datasets.load("digits")
    P, estimate = _estimator(name, params, X)
    assert not estimate.exact  # 3.2 million pairs, 100,000 sampled
    Y = smallvis.embed(X, name, fast=True, optimizer="sgd", n_epochs=30, random_state=0,
                       knn=None) if name != "largevis" else \
        np.random.default_rng(0).normal(size=(len(X), 2)) * 10
    exact, _ = smallvis.cost_and_gradient(name, P, Y, fast=True, **params)
    assert abs(estimate(Y, [params.get("Q", 0.0)]) - exact) < 0.05 * abs(exact)


def test_only_pair_sum_costs_are_estimated():
    assert not supports(get_method("tsne"), {})
    with pytest.raises(ValueError, match="no sampled cost estimate for 'tsne'"):
        SampledCost(get_method("tsne"), {}, (np.array([0, 0]), np.array([]), np.array([])), 1)


@pytest.mark.parametrize("name", ESTIMATED)
def test_stochastic_cost_above_5000_points_is_a_finite_estimate(name):
    """It was NaN; now a labelled estimate close to the exact cost."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(2600, 4)), rng.normal(size=(2600, 4)) + 6.0])
    r = smallvis.embed(X, name, fast=True, optimizer="sgd", n_epochs=20, init="random",
                       random_state=0, return_result=True)
    assert np.isfinite(r.cost) and r.cost_kind == "estimate"
    exact, _ = smallvis.cost_and_gradient(name, r.P, r.Y, fast=True, **r.learned)
    assert abs(r.cost - exact) < 0.05 * abs(exact)


def test_small_stochastic_runs_report_the_exact_cost():
    X, _ = smallvis.datasets.load("iris")
    r = smallvis.embed(X, "umap", optimizer="sgd", n_epochs=20, init="random",
                       random_state=0, return_result=True)
    assert r.cost_kind == "exact"
    # the exact cost on the kernels the run used
    assert r.cost == smallvis.cost_and_gradient("umap", r.P, r.Y, fast=r.params["fast"])[0]


def test_estimating_during_a_verbose_run_changes_nothing(capsys):
    X, _ = smallvis.datasets.load("digits")
    runs = [smallvis.embed(X, "umap", fast=True, optimizer="sgd", n_epochs=20,
                           random_state=1, verbose=verbose) for verbose in (False, True)]
    np.testing.assert_array_equal(runs[0], runs[1])
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("epoch")]
    assert len(lines) == 10 and all("est. cost" in line for line in lines)


def _sampled_objective(P, Y, gamma, n_negative):
    """What the stochastic LargeVis updates descend (docs/theory.md §8), eps = 0.

    Edges (i, j) drawn with probability p_ij, each with ``n_negative``
    negatives k drawn with probability q_k proportional to (sum_j p_kj)^0.75:
    sum p_ij (-log w_ij) - n_negative * gamma * sum_ik p_i q_k log(1 - w_ik).
    """
    P = P.toarray() if hasattr(P, "toarray") else np.asarray(P)
    p = P.sum(axis=1)
    q = p ** 0.75 / (p ** 0.75).sum()
    D2 = ((Y[:, None] - Y[None]) ** 2).sum(-1)
    repulsion = np.log1p(1.0 / np.maximum(D2, 1e-300))  # -log(1 - w), w = 1 / (1 + d2)
    np.fill_diagonal(repulsion, 0.0)  # no self-pairs
    return (P * np.log1p(D2)).sum() + n_negative * gamma * (np.outer(p, q) * repulsion).sum()


def test_stochastic_largevis_raises_its_cost_while_descending_its_own_objective():
    # docs/theory.md §8: the cost of a stochastic LargeVis run (exact here,
    # estimated above 5,000 points) weighs every pair's repulsion by gamma,
    # the updates by about n_negative * gamma / N**2; late in the run the
    # classes tighten, the cost rises, the sampled objective keeps falling,
    # and nothing (no divergence guard) stops the run.
    X, labels = smallvis.datasets.load("s1k")
    P = smallvis.affinities(X, "largevis")
    snapshots = {}

    def keep(epoch, Y, cost):
        if epoch in (150, 1000):
            snapshots[epoch] = Y.copy()

    # the P above: perplexity 50 over 150 neighbours, not the stochastic
    # optimizer's defaults (perplexity 20 over 2 x 20 neighbours); the
    # reference's learning rate, whose larger steps tighten the classes more
    res = smallvis.embed(X, "largevis", optimizer="sgd", fast=True, random_state=0,
                         perplexity=50.0, n_neighbors=150, gamma=1.0, n_epochs=1000,
                         learning_rate=1.0, callback=keep, return_result=True)
    assert res.n_iter == 1000 and not res.stopped_early
    cost = {e: smallvis.cost_and_gradient("largevis", P, Y, gamma=1.0)[0]
            for e, Y in snapshots.items()}
    assert cost[1000] > 1.5 * cost[150]
    np.testing.assert_allclose(res.cost, cost[1000], rtol=1e-10)  # what embed reports
    n_negative = get_method("largevis").sgd.n_negative
    objective = {e: _sampled_objective(P, Y, 1.0, n_negative) for e, Y in snapshots.items()}
    assert objective[1000] < 0.8 * objective[150]
    assert smallvis.metrics.knn_accuracy(res.Y, labels, 10) > 0.95
