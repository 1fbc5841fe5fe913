/* test_btd_linear_solver.c - BTDLinearSolver (block tridiagonal Thomas
 * algorithm on 6x6 blocks):
 *   - on random block tridiagonal matrices (SPD and non-symmetric) put into
 *     the assembled matrix by a test mass, its solution is LAPACK's dgesv's;
 *   - a diagonal matrix takes SOFA's reciprocal-diagonal path: x = b / d
 *     exactly;
 *   - entries outside the three block diagonals are dropped (SOFA's
 *     BTDMatrix6d has no room for them): the solution is the banded part's,
 *     droppedEntries counts them and a warning says so;
 *   - a system whose size is not a multiple of 6 and a singular block are
 *     errors naming the solver;
 *   - a cantilever of Rigid3d beams (BeamFEMForceField, its matrix block
 *     tridiagonal) follows SparseLDLSolver's trajectory. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

#define MAXPTS 10
#define MAXDOF (3 * MAXPTS)

/* The matrix the test mass assembles (row-major ndof x ndof). */
static size_t npts = 8, ndof = 24;
static double dense_a[MAXDOF * MAXDOF];

static void dm_add_m_dx(st_component *self, const st_mparams *mp, double *res, const double *dx,
                        double factor)
{
    (void)mp;
    st_mstate *ms = st_component_mstate(self);
    double *r = st_slice(res, ms);
    const double *d = st_slice(dx, ms);
    for (size_t i = 0; i < ndof; i++) {
        double s = 0;
        for (size_t j = 0; j < ndof; j++)
            s += dense_a[i * ndof + j] * d[j];
        r[i] += factor * s;
    }
}

static void dm_add_m_to_matrix(st_component *self, const st_mparams *mp, st_matrix *mat,
                               double factor)
{
    (void)mp;
    st_mstate *ms = st_component_mstate(self);
    for (size_t bi = 0; bi < npts; bi++)
        for (size_t bj = 0; bj < npts; bj++) {
            double b[9];
            bool any = false;
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) {
                    b[3 * r + c] = factor * dense_a[(3 * bi + r) * ndof + 3 * bj + c];
                    any |= b[3 * r + c] != 0.0;
                }
            if (any)
                st_matrix_add_block(mat, ms, bi, ms, bj, b);
        }
}

static void dm_gravity(st_component *self, const st_mparams *mp, double *f, const double *x,
                       const double *v)
{
    (void)self, (void)mp, (void)f, (void)x, (void)v;
}

static bool dm_is_diagonal(const st_component *self)
{
    (void)self;
    return false;
}

static const st_mass_ops dm_ops = {
    .struct_size = sizeof(st_mass_ops),
    .add_m_dx = dm_add_m_dx,
    .add_m_to_matrix = dm_add_m_to_matrix,
    .add_gravity_to_force = dm_gravity,
    .is_diagonal = dm_is_diagonal,
};

static const st_class dense_mass_class = {
    .struct_size = sizeof(st_class),
    .name = "TestBandMatrixMass",
    .category = "Mass",
    .description = "test mass assembling dense_a",
    .instance_size = sizeof(st_component),
    .mass = &dm_ops,
};

/* A reproducible random matrix, zero outside the three 6x6 block diagonals;
 * symmetric positive definite or not. */
static void make_band(bool spd, unsigned seed)
{
    srand(seed);
    static double b[MAXDOF * MAXDOF];
    for (size_t i = 0; i < ndof * ndof; i++)
        b[i] = (double)rand() / RAND_MAX - 0.5;
    for (size_t i = 0; i < ndof; i++)
        for (size_t j = 0; j < ndof; j++) {
            long d = (long)(i / 6) - (long)(j / 6);
            double v = 0;
            if (d >= -1 && d <= 1) {
                v = spd ? 0.5 * (b[i * ndof + j] + b[j * ndof + i]) : b[i * ndof + j];
                if (i == j)
                    v += 6.0; /* diagonally dominant: SPD when symmetric */
            }
            dense_a[i * ndof + j] = v;
        }
}

static st_scene *band_scene(test_rt *t, const char *solver, st_error *err)
{
    cr_assert_eq(st_registry_add(st_runtime_registry(t->rt), &dense_mass_class, err), ST_OK, "%s",
                 err->msg);
    char pos[512] = "";
    size_t len = 0;
    for (size_t i = 0; i < npts; i++)
        len += (size_t)snprintf(pos + len, sizeof pos - len, "%s%zu,0,0", i ? ", " : "", i);
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, 0, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "  children:\n"
             "    - name: N\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {linearSolver: \"@ls\"}\n"
             "        - %s\n"
             "        - MechanicalObject: {name: dofs, position: [%s]}\n"
             "        - TestBandMatrixMass: {}\n",
             solver, pos);
    st_scene *s = NULL;
    cr_assert_eq(test_load_string(t, yaml, &s, err), ST_OK, "load: %s\n%s", err->msg, t->log);
    if (st_scene_init(s, err) != ST_OK) {
        st_scene_destroy(&s);
        return NULL;
    }
    return s;
}

static double max_abs(const double *a, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(a[i]));
    return m;
}

