/* articulation.c - Articulation: one degree of freedom of an articulation
 * center, a rotation about or a slide along "axis", whose value is point
 * "articulationIndex" of the mapping's Vec1d input. Read by
 * ArticulatedSystemMapping; nothing to do on its own. */
#include "articulated.h"

static const st_field articulation_fields[] = {
    ST_FIELD_EX(articulation, axis, "axis", ST_T_VEC3, st_vec3, "1 0 0",
                "Set the rotation axis for the articulation", 0, "rotationAxis", 0.0, 0.0),
    ST_BOOL(articulation, rotation, "rotation", "false", "Rotation"),
    ST_BOOL(articulation, translation, "translation", "false", "Translation"),
    ST_INT(articulation, articulation_index, "articulationIndex", "0", "Articulation index"),
    ST_FIELD_END};

const st_class articulation_class = {
    .struct_size = sizeof(st_class),
    .name = "Articulation",
    .category = "Misc",
    .description = "One rotation or translation of an articulation center, driven by a Vec1d "
                   "degree of freedom.",
    .instance_size = sizeof(articulation),
    .fields = articulation_fields,
};
