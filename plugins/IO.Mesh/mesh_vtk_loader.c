/* mesh_vtk_loader.c - MeshVTKLoader: VTK legacy files (".vtk", ASCII and
 * BINARY big endian, DATASET UNSTRUCTURED_GRID and POLYDATA, classic and
 * VTK 5.1 OFFSETS/CONNECTIVITY cell lists) and XML files (".vtu"
 * UnstructuredGrid and ".vtp" PolyData: ascii, base64 binary and
 * vtkZLibDataCompressor data), read with libxml2 (no network, no entity
 * substitution, no DTD: documents with one are refused) and zlib.
 *
 * Cells map to SOFA's outputs as SOFA's MeshVTKLoader maps them: polygons
 * of 4 points are quads and others fans of triangles (0, j-1, j); LINE an
 * edge; TRIANGLE_STRIP triangles in SOFA's order; PIXEL and VOXEL
 * reordered into a quad and a hexahedron; quadratic edges, triangles and
 * tetrahedra keep their corners and add their corner edges once. Unlike
 * SOFA, a POLY_LINE (and legacy LINES) gives one edge per segment: settee
 * has no polyline type and SOFA's code reads a fixed 4 points there. Point
 * and cell data arrays are read and checked (SOFA adds one data field per
 * array; settee's field tables are static, so they are only listed at
 * --verbose). NORMALS of the points become the "normals" output. Nothing
 * is allocated from a count before the count is checked against the bytes
 * left in the file; errors name the file's line (byte offset in binary
 * data). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <zlib.h>

#include "mesh_loader.h"
#include "../../common/xml_prescan.h"

static const st_field vtk_fields[] = {LOADER_FIELDS, LOADER_SUBELEMENTS("false"), ST_FIELD_END};

/* Cell types of vtkCellType.h that SOFA reads; POLYGON_ENTRY is a legacy
 * POLYGONS (or XML Polys) entry, PENDING a CELLS entry before CELL_TYPES. */
enum { POLYGON_ENTRY = -1, PENDING = -2 };

typedef struct vtk_mesh {
    double *pts;       /* 3 x npts */
    size_t npts;
    unsigned *conn;    /* point indices of every cell */
    size_t nconn, conncap;
    size_t *off;       /* cell c: conn[off[c] .. off[c + 1]) */
    int *type;         /* per cell */
    size_t *where;     /* per cell: line (text) or byte offset (binary) of its data */
    bool *binary;      /* per cell: where is a byte offset */
    size_t ncells, cellcap;
    size_t pending0;   /* first cell of the last CELLS section */
    double *normals;   /* 3 x nnormals, point NORMALS */
    size_t nnormals;
} vtk_mesh;

static void vtk_mesh_free(vtk_mesh *m)
{
    st_free(m->pts);
    st_free(m->conn);
    st_free(m->off);
    st_free(m->type);
    st_free(m->where);
    st_free(m->binary);
    st_free(m->normals);
    memset(m, 0, sizeof *m);
}

static st_status grow(void **p, size_t *cap, size_t need, size_t size, st_error *err)
{
    if (need <= *cap)
        return ST_OK;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = st_realloc(*p, c * size);
    if (!q)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    *p = q;
    *cap = c;
    return ST_OK;
}

/* Whether x is an integer in [0, max]: false for NaN and infinities, so
 * that a value read as a real is checked before it is used as an index. */
static bool whole_in(double x, double max)
{
    return x >= 0 && x <= max && x == floor(x);
}

/* The first of v[0..n) that is not a point index (an integer in [0, 2^32 -
 * 2]), or n. */
static size_t bad_index(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!whole_in(v[i], 4294967294.0))
            return i;
    return n;
}

/* Appends one cell whose point indices are idx[0..n). */
static st_status add_cell(vtk_mesh *m, int type, const double *idx, size_t n, size_t where,
                          bool binary, st_error *err)
{
    if (m->ncells + 2 > m->cellcap) {
        size_t need = m->ncells + 2, cap = m->cellcap;
        ST_TRY(grow((void **)&m->type, &cap, need, sizeof *m->type, err));
        cap = m->cellcap;
        ST_TRY(grow((void **)&m->where, &cap, need, sizeof *m->where, err));
        cap = m->cellcap;
        ST_TRY(grow((void **)&m->binary, &cap, need, sizeof *m->binary, err));
        cap = m->cellcap;
        ST_TRY(grow((void **)&m->off, &cap, need, sizeof *m->off, err));
        m->cellcap = cap;
    }
    ST_TRY(grow((void **)&m->conn, &m->conncap, m->nconn + n, sizeof *m->conn, err));
    if (m->ncells == 0)
        m->off[0] = 0;
    for (size_t k = 0; k < n; k++)
        m->conn[m->nconn + k] = whole_in(idx[k], 4294967294.0) ? (unsigned)idx[k] : UINT32_MAX;
    m->nconn += n;
    m->type[m->ncells] = type;
    m->where[m->ncells] = where;
    m->binary[m->ncells] = binary;
    m->off[++m->ncells] = m->nconn;
    return ST_OK;
}

/* ---- Value types ---- */

typedef struct vtk_type {
    const char *legacy, *xml;
    unsigned size;
    bool is_float, is_signed;
} vtk_type;

static const vtk_type types[] = {
    {"char", "Int8", 1, false, true},          {"unsigned_char", "UInt8", 1, false, false},
    {"short", "Int16", 2, false, true},        {"unsigned_short", "UInt16", 2, false, false},
    {"int", "Int32", 4, false, true},          {"unsigned_int", "UInt32", 4, false, false},
    {"long", "Int64", 8, false, true},         {"unsigned_long", "UInt64", 8, false, false},
    {"vtktypeint64", "Int64", 8, false, true}, {"vtktypeuint64", "UInt64", 8, false, false},
    {"float", "Float32", 4, true, true},       {"double", "Float64", 8, true, true},
};

static const vtk_type *find_type(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if ((strlen(types[i].legacy) == len && !strncasecmp(s, types[i].legacy, len)) ||
            (strlen(types[i].xml) == len && !strncasecmp(s, types[i].xml, len)))
            return &types[i];
    return NULL;
}

/* Decodes n values of type t from bytes (big endian when big). */
static void decode(const unsigned char *b, size_t n, const vtk_type *t, bool big, double *out)
{
    for (size_t i = 0; i < n; i++, b += t->size) {
        uint64_t u = 0;
        for (unsigned k = 0; k < t->size; k++)
            u |= (uint64_t)b[big ? k : t->size - 1 - k] << (8 * (t->size - 1 - k));
        if (t->is_float && t->size == 4) {
            uint32_t w = (uint32_t)u;
            float f;
            memcpy(&f, &w, sizeof f);
            out[i] = f;
        } else if (t->is_float) {
            memcpy(&out[i], &u, sizeof u);
        } else if (t->is_signed) {
            unsigned sh = 64 - 8 * t->size;
            out[i] = (double)((int64_t)(u << sh) >> sh);
        } else {
            out[i] = (double)u;
        }
    }
}

