/* test_barycentric_rigid.c - BarycentricMapping from Vec3d points to Rigid3d
 * frames (SOFA's BarycentricMapping<Vec3, Rigid3>), in SOFA-format scenes of
 * our own:
 * - the frames' centres and orientations after known deformations of one
 *   tetrahedron (a shear, a stretch, a rigid motion), worked by hand;
 * - J: its linear rows are the derivative of the centres (finite
 *   differences), its angular rows SOFA's sum of x_k x dx_k over the
 *   tetrahedron's vertices (not the derivative of the orientation: a pure
 *   translation turns the frame in J, not in apply), apply_j agrees with
 *   the assembled J and apply_jt is its transpose; constraint rows map
 *   their linear part only (SOFA's applyJT on a MatrixDeriv);
 * - the solver paths: an implicit step solved matrix-free (CG: apply_j,
 *   apply_jt) and assembled (SparseLDL: get_j) gives the same motion;
 * - a MeshTopology input (SOFA's mesh mapper): the frames only translate. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static void open_rt(test_rt *t)
{
    static const char *const plugins[] = {"ODESolver.Backward", "LinearSolver.Direct",
                                          "LinearSolver.Iterative", "Mass",
                                          "Constraint.Projective", "Mapping.Linear",
                                          "MechanicalLoad", "Topology",
                                          "SolidMechanics.FEM.Elastic"};
    st_error err = {0};
    test_rt_open(t);
    cr_assert_eq(st_runtime_add_plugin_path(t->rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    for (size_t i = 0; i < sizeof plugins / sizeof *plugins; i++)
        cr_assert_eq(st_runtime_load_plugin(t->rt, plugins[i], &err), ST_OK, "%s", err.msg);
}

static st_scene *load_scn(test_rt *t, const char *xml)
{
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load_string(t->rt, xml, strlen(xml), "test.scn", &s, &err), ST_OK,
                 "load: %s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s", err.msg);
    return s;
}

static st_mstate *state(st_scene *s, const char *name)
{
    st_component *c = test_find_object(s, name);
    cr_assert(c && st_component_has_role(c, ST_ROLE_STATE), "no state %s", name);
    return (st_mstate *)c;
}

static void near(double got, double want, double tol, const char *what)
{
    cr_assert(fabs(got - want) <= tol, "%s: got %.17g, want %.17g", what, got, want);
}

/* Same rotation (q and -q are one rotation). */
static void same_quat(const double *q, const double *want, double tol, const char *what)
{
    double d = q[0] * want[0] + q[1] * want[1] + q[2] * want[2] + q[3] * want[3];
    cr_assert(fabs(fabs(d) - 1.0) <= tol, "%s: quaternion %g %g %g %g, want %g %g %g %g", what,
              q[0], q[1], q[2], q[3], want[0], want[1], want[2], want[3]);
}

/* The unit tetrahedron (0 0 0, 1 0 0, 0 1 0, 0 0 1) and two frames in it:
 * F0 at (0.25 0.25 0.25) unrotated, F1 at (0.1 0.2 0.3) turned 90 degrees
 * about z. */
#define S45 0.70710678118654752
static const char *ONE_TETRA =
    "<Node name='root' gravity='0 0 0' dt='0.01'>"
    "<EulerImplicitSolver/><CGLinearSolver iterations='100' tolerance='1e-20' threshold='1e-30'/>"
    "<MechanicalObject name='pts' position='0 0 0  1 0 0  0 1 0  0 0 1'/>"
    "<TetrahedronSetTopologyContainer name='topo' tetrahedra='0 1 2 3'/>"
    "<UniformMass totalMass='1'/>"
    "<Node name='frames'>"
    "<MechanicalObject name='f' template='Rigid3' position='0.25 0.25 0.25 0 0 0 1  "
    "0.1 0.2 0.3 0 0 0.70710678118654752 0.70710678118654752'/>"
    "<BarycentricMapping name='map' input='@../pts' output='@f'/>"
    "</Node></Node>";

