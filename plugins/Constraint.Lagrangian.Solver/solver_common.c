/* solver_common.c - SOFA's built constraint solve, shared by
 * GenericConstraintSolver and BlockGaussSeidelConstraintSolver:
 *   1. the constraint models of the scene (active nodes, scene order) write
 *      their rows of J and their violations at the free positions (dfree);
 *      rows on mapped states are taken down to the independent states
 *      through the mappings' J^T (st_system_apply_jt); J's rows are
 *      projected by the projective constraints of the systems
 *      they act on (SOFA's applyProjectiveConstraintOnConstraintMatrix: a
 *      fixed point has no column in J), except for LCPConstraintSolver,
 *      which in SOFA keeps them (keep_fixed_rows);
 *   2. each constraint correction adds J C J^T to the dense W, then
 *      regularizationTerm is added to the diagonal;
 *   3. projected block Gauss-Seidel as SOFA's BlockGaussSeidelConstraintSolver:
 *      per block d = dfree + W lambda on its rows, the model's resolution
 *      updates lambda, the error is the change |W_bb (lambda - lambda_old)|,
 *      tolerance scaled by the number of rows (scaleTolerance), SOR;
 *   4. the models keep lambda (warm start), the corrections move the states.
 * Buffers grow when the problem grows and are kept: a steady problem
 * allocates nothing after its first step. */
#include <math.h>
#include <string.h>

#include "solver_common.h"

/* LAPACK (Fortran interface). */
extern void dgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, double *a,
                    const int *lda, double *s, double *u, const int *ldu, double *vt,
                    const int *ldvt, double *work, const int *lwork, int *info);

/* SOFA's BuiltConstraintSolver with useSVDForRegularization: W = U S V^T;
 * the singular values below svdSingularValueNullSpaceCriteriaFactor times
 * the largest span the null space; a row whose coefficient in one of those
 * right singular vectors exceeds svdSingularVectorNullSpaceCriteriaFactor
 * in absolute value belongs to antagonist constraints and gets
 * regularizationTerm on its diagonal; the other rows keep W as it is. */
static st_status svd_regularize(lagrange_solver *s, size_t n, st_error *err)
{
    if (n > 46340)
        return st_component_error(&s->base, "useSVDForRegularization", err, ST_EINVAL,
                                  "%zu constraint rows: too many for a dense SVD", n);
    int ni = (int)n, one = 1, info = 0;
    if (n > s->svd_cap) {
        double *a = st_realloc(s->svd_a, n * n * sizeof *a);
        if (a)
            s->svd_a = a;
        double *sv = st_realloc(s->svd_s, n * sizeof *sv);
        if (sv)
            s->svd_s = sv;
        double *vt = st_realloc(s->svd_vt, n * n * sizeof *vt);
        if (vt)
            s->svd_vt = vt;
        bool *nl = st_realloc(s->svd_null, n * sizeof *nl);
        if (nl)
            s->svd_null = nl;
        if (!a || !sv || !vt || !nl)
            return st_error_set(err, ST_ENOMEM, "out of memory for the SVD of W (%zu rows)", n);
        double q = 0.0, u = 0.0;
        int query = -1;
        dgesvd_("N", "A", &ni, &ni, s->svd_a, &ni, s->svd_s, &u, &one, s->svd_vt, &ni, &q,
                &query, &info);
        int lw = info == 0 && q > 1.0 ? (int)q : 5 * ni;
        double *w = st_realloc(s->svd_work, (size_t)lw * sizeof *w);
        if (!w)
            return st_error_set(err, ST_ENOMEM, "out of memory for the SVD of W (%zu rows)", n);
        s->svd_work = w;
        s->svd_lwork = lw;
        s->svd_cap = n;
    }
    /* W is symmetric: its row-major copy is itself in column-major. */
    memcpy(s->svd_a, s->W, n * n * sizeof *s->svd_a);
    double u = 0.0;
    dgesvd_("N", "A", &ni, &ni, s->svd_a, &ni, s->svd_s, &u, &one, s->svd_vt, &ni, s->svd_work,
            &s->svd_lwork, &info);
    if (info != 0)
        return st_component_error(&s->base, "useSVDForRegularization", err, ST_ESOLVER,
                                  "LAPACK dgesvd of the %zux%zu compliance W failed (info %d)",
                                  n, n, info);
    const double *sv = s->svd_s, *vt = s->svd_vt;
    size_t begin = n;
    for (size_t i = 0; i < n; i++)
        if (fabs(sv[i]) < fabs(sv[0]) * s->svd_value_factor) {
            begin = i;
            break;
        }
    memset(s->svd_null, 0, n * sizeof *s->svd_null);
    for (size_t i = begin; i < n; i++)     /* V's column i is V^T's row i */
        for (size_t j = 0; j < n; j++)
            if (fabs(vt[i + j * n]) > s->svd_vector_factor)
                s->svd_null[j] = true;
    for (size_t j = 0; j < n; j++)
        if (s->svd_null[j])
            s->W[j * n + j] += s->regularization;
    return ST_OK;
}

