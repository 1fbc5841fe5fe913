/* test_beam_solvers.c - the 4x4x11 spring beam of the seeds (RegularGridTopology,
 * UniformMass, MeshSpringForceField, base fixed by BoxROI +
 * FixedProjectiveConstraint) integrated by EulerImplicitSolver with
 * SparseLDLSolver, SparseLUSolver, assembled CG and matrix-free CG: the
 * trajectories agree with each other, and the first step's linear system,
 * assembled and solved densely by LAPACK (dgesv), gives the same solution
 * and the same state. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

#define STEPS 20
#define H 0.01

/* The beam with the given linear solver line (the solver is named "ls"). */
/* A named component of the scene (the test fails without it). */
static st_component *find(st_scene *s, const char *name)
{
    st_component *c = test_find_object(s, name);
    cr_assert_not_null(c, "no object %s", name);
    return c;
}

static st_scene *beam(test_rt *t, const char *solver)
{
    const char *yaml = test_beam_yaml(
        "", "EulerImplicitSolver: {name: ode, rayleighStiffness: 0.1, rayleighMass: 0.1}", solver);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(t, yaml, &s, &err), ST_OK, "load: %s\n%s", err.msg, t->log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s\n%s", err.msg, t->log);
    cr_assert_eq(s->nsystems, 1u);
    return s;
}

static const char *const solver_lines[] = {
    "SparseLDLSolver: {name: ls, template: CompressedRowSparseMatrixMat3x3d}",
    "SparseLUSolver: {name: ls}",
    "CGLinearSolver: {name: ls, template: CompressedRowSparseMatrixMat3x3d, iterations: 5000,\n"
    "                           tolerance: 1e-15, threshold: 1e-300}",
    "CGLinearSolver: {name: ls, iterations: 5000, tolerance: 1e-15, threshold: 1e-300}",
};
static const char *const solver_names[] = {"SparseLDLSolver", "SparseLUSolver", "assembled CG",
                                           "matrix-free CG"};
#define NSOLVERS (sizeof solver_lines / sizeof *solver_lines)

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

/* The scene's mechanical layout is what the seeds describe. */
Test(beam_solvers, beam_layout)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = beam(&t, solver_lines[0]);
    st_system *sys = s->systems[0];
    cr_assert_eq(sys->ndof, 176u, "4 x 4 x 11 vertices, got %zu", sys->ndof);
    st_component *box = find(s, "box");
    const st_array *idx = st_component_field_ptr(box, st_component_field(box, "indices"));
    cr_assert_eq(idx->n, 16u, "the base layer is fixed, got %zu indices", idx->n);
    /* st__system_components returns the system's own lists. */
    st_component *c[4];
    cr_assert_eq(st__system_components(sys, ST_ROLE_MASS, c, 4), 1u);
    cr_assert_str_eq(c[0]->cls->name, "UniformMass");
    cr_assert_eq(st__system_components(sys, ST_ROLE_FORCEFIELD, c, 4), 1u);
    cr_assert_eq(c[0], find(s, "springs"));
    cr_assert_eq(st__system_components(sys, ST_ROLE_PROJECTIVE, NULL, 0), 1u);
    cr_assert_eq(st__system_components(sys, ST_ROLE_PROJECTIVE, c, 4), 1u);
    cr_assert_eq(c[0], find(s, "fixed"));
    cr_assert_eq(st__system_components(sys, ST_ROLE_LINSOLVER, c, 4), 0u);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Positions and velocities after STEPS steps with solver k. */
