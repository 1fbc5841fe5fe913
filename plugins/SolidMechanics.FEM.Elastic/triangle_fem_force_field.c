/* triangle_fem_force_field.c - TriangleFEMForceField: SOFA's linear
 * triangle (membrane, plane stress or plane strain), small or corotational
 * large displacements.
 *
 * Per element (vertices a, b, c; SOFA's conventions):
 *   K: 3x3 material matrix times thickness and rest area;
 *   large: R from the current triangle (x along ab, z normal, y completing;
 *      rows of R are the axes), b and c in that frame (a at the origin),
 *      D = rest - current in the frame (6 values, the components SOFA's
 *      frame makes zero left out), J the 6x3 strain-displacement matrix of
 *      the *current* local shape, f = R^T J K J^T D;
 *   small: D from the global x and y of b - a and c - a, J from the same
 *      (SOFA's local formula applied to global coordinates: exact when ab
 *      lies along x), forces on x and y only.
 * add_dforce and the matrix use the J and R of the last add_force (SOFA's
 * tangent, without the derivatives of J and R). When the topology has no
 * triangles, each quad (q0 q1 q2 q3) becomes (q0 q1 q2) and (q0 q2 q3). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "../shared/topology_link.h"
#include "triangle_fem.h"

static const char *const method_names[] = {"large", "small"};

/* F = J K J^T D (6 values). */
static void element_force(const double J[6][3], const double K[9], const double D[6], double F[6])
{
    double e[3], s[3];
    for (int c = 0; c < 3; c++) {
        double a = 0;
        for (int r = 0; r < 6; r++)
            a += J[r][c] * D[r];
        e[c] = a;
    }
    fem_mulv3(s, K, e);
    for (int r = 0; r < 6; r++)
        F[r] = J[r][0] * s[0] + J[r][1] * s[1] + J[r][2] * s[2];
}

/* ---- Init ---- */

static void material(tri_fem *s, size_t i, const double *x0)
{
    tri *t = &s->e[i];
    double nu = fem_value_in_element(&s->poisson_ratio, i, FEM_DEFAULT_POISSON);
    double E = fem_value_in_element(&s->young_modulus, i, FEM_DEFAULT_YOUNG);
    const double *a = x0 + 3 * t->v[0], *b = x0 + 3 * t->v[1], *c = x0 + 3 * t->v[2];
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]}, n[3];
    fem_cross(n, u, w);
    double area = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) / 2;
    double vol = s->thickness * area;
    double *K = t->K;
    if (s->plane_strain) {
        double k = E / ((1 + nu) * (1 - 2 * nu)) * vol;
        double m[9] = {1 - nu, nu, 0, nu, 1 - nu, 0, 0, 0, 0.5 - nu};
        for (int j = 0; j < 9; j++)
            K[j] = m[j] * k;
    } else {
        double k = E / (1 - nu * nu) * vol;
        double m[9] = {1, nu, 0, nu, 1, 0, 0, 0, 0.5 * (1 - nu)};
        for (int j = 0; j < 9; j++)
            K[j] = m[j] * k;
    }
}

static st_status init_element(tri_fem *s, size_t i, const double *x0, st_error *err)
{
    tri *t = &s->e[i];
    const double *a = x0 + 3 * t->v[0], *b = x0 + 3 * t->v[1], *c = x0 + 3 * t->v[2];
    memset(t->rest, 0, sizeof t->rest);
    if (s->meth == TM_SMALL) {
        for (int k = 0; k < 9; k++)
            t->R[k] = k % 4 == 0 ? 1.0 : 0.0;
        for (int k = 0; k < 3; k++) {
            t->rest[1][k] = b[k] - a[k];
            t->rest[2][k] = c[k] - a[k];
        }
        memset(t->J, 0, sizeof t->J);
        return ST_OK;
    }
    double r[9];
    fem_rotation_large(r, a, b, c);
    fem_transpose3(t->R, r);
    double ra[3], rb[3], rc[3];
    fem_mulv3(ra, r, a);
    fem_mulv3(rb, r, b);
    fem_mulv3(rc, r, c);
    for (int k = 0; k < 3; k++) {
        t->rest[1][k] = rb[k] - ra[k];
        t->rest[2][k] = rc[k] - ra[k];
    }
    if (!fem_tri_strain_local(t->J, t->rest[1], t->rest[2]))
        return st_component_error(&s->base, "topology", err, ST_EINVAL,
                                  "triangle %zu (vertices %u %u %u) is flat: null determinant "
                                  "in its strain-displacement matrix",
                                  i, t->v[0], t->v[1], t->v[2]);
    return ST_OK;
}

static void tri_free(tri_fem *s)
{
    st_free(s->e);
    s->e = NULL;
    s->ne = 0;
}

