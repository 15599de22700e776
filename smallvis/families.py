"""The kinds of input affinities ``P`` and what builds them, shared by the methods.

A method's folder picks its family here: the conditional ``p_{j|i}``
calibrated to a perplexity, the joint ``P`` built from it (over all points
or over nearest neighbours), the fuzzy kNN graph (as it is, or normalised
to sum 1) and the plain kNN graph.
Each family comes with its affinity builders (``build_affinities`` of a
:class:`~smallvis.method_spec.Method`), the checks they share with model
files, its size limits on small data, and the testing kit's dense ``P``
(``case_affinities``).  Nothing here names a method: the families are named
after the ``P`` they build.
"""

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, shortest_path

from .inputs import affinities as aff
from ._validation import check_number
from ._numeric import power_of_two_exponent
from ._numeric import in_units
from .backends._backend import kernels as select_kernels
from .inputs.distances import (check_metric, core_distances, data_exponent, finish,
                               pairwise_distances, prepare)
from .inputs.precomputed import PRECOMPUTED
from .inputs.sparse_search import SparseRows, prepare_sparse
from .inputs.sparse_search import pairwise_sq_distances as sparse_pairwise_sq_distances
from .inputs.neighbors import check_search_params
from .method_spec import AffinityFamily, SizedParam
from .methods._common import degrees_of

#: Up to this many points, the perplexity calibration of the joint ``P``
#: with nearest neighbours optional runs over all other points (dense
#: ``P``); above it, over 3 x perplexity nearest neighbours (sparse ``P``).
DENSE_P_MAX_N = 4096

#: The conditional Gaussian ``p_{j|i}``, calibrated to a perplexity.
CONDITIONAL = AffinityFamily(
    "conditional", normalised="rows", knn_graph=False,
    title="Conditional P: a Gaussian per row",
    description="Each row of :math:`P` is the conditional :math:`p_{j|i}`, a Gaussian over "
                "the other points whose width is set so that its perplexity is the same for "
                "every row (Hinton and Roweis's SNE).  Every row sums to 1; :math:`P` is not "
                "symmetric, and costs compare it row by row with a :math:`Q` normalised per "
                "row or over all pairs.")
#: ``(p_{j|i} + p_{i|j}) / (2N)``, over all points or nearest neighbours.
JOINT = AffinityFamily(
    "joint", normalised="total", knn_graph=False, conditional=CONDITIONAL,
    title="Joint P: the symmetrised Gaussian",
    description=":math:`p_{ij} = (p_{j|i} + p_{i|j}) / (2N)`, from the conditional rows "
                "(van der Maaten and Hinton's t-SNE): symmetric, summing to 1 over all "
                "pairs, over all points or over nearest neighbours (largevis always, tsne "
                "above 4,096 points).")
#: The joint ``P`` before its division by the grand sum,
#: ``(p_{j|i} + p_{i|j}) / 2``, with each row then divided by its sum: a
#: symmetrised ``P`` whose rows are distributions (R smallvis's "rsr": row
#: normalised, symmetrised, row normalised).
SYMMETRISED_ROWS = AffinityFamily(
    "symmetrised rows", normalised="rows", knn_graph=False, conditional=CONDITIONAL,
    title="Symmetrised rows: R smallvis's \"rsr\" P",
    description="The conditional rows, symmetrised, then each row divided by its sum again: "
                "every row sums to 1 and the pattern of :math:`P` is symmetric.")
#: The conditional ``p_{j|i}`` divided by its grand sum, ``N``: a ``P`` over
#: all pairs that is not symmetric (R smallvis's ``symmetrize = "none"``
#: with ``normalize = TRUE``).
CONDITIONAL_OVER_PAIRS = AffinityFamily(
    "conditional over all pairs", normalised="total", knn_graph=False,
    title="Conditional P over all pairs",
    description="The conditional rows :math:`p_{j|i}` divided by their grand sum :math:`N`: "
                "probabilities over all pairs that are not symmetric, each row keeping "
                "its own mass of :math:`1/N`.")
#: Each row's calibrated Gaussian weights, not normalised per row, over
#: their grand sum (R smallvis's ``row_normalize = FALSE`` with
#: ``normalize = TRUE``): not symmetric, each row keeping its Gaussian's mass.
GAUSSIAN_WEIGHTS_OVER_PAIRS = AffinityFamily(
    "gaussian weights over all pairs", normalised="total", knn_graph=False,
    title="Gaussian weights over all pairs",
    description="The calibrated Gaussian weights :math:`\\exp(-\\beta_i d_{ij}^2)` of each "
                "row, not divided by their row's sum, over their grand sum: probabilities "
                "over all pairs that are not symmetric, each row keeping the mass of its "
                "Gaussian (a point far from the others has a small one).")
#: The fuzzy kNN graph (McInnes et al. 2018): memberships in [0, 1].
FUZZY = AffinityFamily(
    "fuzzy", normalised="", knn_graph=True, memberships=True,
    title="Fuzzy kNN graph",
    description="UMAP's smoothed nearest-neighbour memberships in [0, 1], joined by the "
                "fuzzy union :math:`a + b - ab` (McInnes et al.).  :math:`P` is not "
                "normalised; the costs are sums over pairs (attraction on the graph's edges, "
                "repulsion from sampled or all other points).")
#: The fuzzy kNN graph divided by its sum, a ``P`` of probabilities over
#: all pairs (R smallvis's "skd" input kernel with normalisation).
NORMALISED_FUZZY = AffinityFamily(
    "normalised fuzzy", normalised="total", knn_graph=True, memberships=True,
    title="Normalised fuzzy kNN graph",
    description="UMAP's fuzzy graph divided by its sum: probabilities over all pairs, "
                "compared with a normalised :math:`Q` (R smallvis's hybrids of UMAP and "
                "t-SNE).")
#: The symmetric kNN graph, normalised to sum 1.
KNN_GRAPH = AffinityFamily(
    "knn graph", normalised="total", knn_graph=True,
    title="kNN graph",
    description="The symmetric graph of nearest neighbours, each edge of equal weight, "
                "normalised to sum 1 (NCVis, Neg-t-SNE, InfoNCE).")


