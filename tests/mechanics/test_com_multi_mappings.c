/* test_com_multi_mappings.c - CenterOfMassMultiMapping,
 * CenterOfMassMulti2Mapping and VoidMapping (issue 30).
 *
 * The centre-of-mass mappings: the output point is sum m_p x_p / M over
 * every input point (worked values); J from get_j is the finite-difference
 * derivative of apply, apply_jt the transpose of apply_j; a force F on the
 * output gives every input point the acceleration F / M, and with a rest
 * spring k on the output the centre is a 1-d implicit-Euler oscillator of
 * mass M (closed recursion), the same through matrix-free CG (apply_j,
 * apply_jt) and SparseLDLSolver (J^T K J assembled from get_j).
 * VoidMapping: a state under it moves as without it. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(com_multi_mappings, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  dt: 0.01\n"                                                                                \
    "  gravity: [0, 0, 0]\n"                                                                      \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Mapping.Linear,"                          \
    " Sofa.Component.ODESolver.Backward, Sofa.Component.LinearSolver.Iterative,"              \
    " Sofa.Component.LinearSolver.Direct, Sofa.Component.Mass,"                               \
    " Sofa.Component.SolidMechanics.Spring, Sofa.Component.MechanicalLoad,"             \
    " Sofa.Component.Topology.Container.Constant]}\n"                 \
    "  children:\n"                                                                               \
    "    - name: P\n"                                                                             \
    "      objects:\n"                                                                            \
    "        - EulerImplicitSolver: {rayleighStiffness: 0, rayleighMass: 0}\n"                   \
    "        - %s\n"

/* a: 3 Vec3d points of mass 2 each; b (child B): 2 points of masses 1, 3
 * (M = 10); the mapping "map" with output "out" in child C. */
#define VEC3_INPUTS                                                                                \
    "        - MechanicalObject: {name: a, position: [0,0,0, 1,0,0, 2,1,0]}\n"                     \
    "        - UniformMass: {vertexMass: 2}\n"                                                     \
    "      children:\n"                                                                            \
    "        - name: B\n"                                                                          \
    "          objects:\n"                                                                         \
    "            - MechanicalObject: {name: b, position: [0,4,0, 1,0,5]}\n"                        \
    "            - MeshTopology: {position: [0,4,0, 1,0,5], edges: [0, 1]}\n"                                         \
    "            - DiagonalMass: {vertexMass: [1, 3]}\n"                                           \
    "        - name: C\n"                                                                          \
    "          objects:\n"                                                                         \
    "            - MechanicalObject: {name: out}\n"

static const char *CG = "CGLinearSolver: {iterations: 200, tolerance: 1e-20, threshold: 1e-30}";

static st_scene *scene_of(const char *solver, const char *inputs, const char *child)
{
    static char yaml[8192];
    char head[4096];
    snprintf(head, sizeof head, HEAD, solver);
    snprintf(yaml, sizeof yaml, "%s%s%s", head, inputs, child);
    return topo_scene(&T, yaml);
}

