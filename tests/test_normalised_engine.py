"""The generic engine of the units whose output weights are normalised to q.

``normalised_cost`` and ``normalised_gradient`` (and their transform twins)
in both backends: the gradient is the derivative of the cost, for the
compiled units and for units defined here (a non-KL divergence, in both
normalisations), the twins agree, the SNE family's named kernels agree with
the engine, and the registry routes a normalised unit without named
kernels to it.
"""

import dataclasses
from typing import NamedTuple

import numpy as np
import pytest
from scipy import special

from smallvis.backends import _kernels, reference
from smallvis.methods import unit_classes
from smallvis.methods._common import set_sum, symmetric_p
from smallvis.methods.tsne.unit import TSNEUnit
from smallvis.registry import METHODS
from smallvis.testing._cases import SCALES

#: The NumPy units with a compiled twin on the normalised engine.
NORMALISED_CLASSES = [cls for cls in unit_classes() if hasattr(cls, "c_unit")]


def _registry_units():
    """The normalised units the registry's examples build (a method's ``normalised_units``)."""
    units = []
    for m in METHODS.values():
        for example in m.examples if m.normalised_units else ():
            params = m.resolve_auto({**m.cost_params, **example}, 20)
            prefix, args = m.kernel_name(params)
            # a unit is built from the kernel's arguments, the learned values first
            units.append(m.normalised_units[prefix](*(params[k] for k in m.learned), *args))
    return units


#: A unit of each class with parameter values that reach each of their C
#: units: the registry's examples, and for the SNE family's units (run by
#: their named kernels, with no examples) t-SNE's Cauchy weight and a
#: heavier and a lighter tail.
COMPILED = _registry_units() + [
    cls(*values) for cls in NORMALISED_CLASSES
    if not any(isinstance(u, cls) for u in _registry_units())
    for values in ([()] if not cls._fields else [(1.0,), (0.5,), (7.0,)])]


# ---- units defined here: divergences other than KL -----------------------

class _Cauchy:
    log_domain = False

    def weight(self, d2):
        return 1.0 / (1.0 + d2)

    def slope_at(self, d2):
        return 1.0 / (1.0 + d2)


class _Gaussian:
    log_domain = True

    def log_weight(self, d2):
        return -d2

    def slope_at(self, d2):
        return 1.0


class MixtureJS(NamedTuple):
    r"""A Jensen-Shannon-like mixture, as R smallvis's ``jse`` (Lee et al. 2013).

    .. math::

        f(p, q) = a\, p \log \frac{p}{m} + b\, q \log \frac{q}{m},
        \qquad m = \kappa p + (1 - \kappa) q,

    so :math:`q\, \partial f / \partial q = b\, q \log(q/m) + b q
    - (1 - \kappa)\, q\, (a p + b q) / m`.
    """

    kappa: float = 0.3
    a: float = 1.0
    b: float = 0.5
    normalisation = "total"

    def _m(self, P, Q):
        return self.kappa * P + (1.0 - self.kappa) * Q

    def cost(self, P, Q, log_Q):
        M = self._m(P, Q)
        with np.errstate(divide="ignore", invalid="ignore"):
            R = np.where(M > 0, 1.0 / M, 0.0)
        return float(np.sum(self.a * special.xlogy(P, P * R) + self.b * special.xlogy(Q, Q * R)))

    def _q_dfdq(self, P, Q):
        M = self._m(P, Q)
        with np.errstate(divide="ignore", invalid="ignore"):
            R = np.where(M > 0, 1.0 / M, 0.0)
        return (self.b * special.xlogy(Q, Q * R) + self.b * Q
                - (1.0 - self.kappa) * Q * (self.a * P + self.b * Q) * R)

    def offset(self, P, Q, mass, axis):
        return set_sum(self._q_dfdq(P, Q), axis)

    def force(self, P, W, Z, slope, S):
        Q = W / Z
        return (S * Q - self._q_dfdq(P, Q)) * slope


class MixtureJSCauchyTotal(_Cauchy, MixtureJS):
    pass


