/* plugin.c - the LinearSystem plugin: MatrixLinearSystem,
 * ConstantSparsityPatternSystem, CompositeLinearSystem and the two projection
 * methods, SOFA's linear-system components. settee's
 * kernel assembles the system matrix for the linear solvers, so all are
 * accepted (SOFA scenes name them) and change nothing; see
 * docs/solvers.md. */
#include <settee/settee.h>

extern const st_class matrix_linear_system_class;
extern const st_class constant_sparsity_pattern_system_class;
extern const st_class composite_linear_system_class;
extern const st_class matrix_projection_method_class, constant_sparsity_projection_method_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &matrix_linear_system_class, err));
    ST_TRY(st_registry_add(r, &constant_sparsity_pattern_system_class, err));
    ST_TRY(st_registry_add(r, &composite_linear_system_class, err));
    ST_TRY(st_registry_add(r, &matrix_projection_method_class, err));
    ST_TRY(st_registry_add(r, &constant_sparsity_projection_method_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.LinearSystem", NULL};

ST_PLUGIN_DEFINE("LinearSystem", "0.1.0",
                 "SOFA's linear-system components (accepted; settee's kernel assembles)",
                 "LGPL-2.1-or-later", provides, register_classes)
