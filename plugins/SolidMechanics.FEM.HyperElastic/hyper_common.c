/* hyper_common.c - the hyperelastic materials' shared algebra: strain
 * measures, the stress and its derivative for any material written as
 * W(I1, I2, J), the isochoric split, and the material table. */
#include <math.h>
#include <string.h>

#include "../shared/sym3_eigen.h"
#include "hyperelastic.h"

/* SOFA's option order (materialOptions): ArrudaBoyce is the default. */
static const hyper_material *const materials[] = {
    &hyper_arruda_boyce, &hyper_st_venant_kirchhoff, &hyper_neo_hookean,
    &hyper_mooney_rivlin, &hyper_veronda_westman, &hyper_costa,
    &hyper_ogden, &hyper_stable_neo_hookean};

const hyper_material *hyper_material_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof materials / sizeof *materials; i++)
        if (!strcmp(name, materials[i]->name))
            return materials[i];
    return NULL;
}

const hyper_material *hyper_material_at(unsigned i)
{
    return i < sizeof materials / sizeof *materials ? materials[i] : NULL;
}

const char *hyper_material_names(void)
{
    return "ArrudaBoyce, StVenantKirchhoff, NeoHookean, MooneyRivlin, VerondaWestman, Costa, "
           "Ogden, StableNeoHookean";
}

void hyper_sandwich(double r[9], const double a[9], const double H[9])
{
    double t[9];
    mat3_mul(t, a, H);
    mat3_mul(r, t, a);
}

void hyper_strain_set(hyper_strain *s, const hyper_material *m, const double *p,
                      const double C[9], double J)
{
    memcpy(s->C, C, sizeof s->C);
    if (!mat3_invert(s->Ci, C))
        for (int i = 0; i < 9; i++)
            s->Ci[i] = NAN; /* a flat element: the stress is undefined, as in SOFA */
    s->I1 = mat3_trace(C);
    s->I2 = 0.5 * (s->I1 * s->I1 - mat3_ddot(C, C));
    s->J = J;
    if (m->needs_eigen)
        sym3_eigen(C, s->ev, s->evec);
    if (m->inv)
        m->inv(s->I1, s->I2, s->J, p, &s->w, s->g, s->h);
}

/* ---- Invariant-based materials ----
 * dI1/dC = I, dI2/dC = I1 I - C, dJ/dC = J/2 C^-1, so
 *   S = 2 W1 I + 2 W2 (I1 I - C) + WJ J C^-1,
 * and for dC = H (dI1 = tr H, dI2 = I1 tr H - C:H, dJ = J/2 C^-1:H,
 * d(C^-1) = -C^-1 H C^-1, dWa = sum_b Wab dIb):
 *   dS = 2 dW1 I + 2 dW2 (I1 I - C) + 2 W2 (tr H I - H)
 *        + (dWJ J + WJ dJ) C^-1 - WJ J C^-1 H C^-1. */

double hyper_inv_energy(const hyper_material *m, const hyper_strain *s, const double *p)
{
    (void)m, (void)p;
    return s->w;
}

void hyper_inv_stress(const hyper_material *m, const hyper_strain *s, const double *p,
                      double S[9])
{
    (void)m, (void)p;
    const double *g = s->g;
    double a = 2 * g[0] + 2 * g[1] * s->I1, b = -2 * g[1], c = g[2] * s->J;
    for (int i = 0; i < 9; i++)
        S[i] = b * s->C[i] + c * s->Ci[i] + (i % 4 == 0 ? a : 0.0);
}

void hyper_inv_dstress(const hyper_material *m, const hyper_strain *s, const double *p,
                       const double H[9], double dS[9])
{
    (void)m, (void)p;
    const double *g = s->g, *h = s->h;
    double trH = mat3_trace(H);
    double dI[3] = {trH, s->I1 * trH - mat3_ddot(s->C, H), 0.5 * s->J * mat3_ddot(s->Ci, H)};
    double dg[3];
    for (int a = 0; a < 3; a++)
        dg[a] = h[3 * a] * dI[0] + h[3 * a + 1] * dI[1] + h[3 * a + 2] * dI[2];
    double CHC[9];
    hyper_sandwich(CHC, s->Ci, H);
    double id = 2 * dg[0] + 2 * dg[1] * s->I1 + 2 * g[1] * trH;
    double cc = -2 * dg[1], ch = -2 * g[1], ci = dg[2] * s->J + g[2] * dI[2],
           cs = -g[2] * s->J;
    for (int i = 0; i < 9; i++)
        dS[i] = cc * s->C[i] + ch * H[i] + ci * s->Ci[i] + cs * CHC[i] + (i % 4 == 0 ? id : 0.0);
}

void hyper_isochoric(double I1, double I2, double J, const double *p, hyper_scalar_fn phi,
                     hyper_scalar_fn psi, double k0, double *w, double g[3], double h[9])
{
    double L = log(J);
    double a = pow(J, -2.0 / 3.0), b = pow(J, -4.0 / 3.0);
    double u = I1 * a, v = I2 * b; /* modified invariants */
    double d1[3], d2[3] = {0, 0, 0};
    phi(u, p, d1);
    if (psi)
        psi(v, p, d2);
    *w = d1[0] + d2[0] + 0.5 * k0 * L * L;
    g[0] = d1[1] * a;
    g[1] = d2[1] * b;
    g[2] = (-2.0 / 3.0 * d1[1] * u - 4.0 / 3.0 * d2[1] * v + k0 * L) / J;
    h[0] = d1[2] * a * a;
    h[4] = d2[2] * b * b;
    h[1] = h[3] = 0.0;
    h[2] = h[6] = -2.0 / 3.0 * a / J * (d1[2] * u + d1[1]);
    h[5] = h[7] = -4.0 / 3.0 * b / J * (d2[2] * v + d2[1]);
    h[8] = (4.0 / 9.0 * d1[2] * u * u + 10.0 / 9.0 * d1[1] * u + 16.0 / 9.0 * d2[2] * v * v +
            28.0 / 9.0 * d2[1] * v + k0 * (1 - L)) /
           (J * J);
}
