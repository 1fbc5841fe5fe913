/* lcp_force_feedback.c - LCPForceFeedback (SOFA's Sofa.Component.Haptics):
 * the force a haptic device feels, from the last constraint solve. At the
 * end of each step it keeps the constraint problem of the scene's
 * LCPConstraintSolver (W, the violations dfree, the multipliers lambda:
 * the solver's public st_cproblem), the free positions of its node's state
 * (Vec1d or Rigid3d: its positions when the solver's
 * BuildConstraintSystemEnd event came) and the constraint rows on that state (the rows on
 * independent states when the state is one, else as the models wrote
 * them). A device driver then asks for the force at the device's state
 * (force_feedback.h), as SOFA's computeForce:
 *   dx = state - free positions (Rigid3d: the centres; the rotations only
 *        with derivRotations, as x0 rotating the rotation vector of
 *        x0^-1 x1; points past the state's end: -x0);
 *   d = dfree + J dx (every term at point 0 with
 *       localHapticConstraintAllFrames);
 *   lambda solved again from the last one, with tolerance = the solver's
 *   tolerance x 0.001, at most solverMaxIt sweeps and solverTimeout
 *   seconds: with the solver's mu > 0 SOFA's nlcp_gaussseidelTimed
 *   (contacts of three rows, error compared to the tolerance as it is;
 *   nothing solved when the rows are not a multiple of three); with mu = 0
 *   the solver's own row-by-row projected Gauss-Seidel (SOFA calls the
 *   friction solver with mu 0 there, which pairs unrelated rows);
 *   force = forceCoef J^T lambda, on the state's points.
 * The multipliers found are kept as the next call's start, as SOFA keeps
 * them in its problem. Only LCPConstraintSolver is supported: the other
 * solvers solve through their constraint models' resolutions, which the
 * solver's public problem does not describe (an init error says so). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <string.h>
#include <time.h>

#include "force_feedback.h"

typedef struct fterm {
    size_t row;
    size_t point;
    double d[6];
} fterm;

typedef struct lcpff {
    st_component base;
    bool activate;            /* "activate" */
    int indice;               /* "indice" */
    double force_coef;        /* "forceCoef" */
    double solver_timeout;    /* "solverTimeout" */
    int solver_max_it;        /* "solverMaxIt" */
    bool deriv_rotations;     /* "derivRotations" */
    bool all_frames;          /* "localHapticConstraintAllFrames" */
    /* Set at init. */
    st_component *solver;
    st_mstate *ms;
    /* The last step's problem (AnimateEnd), owned. */
    size_t dim;
    double *W, *dfree, *lambda, *d; /* dim x dim, dim, dim, dim (d: scratch) */
    size_t cap_w, cap_dfree, cap_lambda, cap_d, cap_tmp;
    double mu, tolerance;
    fterm *terms;
    size_t nterms, cap_terms;
    double *val;              /* free positions, nval x coord size */
    size_t nval, cap_val;
    double *tmp;              /* nval x deriv size */
    bool have_free;           /* val kept this step when the problem was built */
} lcpff;

static const st_field lcpff_fields[] = {
    ST_BOOL(lcpff, activate, "activate", "false",
            "boolean to activate or deactivate the forcefeedback"),
    ST_INT(lcpff, indice, "indice", "0", "Tool indice in the OmniDriver"),
    ST_REAL(lcpff, force_coef, "forceCoef", "0.03", "multiply haptic force by this coef."),
    ST_REAL(lcpff, solver_timeout, "solverTimeout", "0.0008",
            "max time to spend solving constraints."),
    ST_INT(lcpff, solver_max_it, "solverMaxIt", "100",
           "max iteration to spend solving constraints"),
    ST_BOOL(lcpff, deriv_rotations, "derivRotations", "false",
            "if true, deriv the rotations when updating the violations"),
    ST_BOOL(lcpff, all_frames, "localHapticConstraintAllFrames", "false",
            "Flag to enable/disable constraint haptic influence from all frames"),
    ST_FIELD_END};

static const char *const lcpff_templates[] = {"Rigid3d", "Vec1d", NULL};

