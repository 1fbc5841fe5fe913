/* simple_tesselated_tetra_mapping.c - SimpleTesselatedTetraTopologicalMapping:
 * fills a tetrahedron container with the input's tetrahedra each split in
 * eight. The output's points are the input's points (same indices), then
 * one midpoint per input edge (in the input's edge order); each input
 * tetrahedron t with m_k the midpoint of its k-th edge, in SOFA's local
 * edge order (01, 02, 03, 12, 13, 23), gives the corner tetrahedra
 *   (t0 m0 m1 m2) (t1 m0 m4 m3) (t2 m1 m3 m5) (t3 m2 m5 m4)
 * then the four of the inner octahedron split along m0-m5
 *   (m1 m0 m3 m5) (m1 m0 m5 m2) (m4 m0 m5 m3) (m4 m0 m2 m5),
 * as SOFA. Its data: pointMappedFromPoint (i -> i), pointMappedFromEdge
 * (edge -> its midpoint), pointSource (output point -> i + 1 for input
 * point i, -(e + 1) for edge e, as unsigned), tetrahedraMappedFromTetra
 * (8 per input tetrahedron), tetraSource (output tetrahedron -> input).
 * SimpleTesselatedTetraMechanicalMapping (Mapping.Linear) reads them.
 *
 * Changes of the input follow as SOFA's updateTopologicalMappingTopDown,
 * which keeps the maps and leaves the output as it is: a removed input
 * point (edge, tetrahedron) takes the last one's entry in
 * pointMappedFromPoint (pointMappedFromEdge, tetrahedraMappedFromTetra), the
 * output points and tetrahedra it mapped to are marked sourceless
 * (pointSource 0, tetraSource InvalidID) and those of the moved one name its
 * new index. Added input points, edges and tetrahedra (SOFA's "@todo") get
 * entries mapping to nothing, so that the maps keep the input's sizes.
 *
 * Changes of the output go up as SOFA's updateTopologicalMappingBottomUp:
 * a removed output tetrahedron (point) takes the last one's entry in
 * tetraSource (pointSource), the maps follow, and an input tetrahedron
 * whose eight pieces are all gone is removed from the input at the end of
 * the change, through the input's modifier (none beside the input: SOFA
 * removes nothing), highest index first. Unlike SOFA, the last entry moves
 * down for every removed output tetrahedron, sourceless ones included
 * (SOFA skips those, and its maps then name the wrong pieces); added
 * output points and tetrahedra (SOFA's "@todo") get sourceless entries. */
#include <stdlib.h>
#include <string.h>

#include "topology.h"

typedef struct simple_tess {
    st_component base;
    st_component *input, *output;
    st_array tetra_from_tetra; /* "tetrahedraMappedFromTetra": 8 per input tetrahedron */
    st_array tetra_source;     /* "tetraSource" */
    st_array point_from_point; /* "pointMappedFromPoint" */
    st_array point_from_edge;  /* "pointMappedFromEdge" */
    st_array point_source;     /* "pointSource" */
    bool listening, listening_out;
    unsigned *to_remove;       /* input tetrahedra left without pieces (sorted, unique) */
    size_t nremove, capremove;
} simple_tess;

static const st_field simple_tess_fields[] = {
    TOPO_MAP_LINKS(simple_tess, "Input topology to map (tetrahedra)",
                   "Output topology to map (a TetrahedronSetTopologyContainer)"),
    ST_UINTS(simple_tess, tetra_from_tetra, "tetrahedraMappedFromTetra", "",
             "Each Tetrahedron of the input topology is mapped to the 8 tetrahedrons in which it "
             "can be divided"),
    ST_UINTS(simple_tess, tetra_source, "tetraSource", "",
             "Which tetra from the input topology map to a given tetra in the output topology "
             "(sofa::InvalidID if none)"),
    ST_UINTS(simple_tess, point_from_point, "pointMappedFromPoint", "",
             "Each point of the input topology is mapped to the same point"),
    ST_UINTS(simple_tess, point_from_edge, "pointMappedFromEdge", "",
             "Each edge of the input topology is mapped to his midpoint"),
    ST_UINTS(simple_tess, point_source, "pointSource", "",
             "Which input topology element map to a given point in the output topology : 0 -> "
             "none, > 0 -> point index + 1, < 0 , - edge index -1"),
    ST_FIELD_END};

