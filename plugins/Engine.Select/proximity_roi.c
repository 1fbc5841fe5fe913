/* proximity_roi.c - ProximityROI: at most N points of `position` (rest
 * positions by default) closer than a sphere's radius to its centre,
 * nearest first in priority. SOFA keeps the candidates in a max-heap by
 * distance (libstdc++'s push_heap / pop_heap, reproduced here) and writes
 * them in the heap's array order; when a nearer point evicts the farthest,
 * the index SOFA records in indicesOut is the heap's new top (it reads the
 * evicted entry through a reference that pop_heap moved): kept, to give
 * SOFA's lists. A centre without a radius takes the last radius. No
 * centres, no radii or N = 0 (SOFA's default) leave the outputs as they
 * are (indices starts as "0", as SOFA's), with a warning for the last
 * two. */
#include <float.h>
#include <math.h>

#include "../shared/engine_util.h"

typedef struct proximity_roi {
    st_component base;
    st_array centers;  /* vec3[] */
    st_array radii;    /* real[] */
    unsigned n;        /* "N" */
    st_array position; /* coord[] */
    st_array indices, points_in_roi, distance, indices_out; /* outputs */
    bool draw_sphere, draw_points;
    double draw_size;
    bool linked;
} proximity_roi;

static const st_field proximity_roi_fields[] = {
    ST_VEC3S(proximity_roi, centers, "centers", NULL, "Center(s) of the sphere(s)"),
    ST_REALS(proximity_roi, radii, "radii", NULL, "Radius(i) of the sphere(s)"),
    ST_UINT(proximity_roi, n, "N", "0", "Maximum number of points to select"),
    ST_FIELD_EX(proximity_roi, position, "position", ST_T_COORDS, st_array, NULL,
                "Rest position coordinates of the degrees of freedom", 0, "rest_position", 0.0,
                0.0),
    ST_FIELD_EX(proximity_roi, indices, "indices", ST_T_UINTS, st_array, NULL,
                "Indices of the points contained in the ROI", ST_F_OUTPUT, "pointIndices", 0.0,
                0.0),
    ST_OUTPUT(proximity_roi, points_in_roi, "pointsInROI", ST_T_COORDS, st_array,
              "Points contained in the ROI"),
    ST_OUTPUT(proximity_roi, distance, "distance", ST_T_REALS, st_array,
              "distance between the points contained in the ROI and the closest center."),
    ST_OUTPUT(proximity_roi, indices_out, "indicesOut", ST_T_UINTS, st_array,
              "Indices of the points not contained in the ROI"),
    ST_FIELD_EX(proximity_roi, draw_sphere, "drawSphere", ST_T_BOOL, bool, "false",
                "Draw sphere(s)", ST_F_IGNORED, "isVisible", 0.0, 0.0),
    ST_IGNORED(proximity_roi, draw_points, "drawPoints", ST_T_BOOL, bool, "false", "Draw Points"),
    ST_IGNORED(proximity_roi, draw_size, "drawSize", ST_T_REAL, double, "1",
               "rendering size for box and topological elements"),
    ST_FIELD_END};

typedef struct cand {
    double d;
    unsigned i;
} cand;

/* libstdc++'s __push_heap: the hole at `hole` rises while its parent is
 * smaller than v. */
static void heap_sift_up(cand *h, size_t hole, size_t top, cand v)
{
    while (hole > top) {
        size_t parent = (hole - 1) / 2;
        if (!(h[parent].d < v.d))
            break;
        h[hole] = h[parent];
        hole = parent;
    }
    h[hole] = v;
}

/* std::push_heap on h[0, len) (the new value at h[len - 1]). */
static void heap_push(cand *h, size_t len)
{
    heap_sift_up(h, len - 1, 0, h[len - 1]);
}

/* std::pop_heap on h[0, len): the top goes to h[len - 1]. */
static void heap_pop(cand *h, size_t len)
{
    if (len < 2)
        return;
    cand v = h[len - 1];
    h[len - 1] = h[0];
    size_t n = len - 1, hole = 0, child = 0;
    while (n >= 2 && child < (n - 1) / 2) {
        child = 2 * (child + 1);
        if (h[child].d < h[child - 1].d)
            child--;
        h[hole] = h[child];
        hole = child;
    }
    if ((n & 1) == 0 && n >= 2 && child == (n - 2) / 2) {
        child = 2 * (child + 1);
        h[hole] = h[child - 1];
        hole = child - 1;
    }
    heap_sift_up(h, hole, 0, v);
}