# ---------------------------------------------------------------------------
# size limits on small data
# ---------------------------------------------------------------------------


def perplexity_for_small_data(n_samples):
    """``(N - 1) / 3``, at least 1: openTSNE's perplexity for small data.

    The calibration then runs over ``3 x perplexity = N - 1`` neighbours (all
    other points), as the kNN calibration would at any size.
    """
    return max(1.0, (n_samples - 1) / 3.0)


def fuzzy_neighbors_for_small_data(n_samples):
    """``N - 1``, at least 2 (the point itself and one other): umap-learn's rule."""
    return max(2, n_samples - 1)


def knn_neighbors_for_small_data(n_samples):
    """``floor((N - 1) / 3)``, at least 1: a third of the other points.

    The neighbourhood of :func:`perplexity_for_small_data`.  Unlike the
    perplexity-calibrated and fuzzy affinities, which weigh neighbours by
    distance, a plain kNN graph does not: with k above a third of the other
    points its symmetric union joins most pairs and ``P`` is close to
    uniform (docs/experiments.md, 2026-12-02).
    """
    return max(1, (n_samples - 1) // 3)


#: Perplexity: the calibration needs at least ``perplexity`` other points.
PERPLEXITY_SIZE = SizedParam("n_samples - 1", lambda n: n - 1, perplexity_for_small_data)
#: kNN size not counting the point itself, for the perplexity calibrations
#: over nearest neighbours (no default, as 3 x perplexity is capped at N - 1).
OTHERS_SIZE = SizedParam("n_samples - 1", lambda n: n - 1, knn_neighbors_for_small_data)
#: The plain kNN graph: its default is kept up to a third of the other points.
KNN_GRAPH_SIZE = SizedParam("n_samples - 1", lambda n: n - 1, knn_neighbors_for_small_data,
                            default_limit=lambda n: (n - 1) / 3.0)
#: The fuzzy graph's n_neighbors, which counts the point itself (as umap-learn).
FUZZY_GRAPH_SIZE = SizedParam("n_samples", lambda n: n, fuzzy_neighbors_for_small_data)


# ---------------------------------------------------------------------------
# affinity builders
# ---------------------------------------------------------------------------

#: The neighbour-search parameters of every builder that searches neighbours.
KNN_DEFAULTS = {"knn_method": "auto", "knn": None, "n_trees": None, "metric": "euclidean"}

#: The fuzzy graph's parameters and defaults.
FUZZY_GRAPH_PARAMS = {"n_neighbors": 15, "local_connectivity": 1.0, "bandwidth": 1.0,
                      "set_op_mix_ratio": 1.0, **KNN_DEFAULTS}


def _check_dense_size(n_samples):
    """Refuse an all-pairs calibration too large for memory, saying what can run."""
    try:
        aff.check_dense_affinity_size(n_samples)
    except ValueError:
        need = aff.DENSE_AFFINITY_ARRAYS * 8 * n_samples ** 2
        n_max = int((aff.MAX_DENSE_AFFINITY_BYTES / (8 * aff.DENSE_AFFINITY_ARRAYS)) ** 0.5)
        raise ValueError(
            f"n_samples = {n_samples} is too large for a dense perplexity calibration: "
            f"it needs O(N^2) memory, about {need / 1024**3:.1f} GiB (limit "
            f"{aff.MAX_DENSE_AFFINITY_BYTES / 1024**3:.0f} GiB, n_samples <= {n_max}); "
            "use tsne, whose P comes from each point's nearest neighbours above "
            "4,096 points, or a method whose P is a nearest-neighbour graph at any size "
            "(umap, largevis, ...: smallvis.registry.knn_only_methods() lists them)"
        ) from None


def conditional_affinities(X, kernels, random_state, n_threads, perplexity, metric):
    """The conditional ``p_{j|i}`` over all other points."""
    _check_dense_size(X.shape[0])
    return aff.conditional_perplexity(X, perplexity, kernels, metric=check_metric(metric))[0]


def conditional_affinities_and_bandwidths(X, kernels, random_state, n_threads, perplexity,
                                          metric):
    """The conditional ``p_{j|i}`` and each row's relative precision: ``(P, {"bandwidth": b})``.

    For the methods whose output kernel takes the calibration's precisions
    (:attr:`~smallvis.method_spec.Method.input_params`), divided by their
    geometric mean
    (:func:`smallvis.inputs.affinities.conditional_perplexity_bandwidths`).
    """
    _check_dense_size(X.shape[0])
    P, bandwidth = aff.conditional_perplexity_bandwidths(X, perplexity, kernels,
                                                         metric=check_metric(metric))
    return P, {"bandwidth": bandwidth}


def joint_affinities_and_bandwidths(X, kernels, random_state, n_threads, perplexity, metric):
    """The joint ``P`` over all pairs and each row's relative precision: ``(P, {"bandwidth": b})``.

    The precisions of the conditional rows it is made of, over their
    geometric mean (:func:`smallvis.inputs.affinities.joint_perplexity_bandwidths`).
    """
    _check_dense_size(X.shape[0])
    P, bandwidth = aff.joint_perplexity_bandwidths(X, perplexity, kernels,
                                                   metric=check_metric(metric))
    return P, {"bandwidth": bandwidth}


def conditional_affinities_over_pairs(X, kernels, random_state, n_threads, perplexity,
                                      metric):
    """The conditional ``p_{j|i}`` divided by ``N`` (:data:`CONDITIONAL_OVER_PAIRS`)."""
    P = conditional_affinities(X, kernels, random_state, n_threads, perplexity, metric)
    P /= P.shape[0]
    return P


def gaussian_weights_affinities(X, kernels, random_state, n_threads, perplexity, metric):
    """Each row's Gaussian weights over their grand sum (:data:`GAUSSIAN_WEIGHTS_OVER_PAIRS`)."""
    _check_dense_size(X.shape[0])
    return aff.gaussian_weights_over_pairs(X, perplexity, kernels, metric=check_metric(metric))


def joint_affinities(X, kernels, random_state, n_threads, perplexity, metric):
    """The joint ``P`` over all pairs."""
    _check_dense_size(X.shape[0])
    return aff.joint_perplexity(X, perplexity, kernels, metric=check_metric(metric))


def joint_affinities_and_distances(X, kernels, perplexity, metric):
    """The joint ``P`` over all pairs and the squared input distances: ``(P, D2, e)``.

    For the methods with a second per-pair input made from the input
    distances of all pairs (:attr:`~smallvis.method_spec.Method.second_input_units`).
    ``D2`` holds the squared ``metric`` distances in units of ``2**e``
    (the true ones are ``D2 * 4**e``), so that no square over- or
    underflows for data in any units; its diagonal is 0.
    """
    _check_dense_size(X.shape[0])
    metric = check_metric(metric)
    P = aff.joint_perplexity(X, perplexity, kernels, metric=metric)
    D2, e = aff.all_pair_sq_distances(X, metric, kernels)
    return P, D2, e


def distance_weights(D2):
    r"""Each pair's share of the input distances, :math:`r_{ij} / \sum_{kl} r_{kl}` (0 on the diagonal).

    ``D2`` holds squared distances in any units (a power of two): the ratio
    does not depend on them.  Identical points everywhere (every distance
    0) give the uniform shares, the limit of a vanishing spread.
    """
    R = np.sqrt(D2)
    total = R.sum()
    if not total > 0.0:
        R = np.ones_like(D2)
        np.fill_diagonal(R, 0.0)
        total = R.sum()
    return R / total


def joint_affinities_and_distance_weights(X, kernels, random_state, n_threads, perplexity,
                                          metric):
    r"""The joint ``P`` and each pair's share of the input distances: ``(P, {"repulsion_weights": v})``.

    :math:`v_{ij} = r_{ij} / \sum_{kl} r_{kl}` (:func:`distance_weights`),
    R smallvis's repulsion weights of the elastic embedding, a second
    per-pair input (:attr:`~smallvis.method_spec.Method.second_input_units`).
    """
    P, D2, _ = joint_affinities_and_distances(X, kernels, perplexity, metric)
    return P, {"repulsion_weights": distance_weights(D2)}


def absmax_scale(X, metric):
    """R smallvis's default unit of the input, ``scale="absmax"``: the largest |x - mean| of X.

    The columns centred, the largest absolute element; for a matrix of
    distances (``metric="precomputed"``), which has no coordinates, half the
    largest distance.  Multiplying X by a power of two multiplies it by the
    same power, bit for bit.
    """
    if metric == "precomputed":
        return 0.5 * float(X.max()) if X.size else 0.0
    if sp.issparse(X):
        mean = np.asarray(X.mean(axis=0)).ravel()
        hi = X.max(axis=0).toarray().ravel()
        lo = X.min(axis=0).toarray().ravel()
        return float(np.max(np.maximum(np.abs(hi - mean), np.abs(lo - mean)), initial=0.0))
    return float(np.max(np.abs(X - X.mean(axis=0)), initial=0.0))


def inverse_cauchy_affinities(D2, e, scale):
    r""":math:`1 + (r / m)^2` of every pair (0 on the diagonal), over its sum: R smallvis's :math:`\hat{P}`.

    ``m`` is the unit of R's default input scaling (:func:`absmax_scale`), so
    that the result does not depend on the units of X.  ``D2`` holds the
    squared distances in units of ``2**e`` (the true ones are ``D2 *
    4**e``): :math:`1 + (r / m)^2 \propto (m 2^{-e})^2 + D2`, which
    neither over- nor underflows.  Identical points (``m = 0``) give the
    uniform distribution over the pairs.
    """
    with np.errstate(over="ignore"):
        one = np.square(np.ldexp(scale, -int(e)))
    G = np.ones_like(D2) if not (np.isfinite(one) and one > 0.0) else D2 + one
    np.fill_diagonal(G, 0.0)
    return G / G.sum()


def joint_affinities_and_global_affinities(X, kernels, random_state, n_threads, perplexity,
                                           metric):
    r"""The joint ``P`` and the global affinities of all pairs: ``(P, {"global_affinities": P-hat})``.

    :math:`\hat{P}` (:func:`inverse_cauchy_affinities`), R smallvis's global
    affinities of the input distances in its default input units, a second
    per-pair input (:attr:`~smallvis.method_spec.Method.second_input_units`).
    """
    P, D2, e = joint_affinities_and_distances(X, kernels, perplexity, metric)
    return P, {"global_affinities": inverse_cauchy_affinities(D2, e, absmax_scale(X, metric))}


def symmetrised_rows_affinities(X, kernels, random_state, n_threads, perplexity, metric):
    """The joint ``P`` over all pairs with each row divided by its sum (:data:`SYMMETRISED_ROWS`).

    ``(p_{j|i} + p_{i|j}) / 2`` row-normalised: the grand sum of the joint
    ``P`` cancels in the division.
    """
    J = joint_affinities(X, kernels, random_state, n_threads, perplexity, metric)
    np.divide(J, J.sum(axis=1, keepdims=True), out=J)
    return J


def joint_affinities_and_degrees(X, kernels, random_state, n_threads, perplexity, metric):
    r"""The joint ``P`` over all pairs and each point's degree in it: ``(P, {"importance": m})``.

    :math:`m_i = N \sum_j p_{ij}` (:func:`smallvis.methods._common.degrees_of`),
    the importances of the weighted methods (:attr:`~smallvis.method_spec.Method.input_params`),
    which a fit keeps for placing new points.
    """
    P = joint_affinities(X, kernels, random_state, n_threads, perplexity, metric)
    return P, {"importance": degrees_of(None, None, np.ascontiguousarray(P).ravel(),
                                        P.shape[0])}


def joint_affinities_dense_or_knn(X, kernels, random_state, n_threads, perplexity,
                                  n_neighbors, knn_method, knn, n_trees, metric):
    """The joint ``P`` over all pairs up to :data:`DENSE_P_MAX_N` points, over neighbours above.

    Over neighbours at any size when ``n_neighbors`` or ``knn`` is given.
    """
    # checked here too: the dense branch below does not search neighbours
    check_search_params(knn_method, n_trees, name="knn_method")
    metric = check_metric(metric)
    if n_neighbors is None and knn is None and X.shape[0] <= DENSE_P_MAX_N:
        return aff.joint_perplexity(X, perplexity, kernels, metric=metric)
    return aff.joint_perplexity_knn(X, perplexity, kernels, n_neighbors=n_neighbors,
                                    knn=knn, knn_method=knn_method, n_trees=n_trees,
                                    random_state=random_state, n_threads=n_threads,
                                    metric=metric)


def joint_knn_affinities(X, kernels, random_state, n_threads, perplexity, n_neighbors,
                         knn_method, knn, n_trees, metric):
    """The joint ``P`` calibrated over nearest neighbours at any size."""
    return aff.joint_perplexity_knn(X, perplexity, kernels, n_neighbors=n_neighbors,
                                    knn=knn, knn_method=knn_method, n_trees=n_trees,
                                    random_state=random_state, n_threads=n_threads,
                                    metric=check_metric(metric))


def fuzzy_graph_affinities(X, kernels, random_state, n_threads, n_neighbors,
                           local_connectivity, bandwidth, set_op_mix_ratio, knn_method, knn,
                           n_trees, metric):
    """The fuzzy kNN graph (:data:`FUZZY`)."""
    return aff.fuzzy_graph(X, n_neighbors, kernels, local_connectivity=local_connectivity,
                          bandwidth=bandwidth, set_op_mix_ratio=set_op_mix_ratio, knn=knn,
                          knn_method=knn_method, random_state=random_state,
                          n_threads=n_threads, n_trees=n_trees, metric=check_metric(metric))


def normalised_fuzzy_graph_affinities(X, kernels, random_state, n_threads, n_neighbors,
                                      local_connectivity, bandwidth, set_op_mix_ratio,
                                      knn_method, knn, n_trees, metric):
    """The fuzzy kNN graph divided by its sum (:data:`NORMALISED_FUZZY`)."""
    V = fuzzy_graph_affinities(X, kernels, random_state, n_threads, n_neighbors,
                               local_connectivity, bandwidth, set_op_mix_ratio, knn_method,
                               knn, n_trees, metric)
    return (V / V.sum()).tocsr()


def knn_graph_affinities(X, kernels, random_state, n_threads, n_neighbors, knn_method, knn,
                         n_trees, metric):
    """The symmetric kNN graph normalised to sum 1 (:data:`KNN_GRAPH`)."""
    return aff.symmetric_knn_graph(X, n_neighbors, knn=knn, knn_method=knn_method,
                           random_state=random_state, n_threads=n_threads, n_trees=n_trees,
                           kernels=kernels, metric=check_metric(metric))


def _in_units(X, e):
    """``X / 2**e`` (exact), for dense data; sparse data as they are."""
    return X if sp.issparse(X) or e == 0 else np.ldexp(X, -e)


def _distance_exponent(metric, *arrays):
    """The power of two the input distances of ``arrays`` are measured in (0: as given)."""
    if metric == PRECOMPUTED or any(sp.issparse(A) for A in arrays):
        return 0
    return max(data_exponent(A, metric) for A in arrays)


def _all_distances(X, metric, kernels):
    """The ``metric`` distances between all rows of ``X``, in the data's units.

    Measured in units of a power of two of the data (exact), so that no
    square over- or underflows, and brought back to the data's units:
    dense rows through :func:`smallvis.inputs.distances.pairwise_distances`,
    sparse rows by the exact pair kernel of the sparse search (no dense
    copy of ``X``).
    """
    if sp.issparse(X) and metric != PRECOMPUTED:
        D2, e = sparse_pairwise_sq_distances(X, metric, kernels)
        return np.ldexp(np.sqrt(D2, out=D2), e)
    e = _distance_exponent(metric, X)
    return np.ldexp(pairwise_distances(_in_units(X, e), metric), e)


def _distances_to(X, X_new, metric):
    """``(M, N)``: the ``metric`` distances of the rows of ``X_new`` to those of ``X``."""
    if metric != PRECOMPUTED and (sp.issparse(X) or sp.issparse(X_new)):
        A = prepare_sparse(sp.csr_matrix(X, dtype=np.float64), metric)
        B = prepare_sparse(sp.csr_matrix(X_new, dtype=np.float64), metric, name="X_new")
        e = max(data_exponent(A, metric), data_exponent(B, metric))
        rows = SparseRows(in_units(A, e), select_kernels(False), 1, X_new=in_units(B, e))
        n, m = A.shape[0], B.shape[0]
        D2 = rows.pairs(np.repeat(np.arange(n, n + m), n).reshape(m, n),
                        np.tile(np.arange(n), (m, 1)))
        D = np.sqrt(D2) if metric == "euclidean" else finish(D2, metric, A.shape[1])
        return np.ldexp(D, e)
    e = _distance_exponent(metric, X, X_new)
    A = prepare(_in_units(X, e), metric)
    B = prepare(_in_units(X_new, e), metric, name="X_new", new_points=True)
    return np.ldexp(finish(core_distances(B, A, metric), metric, A.shape[1]), e)


def _warn_if_all_zero(R):
    """Warn when every input distance is 0: the stress map is then every point at one place."""
    if R.shape[0] > 1 and not np.any(R):
        warnings.warn("every input distance is 0 (all rows are identical): the stress map "
                      "puts every point at one place", RuntimeWarning, stacklevel=4)
    return R


def input_distances(X, kernels, random_state, n_threads, metric):
    r"""The input distances between all rows of ``X`` (:data:`INPUT_DISTANCES`).

    .. math::

        r_{ij} = \delta(x_i, x_j),

    the distances of ``metric`` (``"precomputed"``: ``X`` itself, checked),
    in the data's units: the distances of ``c X`` are ``c`` times those of
    ``X``.  Dense, symmetric, zero diagonal, computed once before the
    optimisation.  Sparse ``X`` is measured by the exact sparse pair
    kernel, without a dense copy.
    """
    _check_dense_size(X.shape[0])
    return _warn_if_all_zero(_all_distances(X, check_metric(metric), kernels))


def input_distances_to(X, X_new, metric):
    """The rows of new points: their distances to every row of ``X``, in the data's units.

    ``X_new`` holds checked new points (``"precomputed"``: their distances
    to the rows of ``X``).  Returns an ``(M, N)`` array.
    """
    return _distances_to(X, X_new, check_metric(metric))


def distance_unit(P):
    r"""The unit a stress map is fitted in: the mean input distance over the pairs.

    .. math::

        s = \frac{1}{N (N - 1)} \sum_{i \ne j} r_{ij}.

    The fit runs on :math:`r / s` (an ``O(1)`` scale whatever the data's
    units, so that no square over- or underflows and one learning-rate rule
    serves every stress) and returns its map times :math:`s`: the map of
    ``c X`` is ``c`` times the map of ``X``.  1 when every distance is 0
    (identical rows: every point maps to one place) or there are not two
    points.  A mean below the smallest normal double is refused: its
    reciprocal, stored in a model file, would be infinite, and the
    distances have lost digits already.
    """
    n = P.shape[0]
    total = float(P.sum())
    if n < 2 or not total > 0.0 or not np.isfinite(total):
        e = power_of_two_exponent(P)
        if n < 2 or e == 0:
            return 1.0
        # the sum overflowed: the mean of the entries in a power of two's units
        return float(np.ldexp(np.ldexp(P, -e).sum() / (n * (n - 1.0)), e))
    mean = total / (n * (n - 1.0))
    if mean < np.finfo(np.float64).tiny:
        raise ValueError(f"the mean input distance is {mean:.3g}, below the smallest normal "
                         "double (2.2e-308), where distances keep only some of their "
                         "digits: multiply X (or the distances) by a large factor")
    return mean


def start_in_distance_unit(Y, P):
    """``Y`` scaled in place so that its mean distance over the pairs is 1.

    A stress map is fitted in units of the mean input distance
    (:func:`distance_unit`), so every start, whatever its scale (PCA scores
    in the data's units, the small ``"spca"``, a spectral layout, the
    user's array), begins at the scale of the distances it is compared
    with: a quartic stress started far from it takes its steps on a
    gradient many orders of magnitude off.  A start whose points all
    coincide is left as it is.  When every input distance in ``P`` is 0,
    the stress is minimal with every point at the origin: the start is
    that map, and no force moves it.
    """
    n = Y.shape[0]
    if not np.any(P):
        Y[...] = 0.0
        return Y
    if n < 2:
        return Y
    e = power_of_two_exponent(Y)
    Z = np.ldexp(Y, -e)
    sq = np.einsum("ij,ij->i", Z, Z)
    D2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * (Z @ Z.T), 0.0)
    mean = float(np.sqrt(D2).sum()) / (n * (n - 1.0))
    if mean > 0.0:
        Y /= np.ldexp(mean, e)
    return Y


