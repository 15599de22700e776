r"""jssne: Jensen-Shannon SNE.

t-SNE's joint ``P`` and Cauchy weight normalised over all pairs, with the
KL divergence replaced by the Jensen-Shannon divergence, one of the
f-divergences of Im, Verma & Branson (2018):

.. math::

    C = \frac{1}{2} \sum_{i \ne j} \Bigl(p_{ij} \log \frac{p_{ij}}{z_{ij}}
        + q_{ij} \log \frac{q_{ij}}{z_{ij}}\Bigr),

    z_{ij} = \frac{p_{ij} + q_{ij}}{2},

    q_{ij} = \frac{w_{ij}}{\sum_{k \ne l} w_{kl}},

    w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2}.

The derivative of the summand in :math:`q` is :math:`\frac{1}{2}
\log(q / z)` (the terms from :math:`z` cancel), so the normalised engine's
chain rule through the one normaliser gives, for a symmetric ``P``, the
pair coefficient and the gradient

.. math::

    c_{ij} = \frac{q_{ij}}{2} \Bigl(\sum_{k \ne l} q_{kl} \log \frac{q_{kl}}{z_{kl}}
        - \log \frac{q_{ij}}{z_{ij}}\Bigr)\, w_{ij},

    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i} c_{ij} (y_i - y_j).

A pair attracts while :math:`q < p` more than on average, and repels
otherwise; at :math:`Q = P` every coefficient is 0.  The cost lies in
:math:`[0, \log 2]`.  It is :mod:`smallvis.methods.sjse`'s mixture cost
at :math:`\kappa = 1/2`, divided by 4, with the Cauchy weight in place of
the Gaussian.  A new point is placed with its own row's normalisation, as
for t-SNE.

The cost is the paper's, exactly: nothing is floored.  R smallvis's
``jssne`` floors ``P`` and :math:`q / z` at machine epsilon before taking
their logs; a term with :math:`p = 0` or :math:`q = 0` is 0 here, its
limit.  The default ``exaggeration`` is 1, R smallvis's.  It has no
stochastic form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
D. J. Im, N. Verma and K. Branson (2018), "Stochastic Neighbor Embedding
under f-divergences", arXiv:1811.01247.

J. Melville, smallvis (R package), ``smallvis(method = "jssne")``
(``jssne`` in ``R/fdiv.R``), https://github.com/jlmelville/smallvis.
"""
