/* vertex2frame.c - Vertex2Frame: a Rigid3d frame per vertex. The frame's
 * centre is the vertex; its z axis is the vertex normal (useNormals, or the
 * opposite with invertNormals; x = y0 x z with y0 the y axis, or z when the
 * normal is along y), or else its x axis points to the next vertex (z0 the
 * x axis, or z when the edge is along x; the last vertex copies the
 * previous orientation). The orientation is SOFA's quaternion of that
 * frame, then turned by rotationAngle degrees about the frame's x, y or z
 * axis (rotation 0, 1, 2). */
#include <float.h>
#include <math.h>
#include <string.h>

#include <settee/settee.h>

typedef struct vertex2frame {
    st_component base;
    st_array vertices;   /* "position", vec3 */
    st_array tex_coords; /* "texCoords" (kept) */
    st_array normals;    /* "normals", vec3 */
    st_array frames;     /* "frames": output, Rigid3d coordinates */
    bool use_normals, invert_normals;
    int rotation;
    double rotation_angle;
} vertex2frame;

static const st_field v2f_fields[] = {
    ST_VEC3S(vertex2frame, vertices, "position", "", "Vertices of the mesh loaded"),
    ST_REALS(vertex2frame, tex_coords, "texCoords", "", "TexCoords of the mesh loaded"),
    ST_VEC3S(vertex2frame, normals, "normals", "", "Normals of the mesh loaded"),
    ST_OUTPUT(vertex2frame, frames, "frames", ST_T_COORDS, st_array, "Frames at output"),
    ST_BOOL(vertex2frame, use_normals, "useNormals", "true",
            "Use normals to compute the orientations; if disabled the direction of the x axisof a "
            "vertice is the one from this vertice to the next one"),
    ST_BOOL(vertex2frame, invert_normals, "invertNormals", "false", "Swap normals"),
    ST_INT(vertex2frame, rotation, "rotation", "0",
           "Apply a local rotation on the frames. If 0 a x-axis rotation is applied. If 1 a y-axis "
           "rotation is applied, If 2 a z-axis rotation is applied."),
    ST_REAL(vertex2frame, rotation_angle, "rotationAngle", "0", "Angle rotation"),
    ST_FIELD_END};

