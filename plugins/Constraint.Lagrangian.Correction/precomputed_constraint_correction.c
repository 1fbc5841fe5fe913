/* precomputed_constraint_correction.c - PrecomputedConstraintCorrection
 * (Vec1d, Vec3d, Rigid3d): a dense compliance C of the state (n d x n d,
 * d the derivative size), computed once, kept in a file and read back by
 * later runs, as SOFA:
 *   W += J C J^T over the rows on the state, plus regularizationTerm on
 *   their diagonal; dx = C J^T lambda, x = x_free + dx, v = v_free + dx/dt.
 * SOFA computes column k of C as (pf/dt) times the velocity after one
 * implicit Euler step from rest under a unit force on dof k (no gravity):
 * with EulerImplicitSolver, pf A^-1 e_k, A = M - h B - h^2 K; settee
 * computes pf A^-1 e_k with the system's linear solver, at the first
 * solve (A set up at the initial positions by the first free motion),
 * the right-hand side and the column projected by the projective
 * constraints.
 * The file: n d x n d doubles, row-major, raw binary (SOFA's layout), named
 * "<node name>-<n d>-<dt>.comp" (dt as C++'s stream prints it, %g) unless
 * fileCompliance names it; looked for in fileDir when set (whatever
 * recompute says, as SOFA), else, when recompute is false, in the current
 * directory (SOFA: its data repository). A computed compliance is written
 * to fileDir, else to the current directory. A file of the wrong size is
 * reported and the compliance recomputed. */
#include <stdio.h>
#include <string.h>

#include "correction_common.h"

typedef struct precomputed {
    st_component base;
    bool rotations;             /* "rotations" */
    bool rest_deformations;     /* "restDeformations" */
    bool recompute;             /* "recompute" */
    double regularization;      /* "regularizationTerm" */
    double debug_frame_scale;   /* "debugViewFrameScale" (ignored) */
    char *file_compliance;      /* "fileCompliance" (alias filePrefix) */
    char *file_dir;             /* "fileDir" */
    /* Runtime. */
    st_mstate *ms;
    size_t nrows;               /* n d */
    double *C;                  /* nrows x nrows, or NULL until computed */
    double *f;                  /* C times a row of J, or J^T lambda */
    double *dx;                 /* C J^T lambda */
    char path[1024];            /* the file read or written */
    bool loaded;                /* C came from the file */
} precomputed;

static const st_field precomputed_fields[] = {
    ST_BOOL(precomputed, rotations, "rotations", "false",
            "Project the precomputed matrix with a rotation matrix (settee: only false)"),
    ST_BOOL(precomputed, rest_deformations, "restDeformations", "false",
            "(settee: only false)"),
    ST_BOOL(precomputed, recompute, "recompute", "false",
            "if true, always recompute the compliance"),
    ST_REAL(precomputed, regularization, "regularizationTerm", "0",
            "Add regularization factor times the identity matrix to the compliance W when "
            "solving constraints"),
    ST_IGNORED(precomputed, debug_frame_scale, "debugViewFrameScale", ST_T_REAL, double, "1",
               "Scale on computed node's frame (no drawing in settee)"),
    ST_FIELD_EX(precomputed, file_compliance, "fileCompliance", ST_T_STRING, char *, NULL,
                "Precomputed compliance matrix data file", 0, "filePrefix", 0.0, 0.0),
    ST_STRING(precomputed, file_dir, "fileDir", NULL,
              "If not empty, the compliance will be saved in this repertory"),
    ST_FIELD_END};

