/* hexahedron_fem.h - the HexahedronFEMForceField and
 * HexahedronFEMForceFieldAndMass instances and their per-element data.
 * Internal to the plugin; tests include it to compare element data with
 * SOFA's. */
#ifndef SETTEE_PLUGIN_HEXAHEDRON_FEM_H
#define SETTEE_PLUGIN_HEXAHEDRON_FEM_H

#include "fem.h"

enum { HM_LARGE = 0, HM_POLAR, HM_SMALL }; /* SOFA's enum order */

/* One hexahedron, vertices in the topology's order (SOFA's: 0 (-,-,-),
 * 1 (+,-,-), 2 (+,+,-), 3 (-,+,-), 4..7 the same at +z). */
typedef struct hexa {
    unsigned v[8];
    double K[24][24];   /* element stiffness in the element frame (SOFA's stiffnessMatrices[i]) */
    double R[9];        /* current rotation, world to element frame (SOFA's _rotations[i]) */
    double R0[9];       /* initial rotation (SOFA's _initialrotations[i]) */
    double rest[8][3];  /* initial positions in the element frame (_rotatedInitialElements) */
    double U, V, W;     /* material: M(0,0), M(0,1), M(3,3) */
    double kcoef, mcoef; /* SOFA's SparseGridTopology getStiffnessCoef / getMassCoef (else 1) */
    bool fresh;          /* added by a topological change, not initialised yet */
} hexa;

typedef struct hexa_fem {
    st_component base;
    st_array poisson_ratio, young_modulus; /* reals */
    double rayleigh_stiffness;
    st_component *topology;
    char *method;                    /* "method": large, polar, small */
    bool update_stiffness_matrix;    /* "updateStiffnessMatrix" */
    char *gather_pt, *gather_bsize;  /* GPU only, ignored */
    bool drawing;                    /* ignored */
    double draw_offset;              /* "drawPercentageOffset", ignored */
    st_array stiffness_matrices;     /* output, reals: 24 x 24 per element */
    st_array initial_points;         /* vec3[]: rest positions at init */
    st_array rotations;              /* output "rotations": 9 per vertex when requested */
    /* HexahedronFEMForceFieldAndMass only. */
    double density;                  /* "density" (kg m^-3) */
    bool lumped_mass;                /* "lumpedMass" */
    st_array mass_matrices;          /* output, reals: 24 x 24 per element */
    bool separate_gravity;           /* "separateGravity" */
    double rayleigh_mass;            /* "rayleighMass" */
    /* Computed at init. */
    st_mstate *ms;
    int meth;
    size_t ne, np;
    hexa *e;                         /* ne elements, owned */
    double *particle_mass;           /* np: volume density / 8 summed per vertex, owned */
    double *lumped;                  /* np x 3: row sums of the element masses, owned */
    double (*M)[24][24];             /* ne element mass matrices, owned */
    bool with_mass;                  /* HexahedronFEMForceFieldAndMass */
    st_component *followed;          /* the topology whose changes it follows */
    fem_bsr Kg;                      /* assembled stiffness (fem.h), owned */
} hexa_fem;

/* SOFA's hexahedron frames, shared with HexahedralFEMForceField: r (rows:
 * the element axes, world to element) of the 8 points n for method large
 * (x along the mean x edge, z normal to the mean x and y edges), polar
 * (orthogonal factor of the three mean edges) or small (identity). */
void hexa_rotation(int meth, double r[9], const double n[8][3]);

extern const st_class hexahedral_fem_force_field_class;

/* For NonUniformHexahedronFEMForceFieldAndMass (plugins/SolidMechanics.
 * FEM.NonUniform, which compiles this file in): SOFA's element stiffness
 * of the shape n (material U, V, W; no coefficient) and element mass of
 * the shape n (no coefficient); the whole init (with_mass: the AndMass). */
void hexa_element_stiffness(double K[24][24], double U, double V, double W, const double n[8][3]);
void hexa_element_mass(double M[24][24], const double n[8][3], double density);
st_status hfem_init_common(st_component *self, bool with_mass, st_error *err);

/* The element loops of add_force and add_dforce over a range of elements,
 * for the parallel twin (plugins/MultiThreading), as tetrahedron_fem.h's:
 * 24 world-frame scalars per element at g + 24 (i - begin), which the caller adds to
 * the vertices in element order (hfem_forces_range updates the elements'
 * rotations, and K with updateStiffnessMatrix); hfem_dforces_range gives
 * R^T K R dx kfactor, which df loses. hfem_add_force_finish is what
 * add_force does after its loop. */
void hfem_forces_range(hexa_fem *s, const double *p, size_t begin, size_t end, double *g);
void hfem_dforces_range(const hexa_fem *s, const double *d, double kfactor, size_t begin,
                        size_t end, double *g);
void hfem_add_force_finish(hexa_fem *s);
/* The assembled K add_dforce uses for this call (assembled now if needed,
 * on pool's threads unless pool is NULL), or NULL: the element loop. */
const fem_bsr *hfem_assembled(hexa_fem *s, const st_mparams *mp, const fem_bsr_pool *pool);

#endif
