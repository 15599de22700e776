r"""nerv: neighbor retrieval visualizer (Venna et al. 2010), R smallvis's NeRV.

A mixture of the two KL divergences between each point's conditional
input distribution and the Gaussian output distribution normalised over
its row,

.. math::

    C = \sum_i \Bigl[\lambda \sum_{j \ne i} p_{j|i} \log \frac{p_{j|i}}{q_{j|i}}
        + (1 - \lambda) \sum_{j \ne i} q_{j|i}
          \log \frac{q_{j|i}}{\max(p_{j|i}, p_\text{floor})}\Bigr],

    q_{j|i} = \frac{\exp(-\|y_i - y_j\|^2)}{\sum_{k \ne i} \exp(-\|y_i - y_k\|^2)},

the first divergence (asne's) penalising missed neighbours (recall), the
second false neighbours (precision).  :math:`\lambda = 1` is asne.
With :math:`\ell_{ij} = \log q_{j|i} - \log \max(p_{j|i}, p_\text{floor})`
and each row's reverse divergence :math:`R_i = \sum_k q_{k|i} \ell_{ik}`,

.. math::

    \frac{\partial C}{\partial y_i} = 2 \sum_{j \ne i} (k_{ij} + k_{ji})(y_i - y_j),

    k_{ij} = \lambda (p_{j|i} - q_{j|i}) + (1 - \lambda)\, q_{j|i} (R_i - \ell_{ij}).

R smallvis floors ``P`` at its ``eps`` (machine epsilon) once, before
both divergences; here the floor acts inside the reverse divergence's log
(``p_floor``, as rklsne's), and the forward divergence sums over the
pairs with :math:`p > 0`.  The two differ by at most
:math:`\lambda N^2 p_\text{floor} \max |\log(p_\text{floor} / q)|` in the
cost.  Like R (and unlike the paper), the output kernel has one width:
the input bandwidths are not transferred to it.

New points
----------
Over their row and column (docs/theory.md §6): the reverse divergence of
a new point's own row alone puts it where its Gaussian covers the fewest
non-neighbours, off the edge of its class; the terms it adds to the fixed
rows (its :math:`q_{s|j}`) hold it where the fit would
(docs/experiments.md).

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry).

References
----------
J. Venna, J. Peltonen, K. Nybo, H. Aidos and S. Kaski (2010),
"Information retrieval perspective to nonlinear dimensionality reduction
for data visualization", Journal of Machine Learning Research 11, 451-490.

Z. Yang, J. Peltonen and S. Kaski (2015), "Majorization-Minimization for
Manifold Embedding", AISTATS (the default :math:`\lambda = 0.9`).

J. Melville, smallvis (R package), ``smallvis(method = "nerv")``,
https://github.com/jlmelville/smallvis (``R/nerv.R``).
"""
