"""InfoNCE checked against what is written here, not against its own quadrature.

The expected loss (docs/theory.md §3.11) is enumerated from scratch: every
positive pair with its probability and every ordered tuple of ``m``
negatives drawn uniformly from the points other than the head, each sample
costing ``-log phi_ij + log(phi_ij + sum_l phi_ik_l)``, ``phi = 1 / (1 +
d^2)``, and its gradient by the chain rule of each sample.  At ``m = 1`` the
expectation is a plain mean over one negative, a second closed form.  The
quadrature itself is checked on ``log a`` and ``1 / a`` over the whole range
the row-scaled argument can take, extremes included.
"""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
from smallvis._validation import ParameterError
from smallvis.backends import _kernels, reference
from smallvis.engines import sgd
from smallvis.methods.infonce.unit import QUADRATURE_STEP, InfoNCEUnit, quadrature_nodes
from smallvis.registry import METHODS

from conftest import KERNEL_MODULES


def _tiny_problem(n=6, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    P = rng.uniform(size=(n, n)) * (rng.uniform(size=(n, n)) > 0.4)
    P = P + P.T
    np.fill_diagonal(P, 0.0)
    return P / P.sum(), scale * rng.normal(size=(n, 2))


def _phi(Y, i, k):
    return 1.0 / (1.0 + sum((Y[i][d] - Y[k][d]) ** 2 for d in range(len(Y[i]))))


def _enumerated(P, Y, m, Y_train=None):
    """Cost and gradient of the expected loss, every tuple of negatives enumerated.

    A fit (``Y_train`` None): the candidates of row ``i`` are the other points
    and the gradient moves every row; new points (rows of ``Y``) against
    ``Y_train``: the candidates are the training points, only ``Y`` moves.
    """
    rows, cols = (Y, Y) if Y_train is None else (Y, Y_train)
    cost, grad = 0.0, np.zeros_like(np.asarray(rows, dtype=float))
    grad_cols = np.zeros_like(np.asarray(cols, dtype=float))
    for i in range(len(rows)):
        others = [k for k in range(len(cols)) if Y_train is not None or k != i]
        weight = 1.0 / len(others) ** m
        phi = {k: 1.0 / (1.0 + float(np.sum((rows[i] - cols[k]) ** 2))) for k in others}
        for j in others:
            if P[i][j] == 0.0:
                continue
            for negatives in itertools.product(others, repeat=m):
                total = phi[j] + sum(phi[k] for k in negatives)
                cost += P[i][j] * weight * (-np.log(phi[j]) + np.log(total))
                # d loss / d phi: positive -1/phi_j + 1/total, each negative 1/total;
                # d phi / d y_i = -2 phi^2 (y_i - y_k)
                slopes = [(j, -1.0 / phi[j] + 1.0 / total)] + [(k, 1.0 / total)
                                                                for k in negatives]
                for k, slope in slopes:
                    force = P[i][j] * weight * slope * -2.0 * phi[k] ** 2 * (rows[i] - cols[k])
                    grad[i] += force
                    grad_cols[k] -= force
    if Y_train is None:
        grad += grad_cols
    return cost, grad


@pytest.mark.parametrize("kernels", list(KERNEL_MODULES.values()), ids=list(KERNEL_MODULES))
@pytest.mark.parametrize("n, m", [(5, 1), (5, 3), (6, 2), (7, 1), (7, 3)])
def test_cost_and_gradient_are_the_enumerated_expectation(kernels, n, m):
    P, Y = _tiny_problem(n, seed=n + m)
    M = sp.csr_matrix(P)
    triplet = (M.indptr.astype(np.int64), M.indices.astype(np.int64), M.data)
    want_cost, want_grad = _enumerated(P, Y, m)
    grad = np.zeros_like(Y)
    kernels.infonce_gradient(*triplet, Y, float(m), grad, 1)
    assert kernels.infonce_cost(*triplet, Y, float(m), 1) == pytest.approx(want_cost, rel=1e-12)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-11, atol=1e-13 * np.abs(want_grad).max())


@pytest.mark.parametrize("kernels", list(KERNEL_MODULES.values()), ids=list(KERNEL_MODULES))
@pytest.mark.parametrize("m", [1, 2])
def test_transform_is_the_enumerated_expectation(kernels, m):
    rng = np.random.default_rng(4)
    Y_train, Y_new = rng.normal(size=(6, 2)), rng.normal(size=(2, 2))
    P = rng.uniform(size=(2, 6)) * (rng.uniform(size=(2, 6)) > 0.3)
    M = sp.csr_matrix(P)
    triplet = (M.indptr.astype(np.int64), M.indices.astype(np.int64), M.data)
    want_cost, want_grad = _enumerated(P, Y_new, m, Y_train)
    grad = np.zeros_like(Y_new)
    kernels.infonce_transform_gradient(*triplet, Y_new, Y_train, float(m), grad, 1)
    cost = kernels.infonce_transform_cost(*triplet, Y_new, Y_train, float(m), 1)
    assert cost == pytest.approx(want_cost, rel=1e-12)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-11, atol=1e-13 * np.abs(want_grad).max())


