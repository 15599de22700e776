"""New points placed over their row and their column (``Method.placed_with_column``).

The column kernels (``normalised_column_transform_cost`` and its gradient)
add to a new point's own row the terms it brings to the fixed points' rows,
with those rows' normalisers and offsets held
(:func:`smallvis.backends.reference.normalised_column_transform_cost`).
"""

import numpy as np
import pytest
import scipy.sparse as sp

from smallvis.backends import _kernels, reference
from smallvis.backends.reference.transform import fixed_row_sums
from smallvis.registry import METHODS

from conftest import example_params
from test_gradients import central_differences

#: every method placed over its row and column, at each registry example
CASES = [(name, i) for name, m in METHODS.items() if m.placed_with_column
         for i in range(len(m.examples))]


def _unit(name, i):
    m = METHODS[name]
    prefix, args = m.kernel_name(example_params(name, 25)[i])
    return m.normalised_units[prefix](*args)


def _problem(rng, m=6, n=25, dim=2, density=0.3, scale=1.0):
    """New rows and columns of P, a training map and its own P (rows summing to 1)."""
    P = sp.random(m, n, density=density, random_state=rng, format="csr")
    P.data = 0.05 + 0.9 * rng.random(P.nnz)
    P.sort_indices()
    column = 0.05 + 0.9 * rng.random(P.nnz)
    triplet = (P.indptr.astype(np.int64), P.indices.astype(np.int64), P.data.copy())
    Y = rng.normal(scale=scale, size=(m, dim))
    Y_train = rng.normal(scale=scale, size=(n, dim))
    P_train = rng.random((n, n)) * (rng.random((n, n)) < 0.4)
    np.fill_diagonal(P_train, 0.0)
    P_train[np.arange(n), (np.arange(n) + 1) % n] += 0.1
    P_train /= P_train.sum(axis=1, keepdims=True)
    return triplet, column, Y, Y_train, P_train


def test_some_method_is_placed_over_its_column():
    assert CASES


@pytest.mark.parametrize("name,i", CASES)
@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("dim,scale", [(1, 1.0), (2, 0.5), (2, 2.0), (3, 1.0)])
def test_column_gradient_matches_finite_differences(name, i, fast, dim, scale, rng):
    unit = _unit(name, i)
    module = _kernels if fast else reference
    triplet, column, Y, Y_train, P_train = _problem(rng, dim=dim, scale=scale)
    fixed = fixed_row_sums(unit, P_train, Y_train)
    grad = np.zeros_like(Y)
    module.normalised_column_transform_gradient(unit, *triplet, Y, Y_train, column, fixed,
                                                grad, 1)
    fd = central_differences(lambda Yc: module.normalised_column_transform_cost(
        unit, *triplet, Yc, Y_train, column, fixed, 1), Y)
    assert np.abs(grad).max() > 1e-6
    np.testing.assert_allclose(grad, fd, rtol=0, atol=1e-6 * np.abs(grad).max())


@pytest.mark.parametrize("name,i", CASES)
@pytest.mark.parametrize("n_threads", [1, 2])
def test_column_twins_agree(name, i, n_threads, rng):
    unit = _unit(name, i)
    for dim, density, scale in [(1, 1.0, 1.0), (2, 0.3, 1.0), (3, 0.1, 1.0), (2, 0.3, 30.0)]:
        triplet, column, Y, Y_train, P_train = _problem(rng, m=9, n=40, dim=dim,
                                                        density=density, scale=scale)
        Y_train[3] = Y[2]  # a coincident pair: no force, finite cost
        fixed = fixed_row_sums(unit, P_train, Y_train)
        out = {}
        for module in (reference, _kernels):
            grad = np.zeros_like(Y)
            module.normalised_column_transform_gradient(unit, *triplet, Y, Y_train, column,
                                                        fixed, grad, n_threads)
            out[module] = (module.normalised_column_transform_cost(
                unit, *triplet, Y, Y_train, column, fixed, n_threads), grad)
        (c_ref, g_ref), (c_fast, g_fast) = out[reference], out[_kernels]
        assert np.isfinite(c_ref) and np.all(np.isfinite(g_ref))
        assert c_fast == pytest.approx(c_ref, rel=1e-10, abs=1e-12)
        np.testing.assert_allclose(g_fast, g_ref, rtol=1e-10, atol=1e-10 * np.abs(g_ref).max())


