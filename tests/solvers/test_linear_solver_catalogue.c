/* test_linear_solver_catalogue.c - SOFA's linear solvers added in issue 15
 * (EigenSimplicialLDLT/LLT, EigenSparseLU, EigenSparseQR, SVDLinearSolver,
 * PrecomputedLinearSolver, AsyncSparseLDLSolver, MinResLinearSolver,
 * ShewchukPCGLinearSolver, SSOR and BlockJacobi preconditioners, a stale
 * SparseLDLSolver as preconditioner) and the linear-system components:
 *   - each solves a random SPD, a symmetric indefinite (where the method
 *     allows) and a non-symmetric (LU, QR, SVD) system, put into the
 *     assembled matrix by a test mass, against LAPACK's dgesv;
 *   - each runs the seeds' 4x4x11 spring beam and gives SparseLDLSolver's
 *     trajectory to its tolerance;
 *   - the preconditioner's refresh schedule (update_step, build_precond,
 *     PreconditionedMatrixFreeSystem's assemblingRate) is SOFA's;
 *   - PrecomputedLinearSolver's inverse is the first matrix's, and its
 *     cache file reads back bit-exact;
 *   - the settings settee does not implement are errors naming the field;
 *   - SETTEE_THREADS / --threads set OpenBLAS's and OpenMP's threads. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "support.h"

static st_component *find(st_scene *s, const char *name)
{
    st_component *c = test_find_object(s, name);
    cr_assert_not_null(c, "no object %s", name);
    return c;
}

static double max_abs(const double *a, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(a[i]));
    return m;
}

static double max_abs_diff(const double *a, const double *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

/* ---- a test mass whose matrix is a given dense matrix ---- */

#define NPTS 6
#define NDOF (3 * NPTS)

/* The matrix the test mass assembles (row-major NDOF x NDOF). */
static double dense_a[NDOF * NDOF];

static void dm_add_m_dx(st_component *self, const st_mparams *mp, double *res, const double *dx,
                        double factor)
{
    st_mstate *ms = st_component_mstate(self);
    double *r = st_slice(res, ms);
    const double *d = st_slice(dx, ms);
    for (size_t i = 0; i < NDOF; i++) {
        double s = 0;
        for (size_t j = 0; j < NDOF; j++)
            s += dense_a[i * NDOF + j] * d[j];
        r[i] += factor * s;
    }
}

static void dm_add_m_to_matrix(st_component *self, const st_mparams *mp, st_matrix *mat,
                               double factor)
{
    st_mstate *ms = st_component_mstate(self);
    for (size_t bi = 0; bi < NPTS; bi++)
        for (size_t bj = 0; bj < NPTS; bj++) {
            double b[9];
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++)
                    b[3 * r + c] = factor * dense_a[(3 * bi + r) * NDOF + 3 * bj + c];
            st_matrix_add_block(mat, ms, bi, ms, bj, b);
        }
}

static void dm_gravity(st_component *self, const st_mparams *mp, double *f, const double *x,
                       const double *v)
{
}

static bool dm_is_diagonal(const st_component *self) { return false; }

static const st_mass_ops dm_ops = {
    .struct_size = sizeof(st_mass_ops),
    .add_m_dx = dm_add_m_dx,
    .add_m_to_matrix = dm_add_m_to_matrix,
    .add_gravity_to_force = dm_gravity,
    .is_diagonal = dm_is_diagonal,
};

static const st_class dense_mass_class = {
    .struct_size = sizeof(st_class),
    .name = "TestDenseMatrixMass",
    .category = "Mass",
    .description = "test mass assembling dense_a",
    .instance_size = sizeof(st_component),
    .mass = &dm_ops,
};

typedef enum { SPD, INDEFINITE, NONSYMMETRIC } kind;

/* A reproducible random matrix of the kind asked. */
static void make_matrix(kind k, unsigned seed)
{
    srand(seed);
    double b[NDOF * NDOF];
    for (size_t i = 0; i < NDOF * NDOF; i++)
        b[i] = (double)rand() / RAND_MAX - 0.5;
    for (size_t i = 0; i < NDOF; i++)
        for (size_t j = 0; j < NDOF; j++) {
            double v = 0;
            if (k == SPD) {
                for (size_t q = 0; q < NDOF; q++)
                    v += b[i * NDOF + q] * b[j * NDOF + q];
                if (i == j)
                    v += 0.5;
            } else if (k == INDEFINITE) {
                v = 0.5 * (b[i * NDOF + j] + b[j * NDOF + i]);
                if (i == j)
                    v += i % 2 ? 2.0 : -2.0; /* eigenvalues of both signs */
            } else {
                v = b[i * NDOF + j];
                if (i == j)
                    v += 2.0;
            }
            dense_a[i * NDOF + j] = v;
        }
}

