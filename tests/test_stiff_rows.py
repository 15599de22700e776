"""The "auto" learning rate within reach of P's stiffest row, and each row's own step.

A row of P that many others count as a neighbour (a hub) is pulled by its
exaggerated attraction far harder than the average row; a floored "auto"
rate (t-SNE's 50) threw such rows past their neighbours and the map apart,
and where the rate cannot be lowered enough for them (not below the
average row's) the stiffest rows take a smaller step of their own
(docs/theory.md §5; docs/experiments.md, 2026-12-06).
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
from smallvis import plans
from smallvis.engines.optim import OptimizerSettings, optimize_exact
from smallvis.plans import (HUB_RATIO, ROW_STEP, STIFFEST_ROW_STEP, _RowDamping,
                            absolute_row_sums, stiffest_row_learning_rate)


def documents_of_unequal_length(n=400, n_words=2000, mean_words=20, seed=1):
    """Random word counts (1 to 4) in rows of Poisson length: in Euclidean
    distance the short rows are near every row, so P has hub rows."""
    rng = np.random.default_rng(seed)
    lengths = np.maximum(rng.poisson(mean_words, size=n), 1)
    indices = np.concatenate([np.sort(rng.choice(n_words, k, replace=False))
                              for k in lengths])
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    counts = rng.integers(1, 5, size=indices.size).astype(float)
    return sp.csr_matrix((counts, indices, indptr), shape=(n, n_words))


def csr_triplet(P):
    P = sp.csr_matrix(P)
    return P.indptr, P.indices, P.data


def lowered(rate, exaggeration, n, P):
    triplet = csr_triplet(P)
    return stiffest_row_learning_rate(rate, exaggeration, n, absolute_row_sums(triplet),
                                      float(np.sum(np.abs(triplet[2]))))


def test_a_rate_at_or_below_the_average_rows_is_kept():
    # 100 rows that each sum to 1/100: the average row is every row
    P = np.full((100, 100), 1.0 / 100**2)
    average_row = 100 / (4 * 12 * 1.0)
    for rate in (0.5 * average_row, average_row):
        assert lowered(rate, 12.0, 100, P) == rate


def test_the_rate_of_a_p_that_sums_to_1_to_rounding_keeps_its_bits():
    # above 2,400 points t-SNE's rate is N / 48, the average row's, and a
    # sum of P a rounding above 1 must not lower it by a rounding, even
    # with a stiff row (here row and column 0, about 100 times the average)
    n = 3000
    rng = np.random.default_rng(0)
    P = sp.random(n, n, density=0.01, random_state=rng, format="lil")
    P[0, :] = 1.0
    P = sp.csr_matrix(P + P.T)
    P.data /= P.data.sum()
    P.data *= 1.0 + 4e-16
    rate = n / 48
    assert lowered(rate, 12.0, n, P) == rate


@pytest.mark.parametrize("hub_share", [0.05, 0.2, 0.5])
def test_a_lowered_rate_keeps_the_stiffest_row_in_reach_or_stops_at_the_average_row(hub_share):
    n, exaggeration = 200, 12.0
    rng = np.random.default_rng(0)
    P = rng.random((n, n))
    P[0, :] += hub_share * P.sum() / n  # row 0 (and column 0): a hub
    P[:, 0] += hub_share * P.sum() / n
    P /= P.sum()
    rate = lowered(50.0, exaggeration, n, P)
    largest = P.sum(axis=1).max()
    average_row = n / (4 * exaggeration)
    assert average_row <= rate < 50.0
    assert (rate * 4 * exaggeration * largest <= STIFFEST_ROW_STEP * (1 + 1e-12)
            or rate == pytest.approx(average_row, rel=1e-12))


@pytest.mark.parametrize("name", ["iris", "digits"])
def test_t_snes_rate_on_the_panels_small_sets_is_the_floor_unchanged(name):
    X = smallvis.datasets.load(name)[0]
    result = smallvis.embed(X, "tsne", n_iter=0, random_state=0, return_result=True)
    assert result.params["learning_rate"] == 50.0


def test_a_rate_given_by_the_user_is_kept_on_hub_rows():
    S = documents_of_unequal_length()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = smallvis.embed(S, "tsne", n_iter=0, learning_rate=50.0, random_state=0,
                                return_result=True)
    assert result.params["learning_rate"] == 50.0


def test_t_snes_default_map_of_documents_with_hub_rows_stays_together():
    # At the floor of 50 three seeds of six ended at higher costs (2.38,
    # 2.26, 1.99 against 1.81), two of them 125 and 29 units wide; within
    # the stiffest row's reach (a rate of 10.7) all six reach 1.81.
    S = documents_of_unequal_length()
    spans, costs = [], []
    for seed in range(6):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = smallvis.embed(S, "tsne", random_state=seed, return_result=True)
        assert result.params["learning_rate"] < 50.0
        spans.append(np.ptp(result.Y))
        costs.append(result.cost)
    assert max(spans) < 20.0, spans
    assert max(costs) - min(costs) < 0.02, costs


def documents_with_empty_rows(n, n_empty, seed):
    """Word counts of about 15 words from 2,000 in three topics, ``n_empty``
    rows empty, as a dense array: in Euclidean distance the empty rows are
    every short row's nearest neighbours, each holding a large share of P."""
    rng = np.random.default_rng(seed)
    topic = np.arange(n) % 3
    X = np.zeros((n, 2000))
    for i in range(n):
        p = np.full(2000, 0.2 / 2000)
        p[topic[i] * 600:(topic[i] + 1) * 600] += 0.8 / 600
        X[i] = np.bincount(rng.choice(2000, size=rng.poisson(15), p=p), minlength=2000)
    X[rng.choice(n, n_empty, replace=False)] = 0.0
    return X


