/* model_common.c - see model_common.h. */
#include "model_common.h"

st_status lagrange_check_vec3_side(st_component *self, const char *field, const st_mstate *ms,
                                   const st_array *idx, st_error *err)
{
    if (!ms)
        return st_component_error(self, field, err, ST_EINVAL,
                                  "%s: no mechanical state in the node or its ancestors (set "
                                  "the link or put a MechanicalObject in the node)",
                                  field);
    if (ms->type->deriv_size != 3 || ms->type->coord_size != 3)
        return st_component_error(self, field, err, ST_EINVAL,
                                  "%s: state '%s' is %s; settee's %s is Vec3d only", field,
                                  ms->base.name, ms->type->name, self->cls->name);
    const unsigned *u = idx->p;
    for (size_t i = 0; i < idx->n; i++)
        if (u[i] >= ms->n)
            return st_component_error(self, field, err, ST_EINVAL,
                                      "point %u is out of range: '%s' has %zu points", u[i],
                                      ms->base.name, ms->n);
    return ST_OK;
}
