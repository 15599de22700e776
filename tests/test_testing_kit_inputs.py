"""check_gradient on functions that raise or return what is not a real (cost, gradient).

Each kind of failure must fail the check with a message that says what
happened; none may pass (with or without a warning) or be reported as "the
largest gradient error ... at point -1".
"""

import warnings

import numpy as np
import pytest

import smallvis
from conftest import perplexity_and_fuzzy_methods
from smallvis.testing import assert_gradient, check_gradient

#: two cases are enough to see each failure; the battery is slower
CASES = [
    (np.array([[0.0, 0.3, 0.2], [0.3, 0.0, 0.0], [0.2, 0.0, 0.0]]),
     np.array([[0.0, 1.0], [1.0, 0.5], [-0.5, 2.0]])),
    (np.array([[0.0, 0.5], [0.5, 0.0]]), np.array([[0.1], [-0.2]])),
]


def _reference(method):
    def fn(P, Y):
        return smallvis.cost_and_gradient(method, P, Y)
    return fn


def _check(method, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning is not a way to report a failure
        return check_gradient(method, fn, cases=CASES)


def test_the_cases_pass_with_the_reference():
    assert _check("tsne", _reference("tsne")).ok


def test_a_function_that_raises_is_reported_by_its_exception():
    def raises(P, Y):
        raise RuntimeError("not written yet")
    report = _check("tsne", raises)
    assert not report.ok
    assert all("RuntimeError: not written yet" in c.problem for c in report.cases)
    assert any("RuntimeError: not written yet" in d for d in report.diagnoses)
    assert "point -1" not in str(report)


def test_a_function_that_raises_fails_assert_gradient_with_its_exception():
    def raises(P, Y):
        raise KeyError("P")
    with pytest.raises(AssertionError, match="KeyError"):
        assert_gradient("ssne", raises, cases=CASES)


def _spoiled(method, spoil):
    ref = _reference(method)
    def fn(P, Y):
        cost, grad = ref(P, Y)
        return spoil(cost, grad)
    return fn


@pytest.mark.parametrize("method", perplexity_and_fuzzy_methods())
@pytest.mark.parametrize("spoil, words", [
    (lambda c, g: (c, g + 0j), "gradient is complex"),
    (lambda c, g: (c, g * (1 + 1e-3j)), "gradient is complex"),
    (lambda c, g: (complex(c), g), "cost is complex"),
    (lambda c, g: (np.complex128(c), g), "cost is complex"),
    (lambda c, g: (np.array([c, c]), g), "cost must be a scalar"),
    (lambda c, g: (str(c), g), "cost must be real numbers"),
    (lambda c, g: (c, g.astype(str)), "gradient must be real numbers"),
    (lambda c, g: (c, g.ravel()), "gradient has shape"),
    (lambda c, g: (c,), "must return (cost, gradient)"),
])
def test_a_return_value_that_is_not_a_real_cost_and_gradient_fails(method, spoil, words):
    report = _check(method, _spoiled(method, spoil))
    assert not report.ok
    assert all(words in c.problem for c in report.failed)
    assert any(words in d for d in report.diagnoses)
    assert "point -1" not in str(report)


@pytest.mark.parametrize("spoil, what", [
    (lambda c, g: (np.nan, g), "non-finite cost"),
    (lambda c, g: (c, np.full_like(g, np.inf)), "non-finite gradient"),
    (lambda c, g: (np.inf, np.full_like(g, np.nan)), "non-finite cost and gradient"),
])
def test_a_non_finite_cost_or_gradient_fails(spoil, what):
    report = _check("tsne", _spoiled("tsne", spoil))
    assert not report.ok
    assert all(c.problem == what for c in report.cases)
    assert "point -1" not in str(report)
    assert f"{what} in " in "\n".join(report.diagnoses)


def test_non_finite_output_in_the_whole_battery_is_not_blamed_on_distances():
    # the battery has far points and a near-coincident pair: NaN in all of
    # them, ordinary ones too, is no underflow or overflow of distances
    report = check_gradient("tsne", _spoiled("tsne", lambda c, g: (np.nan, g)))
    text = "\n".join(report.diagnoses)
    assert "non-finite cost in every case" in text
    assert "log-sum-exp" not in text and "coincident points" not in text


def test_non_finite_output_in_every_case_of_a_far_battery_keeps_the_far_advice():
    # every case the user gave is far: underflow stays the likely cause
    Y = np.random.default_rng(0).normal(size=(12, 2)) * 1000.0
    P = np.full((12, 12), 1.0 / 132)
    np.fill_diagonal(P, 0.0)
    report = check_gradient("tsne", _spoiled("tsne", lambda c, g: (np.nan, g)),
                            cases=[(P, Y)])
    text = "\n".join(report.diagnoses)
    assert "every case" not in text


def test_a_third_value_is_refused_for_a_method_that_learns_no_scalar():
    report = _check("tsne", _spoiled("tsne", lambda c, g: (c, g, 0.0)))
    assert not report.ok
    assert all("three values" in c.problem for c in report.cases)


@pytest.mark.parametrize("shape", [(1,), (1, 1), (1, 1, 1)])
def test_a_one_element_array_is_not_a_scalar_cost(shape):
    report = _check("tsne", _spoiled("tsne", lambda c, g: (np.full(shape, c), g)))
    assert not report.ok
    assert all("cost must be a scalar" in c.problem for c in report.failed)


@pytest.mark.parametrize("as_scalar", [float, np.float64, np.asarray])
def test_a_number_or_a_0_d_array_is_a_scalar_cost(as_scalar):
    report = _check("tsne", _spoiled("tsne", lambda c, g: (as_scalar(c), g)))
    assert report.ok, str(report)


def test_user_cases_of_the_wrong_form_are_refused_with_the_case_named():
    P, Y = CASES[0]
    ref = _reference("tsne")
    with pytest.raises(ValueError, match="cases is empty"):
        check_gradient("tsne", ref, cases=[])
    with pytest.raises(ValueError, match=r"user case 1: Y must be 2-D"):
        check_gradient("tsne", ref, cases=[(P, Y), (P, Y[:, 0])])
    with pytest.raises(ValueError, match=r"user case 0: P must be \(3, 3\)"):
        check_gradient("tsne", ref, cases=[(P[:2, :2], Y)])
    with pytest.raises(ValueError, match=r"user case 0: tsne's P sums to 1, this one to 5"):
        check_gradient("tsne", ref, cases=[(5 * P / P.sum(), Y)])
    with pytest.raises(ValueError, match=r"user case 0: each row of asne's P sums to 1"):
        check_gradient("asne", _reference("asne"), cases=[(P, Y)])
    with pytest.raises(ValueError, match=r"extra case 0: Y must be 2-D"):
        check_gradient("tsne", ref, cases=[(P, Y)], extra_cases=[(P, Y[:, 0])])
    # a float32 P sums to 1 to float32's rounding, which is allowed for
    assert check_gradient("tsne", ref, cases=[(P.astype(np.float32), Y)]).ok
    # memberships are not normalised: any total is the method's own
    assert check_gradient("umap", _reference("umap"), cases=[(P, Y)]).ok
