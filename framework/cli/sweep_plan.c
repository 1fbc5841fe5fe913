/* sweep_plan.c - the plan of `settee sweep` (format sweep: settee/1, see
 * docs/sweeps.md): parsed with libyaml, every error at PLAN:LINE:COL; the
 * parameters expanded to their values (lists, linear or log ranges, seeded
 * random draws), grouped into factors whose product gives the cases; each
 * case's identity hashed for resuming. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "sweep.h"
#include "common/yaml_depth.h"

#define SWEEP_MAX_CASES 1000000
#define SWEEP_MAX_VALUES 1000000

typedef struct parser {
    sweep_plan *p;
    yaml_document_t doc;
    const char *file; /* for messages: the path as given */
    st_error *err;
} parser;

static yaml_node_t *node_at(parser *ps, int id) { return yaml_document_get_node(&ps->doc, id); }

/* Records an error at a node's position; returns false for `return`. */
static bool fail(parser *ps, const yaml_node_t *n, const char *fmt, ...) ST_PRINTF(3, 4);
static bool fail(parser *ps, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[ST_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (ps->err->code == ST_OK)
        st_error_set_at(ps->err, ST_EPARSE, ps->file, n ? (int)n->start_mark.line + 1 : 1,
                        n ? (int)n->start_mark.column + 1 : 1, "%s", msg);
    return false;
}

static bool oom(parser *ps)
{
    if (ps->err->code == ST_OK)
        st_error_set(ps->err, ST_ENOMEM, "%s: out of memory", ps->file);
    return false;
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static const char *kind(const yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE     ? "a scalar"
           : n->type == YAML_SEQUENCE_NODE ? "a list"
                                           : "a mapping";
}

static bool get_real(parser *ps, const yaml_node_t *n, const char *what, double *out)
{
    const char *s = scalar(n);
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : 0;
    if (!s || !*s || *end || errno || !isfinite(v))
        return fail(ps, n, "%s: expected a finite number, not %s%s%s%s", what,
                    s ? "'" : kind(n), s ? s : "", s ? "'" : "", "");
    *out = v;
    return true;
}

static bool get_count(parser *ps, const yaml_node_t *n, const char *what, unsigned long max,
                      unsigned long *out)
{
    const char *s = scalar(n);
    char *end;
    errno = 0;
    unsigned long v = s && *s && strspn(s, "0123456789") == strlen(s) ? strtoul(s, &end, 10) : 0;
    if (!s || !*s || strspn(s, "0123456789") != strlen(s) || errno || v > max)
        return fail(ps, n, "%s: expected a whole number from 0 to %lu, not %s%s%s", what, max,
                    s ? "'" : kind(n), s ? s : "", s ? "'" : "");
    *out = v;
    return true;
}

/* A generated value as text: 15 significant digits, so that a range from
 * 1 to 100 reads 10, not 10.000000000000002 (the text is what each case is
 * given, and what the tables show). */
static void format_real(double v, char *buf, size_t size) { snprintf(buf, size, "%.15g", v); }

/* ---- a parameter's values ---- */

static bool push_value(parser *ps, sweep_param *sp, const char *text)
{
    char **v = realloc(sp->values, (sp->nvalues + 1) * sizeof *v);
    if (!v)
        return oom(ps);
    sp->values = v;
    if (!(v[sp->nvalues] = strdup(text)))
        return oom(ps);
    sp->nvalues++;
    return true;
}

/* A list item: a scalar as written, or a list of scalars joined by spaces
 * ([0, -9.81, 0] -> "0 -9.81 0"), as a scene would write a vector. */
static bool list_item(parser *ps, sweep_param *sp, yaml_node_t *n)
{
    if (n->type == YAML_SCALAR_NODE)
        return push_value(ps, sp, scalar(n));
    if (n->type != YAML_SEQUENCE_NODE)
        return fail(ps, n, "%s: a list item must be a value or a list of values, not a mapping",
                    sp->key);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return oom(ps);
    bool ok = true;
    for (yaml_node_item_t *it = n->data.sequence.items.start; ok && it < n->data.sequence.items.top;
         it++) {
        const char *s = scalar(node_at(ps, *it));
        if (!s)
            ok = fail(ps, node_at(ps, *it), "%s: nested lists go one level deep", sp->key);
        else
            fprintf(m, "%s%s", it == n->data.sequence.items.start ? "" : " ", s);
    }
    fclose(m);
    ok = ok && push_value(ps, sp, buf);
    free(buf);
    return ok;
}

/* splitmix64: a small generator whose draws are the same on every machine. */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double next_unit(uint64_t *s) { return (double)(next_u64(s) >> 11) * 0x1.0p-53; }

/* The keys a range or random mapping may hold. */
typedef struct spec_keys {
    yaml_node_t *start, *stop, *num, *scale, *random, *low, *high, *mean, *std, *seed;
} spec_keys;

static bool read_spec_keys(parser *ps, sweep_param *sp, yaml_node_t *map, spec_keys *k)
{
    static const char *const names[] = {"start", "stop", "num",  "scale", "random",
                                        "low",   "high", "mean", "std",   "seed"};
    memset(k, 0, sizeof *k);
    yaml_node_t **slots = (yaml_node_t **)k;
    for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top;
         pr++) {
        yaml_node_t *key = node_at(ps, pr->key);
        const char *ks = scalar(key);
        size_t i = 0;
        while (i < 10 && !(ks && !strcmp(ks, names[i])))
            i++;
        if (i == 10)
            return fail(ps, key, "%s: unknown key '%s' (a range has start, stop, num, scale; a "
                        "random draw has random, low, high or mean, std, num, seed)",
                        sp->key, ks ? ks : "?");
        if (slots[i])
            return fail(ps, key, "%s: '%s' given twice", sp->key, ks);
        slots[i] = node_at(ps, pr->value);
    }
    return true;
}

static bool range_values(parser *ps, sweep_param *sp, yaml_node_t *map, spec_keys *k)
{
    double a, b;
    unsigned long num;
    if (!k->start || !k->stop || !k->num)
        return fail(ps, map, "%s: a range needs start, stop and num (and scale: linear or log)",
                    sp->key);
    if (!get_real(ps, k->start, "start", &a) || !get_real(ps, k->stop, "stop", &b) ||
        !get_count(ps, k->num, "num", SWEEP_MAX_VALUES, &num))
        return false;
    const char *scale = k->scale ? scalar(k->scale) : "linear";
    bool log_scale = scale && !strcmp(scale, "log");
    if (!scale || (!log_scale && strcmp(scale, "linear")))
        return fail(ps, k->scale, "%s: scale must be linear or log", sp->key);
    if (num == 0)
        return fail(ps, k->num, "%s: num must be at least 1", sp->key);
    if (log_scale && (a <= 0 || b <= 0))
        return fail(ps, k->start, "%s: a log range needs start and stop > 0", sp->key);
    for (unsigned long i = 0; i < num; i++) {
        double t = num == 1 ? 0.0 : (double)i / (double)(num - 1);
        double v = log_scale ? exp(log(a) + t * (log(b) - log(a))) : a + t * (b - a);
        if (i == num - 1 && num > 1)
            v = b; /* the end point exactly as written */
        char buf[64];
        format_real(v, buf, sizeof buf);
        if (!push_value(ps, sp, buf))
            return false;
    }
    return true;
}

static bool random_values(parser *ps, sweep_param *sp, yaml_node_t *map, spec_keys *k)
{
    const char *dist = scalar(k->random);
    static const char *const dists[] = {"uniform", "loguniform", "normal", "integer"};
    int d = 0;
    while (d < 4 && !(dist && !strcmp(dist, dists[d])))
        d++;
    if (d == 4)
        return fail(ps, k->random, "%s: random must be uniform, loguniform, normal or integer",
                    sp->key);
    unsigned long num, seed = 0;
    double lo = 0, hi = 0;
    if (!k->num)
        return fail(ps, map, "%s: a random draw needs num (the number of values)", sp->key);
    if (!get_count(ps, k->num, "num", SWEEP_MAX_VALUES, &num) ||
        (k->seed && !get_count(ps, k->seed, "seed", ULONG_MAX, &seed)))
        return false;
    if (num == 0)
        return fail(ps, k->num, "%s: num must be at least 1", sp->key);
    yaml_node_t *n1 = d == 2 ? k->mean : k->low, *n2 = d == 2 ? k->std : k->high;
    if (!n1 || !n2)
        return fail(ps, map, "%s: a %s draw needs %s", sp->key, dists[d],
                    d == 2 ? "mean and std" : "low and high");
    if (!get_real(ps, n1, d == 2 ? "mean" : "low", &lo) ||
        !get_real(ps, n2, d == 2 ? "std" : "high", &hi))
        return false;
    if (d != 2 && hi < lo)
        return fail(ps, n2, "%s: high must be >= low", sp->key);
    if (d == 1 && lo <= 0)
        return fail(ps, n1, "%s: a loguniform draw needs low > 0", sp->key);
    if (d == 3 && (lo != floor(lo) || hi != floor(hi)))
        return fail(ps, n1, "%s: an integer draw needs whole low and high", sp->key);
    uint64_t state = seed;
    for (unsigned long i = 0; i < num; i++) {
        double u = next_unit(&state), v;
        if (d == 0)
            v = lo + u * (hi - lo);
        else if (d == 1)
            v = exp(log(lo) + u * (log(hi) - log(lo)));
        else if (d == 2)
            v = lo + hi * sqrt(-2.0 * log1p(-u)) * cos(2.0 * M_PI * next_unit(&state));
        else
            v = lo + floor(u * (hi - lo + 1.0));
        char buf[64];
        format_real(v, buf, sizeof buf);
        if (!push_value(ps, sp, buf))
            return false;
    }
    return true;
}

/* PATH.FIELD: SPEC, into a new parameter of the given factor. */
static bool add_param(parser *ps, yaml_node_t *key, yaml_node_t *val, size_t factor)
{
    sweep_plan *p = ps->p;
    const char *ks = scalar(key);
    if (!ks || !*ks)
        return fail(ps, key, "a parameter is named by PATH.FIELD (/Beam/springs.stiffness) or a "
                    "root key (dt, gravity), not %s", kind(key));
    if (strchr(ks, '='))
        return fail(ps, key, "parameter '%s': write PATH.FIELD: [values], without '='", ks);
    for (size_t i = 0; i < p->nparams; i++)
        if (!strcmp(p->params[i].key, ks))
            return fail(ps, key, "parameter '%s' given twice", ks);
    sweep_param *np = realloc(p->params, (p->nparams + 1) * sizeof *np);
    if (!np)
        return oom(ps);
    p->params = np;
    sweep_param *sp = &p->params[p->nparams];
    memset(sp, 0, sizeof *sp);
    if (!(sp->key = strdup(ks)))
        return oom(ps);
    sp->factor = factor;
    p->nparams++;
    bool ok;
    if (val->type == YAML_SCALAR_NODE) {
        ok = push_value(ps, sp, scalar(val));
    } else if (val->type == YAML_SEQUENCE_NODE) {
        ok = true;
        for (yaml_node_item_t *it = val->data.sequence.items.start;
             ok && it < val->data.sequence.items.top; it++)
            ok = list_item(ps, sp, node_at(ps, *it));
        if (ok && !sp->nvalues)
            return fail(ps, val, "parameter '%s': the list is empty", ks);
    } else {
        spec_keys k;
        ok = read_spec_keys(ps, sp, val, &k) &&
             (k.random ? random_values(ps, sp, val, &k) : range_values(ps, sp, val, &k));
    }
    /* "steps" is the step count of each case, not a field */
    for (size_t i = 0; ok && !strcmp(ks, "steps") && i < sp->nvalues; i++)
        if (!*sp->values[i] || strspn(sp->values[i], "0123456789") != strlen(sp->values[i]) ||
            strlen(sp->values[i]) > 18)
            return fail(ps, val, "steps: each value must be a whole number of steps, not '%s'",
                        sp->values[i]);
    return ok;
}

/* Closes a factor: its parameters must have equal lengths (they are zipped). */
static bool end_factor(parser *ps, size_t factor, yaml_node_t *at)
{
    sweep_plan *p = ps->p;
    size_t len = 0;
    const char *first = NULL;
    for (size_t i = 0; i < p->nparams; i++) {
        if (p->params[i].factor != factor)
            continue;
        if (!first) {
            first = p->params[i].key;
            len = p->params[i].nvalues;
        } else if (p->params[i].nvalues != len) {
            return fail(ps, at, "zipped parameters need equal lengths: '%s' has %zu values, "
                        "'%s' has %zu", first, len, p->params[i].key, p->params[i].nvalues);
        }
    }
    if (!first)
        return true;
    size_t *fl = realloc(p->factor_len, (p->nfactors + 1) * sizeof *fl);
    if (!fl)
        return oom(ps);
    p->factor_len = fl;
    fl[p->nfactors++] = len;
    return true;
}

static bool parse_parameters(parser *ps, yaml_node_t *map, bool zip_all)
{
    if (map->type != YAML_MAPPING_NODE)
        return fail(ps, map, "parameters: expected a mapping of PATH.FIELD: values, not %s",
                    kind(map));
    sweep_plan *p = ps->p;
    for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top;
         pr++) {
        yaml_node_t *key = node_at(ps, pr->key), *val = node_at(ps, pr->value);
        const char *ks = scalar(key);
        if (ks && !strcmp(ks, "zip")) {
            if (val->type != YAML_MAPPING_NODE)
                return fail(ps, val, "zip: expected a mapping of PATH.FIELD: values");
            if (zip_all)
                return fail(ps, key, "zip: every parameter is zipped already (combine: zip)");
            size_t f = p->nfactors;
            for (yaml_node_pair_t *q = val->data.mapping.pairs.start;
                 q < val->data.mapping.pairs.top; q++)
                if (!add_param(ps, node_at(ps, q->key), node_at(ps, q->value), f))
                    return false;
            if (!end_factor(ps, f, val))
                return false;
            continue;
        }
        size_t f = zip_all ? 0 : p->nfactors;
        if (!add_param(ps, key, val, f) || (!zip_all && !end_factor(ps, f, val)))
            return false;
    }
    if (zip_all && !end_factor(ps, 0, map))
        return false;
    p->ncases = 1;
    for (size_t f = 0; f < p->nfactors; f++) {
        if (p->factor_len[f] > SWEEP_MAX_CASES / p->ncases)
            return fail(ps, map, "the plan has more than %d cases", SWEEP_MAX_CASES);
        p->ncases *= p->factor_len[f];
    }
    return true;
}

