"""ee's registry entry: t-SNE's joint P, the Gaussian weight, a repulsion weighted by the input distances."""

from ..._validation import check_number
from ...families import (JOINT, PERPLEXITY_SIZE, joint_affinities_and_distance_weights,
                          joint_case)
from ...method_spec import FROM_INPUT, Method, check_pair_input, gaussian_auto_learning_rate
from .unit import EEAttractionUnit, EERepulsionUnit, EEUnit

#: R smallvis's lambda (and the spectral-direction paper's on COIL-20 and MNIST).
R_LAM = 100.0


def check_lam(lam):
    """``lam``: the repulsion's weight, a finite real number, at least 0."""
    return check_number(lam, "lam", low=0)


def check_repulsion_weights(value):
    """``repulsion_weights``: ``"input"``, a non-negative finite number, or an N x N matrix (:func:`smallvis.method_spec.check_pair_input`)."""
    return check_pair_input(value, "repulsion_weights", positive=False)


def resolve_cost(lam=R_LAM, repulsion_weights=FROM_INPUT):
    """The kernel prefix and its arguments: ``("ee", (lam, repulsion_weights))``."""
    return "ee", (check_lam(lam), check_repulsion_weights(repulsion_weights))


METHOD = Method(
    name="ee",
    summary="elastic embedding: joint Gaussian P, Gaussian weights, a lambda-weighted "
            "repulsion of each pair by its input distance",
    prefix="ee",
    build_affinities=joint_affinities_and_distance_weights,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"lam": R_LAM, "repulsion_weights": FROM_INPUT},
    resolve_cost=resolve_cost,
    input_params=("repulsion_weights",),
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=gaussian_auto_learning_rate,
    p_family=JOINT,
    second_input_units={"ee": EEUnit},
    # the pair units its two parts run on the pair engine (EEUnit.parts)
    pair_units={unit.kernel: unit for unit in (EEAttractionUnit, EERepulsionUnit)},
    case_affinities=joint_case("ee", "tsne"),
    # uniform weights (R's neg_weights = FALSE) at a balance for iris, a
    # stronger repulsion, and none
    examples=({"lam": 1e-4, "repulsion_weights": 1.0}, {"lam": 10.0, "repulsion_weights": 1e-4},
              {"lam": 0.0, "repulsion_weights": 1.0}),
)
