"""Robustness (issue 6): hostile inputs, numerical edge cases, memory limits
and reproducibility, for every registered method and both kernel paths.

The input-validation basics (NaN in X, bad shapes, unknown names, ...) live in
test_validation.py; this file adds what it does not cover and enumerates
``smallvis.METHODS`` so that new methods are checked as soon as they register.
"""

import functools
import importlib
import inspect
import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
from smallvis.backends import reference
from smallvis.cli import main

from conftest import one_method_per_affinity_builder, random_affinities

aff = importlib.import_module("smallvis.inputs.affinities")  # the module, not the function

METHODS = list(smallvis.METHODS)
#: One method per way of building P (tests/conftest.py::affinity_builder);
#: tests/test_metamorphic.py holds every method's P to its representative's.
BUILDERS = one_method_per_affinity_builder()
IRIS = smallvis.datasets.load("iris")[0]
# iris has duplicate rows; a tiny jitter makes every distance distinct so that
# results do not depend on how ties are broken.
JITTERED = IRIS[:40] + np.random.default_rng(5).normal(scale=1e-3, size=(40, 4))


def _params(method):
    m = smallvis.METHODS[method]
    return {**m.affinity_params, **m.cost_params}


def _small_kwargs(method, n):
    """Keywords that make ``method`` valid on ``n`` points.

    Perplexity methods keep their default neighbourhood (3 x perplexity,
    capped at n - 1); UMAP-type graphs count the point itself in
    ``n_neighbors`` (so up to n), NCVis does not (up to n - 1).
    """
    kw = {}
    params = _params(method)
    spec = smallvis.METHODS[method].sgd
    if spec is not None and spec.auto_min_n == 0:
        # stochastic at every size under "auto" (infonce): the short exact
        # run (n_iter) that these tests mean, not 500 epochs of the NumPy loop
        kw["optimizer"] = "exact"
    if "perplexity" in params:
        kw["perplexity"] = min(5.0, n - 1)
    elif "n_neighbors" in params:
        # the registry's bound: n where n_neighbors counts the point itself
        kw["n_neighbors"] = min(5, smallvis.METHODS[method].sized_params["n_neighbors"].limit(n))
    return kw


def _affinity_kwargs(kw):
    """``kw`` without the run's keywords (``smallvis.affinities`` takes the method's only)."""
    return {k: v for k, v in kw.items() if k != "optimizer"}


def _dense(a):
    return a.toarray() if sp.issparse(a) else np.asarray(a)


def _finite(a):
    return bool(np.all(np.isfinite(_dense(a))))


# ---------------------------------------------------------------------------
# 1. validation at the public boundary
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("X,exc,match", [
    ([[1.0, 2.0], [3.0]], ValueError, "X cannot be converted to a numeric array"),
    (np.ma.masked_array(np.ones((4, 2)), mask=[[0, 1]] * 4), TypeError, "X is a masked array"),
    (np.zeros((4, 2), dtype="datetime64[s]"), TypeError, "X must be numeric"),
    (np.ones((4, 0)), ValueError, "at least 1 column"),
    (np.array([[1e308, np.inf]] * 4), ValueError, "NaN or infinite"),
    # sparse X is data now (tests/test_sparse_inputs.py); a bad one is still refused
    (sp.coo_matrix(np.array([[np.inf, 1.0]] * 4)), ValueError, "NaN or infinite"),
    (sp.coo_matrix((4, 0)), ValueError, "at least 1 column"),
])
def test_more_bad_X(X, exc, match):
    with pytest.raises(exc, match=match):
        smallvis.embed(X, n_iter=1, perplexity=2)
    with pytest.raises(exc, match=match):
        smallvis.affinities(X, perplexity=2)


# Clearly invalid values for parameters of present and future methods.  A test
# is generated for every registered method that has the parameter, so entries
# for n_neighbors, gamma, ... activate when those methods land.
BAD_PARAMETER_VALUES = {
    "perplexity": [0, -1.0, math.nan, math.inf, "30"],
    "n_neighbors": [0, -3, 2.5, math.nan, "15"],
    "gamma": [-1.0, math.nan, math.inf, "1"],
    "eps": [-1.0, math.nan, "0.1"],
    "nu": [0, -1.0, math.nan, "5"],
    "min_dist": [-0.5, math.nan, "0.1"],
    "spread": [0, -1.0, math.nan, "1"],
    "a": [math.nan, math.inf, "1"],
    "b": [math.nan, math.inf, "1"],
}


