/* pair_box_roi.c - PairBoxROI: the points of the rest positions that lie
 * inside an inclusive box and outside an included box (both closed, given
 * as xmin ymin zmin xmax ymax zmax, reversed bounds swapped). While either
 * box is all zeros nothing is computed (the outputs keep their values), as
 * in SOFA. */
#include "../shared/engine_util.h"

typedef struct pair_box_roi {
    st_component base;
    st_array inclusive_box; /* "inclusiveBox": 6 reals */
    st_array included_box;  /* "includedBox": 6 reals */
    st_array position;      /* coord[]: rest positions */
    st_array mesh_position; /* "meshPosition" (kept, unused by the selection, as in SOFA) */
    st_array indices;       /* output */
    st_array points_in_roi; /* output, coord[] */
    bool draw_inclusive, draw_included, draw_points;
    double draw_size;
    bool linked; /* default links made (at the first update) */
} pair_box_roi;

static const st_field pair_box_roi_fields[] = {
    ST_REALS_N(pair_box_roi, inclusive_box, "inclusiveBox", "0 0 0 0 0 0",
               "Inclusive box defined by xmin,ymin,zmin, xmax,ymax,zmax", 6),
    ST_REALS_N(pair_box_roi, included_box, "includedBox", "0 0 0 0 0 0",
               "Included box defined by xmin,ymin,zmin, xmax,ymax,zmax", 6),
    ST_FIELD_EX(pair_box_roi, position, "position", ST_T_COORDS, st_array, NULL,
                "Rest position coordinates of the degrees of freedom (default: the node's "
                "MechanicalObject rest_position, else a loader's position)",
                0, "rest_position", 0.0, 0.0),
    ST_COORDS(pair_box_roi, mesh_position, "meshPosition", NULL, "Vertices of the mesh loaded"),
    ST_OUTPUT(pair_box_roi, indices, "indices", ST_T_UINTS, st_array,
              "Indices of the points contained in the ROI"),
    ST_FIELD_EX(pair_box_roi, points_in_roi, "pointsInROI", ST_T_COORDS, st_array, NULL,
                "Points contained in the ROI", ST_F_OUTPUT, "pointsInBox", 0.0, 0.0),
    ST_IGNORED(pair_box_roi, draw_inclusive, "drawInclusiveBox", ST_T_BOOL, bool, "false",
               "Draw Inclusive Box"),
    ST_IGNORED(pair_box_roi, draw_included, "drawIncludedBox", ST_T_BOOL, bool, "false",
               "Draw Included Box"),
    ST_IGNORED(pair_box_roi, draw_points, "drawPoints", ST_T_BOOL, bool, "false", "Draw Points"),
    ST_IGNORED(pair_box_roi, draw_size, "drawSize", ST_T_REAL, double, "0", "Draw Size"),
    ST_FIELD_END};

/* SOFA's init: links the inputs the scene left unset. Links made during
 * init resolve only after it, so this runs at the first update. */
static st_status pair_box_roi_init_links(st_component *self, st_error *err)
{
    if (st_component_is_set(self, "position"))
        return ST_OK;
    /* SOFA: the node's state, else the node's loader, else a state above. */
    st_component *ms = eng_local(self, ST_ROLE_STATE);
    if (ms)
        return eng_link(self, "position", ms, "rest_position", err);
    st_component *loader = eng_local_loader(self);
    if (loader)
        return eng_link(self, "position", loader, "position", err);
    ms = (st_component *)st_component_mstate(self);
    if (!ms)
        return st_component_error(self, "position", err, ST_ESCENE,
                                  "no position given and no MechanicalObject or mesh loader in "
                                  "this node or above: set position");
    return eng_link(self, "position", ms, "rest_position", err);
}

static bool zero6(const double *b)
{
    for (int k = 0; k < 6; k++)
        if (b[k] != 0.0)
            return false;
    return true;
}

static void order6(double *b)
{
    for (int k = 0; k < 3; k++)
        if (b[k] > b[k + 3]) {
            double t = b[k];
            b[k] = b[k + 3];
            b[k + 3] = t;
        }
}

static bool in_box(const double *p, unsigned sp, const double *b)
{
    for (unsigned k = 0; k < 3; k++) {
        double v = k < sp ? p[k] : 0.0;
        if (!(v >= b[k] && v <= b[k + 3]))
            return false;
    }
    return true;
}

static st_status pair_box_roi_update(st_component *self, st_error *err)
{
    if (!((pair_box_roi *)self)->linked) {
        ((pair_box_roi *)self)->linked = true;
        ST_TRY(pair_box_roi_init_links(self, err));
        ST_TRY(st_component_update_inputs(self, err));
    }
    pair_box_roi *r = (pair_box_roi *)self;
    double *outer = r->inclusive_box.r, *inner = r->included_box.r;
    if (zero6(outer) || zero6(inner))
        return ST_OK;
    order6(outer);
    order6(inner);
    unsigned cw = eng_coord_size(self), sp = eng_spatial_size(self);
    eng_clear(&r->indices);
    eng_clear(&r->points_in_roi);
    for (size_t i = 0; i < r->position.n; i++) {
        const double *p = r->position.r + (size_t)cw * i;
        if (in_box(p, sp, outer) && !in_box(p, sp, inner)) {
            ST_TRY(eng_push_index(&r->indices, (unsigned)i, err));
            ST_TRY(eng_push_r(&r->points_in_roi, cw, p, err));
        }
    }
    return ST_OK;
}

static const st_engine_ops pair_box_roi_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = pair_box_roi_update,
};

static const char *const pair_box_roi_templates[] = {"Vec3d", "Rigid3d", NULL};

const st_class pair_box_roi_class = {
    .struct_size = sizeof(st_class),
    .name = "PairBoxROI",
    .category = "Engine",
    .description = "Find the primitives inside a given box, but outside a second box included in "
                   "the first",
    .instance_size = sizeof(pair_box_roi),
    .fields = pair_box_roi_fields,
    .engine = &pair_box_roi_engine,
    .templates = pair_box_roi_templates,
};
