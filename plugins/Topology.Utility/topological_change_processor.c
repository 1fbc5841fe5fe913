/* topological_change_processor.c - SOFA's TopologicalChangeProcessor: the
 * topological changes of a scene, read from a file or given as lists.
 *
 * The file holds blocks "T= time" followed by commands; "REMOVE= n" is
 * followed by a line of n indices, removed by the first topology modifier
 * found from the topology's node upward, as that modifier's removeItems
 * does (the element kind is the modifier's: tetrahedra for a
 * TetrahedronSetTopologyModifier). At the beginning of each step, SOFA's
 * readNext reads the file up to the node's time plus `shift` (times within
 * machine epsilon count as reached) and runs the commands of the last block
 * reached; with `loop` the file starts again at its end, its times shifted
 * by the time reached. The whole file is read and checked at init: a
 * malformed line, an unknown command, a value that is not an index or a
 * time earlier than the one before is an error at the file's line; a count
 * that does not match its line of indices is read as SOFA reads it
 * (missing values are 0), with a warning at the line. "ADD= Type n" is
 * followed by a line of the new elements' vertices (Edges, Triangles,
 * Quads, Tetrahedra or Hexahedra: SOFA's addEdges ... addHexahedra, by the
 * first modifier of that kind from the topology's node upward), or
 * "ADD= PointsInTriangle n" by a line of n (triangle, u, v): new points at
 * those barycentric places (SOFA's addPoints with the triangle's vertices
 * as ancestors, weights u, v, 1 - u - v). "INCISE= n" is followed by a
 * line of n points (3 coordinates each, or a triangle index and 3
 * coordinates): the surface of the first TriangleSetTopologyModifier is
 * cut from each point to the next (incision.c: SOFA's
 * computeIntersectedObjectsList, SplitAlongPath, InciseAlongEdgeList); with
 * saveIndicesAtInit the points are kept at init as barycentric places on
 * the surface, so that they follow it, and found again after each cut
 * (SOFA's saveIndices, updateTriangleIncisionInformation). A path that
 * cannot be made (a point on no triangle) is said and left, as SOFA's
 * "Invalid path". An index beyond the topology's elements is
 * skipped with SOFA's warning, at the file's line.
 *
 * With useDataInputs, the lists pointsToRemove ... hexahedraToRemove are
 * removed at the first step whose time is past timeToRemove (hexahedra
 * first, points last, as SOFA), then timeToRemove advances by `interval`,
 * or to 4294967295 (never again) without one. Each list goes to the first
 * modifier that is of its kind or derives from it (SOFA's context lookup),
 * which removes its own kind: a warning says so when that differs. */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/output_file.h"
#include "../shared/topology_modifier.h"
#include "incision.h"
#include "../shared/topology_link.h"

/* One command of the file. */
typedef enum cmd_kind { CMD_TIME, CMD_REMOVE, CMD_ADD, CMD_INCISE, CMD_OTHER } cmd_kind;

typedef struct tcp_line {
    cmd_kind kind;
    int line;          /* 1-based line number in the file */
    double time;       /* CMD_TIME */
    unsigned *ids;     /* CMD_REMOVE: the indices (from the next line); CMD_ADD: the
                        * new elements' vertices, st_elem_vertices(add) each; CMD_INCISE:
                        * per point, the triangle written before it (UINT_MAX: none) */
    size_t n;          /* CMD_REMOVE: indices; CMD_ADD: elements */
    st_elem add;       /* CMD_ADD: the kind of the new elements (POINT: PointsInTriangle,
                        * ids the triangles) */
    double *bary;      /* CMD_ADD of points: 2 barycentric coordinates per point; CMD_INCISE:
                        * the n points' coordinates, 3 each */
    bool blank;        /* no token at all (SOFA keeps the previous command) */
    bool empty;        /* no character at all (SOFA's saveIndices skips it) */
} tcp_line;

/* saveIndicesAtInit: SOFA's TriangleIncisionInformation, the points of the
 * incisions of one time (those of several INCISE= of that time follow
 * each other), each kept as a triangle index and SOFA's barycentric
 * weights there, and their coordinates as last computed from them. */
typedef struct inc_info {
    double time;
    int line;          /* the file line of the first INCISE= of that time */
    size_t n;
    unsigned *tri;     /* SOFA's triangleIndices */
    double *bary;      /* barycentricCoordinates, 3 per point */
    double *coords;    /* coordinates, 3 per point */
} inc_info;

typedef struct tcp {
    st_component base;
    char *filename;
    st_array list_changes;
    double interval, shift;
    bool loop, use_data_inputs;
    double time_to_remove;
    st_array to_remove[ST_ELEM_COUNT]; /* points ... hexahedra */
    bool save_indices_at_init;
    double eps_path, eps_border;
    bool draw;
    st_component *topology;
    /* The file, parsed. */
    char path[OUT_PATH_MAX];
    tcp_line *lines;
    size_t nlines, cursor;
    inc_info *infos;
    size_t ninfos;
    double next_time, last_time, loop_time;
    /* SOFA's around-arrays of the incised surface, kept from init */
    inc_shells shells;
    bool listening;
} tcp;

#define REMOVE_LIST(k, key, what)                                                                 \
    ST_UINTS(tcp, to_remove[k], key, NULL, "List of " what " IDs to be removed.")

static const st_field tcp_fields[] = {
    ST_STRING(tcp, filename, "filename", NULL, "input file name for topological changes."),
    ST_IGNORED(tcp, list_changes, "listChanges", ST_T_UINTS, st_array, NULL,
               "0 for adding, 1 for removing, 2 for cutting and associated indices."),
    ST_REAL(tcp, interval, "interval", "0", "time duration between 2 actions"),
    ST_REAL(tcp, shift, "shift", "0",
            "shift between times in the file and times when they will be read"),
    ST_BOOL(tcp, loop, "loop", "false", "set to 'true' to re-read the file when reaching the end"),
    ST_BOOL(tcp, use_data_inputs, "useDataInputs", "false",
            "If true, will perform operation using Data input lists rather than text file."),
    ST_REAL(tcp, time_to_remove, "timeToRemove", "0",
            "If using option useDataInputs, time at which will be done the operations. "
            "Possibility to use the interval Data also."),
    REMOVE_LIST(ST_ELEM_POINT, "pointsToRemove", "point"),
    REMOVE_LIST(ST_ELEM_EDGE, "edgesToRemove", "edge"),
    REMOVE_LIST(ST_ELEM_TRIANGLE, "trianglesToRemove", "triangle"),
    REMOVE_LIST(ST_ELEM_QUAD, "quadsToRemove", "quad"),
    REMOVE_LIST(ST_ELEM_TETRAHEDRON, "tetrahedraToRemove", "tetrahedron"),
    REMOVE_LIST(ST_ELEM_HEXAHEDRON, "hexahedraToRemove", "hexahedron"),
    ST_BOOL(tcp, save_indices_at_init, "saveIndicesAtInit", "false",
            "set to 'true' to save the incision to do in the init to incise even after a "
            "movement"),
    ST_REAL(tcp, eps_path, "epsilonSnapPath", "0.1",
            "epsilon snap path: the path points on the edges of a vertex that an incision "
            "crosses an edge closer to than this edge weight are merged into that vertex, "
            "moved to their mean (SOFA's SnapAlongPath; 0: none). As in SOFA, only the "
            "incisions of saveIndicesAtInit use it; the others snap with 0.1"),
    ST_REAL(tcp, eps_border, "epsilonSnapBorder", "0.25",
            "epsilon snap path: an incision's end with a weight below this opposite a border "
            "edge goes onto the edge (by SOFA's projection), opposite an inner edge onto a "
            "vertex whose weight passes 1 - epsilon (SOFA's SnapBorderPath; 0: none). As in "
            "SOFA, only the incisions of saveIndicesAtInit use it; the others snap with 0.25"),
    ST_IGNORED(tcp, draw, "draw", ST_T_BOOL, bool, "false", "draw information"),
    ST_LINK(tcp, topology, "topology", ST_LINK_TOPOLOGY, "link to the topology container"),
    ST_FIELD_END};

