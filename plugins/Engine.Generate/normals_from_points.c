/* normals_from_points.c - NormalsFromPoints: vertex normals from the
 * triangles and quads of a mesh, as SOFA's (Vec3d):
 * - triangles: each adds its unit normal (v2-v1)x(v3-v1) to its three
 *   vertices, or with useAngles the unnormalised normal times the corner
 *   angle over its norm;
 * - quads: each corner adds its own corner normal over its norm (SOFA's
 *   useAngles weighting of the fourth corner divides by the third corner's
 *   norm; kept);
 * then invertNormals negates and every normal is normalised (SOFA's
 * Vec::normalize: left as is when its norm is below epsilon). As SOFA's
 * output is written in place, a later update adds to the normals of the
 * previous one when the number of points is unchanged (the direction is
 * the same for a mesh that did not move). */
#include <float.h>
#include <math.h>
#include <string.h>

#include <settee/settee.h>

typedef struct normals_from_points {
    st_component base;
    st_array position;  /* coord[] */
    st_array triangles; /* triangles */
    st_array quads;     /* quads */
    st_array normals;   /* output coord[] */
    bool invert, use_angles;
} normals_from_points;

static const st_field nfp_fields[] = {
    ST_COORDS(normals_from_points, position, "position", NULL, "Vertices of the mesh"),
    ST_TRIANGLES(normals_from_points, triangles, "triangles", NULL, "Triangles of the mesh"),
    ST_QUADS(normals_from_points, quads, "quads", NULL, "Quads of the mesh"),
    ST_OUTPUT(normals_from_points, normals, "normals", ST_T_COORDS, st_array,
              "Computed vertex normals of the mesh"),
    ST_BOOL(normals_from_points, invert, "invertNormals", "false", "Swap normals"),
    ST_BOOL(normals_from_points, use_angles, "useAngles", "false",
            "Use incident angles to weight faces normal contributions at each vertex"),
    ST_FIELD_END};

/* The corner angle between the edges in (into the corner) and out. */
static double corner(const double in[3], const double out[3])
{
    return acos(-st_v3_dot(in, out) / (st_v3_norm(in) * st_v3_norm(out)));
}

static st_status nfp_update(st_component *self, st_error *err)
{
    normals_from_points *e = (normals_from_points *)self;
    const size_t n = e->position.n;
    const double *x = e->position.r;
    const unsigned *t = e->triangles.u, *q = e->quads.u;
    for (size_t i = 0; i < 3 * e->triangles.n; i++)
        if (t[i] >= n)
            return st_component_error(self, "triangles", err, ST_ESCENE,
                                      "triangle %zu uses point %u of %zu", i / 3, t[i], n);
    for (size_t i = 0; i < 4 * e->quads.n; i++)
        if (q[i] >= n)
            return st_component_error(self, "quads", err, ST_ESCENE,
                                      "quad %zu uses point %u of %zu", i / 4, q[i], n);
    const bool keep = e->normals.n == n;
    ST_TRY(st_array_resize_width(&e->normals, 3, n, err));
    double *out = e->normals.r;
    if (!keep)
        memset(out, 0, 3 * n * sizeof *out);
    for (size_t i = 0; i < e->triangles.n; i++) {
        const double *v1 = x + 3 * t[3 * i], *v2 = x + 3 * t[3 * i + 1], *v3 = x + 3 * t[3 * i + 2];
        double a[3], b[3], nr[3];
        st_v3_sub(a, v2, v1), st_v3_sub(b, v3, v1);
        st_v3_cross(nr, a, b);
        double nn = st_v3_norm(nr);
        if (e->use_angles) {
            double e12[3], e23[3], e31[3];
            st_v3_sub(e12, v2, v1), st_v3_sub(e23, v3, v2), st_v3_sub(e31, v1, v3);
            st_v3_peq(out + 3 * t[3 * i], nr, corner(e31, e12) / nn);
            st_v3_peq(out + 3 * t[3 * i + 1], nr, corner(e12, e23) / nn);
            st_v3_peq(out + 3 * t[3 * i + 2], nr, corner(e23, e31) / nn);
        } else {
            if (nn > DBL_EPSILON)
                for (int k = 0; k < 3; k++)
                    nr[k] /= nn;
            for (int k = 0; k < 3; k++)
                st_v3_peq(out + 3 * t[3 * i + k], nr, 1.0);
        }
    }
    for (size_t i = 0; i < e->quads.n; i++) {
        const unsigned *qi = q + 4 * i;
        const double *v[4] = {x + 3 * qi[0], x + 3 * qi[1], x + 3 * qi[2], x + 3 * qi[3]};
        double nr[4][3], len[4], ed[4][3]; /* ed[k] = v[k+1] - v[k] */
        for (int k = 0; k < 4; k++)
            st_v3_sub(ed[k], v[(k + 1) % 4], v[k]);
        for (int k = 0; k < 4; k++) {
            double back[3]; /* v[k-1] - v[k] */
            st_v3_sub(back, v[(k + 3) % 4], v[k]);
            st_v3_cross(nr[k], ed[k], back);
            len[k] = st_v3_norm(nr[k]);
        }
        for (int k = 0; k < 4; k++) {
            double *o = out + 3 * qi[k];
            if (e->use_angles)
                st_v3_peq(o, nr[k], corner(ed[(k + 3) % 4], ed[k]) / (k == 3 ? len[2] : len[k]));
            else /* SOFA divides (not times 1 / len) */
                o[0] += nr[k][0] / len[k], o[1] += nr[k][1] / len[k], o[2] += nr[k][2] / len[k];
        }
    }
    for (size_t i = 0; i < n; i++) {
        double *p = out + 3 * i;
        if (e->invert)
            p[0] = -p[0], p[1] = -p[1], p[2] = -p[2];
        double l = st_v3_norm(p);
        if (l > DBL_EPSILON)
            p[0] /= l, p[1] /= l, p[2] /= l;
    }
    return ST_OK;
}

static const st_engine_ops nfp_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = nfp_update,
};

static const char *const nfp_templates[] = {"Vec3d", NULL};

const st_class normals_from_points_class = {
    .struct_size = sizeof(st_class),
    .name = "NormalsFromPoints",
    .category = "Engine",
    .description = "Compute vertex normals by averaging face normals.",
    .instance_size = sizeof(normals_from_points),
    .fields = nfp_fields,
    .engine = &nfp_engine,
    .templates = nfp_templates,
};