static st_status simple_tess_changed(st_component *self, st_component *topology,
                                     const st_topo_event *ev, size_t nev, st_error *err);
static st_status simple_tess_out_changed(st_component *self, st_component *topology,
                                         const st_topo_event *ev, size_t nev, st_error *err);

typedef struct edge_key {
    unsigned a, b, idx;
} edge_key;

static int edge_cmp(const void *pa, const void *pb)
{
    const edge_key *x = pa, *y = pb;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static unsigned find_edge(const edge_key *keys, size_t n, unsigned a, unsigned b)
{
    edge_key k = {a < b ? a : b, a < b ? b : a, 0};
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (keys[mid].a < k.a || (keys[mid].a == k.a && keys[mid].b < k.b))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && keys[lo].a == k.a && keys[lo].b == k.b ? keys[lo].idx : UINT32_MAX;
}

static const unsigned local_edges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

static st_status simple_tess_init(st_component *self, st_error *err)
{
    simple_tess *m = (simple_tess *)self;
    self->state = ST_CSTATE_INVALID;
    ST_TRY(topo_map_check(self, m->input, m->output, "tetrahedra", "tetrahedra", TOPO_DYNAMIC,
                          "TetrahedronSetTopologyContainer", err));
    const st_topology_ops *ti = m->input->cls->topology;
    const st_array *tets = ti->elements(m->input, ST_T_TETRAS);
    const st_array *edges = ti->elements(m->input, ST_T_EDGES);
    const size_t np = ti->nb_points(m->input), nt = tets ? tets->n : 0, ne = edges ? edges->n : 0;
    if (nt == 0)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "the input topology '%s' has no tetrahedra", m->input->name);
    if (np == 0)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "the input topology '%s' has no positions: the midpoints "
                                  "cannot be placed",
                                  m->input->name);
    edge_key *keys = st_malloc((ne ? ne : 1) * sizeof *keys);
    if (!keys)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu edges)", ne);
    for (size_t i = 0; i < ne; i++) {
        unsigned a = edges->u[2 * i], b = edges->u[2 * i + 1];
        keys[i] = (edge_key){a < b ? a : b, a < b ? b : a, (unsigned)i};
    }
    qsort(keys, ne, sizeof *keys, edge_cmp);
    topo *out = (topo *)m->output;
    static const char *const lists[] = {"position", "edges",      "triangles", "quads",
                                        "tetrahedra", "hexahedra", NULL};
    topo_map_begin(m->input, out, lists);
    st_status st = ST_OK;
    if (st == ST_OK)
        st = st_array_resize(&out->position, ST_T_VEC3S, np + ne, err);
    if (st == ST_OK)
        st = st_array_resize(&out->tetrahedra, ST_T_TETRAS, 8 * nt, err);
    if (st == ST_OK)
        st = st_array_resize(&m->point_from_point, ST_T_UINTS, np, err);
    if (st == ST_OK)
        st = st_array_resize(&m->point_from_edge, ST_T_UINTS, ne, err);
    if (st == ST_OK)
        st = st_array_resize(&m->point_source, ST_T_UINTS, np + ne, err);
    if (st == ST_OK)
        st = st_array_resize(&m->tetra_from_tetra, ST_T_UINTS, 8 * nt, err);
    if (st == ST_OK)
        st = st_array_resize(&m->tetra_source, ST_T_UINTS, 8 * nt, err);
    if (st != ST_OK) {
        st_free(keys);
        return st;
    }
    double *x = out->position.r;
    for (size_t i = 0; i < np; i++) {
        ti->get_point(m->input, i, x + 3 * i);
        m->point_from_point.u[i] = (unsigned)i;
        m->point_source.u[i] = (unsigned)(i + 1);
    }
    for (size_t e = 0; e < ne; e++) {
        double p[3], q[3];
        ti->get_point(m->input, edges->u[2 * e], p);
        ti->get_point(m->input, edges->u[2 * e + 1], q);
        for (int k = 0; k < 3; k++)
            x[3 * (np + e) + k] = (p[k] + q[k]) / 2;
        m->point_from_edge.u[e] = (unsigned)(np + e);
        m->point_source.u[np + e] = (unsigned)(-(long long)(e + 1));
    }
    out->nb_points = (unsigned)(np + ne);
    for (size_t i = 0; i < nt && st == ST_OK; i++) {
        const unsigned *t = tets->u + 4 * i;
        unsigned mid[6];
        for (int k = 0; k < 6; k++) {
            unsigned e = find_edge(keys, ne, t[local_edges[k][0]], t[local_edges[k][1]]);
            if (e == UINT32_MAX) {
                st = st_component_error(self, "input", err, ST_EINVAL,
                                        "the edge (%u %u) of tetrahedron %zu is not in the edges "
                                        "of '%s'",
                                        t[local_edges[k][0]], t[local_edges[k][1]], i,
                                        m->input->name);
                break;
            }
            mid[k] = (unsigned)(np + e);
        }
        if (st != ST_OK)
            break;
        const unsigned pieces[8][4] = {
            {t[0], mid[0], mid[1], mid[2]}, {t[1], mid[0], mid[4], mid[3]},
            {t[2], mid[1], mid[3], mid[5]}, {t[3], mid[2], mid[5], mid[4]},
            {mid[1], mid[0], mid[3], mid[5]}, {mid[1], mid[0], mid[5], mid[2]},
            {mid[4], mid[0], mid[5], mid[3]}, {mid[4], mid[0], mid[2], mid[5]}};
        for (int k = 0; k < 8; k++) {
            const size_t o = 8 * i + (size_t)k;
            memcpy(out->tetrahedra.u + 4 * o, pieces[k], sizeof pieces[k]);
            m->tetra_from_tetra.u[o] = (unsigned)o;
            m->tetra_source.u[o] = (unsigned)i;
        }
    }
    st_free(keys);
    ST_TRY(st);
    st_component_touch(&out->base, st_component_field(&out->base, "position"));
    static const char *const touched[] = {"tetrahedraMappedFromTetra", "tetraSource",
                                          "pointMappedFromPoint", "pointMappedFromEdge",
                                          "pointSource", NULL};
    for (size_t i = 0; touched[i]; i++)
        st_component_touch(self, st_component_field(self, touched[i]));
    ST_TRY(topo_map_end(out, "tetrahedra", err));
    if (!m->listening) {
        ST_TRY(st_topology_listen(self, m->input, simple_tess_changed, err));
        m->listening = true;
    }
    if (!m->listening_out) {
        ST_TRY(st_topology_listen(self, m->output, simple_tess_out_changed, err));
        m->listening_out = true;
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

/* SOFA's removeInputPoints / removeInputEdges: entry i takes the last
 * one's (the output point it maps to now names i: i + 1 for a point,
 * -(i + 1) for an edge), and the removed one's output point is sourceless. */
static void remove_point_like(simple_tess *m, st_array *map, bool edge, const unsigned *idx,
                              size_t n)
{
    size_t last = map->n - 1;
    for (size_t k = 0; k < n && map->n; k++, last--) {
        unsigned i = idx[k];
        if (i >= map->n)
            continue;
        unsigned mi = map->u[i], ml = map->u[last];
        map->u[i] = ml;
        map->u[last] = mi;
        if (ml != UINT32_MAX && ml < m->point_source.n)
            m->point_source.u[ml] = edge ? (unsigned)(-(long long)i - 1) : i + 1;
        if (mi != UINT32_MAX && mi < m->point_source.n)
            m->point_source.u[mi] = 0;
    }
    map->n = map->n > n ? map->n - n : 0;
}

/* SOFA's removeInputTetrahedra: the same with 8 output tetrahedra each. */
static void remove_tetras(simple_tess *m, const unsigned *idx, size_t n)
{
    st_array *map = &m->tetra_from_tetra;
    size_t count = map->n / 8, last = count - 1;
    for (size_t k = 0; k < n && count; k++, last--) {
        unsigned i = idx[k];
        if (i >= count)
            continue;
        unsigned mi[8], ml[8];
        memcpy(mi, map->u + 8 * (size_t)i, sizeof mi);
        memcpy(ml, map->u + 8 * last, sizeof ml);
        memcpy(map->u + 8 * (size_t)i, ml, sizeof ml);
        memcpy(map->u + 8 * last, mi, sizeof mi);
        for (int j = 0; j < 8; j++) {
            if (ml[j] != UINT32_MAX && ml[j] < m->tetra_source.n)
                m->tetra_source.u[ml[j]] = i;
            if (mi[j] != UINT32_MAX && mi[j] < m->tetra_source.n)
                m->tetra_source.u[mi[j]] = UINT32_MAX;
        }
    }
    count = count > n ? count - n : 0;
    map->n = 8 * count;
}

static st_status pad_map(st_array *map, size_t add, st_error *err)
{
    size_t n0 = map->n;
    ST_TRY(st_array_resize(map, ST_T_UINTS, n0 + add, err));
    for (size_t i = n0; i < map->n; i++)
        map->u[i] = UINT32_MAX;
    return ST_OK;
}

static st_status simple_tess_changed(st_component *self, st_component *topology,
                                     const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    simple_tess *m = (simple_tess *)self;
    for (size_t i = 0; i < nev; i++) {
        const st_topo_event *e = &ev[i];
        st_array *map = e->elem == ST_ELEM_POINT  ? &m->point_from_point
                        : e->elem == ST_ELEM_EDGE ? &m->point_from_edge
                                                  : NULL;
        if (e->change == ST_TOPO_ADDED) {
            if (map)
                ST_TRY(pad_map(map, e->n, err));
            else if (e->elem == ST_ELEM_TETRAHEDRON)
                ST_TRY(pad_map(&m->tetra_from_tetra, 8 * e->n, err));
            continue;
        }
        if (map)
            remove_point_like(m, map, e->elem == ST_ELEM_EDGE, e->index, e->n);
        else if (e->elem == ST_ELEM_TETRAHEDRON)
            remove_tetras(m, e->index, e->n);
    }
    static const char *const touched[] = {"tetrahedraMappedFromTetra", "tetraSource",
                                          "pointMappedFromPoint", "pointMappedFromEdge",
                                          "pointSource", NULL};
    for (size_t i = 0; touched[i]; i++)
        st_component_touch(self, st_component_field(self, touched[i]));
    return ST_OK;
}

/* SOFA's setPointSource: output point i comes from `source` (> 0: input
 * point source - 1; < 0: input edge -source - 1; 0: nothing), and the map
 * of that source names i. */
static void set_point_source(simple_tess *m, size_t i, unsigned source)
{
    m->point_source.u[i] = source;
    const int sv = (int)source;
    if (sv > 0 && (size_t)(sv - 1) < m->point_from_point.n)
        m->point_from_point.u[sv - 1] = (unsigned)i;
    else if (sv < 0 && (size_t)(-sv - 1) < m->point_from_edge.n)
        m->point_from_edge.u[-sv - 1] = (unsigned)i;
}

/* SOFA's removeOutputPoints. */
static void remove_output_points(simple_tess *m, const unsigned *idx, size_t n)
{
    st_array *ps = &m->point_source;
    size_t last = ps->n;
    for (size_t k = 0; k < n && last; k++) {
        last--;
        const unsigned i = idx[k];
        if (i > last)
            continue;
        const unsigned si = ps->u[i], sl = ps->u[last];
        set_point_source(m, i, sl);
        set_point_source(m, last, si);
        const int src = (int)ps->u[last];
        if (src > 0 && (size_t)(src - 1) < m->point_from_point.n)
            m->point_from_point.u[src - 1] = UINT32_MAX;
        else if (src < 0 && (size_t)(-src - 1) < m->point_from_edge.n)
            m->point_from_edge.u[-src - 1] = UINT32_MAX;
    }
    ps->n = ps->n > n ? ps->n - n : 0;
}

/* Adds input tetrahedron t to the (sorted) list of those to remove. */
static st_status remember_removal(simple_tess *m, unsigned t, st_error *err)
{
    size_t k = 0;
    while (k < m->nremove && m->to_remove[k] < t)
        k++;
    if (k < m->nremove && m->to_remove[k] == t)
        return ST_OK;
    if (m->nremove == m->capremove) {
        size_t cap = m->capremove ? 2 * m->capremove : 16;
        unsigned *p = st_realloc(m->to_remove, cap * sizeof *p);
        if (!p)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        m->to_remove = p;
        m->capremove = cap;
    }
    memmove(m->to_remove + k + 1, m->to_remove + k, (m->nremove - k) * sizeof *m->to_remove);
    m->to_remove[k] = t;
    m->nremove++;
    return ST_OK;
}

/* SOFA's removeOutputTetrahedra: output tetrahedron i takes the last one's
 * place, the maps follow, and a source left with no piece is remembered. */
static st_status remove_output_tetras(simple_tess *m, const unsigned *idx, size_t n,
                                      st_error *err)
{
    st_array *ts = &m->tetra_source, *map = &m->tetra_from_tetra;
    const size_t nsrc = map->n / 8;
    size_t last = ts->n;
    for (size_t k = 0; k < n && last; k++) {
        last--;
        const unsigned i = idx[k];
        if (i > last)
            continue;
        /* swap i and last (SOFA's swapOutputTetrahedra) */
        const unsigned si = ts->u[i], sl = ts->u[last];
        ts->u[i] = sl;
        ts->u[last] = si;
        for (int j = 0; si != UINT32_MAX && si < nsrc && j < 8; j++)
            if (map->u[8 * (size_t)si + j] == i) {
                map->u[8 * (size_t)si + j] = (unsigned)last;
                break;
            }
        for (int j = 0; sl != UINT32_MAX && sl < nsrc && j < 8; j++)
            if (map->u[8 * (size_t)sl + j] == last) {
                map->u[8 * (size_t)sl + j] = i;
                break;
            }
        const unsigned src = ts->u[last];
        if (src == UINT32_MAX || src >= nsrc)
            continue;
        int pieces = 0;
        for (int j = 0; j < 8; j++) {
            unsigned *c = &map->u[8 * (size_t)src + j];
            if (*c == last)
                *c = UINT32_MAX;
            else if (*c != UINT32_MAX)
                pieces++;
        }
        if (pieces == 0)
            ST_TRY(remember_removal(m, src, err));
    }
    ts->n = ts->n > n ? ts->n - n : 0;
    return ST_OK;
}

/* The input's modifier, as SOFA's context search from the input. */
static bool input_has_modifier(const simple_tess *m)
{
    for (st_node *n = m->input->node; n; n = st_node_parent(n))
        for (size_t i = 0; i < st_node_object_count(n); i++)
            if (!strcmp(st_node_object(n, i)->cls->name, "TetrahedronSetTopologyModifier"))
                return true;
    return false;
}

static st_status simple_tess_out_changed(st_component *self, st_component *topology,
                                         const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    simple_tess *m = (simple_tess *)self;
    for (size_t i = 0; i < nev; i++) {
        const st_topo_event *e = &ev[i];
        if (e->elem == ST_ELEM_POINT) {
            if (e->change == ST_TOPO_ADDED) {
                const size_t n0 = m->point_source.n;
                ST_TRY(st_array_resize(&m->point_source, ST_T_UINTS, n0 + e->n, err));
                memset(m->point_source.u + n0, 0, e->n * sizeof *m->point_source.u);
            } else {
                remove_output_points(m, e->index, e->n);
            }
        } else if (e->elem == ST_ELEM_TETRAHEDRON) {
            if (e->change == ST_TOPO_ADDED)
                ST_TRY(pad_map(&m->tetra_source, e->n, err));
            else
                ST_TRY(remove_output_tetras(m, e->index, e->n, err));
        }
    }
    static const char *const touched[] = {"tetrahedraMappedFromTetra", "tetraSource",
                                          "pointMappedFromPoint", "pointMappedFromEdge",
                                          "pointSource", NULL};
    for (size_t i = 0; touched[i]; i++)
        st_component_touch(self, st_component_field(self, touched[i]));
    /* SOFA's ENDING_EVENT: the input tetrahedra left without pieces go,
     * highest index first. */
    if (m->nremove == 0)
        return ST_OK;
    const size_t n = m->nremove;
    m->nremove = 0;
    if (!input_has_modifier(m))
        return ST_OK;
    for (size_t a = 0, b = n - 1; a < b; a++, b--) {
        const unsigned t = m->to_remove[a];
        m->to_remove[a] = m->to_remove[b];
        m->to_remove[b] = t;
    }
    return st_topology_remove(m->input, ST_ELEM_TETRAHEDRON, m->to_remove, n, err);
}

static void simple_tess_cleanup(st_component *self)
{
    simple_tess *m = (simple_tess *)self;
    st_free(m->to_remove);
    m->to_remove = NULL;
    m->nremove = m->capremove = 0;
}

const st_class simple_tesselated_tetra_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "SimpleTesselatedTetraTopologicalMapping",
    .category = "TopologicalMapping",
    .description = "Special case of mapping where TetrahedronSetTopology is converted into a "
                   "finer TetrahedronSetTopology.",
    .instance_size = sizeof(simple_tess),
    .fields = simple_tess_fields,
    .init = simple_tess_init,
    .reinit = simple_tess_init,
    .cleanup = simple_tess_cleanup,
};
