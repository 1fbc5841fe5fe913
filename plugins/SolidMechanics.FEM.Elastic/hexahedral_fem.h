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
/* The same, following the topology's changes only when follow is set
 * (NonUniformHexahedralFEMForceFieldAndMass, whose matrices cannot follow). */
st_status hexal_fem_setup(st_component *self, bool follow, st_error *err);

/* SOFA's computeMaterialStiffness then computeElementStiffness of
 * HexahedralFEMForceField: the closed-form stiffness of the axis-aligned box
 * n (SOFA's vertex order) for Young's modulus E and Poisson's ratio nu. */
void hexal_element_stiffness(double K[24][24], double E, double nu, const double n[8][3]);

/* HexahedralFEMForceFieldAndMass, for the classes derived from it
 * (plugins/SolidMechanics.FEM.NonUniform compiles the force field in). */
typedef struct hexal_mass {
    hexal_fem ff;              /* first: HEXAL_FEM_FIELDS' offsets are its own */
    double density;            /* "density" */
    bool lumped;               /* "lumpedMass" */
    char *mass_matrices;       /* "massMatrices" (ignored: the element matrices are applied) */
    st_array total_mass;       /* "totalMass" (output, per element) */
    st_array particle_masses;  /* "particleMasses" (output, per point) */
    st_array lumped_masses;    /* "lumpedMasses" (output, 3 per point) */
    bool separate_gravity;     /* "separateGravity" */
    double rayleigh_mass;      /* "rayleighMass" */
} hexal_mass;

/* The AndMass's fields after HEXAL_FEM_FIELDS, for a struct beginning
 * with a hexal_mass. */
#define HEXAL_MASS_FIELDS \
    ST_REAL(hexal_mass, density, "density", "1", \
            "density == volumetric mass in english (kg.m-3)"), \
    ST_BOOL(hexal_mass, lumped, "lumpedMass", "false", "Does it use lumped masses?"), \
    ST_IGNORED(hexal_mass, mass_matrices, "massMatrices", ST_T_STRING, char *, "", \
               "Mass matrices per element (M_i); settee applies them without storing them"), \
    ST_OUTPUT(hexal_mass, total_mass, "totalMass", ST_T_REALS, st_array, \
              "Total mass per element"), \
    ST_OUTPUT(hexal_mass, particle_masses, "particleMasses", ST_T_REALS, st_array, \
              "Mass per particle"), \
    ST_OUTPUT(hexal_mass, lumped_masses, "lumpedMasses", ST_T_VEC3S, st_array, "Lumped masses"), \
    ST_BOOL(hexal_mass, separate_gravity, "separateGravity", "false", \
            "add separately gravity to velocity computation"), \
    ST_REAL(hexal_mass, rayleigh_mass, "rayleighMass", "0", \
            "Rayleigh damping - mass matrix coefficient")
void hexal_fem_cleanup(st_component *self);
extern const st_forcefield_ops hexal_fem_ops;

#endif
