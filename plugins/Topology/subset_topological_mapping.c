/* subset_topological_mapping.c - SubsetTopologicalMapping: the output
 * topology holds a subset of the input's points and elements (its own lists,
 * given by the scene); the mapping finds, at init, which input point and
 * element each output one is, and writes both directions into its data
 * (pointS2D/pointD2S, edgeS2D/edgeD2S, ... : source -> destination and back,
 * 4294967295, SOFA's InvalidID, where there is none).
 *
 * Points (unless samePoints, where the output uses the input's indices and
 * the point maps stay empty): matched by equal coordinates when both
 * topologies have positions (the last input point wins among equal ones,
 * as in SOFA's map), else one to one when both have as many points, else an
 * error. An output point with no match keeps InvalidID, with a warning.
 * Elements of each handled kind (handleEdges, ...), when both topologies
 * have some: matched as vertex sets (the output's vertices taken through
 * pointD2S), the last input element among equal sets winning; one with no
 * match keeps InvalidID with a warning, as SOFA.
 *
 * Topological changes of the input follow as SOFA's
 * updateTopologicalMappingTopDown: points added whose ancestors (weight not
 * 0) are all in the output are added to it (ancestors mapped), every
 * point with samePoints; removed points that the output has are removed
 * from it; elements of a handled kind are added when all their vertices
 * are in the output and removed when the output has them. The output
 * removes no isolated point of its own, nor isolated edges (faces) when
 * edges (faces) are handled (SOFA's removeTriangles(ids, !handleEdges,
 * false)): the input's own events for those follow. SOFA handles points,
 * edges and triangles; settee handles quads, tetrahedra and hexahedra the
 * same way (SOFA's output would go stale there). Both
 * maps follow each event (a removed element's slot takes the last one's,
 * in the source and in the destination). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

#define INVALID_ID UINT_MAX

enum { K_EDGE, K_TRI, K_QUAD, K_TETRA, K_HEXA, NKINDS };

typedef struct subset_topo_map {
    st_component base;
    st_component *input, *output;
    bool same_points;        /* "samePoints" */
    bool handle[NKINDS];     /* "handleEdges" ... "handleHexahedra" */
    st_array point_s2d, point_d2s;
    st_array s2d[NKINDS], d2s[NKINDS];
    bool listening;
} subset_topo_map;

static const st_type kind_type[NKINDS] = {ST_T_EDGES, ST_T_TRIANGLES, ST_T_QUADS, ST_T_TETRAS,
                                          ST_T_HEXAS};
static const char *const kind_name[NKINDS] = {"Edge", "Triangle", "Quad", "Tetrahedron",
                                              "Hexahedron"};

#define STM_HANDLE(k, key, what)                                                                 \
    ST_BOOL(subset_topo_map, handle[k], key, "false",                                            \
            "True if " what " events and mapping should be handled")
#define STM_MAP(m, key, help) ST_UINTS(subset_topo_map, m, key, "", help)

static const st_field stm_fields[] = {
    TOPO_MAP_LINKS(subset_topo_map, "Input topology to map", "Output topology to map (a subset of the input)"),
    ST_BOOL(subset_topo_map, same_points, "samePoints", "false",
            "True if the same set of points is used in both topologies"),
    STM_HANDLE(K_EDGE, "handleEdges", "edges"),
    STM_HANDLE(K_TRI, "handleTriangles", "triangles"),
    STM_HANDLE(K_QUAD, "handleQuads", "quads"),
    STM_HANDLE(K_TETRA, "handleTetrahedra", "tetrahedra"),
    STM_HANDLE(K_HEXA, "handleHexahedra", "hexahedra"),
    STM_MAP(point_s2d, "pointS2D", "Internal source -> destination topology points map"),
    STM_MAP(point_d2s, "pointD2S",
            "Internal destination -> source topology points map (link to SubsetMapping::indices "
            "to handle the mechanical-side of the mapping"),
    STM_MAP(s2d[K_EDGE], "edgeS2D", "Internal source -> destination topology edges map"),
    STM_MAP(d2s[K_EDGE], "edgeD2S", "Internal destination -> source topology edges map"),
    STM_MAP(s2d[K_TRI], "triangleS2D", "Internal source -> destination topology triangles map"),
    STM_MAP(d2s[K_TRI], "triangleD2S", "Internal destination -> source topology triangles map"),
    STM_MAP(s2d[K_QUAD], "quadS2D", "Internal source -> destination topology quads map"),
    STM_MAP(d2s[K_QUAD], "quadD2S", "Internal destination -> source topology quads map"),
    STM_MAP(s2d[K_TETRA], "tetrahedronS2D",
            "Internal source -> destination topology tetrahedra map"),
    STM_MAP(d2s[K_TETRA], "tetrahedronD2S",
            "Internal destination -> source topology tetrahedra map"),
    STM_MAP(s2d[K_HEXA], "hexahedronS2D", "Internal source -> destination topology hexahedra map"),
    STM_MAP(d2s[K_HEXA], "hexahedronD2S", "Internal destination -> source topology hexahedra map"),
    ST_FIELD_END};

