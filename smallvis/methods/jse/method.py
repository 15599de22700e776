"""jse's registry entry: asne's conditional P, the Gaussian Q per row, JSE's mixture cost."""

from ..._validation import ParameterError, check_number
from ...families import CONDITIONAL, PERPLEXITY_SIZE, conditional_affinities, conditional_case
from ...method_spec import Method, conditional_auto_learning_rate
from .unit import JSEUnit


def check_kappa(kappa):
    """``kappa``: a real number strictly between 0 and 1 (the mixture needs both parts)."""
    kappa = check_number(kappa, "kappa")
    if not 0.0 < kappa < 1.0:
        raise ParameterError(
            f"kappa must be strictly between 0 and 1 (the weight of P in the mixture "
            f"kappa P + (1 - kappa) Q); got {kappa!r}", ("kappa",))
    return kappa


def resolve_cost(kappa=0.5):
    """The kernel prefix and its argument: ``("jse", (kappa,))``."""
    return "jse", (check_kappa(kappa),)


METHOD = Method(
    name="jse",
    summary="JSE: conditional Gaussian P and Q, a per-row mixture of KL(P||Z) and KL(Q||Z)",
    prefix="jse",
    build_affinities=conditional_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"kappa": 0.5},
    resolve_cost=resolve_cost,
    symmetric=False,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=conditional_auto_learning_rate,
    p_family=CONDITIONAL,
    normalised_units={"jse": JSEUnit},
    case_affinities=conditional_case("jse"),
    factor_4_convention=False,
    examples=({"kappa": 0.5}, {"kappa": 0.1}, {"kappa": 0.9}),
)
