"""gsne's registry entry: t-SNE's joint P and Cauchy Q, plus a global KL over all pairs' input distances."""

from ..._validation import check_number
from ...families import (JOINT, PERPLEXITY_SIZE, joint_affinities_and_global_affinities,
                          joint_case)
from ...method_spec import FROM_INPUT, Method, check_pair_input, joint_auto_learning_rate
from .unit import GSNEUnit

#: R smallvis's lambda: the two divergences weighted alike.
R_LAM = 1.0


def check_lam(lam):
    """``lam``: the global divergence's weight, a finite real number, at least 0."""
    return check_number(lam, "lam", low=0)


def check_global_affinities(value):
    """``global_affinities``: ``"input"``, a positive finite number, or an N x N matrix (:func:`smallvis.method_spec.check_pair_input`)."""
    return check_pair_input(value, "global_affinities", positive=True)


def resolve_cost(lam=R_LAM, global_affinities=FROM_INPUT):
    """The kernel prefix and its arguments: ``("gsne", (lam, global_affinities))``."""
    return "gsne", (check_lam(lam), check_global_affinities(global_affinities))


METHOD = Method(
    name="gsne",
    summary="global t-SNE: t-SNE plus lambda times a KL divergence of all pairs' "
            "input distances from the output's, each normalised over all pairs",
    prefix="gsne",
    build_affinities=joint_affinities_and_global_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"lam": R_LAM, "global_affinities": FROM_INPUT},
    resolve_cost=resolve_cost,
    input_params=("global_affinities",),
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 12.0, "init": "spca"},
    auto_learning_rate=joint_auto_learning_rate,
    p_family=JOINT,
    constant_term="entropy",
    second_input_units={"gsne": GSNEUnit},
    case_affinities=joint_case("gsne", "tsne"),
    # R's lambda on the uniform global P-hat, a stronger one, and t-SNE itself
    examples=({"lam": 1.0, "global_affinities": 1.0}, {"lam": 5.0, "global_affinities": 1.0},
              {"lam": 0.0, "global_affinities": 1.0}),
)
