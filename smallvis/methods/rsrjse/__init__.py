r"""rsrjse: Jensen-Shannon embedding on the row-normalised symmetrised P.

jse's cost (Lee et al. 2013: the Gaussian ``Q`` normalised per row, each
row's mixture :math:`z = \kappa p + (1 - \kappa) q`) on R smallvis's "rsr"
affinities: the conditional Gaussian ``P`` symmetrised, then each row
divided by its sum,

.. math::

    p_{ij} = \frac{p_{j|i} + p_{i|j}}{\sum_k (p_{k|i} + p_{i|k})},
    \qquad
    C = \sum_i \sum_{j \ne i} \Bigl[\frac{p_{ij}}{1 - \kappa} \log \frac{p_{ij}}{z_{ij}}
        + \frac{q_{j|i}}{\kappa} \log \frac{q_{j|i}}{z_{ij}}\Bigr],

with jse's gradient (:mod:`smallvis.methods.jse`) on this ``P``.

New points
----------
Over their row and column (docs/theory.md §6 derives the column): the
new point's affinity to a training point is the mean of its two
conditionals, in its row (scaled to sum 1) and in its column.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry).

References
----------
J. A. Lee, E. Renard, G. Bernard, P. Dupont and M. Verleysen (2013),
"Type 1 and 2 mixtures of Kullback-Leibler divergences as cost functions
in dimensionality reduction based on similarity preservation",
Neurocomputing 112, 92-108.

J. Melville, smallvis (R package), ``smallvis(method = "rsrjse")``,
https://github.com/jlmelville/smallvis (``R/jse.R``).
"""
