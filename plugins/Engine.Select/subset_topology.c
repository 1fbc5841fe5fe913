/* subset_topology.c - SubsetTopology: splits a mesh by boxes (or spheres)
 * into the part inside and the part outside, points and elements, as two
 * topologies, as SOFA's engine does (Vec3d).
 *
 * The region: the boxes ("box", 6 reals each, bounds inclusive, reversed
 * bounds swapped), or the spheres when "centers" is set (|p - c| <= r;
 * centers and radii must match in number, else a warning and nothing is
 * computed). A point is inside when a region holds it; an element (edge,
 * triangle, quad, tetrahedron, hexahedron) when one region holds all its
 * vertices. Outputs: indices and positions of the points inside
 * (pointsInROI) and outside (pointsOutROI), each element kind's indices
 * inside and its elements inside and outside.
 *
 * localIndices: the elements are renumbered into their own point list.
 * The border vertices (the vertices inside region 0 of the tetrahedra, or
 * of the triangles when there is no tetrahedron, that have a vertex
 * outside) come first in both point lists, in index order (nbrborder of
 * them); the other points follow in the list of their side, and every
 * element's vertices take their local numbers (an outside element's border
 * vertex keeps its border number, its other vertices their number in the
 * outside list).
 *
 * tetrahedraInput (indices of tetrahedra): the tetrahedra are split by that
 * list instead of the region; the points of each side are then the
 * vertices of its tetrahedra in order of first use (SOFA keeps the region's
 * point indices before them in "indices"). direction, normal, edgeAngle and
 * triAngle are declared by SOFA and used by no selection.
 *
 * Inputs left unset link at the first update as SOFA's init: rest_position
 * to the position of the state of the node (or above), else a loader's
 * position; edges, triangles and tetrahedra to the topology of the node (or
 * above). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <settee/settee.h>

typedef struct subset {
    st_component base;
    st_array box;             /* 6 reals per box */
    st_array centers;         /* vec3[] */
    st_array radii;           /* real[] */
    st_vec3 direction, normal;
    double edge_angle, tri_angle;
    st_array x0;              /* "rest_position", vec3[] */
    st_array edges, triangles, quads, tetrahedra, hexahedra;
    st_array tetra_input;     /* "tetrahedraInput" */
    st_array indices, edge_indices, triangle_indices, quad_indices, tetra_indices, hexa_indices;
    st_array points_in, points_out, edges_in, edges_out, triangles_in, triangles_out, quads_in,
        quads_out, tetras_in, tetras_out, hexas_in, hexas_out;
    unsigned nbrborder;
    bool local;               /* "localIndices" */
    bool draw_roi, draw_points, draw_edges, draw_triangles, draw_tetrahedra;
    double draw_size;
    bool defaults_linked;
} subset;

#define OUT(m, key, T, help) ST_OUTPUT(subset, m, key, T, st_array, help)
#define DRAW(m, key, help) ST_IGNORED(subset, m, key, ST_T_BOOL, bool, "false", help)

