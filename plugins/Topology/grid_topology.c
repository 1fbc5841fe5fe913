/* grid_topology.c - GridTopology: the element lists of a regular grid of
 * n points per axis, without geometry (points come from `position`). */
#include "topology_fields.h"

static const st_field grid_fields[] = {
    TOPO_F_POSITION(0),
    TOPO_MESH_LISTS(ST_F_OUTPUT),
    TOPO_GRID_COMMON,
    ST_FIELD_END};

static st_status grid_create(st_component *self, st_error *err)
{
    (void)err;
    ((topo *)self)->kind = TOPO_GRID;
    return ST_OK;
}

static const char *const grid_aliases[] = {"Grid", NULL};

const st_class grid_topology_class = {
    .struct_size = sizeof(st_class),
    .name = "GridTopology",
    .category = "Topology",
    .description = "Base class fo a regular grid in 3D (element lists of an nx x ny x nz grid)",
    .aliases = grid_aliases,
    .instance_size = sizeof(topo),
    .fields = grid_fields,
    .create = grid_create,
    .init = topo_init,
    .reinit = topo_reinit,
    .topology = &topo_ops,
};
