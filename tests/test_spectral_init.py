"""Spectral and Laplacian-eigenmap initialisation from the input graph."""

import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
from smallvis import datasets
from smallvis._backend import kernels
from smallvis.affinities import joint_perplexity, ncvis_graph, umap_graph
from smallvis.init import SPECTRAL_SCALE, initialize
from smallvis.neighbors import nearest_neighbors


def _label_agreement(Y, labels, k=10):
    idx, _ = nearest_neighbors(Y, k, method="exact")
    return (labels[idx] == labels[:, None]).mean()


@pytest.mark.parametrize("init", ["spectral", "laplacian"])
def test_disconnected_graph_warns_and_is_fast(init):
    X, labels = datasets.load("two_clusters")
    P = umap_graph(X, 15, kernels(True))
    t0 = time.perf_counter()
    with pytest.warns(RuntimeWarning, match="2 connected components"):
        Y = initialize(init, X, 2, np.random.default_rng(0), P=P)
    assert time.perf_counter() - t0 < 30  # generous: it must not hang
    assert Y.shape == (200, 2) and np.all(np.isfinite(Y))
    np.testing.assert_allclose(np.abs(Y).max(), SPECTRAL_SCALE)
    # the two blobs do not overlap
    a, b = Y[labels == 0], Y[labels == 1]
    gap = np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)).min()
    assert gap > 0.5 * max(np.ptp(a, axis=0).max(), np.ptp(b, axis=0).max()) / 2


@pytest.mark.parametrize("name, graph, min_agreement", [
    ("iris", "perplexity", 0.85),
    ("iris", "umap", 0.85),
    ("s1k", "ncvis", 0.9),
    ("s1k", "perplexity", 0.7),
])
@pytest.mark.parametrize("init", ["spectral", "laplacian"])
def test_spectral_layout_scale_and_separation(name, graph, min_agreement, init):
    X, labels = datasets.load(name)
    P = {"perplexity": lambda: joint_perplexity(X, 30.0, kernels(True)),
         "umap": lambda: umap_graph(X, 15, kernels(True)),
         "ncvis": lambda: ncvis_graph(X, 15)}[graph]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # kNN graphs may be disconnected
        Y = initialize(init, X, 2, np.random.default_rng(1), P=P)
    assert Y.shape == (len(X), 2) and np.all(np.isfinite(Y))
    np.testing.assert_allclose(np.abs(Y).max(), SPECTRAL_SCALE)
    assert np.all(Y.std(axis=0) > 0.1)
    assert _label_agreement(Y, labels) > min_agreement


def test_spectral_is_an_eigenvector_of_the_normalised_laplacian():
    X, _ = datasets.load("digits")
    P = ncvis_graph(X[:600], 15)
    Y = initialize("spectral", X[:600], 2, np.random.default_rng(0), P=P)
    W = 0.5 * (P + P.T)
    d = np.asarray(W.sum(axis=1)).ravel()
    M = sp.diags(d ** -0.5) @ W @ sp.diags(d ** -0.5)
    for c in range(2):
        u = Y[:, c] / np.linalg.norm(Y[:, c])
        lam = u @ (M @ u)
        np.testing.assert_allclose(M @ u, lam * u, atol=1e-6)
        assert abs(u @ np.sqrt(d)) < 1e-6  # orthogonal to the trivial vector
    # Laplacian eigenmap: generalised problem W v = mu D v
    Y = initialize("laplacian", X[:600], 2, np.random.default_rng(0), P=P)
    for c in range(2):
        v = Y[:, c]
        mu = (v @ (W @ v)) / (v @ (d * v))
        np.testing.assert_allclose(W @ v, mu * d * v, atol=1e-6 * np.abs(d * v).max())


def test_spectral_is_deterministic_for_a_seed():
    X, _ = datasets.load("s1k")
    P = joint_perplexity(X, 30.0, kernels(True))
    a = initialize("spectral", X, 2, np.random.default_rng(5), P=P)
    b = initialize("spectral", X, 2, np.random.default_rng(5), P=P)
    np.testing.assert_array_equal(a, b)


def test_spectral_needs_p():
    X, _ = datasets.load("iris")
    with pytest.raises(ValueError, match="needs the input affinities"):
        initialize("spectral", X, 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match="shape"):
        initialize("spectral", X, 2, np.random.default_rng(0), P=np.eye(3))


def test_embed_with_spectral_init():
    X, _ = datasets.load("iris")
    res = smallvis.embed(X, "tsne", init="spectral", n_iter=5, random_state=0,
                         return_result=True)
    assert np.all(np.isfinite(res.Y))
    assert res.params["init"] == "spectral"
