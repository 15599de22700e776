r"""rsrjse: Jensen-Shannon embedding on row-normalised symmetrised affinities.

jse's cost (Lee et al. 2013), a mixture of two KL divergences per row with
the Gaussian weight normalised over each row, on R smallvis's "rsr" input
affinities: the conditional :math:`p_{j|i}` (rows normalised),
symmetrised, and each row normalised again,

.. math::

    p_{ij} = \frac{v_{ij}}{\sum_k v_{ik}}, \quad
    v_{ij} = \frac{p_{j|i} + p_{i|j}}{2};
    \qquad
    C = \sum_i \Bigl(\frac{1}{1 - \kappa} \mathrm{KL}(P_i \| Z_i)
        + \frac{1}{\kappa} \mathrm{KL}(Q_i \| Z_i)\Bigr),
    \qquad
    z_{ij} = \kappa\, p_{ij} + (1 - \kappa)\, q_{ij},

with :math:`q_{ij} = \exp(-\|y_i - y_j\|^2) / \sum_{k \ne i} \exp(-\|y_i -
y_k\|^2)`.  Its gradient is jse's with this ``P``:

.. math::

    c_{ij} = -\frac{q_{ij}}{\kappa} \Bigl(\log \frac{q_{ij}}{z_{ij}}
        - \sum_{k \ne i} q_{ik} \log \frac{q_{ik}}{z_{ik}}\Bigr),
    \qquad
    \frac{\partial C}{\partial y_i} = 2 \sum_{j \ne i} (c_{ij} + c_{ji}) (y_i - y_j).

:math:`\kappa \to 0` tends to asne's cost (a KL divergence per row) on
the same ``P``.  As for jse, the cost is the paper's exactly (R
smallvis's ``jse`` floors ``P`` and ``Z`` at machine epsilon and clamps
:math:`\kappa` to :math:`[10^{-5}, 1 - 10^{-5}]`; here a :math:`\kappa`
outside :math:`(0, 1)` is refused).  A new point is placed with its own
conditional row, as for jse.  It has no stochastic form, as in R.

Files: ``unit.py`` and ``unit.h`` (jse's units, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
J. A. Lee, E. Renard, G. Bernard, P. Dupont and M. Verleysen (2013), "Type 1
and 2 mixtures of Kullback-Leibler divergences as cost functions in
dimensionality reduction based on similarity preservation",
Neurocomputing 112, 92-108.

J. Melville, smallvis (R package), ``smallvis(method = "rsrjse")``
(``rsrjse`` in ``R/jse.R``), https://github.com/jlmelville/smallvis.
"""
