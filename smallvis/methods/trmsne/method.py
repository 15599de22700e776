"""trmsne's registry entry: the conditional P over N, t-SNE's Cauchy Q over all pairs."""

from ...families import (CONDITIONAL_OVER_PAIRS, PERPLEXITY_SIZE,
                         conditional_affinities_over_pairs, pairs_case)
from ...method_spec import Method, unfloored_auto_learning_rate
from .unit import TRMSNEUnit

METHOD = Method(
    name="trmsne",
    summary="t-RM-SNE: conditional Gaussian P over N (not symmetrised), Cauchy Q over all "
            "pairs, KL(P||Q)",
    prefix="trmsne",
    build_affinities=conditional_affinities_over_pairs,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    symmetric=False,
    # R smallvis's exaggeration (none): under t-SNE's 12 the twins' short
    # runs part within 60 iterations, as t-SNE's own do (docs/experiments.md,
    # 2026-12-02)
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=unfloored_auto_learning_rate,
    p_family=CONDITIONAL_OVER_PAIRS,
    normalised_units={"trmsne": TRMSNEUnit},
    case_affinities=pairs_case("trmsne"),
    constant_term="entropy",
    examples=({},),
)
