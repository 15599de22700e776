r"""tasne: t-distributed asymmetric SNE.

asne's conditional ``P`` and per-row KL divergences, with t-SNE's
heavy-tailed Cauchy weight in place of the Gaussian, normalised over each
row:

.. math::

    C = \sum_i \sum_{j \ne i} p_{j|i} \log \frac{p_{j|i}}{q_{j|i}},
    \qquad
    q_{j|i} = \frac{w_{ij}}{\sum_{k \ne i} w_{ik}},
    \qquad
    w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2}.

Since :math:`-\partial \log w / \partial d^2 = w`, the gradient is asne's
with each pair weighted by :math:`w_{ij}`:

.. math::

    \frac{\partial C}{\partial y_i} =
    2 \sum_{j \ne i} \bigl(p_{j|i} - q_{j|i} + p_{i|j} - q_{i|j}\bigr)\,
    w_{ij}\, (y_i - y_j).

It isolates the two changes from asne to t-SNE: with the heavy tail but
without the symmetric ``P`` and the normalisation over all pairs, it shows
what the kernel alone does to the crowding problem.  A new point is placed
with its own row's normalisation, as in the fit.

The cost is the one R smallvis's ``tasne`` computes, without its floors:
R adds machine epsilon to ``p`` and ``q`` inside the logs, which this
package does not (nothing here divides by ``q`` or takes the log of a zero
``p``).  The default ``exaggeration`` is 1 (R smallvis's), and
``learning_rate="auto"`` is t-SNE's rule divided by N, since the
conditional ``P`` sums to N.  It has no stochastic form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
L. van der Maaten and G. Hinton (2008), "Visualizing Data using t-SNE",
Journal of Machine Learning Research 9 (the heavy-tailed output kernel).

G. Hinton and S. Roweis (2002), "Stochastic Neighbor Embedding", NIPS 15
(the conditional P and the per-row KL divergence).

J. Melville, smallvis (R package), ``smallvis(method = "tasne")``
(``tasne`` in ``R/sne.R``), https://github.com/jlmelville/smallvis.
"""
