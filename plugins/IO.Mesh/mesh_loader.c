/* mesh_loader.c - code shared by the IO.Mesh loaders: file lookup relative
 * to the scene, line reading, errors at the file's own line, and SOFA's
 * MeshLoader steps after reading (transformation T R S, sub-elements,
 * normals). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mesh_loader.h"
#include "../../common/regular_file.h"
#include "../shared/tuple_set.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

st_status mesh_file_read(st_component *c, const char *filename, mesh_file *f, st_error *err)
{
    memset(f, 0, sizeof *f);
    if (!filename || !filename[0])
        return st_component_error(c, "filename", err, ST_EINVAL,
                                  "no filename given: set filename to the mesh file");
    ST_TRY(st_component_find_file(c, "filename", filename, f->path, sizeof f->path, err));
    bool not_regular;
    int fd = regular_open(f->path, &not_regular);
    FILE *in = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!in) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        if (not_regular)
            return st_component_error(c, "filename", err, ST_EINVAL,
                                      "'%s' is not a regular file", f->path);
        return st_component_error(c, "filename", err, ST_EIO, "cannot open '%s': %s", f->path,
                                  strerror(e));
    }
    struct stat st;
    if (fstat(fileno(in), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(in);
        return st_component_error(c, "filename", err, ST_EINVAL,
                                  "'%s' is not a regular file", f->path);
    }
    size_t size = (size_t)st.st_size;
    f->data = st_malloc(size + 1);
    if (!f->data) {
        fclose(in);
        return st_error_set(err, ST_ENOMEM, "out of memory reading '%s' (%zu bytes)", f->path,
                            size);
    }
    size_t got = size ? fread(f->data, 1, size, in) : 0;
    fclose(in);
    if (got != size) {
        mesh_file_free(f);
        return st_component_error(c, "filename", err, ST_EIO, "cannot read '%s'", f->path);
    }
    f->data[size] = 0;
    f->size = size;
    return ST_OK;
}

void mesh_file_free(mesh_file *f)
{
    st_free(f->data);
    f->data = NULL;
    f->size = 0;
}

void text_cursor_init(text_cursor *c, const mesh_file *f)
{
    c->path = f->path;
    c->begin = c->p = f->data;
    c->end = f->data + f->size;
    c->line = 0;
    c->pline = 1;
    c->eol = f->size && !memchr(f->data, '\n', f->size) && memchr(f->data, '\r', f->size) ? '\r'
                                                                                      : '\n';
}

bool text_next_line(text_cursor *c, const char **s, size_t *len)
{
    if (c->p >= c->end)
        return false;
    const char *b = c->p, *e = memchr(b, c->eol, (size_t)(c->end - b));
    if (!e)
        e = c->end;
    c->line = c->pline;
    if (e < c->end) {
        c->p = e + 1;
        c->pline++;
    } else {
        c->p = e;
    }
    while (e > b && e[-1] == '\r') /* "\r\n" and "\r\r\n" (SOFA's share/mesh has both) */
        e--;
    *s = b;
    *len = (size_t)(e - b);
    return true;
}

static bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'; }

bool text_next_token(text_cursor *c, const char **s, size_t *len)
{
    const char *p = c->p;
    while (p < c->end && is_space(*p)) {
        if (*p == c->eol)
            c->pline++;
        p++;
    }
    c->p = p;
    if (p >= c->end)
        return false;
    const char *b = p;
    while (p < c->end && !is_space(*p))
        p++;
    c->line = c->pline;
    *s = b;
    *len = (size_t)(p - b);
    c->p = p;
    return true;
}

bool parse_real(const char *s, size_t len, double *out)
{
    char buf[80];
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = 0;
    char *end;
    errno = 0;
    *out = strtod(buf, &end);
    return end == buf + len && errno != ERANGE;
}

bool parse_long(const char *s, size_t len, long long *out)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = 0;
    char *end;
    errno = 0;
    *out = strtoll(buf, &end, 10);
    return end == buf + len && errno != ERANGE;
}

st_status loader_error_at(const st_component *c, const char *path, int line, size_t offset,
                          st_error *err, st_status code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line > 0)
        return st_component_error(c, "filename", err, code, "%s:%d: %s", path, line, msg);
    return st_component_error(c, "filename", err, code, "%s: byte %zu: %s", path, offset, msg);
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
    for (int g = 0; g < 8; g++)
        st_array_free(&l->groups[g], ST_T_STRINGS);
}