static const st_field subset_fields[] = {
    ST_REALS(subset, box, "box", "0 0 0 1 1 1", "Box defined by xmin,ymin,zmin, xmax,ymax,zmax"),
    ST_VEC3S(subset, centers, "centers", NULL,
             "Center(s) of the sphere(s) (when set, the spheres are the region)"),
    ST_REALS(subset, radii, "radii", NULL, "Radius(i) of the sphere(s)"),
    ST_IGNORED(subset, direction, "direction", ST_T_VEC3, st_vec3, "0 0 0",
               "Edge direction(if edgeAngle > 0) (declared by SOFA, used by no selection)"),
    ST_IGNORED(subset, normal, "normal", ST_T_VEC3, st_vec3, "0 0 0",
               "Normal direction of the triangles (if triAngle > 0) (declared by SOFA, used by "
               "no selection)"),
    ST_IGNORED(subset, edge_angle, "edgeAngle", ST_T_REAL, double, "0",
               "Max angle between the direction of the selected edges and the specified "
               "direction (declared by SOFA, used by no selection)"),
    ST_IGNORED(subset, tri_angle, "triAngle", ST_T_REAL, double, "0",
               "Max angle between the normal of the selected triangle and the specified normal "
               "direction (declared by SOFA, used by no selection)"),
    ST_VEC3S(subset, x0, "rest_position", NULL,
             "Rest position coordinates of the degrees of freedom (default: the position of the "
             "node's MechanicalObject)"),
    ST_EDGES(subset, edges, "edges", NULL, "Edge Topology (default: the node's topology)"),
    ST_TRIANGLES(subset, triangles, "triangles", NULL,
                 "Triangle Topology (default: the node's topology)"),
    ST_QUADS(subset, quads, "quads", NULL, "Quad Topology"),
    ST_TETRAS(subset, tetrahedra, "tetrahedra", NULL,
              "Tetrahedron Topology (default: the node's topology)"),
    ST_HEXAS(subset, hexahedra, "hexahedra", NULL, "Hexahedron Topology"),
    ST_UINTS(subset, tetra_input, "tetrahedraInput", NULL, "Indices of the tetrahedra to keep"),
    ST_FIELD_EX(subset, indices, "indices", ST_T_UINTS, st_array, "0",
                "Indices of the points contained in the ROI", ST_F_OUTPUT, NULL, 0.0, 0.0),
    OUT(edge_indices, "edgeIndices", ST_T_UINTS, "Indices of the edges contained in the ROI"),
    OUT(triangle_indices, "triangleIndices", ST_T_UINTS,
        "Indices of the triangles contained in the ROI"),
    OUT(quad_indices, "quadIndices", ST_T_UINTS, "Indices of the quads contained in the ROI"),
    OUT(tetra_indices, "tetrahedronIndices", ST_T_UINTS,
        "Indices of the tetrahedra contained in the ROI"),
    OUT(hexa_indices, "hexahedronIndices", ST_T_UINTS,
        "Indices of the hexahedra contained in the ROI"),
    OUT(points_in, "pointsInROI", ST_T_VEC3S, "Points contained in the ROI"),
    OUT(points_out, "pointsOutROI", ST_T_VEC3S, "Points out of the ROI"),
    OUT(edges_in, "edgesInROI", ST_T_EDGES, "Edges contained in the ROI"),
    OUT(edges_out, "edgesOutROI", ST_T_EDGES, "Edges out of the ROI"),
    OUT(triangles_in, "trianglesInROI", ST_T_TRIANGLES, "Triangles contained in the ROI"),
    OUT(triangles_out, "trianglesOutROI", ST_T_TRIANGLES, "Triangles out of the ROI"),
    OUT(quads_in, "quadsInROI", ST_T_QUADS, "Quads contained in the ROI"),
    OUT(quads_out, "quadsOutROI", ST_T_QUADS, "Quads out of the ROI"),
    OUT(tetras_in, "tetrahedraInROI", ST_T_TETRAS, "Tetrahedra contained in the ROI"),
    OUT(tetras_out, "tetrahedraOutROI", ST_T_TETRAS, "Tetrahedra out of the ROI"),
    OUT(hexas_in, "hexahedraInROI", ST_T_HEXAS, "Hexahedra contained in the ROI"),
    OUT(hexas_out, "hexahedraOutROI", ST_T_HEXAS, "Hexahedra out of the ROI"),
    ST_FIELD_EX(subset, nbrborder, "nbrborder", ST_T_UINT, unsigned, "0",
                "If localIndices option is activated, will give the number of vertices on the "
                "border of the ROI (being the n first points of each output Topology). ",
                ST_F_OUTPUT, NULL, 0.0, 0.0),
    ST_BOOL(subset, local, "localIndices", "false",
            "If true, will compute local dof indices in topological elements"),
    DRAW(draw_roi, "drawROI", "Draw ROI"),
    DRAW(draw_points, "drawPoints", "Draw Points"),
    DRAW(draw_edges, "drawEdges", "Draw Edges"),
    DRAW(draw_triangles, "drawTriangle", "Draw Triangles"),
    DRAW(draw_tetrahedra, "drawTetrahedra", "Draw Tetrahedra"),
    ST_IGNORED(subset, draw_size, "drawSize", ST_T_REAL, double, "1",
               "rendering size for box and topological elements"),
    ST_FIELD_END};

