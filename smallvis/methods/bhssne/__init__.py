r"""bhssne: heavy-tailed symmetric SNE with an output bandwidth per point.

Heavy-tailed SSNE (Yang et al. 2009, the alias ``hssne`` of ``tsne``)
with t-SNE's joint ``P``, whose output kernel of the pair ``(i, j)`` is
given a precision :math:`\beta_i` beside its heavy-tail exponent
:math:`\alpha` (R smallvis's "bandwidth" heavy-tailed SSNE; not
Barnes--Hut), normalised over all pairs:

.. math::

    w_{ij} = \bigl(1 + \alpha \beta_i \|y_i - y_j\|^2\bigr)^{-1/\alpha},

    q_{ij} = \frac{w_{ij}}{\sum_{k \ne l} w_{kl}},

    C = \sum_{i \ne j} p_{ij} \log \frac{p_{ij}}{q_{ij}}.

Since :math:`-\partial \log w_{ij} / \partial d_{ij}^2 = \beta_i /
(1 + \alpha \beta_i d_{ij}^2) = \beta_i w_{ij}^{\alpha}`,

.. math::

    \frac{\partial C}{\partial y_i} =
    2 \sum_{j \ne i} \bigl[\beta_i w_{ij}^{\alpha} (p_{ij} - q_{ij})
        + \beta_j w_{ji}^{\alpha} (p_{ji} - q_{ji})\bigr] (y_i - y_j),

which for one :math:`\beta` on every row is R smallvis's
:math:`4 \beta \sum_j (p_{ij} - q_{ij})\, w_{ij}^{\alpha} (y_i - y_j)`.
:math:`\alpha = 1` is btsne's Cauchy weight
(:mod:`smallvis.methods.btsne`), :math:`\alpha \to 0` bssne's Gaussian
:math:`\exp(-\beta_i d_{ij}^2)` (:mod:`smallvis.methods.bssne`); with
every :math:`\beta_i = 1` it is ``hssne``, t-SNE at ``dof = 1 / alpha``.

Parameters: ``alpha`` (default 0.5, R smallvis's), in :math:`(0,
10^8]` as ``hssne``'s; ``bandwidth``, as btsne's: ``"input"`` (the
default) takes the perplexity calibration's precisions over their
geometric mean (:mod:`smallvis.methods.basne` says why not as they are),
a number gives every row that precision, an array one per point.  A new
point takes the ``P``-weighted geometric mean of its neighbours'
bandwidths for its own row, and is placed on the fit's own cost with its
pairs added (``Method.placed_with_column``): its row and its column,
:math:`p_{sj} = p_{js} = (p_{j|s} + p_{s|j}) / 2N`, each weighed with the
bandwidth of the row it is in (its own; the training point's), held
against the fit's normaliser :math:`Z` and offset, to first order in its
terms.  Over its own row normalised over itself, as the other methods of
the normalised engine are placed, a far point under the wide kernels of
the far rows moves out past the extreme points it neighbours
(docs/experiments.md).

Where it differs from R smallvis: R's ``bhssne`` takes one number,
``beta = 1`` by default (it computes the calibration's precisions and
then overrides them with that number: R's comment says the function
"exists to demonstrate that constant beta doesn't have any meaningful
effect"), so that at its defaults it is ``hssne``.  One number
:math:`\beta` is ``hssne`` on the layout :math:`\sqrt{\beta}\, Y`, a
change of the map's scale only; smallvis's default gives the rows the
precisions of their calibration, as btsne and bssne do, which is the
variant the name promises.  R's method is ``bandwidth=beta`` (a number).
R floors :math:`\alpha` and :math:`\beta` at :math:`10^{-8}`, where
smallvis refuses values out of range; it adds machine epsilon inside its
logs and powers, which smallvis leaves out.  The default ``exaggeration``
is 1, btsne's (see ``method.py``).  It has no stochastic form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
Z. Yang, I. King, Z. Xu and E. Oja (2009), "Heavy-Tailed Symmetric
Stochastic Neighbor Embedding", Advances in Neural Information Processing
Systems 22.

J. Melville, smallvis (R package), ``smallvis(method = "bhssne")``
(``bhssne`` in ``R/sne.R``), https://github.com/jlmelville/smallvis.
"""
