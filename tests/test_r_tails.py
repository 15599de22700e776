"""R smallvis's heavy-tailed and t-SNE variants against transcriptions of its formulas.

Each ``r_*`` function writes out R smallvis's own expression for a method
(its ``update``, ``pfn`` and ``gr`` in ``R/sne.R``), matrix by matrix, in
NumPy, independently of smallvis's units and engines; the tests check
smallvis's exact cost and gradient, in both backends, against it.  The
transcriptions leave out R's machine-epsilon floors (smallvis's pages say
so), which move these costs by far less than the tolerance on layouts
where no ``q`` underflows.

Some of R's methods are another's cost at mapped parameters: they are
aliases (:data:`smallvis.registry.ALIASES`), checked here to give their
target's numbers bit for bit.
"""

import io
import sys
from contextlib import redirect_stderr
from pathlib import Path

import numpy as np
import pytest

import smallvis
from smallvis.registry import ALIASES, METHODS
from smallvis.testing import golden

ROOT = Path(__file__).resolve().parent.parent


def _d2(Y):
    return ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)


def _k2g(Y, K, symmetrize=False):
    """R smallvis's ``k2g``: ``Y * rowSums(K) - K %*% Y``."""
    if symmetrize:
        K = K + K.T
    return Y * K.sum(axis=1, keepdims=True) - K @ Y


def _kl(P, Q):
    """``sum P log(P / Q)`` over the entries where ``P > 0``."""
    nz = P > 0
    return float(np.sum(P[nz] * np.log(P[nz] / Q[nz])))


def _layouts(method):
    """``(P, Y)`` pairs: the golden case's ``P`` at a shrunk and at a random layout."""
    g = golden(method)
    rng = np.random.default_rng(11)
    return [(g["P"], 0.5 * g["Y"]), (g["P"], rng.normal(size=g["Y"].shape))]


def _close(cost, grad, r_cost, r_grad):
    assert cost == pytest.approx(r_cost, rel=1e-10)
    np.testing.assert_allclose(grad, r_grad, rtol=0, atol=1e-10 * np.abs(r_grad).max())


# ---------------------------------------------------------------------------
# aliases: another method's cost at mapped parameters
# ---------------------------------------------------------------------------


def r_hssne(P, Y, alpha):
    """R smallvis's ``hssne`` (R/sne.R): ``W = (alpha D2 + 1)^(-1/alpha)``, t-SNE's KL."""
    W = (alpha * _d2(Y) + 1.0) ** (-1.0 / alpha)
    np.fill_diagonal(W, 0.0)
    Q = W / W.sum()
    return _kl(P, Q), _k2g(Y, 4 * (P - Q) * W ** alpha)


def r_tsneu(V, Y):
    """R smallvis's ``tsneu`` (R/sne.R): t-SNE's gradient in the un-normalised ``V``.

    ``V`` is the symmetrised row-normalised affinities, ``P = V / sum(V)``.
    """
    W = 1.0 / (1.0 + _d2(Y))
    np.fill_diagonal(W, 0.0)
    invZ, Vsum = 1.0 / W.sum(), V.sum()
    return _kl(V / Vsum, W * invZ), _k2g(Y, 4 * W / Vsum * (V - W * invZ * Vsum))


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0])
def test_hssne_matches_r_smallvis(alpha, fast):
    for P, Y in _layouts("tsne"):
        r_cost, r_grad = r_hssne(P, Y, alpha)
        cost, grad = smallvis.cost_and_gradient("hssne", P, Y, alpha=alpha, fast=fast)
        _close(cost, grad, r_cost, r_grad)