/* The scene: one node, an ODE solver, the solver line(s) (the one tested
 * is named "ls"), NPTS points and the dense test mass. */
static st_scene *dense_scene(test_rt *t, const char *solver)
{
    st_error err = {0};
    cr_assert_eq(st_registry_add(st_runtime_registry(t->rt), &dense_mass_class, &err), ST_OK,
                 "%s", err.msg);
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, 0, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct,\n"
             "                      LinearSolver.Iterative, LinearSolver.Ordering]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "  children:\n"
             "    - name: N\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {linearSolver: \"@ls\"}\n"
             "        - %s\n"
             "        - MechanicalObject: {name: dofs, position: [0,0,0, 1,0,0, 2,0,0, 3,0,0,\n"
             "                             4,0,0, 5,0,0]}\n"
             "        - TestDenseMatrixMass: {}\n",
             solver);
    st_scene *s = NULL;
    cr_assert_eq(test_load_string(t, yaml, &s, &err), ST_OK, "load: %s\n%s", err.msg, t->log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s\n%s", err.msg, t->log);
    cr_assert_eq(s->systems[0]->size, (size_t)NDOF);
    return s;
}

/* Solves dense_a x = b with the solver and with dgesv; returns the relative
 * difference (or -1 when the solver reported an error, message in err). */
static double solve_vs_lapack(const char *solver, st_error *err)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = dense_scene(&t, solver);
    st_system *sys = s->systems[0];
    st_component *ls = find(s, "ls");
    double b[NDOF], xd[NDOF], a[NDOF * NDOF];
    double *x = calloc(sys->size_all, sizeof *x);
    srand(99);
    for (size_t i = 0; i < NDOF; i++)
        b[i] = (double)rand() / RAND_MAX - 0.5;
    for (size_t i = 0; i < NDOF; i++)
        for (size_t j = 0; j < NDOF; j++)
            a[j * NDOF + i] = dense_a[i * NDOF + j]; /* column-major */
    memcpy(xd, b, sizeof b);
    cr_assert_eq(test_dense_solve(NDOF, a, xd), 0);
    double d = -1;
    if (ls->cls->linsolver->set_system(ls, sys, 1.0, 0.0, 0.0, err) == ST_OK &&
        ls->cls->linsolver->solve(ls, sys, x, b, err) == ST_OK)
        d = max_abs_diff(x, xd, NDOF) / max_abs(xd, NDOF);
    free(x);
    st_scene_destroy(&s);
    test_rt_close(&t);
    return d;
}

static const char *const spd_solvers[] = {
    "EigenSimplicialLDLT: {name: ls}",
    "EigenSimplicialLLT: {name: ls}",
    "EigenSparseLU: {name: ls}",
    "EigenSparseQR: {name: ls}",
    "SVDLinearSolver: {name: ls}",
    "AsyncSparseLDLSolver: {name: ls}",
    "PrecomputedLinearSolver: {name: ls, use_file: false}",
    "MinResLinearSolver: {name: ls, iterations: 500, tolerance: 1e-15}",
    "MinResLinearSolver: {name: ls, template: CompressedRowSparseMatrixd, iterations: 500,\n"
    "                             tolerance: 1e-15}",
    "ShewchukPCGLinearSolver: {name: ls, iterations: 500, tolerance: 1e-30,\n"
    "                                  preconditioner: \"@pre\"}\n"
    "        - SSORPreconditioner: {name: pre, omega: 1.2}",
    "PCGLinearSolver: {name: ls, iterations: 500, tolerance: 1e-30, preconditioner: \"@pre\"}\n"
    "        - BlockJacobiPreconditioner: {name: pre}",
    "PCGLinearSolver: {name: ls, iterations: 500, tolerance: 1e-30, preconditioner: \"@pre\"}\n"
    "        - SparseLDLSolver: {name: pre}",
};

