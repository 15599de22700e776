"""Neg-t-SNE checked against what is written here, not against its own unit.

The loss is written from scratch pair by pair (docs/theory.md §3.10): a data
pair costs ``-log(phi / (phi + c))``, a noise pair ``-log(c / (phi + c))``,
``phi = 1 / (1 + d^2)``, ``c = z_bar m / (N (N - 1))``.  Also: the stochastic
form takes a whole number of negatives, and the exact and the stochastic
transform place a new point against the same ``c`` (``xi = 1 / (N (N + 1))``).
"""

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
from smallvis._validation import ParameterError
from smallvis.backends import reference
from smallvis.engines.sgd import prepare_frozen
from smallvis.methods.negtsne.unit import NegTSNEUnit
from smallvis.registry import METHODS

from conftest import KERNEL_MODULES

Z_BAR, M = 7.0, 3.0


def _tiny_problem():
    P = np.array([[0.0, 3.0, 1.0, 0.0, 0.5],
                  [3.0, 0.0, 2.0, 0.0, 0.0],
                  [1.0, 2.0, 0.0, 1.5, 0.0],
                  [0.0, 0.0, 1.5, 0.0, 2.5],
                  [0.5, 0.0, 0.0, 2.5, 0.0]])
    Y = np.array([[0.0, 0.0], [0.7, -0.2], [1.1, 0.9], [-0.4, 1.6], [-1.2, -0.5]])
    return P / P.sum(), Y


def _loss_by_hand(P, Y, z_bar, m):
    """The negative-sampling loss, one ordered pair at a time, in plain Python."""
    n = len(Y)
    xi = 1.0 / (n * (n - 1))
    c = z_bar * m * xi
    total = 0.0
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            d2 = sum((Y[i][k] - Y[j][k]) ** 2 for k in range(len(Y[i])))
            phi = 1.0 / (1.0 + d2)
            total += -P[i][j] * np.log(phi / (phi + c))  # a data pair
            total += -m * xi * np.log(c / (phi + c))  # a noise pair
    return total


@pytest.mark.parametrize("fast", [False, True])
def test_cost_and_gradient_are_the_loss_written_pair_by_pair(fast):
    P, Y = _tiny_problem()
    cost, grad = smallvis.cost_and_gradient("negtsne", P, Y, fast=fast, z_bar=Z_BAR,
                                            negative_sample_rate=M)
    np.testing.assert_allclose(cost, _loss_by_hand(P, Y, Z_BAR, M), rtol=1e-12)
    h = 1e-6
    numeric = np.zeros_like(Y)
    for i in range(Y.shape[0]):
        for k in range(Y.shape[1]):
            up, down = Y.copy(), Y.copy()
            up[i, k] += h
            down[i, k] -= h
            numeric[i, k] = (_loss_by_hand(P, up, Z_BAR, M)
                             - _loss_by_hand(P, down, Z_BAR, M)) / (2 * h)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("rate", [0.3, 1.4, 2.5, 0.0, 1001.0])
def test_the_stochastic_form_takes_a_whole_number_of_negatives(rate):
    with pytest.raises(ParameterError, match="negative_sample_rate") as info:
        METHODS["negtsne"].sgd.unit_params(z_bar=100.0, negative_sample_rate=rate)
    assert info.value.options == ("negative_sample_rate",)


def test_whole_rates_run_stochastic_and_fractional_ones_exact():
    fields = METHODS["negtsne"].sgd.unit_params(z_bar=100.0, negative_sample_rate=2.0)
    assert fields == {"z_bar": 100.0, "m": 2.0, "n_negative": 2.0}
    X = np.random.default_rng(0).normal(size=(30, 4))
    with pytest.raises(ValueError, match="whole number"):
        smallvis.embed(X, "negtsne", optimizer="sgd", negative_sample_rate=2.5,
                       n_epochs=5, random_state=0, n_neighbors=5)
    Y = smallvis.embed(X, "negtsne", negative_sample_rate=2.5, n_iter=20, random_state=0,
                       n_neighbors=5)
    assert np.isfinite(Y).all()


def test_exact_and_stochastic_transform_use_the_same_c(rng):
    n_ref, n_new = 20, 3
    c_expected = Z_BAR * M / (n_ref * (n_ref + 1.0))  # xi = 1 / (N (N + 1))
    # the exact transform: a new point without affinities costs only its
    # noise pairs, gamma log(1 + 1 / (c (1 + d^2))) to each reference point
    Y_train = rng.normal(size=(n_ref, 2))
    Y_new = rng.normal(size=(1, 2))
    d2 = ((Y_new - Y_train) ** 2).sum(axis=1)
    by_hand = np.sum(M / (n_ref * (n_ref + 1.0)) * np.log1p(1.0 / (c_expected * (1.0 + d2))))
    empty = (np.zeros(2, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0))
    for module in KERNEL_MODULES.values():
        cost = module.pair_transform_cost(NegTSNEUnit(Z_BAR, M), *empty, Y_new, Y_train, 1)
        np.testing.assert_allclose(cost, by_hand, rtol=1e-12)
    # the stochastic transform: c_a = -2 c / (1 + c) at d = 0
    spec = METHODS["negtsne"].sgd
    P_new = sp.random(n_new, n_ref, density=0.3, random_state=0, format="csr")
    problem = prepare_frozen(spec, P_new, 3, spec.unit_params(z_bar=Z_BAR,
                                                                negative_sample_rate=M),
                             np.arange(n_new, dtype=np.int64))
    for module in KERNEL_MODULES.values():
        out = np.zeros((4, 1))
        module.sgd_coefficients(problem, np.zeros(1), 0.0, M, out)
        c_sgd = -out[0, 0] / (2.0 + out[0, 0])
        np.testing.assert_allclose(c_sgd, c_expected, rtol=1e-12)


def test_the_fit_keeps_xi_of_n_minus_one_points():
    # the fit's c is z_bar m / (N (N - 1)) in both twins' loaders (by hand here)
    P, Y = _tiny_problem()
    n = len(Y)
    c = Z_BAR * M / (n * (n - 1.0))
    gamma = M / (n * (n - 1.0))
    d2 = reference._squared_distances(Y)
    off = ~np.eye(n, dtype=bool)
    by_hand = np.sum((P * np.log1p(c * (1 + d2)) + gamma * np.log1p(1 / (c * (1 + d2))))[off])
    triplet = (np.arange(0, n * n + 1, n, dtype=np.int64),
               np.tile(np.arange(n, dtype=np.int64), n), P.ravel())
    for module in KERNEL_MODULES.values():
        np.testing.assert_allclose(module.pair_cost(NegTSNEUnit(Z_BAR, M), *triplet, Y, 1),
                                   by_hand, rtol=1e-12)
