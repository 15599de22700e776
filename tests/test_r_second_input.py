"""ee and gsne, the methods with a second per-pair input, against transcriptions of R smallvis.

Each function below writes out R smallvis's expressions (``ee`` in
``R/ee.R``, ``gsne`` in ``R/gsne.R``: their ``init``, ``pfn`` and ``gr``,
matrix by matrix) in NumPy, independently of smallvis's units, engines and
builders: the second input (ee's ``Vn``, gsne's ``Phat``) is computed here
from ``X`` as R's ``init`` does, and R's ``k2g`` turns a matrix of pair
coefficients into the gradient.  R floors ``W`` (and gsne's ``P``) at
machine epsilon before its logs; the layouts here keep every ``exp(-d2)``
above it, and the floors are left out, as the pages say.
"""

import numpy as np
import pytest

import smallvis
from smallvis.testing import golden


def _k2g(Y, K):
    """R smallvis's ``k2g``: ``Y * rowSums(K) - K %*% Y``."""
    return Y * K.sum(axis=1, keepdims=True) - K @ Y


def _dist2(A):
    """Squared Euclidean distances of the rows of ``A`` (R's ``calc_d2``)."""
    sq = (A * A).sum(axis=1)
    return np.maximum(sq[:, None] + sq[None, :] - 2.0 * A @ A.T, 0.0)


def r_ee_vn(X):
    """R's ``ee`` init with ``neg_weights = TRUE``: ``Vn = R / sum(R)``, ``R = calc_d(X)``."""
    R = np.sqrt(_dist2(X))
    np.fill_diagonal(R, 0.0)
    return R / R.sum()


def r_ee(P, Vn, Y, lam):
    """R smallvis's ``ee`` cost and gradient.

    ``update``: ``W = exp(-calc_d2(Y))``, diagonal 0; ``pfn``:
    ``colSums(-Vp * log(W) + lambda * (Vn * W))``; ``gr``: ``k2g(Y, 4 * (Vp
    - lambda * Vn * W))``.
    """
    W = np.exp(-_dist2(Y))
    np.fill_diagonal(W, 0.0)
    with np.errstate(divide="ignore"):
        logW = np.log(W)
    attraction = np.where(P > 0, -P * logW, 0.0)
    pcost = (attraction + lam * (Vn * W)).sum(axis=0)
    return pcost.sum(), _k2g(Y, 4 * (P - lam * Vn * W))


@pytest.fixture(scope="module")
def iris_case():
    """The jittered iris of the golden cases, t-SNE's joint P, and two layouts."""
    X = golden("tee")["X"]  # the jittered iris (another method's case: not the one under test)
    P = smallvis.affinities(X, "tsne")
    rng = np.random.default_rng(5)
    layouts = (rng.normal(scale=0.5, size=(X.shape[0], 2)),
               rng.normal(scale=2.0, size=(X.shape[0], 2)))
    return X, P, layouts


def _check(method, r_cost, r_grad, P, Y, fast, **params):
    cost, grad = smallvis.cost_and_gradient(method, P, Y, fast=fast, **params)
    assert cost == pytest.approx(r_cost, rel=1e-9)
    np.testing.assert_allclose(grad, r_grad, rtol=0, atol=1e-9 * np.abs(r_grad).max())


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("lam", [100.0, 1.0, 0.0])
def test_ee_matches_r_smallvis(iris_case, lam, fast):
    X, P, layouts = iris_case
    Vn = r_ee_vn(X)
    for Y in layouts:
        _check("ee", *r_ee(P, Vn, Y, lam), P, Y, fast, lam=lam, repulsion_weights=Vn)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
def test_ee_without_negative_weights_matches_r_smallvis(iris_case, fast):
    """R's ``neg_weights = FALSE`` (``Vn = 1``) is ``repulsion_weights=1``."""
    X, P, layouts = iris_case
    for Y in layouts:
        _check("ee", *r_ee(P, 1.0, Y, 1e-4), P, Y, fast, lam=1e-4, repulsion_weights=1.0)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
def test_ee_fit_reads_r_smallvis_s_repulsion_weights(iris_case, fast):
    """A fit from X builds R's ``Vn`` and minimises the cost at it (its reported cost)."""
    X, P, _ = iris_case
    r = smallvis.embed(X, "ee", fast=fast, n_iter=20, random_state=3, return_result=True)
    Vn = r_ee_vn(X)
    np.testing.assert_allclose(np.asarray(r.P), P, rtol=1e-12, atol=0)
    np.testing.assert_allclose(r.params["repulsion_weights"], Vn, rtol=1e-12,
                               atol=1e-10 * Vn.max())
    cost, _ = smallvis.cost_and_gradient("ee", P, r.Y, fast=fast, repulsion_weights=Vn)
    assert r.cost == pytest.approx(cost, rel=1e-9)


