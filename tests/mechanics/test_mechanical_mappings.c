/* test_mechanical_mappings.c - every mechanical mapping's role functions
 * against each other: J (get_j) is the finite-difference derivative of
 * apply, apply_jt is the transpose of apply_j (<J u, w> = <u, J^T w>), and
 * the geometric stiffness (update_k + apply_djt, and get_k assembled) is
 * the finite-difference derivative of J^T f with f fixed; BarycentricMapping
 * on points outside the mesh gives SOFA's extrapolated coefficients
 * (hand-checked cases); SubsetMapping's index rules; SubsetMultiMapping
 * (two inputs; a spring in its output node acts on both parents as in one
 * state); a rigid pendulum
 * (Rigid3d body, a RigidMapping child point held by a stiff spring) keeps
 * the closed-form period of a physical pendulum. */
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
TestSuite(mechanical_mappings, .init = setup, .fini = teardown);

/* The root of every scene here: dt 0.01, gravity (0, -9.81, 0). */
#define ROOT_HEAD                                                                                 \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  dt: 0.01\n"                                                                                \
    "  gravity: [0, -9.81, 0]\n"                                                                  \
    "  objects:\n"

#define HEAD                                                                                      \
    ROOT_HEAD                                                                                     \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Mapping.Linear,"                          \
    " Sofa.Component.Mapping.NonLinear, Sofa.Component.ODESolver.Backward,"                   \
    " Sofa.Component.LinearSolver.Iterative, Sofa.Component.LinearSolver.Direct,"              \
    " Sofa.Component.Mass, Sofa.Component.Topology.Container.Grid,"                             \
    " Sofa.Component.Topology.Container.Constant, Sofa.Component.SolidMechanics.Spring,"        \
    " Sofa.Component.ODESolver.Forward, Sofa.Component.Constraint.Projective, Sofa.Component.Visual]}\n"      \
    "  children:\n"                                                                               \
    "    - name: P\n"                                                                             \
    "      objects:\n"                                                                            \
    "        - EulerImplicitSolver: {}\n"                                                         \
    "        - CGLinearSolver: {iterations: 100, tolerance: 1e-12, threshold: 1e-20}\n"

/* Parent objects, then the child node's objects (the mapping is "map",
 * its output "out"). */
static st_scene *mapped_scene(const char *parent, const char *child)
{
    static char yaml[8192];
    snprintf(yaml, sizeof yaml,
             HEAD "%s"
                  "      children:\n"
                  "        - name: C\n"
                  "          objects:\n"
                  "%s",
             parent, child);
    return topo_scene(&T, yaml);
}

