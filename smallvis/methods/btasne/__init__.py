r"""btasne: t-ASNE with the input's bandwidths in the output kernel.

asne's conditional ``P`` and a per-row ``Q`` of the Cauchy weight, each
row's weight given the precision :math:`\beta_i` that the perplexity
calibration found for that row (R smallvis's "bandwidth experiments"):

.. math::

    q_{j|i} = \frac{w_{ij}}{\sum_{k \ne i} w_{ik}},
    \qquad
    w_{ij} = \frac{1}{1 + \beta_i \|y_i - y_j\|^2},
    \qquad
    C = \sum_i \sum_{j \ne i} p_{j|i} \log \frac{p_{j|i}}{q_{j|i}},

.. math::

    \frac{\partial C}{\partial y_i} =
    2 \sum_{j \ne i} \bigl[\beta_i w_{ij} (p_{j|i} - q_{j|i})
        + \beta_j w_{ji} (p_{i|j} - q_{i|j})\bigr] (y_i - y_j).

With every :math:`\beta_i = 1` it is R smallvis's ``tasne`` (asne with
the Cauchy weight).

The bandwidths are basne's (:mod:`smallvis.methods.basne`): by default the
calibration's precisions over their geometric mean, a number for every
row, or an array of one per point (R smallvis's :math:`\beta_i` as they
are, in the units of its scaled ``X``); a new point takes the
``P``-weighted geometric mean of its neighbours' bandwidths.  No ``eps``
floors the logs (R smallvis adds machine epsilon); it has no stochastic
form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
G. Hinton and S. Roweis (2002), "Stochastic Neighbor Embedding", Advances
in Neural Information Processing Systems 15; L. van der Maaten and G.
Hinton (2008), "Visualizing Data using t-SNE", JMLR 9 (the Cauchy weight).

J. Melville, smallvis (R package), ``smallvis(method = "btasne")``
(``btasne`` in ``R/sne.R``), https://github.com/jlmelville/smallvis.
"""
