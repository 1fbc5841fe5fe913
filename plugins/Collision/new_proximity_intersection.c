/* new_proximity_intersection.c - NewProximityIntersection: its fields are
 * accepted, but its tests (triangle-triangle by vertices and edges) are not
 * written yet: init refuses it, naming MinProximityIntersection. */
#include "intersection_methods.h"

static const st_field fields[] = {
    CINTERSECT_PROXIMITY_FIELDS("1", "0.5"),
    ST_BOOL(cintersect, use_line_line, "useLineLine", "false", "Line-line collision detection enabled"),
    ST_FIELD_END};

static st_status init(st_component *self, st_error *err)
{
    return st_component_error(self, NULL, err, ST_ESCENE,
                              "NewProximityIntersection is not available in settee yet; "
                              "MinProximityIntersection (same fields) is");
}

const st_class new_proximity_intersection_class = {
    .struct_size = sizeof(st_class),
    .name = "NewProximityIntersection",
    .category = "CollisionAlgorithm",
    .description = "Optimized proximity detection (not available yet: refused at init)",
    .instance_size = sizeof(cintersect),
    .fields = fields,
    .init = init,
};