#: Input distances ``r_ij`` (metric MDS and its kin): not affinities but the
#: distances a stress compares with the output distances, over every pair,
#: in the data's units (:func:`input_distances`).  A pair at distance 0
#: (duplicate rows) is a pair whose stored value is 0, as a pair without
#: affinity is for the other families: its stress term is the unit's
#: ``pair_term``.
INPUT_DISTANCES = AffinityFamily(
    "input distances", normalised="", knn_graph=False,
    distances_to=input_distances_to, units="equivariant",
    title="Input distances: stress methods",
    description="Not affinities: the distances :math:`r_{ij}` between the rows of :math:`X` "
                "over every pair, in the data's units, which a stress (metric MDS, "
                "Sammon's mapping) compares with the distances of the map.  Twice the data "
                "gives twice the distances and a map twice as large.")


def _symmetric_knn_flags(nearest, n):
    """``(N, N)`` bool: ``j`` among the nearest others of ``i`` (a row of ``nearest``), or ``i`` of ``j``.

    Symmetrised by union, as R smallvis's ``pmax(knn, t(knn))``.
    """
    k = nearest.shape[1]
    flags = np.zeros((n, n), dtype=bool)
    flags[np.repeat(np.arange(n), k), np.asarray(nearest).ravel()] = True
    return flags | flags.T


