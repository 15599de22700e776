"""``transform`` in any units, and independent of the batch a point came in.

* The new points' distances are measured in the fit's units (a power of two
  per point, as the fit's own search): a model fitted in units of 1e-170
  places new points as the same model in units of 1 (a map of input
  distances, whose units are the data's, at 1e-170 times the places), and a new point at
  1e160 against training data near 1 gets a finite placement, never NaN,
  for every method and both forms of the placement.
* A power-of-two change of units changes no bit of the placement; other
  units, offsets and feature orders change it by rounding only.
* A point's placement is the same, bit for bit with one thread, alone or in
  any batch in any order, for the exact and the stochastic forms.

The expected values are the same transform of the unchanged problem (the
metamorphic relations above) or, for the far point, the fitted map's extent.
The default run takes a few seconds; ``SMALLVIS_LONG_TESTS=1`` tries many
more Hypothesis examples.
"""

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

import smallvis
from smallvis.registry import METHODS
from smallvis.transform import TrainingMap

from conftest import CLUSTERED_TRAIN, clusters

LONG = os.environ.get("SMALLVIS_LONG_TESTS", "") not in ("", "0")

#: every method with the exact placement; those with a stochastic form also
#: with the stochastic one
PLACEMENTS = [(m, "exact") for m in METHODS] + [
    (m, "sgd") for m in METHODS if METHODS[m].sgd is not None]
PLACEMENT_IDS = [f"{m}-{o}" for m, o in PLACEMENTS]


def _units_kind(placement):
    """What a placement's units depend on: the new rows' family, the form,
    and per-point values of the fit (``input_params``, basne's precisions)."""
    method, optimizer = placement
    m = METHODS[method]
    return m.p_family.name, optimizer, bool(m.input_params)


#: the first placement of each kind, from registry fields: a change of units,
#: origin or feature order reaches the kernels only through the new rows of
#: P (the family's calibration) and the per-point values, so one method of a
#: kind proves the units checks for its kind; batch independence, the far
#: points and the twins still run for every placement
_FIRST_OF_KIND = {}
for _p in PLACEMENTS:
    _FIRST_OF_KIND.setdefault(_units_kind(_p), _p)
UNIT_PLACEMENTS = list(_FIRST_OF_KIND.values())
UNIT_IDS = [f"{m}-{o}" for m, o in UNIT_PLACEMENTS]

#: iterations (exact) or epochs (stochastic) of the placement: enough to
#: move the points well away from their start, few enough to stay fast
N_ITER = 12


def _equivariant(method):
    """Whether the method's map follows the data's units (input distances)."""
    return METHODS[method].p_family.units == "equivariant"


@pytest.fixture(scope="module")
def fitted(clustered_fit):
    """One small exact fit per method: training data, new points, TrainingMap.

    The fits are the session's (``clustered_fit``, which
    tests/test_transform.py reads too): each method is fitted once per run.
    """
    X_train = clustered_fit(next(iter(METHODS)))[0]
    X_new = clusters()[CLUSTERED_TRAIN:]
    refs = {method: clustered_fit(method)[2] for method in METHODS}
    return X_train, X_new, refs


def _reference(ref, optimizer, X=None, scale=1.0):
    """``ref`` with another placement form and (optionally) other training data.

    ``X`` is the training data in units ``scale`` times the fit's: a map of
    input distances is fitted in those units too (its map and its unit
    follow them), a map of affinities is not.
    """
    units = scale if _equivariant(ref.method) else 1.0
    return TrainingMap(method=ref.method, X=ref.X if X is None else X, Y=ref.Y * units,
                     affinity_params=ref.affinity_params, cost_params=ref.cost_params,
                     row_scale=ref.row_scale / units, seed=ref.seed, fast=ref.fast,
                     optimizer=optimizer)


def _in_units(placed, method, scale):
    """A placement as the family promises it when the data's units change by ``scale``."""
    return placed * scale if _equivariant(method) else placed


def _spacing(Y):
    """Median distance between a fitted point and its nearest fitted neighbour."""
    D = cdist(Y, Y)
    np.fill_diagonal(D, np.inf)
    return float(np.median(D.min(axis=1)))


_PLACED = {}


def _placed(fitted, method, optimizer):
    """The new points placed in the unchanged problem (computed once)."""
    if (method, optimizer) not in _PLACED:
        _, X_new, refs = fitted
        _PLACED[method, optimizer] = _reference(refs[method], optimizer).transform(
            X_new, n_iter=N_ITER)
    return _PLACED[method, optimizer]


