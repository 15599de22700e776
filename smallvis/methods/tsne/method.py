"""tsne's registry entry: the joint P, the heavy-tailed weight of ``dof``, an FFT gradient."""

from ...families import (JOINT, KNN_DEFAULTS, OTHERS_SIZE, PERPLEXITY_SIZE, check_perplexity_knn,
                         joint_affinities_dense_or_knn, joint_case)
from ...method_spec import Alias, Approximation, Confusion, Method, joint_auto_learning_rate
from ..._validation import ParameterError, check_integer, check_number

#: Interpolation nodes per box and dimension of ``gradient="fft"`` (t-SNE's
#: ``n_interpolation``): 3, as Linderman et al. (2019) and openTSNE; each
#: extra node divides the gradient's error (docs/experiments.md, 2026-12-02).
FFT_N_INTERPOLATION = 3

#: Largest ``n_interpolation``: equispaced Lagrange interpolation of higher
#: degree loses accuracy to rounding (its Lebesgue constant grows like 2^p).
FFT_MAX_INTERPOLATION = 20

#: ``gradient="auto"`` uses the FFT-interpolated t-SNE gradient above this
#: many points.  The FFT's grid costs the same whatever N while the exact
#: gradient grows as N^2, so the FFT wins from some thousands of points
#: (benchmarks/bench_tsne_scale.py --crossover); up to 10,000 the exact
#: gradient is kept for its exactness at no more than about 1.5 times the
#: time (docs/experiments.md, 2026-11-23).
FFT_AUTO_MIN_N = 10_000


#: Smallest t-SNE ``dof`` (the heavy tail alpha of (1 + d^2/alpha)^-alpha).
#: The weight needs d^2/alpha as a float64: at alpha = 1e-8 it stays finite
#: up to d^2 = 1.8e300, coordinates spanning about 1e150, near the 1e154 at
#: which any layout is refused (``check_coordinate_span``); a smaller alpha
#: overflows it on narrower layouts, down to every layout at the smallest
#: subnormal, and the cost and gradient become NaN.  Near the floor every
#: weight is 1 to within alpha log(d^2/alpha) (2e-7 at unit distance): q is
#: nearly uniform and the forces, of order alpha/d^2, barely move a map.
DOF_MIN = 1e-8


def _check_dof(dof):
    """t-SNE's ``dof``: a finite real number in [:data:`DOF_MIN`, inf).

    The limit ``dof -> inf`` is the Gaussian weight exp(-d^2) normalised over
    all pairs, which ``ssne`` computes exactly.
    """
    dof = check_number(dof, "dof")
    if dof < DOF_MIN:
        why = ("" if dof <= 0 else f": below {DOF_MIN:g} the heavy-tailed weight "
               "(1 + d^2/dof)^-dof overflows float64 on ordinary layouts (and well before "
               "that the map hardly moves from its start)")
        raise ParameterError(f"dof must be in [{DOF_MIN:g}, inf); got {dof!r}{why}", ("dof",))
    return dof


def resolve_cost(n_interpolation=FFT_N_INTERPOLATION, dof=1.0):
    check_integer(n_interpolation, "n_interpolation", low=1, high=FFT_MAX_INTERPOLATION)
    dof = _check_dof(dof)
    # dof = 1: the Cauchy kernels, whose numbers t-SNE has always had
    return ("tsne", ()) if dof == 1.0 else ("tsne_dof", (dof,))


def resolve_fft_cost(n_interpolation=FFT_N_INTERPOLATION, dof=1.0):
    n_interpolation = check_integer(n_interpolation, "n_interpolation", low=1,
                                    high=FFT_MAX_INTERPOLATION)
    dof = _check_dof(dof)
    if dof == 1.0:
        return "tsne_fft", (n_interpolation,)
    return "tsne_dof_fft", (n_interpolation, dof)


def fft_exact_instead(Y, n_interpolation=FFT_N_INTERPOLATION, dof=1.0):
    """gradient="fft": exact kernels where the layout is too wide for the grid (reference rule).

    ``dof`` goes along: a heavier tail needs narrower boxes.
    """
    from ...backends.reference import _fft_exact_instead
    return _fft_exact_instead(Y, check_integer(n_interpolation, "n_interpolation", low=1,
                                               high=FFT_MAX_INTERPOLATION), _check_dof(dof))


#: Largest heavy-tailed SSNE ``alpha``: the reciprocal of :data:`DOF_MIN`.
HSSNE_ALPHA_MAX = 1.0 / DOF_MIN


def hssne_dof(alpha=0.5):
    """Heavy-tailed SSNE's ``alpha`` as t-SNE's ``dof``: ``{"dof": 1 / alpha}``.

    ``alpha`` must lie in (0, :data:`HSSNE_ALPHA_MAX`]: the limit ``alpha ->
    0`` is the Gaussian weight of ``ssne``, and above the bound ``dof``
    falls below :data:`DOF_MIN`.
    """
    alpha = check_number(alpha, "alpha")
    if not 0.0 < alpha <= HSSNE_ALPHA_MAX:
        why = (": alpha -> 0 is the Gaussian weight, method 'ssne'" if alpha <= 0 else
               f": above it dof = 1 / alpha falls below {DOF_MIN:g}")
        raise ParameterError(f"alpha must be in (0, {HSSNE_ALPHA_MAX:g}]; got {alpha!r}{why}",
                             ("alpha",))
    return {"dof": 1.0 / alpha}