static bool parse_collect(parser *ps, yaml_node_t *seq)
{
    sweep_plan *p = ps->p;
    if (seq->type != YAML_SEQUENCE_NODE)
        return fail(ps, seq, "collect: expected a list of PATH.FIELD[I][J] or "
                    "{name: NAME, field: PATH.FIELD[I][J]}, not %s", kind(seq));
    size_t n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
    p->collect = calloc(n + 1, sizeof *p->collect);
    p->collect_items = calloc(n + 1, sizeof *p->collect_items);
    if (!p->collect || !p->collect_items)
        return oom(ps);
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *it = node_at(ps, seq->data.sequence.items.start[i]);
        const char *name = NULL, *field = scalar(it);
        if (it->type == YAML_MAPPING_NODE) {
            for (yaml_node_pair_t *pr = it->data.mapping.pairs.start;
                 pr < it->data.mapping.pairs.top; pr++) {
                const char *k = scalar(node_at(ps, pr->key));
                const char *v = scalar(node_at(ps, pr->value));
                if (k && !strcmp(k, "name") && v)
                    name = v;
                else if (k && !strcmp(k, "field") && v)
                    field = v;
                else
                    return fail(ps, node_at(ps, pr->key), "collect: an item has name and field "
                                "(both text), not '%s'", k ? k : "?");
            }
            if (!field)
                return fail(ps, it, "collect: the item has no field");
        }
        if (!field || !*field)
            return fail(ps, it, "collect: expected PATH.FIELD[I][J] or {name, field}");
        char spec[2048], msg[1200];
        snprintf(spec, sizeof spec, "%s%s%s", name ? name : "", name ? "=" : "", field);
        if (strchr(field, '=') || (name && strchr(name, '=')))
            return fail(ps, it, "collect: '=' is not allowed in a name or a field");
        if (!cli_collect_parse(spec, &p->collect_items[i], msg, sizeof msg))
            return fail(ps, it, "collect: %s", msg);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(p->collect_items[j].name, p->collect_items[i].name))
                return fail(ps, it, "collect: '%s' is collected twice (give one a name)",
                            p->collect_items[i].name);
        if (!(p->collect[i] = strdup(spec)))
            return oom(ps);
        p->ncollect++;
    }
    return true;
}

