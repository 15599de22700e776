"""Metamorphic tests: what the maths says must not change, does not change.

* Neighbours and input affinities do not depend on the units or the origin
  of X (X -> c X for c from 1e-150 to 1e150, X -> X + b with |b| up to 1e6
  times the spread), nor on the order of the features; a permutation of the
  rows permutes P with them (exact neighbours, no ties); input distances
  follow the units instead (c X gives c times them), as their family
  promises.  P is checked for
  one method per way of building it, and every method's P is its group's.
* The two twins of every cost and gradient agree for layouts of any size,
  |Y| from 1e-100 to 1e100.

The default run takes a few seconds.  ``SMALLVIS_LONG_TESTS=1`` sweeps many
more scales, offsets and shapes.
"""

import os
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
from smallvis.backends._backend import kernels as select_kernels
from smallvis.inputs.affinities import conditional_perplexity, conditional_perplexity_knn
from smallvis.inputs.neighbors import nearest_neighbors
from smallvis.registry import knn_only_methods

from conftest import (EXACT_VARIANTS, affinity_builder, method_affinities,
                      one_method_per_affinity_builder)

LONG = os.environ.get("SMALLVIS_LONG_TESTS", "") not in ("", "0")

METHODS = smallvis.list_methods()
#: One method per way of building P (tests/conftest.py::affinity_builder):
#: the properties of P below are the builder's, the same code for every
#: method of its group, and test_methods_that_share_a_builder_build_the_same_p
#: holds each method to its representative's P.
BUILDERS = one_method_per_affinity_builder()

if LONG:
    SCALES = [10.0 ** k for k in range(-150, 151, 25)] + [3.7e-77, 2.0**-600]
    OFFSETS = [1.0, 1e2, 1e4, 1e6, -1e6]
    Y_SCALES = [10.0 ** k for k in range(-100, 101, 10)]
    SEEDS = range(4)
else:
    SCALES = [1e-150, 1e-37, 1e45, 1e150]
    OFFSETS = [1e3, 1e6]
    Y_SCALES = [1e-100, 1e-30, 1e30, 1e100]
    SEEDS = range(1)


