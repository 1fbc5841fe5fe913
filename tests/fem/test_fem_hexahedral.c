/* test_fem_hexahedral.c - HexahedralFEMForceField: its closed-form element
 * stiffness worked out by hand on a 1 x 2 x 3 box, equal to the exact
 * integral (HexahedronFEMForceField's) on a cube up to SOFA's rounding to
 * float, the forces of a stretched cube, rigid-motion invariance of large
 * and polar, and bad input (unknown method, a diagonal with no extent along
 * an axis, the warning for boxes that are not axis-aligned). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static void set(st_component *c, const char *name, const char *text)
{
    st_error err = {0};
    cr_assert_eq(st_component_set(c, name, text, &err), ST_OK, "set %s=%s: %s", name, text,
                 err.msg);
}

static st_component *add(st_node *n, const char *cls, const char *name)
{
    st_component *c = NULL;
    st_error err = {0};
    cr_assert_eq(st_node_add_object(n, cls, name, &c, &err), ST_OK, "add %s: %s", cls, err.msg);
    return c;
}

static test_rt T;
static st_scene *S;

static void setup(void)
{
    st_error err = {0};
    test_rt_open(&T);
    cr_assert_eq(st_runtime_add_plugin_path(T.rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    const char *plugins[] = {"ODESolver.Forward", "Topology",
                             "Sofa.Component.SolidMechanics.FEM.Elastic"};
    for (size_t i = 0; i < 3; i++)
        cr_assert_eq(st_runtime_load_plugin(T.rt, plugins[i], &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_create(T.rt, &S, &err), ST_OK, "%s", err.msg);
}

static void teardown(void)
{
    st_scene_destroy(&S);
    test_rt_close(&T);
}

TestSuite(hexahedral_fem, .init = setup, .fini = teardown);

/* A box a x b x c in SOFA's vertex order, as a position string. */
static void box(char *out, size_t n, double a, double b, double c)
{
    snprintf(out, n, "0 0 0  %g 0 0  %g %g 0  0 %g 0  0 0 %g  %g 0 %g  %g %g %g  0 %g %g", a, a,
             b, b, c, a, c, a, b, c, b, c);
}

/* A body node with one hexahedron at positions pos and a force field of
 * class cls (method, E, nu). */
static st_component *body(const char *node, const char *pos, const char *rest, const char *cls,
                          const char *method, const char *E, const char *nu)
{
    st_node *b = NULL;
    st_error err = {0};
    cr_assert_eq(st_node_add_child(st_scene_root(S), node, &b, &err), ST_OK, "%s", err.msg);
    add(b, "EulerExplicitSolver", "solver");
    st_component *dofs = add(b, "MechanicalObject", "dofs");
    set(dofs, "position", pos);
    if (rest)
        set(dofs, "rest_position", rest);
    set(add(b, "MeshTopology", "topo"), "hexahedra", "0 1 2 3 4 5 6 7");
    st_component *ff = add(b, cls, "ff");
    set(ff, "method", method);
    set(ff, "youngModulus", E);
    set(ff, "poissonRatio", nu);
    return ff;
}

static void init_ok(void)
{
    st_error err = {0};
    cr_assert_eq(st_scene_init(S, &err), ST_OK, "init: %s\nlog:\n%s", err.msg, T.log);
}

/* The 24 x 24 stiffness -df/dx of ff at its state's positions (add_force
 * first, so that the element frames are those of x). */
static void stiffness_of(st_component *ff, double K[24][24])
{
    st_mstate *ms = st_component_mstate(ff);
    st_system *sys = ms->system;
    cr_assert_not_null(sys);
    size_t n = sys->size_all;
    double f[128] = {0}, v[128] = {0}, dx[128], df[128];
    cr_assert_leq(n, 128);
    ff->cls->forcefield->add_force(ff, &sys->mp, f, sys->x, v);
    for (int j = 0; j < 24; j++) {
        memset(dx, 0, sizeof dx);
        memset(df, 0, sizeof df);
        st_slice(dx, ms)[j] = 1;
        ff->cls->forcefield->add_dforce(ff, &sys->mp, df, dx, 1.0, 0.0);
        for (int i = 0; i < 24; i++)
            K[i][j] = -st_slice(df, ms)[i];
    }
}

