"""smallvis.testing: check_gradient, check_affinities and assert_embeddings_close.

The kit must pass correct implementations written by others (the package's
Cython path, scikit-learn's exact t-SNE gradient, openTSNE's gradient x 4)
and name each planted mistake correctly.
"""

import re

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
from smallvis.testing import (
    assert_embeddings_close,
    assert_gradient,
    check_affinities,
    check_gradient,
    default_cases,
)

def exact_params(method):
    """The parameters at which ``method``'s gradient is the exact gradient of its cost.

    A method whose gradient is softened by ``eps`` at its defaults (its
    entry's ``exact_gradient`` says so) takes ``eps = 0``, so that the
    finite-difference check of the user's function applies too.
    """
    m = smallvis.METHODS[method]
    if m.exact_gradient is None or m.exact_gradient(dict(m.cost_params)):
        return {}
    assert m.exact_gradient({**m.cost_params, "eps": 0.0}), (
        f"{method}: eps=0 does not make the gradient exact")
    return {"eps": 0.0}


def _fast_path(method, params, with_learned=False):
    def fn(P, Y, *learned):
        kw = dict(zip(smallvis.METHODS[method].learned, learned))
        out = smallvis.cost_and_gradient(method, P, Y, fast=True, return_learned=with_learned,
                                         **params, **kw)
        if with_learned:
            return out[0], out[1], out[2]["Q"]
        return out
    return fn


@pytest.mark.parametrize("method", smallvis.list_methods())
def test_kit_passes_the_fast_path(method):
    params = exact_params(method)
    report = check_gradient(method, _fast_path(method, params), **params)
    assert report.ok, str(report)
    assert len(report.cases) >= 10
    assert all(c.fd_error is not None for c in report.cases if "coincident" not in c.name)
    assert report.diagnoses == []


def test_kit_passes_with_default_eps_and_says_why_fd_is_skipped():
    report = check_gradient("umap", _fast_path("umap", {}))
    assert report.ok, str(report)
    assert any("eps=0" in n for n in report.notes)
    assert all(c.fd_error is None for c in report.cases)


def test_ncvis_gets_q_and_its_derivative_is_checked():
    seen = []

    def fn(P, Y, Q):
        seen.append(Q)
        return _fast_path("ncvis", {}, with_learned=True)(P, Y, Q)

    report = check_gradient("ncvis", fn)
    assert report.ok, str(report)
    assert {0.0, 2.0, -1.0} <= set(seen)
    assert all("Q" in c.learned_error for c in report.cases)

    def wrong_dq(P, Y, Q):
        c, g, dq = _fast_path("ncvis", {}, with_learned=True)(P, Y, Q)
        return c, g, 2 * dq

    bad = check_gradient("ncvis", wrong_dq)
    assert not bad.ok and "d/dQ" in str(bad)


def test_sparse_option_passes_csr():
    def fn(P, Y):
        assert sp.isspmatrix_csr(P) or isinstance(P, sp.csr_array)
        return smallvis.cost_and_gradient("tsne", P, Y)

    assert check_gradient("tsne", fn, sparse=True).ok


def test_kit_passes_scikit_learn_kl_divergence():
    t_sne = pytest.importorskip("sklearn.manifold._t_sne")
    from scipy.spatial.distance import squareform

    def fn(P, Y):
        n, d = Y.shape
        kl, grad = t_sne._kl_divergence(Y.ravel(), squareform(P, checks=False), 1, n, d)
        return kl, grad.reshape(n, d)

    report = check_gradient("tsne", fn, rtol=1e-9)  # tighter than the default 1e-6
    assert report.ok, str(report)


def test_kit_passes_opentsne_times_four():
    pytest.importorskip("openTSNE")
    from openTSNE.tsne import kl_divergence_bh

    cases = [c for c in default_cases("tsne")
             if c.Y.shape[1] == 2 and c.n_samples > 2 and c.finite_differences]

    def opentsne(P, Y):
        kl, grad = kl_divergence_bh(np.ascontiguousarray(Y), sp.csr_matrix(P), 1,
                                    {"theta": 0.0}, should_eval_error=True)
        return kl, grad

    report = check_gradient("tsne", lambda P, Y: (lambda c, g: (c, 4 * g))(*opentsne(P, Y)),
                            cases=cases, sparse=True, rtol=1e-8)
    assert report.ok, str(report)
    raw = check_gradient("tsne", opentsne, cases=cases, sparse=True, rtol=1e-8)
    assert not raw.ok
    assert "openTSNE's convention omits t-SNE's factor 4" in "\n".join(raw.diagnoses)


