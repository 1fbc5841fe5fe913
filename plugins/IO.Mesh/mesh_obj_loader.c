/* mesh_obj_loader.c - MeshOBJLoader: Wavefront OBJ files (v, vn, vt, f, l).
 * Faces of 2 vertices are edges (sorted), of 4 quads (unless triangulate),
 * others are split in fans of triangles, as SOFA's loader does. Without
 * handleSeams each position keeps one texture coordinate (SOFA's choice
 * rule) and the sum of its normals; with handleSeams a position used with
 * several (texcoord, normal) pairs is duplicated once per pair, in SOFA's
 * order (by position, then by texcoord index, then by normal index), and
 * vertPosIdx / vertNormIdx map the new vertices back. The face groups
 * ("g", "usemtl") fill edgesGroups, trianglesGroups and quadsGroups as
 * SOFA's (obj_groups). Malformed lines are errors naming the file's own
 * line. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_loader.h"
#include "../shared/obj_index.h"

typedef struct obj_loader {
    mesh_loader m;
    bool handle_seams, load_material, compute_material_faces;
    char *default_material;
    st_array texcoords;      /* 2 reals per output vertex */
    st_array texcoords_def;  /* the file's vt, 2 reals each */
    st_array normals_def;    /* the file's vn */
    st_array positions_def;  /* SOFA declares it and never fills it */
    st_array vert_pos_idx, vert_norm_idx;
    st_array face_list, tex_index, norm_index, materials; /* no settee type: empty */
    size_t ignored_refs;     /* texture coordinate and normal indices out of range */
} obj_loader;

#define OBJ_IGNORED_OUT(m, key, help)                                                             \
    ST_FIELD_EX(obj_loader, m, key, ST_T_UINTS, st_array, NULL, help,                             \
                ST_F_OUTPUT | ST_F_IGNORED, NULL, 0.0, 0.0)

static const st_field obj_fields[] = {
    LOADER_FIELDS,
    LOADER_SUBELEMENTS("false"),
    ST_BOOL(obj_loader, handle_seams, "handleSeams", "false",
            "Preserve UV and normal seams information (vertices with multiple UV and/or "
            "normals)"),
    ST_IGNORED(obj_loader, load_material, "loadMaterial", ST_T_BOOL, bool, "true",
               "Load the related MTL file or use a default one? (materials are not used "
               "headless)"),
    ST_FIELD_EX(obj_loader, default_material, "defaultMaterial", ST_T_STRING, char *, NULL,
                "Default material (not used headless)", ST_F_IGNORED, "material", 0.0, 0.0),
    ST_IGNORED(obj_loader, compute_material_faces, "computeMaterialFaces", ST_T_BOOL, bool,
               "false",
               "True to activate export of Data instances containing list of face indices for "
               "each material"),
    ST_OUTPUT(obj_loader, texcoords, "texcoords", ST_T_REALS, st_array,
              "Texture coordinates of all faces, to be used as the parent data of a VisualModel "
              "texcoords data (two reals per vertex)"),
    ST_OUTPUT(obj_loader, texcoords_def, "texcoordsDefinition", ST_T_REALS, st_array,
              "Texture coordinates definition (two reals each)"),
    ST_OUTPUT(obj_loader, normals_def, "normalsDefinition", ST_T_VEC3S, st_array,
              "Normals definition"),
    ST_OUTPUT(obj_loader, positions_def, "positionsDefinition", ST_T_VEC3S, st_array,
              "Vertex positions definition (empty, as in SOFA)"),
    ST_OUTPUT(obj_loader, vert_pos_idx, "vertPosIdx", ST_T_UINTS, st_array,
              "If vertices have multiple normals/texcoords stores vertices position indices"),
    ST_OUTPUT(obj_loader, vert_norm_idx, "vertNormIdx", ST_T_UINTS, st_array,
              "If vertices have multiple normals/texcoords stores vertices normal indices"),
    OBJ_IGNORED_OUT(face_list, "faceList", "List of face definitions (not filled)"),
    OBJ_IGNORED_OUT(tex_index, "texcoordsIndex",
                    "Indices of textures coordinates used in faces definition (not filled)"),
    OBJ_IGNORED_OUT(norm_index, "normalsIndex",
                    "List of normals of elements of the mesh loaded (not filled)"),
    OBJ_IGNORED_OUT(materials, "materials", "List of materials (not filled)"),
    ST_FIELD_END};

