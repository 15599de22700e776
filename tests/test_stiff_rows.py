"""The "auto" learning rate within reach of P's stiffest row.

A row of P that many others count as a neighbour (a hub) is pulled by its
exaggerated attraction far harder than the average row; a floored "auto"
rate (t-SNE's 50) threw such rows past their neighbours and the map apart
(docs/theory.md §5; docs/experiments.md, 2026-12-06).
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
from smallvis.plans import STIFFEST_ROW_STEP, stiffest_row_learning_rate


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
    return stiffest_row_learning_rate(rate, exaggeration, n, triplet,
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
