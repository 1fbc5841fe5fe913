/* hyperelastic.h - what the hyperelastic force fields and their materials
 * share: the strain measures of one element, the material interface (strain
 * energy density W, second Piola-Kirchhoff stress S = 2 dW/dC and its
 * derivative dS for an increment dC) and the invariant-based materials'
 * common algebra (3x3 helpers: plugins/shared/mat3.h). Internal to the
 * plugin.
 *
 * Conventions (SOFA's): C = F^T F, I1 = tr C, I2 = ((tr C)^2 - tr C^2) / 2,
 * J = det F (the signed volume ratio of the element), S = 2 dW/dC, and
 * dstress(H) = dS when C changes by H (H symmetric). Matrices are
 * row-major double[9]. */
#ifndef SETTEE_PLUGIN_HYPERELASTIC_H
#define SETTEE_PLUGIN_HYPERELASTIC_H

#include <stdbool.h>

#include <settee/settee.h>

#include "../shared/mat3.h"

/* Strain measures of one element, computed once per add_force. */
typedef struct hyper_strain {
    double C[9];    /* right Cauchy-Green tensor */
    double Ci[9];   /* C^-1 */
    double I1, I2;  /* invariants of C */
    double J;       /* det F */
    double ev[3];   /* eigenvalues of C (only for materials with needs_eigen) */
    double evec[9]; /* their unit eigenvectors, in the columns */
    double w, g[3], h[9]; /* invariant-based materials: W, its gradient and
                           * Hessian in (I1, I2, J) */
} hyper_strain;

typedef struct hyper_material hyper_material;

/* W and its derivatives with respect to (I1, I2, J): g[3] the gradient,
 * h[9] the Hessian (row-major, symmetric). */
typedef void (*hyper_invariant_fn)(double I1, double I2, double J, const double *p, double *w,
                                   double g[3], double h[9]);

struct hyper_material {
    const char *name;       /* SOFA's materialName */
    unsigned nparams;       /* ParameterSet values the material reads */
    const char *params;     /* their meaning, in order, for messages and docs */
    bool needs_eigen;       /* the strain needs the eigen-decomposition of C */
    hyper_invariant_fn inv; /* invariant-based materials: W(I1, I2, J), else NULL */
    double (*energy)(const hyper_material *m, const hyper_strain *s, const double *p);
    void (*stress)(const hyper_material *m, const hyper_strain *s, const double *p, double S[9]);
    void (*dstress)(const hyper_material *m, const hyper_strain *s, const double *p,
                    const double H[9], double dS[9]);
    /* Optional: the first Piola-Kirchhoff stress P = F S and its increment
     * dP for dF, computed from F without C^-1. A material whose S holds
     * J C^-1 (StableNeoHookean) gives the same values this way, but stays
     * exact where an element is flat or inverted (J near 0, C singular),
     * where F C^-1 J = cof F is formed from a C^-1 that has lost all its
     * digits. NULL: the element code uses F S and dF S + F dS. */
    void (*pk1)(const hyper_material *m, const hyper_strain *s, const double *p,
                const double F[9], double P[9]);
    void (*dpk1)(const hyper_material *m, const hyper_strain *s, const double *p,
                 const double F[9], const double dF[9], double dP[9]);
};

/* The materials, one file each. */
extern const hyper_material hyper_st_venant_kirchhoff;
extern const hyper_material hyper_neo_hookean;
extern const hyper_material hyper_mooney_rivlin;
extern const hyper_material hyper_arruda_boyce;
extern const hyper_material hyper_veronda_westman;
extern const hyper_material hyper_costa;
extern const hyper_material hyper_ogden;
extern const hyper_material hyper_stable_neo_hookean;

/* The material named name (SOFA's materialName), or NULL. */
const hyper_material *hyper_material_find(const char *name);
/* The i-th material of SOFA's option list (ArrudaBoyce, StVenantKirchhoff,
 * NeoHookean, MooneyRivlin, VerondaWestman, Costa, Ogden, StableNeoHookean),
 * or NULL. */
const hyper_material *hyper_material_at(unsigned i);
/* The material names, comma separated, for messages. */
const char *hyper_material_names(void);

/* Fills s from C (symmetric) and J for material m with parameters p: the
 * eigen-decomposition when m needs it, W and its derivatives when m is
 * invariant-based (so that the stress and its derivative, evaluated many
 * times per element, do not recompute them). */
void hyper_strain_set(hyper_strain *s, const hyper_material *m, const double *p,
                      const double C[9], double J);

/* Energy, stress and stress derivative of an invariant-based material, from
 * its hyper_invariant_fn (the material's energy, stress and dstress). */
double hyper_inv_energy(const hyper_material *m, const hyper_strain *s, const double *p);
void hyper_inv_stress(const hyper_material *m, const hyper_strain *s, const double *p,
                      double S[9]);
void hyper_inv_dstress(const hyper_material *m, const hyper_strain *s, const double *p,
                       const double H[9], double dS[9]);

/* The members of an invariant-based material: its W(I1, I2, J) and the
 * shared energy, stress and stress derivative built on it. */
#define HYPER_INVARIANT_MATERIAL(fn)                                                              \
    .inv = (fn), .energy = hyper_inv_energy, .stress = hyper_inv_stress,                          \
    .dstress = hyper_inv_dstress

/* A scalar function of one modified invariant: d[0..2] = value, first and
 * second derivatives at x. */
typedef void (*hyper_scalar_fn)(double x, const double *p, double d[3]);

/* Derivatives of W = phi(I1 J^-2/3) + psi(I2 J^-4/3) + k0/2 ln(J)^2 (the
 * isochoric/volumetric split of Mooney-Rivlin, Arruda-Boyce and
 * Veronda-Westman); psi may be NULL (zero). */
void hyper_isochoric(double I1, double I2, double J, const double *p, hyper_scalar_fn phi,
                     hyper_scalar_fn psi, double k0, double *w, double g[3], double h[9]);

/* ---- 3x3 algebra (plugins/shared/mat3.h) ---- */

/* r = a H a with a, H symmetric (C^-1 H C^-1 in the tangents). */
void hyper_sandwich(double r[9], const double a[9], const double H[9]);

#endif
