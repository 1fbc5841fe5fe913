/* edge2quad_mapping.c - Edge2QuadTopologicalMapping: a tube of quads around
 * the edges of a chain of Rigid3d frames (SOFA's Sofa.Component.Topology.
 * Mapping). Each input point i gets N = nbPointsOnEachCircle output points
 * i N + j; each input edge (p0, p1) (all of them, or those of `edgeList`)
 * gets N quads
 *   (p0 N + j, p1 N + j, p1 N + (j+1)%N, p0 N + (j+1)%N),
 * with flipNormals reversed as SOFA reverses them: (q3, q2, q1, q0) for all
 * edges, (q0, q3, q2, q1) for an edgeList. The output container gets
 * nbPoints = N x the input's points, and, when the output's node has a
 * Vec3d state, that state gets the circles' positions at init:
 *   x_{iN+j} = c_i + rho (cos(2 pi j / N) R_i e_y + sin(2 pi j / N) R_i e_z),
 * or with radiusFocal an ellipse, Z0 = focalAxis normalised, Y0 = Z0 x e_x,
 *   x = c + rho cos() R Y0 + radiusFocal sin() R Z0
 * (c, R the frame of the input's Rigid3d state). SOFA's init checks:
 * neither radius nor radiusFocal set, or radius <= 0, is an error; a
 * radiusFocal <= 0 a warning.
 *
 * Changes of the input, as SOFA's updateTopologicalMappingTopDown: a
 * removed edge's N quads are removed from the output (edge after edge, with
 * the output's edges they leave isolated), and the input's last edge takes
 * the removed one's index in the quads' input edges (Loc2Glob, followed by
 * the output's quads); an added edge (p0, p1) adds its N quads (q0 q1 q2
 * q3), not flipped, whatever edgeList, as SOFA's; an added point adds N
 * output points, point j of ancestors a N + j with the input's
 * coefficients (SOFA writes coefficient c N + j there, which is not a
 * weight). A removed input point removes its circle, points p N + N - 1
 * down to p N, so that output point i N + j stays on input point i (SOFA
 * lets the output's quad removal drop the points it isolates, edge by edge:
 * the same numbering when one point goes per change). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"
#include "../shared/mapping_common.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct edge2quad {
    st_component base;
    st_component *input;   /* "input": edge topology */
    st_component *output; /* "output": QuadSetTopologyContainer */
    unsigned n_circle;     /* "nbPointsOnEachCircle" */
    double radius;         /* "radius" */
    double radius_focal;   /* "radiusFocal" */
    st_vec3 focal_axis;    /* "focalAxis" */
    st_array edge_list;    /* "edgeList" */
    bool flip_normals;     /* "flipNormals" */
    st_component *to_quad_container; /* "toQuadContainer" */
    st_component *to_quad_modifier;  /* "toQuadModifier" */
    bool listening;
    /* The input edge of each output quad (SOFA's Loc2GlobVec), followed by
     * the output's quads; UINT_MAX: not made by this mapping. */
    unsigned *loc2glob;
    size_t nloc;
    const unsigned *pending; /* input edges of the quads being added */
} edge2quad;

static const st_field edge2quad_fields[] = {
    TOPO_MAP_LINKS(edge2quad, "Input topology (edges of a Rigid3d state)",
                   "Output topology (a QuadSetTopologyContainer)"),
    ST_UINT(edge2quad, n_circle, "nbPointsOnEachCircle", "0", "Discretization of created circles"),
    ST_REAL(edge2quad, radius, "radius", "1", "Radius of created circles in yz plan"),
    ST_REAL(edge2quad, radius_focal, "radiusFocal", "0",
            "If greater than 0., radius in focal axis of created ellipses"),
    ST_VEC3(edge2quad, focal_axis, "focalAxis", "0 0 1", "In case of ellipses"),
    ST_UINTS(edge2quad, edge_list, "edgeList", NULL,
             "list of input edges for the topological mapping: by default, all considered"),
    ST_BOOL(edge2quad, flip_normals, "flipNormals", "false",
            "Flip Normal ? (Inverse point order when creating quad)"),
    ST_LINK(edge2quad, to_quad_container, "toQuadContainer", ST_LINK_TOPOLOGY,
            "Output container storing Quads (settee: the output container)"),
    ST_LINK(edge2quad, to_quad_modifier, "toQuadModifier", ST_LINK_ANY,
            "Output modifier handling Quads"),
    ST_FIELD_END};

/* The kernel appends an output quad: its input edge is the one this
 * mapping is adding it for, or none when another component added it. */
static void quad_created(void *ud, size_t i, void *item, const st_topo_event *ev, size_t k)
{
    (void)i, (void)ev;
    const edge2quad *m = ud;
    *(unsigned *)item = m->pending ? m->pending[k] : UINT_MAX;
}