/* ---- the modifiers (SOFA's class chain) ---- */

/* The first modifier of kind `base` or derived from it, from the topology's
 * node upward (SOFA's getContext()->get). base < 0: any modifier. */
static st_component *find_modifier(tcp *t, int base)
{
    return st_find_modifier(t->topology->node, base);
}

/* The container a modifier changes: the topology of its node, upward. */
static st_component *modifier_container(st_component *mod)
{
    return st_node_find(mod->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
}

/* ---- the file ---- */

static void free_lines(tcp *t)
{
    for (size_t i = 0; i < t->nlines; i++) {
        st_free(t->lines[i].ids);
        st_free(t->lines[i].bary);
    }
    st_free(t->lines);
    t->lines = NULL;
    t->nlines = 0;
    for (size_t i = 0; i < t->ninfos; i++) {
        st_free(t->infos[i].tri);
        st_free(t->infos[i].bary);
        st_free(t->infos[i].coords);
    }
    st_free(t->infos);
    t->infos = NULL;
    t->ninfos = 0;
}

static st_status line_error(tcp *t, int line, st_error *err, const char *fmt, const char *a,
                            const char *b)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, a, b);
    return st_component_error(&t->base, "filename", err, ST_ESCENE, "%s:%d: %s", t->path, line,
                              msg);
}

/* The tokens of [s, e) separated by blanks; returns their count. */
static size_t tokens(const char *s, const char *e, const char **tok, size_t *len, size_t max)
{
    size_t n = 0;
    while (s < e) {
        while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        if (s >= e)
            break;
        const char *b = s;
        while (s < e && !(*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        if (n < max) {
            tok[n] = b;
            len[n] = (size_t)(s - b);
        }
        n++;
    }
    return n;
}

static bool is_token(const char *tok, size_t len, const char *word)
{
    return len == strlen(word) && !memcmp(tok, word, len);
}

/* An unsigned index written as SOFA's stream reads it: digits only. */
static bool parse_index(const char *tok, size_t len, unsigned *out)
{
    if (!len || len > 10)
        return false;
    unsigned long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (tok[i] < '0' || tok[i] > '9')
            return false;
        v = v * 10 + (unsigned long)(tok[i] - '0');
    }
    if (v > 0xffffffffUL)
        return false;
    *out = (unsigned)v;
    return true;
}

/* The indices of a data line into out->ids (room for n; the count the line
 * holds in *k, those beyond n read and left): a value that is not an index is
 * an error naming `what`. */
static st_status read_index_line(tcp *t, const char *s, const char *e, int line, size_t n,
                                 const char *what, tcp_line *out, size_t *k, st_error *err)
{
    out->ids = st_calloc(n ? n : 1, sizeof(unsigned));
    if (!out->ids)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    *k = 0;
    while (s < e) {
        while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        if (s >= e)
            break;
        const char *b = s;
        while (s < e && !(*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        unsigned v;
        if (!parse_index(b, (size_t)(s - b), &v)) {
            char tok[64];
            snprintf(tok, sizeof tok, "%.*s", (int)(s - b > 40 ? 40 : s - b), b);
            return line_error(t, line, err, "'%s' is not %s", tok, what);
        }
        if (*k < n)
            out->ids[*k] = v;
        (*k)++;
    }
    return ST_OK;
}

/* The indices of a REMOVE= data line. SOFA reads n values from it: missing
 * ones read as 0 and extra ones are left, both with a warning here; a value
 * that is not an index is an error. */
static st_status parse_ids(tcp *t, const char *s, const char *e, int line, size_t n,
                           tcp_line *out, st_error *err)
{
    size_t k;
    ST_TRY(read_index_line(t, s, e, line, n, "an element index", out, &k, err));
    if (k < n)
        st_component_warn(&t->base,
                          "%s:%d: REMOVE= announced %zu indices, but this line holds %zu: as "
                          "SOFA, the missing ones read as 0",
                          t->path, line, n, k);
    else if (k > n)
        st_component_warn(&t->base,
                          "%s:%d: REMOVE= announced %zu indices, but this line holds %zu: as "
                          "SOFA, the last %zu are ignored",
                          t->path, line, n, k, k - n);
    out->n = n;
    return ST_OK;
}

/* The vertex indices of an ADD= data line: exactly nv of them (a missing
 * vertex would make a degenerate element; SOFA's reader leaves it invalid). */
static st_status parse_vertices(tcp *t, const char *s, const char *e, int line, size_t nv,
                                tcp_line *out, st_error *err)
{
    size_t k;
    ST_TRY(read_index_line(t, s, e, line, nv, "a point index", out, &k, err));
    if (k != nv) {
        char a[64], b[32];
        snprintf(a, sizeof a, "%zu vertex indices", nv);
        snprintf(b, sizeof b, "%zu", k);
        return line_error(t, line, err, "ADD= announced %s, but this line holds %s", a, b);
    }
    return ST_OK;
}

/* The data line of "ADD= PointsInTriangle n": n times a triangle index
 * and two barycentric coordinates (of the triangle's first two vertices;
 * the third gets 1 - u - v), exactly 3 n values. */
static st_status parse_points_in_triangle(tcp *t, const char *s, const char *e, int line,
                                          size_t n, tcp_line *out, st_error *err)
{
    out->ids = st_malloc((n ? n : 1) * sizeof *out->ids);
    out->bary = st_malloc((n ? 2 * n : 1) * sizeof *out->bary);
    if (!out->ids || !out->bary)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    size_t k = 0;
    const char *p = s;
    for (;;) {
        while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p >= e)
            break;
        const char *q = p;
        while (q < e && *q != ' ' && *q != '\t' && *q != '\r')
            q++;
        char tok[64];
        snprintf(tok, sizeof tok, "%.*s", (int)((size_t)(q - p) > 60 ? 60 : (size_t)(q - p)), p);
        if (k < 3 * n && k % 3 == 0) {
            if (!parse_index(p, (size_t)(q - p), &out->ids[k / 3]))
                return line_error(t, line, err, "'%s' is not a triangle index%s", tok, "");
        } else if (k < 3 * n) {
            char *endp = NULL;
            double v = strtod(tok, &endp);
            if (!endp || *endp || !isfinite(v))
                return line_error(t, line, err, "'%s' is not a barycentric coordinate%s", tok,
                                  "");
            out->bary[2 * (k / 3) + k % 3 - 1] = v;
        }
        k++;
        p = q;
    }
    if (k != 3 * n) {
        char a[64], b[32];
        snprintf(a, sizeof a, "%zu values (a triangle and two coordinates per point)", 3 * n);
        snprintf(b, sizeof b, "%zu", k);
        return line_error(t, line, err, "ADD= announced %s, but this line holds %s", a, b);
    }
    return ST_OK;
}

/* The data line of "INCISE= n": n points, each its coordinates (3 values)
 * or a triangle index and its coordinates (4 values), as SOFA's
 * getValuesInLine reads them (a written triangle is taken as the first
 * point's, as SOFA's ind_ta; without one the triangle is searched). */
static st_status parse_incision(tcp *t, const char *s, const char *e, int line, size_t n,
                                tcp_line *out, st_error *err)
{
    double vals[4096];
    size_t k = 0;
    const char *p = s;
    for (;;) {
        while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p >= e)
            break;
        const char *q = p;
        while (q < e && *q != ' ' && *q != '\t' && *q != '\r')
            q++;
        char tok[64], *endp = NULL;
        snprintf(tok, sizeof tok, "%.*s", (int)((size_t)(q - p) > 60 ? 60 : (size_t)(q - p)), p);
        double v = strtod(tok, &endp);
        if (!endp || *endp || !isfinite(v))
            return line_error(t, line, err, "'%s' is not a coordinate%s", tok, "");
        if (k < sizeof vals / sizeof *vals)
            vals[k] = v;
        k++;
        p = q;
    }
    if (k != 3 * n && k != 4 * n) {
        char a[96], b[32];
        snprintf(a, sizeof a, "%zu values (3 coordinates, or a triangle and 3 coordinates, per "
                 "point)", 3 * n);
        snprintf(b, sizeof b, "%zu", k);
        if (k == 4 * n || 3 * n == k)
            a[0] = 0;
        return line_error(t, line, err, "INCISE= announced %s, but this line holds %s", a, b);
    }
    if (k > sizeof vals / sizeof *vals)
        return line_error(t, line, err, "INCISE= holds too many points (%s values)%s", "> 4096",
                          "");
    size_t stride = k / n;
    out->bary = st_malloc(3 * n * sizeof *out->bary);
    if (!out->bary)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    out->ids = st_malloc(n * sizeof *out->ids);
    if (!out->ids)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < 3; j++)
            out->bary[3 * i + j] = vals[stride * i + stride - 3 + j];
        double ti = vals[stride * i];
        out->ids[i] = stride == 4 && ti >= 0 && ti < 4294967295.0 ? (unsigned)ti : UINT_MAX;
    }
    return ST_OK;
}

