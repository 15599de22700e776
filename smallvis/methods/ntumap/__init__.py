r"""ntumap: normalised t-UMAP.

t-UMAP's fuzzy graph and Cauchy weight, each normalised to sum 1 over
all pairs, and UMAP's fuzzy-set cross-entropy between the two (R
smallvis's ``ntumap``):

.. math::

    C = \sum_{i \ne j} \Bigl[ p_{ij} \log \frac{p_{ij}}{q_{ij}}
        + (1 - p_{ij}) \log \frac{1 - p_{ij}}{1 - q_{ij}} \Bigr],

    p_{ij} = \frac{v_{ij}}{\sum_{k \ne l} v_{kl}},

    q_{ij} = \frac{w_{ij}}{\sum_{k \ne l} w_{kl}},

    w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2},

with :math:`v` UMAP's fuzzy union of smooth kNN memberships (``n_neighbors``
counting the point itself, as umap-learn and R smallvis's ``perplexity``
for this method).  The cost is cetsne's (:mod:`smallvis.methods.cetsne`),
so are its pair coefficient and gradient,

.. math::

    c_{ij} = \Bigl(\frac{p_{ij} - q_{ij}}{1 - q_{ij}} + S\, q_{ij}\Bigr) w_{ij},

    S = \sum_{k \ne l} \frac{q_{kl} - p_{kl}}{1 - q_{kl}},

    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i} c_{ij} (y_i - y_j),

R smallvis's ``4 W (C - sum(C) Q)`` with :math:`C = (P - Q) / (1 - Q)`.
Unlike ``tumap``'s, each term compares probabilities of order
:math:`1 / N^2`, so that the repulsion of the pairs outside the graph,
:math:`-\log(1 - q)`, is nearly :math:`q`, and the method behaves as
t-SNE on the normalised fuzzy graph (``skdtsne``).

The cost is exact and keeps its constant terms: R smallvis adds
:math:`10^{-9}` inside its logs of ``P`` and ``Q`` and machine epsilon to
:math:`1 - q`, which nothing does here.  R's ``gr_eps`` is an argument
of ``ntumap`` that its gradient never uses, so there is no ``eps``.  The
default ``exaggeration`` is 1, R smallvis's.  A new point's row of ``P``
is its memberships normalised to sum 1, as its row of ``q``.  It has no
stochastic form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C: cetsne's
hooks), ``method.py`` (the registry entry), ``golden.json`` and
``golden.npz`` (its golden case).

References
----------
L. McInnes, J. Healy and J. Melville (2018), "UMAP: Uniform Manifold
Approximation and Projection for Dimension Reduction", arXiv:1802.03426
(the fuzzy graph and the cross-entropy).

J. Melville, smallvis (R package), ``smallvis(method = "ntumap")``
(``ntumap`` in ``R/umap.R``), https://github.com/jlmelville/smallvis.
"""
