"""t-SNE with FFT-accelerated interpolation: twins, accuracy, selection, bad input."""

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
from smallvis.backends import _kernels
from smallvis.backends import reference
from smallvis.methods.tsne.method import FFT_AUTO_MIN_N
from smallvis.registry import METHODS, choose_gradient

from conftest import csr_triplet, random_affinities

TSNE = METHODS["tsne"]


def _sparse_affinities(n, rng, k=12):
    """A kNN-like symmetric P with about k entries per row."""
    rows = np.repeat(np.arange(n), k)
    cols = rng.integers(0, n, n * k)
    A = sp.csr_matrix((rng.random(n * k), (rows, cols)), shape=(n, n))
    A.setdiag(0.0)
    A.eliminate_zeros()
    A = A + A.T
    return A / A.sum()


def _relative_error(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


@pytest.fixture(scope="module")
def digits_250():
    """digits after 250 exact iterations (the end of early exaggeration)."""
    X = smallvis.datasets.load("digits")[0]
    res = smallvis.embed(X, "tsne", fast=True, n_iter=250, gradient="exact", random_state=0,
                         return_result=True, n_threads=2)
    return res.P, res.Y


# ---------------------------------------------------------------------------
# twins
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dim", [1, 2])
@pytest.mark.parametrize("layout", ["dense", "sparse"])
@pytest.mark.parametrize("n_interpolation", [1, 3, 6])
def test_fft_twins_agree(rng, dim, layout, n_interpolation):
    n = 60 if layout == "dense" else 400
    P = random_affinities(n, rng) if layout == "dense" else _sparse_affinities(n, rng)
    triplet = csr_triplet(P)
    assert (len(triplet[2]) == n * n) == (layout == "dense")
    Y = rng.normal(scale=rng.choice([0.5, 5.0, 40.0]), size=(n, dim)) + 7.0
    g_ref, g_fast = np.zeros_like(Y), np.zeros_like(Y)
    assert reference.tsne_fft_gradient(*triplet, Y, n_interpolation, g_ref, 1) is None
    assert _kernels.tsne_fft_gradient(*triplet, Y, n_interpolation, g_fast, 2) is None
    np.testing.assert_allclose(g_fast, g_ref, rtol=0, atol=1e-10 * np.abs(g_ref).max())
    c_ref = reference.tsne_fft_cost(*triplet, Y, n_interpolation, 1)
    c_fast = _kernels.tsne_fft_cost(*triplet, Y, n_interpolation, 2)
    np.testing.assert_allclose(c_fast, c_ref, rtol=1e-10)


def test_fft_kernels_are_registered_twins():
    cost, gradient, args = TSNE.cost_kernels(_kernels, dict(TSNE.cost_params), "fft")
    # wrapped: a layout too wide for the grid goes to the exact twins
    assert (cost.approximate, gradient.approximate) == (_kernels.tsne_fft_cost,
                                                        _kernels.tsne_fft_gradient)
    assert (cost.exact, gradient.exact) == (_kernels.tsne_cost, _kernels.tsne_gradient)
    assert args == (TSNE.cost_params["n_interpolation"],)
    assert {"tsne_fft_cost", "tsne_fft_gradient"} <= set(reference.__all__)


def test_fft_kernels_refuse_three_dimensions(rng):
    P = csr_triplet(random_affinities(20, rng))
    Y = rng.normal(size=(20, 3))
    for module in (reference, _kernels):
        with pytest.raises(ValueError, match="1-D and 2-D"):
            module.tsne_fft_gradient(*P, Y, 3, np.zeros_like(Y), 1)
        with pytest.raises(ValueError, match="1-D and 2-D"):
            module.tsne_fft_cost(*P, Y, 3, 1)


# ---------------------------------------------------------------------------
# accuracy against the exact gradient
# ---------------------------------------------------------------------------


def test_default_accuracy_on_digits(digits_250):
    P, Y = digits_250
    c_exact, g_exact = smallvis.cost_and_gradient("tsne", P, Y, fast=True)
    c_fft, g_fft = smallvis.cost_and_gradient("tsne", P, Y, fast=True, gradient="fft")
    assert _relative_error(g_fft, g_exact) <= 1e-2
    assert abs(c_fft - c_exact) <= 1e-3 * c_exact
    # an approximation, not the exact gradient under another name
    assert not np.allclose(g_fft, g_exact, rtol=1e-12, atol=0)


@pytest.mark.parametrize("dim", [1, 2])
def test_error_falls_below_1e_5_as_the_knob_tightens(digits_250, dim):
    P, Y = digits_250
    Y = np.ascontiguousarray(Y[:, :dim])
    _, g_exact = smallvis.cost_and_gradient("tsne", P, Y, fast=True)
    errors = []
    for p in (1, 2, 3, 4, 6, 8):
        _, g = smallvis.cost_and_gradient("tsne", P, Y, fast=True, gradient="fft",
                                          n_interpolation=p)
        errors.append(_relative_error(g, g_exact))
    assert all(b < a for a, b in zip(errors, errors[1:])), errors
    assert errors[0] > 1e-2          # one node per box is a crude approximation
    assert errors[-1] < 1e-5, errors


def test_approximate_cost_converges_to_the_exact_cost(rng):
    P = _sparse_affinities(500, rng)
    Y = rng.normal(scale=10.0, size=(500, 2))
    exact = smallvis.cost_and_gradient("tsne", P, Y, fast=True)[0]
    errors = [abs(smallvis.cost_and_gradient("tsne", P, Y, fast=True, gradient="fft",
                                             n_interpolation=p)[0] - exact)
              for p in (2, 4, 8)]
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 1e-5 * exact


def test_fft_agrees_with_exact_in_numpy_reference_too(rng):
    """The reference twin measured against the exact reference, not only the Cython one."""
    P = random_affinities(80, rng)
    Y = rng.normal(scale=3.0, size=(80, 2))
    _, g_exact = smallvis.cost_and_gradient("tsne", P, Y)
    _, g_fft = smallvis.cost_and_gradient("tsne", P, Y, gradient="fft", n_interpolation=10)
    assert _relative_error(g_fft, g_exact) < 1e-8


# ---------------------------------------------------------------------------
# selection through embed and cost_and_gradient
# ---------------------------------------------------------------------------


def test_auto_picks_exact_up_to_the_threshold_then_fft():
    assert choose_gradient(TSNE, "auto", FFT_AUTO_MIN_N, 2) == "exact"
    assert choose_gradient(TSNE, "auto", FFT_AUTO_MIN_N + 1, 2) == "fft"
    assert choose_gradient(TSNE, "auto", FFT_AUTO_MIN_N + 1, 1) == "fft"
    assert choose_gradient(TSNE, "auto", FFT_AUTO_MIN_N + 1, 3) == "exact"
    assert choose_gradient(METHODS["umap"], "auto", 10 ** 6, 2) == "exact"


def test_embed_records_the_gradient_that_ran():
    X = smallvis.datasets.load("iris")[0][:80]
    fft = smallvis.embed(X, "tsne", fast=True, gradient="fft", n_iter=60, random_state=1,
                         return_result=True)
    assert fft.params["gradient"] == "fft" and fft.cost_kind == "approximate"
    assert np.all(np.isfinite(fft.Y)) and np.isfinite(fft.cost)
    auto = smallvis.embed(X, "tsne", fast=True, n_iter=60, random_state=1, return_result=True)
    assert auto.params["gradient"] == "exact" and auto.cost_kind == "exact"
    # the reported approximate cost is that of the final Y
    c_fft, _ = smallvis.cost_and_gradient("tsne", fft.P, fft.Y, fast=True, gradient="fft")
    assert fft.cost == pytest.approx(c_fft, rel=1e-12)


def test_one_dimensional_fft_embedding_learns_the_classes():
    X, y = smallvis.datasets.load("iris")[:2]
    res = smallvis.embed(X, "tsne", fast=True, n_components=1, gradient="fft", n_iter=300,
                         random_state=0, return_result=True)
    assert res.params["gradient"] == "fft"
    exact_cost = smallvis.cost_and_gradient("tsne", res.P, res.Y)[0]
    assert exact_cost < 0.6 * res.itercosts[0]       # the run descended the true cost
    assert smallvis.metrics.knn_accuracy(res.Y, y, 10) > 0.85


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs,match", [
    (dict(gradient="bh"), r"'auto', 'exact', 'fft'.*'bh'"),
    (dict(gradient=None), "gradient must be one of"),
    (dict(method="umap", gradient="fft"), r"'auto', 'exact' for method 'umap'.*'fft' for tsne"),
    (dict(gradient="fft", n_components=3), r"1-D and 2-D .*gradient='exact'"),
    (dict(n_interpolation=0), "n_interpolation"),
    (dict(gradient="fft", n_interpolation=2.5), "n_interpolation"),
])
def test_bad_gradient_requests_in_embed(kwargs, match):
    X = smallvis.datasets.load("iris")[0][:100]
    kw = {"method": "tsne", **kwargs}
    with pytest.raises((ValueError, TypeError), match=match):
        smallvis.embed(X, n_iter=1, **kw)


