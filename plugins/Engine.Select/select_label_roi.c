/* select_label_roi.c - SelectLabelROI: the indices of the points or cells
 * one of whose labels is in selectLabels, in increasing order, as SOFA's.
 * labels is a list of lists (SOFA's vector<svector<label>>), held flat as
 * settee holds them: for each point or cell, its number of labels then the
 * labels ("2 1 4  1 3": point 0 has labels 1 and 4, point 1 label 3). SOFA's
 * label types (unsigned int, the default, unsigned char, unsigned short,
 * int) are read as unsigned values. */
#include <stdlib.h>

#include "../shared/list_of_lists.h"

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
    size_t *start = NULL, cells = 0;
    ST_TRY(lol_starts(self, "labels", &e->labels, &start, &cells, err));
    st_status s = st_array_resize(&e->indices, ST_T_UINTS, cells, err);
    size_t m = 0;
    for (size_t i = 0; s == ST_OK && i < cells; i++) {
        const unsigned *l = e->labels.u + start[i];
        for (unsigned j = 0; j < l[0]; j++)
            if (selected(e, l[1 + j])) {
                e->indices.u[m++] = (unsigned)i;
                break;
            }
    }
    free(start);
    ST_TRY(s);
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
