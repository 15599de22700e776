"""NCVis from tiny starts and on small data: a map, or a warning that says why not.

NCVis's output weight is UMAP's curve with ``b = 1.22 > 1`` (``min_dist =
0.4``) and its gradient has no ε: the force between two points falls like
``d ** (2b - 1)``, faster than their distance.  Points very close together
therefore barely push apart.  A stochastic run from a start far below the
kernel's unit scale cannot spread in its epochs, and the exact optimizer
can pull points onto one spot; both now warn, and a named initialisation
that puts distinct points with equal neighbourhoods at one spot parts them.
"""

import warnings

import numpy as np
import pytest
from scipy.spatial.distance import pdist

import smallvis
from smallvis.plans import warn_if_points_merged
from smallvis.engines.init import initialize, power_iteration_layout

IRIS = smallvis.datasets.load("iris")[0]
IRIS60 = IRIS[np.argsort(np.arange(150) % 50, kind="stable")[:60]]  # 20 of each


def _record(fn, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args, **kwargs)
    return out, [w for w in caught if not issubclass(w.category, smallvis.SmallDataWarning)]


def _one_dot_pairs(Y):
    """Pairs closer than 1e-6 of the map's span: one dot in any figure."""
    return int(np.sum(pdist(Y) <= 1e-6 * np.max(np.ptp(Y, axis=0))))


# -- case 1: a stochastic run from a start it cannot spread -------------------

@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("scale", [1e-7, 1e-8, 1e-20, 1e-150])
def test_a_stochastic_run_that_ends_unspread_warns_naming_init(scale, fast):
    init = np.random.default_rng(0).normal(size=(len(IRIS60), 2)) * scale
    Y, caught = _record(smallvis.embed, IRIS60, "ncvis", optimizer="sgd", init=init,
                        random_state=1, fast=fast, n_epochs=10)
    # (before, the points stayed at their start in silence)
    assert np.max(np.ptp(Y, axis=0)) < 1e-3  # every weight within 1e-6 of its value at 0
    messages = [str(w.message) for w in caught if w.category is RuntimeWarning]
    assert len(messages) == 1, messages
    assert "init" in messages[0] and "spans only" in messages[0]


@pytest.mark.parametrize("method", [name for name, m in smallvis.METHODS.items()
                                    if m.sgd is not None])
def test_a_stochastic_run_that_spreads_does_not_warn(method):
    init = np.random.default_rng(0).normal(size=(len(IRIS60), 2)) * 1e-4
    Y, caught = _record(smallvis.embed, IRIS60, method, optimizer="sgd", init=init,
                        random_state=1, n_epochs=20)
    assert caught == [] and np.max(np.ptp(Y, axis=0)) > 1.0


# -- case 2: small data with the default settings -----------------------------

def _small_data(n):
    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, 300))
    if n >= 20:
        X[: n // 2] += 3.0  # two groups
    return X


def test_a_power_init_that_puts_distinct_points_together_parts_them():
    # 3 points, one neighbour each: rows 0 and 2 have the same one neighbour
    # (row 1), so their rows of P, and of every power-iteration step P @ Y,
    # are equal; the gradient would then keep them together for good
    X = np.array([[0.0, 0.0], [1.0, 0.0], [2.1, 0.0]])
    P = np.array([[0.0, 0.25, 0.0], [0.25, 0.0, 0.25], [0.0, 0.25, 0.0]])
    raw = power_iteration_layout(P, 2, np.random.default_rng(0))
    assert np.array_equal(raw[0], raw[2])  # the degenerate start
    Y, caught = _record(initialize, "power", X, 2, np.random.default_rng(0), P=P)
    assert caught == []
    assert len(np.unique(Y, axis=0)) == 3
    np.testing.assert_array_equal(Y[:2], raw[:2])  # only the merged row moves
    step = np.abs(Y[2] - raw[2]) / raw.std(axis=0)
    assert np.all(step > 0) and np.all(step < 0.6)  # 0.1 sd steps, within 6 sigma


def test_a_named_init_may_put_equal_data_rows_together():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0]])
    P = np.array([[0.0, 0.25, 0.0], [0.25, 0.0, 0.25], [0.0, 0.25, 0.0]])
    Y, caught = _record(initialize, "power", X, 2, np.random.default_rng(0), P=P)
    assert np.array_equal(Y[0], Y[2]) and caught == []


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("n", [2, 3, 5, 10, 20])
def test_ncvis_defaults_on_small_data_keep_points_apart_or_warn(n, fast):
    X = _small_data(n)
    Y, caught = _record(smallvis.embed, X, "ncvis", fast=fast, random_state=0)
    assert np.all(np.isfinite(Y))
    if _one_dot_pairs(Y):
        messages = [str(w.message) for w in caught if "one spot" in str(w.message)]
        assert len(messages) == 1 and "min_dist" in messages[0], caught


def _one_spot_warnings(Y, X, cost_params):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn_if_points_merged(Y, X, cost_params, "ncvis")
    return [w for w in caught if "ended on one spot" in str(w.message)]