/* ---- Legacy files ---- */

typedef struct legacy {
    mesh_loader *l;
    text_cursor tc;
    bool binary;
    bool finite_only; /* reading POINTS: NaN and infinities are errors */
    const char *s; /* the current keyword line */
    size_t len;
} legacy;

static st_status lerr(legacy *g, st_error *err, const char *fmt, ...) ST_PRINTF(3, 4);
static st_status lerr(legacy *g, st_error *err, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* Binary files: the byte offset; text: the line. */
    return loader_error_at(&g->l->base, g->tc.path, g->binary ? 0 : g->tc.line,
                           (size_t)(g->tc.p - g->tc.begin), err, ST_EPARSE, "%s", msg);
}

/* The k-th word of the current line (0-based); false when absent. */
static bool word(const legacy *g, int k, const char **w, size_t *wl)
{
    text_cursor lc = {
        .begin = g->s, .p = g->s, .end = g->s + g->len, .pline = 1, .eol = '\n'};
    for (int i = 0; i <= k; i++)
        if (!text_next_token(&lc, w, wl))
            return false;
    return true;
}

static bool word_count(const legacy *g, int k, long long *n)
{
    const char *w;
    size_t wl;
    return word(g, k, &w, &wl) && parse_long(w, wl, n) && *n >= 0;
}

static bool is_word(const char *w, size_t wl, const char *kw)
{
    return wl == strlen(kw) && !strncasecmp(w, kw, wl);
}

/* Next non-blank line. */
static bool lline(legacy *g)
{
    while (text_next_line(&g->tc, &g->s, &g->len)) {
        size_t i = 0;
        while (i < g->len && (g->s[i] == ' ' || g->s[i] == '\t'))
            i++;
        if (i < g->len)
            return true;
    }
    return false;
}

/* Reads n values of type t into a new array *out (caller frees). *where
 * receives the line (ASCII) or byte offset (binary) of the first value. */
