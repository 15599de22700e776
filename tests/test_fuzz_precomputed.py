"""Fuzzing precomputed inputs: kNN graphs, ``knn=`` pairs and distance matrices.

The same promises as ``tests/test_fuzz.py`` makes for data ``X``: hostile
input gives a finite ``P`` (and embedding) or a clean ``ValueError`` /
``TypeError``; a change of units by a power of two changes no bit of ``P``;
relabelling the points permutes ``P`` and nothing else.

Generated graphs have ties, distances of 0, self-loops stored at 0 (or,
invalid, above 0), pairs stored twice, rows in any order, rows with fewer
neighbours than others, sparse formats CSR / CSC / COO, and distances from
1e-300 to 1e300.  The method lists come from the registry.
"""

import warnings

import numpy as np
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import smallvis
from test_fuzz import CLEAN_ERRORS, fuzz_settings

#: Methods whose P is built from a kNN graph.
GRAPH_METHODS = sorted(name for name, m in smallvis.METHODS.items()
                       if "knn" in m.affinity_params)
METHODS = sorted(smallvis.METHODS)


def _params(method, width):
    """Parameters that a graph of ``width`` neighbours per point serves."""
    m = smallvis.METHODS[method]
    size = m.sized_params.get("n_neighbors")
    counts_itself = size is not None and size.limit(10) == 10  # k includes the point
    params = {"n_neighbors": width + 1 if counts_itself else width}
    if "perplexity" in m.affinity_params:
        params["perplexity"] = float(max(1.0, min(3.0, width)))
    return params


def _check_P(P, n, method):
    P = P.toarray() if sp.issparse(P) else np.asarray(P)
    assert P.shape == (n, n) and np.all(np.isfinite(P)) and np.all(P >= 0)
    np.testing.assert_array_equal(np.diag(P), 0.0)
    return P


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


# ---------------------------------------------------------------------------
# strategies
# ---------------------------------------------------------------------------


@st.composite
def knn_rows(draw, valid=False):
    """``(n, rows, cols, values)``: the entries of a kNN graph, nearest not first.

    Every row has ``width`` distinct neighbours, some rows more; ties, zeros
    and extreme magnitudes.  Unless ``valid``: a self-loop above 0, a pair
    stored twice, a negative, NaN or infinite distance, or an empty row.
    """
    n = draw(st.integers(3, 20))
    width = draw(st.integers(1, n - 1))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    lo = draw(st.integers(-300, 290))
    hi = draw(st.integers(lo, min(lo + 20, 300)))
    rows, cols = [], []
    for i in range(n):
        extra = int(rng.integers(0, n - width)) if rng.random() < 0.3 else 0
        others = np.delete(np.arange(n), i)
        picked = rng.choice(others, size=width + extra, replace=False)
        rows.append(np.full(picked.size, i))
        cols.append(picked)
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    values = 10.0 ** rng.uniform(lo, hi, size=rows.size)
    if draw(st.booleans()):  # ties: a few distinct values only
        values = rng.choice(values[:3], size=values.size)
    zeros = draw(st.sampled_from([0.0, 0.0, 0.2]))
    values[rng.random(values.size) < zeros] = 0.0
    if draw(st.booleans()):  # self-loops, stored at 0
        loops = rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False)
        rows, cols = np.r_[rows, loops], np.r_[cols, loops]
        values = np.r_[values, np.zeros(loops.size)]
    if not valid:
        fault = draw(st.sampled_from(["none", "loop", "twice", "negative", "nan", "inf",
                                      "empty"]))
        k = int(rng.integers(rows.size))
        if fault == "loop":
            rows, cols, values = np.r_[rows, 0], np.r_[cols, 0], np.r_[values, 1.0]
        elif fault == "twice":
            rows, cols, values = np.r_[rows, rows[k]], np.r_[cols, cols[k]], np.r_[values, values[k]]
        elif fault in ("negative", "nan", "inf"):
            values[k] = {"negative": -1.0, "nan": np.nan, "inf": np.inf}[fault]
        elif fault == "empty":
            keep = rows != rows[k]
            rows, cols, values = rows[keep], cols[keep], values[keep]
    order = rng.permutation(rows.size)  # rows and their entries in any order
    return n, rows[order], cols[order], values[order]


