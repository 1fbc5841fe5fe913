/* mechanical_state_controller.c - MechanicalStateController (Vec1d,
 * Rigid3d): SOFA's mouse and keyboard control of a mechanical state.
 * settee has no GUI, so no mouse event ever arrives; what is left is what
 * SOFA's controller does at the start of every step (onBeginAnimationStep):
 *   Rigid3d: with no mouse button held, the state is not moved (SOFA then
 *   projects and propagates positions and velocities that the last step
 *   already projected and propagated: nothing changes);
 *   Vec1d: SOFA's gripper rule on the rest positions: the first one opens
 *   or closes by buttonDeviceState, then, with the middle button up, both
 *   the first and the second are set to 0 (the state needs two points).
 * Its fields are SOFA's; mainDirection is normalised at creation, as SOFA
 * does. */
#include <math.h>

#include <settee/settee.h>

typedef struct msc {
    st_component base;
    unsigned index;            /* "index" */
    bool only_translation;     /* "onlyTranslation" */
    bool button_device_state;  /* "buttonDeviceState" */
    st_vec3 main_direction;    /* "mainDirection" */
    bool handle_event_update;  /* "handleEventTriggersUpdate" */
    st_mstate *ms;
} msc;

static const st_field msc_fields[] = {
    ST_UINT(msc, index, "index", "0", "Index of the controlled DOF"),
    ST_BOOL(msc, only_translation, "onlyTranslation", "false",
            "Controlling the DOF only in translation"),
    ST_BOOL(msc, button_device_state, "buttonDeviceState", "false",
            "state of ths device button"),
    ST_VEC3(msc, main_direction, "mainDirection", "0 0 -1",
            "Main direction and orientation of the controlled DOF (normalised at init)"),
    ST_IGNORED(msc, handle_event_update, "handleEventTriggersUpdate", ST_T_BOOL, bool, "false",
               "Event handling frequency controls the controller update frequency (settee: no "
               "GUI, no mouse events)"),
    ST_FIELD_END};

static st_status msc_init(st_component *self, st_error *err)
{
    msc *c = (msc *)self;
    c->ms = st_component_mstate(self);
    if (!c->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "MechanicalStateController has no binding MechanicalState");
    double *d = c->main_direction;
    double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (l > 0.0)
        for (int k = 0; k < 3; k++)
            d[k] /= l;
    if (c->ms->type == &st_vec1d_type && c->ms->rest_position.n < 2)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "the Vec1d controller sets the rest positions of points 0 and "
                                  "1 each step: '%s' has %zu point(s)",
                                  c->ms->base.name, c->ms->rest_position.n);
    if (c->index >= c->ms->n && c->ms->type == &st_rigid3d_type)
        return st_component_error(self, "index", err, ST_EINVAL,
                                  "index %u is out of range: '%s' has %zu points", c->index,
                                  c->ms->base.name, c->ms->n);
    return ST_OK;
}

static void msc_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    msc *c = (msc *)self;
    if (ev != ST_EVENT_ANIMATE_BEGIN || !c->ms || c->ms->type != &st_vec1d_type ||
        c->ms->rest_position.n < 2)
        return;
    double *x0 = c->ms->rest_position.r;
    /* SOFA's opening and closing of the first value... */
    if (c->button_device_state)
        x0[0] = x0[0] < -0.1 ? x0[0] + 0.01 : -0.1;
    else
        x0[0] = x0[0] > -0.5 ? x0[0] - 0.05 : -0.5;
    /* ...then, the middle button being up, both reset to 0. */
    x0[0] = 0.0;
    x0[1] = 0.0;
    st_component_touch(&c->ms->base, st_component_field(&c->ms->base, "rest_position"));
}

static const char *const msc_templates[] = {"Rigid3d", "Vec1d", NULL};

const st_class mechanical_state_controller_class = {
    .struct_size = sizeof(st_class),
    .name = "MechanicalStateController",
    .category = "Controller",
    .description = "Provides a Mouse & Keyboard user control on a Mechanical State (headless: no "
                   "mouse, see the help of each field)",
    .instance_size = sizeof(msc),
    .fields = msc_fields,
    .init = msc_init,
    .on_event = msc_on_event,
    .templates = msc_templates,
};
