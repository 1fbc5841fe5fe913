/* simple_tesselated_hexa_topological_mapping.c -
 * SimpleTesselatedHexaTopologicalMapping: fills an output hexahedral
 * container with each input hexahedron cut into eight, as SOFA's init does:
 *   - the output's points: the input's points, then for each hexahedron in
 *     turn its new edge midpoints (edges (0,1) (1,2) (3,2) (0,3) (0,4) (1,5)
 *     (2,6) (3,7) (4,5) (5,6) (7,6) (4,7)), its new face centres (faces
 *     (0,1,2,3) (0,1,5,4) (1,2,6,5) (3,2,6,7) (0,3,7,4) (4,5,6,7)) and its
 *     centre;
 *   - "new" as SOFA's maps decide it: an edge or a face already met with
 *     the same vertices in the same order reuses its point (neighbours of a
 *     grid, numbered alike, share them; the same edge met reversed gets a
 *     second point, as in SOFA);
 *   - the eight hexahedra of each input hexahedron, corner k of the input
 *     hexahedron in the k-th, in SOFA's vertex order.
 * The output's other lists are cleared and derived again from the
 * hexahedra (SOFA's toModel->clear() and toModel->init()). Placed in
 * Mapping.Linear, SOFA's module for it. The output does not follow later
 * changes of the input (SOFA's class has no updateTopologicalMappingTopDown). */
#include <string.h>

#include <settee/settee.h>

typedef struct sth_map {
    st_component base;
    st_component *input;  /* "input" */
    st_component *output; /* "output" */
} sth_map;

static const st_field sth_fields[] = {
    {"input", ST_T_LINK, offsetof(sth_map, input) + ST_FIELD_CHECK_(sth_map, input, st_component *),
     NULL, "Input topology to map (hexahedra)", ST_F_REQUIRED, NULL, ST_LINK_TOPOLOGY, 0.0, 0.0},
    {"output", ST_T_LINK,
     offsetof(sth_map, output) + ST_FIELD_CHECK_(sth_map, output, st_component *), NULL,
     "Output topology to map (a container with positions and hexahedra: MeshTopology or "
     "HexahedronSetTopologyContainer)",
     ST_F_REQUIRED, NULL, ST_LINK_TOPOLOGY, 0.0, 0.0},
    ST_FIELD_END};

static const unsigned hexa_edges[12][2] = {{0, 1}, {1, 2}, {3, 2}, {0, 3}, {0, 4}, {1, 5},
                                           {2, 6}, {3, 7}, {4, 5}, {5, 6}, {7, 6}, {4, 7}};
static const unsigned hexa_facets[6][4] = {{0, 1, 2, 3}, {0, 1, 5, 4}, {1, 2, 6, 5},
                                           {3, 2, 6, 7}, {0, 3, 7, 4}, {4, 5, 6, 7}};
/* The eight sub-hexahedra: -1 - k is corner k, E+j edge point j, F+j face
 * point j, C the centre. */
enum { C_ = 100, E_ = 200, F_ = 300 };
static const int sub_hexa[8][8] = {
    {-1, E_ + 0, F_ + 0, E_ + 3, E_ + 4, F_ + 1, C_, F_ + 4},
    {E_ + 0, -2, E_ + 1, F_ + 0, F_ + 1, E_ + 5, F_ + 2, C_},
    {F_ + 0, E_ + 1, -3, E_ + 2, C_, F_ + 2, E_ + 6, F_ + 3},
    {E_ + 3, F_ + 0, E_ + 2, -4, F_ + 4, C_, F_ + 3, E_ + 7},
    {E_ + 4, F_ + 1, C_, F_ + 4, -5, E_ + 8, F_ + 5, E_ + 11},
    {F_ + 1, E_ + 5, F_ + 2, C_, E_ + 8, -6, E_ + 9, F_ + 5},
    {C_, F_ + 2, E_ + 6, F_ + 3, F_ + 5, E_ + 9, -7, E_ + 10},
    {F_ + 4, C_, F_ + 3, E_ + 7, E_ + 11, F_ + 5, E_ + 10, -8}};

