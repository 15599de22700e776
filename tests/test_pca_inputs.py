"""pca=: the data reduced to principal components first, the projection kept for transform."""

import io

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
from conftest import perplexity_and_fuzzy_methods
from smallvis import _threads
from smallvis.inputs import projected_search
from smallvis.inputs import projection as projection_module
from smallvis.inputs.projection import fit_projection


def _data(n=400, d=60, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=4.0, size=(5, d))
    return centres[rng.integers(5, size=n)] + rng.normal(size=(n, d)) + 10.0


def test_the_projection_is_numpys_pca():
    """Scores equal NumPy's SVD of the centred data, up to each component's sign."""
    rng = np.random.default_rng(0)  # a spectrum with gaps: the components are defined
    rotation, _ = np.linalg.qr(rng.normal(size=(60, 60)))
    X = (rng.normal(size=(400, 60)) * np.geomspace(20.0, 0.1, 60)) @ rotation + 10.0
    projection = fit_projection(X, 6, seed=0)
    Xc = X - X.mean(axis=0)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    signs = np.sign(np.sum(projection.components * Vt[:6], axis=1))
    # randomised: to the accuracy of four power iterations on this spectrum
    np.testing.assert_allclose(projection.components, signs[:, None] * Vt[:6], atol=1e-4)
    np.testing.assert_allclose(projection.apply(X), Xc @ (signs[:, None] * Vt[:6]).T,
                               atol=1e-3 * s[0] / np.sqrt(len(X)))


def _blas_combinations():
    """(BLAS threads outside, the call's threads): the BLAS's own count and ours."""
    return [(1, 1), (2, 1), (1, 3), (2, 3)]


def test_row_products_are_the_same_on_threads_and_whatever_the_blas(monkeypatch):
    # blocks that split the rows; float32 and float64 products; a centre,
    # an offset, both or neither
    monkeypatch.setattr(projection_module, "PRODUCT_ROWS", 7)
    rng = np.random.default_rng(4)
    X = rng.normal(size=(50, 9)) * 10.0 ** rng.integers(-6, 7, size=(50, 1))
    M = rng.normal(size=(9, 5))
    centre, offset = rng.normal(size=9), rng.normal(size=5) * 1e3
    for rows, Mx in ((X, M), (X.astype(np.float32), M.astype(np.float32))):
        for c, o in ((None, None), (centre, None), (None, offset), (centre, offset)):
            got = []
            for blas, threads in _blas_combinations():
                with _threads.blas_threads(blas):
                    got.append(projection_module.row_products(rows, Mx, threads, c, o))
            for other in got[1:]:
                np.testing.assert_array_equal(other, got[0])
            out = got[0]
            assert out.dtype == np.float64 and out.flags.c_contiguous
            plain = (rows if c is None else rows - c) @ Mx
            expect = plain.astype(np.float64) - (0.0 if o is None else o)
            np.testing.assert_allclose(out, expect, rtol=1e-5 if plain.dtype == np.float32
                                       else 1e-12, atol=1e-9 * np.abs(expect).max())
            if o is not None:  # each entry widened exactly, then the offset taken
                bare = projection_module.row_products(rows, Mx, 1, c)
                np.testing.assert_array_equal(out, bare - o)


def test_column_products_are_the_same_on_threads_and_whatever_the_blas(monkeypatch):
    monkeypatch.setattr(projection_module, "PRODUCT_COLUMNS", 2)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 11))
    M = rng.normal(size=(60, 4))
    for rows, Mx in ((X, M), (X.astype(np.float32), M.astype(np.float32))):
        got = []
        for blas, threads in _blas_combinations():
            with _threads.blas_threads(blas):
                got.append(projection_module.column_products(rows, Mx, threads))
        for other in got[1:]:
            np.testing.assert_array_equal(other, got[0])
        assert got[0].shape == (11, 4) and got[0].dtype == np.float64
        np.testing.assert_allclose(got[0], (rows.T @ Mx).astype(np.float64),
                                   rtol=1e-5 if rows.dtype == np.float32 else 1e-12)


