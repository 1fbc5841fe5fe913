/* extrude_quads_and_generate_hexas.c - ExtrudeQuadsAndGenerateHexas: a quad
 * surface (surfaceVertices, surfaceQuads) extruded along its vertex normals
 * into numberOfSlices layers of hexahedra, as SOFA's (Vec3d):
 * - the normal of a vertex is the normalised sum of the unit normals
 *   (q1-q0)x(q2-q0) of its quads (zero for a vertex in no quad);
 * - vertex i gives slices n = 0..N, numbered i (N+1) + n, at
 *   scale .* x_i - normal thicknessIn + normal (thicknessIn +
 *   thicknessOut) / N n (scale applies to the position, not to the
 *   thickness);
 * - extrudedSurfaceQuads are the surface's quads on slice 0; extrudedQuads
 *   the quads of slice 0, reversed on slice N, both ways on the inner
 *   slices, then the four sides of each layer; extrudedHexas one per quad
 *   and layer, from its reversed quad (or, with flipNormals, from the quad
 *   as given).
 * An empty surface is SOFA's warning and no output; numberOfSlices < 1,
 * which SOFA divides by or loops over to nothing, is an error here.
 * isVisible is a drawing option. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "../shared/engine_util.h"

typedef struct extrude_quads {
    st_component base;
    bool is_visible;
    st_vec3 scale;
    double thickness_in, thickness_out;
    int nb_slices;
    bool flip;
    st_array surface_vertices; /* coord[] */
    st_array surface_quads;    /* quads */
    st_array vertices;         /* output coord[] */
    st_array surface_out;      /* output quads */
    st_array quads;            /* output quads */
    st_array hexas;            /* output hexas */
} extrude_quads;

static const st_field extrude_quads_fields[] = {
    ST_BOOL(extrude_quads, is_visible, "isVisible", "true", "is Visible ?"),
    ST_VEC3(extrude_quads, scale, "scale", "1 1 1", "Apply a scaling factor to the extruded mesh"),
    ST_REAL(extrude_quads, thickness_in, "thicknessIn", "0",
            "Thickness of the extruded volume in the opposite direction of the normals"),
    ST_REAL(extrude_quads, thickness_out, "thicknessOut", "1",
            "Thickness of the extruded volume in the direction of the normals"),
    ST_INT(extrude_quads, nb_slices, "numberOfSlices", "1",
           "Number of slices / steps in the extrusion"),
    ST_BOOL(extrude_quads, flip, "flipNormals", "false",
            "If true, will inverse point order when creating hexa"),
    ST_COORDS(extrude_quads, surface_vertices, "surfaceVertices", NULL,
              "Position coordinates of the surface"),
    ST_QUADS(extrude_quads, surface_quads, "surfaceQuads", NULL,
             "Indices of the quads of the surface to extrude"),
    ST_OUTPUT(extrude_quads, vertices, "extrudedVertices", ST_T_COORDS, st_array,
              "Coordinates of the extruded vertices"),
    ST_OUTPUT(extrude_quads, surface_out, "extrudedSurfaceQuads", ST_T_QUADS, st_array,
              "List of new surface quads generated during the extrusion"),
    ST_OUTPUT(extrude_quads, quads, "extrudedQuads", ST_T_QUADS, st_array,
              "List of all quads generated during the extrusion"),
    ST_OUTPUT(extrude_quads, hexas, "extrudedHexas", ST_T_HEXAS, st_array,
              "List of hexahedra generated during the extrusion"),
    ST_FIELD_END};

static void put4(unsigned **p, unsigned a, unsigned b, unsigned c, unsigned d)
{
    unsigned *q = *p;
    q[0] = a, q[1] = b, q[2] = c, q[3] = d;
    *p = q + 4;
}

