/* box_roi.c - BoxROI: the points (and edges, triangles, quads, tetrahedra,
 * hexahedra) inside one or several boxes, bounds inclusive, tested on the
 * rest positions. An engine: outputs recompute when an input changes. */
#include <math.h>
#include <string.h>

#include "roi_fields.h"

static const st_field box_roi_fields[] = {
    ST_REALS(roi, box, "box", NULL,
             "List of boxes, each defined by two 3D points: xmin ymin zmin xmax ymax zmax "
             "(default when neither box nor orientedBox is given: 0 0 0 1 1 1)"),
    ST_REALS(roi, oriented_box, "orientedBox", NULL,
             "List of boxes defined by 3 points (p0, p1, p2) and a depth distance: a "
             "parallelogram p0 p1 p2 p3 = p0 + (p2 - p1) extruded by +-depth/2 along its normal"),
    ROI_INPUTS(NULL),
    ROI_OUTPUTS(NULL),
    ROI_DRAW("drawBoxes"),
    ST_FIELD_END};

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Inside an axis-aligned box on the first sp axes (SOFA: the state type's
 * spatial dimensions; Vec1d and Vec2d ignore the box's other bounds). */
static bool in_aligned(const double *b, const double *p, unsigned sp)
{
    for (unsigned a = 0; a < sp; a++)
        if (!(p[a] >= b[a] && p[a] <= b[a + 3]))
            return false;
    return true;
}

/* Oriented box: p0, p1, p2 span a parallelogram (edges p1 - p0 and p2 - p1),
 * extruded by depth/2 on both sides along the normal. */
static bool in_oriented(const double *ob, const double *p)
{
    const double *p0 = ob, *p1 = ob + 3, *p2 = ob + 6;
    double depth = ob[9];
    double a[3], b[3], n[3], q[3];
    for (int i = 0; i < 3; i++) {
        a[i] = p1[i] - p0[i];
        b[i] = p2[i] - p1[i];
        q[i] = p[i] - p0[i];
    }
    n[0] = a[1] * b[2] - a[2] * b[1];
    n[1] = a[2] * b[0] - a[0] * b[2];
    n[2] = a[0] * b[1] - a[1] * b[0];
    double nn = sqrt(dot3(n, n));
    if (nn == 0.0)
        return false;
    for (int i = 0; i < 3; i++)
        n[i] /= nn;
    if (fabs(dot3(q, n)) > depth / 2)
        return false;
    /* Solve q = s a + t b in the plane (Gram system). */
    double aa = dot3(a, a), ab = dot3(a, b), bb = dot3(b, b);
    double qa = dot3(q, a), qb = dot3(q, b);
    double det = aa * bb - ab * ab;
    if (det == 0.0)
        return false;
    double s = (qa * bb - qb * ab) / det, t = (qb * aa - qa * ab) / det;
    return s >= 0 && s <= 1 && t >= 0 && t <= 1;
}

static bool box_inside(const roi *r, const double *p, size_t region)
{
    /* Oriented boxes hold points of 3-D types only, as SOFA's. */
    size_t nb = r->box.n / 6, no = r->sp == 3 ? r->oriented_box.n / 10 : 0;
    if (region != (size_t)-1)
        return region < nb ? in_aligned(r->box.r + 6 * region, p, r->sp)
                           : region - nb < no && in_oriented(r->oriented_box.r + 10 * (region - nb), p);
    for (size_t i = 0; i < nb; i++)
        if (in_aligned(r->box.r + 6 * i, p, r->sp))
            return true;
    for (size_t i = 0; i < no; i++)
        if (in_oriented(r->oriented_box.r + 10 * i, p))
            return true;
    return false;
}

static st_status box_roi_create(st_component *self, st_error *err)
{
    (void)err;
    ((roi *)self)->inside = box_inside;
    return ST_OK;
}

static st_status box_roi_init(st_component *self, st_error *err)
{
    roi *r = (roi *)self;
    if (r->box.n % 6 != 0)
        return st_component_error(self, "box", err, ST_EINVAL,
                                  "box needs 6 reals per box (xmin ymin zmin xmax ymax zmax), got "
                                  "%zu",
                                  r->box.n);
    if (r->oriented_box.n % 10 != 0)
        return st_component_error(self, "orientedBox", err, ST_EINVAL,
                                  "orientedBox needs 10 reals per box (p0 p1 p2 depth), got %zu",
                                  r->oriented_box.n);
    if (r->box.n == 0 && r->oriented_box.n == 0) {
        static const double def[6] = {0, 0, 0, 1, 1, 1};
        ST_TRY(st_array_resize(&r->box, ST_T_REALS, 6, err));
        memcpy(r->box.r, def, sizeof def);
    }
    /* Reversed bounds are swapped. */
    for (size_t b = 0; b < r->box.n / 6; b++) {
        double *v = r->box.r + 6 * b;
        for (int a = 0; a < 3; a++)
            if (v[a] > v[3 + a]) {
                double x = v[a];
                v[a] = v[3 + a];
                v[3 + a] = x;
            }
    }
    r->nregions = r->box.n / 6 + r->oriented_box.n / 10;
    r->computed_once = false;
    return ST_OK;
}

static st_status box_roi_update(st_component *self, st_error *err)
{
    roi *r = (roi *)self;
    ST_TRY(roi_link_defaults(r, err));
    if (r->computed_once && !r->do_update)
        return ST_OK;
    /* Box edits after init: keep the region count and bounds consistent. */
    if (r->box.n % 6 != 0)
        return st_component_error(self, "box", err, ST_EINVAL,
                                  "box needs 6 reals per box, got %zu", r->box.n);
    for (size_t b = 0; b < r->box.n / 6; b++) {
        double *v = r->box.r + 6 * b;
        for (int a = 0; a < 3; a++)
            if (v[a] > v[3 + a]) {
                double x = v[a];
                v[a] = v[3 + a];
                v[3 + a] = x;
            }
    }
    r->nregions = r->box.n / 6 + r->oriented_box.n / 10;
    return roi_compute(r, err);
}

static const st_engine_ops box_roi_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = box_roi_update,
};

/* SOFA's BoxROI templates (Vec6d aside). */
static const char *const box_roi_templates[] = {"Vec3d", "Vec1d", "Vec2d", "Rigid3d", NULL};

const st_class box_roi_class = {
    .struct_size = sizeof(st_class),
    .name = "BoxROI",
    .category = "Engine",
    .description = "Find the primitives (vertex/edge/triangle/quad/tetrahedron/hexahedron) inside "
                   "given boxes",
    .instance_size = sizeof(roi),
    .fields = box_roi_fields,
    .create = box_roi_create,
    .init = box_roi_init,
    .reinit = box_roi_init,
    .engine = &box_roi_engine,
    .templates = box_roi_templates,
};
