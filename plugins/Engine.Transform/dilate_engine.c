/* dilate_engine.c - DilateEngine: every point of a surface moved along its
 * normal by distance (positive dilates, negative erodes), as SOFA's
 * (Vec3d):
 * - normal: the normalised sum of the unnormalised face normals of the
 *   triangles (v1-v0)x(v2-v0) and of each quad corner around the point;
 * - with minThickness != 0, thickness: the distance from the point along
 *   minus its normal to the nearest other triangle of the surface (quads
 *   split as (0,1,2), (0,2,3)), 0 when none; with minThickness > 0, a point
 *   thinner than it moves by (minThickness - thickness) / 2 more.
 * SOFA finds the hits with its triangle octree; settee tests every
 * triangle with the same ray/triangle test, which finds the same nearest
 * hit. No points or no faces: SOFA's warning, and no output. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "../shared/engine_util.h"
#include "../shared/ray_triangle.h"

typedef struct dilate_engine {
    st_component base;
    st_array input;     /* coord[] */
    st_array output;    /* output coord[] */
    st_array triangles; /* triangles */
    st_array quads;     /* quads */
    st_array normals;   /* output coord[] */
    st_array thickness; /* output real[] */
    double distance, min_thickness;
} dilate_engine;

static const st_field dilate_fields[] = {
    ST_FIELD_EX(dilate_engine, input, "input_position", ST_T_COORDS, st_array, NULL,
                "input array of 3d points", 0, "position", 0, 0),
    ST_OUTPUT(dilate_engine, output, "output_position", ST_T_COORDS, st_array,
              "output array of 3d points"),
    ST_TRIANGLES(dilate_engine, triangles, "triangles", NULL, "input mesh triangles"),
    ST_QUADS(dilate_engine, quads, "quads", NULL, "input mesh quads"),
    ST_OUTPUT(dilate_engine, normals, "normal", ST_T_COORDS, st_array, "point normals"),
    ST_OUTPUT(dilate_engine, thickness, "thickness", ST_T_REALS, st_array, "point thickness"),
    ST_REAL(dilate_engine, distance, "distance", "0",
            "distance to move the points (positive for dilatation, negative for erosion)"),
    ST_REAL(dilate_engine, min_thickness, "minThickness", "0", "minimal thickness to enforce"),
    ST_FIELD_END};

/* acc += (b - a) x (c - a) */
static void add_corner(double *acc, const double *a, const double *b, const double *c)
{
    double u[3], v[3], n[3];
    st_v3_sub(u, b, a), st_v3_sub(v, c, a);
    st_v3_cross(n, u, v);
    st_v3_peq(acc, n, 1.0);
}

/* The nearest hit beyond the point along -normal, on a triangle without
 * the point (0 when none). */
static double thickness_at(const dilate_engine *e, size_t ip)
{
    const double *x = e->input.r, *o = x + 3 * ip, *nr = e->normals.r + 3 * ip;
    const double dir[3] = {-nr[0], -nr[1], -nr[2]};
    double best = -1.0;
    const size_t nt = e->triangles.n, nq = e->quads.n;
    for (size_t k = 0; k < nt + 2 * nq; k++) {
        unsigned v[3];
        if (k < nt) {
            memcpy(v, e->triangles.u + 3 * k, sizeof v);
        } else {
            const unsigned *q = e->quads.u + 4 * ((k - nt) / 2);
            bool second = (k - nt) % 2;
            v[0] = q[0], v[1] = q[second ? 2 : 1], v[2] = q[second ? 3 : 2];
        }
        if (v[0] == ip || v[1] == ip || v[2] == ip)
            continue;
        double t;
        if (ray_triangle(x + 3 * v[0], x + 3 * v[1], x + 3 * v[2], o, dir, &t, NULL, NULL) &&
            t > 0 && (t < best || best < 0))
            best = t;
    }
    return best < 0 ? 0.0 : best;
}

static st_status dilate_update(st_component *self, st_error *err)
{
    dilate_engine *e = (dilate_engine *)self;
    const size_t n = e->input.n, nt = e->triangles.n, nq = e->quads.n;
    if (n == 0) {
        st_component_warn(self, "No input position");
        return ST_OK;
    }
    if (nt == 0 && nq == 0) {
        st_component_warn(self, "No input mesh (neither triangle or quad)");
        return ST_OK;
    }
    for (size_t i = 0; i < 3 * nt; i++)
        if (e->triangles.u[i] >= n)
            return st_component_error(self, "triangles", err, ST_ESCENE,
                                      "triangle %zu uses point %u of %zu", i / 3,
                                      e->triangles.u[i], n);
    for (size_t i = 0; i < 4 * nq; i++)
        if (e->quads.u[i] >= n)
            return st_component_error(self, "quads", err, ST_ESCENE, "quad %zu uses point %u of %zu",
                                      i / 4, e->quads.u[i], n);
    const double *x = e->input.r;
    ST_TRY(st_array_resize_width(&e->normals, 3, n, err));
    double *nr = e->normals.r;
    memset(nr, 0, 3 * n * sizeof *nr);
    for (size_t i = 0; i < nt; i++) {
        const unsigned *t = e->triangles.u + 3 * i;
        double u[3], v[3], c[3];
        st_v3_sub(u, x + 3 * t[1], x + 3 * t[0]), st_v3_sub(v, x + 3 * t[2], x + 3 * t[0]);
        st_v3_cross(c, u, v);
        for (int k = 0; k < 3; k++)
            st_v3_peq(nr + 3 * t[k], c, 1.0);
    }
    for (size_t i = 0; i < nq; i++) {
        const unsigned *q = e->quads.u + 4 * i;
        for (int k = 0; k < 4; k++)
            add_corner(nr + 3 * q[k], x + 3 * q[k], x + 3 * q[(k + 1) % 4], x + 3 * q[(k + 3) % 4]);
    }
    for (size_t i = 0; i < n; i++) {
        double *p = nr + 3 * i, l = st_v3_norm(p);
        if (l > DBL_EPSILON)
            p[0] /= l, p[1] /= l, p[2] /= l;
    }
    if (e->min_thickness != 0) {
        ST_TRY(st_array_resize(&e->thickness, ST_T_REALS, n, err));
        for (size_t i = 0; i < n; i++)
            e->thickness.r[i] = thickness_at(e, i);
    }
    ST_TRY(st_array_resize_width(&e->output, 3, n, err));
    for (size_t i = 0; i < n; i++) {
        double d = e->distance;
        if (e->min_thickness > 0 && i < e->thickness.n && e->thickness.r[i] < e->min_thickness)
            d += (e->min_thickness - e->thickness.r[i]) * 0.5;
        for (int k = 0; k < 3; k++)
            e->output.r[3 * i + k] = x[3 * i + k] + nr[3 * i + k] * d;
    }
    return ST_OK;
}

static const st_engine_ops dilate_engine_ops = {
    .struct_size = sizeof(st_engine_ops),
    .update = dilate_update,
};

static const char *const vec3_only[] = {"Vec3d", NULL};

const st_class dilate_engine_class = {
    .struct_size = sizeof(st_class),
    .name = "DilateEngine",
    .category = "Engine",
    .description = "Dilates a given mesh by moving vertices along their normal.",
    .instance_size = sizeof(dilate_engine),
    .fields = dilate_fields,
    .engine = &dilate_engine_ops,
    .templates = vec3_only,
};