static void cross(double r[3], const double a[3], const double b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* SOFA's Vec::normalize: divided by the norm when it exceeds epsilon. */
static void normalize(double v[3])
{
    double n = sqrt(dot(v, v));
    if (n > DBL_EPSILON)
        for (int k = 0; k < 3; k++)
            v[k] /= n;
}

/* SOFA's Quat::fromMatrix of the matrix whose columns are x, y, z. */
static void quat_from_frame(double q[4], const double x[3], const double y[3], const double z[3])
{
    /* m[i][j]: row i, column j. */
    const double m[3][3] = {{x[0], y[0], z[0]}, {x[1], y[1], z[1]}, {x[2], y[2], z[2]}};
    double tr = m[0][0] + m[1][1] + m[2][2], s;
    if (tr > 0) {
        s = sqrt(tr + 1);
        q[3] = s * 0.5;
        s = 0.5 / s;
        q[0] = (m[2][1] - m[1][2]) * s;
        q[1] = (m[0][2] - m[2][0]) * s;
        q[2] = (m[1][0] - m[0][1]) * s;
    } else if (m[1][1] > m[0][0] && m[2][2] <= m[1][1]) {
        s = sqrt((m[1][1] - (m[2][2] + m[0][0])) + 1.0);
        q[1] = s * 0.5;
        if (s != 0.0)
            s = 0.5 / s;
        q[2] = (m[1][2] + m[2][1]) * s;
        q[0] = (m[0][1] + m[1][0]) * s;
        q[3] = (m[0][2] - m[2][0]) * s;
    } else if ((m[1][1] <= m[0][0] && m[2][2] > m[0][0]) || m[2][2] > m[1][1]) {
        s = sqrt((m[2][2] - (m[0][0] + m[1][1])) + 1.0);
        q[2] = s * 0.5;
        if (s != 0.0)
            s = 0.5 / s;
        q[0] = (m[2][0] + m[0][2]) * s;
        q[1] = (m[1][2] + m[2][1]) * s;
        q[3] = (m[1][0] - m[0][1]) * s;
    } else {
        s = sqrt((m[0][0] - (m[1][1] + m[2][2])) + 1.0);
        q[0] = s * 0.5;
        if (s != 0.0)
            s = 0.5 / s;
        q[1] = (m[0][1] + m[1][0]) * s;
        q[2] = (m[2][0] + m[0][2]) * s;
        q[3] = (m[2][1] - m[1][2]) * s;
    }
}

/* The frame's orientation turned about one of its axes (SOFA's q2 * q). */
static void orientation(const vertex2frame *v, double out[4], const double x[3], const double y[3],
                        const double z[3])
{
    double q[4], q2[4] = {0, 0, 0, 1};
    quat_from_frame(q, x, y, z);
    const double *axis = v->rotation == 0 ? x : v->rotation == 1 ? y : v->rotation == 2 ? z : NULL;
    if (axis) {
        double n = sqrt(dot(axis, axis));
        if (n >= DBL_EPSILON) {
            double phi = v->rotation_angle * 3.14159265358979323846 / 180, sp = sin(phi / 2), cp = cos(phi / 2);
            for (int k = 0; k < 3; k++)
                q2[k] = axis[k] / n * sp;
            q2[3] = cp;
        }
    }
    st_quat_mul(out, q2, q);
}

static st_status v2f_update(st_component *self, st_error *err)
{
    vertex2frame *v = (vertex2frame *)self;
    size_t n = v->vertices.n;
    if (n == 0) {
        st_component_info(self, "Vertex2Frame : no vertices found. Component will not compute "
                                "anything");
        return ST_OK;
    }
    if (v->use_normals && v->normals.n < n)
        return st_component_error(self, "normals", err, ST_ESCENE,
                                  "%zu normals for %zu vertices: Vertex2Frame needs one per vertex "
                                  "(or useNormals false)",
                                  v->normals.n, n);
    if (!v->use_normals && n < 2)
        return st_component_error(self, "position", err, ST_ESCENE,
                                  "no enough vertices to compute the orientations (useNormals "
                                  "false needs two)");
    ST_TRY(st_array_resize_width(&v->frames, 7, n, err));
    for (size_t i = 0; i < n; i++) {
        const double *p = v->vertices.r + 3 * i;
        double *f = v->frames.r + 7 * i;
        double x[3], y[3], z[3];
        if (v->use_normals) {
            const double *nr = v->normals.r + 3 * i;
            for (int k = 0; k < 3; k++)
                z[k] = v->invert_normals ? -nr[k] : nr[k];
            normalize(z);
            y[0] = 0, y[1] = 1, y[2] = 0;
            if (1.0 - fabs(dot(y, z)) <= DBL_EPSILON)
                y[0] = 0, y[1] = 0, y[2] = 1;
            cross(x, y, z);
            normalize(x);
            cross(y, z, x);
            normalize(y);
        } else if (i + 1 < n) {
            for (int k = 0; k < 3; k++)
                x[k] = p[3 + k] - p[k];
            normalize(x);
            z[0] = 1, z[1] = 0, z[2] = 0;
            if (1.0 - fabs(dot(z, x)) <= DBL_EPSILON)
                z[0] = 0, z[1] = 0, z[2] = 1;
            cross(y, z, x);
            normalize(y);
            cross(z, x, y);
            normalize(z);
        } else {
            memcpy(f, p, 3 * sizeof(double));
            memcpy(f + 3, f - 4, 4 * sizeof(double)); /* the previous frame's orientation */
            continue;
        }
        memcpy(f, p, 3 * sizeof(double));
        orientation(v, f + 3, x, y, z);
    }
    st_component_touch(self, st_component_field(self, "frames"));
    return ST_OK;
}

static const st_engine_ops v2f_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = v2f_update,
};

static const char *const rigid_only[] = {"Rigid3d", NULL};

const st_class vertex2frame_class = {
    .struct_size = sizeof(st_class),
    .name = "Vertex2Frame",
    .category = "Engine",
    .description = "Return a rigid position from a vertex and its normal (or the next vertex)",
    .instance_size = sizeof(vertex2frame),
    .fields = v2f_fields,
    .engine = &v2f_engine,
    .templates = rigid_only,
};
