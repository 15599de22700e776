"""usne's registry entry: t-SNE's joint P and KL divergence, UMAP's output curve over all pairs."""

from ...families import JOINT, PERPLEXITY_SIZE, joint_affinities, joint_case
from ...method_spec import Confusion, Method, eps_smooths, unfloored_auto_learning_rate
from ...output_curve import output_curve
from ..._validation import check_number
from .unit import USNEUnit


def resolve_cost(a, b, spread, min_dist, eps):
    """The kernel prefix and its arguments: ``("usne", (a, b, eps))``, ``a`` and ``b`` fitted if not given."""
    a, b = output_curve(a, b, spread, min_dist)
    return "usne", (a, b, check_number(eps, "eps", low=0))


METHOD = Method(
    name="usne",
    summary="u-SNE: joint Gaussian P, UMAP's curve 1/(1 + a d^2b) normalised over all "
            "pairs, KL(P||Q)",
    prefix="usne",
    build_affinities=joint_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    # R smallvis's curve (min_dist 0.001: a = 1.929, b = 0.7915); eps = 0,
    # the exact gradient: a pair at d2 = 0 has no force, and elsewhere the
    # slope b (1 - w) / d2 is finite (docs/experiments.md, 2026-12-02)
    cost_params={"a": None, "b": None, "spread": 1.0, "min_dist": 0.001, "eps": 0.0},
    resolve_cost=resolve_cost,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=unfloored_auto_learning_rate,
    p_family=JOINT,
    normalised_units={"usne": USNEUnit},
    fitted_params=("a", "b"),
    fit_inputs=("spread", "min_dist"),
    exact_gradient=eps_smooths,
    constant_term="entropy",
    case_affinities=joint_case("usne", "tsne"),
    known_mistakes=(
        Confusion("tsne", "t-SNE's Cauchy weight 1 / (1 + d^2) (a = b = 1) instead of "
                          "UMAP's curve"),
    ),
    examples=({}, {"min_dist": 0.1}, {"a": 1.0, "b": 1.0}),
)
