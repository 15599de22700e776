"""Bad input gets a clear error naming the problem."""

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis

from conftest import PERPLEXITY_METHODS, random_affinities

IRIS = smallvis.datasets.load("iris")[0]


@pytest.mark.parametrize("X,exc,match", [
    (np.array([[0.0, np.nan], [1.0, 2.0], [3.0, 4.0]]), ValueError, "NaN or infinite"),
    (np.array([[0.0, np.inf], [1.0, 2.0], [3.0, 4.0]]), ValueError, "NaN or infinite"),
    (np.ones((1, 3)), ValueError, "at least 2 rows"),
    (np.ones((0, 3)), ValueError, "at least 2 rows"),
    (np.ones(5), ValueError, "2-D array"),
    (np.ones((3, 3, 3)), ValueError, "2-D array"),
    (np.array([["a", "b"], ["c", "d"]]), TypeError, "numeric"),
    # None in an object array is a missing value: refused as NaN is
    (np.array([[1, 2], [3, None], [5, 6]], dtype=object), ValueError, "NaN or infinite"),
    (np.array([[1, 2], [3, "4"], [5, 6]], dtype=object), TypeError, "numeric"),
    (np.ones((4, 2), dtype=complex), TypeError, "complex"),
    # sparse X is data (tests/test_sparse_inputs.py), checked as dense X is
    (sp.csr_matrix(np.array([[0.0, np.nan], [1.0, 2.0], [3.0, 4.0]])), ValueError,
     "NaN or infinite"),
    (sp.csr_matrix(np.ones((1, 3))), ValueError, "at least 2 rows"),
    (sp.csr_matrix(np.ones((4, 2), dtype=complex)), TypeError, "real numbers"),
])
def test_bad_X(X, exc, match):
    with pytest.raises(exc, match=match):
        smallvis.embed(X, n_iter=1)
    with pytest.raises(exc, match=match):
        smallvis.affinities(X)


def test_perplexity_too_large_names_maximum():
    X = IRIS[:20]
    with pytest.raises(ValueError, match=r"at most n_samples - 1 = 19 for 20 samples; got 20"):
        smallvis.embed(X, perplexity=20)
    with pytest.raises(ValueError, match="at most n_samples - 1 = 19"):
        smallvis.affinities(X, perplexity=25)


@pytest.mark.parametrize("perplexity", [0, -3, 0.5])
def test_perplexity_too_small(perplexity):
    with pytest.raises(ValueError, match=r"perplexity must be in \[1, 149\]"):
        smallvis.embed(IRIS, perplexity=perplexity)


def test_init_array_wrong_shape():
    with pytest.raises(ValueError, match=r"init array must have shape .* \(150, 2\); got \(150, 3\)"):
        smallvis.embed(IRIS, init=np.zeros((150, 3)))
    with pytest.raises(ValueError, match="NaN"):
        smallvis.embed(IRIS, init=np.full((150, 2), np.nan))


def test_unknown_init_name():
    with pytest.raises(ValueError, match="init must be one of random, pca, spca"):
        smallvis.embed(IRIS, init="spectral-ish")


def test_unknown_method_lists_available():
    with pytest.raises(ValueError, match=r"unknown method .tsnee.; available methods: asne, ssne, tsne, largevis, umap, tumap"):
        smallvis.embed(IRIS, method="tsnee")
    with pytest.raises(ValueError, match="unknown method"):
        smallvis.cost_and_gradient("nope", np.zeros((2, 2)), np.zeros((2, 2)))


def test_unknown_keyword_lists_valid_ones():
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) 'gamma' for method 'tsne'; valid method parameters: dof, knn, knn_method, metric, n_interpolation, n_neighbors, n_trees, perplexity"):
        smallvis.embed(IRIS, method="tsne", gamma=1)
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) 'perplexity' for the cost of 'tsne'"):
        smallvis.cost_and_gradient("tsne", np.zeros((2, 2)), np.zeros((2, 2)), perplexity=3)
    # perplexity, a keyword of embed itself, is refused by a method without one alike
    with pytest.raises(ValueError, match=r"method 'umap' does not take a perplexity; valid method "
                                         r"parameters: a, b, bandwidth, eps, knn, "):
        smallvis.embed(IRIS, method="umap", perplexity=5)


@pytest.mark.parametrize("kwargs,match", [
    (dict(n_components=0), r"n_components must be in \[1, inf\)"),
    (dict(learning_rate=0), r"learning_rate must be in \(0, inf\)"),
    (dict(learning_rate=-5.0), r"learning_rate must be in \(0, inf\)"),
    (dict(learning_rate="fast"), "learning_rate must be a positive number or 'auto'"),
    (dict(n_iter=-1), r"n_iter must be in \[0, 100000\]"),
    (dict(exaggeration=0), r"exaggeration must be in \(0, inf\)"),
    (dict(momentum=1.5), r"momentum must be in \[0, 1\]"),
    (dict(n_threads=0), "n_threads must be a positive integer or -1"),
    (dict(random_state=-1), "random_state must be a non-negative integer"),
])
def test_bad_optimizer_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        smallvis.embed(IRIS, **kwargs)


