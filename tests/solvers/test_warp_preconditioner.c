/* test_warp_preconditioner.c - WarpPreconditioner (issue 15) and the
 * rotation finders of the corotational force fields:
 *   - the "rotations" output of TetrahedronFEMForceField (large, polar,
 *     svd), TetrahedralCorotationalFEMForceField and HexahedronFEMForceField
 *     is the rotation of a rigidly turned rest shape at every vertex, the
 *     identity at rest and with method small;
 *   - the preconditioner's application is R A0^-1 R^T b computed densely
 *     (LAPACK) on a tiny mesh, A0 the matrix of its last build and R the
 *     rotations since then;
 *   - with no rotation (method small) Warp(SparseLDL) gives the same iterates
 *     as the stale SparseLDL factor alone, to the bit;
 *   - on a corotational beam swinging down by tens of degrees, PCG with the
 *     warped stale factor needs fewer iterations per step than with the
 *     same stale factor unwarped, both give the refactorized SparseLDL
 *     trajectory to the solver's tolerance, and ShewchukPCGLinearSolver
 *     gives PCGLinearSolver's numbers;
 *   - bad settings are errors naming the field. */
#include <stdio.h>

#include "fem_test_util.h"

/* ---- the rotation finders ---- */

static const double *rotations_of(st_component *ff, size_t np)
{
    const st_field *f = st_component_field(ff, "rotations");
    cr_assert_not_null(f, "%s has no rotations output", ff->cls->name);
    cr_assert(f->flags & ST_F_OUTPUT);
    st_array *a = st_component_field_ptr(ff, f);
    cr_assert_eq(a->n, 9 * np, "%s: %zu rotation values for %zu vertices", ff->cls->name, a->n,
                 np);
    return a->r;
}

/* Asks ff for its rotations as a consumer does (rotation_finder.h). */
static void request_rotations(st_component *ff, size_t np)
{
    const st_field *f = st_component_field(ff, "rotations");
    cr_assert_not_null(f);
    st_error err = {0};
    cr_assert_eq(st_array_resize(st_component_field_ptr(ff, f), ST_T_REALS, 9 * np, &err), ST_OK);
}

/* Rotation by angle a about the unit axis u. */
static void axis_angle(double R[9], const double u[3], double a)
{
    const double c = cos(a), s = sin(a), t = 1 - c;
    const double x = u[0], y = u[1], z = u[2];
    const double m[9] = {t * x * x + c,     t * x * y - s * z, t * x * z + s * y,
                         t * x * y + s * z, t * y * y + c,     t * y * z - s * x,
                         t * x * z - s * y, t * y * z + s * x, t * z * z + c};
    memcpy(R, m, sizeof m);
}

#define GRID_2x2x3                                                                                \
    "<RegularGridTopology name='grid' n='3 2 2' min='0 0 0' max='2 1 1.5'/>"

static const char *const finder_scenes[][2] = {
    {"TetrahedronFEMForceField", "large"},  {"TetrahedronFEMForceField", "polar"},
    {"TetrahedronFEMForceField", "svd"},    {"TetrahedralCorotationalFEMForceField", "large"},
    {"TetrahedralCorotationalFEMForceField", "polar"},
    {"HexahedronFEMForceField", "large"},   {"HexahedronFEMForceField", "polar"},
};

static st_scene *finder_scene(test_rt *t, const char *cls, const char *method)
{
    char xml[2048];
    const bool hexa = strstr(cls, "Hexa") != NULL;
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 0 0'><DefaultAnimationLoop/>" GRID_2x2x3
             "<Node name='B'><EulerImplicitSolver/><SparseLDLSolver/>"
             "<MechanicalObject name='dof' position='@../grid.position'/>"
             "%s"
             "<UniformMass totalMass='1'/>"
             "<%s name='FEM' method='%s' youngModulus='1000' poissonRatio='0.3'%s/></Node></Node>",
             hexa ? ""
                  : "<TetrahedronSetTopologyContainer name='tetras'/>"
                    "<TetrahedronSetTopologyModifier/>"
                    "<Hexa2TetraTopologicalMapping input='@../grid' output='@tetras'/>",
             cls, method, hexa ? " topology='@../grid'" : "");
    return fem_load_xml(t, xml);
}

