/* merge_rois.c - MergeROIs: the lists indices1..indices<nbROIs> gathered in
 * one list of lists, roiIndices, as SOFA's (vector<svector<Index>>). settee
 * holds a list of lists flat, each list as its length then its entries
 * (docs/from-sofa.md), the layout SelectLabelROI's labels read.
 * nbROIs = 0 (SOFA's default) leaves the output as it was. SOFA creates the
 * indices<k> when it reads nbROIs; settee's field table is static: at most
 * 8 lists. */
#include <stdio.h>
#include <string.h>

#include "../shared/engine_util.h"

#define MR_MAX 8

typedef struct merge_rois {
    st_component base;
    unsigned nb_rois;
    st_array indices[MR_MAX]; /* uint[] each */
    st_array out;             /* output uint[], flat lists */
} merge_rois;

#define MR_IN(i) ST_UINTS(merge_rois, indices[i - 1], "indices" #i, NULL, "ROIs")

static const st_field merge_rois_fields[] = {
    ST_FIELD_EX(merge_rois, nb_rois, "nbROIs", ST_T_UINT, unsigned, "0",
                "size of indices/value vector (at most 8 in settee)", 0, NULL, 0, MR_MAX),
    MR_IN(1), MR_IN(2), MR_IN(3), MR_IN(4), MR_IN(5), MR_IN(6), MR_IN(7), MR_IN(8),
    ST_OUTPUT(merge_rois, out, "roiIndices", ST_T_UINTS, st_array,
              "Vector of ROIs (settee: flat, each ROI as its length then its indices)"),
    ST_FIELD_END};

static st_status merge_rois_init(st_component *self, st_error *err)
{
    (void)err;
    merge_rois *m = (merge_rois *)self;
    eng_warn_unused_inputs(self, "indices", m->nb_rois, MR_MAX, "nbROIs");
    return ST_OK;
}

static st_status merge_rois_update(st_component *self, st_error *err)
{
    merge_rois *m = (merge_rois *)self;
    if (m->nb_rois == 0)
        return ST_OK;
    size_t total = 0;
    for (unsigned k = 0; k < m->nb_rois; k++)
        total += 1 + m->indices[k].n;
    ST_TRY(st_array_resize(&m->out, ST_T_UINTS, total, err));
    size_t at = 0;
    for (unsigned k = 0; k < m->nb_rois; k++) {
        m->out.u[at++] = (unsigned)m->indices[k].n;
        if (m->indices[k].n)
            memcpy(m->out.u + at, m->indices[k].u, m->indices[k].n * sizeof(unsigned));
        at += m->indices[k].n;
    }
    return ST_OK;
}

static const st_engine_ops merge_rois_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = merge_rois_update,
};

const st_class merge_rois_class = {
    .struct_size = sizeof(st_class),
    .name = "MergeROIs",
    .category = "Engine",
    .description = "Merge a list of ROIs (vector<Indices>) into a single Data "
                   "(vector<svector<Indices>>).",
    .instance_size = sizeof(merge_rois),
    .fields = merge_rois_fields,
    .init = merge_rois_init,
    .reinit = merge_rois_init,
    .engine = &merge_rois_engine,
};