static st_component *find_solver(const st_node *n)
{
    for (; n; n = st_node_parent(n))
        for (size_t i = 0; i < st_node_object_count(n); i++) {
            st_component *c = st_node_object(n, i);
            if (ST_CLASS_HAS(c->cls, constraint_solver) && c->cls->constraint_solver)
                return c;
        }
    return NULL;
}

static double real_field(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    return f && f->type == ST_T_REAL ? *(double *)st_component_field_ptr(c, f) : 0.0;
}

static st_status lcpff_init(st_component *self, st_error *err)
{
    lcpff *ff = (lcpff *)self;
    ff->dim = ff->nterms = ff->nval = 0;
    ff->solver = find_solver(self->node);
    if (!ff->solver)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "LCPForceFeedback has no binding ConstraintSolver (none in "
                                  "node '%s' or above)",
                                  st_node_name(self->node));
    const st_csolver_ops *ops = ff->solver->cls->constraint_solver;
    if (strcmp(ff->solver->cls->name, "LCPConstraintSolver") != 0 || !ops->problem)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "LCPForceFeedback re-solves an LCPConstraintSolver's problem; "
                                  "'%s' is a %s, whose constraint resolutions settee does not "
                                  "expose to the force feedback",
                                  ff->solver->name, ff->solver->cls->name);
    ff->ms = st_component_mstate(self);
    if (!ff->ms || (ff->ms->type != &st_vec1d_type && ff->ms->type != &st_rigid3d_type))
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "LCPForceFeedback has no binding MechanicalState (Vec1d or "
                                  "Rigid3d)%s%s",
                                  ff->ms ? ": it is " : "", ff->ms ? ff->ms->type->name : "");
    if (ff->solver_max_it < 0 || !(ff->solver_timeout >= 0))
        return st_component_error(self, ff->solver_max_it < 0 ? "solverMaxIt" : "solverTimeout",
                                  err, ST_EINVAL, "solverMaxIt (%d) and solverTimeout (%g) must "
                                  "be >= 0", ff->solver_max_it, ff->solver_timeout);
    return ST_OK;
}

static void lcpff_cleanup(st_component *self)
{
    lcpff *ff = (lcpff *)self;
    st_free(ff->W);
    st_free(ff->dfree);
    st_free(ff->lambda);
    st_free(ff->d);
    st_free(ff->terms);
    st_free(ff->val);
    st_free(ff->tmp);
    ff->W = ff->dfree = ff->lambda = ff->d = ff->val = ff->tmp = NULL;
    ff->terms = NULL;
    ff->dim = ff->nterms = ff->nval = 0;
    ff->cap_w = ff->cap_dfree = ff->cap_lambda = ff->cap_d = ff->cap_tmp = 0;
    ff->cap_terms = ff->cap_val = 0;
}

