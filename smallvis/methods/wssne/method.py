"""wssne's registry entry: the joint P and its degrees, the Gaussian Q weighted by them over all pairs."""

from ...families import JOINT, PERPLEXITY_SIZE, joint_affinities_and_degrees, joint_case
from ...method_spec import FROM_INPUT, Method, gaussian_auto_learning_rate
from ..wtsne.method import check_importance
from .unit import WSSNEUnit


def resolve_cost(importance=FROM_INPUT):
    """The kernel prefix and its argument: ``("wssne", (importance,))``.

    ``"input"`` left here (a ``P`` given as it is) stands for the degrees of
    the ``P`` the engine is given (:data:`smallvis.methods._common.DEGREES_OF_P`).
    """
    return "wssne", (check_importance(importance),)


METHOD = Method(
    name="wssne",
    summary="weighted symmetric SNE: joint Gaussian P, Gaussian Q times the degrees m_i m_j, "
            "KL(P||Q)",
    prefix="wssne",
    build_affinities=joint_affinities_and_degrees,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"importance": FROM_INPUT},
    resolve_cost=resolve_cost,
    input_params=("importance",),
    pair_inputs=("importance",),
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=gaussian_auto_learning_rate,
    p_family=JOINT,
    normalised_units={"wssne": WSSNEUnit},
    case_affinities=joint_case("ssne", "tsne"),
    constant_term="entropy",
    examples=({"importance": FROM_INPUT}, {"importance": 1.0}),
)