static bool is_constraint(const st_component *c)
{
    return ST_CLASS_HAS(c->cls, constraint) && c->cls->constraint;
}

static bool is_correction(const st_component *c)
{
    return ST_CLASS_HAS(c->cls, constraint_correction) && c->cls->constraint_correction;
}

static st_status push(st_component ***list, size_t *n, size_t *cap, st_component *c,
                      st_error *err)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 8;
        st_component **p = st_realloc(*list, nc * sizeof *p);
        if (!p)
            return st_error_set(err, ST_ENOMEM, "out of memory listing constraints");
        *list = p;
        *cap = nc;
    }
    (*list)[(*n)++] = c;
    return ST_OK;
}

static st_status collect(lagrange_solver *s, st_node *n, st_error *err)
{
    if (!st_node_activated(n))
        return ST_OK;
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        if (is_constraint(c))
            ST_TRY(push(&s->cons, &s->ncons, &s->capcons, c, err));
        if (is_correction(c))
            ST_TRY(push(&s->corr, &s->ncorr, &s->capcorr, c, err));
    }
    for (size_t i = 0; i < st_node_child_count(n); i++)
        ST_TRY(collect(s, st_node_child(n, i), err));
    return ST_OK;
}

static st_status grow(void **p, size_t bytes, st_error *err)
{
    void *q = st_realloc(*p, bytes ? bytes : 1);
    if (!q)
        return st_error_set(err, ST_ENOMEM, "out of memory sizing the constraint problem");
    *p = q;
    return ST_OK;
}

/* Sizes every buffer for dim rows and nterms Jacobian terms. */
static st_status reserve(lagrange_solver *s, size_t dim, size_t nterms, st_error *err)
{
    if (dim > s->capdim) {
        ST_TRY(grow((void **)&s->W, dim * dim * sizeof *s->W, err));
        ST_TRY(grow((void **)&s->dfree, dim * sizeof *s->dfree, err));
        ST_TRY(grow((void **)&s->lambda, dim * sizeof *s->lambda, err));
        ST_TRY(grow((void **)&s->d, dim * sizeof *s->d, err));
        ST_TRY(grow((void **)&s->tmp, dim * sizeof *s->tmp, err));
        ST_TRY(grow((void **)&s->old, dim * sizeof *s->old, err));
        ST_TRY(grow((void **)&s->blocks, dim * sizeof *s->blocks, err));
        ST_TRY(grow((void **)&s->J.row_end, dim * sizeof *s->J.row_end, err));
        s->capdim = s->J.caprows = dim;
    }
    if (nterms > s->J.capterms) {
        ST_TRY(grow((void **)&s->J.terms, nterms * sizeof *s->J.terms, err));
        s->J.capterms = nterms;
    }
    return ST_OK;
}

/* The scratch vector of a system (allocated the first time it is met; the
 * solver's own memory, not the system's, so that the system's list of
 * scratch vectors, which checkpoints save, does not change during a run). */
