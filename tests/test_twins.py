"""Every public Cython kernel has a NumPy twin with the same signature and output."""

import inspect

import numpy as np
import pytest
import scipy.sparse as sp

from smallvis.backends import _kernels

from smallvis.backends import reference
from smallvis.registry import METHODS

from conftest import EXACT_VARIANTS, csr_triplet, method_affinities, random_affinities


def defined_in(obj, module):
    """Whether ``obj`` is a kernel of ``module``: defined in it or in one of its submodules.

    The NumPy reference is a package of modules, one per job, that also
    re-exports the stochastic optimizer's twins from
    :mod:`smallvis.backends._sgd_reference`: the twin contract is about the
    names and signatures reachable from the module, wherever they are written.
    Helpers imported from outside the backends (``unit_field_values``) are not
    kernels.
    """
    home = getattr(obj, "__module__", module.__name__)
    return f"{home}.".startswith(f"{module.__name__}.") or home == "smallvis.backends._sgd_reference"


def public_functions(module):
    return {
        name: obj
        for name, obj in vars(module).items()
        if callable(obj) and not name.startswith("_") and not inspect.isclass(obj)
        and defined_in(obj, module)
    }


def test_every_kernel_has_a_twin_with_identical_signature():
    cython = public_functions(_kernels)
    numpy_ = public_functions(reference)
    assert cython, "no public kernels found in smallvis.backends._kernels"
    assert set(cython) == set(numpy_), set(cython) ^ set(numpy_)
    for name, fn in cython.items():
        assert inspect.signature(fn) == inspect.signature(numpy_[name]), name


def test_all_list_matches_public_functions():
    assert set(_kernels.__all__) == set(public_functions(_kernels))
    assert set(reference.__all__) == set(public_functions(reference))


def variants(name):
    """Default cost parameters plus the exact variants of a method."""
    return [{}] + [v for v in EXACT_VARIANTS[name] if v]


def kernel_pair(name, module, params):
    """(cost, gradient, args): args = learned scalars, then the fixed ones."""
    m = METHODS[name]
    cost_params = {k: params.get(k, v) for k, v in m.cost_params.items()}
    # "auto" defaults depend on N: take the value for the sizes tested here
    cost_params = m.resolve_auto(cost_params, 40)
    cost, gradient, args = m.cost_kernels(module, cost_params)
    return cost, gradient, tuple(cost_params[k] for k in m.learned) + args


def test_every_registered_method_has_twin_kernels():
    for name in METHODS:
        for params in variants(name):
            for module in (_kernels, reference):
                cost, gradient, _ = kernel_pair(name, module, params)
                assert defined_in(cost, module) and defined_in(gradient, module)


def _cases(rng):
    """(method, params, P, Y): dense and sparse P, 1 to 3 output dimensions."""
    cases = []
    for name in METHODS:
        for params in variants(name):
            for n, dim, density in [(9, 1, 1.0), (40, 2, 1.0), (40, 2, 0.15), (33, 3, 0.3)]:
                P = method_affinities(name, n, rng, density=density)
                Y = rng.normal(scale=rng.choice([0.01, 1.0, 3.0]), size=(n, dim))
                m = METHODS[name]
                if m.p_family.distances and m.second_input_units:
                    # a stress with a hinge has no force on the pairs the map
                    # stretches beyond P's distances (about 1e-3 here): a map
                    # at their scale, where some pairs are nearer
                    Y *= float(P[P > 0].mean())
                cases.append((name, params, P, Y))
    return cases