def test_only_exaggerated_rows_beyond_the_limit_are_damped_and_to_the_limit():
    n, rate = 50, 10.0
    rng = np.random.default_rng(1)
    P = rng.random((n, n))
    P[0, :] += 2.0 * P.sum() / n  # row 0 about a hundred times the others
    P /= P.sum()
    row_sums = P.sum(axis=1)
    damping = _RowDamping(absolute_row_sums(csr_triplet(P)))
    # the exaggeration at which row 0 (only) reaches the limit
    at_limit = ROW_STEP / (4 * rate * row_sums[0])
    assert (4 * rate * at_limit * row_sums[1:]).max() < ROW_STEP
    assert damping(0.9 * at_limit, rate) is None
    factors = damping(2.0 * at_limit, rate)
    assert factors.shape == (n, 1)
    assert factors[0, 0] == pytest.approx(0.5, rel=1e-12)
    assert np.all(factors[1:] == 1.0)
    # the rate in use counts as the exaggeration does: half the rate, no damping
    assert damping(2.0 * at_limit, rate / 2.0) is None
    # iterations without exaggeration keep every row's step, however stiff
    assert damping(1.0, 1e6) is None
    assert damping(1.5, 1e6) is not None


def rows_weighted(weights, seed=0):
    """A P (summing to 1) whose row i sums to weights[i] / sum(weights)."""
    weights = np.asarray(weights, dtype=float)
    P = np.random.default_rng(seed).random((weights.size, weights.size))
    P *= (weights / P.sum(axis=1))[:, None]
    return P / P.sum()


def test_every_damped_row_steps_at_the_limit_and_the_others_keep_their_step():
    # rows 100, 30, 20 and 10 times as stiff as the 46 others; at a product
    # of 1 for those, the limit is ROW_STEP (24): rows 0 and 1 are damped
    P = rows_weighted([100, 30, 20, 10] + [1] * 46)
    damping = _RowDamping(absolute_row_sums(csr_triplet(P)))
    rate = 1.0
    exaggeration = 1.0 / (4 * rate * P.sum(axis=1)[-1])
    product = 4 * exaggeration * rate * P.sum(axis=1)
    assert product[-1] == pytest.approx(1.0) and ROW_STEP == 24.0
    factors = damping(exaggeration, rate)[:, 0]
    np.testing.assert_allclose(factors * product, np.minimum(product, 24.0), rtol=1e-12)
    assert np.all(factors[2:] == 1.0) and np.all(factors[:2] < 1.0)
    assert damping.most == 2


