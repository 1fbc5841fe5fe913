/* read_state.c - SOFA's ReadState and CompareState over SOFA's state files
 * (see write_state.c; gzip or plain, read whole at init through zlib).
 *
 * At the beginning of each step both read the file up to the node's time
 * (plus `shift`): the lines after the last "T= t" with t <= time. ReadState
 * sets the state's positions (X=, scaled, rotated and translated) and
 * velocities (V=) from them, then updates mapped states. CompareState
 * compares them with the state instead, as SOFA does: for each X= or V=
 * line the mean absolute difference over the values, summed over the run
 * in totalError (and divided by the number of vertices in errorByDof). As
 * SOFA's compareVec, the state's values are compared as SOFA prints them
 * (6 significant digits, the precision of SOFA's state files): a state
 * equal to a SOFA reference to its last digit compares equal. A file that
 * prints any value with more digits (settee's WriteState writes 17) is
 * compared at full precision.
 * Both read states of any type (a line holds the coordinates, or the
 * derivatives, of every vertex: 7 and 6 values per Rigid3d vertex);
 * ReadState's scalePos, rotation and translation need a Vec3d state. With
 * `epsilon` > 0 (settee), the first comparison whose difference exceeds it
 * is logged as an error naming the time, the line of the file and the
 * largest difference, and the run fails.
 *
 * CompareTopology reads SOFA's topology files (WriteTopology's: "T= t", then
 * "  Edges= n" and a line of 2 n indices, Triangles=, Quads=, Tetrahedra=,
 * Hexahedra=) the same way and, as SOFA, counts per element kind: when the
 * counts differ, |n_ref - n|; else the elements that differ. With `strict`
 * (settee) the first difference is logged as an error and the run fails.
 *
 * ReadTopology reads the same files, block after block at the beginning of
 * each step, into its element lists. SOFA's keeps them in unnamed data,
 * appending each block to the last (so nothing in a scene can read them);
 * settee's are outputs (edges, triangles, quads, tetrahedra, hexahedra)
 * holding the last block read, and the topology is not changed, as in
 * SOFA. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <settee/settee.h>

#include "../shared/output_file.h"
#include "../../common/regular_file.h"
#include "../shared/state_view.h"

typedef struct read_state {
    st_component base;
    char *filename;
    double interval, shift;
    bool loop;
    double scale_pos;
    st_vec3 rotation, translation;
    /* CompareState (settee outputs and threshold). */
    double epsilon, total_error, error_by_dof;
    bool failed;
    bool compare;
    bool full_digits; /* the file prints a value with more than 6 significant digits */
    /* CompareTopology. */
    bool topology_mode, strict;
    /* ReadTopology: its topology link and the last block of each kind. */
    bool read_topology;
    st_component *topology;
    st_array elements[5];
    unsigned kind_errors[5]; /* edges, triangles, quads, tetrahedra, hexahedra */
    unsigned topo_total;
    /* The file, whole, and the reading position. */
    char path[OUT_PATH_MAX];
    char *text;
    size_t len, pos;
    int line;              /* line number at pos */
    double next_time, loop_time;
} read_state;

#define READ_FIELDS(S)                                                                            \
    ST_FIELD_EX(S, filename, "filename", ST_T_STRING, char *, NULL,                               \
                "input file name (relative to the scene's folder; gzip or plain text)",           \
                ST_F_REQUIRED, NULL, 0.0, 0.0),                                                   \
        ST_IGNORED(S, interval, "interval", ST_T_REAL, double, "0",                               \
                   "time duration between inputs"),                                               \
        ST_REAL(S, shift, "shift", "0",                                                           \
                "shift between times in the file and times when they will be read"),              \
        ST_BOOL(S, loop, "loop", "false",                                                         \
                "set to 'true' to re-read the file when reaching the end")

static const st_field read_state_fields[] = {
    READ_FIELDS(read_state),
    ST_REAL(read_state, scale_pos, "scalePos", "1", "scale the input mechanical object"),
    ST_VEC3(read_state, rotation, "rotation", "0 0 0",
            "rotate the input mechanical object (Euler angles in degrees)"),
    ST_VEC3(read_state, translation, "translation", "0 0 0",
            "translate the input mechanical object"),
    ST_FIELD_END};