@pytest.mark.parametrize("n_threads", [1, 2])
def test_cost_and_gradient_twins_agree(rng, n_threads):
    for name, params, P, Y in _cases(rng):
        triplet = csr_triplet(P)
        cost_ref, grad_ref, args = kernel_pair(name, reference, params)
        cost_fast, grad_fast, _ = kernel_pair(name, _kernels, params)
        g_ref = np.zeros_like(Y)
        g_fast = np.zeros_like(Y)
        learned_ref = grad_ref(*triplet, Y, *args, g_ref, 1)
        learned_fast = grad_fast(*triplet, Y, *args, g_fast, n_threads)
        if METHODS[name].learned and learned_ref is not None:  # the derivative in it
            np.testing.assert_allclose(learned_fast, learned_ref, rtol=1e-10, atol=1e-14)
        else:  # none, or a scalar set by its rule whose kernels give no derivative
            assert learned_ref is None and learned_fast is None
            assert not METHODS[name].learned or METHODS[name].learned_rule is not None
        scale = np.abs(g_ref).max()
        assert scale > 0
        msg = f"{name} {params}"
        np.testing.assert_allclose(g_fast, g_ref, rtol=0, atol=1e-10 * scale, err_msg=msg)
        c_ref = cost_ref(*triplet, Y, *args, 1)
        c_fast = cost_fast(*triplet, Y, *args, n_threads)
        np.testing.assert_allclose(c_fast, c_ref, rtol=1e-10, err_msg=msg)


def test_dense_and_sparse_layouts_give_the_same_answer(rng):
    """The full (dense) layout and the CSR layout of the same P agree."""
    n = 30
    for name in METHODS:
        P = method_affinities(name, n, rng)
        Y = rng.normal(size=(n, 2))
        full = csr_triplet(P)
        assert len(full[2]) == n * n  # dense input uses the full layout
        C = sp.csr_matrix(P)
        C.sort_indices()
        sparse = (C.indptr.astype(np.int64), C.indices.astype(np.int64), C.data)
        for module in (reference, _kernels):
            cost, gradient, args = kernel_pair(name, module, {})
            g1, g2 = np.zeros_like(Y), np.zeros_like(Y)
            gradient(*full, Y, *args, g1, 1)
            gradient(*sparse, Y, *args, g2, 1)
            np.testing.assert_allclose(g1, g2, rtol=1e-12, atol=1e-14, err_msg=name)
            np.testing.assert_allclose(cost(*full, Y, *args, 1), cost(*sparse, Y, *args, 1),
                                       rtol=1e-12)


def test_gradient_is_deterministic_and_thread_count_agrees(rng):
    n = 257
    P = random_affinities(n, rng)
    Y = rng.normal(size=(n, 2))
    triplet = csr_triplet(P)
    for name in METHODS:
        _, fn, args = kernel_pair(name, _kernels, {})
        results = {}
        for threads in (1, 2, 3):
            a, b = np.zeros_like(Y), np.zeros_like(Y)
            fn(*triplet, Y, *args, a, threads)
            fn(*triplet, Y, *args, b, threads)
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
        failed = module.perplexity_rows(D2, 10.0, 1e-5, 50, P, beta, 1)
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
        assert module.perplexity_rows(D2, 2.0, 1e-5, 50, P, beta, 1) == 5
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


def test_twins_agree_with_coincident_output_points(rng):
    """Duplicated rows of Y (d = 0 pairs) take the special-cased branches."""
    n = 24
    for name in METHODS:
        for params in variants(name):
            P = method_affinities(name, n, rng, density=0.5)
            Y = rng.normal(size=(n, 2))
            Y[5] = Y[3]
            Y[17] = Y[3]
            Y[20] = Y[11]
            triplet = csr_triplet(P)
            out = []
            for module in (reference, _kernels):
                cost, gradient, args = kernel_pair(name, module, params)
                g = np.zeros_like(Y)
                learned = gradient(*triplet, Y, *args, g, 1)
                out.append((cost(*triplet, Y, *args, 1), g, learned))
            (c0, g0, l0), (c1, g1, l1) = out
            msg = f"{name} {params}"
            np.testing.assert_allclose(c1, c0, rtol=1e-10, err_msg=msg)
            np.testing.assert_allclose(g1, g0, rtol=0, atol=1e-10 * np.abs(g0).max(), err_msg=msg)
            if l0 is not None:
                np.testing.assert_allclose(l1, l0, rtol=1e-10, err_msg=msg)
