/* force_feedback.h - what a haptic device driver calls on the Haptics
 * plugin's LCPForceFeedback (SOFA's ForceFeedback::computeForce and
 * computeWrench). Internal to the plugin and its tests: a driver built in
 * this tree includes it. Call between steps, from the thread that steps
 * the scene (settee keeps no lock: SOFA's triple buffering is not needed
 * when nobody steps while the driver asks). */
#ifndef SETTEE_HAPTICS_FORCE_FEEDBACK_H
#define SETTEE_HAPTICS_FORCE_FEEDBACK_H

#include <settee/settee.h>

/* The force on the device at state `state` (n coordinates of the
 * component's type: 1 per point for Vec1d, 7 for Rigid3d), written into
 * forces (n derivatives: 1 or 6 per point, zero-filled first): the last
 * step's constraint problem solved again with the violations moved by J dx
 * (dx = state - the free positions of the last step), then J^T lambda
 * times forceCoef. Zero when activate is false or the last step had no
 * constraint row on the state. ST_EINVAL when ff is not an
 * LCPForceFeedback or not initialised. */
st_status lcp_force_feedback_compute(st_component *ff, const double *state, size_t n,
                                     double *forces, st_error *err);

/* The Rigid3d device's wrench (SOFA's computeWrench): the tool at
 * position pos with orientation quat (x, y, z, w); force and torque of the
 * one-point computation above. Nothing written when activate is false. */
st_status lcp_force_feedback_wrench(st_component *ff, const double pos[3], const double quat[4],
                                    double force[3], double torque[3], st_error *err);

/* The free positions of the last step's problem (the state's positions
 * when the solver built it), *n points of the state's type; NULL (n 0)
 * before a step with constraints. Borrowed: valid until the next step. */
const double *lcp_force_feedback_free_positions(const st_component *ff, size_t *n);

#endif
