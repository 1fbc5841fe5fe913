/* test_amg_preconditioner.c - AMGPreconditioner (settee's smoothed-
 * aggregation multigrid) as PCGLinearSolver's preconditioner:
 *   - on a spring beam, converged steps give the refactorized direct
 *     solver's trajectory, in a fraction of CG's iterations, with the
 *     hierarchy built once (update_step 0) or every step, on three or more
 *     levels;
 *   - one application is a symmetric positive definite operator close to
 *     A^-1 (one V-cycle divides the error's energy norm several times);
 *   - the rigid-body near-null space pays against translations only;
 *   - bad settings and systems it cannot precondition are errors. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fem_test_util.h"
#include "scene_test_util.h"

static st_scene *beam(test_rt *t, int nx, int ny, int nz, const char *solvers)
{
    return scene_spring_beam(t, nx, ny, nz, "", solvers);
}

static double real_field(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    cr_assert_not_null(f, "%s has no %s", c->name, name);
    if (f->type == ST_T_UINT)
        return (double)*(const unsigned *)st_component_field_ptr(c, f);
    return *(const double *)st_component_field_ptr(c, f);
}

/* Steps s n times (dt: the scene's); with an iterative linear solver ls,
 * adds its mean iterations per step to *iters and keeps the largest
 * |r| / |b| (PCG's residualNorm, CG's residual) in *max_res. */
static void steps_with_stats(st_scene *s, st_component *ls, int n, double *iters,
                             double *max_res)
{
    const bool iterative = st_component_field(ls, "nbIterations") != NULL;
    const st_field *fr = st_component_field(ls, "residualNorm");
    st_error err = {0};
    for (int k = 0; k < n; k++) {
        cr_assert_eq(st_scene_step(s, 0.0, &err), ST_OK, "step %d: %s", k, err.msg);
        if (!iterative)
            continue;
        *iters += real_field(ls, "nbIterations") / n;
        *max_res = fmax(*max_res, fr ? *(const double *)st_component_field_ptr(ls, fr)
                                     : real_field(ls, "residual"));
    }
}

#define NX 7
#define NY 7
#define NZ 36
#define NSTEPS 25
#define NDOF (3 * NX * NY * NZ)

typedef struct run_out {
    double x[NDOF], x0[NDOF];
    double iters;       /* mean iterations per step */
    double max_res;     /* largest |r| / |b| of all steps */
    unsigned levels;    /* AMG's nbLevels (0 without one) */
    double complexity;  /* AMG's operatorComplexity */
    unsigned builds;    /* PCG's preconditionerBuilds */
    bool packed;        /* AMG's symmetricBlocks */
} run_out;

