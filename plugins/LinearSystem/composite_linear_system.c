/* composite_linear_system.c - CompositeLinearSystem: SOFA's system that
 * hands every contribution to several linear systems and gives one of them
 * (solverLinearSystem) to the linear solver. settee's kernel assembles the
 * solver's whole system itself, so this component checks the links: the
 * solver's system must be a whole one (its switches at SOFA's defaults) and
 * among linearSystems; the others are observers (a MatrixLinearSystem with
 * parts switched off), whose A() SofaPython3 scripts read. */
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

static st_status composite_init(st_component *self, st_error *err)
{
    composite_system *s = (composite_system *)self;
    ST_TRY(linsys_require_true(self, "enableAssembly", s->enable_assembly, err));
    if (!s->solver_system)
        return st_component_error(self, "solverLinearSystem", err, ST_ELINK,
                                  "no solverLinearSystem: the link to the system the linear "
                                  "solver solves (one of linearSystems) is required");
    if (!is_matrix_system(s->solver_system))
        return st_component_error(self, "solverLinearSystem", err, ST_ELINK,
                                  "%s is a %s, not a MatrixLinearSystem", s->solver_system->name,
                                  s->solver_system->cls->name);
    if (matrix_system_partial((const matrix_system *)s->solver_system))
        return st_component_error(self, "solverLinearSystem", err, ST_ESCENE,
                                  "%s has parts switched off: settee's linear solvers solve the "
                                  "whole system, so the solver's system must keep SOFA's "
                                  "defaults",
                                  s->solver_system->name);
    /* Every linearSystems entry is a MatrixLinearSystem; the solver's is
     * among them. */
    bool listed = false;
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
        listed = listed || c == s->solver_system;
    }
    if (!listed)
        return st_component_error(self, "linearSystems", err, ST_ESCENE,
                                  "solverLinearSystem %s is not among linearSystems",
                                  s->solver_system->name);
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
