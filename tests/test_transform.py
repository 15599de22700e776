"""Placing new points: the transform twin kernels and smallvis.transform."""

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
from smallvis.backends import _kernels
from smallvis.backends import reference
from smallvis.registry import METHODS
from smallvis.transform import TrainingMap, build_training_map

from conftest import example_params, one_method_per_kind
from test_gradients import central_differences

#: (kernel prefix, arguments after Y_train) with eps = 0 where there is one, so
#: that each gradient is the exact gradient of its cost.
EXACT = {
    "asne": (), "ssne": (), "tsne": (), "tsne_dof": (0.5,), "tsne_dof_light": (3.0,),
    "largevis": (0.02, 0.0, 1.0), "largevis_alpha": (0.02, 0.0, 0.7),
    "largevis_exp": (0.05,), "umap": (1.577, 0.895, 0.0), "umap_b": (1.93, 0.79, 0.0),
    "tumap": (0.0,), "ncvis": (0.3, 5.0, 0.767, 1.223),
}


def _example_args(name):
    """The kernels' arguments at a method's first registry example: learned values first."""
    m, params = METHODS[name], example_params(name, 25)[0]
    return tuple(params[k] for k in m.learned) + tuple(m.kernel_name(params)[1])


#: A method without hand-written rows: its first registry example's arguments
#: (its kernels may be the generic ones, see _kernels_of).
EXACT.update({name: _example_args(name)
              for name, m in METHODS.items()
              if m.examples and m.prefix not in {_p for _p in EXACT} | {"largevis_exp"}})
#: the package defaults (eps > 0) for the twin comparison
DEFAULTS = {"largevis": (0.02, 0.1, 1.0), "umap": (1.577, 0.895, 0.001), "tumap": (0.001,)}


def _prefix(name):
    return {"largevis_alpha": "largevis", "umap_b": "umap",
            "tsne_dof_light": "tsne_dof"}.get(name, name)


def _problem(rng, m=6, n=25, dim=2, density=0.3, scale=1.0):
    """A rectangular P (rows: new points) and coordinates."""
    P = sp.random(m, n, density=density, random_state=rng, format="csr")
    P.data = 0.05 + 0.9 * rng.random(P.nnz)
    P.sort_indices()
    triplet = (P.indptr.astype(np.int64), P.indices.astype(np.int64), P.data.copy())
    return triplet, rng.normal(scale=scale, size=(m, dim)), rng.normal(scale=scale,
                                                                        size=(n, dim))


def _kernels_of(module, name):
    prefix = _prefix(name)
    if f"{prefix}_transform_cost" in module.__all__:
        return (getattr(module, f"{prefix}_transform_cost"),
                getattr(module, f"{prefix}_transform_gradient"))
    # no named kernels: the registry's rule gives the generic ones
    m = METHODS[name]
    return m.kernels(module, example_params(name, 25)[0], family="transform")[:2]


def _registry_prefixes():
    """Every exact kernel prefix the registry can select."""
    return {prefix for m in METHODS.values() for prefix in m.kernel_prefixes()}


def test_every_cost_kernel_has_transform_twins():
    # every kernel prefix the registry can select has a transform pair
    prefixes = _registry_prefixes()
    for m in METHODS.values():
        assert m.prefix in prefixes
    pair = {p for m in METHODS.values() for p in m.pair_units}
    normalised = {p for m in METHODS.values() for p in m.normalised_units}
    two_input = {p for m in METHODS.values() for p in m.second_input_units}
    for prefix in prefixes:
        for module in (reference, _kernels):
            for part in ("cost", "gradient"):
                # named twins, or a unit that its engine's generic twins run
                assert (f"{prefix}_transform_{part}" in module.__all__
                        or (prefix in pair and f"pair_transform_{part}" in module.__all__)
                        or (prefix in normalised
                            and f"normalised_transform_{part}" in module.__all__)
                        or (prefix in two_input
                            and f"second_input_transform_{part}" in module.__all__))


def test_every_registry_kernel_has_transform_cases():
    # the cases below cover every kernel the registry can select: a new
    # method fails here until its arguments are added to EXACT
    assert _registry_prefixes() <= {_prefix(name) for name in EXACT}