#: Yang, King, Xu & Oja's heavy-tailed symmetric SNE: t-SNE at dof = 1 / alpha.
HSSNE = Alias(
    name="hssne",
    summary="heavy-tailed symmetric SNE (Yang et al. 2009): tsne with dof = 1 / alpha",
    params={"alpha": 0.5},
    translate=hssne_dof,
    page=r"""
    Yang et al.'s heavy-tailed SSNE weighs output pairs by

    .. math::

        w_{ij} = \bigl(1 + \alpha\, \|y_i - y_j\|^2\bigr)^{-1/\alpha},
        \qquad
        \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i}
        (p_{ij} - q_{ij})\, w_{ij}^{\alpha}\, (y_i - y_j),

    with t-SNE's joint ``P``, ``q`` normalised over all pairs and the cost
    :math:`\mathrm{KL}(P \| Q)`.  With :math:`\alpha = 1 / \mathrm{dof}`
    the weight is t-SNE's :math:`(1 + d^2/\mathrm{dof})^{-\mathrm{dof}}`
    and :math:`w^{\alpha} = w^{1/\mathrm{dof}}` its slope, so ``hssne``
    is ``tsne`` with ``dof = 1 / alpha``: the same kernels, the same
    numbers.  :math:`\alpha = 1` is t-SNE, :math:`\alpha \to 0` symmetric
    SNE's Gaussian (method ``ssne``); the default :math:`\alpha = 0.5` is
    R smallvis's.  The paper and R smallvis agree; R floors
    :math:`\alpha` at :math:`10^{-8}`, where this alias refuses
    :math:`\alpha \le 0` and :math:`\alpha > 10^8` with a ``ValueError``.
    The other defaults (exaggeration 12, ``learning_rate="auto"``) are
    t-SNE's; R smallvis runs ``hssne`` with the exaggeration it is given.

    Z. Yang, I. King, Z. Xu and E. Oja (2009), "Heavy-Tailed Symmetric
    Stochastic Neighbor Embedding", NIPS 22.  J. Melville, smallvis (R
    package), ``hssne`` in ``R/sne.R``.
    """)

#: R smallvis's t-SNE with its gradient written in the un-normalised affinities.
TSNEU = Alias(
    name="tsneu",
    summary="t-SNE with the gradient written in un-normalised input weights "
            "(R smallvis): tsne itself",
    page=r"""
    R smallvis's ``tsneu`` keeps the symmetrised row-normalised affinities
    :math:`V` (each row of which sums to 1 before the symmetrising) with their
    sum :math:`S = \sum_{ij} v_{ij}`, which is :math:`N`, and writes
    t-SNE's gradient as

    .. math::

        \frac{\partial C}{\partial y_i} = \frac{4}{S} \sum_{j \ne i}
        w_{ij} \bigl(v_{ij} - q_{ij} S\bigr) (y_i - y_j),

    which is t-SNE's :math:`4 \sum_j (p_{ij} - q_{ij}) w_{ij} (y_i - y_j)`
    since :math:`P = V / S`; its cost is t-SNE's.  It is therefore ``tsne``
    with every parameter as it is.  One difference of R's code is not
    kept: its gradient reads :math:`V`, which R's early exaggeration does
    not scale, so R's ``tsneu`` is not exaggerated; here ``exaggeration``
    acts as on ``tsne`` (pass ``exaggeration=1`` for R's run).

    J. Melville, smallvis (R package), ``tsneu`` in ``R/sne.R`` ("t-SNE
    but with the gradient defined in terms of un-normalized weights").
    """)


METHOD = Method(
    name="tsne",
    summary="t-SNE: joint Gaussian P, Student-t (Cauchy) Q, KL(P||Q)",
    prefix="tsne",
    build_affinities=joint_affinities_dense_or_knn,
    check_affinity_params=check_perplexity_knn,
    affinity_params={"perplexity": 30.0, "n_neighbors": None, **KNN_DEFAULTS},
    sized_params={"perplexity": PERPLEXITY_SIZE, "n_neighbors": OTHERS_SIZE},
    # n_interpolation: the accuracy of gradient="fft" (unused by "exact");
    # dof: the output kernel's heavy tail (1 + d^2/dof)^-dof, 1 = Cauchy
    cost_params={"n_interpolation": FFT_N_INTERPOLATION, "dof": 1.0},
    resolve_cost=resolve_cost,
    kernel_options=({"dof": 0.5},),
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 12.0, "init": "spca"},
    auto_learning_rate=joint_auto_learning_rate,
    approximations={"fft": Approximation(
        name="fft",
        summary="FFT-accelerated interpolation of the repulsion (FIt-SNE, "
                "Linderman et al. 2019), O(N) per iteration",
        resolve_cost=resolve_fft_cost, dimensions=(1, 2),
        auto_min_n=FFT_AUTO_MIN_N, exact_instead=fft_exact_instead)},
    p_family=JOINT,
    constant_term="entropy",
    case_affinities=joint_case("ssne", "tsne"),
    known_mistakes=(
        "gaussian_output_kernel",
        Confusion("ssne", "symmetric SNE: a Gaussian output kernel instead of "
                          "t-SNE's Student-t"),
        "unsquared_repulsion",
        "row_normalised_q",
        "unnormalised_q",
        "z_with_diagonal",
    ),
    aliases=(HSSNE, TSNEU),
)