static bool parse_sets(parser *ps, yaml_node_t *map)
{
    sweep_plan *p = ps->p;
    if (map->type != YAML_MAPPING_NODE)
        return fail(ps, map, "set: expected a mapping of PATH.FIELD: value");
    size_t n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
    if (!(p->sets = calloc(n + 1, sizeof *p->sets)))
        return oom(ps);
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *k = node_at(ps, map->data.mapping.pairs.start[i].key);
        yaml_node_t *v = node_at(ps, map->data.mapping.pairs.start[i].value);
        sweep_param tmp = {.key = (char *)scalar(k)};
        if (!tmp.key || !*tmp.key)
            return fail(ps, k, "set: expected PATH.FIELD as the key");
        if (!list_item(ps, &tmp, v))
            return false;
        int len = asprintf(&p->sets[i], "%s=%s", tmp.key, tmp.values[0]);
        free(tmp.values[0]);
        free(tmp.values);
        if (len < 0) {
            p->sets[i] = NULL;
            return oom(ps);
        }
        p->nsets++;
    }
    return true;
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < len; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static bool resolve_scene(parser *ps, yaml_node_t *n)
{
    sweep_plan *p = ps->p;
    const char *s = scalar(n);
    if (!s || !*s)
        return fail(ps, n, "scene: expected the path of the base scene (.yaml, .scn)");
    char *dir = strdup(p->file);
    if (!dir)
        return oom(ps);
    char *slash = strrchr(dir, '/');
    *slash = 0;
    int len = s[0] == '/' ? asprintf(&p->scene, "%s", s) : asprintf(&p->scene, "%s/%s", dir, s);
    free(dir);
    if (len < 0) {
        p->scene = NULL;
        return oom(ps);
    }
    size_t size;
    char *text = cli_read_file(p->scene, &size);
    if (!text)
        return fail(ps, n, "scene: cannot read '%s': %s", p->scene, cli_strerror(errno));
    p->scene_hash = fnv1a(0xcbf29ce484222325ULL, text, size);
    free(text);
    return true;
}