def test_the_projection_is_the_same_on_threads_and_whatever_the_blas():
    # OpenBLAS sums a product it splits over two threads in another order:
    # a projection of 600 features whose products it would split has the
    # bits of one thread only because the package never lets it (float32
    # products, the search's for bytes or pixels, and float64)
    X = np.round(_data(n=3000, d=600) * 8.0)
    for rows in (X, X.astype(np.float32)):
        got = []
        for blas, threads in _blas_combinations():
            with _threads.blas_threads(blas):
                projection = fit_projection(rows, 20, seed=1, n_threads=threads)
                got.append((projection.components, projection.mean,
                            projection.apply(X, threads),
                            projected_search.scores(projection, rows, threads)))
        for other in got[1:]:
            for a, b in zip(got[0], other):
                np.testing.assert_array_equal(a, b)


def test_sparse_projection_is_uncentred_truncated_svd():
    X = sp.csr_matrix(np.maximum(_data(300, seed=1) - 11.0, 0.0))  # clusters, 60% zeros
    projection = fit_projection(X, 4, seed=0)
    assert projection.mean is None
    _, _, Vt = np.linalg.svd(X.toarray(), full_matrices=False)  # not centred
    # the same subspace: all principal angles near 0
    cosines = np.linalg.svd(projection.components @ Vt[:4].T, compute_uv=False)
    np.testing.assert_allclose(cosines, 1.0, atol=1e-6)


@pytest.mark.parametrize("method", perplexity_and_fuzzy_methods())
def test_pca_equals_embedding_the_scores(method):
    X = _data(seed=2)
    result = smallvis.embed(X, method, pca=10, random_state=3, n_iter=100, n_epochs=20,
                            return_result=True)
    scores = fit_projection(X, 10, seed=3).apply(X)
    np.testing.assert_array_equal(result.Y, smallvis.embed(scores, method, random_state=3,
                                                           n_iter=100, n_epochs=20))
    assert result.params["pca"] == 10


@pytest.mark.parametrize("sparse", [False, True])
def test_transform_and_model_files_apply_the_same_projection(sparse):
    X = _data(500, seed=4)
    X = sp.csr_matrix(np.maximum(X - 11.0, 0.0)) if sparse else X
    model = smallvis.Embedding("umap", random_state=0, n_iter=30, pca=8).fit(X[:450])
    assert model.training_map_.X.shape == (450, 8) and model.n_features_in_ == 60
    placed = model.transform(X[450:])
    scores = model.training_map_.projection.apply(X[450:])
    np.testing.assert_array_equal(
        model.training_map_.neighbors(X[450:], 5)[0],
        smallvis.inputs.neighbors.KNNIndex(model.training_map_.X, method="exact").query(scores,
                                                                                     5)[0])
    buf = io.BytesIO()
    smallvis.save_model(model, buf)
    buf.seek(0)
    loaded = smallvis.load_model(buf)
    assert loaded.pca == 8 and loaded.n_features_in_ == 60
    np.testing.assert_array_equal(loaded.training_map_.projection.components,
                                  model.training_map_.projection.components)
    np.testing.assert_array_equal(loaded.transform(X[450:]), placed)


def test_bad_pca_is_refused():
    X = _data(100, d=20, seed=5)
    for value, match in ((0, r"pca must be in \[1, 20\]"), (21, r"pca must be in \[1, 20\]"),
                         (2.5, "pca must be an integer")):
        with pytest.raises(ValueError if value != 2.5 else (TypeError, ValueError),
                           match=match):
            smallvis.embed(X, "umap", pca=value)
    with pytest.raises(ValueError, match="pca= keeps the euclidean and cosine metrics"):
        smallvis.embed(X, "umap", pca=5, metric="hamming")
    with pytest.raises(ValueError, match="pca= reduces the data X"):
        smallvis.embed(np.abs(X[:, :1] - X[:, :1].T), "umap", pca=5, metric="precomputed")


def test_cli_pca_is_stored_in_the_model(tmp_path):
    from smallvis.cli import main

    X = _data(120, d=30, seed=6)
    np.savetxt(tmp_path / "x.csv", X, delimiter=",")
    assert main(["embed", str(tmp_path / "x.csv"), "--method", "umap", "--pca", "5",
                 "--random-state", "1", "--out", str(tmp_path / "y.csv"), "--quiet",
                 "--save-model", str(tmp_path / "m.npz")]) in (0, None)
    model = smallvis.load_model(tmp_path / "m.npz")
    assert model.pca == 5 and model.training_map_.X.shape == (120, 5)


def _counts(n=300, d=12, seed=7):
    """Positive data (Poisson counts in clusters), where centring changes every angle."""
    rng = np.random.default_rng(seed)
    rates = rng.gamma(2.0, 3.0, size=(4, d))
    counts = rng.poisson(rates[rng.integers(4, size=n)]).astype(float)
    counts[counts.sum(axis=1) == 0, 0] = 1.0  # a row of zeros has no cosine
    return counts


