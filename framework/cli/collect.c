/* collect.c - `settee run --collect`: data fields of a scene read at the end
 * of a run (a state's positions, a solver's output, an energy) and written
 * as JSON, for parameter studies (`settee sweep` reads them back).
 *
 * A collect spec is [NAME=]PATH.FIELD[I][J]: PATH.FIELD as for --set
 * ("/Beam/dofs.position", or a root context key: "time", "dt", "gravity"),
 * then optionally one index into an array field (a tuple, negative from the
 * end) and one into the tuple (a scalar). Values are read through the
 * public field API (st_component_field, st_component_field_ptr).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Splits "NAME=PATH.FIELD[I][J]"; false with msg on a syntax error. */
bool cli_collect_parse(const char *spec, cli_collect_item *it, char *msg, size_t size)
{
    memset(it, 0, sizeof *it);
    const char *eq = strchr(spec, '=');
    const char *body = eq ? eq + 1 : spec;
    if (eq && eq == spec) {
        snprintf(msg, size, "--collect '%s': empty name before '='", spec);
        return false;
    }
    const char *br = strchr(body, '[');
    size_t blen = br ? (size_t)(br - body) : strlen(body);
    if (blen == 0 || blen >= sizeof it->target) {
        snprintf(msg, size, "--collect '%s': expected [NAME=]PATH.FIELD[I][J], e.g. "
                 "/Beam/dofs.position[-1][1] or time", spec);
        return false;
    }
    memcpy(it->target, body, blen);
    it->target[blen] = 0;
    const char *p = br;
    while (p && *p) {
        char *end;
        errno = 0;
        long v = *p == '[' ? strtol(p + 1, &end, 10) : 0;
        if (*p != '[' || end == p + 1 || *end != ']' || errno || it->nindex == 2) {
            snprintf(msg, size, "--collect '%s': bad index at '%s' (write [I] or [I][J] with "
                     "integers, negative from the end)", spec, p);
            return false;
        }
        it->index[it->nindex++] = v;
        p = end + 1;
    }
    if (eq)
        snprintf(it->name, sizeof it->name, "%.*s", (int)(eq - spec), spec);
    else
        snprintf(it->name, sizeof it->name, "%s", body);
    return true;
}

static const char *const root_keys[] = {"time", "dt", "gravity"};

/* Resolves each item against the initialised scene: the component and field,
 * or a root context key. Errors name the spec and suggest nothing more than
 * --set's own errors do. */
st_status cli_collect_resolve(cli_collect_item *items, size_t n, st_scene *s, st_error *err)
{
    st_node *root = st_scene_root(s);
    for (size_t i = 0; i < n; i++) {
        cli_collect_item *it = &items[i];
        char buf[sizeof it->target];
        snprintf(buf, sizeof buf, "%s", it->target);
        char *slash = strrchr(buf, '/'), *dot = strrchr(slash ? slash : buf, '.');
        it->root_key = -1;
        if (!dot) {
            for (int k = 0; k < 3; k++)
                if (!strcmp(buf, root_keys[k]))
                    it->root_key = k;
            if (it->root_key < 0)
                return st_error_set(err, ST_ENOTFOUND,
                                    "--collect %s: '%s' is neither PATH.FIELD nor a root key "
                                    "(time, dt, gravity)",
                                    it->name, buf);
            continue;
        }
        *dot = 0;
        st_component *c = NULL;
        if (st_node_resolve(root, buf, ST_LINK_ANY, &c, err) != ST_OK) {
            st_error_prefix(err, "--collect %s: ", it->name);
            return err->code;
        }
        it->field = st_component_field(c, dot + 1);
        if (!it->field) {
            char cp[ST_ERROR_PATH_MAX];
            const char *sugg[3];
            size_t ns = st_component_suggest_field(c, dot + 1, sugg, 3);
            char hint[256] = "";
            for (size_t k = 0, len = 0; k < ns && len < sizeof hint; k++)
                len += (size_t)snprintf(hint + len, sizeof hint - len, "%s'%s'%s",
                                        k ? (k + 1 == ns ? " or " : ", ") : " (did you mean ",
                                        sugg[k], k + 1 == ns ? "?)" : "");
            return st_error_set(err, ST_ENOTFOUND,
                                "--collect %s: %s '%s' has no field '%s'%s; `settee inspect %s` "
                                "lists its fields",
                                it->name, c->cls->name, st_component_path(c, cp, sizeof cp),
                                dot + 1, hint, c->cls->name);
        }
        it->comp = c;
    }
    return ST_OK;
}

/* One scalar of a field's storage as JSON. */
static void write_scalar(jw *w, const char *key, st_type t, const void *p, size_t k)
{
    switch (t) {
    case ST_T_BOOL: jw_bool(w, key, ((const bool *)p)[k]); break;
    case ST_T_INT: case ST_T_INT2: jw_real(w, key, ((const int *)p)[k]); break;
    case ST_T_STRING: jw_string(w, key, *(char *const *)p); break;
    case ST_T_STRINGS: jw_string(w, key, ((char *const *)p)[k]); break;
    case ST_T_REAL: case ST_T_VEC2: case ST_T_VEC3: case ST_T_VEC4: case ST_T_RGBA:
    case ST_T_REALS: case ST_T_VEC3S: case ST_T_COORDS: case ST_T_DERIVS:
    case ST_T_RIGID3S: case ST_T_QUATS:
        jw_real(w, key, ((const double *)p)[k]);
        break;
    default: jw_uint(w, key, ((const unsigned *)p)[k]); break;
    }
}