static const st_topo_follow_ops quad_ops = {
    .struct_size = sizeof(st_topo_follow_ops),
    .create = quad_created,
};

static int cmp_desc(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x < y) - (x > y);
}

/* EDGESREMOVED: each removed edge's quads go, edge after edge. */
static st_status edges_removed(edge2quad *m, const st_topo_event *ev, st_error *err)
{
    const unsigned N = m->n_circle;
    unsigned *ids = st_malloc((N ? N : 1) * sizeof *ids);
    if (!ids)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    st_status st = ST_OK;
    for (size_t k = 0; k < ev->n && st == ST_OK; k++) {
        unsigned g = ev->index[k], last = (unsigned)(ev->before - 1 - k);
        size_t n = 0;
        for (size_t l = 0; l < m->nloc; l++)
            if (m->loc2glob[l] == g && n < N) {
                ids[n++] = (unsigned)l;
                m->loc2glob[l] = UINT_MAX;
            }
        for (size_t l = 0; l < m->nloc; l++)
            if (m->loc2glob[l] == last)
                m->loc2glob[l] = g;
        if (!n)
            continue; /* not in edgeList: SOFA says so at information level */
        qsort(ids, n, sizeof *ids, cmp_desc);
        st = topo_remove_ex(m->output, ST_ELEM_QUAD, ids, n, true, false, err);
    }
    st_free(ids);
    return st;
}

/* EDGESADDED: N quads per new edge, in the output's current numbering. */
static st_status edges_added(edge2quad *m, const st_topo_event *ev, st_error *err)
{
    const unsigned N = m->n_circle;
    if (!ev->vertices || !N)
        return ST_OK;
    size_t nq = ev->n * N;
    unsigned *v = st_malloc(4 * nq * sizeof *v), *g = st_malloc(nq * sizeof *g);
    if (!v || !g) {
        st_free(v), st_free(g);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < ev->n; k++) {
        unsigned p0 = ev->vertices[2 * k], p1 = ev->vertices[2 * k + 1];
        for (unsigned j = 0; j < N; j++) {
            unsigned *o = v + 4 * (k * N + j);
            o[0] = p0 * N + j, o[1] = p1 * N + j, o[2] = p1 * N + (j + 1) % N,
            o[3] = p0 * N + (j + 1) % N;
            g[k * N + j] = ev->index[k];
        }
    }
    m->pending = g;
    st_status st = topo_add(m->output, ST_ELEM_QUAD, v, nq, err);
    m->pending = NULL;
    st_free(v), st_free(g);
    return st;
}

/* POINTSADDED: N output points per new input point. */
static st_status points_added(edge2quad *m, const st_topo_event *ev, st_error *err)
{
    const unsigned N = m->n_circle;
    if (!N)
        return ST_OK;
    size_t n = ev->n * N, na = ev->ancestor_start ? ev->ancestor_start[ev->n] : 0;
    if (!ev->ancestor_start || !ev->ancestors)
        return topo_add_points(m->output, n, NULL, NULL, NULL, err);
    size_t *start = st_malloc((n + 1) * sizeof *start);
    unsigned *anc = st_malloc((na * N + 1) * sizeof *anc);
    double *coef = st_malloc((na * N + 1) * sizeof *coef);
    if (!start || !anc || !coef) {
        st_free(start), st_free(anc), st_free(coef);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    size_t at = 0;
    for (size_t k = 0; k < ev->n; k++)
        for (unsigned j = 0; j < N; j++) {
            start[k * N + j] = at;
            for (size_t a = ev->ancestor_start[k]; a < ev->ancestor_start[k + 1]; a++, at++) {
                anc[at] = ev->ancestors[a] * N + j;
                coef[at] = ev->coefs ? ev->coefs[a] : 1.0;
            }
        }
    start[n] = at;
    st_status st = topo_add_points(m->output, n, start, anc, coef, err);
    st_free(start), st_free(anc), st_free(coef);
    return st;
}

/* POINTSREMOVED: input point p's circle, p N + N - 1 down to p N. */
static st_status points_removed(edge2quad *m, const st_topo_event *ev, st_error *err)
{
    const unsigned N = m->n_circle;
    if (!N)
        return ST_OK;
    unsigned *ids = st_malloc(ev->n * N * sizeof *ids);
    if (!ids)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t k = 0; k < ev->n; k++)
        for (unsigned j = 0; j < N; j++)
            ids[k * N + j] = ev->index[k] * N + (N - 1 - j);
    st_status st = topo_remove_ex(m->output, ST_ELEM_POINT, ids, ev->n * N, false, false, err);
    st_free(ids);
    return st;
}

