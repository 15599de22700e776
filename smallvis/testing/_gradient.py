"""``check_gradient`` and ``assert_gradient``: a user's cost and gradient against the reference."""

import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..api import cost_and_gradient
from ..registry import resolve_method
from ._call import UserOutputError, call_user
from ._cases import GradientCase, default_cases
from ._diagnose import diagnose
from ._mistakes import reference_terms, resolved_params
from ._report import CaseResult, GradientReport

__all__ = ["assert_gradient", "check_gradient"]

_EPS = np.finfo(np.float64).eps

#: Finite-difference step, relative to the spread of Y (and at most 1% of
#: the smallest distance between two output points).
FD_STEP = 1e-3


@dataclass
class Trial:
    """Everything computed for one case (the diagnosis reads it)."""

    case: GradientCase
    result: CaseResult
    learned: tuple
    cost_user: float = float("nan")
    cost_ref: float = float("nan")
    grad_user: np.ndarray = None
    grad_ref: np.ndarray = None
    terms_ref: tuple = None
    finite: bool = False
    #: what went wrong calling ``fn`` ("raised RuntimeError: ..." or
    #: "returned ..."), None when it returned a real cost and gradient
    failure: str = None
    #: machine epsilon of what ``fn`` returned (float32's for a float32
    #: cost or gradient): the scale of its rounding errors
    eps: float = _EPS


def _point_norms(G):
    return np.linalg.norm(G, axis=1)


def _fd_step(Y):
    centred = Y - Y.mean(axis=0)
    spread = float(np.sqrt(np.mean(centred ** 2)))
    d = np.sqrt(np.maximum(np.sum((Y[:, None, :] - Y[None, :, :]) ** 2, axis=-1), 0.0))
    positive = d[d > 0]
    step = FD_STEP * spread
    if positive.size:
        step = min(step, 1e-2 * float(positive.min()))
    return step


def _finite_differences(fn, case, learned, sparse, grad, rng, eps=_EPS):
    """Directional derivatives of the user's cost against the user's gradient.

    ``eps`` is the machine epsilon of the user's arithmetic: the costs'
    rounding noise, divided by the step, bounds how well the slope can be
    known.  Returns (error relative to |grad|, ratio, passed).
    """
    norm = float(np.linalg.norm(grad))
    h = _fd_step(case.Y)
    if not h > 0:
        return None, None, True
    directions = []
    if norm > 0:
        directions.append(grad / norm)
    v = rng.standard_normal(case.Y.shape)
    directions.append(v / np.linalg.norm(v))
    worst, ratio, passed = 0.0, None, True
    for k, v in enumerate(directions):
        costs = [call_user(fn, case.P, case.Y + t * h * v, learned, sparse)[0]
                 for t in (-2, -1, 1, 2)]
        slope = (costs[0] - 8 * costs[1] + 8 * costs[2] - costs[3]) / (12 * h)
        analytic = float(np.sum(grad * v))
        noise = 20 * eps * max(abs(c) for c in costs) / h
        error = abs(slope - analytic)
        scale = norm if norm > 0 else 1.0
        worst = max(worst, error / scale)
        if not (error <= 1e-6 * scale + noise) or not np.isfinite(slope):
            passed = False
        if k == 0 and norm > 0:
            ratio = slope / norm
    return worst, ratio, passed


def _as_case(case, m, name):
    if isinstance(case, GradientCase):
        return case
    if isinstance(case, (tuple, list)) and len(case) in (2, 3):
        given = case[0].toarray() if sp.issparse(case[0]) else np.asarray(case[0])
        P = given.astype(np.float64)
        Y = np.asarray(case[1], dtype=np.float64)
        _check_user_case(P, Y, m, name, _sum_tolerance(given.dtype))
        learned = {}
        if len(case) == 3:
            if not m.learned:
                raise ValueError(f"{m.name} has no learned scalars; give cases as (P, Y)")
            learned = {m.learned[0]: float(case[2])}
        return GradientCase(name=name, P=P, Y=Y, learned=learned)
    raise TypeError("cases must be GradientCase objects or (P, Y) tuples "
                    "((P, Y, Q) for ncvis)")


