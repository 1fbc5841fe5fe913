/* costa.c - SOFA's Costa material (orthotropic exponential law for
 * myocardium, with the fibre, sheet and normal axes taken as x, y, z),
 * ParameterSet "a k0 bff bfs bss bfn bsn bnn":
 *   E = (C - I)/2, Q = bff E00^2 + bss E11^2 + bnn E22^2
 *                      + 2 (bfs E01^2 + bfn E02^2 + bsn E12^2),
 *   W = a/2 (exp(J^-4/3 Q) - 1) + k0 (J ln J - J - 1)
 * (SOFA's energy, -2 k0 at rest), S = a e^Qb (J^-4/3 U - 2/3 Qb C^-1)
 * + k0 J ln J C^-1 with U = B o E (B the symmetric matrix of the b's) and
 * Qb = J^-4/3 Q. The derivative of S is exact; SOFA's applyElasticityTensor
 * leaves the factor k0 out of its last term. */
#include <math.h>

#include "hyperelastic.h"

/* B_ij, the weight of E_ij^2 in Q. */
static void weights(const double *p, double B[9])
{
    B[0] = p[2];
    B[1] = B[3] = p[3];
    B[4] = p[4];
    B[2] = B[6] = p[5];
    B[5] = B[7] = p[6];
    B[8] = p[7];
}

/* U = B o E, Q and the modified Qb = J^-4/3 Q. */
static void measures(const hyper_strain *s, const double *p, double B[9], double U[9], double *Q,
                     double *Qb)
{
    weights(p, B);
    *Q = 0;
    for (int i = 0; i < 9; i++) {
        double E = 0.5 * (s->C[i] - (i % 4 == 0 ? 1.0 : 0.0));
        U[i] = B[i] * E;
        *Q += U[i] * E;
    }
    *Qb = pow(s->J, -4.0 / 3.0) * *Q;
}

static double costa_energy(const hyper_material *m, const hyper_strain *s, const double *p)
{
    (void)m;
    double B[9], U[9], Q, Qb, J = s->J;
    measures(s, p, B, U, &Q, &Qb);
    return p[0] * (exp(Qb) - 1) / 2 + p[1] * (J * log(J) - J - 1);
}

/* X = J^-4/3 U - 2/3 Qb C^-1, so that S = a e^Qb X + k0 J ln J C^-1. */
static void costa_x(const hyper_strain *s, const double U[9], double Qb, double X[9])
{
    double Jm = pow(s->J, -4.0 / 3.0);
    for (int i = 0; i < 9; i++)
        X[i] = Jm * U[i] - 2.0 / 3.0 * Qb * s->Ci[i];
}

static void costa_stress(const hyper_material *m, const hyper_strain *s, const double *p,
                         double S[9])
{
    (void)m;
    double B[9], U[9], X[9], Q, Qb;
    measures(s, p, B, U, &Q, &Qb);
    costa_x(s, U, Qb, X);
    double e = p[0] * exp(Qb), v = p[1] * s->J * log(s->J);
    for (int i = 0; i < 9; i++)
        S[i] = e * X[i] + v * s->Ci[i];
}

static void costa_dstress(const hyper_material *m, const hyper_strain *s, const double *p,
                          const double H[9], double dS[9])
{
    (void)m;
    double B[9], U[9], X[9], Q, Qb, CHC[9];
    measures(s, p, B, U, &Q, &Qb);
    costa_x(s, U, Qb, X);
    hyper_sandwich(CHC, s->Ci, H);
    double J = s->J, L = log(J), Jm = pow(J, -4.0 / 3.0), ciH = mat3_ddot(s->Ci, H);
    double dQb = mat3_ddot(X, H), dJm = -2.0 / 3.0 * Jm * ciH, e = p[0] * exp(Qb);
    double vol = p[1] * (L + 1) * J / 2 * ciH, vols = p[1] * J * L;
    for (int i = 0; i < 9; i++) {
        double dX = dJm * U[i] + Jm * B[i] * H[i] / 2 - 2.0 / 3.0 * dQb * s->Ci[i] +
                    2.0 / 3.0 * Qb * CHC[i];
        dS[i] = e * (dQb * X[i] + dX) + vol * s->Ci[i] - vols * CHC[i];
    }
}

const hyper_material hyper_costa = {
    .name = "Costa",
    .nparams = 8,
    .params = "a k0 bff bfs bss bfn bsn bnn",
    .energy = costa_energy,
    .stress = costa_stress,
    .dstress = costa_dstress,
};
