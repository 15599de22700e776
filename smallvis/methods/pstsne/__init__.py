r"""pstsne: pseudo-separable t-SNE, with the normaliser reset by a rule.

R smallvis's "pseudo-separable approximation of t-SNE": t-SNE's joint
``P`` and Cauchy weight, but the normaliser :math:`Z` of :math:`q = w / Z`
is held fixed between resets instead of following every step.  At fixed
:math:`Z` the cost whose gradient R's ``pstsne`` follows is the
generalised (un-normalised) Kullback-Leibler divergence,

.. math::

    C(Y, Z) = \sum_{i \ne j} \Bigl[p_{ij} \log \frac{p_{ij}}{q_{ij}}
        - p_{ij} + q_{ij}\Bigr],
    \qquad
    q_{ij} = \frac{w_{ij}}{Z} = e^{-Q} w_{ij},
    \qquad
    w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2},

a sum of pair terms, with the gradients

.. math::

    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i}
        \Bigl(p_{ij} - \frac{w_{ij}}{Z}\Bigr) w_{ij} (y_i - y_j),
    \qquad
    \frac{\partial C}{\partial Q} = \sum_{i \ne j} (p_{ij} - q_{ij}).

The learned scalar is :math:`Q = \log Z`.  It is not descended: once every
``max(1, round(n_iter / 10))`` iterations (R smallvis's default
``epoch``) and after the last one it is reset to

.. math::

    Z \leftarrow \sum_{i \ne j} w_{ij},

the minimiser of :math:`C` in :math:`Z` at the current ``Y`` (for ``P``
summing to 1), where :math:`C` equals t-SNE's
:math:`\mathrm{KL}(P \| W / \textstyle\sum W)`.  Between resets
:math:`C` is an upper bound of that divergence
(:math:`\log x \le x / Z + \log Z - 1`).  It starts at :math:`Z = N^2`
(``Q="auto"`` :math:`= 2 \log N`), R's start, which makes the repulsion
weak for the first ``epoch``.  The fitted value is in
``EmbedResult.learned["Q"]`` (``EmbedResult.Q``); new points are placed
at it.

Where this follows R and where not: the gradient, the start and the
rule (every ``epoch`` iterations and at the last, after the cost and
stopping tests) are R's.  R reports the cost
:math:`\sum p \log(p / (w / Z))` at the held :math:`Z`, which is not the
cost its gradient descends; here the reported cost is :math:`C` above,
whose gradient it is (the two agree right after each reset).  R's
gradient reads its un-normalised affinities, which its early exaggeration
does not scale, and resets :math:`Z` to :math:`N^2` when exaggeration
starts or ends; here ``exaggeration`` multiplies ``P`` as for ``tsne``
and :math:`Z` is never reset but by the rule.  The default exaggeration
is 1, R's.  There is no stochastic form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry and the rule), ``golden.json`` and ``golden.npz``
(its golden case).

References
----------
J. Melville, smallvis (R package), ``smallvis(method = "pstsne")``
(``pstsne`` in ``R/sne.R``), https://github.com/jlmelville/smallvis.

L. van der Maaten and G. Hinton (2008), "Visualizing Data using t-SNE",
JMLR 9, 2579-2605 (the cost at the reset :math:`Z`).

Z. Yang, J. Peltonen and S. Kaski (2014), "Optimization Equivalence of
Divergences Improves Neighbor Embedding", ICML (the generalised KL
divergence of un-normalised weights and its optimal scale).
"""