static st_status scratch_of(lagrange_solver *s, st_system *sys, double **out, st_error *err)
{
    for (size_t i = 0; i < s->npsys; i++)
        if (s->psys[i] == sys) {
            *out = s->pvec[i];
            return ST_OK;
        }
    ST_TRY(grow((void **)&s->psys, (s->npsys + 1) * sizeof *s->psys, err));
    ST_TRY(grow((void **)&s->pvec, (s->npsys + 1) * sizeof *s->pvec, err));
    s->pvec[s->npsys] = st_calloc(sys->size_all ? sys->size_all : 1, sizeof(double));
    if (!s->pvec[s->npsys])
        return st_error_set(err, ST_ENOMEM, "out of memory");
    s->psys[s->npsys] = sys;
    *out = s->pvec[s->npsys++];
    return ST_OK;
}

/* The first term of row terms [b, e) on sys is t: scatters the row's terms
 * on sys into sys's scratch vector (*vec). False when an earlier term of
 * the row was on sys already (the row's part on sys is done). */
static st_status scatter_system(lagrange_solver *s, const st_cjacobian *J, size_t b, size_t t,
                                size_t e, double **vec, bool *first, st_error *err)
{
    st_system *sys = J->terms[t].ms->system;
    *first = true;
    for (size_t u = b; u < t && *first; u++)
        *first = J->terms[u].ms->system != sys;
    if (!*first)
        return ST_OK;
    ST_TRY(scratch_of(s, sys, vec, err));
    for (size_t u = t; u < e; u++) {
        const st_cterm *c = &J->terms[u];
        if (c->ms->system != sys)
            continue;
        unsigned dsz = c->ms->type->deriv_size;
        double *p = st_slice(*vec, c->ms) + c->point * dsz;
        for (unsigned k = 0; k < dsz; k++)
            p[k] += c->d[k];
    }
    return ST_OK;
}

/* Appends a term to the last row of Jm, growing it. */
static st_status jm_add(lagrange_solver *s, st_mstate *ms, size_t point, const double *d,
                        st_error *err)
{
    st_cjacobian *J = &s->Jm;
    if (J->nterms == J->capterms) {
        size_t cap = J->capterms ? 2 * J->capterms : 64;
        ST_TRY(grow((void **)&J->terms, cap * sizeof *J->terms, err));
        J->capterms = cap;
    }
    st_cjac_add(J, ms, point, d, ms->type->deriv_size);
    return ST_OK;
}

static bool on_mapped(const st_cterm *t) { return t->ms->system && t->ms->mapped; }

/* When a row acts on a mapped state: Jm gets every row, the terms of each
 * system that a mapped term belongs to replaced by J^T of the mappings on
 * that system's independent states (non-zero points only). */
static st_status map_rows(lagrange_solver *s, st_error *err)
{
    st_cjacobian *J = &s->J;
    bool any = false;
    for (size_t t = 0; t < J->nterms && !any; t++)
        any = on_mapped(&J->terms[t]);
    s->Jw = J;
    if (!any)
        return ST_OK;
    if (s->Jm.caprows < J->nrows) {
        ST_TRY(grow((void **)&s->Jm.row_end, J->nrows * sizeof *s->Jm.row_end, err));
        s->Jm.caprows = J->nrows;
    }
    s->Jm.nrows = s->Jm.nterms = 0;
    for (size_t r = 0; r < J->nrows; r++) {
        size_t b = st_cjac_row_begin(J, r), e = J->row_end[r];
        st_cjac_row(&s->Jm);
        for (size_t t = b; t < e; t++) {
            const st_cterm *c = &J->terms[t];
            st_system *sys = c->ms->system;
            bool mapped_sys = false;
            for (size_t u = b; u < e && !mapped_sys; u++)
                mapped_sys = on_mapped(&J->terms[u]) && J->terms[u].ms->system == sys;
            if (!mapped_sys) {
                ST_TRY(jm_add(s, c->ms, c->point, c->d, err));
                continue;
            }
            double *vec;
            bool first;
            ST_TRY(scatter_system(s, J, b, t, e, &vec, &first, err));
            if (!first)
                continue;
            st_system_apply_jt(sys, vec);
            for (size_t i = 0; i < sys->nindep; i++) {
                st_mstate *ms = sys->states[i];
                unsigned dsz = ms->type->deriv_size;
                const double *p = st_slice(vec, ms);
                for (size_t pt = 0; pt < ms->n; pt++) {
                    bool nz = false;
                    for (unsigned k = 0; k < dsz && !nz; k++)
                        nz = p[pt * dsz + k] != 0.0;
                    if (nz)
                        ST_TRY(jm_add(s, ms, pt, p + pt * dsz, err));
                }
            }
            memset(vec, 0, sys->size_all * sizeof *vec);
        }
    }
    s->Jw = &s->Jm;
    return ST_OK;
}

