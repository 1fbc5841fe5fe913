/* fem_element.c - SOFA's finite elements (sofa::fem::FiniteElement): the
 * linear edge, triangle, tetrahedron, prism and pyramid, the bilinear quad
 * and the trilinear hexahedron, and the element matrices integrated with
 * their quadrature rules in 1, 2 or 3 dimensions (see fem_element.h). */
#include "fem_element.h"

#include <math.h>
#include <string.h>

/* SOFA's reference hexahedron (nodes in its topological order). */
static const double hexa_ref[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                      {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
/* SOFA's truncated sqrt(3) of its hexahedron and pyramid Gauss points. */
#define FE_SQRT3 1.73205080757

static const char *const kind_names[FE_KINDS] = {"Edge",  "Hexahedron",  "Prism",   "Pyramid",
                                                 "Quad",  "Tetrahedron", "Triangle"};
static const int kind_nodes[FE_KINDS] = {2, 8, 6, 5, 4, 4, 3};
static const int kind_dim[FE_KINDS] = {1, 3, 3, 3, 2, 3, 2};
static const int kind_nq[FE_KINDS] = {1, 8, 2, 8, 3, 1, 1};

const char *fe_kind_name(fe_kind k) { return kind_names[k]; }
int fe_nodes(fe_kind k) { return kind_nodes[k]; }
int fe_topo_dim(fe_kind k) { return kind_dim[k]; }
int fe_quadrature_count(fe_kind k) { return kind_nq[k]; }

bool fe_parse_template(const char *templ, int *d, fe_kind *k)
{
    /* SOFA's names of the state type: Vec<d>d, or its alias Vec<d> */
    if (!templ || strncmp(templ, "Vec", 3) || templ[3] < '1' || templ[3] > '3')
        return false;
    *d = templ[3] - '0';
    const char *e = templ + 4;
    if (*e == 'd')
        e++;
    if (*e++ != ',')
        return false;
    for (int i = 0; i < FE_KINDS; i++)
        if (!strcmp(e, kind_names[i])) {
            *k = (fe_kind)i;
            return true;
        }
    return false;
}

bool fe_registered(int d, fe_kind k)
{
    return d >= kind_dim[k] && (d == 3 || kind_dim[k] < 3);
}

void fe_quadrature(fe_kind k, int i, double q[3], double *w)
{
    q[0] = q[1] = q[2] = 0;
    switch (k) {
    case FE_EDGE: *w = 2.0; return;
    case FE_TRIANGLE:
        q[0] = q[1] = 1. / 3.;
        *w = 1. / 2.;
        return;
    case FE_QUAD: {
        const double sqrt2_3 = 0.816496580928, sqrt6 = 2.44948974278, sqrt2 = 1.41421356237;
        const double qs[3][2] = {{sqrt2_3, 0.}, {-1 / sqrt6, -1. / sqrt2}, {-1 / sqrt6, 1. / sqrt2}};
        q[0] = qs[i][0], q[1] = qs[i][1];
        *w = 4. / 3.;
        return;
    }
    case FE_TETRAHEDRON:
        q[0] = q[1] = q[2] = 1. / 4.;
        *w = 1. / 6.;
        return;
    case FE_PRISM: {
        const double sqrt_3 = 0.57735026919; /* SOFA's 1/sqrt(3) */
        q[0] = q[1] = 1. / 3.;
        q[2] = 0.5 * (i == 0 ? 1 - sqrt_3 : 1 + sqrt_3);
        *w = 1. / 4.;
        return;
    }
    case FE_HEXAHEDRON:
    case FE_PYRAMID: {
        const double s = 1.0 / FE_SQRT3;
        for (int c = 0; c < 3; c++)
            q[c] = hexa_ref[i][c] * s;
        *w = 1.0;
        return;
    }
    default: *w = 0; return;
    }
}

void fe_shape(fe_kind k, const double q[3], double *N)
{
    const double x = q[0], y = q[1], z = q[2];
    switch (k) {
    case FE_EDGE: N[0] = 0.5 * (1 - x), N[1] = 0.5 * (1 + x); return;
    case FE_TRIANGLE: N[0] = 1 - x - y, N[1] = x, N[2] = y; return;
    case FE_QUAD:
        N[0] = 0.25 * (x - 1) * (y - 1), N[1] = -0.25 * (x + 1) * (y - 1);
        N[2] = 0.25 * (x + 1) * (y + 1), N[3] = -0.25 * (x - 1) * (y + 1);
        return;
    case FE_TETRAHEDRON: N[0] = 1.0 - x - y - z, N[1] = x, N[2] = y, N[3] = z; return;
    case FE_PRISM:
        N[0] = x * z - x + y * z - y - z + 1, N[1] = (1 - z) * x, N[2] = (1 - z) * y;
        N[3] = (-x - y + 1) * z, N[4] = x * z, N[5] = y * z;
        return;
    case FE_PYRAMID:
        N[0] = 0.125 * (1 - x) * (1 - y) * (1 - z), N[1] = 0.125 * (1 + x) * (1 - y) * (1 - z);
        N[2] = 0.125 * (1 + x) * (1 + y) * (1 - z), N[3] = 0.125 * (1 - x) * (1 + y) * (1 - z);
        N[4] = 0.5 * (1 + z);
        return;
    case FE_HEXAHEDRON:
        for (int i = 0; i < 8; i++) {
            const double *r = hexa_ref[i];
            N[i] = 0.125 * (1 + x * r[0]) * (1 + y * r[1]) * (1 + z * r[2]);
        }
        return;
    default: return;
    }
}

void fe_shape_gradient(fe_kind k, const double q[3], double (*dN)[3])
{
    const double x = q[0], y = q[1], z = q[2];
    memset(dN, 0, (size_t)kind_nodes[k] * sizeof *dN);
    switch (k) {
    case FE_EDGE: dN[0][0] = -0.5, dN[1][0] = 0.5; return;
    case FE_TRIANGLE: {
        static const double g[3][3] = {{-1, -1, 0}, {1, 0, 0}, {0, 1, 0}};
        memcpy(dN, g, sizeof g);
        return;
    }
    case FE_QUAD: {
        const double g[4][3] = {{0.25 * (-1 + y), 0.25 * (-1 + x), 0},
                                {0.25 * (1 - y), 0.25 * (-1 - x), 0},
                                {0.25 * (1 + y), 0.25 * (1 + x), 0},
                                {0.25 * (-1 - y), 0.25 * (1 - x), 0}};
        memcpy(dN, g, sizeof g);
        return;
    }
    case FE_TETRAHEDRON: {
        static const double g[4][3] = {{-1, -1, -1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        memcpy(dN, g, sizeof g);
        return;
    }
    case FE_PRISM: {
        const double g[6][3] = {{z - 1, z - 1, x + y - 1}, {1 - z, 0, -x}, {0, 1 - z, -y},
                                {-z, -z, -x - y + 1},      {z, 0, x},      {0, z, y}};
        memcpy(dN, g, sizeof g);
        return;
    }
    case FE_PYRAMID: {
        const double e = 0.125;
        const double g[5][3] = {
            {-e * (1 - y) * (1 - z), -e * (1 - x) * (1 - z), -e * (1 - x) * (1 - y)},
            {e * (1 - y) * (1 - z), -e * (1 + x) * (1 - z), -e * (1 + x) * (1 - y)},
            {e * (1 + y) * (1 - z), e * (1 + x) * (1 - z), -e * (1 + x) * (1 + y)},
            {-e * (1 + y) * (1 - z), e * (1 - x) * (1 - z), -e * (1 - x) * (1 + y)},
            {0, 0, 0.5}};
        memcpy(dN, g, sizeof g);
        return;
    }
    case FE_HEXAHEDRON:
        for (int i = 0; i < 8; i++) {
            const double *r = hexa_ref[i];
            dN[i][0] = 1. / 8. * (r[0] * (1 + y * r[1]) * (1 + z * r[2]));
            dN[i][1] = 1. / 8. * (r[1] * (1 + x * r[0]) * (1 + z * r[2]));
            dN[i][2] = 1. / 8. * (r[2] * (1 + x * r[0]) * (1 + y * r[1]));
        }
        return;
    default: return;
    }
}

void fe_lame(double young, double poisson, int d, double *lambda, double *mu)
{
    *mu = young / (2 * (1 + poisson));
    *lambda = young * poisson / ((1 + poisson) * (1 - (d - 1) * poisson));
}

/* Inverse of the n x n matrix a (n <= 3, row-major, stride 3) into inv
 * (stride 3) by cofactors; returns the determinant (0: inv untouched). */
static double invert_small(int n, const double a[9], double inv[9])
{
    if (n == 1) {
        if (a[0] == 0.0)
            return 0.0;
        inv[0] = 1.0 / a[0];
        return a[0];
    }
    if (n == 2) {
        double d = a[0] * a[4] - a[1] * a[3];
        if (d == 0.0)
            return 0.0;
        inv[0] = a[4] / d, inv[1] = -a[1] / d, inv[3] = -a[3] / d, inv[4] = a[0] / d;
        return d;
    }
    double d = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
               a[2] * (a[3] * a[7] - a[4] * a[6]);
    if (d == 0.0)
        return 0.0;
    inv[0] = (a[4] * a[8] - a[5] * a[7]) / d, inv[1] = (a[2] * a[7] - a[1] * a[8]) / d;
    inv[2] = (a[1] * a[5] - a[2] * a[4]) / d, inv[3] = (a[5] * a[6] - a[3] * a[8]) / d;
    inv[4] = (a[0] * a[8] - a[2] * a[6]) / d, inv[5] = (a[2] * a[3] - a[0] * a[5]) / d;
    inv[6] = (a[3] * a[7] - a[4] * a[6]) / d, inv[7] = (a[1] * a[6] - a[0] * a[7]) / d;
    inv[8] = (a[0] * a[4] - a[1] * a[3]) / d;
    return d;
}

/* At quadrature point i: the shape functions N (may be NULL), the
 * physical gradients g (n x d, may be NULL) and w |det J| (0 when J is
 * degenerate). J (d x t) = sum_n x_n dN_n^T; |det J| = |det J| when
 * square, sqrt(det J^T J) otherwise; g_n = J^+T dN_n with J^+ the inverse
 * or the left pseudo-inverse (J^T J)^-1 J^T. */
static double quad_point(fe_kind k, int d, const double *x, int i, double *N, double (*g)[3])
{
    const int n = kind_nodes[k], t = kind_dim[k];
    double q[3], w, dN[FE_MAX_NODES][3], J[9] = {0}; /* J[3 r + c]: row r < d, column c < t */
    fe_quadrature(k, i, q, &w);
    fe_shape_gradient(k, q, dN);
    if (N)
        fe_shape(k, q, N);
    for (int a = 0; a < n; a++)
        for (int r = 0; r < d; r++)
            for (int c = 0; c < t; c++)
                J[3 * r + c] += x[d * a + r] * dN[a][c];
    double Jp[9] = {0}, det; /* Jp[3 c + r]: t x d */
    if (t == d) {
        det = fabs(invert_small(d, J, Jp));
    } else {
        double G[9] = {0}, Gi[9] = {0};
        for (int a = 0; a < t; a++)
            for (int b = 0; b < t; b++)
                for (int r = 0; r < d; r++)
                    G[3 * a + b] += J[3 * r + a] * J[3 * r + b];
        double dg = invert_small(t, G, Gi);
        det = dg > 0 ? sqrt(dg) : 0.0;
        for (int a = 0; a < t; a++)
            for (int r = 0; r < d; r++)
                for (int b = 0; b < t; b++)
                    Jp[3 * a + r] += Gi[3 * a + b] * J[3 * r + b];
    }
    if (det == 0.0)
        return 0.0;
    if (g)
        for (int a = 0; a < n; a++)
            for (int c = 0; c < d; c++) {
                double s = 0;
                for (int r = 0; r < t; r++)
                    s += Jp[3 * r + c] * dN[a][r];
                g[a][c] = s;
            }
    return w * det;
}

bool fe_stiffness(fe_kind k, int d, const double *x, double lambda, double mu, double *K)
{
    const int n = kind_nodes[k], nd = d * n;
    memset(K, 0, (size_t)nd * nd * sizeof(double));
    for (int i = 0; i < kind_nq[k]; i++) {
        double g[FE_MAX_NODES][3];
        double wd = quad_point(k, d, x, i, NULL, g);
        if (wd == 0.0)
            return false;
        /* B^T C B of SOFA's isotropic C (Voigt, engineering shear), node
         * blocks: lambda g_a g_b^T + mu (g_b g_a^T + (g_a . g_b) I). */
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                double dot = 0;
                for (int c = 0; c < d; c++)
                    dot += g[a][c] * g[b][c];
                for (int r = 0; r < d; r++)
                    for (int c = 0; c < d; c++) {
                        double v = lambda * g[a][r] * g[b][c] + mu * g[a][c] * g[b][r];
                        if (r == c)
                            v += mu * dot;
                        K[(d * a + r) * nd + d * b + c] += wd * v;
                    }
            }
    }
    return true;
}

void fe_mass(fe_kind k, int d, const double *x, const double *rho_n, double *M)
{
    const int n = kind_nodes[k];
    memset(M, 0, (size_t)n * n * sizeof(double));
    for (int i = 0; i < kind_nq[k]; i++) {
        double N[FE_MAX_NODES];
        double wd = quad_point(k, d, x, i, N, NULL);
        double rho = 0;
        for (int a = 0; a < n; a++)
            rho += rho_n[a] * N[a];
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++)
                M[a * n + b] += wd * rho * N[a] * N[b];
    }
}

const unsigned *fe_topology_elements(st_component *topo, fe_kind k, size_t *n)
{
    *n = 0;
    const st_array *a = NULL;
    if (k == FE_PRISM || k == FE_PYRAMID) {
        const st_field *f = st_component_field(topo, k == FE_PRISM ? "prisms" : "pyramids");
        if (f && f->type == ST_T_UINTS)
            a = st_component_field_ptr(topo, f);
        if (!a || !a->n)
            return NULL;
        *n = a->n / (size_t)kind_nodes[k];
        return *n ? a->u : NULL;
    }
    static const st_type lists[FE_KINDS] = {
        [FE_EDGE] = ST_T_EDGES, [FE_TRIANGLE] = ST_T_TRIANGLES, [FE_QUAD] = ST_T_QUADS,
        [FE_TETRAHEDRON] = ST_T_TETRAS, [FE_HEXAHEDRON] = ST_T_HEXAS};
    a = topo->cls->topology->elements(topo, lists[k]);
    if (!a || !a->n)
        return NULL;
    *n = a->n;
    return a->u;
}
