"""nerv's registry entry: the conditional P, asne's Gaussian Q per row, NeRV's mixed divergence."""

from ..._validation import ParameterError, check_number
from ...families import CONDITIONAL, PERPLEXITY_SIZE, conditional_affinities, conditional_case
from ...method_spec import Method, conditional_auto_learning_rate
from ..rklsne.method import check_p_floor
from ..rklsne.unit import R_P_FLOOR
from .unit import DEFAULT_LAM, NERVUnit


def check_lam(lam):
    """``lam``: the forward divergence's weight, a real number in [0, 1]."""
    lam = check_number(lam, "lam")
    if not 0.0 <= lam <= 1.0:
        raise ParameterError(
            f"lam must lie in [0, 1] (the weight of KL(P||Q) against KL(Q||P)); got {lam!r}",
            ("lam",))
    return lam


def resolve_cost(lam=DEFAULT_LAM, p_floor=R_P_FLOOR):
    """The kernel prefix and its arguments: ``("nerv", (lam, p_floor))``."""
    return "nerv", (check_lam(lam), check_p_floor(p_floor))


METHOD = Method(
    name="nerv",
    summary="NeRV: conditional Gaussian P and Q per row, lam KL(P||Q) + (1 - lam) KL(Q||P)",
    prefix="nerv",
    build_affinities=conditional_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"lam": DEFAULT_LAM, "p_floor": R_P_FLOOR},
    resolve_cost=resolve_cost,
    symmetric=False,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=conditional_auto_learning_rate,
    p_family=CONDITIONAL,
    normalised_units={"nerv": NERVUnit},
    placed_with_column=True,
    case_affinities=conditional_case("nerv"),
    factor_4_convention=False,
    # R smallvis's defaults (the golden case), an even mixture with a floor
    # that many pairs reach, and asne's limit
    examples=({"lam": DEFAULT_LAM, "p_floor": R_P_FLOOR}, {"lam": 0.5, "p_floor": 1e-6},
              {"lam": 1.0, "p_floor": R_P_FLOOR}),
)
