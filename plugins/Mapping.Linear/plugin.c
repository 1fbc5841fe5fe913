/* plugin.c - the Mapping.Linear plugin: linear mappings (IdentityMapping,
 * BarycentricMapping, SubsetMapping, SubsetMultiMapping, TubularMapping,
 * DistanceToPlaneMapping, BeamLinearMapping, SkinningMapping,
 * CenterOfMassMapping, IdentityMultiMapping,
 * SimpleTesselatedTetraMechanicalMapping, Mesh2PointMechanicalMapping, DeformableOnRigidFrameMapping,
 * VoidMapping, CenterOfMassMultiMapping, CenterOfMassMulti2Mapping,
 * SimpleTesselatedHexaTopologicalMapping). */
#include <settee/settee.h>

extern const st_class identity_mapping_class;
extern const st_class barycentric_mapping_class;
extern const st_class subset_mapping_class;
extern const st_class subset_multi_mapping_class;
extern const st_class tubular_mapping_class;
extern const st_class distance_to_plane_mapping_class;
extern const st_class beam_linear_mapping_class;
extern const st_class skinning_mapping_class, line_set_skinning_mapping_class;
extern const st_class center_of_mass_mapping_class;
extern const st_class identity_multi_mapping_class;
extern const st_class simple_tesselated_tetra_mechanical_mapping_class;
extern const st_class mesh2point_mechanical_mapping_class;
extern const st_class deformable_on_rigid_frame_mapping_class;
extern const st_class void_mapping_class;
extern const st_class simple_tesselated_hexa_topological_mapping_class;
extern const st_class center_of_mass_multi_mapping_class, center_of_mass_multi2_mapping_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &identity_mapping_class, err));
    ST_TRY(st_registry_add(r, &barycentric_mapping_class, err));
    ST_TRY(st_registry_add(r, &subset_mapping_class, err));
    ST_TRY(st_registry_add(r, &subset_multi_mapping_class, err));
    ST_TRY(st_registry_add(r, &tubular_mapping_class, err));
    ST_TRY(st_registry_add(r, &distance_to_plane_mapping_class, err));
    ST_TRY(st_registry_add(r, &beam_linear_mapping_class, err));
    ST_TRY(st_registry_add(r, &skinning_mapping_class, err));
    ST_TRY(st_registry_add(r, &line_set_skinning_mapping_class, err));
    ST_TRY(st_registry_add(r, &identity_multi_mapping_class, err));
    ST_TRY(st_registry_add(r, &simple_tesselated_tetra_mechanical_mapping_class, err));
    ST_TRY(st_registry_add(r, &mesh2point_mechanical_mapping_class, err));
    ST_TRY(st_registry_add(r, &deformable_on_rigid_frame_mapping_class, err));
    ST_TRY(st_registry_add(r, &void_mapping_class, err));
    ST_TRY(st_registry_add(r, &simple_tesselated_hexa_topological_mapping_class, err));
    ST_TRY(st_registry_add(r, &center_of_mass_multi_mapping_class, err));
    ST_TRY(st_registry_add(r, &center_of_mass_multi2_mapping_class, err));
    return st_registry_add(r, &center_of_mass_mapping_class, err);
}

static const char *const provides[] = {"Sofa.Component.Mapping.Linear", NULL};

ST_PLUGIN_DEFINE("Mapping.Linear", "0.2.0", "Linear mappings: identity, barycentric, subsets, skinning, centre of mass",
                 "LGPL-2.1-or-later", provides, register_classes)
