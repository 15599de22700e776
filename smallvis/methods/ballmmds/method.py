"""ballmmds's registry entry: the input distances, a stress inside a ball and a hinge outside it."""

from ...families import (BALL_NEIGHBOURHOOD_DISTANCES, ball_neighbour_distances,
                         check_ball_neighbourhood, distances_case)
from ...method_spec import FROM_INPUT, Method, check_pair_input
from ..mmds.method import STRESS_OPTIMIZER, stress_auto_learning_rate
from .unit import BallMMDSAboveUnit, BallMMDSBelowUnit, BallMMDSUnit

#: R smallvis's f: the ball holds the tenth of the pair distances that are
#: shortest, isometric SPE's cutoff.
R_F = 0.1


def check_neighbour_distances(value):
    """``neighbour_distances``: ``"input"``, a non-negative finite number, or an N x N matrix (:func:`smallvis.method_spec.check_pair_input`)."""
    return check_pair_input(value, "neighbour_distances", positive=False)


def resolve_cost(neighbour_distances=FROM_INPUT):
    """The kernel prefix and its argument: ``("ballmmds", (neighbour_distances,))``."""
    return "ballmmds", (check_neighbour_distances(neighbour_distances),)


METHOD = Method(
    name="ballmmds",
    summary="ball metric MDS: input distances, raw stress inside a ball of the shortest "
            "tenth of the distances, a hinge (no cost when stretched) outside it",
    prefix="ballmmds",
    build_affinities=ball_neighbour_distances,
    affinity_params={"f": R_F, "metric": "euclidean"},
    check_affinity_params=check_ball_neighbourhood,
    cost_params={"neighbour_distances": FROM_INPUT},
    resolve_cost=resolve_cost,
    input_params=("neighbour_distances",),
    optimizer_defaults=STRESS_OPTIMIZER,
    auto_learning_rate=stress_auto_learning_rate,
    p_family=BALL_NEIGHBOURHOOD_DISTANCES,
    second_input_units={"ballmmds": BallMMDSUnit},
    # the pair units its two parts run on the pair engine (BallMMDSUnit.parts)
    pair_units={unit.kernel: unit for unit in (BallMMDSBelowUnit, BallMMDSAboveUnit)},
    case_affinities=distances_case("ballmmds"),
    factor_4_convention=True,
    examples=({},),
)
