"""Legal input never gives a wrong answer: the cases of a hostile-user audit.

Each test reproduces one finding (silently wrong result, unchecked input or
unbounded resource request) and checks that it now gives the right answer
or a clear error naming the parameter.  See docs/reliability.md.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
from smallvis import _threads, datasets
from smallvis.inputs.affinities import check_knn
from smallvis.engines.init import initialize
from smallvis.inputs.neighbors import ANNOY_MAX_TREES, nearest_neighbors

from conftest import FUZZY_METHODS, KNN_METHODS, method_affinities


def _knn_kwargs(method):
    params = smallvis.METHODS[method].affinity_params
    if "perplexity" in params:
        return {"perplexity": 3.0}
    # (input distances over all pairs take no neighbourhood size)
    return {"n_neighbors": 6} if "n_neighbors" in params else {}


def _dense(P):
    return P.toarray() if sp.issparse(P) else np.asarray(P)


@pytest.fixture(scope="module")
def blobs():
    rng = np.random.default_rng(0)
    centres = rng.normal(scale=5.0, size=(3, 4))
    return centres[rng.integers(0, 3, 60)] + rng.normal(size=(60, 4))


# ---------------------------------------------------------------------------
# Annoy on data far from the origin
# ---------------------------------------------------------------------------


def test_annoy_recall_on_digits_shifted_far_from_the_origin():
    """Digits standardised, times 0.01, plus 1e6 (projected metres, timestamps).

    Annoy's float32 index kept a recall of 0.073 of the 15 nearest neighbours.
    """
    X, _ = datasets.load("digits")
    X = X[:800]
    sd = X.std(axis=0)
    Z = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    far = 0.01 * Z + 1e6
    exact, exact_d = nearest_neighbors(far, 15, method="exact")
    approx, approx_d = nearest_neighbors(far, 15, method="annoy", random_state=0)
    recall = np.mean([len(set(a) & set(e)) / 15 for a, e in zip(approx, exact)])
    assert recall > 0.99
    same = approx == exact
    np.testing.assert_array_equal(approx_d[same], exact_d[same])


# ---------------------------------------------------------------------------
# the fast t-SNE gradient at large coordinates
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [1e100, 1e150])
@pytest.mark.parametrize("dim", [2, 3])
def test_fast_tsne_gradient_at_huge_coordinates(scale, dim):
    """|Y| ~ 1e100: w ~ 1e-200 and w^2 underflowed; the relative error was 1."""
    rng = np.random.default_rng(1)
    P = method_affinities("tsne", 30, rng)
    Y = rng.normal(size=(30, dim)) * scale
    _, g_ref = smallvis.cost_and_gradient("tsne", P, Y, fast=False)
    _, g_fast = smallvis.cost_and_gradient("tsne", P, Y, fast=True)
    np.testing.assert_allclose(g_fast, g_ref, rtol=0, atol=1e-10 * np.abs(g_ref).max())


# ---------------------------------------------------------------------------
# a user's knn= is checked, not trusted
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", KNN_METHODS)
def test_knn_rows_out_of_order_give_the_sorted_result(blobs, method, fast):
    """Rows in the wrong order were used as they came (UMAP's P off by 0.997)."""
    indices, distances = nearest_neighbors(blobs, 12, method="exact")
    order = np.random.default_rng(3).permuted(np.tile(np.arange(12), (60, 1)), axis=1)
    shuffled = (np.take_along_axis(indices, order, 1), np.take_along_axis(distances, order, 1))
    kw = _knn_kwargs(method)
    P_sorted = smallvis.affinities(blobs, method, fast=fast, knn=(indices, distances), **kw)
    P_shuffled = smallvis.affinities(blobs, method, fast=fast, knn=shuffled, **kw)
    np.testing.assert_array_equal(_dense(P_shuffled), _dense(P_sorted))


def test_sorted_knn_rows_are_left_exactly_as_they_are(blobs):
    indices, distances = nearest_neighbors(blobs, 8, method="exact")
    i, d = check_knn((indices, distances), 60, 8)
    np.testing.assert_array_equal(i, indices)
    np.testing.assert_array_equal(d, distances)
    # ties inside an unsorted row resolve by index
    ti = np.array([[3, 1, 2], [2, 0, 3], [0, 1, 3], [2, 1, 0]])
    td = np.array([[2.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    i, d = check_knn((ti, td), 4, 3)
    np.testing.assert_array_equal(i[0], [1, 2, 3])
    np.testing.assert_array_equal(i[1:], ti[1:])  # already in order: untouched


@pytest.mark.parametrize("method", KNN_METHODS)
def test_knn_with_a_repeated_neighbour_is_refused(blobs, method):
    indices, distances = nearest_neighbors(blobs, 12, method="exact")
    indices = indices.copy()
    indices[5, 3] = indices[5, 2]
    with pytest.raises(ValueError, match=r"knn lists a neighbour twice .*row 5"):
        smallvis.affinities(blobs, method, knn=(indices, distances), **_knn_kwargs(method))


@pytest.mark.parametrize("which", ["indices", "distances"])
@pytest.mark.parametrize("method", KNN_METHODS)
def test_knn_as_masked_arrays_is_refused(blobs, method, which):
    indices, distances = nearest_neighbors(blobs, 12, method="exact")
    pair = {"indices": indices, "distances": distances}
    pair[which] = np.ma.masked_array(pair[which], mask=np.zeros(pair[which].shape, bool))
    pair[which].mask[0, 0] = True
    with pytest.raises(TypeError, match=f"knn {which} is a masked array"):
        smallvis.affinities(blobs, method, knn=(pair["indices"], pair["distances"]),
                            **_knn_kwargs(method))


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
@pytest.mark.parametrize("method", KNN_METHODS)
def test_knn_with_non_finite_distances_is_refused(blobs, method, bad):
    indices, distances = nearest_neighbors(blobs, 12, method="exact")
    distances = distances.copy()
    distances[7, -1] = bad
    with pytest.raises(ValueError, match=r"knn distances must be finite.*row 7"):
        smallvis.affinities(blobs, method, knn=(indices, distances), **_knn_kwargs(method))


# ---------------------------------------------------------------------------
# a degenerate init is never returned as it is
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0.0, 3.5])
@pytest.mark.parametrize("method", smallvis.list_methods())
def test_init_with_all_rows_equal_is_refused(blobs, method, value):
    """At coincident points every gradient vanishes: the result was one point."""
    init = np.full((60, 2), value)
    with pytest.raises(ValueError, match=r"init array has all 60 rows equal.*init=\"random\""):
        smallvis.embed(blobs, method, init=init, n_iter=5, **_knn_kwargs(method))


def test_init_with_some_coincident_rows_is_accepted(blobs):
    init = np.random.default_rng(0).normal(size=(60, 2))
    init[:30] = 0.0
    Y = smallvis.embed(blobs, "tsne", init=init, perplexity=5, n_iter=20, fast=True)
    assert np.ptp(Y[:30], axis=0).max() > 0  # the coincident points came apart


def test_named_init_that_comes_out_degenerate_is_replaced(blobs, monkeypatch):
    import smallvis.engines.init as init_module

    monkeypatch.setattr(init_module, "power_iteration_layout",
                        lambda P, d, rng: np.zeros((P.shape[0], d)))
    P = np.ones((60, 60)) - np.eye(60)
    with pytest.warns(RuntimeWarning, match="init='power' put every point at the same place"):
        Y = initialize("power", blobs, 2, np.random.default_rng(0), P=P)
    assert np.ptp(Y, axis=0).min() > 0


# ---------------------------------------------------------------------------
# resource requests are bounded before anything is allocated
# ---------------------------------------------------------------------------


def test_annoy_trees_are_bounded(blobs):
    """n_trees=10**8 on 150 points ran for minutes."""
    for n_trees in (ANNOY_MAX_TREES + 1, 10**8):
        with pytest.raises(ValueError, match=r"n_trees must be in \[1, 1000\]"):
            nearest_neighbors(blobs, 5, method="annoy", n_trees=n_trees)
        with pytest.raises(ValueError, match=r"n_trees must be in \[1, 1000\]"):
            smallvis.affinities(blobs, "umap", n_trees=n_trees, knn_method="annoy")


def test_annoy_search_k_is_bounded(blobs):
    with pytest.raises(ValueError, match=r"search_k must be in \[1, 2147483647\]"):
        nearest_neighbors(blobs, 5, method="annoy", search_k=2**31)
    # beyond the whole forest a larger search_k changes nothing
    a = nearest_neighbors(blobs, 5, method="annoy", n_trees=3, search_k=3 * 60,
                          random_state=1, n_refine=0)
    b = nearest_neighbors(blobs, 5, method="annoy", n_trees=3, search_k=2**31 - 1,
                          random_state=1, n_refine=0)
    np.testing.assert_array_equal(a[0], b[0])


def test_more_threads_than_cores_are_lowered_with_a_warning(blobs, monkeypatch):
    monkeypatch.setattr(_threads, "available_cores", lambda: 2)
    P = method_affinities("tsne", 10, np.random.default_rng(0))
    Y = np.random.default_rng(1).normal(size=(10, 2))
    with pytest.warns(RuntimeWarning, match=r"n_threads = 1000 is more than the 2 core"):
        c1, g1 = smallvis.cost_and_gradient("tsne", P, Y, fast=True, n_threads=1000)
    c2, g2 = smallvis.cost_and_gradient("tsne", P, Y, fast=True, n_threads=2)
    assert c1 == c2
    np.testing.assert_array_equal(g1, g2)


# ---------------------------------------------------------------------------
# smaller findings
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", FUZZY_METHODS)
def test_umap_P_on_subnormal_data_is_finite(method, fast):
    """sigma, found in a rescaled unit, underflowed to 0 in X's: P was NaN."""
    rng = np.random.default_rng(4)
    for X in (rng.normal(size=(30, 3)) * 5e-324,
              rng.integers(0, 5, size=(30, 3)) * 5e-324):
        assert np.count_nonzero(X) > 0
        P = _dense(smallvis.affinities(X, method, fast=fast, n_neighbors=5))
        assert np.all(np.isfinite(P))
        assert P.min() >= 0 and P.max() == 1.0  # memberships; the nearest is 1
        np.testing.assert_array_equal(P, P.T)


@pytest.mark.parametrize("kw,match", [
    (dict(knn_method="bogus"), "knn_method must be one of 'auto', 'exact', 'annoy'"),
    (dict(n_trees=0), r"n_trees must be in \[1, 1000\]"),
    (dict(n_trees=2.5), "n_trees must be an integer"),
])
def test_tsne_knn_parameters_are_checked_on_the_dense_path(blobs, kw, match):
    """Up to 4096 points t-SNE calibrates over all points and ignored them."""
    exc = TypeError if "integer" in match else ValueError
    with pytest.raises(exc, match=match):
        smallvis.affinities(blobs, "tsne", perplexity=5, **kw)
    with pytest.raises(exc, match=match):
        smallvis.embed(blobs, "tsne", perplexity=5, n_iter=1, **kw)


@pytest.mark.parametrize("Q", [-1000.0, 1000.0])
@pytest.mark.parametrize("optimizer", ["exact", "sgd"])
def test_ncvis_Q_out_of_range_is_refused_by_both_twins(blobs, fast, optimizer, Q):
    """exp(-Q) overflowed: the NumPy SGD raised OverflowError, the Cython one
    returned a number."""
    with pytest.raises(ValueError, match=r"Q must be in \[-700, 700\]"):
        smallvis.embed(blobs, "ncvis", fast=fast, optimizer=optimizer, Q=Q, n_iter=3,
                       n_epochs=3, n_neighbors=5, random_state=0)
    P = method_affinities("ncvis", 8, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"Q must be in \[-700, 700\]"):
        smallvis.cost_and_gradient("ncvis", P, np.eye(8, 2), fast=fast, Q=Q)


@pytest.mark.parametrize("value", [np.nan, np.inf])
@pytest.mark.parametrize("optimizer", ["exact", "sgd"])
def test_callback_writing_non_finite_values_into_Y_is_an_error(blobs, optimizer, value):
    def spoil(iteration, Y, cost):
        if iteration == 3:
            Y[0, 0] = value

    with pytest.raises(ValueError, match="callback left NaN or infinite values in Y after "
                                         "iteration 3"):
        smallvis.embed(blobs, "umap", fast=True, optimizer=optimizer, n_iter=3, n_epochs=5,
                       n_neighbors=5, init="spca", random_state=0, callback=spoil)


def test_callback_may_still_stop_the_run_and_move_points(blobs):
    seen = []

    def stop_at_4(iteration, Y, cost):
        seen.append(iteration)
        Y[0] += 0.0  # a harmless write
        return iteration == 4

    r = smallvis.embed(blobs, "tsne", perplexity=5, n_iter=50, callback=stop_at_4,
                       return_result=True)
    assert seen == [1, 2, 3, 4] and r.stopped_early


@pytest.mark.parametrize("spread", [0.01, 100.0, 1e-6])
@pytest.mark.parametrize("ratio", [0.0, 0.1, 1.0])
def test_umap_ab_fit_does_not_depend_on_the_unit_of_spread(spread, ratio):
    """The kernel 1/(1 + a x^2b) in units of spread: b depends on
    min_dist / spread only, and a scales as spread^(-2b).  Fitted directly,
    spread = 0.01 gave b = -72.8 and spread = 100 a negative a."""
    from smallvis.inputs.affinities import fit_curve_ab

    a1, b1 = fit_curve_ab(1.0, ratio)
    a, b = fit_curve_ab(spread, ratio * spread)
    assert b == pytest.approx(b1, rel=1e-12)
    assert a * spread ** (2 * b) == pytest.approx(a1, rel=1e-12)


@pytest.mark.parametrize("method", [name for name, m in smallvis.METHODS.items()
                                    if "b" in m.fitted_params and m.sgd is not None])
def test_umap_b_above_its_bound_is_refused(blobs, method, fast):
    """b = 200: d^(2b) overflowed, the NumPy SGD raised OverflowError and the
    Cython one returned a number."""
    with pytest.raises(ValueError, match=r"b must be in \(0, 10\]"):
        smallvis.embed(blobs, method, fast=fast, optimizer="sgd", a=1.0, b=200.0,
                       n_epochs=3, n_neighbors=5, random_state=0)
    smallvis.embed(blobs, method, fast=fast, optimizer="sgd", a=1.0, b=10.0, n_epochs=3,
                   n_neighbors=5, init="spca", random_state=0)