def ball_radius(R, f):
    r"""R smallvis's ball radius: the :math:`\mathrm{round}(f M)`-th smallest of the :math:`M` pair distances.

    .. math::

        r_{\max} = r_{(\max(1, \mathrm{round}(f M)))}, \qquad M = N (N - 1) / 2,

    over the pairs :math:`i < j` (R's ``Rfast::nth`` of the upper
    triangle; R's ``round`` takes halves to the even integer, as
    NumPy's).  ``f = 1`` takes the largest distance: every pair is inside.
    """
    r = R[np.triu_indices(R.shape[0], 1)]
    if r.size == 0:
        return 0.0
    m = int(min(max(1, round(f * r.size)), r.size))
    return float(np.partition(r, m - 1)[m - 1])


def _neighbour_distances(R, flags):
    """``(R, {"neighbour_distances": T})``: ``T`` the distances inside the neighbourhoods.

    ``T`` is ``R`` where ``flags`` holds and 0 elsewhere, in units of the
    mean input distance (:func:`distance_unit`), the units the fit divides
    ``R`` into, so that the two inputs the stress compares stay in one unit.
    """
    np.fill_diagonal(flags, False)
    T = np.where(flags, R / distance_unit(R), 0.0)
    return R, {"neighbour_distances": T}


def knn_neighbour_distances(X, kernels, random_state, n_threads, n_neighbors, knn_method,
                            n_trees, metric):
    r"""The input distances and those of the symmetric kNN graph (:data:`KNN_NEIGHBOURHOOD_DISTANCES`).

    ``P`` holds :math:`r_{ij}` for every pair (:func:`input_distances`);
    the second per-pair input :math:`t_{ij} = r_{ij}` on the pairs of the
    symmetrised graph of each point's ``n_neighbors`` nearest others (the
    package's neighbour search, as every kNN method's), 0 off it, in units
    of the mean input distance.  The distances of every pair come from
    ``X``: a kNN graph alone (``knn=``) does not carry them.
    """
    R = input_distances(X, kernels, random_state, n_threads, metric)
    k = aff.check_knn_graph_neighbors(n_neighbors, X.shape[0])
    if isinstance(random_state, np.random.RandomState):  # the search takes a seed
        random_state = int(random_state.randint(np.iinfo(np.int32).max))
    nearest, _ = aff._knn(X, k, None, knn_method, random_state, n_threads, n_trees=n_trees,
                          kernels=kernels, metric=check_metric(metric))
    return _neighbour_distances(R, _symmetric_knn_flags(nearest[:, :k], X.shape[0]))


