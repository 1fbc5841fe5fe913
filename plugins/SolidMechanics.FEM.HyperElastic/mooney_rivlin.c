/* mooney_rivlin.c - SOFA's MooneyRivlin material, ParameterSet "c1 c2 k0":
 * W = c1 (I1 J^-2/3 - 3) + c2 (I2 J^-4/3 - 3) + k0/2 (ln J)^2, whose
 * 2 dW/dC is exactly SOFA's stress. (SOFA's getStrainEnergy writes
 * pow(J, -2/3) with integer division, i.e. J^0, and leaves out the -3 of the
 * c2 term, so it is not the potential of its own stress; SOFA never reports
 * it. The energy here is the one consistent with the force.) Small strains:
 * shear modulus 2 (c1 + c2), bulk modulus k0. */
#include "hyperelastic.h"

static void phi(double u, const double *p, double d[3])
{
    d[0] = p[0] * (u - 3);
    d[1] = p[0];
    d[2] = 0;
}

static void psi(double v, const double *p, double d[3])
{
    d[0] = p[1] * (v - 3);
    d[1] = p[1];
    d[2] = 0;
}

static void mooney_rivlin(double I1, double I2, double J, const double *p, double *w,
                          double g[3], double h[9])
{
    hyper_isochoric(I1, I2, J, p, phi, psi, p[2], w, g, h);
}

const hyper_material hyper_mooney_rivlin = {
    .name = "MooneyRivlin",
    .nparams = 3,
    .params = "c1 c2 k0 (Mooney-Rivlin constants, bulk modulus)",
    HYPER_INVARIANT_MATERIAL(mooney_rivlin),
};
