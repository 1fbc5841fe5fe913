/* tetrahedron_fem.h - the TetrahedronFEMForceField instance and its
 * per-element data. Internal to the plugin; tests include it to compare the
 * element data with the values SOFA's own tests check. */
#ifndef SETTEE_PLUGIN_TETRAHEDRON_FEM_H
#define SETTEE_PLUGIN_TETRAHEDRON_FEM_H

#include "fem.h"

enum { M_SMALL = 0, M_LARGE, M_POLAR, M_SVD }; /* "method" */

/* One element: vertices and what init and the last add_force computed. */
typedef struct tet {
    unsigned v[4];
    double J[12][6];   /* strain-displacement */
    double kd, ko, ks; /* material: diagonal, off-diagonal (normal), shear, / (36 V) */
    double lambda, mu; /* Lame coefficients (von Mises) */
    double R[9];       /* current rotation, local to world (SOFA's rotations[i]) */
    double R0[9];      /* initial rotation (SOFA's _initialRotations[i]) */
    double rest[4][3]; /* rest positions in the initial frame */
    double A0inv[9];   /* svd: inverse of the rest edge matrix */
    double plastic[6]; /* plastic strain */
    bool fresh;        /* added by a topological change, not initialised yet */
} tet;

typedef struct tetra_fem {
    st_component base;
    st_array poisson_ratio, young_modulus; /* reals */
    double rayleigh_stiffness;
    st_component *topology;
    st_array initial_points;         /* vec3[], "initialPoints" (rest positions at init) */
    char *method;                    /* "method" */
    st_array local_stiffness_factor; /* reals */
    bool update_stiffness_matrix;    /* "updateStiffnessMatrix" */
    bool assembling;                 /* "computeGlobalMatrix" (alias "assembling") */
    double plastic_max, plastic_yield, plastic_creep;
    char *gather_pt, *gather_bsize;
    bool draw_heterogeneous;
    int compute_von_mises;           /* 0, 1 (corotational strain), 2 (Green strain) */
    st_array von_mises_elem;         /* output, one per element */
    st_array von_mises_node;         /* output, one per vertex */
    st_array von_mises_colors;       /* output, ignored */
    char *show_color_map;
    double show_alpha, show_gap;
    bool show_vm_node, show_vm_node_map, show_vm_elem;
    bool update_stiffness;           /* "updateStiffness": material recomputed each step */
    st_array rotations;              /* output "rotations": 9 per vertex when requested */
    /* TetrahedralCorotationalFEMForceField only (corot true). */
    bool corot;                      /* the class is TetrahedralCorotationalFEMForceField */
    bool corot_vm;                   /* its boolean computeVonMisesStress */
    bool drawing;
    st_vec4 draw_color[4];
    char *tetra_info;                /* "tetrahedronInfo", ignored */
    /* Computed at init. */
    st_mstate *ms;
    int meth;
    size_t ne;
    tet *e;                  /* ne elements, owned */
    double (*shape)[16];     /* ne inverse vertex matrices (von Mises), owned */
    unsigned *node_count;    /* elements around each vertex (von Mises), owned */
    double rest_volume;
    bool vm_dirty;
    bool from_hexa;          /* elements cut from the topology's hexahedra */
    st_component *followed;  /* the topology whose changes it follows */
    fem_bsr K;               /* assembled stiffness (fem.h), owned */
} tetra_fem;

/* The element loops of add_force and add_dforce over a range of elements,
 * for the parallel twin (plugins/MultiThreading): each element's 12
 * world-frame scalars go to g + 12 (i - begin), and the caller adds them to the
 * vertices in element order, which is what the sequential loop does, so the
 * sums are the same to the bit. tfem_forces_range updates the elements'
 * rotations, J and plastic strain (each element only its own); g is zero
 * where tfem_has_force is false (nothing to add then). tfem_add_force_finish
 * is what add_force does after the loop (rotations per vertex, von Mises).
 * tfem_dforces_range gives R K R^T dx kfactor, which df loses. */
bool tfem_has_force(const tetra_fem *s);
void tfem_forces_range(tetra_fem *s, const double *p, size_t begin, size_t end, double *g);
void tfem_add_force_finish(tetra_fem *s);
void tfem_dforces_range(const tetra_fem *s, const double *d, double kfactor, size_t begin,
                        size_t end, double *g);
/* The assembled K add_dforce uses for this call (assembled now if needed,
 * on pool's threads unless pool is NULL), or NULL: the element loop. */
const fem_bsr *tfem_assembled(tetra_fem *s, const st_mparams *mp, const fem_bsr_pool *pool);

#endif
