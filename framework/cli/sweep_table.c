/* sweep_table.c - the case records of `settee sweep` (DIR/cases/NNNN/
 * result.json, read back with libyaml: JSON is YAML) and the tables built
 * from them, DIR/results.csv and DIR/results.json, one row per case. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "sweep.h"

const char *sweep_status_name(sweep_status s)
{
    static const char *const names[SWEEP_NSTATUS] = {"missing", "ok",      "failed",
                                                     "crashed", "timeout", "diverged"};
    return (unsigned)s < SWEEP_NSTATUS ? names[s] : "missing";
}

void sweep_case_dir(const char *out_dir, size_t k, char *buf, size_t size)
{
    snprintf(buf, size, "%s/cases/%04zu", out_dir, k);
}

/* A loaded result.json. */
typedef struct record {
    yaml_document_t doc;
    bool loaded;
    yaml_node_t *root;
} record;

static yaml_node_t *rec_get(record *r, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(&r->doc, p->key);
        if (k && k->type == YAML_SCALAR_NODE && !strcmp((char *)k->data.scalar.value, key))
            return yaml_document_get_node(&r->doc, p->value);
    }
    return NULL;
}

static const char *rec_text(yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* Records child c of node i (1-based ids); false when c was seen before or
 * comes before its parent (an alias) or lies too deep. */
static bool tree_child(unsigned *refs, unsigned *depth, size_t n, size_t i, int c)
{
    if (c <= (int)i || (size_t)c > n || refs[c]++ || depth[i] >= 256)
        return false;
    depth[c] = depth[i] + 1;
    return true;
}

/* Whether the document is a tree at most 256 levels deep, as JSON is: YAML
 * aliases (a node reached twice, or a cycle) in a tampered record would make
 * the tables' recursive walks loop or explode. libyaml numbers a node before
 * the nodes it contains, so one pass in order gives every depth. */
static bool rec_is_tree(yaml_document_t *doc)
{
    size_t n = (size_t)(doc->nodes.top - doc->nodes.start);
    unsigned *refs = calloc(n + 1, sizeof *refs), *depth = calloc(n + 1, sizeof *depth);
    bool ok = refs && depth;
    for (size_t i = 1; ok && i <= n; i++) {
        yaml_node_t *node = doc->nodes.start + (i - 1);
        if (node->type == YAML_SEQUENCE_NODE)
            for (yaml_node_item_t *it = node->data.sequence.items.start;
                 ok && it < node->data.sequence.items.top; it++)
                ok = tree_child(refs, depth, n, i, *it);
        else if (node->type == YAML_MAPPING_NODE)
            for (yaml_node_pair_t *p = node->data.mapping.pairs.start;
                 ok && p < node->data.mapping.pairs.top; p++)
                ok = tree_child(refs, depth, n, i, p->key) &&
                     tree_child(refs, depth, n, i, p->value);
    }
    free(refs);
    free(depth);
    return ok;
}

/* Loads case k's record when its hash is the case's current one. */
static bool rec_load(const sweep_plan *p, const char *out_dir, size_t k, record *r)
{
    char dir[4096], path[4200];
    memset(r, 0, sizeof *r);
    sweep_case_dir(out_dir, k, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/result.json", dir);
    size_t len;
    char *text = cli_read_file(path, &len);
    if (!text)
        return false;
    yaml_parser_t yp;
    if (yaml_parser_initialize(&yp)) {
        yaml_parser_set_input_string(&yp, (const unsigned char *)text, len);
        r->loaded = yaml_parser_load(&yp, &r->doc) != 0;
        yaml_parser_delete(&yp);
    }
    free(text);
    if (r->loaded && !rec_is_tree(&r->doc)) {
        yaml_document_delete(&r->doc);
        r->loaded = false;
    }
    if (!r->loaded)
        return false;
    r->root = yaml_document_get_root_node(&r->doc);
    char want[32];
    snprintf(want, sizeof want, "%016" PRIx64, sweep_case_hash(p, k));
    const char *h = rec_text(rec_get(r, r->root, "hash"));
    if (!h || strcmp(h, want)) {
        yaml_document_delete(&r->doc);
        r->loaded = false;
    }
    return r->loaded;
}

static void rec_free(record *r)
{
    if (r->loaded)
        yaml_document_delete(&r->doc);
    r->loaded = false;
}

static sweep_status rec_status(record *r)
{
    const char *s = rec_text(rec_get(r, r->root, "status"));
    for (int i = SWEEP_OK; s && i < SWEEP_NSTATUS; i++)
        if (!strcmp(s, sweep_status_name((sweep_status)i)))
            return (sweep_status)i;
    return SWEEP_MISSING;
}

sweep_status sweep_case_recorded(const sweep_plan *p, const char *out_dir, size_t k)
{
    record r;
    if (!rec_load(p, out_dir, k, &r))
        return SWEEP_MISSING;
    sweep_status s = rec_status(&r);
    rec_free(&r);
    return s;
}

/* ---- CSV ---- */

static void csv_field(FILE *f, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A collected value in one cell: scalars as written, lists flattened with
 * spaces, null empty. */
static void flatten(record *r, yaml_node_t *n, FILE *f, bool *first)
{
    if (!n)
        return;
    if (n->type == YAML_SCALAR_NODE) {
        const char *s = (const char *)n->data.scalar.value;
        if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !strcmp(s, "null"))
            s = "nan";
        fprintf(f, "%s%s", *first ? "" : " ", s);
        *first = false;
        return;
    }
    if (n->type == YAML_SEQUENCE_NODE)
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
             it++)
            flatten(r, yaml_document_get_node(&r->doc, *it), f, first);
}

static void csv_value(FILE *f, record *r, yaml_node_t *n)
{
    if (!n || (n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
               !strcmp((char *)n->data.scalar.value, "null")))
        return;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return;
    bool first = true;
    flatten(r, n, m, &first);
    fclose(m);
    csv_field(f, buf);
    free(buf);
}

/* ---- JSON ---- */

/* True when s is a JSON number as written. */
static bool json_number(const char *s)
{
    const char *p = s;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        p += strspn(p, "0123456789");
    else
        return false;
    if (*p == '.') {
        size_t d = strspn(p + 1, "0123456789");
        if (!d)
            return false;
        p += 1 + d;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        size_t d = strspn(p, "0123456789");
        if (!d)
            return false;
        p += d;
    }
    return *p == 0;
}

/* A node of a record back as compact JSON (lists on one line). */
static void json_node(FILE *f, record *r, yaml_node_t *n)
{
    if (!n) {
        fputs("null", f);
    } else if (n->type == YAML_SCALAR_NODE) {
        const char *s = (const char *)n->data.scalar.value;
        bool plain = n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        if (plain && (json_number(s) || !strcmp(s, "null") || !strcmp(s, "true") ||
                      !strcmp(s, "false")))
            fputs(s, f);
        else
            jw_write_string(f, s);
    } else if (n->type == YAML_SEQUENCE_NODE) {
        fputc('[', f);
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
             it++) {
            if (it != n->data.sequence.items.start)
                fputs(", ", f);
            json_node(f, r, yaml_document_get_node(&r->doc, *it));
        }
        fputc(']', f);
    } else {
        fputc('{', f);
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
             p++) {
            if (p != n->data.mapping.pairs.start)
                fputs(", ", f);
            json_node(f, r, yaml_document_get_node(&r->doc, p->key));
            fputs(": ", f);
            json_node(f, r, yaml_document_get_node(&r->doc, p->value));
        }
        fputc('}', f);
    }
}

