/* mesh_gmsh_loader.c - MeshGmshLoader: Gmsh MSH files, ASCII formats 1
 * ($NOD / $ELM), 2.2 and 4.1. Nodes may be numbered with holes and in any
 * order (tags are mapped to positions in file order). Elements of types 1
 * (line), 2 (triangle), 3 (quad), 4 (tetrahedron), 5 (hexahedron), 8/9/11
 * (second order: their corners, plus the edges of 9 and 11 as SOFA adds
 * them) are kept, points (15) skipped, others skipped with a warning. As in
 * SOFA, createSubelements defaults to true for Gmsh files. Groups (SOFA's
 * MeshGmsh::addInGroup): each element joins the group of its tag (format 1:
 * none, -1 for all; 2.2: the last of its tags; 4.1: the element's own tag),
 * a group per tag in order of first appearance, named "" with materialId
 * -1; then the groups of edges, triangles, tetrahedra and hexahedra are
 * renumbered to consecutive ranges (p0 = the sum of the previous groups'
 * sizes: right when each tag's elements are contiguous), the quads' groups
 * keep their tag as p0, as SOFA's normalizeGroup calls do. Nothing is
 * allocated from a count the file declares; malformed files are errors
 * naming the file's own line. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_loader.h"

static const st_field gmsh_fields[] = {LOADER_FIELDS, LOADER_SUBELEMENTS("true"), ST_FIELD_END};

/* Node tag -> position index, sorted by tag once the nodes are read. */
typedef struct tag_map {
    struct tag_pair {
        long long tag;
        size_t index;
    } *p;
    size_t n, cap;
} tag_map;

typedef struct gmsh_reader {
    mesh_loader *l;
    text_cursor tc;
    const char *s; /* the current line */
    size_t len;
    tag_map tags;
    /* Groups per kind (edges, triangles, quads, -, tetrahedra, hexahedra:
     * the loader's groups[] order): tag and element count. */
    struct gmsh_group {
        long long tag, n;
    } *grp[6];
    size_t ngrp[6], capgrp[6];
    size_t *slot[6]; /* open addressing: 1 + group index, 0 empty */
    size_t nslot[6];
} gmsh_reader;

/* SOFA's addInGroup: one more element in the group of this tag (a hash
 * from tag to group: format 4.1 gives every element its own tag, and
 * SOFA's linear search would be quadratic in the elements). */
static size_t tag_hash(long long tag, size_t mask)
{
    unsigned long long h = (unsigned long long)tag * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 17) & mask;
}

static st_status group_add(gmsh_reader *g, int kind, long long tag, st_error *err)
{
    size_t cap = g->nslot[kind];
    if (cap) {
        for (size_t h = tag_hash(tag, cap - 1);; h = (h + 1) & (cap - 1)) {
            size_t s = g->slot[kind][h];
            if (s == 0)
                break;
            if (g->grp[kind][s - 1].tag == tag) {
                g->grp[kind][s - 1].n++;
                return ST_OK;
            }
        }
    }
    if (g->ngrp[kind] == g->capgrp[kind]) {
        size_t c = g->capgrp[kind] ? 2 * g->capgrp[kind] : 8;
        struct gmsh_group *q = st_realloc(g->grp[kind], c * sizeof *q);
        if (!q)
            return st_error_set(err, ST_ENOMEM, "out of memory for the mesh groups");
        g->grp[kind] = q;
        g->capgrp[kind] = c;
    }
    g->grp[kind][g->ngrp[kind]++] = (struct gmsh_group){tag, 1};
    /* the table at most half full: rebuilt at twice the size */
    if (2 * g->ngrp[kind] > cap) {
        size_t nc = cap ? 2 * cap : 16;
        while (2 * g->ngrp[kind] > nc)
            nc *= 2;
        size_t *t = st_calloc(nc, sizeof *t);
        if (!t)
            return st_error_set(err, ST_ENOMEM, "out of memory for the mesh groups");
        for (size_t i = 0; i < g->ngrp[kind]; i++) {
            size_t h = tag_hash(g->grp[kind][i].tag, nc - 1);
            while (t[h])
                h = (h + 1) & (nc - 1);
            t[h] = i + 1;
        }
        st_free(g->slot[kind]);
        g->slot[kind] = t;
        g->nslot[kind] = nc;
    } else {
        size_t h = tag_hash(tag, cap - 1);
        while (g->slot[kind][h])
            h = (h + 1) & (cap - 1);
        g->slot[kind][h] = g->ngrp[kind];
    }
    return ST_OK;
}