def test_cosine_pca_of_all_features_keeps_p():
    """With as many components as features, pca= is a rotation: cosine P unchanged."""
    X = _counts()
    result = smallvis.embed(X, "umap", metric="cosine", pca=X.shape[1], knn_method="exact",
                            n_iter=2, random_state=0, return_result=True)
    P = smallvis.affinities(X, "umap", metric="cosine", knn_method="exact")
    assert np.abs(result.P - P).max() < 1e-10
    np.testing.assert_array_equal(result.projection.mean, 0.0)


def test_cosine_pca_keeps_the_top_directions_of_the_uncentred_rows():
    X = _counts(d=20, seed=8)
    result = smallvis.embed(X, "umap", metric="cosine", pca=4, n_iter=2, random_state=1,
                            return_result=True)
    _, _, Vt = np.linalg.svd(X, full_matrices=False)  # not centred
    cosines = np.linalg.svd(result.projection.components @ Vt[:4].T, compute_uv=False)
    np.testing.assert_allclose(cosines, 1.0, atol=1e-6)
    np.testing.assert_allclose(result.projection.apply(X), X @ result.projection.components.T,
                               rtol=1e-12, atol=1e-12)


def test_cosine_pca_places_new_points_by_the_angles_of_the_data():
    """transform and model files apply the uncentred projection to new points."""
    X = _counts(340, seed=9)
    model = smallvis.Embedding("umap", random_state=0, n_iter=20, pca=X.shape[1],
                               method_params={"metric": "cosine"}).fit(X[:300])
    indices, distances = model.training_map_.neighbors(X[300:], 5)
    exact = smallvis.inputs.neighbors.KNNIndex(X[:300], method="exact", metric="cosine")
    want_indices, want_distances = exact.query(X[300:], 5)
    np.testing.assert_allclose(distances, want_distances, atol=1e-10)
    assert np.mean(indices == want_indices) > 0.99  # ties may swap at rounding
    buf = io.BytesIO()
    smallvis.save_model(model, buf)
    buf.seek(0)
    loaded = smallvis.load_model(buf)
    np.testing.assert_array_equal(loaded.training_map_.projection.mean, 0.0)
    np.testing.assert_array_equal(loaded.transform(X[300:]), model.transform(X[300:]))
    with pytest.raises(TypeError):  # the fit's data were dense: so are new points
        model.transform(sp.csr_matrix(X[300:]))


# -- the truncated SVD in units of a power of two -------------------------------

def _sparse_rows(seed=3):
    X = sp.random(80, 300, density=0.1, random_state=seed, format="csr")
    X.data += 0.5
    return X


def test_sparse_coordinates_scale_with_the_data_bit_for_bit():
    """The SVD of sparse X runs in the units of its largest entry: 2**-1000 X gives the
    same scores, times 2**-1000, and the same map."""
    from smallvis.engines.init import data_coordinates

    X = _sparse_rows()
    small = X * 2.0**-1000
    np.testing.assert_array_equal(data_coordinates(small, 5),
                                  np.ldexp(data_coordinates(X, 5), -1000))
    np.testing.assert_array_equal(
        smallvis.embed(small, "tsne", fast=True, n_iter=100, random_state=0),
        smallvis.embed(X, "tsne", fast=True, n_iter=100, random_state=0))


@pytest.mark.parametrize("sparse", [False, True])
def test_svd_of_data_near_the_top_of_float64(sparse):
    """Entries near 1e307 (2**1020): the default start and pca= work as at scale 1, where
    they raised LinAlgError; a power of two changes no neighbour and no component."""
    X = _sparse_rows()
    big = X * 2.0**1020 if sparse else X.toarray() * 2.0**1020
    Y = smallvis.embed(big, "tsne", fast=True, n_iter=60, random_state=0)
    assert np.all(np.isfinite(Y))
    kw = dict(pca=10, knn_method="exact", n_epochs=2, random_state=0, return_result=True)
    big_fit = smallvis.embed(big, "umap", **kw)
    one_fit = smallvis.embed(X if sparse else X.toarray(), "umap", **kw)
    assert abs(big_fit.P - one_fit.P).max() < 1e-12
    np.testing.assert_array_equal(big_fit.projection.components, one_fit.projection.components)
