/* hexahedral_fem_force_field.c - HexahedralFEMForceField: SOFA's older
 * corotational hexahedron (large or polar), the element stiffness in closed
 * form for axis-aligned boxes, following the topology's changes.
 *
 * Per element, from the rest positions n0..n7 in the world frame (SOFA's
 * vertex order, see hexahedron_fem.h):
 *   J = diag(2 / l), l = n6 - n0 (SOFA uses the world components: the
 *       element must be an axis-aligned box for K to be right; a zero
 *       component of l is refused);
 *   vol = |n1 - n0| |n3 - n0| |n4 - n0| / 8;
 *   I_pq(i, j) = integral over [-1, 1]^3 of dN_i/dxi_p dN_j/dxi_q for the
 *       trilinear shape functions N_i = prod_a (1 + s_ia xi_a) / 8;
 *   block (i, j) of K, rows m, columns l (material U = M(0,0), V = M(0,1),
 *   W = M(3,3) of the isotropic 6x6 matrix):
 *       m != l: J_m J_l (V I_ml + W I_lm)
 *       m == l: J_m^2 (U I_mm + W (I_pp + I_qq)), p, q the other two axes
 *       (SOFA's formula, which uses J_m for the shear terms too: exact for
 *       cubes), each entry rounded to float as SOFA's, then times vol;
 *   blocks j > i computed and the lower triangle mirrored.
 * Forces as HexahedronFEMForceField: R (world to element, SOFA's R_0_2) of
 * the current points by the method's frame, D = R n_rest - R x, F = K D,
 * f += R^T F; add_dforce and the matrix use R^T K R with R of the last
 * add_force. SOFA's getPotentialEnergy is not implemented (0, with a
 * warning); here it is 1/2 D^T K D, as HexahedronFEMForceField's.
 *
 * Topological changes: the element data follow the hexahedra (removed:
 * the last one moves into the hole, as SOFA's HexahedronData); an added
 * hexahedron is computed from the rest positions (SOFA's creation
 * callback); youngModulus and poissonRatio lists with one value per
 * element follow too. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "hexahedral_fem.h"

static const int sign[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                               {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
static const char *const method_names[] = {"large", "polar"};

/* I_pq(i, j): per axis a, the integral of the factors of N_i and N_j along
 * a (derived along p for i, along q for j): s s' * 2, s * 2, s' * 2, or
 * 2 + 2 s s' / 3; their product over 8^2. */
static double shape_integral(int i, int j, int p, int q)
{
    double r = 1.0 / 64;
    for (int a = 0; a < 3; a++) {
        int si = sign[i][a], sj = sign[j][a];
        if (a == p && a == q)
            r *= 2.0 * si * sj;
        else if (a == p)
            r *= 2.0 * si;
        else if (a == q)
            r *= 2.0 * sj;
        else
            r *= 2.0 + 2.0 * si * sj / 3.0;
    }
    return r;
}

/* SOFA's computeElementStiffness of HexahedralFEMForceField (see the top). */
static void element_stiffness(double K[24][24], double U, double V, double W, const double n[8][3])
{
    double J[3], e[3][3];
    for (int c = 0; c < 3; c++) {
        J[c] = 2.0 / (n[6][c] - n[0][c]);
        e[0][c] = n[1][c] - n[0][c];
        e[1][c] = n[3][c] - n[0][c];
        e[2][c] = n[4][c] - n[0][c];
    }
    double vol = 1.0;
    for (int k = 0; k < 3; k++)
        vol *= sqrt(e[k][0] * e[k][0] + e[k][1] * e[k][1] + e[k][2] * e[k][2]);
    vol /= 8.0;
    memset(K, 0, 24 * 24 * sizeof(double));
    for (int i = 0; i < 8; i++)
        for (int j = i; j < 8; j++)
            for (int m = 0; m < 3; m++)
                for (int l = 0; l < 3; l++) {
                    double k;
                    if (m == l)
                        k = J[m] * J[m] *
                            (U * shape_integral(i, j, m, m) +
                             W * (shape_integral(i, j, (m + 1) % 3, (m + 1) % 3) +
                                  shape_integral(i, j, (m + 2) % 3, (m + 2) % 3)));
                    else
                        k = J[m] * J[l] *
                            (V * shape_integral(i, j, m, l) + W * shape_integral(i, j, l, m));
                    K[3 * i + m][3 * j + l] += vol * (double)(float)k;
                }
    for (int i = 0; i < 24; i++)
        for (int j = i + 1; j < 24; j++)
            K[j][i] = K[i][j];
}

