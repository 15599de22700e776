r"""gmmds: geodesic metric MDS, mmds's stress of distances along the kNN graph.

mmds (``smallvis.methods.mmds``) with the input distances replaced by
geodesic distances, in the style of Isomap (Tenenbaum et al. 2000): the
length :math:`g_{ij}` of the shortest path from :math:`i` to :math:`j` on
the symmetric graph that joins each point to its ``n_neighbors`` nearest
others, with edges weighted by their input distance (the "geodesic
distances" family, :data:`smallvis.families.GEODESIC_DISTANCES`, in the
data's units as mmds's):

.. math::

    C = \sum_{i \ne j} (g_{ij} - d_{ij})^2,
    \qquad
    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i}
        \Bigl(1 - \frac{g_{ij}}{d_{ij}}\Bigr) (y_i - y_j).

Isomap embeds the geodesics by classical MDS; here, as in R smallvis, the
raw stress is minimised instead.  The shortest paths are Dijkstra's
(:func:`scipy.sparse.csgraph.shortest_path`; R smallvis runs Floyd's
algorithm, the same distances).

**A disconnected graph.**  Pairs in different components have no path.
As R smallvis's ``geodesic`` does, they keep their (Euclidean, or the
``metric``'s) input distance, and a ``RuntimeWarning`` names the number of
components and ``n_neighbors``; no distance is infinite.  With
``n_neighbors = N - 1`` the graph is complete and the geodesics are the
input distances: gmmds is mmds.

``n_neighbors`` (default 15) is R smallvis's ``k``, which R takes from its
``perplexity`` argument (default 30): at 30 the paths start to cut across
the clusters of s1k (10-NN accuracy 0.958 against 0.992 at 15), while the
swiss roll and iris are as good at 15 (docs/experiments.md, 2026-12-02).
Up to a third of the other points are kept by default on small data.
Optimizer defaults are mmds's.  No stochastic form (as in R).  New points
are placed by the stress of their geodesic distances to every training
point: a path enters the training graph at one of the new point's
``n_neighbors`` nearest training points.

Files: ``unit.py`` and ``unit.h`` (mmds's unit under its own name),
``method.py`` (the registry entry).

References
----------
J. B. Tenenbaum, V. de Silva and J. C. Langford (2000), "A global
geometric framework for nonlinear dimensionality reduction", *Science*
290(5500), 2319-2323.

J. Melville, smallvis (R package), ``smallvis(method = "gmmds")``
(``gmmds`` and ``geodesic`` in ``R/mmds.R``),
https://github.com/jlmelville/smallvis.
"""
