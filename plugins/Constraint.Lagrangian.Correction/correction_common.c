/* correction_common.c - see correction_common.h. */
#include <string.h>

#include "correction_common.h"

bool corr_row_on(const st_cjacobian *J, size_t r, const st_mstate *ms)
{
    for (size_t t = st_cjac_row_begin(J, r); t < J->row_end[r]; t++)
        if (J->terms[t].ms == ms)
            return true;
    return false;
}

void corr_jt_lambda(const st_cjacobian *J, const double *lambda, const st_mstate *ms, double *out)
{
    unsigned d = ms->type->deriv_size;
    memset(out, 0, ms->n * d * sizeof *out);
    for (size_t r = 0; r < J->nrows; r++) {
        if (lambda[r] == 0.0)
            continue;
        for (size_t t = st_cjac_row_begin(J, r); t < J->row_end[r]; t++) {
            const st_cterm *c = &J->terms[t];
            if (c->ms != ms)
                continue;
            for (unsigned k = 0; k < d; k++)
                out[c->point * d + k] += c->d[k] * lambda[r];
        }
    }
}

double corr_row_dot(const st_cjacobian *J, size_t r, const st_mstate *ms, const double *v)
{
    unsigned d = ms->type->deriv_size;
    double s = 0.0;
    for (size_t t = st_cjac_row_begin(J, r); t < J->row_end[r]; t++) {
        const st_cterm *c = &J->terms[t];
        if (c->ms != ms)
            continue;
        for (unsigned k = 0; k < d; k++)
            s += c->d[k] * v[c->point * d + k];
    }
    return s;
}

st_component *corr_ode_solver(const st_mstate *ms)
{
    return ms && ms->system ? ms->system->solver : NULL;
}

double corr_dt(const st_component *self, const st_mstate *ms)
{
    if (ms && ms->system && ms->system->mp.dt > 0.0)
        return ms->system->mp.dt;
    return st_node_dt(self->node);
}

double corr_position_factor(const st_component *ode, double dt)
{
    if (!ode || !ode->cls->odesolver ||
        ode->cls->odesolver->struct_size <
            offsetof(st_odesolver_ops, position_integration_factor) + sizeof(void *) ||
        !ode->cls->odesolver->position_integration_factor)
        return 1.0;
    return ode->cls->odesolver->position_integration_factor(ode, dt);
}

double corr_velocity_factor(const st_component *ode, double dt)
{
    if (!ode || !ode->cls->odesolver ||
        ode->cls->odesolver->struct_size <
            offsetof(st_odesolver_ops, velocity_integration_factor) + sizeof(void *) ||
        !ode->cls->odesolver->velocity_integration_factor)
        return 1.0;
    return ode->cls->odesolver->velocity_integration_factor(ode, dt);
}

st_status corr_check_solver_links(st_component *self, st_component *linear_solver,
                                  st_component *ode_solver, st_error *err)
{
    if (linear_solver && !st_component_has_role(linear_solver, ST_ROLE_LINSOLVER))
        return st_component_error(self, "linearSolver", err, ST_ELINK,
                                  "the linked component is not a linear solver");
    if (ode_solver && !st_component_has_role(ode_solver, ST_ROLE_ODESOLVER))
        return st_component_error(self, "ODESolver", err, ST_ELINK,
                                  "the linked component is not an ODE solver");
    return ST_OK;
}

st_status corr_find_linear_solver(st_component *self, st_system *sys, st_component *link,
                                  st_component **ls, st_error *err)
{
    *ls = st_system_find_linear_solver(sys, link, true);
    if (!*ls)
        *ls = st_system_find_linear_solver(sys, link, false);
    if (!*ls)
        return st_component_error(self, "linearSolver", err, ST_ESCENE,
                                  "A linear solver is required by this component but has not "
                                  "been found.");
    return ST_OK;
}

st_status corr_bind_linear_solver(st_component *self, st_system *sys, st_component *link,
                                  st_component **ls, double **rhs, double **sol, st_error *err)
{
    ST_TRY(corr_find_linear_solver(self, sys, link, ls, err));
    ST_TRY(st_system_vec_alloc(sys, rhs, err));
    return st_system_vec_alloc(sys, sol, err);
}

