"""Perplexity calibration: known values and structure of P."""

import warnings

import numpy as np
import pytest

import smallvis
from smallvis.inputs.affinities import conditional_perplexity
from smallvis.backends._backend import kernels


def row_perplexity(P):
    """exp(H) of each row, H in nats, computed independently of the kernels."""
    with np.errstate(divide="ignore", invalid="ignore"):
        H = -np.nansum(np.where(P > 0, P * np.log(P), 0.0), axis=1)
    return np.exp(H)


@pytest.mark.parametrize("perplexity", [5.0, 12.5, 30.0])
def test_calibrated_rows_reach_target_perplexity(fast, perplexity):
    X, _ = smallvis.datasets.load("iris")
    X = X + 1e-3 * np.random.default_rng(0).normal(size=X.shape)  # no duplicate rows
    P, beta = conditional_perplexity(X, perplexity, kernels(fast))
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
    # |H - log u| <= 1e-5 nats  =>  perplexity within a factor exp(1e-5)
    np.testing.assert_allclose(row_perplexity(P), perplexity, rtol=1.1e-5)
    assert np.all(np.diag(P) == 0)
    assert np.all(beta > 0)


def test_gaussian_shape_of_rows():
    """p_{j|i} is proportional to exp(-beta_i d_ij^2): check on one row."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    P, beta = conditional_perplexity(X, 8.0, kernels(False))
    d2 = ((X[0] - X) ** 2).sum(1)
    w = np.exp(-beta[0] * d2)
    w[0] = 0
    np.testing.assert_allclose(P[0], w / w.sum(), rtol=1e-10)


def test_joint_p_is_symmetric_and_normalised(fast):
    X, _ = smallvis.datasets.load("iris")
    P = smallvis.affinities(X, "tsne", fast=fast, perplexity=15)
    np.testing.assert_allclose(P, P.T, rtol=0, atol=0)
    assert P.sum() == pytest.approx(1.0, rel=1e-12)
    C = smallvis.affinities(X, "asne", fast=fast, perplexity=15)
    np.testing.assert_allclose(C.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(P, (C + C.T) / C.sum() / 2, rtol=1e-12)


def test_affinity_twins_agree():
    X, _ = smallvis.datasets.load("s1k")
    P0 = smallvis.affinities(X, "tsne", fast=False, perplexity=30)
    P1 = smallvis.affinities(X, "tsne", fast=True, perplexity=30)
    np.testing.assert_allclose(P1, P0, rtol=1e-9, atol=1e-18)


def test_duplicate_rows_give_finite_affinities(fast):
    X, _ = smallvis.datasets.load("iris")  # iris has duplicated rows
    assert len(np.unique(X, axis=0)) < len(X)
    P = smallvis.affinities(X, "tsne", fast=fast)
    assert np.all(np.isfinite(P))


def test_unreachable_perplexity_falls_back_with_warning(fast):
    X = np.zeros((6, 2))  # all identical: every row has entropy log(5)
    with pytest.warns(RuntimeWarning, match="did not converge for 6 of 6 rows"):
        P, _ = conditional_perplexity(X, 2.0, kernels(fast))
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert np.all((P == 0) | (P == 0.5))


# ---------------------------------------------------------------------------
# the dense path's building blocks: exact distances, in-place symmetrisation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("shape, high", [((60, 5), 3), ((40, 64), 17), ((30, 3), 2 ** 20)])
def test_integer_data_distances_are_those_of_pdist_bit_for_bit(shape, high):
    from scipy.spatial.distance import pdist, squareform

    from smallvis._numeric import power_of_two_exponent
    from smallvis.inputs.affinities import _exact_gram, squared_distances

    rng = np.random.default_rng(shape[0])
    X = rng.integers(-high, high, size=shape).astype(float)
    X = np.vstack([X, X[:7]])  # duplicate rows: distance exactly 0
    assert _exact_gram(X)  # the matrix-product road is taken
    e = power_of_two_exponent(X)
    D = squared_distances(X, e)
    expected = squareform(pdist(np.ldexp(X, -e), "sqeuclidean"))
    assert np.array_equal(D, expected)
    assert np.all(D[np.arange(7), shape[0] + np.arange(7)] == 0)
    assert np.array_equal(D, D.T)


def test_distances_of_other_data_take_pdist():
    from smallvis.inputs.affinities import _exact_gram

    rng = np.random.default_rng(3)
    assert not _exact_gram(rng.normal(size=(20, 4)))  # not integer-valued
    assert not _exact_gram(np.full((5, 64), 2.0 ** 24))  # squared norms beyond 2**53 / 4
    assert not _exact_gram(np.zeros((0, 3)))


@pytest.mark.parametrize("n", [2, 3, 63, 64, 65, 129, 200])
def test_symmetrised_rows_are_the_bits_of_symmetrize(n):
    from smallvis.inputs.affinities import (_symmetrized_rows, _with_zero_diagonal,
                                     symmetrize)

    R = np.random.default_rng(n).random((n, n - 1))
    assert np.array_equal(_symmetrized_rows(R), symmetrize(_with_zero_diagonal(R)))


def _clusters_with_copies(n_copies, n_rows=60, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(4, 6))[rng.integers(0, 4, n_rows)] * 5 + rng.normal(size=(n_rows, 6))
    return np.vstack([X] * n_copies)


@pytest.mark.parametrize("method", ["umap", "tumap"])
def test_many_duplicated_rows_are_warned_about_for_the_fuzzy_graph(method):
    X = _clusters_with_copies(3)
    with pytest.warns(RuntimeWarning, match=f"{len(X)} of {len(X)} rows have a neighbour at distance 0"):
        smallvis.affinities(X, method)


def _documents_with_empty_rows(n_empty, n_docs=300, seed=0):
    """Sparse rows of length 1 in three topics (8 of a topic's 40 words each), then
    ``n_empty`` empty rows, at distance 1 from every document: nearer than the
    documents' own neighbours (about 1.3)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    words = rng.integers(0, 3, n_docs)[:, None] * 40 + rng.integers(0, 40, (n_docs, 8))
    X = sp.csr_matrix((np.ones(words.size), words.ravel(), np.arange(0, words.size + 1, 8)),
                      shape=(n_docs, 120))
    X.sum_duplicates()
    X = sp.csr_matrix(X.multiply(1.0 / np.sqrt(X.multiply(X).sum(axis=1))))
    return sp.vstack([X, sp.csr_matrix((n_empty, 120))]).tocsr()


# umap: the kNN graph; largevis: perplexity over the kNN; tsne: over all pairs
@pytest.mark.parametrize("method", ["umap", "largevis", "tsne"])
def test_rows_that_join_every_neighbourhood_are_warned_about(method):
    X = _documents_with_empty_rows(3)
    with pytest.warns(RuntimeWarning, match=r"1 point\(s\) are among the 3 nearest others of "
                                            r"at least half of the 303 rows \(rows 300 and 2 "
                                            r"other\(s\) with the same values: among those of "
                                            r".*np.diff\(X.indptr\) == 0"):
        smallvis.affinities(X, method)


@pytest.mark.parametrize("method", ["umap", "largevis", "tsne"])
def test_documents_and_the_hubs_of_high_dimensional_data_are_not_warned_about(method):
    """The natural hubs of 50-dimensional data (the ``hubs`` set) and the documents
    without their empty rows do not warn."""
    for X in (smallvis.datasets.load("hubs")[0], _documents_with_empty_rows(0)):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            smallvis.affinities(X, method)


def test_a_few_duplicated_rows_are_not_warned_about():
    X = _clusters_with_copies(1)
    # 4 rows of 64 (6%) have a copy: below DUPLICATE_ROWS_WARN_FRACTION
    X = np.vstack([X, X[:2]])
    assert 4 < smallvis.inputs.affinities.DUPLICATE_ROWS_WARN_FRACTION * len(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        smallvis.affinities(X, "umap")