st_status loader_add_group(st_array *groups, long long p0, long long nbp, const char *material,
                           const char *name, int material_id, st_error *err)
{
    char num[3][32];
    snprintf(num[0], sizeof num[0], "%d", material_id);
    snprintf(num[1], sizeof num[1], "%lld", p0);
    snprintf(num[2], sizeof num[2], "%lld", nbp);
    const char *item[5] = {name, material, num[0], num[1], num[2]};
    size_t n = groups->n;
    ST_TRY(st_array_resize(groups, ST_T_STRINGS, n + 5, err));
    for (int k = 0; k < 5; k++) {
        groups->s[n + (size_t)k] = st_strdup(item[k]);
        if (!groups->s[n + (size_t)k])
            return st_error_set(err, ST_ENOMEM, "out of memory for a mesh group");
    }
    return ST_OK;
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
    static const char *const names[] = {"position",        "normals",         "edges",
                                        "triangles",       "quads",           "tetrahedra",
                                        "hexahedra",       "edgesGroups",     "trianglesGroups",
                                        "quadsGroups",     "tetrahedraGroups", "hexahedraGroups"};
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

void loader_trs_matrix(const double t[3], const double r_deg[3], const double s[3],
                       double M[3][4])
{
    double R[3][3];
    euler_matrix(r_deg, R);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            M[i][j] = R[i][j] * s[j];
        M[i][3] = t[i];
    }
}

st_status loader_check(mesh_loader *l, st_error *err)
{
    if (l->transformation.n != 16)
        return st_component_error(&l->base, "transformation", err, ST_EINVAL,
                                  "transformation needs 16 values (a 4x4 matrix, row by row), "
                                  "got %zu",
                                  l->transformation.n);
    return ST_OK;
}

/* After filling the outputs with status s: loader_finish, or empty outputs
 * on any failure. */
static st_status finish_or_clear(mesh_loader *l, st_status s, st_error *err)
{
    if (s == ST_OK)
        s = loader_finish(l, err);
    if (s != ST_OK)
        loader_clear(l);
    return s;
}

st_status loader_load(mesh_loader *l, loader_parse_fn parse, st_error *err)
{
    ST_TRY(loader_check(l, err));
    mesh_file f;
    ST_TRY(mesh_file_read(&l->base, l->filename, &f, err));
    /* an empty file is no mesh: said, not loaded as one without points */
    size_t blank = 0;
    while (blank < f.size && strchr(" \t\r\n", f.data[blank]))
        blank++;
    if (blank == f.size) {
        st_status e = st_component_error(&l->base, "filename", err, ST_EPARSE,
                                         "'%s' is empty (%zu bytes%s): the mesh is empty", f.path,
                                         f.size, f.size ? ", all blank" : "");
        mesh_file_free(&f);
        return e;
    }
    loader_clear(l);
    st_status s = parse(l, &f, err);
    if (s == ST_OK && l->position.n == 0)
        st_component_warn_field(&l->base, "filename", "'%s' holds no points: the mesh is empty",
                                f.path);
    mesh_file_free(&f);
    return finish_or_clear(l, s, err);
}

st_status loader_generate(mesh_loader *l, loader_build_fn build, st_error *err)
{
    ST_TRY(loader_check(l, err));
    loader_clear(l);
    return finish_or_clear(l, build(l, err), err);
}

st_status loader_push_point(st_array *a, const double p[3], st_error *err)
{
    size_t n = a->n;
    ST_TRY(st_array_resize(a, ST_T_VEC3S, n == a->cap ? (n ? 2 * n : 64) : n + 1, err));
    a->n = n + 1;
    memcpy(a->r + 3 * n, p, 3 * sizeof(double));
    return ST_OK;
}

void loader_cleanup(st_component *self)
{
    mesh_loader *l = (mesh_loader *)self;
    st_free(l->path);
    l->path = NULL;
}

/* SOFA's updatePoints with onlyAttachedPoints: drops the positions no
 * element uses and renumbers the elements. */