def test_hssne_at_alpha_1_is_tsne_and_tends_to_ssne():
    P, Y = _layouts("tsne")[1]
    np.testing.assert_array_equal(
        smallvis.cost_and_gradient("hssne", P, Y, alpha=1.0)[1],
        smallvis.cost_and_gradient("tsne", P, Y)[1])
    # alpha -> 0: (1 + alpha d2)^(-1/alpha) -> exp(-d2), symmetric SNE's weight
    c0, g0 = smallvis.cost_and_gradient("ssne", P, Y)
    c, g = smallvis.cost_and_gradient("hssne", P, Y, alpha=1e-6)
    assert c == pytest.approx(c0, rel=1e-4)
    np.testing.assert_allclose(g, g0, rtol=0, atol=1e-4 * np.abs(g0).max())


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
def test_tsneu_matches_r_smallvis(fast):
    for P, Y in _layouts("tsne"):
        V = P * P.shape[0]  # R's V sums to N: each of its N rows did before symmetrising
        r_cost, r_grad = r_tsneu(V, Y)
        _close(*smallvis.cost_and_gradient("tsneu", P, Y, fast=fast), r_cost, r_grad)


def _alias_cases():
    """Every alias at its defaults, and at each non-default example value it is tested with."""
    cases = []
    for name, (alias, target) in ALIASES.items():
        cases.append((name, target, {}))
        for param, default in alias.params.items():
            cases.append((name, target, {param: 2.0 * default}))
    return cases


@pytest.mark.parametrize("name, target, params", _alias_cases())
def test_an_alias_gives_its_target_s_bits(name, target, params):
    alias = ALIASES[name][0]
    mapped = alias.translate(**{**alias.params, **params}) if alias.translate else {}
    X = golden(target)["X"]
    kw = dict(n_iter=60, random_state=3, fast=True, return_result=True)
    a = smallvis.embed(X, method=name, **params, **kw)
    b = smallvis.embed(X, method=target, **mapped, **kw)
    np.testing.assert_array_equal(a.Y, b.Y)
    assert a.cost == b.cost and a.method == target


def test_the_hssne_alias_maps_alpha_to_dof():
    # the mapping written out, not read from the alias
    X = golden("tsne")["X"]
    kw = dict(n_iter=40, random_state=5, fast=True)
    np.testing.assert_array_equal(smallvis.embed(X, method="hssne", alpha=0.25, **kw),
                                  smallvis.embed(X, method="tsne", dof=4.0, **kw))
    np.testing.assert_array_equal(smallvis.embed(X, method="hssne", **kw),
                                  smallvis.embed(X, method="tsne", dof=2.0, **kw))


@pytest.mark.parametrize("alpha", [0.0, -1.0, 2e8, float("nan"), float("inf")])
def test_hssne_refuses_alpha_outside_its_range(alpha):
    P, Y = _layouts("tsne")[0]
    with pytest.raises(ValueError, match="alpha"):
        smallvis.cost_and_gradient("hssne", P, Y, alpha=alpha)


def test_hssne_refuses_a_type_and_a_target_parameter_it_sets():
    P, Y = _layouts("tsne")[0]
    with pytest.raises(TypeError, match="alpha"):
        smallvis.cost_and_gradient("hssne", P, Y, alpha="0.5")
    with pytest.raises(ValueError, match="dof"):
        smallvis.cost_and_gradient("hssne", P, Y, dof=2.0)
    with pytest.raises(ValueError, match="alpha"):
        smallvis.affinities(golden("tsne")["X"], "hssne", alpha=0.5)


def test_an_alias_s_affinities_are_its_target_s():
    X = golden("tsne")["X"]
    for name, (alias, target) in ALIASES.items():
        np.testing.assert_array_equal(smallvis.affinities(X, name, perplexity=5),
                                      smallvis.affinities(X, target, perplexity=5))