class ReverseKL(NamedTuple):
    r"""The reverse KL divergence :math:`f(p, q) = q \log(q / p)` (``P`` positive off the diagonal).

    :math:`q\, \partial f / \partial q = q \log(q/p) + q`.
    """

    normalisation = "rows"

    def cost(self, P, Q, log_Q):
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.sum(np.where(Q > 0, Q * (log_Q - np.log(P)), 0.0)))

    def _q_dfdq(self, P, Q):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(Q > 0, Q * (np.log(Q) - np.log(P)) + Q, 0.0)

    def offset(self, P, Q, mass, axis):
        return set_sum(self._q_dfdq(P, Q), axis)

    def force(self, P, W, Z, slope, S):
        Q = W / Z
        return (S * Q - self._q_dfdq(P, Q)) * slope


def _toy(base, weight, normalisation, **params):
    cls = type(f"{base.__name__}{weight.__name__}{normalisation}", (weight, base),
               {"normalisation": normalisation})
    return cls(**params)


TOYS = [
    _toy(MixtureJS, _Cauchy, "total"),
    _toy(MixtureJS, _Cauchy, "rows", kappa=0.6, a=0.7, b=1.3),
    _toy(MixtureJS, _Gaussian, "rows"),
    _toy(ReverseKL, _Gaussian, "rows"),
    _toy(ReverseKL, _Cauchy, "total"),
]


# ---- helpers -------------------------------------------------------------

def _triplet(P):
    n = P.shape[0]
    return (np.arange(0, n * n + 1, n, dtype=np.int64),
            np.tile(np.arange(n, dtype=np.int64), n), np.ascontiguousarray(P.ravel()))


def _sparse_triplet(P):
    rows, cols = np.nonzero(P)
    indptr = np.searchsorted(rows, np.arange(P.shape[0] + 1)).astype(np.int64)
    return indptr, cols.astype(np.int64), np.ascontiguousarray(P[rows, cols])


def _affinities(rng, n, unit, positive=False):
    """P for ``unit``: rows summing to 1 ("rows"), or summing to 1 ("total"), symmetric
    unless the unit says otherwise (``symmetric_p``)."""
    A = rng.uniform(0.05, 1.0, (n, n))
    if not positive:
        A *= rng.uniform(size=(n, n)) < 0.6
        A[np.arange(n), (np.arange(n) + 1) % n] = 0.5  # no empty row
    np.fill_diagonal(A, 0.0)
    if unit.normalisation == "rows":
        return A / A.sum(axis=1, keepdims=True)
    if symmetric_p(unit):
        A = A + A.T
    return A / A.sum()


def _finite_differences(cost, Y, h):
    G = np.zeros_like(Y)
    for idx in np.ndindex(Y.shape):
        Yp, Ym = Y.copy(), Y.copy()
        Yp[idx] += h
        Ym[idx] -= h
        G[idx] = (cost(Yp) - cost(Ym)) / (2.0 * h)
    return G


def _check_gradient_is_derivative(module, unit, P, Y, h=1e-5, rtol=1e-6):
    trip = _sparse_triplet(P)
    grad = np.zeros_like(Y)
    module.normalised_gradient(unit, *trip, Y, grad, 1)
    fd = _finite_differences(lambda Z: module.normalised_cost(unit, *trip, Z, 1), Y, h)
    scale = np.abs(fd).max()
    assert scale > 0
    np.testing.assert_allclose(grad, fd, rtol=0, atol=rtol * scale, err_msg=repr(unit))


# ---- the gradient is the derivative of the cost --------------------------

@pytest.mark.parametrize("unit", TOYS, ids=repr)
@pytest.mark.parametrize("dim", [1, 2])
def test_the_gradient_of_a_unit_defined_here_is_the_derivative_of_its_cost(unit, dim):
    rng = np.random.default_rng(11 + dim)
    P = _affinities(rng, 9, unit, positive=isinstance(unit, ReverseKL))
    Y = rng.normal(size=(9, dim))
    _check_gradient_is_derivative(reference, unit, P, Y)


