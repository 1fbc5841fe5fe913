/* cylinder_grid_topology.c - CylinderGridTopology and SphereGridTopology:
 * GridTopology's element lists (hexahedra, quads, triangles, edges of an
 * nx x ny x nz grid) with points on a cylinder or a ball (SOFA's
 * getPointInGrid; topology_common.c curved_point): each layer of the grid
 * is a square of half-width `radius` scaled onto discs, stacked along
 * `axis` over `length` (cylinder), or the cube [-r, r]^3 scaled onto
 * spheres (sphere). Points are computed from the parameters, so a
 * MechanicalObject may ask for them before the grid's init. */
#include "topology_fields.h"

#define CURVED_COMMON                                                                             \
    TOPO_F_POSITION(0), TOPO_MESH_LISTS(ST_F_OUTPUT), TOPO_GRID_COMMON,                           \
        ST_VEC3(topo, center, "center", "0 0 0", "Center of the cylinder"),                       \
        ST_VEC3(topo, axis, "axis", "0 0 1", "Main direction of the cylinder")

static const st_field cylinder_fields[] = {
    CURVED_COMMON,
    ST_REAL(topo, radius, "radius", "1", "Radius of the cylinder"),
    ST_REAL(topo, length, "length", "1", "Length of the cylinder along its axis"),
    ST_FIELD_END};

static const st_field sphere_fields[] = {
    CURVED_COMMON,
    ST_REAL(topo, radius, "radius", "1", "Radius of the cylinder (of the sphere: SOFA's help "
                                         "text names the cylinder)"),
    ST_FIELD_END};

static st_status cylinder_create(st_component *self, st_error *err)
{
    (void)err;
    ((topo *)self)->kind = TOPO_CYLINDER_GRID;
    return ST_OK;
}

static st_status sphere_create(st_component *self, st_error *err)
{
    (void)err;
    ((topo *)self)->kind = TOPO_SPHERE_GRID;
    return ST_OK;
}

const st_class cylinder_grid_topology_class = {
    .struct_size = sizeof(st_class),
    .name = "CylinderGridTopology",
    .category = "Topology",
    .description = "Cylinder grid in 3D",
    .instance_size = sizeof(topo),
    .fields = cylinder_fields,
    .create = cylinder_create,
    .init = topo_init,
    .reinit = topo_reinit,
    .topology = &topo_ops,
};

const st_class sphere_grid_topology_class = {
    .struct_size = sizeof(st_class),
    .name = "SphereGridTopology",
    .category = "Topology",
    .description = "Sphere grid in 3D",
    .instance_size = sizeof(topo),
    .fields = sphere_fields,
    .create = sphere_create,
    .init = topo_init,
    .reinit = topo_reinit,
    .topology = &topo_ops,
};
