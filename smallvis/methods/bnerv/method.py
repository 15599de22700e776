"""bnerv's registry entry: the conditional P, nerv's Q per row with each row's input precision."""

from ...families import (CONDITIONAL, PERPLEXITY_SIZE, conditional_affinities_and_bandwidths,
                         conditional_case)
from ...method_spec import FROM_INPUT, Method, conditional_auto_learning_rate
from ..basne.method import check_bandwidth
from ..nerv.method import resolve_cost as nerv_resolve_cost
from ..nerv.unit import DEFAULT_LAM
from ..rklsne.unit import R_P_FLOOR
from .unit import BNERVUnit


def resolve_cost(lam=DEFAULT_LAM, p_floor=R_P_FLOOR, bandwidth=FROM_INPUT):
    """The kernel prefix and its arguments: ``("bnerv", (lam, p_floor, bandwidth))``.

    ``"input"`` (not yet taken from the calibration) is passed on as it is.
    """
    return "bnerv", nerv_resolve_cost(lam, p_floor)[1] + (check_bandwidth(bandwidth),)


METHOD = Method(
    name="bnerv",
    summary="bandwidth NeRV: conditional Gaussian P and Q per row, each row's Q of its P's "
            "precision, lam KL(P||Q) + (1 - lam) KL(Q||P)",
    prefix="bnerv",
    build_affinities=conditional_affinities_and_bandwidths,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"lam": DEFAULT_LAM, "p_floor": R_P_FLOOR, "bandwidth": FROM_INPUT},
    resolve_cost=resolve_cost,
    input_params=("bandwidth",),
    symmetric=False,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=conditional_auto_learning_rate,
    p_family=CONDITIONAL,
    normalised_units={"bnerv": BNERVUnit},
    # over its row and column: its training points land 0.27 spacings from
    # their fitted places, 0.51 over the row alone (docs/experiments.md,
    # 2026-12-03, "snerv and bnerv")
    placed_with_column=True,
    case_affinities=conditional_case("bnerv"),
    factor_4_convention=False,
    # R smallvis's lam and floor (the golden case) at a narrower and a wider
    # kernel than nerv's, and an even mixture with a floor many pairs reach
    examples=({"lam": DEFAULT_LAM, "p_floor": R_P_FLOOR, "bandwidth": 0.5},
              {"lam": DEFAULT_LAM, "p_floor": R_P_FLOOR, "bandwidth": 2.0},
              {"lam": 0.5, "p_floor": 1e-6, "bandwidth": 1.0}),
)
