/* plugin.c - the ArticulatedSystemPlugin plugin (SOFA's
 * ArticulatedSystemPlugin): ArticulatedHierarchyContainer,
 * ArticulationCenter, Articulation, ArticulatedSystemMapping,
 * ArticulatedHierarchyController and ArticulatedHierarchyBVHController
 * (plays a BVH motion file read by the container). */
#include "articulated.h"

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &articulated_hierarchy_container_class, err));
    ST_TRY(st_registry_add(r, &articulation_center_class, err));
    ST_TRY(st_registry_add(r, &articulation_class, err));
    ST_TRY(st_registry_add(r, &articulated_hierarchy_controller_class, err));
    ST_TRY(st_registry_add(r, &articulated_hierarchy_bvh_controller_class, err));
    return st_registry_add(r, &articulated_system_mapping_class, err);
}

static const char *const provides[] = {"ArticulatedSystemPlugin", NULL};

ST_PLUGIN_DEFINE("ArticulatedSystemPlugin", "0.1.0",
                 "Articulated rigid bodies driven by Vec1d articulation angles and slides",
                 "LGPL-2.1-or-later", provides, register_classes)
