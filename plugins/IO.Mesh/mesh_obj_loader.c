/* mesh_obj_loader.c - MeshOBJLoader: Wavefront OBJ files (v, vn, vt, f, l).
 * Faces of 2 vertices are edges (sorted), of 4 quads (unless triangulate),
 * others are split in fans of triangles, as SOFA's loader does. Malformed
 * lines are errors naming the file's own line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_loader.h"

static const st_field obj_fields[] = {
    LOADER_FIELDS,
    ST_BOOL(mesh_loader, handle_seams, "handleSeams", "false",
            "Preserve UV and normal seams information (vertices with multiple UV and/or "
            "normals); not supported, must be false"),
    ST_BOOL(mesh_loader, load_material, "loadMaterial", "true",
            "Load the related MTL file or use a default one? (materials are ignored headless)"),
    ST_BOOL(mesh_loader, create_subelements, "createSubelements", "false",
            "Divide all n-D elements into their (n-1)-D boundary elements (e.g. tetrahedra to "
            "triangles)"),
    ST_FIELD_END};

/* Parses up to n reals after the keyword; returns how many were read or -1
 * on a token that is not a number. */
static int parse_reals(char *s, double *out, int n)
{
    int k = 0;
    char *p = s;
    while (k < n) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || (*end && *end != ' ' && *end != '\t') || errno == ERANGE)
            return -1;
        out[k++] = v;
        p = end;
    }
    return k;
}

static st_status obj_load(mesh_loader *l, st_error *err)
{
    line_reader r;
    ST_TRY(loader_open(l, &r, err));
    loader_clear(l);
    st_status s = ST_OK;
    size_t nvt = 0, nvn = 0;
    unsigned *nodes = NULL;
    size_t ncap = 0;
    while (s == ST_OK && loader_next_line(&r)) {
        char *p = r.buf;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p || *p == '#')
            continue;
        char *kw = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        size_t kl = (size_t)(p - kw);
        if (kl == 1 && kw[0] == 'v') {
            double v[4];
            int k = parse_reals(p, v, 3);
            if (k != 3) {
                s = loader_file_error(l, &r, err, ST_EPARSE,
                                      "a vertex line 'v' needs 3 coordinates (x y z)%s",
                                      k < 0 ? ", found a token that is not a number" : "");
                break;
            }
            size_t n = l->position.n;
            if (n == l->position.cap)
                s = st_array_resize(&l->position, ST_T_VEC3S, n ? 2 * n : 64, err);
            else
                s = st_array_resize(&l->position, ST_T_VEC3S, n + 1, err);
            if (s != ST_OK)
                break;
            l->position.n = n + 1;
            memcpy(l->position.r + 3 * n, v, 3 * sizeof(double));
        } else if ((kl == 2 && !strncmp(kw, "vn", 2)) || (kl == 2 && !strncmp(kw, "vt", 2))) {
            double v[3];
            int need = kw[1] == 'n' ? 3 : 2;
            int k = parse_reals(p, v, need);
            if (k < need) {
                s = loader_file_error(l, &r, err, ST_EPARSE, "'%.2s' needs %d numbers", kw, need);
                break;
            }
            if (kw[1] == 'n')
                nvn++;
            else
                nvt++;
        } else if (kl == 1 && (kw[0] == 'f' || kw[0] == 'l')) {
            size_t nn = 0;
            char *tok = p;
            for (;;) {
                while (*tok == ' ' || *tok == '\t')
                    tok++;
                if (!*tok)
                    break;
                char *stop = tok;
                while (*stop && *stop != ' ' && *stop != '\t')
                    stop++;
                char saved = *stop;
                *stop = 0;
                /* v, v/t, v/t/n or v//n: only the vertex index matters here. */
                char *end;
                errno = 0;
                long v = strtol(tok, &end, 10);
                if (end == tok || (*end && *end != '/')) {
                    s = loader_file_error(l, &r, err, ST_EPARSE,
                                          "'%s' is not a vertex reference (v, v/vt, v/vt/vn or "
                                          "v//vn)",
                                          tok);
                    break;
                }
                long idx = v >= 1 ? v - 1 : (long)l->position.n + v;
                if (v == 0 || idx < 0 || (size_t)idx >= l->position.n) {
                    s = loader_file_error(l, &r, err, ST_EPARSE,
                                          "vertex index %ld is out of range (%zu vertices defined "
                                          "so far; indices start at 1)",
                                          v, l->position.n);
                    break;
                }
                if (nn == ncap) {
                    size_t cap = ncap ? 2 * ncap : 16;
                    unsigned *q = st_realloc(nodes, cap * sizeof *q);
                    if (!q) {
                        s = st_error_set(err, ST_ENOMEM, "out of memory");
                        break;
                    }
                    nodes = q;
                    ncap = cap;
                }
                nodes[nn++] = (unsigned)idx;
                *stop = saved;
                tok = stop;
            }
            if (s != ST_OK)
                break;
            if (nn < 2) {
                s = loader_file_error(l, &r, err, ST_EPARSE,
                                      "a face or line needs at least 2 vertices, got %zu", nn);
                break;
            }
            if (nn == 2) {
                unsigned e[2] = {nodes[0] < nodes[1] ? nodes[0] : nodes[1],
                                 nodes[0] < nodes[1] ? nodes[1] : nodes[0]};
                s = loader_push(l, &l->edges, ST_T_EDGES, e, false, err);
            } else if (nn == 4 && !l->triangulate) {
                s = loader_push(l, &l->quads, ST_T_QUADS, nodes, true, err);
            } else {
                for (size_t j = 2; j < nn && s == ST_OK; j++) {
                    unsigned t[3] = {nodes[0], nodes[j - 1], nodes[j]};
                    s = loader_push(l, &l->triangles, ST_T_TRIANGLES, t, true, err);
                }
            }
        }
        /* mtllib, usemtl, g, o, s and others: ignored headless. */
    }
    st_free(nodes);
    loader_close(&r);
    (void)nvt;
    (void)nvn;
    if (s != ST_OK) {
        loader_clear(l);
        return s;
    }
    return loader_finish(l, err);
}

static st_status obj_init(st_component *self, st_error *err)
{
    mesh_loader *l = (mesh_loader *)self;
    if (l->handle_seams)
        return st_component_error(self, "handleSeams", err, ST_EINVAL,
                                  "handleSeams is not supported; set it to false");
    if (l->only_attached_points)
        return st_component_error(self, "onlyAttachedPoints", err, ST_EINVAL,
                                  "onlyAttachedPoints is not supported; set it to false");
    return obj_load(l, err);
}

static void loader_cleanup(st_component *self)
{
    mesh_loader *l = (mesh_loader *)self;
    st_free(l->path);
    l->path = NULL;
}

static const char *const obj_aliases[] = {"MeshObjLoader", NULL};

const st_class mesh_obj_loader_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshOBJLoader",
    .category = "Loader",
    .description = "Specific mesh loader for OBJ file format.",
    .aliases = obj_aliases,
    .instance_size = sizeof(mesh_loader),
    .fields = obj_fields,
    .init = obj_init,
    .reinit = obj_init,
    .cleanup = loader_cleanup,
};
