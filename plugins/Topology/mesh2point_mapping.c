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
 * and the copy is turned off). Unlike SOFA, whose init numbers the quad
 * and hexahedron points as if no edge, triangle or tetrahedron had made
 * any (its maps then name those kinds' first points, which its mechanical
 * mapping overwrites, and leave its own quad and hexahedron points
 * unmapped, at their init places), each output point here is mapped from
 * the element that made it; without edge, triangle and tetrahedron
 * points the two agree.
 *
 * Its maps, as SOFA's getPointsMappedFrom*() and pointSource (hidden output
 * fields, read by Mesh2PointMechanicalMapping): pointsMappedFrom<Kind>
 * holds, for input element i of that kind, the output points made from it
 * (entries i*nb .. i*nb+nb-1, nb the size of the kind's coordinate list;
 * UINT32_MAX for none); pointSource holds, per output point, its kind
 * (0..5) and input element.
 *
 * Changes of the input follow SOFA's updateTopologicalMappingTopDown, event
 * by event:
 * - points, edges, triangles, tetrahedra added: nb output points per new
 *   element are appended to the output, through its modifier (without
 *   ancestors: Mesh2PointMechanicalMapping places them), and the new
 *   element's entries name them; with copyEdges (copyTriangles,
 *   copyTetrahedra) the new elements are added to the output on the first
 *   point made from each of their points. Quads and hexahedra added: SOFA's
 *   "@todo", nothing (the maps of those kinds then lag the input).
 * - any kind removed: with the copy flag of that kind, the output elements
 *   of the same indices are removed (no isolated items removed, as SOFA's
 *   removeEdges(.., false)); each removed input element takes the then last
 *   one's entries (SOFA's swapInput), and its output points are remembered.
 * - at the end of each of SOFA's propagation rounds (its ENDING_EVENT; a
 *   removal comes in up to three: the elements asked for, then the faces
 *   and edges they left alone, then the points) the remembered output
 *   points are removed from the output, highest index first (each one's
 *   place taken by the last output point, whose entry the maps follow):
 *   the output's numbering is SOFA's, also after additions.
 * With a copy flag, SOFA's own run fails at the first removal (copied
 * tetrahedra: its modifier's "m_trianglesAroundVertex is not empty"; copied
 * edges: it stops), its output keeping the copies' faces and edges on the
 * points it removes; settee removes the copies as SOFA asks (no isolated
 * items) and an output container that still holds elements on a point to
 * remove refuses the removal, naming them.
 * SOFA's other events (points swapped or renumbered) are never sent by
 * settee's containers. SOFA's mapping adds points without its output's
 * modifier straight into the container, and then never removes any; here
 * an output without a modifier beside it is an error at the first change
 * that adds or removes output points. An index past a kind's map (a quad or
 * hexahedron added, then removed) is skipped, where SOFA reads past its
 * array. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"
#include "../shared/mesh2point_weights.h"

#define M2P_NONE UINT32_MAX

typedef struct mesh2point {
    st_component base;
    st_component *input, *output;
    st_array bary[6]; /* vec3[] per element kind: point, edge, triangle, quad, tetra, hexa */
    bool copy_edges, copy_triangles, copy_tetrahedra;
    st_array map[6];  /* "pointsMappedFrom<Kind>": nb per input element */
    st_array source;  /* "pointSource": (kind, element) per output point */
    bool listening;
    unsigned *to_remove; /* output points to remove at the end of a round */
    size_t nremove, capremove;
} mesh2point;

#define M2P_BARY(i, key, what)                                                                    \
    ST_VEC3S(mesh2point, bary[i], key, NULL,                                                      \
             "Coordinates for the points of the output topology created from the " what          \
             " of the input topology")
