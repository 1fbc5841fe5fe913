/* lcp_constraint_solver.c - LCPConstraintSolver: SOFA's LCP on the built
 * compliance, every row a complementarity condition
 *   w = dfree + W f,  w >= 0,  f >= 0,  w . f = 0,
 * solved by SOFA's gaussSeidelLCP1 (mu = 0): per row, w_i without its own
 * term, f_i = -w_i / W_ii when w_i < 0 else 0 (0 too when minW is set and
 * |W_ii| <= minW); the error is the sum of |W_ii df_i| over a sweep,
 * compared to tolerance as it is (not scaled); after the sweeps, forces
 * with |f_i| >= maxF are dropped when maxF is set. As in SOFA, the
 * constraint models' resolutions are not used: a bilateral row is solved
 * as a unilateral one (f >= 0).
 *
 * With mu > 0 (SOFA's default 0.6) the problem is SOFA's nonlinear
 * complementarity problem with Coulomb friction, solved by its
 * nlcp_gaussseidel: the rows are contacts of three (normal, tangent,
 * tangent), every contact with the solver's own mu (the models' mu only
 * decides how many rows they write). Per contact, its force is set to 0,
 * d = dfree + W f on its rows, then SOFA's LocalBlock33::GS_State: the
 * normal by its diagonal (with the old tangential forces), clamped at 0
 * (then no friction); the tangents by 2 / (W_tt + W_ss) (with the new
 * normal force), scaled back on the cone |f_t| <= mu f_n; the error is the
 * sum over contacts of |d_new - d_old|, converged when below
 * tolerance * (contacts + 1); maxF drops a contact's three forces after a
 * converged solve. Rows not in blocks of three are refused (SOFA assumes
 * them).
 *
 * As in SOFA, J's rows are not projected by the projective constraints
 * (only GenericConstraintSolver and its kin do): a contact on fixed points
 * keeps its compliance, so W's diagonal is not zero there. */
#include <math.h>
#include <string.h>

#include "../shared/contact_resolution.h"
#include "solver_common.h"

typedef struct lcp_solver {
    lagrange_solver base;
    bool display_debug;     /* "displayDebug" (ignored) */
    bool initial_guess;     /* "initial_guess" */
    bool build_lcp;         /* "build_lcp" */
    double mu;              /* "mu" */
    double min_w;           /* "minW" */
    double max_f;           /* "maxF" */
    st_array group;         /* "group" (ignored) */
    char *graph;            /* "graph" (ignored) */
    double show_cell_width; /* "showCellWidth" (ignored) */
    st_vec3 show_translation; /* "showTranslation" (ignored) */
    /* Older SOFA versions' fields, accepted so that their scenes load. */
    bool display_time;      /* "displayTime" (ignored) */
    bool multi_grid;        /* "multi_grid" (only false) */
    int multi_grid_levels;  /* "multi_grid_levels" (ignored) */
    int merge_method;       /* "merge_method" (ignored) */
    int merge_spatial_step; /* "merge_spatial_step" (ignored) */
    int merge_local_levels; /* "merge_local_levels" (ignored) */
    int show_levels;        /* "showLevels" (ignored) */
    st_vec3 show_level_translation; /* "showLevelTranslation" (ignored) */
    bool small_warned;      /* minW dropped a row (reported once) */
    const st_component *bad_owner; /* mu > 0: a model whose blocks are not of 3 rows */
    unsigned bad_rows;
} lcp_solver;

