/* gid_mesh_loader.c - GIDMeshLoader: GiD mesh files as SOFA reads them.
 * The first line "MESH dimension D ElemType T Nnode N" (T: Linear,
 * Triangle, Quadrilateral, Tetrahedra or Hexahedra; Prism, Pyramid, Sphere
 * and Circle refused, as SOFA; N checked against T); then, lines compared
 * without case, "Coordinates" up to "End Coordinates" (per line: an id,
 * ignored, then D coordinates; the others 0) and "Elements" up to "End
 * Elements" (per line: an id, ignored, then the first 2, 3, 4, 4 or 8
 * 1-based vertex numbers; the higher-order nodes are ignored with SOFA's
 * warning). settee also ignores spaces at the ends of those keyword lines
 * (SOFA would read past them). A missing section, a number that does not
 * read or a vertex beyond the coordinates is an error at the file's line. */
#include <ctype.h>
#include <string.h>

#include "mesh_loader.h"

static const st_field gid_fields[] = {LOADER_FIELDS, LOADER_SUBELEMENTS("false"), ST_FIELD_END};

/* Line s (len) equals the keyword kw, without case or surrounding spaces. */
static bool is_keyword(const char *s, size_t len, const char *kw)
{
    while (len && isspace((unsigned char)*s))
        s++, len--;
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    size_t k = strlen(kw);
    if (len != k)
        return false;
    for (size_t i = 0; i < k; i++)
        if (tolower((unsigned char)s[i]) != kw[i])
            return false;
    return true;
}

/* Splits a line into up to max tokens (pointers into it, lengths). */
static size_t tokens(const char *s, size_t len, const char **tok, size_t *tl, size_t max)
{
    size_t n = 0, i = 0;
    while (i < len && n < max) {
        while (i < len && isspace((unsigned char)s[i]))
            i++;
        size_t j = i;
        while (j < len && !isspace((unsigned char)s[j]))
            j++;
        if (j == i)
            break;
        tok[n] = s + i, tl[n] = j - i, n++;
        i = j;
    }
    return n;
}

static st_status seek_keyword(const st_component *self, const mesh_file *f, text_cursor *c,
                              const char *kw, st_error *err)
{
    const char *s;
    size_t len;
    while (text_next_line(c, &s, &len))
        if (is_keyword(s, len, kw))
            return ST_OK;
    return loader_error_at(self, f->path, c->line, 0, err, ST_EPARSE, "no \"%s\" line", kw);
}