static unsigned long rng = 12345;
static double rnd(void)
{
    rng = rng * 6364136223846793005ul + 1442695040888963407ul;
    return (double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

typedef struct mcase {
    st_scene *s;
    st_system *sys;
    st_component *map;
    st_mstate *in, *out;
    size_t rows, cols; /* output derivative scalars; system derivative scalars */
} mcase;

static mcase open_case(st_scene *s)
{
    mcase c = {s, NULL, NULL, NULL, NULL, 0, 0};
    c.map = topo_get(s, "/P/C/map");
    c.in = c.map->cls->mapping->input(c.map);
    c.out = c.map->cls->mapping->output(c.map);
    cr_assert_not_null(c.in);
    cr_assert_not_null(c.out);
    c.sys = c.in->system;
    cr_assert_not_null(c.sys);
    c.rows = (size_t)c.out->type->deriv_size * c.out->n;
    c.cols = c.sys->size_all;
    /* Start from a generic configuration: move the input a little. */
    double *v = calloc(c.sys->size_all, sizeof *v);
    for (size_t k = 0; k < c.sys->size; k++)
        v[k] = 0.1 * rnd();
    st_vec_x_peq(c.sys, c.sys->x, v, 1.0);
    free(v);
    st_system_propagate_x(c.sys, c.sys->x);
    return c;
}

/* Output coordinates after apply at x (a copy), as derivatives from base. */
static void apply_at(mcase *c, const double *x, double *out_d, const double *base)
{
    double *xs = malloc(c->sys->xsize_all * sizeof *xs);
    memcpy(xs, x, c->sys->xsize_all * sizeof *xs);
    c->map->cls->mapping->apply(c->map, &c->sys->mp, xs);
    c->out->type->diff(out_d, st_slice_x(xs, c->out), base, c->out->n);
    free(xs);
}

/* J from get_j against central differences of apply, column by column
 * over the input's derivative scalars. */
static void check_j(mcase *c, double tol)
{
    st_error err = {0};
    double *J = malloc(c->rows * c->cols * sizeof *J);
    cr_assert_eq(st__mapgraph_dense_j(c->sys, c->map, J, c->rows, c->cols, &err), ST_OK, "%s",
                 err.msg);
    double *x0 = malloc(c->sys->xsize_all * sizeof *x0), *xp = malloc(c->sys->xsize_all * sizeof *xp);
    double *base = malloc((size_t)c->out->type->coord_size * c->out->n * sizeof *base);
    double *dp = malloc(c->rows * sizeof *dp), *dm = malloc(c->rows * sizeof *dm);
    memcpy(x0, c->sys->x, c->sys->xsize_all * sizeof *x0);
    memcpy(base, st_slice_x(x0, c->out), (size_t)c->out->type->coord_size * c->out->n * sizeof *base);
    const double eps = 1e-6;
    double worst = 0.0, jmax = 0.0;
    for (size_t st = 0; st < c->sys->nindep; st++) {
        const st_mstate *in = c->sys->states[st];
        const unsigned cw = in->type->coord_size, dw = in->type->deriv_size;
        for (size_t p = 0; p < in->n; p++)
        for (unsigned a = 0; a < dw; a++) {
            double e[6] = {0};
            e[a] = 1.0;
            for (int sgn = -1; sgn <= 1; sgn += 2) {
                memcpy(xp, x0, c->sys->xsize_all * sizeof *xp);
                double *xi = st_slice_x(xp, in) + (size_t)cw * p;
                in->type->add_deriv(xi, xi, e, sgn * eps, 1);
                apply_at(c, xp, sgn > 0 ? dp : dm, base);
            }
            size_t col = in->doffset + (size_t)dw * p + a;
            for (size_t r = 0; r < c->rows; r++) {
                double fd = (dp[r] - dm[r]) / (2 * eps);
                worst = fmax(worst, fabs(fd - J[r * c->cols + col]));
                jmax = fmax(jmax, fabs(J[r * c->cols + col]));
            }
        }
    }
    cr_log_info("%s: max |J - J_fd| = %.3g (max |J| %.3g)", c->map->cls->name, worst, jmax);
    cr_assert_gt(jmax, 0.0, "J is zero");
    cr_assert_leq(worst, tol * fmax(1.0, jmax), "%s: J differs from the derivative of apply by %.3g",
                  c->map->cls->name, worst);
    /* The mapping at x0 again (apply keeps state such as rotated points). */
    c->map->cls->mapping->apply(c->map, &c->sys->mp, x0);
    free(J);
    free(x0);
    free(xp);
    free(base);
    free(dp);
    free(dm);
}

/* <J u, w> = <u, J^T w> on random vectors, and J u from apply_j equals the
 * dense J times u. */
static void check_transpose(mcase *c)
{
    size_t n = c->sys->size_all;
    double *u = calloc(n, sizeof *u), *w = calloc(n, sizeof *w);
    double *J = malloc(c->rows * c->cols * sizeof *J);
    st_error err = {0};
    cr_assert_eq(st__mapgraph_dense_j(c->sys, c->map, J, c->rows, c->cols, &err), ST_OK, "%s",
                 err.msg);
    double *wo = st_slice(w, c->out);
    for (size_t k = 0; k < c->sys->size; k++)
        u[k] = rnd();
    for (size_t k = 0; k < c->rows; k++)
        wo[k] = rnd();
    c->map->cls->mapping->apply_j(c->map, &c->sys->mp, u); /* u_out = J u_in */
    double ju_w = 0.0, dense_err = 0.0;
    const double *uo = st_slice(u, c->out);
    for (size_t r = 0; r < c->rows; r++) {
        double s = 0.0;
        for (size_t k = 0; k < c->cols; k++)
            s += J[r * c->cols + k] * u[k];
        dense_err = fmax(dense_err, fabs(s - uo[r]));
        ju_w += uo[r] * wo[r];
    }
    memset(w, 0, c->sys->size * sizeof *w);
    c->map->cls->mapping->apply_jt(c->map, &c->sys->mp, w); /* w_in = J^T w_out */
    double u_jtw = 0.0;
    for (size_t k = 0; k < c->sys->size; k++)
        u_jtw += u[k] * w[k];
    cr_log_info("%s: <Ju,w> = %.17g, <u,J^T w> = %.17g, |apply_j - J u| = %.3g",
                c->map->cls->name, ju_w, u_jtw, dense_err);
    cr_assert_leq(fabs(ju_w - u_jtw), 1e-12 * fmax(1.0, fabs(ju_w)), "%s: apply_jt is not the "
                  "transpose of apply_j: %.17g vs %.17g", c->map->cls->name, ju_w, u_jtw);
    cr_assert_leq(dense_err, 1e-12, "%s: apply_j differs from get_j's J", c->map->cls->name);
    free(u);
    free(w);
    free(J);
}

static void check_mapping(st_scene *s, double tol)
{
    mcase c = open_case(s);
    check_j(&c, tol);
    check_transpose(&c);
    st_scene_destroy(&s);
}

/* ---- per mapping ---- */

static const char *VEC3_PARENT =
    "        - MechanicalObject: {name: dofs, position: [0,0,0, 1,0,0, 0,1,0, 0,0,1, 1,1,1]}\n";

Test(mechanical_mappings, identity_vec3d)
{
    check_mapping(mapped_scene(VEC3_PARENT,
                               "            - MechanicalObject: {name: out}\n"
                               "            - IdentityMapping: {name: map, input: \"@../dofs\","
                               " output: \"@out\"}\n"),
                  1e-8);
}

Test(mechanical_mappings, identity_rigid3d)
{
    check_mapping(
        mapped_scene("        - MechanicalObject: {name: dofs, template: Rigid3d,\n"
                     "            position: [0,0,0, 0,0,0,1,  1,2,3, 0.6,0,0,0.8]}\n",
                     "            - MechanicalObject: {name: out, template: Rigid3d}\n"
                     "            - IdentityMapping: {name: map, input: \"@../dofs\","
                     " output: \"@out\"}\n"),
        1e-7);
}

Test(mechanical_mappings, identity_vec1d_and_vec2d)
{
    check_mapping(mapped_scene("        - MechanicalObject: {name: dofs, template: Vec1d,"
                               " position: [0, 1, 3]}\n",
                               "            - MechanicalObject: {name: out, template: Vec1d}\n"
                               "            - IdentityMapping: {name: map, input: \"@../dofs\","
                               " output: \"@out\"}\n"),
                  1e-8);
    check_mapping(mapped_scene("        - MechanicalObject: {name: dofs, template: Vec2d,"
                               " position: [0, 1, 3, 4]}\n",
                               "            - MechanicalObject: {name: out, template: Vec2d}\n"
                               "            - SubsetMapping: {name: map, input: \"@../dofs\","
                               " output: \"@out\", indices: [1]}\n"),
                  1e-8);
}

Test(mechanical_mappings, subset_mapping)
{
    st_scene *s = mapped_scene(VEC3_PARENT, "            - MechanicalObject: {name: out}\n"
                                            "            - SubsetMapping: {name: map, input: "
                                            "\"@../dofs\", output: \"@out\", indices: [3, 0, 3]}\n");
    st_mstate *out = (st_mstate *)topo_get(s, "/P/C/out");
    cr_assert_eq(out->n, 3u);
    check_mapping(s, 1e-8);
}

Test(mechanical_mappings, subset_mapping_first_last_and_radius)
{
    st_scene *s = mapped_scene(VEC3_PARENT, "            - MechanicalObject: {name: out}\n"
                                            "            - SubsetMapping: {name: map, input: "
                                            "\"@../dofs\", output: \"@out\", first: 1, last: 3}\n");
    st_mstate *out = (st_mstate *)topo_get(s, "/P/C/out");
    cr_assert_eq(out->n, 3u);
    cr_assert_eq(out->position.r[3 * 1 + 1], 1.0); /* output 1 is input 2 = (0,1,0) */
    st_scene_destroy(&s);
    s = mapped_scene(VEC3_PARENT,
                     "            - MechanicalObject: {name: out, position: [1,1,1, 0,0,1.000001,"
                     " 5,5,5]}\n"
                     "            - SubsetMapping: {name: map, input: \"@../dofs\", output: "
                     "\"@out\", radius: 0.001, ignoreNotFound: true}\n");
    const st_array *idx = topo_arr(topo_get(s, "/P/C/map"), "indices");
    cr_assert_eq(idx->n, 3u);
    cr_assert_eq(idx->u[0], 4u);
    cr_assert_eq(idx->u[1], 3u);
    cr_assert_eq(idx->u[2], 4294967295u, "a point without a match is SOFA's InvalidID");
    out = (st_mstate *)topo_get(s, "/P/C/out");
    cr_assert_eq(out->position.r[6], 5.0, "an unmatched point keeps its rest position");
    st_scene_destroy(&s);
}

#define BARY_CHILD                                                                                 \
    "            - MechanicalObject: {name: out, position: [0.2,0.3,0.1, 0.5,0.5,0.5, 2,0.5,-1,"    \
    " -0.3,1.2,0.4, 0.9,0.9,0.1]}\n"                                                              \
    "            - BarycentricMapping: {name: map, input: \"@../dofs\", output: \"@out\"}\n"

Test(mechanical_mappings, barycentric_tetrahedra)
{
    check_mapping(mapped_scene("        - MeshTopology: {position: [0,0,0, 1,0,0, 0,1,0, 0,0,1,"
                               " 1,1,1], tetrahedra: [0,1,2,3, 1,2,3,4]}\n"
                               "        - MechanicalObject: {name: dofs}\n",
                               BARY_CHILD),
                  1e-8);
}

Test(mechanical_mappings, barycentric_hexahedra)
{
    check_mapping(mapped_scene("        - MeshTopology: {position: [0,0,0, 1,0,0, 1,1,0, 0,1,0,"
                               " 0,0,1, 1,0,1, 1,1,1, 0,1,1, 2,0,0, 2,1,0, 2,0,1, 2,1,1],"
                               " hexahedra: [0,1,2,3,4,5,6,7, 1,8,9,2,5,10,11,6]}\n"
                               "        - MechanicalObject: {name: dofs}\n",
                               BARY_CHILD),
                  1e-8);
}

Test(mechanical_mappings, barycentric_regular_grid)
{
    check_mapping(mapped_scene("        - RegularGridTopology: {n: [3, 2, 2], min: [0, 0, 0],"
                               " max: [2, 1, 1]}\n"
                               "        - MechanicalObject: {name: dofs}\n",
                               BARY_CHILD),
                  1e-8);
}

Test(mechanical_mappings, barycentric_triangles_and_quads)
{
    check_mapping(mapped_scene("        - MeshTopology: {position: [0,0,0, 1,0,0, 0,1,0, 1,1,0,"
                               " 2,0,0, 2,1,0], triangles: [0,1,2, 1,3,2],"
                               " quads: [1,4,5,3]}\n"
                               "        - MechanicalObject: {name: dofs}\n",
                               BARY_CHILD),
                  1e-8);
}

Test(mechanical_mappings, barycentric_edges)
{
    check_mapping(mapped_scene("        - MeshTopology: {position: [0,0,0, 1,0,0, 2,0,0],"
                               " edges: [0,1, 1,2]}\n"
                               "        - MechanicalObject: {name: dofs}\n",
                               BARY_CHILD),
                  1e-8);
}

/* The weights of output point i on every input point, read from J. */
static void weights_of(st_scene *s, size_t i, double *w, size_t nin)
{
    mcase c = {s, NULL, topo_get(s, "/P/C/map"), NULL, NULL, 0, 0};
    c.in = c.map->cls->mapping->input(c.map);
    c.out = c.map->cls->mapping->output(c.map);
    c.sys = c.in->system;
    c.rows = 3 * c.out->n;
    c.cols = c.sys->size_all;
    double *J = malloc(c.rows * c.cols * sizeof *J);
    st_error err = {0};
    cr_assert_eq(st__mapgraph_dense_j(c.sys, c.map, J, c.rows, c.cols, &err), ST_OK, "%s",
                 err.msg);
    for (size_t k = 0; k < nin; k++) {
        w[k] = J[(3 * i) * c.cols + c.in->doffset + 3 * k];
        /* The block is w times the identity. */
        cr_assert_eq(J[(3 * i + 1) * c.cols + c.in->doffset + 3 * k + 1], w[k]);
        cr_assert_eq(J[(3 * i) * c.cols + c.in->doffset + 3 * k + 1], 0.0);
    }
    free(J);
}

static void assert_weights(const double *got, const double *want, size_t n, const char *what)
{
    for (size_t k = 0; k < n; k++)
        cr_assert_leq(fabs(got[k] - want[k]), 1e-14, "%s: weight of input point %zu is %.17g, "
                      "SOFA's is %.17g", what, k, got[k], want[k]);
}

/* Hand-checked outside points, SOFA's rules:
 * - regular grid [0,1]^3, point (1.5, 0.5, -0.25): nearest cube (the only
 *   one), fx = 1.5, fy = 0.5, fz = -0.25, trilinear weights extrapolated;
 * - two tetrahedra, point (2, 0.5, -1) outside both: the one whose centre
 *   is nearer (the second: squared distances 4.6875 and 4.5), coefficients
 *   (0.25, -1.25, 0.25) in its frame (edges from its vertex 1);
 *   point (0.5, 0.5, 0.5) inside the second: (0.25, 0.25, 0.25);
 * - edges 0-1-2 on x, point (3, 0, 0): no edge has a coefficient in [0, 1],
 *   the last edge with coefficient 2: weights (-1, 2);
 * - one triangle, point (2, 2, 0.5): coefficients (2, 2): weights
 *   (-3, 2, 2). */
Test(mechanical_mappings, barycentric_outside_points_take_sofa_coefficients)
{
    double w[8];
    st_scene *s = mapped_scene("        - RegularGridTopology: {n: [2, 2, 2], min: [0, 0, 0],"
                               " max: [1, 1, 1]}\n"
                               "        - MechanicalObject: {name: dofs}\n",
                               "            - MechanicalObject: {name: out, position: "
                               "[1.5, 0.5, -0.25]}\n"
                               "            - BarycentricMapping: {name: map, input: \"@../dofs\","
                               " output: \"@out\"}\n");
    weights_of(s, 0, w, 8);
    const double grid[8] = {-0.3125, 0.9375, -0.3125, 0.9375, 0.0625, -0.1875, 0.0625, -0.1875};
    assert_weights(w, grid, 8, "regular grid");
    st_scene_destroy(&s);

    s = mapped_scene("        - MeshTopology: {position: [0,0,0, 1,0,0, 0,1,0, 0,0,1, 1,1,1],"
                     " tetrahedra: [0,1,2,3, 1,2,3,4]}\n"
                     "        - MechanicalObject: {name: dofs}\n",
                     "            - MechanicalObject: {name: out, position: [2,0.5,-1,"
                     " 0.5,0.5,0.5]}\n"
                     "            - BarycentricMapping: {name: map, input: \"@../dofs\","
                     " output: \"@out\"}\n");
    weights_of(s, 0, w, 5);
    const double tet_out[5] = {0, 1.75, 0.25, -1.25, 0.25};
    assert_weights(w, tet_out, 5, "tetrahedra, outside");
    weights_of(s, 1, w, 5);
    const double tet_in[5] = {0, 0.25, 0.25, 0.25, 0.25};
    assert_weights(w, tet_in, 5, "tetrahedra, inside the second");
    st_scene_destroy(&s);

    s = mapped_scene("        - MeshTopology: {position: [0,0,0, 1,0,0, 2,0,0], edges: [0,1, 1,2]}\n"
                     "        - MechanicalObject: {name: dofs}\n",
                     "            - MechanicalObject: {name: out, position: [3, 0, 0]}\n"
                     "            - BarycentricMapping: {name: map, input: \"@../dofs\","
                     " output: \"@out\"}\n");
    weights_of(s, 0, w, 3);
    const double edge[3] = {0, -1, 2};
    assert_weights(w, edge, 3, "edges");
    st_scene_destroy(&s);

    s = mapped_scene("        - MeshTopology: {position: [0,0,0, 1,0,0, 0,1,0], triangles: [0,1,2]}\n"
                     "        - MechanicalObject: {name: dofs}\n",
                     "            - MechanicalObject: {name: out, position: [2, 2, 0.5]}\n"
                     "            - BarycentricMapping: {name: map, input: \"@../dofs\","
                     " output: \"@out\"}\n");
    weights_of(s, 0, w, 3);
    const double tri[3] = {-3, 2, 2};
    assert_weights(w, tri, 3, "triangle");
    st_scene_destroy(&s);
}

/* ---- RigidMapping ---- */

#define RIGID_PARENT                                                                               \
    "        - MechanicalObject: {name: dofs, template: Rigid3d,\n"                                \
    "            position: [0,0,0, 0,0,0,1,  1,2,3, 0.5,0.5,0.5,0.5]}\n"

Test(mechanical_mappings, rigid_mapping)
{
    check_mapping(mapped_scene(RIGID_PARENT,
                               "            - MechanicalObject: {name: out, position: [1,0,0,"
                               " 0,2,0.5, -1,0.3,0.2]}\n"
                               "            - RigidMapping: {name: map, input: \"@../dofs\","
                               " output: \"@out\", rigidIndexPerPoint: [0, 1, 1],"
                               " geometricStiffness: Exact}\n"),
                  1e-7);
}

Test(mechanical_mappings, rigid_mapping_index_and_global_to_local)
{
    /* indexFromEnd: rigid 1; globalToLocalCoords: the output keeps its
     * global position at init. */
    st_scene *s = mapped_scene(RIGID_PARENT,
                               "            - MechanicalObject: {name: out, position: [2,2,2]}\n"
                               "            - RigidMapping: {name: map, input: \"@../dofs\","
                               " output: \"@out\", index: 0, indexFromEnd: true,"
                               " globalToLocalCoords: true}\n");
    st_mstate *out = (st_mstate *)topo_get(s, "/P/C/out");
    for (int a = 0; a < 3; a++)
        cr_assert_leq(fabs(out->position.r[a] - 2.0), 1e-12, "x[%d] = %.17g", a,
                      out->position.r[a]);
    st_scene_destroy(&s);
    /* Without globalToLocalCoords the positions are local to rigid 1. */
    s = mapped_scene(RIGID_PARENT, "            - MechanicalObject: {name: out, position: [0,0,0]}\n"
                                   "            - RigidMapping: {name: map, input: \"@../dofs\","
                                   " output: \"@out\", index: 1}\n");
    out = (st_mstate *)topo_get(s, "/P/C/out");
    cr_assert_eq(out->position.r[0], 1.0);
    cr_assert_eq(out->position.r[2], 3.0);
    st_scene_destroy(&s);
}

/* Geometric stiffness: K = d(J^T f)/dx with f fixed, from apply_djt (after
 * update_k) and from the assembled matrix (get_k), against central
 * differences. */
Test(mechanical_mappings, rigid_mapping_geometric_stiffness)
{
    st_scene *s = mapped_scene(RIGID_PARENT,
                               "            - MechanicalObject: {name: out, position: [1,0,0,"
                               " 0,2,0.5, -1,0.3,0.2]}\n"
                               "            - RigidMapping: {name: map, input: \"@../dofs\","
                               " output: \"@out\", rigidIndexPerPoint: [0, 1, 1],"
                               " geometricStiffness: Exact}\n");
    mcase c = open_case(s);
    const st_mapping_ops *ops = c.map->cls->mapping;
    size_t n = c.sys->size_all, nx = c.sys->xsize_all;
    double *f = calloc(n, sizeof *f), *g = calloc(n, sizeof *g), *gp = calloc(n, sizeof *gp);
    double *x0 = malloc(nx * sizeof *x0), *xp = malloc(nx * sizeof *xp);
    double *dx = calloc(n, sizeof *dx), *df = calloc(n, sizeof *df);
    memcpy(x0, c.sys->x, nx * sizeof *x0);
    double *fo = st_slice(f, c.out);
    for (size_t k = 0; k < c.rows; k++)
        fo[k] = rnd();
    /* The assembled K (mass factor 0: only the geometric stiffness). */
    st_matrix *mat = NULL;
    st_error err = {0};
    ops->apply(c.map, &c.sys->mp, x0);
    ops->update_k(c.map, &c.sys->mp, f);
    cr_assert_eq(st_matrix_create(c.sys, &mat, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(mat, c.sys, 0.0, 0.0, 1.0, &err), ST_OK, "%s", err.msg);
    st_csr csr;
    st_matrix_csr(mat, &csr);
    const double eps = 1e-6;
    double worst_djt = 0.0, worst_k = 0.0, kmax = 0.0;
    for (size_t col = 0; col < c.sys->size; col++) {
        const st_mstate *ms = c.in;
        size_t p = (col - ms->doffset) / 6;
        unsigned a = (unsigned)((col - ms->doffset) % 6);
        double e[6] = {0};
        e[a] = 1.0;
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            memcpy(xp, x0, nx * sizeof *xp);
            double *xi = st_slice_x(xp, ms) + 7 * p;
            ms->type->add_deriv(xi, xi, e, sgn * eps, 1);
            ops->apply(c.map, &c.sys->mp, xp);
            memcpy(gp, f, n * sizeof *gp);
            memset(gp, 0, c.sys->size * sizeof *gp);
            ops->apply_jt(c.map, &c.sys->mp, gp);
            if (sgn < 0)
                memcpy(g, gp, n * sizeof *g);
        }
        /* apply_djt at x0 on the unit vector. */
        ops->apply(c.map, &c.sys->mp, x0);
        ops->update_k(c.map, &c.sys->mp, f);
        memset(dx, 0, n * sizeof *dx);
        memset(df, 0, n * sizeof *df);
        dx[col] = 1.0;
        ops->apply_djt(c.map, &c.sys->mp, df, dx, 1.0);
        for (size_t r = 0; r < c.sys->size; r++) {
            double fd = (gp[r] - g[r]) / (2 * eps);
            double kij = 0.0;
            for (int q = csr.rowptr[r]; q < csr.rowptr[r + 1]; q++)
                if ((size_t)csr.colind[q] == col)
                    kij = csr.values[q];
            worst_djt = fmax(worst_djt, fabs(fd - df[r]));
            worst_k = fmax(worst_k, fabs(fd - kij));
            kmax = fmax(kmax, fabs(fd));
        }
    }
    cr_log_info("RigidMapping geometric stiffness: max |K_djt - K_fd| = %.3g, max |K_asm - K_fd| "
                "= %.3g (max |K| %.3g)",
                worst_djt, worst_k, kmax);
    cr_assert_gt(kmax, 0.1, "the test force gives no geometric stiffness");
    cr_assert_leq(worst_djt, 1e-7 * kmax, "apply_djt differs from d(J^T f)/dx by %.3g", worst_djt);
    cr_assert_leq(worst_k, 1e-7 * kmax, "get_k differs from d(J^T f)/dx by %.3g", worst_k);
    st_matrix_destroy(&mat);
    free(f);
    free(g);
    free(gp);
    free(x0);
    free(xp);
    free(dx);
    free(df);
    st_scene_destroy(&s);
}

/* ---- the rigid pendulum ---- */

/* A Rigid3d body (mass 1, inertia 0.01 per unit mass about its centre)
 * whose point p = (0, L, 0) in its frame is mapped by a RigidMapping and
 * held at the origin by a stiff RestShapeSpringsForceField: a physical
 * pendulum of period 2 pi sqrt((I + L^2) / (g L)) for small angles. The
 * body starts at rest at angle theta0 about z. Returns the measured period
 * (mean of the half-periods between zero crossings of the angle). */
static double pendulum_period(const char *ls, const char *gs, double theta0, double dt,
                              double duration, double *final7)
{
    char yaml[4096];
    const double L = 1.0;
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  dt: %.17g\n"
             "  gravity: [0, -9.81, 0]\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [Sofa.Component.Mapping.NonLinear,"
             " Sofa.Component.ODESolver.Backward, Sofa.Component.LinearSolver.Iterative,"
             " Sofa.Component.LinearSolver.Direct, Sofa.Component.Mass,"
             " Sofa.Component.SolidMechanics.Spring]}\n"
             "  children:\n"
             "    - name: P\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - %s\n"
             "        - MechanicalObject: {name: dofs, template: Rigid3d,\n"
             "            position: [%.17g, %.17g, 0, 0, 0, %.17g, %.17g]}\n"
             "        - UniformMass: {vertexMass: \"1 1  0.01 0 0  0 0.01 0  0 0 0.01\"}\n"
             "      children:\n"
             "        - name: pivot\n"
             "          objects:\n"
             "            - MechanicalObject: {name: out, position: [0, %.17g, 0]}\n"
             "            - RigidMapping: {input: \"@../dofs\", output: \"@out\","
             " applyRestPosition: true, geometricStiffness: %s}\n"
             "            - RestShapeSpringsForceField: {stiffness: 1e5}\n",
             dt, ls, L * sin(theta0), -L * cos(theta0), sin(theta0 / 2), cos(theta0 / 2), L, gs);
    st_scene *s = topo_scene(&T, yaml);
    st_mstate *ms = (st_mstate *)topo_get(s, "/P/dofs");
    st_mstate *out = (st_mstate *)topo_get(s, "/P/pivot/out");
    cr_assert_leq(fabs(out->rest_position.r[1]), 1e-12, "the pivot rests at the origin");
    st_error err = {0};
    double prev = theta0, tprev = 0.0, first = -1.0, last = -1.0;
    int crossings = 0;
    long steps = lround(duration / dt);
    for (long k = 1; k <= steps; k++) {
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
        const double *q = ms->position.r + 3;
        double th = 2 * atan2(q[2], q[3]), t = k * dt;
        if ((prev > 0) != (th > 0)) {
            double tc = tprev + (t - tprev) * prev / (prev - th);
            if (first < 0)
                first = tc;
            last = tc;
            crossings++;
        }
        prev = th;
        tprev = t;
    }
    /* The pivot stayed put (the spring holds it to within m g / k). */
    cr_assert_leq(fabs(out->position.r[0]) + fabs(out->position.r[1]), 1e-3);
    if (final7)
        memcpy(final7, ms->position.r, 7 * sizeof(double));
    st_scene_destroy(&s);
    cr_assert_geq(crossings, 4, "the pendulum did not swing");
    return 2 * (last - first) / (crossings - 1);
}

Test(mechanical_mappings, rigid_pendulum_keeps_the_closed_form_period)
{
    const double theta0 = 0.02, L = 1.0, I = 0.01, g = 9.81;
    const double t0 = 2 * M_PI * sqrt((I + L * L) / (g * L)) * (1 + theta0 * theta0 / 16);
    struct {
        const char *ls, *gs;
    } runs[] = {
        {"SparseLDLSolver: {}", "None"},
        {"SparseLDLSolver: {}", "Exact"},
        {"CGLinearSolver: {iterations: 200, tolerance: 1e-14, threshold: 1e-30}", "Exact"},
        {"CGLinearSolver: {iterations: 200, tolerance: 1e-14, threshold: 1e-30}", "Stabilized"},
    };
    for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
        double t = pendulum_period(runs[k].ls, runs[k].gs, theta0, 1e-3, 7.0, NULL);
        cr_log_info("pendulum, %s, geometricStiffness %s: period %.6f s, closed form %.6f s, "
                    "relative error %.2e",
                    runs[k].ls, runs[k].gs, t, t0, fabs(t - t0) / t0);
        cr_assert_leq(fabs(t - t0) / t0, 5e-4, "%s/%s: period %.6f, closed form %.6f",
                      runs[k].ls, runs[k].gs, t, t0);
    }
}

