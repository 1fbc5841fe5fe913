/* scene_utility.c - SOFA's Sofa.Component.SceneUtility, headless:
 * InfoComponent, APIVersion, MessageHandlerComponent,
 * FileMessageHandlerComponent, PauseAnimationOnEvent, AddDataRepository and
 * AddPluginRepository keep and check their data.
 *
 * AddDataRepository and AddPluginRepository act while the scene is read
 * (the class's parsed step, SOFA's parse): the folder, relative to the
 * scene file's folder, is searched by every later file name (after
 * SETTEE_DATA_PATH and SOFA_DATA_PATH, as SOFA's addLastPath) or by every
 * later RequiredPlugin. A path that is not a folder is an error (SOFA
 * prints one and goes on with files it then cannot find). The message
 * handlers do not change settee's log. */
#include <string.h>

#include <settee/settee.h>

#include "../shared/options.h"

typedef struct scene_utility {
    st_component base;
    char *text; /* level, handler, filename or path */
} scene_utility;

static const st_field no_fields[] = {ST_FIELD_END};
static const st_field api_version_fields[] = {
    IGN_STRING(scene_utility, text, "level", "26.12.99",
               "API level of the scene (17.06, 17.12, ..., 20.12 or SOFA's version)"),
    ST_FIELD_END};
static const st_field message_handler_fields[] = {
    IGN_STRING(scene_utility, text, "handler", NULL,
               "Message handler: sofa, clang, rich or silent (settee's log is unchanged)"),
    ST_FIELD_END};
static const st_field file_message_handler_fields[] = {
    IGN_STRING(scene_utility, text, "filename", NULL,
               "File the messages would be written to (not written headless)"),
    ST_FIELD_END};
static const st_field repository_fields[] = {
    ST_STRING(scene_utility, text, "path", NULL,
              "Folder to add to the repository (relative to the scene file's folder)"),
    ST_FIELD_END};

static const char *text_of(st_component *c)
{
    const char *t = ((scene_utility *)c)->text;
    return t ? t : "";
}

/* SOFA's APIVersion::checkInputData: the name stands for an unset level;
 * an unknown level is a warning. */
static st_status api_version_init(st_component *self, st_error *err)
{
    static const char *const levels[] = {"17.06", "17.12", "18.06", "18.12", "19.06",
                                         "19.12", "20.06", "20.12", "26.12.99"};
    if (!st_component_is_set(self, "level") && st_component_is_set(self, "name"))
        ST_TRY(st_component_set(self, "level", self->name, err));
    const char *v = text_of(self);
    size_t i = 0, n = sizeof levels / sizeof levels[0];
    while (i < n && strcmp(levels[i], v))
        i++;
    if (i == n)
        st_component_warn(self, "level '%s' is not valid: allowed are 17.06, 17.12, 18.06, "
                                "18.12, 19.06, 19.12, 20.06, 20.12, 26.12.99", v);
    return st_headless_init(self, err);
}

/* SOFA's MessageHandlerComponent::parse: an unknown handler keeps the
 * default style with a message, not an error. */
static st_status message_handler_init(st_component *self, st_error *err)
{
    static const char *const handlers[] = {"sofa", "clang", "rich", "silent"};
    const char *v = text_of(self);
    bool known = false;
    for (size_t i = 0; i < sizeof handlers / sizeof handlers[0]; i++)
        known = known || !strcmp(v, handlers[i]);
    if (st_component_is_set(self, "handler") && !known)
        st_component_warn(self, "handler '%s' is not supported (sofa, clang, rich or silent)", v);
    return st_headless_init(self, err);
}

static st_status data_repository_parsed(st_component *self, st_error *err)
{
    if (!*text_of(self))
        return ST_OK; /* nothing to add */
    ST_TRY(st_component_add_data_path(self, "path", text_of(self), err));
    st_component_info(self, "file names are also searched in '%s'", text_of(self));
    return ST_OK;
}

static st_status plugin_repository_parsed(st_component *self, st_error *err)
{
    char dir[4096];
    if (!*text_of(self))
        return ST_OK;
    ST_TRY(st_component_find_dir(self, "path", text_of(self), dir, sizeof dir, err));
    return st_runtime_add_plugin_path(st_component_runtime(self), dir, err);
}

#define UTILITY(var, NAME, DESC, FIELDS, INIT)                                                    \
    static ST_HEADLESS_CLASS_INIT(var, NAME, "SceneUtility", DESC, scene_utility, FIELDS, NULL,  \
                                  NULL, NULL, INIT);
UTILITY(info_class, "InfoComponent", "Keeps an information or error message (no data)",
        no_fields, st_headless_class_init)
UTILITY(api_version_class, "APIVersion", "The API version of the scene's components",
        api_version_fields, api_version_init)
UTILITY(message_handler_class, "MessageHandlerComponent",
        "Chooses how SOFA prints its messages (headless: settee's log is unchanged)",
        message_handler_fields, message_handler_init)
UTILITY(file_message_handler_class, "FileMessageHandlerComponent",
        "Writes SOFA's messages into a file (headless: not written)",
        file_message_handler_fields, st_headless_class_init)
UTILITY(pause_class, "PauseAnimationOnEvent",
        "Pauses the simulation on a PauseEvent (headless: no such event is sent)", no_fields,
        st_headless_class_init)
/* The repositories act in their parsed step (while the scene is read). */
#define REPOSITORY(var, NAME, DESC, PARSED)                                                       \
    static const st_headless_class var = {                                                        \
        {.struct_size = sizeof(st_class),                                                         \
         .name = (NAME),                                                                          \
         .category = "SceneUtility",                                                              \
         .description = (DESC),                                                                   \
         .instance_size = sizeof(scene_utility),                                                  \
         .fields = repository_fields,                                                             \
         .init = st_headless_class_init,                                                          \
         .parsed = (PARSED)},                                                                     \
        NULL, NULL, NULL};
REPOSITORY(data_repository_class, "AddDataRepository",
           "Adds a folder that later file names of the scene are searched in",
           data_repository_parsed)
REPOSITORY(plugin_repository_class, "AddPluginRepository",
           "Adds a folder that later RequiredPlugin entries search plugins in",
           plugin_repository_parsed)

static const st_headless_class *const classes[] = {
    &info_class,   &api_version_class,     &message_handler_class,  &file_message_handler_class,
    &pause_class,  &data_repository_class, &plugin_repository_class};

static st_status register_classes(st_registry *r, st_error *err)
{
    return st_headless_register(r, classes, sizeof classes / sizeof classes[0], err);
}

static const char *const provides[] = {"Sofa.Component.SceneUtility", NULL};

ST_PLUGIN_DEFINE("SceneUtility", "0.1.0",
                 "SOFA's scene utilities (API version, information, message handlers, data "
                 "repositories), headless: data kept and checked",
                 "LGPL-2.1-or-later", provides, register_classes)
