/* tri_springs.h - what TriangularQuadraticSpringsForceField and
 * TriangularBiquadraticSpringsForceField share (Delingette's triangular
 * springs; internal to the plugin): per edge a spring whose stiffness sums
 * the edge's share of each triangle holding it, per triangle the
 * "angular" couplings gamma of each pair of its edges, both from the
 * triangle's rest cotangents and SOFA's Lame coefficients
 *   lambda = E nu / (1 - nu^2),  mu = E (1 - nu) / (1 - nu^2).
 * The quadratic springs act on the length L (rest L0), the biquadratic
 * ones on the squared length (and may resist compression of the area).
 * Formulas are in triangular_springs.c. */
#ifndef TRI_SPRINGS_H
#define TRI_SPRINGS_H

#include "springs.h"

typedef struct tri_springs {
    st_component base;
    st_array initial_points;   /* "initialPoints": output, the rest positions at init */
    double poisson, young;     /* "poissonRatio", "youngModulus" */
    double damping_ratio;      /* "dampingRatio" */
    bool angular;              /* "useAngularSprings" */
    bool compressible;         /* "compressible" (biquadratic) */
    double regularization;     /* "matrixRegularization" (biquadratic; unused, as in SOFA) */
    double rayleigh_stiffness; /* "rayleighStiffness" */
    st_component *topology;    /* "topology" */
    /* Set at init. */
    bool biquadratic;
    st_mstate *ms;
    double lambda, mu;
    size_t nt, ne, npoints;
    unsigned *tri;             /* 3 per triangle */
    unsigned *tedge;           /* 3 per triangle: the edge opposite vertex j */
    unsigned *edge;            /* 2 per edge */
    /* per edge */
    double *rest;              /* L0, or L0^2 (biquadratic) */
    double *stiff;             /* summed stiffness */
    double *cur;               /* L, or L^2, at the last force */
    double *dl;                /* L - L0 (+ damping), or L^2 - L0^2 (+ damping) */
    /* per triangle */
    double *gamma, *tstiff;    /* 3 each */
    double *dp;                /* 9: dp[j] = x_l - x_k (k = j+1, l = j+2) at the last force */
    double *dfdx;              /* 27: the tangent of each side (SOFA's DfDx[k]) */
    double *rest_area, *area, *jac; /* biquadratic: rest area, area, J = area / rest */
    double *normal, *last_normal;   /* 3 each */
    double *area_vec;          /* 9 */
    bool dirty;                /* the tangent is older than the last force */
    bool flipped_said;
} tri_springs;

st_status tri_springs_init(tri_springs *s, bool biquadratic, st_error *err);
void tri_springs_cleanup(st_component *self);
extern const st_forcefield_ops tri_springs_ops;
extern const st_checkpoint_ops tri_springs_ck;

#define TRI_SPRINGS_FIELDS                                                                        \
    ST_VEC3S(tri_springs, initial_points, "initialPoints", NULL,                                   \
             "Initial Position (the rest positions at init when empty)"),                         \
        ST_REAL(tri_springs, poisson, "poissonRatio", "0.3", "Poisson ratio in Hooke's law"),     \
        ST_REAL(tri_springs, young, "youngModulus", "1000", "Young modulus in Hooke's law"),      \
        ST_REAL(tri_springs, damping_ratio, "dampingRatio", "0", "Ratio damping/stiffness"),      \
        ST_BOOL(tri_springs, angular, "useAngularSprings", "true",                                \
                "If Angular Springs should be used or not"),                                     \
        SPRING_F_RAYLEIGH(tri_springs),                                                           \
        ST_LINK(tri_springs, topology, "topology", ST_LINK_TOPOLOGY,                              \
                "link to the topology container (default: the first topology found from the "   \
                "node upward)")

#endif
