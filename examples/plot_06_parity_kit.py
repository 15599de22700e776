"""
The parity kit catches a planted bug
====================================

:func:`smallvis.testing.check_gradient` compares your own cost and gradient
of a method with the package's NumPy reference on a battery of small cases
(dense and kNN ``P``, 2 to 36 points, map scales from 1e-3 to 1e3), and
with finite differences of your own cost.  Here a hand-written t-SNE
gradient carries a classic mistake, ``Q`` normalised per row instead of
over all pairs: the cost is still right, so the error would only show as a
slightly wrong map.  The report names the mistake; the corrected function
passes every case.
"""

import matplotlib.pyplot as plt
import numpy as np

from smallvis.testing import check_gradient


def tsne_cost_and_gradient(P, Y, row_normalised=False):
    """t-SNE's KL(P || Q) and its gradient, written from the formulas."""
    D2 = ((Y[:, None] - Y[None]) ** 2).sum(-1)
    W = 1.0 / (1.0 + D2)
    np.fill_diagonal(W, 0.0)
    Q = W / W.sum()
    cost = np.sum(P[P > 0] * np.log(P[P > 0] / Q[P > 0]))
    if row_normalised:
        # the planted bug: each row of Q sums to one, as in ASNE
        Q = W / W.sum(axis=1, keepdims=True)
    K = 4.0 * (P - Q) * W
    return cost, K.sum(axis=1)[:, None] * Y - K @ Y


buggy = check_gradient("tsne", lambda P, Y: tsne_cost_and_gradient(P, Y, row_normalised=True))
print(buggy)

# %%
# With ``Q`` normalised over all pairs, as t-SNE defines it:

fixed = check_gradient("tsne", tsne_cost_and_gradient)
# the first line of the report is its verdict; the table is as above
print(str(fixed).splitlines()[0])

# %%
# Each case's gradient error, relative to the reference gradient's size,
# against the tolerance (a case with no error is drawn at the floor).

fig, ax = plt.subplots(figsize=(9, 4.2))
names = [case.name for case in buggy.cases]
floor = 1e-17
bars = ((-0.2, buggy, "Q per row (bug)"), (0.2, fixed, "Q over all pairs"))
for offset, report, label in bars:
    errors = [max(case.gradient_max_rel_error, floor) for case in report.cases]
    ax.barh(np.arange(len(names)) + offset, errors, height=0.4, label=label)
ax.axvline(1e-6, color="k", ls="--", lw=1, label="rtol 1e-6")
ax.set_xscale("log")
ax.set_xlim(floor, 1e3)
ax.set_yticks(np.arange(len(names)), names, fontsize="small")
ax.invert_yaxis()
ax.set_xlabel("relative gradient error against the reference")
ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize="small", frameon=False)
fig.tight_layout()
plt.show()
