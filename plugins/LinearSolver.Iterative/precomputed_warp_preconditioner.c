/* precomputed_warp_preconditioner.c - PrecomputedWarpPreconditioner:
 * SOFA's preconditioner that inverts the first system matrix A0 once,
 * densely, and then preconditions every later system with that inverse
 * turned by the per-vertex rotations of the node's rotation finder:
 *
 *   x = R A0^-1 R^T b,   R = blockdiag(R(i)),
 *
 * R(i) the rotation of vertex i from the rest shape (the finder's
 * "rotations" output, ../shared/rotation_finder.h, the convention of
 * WarpPreconditioner), the identity with use_rotations false or when the
 * node has no rotation finder (SOFA's error "No rotation defined : use
 * Identity !!", a warning here). The finder is the first corotational
 * force field of the node (TetrahedronFEMForceField,
 * HexahedronFEMForceField, TetrahedralCorotationalFEMForceField).
 *
 * A0^-1, at the first system: with the linearSolver link, column j is the
 * linked solver's solution for the unit vector e_j, its matrix built at the
 * first system's factors (SOFA's loadMatrixWithSolver); without it, the
 * system matrix is assembled here and inverted by a dense Cholesky
 * factorization (SOFA: EigenSimplicialLLT). With use_file (the default)
 * the inverse is read from, or else written to, SOFA's cache file
 * "<node name>-<size>-<dt>.comp" in the working directory: the n x n
 * doubles of A0^-1 times the ODE solver's position integration factor,
 * row by row, raw. Dense: n^2 doubles, for small systems (n <= 8192 here).
 * Its linear system, when linked, must be a PrecomputedMatrixSystem, as in
 * SOFA. share_matrix (SOFA's in-memory sharing between preconditioners of
 * the same cache file) gives the same inverse, recomputed or read. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <unistd.h>

#include "iterative_common.h"
#include "precomputed_warp.h"

#include "../shared/rotation_finder.h"
#include "../../common/regular_file.h"

enum { PW_MAX_N = 8192 };

typedef struct pwarp {
    st_component base;
    bool jmjt_twostep;            /* "jmjt_twostep" (ignored) */
    bool use_file;                /* "use_file" */
    bool share_matrix;            /* "share_matrix" (ignored) */
    bool use_rotations;           /* "use_rotations" */
    double draw_scale;            /* "draw_rotations_scale" (ignored) */
    bool parallel_inverse;        /* "parallelInverseProduct" (ignored) */
    st_component *linear_system;  /* "linearSystem": a PrecomputedMatrixSystem */
    st_component *linear_solver;  /* "linearSolver" */
    char *file;                   /* "file" (settee output) */
    /* Runtime. */
    st_system *sys;
    size_t n;
    double *minv;                 /* n x n, row-major (owned) */
    double *e, *col, *t, *y;      /* system vectors (the system's) */
    st_component *finder;
    st_array *rot;                /* the finder's rotations, 9 per vertex */
    size_t off, np;               /* the finder's state: first scalar, vertices */
    bool ready;
} pwarp;

#define T pwarp
static const st_field pwarp_fields[] = {
    ST_IGNORED(T, jmjt_twostep, "jmjt_twostep", ST_T_BOOL, bool, "true",
               "Use two step algorithm to compute JMinvJt (constraint correction only; settee "
               "has no constraint correction using it)"),
    ST_BOOL(T, use_file, "use_file", "true",
            "Dump system matrix in a file (SOFA's cache <node>-<size>-<dt>.comp in the working "
            "directory, read back when present)"),
    ST_IGNORED(T, share_matrix, "share_matrix", ST_T_BOOL, bool, "true",
               "Share the compliance matrix in memory if they are related to the same file "
               "(settee: each preconditioner computes or reads its own, the same numbers)"),
    ST_LINK(T, linear_solver, "linearSolver", ST_LINK_LINEAR_SOLVER,
            "Link towards the linear solver used to precompute the first matrix (unset: a "
            "dense Cholesky factorization of the assembled matrix)"),
    ST_BOOL(T, use_rotations, "use_rotations", "true",
            "Use Rotations around the preconditioner"),
    ST_IGNORED(T, draw_scale, "draw_rotations_scale", ST_T_REAL, double, "0",
               "Scale rotations in draw function"),
    ST_IGNORED(T, parallel_inverse, "parallelInverseProduct", ST_T_BOOL, bool, "false",
               "Parallelize the computation of the product J*M^{-1}*J^T where M is the matrix "
               "of the linear system and J is any matrix with compatible dimensions"),
    ST_LINK(T, linear_system, "linearSystem", ST_LINK_ANY,
            "The linear system to solve: a PrecomputedMatrixSystem (settee's kernel assembles "
            "the matrix)"),
    ST_OUTPUT(T, file, "file", ST_T_STRING, char *,
              "The cache file read or written at the first system (settee); empty without "
              "use_file"),
    ST_FIELD_END};
