r"""umap: Uniform Manifold Approximation and Projection.

The fuzzy kNN graph ``V`` (memberships in [0, 1], not normalised) against
the weight :math:`w = 1 / (1 + a d^{2b})`, with the fuzzy-set cross-entropy
(docs/theory.md §3.6):

.. math::

    C = \sum_{i \ne j} \left[ v_{ij} \log \frac{v_{ij}}{w_{ij}}
        + (1 - v_{ij}) \log \frac{1 - v_{ij}}{1 - w_{ij}} \right],

.. math::

    \frac{\partial C}{\partial y_i} =
    4 \sum_{j \ne i} \frac{b (v_{ij} - w_{ij})}{d_{ij}^2 + \epsilon} (y_i - y_j),

exact for :math:`\epsilon = 0`.  ``a`` and ``b`` are given or fitted to
``spread`` and ``min_dist`` (:func:`smallvis.output_curve.output_curve`).
The stochastic form is umap-learn's: edge ``(i, j)`` every
:math:`v_{max} / v_{ij}` epochs (:math:`v_{max}` the largest
membership), 5 uniform negatives that do not move,
each gradient component clipped to ±4.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry, the fuzzy-graph settings tumap shares and the
stochastic loop's settings).

References
----------
L. McInnes, J. Healy and J. Melville (2018), "UMAP: Uniform Manifold
Approximation and Projection for Dimension Reduction", arXiv:1802.03426.
Reference code: umap-learn, https://github.com/lmcinnes/umap.

J. Melville, smallvis (R package), ``smallvis(method = "umap")``,
https://github.com/jlmelville/smallvis.
"""
