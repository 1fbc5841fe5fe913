/* solver_stats.c - what the solvers did during `settee run`: after every
 * step, the scalar output fields of each ODE and linear solver of the scene
 * (CGLinearSolver's nbIterations and residual, NewtonRaphsonSolver's
 * status, ...; solvers: the ODE and linear solver roles and classes of a
 * "...Solver" category) are read and summed up: minimum, maximum, mean and last
 * value of numbers, how often each value of a text occurred. Nothing is
 * specific to a solver class: a solver that exposes an outcome as an output
 * field is reported. A number left at the largest double is taken as "not
 * computed" (EulerImplicitSolver's residual without computeResidual). */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define STATS_MAX_VALUES 8 /* distinct texts counted per field; more go to "other" */
#define STATS_TEXT_MAX 64

typedef struct stat_field {
    const st_field *field;
    unsigned long n;          /* values counted */
    double min, max, sum, last;
    char texts[STATS_MAX_VALUES][STATS_TEXT_MAX];
    unsigned long counts[STATS_MAX_VALUES];
    size_t ntexts;
    unsigned long other;      /* texts beyond STATS_MAX_VALUES */
    char last_text[STATS_TEXT_MAX];
} stat_field;

/* An iterative solver's cap (CGLinearSolver and its like: an `iterations`
 * cap, a `tolerance`, and the outputs `nbIterations` and `residual`): the
 * steps that ended at the cap with the residual far above the tolerance. */
#define CAP_FACTOR 100.0 /* "far above": the residual over the tolerance */
typedef struct cap_watch {
    const st_field *cap, *tol, *its, *res;
    unsigned long capped;     /* steps ended at the cap, residual > CAP_FACTOR x tolerance */
    unsigned long steps;      /* steps recorded */
    unsigned long worst_step; /* the step of the largest residual / tolerance */
    double worst_res, worst_tol;
    bool warned;
} cap_watch;

typedef struct stat_solver {
    st_component *comp;
    stat_field *fields;
    size_t nfields;
    cap_watch cap;
} stat_solver;

struct cli_solver_stats {
    stat_solver *solvers;
    size_t nsolvers;
    unsigned long steps;      /* steps recorded */
};

static bool is_stat_field(const st_field *f)
{
    if (!(f->flags & ST_F_OUTPUT) || (f->flags & ST_F_HIDDEN))
        return false;
    return f->type == ST_T_UINT || f->type == ST_T_INT || f->type == ST_T_REAL ||
           f->type == ST_T_STRING || f->type == ST_T_BOOL;
}

static const st_field *typed_field(st_component *c, const char *name, st_type t)
{
    const st_field *f = st_component_field(c, name);
    return f && f->type == t ? f : NULL;
}

static bool add_solver(cli_solver_stats *st, st_component *c)
{
    stat_solver *sv = &st->solvers[st->nsolvers];
    sv->comp = c;
    sv->cap.cap = typed_field(c, "iterations", ST_T_UINT);
    sv->cap.tol = typed_field(c, "tolerance", ST_T_REAL);
    sv->cap.its = typed_field(c, "nbIterations", ST_T_UINT);
    sv->cap.res = typed_field(c, "residual", ST_T_REAL);
    size_t n = 0;
    for (const st_field *f = c->cls->fields; f && f->name; f++)
        n += is_stat_field(f);
    if (!n)
        return true;
    sv->fields = calloc(n, sizeof *sv->fields);
    if (!sv->fields)
        return false;
    for (const st_field *f = c->cls->fields; f && f->name; f++)
        if (is_stat_field(f))
            sv->fields[sv->nfields++].field = f;
    st->nsolvers++;
    return true;
}

/* Solvers: the ODE and linear solver roles, classes of a solver
 * category without a role (NewtonRaphsonSolver, "NonLinearSolver"), and
 * ConstraintAnimationLoop, which runs its own Gauss-Seidel. */
static bool is_solver(const st_component *c)
{
    return st_component_has_role(c, ST_ROLE_ODESOLVER) ||
           st_component_has_role(c, ST_ROLE_LINSOLVER) ||
           (c->cls->category && strstr(c->cls->category, "Solver")) ||
           !strcmp(c->cls->name, "ConstraintAnimationLoop");
}

cli_solver_stats *cli_solver_stats_create(st_scene *s)
{
    st_node *root = st_scene_root(s);
    size_t n = st_node_find_all(root, ST_ROLE_ANY, ST_SEARCH_DOWN, NULL, 0);
    cli_solver_stats *st = calloc(1, sizeof *st);
    st_component **list = calloc(n + 1, sizeof *list);
    if (st)
        st->solvers = calloc(n + 1, sizeof *st->solvers);
    if (!st || !list || !st->solvers) {
        free(list);
        cli_solver_stats_free(st);
        return NULL;
    }
    n = st_node_find_all(root, ST_ROLE_ANY, ST_SEARCH_DOWN, list, n);
    for (size_t i = 0; i < n; i++)
        if (is_solver(list[i]) && !add_solver(st, list[i])) {
            free(list);
            cli_solver_stats_free(st);
            return NULL;
        }
    free(list);
    return st;
}

