r"""absne: alpha-beta SNE.

t-SNE's joint ``P`` and Cauchy weight normalised over all pairs, with the
KL divergence replaced by the alpha-beta divergence of Cichocki, Cruces &
Amari (2011), as Narayan, Punjani & Abbeel (2015) generalise t-SNE; with
:math:`\lambda = \alpha + \beta`,

.. math::

    C = \frac{1}{\alpha \beta \lambda} \sum_{i \ne j} \bigl(\alpha\, p_{ij}^\lambda
        + \beta\, q_{ij}^\lambda - \lambda\, p_{ij}^\alpha q_{ij}^\beta\bigr),

    q_{ij} = \frac{w_{ij}}{\sum_{k \ne l} w_{kl}},

    w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2},

and, at :math:`\beta = 0` (its limit),

.. math::

    C = \frac{1}{\alpha^2} \sum_{i \ne j} \Bigl(p_{ij}^\alpha
        \log \frac{p_{ij}^\alpha}{q_{ij}^\alpha} - p_{ij}^\alpha + q_{ij}^\alpha\Bigr).

Every summand has :math:`q\, \partial f / \partial q = (q^\lambda -
p^\alpha q^\beta) / \alpha`, so the normalised engine's chain rule through
the one normaliser gives, for a symmetric ``P``, the pair coefficient and
the gradient

.. math::

    c_{ij} = \frac{w_{ij}}{\alpha} \Bigl(p_{ij}^\alpha q_{ij}^\beta - q_{ij}^\lambda
        - q_{ij} \sum_{k \ne l} \bigl(p_{kl}^\alpha q_{kl}^\beta - q_{kl}^\lambda\bigr)\Bigr),

    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i} c_{ij} (y_i - y_j).

:math:`\alpha = 1, \beta = 0` is the KL divergence: with ``P`` summing to
1 the cost and gradient are t-SNE's.  The paper reads :math:`\alpha`
(with :math:`\lambda = 1`) as the choice between macro-structure
(categories) and micro-structure (fine-grained classes) in the map.

The parameters are the paper's :math:`\alpha` and :math:`\beta`; R
smallvis's ``absne`` takes ``alpha`` and ``lambda`` (:math:`\beta =
\lambda - \alpha`), with defaults ``alpha = 1, lambda = 1``, here ``alpha
= 1, beta = 0``.  Where R smallvis differs, the paper's divergence is
followed: R floors ``P`` and ``q`` at machine epsilon, and treats
:math:`|\alpha|`, :math:`|\beta|` or :math:`|\lambda|` below
:math:`10^{-5}` as 0 (its limit branches); here nothing is floored, the
limit :math:`\beta = 0` is taken at 0 exactly, and :math:`\alpha > 0`,
:math:`\lambda > 0` are required, so that a pair with :math:`p = 0` (outside
a kNN graph) has a finite cost, :math:`q^\lambda / (\alpha \lambda)`, and
no attraction.  A :math:`\beta` within about :math:`10^{-8}` of 0 but not
0 loses digits of the cost to cancellation: pass 0 for the limit.  R's
limit branch at :math:`\beta = 0` (``absneb0``) writes the first term as
:math:`p \log p^\alpha` where the divergence has :math:`p^\alpha \log
p^\alpha`: off :math:`\alpha = 1` its reported cost differs from this one
by a constant (the gradient is the same).  The
default ``exaggeration`` is 1, R smallvis's.  A new point is placed with
its own row's normalisation, as for t-SNE.  It has no stochastic form, as
in R.  ``abssne`` is the same divergence with the Gaussian weight.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
D. Narayan, A. Punjani and P. Abbeel (2015), "Alpha-Beta Divergences
Discover Micro and Macro Structures in Data", ICML 2015, PMLR 37, 796-804.

A. Cichocki, S. Cruces and S. Amari (2011), "Generalized Alpha-Beta
Divergences and Their Application to Robust Nonnegative Matrix
Factorization", Entropy 13, 134-170.

J. Melville, smallvis (R package), ``smallvis(method = "absne")``
(``absne`` in ``R/absne.R``), https://github.com/jlmelville/smallvis.
"""