def test_bad_parameter_types():
    with pytest.raises(TypeError, match="n_iter must be an integer"):
        smallvis.embed(IRIS, n_iter=2.5)
    with pytest.raises(TypeError, match="random_state must be None"):
        smallvis.embed(IRIS, random_state="seed")
    with pytest.raises(TypeError, match="callback must be callable"):
        smallvis.embed(IRIS, callback=3)
    with pytest.raises(TypeError, match="fast must be True or False"):
        smallvis.embed(IRIS, fast="yes")


class TestCostAndGradientP:
    Y = np.random.default_rng(0).normal(size=(6, 2))

    def test_wrong_shape(self):
        with pytest.raises(ValueError, match="must be square"):
            smallvis.cost_and_gradient("tsne", np.zeros((6, 5)), self.Y)

    def test_length_mismatch(self):
        P = random_affinities(5, np.random.default_rng(1))
        with pytest.raises(ValueError, match="P has 5 rows but Y has 6"):
            smallvis.cost_and_gradient("tsne", P, self.Y)

    def test_negative_entries(self):
        P = random_affinities(6, np.random.default_rng(1))
        P[0, 1] = P[1, 0] = -0.1
        with pytest.raises(ValueError, match="non-negative; found 2 negative"):
            smallvis.cost_and_gradient("tsne", P, self.Y)

    def test_nonzero_diagonal(self):
        P = random_affinities(6, np.random.default_rng(1)) + np.eye(6)
        with pytest.raises(ValueError, match="zero diagonal"):
            smallvis.cost_and_gradient("tsne", P, self.Y)

    def test_asymmetric_for_symmetric_method(self):
        P = random_affinities(6, np.random.default_rng(1), symmetric=False)
        with pytest.raises(ValueError, match="must be symmetric"):
            smallvis.cost_and_gradient("tsne", P, self.Y)
        cost, grad = smallvis.cost_and_gradient("asne", P, self.Y)  # fine for asne
        assert np.isfinite(cost) and np.all(np.isfinite(grad))

    def test_nan_in_P_and_Y(self):
        P = random_affinities(6, np.random.default_rng(1))
        bad = P.copy()
        bad[0, 1] = np.nan
        with pytest.raises(ValueError, match="P contains NaN"):
            smallvis.cost_and_gradient("tsne", bad, self.Y)
        Y = self.Y.copy()
        Y[2, 1] = np.inf
        with pytest.raises(ValueError, match="Y contains 1 NaN or infinite"):
            smallvis.cost_and_gradient("tsne", P, Y)

    def test_sparse_p_is_accepted(self, fast):
        P = random_affinities(6, np.random.default_rng(1), density=0.5)
        dense = smallvis.cost_and_gradient("tsne", P, self.Y, fast=fast)
        sparse = smallvis.cost_and_gradient("tsne", sp.csr_matrix(P), self.Y, fast=fast)
        assert dense[0] == pytest.approx(sparse[0], rel=1e-12)
        np.testing.assert_allclose(dense[1], sparse[1], rtol=1e-12)


@pytest.mark.parametrize("method", PERPLEXITY_METHODS)
def test_duplicate_rows_give_finite_output(method, fast):
    X = np.vstack([IRIS[:30], IRIS[:30], IRIS[:5]])
    r = smallvis.embed(X, method, fast=fast, n_iter=200, random_state=0, return_result=True)
    assert np.all(np.isfinite(r.Y)) and np.isfinite(r.cost)


def test_identical_rows_give_finite_output(fast):
    X = np.ones((12, 3))
    with pytest.warns(RuntimeWarning):
        Y = smallvis.embed(X, "tsne", fast=fast, perplexity=3, n_iter=50, random_state=0)
    assert np.all(np.isfinite(Y))


def test_built_affinities_are_checked_in_place_and_bad_values_still_fail():
    import scipy.sparse as sp

    from smallvis._validation import check_built_affinities

    P = sp.csr_matrix(np.array([[0.0, 0.3, 0.2], [0.3, 0.0, 0.1], [0.2, 0.1, 0.0]]))
    assert check_built_affinities(P, 3) is P  # canonical float64 CSR: no copy
    for bad, match in ((np.nan, "NaN or infinite"), (-0.1, "non-negative"),
                       (np.inf, "NaN or infinite"), (-np.inf, "NaN or infinite")):
        Q = P.copy()
        Q.data[0] = bad
        with pytest.raises(ValueError, match=match):
            check_built_affinities(Q, 3)
    # finite values whose sum overflows are finite: not refused as NaN or inf
    big = P * 1.7e308  # sums to 2e308
    with np.errstate(over="ignore"):
        assert not np.isfinite(big.data.sum())
    assert check_built_affinities(big, 3) is big
    with pytest.raises(ValueError, match="shape"):
        check_built_affinities(P, 4)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        check_built_affinities(P * 10, 3, fuzzy=True)
    D = sp.csr_matrix(np.eye(3))
    with pytest.raises(ValueError, match="diagonal"):
        check_built_affinities(D, 3)
    # anything but canonical CSR goes through the full check
    assert isinstance(check_built_affinities(P.toarray(), 3, symmetric=True), np.ndarray)
    A = P.toarray()
    A[0, 1] = 0.9
    with pytest.raises(ValueError, match="symmetric"):
        check_built_affinities(A, 3, symmetric=True)