static void json_value(jw *w, const char *key, record *r, yaml_node_t *n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) {
        jw_null(w, key);
        return;
    }
    json_node(m, r, n);
    fclose(m);
    jw_raw(w, key, buf);
    free(buf);
}

/* ---- the tables ---- */

static bool write_out(const char *out_dir, const char *name, char *buf, size_t len)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", out_dir, name);
    bool ok = buf && cli_write_file_atomic(path, buf, len);
    if (!ok)
        cli_error("cannot write %s: %s", path, buf ? strerror(errno) : "out of memory");
    free(buf);
    return ok;
}

bool sweep_write_tables(const sweep_plan *p, const char *out_dir, size_t counts[SWEEP_NSTATUS])
{
    char *cbuf = NULL, *jbuf = NULL;
    size_t clen = 0, jlen = 0;
    FILE *c = open_memstream(&cbuf, &clen), *j = open_memstream(&jbuf, &jlen);
    if (!c || !j) {
        if (c)
            fclose(c);
        if (j)
            fclose(j);
        free(cbuf);
        free(jbuf);
        cli_error("out of memory");
        return false;
    }
    memset(counts, 0, SWEEP_NSTATUS * sizeof *counts);

    fputs("case", c);
    for (size_t i = 0; i < p->nparams; i++) {
        fputc(',', c);
        csv_field(c, p->params[i].key);
    }
    fputs(",status,wall_s", c);
    for (size_t i = 0; i < p->ncollect; i++) {
        fputc(',', c);
        csv_field(c, p->collect_items[i].name);
    }
    fputs(",error\n", c);

    jw w = {.f = j};
    jw_object(&w, NULL);
    jw_string(&w, "plan", p->file);
    jw_string(&w, "scene", p->scene);
    jw_uint(&w, "steps", p->steps);
    jw_uint(&w, "cases", p->ncases);
    jw_array(&w, "rows");
    for (size_t k = 0; k < p->ncases; k++) {
        record r;
        bool have = rec_load(p, out_dir, k, &r);
        sweep_status st = have ? rec_status(&r) : SWEEP_MISSING;
        counts[st]++;
        yaml_node_t *values = have ? rec_get(&r, rec_get(&r, r.root, "run"), "values") : NULL;
        const char *wall = have ? rec_text(rec_get(&r, r.root, "wall_s")) : NULL;
        yaml_node_t *error = have ? rec_get(&r, r.root, "error") : NULL;

        fprintf(c, "%zu", k);
        jw_object(&w, NULL);
        jw_uint(&w, "case", k);
        for (size_t i = 0; i < p->nparams; i++) {
            const char *v = sweep_case_value(p, k, i);
            fputc(',', c);
            csv_field(c, v);
            if (json_number(v))
                jw_raw(&w, p->params[i].key, v);
            else
                jw_string(&w, p->params[i].key, v);
        }
        fprintf(c, ",%s,%s", sweep_status_name(st), wall && strcmp(wall, "null") ? wall : "");
        jw_string(&w, "status", sweep_status_name(st));
        if (wall && json_number(wall))
            jw_raw(&w, "wall_s", wall);
        else
            jw_null(&w, "wall_s");
        for (size_t i = 0; i < p->ncollect; i++) {
            yaml_node_t *v = rec_get(&r, values, p->collect_items[i].name);
            fputc(',', c);
            csv_value(c, &r, v);
            json_value(&w, p->collect_items[i].name, &r, v);
        }
        fputc(',', c);
        csv_value(c, &r, error);
        fputc('\n', c);
        json_value(&w, "error", &r, error);
        jw_end_object(&w);
        rec_free(&r);
    }
    jw_end_array(&w);
    jw_end_object(&w);
    bool closed = fclose(c) == 0;
    closed = fclose(j) == 0 && closed;
    if (!closed) {
        free(cbuf);
        free(jbuf);
        cli_error("out of memory while writing the tables");
        return false;
    }
    bool ok = write_out(out_dir, "results.csv", cbuf, clen);
    return write_out(out_dir, "results.json", jbuf, jlen) && ok;
}
