/* beam_fem.h - the BeamFEMForceField instance and its per-beam data (SOFA's
 * BeamInfo). Internal to the plugin; tests include it to compare the beam
 * data with the values SOFA's own tests check. */
#ifndef SETTEE_PLUGIN_BEAM_FEM_H
#define SETTEE_PLUGIN_BEAM_FEM_H

#include "fem.h"

/* One beam (an edge a -> b of the topology). */
typedef struct beam_info {
    unsigned a, b;
    double E, nu, L, r, r_inner; /* Young, Poisson, rest length, radii */
    double G, Iy, Iz, J, A;      /* shear modulus, second moments, polar moment, area */
    double Asy, Asz;             /* effective shear areas (0: Euler-Bernoulli, SOFA's value) */
    double k[12][12];            /* local stiffness: (u_a, theta_a, u_b, theta_b), x along the beam */
    double rot[9];               /* frame of the last add_force (node a), local to world */
} beam_info;

typedef struct beam_fem {
    st_component base;
    st_array poisson_ratio, young_modulus; /* reals */
    double rayleigh_stiffness;
    st_component *topology;
    double radius, radius_inner;
    st_array list_segment; /* uints */
    bool symmetric;        /* useSymmetricAssembly */
    char *beams_data;      /* ignored internal data */
    /* Computed at init. */
    st_mstate *ms;
    size_t nb;       /* beams */
    beam_info *beam; /* nb, owned */
    size_t nact;     /* beams acted on */
    unsigned *act;   /* their indices (listSegment or all), owned */
} beam_fem;

#endif