/* Grows *p to n elements of size e (kept when large enough). */
static bool grow(void **p, size_t *cap, size_t n, size_t e)
{
    if (n <= *cap)
        return true;
    void *q = st_realloc(*p, n * e);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

/* Keeps the state's positions as the free positions: called when the
 * solver has built its problem (the states hold the free motion then). */
static bool keep_positions(lcpff *ff)
{
    st_mstate *ms = ff->ms;
    size_t cw = ms->type->coord_size, dw = ms->type->deriv_size;
    size_t np = ms->position.n ? ms->position.n : 1;
    if (!grow((void **)&ff->val, &ff->cap_val, np * cw, sizeof(double)) ||
        !grow((void **)&ff->tmp, &ff->cap_tmp, np * dw, sizeof(double)))
        return false;
    memcpy(ff->val, ms->position.r, ms->position.n * cw * sizeof(double));
    ff->nval = ms->position.n;
    return true;
}

/* SOFA's AnimateEndEvent handler: keeps the problem and the rows on the
 * state (the free positions were kept when the problem was built). */
static void snapshot(lcpff *ff)
{
    st_cproblem cp = {.struct_size = sizeof cp};
    ff->solver->cls->constraint_solver->problem(ff->solver, &cp);
    bool have_free = ff->have_free;
    ff->have_free = false;
    ff->dim = 0, ff->nterms = 0;
    st_mstate *ms = ff->ms;
    const st_cjacobian *J = ms->mapped ? cp.J : (cp.Jind ? cp.Jind : cp.J);
    if (cp.dim == 0 || !cp.W || !cp.dfree || !cp.lambda || !J)
        return;
    size_t dim = cp.dim;
    size_t nterms = 0;
    for (size_t t = 0; t < J->nterms; t++)
        nterms += J->terms[t].ms == ms;
    bool ok = grow((void **)&ff->W, &ff->cap_w, dim * dim, sizeof(double)) &&
              grow((void **)&ff->dfree, &ff->cap_dfree, dim, sizeof(double)) &&
              grow((void **)&ff->lambda, &ff->cap_lambda, dim, sizeof(double)) &&
              grow((void **)&ff->d, &ff->cap_d, dim, sizeof(double)) &&
              grow((void **)&ff->terms, &ff->cap_terms, nterms ? nterms : 1, sizeof(fterm)) &&
              (have_free || keep_positions(ff));
    if (!ok) {
        st_component_warn(&ff->base, "out of memory keeping the constraint problem (%zu rows): "
                                     "no force feedback this step",
                          dim);
        return;
    }
    memcpy(ff->W, cp.W, dim * dim * sizeof(double));
    memcpy(ff->dfree, cp.dfree, dim * sizeof(double));
    memcpy(ff->lambda, cp.lambda, dim * sizeof(double));
    for (size_t r = 0; r < J->nrows && r < dim; r++)
        for (size_t t = st_cjac_row_begin(J, r); t < J->row_end[r]; t++) {
            const st_cterm *term = &J->terms[t];
            if (term->ms != ms)
                continue;
            fterm *o = &ff->terms[ff->nterms++];
            o->row = r;
            o->point = term->point;
            memcpy(o->d, term->d, sizeof o->d);
        }
    ff->dim = dim;
    ff->mu = real_field(ff->solver, "mu");
    ff->tolerance = real_field(ff->solver, "tolerance");
}

static void lcpff_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    lcpff *ff = (lcpff *)self;
    if (!ff->solver || !ff->ms)
        return;
    if (ev == ST_EVENT_BUILD_CONSTRAINT_SYSTEM_END)
        ff->have_free = keep_positions(ff);
    else if (ev == ST_EVENT_ANIMATE_END)
        snapshot(ff);
}

static void lcpff_reset(st_component *self)
{
    lcpff *ff = (lcpff *)self;
    ff->dim = ff->nterms = ff->nval = 0;
}

/* ---- the solve ---- */

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* SOFA's LocalBlock33::GS_State for one contact: w its 3x3 block's upper
 * values (nn, nt, ns, tt, ts, ss), d its violations without its own force,
 * f its old force on entry and its new one on return. */
static void contact_update(double mu, const double w[6], const double d[3], double f[3])
{
    double fn = f[0] - (w[0] * f[0] + w[1] * f[1] + w[2] * f[2] + d[0]) / w[0];
    if (fn < 0.0) {
        f[0] = f[1] = f[2] = 0.0;
        return;
    }
    double dt = w[1] * fn + w[3] * f[1] + w[4] * f[2] + d[1];
    double ds = w[2] * fn + w[4] * f[1] + w[5] * f[2] + d[2];
    double ft = f[1] - 2.0 * dt / (w[3] + w[5]);
    double fs = f[2] - 2.0 * ds / (w[3] + w[5]);
    double norm = sqrt(ft * ft + fs * fs);
    if (norm > mu * fn) {
        ft = norm > 0.0 ? ft * mu * fn / norm : 0.0;
        fs = norm > 0.0 ? fs * mu * fn / norm : 0.0;
    }
    f[0] = fn, f[1] = ft, f[2] = fs;
}