static st_status read_values(legacy *g, size_t n, const vtk_type *t, double **out,
                             size_t *where, int **lines, st_error *err)
{
    size_t left = (size_t)(g->tc.end - g->tc.p);
    if (g->binary ? n > left / t->size : n > left / 2 + 1)
        return lerr(g, err, "declares %zu values, more than the %zu bytes left in the file hold",
                    n, left);
    double *v = st_malloc((n ? n : 1) * sizeof *v);
    int *ln = lines && !g->binary ? st_malloc((n ? n : 1) * sizeof *ln) : NULL;
    if (!v || (lines && !g->binary && !ln)) {
        st_free(v);
        st_free(ln);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    if (lines)
        *lines = ln;
    if (g->binary) {
        *where = (size_t)(g->tc.p - g->tc.begin);
        decode((const unsigned char *)g->tc.p, n, t, true, v);
        g->tc.p += n * t->size;
    } else {
        *where = 0;
        for (size_t i = 0; i < n; i++) {
            const char *w;
            size_t wl;
            double x;
            if (!text_next_token(&g->tc, &w, &wl)) {
                st_free(v);
                st_free(ln);
                if (lines)
                    *lines = NULL;
                return lerr(g, err, "end of file after %zu of %zu values", i, n);
            }
            if (i == 0)
                *where = (size_t)g->tc.line;
            if (ln)
                ln[i] = g->tc.line;
            if (!parse_real(w, wl, &x) || (!t->is_float && x != floor(x)) ||
                (g->finite_only && !isfinite(x))) {
                st_free(v);
                st_free(ln);
                if (lines)
                    *lines = NULL;
                return lerr(g, err, "'%.*s' is not %s", (int)(wl > 40 ? 40 : wl), w,
                            !t->is_float ? "an integer"
                            : g->finite_only ? "a finite coordinate"
                                             : "a number");
            }
            v[i] = x;
        }
    }
    *out = v;
    return ST_OK;
}

/* A cell section "KEYWORD n size" (classic: size values "nv i0 i1 ...")
 * or VTK 5.1's "KEYWORD noffsets nconn" + OFFSETS + CONNECTIVITY. */
static st_status read_cells(legacy *g, vtk_mesh *m, int type, st_error *err)
{
    long long n, size;
    if (!word_count(g, 1, &n) || !word_count(g, 2, &size))
        return lerr(g, err, "expected '%.*s n size' (two counts)", (int)g->len, g->s);
    text_cursor save = g->tc;
    const char *w;
    size_t wl;
    m->pending0 = m->ncells;
    if (lline(g) && word(g, 0, &w, &wl) && is_word(w, wl, "OFFSETS")) {
        const vtk_type *t = word(g, 1, &w, &wl) ? find_type(w, wl) : NULL;
        if (!t)
            return lerr(g, err, "OFFSETS needs a known value type");
        double *off = NULL, *conn = NULL;
        int *lines = NULL, *olines = NULL;
        size_t at, at2;
        unsigned csize = 0, osize = t->size;
        ST_TRY(read_values(g, (size_t)n, t, &off, &at, &olines, err));
        st_status s = ST_OK;
        if (!lline(g) || !word(g, 0, &w, &wl) || !is_word(w, wl, "CONNECTIVITY") ||
            !(t = word(g, 1, &w, &wl) ? find_type(w, wl) : NULL))
            s = lerr(g, err, "expected 'CONNECTIVITY type' after the offsets");
        if (s == ST_OK) {
            csize = t->size;
            s = read_values(g, (size_t)size, t, &conn, &at2, &lines, err);
        }
        /* every offset and index is checked before it is used as one */
        for (long long c = 0; s == ST_OK && c < n; c++)
            if (!whole_in(off[c], (double)size) || (c && off[c] < off[c - 1]))
                s = loader_error_at(&g->l->base, g->tc.path, g->binary ? 0 : olines[c],
                                    g->binary ? at + (size_t)c * osize : 0, err, ST_EPARSE,
                                    "offset %lld (%g) is not an integer, out of order or beyond "
                                    "the %lld connectivity values",
                                    c, off[c], size);
        size_t bad = s == ST_OK ? bad_index(conn, (size_t)size) : 0;
        if (s == ST_OK && bad < (size_t)size)
            s = loader_error_at(&g->l->base, g->tc.path, g->binary ? 0 : lines[bad],
                                g->binary ? at2 + bad * csize : 0, err, ST_EPARSE,
                                "connectivity value %zu (%g) is not a point index (an integer "
                                ">= 0)",
                                bad, conn[bad]);
        for (long long c = 0; s == ST_OK && c + 1 < n; c++) {
            if (off[c] < 0 || off[c + 1] < off[c] || off[c + 1] > (double)size)
                s = lerr(g, err, "offset %lld (%g) is out of order or beyond the %lld "
                                 "connectivity values",
                         c + 1, off[c + 1], size);
            else
                s = add_cell(m, type, conn + (size_t)off[c], (size_t)(off[c + 1] - off[c]),
                             g->binary ? at2 + (size_t)off[c] * csize
                             : off[c] < (double)size ? (size_t)lines[(size_t)off[c]]
                                                     : (size_t)g->tc.line,
                             g->binary, err);
        }
        st_free(lines);
        st_free(olines);
        st_free(off);
        st_free(conn);
        return s;
    }
    g->tc = save;
    double *v = NULL;
    int *lines = NULL;
    size_t at;
    static const vtk_type int32 = {"int", "Int32", 4, false, true};
    ST_TRY(read_values(g, (size_t)size, &int32, &v, &at, &lines, err));
    size_t i = 0;
    st_status s = ST_OK;
    for (long long c = 0; c < n && s == ST_OK; c++) {
        if (i >= (size_t)size || v[i] < 0 || v[i] > (double)((size_t)size - i - 1))
            s = lerr(g, err, "cell %lld: its point count %g runs past the %lld values the "
                             "section declares",
                     c, i < (size_t)size ? v[i] : -1.0, size);
        else {
            size_t nv = (size_t)v[i];
            s = add_cell(m, type, v + i + 1, nv, g->binary ? at + 4 * i : (size_t)lines[i],
                         g->binary, err);
            i += nv + 1;
        }
    }
    if (s == ST_OK && i != (size_t)size)
        s = lerr(g, err, "the %lld cells hold %zu values, the section declares %lld", n, i, size);
    st_free(lines);
    st_free(v);
    return s;
}

/* One attribute of POINT_DATA / CELL_DATA (count values per tuple). */
static st_status read_attribute(legacy *g, vtk_mesh *m, bool cell, long long count,
                                st_error *err)
{
    const char *w, *name, *tn;
    size_t wl, nl, tl;
    word(g, 0, &w, &wl);
    long long ncomp = 1, ntuples = count;
    const vtk_type *t = NULL;
    static const vtk_type ubyte = {"unsigned_char", "UInt8", 1, false, false};
    static const vtk_type flt = {"float", "Float32", 4, true, true};
    bool normals = is_word(w, wl, "NORMALS");
    if (is_word(w, wl, "SCALARS") || is_word(w, wl, "VECTORS") || normals ||
        is_word(w, wl, "TENSORS")) {
        if (!word(g, 1, &name, &nl) || !word(g, 2, &tn, &tl) || !(t = find_type(tn, tl)))
            return lerr(g, err, "expected '%.*s name type' with a known type", (int)wl, w);
        ncomp = is_word(w, wl, "SCALARS") ? 1 : is_word(w, wl, "TENSORS") ? 9 : 3;
        if (is_word(w, wl, "SCALARS") && word(g, 3, &tn, &tl) &&
            (!parse_long(tn, tl, &ncomp) || ncomp < 1 || ncomp > 4))
            return lerr(g, err, "SCALARS: the number of components must be 1 to 4");
        if (is_word(w, wl, "SCALARS")) {
            text_cursor save = g->tc;
            const char *lw;
            size_t lwl;
            if (!(lline(g) && word(g, 0, &lw, &lwl) && is_word(lw, lwl, "LOOKUP_TABLE")))
                g->tc = save;
        }
    } else if (is_word(w, wl, "TEXTURE_COORDINATES")) {
        if (!word(g, 1, &name, &nl) || !word_count(g, 2, &ncomp) || ncomp < 1 || ncomp > 3 ||
            !word(g, 3, &tn, &tl) || !(t = find_type(tn, tl)))
            return lerr(g, err, "expected 'TEXTURE_COORDINATES name dim type'");
    } else if (is_word(w, wl, "COLOR_SCALARS")) {
        if (!word(g, 1, &name, &nl) || !word_count(g, 2, &ncomp) || ncomp < 1 || ncomp > 4)
            return lerr(g, err, "expected 'COLOR_SCALARS name nValues'");
        t = g->binary ? &ubyte : &flt;
    } else if (is_word(w, wl, "LOOKUP_TABLE")) {
        if (!word(g, 1, &name, &nl) || !word_count(g, 2, &ntuples))
            return lerr(g, err, "expected 'LOOKUP_TABLE name size'");
        ncomp = 4;
        t = g->binary ? &ubyte : &flt;
    } else { /* FIELD name narrays */
        long long na;
        if (!word(g, 1, &name, &nl) || !word_count(g, 2, &na))
            return lerr(g, err, "expected 'FIELD name numArrays'");
        for (long long a = 0; a < na; a++) {
            long long nc, nt;
            if (!lline(g) || !word(g, 0, &name, &nl) || !word_count(g, 1, &nc) ||
                !word_count(g, 2, &nt) || !word(g, 3, &tn, &tl) || !(t = find_type(tn, tl)))
                return lerr(g, err, "expected a field array 'name numComponents numTuples type'");
            double *v;
            size_t at;
            if (nc != 0 && (unsigned long long)nt > SIZE_MAX / 16 / (unsigned long long)nc)
                return lerr(g, err, "field array '%.*s' declares too many values", (int)nl, name);
            ST_TRY(read_values(g, (size_t)(nc * nt), t, &v, &at, NULL, err));
            st_free(v);
            st_component_info(&g->l->base, "%s data array '%.*s' (%lld components) read; settee "
                                           "does not expose VTK data arrays as outputs",
                              cell ? "cell" : "point", (int)nl, name, nc);
        }
        return ST_OK;
    }
    if ((unsigned long long)ntuples > SIZE_MAX / 16 / (unsigned long long)ncomp)
        return lerr(g, err, "declares too many values");
    double *v;
    size_t at;
    ST_TRY(read_values(g, (size_t)(ncomp * ntuples), t, &v, &at, NULL, err));
    for (long long i = 0; i < ncomp * ntuples; i++)
        if (!isfinite(v[i]) && normals) {
            st_free(v);
            return lerr(g, err, "NORMALS: value %lld is not a finite number", i);
        }
    if (normals && !cell) {
        st_free(m->normals);
        m->normals = v;
        m->nnormals = (size_t)ntuples;
        return ST_OK;
    }
    st_free(v);
    if (!is_word(w, wl, "LOOKUP_TABLE"))
        st_component_info(&g->l->base, "%s data '%.*s' (%lld components) read; settee does not "
                                       "expose VTK data arrays as outputs",
                          cell ? "cell" : "point", (int)nl, name, ncomp);
    return ST_OK;
}

static st_status read_legacy(mesh_loader *l, const mesh_file *f, vtk_mesh *m, st_error *err)
{
    legacy g = {.l = l};
    text_cursor_init(&g.tc, f);
    const char *w;
    size_t wl;
    if (!text_next_line(&g.tc, &g.s, &g.len) || g.len < 23 ||
        memcmp(g.s, "# vtk DataFile Version ", 23))
        return lerr(&g, err, "Unrecognized header: the first line must be '# vtk DataFile "
                             "Version x.y'");
    if (!text_next_line(&g.tc, &g.s, &g.len))
        return lerr(&g, err, "truncated file: no title line");
    if (!text_next_line(&g.tc, &g.s, &g.len) || !word(&g, 0, &w, &wl) ||
        !(is_word(w, wl, "ASCII") || is_word(w, wl, "BINARY")))
        return lerr(&g, err, "Unrecognized format: the third line must be ASCII or BINARY");
    g.binary = is_word(w, wl, "BINARY");
    if (!lline(&g) || !word(&g, 0, &w, &wl) || !is_word(w, wl, "DATASET") ||
        !word(&g, 1, &w, &wl) ||
        !(is_word(w, wl, "POLYDATA") || is_word(w, wl, "UNSTRUCTURED_GRID")))
        return lerr(&g, err, "Unsupported data type: expected DATASET POLYDATA or DATASET "
                             "UNSTRUCTURED_GRID");
    bool cell_data = false;
    long long data_count = -1;
    while (lline(&g)) {
        word(&g, 0, &w, &wl);
        if (memchr(g.s, 0, g.len))
            return lerr(&g, err, "binary data where a keyword line was expected");
        long long n;
        if (is_word(w, wl, "POINTS")) {
            const char *tn;
            size_t tl;
            const vtk_type *t;
            if (!word_count(&g, 1, &n) || !word(&g, 2, &tn, &tl) || !(t = find_type(tn, tl)))
                return lerr(&g, err, "expected 'POINTS n type' with a known type");
            if ((unsigned long long)n > SIZE_MAX / 48)
                return lerr(&g, err, "declares too many points");
            size_t at;
            st_free(m->pts);
            m->pts = NULL;
            g.finite_only = true;
            st_status rs = read_values(&g, 3 * (size_t)n, t, &m->pts, &at, NULL, err);
            g.finite_only = false;
            ST_TRY(rs);
            m->npts = (size_t)n;
            for (size_t i = 0; i < 3 * m->npts; i++)
                if (!isfinite(m->pts[i]))
                    return g.binary ? loader_error_at(&l->base, f->path, 0, at + i * t->size,
                                                      err, ST_EPARSE,
                                                      "point %zu: a coordinate is not a finite "
                                                      "number",
                                                      i / 3)
                                    : lerr(&g, err,
                                           "point %zu: a coordinate is not a finite number",
                                           i / 3);
        } else if (is_word(w, wl, "CELLS")) {
            ST_TRY(read_cells(&g, m, PENDING, err));
        } else if (is_word(w, wl, "POLYGONS")) {
            ST_TRY(read_cells(&g, m, POLYGON_ENTRY, err));
        } else if (is_word(w, wl, "LINES")) {
            ST_TRY(read_cells(&g, m, 4, err));
        } else if (is_word(w, wl, "VERTICES")) {
            ST_TRY(read_cells(&g, m, 1, err));
        } else if (is_word(w, wl, "TRIANGLE_STRIPS")) {
            ST_TRY(read_cells(&g, m, 6, err));
        } else if (is_word(w, wl, "CELL_TYPES")) {
            static const vtk_type int32 = {"int", "Int32", 4, false, true};
            size_t pending = m->ncells - m->pending0;
            if (!word_count(&g, 1, &n) || (size_t)n != pending)
                return lerr(&g, err, "CELL_TYPES must give one type per cell of the CELLS "
                                     "section (%zu)",
                            pending);
            double *v;
            size_t at;
            ST_TRY(read_values(&g, (size_t)n, &int32, &v, &at, NULL, err));
            for (size_t i = 0; i < pending; i++)
                m->type[m->pending0 + i] = v[i] < 0 || v[i] > 1000 ? 1000 : (int)v[i];
            st_free(v);
        } else if (is_word(w, wl, "POINT_DATA") || is_word(w, wl, "CELL_DATA")) {
            cell_data = is_word(w, wl, "CELL_DATA");
            if (!word_count(&g, 1, &data_count))
                return lerr(&g, err, "expected '%.*s n'", (int)wl, w);
        } else if (is_word(w, wl, "SCALARS") || is_word(w, wl, "VECTORS") ||
                   is_word(w, wl, "NORMALS") || is_word(w, wl, "TENSORS") ||
                   is_word(w, wl, "TEXTURE_COORDINATES") || is_word(w, wl, "COLOR_SCALARS") ||
                   is_word(w, wl, "LOOKUP_TABLE") || is_word(w, wl, "FIELD")) {
            if (data_count < 0 && !is_word(w, wl, "FIELD"))
                return lerr(&g, err, "%.*s outside POINT_DATA or CELL_DATA", (int)wl, w);
            ST_TRY(read_attribute(&g, m, cell_data, data_count < 0 ? 0 : data_count, err));
        } else if (is_word(w, wl, "METADATA")) {
            while (text_next_line(&g.tc, &g.s, &g.len) && g.len) /* up to a blank line */
                ;
        } else {
            st_component_warn(&l->base, "%s:%d: Unknown keyword %.*s", f->path, g.tc.line,
                              (int)(wl > 40 ? 40 : wl), w);
        }
    }
    return ST_OK;
}

/* ---- XML files ---- */

typedef struct xmlreader {
    mesh_loader *l;
    const char *path;
    bool big, header64, zlib;
} xmlreader;

static st_status xerr(xmlreader *x, const xmlNode *n, st_error *err, const char *fmt, ...)
    ST_PRINTF(4, 5);
static st_status xerr(xmlreader *x, const xmlNode *n, st_error *err, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    long line = n ? xmlGetLineNo(n) : 1;
    return loader_error_at(&x->l->base, x->path, line > 0 ? (int)line : 1, 0, err, ST_EPARSE,
                           "%s", msg);
}

static const xmlNode *child(const xmlNode *n, const char *name)
{
    for (const xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, name))
            return c;
    return NULL;
}

