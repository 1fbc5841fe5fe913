/* index_value_mapper.c - IndexValueMapper: outputValues = inputValues with
 * value written at each of indices; an index beyond the end first extends
 * the list, the new entries taking defaultValue (Heterogeneous-
 * TetrahedronFEMForceField.scn chains four of them into per-tetrahedron
 * Young moduli). */
#include "../shared/engine_util.h"

typedef struct index_value_mapper {
    st_component base;
    st_array input_values; /* real[] */
    st_array indices;      /* uint[] */
    double value;
    st_array output_values; /* output real[] */
    double default_value;
} index_value_mapper;

static const st_field ivm_fields[] = {
    ST_REALS(index_value_mapper, input_values, "inputValues", NULL,
             "Already existing values (can be empty)"),
    ST_UINTS(index_value_mapper, indices, "indices", NULL, "Indices to map value on"),
    ST_REAL(index_value_mapper, value, "value", "0", "Value to map indices on"),
    ST_OUTPUT(index_value_mapper, output_values, "outputValues", ST_T_REALS, st_array,
              "New map between indices and values"),
    ST_REAL(index_value_mapper, default_value, "defaultValue", "1",
            "Default value for indices without any value"),
    ST_FIELD_END};

static st_status ivm_update(st_component *self, st_error *err)
{
    index_value_mapper *e = (index_value_mapper *)self;
    size_t n = e->input_values.n;
    for (size_t i = 0; i < e->indices.n; i++)
        if ((size_t)e->indices.u[i] + 1 > n)
            n = (size_t)e->indices.u[i] + 1;
    ST_TRY(st_array_resize(&e->output_values, ST_T_REALS, n, err));
    for (size_t i = 0; i < n; i++)
        e->output_values.r[i] = i < e->input_values.n ? e->input_values.r[i] : e->default_value;
    for (size_t i = 0; i < e->indices.n; i++)
        e->output_values.r[e->indices.u[i]] = e->value;
    return ST_OK;
}

static const st_engine_ops ivm_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = ivm_update,
};

const st_class index_value_mapper_class = {
    .struct_size = sizeof(st_class),
    .name = "IndexValueMapper",
    .category = "Engine",
    .description = "Input values to output values mapper. Includes indices rules, such as "
                   "replacement, resize",
    .instance_size = sizeof(index_value_mapper),
    .fields = ivm_fields,
    .engine = &ivm_engine,
};
