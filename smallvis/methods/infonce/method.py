"""infonce's registry entry: the kNN graph, ``m`` negatives and its stochastic form.

InfoNCE, "InfoNC-t-SNE" (Damrich, Böhm, Hamprecht & Kobak 2023;
docs/theory.md §3.11).
"""

from ...engines.sgd import SgdSpec
from ...families import (KNN_DEFAULTS, KNN_GRAPH, KNN_GRAPH_SIZE, check_knn_graph, graph_case,
                         knn_graph_affinities)
from ...method_spec import SGD_ANNOY_TREES, Method, unfloored_auto_learning_rate
from ..._validation import ParameterError, check_number
from ..umap.method import n_epochs

#: Largest ``negative_sample_rate`` of InfoNCE: the stochastic step holds a
#: sample's m negatives at once, and the exact cost's quadrature grows with
#: log(m + 1).
MAX_NEGATIVES = 1000
#: With the stochastic optimizer InfoNCE reports the exact cost of the final
#: ``Y`` up to this many points (about 0.6 s on one thread at 1,000 points:
#: the exact cost is O(N^2 T) with T ~ 200 quadrature nodes), a row-sampled
#: estimate above.
EXACT_COST_MAX_N = 1000


def _negatives(negative_sample_rate):
    """``m``: a whole number in [1, MAX_NEGATIVES], as a float."""
    m = float(check_number(negative_sample_rate, "negative_sample_rate", low=1,
                           high=MAX_NEGATIVES))
    if not m.is_integer():
        raise ParameterError(
            f"negative_sample_rate of infonce is the number of negatives drawn per "
            f"positive sample: a whole number in [1, {MAX_NEGATIVES}]; got "
            f"{negative_sample_rate!r}", ("negative_sample_rate",))
    return m


def resolve_cost(negative_sample_rate):
    return "infonce", (_negatives(negative_sample_rate),)


def sgd_params(negative_sample_rate):
    m = _negatives(negative_sample_rate)
    return {"m": m, "n_negative": m}


METHOD = Method(
    name="infonce",
    summary="InfoNC-t-SNE: InfoNCE with m negatives per positive sample, Cauchy weights",
    prefix="infonce",
    build_affinities=knn_graph_affinities,
    check_affinity_params=check_knn_graph,
    affinity_params={"n_neighbors": 15, **KNN_DEFAULTS},
    sized_params={"n_neighbors": KNN_GRAPH_SIZE},
    cost_params={"negative_sample_rate": 5.0},
    resolve_cost=resolve_cost,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=unfloored_auto_learning_rate,
    # every edge once per epoch (P is uniform over the edges: p_ij is the
    # edge's probability), m uniform negatives that move, one grouped step
    # per sample (§3.11); umap's epoch budget.  The exact gradient is
    # O(N^2 T): "auto" runs the stochastic form at every size
    sgd=SgdSpec(coefficient="infonce", scheme="every_edge", noise="uniform_others",
                n_epochs=n_epochs, unit_params=sgd_params,
                n_negative=5, clip=4.0, learning_rate=1.0, move_negatives=True,
                init="spectral", param_defaults={"n_trees": SGD_ANNOY_TREES},
                auto_min_n=0, exact_cost_max_n=EXACT_COST_MAX_N),
    p_family=KNN_GRAPH,
    case_affinities=graph_case("infonce", KNN_GRAPH_SIZE),
    factor_4_convention=False,
    # small m first: the tests enumerate every tuple of negatives
    examples=({"negative_sample_rate": 3.0}, {"negative_sample_rate": 1.0},
              {"negative_sample_rate": 2.0}),
)
