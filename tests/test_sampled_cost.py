"""The sampled cost estimate of the stochastic optimizer (smallvis.sampled_cost).

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
from smallvis.methods import get_method
from smallvis.sampled_cost import SampledCost, supports

aff = sys.modules["smallvis.affinities"]  # the module, not the function

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


@pytest.mark.parametrize("name", ["umap", "ncvis"])
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
    assert r.cost == smallvis.cost_and_gradient("umap", r.P, r.Y)[0]


def test_estimating_during_a_verbose_run_changes_nothing(capsys):
    X, _ = smallvis.datasets.load("digits")
    runs = [smallvis.embed(X, "umap", fast=True, optimizer="sgd", n_epochs=20,
                           random_state=1, verbose=verbose) for verbose in (False, True)]
    np.testing.assert_array_equal(runs[0], runs[1])
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("epoch")]
    assert len(lines) == 10 and all("est. cost" in line for line in lines)
