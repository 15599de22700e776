"""sammon's registry entry: the input distances and Sammon's stress over all pairs."""

from ...families import INPUT_DISTANCES, distances_case, input_distances
from ...method_spec import Method
from ..mmds.method import STRESS_OPTIMIZER
from .unit import SammonUnit

#: The fraction of the weighted Guttman step that ``"auto"`` takes (as
#: mmds's, :data:`smallvis.methods.mmds.method.STRESS_STEP_FRACTION`).
SAMMON_STEP_FRACTION = 0.01


def sammon_auto_learning_rate(n_samples, exaggeration):
    r"""``0.01 / (4 N^2 (N - 1))``: a hundredth of the weighted Guttman step.

    Sammon's stress weighs pair :math:`(i, j)` by :math:`1 / r_{ij}`; with
    the input distances summing to 1 their mean is :math:`1 / (N (N - 1))`,
    so a row's weights sum to about :math:`N^2 (N - 1)` times a ratio of
    the mean distance to the distances, and the majorisation step of a
    weighted stress is one over four times that sum.  ``exaggeration`` is
    not used.
    """
    return SAMMON_STEP_FRACTION / (4.0 * n_samples ** 2 * max(n_samples - 1, 1))


METHOD = Method(
    name="sammon",
    summary="Sammon mapping: input distances, stress (r - d)^2 / r over all pairs",
    prefix="sammon",
    build_affinities=input_distances,
    affinity_params={"metric": "euclidean"},
    optimizer_defaults=STRESS_OPTIMIZER,
    auto_learning_rate=sammon_auto_learning_rate,
    p_family=INPUT_DISTANCES,
    pair_units={SammonUnit.kernel: SammonUnit},
    case_affinities=distances_case("sammon"),
    examples=({},),
)
