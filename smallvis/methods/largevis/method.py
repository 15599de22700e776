"""largevis's registry entry: its cost parameters, ``gamma="auto"`` and its stochastic form.

The stochastic form follows the LargeVis reference code (LargeVis.cpp,
``visualize_thread``): edges drawn by an alias table on ``P``, 5 negatives
by degree^0.75 that move, clip 5; its epoch budget and early phase are
:func:`n_epochs` and :func:`early_epochs_default`.
"""

from ...engines.sgd import SgdSpec
from ...families import (JOINT, KNN_DEFAULTS, OTHERS_SIZE, PERPLEXITY_SIZE, check_perplexity_knn,
                         joint_case, joint_knn_affinities)
from ...method_spec import SGD_ANNOY_TREES, Method, eps_smooths
from ..._validation import ParameterError, check_integer, check_number
from .unit import LargeVisUnit, LargeVisExpUnit


def auto_learning_rate(n_samples, exaggeration):
    r"""The exact optimizer's ``learning_rate="auto"``: :math:`N / \mathrm{exaggeration} / 6`.

    Two thirds of the rule without a floor that negtsne and infonce use
    (:func:`smallvis.method_spec.unfloored_auto_learning_rate`).  LargeVis's
    repulsion is stiff between close points: its coefficient
    :math:`\gamma w_{ij} / (d_{ij}^2 + \epsilon)` reaches
    :math:`\gamma / \epsilon` there, and with ``gamma="auto"``,
    :math:`35 / (N (N - 1))`, the step that a rate of :math:`N / 4` gives it
    grows as :math:`1 / N` as the data shrink.  At :math:`N / 4` a few dozen
    points oscillated after the momentum switch, and the divergence guard
    had to halve the rate, in 45 of 120 runs on 6 to 40 random points;
    :math:`N / 6` diverged in none, with the same or better 10-NN accuracy
    on iris and digits (docs/experiments.md, 2026-12-06).
    """
    return n_samples / exaggeration / 6.0


#: The LargeVis reference's repulsion weight and negatives per positive
#: sample: its stochastic form weighs every unit of attraction against
#: ``5 * 7 = 35`` units of repulsion.
REFERENCE_GAMMA = 7.0
SGD_NEGATIVES = 5

#: largevis's ``gamma`` under the stochastic optimizer after the early
#: phase: 6, a little below the reference's 7 (:data:`REFERENCE_GAMMA`;
#: ``gamma=7`` gives it).  Local structure is what LargeVis is for, and
#: with the reference's P and a short early phase only 7 kept enough of it
#: on real images.  With the smaller P (:data:`SGD_PERPLEXITY`) and the
#: long early phase the local scores have room to spare, and the weaker
#: repulsion draws classes that mix in the data in fewer pieces, for a
#: little local structure on images and a gain on texts
#: (docs/benchmarks/largevis.md, round 6; docs/theory.md §4.3).
SGD_GAMMA = 6.0

#: largevis's ``perplexity`` under the stochastic optimizer (the exact
#: optimizer keeps the LargeVis paper's and R smallvis's 50): 60
#: neighbours (3 x 20) instead of 150 when it was chosen, now 40
#: (:data:`SGD_NEIGHBOURS_PER_PERPLEXITY`).  On every member of the evaluation panel the
#: smaller P gave higher 15-NN preservation, and with the long early phase
#: (:data:`EARLY_FRACTION`) fewer pieces per class and the same or better
#: 10-NN accuracy, except on the two sets of texts (0.015 and 0.009
#: less); it is also found and calibrated faster and holds fewer entries
#: (95 per point on real photographs instead of 231)
#: (docs/benchmarks/largevis.md, round 3; docs/experiments.md, 2026-12-04).
SGD_PERPLEXITY = 20.0