static bool parse_top(parser *ps)
{
    sweep_plan *p = ps->p;
    yaml_node_t *top = yaml_document_get_root_node(&ps->doc);
    if (!top || top->type != YAML_MAPPING_NODE)
        return fail(ps, top, "a sweep plan is a mapping starting with 'sweep: settee/1'");
    static const char *const keys[] = {"sweep", "scene", "steps", "timeout", "set",
                                       "combine", "parameters", "collect"};
    yaml_node_t *v[8] = {0};
    for (yaml_node_pair_t *pr = top->data.mapping.pairs.start; pr < top->data.mapping.pairs.top;
         pr++) {
        yaml_node_t *key = node_at(ps, pr->key);
        const char *ks = scalar(key);
        size_t i = 0;
        while (i < 8 && !(ks && !strcmp(ks, keys[i])))
            i++;
        if (i == 8)
            return fail(ps, key, "unknown key '%s' (a plan has sweep, scene, steps, timeout, set, "
                        "combine, parameters, collect)", ks ? ks : "?");
        if (v[i])
            return fail(ps, key, "'%s' given twice", ks);
        v[i] = node_at(ps, pr->value);
    }
    const char *fmt = v[0] ? scalar(v[0]) : NULL;
    if (!fmt || strcmp(fmt, "settee/1"))
        return fail(ps, v[0] ? v[0] : top, "a sweep plan starts with 'sweep: settee/1'%s%s%s",
                    fmt ? " (not '" : "", fmt ? fmt : "", fmt ? "')" : "");
    if (!v[1])
        return fail(ps, top, "the plan names no scene (scene: beam.yaml, relative to the plan)");
    if (!resolve_scene(ps, v[1]))
        return false;
    p->steps = 100;
    if (v[2] && !get_count(ps, v[2], "steps", ULONG_MAX, &p->steps))
        return false;
    if (v[3] && (!get_real(ps, v[3], "timeout", &p->timeout) || p->timeout < 0))
        return fail(ps, v[3], "timeout: expected seconds >= 0 (0: none)");
    if (v[4] && !parse_sets(ps, v[4]))
        return false;
    const char *comb = v[5] ? scalar(v[5]) : "product";
    if (!comb || (strcmp(comb, "product") && strcmp(comb, "zip")))
        return fail(ps, v[5], "combine: expected product or zip");
    if (!v[6])
        return fail(ps, top, "the plan has no parameters");
    if (!parse_parameters(ps, v[6], !strcmp(comb, "zip")))
        return false;
    if (!p->nparams)
        return fail(ps, v[6], "parameters: the mapping is empty");
    if (v[7] && !parse_collect(ps, v[7]))
        return false;
    return true;
}

