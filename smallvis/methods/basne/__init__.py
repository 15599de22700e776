r"""basne: asymmetric SNE with the input's bandwidths in the output kernel.

asne's conditional ``P`` and per-row Gaussian ``Q``, with each row's
output kernel given the precision :math:`\beta_i` that the perplexity
calibration found for that row of ``P`` (R smallvis's "bandwidth
experiments"):

.. math::

    p_{j|i} = \frac{\exp(-\beta_i \|x_i - x_j\|^2)}{\sum_{k \ne i} \exp(-\beta_i \|x_i - x_k\|^2)},
    \qquad
    q_{j|i} = \frac{\exp(-\beta_i \|y_i - y_j\|^2)}{\sum_{k \ne i} \exp(-\beta_i \|y_i - y_k\|^2)},

.. math::

    C = \sum_i \sum_{j \ne i} p_{j|i} \log \frac{p_{j|i}}{q_{j|i}},
    \qquad
    \frac{\partial C}{\partial y_i} =
    2 \sum_{j \ne i} \bigl[\beta_i (p_{j|i} - q_{j|i}) + \beta_j (p_{i|j} - q_{i|j})\bigr]
    (y_i - y_j).

A point in a dense region of the data (a large :math:`\beta_i`) asks for
its neighbours close by in the map as well, one in a sparse region lets
them sit farther.  With every :math:`\beta_i = 1` this is asne.

``bandwidth="input"`` (the default) takes the calibration's precisions
divided by their geometric mean, :math:`\beta_i / (\prod_k
\beta_k)^{1/N}`.  R smallvis uses the :math:`\beta_i` as they are, in
the units of its own scaling of ``X`` (``scale="absmax"`` by default);
smallvis does not scale ``X``, and precisions in the data's units would
tie the map's scale to them: where the squared distances are large, the
precisions are small, the forces with them, and the map hardly leaves its
small start (docs/experiments.md, 2026-12-02).  Divided by their
geometric mean they keep their ratios, which are the method, average 1 in
the log (asne's everywhere), and are the same for ``X`` and ``c X``.  For
R's precisions on the data as given, pass ``bandwidth=beta`` with ``beta``
from :func:`smallvis.inputs.affinities.conditional_perplexity`; a number
gives every row that precision (1 is asne), an array one per point.

A new point placed by ``transform`` takes the geometric mean of its
neighbours' bandwidths weighted by its row of ``P``
(:meth:`smallvis.transform.TrainingMap.new_inputs`): the precision of its
neighbourhood on the fit's footing.  A calibration of its own row would
run over other candidates than the fit's rows (its nearest neighbours,
and itself among them when it is a training point again) and give a
precision on another scale.

No ``eps`` floors the logs (R smallvis adds machine epsilon).  It has no
stochastic form, as in R.

Files: ``unit.py`` and ``unit.h`` (the maths, NumPy and C), ``method.py``
(the registry entry), ``golden.json`` and ``golden.npz`` (its golden case).

References
----------
G. Hinton and S. Roweis (2002), "Stochastic Neighbor Embedding", Advances
in Neural Information Processing Systems 15.

J. Melville, smallvis (R package), ``smallvis(method = "basne")``
(``basne`` in ``R/sne.R``), https://github.com/jlmelville/smallvis.
"""
