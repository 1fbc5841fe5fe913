/* plugin.c - the Mapping.NonLinear plugin: non-linear mappings
 * (RigidMapping, DistanceMapping, SquareDistanceMapping,
 * DistanceFromTargetMapping, SquareMapping, AreaMapping, VolumeMapping,
 * DistanceMultiMapping),
 * with their
 * geometric stiffness. */
#include <settee/settee.h>

extern const st_class rigid_mapping_class;
extern const st_class distance_mapping_class;
extern const st_class square_distance_mapping_class;
extern const st_class distance_from_target_mapping_class;
extern const st_class square_mapping_class;
extern const st_class area_mapping_class;
extern const st_class volume_mapping_class;
extern const st_class distance_multi_mapping_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &rigid_mapping_class, err));
    ST_TRY(st_registry_add(r, &distance_mapping_class, err));
    ST_TRY(st_registry_add(r, &distance_from_target_mapping_class, err));
    ST_TRY(st_registry_add(r, &square_mapping_class, err));
    ST_TRY(st_registry_add(r, &area_mapping_class, err));
    ST_TRY(st_registry_add(r, &volume_mapping_class, err));
    ST_TRY(st_registry_add(r, &distance_multi_mapping_class, err));
    return st_registry_add(r, &square_distance_mapping_class, err);
}

/* Sofa.Component.Mapping.MappedMatrix is an empty, deprecated module in
 * SOFA (its components moved out); scenes still require it by name, so the
 * name loads this plugin, which is what those scenes use beside it. */
static const char *const provides[] = {"Sofa.Component.Mapping.NonLinear",
                                       "Sofa.Component.Mapping.MappedMatrix", NULL};

ST_PLUGIN_DEFINE("Mapping.NonLinear", "0.1.0",
                 "Non-linear mappings: RigidMapping, DistanceMapping, SquareDistanceMapping, "
                 "DistanceFromTargetMapping, SquareMapping, AreaMapping, VolumeMapping, "
                 "DistanceMultiMapping",
                 "LGPL-2.1-or-later", provides, register_classes)