/* Parses the whole file into commands, checking every line. */
static st_status parse_file(tcp *t, const char *text, size_t len, st_error *err)
{
    size_t cap = 16;
    t->lines = st_calloc(cap, sizeof *t->lines);
    if (!t->lines)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    const char *p = text, *end = text + len;
    int line = 1;
    double prev_time = -INFINITY;
    int prev_line = 0;
    /* SOFA's getline: the text splits at each newline; a final newline
     * leaves one empty line after it. */
    for (;;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        if (t->nlines == cap) {
            cap *= 2;
            tcp_line *l = st_realloc(t->lines, cap * sizeof *l);
            if (!l)
                return st_error_set(err, ST_ENOMEM, "out of memory");
            t->lines = l;
        }
        tcp_line *cur = &t->lines[t->nlines++];
        memset(cur, 0, sizeof *cur);
        cur->line = line;
        cur->kind = CMD_OTHER;
        const char *tok[4];
        size_t tl[4];
        size_t nt = tokens(p, e, tok, tl, 4);
        cur->blank = nt == 0;
        cur->empty = e == p;
        if (nt && is_token(tok[0], tl[0], "T=")) {
            char buf[64], *stop = NULL;
            snprintf(buf, sizeof buf, "%.*s", nt > 1 ? (int)(tl[1] > 60 ? 60 : tl[1]) : 0,
                     nt > 1 ? tok[1] : "");
            errno = 0;
            double v = nt > 1 ? strtod(buf, &stop) : 0.0;
            if (nt < 2 || !stop || *stop || !isfinite(v))
                return line_error(t, line, err, "'T=' needs a finite time, found '%s'%s",
                                  nt > 1 ? buf : "", "");
            if (v < prev_time) {
                char a[96], b[32];
                snprintf(a, sizeof a, "%g is earlier than the time %g", v, prev_time);
                snprintf(b, sizeof b, "%d", prev_line);
                return line_error(t, line, err, "T= %s of line %s: times must not go back",
                                  a, b);
            }
            prev_time = v;
            prev_line = line;
            cur->kind = CMD_TIME;
            cur->time = v;
        } else if (nt && is_token(tok[0], tl[0], "REMOVE=")) {
            unsigned n = 0;
            if (nt < 2 || !parse_index(tok[1], tl[1], &n))
                return line_error(t, line, err, "'REMOVE=' needs the number of elements%s%s",
                                  "", "");
            if (!nl)
                return line_error(t, line, err,
                                  "'REMOVE=' must be followed by a line of indices%s%s", "", "");
            /* The indices are the next line. */
            const char *q = nl + 1;
            const char *qe = memchr(q, '\n', (size_t)(end - q));
            if (!qe)
                qe = end;
            cur->kind = CMD_REMOVE;
            ST_TRY(parse_ids(t, q, qe, line + 1, n, cur, err));
            p = qe < end ? qe + 1 : end;
            line += 2;
            if (qe == end)
                break;
            continue;
        } else if (nt && is_token(tok[0], tl[0], "ADD=")) {
            /* "ADD= Type n [Ancestors ...]", then a line of the new
             * elements' vertices (SOFA's addEdges ... addHexahedra) */
            static const struct {
                const char *one, *many;
                st_elem kind;
            } types[] = {{"Edge", "Edges", ST_ELEM_EDGE},
                         {"Triangle", "Triangles", ST_ELEM_TRIANGLE},
                         {"Quad", "Quads", ST_ELEM_QUAD},
                         {"Tetrahedron", "Tetrahedra", ST_ELEM_TETRAHEDRON},
                         {"Hexahedron", "Hexahedra", ST_ELEM_HEXAHEDRON},
                         {"PointInTriangle", "PointsInTriangle", ST_ELEM_POINT}};
            int ty = -1;
            for (int k = 0; nt > 1 && k < 6 && ty < 0; k++)
                if (is_token(tok[1], tl[1], types[k].one) ||
                    is_token(tok[1], tl[1], types[k].many))
                    ty = k;
            char w[64];
            snprintf(w, sizeof w, "%.*s", nt > 1 ? (int)(tl[1] > 40 ? 40 : tl[1]) : 0,
                     nt > 1 ? tok[1] : "");
            if (ty < 0)
                return line_error(t, line, err,
                                  "'ADD=' needs an element type (Edges, Triangles, Quads, "
                                  "Tetrahedra, Hexahedra or PointsInTriangle), found '%s'%s",
                                  w, "");
            unsigned n = 0;
            if (nt < 3 || !parse_index(tok[2], tl[2], &n))
                return line_error(t, line, err, "'ADD= %s' needs the number of elements%s", w,
                                  "");
            if (nt > 3 && ty != 5)
                st_component_warn(&t->base,
                                  "%s:%d: ADD= %s: the ancestors are not used: settee computes "
                                  "the new elements' data from the rest positions, as SOFA's "
                                  "creation callbacks of the components it has",
                                  t->path, line, w);
            if (!nl)
                return line_error(t, line, err,
                                  "'ADD=' must be followed by a line of vertex indices%s%s", "",
                                  "");
            const char *q = nl + 1;
            const char *qe = memchr(q, '\n', (size_t)(end - q));
            if (!qe)
                qe = end;
            cur->kind = CMD_ADD;
            cur->add = types[ty].kind;
            if (ty == 5) {
                ST_TRY(parse_points_in_triangle(t, q, qe, line + 1, n, cur, err));
            } else {
                size_t nv = (size_t)n * st_elem_vertices(cur->add);
                ST_TRY(parse_vertices(t, q, qe, line + 1, nv, cur, err));
            }
            cur->n = n;
            p = qe < end ? qe + 1 : end;
            line += 2;
            if (qe == end)
                break;
            continue;
        } else if (nt && is_token(tok[0], tl[0], "INCISE=")) {
            unsigned n = 0;
            if (nt < 2 || !parse_index(tok[1], tl[1], &n) || n < 2)
                return line_error(t, line, err,
                                  "'INCISE=' needs the number of points of the path (2 or "
                                  "more)%s%s",
                                  "", "");
            if (!nl)
                return line_error(t, line, err,
                                  "'INCISE=' must be followed by a line of points%s%s", "", "");
            const char *q = nl + 1;
            const char *qe = memchr(q, '\n', (size_t)(end - q));
            if (!qe)
                qe = end;
            cur->kind = CMD_INCISE;
            cur->n = n;
            ST_TRY(parse_incision(t, q, qe, line + 1, n, cur, err));
            p = qe < end ? qe + 1 : end;
            line += 2;
            if (qe == end)
                break;
            continue;
        } else if (nt && tl[0] > 1 && tok[0][tl[0] - 1] == '=') {
            char w[64];
            snprintf(w, sizeof w, "%.*s", (int)(tl[0] > 40 ? 40 : tl[0]), tok[0]);
            return line_error(t, line, err,
                              "unknown command '%s' (SOFA's are T=, REMOVE=, ADD= and "
                              "INCISE=)%s",
                              w, "");
        }
        if (!nl)
            break;
        p = nl + 1;
        line++;
    }
    return ST_OK;
}