/* ---- SubsetMultiMapping ---- */

Test(mechanical_mappings, subset_multi_mapping)
{
    /* A parent state a in P, a second one b in P/B (a sibling of the mapped
     * node C, which reads both). */
    static char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "        - MechanicalObject: {name: a, position: [0,0,0, 1,0,0, 2,0,0]}\n"
                  "      children:\n"
                  "        - name: B\n"
                  "          objects:\n"
                  "            - MechanicalObject: {name: b, position: [0,1,0, 1,1,0]}\n"
                  "        - name: C\n"
                  "          objects:\n"
                  "            - MechanicalObject: {name: out}\n"
                  "            - SubsetMultiMapping: {name: map, input: [\"@../a\", \"@../B/b\"],"
                  " output: \"@out\", indexPairs: [1, 1, 0, 2, 1, 0, 0, 0]}\n");
    st_scene *s = topo_scene(&T, yaml);
    st_mstate *out = (st_mstate *)topo_get(s, "/P/C/out");
    cr_assert_eq(out->n, 4u);
    cr_assert_eq(out->position.r[1], 1.0, "output 0 is b[1] = (1,1,0)");
    cr_assert_eq(out->position.r[3], 2.0, "output 1 is a[2] = (2,0,0)");
    check_mapping(s, 1e-8);
}

/* Two particles in two states joined by a spring that lives in a node
 * mapped from both (SubsetMultiMapping): the trajectory of the same two
 * particles in one state with the spring there, to 1e-12, with an explicit
 * solver, matrix-free CG and SparseLDLSolver. */
static void two_particles(const char *ode, const char *ls, bool mapped, int steps, double *out)
{
    static char yaml[8192];
    const char *spring = "SpringForceField: {spring: \"0 1 50 0.5 0.8\"}";
    if (!mapped)
        snprintf(yaml, sizeof yaml,
                 HEAD "        - %s\n"
                      "        - MechanicalObject: {name: a, position: [0,0,0, 1,0.2,0.1]}\n"
                      "        - UniformMass: {vertexMass: 1}\n"
                      "        - FixedProjectiveConstraint: {indices: [0]}\n"
                      "        - %s\n",
                 ls, spring);
    else
        snprintf(yaml, sizeof yaml,
                 HEAD "        - %s\n"
                      "      children:\n"
                      "        - name: A\n"
                      "          objects:\n"
                      "            - MechanicalObject: {name: a, position: [0,0,0]}\n"
                      "            - UniformMass: {vertexMass: 1}\n"
                      "            - FixedProjectiveConstraint: {indices: [0]}\n"
                      "        - name: B\n"
                      "          objects:\n"
                      "            - MechanicalObject: {name: b, position: [1,0.2,0.1]}\n"
                      "            - UniformMass: {vertexMass: 1}\n"
                      "        - name: S\n"
                      "          objects:\n"
                      "            - MechanicalObject: {name: pair}\n"
                      "            - SubsetMultiMapping: {input: [\"@../A/a\", \"@../B/b\"],"
                      " output: \"@pair\", indexPairs: [0, 0, 1, 0]}\n"
                      "            - %s\n",
                 ls, spring);
    /* The solver line replaces HEAD's. */
    char *p = strstr(yaml, "        - EulerImplicitSolver: {}\n");
    char head[256];
    snprintf(head, sizeof head, "        - %s\n", ode);
    size_t old = strlen("        - EulerImplicitSolver: {}\n");
    memmove(p + strlen(head), p + old, strlen(p + old) + 1);
    memcpy(p, head, strlen(head));
    p = strstr(yaml, "        - CGLinearSolver: {iterations: 100, tolerance: 1e-12, threshold: 1e-20}\n");
    old = strlen("        - CGLinearSolver: {iterations: 100, tolerance: 1e-12, threshold: 1e-20}\n");
    memmove(p, p + old, strlen(p + old) + 1);
    st_scene *s = topo_scene(&T, yaml);
    st_error err = {0};
    for (int k = 0; k < steps; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    const st_mstate *ms = (const st_mstate *)test_find_object(s, mapped ? "b" : "a");
    memcpy(out, ms->position.r + (mapped ? 0 : 3), 3 * sizeof(double));
    st_scene_destroy(&s);
}

Test(mechanical_mappings, subset_multi_mapping_spring_acts_on_both_parents)
{
    struct {
        const char *ode, *ls;
    } cases[] = {
        {"EulerExplicitSolver: {symplectic: true}", "VisualStyle: {}"},
        {"EulerImplicitSolver: {rayleighStiffness: 0.1}",
         "CGLinearSolver: {iterations: 100, tolerance: 1e-15, threshold: 1e-30}"},
        {"EulerImplicitSolver: {rayleighStiffness: 0.1}", "SparseLDLSolver: {}"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        double ref[3], got[3];
        two_particles(cases[k].ode, cases[k].ls, false, 100, ref);
        two_particles(cases[k].ode, cases[k].ls, true, 100, got);
        double d = fmax(fabs(ref[0] - got[0]), fmax(fabs(ref[1] - got[1]), fabs(ref[2] - got[2])));
        cr_log_info("SubsetMultiMapping spring, %s: max |x - x_one_state| = %.3g (x = %g %g %g)",
                    cases[k].ls, d, got[0], got[1], got[2]);
        cr_assert_lt(ref[1], 0.15, "the particle did not move");
        cr_assert_leq(d, 1e-12, "%s: %.3g", cases[k].ls, d);
    }
}

/* The geometric stiffness in the assembled path (get_k through
 * SparseLDLSolver) and in the matrix-free one (apply_djt inside CG) gives
 * the same motion to round-off; without it the motion differs. */
Test(mechanical_mappings, rigid_pendulum_assembled_and_matrix_free_agree)
{
    const char *cg = "CGLinearSolver: {iterations: 1000, tolerance: 1e-20, threshold: 1e-30}";
    const char *gss[] = {"Exact", "Stabilized"};
    double none[7];
    pendulum_period("SparseLDLSolver: {}", "None", 0.3, 1e-2, 5.0, none);
    for (size_t k = 0; k < 2; k++) {
        double a[7], b[7], d = 0.0, dn = 0.0;
        pendulum_period("SparseLDLSolver: {}", gss[k], 0.3, 1e-2, 5.0, a);
        pendulum_period(cg, gss[k], 0.3, 1e-2, 5.0, b);
        for (int i = 0; i < 7; i++) {
            d = fmax(d, fabs(a[i] - b[i]));
            dn = fmax(dn, fabs(a[i] - none[i]));
        }
        cr_log_info("pendulum (0.3 rad, dt 0.01, 500 steps), geometricStiffness %s: |LDL - CG| = "
                    "%.3g, |with - without| = %.3g",
                    gss[k], d, dn);
        cr_assert_leq(d, 1e-9, "%s: LDL and CG differ by %.3g", gss[k], d);
        cr_assert_gt(dn, 1e-6, "%s: the geometric stiffness changes nothing", gss[k]);
    }
}

/* ---- DistanceMapping and SquareDistanceMapping ---- */

#define EDGE_PARENT                                                                                \
    "        - MechanicalObject: {name: dofs, position: [0,0,0, 1,0.2,0, 0.3,1.1,0.4, "            \
    "-0.5,0.2,1]}\n"                                                                               \
    "        - MeshTopology: {name: topo, edges: [0,1, 1,2, 3,1, 2,0, 2,3]}\n"
#define RIGID_EDGE_PARENT                                                                          \
    "        - MechanicalObject: {name: dofs, template: Rigid3d,\n"                                \
    "            position: [0,0,0, 0,0,0,1,  1,2,3, 0.5,0.5,0.5,0.5,  -1,0.5,2, 0,0,0.6,0.8]}\n" \
    "        - MeshTopology: {name: topo, edges: [0,1, 2,1, 0,2]}\n"

static st_scene *distance_scene(const char *parent, const char *cls, const char *extra)
{
    char child[1024];
    snprintf(child, sizeof child,
             "            - MechanicalObject: {name: out, template: Vec1d}\n"
             "            - %s: {name: map, input: \"@../dofs\", output: \"@out\","
             " topology: \"@../topo\"%s}\n",
             cls, extra);
    return mapped_scene(parent, child);
}

Test(mechanical_mappings, distance_mapping_vec3d)
{
    check_mapping(distance_scene(EDGE_PARENT, "DistanceMapping", ""), 1e-7);
}

Test(mechanical_mappings, distance_mapping_rigid3d)
{
    check_mapping(distance_scene(RIGID_EDGE_PARENT, "DistanceMapping", ""), 1e-7);
}

Test(mechanical_mappings, square_distance_mapping_vec3d)
{
    check_mapping(distance_scene(EDGE_PARENT, "SquareDistanceMapping", ""), 1e-7);
}

Test(mechanical_mappings, square_distance_mapping_rigid3d)
{
    check_mapping(distance_scene(RIGID_EDGE_PARENT, "SquareDistanceMapping", ""), 1e-7);
}

/* K = d(J^T f)/dx with the child force f fixed (random, sign sgn when not
 * 0), from apply_djt after update_k and from get_k, against central
 * differences, for any input type. Returns max |K_fd|. */
static double check_gs(st_scene *s, int sgn_f, double *worst_out)
{
    mcase c = open_case(s);
    const st_mapping_ops *ops = c.map->cls->mapping;
    const st_mstate *ms = c.in;
    const unsigned cw = ms->type->coord_size, dw = ms->type->deriv_size;
    size_t n = c.sys->size_all, nx = c.sys->xsize_all;
    double *f = calloc(n, sizeof *f), *g = calloc(n, sizeof *g), *gp = calloc(n, sizeof *gp);
    double *x0 = malloc(nx * sizeof *x0), *xp = malloc(nx * sizeof *xp);
    double *dx = calloc(n, sizeof *dx), *df = calloc(n, sizeof *df);
    memcpy(x0, c.sys->x, nx * sizeof *x0);
    double *fo = st_slice(f, c.out);
    for (size_t k = 0; k < c.rows; k++)
        fo[k] = sgn_f ? sgn_f * (0.5 + fabs(rnd())) : rnd();
    st_matrix *mat = NULL;
    st_error err = {0};
    ops->apply(c.map, &c.sys->mp, x0);
    ops->update_k(c.map, &c.sys->mp, f);
    cr_assert_eq(st_matrix_create(c.sys, &mat, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(mat, c.sys, 0.0, 0.0, 1.0, &err), ST_OK, "%s", err.msg);
    st_csr csr;
    st_matrix_csr(mat, &csr);
    const double eps = 1e-6;
    double worst = 0.0, kmax = 0.0;
    for (size_t col = ms->doffset; col < ms->doffset + (size_t)dw * ms->n; col++) {
        size_t p = (col - ms->doffset) / dw;
        double e[6] = {0};
        e[(col - ms->doffset) % dw] = 1.0;
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            memcpy(xp, x0, nx * sizeof *xp);
            double *xi = st_slice_x(xp, ms) + (size_t)cw * p;
            ms->type->add_deriv(xi, xi, e, sgn * eps, 1);
            ops->apply(c.map, &c.sys->mp, xp);
            memcpy(gp, f, n * sizeof *gp);
            memset(gp, 0, c.sys->size * sizeof *gp);
            ops->apply_jt(c.map, &c.sys->mp, gp);
            if (sgn < 0)
                memcpy(g, gp, n * sizeof *g);
        }
        ops->apply(c.map, &c.sys->mp, x0);
        ops->update_k(c.map, &c.sys->mp, f);
        memset(dx, 0, n * sizeof *dx);
        memset(df, 0, n * sizeof *df);
        dx[col] = 1.0;
        ops->apply_djt(c.map, &c.sys->mp, df, dx, 1.0);
        for (size_t r = 0; r < c.sys->size; r++) {
            double fd = (gp[r] - g[r]) / (2 * eps);
            double kij = 0.0;
            for (int q = csr.rowptr[r]; q < csr.rowptr[r + 1]; q++)
                if ((size_t)csr.colind[q] == col)
                    kij = csr.values[q];
            /* apply_djt and get_k agree with each other in every case */
            cr_assert_leq(fabs(df[r] - kij), 1e-12 * fmax(1.0, fabs(kij)),
                          "apply_djt %.17g and get_k %.17g differ at (%zu, %zu)", df[r], kij, r,
                          col);
            worst = fmax(worst, fabs(fd - df[r]));
            kmax = fmax(kmax, fabs(fd));
        }
    }
    st_matrix_destroy(&mat);
    free(f), free(g), free(gp), free(x0), free(xp), free(dx), free(df);
    st_scene_destroy(&s);
    *worst_out = worst;
    return kmax;
}

static void check_gs_exact(const char *parent, const char *cls)
{
    double worst, kmax = check_gs(distance_scene(parent, cls, ", geometricStiffness: Exact"), 0,
                                  &worst);
    cr_log_info("%s geometric stiffness: max |K - K_fd| = %.3g (max |K| %.3g)", cls, worst, kmax);
    cr_assert_gt(kmax, 0.1, "the test force gives no geometric stiffness");
    cr_assert_leq(worst, 1e-7 * kmax, "%s: K differs from d(J^T f)/dx by %.3g", cls, worst);
}

Test(mechanical_mappings, distance_mapping_geometric_stiffness)
{
    check_gs_exact(EDGE_PARENT, "DistanceMapping");
    check_gs_exact(RIGID_EDGE_PARENT, "DistanceMapping");
    check_gs_exact(EDGE_PARENT, "SquareDistanceMapping");
    check_gs_exact(RIGID_EDGE_PARENT, "SquareDistanceMapping");
}

/* Stabilized (the default): only pulled edges (f < 0) keep their geometric
 * stiffness; None: none. */
Test(mechanical_mappings, distance_mapping_stabilized_and_none)
{
    static const char *const cls[] = {"DistanceMapping", "SquareDistanceMapping"};
    for (int k = 0; k < 2; k++) {
        double worst, kmax;
        kmax = check_gs(distance_scene(EDGE_PARENT, cls[k], ""), -1, &worst);
        cr_assert_gt(kmax, 0.1, "%s: pulled edges keep K", cls[k]);
        cr_assert_leq(worst, 1e-7 * kmax, "%s: stabilized K on pulled edges is exact", cls[k]);
        /* pushed edges: the finite difference is not zero, K is */
        kmax = check_gs(distance_scene(EDGE_PARENT, cls[k], ""), 1, &worst);
        cr_assert_gt(kmax, 0.1);
        cr_assert_leq(fabs(worst - kmax), 1e-7 * kmax, "%s: K of pushed edges is zero", cls[k]);
        kmax = check_gs(distance_scene(EDGE_PARENT, cls[k], ", geometricStiffness: 0"), -1,
                        &worst);
        cr_assert_leq(fabs(worst - kmax), 1e-7 * kmax, "%s: None gives no K", cls[k]);
    }
}

/* One edge from (0,0,0) to (3,4,0): length 5, u = (0.6, 0.8, 0). */
#define ONE_EDGE                                                                                   \
    "        - MechanicalObject: {name: dofs, position: [0,0,0, 3,4,0]}\n"                         \
    "        - MeshTopology: {name: topo, edges: [0,1]}\n"

static void one_edge(const char *cls, const char *extra, double *y, double *J, double *djt)
{
    st_scene *s = distance_scene(ONE_EDGE, cls, extra);
    mcase c = open_case(s); /* moves the input: put it back */
    st_mstate *in = c.in;
    double *x = st_slice_x(c.sys->x, in);
    const double p[6] = {0, 0, 0, 3, 4, 0};
    memcpy(x, p, sizeof p);
    const st_mapping_ops *ops = c.map->cls->mapping;
    ops->apply(c.map, &c.sys->mp, c.sys->x);
    *y = st_slice_x(c.sys->x, c.out)[0];
    st_error err = {0};
    double *Jall = calloc(c.cols, sizeof *Jall); /* the input's 6 columns and the output's */
    cr_assert_eq(st__mapgraph_dense_j(c.sys, c.map, Jall, 1, c.cols, &err), ST_OK, "%s",
                 err.msg);
    memcpy(J, Jall + in->doffset, 6 * sizeof *J);
    free(Jall);
    /* the child force -1 (pulling), then df for dx = e_x on point 1 */
    size_t n = c.sys->size_all;
    double *f = calloc(n, sizeof *f), *dx = calloc(n, sizeof *dx);
    st_slice(f, c.out)[0] = -1;
    ops->update_k(c.map, &c.sys->mp, f);
    st_slice(dx, in)[3] = 1;
    memset(djt, 0, 6 * sizeof *djt);
    double *df = calloc(n, sizeof *df);
    ops->apply_djt(c.map, &c.sys->mp, df, dx, 1.0);
    memcpy(djt, st_slice(df, in), 6 * sizeof *djt);
    free(f), free(dx), free(df);
    st_scene_destroy(&s);
}

static void assert_vec(const double *got, const double *want, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        cr_assert_leq(fabs(got[i] - want[i]), 1e-14, "%s[%d] = %.17g, want %.17g", what, i,
                      got[i], want[i]);
}

Test(mechanical_mappings, distance_mapping_one_edge_by_hand)
{
    double y, J[6], djt[6];
    /* y = 5 - 2; J = (-u, u); K = f/5 (I - u u^T), (I - u u^T) e_x =
     * (0.64, -0.48, 0): df_1 = -0.2 (0.64, -0.48, 0), df_0 the opposite. */
    one_edge("DistanceMapping", ", restLengths: [2]", &y, J, djt);
    cr_assert_leq(fabs(y - 3), 1e-14, "y = %.17g", y);
    const double Jw[6] = {-0.6, -0.8, 0, 0.6, 0.8, 0};
    assert_vec(J, Jw, 6, "J");
    const double dw[6] = {0.128, -0.096, 0, -0.128, 0.096, 0};
    assert_vec(djt, dw, 6, "df");
    /* Rest length from the initial length: y = 0. */
    one_edge("DistanceMapping", "", &y, J, djt);
    cr_assert_leq(fabs(y), 1e-14, "y = %.17g", y);
    /* computeDistance: rest length 0, y = 5. */
    one_edge("DistanceMapping", ", computeDistance: true", &y, J, djt);
    cr_assert_leq(fabs(y - 5), 1e-14, "y = %.17g", y);
    /* y = 25; J = 2 (-r, r); K = 2 f I: df_1 = (-2, 0, 0). */
    one_edge("SquareDistanceMapping", "", &y, J, djt);
    cr_assert_leq(fabs(y - 25), 1e-13, "y = %.17g", y);
    const double Js[6] = {-6, -8, 0, 6, 8, 0};
    assert_vec(J, Js, 6, "J");
    const double ds[6] = {2, 0, 0, -2, 0, 0};
    assert_vec(djt, ds, 6, "df");
}

/* A string of 20 points, 0.05 i (1, 0, 0.3) for i = 0..19 (point 0
 * fixed, DiagonalMass 0.01 in all), each edge's mapped length held by a
 * Vec1d RestShapeSpringsForceField (10000), EulerImplicitSolver (Rayleigh
 * 0.1, 0.1), CGLinearSolver (1000, 1e-9, 1e-9), dt 0.01, 100 steps. The CG
 * stops on its denominator threshold with a large residual, so a last-bit
 * difference in J v or in the geometric stiffness's product grows to a
 * visible one: with J v summed as g . (v_b - v_a) and kfactor (B d)
 * instead of SOFA's order of operations, SquareDistanceMapping ended 7.5e-5
 * from SOFA (SOFA's own SquareDistanceMapping.scn regression scene: mean
 * errorByDof 2.1e-4 against a threshold of 1e-8) and DistanceMapping 1.4e-12.
 * Expected: SOFA's positions after step 100 (SOFA 2a278d89, Release build,
 * tools/sofa-oracle/run_scene on the same scene in SOFA's XML, printed with
 * 17 digits); settee gives the same bits (x86-64: no FMA contraction). */
static void sofa_string(const char *mapping, const double want[3][3], double tol)
{
    static char yaml[8192];
    char pos[2048] = "", edges[512] = "";
    size_t lp = 0, le = 0;
    for (int i = 0; i < 20; i++) {
        lp += (size_t)snprintf(pos + lp, sizeof pos - lp, "%s%g, 0, %g", i ? ", " : "", 0.05 * i,
                               0.015 * i);
        if (i < 19)
            le += (size_t)snprintf(edges + le, sizeof edges - le, "%s%d, %d", i ? ", " : "", i,
                                   i + 1);
    }
    snprintf(yaml, sizeof yaml,
             ROOT_HEAD
             "    - RequiredPlugin: {pluginName: [Sofa.Component.Mapping.NonLinear,"
             " Sofa.Component.ODESolver.Backward, Sofa.Component.LinearSolver.Iterative,"
             " Sofa.Component.Mass, Sofa.Component.Topology.Container.Dynamic,"
             " Sofa.Component.SolidMechanics.Spring, Sofa.Component.Constraint.Projective]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "    - EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}\n"
             "    - CGLinearSolver: {iterations: 1000, tolerance: 1e-9, threshold: 1e-9}\n"
             "    - EdgeSetTopologyContainer: {name: topo, position: [%s], edges: [%s]}\n"
             "    - MechanicalObject: {name: dofs, template: Vec3d}\n"
             "    - FixedProjectiveConstraint: {indices: [0]}\n"
             "    - DiagonalMass: {totalMass: 0.01}\n"
             "  children:\n"
             "    - name: C\n"
             "      objects:\n"
             "        - MechanicalObject: {name: ext, template: Vec1d}\n"
             "        - %s: {topology: \"@../topo\", input: \"@../dofs\", output: \"@ext\","
             " geometricStiffness: Exact, applyRestPosition: true}\n"
             "        - RestShapeSpringsForceField: {template: Vec1d, stiffness: 10000}\n",
             pos, edges, mapping);
    st_scene *s = topo_scene(&T, yaml);
    st_error err = {0};
    for (int k = 0; k < 100; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    const double *x = ((const st_mstate *)topo_get(s, "/dofs"))->position.r;
    static const int pts[3] = {5, 12, 19};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            cr_assert_leq(fabs(x[3 * pts[i] + k] - want[i][k]), tol,
                          "%s: point %d [%d] = %.17g, SOFA %.17g", mapping, pts[i], k,
                          x[3 * pts[i] + k], want[i][k]);
    st_scene_destroy(&s);
}

Test(mechanical_mappings, square_distance_string_matches_sofa)
{
    static const double want[3][3] = {
        {-0.094784261480810303, -0.24526867818062731, -0.028435278444243109},
        {-0.25553181319360219, -0.57387220987077736, -0.076659543958080667},
        {-0.34074538857051367, -0.91032143043263891, -0.10222361657115399}};
    sofa_string("SquareDistanceMapping", want, 1e-9);
}

Test(mechanical_mappings, distance_string_matches_sofa)
{
    static const double want[3][3] = {
        {0.1722484363856813, -0.18870600661187759, 0.05167453091570437},
        {0.4797656413795483, -0.35705234045284434, 0.14392969241386455},
        {0.82216765732160957, -0.3239717385996902, 0.24665029719648271}};
    sofa_string("DistanceMapping", want, 1e-13);
}

Test(mechanical_mappings, distance_mapping_rest_lengths_and_errors)
{
    /* restLengths of the wrong size: resized and recomputed from the
     * lengths (SOFA's rule), here 1.0198039 (0,1) and 1.0 (2,3)... */
    st_scene *s = mapped_scene(EDGE_PARENT, "            - MechanicalObject: {name: out, "
                                            "template: Vec1d}\n"
                                            "            - DistanceMapping: {name: map, input: "
                                            "\"@../dofs\", output: \"@out\", topology: "
                                            "\"@../topo\", restLengths: [7]}\n");
    st_component *map = topo_get(s, "/P/C/map");
    const st_array *rl = st_component_field_ptr(map, st_component_field(map, "restLengths"));
    cr_assert_eq(rl->n, 5);
    cr_assert_leq(fabs(rl->r[0] - sqrt(1.04)), 1e-15, "rest 0 = %.17g", rl->r[0]);
    st_mstate *out = (st_mstate *)topo_get(s, "/P/C/out");
    cr_assert_eq(out->n, 5, "one output per edge");
    st_scene_destroy(&s);
    /* computeDistance with a short list: kept values, zeros after. */
    s = mapped_scene(EDGE_PARENT, "            - MechanicalObject: {name: out, template: Vec1d}\n"
                                  "            - DistanceMapping: {name: map, input: "
                                  "\"@../dofs\", output: \"@out\", topology: \"@../topo\", "
                                  "restLengths: [7], computeDistance: true}\n");
    map = topo_get(s, "/P/C/map");
    rl = st_component_field_ptr(map, st_component_field(map, "restLengths"));
    cr_assert(rl->n == 5 && rl->r[0] == 7 && rl->r[1] == 0 && rl->r[4] == 0);
    st_scene_destroy(&s);

    char yaml[8192];
    st_error err = {0};
    /* No edges. */
    snprintf(yaml, sizeof yaml, HEAD "%s      children:\n        - name: C\n          objects:\n%s",
             "        - MechanicalObject: {name: dofs, position: [0,0,0, 1,0,0]}\n"
             "        - MeshTopology: {name: topo, triangles: []}\n",
             "            - MechanicalObject: {name: out, template: Vec1d}\n"
             "            - DistanceMapping: {name: map, input: \"@../dofs\", output: \"@out\","
             " topology: \"@../topo\"}\n");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "No topology component containing edges"), "%s", err.msg);
    /* A Vec3d output. */
    snprintf(yaml, sizeof yaml, HEAD "%s      children:\n        - name: C\n          objects:\n%s",
             ONE_EDGE,
             "            - MechanicalObject: {name: out}\n"
             "            - SquareDistanceMapping: {name: map, input: \"@../dofs\", output: "
             "\"@out\", topology: \"@../topo\"}\n");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "Vec1d output"), "%s", err.msg);
    /* An edge on a missing point. */
    snprintf(yaml, sizeof yaml, HEAD "%s      children:\n        - name: C\n          objects:\n%s",
             "        - MechanicalObject: {name: dofs, position: [0,0,0, 1,0,0]}\n"
             "        - MeshTopology: {name: topo, edges: [0,2]}\n",
             "            - MechanicalObject: {name: out, template: Vec1d}\n"
             "            - DistanceMapping: {name: map, input: \"@../dofs\", output: \"@out\","
             " topology: \"@../topo\"}\n");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "uses point 2"), "%s", err.msg);
}

