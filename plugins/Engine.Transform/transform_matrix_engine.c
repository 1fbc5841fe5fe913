/* transform_matrix_engine.c - SOFA's four transform-matrix engines, each
 * composing a 4x4 homogeneous matrix (16 reals, row by row, as a mesh
 * loader's "transformation") with its input inT (identity by default):
 *   TranslateTransformMatrixEngine  outT = inT * [I t; 0 1]
 *   RotateTransformMatrixEngine     outT = inT * [R 0; 0 1], R from Euler
 *                                   angles in degrees (SOFA's
 *                                   createQuaterFromEuler)
 *   ScaleTransformMatrixEngine      outT = inT * diag(sx, sy, sz, 1)
 *   InvertTransformMatrixEngine     outT = [A^-1  -A^-1 t; 0 1] for inT =
 *                                   [A t; . .] (its last row is not read)
 * SOFA's translation, rotation and scale default to 0 0 0 (so an unset
 * scale gives a singular matrix, as in SOFA). A singular A gives a warning
 * and A^-1 = 0, as SOFA's transformInvertMatrix leaves it. */
#include <math.h>
#include <string.h>

#include "../shared/engine_util.h"
#include "../shared/euler_quat.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct tm_engine {
    st_component base;
    st_array in_t;  /* "inT": 16 reals, row-major */
    st_array out_t; /* "outT": 16 reals, row-major */
    st_vec3 v;      /* translation, rotation (degrees) or scale */
} tm_engine;

#define TM_COMMON                                                                                 \
    ST_REALS_N(tm_engine, in_t, "inT", "1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1",                        \
               "input transformation if any", 16),                                                \
        ST_OUTPUT(tm_engine, out_t, "outT", ST_T_REALS, st_array, "output transformation")

static const st_field translate_fields[] = {
    TM_COMMON, ST_VEC3(tm_engine, v, "translation", "0 0 0", "translation vector"),
    ST_FIELD_END};
static const st_field rotate_fields[] = {
    TM_COMMON, ST_VEC3(tm_engine, v, "rotation", "0 0 0", "euler angles"), ST_FIELD_END};
static const st_field scale_fields[] = {
    TM_COMMON, ST_VEC3(tm_engine, v, "scale", "0 0 0", "scaling values"), ST_FIELD_END};
static const st_field invert_fields[] = {TM_COMMON, ST_FIELD_END};

/* The input matrix, checked to hold 16 values (a link may bring others). */
static st_status input_matrix(tm_engine *e, double in[16], st_error *err)
{
    if (e->in_t.n != 16)
        return st_component_error(&e->base, "inT", err, ST_EINVAL,
                                  "inT needs 16 values (a 4x4 matrix, row by row), got %zu",
                                  e->in_t.n);
    memcpy(in, e->in_t.r, 16 * sizeof(double));
    return ST_OK;
}

/* outT = inT * m. */
static st_status compose(tm_engine *e, const double m[16], st_error *err)
{
    double in[16];
    ST_TRY(input_matrix(e, in, err));
    ST_TRY(st_array_resize(&e->out_t, ST_T_REALS, 16, err));
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0;
            for (int k = 0; k < 4; k++)
                s += in[4 * i + k] * m[4 * k + j];
            e->out_t.r[4 * i + j] = s;
        }
    return ST_OK;
}

static void identity(double m[16])
{
    memset(m, 0, 16 * sizeof(double));
    m[0] = m[5] = m[10] = m[15] = 1;
}

static st_status translate_update(st_component *self, st_error *err)
{
    tm_engine *e = (tm_engine *)self;
    double m[16];
    identity(m);
    m[3] = e->v[0], m[7] = e->v[1], m[11] = e->v[2];
    return compose(e, m, err);
}

static st_status rotate_update(st_component *self, st_error *err)
{
    tm_engine *e = (tm_engine *)self;
    double a[3], q[4], m[16];
    for (int k = 0; k < 3; k++)
        a[k] = e->v[k] * M_PI / 180.0;
    quat_from_euler(q, a);
    double x = q[0], y = q[1], z = q[2], w = q[3];
    identity(m);
    m[0] = 1 - 2 * (y * y + z * z), m[1] = 2 * (x * y - z * w), m[2] = 2 * (z * x + y * w);
    m[4] = 2 * (x * y + z * w), m[5] = 1 - 2 * (z * z + x * x), m[6] = 2 * (y * z - x * w);
    m[8] = 2 * (z * x - y * w), m[9] = 2 * (y * z + x * w), m[10] = 1 - 2 * (y * y + x * x);
    return compose(e, m, err);
}

