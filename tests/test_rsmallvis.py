"""Parity with the R package smallvis (fixtures in tests/data/rsmallvis/).

The fixtures were produced by running smallvis's own R code (see the README
there); nothing in them comes from this package.  Settings: iris, the same
initial Y, exaggeration 1, perplexity 20, 200 iterations, cost every 10.

What agrees and why not more:
* P agrees to 1e-12 for every method (same calibration algorithm).
* t-SNE costs agree to 1e-8 for the first 100 iterations.  R adds
  eps*log(eps) for the entries of P below machine epsilon, an offset of
  about 3e-10 here; after ~100 iterations the chaotic drift described in
  test_full_runs.py takes over.
* ssne and asne: R clamps Q at machine epsilon before taking its log, which
  changes its reported cost once pairs move far apart; this package reports
  the exact cost (the seed's formula).  Costs agree while no pair is clamped
  and the final layouts and costs agree closely.
"""

import json
import os

import numpy as np
import pytest

import smallvis

HERE = os.path.join(os.path.dirname(__file__), "data", "rsmallvis")


def load_fixture(method):
    with open(os.path.join(HERE, f"{method}.json")) as fh:
        d = json.load(fh)
    return {
        "X": np.array(d["X"]), "Y_init": np.array(d["Y_init"]), "P": np.array(d["P"]),
        "Y": np.array(d["Y"]), "iters": np.array(d["itercosts"]["iter"]),
        "costs": np.array(d["itercosts"]["cost"]), "eta": d["eta_used"],
    }


def run(fx, method, fast):
    return smallvis.embed(
        fx["X"], method, fast=fast, init=fx["Y_init"], perplexity=20,
        learning_rate=fx["eta"], exaggeration=1, n_iter=200, cost_every=10,
        tol=0, momentum_switch_iter=250, return_result=True,
    )


@pytest.mark.parametrize("method", ["asne", "ssne", "tsne"])
def test_affinities_match_r(method, fast):
    fx = load_fixture(method)
    P = smallvis.affinities(fx["X"], method, fast=fast, perplexity=20)
    np.testing.assert_allclose(P, fx["P"], rtol=0, atol=1e-12 * fx["P"].max())


def test_tsne_trajectory_matches_r(fast):
    fx = load_fixture("tsne")
    r = run(fx, "tsne", fast)
    np.testing.assert_array_equal(r.cost_iterations, fx["iters"])
    early = fx["iters"] <= 100
    np.testing.assert_allclose(r.itercosts[early], fx["costs"][early], rtol=1e-8)
    np.testing.assert_allclose(r.cost, fx["costs"][-1], rtol=1e-3)


@pytest.mark.parametrize("method", ["ssne", "asne"])
def test_gaussian_methods_match_r(method, fast):
    fx = load_fixture(method)
    r = run(fx, method, fast)
    if method == "ssne":  # no pair is clamped yet at iteration 10
        np.testing.assert_allclose(r.itercosts[0], fx["costs"][0], rtol=1e-9)
    np.testing.assert_allclose(r.cost, fx["costs"][-1], rtol=1e-4)
    scale = np.abs(fx["Y"]).max()
    np.testing.assert_allclose(r.Y, fx["Y"], rtol=0, atol=2e-3 * scale)
