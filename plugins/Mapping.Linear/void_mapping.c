/* void_mapping.c - VoidMapping: SOFA's mapping "from nothing". Its input and
 * output are both the mechanical state of its own node, and its apply, J and
 * J^T do nothing: a state under it keeps whatever values something else
 * writes (an animated object mixed with real DOFs). SOFA builds it with
 * mapForces, mapConstraints and mapMasses false, so it is not a mechanical
 * mapping: the node's state stays where the solver put it (independent,
 * integrated by the ODE solver above it, if any). settee gives it no mapping
 * role at all, which is the same thing: the kernel never calls it and the
 * state is not made a mapped one. The four switches are kept as SOFA's
 * fields; setting them changes nothing (SOFA reads them at insertion, before
 * the scene's values, so there too they have no effect). */
#include <settee/settee.h>

typedef struct void_mapping {
    st_component base;
    bool map_forces, map_constraints, map_masses, map_matrices;
} void_mapping;

static const st_field void_fields[] = {
    ST_FIELD_EX(void_mapping, map_forces, "mapForces", ST_T_BOOL, bool, "false",
                "Are forces mapped ? (a VoidMapping maps nothing: no effect; alias "
                "isMechanical)",
                ST_F_IGNORED, "isMechanical", 0.0, 0.0),
    ST_IGNORED(void_mapping, map_constraints, "mapConstraints", ST_T_BOOL, bool, "false",
               "Are constraints mapped ? (a VoidMapping maps nothing: no effect)"),
    ST_IGNORED(void_mapping, map_masses, "mapMasses", ST_T_BOOL, bool, "false",
               "Are masses mapped ? (a VoidMapping maps nothing: no effect)"),
    ST_IGNORED(void_mapping, map_matrices, "mapMatrices", ST_T_BOOL, bool, "false",
               "Are matrix explicit mapped? (a VoidMapping maps nothing: no effect)"),
    ST_FIELD_END};

const st_class void_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "VoidMapping",
    .category = "Mapping",
    .description = "Special mapping that 'map' points for void (no input DOF). This is useful to "
                   "be able to create animated objects mixed with real DOFs.",
    .instance_size = sizeof(void_mapping),
    .fields = void_fields,
    .templates = st_all_state_types,
};
