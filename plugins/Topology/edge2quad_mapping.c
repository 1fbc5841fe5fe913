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
 * radiusFocal <= 0 a warning. Topological changes of the input are not
 * propagated (SOFA propagates added and removed edges): a removal is an
 * error naming this mapping. */
#include <math.h>
#include <string.h>

#include "topology.h"

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

static st_status edge2quad_changed(st_component *self, st_component *topology,
                                   const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    for (size_t e = 0; e < nev; e++)
        if (ev[e].change == ST_TOPO_REMOVED && ev[e].n)
            return st_component_error(self, NULL, err, ST_ESCENE,
                                      "elements of '%s' were removed, but settee's "
                                      "Edge2QuadTopologicalMapping does not propagate "
                                      "topological changes yet: its output '%s' would name "
                                      "points that no longer exist",
                                      ((edge2quad *)self)->input->name,
                                      ((edge2quad *)self)->output->name);
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
    ST_TRY(st_array_resize_width(&out->position, 3, n, err));
    ST_TRY(st_array_resize_width(&out->velocity, 3, n, err));
    ST_TRY(st_array_resize_width(&out->rest_position, 3, n, err));
    if (out->force.n)
        ST_TRY(st_array_resize_width(&out->force, 3, n, err));
    if (out->external_force.n)
        ST_TRY(st_array_resize_width(&out->external_force, 3, n, err));
    out->size = (unsigned)n;
    out->n = n;
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
    if (!m->listening) {
        ST_TRY(st_topology_listen(self, m->input, edge2quad_changed, err));
        ST_TRY(st_topology_listen(self, m->output, output_changed, err));
        ST_TRY(topo_map_listen_others(self, m->input, m->output, err));
        m->listening = true;
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
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
};