/* ---- default links ---- */

static bool is_loader(const st_component *c)
{
    return c->cls->category && !strcmp(c->cls->category, "Loader") &&
           st_component_field(c, "position");
}

static st_status link_field(subset *s, const char *field, st_component *src,
                            const char *src_field, st_error *err)
{
    char path[ST_ERROR_PATH_MAX], text[ST_ERROR_PATH_MAX + 64];
    st_component_path(src, path, sizeof path);
    snprintf(text, sizeof text, "@%s.%s", path, src_field);
    return st_component_set(&s->base, field, text, err);
}

/* The first component of the node, then of its ancestors, that passes
 * `want` (SOFA's context search upwards). */
static st_component *find_up(st_node *node, bool (*want)(const st_component *))
{
    for (st_node *n = node; n; n = st_node_parent(n))
        for (size_t i = 0; i < st_node_object_count(n); i++)
            if (want(st_node_object(n, i)))
                return st_node_object(n, i);
    return NULL;
}

static bool is_state(const st_component *c) { return st_component_has_role(c, ST_ROLE_STATE); }

static bool is_topology(const st_component *c)
{
    return st_component_has_role(c, ST_ROLE_TOPOLOGY);
}

static st_status link_defaults(subset *s, st_error *err)
{
    if (s->defaults_linked)
        return ST_OK;
    s->defaults_linked = true;
    st_component *self = &s->base;
    if (!st_component_is_set(self, "rest_position")) {
        st_component *src = find_up(self->node, is_state);
        if (!src)
            src = find_up(self->node, is_loader);
        if (!src)
            return st_component_error(self, "rest_position", err, ST_ESCENE,
                                      "no rest_position given and no MechanicalObject or mesh "
                                      "loader found in this node or above: set rest_position "
                                      "(\"@loader.position\")");
        ST_TRY(link_field(s, "rest_position", src, "position", err));
    }
    st_component *topo = find_up(self->node, is_topology);
    if (topo) {
        static const char *const lists[] = {"edges", "triangles", "tetrahedra"};
        for (size_t i = 0; i < 3; i++) {
            const st_field *mine = st_component_field(self, lists[i]);
            const st_field *theirs = st_component_field(topo, lists[i]);
            if (!st_component_is_set(self, lists[i]) && theirs && theirs->type == mine->type)
                ST_TRY(link_field(s, lists[i], topo, lists[i], err));
        }
    }
    return st_component_update_inputs(self, err);
}

/* ---- the selection ---- */

typedef struct region {
    const subset *s;
    bool sphere;
    size_t n;
} region;

static bool point_in(const region *r, const double *p, size_t k)
{
    if (!r->sphere) {
        const double *b = r->s->box.r + 6 * k;
        return p[0] >= b[0] && p[0] <= b[3] && p[1] >= b[1] && p[1] <= b[4] && p[2] >= b[2] &&
               p[2] <= b[5];
    }
    const double *c = r->s->centers.r + 3 * k;
    double d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    return !(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) > r->s->radii.r[k]);
}

static bool elem_in(const region *r, const unsigned *v, unsigned w, size_t k)
{
    for (unsigned i = 0; i < w; i++)
        if (!point_in(r, r->s->x0.r + 3 * (size_t)v[i], k))
            return false;
    return true;
}