static const st_field compare_state_fields[] = {
    READ_FIELDS(read_state),
    ST_REAL(read_state, epsilon, "epsilon", "0",
            "Largest mean absolute difference allowed per comparison; above it the run fails "
            "with an error (0: only measure) (settee)"),
    ST_OUTPUT(read_state, total_error, "totalError", ST_T_REAL, double,
              "Sum over the comparisons of the mean absolute difference of X and V "
              "(SOFA's getTotalError) (settee)"),
    ST_OUTPUT(read_state, error_by_dof, "errorByDof", ST_T_REAL, double,
              "totalError divided by the number of vertices (SOFA's getErrorByDof) (settee)"),
    ST_FIELD_END};

static const st_field compare_topology_fields[] = {
    READ_FIELDS(read_state),
    ST_BOOL(read_state, strict, "strict", "false",
            "log the first difference as an error: the run fails (settee)"),
    ST_OUTPUT(read_state, topo_total, "totalError", ST_T_UINT, unsigned,
              "differing elements over the run, all kinds (SOFA's getTotalError) (settee)"),
    ST_OUTPUT(read_state, kind_errors[0], "edgesError", ST_T_UINT, unsigned,
              "differing edges (settee)"),
    ST_OUTPUT(read_state, kind_errors[1], "trianglesError", ST_T_UINT, unsigned,
              "differing triangles (settee)"),
    ST_OUTPUT(read_state, kind_errors[2], "quadsError", ST_T_UINT, unsigned,
              "differing quads (settee)"),
    ST_OUTPUT(read_state, kind_errors[3], "tetrahedraError", ST_T_UINT, unsigned,
              "differing tetrahedra (settee)"),
    ST_OUTPUT(read_state, kind_errors[4], "hexahedraError", ST_T_UINT, unsigned,
              "differing hexahedra (settee)"),
    ST_FIELD_END};

static const st_field read_topology_fields[] = {
    READ_FIELDS(read_state),
    ST_LINK(read_state, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first one of the context)"),
    ST_OUTPUT(read_state, elements[0], "edges", ST_T_EDGES, st_array,
              "the edges of the last block read (settee; SOFA's data are unnamed)"),
    ST_OUTPUT(read_state, elements[1], "triangles", ST_T_TRIANGLES, st_array,
              "the triangles of the last block read (settee)"),
    ST_OUTPUT(read_state, elements[2], "quads", ST_T_QUADS, st_array,
              "the quads of the last block read (settee)"),
    ST_OUTPUT(read_state, elements[3], "tetrahedra", ST_T_TETRAS, st_array,
              "the tetrahedra of the last block read (settee)"),
    ST_OUTPUT(read_state, elements[4], "hexahedra", ST_T_HEXAS, st_array,
              "the hexahedra of the last block read (settee)"),
    ST_FIELD_END};

/* The largest file read, once inflated: a small gzip file can inflate to
 * gigabytes (1032:1). */
#define READ_STATE_MAX_BYTES ((size_t)256 << 20)

