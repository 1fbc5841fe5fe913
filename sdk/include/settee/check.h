/* check.h - checks a plugin's own tests can call: the derivatives a force
 * field gives (add_dforce, the assembled stiffness, the potential energy)
 * against central finite differences of its add_force, in the spirit of
 * SOFA's ForceField tests.
 *
 *   // a small scene, initialised; move the points to a deformed state
 *   st_jacobian_check chk = {.struct_size = sizeof chk};
 *   st_error err = {0};
 *   if (st_check_forcefield(ff, &chk, &err) != ST_OK) ... err.msg ...
 *   cr_assert_lt(chk.dforce_error, 1e-6);   // relative, max-norm
 *   cr_assert_lt(chk.matrix_error, 1e-6);
 *   cr_assert_lt(chk.energy_error, 1e-6);
 *
 * The check runs at the positions and velocities the force field's system
 * holds (sys->x, sys->v) and leaves them unchanged. It needs the force
 * field's states to be independent states of one mechanical system
 * (not outputs of a mapping) and at most ST_CHECK_MAX_SIZE derivative
 * scalars in that system (it costs one add_force pair per scalar).
 */
#ifndef SETTEE_CHECK_H
#define SETTEE_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "settee/component.h"
#include "settee/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ST_CHECK_MAX_SIZE 3000

typedef struct st_jacobian_check {
    size_t struct_size;  /* sizeof(st_jacobian_check), set by the caller */
    /* In: the finite-difference step (0: 1e-6 times the largest coordinate
     * magnitude, at least 1e-7). */
    double h;
    /* Out: errors relative to the largest entry of the finite-difference
     * Jacobian (or force), max-norm; -1 when the force field does not give
     * that quantity. */
    double dforce_error; /* add_dforce (kfactor 1) column by column */
    double matrix_error; /* add_k_to_matrix assembled alone (kfactor 1) */
    double energy_error; /* f against -dE/dx */
    double scale;        /* the largest |entry| of the finite-difference Jacobian */
    size_t worst_row, worst_col; /* where the largest Jacobian error is (system scalars) */
    size_t size;         /* scalars checked (the system's derivative size) */
} st_jacobian_check;

/* Compares, at the current state, the force field's derivatives with
 * central finite differences of its add_force. Errors: not a force field,
 * no add_force, states that are mapped or in no system, a system larger
 * than ST_CHECK_MAX_SIZE, out of memory. */
ST_API st_status st_check_forcefield(st_component *ff, st_jacobian_check *out,
                                     st_error *err) ST_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