#: Neighbours per unit of perplexity under the stochastic optimizer: 2 x 20
#: = 40 when neither ``n_neighbors`` nor ``knn`` is given (the calibration's
#: own default is 3 per unit, the exact optimizer's).  At perplexity 20 the
#: Gaussian puts little weight beyond the 40th neighbour, while the search,
#: the calibration and P grow with the neighbours: on the evaluation panel
#: the fewer neighbours kept the accuracy and the pieces per class, cost a
#: little local preservation and saved 5 to 11% of the call
#: (docs/benchmarks/largevis.md, round 5).
SGD_NEIGHBOURS_PER_PERPLEXITY = 2.0

#: The repulsion weight of largevis's early phase under ``optimizer="sgd"``
#: (``early_gamma``; its length: :func:`early_epochs_default`):
#: umap's balance of one unit of repulsion per negative sample, under which
#: the classes of the spectral start gather before ``gamma`` (6) spreads
#: them (docs/theory.md §4.3; docs/experiments.md, 2026-11-29).
SGD_EARLY_GAMMA = 1.0

#: largevis's first learning rate under the stochastic optimizer (it falls
#: linearly to 1e-4 of itself over the run): 0.5, half the reference's 1
#: (``learning_rate=1`` gives it).  Each sample moves its points half as
#: far, so the map carries less of the sampling's noise: real photographs'
#: classes that mix in the data came in 1.7 pieces instead of 2.3 and the
#: held-back texts in 4.7 instead of 4.8, for 0.004 of 10-NN accuracy on
#: the photographs and 0.010 on the image-like set, while the text-like
#: set gained 0.011 (docs/benchmarks/largevis.md, round 7).
SGD_LEARNING_RATE = 0.5


def auto_gamma(n_samples, **cost_params):
    """``gamma="auto"`` of the exact LargeVis cost: ``35 / (N (N - 1))`` (other parameters unused).

    The exact cost weighs the attraction by ``P`` (which sums to 1) and the
    repulsion by ``gamma`` on each of the ``N (N - 1)`` ordered pairs.  The
    stochastic form of the LargeVis reference draws, for every positive
    sample (attraction of weight 1), 5 negative samples of weight
    ``gamma = 7``.  Giving the exact cost the same balance of repulsion to
    attraction, ``gamma N (N - 1) = 35``, gives this value.  With ``gamma=1``
    (a naive transfer of the stochastic setting, R smallvis's default) the
    repulsion outweighs the attraction by ``N**2``, and the map spreads into a
    uniform disc (J. Melville's smallvis documentation, LargeVis page,
    reaches the same ``gamma`` of order ``1/N**2`` for normalised ``P``).
    """
    n = max(int(n_samples), 2)
    return SGD_NEGATIVES * REFERENCE_GAMMA / (n * (n - 1.0))


#: largevis's default epochs up to FULL_BUDGET_N points
#: (:func:`n_epochs`).
FULL_BUDGET_EPOCHS = 1150
FULL_BUDGET_N = 100_000


def reference_samples_per_point(n_samples):
    """The LargeVis reference's default edge samples per point at ``n_samples`` points.

    The reference draws 10^9 samples below 10,000 points, from 10^9 to
    10^10 linearly in N up to a million points, and N / 100 million
    (10,000 N) from there on; this is that count divided by N.
    """
    n = float(n_samples)
    if n < 10_000:
        return 1e9 / n
    if n < 1_000_000:
        return ((n - 10_000) * 9000.0 / 990_000.0 + 1000.0) * 1e6 / n
    return 1e4


