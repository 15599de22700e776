"""Turn the differences found by :func:`check_gradient` into words.

The checks, in the order the report lists them:

0. a function that computes in float32, whose rounding an ``rtol`` below
   about 1e-4 reports as errors;
1. non-finite output (and where: large scales, near-coincident points);
2. the gradient as a constant multiple of the reference (sign, factor 2,
   openTSNE's missing factor 4, ...);
3. the cost as a constant multiple of the reference (logarithm base, sign)
   or off by a term that does not depend on ``Y``;
4. which term differs: the part of the gradient that varies with ``P``
   (attraction) or the part that does not (repulsion);
5. a match with a known mistake of the method (:mod:`._mistakes`);
6. forces that are not equal and opposite (the gradient does not sum to zero);
7. errors that grow or shrink with the scale of ``Y``;
8. consistency of the user's gradient with the user's own cost;
9. failures on near-coincident points only (a cancellation).
"""

import numpy as np

from ._call import call_user
from ._mistakes import KNOWN_MISTAKES, reference_terms

__all__ = ["diagnose"]

#: Relative residual below which a least-squares fit counts as exact.
FIT_TOL = 1e-6

#: Constant factors with a name: value -> explanation.
_NAMED_FACTORS = (
    (-1.0, "a sign error: your gradient points uphill"),
    (0.25, "openTSNE's convention omits t-SNE's factor 4 (for the same steps its "
           "learning rate is 4 times smallvis's); multiply by 4"),
    (0.5, "a factor of 2: e.g. a sum over unordered pairs i < j only, or the 2 of "
          "d(d^2)/dy_i = 2 (y_i - y_j) left out"),
    (2.0, "a factor of 2: e.g. each pair counted twice, or the 2 of d(d^2)/dy_i "
          "counted twice"),
    (4.0, "an extra factor 4"),
    (-0.25, "a sign error and openTSNE's convention without the factor 4"),
    (1 / np.log(2), "a cost in bits (log base 2) instead of nats"),
    (np.log(2), "natural logarithms where base-2 was expected"),
)

_COST_FACTORS = (
    (-1.0, "the sign: you return the objective to maximise (for ncvis J) instead of "
           "the cost to minimise"),
    (1 / np.log(2), "a cost in bits: log base 2 instead of the natural logarithm, "
                    "a factor 1/ln 2 = 1.4427"),
    (1 / np.log(10), "log base 10 instead of the natural logarithm, a factor 1/ln 10"),
    (0.5, "a factor of 1/2: e.g. a sum over unordered pairs i < j only"),
    (2.0, "a factor of 2: e.g. each pair counted twice"),
)


def _name_factor(k, table, rtol=1e-6):
    for value, text in table:
        if abs(k - value) <= rtol * abs(value):
            return text
    return None


def _parameter_factor(k, trials, rtol=1e-6):
    """``k`` named by a cost parameter that every case shares: UMAP's ``b`` left out is 1/b."""
    shared = dict(trials[0].params)
    for t in trials[1:]:
        shared = {n: v for n, v in shared.items() if t.params.get(n) == v}
    for name, value in sorted(shared.items()):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if not np.isfinite(value) or value in (0.0, 1.0):
            continue
        for factor, text in ((1.0 / value, f"the factor {name} = {value:.6g} left out"),
                             (float(value), f"an extra factor {name} = {value:.6g}")):
            if abs(k - factor) <= rtol * abs(factor):
                return text
    return None


def _scalar_fit(pairs):
    """Best k with user ~ k * ref over the pairs, and the relative residual."""
    num = sum(float(np.sum(u * r)) for u, r in pairs)
    den = sum(float(np.sum(r * r)) for u, r in pairs)
    if not den > 0:
        return None, np.inf
    k = num / den
    res = np.sqrt(sum(float(np.sum((u - k * r) ** 2)) for u, r in pairs))
    scale = np.sqrt(sum(float(np.sum(u * u)) for u, r in pairs))
    return k, (res / scale if scale > 0 else np.inf)


