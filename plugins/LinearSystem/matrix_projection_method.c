/* matrix_projection_method.c - MatrixProjectionMethod: SOFA's component
 * that projects the matrix of a mapped pair of states onto the independent
 * states (J1^T K J2). settee's kernel projects every mapped contribution
 * itself, recomputing the Jacobians at each assembly, so this component
 * checks its two states and changes nothing. */
#include "projection_method.h"

st_status projection_method_init(st_component *self, st_error *err)
{
    projection_method *p = (projection_method *)self;
    if (p->states.n != 0 && p->states.n != 2)
        return st_component_error(self, "mechanicalStates", err, ST_ESCENE,
                                  "two states (a pair of links \"@a @b\"), not %zu",
                                  p->states.n);
    for (size_t k = 0; k < p->states.n; k++) {
        const char *path = p->states.s[k];
        st_component *c = NULL;
        st_error e = {0};
        if (!path || path[0] != '@' ||
            st_node_resolve(self->node, path + 1, ST_LINK_STATE, &c, &e) != ST_OK || !c ||
            !st_component_has_role(c, ST_ROLE_STATE))
            return st_component_error(self, "mechanicalStates", err, ST_ELINK,
                                      "entry %zu ('%s') is not a link to a MechanicalObject%s%s",
                                      k, path ? path : "", e.msg[0] ? ": " : "", e.msg);
    }
    return ST_OK;
}

static const st_field fields[] = {PROJECTION_METHOD_FIELDS, ST_FIELD_END};

const st_class matrix_projection_method_class = {
    .struct_size = sizeof(st_class),
    .name = "MatrixProjectionMethod",
    .category = "LinearSystem",
    .description = "Projection of a mapped pair of states' matrix onto the independent states "
                   "(settee's kernel projects every mapped matrix: accepted, states checked)",
    .instance_size = sizeof(projection_method),
    .fields = fields,
    .init = projection_method_init,
};
