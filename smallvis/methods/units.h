/*
 * The compiled method units and their three lists, one X-macro per kind:
 * SMALLVIS_PAIR_UNITS (a cost summed over pairs), SMALLVIS_NORMALISED_UNITS
 * (q normalised over all pairs or per row, a cost summed over elementwise
 * terms f(p, q): asne, ssne, tsne, jse, ...) and SMALLVIS_ROW_UNITS (a unit that owns
 * its whole row: infonce).  The engines are generated from these lists:
 * the exact pair rows, the normalised engine's rows and the transform rows
 * (backends/_pairloops.h), the parameter loaders and unit tables that the
 * Cython entry points pick from (backends/_kernels.pyx), and the
 * stochastic loop's coefficient table (backends/_sgd_kernels.pyx).
 *
 * The C preprocessor cannot discover the method folders, so the lists and
 * the #include of each folder's unit.h are generated: each unit.h declares
 * its units, one comment line per unit (the compiler ignores them), e.g.
 *         smallvis unit: pair largevis FUSED PLAIN
 *         smallvis unit: normalised tsne FAST
 *         smallvis unit: row infonce
 * each inside a C comment, and the build (setup.py, which runs
 * smallvis/_units_list.py) writes methods/_units_list.h from them, the
 * folders in the order of smallvis.registry.FOLDERS and a file's units in
 * file order.  The engines find a unit by its name, so the order changes
 * no number.  Adding a method: its unit.h with its line(s), its folder in
 * FOLDERS, then python setup.py build_ext --inplace; nothing here
 * (tests/test_c_units.py checks that the generated file is current).
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
 *                                        N training points for a new point).
 * Its line: pair NAME ROW_2D SGD, the list's X(NAME, ROW_2D, SGD), with
 *   ROW_2D  how its exact gradient runs in two output dimensions: FUSED (the
 *           generic fused row), NO_ROW_2D (the generic any-dimension row: it
 *           returns a learned scalar's term) or a specialised fast path
 *           (UMAP_TWO_PASS);
 *   SGD     its stochastic coefficients smallvis_NAME_sgd_attract/_repel:
 *           PLAIN (k, d2), LEARNED (k, d2, q, nu, &dq; a learned scalar and
 *           the epoch's noise count) or NO_SGD.
 *
 * A normalised unit's line: normalised NAME MATHS, the list's X(NAME,
 * MATHS).  Its hooks (shift, weight, log_norm, cost, offset_term, offset,
 * force) and loader smallvis_NAME_load_fields are listed in
 * backends/_pairloops.h, "engine: normalised units", which runs them for
 * normalised_cost, normalised_gradient and their transform twins.  MATHS
 * is FAST (the module's reassociating flags, vector reductions) or STRICT
 * (a row's sums, z and the offset S, added in index order with no fused
 * multiply-add; backends/_pairloops.h says why).  The NumPy unit's
 * ``c_unit`` names its line, and its ``normalisation`` picks rows or all
 * pairs.  tsne is two lines, its Cauchy weight and its heavy tail, so that
 * neither row branches on dof.  The SNE family's named fit kernels keep
 * their fast paths (backends/_kernels.pyx; tests/test_normalised_engine.py
 * checks them against the engine).
 *
 * A row unit's line: row NAME, the list's X(NAME).  A row's expected loss
 * is not a sum of pair terms (InfoNCE's softmax couples a row's
 * candidates); the kernels that call it are Cython code of their own, and
 * the stochastic loop runs its grouped step smallvis_NAME_sgd_group.
 */
#ifndef SMALLVIS_METHODS_UNITS_H
#define SMALLVIS_METHODS_UNITS_H

#include "common.h"

/* the lists and the units' #includes, written by the build */
#include "_units_list.h"

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
