"""absne's registry entry: t-SNE's joint P, the Cauchy Q over all pairs, the alpha-beta divergence."""

from ..._validation import ParameterError, check_number
from ...families import JOINT, PERPLEXITY_SIZE, joint_affinities, joint_case
from ...method_spec import Method, unfloored_auto_learning_rate
from .unit import ABSNEUnit


def check_alpha_beta(alpha, beta):
    """``alpha > 0`` and ``alpha + beta > 0``: the divergence is finite wherever ``p = 0``.

    With ``alpha <= 0`` the term ``p^alpha`` and with ``alpha + beta <= 0``
    the term ``p^(alpha + beta)`` (or ``log p``) is infinite at ``p = 0``,
    which a kNN ``P``, and an underflowed calibration, hold.
    """
    alpha = check_number(alpha, "alpha")
    beta = check_number(beta, "beta")
    if not alpha > 0.0:
        raise ParameterError(
            f"alpha must be positive (p^alpha is infinite where p = 0); got {alpha!r}",
            ("alpha",))
    if not alpha + beta > 0.0:
        raise ParameterError(
            f"alpha + beta must be positive (p^(alpha + beta) is infinite where p = 0), "
            f"that is beta > -alpha = {-alpha!r}; got beta={beta!r}", ("beta",))
    return alpha, beta


def resolve_cost(alpha=1.0, beta=0.0):
    """The kernel prefix and its arguments: ``("absne", (alpha, beta))``."""
    return "absne", check_alpha_beta(alpha, beta)


#: The tests' parameters: the first (the golden case) a general alpha-beta
#: divergence, then the KL divergence's branch (beta = 0) and a negative beta.
EXAMPLES = ({"alpha": 0.5, "beta": 0.5}, {"alpha": 1.0, "beta": 0.0},
            {"alpha": 1.5, "beta": -0.5})

METHOD = Method(
    name="absne",
    summary="alpha-beta SNE: joint Gaussian P, Student-t (Cauchy) Q, the alpha-beta divergence",
    prefix="absne",
    build_affinities=joint_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"alpha": 1.0, "beta": 0.0},
    resolve_cost=resolve_cost,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=unfloored_auto_learning_rate,
    p_family=JOINT,
    normalised_units={"absne": ABSNEUnit},
    case_affinities=joint_case("absne", "tsne"),
    examples=EXAMPLES,
)
