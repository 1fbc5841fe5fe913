/* mesh_off_loader.c - MeshOffLoader: OFF files as SOFA reads them: the
 * keyword OFF, then (lines that are empty or start with '#' skipped) a
 * line "vertices faces edges", one line per vertex (its first three
 * numbers), one line per face "n i1 .. in": triangles and quads are kept,
 * a face of fewer than 3 or more than 4 points is skipped and not counted
 * (so a later line stands for it, as in SOFA). A missing keyword, a number
 * that does not read or an index beyond the vertices is an error at the
 * file's line (SOFA reads such lines as zeros). */
#include <stdlib.h>
#include <string.h>

#include "mesh_loader.h"

static const st_field off_fields[] = {LOADER_FIELDS, LOADER_SUBELEMENTS("false"), ST_FIELD_END};

/* The next line that is not empty and does not start with '#'. */
static bool next_data_line(text_cursor *c, const char **s, size_t *len)
{
    while (text_next_line(c, s, len))
        if (*len && (*s)[0] != '#')
            return true;
    return false;
}

/* Reads up to max numbers of a line (strict tokens); returns the count. */
static size_t line_numbers(const char *s, size_t len, double *v, size_t max, bool *bad)
{
    size_t n = 0, i = 0;
    *bad = false;
    while (i < len && n < max) {
        while (i < len && (s[i] == ' ' || s[i] == '\t'))
            i++;
        size_t j = i;
        while (j < len && s[j] != ' ' && s[j] != '\t')
            j++;
        if (j == i)
            break;
        if (!parse_real(s + i, j - i, &v[n])) {
            *bad = true;
            return n;
        }
        n++;
        i = j;
    }
    return n;
}

st_status off_parse(mesh_loader *l, const mesh_file *f, st_error *err)
{
    st_component *self = &l->base;
    text_cursor c;
    text_cursor_init(&c, f);
    const char *s;
    size_t len;
    if (!text_next_token(&c, &s, &len) || len != 3 || memcmp(s, "OFF", 3))
        return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                               "Not a OFF file (header problem): expected the keyword OFF");
    /* The counts: the rest of the keyword's line first, as SOFA's getline. */
    double v[8];
    bool bad;
    size_t nv = 0, nf = 0;
    while (nv == 0) {
        if (!next_data_line(&c, &s, &len))
            return ST_OK; /* no counts: an empty mesh, as SOFA */
        size_t k = line_numbers(s, len, v, 3, &bad);
        if (bad || k < 1 || v[0] < 0)
            return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                                   "expected the counts \"vertices faces edges\"");
        nv = (size_t)v[0];
        nf = k > 1 && v[1] > 0 ? (size_t)v[1] : 0;
    }
    for (size_t i = 0; i < nv; i++) {
        if (!next_data_line(&c, &s, &len))
            return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                                   "%zu vertices of %zu: the file ends", i, nv);
        if (line_numbers(s, len, v, 3, &bad) < 3 || bad)
            return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                                   "vertex %zu: expected 3 coordinates", i);
        ST_TRY(loader_push_point(&l->position, v, err));
    }
    size_t read = 0;
    while (read < nf && next_data_line(&c, &s, &len)) {
        size_t k = line_numbers(s, len, v, 8, &bad);
        if (bad || k < 1)
            return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                                   "face %zu: expected \"n i1 .. in\"", read);
        const size_t n = (size_t)v[0];
        if (n < 3 || n > 4)
            continue; /* SOFA skips it and does not count it */
        if (k < n + 1)
            return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                                   "face %zu: %zu indices, expected %zu", read, k - 1, n);
        unsigned q[4];
        for (size_t j = 0; j < n; j++) {
            if (v[1 + j] < 0 || v[1 + j] >= (double)nv || v[1 + j] != (double)(unsigned)v[1 + j])
                return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                                       "face %zu: index %g is not a vertex (0..%zu)", read,
                                       v[1 + j], nv - 1);
            q[j] = (unsigned)v[1 + j];
        }
        if (n == 3)
            ST_TRY(loader_push(l, &l->triangles, ST_T_TRIANGLES, q, true, err));
        else
            ST_TRY(loader_push(l, &l->quads, ST_T_QUADS, q, true, err));
        read++;
    }
    return ST_OK;
}

static st_status off_init(st_component *self, st_error *err)
{
    return loader_load((mesh_loader *)self, off_parse, err);
}

const st_class mesh_off_loader_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshOffLoader",
    .category = "Loader",
    .description = "Specific mesh loader for Off file format.",
    .instance_size = sizeof(mesh_loader),
    .fields = off_fields,
    .init = off_init,
    .reinit = off_init,
    .cleanup = loader_cleanup,
};
