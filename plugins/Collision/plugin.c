/* plugin.c - the Collision plugin: SOFA's collision pipeline (detection,
 * intersection methods, collision models, penalty response). */
#include <settee/settee.h>

extern const st_class collision_pipeline_class;
extern const st_class brute_force_broad_phase_class;
extern const st_class direct_sap_class;
extern const st_class incr_sap_class;
extern const st_class direct_sap_narrow_phase_class;
extern const st_class bvh_narrow_phase_class;
extern const st_class min_proximity_intersection_class;
extern const st_class discrete_intersection_class;
extern const st_class new_proximity_intersection_class;
extern const st_class local_min_distance_class;
extern const st_class point_collision_model_class;
extern const st_class spatial_grid_point_model_class;
extern const st_class penality_contact_force_field_class;
extern const st_class line_collision_model_class;
extern const st_class ray_collision_model_class;
extern const st_class triangle_collision_model_class;
extern const st_class sphere_collision_model_class;
extern const st_class cube_collision_model_class;
extern const st_class collision_response_class;
extern const st_class collision_group_manager_class;
extern const st_class rule_based_contact_manager_class;
extern const st_class tetrahedron_collision_model_class;
extern const st_class cylinder_collision_model_class;
extern const st_class sub_collision_pipeline_class;
extern const st_class composite_collision_pipeline_class;
extern const st_class raytrace_narrow_phase_class, raytrace_detection_class,
    contact_listener_class, triangle_model_in_regular_grid_class;
extern const st_class ccd_tight_inclusion_intersection_class;
extern const st_class triangle_octree_collision_model_class;
extern const st_class obb_collision_model_class;
extern const st_class capsule_collision_model_class;
extern const st_class rigid_capsule_collision_model_class;
extern const st_class brute_force_detection_class;
extern const st_class parallel_brute_force_broad_phase_class;
extern const st_class parallel_bvh_narrow_phase_class;
extern const st_class rigid_distance_grid_collision_model_class;
extern const st_class ffd_distance_grid_collision_model_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    const st_class *const all[] = {
        &collision_pipeline_class,        &brute_force_broad_phase_class,
        &direct_sap_class,                &incr_sap_class,
        &direct_sap_narrow_phase_class,
        &bvh_narrow_phase_class,          &min_proximity_intersection_class,
        &discrete_intersection_class,     &point_collision_model_class,
        &line_collision_model_class,      &ray_collision_model_class,      &triangle_collision_model_class,
        &sphere_collision_model_class,    &cube_collision_model_class,
        &collision_response_class,        &collision_group_manager_class,
        &new_proximity_intersection_class, &local_min_distance_class,
        &rule_based_contact_manager_class, &tetrahedron_collision_model_class,
        &cylinder_collision_model_class,
        &sub_collision_pipeline_class,    &composite_collision_pipeline_class,
        &raytrace_narrow_phase_class,     &triangle_octree_collision_model_class,
        &ccd_tight_inclusion_intersection_class,
        &obb_collision_model_class,       &capsule_collision_model_class,
        &rigid_capsule_collision_model_class,
        &brute_force_detection_class,     &parallel_brute_force_broad_phase_class,
        &parallel_bvh_narrow_phase_class,
        &rigid_distance_grid_collision_model_class,
        &ffd_distance_grid_collision_model_class,
        &raytrace_detection_class,
        &contact_listener_class,          &triangle_model_in_regular_grid_class,
        &spatial_grid_point_model_class,  &penality_contact_force_field_class,
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ST_TRY(st_registry_add(r, all[i], err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.Collision",
                                       "Sofa.Component.Collision.Detection",
                                       "Sofa.Component.Collision.Detection.Algorithm",
                                       "Sofa.Component.Collision.Detection.Intersection",
                                       "Sofa.Component.Collision.Geometry",
                                       "Sofa.Component.Collision.Response",
                                       "Sofa.Component.Collision.Response.Contact",
                                       "CollisionOBBCapsule",
                                       NULL};

ST_PLUGIN_DEFINE("Collision", "0.1.0",
                 "SOFA's collision pipeline: broad and narrow phases, proximity intersection "
                 "(minimum, new and local minimum distance methods), "
                 "point, line, triangle, sphere, tetrahedron and cylinder collision models, SOFA's "
                 "CollisionOBBCapsule plugin (oriented boxes and capsules), penalty "
                 "contacts, rule-based contact managers and collision groups",
                 "LGPL-2.1-or-later", provides, register_classes)
