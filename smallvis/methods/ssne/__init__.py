r"""ssne: symmetric Stochastic Neighbor Embedding.

The joint ``P``, :math:`p_{ij} = (p_{j|i} + p_{i|j}) / (2N)`, against the
Gaussian weight normalised over all pairs (docs/theory.md §3.3):

.. math::

    C = \mathrm{KL}(P \| Q) = \sum_{i \ne j} p_{ij} \log \frac{p_{ij}}{q_{ij}},
    \qquad
    q_{ij} = \frac{\exp(-\|y_i - y_j\|^2)}{\sum_{k \ne l} \exp(-\|y_k - y_l\|^2)},

.. math::

    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i} (p_{ij} - q_{ij})(y_i - y_j).

It is t-SNE with the Gaussian output weight, the limit of t-SNE's ``dof``
going to infinity.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry).

References
----------
J. Cook, I. Sutskever, A. Mnih and G. Hinton (2007), "Visualizing
similarity data with a mixture of maps", AISTATS.

J. Melville, smallvis (R package), ``smallvis(method = "ssne")``,
https://github.com/jlmelville/smallvis.
"""
