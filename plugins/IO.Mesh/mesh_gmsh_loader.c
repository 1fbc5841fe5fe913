/* mesh_gmsh_loader.c - MeshGmshLoader: Gmsh MSH 2.2 ASCII files. Nodes may
 * be numbered with holes; elements of types 1 (line), 2 (triangle), 3
 * (quad), 4 (tetrahedron), 5 (hexahedron), 8/9/11 (second order: their
 * corners) are kept, points (15) skipped. As in SOFA, createSubelements
 * defaults to true for Gmsh files (faces of volumes, edges of faces).
 * Malformed files are errors naming the file's own line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_loader.h"

static const st_field gmsh_fields[] = {
    LOADER_FIELDS,
    ST_BOOL(mesh_loader, create_subelements, "createSubelements", "true",
            "Divide all n-D elements into their (n-1)-D boundary elements (e.g. tetrahedra to "
            "triangles); true by default for Gmsh files"),
    ST_FIELD_END};

static bool starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* Reads whitespace-separated integers from s; returns the count or -1. */
static int parse_longs(const char *s, long *out, int max)
{
    int k = 0;
    const char *p = s;
    while (k < max) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || (*end && *end != ' ' && *end != '\t'))
            return -1;
        out[k++] = v;
        p = end;
    }
    while (*p == ' ' || *p == '\t')
        p++;
    return *p ? -2 : k;
}

static bool next_content_line(line_reader *r)
{
    while (loader_next_line(r)) {
        const char *p = r->buf;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p)
            return true;
    }
    return false;
}

static st_status push_edge_once(mesh_loader *l, unsigned a, unsigned b, unsigned (*seen)[2],
                                int *nseen, st_error *err)
{
    unsigned e[2] = {a < b ? a : b, a < b ? b : a};
    for (int i = 0; i < *nseen; i++)
        if (seen[i][0] == e[0] && seen[i][1] == e[1])
            return ST_OK;
    seen[*nseen][0] = e[0];
    seen[*nseen][1] = e[1];
    (*nseen)++;
    return loader_push(l, &l->edges, ST_T_EDGES, e, false, err);
}