# ---------------------------------------------------------------------------
# units
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("method,optimizer", UNIT_PLACEMENTS, ids=UNIT_IDS)
def test_a_model_fitted_in_tiny_units_places_points_as_in_units_of_one(
        method, optimizer, fitted):
    X, X_new, refs = fitted
    ref = _reference(refs[method], optimizer)
    expected = _placed(fitted, method, optimizer)
    for scale in (1e-170, 3.7e-77, 1e150):
        placed = _reference(ref, optimizer, X * scale, scale).transform(X_new * scale,
                                                                        n_iter=N_ITER)
        # 30 distinct points keep 30 distinct positions
        assert len(np.unique(placed, axis=0)) == len(X_new), scale
        placed = _in_units(placed, method, 1.0 / scale)
        moved = np.linalg.norm(placed - expected, axis=1).max() / _spacing(ref.Y)
        assert moved < 1e-3, (scale, moved)


@pytest.mark.parametrize("method,optimizer", UNIT_PLACEMENTS, ids=UNIT_IDS)
def test_power_of_two_units_change_no_bit_of_the_placement(method, optimizer, fitted):
    X, X_new, refs = fitted
    ref = _reference(refs[method], optimizer)
    expected = _placed(fitted, method, optimizer)
    for exponent in (-560, -3, 7, 500):
        scale = 2.0 ** exponent
        placed = _reference(ref, optimizer, X * scale, scale).transform(X_new * scale,
                                                                        n_iter=N_ITER)
        assert np.array_equal(placed, _in_units(expected, method, scale)), exponent


@pytest.mark.parametrize("method,optimizer", PLACEMENTS, ids=PLACEMENT_IDS)
def test_a_point_far_outside_the_training_range_is_placed_finitely(method, optimizer,
                                                                    fitted):
    X, X_new, refs = fitted
    ref = _reference(refs[method], optimizer)
    far = np.vstack([np.full(X.shape[1], 1e160), -1e160 * np.abs(X_new[0]),
                     X_new[1] + 1e150, np.full(X.shape[1], 1.5e300)])
    placed = ref.transform(far, n_iter=N_ITER)
    assert np.all(np.isfinite(placed)), placed
    # at the edge of the map, not thrown out of it: within a few times the
    # map's own extent of its centre
    centre = ref.Y.mean(axis=0)
    extent = np.linalg.norm(ref.Y - centre, axis=1).max()
    assert np.all(np.linalg.norm(placed - centre, axis=1) < 3.0 * extent), placed


@pytest.mark.parametrize("method,optimizer", PLACEMENTS, ids=PLACEMENT_IDS)
def test_a_far_point_is_placed_at_the_edge_of_its_nearest_neighbours(method, optimizer,
                                                                     fitted, monkeypatch):
    """Its neighbours are the training points extreme in its direction.

    A map of affinities places it among them; a stress of input distances
    (far from every training point) beyond them, on their side of the map.

    As a point recedes along a direction, the order of its distances to the
    training points tends to the order of their projections on that
    direction (largest first): the oracle, computed without any distance.
    The stochastic forms run on the Annoy path (a small EXACT_MAX_N).
    """
    import smallvis.transform as tr

    X, X_new, refs = fitted
    if optimizer == "sgd":
        monkeypatch.setattr(tr, "EXACT_MAX_N", 50)
    ref = _reference(refs[method], optimizer)
    assert ref.uses_annoy() == (optimizer == "sgd")
    centre = X.mean(axis=0)
    towards = (5, 17, 40)
    far = np.vstack([centre + 1e160 * (X[t] - centre) for t in towards])
    # one batch: a point is placed alike alone and in any batch (tested above)
    all_placed = ref.transform(far, n_iter=100)
    for s, t in enumerate(towards):
        direction = X[t] - centre
        extreme = np.argsort(-(X - centre) @ direction)
        idx, dist = ref.neighbors(far[s:s + 1], 10)
        assert set(idx[0]) == set(extreme[:10]) and np.all(np.isfinite(dist))
        placed = all_placed[s:s + 1]
        if _equivariant(method):
            # a stress keeps the point far from every training point: beyond
            # its neighbours, on their side of the map
            out = placed[0] - ref.Y.mean(axis=0)
            side = ref.Y[extreme[:10]].mean(axis=0) - ref.Y.mean(axis=0)
            assert out @ side > 0.9 * np.linalg.norm(out) * np.linalg.norm(side), t
            assert np.linalg.norm(out) >= np.linalg.norm(side), t
            continue
        to_map = np.linalg.norm(ref.Y - placed, axis=1)
        near, limit = _far_point_limit(ref, extreme[:10], placed[0])
        assert near < limit, (t, near, limit)
        assert to_map.min() < 0.2 * np.median(to_map), t


