/* norm_engine.c - NormEngine: output[i] = the l-norm of input[i] (Vec3d
 * vectors): 2 Euclidean, 1 Manhattan, 0 the number of non-zero entries, a
 * negative l the largest magnitude, any other l (sum |x|^l)^(1/l), as
 * SOFA's Vec::lNorm. */
#include <math.h>

#include "../shared/engine_util.h"

typedef struct norm_engine {
    st_component base;
    st_array input;  /* vec3[] */
    st_array output; /* output real[] */
    int norm_type;
} norm_engine;

static const st_field norm_engine_fields[] = {
    ST_VEC3S(norm_engine, input, "input", NULL, "input array of 3d points"),
    ST_OUTPUT(norm_engine, output, "output", ST_T_REALS, st_array, "output array of scalar norms"),
    ST_INT(norm_engine, norm_type, "normType", "2",
           "The type of norm. Use a negative value for the infinite norm."),
    ST_FIELD_END};

static double lnorm(const double *v, int l)
{
    double n = 0;
    if (l == 2)
        return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; k++) {
        double a = fabs(v[k]);
        if (l < 0)
            n = a > n ? a : n;
        else if (l == 1)
            n += a;
        else if (l == 0)
            n += v[k] != 0.0 ? 1.0 : 0.0;
        else
            n += pow(a, l);
    }
    return l > 2 ? pow(n, 1.0 / l) : n;
}

static st_status norm_engine_update(st_component *self, st_error *err)
{
    norm_engine *e = (norm_engine *)self;
    ST_TRY(st_array_resize(&e->output, ST_T_REALS, e->input.n, err));
    for (size_t i = 0; i < e->input.n; i++)
        e->output.r[i] = lnorm(e->input.r + 3 * i, e->norm_type);
    return ST_OK;
}

static const st_engine_ops norm_engine_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = norm_engine_update,
};

const st_class norm_engine_class = {
    .struct_size = sizeof(st_class),
    .name = "NormEngine",
    .category = "Engine",
    .description = "Convert Vec in Real",
    .instance_size = sizeof(norm_engine),
    .fields = norm_engine_fields,
    .engine = &norm_engine_engine,
};
