/*
 * The maths pieces that the method units share (smallvis/methods/<method>/unit.h).
 *
 * A unit is one method's maths for the compiled kernels: its named
 * parameter struct, output weight, exact pair coefficient, cost terms,
 * transform-row terms and stochastic (SGD) coefficients, each a static
 * inline function.  The generic engines (_pairloops.h for the exact and
 * transform rows of the pair units, _sgd_kernels.pyx for the epoch loop)
 * are instantiated once per unit and spell out no method's formula: a pair
 * method's maths lives only in its unit.  The normalised methods (asne,
 * ssne, tsne) plug their hooks into the normalised engine (_pairloops.h,
 * "engine: normalised units"); their named fit kernels keep hand-written
 * fast paths in backends/_kernels.pyx and _pairloops.h.  The row unit
 * (infonce) has loops of its own.  The NumPy reference of every piece
 * carries the same formula in a ``.. math::`` block.
 */
#ifndef SMALLVIS_METHODS_COMMON_H
#define SMALLVIS_METHODS_COMMON_H

#include <math.h>
#include <stddef.h>

/*
 * Vector maths.  When the build found glibc's libmvec (setup.py probes for
 * it and defines SMALLVIS_LIBMVEC for the exact kernels), exp and log are
 * declared with the simd attribute so that GCC's vectoriser calls their
 * vector versions; otherwise they call the scalar libm functions.  Either
 * way the result agrees with the NumPy reference to a few units in the
 * last place.
 */
#if defined(SMALLVIS_LIBMVEC)
double exp(double) __attribute__((simd("notinbranch")));
double log(double) __attribute__((simd("notinbranch")));
double log1p(double) __attribute__((simd("notinbranch")));
#endif

/*
 * x**y for x > 0 in vector loops.  With glibc 2.35's vector exp2 and log2
 * (setup.py defines SMALLVIS_LIBMVEC_EXP2) as exp2(y log2 x), which is
 * faster than exp(y log x) and as accurate (the error of the exponent,
 * |y log2 x| ulp, dominates either way; docs/experiments.md, 2026-11-21).
 */
#if defined(SMALLVIS_LIBMVEC_EXP2)
double exp2(double) __attribute__((simd("notinbranch")));
double log2(double) __attribute__((simd("notinbranch")));
#define SMALLVIS_POW_POS(x, y) exp2((y) * log2(x))
#else
#define SMALLVIS_POW_POS(x, y) exp((y) * log(x))
#endif

/*
 * A function whose floating-point operations must keep their written order
 * and rounding: the exact kernels are compiled with -fassociative-math,
 * under which the compiler may regroup sums and lose a small term next to a
 * huge one.  Put SMALLVIS_STRICT_FP before the function and
 * SMALLVIS_STRICT_FP_BODY first in its body.
 */
#if defined(__clang__)
#define SMALLVIS_STRICT_FP
#define SMALLVIS_STRICT_FP_BODY _Pragma("clang fp reassociate(off)") \
    _Pragma("clang fp contract(off)")
#elif defined(__GNUC__)
#define SMALLVIS_STRICT_FP \
    __attribute__((optimize("no-associative-math", "fp-contract=off")))
#define SMALLVIS_STRICT_FP_BODY
#else
#define SMALLVIS_STRICT_FP
#define SMALLVIS_STRICT_FP_BODY
#endif

/*
 * log q = -(d2 - shift) - lz of the Gaussian weight exp(-(d2 - shift))
 * normalised by z = exp(lz), in this order.  Regrouped as (shift - lz) - d2
 * (which -fassociative-math allows), lz is rounded away once d2 dwarfs it,
 * and a saturated q (the closest pair's, 1/2) would read as 1.
 */
SMALLVIS_STRICT_FP
static double smallvis_gauss_log_q(double d2, double shift, double lz)
{
    SMALLVIS_STRICT_FP_BODY
    return -(d2 - shift) - lz;
}

/* Smallest positive normal double: floors log() arguments (see reference). */
#define SMALLVIS_LOG_FLOOR 2.2250738585072014e-308

