/* hausdorff_distance.c - HausdorffDistance: d12 = max over points1 of the
 * distance to the nearest of points2, d21 the other way, max the larger
 * (0 for an empty cloud). Computed at init, and again at the start of each
 * step only with update (SOFA's doUpdate). Rigid3d: SOFA's distance of
 * RigidCoord differences, sqrt(|centre difference|^2 + |q_b^-1 q_a|^2). */
#include <float.h>
#include <math.h>

#include <settee/settee.h>

typedef struct hausdorff {
    st_component base;
    st_array p1, p2; /* coord[] */
    double d12, d21, max;
    bool update;
    bool done;
} hausdorff;

static const st_field hausdorff_fields[] = {
    ST_COORDS(hausdorff, p1, "points1", NULL, "Points belonging to the first point cloud"),
    ST_COORDS(hausdorff, p2, "points2", NULL, "Points belonging to the second point cloud"),
    ST_OUTPUT(hausdorff, d12, "d12", ST_T_REAL, double, "Distance from point cloud 1 to 2"),
    ST_OUTPUT(hausdorff, d21, "d21", ST_T_REAL, double, "Distance from point cloud 2 to 1"),
    ST_OUTPUT(hausdorff, max, "max", ST_T_REAL, double, "Symmetrical Hausdorff distance"),
    ST_BOOL(hausdorff, update, "update", "false", "Recompute every time step"),
    ST_FIELD_END};

static double dist(const double *a, const double *b, unsigned cw, unsigned sp)
{
    double d2 = 0;
    for (unsigned k = 0; k < sp; k++)
        d2 += (a[k] - b[k]) * (a[k] - b[k]);
    if (cw == 7) {
        /* |q_b^-1 q_a|^2 = |q_a|^2 / |q_b|^2 */
        double na = 0, nb = 0;
        for (int k = 3; k < 7; k++)
            na += a[k] * a[k], nb += b[k] * b[k];
        d2 += nb > 0 ? na / nb : 0;
    } else {
        for (unsigned k = sp; k < cw; k++) {
            double t = fmod(a[k] - b[k], 2 * 3.14159265358979323846);
            d2 += t * t;
        }
    }
    return sqrt(d2);
}

static double directed(const st_array *a, const st_array *b, unsigned cw, unsigned sp)
{
    double m = 0;
    for (size_t i = 0; i < a->n; i++) {
        double best = DBL_MAX;
        for (size_t j = 0; j < b->n; j++) {
            double d = dist(a->r + (size_t)cw * i, b->r + (size_t)cw * j, cw, sp);
            if (d < best)
                best = d;
        }
        if (best > m)
            m = best;
    }
    return m;
}

static void compute(hausdorff *h)
{
    const st_state_type *ty = st_component_state_type(&h->base);
    const unsigned cw = ty ? ty->coord_size : 3, sp = ty ? ty->spatial_size : 3;
    h->d12 = directed(&h->p1, &h->p2, cw, sp);
    h->d21 = directed(&h->p2, &h->p1, cw, sp);
    h->max = h->d21 > h->d12 ? h->d21 : h->d12;
}

static st_status hausdorff_update(st_component *self, st_error *err)
{
    (void)err;
    hausdorff *h = (hausdorff *)self;
    if (!h->done || h->update)
        compute(h);
    h->done = true;
    return ST_OK;
}

static void hausdorff_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    hausdorff *h = (hausdorff *)self;
    if (ev != ST_EVENT_ANIMATE_BEGIN || !h->update)
        return;
    st_error err = {0};
    if (st_component_update_inputs(self, &err) != ST_OK)
        st_component_warn(self, "%s", err.msg);
    compute(h);
}

static const st_engine_ops hausdorff_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = hausdorff_update,
};

static const char *const hausdorff_templates[] = {"Vec3d", "Vec1d", "Vec2d", "Rigid2d", "Rigid3d",
                                                  NULL};

const st_class hausdorff_distance_class = {
    .struct_size = sizeof(st_class),
    .name = "HausdorffDistance",
    .category = "Engine",
    .description = "Compute the Hausdorff distance of two point clouds.",
    .instance_size = sizeof(hausdorff),
    .fields = hausdorff_fields,
    .engine = &hausdorff_engine,
    .on_event = hausdorff_event,
    .templates = hausdorff_templates,
};
