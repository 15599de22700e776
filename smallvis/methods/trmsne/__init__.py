r"""trmsne: t-SNE over the conditional P, not symmetrised (t-RM-SNE).

R smallvis's t-RM-SNE ("row-normalised, matrix-normalised"): asne's
conditional :math:`p_{j|i}`, each row summing to 1, divided by its grand
sum :math:`N` instead of being symmetrised, against t-SNE's Cauchy ``Q``
normalised over all pairs:

.. math::

    p_{ij} = \frac{p_{j|i}}{N},
    \qquad
    q_{ij} = \frac{w_{ij}}{\sum_{k \ne l} w_{kl}},
    \qquad
    w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2},
    \qquad
    C = \sum_{i \ne j} p_{ij} \log \frac{p_{ij}}{q_{ij}}.

``P`` is not symmetric while ``Q`` is, so a pair's two orders pull with
different weights:

.. math::

    \frac{\partial C}{\partial y_i} =
    2 \sum_{j \ne i} (p_{ij} + p_{ji} - 2 q_{ij})\, w_{ij}\, (y_i - y_j),

which is t-SNE's gradient with :math:`p_{ij}` replaced by
:math:`(p_{ij} + p_{ji}) / 2`: t-SNE's symmetrised ``P`` gives the same
gradient, and the cost differs from t-SNE's by a term that does not
depend on the map (the optima are t-SNE's).  The normalised engine sums
every ordered pair (its unit's ``symmetric_p`` is False).

A new point placed by ``transform`` takes its conditional row and its own
row's normalisation, as every method of the normalised engine.  The
default ``exaggeration`` is 1, R smallvis's, as btsne's (see
``method.py``); ``learning_rate="auto"`` is t-SNE's rule.  No
``eps`` floors the logs (R smallvis adds machine epsilon); it has no
stochastic form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
L. van der Maaten and G. Hinton (2008), "Visualizing Data using t-SNE",
Journal of Machine Learning Research 9.

J. Melville, smallvis (R package), ``smallvis(method = "trmsne")``
(``trmsne`` in ``R/sne.R``), https://github.com/jlmelville/smallvis.
"""
