"""Precomputed distances, kNN graphs and affinities stand for the data, checked as X is."""

import io
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist

import smallvis
from smallvis.backends._backend import kernels as select_kernels
from smallvis.inputs.neighbors import knn_graph
from smallvis.inputs.precomputed import knn_from_graph

from conftest import (KNN_METHODS, LONG_TESTS, PERPLEXITY_METHODS,
                      one_method_per_affinity_builder, perplexity_and_fuzzy_methods)


def _one_per_builder():
    """Every method with SMALLVIS_LONG_TESTS=1; else the first of each way of building P.

    ``metric="precomputed"`` is read by the builder of P (conftest's
    :func:`affinity_builder`): methods that share a builder and its
    parameters turn the same distances into the same P by the same code.
    """
    return smallvis.list_methods() if LONG_TESTS else one_method_per_affinity_builder()


def _one_per_way_of_taking_p():
    """Every method with SMALLVIS_LONG_TESTS=1; else one per way a given P enters a fit.

    A P given as ``affinities=`` replaces the one the builder would make
    (whose agreement with ``smallvis.affinities`` the distance and graph
    checks hold): what differs between methods is the family that
    normalises it (``p_family``: its name and units), the per-point values
    that travel with it (``input_params``, those of its own degrees
    ``pair_inputs``), the fuzzy memberships left unscaled, and the optimizer
    ``"auto"`` picks (``sgd``).  The first method of each such group in the
    registry's order.
    """
    if LONG_TESTS:
        return smallvis.list_methods()
    first = {}
    for name, m in smallvis.METHODS.items():
        first.setdefault((m.p_family.name, m.p_family.units, tuple(m.input_params),
                          tuple(m.pair_inputs), bool(m.fuzzy), m.sgd is not None), name)
    return list(first.values())


def _one_graph_method_per_builder():
    """The kNN-graph methods among :func:`_one_per_builder` (every one when long)."""
    return [name for name in _one_per_builder() if name in KNN_METHODS]


def _data(n=150, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=3.0, size=(4, 6))
    return centres[rng.integers(4, size=n)] + rng.normal(size=(n, 6))


def _params(method):
    # 3 x perplexity neighbours fit in the 30 of the graph
    return {"perplexity": 8.0, "n_neighbors": 30} if method in PERPLEXITY_METHODS else {}


def _dense(P):
    return P.toarray() if sp.issparse(P) else P


def _graph(idx, dist, n):
    k = idx.shape[1]
    # copies: SciPy may sort a matrix's indices in place, in arrays it shares
    return sp.csr_matrix((dist.ravel().copy(), idx.ravel().copy(), np.arange(0, n * k + 1, k)),
                         shape=(n, n))