st_status sweep_plan_load(const char *path, sweep_plan **out, st_error *err)
{
    *out = NULL;
    sweep_plan *p = calloc(1, sizeof *p);
    char cwd[PATH_MAX];
    if (!p)
        return st_error_set(err, ST_ENOMEM, "%s: out of memory", path);
    if (path[0] == '/')
        p->file = strdup(path);
    else if (getcwd(cwd, sizeof cwd) && asprintf(&p->file, "%s/%s", cwd, path) < 0)
        p->file = NULL;
    size_t len;
    char *text = p->file ? cli_read_file(path, &len) : NULL;
    if (!text) {
        int e = errno;
        sweep_plan_destroy(&p);
        return st_error_set(err, ST_EIO, "%s: cannot read the plan: %s", path, cli_strerror(e));
    }
    parser ps = {.p = p, .file = path, .err = err};
    /* nesting is bounded before libyaml builds the document, as for scenes */
    yaml_mark_t deep;
    bool no_mem = false;
    if (!yaml_depth_ok(text, len, 64, &deep, &no_mem)) {
        if (no_mem)
            st_error_set(err, ST_ENOMEM, "%s: out of memory", path);
        else
            st_error_set_at(err, ST_EPARSE, path, (int)deep.line + 1, (int)deep.column + 1,
                            "values nested more than 64 levels deep");
        free(text);
        sweep_plan_destroy(&p);
        return err->code;
    }
    yaml_parser_t yp;
    bool ok = yaml_parser_initialize(&yp);
    if (!ok) {
        oom(&ps);
    } else {
        yaml_parser_set_input_string(&yp, (const unsigned char *)text, len);
        if (!yaml_parser_load(&yp, &ps.doc)) {
            yaml_mark_t m = yp.problem_mark;
            st_error_set_at(err, ST_EPARSE, path, (int)m.line + 1, (int)m.column + 1,
                            "YAML syntax error: %s", yp.problem ? yp.problem : "unknown");
            ok = false;
        } else {
            ok = parse_top(&ps);
            yaml_document_delete(&ps.doc);
        }
        yaml_parser_delete(&yp);
    }
    free(text);
    if (!ok) {
        sweep_plan_destroy(&p);
        return err->code;
    }
    *out = p;
    return ST_OK;
}

