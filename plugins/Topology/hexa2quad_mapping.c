/* hexa2quad_mapping.c - Hexa2QuadTopologicalMapping: fills a quad container
 * with the boundary quads of a hexahedral topology (the input's quads that
 * belong to exactly one hexahedron, in the input's quad order).
 *
 * Topological changes (SOFA's updateTopologicalMappingTopDown): removing
 * hexahedra adds the quads they exposed, as the hexahedron that stays holds
 * them (reversed with flipNormals, not rotated); the output quads of removed
 * input quads go one input quad at a time; removed points are removed from
 * the output; added hexahedra and points are ignored, as in SOFA. */
#include "topology.h"

typedef struct hexa2quad {
    st_component base;
    st_component *input;  /* "input": hexahedral topology */
    st_component *output; /* "output": QuadSetTopologyContainer */
    bool flip_normals;    /* "flipNormals" */
    topo_map_prop prop;   /* propagation of the input's changes */
} hexa2quad;

static const st_field hexa2quad_fields[] = {
    TOPO_MAP_LINKS(hexa2quad, "Input topology (hexahedra)",
                   "Output topology (a QuadSetTopologyContainer)"),
    ST_BOOL(hexa2quad, flip_normals, "flipNormals", "false",
            "Flip Normal ? (Inverse point order when creating quad)"),
    ST_FIELD_END};

static const unsigned hexa_faces[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                          {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};

/* A quad exposed by a removal, as the hexahedron `other` holds it. */
static void exposed_quad(const topo_map_prop *p, const unsigned *other, unsigned pos, unsigned g,
                         unsigned *out)
{
    for (unsigned j = 0; j < 4; j++)
        out[j] = other[hexa_faces[pos][p->flip ? 3 - j : j]];
    for (size_t l = 0; l < p->nloc; l++)
        if (p->loc2glob[l] == g) {
            st_component_warn(p->self, "Failed to add quad %u which already exists", g);
            break;
        }
}

static const topo_map_desc hexa2quad_desc = {
    .vol = ST_ELEM_HEXAHEDRON,
    .face = ST_ELEM_QUAD,
    .out = ST_ELEM_QUAD,
    .slots = &hexa_faces[0][0],
    .nslots = 6,
    .batch = false,
    .exposed = exposed_quad,
};

static st_status hexa2quad_changed(st_component *self, st_component *topology,
                                   const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    hexa2quad *m = (hexa2quad *)self;
    m->prop.flip = m->flip_normals;
    return topo_map_prop_changed(&m->prop, ev, nev, err);
}

static void hexa2quad_cleanup(st_component *self)
{
    topo_map_prop_free(&((hexa2quad *)self)->prop);
}

static st_status hexa2quad_init(st_component *self, st_error *err)
{
    hexa2quad *m = (hexa2quad *)self;
    self->state = ST_CSTATE_INVALID;
    ST_TRY(topo_map_check(self, m->input, m->output, "hexahedra", "quads", TOPO_DYNAMIC,
                          "QuadSetTopologyContainer (or HexahedronSetTopologyContainer)", err));
    if (!topo_node_has_class(m->output->node, "QuadSetTopologyModifier",
                             "HexahedronSetTopologyModifier"))
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "the output container's node has no QuadSetTopologyModifier: "
                                  "add one next to '%s'",
                                  m->output->name);

    topo *out = (topo *)m->output;
    static const char *const lists[] = {"quads", "edges", NULL};
    topo_map_begin(m->input, out, lists);
    topo_map_prop *p = &m->prop;
    p->d = &hexa2quad_desc;
    p->self = self, p->input = m->input, p->output = m->output;
    p->flip = m->flip_normals;
    p->nloc = 0;
    const st_topology_ops *in = m->input->cls->topology;
    const st_array *hexas = in->elements(m->input, ST_T_HEXAS);
    const st_array *quads = in->elements(m->input, ST_T_QUADS);
    if (hexas && hexas->n > 0 && quads && quads->n > 0) {
        unsigned *counts = NULL;
        ST_TRY(topo_map_count_owners(quads, 4, hexas, 8, &hexa_faces[0][0], 6, &counts, err));
        st_status s = ST_OK;
        for (size_t q = 0; q < quads->n && s == ST_OK; q++) {
            if (counts[q] != 1)
                continue;
            const unsigned *v = quads->u + 4 * q;
            unsigned o[4] = {v[0], v[1], v[2], v[3]};
            if (m->flip_normals) {
                o[0] = v[3], o[1] = v[2], o[2] = v[1], o[3] = v[0];
            }
            s = topo_push(&out->quads, ST_T_QUADS, o, err);
            if (s == ST_OK)
                s = topo_map_loc_push(p, (unsigned)q, err);
        }
        st_free(counts);
        ST_TRY(s);
    } else {
        st_component_warn(self, "the input topology '%s' has no hexahedra: the output stays empty",
                          m->input->name);
    }
    ST_TRY(topo_map_end(out, "quads", err));
    ST_TRY(topo_map_prop_init(p, hexa2quad_changed, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

TOPO_MAP_CHECKPOINT(hexa2quad);

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
    .cleanup = hexa2quad_cleanup,
    .checkpoint = &hexa2quad_checkpoint_ops,
};