/* Each row of J through the projective constraints of the systems it acts
 * on: scattered into the system's scratch vector, projected, read back,
 * the scratch cleared again. Terms on states no system integrates are left
 * as they are. Runs after map_rows: no term is on a mapped state. */
static st_status project_rows(lagrange_solver *s, st_error *err)
{
    st_cjacobian *J = s->Jw;
    for (size_t r = 0; r < J->nrows; r++) {
        size_t b = st_cjac_row_begin(J, r), e = J->row_end[r];
        for (size_t t = b; t < e; t++) {
            st_system *sys = J->terms[t].ms->system;
            if (!sys)
                continue;
            double *vec;
            bool first;
            ST_TRY(scatter_system(s, J, b, t, e, &vec, &first, err));
            if (!first)
                continue;
            st_system_project_response(sys, vec);
            /* Read back: the first term of each point takes the projected
             * value, later terms on the same point get zero. */
            for (size_t u = t; u < e; u++) {
                st_cterm *c = &J->terms[u];
                if (c->ms->system != sys)
                    continue;
                unsigned dsz = c->ms->type->deriv_size;
                double *p = st_slice(vec, c->ms) + c->point * dsz;
                for (unsigned k = 0; k < dsz; k++) {
                    c->d[k] = p[k];
                    p[k] = 0.0;
                }
            }
        }
    }
    return ST_OK;
}

/* A solve in the VEL order needs every model and correction to know it. */
static st_status check_order(lagrange_solver *s, st_corder order, st_error *err)
{
    if (order == ST_CORDER_POS_AND_VEL)
        return ST_OK;
    for (size_t i = 0; i < s->ncons + s->ncorr; i++) {
        st_component *c = i < s->ncons ? s->cons[i] : s->corr[i - s->ncons];
        bool ok;
        if (i < s->ncons) {
            const st_constraint_ops *o = c->cls->constraint;
            ok = o->struct_size >= offsetof(st_constraint_ops, velocity_order) +
                                       sizeof o->velocity_order &&
                 o->velocity_order;
        } else {
            const st_ccorrection_ops *o = c->cls->constraint_correction;
            ok = o->struct_size >= offsetof(st_ccorrection_ops, velocity_order) +
                                       sizeof o->velocity_order &&
                 o->velocity_order;
        }
        if (!ok) {
            char path[ST_ERROR_PATH_MAX];
            return st_component_error(&s->base, NULL, err, ST_EINVAL,
                                      "solveVelocityConstraintFirst: %s '%s' cannot solve "
                                      "velocity constraints in settee yet (SOFA's VEL "
                                      "constraint order)",
                                      c->cls->name, st_component_path(c, path, sizeof path));
        }
    }
    return ST_OK;
}

