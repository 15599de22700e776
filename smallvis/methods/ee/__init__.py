r"""ee: elastic embedding.

R smallvis's ``ee``, the elastic embedding of Carreira-Perpiñán (2010):
an attraction along the input affinities ``P`` and a repulsion of every
pair weighted by a second per-pair input, the weights :math:`v^-` made
from the input distances, with the Gaussian output weight and no
normalisation of the output:

.. math::

    C = \sum_{i \ne j} p_{ij} d_{ij}^2
        + \lambda \sum_{i \ne j} v^-_{ij} e^{-d_{ij}^2},
    \qquad
    v^-_{ij} = \frac{r_{ij}}{\sum_{k \ne l} r_{kl}},

with ``P`` t-SNE's joint affinities (summing to 1), :math:`d_{ij} = \|y_i
- y_j\|` and :math:`r_{ij}` the input distance of the pair (in the fit's
``metric``).  With :math:`w_{ij} = e^{-d_{ij}^2}` the cost is
:math:`-\sum p \log w + \lambda \sum v^- w`, and its gradient

.. math::

    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i}
        \bigl(p_{ij} - \lambda v^-_{ij} w_{ij}\bigr) (y_i - y_j).

The parameter is ``lam`` (``lambda`` is a Python keyword), R smallvis's
100 by default, the value of the spectral-direction paper (Vladymyrov &
Carreira-Perpiñán 2012) on COIL-20 and MNIST.  ``repulsion_weights`` is
the second input: ``"input"`` (the default) takes :math:`v^-` from the
input distances as above; a number puts the same weight on every pair
(R's ``neg_weights = FALSE`` is 1, which needs a far smaller ``lam``,
about :math:`10^{-4}`); an ``N x N`` matrix is used as it is.  With
``affinities=`` (a ``P`` without its data) the weights must be given.
``learning_rate="auto"`` is the rule of the Gaussian output weight
(:func:`smallvis.method_spec.gaussian_auto_learning_rate`, symmetric SNE's):
the attraction's curvature is the same, :math:`4 \sum_j p_{ij}`, and on
digits the rule gives about 110, near the 100 R smallvis's documentation
runs ee with; the default ``exaggeration`` is 1, R smallvis's.  It has no
stochastic form, as in R.

**New points.**  A new point ``s`` needs its row of :math:`v^-` against
the training points.  It takes the mean of its neighbours' rows, weighted
by its own row of ``P``, :math:`v^-_{sj} = \sum_k p_{sk} v^-_{kj} / \sum_k
p_{sk}`: the input distance to a far point :math:`j` differs from a
neighbour's by at most the distance to that neighbour (the triangle
inequality), which is small where ``P`` puts its weight, and the rows stay
on the fit's scale (divided by the fit's sum of distances) with no search
of the training data beyond the neighbours ``P`` already found.

**Where it differs from R.**  R's cost floors :math:`w` at machine
epsilon before :math:`\log w`, so that a pair beyond :math:`d^2 \approx
36` adds a constant to the cost instead of :math:`p\, d^2`; its gradient
has no floor.  Here the cost is :math:`p\, d^2` itself, whose gradient is
R's.  R's documentation writes :math:`v^-` as the squared input
distances; its code (``calc_d``) takes the distances, which this follows.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C: the
attraction's and the repulsion's pair units and the two-input unit that
joins them), ``method.py`` (the registry entry), ``golden.json`` and
``golden.npz`` (its golden case).

References
----------
M. Á. Carreira-Perpiñán (2010), "The Elastic Embedding Algorithm for
Dimensionality Reduction", ICML 2010, 167-174.

M. Vladymyrov and M. Á. Carreira-Perpiñán (2012), "Partial-Hessian
Strategies for Fast Learning of Nonlinear Embeddings", ICML 2012.

J. Melville, smallvis (R package), ``smallvis(method = "ee")`` (``ee`` in
``R/ee.R``), https://github.com/jlmelville/smallvis.
"""