def _sparse(entries, fmt):
    n, rows, cols, values = entries
    coo = sp.coo_matrix((values, (rows, cols)), shape=(n, n))
    if fmt == "coo":
        return coo
    if fmt == "csr-raw":  # stored as given: unsorted, nothing summed
        order = np.argsort(rows, kind="stable")
        indptr = np.searchsorted(rows[order], np.arange(n + 1))
        return sp.csr_matrix((values[order], cols[order], indptr), shape=(n, n))
    return coo.asformat(fmt)


@st.composite
def knn_pairs(draw):
    """``(n, (indices, distances))``: hostile dense pairs."""
    n = draw(st.integers(3, 20))
    k = draw(st.integers(1, n - 1))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    indices = np.array([rng.choice(np.delete(np.arange(n), i), size=k, replace=False)
                        for i in range(n)])
    lo = draw(st.integers(-300, 290))
    distances = 10.0 ** rng.uniform(lo, lo + 10, size=(n, k))
    if draw(st.booleans()):
        distances = np.round(distances / distances.max(), 1) * distances.max()  # ties, zeros
    fault = draw(st.sampled_from(["none", "none", "self", "twice", "high", "negative", "nan",
                                  "float indices", "shape"]))
    i = int(rng.integers(n))
    if fault == "self":
        indices[i, 0] = i
    elif fault == "twice" and k > 1:
        indices[i, 1] = indices[i, 0]
    elif fault == "high":
        indices[i, 0] = n + 3
    elif fault == "negative":
        distances[i, 0] = -1.0
    elif fault == "nan":
        distances[i, 0] = np.nan
    elif fault == "float indices":
        indices = indices + 0.5
    elif fault == "shape":
        distances = distances[:, :-1]
    return n, (indices, distances)


