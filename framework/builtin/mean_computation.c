/* mean_computation.c - the built-in MeanComputation (SOFA's MultiThreading
 * plugin): the mean of the positions of the MechanicalObjects of its node,
 * computed at init and at the beginning of each step, in `result`.
 *
 * The inputs are the node's states of the engine's type, except those
 * tagged MeanOutput (tags="MeanOutput"), whose positions read `result` from
 * then on (SOFA's setParent), and a state whose positions are `result`
 * itself. Inputs of different sizes: the smallest size is used, with SOFA's
 * warning. Each input is brought up to date before it is read (a
 * DataExchange may feed it), as SOFA's data parents are.
 *
 * SOFA's quirk, kept: `result` is never cleared. Each computation adds the
 * inputs to the previous result, then divides by their count, so only the
 * first result is the mean; with n inputs it then tends to n / (n - 1)
 * times the mean. settee gives SOFA's numbers and warns at init. */
#include <string.h>

#include "builtin/builtin.h"

typedef struct mean_computation {
    st_component base;
    st_array result;   /* "result" */
    st_mstate **inputs;
    size_t ninputs;
    size_t size;       /* coordinates of result */
} mean_computation;

static const st_field mean_fields[] = {
    ST_FIELD_EX(mean_computation, result, "result", ST_T_COORDS, st_array, NULL,
                "Result: mean computed from the input values", ST_F_OUTPUT, NULL, 0, 0),
    ST_FIELD_END};

static unsigned width(const mean_computation *m)
{
    return st_component_field_width(&m->base, st_component_field(&m->base, "result"));
}

static st_status compute(mean_computation *m, st_error *err)
{
    if (m->ninputs == 0)
        return ST_OK;
    const unsigned w = width(m);
    double *r = m->result.r;
    for (size_t j = 0; j < m->ninputs; j++) {
        st_mstate *in = m->inputs[j];
        ST_TRY(st_component_update_inputs(&in->base, err));
        const double *p = in->position.r;
        for (size_t i = 0; i < m->size * w; i++)
            r[i] += p[i];
    }
    const double inv = 1.0 / (double)m->ninputs;
    for (size_t i = 0; i < m->size * w; i++)
        r[i] *= inv;
    st_component_touch(&m->base, st_component_field(&m->base, "result"));
    return ST_OK;
}

static st_status mean_init(st_component *self, st_error *err)
{
    mean_computation *m = (mean_computation *)self;
    const st_state_type *type = st_component_state_type(self);
    st_node *n = self->node;
    st_free(m->inputs);
    m->inputs = st_calloc(n->nobjects ? n->nobjects : 1, sizeof *m->inputs);
    if (!m->inputs)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    m->ninputs = 0;
    size_t smallest = 0;
    const st_mstate *first = NULL;
    const st_field *rf = st_component_field(self, "result");
    for (size_t i = 0; i < n->nobjects; i++) {
        st_component *c = n->objects[i];
        if (!st_component_has_role(c, ST_ROLE_STATE) || st_component_state_type(c) != type)
            continue;
        st_mstate *ms = (st_mstate *)c;
        if (st__component_has_tag(c, "MeanOutput")) {
            const st_field *pf = st_component_field(c, "position");
            int k = st__component_field_index(c, "position");
            if (pf && k >= 0 && st__cinfo(c)->fs[k].parent != self)
                ST_TRY(st__component_link_field(c, pf, self, rf, err));
            continue;
        }
        if (m->result.n > 0 && ms->position.r == m->result.r)
            continue;
        if (first && ms->position.n != smallest) {
            char a[ST_ERROR_PATH_MAX], b[ST_ERROR_PATH_MAX];
            st_component_warn(self, "Different input data size detected: %s has %zu "
                                    "coordinates, %s %zu. The lower size will be used.",
                              st_component_path(c, a, sizeof a), ms->position.n,
                              st_component_path(&first->base, b, sizeof b), first->position.n);
        }
        if (!first || ms->position.n < smallest)
            smallest = ms->position.n;
        if (!first)
            first = ms;
        m->inputs[m->ninputs++] = ms;
    }
    if (m->ninputs == 0)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject of type %s without the MeanOutput tag in "
                                  "its node: nothing to average",
                                  type ? type->name : "?");
    m->size = smallest;
    ST_TRY(st_array_resize(&m->result, ST_T_COORDS, 0, err));
    ST_TRY(st_array_resize_width(&m->result, width(m), smallest, err));
    if (smallest)
        memset(m->result.r, 0, smallest * width(m) * sizeof *m->result.r);
    if (m->ninputs > 1)
        st_component_warn(self, "as SOFA's, the result is not cleared between computations: "
                                "each one adds the %zu inputs to the previous result, then "
                                "divides by %zu, so after the first it is not their mean (it "
                                "tends to %zu/%zu of it)",
                          m->ninputs, m->ninputs, m->ninputs, m->ninputs - 1);
    return compute(m, err);
}

static void mean_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    if (ev != ST_EVENT_ANIMATE_BEGIN || self->state == ST_CSTATE_INVALID)
        return;
    st_error e = {0};
    if (compute((mean_computation *)self, &e) != ST_OK)
        st_component_warn(self, "%s", e.msg);
}

static void mean_cleanup(st_component *self)
{
    mean_computation *m = (mean_computation *)self;
    st_free(m->inputs);
    m->inputs = NULL;
    m->ninputs = 0;
}

static const char *const mean_templates[] = {"Vec1d", "Vec2d", "Vec3d", NULL};

const st_class st__mean_computation_class = {
    .struct_size = sizeof(st_class),
    .name = "MeanComputation",
    .category = "Engine",
    .description = "The mean of the positions of the MechanicalObjects of its node (SOFA's, "
                   "result not cleared between computations)",
    .instance_size = sizeof(mean_computation),
    .fields = mean_fields,
    .init = mean_init,
    .cleanup = mean_cleanup,
    .on_event = mean_on_event,
    .templates = mean_templates,
};
