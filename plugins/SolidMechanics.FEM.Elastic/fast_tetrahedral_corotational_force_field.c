/* fast_tetrahedral_corotational_force_field.c -
 * FastTetrahedralCorotationalForceField: SOFA's corotational linear
 * tetrahedron written on edges.
 *
 * Per element (vertices 0..3, SOFA's local edges (0 1) (0 2) (0 3) (1 2)
 * (1 3) (2 3), edge j from k to l):
 *   shape vectors s_j (gradients of the barycentric coordinates, from the
 *   rest shape and V = minus SOFA's signed volume), Lame lambda and mu of
 *   E and nu times |V|;
 *   L_j(m, n) = lambda s_k[n] s_l[m] + mu s_l[n] s_k[m] + mu (s_l . s_k) d_mn
 *   for each edge, Ld_j the same with k = l = j (the diagonal blocks);
 *   R the rotation rest -> deformed: polar decomposition of the
 *   deformation gradient ("polar"), the frame of the first two deformed
 *   edges times the rest frame ("qr", also "large"), the polar factor of
 *   the deformed edge matrix times the rest one ("polar2"), identity
 *   ("none", "linear", "small");
 *   u_j = R^T (x_l - x_k) - rest edge j, F_l += L_j u_j, F_k -= L_j^T u_j,
 *   f = R F.
 * add_dforce and the matrix use R of the last add_force (without its
 * derivative: exact at a rigidly moved rest state, and for "none"): the
 * edge blocks R L_j R^T, which add_force stores per element and the first
 * add_dforce after it sums onto the mesh edges, as SOFA does (then 2 3x3
 * products per mesh edge). Potential energy: SOFA has none (warns, 0);
 * settee returns the strain energy 1/2 w^T K w of the local nodal
 * displacements w (R^T x less the rest shape). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fast_tetra.h"
#include "../shared/topology_link.h"

static const unsigned tet_edges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

static int method_of(const char *m)
{
    if (!m)
        return -1;
    if (!strcmp(m, "polar"))
        return FT_POLAR;
    if (!strcmp(m, "qr") || !strcmp(m, "large"))
        return FT_QR;
    if (!strcmp(m, "polar2"))
        return FT_POLAR2;
    if (!strcmp(m, "none") || !strcmp(m, "linear") || !strcmp(m, "small"))
        return FT_LINEAR;
    return -1;
}

/* SOFA's computeQRRotation: rows of r are the frame of edges d0, d1. */
static void qr_rotation(double r[9], const double d0[3], const double d1[3])
{
    fem_frame(r, d0, d1);
}

/* ---- Init ---- */

