"""btsne's registry entry: t-SNE's joint P, the Cauchy Q over all pairs of each row's precision."""

from ...families import JOINT, PERPLEXITY_SIZE, joint_affinities_and_bandwidths, joint_case
from ...method_spec import FROM_INPUT, Method, unfloored_auto_learning_rate
from ..basne.method import check_bandwidth
from .unit import BTSNEUnit


def resolve_cost(bandwidth=FROM_INPUT):
    """The kernel prefix and its argument: ``("btsne", (bandwidth,))``."""
    return "btsne", (check_bandwidth(bandwidth),)


METHOD = Method(
    name="btsne",
    summary="bandwidth t-SNE: joint Gaussian P, Cauchy Q of each row's precision, KL(P||Q)",
    prefix="btsne",
    build_affinities=joint_affinities_and_bandwidths,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"bandwidth": FROM_INPUT},
    resolve_cost=resolve_cost,
    input_params=("bandwidth",),
    # R smallvis's exaggeration (none): under t-SNE's 12 the short runs on
    # small data spread within a few steps and the twins' runs part
    # (docs/experiments.md, 2026-12-02)
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=unfloored_auto_learning_rate,
    p_family=JOINT,
    normalised_units={"btsne": BTSNEUnit},
    case_affinities=joint_case("btsne", "tsne"),
    constant_term="entropy",
    examples=({"bandwidth": 0.5}, {"bandwidth": 1.0}, {"bandwidth": 2.0}),
)
