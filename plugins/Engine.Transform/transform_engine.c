/* transform_engine.c - TransformEngine: output_position is input_position
 * scaled (scale, per axis), rotated by the Euler angles rotation (degrees,
 * SOFA's createQuaterFromEuler), rotated by quaternion, then translated,
 * each step only when its value differs from the identity. With inverse,
 * each step is inverted and their order reversed. Vec1d and Vec2d points
 * are taken as (x, 0, 0) and (x, y, 0) and keep their own components;
 * Rigid3d frames have their centre transformed and their orientation
 * turned by the rotations. */
#include <math.h>

#include "../shared/engine_util.h"
#include "../shared/euler_quat.h"

typedef struct transform_engine {
    st_component base;
    st_array input;  /* "input_position", coord[] */
    st_array output; /* "output_position", output coord[] */
    st_vec3 translation, rotation, scale;
    st_vec4 quaternion; /* x y z w */
    bool inverse;
} transform_engine;

static const st_field transform_engine_fields[] = {
    ST_COORDS(transform_engine, input, "input_position", NULL, "input array of 3d points"),
    ST_OUTPUT(transform_engine, output, "output_position", ST_T_COORDS, st_array,
              "output array of 3d points"),
    ST_VEC3(transform_engine, translation, "translation", "0 0 0", "translation vector (x,y,z)"),
    ST_VEC3(transform_engine, rotation, "rotation", "0 0 0",
            "rotation vector (x,y,z): Euler angles in degrees"),
    ST_VEC4(transform_engine, quaternion, "quaternion", "0 0 0 1",
            "rotation quaternion (qx,qy,qz,qw)"),
    ST_VEC3(transform_engine, scale, "scale", "1 1 1", "scale factor"),
    ST_BOOL(transform_engine, inverse, "inverse", "false", "true to apply inverse transformation"),
    ST_FIELD_END};

/* SOFA's Quat::inverse: the conjugate over the norm (zero stays zero). */
static void quat_inverse(double q[4])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n == 0.0)
        return;
    q[0] = -q[0] / n, q[1] = -q[1] / n, q[2] = -q[2] / n, q[3] = q[3] / n;
}

typedef enum { OP_SCALE, OP_ROTATE, OP_TRANSLATE } op_kind;
typedef struct op {
    op_kind kind;
    double v[4]; /* scale or translation (3), or a quaternion */
} op;

static void apply(const op *o, double *p, unsigned cw, unsigned sp)
{
    double x[3] = {0, 0, 0};
    for (unsigned k = 0; k < sp; k++)
        x[k] = p[k];
    switch (o->kind) {
    case OP_SCALE:
        for (int k = 0; k < 3; k++)
            x[k] *= o->v[k];
        break;
    case OP_TRANSLATE:
        for (int k = 0; k < 3; k++)
            x[k] += o->v[k];
        break;
    case OP_ROTATE:
        quat_rotate(o->v, x);
        if (cw == 7) {
            double r[4];
            st_quat_mul(r, o->v, p + 3);
            for (int k = 0; k < 4; k++)
                p[3 + k] = r[k];
        }
        break;
    }
    for (unsigned k = 0; k < sp; k++)
        p[k] = x[k];
}

/* SOFA compares quaternions to the identity with a threshold. */
static bool quat_is_identity(const double q[4])
{
    const double id[4] = {0, 0, 0, 1};
    for (int k = 0; k < 4; k++)
        if (fabs(q[k] - id[k]) > 1e-6)
            return false;
    return true;
}

static st_status transform_engine_update(st_component *self, st_error *err)
{
    transform_engine *e = (transform_engine *)self;
    op ops[4];
    int n = 0;
    const bool inv = e->inverse;
    const double *s = e->scale, *r = e->rotation, *t = e->translation;
    if (s[0] != 1 || s[1] != 1 || s[2] != 1) {
        ops[n].kind = OP_SCALE;
        for (int k = 0; k < 3; k++)
            ops[n].v[k] = inv ? 1.0 / s[k] : s[k];
        n++;
    }
    if (r[0] != 0 || r[1] != 0 || r[2] != 0) {
        const double d2r = 3.14159265358979323846 / 180.0; /* SOFA: r * (pi / 180) */
        const double rad[3] = {r[0] * d2r, r[1] * d2r, r[2] * d2r};
        ops[n].kind = OP_ROTATE;
        quat_from_euler(ops[n].v, rad);
        if (inv)
            quat_inverse(ops[n].v);
        n++;
    }
    if (!quat_is_identity(e->quaternion)) {
        ops[n].kind = OP_ROTATE;
        for (int k = 0; k < 4; k++)
            ops[n].v[k] = e->quaternion[k];
        if (inv)
            quat_inverse(ops[n].v);
        n++;
    }
    if (t[0] != 0 || t[1] != 0 || t[2] != 0) {
        ops[n].kind = OP_TRANSLATE;
        for (int k = 0; k < 3; k++)
            ops[n].v[k] = inv ? -t[k] : t[k];
        n++;
    }
    unsigned cw = eng_coord_size(self), sp = eng_spatial_size(self);
    ST_TRY(st_array_resize_width(&e->output, cw, e->input.n, err));
    if (e->input.n)
        memcpy(e->output.r, e->input.r, e->input.n * cw * sizeof(double));
    for (size_t i = 0; i < e->input.n; i++) {
        double *p = e->output.r + (size_t)cw * i;
        for (int k = 0; k < n; k++)
            apply(&ops[inv ? n - 1 - k : k], p, cw, sp);
    }
    return ST_OK;
}

static const st_engine_ops transform_engine_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = transform_engine_update,
};

static const char *const transform_engine_templates[] = {"Vec3d", "Vec1d", "Vec2d", "Rigid3d",
                                                         NULL};

const st_class transform_engine_class = {
    .struct_size = sizeof(st_class),
    .name = "TransformEngine",
    .category = "Engine",
    .description = "Engine applying a transformation on 3d points (translation / rotation).",
    .instance_size = sizeof(transform_engine),
    .fields = transform_engine_fields,
    .engine = &transform_engine_engine,
    .templates = transform_engine_templates,
};
