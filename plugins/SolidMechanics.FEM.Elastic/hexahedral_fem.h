/* hexahedral_fem.h - HexahedralFEMForceField's element data and
 * lifecycle, shared with HexahedralFEMForceFieldAndMass, which derives from
 * it as in SOFA. Internal to the plugin. */
#ifndef HEXAHEDRAL_FEM_H
#define HEXAHEDRAL_FEM_H

#include "hexahedron_fem.h"

typedef struct hexal {
    unsigned v[8];
    double K[24][24];  /* element stiffness (SOFA's hexahedronInfo[i].stiffness) */
    double R[9];       /* world to element frame at the last force (SOFA's R_0_2) */
    double rest[8][3]; /* rest points in the element frame (rotatedInitialElements) */
    bool fresh;        /* added by a topological change, not computed yet */
} hexal;

typedef struct hexal_fem {
    st_component base;
    st_array poisson_ratio, young_modulus;
    double rayleigh_stiffness;
    st_component *topology;
    char *method;    /* "method": large or polar */
    char *hexa_info; /* "hexahedronInfo": SOFA's internal data, ignored */
    /* Computed at init. */
    st_mstate *ms;
    int meth;
    size_t ne;
    hexal *e;
    st_component *followed;
} hexal_fem;

/* The force field's fields, for a struct beginning with a hexal_fem. */
#define HEXAL_FEM_FIELDS \
    FEM_F_RAYLEIGH(hexal_fem), \
    FEM_F_MATERIAL(hexal_fem), \
    FEM_F_TOPOLOGY(hexal_fem), \
    ST_STRING(hexal_fem, method, "method", "large", "\"large\" or \"polar\" displacements"), \
    ST_IGNORED(hexal_fem, hexa_info, "hexahedronInfo", ST_T_STRING, char *, "", \
               "Internal hexahedron data")

/* SOFA's init (and reinit) of HexahedralFEMForceField: binds the state
 * and topology, computes every element, follows the topology. */
st_status hexal_fem_init(st_component *self, st_error *err);
void hexal_fem_cleanup(st_component *self);
extern const st_forcefield_ops hexal_fem_ops;

#endif