static st_status gid_parse(mesh_loader *l, const mesh_file *f, st_error *err)
{
    st_component *self = &l->base;
    text_cursor c;
    text_cursor_init(&c, f);
    const char *s, *tok[16];
    size_t len, tl[16];
    if (!text_next_line(&c, &s, &len))
        return loader_error_at(self, f->path, 1, 0, err, ST_EPARSE, "Bad GID mesh header");
    size_t nt = tokens(s, len, tok, tl, 16);
    if (nt < 1 || tl[0] != 4 || memcmp(tok[0], "MESH", 4))
        return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE, "Bad GID mesh header");
    size_t k = 1;
    while (k < nt && !(tl[k] == 9 && !memcmp(tok[k], "dimension", 9)))
        k++;
    double dim = 0, nnode = 0;
    if (k + 1 >= nt || !parse_real(tok[k + 1], tl[k + 1], &dim) || (dim != 2 && dim != 3))
        return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                               "Bad GID mesh header : missing dimension information (2 or 3)");
    k += 2;
    if (k + 1 >= nt || tl[k] != 8 || memcmp(tok[k], "ElemType", 8))
        return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                               "Bad GID file header : missing Elemtype tag.");
    static const char *const types[] = {"Linear", "Triangle", "Quadrilateral", "Tetrahedra",
                                        "Hexahedra"};
    static const unsigned widths[] = {2, 3, 4, 4, 8};
    static const unsigned allowed[5][3] = {{2, 3, 0}, {3, 6, 0}, {4, 8, 9}, {4, 10, 0},
                                           {8, 20, 27}};
    int type = -1;
    for (int t = 0; t < 5; t++)
        if (tl[k + 1] == strlen(types[t]) && !memcmp(tok[k + 1], types[t], tl[k + 1]))
            type = t;
    if (type < 0)
        return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                               "Element type %.*s is currently unsupported (Linear, Triangle, "
                               "Quadrilateral, Tetrahedra, Hexahedra)",
                               (int)tl[k + 1], tok[k + 1]);
    k += 2;
    if (k + 1 >= nt || tl[k] != 5 || memcmp(tok[k], "Nnode", 5) ||
        !parse_real(tok[k + 1], tl[k + 1], &nnode))
        return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                               "Bad GID file header : expecting Nnode tag.");
    const unsigned *ok = allowed[type];
    if (nnode != ok[0] && nnode != ok[1] && (ok[2] == 0 || nnode != ok[2]))
        return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                               "Incompatible node count for element type %s: found %g", types[type],
                               nnode);
    const unsigned w = widths[type];
    if (nnode != w)
        st_component_warn(self, "Implementation only supports %u nodes %s elements", w,
                          types[type]);
    ST_TRY(seek_keyword(self, f, &c, "coordinates", err));
    for (;;) {
        if (!text_next_line(&c, &s, &len))
            return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                                   "Bad GID file : unexpected EOF.");
        if (is_keyword(s, len, "end coordinates"))
            break;
        nt = tokens(s, len, tok, tl, 16);
        if (nt == 0)
            continue;
        double p[3] = {0, 0, 0};
        if (nt < 1 + (size_t)dim)
            return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                                   "expected an id and %g coordinates", dim);
        for (int d = 0; d < (int)dim; d++)
            if (!parse_real(tok[1 + d], tl[1 + d], &p[d]))
                return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                                       "'%.*s' is not a number", (int)tl[1 + d], tok[1 + d]);
        ST_TRY(loader_push_point(&l->position, p, err));
    }
    ST_TRY(seek_keyword(self, f, &c, "elements", err));
    static const st_type kinds[] = {ST_T_EDGES, ST_T_TRIANGLES, ST_T_QUADS, ST_T_TETRAS,
                                    ST_T_HEXAS};
    st_array *lists[] = {&l->edges, &l->triangles, &l->quads, &l->tetrahedra, &l->hexahedra};
    const size_t np = l->position.n;
    for (;;) {
        if (!text_next_line(&c, &s, &len))
            return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                                   "Bad GID file : unexpected EOF.");
        if (is_keyword(s, len, "end elements"))
            break;
        nt = tokens(s, len, tok, tl, 16);
        if (nt == 0)
            continue;
        if (nt < 1 + w)
            return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                                   "Reading GID file : expecting node index (%u per element)", w);
        unsigned v[8];
        for (unsigned j = 0; j < w; j++) {
            double x;
            if (!parse_real(tok[1 + j], tl[1 + j], &x) || x < 1 || x > (double)np ||
                x != (double)(unsigned)x)
                return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                                       "node '%.*s' is not a vertex (1..%zu)", (int)tl[1 + j],
                                       tok[1 + j], np);
            v[j] = (unsigned)x - 1;
        }
        ST_TRY(loader_push(l, lists[type], kinds[type], v, false, err));
    }
    return ST_OK;
}

static st_status gid_init(st_component *self, st_error *err)
{
    return loader_load((mesh_loader *)self, gid_parse, err);
}

const st_class gid_mesh_loader_class = {
    .struct_size = sizeof(st_class),
    .name = "GIDMeshLoader",
    .category = "Loader",
    .description = "Load volumetric meshes generated by GID. Some element types are not "
                   "implemented.",
    .instance_size = sizeof(mesh_loader),
    .fields = gid_fields,
    .init = gid_init,
    .reinit = gid_init,
    .cleanup = loader_cleanup,
};
