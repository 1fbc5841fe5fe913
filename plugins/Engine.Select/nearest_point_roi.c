/* nearest_point_roi.c - NearestPointROI: pairs each point of object2
 * (inputIndices2, all when empty) with the nearest point of object1
 * (inputIndices1, all when empty; the first of equals) when they are closer
 * than radius: indices1 and indices2 the pairs, edges (2 i2, 2 i2 + 1),
 * indexPairs (0 i1 1 i2 per pair, for SubsetMultiMapping) and distances.
 * The positions are the states' rest positions with useRestPosition (the
 * default), else their positions, followed as they change. A radius <= 0
 * or a missing state: SOFA's error message, as a warning, and empty
 * outputs (SOFA leaves the component invalid); an input index beyond its
 * state is an error (SOFA reads out of bounds). The empty input lists are filled with all indices, as
 * SOFA writes them back. */
#include <math.h>

#include "../shared/engine_util.h"

typedef struct nearest_point_roi {
    st_component base;
    st_component *object1, *object2;
    st_array in1, in2;     /* inputIndices1, inputIndices2 */
    double radius;
    bool use_rest;
    st_array idx1, idx2, edges, pairs, distances; /* outputs */
    st_array x1, x2;       /* hidden: the states' positions, linked */
    bool linked, warned;
} nearest_point_roi;

static const st_field nearest_point_roi_fields[] = {
    ST_LINK(nearest_point_roi, object1, "object1", ST_LINK_STATE, "First object to interact with"),
    ST_LINK(nearest_point_roi, object2, "object2", ST_LINK_STATE,
            "Second object to interact with"),
    ST_UINTS(nearest_point_roi, in1, "inputIndices1", NULL,
             "Indices of the points to consider on the first model"),
    ST_UINTS(nearest_point_roi, in2, "inputIndices2", NULL,
             "Indices of the points to consider on the first model"),
    ST_REAL(nearest_point_roi, radius, "radius", "1", "Radius to search corresponding fixed point"),
    ST_BOOL(nearest_point_roi, use_rest, "useRestPosition", "true",
            "If true will use restPosition only at init"),
    ST_OUTPUT(nearest_point_roi, idx1, "indices1", ST_T_UINTS, st_array,
              "Indices from the first model associated to a dof from the second model"),
    ST_OUTPUT(nearest_point_roi, idx2, "indices2", ST_T_UINTS, st_array,
              "Indices from the second model associated to a dof from the first model"),
    ST_OUTPUT(nearest_point_roi, edges, "edges", ST_T_EDGES, st_array, "List of edge indices"),
    ST_OUTPUT(nearest_point_roi, pairs, "indexPairs", ST_T_UINTS, st_array,
              "list of couples (parent index + index in the parent)"),
    ST_OUTPUT(nearest_point_roi, distances, "distances", ST_T_REALS, st_array,
              "List of distances between pairs of points"),
    ST_FIELD_EX(nearest_point_roi, x1, "x1", ST_T_COORDS, st_array, NULL,
                "positions of object1 (linked at the first update)", ST_F_HIDDEN, NULL, 0.0, 0.0),
    ST_FIELD_EX(nearest_point_roi, x2, "x2", ST_T_COORDS, st_array, NULL,
                "positions of object2 (linked at the first update)", ST_F_HIDDEN, NULL, 0.0, 0.0),
    ST_FIELD_END};

static st_status fill_all(st_array *a, size_t n, st_error *err)
{
    ST_TRY(st_array_resize(a, ST_T_UINTS, n, err));
    for (size_t i = 0; i < n; i++)
        a->u[i] = (unsigned)i;
    return ST_OK;
}

static st_status nearest_point_roi_update(st_component *self, st_error *err)
{
    nearest_point_roi *e = (nearest_point_roi *)self;
    if (!e->object1 || !e->object2 || !(e->radius > 0)) {
        if (!e->warned)
            st_component_warn(self, "%s (SOFA's error: the outputs stay empty)",
                              e->radius > 0 ? "2 valid mechanicalobjects are required."
                                            : "Radius must be a positive real.");
        e->warned = true;
        return ST_OK;
    }
    if (!e->linked) {
        e->linked = true;
        const char *f = e->use_rest ? "rest_position" : "position";
        ST_TRY(eng_link(self, "x1", e->object1, f, err));
        ST_TRY(eng_link(self, "x2", e->object2, f, err));
        ST_TRY(st_component_update_inputs(self, err));
    }
    const unsigned cw = eng_coord_size(self), sp = eng_spatial_size(self);
    const st_array *x1 = &e->x1, *x2 = &e->x2;
    eng_clear(&e->idx1), eng_clear(&e->idx2), eng_clear(&e->edges), eng_clear(&e->pairs);
    eng_clear(&e->distances);
    if (x1->n == 0 || x2->n == 0)
        return ST_OK;
    if (e->in1.n == 0)
        ST_TRY(fill_all(&e->in1, x1->n, err));
    if (e->in2.n == 0)
        ST_TRY(fill_all(&e->in2, x2->n, err));
    for (int k = 0; k < 2; k++) {
        const st_array *in = k ? &e->in2 : &e->in1;
        const size_t n = k ? x2->n : x1->n;
        for (size_t i = 0; i < in->n; i++)
            if (in->u[i] >= n)
                return st_component_error(self, k ? "inputIndices2" : "inputIndices1", err,
                                          ST_EINVAL, "index %u beyond the %zu points of '%s'",
                                          in->u[i], n, (k ? e->object2 : e->object1)->name);
    }
    const double r2 = e->radius * e->radius;
    for (size_t j = 0; j < e->in2.n; j++) {
        const unsigned i2 = e->in2.u[j];
        const double *p2 = x2->r + (size_t)cw * i2;
        unsigned best = e->in1.u[0];
        double bd = 0;
        for (size_t i = 0; i < e->in1.n; i++) {
            const double *p1 = x1->r + (size_t)cw * e->in1.u[i];
            double d = 0;
            for (unsigned c = 0; c < sp; c++)
                d += (p2[c] - p1[c]) * (p2[c] - p1[c]);
            if (i == 0 || d < bd)
                bd = d, best = e->in1.u[i];
        }
        if (!(bd < r2))
            continue;
        ST_TRY(eng_push_index(&e->idx1, best, err));
        ST_TRY(eng_push_index(&e->idx2, i2, err));
        const unsigned ed[2] = {2 * i2, 2 * i2 + 1};
        ST_TRY(eng_push_u(&e->edges, ST_T_EDGES, ed, err));
        const unsigned pr[4] = {0, best, 1, i2};
        for (int k = 0; k < 4; k++)
            ST_TRY(eng_push_index(&e->pairs, pr[k], err));
        const double d = sqrt(bd);
        ST_TRY(eng_push_r(&e->distances, 1, &d, err));
    }
    return ST_OK;
}

static const st_engine_ops nearest_point_roi_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = nearest_point_roi_update,
};

static const char *const nearest_point_roi_templates[] = {"Vec3d", "Vec2d", "Vec1d", "Rigid3d",
                                                          NULL};

const st_class nearest_point_roi_class = {
    .struct_size = sizeof(st_class),
    .name = "NearestPointROI",
    .category = "Engine",
    .description = "Attach given pair of particles, projecting the positions of the second "
                   "particles to the first ones.",
    .instance_size = sizeof(nearest_point_roi),
    .fields = nearest_point_roi_fields,
    .engine = &nearest_point_roi_engine,
    .templates = nearest_point_roi_templates,
};
