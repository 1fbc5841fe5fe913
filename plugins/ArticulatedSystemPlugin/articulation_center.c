/* articulation_center.c - ArticulationCenter: the joint between body
 * parentIndex and body childIndex (points of the mapping's Rigid3d
 * output), at posOnParent in the parent's frame and posOnChild in the
 * child's. Its Articulations are those found below its node's child
 * nodes. articulationProcess, as SOFA:
 *   0: the articulations apply one after the other, each axis turned by
 *      the rotations before it (Euler angles);
 *   1: axes fixed to the parent; rotations accumulated by increments;
 *   2: axes fixed to the child's previous orientation; increments.
 * globalPosition is written by ArticulatedSystemMapping. */
#include "articulated.h"

static const st_field center_fields[] = {
    ST_INT(articulation_center, parent_index, "parentIndex", "0",
           "Parent of the center articulation"),
    ST_INT(articulation_center, child_index, "childIndex", "0",
           "Child of the center articulation"),
    ST_VEC3(articulation_center, global_position, "globalPosition", "0 0 0",
            "Global position of the articulation center"),
    ST_VEC3(articulation_center, pos_on_parent, "posOnParent", "0 0 0",
            "Parent position of the articulation center"),
    ST_VEC3(articulation_center, pos_on_child, "posOnChild", "0 0 0",
            "Child position of the articulation center"),
    ST_INT(articulation_center, process, "articulationProcess", "0",
           " 0 - (default) hierarchy between articulations (euler angles)\n 1- ( on Parent) no "
           "hierarchy - axis are attached to the parent\n 2- (attached on Child) no hierarchy - "
           "axis are attached to the child"),
    ST_FIELD_END};

static st_status center_init(st_component *self, st_error *err)
{
    articulation_center *c = (articulation_center *)self;
    if (c->process < 0 || c->process > 2)
        return st_component_error(self, "articulationProcess", err, ST_ESCENE,
                                  "articulationProcess is %d: expected 0, 1 or 2", c->process);
    if (c->parent_index < 0 || c->child_index < 0)
        return st_component_error(self, c->parent_index < 0 ? "parentIndex" : "childIndex", err,
                                  ST_ESCENE, "body indices must be >= 0 (parent %d, child %d)",
                                  c->parent_index, c->child_index);
    return ST_OK;
}

const st_class articulation_center_class = {
    .struct_size = sizeof(st_class),
    .name = "ArticulationCenter",
    .category = "Misc",
    .description = "A joint between two rigid bodies holding a set of articulations.",
    .instance_size = sizeof(articulation_center),
    .fields = center_fields,
    .init = center_init,
    .reinit = center_init,
};
