r"""infonce: InfoNC-t-SNE, InfoNCE with the Cauchy weight.

A positive pair :math:`(i, j)` is drawn with probability :math:`p_{ij}`
(the symmetric kNN graph normalised to sum 1) and :math:`m` negatives
uniformly from the points other than :math:`i`; the sample's loss is the
cross-entropy of picking :math:`j` among the :math:`m + 1` candidates
(docs/theory.md §3.11):

.. math::

    C = \sum_{i \ne j} p_{ij} \bigl[-\log \phi_{ij} + \mathrm{E} \log(\phi_{ij} + S_i)\bigr],
    \qquad \phi_{ij} = \frac{1}{1 + d_{ij}^2},

:math:`S_i` the sum of :math:`m` draws from :math:`\{\phi_{ik}: k \ne i\}`.
With :math:`D = \phi_{ij} + \sum_l \phi_{i k_l}`, a sample's loss
:math:`\ell = -\log \phi_{ij} + \log D` has the gradient

.. math::

    \frac{\partial \ell}{\partial y_i} = 2 \phi_{ij} \Bigl(1 - \frac{\phi_{ij}}{D}\Bigr)(y_i - y_j)
        - 2 \sum_{l=1}^m \frac{\phi_{i k_l}^2}{D} (y_i - y_{k_l}),

the step of the stochastic form (the tail and the negatives move the
other way); the exact gradient is the expected step over the draws, with
each point in all three roles.
The exact cost evaluates the expectation by quadrature on a lattice of
about 200 nodes for every pair, :math:`O(N^2 T)` per evaluation with
:math:`T \approx 200` (some 200 times the cost of a t-SNE gradient), so
``optimizer="auto"`` runs the stochastic form at every size.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C; a row unit),
``method.py`` (the registry entry and the stochastic loop's settings).

References
----------
S. Damrich, J. N. Böhm, F. A. Hamprecht and D. Kobak (2023), "From t-SNE to
UMAP with contrastive learning", ICLR.  Reference code:
https://github.com/berenslab/contrastive-ne.
"""
