/* merge_points.c - MergePoints: position1 followed by position2 (indices1
 * and indices2 say where each went); or, when mappingX2 is given, position1
 * with position2[i] written over point mappingX2[i] (indices2: the
 * overwritten points, indices1: the others). With noUpdate the output is
 * computed once. A mapping entry beyond position1, or more mapping entries
 * than points in position2, is an error (SOFA logs the first and reads out
 * of bounds on the second). */
#include <stdlib.h>

#include "../shared/engine_util.h"

typedef struct merge_points {
    st_component base;
    st_array x1, x2;       /* coord[] */
    st_array mapping;      /* "mappingX2" */
    st_array indices1, indices2, points; /* outputs */
    bool no_update;
    bool done;
} merge_points;

static const st_field merge_points_fields[] = {
    ST_COORDS(merge_points, x1, "position1",
              NULL, "position coordinates of the degrees of freedom of the first object"),
    ST_COORDS(merge_points, x2, "position2", NULL,
              "Rest position coordinates of the degrees of freedom of the second object"),
    ST_UINTS(merge_points, mapping, "mappingX2", NULL,
             "Mapping of indices to inject position2 inside position1 vertex buffer"),
    ST_OUTPUT(merge_points, indices1, "indices1", ST_T_UINTS, st_array,
              "Indices of the points of the first object"),
    ST_OUTPUT(merge_points, indices2, "indices2", ST_T_UINTS, st_array,
              "Indices of the points of the second object"),
    ST_OUTPUT(merge_points, points, "points", ST_T_COORDS, st_array,
              "position coordinates resulting from the merge"),
    ST_BOOL(merge_points, no_update, "noUpdate", "false",
            "do not update the output at each time step (false)"),
    ST_FIELD_END};

static int cmp_u(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

static st_status inject(merge_points *m, unsigned cw, st_error *err)
{
    st_component *self = &m->base;
    size_t n = m->x1.n, nm = m->mapping.n;
    if (nm > m->x2.n)
        return st_component_error(self, "mappingX2", err, ST_EINVAL,
                                  "%zu mapping entries for %zu points in position2", nm, m->x2.n);
    ST_TRY(st_array_resize_width(&m->points, cw, n, err));
    if (n)
        memcpy(m->points.r, m->x1.r, n * cw * sizeof(double));
    for (size_t i = 0; i < nm; i++) {
        unsigned at = m->mapping.u[i];
        if (at >= n)
            return st_component_error(self, "mappingX2", err, ST_EINVAL,
                                      "Error Trying to insert vertex from mapping at pos: %u which "
                                      "is out of bounds of X1 (%zu points).",
                                      at, n);
        memcpy(m->points.r + (size_t)cw * at, m->x2.r + (size_t)cw * i, cw * sizeof(double));
    }
    unsigned *sorted = st_calloc(nm, sizeof *sorted);
    if (!sorted)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    memcpy(sorted, m->mapping.u, nm * sizeof *sorted);
    qsort(sorted, nm, sizeof *sorted, cmp_u);
    st_status st = ST_OK;
    size_t j = 0;
    for (size_t i = 0; st == ST_OK && i < n; i++) {
        if (j < nm && sorted[j] == i) {
            st = eng_push_index(&m->indices2, (unsigned)i, err);
            j++;
        } else {
            st = eng_push_index(&m->indices1, (unsigned)i, err);
        }
    }
    st_free(sorted);
    return st;
}

static st_status merge_points_update(st_component *self, st_error *err)
{
    merge_points *m = (merge_points *)self;
    if (m->no_update && m->done)
        return ST_OK;
    unsigned cw = eng_coord_size(self);
    eng_clear(&m->indices1);
    eng_clear(&m->indices2);
    eng_clear(&m->points);
    if (st_component_is_set(self, "mappingX2") && m->mapping.n) {
        ST_TRY(inject(m, cw, err));
    } else {
        for (size_t i = 0; i < m->x1.n; i++) {
            ST_TRY(eng_push_r(&m->points, cw, m->x1.r + (size_t)cw * i, err));
            ST_TRY(eng_push_index(&m->indices1, (unsigned)i, err));
        }
        for (size_t i = 0; i < m->x2.n; i++) {
            ST_TRY(eng_push_r(&m->points, cw, m->x2.r + (size_t)cw * i, err));
            ST_TRY(eng_push_index(&m->indices2, (unsigned)(m->x1.n + i), err));
        }
    }
    m->done = true;
    return ST_OK;
}

static const st_engine_ops merge_points_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = merge_points_update,
};

static const char *const merge_points_templates[] = {"Vec3d", "Vec1d", "Vec2d", "Rigid3d", NULL};

const st_class merge_points_class = {
    .struct_size = sizeof(st_class),
    .name = "MergePoints",
    .category = "Engine",
    .description = "Merge 2 coordinate vectors.",
    .instance_size = sizeof(merge_points),
    .fields = merge_points_fields,
    .engine = &merge_points_engine,
    .templates = merge_points_templates,
};