@pytest.mark.parametrize("fast", [False, True])
def test_one_negative_is_a_plain_mean(fast):
    """m = 1: E log(phi_ij + phi_ik) is the mean over the N - 1 candidates k."""
    P, Y = _tiny_problem(12, seed=3, scale=2.0)
    n = len(Y)
    D2 = ((Y[:, None] - Y[None]) ** 2).sum(-1)
    phi = 1.0 / (1.0 + D2)
    want = 0.0
    for i in range(n):
        k = np.arange(n) != i
        for j in np.flatnonzero(P[i]):
            want += P[i, j] * (-np.log(phi[i, j]) + np.mean(np.log(phi[i, j] + phi[i, k])))
    cost, _ = smallvis.cost_and_gradient("infonce", P, Y, fast=fast, negative_sample_rate=1)
    assert cost == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("m", [1.0, 5.0, 1000.0])
def test_the_lattice_integrates_log_and_its_derivative(m):
    """Frullani: h sum (expm1(-t) - expm1(-a t)) = log a and h sum t e^{-a t} = 1 / a.

    Over the whole range of the row-scaled argument, (0, m + 1], with the
    lattice the row would use for that smallest argument (down to a far
    pair at a = 1e-300).
    """
    h = QUADRATURE_STEP
    for a in np.concatenate([np.logspace(-300, -20, 15), np.logspace(-20, np.log10(m + 1), 200)]):
        t = quadrature_nodes(m, a)
        log_a = h * np.sum(np.expm1(-t) - np.expm1(-a * t))
        inverse = h * np.sum(t * np.exp(-a * t))
        assert abs(log_a - np.log(a)) <= 1e-13 * max(1.0, abs(np.log(a)))
        assert abs(inverse * a - 1.0) <= 1e-13
    assert len(quadrature_nodes(5.0, 1e-3)) < 250  # a typical row's lattice


@pytest.mark.parametrize("kernels", list(KERNEL_MODULES.values()), ids=list(KERNEL_MODULES))
@pytest.mark.parametrize("scale", [1e-6, 1e3, 1e8])
def test_far_and_near_points_keep_the_enumerated_value(kernels, scale):
    """Tiny weights (points far apart) and weights near 1 (a collapsed map).

    Far apart every phi is about 1/d^2; the rows are rescaled so the
    quadrature still sees arguments of order 1.  Plain enumeration loses
    nothing there, so it stays the reference.
    """
    P, Y = _tiny_problem(5, seed=8, scale=scale)
    Y[0] *= 50.0  # one point much farther than the others
    M = sp.csr_matrix(P)
    triplet = (M.indptr.astype(np.int64), M.indices.astype(np.int64), M.data)
    want_cost, want_grad = _enumerated(P, Y, 2)
    grad = np.zeros_like(Y)
    kernels.infonce_gradient(*triplet, Y, 2.0, grad, 1)
    assert kernels.infonce_cost(*triplet, Y, 2.0, 1) == pytest.approx(want_cost, rel=1e-11)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-9, atol=1e-12 * np.abs(want_grad).max())


@pytest.mark.parametrize("kernels", list(KERNEL_MODULES.values()), ids=list(KERNEL_MODULES))
def test_group_coefficients_are_the_sample_loss_gradient(kernels):
    """c_a (y_i - y_j) + sum_l c_l (y_i - y_kl) = -d loss/d y_i, a negative drawn twice included."""
    from types import SimpleNamespace

    rng = np.random.default_rng(2)
    Y = rng.normal(size=(5, 2))
    i, rows = 0, [1, 3, 3, 4]  # the positive, then the negatives (3 twice)

    def loss(yi):
        phi = [1.0 / (1.0 + np.sum((yi - Y[k]) ** 2)) for k in rows]
        return -np.log(phi[0]) + np.log(sum(phi))

    h = 1e-6
    numeric = np.array([(loss(Y[i] + h * e) - loss(Y[i] - h * e)) / (2 * h) for e in np.eye(2)])
    problem = SimpleNamespace(coefficient="infonce", n_others=4, params=(3.0,))
    c = np.empty(4)
    kernels.sgd_group_coefficients(problem, np.sum((Y[i] - Y[rows]) ** 2, axis=1), c)
    np.testing.assert_allclose(c @ (Y[i] - Y[rows]), -numeric, rtol=1e-7)
    with pytest.raises(ValueError, match="grouped"):
        kernels.sgd_coefficients(problem, np.ones(3), 0.0, 3.0, np.empty((4, 3)))