/* The groups into the loader's outputs (normalised but for quads). */
static st_status groups_write(gmsh_reader *g, st_error *err)
{
    for (int kind = 0; kind < 6; kind++) {
        long long start = 0;
        for (size_t i = 0; i < g->ngrp[kind]; i++) {
            long long p0 = kind == 2 ? g->grp[kind][i].tag : start;
            ST_TRY(loader_add_group(&g->l->groups[kind], p0, g->grp[kind][i].n, "", "", -1,
                                    err));
            start += g->grp[kind][i].n;
        }
    }
    return ST_OK;
}

static st_status gerr(gmsh_reader *g, st_error *err, const char *fmt, ...) ST_PRINTF(3, 4);
static st_status gerr(gmsh_reader *g, st_error *err, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return loader_error_at(&g->l->base, g->tc.path, g->tc.line > 0 ? g->tc.line : 1, 0, err,
                           ST_EPARSE, "%s", msg);
}

/* Next non-blank line. */
static bool gline(gmsh_reader *g)
{
    while (text_next_line(&g->tc, &g->s, &g->len)) {
        size_t i = 0;
        while (i < g->len && (g->s[i] == ' ' || g->s[i] == '\t'))
            i++;
        if (i < g->len)
            return true;
    }
    g->s = "end of file";
    g->len = strlen(g->s);
    return false;
}

static bool is_kw(const gmsh_reader *g, const char *kw)
{
    size_t k = strlen(kw);
    return g->len >= k && !strncmp(g->s, kw, k);
}

/* Splits the current line into numbers; returns the count, or -1 on a
 * token that is not a number (integers when reals is NULL). */
static int gsplit(const gmsh_reader *g, long long *ints, double *reals, int max)
{
    int k = 0;
    size_t i = 0;
    while (i < g->len) {
        while (i < g->len && (g->s[i] == ' ' || g->s[i] == '\t'))
            i++;
        if (i >= g->len)
            break;
        size_t b = i;
        while (i < g->len && g->s[i] != ' ' && g->s[i] != '\t')
            i++;
        if (k >= max)
            return max + 1;
        bool ok = reals ? parse_real(g->s + b, i - b, &reals[k])
                        : parse_long(g->s + b, i - b, &ints[k]);
        if (!ok)
            return -1;
        k++;
    }
    return k;
}

static st_status add_node(gmsh_reader *g, long long tag, const double x[3], st_error *err)
{
    if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2]))
        return gerr(g, err, "node %lld has a coordinate that is not a finite number", tag);
    tag_map *m = &g->tags;
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        void *q = st_realloc(m->p, cap * sizeof *m->p);
        if (!q)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        m->p = q;
        m->cap = cap;
    }
    m->p[m->n].tag = tag;
    m->p[m->n].index = g->l->position.n;
    m->n++;
    return loader_push_point(&g->l->position, x, err);
}

static int pair_cmp(const void *a, const void *b)
{
    const struct tag_pair *x = a, *y = b;
    if (x->tag != y->tag)
        return x->tag < y->tag ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index; /* stable: the last one wins */
}

static bool node_of(const gmsh_reader *g, long long tag, unsigned *out)
{
    size_t lo = 0, hi = g->tags.n;
    while (lo < hi) { /* the last pair with this tag (SOFA: pmap[tag] = i, last wins) */
        size_t mid = (lo + hi) / 2;
        if (g->tags.p[mid].tag <= tag)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || g->tags.p[lo - 1].tag != tag)
        return false;
    *out = (unsigned)g->tags.p[lo - 1].index;
    return true;
}

static int nodes_of_type(long long type)
{
    switch (type) {
    case 15: return 1;
    case 1: return 2;
    case 2: return 3;
    case 3: return 4;
    case 4: return 4;
    case 5: return 8;
    case 6: return 6;
    case 7: return 5;
    case 8: return 3;
    case 9: return 6;
    case 11: return 10;
    default: return 0;
    }
}