#undef T

static bool matrix_free(st_component *c)
{
    const st_field *f = st_component_field(c, "template");
    if (!f || f->type != ST_T_STRING)
        return false;
    const char *t = *(char **)st_component_field_ptr(c, f);
    return t && strcmp(t, "GraphScattered") == 0;
}

static st_status pwarp_init(st_component *self, st_error *err)
{
    pwarp *s = (pwarp *)self;
    if (s->linear_system &&
        strcmp(s->linear_system->cls->name, precomputed_matrix_system_class.name) != 0)
        return st_component_error(self, "linearSystem", err, ST_ELINK,
                                  "This linear solver is designed to work with a "
                                  "PrecomputedMatrixSystem linear system, but a %s was found",
                                  s->linear_system->cls->name);
    if (s->linear_solver) {
        if (s->linear_solver == self ||
            !st_component_has_role(s->linear_solver, ST_ROLE_LINSOLVER))
            return st_component_error(self, "linearSolver", err, ST_ELINK,
                                      "the solver used to precompute must be another linear "
                                      "solver");
        if (matrix_free(s->linear_solver))
            return st_component_error(self, "linearSolver", err, ST_ELINK,
                                      "Cannot use the solver %s because it is templated on "
                                      "GraphScatteredType",
                                      s->linear_solver->name);
    }
    return ST_OK;
}

static void pwarp_free(pwarp *s)
{
    st_free(s->minv);
    s->minv = NULL;
    s->ready = false;
}

/* The node's first rotation finder (SOFA's node->get<RotationFinder>()). */
static st_component *local_finder(pwarp *s)
{
    st_component *local[256];
    size_t n = st_node_find_all(s->base.node, ST_ROLE_ANY, ST_SEARCH_LOCAL, local, 256);
    for (size_t i = 0; i < n && i < 256; i++)
        if (rotfinder_field(local[i]))
            return local[i];
    return NULL;
}

static st_status pwarp_bind(st_component *self, st_system *sys, st_error *err)
{
    pwarp *s = (pwarp *)self;
    pwarp_free(s);
    s->sys = sys;
    s->n = sys->size;
    if (s->n > PW_MAX_N)
        return st_component_error(self, NULL, err, ST_EINVAL,
                                  "the dense inverse of a %zu x %zu system (more than %d "
                                  "unknowns) is too large: use WarpPreconditioner",
                                  s->n, s->n, PW_MAX_N);
    s->minv = st_malloc((s->n ? s->n * s->n : 1) * sizeof *s->minv);
    if (!s->minv)
        return st_component_error(self, NULL, err, ST_ENOMEM,
                                  "out of memory for the dense %zux%zu inverse", s->n, s->n);
    ST_TRY(st_system_vec_alloc(sys, &s->e, err));
    ST_TRY(st_system_vec_alloc(sys, &s->col, err));
    ST_TRY(st_system_vec_alloc(sys, &s->t, err));
    ST_TRY(st_system_vec_alloc(sys, &s->y, err));
    s->finder = NULL;
    s->rot = NULL;
    if (!s->use_rotations)
        return ST_OK;
    s->finder = local_finder(s);
    if (!s->finder) {
        st_component_warn(self, "No rotation defined : only applicable for components "
                                "implementing RotationFinder! (the identity is used)");
        return ST_OK;
    }
    st_mstate *ms = st_component_mstate(s->finder);
    if (!ms || ms->system != sys || ms->mapped || ms->type->deriv_size != 3 ||
        ms->doffset + 3 * ms->n > sys->size)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "the rotation finder '%s' must act on an independent Vec3d "
                                  "state of this solver's system",
                                  s->finder->name);
    s->off = ms->doffset;
    s->np = ms->n;
    return rotfinder_request(s->finder, s->np, &s->rot, err);
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

