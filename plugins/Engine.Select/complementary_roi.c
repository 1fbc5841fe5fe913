/* complementary_roi.c - ComplementaryROI: the indices of position that are
 * in none of the sets setIndices1..setIndices<nbSet>, in increasing order,
 * and their points, as SOFA's. An index of a set that is not a point, or
 * that an earlier set already removed, is SOFA's error message (here a
 * warning: SOFA goes on too). SOFA creates the setIndices<k> when it reads
 * nbSet; settee's field table is static: at most 8 sets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../shared/engine_util.h"

#define CR_MAX 8

typedef struct complementary_roi {
    st_component base;
    st_array position; /* coord[] */
    unsigned nb_set;
    st_array set[CR_MAX]; /* uint[] each */
    st_array indices;     /* output uint[] */
    st_array points;      /* output coord[] */
} complementary_roi;

#define CR_SET(i) ST_UINTS(complementary_roi, set[i - 1], "setIndices" #i, NULL, "particles indices in the set")

static const st_field cr_fields[] = {
    ST_COORDS(complementary_roi, position, "position", NULL, "input positions"),
    ST_FIELD_EX(complementary_roi, nb_set, "nbSet", ST_T_UINT, unsigned, "0",
                "number of sets to complement (at most 8 in settee)", 0, NULL, 0, CR_MAX),
    CR_SET(1), CR_SET(2), CR_SET(3), CR_SET(4), CR_SET(5), CR_SET(6), CR_SET(7), CR_SET(8),
    ST_OUTPUT(complementary_roi, indices, "indices", ST_T_UINTS, st_array,
              "indices of the point in the ROI"),
    ST_OUTPUT(complementary_roi, points, "pointsInROI", ST_T_COORDS, st_array,
              "points in the ROI"),
    ST_FIELD_END};

static st_status cr_init(st_component *self, st_error *err)
{
    (void)err;
    complementary_roi *c = (complementary_roi *)self;
    eng_warn_unused_inputs(self, "setIndices", c->nb_set, CR_MAX, "nbSet");
    return ST_OK;
}

static st_status cr_update(st_component *self, st_error *err)
{
    complementary_roi *c = (complementary_roi *)self;
    const st_state_type *ty = st_component_state_type(self);
    const unsigned w = ty ? ty->coord_size : 3;
    const size_t n = c->position.n;
    bool *in = calloc(n + 1, sizeof *in);
    if (!in)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu points", n);
    for (size_t i = 0; i < n; i++)
        in[i] = true;
    for (unsigned k = 0; k < c->nb_set; k++)
        for (size_t j = 0; j < c->set[k].n; j++) {
            unsigned v = c->set[k].u[j];
            if (v < n && in[v])
                in[v] = false;
            else
                st_component_warn(self, "index %u does not exist", v);
        }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        m += in[i];
    st_status s = st_array_resize(&c->indices, ST_T_UINTS, m, err);
    if (s == ST_OK)
        s = st_array_resize_width(&c->points, w, m, err);
    for (size_t i = 0, at = 0; s == ST_OK && i < n; i++)
        if (in[i]) {
            c->indices.u[at] = (unsigned)i;
            memcpy(c->points.r + (size_t)w * at, c->position.r + (size_t)w * i, w * sizeof(double));
            at++;
        }
    free(in);
    return s;
}

static const st_engine_ops cr_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = cr_update,
};

static const char *const cr_templates[] = {"Vec3d", NULL};

const st_class complementary_roi_class = {
    .struct_size = sizeof(st_class),
    .name = "ComplementaryROI",
    .category = "Engine",
    .description = "Find the points that are NOT in the input sets.",
    .instance_size = sizeof(complementary_roi),
    .fields = cr_fields,
    .init = cr_init,
    .reinit = cr_init,
    .engine = &cr_engine,
    .templates = cr_templates,
};
