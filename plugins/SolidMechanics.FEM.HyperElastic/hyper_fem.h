/* hyper_fem.h - the instance and element data shared by SOFA's two
 * hyperelastic tetrahedron force fields (TetrahedronHyperelasticityFEM-
 * ForceField and StandardTetrahedralFEMForceField, one file each; the
 * element code is in hyper_fem.c). Internal to the plugin. */
#ifndef SETTEE_PLUGIN_HYPER_FEM_H
#define SETTEE_PLUGIN_HYPER_FEM_H

#include "hyperelastic.h"

typedef struct helem {
    unsigned v[4];   /* vertex indices */
    double g[4][3];  /* shape vectors at rest */
    double vol;      /* rest volume */
    double F[9];     /* deformation gradient at the last add_force */
    double S[9];     /* second Piola-Kirchhoff stress there */
    hyper_strain st; /* strain measures there */
    bool fresh;      /* added by a topological change, not initialised yet */
} helem;

typedef struct hyper_ff {
    st_component base;
    double rayleigh_stiffness;  /* "rayleighStiffness" */
    bool matrix_regularization; /* "matrixRegularization" (ignored, as in SOFA) */
    char *material_name;        /* "materialName" */
    st_array parameter_set;     /* "ParameterSet" */
    st_array anisotropy;        /* "AnisotropyDirections" */
    char *tetra_info, *edge_info;
    char *parameter_file;       /* "ParameterFile" (StandardTetrahedralFEMForceField, ignored) */
    st_component *topology;     /* "topology" link */
    /* Set by init. */
    const hyper_material *mat;
    st_mstate *ms;
    size_t ne;
    helem *e; /* ne elements */
    st_component *followed; /* the topology whose changes it follows */
} hyper_ff;

/* Resolves the state, topology and material and computes the rest shape
 * of every tetrahedron. sofa_options: TetrahedronHyperelasticityFEM-
 * ForceField's behaviour (materialName is an OptionsGroup, so an index
 * selects too; a topology without tetrahedra is an error); else
 * StandardTetrahedralFEMForceField's (a name only; no tetrahedra is a
 * warning, and no element). */
st_status hyper_fem_init(st_component *self, bool sofa_options, st_error *err);
void hyper_fem_cleanup(st_component *self);
/* add_force, add_dforce, add_k_to_matrix, potential energy, Rayleigh. */
extern const st_forcefield_ops hyper_fem_ops;

/* SOFA's ForceField and hyperelastic data common to both classes. */
#define HYPER_F_COMMON(T)                                                                         \
    ST_REAL(T, rayleigh_stiffness, "rayleighStiffness", "0",                                     \
            "Rayleigh damping coefficient related to stiffness, > 0"),                           \
        ST_REALS(T, parameter_set, "ParameterSet", NULL,                                        \
                 "The global parameters specifying the material, in order: "                    \
                 "StVenantKirchhoff, NeoHookean, StableNeoHookean: mu lambda; MooneyRivlin: c1 " \
                 "c2 k0; ArrudaBoyce: mu k0; VerondaWestman: c1 c2 k0; Ogden: mu1 alpha1 k0; "  \
                 "Costa: a k0 bff bfs bss bfn bsn bnn"),                                        \
        ST_IGNORED(T, anisotropy, "AnisotropyDirections", ST_T_VEC3S, st_array, NULL,           \
                   "The global directions of anisotropy of the material (SOFA reads it but "    \
                   "none of its materials uses it)"),                                           \
        ST_IGNORED(T, tetra_info, "tetrahedronInfo", ST_T_STRING, char *, NULL,                 \
                   "Internal tetrahedron data (SOFA's internal storage)"),                      \
        ST_IGNORED(T, edge_info, "edgeInfo", ST_T_STRING, char *, NULL,                         \
                   "Internal edge data (SOFA's internal storage)"),                             \
        ST_LINK(T, topology, "topology", ST_LINK_TOPOLOGY,                                      \
                "link to the topology container (default: the first topology found upward)")

#endif
