/* mesh_trian_loader.c - MeshTrianLoader: SOFA's "trian" triangulations.
 * trian: the vertex count, x y z per vertex, the triangle count, then per
 * triangle its three vertices and its three neighbours (-1 on the border;
 * neighbour k lies across the edge opposite vertex k). Outputs besides the
 * mesh: neighborTable (the neighbours, 3 per triangle, as reals: settee
 * has no signed index list), edgesOnBorder (the edges opposite a -1, in
 * SOFA's order (v1 v2), (v2 v0), (v0 v1)) and trianglesOnBorderList (each
 * border triangle once). trian2 (trian2: true): 13 lines of material
 * skipped, then "WORD count" and x y z per vertex, "WORD count" and a normal
 * per line (the normals output), "WORD count" and three vertices per
 * triangle. A token that does not read as a number, a file that ends early
 * or an index beyond the vertices is an error at the file's line (SOFA
 * reads on with zeros). */
#include <string.h>

#include "mesh_loader.h"

typedef struct trian_loader {
    mesh_loader m;
    bool trian2;
    st_array neighbors;     /* 3 reals per triangle */
    st_array border_edges;  /* edges */
    st_array border_tris;   /* indices */
} trian_loader;

static const st_field trian_fields[] = {
    LOADER_FIELDS,
    LOADER_SUBELEMENTS("false"),
    ST_BOOL(trian_loader, trian2, "trian2", "false", "Set to true if the mesh is a trian2 format."),
    ST_OUTPUT(trian_loader, neighbors, "neighborTable", ST_T_REALS, st_array,
              "Table of neighborhood triangle indices for each triangle (3 per triangle, -1 on "
              "the border)."),
    ST_OUTPUT(trian_loader, border_edges, "edgesOnBorder", ST_T_EDGES, st_array,
              "List of edges which are on the border of the mesh loaded."),
    ST_OUTPUT(trian_loader, border_tris, "trianglesOnBorderList", ST_T_UINTS, st_array,
              "List of triangle indices which are on the border of the mesh loaded."),
    ST_FIELD_END};

static st_status next_real(const st_component *self, const char *path, text_cursor *c,
                           const char *what, double *v, st_error *err)
{
    const char *s;
    size_t len;
    if (!text_next_token(c, &s, &len))
        return loader_error_at(self, path, c->line, 0, err, ST_EPARSE,
                               "the file ends before %s", what);
    if (!parse_real(s, len, v))
        return loader_error_at(self, path, c->line, 0, err, ST_EPARSE,
                               "%s: '%.*s' is not a number", what, (int)len, s);
    return ST_OK;
}

static st_status next_count(const st_component *self, const char *path, text_cursor *c,
                            const char *what, size_t *n, st_error *err)
{
    double v;
    ST_TRY(next_real(self, path, c, what, &v, err));
    if (v < 0 || v != (double)(size_t)v)
        return loader_error_at(self, path, c->line, 0, err, ST_EPARSE,
                               "%s: %g is not a count", what, v);
    *n = (size_t)v;
    return ST_OK;
}

static st_status read_index(const st_component *self, const char *path, text_cursor *c,
                            size_t np, unsigned *out, st_error *err)
{
    double v;
    ST_TRY(next_real(self, path, c, "a triangle", &v, err));
    if (v < 0 || v >= (double)np || v != (double)(unsigned)v)
        return loader_error_at(self, path, c->line, 0, err, ST_EPARSE,
                               "triangle vertex %g is not a vertex (0..%zu)", v,
                               np ? np - 1 : 0);
    *out = (unsigned)v;
    return ST_OK;
}

static st_status read_points(mesh_loader *l, const char *path, text_cursor *c, st_array *dst,
                             size_t n, st_error *err)
{
    for (size_t i = 0; i < n; i++) {
        double p[3];
        for (int k = 0; k < 3; k++)
            ST_TRY(next_real(&l->base, path, c, "a vertex", &p[k], err));
        ST_TRY(loader_push_point(dst, p, err));
    }
    return ST_OK;
}

