/* options.c - validation of SOFA OptionsGroup fields (see options.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <math.h>

#include "options.h"

/* Levenshtein distance, case-insensitive, for short option names. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return (size_t)-1;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = (a[i - 1] | 32) == (b[j - 1] | 32) ? 0 : 1;
            size_t best = diag + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static st_status check_one(st_component *c, const st_option_field *o, st_error *err)
{
    const st_field *f = st_component_field(c, o->field);
    if (!f || f->type != ST_T_STRING)
        return st_component_error(c, o->field, err, ST_EINTERNAL,
                                  "'%s' is not a string field of %s", o->field, c->cls->name);
    char **value = st_component_field_ptr(c, f);
    const char *v = *value ? *value : "";
    size_t n = 0;
    for (; o->options[n]; n++)
        if (!strcmp(v, o->options[n]))
            return ST_OK;
    char *end;
    long idx = strtol(v, &end, 10);
    if (*v && !*end && idx >= 0 && (size_t)idx < n) {
        char text[32];
        snprintf(text, sizeof text, "%s", o->options[idx]);
        return st_component_set(c, o->field, text, err);
    }
    char list[512] = "";
    size_t len = 0, best = 0, best_d = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        int w = snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", o->options[i]);
        if (w > 0 && (size_t)w < sizeof list - len)
            len += (size_t)w;
        size_t d = distance(v, o->options[i]);
        if (d < best_d)
            best_d = d, best = i;
    }
    size_t vl = strlen(v);
    bool close = best_d != (size_t)-1 && best_d <= (vl > 5 ? vl / 3 : 2);
    return st_component_error(c, o->field, err, ST_EINVAL,
                              "'%s' is not one of %s (or their index 0..%zu)%s%s%s", v, list,
                              n - 1, close ? "; did you mean '" : "",
                              close ? o->options[best] : "", close ? "'?" : "");
}

st_status st_options_check(st_component *c, const st_option_field *table, st_error *err)
{
    for (const st_option_field *o = table; o && o->field; o++)
        ST_TRY(check_one(c, o, err));
    return ST_OK;
}

st_status st_headless_init(st_component *c, st_error *err)
{
    (void)err;
    c->state = ST_CSTATE_VALID;
    return ST_OK;
}

st_status st_options_check_groups(st_component *c, const char *field, unsigned k, bool integral,
                                  st_error *err)
{
    const st_field *f = st_component_field(c, field);
    if (!f || f->type != ST_T_REALS)
        return st_component_error(c, field, err, ST_EINTERNAL, "'%s' is not a real[] field of %s",
                                  field, c->cls->name);
    const st_array *a = st_component_field_ptr(c, f);
    if (a->n % k)
        return st_component_error(c, field, err, ST_EINVAL,
                                  "expects groups of %u values, got %zu value%s (%zu left over)",
                                  k, a->n, a->n == 1 ? "" : "s", a->n % k);
    for (size_t i = 0; integral && i < a->n; i++)
        if (a->r[i] != (double)(long long)a->r[i])
            return st_component_error(c, field, err, ST_EINVAL,
                                      "expects integers, value %zu is %g", i, a->r[i]);
    return ST_OK;
}

/* SOFA's named colours (RGBAColor), in SOFA's order. */
static const struct {
    const char *name;
    float rgba[4];
} named_colours[] = {
    {"white", {1, 1, 1, 1}},          {"black", {0, 0, 0, 1}},
    {"red", {1, 0, 0, 1}},            {"green", {0, 1, 0, 1}},
    {"blue", {0, 0, 1, 1}},           {"cyan", {0, 1, 1, 1}},
    {"magenta", {1, 0, 1, 1}},        {"yellow", {1, 1, 0, 1}},
    {"gray", {0.5f, 0.5f, 0.5f, 1}},  {"darkgray", {0.25f, 0.25f, 0.25f, 1}},
    {"lightgray", {0.75f, 0.75f, 0.75f, 1}}, {"orange", {1, 0.5f, 0, 1}},
    {"purple", {0.5f, 0, 0.5f, 1}},   {"pink", {1, 0, 0.5f, 1}},
    {"brown", {0.6f, 0.3f, 0, 1}},    {"lime", {0.5f, 1, 0, 1}},
    {"teal", {0, 0.5f, 0.5f, 1}},     {"navy", {0, 0, 0.5f, 1}},
    {"olive", {0.5f, 0.5f, 0, 1}},    {"maroon", {0.5f, 0, 0, 1}},
    {"silver", {0.75f, 0.75f, 0.75f, 1}}, {"gold", {1, 0.84f, 0, 1}},
    {"azure", {0, 0.5f, 1, 1}},
};