def _own_outlier_distance(ref, points):
    """The largest, over ``points``, of a training point's median map distance
    to its 10 nearest training points in the data (input distances by cdist)."""
    D = cdist(ref.X, ref.X)
    np.fill_diagonal(D, np.inf)
    neighbours = np.argsort(D[points], axis=1)[:, :10]
    return float(np.median(np.linalg.norm(ref.Y[neighbours] - ref.Y[points][:, None], axis=2),
                           axis=1).max())


def _far_point_limit(ref, neighbours, placed):
    """A far point's median map distance to its neighbours, and how far it may be.

    Among them in the map: about as near to their fitted positions as they
    are to one another (twice their median spacing) -- or, when the fit
    itself leaves one of them farther from its own neighbours in the data,
    as near as that.  The new point lies beyond all of its neighbours in
    the data, so the fit's most outlying neighbour is the nearest thing to
    it the fit has placed; a placement is held to no more than the fit
    does (factor 1).  An objective that strews its low-mass points (a P
    that keeps each row's mass) raises the limit; one that keeps its
    outliers near their neighbours keeps twice the spacing.
    docs/experiments.md ("tmsne registered") has the figures of every method.
    """
    to_neighbours = np.linalg.norm(ref.Y[neighbours] - placed, axis=1)
    among = cdist(ref.Y[neighbours], ref.Y[neighbours])[np.triu_indices(len(neighbours), 1)]
    limit = max(2.0 * np.median(among), _own_outlier_distance(ref, neighbours))
    return float(np.median(to_neighbours)), limit


@pytest.mark.parametrize("method", [m for m in METHODS if not _equivariant(m)])
def test_the_far_point_limit_refuses_a_placement_across_the_map(method, fitted):
    """The limit above can fail: a far point put on the far side of the map
    (its neighbours' mean mirrored through the map's centre) breaks it for
    every map of affinities, whatever the fit's outliers raise it to."""
    X, _, refs = fitted
    ref = refs[method]
    centre = X.mean(axis=0)
    for t in (5, 17, 40):
        extreme = np.argsort(-(X - centre) @ (X[t] - centre))[:10]
        across = 2.0 * ref.Y.mean(axis=0) - ref.Y[extreme].mean(axis=0)
        near, limit = _far_point_limit(ref, extreme, across)
        assert near > limit, (t, near, limit)


def test_a_far_point_in_tiny_units_is_placed_finitely(fitted):
    """Training data in units of 1e-170, the new point at 1e200 of the same units."""
    X, X_new, refs = fitted
    ref = _reference(refs["umap"], "sgd", X * 1e-170)
    placed = ref.transform(np.vstack([X_new[:3] * 1e-170, np.full(X.shape[1], 1e200)]),
                           n_iter=N_ITER)
    assert np.all(np.isfinite(placed))


# ---------------------------------------------------------------------------
# the batch
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("method,optimizer", PLACEMENTS, ids=PLACEMENT_IDS)
def test_a_point_is_placed_alike_alone_and_in_any_batch(method, optimizer, fitted):
    X, X_new, refs = fitted
    ref = _reference(refs[method], optimizer)
    batch = _placed(fitted, method, optimizer)
    alone = np.vstack([ref.transform(X_new[s:s + 1], n_iter=N_ITER) for s in (0, 7, 29)])
    assert np.array_equal(alone, batch[[0, 7, 29]])
    order = np.random.default_rng(3).permutation(len(X_new))
    assert np.array_equal(ref.transform(X_new[order], n_iter=N_ITER), batch[order])
    assert np.array_equal(ref.transform(X_new[::-1], n_iter=N_ITER), batch[::-1])
    split = np.vstack([ref.transform(X_new[:11], n_iter=N_ITER),
                       ref.transform(X_new[11:], n_iter=N_ITER)])
    assert np.array_equal(split, batch)
    # a batch that repeats a point, and a batch of a hundred points
    many = np.vstack([X_new, X_new[:5], X[:65]])
    assert np.array_equal(ref.transform(many, n_iter=N_ITER)[:35],
                          np.vstack([batch, batch[:5]]))


def test_stochastic_placement_still_depends_on_the_seed(fitted):
    """The draws are keyed to the point and the seed: another seed, other draws."""
    X, X_new, refs = fitted
    ref = _reference(refs["largevis"], "sgd")
    other = TrainingMap(**{**{k: getattr(ref, k) for k in (
        "method", "X", "Y", "affinity_params", "cost_params", "row_scale", "fast",
        "optimizer")}, "seed": ref.seed + 1})
    assert not np.array_equal(ref.transform(X_new, n_iter=N_ITER),
                              other.transform(X_new, n_iter=N_ITER))