# --- planted mistakes ---------------------------------------------------------


def _forces(K, Y):
    return K.sum(axis=1)[:, None] * Y - K @ Y


def student_tsne(P, Y, *, factor=4.0, kernel="student", row_q=False,
                 repulsion_power=True, sign=1.0):
    """A t-SNE cost and gradient as a user writes them, with switches for mistakes."""
    D2 = ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    W = 1.0 / (1.0 + D2) if kernel == "student" else np.exp(-D2)
    np.fill_diagonal(W, 0.0)
    with np.errstate(all="ignore"):  # the Gaussian underflows at large scales
        Q = W / (W.sum(axis=1, keepdims=True) if row_q else W.sum())
        m = P > 0
        cost = float(np.sum(P[m] * np.log(P[m] / Q[m])))
    K = (P - Q) * W if repulsion_power else P * W - Q
    return cost, sign * _forces(factor * K, Y)


PLANTED = {
    "factor 2": (dict(factor=8.0), ["2 x the reference", "a factor of 2"]),
    "sign": (dict(sign=-1.0), ["sign error"]),
    "kernel power missing from repulsion": (
        dict(repulsion_power=False),
        ["kernel power missing from the repulsion", "difference is in the repulsion"]),
    "row-wise Q": (dict(row_q=True),
                   ["normalised per row", "does not sum to zero", "difference is in the repulsion"]),
    "Gaussian kernel": (dict(kernel="gaussian"),
                        ["Gaussian output kernel exp(-d^2) instead of t-SNE's Student-t"]),
    "openTSNE convention": (dict(factor=1.0),
                            ["0.25 x the reference", "openTSNE's convention omits t-SNE's factor 4"]),
}


def test_planted_reference_implementation_passes():
    assert check_gradient("tsne", student_tsne).ok


@pytest.mark.parametrize("name", list(PLANTED))
def test_planted_mistake_is_named(name):
    options, expected = PLANTED[name]
    report = check_gradient("tsne", lambda P, Y: student_tsne(P, Y, **options))
    assert not report.ok
    text = "\n".join(report.diagnoses)
    for phrase in expected:
        assert phrase in text, f"{phrase!r} not in:\n{report}"
    with pytest.raises(AssertionError, match="Diagnosis"):
        assert_gradient("tsne", lambda P, Y: student_tsne(P, Y, **options))


def test_mistakes_are_not_confused():
    """Each planted mistake is named, and no other known mistake is."""
    names = ["kernel power missing", "per row", "Gaussian output kernel exp"]
    for options, expected in (PLANTED["kernel power missing from repulsion"],
                              PLANTED["row-wise Q"], PLANTED["Gaussian kernel"]):
        text = "\n".join(check_gradient("tsne", lambda P, Y: student_tsne(P, Y, **options)).diagnoses)
        assert sum(n in text for n in names) == 1, text


def test_cost_in_bits_and_missing_constant_are_named():
    def bits(P, Y):
        c, g = student_tsne(P, Y)
        return c / np.log(2), g

    def no_entropy(P, Y):
        c, g = student_tsne(P, Y)
        return c - float(np.sum(P[P > 0] * np.log(P[P > 0]))), g

    text = "\n".join(check_gradient("tsne", bits).diagnoses)
    assert "log base 2" in text
    text = "\n".join(check_gradient("tsne", no_entropy).diagnoses)
    assert "does not depend on Y" in text and "sum p log p" in text
    assert "self-consistent" in text


def test_a_constant_is_named_only_where_the_cost_has_it():
    # LargeVis's cost, sum p log(1/w) - gamma sum log(1 - w), has no
    # sum p log p: an offset by it is reported as a number, not as that term
    reference = _fast_path("largevis", exact_params("largevis"))

    def offset(P, Y):
        c, g = reference(P, Y)
        return c - float(np.sum(P[P > 0] * np.log(P[P > 0]))), g

    text = "\n".join(check_gradient("largevis", offset, **exact_params("largevis")).diagnoses)
    assert "does not depend on Y" in text and "differences" in text
    assert "sum p log p" not in text