void hexal_element_stiffness(double K[24][24], double E, double nu, const double n[8][3])
{
    double scale = (E * (1 - nu)) / ((1 + nu) * (1 - 2 * nu));
    element_stiffness(K, scale, nu / (1 - nu) * scale, (1 - 2 * nu) / (2 * (1 - nu)) * scale, n);
}

static void gather(const double *x, const unsigned v[8], double p[8][3])
{
    for (int k = 0; k < 8; k++)
        memcpy(p[k], x + 3 * v[k], 3 * sizeof(double));
}

static void mat24_vec(double y[24], const double K[24][24], const double x[24])
{
    for (int i = 0; i < 24; i++) {
        double a = 0;
        for (int j = 0; j < 24; j++)
            a += K[i][j] * x[j];
        y[i] = a;
    }
}

/* SOFA's initLarge / initPolar of element i: frame, rotated rest points,
 * material and stiffness. Refuses a shape whose diagonal n6 - n0 has a
 * zero component (SOFA divides by it). */
static st_status init_element(hexal_fem *s, size_t i, st_error *err)
{
    hexal *h = &s->e[i];
    double n[8][3];
    gather(s->ms->rest_position.r, h->v, n);
    for (int c = 0; c < 3; c++)
        if (!(fabs(n[6][c] - n[0][c]) > DBL_EPSILON))
            return st_component_error(&s->base, "topology", err, ST_EINVAL,
                                      "hexahedron %zu: its diagonal from vertex 0 to vertex 6 "
                                      "has no extent along axis %c; HexahedralFEMForceField's "
                                      "stiffness divides by it (it is made for axis-aligned "
                                      "boxes: use HexahedronFEMForceField for other shapes)",
                                      i, "xyz"[c]);
    hexa_rotation(s->meth == 1 ? HM_POLAR : HM_LARGE, h->R, n);
    for (int k = 0; k < 8; k++)
        fem_mulv3(h->rest[k], h->R, n[k]);
    hexal_element_stiffness(h->K, fem_value_in_element(&s->young_modulus, i, FEM_DEFAULT_YOUNG),
                            fem_value_in_element(&s->poisson_ratio, i, FEM_DEFAULT_POISSON), n);
    h->fresh = false;
    return ST_OK;
}

/* Whether the element's edges 0-1, 0-3, 0-4 lie along x, y, z (the shapes
 * SOFA's closed form is made for). */
static bool axis_aligned(const hexal_fem *s, size_t i)
{
    const double *x = s->ms->rest_position.r;
    const unsigned *v = s->e[i].v;
    const int edge[3] = {1, 3, 4};
    for (int k = 0; k < 3; k++) {
        const double *a = x + 3 * v[0], *b = x + 3 * v[edge[k]];
        double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (int c = 0; c < 3; c++)
            if (c != k && fabs(d[c]) > 1e-9 * len)
                return false;
    }
    return true;
}

static void hxl_free(hexal_fem *s)
{
    st_free(s->e);
    s->e = NULL;
    s->ne = 0;
}

static void hexal_create(void *ud, size_t i, void *item, const st_topo_event *ev, size_t k)
{
    (void)ud, (void)i;
    hexal *h = item;
    if (ev->vertices)
        memcpy(h->v, ev->vertices + 8 * k, sizeof h->v);
    h->fresh = true;
}

static const st_topo_follow_ops hexal_follow_ops = {
    .struct_size = sizeof(st_topo_follow_ops),
    .create = hexal_create,
};

