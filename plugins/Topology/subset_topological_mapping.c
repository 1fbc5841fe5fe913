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
 * SOFA's mapping also follows the input's topological changes; settee's
 * does not yet: a change of the input stops the run naming this mapping
 * (st_topology_use). */
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
    ST_TRY(st_topology_use(self, m->input, err));
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