def umap_explicit(P, Y, a, b, *, one_minus_v=True, repulsion_factor=1.0):
    """UMAP's exact cost and its explicit attraction/repulsion gradient."""
    D2 = ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    off = ~np.eye(len(Y), dtype=bool)
    D2s = np.where(off, D2, 1.0)
    W = 1.0 / (1.0 + a * D2s ** b)
    with np.errstate(divide="ignore", invalid="ignore"):
        C = (np.where(P > 0, P * np.log(P / W), 0.0)
             + np.where(P < 1, (1 - P) * np.log((1 - P) / (1 - W)), 0.0))
    attract = a * b * D2s ** (b - 1) * W * P
    repel = repulsion_factor * b * (1 - P if one_minus_v else 1.0) * W / D2s
    return float(C[off].sum()), _forces(4 * np.where(off, attract - repel, 0.0), Y)


def test_umap_repulsion_without_one_minus_v_is_named():
    a, b = 1.2, 0.8
    ok = check_gradient("umap", lambda P, Y: umap_explicit(P, Y, a, b), a=a, b=b, eps=0.0)
    assert ok.ok, str(ok)
    bad = check_gradient("umap", lambda P, Y: umap_explicit(P, Y, a, b, one_minus_v=False),
                         a=a, b=b, eps=0.0)
    text = "\n".join(bad.diagnoses)
    assert "without its (1 - v_ij) factor" in text
    assert "does not vanish at v_ij = 1" in text
    stronger = check_gradient("umap", lambda P, Y: umap_explicit(P, Y, a, b, repulsion_factor=2.0),
                              a=a, b=b, eps=0.0)
    assert "the repulsion differs" in "\n".join(stronger.diagnoses)


def test_unnormalised_q_and_a_z_with_the_diagonal_are_named():
    def q_is_w(P, Y):
        D2 = ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
        W = 1.0 / (1.0 + D2)
        np.fill_diagonal(W, 0.0)
        m = P > 0
        return float(np.sum(P[m] * np.log(P[m] / W[m]))), _forces(4 * (P - W) * W, Y)

    def z_with_diagonal(P, Y):
        D2 = ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
        W = 1.0 / (1.0 + D2)  # the diagonal's 1s stay in the sum
        Q = W / W.sum()
        np.fill_diagonal(W, 0.0)
        m = P > 0
        return float(np.sum(P[m] * np.log(P[m] / Q[m]))), _forces(4 * (P - Q) * W, Y)

    text = "\n".join(check_gradient("tsne", q_is_w).diagnoses)
    assert "Q not normalised" in text and "N too large" not in text, text
    text = "\n".join(check_gradient("tsne", z_with_diagonal).diagnoses)
    assert "N too large" in text and "Q not normalised" not in text, text


def test_a_gradient_without_umap_s_b_is_named():
    a, b = 1.2, 0.8

    def without_b(P, Y):
        c, g = umap_explicit(P, Y, a, b)
        return c, g / b

    text = "\n".join(check_gradient("umap", without_b, a=a, b=b, eps=0.0).diagnoses)
    assert "1.25 x the reference" in text and "the factor b = 0.8 left out" in text, text


def test_ncvis_objective_instead_of_cost_is_named():
    def objective(P, Y, Q):
        c, g = smallvis.cost_and_gradient("ncvis", P, Y, Q=Q)
        return -c, -g

    text = "\n".join(check_gradient("ncvis", objective).diagnoses)
    assert "sign error" in text and "objective to maximise" in text


def test_user_errors_are_reported_not_raised():
    def broken(P, Y):
        raise RuntimeError("boom")

    report = check_gradient("tsne", broken)
    assert not report.ok and "RuntimeError: boom" in str(report)
    bad_shape = check_gradient("tsne", lambda P, Y: (0.0, np.zeros(3)))
    assert not bad_shape.ok and "shape" in str(bad_shape)


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="perplexity"):
        check_gradient("tsne", student_tsne, perplexity=30)
    with pytest.raises(ValueError, match="unknown method"):
        check_gradient("tsnee", student_tsne)
    with pytest.raises(TypeError, match="callable"):
        check_gradient("tsne", 3)


# --- check_affinities ---------------------------------------------------------


