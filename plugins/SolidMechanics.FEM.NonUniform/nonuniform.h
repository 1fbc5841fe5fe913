/* nonuniform.h - the SolidMechanics.FEM.NonUniform plugin's classes and the
 * NonUniformHexahedronFEMForceFieldAndMass instance (tests include it). */
#ifndef SETTEE_PLUGIN_NONUNIFORM_H
#define SETTEE_PLUGIN_NONUNIFORM_H

#include "../SolidMechanics.FEM.Elastic/hexahedral_fem.h"
#include "../SolidMechanics.FEM.Elastic/hexahedron_fem.h"

/* NonUniformHexahedralFEMForceFieldAndMass (tests read its matrices). */
typedef struct nuhexal {
    hexal_mass hm;       /* HexahedralFEMForceFieldAndMass, first */
    bool recursive;      /* "recursive" */
    bool use_mbk;        /* "useMBK" */
    double (*M)[24][24]; /* element mass matrices, owned */
    size_t nm;           /* elements of M */
} nuhexal;

typedef struct nonuniform_fem {
    hexa_fem h;              /* HexahedronFEMForceFieldAndMass, first */
    int nb_virtual_finer;    /* "nbVirtualFinerLevels" */
    bool use_mass;           /* "useMass" */
    double total_mass;       /* "totalMass" */
    bool condensed;          /* K and M condensed from the finer levels at init */
} nonuniform_fem;

/* HexahedronCompositeFEMForceFieldAndMass: the condensed matrices and the
 * weights its mapping interpolates with. */
typedef struct composite_fem {
    nonuniform_fem n;            /* NonUniformHexahedronFEMForceFieldAndMass, first */
    bool finest_to_coarse;       /* "finestToCoarse" */
    int homogenization_method;   /* "homogenizationMethod" (SOFA never reads it) */
    bool complete_interpolation; /* "completeInterpolation" */
    bool use_ramification;       /* "useRamification" */
    int draw_type, draw_color;   /* "drawType", "drawColor" (no drawing here) */
    double draw_size;            /* "drawSize"; -1: 0.4 % of the grid's x extent at init */
    /* Computed at init: the fine level the weights live on (a regular grid),
     * and per fine hexahedron its regular cell, its coarse hexahedron and the
     * 24 x 24 weight from the coarse element's 8 displacements to its own. */
    int fine_n[3];               /* points per axis */
    double fine_min[3], fine_d[3]; /* origin and spacing (unscaled grid units) */
    size_t nfine;
    size_t *fine_cell;           /* nfine regular cell indices, owned */
    unsigned *fine_hexa;         /* nfine coarse hexahedra, owned */
    double (*fine_w)[24][24];    /* nfine weights, owned */
} composite_fem;

/* Recomputes the outputs, lumped masses and particle masses from the
 * element matrices (shared by both classes). */
st_status nonuniform_refresh(nonuniform_fem *n, st_error *err);

/* Field `name` of topology g when it has that type, else NULL. */
const void *nonuniform_grid_field(st_component *g, const char *name, st_type type);

/* The sparse grid's finest level (its hidden outputs finestN, finestMin,
 * finestMax, finestCells, finestStiffnessCoefs), checked to be whole;
 * errors name g and self's topology field. */
typedef struct finest_level {
    const double *fmin, *fmax;
    const st_array *cells, *coefs;
    int nf[3];
    size_t nc; /* regular cells */
} finest_level;
st_status nonuniform_finest(st_component *self, st_component *g, finest_level *fl, st_error *err);

/* Whether topology g is a sparse grid with at least n's virtual levels
 * (grid_levels: the grid's); warns and returns false otherwise. */
bool nonuniform_grid_usable(nonuniform_fem *n, st_component *g, int *grid_levels);

const st_class *hexahedron_composite_fem_class(void);
extern const st_class nonuniform_hexahedral_fem_class;
extern const st_class hexahedron_composite_fem_mapping_class;

/* The class, built once from HexahedronFEMForceFieldAndMass (its fields,
 * then this class's); NULL when the field table does not fit. */
const st_class *nonuniform_hexahedron_fem_class(void);

#endif