@st.composite
def distance_matrices(draw):
    """Dense precomputed distances: Euclidean distances of hostile points, maybe damaged."""
    n = draw(st.integers(2, 20))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scale = 10.0 ** draw(st.integers(-150, 150))
    X = rng.normal(size=(n, 3)) * scale
    if draw(st.booleans()):
        X[rng.integers(n, size=n // 2)] = X[0]  # duplicate points: zero distances
    D = np.sqrt(np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1))
    fault = draw(st.sampled_from(["none", "none", "asymmetric", "diagonal", "negative",
                                  "nan", "rectangle"]))
    if fault == "asymmetric" and n > 1:
        D[0, 1] += scale
    elif fault == "diagonal":
        D[0, 0] = scale
    elif fault == "negative" and n > 1:
        D[0, 1] = D[1, 0] = -scale
    elif fault == "nan":
        D[-1, 0] = np.nan
    elif fault == "rectangle":
        D = D[:, :-1]
    return D


# ---------------------------------------------------------------------------
# a finite result or a clean error
# ---------------------------------------------------------------------------


@fuzz_settings(60)
@given(entries=knn_rows(), fmt=st.sampled_from(["csr-raw", "csr", "csc", "coo"]),
       method=st.sampled_from(GRAPH_METHODS))
def test_knn_graphs_give_finite_affinities_or_a_clean_error(entries, fmt, method):
    n = entries[0]
    G = _sparse(entries, fmt)
    width = int(np.bincount(entries[1][entries[1] != entries[2]], minlength=n).min())
    try:
        P = _quiet(smallvis.affinities, G, method, metric="precomputed",
                   **_params(method, max(width, 1)))
    except CLEAN_ERRORS:
        return
    _check_P(P, n, method)


@fuzz_settings(40)
@given(case=knn_pairs(), method=st.sampled_from(GRAPH_METHODS), fast=st.booleans())
def test_knn_pairs_embed_finitely_or_raise_a_clean_error(case, method, fast):
    n, knn = case
    try:
        Y = _quiet(smallvis.embed, None, method, knn=knn, fast=fast, n_iter=3, n_epochs=2,
                   random_state=0, **_params(method, np.shape(knn[0])[1]))
    except CLEAN_ERRORS:
        return
    assert Y.shape == (n, 2) and np.all(np.isfinite(Y))


@fuzz_settings(40)
@given(D=distance_matrices(), method=st.sampled_from(METHODS))
def test_distance_matrices_give_finite_affinities_or_a_clean_error(D, method):
    params = {"perplexity": 1.0} if "perplexity" in smallvis.METHODS[method].affinity_params \
        else {}
    try:
        P = _quiet(smallvis.affinities, D, method, metric="precomputed", **params)
    except CLEAN_ERRORS:
        return
    _check_P(P, len(D), method)


# ---------------------------------------------------------------------------
# units and labels
# ---------------------------------------------------------------------------


@fuzz_settings(15)
@given(entries=knn_rows(valid=True), method=st.sampled_from(GRAPH_METHODS),
       exponent=st.integers(-8, 8))
def test_a_power_of_two_change_of_units_changes_no_bit_of_p(entries, method, exponent):
    n, rows, cols, values = entries
    # units that keep every distance a normal float64
    if values.max() > 0 and not (1e-290 < values[values > 0].min() and values.max() < 1e290):
        return
    width = int(np.bincount(rows[rows != cols], minlength=n).min())
    params = _params(method, width)
    P = _quiet(smallvis.affinities, _sparse(entries, "csr"), method, metric="precomputed",
               **params)
    scaled = (n, rows, cols, np.ldexp(values, exponent))
    Q = _quiet(smallvis.affinities, _sparse(scaled, "csr"), method, metric="precomputed",
               **params)
    P = _check_P(P, n, method)
    if smallvis.METHODS[method].p_family.units == "equivariant":
        P = np.ldexp(P, exponent)  # input distances are in the data's units
    np.testing.assert_array_equal(_check_P(Q, n, method), P)


@fuzz_settings(15)
@given(entries=knn_rows(valid=True), method=st.sampled_from(GRAPH_METHODS),
       seed=st.integers(0, 2**32 - 1))
def test_relabelling_the_points_permutes_p(entries, method, seed):
    n, rows, cols, values = entries
    width = np.bincount(rows[rows != cols], minlength=n)
    if width.min() != width.max():
        return  # rows cut to the narrowest: which neighbour a tie keeps follows the labels
    perm = np.random.default_rng(seed).permutation(n)  # point i becomes perm[i]
    params = _params(method, int(width.min()))
    if params.get("perplexity") == width.min():
        # perplexity k over k neighbours: the uniform row, which every small
        # beta meets within the tolerance; the search starts each row from
        # the previous row's beta (R smallvis's order), so it follows the labels
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        P = _check_P(smallvis.affinities(_sparse(entries, "csr"), method,
                                         metric="precomputed", **params), n, method)
    if any("did not converge" in str(w.message) for w in caught):
        # a row whose calibration fails puts its mass on its nearest few
        # neighbours (a documented fallback): which of tied ones follows the labels
        return
    relabelled = (n, perm[rows], perm[cols], values)
    Q = _check_P(_quiet(smallvis.affinities, _sparse(relabelled, "csr"), method,
                        metric="precomputed", **params), n, method)
    expected = np.empty_like(P)
    expected[np.ix_(perm, perm)] = P
    np.testing.assert_allclose(Q, expected, rtol=1e-9, atol=1e-300)


@fuzz_settings(25)
@given(entries=knn_rows(), fmt=st.sampled_from(["csr-raw", "coo"]),
       method=st.sampled_from(GRAPH_METHODS))
def test_embed_and_the_estimator_refuse_and_fit_the_same_graphs(entries, fmt, method):
    """One check of the graph as stored: the estimator once summed a pair stored twice."""
    n = entries[0]
    width = max(1, int(np.bincount(entries[1][entries[1] != entries[2]], minlength=n).min()))
    params = {"metric": "precomputed", **_params(method, width)}
    outcomes = []
    for fit in (lambda G: smallvis.embed(G, method, fast=True, n_iter=2, n_epochs=1,
                                         random_state=0, **params),
                lambda G: smallvis.Embedding(method, n_iter=2, n_epochs=1, random_state=0,
                                             method_params=params).fit(G).embedding_):
        try:
            outcomes.append(_quiet(fit, _sparse(entries, fmt)))
        except CLEAN_ERRORS as exc:
            outcomes.append(str(exc))
    if isinstance(outcomes[0], str):
        assert outcomes[1] == outcomes[0]
    else:
        np.testing.assert_array_equal(outcomes[1], outcomes[0])