@pytest.fixture(scope="module")
def iris():
    return smallvis.datasets.load("iris")[0][::3]


@pytest.mark.parametrize("method, params", [
    ("asne", dict(perplexity=10)), ("tsne", dict(perplexity=10)),
    ("largevis", dict(perplexity=5, n_neighbors=15)), ("umap", dict(n_neighbors=10)),
    ("ncvis", dict(n_neighbors=10)),
])
def test_check_affinities_passes_the_fast_path(method, params, iris):
    knn = {"knn_method": "exact"} if "n_neighbors" in params else {}
    fn = lambda X: smallvis.affinities(X, method, fast=True, **knn, **params)
    report = check_affinities(method, fn, iris, **params)
    assert report.ok, str(report)


def test_check_affinities_allows_calibration_tolerance_only(iris):
    within = lambda X: smallvis.affinities(X, "tsne", perplexity=10 * np.exp(1e-5))
    assert check_affinities("tsne", within, iris, perplexity=10).ok
    beyond = lambda X: smallvis.affinities(X, "tsne", perplexity=10 * np.exp(1e-3))
    assert not check_affinities("tsne", beyond, iris, perplexity=10).ok


def test_check_affinities_names_mistakes(iris):
    n = len(iris)
    cond = lambda X: smallvis.affinities(X, "asne", perplexity=10) / n
    assert "not symmetrised" in str(check_affinities("tsne", cond, iris, perplexity=10))
    bits = lambda X: smallvis.affinities(X, "tsne", perplexity=10 ** (1 / np.log(2)))
    assert "log2(perplexity)" in str(check_affinities("tsne", bits, iris, perplexity=10))
    k = lambda X: smallvis.affinities(X, "umap", n_neighbors=9)
    assert "counts the point itself" in str(check_affinities("umap", k, iris, n_neighbors=10))
    transposed = lambda X: smallvis.affinities(X, "asne", perplexity=10).T
    assert "transpose" in str(check_affinities("asne", transposed, iris, perplexity=10))


# --- assert_embeddings_close --------------------------------------------------


def test_embeddings_close_up_to_rigid_motion():
    rng = np.random.default_rng(0)
    Y = rng.standard_normal((40, 2))
    theta = 0.7
    R = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    moved = (Y @ R) * np.array([1.0, -1.0]) + np.array([5.0, -3.0])  # rotate, reflect, move
    assert_embeddings_close(Y, moved, rtol=1e-10)
    with pytest.raises(AssertionError):
        assert_embeddings_close(Y, 2.0 * moved, rtol=1e-6)
    assert_embeddings_close(Y, 2.0 * moved, rtol=1e-10, allow_scale=True)


def test_embeddings_with_two_points_swapped_are_rejected():
    rng = np.random.default_rng(1)
    Y = rng.standard_normal((40, 3))
    swapped = Y.copy()
    swapped[[4, 17]] = swapped[[17, 4]]
    with pytest.raises(AssertionError) as info:
        assert_embeddings_close(Y, swapped, rtol=1e-3)
    message = str(info.value)
    assert "point 4" in message and "point 17" in message


def test_embeddings_close_validates():
    with pytest.raises(ValueError, match="same shape"):
        assert_embeddings_close(np.zeros((3, 2)), np.zeros((4, 2)))
    with pytest.raises(ValueError, match="NaN"):
        assert_embeddings_close(np.zeros((3, 2)), np.full((3, 2), np.nan))


# --- diagnoses that must not read meaning into rounding or cancellation ----------


def float32_tsne(P, Y):
    """A correct t-SNE computed in float32, as on a GPU."""
    cost, grad = student_tsne(P.astype(np.float32), Y.astype(np.float32))
    return np.float32(cost), grad.astype(np.float32)


def test_a_correct_float32_function_passes_at_its_precision():
    report = check_gradient("tsne", float32_tsne, rtol=1e-4)
    assert report.ok, str(report)


def test_a_float32_function_held_to_float64_is_told_so():
    report = check_gradient("tsne", float32_tsne)
    assert not report.ok
    text = "\n".join(report.diagnoses)
    assert "float32" in text and "rtol=1e-4" in text
    # and nothing is blamed on a formula
    for wrong in ("repulsion", "Gaussian", "does not sum to zero", "not the gradient"):
        assert wrong not in text, text