static st_status load_file(read_state *r, st_error *err)
{
    st_free(r->text);
    r->text = NULL;
    r->len = 0;
    ST_TRY(st_component_find_file(&r->base, "filename", r->filename, r->path, sizeof r->path,
                                  err));
    bool not_regular;
    int fd = regular_open(r->path, &not_regular);
    gzFile gz = fd >= 0 ? gzdopen(fd, "rb") : NULL;
    if (!gz) {
        if (fd >= 0)
            close(fd);
        return st_component_error(&r->base, "filename", err, ST_EIO, "cannot open '%s'%s",
                                  r->path, not_regular ? ": not a regular file" : "");
    }
    size_t cap = 1 << 16;
    r->text = st_malloc(cap + 1);
    int k = 0;
    bool too_big = false;
    while (r->text && (k = gzread(gz, r->text + r->len, (unsigned)(cap - r->len))) > 0) {
        r->len += (size_t)k;
        if (r->len >= READ_STATE_MAX_BYTES) {
            too_big = true;
            break;
        }
        if (r->len == cap) {
            cap *= 2;
            char *t = st_realloc(r->text, cap + 1);
            if (!t) {
                st_free(r->text);
                r->text = NULL;
            }
            r->text = t;
        }
    }
    /* a gzip stream cut short reads as a shorter file: zlib says so here */
    int zerr = Z_OK;
    if (k == 0)
        gzerror(gz, &zerr);
    gzclose(gz);
    if (!r->text)
        return st_error_set(err, ST_ENOMEM, "out of memory reading '%s'", r->path);
    if (too_big)
        return st_component_error(&r->base, "filename", err, ST_EINVAL,
                                  "'%s' holds more than %zu MiB once inflated: refused (a "
                                  "state file that large is more likely a damaged or hostile "
                                  "gzip stream)",
                                  r->path, READ_STATE_MAX_BYTES >> 20);
    if (k < 0 || zerr != Z_OK)
        return st_component_error(&r->base, "filename", err, ST_EIO,
                                  k < 0 ? "'%s' is not a valid gzip file"
                                        : "'%s' is cut short (its gzip stream ends early)",
                                  r->path);
    r->text[r->len] = 0;
    if (memchr(r->text, 0, r->len))
        return st_component_error(&r->base, "filename", err, ST_EINVAL,
                                  "'%s' holds a NUL byte: not a state file", r->path);
    return ST_OK;
}

/* The significant digits of the number [s, e): those of its mantissa from
 * the first non-zero one. */
static int significant_digits(const char *s, const char *e)
{
    int n = 0;
    bool started = false;
    for (; s < e && *s != 'e' && *s != 'E'; s++) {
        if (*s >= '1' && *s <= '9')
            started = true;
        if (started && *s >= '0' && *s <= '9')
            n++;
    }
    return n;
}

/* Every T=, X= and V= line of a state file checked once at init: numbers
 * only, all finite, so that a broken reference is an error at its line
 * rather than a NaN in the state or a comparison that passes. With loop, the
 * file needs a last time > 0 (reading starts over from there). */
static st_status check_file(read_state *r, st_error *err)
{
    int line = 1;
    double last_t = 0;
    bool any_t = false;
    r->full_digits = false;
    for (size_t pos = 0; pos < r->len; line++) {
        const char *s = r->text + pos, *eol = strchr(s, '\n');
        size_t n = eol ? (size_t)(eol - s) : strlen(s);
        pos += n + (eol ? 1 : 0);
        const char *p = s + strspn(s, " \t"), *end = s + n;
        bool is_t = !strncmp(p, "T=", 2), is_xv = !strncmp(p, "X=", 2) || !strncmp(p, "V=", 2);
        if (!is_t && !is_xv)
            continue;
        size_t count = 0;
        for (const char *q = p + 2;;) {
            while (q < end && (*q == ' ' || *q == '\t' || *q == '\r'))
                q++;
            if (q >= end)
                break;
            char *e;
            double v = strtod(q, &e);
            if (e == q || e > end || (e < end && !strchr(" \t\r", *e)) || !isfinite(v)) {
                size_t w = strcspn(q, " \t\r\n");
                return st_component_error(&r->base, "filename", err, ST_EPARSE,
                                          "%s:%d: %.2s value %zu, '%.*s', is not a finite "
                                          "number",
                                          r->path, line, p, count + 1, (int)(w > 40 ? 40 : w),
                                          q);
            }
            if (is_t)
                last_t = v;
            else if (!r->full_digits && significant_digits(q, e) > 6)
                r->full_digits = true;
            count++;
            q = e;
        }
        if (is_t && count != 1)
            return st_component_error(&r->base, "filename", err, ST_EPARSE,
                                      "%s:%d: a T= line holds one time, found %zu values",
                                      r->path, line, count);
        any_t |= is_t;
    }
    if (r->loop && !(any_t && last_t > 0))
        return st_component_error(&r->base, "loop", err, ST_EINVAL,
                                  "'%s' %s: with loop, reading starts over after the last "
                                  "time, which must be > 0",
                                  r->path, any_t ? "ends at a time <= 0" : "has no T= line");
    return ST_OK;
}

