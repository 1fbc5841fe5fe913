/* element_fem_common.c - what LinearSmallStrainFEMForceField and
 * CorotationalFEMForceField share (SOFA's FEMForceField and
 * BaseElementLinearFEMForceField).
 *
 * Per element e with nodes x_j (rest x0_j), K_e integrated at init from
 * the rest positions of the state (fe_stiffness: sum over the quadrature
 * points of w |det J| B^T C B, C isotropic from youngModulus and
 * poissonRatio of element e):
 *   small strain: f = -K_e (x - x0);
 *   corotational: u_j = R^T (x_j - c) - (x0_j - c0) with c, c0 the
 *     centroids, f = -R K_e u (R block-diagonal);
 *   df = -kfactor R K_e R^T dx, the matrix -kfactor R K_e R^T (R = I for
 *     small strain): SOFA's tangent, without the derivative of R.
 * Potential energy: 0 for both, as SOFA returns. Element data are
 * allocated at init; no step allocates. */
#include <math.h>
#include <string.h>

#include "element_fem.h"

static const char *const rot_names[FE_KINDS][4] = {
    {"stable_polar", "polar", "identity", "triangle"},
    {"stable_polar", "polar", "identity", "hexahedron"}};

void efem_cleanup(st_component *self)
{
    element_fem *s = (element_fem *)self;
    st_free(s->v), st_free(s->K), st_free(s->R), st_free(s->R0);
    s->v = NULL, s->K = s->R = s->R0 = NULL;
    s->ne = 0;
}

static void gather(const element_fem *s, size_t e, const double *p, double (*x)[3])
{
    const unsigned *v = s->v + (size_t)s->nn * e;
    for (int j = 0; j < s->nn; j++)
        memcpy(x[j], p + 3 * v[j], 3 * sizeof(double));
}

static void centroid(const double (*x)[3], int n, double c[3])
{
    c[0] = c[1] = c[2] = 0;
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 3; k++)
            c[k] += x[j][k];
    for (int k = 0; k < 3; k++)
        c[k] /= n;
}

/* SOFA's TriangleRotation / HexahedronRotation frame of the nodes x: rows
 * are the axes. */
static void element_frame(fe_kind kind, const double (*x)[3], double r[9])
{
    double ax[3], ay[3];
    if (kind == FE_TETRAHEDRON) {
        for (int k = 0; k < 3; k++)
            ax[k] = x[1][k] - x[0][k], ay[k] = x[2][k] - x[0][k];
    } else {
        for (int k = 0; k < 3; k++) {
            ax[k] = (x[1][k] - x[0][k] + x[2][k] - x[3][k] + x[5][k] - x[4][k] + x[6][k] -
                     x[7][k]) * 0.25;
            ay[k] = (x[3][k] - x[0][k] + x[2][k] - x[1][k] + x[7][k] - x[4][k] + x[6][k] -
                     x[5][k]) * 0.25;
        }
    }
    fem_frame(r, ax, ay);
}

/* The rotation R (element frame to world) of element e at nodes x (rest
 * x0), by SOFA's rotationMethod. */
