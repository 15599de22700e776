r"""dhssne: dynamic heavy-tailed symmetric SNE, whose tail is searched during the run.

R smallvis's "dynamic HSSNE": Yang et al.'s heavy-tailed SSNE (t-SNE's
joint ``P``, the KL divergence, ``q`` normalised over all pairs) with the
weight

.. math::

    w_{ij} = \bigl(1 + \alpha\, \|y_i - y_j\|^2\bigr)^{-1/\alpha},
    \qquad
    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i}
    (p_{ij} - q_{ij})\, w_{ij}^{\alpha}\, (y_i - y_j),

whose tail :math:`\alpha` is a learned scalar set by R's own search, not
by gradient descent.  Once every ``max(1, round(n_iter / 10))`` iterations
(R smallvis's default ``epoch``) and after the last one, at the current
layout ``Y``, the cost is evaluated at :math:`\alpha + 0.1` and at
:math:`\alpha - 0.1`, and the tail moves to the one of

.. math::

    \alpha + 0.1, \quad \alpha - 0.1, \quad \alpha

with the lowest :math:`\mathrm{KL}(P \| Q_\alpha)` (the first in this
order on a tie, as R's ``which.min``).  It starts at ``alpha = 0.5``, R's
default; each search moves it by at most 0.1.  The fitted tail is
``EmbedResult.learned["alpha"]``; new points are placed at it.  At a
fixed :math:`\alpha` the cost and gradient are those of ``hssne``
(``tsne`` at ``dof`` :math:`= 1/\alpha`), and so are the numbers.

Where this follows R and where not: the weight, the gradient, the
candidates, the choice, the start and the schedule are R's.  R proposes
:math:`\alpha - 0.1` whenever :math:`\alpha + 0.1` exceeds its floor
:math:`10^{-8}` (always), although its article says the tail must not go
below 0; here :math:`\alpha - 0.1` is proposed only when it is at least
:math:`10^{-8}`, where the weight is defined at every distance.  R
compares the costs of its exaggerated ``P``; here those of the true
``P``: for a ``P`` scaled by a constant the two costs differ by terms
that do not depend on :math:`\alpha`, so the choice is the same.  The
default ``exaggeration`` is ``hssne``'s, t-SNE's 12 for 250 iterations,
where R's is 1 (pass ``exaggeration=1`` for R's run): with it the search
settles on a tail from a compact layout, and without it the light tails
it then reaches place new points off the edge of their class.  There is
no stochastic form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry and the search), ``golden.json`` and ``golden.npz``
(its golden case).

References
----------
Z. Yang, I. King, Z. Xu and E. Oja (2009), "Heavy-Tailed Symmetric
Stochastic Neighbor Embedding", NIPS 22.

J. Melville, smallvis (R package), ``smallvis(method = "dhssne")``
(``dhssne`` in ``R/sne.R``) and the article "Dynamic HSSNE",
https://github.com/jlmelville/smallvis.
"""
