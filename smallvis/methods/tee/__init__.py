r"""tee: t-distributed elastic embedding.

R smallvis's ``tee``: the elastic embedding of Carreira-Perpiñán (2010),
an attraction :math:`-p \log w` along the input affinities and a repulsion
:math:`\lambda w` over all pairs, with t-SNE's Cauchy weight in place of
the Gaussian, written as a generalised (I-) divergence between :math:`V =
N P` (R's symmetrised, unnormalised affinities, which sum to :math:`N`)
and the weights, scaled by :math:`1 / N` so that its gradient has t-SNE's
form:

.. math::

    C = \frac{1}{N} \sum_{i \ne j} \Bigl(v_{ij} \log \frac{v_{ij}}{w_{ij}}
        - \lambda v_{ij} + \lambda w_{ij}\Bigr),

    w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2},

that is, with ``P`` t-SNE's joint affinities (summing to 1),

.. math::

    C = \sum_{i \ne j} \Bigl(p_{ij} \log(N p_{ij}) - \lambda p_{ij}
        + p_{ij} \log(1 + d_{ij}^2) + \frac{\lambda}{N} w_{ij}\Bigr).

The cost is not normalised: a sum over pairs, whose gradient is

.. math::

    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i}
        w_{ij} \Bigl(p_{ij} - \frac{\lambda}{N} w_{ij}\Bigr) (y_i - y_j).

At :math:`\lambda = 1` the cost is the I-divergence between ``P`` and
:math:`W / N`.  The parameter is ``lam`` (``lambda`` is a Python
keyword).  Its default, ``"auto"``, is R smallvis's :math:`\lambda =
0.01` from 400 points on and :math:`4 / N` below: near a collapse every
weight is close to 1, where the attraction sums to :math:`\sum p = 1` and
the repulsion to about :math:`\lambda N`, so with R's value fewer than 100
points collapse to one (two points always meet); :math:`4 / N` keeps the
repulsion of a collapsed map four times its attraction.  The step size of
``learning_rate="auto"`` is t-SNE's rule without its floor of 50
(:func:`smallvis.method_spec.unfloored_auto_learning_rate`), as for the
other costs whose repulsion has a weight of its own.  As in R, the first
terms, :math:`p \log(N p) - \lambda p`, depend on ``P`` only and are kept
in the cost; R floors ``V`` and ``W`` at machine epsilon before its logs,
which is not done here (a pair with :math:`p = 0` contributes no
attraction term, its limit).  The default ``exaggeration`` is 1, R
smallvis's.  It has no stochastic form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
M. Á. Carreira-Perpiñán (2010), "The Elastic Embedding Algorithm for
Dimensionality Reduction", ICML 2010, 167-174.

J. Melville, smallvis (R package), ``smallvis(method = "tee")`` (``tee``
in ``R/ee.R``), https://github.com/jlmelville/smallvis.
"""
