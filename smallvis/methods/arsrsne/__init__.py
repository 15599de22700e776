r"""arsrsne: asymmetric SNE on the row-normalised symmetrised P.

asne's cost (the Gaussian ``Q`` normalised per row, the KL divergence of
each row) on R smallvis's "rsr" affinities: the conditional Gaussian
``P`` symmetrised, then each row divided by its sum,

.. math::

    p_{ij} = \frac{p_{j|i} + p_{i|j}}{\sum_k (p_{k|i} + p_{i|k})},
    \qquad
    C = \sum_i \sum_{j \ne i} p_{ij} \log \frac{p_{ij}}{q_{j|i}},
    \qquad
    q_{j|i} = \frac{\exp(-\|y_i - y_j\|^2)}{\sum_{k \ne i} \exp(-\|y_i - y_k\|^2)},

.. math::

    \frac{\partial C}{\partial y_i} =
    2 \sum_{j \ne i} \left(p_{ij} - q_{j|i} + p_{ji} - q_{i|j}\right)(y_i - y_j).

New points
----------
Over their row and column (docs/theory.md §6 derives the column): the new point's affinity to a training point is the mean of its
two conditionals, :math:`(p_{j|s} + p_{s|j}) / 2`, in its row (scaled to
sum 1) and in its column.  Over its conditional row alone a new point
misses the fit's symmetrised rows (docs/experiments.md).

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry).

References
----------
G. Hinton and S. Roweis (2002), "Stochastic Neighbor Embedding", Advances
in Neural Information Processing Systems 15.

J. Melville, smallvis (R package), ``smallvis(method = "arsrsne")``,
https://github.com/jlmelville/smallvis (``R/sne.R``).
"""