static void init_element(ftc_fem *s, size_t i, const double *x0)
{
    ftc_elem *t = &s->e[i];
    double E = fem_value_in_element(&s->young_modulus, i, FEM_DEFAULT_YOUNG);
    double nu = fem_value_in_element(&s->poisson_ratio, i, FEM_DEFAULT_POISSON);
    double lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
    double p[4][3];
    for (int k = 0; k < 4; k++)
        memcpy(p[k], x0 + 3 * t->v[k], sizeof p[k]);
    double a[3], b[3], c[3], n[3];
    for (int k = 0; k < 3; k++)
        a[k] = p[1][k] - p[0][k], b[k] = p[2][k] - p[0][k], c[k] = p[3][k] - p[0][k];
    fem_cross(n, a, b);
    double V = -(n[0] * c[0] + n[1] * c[1] + n[2] * c[2]) / 6;
    t->rest_volume = V;
    mu *= fabs(V);
    lambda *= fabs(V);
    for (int j = 0; j < 4; j++) {
        const double *q1 = p[(j + 1) % 4], *q2 = p[(j + 2) % 4], *q3 = p[(j + 3) % 4];
        double e1[3] = {q2[0] - q1[0], q2[1] - q1[1], q2[2] - q1[2]};
        double e2[3] = {q3[0] - q1[0], q3[1] - q1[1], q3[2] - q1[2]}, cr[3];
        fem_cross(cr, e1, e2);
        double sg = j % 2 == 0 ? 1.0 : -1.0;
        for (int k = 0; k < 3; k++)
            t->sv[j][k] = sg * cr[k] / (V * 6);
    }
    for (int j = 0; j < 4; j++) {
        const double *sj = t->sv[j];
        double val = mu * (sj[0] * sj[0] + sj[1] * sj[1] + sj[2] * sj[2]);
        for (int m = 0; m < 3; m++)
            for (int q = 0; q < 3; q++)
                t->Ld[j][3 * m + q] = (lambda + mu) * sj[q] * sj[m] + (m == q ? val : 0.0);
    }
    for (int j = 0; j < 6; j++) {
        unsigned k = tet_edges[j][0], l = tet_edges[j][1];
        const double *sk = t->sv[k], *sl = t->sv[l];
        for (int m = 0; m < 3; m++)
            t->rest_edge[j][m] = p[l][m] - p[k][m];
        double val = mu * (sl[0] * sk[0] + sl[1] * sk[1] + sl[2] * sk[2]);
        for (int m = 0; m < 3; m++)
            for (int q = 0; q < 3; q++)
                t->L[j][3 * m + q] = lambda * sk[q] * sl[m] + mu * sl[q] * sk[m] +
                                     (m == q ? val : 0.0);
    }
    memset(t->rest_rot, 0, sizeof t->rest_rot);
    if (s->meth == FT_QR) {
        qr_rotation(t->rest_rot, t->rest_edge[0], t->rest_edge[1]);
    } else if (s->meth == FT_POLAR2) {
        double A[9];
        for (int k = 0; k < 3; k++)
            A[k] = a[k], A[3 + k] = b[k], A[6 + k] = c[k];
        fem_polar(A, t->rest_rot);
    }
    for (int k = 0; k < 9; k++)
        t->rot[k] = k % 4 == 0 ? 1.0 : 0.0;
    memcpy(t->E, t->L, sizeof t->E);
}

static void ftc_free(ftc_fem *s)
{
    st_free(s->e);
    st_free(s->edges);
    st_free(s->G);
    s->e = NULL;
    s->edges = NULL;
    s->G = NULL;
    s->ne = s->nedges = 0;
}

/* Element edges sorted by their (lower, upper) vertex pair. */
typedef struct edge_ref {
    unsigned a, b;
    size_t elem;
    int j;
} edge_ref;

static int edge_cmp(const void *p, const void *q)
{
    const edge_ref *x = p, *y = q;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return 0;
}

/* The mesh edges of the elements, and each local edge's one. */
static st_status build_edges(ftc_fem *s, st_error *err)
{
    size_t n = 6 * s->ne;
    edge_ref *r = st_calloc(n ? n : 1, sizeof *r);
    s->edges = st_calloc(n ? n : 1, sizeof *s->edges);
    if (!r || !s->edges) {
        st_free(r);
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu edges)", n);
    }
    for (size_t i = 0; i < s->ne; i++)
        for (int j = 0; j < 6; j++) {
            unsigned k = s->e[i].v[tet_edges[j][0]], l = s->e[i].v[tet_edges[j][1]];
            edge_ref *q = &r[6 * i + (size_t)j];
            q->a = k < l ? k : l, q->b = k < l ? l : k, q->elem = i, q->j = j;
            s->e[i].same[j] = k < l;
        }
    qsort(r, n, sizeof *r, edge_cmp);
    s->nedges = 0;
    for (size_t m = 0; m < n; m++) {
        if (m == 0 || edge_cmp(&r[m - 1], &r[m]) != 0) {
            s->edges[s->nedges][0] = r[m].a;
            s->edges[s->nedges][1] = r[m].b;
            s->nedges++;
        }
        s->e[r[m].elem].edge[r[m].j] = (unsigned)(s->nedges - 1);
    }
    st_free(r);
    s->G = st_calloc(s->nedges ? s->nedges : 1, sizeof *s->G);
    if (!s->G)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu edges)", s->nedges);
    s->g_dirty = true;
    return ST_OK;
}

static st_status ftc_init(st_component *self, st_error *err);

/* SOFA's tetrahedronInfo and edgeInfo are topology data whose creation
 * callbacks compute an element's shape and stiffness from the rest
 * positions: after a change (removal or addition) the elements and the
 * mesh edges are those of the topology again, each computed as at init;
 * per-element youngModulus and poissonRatio lists follow their elements. */