#define M2P_MAP(i, key, what)                                                                     \
    ST_FIELD_EX(mesh2point, map[i], key, ST_T_UINTS, st_array, NULL,                              \
                "settee: getPointsMappedFrom" what "(), the output points made from each input " \
                "element, one per coordinate (4294967295: none)",                                 \
                ST_F_OUTPUT | ST_F_HIDDEN, NULL, 0.0, 0.0)

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
    M2P_MAP(0, "pointsMappedFromPoint", "Point"),
    M2P_MAP(1, "pointsMappedFromEdge", "Edge"),
    M2P_MAP(2, "pointsMappedFromTriangle", "Triangle"),
    M2P_MAP(3, "pointsMappedFromQuad", "Quad"),
    M2P_MAP(4, "pointsMappedFromTetra", "Tetra"),
    M2P_MAP(5, "pointsMappedFromHexa", "Hexa"),
    ST_FIELD_EX(mesh2point, source, "pointSource", ST_T_UINTS, st_array, NULL,
                "settee: pointSource, the kind (0 point .. 5 hexahedron) and input element of "
                "each output point (4294967295: none)",
                ST_F_OUTPUT | ST_F_HIDDEN, NULL, 0.0, 0.0),
    ST_FIELD_END};

static const char *const map_fields[6] = {"pointsMappedFromPoint", "pointsMappedFromEdge",
                                          "pointsMappedFromTriangle", "pointsMappedFromQuad",
                                          "pointsMappedFromTetra", "pointsMappedFromHexa"};

/* SOFA's topological mapping sums a hexahedron's corners in this order. */
static const unsigned hex_sum_order[8] = {0, 1, 3, 2, 4, 5, 7, 6};

static const st_type kinds[6] = {0, ST_T_EDGES, ST_T_TRIANGLES, ST_T_QUADS, ST_T_TETRAS,
                                 ST_T_HEXAS};

/* Appends n entries of value v to an index array. */
static st_status push_n(st_array *a, size_t n, unsigned v, st_error *err)
{
    size_t n0 = a->n;
    if (n0 + n > a->cap)
        ST_TRY(st_array_resize(a, ST_T_UINTS, n0 + n > 2 * a->cap ? n0 + n : 2 * a->cap, err));
    a->n = n0 + n;
    for (size_t i = n0; i < n0 + n; i++)
        a->u[i] = v;
    return ST_OK;
}

/* Output point out (the next one) is made from element i of kind k, slot j. */
static st_status record(mesh2point *m, int k, size_t i, size_t j, st_error *err)
{
    const size_t nb = m->bary[k].n, out = m->source.n / 2;
    if (m->map[k].n < (i + 1) * nb)
        ST_TRY(push_n(&m->map[k], (i + 1) * nb - m->map[k].n, M2P_NONE, err));
    m->map[k].u[i * nb + j] = (unsigned)out;
    ST_TRY(push_n(&m->source, 2, (unsigned)k, err));
    m->source.u[2 * out + 1] = (unsigned)i;
    return ST_OK;
}

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
static st_status copy_list(mesh2point *m, st_array *dst, st_type type, const unsigned *src,
                           size_t n, st_error *err)
{
    const unsigned w = st_type_width(type);
    const size_t nb = m->bary[0].n, npts = m->map[0].n / nb;
    for (size_t i = 0; i < n; i++) {
        unsigned v[8];
        for (unsigned k = 0; k < w; k++) {
            unsigned p = src[(size_t)w * i + k];
            if (p >= npts)
                return st_component_error(&m->base, "input", err, ST_EINVAL,
                                          "element %zu names point %u of %zu", i, p, npts);
            v[k] = m->map[0].u[(size_t)p * nb];
        }
        ST_TRY(topo_push(dst, type, v, err));
    }
    return ST_OK;
}

static void touch_maps(mesh2point *m)
{
    for (int k = 0; k < 6; k++)
        st_component_touch(&m->base, st_component_field(&m->base, map_fields[k]));
    st_component_touch(&m->base, st_component_field(&m->base, "pointSource"));
}

