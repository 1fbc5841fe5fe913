/* null_force_feedback.c - the Haptics plugin (SOFA's
 * Sofa.Component.Haptics): NullForceFeedback, the force feedback that
 * returns no force, with its ForceFeedback data (activate, indice). A haptic
 * device driver asks a scene's force feedback for the force at the tool;
 * settee drives no device, and this one's answer is zero whatever the tool
 * (SOFA's computeForce and computeWrench), so in a run it does nothing, as
 * in SOFA. LCPForceFeedback (lcp_force_feedback.c) answers from the last
 * constraint solve. */
#include <settee/settee.h>

#include "../shared/options.h"

typedef struct null_force_feedback {
    st_component base;
    bool activate; /* "activate" */
    int indice;    /* "indice" */
} null_force_feedback;

static const st_field fields[] = {
    ST_BOOL(null_force_feedback, activate, "activate", "false",
            "boolean to activate or deactivate the forcefeedback (no device asks in settee)"),
    ST_INT(null_force_feedback, indice, "indice", "0", "Tool indice in the OmniDriver"),
    ST_FIELD_END};

static const st_headless_class null_force_feedback_class = {
    {.struct_size = sizeof(st_class),
     .name = "NullForceFeedback",
     .category = "Haptics",
     .description = "Null force feedback for haptic feedback device (zero force; settee drives "
                    "no device)",
     .instance_size = sizeof(null_force_feedback),
     .fields = fields,
     .init = st_headless_class_init,
     .reinit = st_headless_class_init},
    NULL, NULL, NULL};

static const st_headless_class *const classes[] = {&null_force_feedback_class};

extern const st_class lcp_force_feedback_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_headless_register(r, classes, 1, err));
    return st_registry_add(r, &lcp_force_feedback_class, err);
}

static const char *const provides[] = {"Sofa.Component.Haptics", NULL};

ST_PLUGIN_DEFINE("Haptics", "0.1.0",
                 "SOFA's Sofa.Component.Haptics: NullForceFeedback (zero force) and "
                 "LCPForceFeedback (force from the last LCP, for a device driver)",
                 "LGPL-2.1-or-later", provides, register_classes)
