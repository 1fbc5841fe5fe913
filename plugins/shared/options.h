/* options.h - SOFA's OptionsGroup for headless plugins: a string field whose
 * value must be one of a fixed list. Compiled into each plugin that uses it
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

/* Checks the enumerated fields (table may be NULL) and the colour fields
 * (colours, NULL-terminated, may be NULL) of c, then marks it valid: the
 * whole init of a component that only keeps its data headless. */
st_status st_headless_check(st_component *c, const st_option_field *table,
                            const char *const *colours, st_error *err);

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
/* A colour field (SOFA's RGBAColor). Stored as text and checked at init by
 * st_options_check_colours until the kernel's ST_T_RGBA parser accepts
 * SOFA's one-token forms ("red", "#ff0000") and three reals; then this
 * becomes ST_T_RGBA with an st_vec4 member. */
#define IGN_COLOR(S, m, k, d, h) ST_IGNORED(S, m, k, ST_T_STRING, char *, d, h)
/* VisualModel's "enable", which every SOFA visual model has. */
#define IGN_ENABLE(S) IGN_BOOL(S, enable, "enable", "true", "Display the object or not")

/* Parses a colour as SOFA's RGBAColor::read: 3 or 4 reals (alpha 1), #rgb,
 * #rgba, #rrggbb, #rrggbbaa, or one of SOFA's colour names. False when the
 * text is not a colour. */
bool st_colour_parse(const char *text, double rgba[4]);

/* Checks the colour fields named in fields (NULL-terminated) of c: an
 * ST_EINVAL error at the field for text that is not a colour. */
st_status st_options_check_colours(st_component *c, const char *const *fields, st_error *err);

/* Checks that an array field holding groups of k scalars (texcoords: 2,
 * a mat3 list: 9) has a multiple of k values, and when integral is true that
 * every value is an integer. */
st_status st_options_check_groups(st_component *c, const char *field, unsigned k, bool integral,
                                  st_error *err);

#endif