static const xmlNode *next_named(const xmlNode *c, const char *name)
{
    for (c = c->next; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, name))
            return c;
    return NULL;
}

/* An attribute's value (a copy in buf), or NULL. */
static const char *attr(const xmlNode *n, const char *name, char *buf, size_t size)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    if (!v)
        return NULL;
    snprintf(buf, size, "%s", (const char *)v);
    xmlFree(v);
    return buf;
}

static int b64(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Base64 that may hold several padded blocks one after the other (VTK
 * encodes the header and the data separately). Returns the byte count or
 * -1 on a character that is not base64. */
static long long base64_decode(const char *s, unsigned char *out)
{
    long long n = 0;
    unsigned acc = 0;
    int bits = 0;
    for (; *s; s++) {
        if (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t')
            continue;
        if (*s == '=') { /* end of one block: drop its partial bits */
            acc = 0;
            bits = 0;
            continue;
        }
        int v = b64((unsigned char)*s);
        if (v < 0)
            return -1;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (unsigned char)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    return n;
}

static uint64_t hdr(const unsigned char *b, bool h64, bool big)
{
    static const vtk_type u32 = {"", "", 4, false, false}, u64 = {"", "", 8, false, false};
    double d;
    decode(b, 1, h64 ? &u64 : &u32, big, &d);
    return (uint64_t)d;
}

/* Decodes a DataArray into *out (*n values). */
static st_status data_array(xmlreader *x, const xmlNode *da, double **out, size_t *n,
                            unsigned *ncomp, st_error *err)
{
    char tb[64], fb[64], cb[64], nb[128];
    const char *tname = attr(da, "type", tb, sizeof tb);
    const char *format = attr(da, "format", fb, sizeof fb);
    const char *name = attr(da, "Name", nb, sizeof nb);
    if (!name)
        name = "(unnamed)";
    const vtk_type *t = tname ? find_type(tname, strlen(tname)) : NULL;
    if (!t)
        return xerr(x, da, err, "DataArray '%s': unknown or missing type '%s'", name,
                    tname ? tname : "");
    if (!format)
        format = attr(da, "Format", fb, sizeof fb);
    long long nc = 1;
    if (attr(da, "NumberOfComponents", cb, sizeof cb) &&
        (!parse_long(cb, strlen(cb), &nc) || nc < 1 || nc > 64))
        return xerr(x, da, err, "DataArray '%s': NumberOfComponents must be 1 to 64", name);
    *ncomp = (unsigned)nc;
    if (!format || (strcmp(format, "ascii") && strcmp(format, "binary")))
        return xerr(x, da, err,
                    "DataArray '%s': format '%s' is not supported (ascii or binary inline data; "
                    "appended data is not read)",
                    name, format ? format : "");
    xmlChar *text = xmlNodeGetContent(da);
    if (!text)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    size_t tl = strlen((const char *)text);
    st_status s = ST_OK;
    double *v = NULL;
    size_t count = 0;
    if (!strcmp(format, "ascii")) {
        v = st_malloc((tl / 2 + 1) * sizeof *v);
        const char *p = (const char *)text;
        while (v && s == ST_OK) {
            while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
                p++;
            if (!*p)
                break;
            size_t k = strcspn(p, " \n\r\t");
            if (!parse_real(p, k, &v[count]) || (!t->is_float && v[count] != floor(v[count])))
                s = xerr(x, da, err, "DataArray '%s': '%.*s' is not %s", name,
                         (int)(k > 40 ? 40 : k), p, t->is_float ? "a number" : "an integer");
            count++;
            p += k;
        }
    } else {
        unsigned char *raw = st_malloc(tl / 4 * 3 + 4);
        long long nraw = raw ? base64_decode((const char *)text, raw) : 0;
        size_t hs = x->header64 ? 8 : 4;
        if (raw && nraw < 0)
            s = xerr(x, da, err, "DataArray '%s': binary data is not valid base64", name);
        else if (raw && !x->zlib) {
            uint64_t nbytes = (size_t)nraw >= hs ? hdr(raw, x->header64, x->big) : UINT64_MAX;
            if (nbytes > (uint64_t)nraw - hs || nbytes % t->size)
                s = xerr(x, da, err,
                         "DataArray '%s': truncated binary data (the header declares %llu "
                         "bytes, %lld are there)",
                         name, (unsigned long long)nbytes, nraw - (long long)hs);
            else {
                count = (size_t)nbytes / t->size;
                v = st_malloc((count ? count : 1) * sizeof *v);
                if (v)
                    decode(raw + hs, count, t, x->big, v);
            }
        } else if (raw) {
            /* [nblocks][blocksize][lastsize][csize x nblocks], then the blocks. */
            uint64_t nbk = (size_t)nraw >= 3 * hs ? hdr(raw, x->header64, x->big) : UINT64_MAX;
            if (nbk > ((uint64_t)nraw - 3 * hs) / hs) {
                s = xerr(x, da, err, "DataArray '%s': truncated compressed header", name);
            } else {
                uint64_t bs = hdr(raw + hs, x->header64, x->big),
                         last = hdr(raw + 2 * hs, x->header64, x->big), ctotal = 0;
                size_t pos = (3 + (size_t)nbk) * hs;
                for (uint64_t b = 0; b < nbk; b++)
                    ctotal += hdr(raw + (3 + b) * hs, x->header64, x->big);
                uint64_t total = nbk ? (nbk - 1) * bs + (last ? last : bs) : 0;
                /* zlib expands at most 1032:1: bounds the allocation by the file. */
                if (ctotal > (uint64_t)nraw - pos || total > 1032 * ctotal + 64 ||
                    total % t->size || bs > total)
                    s = xerr(x, da, err,
                             "DataArray '%s': inconsistent compressed header (%llu blocks, %llu "
                             "bytes compressed, %llu uncompressed)",
                             name, (unsigned long long)nbk, (unsigned long long)ctotal,
                             (unsigned long long)total);
                unsigned char *buf = s == ST_OK ? st_malloc(total ? total : 1) : NULL;
                size_t done = 0;
                for (uint64_t b = 0; buf && s == ST_OK && b < nbk; b++) {
                    uLongf want = (uLongf)(b + 1 < nbk || !last ? bs : last);
                    uLong cs = (uLong)hdr(raw + (3 + b) * hs, x->header64, x->big);
                    uLongf got = want;
                    if (uncompress(buf + done, &got, raw + pos, cs) != Z_OK || got != want)
                        s = xerr(x, da, err, "DataArray '%s': block %llu does not decompress "
                                             "(corrupt zlib data)",
                                 name, (unsigned long long)b);
                    done += got;
                    pos += cs;
                }
                if (buf && s == ST_OK) {
                    count = (size_t)total / t->size;
                    v = st_malloc((count ? count : 1) * sizeof *v);
                    if (v)
                        decode(buf, count, t, x->big, v);
                }
                if (!buf && s == ST_OK)
                    s = st_error_set(err, ST_ENOMEM, "out of memory");
                st_free(buf);
            }
        }
        if (!raw && s == ST_OK)
            s = st_error_set(err, ST_ENOMEM, "out of memory");
        st_free(raw);
    }
    xmlFree(text);
    if (s == ST_OK && !v)
        s = st_error_set(err, ST_ENOMEM, "out of memory");
    if (s != ST_OK) {
        st_free(v);
        return s;
    }
    if (count % *ncomp) {
        st_free(v);
        return xerr(x, da, err, "DataArray '%s': %zu values are not a whole number of %u-tuples",
                    name, count, *ncomp);
    }
    *out = v;
    *n = count;
    return ST_OK;
}

static const xmlNode *named_array(const xmlNode *section, const char *name)
{
    char nb[128];
    for (const xmlNode *c = child(section, "DataArray"); c; c = next_named(c, "DataArray"))
        if (attr(c, "Name", nb, sizeof nb) && !strcmp(nb, name))
            return c;
    return NULL;
}

/* A cell section (Cells, Polys, Lines, Verts, Strips) of a Piece. */
static st_status xml_cells(xmlreader *x, const xmlNode *sec, vtk_mesh *m, size_t base,
                           int type, st_error *err)
{
    const xmlNode *cn = named_array(sec, "connectivity"), *on = named_array(sec, "offsets"),
                  *tn = named_array(sec, "types");
    if (!cn || !on || (type == PENDING && !tn))
        return xerr(x, sec, err, "<%s> needs DataArrays 'connectivity', 'offsets'%s", sec->name,
                    type == PENDING ? " and 'types'" : "");
    double *conn = NULL, *off = NULL, *ty = NULL;
    size_t nconn, noff, nty = 0;
    unsigned nc;
    st_status s = data_array(x, cn, &conn, &nconn, &nc, err);
    if (s == ST_OK)
        s = data_array(x, on, &off, &noff, &nc, err);
    if (s == ST_OK && tn)
        s = data_array(x, tn, &ty, &nty, &nc, err);
    if (s == ST_OK && tn && type == PENDING && nty != noff)
        s = xerr(x, tn, err, "%zu cell types for %zu cells", nty, noff);
    size_t bad = s == ST_OK ? bad_index(conn, nconn) : 0;
    if (s == ST_OK && bad < nconn)
        s = xerr(x, cn, err, "connectivity value %zu (%g) is not a point index (an integer >= 0)",
                 bad, conn[bad]);
    for (size_t c = 0; s == ST_OK && ty && c < nty; c++)
        if (!(isfinite(ty[c]) && ty[c] == floor(ty[c])))
            s = xerr(x, tn, err, "cell type %zu (%g) is not an integer",
                     c, ty[c]);
    for (size_t i = 0; s == ST_OK && i < nconn; i++)
        conn[i] += (double)base;
    double prev = 0;
    for (size_t c = 0; s == ST_OK && c < noff; c++) {
        if (!whole_in(off[c], (double)nconn) || off[c] < prev)
            s = xerr(x, on, err, "offset %zu (%g) is not an integer, out of order or beyond "
                                 "the %zu connectivity values",
                     c, off[c], nconn);
        else {
            int t = type == PENDING ? (ty[c] < 0 || ty[c] > 1000 ? 1000 : (int)ty[c]) : type;
            s = add_cell(m, t, conn + (size_t)prev, (size_t)(off[c] - prev),
                         (size_t)xmlGetLineNo(cn), false, err);
            prev = off[c];
        }
    }
    st_free(conn);
    st_free(off);
    st_free(ty);
    return s;
}

static st_status xml_data(xmlreader *x, const xmlNode *sec, bool cell, st_error *err)
{
    char nb[128];
    for (const xmlNode *c = child(sec, "DataArray"); c; c = next_named(c, "DataArray")) {
        double *v;
        size_t n;
        unsigned nc;
        ST_TRY(data_array(x, c, &v, &n, &nc, err));
        st_free(v);
        st_component_info(&x->l->base, "%s data '%s' (%u components) read; settee does not "
                                       "expose VTK data arrays as outputs",
                          cell ? "cell" : "point",
                          attr(c, "Name", nb, sizeof nb) ? nb : "(unnamed)", nc);
    }
    return ST_OK;
}

static st_status xml_piece(xmlreader *x, const xmlNode *piece, bool poly, vtk_mesh *m,
                           st_error *err)
{
    char b[64];
    long long np = -1;
    if (!attr(piece, "NumberOfPoints", b, sizeof b) || !parse_long(b, strlen(b), &np) || np < 0)
        return xerr(x, piece, err, "<Piece> needs NumberOfPoints");
    const xmlNode *pts = child(piece, "Points");
    const xmlNode *pda = pts ? child(pts, "DataArray") : NULL;
    size_t base = m->npts;
    if (np > 0) {
        if (!pda)
            return xerr(x, piece, err, "<Piece> has %lld points but no <Points><DataArray>", np);
        double *v;
        size_t n;
        unsigned nc;
        ST_TRY(data_array(x, pda, &v, &n, &nc, err));
        if (nc != 3 || n != 3 * (size_t)np) {
            st_free(v);
            return xerr(x, pda, err, "Points: expected %lld points of 3 components, found %zu "
                                     "values of %u components",
                        np, n, nc);
        }
        for (size_t i = 0; i < n; i++)
            if (!isfinite(v[i])) {
                st_free(v);
                return xerr(x, pda, err, "point %zu: a coordinate is not a finite number", i / 3);
            }
        double *all = st_realloc(m->pts, (m->npts + (size_t)np) * 3 * sizeof *all);
        if (!all) {
            st_free(v);
            return st_error_set(err, ST_ENOMEM, "out of memory");
        }
        memcpy(all + 3 * m->npts, v, n * sizeof *v);
        st_free(v);
        m->pts = all;
        m->npts += (size_t)np;
    }
    static const struct {
        const char *sec;
        int type;
    } secs[] = {{"Cells", PENDING}, {"Verts", 1}, {"Lines", 4}, {"Strips", 6},
                {"Polys", POLYGON_ENTRY}};
    for (size_t i = 0; i < sizeof secs / sizeof *secs; i++) {
        const xmlNode *sec = child(piece, secs[i].sec);
        if (sec && (i == 0) != poly)
            ST_TRY(xml_cells(x, sec, m, base, secs[i].type, err));
    }
    if (child(piece, "PointData"))
        ST_TRY(xml_data(x, child(piece, "PointData"), false, err));
    if (child(piece, "CellData"))
        ST_TRY(xml_data(x, child(piece, "CellData"), true, err));
    return ST_OK;
}

/* libxml2's first error of a parse (the last is often a consequence). */
typedef struct first_error {
    bool set;
    int line;
    char msg[512];
} first_error;

static void keep_first_error(void *ctx, xmlErrorPtr e)
{
    first_error *fe = ctx;
    if (!fe || fe->set || !e || e->level < XML_ERR_ERROR)
        return;
    fe->set = true;
    fe->line = e->line;
    snprintf(fe->msg, sizeof fe->msg, "%s", e->message ? e->message : "parse error");
}

static st_status read_xml(mesh_loader *l, const mesh_file *f, vtk_mesh *m, st_error *err)
{
    xmlreader x = {.l = l, .path = f->path};
    if (f->size > INT32_MAX)
        return loader_error_at(&l->base, f->path, 1, 0, err, ST_EPARSE,
                               "XML file too large for the XML reader (%zu bytes)", f->size);
    /* before libxml2 runs: a DTD (entities that expand a billionfold, which
     * XML_PARSE_HUGE below would not stop) and an element with so many
     * attributes that its duplicate check takes minutes */
    xml_prescan ps;
    if (!xml_prescan_text(f->data, f->size, 4096, &ps))
        return loader_error_at(&l->base, f->path, ps.dtd_line ? ps.dtd_line : ps.attrs_line, 0,
                               err, ST_EPARSE, "%s",
                               ps.dtd_line ? "a DTD in a VTK file is refused (no entities are "
                                             "read)"
                                           : "an element with more than 4096 attributes: "
                                             "refused before parsing");
    xmlParserCtxtPtr ctx = xmlNewParserCtxt();
    if (!ctx)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    /* No network, no entity substitution, no DTD loading; HUGE lifts the
     * text-node size limit (the file is already in memory). */
    first_error fe = {0};
    xmlSetStructuredErrorFunc(&fe, keep_first_error);
    xmlDocPtr doc = xmlCtxtReadMemory(ctx, f->data, (int)f->size, f->path, NULL,
                                      XML_PARSE_NONET | XML_PARSE_HUGE | XML_PARSE_NOERROR |
                                          XML_PARSE_NOWARNING);
    xmlSetStructuredErrorFunc(NULL, NULL);
    if (!doc) {
        const xmlError *e = xmlCtxtGetLastError(ctx);
        int line = fe.set ? fe.line : e ? e->line : 0;
        st_status s = loader_error_at(&l->base, f->path, line > 0 ? line : 1, 0, err, ST_EPARSE,
                                      "malformed XML: %s",
                                      fe.set                 ? fe.msg
                                      : e && e->message ? e->message
                                                        : "parse error");
        /* libxml2 messages end with a newline. */
        size_t n = strlen(err->msg);
        if (n && err->msg[n - 1] == '\n')
            err->msg[n - 1] = 0;
        xmlFreeParserCtxt(ctx);
        return s;
    }
    st_status s = ST_OK;
    const xmlNode *root = xmlDocGetRootElement(doc);
    char tb[64], bb[64], hb[64], cb[128];
    const char *type = root ? attr(root, "type", tb, sizeof tb) : NULL;
    if (doc->intSubset || doc->extSubset)
        s = xerr(&x, root, err, "a DTD in a VTK file is refused (no entities are read)");
    else if (!root || strcmp((const char *)root->name, "VTKFile"))
        s = xerr(&x, root, err, "VTKFile Node not found: the root element must be <VTKFile>");
    else if (!type || (strcmp(type, "UnstructuredGrid") && strcmp(type, "PolyData")))
        s = xerr(&x, root, err,
                 "Dataset format '%s' not supported (UnstructuredGrid and PolyData are read)",
                 type ? type : "");
    if (s == ST_OK) {
        const char *bo = attr(root, "byte_order", bb, sizeof bb);
        const char *ht = attr(root, "header_type", hb, sizeof hb);
        const char *comp = attr(root, "compressor", cb, sizeof cb);
        x.big = bo && !strcmp(bo, "BigEndian");
        x.header64 = ht && !strcmp(ht, "UInt64");
        x.zlib = comp && comp[0];
        if (comp && comp[0] && strcmp(comp, "vtkZLibDataCompressor"))
            s = xerr(&x, root, err, "compressor '%s' not supported (vtkZLibDataCompressor is)",
                     comp);
        if (ht && strcmp(ht, "UInt32") && strcmp(ht, "UInt64"))
            s = xerr(&x, root, err, "header_type '%s' not supported (UInt32 or UInt64)", ht);
    }
    const xmlNode *ds = s == ST_OK ? child(root, type) : NULL;
    if (s == ST_OK && (!ds || !child(ds, "Piece")))
        s = xerr(&x, root, err, "no <%s><Piece> in the file", type);
    for (const xmlNode *p = ds ? child(ds, "Piece") : NULL; s == ST_OK && p;
         p = next_named(p, "Piece"))
        s = xml_piece(&x, p, !strcmp(type, "PolyData"), m, err);
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctx);
    return s;
}

/* ---- From cells to SOFA's outputs ---- */

typedef struct edge_set {
    uint64_t *k; /* key + 1, 0 = empty */
    size_t n, cap;
} edge_set;

static st_status edge_once(mesh_loader *l, edge_set *s, unsigned a, unsigned b, st_error *err)
{
    unsigned e[2] = {a < b ? a : b, a < b ? b : a};
    uint64_t key = ((uint64_t)e[0] << 32 | e[1]) + 1;
    if (2 * (s->n + 1) > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        uint64_t *k = st_calloc(cap, sizeof *k);
        if (!k)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        for (size_t i = 0; i < s->cap; i++)
            if (s->k[i]) {
                size_t h = (size_t)(s->k[i] * 0x9E3779B97F4A7C15ull) & (cap - 1);
                while (k[h])
                    h = (h + 1) & (cap - 1);
                k[h] = s->k[i];
            }
        st_free(s->k);
        s->k = k;
        s->cap = cap;
    }
    size_t h = (size_t)(key * 0x9E3779B97F4A7C15ull) & (s->cap - 1);
    while (s->k[h]) {
        if (s->k[h] == key)
            return ST_OK;
        h = (h + 1) & (s->cap - 1);
    }
    s->k[h] = key;
    s->n++;
    return loader_push(l, &l->edges, ST_T_EDGES, e, false, err);
}

static int points_needed(int t)
{
    switch (t) {
    case 3: return 2;
    case 5: return 3;
    case 8:
    case 9:
    case 10: return 4;
    case 11:
    case 12: return 8;
    case 21: return 3;
    case 22: return 6;
    case 24: return 10;
    default: return 0;
    }
}

static st_status emit_cell(mesh_loader *l, edge_set *es, int t, const unsigned *v, size_t nv,
                           st_error *err)
{
    static const unsigned qtri[3][2] = {{0, 1}, {1, 2}, {2, 0}};
    static const unsigned qtet[6][2] = {{0, 1}, {1, 2}, {0, 2}, {0, 3}, {1, 3}, {2, 3}};
    unsigned q[8];
    switch (t) {
    case POLYGON_ENTRY:
        if (nv == 4)
            return loader_push(l, &l->quads, ST_T_QUADS, v, true, err);
        __attribute__((fallthrough)); /* a fan, as POLYGON */
    case 7:
        for (size_t j = 2; j < nv; j++) {
            unsigned tr[3] = {v[0], v[j - 1], v[j]};
            ST_TRY(loader_push(l, &l->triangles, ST_T_TRIANGLES, tr, true, err));
        }
        return ST_OK;
    case 3:
    case 21: return loader_push(l, &l->edges, ST_T_EDGES, v, false, err);
    case 4:
        for (size_t j = 1; j < nv; j++)
            ST_TRY(loader_push(l, &l->edges, ST_T_EDGES, v + j - 1, false, err));
        return ST_OK;
    case 5: return loader_push(l, &l->triangles, ST_T_TRIANGLES, v, true, err);
    case 6:
        for (size_t j = 0; j + 2 < nv; j++) {
            unsigned tr[3] = {v[j], v[j + ((j & 1) ? 1 : 2)], v[j + ((j & 1) ? 2 : 1)]};
            ST_TRY(loader_push(l, &l->triangles, ST_T_TRIANGLES, tr, true, err));
        }
        return ST_OK;
    case 8:
        q[0] = v[0], q[1] = v[1], q[2] = v[3], q[3] = v[2];
        return loader_push(l, &l->quads, ST_T_QUADS, q, true, err);
    case 9: return loader_push(l, &l->quads, ST_T_QUADS, v, true, err);
    case 10: return loader_push(l, &l->tetrahedra, ST_T_TETRAS, v, false, err);
    case 11: {
        static const unsigned o[8] = {0, 1, 3, 2, 4, 5, 7, 6};
        for (int k = 0; k < 8; k++)
            q[k] = v[o[k]];
        return loader_push(l, &l->hexahedra, ST_T_HEXAS, q, false, err);
    }
    case 12: return loader_push(l, &l->hexahedra, ST_T_HEXAS, v, false, err);
    case 22:
        ST_TRY(loader_push(l, &l->triangles, ST_T_TRIANGLES, v, true, err));
        for (int j = 0; j < 3; j++)
            ST_TRY(edge_once(l, es, v[qtri[j][0]], v[qtri[j][1]], err));
        return ST_OK;
    case 24:
        ST_TRY(loader_push(l, &l->tetrahedra, ST_T_TETRAS, v, false, err));
        for (int j = 0; j < 6; j++)
            ST_TRY(edge_once(l, es, v[qtet[j][0]], v[qtet[j][1]], err));
        return ST_OK;
    default: return ST_OK; /* 0, 1, 2: no element */
    }
}

static st_status emit(mesh_loader *l, const char *path, const vtk_mesh *m, st_error *err)
{
    ST_TRY(st_array_resize(&l->position, ST_T_VEC3S, m->npts, err));
    if (m->npts)
        memcpy(l->position.r, m->pts, 3 * m->npts * sizeof(double));
    if (m->nnormals == m->npts && m->normals) {
        ST_TRY(st_array_resize(&l->normals, ST_T_VEC3S, m->npts, err));
        memcpy(l->normals.r, m->normals, 3 * m->npts * sizeof(double));
    }
    edge_set es = {0};
    st_status s = ST_OK;
    size_t unsupported = 0;
    int first_unsupported = 0;
    for (size_t c = 0; c < m->ncells && s == ST_OK; c++) {
        int t = m->type[c];
        const unsigned *v = m->conn + m->off[c];
        size_t nv = m->off[c + 1] - m->off[c];
        int line = m->binary[c] ? 0 : (int)m->where[c];
        if (t == PENDING) {
            s = loader_error_at(&l->base, path, line, m->where[c], err, ST_EPARSE,
                                "CELLS without a CELL_TYPES section");
            break;
        }
        bool known = t == POLYGON_ENTRY || (t >= 0 && t <= 12) || t == 21 || t == 22 || t == 24;
        if (!known) {
            if (!unsupported++)
                first_unsupported = t;
            continue;
        }
        if (nv < (size_t)points_needed(t)) {
            s = loader_error_at(&l->base, path, line, m->where[c], err, ST_EPARSE,
                                "cell %zu of type %d has %zu points, it needs %d", c, t, nv,
                                points_needed(t));
            break;
        }
        for (size_t k = 0; k < nv; k++)
            if (v[k] >= m->npts) {
                s = loader_error_at(&l->base, path, line, m->where[c], err, ST_EPARSE,
                                    "cell %zu uses point %u, but there are %zu points (indices "
                                    "start at 0)",
                                    c, v[k], m->npts);
                break;
            }
        if (s == ST_OK)
            s = emit_cell(l, &es, t, v, nv, err);
    }
    st_free(es.k);
    if (unsupported)
        st_component_warn(&l->base, "%s: %zu cells of unsupported types skipped (the first of type "
                                    "%d)",
                          path, unsupported, first_unsupported);
    return s;
}

static st_status vtk_parse(mesh_loader *l, const mesh_file *fp, st_error *err)
{
    const mesh_file f = *fp;
    st_component *self = &l->base;
    vtk_mesh m = {0};
    size_t i = 0;
    while (i < f.size && (f.data[i] == ' ' || f.data[i] == '\n' || f.data[i] == '\r' ||
                          f.data[i] == '\t'))
        i++;
    st_status s;
    if (f.size - i >= 1 && f.data[i] == '<')
        s = read_xml(l, &f, &m, err);
    else if (f.size >= 14 && !memcmp(f.data, "# vtk DataFile", 14))
        s = read_legacy(l, &f, &m, err);
    else
        s = loader_error_at(self, f.path, 1, 0, err, ST_EPARSE,
                            "Header not recognized: neither a legacy VTK file ('# vtk DataFile "
                            "Version') nor an XML one ('<?xml' or '<VTKFile')");
    if (s == ST_OK && !m.pts && m.npts == 0 && !m.ncells)
        s = loader_error_at(self, f.path, 1, 0, err, ST_EPARSE, "no POINTS in the file");
    if (s == ST_OK)
        s = emit(l, f.path, &m, err);
    vtk_mesh_free(&m);
    return s;
}

const mesh_format mesh_vtk_format = {sizeof(mesh_loader), vtk_parse, NULL};

static st_status vtk_init(st_component *self, st_error *err)
{
    return loader_load((mesh_loader *)self, vtk_parse, err);
}

const st_class mesh_vtk_loader_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshVTKLoader",
    .category = "Loader",
    .description = "Mesh loader for the VTK/VTU file format.",
    .instance_size = sizeof(mesh_loader),
    .fields = vtk_fields,
    .init = vtk_init,
    .reinit = vtk_init,
    .cleanup = loader_cleanup,
};
