/* mesh_roi.c - MeshROI: the points (and elements) inside a closed
 * triangulated surface (ROIposition, ROItriangles). A point inside the
 * surface's bounding box is inside when a ray from it crosses the surface
 * an odd number of times; the ray goes towards the box corner nearest the
 * point, pushed 100 further out (SOFA's choice). The bounding box ("box",
 * an output) is computed from ROIposition at the first update and on
 * reinit. With computeMeshROI false every point is inside. Elements: by
 * default (strict false, MeshROI's own default) an element whose vertices
 * are all selected is inside, else its centre decides; strict: all its
 * vertices. Unset ROI inputs take the node's state rest positions (else a
 * loader's positions) and its topology's edges and triangles. */
#include <math.h>
#include <string.h>

#include "../shared/engine_util.h"
#include "roi_fields.h"

static const st_field mesh_roi_fields[] = {
    ST_COORDS(roi, roi_position, "ROIposition", NULL,
              "ROI position coordinates of the degrees of freedom"),
    ST_EDGES(roi, roi_edges, "ROIedges", NULL, "ROI Edge Topology"),
    ST_TRIANGLES(roi, roi_triangles, "ROItriangles", NULL, "ROI Triangle Topology"),
    ST_BOOL(roi, compute_mesh_roi, "computeMeshROI", "true",
            "Compute with the mesh (not only bounding box)"),
    ST_FIELD_EX(roi, box, "box", ST_T_REALS, st_array, NULL,
                "Bounding box defined by xmin,ymin,zmin, xmax,ymax,zmax", ST_F_OUTPUT, NULL, 0.0,
                0.0),
    ST_IGNORED(roi, draw_out, "drawOut", ST_T_BOOL, bool, "false",
               "Draw the data not contained in the ROI"),
    ST_IGNORED(roi, draw_box, "drawBox", ST_T_BOOL, bool, "false",
               "Draw the Bounding box around the mesh used for the ROI"),
    ROI_INPUTS_STRICT(NULL, "false"),
    ROI_OUTPUTS(NULL),
    ROI_DRAW(NULL),
    ST_FIELD_END};

/* Does the ray from p along v cross triangle (p0, p1, p2)? SOFA's test:
 * the hit point on the plane, on the inner side of the three edges (a hit
 * on an edge counts). */
static bool same_side(const double *a, const double *b, const double *q, const double *n)
{
    double c[3] = {(b[1] - a[1]) * (q[2] - a[2]) - (q[1] - a[1]) * (b[2] - a[2]),
                   (b[2] - a[2]) * (q[0] - a[0]) - (q[2] - a[2]) * (b[0] - a[0]),
                   (b[0] - a[0]) * (q[1] - a[1]) - (q[0] - a[0]) * (b[1] - a[1])};
    return !(c[0] * n[0] + c[1] * n[1] + c[2] * n[2] < 0);
}

static bool in_box(const double *b, const double *p)
{
    return p[0] >= b[0] && p[0] <= b[3] && p[1] >= b[1] && p[1] <= b[4] && p[2] >= b[2] &&
           p[2] <= b[5];
}

static bool mesh_inside(const roi *r, const double *p, size_t region)
{
    (void)region;
    if (!r->compute_mesh_roi)
        return true;
    if (r->box.n != 6 || !in_box(r->box.r, p))
        return false;
    const double *b = r->box.r;
    double dl = 0, dh = 0, v[3];
    for (int a = 0; a < 3; a++) {
        dl += (b[a] - p[a]) * (b[a] - p[a]);
        dh += (b[a + 3] - p[a]) * (b[a + 3] - p[a]);
    }
    for (int a = 0; a < 3; a++)
        v[a] = dl < dh ? (b[a] - 100.0) - p[a] : (b[a + 3] + 100.0) - p[a];
    const double *x = r->roi_position.r;
    size_t np = r->roi_position.n;
    unsigned through = 0;
    for (size_t t = 0; t < r->roi_triangles.n; t++) {
        const unsigned *tri = r->roi_triangles.u + 3 * t;
        if (tri[0] >= np || tri[1] >= np || tri[2] >= np)
            continue;
        const double *p0 = x + 3 * (size_t)tri[0], *p1 = x + 3 * (size_t)tri[1],
                     *p2 = x + 3 * (size_t)tri[2];
        double n[3] = {(p1[1] - p0[1]) * (p2[2] - p1[2]) - (p1[2] - p0[2]) * (p2[1] - p1[1]),
                       (p1[2] - p0[2]) * (p2[0] - p1[0]) - (p1[0] - p0[0]) * (p2[2] - p1[2]),
                       (p1[0] - p0[0]) * (p2[1] - p1[1]) - (p1[1] - p0[1]) * (p2[0] - p1[0])};
        double den = n[0] * v[0] + n[1] * v[1] + n[2] * v[2];
        if (den == 0)
            continue;
        double d = (n[0] * (p0[0] - p[0]) + n[1] * (p0[1] - p[1]) + n[2] * (p0[2] - p[2])) / den;
        if (d < 0)
            continue;
        double hit[3] = {p[0] + d * v[0], p[1] + d * v[1], p[2] + d * v[2]};
        if (same_side(p0, p1, hit, n) && same_side(p1, p2, hit, n) && same_side(p2, p0, hit, n))
            through++;
    }
    return through % 2 != 0;
}