@pytest.mark.parametrize("name", sorted(EXACT))
@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("dim,scale", [(1, 1.0), (2, 0.5), (2, 2.0), (3, 1.0)])
def test_transform_gradient_matches_finite_differences(name, fast, dim, scale, rng):
    cost, gradient = _kernels_of(_kernels if fast else reference, name)
    args = EXACT[name]
    triplet, Y, Y_train = _problem(rng, dim=dim, scale=scale)
    grad = np.zeros_like(Y)
    gradient(*triplet, Y, Y_train, *args, grad, 1)
    fd = central_differences(lambda Yc: cost(*triplet, Yc, Y_train, *args, 1), Y)
    assert np.abs(grad).max() > 1e-6
    np.testing.assert_allclose(grad, fd, rtol=0, atol=1e-6 * np.abs(grad).max())


@pytest.mark.parametrize("name", sorted(EXACT))
@pytest.mark.parametrize("n_threads", [1, 2])
def test_transform_twins_agree(name, n_threads, rng):
    args = DEFAULTS.get(name, EXACT[name])
    for dim, density in [(1, 1.0), (2, 0.3), (3, 0.1)]:
        triplet, Y, Y_train = _problem(rng, m=9, n=40, dim=dim, density=density)
        Y_train[3] = Y[2]  # a coincident pair: no force, finite cost
        out = {}
        for module in (reference, _kernels):
            cost, gradient = _kernels_of(module, name)
            grad = np.zeros_like(Y)
            gradient(*triplet, Y, Y_train, *args, grad, n_threads)
            out[module] = (cost(*triplet, Y, Y_train, *args, n_threads), grad)
        (c_ref, g_ref), (c_fast, g_fast) = out[reference], out[_kernels]
        assert np.isfinite(c_ref) and np.all(np.isfinite(g_ref))
        assert c_fast == pytest.approx(c_ref, rel=1e-10, abs=1e-12)
        np.testing.assert_allclose(g_fast, g_ref, rtol=1e-10, atol=1e-10 * np.abs(g_ref).max())


@pytest.mark.parametrize("name", sorted(EXACT))
def test_a_new_point_feels_only_the_reference(name, rng):
    """Row s of the gradient is the same alone as in a batch (no new-new pairs)."""
    args = EXACT[name]
    triplet, Y, Y_train = _problem(rng, m=5)
    for module in (reference, _kernels):
        _, gradient = _kernels_of(module, name)
        grad = np.zeros_like(Y)
        gradient(*triplet, Y, Y_train, *args, grad, 1)
        P = sp.csr_matrix((triplet[2], triplet[1], triplet[0]), shape=(5, Y_train.shape[0]))
        row = P[2]
        one = np.zeros((1, Y.shape[1]))
        gradient(row.indptr.astype(np.int64), row.indices.astype(np.int64), row.data,
                 Y[2:3].copy(), Y_train, *args, one, 1)
        np.testing.assert_allclose(one[0], grad[2], rtol=1e-12, atol=1e-14)


# ---------------------------------------------------------------------------
# smallvis.transform on real data
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def digits_split():
    X, labels = smallvis.datasets.load("digits")
    order = np.random.default_rng(5).permutation(len(X))[:600]
    return X[order[:480]], labels[order[:480]], X[order[480:]], labels[order[480:]]


def _fit(method, X):
    # 300 iterations: past the early exaggeration (the first 100 or 250) and
    # well into the map's local moves, where the new points' 10-NN vote is
    # compared with the fitted map's own
    n_iter = 300
    result = smallvis.embed(X, method=method, fast=True, random_state=1, n_iter=n_iter,
                            return_result=True)
    return result, build_training_map(method, X, result, seed=1)


@pytest.fixture(scope="module")
def fitted(digits_split):
    """``fitted(method)``: the exact fit of the 480 training digits and its reference.

    Each method is fitted once for the module; the tests only read the
    result and transform against the training map.
    """
    X = digits_split[0]
    fits = {}

    def fit(method):
        if method not in fits:
            fits[method] = _fit(method, X)
        return fits[method]
    return fit


