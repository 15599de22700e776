r"""gsne: global t-SNE.

R smallvis's ``gsne``, the global t-SNE of Zhou and Sharpee (2018): t-SNE's
KL divergence plus :math:`\lambda` times a second KL divergence, between
global affinities :math:`\hat{P}` of the input distances of all pairs (a
second per-pair input beside ``P``) and their output twin :math:`\hat{Q}`,
each with its own normaliser over all pairs:

.. math::

    C = \mathrm{KL}(P \| Q) + \lambda\, \mathrm{KL}(\hat{P} \| \hat{Q}),
    \qquad
    q_{ij} = \frac{w_{ij}}{\sum_{k \ne l} w_{kl}}, \quad
    \hat{q}_{ij} = \frac{1 / w_{ij}}{\sum_{k \ne l} 1 / w_{kl}},
    \quad w_{ij} = \frac{1}{1 + d_{ij}^2},

    \hat{p}_{ij} = \frac{1 + r_{ij}^2}{\sum_{k \ne l} (1 + r_{kl}^2)},

with ``P`` t-SNE's joint affinities and :math:`r_{ij}` the input distance
of the pair (in the fit's ``metric``) in the units of R smallvis's default
input scaling (``scale = "absmax"``: the distance divided by the largest
absolute element of the centred data; for a ``"precomputed"`` matrix, by
half the largest distance), so that :math:`\hat{P}` does not depend on
the units of the data, as nothing else in the package does.  :math:`\hat{P}` and
:math:`\hat{Q}` grow with the distance: they weigh the far pairs, which
t-SNE's ``P`` leaves to its repulsion alone, so that the global divergence
keeps the clusters' arrangement.  The gradient is

.. math::

    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i} w_{ij}
        \Bigl(p_{ij} - q_{ij} - \lambda (\hat{p}_{ij} - \hat{q}_{ij})\Bigr)
        (y_i - y_j).

The parameter is ``lam`` (``lambda`` is a Python keyword), R smallvis's 1
by default.  ``global_affinities`` is the second input: ``"input"`` (the
default) takes :math:`\hat{P}` from the input distances as above; a number
is the uniform :math:`\hat{P}` (the engine divides the input by its sum);
an ``N x N`` matrix is used over its sum.  With ``affinities=`` (a ``P``
without its data) it must be given.  Early exaggeration multiplies ``P``
only, as in R (``Phat isn't affected by early exaggeration``); the
optimizer's defaults are t-SNE's.  It has no stochastic form, as in R.

**New points.**  A new point ``s`` needs its row of :math:`\hat{P}`
against the training points.  It takes the mean of its neighbours' rows,
weighted by its own row of ``P``, :math:`\hat{p}_{sj} = \sum_k p_{sk}
\hat{p}_{kj} / \sum_k p_{sk}`: the squared input distance to a far point
changes little between the new point and its near neighbours, the row
stays on the fit's scale (the fit's normaliser, with the mass of a
training row, as the new row of ``P`` is scaled to), and no search of the
training data beyond the neighbours ``P`` already found is needed.  As for
t-SNE, each part of a new point's cost is normalised over its own row.

**Where it differs from R.**  R floors ``P`` and :math:`\hat{Q}` at
machine epsilon before its logs; here a pair with :math:`p = 0` adds no
term (its limit).  The cost, its constant terms included, is otherwise
R's, and its gradient R's.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C: the global
divergence's normalised unit and the two-input unit that joins it to
t-SNE's), ``method.py`` (the registry entry), ``golden.json`` and
``golden.npz`` (its golden case).

References
----------
Y. Zhou and T. O. Sharpee (2018), "Using global t-SNE to preserve
inter-cluster data structure", bioRxiv 331611; Neural Computation 34
(2022), 1637-1651.

J. Melville, smallvis (R package), ``smallvis(method = "gsne")`` (``gsne``
in ``R/gsne.R``), https://github.com/jlmelville/smallvis.
"""
