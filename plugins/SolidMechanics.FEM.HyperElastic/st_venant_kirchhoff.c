/* st_venant_kirchhoff.c - SOFA's StVenantKirchhoff material, ParameterSet
 * "mu lambda": W = lambda/2 (tr E)^2 + mu tr(E^2), E = (C - I)/2, so
 * S = lambda tr(E) I + 2 mu E. Written in the invariants:
 * tr E = (I1 - 3)/2, tr(E^2) = (I1^2 - 2 I2 - 2 I1 + 3)/4. */
#include "hyperelastic.h"

static void svk(double I1, double I2, double J, const double *p, double *w, double g[3],
                double h[9])
{
    (void)J;
    double mu = p[0], lambda = p[1];
    *w = lambda / 8 * (I1 - 3) * (I1 - 3) + mu / 4 * (I1 * I1 - 2 * I2 - 2 * I1 + 3);
    g[0] = lambda / 4 * (I1 - 3) + mu / 2 * (I1 - 1);
    g[1] = -mu / 2;
    g[2] = 0;
    for (int i = 0; i < 9; i++)
        h[i] = 0;
    h[0] = lambda / 4 + mu / 2;
}

const hyper_material hyper_st_venant_kirchhoff = {
    .name = "StVenantKirchhoff",
    .nparams = 2,
    .params = "mu lambda (Lame coefficients)",
    HYPER_INVARIANT_MATERIAL(svk),
};