def _knn_accuracy(Y_train, y_train, Y_new, y_new, k=10):
    from scipy.spatial.distance import cdist

    nn = np.argsort(cdist(Y_new, Y_train), axis=1)[:, :k]
    votes = y_train[nn]
    pred = np.array([np.bincount(v).argmax() for v in votes])
    return float(np.mean(pred == y_new))


def _moved(again, Y):
    """Distances to the fitted positions, in units of the median distance
    between a fitted point and its nearest fitted neighbour."""
    D = np.linalg.norm(Y[:, None, :] - Y[None, :, :], axis=2)
    np.fill_diagonal(D, np.inf)
    return np.linalg.norm(again - Y[:len(again)], axis=1) / np.median(D.min(axis=1))


@pytest.mark.parametrize("method", list(METHODS))
def test_training_points_land_near_their_fitted_positions(method, clustered_fit):
    """Every method's placement, on its fit of 120 clustered points (``clustered_fit``).

    That fit costs a tenth of one of the 480 digits, whose fits only the
    methods of ``one_method_per_kind`` need.
    """
    X, result, ref = clustered_fit(method)
    moved = _moved(ref.transform(X[:60]), result.Y)
    assert np.median(moved) < 2.0, np.median(moved)
    assert np.quantile(moved, 0.8) < 5.0, np.quantile(moved, 0.8)
    # the start (each point at its neighbours' weighted mean) already lies
    # within a few spacings on clustered data: the placement must get closer
    start = _moved(ref.transform(X[:60], n_iter=0), result.Y)
    if METHODS[method].p_family.distances:
        # a stress's new point starts at its nearest training point, for a
        # training point itself: the fit is a minimum of its row's stress too
        # (the full stress's gradient is twice the row's), so it stays there
        assert np.median(start) == 0.0, np.median(start)
        assert np.quantile(moved, 0.8) < 0.1, np.quantile(moved, 0.8)
        return
    assert np.median(moved) < 0.9 * np.median(start), (np.median(moved), np.median(start))


@pytest.mark.parametrize("method", one_method_per_kind())
def test_new_points_are_placed_among_their_class(method, digits_split, fitted):
    X, y, X_new, y_new = digits_split
    result, ref = fitted(method)
    start = ref.transform(X_new, n_iter=0)
    placed, cost = ref.transform(X_new, return_cost=True)
    _, cost_start = ref.transform(X_new, n_iter=0, return_cost=True)
    assert cost < cost_start  # the optimisation lowers its own cost
    # better than the start, and close to the fitted map's own 10-NN vote
    # (each training point left out), which no placement can be expected to beat
    D = np.linalg.norm(result.Y[:, None, :] - result.Y[None, :, :], axis=2)
    np.fill_diagonal(D, np.inf)
    votes = y[np.argsort(D, axis=1)[:, :10]]
    fitted = np.mean(np.array([np.bincount(v).argmax() for v in votes]) == y)
    accuracy = _knn_accuracy(result.Y, y, placed, y_new)
    at_start = _knn_accuracy(result.Y, y, start, y_new)
    if METHODS[method].p_family.distances:
        # a stress's new point starts at its nearest training point (a 1-NN
        # vote of the data) and moves to fit every distance, near and far
        assert accuracy > at_start - 0.05, (accuracy, at_start)
    else:
        assert accuracy > at_start
    assert accuracy > fitted - 0.07, (accuracy, fitted)


def test_transform_is_deterministic_and_batch_independent(digits_split, fitted):
    X, _, X_new, _ = digits_split
    _, ref = fitted("umap")
    a = ref.transform(X_new)
    b = ref.transform(X_new)
    assert np.array_equal(a, b)
    c = ref.transform(X_new[::-1])[::-1]
    d = np.vstack([ref.transform(X_new[:7]), ref.transform(X_new[7:])])
    assert np.array_equal(a, c) and np.array_equal(a, d)