static st_status scale_update(st_component *self, st_error *err)
{
    tm_engine *e = (tm_engine *)self;
    double m[16];
    identity(m);
    m[0] = e->v[0], m[5] = e->v[1], m[10] = e->v[2];
    return compose(e, m, err);
}

static st_status invert_update(st_component *self, st_error *err)
{
    tm_engine *e = (tm_engine *)self;
    double in[16], inv[9] = {0};
    ST_TRY(input_matrix(e, in, err));
    const double *r0 = in, *r1 = in + 4, *r2 = in + 8;
    /* adjugate of the 3x3 block A */
    double c00 = r1[1] * r2[2] - r1[2] * r2[1], c01 = r1[2] * r2[0] - r1[0] * r2[2],
           c02 = r1[0] * r2[1] - r1[1] * r2[0];
    double det = r0[0] * c00 + r0[1] * c01 + r0[2] * c02;
    if (fabs(det) <= 1e-100 || !isfinite(det)) {
        st_component_warn(self, "Could not invert matrix (its 3x3 block is singular)");
    } else {
        inv[0] = c00 / det;
        inv[1] = (r0[2] * r2[1] - r0[1] * r2[2]) / det;
        inv[2] = (r0[1] * r1[2] - r0[2] * r1[1]) / det;
        inv[3] = c01 / det;
        inv[4] = (r0[0] * r2[2] - r0[2] * r2[0]) / det;
        inv[5] = (r0[2] * r1[0] - r0[0] * r1[2]) / det;
        inv[6] = c02 / det;
        inv[7] = (r0[1] * r2[0] - r0[0] * r2[1]) / det;
        inv[8] = (r0[0] * r1[1] - r0[1] * r1[0]) / det;
    }
    ST_TRY(st_array_resize(&e->out_t, ST_T_REALS, 16, err));
    double *o = e->out_t.r;
    for (int i = 0; i < 3; i++) {
        double t = 0;
        for (int k = 0; k < 3; k++) {
            o[4 * i + k] = inv[3 * i + k];
            t -= inv[3 * i + k] * in[4 * k + 3];
        }
        o[4 * i + 3] = t;
    }
    o[12] = o[13] = o[14] = 0, o[15] = 1;
    return ST_OK;
}

static const st_engine_ops translate_engine = {.struct_size = sizeof(st_engine_ops),
                                               .update = translate_update};
static const st_engine_ops rotate_engine = {.struct_size = sizeof(st_engine_ops),
                                            .update = rotate_update};
static const st_engine_ops scale_engine = {.struct_size = sizeof(st_engine_ops),
                                           .update = scale_update};
static const st_engine_ops invert_engine = {.struct_size = sizeof(st_engine_ops),
                                            .update = invert_update};

#define TM_CLASS(var, cname, desc, fields_, engine_)                                              \
    const st_class var = {                                                                        \
        .struct_size = sizeof(st_class),                                                          \
        .name = cname,                                                                            \
        .category = "Engine",                                                                     \
        .description = desc,                                                                      \
        .instance_size = sizeof(tm_engine),                                                       \
        .fields = fields_,                                                                        \
        .engine = &engine_,                                                                       \
    }

TM_CLASS(translate_transform_matrix_engine_class, "TranslateTransformMatrixEngine",
         "Compose the input transform (if any) with the given translation.", translate_fields,
         translate_engine);
TM_CLASS(rotate_transform_matrix_engine_class, "RotateTransformMatrixEngine",
         "Compose the input transform (if any) with the given rotation.", rotate_fields,
         rotate_engine);
TM_CLASS(scale_transform_matrix_engine_class, "ScaleTransformMatrixEngine",
         "Compose the input transform (if any) with the given scale transformation.",
         scale_fields, scale_engine);
TM_CLASS(invert_transform_matrix_engine_class, "InvertTransformMatrixEngine",
         "Inverts the input transform.", invert_fields, invert_engine);
