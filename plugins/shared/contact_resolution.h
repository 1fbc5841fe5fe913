/* contact_resolution.h - SOFA's unilateral contact with Coulomb friction
 * (UnilateralLagrangianConstraint, UnilateralConstraintResolution and
 * UnilateralConstraintResolutionWithFriction, BaseContactLagrangianConstraint's
 * contact frame and position violation), shared by the constraint model
 * (Constraint.Lagrangian.Model) and the contact responses of the Collision
 * plugin. Compiled into each plugin that uses it.
 *
 * A contact has one row (mu = 0) or three (mu > 0): the normal n, from the
 * first object's point Q to the second's P, then the tangents t and s.
 * lambda_n >= 0, and with friction |(lambda_t, lambda_s)| <= mu lambda_n. */
#ifndef SETTEE_SHARED_CONTACT_RESOLUTION_H
#define SETTEE_SHARED_CONTACT_RESOLUTION_H

#include <stddef.h>

/* SOFA's contact frame: t = (n_z, n_x, n_y), s = n x t normalised,
 * t = -n x s. */
void contact_frame(const double n[3], double t[3], double s[3]);

/* SOFA's getPositionViolation for one contact: P, Q the points of the
 * second and first object when the contact was detected, Pf, Qf at the
 * free positions, dist the contact distance. out[0] = (Pf - Qf).n - dist;
 * out[1], out[2] the tangential free displacements along t and s (from the
 * detection points, or from the instant the normal gap closed, as SOFA). */
void contact_violation(const double P[3], const double Q[3], const double Pf[3],
                       const double Qf[3], const double n[3], const double t[3],
                       const double s[3], double dist, double out[3]);

/* UnilateralConstraintResolutionWithFriction::init: the 3x3 block of W at
 * rows line..line+2 (dim x dim, row-major), kept as its 6 upper values. */
void contact_friction_block(const double *W, size_t dim, size_t line, double w6[6]);

/* One Gauss-Seidel update of a friction contact (rows line..line+2): d the
 * violations dfree + W lambda on those rows (read only), lambda updated:
 * the normal by its diagonal, clamped at 0 (then no tangential force);
 * the tangents by the mean of their diagonals after the normal's change,
 * projected on the Coulomb disc of radius mu lambda_n. */
void contact_friction_resolution(double mu, const double w6[6], size_t line, const double *d,
                                 double *lambda);

/* UnilateralConstraintResolution: lambda -= d / W_ll, clamped at 0. */
void contact_unilateral_resolution(const double *W, size_t dim, size_t line, const double *d,
                                   double *lambda);

/* AugmentedLagrangianResolutionWithFriction::resolution (rows line..line+2):
 * lambda_n -= eps d_n, released (all three 0) below 0; the trial tangential
 * force lambda_t - eps d_t stays inside the cone of radius mu lambda_n, else
 * the tangents move by -mu eps d_n along d_t's direction. */
void contact_auglag_friction_resolution(double mu, double eps, size_t line, const double *d,
                                        double *lambda);

#endif
