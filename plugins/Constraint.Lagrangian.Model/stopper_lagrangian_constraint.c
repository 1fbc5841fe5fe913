/* stopper_lagrangian_constraint.c - StopperLagrangianConstraint (alias
 * StopperConstraint), Vec1d as in SOFA: one row, J = 1 on point index of
 * the state, violation x[index] at the free position; SOFA's
 * StopperLagrangianConstraintResolution1Dof keeps the displacement in
 * [min, max]: w = W_ll, the multiplier starts from zero at each solve, and
 * each update takes d_free = d - w lambda (the row without its own force)
 * and sets lambda = (max - d_free)/w above max, (min - d_free)/w below min,
 * else 0. */
#include "model_common.h"

typedef struct stopper {
    st_component base;
    st_component *mstate;      /* "mstate" */
    int index;                 /* "index" */
    double min, max;           /* "min", "max" */
    double end_time;           /* "endTime" */
    int group;                 /* "group" */
    unsigned constraint_index; /* "constraintIndex" */
    st_mstate *ms;
} stopper;

static const st_field stopper_fields[] = {
    ST_LINK(stopper, mstate, "mstate", ST_LINK_STATE,
            "MechanicalState used by this component"),
    ST_INT(stopper, index, "index", "0", "index of the stop constraint"),
    ST_REAL(stopper, min, "min", "-100", "minimum value accepted"),
    ST_REAL(stopper, max, "max", "100", "maximum value accepted"),
    LAGRANGE_MODEL_BASE_FIELDS(stopper),
    ST_FIELD_END};

static st_status stop_init(st_component *self, st_error *err)
{
    stopper *s = (stopper *)self;
    s->ms = st_component_mstate(self);
    if (!s->ms)
        return st_component_error(self, "mstate", err, ST_EINVAL,
                                  "no mechanical state in the node or its ancestors (set mstate "
                                  "or put a MechanicalObject in the node)");
    if (s->ms->type->coord_size != 1 || s->ms->type->deriv_size != 1)
        return st_component_error(self, "mstate", err, ST_EINVAL,
                                  "state '%s' is %s: StopperLagrangianConstraint is Vec1d only "
                                  "(as in SOFA)",
                                  s->ms->base.name, s->ms->type->name);
    if (s->index < 0 || (size_t)s->index >= s->ms->n)
        return st_component_error(self, "index", err, ST_EINVAL,
                                  "index: %d is out of range: '%s' has %zu points", s->index,
                                  s->ms->base.name, s->ms->n);
    if (s->min > s->max)
        return st_component_error(self, "min", err, ST_EINVAL, "min %g is greater than max %g",
                                  s->min, s->max);
    return ST_OK;
}

static void stop_size(st_component *self, size_t *rows, size_t *terms)
{
    stopper *s = (stopper *)self;
    *rows = *terms = lagrange_model_alive(self, s->end_time) ? 1 : 0;
}

static st_status stop_build(st_component *self, st_cjacobian *J, double *violation, st_error *err)
{
    (void)err;
    stopper *s = (stopper *)self;
    if (!lagrange_model_alive(self, s->end_time))
        return ST_OK;
    const double one = 1.0;
    size_t r = st_cjac_row(J);
    st_cjac_add(J, s->ms, (size_t)s->index, &one, 1);
    violation[r] = ((const double *)s->ms->position.p)[s->index];
    return ST_OK;
}

static void stop_resolution(st_component *self, size_t row, const double *W, size_t dim,
                          const double *d, double *lambda)
{
    stopper *s = (stopper *)self;
    double w = W[row * dim + row];
    double dfree = d[row] - w * lambda[row];
    if (dfree > s->max)
        lambda[row] = (s->max - dfree) / w;
    else if (dfree < s->min)
        lambda[row] = (s->min - dfree) / w;
    else
        lambda[row] = 0.0;
}

static const st_constraint_ops stopper_ops = {
    .struct_size = sizeof(st_constraint_ops),
    .size = stop_size,
    .build = stop_build,
    .resolution = stop_resolution,
};

static const char *const stopper_aliases[] = {"StopperConstraint", NULL};
static const char *const stopper_templates[] = {"Vec1d", NULL};

const st_class stopper_lagrangian_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "StopperLagrangianConstraint",
    .category = "Constraint",
    .description = "Lagrangian-based constraint forcing a 1D DoF to be inside a given range.",
    .aliases = stopper_aliases,
    .templates = stopper_templates,
    .instance_size = sizeof(stopper),
    .fields = stopper_fields,
    .init = stop_init,
    .constraint = &stopper_ops,
};
