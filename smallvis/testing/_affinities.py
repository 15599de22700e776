"""``check_affinities``: a user's input affinities P against the reference.

Perplexity and smooth-kNN calibrations stop at a tolerance (1e-5 on the
entropy, or on the sum of memberships), so two correct implementations give
slightly different ``P``.  The allowed difference is measured, not guessed:
the reference is recomputed with its calibration target moved by three
tolerances either way, and each row of the user's ``P`` may differ from the
reference by up to twice the change that caused.
"""

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..inputs.affinities import PERPLEXITY_TOL, SMOOTH_K_TOL
from ..api import affinities
from ..registry import METHODS, resolve_method

__all__ = ["AffinityReport", "check_affinities"]

#: The calibration target is moved by this many tolerances to measure the slack.
TARGET_SHIFT = 3.0


@dataclass
class AffinityReport:
    """The outcome of :func:`check_affinities`.

    Attributes
    ----------
    method : str
    params : dict
        The affinity parameters the reference used.
    max_abs_error : float
        Largest ``|P_user - P_reference|``.
    max_rel_error : float
        The same divided by the largest reference entry.
    worst_row : int
        Row holding the largest error (-1 if not compared).
    rows_out_of_tolerance : list of int
        Rows whose largest error exceeds the calibration slack.
    calibration_slack : float
        Largest allowed error of a row (relative to the largest entry).
    problems : list of str
        Structural problems (shape, symmetry, diagonal, normalisation, ...).
    diagnoses : list of str
        What the differences look like.
    """

    method: str
    params: dict
    max_abs_error: float = float("nan")
    max_rel_error: float = float("nan")
    worst_row: int = -1
    rows_out_of_tolerance: list = field(default_factory=list)
    calibration_slack: float = float("nan")
    problems: list = field(default_factory=list)
    diagnoses: list = field(default_factory=list)

    @property
    def ok(self):
        """True when P has the right structure and every row is within tolerance."""
        return not self.problems and not self.rows_out_of_tolerance and self.worst_row >= 0

    def __bool__(self):
        return self.ok

    def __str__(self):
        lines = [f"check_affinities({self.method!r}): {'OK' if self.ok else 'FAILED'}"]
        if self.params:
            lines.append("  parameters: " + ", ".join(f"{k}={v!r}" for k, v in self.params.items()))
        lines.append(f"  max abs error {self.max_abs_error:.2e}, relative to the largest entry "
                     f"{self.max_rel_error:.2e} (row {self.worst_row}); calibration slack "
                     f"{self.calibration_slack:.2e}")
        if self.rows_out_of_tolerance:
            rows = self.rows_out_of_tolerance
            lines.append(f"  {len(rows)} rows out of tolerance: "
                         + ", ".join(map(str, rows[:10])) + (" ..." if len(rows) > 10 else ""))
        for p in self.problems:
            lines.append(f"  problem: {p}")
        if self.diagnoses:
            lines.append("Diagnosis:")
            lines.extend(f"  - {d}" for d in self.diagnoses)
        return "\n".join(lines)

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))


def _dense(P):
    return np.asarray(P.toarray() if sp.issparse(P) else P, dtype=np.float64)


def _reference(method, X, params):
    return _dense(affinities(X, method, **params))


def _calibration_band(m, X, params, R):
    """Per-row change of the reference when its calibration target moves."""
    if "perplexity" in m.affinity_params:
        perplexity = params.get("perplexity", m.affinity_params["perplexity"])
        factors = np.exp([TARGET_SHIFT * PERPLEXITY_TOL, -TARGET_SHIFT * PERPLEXITY_TOL])
        shifted = [dict(params, perplexity=float(perplexity * f)) for f in factors]
        shifted = [s for s in shifted if s["perplexity"] <= X.shape[0] - 1]
    elif "bandwidth" in m.affinity_params:
        bandwidth = params.get("bandwidth", m.affinity_params["bandwidth"])
        k = params.get("n_neighbors", m.affinity_params["n_neighbors"])
        delta = TARGET_SHIFT * SMOOTH_K_TOL / np.log2(k)
        shifted = [dict(params, bandwidth=bandwidth * (1 + s * delta)) for s in (1, -1)]
    else:  # no calibration (ncvis): exact up to rounding
        return np.zeros(R.shape[0])
    band = np.zeros(R.shape[0])
    for s in shifted:
        band = np.maximum(band, np.abs(_reference(m.name, X, s) - R).max(axis=1))
    return band


