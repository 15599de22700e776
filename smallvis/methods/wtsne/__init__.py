r"""wtsne: weighted t-SNE, the Cauchy ``q`` weighted by each pair's degrees.

Yang, Peltonen and Kaski's (2014) weighted SNE with t-SNE's Cauchy
output weight: t-SNE's joint ``P`` and KL divergence, with the weight of
the pair ``(i, j)`` multiplied by the importance :math:`m_i m_j` of its
two points, each point's degree in the graph ``P``, before the
normalisation over all pairs:

.. math::

    q_{ij} = \frac{m_i m_j\, w_{ij}}{\sum_{k \ne l} m_k m_l\, w_{kl}},
    \qquad
    w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2},
    \qquad
    m_i = N \sum_j p_{ij},

.. math::

    C = \sum_{i \ne j} p_{ij} \log \frac{p_{ij}}{q_{ij}},
    \qquad
    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i} (p_{ij} - q_{ij})\, w_{ij}\, (y_i - y_j),

with the plain Cauchy :math:`w_{ij}` (not :math:`m_i m_j w_{ij}`) as the
slope: the importance does not depend on ``Y``.  R smallvis writes the
same gradient as :math:`4\, W M^{-1} (P - Q)` with :math:`W = M \circ w`.
Hubs of the graph, whose pairs take a larger share of ``q``, repel and are
repelled more, which spreads the dense middle of a t-SNE map.

The degrees are scaled to mean 1 (``N`` times the row sums of ``P``): their
scale cancels from ``q``, so this is R smallvis's ``colSums(P)`` up to a
constant, and with every degree equal the method is ``tsne``.
``importance`` is ``"input"`` (the degrees of the fit's ``P``, the
default), a number (the same on every point: ``tsne``), or an array of one
positive value per point.

A new point is placed over its own row of ``q``, :math:`q_{j|s} \propto
m_s m_j w_{sj}`, as in every method of the normalised engine: its own
degree :math:`m_s` cancels from the row's normalisation, so the placement
needs only the training points' degrees, which the fit keeps (and model
files store).  A new point is given no degree of its own: no choice of one
would change its place.

Where the paper and R smallvis differ, this follows the paper: R floors
``P log P`` at machine epsilon in the cost; here the cost is exact.  The
paper's importance is the degree in ``P``, R's ``colSums(P)`` of the
normalised ``P``; these agree.  The default ``exaggeration`` is 1, R
smallvis's (as btsne's, see ``method.py``), with scaled PCA and the
"auto" learning rate; its maps of digits and s1k match t-SNE's in 10-NN
accuracy (docs/experiments.md, 2026-12-02).  It has neither an FFT gradient nor a stochastic form.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry and the builder of ``P`` with its degrees),
``golden.json`` and ``golden.npz`` (its golden case).

References
----------
Z. Yang, J. Peltonen and S. Kaski (2014), "Optimization Equivalence of
Divergences Improves Neighbor Embedding", Proceedings of the 31st
International Conference on Machine Learning (ICML), PMLR 32(2):460-468.

J. Melville, smallvis (R package), ``smallvis(method = "wtsne")``
(``wtsne`` in ``R/sne.R``; the degrees: ``pdeg`` in ``R/perplexity.R``),
https://github.com/jlmelville/smallvis.
"""