/* Steps 1 and 2: J, dfree, W. Returns the number of rows in *dim. */
static st_status build(lagrange_solver *s, st_node *root, st_corder order, size_t *dim,
                       st_error *err)
{
    s->ncons = s->ncorr = 0;
    ST_TRY(collect(s, root, err));
    ST_TRY(check_order(s, order, err));
    s->J.order = s->Jm.order = order;
    size_t rows = 0, terms = 0;
    for (size_t i = 0; i < s->ncons; i++) {
        size_t r = 0, t = 0;
        s->cons[i]->cls->constraint->size(s->cons[i], &r, &t);
        rows += r;
        terms += t;
    }
    if (s->ncons > s->capfirst) {
        ST_TRY(grow((void **)&s->first, s->ncons * sizeof *s->first, err));
        s->capfirst = s->ncons;
    }
    ST_TRY(reserve(s, rows, terms, err));
    s->J.nrows = s->J.nterms = 0;
    s->nblocks = 0;
    for (size_t i = 0; i < s->ncons; i++) {
        st_component *c = s->cons[i];
        const st_constraint_ops *ops = c->cls->constraint;
        size_t first = s->J.nrows;
        s->first[i] = first;
        ST_TRY(ops->build(c, &s->J, s->dfree, err));
        unsigned nb = ops->block_rows ? ops->block_rows(c) : 1;
        if (nb == 0)
            nb = 1;
        for (size_t r = first; r < s->J.nrows; r += nb) {
            s->blocks[s->nblocks].owner = c;
            s->blocks[s->nblocks].row = r;
            s->blocks[s->nblocks].nb = nb;
            s->nblocks++;
        }
    }
    if (s->J.nrows != rows)
        return st_component_error(&s->base, NULL, err, ST_EINVAL,
                                  "the constraint models wrote %zu rows, announced %zu",
                                  s->J.nrows, rows);
    *dim = rows;
    if (rows == 0)
        return ST_OK;
    ST_TRY(map_rows(s, err));
    if (!s->keep_fixed_rows)
        ST_TRY(project_rows(s, err));
    memset(s->W, 0, rows * rows * sizeof *s->W);
    for (size_t i = 0; i < s->ncorr; i++)
        ST_TRY(s->corr[i]->cls->constraint_correction->add_compliance(s->corr[i], s->Jw, s->W,
                                                                       rows, err));
    if (s->regularization > 2.220446049250313e-16) {
        if (s->use_svd && s->method != lagrange_unbuilt_gauss_seidel)
            ST_TRY(svd_regularize(s, rows, err));
        else
            for (size_t i = 0; i < rows; i++)
                s->W[i * rows + i] += s->regularization;
    }
    s->wruns_valid = false;
    return ST_OK;
}

/* W's non-zero runs (lagrange_solver.wrow, wrun); false when out of memory
 * (the sweeps then read whole rows). A contact's row of W is zero wherever
 * the other row's contact shares no degree of freedom with it and the
 * compliance is per node (UncoupledConstraintCorrection): most of W. */
static bool find_runs(lagrange_solver *s, size_t dim)
{
    if (s->wrow_cap < dim + 1) {
        size_t *p = st_realloc(s->wrow, (dim + 1) * sizeof *p);
        if (!p)
            return false;
        s->wrow = p;
        s->wrow_cap = dim + 1;
    }
    size_t n = 0;
    for (size_t r = 0; r < dim; r++) {
        const double *w = s->W + r * dim;
        s->wrow[r] = n;
        for (size_t k = 0; k < dim;) {
            if (w[k] == 0.0) {
                k++;
                continue;
            }
            size_t e = k + 1;
            while (e < dim && w[e] != 0.0)
                e++;
            if (2 * n + 2 > s->wrun_cap) {
                size_t cap = s->wrun_cap ? 2 * s->wrun_cap : 4 * dim + 2;
                size_t *p = st_realloc(s->wrun, cap * sizeof *p);
                if (!p)
                    return false;
                s->wrun = p;
                s->wrun_cap = cap;
            }
            s->wrun[2 * n] = k;
            s->wrun[2 * n + 1] = e;
            n++;
            k = e;
        }
    }
    s->wrow[dim] = n;
    return true;
}

/* One sweep of SOFA's gaussSeidel_increment. Each row's d is dfree plus
 * W's row times lambda, summed in column order over W's non-zero entries
 * (a zero entry adds a zero: skipping it changes no bit of d). */
static void sweep(lagrange_solver *s, size_t dim, double tol, bool *verified, double *error)
{
    const double *W = s->W;
    if (!s->wruns_valid)
        s->wruns_valid = find_runs(s, dim);
    const bool runs = s->wruns_valid;
    for (size_t b = 0; b < s->nblocks; b++) {
        const lagrange_block *bk = &s->blocks[b];
        size_t j = bk->row;
        unsigned nb = bk->nb;
        double *old = s->old; /* blocks have any number of rows */
        for (unsigned l = 0; l < nb; l++)
            old[l] = s->lambda[j + l];
        for (unsigned l = 0; l < nb; l++) {
            const double *w = W + (j + l) * dim;
            double v = s->dfree[j + l];
            if (runs) {
                for (size_t q = s->wrow[j + l]; q < s->wrow[j + l + 1]; q++)
                    for (size_t k = s->wrun[2 * q]; k < s->wrun[2 * q + 1]; k++)
                        v += w[k] * s->lambda[k];
            } else {
                for (size_t k = 0; k < dim; k++)
                    v += w[k] * s->lambda[k];
            }
            s->d[j + l] = v;
        }
        bk->owner->cls->constraint->resolution(bk->owner, j, W, dim, s->d, s->lambda);
        double cerr = 0.0;
        if (nb > 1) {
            for (unsigned l = 0; l < nb; l++) {
                double line = 0.0;
                for (unsigned m = 0; m < nb; m++) {
                    double e = W[(j + l) * dim + j + m] * (s->lambda[j + m] - old[m]);
                    line += e * e;
                }
                line = sqrt(line);
                if (line > tol)
                    *verified = false;
                cerr += line;
            }
        } else {
            cerr = fabs(W[j * dim + j] * (s->lambda[j] - old[0]));
            if (cerr > tol)
                *verified = false;
        }
        *error += cerr;
    }
}