static void record_text(stat_field *sf, const char *text)
{
    snprintf(sf->last_text, sizeof sf->last_text, "%s", text ? text : "");
    sf->n++;
    for (size_t k = 0; k < sf->ntexts; k++)
        if (!strcmp(sf->texts[k], sf->last_text)) {
            sf->counts[k]++;
            return;
        }
    if (sf->ntexts == STATS_MAX_VALUES) {
        sf->other++;
        return;
    }
    memcpy(sf->texts[sf->ntexts], sf->last_text, STATS_TEXT_MAX);
    sf->counts[sf->ntexts++] = 1;
}

static void record_number(stat_field *sf, double v)
{
    if (v >= DBL_MAX || v <= -DBL_MAX || v != v)
        return;
    if (!sf->n || v < sf->min)
        sf->min = v;
    if (!sf->n || v > sf->max)
        sf->max = v;
    sf->sum += v;
    sf->last = v;
    sf->n++;
}

static void watch_cap(stat_solver *sv, unsigned long step)
{
    cap_watch *w = &sv->cap;
    if (!w->cap || !w->tol || !w->its || !w->res)
        return;
    unsigned cap = *(const unsigned *)st_component_field_ptr(sv->comp, w->cap);
    unsigned its = *(const unsigned *)st_component_field_ptr(sv->comp, w->its);
    double tol = *(const double *)st_component_field_ptr(sv->comp, w->tol);
    double res = *(const double *)st_component_field_ptr(sv->comp, w->res);
    w->steps++;
    if (its < cap || !(tol > 0) || !(res > CAP_FACTOR * tol) || res >= DBL_MAX)
        return;
    w->capped++;
    if (!w->worst_step || res / tol > w->worst_res / w->worst_tol) {
        w->worst_step = step;
        w->worst_res = res;
        w->worst_tol = tol;
    }
    if (!w->warned) {
        char path[1024];
        fprintf(stderr,
                "settee: warning: %s: %s stopped at its cap of %u iterations with residual "
                "%.3g, %.3g times its tolerance %.3g (step %lu): its solution is far from "
                "converged; raise `iterations`, or use a direct solver (SparseLDLSolver); the "
                "summary counts such steps\n",
                st_component_path(sv->comp, path, sizeof path), sv->comp->cls->name, cap, res,
                res / tol, tol, step);
        w->warned = true;
    }
}

void cli_solver_stats_record(cli_solver_stats *st)
{
    if (!st)
        return;
    st->steps++;
    for (size_t i = 0; i < st->nsolvers; i++) {
        stat_solver *sv = &st->solvers[i];
        watch_cap(sv, st->steps);
        for (size_t k = 0; k < sv->nfields; k++) {
            stat_field *sf = &sv->fields[k];
            void *p = st_component_field_ptr(sv->comp, sf->field);
            switch (sf->field->type) {
            case ST_T_UINT: record_number(sf, *(unsigned *)p); break;
            case ST_T_INT: record_number(sf, *(int *)p); break;
            case ST_T_REAL: record_number(sf, *(double *)p); break;
            case ST_T_BOOL: record_text(sf, *(bool *)p ? "true" : "false"); break;
            default: record_text(sf, *(char **)p); break;
            }
        }
    }
}

static bool is_text(const stat_field *sf)
{
    return sf->field->type == ST_T_STRING || sf->field->type == ST_T_BOOL;
}

void cli_solver_stats_print(const cli_solver_stats *st, FILE *f)
{
    if (!st)
        return;
    char path[1024];
    for (size_t i = 0; i < st->nsolvers; i++) {
        const stat_solver *sv = &st->solvers[i];
        bool any = false;
        for (size_t k = 0; k < sv->nfields; k++) {
            const stat_field *sf = &sv->fields[k];
            if (!sf->n)
                continue;
            fprintf(f, "%s", any ? "; " : "");
            if (!any)
                fprintf(f, "  %s %s: ", sv->comp->cls->name,
                        st_component_path(sv->comp, path, sizeof path));
            any = true;
            if (is_text(sf)) {
                fprintf(f, "%s", sf->field->name);
                for (size_t j = 0; j < sf->ntexts; j++)
                    fprintf(f, "%s %s x%lu", j ? "," : "", sf->texts[j], sf->counts[j]);
                if (sf->other)
                    fprintf(f, ", other x%lu", sf->other);
            } else {
                fprintf(f, "%s mean %.4g, min %.4g, max %.4g, last %.4g", sf->field->name,
                        sf->sum / (double)sf->n, sf->min, sf->max, sf->last);
            }
        }
        if (any)
            fputc('\n', f);
        const cap_watch *w = &sv->cap;
        if (w->capped)
            fprintf(f,
                    "  %s %s: stopped at its cap of iterations, the residual over %g times the "
                    "tolerance, in %lu of %lu steps (worst: step %lu, residual %.3g, tolerance "
                    "%.3g): raise `iterations` or use a direct solver\n",
                    sv->comp->cls->name, st_component_path(sv->comp, path, sizeof path),
                    CAP_FACTOR, w->capped, w->steps, w->worst_step, w->worst_res, w->worst_tol);
    }
}