def test_built_dense_affinities_are_checked_in_place():
    from smallvis._validation import check_built_affinities

    rng = np.random.default_rng(0)
    A = rng.random((150, 150))  # more than one tile of the symmetry test
    P = A + A.T
    np.fill_diagonal(P, 0.0)
    P /= P.sum()
    assert check_built_affinities(P, 150, symmetric=True) is P  # valid: no copy
    for i, j, bad in ((3, 140, np.nan), (140, 3, -1e-3), (0, 0, 1e-3), (7, 9, np.inf)):
        Q = P.copy()
        Q[i, j] = bad
        with pytest.raises(ValueError):
            check_built_affinities(Q, 150, symmetric=True)
    with pytest.raises(ValueError, match="symmetric"):  # in a tile away from the diagonal
        Q = P.copy()
        Q[2, 149] *= 2
        check_built_affinities(Q, 150, symmetric=True)
    # within check_affinities' tolerance: accepted, as from the full check
    Q = P.copy()
    Q[2, 149] *= 1 + 1e-14
    assert check_built_affinities(Q, 150, symmetric=True) is Q
    Q[2, 149] *= 2
    assert check_built_affinities(Q, 150) is Q  # asne's P need not be symmetric
    with pytest.raises(ValueError, match="rows"):
        check_built_affinities(P, 151, symmetric=True)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        check_built_affinities(P * 1e6, 150, fuzzy=True)


@pytest.mark.parametrize("dtype", [np.uint8, np.int64, np.float32, np.float64, np.longdouble,
                                   bool])
@pytest.mark.parametrize("n_threads", [1, 2, None])
def test_data_copied_in_blocks_have_the_bits_of_one_copy(monkeypatch, dtype, n_threads):
    from smallvis import _threads
    from smallvis._validation import arrays, check_data
    monkeypatch.setattr(arrays, "_ROW_BLOCK", 7)  # many blocks, the last one short
    monkeypatch.setattr(_threads, "DATA_MIN_ENTRIES", 0)  # threads even for small data
    rng = np.random.default_rng(0)
    X = (rng.normal(size=(60, 9)) * 50).astype(dtype)
    for given in (X, np.asfortranarray(X), X[:, ::2]):
        out = check_data(given, n_threads=n_threads)
        assert out.dtype == np.float64 and out.flags.c_contiguous
        np.testing.assert_array_equal(out, np.ascontiguousarray(given, dtype=np.float64))
    same = np.ascontiguousarray(X, dtype=np.float64)
    assert check_data(same, n_threads=n_threads) is same  # float64 C arrays are not copied


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_bad_value_in_any_block_is_counted_in_the_whole(monkeypatch, bad):
    from smallvis import _threads
    from smallvis._validation import arrays, check_data
    monkeypatch.setattr(arrays, "_ROW_BLOCK", 5)
    monkeypatch.setattr(_threads, "DATA_MIN_ENTRIES", 0)
    X = np.ones((40, 3), dtype=np.float32)
    X[33, 1] = X[38, 2] = bad
    for given in (X, X.astype(np.float64)):
        with pytest.raises(ValueError, match="X contains 2 NaN or infinite value"):
            check_data(given, n_threads=2)


def test_float128_beyond_float64_is_refused_as_infinite():
    from smallvis._validation import check_data
    if np.finfo(np.longdouble).max <= np.finfo(np.float64).max:
        pytest.skip("long double is float64 here")
    X = np.ones((4, 2), dtype=np.longdouble)
    X[1, 1] = np.longdouble(np.finfo(np.float64).max) * 4
    with pytest.raises(ValueError, match="1 NaN or infinite"):
        check_data(X)


@pytest.mark.parametrize("given, cores, expected", [
    (None, 2, "default"), (1, 4, 1), (3, 2, 2), (-1, 3, 3), (0, 2, "default"),
    ("two", 2, "default"), (True, 2, "default"), (np.int32(2), 4, 2)])
def test_data_threads_read_the_request_before_it_is_checked(monkeypatch, given, cores,
                                                            expected):
    from smallvis import _threads
    monkeypatch.setattr(_threads, "available_cores", lambda: cores)
    monkeypatch.setattr(_threads, "default_threads", lambda: 5)
    want = 5 if expected == "default" else expected
    assert _threads.data_threads(given, _threads.DATA_MIN_ENTRIES) == want
    assert _threads.data_threads(given, _threads.DATA_MIN_ENTRIES - 1) == 1