void lagrange_solver_sweep(lagrange_solver *s, size_t dim, double tol, bool *verified,
                           double *error)
{
    sweep(s, dim, tol, verified, error);
}

double lagrange_solver_tolerance(const lagrange_solver *s, size_t dim)
{
    double tol = s->tolerance;
    if (s->scale_tolerance && !s->all_verified)
        tol *= (double)dim;
    return tol;
}

void lagrange_solver_init_resolutions(lagrange_solver *s, size_t dim)
{
    memset(s->lambda, 0, dim * sizeof *s->lambda);
    for (size_t i = 0; i < s->ncons; i++) {
        const st_constraint_ops *ops = s->cons[i]->cls->constraint;
        if (ops->init_resolution)
            ops->init_resolution(s->cons[i], s->first[i], s->W, dim, s->lambda);
    }
}

int lagrange_solver_iterate(lagrange_solver *s, size_t dim, double tol, double *error,
                            bool *converged)
{
    *error = 0.0;
    *converged = false;
    int iters = 0;
    for (int it = 0; it < s->max_it; it++) {
        iters++;
        bool verified = true;
        if (s->sor != 1.0)
            memcpy(s->tmp, s->lambda, dim * sizeof *s->tmp);
        *error = 0.0;
        sweep(s, dim, tol, &verified, error);
        if (s->sor != 1.0)
            for (size_t j = 0; j < dim; j++)
                s->lambda[j] = s->sor * s->lambda[j] + (1.0 - s->sor) * s->tmp[j];
        if (s->all_verified ? verified : *error < tol) {
            *converged = true;
            break;
        }
    }
    return iters;
}

/* Step 3, the projected block Gauss-Seidel from the warm starts. */
static bool gauss_seidel(lagrange_solver *s, size_t dim, lagrange_outcome *out)
{
    out->tol = lagrange_solver_tolerance(s, dim);
    lagrange_solver_init_resolutions(s, dim);
    out->done = lagrange_solver_iterate(s, dim, out->tol, &out->error, &out->converged);
    /* SOFA's GenericConstraintProblem::result_output reports iterations + 1. */
    out->iterations = out->done + 1;
    return true;
}

/* The end of a solve: the outputs, the report of a failed solve (when a
 * run of unconverged solves starts, not at every step of it;
 * currentIterations and currentError tell every step), the models keep
 * their multipliers. Returns whether it converged. */
static bool finish(lagrange_solver *s, const lagrange_outcome *o)
{
    s->current_error = o->error;
    s->current_iterations = o->iterations;
    if (!o->converged && !s->failing)
        st_component_warn(&s->base,
                          "%s after %d iterations (%s): error %g, tolerance %g (reported "
                          "again only after a solve converged)",
                          o->failure ? o->failure : "no convergence", o->done,
                          o->max_field ? o->max_field : "maxIterations", o->error, o->tol);
    s->failing = !o->converged;
    for (size_t i = 0; i < s->ncons; i++) {
        const st_constraint_ops *ops = s->cons[i]->cls->constraint;
        if (ops->store)
            ops->store(s->cons[i], s->first[i], s->lambda, o->converged);
    }
    return o->converged;
}

