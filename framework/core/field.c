/* field.c - field types: parsing scene values, defaults, copies, formatting.
 * It and component.c call each other by design (core.h says why).
 *
 * The field's declared type decides how a value parses: libyaml gives us
 * text only, so `1e-5` is a real for a real field and `yes` is not a bool.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

typedef enum scalar_kind { SK_BOOL, SK_INT, SK_UINT, SK_REAL, SK_STRING, SK_LINK } scalar_kind;

typedef struct type_info {
    const char *name;
    unsigned width;   /* scalars per tuple */
    scalar_kind sk;   /* scalar kind of each entry */
    bool array;       /* stored in an st_array */
    size_t esize;     /* bytes per scalar */
} type_info;

static const type_info types[ST_T_TYPE_COUNT] = {
    [ST_T_BOOL] = {"bool", 1, SK_BOOL, false, sizeof(bool)},
    [ST_T_INT] = {"int", 1, SK_INT, false, sizeof(int)},
    [ST_T_UINT] = {"uint", 1, SK_UINT, false, sizeof(unsigned)},
    [ST_T_REAL] = {"real", 1, SK_REAL, false, sizeof(double)},
    [ST_T_STRING] = {"string", 1, SK_STRING, false, sizeof(char *)},
    [ST_T_VEC3] = {"vec3", 3, SK_REAL, false, sizeof(double)},
    [ST_T_VEC2] = {"vec2", 2, SK_REAL, false, sizeof(double)},
    [ST_T_VEC4] = {"vec4", 4, SK_REAL, false, sizeof(double)},
    [ST_T_RGBA] = {"rgba", 4, SK_REAL, false, sizeof(double)},
    [ST_T_REALS] = {"real[]", 1, SK_REAL, true, sizeof(double)},
    [ST_T_UINTS] = {"uint[]", 1, SK_UINT, true, sizeof(unsigned)},
    [ST_T_VEC3S] = {"vec3[]", 3, SK_REAL, true, sizeof(double)},
    [ST_T_EDGES] = {"edges", 2, SK_UINT, true, sizeof(unsigned)},
    [ST_T_TRIANGLES] = {"triangles", 3, SK_UINT, true, sizeof(unsigned)},
    [ST_T_QUADS] = {"quads", 4, SK_UINT, true, sizeof(unsigned)},
    [ST_T_TETRAS] = {"tetrahedra", 4, SK_UINT, true, sizeof(unsigned)},
    [ST_T_HEXAS] = {"hexahedra", 8, SK_UINT, true, sizeof(unsigned)},
    [ST_T_STRINGS] = {"string[]", 1, SK_STRING, true, sizeof(char *)},
    [ST_T_LINK] = {"link", 1, SK_LINK, false, sizeof(st_component *)},
    [ST_T_COORDS] = {"coord[]", 1, SK_REAL, true, sizeof(double)},
    [ST_T_DERIVS] = {"deriv[]", 1, SK_REAL, true, sizeof(double)},
    [ST_T_MASS] = {"mass", 11, SK_REAL, false, sizeof(double)},
    [ST_T_INT2] = {"int2", 2, SK_INT, false, sizeof(int)},
    [ST_T_RIGID3S] = {"rigid3[]", 7, SK_REAL, true, sizeof(double)},
    [ST_T_QUATS] = {"quat[]", 4, SK_REAL, true, sizeof(double)},
};

static bool is_state_vec(st_type t) { return t == ST_T_COORDS || t == ST_T_DERIVS; }

/* "Rigid3d coordinates" for messages about a state vector at dst. */
static const char *state_vec_name(const st_field *f, const void *dst, char *buf, size_t size)
{
    const st_component *c = (const st_component *)((const char *)dst - f->offset);
    const st_state_type *t = st__component_parse_type(c);
    snprintf(buf, size, "%s %s", t ? t->name : "state",
             f->type == ST_T_COORDS ? "coordinates" : "derivatives");
    return buf;
}

/* Scalars per tuple of the value at dst: the type's width, or for state
 * vectors the width of the owning component's state type (dst is the member
 * inside the component: the component starts f->offset bytes before). */
static unsigned value_width(const st_field *f, const void *dst)
{
    if (!is_state_vec(f->type))
        return st_type_width(f->type);
    const st_component *c = (const st_component *)((const char *)dst - f->offset);
    return st__state_width(c, f->type);
}

bool st__type_is_index_list(st_type t)
{
    return t == ST_T_UINTS || (t >= ST_T_EDGES && t <= ST_T_HEXAS);
}

static const type_info *tinfo(st_type t)
{
    if ((unsigned)t >= ST_T_TYPE_COUNT || !types[t].name)
        return NULL;
    return &types[t];
}

size_t st__field_tuple_bytes(const st_component *c, const st_field *f)
{
    const type_info *ti = tinfo(f->type);
    if (!ti || !ti->array || ti->sk == SK_STRING)
        return 0;
    unsigned w = is_state_vec(f->type) ? st__state_width(c, f->type) : ti->width;
    return (size_t)w * ti->esize;
}

unsigned st_type_width(st_type t)
{
    const type_info *ti = tinfo(t);
    return ti ? ti->width : 0;
}

const char *st_type_name(st_type t)
{
    const type_info *ti = tinfo(t);
    return ti ? ti->name : "?";
}

/* The base fields of every component. */
const st_field st__base_fields[] = {
    ST_STRING(st_component, name, "name", NULL,
              "Name of the component; unique among its node's objects (default: ClassName1, ...)"),
    ST_BOOL(st_component, print_log, "printLog", "false",
            "Send this component's information messages to the log"),
    ST_FIELD_END};

bool st__mark_is_xml(st_mark m)
{
    size_t n = m.file ? strlen(m.file) : 0;
    return n > 4 && (!strcmp(m.file + n - 4, ".scn") || !strcmp(m.file + n - 4, ".xml"));
}

/* ---- tokens ---- */

typedef struct token {
    const char *s; /* start */
    size_t len;
    st_mark mark;
    int group;     /* index of the inner sequence this token came from, or -1 */
} token;

typedef struct tokens {
    token *t;
    size_t n, cap;
    int ngroups;
    bool nested;   /* at least one inner sequence */
} tokens;

static st_status tok_push(tokens *ts, const char *s, size_t len, st_mark m, int group,
                          st_error *err)
{
    if (ts->n == ts->cap) {
        size_t cap = ts->cap ? 2 * ts->cap : 16;
        token *t = st_realloc(ts->t, cap * sizeof *t);
        if (!t)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        ts->t = t;
        ts->cap = cap;
    }
    ts->t[ts->n++] = (token){s, len, m, group};
    return ST_OK;
}

