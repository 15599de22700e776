"""A map flung apart by a singular repulsion (``eps=0``) warns; a default map does not.

With ``eps=0`` the repulsion of umap, tumap and largevis is singular where
two points meet, and from the exact optimizer's default start of nearly
coinciding points the first steps throw the points 1e5 units and more
apart: a map of scattered points, reported as a success before
(docs/experiments.md, 2026-12-04).
"""

import warnings

import numpy as np
import pytest

import smallvis
from smallvis.plans import FLUNG_RADIUS, warn_if_flung

IRIS, _ = smallvis.datasets.load("iris")
#: Iris without its one duplicated row: the two points of that row start on
#: one spot from any start, and eps=0 flings them.
DISTINCT = np.unique(IRIS, axis=0)
MESSAGE = "with eps=0 the repulsion is singular"
#: The methods whose default eps smooths a repulsion that eps=0 leaves singular.
EPS_METHODS = [name for name, m in smallvis.METHODS.items()
               if isinstance(m.cost_params.get("eps"), float) and m.cost_params["eps"] > 0]


def test_the_eps_methods_are_found_in_the_registry():
    assert {"umap", "tumap", "largevis"} <= set(EPS_METHODS)


def _messages(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught]


def _embed(X, method, **params):
    return lambda: smallvis.embed(X, method, n_iter=100, optimizer="exact", random_state=0,
                                  **params)


@pytest.mark.parametrize("method", EPS_METHODS)
def test_a_map_flung_from_the_default_start_warns(method):
    messages = _messages(_embed(DISTINCT, method, eps=0))
    default = smallvis.METHODS[method].cost_params["eps"]
    assert any(m.startswith(f"{method}:") and MESSAGE in m and f"default is {default:g}" in m
               for m in messages), messages


@pytest.mark.parametrize("method", EPS_METHODS)
@pytest.mark.parametrize("params", [{}, {"eps": 0, "init": "spectral"}])
def test_no_warning_at_the_default_eps_or_from_a_wide_start(method, params):
    assert not any(MESSAGE in m for m in _messages(_embed(DISTINCT, method, **params)))


def test_duplicate_rows_are_flung_from_a_wide_start_too():
    # the same wide start that does not warn for DISTINCT above
    assert any(MESSAGE in m for m in _messages(_embed(IRIS, "largevis", eps=0,
                                                      init="spectral")))


def test_the_rule_needs_eps_zero_a_positive_default_and_a_radius_beyond_the_threshold():
    assert FLUNG_RADIUS == 1e4
    rng = np.random.default_rng(0)
    unit = rng.standard_normal((50, 2))
    unit /= np.sqrt(np.mean(np.sum((unit - unit.mean(axis=0)) ** 2, axis=1)))  # radius 1
    umap, usne = smallvis.METHODS["umap"], smallvis.METHODS["usne"]

    def warns(Y, eps, method=umap):
        return bool(_messages(lambda: warn_if_flung(Y, {"eps": eps}, method)))

    assert warns(unit * 1.01e4, 0.0) and warns(unit * 1.01e4, 0)
    assert not warns(unit * 0.99e4, 0.0)
    assert not warns(unit * 1e6, 0.001)
    # usne's own default is eps = 0: the message could not send the user back to it
    assert usne.cost_params["eps"] == 0.0 and not warns(unit * 1e6, 0.0, usne)
    assert not _messages(lambda: warn_if_flung(unit * 1e9, {}, smallvis.METHODS["tsne"]))
