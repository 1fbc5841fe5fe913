/* select_connected_labels_roi.c - SelectConnectedLabelsROI: the points or
 * cells i that carry, in two different label lists, two labels that
 * connectLabels pairs (in either order), in increasing order, as SOFA's.
 * Each of labels1..labels<nbLabels> is a list of lists (SOFA's
 * vector<svector<label>>), flat as settee holds them: for each point its
 * number of labels then the labels. Fewer than 2 lists: no indices (SOFA).
 * The points are those of labels1; a later list with fewer points, which
 * SOFA reads past its end, is an error here. SOFA creates labels<k> when
 * it reads nbLabels; settee's field table is static: at most 8 lists. */
#include <stdio.h>
#include <stdlib.h>

#include "../shared/engine_util.h"
#include "../shared/list_of_lists.h"

#define SCL_MAX 8

typedef struct select_connected_labels_roi {
    st_component base;
    char *template_name; /* "template" */
    unsigned nb_labels;
    st_array labels[SCL_MAX]; /* uint[] each, flat lists */
    st_array connect;         /* uint[], pairs */
    st_array indices;         /* output uint[] */
} select_connected_labels_roi;

#define SCL_IN(i)                                                                                 \
    ST_UINTS(select_connected_labels_roi, labels[i - 1], "labels" #i, NULL,                       \
             "lists of labels associated to each point/cell (settee: flat, each list as its "     \
             "length then its labels)")

static const st_field scl_fields[] = {
    ST_STRING(select_connected_labels_roi, template_name, "template", "unsigned int",
              "The label type: unsigned int (also unsigned char, unsigned short, int)"),
    ST_FIELD_EX(select_connected_labels_roi, nb_labels, "nbLabels", ST_T_UINT, unsigned, "0",
                "number of label lists (at most 8 in settee)", 0, NULL, 0, SCL_MAX),
    SCL_IN(1), SCL_IN(2), SCL_IN(3), SCL_IN(4), SCL_IN(5), SCL_IN(6), SCL_IN(7), SCL_IN(8),
    ST_UINTS(select_connected_labels_roi, connect, "connectLabels", NULL,
             "Pairs of label to be connected across different label lists"),
    ST_OUTPUT(select_connected_labels_roi, indices, "indices", ST_T_UINTS, st_array,
              "selected point/cell indices"),
    ST_FIELD_END};

static st_status scl_init(st_component *self, st_error *err)
{
    (void)err;
    select_connected_labels_roi *e = (select_connected_labels_roi *)self;
    eng_warn_unused_inputs(self, "labels", e->nb_labels, SCL_MAX, "nbLabels");
    return ST_OK;
}

static bool paired(const select_connected_labels_roi *e, unsigned a, unsigned b)
{
    for (size_t k = 0; k + 1 < e->connect.n; k += 2)
        if ((e->connect.u[k] == a && e->connect.u[k + 1] == b) ||
            (e->connect.u[k] == b && e->connect.u[k + 1] == a))
            return true;
    return false;
}

static st_status scl_update(st_component *self, st_error *err)
{
    select_connected_labels_roi *e = (select_connected_labels_roi *)self;
    ST_TRY(st_array_resize(&e->indices, ST_T_UINTS, 0, err));
    const unsigned nb = e->nb_labels;
    if (nb < 2)
        return ST_OK;
    size_t *start[SCL_MAX] = {0}, count[SCL_MAX] = {0};
    st_status s = ST_OK;
    for (unsigned l = 0; s == ST_OK && l < nb; l++) {
        char name[24];
        snprintf(name, sizeof name, "labels%u", l + 1);
        s = lol_starts(self, name, &e->labels[l], &start[l], &count[l], err);
        if (s == ST_OK && count[l] < count[0])
            s = st_component_error(self, "nbLabels", err, ST_ESCENE,
                                   "labels%u has %zu points, labels1 %zu: every list needs one "
                                   "entry per point",
                                   l + 1, count[l], count[0]);
    }
    size_t m = 0;
    if (s == ST_OK)
        s = st_array_resize(&e->indices, ST_T_UINTS, count[0], err);
    for (size_t i = 0; s == ST_OK && i < count[0]; i++) {
        bool connected = false;
        for (unsigned l1 = 0; l1 < nb && !connected; l1++) {
            const unsigned *a = e->labels[l1].u + start[l1][i];
            for (unsigned i1 = 0; i1 < a[0] && !connected; i1++)
                for (unsigned l2 = 0; l2 < nb && !connected; l2++) {
                    if (l1 == l2)
                        continue;
                    const unsigned *b = e->labels[l2].u + start[l2][i];
                    for (unsigned i2 = 0; i2 < b[0] && !connected; i2++)
                        connected = paired(e, a[1 + i1], b[1 + i2]);
                }
        }
        if (connected)
            e->indices.u[m++] = (unsigned)i;
    }
    for (unsigned l = 0; l < nb; l++)
        free(start[l]);
    ST_TRY(s);
    return st_array_resize(&e->indices, ST_T_UINTS, m, err);
}

static const st_engine_ops scl_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = scl_update,
};

const st_class select_connected_labels_roi_class = {
    .struct_size = sizeof(st_class),
    .name = "SelectConnectedLabelsROI",
    .category = "Engine",
    .description = "Select a subset of points or cells labeled from different sources, that are "
                   "connected given a list of connection pairs.",
    .instance_size = sizeof(select_connected_labels_roi),
    .fields = scl_fields,
    .init = scl_init,
    .reinit = scl_init,
    .engine = &scl_engine,
};
