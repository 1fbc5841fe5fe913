/* discrete_intersection.c - DiscreteIntersection: contacts between spheres
 * that overlap (no proximity: alarm and contact distances are 0). The mesh
 * tests SOFA's MeshDiscreteIntersection adds (triangle-line) are not
 * available: such pairs give no contacts. */
#include "collision.h"

static const st_field fields[] = {ST_FIELD_END};

static st_status init(st_component *self, st_error *err)
{
    (void)err;
    cintersect *m = (cintersect *)self;
    m->proximity = false;
    m->method = CI_DISCRETE;
    return ST_OK;
}

const st_class discrete_intersection_class = {
    .struct_size = sizeof(st_class),
    .name = "DiscreteIntersection",
    .category = "CollisionAlgorithm",
    .description = "Intersection of overlapping spheres, without proximity",
    .instance_size = sizeof(cintersect),
    .fields = fields,
    .init = init,
};