static st_status load_file(tcp *t, st_error *err)
{
    if (!t->filename || !*t->filename)
        return st_component_error(&t->base, "filename", err, ST_ESCENE,
                                  "empty filename (set `filename`, or `useDataInputs` with the "
                                  "lists of elements to remove)");
    ST_TRY(st_component_find_file(&t->base, "filename", t->filename, t->path, sizeof t->path,
                                  err));
    FILE *f = fopen(t->path, "rb");
    if (!f)
        return st_component_error(&t->base, "filename", err, ST_EIO, "cannot open '%s': %s",
                                  t->path, strerror(errno));
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 16384;
            char *b = st_realloc(text, cap);
            if (!b) {
                st_free(text);
                fclose(f);
                return st_error_set(err, ST_ENOMEM, "out of memory reading '%s'", t->path);
            }
            text = b;
        }
        size_t k = fread(text + len, 1, cap - len - 1, f);
        len += k;
        if (!k)
            break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        st_free(text);
        return st_component_error(&t->base, "filename", err, ST_EIO, "cannot read '%s'",
                                  t->path);
    }
    text[len] = 0;
    if (memchr(text, 0, len)) {
        st_free(text);
        return st_component_error(&t->base, "filename", err, ST_ESCENE,
                                  "'%s' is not a text file (it holds a NUL byte)", t->path);
    }
    st_status st = parse_file(t, text, len, err);
    st_free(text);
    return st;
}

/* ---- running it ---- */

/* How many elements of a kind the topology holds. */
static size_t count_of(st_component *topo, st_elem kind)
{
    static const st_type types[ST_ELEM_COUNT] = {0, ST_T_EDGES, ST_T_TRIANGLES, ST_T_QUADS,
                                                 ST_T_TETRAS, ST_T_HEXAS};
    const st_topology_ops *ops = topo->cls->topology;
    const st_array *a = ops->elements ? ops->elements(topo, types[kind]) : NULL;
    return a ? a->n : 0;
}

/* Removes ids with the modifier mod (its own element kind), warning at the
 * file's line (line > 0) about indices beyond the elements. */
static st_status remove_with(tcp *t, st_component *mod, const unsigned *ids, size_t n, int line,
                             st_error *err)
{
    st_elem kind = (st_elem)st_modifier_kind(mod);
    st_component *topo = modifier_container(mod);
    if (!topo)
        return st_component_error(&t->base, NULL, err, ST_ESCENE, "%s has no topology container",
                                  mod->name);
    const st_topology_ops *ops = topo->cls->topology;
    size_t count = kind == ST_ELEM_POINT ? (ops->nb_points ? ops->nb_points(topo) : 0)
                                         : count_of(topo, kind);
    size_t beyond = 0;
    unsigned first_beyond = 0;
    for (size_t i = 0; i < n; i++)
        if (ids[i] >= count && !beyond++)
            first_beyond = ids[i];
    if (beyond)
        st_component_warn(&t->base,
                          "%s%s%.0d%s%zu of the %zu %s to remove are out of bound (the first: "
                          "%u; %s holds %zu) and won't be removed",
                          line > 0 ? t->path : "", line > 0 ? ":" : "", line, line > 0 ? ": " : "",
                          beyond, n, st_elem_name(kind), first_beyond, topo->name, count);
    ST_TRY(st_topology_remove(topo, kind, ids, n, err));
    size_t left = kind == ST_ELEM_POINT ? (ops->nb_points ? ops->nb_points(topo) : 0)
                                        : count_of(topo, kind);
    if (count && !left)
        st_component_warn(&t->base, "%s has no %s left", topo->name, st_elem_name(kind));
    return ST_OK;
}

