"""umap's registry entry: the fuzzy graph, the fitted curve and umap-learn's stochastic loop.

tumap's entry shares the fuzzy-graph settings (:data:`FUZZY_METHOD`) and
the stochastic loop (:data:`SGD`); ncvis shares the fitted curve
(:func:`smallvis.output_curve.output_curve`).
"""

from ...engines.sgd import SgdSpec
from ...families import (FUZZY, FUZZY_GRAPH_PARAMS, FUZZY_GRAPH_SIZE, check_fuzzy_graph,
                         fuzzy_graph_affinities, graph_case)
from ...method_spec import (SGD_ANNOY_TREES, Confusion, Method, eps_smooths,
                            fuzzy_auto_learning_rate)
from ...output_curve import output_curve
from ..._validation import check_number
from .unit import UMAPUnit


def resolve_cost(a, b, spread, min_dist, eps):
    a, b = output_curve(a, b, spread, min_dist)
    return "umap", (a, b, check_number(eps, "eps", low=0))


def n_epochs(n_samples):
    """umap-learn's default: 500 epochs up to 10,000 points, 200 above."""
    return 500 if n_samples <= 10_000 else 200


#: umap-learn's repulsion strength (its ``repulsion_strength`` default).
SGD_GAMMA = 1.0


def sgd_params(a, b, spread, min_dist, eps):
    a, b = output_curve(a, b, spread, min_dist)
    return {"a": a, "b": b, "gamma": SGD_GAMMA, "eps": check_number(eps, "eps", low=0)}


#: ``optimizer="auto"`` runs the stochastic form above this many points
#: (umap and tumap).  The exact optimizer minimises the cross-entropy over
#: every pair, whose repulsion is far stronger than that of umap-learn's
#: sampled loop; above about a thousand points its maps break classes into
#: islands and throw points out, where the sampled maps are umap-learn's.
#: On fewer points the exact one scores as high or higher (the panel:
#: docs/experiments.md, 2026-12-06).
FUZZY_AUTO_SGD_MIN_N = 1000

#: ``optimizer="auto"`` runs the stochastic form for one-dimensional maps
#: above this many points: there the exact optimizer left digits at a 10-NN
#: accuracy of 0.11 (the stochastic form: 0.98), and from 20 points on
#: the stochastic form scored higher on subsets of iris and digits; on 5
#: and 10 points the exact one did (docs/experiments.md, 2026-12-06).
AUTO_SGD_MIN_N_LINE = 15

#: umap-learn's optimize_layout_euclidean (docs/theory.md §4.2), but for
#: the coefficient's parameters.
SGD = dict(coefficient="umap", scheme="epochs_per_sample", noise="uniform",
           n_epochs=n_epochs, n_negative=5, clip=4.0, learning_rate=1.0,
           init="spectral", param_defaults={"n_trees": SGD_ANNOY_TREES},
           auto_min_n=FUZZY_AUTO_SGD_MIN_N, auto_min_n_line=AUTO_SGD_MIN_N_LINE)

#: What umap and tumap share: the fuzzy graph, its validation and defaults.
FUZZY_METHOD = dict(
    build_affinities=fuzzy_graph_affinities,
    affinity_params=FUZZY_GRAPH_PARAMS,
    sized_params={"n_neighbors": FUZZY_GRAPH_SIZE},
    check_affinity_params=check_fuzzy_graph,
    fuzzy=True,
    p_family=FUZZY,
    constant_term="memberships",
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=fuzzy_auto_learning_rate,
)

METHOD = Method(
    name="umap",
    summary="UMAP: fuzzy kNN graph, 1/(1 + a d^2b) weights, fuzzy cross-entropy",
    prefix="umap",
    cost_params={"a": None, "b": None, "spread": 1.0, "min_dist": 0.1, "eps": 0.001},
    resolve_cost=resolve_cost,
    sgd=SgdSpec(unit_params=sgd_params, **SGD),
    **FUZZY_METHOD,
    pair_units={UMAPUnit.kernel: UMAPUnit},
    fitted_params=("a", "b"),
    fit_inputs=("spread", "min_dist"),
    exact_gradient=eps_smooths,
    case_affinities=graph_case("umap", FUZZY_GRAPH_SIZE),
    known_mistakes=(
        Confusion("tumap", "t-UMAP's output kernel (a = b = 1): a and b are not used"),
        "repulsion_without_1_minus_v",
    ),
)