/* After a change: the kept hexahedra keep their data (moved by the
 * kernel); the vertex indices are re-read and the added ones computed. */
static st_status hxl_topology_changed(st_component *self, st_component *topology,
                                      const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    hexal_fem *s = (hexal_fem *)self;
    fem_follow_list(self, "youngModulus", &s->young_modulus, 1, 1, ST_ELEM_HEXAHEDRON, ev, nev);
    fem_follow_list(self, "poissonRatio", &s->poisson_ratio, 1, 1, ST_ELEM_HEXAHEDRON, ev, nev);
    ST_TRY(fem_reread_vertices(self, s->e, s->ne, sizeof *s->e,
                               fem_elements(s->topology, ST_T_HEXAS), 8, err));
    for (size_t i = 0; i < s->ne; i++)
        ST_TRY(fem_check_indices(self, s->e[i].v, 1, 8, s->ms->rest_position.n, "hexahedron",
                                 err));
    for (size_t i = 0; i < s->ne; i++)
        if (s->e[i].fresh)
            ST_TRY(init_element(s, i, err));
    return ST_OK;
}

st_status hexal_fem_init(st_component *self, st_error *err)
{
    return hexal_fem_setup(self, true, err);
}

st_status hexal_fem_setup(st_component *self, bool follow, st_error *err)
{
    hexal_fem *s = (hexal_fem *)self;
    hxl_free(s);
    self->state = ST_CSTATE_INVALID;
    ST_TRY(fem_bind(self, &s->young_modulus, &s->poisson_ratio, &s->ms, &s->topology, err));
    s->meth = fem_method_index(s->method, method_names, 2);
    if (s->meth < 0)
        return st_component_error(self, "method", err, ST_EINVAL,
                                  "unknown method '%s': \"large\" or \"polar\"",
                                  s->method ? s->method : "");
    const st_array *hx = fem_elements(s->topology, ST_T_HEXAS);
    if (!hx)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "Object must have a Topology with hexahedra ('%s' has none).",
                                  s->topology->name);
    ST_TRY(fem_check_indices(self, hx->u, hx->n, 8, s->ms->rest_position.n, "hexahedron", err));
    s->ne = hx->n;
    s->e = st_calloc(s->ne, sizeof *s->e);
    if (!s->e)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu hexahedra)", s->ne);
    size_t skew = 0;
    for (size_t i = 0; i < s->ne; i++) {
        memcpy(s->e[i].v, hx->u + 8 * i, sizeof s->e[i].v);
        ST_TRY(init_element(s, i, err));
        skew += !axis_aligned(s, i);
    }
    if (skew)
        st_component_warn(self,
                          "%zu of %zu hexahedra are not axis-aligned boxes at rest: SOFA's "
                          "closed-form stiffness, computed here as in SOFA, is only right for "
                          "axis-aligned boxes (HexahedronFEMForceField integrates any shape)",
                          skew, s->ne);
    if (follow && s->followed != s->topology) {
        ST_TRY(st_topology_follow(self, s->topology, ST_ELEM_HEXAHEDRON, (void **)&s->e, &s->ne,
                                  sizeof *s->e, &hexal_follow_ops, s, err));
        ST_TRY(st_topology_listen(self, s->topology, hxl_topology_changed, err));
        s->followed = s->topology;
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

void hexal_fem_cleanup(st_component *self) { hxl_free((hexal_fem *)self); }

/* D = rest - R x with R (out) the frame of the current points. */
static void displacement(const hexal_fem *s, const hexal *h, const double *x, double R[9],
                         double D[24])
{
    double p[8][3];
    gather(x, h->v, p);
    hexa_rotation(s->meth == 1 ? HM_POLAR : HM_LARGE, R, p);
    for (int k = 0; k < 8; k++) {
        double d[3];
        fem_mulv3(d, R, p[k]);
        for (int c = 0; c < 3; c++)
            D[3 * k + c] = h->rest[k][c] - d[c];
    }
}

static void hxl_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                          const double *v)
{
    (void)mp, (void)v;
    hexal_fem *s = (hexal_fem *)self;
    double *fs = fem_derivs(f, s->ms);
    const double *p = fem_coords(x, s->ms);
    for (size_t i = 0; i < s->ne; i++) {
        hexal *h = &s->e[i];
        double D[24], F[24];
        displacement(s, h, p, h->R, D);
        mat24_vec(F, h->K, D);
        for (int k = 0; k < 8; k++) {
            double *o = fs + 3 * h->v[k];
            for (int c = 0; c < 3; c++) /* R^T F_k */
                o[c] += h->R[c] * F[3 * k] + h->R[3 + c] * F[3 * k + 1] +
                        h->R[6 + c] * F[3 * k + 2];
        }
    }
}