static const char *const indefinite_solvers[] = {
    "EigenSimplicialLDLT: {name: ls}",
    "EigenSparseLU: {name: ls}",
    "EigenSparseQR: {name: ls}",
    "SVDLinearSolver: {name: ls}",
    "AsyncSparseLDLSolver: {name: ls}",
    "MinResLinearSolver: {name: ls, iterations: 500, tolerance: 1e-15}",
};

static const char *const nonsymmetric_solvers[] = {
    "EigenSparseLU: {name: ls}",
    "EigenSparseQR: {name: ls}",
    "SVDLinearSolver: {name: ls}",
};

static void check_all(kind k, const char *const *solvers, size_t n, double tol)
{
    static const char *const names[] = {"SPD", "indefinite", "non-symmetric"};
    for (unsigned seed = 1; seed <= 3; seed++) {
        make_matrix(k, seed);
        for (size_t i = 0; i < n; i++) {
            st_error err = {0};
            double d = solve_vs_lapack(solvers[i], &err);
            cr_log_info("%s seed %u: %s vs dgesv %.3g", names[k], seed, solvers[i], d);
            cr_assert(d >= 0, "%s (%s): %s", solvers[i], names[k], err.msg);
            cr_assert(d <= tol, "%s on the %s matrix (seed %u) differs from dgesv by %.3g",
                      solvers[i], names[k], seed, d);
        }
    }
}

Test(linear_solver_catalogue, random_spd_against_lapack)
{
    check_all(SPD, spd_solvers, sizeof spd_solvers / sizeof *spd_solvers, 1e-10);
}

Test(linear_solver_catalogue, random_indefinite_against_lapack)
{
    check_all(INDEFINITE, indefinite_solvers, sizeof indefinite_solvers / sizeof *indefinite_solvers,
              1e-9);
}

Test(linear_solver_catalogue, random_nonsymmetric_against_lapack)
{
    check_all(NONSYMMETRIC, nonsymmetric_solvers,
              sizeof nonsymmetric_solvers / sizeof *nonsymmetric_solvers, 1e-10);
}

/* LL^T refuses an indefinite matrix, naming the factorization; the SVD
 * drops singular values at or below minSingularValue (least squares). */
