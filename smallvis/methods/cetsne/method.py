"""cetsne's registry entry: t-SNE's joint P, the Cauchy Q over all pairs, UMAP's cross-entropy."""

from ...families import JOINT, PERPLEXITY_SIZE, joint_affinities, joint_case
from ...method_spec import Confusion, Method, unfloored_auto_learning_rate
from .unit import CETSNEUnit

METHOD = Method(
    name="cetsne",
    summary="cross-entropy t-SNE: joint Gaussian P, Student-t (Cauchy) Q, fuzzy-set "
            "cross-entropy of P and Q",
    prefix="cetsne",
    build_affinities=joint_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    # R smallvis's exaggeration (none): on digits the map is as good without
    # t-SNE's factor of 12 (docs/experiments.md, 2026-12-02)
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=unfloored_auto_learning_rate,
    p_family=JOINT,
    normalised_units={"cetsne": CETSNEUnit},
    constant_term="memberships",
    # the cross-entropy is not scale-free: a new row of P takes the mass of
    # its own row of q
    normalised_new_rows=True,
    case_affinities=joint_case("cetsne", "tsne"),
    known_mistakes=(
        Confusion("tsne", "the KL divergence of t-SNE, without the cross-entropy's "
                          "(1 - p) log((1 - p) / (1 - q)) terms"),
    ),
    examples=({},),
)
