r"""smmds: metric MDS of squared distances, the "S-stress" over all pairs.

The input distances :math:`r_{ij}` (the "input distances" family,
:data:`smallvis.families.INPUT_DISTANCES`, in the data's units) and the
output distances :math:`d_{ij} = \|y_i - y_j\|` are compared squared
(Takane, Young & de Leeuw 1977's S-stress, unnormalised; R smallvis's
``smmds``):

.. math::

    C = \sum_{i \ne j} \bigl(r_{ij}^2 - d_{ij}^2\bigr)^2,
    \qquad
    c_{ij} = \frac{\partial f}{\partial d_{ij}^2} = 2 \bigl(d_{ij}^2 - r_{ij}^2\bigr),

.. math::

    \frac{\partial C}{\partial y_i} = -8 \sum_{j \ne i}
        \bigl(r_{ij}^2 - d_{ij}^2\bigr) (y_i - y_j).

The gradient is smooth everywhere (no division by :math:`d_{ij}`), and a
polynomial of degree three in the scale of the map: a map a hundred times
too small feels a million times too weak a force, so the start must be
at the scale of the distances.  Every stress method starts there: the fit
runs in units of the mean input distance from a start scaled to it
(:func:`smallvis.families.start_in_distance_unit`), and returns its map
in the data's units.  Large distances dominate the squared errors, so the
map keeps the global shape before the local one.

Default map: mmds's settings (``smallvis.methods.mmds``) with a learning
rate a quarter of mmds's, for a force of degree three (``method.py``).
Its stress against classical MDS is in docs/experiments.md.  No
stochastic form (as in R).  New points are placed by the S-stress of their
distances to every training point, the training map fixed.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry).

References
----------
Y. Takane, F. W. Young and J. de Leeuw (1977), "Nonmetric individual
differences multidimensional scaling: an alternating least squares method
with optimal scaling features", *Psychometrika* 42, 7-67.

J. Melville, smallvis (R package), ``smallvis(method = "smmds")``
(``smmds`` in ``R/mmds.R``), https://github.com/jlmelville/smallvis.
"""