/* E = 1000, nu = 0.25: U = 1200, V = W = 400. Box 1 x 2 x 3: J = diag(2,
 * 1, 2/3), vol = 6 / 8. At vertex 0 (signs -1 -1 -1), I_xx = I_yy = I_zz =
 * (1/8)(4/3)(4/3) = 2/9 and I_xy = I_yx = (1/8)(4/3) = 1/6:
 *   K(0x, 0x) = vol 4 (U 2/9 + W 4/9) = 4000/3
 *   K(0x, 0y) = vol 2 (V + W) / 6 = 200
 *   K(0z, 0z) = vol 4/9 (U 2/9 + W 4/9) = 4000/27
 * (the exact integral gives vol (4 U + W (1 + 4/9)) 2/9 = 896.296... for
 * the first: SOFA's shear terms use J_x for every axis). */
Test(hexahedral_fem, box_stiffness_by_hand)
{
    char p[256];
    box(p, sizeof p, 1, 2, 3);
    st_component *ff = body("B", p, NULL, "HexahedralFEMForceField", "large", "1000", "0.25");
    init_ok();
    double K[24][24];
    stiffness_of(ff, K);
    const double tol = 1e-6; /* SOFA rounds each integral to float */
    cr_assert(fabs(K[0][0] - 4000.0 / 3) <= tol * 4000, "K00 = %.17g", K[0][0]);
    cr_assert(fabs(K[0][1] - 200.0) <= tol * 200, "K01 = %.17g", K[0][1]);
    cr_assert(fabs(K[2][2] - 4000.0 / 27) <= tol * 200, "K22 = %.17g", K[2][2]);
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 24; j++)
            cr_assert_eq(K[i][j], K[j][i], "K is symmetric (%d, %d)", i, j);
    /* Each row sums to zero over the vertices (translations make no
     * force), up to SOFA's rounding of the integrals to float. */
    for (int i = 0; i < 24; i++)
        for (int c = 0; c < 3; c++) {
            double s = 0;
            for (int k = 0; k < 8; k++)
                s += K[i][3 * k + c];
            cr_assert(fabs(s) <= 1e-7 * 4000, "row %d, component %d: sum %.3g", i, c, s);
        }
}

/* On a cube, SOFA's closed form is the exact integral: the stiffness and
 * the forces of a stretched cube equal HexahedronFEMForceField's (Gauss
 * integration) up to the rounding to float. */
Test(hexahedral_fem, cube_equals_hexahedron_fem)
{
    char rest[256], pos[256];
    box(rest, sizeof rest, 0.5, 0.5, 0.5);
    box(pos, sizeof pos, 0.55, 0.5, 0.5); /* stretched 10 % along x */
    static const char *const methods[] = {"large", "polar"};
    for (int m = 0; m < 2; m++) {
        if (m) {
            teardown();
            setup();
        }
        st_component *a =
            body("A", pos, rest, "HexahedralFEMForceField", methods[m], "3000", "0.3");
        st_component *b =
            body("B", pos, rest, "HexahedronFEMForceField", methods[m], "3000", "0.3");
        init_ok();
        double Ka[24][24], Kb[24][24];
        stiffness_of(a, Ka);
        stiffness_of(b, Kb);
        double kmax = 0, worst = 0;
        for (int i = 0; i < 24; i++)
            for (int j = 0; j < 24; j++) {
                kmax = fmax(kmax, fabs(Kb[i][j]));
                worst = fmax(worst, fabs(Ka[i][j] - Kb[i][j]));
            }
        cr_assert_gt(kmax, 100.0);
        cr_assert_leq(worst, 1e-6 * kmax, "%s: |K - K_hexahedron| = %.3g of %.3g", methods[m],
                      worst, kmax);
        /* the forces of the stretch: pulled back along x, 1/4 of the total
         * on each of the 4 vertices of a face */
        double fa[128] = {0}, fb[128] = {0}, v[128] = {0};
        st_mstate *ma = st_component_mstate(a), *mb = st_component_mstate(b);
        a->cls->forcefield->add_force(a, &ma->system->mp, fa, ma->system->x, v);
        b->cls->forcefield->add_force(b, &mb->system->mp, fb, mb->system->x, v);
        const double *ga = st_slice(fa, ma), *gb = st_slice(fb, mb);
        for (int i = 0; i < 24; i++)
            cr_assert(fabs(ga[i] - gb[i]) <= 1e-6 * 100, "%s f[%d] = %.17g, hexahedron %.17g",
                      methods[m], i, ga[i], gb[i]);
        cr_assert_lt(ga[3], -1.0, "vertex 1 (x = 0.55) is pulled back: %g", ga[3]);
        cr_assert(fabs(ga[3] + ga[0]) <= 1e-6 * fabs(ga[3]), "opposite on vertex 0: %.17g %.17g",
                  ga[0], ga[3]);
    }
}

