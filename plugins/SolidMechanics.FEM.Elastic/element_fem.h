/* element_fem.h - SOFA's newer element framework (FEMForceField,
 * BaseElementLinearFEMForceField): LinearSmallStrainFEMForceField and
 * CorotationalFEMForceField on SOFA's registered pairs of state type and
 * element: Vec1d (small strain only), Vec2d and Vec3d edges, Vec2d and
 * Vec3d triangles and quads, Vec3d tetrahedra, hexahedra, prisms and
 * pyramids. The element stiffness is integrated once at init from the rest
 * positions (plugins/shared/fem_element.c); the two classes differ only in
 * the rotation that takes it to the current configuration. Internal to
 * the plugin; tests include it. */
#ifndef SETTEE_PLUGIN_ELEMENT_FEM_H
#define SETTEE_PLUGIN_ELEMENT_FEM_H

#include "../shared/fem_element.h"
#include "fem.h"

/* CorotationalFEMForceField's rotationMethod, in SOFA's item order (the
 * fourth exists only for Vec3d tetrahedra and triangles, "triangle", and
 * hexahedra, "hexahedron"; it is their default, stable_polar the others'). */
enum { ROT_STABLE_POLAR = 0, ROT_POLAR, ROT_IDENTITY, ROT_FRAME };

typedef struct element_fem {
    st_component base;
    st_array poisson_ratio, young_modulus; /* reals */
    double rayleigh_stiffness;
    st_component *topology;
    char *template_name;       /* "template": "Vec3d,Tetrahedron", "Vec2d,Quad", ... */
    char *rotation_method;     /* "rotationMethod" (corotational only) */
    char *force_strategy;      /* "computeForceStrategy", ignored */
    char *dforce_strategy;     /* "computeForceDerivStrategy", ignored */
    double element_space;      /* "elementSpace", ignored */
    char *element_stiffness;   /* "elementStiffness", ignored */
    /* Computed at init. */
    bool corot;
    st_mstate *ms;
    fe_kind kind;
    int d, nn, rot; /* space dimension (1, 2, 3), nodes per element, rotation method */
    size_t ne;
    unsigned *v;  /* ne x nn vertices, owned */
    double *K;    /* ne element stiffnesses, (d nn)^2 each, owned */
    double *R;    /* ne current rotations (corotational), d x d in 9 each, owned */
    double *R0;   /* ne initial frames (SOFA's initial rotations transposed), owned */
    /* Topological changes: K, R, R0 and fresh follow the topology's
     * elements (one record each, counts nK ...); v is read again from the
     * topology after each change; fresh marks added elements, whose K and
     * R0 the listener computes. */
    unsigned char *fresh;
    size_t nK, nR, nR0, nfresh;
    st_component *followed;
} element_fem;

/* The shared parts of the two classes (element_fem_common.c). */
st_status efem_init(st_component *self, st_error *err);
void efem_cleanup(st_component *self);
extern const st_forcefield_ops efem_ops;

/* SOFA's fields common to both classes. */
#define EFEM_F_COMMON(S)                                                                          \
    FEM_F_RAYLEIGH(S), FEM_F_MATERIAL(S), FEM_F_TOPOLOGY(S),                                      \
        ST_STRING(S, template_name, "template", "",                                               \
                  "state type and element type, as SOFA's (Vec3d,Tetrahedron, Vec2d,Quad, "      \
                  "Vec3,Prism, ...). Empty: SOFA's choice, edges of the state's dimension "       \
                  "(VecNd,Edge), with a warning"),                                                \
        ST_IGNORED(S, force_strategy, "computeForceStrategy", ST_T_STRING, char *, "parallel",    \
                   "The compute strategy used to compute the forces (settee computes them "     \
                   "sequentially, with the same result)"),                                        \
        ST_IGNORED(S, dforce_strategy, "computeForceDerivStrategy", ST_T_STRING, char *,          \
                   "parallel",                                                                    \
                   "The compute strategy used to compute the forces derivatives (settee "        \
                   "computes them sequentially, with the same result)"),                         \
        ST_IGNORED(S, element_space, "elementSpace", ST_T_REAL, double, "0.125",                  \
                   "When rendering, the space between elements"),                                 \
        ST_IGNORED(S, element_stiffness, "elementStiffness", ST_T_STRING, char *, NULL,          \
                   "List of stiffness matrices per element (computed at init from the rest "     \
                   "positions; settee does not read a given value)")

extern const st_class linear_small_strain_fem_force_field_class;
extern const st_class corotational_fem_force_field_class;

#endif