def _structure(m, U, n):
    problems = []
    if U.shape != (n, n):
        return [f"P has shape {U.shape}; expected ({n}, {n})"]
    if not np.all(np.isfinite(U)):
        return ["P contains NaN or infinite values"]
    if np.any(U < 0):
        problems.append("P has negative entries")
    if np.any(np.diag(U) != 0):
        problems.append("P has a non-zero diagonal (p_ii must be 0)")
    scale = max(np.abs(U).max(), 1e-300)
    if m.symmetric and np.abs(U - U.T).max() > 1e-10 * scale:
        problems.append("P is not symmetric (this method symmetrises it)")
    if m.p_family.normalised == "rows" and not np.allclose(U.sum(axis=1), 1.0, rtol=1e-10,
                                                           atol=0):
        problems.append(f"the rows of P do not sum to 1 ({m.name} keeps the conditional "
                        "p_{j|i})")
    if m.p_family.normalised == "total" and not abs(U.sum() - 1) <= 1e-10:
        problems.append(f"P sums to {U.sum():.6g}, not 1")
    if m.fuzzy and U.max() > 1:
        problems.append("P holds memberships above 1 (umap's fuzzy graph lies in [0, 1])")
    return problems


def _close(A, B, tol=1e-6):
    return np.abs(A - B).max() <= tol * max(np.abs(B).max(), 1e-300)


def _diagnose(m, X, params, U, R):
    out = []
    den = float(np.sum(R * R))
    k = float(np.sum(U * R)) / den if den > 0 else np.nan
    if np.isfinite(k) and abs(k - 1) > 1e-6 and _close(U, k * R):
        n = X.shape[0]
        text = f"your P is {k:.6g} x the reference"
        if abs(k - n) <= 1e-6 * n or abs(k * n - 1) <= 1e-6:
            text += " (a factor N or 1/N: check the normalisation)"
        elif abs(k - 2) <= 1e-6:
            text += " (P + P^T without the 1/2, or a missing division by the sum)"
        elif k > 1 and m.p_family.normalised != "rows":
            text += " (not normalised to sum 1?)"
        out.append(text)
    if _close(U, R.T) and not _close(U, R):
        out.append("your P is the transpose of the reference: row i must hold p_{j|i}")
    conditional = m.p_family.conditional
    if conditional is not None and "n_neighbors" not in params:
        # the method whose own P is this family's conditional one
        conditional = next(name for name, other in METHODS.items()
                           if other.p_family is conditional)
        cond = _dense(affinities(X, conditional, perplexity=params.get(
            "perplexity", m.affinity_params["perplexity"])))
        n = X.shape[0]
        if _close(U, cond / n) or _close(U, cond):
            out.append("your P is the conditional p_{j|i} (divided by N or not): it is not "
                       "symmetrised as (p_{j|i} + p_{i|j}) / (2N)")
    if "perplexity" in m.affinity_params:
        perplexity = params.get("perplexity", m.affinity_params["perplexity"])
        for power, text in ((1 / np.log(2), "an entropy target of log2(perplexity) with the "
                             "entropy in nats"), (np.log(2), "the entropy in bits with a target "
                                                 "of ln(perplexity)")):
            p2 = perplexity ** power
            if 1 <= p2 <= X.shape[0] - 1:
                alt = _reference(m.name, X, dict(params, perplexity=float(p2)))
                if _close(U, alt, 1e-4):
                    out.append(f"your P matches the reference at perplexity {p2:.4g}: "
                               f"{text} (use natural logarithms for both)")
    if m.fuzzy:
        k = params.get("n_neighbors", m.affinity_params["n_neighbors"])
        for k2 in (k - 1, k + 1):
            if 2 <= k2 <= X.shape[0]:
                alt = _reference(m.name, X, dict(params, n_neighbors=k2))
                if _close(U, alt, 1e-4):
                    out.append(f"your P matches the reference with n_neighbors={k2}: here "
                               "n_neighbors counts the point itself, as in umap-learn")
    return out


