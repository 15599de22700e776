r"""tmsne: t-SNE over each row's Gaussian weights, unnormalised (t-M-SNE).

R smallvis's t-M-SNE ("matrix-normalised" only): the calibrated Gaussian
weights of each row, neither normalised per row nor symmetrised, divided
by their grand sum, against t-SNE's Cauchy ``Q`` normalised over all
pairs:

.. math::

    p_{ij} = \frac{v_{ij}}{\sum_{k \ne l} v_{kl}},

    v_{ij} = \exp(-\beta_i \|x_i - x_j\|^2),

    q_{ij} = \frac{w_{ij}}{\sum_{k \ne l} w_{kl}},

    w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2},

.. math::

    C = \sum_{i \ne j} p_{ij} \log \frac{p_{ij}}{q_{ij}},

    \frac{\partial C}{\partial y_i} =
    2 \sum_{j \ne i} (p_{ij} + p_{ji} - 2 q_{ij})\, w_{ij}\, (y_i - y_j),

with :math:`\beta_i` the precision of row ``i``'s perplexity calibration.
trmsne (:mod:`smallvis.methods.trmsne`) divides each row by its mass
:math:`Z_i = \sum_j v_{ij}` first; here row ``i`` keeps it, so a point
far from the others (a small :math:`Z_i`) pulls its neighbours little.
R marks the method "not recommended".  The engine sums every ordered pair,
as trmsne's (its unit's ``symmetric_p`` is False).

Its default map, as R's, strews the low-mass points over the map: the
classes are compact islands and the points far from their neighbours in
the data lie far from them in the map too (digits spans 284 against
t-SNE's tens).  A new point is placed over its row and its column
against the fit's normaliser over all pairs; a point far outside the
data lands about as far from its neighbours as the fit leaves the most
outlying of them from theirs (docs/experiments.md, "tmsne registered").

The products :math:`\beta_i d_{ij}^2` are taken in the calibration's
units, so ``P`` does not depend on the units of ``X``
(:func:`smallvis.inputs.affinities.gaussian_weights_over_pairs`).  A row
whose calibration failed has mass 1, as R's fallback row.  No ``eps``
floors the logs (R smallvis floors ``P`` at its ``eps`` in
:math:`p \log p`); exaggeration 1, R's, as trmsne's; no stochastic
form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
L. van der Maaten and G. Hinton (2008), "Visualizing Data using t-SNE",
Journal of Machine Learning Research 9.

J. Melville, smallvis (R package), ``smallvis(method = "tmsne")``
(``tmsne`` in ``R/sne.R``), https://github.com/jlmelville/smallvis.
"""