static const st_field lcp_fields[] = {
    ST_IGNORED(lcp_solver, display_debug, "displayDebug", ST_T_BOOL, bool, "false",
               "Display debug information (settee: use printLog)"),
    ST_IGNORED(lcp_solver, initial_guess, "initial_guess", ST_T_BOOL, bool, "true",
               "activate LCP results history to improve its resolution performances (settee "
               "starts every solve from zero forces: the same solution to the tolerance when it "
               "is unique, more iterations)"),
    ST_IGNORED(lcp_solver, build_lcp, "build_lcp", ST_T_BOOL, bool, "true",
               "LCP is not fully built to increase performance in some case (settee always "
               "builds it: the frictionless unbuilt LCP is the same Gauss-Seidel, the friction "
               "one reaches the same solution to the tolerance)"),
    ST_FIELD_EX(lcp_solver, base.tolerance, "tolerance", ST_T_REAL, double, "0.001",
                "residual error threshold for termination of the Gauss-Seidel algorithm", 0,
                NULL, 0.0, 1e300),
    ST_FIELD_EX(lcp_solver, base.max_it, "maxIt", ST_T_INT, int, "1000",
                "maximal number of iterations of the Gauss-Seidel algorithm", 0, NULL, 1.0,
                2147483647.0),
    ST_REAL(lcp_solver, base.regularization, "regularizationTerm", "0",
            "Add regularization factor times the identity matrix to the compliance W when "
            "solving constraints"),
    ST_REAL(lcp_solver, mu, "mu", "0.6",
            "Friction coefficient"),
    ST_REAL(lcp_solver, min_w, "minW", "0",
            "If not zero, constraints whose self-compliance (i.e. the corresponding value on "
            "the diagonal of W) is smaller than this threshold will be ignored"),
    ST_REAL(lcp_solver, max_f, "maxF", "0",
            "If not zero, constraints whose response force becomes larger than this "
            "threshold will be ignored"),
    ST_OUTPUT(lcp_solver, base.constraint_forces, "constraintForces", ST_T_REALS, st_array,
              "OUTPUT: constraint forces (stored only if computeConstraintForces=True)"),
    ST_BOOL(lcp_solver, base.compute_constraint_forces, "computeConstraintForces", "false",
            "enable the storage of the constraintForces."),
    ST_IGNORED(lcp_solver, group, "group", ST_T_UINTS, st_array, "0",
               "list of ID of groups of constraints to be handled by this solver (settee: one "
               "solver solves every constraint)"),
    ST_IGNORED(lcp_solver, graph, "graph", ST_T_STRING, char *, "",
               "Graph of residuals at each iteration (no GUI graphs in settee)"),
    ST_IGNORED(lcp_solver, show_cell_width, "showCellWidth", ST_T_REAL, double, "0",
               "Distance between each constraint cells (no drawing in settee)"),
    ST_IGNORED(lcp_solver, show_translation, "showTranslation", ST_T_VEC3, st_vec3, "0 0 0",
               "Position of the first cell (no drawing in settee)"),
    ST_OUTPUT(lcp_solver, base.current_iterations, "currentIterations", ST_T_INT, int,
              "OUTPUT: iterations of the last solve (settee; SOFA logs them as 'GS "
              "iterations')"),
    ST_OUTPUT(lcp_solver, base.current_error, "currentError", ST_T_REAL, double,
              "OUTPUT: error of the last solve (settee)"),
    ST_IGNORED(lcp_solver, display_time, "displayTime", ST_T_BOOL, bool, "false",
               "Display time for each important step of LCPConstraintSolver (older SOFA; use "
               "settee run's timings)"),
    ST_BOOL(lcp_solver, multi_grid, "multi_grid", "false",
            "activate multi_grid resolution (older SOFA; settee: only false)"),
    ST_IGNORED(lcp_solver, multi_grid_levels, "multi_grid_levels", ST_T_INT, int, "2",
               "if multi_grid is active: how many levels to create (>=2) (older SOFA)"),
    ST_IGNORED(lcp_solver, merge_method, "merge_method", ST_T_INT, int, "0",
               "if multi_grid is active: which method to use to merge constraints (0 = "
               "compliance-based, 1 = spatial coordinates) (older SOFA)"),
    ST_IGNORED(lcp_solver, merge_spatial_step, "merge_spatial_step", ST_T_INT, int, "2",
               "if merge_method is 1: grid size reduction between multigrid levels (older SOFA)"),
    ST_IGNORED(lcp_solver, merge_local_levels, "merge_local_levels", ST_T_INT, int, "2",
               "if merge_method is 1: up to the specified level of the multigrid, constraints "
               "are grouped locally (older SOFA)"),
    ST_IGNORED(lcp_solver, show_levels, "showLevels", ST_T_INT, int, "0",
               "Number of constraint levels to display (older SOFA; no drawing in settee)"),
    ST_IGNORED(lcp_solver, show_level_translation, "showLevelTranslation", ST_T_VEC3, st_vec3,
               "0 0 0", "Translation between levels (older SOFA; no drawing in settee)"),
    ST_FIELD_END};

/* gaussSeidelLCP1 on (W, dfree), forces in lambda (from zero); the common
 * code sets the outputs and the models store the forces. */