@pytest.mark.parametrize("kernels", list(KERNEL_MODULES.values()), ids=list(KERNEL_MODULES))
@pytest.mark.parametrize("d2,out", [
    (np.ones(4), np.empty(1)),          # out shorter than d2: written past its end
    (np.ones(2), np.empty(4)),          # out longer
    (np.empty(0), np.empty(0)),         # no positive pair at all
    (np.ones((2, 2)), np.empty((2, 2))),
    (np.ones(3, dtype=np.float32), np.empty(3)),
    ([1.0, 2.0], np.empty(2)),
])
def test_grouped_coefficients_refuse_arrays_of_other_shapes(kernels, d2, out):
    from types import SimpleNamespace

    problem = SimpleNamespace(coefficient="infonce", n_others=10, params=(3.0,))
    guard = np.full(8, -99.0)
    size = out.size if out.ndim == 1 else 0
    if out.ndim == 1:
        guard[:size] = 0.0
        out = guard[:size]  # a view: anything written past it lands in guard
    with pytest.raises(ValueError, match="d2|out"):
        kernels.sgd_group_coefficients(problem, d2, out)
    assert np.all(guard[size:] == -99.0)


@pytest.mark.filterwarnings("ignore::smallvis.SmallDataWarning")
@pytest.mark.parametrize("rate", [0, 0.5, 2.5, -1, 1001, float("nan"), "5"])
def test_negative_sample_rate_must_be_a_whole_number_of_negatives(rate):
    P, Y = _tiny_problem()
    with pytest.raises((ParameterError, TypeError), match="negative_sample_rate"):
        smallvis.cost_and_gradient("infonce", P, Y, negative_sample_rate=rate)
    with pytest.raises((ParameterError, TypeError), match="negative_sample_rate"):
        smallvis.embed(np.random.default_rng(0).normal(size=(30, 3)), "infonce",
                       negative_sample_rate=rate, n_epochs=2)


def test_auto_runs_the_stochastic_form_at_every_size():
    m = METHODS["infonce"]
    assert m.sgd.auto_min_n == 0
    assert sgd.choose_optimizer(m, "auto", 20) == "sgd"
    assert sgd.choose_optimizer(m, "exact", 20) == "exact"


@pytest.mark.filterwarnings("ignore::smallvis.SmallDataWarning")
def test_exact_cost_up_to_its_limit_and_a_row_estimate_above():
    """The final cost is exact up to exact_cost_max_n; above, a row-sampled estimate
    whose every-row form is the exact cost and whose sample is unbiased."""
    from smallvis.engines.sampled_cost import RowSampledCost

    X = np.random.default_rng(5).normal(size=(60, 4))
    fit = smallvis.embed(X, "infonce", n_epochs=5, random_state=0, return_result=True)
    assert fit.cost_kind == "exact" and 60 <= METHODS["infonce"].sgd.exact_cost_max_n
    cost, _ = smallvis.cost_and_gradient("infonce", fit.P, fit.Y)
    assert fit.cost == pytest.approx(cost, rel=1e-12)
    every_row = RowSampledCost(_kernels.infonce_cost, (5.0,), _triplet(fit.P), 60, 1)
    assert every_row.exact and every_row(fit.Y) == pytest.approx(cost, rel=1e-12)
    # the mean of the estimates over disjoint samples that cover the rows is the cost
    triplet = _triplet(fit.P)
    row_costs = [reference.infonce_cost(*_rows_only(triplet, [r], 60), fit.Y, 5.0, 1)
                 for r in range(60)]
    assert sum(row_costs) == pytest.approx(cost, rel=1e-12)
    some = RowSampledCost(_kernels.infonce_cost, (5.0,), triplet, 60, 1, n_rows_sampled=20)
    assert not some.exact
    assert some(fit.Y) == pytest.approx(60 / 20 * sum(row_costs[r] for r in some.rows),
                                        rel=1e-12)


def _rows_only(triplet, rows, n):
    indptr, indices, data = triplet
    keep = np.zeros(len(data), dtype=bool)
    for r in rows:
        keep[indptr[r]:indptr[r + 1]] = True
    counts = np.array([indptr[r + 1] - indptr[r] if r in rows else 0 for r in range(n)])
    return (np.concatenate([[0], np.cumsum(counts)]).astype(np.int64), indices[keep],
            data[keep])


def _triplet(P):
    M = sp.csr_matrix(P)
    return M.indptr.astype(np.int64), M.indices.astype(np.int64), M.data
