"""Iteration counts have an upper bound, checked alike by every entry point.

A count of 10**12 iterations (a typo, or a forged model file) used to start
a run that never ended.  The bounds are 100 times the longest default run.
"""

import numpy as np
import pytest

import smallvis
from smallvis.inputs.neighbors import knn_graph

X = np.random.default_rng(0).normal(size=(30, 3))

COUNTS = [
    # (keyword, first refused value): t-SNE's default run is 1000 iterations
    ("n_iter", 100_001),
    ("exaggeration_iter", 100_001),
    ("momentum_switch_iter", 100_001),
    ("cost_every", 100_001),
]


@pytest.mark.parametrize("keyword,value", COUNTS)
def test_embed_refuses_a_runaway_count(keyword, value):
    with pytest.raises(ValueError, match=rf"{keyword} must be in \[\d, 100000\]"):
        smallvis.embed(X, "tsne", perplexity=5, **{keyword: value})


@pytest.mark.parametrize("keyword,value", COUNTS)
def test_the_estimator_refuses_a_runaway_count_at_fit(keyword, value):
    with pytest.raises(ValueError, match=rf"{keyword} must be in"):
        smallvis.TSNE(perplexity=5, **{keyword: value}).fit(X)


def test_n_epochs_is_bounded():
    with pytest.raises(ValueError, match=r"n_epochs must be in \[1, 100000\]"):
        smallvis.embed(X, "umap", optimizer="sgd", n_epochs=10**12)
    with pytest.raises(ValueError, match=r"n_epochs must be in"):
        smallvis.UMAP(optimizer="sgd", n_epochs=10**12).fit(X)


@pytest.mark.parametrize("value,error", [(-3, ValueError), (0, ValueError),
                                         (100_001, ValueError), (2.5, TypeError),
                                         ("500", TypeError)])
def test_a_bad_n_epochs_is_refused_when_the_exact_optimizer_runs(value, error):
    # 30 points: optimizer="auto" runs the exact optimizer, which has no use
    # for n_epochs; a bad value is still an error, not silently dropped
    with pytest.raises(error, match="n_epochs"):
        smallvis.embed(X, "largevis", n_neighbors=5, n_iter=5, n_epochs=value)


def test_transform_n_iter_is_bounded_at_fit_and_at_transform():
    # the default is 100 iterations; 10,000 is the bound
    with pytest.raises(ValueError, match=r"transform_n_iter must be in \[0, 10000\]"):
        smallvis.UMAP(n_iter=5, transform_n_iter=10**12).fit(X)
    model = smallvis.UMAP(n_iter=5, random_state=0).fit(X)
    with pytest.raises(ValueError, match=r"n_iter must be in \[0, 10000\]"):
        model.training_map_.transform(X[:2], n_iter=10_001)


def test_n_refine_is_bounded():
    with pytest.raises(ValueError, match=r"n_refine must be in \[0, 1000\]"):
        knn_graph(X, 5, method="annoy", n_refine=10**12)


def test_the_largest_counts_are_accepted():
    """The bounds themselves pass the checks (no run: 0 iterations to go)."""
    from smallvis.plans import ExactPlan
    from smallvis.registry import METHODS

    plan = ExactPlan.build(METHODS["tsne"], 30, {"perplexity": 5}, n_iter=100_000,
                           exaggeration_iter=100_000, momentum_switch_iter=100_000,
                           cost_every=100_000)
    assert plan.settings.n_iter == 100_000


def test_ncvis_noise_samples_per_edge_are_bounded_in_the_stochastic_form():
    """``nu`` counts noise samples per positive one there: 10**7 ran for minutes."""
    with pytest.raises(ValueError, match=r"nu must be in \(0, 1000\]"):
        smallvis.embed(X, "ncvis", optimizer="sgd", n_epochs=2, nu=1e7, n_neighbors=5)
    with pytest.raises(ValueError, match=r"nu must be in \(0, 1000\]"):
        smallvis.NCVIS(optimizer="sgd", n_epochs=2, method_params={"nu": 1e7}).fit(X)
