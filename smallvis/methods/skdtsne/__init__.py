r"""skdtsne: SKD t-SNE, t-SNE on UMAP's fuzzy graph.

t-SNE's Cauchy weight normalised over all pairs and KL divergence, with
the input affinities of UMAP instead of a perplexity calibration: the
smooth kNN distances' memberships, their fuzzy union, normalised to sum
1 (R smallvis's "SKD t-SNE"):

.. math::

    C = \sum_{i \ne j} p_{ij} \log \frac{p_{ij}}{q_{ij}},
    \qquad
    p_{ij} = \frac{v_{ij}}{\sum_{k \ne l} v_{kl}},
    \qquad
    q_{ij} = \frac{w_{ij}}{\sum_{k \ne l} w_{kl}},
    \qquad
    w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2},

with :math:`v` UMAP's fuzzy graph (``n_neighbors`` counting the point
itself, as umap-learn and R smallvis's ``perplexity`` for this method).
Its gradient is t-SNE's,

.. math::

    \frac{\partial C}{\partial y_i} =
    4 \sum_{j \ne i} (p_{ij} - q_{ij})\, w_{ij}\, (y_i - y_j).

It runs on the generic normalised engine with t-SNE's hooks (the numbers
of ``tsne``'s own kernels for the same ``P``, to rounding).  The cost is
exact: R smallvis floors ``P`` and ``Q`` at machine epsilon inside its
logs; nothing is floored here.  The default ``exaggeration`` is 1, R
smallvis's (docs/experiments.md, 2026-12-02).  A new point's row of
``P`` is its memberships, scaled as the fit's rows.  It has no stochastic
form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
L. van der Maaten and G. Hinton (2008), "Visualizing Data using t-SNE",
JMLR 9, 2579-2605.

L. McInnes, J. Healy and J. Melville (2018), "UMAP: Uniform Manifold
Approximation and Projection for Dimension Reduction", arXiv:1802.03426
(the smooth kNN distances and the fuzzy union).

J. Melville, smallvis (R package), ``smallvis(method = "skdtsne")``
(``skdtsne`` in ``R/sne.R``: ``tsne`` with ``inp_kernel = "skd"`` and
``symmetrize = "umap"``; the "UMAP/t-SNE hybrids" page of its
documentation), https://github.com/jlmelville/smallvis.
"""