static bool is_array_type(st_type t)
{
    return t == ST_T_REALS || t == ST_T_UINTS || t == ST_T_VEC3S || t == ST_T_EDGES ||
           t == ST_T_TRIANGLES || t == ST_T_QUADS || t == ST_T_TETRAS || t == ST_T_HEXAS ||
           t == ST_T_STRINGS || t == ST_T_COORDS || t == ST_T_DERIVS || t == ST_T_RIGID3S ||
           t == ST_T_QUATS;
}

/* An index into n things, negative from the end; false when out of range. */
static bool pick(long i, size_t n, size_t *out)
{
    long v = i < 0 ? (long)n + i : i;
    if (v < 0 || (size_t)v >= n)
        return false;
    *out = (size_t)v;
    return true;
}

/* Writes the value of one item (key = its name) into the JSON object. */
static st_status write_item(jw *w, const cli_collect_item *it, st_scene *s, st_error *err)
{
    double g[3], scalar;
    const void *data;
    st_type t;
    size_t ntuples = 1;
    if (it->root_key >= 0) {
        st_node *root = st_scene_root(s);
        if (it->root_key == 2) {
            st_node_gravity(root, g);
            data = g;
            t = ST_T_VEC3;
        } else {
            scalar = it->root_key == 0 ? st_scene_time(s) : st_node_dt(root);
            data = &scalar;
            t = ST_T_REAL;
        }
    } else {
        /* An engine's output is as of its last run: bring it up to date
         * with the final state first (SOFA's updateIfDirty on a read). */
        if (st_component_refresh(it->comp, err) != ST_OK) {
            st_error_prefix(err, "--collect %s: ", it->name);
            return err->code;
        }
        t = it->field->type;
        data = st_component_field_ptr(it->comp, it->field);
        if (t == ST_T_LINK) {
            const st_component *l = *(st_component *const *)data;
            char lp[ST_ERROR_PATH_MAX + 1] = "";
            if (l)
                snprintf(lp, sizeof lp, "@%s", l->name);
            jw_string(w, it->name, l ? lp : NULL);
            return ST_OK;
        }
        if (is_array_type(t)) {
            const st_array *a = data;
            ntuples = a->n;
            data = a->p;
        }
    }
    size_t width = t == ST_T_STRING                     ? 1
                   : it->root_key < 0 && t != ST_T_LINK ? st_component_field_width(it->comp, it->field)
                                                        : st_type_width(t);
    bool array = is_array_type(t);
    size_t first = 0, last = ntuples, comp = 0;
    int ni = 0;
    if (array && it->nindex > ni) {
        if (!pick(it->index[ni], ntuples, &first))
            return st_error_set(err, ST_EINVAL, "--collect %s: index %ld out of range (%zu tuples)",
                                it->name, it->index[ni], ntuples);
        last = first + 1;
        ni++;
    }
    if (it->nindex > ni) {
        if (width < 2 || !pick(it->index[ni], width, &comp))
            return st_error_set(err, ST_EINVAL, "--collect %s: index %ld out of range (%zu "
                                "value%s per tuple)", it->name, it->index[ni], width,
                                width == 1 ? "" : "s");
        ni++;
    }
    if (it->nindex > ni)
        return st_error_set(err, ST_EINVAL, "--collect %s: too many indexes for a %s field",
                            it->name, st_type_name(t));
    bool one_comp = it->nindex > 0 && ni == it->nindex && (!array || it->nindex == 2);
    bool one_tuple = !array || it->nindex >= 1;
    if (one_comp || (one_tuple && width == 1)) {
        write_scalar(w, it->name, t, data, first * width + (one_comp ? comp : 0));
        return ST_OK;
    }
    if (one_tuple) {
        jw_array(w, it->name);
        for (size_t k = 0; k < width; k++)
            write_scalar(w, NULL, t, data, first * width + k);
        jw_end_array(w);
        return ST_OK;
    }
    jw_array(w, it->name);
    for (size_t j = first; j < last; j++) {
        if (width > 1)
            jw_array(w, NULL);
        for (size_t k = 0; k < width; k++)
            write_scalar(w, NULL, t, data, j * width + k);
        if (width > 1)
            jw_end_array(w);
    }
    jw_end_array(w);
    return ST_OK;
}

st_status cli_collect_write(const cli_collect_item *items, size_t n, st_scene *s,
                            unsigned long steps, FILE *f, st_error *err)
{
    jw w = {.f = f};
    jw_object(&w, NULL);
    jw_uint(&w, "steps", steps);
    jw_real(&w, "time", st_scene_time(s));
    jw_object(&w, "values");
    for (size_t i = 0; i < n; i++)
        if (write_item(&w, &items[i], s, err) != ST_OK)
            return err->code;
    jw_end_object(&w);
    jw_end_object(&w);
    return ST_OK;
}
