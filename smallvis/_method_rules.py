"""The parts the method registry's entries are built from.

The records an entry holds (approximate gradients, kinds of ``P``,
confusions with another method, size limits), the generic checks of method
parameters, the rules for size limits on small data and for
``learning_rate="auto"``, and UMAP's output kernel fitted to ``spread`` and
``min_dist``.  The generic parts name no method; the method-specific rules
(LargeVis's ``gamma="auto"`` and its stochastic ``gamma``, the auto learning
rates of each family, the size limits of perplexity and of the UMAP and
NCVis graphs) are named after the method they serve, and
:mod:`smallvis.registry` attaches each to its entries.
"""

import numbers
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from .inputs import affinities as aff
from ._validation import ParameterError, check_integer, check_number
from .inputs.distances import check_metric
from .inputs.neighbors import check_search_params


@dataclass(frozen=True)
class Approximation:
    """An approximate gradient of a method's cost, selected by ``gradient=name``.

    Attributes
    ----------
    name : str
        The value of ``gradient=`` that selects it, e.g. ``"fft"``.
    summary : str
        One line: the algorithm and where it comes from.
    resolve_cost : callable
        ``resolve_cost(**cost_params) -> (kernel prefix, args)``, as
        :attr:`smallvis.registry.Method.resolve_cost`, for the approximate twin kernels
        ``<prefix>_cost`` and ``<prefix>_gradient``.
    dimensions : tuple of int
        The output dimensions it supports.
    auto_min_n : int
        ``gradient="auto"`` selects it above this many points (in a supported
        dimension); the exact gradient up to it.
    exact_instead : callable or None
        ``exact_instead(Y, **cost_params) -> (exact, warning)``, asked at
        every evaluation: ``exact`` true evaluates this ``Y`` with the exact
        kernels (where the approximation would miss its promised accuracy
        and the exact gradient is affordable); ``warning`` (a ``Warning``
        instance or None) is issued once per run.  None: always the
        approximation.
    """

    name: str
    summary: str
    resolve_cost: Callable
    dimensions: tuple
    auto_min_n: int
    exact_instead: Callable = None


@dataclass(frozen=True)
class AffinityFamily:
    """The kind of input affinities ``P`` a method builds, as the testing kit checks it.

    Attributes
    ----------
    name : str
        For messages.
    normalised : {"rows", "total", ""}
        Every row of ``P`` sums to 1 (conditional ``p_{j|i}``), the whole of
        ``P`` sums to 1, or neither (fuzzy memberships).
    knn_graph : bool
        Whether ``P`` is a nearest-neighbour graph whatever its parameters,
        so that its non-zero pattern (the neighbour sets) matters.
    conditional : str or None
        The registered method whose ``P`` holds this family's conditional
        ``p_{j|i}`` before symmetrisation, or None.
    """

    name: str
    normalised: str
    knn_graph: bool
    conditional: str = None


@dataclass(frozen=True)
class Confusion:
    """A user's function that computes another registered method's cost instead.

    Attributes
    ----------
    method : str
        The registered method the function matches.
    description : str
        What differs, for the testing kit's report.
    """

    method: str
    description: str


@dataclass(frozen=True)
class SizedParam:
    """A method parameter whose largest valid value depends on the number of points.

    Attributes
    ----------
    limit_text : str
        The largest value as a formula in ``n_samples``, for messages
        (``"n_samples - 1"``).
    limit : callable
        ``limit(n_samples)``: the largest value accepted.
    small_data : callable
        ``small_data(n_samples)``: the value used instead of a default that
        exceeds ``limit(n_samples)``.
    default_limit : callable or None
        ``default_limit(n_samples)``: the largest default kept, when it is
        below ``limit`` (a default that fits but makes no map); None: ``limit``.
    """

    limit_text: str
    limit: Callable
    small_data: Callable
    default_limit: Callable = None

    def keeps_default(self, value, n_samples):
        """Whether the default ``value`` is used as it is for ``n_samples`` points."""
        largest = self.default_limit or self.limit
        return value <= largest(n_samples)