static st_status proximity_roi_create(st_component *self, st_error *err)
{
    proximity_roi *r = (proximity_roi *)self;
    ST_TRY(st_array_resize(&r->indices, ST_T_UINTS, 1, err));
    r->indices.u[0] = 0;
    return ST_OK;
}

static st_status proximity_roi_update(st_component *self, st_error *err)
{
    proximity_roi *r = (proximity_roi *)self;
    if (!r->linked) {
        r->linked = true;
        if (!st_component_is_set(self, "position")) {
            st_component *ms = (st_component *)st_component_mstate(self);
            st_component *loader = ms ? NULL : eng_local_loader(self);
            if (ms)
                ST_TRY(eng_link(self, "position", ms, "rest_position", err));
            else if (loader)
                ST_TRY(eng_link(self, "position", loader, "position", err));
            ST_TRY(st_component_update_inputs(self, err));
        }
    }
    size_t nc = r->centers.n, nr = r->radii.n;
    if (!nc)
        return ST_OK;
    if (!nr) {
        st_component_warn(self, "The parameter 'Radius' must at least contains one value. This "
                                "ROI is then disabled/useless.");
        return ST_OK;
    }
    if (r->n == 0) {
        st_component_warn(self, "The parameter 'N' must have a value greater than zero. This "
                                "ROI is then disabled/useless.");
        return ST_OK;
    }
    if (nc < nr)
        st_component_warn(self, "There parameter 'Radius' has more elements than parameters "
                                "'center'.");
    size_t np = r->position.n;
    cand *h = st_calloc(np + 1, sizeof *h);
    if (!h)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    eng_clear(&r->indices);
    eng_clear(&r->indices_out);
    eng_clear(&r->points_in_roi);
    eng_clear(&r->distance);
    st_status st = ST_OK;
    size_t len = 0;
    const double *x = r->position.r;
    for (size_t i = 0; i < np && st == ST_OK; i++) {
        double mind = DBL_MAX;
        for (size_t j = 0; j < nc; j++) {
            const double *c = r->centers.r + 3 * j, *p = x + 3 * i;
            double rad = r->radii.r[j < nr ? j : nr - 1];
            double d = sqrt((c[0] - p[0]) * (c[0] - p[0]) + (c[1] - p[1]) * (c[1] - p[1]) +
                            (c[2] - p[2]) * (c[2] - p[2]));
            if (d < rad && mind > d)
                mind = d;
        }
        cand c = {mind, (unsigned)i};
        if (mind == DBL_MAX) {
            st = eng_push_index(&r->indices_out, (unsigned)i, err);
        } else if (len == 0) {
            h[len++] = c;
            heap_push(h, len);
        } else if (h[0].d >= mind) {
            if (len >= r->n) {
                heap_pop(h, len);
                len--;
                /* SOFA's dangling reference: the new top, or the evicted
                 * entry when the heap emptied */
                st = eng_push_index(&r->indices_out, len ? h[0].i : h[len].i, err);
            }
            h[len++] = c;
            heap_push(h, len);
        } else if (len < r->n) {
            h[len++] = c;
            heap_push(h, len);
        } else {
            st = eng_push_index(&r->indices_out, (unsigned)i, err);
        }
    }
    for (size_t k = 0; k < len && st == ST_OK; k++) {
        st = eng_push_index(&r->indices, h[k].i, err);
        if (st == ST_OK)
            st = eng_push_r(&r->distance, 1, &h[k].d, err);
        if (st == ST_OK)
            st = eng_push_r(&r->points_in_roi, 3, x + 3 * (size_t)h[k].i, err);
    }
    st_free(h);
    return st;
}

static const st_engine_ops proximity_roi_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = proximity_roi_update,
};

static const char *const proximity_roi_templates[] = {"Vec3d", NULL};

const st_class proximity_roi_class = {
    .struct_size = sizeof(st_class),
    .name = "ProximityROI",
    .category = "Engine",
    .description = "Find the N closest primitives from a given position",
    .instance_size = sizeof(proximity_roi),
    .fields = proximity_roi_fields,
    .create = proximity_roi_create,
    .engine = &proximity_roi_engine,
    .templates = proximity_roi_templates,
};
