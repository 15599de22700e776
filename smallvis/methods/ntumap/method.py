"""ntumap's registry entry: UMAP's fuzzy graph normalised, the Cauchy Q over all pairs, the cross-entropy."""

from ...families import (FUZZY_GRAPH_PARAMS, FUZZY_GRAPH_SIZE, NORMALISED_FUZZY,
                         check_fuzzy_graph, graph_case, normalised_fuzzy_graph_affinities)
from ...method_spec import Confusion, Method, unfloored_auto_learning_rate
from .unit import NTUMAPUnit

METHOD = Method(
    name="ntumap",
    summary="normalised t-UMAP: fuzzy kNN graph and Cauchy weights, each normalised to "
            "sum 1, fuzzy-set cross-entropy",
    prefix="ntumap",
    build_affinities=normalised_fuzzy_graph_affinities,
    affinity_params=FUZZY_GRAPH_PARAMS,
    sized_params={"n_neighbors": FUZZY_GRAPH_SIZE},
    check_affinity_params=check_fuzzy_graph,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=unfloored_auto_learning_rate,
    p_family=NORMALISED_FUZZY,
    normalised_units={"ntumap": NTUMAPUnit},
    constant_term="memberships",
    # the cross-entropy is not scale-free: a new row of P takes the mass of
    # its own row of q
    normalised_new_rows=True,
    case_affinities=graph_case("ntumap", FUZZY_GRAPH_SIZE),
    known_mistakes=(
        Confusion("tumap", "t-UMAP's weights w themselves instead of q = w / sum(w) "
                           "normalised over all pairs"),
        Confusion("tsne", "the KL divergence of t-SNE, without the cross-entropy's "
                          "(1 - p) log((1 - p) / (1 - q)) terms"),
    ),
    examples=({},),
)
