"""rsrjse's registry entry: the row-normalised symmetrised P, jse's Q per row and mixture cost."""

from ...families import (PERPLEXITY_SIZE, SYMMETRISED_ROWS, symmetrised_rows_affinities,
                         symmetrised_rows_case)
from ...method_spec import Method, conditional_auto_learning_rate
from ..jse.method import check_kappa
from .unit import RSRJSEUnit


def resolve_cost(kappa=0.5):
    """The kernel prefix and its argument: ``("rsrjse", (kappa,))``."""
    return "rsrjse", (check_kappa(kappa),)


METHOD = Method(
    name="rsrjse",
    summary="JSE on row-normalised symmetrised P: Gaussian Q per row, "
            "a per-row mixture of KL(P||Z) and KL(Q||Z)",
    prefix="rsrjse",
    build_affinities=symmetrised_rows_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"kappa": 0.5},
    resolve_cost=resolve_cost,
    symmetric=False,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=conditional_auto_learning_rate,
    p_family=SYMMETRISED_ROWS,
    normalised_units={"rsrjse": RSRJSEUnit},
    placed_with_column=True,
    case_affinities=symmetrised_rows_case("rsrjse", "tsne"),
    factor_4_convention=False,
    examples=({"kappa": 0.5}, {"kappa": 0.1}),
)