def _bad_parameter_cases():
    return [
        pytest.param(method, name, value, id=f"{method}-{name}={value!r}")
        for method in METHODS
        for name in _params(method)
        for value in BAD_PARAMETER_VALUES.get(name, [])
    ]


@pytest.mark.parametrize("method,name,value", _bad_parameter_cases())
def test_bad_method_parameter_names_itself(method, name, value):
    kw = _small_kwargs(method, 30)
    kw[name] = value
    with pytest.raises((ValueError, TypeError), match=name):
        smallvis.embed(IRIS[:30], method, n_iter=1, **kw)


def _cost_parameter_cases():
    return [
        pytest.param(method, name, value, id=f"{method}-{name}={value!r}")
        for method in METHODS
        for name in smallvis.METHODS[method].cost_params
        for value in [math.nan, math.inf, "x"]
    ]


@pytest.mark.parametrize("method,name,value", _cost_parameter_cases())
def test_bad_cost_parameter_in_cost_and_gradient(method, name, value):
    P = random_affinities(6, np.random.default_rng(0),
                          symmetric=smallvis.METHODS[method].symmetric)
    with pytest.raises((ValueError, TypeError), match=name):
        smallvis.cost_and_gradient(method, P, np.zeros((6, 2)), **{name: value})


@pytest.mark.skipif("optimizer" not in inspect.signature(smallvis.embed).parameters,
                    reason="embed has no optimizer= yet (single exact optimizer)")
def test_unknown_optimizer_name():
    with pytest.raises(ValueError, match="optimizer"):
        smallvis.embed(IRIS, optimizer="adam-ish", n_iter=1)


@pytest.mark.parametrize("init,exc,match", [
    (np.zeros((40, 2), dtype="U1"), TypeError, "init array must be numeric"),
    (np.zeros((40, 2), dtype=complex), TypeError, "init array must be numeric"),
    (np.zeros((40, 2, 1)), ValueError, r"init array must have shape .* \(40, 2\)"),
    (np.zeros(80), ValueError, r"init array must have shape"),
    (sp.csr_matrix(np.zeros((40, 2))), TypeError, "init must be a dense array"),
    (np.r_[np.zeros((39, 2)), [[np.inf, 0]]], ValueError, "init array contains NaN or infinite"),
    (np.r_[np.zeros((39, 2)), [[1e200, 0]]], ValueError, "init array coordinates span too wide"),
])
def test_bad_init_array(init, exc, match):
    with pytest.raises(exc, match=match):
        smallvis.embed(JITTERED, perplexity=5, init=init, n_iter=1)


def test_init_none_is_the_method_default():
    a = smallvis.embed(JITTERED, "tsne", perplexity=5, init=None, n_iter=5, fast=True)
    b = smallvis.embed(JITTERED, "tsne", perplexity=5, init="spca", n_iter=5, fast=True)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("n_threads,exc,match", [
    (10**6, ValueError, r"n_threads must be in \[-1, 1024\]"),
    (-2, ValueError, r"n_threads must be in \[-1, 1024\]"),
    (0, ValueError, "n_threads must be a positive integer or -1"),
    (1.5, TypeError, "n_threads must be an integer"),
    ("2", TypeError, "n_threads must be an integer"),
])
def test_bad_thread_counts(n_threads, exc, match):
    P = random_affinities(6, np.random.default_rng(0))
    with pytest.raises(exc, match=match):
        smallvis.cost_and_gradient("tsne", P, np.zeros((6, 2)), fast=True, n_threads=n_threads)
    with pytest.raises(exc, match=match):
        smallvis.embed(JITTERED, perplexity=5, n_iter=1, fast=True, n_threads=n_threads)