/* Ordered keys (SOFA's std::map of fixed_arrays): linear search tables. */
typedef struct key_table {
    unsigned *keys; /* n * w */
    unsigned *pts;  /* n */
    size_t n, cap;
    unsigned w;
} key_table;

static bool kt_find(const key_table *t, const unsigned *k, unsigned *pt)
{
    for (size_t i = 0; i < t->n; i++)
        if (!memcmp(t->keys + (size_t)t->w * i, k, t->w * sizeof *k)) {
            *pt = t->pts[i];
            return true;
        }
    return false;
}

static st_status kt_add(key_table *t, const unsigned *k, unsigned pt, st_error *err)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        unsigned *nk = st_realloc(t->keys, cap * t->w * sizeof *nk);
        if (!nk)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        t->keys = nk;
        unsigned *np = st_realloc(t->pts, cap * sizeof *np);
        if (!np)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        t->pts = np;
        t->cap = cap;
    }
    memcpy(t->keys + (size_t)t->w * t->n, k, t->w * sizeof *k);
    t->pts[t->n++] = pt;
    return ST_OK;
}

static st_status push_point(st_array *pos, const double p[3], st_error *err)
{
    size_t n = pos->n;
    ST_TRY(st_array_resize(pos, ST_T_VEC3S, n + 1, err));
    memcpy(pos->r + 3 * n, p, 3 * sizeof *p);
    return ST_OK;
}

static st_array *out_list(st_component *out, const char *name)
{
    const st_field *f = st_component_field(out, name);
    return f ? st_component_field_ptr(out, f) : NULL;
}

static st_status sth_build(sth_map *m, key_table *ke, key_table *kf, st_error *err)
{
    const st_topology_ops *in = m->input->cls->topology;
    const st_array *hexas = in->elements(m->input, ST_T_HEXAS);
    size_t nh = hexas ? hexas->n : 0, np = in->nb_points(m->input);
    st_array *pos = out_list(m->output, "position");
    st_array *hex = out_list(m->output, "hexahedra");
    /* SOFA's toModel->clear() */
    static const char *const lists[] = {"edges", "triangles", "quads", "tetrahedra"};
    static const st_type types[] = {ST_T_EDGES, ST_T_TRIANGLES, ST_T_QUADS, ST_T_TETRAS};
    for (int k = 0; k < 4; k++) {
        st_array *a = out_list(m->output, lists[k]);
        if (a)
            st_array_free(a, types[k]);
    }
    st_array_free(pos, ST_T_VEC3S);
    st_array_free(hex, ST_T_HEXAS);
    const st_field *fnb = st_component_field(m->output, "nbPoints");
    if (fnb)
        *(unsigned *)st_component_field_ptr(m->output, fnb) = 0;
    for (size_t i = 0; i < np; i++) {
        double p[3];
        in->get_point(m->input, i, p);
        ST_TRY(push_point(pos, p, err));
    }
    unsigned *centre = st_calloc(nh ? nh : 1, sizeof *centre);
    if (!centre)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    st_status st = ST_OK;
    for (size_t i = 0; i < nh && st == ST_OK; i++) {
        const unsigned *h = hexas->u + 8 * i;
        double c[8][3];
        for (int k = 0; k < 8; k++)
            in->get_point(m->input, h[k], c[k]);
        for (int e = 0; e < 12 && st == ST_OK; e++) {
            unsigned key[2] = {h[hexa_edges[e][0]], h[hexa_edges[e][1]]}, pt;
            if (kt_find(ke, key, &pt))
                continue;
            double p[3];
            for (int a = 0; a < 3; a++)
                p[a] = (c[hexa_edges[e][0]][a] + c[hexa_edges[e][1]][a]) / 2;
            st = kt_add(ke, key, (unsigned)pos->n, err);
            if (st == ST_OK)
                st = push_point(pos, p, err);
        }
        for (int f = 0; f < 6 && st == ST_OK; f++) {
            unsigned key[4], pt;
            for (int j = 0; j < 4; j++)
                key[j] = h[hexa_facets[f][j]];
            if (kt_find(kf, key, &pt))
                continue;
            double p[3] = {0, 0, 0};
            for (int j = 0; j < 4; j++)
                for (int a = 0; a < 3; a++)
                    p[a] += c[hexa_facets[f][j]][a];
            for (int a = 0; a < 3; a++)
                p[a] /= 4;
            st = kt_add(kf, key, (unsigned)pos->n, err);
            if (st == ST_OK)
                st = push_point(pos, p, err);
        }
        double p[3] = {0, 0, 0};
        for (int k = 0; k < 8; k++)
            for (int a = 0; a < 3; a++)
                p[a] += c[k][a];
        for (int a = 0; a < 3; a++)
            p[a] /= 8;
        centre[i] = (unsigned)pos->n;
        if (st == ST_OK)
            st = push_point(pos, p, err);
    }
    if (st == ST_OK)
        st = st_array_resize(hex, ST_T_HEXAS, 8 * nh, err);
    for (size_t i = 0; i < nh && st == ST_OK; i++) {
        const unsigned *h = hexas->u + 8 * i;
        unsigned ep[12], fp[6];
        for (int e = 0; e < 12; e++) {
            unsigned key[2] = {h[hexa_edges[e][0]], h[hexa_edges[e][1]]};
            kt_find(ke, key, &ep[e]);
        }
        for (int f = 0; f < 6; f++) {
            unsigned key[4];
            for (int j = 0; j < 4; j++)
                key[j] = h[hexa_facets[f][j]];
            kt_find(kf, key, &fp[f]);
        }
        for (int s = 0; s < 8; s++)
            for (int k = 0; k < 8; k++) {
                int code = sub_hexa[s][k];
                unsigned v = code < 0    ? h[-1 - code]
                             : code == C_ ? centre[i]
                             : code >= F_ ? fp[code - F_]
                                          : ep[code - E_];
                hex->u[8 * (8 * i + (size_t)s) + (size_t)k] = v;
            }
    }
    st_free(centre);
    return st;
}