/* Adds the element of the given type whose node tags are tags[0..nn). */
static st_status add_element(gmsh_reader *g, long long type, const long long *tags,
                             long long group_tag, st_error *err)
{
    mesh_loader *l = g->l;
    unsigned v[10];
    int nn = nodes_of_type(type);
    for (int j = 0; j < nn; j++)
        if (!node_of(g, tags[j], &v[j]))
            return gerr(g, err, "element uses node %lld, which the $Nodes section does not define",
                        tags[j]);
    static const unsigned tri_edges[3][2] = {{0, 1}, {1, 2}, {2, 0}};
    static const unsigned tet_edges[6][2] = {{0, 1}, {1, 2}, {0, 2}, {0, 3}, {2, 3}, {1, 3}};
    const unsigned(*ho)[2] = NULL;
    int nho = 0;
    static const int kind_of[12] = {-1, 0, 1, 2, 4, 5, -1, -1, 0, 1, -1, 4};
    if (type >= 0 && type < 12 && kind_of[type] >= 0)
        ST_TRY(group_add(g, kind_of[type], group_tag, err));
    switch (type) {
    case 1:
    case 8: ST_TRY(loader_push(l, &l->edges, ST_T_EDGES, v, false, err)); break;
    case 2: ST_TRY(loader_push(l, &l->triangles, ST_T_TRIANGLES, v, true, err)); break;
    case 9:
        ST_TRY(loader_push(l, &l->triangles, ST_T_TRIANGLES, v, true, err));
        ho = tri_edges;
        nho = 3;
        break;
    case 3: ST_TRY(loader_push(l, &l->quads, ST_T_QUADS, v, true, err)); break;
    case 4: ST_TRY(loader_push(l, &l->tetrahedra, ST_T_TETRAS, v, false, err)); break;
    case 11:
        ST_TRY(loader_push(l, &l->tetrahedra, ST_T_TETRAS, v, false, err));
        ho = tet_edges;
        nho = 6;
        break;
    case 5: ST_TRY(loader_push(l, &l->hexahedra, ST_T_HEXAS, v, false, err)); break;
    default: break; /* points; prisms and pyramids (SOFA keeps none) */
    }
    /* The corner edges of a second-order element, each once per element. */
    unsigned seen[6][2];
    int nseen = 0;
    for (int j = 0; j < nho; j++) {
        unsigned a = v[ho[j][0]], b = v[ho[j][1]];
        unsigned e[2] = {a < b ? a : b, a < b ? b : a};
        bool dup = false;
        for (int k = 0; k < nseen; k++)
            dup |= seen[k][0] == e[0] && seen[k][1] == e[1];
        if (dup)
            continue;
        memcpy(seen[nseen++], e, sizeof e);
        ST_TRY(loader_push(l, &l->edges, ST_T_EDGES, e, false, err));
    }
    return ST_OK;
}

static void warn_type(gmsh_reader *g, long long type)
{
    st_component_warn(&g->l->base,
                      "%s:%d: element of type %lld skipped (types 1, 2, 3, 4, 5, 8, 9, 11 and "
                      "15 are read)",
                      g->tc.path, g->tc.line, type);
}

static st_status read_count(gmsh_reader *g, const char *what, long long *n, st_error *err)
{
    if (!gline(g) || gsplit(g, n, NULL, 1) != 1 || *n < 0)
        return gerr(g, err, "expected the number of %s, found '%.*s'", what, (int)g->len, g->s);
    return ST_OK;
}

