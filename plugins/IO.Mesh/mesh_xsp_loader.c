/* mesh_xsp_loader.c - MeshXspLoader: SOFA's mass-spring files (Xsp 3.0 and
 * 4.0) read as a mesh: the position of each "mass" and an edge for each
 * "lspg" spring, as SOFA's loader keeps them. The format, read as SOFA's
 * XspLoader reads it, in whitespace-separated tokens:
 *   Xsp VERSION                              3.0, or 4.0 (rest vectors)
 *   numm N / nums N                          counts (once each)
 *   mass INDEX LOC PX PY PZ VX VY VZ M E     LOC one character ('s': surface)
 *   lspg INDEX M0 M1 KS KD L0 [RX RY RZ]     1-based masses; RX.. in 4.0
 *   grav GX GY GZ / visc V                   read, not used by the loader
 *   step ..., frce ..., #...                 the rest of the line ignored
 * Anything else, a number that does not read, a spring on a mass not yet
 * read, or a repeated count, is an error at the file's line (SOFA's
 * messages); the outputs are then empty, as SOFA's. */
#include <string.h>

#include "mesh_loader.h"

static const st_field xsp_fields[] = {LOADER_FIELDS, LOADER_SUBELEMENTS("false"), ST_FIELD_END};

/* Reads n numbers into v; false when one is missing or does not read. */
static bool numbers(text_cursor *c, double *v, size_t n)
{
    const char *s;
    size_t len;
    for (size_t i = 0; i < n; i++)
        if (!text_next_token(c, &s, &len) || !parse_real(s, len, &v[i]))
            return false;
    return true;
}

static st_status xsp_parse(mesh_loader *l, const mesh_file *f, st_error *err)
{
    st_component *self = &l->base;
    text_cursor c;
    text_cursor_init(&c, f);
    const char *s;
    size_t len;
    double v[10];
    if (!text_next_token(&c, &s, &len) || len != 3 || memcmp(s, "Xsp", 3))
        return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                               "finally appears not to be a Xsp file (expected the keyword Xsp)");
    if (!text_next_token(&c, &s, &len))
        return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                               "no version after the keyword Xsp");
    if (!parse_real(s, len, &v[0]) || ((float)v[0] != 3.0f && (float)v[0] != 4.0f))
        return loader_error_at(self, f->path, c.line, 0, err, ST_EPARSE,
                               "Xsp version '%.*s' is not supported yet (3.0 or 4.0)", (int)len,
                               s);
    const bool vector_springs = (float)v[0] == 4.0f;
    bool have_numm = false, have_nums = false;
    while (text_next_token(&c, &s, &len)) {
        const int line = c.line;
#define IS(word) (len == strlen(word) && !memcmp(s, word, len))
        if (IS("numm") || IS("nums")) {
            bool *seen = IS("numm") ? &have_numm : &have_nums;
            const char *what = IS("numm") ? "numm" : "nums";
            if (*seen)
                return loader_error_at(self, f->path, line, 0, err, ST_EPARSE,
                                       "The file contains multiple '%s' commands which is invalid.",
                                       what);
            if (!numbers(&c, v, 1) || v[0] < 0)
                return loader_error_at(self, f->path, line, 0, err, ST_EPARSE,
                                       "Error while reading '%s' command.", what);
            *seen = true;
        } else if (IS("mass")) {
            const char *loc;
            size_t loclen;
            if (!numbers(&c, v, 1) || !text_next_token(&c, &loc, &loclen) || loclen != 1 ||
                !numbers(&c, v + 1, 8))
                return loader_error_at(self, f->path, line, 0, err, ST_EPARSE,
                                       "Error while reading 'mass' command.");
            ST_TRY(loader_push_point(&l->position, v + 1, err));
        } else if (IS("lspg")) {
            if (!numbers(&c, v, vector_springs ? 9 : 6))
                return loader_error_at(self, f->path, line, 0, err, ST_EPARSE,
                                       "Error while reading 'lspg' command.");
            const size_t n = l->position.n;
            if (v[1] < 1 || v[2] < 1 || v[1] > (double)n || v[2] > (double)n ||
                v[1] != (double)(size_t)v[1] || v[2] != (double)(size_t)v[2])
                return loader_error_at(self, f->path, line, 0, err, ST_EPARSE,
                                       "incorrect mass indexes in spring %g %g %g (1..%zu)", v[0],
                                       v[1], v[2], n);
            unsigned e[2] = {(unsigned)v[1] - 1, (unsigned)v[2] - 1};
            ST_TRY(loader_push(l, &l->edges, ST_T_EDGES, e, false, err));
        } else if (IS("grav") || IS("visc")) {
            if (!numbers(&c, v, IS("grav") ? 3 : 1))
                return loader_error_at(self, f->path, line, 0, err, ST_EPARSE,
                                       "Error while reading '%.*s' command.", (int)len, s);
        } else if (IS("step") || IS("frce") || s[0] == '#') {
            if (c.pline == line) /* the token did not end its line */
                text_next_line(&c, &s, &len);
        } else {
            return loader_error_at(self, f->path, line, 0, err, ST_EPARSE,
                                   "Unknown MassSpring keyword '%.*s'.", (int)len, s);
        }
#undef IS
    }
    return ST_OK;
}

static st_status xsp_init(st_component *self, st_error *err)
{
    return loader_load((mesh_loader *)self, xsp_parse, err);
}

const st_class mesh_xsp_loader_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshXspLoader",
    .category = "Loader",
    .description = "Specific mesh loader for Xsp file format.",
    .instance_size = sizeof(mesh_loader),
    .fields = xsp_fields,
    .init = xsp_init,
    .reinit = xsp_init,
    .cleanup = loader_cleanup,
};
