"""mmds's registry entry: the input distances and the raw stress over all pairs.

The learning-rate rule and the optimizer defaults are shared by the
stress methods (sammon, smmds, gmmds, ...), which import them from here.
"""

from ...families import INPUT_DISTANCES, distances_case, input_distances
from ...method_spec import Method
from .unit import MMDSUnit

#: The fraction of the Guttman (SMACOF) step ``1 / (4 N)`` that ``"auto"``
#: takes: delta-bar-delta's gains grow a consistent step by 0.2 per
#: iteration, so a start a hundredth of the safe step reaches it within
#: about 50 iterations, without the overshoot of momentum on top of the
#: full step (docs/experiments.md, 2026-12-02).
STRESS_STEP_FRACTION = 0.01


def stress_auto_learning_rate(n_samples, exaggeration):
    r"""``0.01 / (4 N)``: a hundredth of the Guttman transform's step.

    For a stress :math:`\\sum_{i \\ne j} (r_{ij} - d_{ij})^2`, whose gradient
    :math:`4 \\sum_j (1 - r_{ij} / d_{ij})(y_i - y_j)` grows with ``N`` and
    not with the scale of the data, the step :math:`1 / (4N)` without
    momentum is SMACOF's majorisation step.  The fit runs in units of the
    mean input distance (:func:`smallvis.families.distance_unit`), where a
    weighted stress (sammon's weights :math:`1 / r_{ij}`, about 1 there) or
    a quartic one (smmds's) takes the same step.  ``exaggeration`` is not used:
    the stress methods run without it.
    """
    return STRESS_STEP_FRACTION / (4.0 * n_samples)


#: What the stress methods share: no exaggeration (it would multiply the
#: distances), and the PCA start, which the fit scales to the mean input
#: distance (:func:`smallvis.families.start_in_distance_unit`): a stress
#: compares distances, so its start is at their scale.
STRESS_OPTIMIZER = {"learning_rate": "auto", "exaggeration": 1.0, "init": "pca"}

METHOD = Method(
    name="mmds",
    summary="metric MDS: input distances, raw stress (r - d)^2 over all pairs",
    prefix="mmds",
    build_affinities=input_distances,
    affinity_params={"metric": "euclidean"},
    optimizer_defaults=STRESS_OPTIMIZER,
    auto_learning_rate=stress_auto_learning_rate,
    p_family=INPUT_DISTANCES,
    pair_units={MMDSUnit.kernel: MMDSUnit},
    case_affinities=distances_case("mmds"),
    factor_4_convention=True,
    examples=({},),
)
