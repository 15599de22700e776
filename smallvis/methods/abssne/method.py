"""abssne's registry entry: ssne's joint P, the Gaussian Q over all pairs, the alpha-beta divergence."""

from ..._validation import ParameterError
from ...families import JOINT, PERPLEXITY_SIZE, joint_affinities, joint_case
from ...method_spec import Method, gaussian_auto_learning_rate
from ..absne.method import check_alpha_beta
from .unit import ABSSNEUnit


def check_gaussian_alpha_beta(alpha, beta):
    """absne's checks, and ``beta >= 0``: the Gaussian ``q`` underflows to 0 far from a point.

    With ``beta < 0`` the term ``p^alpha q^beta`` grows without bound as
    ``q`` falls, so a spread-out layout has an infinite cost in float64;
    the Cauchy ``q`` of absne falls only as ``1 / d^2`` and keeps it finite.
    """
    alpha, beta = check_alpha_beta(alpha, beta)
    if beta < 0.0:
        raise ParameterError(
            f"beta must be at least 0 for abssne (with the Gaussian q, q^beta for beta < 0 "
            f"overflows far from a point; absne takes beta > -alpha); got beta={beta!r}",
            ("beta",))
    return alpha, beta


def resolve_cost(alpha=1.0, beta=0.0):
    """The kernel prefix and its arguments: ``("abssne", (alpha, beta))``."""
    return "abssne", check_gaussian_alpha_beta(alpha, beta)


METHOD = Method(
    name="abssne",
    summary="alpha-beta SSNE: joint Gaussian P and Q, the alpha-beta divergence",
    prefix="abssne",
    build_affinities=joint_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"alpha": 1.0, "beta": 0.0},
    resolve_cost=resolve_cost,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=gaussian_auto_learning_rate,
    p_family=JOINT,
    normalised_units={"abssne": ABSSNEUnit},
    case_affinities=joint_case("abssne", "tsne"),
    # a general divergence (the golden case's), the KL branch, a larger alpha
    examples=({"alpha": 0.5, "beta": 0.5}, {"alpha": 1.0, "beta": 0.0},
              {"alpha": 2.0, "beta": 0.5}),
)
