/* penalty.h - SOFA's penalty response (BarycentricPenalityContact and
 * PenalityContactForceField) on the contacts of one pair of models. */
#ifndef COLLISION_PENALTY_H
#define COLLISION_PENALTY_H

#include "collision.h"

/* Turns this step's detection outputs of p into contacts (duplicates of
 * one id keep the closest, as SOFA): rest distance d0 + r1 + r2 with d0
 * the intersection's contact distance plus both models' contactDistance,
 * stiffness ks1 ks2 / distance. Returns ST_ENOMEM only when a contact
 * list has to grow. */
st_status penalty_fill(cpair *p, double d0, st_error *err);

/* PenalityContactForceField: with u = P2 - P1 and pen = dist - u.n, a
 * contact with pen > 0 adds -ks pen n to side 1 and +ks pen n to side 2;
 * its stiffness is K = -ks n n^T on the relative displacement. */
void penalty_add_force(cpair *p, double *f, const double *x, const double *v);
/* The same forces at both states' current positions, added to their
 * externalForce (a pair outside every ODE solver's subtree: SOFA's
 * isolated interaction force field, explicit for the integration to
 * come; st_collision_ops.integrate_begin). A side no system integrates
 * gets none. */
void penalty_add_external(cpair *p);
void penalty_add_dforce(cpair *p, double *df, const double *dx, double kfactor);
void penalty_add_k(cpair *p, st_matrix *m, double kfactor);
/* StickContactForceField (p->kind CR_STICKFF; SOFA's BarycentricStickContact
 * with a VectorSpringForceField): each contact is a vector spring between
 * its two mapped points, of stiffness ks = both contactStiffness, damping
 * kd = both contactFriction and rest vector the detection vector
 * pt[1] - pt[0]: with u = P2 - P1,
 *   F = ks (u - rest) + kd (V2 - V1),  f_1 += F,  f_2 -= F
 * (tangent ks on the relative displacement; the damping is explicit).
 * The springs are made again from each step's detection; a step that
 * detects nothing keeps the last ones when keepAlive (SOFA's default):
 * the objects then stay stuck. The functions above dispatch on the kind. */

/* Sum of ks pen^2 / 2 over the contacts in penetration (stick: ks |u -
 * rest|^2 / 2). */
double penalty_energy(const cpair *p);

#endif
