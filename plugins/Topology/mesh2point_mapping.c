/* mesh2point_mapping.c - Mesh2PointTopologicalMapping: fills a point
 * container with points made from every element of the input topology, one
 * per entry of the element kind's coordinate list, in SOFA's order (all
 * points, then edges, triangles, quads, tetrahedra, hexahedra; within a
 * kind, element by element):
 *   point p, offset c:      p + c
 *   edge (a b), fx:          a (1-fx) + b fx
 *   triangle (a b c), fx fy: a (1-fx-fy) + b fx + c fy
 *   quad q, fx fy:           q0 (1-fx)(1-fy) + q1 fx (1-fy) + q2 (1-fx) fy + q3 fx fy
 *   tetrahedron t, fx fy fz: t0 (1-fx-fy-fz) + t1 fx + t2 fy + t3 fz
 *   hexahedron h, fx fy fz:  trilinear over (h0 h1 h3 h2 h4 h5 h7 h6), fx fastest
 * (SOFA's corner orders, quads included). copyEdges, copyTriangles and
 * copyTetrahedra copy the input's elements onto the first point made from
 * each of their points; they need pointBaryCoords (without it SOFA's error,
 * and the copy is turned off). The points are made once, at init, from the
 * input's positions then: SOFA's mapping also follows the input's
 * topological changes; settee's does not yet, and a change of the input
 * stops the run naming this mapping (st_topology_use). */
#include <string.h>

#include "topology.h"
#include "../shared/mesh2point_weights.h"

typedef struct mesh2point {
    st_component base;
    st_component *input, *output;
    st_array bary[6]; /* vec3[] per element kind: point, edge, triangle, quad, tetra, hexa */
    bool copy_edges, copy_triangles, copy_tetrahedra;
} mesh2point;

#define M2P_BARY(i, key, what)                                                                    \
    ST_VEC3S(mesh2point, bary[i], key, NULL,                                                      \
             "Coordinates for the points of the output topology created from the " what          \
             " of the input topology")

static const st_field mesh2point_fields[] = {
    TOPO_MAP_LINKS(mesh2point, "Input topology", "Output topology (a point container)"),
    M2P_BARY(0, "pointBaryCoords", "points"),
    M2P_BARY(1, "edgeBaryCoords", "edges"),
    M2P_BARY(2, "triangleBaryCoords", "triangles"),
    M2P_BARY(3, "quadBaryCoords", "quads"),
    M2P_BARY(4, "tetraBaryCoords", "tetra"),
    M2P_BARY(5, "hexaBaryCoords", "hexa"),
    ST_BOOL(mesh2point, copy_edges, "copyEdges", "false",
            "Activate mapping of input edges into the output topology (requires at least one "
            "item in pointBaryCoords)"),
    ST_BOOL(mesh2point, copy_triangles, "copyTriangles", "false",
            "Activate mapping of input triangles into the output topology (requires at least one "
            "item in pointBaryCoords)"),
    ST_BOOL(mesh2point, copy_tetrahedra, "copyTetrahedra", "false",
            "Activate mapping of input tetrahedra into the output topology (requires at least one "
            "item in pointBaryCoords)"),
    ST_FIELD_END};

/* SOFA's topological mapping sums a hexahedron's corners in this order. */
static const unsigned hex_sum_order[8] = {0, 1, 3, 2, 4, 5, 7, 6};

static st_status add_point(topo *out, const double *p, st_error *err)
{
    size_t n = out->position.n;
    ST_TRY(st_array_resize(&out->position, ST_T_VEC3S,
                           n + 1 > out->position.cap ? (n ? 2 * n : 16) : n + 1, err));
    out->position.n = n + 1;
    memcpy(out->position.r + 3 * n, p, 3 * sizeof *p);
    return ST_OK;
}

/* Copies input elements onto the first point made from each point. */
static st_status copy_list(st_component *self, st_array *dst, st_type type, const st_array *src,
                           const unsigned *first, size_t npts, st_error *err)
{
    const unsigned w = st_type_width(type);
    for (size_t i = 0; src && i < src->n; i++) {
        unsigned v[8];
        for (unsigned k = 0; k < w; k++) {
            unsigned p = src->u[(size_t)w * i + k];
            if (p >= npts)
                return st_component_error(self, "input", err, ST_EINVAL,
                                          "element %zu names point %u of %zu", i, p, npts);
            v[k] = first[p];
        }
        ST_TRY(topo_push(dst, type, v, err));
    }
    return ST_OK;
}

