r"""negtsne: Neg-t-SNE, negative sampling with a fixed normalisation.

The symmetric kNN graph normalised to sum 1, the model
:math:`q_{ij} = \phi_{ij} / \bar Z` with :math:`\phi_{ij} = 1 / (1 + d_{ij}^2)`,
and :math:`m` (``negative_sample_rate``) negatives per positive sample
drawn uniformly over the ordered pairs (:math:`\xi = 1 / (N (N - 1))`).  The expected loss
(docs/theory.md §3.10) is

.. math::

    C = \sum_{i \ne j} \left[ p_{ij} \log\left(1 + c (1 + d_{ij}^2)\right)
        + m \xi \log\left(1 + \frac{1}{c (1 + d_{ij}^2)}\right) \right],
    \qquad c = \bar Z m \xi.

With :math:`u_{ij} = 1 + d_{ij}^2` and ``P`` symmetric, its gradient is

.. math::

    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i}
        \frac{c\, u_{ij} p_{ij} - m \xi}{u_{ij} (1 + c\, u_{ij})} (y_i - y_j).

:math:`c = 1` is UMAP-like; a smaller :math:`\bar Z` adds repulsion,
towards t-SNE.  ``z_bar="auto"`` gives :math:`c = \min(50 / (N - 1), 1)`.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry, ``z_bar="auto"`` and the stochastic loop's settings).

References
----------
S. Damrich, J. N. Böhm, F. A. Hamprecht and D. Kobak (2023), "From t-SNE to
UMAP with contrastive learning", ICLR.  Reference code:
https://github.com/berenslab/contrastive-ne.
"""