static st_status trian_parse(mesh_loader *l, const mesh_file *f, st_error *err)
{
    trian_loader *t = (trian_loader *)l;
    st_component *self = &l->base;
    text_cursor c;
    text_cursor_init(&c, f);
    size_t nv, nt;
    const char *s;
    size_t len;
    if (t->trian2) {
        for (int i = 0; i < 13; i++)
            if (!text_next_line(&c, &s, &len))
                return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                                       "trian2: the file ends in its 13 header lines");
        size_t nn;
        if (!text_next_token(&c, &s, &len))
            return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                                   "trian2: expected the vertex count");
        ST_TRY(next_count(self, f->path, &c, "the vertex count", &nv, err));
        ST_TRY(read_points(l, f->path, &c, &l->position, nv, err));
        if (!text_next_token(&c, &s, &len))
            return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                                   "trian2: expected the normal count");
        ST_TRY(next_count(self, f->path, &c, "the normal count", &nn, err));
        ST_TRY(read_points(l, f->path, &c, &l->normals, nn, err));
        if (!text_next_token(&c, &s, &len))
            return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                                   "trian2: expected the triangle count");
        ST_TRY(next_count(self, f->path, &c, "the triangle count", &nt, err));
        for (size_t i = 0; i < nt; i++) {
            unsigned v[3];
            for (int k = 0; k < 3; k++)
                ST_TRY(read_index(self, f->path, &c, nv, &v[k], err));
            ST_TRY(loader_push(l, &l->triangles, ST_T_TRIANGLES, v, true, err));
        }
        return ST_OK;
    }
    ST_TRY(next_count(self, f->path, &c, "the vertex count", &nv, err));
    ST_TRY(read_points(l, f->path, &c, &l->position, nv, err));
    ST_TRY(next_count(self, f->path, &c, "the triangle count", &nt, err));
    for (size_t i = 0; i < nt; i++) {
        unsigned v[3];
        double ngh[3];
        for (int k = 0; k < 3; k++)
            ST_TRY(read_index(self, f->path, &c, nv, &v[k], err));
        for (int k = 0; k < 3; k++)
            ST_TRY(next_real(self, f->path, &c, "a neighbour", &ngh[k], err));
        ST_TRY(loader_push(l, &l->triangles, ST_T_TRIANGLES, v, true, err));
        size_t n0 = t->neighbors.n;
        ST_TRY(st_array_resize(&t->neighbors, ST_T_REALS, n0 + 3, err));
        memcpy(t->neighbors.r + n0, ngh, sizeof ngh);
        bool border = false;
        for (int k = 0; k < 3; k++)
            if (ngh[k] == -1) {
                const unsigned e[2] = {v[(k + 1) % 3], v[(k + 2) % 3]};
                ST_TRY(loader_push(l, &t->border_edges, ST_T_EDGES, e, false, err));
                border = true;
            }
        if (border) {
            const unsigned id = (unsigned)i;
            ST_TRY(loader_push(l, &t->border_tris, ST_T_UINTS, &id, false, err));
        }
    }
    return ST_OK;
}

static void trian_clear(trian_loader *t)
{
    t->neighbors.n = 0;
    t->border_edges.n = 0;
    t->border_tris.n = 0;
}

static st_status trian_init(st_component *self, st_error *err)
{
    trian_clear((trian_loader *)self);
    return loader_load((mesh_loader *)self, trian_parse, err);
}

const st_class mesh_trian_loader_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshTrianLoader",
    .category = "Loader",
    .description = "Specific mesh loader for trian (only triangulations) file format.",
    .instance_size = sizeof(trian_loader),
    .fields = trian_fields,
    .init = trian_init,
    .reinit = trian_init,
    .cleanup = loader_cleanup,
};
