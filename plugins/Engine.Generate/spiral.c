/* spiral.c - Spiral: rolls a straight model into a spiral of Archimedes
 * r = A t (A = curvature), as SOFA's engine: a rest point (x, y, z) goes to
 * arc length l = |x| along the spiral, t solving l = A/2 (t sqrt(1+t^2) +
 * asinh t) by 10 Newton steps from sqrt(l); the point is
 * (r cos t, r sin t, z) + y n with r = A t (-A t when x <= 0) and n the
 * unit normal (-A sin t - A t cos t, A cos t - A t sin t, 0), whose y is
 * capped at 0.8 (x then -0.6) for t in (-pi/2, pi/2) as SOFA does. */
#include <math.h>

#include "../shared/engine_util.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct spiral {
    st_component base;
    st_array x0, x; /* vec3[] */
    double curvature;
} spiral;

static const st_field spiral_fields[] = {
    ST_COORDS(spiral, x0, "rest_position", NULL,
              "Rest position coordinates of the degrees of freedom"),
    ST_OUTPUT(spiral, x, "position", ST_T_COORDS, st_array,
              "Position coordinates of the degrees of freedom"),
    ST_REAL(spiral, curvature, "curvature", "0.2", "Spiral curvature factor"),
    ST_FIELD_END};

static st_status spiral_update(st_component *self, st_error *err)
{
    spiral *s = (spiral *)self;
    const double A = s->curvature;
    ST_TRY(st_array_resize_width(&s->x, 3, s->x0.n, err));
    for (size_t i = 0; i < s->x0.n; i++) {
        const double *p = s->x0.r + 3 * i;
        const double t0 = p[0], l = fabs(t0);
        double t = sqrt(l);
        for (int n = 0; n < 10; n++) {
            const double lt = A / 2 * (t * sqrt(1 + t * t) + asinh(t));
            const double dlt = A * sqrt(1 + t * t);
            t = t - (lt - l) / dlt;
        }
        const double r = t0 > 0 ? A * t : -A * t;
        double v[3] = {r * cos(t), r * sin(t), p[2]};
        double nx = -A * sin(t) - A * t * cos(t), ny = A * cos(t) - A * t * sin(t);
        const double nn = sqrt(nx * nx + ny * ny);
        if (nn > 0)
            nx /= nn, ny /= nn;
        if (t > -M_PI / 2 && t < M_PI / 2 && ny > 0.8f) {
            ny = 0.8f;
            nx = -sqrt(1 - ny * ny);
        }
        v[0] += nx * p[1];
        v[1] += ny * p[1];
        memcpy(s->x.r + 3 * i, v, sizeof v);
    }
    return ST_OK;
}

static const st_engine_ops spiral_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = spiral_update,
};

const st_class spiral_class = {
    .struct_size = sizeof(st_class),
    .name = "Spiral",
    .category = "Engine",
    .description = "Engine turning on spiral any topological model.",
    .instance_size = sizeof(spiral),
    .fields = spiral_fields,
    .engine = &spiral_engine,
};
