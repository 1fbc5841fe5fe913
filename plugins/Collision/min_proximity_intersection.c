/* min_proximity_intersection.c - MinProximityIntersection: contacts at the
 * closest points of primitives closer than alarmDistance (plus the models'
 * contactDistance), with a rest distance of contactDistance. Pairs tested
 * (intersect.c): point-point, line-point, line-line, triangle-point,
 * sphere-sphere, and with useSphereTriangle sphere-point, line-sphere and
 * triangle-sphere. Triangle-line and triangle-triangle give nothing (a
 * mesh collides through its points and lines), as in SOFA. */
#include "collision.h"

static const st_field fields[] = {
    CINTERSECT_DISTANCE_FIELDS,
    ST_BOOL(cintersect, use_sphere_triangle, "useSphereTriangle", "true",
            "activate Sphere-Triangle intersection tests"),
    ST_BOOL(cintersect, use_point_point, "usePointPoint", "true",
            "activate Point-Point intersection tests"),
    ST_BOOL(cintersect, use_surface_normals, "useSurfaceNormals", "false",
            "Compute the norms of the Detection Outputs by considering the normals of the "
            "surfaces involved (not available in settee: true is refused)"),
    ST_BOOL(cintersect, use_line_point, "useLinePoint", "true",
            "activate Line-Point intersection tests"),
    ST_BOOL(cintersect, use_line_line, "useLineLine", "true",
            "activate Line-Line  intersection tests"),
    ST_FIELD_END};

static st_status init(st_component *self, st_error *err)
{
    cintersect *m = (cintersect *)self;
    m->proximity = true;
    m->method = CI_MIN;
    if (m->use_surface_normals)
        return st_component_error(self, "useSurfaceNormals", err, ST_ESCENE,
                                  "useSurfaceNormals is not available in settee: contact normals "
                                  "are those of the closest points");
    return ST_OK;
}

const st_class min_proximity_intersection_class = {
    .struct_size = sizeof(st_class),
    .name = "MinProximityIntersection",
    .category = "CollisionAlgorithm",
    .description = "A set of methods to compute if two primitives are close enough to consider "
                   "they collide",
    .instance_size = sizeof(cintersect),
    .fields = fields,
    .init = init,
};
