/* triangle_fem.h - the TriangleFEMForceField instance and its per-element
 * data. Internal to the plugin; tests include it to compare the element
 * data with the values SOFA's own tests check. */
#ifndef SETTEE_PLUGIN_TRIANGLE_FEM_H
#define SETTEE_PLUGIN_TRIANGLE_FEM_H

#include "fem.h"

enum { TM_LARGE = 0, TM_SMALL = 1 }; /* SOFA's values */

typedef struct tri {
    unsigned v[3];
    double K[9];       /* material matrix times thickness and rest area (SOFA's materialStiffness) */
    double J[6][3];    /* strain-displacement of the last add_force (large: of the rest shape at init) */
    double R[9];       /* rotation, element frame to world (SOFA's _rotations[i]) */
    double rest[3][3]; /* rest b - a, c - a in the element frame (_rotatedInitialElements) */
    bool fresh;        /* added by a topological change, not initialised yet */
} tri;

typedef struct tri_fem {
    st_component base;
    st_array poisson_ratio, young_modulus; /* reals */
    double rayleigh_stiffness;
    st_component *topology;
    st_array initial_points; /* vec3[] */
    char *method;            /* "large", "small" */
    double thickness;
    bool plane_strain;
    /* Computed at init. */
    st_mstate *ms;
    int meth;
    size_t ne;
    tri *e; /* ne elements, owned */
    bool from_quads;         /* elements cut from the topology's quads */
    st_component *followed;  /* the topology whose changes it follows */
} tri_fem;

#endif
