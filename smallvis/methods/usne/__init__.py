r"""usne: u-SNE, t-SNE with UMAP's output curve.

t-SNE's joint ``P`` and KL divergence, with the output weight of UMAP's
curve family, normalised over all pairs (R smallvis's "u-SNE"):

.. math::

    C = \sum_{i \ne j} p_{ij} \log \frac{p_{ij}}{q_{ij}},
    \qquad
    q_{ij} = \frac{w_{ij}}{\sum_{k \ne l} w_{kl}},
    \qquad
    w_{ij} = \frac{1}{1 + a \|y_i - y_j\|^{2b}},

with ``a`` and ``b`` given, or fitted to ``spread`` and ``min_dist`` as
UMAP's (McInnes et al. 2018).  With the slope :math:`s = -\partial \log
w / \partial d^2 = b (1 - w) / d^2`, the KL divergence's gradient for a
symmetric ``P`` is

.. math::

    \frac{\partial C}{\partial y_i} =
    4 \sum_{j \ne i} (p_{ij} - q_{ij})\,
    \frac{b\, (1 - w_{ij})}{d_{ij}^2 + \epsilon}\, (y_i - y_j),

exact for :math:`\epsilon = 0` (R smallvis's ``gr_eps``).  For
:math:`b < 1` the slope is infinite at :math:`d^2 = 0`, so that a
positive :math:`\epsilon` keeps coincident points (duplicated rows of
``X``) finite; a pair at :math:`d^2 = 0` has no direction and no force.
``a = b = 1`` with :math:`\epsilon = 0` is t-SNE (``tsne``) exactly.

Defaults: R smallvis's curve, ``spread = 1``, ``min_dist = 0.001``
(:math:`a \approx 1.929`, :math:`b \approx 0.7915`), and its
exaggeration of 1.  R smallvis's default ``gr_eps`` is 0.1, but its
documentation of the hybrids runs u-SNE with :math:`10^{-10}`, finding
that the normalisation needs far less than UMAP's 0.001 to 0.1; here
the default is ``eps = 0.001``, umap-learn's value (docs/experiments.md,
2026-12-02).  The cost is exact: R floors ``P`` and ``Q`` at machine
epsilon inside its logs; nothing is floored here.  A new point is placed
with its own row's normalisation, as for t-SNE.  It has no stochastic
form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
L. McInnes, J. Healy and J. Melville (2018), "UMAP: Uniform Manifold
Approximation and Projection for Dimension Reduction", arXiv:1802.03426
(the curve family and its fit).

L. van der Maaten and G. Hinton (2008), "Visualizing Data using t-SNE",
JMLR 9, 2579-2605.

J. Melville, smallvis (R package), ``smallvis(method = "usne")``
(``usne`` in ``R/sne.R``; the "UMAP/t-SNE hybrids" page of its
documentation), https://github.com/jlmelville/smallvis.
"""
