/* petsc_linear_solver.c - PETScLinearSolver: the assembled system solved by
 * PETSc's Krylov methods (KSP) and preconditioners (PC), both chosen in the
 * scene (kspType, pcType, tolerance, maxIterations), and an `options` string
 * inserted in PETSc's options database before KSPSetFromOptions, so that
 * any PETSc option works ("-ksp_type gmres -pc_gamg_threshold 0.02").
 *
 * The matrix is handed over without a copy: settee's scalar CSR (sorted
 * columns, both triangles) is a MATSEQAIJ (MatCreateSeqAIJWithArrays) over
 * the same arrays, and each assembly, which rewrites those values in place,
 * marks it changed. For pcType gamg the matrix needs PETSc's block size 3
 * and the near-null space of rigid-body modes (MatNullSpaceCreateRigidBody
 * from the current positions): PETSc cannot give a matrix over foreign
 * arrays another block size, so then the values are copied into a matrix of
 * PETSc's own (the pattern once, the values at each assembly). Vectors wrap
 * the solver's arrays (VecPlaceArray). PETSc is initialised once per process
 * without its signal handlers, its errors returned (never printed) and
 * turned into settee errors naming the call. The options database is
 * PETSc's, one per process: options of one solver reach every PETSc solver
 * of the process (as PETSc's command line would). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <petscksp.h>

#include <settee/settee.h>

typedef struct petsc_solver {
    st_component base;
    char *ksp_type;          /* "kspType" */
    char *pc_type;           /* "pcType" */
    double tolerance;        /* "tolerance": relative residual (KSP's rtol) */
    double abs_tolerance;    /* "absoluteTolerance": KSP's atol */
    unsigned max_iterations; /* "maxIterations" */
    unsigned update_step;    /* "preconditionerUpdateStep" */
    char *options;           /* "options" */
    unsigned nb_iterations;  /* "nbIterations" (output) */
    double residual;         /* "residual" (output): |r| / |b| */
    char *reason;            /* "convergedReason" (output) */
    unsigned nbuilds;        /* "preconditionerBuilds" (output) */
    /* Runtime. */
    st_system *sys;
    st_matrix *m;
    Mat A;
    KSP ksp;
    Vec b, x, coords;
    double *r;               /* residual scratch, owned by the system */
    bool copy;               /* gamg: PETSc's own matrix, values copied */
    bool created;
    unsigned since_build;    /* assemblies since the preconditioner was built */
    unsigned long version;
    size_t n;
} petsc_solver;

static const st_field petsc_fields[] = {
    ST_STRING(petsc_solver, ksp_type, "kspType", "cg",
              "PETSc Krylov method (KSPType: cg, gmres, bcgs, minres, preonly...)"),
    ST_STRING(petsc_solver, pc_type, "pcType", "gamg",
              "PETSc preconditioner (PCType: gamg, jacobi, sor, icc, ilu, cholesky, none...); "
              "gamg gets the rigid-body near-null space from the positions"),
    ST_REAL(petsc_solver, tolerance, "tolerance", "1e-10",
            "Relative tolerance of the residual (KSP's rtol; PETSc's default test is the "
            "preconditioned residual for cg, see -ksp_norm_type)"),
    ST_REAL(petsc_solver, abs_tolerance, "absoluteTolerance", "1e-50",
            "Absolute tolerance of the residual (KSP's atol)"),
    ST_UINT(petsc_solver, max_iterations, "maxIterations", "10000",
            "Maximum number of iterations"),
    ST_UINT(petsc_solver, update_step, "preconditionerUpdateStep", "1",
            "Rebuild the preconditioner every N assemblies (1: at each, PETSc's default); 0: "
            "build it at the first assembly only, and again when the matrix's pattern changes "
            "(a stale preconditioner: KSPSetReusePreconditioner; the solve still converges to "
            "the current matrix)"),
    ST_STRING(petsc_solver, options, "options", "",
              "Options for PETSc's options database, as on PETSc's command line (e.g. "
              "\"-ksp_norm_type unpreconditioned -pc_gamg_threshold 0.02\"); read at init"),
    ST_OUTPUT(petsc_solver, nb_iterations, "nbIterations", ST_T_UINT, unsigned,
              "Number of iterations of the last solve"),
    ST_OUTPUT(petsc_solver, residual, "residual", ST_T_REAL, double,
              "|b - A x| / |b| after the last solve"),
    ST_OUTPUT(petsc_solver, reason, "convergedReason", ST_T_STRING, char *,
              "PETSc's KSPConvergedReason of the last solve"),
    ST_OUTPUT(petsc_solver, nbuilds, "preconditionerBuilds", ST_T_UINT, unsigned,
              "Number of times the preconditioner was built (set up) so far"),
    ST_FIELD_END};

