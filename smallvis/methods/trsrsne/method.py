"""trsrsne's registry entry: the row-normalised symmetrised P, the Cauchy Q per row, KL per row."""

from ...families import (PERPLEXITY_SIZE, SYMMETRISED_ROWS, symmetrised_rows_affinities,
                         symmetrised_rows_case)
from ...method_spec import Method, joint_auto_learning_rate
from .unit import TRSRSNEUnit


def rows_auto_learning_rate(n_samples, exaggeration):
    """t-SNE's rule divided by N: each row of ``P`` sums to 1, so ``P`` sums to N, not 1."""
    return joint_auto_learning_rate(n_samples, exaggeration) / n_samples


METHOD = Method(
    name="trsrsne",
    summary="t-ASNE on row-normalised symmetrised P: Gaussian P, Student-t (Cauchy) Q per row, KL per row",
    prefix="trsrsne",
    build_affinities=symmetrised_rows_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    symmetric=False,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=rows_auto_learning_rate,
    p_family=SYMMETRISED_ROWS,
    normalised_units={"trsrsne": TRSRSNEUnit},
    constant_term="entropy",
    case_affinities=symmetrised_rows_case("trsrsne", "tsne"),
    factor_4_convention=False,
    examples=({},),
)
