r"""tsne: t-distributed Stochastic Neighbor Embedding.

The joint ``P`` of symmetric SNE against a heavy-tailed output weight,
normalised over all pairs (docs/theory.md §3.4):

.. math::

    C = \mathrm{KL}(P \| Q), \qquad
    q_{ij} = \frac{w_{ij}}{\sum_{k \ne l} w_{kl}}, \qquad
    w_{ij} = \Bigl(1 + \frac{\|y_i - y_j\|^2}{\alpha}\Bigr)^{-\alpha},

.. math::

    \frac{\partial C}{\partial y_i} =
    4 \sum_{j \ne i} (p_{ij} - q_{ij})\, w_{ij}^{1/\alpha}\, (y_i - y_j),

:math:`\alpha` = ``dof``; 1 (the default) is the Cauchy weight
:math:`1 / (1 + d^2)`.  ``P`` is calibrated over all points up to
4,096 points (``smallvis.families.DENSE_P_MAX_N``) and over 3 x perplexity
nearest neighbours above.  ``gradient="fft"`` interpolates the repulsion on
a grid (FIt-SNE), O(N) per iteration.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry, the ``dof`` check and the FFT gradient's settings).

References
----------
L. van der Maaten and G. Hinton (2008), "Visualizing Data using t-SNE",
Journal of Machine Learning Research 9.

D. Kobak, G. Linderman, S. Steinerberger, Y. Kluger and P. Berens (2019),
"Heavy-tailed kernels reveal a finer cluster structure in t-SNE
visualisations", ECML PKDD.

G. Linderman, M. Rachh, J. Hoskins, S. Steinerberger and Y. Kluger (2019),
"Fast interpolation-based t-SNE for improved visualization of single-cell
RNA-seq data", Nature Methods 16.

J. Melville, smallvis (R package), ``smallvis(method = "tsne")``,
https://github.com/jlmelville/smallvis.
"""
