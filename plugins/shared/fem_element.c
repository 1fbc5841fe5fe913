/* fem_element.c - SOFA's linear tetrahedron and trilinear hexahedron
 * (sofa::fem::FiniteElement) and the element matrices integrated with their
 * quadrature rules (see fem_element.h). */
#include "fem_element.h"

#include <math.h>
#include <string.h>

/* SOFA's reference hexahedron (nodes in its topological order). */
static const double hexa_ref[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                      {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};

bool fe_kind_of_template(const char *templ, fe_kind *k)
{
    /* SOFA's names of the state type: Vec3d, or its alias Vec3 */
    const char *e = NULL;
    if (templ && !strncmp(templ, "Vec3d,", 6))
        e = templ + 6;
    else if (templ && !strncmp(templ, "Vec3,", 5))
        e = templ + 5;
    if (e && !strcmp(e, "Tetrahedron"))
        *k = FE_TETRAHEDRON;
    else if (e && !strcmp(e, "Hexahedron"))
        *k = FE_HEXAHEDRON;
    else
        return false;
    return true;
}

int fe_nodes(fe_kind k)
{
    return k == FE_TETRAHEDRON ? 4 : 8;
}

int fe_quadrature_count(fe_kind k)
{
    return k == FE_TETRAHEDRON ? 1 : 8;
}

void fe_quadrature(fe_kind k, int i, double q[3], double *w)
{
    if (k == FE_TETRAHEDRON) {
        q[0] = q[1] = q[2] = 1. / 4.;
        *w = 1. / 6.;
        return;
    }
    const double s = 1.0 / 1.73205080757; /* SOFA's truncated sqrt(3) */
    for (int c = 0; c < 3; c++)
        q[c] = hexa_ref[i][c] * s;
    *w = 1.0;
}

void fe_shape(fe_kind k, const double q[3], double *N)
{
    if (k == FE_TETRAHEDRON) {
        N[0] = 1.0 - q[0] - q[1] - q[2];
        N[1] = q[0], N[2] = q[1], N[3] = q[2];
        return;
    }
    for (int i = 0; i < 8; i++) {
        const double *r = hexa_ref[i];
        N[i] = 0.125 * (1 + q[0] * r[0]) * (1 + q[1] * r[1]) * (1 + q[2] * r[2]);
    }
}

void fe_shape_gradient(fe_kind k, const double q[3], double (*dN)[3])
{
    if (k == FE_TETRAHEDRON) {
        static const double g[4][3] = {{-1, -1, -1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        memcpy(dN, g, sizeof g);
        return;
    }
    for (int i = 0; i < 8; i++) {
        const double *r = hexa_ref[i];
        dN[i][0] = 1. / 8. * (r[0] * (1 + q[1] * r[1]) * (1 + q[2] * r[2]));
        dN[i][1] = 1. / 8. * (r[1] * (1 + q[0] * r[0]) * (1 + q[2] * r[2]));
        dN[i][2] = 1. / 8. * (r[2] * (1 + q[0] * r[0]) * (1 + q[1] * r[1]));
    }
}

void fe_jacobian(fe_kind k, const double (*x)[3], const double (*dN)[3], double J[9])
{
    memset(J, 0, 9 * sizeof(double));
    for (int i = 0; i < fe_nodes(k); i++)
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                J[3 * r + c] += x[i][r] * dN[i][c];
}

void fe_lame(double young, double poisson, double *lambda, double *mu)
{
    *mu = young / (2 * (1 + poisson));
    *lambda = young * poisson / ((1 + poisson) * (1 - 2 * poisson));
}

static double det3(const double m[9])
{
    return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
           m[2] * (m[3] * m[7] - m[4] * m[6]);
}

/* Physical gradients g (n x 3) at quadrature point i and w |det J|; 0 when
 * J is singular. */
static double gradients(fe_kind k, const double (*x)[3], int i, double (*g)[3])
{
    double q[3], w, dN[FE_MAX_NODES][3], J[9];
    fe_quadrature(k, i, q, &w);
    fe_shape_gradient(k, q, dN);
    fe_jacobian(k, x, (const double (*)[3])dN, J);
    double d = det3(J);
    if (d == 0.0)
        return 0.0;
    /* inverse of J (cofactors / det); g_n = J^-T dN_n */
    double inv[9] = {(J[4] * J[8] - J[5] * J[7]) / d, (J[2] * J[7] - J[1] * J[8]) / d,
                     (J[1] * J[5] - J[2] * J[4]) / d, (J[5] * J[6] - J[3] * J[8]) / d,
                     (J[0] * J[8] - J[2] * J[6]) / d, (J[2] * J[3] - J[0] * J[5]) / d,
                     (J[3] * J[7] - J[4] * J[6]) / d, (J[1] * J[6] - J[0] * J[7]) / d,
                     (J[0] * J[4] - J[1] * J[3]) / d};
    for (int n = 0; n < fe_nodes(k); n++)
        for (int c = 0; c < 3; c++)
            g[n][c] = inv[c] * dN[n][0] + inv[3 + c] * dN[n][1] + inv[6 + c] * dN[n][2];
    return w * fabs(d);
}

bool fe_stiffness(fe_kind k, const double (*x)[3], double lambda, double mu, double *K)
{
    const int n = fe_nodes(k), nd = 3 * n;
    memset(K, 0, (size_t)nd * nd * sizeof(double));
    for (int i = 0; i < fe_quadrature_count(k); i++) {
        double g[FE_MAX_NODES][3];
        double wd = gradients(k, x, i, g);
        if (wd == 0.0)
            return false;
        /* B^T C B of isotropic C (Voigt, engineering shear), node blocks:
         * lambda g_a g_b^T + mu (g_b g_a^T + (g_a . g_b) I). */
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                double dot = g[a][0] * g[b][0] + g[a][1] * g[b][1] + g[a][2] * g[b][2];
                for (int r = 0; r < 3; r++)
                    for (int c = 0; c < 3; c++) {
                        double v = lambda * g[a][r] * g[b][c] + mu * g[a][c] * g[b][r];
                        if (r == c)
                            v += mu * dot;
                        K[(3 * a + r) * nd + 3 * b + c] += wd * v;
                    }
            }
    }
    return true;
}

void fe_mass(fe_kind k, const double (*x)[3], const double *rho_n, double *M)
{
    const int n = fe_nodes(k);
    memset(M, 0, (size_t)n * n * sizeof(double));
    for (int i = 0; i < fe_quadrature_count(k); i++) {
        double q[3], w, dN[FE_MAX_NODES][3], J[9], N[FE_MAX_NODES];
        fe_quadrature(k, i, q, &w);
        fe_shape_gradient(k, q, dN);
        fe_jacobian(k, x, (const double (*)[3])dN, J);
        fe_shape(k, q, N);
        double rho = 0;
        for (int a = 0; a < n; a++)
            rho += rho_n[a] * N[a];
        double s = w * rho * fabs(det3(J));
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++)
                M[a * n + b] += s * N[a] * N[b];
    }
}
