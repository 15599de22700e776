"""tmsne's registry entry: each row's Gaussian weights over their grand sum, t-SNE's Cauchy Q."""

from ...families import (GAUSSIAN_WEIGHTS_OVER_PAIRS, PERPLEXITY_SIZE,
                         gaussian_weights_affinities, pairs_case)
from ...method_spec import Method, unfloored_auto_learning_rate
from .unit import TMSNEUnit

METHOD = Method(
    name="tmsne",
    summary="t-M-SNE: each row's unnormalised Gaussian weights over their grand sum (not "
            "symmetrised), Cauchy Q over all pairs, KL(P||Q)",
    prefix="tmsne",
    build_affinities=gaussian_weights_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    symmetric=False,
    # R smallvis's exaggeration (none), as trmsne's
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=unfloored_auto_learning_rate,
    p_family=GAUSSIAN_WEIGHTS_OVER_PAIRS,
    normalised_units={"tmsne": TMSNEUnit},
    # over its row and column, against the fit's normaliser over all pairs:
    # training points land nearer than over the row alone (docs/experiments.md,
    # 2026-12-03, "tmsne held back")
    placed_with_column=True,
    case_affinities=pairs_case("tmsne"),
    constant_term="entropy",
    examples=({},),
)