def _fit_tol(trials):
    """:data:`FIT_TOL`, or 100 epsilons of what ``fn`` returned if that is coarser.

    A float32 gradient is a constant multiple of the reference only to some
    tens of its epsilons, and how many depends on the BLAS kernels that
    rounded it (OpenBLAS's generic ones on a CPU it does not know).
    """
    return max(FIT_TOL, 100 * _user_eps(trials))


def _gradient_factor(good, m):
    # each case weighs the same, whatever the size of its gradient
    pairs = [(t.grad_user / np.linalg.norm(t.grad_ref), t.grad_ref / np.linalg.norm(t.grad_ref))
             for t in good if np.any(t.grad_ref)]
    k, res = _scalar_fit(pairs)
    tol = _fit_tol(good)
    if k is None or res > tol or abs(k - 1) <= tol:
        return None, k
    name = (_name_factor(k, _NAMED_FACTORS, rtol=tol)
            or _parameter_factor(k, good, rtol=tol))
    if k == 0.25 or abs(k - 0.25) <= 1e-6 * 0.25:
        if not m.factor_4_convention:
            name = "a factor 1/4"
    text = f"your gradient is {k:.6g} x the reference in every case"
    return text + (f": {name}" if name else ""), k


def _cost_constant(trials, m, fn, sparse, call_user, rtol):
    """Cost off by a factor, or by a term that does not depend on Y."""
    from ..api import cost_and_gradient

    good = [t for t in trials
            if t.finite and abs(t.cost_ref) > 1e-8 * float(np.sum(t.case.P))]
    if not good or all(t.result.cost_error <= rtol for t in good):
        return []
    ratios = np.array([t.cost_user / t.cost_ref for t in good])
    if np.all(np.abs(ratios - ratios[0]) <= 1e-8 * abs(ratios[0])) and abs(ratios[0] - 1) > 1e-6:
        name = _name_factor(ratios[0], _COST_FACTORS)
        return [f"your cost is {ratios[0]:.6g} x the reference in every case"
                + (f": {name}" if name else "")]
    # does the difference depend on Y?  Compare it at a second Y, in the
    # cases whose cost failed (the others differ by rounding only)
    wrong = [t for t in good if not t.result.cost_error <= rtol]
    rng = np.random.default_rng(3)
    constant_in_y, offsets = True, []
    for t in wrong[:4]:
        Y2 = t.case.Y + 0.1 * np.std(t.case.Y) * rng.standard_normal(t.case.Y.shape)
        params = dict(t.params)
        c_user2 = call_user(fn, t.case.P, Y2, t.learned, sparse)[0]
        c_ref2 = cost_and_gradient(m.name, t.case.P, Y2, **params)[0]
        d1, d2 = t.cost_user - t.cost_ref, c_user2 - c_ref2
        offsets.append(d1)
        if not abs(d1 - d2) <= 1e-8 * max(abs(t.cost_ref), abs(c_ref2), 1.0):
            constant_in_y = False
    if not constant_in_y:
        return []
    text = ("your cost differs from the reference by a term that does not depend on Y "
            "(so the gradient is unaffected)")
    known = _known_constant(wrong[:4], m)
    if known is not None and np.allclose(offsets, known[0], rtol=1e-6, atol=1e-12):
        return [text + f": you left out {known[1]}"]
    if np.allclose(offsets, -np.asarray(known[0]) if known else np.nan, rtol=1e-6):
        return [text + f": the sign of {known[1]} is flipped"]
    return [text + f" (differences {', '.join(f'{o:.6g}' for o in offsets)})"]


def _known_constant(trials, m):
    """The Y-independent terms of the reference costs, as user - reference offsets."""
    from scipy.special import xlogy

    term = m.constant_term
    if not term:
        return None
    values = []
    for t in trials:
        P = t.case.P.copy()
        np.fill_diagonal(P, 0.0)
        if term == "entropy":
            values.append(-float(np.sum(xlogy(P, P))))
        else:
            off = ~np.eye(len(P), dtype=bool)
            values.append(-float(np.sum((xlogy(P, P) + xlogy(1 - P, 1 - P))[off])))
    if term == "entropy":
        return values, "the constant term sum p log p (the negative entropy of P)"
    return values, "the constant terms sum [v log v + (1 - v) log(1 - v)] of the memberships"


