/* plugin.c - the Topology plugin: grid, sparse grid, cube, mesh and dynamic topology
 * containers, their companions, and the topological mappings (Hexa2Quad,
 * Hexa2Tetra, Tetra2Triangle, Triangle2Edge, Quad2Triangle, Hexa2Prism,
 * Edge2Quad, Mesh2Point, SubsetTopologicalMapping,
 * SimpleTesselatedTetraTopologicalMapping, IdentityTopologicalMapping,
 * CenterPointTopologicalMapping). */
#include <settee/settee.h>

extern const st_class regular_grid_topology_class, grid_topology_class, mesh_topology_class,
    sparse_grid_topology_class, sparse_grid_ramification_topology_class,
    cylinder_grid_topology_class, sphere_grid_topology_class, cube_topology_class,
    sparse_grid_multiple_topology_class, sphere_quad_topology_class;
extern const st_class point_set_container_class, edge_set_container_class,
    triangle_set_container_class, quad_set_container_class, tetra_set_container_class,
    hexa_set_container_class;
extern const st_class dynamic_sparse_grid_container_class, multilevel_hexa_container_class,
    dynamic_sparse_grid_geo_class, dynamic_sparse_grid_mod_class;
extern const st_class point_set_geo_class, edge_set_geo_class, triangle_set_geo_class,
    quad_set_geo_class, tetra_set_geo_class, hexa_set_geo_class;
extern const st_class point_set_mod_class, edge_set_mod_class, triangle_set_mod_class,
    quad_set_mod_class, tetra_set_mod_class, hexa_set_mod_class;
extern const st_class hexa2quad_mapping_class, hexa2tetra_mapping_class,
    tetra2triangle_mapping_class, triangle2edge_mapping_class, quad2triangle_mapping_class,
    hexa2prism_mapping_class, edge2quad_mapping_class, cube_topology_class,
    mesh2point_mapping_class, subset_topological_mapping_class,
    simple_tesselated_tetra_mapping_class;
extern const st_class identity_topological_mapping_class, center_point_topological_mapping_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    static const st_class *const classes[] = {
        &regular_grid_topology_class, &grid_topology_class,      &mesh_topology_class,
        &point_set_container_class,   &edge_set_container_class, &triangle_set_container_class,
        &quad_set_container_class,    &tetra_set_container_class, &hexa_set_container_class,
        &point_set_geo_class,         &edge_set_geo_class,       &triangle_set_geo_class,
        &quad_set_geo_class,          &tetra_set_geo_class,      &hexa_set_geo_class,
        &point_set_mod_class,         &edge_set_mod_class,       &triangle_set_mod_class,
        &quad_set_mod_class,          &tetra_set_mod_class,      &hexa_set_mod_class,
        &hexa2quad_mapping_class,     &hexa2tetra_mapping_class, &tetra2triangle_mapping_class,
        &triangle2edge_mapping_class, &quad2triangle_mapping_class, &hexa2prism_mapping_class,
        &sparse_grid_topology_class, &sparse_grid_ramification_topology_class,
        &cylinder_grid_topology_class, &sphere_grid_topology_class, &cube_topology_class,
        &sphere_quad_topology_class,
        &sparse_grid_multiple_topology_class, &edge2quad_mapping_class,
        &mesh2point_mapping_class, &subset_topological_mapping_class,
        &simple_tesselated_tetra_mapping_class,
        &identity_topological_mapping_class, &center_point_topological_mapping_class,
        &dynamic_sparse_grid_container_class, &multilevel_hexa_container_class,
        &dynamic_sparse_grid_geo_class, &dynamic_sparse_grid_mod_class};
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        ST_TRY(st_registry_add(r, classes[i], err));
    return ST_OK;
}

static const char *const provides[] = {
    "Sofa.Component.Topology.Container.Grid", "Sofa.Component.Topology.Container.Dynamic",
    "Sofa.Component.Topology.Container.Constant", "Sofa.Component.Topology.Mapping", NULL};

ST_PLUGIN_DEFINE("Topology", "0.1.0",
                 "Topology containers (grids, meshes, dynamic sets) and topological mappings",
                 "LGPL-2.1-or-later", provides, register_classes)
