"""btasne's registry entry: asne's conditional P, a per-row Cauchy Q of each row's precision."""

from ...families import (CONDITIONAL, PERPLEXITY_SIZE, conditional_affinities_and_bandwidths,
                         conditional_case)
from ...method_spec import FROM_INPUT, Method, conditional_auto_learning_rate
from ..basne.method import check_bandwidth
from .unit import BTASNEUnit


def resolve_cost(bandwidth=FROM_INPUT):
    """The kernel prefix and its argument: ``("btasne", (bandwidth,))``."""
    return "btasne", (check_bandwidth(bandwidth),)


METHOD = Method(
    name="btasne",
    summary="bandwidth t-asne: conditional Gaussian P, per-row Cauchy Q of each row's precision",
    prefix="btasne",
    build_affinities=conditional_affinities_and_bandwidths,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"bandwidth": FROM_INPUT},
    resolve_cost=resolve_cost,
    input_params=("bandwidth",),
    symmetric=False,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=conditional_auto_learning_rate,
    p_family=CONDITIONAL,
    normalised_units={"btasne": BTASNEUnit},
    case_affinities=conditional_case("btasne"),
    constant_term="entropy",
    factor_4_convention=False,
    examples=({"bandwidth": 0.5}, {"bandwidth": 1.0}, {"bandwidth": 2.0}),
)
