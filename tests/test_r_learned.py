"""Methods whose learned scalars R smallvis sets by a rule of its own, once per epoch.

Each is checked against a transcription of R smallvis's code (``R/sne.R``,
jlmelville/smallvis), written here from R's formulas and not from the
method's unit: the gradient and reported cost at a held scalar, and the
rule that resets the scalar.  Then the exact optimizer's hook
(``rule=``): when it applies the rule, and that it does not descend the
scalars it sets.
"""

import math

import numpy as np
import pytest

import smallvis
from smallvis.engines.optim import OptimizerSettings, optimize_exact
from smallvis.registry import METHODS

RULED = [name for name, m in METHODS.items() if m.learned_rule is not None]


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n // 2, 5)), rng.normal(size=(n - n // 2, 5)) + 3.0])
    Y = rng.normal(scale=1.0, size=(n, 2))
    return X, Y


def _r_k2g(Y, K):
    """R's ``k2g``: ``Y * colSums(K) - K %*% Y``."""
    return Y * K.sum(axis=0)[:, None] - K @ Y


def _r_tweight(Y):
    """R's ``calc_tweight`` with ``diag(W) <- 0``."""
    D2 = ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)
    W = 1.0 / (1.0 + D2)
    np.fill_diagonal(W, 0.0)
    return W


def test_some_registered_method_has_a_rule():
    assert RULED, "no registered method sets its learned scalars by a rule"


# ---- pstsne ---------------------------------------------------------------


def test_pstsne_gradient_is_r_s_at_the_held_normaliser():
    """R: ``k2g(Y, 4 W invVsum (V - (W / Z) Vsum))``, V = N P (symmetrised rows), Z held."""
    X, Y = _data()
    P = smallvis.affinities(X, "pstsne", perplexity=8)
    P = np.asarray(P.toarray() if hasattr(P, "toarray") else P)
    n = P.shape[0]
    V = n * P  # R's row-normalised, symmetrised V: each row sums to 1 before (V + V')/2
    Vsum = V.sum()
    W = _r_tweight(Y)
    for Z in (n * n, 0.5 * W.sum(), W.sum()):
        G_r = _r_k2g(Y, 4.0 * W / Vsum * (V - (W / Z) * Vsum))
        for fast in (False, True):
            _, G = smallvis.cost_and_gradient("pstsne", P, Y, Q=math.log(Z), fast=fast)
            np.testing.assert_allclose(G, G_r, rtol=1e-9, atol=1e-14 * np.abs(G_r).max())


def test_pstsne_cost_is_r_s_kl_plus_the_bound_s_slack():
    """R's ``kl_cost``, sum P log P - sum P log(W / Z), plus sum W / Z - sum P.

    The two agree at R's reset Z = sum W, where both are t-SNE's KL divergence.
    """
    X, Y = _data()
    P = np.asarray(smallvis.affinities(X, "pstsne", perplexity=8))
    W = _r_tweight(Y)
    off = ~np.eye(P.shape[0], dtype=bool)
    for Z in (P.shape[0] ** 2, W.sum()):
        r_cost = float(np.sum(P[off] * np.log(P[off])) - np.sum(P[off] * np.log(W[off] / Z)))
        cost, _ = smallvis.cost_and_gradient("pstsne", P, Y, Q=math.log(Z))
        assert cost == pytest.approx(r_cost + W.sum() / Z - P.sum(), rel=1e-12)
    tsne_cost, _ = smallvis.cost_and_gradient("tsne", P, Y)
    assert smallvis.cost_and_gradient("pstsne", P, Y, Q=math.log(W.sum()))[0] == pytest.approx(
        tsne_cost, rel=1e-12)


@pytest.mark.parametrize("fast", [False, True])
def test_pstsne_fit_ends_at_r_s_reset(fast):
    """R applies its epoch function after the last iteration: Z = sum W of the final Y."""
    X, _ = _data()
    r = smallvis.embed(X, "pstsne", perplexity=8, n_iter=30, random_state=0, fast=fast,
                       return_result=True)
    assert r.learned["Q"] == pytest.approx(math.log(_r_tweight(r.Y).sum()), rel=1e-12)
    # the reported cost is then t-SNE's KL divergence at the final layout
    assert r.cost == pytest.approx(smallvis.cost_and_gradient("tsne", r.P, r.Y)[0], rel=1e-9)


def test_pstsne_starts_at_r_s_normaliser():
    """R's ``cache_input``: ``Z = nrow(P) * nrow(P)``; with no iteration it stays."""
    X, _ = _data()
    r = smallvis.embed(X, "pstsne", perplexity=8, n_iter=0, random_state=0,
                       return_result=True)
    assert r.learned["Q"] == pytest.approx(2.0 * math.log(X.shape[0]), rel=1e-15)