def n_epochs(n_samples):
    """Default epochs of ``n_samples`` edge samples each for largevis.

    1150 up to 100,000 points; above, the reference's own samples per point
    (:func:`reference_samples_per_point`) scaled to give 1150 at
    100,000 points: 958 at 150,000, 767 at 300,000 and 632 from a million
    points on.  Each epoch draws N positive samples with 5 negatives each.
    The LargeVis reference draws far more, and fewer per point as N grows
    (about 22,000 N at 70,000 points, 18,000 N at 100,000, 10,000 N from a
    million); uwot's ``lvish`` matches that count.

    What the budget must hold is two phases (:func:`early_epochs_default`):
    about 450 epochs at ``gamma`` (:data:`SGD_GAMMA`), without which
    the image-like set's 10-NN accuracy falls below umap-learn's (0.881
    after 300), and about 700 at ``early_gamma`` before them, without which
    real photographs' classes break into more pieces (2.3 after 550).  The
    former budget of 1500 ran 1050 early epochs; its maps scored the same
    as 1150's within the seeds' spread, except the texts, 0.003 to 0.006
    of 10-NN accuracy higher (docs/benchmarks/largevis.md, round 4).
    Above 100,000 points the budget follows the reference's, so that at a
    million points the optimisation stays about half of the run.
    """
    n = int(n_samples)
    if n <= FULL_BUDGET_N:
        return FULL_BUDGET_EPOCHS
    ratio = (reference_samples_per_point(n)
             / reference_samples_per_point(FULL_BUDGET_N))
    return int(round(FULL_BUDGET_EPOCHS * ratio))


#: The share of largevis's epochs run at ``early_gamma`` (the early phase,
#: :func:`early_epochs_default`): 690 of 1150.  With P at
#: :data:`SGD_PERPLEXITY` the local order survives a long phase, which keeps
#: real photographs' classes in about two pieces instead of three; the
#: remaining 460 epochs at ``gamma`` (:data:`SGD_GAMMA`) keep the image-like set's 10-NN
#: accuracy (docs/benchmarks/largevis.md, rounds 3 and 4).
EARLY_FRACTION = 0.6


def early_epochs_default(n_epochs):
    """Default length of largevis's early phase: 60% of ``n_epochs``, rounded.

    For these first epochs the repulsion weight is ``early_gamma`` (1, the
    balance of umap) instead of ``gamma`` (6): the classes of the spectral
    start gather under the attraction before the strong repulsion spreads
    them, so that small groups are not pushed off their class as
    satellites (docs/theory.md §4.3; docs/experiments.md, 2026-11-29).
    Over the first 60% of the run, from the P of :data:`SGD_PERPLEXITY`,
    classes whose points mix with another's in the data are also drawn in
    fewer pieces (docs/benchmarks/largevis.md, rounds 3 and 4).
    """
    return int(round(EARLY_FRACTION * int(n_epochs)))


#: The weight functions of ``kernel=``.
KERNELS = ("cauchy", "cauchy_alpha", "exp")

def _early_epochs_given(early_epochs):
    """largevis's ``early_epochs`` checked: None for "auto" (or None), else an integer >= 0."""
    if early_epochs is None or (isinstance(early_epochs, str) and early_epochs == "auto"):
        return None
    return check_integer(early_epochs, "early_epochs", low=0)


def resolve_cost(gamma, eps, kernel, alpha, early_gamma=None, early_epochs=None):
    # early_gamma and early_epochs belong to the stochastic optimizer
    # (:func:`early_phase`); the exact cost does not use them, but a bad
    # value is refused on every path
    if early_gamma is not None:
        check_number(early_gamma, "early_gamma", low=0)
    _early_epochs_given(early_epochs)
    gamma = check_number(gamma, "gamma", low=0)
    eps = check_number(eps, "eps", low=0)
    alpha = check_number(alpha, "alpha", low=0, low_open=True)
    if kernel not in KERNELS:
        raise ParameterError(f"kernel must be one of {', '.join(KERNELS)}; "
                             f"got {kernel!r}", ("kernel",))
    if kernel == "exp":
        return "largevis_exp", (gamma,)
    if kernel == "cauchy" and alpha != 1.0:
        raise ParameterError("alpha is used only with kernel='cauchy_alpha'", ("alpha", "kernel"))
    return "largevis", (gamma, eps, alpha)


def sgd_params(gamma, eps, kernel, alpha, early_gamma=None, early_epochs=None):
    resolve_cost(gamma, eps, kernel, alpha)
    if kernel != "cauchy":
        raise ParameterError(f"optimizer='sgd' supports largevis with kernel='cauchy' only "
                             f"(the LargeVis reference); got kernel={kernel!r}",
                             ("kernel", "optimizer"))
    return {"gamma": float(gamma), "eps": float(eps)}