def ball_neighbour_distances(X, kernels, random_state, n_threads, f, metric):
    r"""The input distances and those inside R smallvis's ball (:data:`BALL_NEIGHBOURHOOD_DISTANCES`).

    ``P`` holds :math:`r_{ij}` for every pair (:func:`input_distances`);
    the second per-pair input :math:`t_{ij} = r_{ij}` on the pairs with
    :math:`r_{ij} \le r_{\max}` (:func:`ball_radius` of the fraction
    ``f``), 0 on the others, in units of the mean input distance.
    """
    R = input_distances(X, kernels, random_state, n_threads, metric)
    f = check_ball_fraction(f)
    return _neighbour_distances(R, R <= ball_radius(R, f))


def check_ball_fraction(f):
    """``f``: the fraction of the pair distances inside the ball, in (0, 1]."""
    return check_number(f, "f", low=0, high=1, low_open=True)


def check_ball_neighbourhood(n_samples, f=0.1, metric="euclidean"):
    """What :func:`ball_neighbour_distances` refuses of its own parameters, computing nothing."""
    check_ball_fraction(f)


def check_knn_neighbourhoods(n_samples, n_neighbors, knn_method="auto", n_trees=None,
                             metric="euclidean"):
    """What :func:`knn_neighbour_distances` refuses, computing nothing."""
    k = aff.check_knn_graph_neighbors(n_neighbors, n_samples)
    _check_search(n_samples, k, knn_method, None, n_trees, metric)