Test(linear_solver_catalogue, llt_refuses_indefinite_and_svd_pseudo_inverse)
{
    make_matrix(INDEFINITE, 1);
    st_error err = {0};
    cr_assert_lt(solve_vs_lapack("EigenSimplicialLLT: {name: ls}", &err), 0);
    cr_assert(strstr(err.msg, "not positive definite"), "%s", err.msg);

    /* A singular SPD matrix: two equal rows/columns. The SVD gives the
     * minimum-norm least-squares solution, which solves the consistent
     * part exactly: A x = P b with P the projector on range(A). */
    make_matrix(SPD, 2);
    for (size_t j = 0; j < NDOF; j++)
        dense_a[1 * NDOF + j] = dense_a[0 * NDOF + j];
    for (size_t i = 0; i < NDOF; i++)
        dense_a[i * NDOF + 1] = dense_a[i * NDOF + 0];
    test_rt t;
    test_rt_open(&t);
    st_scene *s = dense_scene(&t, "SVDLinearSolver: {name: ls}");
    st_system *sys = s->systems[0];
    st_component *ls = find(s, "ls");
    double b[NDOF], x[NDOF], ax[NDOF];
    for (size_t i = 0; i < NDOF; i++)
        b[i] = 0.1 * (double)i - 0.3;
    b[1] = b[0]; /* consistent: b in range(A) */
    cr_assert_eq(ls->cls->linsolver->set_system(ls, sys, 1.0, 0.0, 0.0, &err), ST_OK, "%s",
                 err.msg);
    cr_assert_eq(ls->cls->linsolver->solve(ls, sys, x, b, &err), ST_OK, "%s", err.msg);
    for (size_t i = 0; i < NDOF; i++) {
        ax[i] = 0;
        for (size_t j = 0; j < NDOF; j++)
            ax[i] += dense_a[i * NDOF + j] * x[j];
    }
    cr_assert_leq(max_abs_diff(ax, b, NDOF), 1e-10 * max_abs(b, NDOF));
    cr_assert_leq(fabs(x[0] - x[1]), 1e-10, "minimum norm: x0 = x1");
    const double *cond = st_component_field_ptr(ls, st_component_field(ls, "conditionNumber"));
    cr_assert_gt(*cond, 1e12, "the condition number of a singular matrix, %g", *cond);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* The preconditioners apply SOFA's formulas: SSOR z = (2 - w) (D/w + L)^-1
 * (D/w) (D/w + U)^-1 r, block Jacobi z = blockdiag(A)^-1 r (3x3 blocks),
 * computed here densely by substitution. */
Test(linear_solver_catalogue, preconditioner_formulas)
{
    make_matrix(SPD, 5);
    double r[NDOF], t[NDOF], z[NDOF], ref[NDOF];
    for (size_t i = 0; i < NDOF; i++)
        r[i] = sin(1.0 + (double)i);
    const double w = 1.3;
    /* (D/w + U) t = r, backward; then (D/w + L) z = (D/w) t, forward. */
    for (size_t j = NDOF; j-- > 0;) {
        double s = r[j];
        for (size_t i = j + 1; i < NDOF; i++)
            s -= dense_a[j * NDOF + i] * t[i];
        t[j] = s / (dense_a[j * NDOF + j] / w);
    }
    for (size_t j = 0; j < NDOF; j++) {
        double s = dense_a[j * NDOF + j] / w * t[j];
        for (size_t i = 0; i < j; i++)
            s -= dense_a[j * NDOF + i] * ref[i];
        ref[j] = s / (dense_a[j * NDOF + j] / w);
    }
    for (size_t j = 0; j < NDOF; j++)
        ref[j] *= 2 - w;
    st_error err = {0};
    test_rt tr;
    test_rt_open(&tr);
    st_scene *s = dense_scene(&tr, "SSORPreconditioner: {name: ls, omega: 1.3}");
    st_component *ls = find(s, "ls");
    cr_assert_eq(ls->cls->linsolver->set_system(ls, s->systems[0], 1, 0, 0, &err), ST_OK);
    cr_assert_eq(ls->cls->linsolver->solve(ls, s->systems[0], z, r, &err), ST_OK);
    cr_assert_leq(max_abs_diff(z, ref, NDOF), 1e-12 * max_abs(ref, NDOF), "SSOR %.3g",
                  max_abs_diff(z, ref, NDOF));
    st_scene_destroy(&s);
    test_rt_close(&tr);

    /* Block Jacobi: solve each 3x3 diagonal block by dgesv. */
    for (size_t b = 0; b < NPTS; b++) {
        double blk[9];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                blk[j * 3 + i] = dense_a[(3 * b + i) * NDOF + 3 * b + j];
        memcpy(ref + 3 * b, r + 3 * b, 3 * sizeof *r);
        cr_assert_eq(test_dense_solve(3, blk, ref + 3 * b), 0);
    }
    test_rt_open(&tr);
    s = dense_scene(&tr, "BlockJacobiPreconditioner: {name: ls}");
    ls = find(s, "ls");
    cr_assert_eq(ls->cls->linsolver->set_system(ls, s->systems[0], 1, 0, 0, &err), ST_OK);
    cr_assert_eq(ls->cls->linsolver->solve(ls, s->systems[0], z, r, &err), ST_OK);
    cr_assert_leq(max_abs_diff(z, ref, NDOF), 1e-12 * max_abs(ref, NDOF), "block Jacobi %.3g",
                  max_abs_diff(z, ref, NDOF));
    st_scene_destroy(&s);
    test_rt_close(&tr);
}

/* ---- the seeds' beam ---- */

#define STEPS 20

static st_scene *beam(test_rt *t, const char *solver)
{
    const char *yaml = test_beam_yaml(", LinearSystem",
                                      "EulerImplicitSolver: {name: ode, rayleighStiffness: 0.1, "
                                      "rayleighMass: 0.1, linearSolver: \"@ls\"}",
                                      solver);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(t, yaml, &s, &err), ST_OK, "load: %s\n%s", err.msg, t->log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s\n%s", err.msg, t->log);
    return s;
}

/* Positions and velocities after steps steps; *builds gets the PCG's
 * preconditionerBuilds when builds is not NULL. */
static void run_beam(const char *solver, int steps, double *x, double *v, size_t *n,
                     unsigned *builds)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = beam(&t, solver);
    st_error err = {0};
    for (int i = 0; i < steps; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s step %d: %s", solver, i, err.msg);
    st_mstate *ms = (st_mstate *)find(s, "dofs");
    *n = 3 * ms->n;
    memcpy(x, ms->position.r, *n * sizeof *x);
    memcpy(v, ms->velocity.r, *n * sizeof *v);
    if (builds) {
        st_component *ls = find(s, "ls");
        *builds = *(const unsigned *)st_component_field_ptr(
            ls, st_component_field(ls, "preconditionerBuilds"));
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static const struct {
    const char *line;
    double tol; /* on positions, relative to the largest coordinate */
} beam_solvers[] = {
    {"EigenSimplicialLDLT: {name: ls, template: CompressedRowSparseMatrixMat3x3d}", 1e-12},
    {"EigenSimplicialLLT: {name: ls}", 1e-12},
    {"EigenSparseLU: {name: ls}", 1e-12},
    {"EigenSparseQR: {name: ls}", 1e-12},
    {"SVDLinearSolver: {name: ls, template: CompressedRowSparseMatrixMat3x3d}", 1e-11},
    {"AsyncSparseLDLSolver: {name: ls}", 1e-12},
    {"MinResLinearSolver: {name: ls, iterations: 3000, tolerance: 1e-14}", 1e-10},
    {"ShewchukPCGLinearSolver: {name: ls, iterations: 3000, tolerance: 1e-28,\n"
     "                                  preconditioner: \"@pre\"}\n"
     "        - SSORPreconditioner: {name: pre}",
     1e-11},
    {"PCGLinearSolver: {name: ls, iterations: 3000, tolerance: 1e-28, preconditioner: \"@pre\"}\n"
     "        - BlockJacobiPreconditioner: {name: pre}",
     1e-11},
    {"PCGLinearSolver: {name: ls, iterations: 3000, tolerance: 1e-28, preconditioner: \"@pre\",\n"
     "                           update_step: 10}\n"
     "        - SparseLDLSolver: {name: pre}",
     1e-11},
    {"PCGLinearSolver: {name: ls, iterations: 3000, tolerance: 1e-28, preconditioner: \"@pre\"}\n"
     "        - SparseLDLSolver: {name: pre}\n"
     "        - PreconditionedMatrixFreeSystem: {assemblingRate: 7}\n"
     "        - MatrixLinearSystem: {}\n"
     "        - ConstantSparsityPatternSystem: {}",
     1e-11},
};

Test(linear_solver_catalogue, beam_trajectories_match_sparse_ldl)
{
    static double x0[3 * 176], v0[3 * 176], x[3 * 176], v[3 * 176];
    size_t n = 0, m = 0;
    run_beam("SparseLDLSolver: {name: ls}", STEPS, x0, v0, &n, NULL);
    cr_assert_eq(n, 3 * 176u);
    cr_assert_lt(x0[n - 2], 1.5 - 1e-3, "the tip sags");
    const double xs = max_abs(x0, n), vs = max_abs(v0, n);
    for (size_t k = 0; k < sizeof beam_solvers / sizeof *beam_solvers; k++) {
        run_beam(beam_solvers[k].line, STEPS, x, v, &m, NULL);
        cr_assert_eq(m, n);
        const double dx = max_abs_diff(x, x0, n) / xs, dv = max_abs_diff(v, v0, n) / vs;
        cr_log_info("%s vs SparseLDLSolver: x %.3g, v %.3g", beam_solvers[k].line, dx, dv);
        cr_assert(dx <= beam_solvers[k].tol, "%s: positions differ from SparseLDLSolver by %.3g",
                  beam_solvers[k].line, dx);
        cr_assert(dv <= 100 * beam_solvers[k].tol,
                  "%s: velocities differ from SparseLDLSolver by %.3g", beam_solvers[k].line, dv);
    }
}

/* SOFA's refresh schedule of the preconditioner: the first system, then
 * every update_step-th (PCG before v25.12), or every assemblingRate-th
 * (PreconditionedMatrixFreeSystem); never again with build_precond false
 * or update_step 0. */
/* A MatrixFreeSystem declared and linked, as SOFA scenes may: the CG's
 * products are the same, so the run is bit-identical to the CG alone. */
Test(linear_solver_catalogue, matrix_free_system_changes_nothing)
{
    static double x0[3 * 176], v0[3 * 176], x[3 * 176], v[3 * 176];
    size_t n, m;
    run_beam("CGLinearSolver: {name: ls, iterations: 25, tolerance: 1e-9, threshold: 1e-9}", 10,
             x0, v0, &n, NULL);
    run_beam("MatrixFreeSystem: {name: system}\n"
             "        - CGLinearSolver: {name: ls, iterations: 25, tolerance: 1e-9, "
             "threshold: 1e-9, linearSystem: '@system'}",
             10, x, v, &m, NULL);
    cr_assert_eq(n, m);
    cr_assert(!memcmp(x0, x, n * sizeof *x) && !memcmp(v0, v, n * sizeof *v));
    cr_assert(max_abs(v0, n) > 1e-3, "the beam moves");
}

Test(linear_solver_catalogue, preconditioner_refresh_schedule)
{
    static double x[3 * 176], v[3 * 176];
    size_t n = 0;
    static const struct {
        const char *extra;
        unsigned builds; /* in 20 steps */
    } cases[] = {
        {"", 20},
        {", update_step: 10", 2},   /* steps 1 and 11 */
        {", update_step: 7", 3},    /* steps 1, 8, 15 */
        {", update_step: 0", 1},
        {", build_precond: false", 1},
    };
    char line[512];
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        unsigned builds = 0;
        snprintf(line, sizeof line,
                 "PCGLinearSolver: {name: ls, iterations: 3000, tolerance: 1e-20,\n"
                 "                           preconditioner: \"@pre\"%s}\n"
                 "        - SparseLDLSolver: {name: pre}",
                 cases[k].extra);
        run_beam(line, STEPS, x, v, &n, &builds);
        cr_assert_eq(builds, cases[k].builds, "'%s': %u builds", cases[k].extra, builds);
    }
    unsigned builds = 0;
    run_beam("PCGLinearSolver: {name: ls, iterations: 3000, tolerance: 1e-20, "
             "preconditioner: \"@pre\"}\n"
             "        - SparseLDLSolver: {name: pre}\n"
             "        - PreconditionedMatrixFreeSystem: {update_step: 10}",
             STEPS, x, v, &n, &builds);
    cr_assert_eq(builds, 2u, "assemblingRate (alias update_step) 10: %u builds", builds);
}

/* PrecomputedLinearSolver inverts the first matrix: its first step is
 * SparseLDL's, later ones use the stale inverse (a visible but small
 * difference on this nonlinear beam); the cache file it writes reads back
 * to the same trajectory bit for bit. */
Test(linear_solver_catalogue, precomputed_inverse_and_cache_file)
{
    static double x0[3 * 176], v0[3 * 176], x[3 * 176], v[3 * 176];
    size_t n = 0;
    const char *tmp = getenv("TMPDIR");
    cr_assert_not_null(tmp);
    char cwd[4096];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_assert_eq(chdir(tmp), 0);
    remove("Beam-528-0.01.comp");
    run_beam("SparseLDLSolver: {name: ls}", 1, x0, v0, &n, NULL);
    run_beam("PrecomputedLinearSolver: {name: ls}", 1, x, v, &n, NULL);
    cr_assert_leq(max_abs_diff(v, v0, n), 1e-12 * max_abs(v0, n), "first step");
    FILE *f = fopen("Beam-528-0.01.comp", "rb");
    cr_assert_not_null(f, "SOFA's cache file <node>-<size>-<dt>.comp in the working directory");
    fseek(f, 0, SEEK_END);
    cr_assert_eq(ftell(f), (long)(528 * 528 * sizeof(double)));
    fclose(f);
    run_beam("SparseLDLSolver: {name: ls}", STEPS, x0, v0, &n, NULL);
    run_beam("PrecomputedLinearSolver: {name: ls, use_file: false}", STEPS, x, v, &n, NULL);
    const double d = max_abs_diff(x, x0, n) / max_abs(x0, n);
    cr_assert(d > 1e-9 && d < 1e-3, "a stale but close inverse: %.3g", d);
    static double xc[3 * 176], vc[3 * 176];
    run_beam("PrecomputedLinearSolver: {name: ls}", STEPS, xc, vc, &n, NULL); /* from the file */
    cr_assert_eq(memcmp(xc, x, n * sizeof *x), 0, "the cache gives the same trajectory");
    remove("Beam-528-0.01.comp");
    cr_assert_eq(chdir(cwd), 0);
}

/* Settings settee does not implement are errors naming the field. */
Test(linear_solver_catalogue, unsupported_settings_are_errors)
{
    static const struct {
        const char *line, *needle;
    } cases[] = {
        {"AsyncSparseLDLSolver: {name: ls, enableAssembly: false}", "enableAssembly"},
        {"SparseLDLSolver: {name: ls}\n        - MatrixLinearSystem: {assembleMass: false}",
         "assembleMass"},
        {"SparseLDLSolver: {name: ls}\n"
         "        - ConstantSparsityPatternSystem: {applyProjectiveConstraints: false}",
         "applyProjectiveConstraints"},
        {"PCGLinearSolver: {name: ls, preconditioner: \"@pre\", linearSystem: \"@sys\"}\n"
         "        - SparseLDLSolver: {name: pre}\n"
         "        - MatrixLinearSystem: {name: sys}",
         "PreconditionedMatrixFreeSystem"},
        {"PCGLinearSolver: {name: ls, preconditioner: \"@pre\", update_step: 3}\n"
         "        - SparseLDLSolver: {name: pre}\n"
         "        - PreconditionedMatrixFreeSystem: {assemblingRate: 5}",
         "update_step"},
        {"EigenSimplicialLDLT: {name: ls, orderingMethod: \"@box\"}", "ordering method"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        test_rt t;
        test_rt_open(&t);
        char yaml[4096];
        snprintf(yaml, sizeof yaml,
                 "format: settee/1\n"
                 "root:\n"
                 "  name: root\n"
                 "  objects:\n"
                 "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct,\n"
                 "                      LinearSolver.Iterative, Mass, LinearSystem,\n"
                 "                      Engine.Select]}\n"
                 "  children:\n"
                 "    - name: N\n"
                 "      objects:\n"
                 "        - EulerImplicitSolver: {}\n"
                 "        - %s\n"
                 "        - MechanicalObject: {name: dofs, position: [0, 0, 0, 1, 0, 0]}\n"
                 "        - BoxROI: {name: box, box: [0, 0, 0, 1, 1, 1]}\n"
                 "        - UniformMass: {totalMass: 1}\n",
                 cases[k].line);
        st_scene *s = NULL;
        st_error err = {0};
        st_status st = test_load_string(&t, yaml, &s, &err);
        if (st == ST_OK)
            st = st_scene_init(s, &err);
        cr_assert_neq(st, ST_OK, "%s: accepted", cases[k].line);
        cr_assert(strstr(err.msg, cases[k].needle), "%s: '%s' lacks '%s'", cases[k].line,
                  err.msg, cases[k].needle);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* ---- threads ---- */

Test(linear_solver_catalogue, settee_threads_sets_openblas_and_openmp)
{
    setenv("SETTEE_THREADS", "2", 1);
    test_rt t;
    test_rt_open(&t);
    make_matrix(SPD, 1);
    st_scene *s = dense_scene(&t, "SparseLDLSolver: {name: ls}");
    int (*blas_threads)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
    void *gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
    cr_assert_not_null(blas_threads, "OpenBLAS is loaded");
    cr_assert_not_null(gomp, "libgomp is loaded with CHOLMOD");
    int (*omp_threads)(void) = (int (*)(void))dlsym(gomp, "omp_get_max_threads");
    cr_assert_not_null(omp_threads);
    cr_assert_eq(blas_threads(), 2);
    cr_assert_eq(omp_threads(), 2);
    st_scene_destroy(&s);
    test_rt_close(&t);
    setenv("SETTEE_THREADS", "1", 1);
    test_rt_open(&t);
    s = dense_scene(&t, "SparseLDLSolver: {name: ls}");
    cr_assert_eq(blas_threads(), 1, "back to one thread");
    cr_assert_eq(omp_threads(), 1);
    st_scene_destroy(&s);
    test_rt_close(&t);
    dlclose(gomp);
    unsetenv("SETTEE_THREADS");
}

/* Issue 33: CHOLMOD's supernodal loops ask for 4 threads with a num_threads
 * clause, which omp_set_num_threads does not limit; the default of one
 * thread holds only when libgomp starts with OMP_THREAD_LIMIT, which the
 * loader hands it (and OpenBLAS its OPENBLAS_NUM_THREADS) during the dlopen
 * and then removes from the environment. */
Test(linear_solver_catalogue, default_one_thread_limits_openmp_teams)
{
    unsetenv("SETTEE_THREADS");
    unsetenv("OMP_THREAD_LIMIT");
    unsetenv("OPENBLAS_NUM_THREADS");
    unsetenv("OMP_NUM_THREADS");
    cr_assert_null(dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD), "libgomp not loaded yet");
    test_rt t;
    test_rt_open(&t);
    make_matrix(SPD, 1);
    st_scene *s = dense_scene(&t, "SparseLDLSolver: {name: ls}");
    void *gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
    cr_assert_not_null(gomp, "libgomp is loaded with CHOLMOD");
    int (*limit)(void) = (int (*)(void))dlsym(gomp, "omp_get_thread_limit");
    int (*blas_threads)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
    cr_assert_not_null(limit);
    cr_assert_not_null(blas_threads);
    cr_assert_eq(limit(), 1, "OpenMP teams capped at one thread, got %d", limit());
    cr_assert_eq(blas_threads(), 1);
    cr_assert_null(getenv("OMP_THREAD_LIMIT"), "the loader's variable is removed again");
    cr_assert_null(getenv("OPENBLAS_NUM_THREADS"));
    st_scene_destroy(&s);
    test_rt_close(&t);
    dlclose(gomp);
}

Test(linear_solver_catalogue, user_thread_limit_is_kept)
{
    setenv("SETTEE_THREADS", "2", 1);
    setenv("OMP_THREAD_LIMIT", "3", 1);
    test_rt t;
    test_rt_open(&t);
    make_matrix(SPD, 1);
    st_scene *s = dense_scene(&t, "SparseLDLSolver: {name: ls}");
    void *gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
    cr_assert_not_null(gomp);
    int (*limit)(void) = (int (*)(void))dlsym(gomp, "omp_get_thread_limit");
    cr_assert_not_null(limit);
    cr_assert_eq(limit(), 3, "the user's OMP_THREAD_LIMIT wins, got %d", limit());
    cr_assert_str_eq(getenv("OMP_THREAD_LIMIT"), "3");
    st_scene_destroy(&s);
    test_rt_close(&t);
    dlclose(gomp);
    unsetenv("SETTEE_THREADS");
    unsetenv("OMP_THREAD_LIMIT");
}

Test(linear_solver_catalogue, cli_threads_option_and_summary)
{
    static char out[65536];
    const char *scene = test_write_temp(
        "threads.yaml", "format: settee/1\n"
                        "root:\n"
                        "  name: root\n"
                        "  dt: 0.01\n"
                        "  objects:\n"
                        "    - RequiredPlugin: {pluginName: [ODESolver.Backward, "
                        "LinearSolver.Direct, Mass]}\n"
                        "  children:\n"
                        "    - name: N\n"
                        "      objects:\n"
                        "        - EulerImplicitSolver: {}\n"
                        "        - SparseLDLSolver: {}\n"
                        "        - MechanicalObject: {position: [0, 0, 0]}\n"
                        "        - UniformMass: {totalMass: 1}\n");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "env -u SETTEE_THREADS '%s' run '%s' -n 3", SETTEE_CLI, scene);
    cr_assert_eq(test_run(cmd, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, " on 1 thread ("), "default one thread: %s", out);
    snprintf(cmd, sizeof cmd, "'%s' run '%s' -n 3 --threads 2", SETTEE_CLI, scene);
    cr_assert_eq(test_run(cmd, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, " on 2 threads ("), "%s", out);
    snprintf(cmd, sizeof cmd, "SETTEE_THREADS=3 '%s' run '%s' -n 3", SETTEE_CLI, scene);
    cr_assert_eq(test_run(cmd, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, " on 3 threads ("), "%s", out);
    snprintf(cmd, sizeof cmd, "'%s' run '%s' --threads 0", SETTEE_CLI, scene);
    cr_assert_eq(test_run(cmd, out, sizeof out), 2, "%s", out);
    cr_assert(strstr(out, "--threads"), "%s", out);
    snprintf(cmd, sizeof cmd, "SETTEE_THREADS=many '%s' run '%s'", SETTEE_CLI, scene);
    cr_assert_eq(test_run(cmd, out, sizeof out), 2, "%s", out);
    cr_assert(strstr(out, "SETTEE_THREADS"), "%s", out);
}