@pytest.mark.parametrize("unit", TOYS, ids=repr)
def test_the_transform_gradient_of_a_unit_defined_here_is_the_derivative_of_its_cost(unit):
    rng = np.random.default_rng(5)
    P = rng.uniform(0.1, 1.0, (3, 8))
    P /= P.sum(axis=1, keepdims=True)
    Y_train, Y = rng.normal(size=(8, 2)), rng.normal(size=(3, 2))
    trip = _sparse_triplet(P)
    grad = np.zeros_like(Y)
    reference.normalised_transform_gradient(unit, *trip, Y, Y_train, grad, 1)
    fd = _finite_differences(
        lambda Z: reference.normalised_transform_cost(unit, *trip, Z, Y_train, 1), Y, 1e-5)
    np.testing.assert_allclose(grad, fd, rtol=0, atol=1e-6 * np.abs(fd).max())


@pytest.mark.parametrize("module", [reference, _kernels], ids=["numpy", "cython"])
@pytest.mark.parametrize("unit", COMPILED, ids=repr)
@pytest.mark.parametrize("dim", [1, 3])
def test_the_gradient_of_a_compiled_unit_is_the_derivative_of_its_cost(module, unit, dim):
    rng = np.random.default_rng(3 + dim)
    P = _affinities(rng, 10, unit)
    Y = rng.normal(size=(10, dim))
    _check_gradient_is_derivative(module, unit, P, Y)


class _AsymmetricTSNE(TSNEUnit):
    """t-SNE's unit (both weights: Cauchy, dof 0.5) over a P that is not symmetric."""

    __slots__ = ()
    symmetric_p = False


@pytest.mark.parametrize("module", [reference, _kernels], ids=["numpy", "cython"])
@pytest.mark.parametrize("dof", [1.0, 0.5])
@pytest.mark.parametrize("dim", [1, 2])
def test_over_all_pairs_a_p_that_is_not_symmetric_gets_the_gradient_of_its_cost(
        module, dof, dim):
    # each ordered pair's coefficient at both ends: 2 (c_ij + c_ji), not the
    # symmetric shortcut 4 c_ij, which is wrong by (c_ij - c_ji)
    rng = np.random.default_rng(17 + dim)
    unit = _AsymmetricTSNE(dof)
    P = _affinities(rng, 10, unit)
    assert np.abs(P - P.T).max() > 0.1 * P.max()
    Y = rng.normal(size=(10, dim))
    _check_gradient_is_derivative(module, unit, P, Y)
    # and the twins agree with each other
    trip = _sparse_triplet(P)
    grads = []
    for twin in (reference, _kernels):
        grads.append(np.zeros_like(Y))
        twin.normalised_gradient(unit, *trip, Y, grads[-1], 1)
    np.testing.assert_allclose(grads[1], grads[0], rtol=0, atol=1e-12 * np.abs(grads[0]).max())


# ---- the twins -----------------------------------------------------------

@pytest.mark.parametrize("unit", COMPILED, ids=repr)
@pytest.mark.parametrize("scale", SCALES)
def test_the_twins_agree_at_every_scale(unit, scale):
    rng = np.random.default_rng(int(np.log10(scale)) + 20)
    n, dim = 23, 2
    P = _affinities(rng, n, unit)
    Y = rng.normal(size=(n, dim)) * scale
    for trip in (_triplet(P), _sparse_triplet(P)):
        c_ref = reference.normalised_cost(unit, *trip, Y, 1)
        g_ref = np.zeros_like(Y)
        reference.normalised_gradient(unit, *trip, Y, g_ref, 1)
        for nt in (1, 2):
            c_fast = _kernels.normalised_cost(unit, *trip, Y, nt)
            assert abs(c_fast - c_ref) <= 1e-10 * abs(c_ref)
            g_fast = np.zeros_like(Y)
            _kernels.normalised_gradient(unit, *trip, Y, g_fast, nt)
            np.testing.assert_allclose(g_fast, g_ref, rtol=0, atol=1e-10 * np.abs(g_ref).max())
    # new points, each over its own row
    T = rng.uniform(size=(4, n)) * (rng.uniform(size=(4, n)) < 0.5)
    T[:, 0] += 0.1
    T /= T.sum(axis=1, keepdims=True)
    Y_new = rng.normal(size=(4, dim)) * scale
    trip = _sparse_triplet(T)
    c_ref = reference.normalised_transform_cost(unit, *trip, Y_new, Y, 1)
    c_fast = _kernels.normalised_transform_cost(unit, *trip, Y_new, Y, 1)
    assert abs(c_fast - c_ref) <= 1e-10 * abs(c_ref)
    g_ref, g_fast = np.zeros_like(Y_new), np.zeros_like(Y_new)
    reference.normalised_transform_gradient(unit, *trip, Y_new, Y, g_ref, 1)
    _kernels.normalised_transform_gradient(unit, *trip, Y_new, Y, g_fast, 1)
    np.testing.assert_allclose(g_fast, g_ref, rtol=0, atol=1e-10 * np.abs(g_ref).max())


