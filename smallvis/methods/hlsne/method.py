"""hlsne's registry entry: t-SNE's joint P, the Cauchy Q over all pairs, the Hellinger distance."""

from ...families import JOINT, PERPLEXITY_SIZE, joint_affinities, joint_case
from ...method_spec import Method, unfloored_auto_learning_rate
from .unit import HLSNEUnit

METHOD = Method(
    name="hlsne",
    summary="Hellinger SNE: joint Gaussian P, Student-t (Cauchy) Q, squared Hellinger distance",
    prefix="hlsne",
    build_affinities=joint_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    # R smallvis's exaggeration (none): the Hellinger attraction grows as
    # the square root of P, so t-SNE's factor of 12 is not its equivalent
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=unfloored_auto_learning_rate,
    p_family=JOINT,
    normalised_units={"hlsne": HLSNEUnit},
    case_affinities=joint_case("hlsne", "tsne"),
    examples=({},),
)
