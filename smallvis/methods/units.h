/*
 * The compiled method units, included and named here because the C
 * preprocessor cannot discover the method folders as the registry does:
 * this is the C side's copy of the registry's folder list, which
 * tests/test_c_units.py checks against smallvis.registry.METHODS.  Each
 * unit is named once, in one of three X-macros by kind:
 * SMALLVIS_PAIR_UNITS (a cost summed over pairs), SMALLVIS_NORMALISED_UNITS
 * (q normalised over all pairs or per row, a cost summed over elementwise
 * terms f(p, q): asne, ssne, tsne) or SMALLVIS_ROW_UNITS (a unit that owns
 * its whole row: infonce).  The engines are generated from these lists:
 * the exact pair rows, the normalised engine's rows and the transform rows
 * (backends/_pairloops.h), the parameter loaders and unit tables that the
 * Cython entry points pick from (backends/_kernels.pyx), and the
 * stochastic loop's coefficient table (backends/_sgd_kernels.pyx).
 *
 * Adding a method: write its unit methods/<method>/unit.h, then add its
 * line at the end of its macro and its #include right below (one change:
 * the last line gains its backslash), e.g.
 *         X(negtsne, FUSED, PLAIN)    \
 *         X(newmethod, FUSED, PLAIN)
 *     #include "newmethod/unit.h"
 * (tests/test_c_units.py checks that every unit is here).
 *
 * A pair unit NAME (a cost summed over pairs) provides, besides the maths
 * the engines call (see backends/_pairloops.h):
 *   smallvis_NAME_params                 its parameter struct;
 *   smallvis_NAME_fields[]               the NumPy unit's fields, in order,
 *                                        space-separated;
 *   smallvis_NAME_load(f, n_others, k)   fills the struct from those fields
 *                                        (f[0], f[1], ... in that order) and
 *                                        the number of points a point is
 *                                        compared with (N - 1 in a fit, the
 *                                        N reference points for a new point).
 * Each line: X(NAME, ROW_2D, SGD) with
 *   ROW_2D  how its exact gradient runs in two output dimensions: FUSED (the
 *           generic fused row), NO_ROW_2D (the generic any-dimension row: it
 *           returns a learned scalar's term) or a specialised fast path
 *           (UMAP_TWO_PASS);
 *   SGD     its stochastic coefficients smallvis_NAME_sgd_attract/_repel:
 *           PLAIN (k, d2), LEARNED (k, d2, q, nu, &dq; a learned scalar and
 *           the epoch's noise count) or NO_SGD.
 */
#ifndef SMALLVIS_METHODS_UNITS_H
#define SMALLVIS_METHODS_UNITS_H

#include "common.h"

/*
 * The normalised units, each X(NAME, MATHS): its hooks (shift, weight,
 * log_norm, cost, offset_term, offset, force) and loader
 * smallvis_NAME_load_fields are listed in backends/_pairloops.h, "engine:
 * normalised units", which runs them for normalised_cost,
 * normalised_gradient and their transform twins.  MATHS is FAST (the
 * module's reassociating flags, vector reductions) or STRICT (the unit's
 * expressions evaluated as written).  The NumPy unit's ``c_unit`` names
 * its line, and its ``normalisation`` picks rows or all pairs.  tsne is
 * two lines, its Cauchy weight and its heavy tail, so that neither row
 * branches on dof.  The SNE family's named fit kernels keep their fast
 * paths (backends/_kernels.pyx; tests/test_normalised_engine.py checks
 * them against the engine).  Adding one: its line at the end, its
 * #include below (if a new file).
 */
#include "asne/unit.h"
#include "ssne/unit.h"
#include "tsne/unit.h"
#include "jse/unit.h"
#include "sjse/unit.h"

#define SMALLVIS_NORMALISED_UNITS(X)    \
    X(asne, FAST)                       \
    X(ssne, FAST)                       \
    X(tsne, FAST)                       \
    X(tsne_dof, FAST)                   \
    X(jse, STRICT)                      \
    X(sjse, STRICT)

/* the units that own their whole row: a row's expected loss is not a sum of
 * pair terms (InfoNCE's softmax couples a row's candidates); the kernels
 * that call them are Cython code of their own, and the stochastic loop runs
 * their grouped step smallvis_NAME_sgd_group */
#include "infonce/unit.h"

#define SMALLVIS_ROW_UNITS(X)           \
    X(infonce)

/* ---- the units: begin ------------------------------------------------- */
#define SMALLVIS_PAIR_UNITS(X)                  \
    X(largevis, FUSED, PLAIN)                   \
    X(largevis_exp, FUSED, NO_SGD)              \
    X(umap, UMAP_TWO_PASS, PLAIN)               \
    X(tumap, FUSED, NO_SGD)                     \
    X(ncvis, NO_ROW_2D, LEARNED)                \
    X(negtsne, FUSED, PLAIN)
#include "negtsne/unit.h"
#include "largevis/unit.h"
#include "umap/unit.h"
#include "tumap/unit.h"
#include "ncvis/unit.h"
/* ---- the units: end --------------------------------------------------- */

/* Room for any pair unit's parameters. */
typedef union {
#define SMALLVIS_UNION_MEMBER(name, row_2d, sgd) smallvis_##name##_params name;
    SMALLVIS_PAIR_UNITS(SMALLVIS_UNION_MEMBER)
#undef SMALLVIS_UNION_MEMBER
} smallvis_unit_params;

/* A unit's loader with the struct behind a void pointer. */
typedef void (*smallvis_unit_loader)(const double *f, double n_others, void *k);

#define SMALLVIS_LOADER(name, row_2d, sgd)                                    \
    static void smallvis_##name##_load_any(const double *f, double n_others,  \
                                           void *k)                           \
    {                                                                         \
        smallvis_##name##_load(f, n_others, (smallvis_##name##_params *)k);   \
    }
SMALLVIS_PAIR_UNITS(SMALLVIS_LOADER)
#undef SMALLVIS_LOADER

/* The list's names, fields and loaders, in the order of the list. */
#define SMALLVIS_NAME_ENTRY(name, row_2d, sgd) #name,
static const char *const smallvis_unit_names[] = {SMALLVIS_PAIR_UNITS(SMALLVIS_NAME_ENTRY)};
#undef SMALLVIS_NAME_ENTRY
#define SMALLVIS_FIELDS_ENTRY(name, row_2d, sgd) smallvis_##name##_fields,
static const char *const smallvis_unit_fields[] = {SMALLVIS_PAIR_UNITS(SMALLVIS_FIELDS_ENTRY)};
#undef SMALLVIS_FIELDS_ENTRY
#define SMALLVIS_LOADER_ENTRY(name, row_2d, sgd) smallvis_##name##_load_any,
static const smallvis_unit_loader smallvis_unit_loaders[] = {
    SMALLVIS_PAIR_UNITS(SMALLVIS_LOADER_ENTRY)};
#undef SMALLVIS_LOADER_ENTRY
#define SMALLVIS_N_UNITS \
    ((ptrdiff_t)(sizeof(smallvis_unit_names) / sizeof(smallvis_unit_names[0])))

#endif /* SMALLVIS_METHODS_UNITS_H */
