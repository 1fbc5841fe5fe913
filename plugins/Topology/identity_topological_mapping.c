/* identity_topological_mapping.c - IdentityTopologicalMapping: keeps an
 * output topology identical to its input through topological changes. As
 * SOFA's, it builds nothing at init (both containers must start identical:
 * the same lists, e.g. from one loader) and replays each change of the input
 * on the output, event by event, through the output container's own
 * removal and addition (announced to the output's followers):
 *   points removed / added (with their ancestors and coefficients),
 *   edges removed / added, triangles removed / added;
 * SOFA replays a removal event by event (removeTriangles(tab, false,
 * false), then the input's events for the edges and points it left
 * isolated: removeEdges(tab, false), removePoints); settee's containers do
 * not remove edges that triangles are made of one at a time, so the first
 * removal of a change is replayed with the output's own cascade (isolated
 * edges and points removed too) and the input's later removal events of
 * that change are skipped: on identical containers the cascade is the same
 * (the same elements, in the same order). Quads and volumes are not
 * replayed, as in SOFA. Edges and triangles need an Edge/Triangle set
 * modifier in the output's context (else skipped, as SOFA's), points a
 * point set modifier: without one the output does not follow (SOFA's error
 * "No PointSetTopologyModifier found for target topology.", given here at
 * init as a warning). */
#include "topology.h"

typedef struct identity_topo_map {
    st_component base;
    st_component *input;  /* "input" */
    st_component *output; /* "output" */
    bool listening;
} identity_topo_map;

static const st_field itm_fields[] = {
    TOPO_MAP_LINKS(identity_topo_map, "Input topology to map",
                   "Output topology to map (a dynamic container initialised as the input)"),
    ST_FIELD_END};

static const char *const point_mods[] = {
    "PointSetTopologyModifier",   "EdgeSetTopologyModifier",      "TriangleSetTopologyModifier",
    "QuadSetTopologyModifier",    "TetrahedronSetTopologyModifier",
    "HexahedronSetTopologyModifier", NULL};
static const char *const edge_mods[] = {
    "EdgeSetTopologyModifier",     "TriangleSetTopologyModifier", "QuadSetTopologyModifier",
    "TetrahedronSetTopologyModifier", "HexahedronSetTopologyModifier", NULL};
static const char *const triangle_mods[] = {"TriangleSetTopologyModifier",
                                            "TetrahedronSetTopologyModifier", NULL};

static st_status itm_changed(st_component *self, st_component *topology, const st_topo_event *ev,
                             size_t nev, st_error *err)
{
    (void)topology;
    identity_topo_map *m = (identity_topo_map *)self;
    if (self->state != ST_CSTATE_VALID)
        return ST_OK;
    st_node *on = m->output->node;
    if (!topo_map_find_modifier(on, point_mods))
        return ST_OK; /* warned at init */
    bool removed = false;
    for (size_t i = 0; i < nev; i++) {
        const st_topo_event *e = &ev[i];
        if (e->n == 0)
            continue;
        if (e->elem == ST_ELEM_EDGE && !topo_map_find_modifier(on, edge_mods))
            continue;
        if (e->elem == ST_ELEM_TRIANGLE && !topo_map_find_modifier(on, triangle_mods))
            continue;
        if (e->elem != ST_ELEM_POINT && e->elem != ST_ELEM_EDGE && e->elem != ST_ELEM_TRIANGLE)
            continue;
        if (e->change == ST_TOPO_REMOVED) {
            if (!removed)
                ST_TRY(topo_remove_ex(m->output, e->elem, e->index, e->n, true, true, err));
            removed = true;
        } else if (e->elem == ST_ELEM_POINT)
            ST_TRY(topo_add_points(m->output, e->n, e->ancestor_start, e->ancestors, e->coefs,
                                   err));
        else
            ST_TRY(topo_add(m->output, e->elem, e->vertices, e->n, err));
    }
    return ST_OK;
}

static st_status itm_output_changed(st_component *self, st_component *topology,
                                    const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)self, (void)topology, (void)ev, (void)nev, (void)err;
    return ST_OK; /* the mapping keeps nothing indexed by the output */
}

static st_status itm_init(st_component *self, st_error *err)
{
    identity_topo_map *m = (identity_topo_map *)self;
    self->state = ST_CSTATE_INVALID;
    ST_TRY(topo_map_check(self, m->input, m->output, "elements", "edges", TOPO_DYNAMIC,
                          "dynamic topology container (a *SetTopologyContainer)", err));
    if (!topo_map_find_modifier(m->output->node, point_mods))
        st_component_warn(self, "No PointSetTopologyModifier found for target topology '%s': "
                                "changes of '%s' will not reach it",
                          m->output->name, m->input->name);
    if (!m->listening) {
        ST_TRY(st_topology_listen(self, m->input, itm_changed, err));
        ST_TRY(st_topology_listen(self, m->output, itm_output_changed, err));
        ST_TRY(topo_map_listen_others(self, m->input, m->output, err));
        m->listening = true;
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

const st_class identity_topological_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "IdentityTopologicalMapping",
    .category = "TopologicalMapping",
    .description = "TopologicalMapping where the destination topology should be kept identical "
                   "to the source topology. The implementation currently assumes that both "
                   "topology have been initialized identically.",
    .instance_size = sizeof(identity_topo_map),
    .fields = itm_fields,
    .init = itm_init,
    .reinit = itm_init,
};
