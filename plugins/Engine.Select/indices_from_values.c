/* indices_from_values.c - IndicesFromValues: the positions in `global` of
 * the entries of `values`, as SOFA's. SOFA instantiates it for strings
 * (std::string, its first and so default template), int, unsigned int,
 * SReal, Vec2, Vec3 and the element tuples fixed_array<unsigned int, N>
 * (N = 2, 3, 4, 8); settee reads `values` and `global` as text (so any
 * data links into them, as into SOFA's string template) and compares
 * entries by the template: whole words for strings, numbers for the scalar
 * templates (1 and 1.0 are equal), groups of 2, 3, 4 or 8 numbers for the
 * tuples.
 * - By default, for each value the first equal entry of global goes to
 *   indices; a value not found is SOFA's error message (here a warning: the
 *   run goes on, as SOFA's) and is skipped.
 * - With recursiveSearch, for each value every equal entry goes to indices
 *   and every other one to otherIndices (once per value, as SOFA). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <settee/settee.h>

typedef struct indices_from_values {
    st_component base;
    char *template_name; /* "template" */
    char *values;        /* text */
    char *global;        /* text */
    st_array indices;    /* output uint[] */
    st_array others;     /* output uint[] */
    bool recursive;
} indices_from_values;

static const st_field ifv_fields[] = {
    ST_STRING(indices_from_values, template_name, "template", "std::string",
              "The value type: std::string (SOFA's default), int, unsigned int, double, Vec2d, "
              "Vec3d, fixed_array<unsigned int,N> (N = 2, 3, 4, 8)"),
    ST_STRING(indices_from_values, values, "values", NULL, "input values"),
    ST_STRING(indices_from_values, global, "global", NULL,
              "Global values, in which the input values are searched"),
    ST_OUTPUT(indices_from_values, indices, "indices", ST_T_UINTS, st_array,
              "Output indices of the given values, searched in global"),
    ST_OUTPUT(indices_from_values, others, "otherIndices", ST_T_UINTS, st_array,
              "Output indices of the other values, (NOT the given ones) searched in global"),
    ST_BOOL(indices_from_values, recursive, "recursiveSearch", "false",
            "if set to true, output are indices of the \"global\" data matching with one of the "
            "values"),
    ST_FIELD_END};

/* The template: 0 strings, else the numbers per entry. */
static int numbers_per_entry(const char *t, bool *ok)
{
    static const struct {
        const char *name;
        int n;
    } known[] = {{"std::string", 0}, {"string", 0},   {"int", 1},      {"unsigned int", 1},
                 {"double", 1},      {"float", 1},    {"SReal", 1},    {"Vec2d", 2},
                 {"Vec2", 2},        {"Vec3d", 3},    {"Vec3", 3},     {"Edge", 2},
                 {"Triangle", 3},    {"Quad", 4},     {"Tetra", 4},    {"Hexa", 8},
                 {"fixed_array<unsigned int,2>", 2}, {"fixed_array<unsigned int,3>", 3},
                 {"fixed_array<unsigned int,4>", 4}, {"fixed_array<unsigned int,8>", 8}};
    *ok = true;
    if (!t || !t[0])
        return 0;
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (!strcmp(t, known[i].name))
            return known[i].n;
    *ok = false;
    return 0;
}

/* The whitespace-separated words of text (pointers into a copy). */
typedef struct words {
    char *buf;
    char **w;
    size_t n;
} words;

static bool split(const char *text, words *out)
{
    out->n = 0;
    const char *t = text ? text : "";
    size_t len = strlen(t);
    out->buf = malloc(len + 1);
    if (out->buf)
        memcpy(out->buf, t, len + 1);
    out->w = malloc((len / 2 + 2) * sizeof *out->w);
    if (!out->buf || !out->w)
        return false;
    char *p = out->buf;
    while (*p) {
        while (*p && isspace((unsigned char)*p))
            *p++ = 0;
        if (!*p)
            break;
        out->w[out->n++] = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
    }
    return true;
}

