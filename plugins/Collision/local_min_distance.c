/* local_min_distance.c - LocalMinDistance: contacts at the closest points
 * of primitives closer than alarmDistance, kept only when the direction
 * from each element towards the other lies in that element's cone of free
 * directions (filterIntersection): a triangle's side of its normal; an
 * edge's side of its two triangles' mean normal, within the cones their
 * tangents open (coneFactor times the mean normal's component along the
 * tangent, plus angleCone), or orthogonal to a border edge up to angleCone;
 * a vertex's side of its triangles' mean normal and within each edge's cone
 * (only when its node has a LineCollisionModel). bothSide models skip the
 * side tests. Pairs (SOFA's table, Vec3d spheres only): point-point,
 * line-point, line-line, triangle-point, sphere-sphere, sphere-point,
 * line-sphere and triangle-sphere, each at strictly interior projections
 * (intersect.c); triangle-line and triangle-triangle give nothing, as
 * in SOFA. useLMDFilters: SOFA's external cone computation, which skips the
 * filters here. */
#include "collision.h"

static const st_field fields[] = {
    CINTERSECT_DISTANCE_FIELDS,
    ST_BOOL(cintersect, filter_intersection, "filterIntersection", "true", "Activate LMD filter"),
    ST_REAL(cintersect, angle_cone, "angleCone", "0", "Filtering cone extension angle"),
    ST_REAL(cintersect, cone_factor, "coneFactor", "0.5",
            "Factor for filtering cone angle computation"),
    ST_BOOL(cintersect, use_lmd_filters, "useLMDFilters", "false",
            "Use external cone computation (the contact is then not filtered here)"),
    ST_FIELD_END};

static st_status init(st_component *self, st_error *err)
{
    (void)err;
    cintersect *m = (cintersect *)self;
    m->proximity = true;
    m->method = CI_LMD;
    return ST_OK;
}

const st_class local_min_distance_class = {
    .struct_size = sizeof(st_class),
    .name = "LocalMinDistance",
    .category = "CollisionAlgorithm",
    .description = "A set of methods to compute (for constraint methods) if two primitives are "
                   "close enough to consider they collide",
    .instance_size = sizeof(cintersect),
    .fields = fields,
    .init = init,
};
