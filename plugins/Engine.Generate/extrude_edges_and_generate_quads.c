/* extrude_edges_and_generate_quads.c - ExtrudeEdgesAndGenerateQuads: a
 * curve (curveVertices, curveEdges) swept along extrudeDirection into
 * numberOfSections rows of quads, as SOFA's (Vec3d). Section n (0..N) is
 * the curve moved by -direction * thicknessIn + n * (thicknessIn +
 * thicknessOut) / N * direction / |direction| (SOFA scales thicknessIn by
 * the direction as written, not normalised); its points are numbered n *
 * |curveVertices| + i. Edges: each curve edge in every section, then its
 * first point's edges between sections; an open curve (fewer edges than
 * points) also gets the sections' edges at the last edge's second point.
 * SOFA's checks: a negative numberOfSections is a warning and becomes 1;
 * an empty curve a warning and no output. Zero sections, which SOFA divides
 * by, is an error here. */
#include <float.h>
#include <math.h>

#include "../shared/engine_util.h"

typedef struct extrude_edges {
    st_component base;
    st_vec3 direction;
    double thickness_in, thickness_out;
    int nb_sections;
    st_array curve_vertices; /* coord[] */
    st_array curve_edges;    /* edges */
    st_array vertices;       /* output coord[] */
    st_array edges;          /* output edges */
    st_array quads;          /* output quads */
} extrude_edges;

static const st_field extrude_edges_fields[] = {
    ST_VEC3(extrude_edges, direction, "extrudeDirection", "1 0 0",
            "Direction along which to extrude the curve"),
    ST_REAL(extrude_edges, thickness_in, "thicknessIn", "0",
            "Thickness of the extruded volume in the opposite direction of the normals"),
    ST_REAL(extrude_edges, thickness_out, "thicknessOut", "1",
            "Thickness of the extruded volume in the direction of the normals"),
    ST_INT(extrude_edges, nb_sections, "numberOfSections", "1",
           "Number of sections / steps in the extrusion"),
    ST_COORDS(extrude_edges, curve_vertices, "curveVertices", NULL,
              "Position coordinates along the initial curve"),
    ST_EDGES(extrude_edges, curve_edges, "curveEdges", NULL,
             "Indices of the edges of the curve to extrude"),
    ST_OUTPUT(extrude_edges, vertices, "extrudedVertices", ST_T_COORDS, st_array,
              "Coordinates of the extruded vertices"),
    ST_OUTPUT(extrude_edges, edges, "extrudedEdges", ST_T_EDGES, st_array,
              "List of all edges generated during the extrusion"),
    ST_OUTPUT(extrude_edges, quads, "extrudedQuads", ST_T_QUADS, st_array,
              "List of all quads generated during the extrusion"),
    ST_FIELD_END};

static st_status extrude_edges_update(st_component *self, st_error *err)
{
    extrude_edges *e = (extrude_edges *)self;
    if (e->nb_sections < 0) {
        st_component_warn_field(self, "numberOfSections",
                                "The number of sections should be positive. Set default equal "
                                "to 1.");
        e->nb_sections = 1;
    }
    const size_t nv = e->curve_vertices.n, ne = e->curve_edges.n;
    if (ne < 1 || nv < 1) {
        st_component_warn(self, "Initial mesh does not contain vertices or edges... No extruded "
                                "mesh will be generated");
        return ST_OK;
    }
    if (e->nb_sections == 0)
        return st_component_error(self, "numberOfSections", err, ST_ESCENE,
                                  "numberOfSections is 0: the extrusion needs at least one "
                                  "section (SOFA divides by it)");
    for (size_t i = 0; i < 2 * ne; i++)
        if (e->curve_edges.u[i] >= nv)
            return st_component_error(self, "curveEdges", err, ST_ESCENE,
                                      "edge %zu uses point %u of %zu", i / 2, e->curve_edges.u[i],
                                      nv);
    const unsigned ns = (unsigned)e->nb_sections, nvu = (unsigned)nv;
    const bool open = ne < nv;
    const double *d = e->direction;
    const double scale = (e->thickness_in + e->thickness_out) / (double)ns;
    double step[3] = {d[0], d[1], d[2]};
    double len = st_v3_norm(step);
    if (len > DBL_EPSILON)
        step[0] /= len, step[1] /= len, step[2] /= len;
    for (int k = 0; k < 3; k++)
        step[k] *= scale;
    ST_TRY(st_array_resize_width(&e->vertices, 3, nv * (ns + 1), err));
    ST_TRY(st_array_resize(&e->edges, ST_T_EDGES, ne * (2 * ns + 1) + (open ? ns : 0), err));
    ST_TRY(st_array_resize(&e->quads, ST_T_QUADS, ne * ns, err));
    double *x = e->vertices.r;
    for (unsigned n = 0; n <= ns; n++)
        for (size_t i = 0; i < nv; i++) {
            const double *c = e->curve_vertices.r + 3 * i;
            for (int k = 0; k < 3; k++)
                *x++ = c[k] + (-d[k] * e->thickness_in + step[k] * (double)n);
        }
    unsigned *ed = e->edges.u, *q = e->quads.u;
    for (size_t j = 0; j < ne; j++) {
        const unsigned a = e->curve_edges.u[2 * j], b = e->curve_edges.u[2 * j + 1];
        for (unsigned n = 0; n <= ns; n++)
            *ed++ = a + n * nvu, *ed++ = b + n * nvu;
        for (unsigned n = 0; n < ns; n++)
            *ed++ = a + n * nvu, *ed++ = a + (n + 1) * nvu;
    }
    for (size_t j = 0; j < ne; j++) {
        const unsigned a = e->curve_edges.u[2 * j], b = e->curve_edges.u[2 * j + 1];
        for (unsigned n = 0; n < ns; n++) {
            *q++ = a + n * nvu, *q++ = b + n * nvu;
            *q++ = b + (n + 1) * nvu, *q++ = a + (n + 1) * nvu;
        }
    }
    if (open) {
        const unsigned b = e->curve_edges.u[2 * (ne - 1) + 1];
        for (unsigned n = 0; n < ns; n++)
            *ed++ = b + n * nvu, *ed++ = b + (n + 1) * nvu;
    }
    return ST_OK;
}

static const st_engine_ops extrude_edges_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = extrude_edges_update,
};

static const char *const vec3_only[] = {"Vec3d", NULL};

const st_class extrude_edges_and_generate_quads_class = {
    .struct_size = sizeof(st_class),
    .name = "ExtrudeEdgesAndGenerateQuads",
    .category = "Engine",
    .description = "Engine extruding an edge-based curve into a quad surface patch.",
    .instance_size = sizeof(extrude_edges),
    .fields = extrude_edges_fields,
    .engine = &extrude_edges_engine,
    .templates = vec3_only,
};
