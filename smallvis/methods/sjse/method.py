"""sjse's registry entry: ssne's joint P, the Gaussian Q over all pairs, JSE's mixture cost."""

from ...families import JOINT, PERPLEXITY_SIZE, joint_affinities, joint_case
from ...method_spec import Method, gaussian_auto_learning_rate
from ..jse.method import check_kappa
from .unit import SJSEUnit


def resolve_cost(kappa=0.5):
    """The kernel prefix and its argument: ``("sjse", (kappa,))``."""
    return "sjse", (check_kappa(kappa),)


METHOD = Method(
    name="sjse",
    summary="symmetric JSE: joint Gaussian P and Q, a mixture of KL(P||Z) and KL(Q||Z)",
    prefix="sjse",
    build_affinities=joint_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"kappa": 0.5},
    resolve_cost=resolve_cost,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=gaussian_auto_learning_rate,
    p_family=JOINT,
    normalised_units={"sjse": SJSEUnit},
    case_affinities=joint_case("sjse", "tsne"),
    examples=({"kappa": 0.5}, {"kappa": 0.1}, {"kappa": 0.9}),
)
