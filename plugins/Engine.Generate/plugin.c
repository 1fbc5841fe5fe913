/* plugin.c - the Engine.Generate plugin (SOFA's
 * Sofa.Component.Engine.Generate): engines that generate or merge data
 * (GenerateGrid, JoinPoints, MergeMeshes, MergePoints, MeshTetraStuffing,
 * NormEngine, RandomPointDistributionInSurface, Spiral, VolumeFromTriangles,
 * VolumeFromVolumetricElements, MeshClosingEngine, MergeVectors, GenerateRigidMass,
 * GenerateCylinder, ExtrudeSurface, MeshBarycentricMapperEngine, NormalsFromPoints,
 * MergeSets, ExtrudeEdgesAndGenerateQuads, ExtrudeQuadsAndGenerateHexas,
 * GroupFilterYoungModulus, GenerateSphere). */
#include <settee/settee.h>

extern const st_class generate_grid_class, join_points_class, merge_meshes_class, merge_points_class,
    norm_engine_class, mesh_tetra_stuffing_class, random_point_distribution_class,
    volume_from_triangles_class, volume_from_elements_class, spiral_class,
    mesh_closing_engine_class, merge_vectors_class, generate_rigid_mass_class,
    generate_cylinder_class, extrude_surface_class, mesh_barycentric_mapper_engine_class,
    normals_from_points_class, merge_sets_class, extrude_edges_and_generate_quads_class,
    extrude_quads_and_generate_hexas_class;
extern const st_class group_filter_young_modulus_class, generate_sphere_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    const st_class *const classes[] = {&merge_meshes_class, &generate_grid_class,
                                       &merge_points_class, &norm_engine_class, &join_points_class,
                                       &mesh_tetra_stuffing_class,
                                       &random_point_distribution_class,
                                       &volume_from_triangles_class,
                                       &volume_from_elements_class, &spiral_class,
                                       &mesh_closing_engine_class, &merge_vectors_class,
                                       &generate_rigid_mass_class, &generate_cylinder_class,
                                       &extrude_surface_class,
                                       &mesh_barycentric_mapper_engine_class,
                                       &normals_from_points_class, &merge_sets_class,
                                       &extrude_edges_and_generate_quads_class,
                                       &extrude_quads_and_generate_hexas_class,
                                       &group_filter_young_modulus_class,
                                       &generate_sphere_class};
    for (size_t i = 0; i < sizeof classes / sizeof *classes; i++)
        ST_TRY(st_registry_add(r, classes[i], err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.Engine.Generate", NULL};

ST_PLUGIN_DEFINE("Engine.Generate", "0.1.0",
                 "Engines generating or merging data: grids, meshes, points, joined points, norms",
                 "LGPL-2.1-or-later", provides, register_classes)
