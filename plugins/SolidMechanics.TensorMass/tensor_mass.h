/* tensor_mass.h - what the tensor-mass force fields share (internal to the
 * plugin). SOFA stores their stiffness per edge: a 3x3 tensor D of edge
 * (a, b), summed over the elements holding the edge, with
 *   f_b += D (u_b - u_a),   f_a += D^T (u_a - u_b),   u = x - x0
 * (x0: the rest positions at init). The force is linear in x, so the
 * tangent is exact; SOFA gives no potential energy for them (settee none). */
#ifndef TENSOR_MASS_H
#define TENSOR_MASS_H

#include <settee/settee.h>

typedef struct tm_edge {
    unsigned a, b; /* a < b */
    double d[9];   /* row-major */
} tm_edge;

/* One element's contribution before the edges are merged: f_l += m (u_l - u_k). */
typedef struct tm_contrib {
    unsigned l, k;
    size_t seq; /* order of arrival (SOFA's element order) */
    double m[9];
} tm_contrib;

typedef struct tm_build {
    tm_contrib *c;
    size_t n, cap;
} tm_build;

typedef struct tensor_mass_ff tensor_mass_ff;

/* What differs between the triangle and the tetrahedron classes. */
typedef struct tm_kind {
    st_type elements; /* ST_T_TRIANGLES or ST_T_TETRAS */
    unsigned width;   /* vertices per element */
    const char *name; /* "triangles", "tetrahedra" */
    /* SOFA's updateLameCoefficients */
    void (*lame)(tensor_mass_ff *t);
    /* the contributions of the elements (positions x0) */
    st_status (*build)(tensor_mass_ff *t, const st_array *elems, tm_build *b, st_error *err);
} tm_kind;

struct tensor_mass_ff {
    st_component base;
    double poisson;            /* "poissonRatio" */
    double young;              /* "youngModulus" */
    double rayleigh_stiffness; /* "rayleighStiffness" */
    st_component *topology;    /* "topology" */
    st_component *mstate;      /* "mstate" */
    /* Set at init. */
    const tm_kind *kind;
    st_mstate *ms;
    double lambda, mu;
    double *x0;  /* 3 x nx0: the rest positions at init (SOFA's _initialPoints) */
    size_t nx0;
    tm_edge *e;  /* ne edges, owned */
    size_t ne;
    size_t obtuse; /* element edges with a negative cotangent (SOFA's info) */
    bool listening;
};

/* f_l += m (u_l - u_k), for element number seq. */
st_status tm_add(tm_build *b, unsigned l, unsigned k, const double m[9], st_error *err);

/* The class's init: binds the state and the topology, copies x0, builds. */
st_status tm_init(tensor_mass_ff *t, const tm_kind *kind, st_error *err);
void tm_cleanup(st_component *self);

extern const st_forcefield_ops tm_ops;

#define TM_FIELDS(extra_help)                                                                     \
    ST_REAL(tensor_mass_ff, poisson, "poissonRatio", "0.3", "Poisson ratio in Hooke's law"),      \
        ST_REAL(tensor_mass_ff, young, "youngModulus", "1000", "Young's modulus in Hooke's law"), \
        ST_REAL(tensor_mass_ff, rayleigh_stiffness, "rayleighStiffness", "0",                     \
                "Rayleigh damping coefficient related to stiffness, > 0"),                       \
        ST_LINK(tensor_mass_ff, topology, "topology", ST_LINK_TOPOLOGY,                           \
                "link to the topology container (default: the first topology found from the "   \
                "node upward)" extra_help),                                                       \
        ST_LINK(tensor_mass_ff, mstate, "mstate", ST_LINK_STATE,                                  \
                "MechanicalState used by this component (default: the node's, else the "         \
                "nearest ancestor's)")

extern const st_class triangular_tensor_mass_force_field_class;
extern const st_class tetrahedral_tensor_mass_force_field_class;

#endif
