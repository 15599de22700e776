"""absne, abssne and tee against direct transcriptions of R smallvis's formulas.

Each function below writes out R smallvis's expressions for the method
(its ``pfn`` and ``gr`` in ``R/absne.R`` and ``R/ee.R``, matrix by matrix) in NumPy,
independently of smallvis's units and engines.  R floors ``P`` and ``Q``
at machine epsilon before its powers and logs; the transcriptions leave
the floors out (the golden cases' ``P`` is positive off the diagonal, and
no ``q`` underflows on these layouts) and take the diagonal out of every
sum, as the divergence does.
"""

import numpy as np
import pytest

import smallvis
from smallvis.testing import golden


def _k2g(Y, K):
    """R smallvis's ``k2g`` (unsymmetrised): ``Y * rowSums(K) - K %*% Y``."""
    return Y * K.sum(axis=1, keepdims=True) - K @ Y


def _q(Y, kernel):
    """R's output weights off the diagonal (t-SNE's Cauchy or expQ's Gaussian), over all pairs."""
    D2 = ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)
    W = 1.0 / (1.0 + D2) if kernel == "cauchy" else np.exp(-D2)
    np.fill_diagonal(W, 0.0)
    return W / W.sum(), W


def _off(M):
    """``M`` with 0 on its diagonal (R's sums run over i != j here)."""
    M = M.copy()
    np.fill_diagonal(M, 0.0)
    return M


def r_ab(P, Y, alpha, beta, kernel):
    """R smallvis's general ``absne`` (``kernel="cauchy"``) and ``abssne`` cost and gradient.

    ``pfn``: ``-1/(alpha beta) PaQb + colSums(P^lambda) / (beta lambda) +
    colSums(Q^lambda) / (alpha lambda)``; ``gr``: ``4 / alpha * [W] * (PaQb
    - Ql + Q (sum Ql - sum PaQb))``, with ``W = Z Q`` for the Cauchy weight
    (absne) and without it for the Gaussian (abssne).
    """
    lam = alpha + beta
    Q, W = _q(Y, kernel)
    with np.errstate(divide="ignore", invalid="ignore"):
        PaQb = _off(P ** alpha * Q ** beta)
        Ql = _off(Q ** lam)
    pcost = (-PaQb.sum(axis=0) / (alpha * beta) + _off(P ** lam).sum(axis=0) / (beta * lam)
             + Ql.sum(axis=0) / (alpha * lam))
    K = 4 / alpha * (PaQb - Ql + Q * (Ql.sum() - PaQb.sum()))
    if kernel == "cauchy":
        K = W * K
    return pcost.sum(), _k2g(Y, K)


