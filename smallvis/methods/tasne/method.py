"""tasne's registry entry: asne's conditional P, the Cauchy Q per row, KL per row."""

from ...families import CONDITIONAL, PERPLEXITY_SIZE, conditional_affinities, conditional_case
from ...method_spec import Method, joint_auto_learning_rate
from .unit import TASNEUnit


def auto_learning_rate(n_samples, exaggeration):
    """t-SNE's rule divided by N: the conditional ``P`` sums to N, not 1.

    The heavy-tailed weight softens the attraction as it does for t-SNE,
    so the joint rule (not the Gaussian one that asne takes) sets the step.
    """
    return joint_auto_learning_rate(n_samples, exaggeration) / n_samples


METHOD = Method(
    name="tasne",
    summary="t-ASNE: conditional Gaussian P, Student-t (Cauchy) Q per row, KL per row",
    prefix="tasne",
    build_affinities=conditional_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    symmetric=False,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=auto_learning_rate,
    p_family=CONDITIONAL,
    normalised_units={"tasne": TASNEUnit},
    constant_term="entropy",
    case_affinities=conditional_case("tasne"),
    factor_4_convention=False,
    examples=({},),
)
