/* model_common.h - what the Lagrangian constraint models share: SOFA's
 * base fields (BaseLagrangianConstraint's group and constraintIndex,
 * LagrangianConstraint's / PairInteractionConstraint's endTime), the pair
 * constraints' links and Vec3d state checks, and the one-row resolutions of
 * SOFA's BilateralConstraintResolution and UnilateralConstraintResolution. */
#ifndef LAGRANGIAN_MODEL_COMMON_H
#define LAGRANGIAN_MODEL_COMMON_H

#include <settee/settee.h>

/* S must have: double end_time; int group; unsigned constraint_index. */
#define LAGRANGE_MODEL_BASE_FIELDS(S)                                                            \
    ST_REAL(S, end_time, "endTime", "-1",                                                        \
            "The constraint stops acting after the given value.\nUse a negative value for "      \
            "infinite constraints"),                                                             \
    ST_IGNORED(S, group, "group", ST_T_INT, int, "0",                                            \
               "ID of the group containing this constraint (settee: one solver solves every "    \
               "constraint)"),                                                                   \
    ST_IGNORED(S, constraint_index, "constraintIndex", ST_T_UINT, unsigned, "0",                 \
               "Constraint index (first index in the right hand term resolution vector; set "    \
               "by the solver)")

/* Before endTime (always when it is negative). */
static inline bool lagrange_model_alive(const st_component *c, double end_time)
{
    return end_time < 0.0 || st_node_time(c->node) < end_time;
}

/* SOFA's BilateralConstraintResolution: lambda -= d / W_ll. */
static inline void lagrange_bilateral_row(size_t row, const double *W, size_t dim,
                                          const double *d, double *lambda)
{
    lambda[row] -= d[row] / W[row * dim + row];
}

/* SOFA's UnilateralConstraintResolution: the same, then lambda >= 0. */
static inline void lagrange_unilateral_row(size_t row, const double *W, size_t dim,
                                           const double *d, double *lambda)
{
    lambda[row] -= d[row] / W[row * dim + row];
    if (lambda[row] < 0.0)
        lambda[row] = 0.0;
}

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