def early_phase(n_epochs, **cost_params):
    """largevis's early phase: ``early_gamma`` for the first ``early_epochs`` epochs.

    ``early_epochs="auto"`` is 60% of ``n_epochs``
    (:func:`early_epochs_default`); ``early_epochs=0``
    or ``early_gamma=None`` runs ``gamma`` throughout, as the reference does.
    The values were checked with the other cost parameters (:func:`resolve_cost`).

    Returns
    -------
    cost_params : dict
        As run: ``early_epochs`` resolved (0 for no phase).
    early : (unit_params, n_early) or None
    """
    early_epochs = _early_epochs_given(cost_params["early_epochs"])
    if early_epochs is None:
        early_epochs = early_epochs_default(n_epochs)
    elif early_epochs > n_epochs:
        raise ParameterError(f"early_epochs must be at most n_epochs ({n_epochs}); "
                             f"got {early_epochs}", ("early_epochs", "n_epochs"))
    early_gamma = cost_params["early_gamma"]
    if early_gamma is None:
        early_epochs = 0
    early = None
    if early_epochs:
        early = (sgd_params(**{**cost_params, "gamma": early_gamma}), early_epochs)
    return {**cost_params, "early_epochs": early_epochs}, early


def exact_gradient(cost_params):
    """The exp kernel has no eps; the Cauchy kernels are exact for ``eps = 0``."""
    return cost_params.get("kernel") == "exp" or eps_smooths(cost_params)


METHOD = Method(
    name="largevis",
    summary="LargeVis: kNN perplexity P, Cauchy weights, gamma-weighted repulsion",
    prefix="largevis",
    build_affinities=joint_knn_affinities,
    check_affinity_params=check_perplexity_knn,
    affinity_params={"perplexity": 50.0, "n_neighbors": None, **KNN_DEFAULTS},
    sized_params={"perplexity": PERPLEXITY_SIZE, "n_neighbors": OTHERS_SIZE},
    cost_params={"gamma": "auto", "eps": 0.1, "kernel": "cauchy", "alpha": 1.0,
                 "early_gamma": None, "early_epochs": None},
    auto_params={"gamma": auto_gamma},
    resolve_cost=resolve_cost,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=auto_learning_rate,
    # the LargeVis reference code, except the start: its N(0, 1e-4) needs
    # the reference's far larger sample count to unfold, and with this
    # budget leaves classes in pieces.  The spectral start draws them whole;
    # its graph of each point's 30 strongest entries of P (the init
    # "spectral:30", which result.params["init"] records) costs a fraction
    # of the eigensolver's time and memory on all of P (docs/theory.md
    # §4.3; docs/experiments.md, 2026-11-24 and 2026-11-25)
    sgd=SgdSpec(coefficient="cauchy", scheme="alias", noise="degree",
                n_epochs=n_epochs, unit_params=sgd_params,
                n_negative=SGD_NEGATIVES, clip=5.0, learning_rate=SGD_LEARNING_RATE,
                min_learning_rate=1e-4, move_negatives=True, defer_head=True,
                skip_tail=True, init="spectral:30",
                param_defaults={"perplexity": SGD_PERPLEXITY, "gamma": SGD_GAMMA,
                                "early_gamma": SGD_EARLY_GAMMA,
                                "early_epochs": "auto",
                                "n_trees": SGD_ANNOY_TREES},
                neighbours_per_perplexity=SGD_NEIGHBOURS_PER_PERPLEXITY,
                early_phase=early_phase,
                sgd_only_params=("early_gamma", "early_epochs")),
    kernel_options=({"kernel": "exp"},),
    pair_units={LargeVisUnit.kernel: LargeVisUnit, LargeVisExpUnit.kernel: LargeVisExpUnit},
    exact_gradient=exact_gradient,
    p_family=JOINT,
    case_affinities=joint_case("ssne", "tsne"),
)
