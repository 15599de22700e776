"""bssne's registry entry: ssne's joint P, the Gaussian Q over all pairs of each row's precision."""

from ...families import JOINT, PERPLEXITY_SIZE, joint_affinities_and_bandwidths, joint_case
from ...method_spec import FROM_INPUT, Method, gaussian_auto_learning_rate
from ..basne.method import check_bandwidth
from .unit import BSSNEUnit


def resolve_cost(bandwidth=FROM_INPUT):
    """The kernel prefix and its argument: ``("bssne", (bandwidth,))``."""
    return "bssne", (check_bandwidth(bandwidth),)


METHOD = Method(
    name="bssne",
    summary="bandwidth ssne: joint Gaussian P, Gaussian Q of each row's precision, KL(P||Q)",
    prefix="bssne",
    build_affinities=joint_affinities_and_bandwidths,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"bandwidth": FROM_INPUT},
    resolve_cost=resolve_cost,
    input_params=("bandwidth",),
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=gaussian_auto_learning_rate,
    p_family=JOINT,
    normalised_units={"bssne": BSSNEUnit},
    case_affinities=joint_case("bssne", "tsne"),
    constant_term="entropy",
    examples=({"bandwidth": 0.5}, {"bandwidth": 1.0}, {"bandwidth": 2.0}),
)