def test_init_as_list_and_int_array_are_accepted():
    Y0 = np.random.default_rng(0).integers(-3, 3, size=(40, 2))
    for init in (Y0, Y0.tolist()):
        Y = smallvis.embed(JITTERED, perplexity=5, init=init, n_iter=3)
        assert Y.shape == (40, 2) and _finite(Y)


class TestHostileP:
    """``cost_and_gradient``: P whose structure or values must be rejected."""

    n = 8
    Y = np.random.default_rng(3).normal(size=(8, 2))

    def P(self, density=0.5):
        return random_affinities(self.n, np.random.default_rng(4), density=density)

    @pytest.mark.parametrize("fmt", ["csr", "csc"])
    @pytest.mark.parametrize("bad", [-1, 8, 1000])
    def test_compressed_index_out_of_range(self, fast, fmt, bad):
        C = sp.csr_matrix(self.P()) if fmt == "csr" else sp.csc_matrix(self.P())
        C.indices[0] = bad  # scipy does not re-check edited indices
        with pytest.raises(ValueError, match="P is not a valid sparse matrix"):
            smallvis.cost_and_gradient("asne", C, self.Y, fast=fast)

    def test_coo_coordinate_out_of_range(self, fast):
        C = sp.coo_matrix(self.P())
        C.row[0] = 99
        with pytest.raises(ValueError, match="P is not a valid sparse matrix"):
            smallvis.cost_and_gradient("asne", C, self.Y, fast=fast)

    def test_lil_with_out_of_range_column(self, fast):
        L = sp.lil_matrix(self.P())
        L.rows[0].append(40)  # behind scipy's back
        L.data[0].append(0.1)
        with pytest.raises(ValueError, match="P is not a valid sparse matrix"):
            smallvis.cost_and_gradient("asne", L, self.Y, fast=fast)

    def test_empty_csr_with_broken_indptr(self, fast):
        C = sp.csr_matrix((self.n, self.n))
        C.indptr[2] = 3  # scipy's own full check skips indptr when nnz == 0
        with pytest.raises(ValueError, match="P is not a valid sparse matrix"):
            smallvis.cost_and_gradient("asne", C, self.Y, fast=fast)

    def test_indptr_not_monotone(self, fast):
        C = sp.csr_matrix(self.P())
        C.indptr[3] = C.indptr[-1] + 5
        with pytest.raises(ValueError, match="P is not a valid sparse matrix"):
            smallvis.cost_and_gradient("asne", C, self.Y, fast=fast)

    def test_kernel_triplet_rechecks_structure(self):
        C = sp.csr_matrix(self.P(density=0.2))
        C.indices[0] = 50
        with pytest.raises(ValueError, match="inconsistent sparse structure"):
            aff.kernel_triplet(C)

    @pytest.mark.parametrize("P,exc,match", [
        (sp.csr_matrix(np.eye(8, k=1) * (1 + 1j)), TypeError, "real numeric"),
        (np.full((8, 8), "0", dtype=object), TypeError, "P must be numeric"),
        (np.zeros((8, 8, 1)), ValueError, "P must be a 2-D square matrix"),
        ([[0, 1], [1]], ValueError, "P cannot be converted"),
        (np.zeros((8, 8)), ValueError, "P has no positive entries"),
        (np.full((8, 8), 1e307) - np.diag(np.full(8, 1e307)), ValueError, "finite sum"),
    ])
    def test_bad_values_and_types(self, P, exc, match):
        with pytest.raises(exc, match=match):
            smallvis.cost_and_gradient("asne", P, self.Y)

    @pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
    @pytest.mark.parametrize("fmt", ["coo", "csr", "csc", "lil", "dok", "bsr"])
    def test_every_sparse_format_and_index_dtype(self, fast, fmt, index_dtype):
        P = self.P(density=0.3)
        C = sp.coo_matrix(P)
        C = sp.coo_matrix((C.data, (C.row.astype(index_dtype), C.col.astype(index_dtype))),
                          shape=P.shape).asformat(fmt)
        expected = smallvis.cost_and_gradient("tsne", P, self.Y, fast=fast)
        got = smallvis.cost_and_gradient("tsne", C, self.Y, fast=fast)
        assert got[0] == pytest.approx(expected[0], rel=1e-12)
        np.testing.assert_allclose(got[1], expected[1], rtol=1e-12, atol=1e-15)

    def test_unsorted_and_duplicate_entries_are_summed(self, fast):
        P = self.P(density=0.4)
        C = sp.coo_matrix(P)
        rng = np.random.default_rng(0)
        half = C.data / 2
        order = rng.permutation(2 * C.nnz)
        dup = sp.coo_matrix((np.r_[half, half][order],
                             (np.r_[C.row, C.row][order], np.r_[C.col, C.col][order])),
                            shape=P.shape)
        # CSR with the column indices of every row reversed (unsorted) and int32
        R = sp.csr_matrix(P)
        indices = np.concatenate([R.indices[a:b][::-1] for a, b in zip(R.indptr[:-1], R.indptr[1:])])
        data = np.concatenate([R.data[a:b][::-1] for a, b in zip(R.indptr[:-1], R.indptr[1:])])
        unsorted = sp.csr_matrix((data, indices.astype(np.int32), R.indptr.astype(np.int32)),
                                 shape=P.shape)
        assert not unsorted.has_sorted_indices
        expected = smallvis.cost_and_gradient("tsne", P, self.Y, fast=fast)
        for Pin in (dup, unsorted):
            got = smallvis.cost_and_gradient("tsne", Pin, self.Y, fast=fast)
            assert got[0] == pytest.approx(expected[0], rel=1e-12)
            np.testing.assert_allclose(got[1], expected[1], rtol=1e-12, atol=1e-15)

    def test_huge_P_with_wide_Y_overflows_cleanly(self, fast):
        P = self.P(density=1.0) * 1e300
        with pytest.raises(ValueError, match="overflows float64 for this P and Y"):
            smallvis.cost_and_gradient("asne", P, self.Y * 1e100, fast=fast)

    @pytest.mark.parametrize("scale", [1e200, 1e300])
    def test_Y_too_wide_for_squared_distances(self, fast, scale):
        with pytest.raises(ValueError, match="Y coordinates span too wide a range"):
            smallvis.cost_and_gradient("tsne", self.P(), self.Y * scale, fast=fast)