/* A sortable key: up to 8 values (coordinates as bits, or sorted vertices)
 * and the input index. */
typedef struct key {
    unsigned long long v[8];
    unsigned idx;
} key;

static unsigned key_width; /* values compared (set before each qsort/bsearch) */

static int key_cmp_values(const key *a, const key *b)
{
    for (unsigned i = 0; i < key_width; i++)
        if (a->v[i] != b->v[i])
            return a->v[i] < b->v[i] ? -1 : 1;
    return 0;
}

static int key_cmp(const void *pa, const void *pb)
{
    const key *a = pa, *b = pb;
    int c = key_cmp_values(a, b);
    return c ? c : (a->idx < b->idx ? -1 : a->idx > b->idx);
}

/* The input index of the last entry equal to k in sorted keys, or
 * INVALID_ID. */
static unsigned find_last(const key *keys, size_t n, const key *k)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first entry greater than k's values */
        size_t mid = (lo + hi) / 2;
        if (key_cmp_values(&keys[mid], k) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && key_cmp_values(&keys[lo - 1], k) == 0 ? keys[lo - 1].idx : INVALID_ID;
}

static unsigned long long coord_bits(double x)
{
    if (x == 0)
        x = 0; /* -0 and +0 are equal, as in SOFA's comparison */
    unsigned long long u;
    memcpy(&u, &x, sizeof u);
    /* order-preserving map of the double to an unsigned integer */
    return (u >> 63) ? ~u : u | (1ull << 63);
}

static void sort_small(unsigned long long *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
            unsigned long long t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

static st_status fill(st_array *a, size_t n, unsigned value, st_error *err)
{
    ST_TRY(st_array_resize(a, ST_T_UINTS, n, err));
    for (size_t i = 0; i < n; i++)
        a->u[i] = value;
    return ST_OK;
}

static st_status map_points(subset_topo_map *m, st_error *err)
{
    const st_topology_ops *ti = m->input->cls->topology, *to = m->output->cls->topology;
    topo *in = (topo *)m->input, *out = (topo *)m->output;
    size_t npS = ti->nb_points(m->input), npD = to->nb_points(m->output);
    const bool have_pos = npS > 0 && npD > 0;
    if (!npS && ti == &topo_ops)
        npS = in->nb_points;
    if (!npD && to == &topo_ops)
        npD = out->nb_points;
    ST_TRY(fill(&m->point_s2d, npS, 0, err));
    ST_TRY(fill(&m->point_d2s, npD, 0, err));
    if (!have_pos) {
        if (npS != npD)
            return st_component_error(&m->base, "output", err, ST_ESCENE,
                                      "If topologies do not have the same number of points then "
                                      "they must have associated positions (input %zu, output "
                                      "%zu points)",
                                      npS, npD);
        for (size_t i = 0; i < npD; i++)
            m->point_d2s.u[i] = m->point_s2d.u[i] = (unsigned)i;
        return ST_OK;
    }
    key *keys = st_calloc(npS, sizeof *keys);
    if (!keys)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu points)", npS);
    for (size_t i = 0; i < npS; i++) {
        double p[3];
        ti->get_point(m->input, i, p);
        for (int k = 0; k < 3; k++)
            keys[i].v[k] = coord_bits(p[k]);
        keys[i].idx = (unsigned)i;
        m->point_s2d.u[i] = INVALID_ID;
    }
    key_width = 3;
    qsort(keys, npS, sizeof *keys, key_cmp);
    for (size_t d = 0; d < npD; d++) {
        key k = {{0}, 0};
        double p[3];
        to->get_point(m->output, d, p);
        for (int c = 0; c < 3; c++)
            k.v[c] = coord_bits(p[c]);
        unsigned s = find_last(keys, npS, &k);
        m->point_d2s.u[d] = s;
        if (s == INVALID_ID)
            st_component_warn(&m->base, "Point %zu not found in source topology", d);
        else
            m->point_s2d.u[s] = (unsigned)d;
    }
    st_free(keys);
    return ST_OK;
}