static st_status edge2quad_changed(st_component *self, st_component *topology,
                                   const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    edge2quad *m = (edge2quad *)self;
    if (self->state != ST_CSTATE_VALID)
        return ST_OK;
    for (size_t e = 0; e < nev; e++) {
        const st_topo_event *x = &ev[e];
        if (!x->n)
            continue;
        if (x->elem == ST_ELEM_EDGE)
            ST_TRY(x->change == ST_TOPO_REMOVED ? edges_removed(m, x, err)
                                                : edges_added(m, x, err));
        else if (x->elem == ST_ELEM_POINT)
            ST_TRY(x->change == ST_TOPO_REMOVED ? points_removed(m, x, err)
                                                : points_added(m, x, err));
    }
    return ST_OK;
}

static st_status output_changed(st_component *self, st_component *topology,
                                const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)self, (void)topology, (void)ev, (void)nev, (void)err;
    return ST_OK;
}

/* The Vec3d state of node n itself (not of an ancestor), or NULL. */
static st_mstate *local_vec3_state(const st_node *n)
{
    st_component *c = st_node_find(n, ST_ROLE_STATE, ST_SEARCH_LOCAL);
    st_mstate *ms = c ? (st_mstate *)c : NULL;
    return ms && ms->type == &st_vec3d_type ? ms : NULL;
}

/* The circles' positions into the output node's state, resized. */
static st_status write_positions(edge2quad *m, const st_mstate *in, st_mstate *out, bool ellipse,
                                 st_error *err)
{
    const unsigned N = m->n_circle;
    size_t np = in->position.n, n = np * N;
    ST_TRY(map_resize_output(out, n, err)); /* a Vec3d state (local_vec3_state) */
    double Y0[3] = {0, 1, 0}, Z0[3] = {0, 0, 1};
    if (ellipse) {
        const double *a = m->focal_axis;
        double l = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        for (int k = 0; k < 3; k++)
            Z0[k] = l > 0 ? a[k] / l : a[k];
        /* Z0 x (1, 0, 0) */
        Y0[0] = 0.0;
        Y0[1] = Z0[2];
        Y0[2] = -Z0[1];
    }
    for (size_t i = 0; i < np; i++) {
        const double *c = in->position.r + 7 * i;
        double Y[3], Z[3];
        st_quat_rotate(Y, c + 3, Y0);
        st_quat_rotate(Z, c + 3, Z0);
        for (unsigned j = 0; j < N; j++) {
            double a = 2.0 * (double)j * M_PI / (double)N, ca = cos(a), sa = sin(a);
            double *x = out->position.r + 3 * (i * N + j);
            for (int k = 0; k < 3; k++)
                x[k] = ellipse ? c[k] + Y[k] * ca * m->radius + Z[k] * sa * m->radius_focal
                               : c[k] + (Y[k] * ca + Z[k] * sa) * m->radius;
        }
    }
    memset(out->velocity.r, 0, 3 * n * sizeof(double));
    if (n)
        memcpy(out->rest_position.r, out->position.r, 3 * n * sizeof(double));
    st_component_touch(&out->base, st_component_field(&out->base, "position"));
    return ST_OK;
}