/* One face corner: position, texcoord and normal indices (-1: none). */
typedef struct corner {
    int v, t, n;
} corner;

typedef struct obj_faces {
    corner *c;        /* every corner of every face */
    size_t nc, cap;
    size_t *start;    /* face f spans c[start[f] .. start[f + 1]) */
    size_t nf, fcap;
} obj_faces;

static st_status grow(void **p, size_t *cap, size_t need, size_t size, st_error *err)
{
    if (need <= *cap)
        return ST_OK;
    size_t cap2 = *cap ? 2 * *cap : 64;
    while (cap2 < need)
        cap2 *= 2;
    void *q = st_realloc(*p, cap2 * size);
    if (!q)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    *p = q;
    *cap = cap2;
    return ST_OK;
}

static st_status push_reals(st_array *a, st_type t, const double *v, st_error *err)
{
    unsigned w = t == ST_T_VEC3S ? 3 : 1;
    size_t n = a->n, k = t == ST_T_VEC3S ? 1 : 2;
    ST_TRY(st_array_resize(a, t, n + k > a->cap ? 2 * (n + k) : n + k, err));
    a->n = n + k;
    memcpy(a->r + (size_t)w * n, v, (size_t)w * k * sizeof(double));
    return ST_OK;
}

/* Parses up to n reals after the keyword; returns how many were read or -1
 * on a token that is not a number. */
static int parse_reals(const char *s, size_t len, double *out, int n)
{
    int k = 0;
    size_t i = 0;
    while (k < n) {
        while (i < len && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i >= len)
            break;
        size_t b = i;
        while (i < len && s[i] != ' ' && s[i] != '\t')
            i++;
        if (!parse_real(s + b, i - b, &out[k]))
            return -1;
        k++;
    }
    return k;
}

/* Resolves a 1-based (or negative, relative) OBJ index against count. */
static bool obj_index(const char *s, size_t len, size_t count, int *out)
{
    long long v;
    size_t idx;
    if (!parse_long(s, len, &v) || !obj_resolve_index(v, count, &idx) || idx > INT_MAX)
        return false;
    *out = (int)idx;
    return true;
}

/* Reads one face line's corners "v", "v/t", "v/t/n" or "v//n". */
static st_status obj_face(obj_loader *o, text_cursor *tc, const char *s, size_t len,
                          obj_faces *F, st_error *err)
{
    size_t ntex = o->texcoords_def.n / 2, nnor = o->normals_def.n, npos = o->m.position.n;
    size_t i = 0, first = F->nc;
    while (i < len) {
        while (i < len && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i >= len)
            break;
        size_t b = i;
        while (i < len && s[i] != ' ' && s[i] != '\t')
            i++;
        int idx[3] = {-1, -1, -1};
        size_t counts[3] = {npos, ntex, nnor};
        static const char *const what[3] = {"vertex", "texture coordinate", "normal"};
        size_t p = b;
        for (int k = 0; k < 3 && p <= i; k++) {
            size_t q = p;
            while (q < i && s[q] != '/')
                q++;
            if (q > p && !obj_index(s + p, q - p, counts[k], &idx[k])) {
                long long v = 0;
                if (!parse_long(s + p, q - p, &v))
                    return loader_error_at(&o->m.base, tc->path, tc->line, 0, err, ST_EPARSE,
                                           "'%.*s' is not a vertex reference (v, v/vt, v/vt/vn "
                                           "or v//vn)",
                                           (int)(i - b), s + b);
                if (k == 0)
                    return loader_error_at(&o->m.base, tc->path, tc->line, 0, err, ST_EPARSE,
                                           "%s index %lld is out of range (%zu defined so far; "
                                           "indices start at 1)",
                                           what[k], v, counts[k]);
                /* SOFA keeps a texture coordinate or normal index it cannot
                 * use and leaves it out of the outputs: the corner has none. */
                if (!o->ignored_refs++)
                    st_component_warn(&o->m.base,
                                      "%s:%d: %s index %lld is out of range (%zu defined so "
                                      "far): ignored, as SOFA does (the corner gets none; "
                                      "said once per file)",
                                      tc->path, tc->line, what[k], v, counts[k]);
                idx[k] = -1;
            }
            if (k == 0 && q == p)
                return loader_error_at(&o->m.base, tc->path, tc->line, 0, err, ST_EPARSE,
                                       "'%.*s' is not a vertex reference (v, v/vt, v/vt/vn or "
                                       "v//vn)",
                                       (int)(i - b), s + b);
            p = q + 1;
            if (q >= i)
                break;
        }
        ST_TRY(grow((void **)&F->c, &F->cap, F->nc + 1, sizeof *F->c, err));
        F->c[F->nc++] = (corner){idx[0], idx[1], idx[2]};
    }
    if (F->nc - first < 2)
        return loader_error_at(&o->m.base, tc->path, tc->line, 0, err, ST_EPARSE,
                               "a face or line needs at least 2 vertices, got %zu",
                               F->nc - first);
    ST_TRY(grow((void **)&F->start, &F->fcap, F->nf + 2, sizeof *F->start, err));
    F->start[F->nf++] = first;
    F->start[F->nf] = F->nc;
    return ST_OK;
}