/* Splits a scalar on white space; columns follow the text when it sits on
 * one line. */
static bool is_sep(char c, bool brackets)
{
    return isspace((unsigned char)c) || (brackets && (c == '[' || c == ']' || c == ','));
}

/* brackets: '[', ']' and ',' separate too (SOFA's matrix text in a mass). */
static st_status split_scalar(tokens *ts, const st_value *v, int group, bool brackets,
                              st_error *err)
{
    const char *p = v->text ? v->text : "";
    bool oneline = !strchr(p, '\n');
    int base = v->mark.col + (v->quoted ? 1 : 0);
    while (*p) {
        while (*p && is_sep(*p, brackets))
            p++;
        if (!*p)
            break;
        const char *s = p;
        while (*p && !is_sep(*p, brackets))
            p++;
        st_mark m = v->mark;
        if (oneline && m.line > 0)
            m.col = base + (int)(s - v->text);
        ST_TRY(tok_push(ts, s, (size_t)(p - s), m, group, err));
    }
    return ST_OK;
}

/* Flattens a value into tokens. Strings in sequences are not split. */
static st_status tokenize(tokens *ts, const st_value *v, bool split, bool brackets,
                          st_error *err)
{
    if (v->kind == ST_VAL_MAP)
        return st__error_at(err, ST_ESCENE, v->mark, "expected a value or a list, found a mapping");
    if (v->kind == ST_VAL_SCALAR) {
        if (split)
            return split_scalar(ts, v, -1, brackets, err);
        return tok_push(ts, v->text ? v->text : "", v->text ? strlen(v->text) : 0, v->mark, -1,
                        err);
    }
    for (size_t i = 0; i < v->n; i++) {
        const st_value *it = &v->items[i];
        if (it->kind == ST_VAL_SEQ) {
            int g = ts->ngroups++;
            ts->nested = true;
            for (size_t j = 0; j < it->n; j++) {
                const st_value *in = &it->items[j];
                if (in->kind != ST_VAL_SCALAR)
                    return st__error_at(err, ST_ESCENE, in->mark,
                                        "lists nest at most two levels deep ([[x, y, z], ...])");
                if (split)
                    ST_TRY(split_scalar(ts, in, g, brackets, err));
                else
                    ST_TRY(tok_push(ts, in->text, strlen(in->text), in->mark, g, err));
            }
        } else if (it->kind == ST_VAL_SCALAR) {
            if (split)
                ST_TRY(split_scalar(ts, it, -1, brackets, err));
            else
                ST_TRY(tok_push(ts, it->text, strlen(it->text), it->mark, -1, err));
        } else {
            return st__error_at(err, ST_ESCENE, it->mark, "expected a value, found a mapping");
        }
    }
    return ST_OK;
}

/* ---- scalar parsing ---- */

static bool tok_eq(const token *t, const char *s)
{
    return strlen(s) == t->len && !strncmp(t->s, s, t->len);
}

static st_status parse_scalar(const st_field *f, scalar_kind sk, const token *t, void *dst,
                              st_error *err)
{
    char buf[128];
    if (sk != SK_STRING && t->len >= sizeof buf)
        return st__error_at(err, ST_EPARSE, t->mark, "field '%s': value too long", f->name);
    if (sk != SK_STRING) {
        memcpy(buf, t->s, t->len);
        buf[t->len] = 0;
    }
    switch (sk) {
    case SK_BOOL:
        if (tok_eq(t, "true") || tok_eq(t, "True") || tok_eq(t, "TRUE") || tok_eq(t, "1")) {
            *(bool *)dst = true;
            return ST_OK;
        }
        if (tok_eq(t, "false") || tok_eq(t, "False") || tok_eq(t, "FALSE") || tok_eq(t, "0")) {
            *(bool *)dst = false;
            return ST_OK;
        }
        return st__error_at(err, ST_EPARSE, t->mark,
                            "field '%s' expects a bool (true or false), got '%s'%s", f->name, buf,
                            (!strcasecmp(buf, "yes") || !strcasecmp(buf, "no") ||
                             !strcasecmp(buf, "on") || !strcasecmp(buf, "off") ||
                             !strcasecmp(buf, "y") || !strcasecmp(buf, "n"))
                                ? " (YAML 1.1 words are not booleans here: write true or false)"
                                : "");
    case SK_INT:
    case SK_UINT: {
        char *end;
        errno = 0;
        if (sk == SK_UINT && buf[0] == '-')
            return st__error_at(err, ST_EPARSE, t->mark,
                                "field '%s' expects an unsigned integer, got '%s'", f->name, buf);
        long long x = strtoll(buf, &end, 10);
        if (!buf[0] || *end || errno) {
            /* Say why a number is refused: "1e10", "2.5", "99999999999999999999". */
            char *rend;
            double r = strtod(buf, &rend);
            const char *why = "";
            if (buf[0] && !*rend && isfinite(r))
                why = r != floor(r) ? " (not a whole number)"
                                    : (errno == ERANGE || fabs(r) > 4294967295.0)
                                          ? " (out of range: at most 32 bits)"
                                          : " (write it without a decimal point or exponent)";
            return st__error_at(err, ST_EPARSE, t->mark,
                                "field '%s' expects %s integer, got '%s'%s", f->name,
                                sk == SK_UINT ? "an unsigned" : "an", buf, why);
        }
        if (sk == SK_INT) {
            if (x < -2147483647LL - 1 || x > 2147483647LL)
                return st__error_at(err, ST_EPARSE, t->mark, "field '%s': %s is out of range",
                                    f->name, buf);
            *(int *)dst = (int)x;
        } else {
            if (x > 4294967295LL)
                return st__error_at(err, ST_EPARSE, t->mark, "field '%s': %s is out of range",
                                    f->name, buf);
            *(unsigned *)dst = (unsigned)x;
        }
        if (f->min < f->max && !(f->flags & ST_F_COUNT) && ((double)x < f->min || (double)x > f->max))
            return st__error_at(err, ST_EINVAL, t->mark, "field '%s' must be in [%g, %g], got %s",
                                f->name, f->min, f->max, buf);
        return ST_OK;
    }
    case SK_REAL: {
        char *end;
        errno = 0;
        double x = strtod(buf, &end);
        if (!buf[0] || *end)
            return st__error_at(err, ST_EPARSE, t->mark, "field '%s' expects a real number, got '%s'",
                                f->name, buf);
        if (!isfinite(x))
            return st__error_at(err, ST_EPARSE, t->mark,
                                "field '%s' expects a finite real number, got '%s'%s", f->name,
                                buf, isnan(x) || isinf(x) ? "" : " (too large for a double)");
        if (f->min < f->max && !(f->flags & ST_F_COUNT) && (x < f->min || x > f->max))
            return st__error_at(err, ST_EINVAL, t->mark, "field '%s' must be in [%g, %g], got %s",
                                f->name, f->min, f->max, buf);
        *(double *)dst = x;
        return ST_OK;
    }
    case SK_STRING: {
        char *s = st_malloc(t->len + 1);
        if (!s)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        memcpy(s, t->s, t->len);
        s[t->len] = 0;
        *(char **)dst = s;
        return ST_OK;
    }
    case SK_LINK:
        break;
    }
    return st_error_set(err, ST_EINTERNAL, "field '%s': unexpected type", f->name);
}