def _data(seed, n=48, d=5):
    """Three Gaussian clusters, continuous values (no tied distances)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=4.0, size=(3, d))
    return centres[rng.integers(0, 3, n)] + rng.normal(size=(n, d))


def _kwargs(method, n):
    """Small-data parameters that keep every method on its usual path."""
    params = smallvis.METHODS[method].affinity_params
    if "perplexity" in params:
        return {"perplexity": 5.0}
    return {"n_neighbors": 8} if "n_neighbors" in params else {}


def _in_units(P, scale, method):
    """``P`` of ``X`` as the family promises it for ``scale * X``.

    Affinities do not depend on the data's units; input distances (a
    family whose ``units`` is ``"equivariant"``) are measured in them.
    """
    return P * scale if smallvis.METHODS[method].p_family.units == "equivariant" else P


def _dense(P):
    return P.toarray() if sp.issparse(P) else np.asarray(P)


def _affinities(X, method, fast):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # calibration fallbacks
        return _dense(smallvis.affinities(X, method, fast=fast, **_kwargs(method, len(X))))


def _rtol(method):
    # The UMAP bisection stops within 1e-5 of its target sum, so a
    # rounding-level change of the distances can move sigma by about that
    # much; the perplexity bisection is far less sensitive.
    return 1e-4 if smallvis.METHODS[method].p_family.memberships else 1e-9


def _assert_same_P(P1, P0, method):
    assert np.all(np.isfinite(P1))
    np.testing.assert_array_equal(P1 > 0, P0 > 0)  # the same graph
    np.testing.assert_allclose(P1, P0, rtol=_rtol(method), atol=0)


# ---------------------------------------------------------------------------
# neighbours
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("scale", SCALES)
def test_exact_neighbours_are_scale_invariant(seed, scale):
    X = _data(seed)
    i0, d0 = nearest_neighbors(X, 10, method="exact")
    i1, d1 = nearest_neighbors(X * scale, 10, method="exact")
    np.testing.assert_array_equal(i1, i0)
    np.testing.assert_allclose(d1, d0 * scale, rtol=1e-14)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("offset", OFFSETS)
def test_exact_neighbours_ignore_a_large_offset(seed, offset):
    """The offset costs the data their low digits, the distances nothing more.

    ``X + b`` rounds X; ``(X + b) - b`` is that rounded X exactly (Sterbenz),
    so it is the data whose distances the shifted run must reproduce.
    """
    X = _data(seed)
    b = offset * np.ptp(X)
    shifted = X + b
    represented = shifted - b
    i0, d0 = nearest_neighbors(represented, 10, method="exact")
    i1, d1 = nearest_neighbors(shifted, 10, method="exact")
    np.testing.assert_array_equal(i1, i0)
    np.testing.assert_allclose(d1, d0, rtol=1e-13)


@pytest.mark.parametrize("transform", ["offset", "offset_and_tiny", "offset_and_huge"])
def test_annoy_neighbours_ignore_units_and_origin(transform):
    """Annoy stores float32; far from the origin that used to erase the data.

    (Before the data were centred, an offset of 1e6 times the spread left a
    recall of a few per cent.)
    """
    X = _data(7, n=300, d=6)
    c, b = {"offset": (1.0, 1e6), "offset_and_tiny": (1e-150, 1e6),
            "offset_and_huge": (1e150, -1e6)}[transform]
    Xt = c * (X + b * np.ptp(X))
    exact, _ = nearest_neighbors(Xt, 10, method="exact")
    approx, dist = nearest_neighbors(Xt, 10, method="annoy", n_trees=10, random_state=0)
    recall = np.mean([len(set(a) & set(e)) / 10 for a, e in zip(approx, exact)])
    assert recall > 0.97
    # distances are float64 ones, not float32 ones: equal to the exact search's
    # wherever the two found the same neighbour
    _, exact_d = nearest_neighbors(Xt, 10, method="exact")
    same = approx == exact
    np.testing.assert_array_equal(dist[same], exact_d[same])


@pytest.mark.parametrize("seed", SEEDS)
def test_exact_neighbours_follow_a_row_permutation(seed):
    X = _data(seed)
    perm = np.random.default_rng(seed + 100).permutation(len(X))
    i0, d0 = nearest_neighbors(X, 10, method="exact")
    i1, d1 = nearest_neighbors(X[perm], 10, method="exact")
    # row r of the permuted data is point perm[r]; its neighbours, renamed
    np.testing.assert_array_equal(perm[i1], i0[perm])
    np.testing.assert_allclose(d1, d0[perm], rtol=1e-14)


@pytest.mark.parametrize("seed", SEEDS)
def test_exact_neighbours_ignore_the_feature_order(seed):
    X = _data(seed)
    cols = np.random.default_rng(seed + 200).permutation(X.shape[1])
    i0, d0 = nearest_neighbors(X, 10, method="exact")
    i1, d1 = nearest_neighbors(X[:, cols], 10, method="exact")
    np.testing.assert_array_equal(i1, i0)
    np.testing.assert_allclose(d1, d0, rtol=1e-14)


# ---------------------------------------------------------------------------
# input affinities, every way of building P, both twins
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_methods_that_share_a_builder_build_the_same_p(method, fast):
    """Each method's P is its builder representative's, bit for bit.

    This is what lets the invariance checks of P run on one method per
    builder: a method whose P came from other code than its group's (a
    parameter read elsewhere, a builder wrapped) fails here and needs a
    builder of its own, which then becomes a representative.
    """
    (representative,) = [name for name in BUILDERS
                         if affinity_builder(smallvis.METHODS[name])
                         == affinity_builder(smallvis.METHODS[method])]
    X = _data(0)
    np.testing.assert_array_equal(_affinities(X, method, fast),
                                  _affinities(X, representative, fast))


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("method", BUILDERS)
def test_P_follows_the_units_as_its_family_promises(method, fast, scale):
    X = _data(0)
    _assert_same_P(_affinities(X * scale, method, fast),
                   _in_units(_affinities(X, method, fast), scale, method), method)


@pytest.mark.parametrize("offset", OFFSETS)
@pytest.mark.parametrize("method", BUILDERS)
def test_P_ignores_a_large_offset(method, fast, offset):
    X = _data(1)
    b = offset * np.ptp(X)
    shifted = X + b
    _assert_same_P(_affinities(shifted, method, fast), _affinities(shifted - b, method, fast),
                   method)


@pytest.mark.parametrize("method", BUILDERS)
def test_P_follows_a_row_permutation(method, fast):
    """P1[r, s], of the permuted data, is the affinity of points perm[r], perm[s].

    The perplexity bisection of a row starts from the previous row's
    precision (as in R smallvis), so the row order moves each row's result
    within the calibration tolerance (1e-5 nats of entropy): for those
    methods the public P agrees to that tolerance, and the calibration run
    to a tolerance of 1e-13 agrees to rounding.
    """
    X = _data(2)
    perm = np.random.default_rng(3).permutation(len(X))
    P0 = _affinities(X, method, fast)
    P1 = _affinities(X[perm], method, fast)
    expected = P0[np.ix_(perm, perm)]
    if "perplexity" not in smallvis.METHODS[method].affinity_params:
        _assert_same_P(P1, expected, method)
        return
    np.testing.assert_array_equal(P1 > 0, expected > 0)
    np.testing.assert_allclose(P1, expected, rtol=0, atol=1e-4 * expected.max())
    kernels = select_kernels(fast)
    tight = dict(tol=1e-13, max_tries=200)
    if method in knn_only_methods():  # calibrated over nearest neighbours at any size
        C0, _ = conditional_perplexity_knn(X, 5.0, kernels, knn_method="exact", **tight)
        C1, _ = conditional_perplexity_knn(X[perm], 5.0, kernels, knn_method="exact",
                                               **tight)
        C0, C1 = C0.toarray(), C1.toarray()
    else:
        C0, _ = conditional_perplexity(X, 5.0, kernels, **tight)
        C1, _ = conditional_perplexity(X[perm], 5.0, kernels, **tight)
    np.testing.assert_allclose(C1, C0[np.ix_(perm, perm)], rtol=1e-7, atol=1e-300)


@pytest.mark.parametrize("method", BUILDERS)
def test_P_ignores_the_feature_order(method, fast):
    X = _data(4)
    cols = np.random.default_rng(5).permutation(X.shape[1])
    _assert_same_P(_affinities(X[:, cols], method, fast), _affinities(X, method, fast), method)


# ---------------------------------------------------------------------------
# costs and gradients at every scale
# ---------------------------------------------------------------------------

TWIN_CASES = [(m, params) for m, variants in EXACT_VARIANTS.items() for params in variants]


@pytest.mark.parametrize("scale", Y_SCALES)
@pytest.mark.parametrize("method,params", TWIN_CASES)
def test_twins_agree_at_every_scale(method, params, scale):
    """The NumPy and Cython costs and gradients agree from |Y| = 1e-100 to 1e100.

    Dense and sparse P; 1, 2 and 3 output dimensions (2 takes the fused
    loops, with blocks of four rows for t-SNE).
    """
    rng = np.random.default_rng(11)
    n = 13
    for density in (1.0, 0.3):
        P = method_affinities(method, n, rng, density=density)
        for dim in (1, 2, 3):
            Y = rng.normal(size=(n, dim)) * scale
            try:
                c0, g0 = smallvis.cost_and_gradient(method, P, Y, fast=False, **params)
            except ValueError as exc:
                # a cost of degree 4 in the distances (smmds's) is not a
                # float64 at |Y| = 1e100: both twins refuse it alike
                assert "overflows float64" in str(exc) and scale >= 1e30
                with pytest.raises(ValueError, match="overflows float64"):
                    smallvis.cost_and_gradient(method, P, Y, fast=True, **params)
                continue
            c1, g1 = smallvis.cost_and_gradient(method, P, Y, fast=True, **params)
            assert c1 == pytest.approx(c0, rel=1e-10, abs=1e-300)
            top = np.abs(g0).max()
            if top == 0:
                # a bounded divergence (jse's) saturates when every q is 0
                # or 1: its exact forces vanish, and so must the twin's
                assert scale >= 1e30 and not np.any(g1)
                continue
            np.testing.assert_allclose(g1, g0, rtol=0, atol=1e-10 * top)


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_tsne_gradient_is_homogeneous_for_huge_layouts(fast, dim):
    """Far apart, w = 1 / (1 + d^2) is 1 / d^2 to rounding, so s grad(s Y) is
    the same for every large s: an oracle that needs neither twin.

    (The Cython gradient lost the whole repulsion at s = 1e100: w^2
    underflowed.)
    """
    rng = np.random.default_rng(5)
    n = 14
    P = method_affinities("tsne", n, rng)
    Y = rng.normal(size=(n, dim))
    scaled = {}
    for s in (1e20, 1e60, 1e100, 1e140):
        _, g = smallvis.cost_and_gradient("tsne", P, Y * s, fast=fast)
        scaled[s] = g * s
    for s, g in scaled.items():
        np.testing.assert_allclose(g, scaled[1e20], rtol=0,
                                   atol=1e-12 * np.abs(scaled[1e20]).max(), err_msg=f"s={s:g}")