/* x**y for x > 0 in the stochastic loop, always as exp2(y log2 x): the
 * NumPy twin computes math.exp2(y * math.log2(x)), the same C functions,
 * so the two agree bit for bit. */
static inline double smallvis_sgd_pow(double x, double y)
{
    return exp2(y * log2(x));
}

/* The Cauchy weight, w = scale / (1 + d2).  ``scale`` is 1 everywhere
 * except in the t-SNE gradient, which passes a power of two so that w^2
 * does not underflow when the layout is huge (see tsne.h). */
static inline double smallvis_cauchy(double d2, double scale)
{
    return scale / (1.0 + d2);
}

/* log(x) with x floored at the smallest normal double (coincident points). */
static inline double smallvis_floored_log(double x)
{
    return log(x > SMALLVIS_LOG_FLOOR ? x : SMALLVIS_LOG_FLOOR);
}

/* x log x, 0 at x = 0. */
static inline double smallvis_xlogx(double x)
{
    return x > 0.0 ? x * log(x) : 0.0;
}

/*
 * The repulsive cost of a heavy-tailed weight w = 1 / (1 + u), u >= 0:
 *     -log(1 - w) = log(1 + u) - log(u),
 * written without cancellation, log(u) floored at SMALLVIS_LOG_FLOOR.
 */
static inline double smallvis_fuzzy_repulsion(double u)
{
    return log1p(u) - smallvis_floored_log(u);
}

/* The weight 1 / (1 + a d2b) of UMAP's family (d2b = d2^b computed by the
 * caller: the vector loops compute it in a separate pass). */
static inline double smallvis_power_w(double d2b, double a)
{
    return smallvis_cauchy(a * d2b, 1.0);
}

/*
 * The fuzzy cross-entropy of a stored entry v against w = 1 / (1 + u),
 * beyond the all-pairs term -log(1 - w) that the engine adds separately:
 *     v log v + (1 - v) log(1 - v) + v log u.
 */
static inline double smallvis_fuzzy_edge(double v, double u)
{
    return smallvis_xlogx(v) + smallvis_xlogx(1.0 - v) + v * smallvis_floored_log(u);
}

/*
 * The KL divergence f(p, q) = p log(p / q) of the SNE family, as the hooks
 * of the normalised engine (backends/_pairloops.h, "engine: normalised
 * units"; NumPy: kl_offset and kl_force of methods/_common.py):
 *     offset_term    q df/dq = -p, whose sum over the set is -mass;
 *     offset         S = -mass (the fit's P counts as normalised, mass 1:
 *                    an exaggerated P scales the attraction only);
 *     force          c = dC/dd2 = (p + S q) slope, q = w / z.
 * A unit's cost hook writes p (log p - log q) in its own terms (its log
 * weight and log z).
 */
static inline double smallvis_kl_offset_term(double p, double q)
{
    (void)q;
    return -p;
}

static inline double smallvis_kl_offset(double mass, double dual)
{
    (void)dual;
    return -mass;
}

static inline double smallvis_kl_force(double p, double w, double z, double slope,
                                       double S)
{
    return (p + S * w / z) * slope;
}

/* The KL hooks offset_term, offset and force of a unit NAME whose cost is
 * the KL divergence; slope(d2, w, k) is the unit's -d log w / d d2 at d2,
 * where its relative weight is w. */
#define SMALLVIS_KL_HOOKS(name, slope)                                        \
    static inline double smallvis_##name##_offset_term(                       \
        double p, double q, const smallvis_##name##_params *k)                \
    {                                                                         \
        (void)k;                                                              \
        return smallvis_kl_offset_term(p, q);                                 \
    }                                                                         \
    static inline double smallvis_##name##_offset(                            \
        double mass, double dual, const smallvis_##name##_params *k)          \
    {                                                                         \
        (void)k;                                                              \
        return smallvis_kl_offset(mass, dual);                                \
    }                                                                         \
    static inline double smallvis_##name##_force(                             \
        double p, double w, double z, double d2, double S,                    \
        const smallvis_##name##_params *k)                                    \
    {                                                                         \
        return smallvis_kl_force(p, w, z, slope(d2, w, k), S);                \
    }

#endif /* SMALLVIS_METHODS_COMMON_H */
