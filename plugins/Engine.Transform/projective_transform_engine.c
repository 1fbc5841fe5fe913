/* projective_transform_engine.c - ProjectiveTransformEngine: each point x
 * taken to homogeneous coordinates, multiplied by the 3x4 matrix proj_mat
 * (row-major, SOFA's default all zeros) to y, and scaled by
 * focal_distance / y_z, as SOFA's (Vec3d). SOFA clamps y_z away from zero
 * but divides by the unclamped value; settee keeps SOFA's numbers (an
 * infinite or NaN point) and warns once when that happens. */
#include <math.h>

#include "../shared/engine_util.h"

typedef struct projective_transform_engine {
    st_component base;
    st_array input;  /* coord[] */
    st_array output; /* output coord[] */
    st_array proj;   /* 12 reals */
    double focal;
    bool warned;
} projective_transform_engine;

static const st_field pte_fields[] = {
    ST_COORDS(projective_transform_engine, input, "input_position", NULL,
              "input array of 3d points"),
    ST_OUTPUT(projective_transform_engine, output, "output_position", ST_T_COORDS, st_array,
              "output array of projected 3d points"),
    ST_FIELD_EX(projective_transform_engine, proj, "proj_mat", ST_T_REALS, st_array,
                "0 0 0 0 0 0 0 0 0 0 0 0", "projection matrix (3x4, row-major)",
                ST_F_COUNT | ST_F_BRACKETS, NULL, 12, 12),
    ST_REAL(projective_transform_engine, focal, "focal_distance", "1", "focal distance "),
    ST_FIELD_END};

static st_status pte_update(st_component *self, st_error *err)
{
    projective_transform_engine *e = (projective_transform_engine *)self;
    const size_t n = e->input.n;
    const double *P = e->proj.r, f = e->focal;
    ST_TRY(st_array_resize_width(&e->output, 3, n, err));
    bool degenerate = false;
    for (size_t i = 0; i < n; i++) {
        const double *x = e->input.r + 3 * i;
        double *y = e->output.r + 3 * i;
        for (int j = 0; j < 3; j++)
            y[j] = P[4 * j] * x[0] + P[4 * j + 1] * x[1] + P[4 * j + 2] * x[2] + P[4 * j + 3] * 1.0;
        if (fabs(y[2]) < 1e-10)
            degenerate = true;
        double r = f / y[2];
        for (int j = 0; j < 3; j++)
            y[j] *= r;
    }
    if (degenerate && !e->warned) {
        st_component_warn(self, "a point projects to depth 0 (|y_z| < 1e-10; proj_mat all zeros "
                                "by default): its projection is infinite or NaN, as in SOFA");
        e->warned = true;
    }
    return ST_OK;
}

static const st_engine_ops pte_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = pte_update,
};

static const char *const vec3_only[] = {"Vec3d", NULL};

const st_class projective_transform_engine_class = {
    .struct_size = sizeof(st_class),
    .name = "ProjectiveTransformEngine",
    .category = "Engine",
    .description = "Project the position of 3d points onto a plane according to a projection "
                   "matrix.",
    .instance_size = sizeof(projective_transform_engine),
    .fields = pte_fields,
    .engine = &pte_engine,
    .templates = vec3_only,
};
