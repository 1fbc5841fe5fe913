/* local_min_distance.c - LocalMinDistance: its fields are accepted, but its
 * cone filtering is not written yet: init refuses it, naming
 * MinProximityIntersection. */
#include "intersection_methods.h"

static const st_field fields[] = {
    CINTERSECT_PROXIMITY_FIELDS("1", "0.5"),
    ST_BOOL(cintersect, filter_intersection, "filterIntersection", "true", "Activate LMD filter"),
    ST_REAL(cintersect, angle_cone, "angleCone", "0", "Filtering cone extension angle"),
    ST_REAL(cintersect, cone_factor, "coneFactor", "0.5", "Factor for filtering cone angle computation"),
    ST_BOOL(cintersect, use_lmd_filters, "useLMDFilters", "false", "Use external cone computation"),
    ST_FIELD_END};

static st_status init(st_component *self, st_error *err)
{
    return st_component_error(self, NULL, err, ST_ESCENE,
                              "LocalMinDistance is not available in settee yet; "
                              "MinProximityIntersection is (without the cone filter)");
}

const st_class local_min_distance_class = {
    .struct_size = sizeof(st_class),
    .name = "LocalMinDistance",
    .category = "CollisionAlgorithm",
    .description = "A set of methods to compute (for constraint methods) if two primitives are "
                   "close enough to consider they collide (not available yet: refused at init)",
    .instance_size = sizeof(cintersect),
    .fields = fields,
    .init = init,
};