static st_status push(st_array *a, st_type t, const void *v, st_error *err)
{
    size_t n = a->n;
    if (n == a->cap)
        ST_TRY(st_array_resize(a, t, n ? 2 * n : 16, err));
    else
        ST_TRY(st_array_resize(a, t, n + 1, err));
    a->n = n + 1;
    if (t == ST_T_VEC3S)
        memcpy(a->r + 3 * n, v, 3 * sizeof(double));
    else
        memcpy(a->u + st_type_width(t) * n, v, st_type_width(t) * sizeof(unsigned));
    return ST_OK;
}

static st_status push_index(st_array *a, unsigned i, st_error *err)
{
    return push(a, ST_T_UINTS, &i, err);
}

/* One element list split by the region; local renumbers the vertices. */
static st_status split(const region *r, const st_array *in, st_type t, const unsigned *loc,
                       st_array *idx, st_array *ins, st_array *outs, st_error *err)
{
    unsigned w = st_type_width(t);
    for (size_t i = 0; i < in->n; i++) {
        unsigned e[8];
        memcpy(e, in->u + w * i, w * sizeof *e);
        bool inside = false;
        for (size_t k = 0; k < r->n && !inside; k++)
            inside = elem_in(r, e, w, k);
        if (loc)
            for (unsigned j = 0; j < w; j++)
                e[j] = loc[e[j]];
        if (inside)
            ST_TRY(push_index(idx, (unsigned)i, err));
        ST_TRY(push(inside ? ins : outs, t, e, err));
    }
    return ST_OK;
}

static void clear_outputs(subset *s)
{
    st_array *const lists[] = {&s->indices,    &s->edge_indices,  &s->triangle_indices,
                               &s->quad_indices, &s->tetra_indices, &s->hexa_indices,
                               &s->points_in,  &s->points_out,    &s->edges_in,
                               &s->edges_out,  &s->triangles_in,  &s->triangles_out,
                               &s->quads_in,   &s->quads_out,     &s->tetras_in,
                               &s->tetras_out, &s->hexas_in,      &s->hexas_out};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        lists[i]->n = 0;
}