@pytest.mark.parametrize("name,i", CASES[:1])
def test_a_new_point_feels_only_the_fixed_rows(name, i, rng):
    """Row s of the gradient is the same alone as in a batch (no new-new pairs)."""
    unit = _unit(name, i)
    triplet, column, Y, Y_train, P_train = _problem(rng, m=5)
    fixed = fixed_row_sums(unit, P_train, Y_train)
    P = sp.csr_matrix((triplet[2], triplet[1], triplet[0]), shape=(5, Y_train.shape[0]))
    C = sp.csr_matrix((column, triplet[1], triplet[0]), shape=P.shape)
    for module in (reference, _kernels):
        grad = np.zeros_like(Y)
        module.normalised_column_transform_gradient(unit, *triplet, Y, Y_train, column, fixed,
                                                    grad, 1)
        row, col = P[2], C[2]
        one = np.zeros((1, Y.shape[1]))
        module.normalised_column_transform_gradient(
            unit, row.indptr.astype(np.int64), row.indices.astype(np.int64), row.data,
            Y[2:3].copy(), Y_train, col.data, fixed, one, 1)
        np.testing.assert_allclose(one[0], grad[2], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name,i", CASES[:1])
def test_the_column_is_the_fit_s_terms_to_first_order(name, i, rng):
    """Adding a point to the fixed rows changes their exact cost by the column, to O(q^2).

    The exact cost of the training rows with the new point among them, each
    row normalised again (no term held), against the rows without it: the
    difference is the column's cost, up to the second order in the new
    point's weights, which shrink as the fixed rows grow.
    """
    unit = _unit(name, i)
    n, dim = 60, 2
    Y_train = rng.normal(size=(n, dim))
    P_train = rng.random((n, n))
    np.fill_diagonal(P_train, 0.0)
    P_train /= P_train.sum(axis=1, keepdims=True)
    y = rng.normal(size=(1, dim))
    column = 0.01 * rng.random(n)  # p_{s|j}, small as one entry of a row of 61
    fixed = fixed_row_sums(unit, P_train, Y_train)

    def rows_cost(P, Y):
        D2 = ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)
        np.fill_diagonal(D2, np.inf)
        D2 = D2[:n]  # the training rows
        log_w = unit.log_weight(D2)
        log_Q = log_w - np.logaddexp.reduce(log_w, axis=1, keepdims=True)
        return unit.cost(P, np.exp(log_Q), log_Q)

    # the fixed rows with s appended as column n (their own entries of P unchanged)
    P_with = np.zeros((n + 1, n + 1))
    P_with[:n, :n] = P_train
    P_with[:n, n] = column
    Y_with = np.vstack([Y_train, y])
    exact = rows_cost(P_with[:n], Y_with) - rows_cost(P_train, Y_train)
    # the column alone: the column kernel without the new point's own row
    triplet = (np.array([0, n], dtype=np.int64), np.arange(n, dtype=np.int64), np.zeros(n))
    row_only = reference.normalised_transform_cost(unit, *triplet, y, Y_train, 1)
    col = reference.normalised_column_transform_cost(unit, *triplet, y, Y_train, column,
                                                    fixed, 1) - row_only
    assert col == pytest.approx(exact, rel=0.05, abs=1e-3 * abs(exact))


@pytest.mark.parametrize("module", [reference, _kernels], ids=["numpy", "cython"])
def test_the_entry_selects_the_column_kernels(module):
    for name, m in METHODS.items():
        if m.placed_with_column:
            assert m.normalised_units  # the column is written for normalised rows
            cost, gradient, args = m.kernels(module, example_params(name, 25)[0],
                                             family="column_transform")
            assert cost.__name__ == "normalised_column_transform_cost"
            assert gradient.__name__ == "normalised_column_transform_gradient"