static void rewind_file(read_state *r)
{
    r->pos = 0;
    r->line = 1;
    r->next_time = 0;
    r->loop_time = 0;
}

/* scalePos 1, no rotation, no translation: ReadState copies the file's
 * values as they are (any state type). */
static bool transform_is_identity(const read_state *r)
{
    return r->scale_pos == 1 && r->rotation[0] == 0 && r->rotation[1] == 0 &&
           r->rotation[2] == 0 && r->translation[0] == 0 && r->translation[1] == 0 &&
           r->translation[2] == 0;
}

static st_status read_state_init(st_component *self, st_error *err)
{
    read_state *r = (read_state *)self;
    if (r->topology_mode) {
        if (!st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_LOCAL))
            return st_component_error(self, NULL, err, ST_ESCENE,
                                      "no topology in this node to compare");
    } else if (!st_component_mstate(self))
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in this node or its ancestors to %s",
                                  r->compare ? "compare" : "set");
    if (!r->topology_mode && !r->compare && !transform_is_identity(r))
        ST_TRY(state_view_check(self, st_component_mstate(self), err));
    ST_TRY(load_file(r, err));
    if (!r->topology_mode)
        ST_TRY(check_file(r, err));
    rewind_file(r);
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static st_status compare_state_create(st_component *self, st_error *err)
{
    ((read_state *)self)->compare = true;
    (void)err;
    return ST_OK;
}

static st_status compare_topology_create(st_component *self, st_error *err)
{
    ((read_state *)self)->topology_mode = true;
    (void)err;
    return ST_OK;
}

static st_status read_topology_create(st_component *self, st_error *err)
{
    ((read_state *)self)->read_topology = true;
    (void)err;
    return ST_OK;
}

/* One line read from the file: [s, s + n), its number. */
typedef struct line_ref {
    size_t start, n;
    int line;
} line_ref;
#define MAX_LINES 16

/* SOFA's readNext: the lines after the last "T=" at or before time. */
static size_t read_next(read_state *r, double time, line_ref *lines)
{
    size_t nl = 0;
    while (r->next_time <= time) {
        if (r->pos >= r->len) {
            if (!r->loop || !r->len)
                break;
            r->pos = 0;
            r->line = 1;
            r->loop_time = r->next_time;
        }
        const char *s = r->text + r->pos;
        const char *eol = strchr(s, '\n');
        size_t n = eol ? (size_t)(eol - s) : strlen(s);
        line_ref lr = {r->pos, n, r->line};
        r->pos += n + (eol ? 1 : 0);
        r->line++;
        const char *p = s + strspn(s, " \t");
        if (!strncmp(p, "T=", 2)) {
            r->next_time = strtod(p + 2, NULL) + r->loop_time;
            if (r->next_time <= time)
                nl = 0;
        }
        if (r->next_time <= time && nl < MAX_LINES)
            lines[nl++] = lr;
    }
    return nl;
}

/* The values of an "X= ..." line into out (3 n doubles); returns how many. */
static size_t parse_values(const char *s, size_t len, double *out, size_t max)
{
    const char *p = s, *end = s + len;
    size_t k = 0;
    while (p < end && k < max) {
        char *q;
        double v = strtod(p, &q);
        if (q == p || q > end)
            break;
        out[k++] = v;
        p = q;
    }
    return k;
}

/* Scalars per vertex of a line of ms's X= (is_x) or V= vectors. */
static size_t line_width(const st_mstate *ms, bool is_x)
{
    if (!ms->type)
        return 3;
    return is_x ? ms->type->coord_size : ms->type->deriv_size;
}

/* SOFA compares the state as its streams print it (6 significant digits). */
static double as_printed(double v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.6g", v);
    return strtod(buf, NULL);
}