/* Adds one face (vertex indices already final) as SOFA does. */
static st_status obj_add_face(mesh_loader *l, const unsigned *v, size_t nn, st_error *err)
{
    if (nn == 2) {
        unsigned e[2] = {v[0] < v[1] ? v[0] : v[1], v[0] < v[1] ? v[1] : v[0]};
        return loader_push(l, &l->edges, ST_T_EDGES, e, false, err);
    }
    if (nn == 4 && !l->triangulate)
        return loader_push(l, &l->quads, ST_T_QUADS, v, true, err);
    for (size_t j = 2; j < nn; j++) {
        unsigned t[3] = {v[0], v[j - 1], v[j]};
        ST_TRY(loader_push(l, &l->triangles, ST_T_TRIANGLES, t, true, err));
    }
    return ST_OK;
}

static void normalize3(double *n)
{
    double s = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    if (s > 1e-300) {
        s = 1.0 / sqrt(s);
        n[0] *= s;
        n[1] *= s;
        n[2] *= s;
    }
}

/* Default mode: one vertex per position. */
static st_status obj_build_plain(obj_loader *o, const obj_faces *F, st_error *err)
{
    mesh_loader *l = &o->m;
    size_t np = l->position.n;
    unsigned *v = NULL;
    size_t vcap = 0;
    for (size_t f = 0; f < F->nf; f++) {
        size_t nn = F->start[f + 1] - F->start[f];
        ST_TRY(grow((void **)&v, &vcap, nn, sizeof *v, err));
        for (size_t k = 0; k < nn; k++)
            v[k] = (unsigned)F->c[F->start[f] + k].v;
        st_status s = obj_add_face(l, v, nn, err);
        if (s != ST_OK) {
            st_free(v);
            return s;
        }
    }
    st_free(v);
    if (o->texcoords_def.n)
        ST_TRY(st_array_resize(&o->texcoords, ST_T_REALS, 2 * np, err));
    if (o->normals_def.n)
        ST_TRY(st_array_resize(&l->normals, ST_T_VEC3S, np, err));
    for (size_t i = 0; i < F->nc; i++) {
        const corner *c = &F->c[i];
        if (c->t >= 0 && o->texcoords_def.n) {
            double *cur = o->texcoords.r + 2 * c->v;
            const double *tx = o->texcoords_def.r + 2 * c->t;
            /* SOFA keeps the texcoord with the largest v - u. */
            if ((cur[0] == 0 && cur[1] == 0) || (-(tx[0] - cur[0]) + (tx[1] - cur[1])) > 0) {
                cur[0] = tx[0];
                cur[1] = tx[1];
            }
        }
        if (c->n >= 0 && o->normals_def.n)
            for (int a = 0; a < 3; a++)
                l->normals.r[3 * c->v + a] += o->normals_def.r[3 * c->n + a];
    }
    for (size_t i = 0; o->normals_def.n && i < np; i++)
        normalize3(l->normals.r + 3 * i);
    return ST_OK;
}