/* DistanceMapping reads its edges once (SOFA's outputs would keep their
 * old count): removing an edge of its topology is refused, naming it. */
Test(mechanical_mappings, distance_mapping_refuses_topology_changes)
{
    static const char *yaml =
        "format: settee/1\n"
        "root:\n"
        "  name: root\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Dynamic,"
        " Sofa.Component.Mapping.NonLinear, Sofa.Component.StateContainer]}\n"
        "  children:\n"
        "    - name: P\n"
        "      objects:\n"
        "        - EdgeSetTopologyContainer: {name: topo, position: [0,0,0, 1,0,0, 1,1,0],"
        " edges: [0,1, 1,2]}\n"
        "        - EdgeSetTopologyModifier: {}\n"
        "        - MechanicalObject: {name: dofs}\n"
        "      children:\n"
        "        - name: C\n"
        "          objects:\n"
        "            - MechanicalObject: {name: out, template: Vec1d}\n"
        "            - DistanceMapping: {name: map, input: \"@../dofs\", output: \"@out\","
        " topology: \"@../topo\"}\n";
    st_scene *s = topo_scene(&T, yaml);
    st_error err = {0};
    const unsigned id = 1;
    cr_assert_neq(st_topology_remove(topo_get(s, "/P/topo"), ST_ELEM_EDGE, &id, 1, &err), ST_OK,
                  "the change must be refused");
    cr_assert(strstr(err.msg, "map") || strstr(err.path, "map"), "%s: %s", err.path, err.msg);
    st_scene_destroy(&s);
}

/* ---- DistanceFromTargetMapping ---- */

static st_scene *target_scene(const char *parent, const char *fields)
{
    char child[1024];
    snprintf(child, sizeof child,
             "            - MechanicalObject: {name: out, template: Vec1d}\n"
             "            - DistanceFromTargetMapping: {name: map, input: \"@../dofs\","
             " output: \"@out\", %s}\n",
             fields);
    return mapped_scene(parent, child);
}

#define TARGETS_VEC3 "indices: [1, 3, 2], targetPositions: [[0.5,0.5,0.5], [1,-1,0], [0,2,1]]"

Test(mechanical_mappings, distance_from_target_mapping_jacobians)
{
    check_mapping(target_scene(EDGE_PARENT, TARGETS_VEC3 ", restLengths: [0.1, 0, 2]"), 1e-7);
    check_mapping(target_scene(RIGID_EDGE_PARENT,
                               "indices: [2, 0], targetPositions: \"0 1 0 0 0 0 1  3 3 3 0 0 0 "
                               "1\""),
                  1e-7);
    check_mapping(target_scene("        - MechanicalObject: {name: dofs, template: Vec1d,"
                               " position: [0.5, -2, 3]}\n",
                               "indices: [2, 1], targetPositions: [1, 1]"),
                  1e-7);
    double worst, kmax = check_gs(target_scene(EDGE_PARENT, TARGETS_VEC3
                                               ", geometricStiffness: Exact"),
                                  0, &worst);
    cr_log_info("DistanceFromTargetMapping geometric stiffness: max |K - K_fd| = %.3g (max |K| "
                "%.3g)",
                worst, kmax);
    cr_assert_gt(kmax, 0.1, "the test force gives no geometric stiffness");
    cr_assert_leq(worst, 1e-7 * kmax, "K differs from d(J^T f)/dx by %.3g", worst);
    /* Stabilized: pulled outputs only. */
    kmax = check_gs(target_scene(EDGE_PARENT, TARGETS_VEC3), 1, &worst);
    cr_assert_leq(fabs(worst - kmax), 1e-7 * kmax, "K of pushed outputs is zero");
}

