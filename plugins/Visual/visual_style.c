/* visual_style.c - VisualStyle: the display flags of a subtree. Headless,
 * the flags are kept (and checked) but nothing is drawn. */
#include <string.h>

#include <settee/settee.h>

typedef struct visual_style {
    st_component base;
    char *display_flags; /* "displayFlags" */
} visual_style;

static const st_field visual_style_fields[] = {
    ST_STRING(visual_style, display_flags, "displayFlags", "",
              "Display Flags: show/hide flags such as \"showBehaviorModels showForceFields\" "
              "(kept; nothing is drawn headless)"),
    ST_FIELD_END};

static const char *const flag_names[] = {
    "All",           "Visual",           "VisualModels",          "Behavior",
    "BehaviorModels", "ForceFields",     "InteractionForceFields", "Collision",
    "CollisionModels", "BoundingCollisionModels", "Mapping",     "Mappings",
    "MechanicalMappings", "Options",     "Rendering",             "Normals",
    "Wireframe",     "ProcessorColor",   "Advanced",              "Highlighting",
    NULL};

static bool known_flag(const char *tok, size_t len)
{
    size_t pre;
    if (len > 4 && !strncmp(tok, "show", 4))
        pre = 4;
    else if (len > 4 && !strncmp(tok, "hide", 4))
        pre = 4;
    else
        return false;
    for (const char *const *f = flag_names; *f; f++)
        if (strlen(*f) == len - pre && !strncmp(tok + pre, *f, len - pre))
            return true;
    return false;
}

static st_status visual_style_init(st_component *self, st_error *err)
{
    (void)err;
    visual_style *v = (visual_style *)self;
    const char *p = v->display_flags ? v->display_flags : "";
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        const char *s = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n')
            p++;
        if (!known_flag(s, (size_t)(p - s)))
            st_component_warn(self,
                              "displayFlags: unknown flag '%.*s' (expected show... or hide... "
                              "followed by Visual, VisualModels, Behavior, BehaviorModels, "
                              "ForceFields, Collision, Mappings, Wireframe, ...)",
                              (int)(p - s), s);
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

const st_class visual_style_class = {
    .struct_size = sizeof(st_class),
    .name = "VisualStyle",
    .category = "Visual",
    .description = "Edit the visual style (display flags; kept and ignored headless)",
    .instance_size = sizeof(visual_style),
    .fields = visual_style_fields,
    .init = visual_style_init,
    .reinit = visual_style_init,
};