def r_gsne_phat(X):
    """R's ``gsne`` init on R's default input, ``scale = "absmax"``.

    ``scale_input``: the columns centred, then divided by the largest
    absolute element; then ``Phat = calc_d2(X) + 1``, diagonal 0, over its sum.
    """
    Xc = X - X.mean(axis=0)
    X = Xc / np.abs(Xc).max()
    Phat = _dist2(X) + 1.0
    np.fill_diagonal(Phat, 0.0)
    return Phat / Phat.sum()


def _xlogy_off(A, B):
    """``sum A log B`` over the entries with ``A > 0`` (R's ``logm`` floors never reached)."""
    mask = A > 0
    return float(np.sum(A[mask] * np.log(B[mask])))


def r_gsne(P, Phat, Y, lam):
    """R smallvis's ``gsne`` cost and gradient.

    ``update``: ``What = 1 + calc_d2(Y)``, ``W = 1 / What`` (diagonals 0),
    ``Z = sum(W)``, ``Zhat = sum(What)``; ``pfn``: ``kl + lambda * klhat``
    with ``kl = plogp - colSums(P log(W / Z))`` and ``klhat = phlogph -
    colSums(Phat log(What / Zhat))``; ``gr``: ``k2g(Y, 4 W (P - lambda Phat
    - W / Z + lambda What / Zhat))``.
    """
    What = 1.0 + _dist2(Y)
    W = 1.0 / What
    np.fill_diagonal(W, 0.0)
    np.fill_diagonal(What, 0.0)
    Z, Zhat = W.sum(), What.sum()
    kl = _xlogy_off(P, P) - _xlogy_off(P, W / Z)
    klhat = _xlogy_off(Phat, Phat) - _xlogy_off(Phat, What / Zhat)
    K = 4 * W * (P - lam * Phat - W / Z + lam * What / Zhat)
    return kl + lam * klhat, _k2g(Y, K)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("lam", [1.0, 5.0, 0.0])
def test_gsne_matches_r_smallvis(iris_case, lam, fast):
    X, P, layouts = iris_case
    Phat = r_gsne_phat(X)
    for Y in layouts:
        _check("gsne", *r_gsne(P, Phat, Y, lam), P, Y, fast, lam=lam, global_affinities=Phat)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
def test_gsne_at_lambda_zero_is_tsne(iris_case, fast):
    X, P, layouts = iris_case
    for Y in layouts:
        cost, grad = smallvis.cost_and_gradient("gsne", P, Y, fast=fast, lam=0.0,
                                                global_affinities=r_gsne_phat(X))
        t_cost, t_grad = smallvis.cost_and_gradient("tsne", P, Y, fast=fast)
        assert cost == pytest.approx(t_cost, rel=1e-12)
        np.testing.assert_allclose(grad, t_grad, rtol=0, atol=1e-12 * np.abs(t_grad).max())


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
def test_gsne_fit_reads_r_smallvis_s_global_affinities(iris_case, fast):
    """A fit from X builds R's ``Phat`` (of the data's own units): its cost is R's at its layout."""
    X, P, _ = iris_case
    r = smallvis.embed(X, "gsne", fast=fast, n_iter=20, exaggeration=1.0, random_state=3,
                       return_result=True)
    Phat = r_gsne_phat(X)
    np.testing.assert_allclose(r.params["global_affinities"], Phat, rtol=1e-12,
                               atol=1e-10 * Phat.max())
    r_cost, _ = r_gsne(np.asarray(r.P), Phat, r.Y, 1.0)
    assert r.cost == pytest.approx(r_cost, rel=1e-9)


@pytest.mark.parametrize("method", ["ee", "gsne"])
def test_new_points_land_by_their_training_twins(iris_case, method):
    """Training points placed again as new points land near their own fitted places.

    Their rows of the second input are their neighbours' rows mixed by ``P``
    (the fit's own rows are not used).  Measured in the fitted map's
    half-width: the typical point moves by a few hundredths (iris: 0.02 for
    ee, 0.03 for gsne), the farthest by a fifth (a point between versicolor
    and virginica); a placement that ignored the second input's scale would
    throw points across the map.  One point of the 22 may move further: a
    fit is a chaotic run, and with other last bits (OpenBLAS's generic
    kernels) gsne's fit left iris's outlying setosa, row 42, 0.74 away from
    where its neighbours place it.
    """
    X, _, _ = iris_case
    est = smallvis.Embedding(method=method, n_iter=300, random_state=2).fit(X)
    Y_fit = est.embedding_
    rows = np.arange(0, 150, 7)
    Y_new = est.transform(X[rows] + 1e-3)
    moved = np.linalg.norm(Y_new - Y_fit[rows], axis=1) / (0.5 * np.ptp(Y_fit, axis=0).max())
    assert np.median(moved) < 0.1
    assert np.sort(moved)[-2] < 0.35, moved
