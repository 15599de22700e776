"""rklsne's registry entry: t-SNE's joint P, the Cauchy Q over all pairs, the reverse KL divergence."""

from ..._validation import ParameterError, check_number
from ...families import JOINT, PERPLEXITY_SIZE, joint_affinities, joint_case
from ...method_spec import Method, unfloored_auto_learning_rate
from .unit import R_P_FLOOR, RKLSNEUnit


def check_p_floor(p_floor):
    """``p_floor``: a positive finite real number (the reverse KL divergence is infinite at p = 0)."""
    p_floor = check_number(p_floor, "p_floor")
    if not p_floor > 0.0:
        raise ParameterError(
            f"p_floor must be positive (the floor of P in the reverse KL divergence "
            f"q log(q / max(p, p_floor)), infinite at p = 0); got {p_floor!r}", ("p_floor",))
    return p_floor


def resolve_cost(p_floor=R_P_FLOOR):
    """The kernel prefix and its argument: ``("rklsne", (p_floor,))``."""
    return "rklsne", (check_p_floor(p_floor),)


METHOD = Method(
    name="rklsne",
    summary="reverse-KL SNE: joint Gaussian P, Student-t (Cauchy) Q, KL(Q||P) with P floored",
    prefix="rklsne",
    build_affinities=joint_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"p_floor": R_P_FLOOR},
    resolve_cost=resolve_cost,
    # R smallvis's exaggeration (none): the reverse divergence's attraction
    # is not t-SNE's sum of p, which exaggeration multiplies.  The spectral
    # start of P's graph: from scaled PCA, points whose neighbours the
    # floored P cannot tell apart stay between classes (docs/experiments.md)
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spectral"},
    auto_learning_rate=unfloored_auto_learning_rate,
    p_family=JOINT,
    normalised_units={"rklsne": RKLSNEUnit},
    case_affinities=joint_case("rklsne", "tsne"),
    # R smallvis's floor (the golden case), then a floor that many pairs reach
    examples=({"p_floor": R_P_FLOOR}, {"p_floor": 1e-6}),
)