def test_the_cli_takes_an_alias_and_its_parameters(tmp_path):
    from smallvis import cli
    data = tmp_path / "x.npy"
    np.save(data, golden("tsne")["X"])
    out = tmp_path / "y.csv"
    assert cli.main(["embed", str(data), "--method", "hssne", "--alpha", "0.25", "--n-iter",
                     "40", "--random-state", "5", "--quiet", "--out", str(out)]) == 0
    Y = np.loadtxt(out, delimiter=",", ndmin=2, skiprows=1)
    expected = smallvis.embed(golden("tsne")["X"], method="tsne", dof=4.0, n_iter=40,
                              random_state=5, fast=True)
    np.testing.assert_allclose(Y, expected, rtol=1e-6, atol=1e-6 * np.abs(expected).max())
    err = io.StringIO()
    with redirect_stderr(err):
        rc = cli.main(["embed", str(data), "--method", "hssne", "--dof", "2", "--quiet",
                       "--out", str(tmp_path / "z.csv")])
    assert rc != 0 and "--dof" in err.getvalue() and not (tmp_path / "z.csv").exists()


def test_the_site_documents_every_alias_on_its_target_s_page():
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        import smallvis_docs
    finally:
        sys.path.pop(0)
    rows = [(a.name, t, a.summary) for a, t in ALIASES.values()]
    index = smallvis_docs.methods_index([(m.name, m.summary) for m in METHODS.values()], rows)
    for name, (alias, target) in ALIASES.items():
        assert f"<method-{name}>" in index
        sections = "\n".join(smallvis_docs._alias_sections(METHODS[target]))
        assert f".. _method-{name}:" in sections and alias.summary in sections


# ---------------------------------------------------------------------------
# tasne: asne's conditional P and per-row KL, with the Cauchy weight
# ---------------------------------------------------------------------------


def r_tasne(P, Y):
    """R smallvis's ``tasne`` (R/sne.R): ``W = 1 / (1 + D2)``, ``invZ = 1 / rowSums(W)``.

    Its ``pfn`` is asne's, ``rowSums(P log(P / (W invZ)))``, and its
    gradient ``k2g(Y, 2 W (P - W invZ), symmetrize = TRUE)``.
    """
    W = 1.0 / (1.0 + _d2(Y))
    np.fill_diagonal(W, 0.0)
    Q = W / W.sum(axis=1, keepdims=True)
    return _kl(P, Q), _k2g(Y, 2 * W * (P - Q), symmetrize=True)


@pytest.mark.parametrize("fast", [False, True], ids=["numpy", "cython"])
def test_tasne_matches_r_smallvis(fast):
    for P, Y in _layouts("tasne"):
        r_cost, r_grad = r_tasne(P, Y)
        _close(*smallvis.cost_and_gradient("tasne", P, Y, fast=fast), r_cost, r_grad)


def test_tasne_is_asne_with_the_cauchy_weight():
    # on a layout shrunk so far that every w = 1 / (1 + d2) is 1 - d2 to first
    # order, q_{j|i} and the gradient / w agree with asne's exp(-d2) to O(d2^2)
    P, Y = _layouts("tasne")[1]
    Y = 1e-3 * Y
    c0, g0 = smallvis.cost_and_gradient("asne", P, Y)
    c, g = smallvis.cost_and_gradient("tasne", P, Y)
    assert c == pytest.approx(c0, rel=1e-8)
    np.testing.assert_allclose(g, g0, rtol=0, atol=1e-4 * np.abs(g0).max())


def test_the_parity_kit_takes_an_alias_and_its_parameters():
    from smallvis.testing import check_gradient
    ok = check_gradient("hssne", lambda P, Y: r_hssne(P, Y, 0.3), alpha=0.3)
    assert ok.ok, str(ok)
    # the same transcription at another alpha is told apart
    assert not check_gradient("hssne", lambda P, Y: r_hssne(P, Y, 0.3), alpha=0.6).ok
    assert check_gradient("tasne", r_tasne).ok


def test_the_estimator_takes_an_alias_and_its_parameters():
    X = golden("tsne")["X"]
    est = smallvis.Embedding(method="hssne", method_params={"alpha": 0.25}, n_iter=30,
                             random_state=2).fit(X)
    np.testing.assert_array_equal(
        est.embedding_, smallvis.embed(X, method="tsne", dof=4.0, n_iter=30, random_state=2))