/* Point (3, 4, 0) from target (0, 0, 0), rest length 1: y = 4, J = (0.6,
 * 0.8, 0); a pull of 1 gives K = -(1/5) (I - u u^T). Indices left out are
 * completed with 0, 1, ...; rest lengths with zeros. */
Test(mechanical_mappings, distance_from_target_mapping_by_hand)
{
    st_scene *s = target_scene("        - MechanicalObject: {name: dofs, position: [3,4,0, "
                               "1,1,1]}\n",
                               "targetPositions: [[0,0,0], [1,1,3]], restLengths: [1]");
    st_component *map = test_find_object(s, "map");
    const st_array *idx = st_component_field_ptr(map, st_component_field(map, "indices"));
    const st_array *rest = st_component_field_ptr(map, st_component_field(map, "restLengths"));
    cr_assert_eq(idx->n, 2u);
    cr_assert_eq(idx->u[0], 0u);
    cr_assert_eq(idx->u[1], 1u);
    cr_assert_eq(rest->n, 2u);
    cr_assert_eq(rest->r[1], 0.0);
    const st_mstate *out = (const st_mstate *)topo_get(s, "/P/C/out");
    cr_assert_eq(out->n, 2u);
    cr_assert_leq(fabs(out->position.r[0] - 4.0), 1e-15, "y0 %.17g", out->position.r[0]);
    cr_assert_leq(fabs(out->position.r[1] - 2.0), 1e-15, "y1 %.17g", out->position.r[1]);
    mcase c = open_case(s);
    double *x = st_slice_x(c.sys->x, c.in);
    const double p[6] = {3, 4, 0, 1, 1, 1};
    memcpy(x, p, sizeof p);
    const st_mapping_ops *ops = c.map->cls->mapping;
    ops->apply(c.map, &c.sys->mp, c.sys->x);
    size_t n = c.sys->size_all;
    double *f = calloc(n, sizeof *f), *dx = calloc(n, sizeof *dx), *df = calloc(n, sizeof *df);
    st_slice(f, c.out)[0] = 2.0;
    ops->apply_jt(c.map, &c.sys->mp, f);
    const double *fin = st_slice(f, c.in);
    cr_assert_leq(fabs(fin[0] - 1.2) + fabs(fin[1] - 1.6) + fabs(fin[2]), 1e-15);
    memset(f, 0, n * sizeof *f);
    st_slice(f, c.out)[0] = -1.0;
    ops->update_k(c.map, &c.sys->mp, f);
    st_slice(dx, c.in)[0] = 1.0;
    ops->apply_djt(c.map, &c.sys->mp, df, dx, 1.0);
    const double *d = st_slice(df, c.in);
    /* -(1/5) (1 - 0.36, -0.48, 0) */
    cr_assert_leq(fabs(d[0] + 0.128) + fabs(d[1] - 0.096) + fabs(d[2]), 1e-15, "%g %g %g", d[0],
                  d[1], d[2]);
    free(f), free(dx), free(df);
    st_scene_destroy(&s);
}

Test(mechanical_mappings, distance_from_target_mapping_refusals)
{
    st_error err = {0};
    char yaml[8192];
    snprintf(yaml, sizeof yaml,
             HEAD EDGE_PARENT "      children:\n"
                              "        - name: C\n"
                              "          objects:\n"
                              "            - MechanicalObject: {name: out, template: Vec1d}\n"
                              "            - DistanceFromTargetMapping: {input: \"@../dofs\","
                              " output: \"@out\", indices: [0, 7], targetPositions: [[0,0,0], "
                              "[1,1,1]]}\n");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "index 7 is out of range"), "%s", err.msg);
    snprintf(yaml, sizeof yaml,
             HEAD EDGE_PARENT "      children:\n"
                              "        - name: C\n"
                              "          objects:\n"
                              "            - MechanicalObject: {name: out, template: Vec1d}\n"
                              "            - DistanceFromTargetMapping: {input: \"@../dofs\","
                              " output: \"@out\", indices: [0, 1], targetPositions: [[0,0,0]]}\n");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "1 target positions for 2 indices"), "%s", err.msg);
    /* Rigid3d: SOFA's identity on the rotations, said. */
    st_scene *s =
        target_scene(RIGID_EDGE_PARENT, "indices: [1], targetPositions: \"0 0 0 0 0 0 1\"");
    cr_assert(strstr(T.log, "Rigid3d input: SOFA's geometric stiffness"), "%s", T.log);
    st_scene_destroy(&s);
}

/* A particle pendulum made of DistanceFromTargetMapping and a stiff spring
 * on its output: the matrix-free path (CG: apply_j, apply_jt, apply_djt)
 * and the assembled one (SparseLDLSolver: get_j, get_k) give the same
 * trajectory, and the distance stays near its rest length. */
static void target_pendulum(const char *solver, double out[3])
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             ROOT_HEAD
             "    - RequiredPlugin: {pluginName: [Mapping.NonLinear, ODESolver.Backward,\n"
             "        LinearSolver.Iterative, LinearSolver.Direct, Mass, SolidMechanics.Spring]}\n"
             "  children:\n"
             "    - name: P\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - %s\n"
             "        - MechanicalObject: {name: dofs, position: [1, 0, 0], velocity: [0, 0, 1]}\n"
             "        - UniformMass: {vertexMass: 1}\n"
             "      children:\n"
             "        - name: C\n"
             "          objects:\n"
             "            - MechanicalObject: {name: out, template: Vec1d}\n"
             "            - DistanceFromTargetMapping: {targetPositions: [[0, 0, 0]],\n"
             "                restLengths: [1], geometricStiffness: Exact}\n"
             "            - RestShapeSpringsForceField: {stiffness: 1e4}\n",
             solver);
    st_scene *s = topo_scene(&T, yaml);
    for (int i = 0; i < 100; i++) {
        st_error err = {0};
        cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "%s", err.msg);
    }
    const st_mstate *ms = (const st_mstate *)topo_get(s, "/P/dofs");
    memcpy(out, ms->position.p, 3 * sizeof *out);
    st_scene_destroy(&s);
}

Test(mechanical_mappings, distance_from_target_mapping_solver_paths_agree)
{
    double a[3], b[3];
    target_pendulum("CGLinearSolver: {iterations: 200, tolerance: 1e-30, threshold: 1e-30}", a);
    target_pendulum("SparseLDLSolver: {}", b);
    double d = fabs(a[0] - b[0]) + fabs(a[1] - b[1]) + fabs(a[2] - b[2]);
    double r = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    cr_log_info("CG %g %g %g, LDL %g %g %g, |x| %.6g", a[0], a[1], a[2], b[0], b[1], b[2], r);
    cr_assert_leq(d, 1e-9, "CG and SparseLDL differ by %.3g", d);
    cr_assert_lt(a[1], -0.1, "the pendulum swings down: y %g", a[1]);
    cr_assert_leq(fabs(r - 1.0), 2e-2, "the distance stays near 1: %g", r);
}

/* ---- TubularMapping ---- */

#define TUBE_PARENT                                                                                \
    "        - MechanicalObject: {name: dofs, template: Rigid3d,\n"                                \
    "            position: [0,0,0, 0,0,0,1,  1,2,3, 0.5,0.5,0.5,0.5,  -1,0.5,2, 0,0,0.6,0.8]}\n"

static st_scene *tube_scene(const char *fields)
{
    char child[1024];
    snprintf(child, sizeof child,
             "            - MechanicalObject: {name: out}\n"
             "            - TubularMapping: {name: map, input: \"@../dofs\", output: \"@out\", %s}\n",
             fields);
    return mapped_scene(TUBE_PARENT, child);
}

Test(mechanical_mappings, tubular_mapping_jacobian_and_transpose)
{
    check_mapping(tube_scene("nbPointsOnEachCircle: 5, radius: 0.3"), 1e-7);
    check_mapping(tube_scene("nbPointsOnEachCircle: 3, radius: 0.3, peak: 2"), 1e-7);
}

/* Frame 1 at (1, 2, 3) turned by q = (0.5, 0.5, 0.5, 0.5) (120 degrees
 * about (1,1,1): e_y -> e_z, e_z -> e_x); 4 points of radius 2:
 * c + 2 e_z, c + 2 e_x, c - 2 e_z, c - 2 e_x. With peak 2 frame 0 has
 * radius 0 and frame 1 radius 1; with peak -1 the last frame radius 0. */
Test(mechanical_mappings, tubular_mapping_by_hand)
{
    st_scene *s = tube_scene("nbPointsOnEachCircle: 4, radius: 2");
    const st_mstate *out = (const st_mstate *)topo_get(s, "/P/C/out");
    cr_assert_eq(out->n, 12u);
    static const double w[4][3] = {{1, 2, 5}, {3, 2, 3}, {1, 2, 1}, {-1, 2, 3}};
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 3; k++)
            cr_assert_leq(fabs(out->position.r[3 * (4 + j) + k] - w[j][k]), 1e-12, "point %d", j);
    st_scene_destroy(&s);
    s = tube_scene("nbPointsOnEachCircle: 4, radius: 2, peak: 2");
    out = (const st_mstate *)topo_get(s, "/P/C/out");
    for (int j = 0; j < 4; j++) /* frame 0: radius 0, its centre */
        for (int k = 0; k < 3; k++)
            cr_assert_leq(fabs(out->position.r[3 * j + k]), 1e-15);
    cr_assert_leq(fabs(out->position.r[3 * 4 + 2] - 4.0), 1e-12, "frame 1 at radius 1");
    st_scene_destroy(&s);
    s = tube_scene("nbPointsOnEachCircle: 4, radius: 2, peak: -1");
    out = (const st_mstate *)topo_get(s, "/P/C/out");
    cr_assert_leq(fabs(out->position.r[3 * 8] + 1.0) + fabs(out->position.r[3 * 8 + 1] - 0.5) +
                      fabs(out->position.r[3 * 8 + 2] - 2.0),
                  1e-15, "last frame: radius 0");
    cr_assert_leq(fabs(out->position.r[3 * 4 + 2] - 5.0), 1e-12, "frame 1 keeps radius 2");
    st_scene_destroy(&s);
    st_error err = {0};
    char yaml[8192];
    snprintf(yaml, sizeof yaml,
             HEAD TUBE_PARENT "      children:\n"
                              "        - name: C\n"
                              "          objects:\n"
                              "            - MechanicalObject: {name: out}\n"
                              "            - TubularMapping: {input: \"@../dofs\", output: \"@out\","
                              " nbPointsOnEachCircle: 4}\n");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "No Radius defined"), "%s", err.msg);
}

/* RigidMapping to a Rigid3d output: frames fixed in the bodies. J against
 * finite differences of apply (orientation differences as rotation
 * vectors), J^T the transpose, and the geometric stiffness (the child
 * forces' part; its torques do not depend on the rotation) against
 * d(J^T f)/dx. */
#define RIGID_FRAMES_CHILD                                                                         \
    "            - MechanicalObject: {name: out, template: Rigid3d, position: [1,0,0, 0,0,0,1,"   \
    " 0,2,0.5, 0,0.6,0,0.8,  -1,0.3,0.2, 0.5,0.5,0.5,0.5]}\n"                                       \
    "            - RigidMapping: {name: map, input: \"@../dofs\", output: \"@out\","               \
    " rigidIndexPerPoint: [0, 1, 1]%s}\n"

Test(mechanical_mappings, rigid_mapping_to_rigid)
{
    char child[1024];
    snprintf(child, sizeof child, RIGID_FRAMES_CHILD, "");
    check_mapping(mapped_scene(RIGID_PARENT, child), 1e-7);
    snprintf(child, sizeof child, RIGID_FRAMES_CHILD, ", geometricStiffness: Exact");
    double worst, kmax = check_gs(mapped_scene(RIGID_PARENT, child), 0, &worst);
    cr_log_info("RigidMapping to Rigid3d: max |K - K_fd| = %.3g (max |K| %.3g)", worst, kmax);
    cr_assert_gt(kmax, 0.1);
    cr_assert_leq(worst, 1e-7 * kmax, "K differs from d(J^T f)/dx by %.3g", worst);
}

/* By hand: body 1 at (1, 2, 3) turned by q1 = (0.5, 0.5, 0.5, 0.5); a child
 * frame at local (1, 0, 0), local orientation q_l: the child is at
 * (1, 2, 3) + R e_x = (1, 3, 3), oriented q1 q_l. globalToLocalCoords keeps
 * a global frame where it is. */
Test(mechanical_mappings, rigid_mapping_to_rigid_by_hand)
{
    st_scene *s = mapped_scene(RIGID_PARENT,
                               "            - MechanicalObject: {name: out, template: Rigid3d,"
                               " position: [1,0,0, 0,0,0.6,0.8]}\n"
                               "            - RigidMapping: {name: map, input: \"@../dofs\","
                               " output: \"@out\", index: 1}\n");
    const st_mstate *out = (const st_mstate *)topo_get(s, "/P/C/out");
    const double *x = out->position.r;
    double q[4];
    const double q1[4] = {0.5, 0.5, 0.5, 0.5}, ql[4] = {0, 0, 0.6, 0.8};
    st_quat_mul(q, q1, ql);
    const double want[7] = {1, 3, 3, q[0], q[1], q[2], q[3]};
    for (int k = 0; k < 7; k++)
        cr_assert_leq(fabs(x[k] - want[k]), 1e-12, "x[%d] = %.17g, want %.17g", k, x[k], want[k]);
    st_scene_destroy(&s);
    s = mapped_scene(RIGID_PARENT, "            - MechanicalObject: {name: out, template: Rigid3d,"
                                   " position: [2,2,2, 0,0,0.6,0.8]}\n"
                                   "            - RigidMapping: {name: map, input: \"@../dofs\","
                                   " output: \"@out\", index: 1, globalToLocalCoords: true}\n");
    x = ((const st_mstate *)topo_get(s, "/P/C/out"))->position.r;
    const double keep[7] = {2, 2, 2, 0, 0, 0.6, 0.8};
    for (int k = 0; k < 7; k++)
        cr_assert_leq(fabs(x[k] - keep[k]), 1e-12, "x[%d] = %.17g", k, x[k]);
    st_scene_destroy(&s);
    st_error err = {0};
    char yaml[8192];
    snprintf(yaml, sizeof yaml,
             HEAD RIGID_PARENT "      children:\n"
                               "        - name: C\n"
                               "          objects:\n"
                               "            - MechanicalObject: {name: out, template: Rigid3d}\n"
                               "            - RigidMapping: {input: \"@../dofs\", output: \"@out\","
                               " initialPoints: [[1, 0, 0]]}\n");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "a Rigid3d output takes 7 per point"), "%s", err.msg);
}

/* ---- DistanceToPlaneMapping ---- */

static st_scene *plane_scene(const char *parent, const char *fields)
{
    char child[1024];
    snprintf(child, sizeof child,
             "            - MechanicalObject: {name: out, template: Vec1d}\n"
             "            - DistanceToPlaneMapping: {name: map, input: \"@../dofs\","
             " output: \"@out\", %s}\n",
             fields);
    return mapped_scene(parent, child);
}

