"""A map flung apart by a singular repulsion (``eps=0``) warns; a default map does not.

With ``eps=0`` the repulsion of umap, tumap and largevis is singular where
two points meet, and from the default start of nearly coinciding points
the first steps throw the points 1e5 units and more apart: a map of
scattered points, reported as a success before (docs/experiments.md,
2026-12-04).
"""

import warnings

import numpy as np
import pytest

import smallvis
from smallvis.plans import FLUNG_RADIUS, warn_if_flung

IRIS, _ = smallvis.datasets.load("iris")
#: Iris without its one duplicated row: two points of one row start on one
#: spot from any start, and eps=0 flings them.
DISTINCT = np.unique(IRIS, axis=0)
MESSAGE = "with eps=0 the repulsion is singular"
EPS_METHODS = ("umap", "tumap", "largevis")


def _messages(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught]


@pytest.mark.parametrize("method", EPS_METHODS)
def test_a_map_flung_from_the_default_start_warns(method):
    messages = _messages(lambda: smallvis.embed(IRIS, method, eps=0, n_iter=100,
                                                optimizer="exact", random_state=0))
    assert any(MESSAGE in m and m.startswith(f"{method}:") for m in messages), messages


@pytest.mark.parametrize("method", EPS_METHODS)
@pytest.mark.parametrize("params", [{}, {"eps": 0, "init": "pca"}])
def test_no_warning_at_the_default_eps_or_from_a_wide_start(method, params):
    messages = _messages(lambda: smallvis.embed(DISTINCT, method, n_iter=100,
                                                optimizer="exact", random_state=0, **params))
    assert not any(MESSAGE in m for m in messages), messages


def test_duplicate_rows_are_flung_from_a_wide_start_too():
    messages = _messages(lambda: smallvis.embed(IRIS, "largevis", eps=0, init="pca",
                                                n_iter=100, optimizer="exact", random_state=0))
    assert any(MESSAGE in m and "duplicate rows" in m for m in messages), messages


def test_the_rule_needs_eps_zero_and_a_radius_beyond_the_threshold():
    rng = np.random.default_rng(0)
    unit = rng.standard_normal((50, 2))
    unit /= np.sqrt(np.mean(np.sum((unit - unit.mean(axis=0)) ** 2, axis=1)))  # radius 1

    def warns(Y, eps):
        return bool(_messages(lambda: warn_if_flung(Y, {"eps": eps}, "umap")))

    assert warns(unit * FLUNG_RADIUS * 1.01, 0.0)
    assert warns(unit * FLUNG_RADIUS * 1.01, 0)
    assert not warns(unit * FLUNG_RADIUS * 0.99, 0.0)
    assert not warns(unit * FLUNG_RADIUS * 100, 0.001)
    assert not _messages(lambda: warn_if_flung(unit * 1e9, {"gamma": 1.0}, "tsne"))