def test_rows_about_as_stiff_as_the_median_row_are_not_damped():
    # small sets at t-SNE's floor: every row near the product the rate's
    # rule allows (48), above ROW_STEP, yet no row is a hub
    P = rows_weighted([1.0, 0.9, 1.1, 1.05, 0.95] * 10)
    damping = _RowDamping(absolute_row_sums(csr_triplet(P)))
    exaggeration = 48.0 / (4 * P.sum(axis=1).max())
    assert damping(exaggeration, 1.0) is None
    # a hub among them is damped to twice the median row's product (HUB_RATIO),
    # the larger limit here, and the others keep their step
    P = rows_weighted([40.0] + [1.0, 0.9, 1.1, 1.05, 0.95] * 10)
    damping = _RowDamping(absolute_row_sums(csr_triplet(P)))
    product = 4 * exaggeration * P.sum(axis=1)
    limit = 2.0 * np.median(product)
    assert HUB_RATIO == 2.0 and limit > ROW_STEP
    factors = damping(exaggeration, 1.0)[:, 0]
    assert factors[0] * product[0] == pytest.approx(limit, rel=1e-12)
    assert np.all(factors[1:] == 1.0)


def test_a_damped_row_steps_as_with_a_rate_of_its_own():
    # scaling a row's gradient is giving that row its own rate: the gains
    # see the gradient's signs only
    rng = np.random.default_rng(2)
    Y0 = rng.standard_normal((6, 2))
    stiffness = np.array([1.0, 1.0, 40.0, 1.0, 3.0, 1.0])
    factors = np.array([1.0, 1.0, 0.25, 1.0, 0.5, 1.0])
    settings = OptimizerSettings(learning_rate=0.1, n_iter=20, exaggeration=1.0,
                                 exaggeration_iter=0, recover=False, tol=0.0,
                                 check_collapse=False, recentre=False)

    def cost(Y, learned):
        return float(np.sum(stiffness[:, None] * (Y - 1.0) ** 2))

    def gradient(Y, learned, exaggeration, out, scale=None):
        out[...] = 2.0 * stiffness[:, None] * (Y - 1.0)
        if scale is not None:
            out *= scale[:, None]

    by_rows = Y0.copy()
    optimize_exact(by_rows, gradient, cost, settings, row_learning_rate=0.1 * factors)
    by_gradient = Y0.copy()
    optimize_exact(by_gradient, lambda Y, L, e, out: gradient(Y, L, e, out, factors),
                   cost, settings)
    by_damping = Y0.copy()
    optimize_exact(by_damping, gradient, cost, settings,
                   row_damping=lambda exaggeration, rate: factors[:, None])
    assert not np.allclose(by_rows, Y0)
    np.testing.assert_allclose(by_gradient, by_rows, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(by_damping, by_rows, rtol=1e-12, atol=1e-14)


def test_the_damping_is_asked_with_each_phases_exaggeration_and_rate():
    asked = []
    settings = OptimizerSettings(learning_rate=0.1, n_iter=12, exaggeration=4.0,
                                 exaggeration_iter=3, late_exaggeration=2.0,
                                 late_exaggeration_iter=8, late_learning_rate=0.025,
                                 tol=0.0, check_collapse=False, cost_every=None)
    optimize_exact(np.ones((3, 2)) + np.arange(6).reshape(3, 2), lambda Y, L, e, out: out.fill(1.0),
                   None, settings, row_damping=lambda e, rate: asked.append((e, rate)))
    assert asked == [(4.0, 0.1)] * 3 + [(1.0, 0.1)] * 5 + [(2.0, 0.025)] * 4


def test_a_rate_given_by_the_user_damps_no_row(monkeypatch):
    made = []

    class Recorded(_RowDamping):
        def __init__(self, row_sums):
            made.append(row_sums)
            super().__init__(row_sums)

    monkeypatch.setattr(plans, "_RowDamping", Recorded)
    X = documents_with_empty_rows(100, 2, seed=0)
    given = smallvis.embed(X, "tsne", n_iter=5, learning_rate=10.0, random_state=0,
                           return_result=True)
    assert made == []
    assert given.params["rows_damped"] == 0
    auto = smallvis.embed(X, "tsne", n_iter=5, random_state=0, return_result=True)
    assert len(made) == 1
    assert auto.params["rows_damped"] > 0


@pytest.mark.parametrize("method, n, n_empty, seed", [
    ("tsne", 500, 3, 142), ("tsne", 300, 2, 104), ("tsne", 800, 5, 109), ("dhssne", 300, 2, 124)])
def test_default_maps_of_documents_with_empty_rows_stay_together(method, n, n_empty, seed):
    # Without each row's own step these default maps ended 59 to 161 units
    # wide with their topics mixed; with it, none of 260 such sets for
    # t-SNE (11 without) nor of 100 for dhssne (11 without)
    X = documents_with_empty_rows(n, n_empty, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = smallvis.embed(X, method, random_state=0, n_threads=1, return_result=True)
    assert np.ptp(result.Y) < 20.0
