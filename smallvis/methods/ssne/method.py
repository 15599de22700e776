"""ssne's registry entry: the joint P over all points, Gaussian Q over all pairs."""

from ...families import JOINT, PERPLEXITY_SIZE, joint_affinities, joint_case
from ...method_spec import Confusion, Method, gaussian_auto_learning_rate

METHOD = Method(
    name="ssne",
    summary="symmetric SNE: joint Gaussian P and Q, KL(P||Q)",
    prefix="ssne",
    build_affinities=joint_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=gaussian_auto_learning_rate,
    p_family=JOINT,
    constant_term="entropy",
    case_affinities=joint_case("ssne", "tsne"),
    known_mistakes=(
        Confusion("tsne", "a Student-t output kernel 1 / (1 + d^2) instead of "
                          "symmetric SNE's Gaussian"),
    ),
)