st_status corr_bind_system(st_component *self, corr_binding *b, st_component *ode_link,
                           st_component *ls_link, st_error *err)
{
    b->ode = ode_link ? ode_link : b->sys->solver;
    ST_TRY(corr_bind_linear_solver(self, b->sys, ls_link, &b->ls, &b->rhs, &b->sol, err));
    b->ready = true;
    return ST_OK;
}

void corr_bind_on_init_done(st_component *self, st_event ev, corr_binding *b,
                            st_status (*bind)(st_component *self, st_error *err))
{
    if (ev != ST_EVENT_INIT_DONE)
        return;
    st_error e = {0};
    b->ready = false;
    if (bind(self, &e) != ST_OK)
        st_component_warn(self, "%s", e.msg);
}

static bool covers(const st_cterm *c, const st_system *sys, const st_mstate *ms)
{
    return ms ? c->ms == ms : c->ms->system == sys && !c->ms->mapped;
}

static bool row_covered(const st_cjacobian *J, size_t r, const st_system *sys,
                        const st_mstate *ms)
{
    for (size_t t = st_cjac_row_begin(J, r); t < J->row_end[r]; t++)
        if (covers(&J->terms[t], sys, ms))
            return true;
    return false;
}

/* v += scale * (row r of J) over the covered terms. */
static void scatter_row(const st_cjacobian *J, size_t r, const st_system *sys,
                        const st_mstate *ms, double *v, double scale)
{
    for (size_t t = st_cjac_row_begin(J, r); t < J->row_end[r]; t++) {
        const st_cterm *c = &J->terms[t];
        if (!covers(c, sys, ms))
            continue;
        unsigned d = c->ms->type->deriv_size;
        double *p = st_slice(v, c->ms) + c->point * d;
        for (unsigned k = 0; k < d; k++)
            p[k] += c->d[k] * scale;
    }
}

static double row_dot(const st_cjacobian *J, size_t r, const st_system *sys,
                      const st_mstate *ms, const double *v)
{
    double s = 0.0;
    for (size_t t = st_cjac_row_begin(J, r); t < J->row_end[r]; t++) {
        const st_cterm *c = &J->terms[t];
        if (!covers(c, sys, ms))
            continue;
        unsigned d = c->ms->type->deriv_size;
        const double *p = st_slice(v, c->ms) + c->point * d;
        for (unsigned k = 0; k < d; k++)
            s += c->d[k] * p[k];
    }
    return s;
}

st_status corr_add_solved_compliance(corr_binding *b, const st_mstate *ms, const st_cjacobian *J,
                                     double factor, double regularization, double *W,
                                     size_t dim, st_error *err)
{
    for (size_t i = 0; i < J->nrows; i++) {
        if (!row_covered(J, i, b->sys, ms))
            continue;
        memset(b->rhs, 0, b->sys->size_all * sizeof *b->rhs);
        scatter_row(J, i, b->sys, ms, b->rhs, 1.0);
        ST_TRY(corr_solve(b->ls, b->sys, b->sol, b->rhs, err));
        for (size_t j = 0; j < J->nrows; j++)
            if (row_covered(J, j, b->sys, ms))
                W[j * dim + i] += factor * row_dot(J, j, b->sys, ms, b->sol);
        if (regularization > 2.220446049250313e-16)
            W[i * dim + i] += regularization;
    }
    return ST_OK;
}

bool corr_rhs_jt_lambda(corr_binding *b, const st_mstate *ms, const st_cjacobian *J,
                        const double *lambda)
{
    memset(b->rhs, 0, b->sys->size_all * sizeof *b->rhs);
    bool any = false;
    for (size_t r = 0; r < J->nrows; r++)
        if (lambda[r] != 0.0 && row_covered(J, r, b->sys, ms)) {
            scatter_row(J, r, b->sys, ms, b->rhs, lambda[r]);
            any = true;
        }
    return any;
}

void corr_move_state(st_mstate *ms, const double *dx, double pf, double vf)
{
    unsigned d = ms->type->deriv_size;
    if (pf != 0.0) /* 0: the VEL order, velocities only */
        ms->type->add_deriv(ms->position.p, ms->position.p, dx, pf, ms->n);
    double *v = ms->velocity.p;
    for (size_t i = 0; v && i < ms->n * d; i++)
        v[i] += dx[i] * vf;
}

st_status corr_solve(st_component *ls, st_system *sys, double *sol, double *rhs, st_error *err)
{
    st_system_project_response(sys, rhs);
    return st_linsolver_solve(ls, sys, sol, rhs, err);
}