def _fuzzy_term_split(t, m, fn, sparse, call_user):
    """UMAP-type costs: probe with memberships of 0 and 1 only.

    Where v_ij = 1 the exact gradient is pure attraction (the repulsion has
    a factor 1 - v_ij), where v_ij = 0 pure repulsion.  ``star``: point 0
    has v = 1 with every other point (its gradient is attraction only);
    ``pair``: only v_01 = 1 (points 2, 3, ... feel repulsion only).
    """
    from ..api import cost_and_gradient

    n = t.case.n_samples
    star = np.zeros((n, n))
    star[0, 1:] = star[1:, 0] = 1.0
    pair = np.zeros((n, n))
    pair[0, 1] = pair[1, 0] = 1.0
    errors = []
    for P, rows in ((star, [0]), (pair, list(range(2, n)))):
        g_user = call_user(fn, P, t.case.Y, t.learned, sparse)[1]
        g_ref = cost_and_gradient(m.name, P, t.case.Y, **t.params)[1]
        scale = max(np.linalg.norm(g_ref[rows], axis=1).max(), 1e-300)
        errors.append(np.linalg.norm((g_user - g_ref)[rows], axis=1).max() / scale)
    attraction_ok, repulsion_ok = (e <= 1e-6 for e in errors)
    if attraction_ok and not repulsion_ok:
        return ["your gradient agrees where v_ij = 1 (pure attraction) but not where v_ij = 0 "
                "(pure repulsion): the repulsion differs"]
    if repulsion_ok and not attraction_ok:
        return ["your gradient agrees where v_ij = 0 (pure repulsion) but not where v_ij = 1, "
                "where the exact gradient is pure attraction: either the attraction differs, or "
                "your repulsion does not vanish at v_ij = 1 (its factor (1 - v_ij))"]
    if not (attraction_ok or repulsion_ok):
        return ["your gradient differs both where v_ij = 1 (pure attraction) and where "
                "v_ij = 0 (pure repulsion)"]
    return []


def _term_split(trials, m, fn, sparse, call_user):
    """Attraction (linear in P) or repulsion (independent of P)?"""
    if m.learned:
        return []
    candidates = [t for t in trials if t.finite and not t.result.passed
                  and t.case.n_samples >= 10 and t.terms_ref is not None]
    if not candidates:
        return []
    t = candidates[0]
    if m.fuzzy:
        try:
            return _fuzzy_term_split(t, m, fn, sparse, call_user)
        except Exception:  # the user's function failed on the probe
            return []
    rng = np.random.default_rng(5)
    perm = rng.permutation(t.case.n_samples)
    P2 = np.ascontiguousarray(t.case.P[np.ix_(perm, perm)])
    try:
        g2 = call_user(fn, P2, t.case.Y, t.learned, sparse)[1]
    except Exception:
        return []
    if not np.all(np.isfinite(g2)):
        return []
    A1, R = t.terms_ref
    A2, R2 = reference_terms(m.name, P2, t.case.Y, t.params)
    # least squares: g_user(P) = alpha A(P) + beta R
    M = np.column_stack([np.concatenate([A1.ravel(), A2.ravel()]),
                         np.concatenate([R.ravel(), R2.ravel()])])
    rhs = np.concatenate([t.grad_user.ravel(), g2.ravel()])
    coef, *_ = np.linalg.lstsq(M, rhs, rcond=None)
    residual = np.linalg.norm(M @ coef - rhs) / max(np.linalg.norm(rhs), 1e-300)
    alpha, beta = coef
    if residual <= _fit_tol([t]) and not (abs(alpha - 1) <= 1e-6 and abs(beta - 1) <= 1e-6):
        if abs(alpha - beta) <= 1e-6 * max(abs(alpha), 1):
            return []  # a plain constant factor, reported already
        parts = []
        if abs(alpha - 1) > 1e-6:
            parts.append(f"your attraction (the part that grows with P) is {alpha:.6g} x the "
                         "reference's")
        else:
            parts.append("your attraction (the part that grows with P) agrees")
        if abs(beta - 1) > 1e-6:
            parts.append(f"your repulsion (the part that does not depend on P) is "
                         f"{beta:.6g} x the reference's")
        else:
            parts.append("your repulsion agrees")
        return ["; ".join(parts) + f" (case '{t.case.name}')"]
    delta_user = t.grad_user - g2
    delta_ref = A1 - A2
    scale = max(np.abs(delta_ref).max(), 1e-300)
    if np.abs(delta_user - delta_ref).max() <= 1e-6 * scale * 10:
        return ["your attraction (the part of the gradient that varies with P) agrees with "
                "the reference; the difference is in the repulsion (the part that does not "
                f"depend on P) (case '{t.case.name}')"]
    return ["your attraction (the part of the gradient that varies with P) differs from the "
            f"reference's (case '{t.case.name}')"]