def r_absne_b0(P, Y, alpha):
    """R smallvis's ``absneb0`` (``beta = 0``, t-SNE's Cauchy weight): cost and gradient.

    ``pfn``: ``(colSums(P log P^alpha) - colSums(P^alpha log Q^alpha) -
    colSums(P^alpha) + colSums(Q^alpha)) / alpha^2``; ``gr``: ``4 / alpha * Q
    Z (P^alpha - Q^alpha + Q (sum Q^alpha - sum P^alpha))``.
    """
    Q, W = _q(Y, "cauchy")
    Pa, Qa = _off(P ** alpha), _off(Q ** alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        PlPa = np.where(P > 0, P * np.log(Pa), 0.0)
        PalQa = np.where(Pa > 0, Pa * np.log(Qa), 0.0)
    pcost = (PlPa.sum(axis=0) - PalQa.sum(axis=0) - Pa.sum(axis=0) + Qa.sum(axis=0)) / alpha**2
    K = 4 / alpha * W * (Pa - Qa + Q * (Qa.sum() - Pa.sum()))
    return pcost.sum(), _k2g(Y, K)


def _layouts(method):
    """The golden case's P with two layouts: its own, halved, and a random one."""
    g = golden(method)
    rng = np.random.default_rng(11)
    return g["P"], (0.5 * g["Y"], rng.normal(size=g["Y"].shape))


def _check(method, r_cost, r_grad, P, Y, fast, **params):
    cost, grad = smallvis.cost_and_gradient(method, P, Y, fast=fast, **params)
    assert cost == pytest.approx(r_cost, rel=1e-9)
    np.testing.assert_allclose(grad, r_grad, rtol=0, atol=1e-9 * np.abs(r_grad).max())


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("alpha, beta", [(0.5, 0.5), (1.5, -0.5), (0.8, 1.2)])
def test_absne_matches_r_smallvis(alpha, beta, fast):
    P, layouts = _layouts("absne")
    for Y in layouts:
        _check("absne", *r_ab(P, Y, alpha, beta, "cauchy"), P, Y, fast, alpha=alpha, beta=beta)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("alpha, beta", [(0.5, 0.5), (2.0, 0.5), (0.8, 1.2)])
def test_abssne_matches_r_smallvis(alpha, beta, fast):
    P, layouts = _layouts("abssne")
    for Y in layouts:
        _check("abssne", *r_ab(P, Y, alpha, beta, "gaussian"), P, Y, fast,
               alpha=alpha, beta=beta)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("alpha", [1.0, 0.6, 1.7])
def test_absne_at_beta_zero_matches_r_smallvis_s_limit_branch(alpha, fast):
    """R's ``absneb0``: the same gradient; its cost differs by a constant off alpha = 1.

    R's first term is ``P log P^alpha`` where the divergence has ``P^alpha
    log P^alpha`` (the page follows the divergence): a difference of
    ``sum (P^alpha - P) log P / alpha``, which no layout changes.
    """
    P, layouts = _layouts("absne")
    off = ~np.eye(P.shape[0], dtype=bool)
    shift = np.sum((P[off] ** alpha - P[off]) * np.log(P[off])) / alpha
    for Y in layouts:
        r_cost, r_grad = r_absne_b0(P, Y, alpha)
        _check("absne", r_cost + shift, r_grad, P, Y, fast, alpha=alpha, beta=0.0)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("method, kl_method", [("absne", "tsne"), ("abssne", "ssne")])
def test_the_kl_limit_is_tsne_and_ssne(method, kl_method, fast):
    """alpha = 1, beta = 0 (R's default, alpha = lambda = 1) is KL(P || Q)."""
    P, layouts = _layouts(method)
    for Y in layouts:
        cost, grad = smallvis.cost_and_gradient(method, P, Y, fast=fast, alpha=1.0, beta=0.0)
        kl_cost, kl_grad = smallvis.cost_and_gradient(kl_method, P, Y, fast=fast)
        assert cost == pytest.approx(kl_cost, rel=1e-9)
        np.testing.assert_allclose(grad, kl_grad, rtol=0, atol=1e-9 * np.abs(kl_grad).max())
        # and the general branch tends to it as beta -> 0 (R's abssne runs beta = 1e-5)
        near, near_grad = smallvis.cost_and_gradient(method, P, Y, fast=fast,
                                                     alpha=1.0, beta=1e-5)
        assert near == pytest.approx(kl_cost, rel=1e-3)
        np.testing.assert_allclose(near_grad, kl_grad, rtol=0,
                                   atol=1e-3 * np.abs(kl_grad).max())


@pytest.mark.parametrize("method, params", [
    ("absne", {"alpha": 0.0}), ("absne", {"alpha": -1.0}),
    ("absne", {"alpha": 0.5, "beta": -0.5}), ("absne", {"alpha": 1.0, "beta": -2.0}),
    ("absne", {"alpha": float("nan")}), ("absne", {"beta": float("inf")}),
    ("abssne", {"alpha": 0.0}), ("abssne", {"alpha": 1.5, "beta": -0.5}),
])
def test_alpha_beta_outside_their_range_are_refused(method, params):
    g = golden(method)
    name = "alpha" if "beta" not in params or params.get("alpha", 1.0) <= 0 else "beta"
    with pytest.raises(ValueError, match=name):
        smallvis.cost_and_gradient(method, g["P"], g["Y"], **params)


def r_tee(P, Y, lam):
    """R smallvis's ``tee`` cost and gradient (R/ee.R), from its unnormalised ``V = N P``.

    ``constV = (colSums(V log V) - lambda colSums(V)) / sum(V)``; ``pfn``:
    ``constV + (lambda colSums(W) - colSums(V log W)) / sum(V)``; ``gr``:
    ``4 / sum(V) * W (V - lambda W)``.
    """
    V = P.shape[0] * P
    inv_n = 1.0 / V.sum()
    _, W = _q(Y, "cauchy")
    with np.errstate(divide="ignore", invalid="ignore"):
        VlV = np.where(V > 0, V * np.log(V), 0.0)
        VlW = _off(np.where(V > 0, V * np.log(W), 0.0))
    const = inv_n * (VlV.sum(axis=0) - lam * V.sum(axis=0))
    pcost = const + inv_n * (lam * W.sum(axis=0) - VlW.sum(axis=0))
    return pcost.sum(), _k2g(Y, 4 * inv_n * W * (V - lam * W))


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("lam", [0.01, 0.2, 1.0])
def test_tee_matches_r_smallvis(lam, fast):
    P, layouts = _layouts("tee")
    for Y in layouts:
        _check("tee", *r_tee(P, Y, lam), P, Y, fast, lam=lam)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
def test_tee_at_lambda_one_is_the_i_divergence_of_p_from_w_over_n(fast):
    """At lambda = 1 the cost is sum p log(p / (w / N)) - p + w / N (the generalised KL)."""
    P, layouts = _layouts("tee")
    n = P.shape[0]
    off = ~np.eye(n, dtype=bool)
    for Y in layouts:
        _, W = _q(Y, "cauchy")
        M = W[off] / n
        p = P[off]
        i_div = np.sum(np.where(p > 0, p * np.log(p / M), 0.0) - p + M)
        cost, _ = smallvis.cost_and_gradient("tee", P, Y, fast=fast, lam=1.0)
        assert cost == pytest.approx(i_div, rel=1e-9)
        assert cost >= 0.0


def test_tee_auto_lambda_is_r_s_value_from_400_points_and_holds_small_data_apart():
    entry = smallvis.METHODS["tee"]
    assert entry.resolve_auto({"lam": "auto"}, 1797)["lam"] == 0.01
    assert entry.resolve_auto({"lam": "auto"}, 400)["lam"] == 0.01
    for n in (2, 10, 150):
        lam = entry.resolve_auto({"lam": "auto"}, n)["lam"]
        # a collapsed map's repulsion, lam / N over N (N - 1) pairs, beats its attraction 1
        assert lam * (n - 1) > 1.0
    # two points stay apart under the default
    X = np.array([[0.0, 1.0], [2.0, 5.0]])
    Y = smallvis.embed(X, "tee", perplexity=1.0, n_iter=200, random_state=0)
    assert np.linalg.norm(Y[0] - Y[1]) > 0.1


@pytest.mark.parametrize("lam", [-0.01, float("nan"), float("inf"), "big"])
def test_tee_refuses_a_lambda_that_is_not_a_finite_non_negative_number(lam):
    g = golden("tee")
    with pytest.raises((ValueError, TypeError), match="lam"):
        smallvis.cost_and_gradient("tee", g["P"], g["Y"], lam=lam)