/* Plane through (0, 0, 2) with normal (0, 3, 4) / 5: y = 0.6 p_y + 0.8 p_z
 * - 1.6; J = n on every point (a Rigid3d's rotation: 0). */
Test(mechanical_mappings, distance_to_plane_mapping)
{
    check_mapping(plane_scene(VEC3_PARENT, "planeNormal: [0, 3, 4], planePoint: [0, 0, 2]"),
                  1e-7);
    check_mapping(plane_scene(RIGID_PARENT, "planeNormal: [1, 1, 0], planePoint: [0, 0, 2]"),
                  1e-7);
    check_mapping(plane_scene("        - MechanicalObject: {name: dofs, template: Vec2d,"
                              " position: [1, 2, -3, 0.5]}\n",
                              "planeNormal: [0, 2], planePoint: [0, 1]"),
                  1e-7);
    st_scene *s = plane_scene(VEC3_PARENT, "planeNormal: [0, 3, 4], planePoint: [0, 0, 2]");
    const st_mstate *out = (const st_mstate *)topo_get(s, "/P/C/out");
    static const double want[5] = {-1.6, -1.6, -1.0, -0.8, -0.2}; /* points of VEC3_PARENT */
    cr_assert_eq(out->n, 5u);
    for (int i = 0; i < 5; i++)
        cr_assert_leq(fabs(out->position.r[i] - want[i]), 1e-15, "y%d = %.17g", i,
                      out->position.r[i]);
    const st_array *na = st_component_field_ptr(topo_get(s, "/P/C/map"),
                                                st_component_field(topo_get(s, "/P/C/map"),
                                                                   "planeNormal"));
    const double *nrm = na->r;
    cr_assert(nrm[0] == 0.0 && fabs(nrm[1] - 0.6) < 1e-16 && fabs(nrm[2] - 0.8) < 1e-16,
              "planeNormal normalised in place, as SOFA");
    st_scene_destroy(&s);
    st_error err = {0};
    char yaml[8192];
    snprintf(yaml, sizeof yaml,
             HEAD "%s      children:\n"
                  "        - name: C\n"
                  "          objects:\n"
                  "            - MechanicalObject: {name: out, template: Vec1d}\n"
                  "            - DistanceToPlaneMapping: {input: \"@../dofs\","
                  " output: \"@out\", planeNormal: [0, 0, 0]}\n",
             VEC3_PARENT);
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "planeNormal data has null norm"), "%s", err.msg);
}

/* Points held on a plane by a FixedLagrangianConstraint on their mapped
 * distances (SOFA's DistanceToPlaneMapping example, our own numbers): the
 * constraint is linear, so one step puts every point on the plane, and
 * only its normal component moves. */
Test(mechanical_mappings, distance_to_plane_held_by_a_lagrangian_constraint)
{
    const char *yaml =
        "format: settee/1\n"
        "root:\n"
        "  name: root\n"
        "  dt: 0.02\n"
        "  gravity: [0, 0, 0]\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [Mapping.Linear, ODESolver.Backward, LinearSolver.Direct,"
        " Mass, Constraint.Lagrangian.Model, Constraint.Lagrangian.Solver,"
        " Constraint.Lagrangian.Correction]}\n"
        "    - FreeMotionAnimationLoop: {}\n"
        "    - GenericConstraintSolver: {tolerance: 1e-14, maxIterations: 200}\n"
        "  children:\n"
        "    - name: P\n"
        "      objects:\n"
        "        - EulerImplicitSolver: {}\n"
        "        - SparseLDLSolver: {}\n"
        "        - MechanicalObject: {name: dofs, position: [4,2,5, 1,5,-8, 0,1,-5]}\n"
        "        - UniformMass: {vertexMass: 1}\n"
        "        - UncoupledConstraintCorrection: {defaultCompliance: 1}\n"
        "      children:\n"
        "        - name: C\n"
        "          objects:\n"
        "            - MechanicalObject: {name: out, template: Vec1d, rest_position: [0, 0, 0]}\n"
        "            - FixedLagrangianConstraint: {fixAll: true}\n"
        "            - DistanceToPlaneMapping: {planeNormal: [0, 0, 1], planePoint: [0, 0, 2]}\n";
    st_scene *s = topo_scene(&T, yaml);
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0.02, &err), ST_OK, "%s", err.msg);
    const double *x = ((const st_mstate *)topo_get(s, "/P/dofs"))->position.r;
    static const double xy[3][2] = {{4, 2}, {1, 5}, {0, 1}};
    for (int i = 0; i < 3; i++) {
        cr_assert_leq(fabs(x[3 * i + 2] - 2.0), 1e-12, "point %d z %.17g", i, x[3 * i + 2]);
        cr_assert_leq(fabs(x[3 * i] - xy[i][0]) + fabs(x[3 * i + 1] - xy[i][1]), 1e-12);
    }
    st_scene_destroy(&s);
}

/* ---- BeamLinearMapping ---- */

#define BEAM_PARENT                                                                                \
    "        - MechanicalObject: {name: dofs, template: Rigid3d,\n"                                \
    "            position: [0,0,0, 0,0,0,1,  2,0,0, 0,0,0.6,0.8,  3,1,0, 0.5,0.5,0.5,0.5]}\n"

Test(mechanical_mappings, beam_linear_mapping)
{
    check_mapping(mapped_scene(BEAM_PARENT,
                               "            - MechanicalObject: {name: out, position: [0.3,0.1,0,"
                               " 1.5,0,0.2, 1.9,-0.1,0.05, 2.5,0,0]}\n"
                               "            - BeamLinearMapping: {name: map, input: \"@../dofs\","
                               " output: \"@out\"}\n"),
                  1e-7);
}

/* Two frames 2 apart, unrotated: local (0.5, 0.1, 0) is half way, 0.1
 * segment lengths up: (1, 0.2, 0); localCoord false finds the same local
 * point from that global one; local (0.25, 0, 0) blends with
 * f = 3/16 - 2/64 = 5/32 between c0 + 0.5 and c1 - 1.5: 0.5. */
Test(mechanical_mappings, beam_linear_mapping_by_hand)
{
    const char *parent = "        - MechanicalObject: {name: dofs, template: Rigid3d,"
                         " position: [0,0,0, 0,0,0,1,  2,0,0, 0,0,0,1]}\n";
    st_scene *s = mapped_scene(parent, "            - MechanicalObject: {name: out, position:"
                                       " [0.5,0.1,0, 0.25,0,0]}\n"
                                       "            - BeamLinearMapping: {name: map, input:"
                                       " \"@../dofs\", output: \"@out\"}\n");
    const double *x = ((const st_mstate *)topo_get(s, "/P/C/out"))->position.r;
    cr_assert_leq(fabs(x[0] - 1.0) + fabs(x[1] - 0.2) + fabs(x[2]), 1e-15, "%g %g %g", x[0],
                  x[1], x[2]);
    cr_assert_leq(fabs(x[3] - 0.5) + fabs(x[4]) + fabs(x[5]), 1e-15, "%g", x[3]);
    st_scene_destroy(&s);
    s = mapped_scene(parent, "            - MechanicalObject: {name: out, position: [1,0.2,0]}\n"
                             "            - BeamLinearMapping: {name: map, input: \"@../dofs\","
                             " output: \"@out\", localCoord: false}\n");
    x = ((const st_mstate *)topo_get(s, "/P/C/out"))->position.r;
    cr_assert_leq(fabs(x[0] - 1.0) + fabs(x[1] - 0.2) + fabs(x[2]), 1e-15, "%g %g %g", x[0],
                  x[1], x[2]);
    st_scene_destroy(&s);
    st_error err = {0};
    char yaml[8192];
    snprintf(yaml, sizeof yaml,
             HEAD "        - MechanicalObject: {name: dofs, template: Rigid3d, position: [0,0,0,"
                  " 0,0,0,1]}\n"
                  "      children:\n"
                  "        - name: C\n"
                  "          objects:\n"
                  "            - MechanicalObject: {name: out, position: [0,0,0]}\n"
                  "            - BeamLinearMapping: {input: \"@../dofs\", output: \"@out\"}\n");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "at least two frames"), "%s", err.msg);
}

/* ---- IdentityMultiMapping ---- */

#define TWO_INPUTS                                                                                 \
    "        - MechanicalObject: {name: a, position: [0,0,0, 1,0,0, 2,0,0]}\n"                     \
    "      children:\n"                                                                            \
    "        - name: B\n"                                                                          \
    "          objects:\n"                                                                         \
    "            - MechanicalObject: {name: b, position: [0,1,0, 1,1,0]}\n"                        \
    "        - name: C\n"                                                                          \
    "          objects:\n"

Test(mechanical_mappings, identity_multi_mapping)
{
    /* The output is a's points, then b's: resized from 1 point to 5. */
    static char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD TWO_INPUTS
             "            - MechanicalObject: {name: out, position: [9,9,9]}\n"
             "            - IdentityMultiMapping: {name: map, input: [\"@../a\", \"@../B/b\"],"
             " output: \"@out\"}\n");
    st_scene *s = topo_scene(&T, yaml);
    const st_mstate *out = (const st_mstate *)topo_get(s, "/P/C/out");
    cr_assert_eq(out->n, 5u);
    const double want[15] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 1, 1, 0};
    for (int k = 0; k < 15; k++)
        cr_assert_eq(out->position.r[k], want[k], "coordinate %d: %g", k, out->position.r[k]);
    check_mapping(s, 1e-8);

    /* Inputs of another type than the output's are refused. */
    st_error err = {0};
    snprintf(yaml, sizeof yaml,
             HEAD TWO_INPUTS
             "            - MechanicalObject: {name: out, template: Vec1d}\n"
             "            - IdentityMultiMapping: {name: map, input: [\"@../a\", \"@../B/b\"],"
             " output: \"@out\"}\n");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "maps states of one type"), "%s", err.msg);
    snprintf(yaml, sizeof yaml,
             HEAD TWO_INPUTS "            - MechanicalObject: {name: out}\n"
                             "            - IdentityMultiMapping: {name: map, input: [\"@../nothing\"],"
                             " output: \"@out\"}\n");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "not a link to a MechanicalObject"), "%s", err.msg);
}

/* A unit force on output point 0 of a concatenation whose node holds the
 * only mass (1 per point): the mapped mass J^T M J is the identity, so a's
 * point 0 accelerates at 1 and, with implicit Euler and no stiffness,
 * x_n = x_0 + dt^2 n (n + 1) / 2; every other point stays. */
Test(mechanical_mappings, identity_multi_mapping_force_and_mass_reach_the_inputs)
{
    static char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD TWO_INPUTS
             "            - MechanicalObject: {name: out}\n"
             "            - IdentityMultiMapping: {name: map, input: [\"@../a\", \"@../B/b\"],"
             " output: \"@out\"}\n"
             "            - UniformMass: {vertexMass: 1}\n"
             "            - RequiredPlugin: {pluginName: MechanicalLoad}\n"
             "            - ConstantForceField: {indices: [0], forces: [1, 0, 0]}\n");
    char *g = strstr(yaml, "gravity: [0, -9.81, 0]");
    memcpy(g, "gravity: [0,     0, 0]", strlen("gravity: [0, -9.81, 0]"));
    st_scene *s = topo_scene(&T, yaml);
    st_error err = {0};
    const int n = 20;
    for (int k = 0; k < n; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    const st_mstate *a = (const st_mstate *)topo_get(s, "/P/a");
    const st_mstate *b = (const st_mstate *)topo_get(s, "/P/B/b");
    const double dt = 0.01, want = dt * dt * n * (n + 1) / 2;
    cr_log_info("IdentityMultiMapping: x = %.17g, closed form %.17g", a->position.r[0], want);
    cr_assert_leq(fabs(a->position.r[0] - want), 1e-12, "x = %.17g, want %.17g", a->position.r[0],
                  want);
    cr_assert_leq(fabs(a->position.r[3] - 1) + fabs(b->position.r[0]) + fabs(b->position.r[4] - 1),
                  1e-12, "the other points stay");
    st_scene_destroy(&s);
}

/* ---- SquareMapping, AreaMapping, VolumeMapping ---- */

/* The mapping at the loaded positions (no move), its output and dense J. */
static double *j_at_rest(st_scene *s, mcase *c)
{
    c->s = s;
    c->map = topo_get(s, "/P/C/map");
    c->in = c->map->cls->mapping->input(c->map);
    c->out = c->map->cls->mapping->output(c->map);
    c->sys = c->in->system;
    c->rows = (size_t)c->out->type->deriv_size * c->out->n;
    c->cols = c->sys->size_all;
    c->map->cls->mapping->apply(c->map, &c->sys->mp, c->sys->x);
    double *J = calloc(c->rows * c->cols, sizeof *J);
    st_error err = {0};
    cr_assert_eq(st__mapgraph_dense_j(c->sys, c->map, J, c->rows, c->cols, &err), ST_OK, "%s",
                 err.msg);
    return J;
}

static st_scene *measure_scene(const char *parent, const char *cls, const char *extra)
{
    char child[1024];
    snprintf(child, sizeof child,
             "            - MechanicalObject: {name: out, template: Vec1d}\n"
             "            - %s: {name: map, input: \"@../dofs\", output: \"@out\"%s}\n",
             cls, extra);
    return mapped_scene(parent, child);
}

#define VEC1_PARENT "        - MechanicalObject: {name: dofs, template: Vec1d, position: [0.5, -1, 2]}\n"

Test(mechanical_mappings, square_mapping)
{
    st_scene *s = measure_scene(VEC1_PARENT, "SquareMapping", "");
    mcase c;
    double *J = j_at_rest(s, &c);
    const double x[3] = {0.5, -1, 2};
    cr_assert_eq(c.out->n, 3u);
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(st_slice_x(c.sys->x, c.out)[i], x[i] * x[i]);
        for (size_t j = 0; j < 3; j++)
            cr_assert_eq(J[i * c.cols + c.in->doffset + j], i == j ? 2 * x[i] : 0.0,
                         "J(%zu,%zu)", i, j);
    }
    free(J);
    check_mapping(s, 1e-8);
    /* K = diag(2 f): Exact (the default) whatever the sign of f, and None. */
    double worst, kmax = check_gs(measure_scene(VEC1_PARENT, "SquareMapping", ""), 1, &worst);
    cr_assert_gt(kmax, 0.5);
    cr_assert_leq(worst, 1e-7 * kmax, "SquareMapping: K differs from d(J^T f)/dx by %.3g", worst);
    kmax = check_gs(measure_scene(VEC1_PARENT, "SquareMapping", ", geometricStiffness: None"), 1,
                    &worst);
    cr_assert_leq(fabs(worst - kmax), 1e-7 * kmax, "None gives no K");
    /* SquareMapping has no Stabilized option (SOFA's list: None, Exact). */
    st_error err = {0};
    char yaml[8192];
    snprintf(yaml, sizeof yaml, HEAD "%s      children:\n        - name: C\n          objects:\n%s",
             VEC1_PARENT,
             "            - MechanicalObject: {name: out, template: Vec1d}\n"
             "            - SquareMapping: {name: map, input: \"@../dofs\", output: \"@out\","
             " geometricStiffness: Stabilized}\n");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "geometricStiffness"), "%s", err.msg);
}

/* A right triangle with legs 3 (x) and 4 (y): area 6, and J's row is the
 * derivative of 1/2 (x1 - x0)(y2 - y0): v0 (-2, -1.5, 0), v1 (2, 0, 0),
 * v2 (0, 1.5, 0). The second triangle is generic. */
