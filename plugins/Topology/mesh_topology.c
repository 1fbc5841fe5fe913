/* mesh_topology.c - MeshTopology: a static topology given by lists (or
 * linked from a loader with src), missing lists derived as SOFA derives
 * them: triangles from tetrahedra, quads from hexahedra, edges from
 * volumes or else from surfaces. */
#include "topology_fields.h"

static const st_field mesh_fields[] = {
    TOPO_MESH_COMMON(0),
    TOPO_F_SRC,
    ST_FIELD_END};

static st_status mesh_create(st_component *self, st_error *err)
{
    (void)err;
    ((topo *)self)->kind = TOPO_MESH;
    return ST_OK;
}

static const char *const mesh_aliases[] = {"Mesh", NULL};

const st_class mesh_topology_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshTopology",
    .category = "Topology",
    .description = "Generic constant topology: points and elements given by lists or linked from a loader",
    .aliases = mesh_aliases,
    .instance_size = sizeof(topo),
    .fields = mesh_fields,
    .create = mesh_create,
    .init = topo_init,
    .reinit = topo_reinit,
    .topology = &topo_ops,
    .parsed = topo_parsed,
};
