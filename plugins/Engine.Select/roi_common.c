/* roi_common.c - the selection loop shared by BoxROI and SphereROI, and
 * the default links of their inputs (rest positions of the node's
 * MechanicalObject, else a loader's positions, else the first state above;
 * element lists from the node's topology). Outputs come in increasing index
 * order. */
#include <stdio.h>
#include <string.h>

#include "roi.h"

static bool is_loader(const st_component *c)
{
    return c->cls->category && !strcmp(c->cls->category, "Loader") &&
           st_component_field(c, "position");
}

static st_status link_field(roi *r, const char *field, st_component *src, const char *src_field,
                            st_error *err)
{
    char path[ST_ERROR_PATH_MAX], text[ST_ERROR_PATH_MAX + 64];
    st_component_path(src, path, sizeof path);
    snprintf(text, sizeof text, "@%s.%s", path, src_field);
    return st_component_set(&r->base, field, text, err);
}

/* SOFA's ROIs hold no topology data: their outputs are plain data,
 * recomputed from their inputs whenever one changed. After a topological
 * change the inputs linked to the state and the topology (the defaults
 * below) were touched by the kernel, so the engine recomputes its lists
 * from the renumbered points and elements before anything reads them; a
 * component whose index list links to an output (FixedProjectiveConstraint
 * indices="@box.indices") gets that fresh list, as in SOFA, rather than
 * keeping its own renumbering. Nothing to do here but to say that the ROI
 * follows. */
static st_status roi_topology_changed(st_component *self, st_component *topology,
                                      const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)self, (void)topology, (void)ev, (void)nev, (void)err;
    return ST_OK;
}

st_status roi_link_defaults(roi *r, st_error *err)
{
    if (r->defaults_linked)
        return ST_OK;
    r->defaults_linked = true;
    st_component *self = &r->base;
    st_node *node = self->node;
    if (!st_component_is_set(self, "position")) {
        st_component *src = (st_component *)st_node_mstate(node);
        const char *fname = "rest_position";
        if (!src) {
            for (size_t i = 0; i < st_node_object_count(node) && !src; i++)
                if (is_loader(st_node_object(node, i))) {
                    src = st_node_object(node, i);
                    fname = "position";
                }
        }
        if (!src)
            src = st_node_find(node, ST_ROLE_STATE, ST_SEARCH_UP);
        if (!src)
            return st_component_error(self, "position", err, ST_ESCENE,
                                      "no position given and no MechanicalObject or mesh loader "
                                      "found in this node or above: set position (\"@dofs.rest_"
                                      "position\")");
        ST_TRY(link_field(r, "position", src, fname, err));
    }
    st_component *topo = NULL;
    for (size_t i = 0; i < st_node_object_count(node) && !topo; i++)
        if (st_component_has_role(st_node_object(node, i), ST_ROLE_TOPOLOGY))
            topo = st_node_object(node, i);
    if (topo) {
        static const struct {
            const char *name, *flag;
        } lists[] = {{"edges", "computeEdges"},
                     {"triangles", "computeTriangles"},
                     {"quads", "computeQuads"},
                     {"tetrahedra", "computeTetrahedra"},
                     {"hexahedra", "computeHexahedra"}};
        for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
            const st_field *mine = st_component_field(self, lists[i].name);
            const st_field *flag = st_component_field(self, lists[i].flag);
            if (!mine || st_component_is_set(self, lists[i].name))
                continue;
            if (flag && !*(bool *)st_component_field_ptr(self, flag))
                continue;
            const st_field *theirs = st_component_field(topo, lists[i].name);
            if (theirs && theirs->type == mine->type)
                ST_TRY(link_field(r, lists[i].name, topo, lists[i].name, err));
        }
    }
    st_component *followed = st_node_find(node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (followed && followed->cls->topology)
        ST_TRY(st_topology_listen(self, followed, roi_topology_changed, err));
    return st_component_update_inputs(self, err);
}

typedef struct list_spec {
    st_array *in;
    st_type type;
    bool *compute;
    st_array *idx, *elems, *idx_out, *elems_out;
} list_spec;

static st_status push_u(st_array *a, st_type t, const unsigned *v, st_error *err)
{
    if (!a)
        return ST_OK;
    unsigned w = st_type_width(t);
    size_t n = a->n;
    if (n == a->cap) {
        ST_TRY(st_array_resize(a, t, n ? 2 * n : 16, err));
    } else {
        ST_TRY(st_array_resize(a, t, n + 1, err));
    }
    a->n = n + 1;
    memcpy(a->u + n * w, v, w * sizeof(unsigned));
    return ST_OK;
}

/* Appends one coordinate (w values). */
static st_status push_p(st_array *a, const double *p, unsigned w, st_error *err)
{
    size_t n = a->n;
    if (n == a->cap)
        ST_TRY(st_array_resize_width(a, w, n ? 2 * n : 16, err));
    else
        ST_TRY(st_array_resize_width(a, w, n + 1, err));
    a->n = n + 1;
    memcpy(a->r + w * n, p, w * sizeof(double));
    return ST_OK;
}

/* Point i's position part, zero-padded to 3 (Rigid3d: the centre). */
static const double *roi_point(const roi *r, size_t i, double buf[3])
{
    const double *p = r->position.r + (size_t)r->cw * i;
    if (r->cw == 3)
        return p;
    for (unsigned a = 0; a < 3; a++)
        buf[a] = a < r->sp ? p[a] : 0.0;
    return buf;
}