void sweep_plan_destroy(sweep_plan **pp)
{
    if (!pp || !*pp)
        return;
    sweep_plan *p = *pp;
    for (size_t i = 0; i < p->nparams; i++) {
        for (size_t j = 0; j < p->params[i].nvalues; j++)
            free(p->params[i].values[j]);
        free(p->params[i].values);
        free(p->params[i].key);
    }
    for (size_t i = 0; p->sets && p->sets[i]; i++)
        free(p->sets[i]);
    for (size_t i = 0; p->collect && p->collect[i]; i++)
        free(p->collect[i]);
    free(p->sets);
    free(p->collect);
    free(p->collect_items);
    free(p->params);
    free(p->factor_len);
    free(p->scene);
    free(p->file);
    free(p);
    *pp = NULL;
}

const char *sweep_case_value(const sweep_plan *p, size_t k, size_t i)
{
    /* the last factor varies fastest */
    size_t f = p->params[i].factor, idx = 0;
    for (size_t g = p->nfactors; g-- > 0;) {
        idx = k % p->factor_len[g];
        k /= p->factor_len[g];
        if (g == f)
            break;
    }
    return p->params[i].values[idx];
}

uint64_t sweep_case_hash(const sweep_plan *p, size_t k)
{
    char buf[64];
    uint64_t h = p->scene_hash;
    snprintf(buf, sizeof buf, "steps=%lu", p->steps);
    h = fnv1a(h, buf, strlen(buf) + 1);
    for (size_t i = 0; i < p->nsets; i++)
        h = fnv1a(h, p->sets[i], strlen(p->sets[i]) + 1);
    for (size_t i = 0; i < p->nparams; i++) {
        const char *v = sweep_case_value(p, k, i);
        h = fnv1a(h, p->params[i].key, strlen(p->params[i].key) + 1);
        h = fnv1a(h, v, strlen(v) + 1);
    }
    for (size_t i = 0; i < p->ncollect; i++)
        h = fnv1a(h, p->collect[i], strlen(p->collect[i]) + 1);
    return h;
}