#define TRI_PARENT                                                                                 \
    "        - MechanicalObject: {name: dofs, position: [0,0,0, 3,0,0, 0,4,0, 1,2.5,1.5]}\n"        \
    "        - MeshTopology: {name: topo, triangles: [0,1,2, 3,2,1]}\n"

Test(mechanical_mappings, area_mapping)
{
    st_scene *s = measure_scene(TRI_PARENT, "AreaMapping", ", topology: \"@../topo\"");
    mcase c;
    double *J = j_at_rest(s, &c);
    cr_assert_eq(c.out->n, 2u);
    cr_assert_leq(fabs(st_slice_x(c.sys->x, c.out)[0] - 6.0), 1e-14, "area %.17g",
                  st_slice_x(c.sys->x, c.out)[0]);
    const double want[9] = {-2, -1.5, 0, 2, 0, 0, 0, 1.5, 0};
    for (int k = 0; k < 9; k++)
        cr_assert_leq(fabs(J[c.in->doffset + k] - want[k]), 1e-14, "J(0,%d) = %.17g", k,
                      J[c.in->doffset + k]);
    free(J);
    check_mapping(s, 1e-7);
    /* Exact: K = sum f_e d2A_e against d(J^T f)/dx; Stabilized (the
     * default) keeps only the triangles pulled (f < 0); None none. */
    double worst, kmax;
    kmax = check_gs(measure_scene(TRI_PARENT, "AreaMapping",
                                  ", topology: \"@../topo\", geometricStiffness: Exact"),
                    0, &worst);
    cr_log_info("AreaMapping geometric stiffness: max |K - K_fd| = %.3g (max |K| %.3g)", worst, kmax);
    cr_assert_gt(kmax, 0.1);
    cr_assert_leq(worst, 1e-7 * kmax, "AreaMapping: K differs from d(J^T f)/dx by %.3g", worst);
    kmax = check_gs(measure_scene(TRI_PARENT, "AreaMapping", ", topology: \"@../topo\""), -1,
                    &worst);
    cr_assert_leq(worst, 1e-7 * kmax, "Stabilized on pulled triangles is exact");
    kmax = check_gs(measure_scene(TRI_PARENT, "AreaMapping", ", topology: \"@../topo\""), 1,
                    &worst);
    cr_assert_gt(kmax, 0.1);
    cr_assert_leq(fabs(worst - kmax), 1e-7 * kmax, "Stabilized: pushed triangles give no K");
    kmax = check_gs(measure_scene(TRI_PARENT, "AreaMapping",
                                  ", topology: \"@../topo\", geometricStiffness: None"),
                    -1, &worst);
    cr_assert_leq(fabs(worst - kmax), 1e-7 * kmax, "None gives no K");
}

/* The unit tetrahedron: volume 1/6, dV/dv1 = (1/6, 0, 0), dV/dv2 =
 * (0, 1/6, 0), dV/dv3 = (0, 0, 1/6), dV/dv0 = -(1/6, 1/6, 1/6); the same
 * with v2 and v3 swapped is inverted: -1/6. */
#define TET_PARENT                                                                                 \
    "        - MechanicalObject: {name: dofs, position: [0,0,0, 1,0,0, 0,1,0, 0,0,1, "              \
    "0.8,0.9,1.1]}\n"                                                                              \
    "        - MeshTopology: {name: topo, tetrahedra: [0,1,2,3, 0,1,3,2, 4,3,1,2]}\n"

Test(mechanical_mappings, volume_mapping)
{
    st_scene *s = measure_scene(TET_PARENT, "VolumeMapping", ", topology: \"@../topo\"");
    mcase c;
    double *J = j_at_rest(s, &c);
    cr_assert_eq(c.out->n, 3u);
    const double *y = st_slice_x(c.sys->x, c.out);
    cr_assert_leq(fabs(y[0] - 1.0 / 6), 1e-15, "volume %.17g", y[0]);
    cr_assert_leq(fabs(y[1] + 1.0 / 6), 1e-15, "inverted volume %.17g", y[1]);
    const double s6 = 1.0 / 6;
    const double want[12] = {-s6, -s6, -s6, s6, 0, 0, 0, s6, 0, 0, 0, s6};
    for (int k = 0; k < 12; k++)
        cr_assert_leq(fabs(J[c.in->doffset + k] - want[k]), 1e-15, "J(0,%d) = %.17g", k,
                      J[c.in->doffset + k]);
    free(J);
    check_mapping(s, 1e-7);
    double worst, kmax;
    kmax = check_gs(measure_scene(TET_PARENT, "VolumeMapping",
                                  ", topology: \"@../topo\", geometricStiffness: Exact"),
                    0, &worst);
    cr_log_info("VolumeMapping geometric stiffness: max |K - K_fd| = %.3g (max |K| %.3g)", worst,
                kmax);
    cr_assert_gt(kmax, 0.1);
    cr_assert_leq(worst, 1e-7 * kmax, "VolumeMapping: K differs from d(J^T f)/dx by %.3g", worst);
    kmax = check_gs(measure_scene(TET_PARENT, "VolumeMapping", ", topology: \"@../topo\""), -1,
                    &worst);
    cr_assert_leq(worst, 1e-7 * kmax, "Stabilized on pulled tetrahedra is exact");
    kmax = check_gs(measure_scene(TET_PARENT, "VolumeMapping", ", topology: \"@../topo\""), 1,
                    &worst);
    cr_assert_gt(kmax, 0.1);
    cr_assert_leq(fabs(worst - kmax), 1e-7 * kmax, "Stabilized: pushed tetrahedra give no K");
}

Test(mechanical_mappings, area_and_volume_mapping_refusals)
{
    st_error err = {0};
    char yaml[8192];
    /* Quads beside the triangles (SOFA refuses them). */
    snprintf(yaml, sizeof yaml, HEAD "%s      children:\n        - name: C\n          objects:\n%s",
             "        - MechanicalObject: {name: dofs, position: [0,0,0, 1,0,0, 1,1,0, 0,1,0]}\n"
             "        - MeshTopology: {name: topo, triangles: [0,1,2], quads: [0,1,2,3]}\n",
             "            - MechanicalObject: {name: out, template: Vec1d}\n"
             "            - AreaMapping: {name: map, input: \"@../dofs\", output: \"@out\","
             " topology: \"@../topo\"}\n");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "Quads are found"), "%s", err.msg);
    /* No tetrahedra. */
    snprintf(yaml, sizeof yaml, HEAD "%s      children:\n        - name: C\n          objects:\n%s",
             TRI_PARENT,
             "            - MechanicalObject: {name: out, template: Vec1d}\n"
             "            - VolumeMapping: {name: map, input: \"@../dofs\", output: \"@out\","
             " topology: \"@../topo\"}\n");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "No topology component containing tetrahedron"), "%s", err.msg);
    /* A Vec1d input. */
    snprintf(yaml, sizeof yaml, HEAD "%s      children:\n        - name: C\n          objects:\n%s",
             VEC1_PARENT "        - MeshTopology: {name: topo, triangles: [0,1,2]}\n",
             "            - MechanicalObject: {name: out, template: Vec1d}\n"
             "            - AreaMapping: {name: map, input: \"@../dofs\", output: \"@out\","
             " topology: \"@../topo\"}\n");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "supports Vec3d"), "%s", err.msg);
}

/* ---- DistanceMultiMapping ---- */

/* Edges over indexPairs: (a0, b1), (a2, b0), (a1, a2) (one inside a). */
static st_scene *dmm_scene(const char *extra)
{
    static char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "        - MechanicalObject: {name: a, position: [0,0,0, 1,0.2,0, 0.3,1.1,0.4]}\n"
                  "      children:\n"
                  "        - name: B\n"
                  "          objects:\n"
                  "            - MechanicalObject: {name: b, position: [-0.5,0.2,1, 3,4,0]}\n"
                  "        - name: C\n"
                  "          objects:\n"
                  "            - MechanicalObject: {name: out, template: Vec1d}\n"
                  "            - EdgeSetTopologyContainer: {name: topo, edges: [0,1, 2,3, 4,2]}\n"
                  "            - DistanceMultiMapping: {name: map, template: \"Vec3,Vec1\", input: [\"@../a\", \"@../B/b\"],"
                  " output: \"@out\", topology: \"@topo\","
                  " indexPairs: [0,0, 1,1, 0,2, 1,0, 0,1]%s}\n",
             extra);
    return topo_scene(&T, yaml);
}

Test(mechanical_mappings, distance_multi_mapping)
{
    /* a0 = (0,0,0) to b1 = (3,4,0): 5, minus the rest length 1 given; the
     * restLengths of the wrong size are rebuilt as the lengths (y = 0) or,
     * with computeDistance, zeros (y = the lengths). */
    st_scene *s = dmm_scene(", restLengths: [1, 2, 3]");
    mcase c;
    double *J = j_at_rest(s, &c);
    cr_assert_eq(c.out->n, 3u);
    cr_assert_leq(fabs(st_slice_x(c.sys->x, c.out)[0] - 4.0), 1e-15);
    const st_mstate *b = (const st_mstate *)topo_get(s, "/P/B/b");
    const double *J0 = J + b->doffset + 3; /* row 0 at b1: u = (0.6, 0.8, 0) */
    cr_assert_leq(fabs(J0[0] - 0.6) + fabs(J0[1] - 0.8) + fabs(J0[2]), 1e-15);
    free(J);
    check_mapping(s, 1e-7);
    s = dmm_scene(", restLengths: [1]");
    const st_mstate *out = (const st_mstate *)topo_get(s, "/P/C/out");
    for (int i = 0; i < 3; i++)
        cr_assert_leq(fabs(out->position.r[i]), 1e-15, "y%d = %g", i, out->position.r[i]);
    st_scene_destroy(&s);
    s = dmm_scene(", computeDistance: true");
    out = (const st_mstate *)topo_get(s, "/P/C/out");
    cr_assert_leq(fabs(out->position.r[0] - 5.0), 1e-15);
    cr_assert_leq(fabs(out->position.r[2] - sqrt(0.49 + 0.81 + 0.16)), 1e-15);
    st_scene_destroy(&s);
    /* The geometric stiffness against d(J^T f)/dx (columns of a). */
    double worst, kmax = check_gs(dmm_scene(", geometricStiffness: Exact"), 0, &worst);
    cr_log_info("DistanceMultiMapping geometric stiffness: max |K - K_fd| = %.3g (max |K| %.3g)",
                worst, kmax);
    cr_assert_gt(kmax, 0.1);
    cr_assert_leq(worst, 1e-7 * kmax, "K differs from d(J^T f)/dx by %.3g", worst);
    kmax = check_gs(dmm_scene(""), 1, &worst);
    cr_assert_leq(fabs(worst - kmax), 1e-7 * kmax, "Stabilized: pushed edges give no K");
    /* An edge on an entry indexPairs does not hold. */
    st_error err = {0};
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "        - MechanicalObject: {name: a, position: [0,0,0, 1,0,0]}\n"
                  "      children:\n"
                  "        - name: C\n"
                  "          objects:\n"
                  "            - MechanicalObject: {name: out, template: Vec1d}\n"
                  "            - EdgeSetTopologyContainer: {name: topo, edges: [0,2]}\n"
                  "            - DistanceMultiMapping: {name: map, template: \"Vec3,Vec1\", input: [\"@../a\"],"
                  " output: \"@out\", topology: \"@topo\", indexPairs: [0,0, 0,1]}\n");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "uses entry 2 of indexPairs"), "%s", err.msg);
}

/* A pendulum: particle b hangs from fixed particle a by a stiff distance
 * spring (RestShapeSpringsForceField on the mapped distance). With a and b
 * in two states joined by DistanceMultiMapping, b's trajectory is the one
 * with both in one state and DistanceMapping, to round-off, matrix-free
 * (CG) and assembled (SparseLDLSolver, through get_j and get_k). */
