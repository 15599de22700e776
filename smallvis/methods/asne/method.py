"""asne's registry entry: a conditional P calibrated over all points, Q per row."""

from ...families import CONDITIONAL, PERPLEXITY_SIZE, conditional_affinities, conditional_case
from ...method_spec import Method, conditional_auto_learning_rate

METHOD = Method(
    name="asne",
    summary="asymmetric SNE: conditional Gaussian P and Q, KL per row",
    prefix="asne",
    build_affinities=conditional_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    symmetric=False,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=conditional_auto_learning_rate,
    p_family=CONDITIONAL,
    constant_term="entropy",
    case_affinities=conditional_case("asne"),
    factor_4_convention=False,
)