#: Points of the long-row check: the compiled rows sum their terms a block
#: of 256 at a time, so that rows of 300 cross a block's end.
LONG_ROW_N = 300


@pytest.mark.parametrize("unit", COMPILED, ids=repr)
def test_the_twins_agree_on_rows_longer_than_a_block(unit):
    rng = np.random.default_rng(31)
    P = _affinities(rng, LONG_ROW_N, unit)
    Y = rng.normal(size=(LONG_ROW_N, 2)) * 3.0
    trip = _sparse_triplet(P)
    c_ref = reference.normalised_cost(unit, *trip, Y, 1)
    assert abs(_kernels.normalised_cost(unit, *trip, Y, 2) - c_ref) <= 1e-10 * abs(c_ref)
    g_ref, g_fast = np.zeros_like(Y), np.zeros_like(Y)
    reference.normalised_gradient(unit, *trip, Y, g_ref, 1)
    _kernels.normalised_gradient(unit, *trip, Y, g_fast, 2)
    np.testing.assert_allclose(g_fast, g_ref, rtol=0, atol=1e-10 * np.abs(g_ref).max())
    # new points against all the training points, each over its own row
    T = rng.uniform(size=(3, LONG_ROW_N)) * (rng.uniform(size=(3, LONG_ROW_N)) < 0.3)
    T[:, -1] += 0.1  # an entry past the first block
    T /= T.sum(axis=1, keepdims=True)
    Y_new = rng.normal(size=(3, 2)) * 3.0
    trip = _sparse_triplet(T)
    c_ref = reference.normalised_transform_cost(unit, *trip, Y_new, Y, 1)
    assert abs(_kernels.normalised_transform_cost(unit, *trip, Y_new, Y, 1) - c_ref) <= (
        1e-10 * abs(c_ref))
    g_ref, g_fast = np.zeros_like(Y_new), np.zeros_like(Y_new)
    reference.normalised_transform_gradient(unit, *trip, Y_new, Y, g_ref, 1)
    _kernels.normalised_transform_gradient(unit, *trip, Y_new, Y, g_fast, 1)
    np.testing.assert_allclose(g_fast, g_ref, rtol=0, atol=1e-10 * np.abs(g_ref).max())


def test_every_compiled_normalised_unit_has_a_numpy_unit():
    reached = {unit.c_unit for unit in COMPILED}
    assert reached == set(_kernels._NORMALISED_UNITS)
    for unit in COMPILED:
        assert _kernels._NORMALISED_UNITS[unit.c_unit][1] == type(unit)._fields


def _on_the_engine(m):
    """Whether a method's default exact kernels are those of a compiled normalised unit."""
    return m.prefix in {u.c_unit for u in COMPILED}


