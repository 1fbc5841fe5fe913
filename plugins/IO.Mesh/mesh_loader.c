/* mesh_loader.c - code shared by the IO.Mesh loaders: file lookup relative
 * to the scene, line reading, errors at the file's own line, and SOFA's
 * MeshLoader steps after reading (transformation T R S, sub-elements,
 * normals). */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "mesh_loader.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static char *join_path(const char *dir_of, const char *name)
{
    if (name[0] == '/' || !dir_of || !dir_of[0])
        return st_strdup(name);
    const char *slash = strrchr(dir_of, '/');
    if (!slash)
        return st_strdup(name);
    size_t dl = (size_t)(slash - dir_of);
    size_t nl = strlen(name);
    char *p = st_malloc(dl + 1 + nl + 1);
    if (!p)
        return NULL;
    memcpy(p, dir_of, dl);
    p[dl] = '/';
    memcpy(p + dl + 1, name, nl + 1);
    return p;
}

st_status loader_open(mesh_loader *l, line_reader *r, st_error *err)
{
    memset(r, 0, sizeof *r);
    if (!l->filename || !l->filename[0])
        return st_component_error(&l->base, "filename", err, ST_EINVAL,
                                  "no filename given: set filename to the mesh file (relative to "
                                  "the scene file's directory)");
    st_free(l->path);
    const char *scene = st_node_scene_file(l->base.node);
    l->path = join_path(scene, l->filename);
    if (!l->path)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    r->f = fopen(l->path, "r");
    if (!r->f)
        return st_component_error(&l->base, "filename", err, ST_ENOTFOUND,
                                  "cannot open mesh file '%s' (looked for '%s'%s)", l->filename,
                                  l->path,
                                  l->filename[0] == '/' ? ""
                                                        : ", relative to the scene file's "
                                                          "directory");
    r->path = l->path;
    return ST_OK;
}

bool loader_next_line(line_reader *r)
{
    size_t len = 0;
    int c;
    bool any = false;
    while ((c = fgetc(r->f)) != EOF) {
        any = true;
        if (c == '\n')
            break;
        if (len + 2 > r->cap) {
            size_t cap = r->cap ? 2 * r->cap : 256;
            char *b = st_realloc(r->buf, cap);
            if (!b)
                return false;
            r->buf = b;
            r->cap = cap;
        }
        r->buf[len++] = (char)c;
    }
    if (!any)
        return false;
    if (!r->buf) {
        r->buf = st_malloc(1);
        if (!r->buf)
            return false;
        r->cap = 1;
    }
    if (len && r->buf[len - 1] == '\r')
        len--;
    r->buf[len] = 0;
    r->line++;
    return true;
}

void loader_close(line_reader *r)
{
    if (r->f)
        fclose(r->f);
    st_free(r->buf);
    memset(r, 0, sizeof *r);
}

st_status loader_file_error(mesh_loader *l, const line_reader *r, st_error *err, st_status code,
                            const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return st_component_error(&l->base, "filename", err, code, "%s:%d: %s", r->path, r->line, msg);
}

void loader_clear(mesh_loader *l)
{
    st_array_free(&l->position, ST_T_VEC3S);
    st_array_free(&l->normals, ST_T_VEC3S);
    st_array_free(&l->edges, ST_T_EDGES);
    st_array_free(&l->triangles, ST_T_TRIANGLES);
    st_array_free(&l->quads, ST_T_QUADS);
    st_array_free(&l->tetrahedra, ST_T_TETRAS);
    st_array_free(&l->hexahedra, ST_T_HEXAS);
}

st_status loader_push(mesh_loader *l, st_array *a, st_type t, const unsigned *v, bool flip,
                      st_error *err)
{
    unsigned w = st_type_width(t);
    size_t n = a->n;
    if (n == a->cap)
        ST_TRY(st_array_resize(a, t, n ? 2 * n : 64, err));
    else
        ST_TRY(st_array_resize(a, t, n + 1, err));
    a->n = n + 1;
    unsigned *dst = a->u + (size_t)w * n;
    bool rev = flip && l->flip_normals && (t == ST_T_TRIANGLES || t == ST_T_QUADS);
    for (unsigned k = 0; k < w; k++)
        dst[k] = rev ? v[w - 1 - k] : v[k];
    return ST_OK;
}

