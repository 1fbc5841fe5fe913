/* arruda_boyce.c - SOFA's ArrudaBoyce material (its default), ParameterSet
 * "mu k0": the five-term series of the eight-chain model with N = 8,
 * W = mu sum_k c_k ((I1 J^-2/3)^k - 3^k) + k0/2 (ln J)^2,
 * c = 1/2, 1/(20 N), 11/(1050 N^2), 19/(7000 N^3), 519/(673750 N^4).
 * Small strains: shear modulus 2 mu sum_k k c_k 3^(k-1) (about 1.0937 mu),
 * bulk modulus k0. */
#include <math.h>

#include "hyperelastic.h"

static const double coef[5] = {1.0 / 2.0, 1.0 / 160.0, 11.0 / (1050.0 * 8 * 8),
                               19.0 / (7000.0 * 8 * 8 * 8), 519.0 / (673750.0 * 8 * 8 * 8 * 8)};

static void phi(double u, const double *p, double d[3])
{
    double mu = p[0];
    d[0] = d[1] = d[2] = 0;
    for (int k = 1; k <= 5; k++) {
        double c = mu * coef[k - 1];
        d[0] += c * (pow(u, k) - pow(3, k));
        d[1] += c * k * pow(u, k - 1);
        if (k > 1)
            d[2] += c * k * (k - 1) * pow(u, k - 2);
    }
}

static void arruda_boyce(double I1, double I2, double J, const double *p, double *w,
                         double g[3], double h[9])
{
    hyper_isochoric(I1, I2, J, p, phi, NULL, p[1], w, g, h);
}

const hyper_material hyper_arruda_boyce = {
    .name = "ArrudaBoyce",
    .nparams = 2,
    .params = "mu k0 (shear-like modulus, bulk modulus)",
    HYPER_INVARIANT_MATERIAL(arruda_boyce),
};