/* A failed PETSc call as a settee error. */
static st_status petsc_fail(const st_component *self, st_error *err, const char *call,
                            PetscErrorCode code)
{
    const char *text = NULL;
    PetscErrorMessage(code, &text, NULL);
    return st_component_error(self, NULL, err, ST_ESOLVER, "PETSc: %s failed (error %d: %s)",
                              call, (int)code, text ? text : "unknown");
}

#define PCALL(self, err, call)                                                                     \
    do {                                                                                           \
        PetscErrorCode code_ = (call);                                                             \
        if (code_)                                                                                 \
            return petsc_fail(self, err, #call, code_);                                            \
    } while (0)

/* At the process's exit, PETSc is finalised if settee initialised it, so
 * that PETSc's own reports asked for in `options` or PETSC_OPTIONS
 * (-log_view, -memory_view) are printed. The plugin stays loaded until
 * then (plugin.c). */
static void petsc_finish(void)
{
    PetscBool up = PETSC_FALSE, down = PETSC_FALSE;
    PetscInitialized(&up);
    PetscFinalized(&down);
    if (up && !down)
        (void)PetscFinalize();
}

/* PETSc, once per process: no signal handlers, errors returned quietly. An
 * embedding program that initialised PETSc itself keeps it and finalises
 * it. */
static st_status petsc_start(const st_component *self, st_error *err)
{
    PetscBool done = PETSC_FALSE;
    PetscInitialized(&done);
    if (done)
        return ST_OK;
    PCALL(self, err, PetscOptionsSetValue(NULL, "-no_signal_handler", NULL));
    PCALL(self, err, PetscInitializeNoArguments());
    PCALL(self, err, PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    atexit(petsc_finish);
    return ST_OK;
}

static st_status petsc_init(st_component *self, st_error *err)
{
    petsc_solver *s = (petsc_solver *)self;
    ST_TRY(petsc_start(self, err));
    if (s->options && s->options[0]) {
        PetscErrorCode code = PetscOptionsInsertString(NULL, s->options);
        if (code)
            return st_component_error(self, "options", err, ST_ESCENE,
                                      "PETSc cannot read the options '%s' (error %d)", s->options,
                                      (int)code);
    }
    return ST_OK;
}

static void petsc_free(petsc_solver *s)
{
    if (s->ksp)
        KSPDestroy(&s->ksp);
    if (s->A)
        MatDestroy(&s->A);
    if (s->b)
        VecDestroy(&s->b);
    if (s->x)
        VecDestroy(&s->x);
    if (s->coords)
        VecDestroy(&s->coords);
    st_matrix_destroy(&s->m);
    s->created = false;
}

static st_status petsc_bind(st_component *self, st_system *sys, st_error *err)
{
    petsc_solver *s = (petsc_solver *)self;
    petsc_free(s);
    s->sys = sys;
    s->n = sys->size;
    s->copy = s->pc_type && strcmp(s->pc_type, PCGAMG) == 0;
    ST_TRY(st_matrix_create(sys, &s->m, err));
    ST_TRY(st_system_vec_alloc(sys, &s->r, err));
    PCALL(self, err, KSPCreate(PETSC_COMM_SELF, &s->ksp));
    PCALL(self, err, KSPSetType(s->ksp, s->ksp_type));
    PC pc;
    PCALL(self, err, KSPGetPC(s->ksp, &pc));
    PCALL(self, err, PCSetType(pc, s->pc_type));
    /* gamg, rebuilt: keep the aggregates and prolongators of the first
     * build and form only the Galerkin products again (the same iterations
     * on slowly changing matrices, and a cheaper setup; the option
     * -pc_gamg_reuse_interpolation false restores PETSc's default). */
    if (s->copy)
        PCALL(self, err, PCGAMGSetReuseInterpolation(pc, PETSC_TRUE));
    PCALL(self, err, KSPSetTolerances(s->ksp, s->tolerance, s->abs_tolerance, PETSC_DEFAULT,
                                      (PetscInt)s->max_iterations));
    PCALL(self, err, KSPSetFromOptions(s->ksp));
    PCALL(self, err, VecCreateSeqWithArray(PETSC_COMM_SELF, 1, (PetscInt)s->n, NULL, &s->b));
    PCALL(self, err, VecCreateSeqWithArray(PETSC_COMM_SELF, 1, (PetscInt)s->n, NULL, &s->x));
    return ST_OK;
}

/* The PETSc matrix over (or copied from) the assembled CSR. */
static st_status make_matrix(petsc_solver *s, const st_csr *a, st_error *err)
{
    st_component *self = &s->base;
    if (s->A)
        MatDestroy(&s->A);
    const PetscInt n = (PetscInt)a->n;
    if (!s->copy) {
        PCALL(self, err, MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, n, n, (PetscInt *)a->rowptr,
                                                   (PetscInt *)a->colind,
                                                   (PetscScalar *)a->values, &s->A));
        return ST_OK;
    }
    PCALL(self, err, MatCreate(PETSC_COMM_SELF, &s->A));
    PCALL(self, err, MatSetSizes(s->A, n, n, n, n));
    PCALL(self, err, MatSetBlockSizes(s->A, 3, 3));
    PCALL(self, err, MatSetType(s->A, MATSEQAIJ));
    PCALL(self, err, MatSeqAIJSetPreallocationCSR(s->A, (const PetscInt *)a->rowptr,
                                                  (const PetscInt *)a->colind, a->values));
    /* The rigid-body modes of the current positions (3 per point). */
    if (s->coords)
        VecDestroy(&s->coords);
    PCALL(self, err, VecCreateSeq(PETSC_COMM_SELF, n, &s->coords));
    PCALL(self, err, VecSetBlockSize(s->coords, 3));
    PetscScalar *c;
    PCALL(self, err, VecGetArray(s->coords, &c));
    memcpy(c, s->sys->x, (size_t)n * sizeof *c);
    PCALL(self, err, VecRestoreArray(s->coords, &c));
    MatNullSpace nsp;
    PCALL(self, err, MatNullSpaceCreateRigidBody(s->coords, &nsp));
    PCALL(self, err, MatSetNearNullSpace(s->A, nsp));
    PCALL(self, err, MatNullSpaceDestroy(&nsp));
    return ST_OK;
}

static st_status petsc_set_system(st_component *self, st_system *sys, double mf, double bf,
                                  double kf, st_error *err)
{
    petsc_solver *s = (petsc_solver *)self;
    if (!s->m || s->sys != sys)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    ST_TRY(st_matrix_assemble(s->m, sys, mf, bf, kf, err));
    st_csr a;
    st_matrix_csr(s->m, &a);
    if (a.n == 0)
        return ST_OK;
    if (s->copy && sys->xsize != sys->size)
        return st_component_error(self, "pcType", err, ST_ESCENE,
                                  "gamg's rigid-body modes need Vec3 states only");
    const bool new_pattern = !s->created || s->version != a.pattern_version;
    if (new_pattern) {
        ST_TRY(make_matrix(s, &a, err));
        s->version = a.pattern_version;
        s->created = true;
    } else if (s->copy) {
        PetscScalar *v;
        PCALL(self, err, MatSeqAIJGetArray(s->A, &v));
        memcpy(v, a.values, a.nnz * sizeof *v);
        PCALL(self, err, MatSeqAIJRestoreArray(s->A, &v));
    } else {
        /* The values changed in place (the matrix's own array is settee's):
         * getting and restoring the array tells PETSc they changed. */
        PetscScalar *v;
        PCALL(self, err, MatSeqAIJGetArray(s->A, &v));
        PCALL(self, err, MatSeqAIJRestoreArray(s->A, &v));
    }
    /* preconditionerUpdateStep: a new pattern always builds; otherwise the
     * preconditioner is kept (stale) until N assemblies have passed. */
    const bool build =
        new_pattern || (s->update_step > 0 && s->since_build >= s->update_step);
    PCALL(self, err, KSPSetReusePreconditioner(s->ksp, build ? PETSC_FALSE : PETSC_TRUE));
    PCALL(self, err, KSPSetOperators(s->ksp, s->A, s->A));
    if (build) {
        s->since_build = 0;
        s->nbuilds++;
    }
    s->since_build++;
    return ST_OK;
}

static st_status petsc_solve(st_component *self, st_system *sys, double *x, const double *b,
                             st_error *err)
{
    petsc_solver *s = (petsc_solver *)self;
    if (s->n == 0)
        return ST_OK;
    if (!s->created)
        return st_component_error(self, NULL, err, ST_ESTATE,
                                  "solve called before the matrix was assembled");
    PCALL(self, err, VecPlaceArray(s->b, b));
    PCALL(self, err, VecPlaceArray(s->x, x));
    PetscErrorCode code = KSPSolve(s->ksp, s->b, s->x);
    KSPConvergedReason why = KSP_CONVERGED_ITERATING;
    PetscInt its = 0;
    KSPGetConvergedReason(s->ksp, &why);
    KSPGetIterationNumber(s->ksp, &its);
    VecResetArray(s->b);
    VecResetArray(s->x);
    if (code)
        return petsc_fail(self, err, "KSPSolve", code);
    s->nb_iterations = (unsigned)its;
    /* |b - A x| / |b| with the assembled matrix. */
    double *r = s->r, nr = 0.0, nb = 0.0;
    st_matrix_mul(s->m, r, x);
    for (size_t i = 0; i < s->n; i++) {
        nr += (b[i] - r[i]) * (b[i] - r[i]);
        nb += b[i] * b[i];
    }
    s->residual = nb > 0 ? sqrt(nr / nb) : 0.0;
    st_free(s->reason);
    s->reason = st_strdup(KSPConvergedReasons[why]);
    if (why < 0)
        return st_component_solver_failure(self, err,
                                           "PETSc %s/%s did not converge: %s after %d iterations "
                                           "(|r|/|b| = %g)",
                                           s->ksp_type, s->pc_type, KSPConvergedReasons[why],
                                           (int)its, s->residual);
    return ST_OK;
}

static void petsc_cleanup(st_component *self) { petsc_free((petsc_solver *)self); }

static const st_linsolver_ops petsc_ops = {
    .struct_size = sizeof(st_linsolver_ops),
    .bind = petsc_bind,
    .set_system = petsc_set_system,
    .solve = petsc_solve,
};

const st_class petsc_linear_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "PETScLinearSolver",
    .category = "LinearSolver",
    .description = "Linear solver of the assembled system on PETSc's KSP and PC (Krylov "
                   "methods and preconditioners, algebraic multigrid with rigid-body modes)",
    .instance_size = sizeof(petsc_solver),
    .fields = petsc_fields,
    .init = petsc_init,
    .cleanup = petsc_cleanup,
    .linsolver = &petsc_ops,
};
