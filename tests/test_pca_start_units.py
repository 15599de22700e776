"""A start in the data's units: ``init="pca"`` warns when the map stays at a wide start.

Unscaled PCA scores are in the units of X.  An affinity method draws its
map in the units of its output kernel, so from a start thousands of units
wide (pixels of 0 to 255) the map barely moves and keeps the start's
layout (docs/experiments.md, 2026-12-03).  The call warns then, and only
then: not for the same data in small units, not for the scaled "spca",
and not for a stress method, whose map is fitted in the data's units.
"""

import warnings

import numpy as np
import pytest

import smallvis
from smallvis.plans import KEPT_START_RADIUS, KEPT_START_SHARE, warn_if_start_kept

IRIS, _ = smallvis.datasets.load("iris")
#: Iris with every value times 100,000 (lengths in units 100,000 times smaller):
#: a PCA start of radius about 2e5.
WIDE = IRIS * 1e5

MESSAGE = "hardly left its init='pca' start"


def _messages(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught]


#: The methods with a stochastic form (largevis, umap, ncvis, ...): heavy-tailed
#: output kernels drawn in their own units, from the registry.
STOCHASTIC = [name for name, m in smallvis.METHODS.items() if m.sgd is not None]
#: The stress methods: maps fitted in the data's units, from the registry.
STRESS = [name for name, m in smallvis.METHODS.items() if m.p_family.units == "equivariant"]


@pytest.mark.parametrize("method", STOCHASTIC)
def test_a_map_left_at_a_wide_pca_start_warns(method):
    with pytest.warns(RuntimeWarning, match=MESSAGE):
        smallvis.embed(WIDE, method, init="pca", random_state=0)


def _warned(method, X, init):
    messages = _messages(lambda: smallvis.embed(X, method, init=init, random_state=0))
    return [m for m in messages if MESSAGE in m]


@pytest.mark.parametrize("method, X, init", [
    (STOCHASTIC[0], IRIS, "pca"),    # the same data in units the kernel draws in
    (STOCHASTIC[0], WIDE, "spca"),   # the PCA scaled: the start's units are the map's
])
def test_no_warning_where_the_start_is_in_the_maps_units(method, X, init):
    assert not _warned(method, X, init)


@pytest.mark.parametrize("method", STRESS)
def test_no_warning_for_a_map_fitted_in_the_datas_units(method):
    assert not _warned(method, WIDE, "pca")


def _ring(radius, n=200):
    # n points on a circle about the origin: root mean square radius `radius`
    angle = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
    return radius * np.column_stack([np.cos(angle), np.sin(angle)])


def test_the_rule_compares_the_median_move_with_the_starts_radius():
    radius = 4 * KEPT_START_RADIUS
    start = _ring(radius)
    # every point moved by the same distance: the median move is that distance
    below = start + [0.5 * KEPT_START_SHARE * radius, 0.0]
    above = start + [2.0 * KEPT_START_SHARE * radius, 0.0]
    with pytest.warns(RuntimeWarning, match=MESSAGE):
        warn_if_start_kept(below, start, "m")
    assert not _messages(lambda: warn_if_start_kept(above, start, "m"))
    # a start within the kernels' reach never warns, however little it moved
    narrow = _ring(0.5 * KEPT_START_RADIUS)
    assert not _messages(lambda: warn_if_start_kept(narrow.copy(), narrow, "m"))