def neighbourhood_distances_to(X, X_new, metric, **neighbourhood):
    """New points' rows of ``P``: their input distances (:func:`input_distances_to`)."""
    return input_distances_to(X, X_new, metric)


def _new_rows_inside(P, inside):
    """New points' rows of ``T``: their rows of ``P`` (fit units) where ``inside`` holds."""
    rows = P.toarray() if sp.issparse(P) else np.asarray(P, dtype=np.float64)
    return np.where(inside(rows), rows, 0.0)


def knn_neighbour_rows(P, fitted, n_neighbors, **search):
    r"""New points' neighbour distances, by the fit's symmetrised rule.

    A training point :math:`j` is a neighbour of the new point :math:`s`
    when it is among the ``n_neighbors`` nearest of :math:`s` at a positive
    distance (ties to the lower index), or when :math:`s` would be among the
    nearest of :math:`j`: :math:`r_{sj}` at most :math:`j`'s distance to its
    ``n_neighbors``-th nearest, the ``n_neighbors``-th smallest positive
    value of its row of the fit's input (its own neighbours are the nearest
    of its neighbourhood).  A training point placed again keeps its fit's
    neighbourhood, but for ties.
    """
    fitted = np.asarray(fitted, dtype=np.float64)
    k = min(int(n_neighbors), fitted.shape[1] - 1)

    def inside(rows):
        positive = np.where(rows > 0.0, rows, np.inf)
        nearest = np.argsort(positive, axis=1, kind="stable")[:, :k]
        flags = np.zeros(rows.shape, dtype=bool)
        flags[np.repeat(np.arange(rows.shape[0]), k), nearest.ravel()] = True
        if k > 0:
            own = np.where(fitted > 0.0, fitted, np.inf)
            reach = np.partition(own, k - 1, axis=1)[:, k - 1]
            flags |= rows <= reach[None, :]
        return flags & (rows > 0.0)
    return _new_rows_inside(P, inside)


def ball_neighbour_rows(P, fitted, f=None, **search):
    """New points' neighbour distances: those within the fit's ball radius.

    The radius in the fit's units is the largest of the fit's ``T``: the
    pair at the radius is inside its own ball.
    """
    radius = float(np.max(fitted)) if np.size(fitted) else 0.0
    return _new_rows_inside(P, lambda rows: rows <= radius)


#: The input distances of every pair and, beside them, those of the pairs
#: inside each point's symmetric kNN graph (:func:`knn_neighbour_distances`).
KNN_NEIGHBOURHOOD_DISTANCES = AffinityFamily(
    "input distances with kNN neighbourhoods", normalised="", knn_graph=False,
    distances_to=neighbourhood_distances_to, units="equivariant",
    new_pair_input=knn_neighbour_rows,
    title="Input distances with kNN neighbourhoods",
    description="The distances :math:`r_{ij}` of every pair, as the stress methods', and "
                "beside them a second per-pair input: the same distances on the pairs of "
                "the symmetric graph of nearest neighbours, 0 elsewhere, which tells the "
                "stress which pairs it may stretch without cost.")
#: The input distances of every pair and, beside them, those of the pairs
#: inside a ball of one radius (:func:`ball_neighbour_distances`).
BALL_NEIGHBOURHOOD_DISTANCES = AffinityFamily(
    "input distances with ball neighbourhoods", normalised="", knn_graph=False,
    distances_to=neighbourhood_distances_to, units="equivariant",
    new_pair_input=ball_neighbour_rows,
    title="Input distances with ball neighbourhoods",
    description="The distances :math:`r_{ij}` of every pair, as the stress methods', and "
                "beside them a second per-pair input: the same distances on the pairs no "
                "farther apart than a radius (a fraction of the pair distances lies "
                "within it), 0 elsewhere.")