static st_status collect(tri_fem *s, st_error *err)
{
    const st_array *tr = fem_elements(s->topology, ST_T_TRIANGLES);
    const st_array *qd = tr ? NULL : fem_elements(s->topology, ST_T_QUADS);
    s->from_quads = qd != NULL;
    if (!tr && !qd) {
        st_component_warn(&s->base, "No triangles found in linked Topology.");
        return ST_OK;
    }
    s->ne = tr ? tr->n : 2 * qd->n;
    s->e = st_calloc(s->ne, sizeof *s->e);
    if (!s->e)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu triangles)", s->ne);
    if (tr) {
        for (size_t i = 0; i < tr->n; i++)
            memcpy(s->e[i].v, tr->u + 3 * i, sizeof s->e[i].v);
        return ST_OK;
    }
    for (size_t i = 0; i < qd->n; i++) {
        const unsigned *q = qd->u + 4 * i;
        unsigned *t0 = s->e[2 * i].v, *t1 = s->e[2 * i + 1].v;
        t0[0] = q[0], t0[1] = q[1], t0[2] = q[2];
        t1[0] = q[0], t1[1] = q[2], t1[2] = q[3];
    }
    return ST_OK;
}

/* ---- Topological changes ---- */

/* An added triangle is computed by the listener, once the initial
 * positions of its points are there. */
static void tri_create(void *ud, size_t i, void *item, const st_topo_event *ev, size_t k)
{
    (void)ud, (void)i;
    tri *t = item;
    if (ev->vertices)
        memcpy(t->v, ev->vertices + 3 * k, sizeof t->v);
    t->fresh = true;
}

static const st_topo_follow_ops tri_follow_ops = {
    .struct_size = sizeof(st_topo_follow_ops),
    .create = tri_create,
};

/* After a change (SOFA's TriangleFEMForceField does not handle them; this
 * is its TopologyData's meaning): the kept triangles keep their data,
 * their vertex indices are re-read, added ones computed from the initial
 * positions (which follow the points); triangles cut from quads are cut
 * again. */
static st_status tri_topology_changed(st_component *self, st_component *topology,
                                      const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    tri_fem *s = (tri_fem *)self;
    const double *x0 = s->initial_points.r;
    if (s->from_quads) {
        tri_free(s);
        ST_TRY(collect(s, err));
        for (size_t i = 0; i < s->ne; i++) {
            ST_TRY(init_element(s, i, x0, err));
            material(s, i, x0);
        }
        return ST_OK;
    }
    fem_follow_list(self, "youngModulus", &s->young_modulus, 1, 1, ST_ELEM_TRIANGLE, ev, nev);
    fem_follow_list(self, "poissonRatio", &s->poisson_ratio, 1, 1, ST_ELEM_TRIANGLE, ev, nev);
    ST_TRY(fem_reread_vertices(self, s->e, s->ne, sizeof *s->e,
                               fem_elements(s->topology, ST_T_TRIANGLES), 3, err));
    if (st_topology_state_ahead(s->topology, s->initial_points.n))
        return ST_OK; /* the point removal follows: checked then */
    for (size_t i = 0; i < s->ne; i++)
        ST_TRY(fem_check_indices(self, s->e[i].v, 1, 3, s->initial_points.n, "triangle", err));
    for (size_t i = 0; i < s->ne; i++)
        if (s->e[i].fresh) {
            s->e[i].fresh = false;
            ST_TRY(init_element(s, i, x0, err));
            material(s, i, x0);
        }
    return ST_OK;
}

/* Registers once per topology (reinit calls init again). */
static st_status follow_topology(tri_fem *s, st_error *err)
{
    if (s->followed == s->topology)
        return ST_OK;
    st_component *self = &s->base;
    if (!s->from_quads && s->e)
        ST_TRY(st_topology_follow(self, s->topology, ST_ELEM_TRIANGLE, (void **)&s->e, &s->ne,
                                  sizeof *s->e, &tri_follow_ops, s, err));
    ST_TRY(st_topology_follow_field(self, "initialPoints", s->topology, ST_ELEM_POINT, NULL, NULL,
                                    err));
    ST_TRY(st_topology_listen(self, s->topology, tri_topology_changed, err));
    s->followed = s->topology;
    return ST_OK;
}

