"""tee's registry entry: t-SNE's joint P, the Cauchy weight, elastic embedding's cost as an I-divergence."""

from ..._validation import check_number
from ...families import JOINT, PERPLEXITY_SIZE, joint_affinities, joint_case
from ...method_spec import Method, unfloored_auto_learning_rate
from .unit import TEEUnit


#: R smallvis's lambda, the default from :data:`AUTO_LAM_MIN_N` points on.
R_LAM = 0.01
#: ``lam="auto"`` keeps the repulsion of a collapsed map, ``lam N``, at least
#: this many times its attraction, 1 (``P`` sums to 1): below it every
#: pair's weight is 1 at the minimum and the map is a point.
AUTO_LAM_MARGIN = 4.0
#: Where R's lambda meets the margin: 4 / 0.01 points.
AUTO_LAM_MIN_N = AUTO_LAM_MARGIN / R_LAM


def auto_lam(n_samples, **cost_params):
    """``lam="auto"``: R smallvis's 0.01, raised to ``4 / N`` below 400 points.

    Near a collapse every weight is close to 1, where the attraction sums
    to ``sum p = 1`` and the repulsion to ``(lam / N) N (N - 1)``, about
    ``lam N``: with ``lam N < 1`` nothing holds the map apart (two points
    meet, and so does a small data set).  R's 0.01 holds from 100 points;
    the margin of 4 keeps the map open from 2 points up.
    """
    return max(R_LAM, AUTO_LAM_MARGIN / max(int(n_samples), 2))


def check_lam(lam):
    """``lam``: the repulsion's weight, a finite real number, at least 0."""
    return check_number(lam, "lam", low=0)


def resolve_cost(lam=R_LAM):
    """The kernel prefix and its argument: ``("tee", (lam,))``."""
    return "tee", (check_lam(lam),)


METHOD = Method(
    name="tee",
    summary="t-EE: joint Gaussian P, Cauchy weights, elastic embedding's attraction and "
            "lambda-weighted repulsion",
    prefix="tee",
    build_affinities=joint_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"lam": "auto"},
    auto_params={"lam": auto_lam},
    resolve_cost=resolve_cost,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=unfloored_auto_learning_rate,
    p_family=JOINT,
    pair_units={TEEUnit.kernel: TEEUnit},
    case_affinities=joint_case("tee", "tsne"),
    # R smallvis's lambda (the golden case), then a t-SNE-like balance and none
    examples=({"lam": 0.01}, {"lam": 1.0}, {"lam": 0.0}),
)
