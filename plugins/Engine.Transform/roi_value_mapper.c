/* roi_value_mapper.c - ROIValueMapper: outputValues[i] = value<k> for every
 * index i of indices<k>, k = 1..nbROIs in order (a later ROI overwrites an
 * earlier one); the list grows to the largest index, the entries no ROI
 * names taking defaultValue, as SOFA's. nbROIs = 0 (SOFA's default) leaves
 * the output as it was. SOFA creates indices1/value1... when it reads
 * nbROIs; settee's field table is static: at most 8 ROIs. */
#include <stdio.h>
#include "../shared/engine_util.h"

#define RVM_MAX 8

typedef struct roi_value_mapper {
    st_component base;
    unsigned nb_rois;
    st_array indices[RVM_MAX]; /* uint[] each */
    double value[RVM_MAX];
    st_array output; /* real[] */
    double default_value;
} roi_value_mapper;

#define RVM_ROI(i)                                                                                 \
    ST_UINTS(roi_value_mapper, indices[i - 1], "indices" #i, NULL, "ROIs"),                        \
        ST_REAL(roi_value_mapper, value[i - 1], "value" #i, "0", "Values")

static const st_field rvm_fields[] = {
    ST_FIELD_EX(roi_value_mapper, nb_rois, "nbROIs", ST_T_UINT, unsigned, "0",
                "size of indices/value vector (at most 8 in settee)", 0, NULL, 0, RVM_MAX),
    RVM_ROI(1), RVM_ROI(2), RVM_ROI(3), RVM_ROI(4), RVM_ROI(5), RVM_ROI(6), RVM_ROI(7), RVM_ROI(8),
    ST_OUTPUT(roi_value_mapper, output, "outputValues", ST_T_REALS, st_array,
              "New vector of values"),
    ST_REAL(roi_value_mapper, default_value, "defaultValue", "0",
            "Default value for indices out of ROIs"),
    ST_FIELD_END};

static st_status rvm_init(st_component *self, st_error *err)
{
    (void)err;
    roi_value_mapper *m = (roi_value_mapper *)self;
    eng_warn_unused_inputs(self, "indices", m->nb_rois, RVM_MAX, "nbROIs");
    eng_warn_unused_inputs(self, "value", m->nb_rois, RVM_MAX, "nbROIs");
    return ST_OK;
}

static st_status rvm_update(st_component *self, st_error *err)
{
    roi_value_mapper *m = (roi_value_mapper *)self;
    if (m->nb_rois == 0)
        return ST_OK;
    size_t n = 0;
    for (unsigned k = 0; k < m->nb_rois; k++)
        for (size_t j = 0; j < m->indices[k].n; j++)
            if ((size_t)m->indices[k].u[j] + 1 > n)
                n = (size_t)m->indices[k].u[j] + 1;
    ST_TRY(st_array_resize(&m->output, ST_T_REALS, n, err));
    for (size_t i = 0; i < n; i++)
        m->output.r[i] = m->default_value;
    for (unsigned k = 0; k < m->nb_rois; k++)
        for (size_t j = 0; j < m->indices[k].n; j++)
            m->output.r[m->indices[k].u[j]] = m->value[k];
    return ST_OK;
}

static const st_engine_ops rvm_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = rvm_update,
};

const st_class roi_value_mapper_class = {
    .struct_size = sizeof(st_class),
    .name = "ROIValueMapper",
    .category = "Engine",
    .description = "Generate a list of values from value-indices pairs.",
    .instance_size = sizeof(roi_value_mapper),
    .fields = rvm_fields,
    .init = rvm_init,
    .reinit = rvm_init,
    .engine = &rvm_engine,
};
