/* displacement_transform_engine.c - DisplacementTransformEngine: for each
 * frame (Rigid3: centre, then quaternion x y z w), the transform that takes
 * its rest frame x0 to its current frame x: with template "Rigid3,Mat4x4"
 * (SOFA's first, the default) the 4x4 matrix H(x) H(x0^-1), 16 reals per
 * frame row by row; with "Rigid3,Rigid3" the frame x composed on the right
 * with x0^-1 (centre c + R(q) c', quaternion q q', as SOFA's multRight),
 * 7 reals.
 * x0^-1 is SOFA's Rigid inverse (q^-1, -(q^-1 c)) and H a frame's
 * homogeneous matrix. x0 and x hold 7 reals per frame (a link to a Rigid3d
 * state's rest_position/position gives its values in order); x and x0 of
 * different sizes:
 * SOFA's error, as a warning, and the output is left as it was. The
 * quaternions are used as given (SOFA normalises neither). */
#include <math.h>

#include "../shared/engine_util.h"
#include "displacement_common.h"

typedef struct displacement_engine {
    st_component base;
    char *template_name;  /* "template": "Rigid3,Mat4x4" or "Rigid3,Rigid3" */
    st_array x0, x;       /* 7 reals per frame */
    st_array displacements;
} displacement_engine;

static const st_field displacement_engine_fields[] = {
    ST_STRING(displacement_engine, template_name, "template", "Rigid3d,Mat4x4",
              "Input and output types: Rigid3,Mat4x4 (matrices) or Rigid3,Rigid3 (frames)"),
    ST_REALS(displacement_engine, x0, "x0", NULL, "Rest position"),
    ST_REALS(displacement_engine, x, "x", NULL, "Current position"),
    ST_OUTPUT(displacement_engine, displacements, "displacements", ST_T_REALS, st_array,
              "Displacement transforms with respect to original rigid positions"),
    ST_FIELD_END};

static st_status displacement_update(st_component *self, st_error *err)
{
    displacement_engine *e = (displacement_engine *)self;
    const char *t = e->template_name ? e->template_name : "";
    const char *comma = strchr(t, ',');
    const bool rigid_in = !strncmp(t, "Rigid3", 6) && (t[6] == ',' || t[6] == 'd' || t[6] == 'f');
    const char *out = comma ? comma + 1 : "";
    const bool mat = !strncmp(out, "Mat4x4", 6);
    const bool rigid_out = !strncmp(out, "Rigid3", 6);
    if (!rigid_in || !(mat || rigid_out) || (mat && out[6] && strcmp(out + 6, "d") &&
                                               strcmp(out + 6, "f")))
        return st_component_error(self, "template", err, ST_ESCENE,
                                  "template '%s': expected Rigid3,Mat4x4 or Rigid3,Rigid3", t);
    if (e->x0.n % 7 || e->x.n % 7)
        return st_component_error(self, e->x0.n % 7 ? "x0" : "x", err, ST_EINVAL,
                                  "%zu values: Rigid3 frames take 7 each (centre, quaternion)",
                                  e->x0.n % 7 ? e->x0.n : e->x.n);
    const size_t n = e->x.n / 7;
    if (n != e->x0.n / 7) {
        st_component_warn(self, "x and x0 have not the same size: respectively %zu and %zu", n,
                          e->x0.n / 7);
        return ST_OK;
    }
    const unsigned w = mat ? 16 : 7;
    ST_TRY(st_array_resize(&e->displacements, ST_T_REALS, n * w, err));
    for (size_t i = 0; i < n; i++) {
        const double *x = e->x.r + 7 * i;
        double inv[7];
        rigid_inverse(e->x0.r + 7 * i, inv);
        double *o = e->displacements.r + w * i;
        if (mat) {
            double A[16], B[16];
            homogeneous(x, A);
            homogeneous(inv, B);
            mat4_mul(o, A, B);
        } else {
            /* SOFA's multRight: c += q_x (c_inv), q = q_x q_inv. */
            double d[3];
            qrot(x + 3, inv, d);
            for (int k = 0; k < 3; k++)
                o[k] = x[k] + d[k];
            qmul(o + 3, x + 3, inv + 3);
        }
    }
    return ST_OK;
}

static const st_engine_ops displacement_engine_ops = {
    .struct_size = sizeof(st_engine_ops),
    .update = displacement_update,
};

const st_class displacement_transform_engine_class = {
    .struct_size = sizeof(st_class),
    .name = "DisplacementTransformEngine",
    .category = "Engine",
    .description = "Converts a vector of Rigid to a vector of displacement transforms.",
    .instance_size = sizeof(displacement_engine),
    .fields = displacement_engine_fields,
    .engine = &displacement_engine_ops,
};