static const char *modifier_class(st_elem e)
{
    switch (e) {
    case ST_ELEM_EDGE: return "EdgeSetTopologyModifier";
    case ST_ELEM_TRIANGLE: return "TriangleSetTopologyModifier";
    case ST_ELEM_QUAD: return "QuadSetTopologyModifier";
    case ST_ELEM_TETRAHEDRON: return "TetrahedronSetTopologyModifier";
    case ST_ELEM_HEXAHEDRON: return "HexahedronSetTopologyModifier";
    default: return "PointSetTopologyModifier";
    }
}

/* ADD= PointsInTriangle (SOFA's addPoints on the first
 * TriangleSetTopologyModifier's container): point k is made of the
 * vertices of triangle ids[k] with the weights u, v, 1 - u - v. */
static st_status add_points_in_triangles(tcp *t, const tcp_line *l, st_error *err)
{
    st_component *mod = find_modifier(t, ST_ELEM_TRIANGLE);
    if (!mod)
        return st_component_error(&t->base, NULL, err, ST_ESCENE,
                                  "%s:%d: ADD= PointsInTriangle needs a "
                                  "TriangleSetTopologyModifier beside the topology '%s' (or "
                                  "above it)",
                                  t->path, l->line, t->topology->name);
    st_component *topo = modifier_container(mod);
    if (!topo)
        return st_component_error(&t->base, NULL, err, ST_ESCENE, "%s has no topology container",
                                  mod->name);
    const st_array *tris = topo->cls->topology->elements(topo, ST_T_TRIANGLES);
    size_t ntri = tris ? tris->n : 0;
    for (size_t k = 0; k < l->n; k++)
        if (l->ids[k] >= ntri)
            return st_component_error(&t->base, NULL, err, ST_ESCENE,
                                      "%s:%d: ADD= PointsInTriangle names triangle %u, but '%s' "
                                      "has %zu triangles",
                                      t->path, l->line + 1, l->ids[k], topo->name, ntri);
    size_t *start = st_malloc((l->n + 1) * sizeof *start);
    unsigned *anc = st_malloc((3 * l->n + 1) * sizeof *anc);
    double *coefs = st_malloc((3 * l->n + 1) * sizeof *coefs);
    st_status st = start && anc && coefs ? ST_OK : st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t k = 0; k < l->n && st == ST_OK; k++) {
        start[k] = 3 * k;
        const unsigned *tri = tris->u + 3 * (size_t)l->ids[k];
        double u = l->bary[2 * k], v = l->bary[2 * k + 1];
        const double w[3] = {u, v, 1.0 - u - v};
        for (int j = 0; j < 3; j++) {
            anc[3 * k + (size_t)j] = tri[j];
            coefs[3 * k + (size_t)j] = w[j];
        }
    }
    if (st == ST_OK) {
        start[l->n] = 3 * l->n;
        st = st_topology_add_points(topo, l->n, start, anc, coefs, err);
    }
    st_free(start);
    st_free(anc);
    st_free(coefs);
    return st;
}

/* ADD= with the first modifier of the new elements' kind (SOFA's
 * getContext()->get of a TriangleSetTopologyModifier for triangles), on
 * points the topology and its state have. */
static st_status add_with(tcp *t, const tcp_line *l, st_error *err)
{
    st_component *mod = find_modifier(t, (int)l->add);
    if (!mod)
        return st_component_error(&t->base, NULL, err, ST_ESCENE,
                                  "%s:%d: ADD= %s needs a %s beside the topology '%s' (or above "
                                  "it)",
                                  t->path, l->line, st_elem_name(l->add),
                                  modifier_class(l->add),
                                  t->topology->name);
    st_component *topo = modifier_container(mod);
    if (!topo)
        return st_component_error(&t->base, NULL, err, ST_ESCENE, "%s has no topology container",
                                  mod->name);
    const st_mstate *ms = st_node_mstate(topo->node);
    size_t np = ms ? ms->n : 0, nv = l->n * st_elem_vertices(l->add);
    for (size_t i = 0; np && i < nv; i++)
        if (l->ids[i] >= np)
            return st_component_error(&t->base, NULL, err, ST_ESCENE,
                                      "%s:%d: ADD= names point %u, but the state has %zu points",
                                      t->path, l->line + 1, l->ids[i], np);
    return st_topology_add(topo, l->add, l->ids, l->n, err);
}

/* The surface an incision cuts: the container of the first
 * TriangleSetTopologyModifier from the topology's node upward. */
static st_component *incision_surface(tcp *t)
{
    st_component *mod = find_modifier(t, ST_ELEM_TRIANGLE);
    return mod ? modifier_container(mod) : NULL;
}

/* SOFA's computeCoordinates: each point of info at its weights in its
 * triangle, on the current positions. A triangle index the surface no
 * longer has keeps the point's last coordinates, with a warning (SOFA's
 * message; it would read past its triangles). */
static void info_coordinates(tcp *t, st_component *topo, inc_info *in)
{
    const st_array *tris = topo->cls->topology->elements(topo, ST_T_TRIANGLES);
    for (size_t k = 0; k < in->n; k++) {
        double x[3][3];
        bool ok = tris && in->tri[k] < tris->n;
        for (int j = 0; j < 3 && ok; j++)
            ok = incision_point(topo, tris->u[3 * (size_t)in->tri[k] + (size_t)j], x[j]);
        if (!ok) {
            st_component_warn(&t->base, "%s:%d: Bad index to access triangles %u", t->path,
                              in->line + 1, in->tri[k]);
            continue;
        }
        const double *w = in->bary + 3 * k;
        for (int c = 0; c < 3; c++)
            in->coords[3 * k + (size_t)c] = x[0][c] * w[0] + x[1][c] * w[1] + x[2][c] * w[2];
    }
}

/* SOFA's findIndexInListOfTime: the first saved time within 1e-10. */
static inc_info *info_at(tcp *t, double time)
{
    for (size_t i = 0; i < t->ninfos; i++)
        if (fabs(time - t->infos[i].time) < 1e-10)
            return &t->infos[i];
    return NULL;
}

