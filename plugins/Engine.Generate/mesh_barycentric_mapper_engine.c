/* mesh_barycentric_mapper_engine.c - MeshBarycentricMapperEngine: for each
 * point of mappedPointPositions, the element of the topology (tetrahedra,
 * else triangles) that holds it and its barycentric coordinates there,
 * found as SOFA's BarycentricMapper does: the element whose local
 * coordinates put the point inside (the first such), else the one with the
 * nearest centre. Outputs barycentricPositions (b1 b2 b3 per point; b3 = 0
 * on triangles) and tableElements (the element per point).
 * computeLinearInterpolation adds, per point, the element's vertices
 * (linearInterpolationIndices: their count, then the vertices; SOFA's list
 * of lists) and their weights (linearInterpolationValues, in the same
 * order), the first weight being SOFA's 1 - (b1 - b2 - b3), kept as SOFA
 * computes it. SOFA does not implement points in edges, quads or
 * hexahedra: meshes whose nearest elements are such leave the point's
 * outputs at zero, with a warning, as SOFA's error message does. */
#include <math.h>

#include "../shared/engine_util.h"
#include "../shared/topology_link.h"

typedef struct mbme {
    st_component base;
    st_array input_positions, mapped_positions; /* coord[] */
    st_array bary;                              /* output coord[] */
    st_array table;                             /* output uint[] */
    bool linear;
    st_array interp_indices;                    /* output, count-prefixed */
    st_array interp_values;                     /* output real[] */
    st_component *topology;
    st_array tetrahedra, hexahedra, triangles, quads, edges; /* hidden: the topology's */
    bool linked;
} mbme;

#define MB_TOPO(m, key, T)                                                                        \
    ST_FIELD_EX(mbme, m, key, T, st_array, NULL, "settee: the topology's " key " (linked)",       \
                ST_F_HIDDEN, NULL, 0.0, 0.0)

static const st_field mbme_fields[] = {
    ST_COORDS(mbme, input_positions, "inputPositions", NULL,
              "Initial positions of the master points"),
    ST_COORDS(mbme, mapped_positions, "mappedPointPositions", NULL,
              "Initial positions of the points to be mapped"),
    ST_OUTPUT(mbme, bary, "barycentricPositions", ST_T_COORDS, st_array,
              "Output : Barycentric positions of the mapped points"),
    ST_OUTPUT(mbme, table, "tableElements", ST_T_UINTS, st_array,
              "Output : Table that provides the index of the element to which each input point "
              "belongs"),
    ST_BOOL(mbme, linear, "computeLinearInterpolation", "false",
            "if true, computes a linear interpolation (debug)"),
    ST_OUTPUT(mbme, interp_indices, "linearInterpolationIndices", ST_T_UINTS, st_array,
              "Indices of a linear interpolation (settee: per point, their count, then them)"),
    ST_OUTPUT(mbme, interp_values, "linearInterpolationValues", ST_T_REALS, st_array,
              "Values of a linear interpolation (in the order of the indices)"),
    ST_LINK(mbme, topology, "topology", ST_LINK_TOPOLOGY, "Name of the master topology"),
    MB_TOPO(tetrahedra, "tetrahedra", ST_T_TETRAS),
    MB_TOPO(hexahedra, "hexahedra", ST_T_HEXAS),
    MB_TOPO(triangles, "triangles", ST_T_TRIANGLES),
    MB_TOPO(quads, "quads", ST_T_QUADS),
    MB_TOPO(edges, "edges", ST_T_EDGES),
    ST_FIELD_END};

/* Local frame of an element: the inverse of [e1 e2 e3] (columns), zero
 * when singular. */
static void frame(double inv[9], const double *o, const double *a, const double *b,
                  const double *c3)
{
    double m[9];
    for (int k = 0; k < 3; k++) {
        m[3 * k] = a[k] - o[k];
        m[3 * k + 1] = b[k] - o[k];
        m[3 * k + 2] = c3[k];
    }
    if (st_m3_inverse(inv, m) == 0.0)
        memset(inv, 0, 9 * sizeof(double));
}

