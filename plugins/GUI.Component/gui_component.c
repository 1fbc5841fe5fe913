/* gui_component.c - SOFA's Sofa.GUI.Component, headless: the mouse button
 * settings a scene names to configure runSofa's picking (attach a body with
 * a spring or a Lagrangian constraint, fix a picked particle, add a frame,
 * record a camera, navigate). settee has no GUI and no mouse, so they keep
 * and check their data and do nothing, as SOFA does without a GUI (batch
 * runs). Each field set in a scene is noted once as having no effect. */
#include <settee/settee.h>

#include "../shared/options.h"

typedef struct button_setting {
    st_component base;
    char *button;           /* SOFA's MouseButtonSetting: Left, Middle or Right */
    double stiffness, arrow_size, show_factor_size;
} button_setting;

#define S button_setting
#define BUTTON_FIELD IGN_STRING(S, button, "button", "Left", "Mouse button used")
static const st_field plain_fields[] = {BUTTON_FIELD, ST_FIELD_END};
static const st_field attach_fields[] = {
    BUTTON_FIELD,
    IGN_REAL(S, stiffness, "stiffness", "1000", "Stiffness of the spring to attach a particule"),
    IGN_REAL(S, arrow_size, "arrowSize", "0",
             "Size of the drawn spring: if >0 an arrow will be drawn"),
    IGN_REAL(S, show_factor_size, "showFactorSize", "1",
             "Show factor size of the JointSpringForcefield  when interacting with rigids"),
    ST_FIELD_END};
static const st_field fix_fields[] = {
    BUTTON_FIELD,
    IGN_REAL(S, stiffness, "stiffness", "10000", "Stiffness of the spring to fix a particule"),
    ST_FIELD_END};
#undef S

static const char *const buttons[] = {"Left", "Middle", "Right", NULL};
static const st_option_field button_options[] = {{"button", buttons}, {NULL, NULL}};

#define BUTTON_CLASS(var, name, desc, fields)                                                     \
    static ST_HEADLESS_CLASS(var, name, "ConfigurationSetting",                                   \
                             desc " (headless: no mouse, data kept)", button_setting, fields,    \
                             button_options, NULL, NULL)
BUTTON_CLASS(attach_body, "AttachBodyButtonSetting", "Attach a body to the mouse with a spring",
             attach_fields);
BUTTON_CLASS(constraint_attach, "ConstraintAttachButtonSetting",
             "Attach an object to the mouse using lagrangian multiplier", plain_fields);
BUTTON_CLASS(fix_picked, "FixPickedParticleButtonSetting", "Fix a picked particle in space",
             fix_fields);
BUTTON_CLASS(add_frame, "AddFrameButtonSetting", "Button setting adding a frame to a skinned model",
             plain_fields);
BUTTON_CLASS(add_camera, "AddRecordedCameraButtonSetting",
             "Save Camera's View Point Button configuration", plain_fields);
BUTTON_CLASS(start_navigation, "StartNavigationButtonSetting",
             "Start Navigation Button configuration", plain_fields);

/* MouseInteractor: SOFA's GUI puts it in its mouse node with the state the
 * mouse moves; it runs the interaction performers the GUI gives it, and a
 * scene's own has none: headless, as in SOFA's batch runs, it only checks
 * that its context has a state of its type. */
typedef struct mouse_interactor_inst {
    st_component base;
} mouse_interactor_inst;

static const st_field mouse_fields[] = {ST_FIELD_END};

static st_status mouse_init(st_component *self, st_error *err)
{
    const st_mstate *ms = self->node ? st_node_mstate(self->node) : NULL;
    const st_state_type *want = st_component_state_type(self);
    if (!ms || (want && ms->type != want))
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "MouseInteractor requires a MechanicalState of the correct type "
                                  "(%s) in its context",
                                  want ? want->name : "Vec3d");
    return st_headless_class_init(self, err);
}

static const char *const mouse_templates[] = {"Vec2d", "Vec3d", "Rigid3d", NULL};

static const st_headless_class mouse_interactor = {
    {.struct_size = sizeof(st_class),
     .name = "MouseInteractor",
     .category = "BehaviorModel",
     .description = "Perform tasks related to the interaction with the mouse (headless: no "
                    "mouse, no performers; checks its context's state)",
     .instance_size = sizeof(mouse_interactor_inst),
     .fields = mouse_fields,
     .init = mouse_init,
     .reinit = mouse_init,
     .templates = mouse_templates},
    NULL, NULL, NULL};

static const st_headless_class *const classes[] = {&attach_body, &constraint_attach, &fix_picked,
                                                   &add_frame,   &add_camera,        &start_navigation,
                                                   &mouse_interactor};

static st_status register_classes(st_registry *r, st_error *err)
{
    return st_headless_register(r, classes, sizeof classes / sizeof classes[0], err);
}

static const char *const provides[] = {"Sofa.GUI.Component", NULL};

ST_PLUGIN_DEFINE("GUI.Component", "0.1.0",
                 "SOFA's mouse button settings (AttachBodyButtonSetting, "
                 "ConstraintAttachButtonSetting, ...) and MouseInteractor, headless: data kept, "
                 "no mouse",
                 "LGPL-2.1-or-later", provides, register_classes)