def _geodesic(R, nearest, lengths):
    """Shortest paths on the symmetric kNN graph.

    ``nearest`` holds each point's nearest others (a row of indices per
    point) and ``lengths`` their distances; the graph joins them both
    ways.  A pair the graph does not connect (disconnected components)
    keeps its input distance ``R``, as R smallvis's ``geodesic`` fills it,
    with a warning;
    without ``R`` (a kNN graph given alone) it takes the largest geodesic
    distance, with a warning.
    """
    n, k = nearest.shape
    rows = np.repeat(np.arange(n), k)
    graph = sp.csr_matrix((np.ravel(lengths), (rows, np.asarray(nearest).ravel())),
                          shape=(n, n))
    G = shortest_path(graph, method="D", directed=False)
    missing = ~np.isfinite(G)
    if missing.any():
        n_parts = connected_components(graph, directed=False)[0]
        if R is None:  # no data: the components as far apart as the farthest path
            warnings.warn(f"the {k}-NN graph has {n_parts} connected components and no data "
                          "give the distances between them: those pairs take the largest "
                          "geodesic distance (raise n_neighbors, or pass X)", RuntimeWarning,
                          stacklevel=4)
            G[missing] = np.max(G[~missing])
            return G
        warnings.warn(f"the {k}-NN graph has {n_parts} connected components: the pairs it "
                      "does not connect keep their input distance (as R smallvis fills them), "
                      "which can be shorter than the paths inside a component, so the "
                      "components may overlap in the map; raise n_neighbors until the graph "
                      "is connected, or map the input distances themselves (mmds)",
                      RuntimeWarning, stacklevel=4)
        G[missing] = R[missing]
    return G


def _geodesic_and_unit(X, n_neighbors, knn_method, knn, n_trees, metric, kernels=None,
                       random_state=None, n_threads=1):
    """``(G, unit)``: the geodesics of ``X`` in units of ``2**unit`` (exact), no overflow.

    The neighbours come from the package's search, the edge lengths from
    the distances of every pair (:func:`_all_distances`), so that both are
    in one unit.  A given ``knn`` (or a kNN graph alone, ``X`` without
    columns) brings its own lengths, as it does to every kNN method: the
    distances of ``X`` then fill only the pairs the graph does not connect.
    """
    n_neighbors = aff.check_knn_graph_neighbors(n_neighbors, X.shape[0])
    nearest, lengths = aff._knn(X, n_neighbors, knn, knn_method, random_state, n_threads,
                                n_trees=n_trees, kernels=kernels, metric=metric)
    nearest = np.asarray(nearest[:, :n_neighbors], dtype=np.int64)
    if X.shape[1] == 0:
        lengths = np.asarray(lengths[:, :n_neighbors], dtype=np.float64)
        unit = power_of_two_exponent(lengths)
        R, lengths = None, np.ldexp(lengths, -unit)
    else:
        R = _all_distances(X, metric, kernels if kernels is not None else select_kernels(False))
        if knn is None:
            unit = power_of_two_exponent(R)
            R = np.ldexp(R, -unit)
            lengths = R[np.arange(X.shape[0])[:, None], nearest]
        else:  # one power of two for both, so that neither over- nor underflows
            lengths = np.asarray(lengths[:, :n_neighbors], dtype=np.float64)
            unit = max(power_of_two_exponent(R), power_of_two_exponent(lengths))
            R, lengths = np.ldexp(R, -unit), np.ldexp(lengths, -unit)
    return _geodesic(R, nearest, lengths), unit


def geodesic_distances(X, kernels, random_state, n_threads, n_neighbors, knn_method, knn,
                       n_trees, metric):
    r"""Geodesic distances between all rows of ``X`` (:data:`GEODESIC_DISTANCES`).

    Shortest paths (Dijkstra, :func:`scipy.sparse.csgraph.shortest_path`)
    on the symmetric graph of each row's ``n_neighbors`` nearest others
    (the package's neighbour search, as the other kNN methods'), its edges
    weighted by the distances of ``metric``, as Isomap's (Tenenbaum et al.
    2000) and R smallvis's ``geodesic``; see :func:`_geodesic` for pairs
    the graph does not connect.  In the data's units, as
    :func:`input_distances`.
    """
    _check_dense_size(X.shape[0])
    metric = check_metric(metric)
    G, unit = _geodesic_and_unit(X, n_neighbors, knn_method, knn, n_trees, metric, kernels,
                                 random_state, n_threads)
    return _warn_if_all_zero(np.ldexp(G, unit))


def geodesic_distances_to(X, X_new, n_neighbors, metric, knn_method="auto", knn=None,
                          n_trees=None):
    r"""New points' geodesic distances to every row of ``X``, in the data's units.

    .. math::

        g_{sj} = \min_{k \in N(s)} \bigl(\delta_{sk} + g_{kj}\bigr),

    over the new point's ``n_neighbors`` nearest training points :math:`N(s)`
    (by the direct distances, ties to the lower index) and the training
    geodesics :math:`g`, rebuilt with the fit's parameters (an Annoy
    search, above :data:`smallvis.inputs.neighbors.EXACT_MAX_N` points, is
    seeded with 0): the path enters the training graph at a neighbour.
    """
    metric = check_metric(metric)
    G, unit = _geodesic_and_unit(X, n_neighbors, knn_method, knn, n_trees, metric,
                                 random_state=0)
    direct = np.ldexp(_distances_to(X, X_new, metric), -unit)
    k = min(int(n_neighbors), X.shape[0])
    nearest = np.argsort(direct, axis=1, kind="stable")[:, :k]
    rows = np.empty_like(direct)
    for s in range(direct.shape[0]):
        rows[s] = np.min(direct[s, nearest[s], None] + G[nearest[s]], axis=0)
    return np.ldexp(rows, unit)