@pytest.mark.parametrize("method", _one_per_builder())
def test_a_distance_matrix_gives_the_p_of_the_data(method):
    X = _data()
    P = smallvis.affinities(X, method)
    Q = smallvis.affinities(cdist(X, X), method, metric="precomputed")
    np.testing.assert_allclose(_dense(Q), _dense(P), rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("method", _one_graph_method_per_builder())
def test_a_sparse_knn_graph_and_knn_alone_give_the_p_of_the_data(method):
    X = _data(seed=1)
    idx, dist = knn_graph(X, 30, method="exact")
    P = smallvis.affinities(X, method, knn_method="exact", **_params(method))
    for graph in (_graph(idx, dist, 150), sp.coo_array(_graph(idx, dist, 150)),
                  _graph(idx, dist, 150).tocsc()):
        Q = smallvis.affinities(graph, method, metric="precomputed", **_params(method))
        np.testing.assert_array_equal(_dense(Q), _dense(P))
    R = smallvis.affinities(None, method, knn=(idx, dist), **_params(method))
    np.testing.assert_array_equal(_dense(R), _dense(P))
    Y1 = smallvis.embed(None, method, knn=(idx, dist), random_state=0, n_iter=60,
                        n_epochs=10, **_params(method))
    Y2 = smallvis.embed(_graph(idx, dist, 150), method, metric="precomputed", random_state=0,
                        n_iter=60, n_epochs=10, **_params(method))
    assert np.all(np.isfinite(Y1))
    np.testing.assert_array_equal(Y1, Y2)


def test_a_knn_graph_with_its_diagonal_and_rows_of_other_widths():
    X = _data(seed=2)
    idx, dist = knn_graph(X, 12, method="exact")
    G = _graph(idx, dist, 150).tolil()
    G.setdiag(0.0)  # the point itself, stored at 0: dropped
    G[5, idx[5, 11]] = 0.0  # one row shorter (an explicit zero stays: a neighbour at 0)
    G = G.tocsr()
    G.eliminate_zeros()
    got_idx, got_dist = knn_from_graph(G)
    assert got_idx.shape == (150, 11)
    np.testing.assert_array_equal(got_idx, idx[:, :11])
    np.testing.assert_array_equal(got_dist, dist[:, :11])


@pytest.mark.parametrize("method", _one_per_way_of_taking_p())
def test_user_affinities_are_used_as_the_methods_own(method):
    X = _data(seed=3)
    P = smallvis.affinities(X, method)
    # a method's per-point values from the calibration of X (basne's
    # bandwidths) travel with P only when given: without them it refuses
    m = smallvis.METHODS[method]
    own = {}
    # (the pair weights of a P's own degrees come from that P: no refusal)
    refused = [k for k in m.input_params if k not in m.pair_inputs]
    if refused:
        with pytest.raises(ValueError, match=refused[0]):
            smallvis.embed(None, method, affinities=P, n_iter=1)
    if m.input_params:
        inputs = m.split_built(m.build_affinities(
            X, select_kernels(False), np.random.RandomState(0), 1,
            **{k: v for k, v in m.affinity_params.items()}))[1]
        own = {k: inputs[k] for k in m.input_params}
    # (one epoch where the "auto" optimizer is the stochastic one: infonce's
    # NumPy loop runs each edge in Python, and one epoch already reads P.)
    # The NumPy reference throughout, as affinities' own default: the P given
    # is then the P that embed computes
    Y1 = smallvis.embed(X, method, fast=False, random_state=0, n_iter=50, n_epochs=1,
                        init="random")
    Y2 = smallvis.embed(None, method, fast=False, affinities=P, random_state=0, n_iter=50,
                        n_epochs=1, init="random", **own)
    # P divided by its sum (1 to rounding): the same map to rounding
    np.testing.assert_allclose(Y1, Y2, rtol=1e-9, atol=1e-9)
    if m.p_family.units == "equivariant":
        # input distances are kept as given, in their units: three times the
        # distances give three times the map
        # (a second per-pair input given with it is in units of the mean input
        # distance: the same for three times the distances)
        result = smallvis.embed(None, method, fast=False, affinities=3.0 * _dense(P),
                                random_state=0, n_iter=50, init="random",
                                return_result=True, **own)
        np.testing.assert_array_equal(_dense(result.P), 3.0 * _dense(P))
        np.testing.assert_allclose(result.Y, 3.0 * Y2, rtol=1e-9, atol=1e-9 * np.abs(Y2).max())
        return
    # scaled: brought back to the method's normalisation (not for fuzzy memberships)
    if smallvis.METHODS[method].fuzzy:
        return
    # (one epoch for infonce, whose "auto" optimizer is the stochastic one)
    result = smallvis.embed(None, method, affinities=3.0 * _dense(P), fast=False,
                            random_state=0, n_iter=0, n_epochs=1, return_result=True,
                            init="random", **own)
    np.testing.assert_allclose(_dense(result.P), _dense(P), rtol=1e-12, atol=1e-18)


def test_without_data_the_default_init_is_spectral():
    X = _data(seed=4)
    idx, dist = knn_graph(X, 14, method="exact")
    result = smallvis.embed(None, "umap", knn=(idx, dist), random_state=0, n_iter=5,
                            return_result=True)
    assert result.params["init"] == "spectral"
    with pytest.raises(ValueError, match="init='spca' needs the data X"):
        smallvis.embed(None, "tsne", knn=(idx, dist), init="spca")


# ---------------------------------------------------------------------------
# what is refused
# ---------------------------------------------------------------------------


def test_a_diagonal_at_rounding_level_is_zero():
    """SciPy's cosine distance of a row to itself can be 2e-16: accepted, never read."""
    X = _data(seed=10)
    D = cdist(X, X, "cosine")
    D[np.arange(150), np.arange(150)] = 2.2e-16
    P = smallvis.affinities(D, "tsne", metric="precomputed")
    np.testing.assert_allclose(P, smallvis.affinities(X, "tsne", metric="cosine"), rtol=1e-9,
                               atol=1e-15)


def test_bad_distance_matrices_are_refused():
    X = _data(seed=5)
    D = cdist(X, X)
    cases = [(D[:, :100], "square"), (D + np.eye(150), "zero diagonal"),
             (D - 0.01, "non-negative"), (D + np.triu(D) * 0.01, "symmetric"),
             (np.where(np.eye(150) > 0, 0, np.nan), "NaN")]
    for bad, match in cases:
        with pytest.raises(ValueError, match=match):
            smallvis.embed(bad, "umap", metric="precomputed")


def test_bad_knn_graphs_are_refused():
    X = _data(seed=6)
    idx, dist = knn_graph(X, 10, method="exact")
    G = _graph(idx, dist, 150)
    bad_diag = G.tolil()
    bad_diag[3, 3] = 0.5
    negative = G.copy()
    negative.data[7] = -1.0
    empty = G.tolil()
    empty[9, :] = 0
    empty = empty.tocsr()
    empty.eliminate_zeros()
    twice = sp.coo_matrix((np.r_[dist.ravel(), 1.0], (np.r_[np.repeat(np.arange(150), 10), 0],
                                                      np.r_[idx.ravel(), idx[0, 0]])),
                          shape=(150, 150))
    cases = [(G[:, :140], "square"), (bad_diag.tocsr(), "diagonal must be 0"),
             (negative, "non-negative"), (empty, "row 9 .* no neighbour"),
             (twice, "twice")]
    for bad, match in cases:
        with pytest.raises(ValueError, match=match):
            smallvis.embed(bad, "umap", metric="precomputed", n_neighbors=8)
    with pytest.raises(ValueError, match="knn has 10 neighbours per point; 29 are needed"):
        smallvis.embed(G, "tsne", metric="precomputed", perplexity=8.0, n_neighbors=29)
    with pytest.raises(ValueError, match="give the neighbours once"):
        smallvis.embed(G, "umap", metric="precomputed", knn=(idx, dist))


def test_dense_only_methods_name_the_methods_that_take_a_graph():
    idx, dist = knn_graph(_data(seed=7), 10, method="exact")
    dense_only = [m for m in smallvis.list_methods() if m not in KNN_METHODS]
    assert dense_only and KNN_METHODS
    every_one = re.escape(f"use one of {', '.join(KNN_METHODS)}, or pass")
    for method in dense_only:
        with pytest.raises(ValueError, match=every_one):
            smallvis.embed(None, method, knn=(idx, dist))


def test_bad_user_affinities_are_refused():
    X = _data(seed=8)
    P = smallvis.affinities(X, "tsne")
    with pytest.raises(ValueError, match="symmetric"):
        smallvis.embed(None, "tsne", affinities=P + np.triu(P))
    with pytest.raises(ValueError, match="non-negative"):
        smallvis.embed(None, "tsne", affinities=P - 1e-3)
    with pytest.raises(ValueError, match="zero diagonal"):
        smallvis.embed(None, "tsne", affinities=P + np.eye(150))
    with pytest.raises(ValueError, match="affinities has 150 rows but X has 100"):
        smallvis.embed(X[:100], "tsne", affinities=P)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        smallvis.embed(None, "umap", affinities=5.0 * _dense(smallvis.affinities(X, "umap")))
    with pytest.raises(TypeError, match="X is required"):
        smallvis.embed(None, "tsne")
    with pytest.raises(ValueError, match="'annoy' cannot search precomputed"):
        smallvis.affinities(cdist(X, X), "umap", metric="precomputed", knn_method="annoy")


# ---------------------------------------------------------------------------
# transform of a fit on precomputed distances
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", perplexity_and_fuzzy_methods())
def test_transform_takes_distances_to_the_training_points(method):
    X = _data(180, seed=9)
    train, new = X[:150], X[150:]
    by_distance = smallvis.Embedding(method, random_state=0, n_iter=100, n_epochs=20,
                                     method_params={"metric": "precomputed"})
    by_distance.fit(cdist(train, train))
    by_data = smallvis.Embedding(method, random_state=0, n_iter=100, n_epochs=20).fit(train)
    # the new points' rows of P: those of the data, measured from the distances
    kernels = smallvis.backends.reference
    np.testing.assert_allclose(by_distance.training_map_.new_rows(cdist(new, train),
                                                               kernels).toarray(),
                               by_data.training_map_.new_rows(new, kernels).toarray(),
                               rtol=1e-9, atol=1e-15)
    placed = by_distance.transform(cdist(new, train))
    assert np.all(np.isfinite(placed))
    buf = io.BytesIO()
    smallvis.save_model(by_distance, buf)
    buf.seek(0)
    loaded = smallvis.load_model(buf)
    np.testing.assert_array_equal(loaded.transform(cdist(new, train)), placed)
    with pytest.raises(ValueError, match="non-negative"):
        by_distance.transform(-cdist(new, train))


def test_transform_of_a_large_precomputed_fit_selects_exactly(monkeypatch):
    """Above EXACT_MAX_N training points new points use Annoy, but not rows of distances."""
    import smallvis.transform

    X = _data(170, seed=11)
    train, new = X[:150], X[150:]
    model = smallvis.Embedding("umap", random_state=0, n_iter=20,
                               method_params={"metric": "precomputed"}).fit(cdist(train, train))
    expected = model.transform(cdist(new, train))
    monkeypatch.setattr(smallvis.transform, "EXACT_MAX_N", 100)
    model.training_map_._index = None
    assert model.training_map_.uses_annoy()
    np.testing.assert_array_equal(model.transform(cdist(new, train)), expected)
    assert model.training_map_.knn_index().method == "exact"


# ---------------------------------------------------------------------------
# one check of a kNN graph, as stored, on every path
# ---------------------------------------------------------------------------


#: Methods whose P is built from a kNN graph (the registry's own list).
GRAPH_METHODS = [name for name, m in smallvis.METHODS.items() if "knn" in m.affinity_params]


def _stored_twice(idx, dist, n):
    """A CSR graph storing pair (0, idx[0, 0]) twice, and a COO one with the entry repeated."""
    k = idx.shape[1]
    indptr = np.arange(0, n * k + 1, k)
    indptr[1:] += 1  # row 0 has one more entry: its nearest neighbour again
    indices = np.r_[idx[0, 0], idx.ravel()]
    data = np.r_[dist[0, 0], dist.ravel()]
    csr = sp.csr_matrix((data, indices, indptr), shape=(n, n))
    assert not csr.has_canonical_format  # SciPy has not summed it
    coo = sp.coo_matrix((data, (np.r_[0, np.repeat(np.arange(n), k)], indices)), shape=(n, n))
    return csr, coo


def test_a_pair_stored_twice_is_refused_by_every_fit(tmp_path, capsys):
    """SciPy's conversions sum a repeated entry: ``Embedding.fit`` and the command line
    fitted that neighbour at twice its distance, where ``embed`` refused."""
    from smallvis.cli import main

    X = _data(seed=12)
    idx, dist = knn_graph(X, 10, method="exact")
    message = rf"stores the pair \(0, {idx[0, 0]}\) twice"
    for graph in _stored_twice(idx, dist, 150):
        with pytest.raises(ValueError, match=message):
            smallvis.embed(graph, "umap", metric="precomputed", n_neighbors=8)
        with pytest.raises(ValueError, match=message):
            smallvis.affinities(graph, "umap", metric="precomputed", n_neighbors=8)
        with pytest.raises(ValueError, match=message):
            smallvis.Embedding("umap", method_params={"metric": "precomputed",
                                                      "n_neighbors": 8}).fit(graph)
        path = tmp_path / "graph.npz"
        sp.save_npz(path, graph, compressed=False)
        status = main(["embed", str(path), "--method", "umap", "--metric", "precomputed",
                       "--n-neighbors", "8", "--out", str(tmp_path / "Y.csv"), "--quiet"])
        assert status == 2
        assert re.search(message, capsys.readouterr().err)
        assert not (tmp_path / "Y.csv").exists()


def test_the_same_graph_stored_once_fits_alike_on_every_path():
    X = _data(seed=13)
    idx, dist = knn_graph(X, 10, method="exact")
    G = sp.coo_matrix(_graph(idx, dist, 150))
    settings = dict(n_iter=30, random_state=0)
    Y = smallvis.embed(G, "umap", metric="precomputed", n_neighbors=8, fast=True, **settings)
    model = smallvis.Embedding("umap", method_params={"metric": "precomputed",
                                                      "n_neighbors": 8}, **settings).fit(G)
    np.testing.assert_array_equal(model.embedding_, Y)


def test_knn_takes_one_form_and_names_it():
    """A dict gave a bare ``KeyError: 0`` (knn alone) or was read by its key names."""
    X = _data(60, seed=14)
    idx, dist = knn_graph(X, 10, method="exact")
    as_dict = {"indices": idx, "distances": dist}
    for data in (None, X):
        with pytest.raises(TypeError, match=r"knn must be a pair \(indices, distances\).*"
                                            r"got a dict.*knn=\(d\['indices'\]"):
            smallvis.embed(data, "umap", knn=as_dict, n_neighbors=8)
        for bad in ("ab", 5, (idx,)):
            with pytest.raises(TypeError, match=r"knn must be a pair \(indices, distances\)"):
                smallvis.embed(data, "umap", knn=bad, n_neighbors=8)
    with pytest.raises(TypeError, match="got a dict"):
        smallvis.affinities(None, "umap", knn=as_dict, n_neighbors=8)
    # the documented form, as a tuple or a list
    P = smallvis.affinities(None, "umap", knn=(idx, dist), n_neighbors=8)
    np.testing.assert_array_equal(
        smallvis.affinities(None, "umap", knn=[idx, dist], n_neighbors=8).toarray(),
        P.toarray())


@pytest.mark.parametrize("method", [name for name in GRAPH_METHODS
                                    if "perplexity" in smallvis.METHODS[name].affinity_params])
def test_a_graph_too_narrow_for_the_perplexity_says_which_and_what_to_do(method):
    """"49 are needed" named no perplexity: the calibration's 3 x perplexity
    neighbours, capped at N - 1, against a 14-NN graph of 50 points."""
    X = _data(50, seed=15)
    idx, dist = knn_graph(X, 14, method="exact")
    default = smallvis.METHODS[method].affinity_params["perplexity"]
    used = default if default <= 49 else 49 / 3.0  # a default above N - 1 is lowered
    for graph in (dict(X=_graph(idx, dist, 50), metric="precomputed"),
                  dict(X=None, knn=(idx, dist))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", smallvis.SmallDataWarning)
            with pytest.raises(ValueError) as err:
                smallvis.embed(graph.pop("X"), method, **graph)
        text = str(err.value)
        assert "knn has 14 neighbours per point; 49 are needed" in text
        assert f"perplexity = {used:g}" in text
        assert "min(floor(3 x perplexity), n_samples - 1) = 49" in text
        assert "at least 49 neighbours per point" in text
        assert f"at most {14 / 3:.4g}" in text and "n_neighbors=14" in text
    # and what it proposes works
    for advice in ({"perplexity": 14 / 3}, {"n_neighbors": 14, "perplexity": 10.0}):
        Y = smallvis.embed(None, method, knn=(idx, dist), n_iter=20, random_state=0,
                           **advice)
        assert np.all(np.isfinite(Y))


@pytest.mark.parametrize("method", KNN_METHODS)
def test_knn_alone_of_the_wrong_shape_is_refused_before_its_rows_are_counted(method):
    """A 3-D knn said "n_neighbors must be in [2, 1]" or "perplexity ... for 1 samples"."""
    X = _data(60, seed=16)
    idx, dist = knn_graph(X, 10, method="exact")
    for bad in ((idx[None], dist[None]), (idx, dist[:, :5]), (idx[:, 0], dist[:, 0])):
        with pytest.raises(ValueError, match=r"knn indices and distances must both be 2-D "
                                             r"arrays of shape \(n_samples, n_neighbors\)"):
            smallvis.embed(None, method, knn=bad)


@pytest.mark.parametrize("method", KNN_METHODS)
def test_a_graph_with_short_rows_names_them_and_their_counts(method):
    """Row 3 alone with 2 neighbours (the others 15) read "knn has 2 neighbours per point"."""
    n = 80
    X = _data(n, seed=17)
    idx, dist = knn_graph(X, 15, method="exact")
    G = _graph(idx, dist, n).tolil()
    G[3, idx[3, 2:]] = 0.0
    G = G.tocsr()
    G.eliminate_zeros()
    assert np.diff(G.indptr)[3] == 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", smallvis.SmallDataWarning)
        with pytest.raises(ValueError) as err:
            smallvis.embed(G, method, metric="precomputed")
    text = str(err.value)
    assert re.search(r"\(row 3 has 2[,)]", text), text
    assert "neighbours per point" not in text.split(";")[0]