static st_status ftc_topology_changed(st_component *self, st_component *topology,
                                      const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    ftc_fem *s = (ftc_fem *)self;
    fem_follow_list(self, "youngModulus", &s->young_modulus, 1, 1, ST_ELEM_TETRAHEDRON, ev, nev);
    fem_follow_list(self, "poissonRatio", &s->poisson_ratio, 1, 1, ST_ELEM_TETRAHEDRON, ev, nev);
    const st_mstate *ms = st_component_mstate(self);
    if (ms && st_topology_state_ahead(s->topology, ms->n))
        return ST_OK; /* the point removal follows: rebuilt then */
    return ftc_init(self, err);
}

static st_status ftc_init(st_component *self, st_error *err)
{
    ftc_fem *s = (ftc_fem *)self;
    ftc_free(s);
    self->state = ST_CSTATE_INVALID;
    ST_TRY(fem_bind(self, &s->young_modulus, &s->poisson_ratio, &s->ms, &s->topology, err));
    s->meth = method_of(s->method);
    if (s->meth < 0)
        return st_component_error(self, "method", err, ST_EINVAL,
                                  "cannot recognize method %s. Must be either qr, polar, polar2 "
                                  "or none",
                                  s->method ? s->method : "(none)");
    const st_array *te = fem_elements(s->topology, ST_T_TETRAS);
    if (!te)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "No tetrahedra found in linked Topology.");
    size_t np = s->ms->rest_position.n;
    s->ne = te->n;
    s->e = st_calloc(s->ne, sizeof *s->e);
    if (!s->e)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu tetrahedra)", s->ne);
    for (size_t i = 0; i < s->ne; i++) {
        memcpy(s->e[i].v, te->u + 4 * i, sizeof s->e[i].v);
        ST_TRY(fem_check_indices(self, s->e[i].v, 1, 4, np, "tetrahedron", err));
        init_element(s, i, s->ms->rest_position.r);
    }
    ST_TRY(build_edges(s, err));
    if (s->followed != s->topology) {
        ST_TRY(st_topology_listen(self, s->topology, ftc_topology_changed, err));
        s->followed = s->topology;
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void ftc_cleanup(st_component *self)
{
    ftc_free((ftc_fem *)self);
}

/* ---- Forces ---- */

/* R (rest -> deformed) of an element at the positions p[4]. */
static void element_rotation(const ftc_fem *s, const ftc_elem *t, const double p[4][3],
                             double R[9])
{
    double d[3][3];
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++)
            d[j][k] = p[j + 1][k] - p[0][k];
    double S[9], Q[9];
    switch (s->meth) {
    case FT_POLAR: { /* F = sum_j d_j (x) s_{j+1} */
        double F[9] = {0};
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                for (int l = 0; l < 3; l++)
                    F[3 * k + l] += d[j][k] * t->sv[j + 1][l];
        fem_polar(F, R);
        break;
    }
    case FT_QR: { /* S^T rest_rot */
        qr_rotation(S, d[0], d[1]);
        fem_transpose3(Q, S);
        fem_mul3(R, Q, t->rest_rot);
        break;
    }
    case FT_POLAR2: {
        memcpy(S, d, sizeof S);
        fem_polar(S, Q);
        double Qt[9];
        fem_transpose3(Qt, Q);
        fem_mul3(R, Qt, t->rest_rot);
        break;
    }
    default:
        for (int k = 0; k < 9; k++)
            R[k] = k % 4 == 0 ? 1.0 : 0.0;
    }
}

/* y = m^T x */
static void mulv3t(double y[3], const double m[9], const double x[3])
{
    for (int i = 0; i < 3; i++)
        y[i] = m[i] * x[0] + m[3 + i] * x[1] + m[6 + i] * x[2];
}

/* Edge j's share of the local forces: F_l += L_j u, F_k -= L_j^T u. */
static void edge_force(const ftc_elem *t, int j, const double u[3], double F[4][3])
{
    unsigned k = tet_edges[j][0], l = tet_edges[j][1];
    double a[3], b[3];
    fem_mulv3(a, t->L[j], u);
    mulv3t(b, t->L[j], u);
    for (int c = 0; c < 3; c++)
        F[l][c] += a[c], F[k][c] -= b[c];
}

