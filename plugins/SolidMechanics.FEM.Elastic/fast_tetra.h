/* fast_tetra.h - the FastTetrahedralCorotationalForceField instance and its
 * per-element data. Internal to the plugin; tests include it to compare the
 * element data with the values SOFA's own tests check. */
#ifndef SETTEE_PLUGIN_FAST_TETRA_H
#define SETTEE_PLUGIN_FAST_TETRA_H

#include "fem.h"

enum { FT_POLAR = 0, FT_QR, FT_POLAR2, FT_LINEAR }; /* "method" */

/* One element (SOFA's TetrahedronRestInformation). */
typedef struct ftc_elem {
    unsigned v[4];
    double sv[4][3];        /* shape vectors (gradients of the barycentric coordinates) */
    double rest_volume;     /* minus SOFA's signed volume */
    double rest_edge[6][3]; /* rest edge vectors, local edges (0 1) (0 2) (0 3) (1 2) (1 3) (2 3) */
    double Ld[4][9];        /* diagonal 3x3 blocks of the linear stiffness */
    double L[6][9];         /* edge 3x3 blocks of the linear stiffness */
    double rot[9];          /* current rotation, deformed to rest (SOFA's rotation) */
    double E[6][9];         /* R L_j R^T of the last add_force */
    unsigned edge[6];       /* mesh edge of each local edge */
    bool same[6];           /* local edge (k, l) runs as its mesh edge (lower vertex first) */
    double rest_rot[9];     /* rest rotation (qr, polar2) */
} ftc_elem;

typedef struct ftc_fem {
    st_component base;
    st_array poisson_ratio, young_modulus; /* reals */
    double rayleigh_stiffness;
    st_component *topology;
    char *point_info, *edge_info, *tetra_info; /* ignored internal data */
    char *method;
    bool drawing;
    st_vec4 draw_color[4];
    /* Computed at init. */
    st_mstate *ms;
    int meth;
    size_t ne;
    ftc_elem *e; /* ne elements, owned */
    size_t nedges;
    unsigned (*edges)[2]; /* mesh edges (lower vertex first), owned */
    double (*G)[9];       /* SOFA's edge matrices: the sum of the E of each edge, owned */
    bool g_dirty;         /* G to rebuild from the E of the last add_force */
    st_component *followed; /* the topology whose changes it listens to */
} ftc_fem;

#endif
