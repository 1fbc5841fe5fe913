/* hexa2quad_mapping.c - Hexa2QuadTopologicalMapping: fills a quad container
 * with the boundary quads of a hexahedral topology (the input's quads that
 * belong to exactly one hexahedron, in the input's quad order). */
#include <string.h>

#include "topology.h"

typedef struct hexa2quad {
    st_component base;
    st_component *input;  /* "input": hexahedral topology */
    st_component *output; /* "output": QuadSetTopologyContainer */
    bool flip_normals;    /* "flipNormals" */
} hexa2quad;

static const st_field hexa2quad_fields[] = {
    {"input", ST_T_LINK,
     offsetof(hexa2quad, input) + ST_FIELD_CHECK_(hexa2quad, input, st_component *), NULL,
     "Input topology (hexahedra)", ST_F_REQUIRED, NULL, ST_LINK_TOPOLOGY, 0.0, 0.0},
    {"output", ST_T_LINK,
     offsetof(hexa2quad, output) + ST_FIELD_CHECK_(hexa2quad, output, st_component *), NULL,
     "Output topology (a QuadSetTopologyContainer)", ST_F_REQUIRED, NULL, ST_LINK_TOPOLOGY, 0.0,
     0.0},
    ST_BOOL(hexa2quad, flip_normals, "flipNormals", "false",
            "Flip Normal ? (Inverse point order when creating quad)"),
    ST_FIELD_END};

static void sort4(unsigned *v)
{
    for (unsigned i = 1; i < 4; i++) {
        unsigned k = v[i], j = i;
        while (j > 0 && v[j - 1] > k) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = k;
    }
}

static const unsigned hexa_faces[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                          {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};

/* Counts, for each face key, how many hexahedra hold it. Keys are kept in a
 * tuple_set; counts in a parallel array indexed by insertion order. */
static st_status count_faces(const st_array *hexas, tuple_set *set, unsigned **counts,
                             st_error *err)
{
    size_t cap = 6 * hexas->n + 1;
    unsigned *c = st_calloc(cap, sizeof *c);
    if (!c)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t h = 0; h < hexas->n; h++)
        for (unsigned f = 0; f < 6; f++) {
            unsigned key[4];
            for (unsigned k = 0; k < 4; k++)
                key[k] = hexas->u[8 * h + hexa_faces[f][k]];
            sort4(key);
            bool fresh = false;
            st_status s = tuple_set_insert(set, key, &fresh, err);
            if (s != ST_OK) {
                st_free(c);
                return s;
            }
            c[fresh ? set->n - 1 : tuple_set_find(set, key)]++;
        }
    *counts = c;
    return ST_OK;
}

static st_status hexa2quad_init(st_component *self, st_error *err)
{
    hexa2quad *m = (hexa2quad *)self;
    self->state = ST_CSTATE_INVALID;
    if (!m->input || !m->input->cls->topology)
        return st_component_error(self, "input", err, ST_ELINK,
                                  "input must link a topology container with hexahedra "
                                  "(e.g. \"@../topology\")");
    if (!m->output || m->output->cls->topology != &topo_ops ||
        !st_component_field(m->output, "quads") || ((topo *)m->output)->kind != TOPO_DYNAMIC)
        return st_component_error(self, "output", err, ST_ELINK,
                                  "output must link a QuadSetTopologyContainer (or "
                                  "HexahedronSetTopologyContainer), got %s",
                                  m->output ? m->output->cls->name : "nothing");
    if (!topo_node_has_class(m->output->node, "QuadSetTopologyModifier",
                             "HexahedronSetTopologyModifier"))
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "the output container's node has no QuadSetTopologyModifier: "
                                  "add one next to '%s'",
                                  m->output->name);

    const st_topology_ops *in = m->input->cls->topology;
    const st_array *hexas = in->elements(m->input, ST_T_HEXAS);
    const st_array *quads = in->elements(m->input, ST_T_QUADS);
    topo *out = (topo *)m->output;
    st_array_free(&out->quads, ST_T_QUADS);
    st_array_free(&out->edges, ST_T_EDGES);
    out->nb_points = (unsigned)in->nb_points(m->input);

    if (hexas && hexas->n > 0 && quads && quads->n > 0) {
        tuple_set set = {.width = 4};
        unsigned *counts = NULL;
        ST_TRY(count_faces(hexas, &set, &counts, err));
        st_status s = ST_OK;
        for (size_t q = 0; q < quads->n && s == ST_OK; q++) {
            unsigned key[4];
            memcpy(key, quads->u + 4 * q, sizeof key);
            sort4(key);
            size_t idx = tuple_set_find(&set, key);
            if (idx == (size_t)-1 || counts[idx] != 1)
                continue;
            const unsigned *v = quads->u + 4 * q;
            unsigned o[4] = {v[0], v[1], v[2], v[3]};
            if (m->flip_normals) {
                o[0] = v[3], o[1] = v[2], o[2] = v[1], o[3] = v[0];
            }
            s = topo_push(&out->quads, ST_T_QUADS, o, err);
        }
        st_free(counts);
        tuple_set_free(&set);
        if (s != ST_OK)
            return s;
    } else {
        st_component_warn(self, "the input topology '%s' has no hexahedra: the output stays empty",
                          m->input->name);
    }
    const st_field *fq = st_component_field(m->output, "quads");
    st_component_touch(m->output, fq);
    const st_field *fn = st_component_field(m->output, "nbPoints");
    if (fn)
        st_component_touch(m->output, fn);
    /* Re-derive the container's edges from its new quads. */
    out->lists_ready = false;
    ST_TRY(topo_mesh_derive(out, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

const st_class hexa2quad_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "Hexa2QuadTopologicalMapping",
    .category = "TopologicalMapping",
    .description = "Topological mapping where HexahedronSetTopology is converted to "
                   "QuadSetTopology (boundary quads)",
    .instance_size = sizeof(hexa2quad),
    .fields = hexa2quad_fields,
    .init = hexa2quad_init,
    .reinit = hexa2quad_init,
};
