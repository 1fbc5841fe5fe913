/* precomputed_linear_solver.c - PrecomputedLinearSolver: SOFA's solver that
 * inverts the first system matrix once and reuses the inverse for every
 * later step (the matrix is never assembled again): at the first
 * set_system, the matrix is factored (simplicial LL^T, as SOFA's
 * EigenSimplicialLLT) and its dense inverse built column by column; every
 * solve is the dense product x = A0^-1 b. With use_file, the inverse is
 * read from, or else written to, SOFA's cache file
 * "<node name>-<size>-<dt>.comp" in the working directory: the n x n
 * doubles of A0^-1 times the ODE solver's position integration factor,
 * row-major, raw (SOFA's format). Dense: for small systems. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "direct_common.h"

typedef struct precomputed {
    st_component base;
    bool jmjt_twostep;             /* "jmjt_twostep" (ignored) */
    bool use_file;                 /* "use_file" */
    bool parallel_inverse;         /* "parallelInverseProduct" (ignored) */
    st_component *linear_system;   /* "linearSystem" (ignored) */
    char *file;                    /* "file" (settee, output): the cache file used */
    /* Runtime. */
    st_system *sys;
    st_matrix *m;
    direct_chol ch;
    size_t n;
    double *minv;                  /* n x n, row-major */
    double *e, *col;               /* unit vector and column, n each */
    bool ready;
} precomputed;

static const st_field pre_fields[] = {
    ST_IGNORED(precomputed, jmjt_twostep, "jmjt_twostep", ST_T_BOOL, bool, "true",
               "Use two step algorithm to compute JMinvJt (constraint correction only; settee "
               "has no constraint correction using it)"),
    ST_BOOL(precomputed, use_file, "use_file", "true",
            "Dump system matrix in a file (SOFA's cache <node>-<size>-<dt>.comp in the working "
            "directory, read back when present)"),
    DIRECT_F_MATRIX_SOLVER(precomputed),
    ST_OUTPUT(precomputed, file, "file", ST_T_STRING, char *,
              "The cache file read or written at the first step (settee); empty without "
              "use_file"),
    ST_FIELD_END};

static void pre_free(precomputed *s)
{
    direct_chol_finish(&s->ch);
    st_matrix_destroy(&s->m);
    st_free(s->minv);
    st_free(s->e);
    st_free(s->col);
    s->minv = s->e = s->col = NULL;
    s->ready = false;
}

static st_status pre_bind(st_component *self, st_system *sys, st_error *err)
{
    precomputed *s = (precomputed *)self;
    pre_free(s);
    s->sys = sys;
    s->n = sys->size;
    ST_TRY(st_matrix_create(sys, &s->m, err));
    size_t n = s->n ? s->n : 1;
    s->minv = st_malloc(n * n * sizeof *s->minv);
    s->e = st_calloc(n, sizeof *s->e);
    s->col = st_malloc(n * sizeof *s->col);
    if (!s->minv || !s->e || !s->col)
        return st_component_error(self, NULL, err, ST_ENOMEM,
                                  "out of memory for the dense %zux%zu inverse", s->n, s->n);
    ST_TRY(direct_chol_start(&s->ch, DIRECT_ORDER_METIS, false, self, err));
    s->ch.simplicial = true;
    return ST_OK;
}

/* SOFA's factor: the ODE solver's position integration factor (dt for
 * EulerImplicitSolver), 1 when it has none. */
static double integration_factor(const st_system *sys)
{
    const st_component *ode = sys->solver;
    if (ode && ode->cls->odesolver && ode->cls->odesolver->position_integration_factor)
        return ode->cls->odesolver->position_integration_factor(ode, sys->mp.dt);
    return 1.0;
}

static bool read_cache(precomputed *s, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t nn = s->n * s->n;
    bool ok = fread(s->minv, sizeof *s->minv, nn, f) == nn;
    fclose(f);
    return ok;
}

static st_status invert(precomputed *s, const st_csr *a, double fact, st_error *err)
{
    ST_TRY(direct_chol_factor(&s->ch, a, false, &s->base, s->sys->mp.time, err));
    const size_t n = s->n;
    for (size_t j = 0; j < n; j++) {
        if (j > 0)
            s->e[j - 1] = 0.0;
        s->e[j] = 1.0;
        ST_TRY(direct_chol_solve(&s->ch, s->col, s->e, &s->base, err));
        for (size_t i = 0; i < n; i++)
            s->minv[j * n + i] = s->col[i] * fact;
    }
    return ST_OK;
}

