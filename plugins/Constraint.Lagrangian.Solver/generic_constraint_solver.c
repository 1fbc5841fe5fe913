/* generic_constraint_solver.c - GenericConstraintSolver (alias
 * ProjectedGaussSeidelConstraintSolver): SOFA's built constraint solver;
 * resolutionMethod "ProjectedGaussSeidel" is the projected block
 * Gauss-Seidel of solver_common.c, "UnbuiltGaussSeidel" and
 * "NonsmoothNonlinearConjugateGradient" the methods of solver_methods.c
 * (those of UnbuiltGaussSeidelConstraintSolver and NNCGConstraintSolver). */
#include <string.h>

#include "solver_common.h"

static const st_field generic_fields[] = {
    LAGRANGE_SOLVER_FIELDS,
    ST_STRING(lagrange_solver, resolution_method, "resolutionMethod", "ProjectedGaussSeidel",
              "Method used to solve the constraint problem, among: \"ProjectedGaussSeidel\", "
              "\"UnbuiltGaussSeidel\" or \"NonsmoothNonlinearConjugateGradient\""),
    ST_FIELD_END};

static st_status generic_init(st_component *self, st_error *err)
{
    lagrange_solver *s = (lagrange_solver *)self;
    const char *m = s->resolution_method ? s->resolution_method : "ProjectedGaussSeidel";
    ST_TRY(lagrange_solver_init(self, err));
    if (strcmp(m, "ProjectedGaussSeidel") == 0)
        return ST_OK;
    if (strcmp(m, "UnbuiltGaussSeidel") == 0) {
        s->method = lagrange_unbuilt_gauss_seidel;
        return ST_OK;
    }
    if (strcmp(m, "NonsmoothNonlinearConjugateGradient") == 0)
        return lagrange_nncg_attach(s, err);
    return st_component_error(self, "resolutionMethod", err, ST_EINVAL,
                              "resolutionMethod: '%s' is not one of ProjectedGaussSeidel, "
                              "UnbuiltGaussSeidel, NonsmoothNonlinearConjugateGradient",
                              m);
}

static void generic_cleanup(st_component *self)
{
    lagrange_nncg_detach((lagrange_solver *)self);
    lagrange_solver_cleanup(self);
}

static const char *const generic_aliases[] = {"ProjectedGaussSeidelConstraintSolver", NULL};

const st_class generic_constraint_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "GenericConstraintSolver",
    .category = "ConstraintSolver",
    .description = "A Constraint Solver using the Linear Complementarity Problem formulation to "
                   "solve Constraint based components (projected Gauss-Seidel)",
    .aliases = generic_aliases,
    .instance_size = sizeof(lagrange_solver),
    .fields = generic_fields,
    .init = generic_init,
    .cleanup = generic_cleanup,
    .constraint_solver = &lagrange_solver_ops,
};
