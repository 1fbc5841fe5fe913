/* options.h - what headless plugins share: SOFA's OptionsGroup (a string
 * field whose value must be one of a fixed list), value checks for SOFA's
 * integer and fixed-size types stored as reals, file-name warnings, and
 * st_headless_class, a class whose init only checks its data. Colours are
 * the kernel's ST_T_RGBA. Compiled into each plugin that uses it
 * (plugins/shared has no CMakeLists.txt, so it is not a plugin itself). */
#ifndef SETTEE_SHARED_OPTIONS_H
#define SETTEE_SHARED_OPTIONS_H

#include <settee/settee.h>

/* One enumerated field of a component: its scene name and the allowed values
 * (NULL-terminated, SOFA's order). Tables end with {NULL, NULL}. */
typedef struct st_option_field {
    const char *field;
    const char *const *options;
} st_option_field;

/* Checks every enumerated field of c. As SOFA's OptionsGroup, a value is an
 * item's name or its index ("0", "1", ...); an index is rewritten to the
 * name. Anything else is an ST_EINVAL error at the field that lists the
 * options and suggests the closest one. */
st_status st_options_check(st_component *c, const st_option_field *table, st_error *err);

/* Checks the enumerated fields (table may be NULL) of c, then marks it
 * valid: the whole init of a component that only keeps its data headless. */
st_status st_headless_check(st_component *c, const st_option_field *table, st_error *err);

/* An init callback for components that only keep their data headless: marks
 * the component valid. */
st_status st_headless_init(st_component *c, st_error *err);

/* Fields SOFA's twin has and settee accepts with no effect headless
 * (ST_F_IGNORED: a scene that sets one is told so at --verbose). */
#define IGN_BOOL(S, m, k, d, h) ST_IGNORED(S, m, k, ST_T_BOOL, bool, d, h)
#define IGN_INT(S, m, k, d, h) ST_IGNORED(S, m, k, ST_T_INT, int, d, h)
#define IGN_UINT(S, m, k, d, h) ST_IGNORED(S, m, k, ST_T_UINT, unsigned, d, h)
#define IGN_REAL(S, m, k, d, h) ST_IGNORED(S, m, k, ST_T_REAL, double, d, h)
#define IGN_STRING(S, m, k, d, h) ST_IGNORED(S, m, k, ST_T_STRING, char *, d, h)
#define IGN_VEC2(S, m, k, d, h) ST_IGNORED(S, m, k, ST_T_VEC2, st_vec2, d, h)
#define IGN_VEC3(S, m, k, d, h) ST_IGNORED(S, m, k, ST_T_VEC3, st_vec3, d, h)
#define IGN_VEC4(S, m, k, d, h) ST_IGNORED(S, m, k, ST_T_VEC4, st_vec4, d, h)
#define IGN_RGBA(S, m, k, d, h) ST_IGNORED(S, m, k, ST_T_RGBA, st_vec4, d, h)
#define IGN_REALS(S, m, k, d, h) ST_IGNORED(S, m, k, ST_T_REALS, st_array, d, h)
#define IGN_UINTS(S, m, k, d, h) ST_IGNORED(S, m, k, ST_T_UINTS, st_array, d, h)
#define IGN_VEC3S(S, m, k, d, h) ST_IGNORED(S, m, k, ST_T_VEC3S, st_array, d, h)
#define IGN_STRINGS(S, m, k, d, h) ST_IGNORED(S, m, k, ST_T_STRINGS, st_array, d, h)
#define IGN_EDGES(S, m, k, d, h) ST_IGNORED(S, m, k, ST_T_EDGES, st_array, d, h)
/* A link SOFA's twin has and settee keeps without using it. */
#define IGN_LINK(S, m, k, kind, h)                                                                \
    {(k), ST_T_LINK, offsetof(S, m) + ST_FIELD_CHECK_(S, m, st_component *), NULL, (h),          \
     ST_F_IGNORED, NULL, (kind), 0.0, 0.0}
/* VisualModel's "enable", which every SOFA visual model has. */
#define IGN_ENABLE(S) IGN_BOOL(S, enable, "enable", "true", "Display the object or not")

/* What st_options_check_values checks in a real-valued field (real, vecN,
 * rgba, real[]): its scalars come in groups of `group` (0 or 1: any count),
 * there are exactly `count` of them when count > 0 and the field is not
 * empty, and with ST_CHECK_INT or ST_CHECK_UINT each is an integer (>= 0).
 * SOFA's Vec<2,int>, vector<Vec3f>, Mat4x4f lists... are stored this way.
 * Tables end with {NULL}. */
enum { ST_CHECK_REAL = 0, ST_CHECK_INT, ST_CHECK_UINT };
typedef struct st_value_check {
    const char *field;
    unsigned group, count, kind;
} st_value_check;

/* Checks real-valued fields of c against a table (may be NULL): an ST_EINVAL
 * error at the field that says what was expected. */
st_status st_options_check_values(st_component *c, const st_value_check *checks, st_error *err);

/* For the file-name fields (string or string[]) named in fields
 * (NULL-terminated, may be NULL) that the scene set: a file that
 * st_component_find_file cannot find is a warning, not an error, since
 * headless nothing reads it (shaders, textures, images). */
st_status st_options_check_files(st_component *c, const char *const *fields, st_error *err);

/* A component class that only keeps its data headless, with what its init
 * checks. The registry keeps the pointer to cls, so the generic init finds
 * the rest from c->cls. */
typedef struct st_headless_class {
    st_class cls;
    const st_option_field *options; /* enumerated fields, or NULL */
    const st_value_check *checks;   /* value checks, or NULL */
    const char *const *files;       /* file-name fields, NULL-terminated, or NULL */
} st_headless_class;

/* The init (and reinit) of every st_headless_class: options, values and
 * files checked, then the component is valid. */
st_status st_headless_class_init(st_component *c, st_error *err);

/* Defines `const st_headless_class var` for the instance struct T, whose
 * init and reinit is INIT (st_headless_class_init, or a function that ends
 * by calling it). */
#define ST_HEADLESS_CLASS_INIT(var, NAME, CATEGORY, DESCRIPTION, T, FIELDS, OPTIONS, CHECKS,      \
                               FILES, INIT)                                                        \
    const st_headless_class var = {{.struct_size = sizeof(st_class),                              \
                                    .name = (NAME),                                               \
                                    .category = (CATEGORY),                                       \
                                    .description = (DESCRIPTION),                                 \
                                    .instance_size = sizeof(T),                                   \
                                    .fields = (FIELDS),                                           \
                                    .init = (INIT),                                               \
                                    .reinit = (INIT)},                                            \
                                   (OPTIONS), (CHECKS), (FILES)}
#define ST_HEADLESS_CLASS(var, NAME, CATEGORY, DESCRIPTION, T, FIELDS, OPTIONS, CHECKS, FILES)     \
    ST_HEADLESS_CLASS_INIT(var, NAME, CATEGORY, DESCRIPTION, T, FIELDS, OPTIONS, CHECKS, FILES,   \
                           st_headless_class_init)

/* Registers n headless classes. */
st_status st_headless_register(st_registry *r, const st_headless_class *const *classes, size_t n,
                               st_error *err);

#endif
