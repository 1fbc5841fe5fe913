/* join_points.c - JoinPoints: merges points closer than distance. Taking
 * the points in order, the current point absorbs its nearest remaining
 * point strictly within distance (the first of equally near ones) into
 * their weighted mean, weights being the numbers of points merged, and
 * does so again until none is near; then the next point. No point: a
 * warning and no output (SOFA's error message). */
#include <math.h>

#include "../shared/engine_util.h"

typedef struct join_points {
    st_component base;
    st_array points;        /* vec3[] */
    double distance;
    st_array merged_points; /* output vec3[] */
} join_points;

static const st_field join_points_fields[] = {
    ST_VEC3S(join_points, points, "points", NULL, "Points"),
    ST_REAL(join_points, distance, "distance", "0", "Distance to merge points"),
    ST_OUTPUT(join_points, merged_points, "mergedPoints", ST_T_VEC3S, st_array, "Merged Points"),
    ST_FIELD_END};

static st_status join_points_update(st_component *self, st_error *err)
{
    join_points *j = (join_points *)self;
    size_t n = j->points.n;
    if (n < 1) {
        st_component_warn(self, "Error, no point defined");
        return ST_OK;
    }
    /* Work in the output: points and their weights, removed by compaction. */
    ST_TRY(st_array_resize(&j->merged_points, ST_T_VEC3S, n, err));
    double *p = j->merged_points.r;
    memcpy(p, j->points.r, 3 * n * sizeof(double));
    unsigned *w = st_calloc(n, sizeof *w);
    if (!w)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        w[i] = 1;
    size_t cur = 0;
    while (cur < n) {
        double best = 9999999.0; /* SOFA's starting minimum */
        size_t near = cur;
        for (size_t k = 0; k < n; k++) {
            if (k == cur)
                continue;
            double d[3] = {p[3 * cur] - p[3 * k], p[3 * cur + 1] - p[3 * k + 1],
                           p[3 * cur + 2] - p[3 * k + 2]};
            double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            if (dist < j->distance && best > dist) {
                best = dist;
                near = k;
            }
        }
        if (near == cur) {
            cur++;
            continue;
        }
        for (int c = 0; c < 3; c++)
            p[3 * cur + c] = (p[3 * cur + c] * w[cur] + p[3 * near + c] * w[near]) /
                             (double)(w[cur] + w[near]);
        w[cur] += w[near];
        memmove(p + 3 * near, p + 3 * (near + 1), 3 * (n - near - 1) * sizeof(double));
        memmove(w + near, w + near + 1, (n - near - 1) * sizeof *w);
        n--;
        if (near < cur)
            cur--;
    }
    st_free(w);
    j->merged_points.n = n;
    return ST_OK;
}

static const st_engine_ops join_points_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = join_points_update,
};

const st_class join_points_class = {
    .struct_size = sizeof(st_class),
    .name = "JoinPoints",
    .category = "Engine",
    .description = "Merge points from a set of points within a given distance.",
    .instance_size = sizeof(join_points),
    .fields = join_points_fields,
    .engine = &join_points_engine,
};
