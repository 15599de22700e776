"""The generic entry points of the pair units check their input, in both twins.

``pair_cost``, ``pair_gradient``, ``pair_transform_cost`` and
``pair_transform_gradient`` take any pair unit; the compiled twin reads its
arrays without bounds checks and its unit's fields as doubles.  Both twins
must refuse bad arrays and bad fields with the same error before any
arithmetic (a P with more rows than Y once crashed the compiled twin; a
field None became NaN there).  The stochastic loaders check the fields the
same way.
"""

from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp

from smallvis.methods.negtsne.unit import NegTSNEUnit
from smallvis.methods.umap.unit import UMAPUnit

from conftest import KERNEL_MODULES

N = 30


def _triplet(n_rows, n_cols, seed=1):
    A = sp.random(n_rows, n_cols, density=0.2, random_state=seed, format="csr")
    if n_rows == n_cols:
        A = A + A.T
        A.setdiag(0)
    A.eliminate_zeros()
    A = sp.csr_matrix(A / A.sum())
    return (A.indptr.astype(np.int64), A.indices.astype(np.int64),
            A.data.astype(np.float64))


@pytest.fixture
def fit_inputs(rng):
    return (*_triplet(N, N), rng.normal(size=(N, 2)))


def _fit_calls(unit, ip, ix, dv, Y, grad=None):
    grad = np.zeros_like(Y) if grad is None else grad
    return {"pair_cost": lambda m: m.pair_cost(unit, ip, ix, dv, Y, 1),
            "pair_gradient": lambda m: m.pair_gradient(unit, ip, ix, dv, Y, grad, 1)}


def _same_error(call, error, match):
    """Both twins raise ``error`` with the same message."""
    messages = []
    for module in KERNEL_MODULES.values():
        with pytest.raises(error, match=match) as info:
            call(module)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def _bad_fit_arrays(ip, ix, dv, Y):
    """name -> (indptr, indices, data, Y, grad, the message's start)."""
    g = np.zeros_like(Y)
    Yt = np.asfortranarray(Y)
    short = np.ascontiguousarray(Y[:10])
    wild = ix.copy()
    wild[3] = N + 7
    negative = ix.copy()
    negative[0] = -1
    falling = ip.copy()
    falling[5] = falling[6] + 1
    return {
        "P has more rows than Y": (ip, ix, dv, short, np.zeros_like(short), "indptr must have"),
        "grad has another shape": (ip, ix, dv, Y, np.zeros((N, 3)), "grad must have"),
        "grad is float32": (ip, ix, dv, Y, g.astype(np.float32), "grad must be"),
        "grad is read-only": (ip, ix, dv, Y, np.zeros_like(Y).view(), "grad must be"),
        "Y is float32": (ip, ix, dv, Y.astype(np.float32), g, "Y must be"),
        "Y is Fortran-ordered": (ip, ix, dv, Yt, g, "Y must be"),
        "Y is 1-D": (ip, ix, dv, Y[:, 0].copy(), g[:, 0].copy(), "Y must be"),
        "indptr is int32": (ip.astype(np.int32), ix, dv, Y, g, "indptr must be"),
        "indices is int32": (ip, ix.astype(np.int32), dv, Y, g, "indices must be"),
        "data is float32": (ip, ix, dv.astype(np.float32), Y, g, "data must be"),
        "an index beyond N": (ip, wild, dv, Y, g, "indices must lie"),
        "a negative index": (ip, negative, dv, Y, g, "indices must lie"),
        "indptr decreases": (falling, ix, dv, Y, g, "indptr must start"),
        "data is shorter than indptr says": (ip, ix, dv[:-1].copy(), Y, g, r"indptr\[-1\]"),
    }


@pytest.mark.parametrize("case", list(_bad_fit_arrays(*_triplet(N, N), np.zeros((N, 2)))))
@pytest.mark.parametrize("entry", ["pair_cost", "pair_gradient"])
def test_both_twins_refuse_bad_fit_arrays_alike(fit_inputs, case, entry):
    ip, ix, dv, Y, grad, match = _bad_fit_arrays(*fit_inputs)[case]
    if case == "grad is read-only":
        grad.flags.writeable = False
    if entry == "pair_cost" and match.startswith("grad"):
        pytest.skip("the cost takes no grad")
    call = _fit_calls(UMAPUnit(1.5, 0.9, 0.001), ip, ix, dv, Y, grad)[entry]
    _same_error(call, ValueError, match)


def test_a_p_of_more_rows_than_y_is_refused_not_a_crash(rng):
    # the reviewer's case: P of 300 rows, Y of 10 (the compiled twin wrote
    # outside its buffers)
    ip, ix, dv = _triplet(300, 300)
    Y = rng.normal(size=(10, 2))
    grad = np.zeros_like(Y)
    _same_error(lambda m: m.pair_gradient(UMAPUnit(1.5, 0.9, 0.001), ip, ix, dv, Y, grad, 1),
                ValueError, "indptr must have n_rows \\+ 1 = 11 entries")


def test_the_named_kernels_refuse_shapes_alike(rng):
    # they skip only the index-range pass (the optimizer's P is checked once)
    ip, ix, dv = _triplet(300, 300)
    Y = rng.normal(size=(10, 2))
    _same_error(lambda m: m.umap_gradient(ip, ix, dv, Y, 1.5, 0.9, 0.001, np.zeros_like(Y), 1),
                ValueError, "indptr must have")
    ip, ix, dv = _triplet(N, N)
    Y = rng.normal(size=(N, 2))
    _same_error(lambda m: m.tumap_gradient(ip, ix, dv, Y, 0.001, np.zeros((N, 3)), 1),
                ValueError, "grad must have")
    _same_error(lambda m: m.ncvis_cost(ip, ix, dv, Y, None, 5.0, 1.5, 0.9, 1), TypeError,
                "NCVisUnit.Q must be a real number")