def _mistake_match(trials, m):
    good = [t for t in trials if t.finite]
    found = []
    for mistake in KNOWN_MISTAKES.get(m.name, ()):
        ok = True
        for t in good:
            try:
                with np.errstate(all="ignore"):
                    cost, grad = mistake.function(t.case.P, t.case.Y, t.params)
            except (ValueError, FloatingPointError):
                ok = False
                break
            if not np.all(np.isfinite(grad)):
                continue
            scale = max(np.linalg.norm(grad, axis=1).max(), np.linalg.norm(t.grad_ref, axis=1).max())
            if np.linalg.norm(t.grad_user - grad, axis=1).max() > 1e-6 * max(scale, 1e-300):
                ok = False
                break
        if ok and good:
            found.append(f"your function matches a known mistake: {mistake.description}")
    return found


def _zero_sum(trials):
    # forces each rounded to about eps of their size sum to zero only to a
    # few eps of their total size: float32 forces do not cancel to 1e-8
    tol = max(1e-8, 100 * _user_eps(trials))
    bad = []
    for t in trials:
        if not t.finite or t.case.n_samples < 3:
            continue
        total = np.linalg.norm(t.grad_user.sum(axis=0))
        size = np.linalg.norm(t.grad_user, axis=1).sum()
        if size > 0 and total > tol * size:
            bad.append(t.case.name)
    if not bad:
        return []
    return [f"your gradient does not sum to zero over the points ({len(bad)} cases): the "
            "forces between i and j are not equal and opposite, so the cost would change "
            "under a translation of Y; look for a coefficient that differs between (i, j) and "
            "(j, i), e.g. Q normalised per row instead of over all pairs, or a P that is not "
            "symmetrised"]


def _scale_trend(trials, rtol):
    series = sorted((t for t in trials if t.case.scale is not None and t.case.name.startswith("blobs")
                     and "dense" in t.case.name), key=lambda t: t.case.scale)
    if len(series) < 3:
        return []
    ok = [t.finite and t.result.gradient_max_rel_error <= rtol for t in series]
    if all(ok) or not any(ok):
        return []
    scales = [t.case.scale for t in series]
    if ok[0] and not ok[-1]:
        first_bad = scales[ok.index(False)]
        return [f"your gradient agrees for Y at small scales but not from scale {first_bad:g} "
                "up: the long-range part of the output kernel differs (for example a Gaussian "
                "exp(-d^2) instead of the Student-t 1 / (1 + d^2)), or something overflows "
                "at large distances"]
    if ok[-1] and not ok[0]:
        return ["your gradient agrees for Y at large scales but not at small ones: the "
                "short-range part differs (an epsilon in a denominator, or a power of d)"]
    return []