static st_status map_elements(subset_topo_map *m, int kind, st_error *err)
{
    const st_array *es = m->input->cls->topology->elements(m->input, kind_type[kind]);
    const st_array *ed = m->output->cls->topology->elements(m->output, kind_type[kind]);
    const size_t nS = es ? es->n : 0, nD = ed ? ed->n : 0;
    ST_TRY(fill(&m->s2d[kind], nS, 0, err));
    ST_TRY(fill(&m->d2s[kind], nD, 0, err));
    if (nS == 0 || nD == 0)
        return ST_OK;
    const unsigned w = st_type_width(kind_type[kind]);
    key *keys = st_calloc(nS, sizeof *keys);
    if (!keys)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu elements)", nS);
    for (size_t i = 0; i < nS; i++) {
        for (unsigned c = 0; c < w; c++)
            keys[i].v[c] = es->u[(size_t)w * i + c];
        sort_small(keys[i].v, w);
        keys[i].idx = (unsigned)i;
        m->s2d[kind].u[i] = INVALID_ID;
    }
    key_width = w;
    qsort(keys, nS, sizeof *keys, key_cmp);
    const st_array *pmap = &m->point_d2s;
    for (size_t d = 0; d < nD; d++) {
        key k = {{0}, 0};
        for (unsigned c = 0; c < w; c++) {
            unsigned p = ed->u[(size_t)w * d + c];
            k.v[c] = pmap->n == 0 ? p : p < pmap->n ? pmap->u[p] : INVALID_ID;
        }
        sort_small(k.v, w);
        unsigned s = find_last(keys, nS, &k);
        m->d2s[kind].u[d] = s;
        if (s == INVALID_ID)
            st_component_warn(&m->base, "%s %zu not found in source topology", kind_name[kind], d);
        else
            m->s2d[kind].u[s] = (unsigned)d;
    }
    st_free(keys);
    return ST_OK;
}

/* ---- following the input's changes ---- */

static st_status push_id(st_array *a, unsigned v, st_error *err)
{
    ST_TRY(st_array_resize(a, ST_T_UINTS, a->n + 1, err));
    a->u[a->n - 1] = v;
    return ST_OK;
}

static int desc_cmp(const void *pa, const void *pb)
{
    unsigned a = *(const unsigned *)pa, b = *(const unsigned *)pb;
    return a < b ? 1 : a > b ? -1 : 0;
}

/* Source elements ev->index removed (each then-last one moving into its
 * slot), then destination elements tab2 (sorted here, as the output
 * removes them): both maps follow, as SOFA's. */
static void maps_source_removed(st_array *s2d, st_array *d2s, const unsigned *idx, size_t n)
{
    size_t last = s2d->n - 1;
    for (size_t i = 0; i < n && s2d->n; i++, last--) {
        unsigned ps = idx[i];
        if (ps >= s2d->n)
            continue;
        unsigned pd = s2d->u[ps];
        if (pd != INVALID_ID && pd < d2s->n)
            d2s->u[pd] = INVALID_ID;
        unsigned pd2 = s2d->u[last];
        s2d->u[ps] = pd2;
        if (pd2 != INVALID_ID && pd2 < d2s->n && d2s->u[pd2] == last)
            d2s->u[pd2] = ps;
    }
    s2d->n = s2d->n > n ? s2d->n - n : 0;
}

static void maps_dest_removed(st_array *s2d, st_array *d2s, const unsigned *tab2, size_t n)
{
    size_t last = d2s->n - 1;
    for (size_t i = 0; i < n && d2s->n; i++, last--) {
        unsigned pd = tab2[i];
        unsigned ps2 = d2s->u[last];
        d2s->u[pd] = ps2;
        if (ps2 != INVALID_ID && ps2 < s2d->n && s2d->u[ps2] == last)
            s2d->u[ps2] = pd;
    }
    d2s->n = d2s->n > n ? d2s->n - n : 0;
}

/* The output's elements of a kind the maps must cover: a map shorter than
 * the output (elements the output added itself, as a triangle's missing
 * edges) is padded with InvalidID. */
