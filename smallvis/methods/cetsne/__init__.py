r"""cetsne: cross-entropy t-SNE.

t-SNE's joint ``P`` and Cauchy weight normalised over all pairs, with the
KL divergence replaced by UMAP's fuzzy-set cross-entropy, taken between
the normalised ``P`` and ``Q`` (McInnes et al. 2018's cost, applied to
t-SNE's probabilities as R smallvis's "CE t-SNE"):

.. math::

    C = \sum_{i \ne j} \Bigl[ p_{ij} \log \frac{p_{ij}}{q_{ij}}
        + (1 - p_{ij}) \log \frac{1 - p_{ij}}{1 - q_{ij}} \Bigr],

    q_{ij} = \frac{w_{ij}}{\sum_{k \ne l} w_{kl}},

    w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2}.

Each summand is the KL divergence of two Bernoulli distributions, so
:math:`C \ge 0`, 0 only at :math:`Q = P`; the second term, absent from
t-SNE, repels every pair, also those with :math:`p_{ij} = 0`.  With
:math:`\partial f / \partial q = (q - p) / (q (1 - q))`, the normalised
engine's chain rule through the one normaliser gives, for a symmetric
``P``, the pair coefficient and the gradient

.. math::

    c_{ij} = \Bigl(\frac{p_{ij} - q_{ij}}{1 - q_{ij}} + S\, q_{ij}\Bigr) w_{ij},

    S = \sum_{k \ne l} \frac{q_{kl} - p_{kl}}{1 - q_{kl}},

    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i} c_{ij} (y_i - y_j),

R smallvis's ``4 W (C - sum(C) Q)`` with :math:`C = (P - Q) / (1 - Q)`.
Where every :math:`q_{kl} \ll 1` the second term of the cost is nearly
:math:`\sum q = 1` and the gradient nearly t-SNE's
:math:`4 \sum (p_{ij} - q_{ij}) w_{ij} (y_i - y_j)` (``tsne``); the
difference grows with the largest :math:`q`, on small data.  ``ntumap``
is the same cost with UMAP's fuzzy graph, normalised, as ``P``.

The cost is exact and keeps its constant terms :math:`\sum [p \log p +
(1 - p) \log(1 - p)]`: R smallvis (``cetsne`` in ``R/sne.R``) floors
``P`` at its ``eps`` in the constant terms and adds ``eps`` to
:math:`1 - q` (``Q`` itself is not floored); nothing is floored here.
The default ``exaggeration`` is 1, R smallvis's.  A new point is placed
with its own row's normalisation, as for t-SNE, and its row of ``P``
normalised to sum 1 as that row of ``q``: unlike the KL divergence, the
cross-entropy's minimiser depends on the scale of ``P``.  It has no
stochastic form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
L. McInnes, J. Healy and J. Melville (2018), "UMAP: Uniform Manifold
Approximation and Projection for Dimension Reduction", arXiv:1802.03426
(the fuzzy-set cross-entropy).

L. van der Maaten and G. Hinton (2008), "Visualizing Data using t-SNE",
JMLR 9, 2579-2605 (the joint ``P`` and the Cauchy ``Q``).

J. Melville, smallvis (R package), ``smallvis(method = "cetsne")``
(``cetsne`` in ``R/sne.R``; the "UMAP/t-SNE hybrids" page of its
documentation), https://github.com/jlmelville/smallvis.
"""