def is_real_number(value):
    """Whether ``value`` is a real number (a bool is not)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_param_value(name, value, default):
    """Generic check of a method parameter against the type of its default.

    A parameter whose default is a real number must be a finite real number
    (an integer if the default is one); the method-specific range checks
    (e.g. :func:`check_perplexity`) come on top.  Other defaults are not
    checked here, but for ``metric``, which every method checks alike
    (:func:`smallvis.inputs.distances.check_metric`).
    """
    if name == "metric":
        return check_metric(value)
    if isinstance(default, numbers.Real) and not isinstance(default, bool):
        if value is default:
            return value
        if isinstance(default, numbers.Integral):
            return check_integer(value, name)
        return check_number(value, name)
    return value


#: Largest |value| of a learned log-scale (NCVis's Q): exp(-Q) must stay a
#: normal positive float64 (exp(709.8) overflows), with room for the
#: optimizer to move it.
LEARNED_LIMIT = 700.0


def check_learned(name, value):
    """A learned log-scale such as NCVis's ``Q``: a real number in [-700, 700]."""
    return check_number(value, name, low=-LEARNED_LIMIT, high=LEARNED_LIMIT)


def check_perplexity(perplexity, n_samples):
    """Perplexity must lie in ``[1, n_samples - 1]`` (``n_samples=None``: at least 1).

    A range check only: :meth:`~smallvis.registry.Method.fit_sizes` has
    already refused a value above ``n_samples - 1`` with its own message
    (:data:`PERPLEXITY_SIZE`).
    """
    high = None if n_samples is None else n_samples - 1
    return check_number(perplexity, "perplexity", low=1, high=high)


def perplexity_for_small_data(n_samples):
    """``(N - 1) / 3``, at least 1: openTSNE's perplexity for small data.

    The calibration then runs over ``3 x perplexity = N - 1`` neighbours (all
    other points), as the kNN calibration would at any size.
    """
    return max(1.0, (n_samples - 1) / 3.0)


def umap_neighbors_for_small_data(n_samples):
    """``N - 1``, at least 2 (the point itself and one other): umap-learn's rule."""
    return max(2, n_samples - 1)


