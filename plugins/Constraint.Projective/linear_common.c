/* linear_common.c - what LinearMovementProjectiveConstraint and
 * LinearVelocityProjectiveConstraint share: index and key-time checks, and
 * the projections of their points. */
#include "projective.h"

st_status projective_check_indices(st_component *self, const st_array *indices, size_t n,
                                   st_error *err)
{
    for (size_t i = 0; i < indices->n; i++)
        if (indices->u[i] >= n)
            return st_component_error(self, "indices", err, ST_ESCENE,
                                      "index %u (position %zu) is beyond the %zu points of the "
                                      "state",
                                      indices->u[i], i, n);
    return ST_OK;
}

st_status projective_check_increasing(st_component *self, const st_array *times, st_error *err)
{
    for (size_t k = 1; k < times->n; k++)
        if (times->r[k] < times->r[k - 1])
            return st_component_error(self, "keyTimes", err, ST_ESCENE,
                                      "key times must be in chronological order: keyTimes[%zu] "
                                      "= %g comes after %g",
                                      k, times->r[k], times->r[k - 1]);
    return ST_OK;
}

st_status projective_follow(st_component *self, st_component *topology, void **pts, size_t *n,
                            size_t item_size, st_error *err)
{
    if (!topology || !topology->cls->topology)
        return ST_OK;
    ST_TRY(st_topology_follow_subset(self, "indices", topology, ST_ELEM_POINT, err));
    if (!pts)
        return ST_OK;
    const st_topology_ops *ops = topology->cls->topology;
    size_t np = ops->nb_points ? ops->nb_points(topology) : 0;
    if (*n != np)
        return st_component_error(self, "indices", err, ST_ESCENE,
                                  "the state has %zu points and its topology '%s' %zu: the "
                                  "constraint cannot follow the topology's changes",
                                  *n, topology->name ? topology->name : "?", np);
    return st_topology_follow(self, topology, ST_ELEM_POINT, pts, n, item_size, NULL, NULL, err);
}

void projective_zero_points(double *s, const st_array *indices)
{
    for (size_t i = 0; i < indices->n; i++) {
        double *p = s + 3 * indices->u[i];
        p[0] = p[1] = p[2] = 0.0;
    }
}

void projective_zero_dofs(double *s, unsigned d, const st_array *indices)
{
    for (size_t i = 0; i < indices->n; i++)
        for (unsigned k = 0; k < d; k++)
            s[d * indices->u[i] + k] = 0.0;
}

void projective_matrix_points(st_matrix *m, const st_mstate *ms, const st_array *indices)
{
    for (size_t i = 0; i < indices->n; i++)
        for (unsigned a = 0; a < 3; a++)
            st_matrix_project_dof(m, ms, indices->u[i], a);
}

void projective_matrix_dofs(st_matrix *m, const st_mstate *ms, const st_array *indices)
{
    unsigned d = ms->type->deriv_size;
    for (size_t i = 0; i < indices->n; i++)
        for (unsigned a = 0; a < d; a++)
            st_matrix_project_dof(m, ms, indices->u[i], a);
}
