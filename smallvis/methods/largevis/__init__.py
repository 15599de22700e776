r"""largevis: LargeVis.

The joint ``P`` calibrated over nearest neighbours, the Cauchy weight
without normalisation, and every pair's repulsion weighted by
:math:`\gamma` (docs/theory.md §3.5):

.. math::

    C = -\sum_{i \ne j} p_{ij} \log w_{ij} - \gamma \sum_{i \ne j} \log(1 - w_{ij}),
    \qquad w_{ij} = \frac{1}{1 + \alpha \|y_i - y_j\|^2},

.. math::

    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i}
    \left(\alpha w_{ij} p_{ij} - \frac{\gamma w_{ij}}{d_{ij}^2 + \epsilon}\right)(y_i - y_j),

exact for :math:`\epsilon = 0`.  The default ``kernel="cauchy"`` is
:math:`\alpha = 1`; another ``alpha`` needs ``kernel="cauchy_alpha"``, and
``kernel="exp"`` takes :math:`w = 1 / (1 + e^{d^2})` instead.  The
stochastic optimizer runs ``kernel="cauchy"`` only (the reference code's).  The exact cost's ``gamma="auto"``
gives it the stochastic form's balance of repulsion to attraction.  The
stochastic form samples edges in proportion to :math:`p_{ij}` and 5
negatives in proportion to degree^0.75, with clip ±5, as the reference
code does.

Files: ``unit.py`` and ``unit.h`` (the maths of both weights, NumPy and C),
``method.py`` (the registry entry, ``gamma="auto"``, the epoch budget and
the early phase).

References
----------
J. Tang, J. Liu, M. Zhang and Q. Mei (2016), "Visualizing Large-scale and
High-dimensional Data", WWW.  Reference code:
https://github.com/lferry007/LargeVis.

J. Melville, smallvis (R package), ``smallvis(method = "largevis")``,
https://github.com/jlmelville/smallvis.
"""