/* Column by column through the linked solver. */
static st_status invert_with_solver(pwarp *s, double mf, double bf, double kf, st_error *err)
{
    const st_linsolver_ops *ops = s->linear_solver->cls->linsolver;
    ST_TRY(ops->set_system(s->linear_solver, s->sys, mf, bf, kf, err));
    memset(s->e, 0, s->sys->size_all * sizeof *s->e);
    for (size_t j = 0; j < s->n; j++) {
        if (j > 0)
            s->e[j - 1] = 0.0;
        s->e[j] = 1.0;
        memset(s->col, 0, s->sys->size_all * sizeof *s->col);
        ST_TRY(ops->solve(s->linear_solver, s->sys, s->col, s->e, err));
        memcpy(s->minv + j * s->n, s->col, s->n * sizeof *s->minv);
    }
    return ST_OK;
}

extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a,
                    const int *lda, double *b, const int *ldb, int *info);

/* The assembled matrix, densely factored (Cholesky) and inverted. */
static st_status invert_dense(pwarp *s, double mf, double bf, double kf, st_error *err)
{
    st_component *self = &s->base;
    st_matrix *m = NULL;
    ST_TRY(st_matrix_create(s->sys, &m, err));
    st_status st = st_matrix_assemble(m, s->sys, mf, bf, kf, err);
    double *a = NULL;
    const size_t n = s->n;
    if (st == ST_OK) {
        a = st_calloc(n * n, sizeof *a);
        if (!a)
            st = st_component_error(self, NULL, err, ST_ENOMEM, "out of memory (%zu x %zu)", n,
                                    n);
    }
    if (st == ST_OK) {
        st_csr c;
        st_matrix_csr(m, &c);
        for (size_t i = 0; i < n; i++)
            for (int k = c.rowptr[i]; k < c.rowptr[i + 1]; k++)
                a[i * n + (size_t)c.colind[k]] = c.values[k];
        int in = (int)n, info = 0;
        dpotrf_("L", &in, a, &in, &info);
        if (info != 0)
            st = st_component_error(self, NULL, err, ST_ESOLVER,
                                    "the system matrix is not positive definite (LAPACK dpotrf "
                                    "info %d): it cannot be precomputed",
                                    info);
        else {
            memset(s->minv, 0, n * n * sizeof *s->minv);
            for (size_t i = 0; i < n; i++)
                s->minv[i * n + i] = 1.0;
            dpotrs_("L", &in, &in, a, &in, s->minv, &in, &info);
            if (info != 0)
                st = st_component_error(self, NULL, err, ST_ESOLVER, "LAPACK dpotrs info %d",
                                        info);
        }
    }
    st_free(a);
    st_matrix_destroy(&m);
    return st;
}

static bool read_cache(pwarp *s, const char *path)
{
    bool not_regular = false; /* a FIFO or a device there is no cache */
    int fd = regular_open(path, &not_regular);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    size_t nn = s->n * s->n;
    bool ok = fread(s->minv, sizeof *s->minv, nn, f) == nn;
    fclose(f);
    return ok;
}

static st_status precompute(pwarp *s, double mf, double bf, double kf, st_error *err)
{
    st_component *self = &s->base;
    const double fact = integration_factor(s->sys);
    const size_t nn = s->n * s->n;
    char path[512] = "";
    if (s->use_file) {
        snprintf(path, sizeof path, "%s-%zu-%g.comp", st_node_name(self->node), s->n,
                 s->sys->mp.dt);
        st_free(s->file);
        s->file = st_strdup(path);
    }
    if (s->use_file && read_cache(s, path)) {
        st_component_info(self, "file open : %s compliance being loaded", path);
    } else {
        if (s->linear_solver)
            ST_TRY(invert_with_solver(s, mf, bf, kf, err));
        else
            ST_TRY(invert_dense(s, mf, bf, kf, err));
        if (s->use_file) {
            for (size_t k = 0; k < nn; k++)
                s->minv[k] *= fact;
            FILE *f = fopen(path, "wb");
            bool ok = f && fwrite(s->minv, sizeof *s->minv, nn, f) == nn;
            if (f && fclose(f) != 0)
                ok = false;
            if (!ok)
                st_component_warn(self, "could not write the cache file '%s'", path);
            for (size_t k = 0; k < nn; k++)
                s->minv[k] /= fact;
        }
        return ST_OK;
    }
    for (size_t k = 0; k < nn; k++)
        s->minv[k] /= fact;
    return ST_OK;
}