static int corner_cmp(const void *a, const void *b)
{
    const corner *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->n < y->n ? -1 : x->n > y->n;
}

/* handleSeams: one vertex per distinct (position, texcoord, normal). */
static st_status obj_build_seams(obj_loader *o, const obj_faces *F, st_error *err)
{
    mesh_loader *l = &o->m;
    size_t nin = l->position.n;
    corner *u = st_malloc((F->nc ? F->nc : 1) * sizeof *u);
    unsigned *v = NULL;
    size_t vcap = 0;
    double *pos = NULL;
    st_status s = ST_OK;
    if (!u)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    memcpy(u, F->c, F->nc * sizeof *u);
    qsort(u, F->nc, sizeof *u, corner_cmp);
    size_t nout = 0;
    for (size_t i = 0; i < F->nc; i++)
        if (i == 0 || corner_cmp(&u[i - 1], &u[i]))
            u[nout++] = u[i];
    bool vsplit = nin != nout;
    pos = st_malloc((nout ? nout : 1) * 3 * sizeof *pos);
    if (!pos) {
        st_free(u);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    s = st_array_resize(&l->normals, ST_T_VEC3S, nout, err);
    if (s == ST_OK)
        s = st_array_resize(&o->texcoords, ST_T_REALS, 2 * nout, err);
    if (s == ST_OK && vsplit)
        s = st_array_resize(&o->vert_pos_idx, ST_T_UINTS, nout, err);
    if (s == ST_OK && vsplit)
        s = st_array_resize(&o->vert_norm_idx, ST_T_UINTS, nout, err);
    size_t nnorm_out = 0, vstart = 0;
    for (size_t j = 0; s == ST_OK && j < nout; j++) {
        const corner *c = &u[j];
        if (j == 0 || u[j - 1].v != c->v)
            vstart = j;
        if (c->n >= 0)
            memcpy(l->normals.r + 3 * j, o->normals_def.r + 3 * c->n, 3 * sizeof(double));
        if (c->t >= 0)
            memcpy(o->texcoords.r + 2 * j, o->texcoords_def.r + 2 * c->t, 2 * sizeof(double));
        memcpy(pos + 3 * j, l->position.r + 3 * c->v, 3 * sizeof(double));
        if (vsplit) {
            o->vert_pos_idx.u[j] = (unsigned)c->v;
            /* Normal numbering restarts per position (SOFA's normMap). */
            size_t k = vstart;
            while (k < j && u[k].n != c->n)
                k++;
            o->vert_norm_idx.u[j] = k < j ? o->vert_norm_idx.u[k] : (unsigned)nnorm_out++;
        }
    }
    if (s == ST_OK) {
        s = st_array_resize(&l->position, ST_T_VEC3S, nout, err);
        if (s == ST_OK)
            memcpy(l->position.r, pos, 3 * nout * sizeof *pos);
    }
    if (s == ST_OK && vsplit && nnorm_out == nout)
        st_array_free(&o->vert_norm_idx, ST_T_UINTS);
    for (size_t f = 0; s == ST_OK && f < F->nf; f++) {
        size_t nn = F->start[f + 1] - F->start[f];
        s = grow((void **)&v, &vcap, nn, sizeof *v, err);
        for (size_t k = 0; s == ST_OK && k < nn; k++) {
            const corner *key = &F->c[F->start[f] + k];
            const corner *hit = bsearch(key, u, nout, sizeof *u, corner_cmp);
            v[k] = (unsigned)(hit - u);
        }
        if (s == ST_OK)
            s = obj_add_face(l, v, nn, err);
    }
    for (size_t j = 0; s == ST_OK && j < nout; j++)
        normalize3(l->normals.r + 3 * j);
    st_free(v);
    st_free(pos);
    st_free(u);
    return s;
}

static void obj_clear(obj_loader *o)
{
    loader_clear(&o->m);
    st_array_free(&o->texcoords, ST_T_REALS);
    st_array_free(&o->texcoords_def, ST_T_REALS);
    st_array_free(&o->normals_def, ST_T_VEC3S);
    st_array_free(&o->vert_pos_idx, ST_T_UINTS);
    st_array_free(&o->vert_norm_idx, ST_T_UINTS);
}

/* SOFA's face groups: a group closes at each "g" and "usemtl" line and at
 * the end of the file, one PrimitiveGroup per face kind (edges, triangles,
 * quads: groups[0..2]) that got faces since it opened, counted in faces
 * ("f"/"l" lines: a polygon split into triangles counts once). */
typedef struct obj_groups {
    char name[1024];     /* the current "g" names, joined by spaces ("Default_Group") */
    char material[256];  /* the current "usemtl" name */
    long long nb[3], f0[3];
} obj_groups;

static st_status obj_close_groups(mesh_loader *l, obj_groups *g, st_error *err)
{
    for (int ft = 0; ft < 3; ft++)
        if (g->nb[ft] > g->f0[ft]) {
            /* materialId: SOFA's index in the MTL materials, which settee
             * does not read (loadMaterial): -1 */
            ST_TRY(loader_add_group(&l->groups[ft], g->f0[ft], g->nb[ft] - g->f0[ft],
                                    g->material, g->name, -1, err));
            g->f0[ft] = g->nb[ft];
        }
    return ST_OK;
}

/* The rest of a "g" or "usemtl" line into out: its tokens joined by one
 * space ("usemtl": the first token only). */
static void obj_names(const char *s, size_t len, bool first_only, char *out, size_t size)
{
    size_t o = 0, i = 0;
    out[0] = 0;
    while (i < len) {
        while (i < len && (s[i] == ' ' || s[i] == '\t'))
            i++;
        size_t b = i;
        while (i < len && s[i] != ' ' && s[i] != '\t')
            i++;
        if (i == b)
            break;
        if (o && o + 1 < size)
            out[o++] = ' ';
        for (size_t k = b; k < i && o + 1 < size; k++)
            out[o++] = s[k];
        out[o] = 0;
        if (first_only)
            break;
    }
}

static st_status obj_parse(obj_loader *o, const mesh_file *mf, obj_faces *F, st_error *err)
{
    obj_groups grp = {.name = "Default_Group"};
    mesh_loader *l = &o->m;
    text_cursor tc;
    text_cursor_init(&tc, mf);
    const char *line;
    size_t len;
    double last_v[3] = {0, 0, 0};
    bool warned_short_v = false;
    while (text_next_line(&tc, &line, &len)) {
        size_t i = 0;
        while (i < len && (line[i] == ' ' || line[i] == '\t'))
            i++;
        if (i == len || line[i] == '#')
            continue;
        if (memchr(line, 0, len)) {
            /* A line of NUL bytes only (some of SOFA's own OBJ files end with
             * one): SOFA's reader skips it as an unknown line; so do we. */
            size_t k = i;
            while (k < len && (line[k] == 0 || line[k] == ' ' || line[k] == '\t'))
                k++;
            if (k == len) {
                st_component_warn(&l->base, "%s:%d: a line of NUL bytes, skipped", tc.path,
                                  tc.line);
                continue;
            }
            return loader_error_at(&l->base, tc.path, tc.line, 0, err, ST_EPARSE,
                                   "binary data (a NUL byte) in an OBJ file");
        }
        const char *kw = line + i;
        while (i < len && line[i] != ' ' && line[i] != '\t')
            i++;
        size_t kl = (size_t)(line + i - kw);
        const char *rest = line + i;
        size_t rl = len - i;
        if (kl == 1 && kw[0] == 'v') {
            /* SOFA reads x y z into one vector kept across lines: a line
             * with fewer coordinates (the one-value "v t" lines of SOFA's
             * scalar fields, raptorTemperature.obj) keeps the missing ones
             * from the previous vertex, 0 for the first. */
            double v[3] = {last_v[0], last_v[1], last_v[2]};
            int k = parse_reals(rest, rl, v, 3);
            if (k < 1)
                return loader_error_at(&l->base, tc.path, tc.line, 0, err, ST_EPARSE,
                                       "a vertex line 'v' needs 3 coordinates (x y z)%s",
                                       k < 0 ? ", found a token that is not a number" : "");
            if (k < 3 && !warned_short_v) {
                st_component_warn(&l->base,
                                  "%s:%d: a vertex line 'v' with %d coordinate%s: the missing "
                                  "ones keep the previous vertex's values, as SOFA reads them",
                                  tc.path, tc.line, k, k == 1 ? "" : "s");
                warned_short_v = true;
            }
            memcpy(last_v, v, sizeof last_v);
            if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]))
                return loader_error_at(&l->base, tc.path, tc.line, 0, err, ST_EPARSE,
                                       "a vertex coordinate is not a finite number");
            ST_TRY(loader_push_point(&l->position, v, err));
        } else if (kl == 2 && kw[0] == 'v' && (kw[1] == 'n' || kw[1] == 't')) {
            double v[3];
            int need = kw[1] == 'n' ? 3 : 2;
            if (parse_reals(rest, rl, v, need) < need)
                return loader_error_at(&l->base, tc.path, tc.line, 0, err, ST_EPARSE,
                                       "'%.2s' needs %d numbers", kw, need);
            if (kw[1] == 'n')
                ST_TRY(push_reals(&o->normals_def, ST_T_VEC3S, v, err));
            else
                ST_TRY(push_reals(&o->texcoords_def, ST_T_REALS, v, err));
        } else if (kl == 1 && (kw[0] == 'f' || kw[0] == 'l')) {
            ST_TRY(obj_face(o, &tc, rest, rl, F, err));
            size_t nn = F->start[F->nf] - F->start[F->nf - 1];
            grp.nb[nn == 2 ? 0 : nn == 4 && !l->triangulate ? 2 : 1]++;
        } else if ((kl == 1 && kw[0] == 'g') || (kl == 6 && !memcmp(kw, "usemtl", 6))) {
            ST_TRY(obj_close_groups(l, &grp, err));
            if (kl == 1)
                obj_names(rest, rl, false, grp.name, sizeof grp.name);
            else
                obj_names(rest, rl, true, grp.material, sizeof grp.material);
        }
        /* mtllib, o, s and others: ignored headless. */
    }
    return obj_close_groups(l, &grp, err);
}