/* nlcp_gaussseidelTimed on (W, q), f the starting forces. */
static void solve_friction(const lcpff *ff, const double *q, double *f, double tol, int max_it,
                           double deadline)
{
    size_t dim = ff->dim, contacts = dim / 3;
    const double *W = ff->W;
    if (dim % 3)
        return;
    for (int it = 0; it < max_it; it++) {
        double error = 0.0;
        for (size_t c = 0; c < contacts; c++) {
            size_t r = 3 * c;
            double old[3] = {f[r], f[r + 1], f[r + 2]}, d[3], d1[3];
            f[r] = f[r + 1] = f[r + 2] = 0.0;
            for (int a = 0; a < 3; a++) {
                const double *row = W + (r + (size_t)a) * dim;
                double v = q[r + (size_t)a];
                for (size_t k = 0; k < dim; k++)
                    v += row[k] * f[k];
                d[a] = v;
                d1[a] = v + row[r] * old[0] + row[r + 1] * old[1] + row[r + 2] * old[2];
            }
            const double *w0 = W + r * dim + r, *w1 = w0 + dim, *w2 = w1 + dim;
            double w6[6] = {w0[0], w0[1], w0[2], w1[1], w1[2], w2[2]};
            double nf[3] = {old[0], old[1], old[2]};
            contact_update(ff->mu, w6, d, nf);
            /* the violation change this contact's new force makes */
            double dn[3];
            for (int a = 0; a < 3; a++) {
                const double *row = W + (r + (size_t)a) * dim + r;
                dn[a] = d[a] + row[0] * nf[0] + row[1] * nf[1] + row[2] * nf[2];
            }
            error += sqrt((dn[0] - d1[0]) * (dn[0] - d1[0]) + (dn[1] - d1[1]) * (dn[1] - d1[1]) +
                          (dn[2] - d1[2]) * (dn[2] - d1[2]));
            f[r] = nf[0], f[r + 1] = nf[1], f[r + 2] = nf[2];
            if (seconds() > deadline)
                return;
        }
        if (error < tol)
            return;
    }
}

/* Row-by-row projected Gauss-Seidel (the solver's gaussSeidelLCP1), from f. */
static void solve_rows(const lcpff *ff, const double *q, double *f, double tol, int max_it,
                       double deadline)
{
    size_t dim = ff->dim;
    const double *W = ff->W;
    for (int it = 0; it < max_it; it++) {
        double error = 0.0;
        for (size_t i = 0; i < dim; i++) {
            const double *w = W + i * dim;
            double wi = q[i];
            for (size_t k = 0; k < dim; k++)
                wi += w[k] * f[k];
            wi -= w[i] * f[i];
            double old = f[i];
            f[i] = wi < 0.0 && w[i] != 0.0 ? -wi / w[i] : 0.0;
            error += fabs(w[i] * (f[i] - old));
        }
        if (error < tol || seconds() > deadline)
            return;
    }
}

/* ---- the driver's entry points ---- */

/* dx for one point (SOFA's derivVectors): x1 the device, x0 the free
 * position; x1 NULL past the device state's end. */
static void deriv_point(const lcpff *ff, const double *x0, const double *x1, double *dx)
{
    if (ff->ms->type == &st_vec1d_type) {
        dx[0] = x1 ? x1[0] - x0[0] : -x0[0];
        return;
    }
    for (int a = 0; a < 3; a++)
        dx[a] = x1 ? x1[a] - x0[a] : -x0[a];
    dx[3] = dx[4] = dx[5] = 0.0;
    if (!ff->deriv_rotations)
        return;
    double q[4];
    if (x1) { /* x0^-1 x1, the sign of x1 taken to x0's side */
        double b[4] = {x1[3], x1[4], x1[5], x1[6]};
        if (b[0] * x0[3] + b[1] * x0[4] + b[2] * x0[5] + b[3] * x0[6] < 0)
            for (int k = 0; k < 4; k++)
                b[k] = -b[k];
        double inv[4] = {-x0[3], -x0[4], -x0[5], x0[6]};
        st_quat_mul(q, inv, b);
    } else {
        memcpy(q, x0 + 3, sizeof q);
    }
    st_quat_normalize(q);
    if (q[3] < 0)
        for (int k = 0; k < 4; k++)
            q[k] = -q[k];
    double s = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    double angle = q[3] > 0.999 ? 2.0 * asin(s) : 2.0 * acos(q[3]);
    double rv[3] = {0, 0, 0};
    if (s > 0)
        for (int a = 0; a < 3; a++)
            rv[a] = q[a] / s * angle * (x1 ? 1.0 : -1.0);
    st_quat_rotate(dx + 3, x0 + 3, rv);
}