# ---------------------------------------------------------------------------
# the Annoy path (training sets above EXACT_MAX_N)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("scale,offset", [(1e-170, 0.0), (1e160, 0.0), (2.0**-600, 0.0),
                                          (1.0, 1e7), (1e-30, 1e-24)])
def test_annoy_search_in_any_units(scale, offset, monkeypatch, fitted):
    import smallvis.transform as tr

    X, X_new, refs = fitted
    exact = refs["tsne"].neighbors(X_new, 12)[0]
    monkeypatch.setattr(tr, "EXACT_MAX_N", 50)
    ref = _reference(refs["tsne"], "exact", X * scale + offset)
    assert ref.uses_annoy()
    idx, dist = ref.neighbors(X_new * scale + offset, 12)
    recall = np.mean([len(set(a) & set(b)) / 12 for a, b in zip(idx, exact)])
    assert recall > 0.9, recall
    assert np.all(np.isfinite(dist)) and np.all(dist > 0)
    placed = ref.transform(np.vstack([X_new * scale + offset, np.full(X.shape[1], 1e160)]),
                           n_iter=N_ITER)
    assert np.all(np.isfinite(placed))


# ---------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------

PROPERTY = settings(max_examples=300 if LONG else 3, deadline=None, derandomize=not LONG)


@st.composite
def _changes(draw):
    """A change of units, origin and feature order, and a reordered, split batch."""
    if draw(st.booleans()):
        scale = 2.0 ** draw(st.integers(-500, 500))
    else:
        scale = 10.0 ** draw(st.integers(-150, 150))
    offset = draw(st.sampled_from([0.0, 1.0, 1e3, -1e6])) * scale
    permutation = draw(st.permutations(range(5)))
    order = draw(st.permutations(range(30)))
    cut = draw(st.integers(1, 29))
    return scale, offset, list(permutation), list(order), cut


@pytest.mark.parametrize("method,optimizer", UNIT_PLACEMENTS, ids=UNIT_IDS)
@PROPERTY
@given(change=_changes())
def test_placement_follows_units_origin_features_and_batch(method, optimizer, change,
                                                            fitted):
    X, X_new, refs = fitted
    scale, offset, features, order, cut = change
    ref = _reference(refs[method], optimizer)
    expected = _placed(fitted, method, optimizer)
    moved_ref = _reference(ref, optimizer, (X * scale + offset)[:, features], scale)
    new = (X_new * scale + offset)[:, features][order]
    placed = np.vstack([moved_ref.transform(new[:cut], n_iter=N_ITER),
                        moved_ref.transform(new[cut:], n_iter=N_ITER)])
    assert np.all(np.isfinite(placed))
    whole = moved_ref.transform(new, n_iter=N_ITER)
    assert np.array_equal(placed, whole)  # the batch does not matter, bit for bit
    exact_units = offset == 0.0 and features == sorted(features) and \
        scale == 2.0 ** np.frexp(scale)[1] / 2
    if exact_units:
        assert np.array_equal(placed, _in_units(expected[order], method, scale))
    else:
        placed = _in_units(placed, method, 1.0 / scale)
        moved = np.linalg.norm(placed - expected[order], axis=1).max() / _spacing(ref.Y)
        assert moved < 1e-3, moved


def test_a_placement_that_leaves_float64_is_refused(fitted):
    """A fitted map too wide for float64's squares: an error, not NaN coordinates."""
    X, X_new, refs = fitted
    ref = refs["umap"]
    wide = TrainingMap(method=ref.method, X=ref.X, Y=ref.Y * 1e200,
                     affinity_params=ref.affinity_params, cost_params=ref.cost_params,
                     row_scale=ref.row_scale, seed=ref.seed, optimizer="sgd")
    with pytest.raises(ValueError, match="non-finite coordinates"):
        wide.transform(X_new[:3], n_iter=N_ITER)


@pytest.mark.parametrize("method,optimizer", PLACEMENTS, ids=PLACEMENT_IDS)
def test_numpy_and_cython_kernels_place_alike(method, optimizer, fitted):
    """The NumPy reference and the Cython kernels agree (to rounding of ``P``)."""
    X, X_new, refs = fitted
    ref = refs[method]
    slow = TrainingMap(method=ref.method, X=ref.X, Y=ref.Y, affinity_params=ref.affinity_params,
                     cost_params=ref.cost_params, row_scale=ref.row_scale, seed=ref.seed,
                     fast=False, optimizer=optimizer)
    fast = _placed(fitted, method, optimizer)
    placed = slow.transform(X_new, n_iter=N_ITER)
    moved = np.linalg.norm(placed - fast, axis=1).max() / _spacing(ref.Y)
    assert moved < 1e-6, moved