static st_status mesh2point_init(st_component *self, st_error *err)
{
    mesh2point *m = (mesh2point *)self;
    self->state = ST_CSTATE_INVALID;
    ST_TRY(topo_map_check(self, m->input, m->output, "points or elements", "position",
                          TOPO_DYNAMIC, "point set container (PointSetTopologyContainer)", err));
    topo *out = (topo *)m->output;
    static const char *const lists[] = {"position", "edges",      "triangles", "quads",
                                        "tetrahedra", "hexahedra", NULL};
    topo_map_begin(m->input, out, lists);
    const st_topology_ops *in = m->input->cls->topology;
    const size_t npts = in->nb_points(m->input);
    const bool have_points = m->bary[0].n > 0;
    static const char *const copies[] = {"copyEdges", "copyTriangles", "copyTetrahedra"};
    bool *flags[] = {&m->copy_edges, &m->copy_triangles, &m->copy_tetrahedra};
    for (int i = 0; i < 3; i++)
        if (*flags[i] && !have_points) {
            st_component_warn_field(self, copies[i],
                                    "%s requires at least one item in pointBaryCoords (SOFA's "
                                    "error; the copy is turned off)",
                                    copies[i]);
            *flags[i] = false;
        }
    unsigned *first = st_calloc(npts ? npts : 1, sizeof *first);
    if (!first)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    static const st_type kinds[6] = {0, ST_T_EDGES, ST_T_TRIANGLES, ST_T_QUADS, ST_T_TETRAS,
                                     ST_T_HEXAS};
    st_status st = ST_OK;
    for (int kind = 0; kind < 6 && st == ST_OK; kind++) {
        const st_array *b = &m->bary[kind];
        if (kind == 0) {
            for (size_t i = 0; i < npts && st == ST_OK && b->n; i++) {
                double p[3];
                in->get_point(m->input, i, p);
                first[i] = (unsigned)out->position.n;
                for (size_t j = 0; j < b->n && st == ST_OK; j++) {
                    const double q[3] = {p[0] + b->r[3 * j], p[1] + b->r[3 * j + 1],
                                         p[2] + b->r[3 * j + 2]};
                    st = add_point(out, q, err);
                }
            }
        } else if (b->n) {
            const st_array *el = in->elements(m->input, kinds[kind]);
            const unsigned w = st_type_width(kinds[kind]);
            for (size_t e = 0; el && e < el->n && st == ST_OK; e++) {
                const unsigned *v = el->u + (size_t)w * e;
                for (size_t j = 0; j < b->n && st == ST_OK; j++) {
                    double wt[8], q[3] = {0, 0, 0};
                    unsigned nc = mesh2point_weights(kind, b->r + 3 * j, wt);
                    for (unsigned c = 0; c < nc; c++) {
                        const unsigned corner = kind == 5 ? hex_sum_order[c] : c;
                        double p[3];
                        if (v[corner] >= npts) {
                            st = st_component_error(self, "input", err, ST_EINVAL,
                                                    "element %zu of '%s' names point %u of %zu",
                                                    e, m->input->name, v[corner], npts);
                            break;
                        }
                        in->get_point(m->input, v[corner], p);
                        for (int k = 0; k < 3; k++)
                            q[k] += p[k] * wt[corner];
                    }
                    if (st == ST_OK)
                        st = add_point(out, q, err);
                }
            }
        }
        /* SOFA copies edges after the edge points, triangles after the
         * triangle points, tetrahedra after the tetrahedron points. */
        if (st == ST_OK && kind == 1 && m->copy_edges)
            st = copy_list(self, &out->edges, ST_T_EDGES, in->elements(m->input, ST_T_EDGES),
                           first, npts, err);
        if (st == ST_OK && kind == 2 && m->copy_triangles)
            st = copy_list(self, &out->triangles, ST_T_TRIANGLES,
                           in->elements(m->input, ST_T_TRIANGLES), first, npts, err);
        if (st == ST_OK && kind == 4 && m->copy_tetrahedra)
            st = copy_list(self, &out->tetrahedra, ST_T_TETRAS,
                           in->elements(m->input, ST_T_TETRAS), first, npts, err);
    }
    st_free(first);
    ST_TRY(st);
    out->nb_points = (unsigned)out->position.n;
    ST_TRY(topo_map_end(out, "position", err));
    if (m->copy_edges)
        st_component_touch(&out->base, st_component_field(&out->base, "edges"));
    if (m->copy_triangles)
        st_component_touch(&out->base, st_component_field(&out->base, "triangles"));
    if (m->copy_tetrahedra)
        st_component_touch(&out->base, st_component_field(&out->base, "tetrahedra"));
    ST_TRY(st_topology_use(self, m->input, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

const st_class mesh2point_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "Mesh2PointTopologicalMapping",
    .category = "TopologicalMapping",
    .description = "This class maps any mesh primitive (point, edge, triangle...) into a point "
                   "using a relative position from the primitive.",
    .instance_size = sizeof(mesh2point),
    .fields = mesh2point_fields,
    .init = mesh2point_init,
    .reinit = mesh2point_init,
};
