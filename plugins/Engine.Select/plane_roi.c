/* plane_roi.c - PlaneROI: the points (and edges, triangles, tetrahedra)
 * inside one or several thick rectangles. A plane is 10 reals: three
 * corners p0, p1, p2 of a rectangle (p1 between the two others) and a
 * depth; the region is the rectangle spanned by p1 - p0 and p2 - p1,
 * extruded by depth/2 on each side along the normal (p1-p0) x (p2-p0).
 * Bounds are closed. An element is inside when all its vertices lie in one
 * same plane's region. SOFA's degenerate default plane (all zeros) selects
 * every point. */
#include <float.h>
#include <math.h>

#include "../shared/engine_util.h"

typedef struct plane_roi {
    st_component base;
    st_array planes; /* "plane": 10 reals per plane */
    st_array position;
    st_array edges, triangles, tetrahedra;
    bool compute_edges, compute_triangles, compute_tetrahedra;
    st_array indices, edge_indices, triangle_indices, tetrahedron_indices;
    st_array points_in_roi, edges_in_roi, triangles_in_roi, tetrahedra_in_roi;
    bool draw_boxes, draw_points, draw_edges, draw_triangles, draw_tetrahedra;
    double draw_size;
    bool linked; /* default links made (at the first update) */
} plane_roi;

#define PR_OUT(m, key, T, help) ST_OUTPUT(plane_roi, m, key, T, st_array, help)

static const st_field plane_roi_fields[] = {
    ST_REALS(plane_roi, planes, "plane", "0 0 0 0 0 0 0 0 0 0",
             "List of planes defined by 3 points and a depth distance"),
    ST_FIELD_EX(plane_roi, position, "position", ST_T_COORDS, st_array, NULL,
                "Rest position coordinates of the degrees of freedom (default: the "
                "MechanicalObject's rest_position, else a loader's position)",
                0, "rest_position", 0.0, 0.0),
    ST_EDGES(plane_roi, edges, "edges", NULL, "Edge Topology (default: the topology's)"),
    ST_TRIANGLES(plane_roi, triangles, "triangles", NULL, "Triangle Topology"),
    ST_TETRAS(plane_roi, tetrahedra, "tetrahedra", NULL, "Tetrahedron Topology"),
    ST_BOOL(plane_roi, compute_edges, "computeEdges", "true",
            "If true, will compute edge list and index list inside the ROI."),
    ST_BOOL(plane_roi, compute_triangles, "computeTriangles", "true",
            "If true, will compute triangle list and index list inside the ROI."),
    ST_BOOL(plane_roi, compute_tetrahedra, "computeTetrahedra", "true",
            "If true, will compute tetrahedra list and index list inside the ROI."),
    ST_FIELD_EX(plane_roi, indices, "indices", ST_T_UINTS, st_array, "0",
                "Indices of the points contained in the ROI", ST_F_OUTPUT, NULL, 0.0, 0.0),
    PR_OUT(edge_indices, "edgeIndices", ST_T_UINTS, "Indices of the edges contained in the ROI"),
    PR_OUT(triangle_indices, "triangleIndices", ST_T_UINTS,
           "Indices of the triangles contained in the ROI"),
    PR_OUT(tetrahedron_indices, "tetrahedronIndices", ST_T_UINTS,
           "Indices of the tetrahedra contained in the ROI"),
    PR_OUT(points_in_roi, "pointsInROI", ST_T_COORDS, "Points contained in the ROI"),
    PR_OUT(edges_in_roi, "edgesInROI", ST_T_EDGES, "Edges contained in the ROI"),
    PR_OUT(triangles_in_roi, "trianglesInROI", ST_T_TRIANGLES, "Triangles contained in the ROI"),
    PR_OUT(tetrahedra_in_roi, "tetrahedraInROI", ST_T_TETRAS, "Tetrahedra contained in the ROI"),
    ST_FIELD_EX(plane_roi, draw_boxes, "drawBoxes", ST_T_BOOL, bool, "false", "Draw Box(es)",
                ST_F_IGNORED, "isVisible", 0.0, 0.0),
    ST_IGNORED(plane_roi, draw_points, "drawPoints", ST_T_BOOL, bool, "false", "Draw Points"),
    ST_IGNORED(plane_roi, draw_edges, "drawEdges", ST_T_BOOL, bool, "false", "Draw Edges"),
    ST_IGNORED(plane_roi, draw_triangles, "drawTriangles", ST_T_BOOL, bool, "false",
               "Draw Triangles"),
    ST_IGNORED(plane_roi, draw_tetrahedra, "drawTetrahedra", ST_T_BOOL, bool, "false",
               "Draw Tetrahedra"),
    ST_IGNORED(plane_roi, draw_size, "drawSize", ST_T_REAL, double, "1",
               "rendering size for box and topological elements"),
    ST_FIELD_END};

