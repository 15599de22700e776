"""Data whose entries span more orders of magnitude than float64 can square in one unit.

Every path measures X in the units of its largest entry (docs/reliability.md
§1).  One entry of 1e200 among entries near 1 leaves the other rows'
squared distances at 0 there: their neighbours would be chosen by index.
Such data are refused by name; data that stay within range get the
neighbours and P they would get without the outlying entry.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
from smallvis.inputs.affinities import conditional_perplexity
from smallvis.inputs.neighbors import nearest_neighbors
from smallvis.backends import reference


def _iris_with(entry):
    X, _ = smallvis.datasets.load("iris")
    X = X.copy()
    X[0, 0] = entry
    return X


SEARCHES = {
    "exact": lambda X: nearest_neighbors(X, 10, method="exact"),
    "annoy": lambda X: nearest_neighbors(X, 10, method="annoy", random_state=0),
    "sparse": lambda X: nearest_neighbors(sp.csr_matrix(X), 10),
    "dense P": lambda X: smallvis.affinities(X, "tsne"),
    "embed": lambda X: smallvis.embed(X, "umap", n_epochs=5, random_state=0),
}


@pytest.mark.parametrize("entry", [1e200, 1e160, -1e180])
@pytest.mark.parametrize("path", sorted(SEARCHES))
def test_an_entry_beyond_float64_s_squares_is_refused_by_name(entry, path):
    with pytest.raises(ValueError, match="orders of magnitude.*row 1.*standardise"):
        SEARCHES[path](_iris_with(entry))


def test_an_outlying_entry_within_range_leaves_the_other_rows_alone():
    """At 1e140 the other rows' squares stay normal: their neighbours are those of the
    data without that row, and each row but the outlier is calibrated to its perplexity."""
    X = _iris_with(1e140)
    rest, _ = nearest_neighbors(X[1:], 10, method="exact")
    found, _ = nearest_neighbors(X, 10, method="exact")
    np.testing.assert_array_equal(found[1:], rest + 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        P, _ = conditional_perplexity(X, 30.0, reference)
    failed = [str(w.message) for w in caught if "did not converge" in str(w.message)]
    assert len(failed) <= 1 and ("for 1 of 150" in failed[0] if failed else True)
    P_rest, _ = conditional_perplexity(X[1:], 30.0, reference)
    np.testing.assert_allclose(P[1:, 1:], P_rest, rtol=0, atol=1e-4)


def test_near_duplicates_are_not_refused():
    """A pair closer than float64 can square is a duplicate there, not an error."""
    X, _ = smallvis.datasets.load("iris")
    X = np.vstack([X, X[:5] + 1e-170])
    idx, dist = nearest_neighbors(X, 5, method="exact")
    assert np.all(np.isfinite(dist)) and dist[0, 0] == 0.0
    assert np.all(np.isfinite(smallvis.affinities(X, "tsne")))