st_status lcp_force_feedback_compute(st_component *self, const double *state, size_t n,
                                     double *forces, st_error *err)
{
    if (!self || strcmp(self->cls->name, "LCPForceFeedback") != 0)
        return st_error_set(err, ST_EINVAL, "lcp_force_feedback_compute: not an LCPForceFeedback");
    lcpff *ff = (lcpff *)self;
    if (!ff->ms || !ff->solver)
        return st_component_error(self, NULL, err, ST_ESTATE,
                                  "asked for a force before a successful init");
    size_t cw = ff->ms->type->coord_size, dw = ff->ms->type->deriv_size;
    if (n)
        memset(forces, 0, n * dw * sizeof *forces);
    if (!ff->activate || ff->dim == 0 || ff->nterms == 0)
        return ST_OK;
    /* dx on the free positions' points (the last step's state size) */
    double *dx = ff->tmp;
    for (size_t i = 0; i < ff->nval; i++)
        deriv_point(ff, ff->val + i * cw, i < n ? state + i * cw : NULL, dx + i * dw);
    double *q = ff->d;
    memcpy(q, ff->dfree, ff->dim * sizeof *q);
    for (size_t t = 0; t < ff->nterms; t++) {
        const fterm *term = &ff->terms[t];
        size_t p = ff->all_frames ? 0 : term->point;
        if (p >= ff->nval)
            continue;
        double s = 0.0;
        for (size_t k = 0; k < dw; k++)
            s += term->d[k] * dx[p * dw + k];
        q[term->row] += s;
    }
    double tol = ff->tolerance * 0.001, deadline = seconds() + ff->solver_timeout;
    if (ff->mu > 0.0)
        solve_friction(ff, q, ff->lambda, tol, ff->solver_max_it, deadline);
    else
        solve_rows(ff, q, ff->lambda, tol, ff->solver_max_it, deadline);
    /* J^T lambda, on the points of the state asked about */
    for (size_t t = 0; t < ff->nterms; t++) {
        const fterm *term = &ff->terms[t];
        double l = ff->lambda[term->row];
        size_t p = ff->all_frames ? 0 : term->point;
        if (l == 0.0 || p >= n || p >= ff->nval)
            continue;
        for (size_t k = 0; k < dw; k++)
            forces[p * dw + k] += term->d[k] * l * ff->force_coef;
    }
    return ST_OK;
}

const double *lcp_force_feedback_free_positions(const st_component *self, size_t *n)
{
    const lcpff *ff = (const lcpff *)self;
    *n = 0;
    if (!self || strcmp(self->cls->name, "LCPForceFeedback") != 0 || ff->dim == 0)
        return NULL;
    *n = ff->nval;
    return ff->val;
}

st_status lcp_force_feedback_wrench(st_component *self, const double pos[3], const double quat[4],
                                    double force[3], double torque[3], st_error *err)
{
    lcpff *ff = (lcpff *)self;
    if (!self || strcmp(self->cls->name, "LCPForceFeedback") != 0 || !ff->ms ||
        ff->ms->type != &st_rigid3d_type)
        return st_error_set(err, ST_EINVAL,
                            "lcp_force_feedback_wrench: not an initialised Rigid3d LCPForceFeedback");
    if (!ff->activate)
        return ST_OK;
    double x[7] = {pos[0], pos[1], pos[2], quat[0], quat[1], quat[2], quat[3]}, f[6];
    ST_TRY(lcp_force_feedback_compute(self, x, 1, f, err));
    memcpy(force, f, 3 * sizeof *f);
    memcpy(torque, f + 3, 3 * sizeof *f);
    return ST_OK;
}

const st_class lcp_force_feedback_class = {
    .struct_size = sizeof(st_class),
    .name = "LCPForceFeedback",
    .category = "Haptics",
    .description = "LCP force feedback for the device.",
    .instance_size = sizeof(lcpff),
    .fields = lcpff_fields,
    .init = lcpff_init,
    .reinit = lcpff_init,
    .reset = lcpff_reset,
    .cleanup = lcpff_cleanup,
    .on_event = lcpff_on_event,
    .templates = lcpff_templates,
};
