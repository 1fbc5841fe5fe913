/* mesh_stl_loader.c - MeshSTLLoader: STL files, ASCII ("solid ... facet
 * normal ... vertex ... endfacet") and binary (header, facet count, 50
 * bytes per facet, little endian). As SOFA, equal positions are merged
 * (exact equality, in order of first appearance: mergePositionUsingMap only
 * chooses SOFA's data structure, both give the same mesh), binary facets
 * whose merged corners are not all different are dropped, and the facet
 * normals are the "normals" output (SOFA's MeshLoader then completes them
 * from the geometry unless there is one per position). A binary file's
 * size must be headerSize + 4 + 50 x the facet count. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "mesh_loader.h"

typedef struct stl_loader {
    mesh_loader m;
    unsigned header_size;
    bool force_binary, merge_using_map;
} stl_loader;

static const st_field stl_fields[] = {
    LOADER_FIELDS,
    LOADER_SUBELEMENTS("false"),
    ST_UINT(stl_loader, header_size, "headerSize", "80",
            "Size of the header binary file (just before the number of facet)."),
    ST_BOOL(stl_loader, force_binary, "forceBinary", "false",
            "Force reading in binary mode. Even in first keyword of the file is solid."),
    ST_IGNORED(stl_loader, merge_using_map, "mergePositionUsingMap", ST_T_BOOL, bool, "true",
               "Since positions are duplicated in a STL, they have to be merged. Using a map to "
               "do so will temporarily duplicate memory but should be more efficient. Disable it "
               "if memory is really an issue. (settee always merges with a hash table)"),
    ST_FIELD_END};

/* Position -> index, open addressing on the coordinates' bits. */
typedef struct pos_map {
    size_t *slot; /* index + 1, 0 = empty */
    size_t cap;
} pos_map;

static uint64_t hash3(const double *p)
{
    uint64_t h = 1469598103934665603ull;
    for (int a = 0; a < 3; a++) {
        double v = p[a] == 0 ? 0.0 : p[a]; /* -0 == 0, as SOFA's comparison */
        uint64_t b;
        memcpy(&b, &v, sizeof b);
        h = (h ^ b) * 1099511628211ull;
        h ^= h >> 29;
    }
    return h;
}

/* The index of position p, appending it when new. */
static st_status merge_point(mesh_loader *l, pos_map *m, const double p[3], unsigned *out,
                             st_error *err)
{
    if (2 * (l->position.n + 1) > m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 256;
        size_t *s = st_calloc(cap, sizeof *s);
        if (!s)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        for (size_t i = 0; i < l->position.n; i++) {
            size_t h = (size_t)hash3(l->position.r + 3 * i) & (cap - 1);
            while (s[h])
                h = (h + 1) & (cap - 1);
            s[h] = i + 1;
        }
        st_free(m->slot);
        m->slot = s;
        m->cap = cap;
    }
    size_t h = (size_t)hash3(p) & (m->cap - 1);
    while (m->slot[h]) {
        const double *q = l->position.r + 3 * (m->slot[h] - 1);
        if (q[0] == p[0] && q[1] == p[1] && q[2] == p[2]) {
            *out = (unsigned)(m->slot[h] - 1);
            return ST_OK;
        }
        h = (h + 1) & (m->cap - 1);
    }
    m->slot[h] = l->position.n + 1;
    *out = (unsigned)l->position.n;
    return loader_push_point(&l->position, p, err);
}

static double le_float(const unsigned char *b)
{
    uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                 (uint32_t)b[3] << 24;
    float f;
    memcpy(&f, &u, sizeof f);
    return (double)f;
}

static st_status stl_binary(stl_loader *o, const mesh_file *f, pos_map *map, st_error *err)
{
    mesh_loader *l = &o->m;
    const unsigned char *d = (const unsigned char *)f->data;
    size_t hs = o->header_size;
    if (f->size < hs + 4)
        return loader_error_at(&l->base, f->path, 0, f->size, err, ST_EPARSE,
                               "truncated binary STL: %zu bytes, the header and facet count need "
                               "%zu",
                               f->size, hs + 4);
    uint32_t n = (uint32_t)d[hs] | (uint32_t)d[hs + 1] << 8 | (uint32_t)d[hs + 2] << 16 |
                 (uint32_t)d[hs + 3] << 24;
    if ((f->size - hs - 4) / 50 != n || (f->size - hs - 4) % 50)
        return loader_error_at(&l->base, f->path, 0, hs, err, ST_EPARSE,
                               "not a binary STL file: it declares %u facets, so its size should "
                               "be %llu bytes, but it is %zu",
                               n, (unsigned long long)hs + 4 + 50ull * n, f->size);
    ST_TRY(st_array_resize(&l->normals, ST_T_VEC3S, n, err));
    size_t degenerate = 0;
    for (uint32_t i = 0; i < n; i++) {
        const unsigned char *b = d + hs + 4 + 50 * (size_t)i;
        double v[12];
        for (int k = 0; k < 12; k++) {
            v[k] = le_float(b + 4 * k);
            if (!isfinite(v[k]))
                return loader_error_at(&l->base, f->path, 0, (size_t)(b + 4 * k - d), err,
                                       ST_EPARSE, "facet %u: a %s is not a finite number", i,
                                       k < 3 ? "normal component" : "coordinate");
        }
        memcpy(l->normals.r + 3 * i, v, 3 * sizeof(double));
        unsigned t[3];
        for (int k = 0; k < 3; k++)
            ST_TRY(merge_point(l, map, v + 3 + 3 * k, &t[k], err));
        if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2])
            degenerate++;
        else
            ST_TRY(loader_push(l, &l->triangles, ST_T_TRIANGLES, t, true, err));
    }
    if (degenerate)
        st_component_warn(&l->base,
                          "Found %zu degenerated triangles (triangles which indices are not all "
                          "different). Those triangles have not been added to the list of "
                          "triangles",
                          degenerate);
    return ST_OK;
}