/* Appends l's points to info in (SOFA's saveIndices): a written triangle is
 * the point's triangleIndices entry whether or not it holds the point;
 * without one the triangle is SOFA's findElementIndex's. The weights are
 * SOFA's computeTriangleBarycoefs there. */
static st_status info_append(tcp *t, st_component *topo, inc_info *in, const tcp_line *l,
                             st_error *err)
{
    size_t n = in->n + l->n;
    unsigned *tri = st_realloc(in->tri, n * sizeof *tri);
    if (tri)
        in->tri = tri;
    double *bary = tri ? st_realloc(in->bary, 3 * n * sizeof *bary) : NULL;
    if (bary)
        in->bary = bary;
    double *coords = bary ? st_realloc(in->coords, 3 * n * sizeof *coords) : NULL;
    if (!coords)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    in->coords = coords;
    const st_array *tris = topo->cls->topology->elements(topo, ST_T_TRIANGLES);
    for (size_t k = 0; k < l->n; k++) {
        const double *x = l->bary + 3 * k;
        unsigned id = l->ids ? l->ids[k] : UINT_MAX;
        if (id == UINT_MAX && !incision_find(topo, x, UINT_MAX, &id))
            return st_component_error(&t->base, "filename", err, ST_ESCENE,
                                      "%s:%d: the incision point (%g %g %g) is on no triangle "
                                      "of '%s'",
                                      t->path, l->line + 1, x[0], x[1], x[2], topo->name);
        if (!tris || id >= tris->n || !incision_sofa_weights(topo, id, x, in->bary + 3 * in->n))
            return st_component_error(&t->base, "filename", err, ST_ESCENE,
                                      "%s:%d: the incision point's triangle %u is not one of "
                                      "the triangles of '%s'",
                                      t->path, l->line + 1, id, topo->name);
        in->tri[in->n] = id;
        memcpy(in->coords + 3 * in->n, x, 3 * sizeof *x);
        in->n++;
    }
    return ST_OK;
}

/* SOFA's saveIndices: every INCISE= whose previous non-empty line is a
 * "T=" is saved under that time (one TriangleIncisionInformation per
 * time); then, in time order, an incision whose first point is, within
 * 1e-5 in each coordinate, the previous one's last starts instead 1e-5 of
 * the way towards its second point (SOFA's walk fails from a point of the
 * surface the previous cut made), in the triangle SOFA's findElementIndex
 * finds there. */
static st_status save_indices(tcp *t, st_error *err)
{
    st_component *topo = incision_surface(t);
    for (size_t i = 0; i < t->nlines; i++) {
        const tcp_line *l = &t->lines[i];
        if (l->kind != CMD_INCISE)
            continue;
        size_t j = i;
        while (j > 0 && t->lines[j - 1].empty)
            j--;
        if (!j || t->lines[j - 1].kind != CMD_TIME) {
            st_component_warn(&t->base,
                              "%s:%d: INCISE= without a 'T=' line just before it is not saved "
                              "(SOFA's saveIndices)",
                              t->path, l->line);
            continue;
        }
        double time = t->lines[j - 1].time;
        inc_info *in = info_at(t, time);
        if (!in) {
            inc_info *a = st_realloc(t->infos, (t->ninfos + 1) * sizeof *a);
            if (!a)
                return st_error_set(err, ST_ENOMEM, "out of memory");
            t->infos = a;
            in = &t->infos[t->ninfos++];
            *in = (inc_info){.time = time, .line = l->line};
        }
        ST_TRY(info_append(t, topo, in, l, err));
    }
    for (size_t i = 0; i < t->ninfos; i++) {
        inc_info *in = &t->infos[i];
        info_coordinates(t, topo, in);
        const inc_info *prev = i ? &t->infos[i - 1] : NULL;
        if (!prev || in->n < 2 || !prev->n)
            continue;
        const double *a = in->coords, *z = prev->coords + 3 * (prev->n - 1);
        if (!(fabs(a[0] - z[0]) < 1e-5 && fabs(a[1] - z[1]) < 1e-5 && fabs(a[2] - z[2]) < 1e-5))
            continue;
        double p[3];
        unsigned tri;
        for (int c = 0; c < 3; c++)
            p[c] = a[c] + (in->coords[3 + c] - a[c]) * 1e-5;
        if (!incision_find(topo, p, UINT_MAX, &tri)) {
            st_component_warn(&t->base, "%s:%d: Error while searching triangle index.",
                              t->path, in->line + 1);
            continue;
        }
        in->tri[0] = tri;
        incision_sofa_weights(topo, tri, p, in->bary);
        info_coordinates(t, topo, in);
    }
    return ST_OK;
}

/* After each cut, SOFA's updateTriangleIncisionInformation: every saved
 * point, at the coordinates computed before the cut, is found on the
 * changed surface by SOFA's findElementIndex (its triangle kept when it
 * still holds it) and gets SOFA's weights in that triangle; a point found
 * nowhere leaves it and the rest of its incision's points as they were. */
static void update_infos(tcp *t, st_component *topo)
{
    for (size_t i = 0; i < t->ninfos; i++) {
        inc_info *in = &t->infos[i];
        for (size_t k = 0; k < in->n; k++) {
            unsigned tri;
            if (!incision_find(topo, in->coords + 3 * k, in->tri[k], &tri)) {
                st_component_warn(&t->base,
                                  "%s:%d: error while finding the point (%g %g %g) in a new "
                                  "triangle. Current triangle index = %u",
                                  t->path, in->line + 1, in->coords[3 * k],
                                  in->coords[3 * k + 1], in->coords[3 * k + 2], in->tri[k]);
                break;
            }
            if (tri != in->tri[k])
                st_component_info(&t->base,
                                  "incision point which was in triangle %u has been updated to %u",
                                  in->tri[k], tri);
            in->tri[k] = tri;
            incision_sofa_weights(topo, tri, in->coords + 3 * k, in->bary + 3 * k);
        }
    }
}

/* One cut of SOFA's INCISE= (computeIntersectedObjectsList, SplitAlongPath,
 * InciseAlongEdgeList); a path that cannot be made is said (SOFA's
 * "Invalid path") and *refused set. */
static st_status cut_segment(tcp *t, st_component *topo, int line, unsigned last, unsigned ta,
                             unsigned tb, const double *a, const double *b, double eps_path,
                             double eps_border, unsigned *end, bool *refused, st_error *err)
{
    bool border;
    st_error e2 = {0};
    st_status st = incision_cut(&t->base, topo, &t->shells, last, ta, tb, a, b, eps_path,
                                eps_border, end, &border, refused, &e2);
    if (st != ST_OK && !*refused)
        *err = e2;
    else if (st != ST_OK)
        st_component_warn(&t->base, "%s:%d: incision not made: %s", t->path, line, e2.msg);
    return *refused ? ST_OK : st;
}

