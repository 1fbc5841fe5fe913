/* indices2values_mapper.c - Indices2ValuesMapper: for each of inputValues,
 * the entry of values at the first position where indices holds that value
 * (compared exactly, as reals), else defaultValue, as SOFA's. */
#include <settee/settee.h>

typedef struct indices2values_mapper {
    st_component base;
    st_array input_values; /* real[] */
    st_array indices;      /* real[] */
    st_array values;       /* real[] */
    st_array output;       /* output real[] */
    double default_value;
} indices2values_mapper;

static const st_field i2v_fields[] = {
    ST_REALS(indices2values_mapper, input_values, "inputValues", NULL,
             "Already existing values (can be empty) "),
    ST_REALS(indices2values_mapper, indices, "indices", NULL, "Indices to map value on "),
    ST_REALS(indices2values_mapper, values, "values", NULL, "Values to map indices on "),
    ST_OUTPUT(indices2values_mapper, output, "outputValues", ST_T_REALS, st_array,
              "New map between indices and values"),
    ST_REAL(indices2values_mapper, default_value, "defaultValue", "1",
            "Default value for indices without any value"),
    ST_FIELD_END};

static st_status i2v_update(st_component *self, st_error *err)
{
    indices2values_mapper *m = (indices2values_mapper *)self;
    ST_TRY(st_array_resize(&m->output, ST_T_REALS, m->input_values.n, err));
    for (size_t i = 0; i < m->input_values.n; i++) {
        double o = m->default_value;
        for (size_t j = 0; j < m->indices.n; j++)
            if (m->input_values.r[i] == m->indices.r[j]) {
                if (j >= m->values.n)
                    return st_component_error(self, "values", err, ST_ESCENE,
                                              "indices[%zu] matches inputValues[%zu] but values "
                                              "has only %zu entries",
                                              j, i, m->values.n);
                o = m->values.r[j];
                break;
            }
        m->output.r[i] = o;
    }
    return ST_OK;
}

static const st_engine_ops i2v_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = i2v_update,
};

static const char *const i2v_templates[] = {"Vec3d", NULL};

const st_class indices2values_mapper_class = {
    .struct_size = sizeof(st_class),
    .name = "Indices2ValuesMapper",
    .category = "Engine",
    .description = "Input multiple values to output values mapper. Includes indices rules, such "
                   "as replacement, resize.",
    .instance_size = sizeof(indices2values_mapper),
    .fields = i2v_fields,
    .engine = &i2v_engine,
    .templates = i2v_templates,
};