static st_status pwarp_set_system(st_component *self, st_system *sys, double mf, double bf,
                                  double kf, st_error *err)
{
    pwarp *s = (pwarp *)self;
    if (s->sys != sys || !s->minv)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    if (s->finder && s->rot->n != 9 * s->np)
        return st_component_error(self, NULL, err, ST_ESTATE,
                                  "the rotations of '%s' are no longer published (was it "
                                  "re-initialized?)",
                                  s->finder->name);
    if (!s->ready && s->n) {
        ST_TRY(precompute(s, mf, bf, kf, err));
        s->ready = true;
    }
    return ST_OK;
}

/* y = R^T v (transpose) or R v on the finder's vertices; the other scalars
 * copied. */
static void rotate(const pwarp *s, double *y, const double *v, bool transpose)
{
    memcpy(y, v, s->n * sizeof *y);
    const double *rot = s->rot->r;
    for (size_t i = 0; i < s->np; i++) {
        const double *r = rot + 9 * i, *a = v + s->off + 3 * i;
        double *o = y + s->off + 3 * i;
        const double a0 = a[0], a1 = a[1], a2 = a[2];
        if (transpose) {
            o[0] = r[0] * a0 + r[3] * a1 + r[6] * a2;
            o[1] = r[1] * a0 + r[4] * a1 + r[7] * a2;
            o[2] = r[2] * a0 + r[5] * a1 + r[8] * a2;
        } else {
            o[0] = r[0] * a0 + r[1] * a1 + r[2] * a2;
            o[1] = r[3] * a0 + r[4] * a1 + r[5] * a2;
            o[2] = r[6] * a0 + r[7] * a1 + r[8] * a2;
        }
    }
}

static void dense_mul(const pwarp *s, double *x, const double *b)
{
    const size_t n = s->n;
    for (size_t i = 0; i < n; i++) {
        const double *row = s->minv + i * n;
        double d = 0.0;
        for (size_t j = 0; j < n; j++)
            d += row[j] * b[j];
        x[i] = d;
    }
}

static st_status pwarp_solve(st_component *self, st_system *sys, double *x, const double *b,
                             st_error *err)
{
    pwarp *s = (pwarp *)self;
    if (s->sys != sys)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    if (s->n == 0)
        return ST_OK;
    if (!s->ready)
        return st_component_error(self, NULL, err, ST_ESTATE,
                                  "solve called before the matrix was precomputed");
    if (!s->finder) {
        dense_mul(s, x, b);
        return ST_OK;
    }
    rotate(s, s->t, b, true);
    dense_mul(s, s->y, s->t);
    rotate(s, x, s->y, false);
    return ST_OK;
}

static void pwarp_cleanup(st_component *self) { pwarp_free((pwarp *)self); }

static const st_linsolver_ops pwarp_ops = {
    .struct_size = sizeof(st_linsolver_ops),
    .bind = pwarp_bind,
    .set_system = pwarp_set_system,
    .solve = pwarp_solve,
};

/* A resumed run would precompute the inverse at the resumed state, not at
 * the first one: refused. */
static st_status pwarp_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    if (st_checkpoint_reading(ck))
        return st_component_error(self, NULL, err, ST_EINVAL,
                                  "resuming from a checkpoint is not supported: the inverse "
                                  "precomputed at the first step is not saved");
    return ST_OK;
}

static const st_checkpoint_ops pwarp_checkpoint_ops = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = pwarp_checkpoint,
};

const st_class precomputed_warp_preconditioner_class = {
    .struct_size = sizeof(st_class),
    .name = "PrecomputedWarpPreconditioner",
    .category = "LinearSolver",
    .description = "Linear system solver based on a precomputed inverse matrix, wrapped by a "
                   "per-node rotation matrix.",
    .instance_size = sizeof(pwarp),
    .fields = pwarp_fields,
    .init = pwarp_init,
    .cleanup = pwarp_cleanup,
    .linsolver = &pwarp_ops,
    .checkpoint = &pwarp_checkpoint_ops,
};
