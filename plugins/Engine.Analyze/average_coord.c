/* average_coord.c - AverageCoord: the mean of the coordinates of the
 * context's MechanicalObject (all points, or those in indices) in the
 * vector vecId names (SOFA's VecCoordId indices: 1 position, the default,
 * 2 rest_position, 4 reset_position), recomputed at the start of every
 * step as SOFA does. Rigid3d: the centres' mean and, as SOFA's RigidCoord
 * sum, the product q_n ... q_2 q_1 of the orientations (not normalised,
 * and not divided); Rigid2d: the centres' mean and the sum of the angles.
 * No state: nothing (as SOFA); an empty list or an unknown vecId: SOFA's
 * error, as a warning, and the average is left as it was; an index beyond
 * the state is an error (SOFA reads out of bounds). */
#include <string.h>

#include <settee/settee.h>

typedef struct average_coord {
    st_component base;
    st_array indices;
    unsigned vec_id;
    st_array average; /* one coord */
} average_coord;

static const st_field average_coord_fields[] = {
    ST_UINTS(average_coord, indices, "indices", NULL, "indices of the coordinates to average"),
    ST_UINT(average_coord, vec_id, "vecId", "1",
            "index of the vector (default value corresponds to "
            "core::vec_id::write_access::position )"),
    ST_OUTPUT(average_coord, average, "average", ST_T_COORDS, st_array,
              "average of the values with the given indices in the given coordinate vector "
              "(default value corresponds to the average coord of the mechanical context)"),
    ST_FIELD_END};

/* Hamilton product r = a b, quaternions x y z w. */
static void quat_mul(double *r, const double *a, const double *b)
{
    const double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    const double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    const double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    const double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    r[0] = x, r[1] = y, r[2] = z, r[3] = w;
}

static st_status average_compute(average_coord *a, st_error *err)
{
    st_component *self = &a->base;
    st_mstate *ms = st_component_mstate(self);
    if (!ms)
        return ST_OK;
    const st_array *x = a->vec_id == 1   ? &ms->position
                        : a->vec_id == 2 ? &ms->rest_position
                        : a->vec_id == 4 ? &ms->reset_position
                                         : NULL;
    if (!x) {
        st_component_warn_field(self, "vecId", "Cannot get coordinates from VecId %u",
                                a->vec_id);
        return ST_OK;
    }
    const st_state_type *ty = st_component_state_type(self);
    const unsigned cw = ty ? ty->coord_size : 3, sp = ty ? ty->spatial_size : 3;
    const size_t n = a->indices.n ? a->indices.n : x->n;
    if (n == 0) {
        st_component_warn(self, "Trying to average an empty list of coordinates");
        return ST_OK;
    }
    for (size_t i = 0; i < a->indices.n; i++)
        if (a->indices.u[i] >= x->n)
            return st_component_error(self, "indices", err, ST_EINVAL,
                                      "index %u beyond the %zu points of '%s'", a->indices.u[i],
                                      x->n, ms->base.name);
    double c[7] = {0, 0, 0, 0, 0, 0, 0};
    const bool rigid3 = cw == 7, rigid2 = cw == 3 && sp == 2;
    if (rigid3)
        c[6] = 1; /* identity orientation */
    for (size_t i = 0; i < n; i++) {
        const double *p = x->r + (size_t)cw * (a->indices.n ? a->indices.u[i] : i);
        for (unsigned k = 0; k < sp; k++)
            c[k] += p[k];
        if (rigid3)
            quat_mul(c + 3, p + 3, c + 3);
        else if (rigid2)
            c[2] += p[2];
    }
    for (unsigned k = 0; k < sp; k++)
        c[k] *= 1.0 / (double)n;
    if (!rigid3 && !rigid2)
        for (unsigned k = sp; k < cw; k++)
            c[k] *= 1.0 / (double)n;
    ST_TRY(st_array_resize_width(&a->average, cw, 1, err));
    memcpy(a->average.r, c, cw * sizeof(double));
    return ST_OK;
}

static st_status average_update(st_component *self, st_error *err)
{
    return average_compute((average_coord *)self, err);
}

static void average_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    if (ev != ST_EVENT_ANIMATE_BEGIN)
        return;
    st_error err = {0};
    if (average_compute((average_coord *)self, &err) != ST_OK)
        st_component_warn(self, "%s", err.msg);
}

static const st_engine_ops average_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = average_update,
};

static const char *const average_templates[] = {"Vec3d", "Vec2d", "Rigid2d", "Rigid3d", NULL};

const st_class average_coord_class = {
    .struct_size = sizeof(st_class),
    .name = "AverageCoord",
    .category = "Engine",
    .description = "Compute the average of coordinates.",
    .instance_size = sizeof(average_coord),
    .fields = average_coord_fields,
    .engine = &average_engine,
    .on_event = average_event,
    .templates = average_templates,
};
