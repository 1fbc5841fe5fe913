/* ogden.c - SOFA's Ogden material (one term), ParameterSet "mu1 alpha1 k0":
 *   W = mu1/alpha1^2 (J^-alpha1/3 tr(C^alpha1/2) - 3) + k0/2 (ln J)^2,
 *   S = mu1/alpha1 J^-a/3 C^(a/2-1) - mu1/(3 alpha1) J^-a/3 tr(C^a/2) C^-1
 *       + k0 ln J C^-1,
 * with the powers of C from its eigen-decomposition. The derivative of the
 * matrix power C^(a/2-1) uses the divided differences of the eigenvalues
 * (Daleckii-Krein), stable for equal eigenvalues. Small strains: shear
 * modulus mu1/2, bulk modulus k0. */
#include <math.h>

#include "hyperelastic.h"

/* The power sum P = sum ev^(a/2) and G = C^(a/2 - 1). */
static void powers(const hyper_strain *s, double a, double *P, double G[9])
{
    double g[3];
    *P = 0;
    for (int k = 0; k < 3; k++) {
        *P += pow(s->ev[k], a / 2);
        g[k] = pow(s->ev[k], a / 2 - 1);
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            const double *q = s->evec;
            G[3 * i + j] = g[0] * q[3 * i] * q[3 * j] + g[1] * q[3 * i + 1] * q[3 * j + 1] +
                           g[2] * q[3 * i + 2] * q[3 * j + 2];
        }
}

static double ogden_energy(const hyper_material *m, const hyper_strain *s, const double *p)
{
    (void)m;
    double mu = p[0], a = p[1], k0 = p[2], L = log(s->J), P = 0;
    for (int k = 0; k < 3; k++)
        P += pow(s->ev[k], a / 2);
    return mu / (a * a) * (pow(s->J, -a / 3) * P - 3) + 0.5 * k0 * L * L;
}

static void ogden_stress(const hyper_material *m, const hyper_strain *s, const double *p,
                         double S[9])
{
    (void)m;
    double mu = p[0], a = p[1], k0 = p[2], P, G[9], FJ = pow(s->J, -a / 3);
    powers(s, a, &P, G);
    double ci = -mu / (3 * a) * FJ * P + k0 * log(s->J);
    for (int i = 0; i < 9; i++)
        S[i] = mu / a * FJ * G[i] + ci * s->Ci[i];
}

/* (x^b - y^b) / (x - y), and b x^(b-1) when x = y, for x, y > 0. */
static double divided_power(double x, double y, double b)
{
    double d = (x - y) / y;
    if (d == 0.0)
        return b * pow(y, b - 1);
    return pow(y, b - 1) * expm1(b * log1p(d)) / d;
}

static void ogden_dstress(const hyper_material *m, const hyper_strain *s, const double *p,
                          const double H[9], double dS[9])
{
    (void)m;
    double mu = p[0], a = p[1], k0 = p[2], P, G[9], FJ = pow(s->J, -a / 3), L = log(s->J);
    powers(s, a, &P, G);
    /* dG = Q (Gamma o Q^T H Q) Q^T */
    const double *Q = s->evec;
    double HQ[9], Ht[9], T[9], dG[9];
    mat3_mul(HQ, H, Q);
    mat3_mul_tn(Ht, Q, HQ);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            Ht[3 * i + j] *= divided_power(s->ev[i], s->ev[j], a / 2 - 1);
    mat3_mul(T, Q, Ht);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            dG[3 * i + j] = T[3 * i] * Q[3 * j] + T[3 * i + 1] * Q[3 * j + 1] +
                            T[3 * i + 2] * Q[3 * j + 2];
    double CHC[9];
    hyper_sandwich(CHC, s->Ci, H);
    double ciH = mat3_ddot(s->Ci, H);
    double dFJ = -a / 6 * FJ * ciH, dP = a / 2 * mat3_ddot(G, H);
    double cci = -mu / (3 * a) * (dFJ * P + FJ * dP) + 0.5 * k0 * ciH;
    double cchc = mu / (3 * a) * FJ * P - k0 * L;
    for (int i = 0; i < 9; i++)
        dS[i] = mu / a * (dFJ * G[i] + FJ * dG[i]) + cci * s->Ci[i] + cchc * CHC[i];
}

const hyper_material hyper_ogden = {
    .name = "Ogden",
    .nparams = 3,
    .params = "mu1 alpha1 k0",
    .needs_eigen = true,
    .energy = ogden_energy,
    .stress = ogden_stress,
    .dstress = ogden_dstress,
};