static st_status gmsh_parse(mesh_loader *l, line_reader *r, size_t **pmap_out, size_t *npmap,
                            st_error *err)
{
    if (!next_content_line(r) || !starts(r->buf, "$MeshFormat"))
        return loader_file_error(l, r, err, ST_EPARSE,
                                 "not a Gmsh file: the first line must be $MeshFormat");
    if (!next_content_line(r))
        return loader_file_error(l, r, err, ST_EPARSE, "missing the version line after $MeshFormat");
    char *end;
    double version = strtod(r->buf, &end);
    if (end == r->buf || version < 2.0 || version >= 3.0)
        return loader_file_error(l, r, err, ST_EPARSE,
                                 "unsupported MSH version '%s': MeshGmshLoader reads format 2.2 "
                                 "(gmsh -format msh22)",
                                 r->buf);
    long ft = strtol(end, &end, 10);
    if (ft != 0)
        return loader_file_error(l, r, err, ST_EPARSE,
                                 "binary MSH files are not supported (file-type %ld): save as "
                                 "ASCII",
                                 ft);
    if (!next_content_line(r) || !starts(r->buf, "$EndMeshFormat"))
        return loader_file_error(l, r, err, ST_EPARSE,
                                 "No $EndMeshFormat flag found at the end of the header");
    while (next_content_line(r) && !starts(r->buf, "$Nodes"))
        ;
    if (!r->buf || !starts(r->buf, "$Nodes"))
        return loader_file_error(l, r, err, ST_EPARSE,
                                 "End of file reached without finding the $Nodes section");
    long cnt;
    if (!next_content_line(r) || parse_longs(r->buf, &cnt, 1) != 1 || cnt < 0)
        return loader_file_error(l, r, err, ST_EPARSE, "expected the number of nodes");
    ST_TRY(st_array_resize(&l->position, ST_T_VEC3S, (size_t)cnt, err));
    size_t *pmap = NULL, pn = 0;
    st_status s = ST_OK;
    for (long i = 0; i < cnt && s == ST_OK; i++) {
        if (!next_content_line(r)) {
            s = loader_file_error(l, r, err, ST_EPARSE,
                                  "end of file after %ld of %ld nodes", i, cnt);
            break;
        }
        char *p = r->buf;
        errno = 0;
        long id = strtol(p, &end, 10);
        double v[3];
        int ok = end != p && id >= 0;
        for (int a = 0; a < 3 && ok; a++) {
            p = end;
            v[a] = strtod(p, &end);
            ok = end != p;
        }
        if (!ok) {
            s = loader_file_error(l, r, err, ST_EPARSE,
                                  "a node line needs 'id x y z' (integer id, 3 reals)");
            break;
        }
        memcpy(l->position.r + 3 * i, v, sizeof v);
        if ((size_t)id >= pn) {
            size_t nn = (size_t)id + 1 > 2 * pn ? (size_t)id + 1 : 2 * pn;
            size_t *q = st_realloc(pmap, nn * sizeof *q);
            if (!q) {
                s = st_error_set(err, ST_ENOMEM, "out of memory");
                break;
            }
            for (size_t k = pn; k < nn; k++)
                q[k] = (size_t)-1;
            pmap = q;
            pn = nn;
        }
        pmap[id] = (size_t)i;
    }
    *pmap_out = pmap;
    *npmap = pn;
    if (s != ST_OK)
        return s;
    if (!next_content_line(r) || !starts(r->buf, "$EndNodes"))
        return loader_file_error(l, r, err, ST_EPARSE, "'$EndNodes' expected, found '%s'",
                                 r->buf ? r->buf : "end of file");
    if (!next_content_line(r) || !starts(r->buf, "$Elements"))
        return loader_file_error(l, r, err, ST_EPARSE, "'$Elements' expected, found '%s'",
                                 r->buf ? r->buf : "end of file");
    if (!next_content_line(r) || parse_longs(r->buf, &cnt, 1) != 1 || cnt < 0)
        return loader_file_error(l, r, err, ST_EPARSE, "expected the number of elements");
    for (long i = 0; i < cnt; i++) {
        if (!next_content_line(r))
            return loader_file_error(l, r, err, ST_EPARSE,
                                     "end of file after %ld of %ld elements", i, cnt);
        long v[64];
        int k = parse_longs(r->buf, v, 64);
        if (k < 3)
            return loader_file_error(l, r, err, ST_EPARSE,
                                     "an element line needs 'id type ntags tags... nodes...'");
        long type = v[1], ntags = v[2];
        int nn;
        switch (type) {
        case 15: nn = 1; break;
        case 1: nn = 2; break;
        case 2: nn = 3; break;
        case 3: nn = 4; break;
        case 4: nn = 4; break;
        case 5: nn = 8; break;
        case 8: nn = 3; break;
        case 9: nn = 6; break;
        case 11: nn = 10; break;
        default:
            st_component_warn(&l->base, "%s:%d: element of type %ld skipped (types 1, 2, 3, 4, 5, "
                                        "8, 9, 11 and 15 are read)",
                              r->path, r->line, type);
            continue;
        }
        if (ntags < 0 || k != 3 + ntags + nn)
            return loader_file_error(l, r, err, ST_EPARSE,
                                     "element of type %ld needs %d node numbers after %ld tags, "
                                     "found %d values",
                                     type, nn, ntags, k - 3 - (int)(ntags > 0 ? ntags : 0));
        unsigned nodes[10];
        for (int j = 0; j < nn; j++) {
            long id = v[3 + ntags + j];
            if (id < 0 || (size_t)id >= pn || pmap[id] == (size_t)-1)
                return loader_file_error(l, r, err, ST_EPARSE,
                                         "element uses node %ld, which the $Nodes section does "
                                         "not define",
                                         id);
            nodes[j] = (unsigned)pmap[id];
        }
        unsigned seen[6][2];
        int nseen = 0;
        switch (type) {
        case 1:
        case 8:
            ST_TRY(loader_push(l, &l->edges, ST_T_EDGES, nodes, false, err));
            break;
        case 2:
            ST_TRY(loader_push(l, &l->triangles, ST_T_TRIANGLES, nodes, true, err));
            break;
        case 9: {
            static const unsigned te[3][2] = {{0, 1}, {1, 2}, {2, 0}};
            ST_TRY(loader_push(l, &l->triangles, ST_T_TRIANGLES, nodes, true, err));
            for (int j = 0; j < 3; j++)
                ST_TRY(push_edge_once(l, nodes[te[j][0]], nodes[te[j][1]], seen, &nseen, err));
            break;
        }
        case 3:
            ST_TRY(loader_push(l, &l->quads, ST_T_QUADS, nodes, true, err));
            break;
        case 4:
            ST_TRY(loader_push(l, &l->tetrahedra, ST_T_TETRAS, nodes, false, err));
            break;
        case 11: {
            static const unsigned te[6][2] = {{0, 1}, {1, 2}, {0, 2}, {0, 3}, {2, 3}, {1, 3}};
            ST_TRY(loader_push(l, &l->tetrahedra, ST_T_TETRAS, nodes, false, err));
            for (int j = 0; j < 6; j++)
                ST_TRY(push_edge_once(l, nodes[te[j][0]], nodes[te[j][1]], seen, &nseen, err));
            break;
        }
        case 5:
            ST_TRY(loader_push(l, &l->hexahedra, ST_T_HEXAS, nodes, false, err));
            break;
        default:
            break;
        }
    }
    if (!next_content_line(r) || !starts(r->buf, "$EndElements"))
        return loader_file_error(l, r, err, ST_EPARSE, "'$EndElements' expected, found '%s'",
                                 r->buf ? r->buf : "end of file");
    return ST_OK;
}

static st_status gmsh_init(st_component *self, st_error *err)
{
    mesh_loader *l = (mesh_loader *)self;
    if (l->only_attached_points)
        return st_component_error(self, "onlyAttachedPoints", err, ST_EINVAL,
                                  "onlyAttachedPoints is not supported; set it to false");
    line_reader r;
    ST_TRY(loader_open(l, &r, err));
    loader_clear(l);
    size_t *pmap = NULL, pn = 0;
    st_status s = gmsh_parse(l, &r, &pmap, &pn, err);
    st_free(pmap);
    loader_close(&r);
    if (s != ST_OK) {
        loader_clear(l);
        return s;
    }
    return loader_finish(l, err);
}

static void gmsh_cleanup(st_component *self)
{
    mesh_loader *l = (mesh_loader *)self;
    st_free(l->path);
    l->path = NULL;
}

const st_class mesh_gmsh_loader_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshGmshLoader",
    .category = "Loader",
    .description = "Specific mesh loader for Gmsh file format.",
    .instance_size = sizeof(mesh_loader),
    .fields = gmsh_fields,
    .init = gmsh_init,
    .reinit = gmsh_init,
    .cleanup = gmsh_cleanup,
};
