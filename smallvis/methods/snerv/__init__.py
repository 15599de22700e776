r"""snerv: symmetric NeRV, the mixed divergence over all pairs (R smallvis's snerv).

NeRV's mixture of the two KL divergences (:mod:`smallvis.methods.nerv`),
taken once over all pairs: t-SNE's joint ``P`` against the Gaussian ``Q``
normalised over all pairs (symmetric SNE's),

.. math::

    C = \lambda \sum_{i \ne j} p_{ij} \log \frac{p_{ij}}{q_{ij}}
        + (1 - \lambda) \sum_{i \ne j} q_{ij}
          \log \frac{q_{ij}}{\max(p_{ij}, p_\text{floor})},

    q_{ij} = \frac{\exp(-\|y_i - y_j\|^2)}{\sum_{k \ne l} \exp(-\|y_k - y_l\|^2)},

with :math:`p_{ij} = (p_{j|i} + p_{i|j}) / 2N`.  :math:`\lambda = 1` is
ssne.  With :math:`\ell_{ij} = \log q_{ij} - \log \max(p_{ij},
p_\text{floor})` and the reverse divergence :math:`R = \sum_{k \ne l}
q_{kl} \ell_{kl}`,

.. math::

    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i} k_{ij}\, (y_i - y_j),

    k_{ij} = \lambda (p_{ij} - q_{ij}) + (1 - \lambda)\, q_{ij} (R - \ell_{ij}),

R smallvis's gradient (``snerv`` in ``R/nerv.R``: ``K = 4 lambda (P - Q)
+ 4 (1 - lambda) Q (log(P / Q) + KL(Q || P))``).  As for nerv, R floors
``P`` at its ``eps`` (machine epsilon) once, before both divergences;
here the floor acts inside the reverse divergence's log (``p_floor``), and
the forward divergence sums over the pairs with :math:`p > 0`.  The paper
(Venna et al. 2010) defines NeRV per row; this symmetric form is R
smallvis's, followed as it is.

New points
----------
Over their row and their column (``placed_with_column``; docs/theory.md
§6), against the training map's normaliser and offset over all pairs, the
new point's entries both ways the joint ``P``'s, :math:`(p_{j|s} +
p_{s|j}) / 2N`.  Over its own row normalised over itself, a re-placed
training point lands 2.4 nearest-neighbour spacings from its fitted place
(farther than its start) and a far point away from the extreme points it
neighbours; over its row and column, 0.37 (docs/experiments.md, "snerv
and bnerv").

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
J. Venna, J. Peltonen, K. Nybo, H. Aidos and S. Kaski (2010),
"Information retrieval perspective to nonlinear dimensionality reduction
for data visualization", Journal of Machine Learning Research 11, 451-490.

Z. Yang, J. Peltonen and S. Kaski (2015), "Majorization-Minimization for
Manifold Embedding", AISTATS (the default :math:`\lambda = 0.9`).

J. Melville, smallvis (R package), ``smallvis(method = "snerv")``
(``snerv`` in ``R/nerv.R``), https://github.com/jlmelville/smallvis.
"""
