r"""mmds: metric multidimensional scaling, the raw stress over all pairs.

The input is not an affinity but the distance :math:`r_{ij}` between rows
:math:`i` and :math:`j` of the data (the "input distances" family,
:data:`smallvis.families.INPUT_DISTANCES`, computed once from ``X`` or
given as ``metric="precomputed"``), in the data's units: the map of
``c X`` is ``c`` times the map of ``X`` (the family is "equivariant",
where affinities are invariant).  The fit runs in units of the mean input
distance and returns its map in the data's units; the reported cost is
the stress in those units, the same for ``c X`` as for ``X``.  The cost is the squared error of
the output distances :math:`d_{ij} = \|y_i - y_j\|` (Borg & Groenen
2005, the raw stress; R smallvis calls it "strain"):

.. math::

    C = \sum_{i \ne j} (r_{ij} - d_{ij})^2 .

With :math:`f(r, d^2) = (r - d)^2` the pair coefficient and the gradient
are

.. math::

    c_{ij} = \frac{\partial f}{\partial d_{ij}^2} = 1 - \frac{r_{ij}}{d_{ij}},
    \qquad
    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i}
        \Bigl(1 - \frac{r_{ij}}{d_{ij}}\Bigr) (y_i - y_j).

There is no output weight, no normalisation of the output and no noise:
each pair adds its own term.  A pair nearer than its input distance is pushed apart, a
pair farther is pulled together.  The gradient step with learning rate
:math:`1 / (4N)` and no momentum is the Guttman transform of SMACOF
(de Leeuw 1977); the default learning rate is a fraction of it, as the
delta-bar-delta gains grow the step (``method.py``).  R smallvis adds
``eps`` (machine epsilon) to :math:`d_{ij}` in the gradient's denominator;
here coincident output points exert no force instead, as in every pair
engine, and the gradient is exact everywhere else.

Default map: the exact optimizer from the PCA scores scaled to the
mean input distance, 1000 iterations, no early exaggeration (it would
multiply the distances).  Its stress against classical MDS of the same
distances (Torgerson 1952) is in docs/experiments.md.  It has
no stochastic form (as in R).  New points are placed by the stress of
their distances to every training point, the training map fixed.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry).

References
----------
I. Borg and P. J. F. Groenen (2005), *Modern Multidimensional Scaling:
Theory and Applications*, 2nd ed., Springer.

J. de Leeuw (1977), "Applications of convex analysis to multidimensional
scaling", in *Recent Developments in Statistics*, North-Holland, 133-145.

W. S. Torgerson (1952), "Multidimensional scaling: I. Theory and method",
*Psychometrika* 17, 401-419.

J. Melville, smallvis (R package), ``smallvis(method = "mmds")``
(``mmds`` in ``R/mmds.R``), https://github.com/jlmelville/smallvis.
"""