/* Solves dense_a x = b with BTDLinearSolver (x) and, when ref, ref a x = b
 * with dgesv for the matrix ref (row-major); returns the relative
 * difference. */
static double solve_vs_lapack(const double *ref, double *x, const double *b, test_rt *t,
                              int *dropped)
{
    st_error err = {0};
    st_scene *s = band_scene(t, "BTDLinearSolver: {name: ls}", &err);
    cr_assert_not_null(s, "init: %s", err.msg);
    st_system *sys = s->systems[0];
    cr_assert_eq(sys->size, ndof);
    st_component *ls = test_find_object(s, "ls");
    cr_assert_eq(ls->cls->linsolver->set_system(ls, sys, 1.0, 0.0, 0.0, &err), ST_OK, "%s",
                 err.msg);
    cr_assert_eq(ls->cls->linsolver->solve(ls, sys, x, b, &err), ST_OK, "%s", err.msg);
    *dropped = *(const int *)st_component_field_ptr(ls, st_component_field(ls, "droppedEntries"));
    double a[MAXDOF * MAXDOF], xd[MAXDOF];
    for (size_t i = 0; i < ndof; i++)
        for (size_t j = 0; j < ndof; j++)
            a[j * ndof + i] = ref[i * ndof + j]; /* column-major */
    memcpy(xd, b, ndof * sizeof *b);
    cr_assert_eq(test_dense_solve((int)ndof, a, xd), 0);
    double d = 0;
    for (size_t i = 0; i < ndof; i++)
        d = fmax(d, fabs(x[i] - xd[i]));
    st_scene_destroy(&s);
    return d / max_abs(xd, ndof);
}

Test(btd_linear_solver, random_band_matrices_against_lapack)
{
    npts = 8, ndof = 24; /* four 6x6 blocks */
    double b[MAXDOF], x[MAXDOF];
    for (size_t i = 0; i < ndof; i++)
        b[i] = cos(0.7 * (double)i) - 0.2;
    for (unsigned seed = 1; seed <= 3; seed++)
        for (int spd = 0; spd <= 1; spd++) {
            make_band(spd, seed);
            test_rt t;
            test_rt_open(&t);
            int dropped = -1;
            double d = solve_vs_lapack(dense_a, x, b, &t, &dropped);
            cr_log_info("seed %u %s: BTD vs dgesv %.3g", seed, spd ? "SPD" : "non-symmetric", d);
            cr_assert_leq(d, 1e-12, "seed %u (%s): BTD differs from dgesv by %.3g", seed,
                          spd ? "SPD" : "non-symmetric", d);
            cr_assert_eq(dropped, 0);
            cr_assert_null(strstr(t.log, "block diagonals"), "%s", t.log);
            test_rt_close(&t);
        }
}

/* A diagonal matrix: SOFA's shortcut inverts each block by its reciprocal
 * diagonal, so x_i = (1 / d_i) b_i to the last bit. */
Test(btd_linear_solver, diagonal_matrix_exact)
{
    npts = 4, ndof = 12;
    memset(dense_a, 0, sizeof dense_a);
    double b[MAXDOF], x[MAXDOF];
    for (size_t i = 0; i < ndof; i++) {
        dense_a[i * ndof + i] = 0.5 + 0.25 * (double)i;
        b[i] = 1.0 + (double)i;
    }
    test_rt t;
    test_rt_open(&t);
    int dropped = -1;
    (void)solve_vs_lapack(dense_a, x, b, &t, &dropped);
    for (size_t i = 0; i < ndof; i++)
        cr_assert_eq(x[i], (1.0 / dense_a[i * ndof + i]) * b[i], "x[%zu] = %.17g", i, x[i]);
    test_rt_close(&t);
}

/* Entries two blocks off the diagonal are left out, with a warning: the
 * solution is the banded matrix's. */
Test(btd_linear_solver, entries_outside_the_band_dropped_with_warning)
{
    npts = 8, ndof = 24;
    make_band(true, 7);
    double band[MAXDOF * MAXDOF];
    memcpy(band, dense_a, ndof * ndof * sizeof *band);
    /* Couple blocks 0 and 2 (DOFs 1 and 13), symmetrically. */
    dense_a[1 * ndof + 13] = dense_a[13 * ndof + 1] = 0.75;
    double b[MAXDOF], x[MAXDOF];
    for (size_t i = 0; i < ndof; i++)
        b[i] = sin(1.0 + (double)i);
    test_rt t;
    test_rt_open(&t);
    int dropped = -1;
    double d = solve_vs_lapack(band, x, b, &t, &dropped);
    cr_assert_leq(d, 1e-12, "not the banded part's solution: %.3g", d);
    /* The two entries sit in 3x3 blocks the test mass writes whole: the
     * dropped count is the non-zeros of those two blocks. */
    cr_assert_eq(dropped, 2, "droppedEntries %d", dropped);
    cr_assert(strstr(t.log, "2 non-zero entries outside its three block diagonals") &&
                  strstr(t.log, "largest magnitude 0.75"),
              "%s", t.log);
    test_rt_close(&t);
}

