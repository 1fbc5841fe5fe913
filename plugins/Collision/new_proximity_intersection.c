/* new_proximity_intersection.c - NewProximityIntersection: contacts at the
 * closest points of primitives closer than alarmDistance, with a rest
 * distance of contactDistance. Pairs tested (SOFA's
 * MeshNewProximityIntersection; intersect.c):
 * point-point, line-point, line-line, triangle-point, triangle-line,
 * triangle-triangle, sphere-sphere (Vec3d and Rigid3d), sphere-point,
 * line-sphere and triangle-sphere. A point or sphere is projected on a
 * triangle's inside, edges or corners, and kept on an edge or corner only
 * by the triangle that owns it; on a line it is clamped to the segment;
 * spheres contact at their centres except a Rigid3d sphere on a triangle
 * (on its surface), as in SOFA. Triangle-line: the triangle's owned
 * corners on the segment, the segment's ends on the triangle, and with
 * useLineLine the owned edges against the segment; triangle-triangle:
 * each triangle's corners on the other (SOFA tests the first triangle's
 * first corner whatever its flags), and with useLineLine owned edge
 * against owned edge (intersect.c). */
#include "collision.h"

static const st_field fields[] = {
    CINTERSECT_DISTANCE_FIELDS,
    ST_BOOL(cintersect, use_line_line, "useLineLine", "false",
            "Line-line collision detection enabled (the edge-edge part of the triangle-line and "
            "triangle-triangle tests)"),
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