static st_status tri_init(st_component *self, st_error *err)
{
    tri_fem *s = (tri_fem *)self;
    tri_free(s);
    self->state = ST_CSTATE_INVALID;
    ST_TRY(fem_bind(self, &s->young_modulus, &s->poisson_ratio, &s->ms, &s->topology, err));
    s->meth = fem_method_index(s->method, method_names, 2);
    if (s->meth < 0) {
        st_component_warn(self, "Input Method is not possible: %s, should be 0 (Large) or 1 "
                                "(Small). Setting default value: Large",
                          s->method ? s->method : "");
        s->meth = TM_LARGE;
    }
    ST_TRY(collect(s, err));
    size_t np = s->ms->rest_position.n;
    for (size_t i = 0; i < s->ne; i++)
        ST_TRY(fem_check_indices(self, s->e[i].v, 1, 3, np, "triangle", err));
    /* initialPoints: the rest positions unless given. */
    if (s->initial_points.n == 0) {
        ST_TRY(st_array_resize(&s->initial_points, ST_T_VEC3S, np, err));
        memcpy(s->initial_points.r, s->ms->rest_position.r, 3 * np * sizeof(double));
    } else if (s->initial_points.n < np) {
        return st_component_error(self, "initialPoints", err, ST_EINVAL,
                                  "%zu initial points for a state of %zu", s->initial_points.n,
                                  np);
    }
    const double *x0 = s->initial_points.r;
    for (size_t i = 0; i < s->ne; i++) {
        ST_TRY(init_element(s, i, x0, err));
        material(s, i, x0);
    }
    ST_TRY(follow_topology(s, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void tri_cleanup(st_component *self)
{
    tri_free((tri_fem *)self);
}

/* ---- Forces ---- */

static void tri_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                          const double *v)
{
    (void)mp, (void)v;
    tri_fem *s = (tri_fem *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    double *fs = fem_derivs(f, s->ms);
    const double *p = fem_coords(x, s->ms);
    for (size_t i = 0; i < s->ne; i++) {
        tri *t = &s->e[i];
        const double *pa = p + 3 * t->v[0], *pb = p + 3 * t->v[1], *pc = p + 3 * t->v[2];
        double db[3], dc[3], D[6], F[6], J[6][3];
        double ab[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
        double ac[3] = {pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]};
        double r[9];
        if (s->meth == TM_SMALL) {
            memcpy(db, ab, sizeof db);
            memcpy(dc, ac, sizeof dc);
            double d[6] = {0, 0, t->rest[1][0] - db[0], t->rest[1][1] - db[1],
                           t->rest[2][0] - dc[0], t->rest[2][1] - dc[1]};
            memcpy(D, d, sizeof D);
        } else {
            fem_rotation_large(r, pa, pb, pc);
            fem_mulv3(db, r, ab);
            fem_mulv3(dc, r, ac);
            double d[6] = {0, 0, t->rest[1][0] - db[0], 0, t->rest[2][0] - dc[0],
                           t->rest[2][1] - dc[1]};
            memcpy(D, d, sizeof D);
        }
        if (!fem_tri_strain_local(J, db, dc))
            continue; /* degenerate now: SOFA stops with an error; no force from it */
        memcpy(t->J, J, sizeof J);
        element_force(J, t->K, D, F);
        if (s->meth == TM_LARGE)
            fem_transpose3(t->R, r);
        fem_tri_scatter(fs, t->R, F, t->v, 1.0);
    }
}

static void tri_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                           double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    tri_fem *s = (tri_fem *)self;
    double *dfs = fem_derivs(df, s->ms);
    const double *d = fem_dx(dx, s->ms);
    for (size_t i = 0; i < s->ne; i++) {
        const tri *t = &s->e[i];
        double X[6], F[6];
        fem_tri_gather(X, t->R, d, t->v);
        element_force(t->J, t->K, X, F);
        fem_tri_scatter(dfs, t->R, F, t->v, -kfactor);
    }
}

static void tri_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    tri_fem *s = (tri_fem *)self;
    for (size_t i = 0; i < s->ne; i++) {
        const tri *t = &s->e[i];
        double b[3][3][9];
        fem_tri_stiffness_blocks(t->J, t->K, t->R, -kfactor, b);
        for (int n1 = 0; n1 < 3; n1++)
            for (int n2 = 0; n2 < 3; n2++)
                fem_add_block(m, s->ms, t->v[n1], t->v[n2], b[n1][n2]);
    }
}

static double tri_rayleigh(const st_component *self)
{
    return ((const tri_fem *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops tri_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = tri_add_force,
    .add_dforce = tri_add_dforce,
    .add_k_to_matrix = tri_add_k,
    .rayleigh_stiffness = tri_rayleigh,
};

#define T tri_fem
static const st_field tri_fields[] = {
    FEM_F_RAYLEIGH(T),
    FEM_F_MATERIAL(T),
    FEM_F_TOPOLOGY(T),
    ST_VEC3S(T, initial_points, "initialPoints", NULL,
             "Initial Position (the state's rest positions at init when empty)"),
    ST_STRING(T, method, "method", "large",
              "large: large displacements, small: small displacements"),
    ST_REAL(T, thickness, "thickness", "1", "Thickness of the elements"),
    ST_BOOL(T, plane_strain, "planeStrain", "false", "Plane strain or plane stress assumption"),
    ST_FIELD_END};
#undef T

const st_class triangle_fem_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "TriangleFEMForceField",
    .category = "ForceField",
    .description = "Triangular membrane finite elements (linear elasticity, plane stress or "
                   "strain; small, or corotational large)",
    .instance_size = sizeof(tri_fem),
    .fields = tri_fields,
    .init = tri_init,
    .reinit = tri_init,
    .cleanup = tri_cleanup,
    .forcefield = &tri_ops,
};
