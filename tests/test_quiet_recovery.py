"""A run that diverges and recovers says so once, and leaks no raw NumPy warning.

The exact optimizer evaluates gradients and costs at layouts (and learned
scalars) that the divergence guard then judges; the floating-point warnings
of those evaluations are the guard's business, not the user's.  What the
user sees is one ``RuntimeWarning`` saying that the learning rate was
lowered (the details are in ``result.recoveries``).
"""

import warnings

import numpy as np
import pytest

import smallvis
from smallvis.engines.init import pca_scores
from smallvis.engines.optim import OptimizerSettings, optimize_exact

X10 = smallvis.datasets.load("iris")[0][:10]


def _run_recording_warnings(method, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = smallvis.embed(X10, method, optimizer="exact", return_result=True, **kwargs)
    return r, [w for w in caught if not issubclass(w.category, smallvis.SmallDataWarning)]


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("method, learning_rate", [
    ("ncvis", 500.0), ("tsne", 1e7), ("ssne", 1e6), ("umap", 1e3), ("largevis", 1e4),
])
def test_a_recovered_run_warns_once_and_leaks_no_numpy_warning(method, learning_rate, fast):
    r, caught = _run_recording_warnings(method, fast=fast, learning_rate=learning_rate,
                                        init=pca_scores(X10, 2), random_state=0,
                                        exaggeration=1)
    raw = [str(w.message) for w in caught if "encountered in" in str(w.message)]
    assert raw == []
    assert np.all(np.isfinite(r.Y))
    recovered = [w for w in caught if "learning rate" in str(w.message)]
    if r.recoveries:
        assert len(recovered) == 1 and recovered[0].category is RuntimeWarning
        message = str(recovered[0].message)
        assert "learning_rate" in message and "result.recoveries" in message
        assert f"{r.recoveries[-1]['learning_rate']:.3g}" in message
    else:
        assert recovered == []
    if method == "ncvis":  # the reported case: it diverges and recovers
        assert r.recoveries


def test_the_optimizer_evaluates_gradient_and_cost_without_raw_warnings():
    # a bowl stepped with a learning rate too large: the layout swings wider
    # until exp(100 |Y|^2) in the cost overflows; the guard recovers, and the
    # overflow inside the evaluation is not shown
    target = np.array([[1.0, -1.0], [-1.0, 1.0]])
    def gradient(Y, learned, exaggerated, out):
        out[...] = Y - target
    def cost(Y, learned):
        return float(np.sum(np.exp(100.0 * Y ** 2)))
    s = OptimizerSettings(learning_rate=5.0, n_iter=60, tol=0, cost_every=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.filterwarnings("ignore", message="the run diverged")
        trace = optimize_exact(np.zeros((2, 2)), gradient, cost, s)
    assert trace.recoveries


def test_a_run_without_recovery_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = smallvis.embed(X10, "tsne", optimizer="exact", perplexity=3, random_state=0,
                           return_result=True)
    assert not r.recoveries