/* Sets a's length to 0 keeping its storage. */
static void clear(st_array *a)
{
    if (a->cap)
        a->n = 0;
}

static bool element_inside(const roi *r, const unsigned *v, unsigned w, bool *valid)
{
    const st_array *pos = &r->position;
    *valid = true;
    for (unsigned k = 0; k < w; k++)
        if (v[k] >= pos->n) {
            *valid = false;
            return false;
        }
    if (!r->strict && r->vertices_first) {
        bool all = true;
        double b[3];
        for (unsigned k = 0; k < w && all; k++)
            all = r->inside(r, roi_point(r, v[k], b), (size_t)-1);
        if (all)
            return true;
    }
    if (!r->strict) {
        double c[3] = {0, 0, 0}, b[3];
        for (unsigned k = 0; k < w; k++) {
            const double *p = roi_point(r, v[k], b);
            for (int a = 0; a < 3; a++)
                c[a] += p[a];
        }
        for (int a = 0; a < 3; a++)
            c[a] /= w;
        return r->inside(r, c, (size_t)-1);
    }
    if (r->per_region_elements) {
        for (size_t g = 0; g < r->nregions; g++) {
            bool all = true;
            double b[3];
            for (unsigned k = 0; k < w && all; k++)
                all = r->inside(r, roi_point(r, v[k], b), g);
            if (all)
                return true;
        }
        return false;
    }
    double b[3];
    for (unsigned k = 0; k < w; k++)
        if (!r->inside(r, roi_point(r, v[k], b), (size_t)-1))
            return false;
    return true;
}

st_status roi_compute(roi *r, st_error *err)
{
    st_array *outs[] = {&r->indices,          &r->edge_indices,       &r->triangle_indices,
                        &r->quad_indices,     &r->tetrahedron_indices, &r->hexahedron_indices,
                        &r->points_in_roi,    &r->edges_in_roi,       &r->triangles_in_roi,
                        &r->quads_in_roi,     &r->tetrahedra_in_roi,  &r->hexahedra_in_roi,
                        &r->indices_out,      &r->points_out_roi,     &r->edge_out_indices,
                        &r->edges_out_roi,    &r->triangle_out_indices, &r->triangles_out_roi,
                        &r->quad_out_indices, &r->quads_out_roi,      &r->tetrahedron_out_indices,
                        &r->tetrahedra_out_roi, &r->hexahedron_out_indices, &r->hexahedra_out_roi};
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++)
        clear(outs[i]);
    const st_state_type *t = st_component_state_type(&r->base);
    r->cw = t ? t->coord_size : 3;
    r->sp = t ? t->spatial_size : 3;
    if (r->position.n == 0)
        st_component_warn(&r->base, "No rest position yet defined. ROI might not work properly, "
                                    "if this comes from a topology or a state not yet initialised");

    const st_array *pos = &r->position;
    for (size_t i = 0; i < pos->n; i++) {
        unsigned id = (unsigned)i;
        double b[3];
        const double *coord = pos->r + (size_t)r->cw * i;
        if (r->inside(r, roi_point(r, i, b), (size_t)-1)) {
            ST_TRY(push_u(&r->indices, ST_T_UINTS, &id, err));
            ST_TRY(push_p(&r->points_in_roi, coord, r->cw, err));
        } else {
            ST_TRY(push_u(&r->indices_out, ST_T_UINTS, &id, err));
            ST_TRY(push_p(&r->points_out_roi, coord, r->cw, err));
        }
    }
    r->nb_indices = (unsigned)r->indices.n;

    list_spec specs[] = {
        {&r->edges, ST_T_EDGES, &r->compute_edges, &r->edge_indices, &r->edges_in_roi,
         &r->edge_out_indices, &r->edges_out_roi},
        {&r->triangles, ST_T_TRIANGLES, &r->compute_triangles, &r->triangle_indices,
         &r->triangles_in_roi, &r->triangle_out_indices, &r->triangles_out_roi},
        {&r->quads, ST_T_QUADS, &r->compute_quads, &r->quad_indices, &r->quads_in_roi,
         &r->quad_out_indices, &r->quads_out_roi},
        {&r->tetrahedra, ST_T_TETRAS, &r->compute_tetrahedra, &r->tetrahedron_indices,
         &r->tetrahedra_in_roi, &r->tetrahedron_out_indices, &r->tetrahedra_out_roi},
        {&r->hexahedra, ST_T_HEXAS, &r->compute_hexahedra, &r->hexahedron_indices,
         &r->hexahedra_in_roi, &r->hexahedron_out_indices, &r->hexahedra_out_roi},
    };
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        list_spec *l = &specs[s];
        if (!*l->compute)
            continue;
        unsigned w = st_type_width(l->type);
        for (size_t e = 0; e < l->in->n; e++) {
            const unsigned *v = l->in->u + w * e;
            unsigned id = (unsigned)e;
            bool valid = true;
            bool in = element_inside(r, v, w, &valid);
            if (!valid)
                continue;
            if (in) {
                ST_TRY(push_u(l->idx, ST_T_UINTS, &id, err));
                ST_TRY(push_u(l->elems, l->type, v, err));
            } else {
                ST_TRY(push_u(l->idx_out, ST_T_UINTS, &id, err));
                ST_TRY(push_u(l->elems_out, l->type, v, err));
            }
        }
    }
    r->computed_once = true;
    return ST_OK;
}