static void hxl_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                           double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    hexal_fem *s = (hexal_fem *)self;
    double *dfs = fem_derivs(df, s->ms);
    const double *d = fem_dx(dx, s->ms);
    for (size_t i = 0; i < s->ne; i++) {
        const hexal *h = &s->e[i];
        double X[24], F[24];
        for (int k = 0; k < 8; k++) {
            fem_mulv3(X + 3 * k, h->R, d + 3 * h->v[k]);
            for (int c = 0; c < 3; c++)
                X[3 * k + c] *= kfactor;
        }
        mat24_vec(F, h->K, X);
        for (int k = 0; k < 8; k++) {
            double *o = dfs + 3 * h->v[k];
            for (int c = 0; c < 3; c++)
                o[c] -= h->R[c] * F[3 * k] + h->R[3 + c] * F[3 * k + 1] +
                        h->R[6 + c] * F[3 * k + 2];
        }
    }
}

static void hxl_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    hexal_fem *s = (hexal_fem *)self;
    for (size_t i = 0; i < s->ne; i++) {
        const hexal *h = &s->e[i];
        double rt[9];
        fem_transpose3(rt, h->R);
        for (int n1 = 0; n1 < 8; n1++)
            for (int n2 = 0; n2 < 8; n2++) {
                double k[9], kr[9], b[9];
                for (int r = 0; r < 3; r++)
                    for (int c = 0; c < 3; c++)
                        k[3 * r + c] = h->K[3 * n1 + r][3 * n2 + c];
                fem_mul3(kr, k, h->R);
                fem_mul3(b, rt, kr);
                for (int j = 0; j < 9; j++)
                    b[j] *= -kfactor;
                fem_add_block(m, s->ms, h->v[n1], h->v[n2], b);
            }
    }
}

static double hxl_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    const hexal_fem *s = (const hexal_fem *)self;
    const double *p = fem_coords(x, s->ms);
    double e = 0;
    for (size_t i = 0; i < s->ne; i++) {
        double R[9], D[24], F[24];
        displacement(s, &s->e[i], p, R, D);
        mat24_vec(F, s->e[i].K, D);
        for (int j = 0; j < 24; j++)
            e += 0.5 * F[j] * D[j];
    }
    return e;
}

static double hxl_rayleigh(const st_component *self)
{
    return ((const hexal_fem *)self)->rayleigh_stiffness;
}

const st_forcefield_ops hexal_fem_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = hxl_add_force,
    .add_dforce = hxl_add_dforce,
    .add_k_to_matrix = hxl_add_k,
    .potential_energy = hxl_energy,
    .rayleigh_stiffness = hxl_rayleigh,
};

static const st_field hxl_fields[] = {HEXAL_FEM_FIELDS, ST_FIELD_END};

const st_class hexahedral_fem_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "HexahedralFEMForceField",
    .category = "ForceField",
    .description = "Corotational hexahedral finite elements (large or polar) with SOFA's "
                   "closed-form stiffness of axis-aligned boxes, following topological changes",
    .instance_size = sizeof(hexal_fem),
    .fields = hxl_fields,
    .init = hexal_fem_init,
    .reinit = hexal_fem_init,
    .cleanup = hexal_fem_cleanup,
    .forcefield = &hexal_fem_ops,
};