static void run(size_t k, double *x, double *v, size_t *n)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = beam(&t, solver_lines[k]);
    st_error err = {0};
    for (int i = 0; i < STEPS; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s step %d: %s", solver_names[k], i,
                     err.msg);
    st_mstate *ms = (st_mstate *)find(s, "dofs");
    *n = 3 * ms->n;
    memcpy(x, ms->position.r, *n * sizeof *x);
    memcpy(v, ms->velocity.r, *n * sizeof *v);
    if (strstr(solver_lines[k], "CGLinearSolver")) {
        st_component *cg = find(s, "ls");
        const unsigned *it = st_component_field_ptr(cg, st_component_field(cg, "nbIterations"));
        const double *res = st_component_field_ptr(cg, st_component_field(cg, "residual"));
        cr_assert_lt(*it, 5000u, "%s did not converge", solver_names[k]);
        cr_assert_leq(*res, 1e-15, "%s residual %.3g", solver_names[k], *res);
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(beam_solvers, trajectories_agree)
{
    static double x0[3 * 176], v0[3 * 176], x[3 * 176], v[3 * 176];
    size_t n = 0, m = 0;
    run(0, x0, v0, &n);
    cr_assert_eq(n, 3 * 176u);
    /* The tip (last vertex: x = y = 1.5, z = 10) sags under gravity. */
    cr_assert_lt(x0[n - 2], 1.5 - 1e-3, "tip y %.17g", x0[n - 2]);
    /* The base stays put. */
    cr_assert_eq(x0[1], -1.5);
    cr_assert_eq(v0[1], 0.0);
    const double xs = max_abs(x0, n), vs = max_abs(v0, n);
    for (size_t k = 1; k < NSOLVERS; k++) {
        run(k, x, v, &m);
        cr_assert_eq(m, n);
        double dx = max_abs_diff(x, x0, n) / xs, dv = max_abs_diff(v, v0, n) / vs;
        cr_log_info("%s vs SparseLDLSolver after %d steps: x %.3g, v %.3g (relative)",
                    solver_names[k], STEPS, dx, dv);
        cr_assert(dx <= 1e-10, "%s: positions differ from SparseLDLSolver by %.3g (relative)",
                  solver_names[k], dx);
        cr_assert(dv <= 1e-8, "%s: velocities differ from SparseLDLSolver by %.3g (relative)",
                  solver_names[k], dv);
    }
}

/* The first step, rebuilt by hand: b and A as EulerImplicitSolver builds
 * them (sofa-notes 3.1, rK = rM = 0.1), A assembled by st_matrix_assemble
 * and solved densely by LAPACK; every solver's solution of the same system,
 * and the state after the scene's own first step, agree with it. */
Test(beam_solvers, first_step_matches_dense_lapack)
{
    const double rk = 0.1, rm = 0.1;
    const double mf = 1 + H * rm, bf = -H, kf = -H * (H + rk);
    for (size_t k = 0; k < NSOLVERS; k++) {
        test_rt t;
        test_rt_open(&t);
        st_scene *s = beam(&t, solver_lines[k]);
        st_system *sys = s->systems[0];
        const size_t n = sys->size, nall3 = 3 * sys->nall;
        st_error err = {0};
        double *x0 = calloc(nall3, sizeof *x0), *v0 = calloc(nall3, sizeof *v0);
        double *f = calloc(nall3, sizeof *f), *b = calloc(nall3, sizeof *b);
        double *xd = calloc(n, sizeof *xd), *sol = calloc(nall3, sizeof *sol);
        double *dense = calloc(n * n, sizeof *dense), *y = calloc(n, sizeof *y);
        memcpy(x0, sys->x, nall3 * sizeof *x0);
        memcpy(v0, sys->v, nall3 * sizeof *v0);
        /* Give the beam a velocity so that every term of b is exercised. */
        for (size_t i = 0; i < n; i++)
            sys->v[i] = 0.01 * sin(0.37 * (double)i);
        st_system_project_velocity(sys, sys->v);
        memcpy(v0, sys->v, nall3 * sizeof *v0);

        /* b = P h (f - rM M v + (h + rK) K v). */
        sys->mp.implicit = true;
        st_system_compute_force(sys, f, sys->x, sys->v);
        memcpy(b, f, nall3 * sizeof *b);
        st_system_add_mbkdx(sys, b, sys->v, -rm, 0.0, H + rk, false);
        for (size_t i = 0; i < n; i++)
            b[i] *= H;
        st_system_project_response(sys, b);
        cr_assert_gt(max_abs(b, n), 1e-6, "a non-trivial right-hand side");

        /* A, dense, column-major. */
        st_matrix *mat = NULL;
        cr_assert_eq(st_matrix_create(sys, &mat, &err), ST_OK, "%s", err.msg);
        cr_assert_eq(st_matrix_assemble(mat, sys, mf, bf, kf, &err), ST_OK, "%s", err.msg);
        st_csr a;
        st_matrix_csr(mat, &a);
        cr_assert_eq(a.n, n);
        for (size_t i = 0; i < n; i++)
            for (int q = a.rowptr[i]; q < a.rowptr[i + 1]; q++)
                dense[(size_t)a.colind[q] * n + i] = a.values[q];
        /* The assembled matrix is symmetric and its product is the
         * matrix-free one (on the unconstrained DOFs). */
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < i; j++)
                cr_assert(fabs(dense[i * n + j] - dense[j * n + i]) <= 1e-13,
                          "A not symmetric at (%zu, %zu)", i, j);
        st_matrix_mul(mat, y, b);
        memset(sol, 0, nall3 * sizeof *sol);
        st_system_add_mbkdx(sys, sol, b, mf, bf, kf, true);
        st_system_project_response(sys, sol);
        double dm = max_abs_diff(y, sol, n);
        cr_assert(dm <= 1e-12 * max_abs(y, n), "A b differs from the matrix-free product by %.3g",
                  dm);

        memcpy(xd, b, n * sizeof *xd);
        int info = test_dense_solve((int)n, dense, xd);
        cr_assert_eq(info, 0, "dgesv info %d", info);
        const double xmax = max_abs(xd, n);

        /* The solver's own solution of the same system. */
        st_component *ls = find(s, "ls");
        memset(sol, 0, nall3 * sizeof *sol);
        cr_assert_eq(ls->cls->linsolver->set_system(ls, sys, mf, bf, kf, &err), ST_OK, "%s",
                     err.msg);
        cr_assert_eq(ls->cls->linsolver->solve(ls, sys, sol, b, &err), ST_OK, "%s", err.msg);
        double d = max_abs_diff(sol, xd, n) / xmax;
        cr_log_info("%s vs dgesv: %.3g (relative)", solver_names[k], d);
        cr_assert(d <= 1e-10, "%s differs from LAPACK by %.3g (relative, |x| %.3g)",
                  solver_names[k], d, xmax);

        /* The scene's first step from the same state gives v + x_lapack and
         * x + h (v + x_lapack). */
        memcpy(sys->x, x0, nall3 * sizeof *x0);
        memcpy(sys->v, v0, nall3 * sizeof *v0);
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
        double ev = 0, ex = 0, vs = 0, xs = 0;
        for (size_t i = 0; i < n; i++) {
            double vw = v0[i] + xd[i], xw = x0[i] + H * vw;
            ev = fmax(ev, fabs(sys->v[i] - vw));
            ex = fmax(ex, fabs(sys->x[i] - xw));
            vs = fmax(vs, fabs(vw));
            xs = fmax(xs, fabs(xw));
        }
        cr_log_info("%s first step vs dgesv: v %.3g, x %.3g (relative)", solver_names[k], ev / vs,
                    ex / xs);
        cr_assert(ev <= 1e-10 * vs, "%s: v after step 1 differs from LAPACK by %.3g",
                  solver_names[k], ev / vs);
        cr_assert(ex <= 1e-12 * xs, "%s: x after step 1 differs from LAPACK by %.3g",
                  solver_names[k], ex / xs);

        st_matrix_destroy(&mat);
        free(x0);
        free(v0);
        free(f);
        free(b);
        free(xd);
        free(sol);
        free(dense);
        free(y);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}