static int hexdigit(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    ch = (char)(ch | 32);
    return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

bool st_colour_parse(const char *text, double rgba[4])
{
    double c[4] = {0, 0, 0, 1};
    const char *s = text;
    while (*s == ' ' || *s == '\t' || *s == '\n')
        s++;
    size_t len = strlen(s);
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n'))
        len--;
    if (s[0] == '#') {
        size_t nd = len - 1;
        if (nd != 3 && nd != 4 && nd != 6 && nd != 8)
            return false;
        for (size_t i = 1; i < len; i++)
            if (hexdigit(s[i]) < 0)
                return false;
        bool one = nd <= 4;
        for (size_t k = 0; k < (one ? nd : nd / 2); k++) {
            int x = one ? hexdigit(s[1 + k]) * 17
                        : hexdigit(s[1 + 2 * k]) * 16 + hexdigit(s[2 + 2 * k]);
            c[k] = (float)(x / 255.0f);
        }
    } else if ((s[0] | 32) >= 'a' && (s[0] | 32) <= 'z') {
        size_t k = 0, nc = sizeof named_colours / sizeof named_colours[0];
        while (k < nc && !(strlen(named_colours[k].name) == len && !strncasecmp(s, named_colours[k].name, len)))
            k++;
        if (k == nc)
            return false;
        for (int i = 0; i < 4; i++)
            c[i] = named_colours[k].rgba[i];
    } else {
        int k = 0;
        const char *p = s, *stop = s + len;
        while (p < stop) {
            char *end;
            double x = strtod(p, &end);
            if (end == p || k == 4 || !isfinite(x))
                return false;
            c[k++] = (float)x;
            p = end;
            while (p < stop && (*p == ' ' || *p == '\t' || *p == '\n' || *p == ','))
                p++;
        }
        if (k != 3 && k != 4)
            return false;
    }
    memcpy(rgba, c, sizeof c);
    return true;
}

st_status st_options_check_colours(st_component *c, const char *const *fields, st_error *err)
{
    for (const char *const *name = fields; name && *name; name++) {
        const st_field *f = st_component_field(c, *name);
        if (!f || f->type != ST_T_STRING)
            return st_component_error(c, *name, err, ST_EINTERNAL,
                                      "'%s' is not a string field of %s", *name, c->cls->name);
        const char *v = *(char **)st_component_field_ptr(c, f);
        double rgba[4];
        if (v && *v && !st_colour_parse(v, rgba))
            return st_component_error(
                c, *name, err, ST_EINVAL,
                "'%s' is not a colour: write \"r g b [a]\" (reals in [0, 1]), #rgb, #rrggbb, "
                "#rrggbbaa, or a name (white, black, red, green, blue, cyan, magenta, yellow, "
                "gray, orange, ...)",
                v);
    }
    return ST_OK;
}

st_status st_headless_check(st_component *c, const st_option_field *table,
                            const char *const *colours, st_error *err)
{
    ST_TRY(st_options_check(c, table, err));
    ST_TRY(st_options_check_colours(c, colours, err));
    return st_headless_init(c, err);
}
