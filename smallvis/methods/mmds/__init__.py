r"""mmds: metric multidimensional scaling, the raw stress over all pairs.

The input is not an affinity but the distance :math:`r_{ij}` between rows
:math:`i` and :math:`j` of the data (the "input distances" family,
:data:`smallvis.families.INPUT_DISTANCES`, computed once from ``X`` or
given as ``metric="precomputed"``), scaled to sum 1 over the pairs
(Sammon's normaliser; R smallvis scales ``X`` itself by default, to a
largest absolute value of 1): the stress is homogeneous in the
distances, so the scale changes only the map's units, and a map of
``c X`` is that of ``X``.  The cost is the squared error of
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

Default map: the exact optimizer from the PCA scores scaled to standard
deviation 1e-4 ("spca", as R smallvis's examples), 1000 iterations, no
early exaggeration (it would multiply the distances).  The default maps
have a lower stress than the PCA scores, which are classical MDS of
Euclidean distances (Torgerson 1952): Kruskal's stress at the best scale
0.327 against 0.368 on digits, 0.033 against 0.041 on iris
(docs/experiments.md, 2026-12-02).  Their 10-NN accuracy (0.76 on
digits) is that of a map of distances, not of neighbourhoods.  It has
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
