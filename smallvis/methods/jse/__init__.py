r"""jse: Jensen-Shannon embedding.

A conditional ``P`` calibrated over all points (asne's), the Gaussian
weight normalised over each row, and each row's cost a mixture of two
Kullback-Leibler divergences to the mixture :math:`Z_i = \kappa P_i + (1 -
\kappa) Q_i` (Lee et al. 2013, the "type 2 mixture"):

.. math::

    C = \sum_i \Bigl[\frac{1}{1 - \kappa} \mathrm{KL}(P_i \| Z_i)
        + \frac{1}{\kappa} \mathrm{KL}(Q_i \| Z_i)\Bigr],

    z_{j|i} = \kappa\, p_{j|i} + (1 - \kappa)\, q_{j|i},

    q_{j|i} = \frac{\exp(-\|y_i - y_j\|^2)}{\sum_{k \ne i} \exp(-\|y_i - y_k\|^2)}.

With :math:`f(p, q)` the summand, :math:`\partial f / \partial q =
\log(q / z) / \kappa` (the terms in :math:`p` cancel), so the normalised
engine's chain rule through each row's normaliser gives the pair
coefficient and the gradient

.. math::

    c_{ij} = -\frac{q_{j|i}}{\kappa} \Bigl(\log \frac{q_{j|i}}{z_{j|i}}
        - \sum_{k \ne i} q_{k|i} \log \frac{q_{k|i}}{z_{k|i}}\Bigr),

    \frac{\partial C}{\partial y_i} = 2 \sum_{j \ne i} (c_{ij} + c_{ji})(y_i - y_j).

:math:`\kappa \to 0` tends to asne's :math:`\mathrm{KL}(P \| Q)`; the
default :math:`\kappa = 1/2` is the symmetric Jensen-Shannon divergence
scaled by 4.  ``sjse`` is the same cost with the joint ``P`` and ``Q``
normalised over all pairs.

The cost is the paper's, exactly: R smallvis (``jse`` in ``R/jse.R``)
floors ``P``, ``Q`` and ``Z`` at machine epsilon and clamps
:math:`\kappa` to :math:`[10^{-5}, 1 - 10^{-5}]`; here
:math:`0 < \kappa < 1` is required and nothing is floored, so the
reported cost is the divergence itself.  It has no stochastic form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
J. A. Lee, E. Renard, G. Bernard, P. Dupont and M. Verleysen (2013), "Type 1
and 2 mixtures of Kullback-Leibler divergences as cost functions in
dimensionality reduction based on similarity preservation",
Neurocomputing 112, 92-108.

J. Melville, smallvis (R package), ``smallvis(method = "jse")``,
https://github.com/jlmelville/smallvis.
"""