/* A rigid motion of the rest cube makes no force (up to SOFA's float
 * rounding of K, which leaves translations a force of about 1e-8 K |t|). */
Test(hexahedral_fem, rigid_motion_makes_no_force)
{
    char rest[256];
    box(rest, sizeof rest, 1, 1, 1);
    /* rotation of 40 degrees about (1, 2, 2)/3, then a translation */
    const double ax[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3}, th = 40 * M_PI / 180;
    const double c = cos(th), s = sin(th), t = 1 - c;
    const double R[9] = {t * ax[0] * ax[0] + c,         t * ax[0] * ax[1] - s * ax[2],
                         t * ax[0] * ax[2] + s * ax[1], t * ax[0] * ax[1] + s * ax[2],
                         t * ax[1] * ax[1] + c,         t * ax[1] * ax[2] - s * ax[0],
                         t * ax[0] * ax[2] - s * ax[1], t * ax[1] * ax[2] + s * ax[0],
                         t * ax[2] * ax[2] + c};
    const double p0[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                             {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    char pos[512];
    int w = 0;
    for (int k = 0; k < 8; k++)
        for (int a = 0; a < 3; a++)
            w += snprintf(pos + w, sizeof pos - (size_t)w, "%.17g ",
                          R[3 * a] * p0[k][0] + R[3 * a + 1] * p0[k][1] + R[3 * a + 2] * p0[k][2] +
                              0.5 * (a + 1));
    static const char *const methods[] = {"large", "polar"};
    for (int m = 0; m < 2; m++) {
        if (m) {
            teardown();
            setup();
        }
        st_component *ff = body("A", pos, rest, "HexahedralFEMForceField", methods[m], "3000",
                                "0.3");
        init_ok();
        st_mstate *ms = st_component_mstate(ff);
        double f[128] = {0}, v[128] = {0};
        ff->cls->forcefield->add_force(ff, &ms->system->mp, f, ms->system->x, v);
        for (int i = 0; i < 24; i++)
            cr_assert(fabs(st_slice(f, ms)[i]) <= 1e-7 * 3000, "%s: f[%d] = %.3g", methods[m], i,
                      st_slice(f, ms)[i]);
        double e = ff->cls->forcefield->potential_energy(ff, &ms->system->mp, ms->system->x);
        /* |D| = |t| = sqrt 3.5 at each of the 8 vertices */
        cr_assert(fabs(e) <= 1e-7 * 3000 * 3.5 * 8, "%s: energy %.3g", methods[m], e);
    }
}

Test(hexahedral_fem, bad_input)
{
    char p[256];
    box(p, sizeof p, 1, 1, 1);
    body("A", p, NULL, "HexahedralFEMForceField", "small", "1000", "0.3");
    st_error err = {0};
    cr_assert_neq(st_scene_init(S, &err), ST_OK);
    cr_assert(strstr(err.msg, "unknown method 'small'"), "%s", err.msg);
    teardown();
    setup();
    /* the unit cube turned 45 degrees about z: n6 - n0 = (0, sqrt 2, 1) */
    const double h = sqrt(0.5);
    char q[512];
    snprintf(q, sizeof q,
             "0 0 0  %.17g %.17g 0  0 %.17g 0  %.17g %.17g 0  0 0 1  %.17g %.17g 1  0 %.17g 1  "
             "%.17g %.17g 1",
             h, h, 2 * h, -h, h, h, h, 2 * h, -h, h);
    body("A", q, NULL, "HexahedralFEMForceField", "large", "1000", "0.3");
    cr_assert_neq(st_scene_init(S, &err), ST_OK);
    cr_assert(strstr(err.msg, "no extent along axis x"), "%s", err.msg);
    teardown();
    setup();
    /* turned 30 degrees: accepted, with a warning */
    const double c = cos(M_PI / 6), s = sin(M_PI / 6);
    snprintf(q, sizeof q,
             "0 0 0  %.17g %.17g 0  %.17g %.17g 0  %.17g %.17g 0  0 0 1  %.17g %.17g 1  %.17g "
             "%.17g 1  %.17g %.17g 1",
             c, s, c - s, s + c, -s, c, c, s, c - s, s + c, -s, c);
    body("A", q, NULL, "HexahedralFEMForceField", "large", "1000", "0.3");
    init_ok();
    cr_assert(strstr(T.log, "1 of 1 hexahedra are not axis-aligned"), "log:\n%s", T.log);
}
