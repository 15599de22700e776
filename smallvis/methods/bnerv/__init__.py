r"""bnerv: NeRV with the input's bandwidths in the output kernel (R smallvis's bnerv).

NeRV (:mod:`smallvis.methods.nerv`) as the paper defines it (Venna et al.
2010): each row's output Gaussian takes the precision :math:`\beta_i` that
the perplexity calibration found for that row of ``P``, as basne's does
asne's,

.. math::

    q_{j|i} = \frac{\exp(-\beta_i \|y_i - y_j\|^2)}{\sum_{k \ne i} \exp(-\beta_i \|y_i - y_k\|^2)},

    C = \sum_i \Bigl[\lambda \sum_{j \ne i} p_{j|i} \log \frac{p_{j|i}}{q_{j|i}}
        + (1 - \lambda) \sum_{j \ne i} q_{j|i}
          \log \frac{q_{j|i}}{\max(p_{j|i}, p_\text{floor})}\Bigr].

With :math:`\ell_{ij} = \log q_{j|i} - \log \max(p_{j|i}, p_\text{floor})`
and each row's reverse divergence :math:`R_i = \sum_k q_{k|i} \ell_{ik}`,

.. math::

    \frac{\partial C}{\partial y_i} = 2 \sum_{j \ne i} (k_{ij} + k_{ji})(y_i - y_j),

    k_{ij} = \beta_i \bigl[\lambda (p_{j|i} - q_{j|i})
             + (1 - \lambda)\, q_{j|i} (R_i - \ell_{ij})\bigr],

R smallvis's gradient (``bnerv`` in ``R/nerv.R``: ``K = 2 beta (lambda (P
- Q) + (1 - lambda) Q (log(P / Q) + KL_i(Q || P)))``).  With every
:math:`\beta_i = 1` this is nerv.

``bandwidth="input"`` (the default) takes the calibration's precisions
divided by their geometric mean, as basne does (its page says why): R
smallvis uses the :math:`\beta_i` in the units of its own scaling of
``X``, which would tie the map's scale to the data's.  A number gives
every row that precision, an array one per point.  As for nerv, R floors
``P`` at machine epsilon once, before both divergences; here the floor
acts inside the reverse divergence's log only (``p_floor``).

New points
----------
Over their row and their column (``placed_with_column``; docs/theory.md
§6), as nerv's: the new point's row takes the ``P``-weighted geometric
mean of its neighbours' bandwidths (basne's rule,
:meth:`smallvis.transform.TrainingMap.new_inputs`), and each fixed row's
term of its column that row's own bandwidth.  Re-placed training points
land 0.27 nearest-neighbour spacings from their fitted places, 0.51 over
their row alone (docs/experiments.md, "snerv and bnerv").

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
J. Venna, J. Peltonen, K. Nybo, H. Aidos and S. Kaski (2010),
"Information retrieval perspective to nonlinear dimensionality reduction
for data visualization", Journal of Machine Learning Research 11, 451-490.

J. Melville, smallvis (R package), ``smallvis(method = "bnerv")``
(``bnerv`` in ``R/nerv.R``), https://github.com/jlmelville/smallvis.
"""