/* INCISE= with saveIndicesAtInit (SOFA's inciseWithSavedIndices): whatever
 * INCISE= line was read, the incision made is the one saved for the node's
 * time (within 1e-10; none: said, and nothing is cut). The coordinates of
 * every saved point are computed from their triangles; the path runs from
 * the first point's triangle (SOFA's ind_ta) to each next point's
 * (ind_tb, read before the cut), each cut from the previous cut's inner
 * end; after each cut the saved points are found again. */
static st_status incise_saved(tcp *t, st_component *topo, const tcp_line *l, st_error *err)
{
    double now = st_node_time(t->base.node);
    inc_info *in = info_at(t, now);
    if (!in) {
        st_component_warn(&t->base,
                          "%s:%d: Unable to find a time index with time %.17g: no incision "
                          "saved at init for it",
                          t->path, l->line, now);
        return ST_OK;
    }
    st_component_info(&t->base, "about to make the incision saved for time %g (%s:%d) at time %.17g",
                      in->time, t->path, in->line, now);
    for (size_t i = 0; i < t->ninfos; i++)
        info_coordinates(t, topo, &t->infos[i]);
    size_t n = in->n;
    double *pts = st_malloc(3 * n * sizeof *pts);
    if (!pts)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    memcpy(pts, in->coords, 3 * n * sizeof *pts);
    unsigned last = UINT_MAX, ta = in->tri[0];
    st_status st = ST_OK;
    for (size_t k = 1; k < n && st == ST_OK; k++) {
        unsigned end, tb = in->tri[k];
        bool refused = false;
        st = cut_segment(t, topo, in->line + 1, last, ta, tb, pts + 3 * (k - 1), pts + 3 * k,
                         t->eps_path, t->eps_border, &end, &refused, err);
        if (st != ST_OK || refused)
            break;
        /* SOFA's a_last: the cut's inner end, kept when it has none */
        if (end != UINT_MAX)
            last = end;
        ta = tb;
        update_infos(t, topo);
    }
    st_free(pts);
    return st;
}

/* INCISE= (SOFA's processTopologicalChanges): the surface is cut from each
 * point of the path to the next, each written triangle taken as its
 * point's (SOFA's ind_ta, ind_tb), else the one SOFA's findElementIndex
 * finds (before the cuts before it); a cut that ends inside the surface
 * starts the next one from its last point. */
static st_status incise_with(tcp *t, const tcp_line *l, st_error *err)
{
    st_component *topo = incision_surface(t);
    if (!topo)
        return st_component_error(&t->base, NULL, err, ST_ESCENE,
                                  "%s:%d: INCISE= needs a TriangleSetTopologyModifier beside the "
                                  "topology '%s' (or above it)",
                                  t->path, l->line, t->topology->name);
    if (t->save_indices_at_init)
        return incise_saved(t, topo, l, err);
    const double *pts = l->bary;
    unsigned last = UINT_MAX;
    unsigned ta = l->ids ? l->ids[0] : UINT_MAX;
    if (ta == UINT_MAX && !incision_find(topo, pts, UINT_MAX, &ta))
        ta = UINT_MAX;
    for (size_t k = 1; k < l->n; k++) {
        unsigned end, tb = l->ids ? l->ids[k] : UINT_MAX;
        bool refused = false;
        if (tb == UINT_MAX && !incision_find(topo, pts + 3 * k, UINT_MAX, &tb))
            tb = UINT_MAX;
        /* SOFA's INCISE= snaps with 0.1 and 0.25; only its incisions of
         * saveIndicesAtInit (inciseWithSavedIndices) read the fields */
        ST_TRY(cut_segment(t, topo, l->line + 1, last, ta, tb, pts + 3 * (k - 1), pts + 3 * k,
                           0.1, 0.25, &end, &refused, err));
        ta = tb;
        if (refused)
            return ST_OK;
        if (end != UINT_MAX)
            last = end;
    }
    return ST_OK;
}

/* SOFA's readNext: reads on while the next time is reached (within machine
 * epsilon) and keeps the lines of the last block reached: their first
 * index and count. SOFA's command word lives for one call: a blank line
 * after a "T=" line counts as one more "T=" whose time fails to read. */
static size_t read_next(tcp *t, double time, size_t *first)
{
    const double eps = DBL_EPSILON;
    t->last_time = time;
    bool cmd_time = false;
    size_t start = 0, count = 0;
    while (t->next_time < time || fabs(t->next_time - time) < eps) {
        if (t->cursor >= t->nlines) {
            if (!t->loop)
                break;
            t->cursor = 0;
            t->loop_time = t->next_time;
        }
        size_t idx = t->cursor++;
        const tcp_line *l = &t->lines[idx];
        if (!l->blank)
            cmd_time = l->kind == CMD_TIME;
        bool reached;
        if (cmd_time) {
            if (!l->blank)
                t->next_time = l->time;
            t->next_time += t->loop_time;
            reached = t->next_time < time || fabs(t->next_time - time) < eps;
            if (reached)
                count = 0;
        }
        reached = t->next_time < time || fabs(t->next_time - time) < eps;
        if (reached) {
            if (!count)
                start = idx;
            count++;
        }
    }
    *first = start;
    return count;
}

static st_status process_file(tcp *t, st_error *err)
{
    double time = st_node_time(t->base.node) + t->shift;
    size_t first, n = read_next(t, time, &first);
    for (size_t i = 0; i < n; i++) {
        tcp_line *l = &t->lines[(first + i) % t->nlines];
        if (l->kind == CMD_ADD) {
            ST_TRY(l->add == ST_ELEM_POINT ? add_points_in_triangles(t, l, err)
                                           : add_with(t, l, err));
            continue;
        }
        if (l->kind == CMD_INCISE) {
            ST_TRY(incise_with(t, l, err));
            continue;
        }
        if (l->kind != CMD_REMOVE)
            continue;
        st_component *mod = find_modifier(t, -1);
        if (!mod)
            return st_component_error(&t->base, NULL, err, ST_ESCENE,
                                      "%s:%d: REMOVE= needs a *SetTopologyModifier beside the "
                                      "topology '%s' (or above it)",
                                      t->path, l->line, t->topology->name);
        ST_TRY(remove_with(t, mod, l->ids, l->n, l->line, err));
    }
    return ST_OK;
}