def test_pstsne_twins_follow_the_same_normalisers():
    """Both backends, a short run with ten resets: the same layout and the same Z."""
    X, _ = _data()
    runs = [smallvis.embed(X, "pstsne", perplexity=8, n_iter=40, random_state=0, fast=fast,
                           return_result=True, tol=0) for fast in (False, True)]
    np.testing.assert_allclose(runs[1].Y, runs[0].Y, rtol=1e-6,
                               atol=1e-6 * np.abs(runs[0].Y).max())
    assert runs[1].learned["Q"] == pytest.approx(runs[0].learned["Q"], rel=1e-10)


@pytest.mark.parametrize("fast", [False, True])
def test_pstsne_places_new_points_at_the_fitted_normaliser(tmp_path, fast):
    X, _ = _data(60)
    est = smallvis.Embedding(method="pstsne", method_params={"perplexity": 8}, n_iter=60,
                             random_state=0, fast=fast).fit(X[:50])
    Q = est.result_.learned["Q"]
    assert est.training_map_.cost_params["Q"] == Q
    Y_new = est.transform(X[50:])
    assert np.all(np.isfinite(Y_new))
    path = tmp_path / "pstsne.npz"
    smallvis.save_model(est, path)
    loaded = smallvis.load_model(path)
    assert loaded.training_map_.cost_params["Q"] == Q
    np.testing.assert_allclose(loaded.transform(X[50:]), Y_new, rtol=1e-10, atol=1e-12)


# ---- the exact optimizer's hook ---------------------------------------------


class _Recorder:
    """A rule that records when it is called and sets the scalar to the iteration count."""

    def __init__(self, every):
        self.every, self.calls = every, []

    def __call__(self, Y, learned):
        self.calls.append(float(learned[0]))
        learned[0] = len(self.calls)


def _quadratic(Y, learned, exaggeration, out):
    out[...] = Y  # any gradient in Y; a non-zero derivative in the scalar
    return np.array([1.0])


@pytest.mark.parametrize("n_iter, every, expected", [(10, 3, [3, 6, 9, 10]),
                                                     (9, 3, [3, 6, 9]), (5, 1, [1, 2, 3, 4, 5])])
def test_the_rule_runs_at_r_s_epochs_and_the_scalar_is_not_descended(n_iter, every, expected):
    rule = _Recorder(every)
    learned = np.array([-7.0])
    Y = np.random.default_rng(0).normal(size=(6, 2))
    seen = []
    optimize_exact(Y, _quadratic, None,
                   OptimizerSettings(learning_rate=0.1, n_iter=n_iter, cost_every=None),
                   learned=learned, rule=rule,
                   callback=lambda it, Yc, c: seen.append((it, len(rule.calls))) and False)
    # the values the rule saw: the start, then each of its own values (never a step)
    assert rule.calls == [-7.0] + list(range(1, len(expected)))
    # the iterations after whose step the rule ran (the callback comes after it)
    counts = [k for _, k in seen]
    assert [it for (it, k), before in zip(seen, [0] + counts) if k > before] == expected
    assert learned[0] == len(expected)


def test_without_a_rule_the_scalar_is_descended():
    learned = np.array([0.0])
    Y = np.random.default_rng(0).normal(size=(6, 2))
    optimize_exact(Y, _quadratic, None,
                   OptimizerSettings(learning_rate=0.1, n_iter=3, cost_every=None),
                   learned=learned)
    assert learned[0] < 0.0


# ---- dhssne -----------------------------------------------------------------


def _r_hssne_weight(Y, alpha):
    """R's ``powm(alpha * D2 + 1, -1 / alpha)`` with ``diag(W) <- 0``."""
    D2 = ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)
    W = (alpha * D2 + 1.0) ** (-1.0 / alpha)
    np.fill_diagonal(W, 0.0)
    return W


def _r_kl_cost(P, W):
    """R's ``kl_cost``: ``plogp - colSums(P * logm(W / Z))`` summed, off the diagonal."""
    off = ~np.eye(P.shape[0], dtype=bool)
    return float(np.sum(P[off] * np.log(P[off])) - np.sum(P[off] * np.log(W[off] / W.sum())))


def _r_epoch(P, Y, alpha, alpha_min=1e-8):
    """R's dhssne ``epoch``: the lowest cost of alpha + 0.1, alpha - 0.1, alpha (first on ties).

    R's own guard reads ``alpha + 0.1 > alpha_min``; its article says the tail
    never goes below 0, which the guard on ``alpha - 0.1`` here keeps.
    """
    alphas = [alpha + 0.1] + ([alpha - 0.1] if alpha - 0.1 >= alpha_min else []) + [alpha]
    errs = [_r_kl_cost(P, _r_hssne_weight(Y, a)) for a in alphas]
    return alphas[int(np.argmin(errs))]