static st_status obj_read(mesh_loader *l, const mesh_file *mf, st_error *err)
{
    obj_loader *o = (obj_loader *)l;
    obj_clear(o);
    obj_faces F = {0};
    o->ignored_refs = 0;
    st_status s = obj_parse(o, mf, &F, err);
    if (s == ST_OK)
        s = o->handle_seams ? obj_build_seams(o, &F, err) : obj_build_plain(o, &F, err);
    st_free(F.c);
    st_free(F.start);
    return s;
}

static void obj_release(mesh_loader *l)
{
    obj_clear((obj_loader *)l);
}

const mesh_format mesh_obj_format = {sizeof(obj_loader), obj_read, obj_release};

static st_status obj_init(st_component *self, st_error *err)
{
    obj_loader *o = (obj_loader *)self;
    st_status s = loader_load(&o->m, obj_read, err);
    if (s != ST_OK) {
        obj_clear(o);
        return s;
    }
    static const char *const outs[] = {"texcoords", "texcoordsDefinition", "normalsDefinition",
                                       "vertPosIdx", "vertNormIdx"};
    for (size_t i = 0; i < sizeof outs / sizeof *outs; i++)
        st_component_touch(self, st_component_field(self, outs[i]));
    return ST_OK;
}

static const char *const obj_aliases[] = {"MeshObjLoader", NULL};

const st_class mesh_obj_loader_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshOBJLoader",
    .category = "Loader",
    .description = "Specific mesh loader for OBJ file format.",
    .aliases = obj_aliases,
    .instance_size = sizeof(obj_loader),
    .fields = obj_fields,
    .init = obj_init,
    .reinit = obj_init,
    .cleanup = loader_cleanup,
};