/* ---- arrays ---- */

static void array_free_data(st_array *a, st_type t)
{
    if (a->cap == 0) { /* borrowed or empty */
        a->n = 0;
        return;
    }
    if (t == ST_T_STRINGS)
        for (size_t i = 0; i < a->n; i++)
            st_free(a->s[i]);
    st_free(a->p);
    a->p = NULL;
    a->n = a->cap = 0;
}

void st_array_free(st_array *a, st_type t)
{
    if (!a)
        return;
    if (a->cap == 0) {
        a->p = NULL;
        a->n = 0;
        return;
    }
    array_free_data(a, t);
}

static st_status array_resize(st_array *a, st_type t, size_t tuple, size_t n, st_error *err);

st_status st_array_resize(st_array *a, st_type t, size_t n, st_error *err)
{
    const type_info *ti = tinfo(t);
    if (!ti || !ti->array)
        return st_error_set(err, ST_EINVAL, "st_array_resize: not an array type");
    return array_resize(a, t, ti->width * ti->esize, n, err);
}

st_status st_array_resize_width(st_array *a, unsigned width, size_t n, st_error *err)
{
    if (!width)
        return st_error_set(err, ST_EINVAL, "st_array_resize_width: width 0");
    return array_resize(a, ST_T_REALS, width * sizeof(double), n, err);
}

static st_status array_resize(st_array *a, st_type t, size_t tuple, size_t n, st_error *err)
{
    if (a->cap == 0 && a->p) { /* borrowed: only its own size fits */
        if (n == a->n)
            return ST_OK;
        return st_error_set(err, ST_ESTATE,
                            "cannot resize an array bound to a mechanical system (%zu -> %zu)", a->n,
                            n);
    }
    if (t == ST_T_STRINGS)
        for (size_t i = n; i < a->n; i++) {
            st_free(a->s[i]);
            a->s[i] = NULL;
        }
    if (n > a->cap) {
        void *p = n <= SIZE_MAX / tuple ? st_realloc(a->p, n * tuple) : NULL;
        if (!p)
            return st_error_set(err, ST_ENOMEM, "out of memory (%zu elements of %zu bytes: %.3g GB)",
                                n, tuple, (double)n * (double)tuple / 1e9);
        a->p = p;
        a->cap = n;
    }
    if (n > a->n)
        memset((char *)a->p + a->n * tuple, 0, (n - a->n) * tuple);
    a->n = n;
    if (n == 0 && a->cap) {
        st_free(a->p);
        a->p = NULL;
        a->cap = 0;
    }
    return ST_OK;
}

/* ---- colours ---- */

