"""chsne's registry entry: t-SNE's joint P, the Cauchy Q over all pairs, the chi-squared divergence."""

from ...families import JOINT, PERPLEXITY_SIZE, joint_affinities, joint_case
from ...method_spec import Method
from .unit import CHSNEUnit

#: The largest ``"auto"`` learning rate: the chi-squared attraction
#: :math:`p^2 / q` exceeds t-SNE's by :math:`p / q`, about N / perplexity
#: from a compact start, and delta-bar-delta diverges at t-SNE's step on
#: digits (75 on 300 images, 45 to 449 on all 1,797) where 20 converges on
#: both (docs/experiments.md, 2026-12-02).
CHI2_MAX_LEARNING_RATE = 20.0


def chi2_auto_learning_rate(n_samples, exaggeration):
    """``min(N / 16, 20)``: a sixteenth of t-SNE's ``N / 4`` (no floor of 50), at most 20.

    On 40 points t-SNE's floor of 50, and 20, diverge as well.
    """
    return min(n_samples / exaggeration / 16.0, CHI2_MAX_LEARNING_RATE)

METHOD = Method(
    name="chsne",
    summary="chi-squared SNE: joint Gaussian P, Student-t (Cauchy) Q, Pearson's chi-squared divergence",
    prefix="chsne",
    build_affinities=joint_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    # R smallvis's exaggeration (none): the chi-squared attraction grows as
    # p^2 / q, so t-SNE's factor of 12 would multiply it by 144
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=chi2_auto_learning_rate,
    p_family=JOINT,
    normalised_units={"chsne": CHSNEUnit},
    case_affinities=joint_case("chsne", "tsne"),
    examples=({},),
)
