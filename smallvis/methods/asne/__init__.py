r"""asne: asymmetric Stochastic Neighbor Embedding.

The first neighbour embedding.  Each point ``i`` has a conditional
distribution over its neighbours in the data, a Gaussian calibrated to a
perplexity, and one over its neighbours in the map, the Gaussian weight
normalised per row; the map minimises the sum of the rows'
Kullback-Leibler divergences (docs/theory.md §3.2):

.. math::

    C = \sum_i \sum_{j \ne i} p_{j|i} \log \frac{p_{j|i}}{q_{j|i}},
    \qquad
    q_{j|i} = \frac{\exp(-\|y_i - y_j\|^2)}{\sum_{k \ne i} \exp(-\|y_i - y_k\|^2)},

.. math::

    \frac{\partial C}{\partial y_i} =
    2 \sum_{j \ne i} \left(p_{j|i} - q_{j|i} + p_{i|j} - q_{i|j}\right)(y_i - y_j).

``P`` is not symmetrised: row ``i`` holds :math:`p_{j|i}` and sums to 1.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry).

References
----------
G. Hinton and S. Roweis (2002), "Stochastic Neighbor Embedding", Advances
in Neural Information Processing Systems 15.

J. Melville, smallvis (R package), ``smallvis(method = "asne")``,
https://github.com/jlmelville/smallvis.
"""