def test_numpy_and_cython_paths_place_points_alike(digits_split, fitted):
    X, _, X_new, _ = digits_split
    result, ref = fitted("tsne")
    slow = TrainingMap(**{**{k: getattr(ref, k) for k in ("method", "X", "Y", "affinity_params",
                                                       "cost_params", "row_scale", "seed")},
                        "fast": False})
    a = ref.transform(X_new[:20], n_iter=10)
    b = slow.transform(X_new[:20], n_iter=10)
    np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-8 * np.abs(a).max())


def test_annoy_search_for_large_references(monkeypatch, digits_split, fitted):
    """Above EXACT_MAX_N the index is Annoy, seeded: the same neighbours each time."""
    import smallvis.transform as tr

    X, _, X_new, _ = digits_split
    result, ref = fitted("umap")
    exact_idx, exact_d = ref.neighbors(X_new, 14)
    monkeypatch.setattr(tr, "EXACT_MAX_N", 100)
    ref2 = build_training_map("umap", X, result, seed=1)
    assert ref2.uses_annoy()
    idx, d = ref2.neighbors(X_new, 14)
    recall = np.mean([len(set(a) & set(b)) / 14 for a, b in zip(idx, exact_idx)])
    assert recall > 0.9
    rebuilt = build_training_map("umap", X, result, seed=1)
    assert np.array_equal(rebuilt.neighbors(X_new, 14)[0], idx)
    assert np.all(np.diff(d, axis=1) >= 0)


@pytest.mark.parametrize("method", [m for m in METHODS if METHODS[m].sgd is not None])
def test_stochastic_placement_after_a_stochastic_fit(method, digits_split):
    """A fit by the stochastic optimizer places new points by the stochastic form."""
    X, y, X_new, y_new = digits_split
    result = smallvis.embed(X, method=method, fast=True, random_state=1, optimizer="sgd",
                            return_result=True)
    ref = build_training_map(method, X, result, seed=1)
    assert ref.optimizer == "sgd"
    placed = ref.transform(X_new, n_iter=60)
    assert np.array_equal(placed, ref.transform(X_new, n_iter=60))
    assert _knn_accuracy(result.Y, y, placed, y_new) > 0.85
    Y = result.Y
    again = ref.transform(X[:100], n_iter=60)
    D = np.linalg.norm(Y[:, None, :] - Y[None, :, :], axis=2)
    np.fill_diagonal(D, np.inf)
    moved = np.linalg.norm(again - Y[:100], axis=1) / np.median(D.min(axis=1))
    assert np.median(moved) < 4.0 and np.quantile(moved, 0.8) < 8.0, moved


def test_stochastic_placement_follows_the_learning_rate():
    """The stochastic form scales its steps by ``learning_rate / 0.5``: tiny steps barely move."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 4))
    X_new = rng.normal(size=(6, 4))
    result = smallvis.embed(X, method="umap", fast=True, random_state=1, optimizer="sgd",
                            n_iter=30, return_result=True)
    ref = build_training_map("umap", X, result, seed=1)
    start = ref.transform(X_new, n_iter=0)
    default = ref.transform(X_new, n_iter=40)
    assert np.array_equal(default, ref.transform(X_new, n_iter=40, learning_rate=0.5))
    assert not np.allclose(default, start)
    tiny = ref.transform(X_new, n_iter=40, learning_rate=1e-9)
    assert np.allclose(tiny, start, rtol=0, atol=1e-6)
    assert not np.allclose(ref.transform(X_new, n_iter=40, learning_rate=50.0), default)


def test_a_collapsed_fitted_map_is_refused_without_naming_init():
    """transform has no init option: a stochastic placement on a map too small to
    resolve names the fitted embedding instead."""
    import dataclasses
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    result = smallvis.embed(X, "umap", optimizer="sgd", n_epochs=20, random_state=1,
                            n_neighbors=5, return_result=True)
    ref = dataclasses.replace(build_training_map("umap", X, result, seed=1),
                              Y=result.Y * 1e-170)
    with pytest.raises(ValueError, match="umap transform: the fitted embedding") as caught:
        ref.transform(X[:3] + 0.1, n_iter=10)
    assert "init" not in str(caught.value)
