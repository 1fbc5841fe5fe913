/* difference_engine.c - DifferenceEngine: output = input - substractor,
 * point by point (Vec3d, or Vec1d values). Different sizes: a warning and
 * the output is left as it was, as in SOFA. */
#include "../shared/engine_util.h"

typedef struct difference_engine {
    st_component base;
    st_array input, substractor; /* coord[] */
    st_array output;             /* output coord[] */
} difference_engine;

static const st_field difference_engine_fields[] = {
    ST_COORDS(difference_engine, input, "input", NULL, "input vector"),
    ST_COORDS(difference_engine, substractor, "substractor", NULL, "vector to subtract to input"),
    ST_OUTPUT(difference_engine, output, "output", ST_T_COORDS, st_array,
              "output vector = input-substractor"),
    ST_FIELD_END};

static st_status difference_engine_update(st_component *self, st_error *err)
{
    difference_engine *e = (difference_engine *)self;
    if (e->input.n != e->substractor.n) {
        st_component_warn(self, "Input vector and vector to subtract should have same size "
                                "(%zu and %zu). Abort.",
                          e->input.n, e->substractor.n);
        return ST_OK;
    }
    unsigned cw = eng_coord_size(self);
    ST_TRY(st_array_resize_width(&e->output, cw, e->input.n, err));
    for (size_t i = 0; i < e->input.n * cw; i++)
        e->output.r[i] = e->input.r[i] - e->substractor.r[i];
    return ST_OK;
}

static const st_engine_ops difference_engine_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = difference_engine_update,
};

static const char *const difference_engine_templates[] = {"Vec3d", "Vec1d", NULL};

const st_class difference_engine_class = {
    .struct_size = sizeof(st_class),
    .name = "DifferenceEngine",
    .category = "Engine",
    .description = "Computing the difference between two vector of dofs.",
    .instance_size = sizeof(difference_engine),
    .fields = difference_engine_fields,
    .engine = &difference_engine_engine,
    .templates = difference_engine_templates,
};