def test_datasets_load_rejects_bad_names():
    with pytest.raises(TypeError, match="name must be a str"):
        smallvis.datasets.load(3)
    with pytest.raises(ValueError, match="unknown dataset name 'irs'; valid names are: curves, digits"):
        smallvis.datasets.load("irs")


# -- CLI ---------------------------------------------------------------------


def _write(path, content):
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


@pytest.mark.parametrize("name,content,match", [
    ("bin.csv", bytes(range(128, 256)), "cannot read"),
    ("nan.csv", "1,2\nnan,3\n4,5\n", "line 2, column 1: a NaN ('nan')"),
    ("inf.csv", "1,2\ninf,3\n4,5\n", "line 2, column 1: an infinite value ('inf')"),
    ("one.csv", "1,2\n", "at least 2 rows"),
    ("text.csv", "x,y\n1,a\n2,b\n", "non-numeric value 'a'"),
    ("trailing.csv", "1,2,\n3,4,\n", "non-numeric value ''"),
    ("empty.npy", b"", "cannot read 'empty.npy' as a .npy array: the file ends before"),
    ("junk.npy", b"\x93NUMPY garbage", "cannot read 'junk.npy' as a .npy array"),
    # NumPy takes any other file for a pickle and suggests allow_pickle=
    ("text.npy", b"abc\n", "'text.npy' as a .npy array: it is not a .npy file"),
    ("zip.npy", b"PK\x03\x04junk", "'zip.npy' as a .npy array: it is not a .npy file"),
    ("data.xls", "1\t2\n", "unsupported file type '.xls'"),
])
def test_cli_unreadable_input_exits_2(tmp_path, monkeypatch, capsys, name, content, match):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / name, content)
    assert main(["embed", name, "--quiet", "--n-iter", "2", "--perplexity", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert match in err, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_cli_npy_variants_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    np.save("vec.npy", np.ones(5))
    np.save("cplx.npy", np.ones((5, 2), dtype=complex))
    np.save("objects.npy", np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    np.savez("arch.npz", a=np.ones(3))
    (tmp_path / "arch.npz").rename(tmp_path / "arch.npy")
    (tmp_path / "folder.csv").mkdir()
    for name, match in [("vec.npy", "2-D array"), ("cplx.npy", "complex"),
                        ("arch.npy", ".npz archive"), ("folder.csv", "cannot read"),
                        ("objects.npy", "it holds Python objects")]:
        assert main(["embed", name, "--quiet"]) == 2
        err = capsys.readouterr().err.strip()
        assert match in err and len(err.splitlines()) == 1, err
        assert "allow_pickle" not in err  # no option of the command line


@pytest.mark.parametrize("option,value,match", [
    ("--n-iter", "-1", "n_iter must be in"),
    ("--threads", "0", "n_threads must be a positive integer"),
    ("--perplexity", "0", "perplexity must be in"),
    ("--learning-rate", "-1", "learning_rate must be in"),
    ("--learning-rate", "quick", "--learning-rate must be a number or 'auto'"),
    ("--n-components", "0", "n_components must be in"),
])
def test_cli_bad_parameter_exits_2(capsys, option, value, match):
    assert main(["embed", "iris", "--quiet", option, value]) == 2
    err = capsys.readouterr().err.strip()
    assert match in err and len(err.splitlines()) == 1, err


# ---------------------------------------------------------------------------
# 2. numerical edge cases: finite, documented results
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_duplicate_rows(method, fast):
    X = np.vstack([JITTERED[:15], JITTERED[:15], JITTERED[:3]])
    r = smallvis.embed(X, method, fast=fast, n_iter=60, random_state=0,
                       return_result=True, **_small_kwargs(method, len(X)))
    assert _finite(r.Y) and np.isfinite(r.cost)


@pytest.mark.parametrize("method", METHODS)
def test_all_identical_rows_fall_back_with_a_counted_warning(method, fast):
    X = np.full((12, 3), 7.0)
    kw = _small_kwargs(method, 12)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        r = smallvis.embed(X, method, fast=fast, n_iter=30, random_state=0,
                           return_result=True, **kw)
    messages = " | ".join(str(w.message) for w in record)
    if "perplexity" in kw:
        # every row's entropy is log(11) whatever beta is, so none reaches log(5)
        assert "perplexity calibration did not converge for 12 of 12 rows" in messages
        assert "put 1/5 on their 5 nearest neighbours" in messages
    if smallvis.METHODS[method].p_family.distances:  # a stress: every point at one place
        assert "every input distance is 0" in messages
        np.testing.assert_array_equal(r.Y, np.zeros_like(r.Y))
    assert _finite(r.Y) and np.isfinite(r.cost)


def test_fallback_rows_follow_the_documented_rule(fast):
    """Row with identical distances: 1/floor(u) on the floor(u) lowest indices."""
    X = np.full((6, 2), 3.0)
    kern = reference if not fast else importlib.import_module("smallvis.backends._kernels")
    with pytest.warns(RuntimeWarning, match="did not converge for 6 of 6 rows"):
        P, _ = aff.conditional_perplexity(X, 2.5, kern)
    for i in range(6):
        others = [j for j in range(6) if j != i]
        np.testing.assert_array_equal(P[i, others], [0.5, 0.5, 0, 0, 0])


@pytest.mark.parametrize("method", METHODS)
def test_two_points(method, fast):
    """N = 2: the only allowed perplexity is N - 1 = 1 (and it converges)."""
    X = np.array([[0.0, 1.0], [2.0, 5.0]])
    if "perplexity" in _params(method):
        for bad in (1.5, 30):
            with pytest.raises(ValueError, match="at most n_samples - 1 = 1 for 2 samples"):
                smallvis.embed(X, method, fast=fast, perplexity=bad)
    kw = _small_kwargs(method, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback warning: H = 0 = log(1) exactly
        P = smallvis.affinities(X, method, fast=fast, **_affinity_kwargs(kw))
        r = smallvis.embed(X, method, fast=fast, n_iter=50, random_state=0,
                           return_result=True, **kw)
    expected = np.array([[0.0, 1.0], [1.0, 0.0]])
    m = smallvis.METHODS[method]
    if m.p_family.normalised == "total":  # normalised to sum 1 (umap, tumap: memberships)
        expected = expected / 2
    if m.p_family.distances:  # the distance itself, in the data's units
        expected = expected * np.hypot(2.0, 4.0)
    np.testing.assert_allclose(_dense(P), expected, rtol=1e-15)
    assert r.Y.shape == (2, 2) and _finite(r.Y) and np.isfinite(r.cost)


@pytest.mark.parametrize("scale", [1e150, 1e-150, 1e300, 1e-300, 2.0**-1000])
@pytest.mark.parametrize("method", BUILDERS)
def test_affinities_are_scale_invariant(method, fast, scale):
    """P of ``X`` and of ``scale * X`` agree: a property of the code that builds P.

    One method per builder (``BUILDERS``) covers every method, whose P is
    its builder representative's (tests/test_metamorphic.py).
    """
    kw = _small_kwargs(method, 40)
    P = smallvis.affinities(JITTERED, method, fast=fast, **_affinity_kwargs(kw))
    Ps = smallvis.affinities(JITTERED * scale, method, fast=fast, **_affinity_kwargs(kw))
    assert _finite(Ps)
    # equal to rounding: the inputs themselves differ by rounding after the
    # multiplication, and the bisection stops within tol of the target.  The
    # UMAP graph's bisection stops within 1e-5 of its target sum, so a
    # rounding-level change of the data can move sigma by about that much.
    rtol = 1e-4 if smallvis.METHODS[method].p_family.memberships else 1e-9
    if smallvis.METHODS[method].p_family.units == "equivariant":  # distances: in the units
        np.testing.assert_allclose(_dense(Ps), _dense(P) * scale, rtol=1e-12, atol=0)
        return
    np.testing.assert_allclose(_dense(Ps), _dense(P), rtol=rtol, atol=1e-15)


@pytest.mark.parametrize("k", [-900, -3, 5, 700])
def test_power_of_two_scaling_gives_identical_P(fast, k):
    kern = reference if not fast else importlib.import_module("smallvis.backends._kernels")
    P, beta = aff.conditional_perplexity(JITTERED, 10, kern)
    Pk, beta_k = aff.conditional_perplexity(np.ldexp(JITTERED, k), 10, kern)
    np.testing.assert_array_equal(Pk, P)
    # beta is in units of X^-2 (may leave the float64 range at extreme k)
    with np.errstate(over="ignore", under="ignore"):
        expected = np.ldexp(beta, -2 * k)
    np.testing.assert_array_equal(beta_k, expected)


@pytest.mark.parametrize("scale", [1e300, 1e-150])
@pytest.mark.parametrize("method", METHODS)
def test_embed_at_extreme_scales_is_finite(method, fast, scale):
    """A run on data in huge or tiny units is finite and warns of nothing.

    Factors that are not powers of two: X changes by rounding.  The power
    of two test below runs every method at about 3e150 and 1e-301 with the
    same no-warning rule, so that each method meets both sides at both
    magnitudes.
    """
    kw = _small_kwargs(method, 40)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow, no "X has no variance"
        Y = smallvis.embed(JITTERED * scale, method, fast=fast, n_iter=60, random_state=0,
                           **kw)
    assert _finite(Y)


@functools.lru_cache(maxsize=None)
def _unscaled_run(method, fast):
    """The 60-iteration run on ``JITTERED`` that the scaled runs must repeat (read-only)."""
    Y = smallvis.embed(JITTERED, method, fast=fast, n_iter=60, random_state=0,
                       **_small_kwargs(method, 40))
    Y.flags.writeable = False
    return Y


@pytest.mark.parametrize("k", [-1000, 500])
@pytest.mark.parametrize("method", METHODS)
def test_embed_is_exactly_invariant_to_power_of_two_scaling(method, fast, k):
    """P and the scaled-PCA start are computed from X / 2**e: same run, same Y.

    (Other factors change X by rounding, and exact optimisation amplifies
    rounding differences chaotically, so only finiteness is asserted above.)
    The unscaled run is made once per method and path for both k.
    """
    kw = _small_kwargs(method, 40)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow, no "X has no variance"
        Yk = smallvis.embed(np.ldexp(JITTERED, k), method, fast=fast, n_iter=60,
                            random_state=0, **kw)
    Y = _unscaled_run(method, fast)
    assert _finite(Y)
    if smallvis.METHODS[method].p_family.units == "equivariant":
        # a stress map is in the data's units: the same run, its map times 2**k
        # (a coordinate scaled into the subnormal range keeps fewer digits)
        np.testing.assert_allclose(Yk, np.ldexp(Y, k), rtol=1e-15, atol=2.0**-1060)
        return
    np.testing.assert_array_equal(Yk, Y)


def test_pca_init_keeps_units_and_refuses_overflowing_spans():
    from smallvis.engines.init import initialize, pca_scores

    rng = np.random.default_rng(0)
    for scale in (1e-300, 1e100):
        got = initialize("pca", JITTERED * scale, 2, rng)
        np.testing.assert_allclose(got, pca_scores(JITTERED, 2) * scale, rtol=1e-9)
    with pytest.raises(ValueError, match="init='pca' coordinates span too wide"):
        smallvis.embed(JITTERED * 1e300, init="pca", perplexity=5, n_iter=1)


@pytest.mark.parametrize("method", METHODS)
def test_constant_columns_do_not_change_P(method, fast):
    kw = _small_kwargs(method, 40)
    P = smallvis.affinities(JITTERED, method, fast=fast, **_affinity_kwargs(kw))
    Xc = np.column_stack([np.full(40, 3.0), JITTERED, np.zeros(40)])
    centred = smallvis.affinities(Xc, method, fast=fast, **_affinity_kwargs(kw))
    np.testing.assert_allclose(_dense(centred),
                               _dense(P), rtol=1e-12, atol=1e-16)
    Y = smallvis.embed(Xc, method, fast=fast, n_iter=30, random_state=0, **kw)
    assert _finite(Y)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("layout", ["all-coincident", "pairs-coincident", "tiny"])
def test_coincident_output_points_give_finite_cost_and_gradient(method, fast, layout):
    rng = np.random.default_rng(1)
    n = 10
    P = random_affinities(n, rng, symmetric=smallvis.METHODS[method].symmetric, density=0.6)
    if layout == "all-coincident":
        Y = np.full((n, 2), 0.25)
    elif layout == "pairs-coincident":
        Y = np.repeat(rng.normal(size=(n // 2, 2)), 2, axis=0)
    else:
        Y = rng.normal(size=(n, 2)) * 1e-300
    cost, grad = smallvis.cost_and_gradient(method, P, Y, fast=fast)
    assert np.isfinite(cost) and _finite(grad)
    if layout == "all-coincident":
        # every q is the same: the gradient vanishes (all y_i - y_j are 0)
        np.testing.assert_allclose(grad, 0.0, atol=1e-15)


# ---------------------------------------------------------------------------
# 4. reproducibility
# ---------------------------------------------------------------------------


def _run(method, fast, seed, n_threads=1):
    return smallvis.embed(JITTERED, method, fast=fast, init="random", random_state=seed,
                          n_iter=60, n_threads=n_threads, **_small_kwargs(method, 40))


@pytest.mark.parametrize("method", METHODS)
def test_same_seed_same_Y_bit_for_bit(method, fast):
    a, b, c = _run(method, fast, 3), _run(method, fast, 3), _run(method, fast, 4)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("method", METHODS)
def test_two_threads_bit_for_bit(method):
    a, b = _run(method, True, 3, n_threads=2), _run(method, True, 3, n_threads=2)
    np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------------------
# 5. memory: the NumPy path refuses sizes it cannot hold
# ---------------------------------------------------------------------------


def test_limit_constants_are_documented_values():
    assert reference.MAX_DENSE_BYTES == 2 * 1024**3
    assert reference.DENSE_ARRAYS * 4097**2 * 8 > reference.MAX_DENSE_BYTES
    assert reference.DENSE_ARRAYS * 4096**2 * 8 <= reference.MAX_DENSE_BYTES


def test_numpy_path_refuses_huge_n_without_allocating():
    n = 100_000  # 16 * 8e10 bytes would be 1.2 TB; the inputs here are 1.6 MB
    X = np.zeros((n, 2))
    match = r"n_samples = 100000 is too large for the NumPy reference path .* O\(N\^2\) memory"
    with pytest.raises(ValueError, match=match):
        smallvis.embed(X, fast=False)
    with pytest.raises(ValueError, match=match):
        smallvis.cost_and_gradient("tsne", sp.csr_matrix((n, n)), X, fast=False)
    # a dense calibration (asne, ssne) is refused on either path; t-SNE and
    # LargeVis calibrate over nearest neighbours at this size instead
    for fast in (False, True):
        with pytest.raises(ValueError, match="too large for a dense perplexity calibration"):
            smallvis.affinities(X, "asne", fast=fast)


def test_limit_is_a_module_constant(monkeypatch):
    monkeypatch.setattr(reference, "MAX_DENSE_BYTES", 16 * 8 * 30**2)
    X = JITTERED[:31]
    with pytest.raises(ValueError, match=r"n_samples <= 30; smallvis.backends.reference.MAX_DENSE_BYTES"):
        smallvis.embed(X, perplexity=5, n_iter=1, fast=False)
    # the Cython path keeps O(N) scratch and is not limited
    assert _finite(smallvis.embed(X, perplexity=5, n_iter=1, fast=True))
    assert _finite(smallvis.embed(X[:30], perplexity=5, n_iter=1, fast=False))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("offset", [1e8, 1e68])
def test_gradient_is_translation_invariant_far_from_the_origin(method, fast, offset):
    """Costs and gradients depend on differences y_i - y_j only.

    (Found by fuzzing: the NumPy reference used sum_j K_ij y_i - sum_j K_ij y_j,
    which cancels catastrophically far from the origin.)
    """
    rng = np.random.default_rng(2)
    n = 9
    P = random_affinities(n, rng, symmetric=smallvis.METHODS[method].symmetric)
    Y = rng.normal(size=(n, 2))
    Y_far = Y + offset
    c0, g0 = smallvis.cost_and_gradient(method, P, Y_far - offset, fast=fast)
    c1, g1 = smallvis.cost_and_gradient(method, P, Y_far, fast=fast)
    tol = 1e-15 * offset * 100  # the differences y_i - y_j themselves lose this much
    assert c1 == pytest.approx(c0, rel=max(tol, 1e-12))
    np.testing.assert_allclose(g1, g0, rtol=0, atol=max(tol, 1e-12) * np.abs(g0).max())
    coincident = np.full((n, 1), offset)
    _, g = smallvis.cost_and_gradient(method, P, coincident, fast=fast)
    np.testing.assert_array_equal(g, 0.0)


#: A row repeated: whole numbers, whose mean is exact, and floats, whose
#: centred copies keep rounding residues of about 1e-17.
REPEATED_ROWS = [np.arange(4.0), np.random.default_rng(0).normal(size=4)]


@pytest.mark.parametrize("row", REPEATED_ROWS)
@pytest.mark.parametrize("init", ["pca", "spca"])
def test_identical_rows_are_called_a_map_without_information(init, row):
    X = np.tile(row, (40, 1))
    with pytest.warns(RuntimeWarning, match="every row of X is the same point"):
        Y = smallvis.embed(X, "tsne", init=init, n_iter=20, random_state=0,
                           perplexity=5)
    assert np.all(np.isfinite(Y))


@pytest.mark.parametrize("method", smallvis.list_methods())
@pytest.mark.parametrize("row", REPEATED_ROWS)
@pytest.mark.parametrize("sparse", [False, True])
def test_identical_rows_are_called_a_map_without_information_by_every_default_start(
        method, row, sparse):
    # the starts laid out from P (spectral, power iteration) said nothing,
    # and scaled PCA of a repeated float row drew a start from rounding
    # residues; each method's default start says so, once, of dense and
    # of sparse X (whose rows do not store the whole-number row's 0)
    X = np.tile(row, (30, 1))
    X = sp.csr_matrix(X) if sparse else X
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        Y = smallvis.embed(X, method, n_iter=20, random_state=0)
    said = [w for w in record if "every row of X is the same point" in str(w.message)]
    assert len(said) == 1
    assert np.all(np.isfinite(Y))
