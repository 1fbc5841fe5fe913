/* sum_engine.c - SumEngine: output is the sum of the values of input, as
 * SOFA's (std::accumulate from a zero value): Vec3d (the default) sums
 * points, Vec1d scalars; an empty input gives zero. */
#include <string.h>

#include <settee/settee.h>

typedef struct sum_engine {
    st_component base;
    st_array input;  /* coord[] */
    st_array output; /* one coord */
} sum_engine;

static const st_field sum_engine_fields[] = {
    ST_COORDS(sum_engine, input, "input", NULL, "input vector"),
    ST_OUTPUT(sum_engine, output, "output", ST_T_COORDS, st_array, "output sum"),
    ST_FIELD_END};

static st_status sum_engine_update(st_component *self, st_error *err)
{
    sum_engine *e = (sum_engine *)self;
    const st_state_type *ty = st_component_state_type(self);
    const unsigned w = ty ? ty->coord_size : 3;
    double s[3] = {0, 0, 0};
    for (size_t i = 0; i < e->input.n; i++)
        for (unsigned k = 0; k < w; k++)
            s[k] += e->input.r[(size_t)w * i + k];
    ST_TRY(st_array_resize_width(&e->output, w, 1, err));
    memcpy(e->output.r, s, w * sizeof *s);
    return ST_OK;
}

static const st_engine_ops sum_engine_ops = {
    .struct_size = sizeof(st_engine_ops),
    .update = sum_engine_update,
};

static const char *const sum_engine_templates[] = {"Vec3d", "Vec1d", NULL};

const st_class sum_engine_class = {
    .struct_size = sizeof(st_class),
    .name = "SumEngine",
    .category = "Engine",
    .description = "Computing the sum between two vector of dofs.",
    .instance_size = sizeof(sum_engine),
    .fields = sum_engine_fields,
    .engine = &sum_engine_ops,
    .templates = sum_engine_templates,
};