/* b = scale R m R^T with R = rot^T. */
static void rotate_block(double b[9], const double rot[9], const double m[9], double scale)
{
    double t1[9], R[9];
    fem_transpose3(R, rot);
    fem_mul3(t1, R, m);
    fem_mul3(b, t1, rot);
    for (int k = 0; k < 9; k++)
        b[k] *= scale;
}

/* The local edge displacements u_j = rot (x_l - x_k) - rest edge j and
 * the local nodal forces F of them (F is zeroed by the caller). */
static void local_force(const ftc_elem *t, const double pos[4][3], const double rot[9],
                        double u[6][3], double F[4][3])
{
    for (int j = 0; j < 6; j++) {
        unsigned k = tet_edges[j][0], l = tet_edges[j][1];
        double d[3] = {pos[l][0] - pos[k][0], pos[l][1] - pos[k][1], pos[l][2] - pos[k][2]};
        fem_mulv3(u[j], rot, d);
        for (int c = 0; c < 3; c++)
            u[j][c] -= t->rest_edge[j][c];
        edge_force(t, j, u[j], F);
    }
}

static void ftc_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                          const double *v)
{
    (void)mp, (void)v;
    ftc_fem *s = (ftc_fem *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    double *fs = fem_derivs(f, s->ms);
    const double *p = fem_coords(x, s->ms);
    for (size_t i = 0; i < s->ne; i++) {
        ftc_elem *t = &s->e[i];
        double pos[4][3], R[9], F[4][3] = {{0}};
        for (int k = 0; k < 4; k++)
            memcpy(pos[k], p + 3 * t->v[k], sizeof pos[k]);
        element_rotation(s, t, pos, R);
        fem_transpose3(t->rot, R);
        for (int j = 0; j < 6; j++)
            rotate_block(t->E[j], t->rot, t->L[j], 1.0);
        s->g_dirty = true;
        double u[6][3];
        local_force(t, pos, t->rot, u, F);
        for (int k = 0; k < 4; k++) {
            double g[3];
            fem_mulv3(g, R, F[k]);
            double *o = fs + 3 * t->v[k];
            o[0] += g[0], o[1] += g[1], o[2] += g[2];
        }
    }
}

/* SOFA's edge matrices: G_e = sum of E_j (E_j^T where the local edge
 * runs against the mesh edge). */
static void sum_edges(ftc_fem *s)
{
    memset(s->G, 0, s->nedges * sizeof *s->G);
    for (size_t i = 0; i < s->ne; i++) {
        const ftc_elem *t = &s->e[i];
        for (int j = 0; j < 6; j++) {
            double *g = s->G[t->edge[j]];
            for (int q = 0; q < 9; q++)
                g[q] += t->same[j] ? t->E[j][q] : t->E[j][3 * (q % 3) + q / 3];
        }
    }
    s->g_dirty = false;
}

/* df[b] += G w, df[a] -= G^T w with w = kfactor (dx[b] - dx[a]), per mesh
 * edge (a, b). */
static void ftc_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                           double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    ftc_fem *s = (ftc_fem *)self;
    if (s->g_dirty)
        sum_edges(s);
    double *dfs = fem_derivs(df, s->ms);
    const double *d = fem_dx(dx, s->ms);
    for (size_t e = 0; e < s->nedges; e++) {
        const double *G = s->G[e], *da = d + 3 * s->edges[e][0], *db = d + 3 * s->edges[e][1];
        double w[3] = {(db[0] - da[0]) * kfactor, (db[1] - da[1]) * kfactor,
                       (db[2] - da[2]) * kfactor};
        double p[3], q[3];
        fem_mulv3(p, G, w);
        mulv3t(q, G, w);
        double *oa = dfs + 3 * s->edges[e][0], *ob = dfs + 3 * s->edges[e][1];
        for (int c = 0; c < 3; c++)
            ob[c] += p[c], oa[c] -= q[c];
    }
}