static st_status pad_dest(subset_topo_map *m, int k, st_error *err)
{
    const st_array *ed = m->output->cls->topology->elements(m->output, kind_type[k]);
    while (ed && m->d2s[k].n < ed->n)
        ST_TRY(push_id(&m->d2s[k], INVALID_ID, err));
    return ST_OK;
}

static st_status stm_points_changed(subset_topo_map *m, const st_topo_event *e, st_error *err)
{
    if (e->change == ST_TOPO_ADDED) {
        if (m->same_points)
            return topo_add_points(m->output, e->n, NULL, NULL, NULL, err);
        size_t nadd = 0, na = 0;
        size_t *start = st_malloc((e->n + 1) * sizeof *start);
        size_t total = e->ancestor_start ? e->ancestor_start[e->n] : 0;
        unsigned *anc = st_malloc((total + 1) * sizeof *anc);
        double *coef = st_malloc((total + 1) * sizeof *coef);
        st_status st = start && anc && coef ? ST_OK
                                            : st_error_set(err, ST_ENOMEM, "out of memory");
        for (size_t i = 0; i < e->n && st == ST_OK; i++) {
            bool in = true;
            size_t a0 = e->ancestor_start ? e->ancestor_start[i] : 0,
                   a1 = e->ancestor_start ? e->ancestor_start[i + 1] : 0;
            for (size_t a = a0; a < a1 && in; a++)
                if (e->coefs[a] != 0.0 &&
                    (e->ancestors[a] >= m->point_s2d.n ||
                     m->point_s2d.u[e->ancestors[a]] == INVALID_ID))
                    in = false;
            unsigned pd = in ? (unsigned)m->point_d2s.n : INVALID_ID;
            st = push_id(&m->point_s2d, pd, err);
            if (st != ST_OK || !in)
                continue;
            st = push_id(&m->point_d2s, e->index[i], err);
            start[nadd++] = na;
            for (size_t a = a0; a < a1; a++)
                if (e->coefs[a] != 0.0) {
                    anc[na] = m->point_s2d.u[e->ancestors[a]];
                    coef[na++] = e->coefs[a];
                }
        }
        start[nadd] = na;
        if (st == ST_OK && nadd)
            st = topo_add_points(m->output, nadd, e->ancestor_start ? start : NULL,
                                 e->ancestor_start ? anc : NULL, e->ancestor_start ? coef : NULL,
                                 err);
        st_free(start);
        st_free(anc);
        st_free(coef);
        return st;
    }
    if (m->same_points)
        return topo_remove_ex(m->output, ST_ELEM_POINT, e->index, e->n, false, false, err);
    unsigned *tab2 = st_malloc((e->n + 1) * sizeof *tab2);
    if (!tab2)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    size_t n2 = 0;
    for (size_t i = 0; i < e->n; i++)
        if (e->index[i] < m->point_s2d.n && m->point_s2d.u[e->index[i]] != INVALID_ID)
            tab2[n2++] = m->point_s2d.u[e->index[i]];
    maps_source_removed(&m->point_s2d, &m->point_d2s, e->index, e->n);
    qsort(tab2, n2, sizeof *tab2, desc_cmp);
    st_status st = n2 ? topo_remove_ex(m->output, ST_ELEM_POINT, tab2, n2, false, false, err)
                      : ST_OK;
    if (st == ST_OK)
        maps_dest_removed(&m->point_s2d, &m->point_d2s, tab2, n2);
    st_free(tab2);
    return st;
}