/* Moves the input to p (4 points) and maps. */
static void deform(st_mstate *in, const double p[12])
{
    st_system *sys = in->system;
    cr_assert_not_null(sys);
    memcpy(st_slice_x(sys->x, in), p, 12 * sizeof(double));
    st_system_propagate_x(sys, sys->x);
}

static const double *frame(st_mstate *out, size_t i)
{
    return st_slice_x(out->system->x, out) + 7 * i;
}

Test(barycentric_rigid, frames_follow_a_sheared_stretched_and_moved_tetrahedron)
{
    test_rt t;
    open_rt(&t);
    st_scene *s = load_scn(&t, ONE_TETRA);
    st_mstate *in = state(s, "pts"), *out = state(s, "f");
    cr_assert_eq(out->n, 2u);
    /* At init the frames keep their orientations. */
    const double q0[4] = {0, 0, 0, 1}, q1[4] = {0, 0, S45, S45};
    same_quat(out->position.r + 3, q0, 1e-14, "F0 at init");
    same_quat(out->position.r + 10, q1, 1e-14, "F1 at init");

    /* Shear x by 2 y (x2 -> (2 1 0)): the edge basis is E = [[1 2 0] [0 1 0]
     * [0 0 1]], whose polar rotation turns -45 degrees about z (R^T E =
     * [[1 1] [1 3]] / sqrt 2 is symmetric). F0's axes are E's own, so F0
     * turns -45 degrees; F1's axes map to E Rz(90), whose rotation is
     * Rz(-45) Rz(90) = Rz(45). Centres: the barycentric sums. */
    const double c = cos(M_PI / 8), sn = sin(M_PI / 8);
    const double shear[12] = {0, 0, 0, 1, 0, 0, 2, 1, 0, 0, 0, 1};
    deform(in, shear);
    const double *f0 = frame(out, 0), *f1 = frame(out, 1);
    near(f0[0], 0.25 * 1 + 0.25 * 2, 1e-15, "F0 x");
    near(f0[1], 0.25, 1e-15, "F0 y");
    near(f0[2], 0.25, 1e-15, "F0 z");
    near(f1[0], 0.1 + 0.2 * 2, 1e-15, "F1 x");
    near(f1[1], 0.2, 1e-15, "F1 y");
    near(f1[2], 0.3, 1e-15, "F1 z");
    const double r0[4] = {0, 0, -sn, c}, r1[4] = {0, 0, sn, c};
    same_quat(f0 + 3, r0, 1e-12, "F0 sheared");
    same_quat(f1 + 3, r1, 1e-12, "F1 sheared");

    /* Stretch x by 3: E = diag(3 1 1), no rotation; F1's axes map to
     * Rz(90) diag(1 3 1): the rotation is still Rz(90). */
    const double stretch[12] = {0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 1};
    deform(in, stretch);
    near(frame(out, 0)[0], 0.75, 1e-15, "F0 stretched x");
    same_quat(frame(out, 0) + 3, q0, 1e-12, "F0 stretched");
    same_quat(frame(out, 1) + 3, q1, 1e-12, "F1 stretched");

    /* A rigid motion: 90 degrees about x, then (1 2 3). Frames follow:
     * centre R c + t, orientation Rx(90) q. */
    const double moved[12] = {1, 2, 3, 2, 2, 3, 1, 2, 4, 1, 1, 3};
    deform(in, moved);
    near(frame(out, 0)[0], 1.25, 1e-15, "F0 moved x");
    near(frame(out, 0)[1], 2.0 - 0.25, 1e-15, "F0 moved y");
    near(frame(out, 0)[2], 3.25, 1e-15, "F0 moved z");
    const double rx[4] = {S45, 0, 0, S45};
    double want1[4];
    st_quat_mul(want1, rx, q1);
    same_quat(frame(out, 0) + 3, rx, 1e-12, "F0 moved");
    same_quat(frame(out, 1) + 3, want1, 1e-12, "F1 moved");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

static double cross_k(const double *a, const double *b, int k)
{
    int i = (k + 1) % 3, j = (k + 2) % 3;
    return a[i] * b[j] - a[j] * b[i];
}

Test(barycentric_rigid, jacobian_rows_and_transpose)
{
    test_rt t;
    open_rt(&t);
    st_scene *s = load_scn(&t, ONE_TETRA);
    st_mstate *in = state(s, "pts"), *out = state(s, "f");
    st_component *map = test_find_object(s, "map");
    st_system *sys = in->system;
    /* A generic configuration. */
    const double p[12] = {0.1, -0.05, 0.02, 1.2, 0.1, -0.1, 0.05, 0.9, 0.2, -0.1, 0.15, 1.1};
    deform(in, p);
    size_t rows = 12, cols = sys->size_all;
    double *J = calloc(rows * cols, sizeof *J);
    st_error err = {0};
    cr_assert_eq(st__mapgraph_dense_j(sys, map, J, rows, cols, &err), ST_OK, "%s", err.msg);
    /* Linear rows: central differences of the centres. Angular rows:
     * [x_k]x, i.e. w = sum_k x_k x dx_k. */
    double *xs = malloc(sys->xsize_all * sizeof *xs);
    const double eps = 1e-6;
    double worst_lin = 0, worst_ang = 0;
    for (size_t col = 0; col < 12; col++) {
        double cp[6], cm[6];
        for (int sg = -1; sg <= 1; sg += 2) {
            memcpy(xs, sys->x, sys->xsize_all * sizeof *xs);
            st_slice_x(xs, in)[col] += sg * eps;
            map->cls->mapping->apply(map, &sys->mp, xs);
            const double *o = st_slice_x(xs, out);
            for (int f = 0; f < 2; f++)
                for (int d = 0; d < 3; d++)
                    (sg > 0 ? cp : cm)[3 * f + d] = o[7 * f + d];
        }
        size_t jc = in->doffset + col;
        double e[3] = {0, 0, 0};
        e[col % 3] = 1.0;
        for (int f = 0; f < 2; f++) {
            for (int d = 0; d < 3; d++) {
                double fd = (cp[3 * f + d] - cm[3 * f + d]) / (2 * eps);
                worst_lin = fmax(worst_lin, fabs(fd - J[(6 * f + d) * cols + jc]));
                double ang = cross_k(p + 3 * (col / 3), e, d);
                worst_ang = fmax(worst_ang, fabs(ang - J[(6 * f + 3 + d) * cols + jc]));
            }
        }
    }
    map->cls->mapping->apply(map, &sys->mp, sys->x);
    cr_assert_leq(worst_lin, 1e-9, "linear rows differ from the centres' derivative by %g",
                  worst_lin);
    cr_assert_leq(worst_ang, 1e-15, "angular rows differ from [x_k]x by %g", worst_ang);
    /* A pure translation d: apply keeps the orientations, J turns them by
     * (sum_k x_k) x d (SOFA's J). */
    double *u = calloc(sys->size_all, sizeof *u), *w = calloc(sys->size_all, sizeof *w);
    const double d[3] = {0.3, -0.2, 0.5};
    for (int k = 0; k < 4; k++)
        memcpy(st_slice(u, in) + 3 * k, d, sizeof d);
    map->cls->mapping->apply_j(map, &sys->mp, u);
    double sum[3] = {0, 0, 0};
    for (int k = 0; k < 4; k++)
        for (int a = 0; a < 3; a++)
            sum[a] += p[3 * k + a];
    for (int f = 0; f < 2; f++)
        for (int a = 0; a < 3; a++) {
            near(st_slice(u, out)[6 * f + a], d[a], 1e-15, "translation: linear velocity");
            near(st_slice(u, out)[6 * f + 3 + a], cross_k(sum, d, a), 1e-15,
                 "translation: SOFA's angular velocity");
        }
    /* apply_j = J u and <J u, w> = <u, J^T w> on a generic u, w. */
    unsigned long r = 7;
    for (size_t k = 0; k < sys->size; k++) {
        r = r * 6364136223846793005ul + 1442695040888963407ul;
        u[k] = (double)(r >> 11) / 9007199254740992.0 - 0.5;
    }
    double *wo = st_slice(w, out);
    for (size_t k = 0; k < rows; k++)
        wo[k] = sin(1.0 + (double)k);
    map->cls->mapping->apply_j(map, &sys->mp, u);
    double juw = 0, ujtw = 0, dense = 0;
    for (size_t rr = 0; rr < rows; rr++) {
        double sj = 0;
        for (size_t k = 0; k < cols; k++)
            sj += J[rr * cols + k] * u[k];
        dense = fmax(dense, fabs(sj - st_slice(u, out)[rr]));
        juw += st_slice(u, out)[rr] * wo[rr];
    }
    map->cls->mapping->apply_jt(map, &sys->mp, w);
    for (size_t k = 0; k < sys->size; k++)
        ujtw += u[k] * w[k];
    cr_assert_leq(dense, 1e-14, "apply_j differs from J u by %g", dense);
    cr_assert_leq(fabs(juw - ujtw), 1e-13, "<Ju,w> %.17g, <u,J^T w> %.17g", juw, ujtw);
    /* A torque alone gives the forces t x x_k (sum t x sum x_k). */
    memset(w, 0, sys->size_all * sizeof *w);
    wo[3] = 2.0;
    map->cls->mapping->apply_jt(map, &sys->mp, w);
    const double tq[3] = {2.0, 0, 0};
    for (int k = 0; k < 4; k++)
        for (int a = 0; a < 3; a++)
            near(st_slice(w, in)[3 * k + a], cross_k(tq, p + 3 * k, a), 1e-15, "t x x_k");
    /* Constraint rows (st_system_apply_jt): SOFA maps their linear part
     * only, the torque is dropped. Frame 0 sits at weights 1/4 each. */
    memset(w, 0, sys->size_all * sizeof *w);
    wo[1] = 4.0; /* frame 0, force along y */
    wo[3] = 2.0; /* frame 0, torque about x */
    st_system_apply_jt(sys, w);
    for (int k = 0; k < 4; k++)
        for (int a = 0; a < 3; a++)
            near(st_slice(w, in)[3 * k + a], a == 1 ? 1.0 : 0.0, 1e-15, "constraint row");
    free(u);
    free(w);
    free(xs);
    free(J);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* A bar of tetrahedra (FEM, one end fixed) carrying two mapped frames
 * joined by a beam (its stiffness reaches the bar through J^T K J) and
 * loaded by a force and a torque: CG (matrix-free through apply_j / apply_jt) and
 * SparseLDL (J^T K J assembled from get_j) step alike. */
static st_scene *loaded_bar(test_rt *t, const char *linear)
{
    char xml[4096];
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 0 0' dt='0.01'>"
             "<EulerImplicitSolver rayleighStiffness='0.1' rayleighMass='0.1'/>%s"
             "<MechanicalObject name='pts' position='0 0 0  0 1 0  0 0 1  0 1 1  "
             "1 0 0  1 1 0  1 0 1  1 1 1'/>"
             "<TetrahedronSetTopologyContainer name='topo' tetrahedra='0 3 5 6  1 0 3 5  "
             "2 0 3 6  4 0 5 6  7 3 5 6'/>"
             "<UniformMass totalMass='1'/>"
             "<FixedProjectiveConstraint indices='0 1 2 3'/>"
             "<TetrahedronFEMForceField youngModulus='500' poissonRatio='0.3' method='large'/>"
             "<Node name='frames'>"
             "<MechanicalObject name='f' template='Rigid3' position='0.8 0.5 0.5 0 0 0 1  "
             "0.3 0.4 0.6 0.2 0.3 0.1 0.9273618495495704'/>"
             "<MeshTopology lines='0 1'/>"
             "<BeamFEMForceField radius='0.05' youngModulus='20000' poissonRatio='0.3'/>"
             "<ConstantForceField indices='0 1' forces='0 -2 0 0 0 0  0 0 1 1 0 0'/>"
             "<BarycentricMapping name='map' input='@../pts' output='@f'/>"
             "</Node></Node>",
             linear);
    return load_scn(t, xml);
}

Test(barycentric_rigid, cg_and_ldl_agree)
{
    test_rt t1, t2;
    open_rt(&t1);
    open_rt(&t2);
    st_scene *a = loaded_bar(&t1, "<CGLinearSolver iterations='500' tolerance='1e-24' "
                                  "threshold='1e-30'/>");
    st_scene *b = loaded_bar(&t2, "<SparseLDLSolver/>");
    st_mstate *ma = state(a, "pts"), *mb = state(b, "pts");
    st_error err = {0};
    double moved = 0;
    for (int k = 0; k < 30; k++) {
        cr_assert_eq(st_scene_step(a, 0, &err), ST_OK, "%s", err.msg);
        cr_assert_eq(st_scene_step(b, 0, &err), ST_OK, "%s", err.msg);
        for (size_t j = 0; j < 24; j++)
            near(ma->position.r[j], mb->position.r[j], 1e-9, "CG vs LDL");
    }
    for (size_t j = 12; j < 24; j++)
        moved = fmax(moved, fabs(ma->position.r[j] - ma->rest_position.r[j]));
    cr_assert_gt(moved, 1e-3, "the load moved nothing (%g)", moved);
    st_scene_destroy(&a);
    st_scene_destroy(&b);
    test_rt_close(&t1);
    test_rt_close(&t2);
}

/* SOFA's mesh mapper (a MeshTopology input): centres mapped, orientations
 * kept, no angular rows. */
Test(barycentric_rigid, mesh_topology_keeps_orientations)
{
    test_rt t;
    open_rt(&t);
    char xml[2048];
    snprintf(xml, sizeof xml, "%s", ONE_TETRA);
    char *tc = strstr(xml, "TetrahedronSetTopologyContainer");
    cr_assert_not_null(tc);
    memcpy(tc, "MeshTopology", 12);
    memmove(tc + 12, tc + 31, strlen(tc + 31) + 1);
    st_scene *s = load_scn(&t, xml);
    st_mstate *in = state(s, "pts"), *out = state(s, "f");
    const double shear[12] = {0, 0, 0, 1, 0, 0, 2, 1, 0, 0, 0, 1};
    deform(in, shear);
    near(frame(out, 0)[0], 0.75, 1e-15, "F0 x");
    const double q0[4] = {0, 0, 0, 1}, q1[4] = {0, 0, S45, S45};
    same_quat(frame(out, 0) + 3, q0, 1e-15, "F0 kept");
    same_quat(frame(out, 1) + 3, q1, 1e-15, "F1 kept");
    st_system *sys = in->system;
    double *u = calloc(sys->size_all, sizeof *u);
    for (size_t k = 0; k < sys->size; k++)
        u[k] = 1.0 + (double)k;
    st_component *map = test_find_object(s, "map");
    map->cls->mapping->apply_j(map, &sys->mp, u);
    for (int f = 0; f < 2; f++)
        for (int a = 3; a < 6; a++)
            near(st_slice(u, out)[6 * f + a], 0.0, 0.0, "no angular velocity");
    free(u);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Outputs other than Vec3d and Rigid3d are refused by name. */
Test(barycentric_rigid, other_outputs_refused)
{
    test_rt t;
    open_rt(&t);
    const char *xml = "<Node name='root'>"
                      "<MechanicalObject name='pts' position='0 0 0  1 0 0  0 1 0  0 0 1'/>"
                      "<TetrahedronSetTopologyContainer tetrahedra='0 1 2 3'/>"
                      "<Node name='c'><MechanicalObject name='o' template='Vec2' position='0 0'/>"
                      "<BarycentricMapping input='@../pts' output='@o'/></Node></Node>";
    st_error err = {0};
    st_scene *s = NULL;
    st_status st = st_scene_load_string(t.rt, xml, strlen(xml), "test.scn", &s, &err);
    if (st == ST_OK)
        st = st_scene_init(s, &err);
    cr_assert_neq(st, ST_OK);
    cr_assert(strstr(err.msg, "Vec3d or a Rigid3d output"), "%s", err.msg);
    if (s)
        st_scene_destroy(&s);
    test_rt_close(&t);
}
