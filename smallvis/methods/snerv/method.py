"""snerv's registry entry: the joint P, the Gaussian Q over all pairs, NeRV's mixed divergence."""

from ...families import JOINT, PERPLEXITY_SIZE, joint_affinities, joint_case
from ...method_spec import Method, gaussian_auto_learning_rate
from ..nerv.method import resolve_cost as nerv_resolve_cost
from ..nerv.unit import DEFAULT_LAM
from ..rklsne.unit import R_P_FLOOR
from .unit import SNERVUnit


def resolve_cost(lam=DEFAULT_LAM, p_floor=R_P_FLOOR):
    """The kernel prefix and its arguments: ``("snerv", (lam, p_floor))``."""
    return "snerv", nerv_resolve_cost(lam, p_floor)[1]


METHOD = Method(
    name="snerv",
    summary="symmetric NeRV: joint Gaussian P and Q over all pairs, "
            "lam KL(P||Q) + (1 - lam) KL(Q||P)",
    prefix="snerv",
    build_affinities=joint_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"lam": DEFAULT_LAM, "p_floor": R_P_FLOOR},
    resolve_cost=resolve_cost,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=gaussian_auto_learning_rate,
    p_family=JOINT,
    normalised_units={"snerv": SNERVUnit},
    # over its own row normalised over itself a new point lands off its place
    # (docs/experiments.md, 2026-12-03, "snerv and bnerv")
    placed_with_column=True,
    case_affinities=joint_case("snerv", "tsne"),
    # R smallvis's defaults (the golden case), an even mixture with a floor
    # that many pairs reach, and ssne's limit
    examples=({"lam": DEFAULT_LAM, "p_floor": R_P_FLOOR}, {"lam": 0.5, "p_floor": 1e-6},
              {"lam": 1.0, "p_floor": R_P_FLOOR}),
)