static void touch_outputs(subset *s)
{
    static const char *const names[] = {
        "indices",        "edgeIndices",      "triangleIndices", "quadIndices",
        "tetrahedronIndices", "hexahedronIndices", "pointsInROI", "pointsOutROI",
        "edgesInROI",     "edgesOutROI",      "trianglesInROI",  "trianglesOutROI",
        "quadsInROI",     "quadsOutROI",      "tetrahedraInROI", "tetrahedraOutROI",
        "hexahedraInROI", "hexahedraOutROI",  "nbrborder"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        st_component_touch(&s->base, st_component_field(&s->base, names[i]));
}

static st_status check_indices(subset *s, const st_array *a, st_type t, const char *name,
                               st_error *err)
{
    unsigned w = st_type_width(t);
    for (size_t i = 0; i < a->n * w; i++)
        if (a->u[i] >= s->x0.n)
            return st_component_error(&s->base, name, err, ST_EINVAL,
                                      "%s %zu uses point %u; rest_position has %zu points", name,
                                      i / w, a->u[i], s->x0.n);
    return ST_OK;
}

/* The border vertices (localIndices), ascending, into *out (x0.n flags). */
static void find_border(const subset *s, const region *r, unsigned char *border)
{
    const st_array *el = s->tetrahedra.n ? &s->tetrahedra : &s->triangles;
    unsigned w = s->tetrahedra.n ? 4 : 3;
    for (size_t i = 0; i < el->n; i++) {
        const unsigned *v = el->u + w * i;
        bool in[4], any_in = false, any_out = false;
        for (unsigned j = 0; j < w; j++) {
            in[j] = r->n > 0 && point_in(r, s->x0.r + 3 * (size_t)v[j], 0);
            any_in |= in[j];
            any_out |= !in[j];
        }
        if (any_in && any_out)
            for (unsigned j = 0; j < w; j++)
                if (in[j])
                    border[v[j]] = 1;
    }
}

static st_status compute(subset *s, st_error *err)
{
    st_component *self = &s->base;
    region r = {.s = s, .sphere = st_component_is_set(self, "centers")};
    if (s->box.n % 6)
        return st_component_error(self, "box", err, ST_EINVAL,
                                  "box needs 6 reals per box (xmin ymin zmin xmax ymax zmax), got "
                                  "%zu",
                                  s->box.n);
    for (size_t b = 0; b < s->box.n / 6; b++)
        for (int a = 0; a < 3; a++) {
            double *v = s->box.r + 6 * b;
            if (v[a] > v[3 + a]) {
                double x = v[a];
                v[a] = v[3 + a];
                v[3 + a] = x;
            }
        }
    r.n = s->box.n / 6;
    if (r.sphere) {
        if (s->centers.n == 0)
            return ST_OK;
        if (s->centers.n != s->radii.n) {
            st_component_warn_field(self, "radii",
                                    "Number of sphere centers and radius doesn't match (%zu "
                                    "centers, %zu radii): nothing is selected",
                                    s->centers.n, s->radii.n);
            return ST_OK;
        }
        r.n = s->centers.n;
    }
    ST_TRY(check_indices(s, &s->edges, ST_T_EDGES, "edges", err));
    ST_TRY(check_indices(s, &s->triangles, ST_T_TRIANGLES, "triangles", err));
    ST_TRY(check_indices(s, &s->quads, ST_T_QUADS, "quads", err));
    ST_TRY(check_indices(s, &s->tetrahedra, ST_T_TETRAS, "tetrahedra", err));
    ST_TRY(check_indices(s, &s->hexahedra, ST_T_HEXAS, "hexahedra", err));
    clear_outputs(s);
    size_t np = s->x0.n;
    unsigned *loc = NULL, *loc_out = NULL;
    unsigned char *border = NULL, *seen_in = NULL, *seen_out = NULL;
    st_status st = ST_OK;
    loc = st_calloc(np + 1, sizeof *loc);
    loc_out = st_calloc(np + 1, sizeof *loc_out);
    border = st_calloc(np + 1, 1);
    seen_in = st_calloc(np + 1, 1);
    seen_out = st_calloc(np + 1, 1);
    if (!loc || !loc_out || !border || !seen_in || !seen_out) {
        st = st_error_set(err, ST_ENOMEM, "out of memory (%zu points)", np);
        goto done;
    }
    unsigned nb = 0, cpt_in = 0, cpt_out = 0, cpt_border = 0;
    if (s->local) {
        find_border(s, &r, border);
        for (size_t i = 0; i < np; i++)
            nb += border[i];
        if ((st = st_array_resize(&s->points_in, ST_T_VEC3S, nb, err)) != ST_OK ||
            (st = st_array_resize(&s->points_out, ST_T_VEC3S, nb, err)) != ST_OK ||
            (st = st_array_resize(&s->indices, ST_T_UINTS, nb, err)) != ST_OK)
            goto done;
        cpt_in = cpt_out = nb;
    }
    s->nbrborder = nb;
    for (size_t i = 0; i < np && st == ST_OK; i++) {
        const double *p = s->x0.r + 3 * i;
        if (s->local && border[i]) {
            loc[i] = cpt_border;
            s->indices.u[cpt_border] = (unsigned)i;
            memcpy(s->points_in.r + 3 * cpt_border, p, 3 * sizeof *p);
            memcpy(s->points_out.r + 3 * cpt_border, p, 3 * sizeof *p);
            cpt_border++;
            continue;
        }
        bool inside = false;
        for (size_t k = 0; k < r.n && !inside; k++)
            inside = point_in(&r, p, k);
        if (inside) {
            if ((st = push_index(&s->indices, (unsigned)i, err)) == ST_OK)
                st = push(&s->points_in, ST_T_VEC3S, p, err);
            loc[i] = cpt_in++;
        } else {
            st = push(&s->points_out, ST_T_VEC3S, p, err);
            loc[i] = cpt_out++;
        }
    }
    const unsigned *L = s->local ? loc : NULL;
    if (st == ST_OK)
        st = split(&r, &s->edges, ST_T_EDGES, L, &s->edge_indices, &s->edges_in, &s->edges_out,
                   err);
    if (st == ST_OK)
        st = split(&r, &s->triangles, ST_T_TRIANGLES, L, &s->triangle_indices, &s->triangles_in,
                   &s->triangles_out, err);
    if (st == ST_OK)
        st = split(&r, &s->quads, ST_T_QUADS, L, &s->quad_indices, &s->quads_in, &s->quads_out,
                   err);
    if (st == ST_OK && !st_component_is_set(self, "tetrahedraInput")) {
        st = split(&r, &s->tetrahedra, ST_T_TETRAS, L, &s->tetra_indices, &s->tetras_in,
                   &s->tetras_out, err);
    } else if (st == ST_OK) {
        /* Split by the list: each side's points are its tetrahedra's
         * vertices in order of first use. */
        s->points_in.n = s->points_out.n = 0;
        cpt_in = cpt_out = 0;
        for (size_t i = 0; i < s->tetrahedra.n && st == ST_OK; i++) {
            unsigned t[4];
            memcpy(t, s->tetrahedra.u + 4 * i, sizeof t);
            bool keep = false;
            for (size_t j = 0; j < s->tetra_input.n && !keep; j++)
                keep = s->tetra_input.u[j] == i;
            for (int k = 0; k < 4 && st == ST_OK; k++) {
                unsigned v = t[k];
                unsigned char *seen = keep ? seen_in : seen_out;
                if (!seen[v]) {
                    seen[v] = 1;
                    if (keep) {
                        if ((st = push_index(&s->indices, v, err)) == ST_OK)
                            st = push(&s->points_in, ST_T_VEC3S, s->x0.r + 3 * (size_t)v, err);
                        loc[v] = cpt_in++;
                    } else {
                        st = push(&s->points_out, ST_T_VEC3S, s->x0.r + 3 * (size_t)v, err);
                        loc_out[v] = cpt_out++;
                    }
                }
                if (s->local)
                    t[k] = keep ? loc[v] : loc_out[v];
            }
            if (st == ST_OK && keep)
                st = push_index(&s->tetra_indices, (unsigned)i, err);
            if (st == ST_OK)
                st = push(keep ? &s->tetras_in : &s->tetras_out, ST_T_TETRAS, t, err);
        }
    }
    if (st == ST_OK)
        st = split(&r, &s->hexahedra, ST_T_HEXAS, L, &s->hexa_indices, &s->hexas_in,
                   &s->hexas_out, err);
    if (st == ST_OK)
        touch_outputs(s);
done:
    st_free(loc), st_free(loc_out), st_free(border), st_free(seen_in), st_free(seen_out);
    return st;
}

static st_status subset_init(st_component *self, st_error *err)
{
    subset *s = (subset *)self;
    if (s->box.n % 6)
        return st_component_error(self, "box", err, ST_EINVAL,
                                  "box needs 6 reals per box (xmin ymin zmin xmax ymax zmax), got "
                                  "%zu",
                                  s->box.n);
    if (s->radii.n && !st_component_is_set(self, "centers"))
        st_component_warn_field(self, "radii",
                                "radii without centers: the boxes are the region (spheres need "
                                "centers)");
    return ST_OK;
}

static st_status subset_update(st_component *self, st_error *err)
{
    subset *s = (subset *)self;
    ST_TRY(link_defaults(s, err));
    return compute(s, err);
}

static const st_engine_ops subset_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = subset_update,
};

const st_class subset_topology_class = {
    .struct_size = sizeof(st_class),
    .name = "SubsetTopology",
    .category = "Engine",
    .description = "Engine computing, from a mesh and boxes or spheres, the points and elements "
                   "inside and outside them (two sub-topologies, optionally renumbered)",
    .instance_size = sizeof(subset),
    .fields = subset_fields,
    .init = subset_init,
    .reinit = subset_init,
    .engine = &subset_engine,
};