void loader_touch_outputs(mesh_loader *l)
{
    static const char *const names[] = {"position",   "normals",   "edges",    "triangles",
                                        "quads",      "tetrahedra", "hexahedra"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const st_field *f = st_component_field(&l->base, names[i]);
        if (f)
            st_component_touch(&l->base, f);
    }
}

/* Rotation matrix of Euler angles in degrees, through SOFA's quaternion
 * (R = Rz Ry Rx). */
static void euler_matrix(const double deg[3], double R[3][3])
{
    double a = deg[0] * M_PI / 180.0 / 2, b = deg[1] * M_PI / 180.0 / 2,
           c = deg[2] * M_PI / 180.0 / 2;
    double sa = sin(a), ca = cos(a), sb = sin(b), cb = cos(b), sc = sin(c), cc = cos(c);
    double x = sa * cb * cc - ca * sb * sc, y = ca * sb * cc + sa * cb * sc,
           z = ca * cb * sc - sa * sb * cc, w = ca * cb * cc + sa * sb * sc;
    R[0][0] = 1 - 2 * (y * y + z * z);
    R[0][1] = 2 * (x * y - z * w);
    R[0][2] = 2 * (z * x + y * w);
    R[1][0] = 2 * (x * y + z * w);
    R[1][1] = 1 - 2 * (z * z + x * x);
    R[1][2] = 2 * (y * z - x * w);
    R[2][0] = 2 * (z * x - y * w);
    R[2][1] = 2 * (y * z + x * w);
    R[2][2] = 1 - 2 * (y * y + x * x);
}

static void sort_key(unsigned *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        unsigned k = v[i], j = i;
        while (j > 0 && v[j - 1] > k) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = k;
    }
}

/* Linear-probing set of sorted keys (sub-element deduplication). */
typedef struct keyset {
    unsigned *keys;
    size_t n, cap;
    unsigned w;
} keyset;

static bool keyset_has(const keyset *s, const unsigned *k)
{
    for (size_t i = 0; i < s->n; i++)
        if (!memcmp(s->keys + s->w * i, k, s->w * sizeof(unsigned)))
            return true;
    return false;
}

static st_status keyset_add(keyset *s, const unsigned *k, bool *fresh, st_error *err)
{
    unsigned key[8];
    memcpy(key, k, s->w * sizeof(unsigned));
    sort_key(key, s->w);
    *fresh = !keyset_has(s, key);
    if (!*fresh)
        return ST_OK;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        unsigned *p = st_realloc(s->keys, cap * s->w * sizeof(unsigned));
        if (!p)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        s->keys = p;
        s->cap = cap;
    }
    memcpy(s->keys + s->w * s->n++, key, s->w * sizeof(unsigned));
    return ST_OK;
}

/* Adds the faces of volumes (or the edges of faces) missing from `to`. */
static st_status add_missing(mesh_loader *l, const st_array *from, unsigned fw, st_array *to,
                             st_type tt, const unsigned (*faces)[4], unsigned nfaces,
                             unsigned tw, st_error *err)
{
    keyset set = {.w = tw};
    st_status s = ST_OK;
    bool fresh;
    for (size_t i = 0; i < to->n && s == ST_OK; i++)
        s = keyset_add(&set, to->u + tw * i, &fresh, err);
    for (size_t i = 0; i < from->n && s == ST_OK; i++) {
        const unsigned *e = from->u + fw * i;
        for (unsigned f = 0; f < nfaces && s == ST_OK; f++) {
            unsigned v[4];
            for (unsigned k = 0; k < tw; k++)
                v[k] = faces ? e[faces[f][k]] : e[(f + 1 + k) % fw];
            s = keyset_add(&set, v, &fresh, err);
            if (s == ST_OK && fresh)
                s = loader_push(l, to, tt, v, false, err);
        }
    }
    st_free(set.keys);
    return s;
}

