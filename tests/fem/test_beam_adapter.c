/* test_beam_adapter.c - the BeamAdapter plugin: BeamInterpolation and
 * AdaptiveBeamForceFieldAndMass. BeamAdapter's own unit-test cases
 * re-derived (the data after init, the minimal scenes, the 200-frame beam
 * hanging under gravity for 500 steps), a cantilever under a tip load
 * against the Euler-Bernoulli closed forms, the shared beam stiffness with
 * shear areas against Timoshenko's, add_dforce and the assembled stiffness
 * against finite differences, and the mass matrix (total mass, gravity,
 * M dx against the assembled M, kinetic energy). */
#include <stdio.h>

#include "plugins/BeamAdapter/beam_adapter.h"
#include "plugins/shared/beam_stiffness.h"
#include "fem_test_util.h"

static void ba_open_rt(test_rt *t)
{
    st_error err = {0};
    fem_open_rt(t);
    cr_assert_eq(st_runtime_load_plugin(t->rt, "BeamAdapter", &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_runtime_load_plugin(t->rt, "MechanicalLoad", &err), ST_OK, "%s", err.msg);
}

/* BeamAdapter's single beam: 200 frames along x over [0, 100], the first
 * fixed, radius 0.1, E 1e5, massDensity 10, gravity -9.81 y. */
#define SINGLE_BEAM(FF)                                                                           \
    "<Node name='Root' gravity='0 -9.81 0' dt='0.01'><DefaultAnimationLoop/>"                     \
    "<EulerImplicitSolver rayleighStiffness='0.0' rayleighMass='0.0'/><BTDLinearSolver/>"         \
    "<RegularGridTopology name='MeshLines' nx='200' ny='1' nz='1' xmax='100' xmin='0' ymin='0' "  \
    "ymax='0' zmax='0' zmin='0'/>"                                                                \
    "<MechanicalObject template='Rigid3d' name='DOFs'/><FixedProjectiveConstraint indices='0'/>"  \
    "<BeamInterpolation name='Interpol' radius='0.1'/>" FF "</Node>"

static void all_equal(const st_array *a, size_t n, double v, const char *what)
{
    cr_assert_eq(a->n, n, "%s: %zu values", what, a->n);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(a->r[i], v, "%s[%zu] = %g, expected %g", what, i, a->r[i], v);
}

/* BeamInterpolation_test's and AdaptiveBeamForceFieldAndMassTest's
 * checkCreation: every per-beam list sized to the 199 beams. */
Test(beam_adapter, sofa_check_creation)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = fem_load_xml(&t, SINGLE_BEAM("<AdaptiveBeamForceFieldAndMass name='ForceField' "
                                               "interpolation='@Interpol' massDensity='10.0'/>"));
    beam_interpolation *bi = (beam_interpolation *)fem_find(s, "Interpol", "BeamInterpolation");
    cr_assert_eq(bi->base.state, ST_CSTATE_VALID);
    all_equal(&bi->radius, 199, 0.1, "radius");
    all_equal(&bi->inner_radius, 199, 0.0, "innerRadius");
    all_equal(&bi->length_y, 199, 1.0, "lengthY");
    all_equal(&bi->length_z, 199, 1.0, "lengthZ");
    all_equal(&bi->young, 199, 1e5, "defaultYoungModulus");
    all_equal(&bi->poisson, 199, 0.4, "defaultPoissonRatio");
    cr_assert_eq(bi->def_young, 1e5);
    cr_assert_eq(bi->edge_list.n, 199);
    cr_assert_eq(bi->dof0_node0.n, 199);
    for (size_t i = 0; i < 199; i++)
        fem_near(bi->length_list.r[i], 100.0 / 199.0, 1e-12, "lengthList");
    /* one radius given for 199 beams: one section for all */
    cr_assert(bi->constant);
    fem_near(bi->constant_section.A, M_PI * 0.01, 1e-15, "A");
    fem_near(bi->constant_section.Iy, M_PI * 1e-4 / 4, 1e-18, "Iy");
    fem_near(bi->constant_section.J, M_PI * 1e-4 / 2, 1e-18, "J");
    ab_ffm *ff = (ab_ffm *)fem_find(s, "ForceField", "AdaptiveBeamForceFieldAndMass");
    cr_assert_eq(ff->base.state, ST_CSTATE_VALID);
    cr_assert(ff->compute_mass);
    all_equal(&ff->mass_density, 199, 10.0, "massDensity");
    cr_assert_eq(ff->def_density, 10.0);
    cr_assert_eq(ff->rayleigh_mass, 0.0);
    cr_assert_eq(ff->rayleigh_stiffness, 0.0);
    cr_assert(ff->shear);
    cr_assert(!ff->reinforce);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* AdaptiveBeamForceFieldAndMassTest's checkValues: the tip after 500 steps
 * (BeamAdapter: -1.34228, -110.274221, 0 within 1e-4). */
Test(beam_adapter, sofa_check_values)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = fem_load_xml(&t, SINGLE_BEAM("<AdaptiveBeamForceFieldAndMass name='ForceField' "
                                               "interpolation='@Interpol' massDensity='10.0'/>"));
    ab_ffm *ff = (ab_ffm *)fem_find(s, "ForceField", "AdaptiveBeamForceFieldAndMass");
    const double *tip = ff->ms->position.r + 7 * 199;
    fem_near(tip[0], 100, 1e-4, "tip x at init");
    fem_near(tip[1], 0, 1e-4, "tip y at init");
    fem_step(s, 500, 0.01);
    tip = ff->ms->position.r + 7 * 199;
    printf("BeamAdapter single beam, tip after 500 steps: %.9g %.9g %.9g (BeamAdapter -1.34228 "
           "-110.274221 0)\n",
           tip[0], tip[1], tip[2]);
    fem_near(tip[0], -1.34228, 1e-4, "tip x");
    fem_near(tip[1], -110.274221, 1e-4, "tip y");
    fem_near(tip[2], 0, 1e-4, "tip z");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- BeamInterpolation_test's minimal scenes ---- */

#define MIN_HEAD                                                                                  \
    "<Node name='Root' gravity='0 0 0'><EulerImplicitSolver rayleighStiffness='0.08' "            \
    "rayleighMass='0.08'/><CGLinearSolver iterations='100' threshold='1e-10' tolerance='1e-15'/>"
#define MIN_TOPO "<MeshTopology name='meshSuture' edges='0 1'/>"
#define MIN_MO                                                                                    \
    "<MechanicalObject template='Rigid3d' name='DOFs' position='0 0 0 0 0 0 1  1 0 0 0 0 0 1'/>"
#define MIN_BI "<BeamInterpolation template='Rigid3d' name='Interpol' radius='0.1'/>"
#define MIN_FF                                                                                    \
    "<AdaptiveBeamForceFieldAndMass name='ForceField' interpolation='@Interpol' "                 \
    "massDensity='1.0'/>"

static void expect_ok(const char *xml)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = fem_load_xml(&t, xml);
    cr_assert_null(strstr(t.log, "error"), "%s", t.log);
    st_error err = {0};
    st_component *bi = test_find_object(s, "Interpol");
    cr_assert_eq(bi->cls->reinit(bi, &err), ST_OK, "reinit: %s", err.msg);
    cr_assert_eq(((beam_interpolation *)bi)->length_list.r[0], 1.0);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static void expect_error(const char *xml, const char *what)
{
    test_rt t;
    ba_open_rt(&t);
    st_error err = {0};
    st_scene *s = NULL;
    st_status st = st_scene_load_string(t.rt, xml, strlen(xml), "test.scn", &s, &err);
    if (st == ST_OK)
        st = st_scene_init(s, &err);
    cr_assert_neq(st, ST_OK, "%s: initialised", what);
    cr_assert_not_null(strstr(err.msg, what), "message: %s", err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(beam_adapter, sofa_minimal_scenes)
{
    expect_ok(MIN_HEAD MIN_TOPO MIN_MO MIN_BI "</Node>");
    expect_ok(MIN_HEAD MIN_MO MIN_BI MIN_TOPO "</Node>");
    /* SOFA refuses a BeamInterpolation written before its MechanicalObject
     * (its factory looks for the state at creation); settee finds the
     * node's state at init, as for every component. */
    expect_ok(MIN_HEAD MIN_TOPO MIN_BI MIN_MO "</Node>");
    /* the force field before its interpolation: it prepares it first */
    expect_ok(MIN_HEAD MIN_TOPO MIN_MO MIN_FF MIN_BI "</Node>");
    expect_error(MIN_HEAD MIN_MO MIN_BI MIN_FF "</Node>", "No topology component found");
    expect_error(MIN_HEAD MIN_TOPO MIN_BI MIN_FF "</Node>",
                 "No mechanical state with the datatype 'Rigid3d'");
    expect_error(MIN_HEAD MIN_TOPO MIN_MO MIN_FF "</Node>", "'@Interpol' does not resolve");
    expect_error(MIN_HEAD MIN_TOPO MIN_MO "<AdaptiveBeamForceFieldAndMass/></Node>",
                 "No Beam Interpolation found");
    expect_error(MIN_HEAD MIN_TOPO MIN_MO
                 "<AdaptiveBeamForceFieldAndMass interpolation='@meshSuture'/></Node>",
                 "not a BeamInterpolation");
    expect_error(MIN_HEAD MIN_MO "<MeshTopology name='empty'/>" MIN_BI "</Node>",
                 "empty (no edges)");
    expect_error(MIN_HEAD MIN_TOPO MIN_MO
                 "<BeamInterpolation name='Interpol' crossSectionShape='square'/></Node>",
                 "crossSectionShape");
}

/* ---- Cantilever under a tip load ---- */

#define CANT_E 2e7
#define CANT_R 0.05
#define CANT_P 1e-2

static st_scene *cantilever(test_rt *t, int n, const char *solvers, const char *ff_extra,
                            const char *bi_extra)
{
    static char xml[8192];
    char pos[4096] = "", edges[1024] = "";
    size_t lp = 0, le = 0;
    for (int i = 0; i <= n; i++)
        lp += (size_t)snprintf(pos + lp, sizeof pos - lp, "%.17g 0 0 0 0 0 1  ", (double)i / n);
    for (int i = 0; i < n; i++)
        le += (size_t)snprintf(edges + le, sizeof edges - le, "%d %d  ", i, i + 1);
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 0 0' dt='0.01'><DefaultAnimationLoop/>%s"
             "<MechanicalObject name='dofs' template='Rigid3d' position='%s'/>"
             "<MeshTopology lines='%s'/>"
             "<BeamInterpolation name='interp' radius='%g' defaultYoungModulus='%g' "
             "defaultPoissonRatio='0.3' %s/>"
             "<AdaptiveBeamForceFieldAndMass name='beam' massDensity='1' %s/>"
             "<FixedProjectiveConstraint indices='0'/>"
             "<ConstantForceField indices='%d' forces='0 %g 0 0 0 0'/></Node>",
             solvers, pos, edges, CANT_R, CANT_E, bi_extra, ff_extra, n, -CANT_P);
    return fem_load_xml(t, xml);
}

/* Tip deflection and rotation against P L^3 / (3 E I) and P L^2 / (2 E I)
 * (cubic beam elements are nodally exact for end loads). */
static void check_tip(st_scene *s, double tol, const char *what)
{
    ab_ffm *b = (ab_ffm *)test_find_object(s, "beam");
    const double *tip = b->ms->position.r + 7 * b->nb;
    double I = M_PI * pow(CANT_R, 4) / 4, EI = CANT_E * I;
    double w = CANT_P / (3 * EI), th = CANT_P / (2 * EI);
    double got_th = 2 * atan2(tip[5], tip[6]);
    printf("%s: tip deflection %.9g (closed form %.9g), rotation %.9g (%.9g)\n", what, tip[1], -w,
           got_th, -th);
    fem_near(tip[1], -w, tol * w, "tip deflection");
    fem_near(got_th, -th, tol * th, "tip rotation");
    fem_near(tip[2], 0, 1e-12, "tip z");
}

#define STATIC_LDL                                                                                \
    "<StaticSolver newton_iterations='20' absolute_residual_tolerance_threshold='1e-14' "         \
    "relative_residual_tolerance_threshold='1e-14'/><SparseLDLSolver/>"

Test(beam_adapter, cantilever_static)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = cantilever(&t, 10, STATIC_LDL, "", "");
    fem_step(s, 1, 0.01);
    check_tip(s, 1e-5, "AdaptiveBeamForceFieldAndMass, static, 10 beams");
    st_scene_destroy(&s);
    s = cantilever(&t, 1, STATIC_LDL, "", "");
    fem_step(s, 1, 0.01);
    check_tip(s, 1e-5, "AdaptiveBeamForceFieldAndMass, static, 1 beam");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* A long damped implicit run settles on the static solution (the mass
 * and gravity 0 change nothing at equilibrium). */
Test(beam_adapter, cantilever_implicit)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = cantilever(&t, 5,
                             "<EulerImplicitSolver rayleighMass='5'/><SparseLDLSolver/>", "", "");
    fem_step(s, 1500, 0.01);
    check_tip(s, 1e-4, "AdaptiveBeamForceFieldAndMass, EulerImplicitSolver, 5 beams");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* The shared stiffness with shear areas: one element clamped at node 0,
 * end load P: w = P L^3 / (3 E I) (1 + phi / 4), phi = 12 E I / (G As L^2),
 * i.e. P L^3 / (3 E I) + P L / (G As) (Timoshenko's cantilever), and the
 * end rotation P L^2 / (2 E I) unchanged. */
Test(beam_adapter, timoshenko_element)
{
    const double E = 2e7, nu = 0.3, L = 0.4, r = 0.05, P = 3.0;
    const double A = M_PI * r * r, I = M_PI * pow(r, 4) / 4, As = 0.9 * A;
    const double G = E / (2 * (1 + nu));
    beam_section_props p = {.E = E, .nu = nu, .L = L, .A = A, .Iy = I, .Iz = I, .J = 2 * I,
                            .Asy = As, .Asz = As};
    double k[12][12];
    beam_local_stiffness(k, &p);
    /* node 1's v and theta_z: [k77 k7b; kb7 kbb] (v, th) = (P, 0) */
    double a = k[7][7], b = k[7][11], d = k[11][11], det = a * d - b * b;
    double v = d * P / det, th = -b * P / det;
    double want = P * L * L * L / (3 * E * I) + P * L / (G * As);
    printf("Timoshenko element: deflection %.12g (closed form %.12g), rotation %.12g (%.12g)\n",
           v, want, th, P * L * L / (2 * E * I));
    fem_near(v, want, 1e-12 * want, "Timoshenko deflection");
    fem_near(th, P * L * L / (2 * E * I), 1e-12 * th, "end rotation");
    /* without shear areas: Euler-Bernoulli */
    p.Asy = p.Asz = 0;
    beam_local_stiffness(k, &p);
    a = k[7][7], b = k[7][11], d = k[11][11], det = a * d - b * b;
    fem_near(d * P / det, P * L * L * L / (3 * E * I), 1e-12 * want, "Euler-Bernoulli");
}

/* ---- The tangent ---- */

static void move_rigidly(st_system *sys, const st_mstate *ms, const double q[4], const double tr[3])
{
    double *x = st_slice_x(sys->x, ms);
    for (size_t i = 0; i < ms->n; i++) {
        double *p = x + 7 * i, c[3], rq[4];
        st_quat_rotate(c, q, p);
        for (int k = 0; k < 3; k++)
            p[k] = c[k] + tr[k];
        st_quat_mul(rq, q, p + 3);
        memcpy(p + 3, rq, sizeof rq);
    }
}

static double max_force(st_component *ff, st_system *sys)
{
    double *f = calloc(sys->size_all, sizeof *f), *v = calloc(sys->size_all, sizeof *v), m = 0;
    ff->cls->forcefield->add_force(ff, &sys->mp, f, sys->x, v);
    for (size_t i = 0; i < sys->size_all; i++)
        m = fmax(m, fabs(f[i]));
    free(f);
    free(v);
    return m;
}

static void check_tangent(const char *ff_extra, const char *bi_extra, const char *what)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = cantilever(&t, 4, "<EulerImplicitSolver/><SparseLDLSolver/>", ff_extra,
                             bi_extra);
    st_component *ff = test_find_object(s, "beam");
    st_system *sys = s->systems[0];
    st_mstate *ms = ((ab_ffm *)ff)->ms;
    st_jacobian_check chk = {.struct_size = sizeof chk};
    st_error err = {0};
    cr_assert_lt(max_force(ff, sys), 1e-9, "%s: force at rest", what);
    cr_assert_eq(st_check_forcefield(ff, &chk, &err), ST_OK, "%s", err.msg);
    printf("%s, rest: dforce %.3g matrix %.3g (scale %.3g)\n", what, chk.dforce_error,
           chk.matrix_error, chk.scale);
    cr_assert_lt(chk.dforce_error, 1e-6, "%s", what);
    cr_assert_lt(chk.matrix_error, 1e-6, "%s", what);
    double ax[3] = {1, 2, 3}, n = sqrt(14.0), a = 0.7;
    double q[4] = {sin(a / 2) * ax[0] / n, sin(a / 2) * ax[1] / n, sin(a / 2) * ax[2] / n,
                   cos(a / 2)};
    double tr[3] = {0.3, -1.2, 2.5};
    move_rigidly(sys, ms, q, tr);
    double fr = max_force(ff, sys);
    cr_assert_lt(fr, 1e-6, "%s: rigidly moved rest: force %g", what, fr);
    cr_assert_eq(st_check_forcefield(ff, &chk, &err), ST_OK, "%s", err.msg);
    printf("%s, moved rest: force %.3g, dforce %.3g matrix %.3g\n", what, fr, chk.dforce_error,
           chk.matrix_error);
    cr_assert_lt(chk.dforce_error, 1e-6, "%s", what);
    cr_assert_lt(chk.matrix_error, 1e-6, "%s", what);
    /* deformed: a force, and a tangent without the frames' derivatives
     * (approximate, as BeamAdapter's), the same matrix-free and assembled */
    double *x = st_slice_x(sys->x, ms);
    x[7 * 4 + 1] += 0.01;
    x[7 * 2 + 2] -= 0.005;
    cr_assert_gt(max_force(ff, sys), 1.0, "%s", what);
    cr_assert_eq(st_check_forcefield(ff, &chk, &err), ST_OK, "%s", err.msg);
    printf("%s, deformed: dforce %.3g matrix %.3g\n", what, chk.dforce_error, chk.matrix_error);
    cr_assert_lt(chk.dforce_error, 0.05, "%s", what);
    cr_assert_lt(fabs(chk.dforce_error - chk.matrix_error), 1e-9, "%s", what);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(beam_adapter, tangent_against_finite_differences)
{
    check_tangent("", "", "aligned");
    /* DOFs offset from the beam nodes: the adjoints carry the lever arm */
    check_tangent("", "dofsAndBeamsAligned='false' "
                      "DOF0TransformNode0='0 0.02 0.01 0 0 0 1  0 0.02 0.01 0 0 0 1  "
                      "0 0.02 0.01 0 0 0 1  0 0.02 0.01 0 0 0 1' "
                      "DOF1TransformNode1='0 0.02 0.01 0 0 0 1  0 0.02 0.01 0 0 0 1  "
                      "0 0.02 0.01 0 0 0 1  0 0.02 0.01 0 0 0 1'",
                  "DOF offsets");
    check_tangent("reinforceLength='true'", "", "reinforceLength");
}

/* Axial stretch and twist of one beam give E A dL / L and G J phi / L in
 * every mode (the spline is straight: its length is the chord). */
Test(beam_adapter, stretch_and_twist_modes)
{
    const char *modes[] = {"", "reinforceLength='true'", "shearStressComputation='false'"};
    for (int m = 0; m < 3; m++) {
        test_rt t;
        ba_open_rt(&t);
        st_scene *s = cantilever(&t, 1, "<EulerImplicitSolver/><SparseLDLSolver/>", modes[m], "");
        ab_ffm *ff = (ab_ffm *)test_find_object(s, "beam");
        st_system *sys = s->systems[0];
        double *x = st_slice_x(sys->x, ff->ms);
        const double dl = 1e-4, phi = 1e-3;
        x[7] += dl;
        x[7 + 3] = sin(phi / 2), x[7 + 6] = cos(phi / 2);
        double *f = calloc(sys->size_all, sizeof *f), *v = calloc(sys->size_all, sizeof *v);
        ff->base.cls->forcefield->add_force(&ff->base, &sys->mp, f, sys->x, v);
        const double A = M_PI * CANT_R * CANT_R, J = M_PI * pow(CANT_R, 4) / 2;
        const double L = 1.0, G = CANT_E / (2 * 1.3);
        printf("mode '%s': axial %.9g (%.9g), torque %.9g (%.9g)\n", modes[m], f[6],
               -CANT_E * A * dl / (L + dl), f[9], -G * J * phi / (L + dl));
        fem_near(f[6], -CANT_E * A * dl / L, 1e-3 * CANT_E * A * dl / L, "axial force");
        fem_near(f[0], -f[6], 1e-9, "axial balance");
        fem_near(f[9], -G * J * phi / L, 2e-3 * G * J * phi / L, "torque");
        free(f);
        free(v);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* ---- The mass ---- */

Test(beam_adapter, mass_matrix)
{
    test_rt t;
    ba_open_rt(&t);
    /* 6 beams along (1 2 2) / 3 (x of every frame turned onto it), of
     * uneven lengths, rho 7, hollow */
    char xml[4096], pos[2048] = "";
    const double ang = acos(1.0 / 3.0), sh = sin(ang / 2) / sqrt(2.0), ch = cos(ang / 2);
    const double at[7] = {0, 0.5, 1.2, 2.0, 2.4, 3.3, 4.0};
    size_t lp = 0;
    for (int i = 0; i < 7; i++)
        lp += (size_t)snprintf(pos + lp, sizeof pos - lp, "%.17g %.17g %.17g 0 %.17g %.17g %.17g  ",
                               at[i] / 3, 2 * at[i] / 3, 2 * at[i] / 3, -sh, sh, ch);
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 -9.81 0' dt='0.01'><DefaultAnimationLoop/>"
             "<EulerImplicitSolver/><SparseLDLSolver/>"
             "<MechanicalObject name='dofs' template='Rigid3d' position='%s'/>"
             "<MeshTopology lines='0 1 1 2 2 3 3 4 4 5 5 6'/>"
             "<BeamInterpolation name='interp' radius='0.1' innerRadius='0.05'/>"
             "<AdaptiveBeamForceFieldAndMass name='beam' massDensity='7'/></Node>",
             pos);
    st_scene *s = fem_load_xml(&t, xml);
    ab_ffm *ff = (ab_ffm *)test_find_object(s, "beam");
    st_system *sys = s->systems[0];
    double ltot = 0;
    for (size_t b = 0; b < ff->nb; b++)
        ltot += ba_length(ff->bi, b);
    fem_near(ltot, 4.0, 1e-12, "rest length");
    const double mtot = 7 * M_PI * (0.01 - 0.0025) * ltot;
    /* the assembled mass alone */
    st_matrix *m = NULL;
    st_error err = {0};
    cr_assert_eq(st_matrix_create_component(sys, &ff->base, &m, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(m, sys, 1.0, 0.0, 0.0, &err), ST_OK, "%s", err.msg);
    const size_t n = sys->size;
    double *one = calloc(n, sizeof *one), *y = calloc(n, sizeof *y), *z = calloc(sys->size_all, 8);
    for (int ax = 0; ax < 3; ax++) {
        memset(one, 0, n * sizeof *one);
        for (size_t i = 0; i < n / 6; i++)
            one[6 * i + ax] = 1.0;
        st_matrix_mul(m, y, one);
        double tot = 0;
        for (size_t i = 0; i < n; i++)
            tot += one[i] * y[i];
        printf("mass matrix: total mass along axis %d %.12g (rho A L %.12g)\n", ax, tot, mtot);
        fem_near(tot, mtot, 1e-12 * mtot, "total mass");
        /* kinetic energy of a translation */
        fem_near(ff->base.cls->mass->kinetic_energy(&ff->base, &sys->mp, one), 0.5 * mtot,
                 1e-12 * mtot, "kinetic energy");
    }
    /* M dx against the assembled M, on an arbitrary vector */
    for (size_t i = 0; i < n; i++)
        one[i] = sin(1.0 + 0.37 * (double)i);
    st_matrix_mul(m, y, one);
    ff->base.cls->mass->add_m_dx(&ff->base, &sys->mp, z, one, 1.0);
    double md = 0, ms = 0;
    for (size_t i = 0; i < n; i++) {
        md = fmax(md, fabs(y[i] - z[i]));
        ms = fmax(ms, fabs(y[i]));
    }
    cr_assert_lt(md, 1e-13 * ms, "M dx differs from the assembled M by %g", md);
    /* symmetric, positive */
    st_csr a;
    st_matrix_csr(m, &a);
    for (size_t i = 0; i < a.n; i++)
        for (int k = a.rowptr[i]; k < a.rowptr[i + 1]; k++) {
            size_t j = (size_t)a.colind[k];
            double vji = 0;
            for (int l = a.rowptr[j]; l < a.rowptr[j + 1]; l++)
                if ((size_t)a.colind[l] == i)
                    vji = a.values[l];
            cr_assert(fabs(a.values[k] - vji) < 1e-12 * ms, "M(%zu,%zu) asymmetric", i, j);
        }
    double vmv = 0;
    for (size_t i = 0; i < n; i++)
        vmv += one[i] * y[i];
    cr_assert_gt(vmv, 0.0);
    /* gravity: the force at rest is M (g, 0) per node, summing to m g */
    double *f = calloc(sys->size_all, sizeof *f), *v = calloc(sys->size_all, sizeof *v);
    ff->base.cls->forcefield->add_force(&ff->base, &sys->mp, f, sys->x, v);
    double fy = 0, fx = 0;
    for (size_t i = 0; i < n / 6; i++)
        fx += f[6 * i], fy += f[6 * i + 1];
    printf("gravity: total force %.12g (m g %.12g)\n", fy, -9.81 * mtot);
    fem_near(fy, -9.81 * mtot, 1e-9 * mtot, "weight");
    fem_near(fx, 0, 1e-9 * mtot, "no horizontal weight");
    /* without computeMass: no gravity, no mass */
    st_error e2 = {0};
    cr_assert_eq(st_component_set(&ff->base, "computeMass", "false", &e2), ST_OK, "%s", e2.msg);
    cr_assert_eq(ff->base.cls->reinit(&ff->base, &e2), ST_OK, "%s", e2.msg);
    memset(f, 0, sys->size_all * sizeof *f);
    ff->base.cls->forcefield->add_force(&ff->base, &sys->mp, f, sys->x, v);
    cr_assert_lt(fabs(f[1]) + fabs(f[7]), 1e-12);
    cr_assert_eq(ff->base.cls->mass->kinetic_energy(&ff->base, &sys->mp, one), 0.0);
    free(f);
    free(v);
    free(one);
    free(y);
    free(z);
    st_matrix_destroy(&m);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* InterpolationInputs: frames along the beam at rest (x along the beam,
 * the origin at L bary), InterpolatedPos computed at init. */
Test(beam_adapter, interpolation_outputs)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = fem_load_xml(
        &t, "<Node name='root' gravity='0 0 0'><DefaultAnimationLoop/>"
            "<MechanicalObject template='Rigid3d' position='0 0 0 0 0 0.7071068 0.7071068  "
            "0 2 0 0 0 0.7071068 0.7071068  0 4 0 0 0 0.7071068 0.7071068'/>"
            "<MeshTopology lines='0 1 1 2'/>"
            "<BeamInterpolation name='interp' InterpolationInputs='0 0.25  1 0.5  1 1'/></Node>");
    beam_interpolation *bi = (beam_interpolation *)test_find_object(s, "interp");
    cr_assert_eq(bi->interpolated_pos.n, 3);
    cr_assert_eq(bi->interpolated_vel.n, 3);
    const double want_y[3] = {0.5, 3.0, 4.0};
    for (int i = 0; i < 3; i++) {
        const double *p = bi->interpolated_pos.r + 7 * i;
        fem_near(p[0], 0, 1e-6, "x");
        fem_near(p[1], want_y[i], 1e-6, "y");
        fem_near(fabs(p[5]), 0.7071068, 1e-7, "qz");
        fem_near(fabs(p[6]), 0.7071068, 1e-7, "qw");
    }
    /* a bent configuration: the middle frame's x is the spline tangent */
    ba_xf g0, g1, mid;
    double *x = bi->ms->position.r;
    const double qb[4] = {0, 0, 0, 1}; /* node 1 turned to point along +x */
    memcpy(x + 7 + 3, qb, sizeof qb);
    ba_compute_transform(bi, 0, x, &g0, &g1);
    ba_interpolate_transform(&mid, 0.5, &g0, &g1, 2.0);
    double P[4][3], ex[3] = {1, 0, 0}, tx[3];
    ba_control_points(&g0, &g1, 2.0, P);
    st_quat_rotate(tx, mid.q, ex);
    double tan[3] = {-0.75 * P[0][0] - 0.75 * P[1][0] + 0.75 * P[2][0] + 0.75 * P[3][0],
                     -0.75 * P[0][1] - 0.75 * P[1][1] + 0.75 * P[2][1] + 0.75 * P[3][1], 0};
    st_v3_normalize(tan);
    fem_near(st_v3_dot(tx, tan), 1.0, 1e-12, "middle frame along the tangent");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- WireRestShape, RodStraightSection, RodSpireSection ---- */

/* A wire of a straight section (length 10, 5 beams) and a tip section: a
 * straight one (length 4, 2 beams) or a spire (length 20, diameter 2,
 * 0.5 between spires, 8 beams). */
#define WIRE(TIP)                                                                                 \
    "<Node name='Root' dt='0.01'><DefaultAnimationLoop/>"                                         \
    "<RodStraightSection name='Straight' length='10' nbBeams='5' radius='0.5' "                   \
    "innerRadius='0.25' youngModulus='2e4'/>" TIP                                                 \
    "<EdgeSetTopologyContainer name='MeshLines'/>"                                                \
    "<WireRestShape name='Shape' template='Rigid3d' wireMaterials='@Straight @Tip'/></Node>"

Test(beam_adapter, wire_rest_shape_straight)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = fem_load_xml(&t, WIRE("<RodStraightSection name='Tip' length='4' "
                                        "nbBeams='2'/>"));
    wire_rest_shape *w = (wire_rest_shape *)fem_find(s, "Shape", "WireRestShape");
    cr_assert_eq(w->base.state, ST_CSTATE_VALID);
    cr_assert_eq(w->key_points.n, 3);
    cr_assert_eq(w->key_points.r[0], 0.0);
    cr_assert_eq(w->key_points.r[1], 10.0);
    cr_assert_eq(w->key_points.r[2], 14.0);
    cr_assert_eq(w->density.n, 2);
    cr_assert_eq(w->density.u[0], 5);
    cr_assert_eq(w->density.u[1], 2);
    fem_near(wrs_length(w), 14.0, 0.0, "length");
    /* beam lengths by hand: 10 / 5 on the first section, 4 / 2 on the tip */
    fem_near(wrs_mechanical_sampling(w, 3.0), 2.0, 1e-15, "dx at 3");
    fem_near(wrs_mechanical_sampling(w, 10.0), 2.0, 1e-15, "dx at 10 (first section)");
    fem_near(wrs_mechanical_sampling(w, 12.5), 2.0, 1e-15, "dx at 12.5");
    /* the section: pi (r^2 - ri^2), pi (r^4 - ri^4) / 4 */
    const rod_section *r0 = wrs_section_at(w, 3.0);
    cr_assert_not_null(r0);
    fem_near(r0->section.A, M_PI * (0.25 - 0.0625), 1e-15, "A");
    fem_near(r0->section.Iy, M_PI * (0.0625 - 0.00390625) / 4, 1e-15, "Iy");
    fem_near(r0->section.J, 2 * r0->section.Iz, 1e-15, "J");
    cr_assert_eq(r0->young, 2e4);
    cr_assert_eq(wrs_section_at(w, 12.0)->young, 5000.0); /* SOFA's default */
    /* rest frames on a straight wire: (x, 0, 0), no rotation; clamped at the ends */
    const double xs[] = {0.0, 3.0, 10.0, 13.0, 14.0, 20.0, -1.0};
    const double want[] = {0.0, 3.0, 10.0, 13.0, 14.0, 14.0, 0.0};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        ba_xf h;
        wrs_rest_transform(w, xs[i], &h);
        fem_near(h.t[0], want[i], 2e-10, "x");
        cr_assert_eq(h.t[1], 0.0);
        cr_assert_eq(h.t[2], 0.0);
        cr_assert_eq(h.q[3], 1.0);
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(beam_adapter, wire_rest_shape_spire_helix)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = fem_load_xml(&t, WIRE("<RodSpireSection name='Tip' length='20' nbBeams='8' "
                                        "spireDiameter='2' spireHeight='0.5'/>"));
    wire_rest_shape *w = (wire_rest_shape *)fem_find(s, "Shape", "WireRestShape");
    cr_assert_eq(w->base.state, ST_CSTATE_VALID);
    fem_near(wrs_length(w), 30.0, 0.0, "length");
    fem_near(wrs_mechanical_sampling(w, 20.0), 2.5, 1e-15, "dx on the spire");
    /* the helix: radius 1, one turn every sqrt(0.5^2 + (2 pi)^2) of abscissa,
     * rising 0.5 a turn, starting at (10, 0, 0) with its axis along y */
    const double ls = sqrt(0.25 + 4 * M_PI * M_PI);
    for (double x = 10.5; x < 30.0; x += 1.7) {
        ba_xf h;
        wrs_rest_transform(w, x, &h);
        const double sarc = x - 1e-10 - 10.0, th = 2 * M_PI * sarc / ls;
        fem_near(h.t[0], 10.0 + sin(th), 1e-9, "helix x");
        fem_near(h.t[1], 0.5 * sarc / ls, 1e-9, "helix y");
        fem_near(h.t[2], cos(th) - 1.0, 1e-9, "helix z");
        /* the frame's x axis is the helix's unit tangent (central differences) */
        ba_xf a, b;
        const double d = 1e-5;
        wrs_rest_transform(w, x - d, &a);
        wrs_rest_transform(w, x + d, &b);
        const double ex[3] = {1, 0, 0};
        double ax[3];
        st_quat_rotate(ax, h.q, ex);
        for (int c = 0; c < 3; c++)
            fem_near(ax[c], (b.t[c] - a.t[c]) / (2 * d), 1e-8, "tangent");
    }
    /* the first section stays straight */
    ba_xf h;
    wrs_rest_transform(w, 4.0, &h);
    fem_near(h.t[0], 4.0, 2e-10, "straight part");
    cr_assert_eq(h.t[1], 0.0);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Bad wires: a section of length 0, a link to something not a section, no
 * section at all: init errors naming the field. */
Test(beam_adapter, wire_rest_shape_bad_input)
{
    test_rt t;
    ba_open_rt(&t);
    const char *bad[][2] = {
        {WIRE("<RodStraightSection name='Tip' length='0' nbBeams='2'/>"), "length"},
        {"<Node name='Root'><EdgeSetTopologyContainer name='Tip'/><RodStraightSection "
         "name='Straight' nbBeams='2'/><WireRestShape name='Shape' wireMaterials='@Straight "
         "@Tip'/></Node>",
         "not a rod section"},
        {"<Node name='Root'><WireRestShape name='Shape'/></Node>", "no rod section"},
    };
    for (size_t i = 0; i < 3; i++) {
        st_error err = {0};
        st_scene *s = NULL;
        cr_assert_eq(st_scene_load_string(t.rt, bad[i][0], strlen(bad[i][0]), "t.scn", &s, &err),
                     ST_OK, "%s", err.msg);
        cr_assert_neq(st_scene_init(s, &err), ST_OK, "case %zu accepted", i);
        cr_assert(strstr(err.msg, bad[i][1]) != NULL, "case %zu: %s", i, err.msg);
        st_scene_destroy(&s);
    }
    test_rt_close(&t);
}

/* Sections without nbBeams take nbEdgesCollis (BeamAdapter's compatibility
 * rule); collision sampling by nbEdgesCollis per section. */
Test(beam_adapter, wire_rest_shape_nb_beams_from_collision_edges)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = fem_load_xml(
        &t, "<Node name='Root'><RodStraightSection name='A' length='60' nbEdgesCollis='12'/>"
            "<RodStraightSection name='B' length='8' nbEdgesCollis='4' nbBeams='2'/>"
            "<EdgeSetTopologyContainer/><WireRestShape name='Shape' template='Rigid3d' "
            "wireMaterials='@A @B'/></Node>");
    wire_rest_shape *w = (wire_rest_shape *)fem_find(s, "Shape", "WireRestShape");
    cr_assert_eq(w->density.n, 2);
    cr_assert_eq(w->density.u[0], 12, "nbBeams from nbEdgesCollis: %u", w->density.u[0]);
    cr_assert_eq(w->density.u[1], 2);
    fem_near(wrs_length(w), 68.0, 0.0, "length");
    fem_near(wrs_collision_sampling(w, 0.0), 5.0, 1e-15, "collision dx at 0");
    fem_near(wrs_collision_sampling(w, 59.0), 5.0, 1e-15, "collision dx at 59");
    fem_near(wrs_collision_sampling(w, 68.0), 2.0, 1e-15, "collision dx at the tip");
    fem_near(wrs_mechanical_sampling(w, 68.0), 4.0, 1e-15, "beam length at the tip");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* WireRestShape fills its topology (SOFA's initTopology): nbEdgesVisu edges
 * per section along x, the sections sharing their end point; a container
 * written before WireRestShape gets the same. Rigid3d frames on it follow. */
Test(beam_adapter, wire_rest_shape_fills_topology)
{
    test_rt t;
    ba_open_rt(&t);
    for (int before = 0; before < 2; before++) {
        char xml[1024];
        snprintf(xml, sizeof xml,
                 "<Node name='Root'>%s<RodStraightSection name='A' length='6' nbBeams='2' "
                 "nbEdgesVisu='3'/><RodStraightSection name='B' length='6' nbBeams='2' "
                 "nbEdgesVisu='2'/><WireRestShape name='Shape' template='Rigid3d' "
                 "wireMaterials='@A @B'/>%s<MechanicalObject template='Rigid3d' "
                 "name='dofs'/></Node>",
                 before ? "<EdgeSetTopologyContainer name='Lines'/>" : "",
                 before ? "" : "<EdgeSetTopologyContainer name='Lines'/>");
        st_scene *s = fem_load_xml(&t, xml);
        st_component *topo = fem_find(s, "Lines", "EdgeSetTopologyContainer");
        const st_array *pos =
            st_component_field_ptr(topo, st_component_field(topo, "position"));
        const st_array *edges = st_component_field_ptr(topo, st_component_field(topo, "edges"));
        /* points 0 2 4 6 then 9 12 (SOFA's loop: the second section starts
         * at the first one's length) */
        const double xs[] = {0, 2, 4, 6, 9, 12};
        cr_assert_eq(pos->n, 6, "%zu points (before=%d)", pos->n, before);
        for (size_t i = 0; i < 6; i++) {
            fem_near(pos->r[3 * i], xs[i], 1e-12, "point x");
            cr_assert_eq(pos->r[3 * i + 1], 0.0);
        }
        cr_assert_eq(edges->n, 5);
        for (unsigned e = 0; e < 5; e++) {
            cr_assert_eq(edges->u[2 * e], e);
            cr_assert_eq(edges->u[2 * e + 1], e + 1);
        }
        st_scene_destroy(&s);
    }
    test_rt_close(&t);
}

/* ---- WireBeamInterpolation ---- */

/* n frames along x over [0, len] on a MeshTopology, n beams in edgeList
 * with their lengths and abscissae, the rod sections and the WireRestShape
 * in a child node (the shape fills its own edge container there). */
static st_scene *wire_beams(test_rt *t, int n, double len, const char *sections,
                            const char *materials, const char *solvers, const char *extra)
{
    static char xml[16384];
    char pos[4096] = "", edges[1024] = "", el[1024] = "", ll[2048] = "", ca[4096] = "";
    size_t lp = 0, le = 0, lel = 0, lll = 0, lca = 0;
    const double dx = len / n;
    for (int i = 0; i <= n; i++)
        lp += (size_t)snprintf(pos + lp, sizeof pos - lp, "%.17g 0 0 0 0 0 1  ", i * dx);
    for (int i = 0; i < n; i++) {
        le += (size_t)snprintf(edges + le, sizeof edges - le, "%d %d  ", i, i + 1);
        lel += (size_t)snprintf(el + lel, sizeof el - lel, "%d ", i);
        lll += (size_t)snprintf(ll + lll, sizeof ll - lll, "%.17g ", dx);
        lca += (size_t)snprintf(ca + lca, sizeof ca - lca, "%.17g %.17g ", i * dx, (i + 1) * dx);
    }
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 0 0' dt='0.01'><DefaultAnimationLoop/>%s"
             "<Node name='shape'>%s<EdgeSetTopologyContainer name='lines'/>"
             "<WireRestShape name='rest' template='Rigid3d' wireMaterials='%s'/></Node>"
             "<MechanicalObject name='dofs' template='Rigid3d' position='%s'/>"
             "<MeshTopology lines='%s'/>"
             "<WireBeamInterpolation name='interp' WireRestShape='@shape/rest' edgeList='%s' "
             "lengthList='%s' curvAbsList='%s'/>"
             "<AdaptiveBeamForceFieldAndMass name='beam' massDensity='1'/>"
             "<FixedProjectiveConstraint indices='0'/>%s</Node>",
             solvers, sections, materials, pos, edges, el, ll, ca, extra);
    return fem_load_xml(t, xml);
}

#define CANT_ROD                                                                                  \
    "<RodStraightSection name='rod' length='1' nbBeams='10' radius='0.05' youngModulus='2e7' "    \
    "poissonRatio='0.3'/>"

/* A straight wire of one rod section gives the beams BeamInterpolation
 * gives with that section: the cantilever's tip against the closed forms
 * and against BeamInterpolation's tip. */
Test(beam_adapter, wire_beams_straight_cantilever)
{
    test_rt t;
    ba_open_rt(&t);
    char load[128];
    snprintf(load, sizeof load, "<ConstantForceField indices='10' forces='0 %g 0 0 0 0'/>",
             -CANT_P);
    st_scene *s = wire_beams(&t, 10, 1.0, CANT_ROD, "@rod", STATIC_LDL, load);
    wire_beam_interpolation *w = (wire_beam_interpolation *)fem_find(s, "interp",
                                                                     "WireBeamInterpolation");
    cr_assert_eq(w->bi.base.state, ST_CSTATE_VALID);
    cr_assert_eq(ba_num_beams(&w->bi), 10);
    const ba_section *sec = ba_beam_section(&w->bi, 3);
    fem_near(sec->Iz, M_PI * pow(CANT_R, 4) / 4, 1e-18, "Iz from the rod section");
    double E = 0, nu = 0, rho = 123;
    ba_mechanical_parameters(&w->bi, 3, &E, &nu, &rho);
    cr_assert_eq(E, 2e7);
    cr_assert_eq(nu, 0.3);
    cr_assert_eq(rho, 1.0, "the rod section's density (default 1), not the caller's: %g", rho);
    fem_step(s, 1, 0.01);
    check_tip(s, 1e-5, "WireBeamInterpolation, straight rod, static, 10 beams");
    ab_ffm *b = (ab_ffm *)test_find_object(s, "beam");
    double wire_tip[7];
    memcpy(wire_tip, b->ms->position.r + 7 * 10, sizeof wire_tip);
    st_scene *r = cantilever(&t, 10, STATIC_LDL, "", "");
    fem_step(r, 1, 0.01);
    ab_ffm *rb = (ab_ffm *)test_find_object(r, "beam");
    for (int c = 0; c < 7; c++)
        fem_near(wire_tip[c], rb->ms->position.r[7 * 10 + c], 1e-12,
                 "tip: WireBeamInterpolation against BeamInterpolation");
    st_scene_destroy(&r);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Two sections: each beam takes the section, material and density of the
 * rod holding its end abscissa; the mass under gravity is sum rho A L. */
Test(beam_adapter, wire_beams_per_section_material)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = wire_beams(
        &t, 4, 4.0,
        "<RodStraightSection name='a' length='2' nbBeams='2' radius='0.1' youngModulus='1e6' "
        "massDensity='3'/><RodStraightSection name='b' length='2' nbBeams='2' radius='0.05' "
        "youngModulus='4e5' poissonRatio='0.25' massDensity='7'/>",
        "@a @b", "<EulerImplicitSolver/><SparseLDLSolver/>", "");
    wire_beam_interpolation *w = (wire_beam_interpolation *)fem_find(s, "interp",
                                                                     "WireBeamInterpolation");
    const double Aa = M_PI * 0.01, Ab = M_PI * 0.0025;
    const double want_A[4] = {Aa, Aa, Ab, Ab}, want_E[4] = {1e6, 1e6, 4e5, 4e5};
    for (size_t i = 0; i < 4; i++) {
        double E, nu, rho = 1;
        ba_mechanical_parameters(&w->bi, i, &E, &nu, &rho);
        fem_near(ba_beam_section(&w->bi, i)->A, want_A[i], 1e-15, "A per beam");
        cr_assert_eq(E, want_E[i], "beam %zu: E %g", i, E);
        cr_assert_eq(rho, i < 2 ? 3.0 : 7.0);
        cr_assert_eq(nu, i < 2 ? 0.49 : 0.25);
    }
    /* gravity through the consistent mass: total weight rho A L g */
    st_component *ff = test_find_object(s, "beam");
    ab_ffm *b = (ab_ffm *)ff;
    b->compute_mass = true;
    st_system *sys = s->systems[0];
    sys->mp.gravity[0] = 0, sys->mp.gravity[1] = -10, sys->mp.gravity[2] = 0;
    double *f = calloc(sys->size_all, sizeof *f), *v = calloc(sys->size_all, sizeof *v);
    ff->cls->forcefield->add_force(ff, &sys->mp, f, sys->x, v);
    double fy = 0;
    for (size_t i = 0; i < 5; i++)
        fy += st_slice(f, b->ms)[6 * i + 1];
    const double want = -10 * (3 * Aa * 2 + 7 * Ab * 2);
    printf("wire of two sections: weight %.12g (rho A L g: %.12g)\n", fy, want);
    fem_near(fy, want, 1e-9 * fabs(want), "weight");
    free(f);
    free(v);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* A spire: while controlled, each beam's rest spline is the rest shape's
 * (frames at x0 and x1 seen from the one at their middle), so frames laid
 * on the helix are nearly at rest; as straight beams they are not. */
Test(beam_adapter, wire_beams_spire_rest_curvature)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = wire_beams(&t, 8, 8.0,
                             "<RodSpireSection name='sp' length='8' nbBeams='8' radius='0.05' "
                             "youngModulus='1e6' spireDiameter='2' spireHeight='0.5'/>",
                             "@sp", "<EulerImplicitSolver/><SparseLDLSolver/>", "");
    wire_beam_interpolation *w = (wire_beam_interpolation *)fem_find(s, "interp",
                                                                     "WireBeamInterpolation");
    st_component *ff = test_find_object(s, "beam");
    st_system *sys = s->systems[0];
    /* the frames on the helix */
    double *x = st_slice_x(sys->x, w->bi.ms);
    for (int i = 0; i <= 8; i++) {
        ba_xf h;
        wrs_rest_transform(w->wrs, i, &h);
        memcpy(x + 7 * i, h.t, sizeof h.t);
        memcpy(x + 7 * i + 3, h.q, sizeof h.q);
    }
    const double f_straight = max_force(ff, sys);
    w->controlled = true;
    for (size_t b = 0; b < 8; b++) {
        ba_xf l0, l1, g0, g1, gm, inv, e0, e1;
        ba_spline_rest_transform(&w->bi, b, &l0, &l1);
        wrs_rest_transform(w->wrs, b + 0.5, &gm);
        wrs_rest_transform(w->wrs, b, &g0);
        wrs_rest_transform(w->wrs, b + 1.0, &g1);
        ba_xf_inv(&inv, &gm);
        ba_xf_mul(&e0, &inv, &g0);
        ba_xf_mul(&e1, &inv, &g1);
        for (int c = 0; c < 3; c++) {
            fem_near(l0.t[c], e0.t[c], 1e-14, "rest node 0");
            fem_near(l1.t[c], e1.t[c], 1e-14, "rest node 1");
        }
        for (int c = 0; c < 4; c++)
            fem_near(fabs(l1.q[c]), fabs(e1.q[c]), 1e-14, "rest rotation 1");
        /* curved: node 1 off the beam's axis, turned from node 0 */
        cr_assert_gt(fabs(l1.t[1]) + fabs(l1.t[2]), 1e-3, "beam %zu straight at rest", b);
    }
    const double f_curved = max_force(ff, sys);
    printf("spire laid on its helix: max force %.3g as straight beams, %.3g with the rest "
           "shape's curvature\n",
           f_straight, f_curved);
    cr_assert_lt(f_curved, 1e-2 * f_straight);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* The abscissa of a point along the beams counts from the wire's tip: two
 * beams over the last 4 of a 14-long wire. */
Test(beam_adapter, wire_beams_at_curv_abs)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = fem_load_xml(
        &t, "<Node name='root'><Node name='shape'><RodStraightSection name='rod' length='14' "
            "nbBeams='7'/><EdgeSetTopologyContainer/><WireRestShape name='rest' "
            "wireMaterials='@rod'/></Node><MechanicalObject name='dofs' template='Rigid3d' "
            "position='10 0 0 0 0 0 1  12 0 0 0 0 0 1  14 0 0 0 0 0 1'/>"
            "<MeshTopology lines='0 1 1 2'/><WireBeamInterpolation name='interp' "
            "WireRestShape='@shape/rest' edgeList='0 1' lengthList='2 2' "
            "curvAbsList='10 12 12 14'/></Node>");
    wire_beam_interpolation *w = (wire_beam_interpolation *)fem_find(s, "interp",
                                                                     "WireBeamInterpolation");
    fem_near(ba_rest_total_length(&w->bi), 14.0, 0.0, "rest total length");
    const double xs[] = {5.0, 10.0, 11.0, 12.5, 14.0, 20.0};
    const size_t wb[] = {0, 0, 0, 1, 1, 1};
    const double wbary[] = {0.0, 0.0, 0.5, 0.25, 1.0, 1.0};
    for (size_t i = 0; i < 6; i++) {
        size_t b;
        double bary;
        ba_beam_at_curv_abs(&w->bi, xs[i], &b, &bary);
        cr_assert_eq(b, wb[i], "x %g: beam %zu", xs[i], b);
        fem_near(bary, wbary[i], 1e-15, "bary");
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Missing or inconsistent data: errors naming the field. */
Test(beam_adapter, wire_beams_bad_input)
{
    test_rt t;
    ba_open_rt(&t);
#define WB(ATTR)                                                                                  \
    "<Node name='root'><Node name='shape'><RodStraightSection name='rod' length='4' "             \
    "nbBeams='2'/><EdgeSetTopologyContainer/><WireRestShape name='rest' wireMaterials='@rod'/>"   \
    "</Node><MechanicalObject template='Rigid3d' position='0 0 0 0 0 0 1  2 0 0 0 0 0 1  4 0 0 "   \
    "0 0 0 1'/><MeshTopology lines='0 1 1 2'/><WireBeamInterpolation " ATTR "/></Node>"
    const char *bad[][2] = {
        {WB("edgeList='0 1' lengthList='2 2' curvAbsList='0 2 2 4'"), "Missing WireRestShape"},
        {WB("WireRestShape='@shape/rod' edgeList='0 1' lengthList='2 2' curvAbsList='0 2 2 4'"),
         "not a WireRestShape"},
        {WB("WireRestShape='@shape/rest' edgeList='0 1' lengthList='2' curvAbsList='0 2 2 4'"),
         "lengthList"},
        {WB("WireRestShape='@shape/rest' edgeList='0 1' lengthList='2 2' curvAbsList='0 2'"),
         "curvAbsList"},
        {WB("WireRestShape='@shape/rest' edgeList='0 1' lengthList='2 2' curvAbsList='0 2 2 5'"),
         "curvAbsList"},
        {WB("WireRestShape='@shape/rest' edgeList='0 2' lengthList='2 2' curvAbsList='0 2 2 4'"),
         "edgeList"},
    };
#undef WB
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        st_error err = {0};
        st_scene *s = NULL;
        cr_assert_eq(st_scene_load_string(t.rt, bad[i][0], strlen(bad[i][0]), "t.scn", &s, &err),
                     ST_OK, "%s", err.msg);
        cr_assert_neq(st_scene_init(s, &err), ST_OK, "case %zu accepted", i);
        cr_assert(strstr(err.msg, bad[i][1]) != NULL, "case %zu: %s", i, err.msg);
        st_scene_destroy(&s);
    }
    test_rt_close(&t);
}

/* ---- AdaptiveBeamMapping ---- */

/* Three unit beams along x (BeamInterpolation, radius 0.1) and a child
 * node of points mapped on them. */
static st_scene *mapped_beam(test_rt *t, const char *points, const char *map_extra)
{
    static char xml[4096];
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 0 0' dt='0.01'><DefaultAnimationLoop/>"
             "<EulerImplicitSolver/><SparseLDLSolver/>"
             "<MechanicalObject template='Rigid3d' name='dofs' position='0 0 0 0 0 0 1  "
             "1 0 0 0 0 0 1  2 0 0 0 0 0 1  3 0 0 0 0 0 1'/><MeshTopology lines='0 1 1 2 2 3'/>"
             "<BeamInterpolation name='interp' radius='0.1'/>"
             "<AdaptiveBeamForceFieldAndMass name='beam' massDensity='1'/>"
             "<Node name='pts'><MechanicalObject name='out' template='Vec3d' position='%s'/>"
             "<AdaptiveBeamMapping name='map' input='@../dofs' output='@out' %s/></Node></Node>",
             points, map_extra);
    return fem_load_xml(t, xml);
}

/* The cubic Hermite curve of end points p0, p1 and unit tangents t0, t1
 * scaled by L, at b. */
static void hermite(const double p0[3], const double t0[3], const double p1[3],
                    const double t1[3], double L, double b, double out[3])
{
    const double h00 = 2 * b * b * b - 3 * b * b + 1, h10 = b * b * b - 2 * b * b + b;
    const double h01 = -2 * b * b * b + 3 * b * b, h11 = b * b * b - b * b;
    for (int c = 0; c < 3; c++)
        out[c] = h00 * p0[c] + h10 * L * t0[c] + h01 * p1[c] + h11 * L * t1[c];
}

/* A frame moved by h times the twist (v, w): x + h v, exp(h w / 2) q. */
static void twist_frame(double *x, const double tw[6], double h)
{
    double w[3] = {h * tw[3], h * tw[4], h * tw[5]}, a = st_v3_norm(w), dq[4], q[4];
    const double s = a > 0 ? sin(a / 2) / a : 0.5;
    dq[0] = s * w[0], dq[1] = s * w[1], dq[2] = s * w[2], dq[3] = cos(a / 2);
    st_quat_mul(q, dq, x + 3);
    memcpy(x + 3, q, sizeof q);
    for (int c = 0; c < 3; c++)
        x[c] += h * tw[c];
}

/* Points by curvilinear abscissa on straight beams sit at (s, y, z); bent,
 * points on the axis follow the Hermite spline of the node frames. */
Test(beam_adapter, adaptive_beam_mapping_positions)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = mapped_beam(&t, "0 0 0  0.5 0 0  1.25 0.1 0  2.9 0 -0.05  3 0 0", "");
    st_component *map = fem_find(s, "map", "AdaptiveBeamMapping");
    st_system *sys = s->systems[0];
    st_mstate *in = ((ab_ffm *)test_find_object(s, "beam"))->ms;
    st_mstate *out = st_component_mstate(map);
    cr_assert_eq(out->n, 5);
    const double want[5][3] = {{0, 0, 0}, {0.5, 0, 0}, {1.25, 0.1, 0}, {2.9, 0, -0.05},
                               {3, 0, 0}};
    for (size_t i = 0; i < 5; i++)
        for (int c = 0; c < 3; c++)
            fem_near(out->position.r[3 * i + c], want[i][c], 1e-14, "straight beam point");
    /* bend: frame 1 up and turned about z, frame 2 turned about y */
    double *x = st_slice_x(sys->x, in);
    const double tw1[6] = {0.05, 0.2, 0, 0, 0, 0.4}, tw2[6] = {0, 0, 0.1, 0, 0.3, 0.1};
    twist_frame(x + 7, tw1, 1.0);
    twist_frame(x + 14, tw2, 1.0);
    map->cls->mapping->apply(map, &sys->mp, sys->x);
    const double *xo = st_slice_x(sys->x, out);
    /* the point at 0.5: beam 0 at bary 0.5; at 3: beam 2's end */
    const double ex[3] = {1, 0, 0};
    double t0[3], t1[3], p[3];
    st_quat_rotate(t0, x + 3, ex);
    st_quat_rotate(t1, x + 7 + 3, ex);
    hermite(x, t0, x + 7, t1, 1.0, 0.5, p);
    for (int c = 0; c < 3; c++)
        fem_near(xo[3 + c], p[c], 1e-14, "Hermite point on beam 0");
    for (int c = 0; c < 3; c++)
        fem_near(xo[12 + c], x[21 + c], 1e-14, "the end point");
    /* the off-axis point: the interpolated frame's origin plus (0, 0.1, 0) turned */
    ab_ffm *b = (ab_ffm *)test_find_object(s, "beam");
    ba_xf g0, g1, f;
    ba_compute_transform(b->bi, 1, x, &g0, &g1);
    ba_interpolate_transform(&f, 0.25, &g0, &g1, ba_length(b->bi, 1));
    const double lp[3] = {0, 0.1, 0};
    double r[3];
    st_quat_rotate(r, f.q, lp);
    for (int c = 0; c < 3; c++)
        fem_near(xo[6 + c], f.t[c] + r[c], 1e-14, "off-axis point");
    printf("AdaptiveBeamMapping on bent beams: point at s = 0.5 (%.6f %.6f %.6f)\n", xo[3],
           xo[4], xo[5]);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* J against central differences of apply, J^T as its transpose, on bent
 * beams, for points on and off the axis. */
Test(beam_adapter, adaptive_beam_mapping_jacobian)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = mapped_beam(&t, "0.3 0 0  1.6 0 0  2.2 0 0  2.7 0.05 0.02", "");
    st_component *map = fem_find(s, "map", "AdaptiveBeamMapping");
    const st_mapping_ops *ops = map->cls->mapping;
    st_system *sys = s->systems[0];
    st_mstate *in = ((ab_ffm *)test_find_object(s, "beam"))->ms;
    st_mstate *out = st_component_mstate(map);
    double *x = st_slice_x(sys->x, in);
    const double tw[4][6] = {{0, 0, 0, 0.1, -0.2, 0.05},
                             {0.05, 0.2, 0, 0, 0, 0.4},
                             {0, 0, 0.1, 0, 0.3, 0.1},
                             {-0.1, 0.1, 0.2, 0.2, 0.1, -0.3}};
    for (int i = 0; i < 4; i++)
        twist_frame(x + 7 * i, tw[i], 1.0);
    double *x0 = malloc(sys->xsize_all * sizeof *x0);
    double *v = calloc(sys->size_all, sizeof *v), *f = calloc(sys->size_all, sizeof *f);
    memcpy(x0, sys->x, sys->xsize_all * sizeof *x0);
    ops->apply(map, &sys->mp, sys->x);
    const double h = 1e-6;
    double worst_on = 0, worst_off = 0, scale = 0;
    for (size_t col = 0; col < 6 * in->n; col++) {
        double e[6] = {0};
        e[col % 6] = 1.0;
        double xp[12], xm[12];
        memset(v, 0, sys->size_all * sizeof *v);
        st_slice(v, in)[col] = 1.0;
        memcpy(sys->x, x0, sys->xsize_all * sizeof *x0);
        ops->apply(map, &sys->mp, sys->x);
        ops->apply_j(map, &sys->mp, v);
        twist_frame(x + 7 * (col / 6), e, h);
        ops->apply(map, &sys->mp, sys->x);
        memcpy(xp, st_slice_x(sys->x, out), sizeof xp);
        memcpy(sys->x, x0, sys->xsize_all * sizeof *x0);
        twist_frame(x + 7 * (col / 6), e, -h);
        ops->apply(map, &sys->mp, sys->x);
        memcpy(xm, st_slice_x(sys->x, out), sizeof xm);
        for (int k = 0; k < 12; k++) {
            const double fd = (xp[k] - xm[k]) / (2 * h), jv = st_slice(v, out)[k];
            scale = fmax(scale, fabs(fd));
            if (k < 9)
                worst_on = fmax(worst_on, fabs(fd - jv));
            else
                worst_off = fmax(worst_off, fabs(fd - jv));
        }
    }
    memcpy(sys->x, x0, sys->xsize_all * sizeof *x0);
    ops->apply(map, &sys->mp, sys->x);
    printf("AdaptiveBeamMapping J against differences: on the axis %.3g, off %.3g (scale %.3g)\n",
           worst_on, worst_off, scale);
    cr_assert_lt(worst_on, 1e-8 * scale, "J on the axis");
    cr_assert_lt(worst_off, 0.1 * scale, "J off the axis (SOFA's approximation)");
    /* <J^T g, u> = <g, J u> */
    double *u = calloc(sys->size_all, sizeof *u);
    for (size_t i = 0; i < 6 * in->n; i++)
        st_slice(u, in)[i] = sin(1.0 + 3.0 * (double)i);
    memcpy(v, u, sys->size_all * sizeof *v);
    ops->apply_j(map, &sys->mp, v);
    for (size_t i = 0; i < 12; i++)
        st_slice(f, out)[i] = cos(2.0 + (double)i);
    ops->apply_jt(map, &sys->mp, f);
    double lhs = 0, rhs = 0;
    for (size_t i = 0; i < 6 * in->n; i++)
        lhs += st_slice(f, in)[i] * st_slice(u, in)[i];
    for (size_t i = 0; i < 12; i++)
        rhs += st_slice(f, out)[i] * st_slice(v, out)[i];
    fem_near(lhs, rhs, 1e-12 * fabs(rhs), "<J^T g, u> = <g, J u>");
    free(u);
    free(x0);
    free(v);
    free(f);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* useCurvAbs false: beam + bary; nbPointsPerBeam: points by steps along
 * the beams and their abscissae. */
Test(beam_adapter, adaptive_beam_mapping_distributions)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = mapped_beam(&t, "1.5 0 0  0.25 0 0.1", "useCurvAbs='0'");
    st_mstate *out = st_component_mstate(fem_find(s, "map", "AdaptiveBeamMapping"));
    fem_near(out->position.r[0], 1.5, 1e-14, "beam 1 at 0.5");
    fem_near(out->position.r[3], 0.25, 1e-14, "beam 0 at 0.25");
    fem_near(out->position.r[5], 0.1, 1e-14, "z offset");
    st_scene_destroy(&s);
    s = mapped_beam(&t, "", "nbPointsPerBeam='2'");
    st_component *map = fem_find(s, "map", "AdaptiveBeamMapping");
    out = st_component_mstate(map);
    const st_array *sa = st_component_field_ptr(map, st_component_field(map, "segmentsCurvAbs"));
    /* beam 0: 0, 0.5, 1; the step carries over: beams 1 and 2 at 0.5, 1 */
    const double want[7] = {0, 0.5, 1, 1.5, 2, 2.5, 3};
    cr_assert_eq(out->n, 7, "%zu points", out->n);
    cr_assert_eq(sa->n, 7);
    for (size_t i = 0; i < 7; i++) {
        fem_near(sa->r[i], want[i], 1e-14, "segmentsCurvAbs");
        fem_near(out->position.r[3 * i], want[i], 1e-14, "point");
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* A load on a mapped point at the tip of a cantilever acts as on the tip
 * frame: the static tip against the closed forms. */
Test(beam_adapter, adaptive_beam_mapping_tip_load)
{
    test_rt t;
    ba_open_rt(&t);
    char pos[2048] = "", edges[512] = "", xml[8192];
    size_t lp = 0, le = 0;
    for (int i = 0; i <= 10; i++)
        lp += (size_t)snprintf(pos + lp, sizeof pos - lp, "%.17g 0 0 0 0 0 1  ", i / 10.0);
    for (int i = 0; i < 10; i++)
        le += (size_t)snprintf(edges + le, sizeof edges - le, "%d %d  ", i, i + 1);
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 0 0' dt='0.01'><DefaultAnimationLoop/>" STATIC_LDL
             "<MechanicalObject name='dofs' template='Rigid3d' position='%s'/>"
             "<MeshTopology lines='%s'/><BeamInterpolation name='interp' radius='%g' "
             "defaultYoungModulus='%g' defaultPoissonRatio='0.3'/>"
             "<AdaptiveBeamForceFieldAndMass name='beam' massDensity='1'/>"
             "<FixedProjectiveConstraint indices='0'/><Node name='pts'>"
             "<MechanicalObject template='Vec3d' position='0.5 0 0  1 0 0'/>"
             "<AdaptiveBeamMapping/><ConstantForceField indices='1' forces='0 %g 0'/>"
             "</Node></Node>",
             pos, edges, CANT_R, CANT_E, -CANT_P);
    st_scene *s = fem_load_xml(&t, xml);
    fem_step(s, 1, 0.01);
    check_tip(s, 1e-5, "AdaptiveBeamMapping, load on the mapped tip point, static");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* A controller's beams (ba_clear_beams, ba_add_beam): a WireBeamInterpolation
 * starting without beams gets the cantilever's ten, with the nodes turned
 * about x from the DOFs or not; the force field picks them up and the tip
 * meets the closed forms (a round section: the turn changes nothing). */
Test(beam_adapter, wire_beams_laid_by_a_controller)
{
    test_rt t;
    ba_open_rt(&t);
    for (int turned = 0; turned < 2; turned++) {
        char pos[2048] = "", edges[512] = "", xml[8192];
        size_t lp = 0, le = 0;
        for (int i = 0; i <= 10; i++)
            lp += (size_t)snprintf(pos + lp, sizeof pos - lp, "%.17g 0 0 0 0 0 1  ", i / 10.0);
        for (int i = 0; i < 10; i++)
            le += (size_t)snprintf(edges + le, sizeof edges - le, "%d %d  ", i, i + 1);
        snprintf(xml, sizeof xml,
                 "<Node name='root' gravity='0 0 0' dt='0.01'><DefaultAnimationLoop/>" STATIC_LDL
                 "<Node name='shape'>" CANT_ROD "<EdgeSetTopologyContainer/>"
                 "<WireRestShape name='rest' wireMaterials='@rod'/></Node>"
                 "<MechanicalObject name='dofs' template='Rigid3d' position='%s'/>"
                 "<MeshTopology lines='%s'/><WireBeamInterpolation name='interp' "
                 "WireRestShape='@shape/rest'/>"
                 "<AdaptiveBeamForceFieldAndMass name='beam' massDensity='1'/>"
                 "<FixedProjectiveConstraint indices='0'/>"
                 "<ConstantForceField indices='10' forces='0 %g 0 0 0 0'/></Node>",
                 pos, edges, -CANT_P);
        st_scene *s = fem_load_xml(&t, xml);
        wire_beam_interpolation *w =
            (wire_beam_interpolation *)fem_find(s, "interp", "WireBeamInterpolation");
        ab_ffm *b = (ab_ffm *)test_find_object(s, "beam");
        cr_assert_eq(ba_num_beams(&w->bi), 0);
        cr_assert_eq(b->nb, 0);
        st_error err = {0};
        cr_assert_eq(ba_clear_beams(&w->bi, &err), ST_OK, "%s", err.msg);
        for (unsigned e = 0; e < 10; e++)
            cr_assert_eq(ba_add_beam(&w->bi, e, 0.1, e / 10.0, (e + 1) / 10.0, turned ? 0.3 : 0.0,
                                     &err),
                         ST_OK, "%s", err.msg);
        cr_assert_neq(ba_add_beam(&w->bi, 10, 0.1, 1.0, 1.1, 0.0, &err), ST_OK,
                      "an edge past the topology");
        cr_assert_eq(ba_num_beams(&w->bi), 10);
        cr_assert_eq(w->bi.curv_abs_list.n, 20);
        cr_assert(!w->bi.dofs_aligned);
        w->controlled = true;
        fem_step(s, 1, 0.01);
        cr_assert_eq(b->nb, 10);
        check_tip(s, 1e-5, turned ? "controller's beams, nodes turned 0.3 about x"
                                  : "controller's beams");
        /* cleared again: no beams, no forces */
        cr_assert_eq(ba_clear_beams(&w->bi, &err), ST_OK, "%s", err.msg);
        st_component *ff = &b->base;
        cr_assert_eq(max_force(ff, s->systems[0]), 0.0);
        cr_assert_eq(b->nb, 0);
        st_scene_destroy(&s);
    }
    test_rt_close(&t);
}

/* ---- InterventionalRadiologyController ---- */

/* Eleven frames on ten edges, a straight wire of length 1 (ten beams, the
 * cantilever's rod), its tip at xtip; RestShapeSprings hold frame `held`
 * (the entry node once deployed). */
static st_scene *deployed_wire(test_rt *t, const char *irc_extra, const char *solvers,
                               const char *extra)
{
    static char xml[8192];
    char edges[512] = "";
    size_t le = 0;
    for (int i = 0; i < 10; i++)
        le += (size_t)snprintf(edges + le, sizeof edges - le, "%d %d  ", i, i + 1);
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 0 0' dt='0.01'><DefaultAnimationLoop/>%s"
             "<Node name='shape'>" CANT_ROD "<EdgeSetTopologyContainer/>"
             "<WireRestShape name='rest' wireMaterials='@rod'/></Node>"
             "<MechanicalObject name='dofs' template='Rigid3d' size='11'/>"
             "<MeshTopology lines='%s'/><WireBeamInterpolation name='interp' "
             "WireRestShape='@shape/rest'/>"
             "<AdaptiveBeamForceFieldAndMass name='beam' massDensity='1'/>"
             "<InterventionalRadiologyController name='irc' %s/>"
             "<FixedProjectiveConstraint name='fixed' indices='0'/>%s</Node>",
             solvers, edges, irc_extra, extra);
    return fem_load_xml(t, xml);
}

static void expect_abscissae(const ir_controller *c, const double *want, size_t n,
                             const char *what)
{
    cr_assert_eq(c->nnode, n, "%s: %zu nodes, expected %zu", what, c->nnode, n);
    for (size_t i = 0; i < n; i++)
        fem_near(c->node_abs[i], want[i], 1e-12, what);
}

/* The wire out to 0.55: nodes at 0, then 0.05 and every 0.1 to the tip
 * (ten beams a unit length, counted back from the tip), on the last seven
 * frames; six beams on edges 4..9 with their abscissae on the wire; frames
 * 0..3 at the start and fixed, frame 4 the first node. */
Test(beam_adapter, irc_deployment_by_abscissa)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = deployed_wire(&t, "xtip='0.55' startingPos='1 2 3 0 0 0 1'",
                                "<EulerImplicitSolver/><SparseLDLSolver/>", "");
    ir_controller *c = (ir_controller *)fem_find(s, "irc", "InterventionalRadiologyController");
    wire_beam_interpolation *w = (wire_beam_interpolation *)fem_find(s, "interp",
                                                                     "WireBeamInterpolation");
    cr_assert_eq(c->base.state, ST_CSTATE_VALID);
    cr_assert(w->controlled);
    const double a1[] = {0, 0.05, 0.15, 0.25, 0.35, 0.45, 0.55};
    expect_abscissae(c, a1, 7, "abscissae at 0.55");
    cr_assert_eq(ba_num_beams(&w->bi), 6);
    for (size_t b = 0; b < 6; b++) {
        cr_assert_eq(w->bi.edge_list.u[b], 4 + b);
        fem_near(w->bi.length_list.r[b], b ? 0.1 : 0.05, 1e-12, "beam length");
        fem_near(w->bi.curv_abs_list.r[2 * b], a1[b] + 0.45, 1e-12, "beam start on the wire");
        fem_near(w->bi.curv_abs_list.r[2 * b + 1], a1[b + 1] + 0.45, 1e-12,
                 "beam end on the wire");
    }
    cr_assert_eq(w->bi.beam_collision.n, 6);
    cr_assert_eq(c->index_first_node, 4);
    st_component *fc = fem_find(s, "fixed", "FixedProjectiveConstraint");
    const st_array *fi = st_component_field_ptr(fc, st_component_field(fc, "indices"));
    cr_assert_eq(fi->n, 4);
    for (unsigned i = 0; i < 4; i++)
        cr_assert_eq(fi->u[i], i);
    const double *x = c->ms->position.r;
    for (int i = 0; i < 11; i++) {
        fem_near(x[7 * i], 1, 0, "at the start");
        fem_near(x[7 * i + 2], 3, 0, "at the start");
    }
    /* pushed: 0.55 -> 0.6 keeps the nodes (shifted by 0.05: the same
     * frames); past 0.65 a node more */
    c->speed = 5.0;
    c->forward = true;
    c->base.cls->on_event(&c->base, ST_EVENT_ANIMATE_BEGIN, 0.01);
    fem_near(c->xtip.r[0], 0.6, 1e-15, "xtip after a step");
    const double a2[] = {0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
    expect_abscissae(c, a2, 7, "abscissae at 0.6");
    fem_near(w->bi.length_list.r[0], 0.1, 1e-12, "first beam");
    c->base.cls->on_event(&c->base, ST_EVENT_ANIMATE_BEGIN, 0.01);
    const double a3[] = {0, 0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65};
    expect_abscissae(c, a3, 8, "abscissae at 0.65");
    cr_assert_eq(ba_num_beams(&w->bi), 7);
    cr_assert_eq(w->bi.edge_list.u[0], 3);
    cr_assert_eq(c->index_first_node, 3);
    cr_assert_eq(fi->n, 3);
    /* clamped at the wire's length */
    for (int k = 0; k < 20; k++)
        c->base.cls->on_event(&c->base, ST_EVENT_ANIMATE_BEGIN, 0.01);
    fem_near(c->xtip.r[0], 1.0, 1e-15, "xtip at the wire's end");
    cr_assert_eq(ba_num_beams(&w->bi), 10);
    cr_assert_eq(c->index_first_node, 0);
    cr_assert_eq(fi->n, 0);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* A deployed part as a cantilever: the frames laid straight from the
 * entry node, which springs hold, a load at the tip frame; the static tip
 * against P L^3 / (3 E I) with L the deployed length 0.55. */
Test(beam_adapter, irc_deployed_cantilever)
{
    test_rt t;
    ba_open_rt(&t);
    char extra[256];
    snprintf(extra, sizeof extra,
             "<RestShapeSpringsForceField points='4' stiffness='1e10' angularStiffness='1e10'/>"
             "<ConstantForceField indices='10' forces='0 %g 0 0 0 0'/>",
             -CANT_P);
    st_scene *s = deployed_wire(&t, "xtip='0.55'", STATIC_LDL, extra);
    ir_controller *c = (ir_controller *)fem_find(s, "irc", "InterventionalRadiologyController");
    st_system *sys = s->systems[0];
    double *x = st_slice_x(sys->x, c->ms);
    for (size_t k = 0; k < c->nnode; k++)
        x[7 * (4 + k)] = c->node_abs[k];
    fem_step(s, 1, 0.01);
    const double *tip = c->ms->position.r + 7 * 10;
    const double L = 0.55, I = M_PI * pow(CANT_R, 4) / 4, EI = CANT_E * I;
    const double w = CANT_P * L * L * L / (3 * EI), th = CANT_P * L * L / (2 * EI);
    printf("deployed wire (0.55 out): tip deflection %.9g (closed form %.9g), rotation %.9g "
           "(%.9g)\n",
           tip[1], -w, 2 * atan2(tip[5], tip[6]), -th);
    fem_near(tip[1], -w, 1e-4 * w, "tip deflection");
    fem_near(2 * atan2(tip[5], tip[6]), -th, 1e-4 * th, "tip rotation");
    fem_near(c->ms->position.r[7 * 4 + 1], 0.0, 1e-9, "entry node held");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Bad scenes: no WireBeamInterpolation, no FixedProjectiveConstraint. */
Test(beam_adapter, irc_bad_input)
{
    test_rt t;
    ba_open_rt(&t);
    const char *bad[][2] = {
        {"<Node name='root'><MechanicalObject template='Rigid3d' size='3'/>"
         "<MeshTopology lines='0 1 1 2'/><FixedProjectiveConstraint/>"
         "<InterventionalRadiologyController/></Node>",
         "No instrument found"},
        {"<Node name='root'><Node name='shape'><RodStraightSection name='rod' length='1' "
         "nbBeams='2'/><EdgeSetTopologyContainer/><WireRestShape name='rest' "
         "wireMaterials='@rod'/></Node><MechanicalObject template='Rigid3d' size='3'/>"
         "<MeshTopology lines='0 1 1 2'/><WireBeamInterpolation WireRestShape='@shape/rest'/>"
         "<InterventionalRadiologyController/></Node>",
         "No FixedProjectiveConstraint"},
    };
    for (size_t i = 0; i < 2; i++) {
        st_error err = {0};
        st_scene *s = NULL;
        cr_assert_eq(st_scene_load_string(t.rt, bad[i][0], strlen(bad[i][0]), "t.scn", &s, &err),
                     ST_OK, "%s", err.msg);
        cr_assert_neq(st_scene_init(s, &err), ST_OK, "case %zu accepted", i);
        cr_assert(strstr(err.msg, bad[i][1]) != NULL, "case %zu: %s", i, err.msg);
        st_scene_destroy(&s);
    }
    test_rt_close(&t);
}

/* Pushed out at 0.5 per second (half the threshold a step, as BeamAdapter's
 * SingleBeamDeployment) from the origin along x, without gravity,
 * the entry node held by RestShapeSprings that follow indexFirstNode
 * through a data link: the wire comes out straight, each node at its
 * abscissa, the tip at the wire's length. */
Test(beam_adapter, irc_pushed_out_straight)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = deployed_wire(
        &t, "speed='0.5'", "<EulerImplicitSolver rayleighStiffness='0.1' rayleighMass='0.1'/>"
        "<BTDLinearSolver/>",
        "<RestShapeSpringsForceField name='springs' points='@irc.indexFirstNode' "
        "stiffness='1e8' angularStiffness='1e8'/>");
    ir_controller *c = (ir_controller *)fem_find(s, "irc", "InterventionalRadiologyController");
    st_component *sp = fem_find(s, "springs", "RestShapeSpringsForceField");
    const st_array *pts = st_component_field_ptr(sp, st_component_field(sp, "points"));
    fem_step(s, 100, 0.01);
    fem_near(c->xtip.r[0], 0.5, 2e-7, "xtip after 100 steps (from FLT_EPSILON)");
    cr_assert_eq(pts->n, 1);
    cr_assert_eq(pts->u[0], c->index_first_node, "springs on %u, first node %u", pts->u[0],
                 c->index_first_node);
    fem_step(s, 150, 0.01);
    fem_near(c->xtip.r[0], 1.0, 0.0, "xtip clamped at the wire's length");
    cr_assert_eq(c->index_first_node, 0);
    cr_assert_eq(pts->u[0], 0);
    const double *x = c->ms->position.r;
    double worst = 0;
    for (size_t k = 0; k < c->nnode; k++) {
        const double *p = x + 7 * (11 - c->nnode + k);
        worst = fmax(worst, fabs(p[0] - c->node_abs[k]) + fabs(p[1]) + fabs(p[2]));
    }
    printf("wire pushed out to 1: tip (%.6g %.3g %.3g), nodes off their abscissa by %.3g at "
           "most\n",
           x[70], x[71], x[72], worst);
    cr_assert_lt(worst, 1e-3);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* rigidCurvAbs (0.2, 0.4): nodes one step before the pair and at both
 * ends join the sampling; the nodes counted from the first simulated one
 * through the pair are fixed (BeamAdapter's count) and the beams inside it
 * leave the collision list. */
Test(beam_adapter, irc_rigid_part)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = deployed_wire(&t, "xtip='0.55' rigidCurvAbs='0.2 0.4'",
                                "<EulerImplicitSolver/><SparseLDLSolver/>", "");
    ir_controller *c = (ir_controller *)fem_find(s, "irc", "InterventionalRadiologyController");
    wire_beam_interpolation *w = (wire_beam_interpolation *)fem_find(s, "interp",
                                                                     "WireBeamInterpolation");
    const double a[] = {0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.35, 0.4, 0.45, 0.55};
    expect_abscissae(c, a, 10, "abscissae with a rigid part");
    cr_assert_eq(ba_num_beams(&w->bi), 9);
    cr_assert_eq(c->index_first_node, 1);
    st_component *fc = fem_find(s, "fixed", "FixedProjectiveConstraint");
    const st_array *fi = st_component_field_ptr(fc, st_component_field(fc, "indices"));
    const unsigned want_fixed[] = {0, 6, 7, 8, 9};
    cr_assert_eq(fi->n, 5, "%zu fixed", fi->n);
    for (size_t i = 0; i < 5; i++)
        cr_assert_eq(fi->u[i], want_fixed[i], "fixed[%zu] = %u", i, fi->u[i]);
    const unsigned want_coll[] = {0, 1, 2, 3, 7, 8};
    cr_assert_eq(w->bi.beam_collision.n, 6, "%zu beams for collision",
                 w->bi.beam_collision.n);
    for (size_t i = 0; i < 6; i++)
        cr_assert_eq(w->bi.beam_collision.u[i], want_coll[i]);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* BeamAdapterActionController replays its actions at their times, one a
 * step: forward by step, a turn by angularStep, back; the controller's
 * own speed is not used then. */
Test(beam_adapter, irc_scripted_actions)
{
    test_rt t;
    ba_open_rt(&t);
    st_scene *s = deployed_wire(&t, "xtip='0.3' step='0.1' speed='5'", "",
                                "<BeamAdapterActionController name='actions' "
                                "interventionController='@irc' writeMode='0' "
                                "timeSteps='0 0.015 0.025' actions='1 3 2'/>");
    ir_controller *c = (ir_controller *)fem_find(s, "irc", "InterventionalRadiologyController");
    wire_beam_interpolation *w = (wire_beam_interpolation *)fem_find(s, "interp",
                                                                     "WireBeamInterpolation");
    cr_assert(c->use_actions);
    const double want_x[] = {0.4, 0.4, 0.4, 0.3, 0.3};
    const double want_rot[] = {0, 0, 0.15708, 0.15708, 0.15708};
    for (int k = 0; k < 5; k++) {
        fem_step(s, 1, 0.01);
        fem_near(c->xtip.r[0], want_x[k], 1e-12, "xtip after the step");
        fem_near(c->rotation.r[0], want_rot[k], 1e-12, "rotation after the step");
    }
    /* the beams follow: 0.3 out is 0, 0.1, 0.2 and 0.3; nodes turned */
    cr_assert_eq(ba_num_beams(&w->bi), 3);
    const double *q = w->bi.dof0_node0.r + 3;
    fem_near(2 * atan2(q[0], q[3]), 0.15708, 1e-12, "nodes turned about x");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* AdaptiveBeamController: straight beams of lengths 0.5, 1.5 and 1 (their
 * spline lengths are their lengths) are cut into three equal ones, the
 * inner frames moved to x = 1 and 2; uniform beams stay as they are. */
Test(beam_adapter, adaptive_beam_controller_evens_out)
{
    test_rt t;
    ba_open_rt(&t);
    const char *pos[2] = {"0 0 0 0 0 0 1  0.5 0 0 0 0 0 1  2 0 0 0 0 0 1  3 0 0 0 0 0 1",
                          "0 0 0 0 0 0 1  1 0 0 0 0 0 1  2 0 0 0 0 0 1  3 0 0 0 0 0 1"};
    for (int uniform = 0; uniform < 2; uniform++) {
        char xml[2048];
        snprintf(xml, sizeof xml,
                 "<Node name='root' gravity='0 0 0' dt='0.01'><DefaultAnimationLoop/>"
                 "<EulerImplicitSolver/><SparseLDLSolver/><MeshTopology lines='0 1 1 2 2 3'/>"
                 "<MechanicalObject template='Rigid3d' name='dofs' position='%s'/>"
                 "<BeamInterpolation name='interp' radius='0.1'/>"
                 "<FixedProjectiveConstraint indices='0'/>"
                 "<AdaptiveBeamController name='ctrl'/>"
                 "<AdaptiveBeamForceFieldAndMass name='beam' massDensity='1'/></Node>",
                 pos[uniform]);
        st_scene *s = fem_load_xml(&t, xml);
        beam_interpolation *bi = (beam_interpolation *)fem_find(s, "interp", "BeamInterpolation");
        st_component *c = fem_find(s, "ctrl", "AdaptiveBeamController");
        const double before[3] = {uniform ? 1 : 0.5, uniform ? 1 : 1.5, 1};
        for (int b = 0; b < 3; b++)
            fem_near(bi->length_list.r[b], before[b], 1e-12, "lengths at init");
        c->cls->on_event(c, ST_EVENT_ANIMATE_BEGIN, 0.01);
        for (int b = 0; b < 3; b++)
            fem_near(bi->length_list.r[b], 1.0, 1e-12, "lengths evened out");
        const double *x = bi->ms->position.r;
        for (int i = 0; i < 4; i++) {
            fem_near(x[7 * i], i, 1e-12, "frame x");
            fem_near(x[7 * i + 1], 0, 1e-12, "frame y");
            fem_near(x[7 * i + 6], 1, 1e-12, "frame rotation");
        }
        st_scene_destroy(&s);
    }
    test_rt_close(&t);
}

/* RodMeshSection: a chain of three unit edges written out of order in an
 * OBJ file (along x, then up y) after a straight 10: the section's length
 * becomes 3, the rest frames follow the chain (linear between points,
 * slerp of the turned frames), shifted to the section's start. A closed
 * chain is an error. */
Test(beam_adapter, rod_mesh_section_chain)
{
    test_rt t;
    ba_open_rt(&t);
    char dir[512], obj[600], xml[2048];
    test_make_dir(dir, sizeof dir, "rodmesh");
    snprintf(obj, sizeof obj, "%s/chain.obj", dir);
    FILE *f = fopen(obj, "w");
    cr_assert_not_null(f);
    fputs("v 0 0 0\nv 2 0 0\nv 1 0 0\nv 2 1 0\nl 3 2\nl 1 3\nl 2 4\n", f);
    fclose(f);
    snprintf(xml, sizeof xml,
             "<Node name='Root'><MeshOBJLoader name='loader' filename='%s'/>"
             "<RodStraightSection name='Straight' length='10' nbBeams='5'/>"
             "<RodMeshSection name='Tip' loader='@loader' nbBeams='3' youngModulus='7e3'/>"
             "<EdgeSetTopologyContainer/><WireRestShape name='Shape' "
             "wireMaterials='@Straight @Tip'/></Node>",
             obj);
    st_scene *s = fem_load_xml(&t, xml);
    wire_rest_shape *w = (wire_rest_shape *)fem_find(s, "Shape", "WireRestShape");
    const rod_section *tip = (const rod_section *)fem_find(s, "Tip", "RodMeshSection");
    fem_near(tip->length, 3.0, 1e-15, "the chain's length");
    fem_near(wrs_length(w), 13.0, 1e-15, "wire length");
    cr_assert_eq(wrs_section_at(w, 12.0)->young, 7e3);
    const double xs[] = {11.5, 12.5, 13.0};
    const double want_t[3][3] = {{11.5, 0, 0}, {12, 0.5, 0}, {12, 1, 0}};
    const double want_angle[] = {0, M_PI / 4, M_PI / 2};
    for (int i = 0; i < 3; i++) {
        ba_xf h;
        wrs_rest_transform(w, xs[i], &h);
        for (int c = 0; c < 3; c++)
            fem_near(h.t[c], want_t[i][c], 1e-9, "rest origin on the chain");
        fem_near(h.q[0], 0, 1e-12, "about z only");
        fem_near(h.q[1], 0, 1e-12, "about z only");
        fem_near(2 * atan2(h.q[2], h.q[3]), want_angle[i], 1e-9, "rest turn about z");
    }
    st_scene_destroy(&s);
    /* a closed chain has no first end */
    f = fopen(obj, "w");
    cr_assert_not_null(f);
    fputs("v 0 0 0\nv 1 0 0\nv 1 1 0\nl 1 2\nl 2 3\nl 3 1\n", f);
    fclose(f);
    st_error err = {0};
    s = NULL;
    cr_assert_eq(st_scene_load_string(t.rt, xml, strlen(xml), "t.scn", &s, &err), ST_OK, "%s",
                 err.msg);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "closed structure"), "%s", err.msg);
    st_scene_destroy(&s);
    test_remove_dir(dir);
    test_rt_close(&t);
}

/* ---- MultiAdaptiveBeamMapping ---- */

/* Two straight instruments on ten frames: A (length 10, five beams, five
 * collision edges) out to 4, B (length 20, four beams, four collision
 * edges) out to 12. The controller's nodes: 0, 2, 4 (A's beams, A first
 * there) then 7 and 12 (B alone), on frames 5..9. The collision chain:
 * 5 + 4 edges, its points at init at 2k (A, dx 2, k = 0..5) then
 * 12 + 5k (B, dx 5, k = 1..4). The walk from the tip: B's end (12, local
 * 20), one B edge back (7, local 15), where the nodes turn to A: A's end
 * (4, local 10), 2 (local 8), then 0 (local 6) for the six points left.
 * With the frames laid straight along x at their nodes the points sit at
 * x = 0 0 0 0 0 0 2 4 7 12; a rigid rotation w = z (frame velocities
 * w x o) moves them at w x p = (0, x, 0); a force at the tip point goes to
 * the tip frame whole (bary 1 on B's last beam). */
Test(beam_adapter, multi_adaptive_beam_mapping_two_instruments)
{
    test_rt t;
    ba_open_rt(&t);
    const char *xml =
        "<Node name='root' gravity='0 0 0' dt='0.01'><DefaultAnimationLoop/>"
        "<Node name='a'><RodStraightSection name='rod' length='10' nbBeams='5' "
        "nbEdgesCollis='5' nbEdgesVisu='5' radius='0.5' youngModulus='1e4'/>"
        "<EdgeSetTopologyContainer/><WireRestShape name='rest' wireMaterials='@rod'/></Node>"
        "<Node name='b'><RodStraightSection name='rod' length='20' nbBeams='4' "
        "nbEdgesCollis='4' nbEdgesVisu='4' radius='0.3' youngModulus='1e4'/>"
        "<EdgeSetTopologyContainer/><WireRestShape name='rest' wireMaterials='@rod'/></Node>"
        "<Node name='combined'><EulerImplicitSolver/><SparseLDLSolver/>"
        "<RegularGridTopology nx='10' ny='1' nz='1' xmin='0' xmax='1' ymin='0' ymax='0' "
        "zmin='0' zmax='0'/>"
        "<MechanicalObject name='dofs' template='Rigid3d'/>"
        "<WireBeamInterpolation name='A' WireRestShape='@../a/rest'/>"
        "<AdaptiveBeamForceFieldAndMass interpolation='@A'/>"
        "<WireBeamInterpolation name='B' WireRestShape='@../b/rest'/>"
        "<AdaptiveBeamForceFieldAndMass interpolation='@B'/>"
        "<InterventionalRadiologyController name='irc' instruments='A B' xtip='4 12' "
        "speed='0' startingPos='0 0 0 0 0 0 1'/>"
        "<FixedProjectiveConstraint name='fixed' indices='0'/>"
        "<Node name='collis'><EdgeSetTopologyContainer name='edges'/><EdgeSetTopologyModifier/>"
        "<MechanicalObject name='cdofs'/>"
        "<MultiAdaptiveBeamMapping name='map' controller='@../irc'/></Node>"
        "</Node></Node>";
    st_scene *s = fem_load_xml(&t, xml);
    ir_controller *c = (ir_controller *)fem_find(s, "irc", "InterventionalRadiologyController");
    const double nodes[] = {0, 2, 4, 7, 12};
    expect_abscissae(c, nodes, 5, "two instruments' nodes");
    /* the collision chain written to the topology */
    st_component *edges = fem_find(s, "edges", "EdgeSetTopologyContainer");
    const st_array *pos = st_component_field_ptr(edges, st_component_field(edges, "position"));
    const st_array *ed = st_component_field_ptr(edges, st_component_field(edges, "edges"));
    const double chain[] = {0, 2, 4, 6, 8, 10, 17, 22, 27, 32};
    cr_assert_eq(pos->n, 10);
    cr_assert_eq(ed->n, 9);
    for (size_t i = 0; i < 10; i++)
        fem_near(pos->r[3 * i], chain[i], 1e-12, "chain point");
    for (unsigned i = 0; i < 9; i++)
        cr_assert(ed->u[2 * i] == i && ed->u[2 * i + 1] == i + 1, "edge %u", i);
    /* the frames straight along x at their nodes */
    st_mstate *dofs = (st_mstate *)fem_find(s, "dofs", "MechanicalObject");
    st_mstate *cd = (st_mstate *)fem_find(s, "cdofs", "MechanicalObject");
    cr_assert_eq(cd->position.n, 10);
    st_system *sys = s->systems[0];
    for (size_t k = 0; k < 5; k++) {
        double *f = dofs->position.r + 7 * (5 + k);
        f[0] = nodes[k];
        f[1] = f[2] = f[3] = f[4] = f[5] = 0.0;
        f[6] = 1.0;
    }
    st_system_propagate_x(sys, sys->x);
    const double want[] = {0, 0, 0, 0, 0, 0, 2, 4, 7, 12};
    for (size_t i = 0; i < 10; i++) {
        fem_near(cd->position.r[3 * i], want[i], 1e-12, "collision point x");
        fem_near(cd->position.r[3 * i + 1], 0.0, 1e-12, "collision point y");
        fem_near(cd->position.r[3 * i + 2], 0.0, 1e-12, "collision point z");
    }
    /* a rigid rotation about z */
    double *v = calloc(sys->size_all, sizeof *v);
    cr_assert_not_null(v);
    for (size_t k = 0; k < 10; k++) {
        double *vk = st_slice(v, dofs) + 6 * k;
        vk[1] = dofs->position.r[7 * k]; /* w x o, o on x */
        vk[5] = 1.0;
    }
    st_system_propagate_v(sys, v);
    const double *vc = st_slice(v, cd);
    for (size_t i = 0; i < 10; i++) {
        fem_near(vc[3 * i], 0.0, 1e-12, "point velocity x");
        fem_near(vc[3 * i + 1], want[i], 1e-12, "point velocity y (w x p)");
        fem_near(vc[3 * i + 2], 0.0, 1e-12, "point velocity z");
    }
    /* a force at the tip point goes to the tip frame */
    memset(v, 0, sys->size_all * sizeof *v);
    st_slice(v, cd)[3 * 9 + 1] = 1.0;
    st_system_apply_jt(sys, v);
    const double *fd = st_slice(v, dofs);
    for (size_t k = 0; k < 10; k++)
        for (int j = 0; j < 6; j++)
            fem_near(fd[6 * k + j], k == 9 && j == 1 ? 1.0 : 0.0, 1e-12, "J^T at the frames");
    free(v);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* ---- BeamLengthMapping ---- */

/* One beam of rest length L = 2 on frames along x. The control points are
 * evenly spaced at rest (P' = L x everywhere), so the length is L; frame 1
 * moved to x = 3 gives P' along +x with int |P'| = P3 - P0 = 3 (Gauss exact
 * for a quadratic). dl = dx1 - dx0 along x, nothing for transverse or
 * rotational motion of a straight beam, and J^T f puts -f and f on the
 * frames along x. Geometric stiffness at rest with child force f: K_kl =
 * (f / L) int a_k a_l dt (I - x x^T) between control points (the
 * derivative Bernstein a_k); frame 1 moved by (0, 1, 0) moves P2 and P3, and
 * int a_k (a_2 + a_3) = (-0.9, -0.3, 0.3, 0.9), so with c = kf f / L the
 * frames get (0, -1.2 c, 0, 0, 0, -0.2 c) and (0, 1.2 c, 0, 0, 0, -0.2 c)
 * (the torques from P1's and P2's levers (-L/3, 0, 0) and (L/3, 0, 0));
 * geometricStiffness 2 keeps it for f < 0 only, 0 never, 1 always. */
Test(beam_adapter, beam_length_mapping_closed_forms)
{
    test_rt t;
    ba_open_rt(&t);
    const char *gs[] = {"0", "1", "2"};
    for (int mode = 0; mode < 3; mode++) {
        char xml[2048];
        snprintf(xml, sizeof xml,
                 "<Node name='root' gravity='0 0 0' dt='0.01'><DefaultAnimationLoop/>"
                 "<EulerImplicitSolver/><CGLinearSolver iterations='10' tolerance='1e-9' "
                 "threshold='1e-9'/>"
                 "<MechanicalObject name='dofs' template='Rigid3d' position='0 0 0 0 0 0 1  2 0 "
                 "0 0 0 0 1'/><MeshTopology lines='0 1'/>"
                 "<BeamInterpolation name='interp' radius='0.1'/>"
                 "<Node name='len'><MechanicalObject name='lengths' template='Vec1d'/>"
                 "<BeamLengthMapping name='map' interpolation='@../interp' "
                 "geometricStiffness='%s'/></Node></Node>",
                 gs[mode]);
        st_scene *s = fem_load_xml(&t, xml);
        st_mstate *dofs = (st_mstate *)fem_find(s, "dofs", "MechanicalObject");
        st_mstate *len = (st_mstate *)fem_find(s, "lengths", "MechanicalObject");
        st_component *map = fem_find(s, "map", "BeamLengthMapping");
        const st_mapping_ops *ops = map->cls->mapping;
        st_system *sys = s->systems[0];
        cr_assert_eq(len->position.n, 1);
        fem_near(len->position.r[0], 2.0, 1e-13, "length at rest");
        /* velocities: along x only */
        double *v = calloc(sys->size_all, sizeof *v), *d = calloc(sys->size_all, sizeof *d);
        cr_assert(v && d);
        for (int j = 0; j < 12; j++) {
            memset(v, 0, sys->size_all * sizeof *v);
            st_slice(v, dofs)[j] = 1.0;
            st_system_propagate_v(sys, v);
            fem_near(st_slice(v, len)[0], j == 0 ? -1.0 : j == 6 ? 1.0 : 0.0, 1e-13,
                     "dl / d(frame velocity)");
        }
        memset(v, 0, sys->size_all * sizeof *v);
        st_slice(v, len)[0] = 5.0;
        st_system_apply_jt(sys, v);
        for (int j = 0; j < 12; j++)
            fem_near(st_slice(v, dofs)[j], j == 0 ? -5.0 : j == 6 ? 5.0 : 0.0, 1e-13, "J^T f");
        /* geometric stiffness, for f = 3 and f = -3 */
        const double L = 2.0, kf = 0.7;
        for (int sign = -1; sign <= 1; sign += 2) {
            const double f = 3.0 * sign;
            memset(v, 0, sys->size_all * sizeof *v);
            memset(d, 0, sys->size_all * sizeof *d);
            st_slice(v, len)[0] = f;
            ops->update_k(map, &sys->mp, v);
            memset(v, 0, sys->size_all * sizeof *v);
            st_slice(v, dofs)[6 + 1] = 1.0;
            ops->apply_djt(map, &sys->mp, d, v, kf);
            const bool on = mode == 1 || (mode == 2 && f < 0);
            const double c = on ? kf * f / L : 0.0;
            const double want[12] = {0, -1.2 * c, 0, 0, 0, -0.2 * c, 0, 1.2 * c, 0, 0, 0, -0.2 * c};
            for (int j = 0; j < 12; j++)
                fem_near(st_slice(d, dofs)[j], want[j], 1e-12, "geometric stiffness");
        }
        /* stretched: frame 1 at x = 3 */
        dofs->position.r[7] = 3.0;
        st_system_propagate_x(sys, sys->x);
        fem_near(len->position.r[0], 3.0, 1e-13, "stretched length");
        free(v);
        free(d);
        st_scene_destroy(&s);
    }
    test_rt_close(&t);
}
