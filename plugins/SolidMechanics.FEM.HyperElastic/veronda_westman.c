/* veronda_westman.c - SOFA's VerondaWestman material, ParameterSet
 * "c1 c2 k0": W = c1 (exp(c2 (I1 J^-2/3 - 3)) - 1) - c1 c2 / 2 (I2 J^-4/3 - 3)
 * + k0/2 (ln J)^2. Small strains: shear modulus c1 c2, bulk modulus k0. */
#include <math.h>

#include "hyperelastic.h"

static void phi(double u, const double *p, double d[3])
{
    double c1 = p[0], c2 = p[1], e = exp(c2 * (u - 3));
    d[0] = c1 * (e - 1);
    d[1] = c1 * c2 * e;
    d[2] = c1 * c2 * c2 * e;
}

static void psi(double v, const double *p, double d[3])
{
    d[0] = -0.5 * p[0] * p[1] * (v - 3);
    d[1] = -0.5 * p[0] * p[1];
    d[2] = 0;
}

static void veronda_westman(double I1, double I2, double J, const double *p, double *w,
                            double g[3], double h[9])
{
    hyper_isochoric(I1, I2, J, p, phi, psi, p[2], w, g, h);
}

const hyper_material hyper_veronda_westman = {
    .name = "VerondaWestman",
    .nparams = 3,
    .params = "c1 c2 k0 (Veronda-Westman constants, bulk modulus)",
    HYPER_INVARIANT_MATERIAL(veronda_westman),
};
