/* plugin.c - the Engine.Select plugin (SOFA's Sofa.Component.Engine.Select):
 * regions of interest and selections (BoxROI, SphereROI, PairBoxROI,
 * PlaneROI, PointsFromIndices, ValuesFromIndices, SubsetTopology, MeshBoundaryROI,
 * MeshSubsetEngine, NearestPointROI, ValuesFromPositions, MeshSampler,
 * MeshSplittingEngine, MeshROI, ProximityROI, ComplementaryROI, MergeROIs,
 * SelectLabelROI, SelectConnectedLabelsROI, IndicesFromValues). */
#include <settee/settee.h>

extern const st_class box_roi_class, sphere_roi_class, pair_box_roi_class, plane_roi_class,
    points_from_indices_class, values_from_indices_class, subset_topology_class,
    mesh_boundary_roi_class, mesh_subset_engine_class, nearest_point_roi_class,
    values_from_positions_class, mesh_sampler_class, mesh_splitting_engine_class,
    mesh_roi_class, proximity_roi_class, complementary_roi_class, merge_rois_class,
    select_label_roi_class, select_connected_labels_roi_class, indices_from_values_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    const st_class *const classes[] = {&box_roi_class,           &sphere_roi_class,
                                       &pair_box_roi_class,      &plane_roi_class,
                                       &points_from_indices_class, &values_from_indices_class,
                                       &subset_topology_class,
                                       &mesh_boundary_roi_class,   &mesh_subset_engine_class,
                                       &nearest_point_roi_class, &values_from_positions_class,
                                       &mesh_sampler_class, &mesh_splitting_engine_class,
                                       &mesh_roi_class, &proximity_roi_class,
                                       &complementary_roi_class, &merge_rois_class,
                                       &select_label_roi_class,
                                       &select_connected_labels_roi_class,
                                       &indices_from_values_class};
    for (size_t i = 0; i < sizeof classes / sizeof *classes; i++)
        ST_TRY(st_registry_add(r, classes[i], err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.Engine.Select", NULL};

ST_PLUGIN_DEFINE("Engine.Select", "0.1.0", "Regions of interest and selections: boxes, spheres, "
                 "planes, points and values from indices, mesh borders and subsets, "
                 "nearest points, values from positions, samples, splits",
                 "LGPL-2.1-or-later", provides, register_classes)