static void words_free(words *w)
{
    free(w->buf), free(w->w);
}

/* Entries of per words each (0: one word, compared as text), parsed. */
static st_status entries(st_component *self, const char *field, const words *w, int per,
                         double **num, size_t *n, st_error *err)
{
    *num = NULL;
    if (per == 0) {
        *n = w->n;
        return ST_OK;
    }
    if (w->n % (size_t)per)
        return st_component_error(self, field, err, ST_EPARSE,
                                  "%zu numbers do not make whole entries of %d", w->n, per);
    *n = w->n / (size_t)per;
    *num = malloc((w->n + 1) * sizeof **num);
    if (!*num)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t i = 0; i < w->n; i++) {
        char *end;
        (*num)[i] = strtod(w->w[i], &end);
        if (end == w->w[i] || *end) {
            free(*num);
            *num = NULL;
            return st_component_error(self, field, err, ST_EPARSE, "'%s' is not a number",
                                      w->w[i]);
        }
    }
    return ST_OK;
}

static bool equal(const words *a, const double *an, size_t i, const words *b, const double *bn,
                  size_t j, int per)
{
    if (per == 0)
        return !strcmp(a->w[i], b->w[j]);
    for (int k = 0; k < per; k++)
        if (an[(size_t)per * i + k] != bn[(size_t)per * j + k])
            return false;
    return true;
}

static st_status push(st_array *a, unsigned v, st_error *err)
{
    size_t n = a->n;
    ST_TRY(st_array_resize(a, ST_T_UINTS, n + 1, err));
    a->u[n] = v;
    return ST_OK;
}

static st_status ifv_update(st_component *self, st_error *err)
{
    indices_from_values *e = (indices_from_values *)self;
    bool ok;
    const int per = numbers_per_entry(e->template_name, &ok);
    if (!ok)
        return st_component_error(self, "template", err, ST_ESCENE,
                                  "template '%s' is not one of SOFA's for IndicesFromValues "
                                  "(std::string, int, unsigned int, double, Vec2d, Vec3d, "
                                  "fixed_array<unsigned int,N>)",
                                  e->template_name);
    ST_TRY(st_array_resize(&e->indices, ST_T_UINTS, 0, err));
    ST_TRY(st_array_resize(&e->others, ST_T_UINTS, 0, err));
    words wv = {0}, wg = {0};
    double *nv = NULL, *ng = NULL;
    size_t n_v = 0, n_g = 0;
    st_status s = split(e->values, &wv) && split(e->global, &wg)
                      ? ST_OK
                      : st_error_set(err, ST_ENOMEM, "out of memory");
    if (s == ST_OK)
        s = entries(self, "values", &wv, per, &nv, &n_v, err);
    if (s == ST_OK)
        s = entries(self, "global", &wg, per, &ng, &n_g, err);
    for (size_t i = 0; s == ST_OK && i < n_v; i++) {
        bool found = false;
        for (size_t j = 0; s == ST_OK && j < n_g; j++) {
            if (equal(&wv, nv, i, &wg, ng, j, per)) {
                found = true;
                s = push(&e->indices, (unsigned)j, err);
                if (!e->recursive)
                    break;
            } else if (e->recursive) {
                s = push(&e->others, (unsigned)j, err);
            }
        }
        if (s == ST_OK && !found && !e->recursive)
            st_component_warn(self, "Input value %zu not found : %s", i,
                              per ? wv.w[(size_t)per * i] : wv.w[i]);
    }
    free(nv), free(ng);
    words_free(&wv), words_free(&wg);
    return s;
}

static const st_engine_ops ifv_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = ifv_update,
};

const st_class indices_from_values_class = {
    .struct_size = sizeof(st_class),
    .name = "IndicesFromValues",
    .category = "Engine",
    .description = "Engine finding the indices of a list of values within a larger set of values.",
    .instance_size = sizeof(indices_from_values),
    .fields = ifv_fields,
    .engine = &ifv_engine,
};