/* Formats 1 and 2.2: "$Nodes" (or "$NOD") was just read. */
static st_status read_v2(gmsh_reader *g, int version, st_error *err)
{
    long long cnt;
    ST_TRY(read_count(g, "nodes", &cnt, err));
    for (long long i = 0; i < cnt; i++) {
        if (!gline(g))
            return gerr(g, err, "end of file after %lld of %lld nodes", i, cnt);
        double v[4];
        long long id;
        if (gsplit(g, NULL, v, 4) != 4 || !parse_long(g->s + strspn(g->s, " \t"),
                                                      strcspn(g->s + strspn(g->s, " \t"), " \t"),
                                                      &id) ||
            id < 0)
            return gerr(g, err, "a node line needs 'id x y z' (integer id, 3 reals)");
        ST_TRY(add_node(g, id, v + 1, err));
    }
    if (g->tags.n) /* qsort wants a non-null array, even of 0 elements */
        qsort(g->tags.p, g->tags.n, sizeof *g->tags.p, pair_cmp);
    if (!gline(g) || !(is_kw(g, "$EndNodes") || is_kw(g, "$ENDNOD")))
        return gerr(g, err, "'$EndNodes' expected, found '%.*s'", (int)g->len, g->s);
    if (!gline(g) || !(is_kw(g, "$Elements") || is_kw(g, "$ELM")))
        return gerr(g, err, "'$Elements' expected, found '%.*s'", (int)g->len, g->s);
    ST_TRY(read_count(g, "elements", &cnt, err));
    for (long long i = 0; i < cnt; i++) {
        if (!gline(g))
            return gerr(g, err, "end of file after %lld of %lld elements", i, cnt);
        long long v[64];
        int k = gsplit(g, v, NULL, 64);
        if (k < 3)
            return gerr(g, err, "an element line needs 'id type ntags tags... nodes...'");
        long long type = v[1];
        /* ntags is bounded by the line before it is added to anything */
        long long first = version == 1 ? 5 : v[2] >= 0 && v[2] < k ? 3 + v[2] : -1;
        /* (v1: id type phys elem nnodes) */
        int nn = nodes_of_type(type);
        if (nn == 0) {
            warn_type(g, type);
            continue;
        }
        if (v[2] < 0 || first < 0 || first + nn != k || (version == 1 && (k < 5 || v[4] != nn)))
            return gerr(g, err,
                        "element of type %lld needs %d node numbers after %lld tags, found %lld "
                        "values",
                        type, nn, version == 1 ? 3 : v[2],
                        (long long)k - (first < k ? first : k));
        /* SOFA's tag: the last of the element's tags (format 1: none, -1) */
        long long tag = version == 1 || v[2] == 0 ? -1 : v[first - 1];
        ST_TRY(add_element(g, type, v + first, tag, err));
    }
    if (!gline(g) || !(is_kw(g, "$EndElements") || is_kw(g, "$ENDELM")))
        return gerr(g, err, "'$EndElements' expected, found '%.*s'", (int)g->len, g->s);
    return ST_OK;
}

/* Format 4.1: "$Nodes" was just read. */
static st_status read_v4(gmsh_reader *g, st_error *err)
{
    long long h[4];
    if (!gline(g) || gsplit(g, h, NULL, 4) != 4 || h[0] < 0 || h[1] < 0)
        return gerr(g, err, "expected 'numEntityBlocks numNodes minNodeTag maxNodeTag'");
    long long total = 0;
    for (long long b = 0; b < h[0]; b++) {
        long long e[4];
        if (!gline(g) || gsplit(g, e, NULL, 4) != 4 || e[3] < 0)
            return gerr(g, err, "expected a node block 'entityDim entityTag parametric "
                                "numNodesInBlock'");
        /* The block's tags, then as many coordinate lines: tags are read
         * from the first part while the cursor walks the second. */
        text_cursor tags_at = g->tc;
        for (long long i = 0; i < e[3]; i++)
            if (!gline(g))
                return gerr(g, err, "end of file in a node block (%lld of %lld tags)", i, e[3]);
        for (long long i = 0; i < e[3]; i++) {
            const char *ts;
            size_t tl;
            long long tag;
            if (!text_next_token(&tags_at, &ts, &tl) || !parse_long(ts, tl, &tag) || tag < 1)
                return loader_error_at(&g->l->base, tags_at.path, tags_at.line, 0, err,
                                       ST_EPARSE, "expected a node tag (an integer >= 1)");
            if (!gline(g))
                return gerr(g, err, "end of file in a node block (%lld of %lld coordinates)",
                            i, e[3]);
            double x[6];
            int k = gsplit(g, NULL, x, 6);
            if (k < 3)
                return gerr(g, err, "a node line needs 'x y z' (3 reals)");
            ST_TRY(add_node(g, tag, x, err));
        }
        total += e[3];
    }
    if (total != h[1])
        return gerr(g, err, "the $Nodes header declares %lld nodes, the blocks hold %lld", h[1],
                    total);
    if (g->tags.n) /* qsort wants a non-null array, even of 0 elements */
        qsort(g->tags.p, g->tags.n, sizeof *g->tags.p, pair_cmp);
    if (!gline(g) || !is_kw(g, "$EndNodes"))
        return gerr(g, err, "'$EndNodes' expected, found '%.*s'", (int)g->len, g->s);
    if (!gline(g) || !is_kw(g, "$Elements"))
        return gerr(g, err, "'$Elements' expected, found '%.*s'", (int)g->len, g->s);
    if (!gline(g) || gsplit(g, h, NULL, 4) != 4 || h[0] < 0 || h[1] < 0)
        return gerr(g, err, "expected 'numEntityBlocks numElements minElementTag "
                            "maxElementTag'");
    total = 0;
    for (long long b = 0; b < h[0]; b++) {
        long long e[4];
        if (!gline(g) || gsplit(g, e, NULL, 4) != 4 || e[3] < 0)
            return gerr(g, err, "expected an element block 'entityDim entityTag elementType "
                                "numElementsInBlock'");
        int nn = nodes_of_type(e[2]);
        if (nn == 0)
            warn_type(g, e[2]);
        for (long long i = 0; i < e[3]; i++) {
            if (!gline(g))
                return gerr(g, err, "end of file in an element block (%lld of %lld elements)",
                            i, e[3]);
            if (nn == 0)
                continue;
            long long v[11];
            int k = gsplit(g, v, NULL, 11);
            if (k != nn + 1)
                return gerr(g, err, "element of type %lld needs 'tag' and %d node tags, found %d "
                                    "values",
                            e[2], nn, k < 0 ? 0 : k);
            ST_TRY(add_element(g, e[2], v + 1, v[0], err));
        }
        total += e[3];
    }
    if (total != h[1])
        return gerr(g, err, "the $Elements header declares %lld elements, the blocks hold %lld",
                    h[1], total);
    if (!gline(g) || !is_kw(g, "$EndElements"))
        return gerr(g, err, "'$EndElements' expected, found '%.*s'", (int)g->len, g->s);
    return ST_OK;
}