static void run(const char *solvers, run_out *o)
{
    memset(o, 0, sizeof *o);
    test_rt t;
    test_rt_open(&t);
    st_scene *s = beam(&t, NX, NY, NZ, solvers);
    st_mstate *ms = (st_mstate *)scene_object(s, "dofs");
    cr_assert_eq(3 * ms->n, (size_t)NDOF);
    memcpy(o->x0, ms->position.r, sizeof o->x0);
    st_component *ls = scene_object(s, "ls");
    steps_with_stats(s, ls, NSTEPS, &o->iters, &o->max_res);
    memcpy(o->x, ms->position.r, sizeof o->x);
    st_component *pre = test_find_object(s, "pre");
    if (pre && strcmp(pre->cls->name, "AMGPreconditioner") == 0) {
        o->levels = (unsigned)real_field(pre, "nbLevels");
        o->complexity = real_field(pre, "operatorComplexity");
        o->builds = (unsigned)real_field(ls, "preconditionerBuilds");
        const st_field *f = st_component_field(pre, "symmetricBlocks");
        cr_assert_not_null(f);
        o->packed = *(const bool *)st_component_field_ptr(pre, f);
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* max |x - ref| over the largest displacement of ref. */
static double rel_diff(const run_out *a, const run_out *ref)
{
    double d = 0, disp = 0;
    for (size_t i = 0; i < NDOF; i++) {
        d = fmax(d, fabs(a->x[i] - ref->x[i]));
        disp = fmax(disp, fabs(ref->x[i] - ref->x0[i]));
    }
    cr_assert_gt(disp, 1e-3, "the beam moved (%g)", disp);
    return d / disp;
}

#define LDL "        - SparseLDLSolver: {name: ls, template: CompressedRowSparseMatrixMat3x3d}\n"
#define CG                                                                                        \
    "        - CGLinearSolver: {name: ls, iterations: 100000, tolerance: 1e-10,\n"                \
    "                          threshold: 1e-30}\n"
/* PCG's own test is r.z <= tolerance b.b; 1e-22 brings |r| / |b| below
 * 1e-10 here (checked). */
#define PCG_AMG(UPDATE, AMG)                                                                      \
    "        - PCGLinearSolver: {name: ls, iterations: 1000, tolerance: 1e-22,\n"                 \
    "                           preconditioner: \"@pre\", update_step: " UPDATE "}\n"            \
    "        - AMGPreconditioner: {name: pre" AMG "}\n"

Test(amg, beam_trajectory_of_the_direct_solver_in_few_iterations, .timeout = 240)
{
    static run_out ldl, cg, amg0, amg1, amg3;
    run(LDL, &ldl);
    run(CG, &cg);
    run(PCG_AMG("0", ""), &amg0);
    run(PCG_AMG("1", ""), &amg1);
    /* coarseSize 6 forces a deeper hierarchy on this small beam. */
    run(PCG_AMG("0", ", coarseSize: 6"), &amg3);
    cr_log_info("iterations per step: cg %.1f, amg built once %.1f (%u levels, complexity "
                "%.3f), every step %.1f, deep %.1f (%u levels)",
                cg.iters, amg0.iters, amg0.levels, amg0.complexity, amg1.iters, amg3.iters,
                amg3.levels);
    cr_assert_geq(amg0.levels, 2, "a hierarchy was built");
    cr_assert_gt(amg3.levels, amg0.levels, "coarseSize 6 gives more levels (%u against %u)",
                 amg3.levels, amg0.levels);
    cr_assert_eq(amg0.builds, 1, "update_step 0 builds once");
    /* Springs couple points by symmetric blocks: the smoother reads them
     * packed (6 floats), and the iterations and trajectories below are
     * those of the packed kernel. */
    cr_assert(amg0.packed && amg1.packed && amg3.packed, "symmetric blocks packed");
    cr_assert_eq(amg1.builds, NSTEPS, "update_step 1 builds every step");
    cr_assert(amg0.complexity > 1.0 && amg0.complexity < 2.0, "operator complexity %g",
              amg0.complexity);
    const run_out *runs[] = {&cg, &amg0, &amg1, &amg3};
    const char *names[] = {"cg", "amg built once", "amg every step", "amg deep"};
    for (int k = 0; k < 4; k++) {
        const double d = rel_diff(runs[k], &ldl);
        cr_log_info("%s: trajectory vs SparseLDL %.3g, max |r|/|b| %.3g", names[k], d,
                    runs[k]->max_res);
        cr_assert_leq(runs[k]->max_res, 1e-10, "%s: |r|/|b| %g", names[k], runs[k]->max_res);
        cr_assert_leq(d, 1e-8, "%s: trajectory differs from SparseLDL's by %g", names[k], d);
    }
    for (int k = 1; k < 4; k++)
        cr_assert_leq(runs[k]->iters * 4.0, cg.iters, "%s: %.1f iterations against CG's %.1f",
                      names[k], runs[k]->iters, cg.iters);
}

Test(amg, rigid_null_space_beats_translations, .timeout = 120)
{
    static run_out rigid, trans;
    run(PCG_AMG("0", ""), &rigid);
    run(PCG_AMG("0", ", nullSpace: translations"), &trans);
    cr_log_info("iterations per step: rigid modes %.1f, translations %.1f", rigid.iters,
                trans.iters);
    cr_assert_lt(rigid.iters * 1.1, trans.iters, "rotations in the near-null space pay");
}

static double dot(const double *a, const double *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* One application M b (V-cycle) against the assembled A of the same system. */
Test(amg, one_cycle_is_symmetric_positive_definite_and_close_to_the_inverse, .timeout = 120)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = beam(&t, NX, NY, NZ, PCG_AMG("0", ", coarseSize: 40"));
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "%s", err.msg);
    st_mstate *ms = (st_mstate *)scene_object(s, "dofs");
    st_system *sys = ms->system;
    st_component *pre = scene_object(s, "pre");
    const st_linsolver_ops *ops = pre->cls->linsolver;
    const double mf = 1.0, bf = -0.01, kf = -1e-4; /* EulerImplicit's factors, dt 0.01 */
    cr_assert_eq(ops->set_system(pre, sys, mf, bf, kf, &err), ST_OK, "%s", err.msg);
    st_matrix *m = NULL;
    cr_assert_eq(st_matrix_create(sys, &m, &err), ST_OK);
    cr_assert_eq(st_matrix_assemble(m, sys, mf, bf, kf, &err), ST_OK);
    const size_t n = sys->size;
    double *u = calloc(n, sizeof *u), *v = calloc(n, sizeof *v), *mu = calloc(n, sizeof *mu),
           *mv = calloc(n, sizeof *mv), *b = calloc(n, sizeof *b), *e = calloc(n, sizeof *e),
           *ae = calloc(n, sizeof *ae);
    /* Random-looking vectors, zero on the fixed DOFs (the projected
     * system's solutions are). */
    st_csr a;
    st_matrix_csr(m, &a);
    for (size_t i = 0; i < n; i++) {
        const bool fixed = a.rowptr[i + 1] - a.rowptr[i] == 1;
        u[i] = fixed ? 0 : sin(0.7 + 1.91 * (double)i);
        v[i] = fixed ? 0 : cos(0.3 + 2.37 * (double)i) + 0.2;
    }
    cr_assert_eq(ops->solve(pre, sys, mu, u, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(ops->solve(pre, sys, mv, v, &err), ST_OK, "%s", err.msg);
    const double uMv = dot(u, mv, n), vMu = dot(v, mu, n);
    cr_log_info("u.Mv %.9g, v.Mu %.9g, u.Mu %.6g, v.Mv %.6g", uMv, vMu, dot(u, mu, n),
                dot(v, mv, n));
    /* Symmetric to the single precision of the cycle. */
    cr_assert_leq(fabs(uMv - vMu), 1e-5 * sqrt(dot(u, mu, n) * dot(v, mv, n)),
                  "M is symmetric: %.9g against %.9g", uMv, vMu);
    cr_assert_gt(dot(u, mu, n), 0.0);
    cr_assert_gt(dot(v, mv, n), 0.0);
    /* Close to A^-1: with b = A u, the error u - M b of one cycle is several
     * times smaller than u in the energy norm. */
    st_matrix_mul(m, b, u);
    cr_assert_eq(ops->solve(pre, sys, mu, b, &err), ST_OK, "%s", err.msg);
    for (size_t i = 0; i < n; i++)
        e[i] = u[i] - mu[i];
    st_matrix_mul(m, ae, e);
    double *au = calloc(n, sizeof *au);
    st_matrix_mul(m, au, u);
    const double ratio = sqrt(dot(e, ae, n) / dot(u, au, n));
    cr_log_info("energy norm of the error after one cycle: %.3g of the initial", ratio);
    cr_assert_lt(ratio, 0.5, "one V-cycle reduces the error's energy norm (%g)", ratio);
    /* Deterministic: the same input gives the same output, bit for bit. */
    cr_assert_eq(ops->solve(pre, sys, mv, b, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(memcmp(mv, mu, n * sizeof *mv), 0);
    /* An indefinite system (negative mass factor) cannot be preconditioned:
     * an error, not a wrong operator. */
    const st_status st = ops->set_system(pre, sys, -1.0, 0.0, 0.0, &err);
    cr_assert_neq(st, ST_OK, "a negative definite matrix is refused");
    cr_assert(strstr(err.msg, "positive definite") || strstr(err.msg, "singular"), "%s",
              err.msg);
    st_matrix_destroy(&m);
    free(u), free(v), free(mu), free(mv), free(b), free(e), free(ae), free(au);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static void expect_error(const char *yaml_tail, const char *what)
{
    test_rt t;
    test_rt_open(&t);
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative,\n"
             "                      Mass]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "  children:\n"
             "    - name: B\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {linearSolver: \"@ls\"}\n"
             "        - PCGLinearSolver: {name: ls, preconditioner: \"@pre\"}\n"
             "%s",
             yaml_tail);
    st_scene *s = NULL;
    st_error err = {0};
    st_status st = test_load_string(&t, yaml, &s, &err);
    if (st == ST_OK)
        st = st_scene_init(s, &err);
    if (st == ST_OK)
        st = st_scene_step(s, 0.01, &err);
    cr_assert_neq(st, ST_OK, "expected an error: %s", what);
    cr_assert(strstr(err.msg, what) != NULL, "got '%s', expected '%s'", err.msg, what);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(amg, bad_settings_are_errors)
{
    expect_error("        - AMGPreconditioner: {name: pre, nullSpace: quadratic}\n"
                 "        - MechanicalObject: {position: [[0, 0, 0], [1, 0, 0]]}\n"
                 "        - UniformMass: {totalMass: 1}\n",
                 "expected rigid or translations");
    expect_error("        - AMGPreconditioner: {name: pre, coarseSize: 2}\n"
                 "        - MechanicalObject: {position: [[0, 0, 0], [1, 0, 0]]}\n"
                 "        - UniformMass: {totalMass: 1}\n",
                 "coarseSize");
    /* 2 points of Vec2d: 4 unknowns, not 3x3 blocks. */
    expect_error("        - AMGPreconditioner: {name: pre}\n"
                 "        - MechanicalObject: {template: Vec2d, position: [[0, 0], [1, 0]]}\n"
                 "        - UniformMass: {totalMass: 1}\n",
                 "not a multiple of the 3x3 point blocks");
}

/* ---- corotational FEM ---- */

/* SOFA's usual soft body: a 10 x 1 x 1 beam of 31 x 5 x 5 vertices cut into
 * tetrahedra, TetrahedronFEMForceField (method large), clamped at x = 0,
 * bending down under gravity; `solvers` are the linear solver(s), "ls". */
static st_scene *fem_beam(test_rt *t, const char *solvers)
{
    char xml[4096];
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 -9.81 0' dt='0.02'><DefaultAnimationLoop/>"
             "<RegularGridTopology name='grid' n='31 5 5' min='0 -0.5 -0.5' max='10 0.5 0.5'/>"
             "<Node name='Beam'>"
             "<EulerImplicitSolver name='ode' rayleighStiffness='0.01' rayleighMass='0.1' "
             "linearSolver='@ls'/>%s"
             "<MechanicalObject name='dofs' position='@../grid.position'/>"
             "<TetrahedronSetTopologyContainer name='tetras'/><TetrahedronSetTopologyModifier/>"
             "<Hexa2TetraTopologicalMapping input='@../grid' output='@tetras'/>"
             "<DiagonalMass massDensity='1000'/>"
             "<BoxROI name='clamp' box='-0.01 -1 -1 0.01 1 1'/>"
             "<FixedProjectiveConstraint indices='@clamp.indices'/>"
             "<TetrahedronFEMForceField name='FEM' method='large' youngModulus='1e6' "
             "poissonRatio='0.3'/></Node></Node>",
             solvers);
    return fem_load_xml(t, xml);
}

#define FEM_STEPS 30
#define FEM_NDOF (3 * 31 * 5 * 5)

/* Whether the last fem_run's AMGPreconditioner stored its blocks packed. */
static bool fem_packed;

static void fem_run(const char *solvers, double *x, double *iters, double *max_res)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_beam(&t, solvers);
    st_mstate *ms = scene_state(s, "dofs");
    st_component *ls = scene_object(s, "ls");
    *iters = *max_res = 0;
    steps_with_stats(s, ls, FEM_STEPS, iters, max_res);
    st_component *pre = test_find_object(s, "pre");
    fem_packed = false;
    if (pre && strcmp(pre->cls->name, "AMGPreconditioner") == 0) {
        const st_field *f = st_component_field(pre, "symmetricBlocks");
        cr_assert_not_null(f);
        fem_packed = *(const bool *)st_component_field_ptr(pre, f);
    }
    memcpy(x, ms->position.r, FEM_NDOF * sizeof *x);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(amg, corotational_fem_beam_trajectory_of_the_direct_solver, .timeout = 240)
{
    static double ldl[FEM_NDOF], cg[FEM_NDOF], amg0[FEM_NDOF], amg1[FEM_NDOF];
    double it_cg, it0, it1, r_cg, r0, r1, dummy;
    fem_run("<SparseLDLSolver name='ls'/>", ldl, &dummy, &dummy);
    fem_run("<CGLinearSolver name='ls' iterations='100000' tolerance='1e-10' threshold='1e-30'/>",
            cg, &it_cg, &r_cg);
    fem_run("<PCGLinearSolver name='ls' iterations='1000' tolerance='1e-24' preconditioner='@pre' "
            "update_step='0'/><AMGPreconditioner name='pre'/>",
            amg0, &it0, &r0);
    /* Corotated elements couple points by non-symmetric blocks: the
     * smoother keeps all 9 floats of each. */
    cr_assert(!fem_packed, "a corotational FEM body's blocks are not symmetric");
    fem_run("<PCGLinearSolver name='ls' iterations='1000' tolerance='1e-24' preconditioner='@pre' "
            "update_step='1'/><AMGPreconditioner name='pre'/>",
            amg1, &it1, &r1);
    double d_cg = 0, d0 = 0, d1 = 0, tip = 0;
    for (size_t i = 0; i < FEM_NDOF; i++) {
        d_cg = fmax(d_cg, fabs(cg[i] - ldl[i]));
        d0 = fmax(d0, fabs(amg0[i] - ldl[i]));
        d1 = fmax(d1, fabs(amg1[i] - ldl[i]));
    }
    tip = fabs(ldl[3 * 30 + 1] + 0.5); /* vertex (30, 0, 0) started at y = -0.5 */
    cr_log_info("corotational beam: tip moved %.3g; iterations per step cg %.1f, amg built once "
                "%.1f, every step %.1f; |x - x_ldl| cg %.2g, amg %.2g / %.2g; max |r|/|b| %.2g "
                "%.2g %.2g",
                tip, it_cg, it0, it1, d_cg, d0, d1, r_cg, r0, r1);
    cr_assert_gt(tip, 0.05, "the beam bends");
    cr_assert_leq(r0, 1e-10);
    cr_assert_leq(r1, 1e-10);
    cr_assert_leq(d0, 1e-8 * tip);
    cr_assert_leq(d1, 1e-8 * tip);
    cr_assert_leq(it0 * 3.0, it_cg, "AMG built once: %.1f iterations against CG's %.1f", it0,
                  it_cg);
    cr_assert_leq(it1 * 3.0, it_cg, "AMG every step: %.1f iterations against CG's %.1f", it1,
                  it_cg);
}
