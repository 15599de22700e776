r"""abssne: alpha-beta symmetric SNE.

absne's alpha-beta divergence on ssne's terms: the joint ``P`` calibrated
over all points and the Gaussian weight normalised over all pairs; with
:math:`\lambda = \alpha + \beta`,

.. math::

    C = \frac{1}{\alpha \beta \lambda} \sum_{i \ne j} \bigl(\alpha\, p_{ij}^\lambda
        + \beta\, q_{ij}^\lambda - \lambda\, p_{ij}^\alpha q_{ij}^\beta\bigr),
    \qquad
    q_{ij} = \frac{\exp(-\|y_i - y_j\|^2)}{\sum_{k \ne l} \exp(-\|y_k - y_l\|^2)},

with absne's limit at :math:`\beta = 0`.  The engine's chain rule through
the one normaliser gives, for a symmetric ``P`` (the Gaussian's slope is
1),

.. math::

    c_{ij} = \frac{1}{\alpha} \Bigl(p_{ij}^\alpha q_{ij}^\beta - q_{ij}^\lambda
        - q_{ij} \sum_{k \ne l} \bigl(p_{kl}^\alpha q_{kl}^\beta - q_{kl}^\lambda\bigr)\Bigr),
    \qquad
    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i} c_{ij} (y_i - y_j).

:math:`\alpha = 1, \beta = 0` is the KL divergence: the cost and gradient
are ssne's.  Parameters are absne's (R smallvis's ``lambda`` is :math:`\alpha +
\beta`), with :math:`\alpha > 0` and :math:`\beta \ge 0`: the Gaussian
``q`` underflows to 0 far from a point, where :math:`q^\beta` with
:math:`\beta < 0` has no bound, so a spread-out layout would cost
infinity in float64 (absne's Cauchy ``q`` falls only as :math:`1 / d^2`
and takes :math:`\beta > -\alpha`).  Where R smallvis differs, the divergence is followed exactly: R's
``abssne`` floors ``P`` and ``q`` at machine epsilon and moves any of
:math:`\alpha`, :math:`\beta`, :math:`\lambda` within :math:`10^{-5}` of 0
to :math:`\pm 10^{-5}` (so its default, ``alpha = 1, lambda = 1``, runs
:math:`\beta = 10^{-5}`); here :math:`\beta = 0` is the exact limit.  A new point is
placed with its own row's normalisation, as for ssne.  There is no
stochastic form, as in R.

Files: ``unit.py`` and ``unit.h`` (absne's maths with the Gaussian weight,
NumPy and C), ``method.py`` (the registry entry), ``golden.json`` and
``golden.npz`` (its golden case).

References
----------
D. Narayan, A. Punjani and P. Abbeel (2015), "Alpha-Beta Divergences
Discover Micro and Macro Structures in Data", ICML 2015, PMLR 37, 796-804.

A. Cichocki, S. Cruces and S. Amari (2011), "Generalized Alpha-Beta
Divergences and Their Application to Robust Nonnegative Matrix
Factorization", Entropy 13, 134-170.

J. Melville, smallvis (R package), ``smallvis(method = "abssne")``
(``abssne`` in ``R/absne.R``), https://github.com/jlmelville/smallvis.
"""