def _non_finite(trials):
    bad = [t for t in trials if not t.finite and "non-finite" in t.result.problem]
    if not bad:
        return []
    # what was not finite: one answer when every failing case says the same
    problems = {t.result.problem for t in bad}
    what = problems.pop()[len("non-finite "):] if len(problems) == 1 else "cost or gradient"
    case_names = {t.case.name for t in trials}
    # every case, the far ones and the near-coincident pair among them: the
    # distances are not what makes it (a battery of the user's own may lack both)
    if (len(bad) == len(trials) and any("scale 1000" in n for n in case_names)
            and any("coincident" in n for n in case_names)
            and any("scale 1000" not in n and "coincident" not in n for n in case_names)):
        return [f"non-finite {what} in every case, near, far and ordinary distances alike: "
                "look for a NaN or infinity that your function makes whatever Y is (an "
                "uninitialised array, a division by a quantity that is always 0, a log of 0)"]
    failing = ", ".join(f"'{t.case.name}'" for t in bad)
    hints = []
    if any("scale 1000" in t.case.name for t in bad):
        hints.append("at large distances a weight underflows to 0 (0/0 in a normaliser) "
                     "or a power of d overflows; with an exponential weight, subtract the "
                     "smallest distance first (log-sum-exp)")
    if any("coincident" in t.case.name for t in bad):
        hints.append("for (near-)coincident points a division by d^2 or a power of d with a "
                     "negative exponent overflows")
    return [f"non-finite {what} in {failing}" + (": " + "; ".join(hints) if hints else "")]


def _self_consistency(trials, any_reference_failure):
    checked = [t for t in trials if t.result.fd_error is not None]
    if not checked:
        return []
    bad = [t for t in checked if "own cost" in t.result.problem]
    if not bad:
        if any_reference_failure:
            return ["your gradient agrees with finite differences of your own cost in every "
                    "case checked: your function is self-consistent, so it computes a "
                    "different function (another convention or a different cost), not a "
                    "mis-derived gradient"]
        return []
    ratios = [t.result.fd_ratio for t in bad if t.result.fd_ratio is not None]
    # a ratio of 1 says only that the derivative along the gradient agrees:
    # the error lies across it (some points' gradients), not in a factor
    if (ratios and np.allclose(ratios, ratios[0], rtol=1e-4) and abs(ratios[0]) > 0
            and abs(1 / ratios[0] - 1) > 1e-3):
        return [f"your gradient is not the gradient of your own cost: it is "
                f"{1 / ratios[0]:.6g} x the finite-difference derivative of your cost "
                f"({len(bad)} of {len(checked)} cases)"]
    return [f"your gradient is not the gradient of your own cost in {len(bad)} of "
            f"{len(checked)} cases (worst relative difference "
            f"{max(t.result.fd_error for t in bad):.2g}, case '{max(bad, key=lambda t: t.result.fd_error).case.name}')"]


#: Epsilons coarser than this (float16's is 9.8e-4; float32's 1.2e-7) leave
#: the diagnoses' patterns lost in the rounding: only the precision is named.
_PATTERN_EPS = 1e-5


def _user_eps(trials):
    """The machine epsilon of the least precise values ``fn`` returned."""
    return max((t.eps for t in trials if t.failure is None), default=np.finfo(float).eps)


def _low_precision(trials, rtol):
    """``fn`` returned float32 (or less): the line that says so, and whether it explains all.

    The tolerance that its rounding allows is the power of ten at or above
    100 epsilons (1e-4 for float32, whose correct t-SNE errs by up to about
    25 epsilons).  The line is given when ``rtol`` is tighter than that; it
    explains the failures, and the other diagnoses (which would read
    meaning into rounding) are left out, when every compared error is
    within ten times that tolerance, or the precision is coarser than
    :data:`_PATTERN_EPS`.
    """
    eps = _user_eps(trials)
    if not eps > 2 * np.finfo(float).eps:
        return [], False
    exponent = int(np.ceil(np.log10(100 * eps)))
    allowed = 10.0 ** exponent
    if not rtol < allowed:
        return [], False
    kind = {float(np.finfo(np.float32).eps): "float32",
            float(np.finfo(np.float16).eps): "float16"}.get(eps, f"a precision of {eps:.2g}")
    text = (f"your function returns {kind} values, whose rounding errors are about "
            f"{eps:.2g} of a value; with rtol={rtol:g} they count as differences: pass "
            f"rtol=1e{exponent}, or compute in float64")
    limit = 10 * allowed
    failed = [t for t in trials if t.finite and not t.result.passed]
    explained = eps > _PATTERN_EPS or (bool(failed) and all(
        t.result.cost_error <= limit and t.result.gradient_max_rel_error <= limit
        and (t.result.fd_error is None or t.result.fd_error <= limit) for t in failed))
    return [text], explained


