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

static bool is_file_field(const st_field *f)
{
    return f && (f->type == ST_T_STRING || f->type == ST_T_STRINGS);
}

st_status st_options_check_files(st_component *c, const char *const *fields, st_error *err)
{
    for (const char *const *name = fields; name && *name; name++) {
        const st_field *f = st_component_field(c, *name);
        if (!is_file_field(f))
            return st_component_error(c, *name, err, ST_EINTERNAL,
                                      "'%s' is not a string field of %s", *name, c->cls->name);
        if (!st_component_is_set(c, *name))
            continue;
        const void *p = st_component_field_ptr(c, f);
        size_t n = f->type == ST_T_STRING ? 1 : ((const st_array *)p)->n;
        for (size_t i = 0; i < n; i++) {
            const char *v = f->type == ST_T_STRING ? *(char *const *)p : ((const st_array *)p)->s[i];
            char path[4096];
            st_error ferr = {0};
            if (v && *v && st_component_find_file(c, *name, v, path, sizeof path, &ferr) != ST_OK)
                st_component_warn(c, "%s: file not found (nothing is read headless): %s", *name,
                                  ferr.msg);
        }
    }
    return ST_OK;
}

/* The scalars of a real-valued field: one for real, n for vecN, all of a
 * real[]; NULL for other types. */
static const double *reals_of(st_component *c, const st_field *f, size_t *n)
{
    void *p = st_component_field_ptr(c, f);
    switch (f->type) {
    case ST_T_REAL: *n = 1; return p;
    case ST_T_VEC2: case ST_T_VEC3: case ST_T_VEC4: case ST_T_RGBA:
        *n = st_type_width(f->type);
        return p;
    case ST_T_REALS: *n = ((st_array *)p)->n; return ((st_array *)p)->r;
    default: return NULL;
    }
}

st_status st_options_check_values(st_component *c, const st_value_check *checks, st_error *err)
{
    for (const st_value_check *k = checks; k && k->field; k++) {
        const st_field *f = st_component_field(c, k->field);
        size_t n = 0;
        const double *v = f ? reals_of(c, f, &n) : NULL;
        if (!f || (!v && n))
            return st_component_error(c, k->field, err, ST_EINTERNAL,
                                      "'%s' is not a real-valued field of %s", k->field,
                                      c->cls->name);
        if (k->group > 1 && n % k->group)
            return st_component_error(c, k->field, err, ST_EINVAL,
                                      "expects groups of %u values, got %zu value%s (%zu left over)",
                                      k->group, n, n == 1 ? "" : "s", n % k->group);
        if (k->count && n && n != k->count)
            return st_component_error(c, k->field, err, ST_EINVAL, "expects %u values, got %zu",
                                      k->count, n);
        for (size_t i = 0; k->kind != ST_CHECK_REAL && i < n; i++) {
            if (v[i] != (double)(long long)v[i] || fabs(v[i]) > 2147483647.0)
                return st_component_error(c, k->field, err, ST_EINVAL,
                                          "expects integers, value %zu is %g", i, v[i]);
            if (k->kind == ST_CHECK_UINT && v[i] < 0)
                return st_component_error(c, k->field, err, ST_EINVAL,
                                          "expects unsigned integers, value %zu is %g", i, v[i]);
        }
    }
    return ST_OK;
}

st_status st_headless_check(st_component *c, const st_option_field *table, st_error *err)
{
    ST_TRY(st_options_check(c, table, err));
    return st_headless_init(c, err);
}

st_status st_headless_class_init(st_component *c, st_error *err)
{
    const st_headless_class *h = (const st_headless_class *)c->cls;
    ST_TRY(st_options_check(c, h->options, err));
    ST_TRY(st_options_check_values(c, h->checks, err));
    ST_TRY(st_options_check_files(c, h->files, err));
    return st_headless_init(c, err);
}

st_status st_headless_register(st_registry *r, const st_headless_class *const *classes, size_t n,
                               st_error *err)
{
    for (size_t i = 0; i < n; i++)
        ST_TRY(st_registry_add(r, &classes[i]->cls, err));
    return ST_OK;
}
