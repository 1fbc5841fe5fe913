/* displacement_matrix_engine.c - DisplacementMatrixEngine (SOFA's older
 * form of DisplacementTransformEngine "Rigid3,Mat4x4", with scales): for
 * each Rigid3 frame (centre, then quaternion x y z w) the 4x4 matrix
 *   D_i = H(x_i) (S_i H(x0_i^-1))
 * row by row in "displaceMats" (SOFA renames the output so), where H is a
 * frame's homogeneous matrix, x0^-1 SOFA's Rigid inverse and S_i the
 * diagonal matrix (sx, sy, sz, 1) of "scales" (one Vec3 per frame; empty:
 * ones, written back at init as SOFA does). As in SOFA, the products
 * S_i H(x0_i^-1) are computed at init (and reinit) only: x0 is assumed
 * not to change after; the scales enter them as floats (SOFA's casts).
 * Sizes that differ (x0 and scales at init; x, x0 and scales at an
 * update): SOFA's error message, as a warning, and the output is left as
 * it was. */
#include "../shared/engine_util.h"
#include "displacement_common.h"

typedef struct displacement_matrix_engine {
    st_component base;
    char *template_name;  /* "template": Rigid3 */
    st_array x0, x;       /* 7 reals per frame */
    st_array scales;      /* one Vec3 per frame */
    st_array displacements;
    double *sx_inv;       /* S_i H(x0_i^-1), 16 per frame, from init */
    size_t nframes;
} displacement_matrix_engine;

static const st_field displacement_matrix_engine_fields[] = {
    ST_STRING(displacement_matrix_engine, template_name, "template", "Rigid3d",
              "Input type: Rigid3 (SOFA's only instance)"),
    ST_REALS(displacement_matrix_engine, x0, "x0", NULL, "Rest position"),
    ST_REALS(displacement_matrix_engine, x, "x", NULL, "Current position"),
    ST_OUTPUT(displacement_matrix_engine, displacements, "displaceMats", ST_T_REALS, st_array,
              "Displacement transforms with respect to original rigid positions"),
    ST_VEC3S(displacement_matrix_engine, scales, "scales", NULL,
             "Scale transformation added to the rigid transformation"),
    ST_FIELD_END};

static st_status dme_reinit(st_component *self, st_error *err)
{
    displacement_matrix_engine *e = (displacement_matrix_engine *)self;
    st_free(e->sx_inv);
    e->sx_inv = NULL;
    e->nframes = 0;
    const size_t n0 = e->x0.n / 7;
    if (e->scales.n != n0) {
        st_component_warn(self, "x0 and S have not the same size: respectively , %zu and %zu",
                          n0, e->scales.n);
        return ST_OK;
    }
    e->sx_inv = st_calloc(n0 ? 16 * n0 : 1, sizeof *e->sx_inv);
    if (!e->sx_inv)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu frames", n0);
    for (size_t i = 0; i < n0; i++) {
        double inv[7], H[16], S[16] = {0};
        rigid_inverse(e->x0.r + 7 * i, inv);
        homogeneous(inv, H);
        for (int k = 0; k < 3; k++)
            S[5 * k] = (double)(float)e->scales.r[3 * i + k];
        S[15] = 1.0;
        mat4_mul(e->sx_inv + 16 * i, S, H);
    }
    e->nframes = n0;
    return ST_OK;
}

static st_status dme_init(st_component *self, st_error *err)
{
    displacement_matrix_engine *e = (displacement_matrix_engine *)self;
    const char *t = e->template_name ? e->template_name : "";
    if (strcmp(t, "Rigid3") && strcmp(t, "Rigid3d") && strcmp(t, "Rigid3f") &&
        strcmp(t, "Rigid") && strcmp(t, "Rigid3Types"))
        return st_component_error(self, "template", err, ST_ESCENE,
                                  "template '%s': SOFA's DisplacementMatrixEngine is Rigid3 only",
                                  t);
    if (e->x0.n % 7 || e->x.n % 7)
        return st_component_error(self, e->x0.n % 7 ? "x0" : "x", err, ST_EINVAL,
                                  "%zu values: Rigid3 frames take 7 each (centre, quaternion)",
                                  e->x0.n % 7 ? e->x0.n : e->x.n);
    if (e->scales.n == 0 && e->x0.n) {
        const size_t n0 = e->x0.n / 7;
        ST_TRY(st_array_resize(&e->scales, ST_T_VEC3S, n0, err));
        for (size_t i = 0; i < 3 * n0; i++)
            e->scales.r[i] = 1.0;
        st_component_touch(self, st_component_field(self, "scales"));
    }
    return dme_reinit(self, err);
}

static st_status dme_update(st_component *self, st_error *err)
{
    displacement_matrix_engine *e = (displacement_matrix_engine *)self;
    const size_t n = e->x.n / 7, n0 = e->x0.n / 7;
    if (e->x.n % 7 || n != n0 || n != e->scales.n || n != e->nframes) {
        st_component_warn(self,
                          "x, x0 and S have not the same size: respectively %zu, %zu and %zu", n,
                          n0, e->scales.n);
        return ST_OK;
    }
    ST_TRY(st_array_resize(&e->displacements, ST_T_REALS, 16 * n, err));
    for (size_t i = 0; i < n; i++) {
        double H[16];
        homogeneous(e->x.r + 7 * i, H);
        mat4_mul(e->displacements.r + 16 * i, H, e->sx_inv + 16 * i);
    }
    return ST_OK;
}

static void dme_cleanup(st_component *self)
{
    displacement_matrix_engine *e = (displacement_matrix_engine *)self;
    st_free(e->sx_inv);
    e->sx_inv = NULL;
}

static const st_engine_ops dme_ops = {
    .struct_size = sizeof(st_engine_ops),
    .update = dme_update,
};

const st_class displacement_matrix_engine_class = {
    .struct_size = sizeof(st_class),
    .name = "DisplacementMatrixEngine",
    .category = "Engine",
    .description = "Converts a vector of Rigid to a vector of displacement matrices.",
    .instance_size = sizeof(displacement_matrix_engine),
    .fields = displacement_matrix_engine_fields,
    .init = dme_init,
    .reinit = dme_init,
    .cleanup = dme_cleanup,
    .engine = &dme_ops,
};