def _coincident_only(trials):
    """Every failing case has a near-coincident pair: a cancellation, not a wrong formula."""
    failed = [t for t in trials if not t.result.passed]
    if not failed or not all("coincident" in t.case.name for t in failed):
        return []
    return [f"only the case{'s' if len(failed) > 1 else ''} with a near-coincident pair "
            f"fail{'' if len(failed) > 1 else 's'}, so the formula holds elsewhere: look for "
            "a cancellation between nearly equal numbers, such as 1 - w_ij for w_ij near 1 "
            "(compute log(1 - w_ij) as log(d_ij^2) - log1p(d_ij^2) for the Cauchy weight "
            "1 / (1 + d_ij^2), or log(a d^2b) - log1p(a d^2b) for UMAP's), or d_ij^2 formed as "
            "|y_i|^2 + |y_j|^2 - 2 y_i.y_j"]


def _failed_calls(trials):
    """One line per distinct way ``fn`` failed to return a real cost and gradient."""
    failed = [t for t in trials if t.failure is not None]
    lines = []
    for failure in dict.fromkeys(t.failure for t in failed):
        cases = [t.case.name for t in failed if t.failure == failure]
        lines.append(f"fn {failure} (in {len(cases)} of {len(trials)} cases, first "
                     f"'{cases[0]}'); nothing else can be checked until it returns a real "
                     f"(cost, gradient)")
    return lines


def diagnose(report, trials, fn, m, params, sparse, rtol):
    """Append diagnoses to ``report`` (see the module docstring)."""
    for t in trials:
        t.params = m.resolve_auto({**params, **dict(zip(m.learned, t.learned))},
                                  t.case.Y.shape[0])
    if report.ok:
        return
    out = report.diagnoses
    precision, explained = _low_precision(trials, rtol)
    out.extend(precision)
    out.extend(_failed_calls(trials))
    out.extend(_non_finite(trials))
    if explained:  # the patterns below would read meaning into rounding
        return
    coincident = _coincident_only(trials)
    if coincident:
        out.extend(coincident)
        return
    good = [t for t in trials if t.finite]
    wrong_gradient = any(t.result.gradient_max_rel_error > rtol for t in good)
    factor_text = None
    if good and wrong_gradient:
        factor_text, _ = _gradient_factor(good, m)
        if factor_text:
            out.append(factor_text)
    try:
        out.extend(_cost_constant(trials, m, fn, sparse, call_user, rtol))
    except Exception:  # the user's function failed at the probe: nothing to add
        pass
    if good and wrong_gradient and factor_text is None:
        out.extend(_term_split(trials, m, fn, sparse, call_user))
        out.extend(_mistake_match(trials, m))
    out.extend(_zero_sum(trials))
    if factor_text is None:
        out.extend(_scale_trend(trials, rtol))
    out.extend(_self_consistency(trials, any(
        t.result.cost_error > rtol or t.result.gradient_max_rel_error > rtol for t in good)))
    if not out:
        compared = [c for c in report.failed if c.worst_point >= 0]
        if not compared:
            out.append("no case could be compared with the reference; see each case's result")
            return
        worst = max(compared, key=lambda c: np.nan_to_num(c.gradient_max_rel_error, nan=np.inf))
        out.append(f"no simple pattern found; the largest gradient error is in case "
                   f"'{worst.name}' at point {worst.worst_point}")
