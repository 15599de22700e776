r"""ballmmds: metric MDS inside a ball, a one-sided hinge outside it.

R smallvis's ``ballmmds``: knnmmds's cost (``smallvis.methods.knnmmds``)
with the neighbourhoods of isometric Stochastic Proximity Embedding
(Agrafiotis 2003): the pairs no farther apart than one radius
:math:`r_{\max}` for every point, the :math:`\mathrm{round}(f M)`-th
smallest of the :math:`M = N(N-1)/2` pair distances (at least the
smallest; :func:`smallvis.families.ball_radius`).  With :math:`r_{ij}` the
input distance and :math:`d_{ij} = \|y_i - y_j\|`:

.. math::

    C = \sum_{i \ne j} \Bigl( [r_{ij} \le r_{\max}] (r_{ij} - d_{ij})^2
        + [r_{ij} > r_{\max}] \max(0, r_{ij} - d_{ij})^2 \Bigr),

.. math::

    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i}
        h_{ij} \Bigl(1 - \frac{r_{ij}}{d_{ij}}\Bigr) (y_i - y_j),
    \qquad h_{ij} = \max\bigl([r_{ij} \le r_{\max}], [d_{ij} < r_{ij}]\bigr),

R's ``K[R > rmax & D > R] <- 0``: a pair outside the ball that the map
stretches beyond its input distance exerts no force.  ``f = 1`` puts
every pair inside: the cost is mmds's.  R smallvis's default is
``f = 0.1``, the tenth of the pair distances that are shortest (SPE's
cutoff, there from a sample of the distances, here from all of them).

The fit carries the ball as a second per-pair input beside ``P`` (the
input distances of every pair, :data:`smallvis.families.BALL_NEIGHBOURHOOD_DISTANCES`):
:math:`t_{ij} = r_{ij}` inside the ball and 0 outside, in the fit's unit
of the mean input distance, so that the cost is two sums the pair engine
runs,

.. math::

    C = \sum_{i \ne j} \max(0, r_{ij} - d_{ij})^2
      + \sum_{i \ne j} [t_{ij} > 0] \max(0, d_{ij} - t_{ij})^2 .

A pair at input distance 0 (duplicate rows) is inside the ball with
:math:`t = 0`, and loses its term above, where R keeps :math:`d^2`.  As
the other stress methods, the map is in the data's units, with no early
exaggeration and no stochastic form.  A new point's ball has the fit's
radius.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry).

References
----------
D. K. Agrafiotis (2003), "Stochastic proximity embedding", *Journal of
Computational Chemistry* 24, 1215-1221.

J. Melville, smallvis (R package), ``smallvis(method = "ballmmds")``
(``ballmmds`` in ``R/mmds.R``), https://github.com/jlmelville/smallvis.
"""
