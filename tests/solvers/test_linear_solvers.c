/* test_linear_solvers.c - the linear solvers (SparseLDLSolver,
 * SparseCholeskySolver, SparseLUSolver, CGLinearSolver matrix-free and
 * assembled, PCGLinearSolver with JacobiPreconditioner) against a dense
 * LAPACK solve (dgesv) of the same assembled system; whole trajectories
 * agreeing across solvers; the errors of singular and indefinite matrices;
 * the LDL^T fall-back. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_test_util.h"

/* A small spring lattice: 2 x 2 x 4 grid, base fixed, every linear solver in
 * the node; the ODE solver uses the one named by `use`. */
static st_scene *lattice(test_rt *t, const char *use)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, -9.81, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative,\n"
             "                      LinearSolver.Direct, Mass, SolidMechanics.Spring,\n"
             "                      Constraint.Projective, Topology]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "  children:\n"
             "    - name: Beam\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {name: ode, rayleighStiffness: 0.1, rayleighMass: 0.1,\n"
             "                                linearSolver: \"@%s\"}\n"
             "        - SparseLDLSolver: {name: ldl, template: CompressedRowSparseMatrixMat3x3d}\n"
             "        - SparseLUSolver: {name: lu, permutation: SuiteSparse}\n"
             "        - SparseCholeskySolver: {name: chol, permutation: METIS}\n"
             "        - CGLinearSolver: {name: cg, iterations: 2000, tolerance: 1e-14,\n"
             "                           threshold: 1e-30}\n"
             "        - CGLinearSolver: {name: cga, template: CompressedRowSparseMatrixMat3x3d,\n"
             "                           iterations: 2000, tolerance: 1e-14, threshold: 1e-30}\n"
             "        - JacobiPreconditioner: {name: jacobi}\n"
             "        - PCGLinearSolver: {name: pcg, iterations: 2000, tolerance: 1e-28,\n"
             "                            preconditioner: \"@jacobi\"}\n"
             "        - MechanicalObject: {name: dofs}\n"
             "        - RegularGridTopology: {name: grid, nx: 2, ny: 2, nz: 4, xmin: 0, xmax: 1,\n"
             "                                ymin: 0, ymax: 1, zmin: 0, zmax: 3}\n"
             "        - UniformMass: {totalMass: 4}\n"
             "        - FixedProjectiveConstraint: {indices: [0, 1, 2, 3]}\n"
             "        - MeshSpringForceField: {stiffness: 300, damping: 1}\n",
             use);
    return scene_load(t, yaml);
}