def _sum_tolerance(dtype):
    """How far from 1 a normalised P's sum may be: its rounding in ``dtype`` allowed for."""
    eps = float(np.finfo(dtype).eps) if np.issubdtype(dtype, np.floating) else 0.0
    return max(1e-9, 1000 * eps)


def _check_user_case(P, Y, m, where, tol=1e-9):
    """A user's ``(P, Y)`` of the shapes and normalisation the method's cost takes."""
    if Y.ndim != 2 or Y.shape[0] < 2 or Y.shape[1] < 1:
        raise ValueError(f"{where}: Y must be 2-D, (n_points >= 2, n_dims >= 1); got "
                         f"shape {Y.shape} (a single dimension is Y[:, None])")
    if P.shape != (Y.shape[0], Y.shape[0]):
        raise ValueError(f"{where}: P must be ({Y.shape[0]}, {Y.shape[0]}) for Y of shape "
                         f"{Y.shape}; got {P.shape}")
    if not (np.all(np.isfinite(P)) and np.all(np.isfinite(Y))):
        raise ValueError(f"{where}: P and Y must be finite")
    # the reference takes P as the method builds it: a total of 1, or rows of 1
    rule = m.p_family.normalised
    sums = P.sum(axis=1) if rule == "rows" else np.array([P.sum()])
    if rule and not np.allclose(sums, 1.0, rtol=0, atol=tol):
        worst = float(sums[np.argmax(np.abs(sums - 1))])
        if rule == "rows":
            raise ValueError(f"{where}: each row of {m.name}'s P sums to 1, a row of this one "
                             f"to {worst:.10g}; pass P / P.sum(axis=1, keepdims=True)")
        raise ValueError(f"{where}: {m.name}'s P sums to 1, this one to {worst:.10g}; "
                         "pass P / P.sum()")


def _run_case(m, fn, case, fixed_params, learned_override, sparse, rtol, exact, rng):
    learned = tuple(float(learned_override.get(k, case.learned.get(k, m.cost_params[k])))
                    for k in m.learned)
    result = CaseResult(name=case.name, n_samples=case.Y.shape[0],
                        n_components=case.Y.shape[1])
    trial = Trial(case=case, result=result, learned=learned)
    # "auto" defaults (largevis's gamma) take their value for this case's N
    params = m.resolve_auto({**fixed_params, **dict(zip(m.learned, learned))},
                            case.Y.shape[0])
    c_ref, g_ref, d_ref = cost_and_gradient(m.name, case.P, case.Y, return_learned=True,
                                            **params)
    trial.cost_ref, trial.grad_ref = c_ref, g_ref
    trial.terms_ref = reference_terms(m.name, case.P, case.Y, params)
    result.reference_cost = c_ref
    try:
        c_user, g_user, d_user, trial.eps = call_user(fn, case.P, case.Y, learned, sparse,
                                                      precision=True)
    except UserOutputError as exc:  # a complex, non-numeric or misshapen return value
        trial.failure = f"returned an unusable value: {exc}"
        result.problem = f"fn {trial.failure}"
        return trial
    except Exception as exc:  # the user's code: report, never crash
        trial.failure = f"raised {type(exc).__name__}: {exc}"
        result.problem = f"fn {trial.failure}"
        return trial
    trial.cost_user, trial.grad_user = c_user, g_user
    result.cost = c_user
    bad = [what for what, finite in (("cost", np.isfinite(c_user)),
                                     ("gradient", np.all(np.isfinite(g_user)))) if not finite]
    if bad:
        result.problem = "non-finite " + " and ".join(bad)
        return trial
    trial.finite = True
    cost_scale = max(abs(c_ref), float(np.sum(case.P)))
    result.cost_error = abs(c_user - c_ref) / cost_scale
    errors = _point_norms(g_user - g_ref)
    grad_scale = float(_point_norms(g_ref).max())
    if trial.terms_ref is not None:
        grad_scale = max(grad_scale, *(float(_point_norms(t).max()) for t in trial.terms_ref))
    grad_scale = max(grad_scale, np.finfo(float).tiny)
    result.gradient_max_abs_error = float(errors.max())
    result.gradient_max_rel_error = float(errors.max()) / grad_scale
    result.worst_point = int(np.argmax(errors))
    problems = []
    if not result.cost_error <= rtol:
        problems.append("cost")
    if not result.gradient_max_rel_error <= rtol:
        problems.append("gradient")
    if d_user is not None and m.learned:
        for name, u, r in zip(m.learned, d_user, np.atleast_1d(d_ref[m.learned[0]])):
            err = abs(u - r) / max(abs(r), float(np.sum(case.P)))
            result.learned_error[name] = err
            if not err <= rtol:
                problems.append(f"d/d{name}")
    if exact and case.finite_differences:
        try:
            result.fd_error, result.fd_ratio, fd_ok = _finite_differences(
                fn, case, learned, sparse, g_user, rng, trial.eps)
        except UserOutputError as exc:
            fd_ok = False
            problems.append(f"fn returned an unusable value near Y: {exc}")
        except Exception as exc:
            fd_ok = False
            problems.append(f"fn raised {type(exc).__name__} near Y: {exc}")
        if not fd_ok:
            problems.append("gradient vs own cost")
    result.problem = ", ".join(problems)
    result.passed = not problems
    return trial