static double d2(const double *a, const double *b)
{
    return (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
           (a[2] - b[2]) * (a[2] - b[2]);
}

static double max2(double a, double b) { return a > b ? a : b; }

static st_status check_elems(mbme *e, const st_array *l, unsigned w, const char *what,
                             st_error *err)
{
    for (size_t i = 0; i < l->n * w; i++)
        if (l->u[i] >= e->input_positions.n)
            return st_component_error(&e->base, "inputPositions", err, ST_EINVAL,
                                      "the topology's %s use point %u, beyond the %zu input "
                                      "positions",
                                      what, l->u[i], e->input_positions.n);
    return ST_OK;
}

/* Records point i in element el (vertices v, w of them) at b. */
static st_status add_point(mbme *e, size_t i, unsigned el, const double b[3], const unsigned *v,
                           unsigned w, st_error *err)
{
    e->table.u[i] = el;
    for (unsigned k = 0; k < 3; k++)
        e->bary.r[3 * i + k] = k < w - 1 ? b[k] : 0.0;
    if (!e->linear)
        return ST_OK;
    unsigned cnt = w;
    ST_TRY(eng_push_index(&e->interp_indices, cnt, err));
    double first = 1.0 - (w == 4 ? b[0] - b[1] - b[2] : b[0] - b[1]);
    ST_TRY(eng_push_index(&e->interp_indices, v[0], err));
    ST_TRY(eng_push_r(&e->interp_values, 1, &first, err));
    for (unsigned k = 1; k < w; k++) {
        ST_TRY(eng_push_index(&e->interp_indices, v[k], err));
        ST_TRY(eng_push_r(&e->interp_values, 1, &b[k - 1], err));
    }
    return ST_OK;
}

static st_status link_topology(mbme *e, st_error *err)
{
    st_component *self = &e->base;
    if (e->linked)
        return ST_OK;
    e->linked = true;
    if (!e->topology) {
        ST_TRY(st_find_topology(self, &e->topology, err));
        st_component_warn(self, "No topology given, will use the local one. (this automatic "
                                "behavior is not recommended, consider explicit input of the "
                                "\"topology\" field).");
    }
    static const char *const lists[] = {"tetrahedra", "hexahedra", "triangles", "quads", "edges"};
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
        if (st_component_field(e->topology, lists[i]) && !st_component_is_set(self, lists[i]))
            ST_TRY(eng_link(self, lists[i], e->topology, lists[i], err));
    return st_component_update_inputs(self, err);
}

static st_status mbme_update(st_component *self, st_error *err)
{
    mbme *e = (mbme *)self;
    ST_TRY(link_topology(e, err));
    const double *in = e->input_positions.r;
    size_t n = e->mapped_positions.n;
    ST_TRY(st_array_resize_width(&e->bary, 3, n, err));
    ST_TRY(st_array_resize(&e->table, ST_T_UINTS, n, err));
    if (n) {
        memset(e->bary.r, 0, 3 * n * sizeof(double));
        memset(e->table.u, 0, n * sizeof(unsigned));
    }
    eng_clear(&e->interp_indices);
    eng_clear(&e->interp_values);
    if (n == 0)
        return ST_OK;
    const st_array *tets = &e->tetrahedra, *hexs = &e->hexahedra, *tris = &e->triangles,
                   *quads = &e->quads;
    ST_TRY(check_elems(e, tets, 4, "tetrahedra", err));
    ST_TRY(check_elems(e, hexs, 8, "hexahedra", err));
    ST_TRY(check_elems(e, tris, 3, "triangles", err));
    ST_TRY(check_elems(e, quads, 4, "quads", err));
    bool volume = tets->n || hexs->n;
    if (!volume && !tris->n && !quads->n) {
        if (e->edges.n)
            st_component_warn(self, "addPointInLine not implemented");
        return ST_OK;
    }
    size_t c0 = volume ? tets->n : tris->n, ne = c0 + (volume ? hexs->n : quads->n);
    double *base = st_calloc(12 * ne + 1, sizeof(double)), *centre = base + 9 * ne;
    if (!base)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    /* frames and centres */
    for (size_t t = 0; t < ne; t++) {
        bool first = t < c0;
        const unsigned *v;
        unsigned w;
        if (volume) {
            v = first ? tets->u + 4 * t : hexs->u + 8 * (t - c0);
            w = first ? 4 : 8;
        } else {
            v = first ? tris->u + 3 * t : quads->u + 4 * (t - c0);
            w = first ? 3 : 4;
        }
        const double *p0 = in + 3 * (size_t)v[0], *p1 = in + 3 * (size_t)v[1];
        const double *p2 = in + 3 * (size_t)v[first ? 2 : 3];
        double c3[3];
        if (volume) {
            const double *p3 = in + 3 * (size_t)v[first ? 3 : 4];
            for (int k = 0; k < 3; k++)
                c3[k] = p3[k] - p0[k];
        } else {
            double a[3], b[3];
            for (int k = 0; k < 3; k++)
                a[k] = p1[k] - p0[k], b[k] = p2[k] - p0[k];
            c3[0] = a[1] * b[2] - a[2] * b[1];
            c3[1] = a[2] * b[0] - a[0] * b[2];
            c3[2] = a[0] * b[1] - a[1] * b[0];
        }
        frame(base + 9 * t, p0, p1, p2, c3);
        double *c = centre + 3 * t;
        for (unsigned k = 0; k < w; k++)
            for (int a = 0; a < 3; a++)
                c[a] += in[3 * (size_t)v[k] + a] / w;
    }
    bool unsupported = false;
    st_status st = ST_OK;
    for (size_t i = 0; i < n && st == ST_OK; i++) {
        const double *p = e->mapped_positions.r + 3 * i;
        double best = 1e10, coefs[3] = {0, 0, 0};
        size_t index = (size_t)-1;
        for (size_t t = 0; t < ne; t++) {
            bool first = t < c0;
            const unsigned *v = volume ? (first ? tets->u + 4 * t : hexs->u + 8 * (t - c0))
                                       : (first ? tris->u + 3 * t : quads->u + 4 * (t - c0));
            const double *o = in + 3 * (size_t)v[0];
            double q[3] = {p[0] - o[0], p[1] - o[1], p[2] - o[2]}, b[3];
            st_m3_mulv(b, base + 9 * t, q);
            double d;
            if (volume && first)
                d = max2(max2(-b[0], -b[1]), max2(-b[2], b[0] + b[1] + b[2] - 1));
            else if (volume)
                d = max2(max2(-b[0], -b[1]), max2(max2(-b[2], b[0] - 1), max2(b[1] - 1, b[2] - 1)));
            else if (first)
                d = max2(max2(-b[0], -b[1]), max2(fabs(b[2]) - 0.01, b[0] + b[1] - 1));
            else
                d = max2(max2(-b[0], -b[1]),
                         max2(max2(b[1] - 1, b[0] - 1), max2(b[2] - 0.01, -b[2] - 0.01)));
            if (d > 0)
                d = d2(p, centre + 3 * t);
            if (d < best) {
                best = d, index = t;
                memcpy(coefs, b, sizeof coefs);
            }
        }
        if (index == (size_t)-1)
            continue;
        if (index < c0) {
            const unsigned *v = volume ? tets->u + 4 * index : tris->u + 3 * index;
            st = add_point(e, i, (unsigned)index, coefs, v, volume ? 4 : 3, err);
        } else {
            unsupported = true;
        }
    }
    st_free(base);
    if (unsupported)
        st_component_warn(self, volume ? "addPointInCube not implemented"
                                       : "addPointInQuad not implemented");
    return st;
}

static const st_engine_ops mbme_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = mbme_update,
};

static const char *const mbme_templates[] = {"Vec3d", NULL};

const st_class mesh_barycentric_mapper_engine_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshBarycentricMapperEngine",
    .category = "Engine",
    .description = "Engine mapping a set of points in a topological model and provide "
                   "barycentric coordinates",
    .instance_size = sizeof(mbme),
    .fields = mbme_fields,
    .engine = &mbme_engine,
    .templates = mbme_templates,
};