/* The rotations of a rest shape turned rigidly by Q are Q at every vertex;
 * at rest the identity. */
Test(warp_preconditioner, rotation_finders_report_rigid_rotations)
{
    for (size_t k = 0; k < sizeof finder_scenes / sizeof *finder_scenes; k++) {
        test_rt t;
        fem_open_rt(&t);
        st_scene *s = finder_scene(&t, finder_scenes[k][0], finder_scenes[k][1]);
        st_component *ff = test_find_object(s, "FEM");
        st_mstate *ms = (st_mstate *)test_find_object(s, "dof");
        st_system *sys = ms->system;
        const size_t np = ms->n;
        cr_assert_eq(np, 12u);
        /* Not asked for: not computed. */
        const st_field *f = st_component_field(ff, "rotations");
        cr_assert_eq(((st_array *)st_component_field_ptr(ff, f))->n, 0u);
        request_rotations(ff, np);
        double *x = calloc(3 * np, sizeof *x), *fv = calloc(3 * np, sizeof *fv);
        fem_forces_at(ff, sys, ms->rest_position.r, fv);
        const double *R = rotations_of(ff, np);
        for (size_t i = 0; i < np; i++)
            for (int c = 0; c < 9; c++)
                cr_assert(fabs(R[9 * i + c] - (c % 4 == 0)) <= 1e-12,
                          "%s %s: vertex %zu at rest: R[%d] = %g", finder_scenes[k][0],
                          finder_scenes[k][1], i, c, R[9 * i + c]);
        const double u[3] = {0.48, 0.6, 0.64}; /* unit */
        double Q[9];
        axis_angle(Q, u, 1.2);
        for (size_t i = 0; i < np; i++) {
            fem_mulv3(x + 3 * i, Q, ms->rest_position.r + 3 * i);
            x[3 * i] += 0.3, x[3 * i + 2] -= 2.0;
        }
        fem_forces_at(ff, sys, x, fv);
        R = rotations_of(ff, np);
        for (size_t i = 0; i < np; i++)
            for (int c = 0; c < 9; c++)
                cr_assert(fabs(R[9 * i + c] - Q[c]) <= 1e-10,
                          "%s %s: vertex %zu turned by Q: R[%d] = %.15g, Q %.15g",
                          finder_scenes[k][0], finder_scenes[k][1], i, c, R[9 * i + c], Q[c]);
        free(x), free(fv);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* Method small: SOFA's getRotation gives the identity whatever the shape. */
Test(warp_preconditioner, rotation_finder_small_is_identity)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = finder_scene(&t, "TetrahedronFEMForceField", "small");
    st_component *ff = test_find_object(s, "FEM");
    st_mstate *ms = (st_mstate *)test_find_object(s, "dof");
    request_rotations(ff, ms->n);
    double *x = calloc(3 * ms->n, sizeof *x), *fv = calloc(3 * ms->n, sizeof *fv);
    for (size_t i = 0; i < 3 * ms->n; i++)
        x[i] = ms->rest_position.r[i] * (1.0 + 0.1 * (double)(i % 5));
    fem_forces_at(ff, ms->system, x, fv);
    const double *R = rotations_of(ff, ms->n);
    for (size_t i = 0; i < 9 * ms->n; i++)
        cr_assert_eq(R[i], (double)(i % 9 % 4 == 0));
    free(x), free(fv);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- the preconditioner's application, densely ---- */

Test(warp_preconditioner, application_is_rotated_stale_inverse)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(
        &t, "<Node name='root' gravity='0 0 0'><DefaultAnimationLoop/>" GRID_2x2x3
            "<Node name='B'><EulerImplicitSolver linearSolver='@pcg'/>"
            "<PCGLinearSolver name='pcg' preconditioner='@warp'/>"
            "<WarpPreconditioner name='warp' linearSolver='@ldl' update_step='1000'/>"
            "<SparseLDLSolver name='ldl'/>"
            "<MechanicalObject name='dof' position='@../grid.position'/>"
            "<TetrahedronSetTopologyContainer name='tetras'/><TetrahedronSetTopologyModifier/>"
            "<Hexa2TetraTopologicalMapping input='@../grid' output='@tetras'/>"
            "<DiagonalMass massDensity='2'/>"
            "<TetrahedronFEMForceField name='FEM' method='large' youngModulus='1000' "
            "poissonRatio='0.3'/></Node></Node>");
    st_component *ff = test_find_object(s, "FEM"), *warp = test_find_object(s, "warp");
    st_mstate *ms = (st_mstate *)test_find_object(s, "dof");
    st_system *sys = ms->system;
    const size_t np = ms->n, n = 3 * np;
    cr_assert_eq(sys->size, n);
    const st_linsolver_ops *ops = warp->cls->linsolver;
    const double mf = 1.0, bf = -0.01, kf = -0.02;
    st_error err = {0};
    double *f = calloc(n, sizeof *f), *x = calloc(n, sizeof *x), *b = calloc(n, sizeof *b);
    double *dense = calloc(n * n, sizeof *dense), *y = calloc(n, sizeof *y);

    /* The first system: forces at rest, the matrix A0 built and factored. */
    st_system_compute_force(sys, f, sys->x, sys->v);
    double *rref = malloc(9 * np * sizeof *rref);
    memcpy(rref, rotations_of(ff, np), 9 * np * sizeof *rref);
    st_matrix *m = NULL;
    cr_assert_eq(st_matrix_create(sys, &m, &err), ST_OK);
    cr_assert_eq(st_matrix_assemble(m, sys, mf, bf, kf, &err), ST_OK);
    st_csr a;
    st_matrix_csr(m, &a);
    for (size_t i = 0; i < n; i++)
        for (int k = a.rowptr[i]; k < a.rowptr[i + 1]; k++)
            dense[(size_t)a.colind[k] * n + i] = a.values[k]; /* column-major */
    cr_assert_eq(ops->set_system(warp, sys, mf, bf, kf, &err), ST_OK, "%s", err.msg);

    /* A bent and turned shape: the warp turns the stale factor. */
    const double u[3] = {0, 0, 1};
    double Q[9];
    axis_angle(Q, u, -0.7);
    for (size_t i = 0; i < np; i++) {
        const double *p = ms->rest_position.r + 3 * i;
        double q[3] = {p[0], p[1] + 0.05 * p[0] * p[0], p[2]};
        fem_mulv3(sys->x + 3 * i, Q, q);
    }
    st_system_compute_force(sys, f, sys->x, sys->v);
    const double *rnow = rotations_of(ff, np);
    cr_assert_eq(ops->set_system(warp, sys, mf, bf, kf, &err), ST_OK, "%s", err.msg);
    double maxangle = 0;
    double *R = malloc(9 * np * sizeof *R);
    for (size_t i = 0; i < np; i++) {
        double rt[9];
        fem_transpose3(rt, rref + 9 * i);
        fem_mul3(R + 9 * i, rnow + 9 * i, rt);
        const double tr = R[9 * i] + R[9 * i + 4] + R[9 * i + 8];
        maxangle = fmax(maxangle, acos(fmin(1.0, 0.5 * (tr - 1))));
    }
    cr_assert_gt(maxangle, 0.6, "the vertices turned: %g rad", maxangle);

    for (size_t i = 0; i < n; i++)
        b[i] = sin(1.0 + 3.7 * (double)i);
    cr_assert_eq(ops->solve(warp, sys, x, b, &err), ST_OK, "%s", err.msg);
    /* y = R (A0^-1 (R^T b)) densely. */
    for (size_t i = 0; i < np; i++) {
        double rt[9];
        fem_transpose3(rt, R + 9 * i);
        fem_mulv3(y + 3 * i, rt, b + 3 * i);
    }
    cr_assert_eq(test_dense_solve((int)n, dense, y), 0);
    double err_max = 0, scale = 0;
    for (size_t i = 0; i < np; i++) {
        double w[3];
        fem_mulv3(w, R + 9 * i, y + 3 * i);
        for (int c = 0; c < 3; c++) {
            err_max = fmax(err_max, fabs(x[3 * i + c] - w[c]));
            scale = fmax(scale, fabs(w[c]));
        }
    }
    cr_log_info("warp application vs dense R A0^-1 R^T b: %.3g (scale %.3g)", err_max, scale);
    cr_assert(err_max <= 1e-10 * scale, "warp application differs from R A0^-1 R^T b by %g",
              err_max);
    /* And it is not the unwarped stale inverse. */
    double *z = calloc(n, sizeof *z);
    st_component *ldl = test_find_object(s, "ldl");
    cr_assert_eq(ldl->cls->linsolver->solve(ldl, sys, z, b, &err), ST_OK);
    double d = 0;
    for (size_t i = 0; i < n; i++)
        d = fmax(d, fabs(z[i] - x[i]));
    cr_assert_gt(d, 1e-3 * scale, "the rotation changes the result");
    st_matrix_destroy(&m);
    free(f), free(x), free(b), free(dense), free(y), free(rref), free(R), free(z);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- beams ---- */

/* A beam 10 x 1 x 1 of 21 x 3 x 3 vertices cut into tetrahedra, clamped at
 * x = 0, swinging down under gravity (E 1e6, rho 1000, dt 0.03), with the
 * extra components given. */
static st_scene *beam(test_rt *t, const char *method, const char *solvers, const char *extra)
{
    char xml[4096];
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 -9.81 0' dt='0.03'><DefaultAnimationLoop/>"
             "<RegularGridTopology name='grid' n='21 3 3' min='0 -0.5 -0.5' max='10 0.5 0.5'/>"
             "<Node name='Beam'>"
             "<EulerImplicitSolver name='ode' rayleighStiffness='0.01' rayleighMass='0.1' "
             "linearSolver='@ls'/>%s"
             "<MechanicalObject name='dof' position='@../grid.position'/>"
             "<TetrahedronSetTopologyContainer name='tetras'/><TetrahedronSetTopologyModifier/>"
             "<Hexa2TetraTopologicalMapping input='@../grid' output='@tetras'/>"
             "<DiagonalMass massDensity='1000'/>"
             "<BoxROI name='clamp' box='-0.01 -1 -1 0.01 1 1'/>"
             "<FixedProjectiveConstraint indices='@clamp.indices'/>"
             "<TetrahedronFEMForceField name='FEM' method='%s' youngModulus='1e6' "
             "poissonRatio='0.3'/>%s</Node></Node>",
             solvers, method, extra);
    return fem_load_xml(t, xml);
}

#define NSTEPS 60
#define NBEAM (3 * 21 * 3 * 3)

typedef struct run_out {
    double x[NSTEPS][NBEAM];      /* positions after each step */
    unsigned iters[NSTEPS];       /* nbIterations of each step (0: direct) */
    double res[NSTEPS];           /* residualNorm of each step */
    double tip_angle;             /* largest rotation of the tip's vertex (rad) */
} run_out;

static unsigned uint_field(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    cr_assert_not_null(f, "%s has no %s", c->name, name);
    return *(const unsigned *)st_component_field_ptr(c, f);
}

static void run_beam(const char *method, const char *solvers, const char *extra, run_out *o)
{
    test_rt t;
    fem_open_rt(&t);
    st_error lerr = {0};
    cr_assert_eq(st_runtime_load_plugin(t.rt, "SolidMechanics.Spring", &lerr), ST_OK, "%s",
                 lerr.msg);
    cr_assert_eq(st_runtime_load_plugin(t.rt, "LinearSystem", &lerr), ST_OK, "%s", lerr.msg);
    st_scene *s = beam(&t, method, solvers, extra);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dof");
    st_component *ls = test_find_object(s, "ls"), *ff = test_find_object(s, "FEM");
    cr_assert_eq(3 * ms->n, (size_t)NBEAM);
    const bool iterative = st_component_field(ls, "nbIterations") != NULL;
    request_rotations(ff, ms->n);
    st_error err = {0};
    for (int k = 0; k < NSTEPS; k++) {
        cr_assert_eq(st_scene_step(s, 0.03, &err), ST_OK, "%s: %s", solvers, err.msg);
        memcpy(o->x[k], ms->position.r, sizeof o->x[k]);
        o->iters[k] = iterative ? uint_field(ls, "nbIterations") : 0;
        if (iterative) {
            const st_field *f = st_component_field(ls, "residualNorm");
            o->res[k] = *(const double *)st_component_field_ptr(ls, f);
        }
        /* The tip's rotation, from the force field's per-vertex rotations. */
        const double *R = rotations_of(ff, ms->n);
        const size_t tip = 20; /* vertex (20, 0, 0): x = 10 */
        const double tr = R[9 * tip] + R[9 * tip + 4] + R[9 * tip + 8];
        o->tip_angle = fmax(o->tip_angle, acos(fmin(1.0, 0.5 * (tr - 1))));
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static double mean_iters(const run_out *o)
{
    double m = 0;
    for (int k = 0; k < NSTEPS; k++)
        m += o->iters[k];
    return m / NSTEPS;
}

#define PCG_WARP(CLS)                                                                             \
    "<" CLS " name='ls' iterations='1000' tolerance='1e-24' preconditioner='@warp'/>"           \
    "<WarpPreconditioner name='warp' linearSolver='@ldl' update_step='1000000'/>"                \
    "<SparseLDLSolver name='ldl'/>"
#define PCG_STALE                                                                                 \
    "<PCGLinearSolver name='ls' iterations='1000' tolerance='1e-24' preconditioner='@ldl' "     \
    "update_step='0'/><SparseLDLSolver name='ldl'/>"

/* Springs along the edges make the matrix change from step to step (the
 * small-displacement FEM alone is linear: its stale factor would be exact). */
#define SPRINGS "<MeshSpringForceField stiffness='1e5'/>"

/* No rotation (method small: every vertex's rotation is the identity): the
 * warped stale factor is the stale factor, iterate for iterate. */
Test(warp_preconditioner, no_rotation_same_iterates_as_stale_factor, .timeout = 120)
{
    static run_out w, st;
    run_beam("small", PCG_WARP("PCGLinearSolver"), SPRINGS, &w);
    run_beam("small", PCG_STALE, SPRINGS, &st);
    unsigned total = 0;
    for (int k = 0; k < NSTEPS; k++) {
        cr_assert_eq(w.iters[k], st.iters[k], "step %d: %u vs %u iterations", k, w.iters[k],
                     st.iters[k]);
        total += w.iters[k];
        for (size_t i = 0; i < NBEAM; i++)
            cr_assert(w.x[k][i] == st.x[k][i], "step %d, scalar %zu: %.17g vs %.17g", k, i,
                      w.x[k][i], st.x[k][i]);
    }
    cr_assert_gt(total, (unsigned)NSTEPS, "the stale factor needs iterations (%u)", total);
    cr_assert_lt(st.x[NSTEPS - 1][3 * 20 + 1], -0.5, "the tip moves down");
}

Test(warp_preconditioner, large_rotation_fewer_iterations_same_trajectory, .timeout = 240)
{
    static run_out ldl, stale, warp, shew;
    run_beam("large", "<SparseLDLSolver name='ls'/>", "", &ldl);
    run_beam("large", PCG_STALE, "", &stale);
    run_beam("large", PCG_WARP("PCGLinearSolver"), "", &warp);
    run_beam("large", PCG_WARP("ShewchukPCGLinearSolver"), "", &shew);
    cr_assert_gt(ldl.tip_angle, 0.5, "the tip turns by a large angle: %.3g rad", ldl.tip_angle);
    const double ms = mean_iters(&stale), mw = mean_iters(&warp);
    unsigned maxs = 0, maxw = 0;
    double maxres = 0, dx = 0, disp = 0;
    for (int k = 0; k < NSTEPS; k++) {
        maxs = stale.iters[k] > maxs ? stale.iters[k] : maxs;
        maxw = warp.iters[k] > maxw ? warp.iters[k] : maxw;
        maxres = fmax(maxres, fmax(stale.res[k], warp.res[k]));
        for (size_t i = 0; i < NBEAM; i++) {
            dx = fmax(dx, fmax(fabs(warp.x[k][i] - ldl.x[k][i]),
                               fabs(stale.x[k][i] - ldl.x[k][i])));
            disp = fmax(disp, fabs(ldl.x[k][i] - ldl.x[0][i]));
        }
        cr_assert_eq(shew.iters[k], warp.iters[k]);
        cr_assert_arr_eq(shew.x[k], warp.x[k], sizeof shew.x[k]);
    }
    cr_log_info("tip angle %.3f rad; iterations per step: stale LDL mean %.2f max %u, warp "
                "mean %.2f max %u; max |r|/|b| %.2g; trajectories vs SparseLDL %.3g of the "
                "displacement",
                ldl.tip_angle, ms, maxs, mw, maxw, maxres, dx / disp);
    cr_assert_lt(mw, 0.75 * ms, "warp %.2f vs stale %.2f iterations per step", mw, ms);
    cr_assert_leq(maxres, 1e-10, "PCG converged: |r|/|b| %.3g", maxres);
    cr_assert_leq(dx, 1e-8 * disp, "trajectories differ from SparseLDL's by %.3g (disp %.3g)", dx,
                 disp);
}

/* Any direct solver can be wrapped: each gives the refactorized trajectory
 * in as few iterations as the warped SparseLDLSolver. */
Test(warp_preconditioner, other_direct_solvers_wrapped, .timeout = 240)
{
    static const char *const inner[] = {"SparseCholeskySolver", "AsyncSparseLDLSolver",
                                        "EigenSimplicialLDLT", "EigenSparseLU"};
    static run_out ldl, ref, o;
    run_beam("large", "<SparseLDLSolver name='ls'/>", "", &ldl);
    run_beam("large", PCG_WARP("PCGLinearSolver"), "", &ref);
    double disp = 0;
    for (size_t i = 0; i < NBEAM; i++)
        disp = fmax(disp, fabs(ldl.x[NSTEPS - 1][i] - ldl.x[0][i]));
    for (size_t k = 0; k < sizeof inner / sizeof *inner; k++) {
        char xml[1024];
        snprintf(xml, sizeof xml,
                 "<PCGLinearSolver name='ls' iterations='1000' tolerance='1e-24' "
                 "preconditioner='@warp'/>"
                 "<WarpPreconditioner name='warp' linearSolver='@inner' update_step='1000000'/>"
                 "<%s name='inner'/>",
                 inner[k]);
        run_beam("large", xml, "", &o);
        double dx = 0;
        for (int j = 0; j < NSTEPS; j++)
            for (size_t i = 0; i < NBEAM; i++)
                dx = fmax(dx, fabs(o.x[j][i] - ldl.x[j][i]));
        cr_log_info("%s: %.2f iterations per step (SparseLDL %.2f), trajectory %.3g", inner[k],
                    mean_iters(&o), mean_iters(&ref), dx / disp);
        cr_assert_leq(dx, 1e-8 * disp, "%s: trajectory differs by %.3g", inner[k], dx);
        cr_assert_leq(fabs(mean_iters(&o) - mean_iters(&ref)), 0.5, "%s: %.2f vs %.2f iterations",
                      inner[k], mean_iters(&o), mean_iters(&ref));
    }
}

/* SOFA v25.12's form: the schedule and the finder in a RotationMatrixSystem
 * give the same numbers as the warp's own update_step. */
Test(warp_preconditioner, rotation_matrix_system_same_as_update_step, .timeout = 120)
{
    static run_out a, b;
    run_beam("large", PCG_WARP("PCGLinearSolver"), "", &a);
    run_beam("large",
             "<PCGLinearSolver name='ls' iterations='1000' tolerance='1e-24' "
             "preconditioner='@warp'/>"
             "<RotationMatrixSystem name='rot' assemblingRate='1000000' rotationFinder='@FEM'/>"
             "<WarpPreconditioner name='warp' linearSolver='@ldl' linearSystem='@rot'/>"
             "<MatrixLinearSystem name='system'/>"
             "<SparseLDLSolver name='ldl' linearSystem='@system'/>",
             "", &b);
    for (int k = 0; k < NSTEPS; k++) {
        cr_assert_eq(a.iters[k], b.iters[k]);
        cr_assert_arr_eq(a.x[k], b.x[k], sizeof a.x[k]);
    }
}

/* The wrapped solver is built at the first system and every update_step-th
 * one (RotationMatrixSystem's counter); 0 and 1: every one. */
Test(warp_preconditioner, refresh_schedule)
{
    static const struct {
        const char *set;
        unsigned builds;
    } cases[] = {{"update_step='3'", 4},           /* systems 1, 4, 7, 10 */
                 {"update_step='1'", 10},
                 {"update_step='0'", 10},
                 {"update_step='20'", 1},
                 {"linearSystem='@rot'", 3}};      /* assemblingRate 4: 1, 5, 9 */
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        test_rt t;
        fem_open_rt(&t);
        char xml[4096];
        snprintf(xml, sizeof xml,
                 "<Node name='root' gravity='0 -9.81 0'><DefaultAnimationLoop/>" GRID_2x2x3
                 "<Node name='B'><EulerImplicitSolver linearSolver='@ls'/>"
                 "<PCGLinearSolver name='ls' preconditioner='@warp'/>"
                 "<WarpPreconditioner name='warp' linearSolver='@ldl' %s/>"
                 "<SparseLDLSolver name='ldl'/>%s"
                 "<MechanicalObject name='dof' position='@../grid.position'/>"
                 "<TetrahedronSetTopologyContainer name='tetras'/>"
                 "<TetrahedronSetTopologyModifier/>"
                 "<Hexa2TetraTopologicalMapping input='@../grid' output='@tetras'/>"
                 "<DiagonalMass massDensity='1'/>"
                 "<TetrahedronFEMForceField name='FEM'/></Node></Node>",
                 cases[k].set,
                 strstr(cases[k].set, "rot") ? "<RotationMatrixSystem name='rot' "
                                               "assemblingRate='4'/>"
                                             : "");
        st_scene *s = fem_load_xml(&t, xml);
        fem_step(s, 10, 0.01);
        unsigned got = uint_field(test_find_object(s, "warp"), "linearSolverBuilds");
        cr_assert_eq(got, cases[k].builds, "%s: %u builds in 10 steps, expected %u",
                     cases[k].set, got, cases[k].builds);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* ---- errors ---- */

static void expect_error(const char *solvers, const char *what)
{
    test_rt t;
    fem_open_rt(&t);
    char xml[4096];
    snprintf(xml, sizeof xml,
             "<Node name='root'><DefaultAnimationLoop/>" GRID_2x2x3
             "<Node name='B'><EulerImplicitSolver linearSolver='@ls'/>%s"
             "<MechanicalObject name='dof' position='@../grid.position'/>"
             "<TetrahedronSetTopologyContainer name='tetras'/><TetrahedronSetTopologyModifier/>"
             "<Hexa2TetraTopologicalMapping input='@../grid' output='@tetras'/>"
             "<DiagonalMass massDensity='1'/>"
             "<TetrahedronFEMForceField name='FEM'/></Node></Node>",
             solvers);
    st_error err = {0};
    st_scene *s = NULL;
    st_status st = st_scene_load_string(t.rt, xml, strlen(xml), "test.scn", &s, &err);
    if (st == ST_OK)
        st = st_scene_init(s, &err);
    cr_assert_neq(st, ST_OK, "%s: expected an error", solvers);
    cr_assert(strstr(err.msg, what) || strstr(err.path, what), "%s: got '%s' at '%s'", solvers,
              err.msg, err.path);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(warp_preconditioner, bad_settings_are_errors)
{
    expect_error("<PCGLinearSolver name='ls' preconditioner='@warp'/>"
                 "<WarpPreconditioner name='warp' linearSolver='@ldl' useRotationFinder='1'/>"
                 "<SparseLDLSolver name='ldl'/>",
                 "rotation finder 1 requested");
    expect_error("<PCGLinearSolver name='ls' preconditioner='@warp'/>"
                 "<WarpPreconditioner name='warp' linearSolver='@cg'/>"
                 "<CGLinearSolver name='cg'/>",
                 "GraphScattered");
    expect_error("<PCGLinearSolver name='ls' preconditioner='@warp'/>"
                 "<WarpPreconditioner name='warp' linearSolver='@ldl' update_step='5'/>"
                 "<RotationMatrixSystem/><SparseLDLSolver name='ldl'/>",
                 "keep one");
    expect_error("<PCGLinearSolver name='ls' preconditioner='@warp'/>"
                 "<WarpPreconditioner name='warp' linearSolver='@ldl' linearSystem='@ldl'/>"
                 "<SparseLDLSolver name='ldl'/>",
                 "designed to work with a RotationMatrixSystem");
    expect_error("<PCGLinearSolver name='ls' preconditioner='@warp'/>"
                 "<WarpPreconditioner name='warp' linearSolver='@ldl'/>"
                 "<RotationMatrixSystem rotationFinder='@ldl'/><SparseLDLSolver name='ldl'/>",
                 "is not a rotation finder");
}