def test_the_full_layout_reads_no_index(rng):
    # kernel_triplet's full layout: data is the dense matrix, indices unread
    P = np.abs(rng.normal(size=(N, N)))
    P = P + P.T
    np.fill_diagonal(P, 0.0)
    P /= P.sum()
    ip = np.arange(0, N * N + 1, N, dtype=np.int64)
    ix = np.tile(np.arange(N, dtype=np.int64), N)
    Y = rng.normal(size=(N, 2))
    unit = UMAPUnit(1.5, 0.9, 0.0)
    costs = [m.pair_cost(unit, ip, ix, P.ravel(), Y, 1) for m in KERNEL_MODULES.values()]
    np.testing.assert_allclose(costs[0], costs[1], rtol=1e-12)


def _bad_transform_arrays(rng):
    n_new, n_ref = 7, N
    ip, ix, dv = _triplet(n_new, n_ref)
    Y = rng.normal(size=(n_new, 2))
    R = rng.normal(size=(n_ref, 2))
    g = np.zeros_like(Y)
    wild = ix.copy()
    wild[0] = n_ref
    return {
        "Y_train has another dimension": (ip, ix, dv, Y, rng.normal(size=(n_ref, 3)), g,
                                        "Y_train must have"),
        "Y_train is empty": (ip, ix, dv, Y, np.zeros((0, 2)), g, "Y_train must have"),
        "Y_train is float32": (ip, ix, dv, Y, R.astype(np.float32), g, "Y_train must be"),
        "P has more rows than Y": (ip, ix, dv, np.ascontiguousarray(Y[:3]), R,
                                   g[:3].copy(), "indptr must have"),
        "an index beyond the training points": (ip, wild, dv, Y, R, g, "indices must lie"),
        "grad is Fortran-ordered": (ip, ix, dv, Y, R, np.zeros((2, n_new)).T, "grad must be"),
        "grad has another shape": (ip, ix, dv, Y, R, np.zeros((n_new, 3)), "grad must have"),
    }


@pytest.mark.parametrize("case", ["Y_train has another dimension", "Y_train is empty",
                                  "Y_train is float32", "P has more rows than Y",
                                  "an index beyond the training points", "grad has another shape",
                                  "grad is Fortran-ordered"])
def test_both_twins_refuse_bad_transform_arrays_alike(rng, case):
    ip, ix, dv, Y, R, g, match = _bad_transform_arrays(rng)[case]
    unit = NegTSNEUnit(300.0, 5.0)
    _same_error(lambda m: m.pair_transform_gradient(unit, ip, ix, dv, Y, R, g, 1),
                ValueError, match)
    if not match.startswith("grad"):
        _same_error(lambda m: m.pair_transform_cost(unit, ip, ix, dv, Y, R, 1),
                    ValueError, match)


BAD_FIELDS = [None, "300", "a", True, np.bool_(False), [300.0], 1j]


@pytest.mark.parametrize("value", BAD_FIELDS, ids=repr)
def test_both_twins_refuse_a_field_that_is_not_a_number(fit_inputs, value, rng):
    ip, ix, dv, Y = fit_inputs
    for unit in (NegTSNEUnit(value, 5.0), NegTSNEUnit(300.0, value)):
        for call in _fit_calls(unit, ip, ix, dv, Y).values():
            _same_error(call, TypeError, "must be a real number")
        tip, tix, tdv = _triplet(4, N)
        Ynew = rng.normal(size=(4, 2))
        _same_error(lambda m: m.pair_transform_cost(unit, tip, tix, tdv, Ynew, Y, 1),
                    TypeError, "must be a real number")


def test_both_twins_refuse_a_nan_field_and_take_numpy_numbers(fit_inputs):
    ip, ix, dv, Y = fit_inputs
    for call in _fit_calls(NegTSNEUnit(np.nan, 5.0), ip, ix, dv, Y).values():
        _same_error(call, ValueError, "not NaN")
    costs = [m.pair_cost(NegTSNEUnit(np.float32(300.0), np.int64(5)), ip, ix, dv, Y, 1)
             for m in KERNEL_MODULES.values()]
    np.testing.assert_allclose(costs[0], costs[1], rtol=1e-12)
    assert np.isfinite(costs[0])


def test_a_plain_tuple_is_not_a_unit(fit_inputs):
    ip, ix, dv, Y = fit_inputs
    _same_error(lambda m: m.pair_cost((300.0, 5.0), ip, ix, dv, Y, 1), TypeError,
                "unit must be a method unit")


@pytest.mark.parametrize("value", [None, "300", True])
def test_both_stochastic_loaders_refuse_a_field_that_is_not_a_number(value):
    problem = SimpleNamespace(coefficient="negtsne", params=(value, 5.0), n_others=9)
    d2 = np.array([0.5, 2.0])
    for module in KERNEL_MODULES.values():
        with pytest.raises(TypeError, match=r"NegTSNEUnit\.z_bar must be a real number"):
            module.sgd_coefficients(problem, d2, 0.0, 5.0, np.zeros((4, 2)))
