r"""trsrsne: t-distributed asymmetric SNE on row-normalised symmetrised affinities.

A KL divergence per row with the Cauchy (Student-t) weight normalised over
each row (R smallvis's t-ASNE, ``tasne``), on R smallvis's "rsr" input
affinities: the conditional :math:`p_{j|i}` (rows normalised),
symmetrised, and each row normalised again,

.. math::

    p_{ij} = \frac{v_{ij}}{\sum_k v_{ik}}, \quad
    v_{ij} = \frac{p_{j|i} + p_{i|j}}{2};

    C = \sum_i \sum_{j \ne i} p_{ij} \log \frac{p_{ij}}{q_{ij}},

    q_{ij} = \frac{w_{ij}}{\sum_{k \ne i} w_{ik}},

    w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2}.

The normalised engine's chain rule through each row's normaliser gives

.. math::

    c_{ij} = (p_{ij} - q_{ij})\, w_{ij},

    \frac{\partial C}{\partial y_i} = 2 \sum_{j \ne i} (c_{ij} + c_{ji}) (y_i - y_j).

R smallvis's comment calls it an experiment that "might work a tiny bit
better than t-ASNE"; there is no paper.  The cost is exact (R floors
``q`` at machine epsilon in its log).  Since each row of ``P`` sums to 1,
``P`` sums to N: the ``"auto"`` learning rate is t-SNE's divided by N.
A new point is placed with its own conditional row, as for asne.  It has
no stochastic form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
L. van der Maaten and G. Hinton (2008), "Visualizing Data using t-SNE",
Journal of Machine Learning Research 9, 2579-2605 (the Cauchy weight).

J. Melville, smallvis (R package), ``smallvis(method = "trsrsne")``
(``trsrsne`` and ``tasne`` in ``R/sne.R``), https://github.com/jlmelville/smallvis.
"""
