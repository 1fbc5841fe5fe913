/* composite_linear_system.c - CompositeLinearSystem: SOFA's system that
 * hands every contribution to several linear systems and gives one of them
 * (solverLinearSystem, else the first of them) to the linear solver.
 * settee's kernel assembles the solver's whole system itself, so this
 * component checks the links: the solver's system must be a whole one (its
 * switches at SOFA's defaults); the others are observers (a
 * MatrixLinearSystem with parts switched off), whose A() SofaPython3
 * scripts read. */
#include "linear_system_common.h"

extern const st_class matrix_linear_system_class;
extern const st_class constant_sparsity_pattern_system_class;

typedef struct composite_system {
    st_component base;
    char *template_name;
    bool enable_assembly, factorization_invalidation;
    st_array matrix_size;
    st_array linear_systems;     /* "linearSystems": links "@a @b" */
    st_component *solver_system; /* "solverLinearSystem" */
} composite_system;

static bool is_matrix_system(const st_component *c)
{
    return c && (c->cls == &matrix_linear_system_class ||
                 c->cls == &constant_sparsity_pattern_system_class);
}

/* SOFA's init: linearSystems gets solverLinearSystem when it lacks it; an
 * unset solverLinearSystem is the first of linearSystems. */
static st_status composite_init(st_component *self, st_error *err)
{
    composite_system *s = (composite_system *)self;
    ST_TRY(linsys_require_true(self, "enableAssembly", s->enable_assembly, err));
    st_component *first = NULL;
    for (size_t k = 0; k < s->linear_systems.n; k++) {
        const char *p = s->linear_systems.s[k];
        st_component *c = NULL;
        st_error e = {0};
        if (!p || p[0] != '@' ||
            st_node_resolve(self->node, p + 1, ST_LINK_ANY, &c, &e) != ST_OK ||
            !is_matrix_system(c))
            return st_component_error(self, "linearSystems", err, ST_ELINK,
                                      "entry %zu ('%s') is not a link to a MatrixLinearSystem%s%s",
                                      k, p ? p : "", e.msg[0] ? ": " : "", e.msg);
        if (!first)
            first = c;
    }
    st_component *solver = s->solver_system ? s->solver_system : first;
    if (!solver) {
        /* SOFA logs an error and the component does nothing. */
        st_component_warn(self, "no linear system (linearSystems and solverLinearSystem are "
                                "empty): it does nothing");
        return ST_OK;
    }
    if (!is_matrix_system(solver))
        return st_component_error(self, "solverLinearSystem", err, ST_ELINK,
                                  "%s is a %s, not a MatrixLinearSystem", solver->name,
                                  solver->cls->name);
    if (matrix_system_partial((const matrix_system *)solver))
        return st_component_error(self, s->solver_system ? "solverLinearSystem" : "linearSystems",
                                  err, ST_ESCENE,
                                  "the solver's system %s has parts switched off: settee's "
                                  "linear solvers solve the whole system, so it must keep "
                                  "SOFA's defaults",
                                  solver->name);
    return ST_OK;
}

static const st_field fields[] = {
    LINSYS_F_BASE(composite_system),
    ST_FIELD_EX(composite_system, linear_systems, "linearSystems", ST_T_STRINGS, st_array, "",
                "List of linear systems to assemble (links; settee: checked, the observers' "
                "matrices are read from Python)",
                ST_F_NOLINK, NULL, 0.0, 0.0),
    ST_LINK(composite_system, solver_system, "solverLinearSystem", ST_LINK_ANY,
            "Among the list of linear systems, which one is to be used by the linear solver"),
    ST_FIELD_END};

const st_class composite_linear_system_class = {
    .struct_size = sizeof(st_class),
    .name = "CompositeLinearSystem",
    .category = "LinearSystem",
    .description = "Several linear systems fed by the same contributions, one of them solved "
                   "(settee's kernel assembles the solver's; the others observe)",
    .instance_size = sizeof(composite_system),
    .fields = fields,
    .init = composite_init,
};
