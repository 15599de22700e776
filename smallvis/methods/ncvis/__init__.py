r"""ncvis: NCVis, noise-contrastive estimation with a learned normalisation.

The symmetric kNN graph normalised to sum 1, a model weight
:math:`q_{ij} = e^{-Q} / (1 + a d_{ij}^{2b})` whose normalisation
:math:`Q` is learned with ``Y``, and the noise :math:`\nu p_n(i)`,
:math:`p_n(i) = \sum_k p_{ik} / (N - 1)`.  The objective, maximised (the
reported cost is :math:`-J`; docs/theory.md §3.8), is

.. math::

    J = \sum_{i \ne j} p_{ij} \log \frac{q_{ij}}{q_{ij} + \nu p_n(i)}
      + \nu \sum_{i \ne j} p_n(i) \log \frac{\nu p_n(i)}{q_{ij} + \nu p_n(i)}.

With :math:`r_i = \nu p_n(i)`, :math:`s_{ij} = q_{ij} + r_i` and
:math:`G_{ij} = \frac{r_i}{s_{ij}} (p_{ij} - q_{ij})\, a b\,
d_{ij}^{2(b-1)} / (1 + a d_{ij}^{2b})`, the gradient of the cost is

.. math::

    \frac{\partial(-J)}{\partial y_i} = 2 \sum_{j \ne i} (G_{ij} + G_{ji})(y_i - y_j),

    \frac{\partial(-J)}{\partial Q} = \sum_{i \ne j} \frac{r_i}{s_{ij}} (p_{ij} - q_{ij}).

The stochastic form is the reference code's: 50 epochs, every edge once
per epoch, a cubic noise schedule, the step :math:`\rho_0 (1 - (e/E)^2)`
in epoch :math:`e` of :math:`E`, and :math:`Q` updated after every sample.
A head :math:`i` sees the normalisation :math:`Q' = Q`, or with
``correct_q=True`` :math:`Q' = Q + \log p_n(i)`, the per-row correction
(theory §4.5, where :math:`p_n(i)` is written :math:`p_i^-`).

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry and the stochastic loop's settings).

References
----------
A. Artemenkov and M. Panov (2020), "NCVis: Noise Contrastive Approach for
Scalable Visualization", WWW.  Reference code:
https://github.com/stat-ml/ncvis.
"""