/* x' = R (scale x) + t with SOFA's Euler angles (degrees, R = Rz Ry Rx). */
static void transform(const read_state *r, double *x, size_t n)
{
    const double d = 3.14159265358979323846 / 180.0;
    double cx = cos(r->rotation[0] * d), sx = sin(r->rotation[0] * d);
    double cy = cos(r->rotation[1] * d), sy = sin(r->rotation[1] * d);
    double cz = cos(r->rotation[2] * d), sz = sin(r->rotation[2] * d);
    double R[3][3] = {{cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx},
                      {sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx},
                      {-sy, cy * sx, cy * cx}};
    for (size_t i = 0; i < n; i++) {
        double p[3];
        for (int a = 0; a < 3; a++)
            p[a] = r->scale_pos * x[3 * i + a];
        for (int a = 0; a < 3; a++)
            x[3 * i + a] = R[a][0] * p[0] + R[a][1] * p[1] + R[a][2] * p[2] + r->translation[a];
    }
}

static void report_difference(read_state *r, const char *tag, double time, int line,
                              double mean, size_t worst, double dmax, size_t width)
{
    st_error err = {0};
    st_error_set(&err, ST_ESOLVER,
                 "at t = %.17g, %s differs from the reference %s:%d by %.6g on average per "
                 "value (epsilon %g); the largest difference, %.6g, is at vertex %zu",
                 time, tag, r->path, line, mean, r->epsilon, dmax, worst / width);
    out_log_error(&r->base, &err);
}

/* a + b, at most UINT_MAX */
static unsigned sat_add(unsigned a, size_t b)
{
    return b >= (size_t)(UINT_MAX - a) ? UINT_MAX : a + (unsigned)b;
}

/* The element kinds of SOFA's topology files, in WriteTopology's order. */
static const char *const topo_tags[5] = {"Edges=", "Triangles=", "Quads=", "Tetrahedra=",
                                         "Hexahedra="};
static const st_type topo_kinds[5] = {ST_T_EDGES, ST_T_TRIANGLES, ST_T_QUADS, ST_T_TETRAS,
                                      ST_T_HEXAS};
static const unsigned topo_width[5] = {2, 3, 4, 4, 8};

/* The next non-empty block ("Kind= n" and its line of indices) among the
 * lines [*i, nl) of a step: its kind, count and the two lines; false when
 * none is left. Blocks of 0 elements are skipped, as SOFA does. */
static bool next_block(const read_state *r, const line_ref *lines, size_t nl, size_t *i, int *kind,
                       unsigned long *count, const line_ref **header, const line_ref **indices)
{
    for (; *i < nl; (*i)++) {
        const char *s = r->text + lines[*i].start;
        const char *p = s + strspn(s, " \t");
        int k = 0;
        while (k < 5 && strncmp(p, topo_tags[k], strlen(topo_tags[k])) != 0)
            k++;
        if (k == 5)
            continue;
        unsigned long n = strtoul(p + strlen(topo_tags[k]), NULL, 10);
        if (*i + 1 >= nl)
            return false;
        *header = &lines[*i];
        *indices = &lines[*i + 1];
        *i += 2; /* the indices are on the next line */
        if (n == 0) {
            (*i)--; /* for the loop's increment */
            continue;
        }
        *kind = k;
        *count = n;
        return true;
    }
    return false;
}

/* SOFA's CompareTopology at the beginning of a step: the blocks of the file
 * up to the node's time (+ 1e-8, ReadTopology's epsilon) against the node's
 * topology. */
static void compare_topology(read_state *r)
{
    const char *const *tags = topo_tags;
    const unsigned *width = topo_width;
    st_component *topo = st_node_find(r->base.node, ST_ROLE_TOPOLOGY, ST_SEARCH_LOCAL);
    if (!topo)
        return;
    double time = st_node_time(r->base.node) + r->shift;
    line_ref lines[MAX_LINES];
    size_t nl = read_next(r, time + 1e-8, lines);
    size_t i = 0;
    int k;
    unsigned long nref;
    const line_ref *hl, *il;
    while (next_block(r, lines, nl, &i, &k, &nref, &hl, &il)) {
        const st_array *el = topo->cls->topology->elements(topo, topo_kinds[k]);
        size_t n = el ? el->n : 0;
        /* counted in 64 bits; the 32-bit outputs saturate at UINT_MAX */
        size_t errors = 0;
        if (n != nref) {
            errors = n > nref ? n - nref : nref - n;
        } else {
            const char *q = r->text + il->start, *end = q + il->n;
            for (size_t e = 0; e < n; e++) {
                bool differs = false;
                for (unsigned c = 0; c < width[k]; c++) {
                    char *qe;
                    unsigned long v = strtoul(q, &qe, 10);
                    if (qe == q || qe > end)
                        v = (unsigned long)-1;
                    q = qe;
                    differs |= v != el->u[width[k] * e + c];
                }
                errors += differs;
            }
        }
        r->kind_errors[k] = sat_add(r->kind_errors[k], errors);
        r->topo_total = sat_add(r->topo_total, errors);
        if (errors && r->strict && !r->failed) {
            r->failed = true;
            st_error err = {0};
            st_error_set(&err, ST_ESOLVER,
                         "at t = %.17g, %zu of the %lu %.*s of the reference %s:%d differ from "
                         "the topology '%s' (%zu)",
                         st_node_time(r->base.node), errors, nref,
                         (int)strlen(tags[k]) - 1, tags[k], r->path, hl->line,
                         topo->name, n);
            out_log_error(&r->base, &err);
        }
    }
}

