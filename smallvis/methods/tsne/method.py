"""tsne's registry entry: the joint P, the heavy-tailed weight of ``dof``, an FFT gradient."""

from ...families import (JOINT, KNN_DEFAULTS, OTHERS_SIZE, PERPLEXITY_SIZE, check_perplexity_knn,
                         joint_affinities_dense_or_knn, joint_case)
from ...method_spec import Approximation, Confusion, Method, joint_auto_learning_rate
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
    ),
)
