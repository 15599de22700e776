"""gmmds's registry entry: geodesic input distances and mmds's raw stress."""

from ...families import (GEODESIC_DISTANCES, KNN_DEFAULTS, KNN_GRAPH_SIZE, check_knn_graph,
                         distances_case, geodesic_distances)
from ...method_spec import Method
from ..mmds.method import STRESS_OPTIMIZER, stress_auto_learning_rate
from .unit import GMMDSUnit

METHOD = Method(
    name="gmmds",
    summary="geodesic MDS: shortest paths on the kNN graph, raw stress over all pairs",
    prefix="gmmds",
    build_affinities=geodesic_distances,
    # R smallvis's k is its perplexity argument (default 30); 15 keeps the
    # geodesics of the s1k clusters and the swiss roll where 30 starts to
    # short-cut them (docs/experiments.md, 2026-12-02)
    affinity_params={"n_neighbors": 15, **KNN_DEFAULTS},
    sized_params={"n_neighbors": KNN_GRAPH_SIZE},
    check_affinity_params=check_knn_graph,
    optimizer_defaults=STRESS_OPTIMIZER,
    auto_learning_rate=stress_auto_learning_rate,
    p_family=GEODESIC_DISTANCES,
    pair_units={GMMDSUnit.kernel: GMMDSUnit},
    case_affinities=distances_case("gmmds"),
    examples=({},),
)
