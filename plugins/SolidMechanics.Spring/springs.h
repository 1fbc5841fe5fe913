/* springs.h - the linear spring set shared by SpringForceField and
 * MeshSpringForceField, and the plugin's classes. Internal to the plugin. */
#ifndef SPRINGS_H
#define SPRINGS_H

#include <settee/settee.h>

/* One linear spring between vertex m1 of state 1 and vertex m2 of state 2
 * (SOFA's LinearSpring). */
typedef struct spring {
    unsigned m1, m2;
    double ks, kd, l0;
    bool elongation_only;
    bool enabled;
} spring;

/* A set of springs acting between two states (possibly the same one), with
 * the Jacobian of each spring cached by the last force computation. */
typedef struct spring_set {
    spring *s;          /* n springs, owned */
    double (*dfdx)[9];  /* n row-major 3x3 blocks df1[m1]/dx2[m2], owned */
    size_t n, cap;
    st_mstate *ms1, *ms2;
} spring_set;

/* Appends a spring (init time only). */
st_status springs_push(spring_set *set, spring sp, st_error *err);
/* Allocates the Jacobian cache for the current springs (zeroed). */
st_status springs_finish(spring_set *set, st_error *err);
void springs_free(spring_set *set);

/* The role functions on a spring set; vectors are the system's global ones. */
void springs_add_force(spring_set *set, double *f, const double *x, const double *v);
void springs_add_dforce(spring_set *set, double *df, const double *dx, double kfactor);
void springs_add_k(spring_set *set, st_matrix *m, double kfactor);
double springs_energy(const spring_set *set, const double *x);

/* SOFA's ForceField data, shared by the spring force fields. */
#define SPRING_F_RAYLEIGH(S)                                                                      \
    ST_REAL(S, rayleigh_stiffness, "rayleighStiffness", "0",                                      \
            "Rayleigh damping coefficient related to stiffness, > 0")

extern const st_class spring_force_field_class;
extern const st_class mesh_spring_force_field_class;
extern const st_class rest_shape_springs_force_field_class;

#endif