static double max_abs_diff(const double *a, const double *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

Test(linear_solvers, agree_with_dense_lapack)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = lattice(&t, "ldl");
    st_error err = {0};
    for (int i = 0; i < 5; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_system *sys = s->systems[0];
    const size_t n = sys->size;
    const double h = 0.01, mf = 1 + h * 0.1, bf = -h, kf = -h * (h + 0.1);

    /* The dense matrix from our own assembly. */
    st_matrix *m = NULL;
    cr_assert_eq(st_matrix_create(sys, &m, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(m, sys, mf, bf, kf, &err), ST_OK, "%s", err.msg);
    st_csr a;
    st_matrix_csr(m, &a);
    cr_assert_eq(a.n, n);
    double *dense = calloc(n * n, sizeof *dense);
    for (size_t i = 0; i < n; i++)
        for (int k = a.rowptr[i]; k < a.rowptr[i + 1]; k++)
            dense[(size_t)a.colind[k] * n + i] = a.values[k]; /* column-major */
    /* A projected right-hand side. */
    double *b = calloc(3 * sys->nall, sizeof *b), *xd = calloc(n, sizeof *xd);
    srand(7);
    for (size_t i = 0; i < n; i++)
        b[i] = (double)rand() / RAND_MAX - 0.5;
    st_system_project_response(sys, b);
    memcpy(xd, b, n * sizeof *xd);
    int info = test_dense_solve((int)n, dense, xd);
    cr_assert_eq(info, 0, "dgesv info %d", info);
    double xmax = 0;
    for (size_t i = 0; i < n; i++)
        xmax = fmax(xmax, fabs(xd[i]));
    cr_assert_gt(xmax, 1e-6, "a non-trivial solution");

    static const char *const names[] = {"ldl", "lu", "chol", "cg", "cga", "pcg"};
    double *x = calloc(3 * sys->nall, sizeof *x);
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        st_component *ls = scene_object(s, names[k]);
        memset(x, 0, 3 * sys->nall * sizeof *x);
        cr_assert_eq(ls->cls->linsolver->set_system(ls, sys, mf, bf, kf, &err), ST_OK, "%s: %s",
                     names[k], err.msg);
        cr_assert_eq(ls->cls->linsolver->solve(ls, sys, x, b, &err), ST_OK, "%s: %s", names[k],
                     err.msg);
        double d = max_abs_diff(x, xd, n);
        cr_assert(d <= 1e-10 * xmax, "%s differs from LAPACK by %.3g (|x| %.3g)", names[k], d,
                  xmax);
    }
    /* The CG outputs report what happened. */
    st_component *cg = scene_object(s, "cg");
    const unsigned *iters = st_component_field_ptr(cg, st_component_field(cg, "nbIterations"));
    const double *res = st_component_field_ptr(cg, st_component_field(cg, "residual"));
    cr_assert_gt(*iters, 1u);
    cr_assert_lt(*iters, 2000u);
    cr_assert_leq(*res, 1e-14);
    free(x);
    free(b);
    free(xd);
    free(dense);
    st_matrix_destroy(&m);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Positions after 30 steps with the given linear solver. */
static void trajectory(const char *use, double *out, size_t *n)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = lattice(&t, use);
    st_error err = {0};
    for (int i = 0; i < 30; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s: %s", use, err.msg);
    st_mstate *ms = scene_state(s, "dofs");
    *n = 3 * ms->n;
    memcpy(out, ms->position.r, *n * sizeof *out);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(linear_solvers, trajectories_agree)
{
    double ref[256], x[256];
    size_t n = 0, m = 0;
    trajectory("ldl", ref, &n);
    cr_assert_eq(n, 48u);
    /* The tip moved. */
    cr_assert(fabs(ref[n - 2] - 1.0) > 1e-3, "tip y %.17g", ref[n - 2]);
    static const char *const names[] = {"lu", "chol", "cg", "cga", "pcg"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        trajectory(names[k], x, &m);
        cr_assert_eq(m, n);
        double d = max_abs_diff(x, ref, n);
        cr_assert(d <= 1e-10, "%s differs from SparseLDLSolver by %.3g", names[k], d);
    }
}

/* An int output field of a component. */
static int int_output(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    cr_assert_not_null(f, "no field %s", name);
    return *(const int *)st_component_field_ptr(c, f);
}

/* SparseLDLSolver analyses the pattern once per run and refactors every
 * step; with precomputeSymbolicDecomposition false it analyses every step.
 * Every ordering gives the same trajectory to round-off. */
Test(linear_solvers, symbolic_analysis_once_per_pattern)
{
    static const char *const orderings[] = {"METIS", "AMD", "natural"};
    double ref[256], x[256];
    for (int k = 0; k < 3; k++) {
        for (int precompute = 1; precompute >= 0; precompute--) {
            test_rt t;
            test_rt_open(&t);
            st_scene *s = lattice(&t, "ldl");
            st_component *ldl = scene_object(s, "ldl");
            st_error err = {0};
            if (k > 0)
                cr_assert_eq(st_component_set(ldl, "ordering", orderings[k], &err), ST_OK, "%s",
                             err.msg);
            else
                cr_assert_str_eq(*(char **)st_component_field_ptr(
                                     ldl, st_component_field(ldl, "ordering")),
                                 "METIS");
            if (!precompute)
                cr_assert_eq(st_component_set(ldl, "precomputeSymbolicDecomposition", "false",
                                              &err),
                             ST_OK, "%s", err.msg);
            cr_assert_eq(ldl->cls->init(ldl, &err), ST_OK, "%s", err.msg);
            cr_assert_eq(ldl->cls->linsolver->bind(ldl, s->systems[0], &err), ST_OK, "%s",
                         err.msg);
            cr_assert_eq(int_output(ldl, "symbolicAnalyses"), 0);
            for (int i = 0; i < 7; i++)
                cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
            cr_assert_eq(int_output(ldl, "symbolicAnalyses"), precompute ? 1 : 7, "%s: %d",
                         orderings[k], int_output(ldl, "symbolicAnalyses"));
            cr_assert_gt(int_output(ldl, "L_nnz"), 0);
            st_mstate *ms = scene_state(s, "dofs");
            memcpy(k == 0 && precompute ? ref : x, ms->position.r, 3 * ms->n * sizeof(double));
            if (k > 0 || !precompute) {
                double d = max_abs_diff(x, ref, 3 * ms->n);
                cr_assert(d <= 1e-12, "%s: differs from METIS by %.3g", orderings[k], d);
            }
            st_scene_destroy(&s);
            test_rt_close(&t);
        }
    }
}

/* A 2 x 2 x 4 lattice stepped 5 times by the direct solver `solver`
 * (SparseLDLSolver, SparseCholeskySolver or SparseLUSolver, written with its
 * options, e.g. "SparseLDLSolver: {name: ls}") beside the objects `extra`.
 * Returns the status of load + init + steps; on success *l_nnz is the
 * solver's L_nnz and tip_y the last node's y. */
static st_status ordering_run(const char *solver, const char *extra, int *l_nnz, double *tip_y,
                              st_error *err)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct,\n"
             "                      LinearSolver.Ordering, Mass, SolidMechanics.Spring,\n"
             "                      Constraint.Projective, Topology]}\n"
             "  children:\n"
             "    - name: Beam\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {linearSolver: \"@ls\"}\n"
             "        - %s\n"
             "%s"
             "        - MechanicalObject: {name: dofs}\n"
             "        - RegularGridTopology: {nx: 2, ny: 2, nz: 4, xmin: 0, xmax: 1,\n"
             "                                ymin: 0, ymax: 1, zmin: 0, zmax: 3}\n"
             "        - UniformMass: {totalMass: 4}\n"
             "        - FixedProjectiveConstraint: {indices: [0, 1, 2, 3]}\n"
             "        - MeshSpringForceField: {stiffness: 300, damping: 1}\n",
             solver, extra);
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_status st = scene_try_load(&t, yaml, &s, err);
    for (int i = 0; i < 5 && st == ST_OK; i++)
        st = st_scene_step(s, 0, err);
    if (st == ST_OK) {
        st_component *ls = scene_object(s, "ls");
        *l_nnz = int_output(ls, "L_nnz");
        st_mstate *ms = scene_state(s, "dofs");
        *tip_y = ms->position.r[3 * ms->n - 2];
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
    return st;
}

/* SOFA's ordering components choose the ordering of each direct solver,
 * linked or found in the node, exactly as the solver's own option would:
 * the factor has the same size, the trajectory the same numbers. */
Test(linear_solvers, ordering_components_choose_the_ordering)
{
    static const struct {
        const char *component, *ldl_option, *permutation;
    } cases[] = {{"MetisOrderingMethod", "METIS", "METIS"},
                 {"AMDOrderingMethod", "AMD", "SuiteSparse"},
                 {"NaturalOrderingMethod", "natural", "None"}};
    static const char *const solvers[] = {"SparseLDLSolver", "SparseCholeskySolver",
                                          "SparseLUSolver"};
    int nnz_natural_ldl = 0, nnz_metis_ldl = 0;
    for (size_t k = 0; k < 3; k++)
        for (size_t j = 0; j < 3; j++) {
            char option[256], linked[256], local[128], extra[128];
            snprintf(option, sizeof option, "%s: {name: ls, %s: %s}", solvers[j],
                     j == 0 ? "ordering" : "permutation",
                     j == 0 ? cases[k].ldl_option : cases[k].permutation);
            snprintf(linked, sizeof linked, "%s: {name: ls, orderingMethod: \"@order\"}",
                     solvers[j]);
            snprintf(local, sizeof local, "%s: {name: ls}", solvers[j]);
            snprintf(extra, sizeof extra, "        - %s: {name: order}\n", cases[k].component);
            int n_opt = 0, n_link = 0, n_local = 0;
            double y_opt = 0, y_link = 0, y_local = 0;
            st_error err = {0};
            cr_assert_eq(ordering_run(option, "", &n_opt, &y_opt, &err), ST_OK, "%s", err.msg);
            cr_assert_eq(ordering_run(linked, extra, &n_link, &y_link, &err), ST_OK, "%s",
                         err.msg);
            cr_assert_eq(ordering_run(local, extra, &n_local, &y_local, &err), ST_OK, "%s",
                         err.msg);
            cr_assert_eq(n_link, n_opt, "%s %s: L_nnz %d vs %d", solvers[j], cases[k].component,
                         n_link, n_opt);
            cr_assert_eq(n_local, n_opt, "%s %s: L_nnz %d vs %d", solvers[j],
                         cases[k].component, n_local, n_opt);
            cr_assert(fabs(y_link - y_opt) <= 1e-13 && fabs(y_local - y_opt) <= 1e-13,
                      "%s %s: %.17g %.17g %.17g", solvers[j], cases[k].component, y_opt, y_link,
                      y_local);
            if (j == 0 && k == 0)
                nnz_metis_ldl = n_opt;
            if (j == 0 && k == 2)
                nnz_natural_ldl = n_opt;
        }
    /* The orderings differ, so the comparisons above can tell them apart. */
    cr_assert_neq(nnz_metis_ldl, nnz_natural_ldl);
    /* COLAMD is an LU ordering: SparseLUSolver takes it, the others refuse it. */
    int n = 0;
    double y = 0, y_ref = 0;
    st_error err = {0};
    cr_assert_eq(ordering_run("SparseLUSolver: {name: ls}", "", &n, &y_ref, &err), ST_OK, "%s",
                 err.msg);
    cr_assert_eq(ordering_run("SparseLUSolver: {name: ls}",
                              "        - COLAMDOrderingMethod: {}\n", &n, &y, &err),
                 ST_OK, "%s", err.msg);
    cr_assert(fabs(y - y_ref) <= 1e-13, "%.17g %.17g", y, y_ref);
    cr_assert_eq(ordering_run("SparseLDLSolver: {name: ls}",
                              "        - COLAMDOrderingMethod: {name: col}\n", &n, &y, &err),
                 ST_ESCENE);
    cr_assert(strstr(err.msg, "COLAMDOrderingMethod 'col'") && strstr(err.msg, "symmetric"),
              "%s", err.msg);
}

Test(linear_solvers, ordering_component_errors)
{
    int n = 0;
    double y = 0;
    st_error err = {0};
    /* Both the option and a component. */
    cr_assert_eq(ordering_run("SparseLDLSolver: {name: ls, ordering: AMD}",
                              "        - MetisOrderingMethod: {name: order}\n", &n, &y, &err),
                 ST_ESCENE);
    cr_assert(strstr(err.msg, "'ordering'") && strstr(err.msg, "'order'"), "%s", err.msg);
    cr_assert(strstr(err.where, ".yaml:"), "where: %s", err.where);
    /* A link to something that is not an ordering. */
    cr_assert_eq(ordering_run("SparseCholeskySolver: {name: ls, orderingMethod: \"@dofs\"}", "",
                              &n, &y, &err),
                 ST_ELINK);
    cr_assert(strstr(err.msg, "MechanicalObject") && strstr(err.msg, "not an ordering method"),
              "%s", err.msg);
}

Test(linear_solvers, singular_matrix_is_an_error)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = lattice(&t, "ldl");
    st_system *sys = s->systems[0];
    st_error err = {0};
    /* The zero matrix (with the constrained rows set to identity). */
    st_component *ldl = scene_object(s, "ldl");
    cr_assert_eq(ldl->cls->linsolver->set_system(ldl, sys, 0, 0, 0, &err), ST_ESOLVER);
    cr_assert(strstr(err.msg, "singular") && strstr(err.msg, "CHOLMOD_NOT_POSDEF"), "%s",
              err.msg);
    cr_assert(strstr(err.msg, "factorization 1"), "%s", err.msg);
    cr_assert(strstr(err.path, "ldl"), "path %s", err.path);
    st_error_clear(&err);
    st_component *lu = scene_object(s, "lu");
    cr_assert_eq(lu->cls->linsolver->set_system(lu, sys, 0, 0, 0, &err), ST_ESOLVER);
    cr_assert(strstr(err.msg, "UMFPACK_WARNING_singular_matrix"), "%s", err.msg);
    cr_assert(strstr(err.path, "lu"), "path %s", err.path);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(linear_solvers, singular_system_stops_the_run)
{
    /* StaticSolver on a spring that has no stiffness across itself: -K is
     * singular and the step fails with the solver's name and status. */
    test_rt t;
    test_rt_open(&t);
    const char *yaml =
        "format: settee/1\n"
        "root:\n"
        "  name: root\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct, Mass,\n"
        "                                    SolidMechanics.Spring, Constraint.Projective]}\n"
        "    - StaticSolver: {}\n"
        "    - NewtonRaphsonSolver: {}\n"
        "    - SparseLDLSolver: {name: theLDL}\n"
        "    - MechanicalObject: {name: dofs, position: [0, 1, 0, 0, 0, 0]}\n"
        "    - UniformMass: {vertexMass: 1}\n"
        "    - SpringForceField: {spring: \"0 1 100 0 1\"}\n"
        "    - FixedProjectiveConstraint: {indices: [0]}\n";
    st_scene *s = scene_load(&t, yaml);
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_ESOLVER);
    cr_assert(strstr(err.msg, "CHOLMOD_NOT_POSDEF"), "%s", err.msg);
    cr_assert(strstr(err.path, "theLDL"), "path %s", err.path);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(linear_solvers, ldl_falls_back_on_indefinite_matrices)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = lattice(&t, "ldl");
    st_system *sys = s->systems[0];
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    /* -M: negative definite off the constrained rows (which are +1): LL^T
     * fails, LDL^T factors it. */
    double *b = calloc(3 * sys->nall, sizeof *b), *x = calloc(3 * sys->nall, sizeof *x);
    for (size_t i = 0; i < sys->size; i++)
        b[i] = 1.0 + (double)i;
    st_system_project_response(sys, b);
    st_component *ldl = scene_object(s, "ldl");
    cr_assert_eq(ldl->cls->linsolver->set_system(ldl, sys, -1, 0, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(ldl->cls->linsolver->solve(ldl, sys, x, b, &err), ST_OK, "%s", err.msg);
    const double vm = 4.0 / 16.0; /* vertex mass */
    for (size_t i = 0; i < sys->size; i++)
        cr_assert(fabs(x[i] + b[i] / vm) <= 1e-12 * fabs(b[i] / vm) + 1e-300, "x[%zu] %.17g", i,
                  x[i]);
    /* SparseCholeskySolver refuses it. */
    st_component *chol = scene_object(s, "chol");
    cr_assert_eq(chol->cls->linsolver->set_system(chol, sys, -1, 0, 0, &err), ST_ESOLVER);
    cr_assert(strstr(err.msg, "not positive definite") && strstr(err.msg, "CHOLMOD_NOT_POSDEF"),
              "%s", err.msg);
    free(b);
    free(x);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(linear_solvers, bad_template_is_an_error)
{
    test_rt t;
    test_rt_open(&t);
    const char *yaml = "format: settee/1\n"
                       "root:\n"
                       "  name: root\n"
                       "  objects:\n"
                       "    - RequiredPlugin: {pluginName: [LinearSolver.Direct]}\n"
                       "    - SparseLDLSolver: {template: GraphScattered}\n";
    scene_refused(&t, yaml, "GraphScattered");
    test_rt_close(&t);
}

Test(linear_solvers, no_allocation_in_steps)
{
    static const char *const names[] = {"ldl", "lu", "cg", "cga", "pcg"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        test_rt t;
        test_rt_open(&t);
        st_scene *s = lattice(&t, names[k]);
        scene_steps(&t, s, 1);
        scene_steps_allocate_nothing(&t, s, 10, names[k]);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* EulerExplicitSolver with a non-diagonal mass solves M a = f through the
 * linear solver. A test mass, tridiagonal and positive definite: m on the
 * diagonal, m/4 between consecutive vertices. */
typedef struct test_mass {
    st_component base;
    double m;
} test_mass;

static const st_field test_mass_fields[] = {
    ST_REAL(test_mass, m, "vertexMass", "1", "diagonal mass"), ST_FIELD_END};

static void tm_add_m_dx(st_component *self, const st_mparams *mp, double *res, const double *dx,
                        double factor)
{
    const double m = ((test_mass *)self)->m;
    st_mstate *ms = st_component_mstate(self);
    double *r = st_slice(res, ms);
    const double *d = st_slice(dx, ms);
    for (size_t i = 0; i < ms->n; i++)
        for (int a = 0; a < 3; a++) {
            double s = m * d[3 * i + a];
            if (i > 0)
                s += m / 4 * d[3 * (i - 1) + a];
            if (i + 1 < ms->n)
                s += m / 4 * d[3 * (i + 1) + a];
            r[3 * i + a] += factor * s;
        }
}

static void tm_add_m_to_matrix(st_component *self, const st_mparams *mp, st_matrix *mat,
                               double factor)
{
    const double m = ((test_mass *)self)->m;
    st_mstate *ms = st_component_mstate(self);
    const double e = factor * m / 4;
    const double b[9] = {e, 0, 0, 0, e, 0, 0, 0, e};
    for (size_t i = 0; i < ms->n; i++) {
        st_matrix_add_diag(mat, ms, i, factor * m);
        if (i + 1 < ms->n) {
            st_matrix_add_block(mat, ms, i, ms, i + 1, b);
            st_matrix_add_block(mat, ms, i + 1, ms, i, b);
        }
    }
}

static void tm_gravity(st_component *self, const st_mparams *mp, double *f, const double *x,
                       const double *v)
{
    const double m = ((test_mass *)self)->m;
    st_mstate *ms = st_component_mstate(self);
    double *fs = st_slice(f, ms);
    for (size_t i = 0; i < ms->n; i++) {
        double row = m + (i > 0 ? m / 4 : 0) + (i + 1 < ms->n ? m / 4 : 0);
        for (int a = 0; a < 3; a++)
            fs[3 * i + a] += row * mp->gravity[a];
    }
}

static bool tm_is_diagonal(const st_component *self) { return false; }

static const st_mass_ops tm_ops = {
    .struct_size = sizeof(st_mass_ops),
    .add_m_dx = tm_add_m_dx,
    .add_m_to_matrix = tm_add_m_to_matrix,
    .add_gravity_to_force = tm_gravity,
    .is_diagonal = tm_is_diagonal,
};

static const st_class test_mass_class = {
    .struct_size = sizeof(st_class),
    .name = "TestConsistentMass",
    .category = "Mass",
    .description = "test tridiagonal mass",
    .instance_size = sizeof(test_mass),
    .fields = test_mass_fields,
    .mass = &tm_ops,
};

static void explicit_consistent_mass(const char *linsolver, double *out, size_t *n)
{
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    cr_assert_eq(st_registry_add(st_runtime_registry(t.rt), &test_mass_class, &err), ST_OK, "%s",
                 err.msg);
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, -9.81, 0]\n"
             "  dt: 0.001\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Forward, LinearSolver.Iterative,\n"
             "                      LinearSolver.Direct, SolidMechanics.Spring,\n"
             "                      Constraint.Projective, Topology]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "  children:\n"
             "    - name: Beam\n"
             "      objects:\n"
             "        - EulerExplicitSolver: {}\n"
             "        - %s\n"
             "        - MechanicalObject: {name: dofs}\n"
             "        - RegularGridTopology: {name: grid, nx: 2, ny: 2, nz: 4, xmin: 0, xmax: 1,\n"
             "                                ymin: 0, ymax: 1, zmin: 0, zmax: 3}\n"
             "        - TestConsistentMass: {vertexMass: 0.25}\n"
             "        - FixedProjectiveConstraint: {indices: [0, 1, 2, 3]}\n"
             "        - MeshSpringForceField: {stiffness: 300}\n",
             linsolver);
    st_scene *s = scene_load(&t, yaml);
    st_mstate *ms = scene_state(s, "dofs");
    for (int i = 0; i < 50; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s: %s", linsolver, err.msg);
    *n = 3 * ms->n;
    memcpy(out, ms->position.r, *n * sizeof *out);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(linear_solvers, explicit_solver_with_consistent_mass)
{
    double a[256], b[256], c[256];
    size_t na = 0, nb = 0, nc = 0;
    explicit_consistent_mass("SparseLDLSolver: {}", a, &na);
    explicit_consistent_mass("SparseLUSolver: {}", b, &nb);
    explicit_consistent_mass("CGLinearSolver: {iterations: 1000, tolerance: 1e-14, "
                             "threshold: 1e-30}",
                             c, &nc);
    cr_assert_eq(na, 48u);
    cr_assert(fabs(a[na - 2] - 1.0) > 1e-4, "tip moved: %.17g", a[na - 2]);
    cr_assert(max_abs_diff(a, b, na) <= 1e-11, "LDL vs LU %.3g", max_abs_diff(a, b, na));
    cr_assert(max_abs_diff(a, c, na) <= 1e-10, "LDL vs CG %.3g", max_abs_diff(a, c, na));
}
