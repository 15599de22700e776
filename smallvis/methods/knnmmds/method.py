"""knnmmds's registry entry: the input distances, a stress inside the kNN graph and a hinge outside it."""

from ...families import (KNN_GRAPH_SIZE, KNN_NEIGHBOURHOOD_DISTANCES, check_knn_neighbourhoods,
                         distances_case, knn_neighbour_distances)
from ...method_spec import FROM_INPUT, Method, check_pair_input
from ..mmds.method import STRESS_OPTIMIZER, stress_auto_learning_rate
from .unit import KNNMMDSAboveUnit, KNNMMDSBelowUnit, KNNMMDSUnit


def check_neighbour_distances(value):
    """``neighbour_distances``: ``"input"``, a non-negative finite number, or an N x N matrix (:func:`smallvis.method_spec.check_pair_input`)."""
    return check_pair_input(value, "neighbour_distances", positive=False)


def resolve_cost(neighbour_distances=FROM_INPUT):
    """The kernel prefix and its argument: ``("knnmmds", (neighbour_distances,))``."""
    return "knnmmds", (check_neighbour_distances(neighbour_distances),)


METHOD = Method(
    name="knnmmds",
    summary="kNN metric MDS: input distances, raw stress inside the symmetric kNN graph, "
            "a hinge (no cost when stretched) outside it",
    prefix="knnmmds",
    build_affinities=knn_neighbour_distances,
    # R smallvis's k is its perplexity argument, 30 by default
    # the search's knn_method and n_trees; no knn= (a kNN graph alone does not
    # carry the distances of the other pairs)
    affinity_params={"n_neighbors": 30, "knn_method": "auto", "n_trees": None,
                     "metric": "euclidean"},
    sized_params={"n_neighbors": KNN_GRAPH_SIZE},
    check_affinity_params=check_knn_neighbourhoods,
    cost_params={"neighbour_distances": FROM_INPUT},
    resolve_cost=resolve_cost,
    input_params=("neighbour_distances",),
    optimizer_defaults=STRESS_OPTIMIZER,
    auto_learning_rate=stress_auto_learning_rate,
    p_family=KNN_NEIGHBOURHOOD_DISTANCES,
    second_input_units={"knnmmds": KNNMMDSUnit},
    # the pair units its two parts run on the pair engine (KNNMMDSUnit.parts)
    pair_units={unit.kernel: unit for unit in (KNNMMDSBelowUnit, KNNMMDSAboveUnit)},
    case_affinities=distances_case("knnmmds"),
    factor_4_convention=True,
    examples=({},),
)