def test_a_float32_mistake_is_still_named():
    def bad(P, Y):
        cost, grad = float32_tsne(P, Y)
        return cost, -grad
    for rtol in (1e-6, 1e-4, 1e-3):
        text = "\n".join(check_gradient("tsne", bad, rtol=rtol).diagnoses)
        assert "sign error" in text, text
        assert "does not sum to zero" not in text, text  # float32's rounding, not a mistake
        # the advice to loosen rtol only where it is tighter than float32 allows
        assert ("rtol=1e-4" in text) == (rtol < 1e-4), text


def test_float16_failures_are_put_down_to_its_rounding_alone():
    def half(P, Y):
        cost, grad = student_tsne(P, Y)
        return np.float16(cost), grad.astype(np.float16)
    report = check_gradient("tsne", half)
    assert not report.ok
    assert len(report.diagnoses) == 1, report.diagnoses  # no pattern read in the rounding
    assert "float16" in report.diagnoses[0] and "rtol=1e-1" in report.diagnoses[0]
    assert check_gradient("tsne", half, rtol=0.1).ok


def largevis_log_one_minus_w(P, Y, gamma=0.01):
    """LargeVis's exact cost and gradient, with log(1 - w) formed as written."""
    diff = Y[:, None] - Y[None]
    off = ~np.eye(len(Y), dtype=bool)
    D2 = np.where(off, (diff ** 2).sum(-1), 1.0)
    W = 1 / (1 + D2)
    cost = np.sum(np.where(off, -P * np.log(W) - gamma * np.log1p(-W), 0.0))
    K = np.where(off, W * P - gamma * W / D2, 0.0)
    return float(cost), 4 * np.einsum("ij,ijk->ik", K, diff)


def test_a_cancellation_at_near_coincident_points_is_named():
    """log(1 - w) loses its digits only where two points nearly coincide."""
    report = check_gradient("largevis", largevis_log_one_minus_w, gamma=0.01, eps=0.0)
    failed = [c.name for c in report.failed]
    assert failed and all("coincident" in name for name in failed), str(report)
    text = "\n".join(report.diagnoses)
    assert "near-coincident" in text and "log1p" in text
    assert "does not depend on Y" not in text  # no offset made of other cases' rounding


def test_a_failure_elsewhere_is_not_blamed_on_the_near_coincident_pair():
    def nan_when_wide(P, Y):
        cost, grad = largevis_log_one_minus_w(P, Y)
        return (np.nan, grad) if np.ptp(Y) > 100 else (cost, grad)
    report = check_gradient("largevis", nan_when_wide, gamma=0.01, eps=0.0)
    assert any("coincident" not in c.name for c in report.failed)
    assert "near-coincident pair fail" not in "\n".join(report.diagnoses)


def test_a_cost_offset_is_measured_on_the_failing_cases_only():
    """A cost off by 0.5 from 30 points up: the offsets listed are those, not rounding."""
    def offset_from_30(P, Y):
        cost, grad = student_tsne(P, Y)
        return cost + (0.5 if len(Y) >= 30 else 0.0), grad
    text = "\n".join(check_gradient("tsne", offset_from_30).diagnoses)
    assert "does not depend on Y" in text, text
    listed = re.search(r"differences ([^)]*)\)", text).group(1).split(", ")
    assert listed and all(abs(float(v) - 0.5) < 1e-9 for v in listed), text


def test_a_wrong_row_is_not_reported_as_a_factor_of_one():
    def last_row_zero(P, Y):
        cost, grad = student_tsne(P, Y)
        grad[-1] = 0.0
        return cost, grad
    text = "\n".join(check_gradient("tsne", last_row_zero).diagnoses)
    assert "not the gradient of your own cost" in text
    assert "1 x the finite-difference" not in text


def test_an_auto_parameter_s_values_are_given_per_case():
    reference = _fast_path("largevis", {})
    notes = "\n".join(check_gradient("largevis", reference).notes)
    # largevis's gamma="auto" is M gamma_ref / (N (N - 1)) with the reference's
    # M = 5 negatives and gamma_ref = 7 (the method's page)
    n = 30
    assert f"{5 * 7 / (n * (n - 1)):.4g} at N = {n}" in notes and "gamma='auto'" in notes