def knn_neighbors_for_small_data(n_samples):
    """``floor((N - 1) / 3)``, at least 1: a third of the other points.

    The neighbourhood of :func:`perplexity_for_small_data`.  Unlike the
    perplexity-calibrated and fuzzy affinities, which weigh neighbours by
    distance, a plain kNN graph (NCVis) does not: with k above a third of
    the other points its symmetric union joins most pairs and ``P`` is close
    to uniform.  NCVis's default of 15 on 20 stratified iris rows leaves a
    quarter of the setosa points nearest to another species; 6 separates
    them (tests/test_small_data.py).
    """
    return max(1, (n_samples - 1) // 3)


#: Perplexity: the calibration needs at least ``perplexity`` other points.
PERPLEXITY_SIZE = SizedParam("n_samples - 1", lambda n: n - 1, perplexity_for_small_data)
#: kNN size not counting the point itself (tsne, largevis: no default, as
#: 3 x perplexity is capped at N - 1).
OTHERS_SIZE = SizedParam("n_samples - 1", lambda n: n - 1, knn_neighbors_for_small_data)
#: NCVis's kNN graph: its default is kept up to a third of the other points.
KNN_GRAPH_SIZE = SizedParam("n_samples - 1", lambda n: n - 1, knn_neighbors_for_small_data,
                            default_limit=lambda n: (n - 1) / 3.0)
#: UMAP's n_neighbors, which counts the point itself.
UMAP_SIZE = SizedParam("n_samples", lambda n: n, umap_neighbors_for_small_data)


# ---------------------------------------------------------------------------
# learning-rate rules
# ---------------------------------------------------------------------------


def joint_auto_learning_rate(n_samples, exaggeration):
    """``max(N / exaggeration / 4, 50)``: Belkina et al. (2019), as scikit-learn.

    For a ``P`` that sums to 1 and the true gradient (factor 4 included).
    """
    return max(n_samples / exaggeration / 4.0, 50.0)


def largevis_auto_learning_rate(n_samples, exaggeration):
    """``N / exaggeration / 4``: the joint rule without its floor of 50.

    Exact LargeVis repels every pair by ``gamma`` directly, not through
    t-SNE's normalisation, and below 200 points the floor multiplies the
    step that the rule derives: on 20 iris rows (perplexity lowered to 6.3)
    a rate of 50 threw pairs of points hundreds of units from their species
    (the map spanned 1,300 units, and 3 of 20 points lay nearest another
    species), where ``N / 4`` = 5 draws the three species apart within 100.
    From 200 points on the two rules agree.
    """
    return n_samples / exaggeration / 4.0


def gaussian_auto_learning_rate(n_samples, exaggeration):
    """A quarter of the joint rule, for the Gaussian output kernel (ssne).

    The joint rule suits t-SNE, whose heavy-tailed weights soften the
    attraction inside a cluster to ``4 p_ij w_ij`` with ``w_ij`` well below 1.
    Under the Gaussian kernel clusters contract until ``w_ij`` is close to 1,
    so the attraction's curvature at point i is the full ``4 sum_j p_ij``,
    about ``4 / N``, and more at points whose symmetrised row sum is a few
    times ``1 / N``.  ``N / 4`` then puts the step ``eta * gain * 4 / N`` at
    about 1 before the delta-bar-delta gains grow: once they do, under
    momentum 0.8, structured data of a few thousand points oscillate and
    blow up after the momentum switch.  ``N / 16`` leaves a factor of 4 of
    room.

    The joint rule's floor of 50 is kept only up to ``N / 4``, where it
    would put that step above 1 on a few points (docs/experiments.md,
    2026-12-02); from 200 points on the floor is below ``N / 4``.
    """
    return min(joint_auto_learning_rate(n_samples, exaggeration), n_samples / 4.0) / 4.0


def conditional_auto_learning_rate(n_samples, exaggeration):
    """The Gaussian rule divided by N: a conditional ``P`` sums to N, not 1 (asne)."""
    return gaussian_auto_learning_rate(n_samples, exaggeration) / n_samples


#: Exact UMAP-type costs repel every pair, so under delta-bar-delta gains a
#: step of order 1 (R smallvis's usual choice) lets the layout blow up; 0.03
#: is small enough to be safe and still reaches a low final cost
#: (docs/experiments.md, 2026-11-23).
FUZZY_LEARNING_RATE = 0.03


def fuzzy_auto_learning_rate(n_samples, exaggeration):
    """A fixed small step for the un-normalised umap and tumap costs."""
    return FUZZY_LEARNING_RATE


def ncvis_auto_learning_rate(n_samples, exaggeration):
    """1, NCVis's own step: it moves ``Q`` too, whose gradient is O(1)."""
    return 1.0


# ---------------------------------------------------------------------------
# LargeVis's repulsion weight
# ---------------------------------------------------------------------------

#: The LargeVis reference's repulsion weight and negatives per positive
#: sample: its stochastic form weighs every unit of attraction against
#: ``5 * 7 = 35`` units of repulsion.
LARGEVIS_REFERENCE_GAMMA = 7.0
LARGEVIS_SGD_NEGATIVES = 5

#: largevis's ``gamma`` under the stochastic optimizer: the reference's 7,
#: with 1500 epochs up to 100,000 points and a spectral start
#: (smallvis.engines.sgd.largevis_n_epochs; docs/theory.md §4.3).  Local
#: structure is what LargeVis is for: of the values tried on real images,
#: only the reference's kept the 10-NN accuracy within 0.005 of
#: umap-learn's, and umap's balance (``gamma = 1``) kept less local
#: structure than uwot's LargeVis (docs/experiments.md, 2026-11-25).
LARGEVIS_SGD_GAMMA = LARGEVIS_REFERENCE_GAMMA

#: The repulsion weight of largevis's early phase under ``optimizer="sgd"``
#: (``early_gamma``; its length: smallvis.engines.sgd.largevis_early_epochs):
#: umap's balance of one unit of repulsion per negative sample, under which
#: the classes of the spectral start gather before ``gamma = 7`` spreads
#: them (docs/theory.md §4.3; docs/experiments.md, 2026-11-29).
LARGEVIS_SGD_EARLY_GAMMA = 1.0


def largevis_auto_gamma(n_samples, **cost_params):
    """``gamma="auto"`` of the exact LargeVis cost: ``35 / (N (N - 1))`` (other parameters unused).

    The exact cost weighs the attraction by ``P`` (which sums to 1) and the
    repulsion by ``gamma`` on each of the ``N (N - 1)`` ordered pairs.  The
    stochastic form of the LargeVis reference draws, for every positive
    sample (attraction of weight 1), 5 negative samples of weight
    ``gamma = 7``.  Giving the exact cost the same balance of repulsion to
    attraction, ``gamma N (N - 1) = 35``, gives this value.  With ``gamma=1``
    (a naive transfer of the stochastic setting, R smallvis's default) the
    repulsion outweighs the attraction by ``N**2``, and the map spreads into a
    uniform disc (J. Melville's smallvis documentation, LargeVis page,
    reaches the same ``gamma`` of order ``1/N**2`` for normalised ``P``).
    """
    n = max(int(n_samples), 2)
    return LARGEVIS_SGD_NEGATIVES * LARGEVIS_REFERENCE_GAMMA / (n * (n - 1.0))


# ---------------------------------------------------------------------------
# UMAP's output kernel
# ---------------------------------------------------------------------------


@lru_cache(maxsize=32)
def _fitted_ab(spread, min_dist):
    return aff.umap_ab(spread, min_dist)


#: Largest UMAP exponent b accepted.  Fits give 0.79 to 1.93; d^(2b) with a
#: larger b overflows float64 already at moderate distances (b = 200:
#: d > 6), where the kernels' limits are not computed.
MAX_UMAP_B = 10.0


def umap_output_kernel(a=None, b=None, spread=1.0, min_dist=0.1):
    """UMAP's ``(a, b)``: given directly, or fitted to ``spread`` and ``min_dist``."""
    if (a is None) != (b is None):
        raise ParameterError("give both a and b, or neither (then spread and min_dist set "
                             "them)", ("a", "b"))
    if a is not None:
        return (check_number(a, "a", low=0, low_open=True),
                check_number(b, "b", low=0, low_open=True, high=MAX_UMAP_B))
    spread = check_number(spread, "spread", low=0, low_open=True)
    min_dist = check_number(min_dist, "min_dist", low=0)
    if min_dist > spread:
        raise ParameterError(f"min_dist must be at most spread = {spread:g}; got {min_dist:g}",
                             ("min_dist", "spread"))
    return _fitted_ab(spread, min_dist)


# ---------------------------------------------------------------------------
# what the affinity builders refuse, checked without building (model files)
# ---------------------------------------------------------------------------


def _check_search(n_samples, k, knn_method, knn, n_trees, metric="euclidean"):
    """The builders' checks of the neighbour search, or of a precomputed ``knn``."""
    check_search_params(knn_method, n_trees, name="knn_method")
    check_metric(metric)
    if knn is not None:
        aff.check_knn(knn, n_samples, k)


def check_perplexity_knn(n_samples, perplexity, n_neighbors=None, knn_method="auto",
                          knn=None, n_trees=None, metric="euclidean"):
    """What the kNN perplexity builders refuse (tsne, largevis), computing nothing."""
    k = aff.check_perplexity_neighbors(perplexity, n_neighbors, n_samples, knn)
    _check_search(n_samples, k, knn_method, knn, n_trees, metric)


def check_umap_graph(n_samples, n_neighbors, local_connectivity, bandwidth,
                      set_op_mix_ratio, knn_method="auto", knn=None, n_trees=None,
                      metric="euclidean"):
    """What :func:`smallvis.inputs.affinities.umap_graph` refuses, computing nothing."""
    k = aff.check_umap_graph_params(n_samples, n_neighbors, local_connectivity, bandwidth,
                                    set_op_mix_ratio)[0] - 1  # the point itself counted
    _check_search(n_samples, k, knn_method, knn, n_trees, metric)


def check_ncvis_graph(n_samples, n_neighbors, knn_method="auto", knn=None, n_trees=None,
                      metric="euclidean"):
    """What :func:`smallvis.inputs.affinities.ncvis_graph` refuses, computing nothing."""
    k = aff.check_ncvis_neighbors(n_neighbors, n_samples)
    _check_search(n_samples, k, knn_method, knn, n_trees, metric)