static void ftc_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    ftc_fem *s = (ftc_fem *)self;
    for (size_t i = 0; i < s->ne; i++) {
        const ftc_elem *t = &s->e[i];
        double b[9];
        for (int j = 0; j < 4; j++) {
            rotate_block(b, t->rot, t->Ld[j], -kfactor);
            fem_add_block(m, s->ms, t->v[j], t->v[j], b);
        }
        for (int j = 0; j < 6; j++) {
            unsigned k = tet_edges[j][0], l = tet_edges[j][1];
            for (int q = 0; q < 9; q++)
                b[q] = -kfactor * t->E[j][q];
            fem_add_block(m, s->ms, t->v[l], t->v[k], b);
            for (int q = 0; q < 9; q++)
                b[q] = -kfactor * t->E[j][3 * (q % 3) + q / 3];
            fem_add_block(m, s->ms, t->v[k], t->v[l], b);
        }
    }
}

/* Strain energy 1/2 w^T K w per element, w the local nodal displacements
 * (R^T x less the rest shape, node 0 held at 0: w_n = u of edge (0 n)),
 * through the local force F = -K w that add_force applies (f = R F):
 * E = -1/2 sum_n w_n . F_n. Exact -dE/dx for method none; the corotational
 * force leaves the derivative of R out. */
static double ftc_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    ftc_fem *s = (ftc_fem *)self;
    if (self->state != ST_CSTATE_VALID)
        return 0.0;
    const double *p = fem_coords(x, s->ms);
    double energy = 0;
    for (size_t i = 0; i < s->ne; i++) {
        const ftc_elem *t = &s->e[i];
        double pos[4][3], R[9], rot[9], u[6][3], F[4][3] = {{0}};
        for (int k = 0; k < 4; k++)
            memcpy(pos[k], p + 3 * t->v[k], sizeof pos[k]);
        element_rotation(s, t, pos, R);
        fem_transpose3(rot, R);
        local_force(t, pos, rot, u, F);
        for (int n = 1; n < 4; n++)
            energy -= u[n - 1][0] * F[n][0] + u[n - 1][1] * F[n][1] + u[n - 1][2] * F[n][2];
    }
    return 0.5 * energy;
}

static double ftc_rayleigh(const st_component *self)
{
    return ((const ftc_fem *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops ftc_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = ftc_add_force,
    .add_dforce = ftc_add_dforce,
    .add_k_to_matrix = ftc_add_k,
    .potential_energy = ftc_energy,
    .rayleigh_stiffness = ftc_rayleigh,
};

#define T ftc_fem
static const st_field ftc_fields[] = {
    FEM_F_RAYLEIGH(T),
    FEM_F_MATERIAL(T),
    FEM_F_TOPOLOGY(T),
    ST_IGNORED(T, point_info, "pointInfo", ST_T_STRING, char *, NULL,
               "Internal point data (not read by settee)"),
    ST_IGNORED(T, edge_info, "edgeInfo", ST_T_STRING, char *, NULL,
               "Internal edge data (not read by settee)"),
    ST_IGNORED(T, tetra_info, "tetrahedronInfo", ST_T_STRING, char *, NULL,
               "Internal tetrahedron data (not read by settee)"),
    ST_STRING(T, method, "method", "qr",
              " method for rotation computation :\"qr\" (by QR) or \"polar\" or \"polar2\" or "
              "\"none\" (Linear elastic) (also \"large\" = qr, \"linear\" and \"small\" = none; "
              "any other value is an error)"),
    FEM_F_DRAW_COLORS(T, drawing, draw_color),
    ST_FIELD_END};
#undef T

const st_class fast_tetrahedral_corotational_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "FastTetrahedralCorotationalForceField",
    .category = "ForceField",
    .description = "Corotational linear tetrahedra written on edges (rotation by QR, polar "
                   "decomposition of the deformation gradient or of the edges, or none). "
                   "Potential energy: SOFA has none; settee returns the strain energy of the local "
                   "(rotated) displacements",
    .instance_size = sizeof(ftc_fem),
    .fields = ftc_fields,
    .init = ftc_init,
    .reinit = ftc_init,
    .cleanup = ftc_cleanup,
    .forcefield = &ftc_ops,
};
