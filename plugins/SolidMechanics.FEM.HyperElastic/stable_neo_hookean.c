/* stable_neo_hookean.c - SOFA's StableNeoHookean material (Smith, de Goes
 * and Kim 2018, without the origin barrier), ParameterSet "mu lambda":
 * W = (mu (I1 - 3) + (lambda + mu) (J - alpha)^2) / 2, alpha = 1 +
 * mu / (lambda + mu), S = mu I + (lambda + mu) J (J - alpha) C^-1. As in
 * SOFA, W is not zero at rest (it is (lambda + mu)(1 - alpha)^2 / 2 there);
 * the stress is. Its tangent is indefinite on an inverted element (at F =
 * diag(1, 1, -1) the term (lambda + mu)(J - alpha) dcof F, J - alpha < -2,
 * outweighs mu dF): SOFA does not project it, and neither does settee; an
 * implicit step on a body starting inside out (SOFA's invertedTets scene)
 * solves an indefinite system whose solution can be very large (see
 * docs/from-sofa.md). */
#include "hyperelastic.h"

static void stable_neo_hookean(double I1, double I2, double J, const double *p, double *w,
                               double g[3], double h[9])
{
    (void)I2;
    double mu = p[0], lambda = p[1], alpha = 1 + mu / (lambda + mu);
    *w = 0.5 * (mu * (I1 - 3) + (lambda + mu) * (J - alpha) * (J - alpha));
    g[0] = 0.5 * mu;
    g[1] = 0;
    g[2] = (lambda + mu) * (J - alpha);
    for (int i = 0; i < 9; i++)
        h[i] = 0;
    h[8] = lambda + mu;
}

/* The cofactor matrix of F (row-major), J F^-T without an inverse: its
 * columns are f1 x f2, f2 x f0 and f0 x f1 for the columns f_j of F. With
 * dF given, the increment of the cofactor for dF instead (linear in dF). */
static void cofactor(const double F[9], const double *dF, double K[9])
{
    for (int j = 0; j < 3; j++) {
        int a = (j + 1) % 3, b = (j + 2) % 3;
        for (int i = 0; i < 3; i++) {
            int u = (i + 1) % 3, v = (i + 2) % 3;
            /* (f_a x f_b)_i = F[u][a] F[v][b] - F[v][a] F[u][b] */
            double c = dF ? dF[3 * u + a] * F[3 * v + b] + F[3 * u + a] * dF[3 * v + b] -
                                dF[3 * v + a] * F[3 * u + b] - F[3 * v + a] * dF[3 * u + b]
                          : F[3 * u + a] * F[3 * v + b] - F[3 * v + a] * F[3 * u + b];
            K[3 * i + j] = c;
        }
    }
}

/* P = F S = mu F + (lambda + mu) (J - alpha) cof F: SOFA's stress
 * (S = mu I + (lambda + mu) J (J - alpha) C^-1), with J F C^-1 = cof F. */
static void stable_pk1(const hyper_material *m, const hyper_strain *s, const double *p,
                       const double F[9], double P[9])
{
    (void)m;
    double mu = p[0], lambda = p[1], alpha = 1 + mu / (lambda + mu), K[9];
    cofactor(F, NULL, K);
    for (int i = 0; i < 9; i++)
        P[i] = mu * F[i] + (lambda + mu) * (s->J - alpha) * K[i];
}

/* dP = mu dF + (lambda + mu) ((cof F : dF) cof F + (J - alpha) dcof), the
 * derivative of the above (dJ = cof F : dF): SOFA's exact tangent. */
static void stable_dpk1(const hyper_material *m, const hyper_strain *s, const double *p,
                        const double F[9], const double dF[9], double dP[9])
{
    (void)m;
    double mu = p[0], lambda = p[1], alpha = 1 + mu / (lambda + mu), K[9], dK[9];
    cofactor(F, NULL, K);
    cofactor(F, dF, dK);
    double dJ = 0;
    for (int i = 0; i < 9; i++)
        dJ += K[i] * dF[i];
    for (int i = 0; i < 9; i++)
        dP[i] = mu * dF[i] + (lambda + mu) * (dJ * K[i] + (s->J - alpha) * dK[i]);
}

const hyper_material hyper_stable_neo_hookean = {
    .name = "StableNeoHookean",
    .nparams = 2,
    .params = "mu lambda (Lame coefficients)",
    HYPER_INVARIANT_MATERIAL(stable_neo_hookean),
    .pk1 = stable_pk1,
    .dpk1 = stable_dpk1,
};