def check_affinities(method, fn, X, *, rtol=1e-10, **params):
    """Check a user's input affinities ``P`` of ``method`` against the reference.

    ``fn(X)`` must return the method's ``P`` as :func:`smallvis.affinities`
    defines it (asne: conditional ``p_{j|i}``, rows summing to 1; ssne, tsne,
    largevis: symmetric, summing to 1; umap, tumap: the fuzzy union, not
    normalised; ncvis: the union kNN graph, summing to 1), dense or sparse.
    Each row may differ from the reference by what the calibration
    tolerance allows (1e-5 on the entropy for perplexity, on the sum of
    memberships for umap's smooth kNN distances), measured by moving the
    reference's calibration target, plus ``rtol`` times the largest entry.

    Parameters
    ----------
    method : str
    fn : callable
        ``fn(X) -> P``, configured with the same parameters as ``params``.
    X : array-like of shape (n_samples, n_features)
    rtol : float, default=1e-10
        Allowed error on top of the calibration slack, relative to the
        largest entry of ``P``.
    **params
        Affinity parameters of the method for :func:`smallvis.affinities`
        (e.g. ``perplexity=30``, ``n_neighbors=15``); nearest neighbours are
        exact unless ``knn_method`` says otherwise.

    Returns
    -------
    AffinityReport
    """
    m, params = resolve_method(method, dict(params), defaults=False)
    if not callable(fn):
        raise TypeError(f"fn must be callable; got {fn!r}")
    X = np.asarray(X, dtype=np.float64)
    params = dict(params)
    if "knn_method" in m.affinity_params:
        params.setdefault("knn_method", "exact")
    R = _reference(m.name, X, params)
    report = AffinityReport(method=m.name, params=params)
    try:
        U = _dense(fn(X.copy()))
    except Exception as exc:
        report.problems.append(f"fn raised {type(exc).__name__}: {exc}")
        return report
    report.problems.extend(_structure(m, U, X.shape[0]))
    if U.shape != R.shape or not np.all(np.isfinite(U)):
        return report
    scale = float(R.max())
    band = _calibration_band(m, X, params, R)
    band_ij = np.maximum(band[:, None], band[None, :]) if m.symmetric else band[:, None]
    allowed = 2.0 * band_ij + rtol * scale
    err = np.abs(U - R)
    report.max_abs_error = float(err.max())
    report.max_rel_error = report.max_abs_error / scale
    report.worst_row = int(np.unravel_index(np.argmax(err), err.shape)[0])
    report.calibration_slack = float(allowed.max()) / scale
    report.rows_out_of_tolerance = [int(i) for i in np.flatnonzero(np.any(err > allowed, axis=1))]
    if m.p_family.normalised == "rows" and not report.problems:
        H = -np.sum(np.where(U > 0, U * np.log(np.where(U > 0, U, 1.0)), 0.0), axis=1)
        target = np.log(params.get("perplexity", m.affinity_params["perplexity"]))
        off = np.abs(H - target)
        if off.max() > 10 * PERPLEXITY_TOL:
            report.diagnoses.append(
                f"the entropy of {int(np.sum(off > 10 * PERPLEXITY_TOL))} rows misses "
                f"log(perplexity) by more than 1e-4 (worst row {int(np.argmax(off))}: "
                f"perplexity {np.exp(H[np.argmax(off)]):.6g})")
    knn_graph = m.p_family.knn_graph or params.get("n_neighbors") is not None
    if knn_graph and report.rows_out_of_tolerance:
        differ = np.flatnonzero(np.any((U > 0) != (R > 0), axis=1))
        if differ.size:
            report.diagnoses.append(
                f"the neighbour sets (non-zero pattern) differ in {differ.size} rows "
                f"(first: row {int(differ[0])})")
    if not report.ok:
        found = _diagnose(m, X, params, U, R)
        if not found and report.rows_out_of_tolerance and not report.problems:
            found = ["the differences exceed what the calibration tolerance allows; compare "
                     "your calibration (target, tolerance, distances squared or not) with the "
                     "reference's"]
        report.diagnoses.extend(found)
    return report