#: Geodesic input distances (Tenenbaum et al. 2000): shortest paths on
#: the symmetric kNN graph, in the data's units (:func:`geodesic_distances`).
GEODESIC_DISTANCES = AffinityFamily(
    "geodesic distances", normalised="", knn_graph=False,
    distances_to=geodesic_distances_to, units="equivariant",
    title="Geodesic distances: stress along the data",
    description="The lengths of the shortest paths on the graph of nearest neighbours "
                "(Tenenbaum, de Silva and Langford's Isomap): distances measured along the "
                "data rather than across it, in the data's units, compared with the "
                "distances of the map by a stress.")


#: Affinity builders that always calibrate over all pairs.
DENSE_ONLY = (conditional_affinities, joint_affinities, symmetrised_rows_affinities,
              conditional_affinities_and_bandwidths, joint_affinities_and_bandwidths,
              conditional_affinities_over_pairs, gaussian_weights_affinities,
              joint_affinities_and_degrees,
              joint_affinities_and_distance_weights, joint_affinities_and_global_affinities,
              input_distances, geodesic_distances, knn_neighbour_distances,
              ball_neighbour_distances)

#: Affinity builders that calibrate over nearest neighbours at any size.
KNN_ONLY = (joint_knn_affinities, fuzzy_graph_affinities, normalised_fuzzy_graph_affinities,
            knn_graph_affinities)


# ---------------------------------------------------------------------------
# the testing kit's P (smallvis.testing.make_case)
# ---------------------------------------------------------------------------


def conditional_case(name):
    """Method ``name``'s conditional P; its kNN variant keeps each row's largest entries."""
    def case_affinities(X, n_neighbors, perplexity, affinities):
        C = affinities(X, name, perplexity=perplexity)
        if n_neighbors is None:
            return np.asarray(C, dtype=np.float64)
        keep = np.argsort(-C, axis=1)[:, :n_neighbors]
        S = np.zeros_like(C)
        rows = np.arange(X.shape[0])[:, None]
        S[rows, keep] = C[rows, keep]
        return S / S.sum(axis=1, keepdims=True)
    return case_affinities


def pairs_case(name):
    """Method ``name``'s ``P`` over all pairs; its kNN variant keeps each row's largest entries.

    The kept entries are divided by their grand sum, so that each row keeps
    its share of the mass (a ``P`` over all pairs that is not symmetric).
    """
    def case_affinities(X, n_neighbors, perplexity, affinities):
        P = np.asarray(affinities(X, name, perplexity=perplexity), dtype=np.float64)
        if n_neighbors is None:
            return P
        keep = np.argsort(-P, axis=1)[:, :n_neighbors]
        S = np.zeros_like(P)
        rows = np.arange(X.shape[0])[:, None]
        S[rows, keep] = P[rows, keep]
        return S / S.sum()
    return case_affinities


def joint_case(dense, knn):
    """The dense joint P of method ``dense``; its kNN variant method ``knn``'s kNN P.

    ``knn`` is a method whose builder is :func:`joint_affinities_dense_or_knn`.
    """
    def case_affinities(X, n_neighbors, perplexity, affinities):
        if n_neighbors is None:
            return np.asarray(affinities(X, dense, perplexity=perplexity), dtype=np.float64)
        P = affinities(X, knn, perplexity=min(perplexity, n_neighbors / 3.0),
                       n_neighbors=n_neighbors, knn_method="exact")
        return np.ascontiguousarray(P.toarray())
    return case_affinities


def symmetrised_rows_case(dense, knn):
    """The row-normalised joint P of method ``dense``; its kNN variant method ``knn``'s kNN P.

    ``knn`` is a method whose builder is :func:`joint_affinities_dense_or_knn`;
    its symmetric kNN P has each row divided by its sum.
    """
    def case_affinities(X, n_neighbors, perplexity, affinities):
        if n_neighbors is None:
            return np.asarray(affinities(X, dense, perplexity=perplexity), dtype=np.float64)
        P = affinities(X, knn, perplexity=min(perplexity, n_neighbors / 3.0),
                       n_neighbors=n_neighbors, knn_method="exact").toarray()
        return np.ascontiguousarray(P / P.sum(axis=1, keepdims=True))
    return case_affinities


def distances_case(name):
    """Method ``name``'s input distances over all pairs (a kNN variant is not theirs)."""
    def case_affinities(X, n_neighbors, perplexity, affinities):
        return np.ascontiguousarray(affinities(X, name), dtype=np.float64)
    return case_affinities


def graph_case(name, size):
    """Method ``name``'s own kNN graph over all other points or ``n_neighbors`` of them.

    ``size`` is the :class:`~smallvis.method_spec.SizedParam` of its
    ``n_neighbors``.
    """
    def case_affinities(X, n_neighbors, perplexity, affinities):
        n = X.shape[0]
        # a graph whose n_neighbors counts the point itself has the limit n, not n - 1
        k = size.limit(n) if n_neighbors is None else n_neighbors + size.limit(n) - (n - 1)
        P = affinities(X, name, n_neighbors=k, knn_method="exact")
        return np.ascontiguousarray(P.toarray())
    return case_affinities


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
    """What the kNN perplexity builders refuse, computing nothing."""
    k = aff.check_perplexity_neighbors(perplexity, n_neighbors, n_samples, knn)
    _check_search(n_samples, k, knn_method, knn, n_trees, metric)


def check_fuzzy_graph(n_samples, n_neighbors, local_connectivity, bandwidth,
                      set_op_mix_ratio, knn_method="auto", knn=None, n_trees=None,
                      metric="euclidean"):
    """What :func:`smallvis.inputs.affinities.fuzzy_graph` refuses, computing nothing."""
    k = aff.check_fuzzy_graph_params(n_samples, n_neighbors, local_connectivity, bandwidth,
                                    set_op_mix_ratio)[0] - 1  # the point itself counted
    _check_search(n_samples, k, knn_method, knn, n_trees, metric)


def check_knn_graph(n_samples, n_neighbors, knn_method="auto", knn=None, n_trees=None,
                    metric="euclidean"):
    """What :func:`smallvis.inputs.affinities.symmetric_knn_graph` refuses, computing nothing."""
    k = aff.check_knn_graph_neighbors(n_neighbors, n_samples)
    _check_search(n_samples, k, knn_method, knn, n_trees, metric)