static st_status solve_constraint_order(st_component *self, st_node *root, double dt,
                                        st_corder order, st_error *err)
{
    lagrange_solver *s = (lagrange_solver *)self;
    size_t dim = 0;
    double t0 = st_time_now();
    ST_TRY(build(s, root, order, &dim, err));
    double t1 = st_time_now();
    s->time_build = t1 - t0;
    s->current_num_constraints = (int)dim;
    s->current_num_groups = (int)s->nblocks;
    s->last_dim = dim;
    st_node_send_event(self->node, ST_EVENT_BUILD_CONSTRAINT_SYSTEM_END, dt);
    if (dim == 0) {
        s->current_error = 0.0;
        s->current_iterations = 0;
        s->converged = true;
    } else {
        lagrange_outcome o = {0};
        bool solved = s->method ? s->method(s, dim, &o) : gauss_seidel(s, dim, &o);
        s->converged = solved && finish(s, &o);
    }
    s->time_correction = 0.0;
    st_node_send_event(self->node, ST_EVENT_SOLVE_CONSTRAINT_SYSTEM_END, dt);
    double t2 = st_time_now();
    s->time_solve = t2 - t1;
    if (s->compute_constraint_forces) {
        if (s->constraint_forces.n != dim)
            ST_TRY(st_array_resize(&s->constraint_forces, ST_T_REALS, dim, err));
        if (dim)
            memcpy(s->constraint_forces.p, s->lambda, dim * sizeof(double));
        const st_field *f = st_component_field(self, "constraintForces");
        if (f)
            st_component_touch(self, f);
    }
    if (dim == 0)
        return ST_OK;
    for (size_t i = 0; i < s->ncorr; i++)
        ST_TRY(s->corr[i]->cls->constraint_correction->apply_correction(s->corr[i], s->Jw,
                                                                         s->lambda, err));
    s->time_correction = st_time_now() - t2;
    return ST_OK;
}

st_status lagrange_solver_init(st_component *self, st_error *err)
{
    lagrange_solver *s = (lagrange_solver *)self;
    if (s->tolerance < 0.0)
        return st_component_error(self, "tolerance", err, ST_EINVAL,
                                  "tolerance: %g is negative", s->tolerance);
    return ST_OK;
}

void lagrange_solver_cleanup(st_component *self)
{
    lagrange_solver *s = (lagrange_solver *)self;
    st_free(s->cons);
    st_free(s->corr);
    st_free(s->first);
    st_free(s->blocks);
    st_free(s->J.row_end);
    st_free(s->J.terms);
    st_free(s->Jm.row_end);
    st_free(s->Jm.terms);
    st_free(s->W);
    st_free(s->wrow);
    st_free(s->wrun);
    s->wrow = s->wrun = NULL;
    s->wrow_cap = s->wrun_cap = 0;
    s->wruns_valid = false;
    st_free(s->dfree);
    st_free(s->lambda);
    st_free(s->d);
    st_free(s->tmp);
    st_free(s->old);
    st_free(s->psys);
    st_free(s->svd_a);
    st_free(s->svd_s);
    st_free(s->svd_vt);
    st_free(s->svd_work);
    st_free(s->svd_null);
    for (size_t i = 0; s->pvec && i < s->npsys; i++)
        st_free(s->pvec[i]);
    st_free(s->pvec);
    memset(&s->cons, 0, sizeof *s - offsetof(lagrange_solver, cons));
}

static st_status solve_constraint(st_component *self, st_node *root, double dt, st_error *err)
{
    return solve_constraint_order(self, root, dt, ST_CORDER_POS_AND_VEL, err);
}

/* The last step's problem, as built and solved above. */
void lagrange_solver_problem(const st_component *self, st_cproblem *out)
{
    const lagrange_solver *s = (const lagrange_solver *)self;
    size_t dim = s->last_dim;
    *out = (st_cproblem){.struct_size = sizeof *out, .dim = dim};
    if (dim == 0 || !s->Jw)
        return;
    out->W = s->W;
    out->dfree = s->dfree;
    out->lambda = s->lambda;
    out->J = &s->J;
    out->Jind = s->Jw;
}

const st_csolver_ops lagrange_solver_ops = {
    .struct_size = sizeof(st_csolver_ops),
    .solve_constraint = solve_constraint,
    .solve_constraint_order = solve_constraint_order,
    .problem = lagrange_solver_problem,
};
