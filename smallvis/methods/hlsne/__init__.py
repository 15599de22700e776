r"""hlsne: Hellinger-distance SNE.

t-SNE's joint ``P`` and Cauchy weight normalised over all pairs, with the
KL divergence replaced by the squared Hellinger distance, one of the
f-divergences of Im, Verma & Branson (2018):

.. math::

    C = \sum_{i \ne j} \bigl(\sqrt{p_{ij}} - \sqrt{q_{ij}}\bigr)^2,
    \qquad
    q_{ij} = \frac{w_{ij}}{\sum_{k \ne l} w_{kl}},
    \qquad
    w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2}.

Since :math:`\sum q = 1`, only the cross term :math:`-2 \sqrt{p q}` of
the summand moves the map; with the Bhattacharyya coefficient
:math:`B = \sum_{k \ne l} \sqrt{p_{kl} q_{kl}}` the normalised engine's
chain rule through the one normaliser gives, for a symmetric ``P``, the
pair coefficient and the gradient

.. math::

    c_{ij} = \bigl(\sqrt{p_{ij} q_{ij}} - B\, q_{ij}\bigr)\, w_{ij},
    \qquad
    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i} c_{ij} (y_i - y_j).

A pair attracts while :math:`\sqrt{p / q} > B` and repels otherwise; at
:math:`Q = P` every coefficient is 0.  A new point is placed with its own
row's normalisation, as for t-SNE.

The cost is the paper's, exactly: nothing is floored.  R smallvis's
``hlsne`` takes an ``eps`` (machine epsilon) like its other
f-divergence methods, which floor ``P`` or ``log`` arguments at it, but
its Hellinger cost and gradient use the square roots as they are; it
divides :math:`\sqrt{p}` by :math:`\sqrt{q}`, which the coefficient
above, multiplied through by :math:`q`, never does.  The default
``exaggeration`` is 1, R smallvis's.  It has no stochastic form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
D. J. Im, N. Verma and K. Branson (2018), "Stochastic Neighbor Embedding
under f-divergences", arXiv:1811.01247.

J. Melville, smallvis (R package), ``smallvis(method = "hlsne")``
(``hlsne`` in ``R/fdiv.R``), https://github.com/jlmelville/smallvis.
"""
