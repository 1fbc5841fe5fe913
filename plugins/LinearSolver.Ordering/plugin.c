/* plugin.c - the LinearSolver.Ordering plugin: AMDOrderingMethod,
 * NaturalOrderingMethod and COLAMDOrderingMethod. They hold no data: a
 * direct solver of LinearSolver.Direct reads which one it is given (its
 * `orderingMethod` link, or the one in its node) and hands the choice to
 * CHOLMOD or UMFPACK, which compute the permutation. */
#include <settee/settee.h>

extern const st_class amd_ordering_method_class;
extern const st_class natural_ordering_method_class;
extern const st_class colamd_ordering_method_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &amd_ordering_method_class, err));
    ST_TRY(st_registry_add(r, &natural_ordering_method_class, err));
    ST_TRY(st_registry_add(r, &colamd_ordering_method_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.LinearSolver.Ordering", NULL};

ST_PLUGIN_DEFINE("LinearSolver.Ordering", "0.1.0",
                 "Fill-reducing ordering components for the direct linear solvers", "LGPL-2.1-or-later",
                 provides, register_classes)
