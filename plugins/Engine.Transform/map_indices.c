/* map_indices.c - MapIndices: out = in with every value v that appears in
 * indices replaced by its position there (indices[i] = v gives i), or, with
 * transpose, every value i < |indices| replaced by indices[i]; other values
 * are kept, as SOFA's. When an index appears twice in indices, the last
 * position wins (SOFA's std::map assignment). SOFA instantiates it for int,
 * unsigned int and the element tuples (Edge, Triangle, Quad, Hexa: each
 * entry mapped); settee's holds unsigned indices, the element templates as
 * flat lists (the same entries, mapped one by one). outStr is out as text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <settee/settee.h>

typedef struct map_indices {
    st_component base;
    char *template_name; /* "template" */
    st_array in;         /* uint[] */
    st_array indices;    /* uint[] */
    st_array out;        /* output uint[] */
    char *out_str;       /* output */
    bool transpose;
} map_indices;

static const st_field map_indices_fields[] = {
    ST_STRING(map_indices, template_name, "template", "int",
              "The index type: int, unsigned int, or an element tuple (fixed_array<unsigned "
              "int,N>, N = 2, 3, 4, 8), mapped entry by entry"),
    ST_UINTS(map_indices, in, "in", NULL, "input indices"),
    ST_UINTS(map_indices, indices, "indices", NULL,
             "array containing in ith cell the input index corresponding to the output index i "
             "(or reversively if transpose=true)"),
    ST_OUTPUT(map_indices, out, "out", ST_T_UINTS, st_array, "Output indices"),
    ST_OUTPUT(map_indices, out_str, "outStr", ST_T_STRING, char *,
              "Output indices, converted as a string"),
    ST_BOOL(map_indices, transpose, "transpose", "false", "Should the transposed mapping be used ?"),
    ST_FIELD_END};

/* old -> new, as a dense table over the values that occur (UINT_MAX: none). */
static st_status map_indices_update(st_component *self, st_error *err)
{
    map_indices *m = (map_indices *)self;
    size_t range = 0;
    for (size_t i = 0; i < m->indices.n; i++) {
        size_t key = m->transpose ? i : (size_t)m->indices.u[i];
        if (key + 1 > range)
            range = key + 1;
    }
    unsigned *map = range ? malloc(range * sizeof *map) : NULL;
    if (range && !map)
        return st_error_set(err, ST_ENOMEM, "out of memory for a map of %zu indices", range);
    for (size_t i = 0; i < range; i++)
        map[i] = UINT32_MAX;
    for (size_t i = 0; i < m->indices.n; i++) {
        if (m->transpose)
            map[i] = m->indices.u[i];
        else
            map[m->indices.u[i]] = (unsigned)i;
    }
    st_status s = st_array_resize(&m->out, ST_T_UINTS, m->in.n, err);
    size_t len = 1;
    for (size_t i = 0; s == ST_OK && i < m->in.n; i++) {
        unsigned v = m->in.u[i];
        m->out.u[i] = v < range && map[v] != UINT32_MAX ? map[v] : v;
        len += 11;
    }
    free(map);
    ST_TRY(s);
    char *text = st_malloc(len);
    if (!text)
        return st_error_set(err, ST_ENOMEM, "out of memory for outStr");
    size_t at = 0;
    text[0] = 0;
    for (size_t i = 0; i < m->out.n; i++)
        at += (size_t)snprintf(text + at, len - at, i ? " %u" : "%u", m->out.u[i]);
    st_free(m->out_str);
    m->out_str = text;
    return ST_OK;
}

static const st_engine_ops map_indices_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = map_indices_update,
};

const st_class map_indices_class = {
    .struct_size = sizeof(st_class),
    .name = "MapIndices",
    .category = "Engine",
    .description = "Apply a permutation to a set of indices.",
    .instance_size = sizeof(map_indices),
    .fields = map_indices_fields,
    .engine = &map_indices_engine,
};
