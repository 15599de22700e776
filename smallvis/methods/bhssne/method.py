"""bhssne's registry entry: t-SNE's joint P, heavy-tailed Q over all pairs of each row's precision."""

from ..._validation import ParameterError, check_number
from ...families import JOINT, PERPLEXITY_SIZE, joint_affinities_and_bandwidths, joint_case
from ...method_spec import FROM_INPUT, Method, unfloored_auto_learning_rate
from ..basne.method import check_bandwidth
from ..tsne.method import HSSNE_ALPHA_MAX
from .unit import BHSSNEUnit


def check_alpha(alpha):
    """The heavy tail ``alpha``: a real number in (0, ``HSSNE_ALPHA_MAX``], as ``hssne``'s.

    ``alpha -> 0`` is the Gaussian weight (method ``bssne``); above the
    bound ``1 / alpha`` is below t-SNE's smallest ``dof``, where the
    weights of ordinary layouts all round to one.
    """
    alpha = check_number(alpha, "alpha")
    if not 0.0 < alpha <= HSSNE_ALPHA_MAX:
        why = (": alpha -> 0 is the Gaussian weight, method 'bssne'" if alpha <= 0 else
               "")
        raise ParameterError(f"alpha must be in (0, {HSSNE_ALPHA_MAX:g}]; got {alpha!r}{why}",
                             ("alpha",))
    return alpha


def resolve_cost(alpha=0.5, bandwidth=FROM_INPUT):
    """The kernel prefix and its arguments: ``("bhssne", (alpha, bandwidth))``."""
    return "bhssne", (check_alpha(alpha), check_bandwidth(bandwidth))


METHOD = Method(
    name="bhssne",
    summary="bandwidth heavy-tailed ssne: joint Gaussian P, heavy-tailed Q of each row's "
            "precision, KL(P||Q)",
    prefix="bhssne",
    build_affinities=joint_affinities_and_bandwidths,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"alpha": 0.5, "bandwidth": FROM_INPUT},
    resolve_cost=resolve_cost,
    input_params=("bandwidth",),
    # btsne's exaggeration, R smallvis's (none): see btsne's entry
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    # the joint rule without its floor of 50, which below 200 points is
    # several times N / 4 and made runs of 15 to 40 points diverge under
    # this kernel, nearer the Gaussian than t-SNE's; from 200 points the two
    # rules agree (docs/experiments.md, 2026-12-02)
    auto_learning_rate=unfloored_auto_learning_rate,
    p_family=JOINT,
    normalised_units={"bhssne": BHSSNEUnit},
    # a new point is placed on the fit's own cost with its pairs added, its
    # row and column held against the fit's normaliser Z: over its own row
    # alone, under the far rows' wide kernels, a far point moves out past
    # the extreme points it neighbours (docs/experiments.md, 2026-12-02 and
    # 2026-12-03)
    placed_with_column=True,
    case_affinities=joint_case("bhssne", "tsne"),
    constant_term="entropy",
    # R smallvis's test settings (alpha 1.4, beta 0.1) among them
    examples=({"alpha": 0.5, "bandwidth": 0.5}, {"alpha": 1.4, "bandwidth": 0.1},
              {"alpha": 0.1, "bandwidth": 2.0}),
)
