/* neo_hookean.c - SOFA's NeoHookean material (compressible, Bonet and
 * Wood), ParameterSet "mu lambda":
 * W = mu/2 (I1 - 3) - mu ln J + lambda/2 (ln J)^2,
 * S = mu I + (lambda ln J - mu) C^-1. */
#include <math.h>

#include "hyperelastic.h"

static void neo_hookean(double I1, double I2, double J, const double *p, double *w, double g[3],
                        double h[9])
{
    (void)I2;
    double mu = p[0], lambda = p[1], L = log(J);
    *w = 0.5 * mu * (I1 - 3) - mu * L + 0.5 * lambda * L * L;
    g[0] = 0.5 * mu;
    g[1] = 0;
    g[2] = (lambda * L - mu) / J;
    for (int i = 0; i < 9; i++)
        h[i] = 0;
    h[8] = (lambda * (1 - L) + mu) / (J * J);
}

const hyper_material hyper_neo_hookean = {
    .name = "NeoHookean",
    .nparams = 2,
    .params = "mu lambda (Lame coefficients)",
    HYPER_INVARIANT_MATERIAL(neo_hookean),
};
