r"""btsne: t-SNE with the input's bandwidths in the output kernel.

t-SNE's joint ``P``, with the Cauchy weight of the pair ``(i, j)`` given
the precision :math:`\beta_i` that the perplexity calibration found for
row ``i`` of the conditional ``P`` it is made of (R smallvis's "bandwidth
experiments"), normalised over all pairs:

.. math::

    q_{ij} = \frac{w_{ij}}{\sum_{k \ne l} w_{kl}},
    \qquad
    w_{ij} = \frac{1}{1 + \beta_i \|y_i - y_j\|^2},
    \qquad
    C = \sum_{i \ne j} p_{ij} \log \frac{p_{ij}}{q_{ij}},

.. math::

    \frac{\partial C}{\partial y_i} =
    2 \sum_{j \ne i} \bigl[\beta_i w_{ij} (p_{ij} - q_{ij})
        + \beta_j w_{ji} (p_{ji} - q_{ji})\bigr] (y_i - y_j).

``w`` is not symmetric where :math:`\beta_i \ne \beta_j`, while ``P`` is.
With every :math:`\beta_i = 1` this is t-SNE.

The bandwidths are basne's (:mod:`smallvis.methods.basne`): by default the
calibration's precisions over their geometric mean, a number for every
row, or an array of one per point (R smallvis's :math:`\beta_i` as they
are, in the units of its scaled ``X``); a new point takes the
``P``-weighted geometric mean of its neighbours' bandwidths and, as in
every method of the normalised engine, its own row's normalisation.
The default ``exaggeration`` is 1, R smallvis's (see ``method.py``).  No ``eps`` floors
the logs (R smallvis adds machine epsilon); it has no stochastic form, as
in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
L. van der Maaten and G. Hinton (2008), "Visualizing Data using t-SNE",
Journal of Machine Learning Research 9.

J. Melville, smallvis (R package), ``smallvis(method = "btsne")``
(``btsne`` in ``R/sne.R``), https://github.com/jlmelville/smallvis.
"""
