r"""wssne: weighted symmetric SNE, the Gaussian ``q`` weighted by each pair's degrees.

Yang, Peltonen and Kaski's (2014) weighted SNE: symmetric SNE's joint
``P`` and KL divergence, with the output weight of the pair ``(i, j)``
multiplied by the importance :math:`m_i m_j` of its two points before the
normalisation over all pairs, the importance of a point being its degree
in the graph ``P``:

.. math::

    q_{ij} = \frac{m_i m_j\, w_{ij}}{\sum_{k \ne l} m_k m_l\, w_{kl}},
    \qquad
    w_{ij} = \exp(-\|y_i - y_j\|^2),
    \qquad
    m_i = N \sum_j p_{ij},

.. math::

    C = \sum_{i \ne j} p_{ij} \log \frac{p_{ij}}{q_{ij}},
    \qquad
    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i} (p_{ij} - q_{ij})(y_i - y_j).

The importance does not depend on ``Y``, so the gradient has symmetric
SNE's form with the weighted ``q``.  A point of many strong neighbours
(a hub of the graph) weighs more in ``q``: its pairs take a larger share
of the normaliser, and the repulsion it exerts and feels grows with its
degree, which pushes hubs apart from the crowd at the centre of the map.

The degrees are scaled to mean 1 (``N`` times the row sums of ``P``,
which sums to 1): the scale of :math:`m` cancels from ``q``, so this is
R smallvis's ``colSums(P)`` up to a constant, and with every degree equal
the method is ``ssne``.  ``importance`` is ``"input"`` (the degrees of the
fit's ``P``, the default), a number (the same on every point: ``ssne``),
or an array of one positive value per point.

A new point is placed, as in every method of the normalised engine, over
its own row of ``q``, :math:`q_{j|s} \propto m_s m_j w_{sj}`: its own
degree :math:`m_s` cancels from its row's normalisation, so the placement
needs only the training points' degrees :math:`m_j`, which the fit keeps
(and model files store) as they were.  No degree of a new point is
computed: none of the candidates (the sum of its new row of ``P``, which
the calibration sets to 1 before the row is scaled, or its neighbours'
mean degree) would move it.

Where the paper and R smallvis differ, this follows the paper: R floors
each ``q`` at machine epsilon (its ``expQ``) and ``P log P`` at the same
epsilon; here ``q`` and the cost are exact, as in every other method.  The
paper defines the importance as the degree in ``P`` and R takes the
column sums of the normalised ``P``; these agree.  The default
``exaggeration`` is 1 and the initialisation scaled PCA, as for ``ssne``
(R smallvis's defaults); it has no stochastic form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry; the builder of ``P`` with its degrees is
``smallvis.families.joint_affinities_and_degrees``),
``golden.json`` and ``golden.npz`` (its golden case).

References
----------
Z. Yang, J. Peltonen and S. Kaski (2014), "Optimization Equivalence of
Divergences Improves Neighbor Embedding", Proceedings of the 31st
International Conference on Machine Learning (ICML), PMLR 32(2):460-468.

J. Melville, smallvis (R package), ``smallvis(method = "wssne")``
(``wssne`` in ``R/sne.R``; the degrees: ``pdeg`` in ``R/perplexity.R``),
https://github.com/jlmelville/smallvis.
"""
