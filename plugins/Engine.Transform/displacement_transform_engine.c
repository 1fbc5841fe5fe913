/* displacement_transform_engine.c - DisplacementTransformEngine: for each
 * frame (Rigid3: centre, then quaternion x y z w), the transform that takes
 * its rest frame x0 to its current frame x: with template "Rigid3,Mat4x4"
 * (SOFA's first, the default) the 4x4 matrix H(x) H(x0^-1), 16 reals per
 * frame row by row; with "Rigid3,Rigid3" the frame x composed on the right
 * with x0^-1 (centre c + R(q) c', quaternion q q', as SOFA's multRight),
 * 7 reals.
 * x0^-1 is SOFA's Rigid inverse (q^-1, -(q^-1 c)) and H a frame's
 * homogeneous matrix. x0 and x hold 7 reals per frame. A link from a
 * Rigid3d state's rest_position/position into them is refused by the
 * kernel (points into a plain real list), so SOFA's scene linking them does
 * not load yet; x and x0 of different sizes:
 * SOFA's error, as a warning, and the output is left as it was. The
 * quaternions are used as given (SOFA normalises neither). */
#include <math.h>

#include "../shared/engine_util.h"

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

/* Hamilton product r = a b (x y z w). */
static void qmul(double *r, const double *a, const double *b)
{
    const double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    const double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    const double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    const double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    r[0] = x, r[1] = y, r[2] = z, r[3] = w;
}

/* Rotation matrix of q (row-major 3x3). */
static void qmat(const double *q, double R[9])
{
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - z * w), R[2] = 2 * (z * x + y * w);
    R[3] = 2 * (x * y + z * w), R[4] = 1 - 2 * (z * z + x * x), R[5] = 2 * (y * z - x * w);
    R[6] = 2 * (z * x - y * w), R[7] = 2 * (y * z + x * w), R[8] = 1 - 2 * (y * y + x * x);
}

static void qrot(const double *q, const double *v, double *out)
{
    double R[9];
    qmat(q, R);
    for (int i = 0; i < 3; i++)
        out[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
}

/* SOFA's Rigid inverse: q^-1 (the conjugate over the norm), -(q^-1 c). */
static void rigid_inverse(const double *f, double *inv)
{
    const double *q = f + 3;
    const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double qi[4] = {0, 0, 0, 0};
    if (n > 0)
        qi[0] = -q[0] / n, qi[1] = -q[1] / n, qi[2] = -q[2] / n, qi[3] = q[3] / n;
    double c[3];
    qrot(qi, f, c);
    inv[0] = -c[0], inv[1] = -c[1], inv[2] = -c[2];
    memcpy(inv + 3, qi, sizeof qi);
}

static void homogeneous(const double *f, double H[16])
{
    double R[9];
    qmat(f + 3, R);
    memset(H, 0, 16 * sizeof(double));
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            H[4 * i + j] = R[3 * i + j];
        H[4 * i + 3] = f[i];
    }
    H[15] = 1;
}

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
            for (int r = 0; r < 4; r++)
                for (int c = 0; c < 4; c++) {
                    double s = 0;
                    for (int k = 0; k < 4; k++)
                        s += A[4 * r + k] * B[4 * k + c];
                    o[4 * r + c] = s;
                }
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