def test_merged_points_warn_from_their_share_of_the_map():
    """A constructed map, not a run: below the documented 2% share silent, from it on a warning."""
    X, _ = smallvis.datasets.load("iris")
    rows = np.unique(X, axis=0, return_index=True)[1]  # rows whose data differ
    Y = np.random.default_rng(0).normal(size=(len(X), 2))
    ncvis = {"min_dist": 0.4, "spread": 1.0}  # b > 1, no eps: the rule applies
    Y[rows[1:3]] = Y[rows[0]]  # 2 of 150 points merged onto another: 1.3%
    assert not _one_spot_warnings(Y, X, ncvis)
    Y[rows[3]] = Y[rows[0]]  # 3 of 150: 2%
    assert len(_one_spot_warnings(Y, X, ncvis)) == 1
    assert not _one_spot_warnings(Y, X, {**ncvis, "min_dist": 0.1})  # b < 1: no rule


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_default_iris_map_does_not_warn_of_merged_points(seed):
    # NCVis's default iris maps merge at most a couple of its 150 points,
    # which no figure shows: below the share that warns
    X, _ = smallvis.datasets.load("iris")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        smallvis.embed(X, "ncvis", fast=True, random_state=seed)
    assert not [w for w in caught if "ended on one spot" in str(w.message)]


# -- the row comparisons behind the parting: no dense copies ------------------

def _plain_merged_rows(Y, X, P):
    """merged_rows written out pair by pair on dense copies (the definition)."""
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
    P = P.toarray() if hasattr(P, "toarray") else np.asarray(P)
    out = set()
    for j in range(len(Y)):
        for i in range(j):
            if not np.array_equal(Y[i], Y[j]) or np.array_equal(X[i], X[j]):
                continue
            a, b = P[i].copy(), P[j].copy()
            if a[j] != b[i]:
                continue
            a[[i, j]] = b[[i, j]] = 0.0
            if np.array_equal(a, b):
                out.add(j)
    return np.array(sorted(out), dtype=np.intp)


def _spots_and_graph(seed, n=60):
    """Layouts with groups of rows on one spot; P rows equal within some groups."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    spot = rng.integers(0, 12, size=n)  # 12 spots: many rows share one
    Y = np.column_stack([spot, spot % 5]).astype(float)
    X = rng.integers(0, 2, size=(n, 6)).astype(float)  # many equal data rows
    X[rng.random(n) < 0.2] *= -0.0  # signed zeros compare equal to zeros
    hubs = rng.integers(0, 4, size=n)  # rows with one hub have equal P rows
    P = np.zeros((n, n))
    P[np.arange(n), n - 1 - hubs] = 0.5
    odd = np.flatnonzero(np.arange(n) % 3 == 0)  # and rows that differ
    P[odd, rng.integers(0, n, size=odd.size)] = 0.25
    for a in (1, 4, 7, 10):  # pairs on one spot that are each other's neighbours
        Y[a + 1], X[a + 1], hubs[a + 1] = Y[a], X[a] + 1.0, hubs[a]
        P[a + 1] = P[a]
        P[a, a + 1] = P[a + 1, a] = 0.3
    np.fill_diagonal(P, 0.0)
    return Y, X, sp.csr_array(X), P, sp.csr_matrix(P)


@pytest.mark.parametrize("seed", range(6))
def test_merged_rows_match_their_definition_dense_and_sparse(seed):
    from smallvis.engines.init import merged_rows

    Y, X, Xs, P, Ps = _spots_and_graph(seed)
    want = _plain_merged_rows(Y, X, P)
    assert want.size  # the case is not empty
    for data in (X, Xs):
        for graph in (P, Ps):
            np.testing.assert_array_equal(merged_rows(Y, data, same_rows_of=graph), want)


def test_merged_rows_of_sparse_data_make_no_dense_rows():
    # 400 rows on one spot in a layout of 40,000 points (text with many
    # duplicate rows does this): dense copies of their pairs' rows of P
    # would take 79,800 pairs x 40,000 x 8 bytes each side; they made a
    # 58,000-document run peak at 7.8 GiB
    import tracemalloc

    import scipy.sparse as sp
    from smallvis.engines.init import merged_rows

    n, rng = 40_000, np.random.default_rng(0)
    Y = rng.normal(size=(n, 2))
    Y[:400] = 0.0
    # about 10 entries a row (sp.random's sampling of positions took 14 s here)
    X = sp.csr_matrix((rng.random(10 * n), (np.repeat(np.arange(n), 10),
                                            rng.integers(5_000, size=10 * n))), shape=(n, 5_000))
    cols = (np.arange(n) + 1) % n
    P = sp.csr_matrix((np.ones(n), (np.arange(n), cols)), shape=(n, n))
    tracemalloc.start()
    rows = merged_rows(Y, X, same_rows_of=P)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert rows.size == 0  # every P row differs (its one neighbour)
    assert peak < 32 << 20, peak  # the dense rows: 3.2 GB of X, 25.5 GB of P
