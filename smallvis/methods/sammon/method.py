"""sammon's registry entry: the input distances and Sammon's stress over all pairs."""

from ...families import INPUT_DISTANCES, distances_case, input_distances
from ...method_spec import Method
from ..mmds.method import STRESS_OPTIMIZER, stress_auto_learning_rate
from .unit import SammonUnit

METHOD = Method(
    name="sammon",
    summary="Sammon mapping: input distances, stress (r - d)^2 / r over all pairs",
    prefix="sammon",
    build_affinities=input_distances,
    affinity_params={"metric": "euclidean"},
    optimizer_defaults=STRESS_OPTIMIZER,
    auto_learning_rate=stress_auto_learning_rate,
    p_family=INPUT_DISTANCES,
    pair_units={SammonUnit.kernel: SammonUnit},
    case_affinities=distances_case("sammon"),
    examples=({},),
)
