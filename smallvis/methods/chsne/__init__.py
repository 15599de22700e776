r"""chsne: chi-squared SNE.

t-SNE's joint ``P`` and Cauchy weight normalised over all pairs, with the
KL divergence replaced by Pearson's chi-squared divergence, one of the
f-divergences of Im, Verma & Branson (2018):

.. math::

    C = \sum_{i \ne j} \frac{(p_{ij} - q_{ij})^2}{q_{ij}},
    \qquad
    q_{ij} = \frac{w_{ij}}{\sum_{k \ne l} w_{kl}},
    \qquad
    w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2}.

The summand is :math:`p^2 / q - 2 p + q`; since :math:`\sum q = 1`, only
:math:`p^2 / q` moves the map.  With :math:`\chi = \sum_{k \ne l}
p_{kl}^2 / q_{kl}` the normalised engine's chain rule through the one
normaliser gives, for a symmetric ``P``, the pair coefficient and the
gradient

.. math::

    c_{ij} = \Bigl(\frac{p_{ij}^2}{q_{ij}} - \chi\, q_{ij}\Bigr)\, w_{ij},
    \qquad
    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i} c_{ij} (y_i - y_j).

A pair attracts while :math:`(p / q)^2 > \chi` and repels otherwise; at
:math:`Q = P` every coefficient is 0 (:math:`\chi = 1`).  The cost is
:math:`\chi - 1 \ge 0`.  A new point is placed with its own row's
normalisation, as for t-SNE.

The cost is the paper's, exactly: nothing is floored (R smallvis's
``chsne`` takes an ``eps`` that its chi-squared formulas never use).
The divergence weighs a pair by :math:`1 / q`, so a pair with
:math:`p > 0` far apart in the map pulls hard: from a compact start its
attraction exceeds t-SNE's by about N / perplexity, and at t-SNE's step
the exact optimizer diverges.  The ``"auto"`` learning rate is therefore
:math:`\min(N / 16, 20)`, which converged without a recovery on digits (300
images and all 1,797) and on 40 points; the default ``exaggeration`` is 1,
R smallvis's.  It has no stochastic form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
D. J. Im, N. Verma and K. Branson (2018), "Stochastic Neighbor Embedding
under f-divergences", arXiv:1811.01247.

J. Melville, smallvis (R package), ``smallvis(method = "chsne")``
(``chsne`` in ``R/fdiv.R``), https://github.com/jlmelville/smallvis.
"""
