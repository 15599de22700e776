r"""knnmmds: metric MDS inside the kNN graph, a one-sided hinge outside it.

R smallvis's ``knnmmds``: the raw stress of metric MDS (``mmds``) on the
pairs of the symmetrised graph of each point's ``n_neighbors`` nearest
others, and on every other pair only when the map puts it nearer than its
input distance (isometric Stochastic Proximity Embedding's rule, Agrafiotis
2003, with a batch gradient in place of its stochastic updates).  With
:math:`r_{ij}` the input distance, :math:`d_{ij} = \|y_i - y_j\|` and
:math:`g_{ij} = 1` on the graph's pairs (:math:`j` among the nearest of
:math:`i` or :math:`i` of :math:`j`), 0 elsewhere:

.. math::

    C = \sum_{i \ne j} \Bigl( g_{ij} (r_{ij} - d_{ij})^2
        + (1 - g_{ij}) \max(0, r_{ij} - d_{ij})^2 \Bigr),

.. math::

    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i}
        h_{ij} \Bigl(1 - \frac{r_{ij}}{d_{ij}}\Bigr) (y_i - y_j),
    \qquad h_{ij} = \max\bigl(g_{ij}, [d_{ij} < r_{ij}]\bigr),

R's ``K[knn == 0 & D > R] <- 0``: a pair off the graph that the map
stretches beyond its input distance exerts no force.  The cost is
continuous with a continuous gradient (the hinge's coefficient is 0 at
:math:`d = r`).

The fit carries the graph as a second per-pair input beside ``P`` (the
input distances of every pair, :data:`smallvis.families.KNN_NEIGHBOURHOOD_DISTANCES`):
:math:`t_{ij} = g_{ij} r_{ij}`, in the fit's unit of the mean input
distance, so that the cost is two sums the pair engine runs,

.. math::

    C = \sum_{i \ne j} \max(0, r_{ij} - d_{ij})^2
      + \sum_{i \ne j} [t_{ij} > 0] \max(0, d_{ij} - t_{ij})^2 .

A pair of the graph at input distance 0 (duplicate rows) has
:math:`t = 0` and loses its term above, where R keeps :math:`d^2`; it is
the one place the two differ.  The neighbours come from the package's search (exact
on small data, as R's ``knn_graph`` by default; ``knn_method`` and
``n_trees`` as for every kNN method; no ``knn=``: a kNN graph alone does
not carry the distances of the other pairs).  ``n_neighbors`` is R's ``k``, which R smallvis sets to its
``perplexity`` argument: 30 by default.  As the other stress methods, the
map is in the data's units (the fit runs in units of the mean input
distance, from the PCA start scaled to it), with no early exaggeration
and no stochastic form.  A new point's neighbours are its
``n_neighbors`` nearest training points.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry).

References
----------
D. K. Agrafiotis (2003), "Stochastic proximity embedding", *Journal of
Computational Chemistry* 24, 1215-1221.

D. K. Agrafiotis and H. Xu (2002), "A self-organizing principle for
learning nonlinear manifolds", *PNAS* 99, 15869-15872.

J. Melville, smallvis (R package), ``smallvis(method = "knnmmds")``
(``knnmmds`` in ``R/mmds.R``), https://github.com/jlmelville/smallvis.
"""