@pytest.mark.parametrize("method", [name for name, m in METHODS.items() if _on_the_engine(m)])
def test_the_named_kernels_agree_with_the_engine(method):
    """A normalised method's named kernels (fast paths) compute the engine's cost and gradient."""
    m = METHODS[method]
    checked = 0
    # a default taken from the input (Method.input_params) is the first example's here
    from_input = {k: m.examples[0][k] for k in m.input_params}
    for option in ({},) + tuple(m.kernel_options):
        params = {**m.cost_params, **from_input, **option}
        prefix, args = m.kernel_name(params)
        # the kernels' arguments: the learned values first (a unit is built from them)
        args = tuple(params[k] for k in m.learned) + tuple(args)
        units = [u for u in COMPILED if u.c_unit == prefix]
        if not units:
            continue
        (unit,) = units if len(units) == 1 else [u for u in units if tuple(u) == args]
        rng = np.random.default_rng(8)
        P = _affinities(rng, 17, unit)
        Y = rng.normal(size=(17, 2))
        trip = _sparse_triplet(P)
        cost, gradient, fixed = m.kernels(_kernels, params)
        args = tuple(params[k] for k in m.learned) + tuple(fixed)
        g_named, g_engine = np.zeros_like(Y), np.zeros_like(Y)
        gradient(*trip, Y, *args, g_named, 1)
        _kernels.normalised_gradient(unit, *trip, Y, g_engine, 1)
        np.testing.assert_allclose(g_named, g_engine, rtol=0, atol=1e-12 * np.abs(g_engine).max())
        c_engine = _kernels.normalised_cost(unit, *trip, Y, 1)
        assert abs(cost(*trip, Y, *args, 1) - c_engine) <= 1e-12 * abs(c_engine)
        checked += 1
    assert checked


# ---- the registry routes a normalised unit without named kernels ---------

@pytest.mark.parametrize("module", [reference, _kernels], ids=["numpy", "cython"])
def test_a_normalised_unit_without_named_kernels_runs_on_the_engine(module):
    unit_cls = next(type(u) for u in COMPILED if not u._fields and u.normalisation == "total")
    base = next(m for m in METHODS.values() if m.prefix == unit_cls.c_unit)
    method = dataclasses.replace(base, prefix="unnamed", pair_units={"unnamed": unit_cls})
    cost, gradient, args = method.kernels(module, dict(method.cost_params))
    rng = np.random.default_rng(2)
    P = _affinities(rng, 12, unit_cls())
    Y = rng.normal(size=(12, 2))
    trip = _sparse_triplet(P)
    g, g_engine = np.zeros_like(Y), np.zeros_like(Y)
    gradient(*trip, Y, *args, g, 1)
    module.normalised_gradient(unit_cls(), *trip, Y, g_engine, 1)
    np.testing.assert_array_equal(g, g_engine)
    assert cost(*trip, Y, *args, 1) == module.normalised_cost(unit_cls(), *trip, Y, 1)
    tcost, tgrad, targs = method.kernels(module, dict(method.cost_params), family="transform")
    assert tcost(*trip, Y, Y, *targs, 1) == module.normalised_transform_cost(
        unit_cls(), *trip, Y, Y, 1)


# ---- bad input -----------------------------------------------------------

@pytest.mark.parametrize("module", [reference, _kernels], ids=["numpy", "cython"])
def test_bad_input_is_refused_with_a_clear_message(module):
    unit = COMPILED[0]
    rng = np.random.default_rng(0)
    P = _affinities(rng, 6, unit)
    Y = rng.normal(size=(6, 2))
    trip = _sparse_triplet(P)
    with pytest.raises(ValueError, match="grad"):
        module.normalised_gradient(unit, *trip, Y, np.zeros((5, 2)), 1)
    with pytest.raises(ValueError, match="indptr"):
        module.normalised_cost(unit, trip[0][:-1], *trip[1:], Y, 1)
    columns = type("ByColumns", (type(unit),), {"normalisation": "columns"})(*unit)
    with pytest.raises(ValueError, match="normalisation"):
        module.normalised_cost(columns, *trip, Y, 1)
    with pytest.raises(TypeError, match="unit"):
        module.normalised_cost("tsne", *trip, Y, 1)


def test_the_compiled_engine_names_the_units_it_has():
    with pytest.raises(ValueError, match="no compiled normalised unit"):
        _kernels.normalised_cost(TOYS[0], *_sparse_triplet(np.zeros((3, 3))),
                                 np.zeros((3, 2)), 1)