/* One plane's region, as SOFA derives it from the 10 numbers. */
typedef struct slab {
    double p0[3], p2[3], n0[3], n1[3], n2[3], n3[3], vdepth[3];
    double width, length, depth;
} slab;

static void sub(double *r, const double *a, const double *b)
{
    for (int k = 0; k < 3; k++)
        r[k] = a[k] - b[k];
}

static double dot(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross(double *r, const double *a, const double *b)
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

/* SOFA's Vec::normalize: left unchanged when the norm is (near) zero. */
static void normalize(double *v)
{
    double n = sqrt(dot(v, v));
    if (n > DBL_EPSILON)
        for (int k = 0; k < 3; k++)
            v[k] /= n;
}

/* The unit normal of the face through a spanned by (b - a) and (c - a). */
static void face_normal(double *n, const double *a, const double *b, const double *c)
{
    double u[3], w[3];
    sub(u, b, a);
    sub(w, c, a);
    cross(n, u, w);
    normalize(n);
}

static void slab_make(slab *s, const double *p)
{
    const double *p0 = p, *p1 = p + 3, *p2 = p + 6;
    double p3[3], p4[3], p6[3], d[3];
    s->depth = p[9];
    face_normal(s->vdepth, p0, p1, p2);
    for (int k = 0; k < 3; k++) {
        p3[k] = p0[k] + (p2[k] - p1[k]);
        p4[k] = p0[k] + s->vdepth[k] * s->depth / 2;
        p6[k] = p2[k] + s->vdepth[k] * s->depth / 2;
        s->p0[k] = p0[k];
        s->p2[k] = p2[k];
    }
    face_normal(s->n0, p0, p1, p4);
    face_normal(s->n1, p3, p2, p6);
    face_normal(s->n2, p0, p3, p4);
    /* SOFA's fourth face: (p2 - p1) x (p6 - p2). */
    double u[3], w[3];
    sub(u, p2, p1);
    sub(w, p6, p2);
    cross(s->n3, u, w);
    normalize(s->n3);
    sub(d, p2, p0);
    s->width = fabs(dot(d, s->n0));
    s->length = fabs(dot(d, s->n2));
}

static bool slab_inside(const slab *s, const double *p)
{
    double a[3], b[3];
    sub(a, p, s->p0);
    sub(b, p, s->p2);
    return fabs(dot(a, s->n0)) <= s->width && fabs(dot(b, s->n1)) <= s->width &&
           fabs(dot(a, s->n2)) <= s->length && fabs(dot(b, s->n3)) <= s->length &&
           fabs(dot(a, s->vdepth)) <= fabs(s->depth / 2);
}

/* SOFA's init: links the inputs the scene left unset. Links made during
 * init resolve only after it, so this runs at the first update. */
static st_status plane_roi_init_links(st_component *self, st_error *err)
{
    plane_roi *r = (plane_roi *)self;
    if (!st_component_is_set(self, "position")) {
        st_component *ms = (st_component *)st_component_mstate(self);
        st_component *loader = ms ? NULL : eng_local_loader(self);
        if (ms)
            ST_TRY(eng_link(self, "position", ms, "rest_position", err));
        else if (loader)
            ST_TRY(eng_link(self, "position", loader, "position", err));
    }
    st_component *topo = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    static const char *const lists[] = {"edges", "triangles", "tetrahedra"};
    const bool flags[] = {r->compute_edges, r->compute_triangles, r->compute_tetrahedra};
    for (int i = 0; topo && i < 3; i++) {
        const st_field *theirs = st_component_field(topo, lists[i]);
        if (flags[i] && !st_component_is_set(self, lists[i]) && theirs &&
            theirs->type == st_component_field(self, lists[i])->type)
            ST_TRY(eng_link(self, lists[i], topo, lists[i], err));
    }
    return ST_OK;
}

/* The position part of point i, zero-padded to 3. */
static const double *point(const plane_roi *r, unsigned cw, unsigned sp, size_t i, double *buf)
{
    const double *p = r->position.r + (size_t)cw * i;
    for (unsigned k = 0; k < 3; k++)
        buf[k] = k < sp ? p[k] : 0.0;
    return buf;
}

/* Selects the elements of one list whose vertices all lie in one plane. */
static st_status select_list(plane_roi *r, const slab *slabs, size_t ns, const st_array *in,
                             st_type t, st_array *idx, st_array *out, st_error *err)
{
    unsigned w = st_type_width(t), cw = eng_coord_size(&r->base), sp = eng_spatial_size(&r->base);
    for (size_t e = 0; e < in->n; e++) {
        const unsigned *v = in->u + (size_t)w * e;
        bool valid = true;
        for (unsigned k = 0; k < w; k++)
            valid = valid && v[k] < r->position.n;
        if (!valid)
            return st_component_error(&r->base, NULL, err, ST_EINVAL,
                                      "element %zu refers to a vertex beyond the %zu positions", e,
                                      r->position.n);
        for (size_t j = 0; j < ns; j++) {
            bool all = true;
            for (unsigned k = 0; k < w && all; k++) {
                double b[3];
                all = slab_inside(&slabs[j], point(r, cw, sp, v[k], b));
            }
            if (all) {
                ST_TRY(eng_push_index(idx, (unsigned)e, err));
                ST_TRY(eng_push_u(out, t, v, err));
                break;
            }
        }
    }
    return ST_OK;
}

static st_status plane_roi_update(st_component *self, st_error *err)
{
    if (!((plane_roi *)self)->linked) {
        ((plane_roi *)self)->linked = true;
        ST_TRY(plane_roi_init_links(self, err));
        ST_TRY(st_component_update_inputs(self, err));
    }
    plane_roi *r = (plane_roi *)self;
    if (r->planes.n % 10)
        return st_component_error(self, "plane", err, ST_EINVAL,
                                  "%zu values: each plane takes 10 (three points and a depth)",
                                  r->planes.n);
    size_t ns = r->planes.n / 10;
    if (ns == 0)
        return ST_OK;
    slab *slabs = st_calloc(ns, sizeof *slabs);
    if (!slabs)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t j = 0; j < ns; j++)
        slab_make(&slabs[j], r->planes.r + 10 * j);
    st_array *outs[] = {&r->indices,          &r->edge_indices,  &r->triangle_indices,
                        &r->tetrahedron_indices, &r->points_in_roi, &r->edges_in_roi,
                        &r->triangles_in_roi, &r->tetrahedra_in_roi};
    for (size_t i = 0; i < sizeof outs / sizeof *outs; i++)
        eng_clear(outs[i]);
    unsigned cw = eng_coord_size(self), sp = eng_spatial_size(self);
    st_status st = ST_OK;
    for (size_t i = 0; st == ST_OK && i < r->position.n; i++) {
        double b[3];
        const double *p = point(r, cw, sp, i, b);
        for (size_t j = 0; j < ns; j++)
            if (slab_inside(&slabs[j], p)) {
                st = eng_push_index(&r->indices, (unsigned)i, err);
                if (st == ST_OK)
                    st = eng_push_r(&r->points_in_roi, cw, r->position.r + (size_t)cw * i, err);
                break;
            }
    }
    if (st == ST_OK && r->compute_edges)
        st = select_list(r, slabs, ns, &r->edges, ST_T_EDGES, &r->edge_indices, &r->edges_in_roi,
                         err);
    if (st == ST_OK && r->compute_triangles)
        st = select_list(r, slabs, ns, &r->triangles, ST_T_TRIANGLES, &r->triangle_indices,
                         &r->triangles_in_roi, err);
    if (st == ST_OK && r->compute_tetrahedra)
        st = select_list(r, slabs, ns, &r->tetrahedra, ST_T_TETRAS, &r->tetrahedron_indices,
                         &r->tetrahedra_in_roi, err);
    st_free(slabs);
    return st;
}

static const st_engine_ops plane_roi_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = plane_roi_update,
};

static const char *const plane_roi_templates[] = {"Vec3d", "Rigid3d", NULL};

const st_class plane_roi_class = {
    .struct_size = sizeof(st_class),
    .name = "PlaneROI",
    .category = "Engine",
    .description = "Find the primitives inside a given plane",
    .instance_size = sizeof(plane_roi),
    .fields = plane_roi_fields,
    .engine = &plane_roi_engine,
    .templates = plane_roi_templates,
};
