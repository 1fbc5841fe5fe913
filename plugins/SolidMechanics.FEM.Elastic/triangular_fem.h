/* triangular_fem.h - the instance of TriangularFEMForceField (and of its
 * Optim and Anisotropic twins) and its per-element data. Internal to the
 * plugin; tests include it to compare the element data with the values
 * SOFA's own tests check. */
#ifndef SETTEE_PLUGIN_TRIANGULAR_FEM_H
#define SETTEE_PLUGIN_TRIANGULAR_FEM_H

#include "fem.h"

enum { TRF_LARGE = 0, TRF_SMALL = 1 }; /* SOFA's values */

typedef struct trf_elem {
    unsigned v[3];
    double K[9];       /* material matrix times rest area */
    double J[6][3];    /* strain-displacement of the last add_force */
    double R[9];       /* element frame to world (SOFA's rotation); identity for small */
    double rest[3][3]; /* rotatedInitialElements */
    double area;
    double strain[3], stress[3];
    double opt[4];     /* TriangularFEMForceFieldOptim: SOFA's rest bx, cx, cy, ss_factor */
    bool fresh;        /* added by a topological change, not initialised yet */
} trf_elem;

typedef struct trf_fem {
    st_component base;
    st_array poisson_ratio, young_modulus; /* reals */
    double rayleigh_stiffness;
    st_component *topology;
    char *triangle_info, *vertex_info; /* ignored internal data */
    char *method;
    st_array rotated_initial;   /* vec3[], 3 per triangle ("rotatedInitialElements") */
    st_array initial_transform; /* reals, 9 per triangle ("initialTransformation") */
    double hosford, criteria;
    bool show_stress_value, show_stress_vector, show_fracturable, compute_principal;
    st_array max_stress;        /* output, one per triangle */
    st_array vertex_stress;     /* output, one per vertex */
    /* TriangularFEMForceFieldOptim only (optim true). */
    bool optim;
    char *triangle_state;       /* ignored internal data */
    double damping, rest_scale, stress_max_value, show_stress_threshold;
    /* TriangularAnisotropicFEMForceField only (aniso true). */
    bool aniso;
    st_array young2;            /* reals, "transverseYoungModulus" */
    double fiber_angle;         /* degrees */
    st_array fiber_center;      /* vec3[] (the first one is used) */
    bool show_fiber;
    st_array local_fiber;       /* output vec3[], one per triangle */
    /* Computed at init. */
    st_mstate *ms;
    int meth;
    size_t ne;
    trf_elem *e;                /* ne elements, owned */
    double *tri_area_sum;       /* per vertex, owned */
    st_component *followed;     /* the topology whose changes it follows */
} trf_fem;

#endif