static bool lcp_gauss_seidel(lagrange_solver *ls, size_t dim, lagrange_outcome *out)
{
    lcp_solver *s = (lcp_solver *)ls;
    const double *W = ls->W, *q = ls->dfree;
    double *f = ls->lambda;
    memset(f, 0, dim * sizeof *f);
    double error = 0.0;
    int it = 0;
    for (; it < ls->max_it; it++) {
        error = 0.0;
        for (size_t i = 0; i < dim; i++) {
            const double *w = W + i * dim;
            double wi = q[i];
            for (size_t k = 0; k < dim; k++)
                wi += w[k] * f[k];
            wi -= w[i] * f[i];
            double old = f[i];
            if (s->min_w != 0.0 && fabs(w[i]) <= s->min_w) {
                if (it == 0 && !s->small_warned) {
                    st_component_warn(&ls->base, "Compliance too small for constraint %zu: "
                                                 "|%g| < %g (minW; reported once)",
                                      i, w[i], s->min_w);
                    s->small_warned = true;
                }
                f[i] = 0.0;
            } else if (wi < 0.0) {
                f[i] = -wi / w[i];
            } else {
                f[i] = 0.0;
            }
            error += fabs(w[i] * (f[i] - old));
        }
        if (error < ls->tolerance)
            break;
    }
    bool converged = error < ls->tolerance;
    if (s->max_f != 0.0)
        for (size_t i = 0; i < dim; i++)
            if (fabs(f[i]) >= s->max_f) {
                st_component_warn(&ls->base, "force too large for constraint %zu: |%g| > %g "
                                             "(maxF): dropped",
                                  i, f[i], s->max_f);
                f[i] = 0.0;
            }
    int iterations = it < ls->max_it ? it + 1 : it;
    *out = (lagrange_outcome){.converged = converged, .iterations = iterations,
                              .done = iterations, .error = error, .tol = ls->tolerance,
                              .failure = "No convergence in gaussSeidelLCP1",
                              .max_field = "maxIt"};
    return true;
}

/* LocalBlock33::GS_State on one contact: w the block's upper values
 * (nn, nt, ns, tt, ts, ss), d its violations without its own force on
 * entry, with its new force on return; f its force (old on entry). */
static void lcp_contact_update(double mu, const double w[6], double d[3], double f[3])
{
    double fn = f[0], ft = f[1], fs = f[2];
    fn -= (w[0] * fn + w[1] * ft + w[2] * fs + d[0]) / w[0];
    if (fn < 0.0) {
        f[0] = f[1] = f[2] = 0.0;
        return;
    }
    double dt = w[1] * fn + w[3] * ft + w[4] * fs + d[1];
    double ds = w[2] * fn + w[4] * ft + w[5] * fs + d[2];
    ft -= 2.0 * dt / (w[3] + w[5]);
    fs -= 2.0 * ds / (w[3] + w[5]);
    double norm = sqrt(ft * ft + fs * fs);
    if (norm > mu * fn) {
        ft *= mu * fn / norm;
        fs *= mu * fn / norm;
    }
    d[0] += w[0] * fn + w[1] * ft + w[2] * fs;
    d[1] += w[1] * fn + w[3] * ft + w[4] * fs;
    d[2] += w[2] * fn + w[4] * ft + w[5] * fs;
    f[0] = fn;
    f[1] = ft;
    f[2] = fs;
}

