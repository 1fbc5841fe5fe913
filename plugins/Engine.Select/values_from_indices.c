/* values_from_indices.c - ValuesFromIndices: out[i] = in[indices[i]]. The
 * values are points of the template's type (Vec1d: reals, Vec2d, Vec3d,
 * Rigid3d coordinates); SOFA's integer, string and element templates are not
 * covered. An index beyond the input is an error (SOFA logs it and skips
 * it). */
#include "../shared/engine_util.h"

typedef struct values_from_indices {
    st_component base;
    st_array in;      /* coord[] */
    st_array indices; /* uint[] */
    st_array out;     /* output, coord[] */
    char *out_str;    /* output: out as text */
} values_from_indices;

static const st_field vfi_fields[] = {
    ST_FIELD_EX(values_from_indices, in, "in", ST_T_COORDS, st_array, NULL, "input values", 0,
                "input", 0.0, 0.0),
    ST_UINTS(values_from_indices, indices, "indices", NULL, "Indices of the values"),
    ST_FIELD_EX(values_from_indices, out, "out", ST_T_COORDS, st_array, NULL,
                "Output values corresponding to the indices", ST_F_OUTPUT, "output", 0.0, 0.0),
    ST_OUTPUT(values_from_indices, out_str, "outStr", ST_T_STRING, char *,
              "Output values corresponding to the indices, converted as a string"),
    ST_FIELD_END};

/* out as SOFA prints a vector: the values separated by spaces. */
static st_status write_str(values_from_indices *e, unsigned cw, st_error *err)
{
    size_t cap = 32 * (e->out.n * cw + 1), len = 0;
    char *s = st_calloc(cap, 1);
    if (!s)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t i = 0; i < e->out.n * cw; i++)
        len += (size_t)snprintf(s + len, cap - len, i ? " %.17g" : "%.17g", e->out.r[i]);
    st_free(e->out_str);
    e->out_str = s;
    return ST_OK;
}

static st_status vfi_update(st_component *self, st_error *err)
{
    values_from_indices *e = (values_from_indices *)self;
    unsigned cw = eng_coord_size(self);
    eng_clear(&e->out);
    for (size_t i = 0; i < e->indices.n; i++) {
        unsigned id = e->indices.u[i];
        if (id >= e->in.n)
            return st_component_error(self, "indices", err, ST_EINVAL,
                                      "Invalid input index %zu: %u >= %zu", i, id, e->in.n);
        ST_TRY(eng_push_r(&e->out, cw, e->in.r + (size_t)cw * id, err));
    }
    return write_str(e, cw, err);
}

static const st_engine_ops vfi_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = vfi_update,
};

static const char *const vfi_templates[] = {"Vec3d", "Vec1d", "Vec2d", "Rigid3d", NULL};

const st_class values_from_indices_class = {
    .struct_size = sizeof(st_class),
    .name = "ValuesFromIndices",
    .category = "Engine",
    .description = "Find the values given a list of indices.",
    .instance_size = sizeof(values_from_indices),
    .fields = vfi_fields,
    .engine = &vfi_engine,
    .templates = vfi_templates,
};