/* SOFA's named colours (RGBAColor). */
static const struct {
    const char *name;
    float rgba[4];
} colours[] = {
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

bool st_colour_by_name(const char *name, double rgba[4])
{
    for (size_t k = 0; name && k < sizeof colours / sizeof colours[0]; k++)
        if (strcmp(name, colours[k].name) == 0) {
            for (int i = 0; i < 4; i++)
                if (rgba)
                    rgba[i] = colours[k].rgba[i];
            return true;
        }
    return false;
}

static int hexdigit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* An RGBA colour as SOFA reads one: three or four reals (alpha 1), "#rgb",
 * "#rgba", "#rrggbb", "#rrggbbaa", or a colour name. SOFA stores floats, so
 * values are rounded through float to give SOFA's numbers. */
static st_status parse_rgba(const st_field *f, const tokens *ts, const st_value *v, void *dst,
                            st_error *err)
{
    double c[4] = {0, 0, 0, 1};
    if (ts->n == 1 && ts->t[0].len && ts->t[0].s[0] == '#') {
        const token *t = &ts->t[0];
        size_t nd = t->len - 1;
        bool ok = nd == 3 || nd == 4 || nd == 6 || nd == 8;
        for (size_t i = 1; ok && i < t->len; i++)
            ok = hexdigit(t->s[i]) >= 0;
        if (!ok)
            return st__error_at(err, ST_EPARSE, t->mark,
                                "field '%s' expects a colour: #rgb, #rgba, #rrggbb or #rrggbbaa, "
                                "got '%.*s'",
                                f->name, (int)(t->len > 40 ? 40 : t->len), t->s);
        bool one = nd <= 4;
        for (size_t k = 0; k < (one ? nd : nd / 2); k++) {
            int x = one ? hexdigit(t->s[1 + k]) * 17
                        : hexdigit(t->s[1 + 2 * k]) * 16 + hexdigit(t->s[2 + 2 * k]);
            c[k] = st_float_round(x / 255.0f);
        }
    } else if (ts->n == 1 && ts->t[0].len && isalpha((unsigned char)ts->t[0].s[0])) {
        const token *t = &ts->t[0];
        size_t k = 0, nc = sizeof colours / sizeof colours[0];
        while (k < nc && !tok_eq(t, colours[k].name))
            k++;
        if (k == nc) {
            const char *names[sizeof colours / sizeof colours[0]], *sugg[1];
            char buf[64];
            for (size_t i = 0; i < nc; i++)
                names[i] = colours[i].name;
            snprintf(buf, sizeof buf, "%.*s", (int)(t->len > 40 ? 40 : t->len), t->s);
            size_t ns = st__suggest(buf, names, nc, sugg, 1);
            return st__error_at(err, ST_EPARSE, t->mark,
                                "field '%s' expects a colour (\"r g b a\", \"#rrggbb\" or a name "
                                "such as red), got '%s'%s%s%s",
                                f->name, buf, ns ? " (did you mean '" : "", ns ? sugg[0] : "",
                                ns ? "'?)" : "");
        }
        for (int i = 0; i < 4; i++)
            c[i] = colours[k].rgba[i];
    } else {
        if (ts->n != 3 && ts->n != 4)
            return st__error_at(err, ST_EPARSE, v->mark,
                                "field '%s' expects a colour: 3 or 4 reals (r g b [a]), "
                                "\"#rrggbb\" or a name, got %zu values",
                                f->name, ts->n);
        for (size_t i = 0; i < ts->n; i++) {
            ST_TRY(parse_scalar(f, SK_REAL, &ts->t[i], &c[i], err));
            c[i] = st_float_round(c[i]);
        }
    }
    memcpy(dst, c, sizeof c);
    return ST_OK;
}

/* ---- masses ---- */

/* Where a parse may note what it read when the text says more or less. */
typedef struct pctx {
    bool sofa;            /* SOFA's reading (a .scn/.xml value) */
    bool scene;           /* a scene's text (.scn, or a YAML string), not a list or the API's */
    st_field_note *note;  /* may be NULL */
} pctx;

static void note_at(const pctx *pc, st_mark m, const char *fmt, ...) ST_PRINTF(3, 4);
static void note_at(const pctx *pc, st_mark m, const char *fmt, ...)
{
    if (!pc->note || pc->note->msg[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pc->note->msg, sizeof pc->note->msg, fmt, ap);
    va_end(ap);
    pc->note->mark = m;
}

/* "m" (volume 1, identity inertia), "m volume I" (Rigid2d) or "m volume I00 ... I22"; SOFA's text
 * (a .scn value) may bracket the matrix and separate its rows with commas,
 * and SOFA's reader leaves values after the eleventh unread. */
static st_status parse_mass(const st_field *f, const tokens *ts, const st_value *v, void *dst,
                            const pctx *pc, st_error *err)
{
    size_t n = ts->n;
    if (pc->sofa && n > 11) {
        note_at(pc, ts->t[11].mark,
                "field '%s': a rigid mass is the mass, the volume and a 3x3 inertia matrix (11 "
                "values); the %zu value%s after them %s ignored, as SOFA does",
                f->name, n - 11, n - 11 == 1 ? "" : "s", n - 11 == 1 ? "is" : "are");
        n = 11;
    }
    if (n != 1 && n != 3 && n != 11)
        return st__error_at(err, ST_EPARSE, v->mark,
                            "field '%s' expects a mass: one real, or (rigid bodies) the mass, "
                            "the volume and a 3x3 inertia matrix (11 reals, SOFA writes \"m v "
                            "[a b c, d e f, g h i]\"), or (Rigid2d) the mass, the volume and "
                            "the scalar inertia (3 reals), got %zu values",
                            f->name, ts->n);
    st_mass_value m = {0.0, 1.0, {1, 0, 0, 0, 1, 0, 0, 0, 1}};
    if (n == 3) /* SOFA's Rigid2Mass "m v I": I is inertia[0], the rest 0 (not a 3D inertia) */
        for (int i = 1; i < 9; i++)
            m.inertia[i] = 0.0;
    double *p = &m.mass;
    for (size_t i = 0; i < n; i++)
        ST_TRY(parse_scalar(f, SK_REAL, &ts->t[i], i == 0 ? p : i == 1 ? &m.volume
                                                                    : &m.inertia[i - 2], err));
    memcpy(dst, &m, sizeof m);
    return ST_OK;
}

/* Length of the leading integer of t ("1e4" -> 1, "2.5" -> 1), 0 when t
 * does not start with one or is all integer: what an istream reads. */
static size_t int_prefix(const token *t, bool is_unsigned)
{
    size_t i = 0;
    if (i < t->len && (t->s[i] == '+' || (!is_unsigned && t->s[i] == '-')))
        i++;
    size_t d = i;
    while (i < t->len && isdigit((unsigned char)t->s[i]))
        i++;
    return i > d && i < t->len ? i : 0;
}

/* True when a mass has the default volume and inertia (printed as one value). */
static bool mass_is_plain(const st_mass_value *m)
{
    static const double id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    return m->volume == 1.0 && !memcmp(m->inertia, id, sizeof id);
}

/* Length of the longest leading real number of s[0..len) as strtod reads
 * it, 0 when there is none. */
static size_t real_prefix(const char *s, size_t len)
{
    char buf[128];
    if (len == 0 || len >= sizeof buf)
        return 0;
    memcpy(buf, s, len);
    buf[len] = 0;
    char *end;
    (void)strtod(buf, &end);
    return (size_t)(end - buf);
}

/* Length of the leading real number of t ("10-3" -> 2, "1.5e2x" -> 5), 0
 * when t does not start with one or is all number: what an istream reads
 * for one real. */
static size_t leading_real(const token *t)
{
    size_t k = real_prefix(t->s, t->len);
    /* strtod also reads "inf" and "nan": SOFA's istream does not. */
    if (k == 0 || k >= t->len || !(isdigit((unsigned char)t->s[k - 1]) || t->s[k - 1] == '.'))
        return 0;
    return k;
}

/* SOFA reads reals from a stream, so text where two numbers touch at a sign
 * ("0-0.707107") gives both numbers. In SOFA's reading, a token that is a
 * run of whole numbers each starting with '+' or '-' after the first is
 * split into them, with a note; anything else is left for the parser to
 * refuse. */
static st_status split_glued_reals(const st_field *f, tokens *ts, const pctx *pc, st_error *err)
{
    for (size_t i = 0; i < ts->n; i++) {
        token t = ts->t[i];
        size_t k = real_prefix(t.s, t.len);
        if (k == 0 || k == t.len || (t.s[k] != '-' && t.s[k] != '+'))
            continue;
        /* The rest must be numbers too, each ending at a sign or the end. */
        size_t pos = k;
        bool whole = true;
        while (pos < t.len) {
            size_t q = real_prefix(t.s + pos, t.len - pos);
            if (q == 0 || (pos + q < t.len && t.s[pos + q] != '-' && t.s[pos + q] != '+')) {
                whole = false;
                break;
            }
            pos += q;
        }
        if (!whole)
            continue;
        note_at(pc, t.mark,
                "field '%s': '%.*s' read as %.*s and %.*s (numbers touching at a sign), as "
                "SOFA's stream reading does; put a space between them",
                f->name, (int)(t.len > 40 ? 40 : t.len), t.s, (int)k, t.s,
                (int)(t.len - k > 40 ? 40 : t.len - k), t.s + k);
        /* Token i keeps the first number; the others are inserted after it. */
        ts->t[i].len = k;
        pos = k;
        size_t at = i + 1;
        while (pos < t.len) {
            size_t q = real_prefix(t.s + pos, t.len - pos);
            st_mark m = t.mark;
            if (m.line > 0)
                m.col += (int)pos;
            ST_TRY(tok_push(ts, t.s + pos, q, m, t.group, err));
            token moved = ts->t[ts->n - 1];
            memmove(&ts->t[at + 1], &ts->t[at], (ts->n - 1 - at) * sizeof *ts->t);
            ts->t[at++] = moved;
            pos += q;
        }
        i = at - 1;
    }
    return ST_OK;
}

/* ---- public entry points ---- */

static st_status parse_tokens(const st_field *f, const type_info *ti, tokens *ts,
                              const st_value *v, void *dst, const pctx *pc, st_error *err)
{
    const unsigned width = value_width(f, dst);
    if (!ti->array) {
        bool number = ti->sk == SK_INT || ti->sk == SK_UINT || ti->sk == SK_REAL;
        if (ti->width == 1 && pc->sofa && number && ts->n > 1) {
            /* SOFA reads one number from the text and leaves the rest. */
            note_at(pc, ts->t[1].mark,
                    "field '%s' holds one value: read the first, %.*s, and ignored the %zu "
                    "after it, as SOFA does",
                    f->name, (int)(ts->t[0].len > 40 ? 40 : ts->t[0].len), ts->t[0].s,
                    ts->n - 1);
            ts->n = 1;
        }
        if (ti->width == 1 && pc->sofa && (ti->sk == SK_INT || ti->sk == SK_UINT) &&
            ts->n == 1) {
            token *t = &ts->t[0];
            size_t k = int_prefix(t, ti->sk == SK_UINT);
            if (k) {
                note_at(pc, t->mark,
                        "field '%s' expects an integer: read '%.*s' as %.*s, as SOFA does (it "
                        "reads the leading digits); write the whole number if another value "
                        "is meant",
                        f->name, (int)(t->len > 40 ? 40 : t->len), t->s, (int)k, t->s);
                t->len = k;
            }
        }
        if (ti->width == 1 && pc->sofa && ti->sk == SK_REAL && ts->n == 1) {
            token *t = &ts->t[0];
            size_t k = leading_real(t);
            if (k) {
                note_at(pc, t->mark,
                        "field '%s' expects a real number: read '%.*s' as %.*s, as SOFA does (it "
                        "reads the leading number); write it whole (1e-3, not 10-3) if another "
                        "value is meant",
                        f->name, (int)(t->len > 40 ? 40 : t->len), t->s, (int)k, t->s);
                t->len = k;
            }
        }
        if (ti->width == 1) {
            if (ts->n != 1)
                return st__error_at(err, ST_EPARSE, v->mark,
                                    "field '%s' expects one %s value, got %zu", f->name, ti->name,
                                    ts->n);
            if (ti->sk == SK_STRING) {
                char *s = NULL;
                ST_TRY(parse_scalar(f, SK_STRING, &ts->t[0], &s, err));
                st_free(*(char **)dst);
                *(char **)dst = s;
                return ST_OK;
            }
            return parse_scalar(f, ti->sk, &ts->t[0], dst, err);
        }
        if (f->type == ST_T_RGBA)
            return parse_rgba(f, ts, v, dst, err);
        if (f->type == ST_T_MASS)
            return parse_mass(f, ts, v, dst, pc, err);
        if (ts->n != ti->width)
            return st__error_at(err, ST_EPARSE, v->mark,
                                "field '%s' expects %u %s (%s), got %zu value%s", f->name,
                                ti->width, ti->sk == SK_INT ? "integers" : "reals", ti->name,
                                ts->n, ts->n == 1 ? "" : "s");
        if (ti->sk == SK_INT) {
            int itmp[2];
            for (size_t i = 0; i < ts->n; i++)
                ST_TRY(parse_scalar(f, SK_INT, &ts->t[i], &itmp[i], err));
            memcpy(dst, itmp, ti->width * sizeof(int));
            return ST_OK;
        }
        double tmp[4];
        for (size_t i = 0; i < ts->n; i++)
            ST_TRY(parse_scalar(f, SK_REAL, &ts->t[i], &tmp[i], err));
        memcpy(dst, tmp, ti->width * sizeof(double));
        return ST_OK;
    }
    /* Arrays: check tuple structure. */
    char tn[64];
    if (pc->scene && ts->n % width && width > 1 && !ts->nested) {
        /* SOFA reads whole tuples and drops a partial last one. */
        size_t keep = ts->n - ts->n % width;
        note_at(pc, ts->t[keep].mark,
                "field '%s' expects %s (%u values each): read %zu whole, dropped the last %zu "
                "value%s of %zu (SOFA's reading of a value's text, in .scn and YAML scenes alike)",
                f->name,
                is_state_vec(f->type) ? state_vec_name(f, dst, tn, sizeof tn) : ti->name, width,
                keep / width, ts->n - keep, ts->n - keep == 1 ? "" : "s", ts->n);
        ts->n = keep;
    }
    if (ts->n % width)
        return st__error_at(err, ST_EPARSE, v->mark,
                            "field '%s' expects %s: a multiple of %u values, got %zu", f->name,
                            is_state_vec(f->type) ? state_vec_name(f, dst, tn, sizeof tn) : ti->name,
                            width, ts->n);
    if (ts->nested && width > 1) {
        /* Each inner list is one tuple. */
        size_t i = 0;
        while (i < ts->n) {
            int g = ts->t[i].group;
            size_t j = i;
            while (j < ts->n && ts->t[j].group == g)
                j++;
            if (g < 0 || j - i != width)
                return st__error_at(err, ST_EPARSE, ts->t[i].mark,
                                    "field '%s' expects %s: each inner list holds %u values",
                                    f->name, ti->name, width);
            i = j;
        }
    }
    st_array tmp = {{NULL}, 0, 0};
    size_t n = ts->n / width;
    if ((f->flags & ST_F_COUNT) && ((double)n < f->min || (double)n > f->max)) {
        if (f->min == f->max)
            return st__error_at(err, ST_EINVAL, v->mark,
                                "field '%s' expects exactly %g %s, got %zu", f->name, f->min,
                                width == 1 ? "values" : "tuples", n);
        return st__error_at(err, ST_EINVAL, v->mark,
                            "field '%s' expects between %g and %g %s, got %zu", f->name, f->min,
                            f->max, width == 1 ? "values" : "tuples", n);
    }
    if (n) {
        tmp.p = st_calloc(n, width * ti->esize);
        if (!tmp.p)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        tmp.cap = n;
        tmp.n = 0;
        for (size_t i = 0; i < ts->n; i++) {
            st_status s = parse_scalar(f, ti->sk, &ts->t[i], (char *)tmp.p + i * ti->esize, err);
            if (s != ST_OK) {
                tmp.n = ti->sk == SK_STRING ? i : 0;
                array_free_data(&tmp, f->type);
                return s;
            }
        }
        tmp.n = n;
    }
    st_array *a = dst;
    if (a->cap == 0 && a->p) { /* borrowed memory: copy in place */
        if (a->n != n) {
            array_free_data(&tmp, f->type);
            return st__error_at(err, ST_ESTATE, v->mark,
                                "field '%s' is bound to a solver's vectors: %zu values needed, got %zu",
                                f->name, a->n, n);
        }
        if (n)
            memcpy(a->p, tmp.p, n * width * ti->esize);
        array_free_data(&tmp, f->type);
        return ST_OK;
    }
    array_free_data(a, f->type);
    *a = tmp;
    return ST_OK;
}

/* Index lists read SOFA's ranges (its vector<unsigned>::read): "A-B" is
 * every integer from A to B (either way), "A-B-S" every S-th, a negative
 * step walking down and ending on B. The expanded numbers are written into
 * *buf (owned by the caller) and replace the range tokens. */
#define RANGE_MAX 50000000ul /* entries one list may expand to */

static bool range_part(const char *s, size_t len, long long *out)
{
    char tmp[32], *end;
    if (!len || len >= sizeof tmp)
        return false;
    memcpy(tmp, s, len);
    tmp[len] = 0;
    errno = 0;
    *out = strtoll(tmp, &end, 10);
    return !*end && !errno;
}

static st_status expand_ranges(const st_field *f, tokens *ts, char **buf, st_error *err)
{
    size_t total = 0, nrange = 0;
    typedef struct rng { long long a, b, step; } rng;
    rng *r = NULL;
    for (size_t i = 0; i < ts->n; i++) {
        const token *t = &ts->t[i];
        const char *h = t->len > 1 ? memchr(t->s + 1, '-', t->len - 1) : NULL;
        if (!h)
            continue;
        nrange++;
    }
    if (!nrange)
        return ST_OK;
    r = st_calloc(ts->n, sizeof *r);
    if (!r)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t i = 0; i < ts->n; i++) {
        const token *t = &ts->t[i];
        const char *h = t->len > 1 ? memchr(t->s + 1, '-', t->len - 1) : NULL;
        if (!h) {
            total++;
            r[i].step = 0;
            continue;
        }
        const char *end = t->s + t->len;
        const char *h2 = h + 2 < end ? memchr(h + 2, '-', (size_t)(end - h - 2)) : NULL;
        long long a, b, step = 0;
        bool ok = range_part(t->s, (size_t)(h - t->s), &a) &&
                  range_part(h + 1, (size_t)((h2 ? h2 : end) - h - 1), &b) &&
                  (!h2 || range_part(h2 + 1, (size_t)(end - h2 - 1), &step)) && a >= 0 && b >= 0;
        if (!ok) {
            st_free(r);
            return st__error_at(err, ST_EPARSE, t->mark,
                                "field '%s' expects unsigned integers or ranges A-B or A-B-step "
                                "(SOFA's index ranges), got '%.*s'",
                                f->name, (int)(t->len > 60 ? 60 : t->len), t->s);
        }
        if (step == 0)
            step = a <= b ? 1 : -1;
        else if ((b - a) * step < 0) { /* SOFA swaps the ends */
            long long tmp = a;
            a = b;
            b = tmp;
        }
        unsigned long long n = step > 0 ? (unsigned long long)((b - a) / step) + 1
                                        : (unsigned long long)((a - b) / -step) + 1 +
                                              ((a - b) % -step != 0);
        if (n > RANGE_MAX || total + n > RANGE_MAX) {
            st_free(r);
            return st__error_at(err, ST_EINVAL, t->mark,
                                "field '%s': the range '%.*s' has %llu indices, more than the %lu "
                                "a list may hold",
                                f->name, (int)(t->len > 60 ? 60 : t->len), t->s, n, RANGE_MAX);
        }
        r[i] = (rng){a, b, step};
        total += n;
    }
    /* Every number as text, 11 bytes each at most ("4294967295" and a NUL). */
    tokens out = {0};
    char *text = st_malloc(total * 11 + 1);
    token *nt = st_malloc((total ? total : 1) * sizeof *nt);
    if (!text || !nt) {
        st_free(r), st_free(text), st_free(nt);
        return st_error_set(err, ST_ENOMEM, "out of memory expanding index ranges");
    }
    out.t = nt;
    out.cap = total ? total : 1;
    size_t pos = 0;
    for (size_t i = 0; i < ts->n; i++) {
        const token *t = &ts->t[i];
        if (!r[i].step) {
            out.t[out.n++] = *t;
            continue;
        }
        long long a = r[i].a, b = r[i].b, step = r[i].step;
        for (long long x = a; step > 0 ? x <= b : x > b; x += step) {
            int k = snprintf(text + pos, 11, "%lld", x);
            out.t[out.n++] = (token){text + pos, (size_t)k, t->mark, t->group};
            pos += (size_t)k + 1;
        }
        if (step < 0) {
            int k = snprintf(text + pos, 11, "%lld", b);
            out.t[out.n++] = (token){text + pos, (size_t)k, t->mark, t->group};
            pos += (size_t)k + 1;
        }
    }
    st_free(r);
    st_free(ts->t);
    out.ngroups = ts->ngroups;
    out.nested = ts->nested;
    *ts = out;
    *buf = text;
    return ST_OK;
}

st_status st__field_parse(const st_field *f, const st_value *v, void *dst, st_error *err)
{
    return st__field_parse_sofa(f, v, dst, ST_READ_API, NULL, err);
}

st_status st__field_parse_sofa(const st_field *f, const st_value *v, void *dst, st_reading how,
                               st_field_note *note, st_error *err)
{
    bool sofa = how == ST_READ_SOFA;
    /* SOFA's reading is of text: in YAML a value written as one string
     * ("0 0 0 1 0 0 2"), not a YAML list, which stays exact. */
    pctx pc = {sofa, how == ST_READ_SOFA || (how == ST_READ_SCENE && v->kind == ST_VAL_SCALAR),
               note};
    if (note)
        note->msg[0] = 0;
    const type_info *ti = tinfo(f->type);
    if (!ti || ti->sk == SK_LINK)
        return st_error_set(err, ST_EINTERNAL, "field '%s' cannot be parsed as data", f->name);
    bool split = !(ti->sk == SK_STRING && (!ti->array || v->kind == ST_VAL_SEQ));
    if (!ti->array && ti->width == 1 && v->kind == ST_VAL_SEQ)
        return st__error_at(err, ST_EPARSE, v->mark, "field '%s' expects one %s value, got a list",
                            f->name, ti->name);
    tokens ts = {0};
    char *buf = NULL;
    bool brackets = sofa && v->kind == ST_VAL_SCALAR &&
                    (f->type == ST_T_MASS || (f->type == ST_T_REALS && (f->flags & ST_F_BRACKETS)));
    /* (ST_F_BRACKETS: SOFA's Mat and RigidMass text) */
    st_status s = tokenize(&ts, v, split, brackets, err);
    /* Lists of reals split numbers touching at a sign; one real reads its
     * leading number (parse_tokens), as SOFA's stream does for each. */
    if (s == ST_OK && sofa && ti->sk == SK_REAL && (ti->array || ti->width > 1))
        s = split_glued_reals(f, &ts, &pc, err);
    if (s == ST_OK && f->type == ST_T_UINTS)
        s = expand_ranges(f, &ts, &buf, err);
    if (s == ST_OK) /* an unsplit scalar always gives one token, even "" */
        s = parse_tokens(f, ti, &ts, v, dst, &pc, err);
    st_free(ts.t);
    st_free(buf);
    return s;
}

void st__field_free(const st_field *f, void *dst)
{
    const type_info *ti = tinfo(f->type);
    if (!ti)
        return;
    if (ti->array)
        st_array_free(dst, f->type);
    else if (ti->sk == SK_STRING) {
        st_free(*(char **)dst);
        *(char **)dst = NULL;
    }
}

st_status st__field_set_default(const st_field *f, void *dst, st_error *err)
{
    const type_info *ti = tinfo(f->type);
    if (!ti)
        return st_error_set(err, ST_EINTERNAL, "field '%s' has an unknown type", f->name);
    if (ti->sk == SK_LINK) {
        *(st_component **)dst = NULL;
        return ST_OK;
    }
    if (!f->def) {
        if (ti->array) {
            st_array *a = dst;
            if (!(a->cap == 0 && a->p))
                st_array_free(a, f->type);
            else
                a->n = 0;
        } else if (ti->sk == SK_STRING) {
            st_free(*(char **)dst);
            *(char **)dst = NULL;
        } else {
            memset(dst, 0, ti->width * ti->esize);
        }
        return ST_OK;
    }
    if (is_state_vec(f->type) && f->def[0]) {
        /* A state vector's default is one point, whatever the type: zero
         * (derivatives) or the type's identity (coordinates), as the
         * kernel's reshaping gives once the type is known. */
        const st_component *c = (const st_component *)((const char *)dst - f->offset);
        const st_state_type *t = st__component_parse_type(c);
        unsigned w = value_width(f, dst);
        st_array *a = dst;
        ST_TRY(st_array_resize_width(a, w, 1, err));
        for (unsigned k = 0; k < w; k++)
            a->r[k] = f->type == ST_T_COORDS && t && t->coord_size == w ? t->identity[k] : 0.0;
        return ST_OK;
    }
    st_value v = {ST_VAL_SCALAR, f->def, false, NULL, 0, ST_NO_MARK};
    st_status s = st__field_parse(f, &v, dst, err);
    if (s != ST_OK)
        st_error_prefix(err, "default of ");
    return s;
}

st_status st__field_copy(const st_field *f, void *dst, const st_field *sf, const void *src,
                         st_error *err)
{
    const type_info *ti = tinfo(f->type);
    if (!ti)
        return st_error_set(err, ST_EINTERNAL, "bad field type");
    if (ti->sk == SK_LINK) {
        *(st_component **)dst = *(st_component *const *)src;
        return ST_OK;
    }
    if (!ti->array) {
        if (ti->sk == SK_STRING && sf && sf->type != f->type) {
            /* Another type into a string: its text, as SOFA's
             * genericCopyValueFrom (getValueString, then read). */
            char text[8192];
            char *d = st_strdup(st__field_format(sf, src, text, sizeof text));
            if (!d)
                return st_error_set(err, ST_ENOMEM, "out of memory");
            st_free(*(char **)dst);
            *(char **)dst = d;
            return ST_OK;
        }
        if (ti->sk == SK_STRING) {
            const char *s = *(char *const *)src;
            char *d = s ? st_strdup(s) : NULL;
            if (s && !d)
                return st_error_set(err, ST_ENOMEM, "out of memory");
            st_free(*(char **)dst);
            *(char **)dst = d;
        } else {
            memcpy(dst, src, ti->width * ti->esize);
        }
        return ST_OK;
    }
    st_array *d = dst;
    if (sf && f->type == ST_T_UINTS && (sf->type == ST_T_UINT || sf->type == ST_T_INT)) {
        /* One index into an index list (SOFA converts through the text:
         * RestShapeSpringsForceField points="@controller.indexFirstNode"):
         * a list of that one index. */
        long v = sf->type == ST_T_UINT ? (long)*(const unsigned *)src : (long)*(const int *)src;
        if (v < 0)
            return st_error_set(err, ST_ELINK,
                                "the source holds %ld, not an index (an integer >= 0) for field "
                                "'%s'",
                                v, f->name);
        ST_TRY(array_resize(d, f->type, ti->esize, 1, err));
        d->u[0] = (unsigned)v;
        return ST_OK;
    }
    const st_array *a = src;
    if (d == a)
        return ST_OK;
    if (f->type == ST_T_STRINGS) {
        st_array_free(d, f->type);
        ST_TRY(st_array_resize(d, f->type, a->n, err));
        for (size_t i = 0; i < a->n; i++) {
            d->s[i] = st_strdup(a->s[i] ? a->s[i] : "");
            if (!d->s[i])
                return st_error_set(err, ST_ENOMEM, "out of memory");
        }
        return ST_OK;
    }
    /* A vec3[] and a state's coord[] or deriv[] copy into each other when
     * their points have the same size: never a Rigid3d coordinate read as
     * vec3 values. */
    unsigned dw = value_width(f, dst), sw = sf ? value_width(sf, src) : dw;
    if (sw != dw && sf && st__type_is_index_list(f->type) && st__type_is_index_list(sf->type)) {
        /* Index lists of different widths (SOFA converts them through their
         * text: "@roi.trianglesInROI" into an index list gives the
         * triangles' vertices in order); the count must make whole
         * elements of the destination. */
        size_t scalars = a->n * sw;
        if (scalars % dw)
            return st_error_set(err, ST_ELINK,
                                "the source holds %zu indices, not a whole number of %s (%u "
                                "each) for field '%s'",
                                scalars, st_type_name(f->type), dw, f->name);
        ST_TRY(array_resize(d, f->type, dw * ti->esize, scalars / dw, err));
        if (scalars)
            memcpy(d->p, a->p, scalars * ti->esize);
        return ST_OK;
    }
    if (sw != dw && sf && f->type == ST_T_REALS && dw == 1 && is_state_vec(sf->type) &&
        sw == 7) {
        /* A plain list of reals from Rigid3d frames (DisplacementTransformEngine
         * x0="@Bones.rest_position", a Rigid3 list in SOFA): every value in
         * order, as SOFA's typed copy gives them. From Vec states the rule
         * below applies (SOFA's genericCopyValueFrom into a real list: each
         * point's first coordinate, as DataDisplay and MergeVectors read). */
        size_t scalars = a->n * sw;
        ST_TRY(array_resize(d, f->type, ti->esize, scalars, err));
        if (scalars)
            memcpy(d->p, a->p, scalars * ti->esize);
        return ST_OK;
    }
    if (sf && tinfo(sf->type) && (ti->sk == SK_REAL) != (tinfo(sf->type)->sk == SK_REAL)) {
        /* Reals from indices, or indices from reals (SOFA's
         * genericCopyValueFrom: one element per source element, its first
         * min(sw, dw) values converted; a real that is no index is an
         * error here, where SOFA truncates it). */
        unsigned w = sw < dw ? sw : dw;
        ST_TRY(array_resize(d, f->type, dw * ti->esize, a->n, err));
        if (a->n)
            memset(d->p, 0, a->n * dw * ti->esize);
        for (size_t i = 0; i < a->n; i++)
            for (unsigned k = 0; k < w; k++) {
                if (ti->sk == SK_REAL) {
                    d->r[(size_t)dw * i + k] = (double)a->u[(size_t)sw * i + k];
                    continue;
                }
                double v = a->r[(size_t)sw * i + k];
                if (!(v >= 0 && v <= 4294967295.0) || v != (double)(unsigned)v)
                    return st_error_set(err, ST_ELINK,
                                        "value %zu of the source, %g, is not an index (an "
                                        "integer >= 0) for field '%s'",
                                        (size_t)sw * i + k, v, f->name);
                d->u[(size_t)dw * i + k] = (unsigned)v;
            }
        return ST_OK;
    }
    if (sw != dw && sf && ti->sk == SK_REAL && tinfo(sf->type) && tinfo(sf->type)->sk == SK_REAL) {
        /* Points of another size (SOFA's genericCopyValueFrom: a Vec3d
         * position into a Rigid3d state, or back): one point per source
         * point, each taking the first min(sw, dw) values; its other values
         * stay as they were, a new point's being the state type's origin
         * (a rigid frame, rigid3[] included: the identity rotation; a
         * quat[]: the identity). */
        size_t old = d->n;
        ST_TRY(array_resize(d, f->type, dw * ti->esize, a->n, err));
        const double *origin = NULL;
        if (f->type == ST_T_COORDS) {
            const st_component *c = (const st_component *)((const char *)dst - f->offset);
            const st_state_type *t = c->kernel ? st__component_parse_type(c) : NULL;
            origin = t && t->coord_size == dw ? t->identity : NULL;
        } else if (f->type == ST_T_RIGID3S) {
            origin = st_rigid3d_type.identity;
        } else if (f->type == ST_T_QUATS) {
            origin = st_rigid3d_type.identity + 3;
        }
        unsigned w = sw < dw ? sw : dw;
        for (size_t i = 0; i < a->n; i++) {
            double *q = d->r + (size_t)dw * i;
            if (i >= old && origin)
                memcpy(q, origin, dw * sizeof *q);
            memcpy(q, a->r + (size_t)sw * i, w * sizeof *q);
        }
        return ST_OK;
    }
    if (sw != dw)
        return st_error_set(err, ST_ELINK,
                            "the source holds %u values per point, field '%s' takes %u (different "
                            "state types)",
                            sw, f->name, dw);
    size_t scalars = a->n * sw;
    ST_TRY(array_resize(d, f->type, dw * ti->esize, a->n, err));
    if (scalars)
        memcpy(d->p, a->p, scalars * ti->esize);
    return ST_OK;
}

static void append(char *buf, size_t size, size_t *len, const char *fmt, ...) ST_PRINTF(4, 5);
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    if (*len >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    if (k > 0)
        *len += (size_t)k;
    if (*len >= size && size > 4) {
        memcpy(buf + size - 4, "...", 4);
        *len = size;
    }
}

static void format_scalar(scalar_kind sk, const void *p, char *buf, size_t size, size_t *len)
{
    switch (sk) {
    case SK_BOOL:
        append(buf, size, len, "%s", *(const bool *)p ? "true" : "false");
        break;
    case SK_INT:
        append(buf, size, len, "%d", *(const int *)p);
        break;
    case SK_UINT:
        append(buf, size, len, "%u", *(const unsigned *)p);
        break;
    case SK_REAL:
        append(buf, size, len, "%.17g", *(const double *)p);
        break;
    case SK_STRING:
        append(buf, size, len, "%s", *(char *const *)p ? *(char *const *)p : "");
        break;
    case SK_LINK:
        break;
    }
}

const char *st__field_format(const st_field *f, const void *src, char *buf, size_t size)
{
    size_t len = 0;
    const type_info *ti = tinfo(f->type);
    if (!buf || !size)
        return buf;
    buf[0] = 0;
    if (!ti)
        return buf;
    if (ti->sk == SK_LINK) {
        const st_component *c = *(st_component *const *)src;
        if (c)
            append(buf, size, &len, "@%s", c->name);
        return buf;
    }
    if (f->type == ST_T_MASS && mass_is_plain(src)) {
        format_scalar(SK_REAL, src, buf, size, &len);
        return buf;
    }
    if (!ti->array) {
        for (unsigned i = 0; i < ti->width; i++) {
            if (i)
                append(buf, size, &len, " ");
            format_scalar(ti->sk, (const char *)src + i * ti->esize, buf, size, &len);
        }
        return buf;
    }
    const st_array *a = src;
    for (size_t i = 0; i < a->n * value_width(f, src) && len < size; i++) {
        if (i)
            append(buf, size, &len, " ");
        format_scalar(ti->sk, (const char *)a->p + i * ti->esize, buf, size, &len);
    }
    return buf;
}
