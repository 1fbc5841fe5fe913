/* beam_adapter_action_controller.c - BeamAdapterActionController (SOFA's
 * BeamAdapter plugin): drives an InterventionalRadiologyController by a
 * script of actions at given times, instead of its speed.
 *
 * Once linked, the controller's own step does nothing; at each step's
 * beginning this component applies, in read mode (writeMode false), the
 * next action whose time (timeSteps) the scene time has reached, one per
 * step (numbers as BeamAdapter's: 1 forward by step, 2 backward, 3 and 4
 * turn by angularStep, 5 and 6 next and previous instrument, 7 drop (no
 * longer supported: a warning), 8 to 10 control instrument 0 to 2), then
 * updates the controller. In write mode (the default) SOFA records keys
 * pressed; settee has no keyboard, so it only updates the controller.
 * actionString is accepted and, as in SOFA's replay, not read. */
#include <string.h>

#include "beam_adapter.h"

typedef struct ba_action_controller {
    st_component base;
    bool write_mode;          /* "writeMode" */
    st_array actions;         /* "actions": action numbers */
    st_array action_string;   /* "actionString" */
    st_array time_steps;      /* "timeSteps" */
    st_component *irc;        /* "interventionController" */
    /* Set by init. */
    size_t read_step;
} ba_action_controller;

static st_status bac_init(st_component *self, st_error *err)
{
    ba_action_controller *a = (ba_action_controller *)self;
    self->state = ST_CSTATE_INVALID;
    if (!a->irc)
        return st_component_error(self, "interventionController", err, ST_ESCENE,
                                  "No l_interventionController given. Component will be set to "
                                  "Invalid.");
    if (a->irc->cls != &interventional_radiology_controller_class)
        return st_component_error(self, "interventionController", err, ST_ESCENE,
                                  "%s is a %s, not an InterventionalRadiologyController",
                                  a->irc->name, a->irc->cls->name);
    if (a->write_mode && (st_component_is_set(self, "actions") ||
                          st_component_is_set(self, "actionString")))
        st_component_warn(self, "WriteMode is set to on but a list of actions has been set as "
                                "input. The list will be overwritten.");
    if (!a->write_mode && a->actions.n < a->time_steps.n)
        return st_component_error(self, "actions", err, ST_EINVAL,
                                  "%zu actions for %zu timeSteps: one action per time",
                                  a->actions.n, a->time_steps.n);
    ((ir_controller *)a->irc)->use_actions = true;
    a->read_step = 0;
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void bac_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    ba_action_controller *a = (ba_action_controller *)self;
    if (self->state != ST_CSTATE_VALID || ev != ST_EVENT_ANIMATE_BEGIN)
        return;
    ir_controller *c = (ir_controller *)a->irc;
    if (!a->write_mode && a->read_step < a->time_steps.n &&
        st_node_time(self->node) >= a->time_steps.r[a->read_step]) {
        irc_apply_action(c, (int)a->actions.u[a->read_step]);
        a->read_step++;
    }
    st_error err = {0};
    if (irc_update(c, &err) != ST_OK)
        st_component_warn(self, "%s", err.msg);
}

static void bac_reset(st_component *self)
{
    ((ba_action_controller *)self)->read_step = 0;
}

#define T ba_action_controller
static const st_field bac_fields[] = {
    ST_BOOL(T, write_mode, "writeMode", "true",
            "If true, will accumulate actions from keyboard and dump the actions and times when "
            "key 'E' is pressed (settee: no keyboard, nothing recorded)."),
    ST_UINTS(T, actions, "actions", "",
             "List of actions to script the BeamAdapter (SOFA: ints; the action numbers are "
             ">= 0)"),
    ST_STRINGS(T, action_string, "actionString", "",
               "List of actions as string to script the BeamAdapter (not read, as SOFA's "
               "replay)"),
    ST_REALS(T, time_steps, "timeSteps", "", "List of key times corresponding to the actions"),
    ST_LINK(T, irc, "interventionController", ST_LINK_ANY,
            "Path to the InterventionalRadiologyController component on scene"),
    ST_FIELD_END};
#undef T

static const char *const bac_templates[] = {"Rigid3d", NULL};

const st_class beam_adapter_action_controller_class = {
    .struct_size = sizeof(st_class),
    .name = "BeamAdapterActionController",
    .category = "Controller",
    .description = "Scripted actions (push, pull, turn, switch instrument) at given times for an "
                   "InterventionalRadiologyController (BeamAdapter)",
    .instance_size = sizeof(ba_action_controller),
    .fields = bac_fields,
    .init = bac_init,
    .reinit = bac_init,
    .reset = bac_reset,
    .on_event = bac_on_event,
    .templates = bac_templates,
};