static st_status stm_elements_changed(subset_topo_map *m, int k, const st_topo_event *e,
                                      st_error *err)
{
    const unsigned w = st_elem_vertices(e->elem);
    st_array *s2d = &m->s2d[k], *d2s = &m->d2s[k];
    ST_TRY(pad_dest(m, k, err));
    if (e->change == ST_TOPO_ADDED) {
        unsigned *verts = st_malloc(((size_t)w * e->n + 1) * sizeof *verts);
        if (!verts)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        size_t nadd = 0;
        st_status st = ST_OK;
        for (size_t i = 0; i < e->n && st == ST_OK; i++) {
            bool in = true;
            for (unsigned j = 0; j < w && in; j++) {
                unsigned p = e->vertices[(size_t)w * i + j];
                unsigned q = m->same_points ? p
                             : p < m->point_s2d.n ? m->point_s2d.u[p]
                                                  : INVALID_ID;
                in = q != INVALID_ID;
                verts[(size_t)w * nadd + j] = q;
            }
            while (st == ST_OK && s2d->n <= e->index[i])
                st = push_id(s2d, INVALID_ID, err);
            if (st != ST_OK || !in)
                continue;
            s2d->u[e->index[i]] = (unsigned)(d2s->n + nadd);
            nadd++;
        }
        /* the new destination elements name their sources, in order */
        size_t base = d2s->n;
        for (size_t i = 0; i < e->n && st == ST_OK; i++) {
            unsigned pd = s2d->u[e->index[i]];
            if (pd != INVALID_ID && pd >= base)
                st = push_id(d2s, e->index[i], err);
        }
        if (st == ST_OK && nadd)
            st = topo_add(m->output, e->elem, verts, nadd, err);
        st_free(verts);
        return st;
    }
    unsigned *tab2 = st_malloc((e->n + 1) * sizeof *tab2);
    if (!tab2)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    size_t n2 = 0;
    for (size_t i = 0; i < e->n; i++)
        if (e->index[i] < s2d->n && s2d->u[e->index[i]] != INVALID_ID)
            tab2[n2++] = s2d->u[e->index[i]];
    maps_source_removed(s2d, d2s, e->index, e->n);
    qsort(tab2, n2, sizeof *tab2, desc_cmp);
    /* SOFA's removeTriangles(tab2, !handleEdges, false): the faces and
     * edges the removed elements leave isolated go with them unless the
     * input's own events for them will follow */
    bool subs = !m->handle[K_EDGE];
    if (e->elem == ST_ELEM_TETRAHEDRON)
        subs = subs && !m->handle[K_TRI];
    if (e->elem == ST_ELEM_HEXAHEDRON)
        subs = subs && !m->handle[K_QUAD];
    st_status st = n2 ? topo_remove_ex(m->output, e->elem, tab2, n2, subs, false, err) : ST_OK;
    if (st == ST_OK)
        maps_dest_removed(s2d, d2s, tab2, n2);
    st_free(tab2);
    return st;
}

static st_status stm_changed(st_component *self, st_component *topology, const st_topo_event *ev,
                             size_t nev, st_error *err)
{
    (void)topology;
    subset_topo_map *m = (subset_topo_map *)self;
    for (size_t i = 0; i < nev; i++) {
        const st_topo_event *e = &ev[i];
        if (e->elem == ST_ELEM_POINT) {
            ST_TRY(stm_points_changed(m, e, err));
            continue;
        }
        int k = (int)e->elem - 1;
        if (k >= 0 && k < NKINDS && m->handle[k])
            ST_TRY(stm_elements_changed(m, k, e, err));
    }
    for (int k = 0; k < NKINDS; k++)
        if (m->handle[k])
            ST_TRY(pad_dest(m, k, err));
    return ST_OK;
}

/* Changes of the output made by others: SOFA's mapping does not follow
 * them (its maps go stale), nor does settee's. */
static st_status stm_output_changed(st_component *self, st_component *topology,
                                    const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology, (void)ev, (void)nev, (void)self, (void)err;
    return ST_OK;
}

static st_status stm_init(st_component *self, st_error *err)
{
    subset_topo_map *m = (subset_topo_map *)self;
    self->state = ST_CSTATE_INVALID;
    if (!m->input || !m->input->cls->topology)
        return st_component_error(self, "input", err, ST_ELINK,
                                  "input must link a topology container (e.g. \"@../topology\")");
    if (!m->output || !m->output->cls->topology)
        return st_component_error(self, "output", err, ST_ELINK,
                                  "output must link a topology container (e.g. \"@topology\")");
    if (!m->same_points)
        ST_TRY(map_points(m, err));
    for (int k = 0; k < NKINDS; k++)
        if (m->handle[k])
            ST_TRY(map_elements(m, k, err));
    if (!m->listening) {
        ST_TRY(st_topology_listen(self, m->input, stm_changed, err));
        ST_TRY(st_topology_listen(self, m->output, stm_output_changed, err));
        ST_TRY(topo_map_listen_others(self, m->input, m->output, err));
        m->listening = true;
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

const st_class subset_topological_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "SubsetTopologicalMapping",
    .category = "TopologicalMapping",
    .description = "TopologicalMapping where the destination topology is a subset of the source "
                   "topology. The implementation currently assumes that both topologies have been "
                   "initialized correctly.",
    .instance_size = sizeof(subset_topo_map),
    .fields = stm_fields,
    .init = stm_init,
    .reinit = stm_init,
};