/* SOFA's ReadTopology at the beginning of a step: the blocks of the file up
 * to the node's time (+ 1e-8) into the element lists, a kind's list
 * replaced by each of its blocks (a block of 0 elements leaves it). A line
 * with fewer indices than its count, or an index that is not one, is a
 * warning naming the file's line, and that list is left as it was. */
static void read_topology(read_state *r)
{
    static const char *const outputs[5] = {"edges", "triangles", "quads", "tetrahedra",
                                           "hexahedra"};
    double time = st_node_time(r->base.node) + r->shift;
    line_ref lines[MAX_LINES];
    size_t nl = read_next(r, time + 1e-8, lines);
    size_t i = 0;
    int k;
    unsigned long nref;
    const line_ref *hl, *il;
    while (next_block(r, lines, nl, &i, &k, &nref, &hl, &il)) {
        const char *tag = topo_tags[k];
        size_t count = (size_t)nref * topo_width[k];
        if (nref > il->n) { /* more elements than characters: cannot be */
            st_component_warn(&r->base, "%s:%d: %lu %.*s announced, the next line is shorter",
                              r->path, hl->line, nref, (int)strlen(tag) - 1, tag);
            continue;
        }
        st_error err = {0};
        st_array *el = &r->elements[k];
        if (st_array_resize(el, topo_kinds[k], nref, &err) != ST_OK) {
            st_component_warn(&r->base, "%s", err.msg);
            continue;
        }
        const char *q = r->text + il->start, *end = q + il->n;
        size_t got = 0;
        while (got < count) {
            char *qe;
            unsigned long v = strtoul(q, &qe, 10);
            if (qe == q || qe > end || v > UINT_MAX)
                break;
            el->u[got++] = (unsigned)v;
            q = qe;
        }
        if (got < count) {
            st_component_warn(&r->base, "%s:%d: %zu indices for %lu %.*s (%zu expected): the "
                                        "list is not read",
                              r->path, il->line, got, nref, (int)strlen(tag) - 1, tag, count);
            el->n = 0;
            continue;
        }
        st_component_touch(&r->base, st_component_field(&r->base, outputs[k]));
    }
}

