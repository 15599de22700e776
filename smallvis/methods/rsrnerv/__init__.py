r"""rsrnerv: NeRV on the row-normalised symmetrised P.

nerv's cost (the Gaussian ``Q`` normalised per row, each row's mixture
:math:`\lambda\, \mathrm{KL}(P_i \| Q_i) + (1 - \lambda)\,
\mathrm{KL}(Q_i \| P_i)`, ``P`` floored at :math:`p_\text{floor}` inside
the reverse divergence's log) on R smallvis's "rsr" affinities: the
conditional Gaussian ``P`` symmetrised, then each row divided by its sum,

.. math::

    p_{ij} = \frac{p_{j|i} + p_{i|j}}{\sum_k (p_{k|i} + p_{i|k})},
    \qquad
    C = \sum_i \sum_{j \ne i} \Bigl[\lambda\, p_{ij} \log \frac{p_{ij}}{q_{j|i}}
        + (1 - \lambda)\, q_{j|i} \log \frac{q_{j|i}}{\max(p_{ij}, p_\text{floor})}\Bigr].

The gradient is nerv's (:mod:`smallvis.methods.nerv`) with :math:`p_{ij}`
in place of :math:`p_{j|i}`.

New points
----------
Over their row and column (docs/theory.md §6), as arsrsne's: the new
point's affinity to a training point is the mean of its two conditionals,
in its row (scaled to sum 1) and in its column (divided by the fixed
row's sum in the symmetrised ``P``).

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry).

References
----------
J. Venna, J. Peltonen, K. Nybo, H. Aidos and S. Kaski (2010),
"Information retrieval perspective to nonlinear dimensionality reduction
for data visualization", Journal of Machine Learning Research 11, 451-490.

J. Melville, smallvis (R package), ``smallvis(method = "rsrnerv")``,
https://github.com/jlmelville/smallvis (``R/nerv.R``).
"""
