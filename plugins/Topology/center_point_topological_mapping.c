/* center_point_topological_mapping.c - CenterPointTopologicalMapping: one
 * output point per hexahedron of the input. As SOFA's init, the output
 * container gets nbPoints = the input's number of hexahedra and the
 * mechanical state of its context is resized to that many points (their
 * positions are not computed here: SOFA leaves them to a mechanical mapping;
 * new points are zero). Without such a state the mapping is invalid, as
 * SOFA's (with a warning here, where SOFA is silent). Changes of the input
 * (SOFA's updateTopologicalMappingTopDown): hexahedra added add as many
 * points to the output, hexahedra removed remove the points of the same
 * indices (the last point moving into each removed place, as the last
 * hexahedron does). */
#include "topology.h"
#include "../shared/mapping_common.h"

typedef struct center_point_map {
    st_component base;
    st_component *input;  /* "input" */
    st_component *output; /* "output" */
    bool listening;
} center_point_map;

static const st_field cpm_fields[] = {
    TOPO_MAP_LINKS(center_point_map, "Input topology to map (hexahedra)",
                   "Output topology to map (a dynamic container: one point per hexahedron)"),
    ST_FIELD_END};

static st_status cpm_changed(st_component *self, st_component *topology, const st_topo_event *ev,
                             size_t nev, st_error *err)
{
    (void)topology;
    center_point_map *m = (center_point_map *)self;
    if (self->state != ST_CSTATE_VALID)
        return ST_OK;
    for (size_t i = 0; i < nev; i++) {
        const st_topo_event *e = &ev[i];
        if (e->elem != ST_ELEM_HEXAHEDRON || e->n == 0)
            continue;
        if (e->change == ST_TOPO_ADDED)
            ST_TRY(topo_add_points(m->output, e->n, NULL, NULL, NULL, err));
        else
            ST_TRY(topo_remove_ex(m->output, ST_ELEM_POINT, e->index, e->n, false, false, err));
    }
    return ST_OK;
}

static st_status cpm_output_changed(st_component *self, st_component *topology,
                                    const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)self, (void)topology, (void)ev, (void)nev, (void)err;
    return ST_OK; /* nothing indexed by the output's points */
}

static st_status cpm_init(st_component *self, st_error *err)
{
    center_point_map *m = (center_point_map *)self;
    self->state = ST_CSTATE_INVALID;
    ST_TRY(topo_map_check(self, m->input, m->output, "hexahedra", "nbPoints", TOPO_DYNAMIC,
                          "dynamic topology container (PointSetTopologyContainer)", err));
    const st_array *hexas = m->input->cls->topology->elements(m->input, ST_T_HEXAS);
    size_t nh = hexas ? hexas->n : 0;
    topo *out = (topo *)m->output;
    out->nb_points = (unsigned)nh;
    st_component_touch(m->output, st_component_field(m->output, "nbPoints"));
    st_component *state = st_node_find(m->output->node, ST_ROLE_STATE, ST_SEARCH_UP);
    if (!state) {
        st_component_warn(self, "no mechanical state in the context of the output '%s': the "
                                "mapping is invalid (SOFA's componentState Invalid)",
                          m->output->name);
        return ST_OK;
    }
    ST_TRY(map_resize_output((st_mstate *)state, nh, err));
    if (!m->listening) {
        ST_TRY(st_topology_listen(self, m->input, cpm_changed, err));
        ST_TRY(st_topology_listen(self, m->output, cpm_output_changed, err));
        ST_TRY(topo_map_listen_others(self, m->input, m->output, err));
        m->listening = true;
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

const st_class center_point_topological_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "CenterPointTopologicalMapping",
    .category = "TopologicalMapping",
    .description = "Topological mapping where each primitive in the input topology will be "
                   "mapped to a point in the output topology.",
    .instance_size = sizeof(center_point_map),
    .fields = cpm_fields,
    .init = cpm_init,
    .reinit = cpm_init,
};