static st_status keep_attached_points(mesh_loader *l, st_error *err)
{
    size_t np = l->position.n;
    st_array *lists[] = {&l->edges, &l->triangles, &l->quads, &l->tetrahedra, &l->hexahedra};
    static const unsigned widths[] = {2, 3, 4, 4, 8};
    unsigned *old2new = st_malloc((np ? np : 1) * sizeof *old2new);
    if (!old2new)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t i = 0; i < np; i++)
        old2new[i] = UINT_MAX;
    for (size_t k = 0; k < 5; k++)
        for (size_t i = 0; i < lists[k]->n * widths[k]; i++)
            if (lists[k]->u[i] < np)
                old2new[lists[k]->u[i]] = 0;
    unsigned p = 0;
    for (size_t i = 0; i < np; i++)
        if (old2new[i] == 0) {
            old2new[i] = p;
            memmove(l->position.r + 3 * p, l->position.r + 3 * i, 3 * sizeof(double));
            p++;
        }
    l->position.n = p;
    for (size_t k = 0; k < 5; k++)
        for (size_t i = 0; i < lists[k]->n * widths[k]; i++)
            if (lists[k]->u[i] < np)
                lists[k]->u[i] = old2new[lists[k]->u[i]];
    st_free(old2new);
    return ST_OK;
}

/* Inserts k's values, sorted, into the set of unordered keys s. */
static st_status add_unordered(tuple_set *s, const unsigned *k, bool *fresh, st_error *err)
{
    unsigned key[8];
    memcpy(key, k, s->width * sizeof(unsigned));
    tuple_sort(key, s->width);
    return tuple_set_insert(s, key, fresh, err);
}

/* Adds the faces of volumes (or the edges of faces) missing from `to`. */
static st_status add_missing(mesh_loader *l, const st_array *from, unsigned fw, st_array *to,
                             st_type tt, const unsigned (*faces)[4], unsigned nfaces,
                             unsigned tw, st_error *err)
{
    tuple_set set = {.width = tw};
    st_status s = ST_OK;
    bool fresh;
    for (size_t i = 0; i < to->n && s == ST_OK; i++)
        s = add_unordered(&set, to->u + tw * i, &fresh, err);
    for (size_t i = 0; i < from->n && s == ST_OK; i++) {
        const unsigned *e = from->u + fw * i;
        for (unsigned f = 0; f < nfaces && s == ST_OK; f++) {
            unsigned v[4];
            for (unsigned k = 0; k < tw; k++)
                v[k] = faces ? e[faces[f][k]] : e[(f + 1 + k) % fw];
            s = add_unordered(&set, v, &fresh, err);
            if (s == ST_OK && fresh)
                s = loader_push(l, to, tt, v, false, err);
        }
    }
    tuple_set_free(&set);
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
    /* Transformation: the matrix when it is not the identity, else T R S. */
    double s[3], M[3][4];
    for (int a = 0; a < 3; a++)
        s[a] = l->scale3d[a] * l->scale;
    loader_trs_matrix(l->translation, l->rotation, s, M);
    const double *X = l->transformation.r;
    bool given = false;
    for (int i = 0; i < 16; i++)
        given |= X[i] != (i % 5 == 0 ? 1.0 : 0.0);
    if (given) {
        if (X[12] != 0 || X[13] != 0 || X[14] != 0 || X[15] != 1)
            st_component_warn(&l->base, "transformation ignored: its last row is not 0 0 0 1 "
                                        "(not an affine transformation)");
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++)
                M[i][j] = X[12] != 0 || X[13] != 0 || X[14] != 0 || X[15] != 1
                              ? (i == j ? 1.0 : 0.0)
                              : X[4 * i + j];
    }
    bool identity = true;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            identity &= M[i][j] == (i == j ? 1.0 : 0.0);
    for (size_t k = 0; !identity && k < l->position.n; k++) {
        double *p = l->position.r + 3 * k, q[3];
        for (int i = 0; i < 3; i++)
            q[i] = M[i][0] * p[0] + M[i][1] * p[1] + M[i][2] * p[2] + M[i][3];
        memcpy(p, q, sizeof q);
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
    if (l->only_attached_points)
        ST_TRY(keep_attached_points(l, err));
    /* Normals from the geometry, unless the file gave one per position. As
     * SOFA, a list of another size is resized (keeping its first entries)
     * and the geometric normals are added to it. */
    size_t np = l->position.n;
    if (l->normals.n == np) {
        loader_touch_outputs(l);
        return ST_OK;
    }
    ST_TRY(st_array_resize(&l->normals, ST_T_VEC3S, np, err));
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
