"""smmds's registry entry: the input distances and the stress of squared distances."""

from ...families import INPUT_DISTANCES, distances_case, input_distances
from ...method_spec import Method
from ..mmds.method import STRESS_OPTIMIZER, stress_auto_learning_rate
from .unit import SMMDSUnit

#: The share of mmds's learning rate that ``"auto"`` takes: the force of
#: the squared errors is of degree three in the map's scale, and in the
#: fit's unit (the mean input distance) its curvature is a few times
#: mmds's (docs/experiments.md, 2026-12-02).
SQUARED_STEP_SHARE = 0.25


def squared_stress_auto_learning_rate(n_samples, exaggeration):
    """A quarter of mmds's rule (:func:`smallvis.methods.mmds.method.stress_auto_learning_rate`)."""
    return SQUARED_STEP_SHARE * stress_auto_learning_rate(n_samples, exaggeration)


METHOD = Method(
    name="smmds",
    summary="S-stress MDS: input distances, squared-distance stress (r^2 - d^2)^2 over all pairs",
    prefix="smmds",
    build_affinities=input_distances,
    affinity_params={"metric": "euclidean"},
    optimizer_defaults=STRESS_OPTIMIZER,
    auto_learning_rate=squared_stress_auto_learning_rate,
    p_family=INPUT_DISTANCES,
    pair_units={SMMDSUnit.kernel: SMMDSUnit},
    case_affinities=distances_case("smmds"),
    examples=({},),
)