static st_status extrude_quads_update(st_component *self, st_error *err)
{
    extrude_quads *e = (extrude_quads *)self;
    const size_t nv = e->surface_vertices.n, nq = e->surface_quads.n;
    if (nv < 1 || nq < 1) {
        st_component_warn(self, "initial mesh does not contain vertices or quads... No extruded "
                                "mesh will be generated");
        return ST_OK;
    }
    if (e->nb_slices < 1)
        return st_component_error(self, "numberOfSlices", err, ST_ESCENE,
                                  "numberOfSlices is %d: the extrusion needs at least one slice",
                                  e->nb_slices);
    const unsigned *sq = e->surface_quads.u;
    for (size_t i = 0; i < 4 * nq; i++)
        if (sq[i] >= nv)
            return st_component_error(self, "surfaceQuads", err, ST_ESCENE,
                                      "quad %zu uses point %u of %zu", i / 4, sq[i], nv);
    double *nrm = calloc(3 * nv, sizeof *nrm);
    if (!nrm)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu normals", nv);
    const double *x = e->surface_vertices.r;
    for (size_t q = 0; q < nq; q++) {
        const double *p0 = x + 3 * sq[4 * q], *p1 = x + 3 * sq[4 * q + 1],
                     *p2 = x + 3 * sq[4 * q + 2];
        double a[3], b[3], n[3];
        st_v3_sub(a, p1, p0), st_v3_sub(b, p2, p0);
        st_v3_cross(n, a, b);
        double l = st_v3_norm(n);
        if (l > DBL_EPSILON)
            n[0] /= l, n[1] /= l, n[2] /= l;
        for (int i = 0; i < 4; i++)
            st_v3_peq(nrm + 3 * sq[4 * q + i], n, 1.0);
    }
    for (size_t i = 0; i < nv; i++) {
        double *n = nrm + 3 * i, l = st_v3_norm(n);
        if (l > DBL_EPSILON)
            n[0] /= l, n[1] /= l, n[2] /= l;
    }
    const unsigned N = (unsigned)e->nb_slices, S = N + 1;
    const double step = (e->thickness_in + e->thickness_out) / (double)N;
    st_status s = st_array_resize_width(&e->vertices, 3, nv * S, err);
    if (s == ST_OK)
        s = st_array_resize(&e->surface_out, ST_T_QUADS, nq, err);
    if (s == ST_OK)
        s = st_array_resize(&e->quads, ST_T_QUADS, nq * (2 + 2 * (N - 1) + 4 * N), err);
    if (s == ST_OK)
        s = st_array_resize(&e->hexas, ST_T_HEXAS, nq * N, err);
    if (s != ST_OK) {
        free(nrm);
        return s;
    }
    double *out = e->vertices.r;
    for (size_t i = 0; i < nv; i++) {
        const double *n = nrm + 3 * i, *p = x + 3 * i;
        for (unsigned k = 0; k <= N; k++)
            for (int c = 0; c < 3; c++)
                *out++ = p[c] * e->scale[c] + (-n[c] * e->thickness_in + n[c] * step * (double)k);
    }
    free(nrm);
    unsigned *so = e->surface_out.u, *qo = e->quads.u, *ho = e->hexas.u;
    for (size_t q = 0; q < nq; q++) {
        const unsigned *v = sq + 4 * q;
        put4(&so, v[0] * S, v[1] * S, v[2] * S, v[3] * S);
    }
    for (size_t q = 0; q < nq; q++) {
        const unsigned *v = sq + 4 * q;
        const unsigned a = v[0] * S, b = v[1] * S, c = v[2] * S, d = v[3] * S;
        put4(&qo, a, b, c, d);
        put4(&qo, d + N, c + N, b + N, a + N);
        for (unsigned n = 1; n < N; n++) {
            put4(&qo, a + n, b + n, c + n, d + n);
            put4(&qo, d + n, c + n, b + n, a + n);
        }
        for (unsigned n = 0; n < N; n++) {
            put4(&qo, a + n, a + n + 1, b + n + 1, b + n);
            put4(&qo, b + n, b + n + 1, c + n + 1, c + n);
            put4(&qo, c + n, c + n + 1, d + n + 1, d + n);
            put4(&qo, d + n, d + n + 1, a + n + 1, a + n);
        }
    }
    for (size_t q = 0; q < nq; q++) {
        const unsigned *v = sq + 4 * q;
        const unsigned a = v[0] * S, b = v[1] * S, c = v[2] * S, d = v[3] * S;
        for (unsigned n = 0; n < N; n++) {
            if (e->flip) {
                put4(&ho, a + n, b + n, c + n, d + n);
                put4(&ho, a + n + 1, b + n + 1, c + n + 1, d + n + 1);
            } else {
                put4(&ho, d + n, c + n, b + n, a + n);
                put4(&ho, d + n + 1, c + n + 1, b + n + 1, a + n + 1);
            }
        }
    }
    return ST_OK;
}

static const st_engine_ops extrude_quads_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = extrude_quads_update,
};

static const char *const vec3_only[] = {"Vec3d", NULL};

const st_class extrude_quads_and_generate_hexas_class = {
    .struct_size = sizeof(st_class),
    .name = "ExtrudeQuadsAndGenerateHexas",
    .category = "Engine",
    .description = "Engine extruding a quad-based surface into a set of hexahedral elements.",
    .instance_size = sizeof(extrude_quads),
    .fields = extrude_quads_fields,
    .engine = &extrude_quads_engine,
    .templates = vec3_only,
};
