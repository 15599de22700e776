"""dhssne's registry entry: t-SNE's joint P, Yang et al.'s tail and R smallvis's search of it."""

import math

from ...families import JOINT, PERPLEXITY_SIZE, joint_affinities, joint_case
from ...method_spec import LearnedRule, Method, joint_auto_learning_rate
from ..tsne.method import hssne_dof
from .unit import DHSSNEUnit

#: R smallvis's step of the search: the tail moves by 0.1 at most per epoch.
ALPHA_STEP = 0.1

#: R smallvis's floor of the tail (``alpha_min``); a candidate below it is
#: not proposed (the weight is undefined at negative tails).
ALPHA_MIN = 1e-8


def check_alpha(name, value):
    """The starting tail: a real number in (0, 1e8], with the messages of ``hssne``'s ``alpha``."""
    hssne_dof(value)
    return float(value)


def search_tail(objective, Y, learned):
    r"""R smallvis's search: the tail of :math:`\alpha + 0.1`, :math:`\alpha - 0.1`, :math:`\alpha`
    with the lowest cost at ``Y``.

    :math:`\alpha - 0.1` is a candidate only at or above :data:`ALPHA_MIN`.
    A tie keeps the first in that order (R's ``which.min``); a cost that is
    not finite never wins.
    """
    alpha = float(learned[0])
    candidates = [alpha + ALPHA_STEP]
    if alpha - ALPHA_STEP >= ALPHA_MIN:
        candidates.append(alpha - ALPHA_STEP)
    candidates.append(alpha)
    best, best_cost = alpha, math.inf
    for candidate in candidates:
        cost = objective.cost(Y, (candidate,))
        if cost < best_cost:
            best, best_cost = candidate, cost
    return (best,)


METHOD = Method(
    name="dhssne",
    summary="dynamic heavy-tailed SSNE (R smallvis): hssne whose tail alpha moves by "
            "0.1 to the lowest cost once per epoch",
    prefix="dhssne",
    build_affinities=joint_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"alpha": 0.5},
    learned=("alpha",),
    learned_rule=LearnedRule(update=search_tail, check=check_alpha,
                             summary="alpha + 0.1, alpha - 0.1 or alpha: the lowest cost, "
                                     "every epoch"),
    # hssne's (t-SNE's) exaggeration, not R's none: at a held tail the two
    # are one cost, and without it the light tails the search reaches
    # place new points off the edge of their class (docs/experiments.md)
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 12.0, "init": "spca"},
    auto_learning_rate=joint_auto_learning_rate,
    p_family=JOINT,
    normalised_units={"dhssne": DHSSNEUnit},
    case_affinities=joint_case("ssne", "tsne"),
    constant_term="entropy",
    examples=({}, {"alpha": 1.5}),
)
