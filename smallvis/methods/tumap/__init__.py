r"""tumap: t-UMAP, UMAP with ``a = b = 1``.

UMAP's fuzzy graph and cross-entropy with the Cauchy weight
:math:`w = 1 / (1 + d^2)` (docs/theory.md §3.7):

.. math::

    C = \sum_{i \ne j} \left[ v_{ij} \log \frac{v_{ij}}{w_{ij}}
        + (1 - v_{ij}) \log \frac{1 - v_{ij}}{1 - w_{ij}} \right],

.. math::

    \frac{\partial C}{\partial y_i} =
    4 \sum_{j \ne i} \frac{(v_{ij} - w_{ij})\, w_{ij}}{1 - w_{ij} + \epsilon} (y_i - y_j),

exact for :math:`\epsilon = 0`, where :math:`w / (1 - w) = 1 / d^2`.  Its
stochastic loop is UMAP's with the Cauchy coefficient.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry, which takes UMAP's graph and loop from
:mod:`smallvis.methods.umap.method`).

References
----------
L. McInnes, J. Healy and J. Melville (2018), "UMAP: Uniform Manifold
Approximation and Projection for Dimension Reduction", arXiv:1802.03426.

J. Melville, smallvis (R package), ``smallvis(method = "tumap")``, and
uwot's ``tumap``, https://github.com/jlmelville/smallvis,
https://github.com/jlmelville/uwot.
"""
