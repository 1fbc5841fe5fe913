/* test_precomputed_warp.c - PrecomputedWarpPreconditioner with its
 * PrecomputedMatrixSystem:
 *   - the cache file is SOFA's: "<node>-<size>-<dt>.comp", the n x n
 *     doubles of A0^-1 times dt (EulerImplicitSolver's position
 *     integration factor); on a mass-only system A0 = M (1 + h rayleighMass)
 *     so its diagonal is dt / (m (1 + h rm)); the linked solver and the
 *     dense Cholesky give the same file; a file present is read back;
 *   - as the preconditioner of PCG on a corotational beam swinging down,
 *     it gives the SparseLDLSolver trajectory, the first step in one
 *     iteration (the precomputed inverse is exact there), and fewer
 *     iterations than without rotations once the beam has turned;
 *   - a linearSystem that is not a PrecomputedMatrixSystem is an error. */
#include <stdio.h>
#include <unistd.h>

#include "fem_test_util.h"

static char dir[1024], cwd[1024];

static void in_tmp(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/precomputed_warp-%ld", tmp ? tmp : ".", (long)getpid());
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    cr_assert_eq(system(cmd), 0);
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_assert_eq(chdir(dir), 0);
}

static void back(void) { cr_assert_eq(chdir(cwd), 0); }

/* 4 free particles of mass 2 (no stiffness), dt 0.1, rayleighMass rm. */
static st_scene *masses(test_rt *t, const char *name, const char *rm, const char *pre)
{
    char xml[2048];
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 -1 0' dt='0.1'><DefaultAnimationLoop/>"
             "<Node name='%s'><EulerImplicitSolver rayleighMass='%s' rayleighStiffness='0'/>"
             "<PCGLinearSolver name='ls' iterations='50' tolerance='1e-20' "
             "preconditioner='@pre'/>"
             "<PrecomputedMatrixSystem name='psys'/>"
             "<PrecomputedWarpPreconditioner name='pre' linearSystem='@psys' %s/>"
             "<SparseLDLSolver name='ldl'/>"
             "<MechanicalObject name='dof' position='0 0 0 1 0 0 0 1 0 0 0 1'/>"
             "<UniformMass vertexMass='2'/></Node></Node>",
             name, rm, pre);
    return fem_load_xml(t, xml);
}

static double *read_all(const char *name, size_t *n)
{
    FILE *f = fopen(name, "rb");
    cr_assert_not_null(f, "%s/%s was not written", dir, name);
    static double buf[4096];
    *n = fread(buf, sizeof *buf, 4096, f);
    fclose(f);
    return buf;
}

Test(precomputed_warp, cache_file_is_sofas)
{
    in_tmp();
    test_rt t;
    fem_open_rt(&t);
    st_error err = {0};
    cr_assert_eq(st_runtime_load_plugin(t.rt, "LinearSystem", &err), ST_OK, "%s", err.msg);
    /* Dense Cholesky (no linearSolver), then through SparseLDLSolver. */
    st_scene *a = masses(&t, "dense", "0", "");
    fem_step(a, 1, 0.1);
    st_scene *b = masses(&t, "solver", "0", "linearSolver='@ldl'");
    fem_step(b, 1, 0.1);
    size_t na, nb;
    double da[144];
    memcpy(da, read_all("dense-12-0.1.comp", &na), sizeof da);
    const double *db = read_all("solver-12-0.1.comp", &nb);
    cr_assert_eq(na, 144);
    cr_assert_eq(nb, 144);
    for (size_t i = 0; i < 12; i++)
        for (size_t j = 0; j < 12; j++) {
            double want = i == j ? 0.1 / 2.0 : 0.0;
            fem_near(da[12 * i + j], want, 1e-15, "dense inverse times dt");
            fem_near(db[12 * i + j], want, 1e-15, "solver inverse times dt");
        }
    const st_field *f = st_component_field(test_find_object(a, "pre"), "file");
    cr_assert_str_eq(*(char **)st_component_field_ptr(test_find_object(a, "pre"), f),
                     "dense-12-0.1.comp");
    /* The preconditioner is the exact inverse: PCG stops after one
     * iteration, and the particles fall by g dt^2 in the first step. */
    const st_field *it = st_component_field(test_find_object(a, "ls"), "nbIterations");
    cr_assert_eq(*(unsigned *)st_component_field_ptr(test_find_object(a, "ls"), it), 1u);
    st_mstate *ms = (st_mstate *)test_find_object(a, "dof");
    fem_near(ms->position.r[1], -0.01, 1e-14, "fall after one step");
    st_scene_destroy(&a);
    st_scene_destroy(&b);
    /* A file present is read back: a file of 2s makes the preconditioner
     * 2/dt = 20 times the identity, and PCG still converges to the same
     * step. */
    FILE *w = fopen("dense-12-0.1.comp", "wb");
    double two[144];
    for (int k = 0; k < 144; k++)
        two[k] = k % 13 == 0 ? 2.0 : 0.0;
    cr_assert_eq(fwrite(two, sizeof two[0], 144, w), 144);
    fclose(w);
    a = masses(&t, "dense", "0", "");
    fem_step(a, 1, 0.1);
    ms = (st_mstate *)test_find_object(a, "dof");
    fem_near(ms->position.r[1], -0.01, 1e-12, "fall with a scaled preconditioner");
    cr_assert(strstr(t.log, "compliance being loaded"), "%s", t.log);
    st_scene_destroy(&a);
    test_rt_close(&t);
    back();
}

