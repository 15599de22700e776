r"""sjse: symmetric Jensen-Shannon embedding.

jse's cost on ssne's terms: the joint ``P`` calibrated over all points, the
Gaussian weight normalised over all pairs, and one mixture
:math:`Z = \kappa P + (1 - \kappa) Q` over all pairs:

.. math::

    C = \frac{1}{1 - \kappa} \mathrm{KL}(P \| Z) + \frac{1}{\kappa} \mathrm{KL}(Q \| Z),

    z_{ij} = \kappa\, p_{ij} + (1 - \kappa)\, q_{ij},

    q_{ij} = \frac{\exp(-\|y_i - y_j\|^2)}{\sum_{k \ne l} \exp(-\|y_k - y_l\|^2)}.

The engine's chain rule through the one normaliser gives, for a
symmetric ``P``,

.. math::

    c_{ij} = -\frac{q_{ij}}{\kappa} \Bigl(\log \frac{q_{ij}}{z_{ij}}
        - \sum_{k \ne l} q_{kl} \log \frac{q_{kl}}{z_{kl}}\Bigr),

    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i} c_{ij} (y_i - y_j).

:math:`\kappa \to 0` tends to ssne.  A new point is placed with its own
row's normalisation, as for ssne.  As for jse, the cost is the paper's
exactly (R smallvis's ``sjse`` floors ``P``, ``Q`` and ``Z`` at machine
epsilon and clamps :math:`\kappa`), and there is no stochastic form.

Files: ``unit.py`` and ``unit.h`` (jse's units, NumPy and C, with its cost over
all pairs), ``method.py`` (the registry entry), ``golden.json`` and
``golden.npz`` (its golden case).

References
----------
J. A. Lee, E. Renard, G. Bernard, P. Dupont and M. Verleysen (2013), "Type 1
and 2 mixtures of Kullback-Leibler divergences as cost functions in
dimensionality reduction based on similarity preservation",
Neurocomputing 112, 92-108.

J. Melville, smallvis (R package), ``smallvis(method = "sjse")``,
https://github.com/jlmelville/smallvis.
"""