static st_status pc_init(st_component *self, st_error *err)
{
    precomputed *p = (precomputed *)self;
    if (p->rotations)
        return st_component_error(self, "rotations", err, ST_EINVAL,
                                  "rotations: true is not implemented in settee");
    if (p->rest_deformations)
        return st_component_error(self, "restDeformations", err, ST_EINVAL,
                                  "restDeformations: true is not implemented in settee");
    p->ms = st_component_mstate(self);
    if (!p->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in the node or its ancestors to correct");
    if (p->ms->n == 0)
        return st_component_error(self, NULL, err, ST_ESCENE, "No degree of freedom");
    p->nrows = p->ms->n * p->ms->type->deriv_size;
    st_free(p->f);
    st_free(p->dx);
    p->f = st_calloc(p->nrows, sizeof *p->f);
    p->dx = st_calloc(p->nrows, sizeof *p->dx);
    if (!p->f || !p->dx)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    return ST_OK;
}

static void pc_cleanup(st_component *self)
{
    precomputed *p = (precomputed *)self;
    st_free(p->C);
    st_free(p->f);
    st_free(p->dx);
    p->C = p->f = p->dx = NULL;
}

static bool has_text(const char *s)
{
    return s && s[0];
}

/* SOFA's buildFileName. */
static void build_name(const precomputed *p, char *buf, size_t size)
{
    snprintf(buf, size, "%s-%zu-%g.comp", st_node_name(p->base.node), p->nrows,
             st_node_dt(p->base.node));
}

static void join(const char *dir, const char *name, char *buf, size_t size)
{
    if (has_text(dir) && name[0] != '/')
        snprintf(buf, size, "%s/%s", dir, name);
    else
        snprintf(buf, size, "%s", name);
}

/* SOFA's loadCompliance: true when C was read. */
static bool load(precomputed *p, const char *name)
{
    char path[1024];
    if (has_text(p->file_dir))
        join(p->file_dir, name, path, sizeof path);
    else if (!p->recompute)
        snprintf(path, sizeof path, "%s", name);
    else
        return false;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return false;
    size_t n = p->nrows * p->nrows;
    double *C = st_malloc(n * sizeof *C);
    size_t got = C ? fread(C, sizeof *C, n, fp) : 0;
    int extra = fgetc(fp);
    fclose(fp);
    if (!C || got != n || extra != EOF) {
        st_component_warn(&p->base,
                          "compliance file '%s' does not hold %zu x %zu doubles: the "
                          "compliance is recomputed",
                          path, p->nrows, p->nrows);
        st_free(C);
        return false;
    }
    st_free(p->C);
    p->C = C;
    p->loaded = true;
    snprintf(p->path, sizeof p->path, "%s", path);
    return true;
}

static void pc_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    precomputed *p = (precomputed *)self;
    if (ev != ST_EVENT_INIT_DONE || !p->ms)
        return;
    char name[512];
    p->loaded = false;
    if (has_text(p->file_compliance)) {
        if (load(p, p->file_compliance))
            return;
        st_component_warn_field(self, "fileCompliance",
                                "A fileCompliance was given at path: %s, but could not be "
                                "loaded.",
                                p->file_compliance);
    }
    build_name(p, name, sizeof name);
    if (!has_text(p->file_compliance) && load(p, name))
        return;
    join(p->file_dir, name, p->path, sizeof p->path);
}

/* C = pf A^-1 through the system's linear solver, then written. Its
 * right-hand side and solution are its own, freed after: not system
 * scratch vectors, which a checkpoint lists (a resumed run that has not
 * precomputed yet would have two fewer). */
static st_status precompute(precomputed *p, st_error *err)
{
    st_component *self = &p->base;
    st_mstate *ms = p->ms;
    if (!ms->system)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "PrecomputedConstraintCorrection must be associated with "
                                  "EulerImplicitSolver+LinearSolver for the precomputation: "
                                  "'%s' is integrated by no ODE solver",
                                  ms->base.name);
    if (ms->mapped)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "state '%s' is the output of a mapping: not supported",
                                  ms->base.name);
    st_system *sys = ms->system;
    st_component *ls = NULL;
    ST_TRY(corr_find_linear_solver(self, sys, NULL, &ls, err));
    size_t n = p->nrows;
    double *C = st_malloc(n * n * sizeof *C);
    double *rhs = st_malloc(sys->size_all * sizeof *rhs), *sol = st_calloc(sys->size_all, sizeof *sol);
    if (!C || !rhs || !sol) {
        st_free(C), st_free(rhs), st_free(sol);
        return st_error_set(err, ST_ENOMEM, "out of memory precomputing the compliance");
    }
    double pf = corr_position_factor(sys->solver, corr_dt(self, ms));
    for (size_t k = 0; k < n; k++) {
        memset(rhs, 0, sys->size_all * sizeof *rhs);
        st_slice(rhs, ms)[k] = 1.0;
        st_status rc = corr_solve(ls, sys, sol, rhs, err);
        if (rc != ST_OK) {
            st_free(C), st_free(rhs), st_free(sol);
            return rc;
        }
        st_system_project_response(sys, sol);
        const double *y = st_slice(sol, ms);
        for (size_t r = 0; r < n; r++)
            C[r * n + k] = pf * y[r];
    }
    st_free(rhs), st_free(sol);
    st_free(p->C);
    p->C = C;
    FILE *fp = fopen(p->path, "wb");
    if (!fp || fwrite(C, sizeof *C, n * n, fp) != n * n) {
        if (fp)
            fclose(fp);
        st_component_warn(self, "could not write the compliance file '%s'", p->path);
        return ST_OK;
    }
    fclose(fp);
    st_component_info(self, "Compliance file has been saved in %s. Load this file using "
                            "fileCompliance if you don't want to recompute the compliance "
                            "matrice at next start.",
                      p->path);
    return ST_OK;
}