def check_gradient(method, fn, *, cases=None, extra_cases=(), sparse=False, rtol=1e-6,
                   **method_params):
    r"""Check a user's cost and gradient of ``method`` against the reference.

    On each case of a battery (see :func:`default_cases`: dense and
    kNN-sparse ``P`` from real and synthetic data, 2 to 36 points, output
    dimensions 1 to 3, ``Y`` at scales from 1e-3 to 1e3, a near-coincident
    pair), ``fn`` is compared with :func:`smallvis.cost_and_gradient` (the
    NumPy reference), and its gradient with central finite differences of
    its own cost.  When they disagree, the report says how (a constant
    factor, a sign, a cost off by a constant or a factor, the attraction or
    the repulsion, a known mistake).

    Parameters
    ----------
    method : str
        A name from :func:`smallvis.list_methods`.
    fn : callable
        ``fn(P, Y)`` returning ``(cost, gradient)``: ``P`` an ndarray of
        shape (n, n) (a ``scipy.sparse.csr_matrix`` with ``sparse=True``),
        ``Y`` of shape (n, d), ``gradient`` of shape (n, d).  Methods with
        learned scalars get them as extra arguments: for ncvis,
        ``fn(P, Y, Q)``, which may return ``(cost, gradient)`` or
        ``(cost, gradient, dcost_dQ)`` (then the derivative in ``Q`` is
        checked too).  The cost is the method's cost as minimised (for ncvis
        :math:`-J`); constant terms included, or the report will say they
        are missing.
    cases : list, optional
        Replace the battery (at least one case): :class:`GradientCase`
        objects or ``(P, Y)`` tuples (``(P, Y, Q)`` for ncvis), ``Y`` of
        shape (n, d) and ``P`` of shape (n, n), normalised as the method's
        own (summing to 1 for tsne, largevis and ncvis).
    extra_cases : list, optional
        Cases run in addition to the battery, in the same forms.
    sparse : bool, default=False
        Pass ``P`` to ``fn`` as a ``scipy.sparse.csr_matrix``.
    rtol : float, default=1e-6
        Tolerance on the relative errors (costs relative to the larger of
        ``|cost|`` and ``sum(P)``; gradients relative to the largest norm of
        a point's reference gradient, or of its attractive or repulsive part).
        The finite-difference check uses 1e-6 plus the rounding noise of the
        cost, in the precision ``fn`` returns (float32 or float64).  A
        function that computes in float32 needs an ``rtol`` of about 1e-4:
        the report says so when its failures are that small.
    **method_params
        The method's cost parameters, as for :func:`smallvis.cost_and_gradient`
        (e.g. ``eps=0``, ``a=..., b=...``, ``gamma=...``).  For ncvis, a ``Q``
        given here is used in every case instead of the battery's values
        (0, 2 and -1).  The finite-difference check applies only when the
        reference gradient is the exact gradient of its cost: for largevis,
        umap and tumap pass ``eps=0`` to include it.

    Returns
    -------
    GradientReport
        ``.ok``, ``.cases`` (one :class:`CaseResult` each), ``.diagnoses``,
        and a readable ``str()``.

    Examples
    --------
    >>> import numpy as np
    >>> from smallvis.testing import check_gradient
    >>> def tsne(P, Y):
    ...     D2 = ((Y[:, None] - Y[None]) ** 2).sum(-1)
    ...     W = 1 / (1 + D2); np.fill_diagonal(W, 0)
    ...     Q = W / W.sum()
    ...     cost = np.sum(P[P > 0] * np.log(P[P > 0] / Q[P > 0]))
    ...     K = 4 * (P - Q) * W
    ...     return cost, K.sum(1)[:, None] * Y - K @ Y
    >>> check_gradient("tsne", tsne).ok
    True
    """
    m, method_params = resolve_method(method, method_params)
    if not callable(fn):
        raise TypeError(f"fn must be callable; got {fn!r}")
    if isinstance(rtol, bool) or not isinstance(rtol, numbers.Real) or not rtol > 0:
        raise ValueError(f"rtol must be a positive number; got {rtol!r}")
    unknown = set(method_params) - set(m.cost_params)
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {', '.join(map(repr, sorted(unknown)))} for the cost of "
            f"{m.name!r}; valid: {', '.join(m.cost_params) or 'none'}")
    learned_override = {k: method_params[k] for k in m.learned if k in method_params}
    fixed = {k: v for k, v in method_params.items() if k not in m.learned}
    resolved = resolved_params(m.name, fixed, None)
    fixed_params = {k: v for k, v in resolved.items()
                    if k not in m.learned and k in m.cost_params}
    # the fitted a, b replace spread and min_dist
    fixed_params = {k: v for k, v in fixed_params.items() if k not in m.fit_inputs}
    given = default_cases(m.name) if cases is None else list(cases)
    if not given:
        raise ValueError("cases is empty: give at least one case, or leave cases out for "
                         "the battery")
    all_cases = [_as_case(c, m, f"user case {i}") for i, c in enumerate(given)]
    all_cases += [_as_case(c, m, f"extra case {i}") for i, c in enumerate(extra_cases)]
    exact = m.exact_gradient is None or m.exact_gradient(fixed_params)
    rng = np.random.default_rng(18)
    trials = [_run_case(m, fn, c, fixed_params, learned_override, sparse, rtol, exact, rng)
              for c in all_cases]
    report = GradientReport(method=m.name, params=fixed_params,
                            cases=[t.result for t in trials], rtol=float(rtol))
    for name, value in fixed_params.items():
        if isinstance(value, str) and value == "auto" and name in m.auto_params:
            sizes = sorted({c.Y.shape[0] for c in all_cases})
            resolved = ", ".join(f"{m.resolve_auto(fixed_params, n)[name]:.4g} at N = {n}"
                                 for n in sizes)
            report.notes.append(f"{name}='auto' takes its value from each case's number of "
                                f"points N: {resolved}; your function must do the same, or "
                                f"pass {name}= a number")
    if not exact:
        report.notes.append(
            "the finite-difference check of your gradient against your own cost was skipped: "
            f"with eps = {fixed_params.get('eps')} the {m.name} gradient is by design not the "
            "exact gradient of the cost; pass eps=0 to include it")
    diagnose(report, trials, fn, m, fixed_params, sparse, rtol)
    return report


def assert_gradient(method, fn, **kwargs):
    """:func:`check_gradient`, raising ``AssertionError`` with the report on failure.

    For a user's pytest suite::

        def test_my_tsne():
            smallvis.testing.assert_gradient("tsne", my_tsne_cost_and_gradient)

    Parameters
    ----------
    method, fn, **kwargs
        As :func:`check_gradient`.

    Returns
    -------
    GradientReport
        When every case passed.
    """
    report = check_gradient(method, fn, **kwargs)
    if not report.ok:
        raise AssertionError("\n" + str(report))
    return report
