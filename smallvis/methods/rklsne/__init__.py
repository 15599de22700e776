r"""rklsne: reverse-KL SNE.

t-SNE's joint ``P`` and Cauchy weight normalised over all pairs, with the
KL divergence reversed, :math:`\mathrm{KL}(Q \| P)`: one of the
f-divergences of Im, Verma & Branson (2018),

.. math::

    C = \sum_{i \ne j} q_{ij} \log \frac{q_{ij}}{\max(p_{ij}, p_\text{floor})},
    \qquad
    q_{ij} = \frac{w_{ij}}{\sum_{k \ne l} w_{kl}},
    \qquad
    w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2}.

The reverse KL divergence is infinite wherever :math:`p = 0 < q`: where
a Gaussian ``P`` underflows, and for every pair outside a sparse ``P``.
R smallvis floors ``P`` at machine epsilon before its log, and that
floor is part of the method in practice: a pair with :math:`p` below it
costs :math:`q \log(q / p_\text{floor})`, which pushes non-neighbours
apart.  The floor is the cost parameter ``p_floor`` (default machine
epsilon, :math:`2^{-52}`, R's value; it must be positive and finite),
applied to ``P`` inside this log only.

With :math:`\ell_{ij} = \log(q_{ij} / \max(p_{ij}, p_\text{floor}))`
(:math:`\partial f / \partial q = \ell + 1`, whose constant cancels since
:math:`\sum q = 1`) and its average :math:`S = \sum_{k \ne l} q_{kl}
\ell_{kl}` (the cost itself), the normalised engine's chain rule through
the one normaliser gives, for a symmetric ``P``, the pair coefficient and
the gradient

.. math::

    c_{ij} = q_{ij} \bigl(S - \ell_{ij}\bigr)\, w_{ij},
    \qquad
    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i} c_{ij} (y_i - y_j).

A pair attracts while :math:`q / p` is below its average and repels
otherwise: the reverse divergence punishes a close pair of small
:math:`p` (a false neighbour), not a far pair of large :math:`p` (a
missed neighbour), so it favours the precision of the map's neighbours
over their recall (Venna et al. 2010).  A new point is placed with its
own row's normalisation, as for t-SNE.

The cost and gradient are R smallvis's, whose only floor is this one (its
Cauchy ``q`` never underflows).  The default ``exaggeration`` is 1, R
smallvis's.  The default start is the spectral layout of ``P``'s graph,
not t-SNE's scaled PCA: from that compact start, points whose neighbours
the floored ``P`` cannot tell apart stay between the classes of small
samples of digits (docs/experiments.md, 2026-12-02).  It has no
stochastic form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
D. J. Im, N. Verma and K. Branson (2018), "Stochastic Neighbor Embedding
under f-divergences", arXiv:1811.01247.

J. Venna, J. Peltonen, K. Nybo, H. Aidos and S. Kaski (2010), "Information
retrieval perspective to nonlinear dimensionality reduction for data
visualization", Journal of Machine Learning Research 11, 451-490.

J. Melville, smallvis (R package), ``smallvis(method = "rklsne")``
(``rklsne`` in ``R/fdiv.R``), https://github.com/jlmelville/smallvis.
"""