static unsigned long rng = 977;
static double rnd(void)
{
    rng = rng * 6364136223846793005ul + 1442695040888963407ul;
    return (double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* J (get_j) against central differences of apply, and <J u, w> = <u, J^T w>
 * with apply_j, apply_jt, at a perturbed configuration. */
static void check_jacobians(st_scene *s)
{
    st_component *map = topo_get(s, "/P/C/map");
    st_mstate *out = map->cls->mapping->output(map);
    st_system *sys = out->system;
    cr_assert_not_null(sys);
    const size_t rows = (size_t)out->type->deriv_size, cols = sys->size_all;
    double *J = calloc(rows * cols, sizeof *J);
    double *x0 = malloc(sys->xsize_all * sizeof *x0), *xp = malloc(sys->xsize_all * sizeof *xp);
    double *v = calloc(sys->size_all, sizeof *v);
    for (size_t k = 0; k < sys->size; k++)
        v[k] = 0.3 * rnd();
    st_vec_x_peq(sys, sys->x, v, 1.0);
    st_system_propagate_x(sys, sys->x);
    st_error err = {0};
    cr_assert_eq(st__mapgraph_dense_j(sys, map, J, rows, cols, &err), ST_OK, "%s", err.msg);
    memcpy(x0, sys->x, sys->xsize_all * sizeof *x0);
    double worst = 0.0, jmax = 0.0;
    const double eps = 1e-6;
    for (size_t st = 0; st < sys->nindep; st++) {
        const st_mstate *in = sys->states[st];
        const unsigned cw = in->type->coord_size, dw = in->type->deriv_size;
        for (size_t p = 0; p < in->n; p++)
            for (unsigned a = 0; a < dw; a++) {
                double d[2][6], e[6] = {0};
                e[a] = 1.0;
                for (int sg = 0; sg < 2; sg++) {
                    memcpy(xp, x0, sys->xsize_all * sizeof *xp);
                    double *xi = st_slice_x(xp, in) + (size_t)cw * p;
                    in->type->add_deriv(xi, xi, e, sg ? eps : -eps, 1);
                    map->cls->mapping->apply(map, &sys->mp, xp);
                    out->type->diff(d[sg], st_slice_x(xp, out), st_slice_x(x0, out), 1);
                }
                size_t col = in->doffset + (size_t)dw * p + a;
                for (size_t r = 0; r < rows; r++) {
                    double fd = (d[1][r] - d[0][r]) / (2 * eps);
                    worst = fmax(worst, fabs(fd - J[r * cols + col]));
                    jmax = fmax(jmax, fabs(J[r * cols + col]));
                }
            }
    }
    cr_log_info("%s: max |J - J_fd| = %.3g, max |J| = %.3g", map->cls->name, worst, jmax);
    cr_assert_gt(jmax, 0.0);
    cr_assert_leq(worst, 1e-8, "J differs from the derivative of apply by %.3g", worst);
    map->cls->mapping->apply(map, &sys->mp, x0);
    /* transpose */
    double *u = calloc(sys->size_all, sizeof *u), *w = calloc(sys->size_all, sizeof *w);
    for (size_t k = 0; k < sys->size; k++)
        u[k] = rnd();
    double *wo = st_slice(w, out);
    for (size_t r = 0; r < rows; r++)
        wo[r] = rnd();
    map->cls->mapping->apply_j(map, &sys->mp, u);
    const double *uo = st_slice(u, out);
    double juw = 0.0, dense = 0.0;
    for (size_t r = 0; r < rows; r++) {
        double sj = 0.0;
        for (size_t k = 0; k < cols; k++)
            sj += J[r * cols + k] * u[k];
        dense = fmax(dense, fabs(sj - uo[r]));
        juw += uo[r] * wo[r];
    }
    memset(w, 0, sys->size * sizeof *w);
    map->cls->mapping->apply_jt(map, &sys->mp, w);
    double ujw = 0.0;
    for (size_t k = 0; k < sys->size; k++)
        ujw += u[k] * w[k];
    cr_log_info("%s: <Ju,w> = %.17g, <u,J^T w> = %.17g", map->cls->name, juw, ujw);
    cr_assert_leq(fabs(juw - ujw), 1e-12 * fmax(1.0, fabs(juw)));
    cr_assert_leq(dense, 1e-12, "apply_j differs from J u by %.3g", dense);
    free(J), free(x0), free(xp), free(v), free(u), free(w);
}

Test(com_multi_mappings, vec3d_worked_value_and_jacobians)
{
    st_scene *s = scene_of(CG, VEC3_INPUTS,
                           "            - CenterOfMassMultiMapping: {name: map, input: [\"@../a\","
                           " \"@../B/b\"], output: \"@out\"}\n");
    const st_mstate *out = (const st_mstate *)topo_get(s, "/P/C/out");
    cr_assert_eq(out->n, 1u, "the output has one point");
    /* (2 (0+1+2) + 1*0 + 3*1, 2 (0+0+1) + 1*4 + 3*0, 3*5) / 10 */
    const double want[3] = {0.9, 0.6, 1.5};
    for (int k = 0; k < 3; k++)
        cr_assert_leq(fabs(out->position.r[k] - want[k]), 1e-15, "x[%d] = %.17g, want %g", k,
                      out->position.r[k], want[k]);
    check_jacobians(s);
    st_scene_destroy(&s);
}

Test(com_multi_mappings, rigid_inputs_weigh_the_centres)
{
    static const char *rigid_inputs =
        "        - MechanicalObject: {name: a, template: Rigid3d, position: [1,0,0, 0,0,0,1,"
        " 0,2,0, 0.6,0,0,0.8]}\n"
        "        - UniformMass: {vertexMass: 1}\n"
        "      children:\n"
        "        - name: B\n"
        "          objects:\n"
        "            - MechanicalObject: {name: b, template: Rigid3d, position: [0,0,4,"
        " 0,0.6,0,0.8]}\n"
        "            - UniformMass: {vertexMass: 2}\n"
        "        - name: C\n"
        "          objects:\n";
    char child[1024];
    /* Rigid3d to Vec3d and Rigid3d to Rigid3d: the centre is (1, 2, 8) / 4 */
    for (int rigid_out = 0; rigid_out < 2; rigid_out++) {
        snprintf(child, sizeof child,
                 "            - MechanicalObject: {name: out%s}\n"
                 "            - CenterOfMassMultiMapping: {name: map, input: [\"@../a\","
                 " \"@../B/b\"], output: \"@out\"}\n",
                 rigid_out ? ", template: Rigid3d" : "");
        st_scene *s = scene_of(CG, rigid_inputs, child);
        const st_mstate *out = (const st_mstate *)topo_get(s, "/P/C/out");
        cr_assert_eq(out->n, 1u);
        cr_assert_leq(fabs(out->position.r[0] - 0.25) + fabs(out->position.r[1] - 0.5) +
                          fabs(out->position.r[2] - 2.0),
                      1e-15, "centre (%g %g %g)", out->position.r[0], out->position.r[1],
                      out->position.r[2]);
        check_jacobians(s);
        st_scene_destroy(&s);
    }
}

Test(com_multi_mappings, multi2_vec3d_and_rigid3d_inputs)
{
    static const char *inputs =
        "        - MechanicalObject: {name: a, position: [0,0,0, 4,0,0]}\n"
        "        - UniformMass: {vertexMass: 1}\n"
        "      children:\n"
        "        - name: B\n"
        "          objects:\n"
        "            - MechanicalObject: {name: b, template: Rigid3d, position: [0,6,0,"
        " 0,0,0.6,0.8]}\n"
        "            - UniformMass: {vertexMass: 2}\n"
        "        - name: C\n"
        "          objects:\n"
        "            - MechanicalObject: {name: out}\n";
    st_scene *s = scene_of(CG, inputs,
                           "            - CenterOfMassMulti2Mapping: {name: map, input1:"
                           " [\"@../a\"], input2: [\"@../B/b\"], output: \"@out\"}\n");
    const st_mstate *out = (const st_mstate *)topo_get(s, "/P/C/out");
    /* (4 + 0, 2*6, 0) / 4 */
    cr_assert_leq(fabs(out->position.r[0] - 1.0) + fabs(out->position.r[1] - 3.0) +
                      fabs(out->position.r[2]),
                  1e-15, "centre (%g %g %g)", out->position.r[0], out->position.r[1],
                  out->position.r[2]);
    check_jacobians(s);
    st_scene_destroy(&s);

    /* the lists hold one type each */
    st_error err = {0};
    char yaml[8192], head[4096];
    snprintf(head, sizeof head, HEAD, CG);
    snprintf(yaml, sizeof yaml, "%s%s%s", head, inputs,
             "            - CenterOfMassMulti2Mapping: {name: map, input1: [\"@../B/b\"],"
             " input2: [\"@../a\"], output: \"@out\"}\n");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "the states of input1 are Vec3d"), "%s", err.msg);
}