static void read_state_on_event(st_component *self, st_event ev, double dt)
{
    read_state *r = (read_state *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    if (r->read_topology) {
        if (ev == ST_EVENT_ANIMATE_BEGIN)
            read_topology(r);
        return;
    }
    if (r->topology_mode) {
        if (ev == ST_EVENT_ANIMATE_BEGIN)
            compare_topology(r);
        return;
    }
    /* ReadState sets the initial state once the scene is initialised (SOFA's
     * bwdInit), and both act at the beginning of each step. */
    if (!(ev == ST_EVENT_ANIMATE_BEGIN || (ev == ST_EVENT_INIT_DONE && !r->compare)))
        return;
    st_mstate *ms = st_component_mstate(self);
    double time = st_node_time(self->node) + r->shift;
    if (r->compare)
        time += 0.001 * dt;
    line_ref lines[MAX_LINES];
    size_t nl = read_next(r, time, lines);
    bool changed = false;
    for (size_t i = 0; i < nl; i++) {
        const char *s = r->text + lines[i].start;
        const char *p = s + strspn(s, " \t");
        size_t rest = lines[i].n - (size_t)(p - s);
        bool is_x = !strncmp(p, "X=", 2), is_v = !strncmp(p, "V=", 2);
        if (!is_x && !is_v)
            continue;
        double *dst = is_x ? state_view_edit_x(ms) : state_view_edit_v(ms);
        size_t n = ms->n ? ms->n : ms->position.n, width = line_width(ms, is_x);
        if (!dst)
            continue;
        if (!r->compare) {
            size_t k = parse_values(p + 2, rest - 2, dst, width * n);
            if (is_x && !transform_is_identity(r))
                transform(r, dst, k / 3);
            changed = true;
            continue;
        }
        /* CompareState: SOFA's compareVec, mean |ref - cur| over the values. */
        double sum = 0, dmax = 0;
        size_t count = 0, worst = 0;
        const char *q = p + 2, *end = p + rest;
        while (q < end && count < width * n) {
            char *e;
            double ref = strtod(q, &e);
            if (e == q || e > end)
                break;
            double cur = r->full_digits ? dst[count] : as_printed(dst[count]);
            double d = fabs(ref - cur);
            sum += d;
            if (d > dmax || isnan(d)) {
                dmax = d;
                worst = count;
            }
            count++;
            q = e;
        }
        double mean = count ? sum / (double)count : 0.0;
        r->total_error += mean;
        if (n)
            r->error_by_dof += mean / (double)n;
        if (r->epsilon > 0 && !r->failed && !(mean <= r->epsilon)) {
            r->failed = true;
            report_difference(r, is_x ? "X" : "V", st_node_time(self->node), lines[i].line,
                              mean, worst, dmax, width);
        }
    }
    if (changed)
        state_view_propagate(ms);
}

static void read_state_reset(st_component *self)
{
    read_state *r = (read_state *)self;
    rewind_file(r);
    for (int k = 0; k < 5; k++)
        r->elements[k].n = 0;
    memset(r->kind_errors, 0, sizeof r->kind_errors);
    r->topo_total = 0;
}

static void read_state_cleanup(st_component *self)
{
    read_state *r = (read_state *)self;
    st_free(r->text);
    r->text = NULL;
}

const st_class read_state_class = {
    .struct_size = sizeof(st_class),
    .name = "ReadState",
    .category = "Playback",
    .description = "Read State vectors from file at each timestep",
    .instance_size = sizeof(read_state),
    .fields = read_state_fields,
    .init = read_state_init,
    .reinit = read_state_init,
    .reset = read_state_reset,
    .on_event = read_state_on_event,
    .cleanup = read_state_cleanup,
};

const st_class compare_state_class = {
    .struct_size = sizeof(st_class),
    .name = "CompareState",
    .category = "Playback",
    .description = "Compare State vectors from a reference frame to the associated Mechanical "
                   "State",
    .instance_size = sizeof(read_state),
    .fields = compare_state_fields,
    .create = compare_state_create,
    .init = read_state_init,
    .reinit = read_state_init,
    .reset = read_state_reset,
    .on_event = read_state_on_event,
    .cleanup = read_state_cleanup,
};

const st_class compare_topology_class = {
    .struct_size = sizeof(st_class),
    .name = "CompareTopology",
    .category = "Playback",
    .description = "Compare Topology containers from a reference frame to the associated "
                   "Topology",
    .instance_size = sizeof(read_state),
    .fields = compare_topology_fields,
    .create = compare_topology_create,
    .init = read_state_init,
    .reinit = read_state_init,
    .reset = read_state_reset,
    .on_event = read_state_on_event,
    .cleanup = read_state_cleanup,
};

const st_class read_topology_class = {
    .struct_size = sizeof(st_class),
    .name = "ReadTopology",
    .category = "Playback",
    .description = "Read topology containers informations from file at each timestep",
    .instance_size = sizeof(read_state),
    .fields = read_topology_fields,
    .create = read_topology_create,
    .init = read_state_init,
    .reinit = read_state_init,
    .reset = read_state_reset,
    .on_event = read_state_on_event,
    .cleanup = read_state_cleanup,
};
