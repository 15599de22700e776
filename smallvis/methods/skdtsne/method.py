"""skdtsne's registry entry: UMAP's fuzzy graph normalised, t-SNE's Cauchy Q and KL divergence."""

from ...families import (FUZZY_GRAPH_PARAMS, FUZZY_GRAPH_SIZE, NORMALISED_FUZZY,
                         check_fuzzy_graph, graph_case, normalised_fuzzy_graph_affinities)
from ...method_spec import Method, unfloored_auto_learning_rate
from .unit import SKDTSNEUnit

METHOD = Method(
    name="skdtsne",
    summary="SKD t-SNE: fuzzy kNN graph normalised to sum 1, Student-t (Cauchy) Q, KL(P||Q)",
    prefix="skdtsne",
    build_affinities=normalised_fuzzy_graph_affinities,
    affinity_params=FUZZY_GRAPH_PARAMS,
    sized_params={"n_neighbors": FUZZY_GRAPH_SIZE},
    check_affinity_params=check_fuzzy_graph,
    # R smallvis's exaggeration (none; docs/experiments.md, 2026-12-02)
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=unfloored_auto_learning_rate,
    p_family=NORMALISED_FUZZY,
    normalised_units={"skdtsne": SKDTSNEUnit},
    constant_term="entropy",
    case_affinities=graph_case("skdtsne", FUZZY_GRAPH_SIZE),
    known_mistakes=("gaussian_output_kernel", "unsquared_repulsion", "row_normalised_q",
                    "unnormalised_q", "z_with_diagonal"),
    examples=({},),
)