Test(com_multi_mappings, input_without_mass_is_refused)
{
    st_error err = {0};
    char yaml[8192], head[4096];
    snprintf(head, sizeof head, HEAD, CG);
    snprintf(yaml, sizeof yaml,
             "%s        - MechanicalObject: {name: a, position: [0,0,0]}\n"
             "      children:\n"
             "        - name: C\n"
             "          objects:\n"
             "            - MechanicalObject: {name: out}\n"
             "            - CenterOfMassMultiMapping: {name: map, input: [\"@../a\"],"
             " output: \"@out\"}\n",
             head);
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "no mass in the node of the input 'a'"), "%s", err.msg);
}

/* A constant force F on the centre and a rest spring k on it: every input
 * point gets m_p F / M, the system moves rigidly and the centre's offset u
 * follows implicit Euler on a 1-d oscillator of mass M = 10:
 *   (M + h^2 k) dv = h (F - k u - h k v),  v += dv,  u += h v.
 * Same through CG (apply_j / apply_jt) and SparseLDLSolver (J^T K J). */
static void centre_oscillator(const char *solver, double *final_u)
{
    st_scene *s = scene_of(solver, VEC3_INPUTS,
                           "            - CenterOfMassMultiMapping: {name: map, input: [\"@../a\","
                           " \"@../B/b\"], output: \"@out\", applyRestPosition: true}\n"
                           "            - ConstantForceField: {indices: [0], forces: [2, 0, 0]}\n"
                           "            - RestShapeSpringsForceField: {points: [0], stiffness:"
                           " [50]}\n");
    const double h = 0.01, M = 10.0, k = 50.0, F = 2.0;
    double u = 0.0, v = 0.0;
    st_error err = {0};
    const st_mstate *out = (const st_mstate *)topo_get(s, "/P/C/out");
    const st_mstate *b = (const st_mstate *)topo_get(s, "/P/B/b");
    for (int n = 0; n < 40; n++) {
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
        double dv = h * (F - k * u - h * k * v) / (M + h * h * k);
        v += dv;
        u += h * v;
    }
    double got = out->position.r[0] - 0.9;
    cr_log_info("%s: centre offset %.17g, recursion %.17g; b[1].x - 1 = %.17g", solver, got, u,
                b->position.r[3] - 1.0);
    cr_assert_leq(fabs(got - u), 1e-10, "%s: centre offset %.17g, want %.17g", solver, got, u);
    cr_assert_leq(fabs(b->position.r[3] - 1.0 - u), 1e-10, "every point moves with the centre");
    cr_assert_leq(fabs(out->position.r[1] - 0.6) + fabs(out->position.r[2] - 1.5), 1e-12);
    *final_u = got;
    st_scene_destroy(&s);
}