static st_status stl_ascii(stl_loader *o, const mesh_file *f, pos_map *map, st_error *err)
{
    mesh_loader *l = &o->m;
    text_cursor tc;
    text_cursor_init(&tc, f);
    const char *s;
    size_t len;
    unsigned t[3];
    int nv = 0;
    bool in_facet = false;
    while (text_next_line(&tc, &s, &len)) {
        text_cursor lc = {
            .path = f->path, .begin = s, .p = s, .end = s + len, .pline = 1, .eol = '\n'};
        const char *w;
        size_t wl;
        if (!text_next_token(&lc, &w, &wl))
            continue;
        if (memchr(s, 0, len))
            return loader_error_at(&l->base, f->path, tc.line, 0, err, ST_EPARSE,
                                   "binary data (a NUL byte) in an ASCII STL file; set "
                                   "forceBinary if the file is binary");
        bool facet = wl == 5 && !memcmp(w, "facet", 5);
        bool vertex = wl == 6 && !memcmp(w, "vertex", 6);
        if (facet || vertex) {
            double v[3];
            const char *x;
            size_t xl;
            if (facet && !(text_next_token(&lc, &x, &xl) && xl == 6 && !memcmp(x, "normal", 6)))
                return loader_error_at(&l->base, f->path, tc.line, 0, err, ST_EPARSE,
                                       "expected 'facet normal nx ny nz'");
            for (int a = 0; a < 3; a++)
                if (!text_next_token(&lc, &x, &xl) || !parse_real(x, xl, &v[a]) ||
                    !isfinite(v[a]))
                    return loader_error_at(&l->base, f->path, tc.line, 0, err, ST_EPARSE,
                                           "expected 3 finite numbers after '%s'",
                                           facet ? "facet normal" : "vertex");
            if (facet) {
                if (in_facet)
                    return loader_error_at(&l->base, f->path, tc.line, 0, err, ST_EPARSE,
                                           "'facet' before the previous facet's 'endfacet'");
                in_facet = true;
                nv = 0;
                ST_TRY(loader_push_point(&l->normals, v, err));
            } else {
                if (nv == 3)
                    return loader_error_at(&l->base, f->path, tc.line, 0, err, ST_EPARSE,
                                           "a facet has more than 3 vertices");
                ST_TRY(merge_point(l, map, v, &t[nv++], err));
            }
        } else if (wl == 8 && !memcmp(w, "endfacet", 8)) {
            if (nv != 3)
                return loader_error_at(&l->base, f->path, tc.line, 0, err, ST_EPARSE,
                                       "a facet needs 3 vertices, found %d", nv);
            ST_TRY(loader_push(l, &l->triangles, ST_T_TRIANGLES, t, true, err));
            nv = 0;
            in_facet = false;
        } else if ((wl == 8 && !memcmp(w, "endsolid", 8)) || (wl == 3 && !memcmp(w, "end", 3))) {
            break;
        }
    }
    if (in_facet)
        return loader_error_at(&l->base, f->path, tc.line, 0, err, ST_EPARSE,
                               "end of file inside a facet (no 'endfacet')");
    return ST_OK;
}

static st_status stl_read(mesh_loader *l, const mesh_file *fp, st_error *err)
{
    stl_loader *o = (stl_loader *)l;
    const mesh_file f = *fp;
    /* ASCII when the first word is "solid", as SOFA; a binary file whose
     * header starts with "solid" is recognised by its exact size and a NUL. */
    size_t i = 0;
    while (i < f.size && (f.data[i] == ' ' || f.data[i] == '\t' || f.data[i] == '\r' ||
                          f.data[i] == '\n'))
        i++;
    bool ascii = !o->force_binary && f.size - i >= 5 && !memcmp(f.data + i, "solid", 5);
    if (ascii && f.size >= (size_t)o->header_size + 4 && memchr(f.data, 0, f.size)) {
        const unsigned char *d = (const unsigned char *)f.data + o->header_size;
        size_t n = (size_t)d[0] | (size_t)d[1] << 8 | (size_t)d[2] << 16 | (size_t)d[3] << 24;
        ascii = f.size != (size_t)o->header_size + 4 + 50 * n;
    }
    pos_map map = {0};
    st_status s = ascii ? stl_ascii(o, &f, &map, err) : stl_binary(o, &f, &map, err);
    st_free(map.slot);
    return s;
}

static st_status stl_init(st_component *self, st_error *err)
{
    return loader_load((mesh_loader *)self, stl_read, err);
}

const st_class mesh_stl_loader_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshSTLLoader",
    .category = "Loader",
    .description = "Loader for the STL file format. STL can be used to represent the surface of "
                   "object using with a triangulation.",
    .instance_size = sizeof(stl_loader),
    .fields = stl_fields,
    .init = stl_init,
    .reinit = stl_init,
    .cleanup = loader_cleanup,
};