@pytest.mark.parametrize("alpha", [0.5, 0.1, 1.7])
def test_dhssne_cost_and_gradient_are_r_s_at_a_held_tail(alpha):
    X, Y = _data()
    P = np.asarray(smallvis.affinities(X, "dhssne", perplexity=8))
    W = _r_hssne_weight(Y, alpha)
    G_r = _r_k2g(Y, 4.0 * (P - W / W.sum()) * np.where(W > 0, W, 1.0) ** alpha * (W > 0))
    for fast in (False, True):
        cost, G = smallvis.cost_and_gradient("dhssne", P, Y, alpha=alpha, fast=fast)
        assert cost == pytest.approx(_r_kl_cost(P, W), rel=1e-10)
        np.testing.assert_allclose(G, G_r, rtol=1e-9, atol=1e-12 * np.abs(G_r).max())
    # at a held tail it is Yang et al.'s heavy-tailed SSNE, the alias hssne
    assert smallvis.cost_and_gradient("hssne", P, Y, alpha=alpha)[0] == pytest.approx(
        _r_kl_cost(P, W), rel=1e-10)


@pytest.mark.parametrize("fast", [False, True])
def test_dhssne_search_is_r_s_epoch(fast):
    from smallvis.backends import _kernels, reference
    from smallvis.plans import Objective
    m = METHODS["dhssne"]
    X, _ = _data()
    P = smallvis.affinities(X, "dhssne", perplexity=8)
    layout = X[:, :2] - X[:, :2].mean(axis=0)
    moves = set()
    for alpha in (0.5, 0.05, 1.0, 2.0):
        objective = Objective.build(m, _kernels if fast else reference, P, {"alpha": alpha}, 1)
        for scale in (0.3, 3.0, 30.0):
            Y = np.ascontiguousarray(layout * scale)
            (new,) = m.learned_rule.update(objective, Y, np.array([alpha]))
            expected = _r_epoch(np.asarray(P), Y, alpha)
            assert new == expected
            moves.add(int(np.sign(round((expected - alpha) / 0.1))))
    assert moves == {-1, 0, 1}  # the cases see the tail fall, stay and rise


@pytest.mark.parametrize("fast", [False, True])
def test_dhssne_fit_moves_its_tail_on_r_s_grid(fast):
    X, _ = _data()
    r = smallvis.embed(X, "dhssne", perplexity=8, n_iter=50, random_state=0, fast=fast,
                       return_result=True)
    steps = (r.learned["alpha"] - 0.5) / 0.1
    # R's start 0.5, at most one step of 0.1 per epoch: 10 epochs and the last iteration
    assert abs(steps - round(steps)) < 1e-9 and abs(round(steps)) <= 10
    assert r.learned["alpha"] > 0.0
    assert smallvis.embed(X, "dhssne", perplexity=8, n_iter=0, random_state=0,
                          return_result=True).learned["alpha"] == 0.5


def test_dhssne_twins_follow_the_same_tails():
    X, _ = _data()
    runs = [smallvis.embed(X, "dhssne", perplexity=8, n_iter=40, random_state=0, fast=fast,
                           exaggeration=1.0, return_result=True, tol=0) for fast in (False, True)]
    np.testing.assert_allclose(runs[1].Y, runs[0].Y, rtol=1e-6,
                               atol=1e-6 * np.abs(runs[0].Y).max())
    assert runs[1].learned["alpha"] == runs[0].learned["alpha"]


@pytest.mark.parametrize("alpha", [0.0, -0.5, 2e8])
def test_dhssne_refuses_a_tail_outside_its_range(alpha):
    X, Y = _data()
    P = smallvis.affinities(X, "dhssne", perplexity=8)
    with pytest.raises(ValueError, match="alpha"):
        smallvis.cost_and_gradient("dhssne", P, Y, alpha=alpha)
    with pytest.raises(ValueError, match="alpha"):
        smallvis.embed(X, "dhssne", alpha=alpha, n_iter=1)


def test_dhssne_places_new_points_at_the_fitted_tail(tmp_path):
    X, _ = _data(60)
    est = smallvis.Embedding(method="dhssne", method_params={"perplexity": 8, "alpha": 0.9},
                             n_iter=60, random_state=0).fit(X[:50])
    alpha = est.result_.learned["alpha"]
    assert est.training_map_.cost_params["alpha"] == alpha
    Y_new = est.transform(X[50:])
    assert np.all(np.isfinite(Y_new))
    path = tmp_path / "dhssne.npz"
    smallvis.save_model(est, path)
    loaded = smallvis.load_model(path)
    assert loaded.training_map_.cost_params["alpha"] == alpha
    np.testing.assert_allclose(loaded.transform(X[50:]), Y_new, rtol=1e-10, atol=1e-12)