/* nlcp_gaussseidel on (W, dfree), forces in lambda (from zero). */
static bool lcp_friction_gauss_seidel(lagrange_solver *ls, size_t dim, lagrange_outcome *out)
{
    lcp_solver *s = (lcp_solver *)ls;
    const double *W = ls->W, *q = ls->dfree;
    double *f = ls->lambda;
    memset(f, 0, dim * sizeof *f);
    s->bad_owner = NULL;
    for (size_t b = 0; b < ls->nblocks; b++)
        if (ls->blocks[b].nb != 3) {
            s->bad_owner = ls->blocks[b].owner;
            s->bad_rows = ls->blocks[b].nb;
            return false;
        }
    size_t contacts = dim / 3;
    double error = 0.0;
    int it = 0;
    bool converged = false;
    for (; it < ls->max_it; it++) {
        error = 0.0;
        for (size_t c = 0; c < contacts; c++) {
            size_t r = 3 * c;
            double old[3] = {f[r], f[r + 1], f[r + 2]};
            f[r] = f[r + 1] = f[r + 2] = 0.0;
            double d[3], d1[3];
            for (int a = 0; a < 3; a++) {
                const double *row = W + (r + (size_t)a) * dim;
                double v = q[r + (size_t)a];
                for (size_t k = 0; k < dim; k++)
                    v += row[k] * f[k];
                d[a] = v;
                d1[a] = v + row[r] * old[0] + row[r + 1] * old[1] + row[r + 2] * old[2];
            }
            double nf[3] = {0.0, 0.0, 0.0};
            if (s->min_w != 0.0 && fabs(W[r * dim + r]) <= s->min_w) {
                if (it == 0 && !s->small_warned) {
                    st_component_warn(&ls->base, "Compliance too small for contact %zu: "
                                                 "|%g| < %g (minW; reported once)",
                                      c, W[r * dim + r], s->min_w);
                    s->small_warned = true;
                }
            } else {
                double w6[6];
                contact_friction_block(W, dim, r, w6);
                memcpy(nf, old, sizeof nf);
                lcp_contact_update(s->mu, w6, d, nf);
            }
            error += sqrt((d1[0] - d[0]) * (d1[0] - d[0]) + (d1[1] - d[1]) * (d1[1] - d[1]) +
                          (d1[2] - d[2]) * (d1[2] - d[2]));
            memcpy(f + r, nf, sizeof nf);
        }
        if (error < ls->tolerance * (double)(contacts + 1)) {
            converged = true;
            break;
        }
    }
    if (converged && s->max_f != 0.0)
        for (size_t c = 0; c < contacts; c++)
            if (fabs(f[3 * c]) >= s->max_f) {
                st_component_warn(&ls->base, "Force too large for contact %zu: |%g| > %g "
                                             "(maxF): dropped",
                                  c, f[3 * c], s->max_f);
                f[3 * c] = f[3 * c + 1] = f[3 * c + 2] = 0.0;
            }
    int iterations = converged ? it + 1 : it;
    *out = (lagrange_outcome){.converged = converged, .iterations = iterations,
                              .done = iterations, .error = error,
                              .tol = ls->tolerance * (double)(contacts + 1),
                              .failure = "No convergence in nlcp_gaussseidel",
                              .max_field = "maxIt"};
    return true;
}

/* The common solve, then the refusal of rows that are not contacts of
 * three when mu > 0 (the forces of that solve were zero). */
static st_status lcp_solve_constraint(st_component *self, st_node *root, double dt,
                                      st_error *err)
{
    lcp_solver *s = (lcp_solver *)self;
    s->bad_owner = NULL;
    ST_TRY(lagrange_solver_ops.solve_constraint(self, root, dt, err));
    if (s->bad_owner)
        return st_component_error(self, "mu", err, ST_EINVAL,
                                  "mu: %g: the LCP with friction (SOFA's nlcp_gaussseidel) "
                                  "needs every contact as three rows (normal, tangent, "
                                  "tangent), but %s '%s' writes blocks of %u row(s); give "
                                  "the contacts a friction coefficient (e.g. responseParams: "
                                  "mu=...) or set mu: 0",
                                  s->mu, s->bad_owner->cls->name,
                                  s->bad_owner->name ? s->bad_owner->name : "",
                                  s->bad_rows);
    return ST_OK;
}

static const st_csolver_ops lcp_solver_ops = {
    .struct_size = sizeof(st_csolver_ops),
    .solve_constraint = lcp_solve_constraint,
    .problem = lagrange_solver_problem,
};

static st_status lcp_init(st_component *self, st_error *err)
{
    lcp_solver *s = (lcp_solver *)self;
    if (s->mu < 0.0)
        return st_component_error(self, "mu", err, ST_EINVAL, "mu: %g is negative", s->mu);
    if (s->multi_grid)
        return st_component_error(self, "multi_grid", err, ST_EINVAL,
                                  "multi_grid: true is not implemented in settee (SOFA removed "
                                  "it as not stable)");
    if (s->min_w < 0.0 || s->max_f < 0.0)
        return st_component_error(self, s->min_w < 0.0 ? "minW" : "maxF", err, ST_EINVAL,
                                  "%s: %g is negative", s->min_w < 0.0 ? "minW" : "maxF",
                                  s->min_w < 0.0 ? s->min_w : s->max_f);
    ST_TRY(lagrange_solver_init(self, err));
    s->base.keep_fixed_rows = true;
    s->base.method = s->mu > 0.0 ? lcp_friction_gauss_seidel : lcp_gauss_seidel;
    return ST_OK;
}

const st_class lcp_constraint_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "LCPConstraintSolver",
    .category = "ConstraintSolver",
    .description = "A Constraint Solver using the Linear Complementarity Problem formulation to "
                   "solve BaseConstraint based components",
    .instance_size = sizeof(lcp_solver),
    .fields = lcp_fields,
    .init = lcp_init,
    .cleanup = lagrange_solver_cleanup,
    .constraint_solver = &lcp_solver_ops,
};