def test_bad_gradient_requests_in_cost_and_gradient(rng):
    P = random_affinities(10, rng)
    with pytest.raises(ValueError, match="'fft' for tsne"):
        smallvis.cost_and_gradient("largevis", P, rng.normal(size=(10, 2)), gradient="fft")
    with pytest.raises(ValueError, match="1-D and 2-D"):
        smallvis.cost_and_gradient("tsne", P, rng.normal(size=(10, 3)), gradient="fft")


def test_grid_memory_is_bounded_for_absurdly_spread_coordinates(rng):
    """Two clusters 1e7 apart: boxes of width 1 would need 1e14 nodes."""
    n = 200
    P = csr_triplet(_sparse_affinities(n, rng))
    Y = rng.normal(size=(n, 2))
    Y[n // 2:] += 1e7
    lo, n_boxes, h = reference._fft_grid(Y, 3)
    assert (n_boxes * 3) ** 2 <= reference.FFT_MAX_NODES
    for module in (reference, _kernels):
        g = np.zeros_like(Y)
        tracemalloc.start()
        try:
            module.tsne_fft_gradient(*P, Y, 3, g, 1)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 1.5e9, peak
        assert np.all(np.isfinite(g))


# ---------------------------------------------------------------------------
# layouts wider than the grid (docs/reliability.md, "The FFT gradient's
# accuracy"): boxes stay at most 1 wide, or the exact gradient runs, or a
# warning says how wide they are
# ---------------------------------------------------------------------------


def _wide_clusters(n, span, dim, rng, k=20):
    """20 unit-width clusters spread over ``span``, with a kNN-like P inside each."""
    label = rng.integers(0, k, n)
    Y = rng.uniform(0.0, span, size=(k, dim))[label] + rng.normal(size=(n, dim))
    rows = np.repeat(np.arange(n), 10)
    cols = np.concatenate([rng.choice(np.flatnonzero(label == label[i]), 10)
                           for i in range(n)])
    A = sp.csr_matrix((rng.random(n * 10), (rows, cols)), shape=(n, n))
    A.setdiag(0.0)
    A.eliminate_zeros()
    A = A + A.T
    return A / A.sum(), np.ascontiguousarray(Y)


def _median_point_error(g, g_exact):
    return np.median(np.linalg.norm(g - g_exact, axis=1) / np.linalg.norm(g_exact, axis=1))


def _fft_warnings(record):
    return [w for w in record if issubclass(w.category, reference.FFTAccuracyWarning)]


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("dim,span,dof", [(2, 2000.0, 1.0), (2, 2000.0, 0.5), (1, 1e6, 1.0)])
def test_a_layout_too_wide_for_the_grid_keeps_the_promised_accuracy(rng, fast, dim, span, dof):
    """500 points over 2,000 units (1-D: 1e6, past its 2**20 nodes): boxes would be ~6 wide."""
    P, Y = _wide_clusters(500, span, dim, rng)
    assert reference._fft_grid(Y, 3)[2] > 2.0       # the capped grid's boxes
    c_exact, g_exact = smallvis.cost_and_gradient("tsne", P, Y, fast=fast, dof=dof)
    with pytest.warns(reference.FFTAccuracyWarning, match="exact gradient is used") as record:
        c_fft, g_fft = smallvis.cost_and_gradient("tsne", P, Y, fast=fast, dof=dof,
                                                  gradient="fft")
    assert len(_fft_warnings(record)) == 1
    # the promise of boxes of width 1 (about 2e-2 on such clusters), met here
    # by the exact gradient
    assert _median_point_error(g_fft, g_exact) <= 1e-2
    assert abs(c_fft - c_exact) <= 1e-3 * abs(c_exact)


def test_a_run_through_a_wide_layout_warns_once():
    X = smallvis.datasets.load("iris")[0]
    init = np.random.default_rng(0).uniform(0.0, 2000.0, size=(X.shape[0], 2))
    with pytest.warns(reference.FFTAccuracyWarning) as record:
        res = smallvis.embed(X, "tsne", fast=True, gradient="fft", init=init, n_iter=12,
                             random_state=0, return_result=True)
    assert len(_fft_warnings(record)) == 1
    assert res.params["gradient"] == "fft" and np.all(np.isfinite(res.Y))


def test_above_the_exact_limit_the_coarse_grid_runs_and_says_how_coarse(rng, monkeypatch):
    """Above FFT_WIDE_EXACT_MAX_N points: the capped grid, and a warning with its error."""
    # a small cap and limit stand for a large N on a wide layout, at the cost of a small one
    monkeypatch.setattr(reference, "FFT_MAX_NODES", 2 ** 12)
    monkeypatch.setattr(reference, "FFT_WIDE_EXACT_MAX_N", 100)
    P, Y = _wide_clusters(300, 200.0, 2, rng)
    triplet = csr_triplet(P)
    h = reference._fft_grid(Y, 3)[2]
    assert h > 2.0
    for fast, module in ((False, reference), (True, _kernels)):
        with pytest.warns(reference.FFTAccuracyWarning,
                          match=rf"boxes are {h:.3g} wide.*gradient='exact'.*FFT_MAX_NODES"):
            _, g = smallvis.cost_and_gradient("tsne", P, Y, fast=fast, gradient="fft")
        g_bare = np.zeros_like(Y)
        module.tsne_fft_gradient(*triplet, Y, 3, g_bare, 1)
        np.testing.assert_array_equal(g, g_bare)
        # what the warning estimates: an error of order 1 on such boxes
        _, g_exact = smallvis.cost_and_gradient("tsne", P, Y, fast=fast)
        assert _median_point_error(g, g_exact) > 0.1


def test_both_twins_read_the_node_cap_at_each_call(rng, monkeypatch):
    """The Cython grid is the reference's: a changed FFT_MAX_NODES moves both alike."""
    monkeypatch.setattr(reference, "FFT_MAX_NODES", 2 ** 12)
    P = csr_triplet(_sparse_affinities(300, rng))
    Y = rng.normal(scale=20.0, size=(300, 2))
    assert reference._fft_grid(Y, 3)[1] == 21       # 64 nodes per side, not 1024
    g_ref, g_fast = np.zeros_like(Y), np.zeros_like(Y)
    reference.tsne_fft_gradient(*P, Y, 3, g_ref, 1)
    _kernels.tsne_fft_gradient(*P, Y, 3, g_fast, 1)
    np.testing.assert_allclose(g_fast, g_ref, rtol=0, atol=1e-10 * np.abs(g_ref).max())


@pytest.mark.parametrize("fast", [False, True])
def test_layouts_within_the_grid_are_untouched(rng, fast):
    """Below the cap: the bare interpolation, to the bit, and no warning."""
    P, Y = _wide_clusters(300, 120.0, 2, rng)        # boxes of width <= 1
    assert reference._fft_grid(Y, 3)[2] <= 1.0
    module = _kernels if fast else reference
    triplet = csr_triplet(P)
    g_bare = np.zeros_like(Y)
    module.tsne_fft_gradient(*triplet, Y, 3, g_bare, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c, g = smallvis.cost_and_gradient("tsne", P, Y, fast=fast, gradient="fft")
    np.testing.assert_array_equal(g, g_bare)
    assert c == module.tsne_fft_cost(*triplet, Y, 3, 1)


# ---------------------------------------------------------------------------
# heavy tails (dof < 1): the kernel bends over about sqrt(dof), so the
# promise needs boxes narrower than 1
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("fast", [False, True])
def test_a_heavy_tail_on_a_one_dimensional_layout_keeps_the_promised_accuracy(rng, fast):
    """dof = 0.003 over 300 units in 1-D: a finer grid fits the cap, no warning needed."""
    P, Y = _wide_clusters(1000, 300.0, 1, rng)
    assert reference._fft_grid(Y, 3, 0.003)[2] < 0.2      # boxes narrower than width 1
    _, g_exact = smallvis.cost_and_gradient("tsne", P, Y, fast=fast, dof=0.003)
    with warnings.catch_warnings():
        warnings.simplefilter("error", reference.FFTAccuracyWarning)
        _, g_fft = smallvis.cost_and_gradient("tsne", P, Y, fast=fast, dof=0.003,
                                              gradient="fft")
    # the promise of dof = 1 on boxes of width 1 (about 2e-2 on such clusters)
    assert _median_point_error(g_fft, g_exact) <= 2e-2


@pytest.mark.parametrize("fast", [False, True])
def test_a_heavy_tail_too_wide_for_the_grid_goes_exact_and_says_why(rng, fast):
    """dof = 0.003 over 300 units in 2-D: narrow enough boxes pass the node cap."""
    P, Y = _wide_clusters(500, 300.0, 2, rng)
    assert reference._fft_grid(Y, 3)[2] <= 1.0            # fine for dof = 1
    _, g_exact = smallvis.cost_and_gradient("tsne", P, Y, fast=fast, dof=0.003)
    with pytest.warns(reference.FFTAccuracyWarning,
                      match=r"dof=0\.003.*exact gradient is used") as record:
        _, g_fft = smallvis.cost_and_gradient("tsne", P, Y, fast=fast, dof=0.003,
                                              gradient="fft")
    assert len(_fft_warnings(record)) == 1
    assert _median_point_error(g_fft, g_exact) <= 2e-2


@pytest.mark.parametrize("dim", [1, 2])
def test_the_box_width_follows_the_kernel_scale_below_dof_one(rng, dim):
    """Boxes shrink as sqrt(dof) for heavy tails; dof >= 1 keeps the width-1 grid."""
    Y = rng.uniform(0.0, 60.0 if dim == 1 else 19.0, size=(200, dim))
    span = float(np.ptp(Y, axis=0).max())
    for dof in (1.0, 2.0, 100.0):
        _, n_boxes, h = reference._fft_grid(Y, 3, dof)
        assert n_boxes == max(reference.FFT_MIN_INTERVALS, int(np.ceil(span)))
    widths = [reference._fft_grid(Y, 3, dof)[2] for dof in (0.1, 0.01, 0.001)]
    assert widths[0] > widths[1] > widths[2]
    for dof, h in zip((0.1, 0.01, 0.001), widths):
        assert h <= 2.0 * np.sqrt(dof)


def test_the_coarse_grid_warning_names_the_real_node_count(rng, monkeypatch):
    """Above FFT_WIDE_EXACT_MAX_N the warning speaks of the n_interpolation in use."""
    monkeypatch.setattr(reference, "FFT_MAX_NODES", 2 ** 12)
    monkeypatch.setattr(reference, "FFT_WIDE_EXACT_MAX_N", 100)
    P, Y = _wide_clusters(300, 200.0, 2, rng)
    with pytest.warns(reference.FFTAccuracyWarning, match="n_interpolation = 5") as record:
        smallvis.cost_and_gradient("tsne", P, Y, gradient="fft", n_interpolation=5)
    (message,) = [str(w.message) for w in _fft_warnings(record)]
    assert "3 nodes" not in message
