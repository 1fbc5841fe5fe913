/* correction_common.h - helpers the constraint corrections share: rows of
 * J on one state, J^T lambda on it, the ODE solver's integration factors. */
#ifndef LAGRANGIAN_CORRECTION_COMMON_H
#define LAGRANGIAN_CORRECTION_COMMON_H

#include <settee/settee.h>

/* True when row r of J has a term on ms. */
bool corr_row_on(const st_cjacobian *J, size_t r, const st_mstate *ms);
/* out (ms->n points of deriv_size, cleared first) = J^T lambda restricted to ms. */
void corr_jt_lambda(const st_cjacobian *J, const double *lambda, const st_mstate *ms, double *out);
/* Sum over the terms of row r on ms of term . v (v: ms's derivatives). */
double corr_row_dot(const st_cjacobian *J, size_t r, const st_mstate *ms, const double *v);
/* The ODE solver integrating ms (its system's), or NULL. */
st_component *corr_ode_solver(const st_mstate *ms);
/* The time step of the current step: the one the system of ms was solved
 * with (st_scene_step's dt may differ from the node's), else the node's. */
double corr_dt(const st_component *self, const st_mstate *ms);
/* SOFA's position and velocity integration factors of an ODE solver (1, 1
 * when it has none). */
double corr_position_factor(const st_component *ode, double dt);
double corr_velocity_factor(const st_component *ode, double dt);
/* The "linearSolver" and "ODESolver" links, when set, are a linear solver
 * and an ODE solver. */
st_status corr_check_solver_links(st_component *self, st_component *linear_solver,
                                  st_component *ode_solver, st_error *err);
/* The linear solver of sys: the link, else the first one below, then
 * above, the system's node; an error when there is none. */
st_status corr_find_linear_solver(st_component *self, st_system *sys, st_component *link,
                                  st_component **ls, st_error *err);
/* The linear solver of sys (corr_find_linear_solver) and two system
 * vectors for its right-hand side and solution. */
st_status corr_bind_linear_solver(st_component *self, st_system *sys, st_component *link,
                                  st_component **ls, double **rhs, double **sol, st_error *err);
/* What a correction through a linear solver binds once the systems exist
 * (at the end of init, again at first use when that failed). */
typedef struct corr_binding {
    st_system *sys;
    st_component *ode, *ls;  /* ODE solver of the integration factors; linear solver */
    double *rhs, *sol;       /* system vectors */
    bool ready;
} corr_binding;
/* The rest of the binding once b->sys is found: ode the "ODESolver" link,
 * else the system's solver; the linear solver and its vectors
 * (corr_bind_linear_solver); ready on success. */
st_status corr_bind_system(st_component *self, corr_binding *b, st_component *ode_link,
                           st_component *ls_link, st_error *err);
/* The on_event of such a correction: at ST_EVENT_INIT_DONE, b->ready
 * cleared and bind(self) called; a failure is a warning (the first use
 * binds again and fails with the error). */
void corr_bind_on_init_done(st_component *self, st_event ev, corr_binding *b,
                            st_status (*bind)(st_component *self, st_error *err));
/* What follows works on the terms of J a correction covers: those on ms,
 * or (ms NULL) those on an independent state of b->sys. */
/* W += factor * J A^-1 J^T over the rows with a covered term (one solve
 * with b's linear solver per such row), plus regularization on their
 * diagonal when it exceeds the machine epsilon. */
st_status corr_add_solved_compliance(corr_binding *b, const st_mstate *ms, const st_cjacobian *J,
                                     double factor, double regularization, double *W,
                                     size_t dim, st_error *err);
/* b->rhs = J^T lambda over the covered terms; false when no row with a
 * non-zero multiplier has one. */
bool corr_rhs_jt_lambda(corr_binding *b, const st_mstate *ms, const st_cjacobian *J,
                        const double *lambda);
/* x += pf dx, v += vf dx (dx: ms's derivatives). */
void corr_move_state(st_mstate *ms, const double *dx, double pf, double vf);
/* sol = A^-1 rhs with the solver's set-up matrix, rhs projected first. */
st_status corr_solve(st_component *ls, st_system *sys, double *sol, double *rhs, st_error *err);

#endif
