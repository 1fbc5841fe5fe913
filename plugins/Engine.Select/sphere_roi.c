/* sphere_roi.c - SphereROI: the points (and edges, triangles, quads,
 * tetrahedra) inside one or several spheres, tested on the rest positions.
 * An element is selected when all its vertices lie in one same sphere
 * (strict), or its centre in a sphere. Hexahedra as the other elements. */
#include <math.h>

#include "roi_fields.h"

static const st_field sphere_roi_fields[] = {
    ST_VEC3S(roi, centers, "centers", NULL, "Center(s) of the sphere(s)"),
    ST_REALS(roi, radii, "radii", NULL,
             "Radius(i) of the sphere(s) (one per center, or one for all)"),
    ST_VEC3(roi, direction, "direction", "0 0 0", "Edge direction(if edgeAngle > 0)"),
    ST_VEC3(roi, normal, "normal", "0 0 0", "Normal direction of the triangles (if triAngle > 0)"),
    ST_REAL(roi, edge_angle, "edgeAngle", "0",
            "Max angle between the direction of the selected edges and the specified direction "
            "(> 0 is not supported yet: an error)"),
    ST_FIELD_EX(roi, tri_angle, "triAngle", ST_T_REAL, double, "0",
                "Max angle between the normal of the selected triangle and the specified normal "
                "direction (> 0 is not supported yet: an error)",
                0, "angle", 0.0, 0.0),
    ROI_INPUTS("rest_position"),
    ROI_OUTPUTS("pointIndices"),
    ROI_DRAW("drawSphere"),
    ST_IGNORED(roi, draw_roi, "isVisible", ST_T_BOOL, bool, "false",
               "SOFA's second alias of drawROI"),
    ST_FIELD_END};

static bool in_sphere(const double *c, double r, const double *p)
{
    double d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    return !(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) > r);
}

static bool sphere_inside(const roi *r, const double *p, size_t region)
{
    size_t n = r->centers.n;
    if (region != (size_t)-1)
        return region < n && in_sphere(r->centers.r + 3 * region, r->radii.r[region], p);
    for (size_t i = 0; i < n; i++)
        if (in_sphere(r->centers.r + 3 * i, r->radii.r[i], p))
            return true;
    return false;
}

static st_status sphere_roi_create(st_component *self, st_error *err)
{
    (void)err;
    roi *r = (roi *)self;
    r->inside = sphere_inside;
    r->per_region_elements = true;
    r->strict = true;
    r->do_update = true;
    return ST_OK;
}

static st_status check_radii(roi *r, st_error *err)
{
    if (r->radii.n == 1 && r->centers.n > 1) {
        double v = r->radii.r[0];
        ST_TRY(st_array_resize(&r->radii, ST_T_REALS, r->centers.n, err));
        for (size_t i = 0; i < r->radii.n; i++)
            r->radii.r[i] = v;
    }
    if (r->radii.n != r->centers.n)
        return st_component_error(&r->base, "radii", err, ST_EINVAL,
                                  "number of sphere centers (%zu) and radii (%zu) mismatch: give "
                                  "one radius per center, or a single radius",
                                  r->centers.n, r->radii.n);
    for (size_t i = 0; i < r->radii.n; i++)
        if (r->radii.r[i] < 0)
            return st_component_error(&r->base, "radii", err, ST_EINVAL,
                                      "radius %zu is negative (%g): radii must be >= 0", i,
                                      r->radii.r[i]);
    r->nregions = r->centers.n;
    return ST_OK;
}

static st_status sphere_roi_init(st_component *self, st_error *err)
{
    roi *r = (roi *)self;
    r->computed_once = false;
    if (r->edge_angle > 0 || r->tri_angle > 0)
        return st_component_error(self, r->edge_angle > 0 ? "edgeAngle" : "triAngle", err,
                                  ST_EINVAL,
                                  "selecting elements by angle (edgeAngle, triAngle > 0) is not "
                                  "supported by settee yet");
    return check_radii(r, err);
}

static st_status sphere_roi_update(st_component *self, st_error *err)
{
    roi *r = (roi *)self;
    ST_TRY(roi_link_defaults(r, err));
    ST_TRY(check_radii(r, err));
    return roi_compute(r, err);
}

static const st_engine_ops sphere_roi_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = sphere_roi_update,
};

const st_class sphere_roi_class = {
    .struct_size = sizeof(st_class),
    .name = "SphereROI",
    .category = "Engine",
    .description = "Find the primitives (vertex/edge/triangle/quad/tetrahedron) inside given "
                   "spheres",
    .instance_size = sizeof(roi),
    .fields = sphere_roi_fields,
    .create = sphere_roi_create,
    .init = sphere_roi_init,
    .reinit = sphere_roi_init,
    .engine = &sphere_roi_engine,
};
