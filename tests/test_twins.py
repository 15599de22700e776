"""Every public Cython kernel has a NumPy twin with the same signature and output."""

import inspect

import numpy as np
import pytest
import scipy.sparse as sp

from smallvis import _kernels, reference
from smallvis.methods import METHODS

from conftest import csr_triplet, random_affinities


def public_functions(module):
    return {
        name: obj
        for name, obj in vars(module).items()
        if callable(obj) and not name.startswith("_") and not inspect.isclass(obj)
        and getattr(obj, "__module__", module.__name__) == module.__name__
    }


def test_every_kernel_has_a_twin_with_identical_signature():
    cython = public_functions(_kernels)
    numpy_ = public_functions(reference)
    assert cython, "no public kernels found in smallvis._kernels"
    assert set(cython) == set(numpy_), set(cython) ^ set(numpy_)
    for name, fn in cython.items():
        assert inspect.signature(fn) == inspect.signature(numpy_[name]), name


def test_all_list_matches_public_functions():
    assert set(_kernels.__all__) == set(public_functions(_kernels))
    assert set(reference.__all__) == set(public_functions(reference))


def test_every_registered_method_has_twin_kernels():
    for m in METHODS.values():
        for module in (_kernels, reference):
            assert callable(m.cost_function(module))
            assert callable(m.gradient_function(module))


def _cases(rng):
    """(method, P, Y) pairs: dense, sparse-pattern, 1 to 3 output dimensions."""
    cases = []
    for name, m in METHODS.items():
        for n, dim, density in [(9, 1, 1.0), (40, 2, 1.0), (40, 2, 0.15), (33, 3, 0.3)]:
            P = random_affinities(n, rng, symmetric=m.symmetric, density=density)
            Y = rng.normal(scale=rng.choice([0.01, 1.0, 3.0]), size=(n, dim))
            cases.append((name, P, Y))
    return cases


@pytest.mark.parametrize("n_threads", [1, 2])
def test_cost_and_gradient_twins_agree(rng, n_threads):
    for name, P, Y in _cases(rng):
        m = METHODS[name]
        triplet = csr_triplet(P)
        g_ref = np.zeros_like(Y)
        g_fast = np.zeros_like(Y)
        m.gradient_function(reference)(*triplet, Y, g_ref, 1)
        m.gradient_function(_kernels)(*triplet, Y, g_fast, n_threads)
        scale = np.abs(g_ref).max()
        assert scale > 0
        np.testing.assert_allclose(g_fast, g_ref, rtol=0, atol=1e-10 * scale, err_msg=name)
        c_ref = m.cost_function(reference)(*triplet, Y, 1)
        c_fast = m.cost_function(_kernels)(*triplet, Y, n_threads)
        np.testing.assert_allclose(c_fast, c_ref, rtol=1e-10, err_msg=name)


def test_dense_and_sparse_layouts_give_the_same_answer(rng):
    """The full (dense) layout and the CSR layout of the same P agree."""
    n = 30
    for name, m in METHODS.items():
        P = random_affinities(n, rng, symmetric=m.symmetric)
        Y = rng.normal(size=(n, 2))
        full = csr_triplet(P)
        assert len(full[2]) == n * n  # dense input uses the full layout
        C = sp.csr_matrix(P)
        C.sort_indices()
        sparse = (C.indptr.astype(np.int64), C.indices.astype(np.int64), C.data)
        for module in (reference, _kernels):
            g1, g2 = np.zeros_like(Y), np.zeros_like(Y)
            m.gradient_function(module)(*full, Y, g1, 1)
            m.gradient_function(module)(*sparse, Y, g2, 1)
            np.testing.assert_allclose(g1, g2, rtol=1e-12, atol=1e-14, err_msg=name)
            np.testing.assert_allclose(m.cost_function(module)(*full, Y, 1),
                                       m.cost_function(module)(*sparse, Y, 1), rtol=1e-12)


def test_gradient_is_deterministic_and_thread_count_agrees(rng):
    n = 257
    P = random_affinities(n, rng)
    Y = rng.normal(size=(n, 2))
    triplet = csr_triplet(P)
    for name in ("tsne", "ssne", "asne"):
        fn = METHODS[name].gradient_function(_kernels)
        results = {}
        for threads in (1, 2, 3):
            a, b = np.zeros_like(Y), np.zeros_like(Y)
            fn(*triplet, Y, a, threads)
            fn(*triplet, Y, b, threads)
            np.testing.assert_array_equal(a, b)  # bit-for-bit for a given n_threads
            results[threads] = a
        scale = np.abs(results[1]).max()
        for threads in (2, 3):
            np.testing.assert_allclose(results[threads], results[1], rtol=0, atol=1e-12 * scale)


def test_perplexity_rows_twins_agree(rng):
    X = rng.normal(size=(60, 5))
    D2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    D2 = D2[~np.eye(60, dtype=bool)].reshape(60, 59)
    outs = []
    for module in (reference, _kernels):
        P = np.zeros_like(D2)
        beta = np.zeros(60)
        failed = module.perplexity_rows(D2, 10.0, 1e-5, 50, P, beta)
        outs.append((failed, P, beta))
    assert outs[0][0] == outs[1][0] == 0
    np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(outs[1][2], outs[0][2], rtol=1e-10)


def test_perplexity_fallback_twins_agree():
    """Identical points cannot reach the target: both twins use the fallback."""
    D2 = np.zeros((5, 4))
    for module in (reference, _kernels):
        P = np.zeros_like(D2)
        beta = np.zeros(5)
        assert module.perplexity_rows(D2, 2.0, 1e-5, 50, P, beta) == 5
        np.testing.assert_array_equal(P, np.tile([0.5, 0.5, 0.0, 0.0], (5, 1)))


@pytest.mark.parametrize("local_connectivity", [1.0, 0.5, 1.5, 3.0])
def test_smooth_knn_rows_twins_agree(rng, local_connectivity):
    X = rng.normal(size=(80, 4))
    X[10] = X[11]  # a duplicate pair: one zero distance
    X[20:25] = X[20]  # five identical points: all-zero rows at k = 5
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    for k in (5, 15):
        order = np.argsort(D, axis=1, kind="stable")
        dist = np.take_along_axis(D, order, 1)[:, :k].copy()
        dist[:, 0] = 0.0  # column 0 is the point itself
        dist = np.ascontiguousarray(np.sort(dist, axis=1))
        outs = []
        for module in (reference, _kernels):
            sigma, rho = np.zeros(80), np.zeros(80)
            failed = module.smooth_knn_rows(dist, np.log2(k), local_connectivity, 1e-5,
                                            64, 1e-3, sigma, rho)
            outs.append((failed, sigma, rho))
        assert outs[0][0] == outs[1][0]
        np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=1e-10)
        np.testing.assert_allclose(outs[1][2], outs[0][2], rtol=1e-12)