static void dist_pendulum(const char *ls, bool multi, double *xb)
{
    static char yaml[8192];
    const char *spring = "            - RestShapeSpringsForceField: {template: Vec1d, stiffness: 500}\n";
    if (!multi)
        snprintf(yaml, sizeof yaml,
                 HEAD "        - MechanicalObject: {name: a, position: [0,0,0, 1,0.2,0.1]}\n"
                      "        - UniformMass: {vertexMass: 1}\n"
                      "        - FixedProjectiveConstraint: {indices: [0]}\n"
                      "        - EdgeSetTopologyContainer: {name: topo, edges: [0,1]}\n"
                      "      children:\n"
                      "        - name: C\n"
                      "          objects:\n"
                      "            - MechanicalObject: {name: out, template: Vec1d}\n"
                      "            - DistanceMapping: {input: \"@../a\", output: \"@out\","
                      " topology: \"@../topo\", geometricStiffness: Exact}\n%s",
                 spring);
    else
        snprintf(yaml, sizeof yaml,
                 HEAD "      children:\n"
                      "        - name: A\n"
                      "          objects:\n"
                      "            - MechanicalObject: {name: a, position: [0,0,0]}\n"
                      "            - UniformMass: {vertexMass: 1}\n"
                      "            - FixedProjectiveConstraint: {indices: [0]}\n"
                      "        - name: B\n"
                      "          objects:\n"
                      "            - MechanicalObject: {name: b, position: [1,0.2,0.1]}\n"
                      "            - UniformMass: {vertexMass: 1}\n"
                      "        - name: C\n"
                      "          objects:\n"
                      "            - MechanicalObject: {name: out, template: Vec1d}\n"
                      "            - EdgeSetTopologyContainer: {name: topo, edges: [0,1]}\n"
                      "            - DistanceMultiMapping: {template: \"Vec3,Vec1\", input: [\"@../A/a\", \"@../B/b\"],"
                      " output: \"@out\", topology: \"@topo\", indexPairs: [0,0, 1,0],"
                      " geometricStiffness: Exact}\n%s",
                 spring);
    char *p = strstr(yaml, "        - CGLinearSolver: {iterations: 100, tolerance: 1e-12, threshold: 1e-20}\n");
    const size_t old = strlen("        - CGLinearSolver: {iterations: 100, tolerance: 1e-12, threshold: 1e-20}\n");
    char line[256];
    snprintf(line, sizeof line, "        - %s\n", ls);
    memmove(p + strlen(line), p + old, strlen(p + old) + 1);
    memcpy(p, line, strlen(line));
    st_scene *s = topo_scene(&T, yaml);
    st_error err = {0};
    for (int k = 0; k < 100; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    const st_mstate *ms = (const st_mstate *)test_find_object(s, multi ? "b" : "a");
    memcpy(xb, ms->position.r + (multi ? 0 : 3), 3 * sizeof(double));
    st_scene_destroy(&s);
}

Test(mechanical_mappings, distance_multi_mapping_pendulum_matches_distance_mapping)
{
    static const char *const ls[] = {
        "CGLinearSolver: {iterations: 200, tolerance: 1e-20, threshold: 1e-30}",
        "SparseLDLSolver: {}"};
    for (int k = 0; k < 2; k++) {
        double ref[3], got[3];
        dist_pendulum(ls[k], false, ref);
        dist_pendulum(ls[k], true, got);
        double d = fmax(fabs(ref[0] - got[0]), fmax(fabs(ref[1] - got[1]), fabs(ref[2] - got[2])));
        double len = sqrt(got[0] * got[0] + got[1] * got[1] + got[2] * got[2]);
        cr_log_info("DistanceMultiMapping pendulum, %s: max |x - x_one_state| = %.3g, "
                    "length %.6f (x = %g %g %g)",
                    ls[k], d, len, got[0], got[1], got[2]);
        cr_assert_lt(got[1], 0.0, "b did not swing down");
        cr_assert_leq(fabs(len - sqrt(1.05)), 0.05, "the spring holds the length: %g", len);
        cr_assert_leq(d, 1e-10, "%s: %.3g", ls[k], d);
    }
}

/* ---- SimpleTesselatedTetraMechanicalMapping ---- */

/* Two tetrahedra sharing a face: 5 points, 9 edges, so 14 output points;
 * J by finite differences, and each midpoint is the mean of its edge's
 * ends. */
Test(mechanical_mappings, simple_tesselated_tetra_mechanical_mapping)
{
    st_scene *s = mapped_scene(
        "        - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Dynamic,"
        " Sofa.Component.Topology.Mapping]}\n"
        "        - TetrahedronSetTopologyContainer: {name: topo, position: [0,0,0, 1,0,0, 0,1,0,"
        " 0,0,1, 1,1,1], tetrahedra: [0,1,2,3, 1,2,3,4]}\n"
        "        - MechanicalObject: {name: dofs}\n",
        "            - TetrahedronSetTopologyContainer: {name: fine}\n"
        "            - SimpleTesselatedTetraTopologicalMapping: {name: tm, input: \"@../topo\","
        " output: \"@fine\"}\n"
        "            - MechanicalObject: {name: out}\n"
        "            - SimpleTesselatedTetraMechanicalMapping: {name: map, input: \"@../dofs\","
        " output: \"@out\"}\n");
    const st_mstate *out = (const st_mstate *)topo_get(s, "/P/C/out");
    cr_assert_eq(out->n, 14u, "5 points and 9 edge midpoints: %zu", out->n);
    st_component *tm = topo_get(s, "/P/C/tm");
    const st_array *pfe = topo_arr(tm, "pointMappedFromEdge");
    const st_array *edges = topo_arr(topo_get(s, "/P/topo"), "edges");
    const st_array *x = &((const st_mstate *)topo_get(s, "/P/dofs"))->position;
    cr_assert_eq(pfe->n, 9u);
    for (size_t e = 0; e < 9; e++)
        for (int k = 0; k < 3; k++) {
            double want = (x->r[3 * edges->u[2 * e] + k] + x->r[3 * edges->u[2 * e + 1] + k]) / 2;
            cr_assert_eq(out->position.r[3 * pfe->u[e] + k], want, "midpoint of edge %zu", e);
        }
    check_mapping(s, 1e-8);
}

/* ---- Mesh2PointMechanicalMapping ---- */

/* The unit square (0,0,0) (1,0,0) (1,1,0) (0,1,0), turned into points by a
 * Mesh2PointTopologicalMapping: 2 per point (offsets 0 and (0,0,1)), 1 per
 * edge (fx 0.25), 1 per triangle (0.5, 0.25), 1 per quad (0.25, 0.5): 13
 * output points, whose positions follow SOFA's weights (worked below); J by
 * finite differences and J^T its transpose. */
Test(mechanical_mappings, mesh2point_mechanical_mapping)
{
    st_scene *s = mapped_scene(
        "        - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Mapping]}\n"
        "        - MeshTopology: {name: topo, position: [0,0,0, 1,0,0, 1,1,0, 0,1,0],"
        " edges: [0,1, 1,2, 2,3], triangles: [0,1,2], quads: [0,1,2,3]}\n"
        "        - MechanicalObject: {name: dofs, position: [0,0,0, 1,0,0, 1,1,0, 0,1,0]}\n",
        "            - PointSetTopologyContainer: {name: pts}\n"
        "            - Mesh2PointTopologicalMapping: {name: tm, input: \"@../topo\","
        " output: \"@pts\", pointBaryCoords: [0,0,0, 0,0,1], edgeBaryCoords: [0.25,0,0],"
        " triangleBaryCoords: [0.5,0.25,0], quadBaryCoords: [0.25,0.5,0]}\n"
        "            - MechanicalObject: {name: out}\n"
        "            - Mesh2PointMechanicalMapping: {name: map, input: \"@../dofs\","
        " output: \"@out\"}\n");
    const st_mstate *out = (const st_mstate *)topo_get(s, "/P/C/out");
    cr_assert_eq(out->n, 13u, "8 from points, 3 from edges, 1 triangle, 1 quad: %zu", out->n);
    static const double want[13][3] = {
        {0, 0, 0}, {0, 0, 1}, {1, 0, 0}, {1, 0, 1}, {1, 1, 0}, {1, 1, 1}, {0, 1, 0}, {0, 1, 1},
        {0.25, 0, 0},    /* 0.75 (0,0) + 0.25 (1,0) */
        {1, 0.25, 0},    /* 0.75 (1,0) + 0.25 (1,1) */
        {0.75, 1, 0},    /* 0.75 (1,1) + 0.25 (0,1) */
        {0.75, 0.25, 0}, /* 0.25 (0,0) + 0.5 (1,0) + 0.25 (1,1) */
        /* SOFA's quad weights: q0 (1-fx)(1-fy), q1 fx (1-fy), q2 (1-fx) fy, q3 fx fy:
         * 0.375 (0,0) + 0.125 (1,0) + 0.375 (1,1) + 0.125 (0,1) */
        {0.5, 0.5, 0}};
    for (size_t k = 0; k < 13; k++)
        for (int c = 0; c < 3; c++)
            cr_assert_leq(fabs(out->position.r[3 * k + (size_t)c] - want[k][c]), 1e-15,
                          "point %zu axis %d: %g, expected %g", k, c,
                          out->position.r[3 * k + (size_t)c], want[k][c]);
    check_mapping(s, 1e-8);
}

/* Tetrahedra and hexahedra: the unit cube maps hexahedron coordinates to
 * themselves (SOFA's corner order h0 h1 h2 h3 = (0,0) (1,0) (1,1) (0,1)),
 * and the tetrahedron (0,0,0) (1,0,0) (0,1,0) (0,0,1) too. */
Test(mechanical_mappings, mesh2point_mechanical_mapping_volumes)
{
    st_scene *s = mapped_scene(
        "        - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Mapping]}\n"
        "        - MeshTopology: {name: topo, position: [0,0,0, 1,0,0, 1,1,0, 0,1,0,"
        " 0,0,1, 1,0,1, 1,1,1, 0,1,1], hexahedra: [0,1,2,3,4,5,6,7], tetrahedra: [0,1,3,4]}\n"
        "        - MechanicalObject: {name: dofs, position: [0,0,0, 1,0,0, 1,1,0, 0,1,0,"
        " 0,0,1, 1,0,1, 1,1,1, 0,1,1]}\n",
        "            - PointSetTopologyContainer: {name: pts}\n"
        "            - Mesh2PointTopologicalMapping: {name: tm, input: \"@../topo\","
        " output: \"@pts\", tetraBaryCoords: [0.1,0.2,0.3], hexaBaryCoords: [0.25,0.5,0.75,"
        " 0.9,0.1,0.4]}\n"
        "            - MechanicalObject: {name: out}\n"
        "            - Mesh2PointMechanicalMapping: {name: map, input: \"@../dofs\","
        " output: \"@out\"}\n");
    const st_mstate *out = (const st_mstate *)topo_get(s, "/P/C/out");
    cr_assert_eq(out->n, 3u);
    static const double want[3][3] = {{0.1, 0.2, 0.3}, {0.25, 0.5, 0.75}, {0.9, 0.1, 0.4}};
    for (size_t k = 0; k < 3; k++)
        for (int c = 0; c < 3; c++)
            cr_assert_leq(fabs(out->position.r[3 * k + (size_t)c] - want[k][c]), 1e-15,
                          "point %zu axis %d: %g", k, c, out->position.r[3 * k + (size_t)c]);
    check_mapping(s, 1e-8);
}

/* ---- DeformableOnRigidFrameMapping ---- */

/* Frames f0 = ((1,2,0), rotation about z with cos 0.28, sin 0.96) and
 * f1 = ((0,0,5), identity); local points under D. */
static st_scene *dorf_scene(const char *extra)
{
    static char yaml[4096];
    snprintf(yaml, sizeof yaml,
             HEAD "        - MechanicalObject: {name: dofs, template: Rigid3d,"
                  " position: [1,2,0, 0,0,0.6,0.8,  0,0,5, 0,0,0,1]}\n"
                  "      children:\n"
                  "        - name: D\n"
                  "          objects:\n"
                  "            - MechanicalObject: {name: p, position: [0.5,0,0, 0,1,0, 0.2,0.3,0.4]}\n"
                  "        - name: C\n"
                  "          objects:\n"
                  "            - MechanicalObject: {name: out}\n"
                  "            - DeformableOnRigidFrameMapping: {name: map, input1: \"@../D/p\","
                  " input2: \"@../dofs\", output: \"@out\"%s}\n",
             extra);
    return topo_scene(&T, yaml);
}

Test(mechanical_mappings, deformable_on_rigid_frame_mapping)
{
    /* Frame 0 (index 0): (0.5,0,0) -> R (0.5,0,0) + c = (1.14, 2.48, 0). */
    st_scene *s = dorf_scene("");
    const st_mstate *out = (const st_mstate *)topo_get(s, "/P/C/out");
    cr_assert_eq(out->n, 3u);
    const double *x = out->position.r;
    cr_assert_leq(fabs(x[0] - 1.14) + fabs(x[1] - 2.48) + fabs(x[2]), 1e-15, "%g %g %g", x[0],
                  x[1], x[2]);
    cr_assert_leq(fabs(x[3] - (1 - 0.96)) + fabs(x[4] - (2 + 0.28)) + fabs(x[5]), 1e-15);
    check_mapping(s, 1e-7);
    /* indexFromEnd: frame 1 (a translation by (0,0,5)). */
    s = dorf_scene(", indexFromEnd: true");
    x = ((const st_mstate *)topo_get(s, "/P/C/out"))->position.r;
    cr_assert_leq(fabs(x[6] - 0.2) + fabs(x[7] - 0.3) + fabs(x[8] - 5.4), 1e-15);
    check_mapping(s, 1e-7);
    /* repartition [1, 2]: point 0 on frame 0, points 1 and 2 on frame 1. */
    s = dorf_scene(", repartition: [1, 2]");
    x = ((const st_mstate *)topo_get(s, "/P/C/out"))->position.r;
    cr_assert_leq(fabs(x[0] - 1.14) + fabs(x[1] - 2.48) + fabs(x[2]), 1e-15);
    cr_assert_leq(fabs(x[3]) + fabs(x[4] - 1) + fabs(x[5] - 5), 1e-15);
    st_scene_destroy(&s);
    /* A repartition that does not match the frames is refused. */
    st_error err = {0};
    static char y2[4096];
    snprintf(y2, sizeof y2,
             HEAD "        - MechanicalObject: {name: dofs, template: Rigid3d,"
                  " position: [1,2,0, 0,0,0.6,0.8,  0,0,5, 0,0,0,1]}\n"
                  "      children:\n"
                  "        - name: D\n"
                  "          objects:\n"
                  "            - MechanicalObject: {name: p, position: [0.5,0,0]}\n"
                  "        - name: C\n"
                  "          objects:\n"
                  "            - MechanicalObject: {name: out}\n"
                  "            - DeformableOnRigidFrameMapping: {name: map, input1: \"@../D/p\","
                  " input2: \"@../dofs\", output: \"@out\", repartition: [1, 1, 1]}\n");
    cr_assert_neq(topo_scene_fails(&T, y2, &err), ST_OK);
    cr_assert(strstr(err.msg, "repartition is not correct"), "%s", err.msg);
}

/* A hanging string of three edges held by springs on the squared edge
 * lengths, built two ways: DistanceMapping (computeDistance: rest 0, so
 * y = |r|) then SquareMapping, or SquareDistanceMapping alone. y = |r|^2
 * both ways, and with Exact geometric stiffness the chained K (J1^T K2 J1
 * + K1(J2^T f) = 2 f I) is SquareDistanceMapping's: the trajectories agree
 * to round-off, assembled (SparseLDLSolver) and matrix-free (CG). */
static void square_string(const char *ls, bool chained, double *x_end)
{
    static char yaml[8192];
    const char *maps =
        chained ? "            - MechanicalObject: {name: ext, template: Vec1d}\n"
                  "            - DistanceMapping: {input: \"@../dofs\", output: \"@ext\","
                  " topology: \"@../topo\", computeDistance: true, applyRestPosition: true,"
                  " geometricStiffness: Exact}\n"
                  "          children:\n"
                  "            - name: S\n"
                  "              objects:\n"
                  "                - MechanicalObject: {name: sq, template: Vec1d}\n"
                  "                - SquareMapping: {input: \"@../ext\", output: \"@sq\","
                  " applyRestPosition: true}\n"
                  "                - RestShapeSpringsForceField: {template: Vec1d, stiffness: 300}\n"
                : "            - MechanicalObject: {name: sq, template: Vec1d}\n"
                  "            - SquareDistanceMapping: {input: \"@../dofs\", output: \"@sq\","
                  " topology: \"@../topo\", applyRestPosition: true, geometricStiffness: Exact}\n"
                  "            - RestShapeSpringsForceField: {template: Vec1d, stiffness: 300}\n";
    snprintf(yaml, sizeof yaml,
             HEAD "        - EdgeSetTopologyContainer: {name: topo, position: [0,0,0, 1,0,0,"
                  " 2,0,0, 3,0,0], edges: [0,1, 1,2, 2,3]}\n"
                  "        - MechanicalObject: {name: dofs}\n"
                  "        - UniformMass: {vertexMass: 0.1}\n"
                  "        - FixedProjectiveConstraint: {indices: [0]}\n"
                  "      children:\n"
                  "        - name: C\n"
                  "          objects:\n%s",
             maps);
    char *p = strstr(yaml, "        - CGLinearSolver: {iterations: 100, tolerance: 1e-12, threshold: 1e-20}\n");
    const size_t old = strlen("        - CGLinearSolver: {iterations: 100, tolerance: 1e-12, threshold: 1e-20}\n");
    char line[256];
    snprintf(line, sizeof line, "        - %s\n", ls);
    memmove(p + strlen(line), p + old, strlen(p + old) + 1);
    memcpy(p, line, strlen(line));
    st_scene *s = topo_scene(&T, yaml);
    st_error err = {0};
    for (int k = 0; k < 100; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    memcpy(x_end, ((const st_mstate *)topo_get(s, "/P/dofs"))->position.r + 9, 3 * sizeof(double));
    st_scene_destroy(&s);
}

Test(mechanical_mappings, square_mapping_chain_matches_square_distance_mapping)
{
    static const char *const ls[] = {
        "CGLinearSolver: {iterations: 500, tolerance: 1e-24, threshold: 1e-30}",
        "SparseLDLSolver: {}"};
    for (int k = 0; k < 2; k++) {
        double ref[3], got[3];
        square_string(ls[k], false, ref);
        square_string(ls[k], true, got);
        double d = fmax(fabs(ref[0] - got[0]), fmax(fabs(ref[1] - got[1]), fabs(ref[2] - got[2])));
        cr_log_info("SquareMapping chain, %s: max |x - x_SquareDistanceMapping| = %.3g (end at "
                    "%g %g %g)",
                    ls[k], d, got[0], got[1], got[2]);
        cr_assert_lt(got[1], -0.1, "the string did not fall");
        cr_assert_leq(d, 1e-9, "%s: %.3g", ls[k], d);
    }
}