Test(btd_linear_solver, size_not_multiple_of_six_and_singular_block)
{
    npts = 5, ndof = 15;
    make_band(true, 3);
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    st_scene *s = band_scene(&t, "BTDLinearSolver: {name: ls}", &err);
    cr_assert_null(s);
    cr_assert(strstr(err.msg, "15 degrees of freedom, not a multiple of the block size 6") ||
                  strstr(t.log, "15 degrees of freedom, not a multiple of the block size 6"),
              "%s\n%s", err.msg, t.log);
    test_rt_close(&t);

    npts = 4, ndof = 12;
    make_band(true, 3);
    for (size_t j = 0; j < ndof; j++) /* row and column 8 zero: block 1 singular */
        dense_a[8 * ndof + j] = dense_a[j * ndof + 8] = 0.0;
    test_rt_open(&t);
    s = band_scene(&t, "BTDLinearSolver: {name: ls}", &err);
    cr_assert_not_null(s, "%s", err.msg);
    st_component *ls = test_find_object(s, "ls");
    cr_assert_eq(ls->cls->linsolver->set_system(ls, s->systems[0], 1.0, 0.0, 0.0, &err),
                 ST_ESOLVER);
    cr_assert(strstr(err.msg, "diagonal block 1") && strstr(err.msg, "singular"), "%s", err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* The template is SOFA's only one. */
Test(btd_linear_solver, template_checked)
{
    npts = 2, ndof = 6;
    make_band(true, 1);
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    st_scene *s = band_scene(&t, "BTDLinearSolver: {name: ls, template: BTDMatrix3d}", &err);
    cr_assert_null(s);
    cr_assert(strstr(err.msg, "expected BTDMatrix6d") || strstr(t.log, "expected BTDMatrix6d"),
              "%s\n%s", err.msg, t.log);
    test_rt_close(&t);
}

/* ---- scenes of Rigid3d beams ---- */

/* A cantilever of 7 Rigid3d beam elements along x, fixed at point 0, under
 * gravity; solver is the linear solver's line. Returns the positions after
 * `steps` steps in out (8 x 7 values). */
static void run_cantilever(const char *solver, int steps, double *out)
{
    char scn[4096];
    snprintf(scn, sizeof scn,
             "<Node name=\"root\" dt=\"0.01\" gravity=\"0 -9.81 0\">\n"
             "  <RequiredPlugin pluginName=\"ODESolver.Backward LinearSolver.Direct Mass "
             "SolidMechanics.FEM.Elastic Topology Constraint.Projective\"/>\n"
             "  <DefaultAnimationLoop/>\n"
             "  <Node name=\"beam\">\n"
             "    <EulerImplicitSolver rayleighStiffness=\"0.1\" rayleighMass=\"0.1\"/>\n"
             "    %s\n"
             "    <MechanicalObject template=\"Rigid3d\" name=\"dofs\" position=\"0 0 0 0 0 0 1 "
             " 1 0 0 0 0 0 1  2 0 0 0 0 0 1  3 0 0 0 0 0 1  4 0 0 0 0 0 1  5 0 0 0 0 0 1  6 0 0 "
             "0 0 0 1  7 0 0 0 0 0 1\"/>\n"
             "    <MeshTopology lines=\"0 1 1 2 2 3 3 4 4 5 5 6 6 7\"/>\n"
             "    <UniformMass totalMass=\"8\"/>\n"
             "    <BeamFEMForceField radius=\"0.1\" youngModulus=\"5e6\" poissonRatio=\"0.3\"/>\n"
             "    <FixedProjectiveConstraint indices=\"0\"/>\n"
             "  </Node>\n"
             "</Node>\n",
             solver);
    const char *path = test_write_temp("cantilever.scn", scn);
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load(t.rt, path, &s, &err), ST_OK, "%s\n%s", err.msg, t.log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s\n%s", err.msg, t.log);
    for (int i = 0; i < steps; i++)
        cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "%s", err.msg);
    st_component *dofs = test_find_object(s, "dofs");
    const st_array *x = st_component_field_ptr(dofs, st_component_field(dofs, "position"));
    cr_assert_eq(x->n, 8u);
    memcpy(out, x->p, 8 * 7 * sizeof *out);
    cr_assert_null(strstr(t.log, "block diagonals"), "a beam chain is block tridiagonal: %s",
                   t.log);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(btd_linear_solver, rigid_beam_cantilever_matches_sparse_ldl)
{
    double xb[56], xl[56];
    run_cantilever("<BTDLinearSolver template=\"BTDMatrix6d\"/>", 30, xb);
    run_cantilever("<SparseLDLSolver/>", 30, xl);
    double d = 0;
    for (int i = 0; i < 56; i++)
        d = fmax(d, fabs(xb[i] - xl[i]));
    cr_log_info("tip y %.6g (BTD) %.6g (LDL), max difference %.3g", xb[7 * 7 + 1], xl[7 * 7 + 1],
                d);
    cr_assert_lt(xb[7 * 7 + 1], -1e-3, "the tip falls: %g", xb[7 * 7 + 1]);
    cr_assert_leq(d, 1e-10, "BTD and SparseLDL trajectories differ by %.3g", d);
}
