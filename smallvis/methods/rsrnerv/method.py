"""rsrnerv's registry entry: the row-normalised symmetrised P, nerv's Q per row and divergence."""

from ...families import (PERPLEXITY_SIZE, SYMMETRISED_ROWS, symmetrised_rows_affinities,
                         symmetrised_rows_case)
from ...method_spec import Method, conditional_auto_learning_rate
from ..nerv.method import resolve_cost as nerv_resolve_cost
from ..nerv.unit import DEFAULT_LAM
from ..rklsne.unit import R_P_FLOOR
from .unit import RSRNERVUnit


def resolve_cost(lam=DEFAULT_LAM, p_floor=R_P_FLOOR):
    """The kernel prefix and its arguments: ``("rsrnerv", (lam, p_floor))``."""
    return "rsrnerv", nerv_resolve_cost(lam, p_floor)[1]


METHOD = Method(
    name="rsrnerv",
    summary="NeRV on row-normalised symmetrised P: Gaussian Q per row, mixed KL per row",
    prefix="rsrnerv",
    build_affinities=symmetrised_rows_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"lam": DEFAULT_LAM, "p_floor": R_P_FLOOR},
    resolve_cost=resolve_cost,
    symmetric=False,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=conditional_auto_learning_rate,
    p_family=SYMMETRISED_ROWS,
    normalised_units={"rsrnerv": RSRNERVUnit},
    placed_with_column=True,
    case_affinities=symmetrised_rows_case("rsrnerv", "tsne"),
    factor_4_convention=False,
    examples=({"lam": DEFAULT_LAM, "p_floor": R_P_FLOOR}, {"lam": 0.5, "p_floor": 1e-6}),
)