static st_status process_lists(tcp *t, st_error *err)
{
    if (t->time_to_remove >= st_node_time(t->base.node))
        return ST_OK;
    static const int order[ST_ELEM_COUNT] = {ST_ELEM_HEXAHEDRON, ST_ELEM_TETRAHEDRON,
                                             ST_ELEM_QUAD,       ST_ELEM_TRIANGLE,
                                             ST_ELEM_EDGE,       ST_ELEM_POINT};
    for (int o = 0; o < ST_ELEM_COUNT; o++) {
        int k = order[o];
        const st_array *l = &t->to_remove[k];
        if (!l->n)
            continue;
        st_component *mod = find_modifier(t, k);
        if (!mod) {
            st_component_warn(&t->base, "No %s topology modifier available: %s not removed",
                              st_elem_name((st_elem)k), st_elem_name((st_elem)k));
            continue;
        }
        if (st_modifier_kind(mod) != k)
            st_component_warn(&t->base,
                              "the %s to remove go to %s, which removes %s with those indices "
                              "(as SOFA does)",
                              st_elem_name((st_elem)k), mod->name,
                              st_elem_name((st_elem)st_modifier_kind(mod)));
        ST_TRY(remove_with(t, mod, l->u, l->n, 0, err));
    }
    if (t->interval != 0.0)
        t->time_to_remove += t->interval;
    else
        t->time_to_remove = 4294967295.0;
    const st_field *f = st_component_field(&t->base, "timeToRemove");
    if (f)
        st_component_touch(&t->base, f);
    return ST_OK;
}

static void tcp_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    tcp *t = (tcp *)self;
    if (ev != ST_EVENT_ANIMATE_BEGIN || self->state != ST_CSTATE_VALID)
        return;
    st_error err = {0};
    /* A failed change is kept by the kernel, which stops the step with it
     * before the solvers run (settee/topology.h); the processor's own
     * refusals (a point the state lacks) stop it the same way. */
    st_status st = t->use_data_inputs ? process_lists(t, &err) : process_file(t, &err);
    if (st != ST_OK)
        st_component_fail(self, &err);
}

static st_status shells_follow(st_component *owner, st_component *topology,
                               const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    return inc_shells_apply(&((tcp *)owner)->shells, ev, nev, err);
}

static st_status tcp_init(st_component *self, st_error *err)
{
    tcp *t = (tcp *)self;
    if (!t->topology)
        t->topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!t->topology)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "No topology component found at path: , nor in current "
                                  "context: %s",
                                  st_node_name(self->node));
    free_lines(t);
    t->cursor = 0;
    t->next_time = t->last_time = t->loop_time = 0;
    if (!t->use_data_inputs) {
        ST_TRY(load_file(t, err));
        bool removes = false, times = false;
        double last = 0;
        for (size_t i = 0; i < t->nlines; i++) {
            removes |= t->lines[i].kind == CMD_REMOVE;
            int need = t->lines[i].add == ST_ELEM_POINT ? ST_ELEM_TRIANGLE : (int)t->lines[i].add;
            if (t->lines[i].kind == CMD_ADD && !find_modifier(t, need))
                return st_component_error(self, "filename", err, ST_ESCENE,
                                          "%s:%d: the file adds %s, but no modifier of them is "
                                          "beside the topology '%s' or above it",
                                          t->path, t->lines[i].line,
                                          st_elem_name(t->lines[i].add), t->topology->name);
            if (t->lines[i].kind == CMD_TIME) {
                times = true;
                last = t->lines[i].time;
            }
        }
        if (t->loop && !(times && last > 0))
            return st_component_error(self, "loop", err, ST_ESCENE,
                                      "'%s' would be read again and again at one time: looping "
                                      "needs a file whose last T= is after 0",
                                      t->path);
        bool incises = false;
        for (size_t i = 0; i < t->nlines; i++)
            incises |= t->lines[i].kind == CMD_INCISE;
        if (incises && !incision_surface(t))
            return st_component_error(self, "filename", err, ST_ESCENE,
                                      "the file incises, but no TriangleSetTopologyModifier is "
                                      "beside the topology '%s' or above it",
                                      t->topology->name);
        if (incises && t->save_indices_at_init)
            ST_TRY(save_indices(t, err));
        if (incises) {
            /* SOFA's around-arrays, made at init and kept through every
             * change of the surface */
            st_component *topo = incision_surface(t);
            if (!inc_shells_build(&t->shells, topo))
                return st_error_set(err, ST_ENOMEM, "out of memory");
            if (!t->listening)
                ST_TRY(st_topology_listen(self, topo, shells_follow, err));
            t->listening = true;
        }
        if (removes && !find_modifier(t, -1))
            return st_component_error(self, "filename", err, ST_ESCENE,
                                      "the file removes elements, but no *SetTopologyModifier "
                                      "is beside the topology '%s' or above it",
                                      t->topology->name);
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void tcp_cleanup(st_component *self)
{
    free_lines((tcp *)self);
    inc_shells_free(&((tcp *)self)->shells);
}

/* A checkpoint keeps the reading position in the file, the next time of
 * the data inputs, the saved incision points and the incised surface's
 * around-arrays (their order picks the cuts' sides), so that a resumed run
 * makes the changes the uninterrupted run makes, once. */
static st_status tcp_transfer(st_component *self, st_checkpoint *ck, st_error *err)
{
    tcp *t = (tcp *)self;
    uint64_t cursor = t->cursor;
    ST_TRY(st_checkpoint_data(ck, &cursor, sizeof cursor, err));
    if (st_checkpoint_reading(ck) && cursor > t->nlines)
        return st_component_error(self, NULL, err, ST_EINVAL,
                                  "the checkpoint's reading position is beyond the file");
    t->cursor = (size_t)cursor;
    double v[4] = {t->next_time, t->last_time, t->loop_time, t->time_to_remove};
    ST_TRY(st_checkpoint_data(ck, v, sizeof v, err));
    t->next_time = v[0];
    t->last_time = v[1];
    t->loop_time = v[2];
    t->time_to_remove = v[3];
    /* the incision points saved at init, as found again after each cut */
    for (size_t i = 0; i < t->ninfos; i++) {
        inc_info *in = &t->infos[i];
        ST_TRY(st_checkpoint_data(ck, in->tri, in->n * sizeof *in->tri, err));
        ST_TRY(st_checkpoint_data(ck, in->bary, 3 * in->n * sizeof *in->bary, err));
        ST_TRY(st_checkpoint_data(ck, in->coords, 3 * in->n * sizeof *in->coords, err));
    }
    /* SOFA's around-arrays of the incised surface, in their order */
    return inc_shells_transfer(&t->shells, ck, err);
}

static const st_checkpoint_ops tcp_checkpoint_ops = {sizeof(st_checkpoint_ops), tcp_transfer};

const st_class topological_change_processor_class = {
    .struct_size = sizeof(st_class),
    .name = "TopologicalChangeProcessor",
    .category = "Topology",
    .description = "Read topological Changes and process them.",
    .instance_size = sizeof(tcp),
    .fields = tcp_fields,
    .init = tcp_init,
    .cleanup = tcp_cleanup,
    .on_event = tcp_on_event,
    .checkpoint = &tcp_checkpoint_ops,
};