/* rayleighMass 0.5: A0 = M (1 + h 0.5). */
Test(precomputed_warp, mass_damping_in_the_inverse)
{
    in_tmp();
    test_rt t;
    fem_open_rt(&t);
    st_error err = {0};
    cr_assert_eq(st_runtime_load_plugin(t.rt, "LinearSystem", &err), ST_OK, "%s", err.msg);
    st_scene *a = masses(&t, "damped", "0.5", "");
    fem_step(a, 1, 0.1);
    size_t n;
    const double *d = read_all("damped-12-0.1.comp", &n);
    fem_near(d[0], 0.1 / (2.0 * 1.05), 1e-15, "dt / (m (1 + h rm))");
    st_scene_destroy(&a);
    test_rt_close(&t);
    back();
}

/* A corotational hexahedral beam clamped at x = 0, swinging down. */
static st_scene *beam(test_rt *t, const char *solvers)
{
    char xml[4096];
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 -9.81 0' dt='0.03'><DefaultAnimationLoop/>"
             "<RegularGridTopology name='grid' n='11 3 3' min='0 -0.5 -0.5' max='10 0.5 0.5'/>"
             "<Node name='Beam'>"
             "<EulerImplicitSolver name='ode' rayleighStiffness='0.01' rayleighMass='0.1'/>%s"
             "<MechanicalObject name='dof' position='@../grid.position'/>"
             "<UniformMass totalMass='100'/>"
             "<BoxROI name='clamp' box='-0.01 -1 -1 0.01 1 1'/>"
             "<FixedProjectiveConstraint indices='@clamp.indices'/>"
             "<HexahedronFEMForceField name='FEM' method='large' youngModulus='2e4' "
             "poissonRatio='0.3' topology='@../grid'/></Node></Node>",
             solvers);
    return fem_load_xml(t, xml);
}

#define NS 40
#define NB (3 * 11 * 3 * 3)

static void run(const char *solvers, double x[NS][NB], unsigned it[NS])
{
    test_rt t;
    fem_open_rt(&t);
    st_error err = {0};
    cr_assert_eq(st_runtime_load_plugin(t.rt, "LinearSystem", &err), ST_OK, "%s", err.msg);
    st_scene *s = beam(&t, solvers);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dof");
    st_component *ls = test_find_object(s, "ls");
    const st_field *f = st_component_field(ls, "nbIterations");
    for (int k = 0; k < NS; k++) {
        cr_assert_eq(st_scene_step(s, 0.03, &err), ST_OK, "%s", err.msg);
        memcpy(x[k], ms->position.r, sizeof x[k]);
        it[k] = f ? *(unsigned *)st_component_field_ptr(ls, f) : 0;
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

#define PCG(extra)                                                                                \
    "<PCGLinearSolver name='ls' iterations='500' tolerance='1e-22' preconditioner='@pre'/>"     \
    "<PrecomputedWarpPreconditioner name='pre' use_file='false' " extra "/>"

Test(precomputed_warp, beam_follows_the_direct_solver, .timeout = 120)
{
    static double ref[NS][NB], warp[NS][NB], plain[NS][NB];
    static unsigned iref[NS], iwarp[NS], iplain[NS];
    run("<SparseLDLSolver name='ls'/>", ref, iref);
    run(PCG(""), warp, iwarp);
    run(PCG("use_rotations='false'"), plain, iplain);
    double drop = 0;
    for (int k = 0; k < NS; k++)
        for (int i = 0; i < NB; i++) {
            fem_near(warp[k][i], ref[k][i], 1e-6, "warped PCG vs SparseLDL");
            fem_near(plain[k][i], ref[k][i], 1e-6, "unwarped PCG vs SparseLDL");
            drop = fmax(drop, -ref[k][i]);
        }
    cr_assert(drop > 1.0, "the beam swings down: %g", drop);
    cr_assert_eq(iwarp[0], 1u, "first step: %u iterations", iwarp[0]);
    unsigned sw = 0, sp = 0;
    for (int k = NS / 2; k < NS; k++)
        sw += iwarp[k], sp += iplain[k];
    cr_assert(sw < sp, "rotations help once the beam has turned: %u vs %u", sw, sp);
}

Test(precomputed_warp, linear_system_must_be_precomputed)
{
    test_rt t;
    fem_open_rt(&t);
    st_error err = {0};
    cr_assert_eq(st_runtime_load_plugin(t.rt, "LinearSystem", &err), ST_OK, "%s", err.msg);
    const char *xml =
        "<Node name='root'><DefaultAnimationLoop/><Node name='B'><EulerImplicitSolver/>"
        "<PCGLinearSolver name='ls' preconditioner='@pre'/>"
        "<MatrixLinearSystem name='sys'/>"
        "<PrecomputedWarpPreconditioner name='pre' linearSystem='@sys'/>"
        "<MechanicalObject position='0 0 0'/><UniformMass/></Node></Node>";
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load_string(t.rt, xml, strlen(xml), "t.scn", &s, &err), ST_OK);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "PrecomputedMatrixSystem"), "%s", err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}