static const unsigned hexa_quads[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                          {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
static const unsigned tetra_tris[4][4] = {{0, 2, 1, 0}, {0, 1, 3, 0}, {0, 3, 2, 0}, {1, 2, 3, 0}};

static void normalize(double *v)
{
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (n > 1e-300)
        for (int i = 0; i < 3; i++)
            v[i] /= n;
}

static void cross_sub(const double *o, const double *a, const double *b, double *n)
{
    double u[3] = {a[0] - o[0], a[1] - o[1], a[2] - o[2]};
    double w[3] = {b[0] - o[0], b[1] - o[1], b[2] - o[2]};
    n[0] = u[1] * w[2] - u[2] * w[1];
    n[1] = u[2] * w[0] - u[0] * w[2];
    n[2] = u[0] * w[1] - u[1] * w[0];
}

st_status loader_finish(mesh_loader *l, st_error *err)
{
    /* Transformation T R S (scale, then rotation, then translation). */
    double s[3];
    for (int a = 0; a < 3; a++)
        s[a] = l->scale3d[a] * l->scale;
    bool identity = s[0] == 1 && s[1] == 1 && s[2] == 1 && l->rotation[0] == 0 &&
                    l->rotation[1] == 0 && l->rotation[2] == 0 && l->translation[0] == 0 &&
                    l->translation[1] == 0 && l->translation[2] == 0;
    if (!identity) {
        double R[3][3], M[3][3];
        euler_matrix(l->rotation, R);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                M[i][j] = R[i][j] * s[j];
        for (size_t k = 0; k < l->position.n; k++) {
            double *p = l->position.r + 3 * k, q[3];
            for (int i = 0; i < 3; i++)
                q[i] = M[i][0] * p[0] + M[i][1] * p[1] + M[i][2] * p[2] + l->translation[i];
            memcpy(p, q, sizeof q);
        }
    }
    /* Elements. */
    if (l->triangulate) {
        for (size_t i = 0; i < l->quads.n; i++) {
            const unsigned *q = l->quads.u + 4 * i;
            unsigned t1[3] = {q[0], q[1], q[2]}, t2[3] = {q[0], q[2], q[3]};
            ST_TRY(loader_push(l, &l->triangles, ST_T_TRIANGLES, t1, true, err));
            ST_TRY(loader_push(l, &l->triangles, ST_T_TRIANGLES, t2, true, err));
        }
        st_array_free(&l->quads, ST_T_QUADS);
    }
    if (l->create_subelements) {
        if (l->hexahedra.n)
            ST_TRY(add_missing(l, &l->hexahedra, 8, &l->quads, ST_T_QUADS, hexa_quads, 6, 4, err));
        if (l->tetrahedra.n)
            ST_TRY(add_missing(l, &l->tetrahedra, 4, &l->triangles, ST_T_TRIANGLES, tetra_tris, 4,
                               3, err));
        if (l->quads.n)
            ST_TRY(add_missing(l, &l->quads, 4, &l->edges, ST_T_EDGES, NULL, 4, 2, err));
        if (l->triangles.n)
            ST_TRY(add_missing(l, &l->triangles, 3, &l->edges, ST_T_EDGES, NULL, 3, 2, err));
    }
    /* Normals from the geometry. */
    size_t np = l->position.n;
    ST_TRY(st_array_resize(&l->normals, ST_T_VEC3S, np, err));
    memset(l->normals.r, 0, 3 * np * sizeof(double));
    const double *P = l->position.r;
    for (size_t i = 0; i < l->triangles.n; i++) {
        const unsigned *t = l->triangles.u + 3 * i;
        double n[3];
        cross_sub(P + 3 * t[0], P + 3 * t[1], P + 3 * t[2], n);
        normalize(n);
        for (int k = 0; k < 3; k++)
            for (int a = 0; a < 3; a++)
                l->normals.r[3 * t[k] + a] += n[a];
    }
    for (size_t i = 0; i < l->quads.n; i++) {
        const unsigned *q = l->quads.u + 4 * i;
        for (int k = 0; k < 4; k++) {
            double n[3];
            cross_sub(P + 3 * q[k], P + 3 * q[(k + 1) % 4], P + 3 * q[(k + 3) % 4], n);
            normalize(n);
            for (int a = 0; a < 3; a++)
                l->normals.r[3 * q[k] + a] += n[a];
        }
    }
    for (size_t i = 0; i < np; i++)
        normalize(l->normals.r + 3 * i);
    loader_touch_outputs(l);
    return ST_OK;
}