static st_status sth_init(st_component *self, st_error *err)
{
    sth_map *m = (sth_map *)self;
    self->state = ST_CSTATE_INVALID;
    if (!m->input || !m->input->cls->topology)
        return st_component_error(self, "input", err, ST_ELINK,
                                  "input must link a topology container with hexahedra");
    if (!m->output || !m->output->cls->topology || !out_list(m->output, "position") ||
        !out_list(m->output, "hexahedra"))
        return st_component_error(self, "output", err, ST_ELINK,
                                  "output must link a container with positions and hexahedra "
                                  "(MeshTopology or HexahedronSetTopologyContainer), got %s",
                                  m->output ? m->output->cls->name : "nothing");
    const st_array *hexas = m->input->cls->topology->elements(m->input, ST_T_HEXAS);
    if (!hexas || hexas->n == 0)
        st_component_warn(self, "the input topology '%s' has no hexahedra: the output holds its "
                                "points only",
                          m->input->name);
    key_table ke = {.w = 2}, kf = {.w = 4};
    st_status st = sth_build(m, &ke, &kf, err);
    st_free(ke.keys), st_free(ke.pts), st_free(kf.keys), st_free(kf.pts);
    ST_TRY(st);
    static const char *const touched[] = {"position", "hexahedra", "edges", "triangles", "quads",
                                          "tetrahedra", "nbPoints"};
    for (size_t k = 0; k < sizeof touched / sizeof *touched; k++) {
        const st_field *f = st_component_field(m->output, touched[k]);
        if (f)
            st_component_touch(m->output, f);
    }
    /* SOFA's toModel->init(): the container derives its other lists (when
     * it is initialised already; else its own init does) */
    if (m->output->state == ST_CSTATE_VALID && m->output->cls->reinit)
        ST_TRY(m->output->cls->reinit(m->output, err));
    ST_TRY(st_topology_use(self, m->input, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

const st_class simple_tesselated_hexa_topological_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "SimpleTesselatedHexaTopologicalMapping",
    .category = "TopologicalMapping",
    .description = "Special case of mapping where HexahedronSetTopology is converted into a finer "
                   "HexahedronSetTopology.",
    .instance_size = sizeof(sth_map),
    .fields = sth_fields,
    .init = sth_init,
    .reinit = sth_init,
};
