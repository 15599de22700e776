"""arsrsne's registry entry: the row-normalised symmetrised P, asne's Q per row, KL per row."""

from ...families import (PERPLEXITY_SIZE, SYMMETRISED_ROWS, symmetrised_rows_affinities,
                         symmetrised_rows_case)
from ...method_spec import Method, conditional_auto_learning_rate
from .unit import ARSRSNEUnit

METHOD = Method(
    name="arsrsne",
    summary="asne on row-normalised symmetrised P: Gaussian Q per row, KL per row",
    prefix="arsrsne",
    build_affinities=symmetrised_rows_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    symmetric=False,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=conditional_auto_learning_rate,
    p_family=SYMMETRISED_ROWS,
    normalised_units={"arsrsne": ARSRSNEUnit},
    placed_with_column=True,
    case_affinities=symmetrised_rows_case("arsrsne", "tsne"),
    constant_term="entropy",
    factor_4_convention=False,
    examples=({},),
)
