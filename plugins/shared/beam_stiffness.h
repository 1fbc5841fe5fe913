/* beam_stiffness.h - the 12x12 local stiffness of a 6-dof beam element
 * (Timoshenko's, Przemieniecki's form) that SOFA's BeamFEMForceField and
 * BeamAdapter's AdaptiveBeamForceFieldAndMass both use. Dofs (u_a, theta_a,
 * u_b, theta_b), x along the beam. Shear factors phi = 24 (1 + nu) I /
 * (As L^2), 0 when the shear area As is 0 (Euler-Bernoulli). Header-only,
 * for any plugin. */
#ifndef SETTEE_SHARED_BEAM_STIFFNESS_H
#define SETTEE_SHARED_BEAM_STIFFNESS_H

#include <string.h>

/* Section and material of one beam. */
typedef struct beam_section_props {
    double E, nu, L;        /* Young's modulus, Poisson's ratio, length */
    double A, Iy, Iz, J;    /* area, second moments, polar moment */
    double Asy, Asz;        /* effective shear areas (0: no shear deformation) */
} beam_section_props;

/* Fills k with the local stiffness of p. A zero length gives zero terms
 * (BeamAdapter's guards) rather than infinities. */
static inline void beam_local_stiffness(double k[12][12], const beam_section_props *p)
{
    const double E = p->E, L = p->L, L2 = L * L, L3 = L2 * L;
    const double G = E / (2.0 * (1.0 + p->nu)), EIy = E * p->Iy, EIz = E * p->Iz;
    double phiy = 0.0, phiz = 0.0;
    if (p->Asy != 0.0 && L2 != 0.0)
        phiy = 24.0 * (1.0 + p->nu) * p->Iz / (p->Asy * L2);
    if (p->Asz != 0.0 && L2 != 0.0)
        phiz = 24.0 * (1.0 + p->nu) * p->Iy / (p->Asz * L2);
    memset(k, 0, 144 * sizeof(double));
    if (L == 0.0)
        return;
    k[6][6] = k[0][0] = E * p->A / L;
    k[7][7] = k[1][1] = 12.0 * EIz / (L3 * (1.0 + phiy));
    k[8][8] = k[2][2] = 12.0 * EIy / (L3 * (1.0 + phiz));
    k[9][9] = k[3][3] = G * p->J / L;
    k[10][10] = k[4][4] = (4.0 + phiz) * EIy / (L * (1.0 + phiz));
    k[11][11] = k[5][5] = (4.0 + phiy) * EIz / (L * (1.0 + phiy));
    k[4][2] = -6.0 * EIy / (L2 * (1.0 + phiz));
    k[5][1] = 6.0 * EIz / (L2 * (1.0 + phiy));
    k[6][0] = -k[0][0];
    k[7][1] = -k[1][1];
    k[7][5] = -k[5][1];
    k[8][2] = -k[2][2];
    k[8][4] = -k[4][2];
    k[9][3] = -k[3][3];
    k[10][2] = k[4][2];
    k[10][4] = (2.0 - phiz) * EIy / (L * (1.0 + phiz));
    k[10][8] = -k[4][2];
    k[11][1] = k[5][1];
    k[11][5] = (2.0 - phiy) * EIz / (L * (1.0 + phiy));
    k[11][7] = -k[5][1];
    for (int i = 0; i <= 10; i++)
        for (int j = i + 1; j < 12; j++)
            k[i][j] = k[j][i];
}

#endif