static st_status mesh_roi_create(st_component *self, st_error *err)
{
    (void)err;
    roi *r = (roi *)self;
    r->inside = mesh_inside;
    r->vertices_first = true;
    r->do_update = true;
    return ST_OK;
}

/* The ROI mesh's inputs the scene left unset: the node's own state rest
 * positions, else its loader's positions; its topology's lists. */
static st_status link_roi_inputs(roi *r, st_error *err)
{
    st_component *self = &r->base;
    if (!st_component_is_set(self, "ROIposition")) {
        st_component *ms = eng_local(self, ST_ROLE_STATE);
        st_component *loader = ms ? NULL : eng_local_loader(self);
        st_component_warn(self, "Data 'ROIposition' is not set. Get rest position of local "
                                "mechanical state or mesh loader (if no mechanical)");
        if (ms)
            ST_TRY(eng_link(self, "ROIposition", ms, "rest_position", err));
        else if (loader)
            ST_TRY(eng_link(self, "ROIposition", loader, "position", err));
    }
    st_component *topo = eng_local(self, ST_ROLE_TOPOLOGY);
    if (topo) {
        if (!st_component_is_set(self, "ROIedges") && r->compute_edges &&
            st_component_field(topo, "edges"))
            ST_TRY(eng_link(self, "ROIedges", topo, "edges", err));
        if (!st_component_is_set(self, "ROItriangles") && r->compute_triangles &&
            st_component_field(topo, "triangles"))
            ST_TRY(eng_link(self, "ROItriangles", topo, "triangles", err));
    }
    return ST_OK;
}

/* SOFA's computeBoundingBox: the box of ROIposition (the scene's box when
 * there are no points), each pair of bounds put in order. */
static st_status bounding_box(roi *r, st_error *err)
{
    double b[6] = {0, 0, 0, 0, 0, 0};
    if (r->box.n == 6)
        memcpy(b, r->box.r, sizeof b);
    const st_array *x = &r->roi_position;
    if (x->n) {
        for (int a = 0; a < 3; a++)
            b[a] = b[a + 3] = x->r[a];
        for (size_t i = 1; i < x->n; i++)
            for (int a = 0; a < 3; a++) {
                double q = x->r[3 * i + a];
                b[a] = q < b[a] ? q : b[a];
                b[a + 3] = q > b[a + 3] ? q : b[a + 3];
            }
    }
    for (int a = 0; a < 3; a++)
        if (b[a] > b[a + 3]) {
            double t = b[a];
            b[a] = b[a + 3];
            b[a + 3] = t;
        }
    ST_TRY(st_array_resize(&r->box, ST_T_REALS, 6, err));
    memcpy(r->box.r, b, sizeof b);
    return ST_OK;
}

static st_status mesh_roi_init(st_component *self, st_error *err)
{
    (void)err;
    roi *r = (roi *)self;
    r->computed_once = false;
    return ST_OK;
}

static st_status mesh_roi_update(st_component *self, st_error *err)
{
    roi *r = (roi *)self;
    if (!r->defaults_linked) {
        ST_TRY(link_roi_inputs(r, err));
        ST_TRY(roi_link_defaults(r, err));
    }
    if (!r->computed_once)
        ST_TRY(bounding_box(r, err));
    return roi_compute(r, err);
}

static const st_engine_ops mesh_roi_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = mesh_roi_update,
};

static const char *const mesh_roi_templates[] = {"Vec3d", NULL};

const st_class mesh_roi_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshROI",
    .category = "Engine",
    .description = "Find the primitives (vertex/edge/triangle/tetrahedron) inside a given mesh.",
    .instance_size = sizeof(roi),
    .fields = mesh_roi_fields,
    .create = mesh_roi_create,
    .init = mesh_roi_init,
    .reinit = mesh_roi_init,
    .engine = &mesh_roi_engine,
    .templates = mesh_roi_templates,
};
