/* stable_neo_hookean.c - SOFA's StableNeoHookean material (Smith, de Goes
 * and Kim 2018, without the origin barrier), ParameterSet "mu lambda":
 * W = (mu (I1 - 3) + (lambda + mu) (J - alpha)^2) / 2, alpha = 1 +
 * mu / (lambda + mu), S = mu I + (lambda + mu) J (J - alpha) C^-1. As in
 * SOFA, W is not zero at rest (it is (lambda + mu)(1 - alpha)^2 / 2 there);
 * the stress is. */
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

const hyper_material hyper_stable_neo_hookean = {
    .name = "StableNeoHookean",
    .nparams = 2,
    .params = "mu lambda (Lame coefficients)",
    HYPER_INVARIANT_MATERIAL(stable_neo_hookean),
};