static st_status gmsh_parse(gmsh_reader *g, st_error *err)
{
    if (!gline(g))
        return gerr(g, err, "empty file: not a Gmsh file");
    if (memchr(g->s, 0, g->len) || !(is_kw(g, "$MeshFormat") || is_kw(g, "$NOD")))
        return gerr(g, err, "not a Gmsh file: the first line must be $MeshFormat (or $NOD)");
    if (is_kw(g, "$NOD"))
        return read_v2(g, 1, err);
    if (!gline(g))
        return gerr(g, err, "missing the version line after $MeshFormat");
    double h[3];
    int k = gsplit(g, NULL, h, 3);
    if (k < 2 || (!(h[0] >= 2.0 && h[0] < 3.0) && h[0] != 4.1))
        return gerr(g, err,
                    "unsupported MSH version '%.*s': MeshGmshLoader reads formats 2.2 and 4.1",
                    (int)g->len, g->s);
    if (h[1] != 0)
        return gerr(g, err, "binary MSH files are not supported (file-type %g): save as ASCII",
                    h[1]);
    int version = h[0] >= 4 ? 4 : 2;
    if (!gline(g) || !is_kw(g, "$EndMeshFormat"))
        return gerr(g, err, "No $EndMeshFormat flag found at the end of the header");
    /* Sections before $Nodes ($PhysicalNames, $Entities, ...) are skipped. */
    while (gline(g) && !is_kw(g, "$Nodes"))
        ;
    if (!is_kw(g, "$Nodes"))
        return gerr(g, err, "End of file reached without finding the $Nodes section");
    return version == 4 ? read_v4(g, err) : read_v2(g, 2, err);
}

static st_status gmsh_read(mesh_loader *l, const mesh_file *f, st_error *err)
{
    gmsh_reader g = {.l = l};
    text_cursor_init(&g.tc, f);
    st_status s = gmsh_parse(&g, err);
    if (s == ST_OK)
        s = groups_write(&g, err);
    st_free(g.tags.p);
    for (int k = 0; k < 6; k++) {
        st_free(g.grp[k]);
        st_free(g.slot[k]);
    }
    return s;
}

const mesh_format mesh_gmsh_format = {sizeof(mesh_loader), gmsh_read, NULL};

static st_status gmsh_init(st_component *self, st_error *err)
{
    return loader_load((mesh_loader *)self, gmsh_read, err);
}

const st_class mesh_gmsh_loader_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshGmshLoader",
    .category = "Loader",
    .description = "Mesh loader for Gmsh MSH files: ASCII formats 1, 2.2 and 4.1 (not binary)",
    .instance_size = sizeof(mesh_loader),
    .fields = gmsh_fields,
    .init = gmsh_init,
    .reinit = gmsh_init,
    .cleanup = loader_cleanup,
};