static st_status mesh2point_changed(st_component *self, st_component *topology,
                                    const st_topo_event *ev, size_t nev, st_error *err);

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
    for (int k = 0; k < 6; k++)
        m->map[k].n = 0;
    m->source.n = 0;
    m->nremove = 0;
    st_status st = ST_OK;
    for (int kind = 0; kind < 6 && st == ST_OK; kind++) {
        const st_array *b = &m->bary[kind];
        if (kind == 0) {
            for (size_t i = 0; i < npts && st == ST_OK && b->n; i++) {
                double p[3];
                in->get_point(m->input, i, p);
                for (size_t j = 0; j < b->n && st == ST_OK; j++) {
                    const double q[3] = {p[0] + b->r[3 * j], p[1] + b->r[3 * j + 1],
                                         p[2] + b->r[3 * j + 2]};
                    st = add_point(out, q, err);
                    if (st == ST_OK)
                        st = record(m, 0, i, j, err);
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
                    if (st == ST_OK)
                        st = record(m, kind, e, j, err);
                }
            }
        }
        /* SOFA copies edges after the edge points, triangles after the
         * triangle points, tetrahedra after the tetrahedron points. */
        if (st == ST_OK && (kind == 1 || kind == 2 || kind == 4)) {
            const bool copy = kind == 1 ? m->copy_edges : kind == 2 ? m->copy_triangles
                                                                    : m->copy_tetrahedra;
            st_array *dst = kind == 1 ? &out->edges : kind == 2 ? &out->triangles
                                                                : &out->tetrahedra;
            const st_array *src = in->elements(m->input, kinds[kind]);
            if (copy && src)
                st = copy_list(m, dst, kinds[kind], src->u, src->n, err);
        }
    }
    ST_TRY(st);
    out->nb_points = (unsigned)out->position.n;
    ST_TRY(topo_map_end(out, "position", err));
    if (m->copy_edges)
        st_component_touch(&out->base, st_component_field(&out->base, "edges"));
    if (m->copy_triangles)
        st_component_touch(&out->base, st_component_field(&out->base, "triangles"));
    if (m->copy_tetrahedra)
        st_component_touch(&out->base, st_component_field(&out->base, "tetrahedra"));
    touch_maps(m);
    if (!m->listening) {
        ST_TRY(st_topology_listen(self, m->input, mesh2point_changed, err));
        m->listening = true;
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

/* ---- topological changes ---- */

/* SOFA looks for the output's modifier in the output's own node. */
static bool output_has_modifier(const mesh2point *m)
{
    st_node *n = m->output->node;
    static const char suffix[] = "SetTopologyModifier";
    for (size_t i = 0; n && i < st_node_object_count(n); i++) {
        const char *cn = st_node_object(n, i)->cls->name;
        size_t l = strlen(cn);
        if (l >= sizeof suffix - 1 && !strcmp(cn + l - (sizeof suffix - 1), suffix))
            return true;
    }
    return false;
}

static st_status need_modifier(const mesh2point *m, const char *what, st_error *err)
{
    if (output_has_modifier(m))
        return ST_OK;
    return st_component_error(&m->base, "output", err, ST_ESCENE,
                              "no topology modifier beside the output '%s' (a "
                              "PointSetTopologyModifier in its node): it cannot %s after the "
                              "change of '%s'",
                              m->output->name, what, m->input->name);
}

/* Adds output point p to those to remove (sorted at the round's end). */
static st_status remember(mesh2point *m, unsigned p, st_error *err)
{
    if (m->nremove == m->capremove) {
        size_t cap = m->capremove ? 2 * m->capremove : 16;
        unsigned *q = st_realloc(m->to_remove, cap * sizeof *q);
        if (!q)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        m->to_remove = q;
        m->capremove = cap;
    }
    m->to_remove[m->nremove++] = p;
    return ST_OK;
}

static int desc_unsigned(const void *a, const void *b)
{
    const unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* SOFA's swapInput: input elements a and b of kind k trade entries, and
 * their output points name their new element. */
static void swap_input(mesh2point *m, int k, size_t a, size_t b)
{
    const size_t nb = m->bary[k].n;
    unsigned *ua = m->map[k].u + a * nb, *ub = m->map[k].u + b * nb;
    for (size_t j = 0; j < nb; j++) {
        unsigned t = ua[j];
        ua[j] = ub[j];
        ub[j] = t;
        if (ua[j] != M2P_NONE)
            m->source.u[2 * (size_t)ua[j] + 1] = (unsigned)a;
        if (ub[j] != M2P_NONE)
            m->source.u[2 * (size_t)ub[j] + 1] = (unsigned)b;
    }
}

/* SOFA's removeInput. */
static st_status remove_input(mesh2point *m, int k, const unsigned *idx, size_t n, st_error *err)
{
    const size_t nb = m->bary[k].n;
    if (!nb || !m->map[k].n)
        return ST_OK;
    size_t count = m->map[k].n / nb;
    for (size_t r = 0; r < n && count; r++) {
        if (idx[r] >= count)
            continue;
        const size_t last = count - 1;
        if (idx[r] != last)
            swap_input(m, k, idx[r], last);
        for (size_t j = 0; j < nb; j++) {
            const unsigned o = m->map[k].u[last * nb + j];
            if (o == M2P_NONE)
                continue;
            ST_TRY(remember(m, o, err));
            m->source.u[2 * (size_t)o + 1] = M2P_NONE;
        }
        count--;
    }
    m->map[k].n = count * nb;
    return ST_OK;
}

/* SOFA's removeOutputPoints: each removed output point (highest first)
 * takes the last one's place; the entry naming the last one follows. */
static void remove_output_points(mesh2point *m, const unsigned *idx, size_t n)
{
    size_t last = m->source.n / 2;
    for (size_t r = 0; r < n && last; r++) {
        last--;
        const size_t i = idx[r];
        if (i > last)
            continue;
        const unsigned sk = m->source.u[2 * last], se = m->source.u[2 * last + 1];
        const unsigned ik = m->source.u[2 * i], ie = m->source.u[2 * i + 1];
        m->source.u[2 * i] = sk, m->source.u[2 * i + 1] = se;
        m->source.u[2 * last] = ik, m->source.u[2 * last + 1] = ie;
        const size_t nbi = m->bary[ik].n, nbl = m->bary[sk].n;
        if (ie != M2P_NONE)
            for (size_t j = 0; j < nbi; j++)
                if (m->map[ik].u[(size_t)ie * nbi + j] == i)
                    m->map[ik].u[(size_t)ie * nbi + j] = M2P_NONE;
        if (se != M2P_NONE)
            for (size_t j = 0; j < nbl; j++)
                if (m->map[sk].u[(size_t)se * nbl + j] == last)
                    m->map[sk].u[(size_t)se * nbl + j] = (unsigned)i;
    }
    m->source.n = 2 * last;
}

/* Input elements added (SOFA's addInputPoint / addInputEdge / ...). */
static st_status input_added(mesh2point *m, const st_topo_event *e, st_error *err)
{
    const int k = (int)e->elem;
    const size_t nb = m->bary[k].n;
    if (nb && e->n) {
        ST_TRY(need_modifier(m, "add points", err));
        for (size_t r = 0; r < e->n; r++) {
            if (m->map[k].n > (size_t)e->index[r] * nb) /* SOFA's clear() of a reused entry */
                for (size_t j = 0; j < nb; j++)
                    m->map[k].u[(size_t)e->index[r] * nb + j] = M2P_NONE;
            for (size_t j = 0; j < nb; j++)
                ST_TRY(record(m, k, e->index[r], j, err));
        }
        ST_TRY(st_topology_add_points(m->output, e->n * nb, NULL, NULL, NULL, err));
    }
    const bool copy = k == ST_ELEM_EDGE          ? m->copy_edges
                      : k == ST_ELEM_TRIANGLE    ? m->copy_triangles
                      : k == ST_ELEM_TETRAHEDRON ? m->copy_tetrahedra
                                                 : false;
    if (!copy || !e->n || !output_has_modifier(m) ||
        !st_topology_can_change(m->output, ST_TOPO_ADDED, e->elem))
        return ST_OK; /* SOFA: no modifier of that kind beside the output, no copy */
    st_array tmp = {0};
    st_status st = copy_list(m, &tmp, kinds[k], e->vertices, e->n, err);
    if (st == ST_OK)
        st = st_topology_add(m->output, e->elem, tmp.u, e->n, err);
    st_array_free(&tmp, kinds[k]);
    return st;
}

/* SOFA's ENDING_EVENT: the remembered output points go, highest index
 * first. */
static st_status flush_removals(mesh2point *m, st_error *err)
{
    if (!m->nremove)
        return ST_OK;
    ST_TRY(need_modifier(m, "remove points", err));
    qsort(m->to_remove, m->nremove, sizeof *m->to_remove, desc_unsigned);
    size_t n = 0; /* SOFA's set: each point once */
    for (size_t i = 0; i < m->nremove; i++)
        if (!n || m->to_remove[i] != m->to_remove[n - 1])
            m->to_remove[n++] = m->to_remove[i];
    m->nremove = 0;
    remove_output_points(m, m->to_remove, n);
    return st_topology_remove(m->output, ST_ELEM_POINT, m->to_remove, n, err);
}

/* SOFA's modifiers propagate a removal in up to three rounds, each ending
 * with an ENDING_EVENT: the elements asked for; then the faces and edges
 * they left isolated; then the isolated points. A settee change holds them
 * all: a round ends after its first removal, and before a removal of
 * points that follows other removals. */
static bool round_ends(const st_topo_event *ev, size_t nev, size_t i, bool first_removal)
{
    if (ev[i].change != ST_TOPO_REMOVED)
        return false;
    return first_removal ||
           (i + 1 < nev && ev[i + 1].change == ST_TOPO_REMOVED && ev[i + 1].elem == ST_ELEM_POINT);
}

static st_status mesh2point_changed(st_component *self, st_component *topology,
                                    const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    mesh2point *m = (mesh2point *)self;
    bool first_removal = true;
    for (size_t i = 0; i < nev; i++) {
        const st_topo_event *e = &ev[i];
        const int k = (int)e->elem;
        if (e->change == ST_TOPO_ADDED) {
            if (e->elem != ST_ELEM_QUAD && e->elem != ST_ELEM_HEXAHEDRON) /* else SOFA's "@todo" */
                ST_TRY(input_added(m, e, err));
            continue;
        }
        const bool copy = k == ST_ELEM_EDGE          ? m->copy_edges
                          : k == ST_ELEM_TRIANGLE    ? m->copy_triangles
                          : k == ST_ELEM_TETRAHEDRON ? m->copy_tetrahedra
                                                     : false;
        if (copy && e->n && output_has_modifier(m) &&
            st_topology_can_change(m->output, ST_TOPO_REMOVED, e->elem))
            ST_TRY(topo_remove_ex(m->output, e->elem, e->index, e->n, false, false, err));
        ST_TRY(remove_input(m, k, e->index, e->n, err));
        if (round_ends(ev, nev, i, first_removal))
            ST_TRY(flush_removals(m, err));
        first_removal = false;
    }
    ST_TRY(flush_removals(m, err));
    touch_maps(m);
    return ST_OK;
}

static void mesh2point_cleanup(st_component *self)
{
    mesh2point *m = (mesh2point *)self;
    st_free(m->to_remove);
    m->to_remove = NULL;
    m->nremove = m->capremove = 0;
}

/* Checkpoints: the maps as the run left them. */
static st_status mesh2point_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    for (int k = 0; k < 6; k++)
        ST_TRY(st_checkpoint_field(ck, self, map_fields[k], err));
    return st_checkpoint_field(ck, self, "pointSource", err);
}

static const st_checkpoint_ops mesh2point_checkpoint_ops = {sizeof(st_checkpoint_ops),
                                                            mesh2point_checkpoint};

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
    .cleanup = mesh2point_cleanup,
    .checkpoint = &mesh2point_checkpoint_ops,
};