Test(com_multi_mappings, force_on_the_centre_cg_and_direct)
{
    double ucg = 0.0, uldl = 0.0;
    centre_oscillator(CG, &ucg);
    centre_oscillator("SparseLDLSolver: {}", &uldl);
    cr_assert_gt(ucg, 1e-3, "the centre moved");
    cr_assert_leq(fabs(ucg - uldl), 1e-12, "CG %.17g, LDL %.17g", ucg, uldl);
}

/* ---- VoidMapping ---- */

Test(com_multi_mappings, void_mapping_leaves_its_state_independent)
{
    double y[2];
    for (int with = 0; with < 2; with++) {
        char yaml[4096], head[4096];
        snprintf(head, sizeof head, HEAD, CG);
        snprintf(yaml, sizeof yaml,
                 "%s        - MechanicalObject: {name: a, position: [0,0,0]}\n"
                 "        - UniformMass: {vertexMass: 1}\n"
                 "        - ConstantForceField: {indices: [0], forces: [0, -1, 0]}\n%s",
                 head, with ? "        - VoidMapping: {name: void}\n" : "");
        st_scene *s = topo_scene(&T, yaml);
        st_error err = {0};
        for (int n = 0; n < 10; n++)
            cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
        y[with] = ((const st_mstate *)topo_get(s, "/P/a"))->position.r[1];
        if (with) {
            st_component *vm = topo_get(s, "/P/void");
            const st_field *f = st_component_field(vm, "mapForces");
            cr_assert_not_null(f);
            cr_assert_eq(*(const bool *)st_component_field_ptr(vm, f), false,
                         "SOFA's VoidMapping does not map forces");
        }
        st_scene_destroy(&s);
    }
    /* implicit Euler, unit mass and force: x_n = -h^2 n (n + 1) / 2 */
    const double want = -0.01 * 0.01 * 10 * 11 / 2;
    cr_assert_leq(fabs(y[0] - want), 1e-12, "y = %.17g", y[0]);
    cr_assert_eq(y[1], y[0], "with a VoidMapping %.17g, without %.17g", y[1], y[0]);
}