static st_status edge2quad_init(st_component *self, st_error *err)
{
    edge2quad *m = (edge2quad *)self;
    self->state = ST_CSTATE_INVALID;
    bool radius_set = st_component_is_set(self, "radius");
    bool focal_set = st_component_is_set(self, "radiusFocal");
    if (!radius_set && !focal_set)
        return st_component_error(self, "radius", err, ST_ESCENE,
                                  "No radius (neither radius nor radiusFocal) defined");
    if (radius_set && !(m->radius > 0.0))
        return st_component_error(self, "radius", err, ST_EINVAL, "Radius is zero or negative");
    if (focal_set && !(m->radius_focal > 0.0))
        st_component_warn_field(self, "radiusFocal", "Focal Radius is zero or negative");
    bool ellipse = focal_set && m->radius_focal > 0.0;
    if (!m->output && m->to_quad_container)
        m->output = m->to_quad_container;
    ST_TRY(topo_map_check(self, m->input, m->output, "edges", "quads", TOPO_DYNAMIC,
                          "QuadSetTopologyContainer", err));
    static const char *const modifiers[] = {"QuadSetTopologyModifier",
                                            "HexahedronSetTopologyModifier", NULL};
    if (!m->to_quad_modifier && !topo_map_find_modifier(m->output->node, modifiers))
        return st_component_error(self, "toQuadModifier", err, ST_ESCENE,
                                  "The necessary quad modifier has not been set (or could not be "
                                  "found): add a QuadSetTopologyModifier next to '%s'",
                                  m->output->name);
    const st_mstate *in = st_component_mstate(m->input);
    if (!in || in->type != &st_rigid3d_type)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "State object associated with the input is not of type Rigid "
                                  "(%s): Edge2QuadTopologicalMapping only supports Rigid3d to "
                                  "Vec3d",
                                  in ? in->type->name : "no state");
    const st_array *edges = m->input->cls->topology->elements(m->input, ST_T_EDGES);
    size_t ne = edges ? edges->n : 0;
    for (size_t k = 0; k < m->edge_list.n; k++)
        if (m->edge_list.u[k] >= ne)
            return st_component_error(self, "edgeList", err, ST_EINVAL,
                                      "edge %u is out of range: '%s' has %zu edges",
                                      m->edge_list.u[k], m->input->name, ne);
    const unsigned N = m->n_circle;
    topo *out = (topo *)m->output;
    static const char *const lists[] = {"quads", "edges", NULL};
    topo_map_begin(m->input, out, lists);
    size_t np = out->nb_points;
    /* A topology with elements and no points (a MeshTopology of lines)
     * counts its state's points, as SOFA's getNbPoints does. */
    if (np == 0)
        np = in->position.n;
    for (size_t i = 0; i < 2 * ne; i++)
        if (edges->u[i] >= np && np)
            return st_component_error(self, "input", err, ST_EINVAL,
                                      "edge %zu of '%s' uses point %u; it has %zu points", i / 2,
                                      m->input->name, edges->u[i], np);
    out->nb_points = (unsigned)(np * N);
    st_mstate *to = local_vec3_state(m->output->node);
    if (to) {
        if (in->position.n != np)
            return st_component_error(self, "input", err, ST_ESCENE,
                                      "the input's state '%s' has %zu points, its topology '%s' "
                                      "%zu",
                                      in->base.name, in->position.n, m->input->name, np);
        ST_TRY(write_positions(m, in, to, ellipse, err));
    }
    size_t nsel = m->edge_list.n ? m->edge_list.n : ne;
    ST_TRY(st_array_resize(&out->quads, ST_T_QUADS, nsel * N, err));
    size_t q = 0;
    for (size_t s = 0; s < nsel; s++) {
        size_t e = m->edge_list.n ? m->edge_list.u[s] : s;
        unsigned p0 = edges->u[2 * e], p1 = edges->u[2 * e + 1];
        for (unsigned j = 0; j < N; j++) {
            unsigned q0 = p0 * N + j, q1 = p1 * N + j, q2 = p1 * N + (j + 1) % N,
                     q3 = p0 * N + (j + 1) % N;
            unsigned *o = out->quads.u + 4 * q++;
            if (!m->flip_normals) {
                o[0] = q0, o[1] = q1, o[2] = q2, o[3] = q3;
            } else if (m->edge_list.n) {
                o[0] = q0, o[1] = q3, o[2] = q2, o[3] = q1;
            } else {
                o[0] = q3, o[1] = q2, o[2] = q1, o[3] = q0;
            }
        }
    }
    ST_TRY(topo_map_end(out, "quads", err));
    unsigned *l2g = st_realloc(m->loc2glob, (q ? q : 1) * sizeof *l2g);
    if (!l2g)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    m->loc2glob = l2g;
    m->nloc = q;
    for (size_t s = 0; s < nsel; s++)
        for (unsigned j = 0; j < N; j++)
            m->loc2glob[s * N + j] = (unsigned)(m->edge_list.n ? m->edge_list.u[s] : s);
    if (!m->listening) {
        ST_TRY(st_topology_follow(self, m->output, ST_ELEM_QUAD, (void **)&m->loc2glob, &m->nloc,
                                  sizeof *m->loc2glob, &quad_ops, m, err));
        ST_TRY(st_topology_listen(self, m->input, edge2quad_changed, err));
        ST_TRY(st_topology_listen(self, m->output, output_changed, err));
        ST_TRY(topo_map_listen_others(self, m->input, m->output, err));
        m->listening = true;
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void edge2quad_cleanup(st_component *self)
{
    edge2quad *m = (edge2quad *)self;
    st_free(m->loc2glob);
    m->loc2glob = NULL;
    m->nloc = 0;
}

const st_class edge2quad_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "Edge2QuadTopologicalMapping",
    .category = "TopologicalMapping",
    .description = "Topological mapping where EdgeSetTopology is converted to QuadSetTopology "
                   "(a tube of quads around a chain of Rigid3d frames)",
    .instance_size = sizeof(edge2quad),
    .fields = edge2quad_fields,
    .init = edge2quad_init,
    .reinit = edge2quad_init,
    .cleanup = edge2quad_cleanup,
};
