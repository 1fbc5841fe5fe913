/* select_label_roi.c - SelectLabelROI: the indices of the points or cells
 * one of whose labels is in selectLabels, in increasing order, as SOFA's.
 * labels is a list of lists (SOFA's vector<svector<label>>), held flat as
 * settee holds them: for each point or cell, its number of labels then the
 * labels ("2 1 4  1 3": point 0 has labels 1 and 4, point 1 label 3). SOFA's
 * label types (unsigned int, the default, unsigned char, unsigned short,
 * int) are read as unsigned values. */
#include <stdlib.h>

#include <settee/settee.h>

typedef struct select_label_roi {
    st_component base;
    char *template_name; /* "template" */
    st_array labels;     /* uint[], flat lists */
    st_array select;     /* uint[] */
    st_array indices;    /* output uint[] */
} select_label_roi;

static const st_field slr_fields[] = {
    ST_STRING(select_label_roi, template_name, "template", "unsigned int",
              "The label type: unsigned int (also unsigned char, unsigned short, int)"),
    ST_UINTS(select_label_roi, labels, "labels",
             NULL, "lists of labels associated to each point/cell (settee: flat, each list as "
                   "its length then its labels)"),
    ST_UINTS(select_label_roi, select, "selectLabels", NULL, "list of selected labels"),
    ST_OUTPUT(select_label_roi, indices, "indices", ST_T_UINTS, st_array,
              "selected point/cell indices"),
    ST_FIELD_END};

static bool selected(const select_label_roi *e, unsigned v)
{
    for (size_t k = 0; k < e->select.n; k++)
        if (e->select.u[k] == v)
            return true;
    return false;
}

static st_status slr_update(st_component *self, st_error *err)
{
    select_label_roi *e = (select_label_roi *)self;
    size_t cells = 0, at = 0, last = 0;
    while (at < e->labels.n) {
        last = at;
        at += 1 + (size_t)e->labels.u[at];
        cells++;
    }
    if (at != e->labels.n)
        return st_component_error(self, "labels", err, ST_ESCENE,
                                  "list %zu announces %u labels but only %zu follow (each list "
                                  "is its length then its labels)",
                                  cells - 1, e->labels.u[last], e->labels.n - last - 1);
    ST_TRY(st_array_resize(&e->indices, ST_T_UINTS, cells, err));
    size_t m = 0;
    at = 0;
    for (size_t i = 0; i < cells; i++) {
        unsigned len = e->labels.u[at];
        for (unsigned j = 0; j < len; j++)
            if (selected(e, e->labels.u[at + 1 + j])) {
                e->indices.u[m++] = (unsigned)i;
                break;
            }
        at += 1 + len;
    }
    return st_array_resize(&e->indices, ST_T_UINTS, m, err);
}

static const st_engine_ops slr_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = slr_update,
};

const st_class select_label_roi_class = {
    .struct_size = sizeof(st_class),
    .name = "SelectLabelROI",
    .category = "Engine",
    .description = "Select a subset of labeled points or cells stored in "
                   "(vector<svector<label>>) given certain labels.",
    .instance_size = sizeof(select_label_roi),
    .fields = slr_fields,
    .engine = &slr_engine,
};
