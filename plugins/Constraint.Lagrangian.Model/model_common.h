/* model_common.h - what the pair constraints of Constraint.Lagrangian.Model
 * share (SOFA's PairInteractionConstraint): the Vec3d state checks and the
 * fields every pair constraint has. */
#ifndef LAGRANGIAN_MODEL_COMMON_H
#define LAGRANGIAN_MODEL_COMMON_H

#include <settee/settee.h>

/* The state of one side (field names the indices' field): present, Vec3d,
 * every index in range; errors name the component. */
st_status lagrange_check_vec3_side(st_component *self, const char *field, const st_mstate *ms,
                                   const st_array *idx, st_error *err);

/* object1 / object2 links, then group and constraintIndex (ignored), for a
 * struct S with members object1, object2, group, constraint_index. */
#define LAGRANGE_PAIR_LINKS(S)                                                                   \
    ST_LINK(S, object1, "object1", ST_LINK_STATE, "First object associated to this component"), \
        ST_LINK(S, object2, "object2", ST_LINK_STATE,                                            \
                "Second object associated to this component")
#define LAGRANGE_PAIR_IGNORED(S)                                                                 \
    ST_IGNORED(S, group, "group", ST_T_INT, int, "0",                                            \
               "ID of the group containing this constraint (settee: one solver solves every "   \
               "constraint)"),                                                                   \
        ST_IGNORED(S, constraint_index, "constraintIndex", ST_T_UINT, unsigned, "0",             \
                   "Constraint index (first index in the right hand term resolution vector; "   \
                   "set by the solver)")

#endif
