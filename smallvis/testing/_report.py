"""Result objects of :func:`check_gradient`: one per case, one per check."""

from dataclasses import dataclass, field

import numpy as np

__all__ = ["CaseResult", "GradientReport"]


@dataclass
class CaseResult:
    """How a user's cost and gradient compare with the reference on one case.

    Attributes
    ----------
    name : str
        The case (see :func:`smallvis.testing.default_cases`).
    n_samples, n_components : int
    cost, reference_cost : float
        The user's cost and the reference cost (NaN when not computed).
    cost_error : float
        ``|cost - reference_cost| / max(|reference_cost|, sum(P))`` (a cost
        near 0 is compared on the scale of P's total).
    gradient_max_abs_error : float
        Largest distance between a point's gradient and the reference's.
    gradient_max_rel_error : float
        The same divided by the largest norm of a point's reference
        gradient, or of its attractive or repulsive part when the method
        splits them (where the two parts nearly cancel, their size is the
        scale of the rounding errors).
    worst_point : int
        Index of the point with the largest gradient error (-1 if none).
    fd_error : float or None
        Disagreement between the user's gradient and central finite
        differences of the user's own cost, relative to the gradient's norm;
        None when not checked.
    fd_ratio : float or None
        Finite-difference derivative of the user's cost along the user's
        gradient divided by the gradient's squared norm: 1 for a consistent
        function, 4 for a gradient that is 0.25 x the derivative of its cost.
    learned_error : dict
        Relative errors of the derivatives in the learned scalars (ncvis's
        ``Q``) when the function returns them.
    passed : bool
    problem : str
        Why the case failed, in words ("" if it passed).
    """

    name: str
    n_samples: int
    n_components: int
    cost: float = float("nan")
    reference_cost: float = float("nan")
    cost_error: float = float("nan")
    gradient_max_abs_error: float = float("nan")
    gradient_max_rel_error: float = float("nan")
    worst_point: int = -1
    fd_error: float = None
    fd_ratio: float = None
    learned_error: dict = field(default_factory=dict)
    passed: bool = False
    problem: str = ""


def _fmt(x):
    if x is None:
        return "-"
    if isinstance(x, float) and np.isnan(x):
        return "nan"
    return f"{x:.1e}"


@dataclass
class GradientReport:
    """The outcome of :func:`smallvis.testing.check_gradient`.

    Attributes
    ----------
    method : str
    params : dict
        The cost parameters the reference used (defaults filled in).
    cases : list of CaseResult
    diagnoses : list of str
        What the kit concluded about the differences, most specific first.
    notes : list of str
        Remarks that are not failures (e.g. a check that did not apply).
    rtol : float
        Tolerance of the comparison with the reference.
    """

    method: str
    params: dict
    cases: list
    diagnoses: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    rtol: float = 1e-6

    @property
    def ok(self):
        """True when every case passed."""
        return bool(self.cases) and all(c.passed for c in self.cases)

    @property
    def failed(self):
        """The cases that failed."""
        return [c for c in self.cases if not c.passed]

    def __bool__(self):
        return self.ok

    def __str__(self):
        n_bad = len(self.failed)
        head = (f"check_gradient({self.method!r}): "
                + ("OK" if self.ok else f"FAILED in {n_bad} of {len(self.cases)} cases")
                + f" (rtol {self.rtol:g})")
        lines = [head]
        if self.params:
            lines.append("  parameters: " + ", ".join(f"{k}={v!r}" for k, v in self.params.items()))
        width = max(len(c.name) for c in self.cases) if self.cases else 4
        lines.append(f"  {'case':<{width}}  {'N':>4} {'d':>2}  {'cost err':>8}  "
                     f"{'grad err':>8}  {'(abs)':>8}  {'worst':>5}  {'vs own FD':>9}  result")
        for c in self.cases:
            worst = str(c.worst_point) if c.worst_point >= 0 else "-"
            lines.append(
                f"  {c.name:<{width}}  {c.n_samples:>4} {c.n_components:>2}  "
                f"{_fmt(c.cost_error):>8}  {_fmt(c.gradient_max_rel_error):>8}  "
                f"{_fmt(c.gradient_max_abs_error):>8}  {worst:>5}  "
                f"{_fmt(c.fd_error):>9}  {'ok' if c.passed else 'FAIL: ' + c.problem}")
        lines.append("  (cost err, grad err: relative; worst: the point with the largest gradient "
                     "error; vs own FD: your gradient against finite differences of your cost)")
        if self.diagnoses:
            lines.append("Diagnosis:")
            lines.extend(f"  - {d}" for d in self.diagnoses)
        if self.notes:
            lines.append("Notes:")
            lines.extend(f"  - {n}" for n in self.notes)
        return "\n".join(lines)

    def _repr_pretty_(self, p, cycle):  # IPython shows the table
        p.text(str(self))