void cli_solver_stats_json(const cli_solver_stats *st, jw *w)
{
    jw_array(w, "solvers");
    char path[1024];
    for (size_t i = 0; st && i < st->nsolvers; i++) {
        const stat_solver *sv = &st->solvers[i];
        jw_object(w, NULL);
        jw_string(w, "path", st_component_path(sv->comp, path, sizeof path));
        jw_string(w, "class", sv->comp->cls->name);
        jw_object(w, "outputs");
        for (size_t k = 0; k < sv->nfields; k++) {
            const stat_field *sf = &sv->fields[k];
            if (!sf->n)
                continue;
            jw_object(w, sf->field->name);
            jw_uint(w, "steps", sf->n);
            if (is_text(sf)) {
                jw_string(w, "last", sf->last_text);
                jw_object(w, "counts");
                for (size_t j = 0; j < sf->ntexts; j++)
                    jw_uint(w, sf->texts[j], sf->counts[j]);
                if (sf->other)
                    jw_uint(w, "(other)", sf->other);
                jw_end_object(w);
            } else {
                jw_real(w, "mean", sf->sum / (double)sf->n);
                jw_real(w, "min", sf->min);
                jw_real(w, "max", sf->max);
                jw_real(w, "last", sf->last);
            }
            jw_end_object(w);
        }
        jw_end_object(w);
        const cap_watch *cw = &sv->cap;
        if (cw->cap && cw->tol && cw->its && cw->res) {
            /* Steps that ended at the iteration cap far from the tolerance. */
            jw_object(w, "capped");
            jw_uint(w, "steps", cw->capped);
            jw_real(w, "factor", CAP_FACTOR);
            if (cw->capped) {
                jw_uint(w, "worst_step", cw->worst_step);
                jw_real(w, "worst_residual", cw->worst_res);
                jw_real(w, "tolerance", cw->worst_tol);
            }
            jw_end_object(w);
        }
        jw_end_object(w);
    }
    jw_end_array(w);
}

void cli_solver_stats_free(cli_solver_stats *st)
{
    if (!st)
        return;
    for (size_t i = 0; st->solvers && i < st->nsolvers; i++)
        free(st->solvers[i].fields);
    free(st->solvers);
    free(st);
}

/* ---- phases of the steps, as the kernel timed them ---- */

/* The distinct systems of the scene's states, in state order. */
static size_t scene_systems(st_scene *s, st_system **out, size_t max)
{
    st_mstate *ms[256];
    size_t n = st_scene_states(s, ms, 256), k = 0;
    for (size_t i = 0; i < n && i < 256; i++) {
        st_system *sys = ms[i]->system;
        bool seen = !sys;
        for (size_t j = 0; j < k && !seen; j++)
            seen = out[j] == sys;
        if (!seen && k < max)
            out[k++] = sys;
    }
    return k;
}

/* The rest of a step: what the ODE solver did outside forces, assembly,
 * factorization and linear solves (vector operations, projections,
 * mapping propagation inside the solver). Products run inside the linear
 * solves (CG), so they are reported as a part of them. */
static double phase_other(const st_system *sys)
{
    double o = sys->time_step - sys->time_force - sys->time_assembly - sys->time_factor -
               sys->time_linsolve;
    return o > 0.0 ? o : 0.0;
}

void cli_phases_print(st_scene *s, FILE *f)
{
    st_system *sys[16];
    size_t n = scene_systems(s, sys, 16);
    char path[1024];
    for (size_t i = 0; i < n; i++) {
        const st_system *y = sys[i];
        if (!(y->time_step > 0.0))
            continue;
        fprintf(f, "  phases of %s: forces %.3g s, assembly %.3g s, factorization %.3g s, "
                   "linear solves %.3g s, other %.3g s, of %.3g s in the solver; matrix-free products "
                   "(in the solves and out) %.3g s\n",
                st_component_path(y->solver, path, sizeof path), y->time_force,
                y->time_assembly, y->time_factor, y->time_linsolve, phase_other(y),
                y->time_step, y->time_products);
    }
}

void cli_phases_json(st_scene *s, jw *w)
{
    st_system *sys[16];
    size_t n = s ? scene_systems(s, sys, 16) : 0;
    char path[1024];
    jw_array(w, "phases");
    for (size_t i = 0; i < n; i++) {
        const st_system *y = sys[i];
        jw_object(w, NULL);
        jw_string(w, "solver", st_component_path(y->solver, path, sizeof path));
        jw_real(w, "solver_seconds", y->time_step);
        jw_real(w, "forces", y->time_force);
        jw_real(w, "assembly", y->time_assembly);
        jw_real(w, "factorization", y->time_factor);
        jw_real(w, "linear_solves", y->time_linsolve);
        jw_real(w, "matrix_free_products", y->time_products);
        jw_real(w, "other", phase_other(y));
        jw_end_object(w);
    }
    jw_end_array(w);
}