static void rotation(const element_fem *s, size_t e, const double (*x)[3],
                     const double (*x0)[3], double R[9])
{
    if (s->rot == ROT_IDENTITY) {
        for (int k = 0; k < 9; k++)
            R[k] = k % 4 == 0 ? 1.0 : 0.0;
        return;
    }
    if (s->rot == ROT_FRAME) { /* R = frame(x)^T frame(x0) */
        double r[9], rt[9];
        element_frame(s->kind, x, r);
        fem_transpose3(rt, r);
        fem_mul3(R, rt, s->R0 + 9 * e);
        return;
    }
    /* H = sum_j (x_j - c)(x0_j - c0)^T, R its orthogonal factor */
    double c[3], c0[3], H[9] = {0};
    centroid(x, s->nn, c);
    centroid(x0, s->nn, c0);
    for (int j = 0; j < s->nn; j++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                H[3 * a + b] += (x[j][a] - c[a]) * (x0[j][b] - c0[b]);
    if (s->rot == ROT_POLAR)
        fem_polar(H, R);
    else
        fem_polar_stable(H, R);
}

static st_status parse_template(element_fem *s, st_error *err)
{
    const char *t = s->template_name ? s->template_name : "";
    if (!fe_kind_of_template(t, &s->kind))
        return st_component_error(&s->base, "template", err, ST_ESCENE,
                                  "%s: template '%s' is not implemented; settee has "
                                  "Vec3d,Tetrahedron and Vec3d,Hexahedron (set one explicitly: "
                                  "SOFA's default, Vec1d,Edge, is not available)",
                                  s->base.cls->name, t);
    s->nn = fe_nodes(s->kind);
    return ST_OK;
}

static st_status parse_rotation(element_fem *s, st_error *err)
{
    s->rot = ROT_IDENTITY;
    if (!s->corot)
        return ST_OK;
    const char *const *names = rot_names[s->kind];
    if (!s->rotation_method || !s->rotation_method[0]) {
        s->rot = ROT_FRAME; /* SOFA's default for tetrahedra and hexahedra */
        return ST_OK;
    }
    s->rot = fem_method_index(s->rotation_method, names, 4);
    if (s->rot < 0)
        return st_component_error(&s->base, "rotationMethod", err, ST_ESCENE,
                                  "unknown rotationMethod '%s' for %s: expected %s, %s, %s or "
                                  "%s",
                                  s->rotation_method, s->template_name, names[0], names[1],
                                  names[2], names[3]);
    return ST_OK;
}

st_status efem_init(st_component *self, st_error *err)
{
    element_fem *s = (element_fem *)self;
    efem_cleanup(self);
    self->state = ST_CSTATE_INVALID;
    s->corot = self->cls == &corotational_fem_force_field_class;
    ST_TRY(parse_template(s, err));
    ST_TRY(parse_rotation(s, err));
    ST_TRY(fem_bind(self, &s->young_modulus, &s->poisson_ratio, &s->ms, &s->topology, err));
    const st_array *el =
        fem_elements(s->topology, s->kind == FE_TETRAHEDRON ? ST_T_TETRAS : ST_T_HEXAS);
    s->ne = el ? el->n : 0;
    const size_t nn = (size_t)s->nn, nd = 3 * nn, np = s->ms->rest_position.n;
    if (s->ne) {
        s->v = st_calloc(s->ne * nn, sizeof *s->v);
        s->K = st_calloc(s->ne * nd * nd, sizeof *s->K);
        s->R = st_calloc(s->ne * 9, sizeof *s->R);
        s->R0 = st_calloc(s->ne * 9, sizeof *s->R0);
        if (!s->v || !s->K || !s->R || !s->R0) {
            efem_cleanup(self);
            return st_error_set(err, ST_ENOMEM, "out of memory (%zu elements)", s->ne);
        }
        memcpy(s->v, el->u, s->ne * nn * sizeof *s->v);
        ST_TRY(fem_check_indices(self, s->v, s->ne, (unsigned)nn, np,
                                 s->kind == FE_TETRAHEDRON ? "tetrahedron" : "hexahedron", err));
    }
    const double *x0 = s->ms->rest_position.r;
    for (size_t e = 0; e < s->ne; e++) {
        double x[FE_MAX_NODES][3], lambda, mu;
        gather(s, e, x0, x);
        fe_lame(fem_value_in_element(&s->young_modulus, e, FEM_DEFAULT_YOUNG),
                fem_value_in_element(&s->poisson_ratio, e, FEM_DEFAULT_POISSON), &lambda, &mu);
        if (!fe_stiffness(s->kind, (const double (*)[3])x, lambda, mu, s->K + e * nd * nd))
            return st_component_error(self, "topology", err, ST_EINVAL,
                                      "element %zu is degenerate (null Jacobian determinant at "
                                      "a quadrature point)",
                                      e);
        element_frame(s->kind, (const double (*)[3])x, s->R0 + 9 * e);
        for (int k = 0; k < 9; k++)
            s->R[9 * e + k] = k % 4 == 0 ? 1.0 : 0.0;
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

/* out -= scale R K R^T d on the element's nodes (R NULL: identity). */
static void apply(const element_fem *s, size_t e, const double *R, const double *d,
                  double *out, double scale)
{
    const int nn = s->nn, nd = 3 * nn;
    double u[FE_MAX_DOFS], F[FE_MAX_DOFS];
    for (int j = 0; j < nn; j++) {
        if (R) /* R^T d_j */
            for (int c = 0; c < 3; c++)
                u[3 * j + c] = R[c] * d[3 * j] + R[3 + c] * d[3 * j + 1] + R[6 + c] * d[3 * j + 2];
        else
            memcpy(u + 3 * j, d + 3 * j, 3 * sizeof(double));
    }
    const double *K = s->K + (size_t)e * nd * nd;
    for (int r = 0; r < nd; r++) {
        double a = 0;
        for (int c = 0; c < nd; c++)
            a += K[r * nd + c] * u[c];
        F[r] = a;
    }
    const unsigned *v = s->v + (size_t)nn * e;
    for (int j = 0; j < nn; j++) {
        double *o = out + 3 * v[j];
        const double *Fj = F + 3 * j;
        if (R)
            for (int c = 0; c < 3; c++)
                o[c] -= scale * (R[3 * c] * Fj[0] + R[3 * c + 1] * Fj[1] + R[3 * c + 2] * Fj[2]);
        else
            for (int c = 0; c < 3; c++)
                o[c] -= scale * Fj[c];
    }
}

static void efem_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                           const double *v)
{
    (void)mp, (void)v;
    element_fem *s = (element_fem *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    double *fs = fem_derivs(f, s->ms);
    const double *p = fem_coords(x, s->ms), *p0 = s->ms->rest_position.r;
    for (size_t e = 0; e < s->ne; e++) {
        double xe[FE_MAX_NODES][3], x0[FE_MAX_NODES][3], d[FE_MAX_DOFS];
        gather(s, e, p, xe);
        gather(s, e, p0, x0);
        if (!s->corot) {
            for (int j = 0; j < s->nn; j++)
                for (int c = 0; c < 3; c++)
                    d[3 * j + c] = xe[j][c] - x0[j][c];
            apply(s, e, NULL, d, fs, 1.0);
            continue;
        }
        double *R = s->R + 9 * e, c[3], c0[3];
        rotation(s, e, (const double (*)[3])xe, (const double (*)[3])x0, R);
        centroid((const double (*)[3])xe, s->nn, c);
        centroid((const double (*)[3])x0, s->nn, c0);
        /* d_j = (x_j - c) - R (x0_j - c0), so that R^T d_j is SOFA's u_j */
        for (int j = 0; j < s->nn; j++) {
            double r0[3] = {x0[j][0] - c0[0], x0[j][1] - c0[1], x0[j][2] - c0[2]}, rr[3];
            fem_mulv3(rr, R, r0);
            for (int k = 0; k < 3; k++)
                d[3 * j + k] = xe[j][k] - c[k] - rr[k];
        }
        apply(s, e, R, d, fs, 1.0);
    }
}

static void efem_add_dforce(st_component *self, const st_mparams *mp, double *df,
                            const double *dx, double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    element_fem *s = (element_fem *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    double *dfs = fem_derivs(df, s->ms);
    const double *d = fem_coords(dx, s->ms);
    for (size_t e = 0; e < s->ne; e++) {
        double de[FE_MAX_NODES][3];
        gather(s, e, d, de);
        apply(s, e, s->corot ? s->R + 9 * e : NULL, &de[0][0], dfs, kfactor);
    }
}

static void efem_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    element_fem *s = (element_fem *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    const int nn = s->nn, nd = 3 * nn;
    for (size_t e = 0; e < s->ne; e++) {
        const double *K = s->K + e * (size_t)nd * nd, *R = s->R + 9 * e;
        const unsigned *v = s->v + (size_t)nn * e;
        for (int a = 0; a < nn; a++)
            for (int b = 0; b < nn; b++) {
                double k[9], t[9], rt[9], blk[9];
                for (int r = 0; r < 3; r++)
                    for (int c = 0; c < 3; c++)
                        k[3 * r + c] = K[(3 * a + r) * nd + 3 * b + c];
                if (s->corot) { /* R k R^T */
                    fem_transpose3(rt, R);
                    fem_mul3(t, R, k);
                    fem_mul3(k, t, rt);
                }
                for (int j = 0; j < 9; j++)
                    blk[j] = -kfactor * k[j];
                fem_add_block(m, s->ms, v[a], v[b], blk);
            }
    }
}

static double efem_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)self, (void)mp, (void)x;
    return 0.0; /* SOFA's getPotentialEnergy of both classes */
}

static double efem_rayleigh(const st_component *self)
{
    return ((const element_fem *)self)->rayleigh_stiffness;
}

const st_forcefield_ops efem_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = efem_add_force,
    .add_dforce = efem_add_dforce,
    .add_k_to_matrix = efem_add_k,
    .potential_energy = efem_energy,
    .rayleigh_stiffness = efem_rayleigh,
};
