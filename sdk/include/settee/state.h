/* state.h - state types: what one point of a mechanical state holds.
 *
 * A state type gives the size of a point's coordinate (what x, x0 hold)
 * and of its derivative (what v, f, dx hold), SOFA's names and text
 * layout, and the two operations that differ from plain vector algebra:
 * x (+) f v (integration of a velocity into a coordinate) and the
 * difference of two coordinates as a derivative.
 *
 *   type     coordinate                      derivative
 *   Vec1d    x                               vx
 *   Vec2d    x y                             vx vy
 *   Vec3d    x y z                           vx vy vz
 *   Vec6d    six scalars (ABI 2.8)           six scalars (spatial part: the first three)
 *   Rigid2d  x y theta (angle, radians)      vx vy w
 *   Rigid3d  x y z qx qy qz qw (unit quat.)  vx vy vz wx wy wz (linear, then angular)
 *
 * Types are static data owned by the kernel (borrowed, valid for the
 * process). Every function of a type works on n consecutive points.
 */
#ifndef SETTEE_STATE_H
#define SETTEE_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "settee/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct st_state_type {
    size_t struct_size;
    const char *name;             /* SOFA's name: "Vec3d", "Rigid3d" */
    const char *const *aliases;   /* NULL-terminated other spellings ("Vec3", "Vec3Types") */
    unsigned coord_size;          /* scalars per coordinate: 1, 2, 3, 3 (Rigid2d), 7 */
    unsigned deriv_size;          /* scalars per derivative: 1, 2, 3, 3 (Rigid2d), 6 */
    unsigned spatial_size;        /* scalars of the position part: 1, 2, 3 (Vec6d: 3) */
    bool rigid;                   /* the coordinate carries an orientation */
    const double *identity;       /* one coordinate at the origin (coord_size scalars) */
    /* xo = x (+) f v for n points; xo may be x. Vec types: x + f v. Rigid3d:
     * the centre moves by f v_lin, the orientation is left-multiplied by the
     * exponential of f w / 2 (SOFA's RigidCoord += RigidDeriv). */
    void (*add_deriv)(double *xo, const double *x, const double *v, double f, size_t n);
    /* d = a (-) b for n points: the derivative that takes b to a (Rigid3d:
     * centre difference, then the rotation vector of qa qb^-1). */
    void (*diff)(double *d, const double *a, const double *b, size_t n);
} st_state_type;

ST_API extern const st_state_type st_vec1d_type;
ST_API extern const st_state_type st_vec2d_type;
ST_API extern const st_state_type st_vec3d_type;
ST_API extern const st_state_type st_rigid3d_type;
/* SOFA's Rigid2Types: a frame of the plane. */
ST_API extern const st_state_type st_rigid2d_type; /* ABI 2.7 */
/* SOFA's Vec6Types: six scalars per point. */
ST_API extern const st_state_type st_vec6d_type; /* ABI 2.8 */

/* Every state type's name, NULL-terminated: a class working on any type
 * sets st_class.templates to it. */
ST_API extern const char *const st_all_state_types[];

/* The type named name (SOFA's name or one of its spellings), or NULL. */
ST_API const st_state_type *st_state_type_find(const char *name);
/* Writes the accepted names, comma-separated ("Vec1d (Vec1), ..."), into buf. */
ST_API const char *st_state_type_list(char *buf, size_t size);

/* Quaternion helpers (x y z w, SOFA's layout). */
/* r = a b (Hamilton product; r may alias a or b). */
ST_API void st_quat_mul(double r[4], const double a[4], const double b[4]);
/* v' = q v q^-1 (q unit). */
ST_API void st_quat_rotate(double out[3], const double q[4], const double v[3]);
/* SOFA's Quat::normalize: rescales q when |q|^2 differs from 1 by more
 * than 1e-10 (a zero quaternion becomes the identity). */
ST_API void st_quat_normalize(double q[4]);
/* SOFA's Quat::quatToAxis: the axis and angle in [0, 2 pi) of q (axis
 * (0 1 0) for a null rotation). */
ST_API void st_quat_to_axis(const double q[4], double axis[3], double *angle);

#ifdef __cplusplus
}
#endif
#endif
