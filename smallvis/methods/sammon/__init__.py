r"""sammon: Sammon mapping, the stress of each pair relative to its input distance.

The input distances :math:`r_{ij}` (the "input distances" family,
:data:`smallvis.families.INPUT_DISTANCES`: the distances between all rows,
in the data's units) against the output distances :math:`d_{ij} = \|y_i -
y_j\|`, each squared error divided by its input distance (Sammon 1969):

.. math::

    C = \sum_{i \ne j} \frac{(r_{ij} - d_{ij})^2}{r_{ij}},
    \qquad
    c_{ij} = \frac{\partial}{\partial d_{ij}^2} \frac{(r_{ij} - d_{ij})^2}{r_{ij}}
           = \frac{d_{ij} - r_{ij}}{r_{ij} d_{ij}},

.. math::

    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i}
        \frac{d_{ij} - r_{ij}}{r_{ij} d_{ij}} (y_i - y_j).

Sammon's error is :math:`E = \frac{1}{R} \sum_{i<j} (r_{ij} - d_{ij})^2 /
r_{ij}` with :math:`R = \sum_{i<j} r_{ij}`: :math:`C` divided by the sum
of the distances over the ordered pairs, as R smallvis's ``sammon``
computes it.  That constant moves no minimum and is left out here: the
fit runs in units of the mean input distance (as every stress method's),
where it is :math:`N (N - 1)`, and ``E`` is ``C`` divided by it.
Small input distances weigh most, so local structure is kept before
large distances.  R smallvis adds ``eps`` (machine epsilon) to
:math:`r_{ij} d_{ij}` in the gradient and to :math:`r_{ij}` in the cost;
here there is no floor: a pair at input distance 0 (duplicate rows) has no
term, since Sammon's is undefined there (R's ``eps`` would give it a
weight of :math:`10^{16}`), and coincident output points exert no force.
Sammon minimised :math:`E` by a diagonal Newton step with a "magic
factor"; smallvis runs its usual exact optimizer instead, as R smallvis
does.

Default map: as mmds's (``smallvis.methods.mmds``): the PCA start at the
scale of the distances, no exaggeration, 1000 iterations, and mmds's
learning rate, in units of the mean input distance, where Sammon's
weights :math:`1 / r_{ij}` are about 1.  Its stress against classical
MDS is in docs/experiments.md.  No
stochastic form (as in R).  New points are placed by the stress of their
distances to every training point, the training map fixed.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry).

References
----------
J. W. Sammon (1969), "A nonlinear mapping for data structure analysis",
*IEEE Transactions on Computers* C-18(5), 401-409.

J. Melville, smallvis (R package), ``smallvis(method = "sammon")``
(``sammon`` in ``R/mmds.R``), https://github.com/jlmelville/smallvis.
"""
