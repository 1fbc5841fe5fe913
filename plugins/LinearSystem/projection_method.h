/* projection_method.h - what MatrixProjectionMethod and
 * ConstantSparsityProjectionMethod share (SOFA's second derives from the
 * first): the instance, the fields and the check of the two states.
 * Private to this plugin. */
#ifndef LINEARSYSTEM_PROJECTION_METHOD_H
#define LINEARSYSTEM_PROJECTION_METHOD_H

#include "linear_system_common.h"

typedef struct projection_method {
    st_component base;
    bool constant_jacobians;
    st_array states;        /* "mechanicalStates": two links */
    bool parallel_product;  /* ConstantSparsityProjectionMethod only */
} projection_method;

#define PROJECTION_METHOD_FIELDS                                                                   \
    ST_IGNORED(projection_method, constant_jacobians, "areJacobiansConstant", ST_T_BOOL, bool,    \
               "false",                                                                          \
               "True if mapping jacobians are considered constant over time (settee computes "   \
               "them at each assembly)"),                                                        \
        ST_FIELD_EX(projection_method, states, "mechanicalStates", ST_T_STRINGS, st_array, "",   \
                    "The two mechanical states of the mapped matrix (links \"@a @b\"; settee: "  \
                    "checked, the kernel projects every mapped matrix itself)",                  \
                    ST_F_NOLINK, NULL, 0.0, 0.0)

/* Checks mechanicalStates: none, or two links to MechanicalObjects. */
st_status projection_method_init(st_component *self, st_error *err);

#endif
