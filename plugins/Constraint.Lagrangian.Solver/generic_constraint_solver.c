/* generic_constraint_solver.c - GenericConstraintSolver (alias
 * ProjectedGaussSeidelConstraintSolver): SOFA's built constraint solver;
 * resolutionMethod "ProjectedGaussSeidel" is the projected block
 * Gauss-Seidel of solver_common.c, "UnbuiltGaussSeidel" and
 * "NonsmoothNonlinearConjugateGradient" the methods of solver_methods.c
 * (those of UnbuiltGaussSeidelConstraintSolver and NNCGConstraintSolver; as
 * in the SOFA versions that had resolutionMethod, the NNCG iterates at most
 * newtonIterations times here, maxIterations in NNCGConstraintSolver). */
#include <string.h>

#include "solver_common.h"

/* The solver and the fields of SOFA versions that chose the method here. */
typedef struct generic_solver {
    lagrange_solver base;
    int newton_iterations;  /* "newtonIterations" */
    bool reverse_order;     /* "reverseAccumulateOrder" */
} generic_solver;

static const st_field generic_fields[] = {
    LAGRANGE_SOLVER_FIELDS,
    ST_STRING(lagrange_solver, resolution_method, "resolutionMethod", "ProjectedGaussSeidel",
              "Method used to solve the constraint problem, among: \"ProjectedGaussSeidel\", "
              "\"UnbuiltGaussSeidel\" or \"NonsmoothNonlinearConjugateGradient\""),
    ST_FIELD_EX(generic_solver, newton_iterations, "newtonIterations", ST_T_INT, int, "100",
                "Maximum iteration number of Newton (for the "
                "NonsmoothNonlinearConjugateGradient solver only)",
                0, NULL, 1.0, 2147483647.0),
    ST_BOOL(generic_solver, reverse_order, "reverseAccumulateOrder", "false",
            "True to accumulate constraints from nodes in reversed order (can be necessary when "
            "using multi-mappings or interaction constraints not following the node hierarchy) "
            "(settee: only false)"),
    ST_FIELD_END};

static st_status generic_init(st_component *self, st_error *err)
{
    generic_solver *g = (generic_solver *)self;
    lagrange_solver *s = &g->base;
    const char *m = s->resolution_method ? s->resolution_method : "ProjectedGaussSeidel";
    if (g->reverse_order)
        return st_component_error(self, "reverseAccumulateOrder", err, ST_EINVAL,
                                  "reverseAccumulateOrder: true is not implemented in settee");
    bool nncg = strcmp(m, "NonsmoothNonlinearConjugateGradient") == 0;
    if (st_component_is_set(self, "newtonIterations") && !nncg)
        st_component_warn_field(self, "newtonIterations",
                                "data \"newtonIterations\" is only taken into account when "
                                "using the NonsmoothNonlinearConjugateGradient solver");
    ST_TRY(lagrange_solver_init(self, err));
    if (strcmp(m, "ProjectedGaussSeidel") == 0)
        return ST_OK;
    if (strcmp(m, "UnbuiltGaussSeidel") == 0) {
        s->method = lagrange_unbuilt_gauss_seidel;
        return ST_OK;
    }
    /* SOFA's GenericConstraintSolver bounded its NNCG by newtonIterations. */
    if (nncg)
        return lagrange_nncg_attach(s, g->newton_iterations, err);
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
    .instance_size = sizeof(generic_solver),
    .fields = generic_fields,
    .init = generic_init,
    .cleanup = generic_cleanup,
    .constraint_solver = &lagrange_solver_ops,
};