static st_status pc_add_compliance(st_component *self, const st_cjacobian *J, double *W,
                                   size_t dim, st_error *err)
{
    precomputed *p = (precomputed *)self;
    if (!p->C)
        ST_TRY(precompute(p, err));
    const st_mstate *ms = p->ms;
    unsigned d = ms->type->deriv_size;
    size_t n = p->nrows;
    for (size_t i = 0; i < J->nrows; i++) {
        if (!corr_row_on(J, i, ms))
            continue;
        /* f = C (row i)^T, then W_ji += row_j . f. */
        memset(p->f, 0, n * sizeof *p->f);
        for (size_t t = st_cjac_row_begin(J, i); t < J->row_end[i]; t++) {
            const st_cterm *c = &J->terms[t];
            if (c->ms != ms)
                continue;
            for (unsigned k = 0; k < d; k++) {
                if (c->d[k] == 0.0)
                    continue;
                size_t col = c->point * d + k;
                for (size_t r = 0; r < n; r++)
                    p->f[r] += p->C[r * n + col] * c->d[k];
            }
        }
        for (size_t j = 0; j < J->nrows; j++)
            if (corr_row_on(J, j, ms))
                W[j * dim + i] += corr_row_dot(J, j, ms, p->f);
        if (p->regularization != 0.0)
            W[i * dim + i] += p->regularization;
    }
    return ST_OK;
}

static st_status pc_apply(st_component *self, const st_cjacobian *J, const double *lambda,
                          st_error *err)
{
    precomputed *p = (precomputed *)self;
    if (!p->C)
        ST_TRY(precompute(p, err));
    st_mstate *ms = p->ms;
    size_t n = p->nrows;
    double dt = corr_dt(self, ms);
    corr_jt_lambda(J, lambda, ms, p->f);
    double *v = ms->velocity.p, *dx = p->dx;
    for (size_t r = 0; r < n; r++) {
        double s = 0.0;
        for (size_t k = 0; k < n; k++)
            s += p->C[r * n + k] * p->f[k];
        dx[r] = s;
    }
    ms->type->add_deriv(ms->position.p, ms->position.p, dx, 1.0, ms->n);
    for (size_t r = 0; v && r < n; r++)
        v[r] += dx[r] / dt;
    return ST_OK;
}

static const st_ccorrection_ops precomputed_ops = {
    .struct_size = sizeof(st_ccorrection_ops),
    .add_compliance = pc_add_compliance,
    .apply_correction = pc_apply,
};

static const char *const precomputed_templates[] = {"Vec3d", "Vec1d", "Rigid3d", NULL};

/* The compliance, once computed (at the first constraint, from the state
 * of that step): a resumed run keeps it rather than computing it from the
 * state it resumes at. */
static st_status pc_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    precomputed *p = (precomputed *)self;
    bool have = p->C != NULL;
    ST_TRY(st_checkpoint_data(ck, &have, sizeof have, err));
    ST_TRY(st_checkpoint_data(ck, &p->loaded, sizeof p->loaded, err));
    if (!have) {
        if (st_checkpoint_reading(ck)) {
            st_free(p->C);
            p->C = NULL;
        }
        return ST_OK;
    }
    size_t n = p->nrows * p->nrows;
    if (!p->C && !(p->C = st_malloc((n ? n : 1) * sizeof *p->C)))
        return st_error_set(err, ST_ENOMEM, "out of memory for the compliance");
    return st_checkpoint_data(ck, p->C, n * sizeof *p->C, err);
}

static const st_checkpoint_ops pc_checkpoint_ops = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = pc_checkpoint,
};

const st_class precomputed_constraint_correction_class = {
    .struct_size = sizeof(st_class),
    .name = "PrecomputedConstraintCorrection",
    .category = "ConstraintCorrection",
    .description = "Component precomputing constraint forces within a simulated body using the "
                   "compliance method. It approximates the compliance matrix by a precomputed "
                   "matrix inverse.",
    .instance_size = sizeof(precomputed),
    .fields = precomputed_fields,
    .init = pc_init,
    .cleanup = pc_cleanup,
    .on_event = pc_on_event,
    .templates = precomputed_templates,
    .constraint_correction = &precomputed_ops,
    .checkpoint = &pc_checkpoint_ops,
};