static st_status pre_set_system(st_component *self, st_system *sys, double mf, double bf,
                                double kf, st_error *err)
{
    precomputed *s = (precomputed *)self;
    if (s->sys != sys || !s->minv)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    if (s->ready || s->n == 0)
        return ST_OK; /* SOFA: the matrix is assembled and inverted once */
    const double fact = integration_factor(sys);
    char path[512] = "";
    if (s->use_file) {
        snprintf(path, sizeof path, "%s-%zu-%g.comp", st_node_name(self->node), s->n, sys->mp.dt);
        st_free(s->file);
        s->file = st_strdup(path);
    }
    if (!s->use_file || !read_cache(s, path)) {
        ST_TRY(st_matrix_assemble(s->m, sys, mf, bf, kf, err));
        st_csr a;
        st_matrix_csr(s->m, &a);
        ST_TRY(invert(s, &a, fact, err));
        if (s->use_file) {
            FILE *f = fopen(path, "wb");
            size_t nn = s->n * s->n;
            bool ok = f && fwrite(s->minv, sizeof *s->minv, nn, f) == nn;
            if (f && fclose(f) != 0)
                ok = false;
            if (!ok)
                st_component_warn(self, "could not write the cache file '%s'", path);
        }
    } else {
        st_component_info(self, "file '%s' with compliance being loaded.", path);
    }
    const size_t nn = s->n * s->n;
    for (size_t k = 0; k < nn; k++)
        s->minv[k] /= fact;
    direct_chol_finish(&s->ch); /* the factor is no longer needed */
    st_matrix_destroy(&s->m);
    s->ready = true;
    return ST_OK;
}

static st_status pre_solve(st_component *self, st_system *sys, double *x, const double *b,
                           st_error *err)
{
    precomputed *s = (precomputed *)self;
    const size_t n = s->n;
    if (n == 0)
        return ST_OK;
    if (!s->ready)
        return st_component_error(self, NULL, err, ST_ESTATE,
                                  "solve called before the matrix was inverted");
    for (size_t i = 0; i < n; i++) {
        const double *row = s->minv + i * n;
        double d = 0.0;
        for (size_t j = 0; j < n; j++)
            d += row[j] * b[j];
        x[i] = d;
    }
    return ST_OK;
}

static void pre_cleanup(st_component *self) { pre_free((precomputed *)self); }

static const st_linsolver_ops pre_ops = {
    .struct_size = sizeof(st_linsolver_ops),
    .bind = pre_bind,
    .set_system = pre_set_system,
    .solve = pre_solve,
};

/* The inverse is of the first step's matrix: a resume goes on with the
 * saved one (n x n doubles), never one of the restored state's matrix. */
static st_status pre_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    precomputed *s = (precomputed *)self;
    ST_TRY(st_checkpoint_data(ck, &s->ready, sizeof s->ready, err));
    if (!s->ready)
        return ST_OK;
    uint64_t n = s->n;
    ST_TRY(st_checkpoint_data(ck, &n, sizeof n, err));
    if (n != s->n || (s->n && !s->minv)) {
        s->ready = false;
        return st_component_error(self, NULL, err, ST_EINVAL,
                                  "the checkpoint holds a %" PRIu64 "x%" PRIu64
                                  " inverse, this system is %zux%zu",
                                  n, n, s->n, s->n);
    }
    ST_TRY(st_checkpoint_data(ck, s->minv, s->n * s->n * sizeof *s->minv, err));
    if (st_checkpoint_reading(ck)) {
        direct_chol_finish(&s->ch);
        st_matrix_destroy(&s->m);
    }
    return ST_OK;
}

static const st_checkpoint_ops pre_checkpoint_ops = {.struct_size = sizeof(st_checkpoint_ops),
                                                     .transfer = pre_checkpoint};

const st_class precomputed_linear_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "PrecomputedLinearSolver",
    .category = "LinearSolver",
    .description = "Linear system solver based on a precomputed inverse matrix: the first "
                   "system matrix is inverted once (dense) and reused for every step",
    .instance_size = sizeof(precomputed),
    .fields = pre_fields,
    .cleanup = pre_cleanup,
    .linsolver = &pre_ops,
    .checkpoint = &pre_checkpoint_ops,
};
