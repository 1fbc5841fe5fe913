/* new_proximity_intersection.c - NewProximityIntersection: contacts at the
 * closest points of primitives closer than alarmDistance, with a rest
 * distance of contactDistance. Pairs tested (SOFA's
 * MeshNewProximityIntersection; intersect.c):
 * point-point, line-point, line-line, triangle-point, sphere-sphere
 * (Vec3d and Rigid3d), sphere-point, line-sphere and triangle-sphere. A
 * point or sphere is projected on a triangle's inside, edges or corners,
 * and kept on an edge or corner only by the triangle that owns it; on a
 * line it is clamped to the segment; spheres contact at their centres
 * except a Rigid3d sphere on a triangle (on its surface), as in SOFA.
 * Triangle-line and triangle-triangle (SOFA tests their vertices against
 * each other and, with useLineLine, their edges) are not available: scenes
 * whose models would pair so are refused. */
#include "collision.h"

static const st_field fields[] = {
    CINTERSECT_DISTANCE_FIELDS,
    ST_BOOL(cintersect, use_line_line, "useLineLine", "false",
            "Line-line collision detection enabled (settee: used by the triangle-line and "
            "triangle-triangle tests, which are not available)"),
    ST_FIELD_END};

static st_status init(st_component *self, st_error *err)
{
    (void)err;
    cintersect *m = (cintersect *)self;
    m->proximity = true;
    m->method = CI_NEW;
    return ST_OK;
}

const st_class new_proximity_intersection_class = {
    .struct_size = sizeof(st_class),
    .name = "NewProximityIntersection",
    .category = "CollisionAlgorithm",
    .description = "Optimized Proximity Intersection based on Triangle-Triangle tests, ignoring "
                   "Edge-Edge cases",
    .instance_size = sizeof(cintersect),
    .fields = fields,
    .init = init,
};
