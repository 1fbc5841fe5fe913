/* test_projective_catalogue.c - the projective constraints of issue 30
 * (SOFA's Sofa.Component.Constraint.Projective catalogue): Line-, Plane-,
 * Point- and DirectionProjectiveConstraint, AffineMovement- and
 * PatchTestMovementProjectiveConstraint, against closed forms, SOFA's
 * unit-test setups (values re-derived by hand) and the agreement of the
 * explicit, matrix-free (CG) and assembled (direct) solver paths. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

#define PLUGINS                                                                                    \
    "ODESolver.Forward, ODESolver.Backward, LinearSolver.Direct, "                                 \
    "LinearSolver.Iterative, Mass, Constraint.Projective, SolidMechanics.Spring, Topology, "       \
    "MechanicalLoad, Engine.Transform"

/* A scene: root with gravity g, dt 0.01, the plugins, then `objects` (YAML
 * lines indented by 4, under root's objects). */
static st_scene *load(test_rt *t, const char *g, const char *objects)
{
    static char yaml[8192];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  gravity: [%s]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [" PLUGINS "]}\n"
             "%s",
             g, objects);
    test_rt_open(t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(t, yaml, &s, &err), ST_OK, "load: %s\n%s", err.msg, yaml);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s\n%s", err.msg, t->log);
    return s;
}

static void steps(st_scene *s, int n)
{
    st_error err = {0};
    for (int k = 0; k < n; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step %d: %s", k, err.msg);
}

static void done(st_scene **s, test_rt *t)
{
    st_scene_destroy(s);
    test_rt_close(t);
}

static st_mstate *state(st_scene *s, const char *name)
{
    st_mstate *ms = (st_mstate *)test_find_object(s, name);
    cr_assert(ms, "no state %s", name);
    return ms;
}

static void near(double got, double want, double tol, const char *what)
{
    cr_assert(fabs(got - want) <= tol * (fabs(want) > 1 ? fabs(want) : 1),
              "%s: got %.17g, want %.17g", what, got, want);
}

/* Solver lines for the three paths. */
static const char *solver_lines(const char *which)
{
    if (strcmp(which, "explicit") == 0)
        return "    - EulerExplicitSolver: {symplectic: true}\n";
    if (strcmp(which, "cg") == 0)
        return "    - EulerImplicitSolver: {}\n"
               "    - CGLinearSolver: {iterations: 200, tolerance: 1e-30, threshold: 1e-30}\n";
    return "    - EulerImplicitSolver: {}\n"
           "    - SparseLDLSolver: {}\n";
}

/* ---- LineProjectiveConstraint ---- */

/* SOFA's unit test setup: three points x_i = v_i = (i, 0, 0), the line
 * through 0 along (1, 1, 1); point 1 projected: x_1 = v_1 = (1/3)(1, 1, 1),
 * the others untouched. The direction is written back normalised. */
Test(line, projects_position_and_velocity_like_sofas_test)
{
    test_rt t;
    st_scene *s = load(&t, "0, 0, 0",
                       "    - EulerExplicitSolver: {}\n"
                       "    - MechanicalObject: {name: dofs, position: [[0,0,0],[1,0,0],[2,0,0]],\n"
                       "                         velocity: [[0,0,0],[1,0,0],[2,0,0]]}\n"
                       "    - UniformMass: {vertexMass: 1}\n"
                       "    - LineProjectiveConstraint: {name: c, indices: [1], origin: [0,0,0],\n"
                       "                                 direction: [1,1,1]}\n");
    st_mstate *ms = state(s, "dofs");
    for (int a = 0; a < 3; a++) {
        near(ms->position.r[3 + a], 1.0 / 3, 1e-15, "x1");
        near(ms->velocity.r[3 + a], 1.0 / 3, 1e-15, "v1");
        near(ms->position.r[6 + a], a == 0 ? 2 : 0, 0, "x2 untouched");
    }
    st_component *c = test_find_object(s, "c");
    const st_array *d = st_component_field_ptr(c, st_component_field(c, "direction"));
    near(d->r[0], 1 / sqrt(3.0), 1e-15, "normalised direction");
    done(&s, &t);
}

/* A point on the line through 0 along n = (1, -1, 0)/sqrt2 falls under
 * g = (0, -10, 0): its acceleration is (g.n) n = (5, -5, 0), so with
 * symplectic or implicit Euler (no stiffness) x_k = h^2 a k (k + 1) / 2 on
 * every path (direct included: the mass matrix needs no projection). */
static void line_fall(const char *which)
{
    char objs[2048];
    snprintf(objs, sizeof objs,
             "%s"
             "    - MechanicalObject: {name: dofs, position: [[0,0,0]]}\n"
             "    - UniformMass: {vertexMass: 2}\n"
             "    - ProjectToLineConstraint: {indices: [0], direction: [1,-1,0]}\n",
             solver_lines(which));
    test_rt t;
    st_scene *s = load(&t, "0, -10, 0", objs);
    st_mstate *ms = state(s, "dofs");
    steps(s, 50);
    double h = 0.01, k = 50, want = h * h * 5 * k * (k + 1) / 2;
    near(ms->position.r[0], want, 1e-12, which);
    near(ms->position.r[1], -want, 1e-12, which);
    near(ms->position.r[2], 0, 1e-12, which);
    near(ms->velocity.r[0], h * 5 * k, 1e-12, which);
    done(&s, &t);
}

Test(line, fall_along_an_oblique_line_explicit) { line_fall("explicit"); }
Test(line, fall_along_an_oblique_line_cg) { line_fall("cg"); }
Test(line, fall_along_an_oblique_line_direct) { line_fall("direct"); }

/* Two points and a spring; point 0 constrained by `constraint`. Runs 30
 * steps with the given solver and returns both positions (6 values). */
static void spring_pair(const char *which, const char *constraint, const char *tmpl,
                        const char *pos, unsigned w, double *out)
{
    char objs[4096];
    snprintf(objs, sizeof objs,
             "%s"
             "    - MechanicalObject: {name: dofs, template: %s, position: \"%s\"}\n"
             "    - UniformMass: {vertexMass: 0.5}\n"
             "    - SpringForceField: {indices1: [0], indices2: [1], stiffness: [200], "
             "damping: [0], lengths: [0.8]}\n"
             "    - %s\n",
             solver_lines(which), tmpl, pos, constraint);
    test_rt t;
    st_scene *s = load(&t, "0.5, -9.81, 0.3", objs);
    st_mstate *ms = state(s, "dofs");
    steps(s, 30);
    memcpy(out, ms->position.r, 2 * w * sizeof *out);
    done(&s, &t);
}

/* With a line, plane or point along the axes, the assembled matrix is
 * projected exactly (rows and columns of the removed DOFs): the direct
 * solver then gives the CG solution, and the constrained point stays put. */
static void direct_matches_cg(const char *constraint, const char *tmpl, const char *pos, unsigned w,
                              unsigned check_axis, double check_value)
{
    double a[6], b[6];
    spring_pair("cg", constraint, tmpl, pos, w, a);
    spring_pair("direct", constraint, tmpl, pos, w, b);
    for (unsigned k = 0; k < 2 * w; k++)
        near(b[k], a[k], 1e-9, constraint);
    near(a[check_axis], check_value, 1e-12, "constrained coordinate");
    cr_assert(fabs(a[w] - 1.0) > 1e-3 || fabs(a[w + 1] - 1.0) > 1e-3, "the free point moved");
}

Test(line, axis_line_direct_matches_cg)
{
    direct_matches_cg(
        "LineProjectiveConstraint: {indices: [0], origin: [0,0,0], direction: [0,0,3]}", "Vec3d",
        "0 0 0  1 1 0", 3, 0, 0.0);
}

Test(plane, axis_plane_direct_matches_cg)
{
    direct_matches_cg(
        "PlaneProjectiveConstraint: {indices: [0], origin: [0,0.25,0], normal: [0,2,0]}", "Vec3d",
        "0 0 0  1 1 0", 3, 1, 0.25);
}

Test(point, point_direct_matches_cg)
{
    direct_matches_cg("PointProjectiveConstraint: {indices: [0], point: [0.1, 0.2, 0.3]}", "Vec3d",
                      "0 0 0  1 1 0", 3, 2, 0.3);
}

Test(line, vec2d_axis_line_direct_matches_cg)
{
    direct_matches_cg(
        "LineProjectiveConstraint: {indices: [0], origin: [0, 0.5], direction: [1, 0]}", "Vec2d",
        "0 0  1 1", 2, 1, 0.5);
}

/* An oblique line with a direct solver: SOFA leaves the matrix alone; the
 * point still ends each step on the line (positions and velocities are
 * projected after the solve). */
Test(line, oblique_line_direct_stays_on_the_line)
{
    double x[6];
    spring_pair("direct", "LineProjectiveConstraint: {indices: [0], direction: [1,2,2]}", "Vec3d",
                "0 0 0  1 1 0", 3, x);
    double t = (x[0] + 2 * x[1] + 2 * x[2]) / 9;
    near(x[0], t, 1e-12, "x on the line");
    near(x[1], 2 * t, 1e-12, "y on the line");
    near(x[2], 2 * t, 1e-12, "z on the line");
    cr_assert(fabs(t) > 1e-4, "the point moved along the line");
}

/* Vec2d: (2, 0) projected on the line through 0 along (1, 1) is (1, 1). */
Test(line, vec2d_projection)
{
    test_rt t;
    st_scene *s =
        load(&t, "0, 0, 0",
             "    - EulerExplicitSolver: {}\n"
             "    - MechanicalObject: {name: dofs, template: Vec2d, position: \"2 0  5 5\"}\n"
             "    - UniformMass: {vertexMass: 1}\n"
             "    - LineProjectiveConstraint: {indices: [0], direction: [1, 1]}\n");
    st_mstate *ms = state(s, "dofs");
    near(ms->position.r[0], 1, 1e-15, "x");
    near(ms->position.r[1], 1, 1e-15, "y");
    done(&s, &t);
}

Test(line, default_direction_is_x_and_bad_arity_is_an_error)
{
    test_rt t;
    st_scene *s = load(&t, "0, 0, 0",
                       "    - EulerExplicitSolver: {}\n"
                       "    - MechanicalObject: {name: dofs, position: [[1,2,3]]}\n"
                       "    - UniformMass: {vertexMass: 1}\n"
                       "    - LineProjectiveConstraint: {origin: [0, 1, 1]}\n");
    st_mstate *ms = state(s, "dofs");
    near(ms->position.r[0], 1, 0, "x kept");
    near(ms->position.r[1], 1, 0, "y to the origin's");
    near(ms->position.r[2], 1, 0, "z to the origin's");
    done(&s, &t);

    const char *yaml = "format: settee/1\n"
                       "root:\n"
                       "  objects:\n"
                       "    - RequiredPlugin: {pluginName: [" PLUGINS "]}\n"
                       "    - EulerExplicitSolver: {}\n"
                       "    - MechanicalObject: {position: [[1,2,3]]}\n"
                       "    - UniformMass: {vertexMass: 1}\n"
                       "    - LineProjectiveConstraint: {direction: [1, 1]}\n";
    test_rt_open(&t);
    st_error err = {0};
    cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "expects 3 values"), "%s", err.msg);
    done(&s, &t);
}

/* ---- PlaneProjectiveConstraint ---- */

/* SOFA's test setup: x_i = (i, 0, 0), the plane through 0 with normal
 * (1, 1, 1): x_1 - n ((x_1 - o).n) = (2/3, -1/3, -1/3). A null normal lets
 * the points free (SOFA's fallback keeps it null). */
Test(plane, projects_like_sofas_test)
{
    test_rt t;
    st_scene *s = load(&t, "0, 0, 0",
                       "    - EulerExplicitSolver: {}\n"
                       "    - MechanicalObject: {name: dofs, position: [[0,0,0],[1,0,0],[2,0,0]],\n"
                       "                         velocity: [[0,0,0],[1,0,0],[2,0,0]]}\n"
                       "    - UniformMass: {vertexMass: 1}\n"
                       "    - ProjectToPlaneConstraint: {indices: [1, 2], normal: [1,1,1]}\n"
                       "    - MechanicalObject: {name: free, position: [[1,2,3]]}\n");
    st_mstate *ms = state(s, "dofs");
    const double want[3] = {2.0 / 3, -1.0 / 3, -1.0 / 3};
    for (int a = 0; a < 3; a++) {
        near(ms->position.r[3 + a], want[a], 1e-15, "x1");
        near(ms->velocity.r[3 + a], want[a], 1e-15, "v1");
        near(ms->position.r[6 + a], 2 * want[a], 1e-15, "x2");
    }
    done(&s, &t);
}

/* A point sliding on the plane z = 1 under g = (1, -2, -10): it keeps
 * z = 1 and moves with (1, -2, 0) on every path. */
static void plane_fall(const char *which)
{
    char objs[2048];
    snprintf(objs, sizeof objs,
             "%s"
             "    - MechanicalObject: {name: dofs, position: [[0,0,1]]}\n"
             "    - UniformMass: {vertexMass: 3}\n"
             "    - PlaneProjectiveConstraint: {indices: [0], origin: [5,5,1], normal: [0,0,1]}\n",
             solver_lines(which));
    test_rt t;
    st_scene *s = load(&t, "1, -2, -10", objs);
    st_mstate *ms = state(s, "dofs");
    steps(s, 40);
    double h = 0.01, k = 40, c = h * h * k * (k + 1) / 2;
    near(ms->position.r[0], c, 1e-12, which);
    near(ms->position.r[1], -2 * c, 1e-12, which);
    near(ms->position.r[2], 1, 1e-14, which);
    done(&s, &t);
}

Test(plane, slide_explicit) { plane_fall("explicit"); }
Test(plane, slide_cg) { plane_fall("cg"); }
Test(plane, slide_direct) { plane_fall("direct"); }

/* ---- PointProjectiveConstraint ---- */

Test(point, projects_to_the_point_and_fix_all)
{
    test_rt t;
    st_scene *s = load(&t, "0, -10, 0",
                       "    - EulerExplicitSolver: {}\n"
                       "    - MechanicalObject: {name: dofs, position: [[0,0,0],[1,0,0],[2,0,0]],\n"
                       "                         velocity: [[0,0,0],[1,0,0],[2,0,0]]}\n"
                       "    - UniformMass: {vertexMass: 1}\n"
                       "    - PointProjectiveConstraint: {indices: [1], point: [1, 2, 3]}\n");
    st_mstate *ms = state(s, "dofs");
    for (int a = 0; a < 3; a++) {
        near(ms->position.r[3 + a], a + 1, 0, "x1 at the point");
        near(ms->velocity.r[3 + a], 0, 0, "v1 zero");
    }
    steps(s, 3);
    near(ms->position.r[4], 2, 0, "held");
    near(ms->position.r[7], -10 * 0.01 * 0.01 * 6, 1e-15, "point 2 falls");
    done(&s, &t);

    s = load(&t, "0, -10, 0",
             "    - EulerImplicitSolver: {}\n"
             "    - SparseLDLSolver: {}\n"
             "    - MechanicalObject: {name: dofs, template: Vec1d, position: [4, 5]}\n"
             "    - UniformMass: {vertexMass: 1}\n"
             "    - PointProjectiveConstraint: {fixAll: true, point: [7]}\n");
    ms = state(s, "dofs");
    steps(s, 2);
    near(ms->position.r[0], 7, 0, "Vec1d fixAll");
    near(ms->position.r[1], 7, 0, "Vec1d fixAll");
    done(&s, &t);
}

/* ---- DirectionProjectiveConstraint ---- */

/* Point 0 at (1, 2, 3) may only move along z (direction (0, 0, 2)), on
 * the line through its initial position: under g = (4, 5, -10) it keeps
 * x = 1, y = 2 and falls by h^2 g_z k (k + 1) / 2. */
static void direction_fall(const char *which)
{
    char objs[2048];
    snprintf(objs, sizeof objs,
             "%s"
             "    - MechanicalObject: {name: dofs, position: [[1,2,3]]}\n"
             "    - UniformMass: {vertexMass: 1}\n"
             "    - ProjectDirectionConstraint: {indices: [0], direction: [0,0,2]}\n",
             solver_lines(which));
    test_rt t;
    st_scene *s = load(&t, "4, 5, -10", objs);
    st_mstate *ms = state(s, "dofs");
    steps(s, 20);
    double h = 0.01, k = 20;
    near(ms->position.r[0], 1, 1e-14, which);
    near(ms->position.r[1], 2, 1e-14, which);
    near(ms->position.r[2], 3 - 10 * h * h * k * (k + 1) / 2, 1e-12, which);
    done(&s, &t);
}

Test(direction, fall_explicit) { direction_fall("explicit"); }
Test(direction, fall_cg) { direction_fall("cg"); }
Test(direction, fall_direct) { direction_fall("direct"); }

/* SOFA's test: the projected position stays on the line through the
 * initial position: (1, 0, 0) with direction (1, 1, 1), moved to (3, 0, 0)
 * by hand then projected: 1 + P (2, 0, 0) = (1 + 2/3, 2/3, 2/3). */
Test(direction, oblique_projection)
{
    test_rt t;
    st_scene *s = load(&t, "0, 0, 0",
                       "    - EulerExplicitSolver: {}\n"
                       "    - MechanicalObject: {name: dofs, position: [[1,0,0]]}\n"
                       "    - UniformMass: {vertexMass: 1}\n"
                       "    - DirectionProjectiveConstraint: {name: c, indices: [0], "
                       "direction: [1,1,1]}\n");
    st_mstate *ms = state(s, "dofs");
    st_component *c = test_find_object(s, "c");
    ms->position.r[0] = 3;
    st_mparams mp = {.struct_size = sizeof mp};
    c->cls->projective->project_position(c, &mp, ms->system->x);
    near(ms->position.r[0], 1 + 2.0 / 3, 1e-15, "x");
    near(ms->position.r[1], 2.0 / 3, 1e-15, "y");
    near(ms->position.r[2], 2.0 / 3, 1e-15, "z");
    done(&s, &t);
}

/* ---- AffineMovementProjectiveConstraint ---- */

/* Timing on one free point, dt 0.1, begin 0.1, end 0.3, T = (1, 2, 0),
 * rotation identity: the projection ending the step from t reads t, so
 * after step 3 (t = 0.2) x = x0 + T/2, after step 5 x = x0 + T; the
 * velocity stays zero. */
Test(affine, timing_of_the_blend)
{
    test_rt t;
    st_scene *s = load(&t, "0, -10, 0",
                       "    - EulerExplicitSolver: {}\n"
                       "    - MechanicalObject: {name: dofs, position: [[1,1,1]]}\n"
                       "    - UniformMass: {vertexMass: 1}\n"
                       "    - AffineMovementProjectiveConstraint: {indices: [0], "
                       "beginConstraintTime: 0.1,\n"
                       "        endConstraintTime: 0.3, rotation: [1,0,0, 0,1,0, 0,0,1], "
                       "translation: [1, 2, 0]}\n");
    st_error err = {0};
    cr_assert_eq(st_node_set(st_scene_root(s), "dt", "0.1", &err), ST_OK);
    st_mstate *ms = state(s, "dofs");
    steps(s, 2);
    near(ms->position.r[0], 1, 0, "before the motion");
    steps(s, 1);
    near(ms->position.r[0], 1.5, 1e-12, "halfway x");
    near(ms->position.r[1], 2, 1e-12, "halfway y");
    near(ms->velocity.r[1], 0, 0, "velocity zeroed");
    steps(s, 2);
    near(ms->position.r[0], 2, 1e-12, "final x");
    near(ms->position.r[1], 3, 1e-12, "final y");
    near(ms->position.r[2], 1, 1e-12, "final z");
    done(&s, &t);
}

/* SOFA's default rotation is the zero matrix: without one, the points end
 * at the translation. */
Test(affine, default_rotation_is_zero)
{
    test_rt t;
    st_scene *s = load(&t, "0, 0, 0",
                       "    - EulerExplicitSolver: {}\n"
                       "    - MechanicalObject: {name: dofs, position: [[1,1,1]]}\n"
                       "    - UniformMass: {vertexMass: 1}\n"
                       "    - AffineMovementConstraint: {indices: [0], endConstraintTime: 0.005,\n"
                       "                                 translation: [0, 0, 4]}\n");
    st_mstate *ms = state(s, "dofs");
    steps(s, 2);
    near(ms->position.r[0], 0, 0, "x");
    near(ms->position.r[2], 4, 0, "z");
    done(&s, &t);
}

/* Rigid3d: centre (1, 0, 0) rotated by 90 degrees about z and lifted by 1:
 * (0, 1, 1); orientation identity composed with the quaternion. */
Test(affine, rigid3d)
{
    test_rt t;
    st_scene *s = load(&t, "0, 0, 0",
                       "    - EulerExplicitSolver: {}\n"
                       "    - MechanicalObject: {name: dofs, template: Rigid3d, "
                       "position: \"1 0 0 0 0 0 1\"}\n"
                       "    - UniformMass: {vertexMass: 1}\n"
                       "    - AffineMovementProjectiveConstraint: {indices: [0], "
                       "endConstraintTime: 0.005,\n"
                       "        quaternion: [0, 0, 0.70710678118654752, 0.70710678118654752], "
                       "translation: [0, 0, 1]}\n");
    st_mstate *ms = state(s, "dofs");
    steps(s, 2);
    const double want[7] = {0, 1, 1, 0, 0, sqrt(0.5), sqrt(0.5)};
    for (int k = 0; k < 7; k++)
        near(ms->position.r[k], want[k], 1e-12, "rigid coordinate");
    done(&s, &t);
}

/* SOFA's patch test, re-derived: a 5x5 grid of [0,1]^2 with springs, its
 * border carried by a rotation of 0.7 rad about z and a translation; the
 * inside, free, must end exactly at the same rigid image. dt 0.5, the
 * motion done after 0.1 s, EulerImplicit with Rayleigh damping until rest;
 * CG and direct solvers. */
static const char *grid_border = "[0, 1, 2, 3, 4, 5, 9, 10, 14, 15, 19, 20, 21, 22, 23, 24]";

static void affine_patch(const char *linear)
{
    const double th = 0.7, c = cos(th), sn = sin(th), T[2] = {0.4, -1.1};
    char objs[4096];
    snprintf(objs, sizeof objs,
             "    - EulerImplicitSolver: {rayleighStiffness: 0.5, rayleighMass: 0.5}\n"
             "    - %s\n"
             "    - RegularGridTopology: {nx: 5, ny: 5, nz: 1, xmin: 0, xmax: 1, ymin: 0, "
             "ymax: 1, zmin: 0, zmax: 0}\n"
             "    - MechanicalObject: {name: dofs}\n"
             "    - UniformMass: {totalMass: 1}\n"
             "    - MeshSpringForceField: {stiffness: 10}\n"
             "    - AffineMovementProjectiveConstraint: {indices: %s, endConstraintTime: 0.1,\n"
             "        rotation: [%.17g, %.17g, 0, %.17g, %.17g, 0, 0, 0, 1], "
             "translation: [%g, %g, 0]}\n",
             linear, grid_border, c, -sn, sn, c, T[0], T[1]);
    test_rt t;
    st_scene *s = load(&t, "0, 0, 0", objs);
    st_error err = {0};
    cr_assert_eq(st_node_set(st_scene_root(s), "dt", "0.5", &err), ST_OK);
    st_mstate *ms = state(s, "dofs");
    steps(s, 400);
    for (size_t i = 0; i < 25; i++) {
        double x = (double)(i % 5) / 4, y = (double)(i / 5) / 4;
        near(ms->position.r[3 * i], c * x - sn * y + T[0], 1e-8, "x");
        near(ms->position.r[3 * i + 1], sn * x + c * y + T[1], 1e-8, "y");
        near(ms->position.r[3 * i + 2], 0, 1e-12, "z");
    }
    done(&s, &t);
}

Test(affine, patch_test_cg)
{
    affine_patch("CGLinearSolver: {iterations: 200, tolerance: 1e-25, threshold: 1e-25}");
}
Test(affine, patch_test_direct) { affine_patch("SparseLDLSolver: {}"); }

/* ---- PatchTestMovementProjectiveConstraint ---- */

/* The 3x3 grid of [0,2]^2 on springs, its border points (indices
 * 0-3, 5-8) moved by a PatchTestMovementConstraint until t = 0.1. */
static st_scene *patch_scene(test_rt *t, const char *ode, const char *linear, const char *pts,
                             const char *mov)
{
    char objs[4096];
    snprintf(objs, sizeof objs,
             "    - %s\n"
             "    - %s\n"
             "    - RegularGridTopology: {nx: 3, ny: 3, nz: 1, xmin: 0, xmax: 2, ymin: 0, "
             "ymax: 2, zmin: 0, zmax: 0}\n"
             "    - MechanicalObject: {name: dofs}\n"
             "    - UniformMass: {totalMass: 1}\n"
             "    - MeshSpringForceField: {stiffness: 10}\n"
             "    - PatchTestMovementConstraint: {indices: [0, 1, 2, 3, 5, 6, 7, 8], "
             "endConstraintTime: 0.1,\n"
             "        constrainedPoints: [%s],\n"
             "        cornerMovements: [%s]}\n",
             ode, linear, pts, mov);
    return load(t, "0, 0, 0", objs);
}

/* A 3x3 grid of [0,2]^2. SOFA's corner rules on the border points (in
 * index order) give c0 = (0,0), c1 = (2,0), c2 = (2,2), c3 = (0,2), so
 * a = x/2, b = y/2. Corner movements of the affine field u(p) = A p + u0,
 * A = [[0.1, 0.3], [-0.2, 0.05]], u0 = (0.2, 0.1): the border points get
 * exactly u, and the free centre (springs) follows to (1, 1) + u(1, 1). */
static void patch_grid(const char *linear)
{
    const double A[4] = {0.1, 0.3, -0.2, 0.05}, u0[2] = {0.2, 0.1};
    const double cx[4] = {0, 2, 2, 0}, cy[4] = {0, 0, 2, 2};
    char mov[512] = "", pts[512] = "";
    for (int k = 0; k < 4; k++) {
        char one[128];
        snprintf(one, sizeof one, "%s%.17g, %.17g, 0", k ? ", " : "",
                 A[0] * cx[k] + A[1] * cy[k] + u0[0], A[2] * cx[k] + A[3] * cy[k] + u0[1]);
        strcat(mov, one);
    }
    const unsigned border[8] = {0, 1, 2, 3, 5, 6, 7, 8};
    for (int k = 0; k < 8; k++) {
        char one[64];
        snprintf(one, sizeof one, "%s%u, %u, 0", k ? ", " : "", border[k] % 3, border[k] / 3);
        strcat(pts, one);
    }
    test_rt t;
    st_scene *s = patch_scene(&t, "EulerImplicitSolver: {rayleighStiffness: 0.5, rayleighMass: 0.5}",
                              linear, pts, mov);
    st_error err = {0};
    cr_assert_eq(st_node_set(st_scene_root(s), "dt", "0.5", &err), ST_OK);
    st_mstate *ms = state(s, "dofs");
    steps(s, 400);
    for (size_t i = 0; i < 9; i++) {
        double x = (double)(i % 3), y = (double)(i / 3);
        near(ms->position.r[3 * i], x + A[0] * x + A[1] * y + u0[0], 1e-8, "x");
        near(ms->position.r[3 * i + 1], y + A[2] * x + A[3] * y + u0[1], 1e-8, "y");
    }
    done(&s, &t);
}

Test(patch_test, affine_field_cg)
{
    patch_grid("CGLinearSolver: {iterations: 200, tolerance: 1e-25, threshold: 1e-25}");
}
Test(patch_test, affine_field_direct) { patch_grid("SparseLDLSolver: {}"); }

/* Three movements for four corners: SOFA reads past the end of its list;
 * settee warns and the fourth corner (0, 2) does not move: point 6 stays,
 * point 7 (a = 1/2, b = 1) moves by m2 / 2. */
Test(patch_test, missing_corner_movements_are_zero_and_said)
{
    test_rt t;
    st_scene *s = patch_scene(&t, "EulerImplicitSolver: {}", "SparseLDLSolver: {}",
                              "0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 2, 1, 0, 0, 2, 0, 1, 2, 0, 2, 2, 0",
                              "0.1, 0, 0, 0.2, 0, 0, 0.4, 0.2, 0");
    cr_assert(strstr(t.log, "4 corners need 4 corner movements, got 3: corners 3 to 3 do not move"),
              "%s", t.log);
    st_mstate *ms = state(s, "dofs");
    steps(s, 20);
    near(ms->position.r[3 * 6], 0, 1e-12, "x6");
    near(ms->position.r[3 * 6 + 1], 2, 1e-12, "y6");
    near(ms->position.r[3 * 7], 1 + 0.2, 1e-12, "x7");
    near(ms->position.r[3 * 7 + 1], 2 + 0.1, 1e-12, "y7");
    near(ms->position.r[3 * 8], 2 + 0.4, 1e-12, "x8");
    done(&s, &t);
}

/* ---- AttachProjectiveConstraint ---- */

/* Two states under one solver: A (2 points, a force on point 1) and B
 * (1 point), B's point 0 attached to A's point 1. */
static st_scene *attach_scene(test_rt *t, const char *solver, const char *tmpl, const char *pa,
                              const char *va, const char *pb, const char *force, const char *attach)
{
    char objs[4096];
    snprintf(objs, sizeof objs,
             "%s"
             "  children:\n"
             "    - name: A\n"
             "      objects:\n"
             "        - MechanicalObject: {name: a, template: %s, position: \"%s\", "
             "velocity: \"%s\"}\n"
             "        - UniformMass: {vertexMass: 2}\n"
             "%s"
             "    - name: B\n"
             "      objects:\n"
             "        - MechanicalObject: {name: b, template: %s, position: \"%s\"}\n"
             "        - UniformMass: {vertexMass: 2}\n",
             solver, tmpl, pa, va, force, tmpl, pb);
    /* The constraint sits in the root, with the solver. */
    char all[8192];
    snprintf(all, sizeof all,
             "    - AttachProjectiveConstraint: {object1: \"@A/a\", object2: "
             "\"@B/b\", indices1: [1], indices2: [0]%s}\n%s",
             attach, objs);
    return load(t, "0, 0, 0", all);
}

/* One-way Vec3d: SOFA moves x2 halfway to x1 and averages the two
 * velocities at each end of step; the response of object2 is zeroed.
 * With F on A's point 1 (mass m), every path follows the recursion
 *   v1 += h F/m, x1 += h v1, x2 += h v2, then x2 = (x1 + x2)/2,
 *   v1 = v2 = (v1 + v2)/2. */
static void attach_one_way(const char *which)
{
    test_rt t;
    st_scene *s =
        attach_scene(&t, solver_lines(which), "Vec3d", "0 0 0  1 0 0", "0 0 0  0 0 0", "3 0 0",
                     "        - ConstantForceField: {indices: [1], forces: [[0, 4, 0]]}\n", "");
    double x1[3] = {1, 0, 0}, x2[3] = {2, 0, 0}, v1[3] = {0}, v2[3] = {0}, h = 0.01;
    const double a[3] = {0, 2, 0};
    st_mstate *A = state(s, "a"), *B = state(s, "b");
    near(B->position.r[0], 2, 1e-15, "x2 halfway at init");
    for (int k = 0; k < 20; k++) {
        for (int j = 0; j < 3; j++) {
            v1[j] += h * a[j];
            x1[j] += h * v1[j];
            x2[j] += h * v2[j];
            x2[j] = (x1[j] + x2[j]) / 2;
            v1[j] = v2[j] = (v1[j] + v2[j]) / 2;
        }
    }
    steps(s, 20);
    for (int j = 0; j < 3; j++) {
        near(A->position.r[3 + j], x1[j], 1e-12, which);
        near(B->position.r[j], x2[j], 1e-12, which);
        near(B->velocity.r[j], v2[j], 1e-12, which);
    }
    done(&s, &t);
}

Test(attach, one_way_explicit) { attach_one_way("explicit"); }
Test(attach, one_way_cg) { attach_one_way("cg"); }
Test(attach, one_way_direct) { attach_one_way("direct"); }

/* twoWay: responses averaged too, so two equal masses starting together
 * move as one under F on the first: x = x0 + h^2 (F/2m) k(k+1)/2. */
static void attach_two_way(const char *which)
{
    test_rt t;
    st_scene *s = attach_scene(
        &t, solver_lines(which), "Vec3d", "0 0 0  1 0 0", "0 0 0  0 0 0", "1 0 0",
        "        - ConstantForceField: {indices: [1], forces: [[0, 4, 0]]}\n", ", twoWay: true");
    steps(s, 20);
    st_mstate *A = state(s, "a"), *B = state(s, "b");
    double want = 1e-4 * 1.0 * 20 * 21 / 2;
    near(A->position.r[4], want, 1e-12, which);
    near(B->position.r[1], want, 1e-12, which);
    done(&s, &t);
}

Test(attach, two_way_explicit) { attach_two_way("explicit"); }
Test(attach, two_way_cg) { attach_two_way("cg"); }
Test(attach, two_way_direct) { attach_two_way("direct"); }

/* Rigid3d: object2 takes object1's centre and orientation, and its
 * velocity; it follows a spinning, moving frame exactly. */
Test(attach, rigid3d_follows)
{
    test_rt t;
    st_scene *s =
        attach_scene(&t, solver_lines("explicit"), "Rigid3d", "0 0 0 0 0 0 1  1 0 0 0 0 0 1",
                     "0 0 0 0 0 0  1 0 0 0 0 2", "5 5 5 0 0 0 1", "", "");
    steps(s, 15);
    st_mstate *A = state(s, "a"), *B = state(s, "b");
    for (int k = 0; k < 7; k++)
        near(B->position.r[k], A->position.r[7 + k], 1e-14, "rigid coordinate");
    for (int k = 0; k < 6; k++)
        near(B->velocity.r[k], A->velocity.r[6 + k], 1e-14, "rigid velocity");
    near(A->position.r[7], 1 + 15 * 0.01, 1e-12, "object1 unaffected");
    done(&s, &t);
}

/* minDistance: a pair farther apart is released; object2 then falls
 * freely (its response is not zeroed). With clamp and lastDir, a pair
 * whose object1 point passed lastPos is pulled to lastPos instead. */
Test(attach, release_and_clamp)
{
    test_rt t;
    st_scene *s = attach_scene(&t, solver_lines("explicit"), "Vec3d", "0 0 0  1 0 0",
                               "0 0 0  0 0 0", "3 0 0", "", ", minDistance: 1");
    st_mstate *B = state(s, "b");
    near(B->position.r[0], 3, 0, "released: not moved");
    done(&s, &t);

    s = attach_scene(&t, solver_lines("explicit"), "Vec3d", "0 0 0  0 0 0", "0 0 0  1 0 0", "0 0 0",
                     "", ", lastPos: [0.05, 0, 0], lastDir: [1, 0, 0], clamp: true");
    steps(s, 200);
    B = state(s, "b");
    st_mstate *A = state(s, "a");
    near(B->position.r[0], 0.05, 1e-9, "clamped at lastPos");
    cr_assert_gt(A->position.r[3], 0.5, "object1 went on");
    done(&s, &t);
}

/* ---- OscillatorProjectiveConstraint ---- */

/* After k steps of h the projection read the time t = (k - 1) h:
 * x = mean + a sin(w t + p), v = a w cos(w t + p). Rigid3d: a rotation
 * about z by sin(w t + p) from the mean orientation. */
Test(oscillator, vec3d_and_rigid3d)
{
    const double w = 6.283185307179586, p = 0.3, t10 = 9 * 0.01;
    test_rt t;
    st_scene *s = load(&t, "0, -10, 0",
                       "    - EulerImplicitSolver: {}\n"
                       "    - SparseLDLSolver: {}\n"
                       "    - MechanicalObject: {name: dofs, position: [[0,0,0],[5,5,5]]}\n"
                       "    - UniformMass: {vertexMass: 1}\n"
                       "    - OscillatorConstraint: {oscillators: \"1  1 2 3  0.5 0 -1  "
                       "6.283185307179586 0.3\"}\n");
    st_mstate *ms = state(s, "dofs");
    steps(s, 10);
    const double mean[3] = {1, 2, 3}, a[3] = {0.5, 0, -1};
    for (int k = 0; k < 3; k++) {
        near(ms->position.r[3 + k], mean[k] + a[k] * sin(w * t10 + p), 1e-13, "x");
        near(ms->velocity.r[3 + k], a[k] * w * cos(w * t10 + p), 1e-13, "v");
    }
    near(ms->position.r[1], -10 * 1e-4 * 55, 1e-12, "point 0 falls freely");
    done(&s, &t);

    s = load(
        &t, "0, 0, 0",
        "    - EulerExplicitSolver: {}\n"
        "    - MechanicalObject: {name: dofs, template: Rigid3d, position: \"0 0 0 0 0 0 1\"}\n"
        "    - UniformMass: {vertexMass: 1}\n"
        "    - OscillatorProjectiveConstraint: {oscillators: \"0  1 0 0 0 0 0 1  0 0 0 0 0 1  "
        "6.283185307179586 0.3\"}\n");
    ms = state(s, "dofs");
    steps(s, 10);
    double ang = sin(w * t10 + p);
    near(ms->position.r[0], 1, 1e-15, "centre");
    near(ms->position.r[5], sin(ang / 2), 1e-13, "qz");
    near(ms->position.r[6], cos(ang / 2), 1e-13, "qw");
    near(ms->velocity.r[5], w * cos(w * t10 + p), 1e-13, "wz");
    done(&s, &t);
}

/* ---- ParabolicProjectiveConstraint ---- */

/* P1 = 0, P2 = (1, 1, 0), P3 = (2, 0, 0), over [0, 1]: the local frame is
 * the world's, x2 = y2 = 1, x3 = 2, so y(s) = 2 s - s^2 with s = 2 t. After
 * 26 steps of 0.01 (t = 0.25): (0.5, 0.75, 0); the velocity is the
 * one-step difference. */
Test(parabolic, worked_values)
{
    test_rt t;
    st_scene *s = load(&t, "0, -10, 0",
                       "    - EulerExplicitSolver: {}\n"
                       "    - MechanicalObject: {name: dofs, position: [[7,7,7]]}\n"
                       "    - UniformMass: {vertexMass: 1}\n"
                       "    - ParabolicConstraint: {indices: [0], P1: [0,0,0], P2: [1,1,0], "
                       "P3: [2,0,0], BeginTime: 0, EndTime: 1}\n");
    st_mstate *ms = state(s, "dofs");
    steps(s, 26);
    near(ms->position.r[0], 0.5, 1e-12, "x");
    near(ms->position.r[1], 0.75, 1e-12, "y");
    near(ms->position.r[2], 0, 1e-12, "z");
    double s0 = 0.5, s1 = 2 * 0.26;
    near(ms->velocity.r[0], 2, 1e-9, "vx");
    near(ms->velocity.r[1], ((2 * s1 - s1 * s1) - (2 * s0 - s0 * s0)) / 0.01, 1e-9, "vy");
    done(&s, &t);
}

/* A tilted parabola: the point passes through P2 and ends on P3. */
Test(parabolic, passes_through_the_three_points)
{
    test_rt t;
    st_scene *s =
        load(&t, "0, 0, 0",
             "    - EulerImplicitSolver: {}\n"
             "    - CGLinearSolver: {iterations: 50, tolerance: 1e-20, threshold: 1e-20}\n"
             "    - MechanicalObject: {name: dofs, position: [[0,0,0]]}\n"
             "    - UniformMass: {vertexMass: 1}\n"
             "    - ParabolicProjectiveConstraint: {indices: [0], P1: [1,0,2], "
             "P2: [2,1,2.5], P3: [4,-1,3], BeginTime: 0.1, EndTime: 0.5}\n");
    st_mstate *ms = state(s, "dofs");
    /* The end of step k reads t = (k - 1) h; t = 0.5 at k = 51. */
    steps(s, 51);
    near(ms->position.r[0], 4, 1e-12, "x at P3");
    near(ms->position.r[1], -1, 1e-12, "y at P3");
    near(ms->position.r[2], 3, 1e-12, "z at P3");
    done(&s, &t);
}

/* ---- FixedRotation- and FixedTranslationProjectiveConstraint ---- */

/* A frame starting at 30 degrees about z spins about z (w = 2) and about
 * x (w = 3) in two scenes; with FixedZRotation the z spin is undone at
 * every step (the initial z twist is kept), the x spin is not. */
Test(fixed_rotation, removes_the_twist_about_fixed_axes)
{
    const double c = cos(M_PI / 12), sn = sin(M_PI / 12);
    char objs[1024];
    snprintf(objs, sizeof objs,
             "    - EulerExplicitSolver: {}\n"
             "    - MechanicalObject: {name: dofs, template: Rigid3d, position: \"0 0 0 0 0 %.17g "
             "%.17g\", velocity: \"0 0 0 0 0 2\"}\n"
             "    - UniformMass: {vertexMass: 1}\n"
             "    - FixedRotationConstraint: {FixedZRotation: true}\n",
             sn, c);
    test_rt t;
    st_scene *s = load(&t, "0, 0, 0", objs);
    steps(s, 10);
    st_mstate *ms = state(s, "dofs");
    near(ms->position.r[5], sn, 1e-12, "qz kept");
    near(ms->position.r[6], c, 1e-12, "qw kept");
    done(&s, &t);

    s = load(&t, "0, 0, 0",
             "    - EulerExplicitSolver: {}\n"
             "    - MechanicalObject: {name: dofs, template: Rigid3d, position: \"0 0 0 0 0 0 1\", "
             "velocity: \"0 0 0 3 0 0\"}\n"
             "    - UniformMass: {vertexMass: 1}\n"
             "    - FixedRotationProjectiveConstraint: {FixedZRotation: true}\n");
    steps(s, 10);
    ms = state(s, "dofs");
    near(ms->position.r[3], sin(0.15), 1e-12, "x spin kept: qx");
    near(ms->position.r[6], cos(0.15), 1e-12, "x spin kept: qw");
    done(&s, &t);
}

/* SOFA's FixedTranslation zeroes the whole rigid response: frame 0 keeps
 * its initial velocities (here a spin about z) under gravity; frame 1
 * falls. Same numbers with a direct solver. */
static void fixed_translation(const char *which)
{
    char objs[1024];
    snprintf(objs, sizeof objs,
             "%s"
             "    - MechanicalObject: {name: dofs, template: Rigid3d, position: \"0 0 0 0 0 0 1  "
             "1 0 0 0 0 0 1\", velocity: \"0 0 0 0 0 1  0 0 0 0 0 0\"}\n"
             "    - UniformMass: {vertexMass: 1}\n"
             "    - FixedTranslationProjectiveConstraint: {}\n",
             solver_lines(which));
    test_rt t;
    st_scene *s = load(&t, "0, -10, 0", objs);
    steps(s, 10);
    st_mstate *ms = state(s, "dofs");
    near(ms->position.r[1], 0, 0, "frame 0 stays");
    near(ms->velocity.r[5], 1, 1e-15, "its spin goes on");
    near(ms->position.r[5], sin(0.05), 1e-12, "rotated by 0.1 rad");
    near(ms->position.r[8], -10 * 1e-4 * 55, 1e-12, "frame 1 falls");
    done(&s, &t);
}

Test(fixed_translation, explicit) { fixed_translation("explicit"); }
Test(fixed_translation, direct) { fixed_translation("direct"); }

/* ---- PositionBasedDynamicsProjectiveConstraint ---- */

/* The expected point of the two tests below: from the origin, gravity
 * (0, -10, 0), h = 0.01, symplectic Euler then the projection with target
 * tg (or x + tg when relative, the target read after the step's update),
 * once at init and after each of n steps. */
static void pbd_expected(const double tg[3], bool relative, double st, int n, double x[3],
                         double v[3])
{
    const double h = 0.01, g[3] = {0, -10, 0};
    double old[3] = {0, 0, 0};
    for (int step = 0; step <= n; step++)
        for (int k = 0; k < 3; k++) {
            if (step == 0) {
                x[k] = 0.0;
                old[k] = x[k];
            } else {
                v[k] += h * g[k];
                x[k] += h * v[k];
            }
            x[k] += ((relative ? x[k] + tg[k] : tg[k]) - x[k]) * st;
            v[k] = (x[k] - old[k]) / h;
            old[k] = x[k];
        }
}

/* One point pulled to (1, 0, 0) with stiffness 0.5 under gravity, with
 * symplectic Euler: each step v += h g, x += h v, then the projection
 * x += s (target - x), u = (x - x_old)/h, x_old = x, v = u (and once at
 * init, from the initial positions). */
Test(pbd, recursion_vec3d)
{
    test_rt t;
    st_scene *s = load(&t, "0, -10, 0",
                       "    - EulerExplicitSolver: {}\n"
                       "    - MechanicalObject: {name: dofs, position: [[0,0,0]]}\n"
                       "    - UniformMass: {vertexMass: 1}\n"
                       "    - PositionBasedDynamicsConstraint: {stiffness: 0.5, "
                       "position: [[1, 0, 0]]}\n");
    const double tg[3] = {1, 0, 0};
    double x[3], v[3];
    pbd_expected(tg, false, 0.5, 12, x, v);
    steps(s, 12);
    st_mstate *ms = state(s, "dofs");
    for (int k = 0; k < 3; k++) {
        near(ms->position.r[k], x[k], 1e-12, "x");
        near(ms->velocity.r[k], v[k], 1e-10, "v");
    }
    done(&s, &t);
}

/* Targets from an engine that reads the state: TransformEngine gives
 * x + T. As in SOFA, the targets are read at the projection, after the
 * solver wrote the new positions, so each projection moves the point by
 * s T from where the step put it: with s = 0.5 and T = (0.2, 0, 0) gravity
 * acts as if unconstrained in y. (Targets pulled at the step's start, as
 * before, held the point where the previous step had left it.) */
Test(pbd, targets_from_the_integrated_positions)
{
    test_rt t;
    st_scene *s = load(&t, "0, -10, 0",
                       "    - EulerExplicitSolver: {}\n"
                       "    - MechanicalObject: {name: dofs, position: [[0,0,0]]}\n"
                       "    - UniformMass: {vertexMass: 1}\n"
                       "    - TransformEngine: {name: shift, input_position: '@dofs.position', "
                       "translation: [0.2, 0, 0]}\n"
                       "    - PositionBasedDynamicsProjectiveConstraint: {stiffness: 0.5, "
                       "position: '@shift.output_position'}\n");
    const double T[3] = {0.2, 0, 0};
    double x[3], v[3];
    pbd_expected(T, true, 0.5, 12, x, v);
    steps(s, 12);
    st_mstate *ms = state(s, "dofs");
    for (int k = 0; k < 3; k++) {
        near(ms->position.r[k], x[k], 1e-12, "x");
        near(ms->velocity.r[k], v[k], 1e-9, "v");
    }
    cr_assert_lt(ms->position.r[1], -0.05, "the point falls (y = %g)", ms->position.r[1]);
    done(&s, &t);
}

/* Rigid3d, stiffness 1: the frame takes the target orientation (90 degrees
 * about z) at init with the angular velocity (pi/2)/h; after one step it
 * is put back on the target and its velocity becomes zero. */
Test(pbd, rigid3d_orientation)
{
    test_rt t;
    st_scene *s = load(&t, "0, 0, 0",
                       "    - EulerExplicitSolver: {}\n"
                       "    - MechanicalObject: {name: dofs, template: Rigid3d, "
                       "position: \"0 0 0 0 0 0 1\"}\n"
                       "    - UniformMass: {vertexMass: 1}\n"
                       "    - PositionBasedDynamicsProjectiveConstraint: {template: Rigid3d, "
                       "position: \"0 0 0 0 0 0.70710678118654752 0.70710678118654752\"}\n");
    st_mstate *ms = state(s, "dofs");
    near(ms->position.r[5], sqrt(0.5), 1e-15, "target orientation at init");
    near(ms->velocity.r[5], (M_PI / 2) / 0.01, 1e-9, "angular velocity from the jump");
    steps(s, 1);
    near(ms->position.r[5], sqrt(0.5), 1e-12, "back on the target");
    near(ms->velocity.r[5], 0, 1e-9, "no more spin");
    done(&s, &t);
}

/* ---- HermiteSplineProjectiveConstraint ---- */

/* X0 = 0, X1 = (1, 2, 0), null tangents, over [0, 1]: s = h01(u) and
 * x = X1 h01(s). At t = 0.5 (after 51 steps): s = 0.5, x = X1 / 2,
 * v = X1 h01'(0.5) = 1.5 X1 (SOFA's derivative in s). */
Test(hermite_spline, worked_values)
{
    test_rt t;
    st_scene *s = load(&t, "0, -10, 0",
                       "    - EulerExplicitSolver: {}\n"
                       "    - MechanicalObject: {name: dofs, position: [[3,3,3]]}\n"
                       "    - UniformMass: {vertexMass: 1}\n"
                       "    - HermiteSplineConstraint: {indices: [0], BeginTime: 0, EndTime: 1, "
                       "X1: [1, 2, 0]}\n");
    st_mstate *ms = state(s, "dofs");
    steps(s, 26); /* t = 0.25: u = 0.25, s = h01(0.25) = 0.15625 */
    double sv = 0.15625, hv = -2 * sv * sv * sv + 3 * sv * sv;
    near(ms->position.r[0], hv, 1e-12, "x at t = 0.25");
    near(ms->position.r[1], 2 * hv, 1e-12, "y at t = 0.25");
    near(ms->velocity.r[0], -6 * sv * sv + 6 * sv, 1e-12, "vx at t = 0.25");
    done(&s, &t);
}

/* ---- PartialLinearMovementProjectiveConstraint ---- */

/* Keys (0, 0) and (1, (2, 4, 6)), moved directions x and z: after step k
 * (t = (k - 1) h) x = 2t and z = 6t; y is free but SOFA sets the whole
 * velocity, so each step starts at v_y = 4 and gravity acts only within the
 * step: y_k = k h (4 - 10 h). The matrix is cleared in x and z only: the
 * direct path gives the same numbers. */
static void partial_lm(const char *which)
{
    char objs[1024];
    snprintf(objs, sizeof objs,
             "%s"
             "    - MechanicalObject: {name: dofs, position: [[0,0,0]]}\n"
             "    - UniformMass: {vertexMass: 1}\n"
             "    - PartialLinearMovementConstraint: {keyTimes: [0, 1], movements: [[0,0,0],"
             "[2,4,6]], movedDirections: [1, 0, 1]}\n",
             solver_lines(which));
    test_rt t;
    st_scene *s = load(&t, "0, -10, 0", objs);
    steps(s, 10);
    st_mstate *ms = state(s, "dofs");
    near(ms->position.r[0], 0.18, 1e-12, "x");
    near(ms->position.r[2], 0.54, 1e-12, "z");
    near(ms->position.r[1], 10 * 0.01 * 3.9, 1e-12, "y");
    near(ms->velocity.r[1], 4, 1e-12, "vy");
    done(&s, &t);
}

Test(partial_linear_movement, explicit) { partial_lm("explicit"); }
Test(partial_linear_movement, direct) { partial_lm("direct"); }
Test(partial_linear_movement, cg) { partial_lm("cg"); }

/* ---- LinearMovementProjectiveConstraint: more movements than key times ----
 * SOFA pairs key time i with movement i and never reads the others (SOFA's
 * LinearMovementConstraint_RemovingMeshTest.scn gives 10 Vec3 movements for
 * 5 key times, as if they were Rigid3d ones): the same here, with a warning.
 * Keys (0, 0) and (1, (1 0 0)): after 10 steps x = 0.09, as with 2 movements.
 * Fewer movements than key times stays an error (SOFA reads past its list). */
Test(linear_movement, extra_movements_are_unused_and_said)
{
    test_rt t;
    st_scene *s = load(&t, "0, 0, 0",
                       "    - EulerExplicitSolver: {symplectic: true}\n"
                       "    - MechanicalObject: {name: dofs, position: [[0,0,0]]}\n"
                       "    - UniformMass: {vertexMass: 1}\n"
                       "    - LinearMovementProjectiveConstraint: {indices: [0], keyTimes: [0, 1],"
                       " movements: [[0,0,0], [1,0,0], [5,5,5], [6,6,6]]}\n");
    cr_assert(strstr(t.log, "4 movements for 2 key times: as in SOFA, key time i takes movement "
                            "i and the last 2 movements are not used"),
              "%s", t.log);
    steps(s, 10);
    near(state(s, "dofs")->position.r[0], 0.09, 1e-12, "x");
    done(&s, &t);
    test_rt_open(&t);
    st_scene *bad = NULL;
    st_error err = {0};
    const char *yaml = "format: settee/1\nroot:\n  objects:\n"
                       "    - RequiredPlugin: {pluginName: [Constraint.Projective]}\n"
                       "    - MechanicalObject: {position: [[0,0,0]]}\n"
                       "    - LinearMovementProjectiveConstraint: {indices: [0], keyTimes: [0, 1,"
                       " 2], movements: [[0,0,0], [1,0,0]]}\n";
    st_status st = test_load_string(&t, yaml, &bad, &err);
    if (st == ST_OK)
        st = st_scene_init(bad, &err);
    cr_assert_neq(st, ST_OK);
    cr_assert(strstr(err.msg, "2 movements for 3 key times"), "%s", err.msg);
    st_scene_destroy(&bad);
    test_rt_close(&t);
}

/* ---- SkeletalMotionProjectiveConstraint ---- */

/* Two joints: a root keyed at t = 0 (origin, identity) and t = 1 (centre
 * (2, 0, 0), a quarter turn about z), and a child without keys whose local
 * frame is (1, 0, 0), identity. Bones [0, 1]: point 0 follows the root,
 * point 1 the child. */
#define SK_JOINTS                                                                                  \
    "\"[ Parent -1 Channels 2  0 0 0 0 0 0 1  2 0 0 0 0 0.7071067811865476 "                       \
    "0.7071067811865476 Times 2 0 1 PreviousMotion 0 0 0 0 0 0 1 NextMotion 0 0 0 0 0 0 1 "       \
    "LocalRigid 0 0 0 0 0 0 1 , Parent 0 Channels 0 Times 0 PreviousMotion 1 0 0 0 0 0 1 "       \
    "NextMotion 1 0 0 0 0 0 1 LocalRigid 1 0 0 0 0 0 1 ]\""

static st_scene *sk_scene(test_rt *t, const char *extra)
{
    static char objs[2048];
    snprintf(objs, sizeof objs,
             "    - EulerImplicitSolver: {}\n"
             "    - SparseLDLSolver: {}\n"
             "    - MechanicalObject: {name: dofs, template: Rigid3d, position: \"0 0 0 0 0 0 1  "
             "0 0 0 0 0 0 1\"}\n"
             "    - UniformMass: {vertexMass: 1}\n"
             "    - SkeletalMotionProjectiveConstraint: {joints: " SK_JOINTS
             ", bones: \"[0, 1]\"%s}\n",
             extra);
    return load(t, "0, -10, 0", objs);
}

/* After 31 steps of 0.01 the projection read t = 0.3: a = 0.3, the root at
 * (0.6, 0, 0) turned by th = 0.3 pi / 2 (slerp of a quarter turn), the child
 * at root + R(th) (1, 0, 0) with the root's orientation. The velocity is the
 * difference to t + dt over dt: 2 along x and pi / 2 about z for the root
 * (interpolation linear in time), up to the float cast of a; for the child
 * the chord of its arc. */
Test(skeletal_motion, interpolates_between_two_keys)
{
    test_rt t;
    st_scene *s = sk_scene(&t, "");
    st_mstate *ms = state(s, "dofs");
    steps(s, 31);
    const double th = 0.3 * M_PI / 2;
    const double *x = ms->position.r, *v = ms->velocity.r;
    near(x[0], 0.6, 1e-7, "root x");
    near(x[1], 0, 1e-12, "root y");
    near(x[5], sin(th / 2), 1e-7, "root qz");
    near(x[6], cos(th / 2), 1e-7, "root qw");
    near(x[7], 0.6 + cos(th), 1e-7, "child x");
    near(x[8], sin(th), 1e-7, "child y");
    near(x[9], 0, 1e-12, "child z");
    near(x[12], sin(th / 2), 1e-7, "child qz");
    near(v[0], 2, 1e-5, "root vx");
    near(v[1], 0, 1e-9, "root vy");
    near(v[5], M_PI / 2, 1e-5, "root wz");
    /* the child's centre: the one-step difference along its arc */
    const double th1 = 0.31 * M_PI / 2;
    near(v[6], (0.62 + cos(th1) - 0.6 - cos(th)) / 0.01, 1e-5, "child vx");
    near(v[7], (sin(th1) - sin(th)) / 0.01, 1e-5, "child vy");
    done(&s, &t);

    /* animationSpeed 2: the same frame at t = 0.15 (16 steps) */
    s = sk_scene(&t, ", animationSpeed: 2");
    ms = state(s, "dofs");
    steps(s, 16);
    near(ms->position.r[0], 0.6, 1e-7, "root x at speed 2");
    near(ms->position.r[8], sin(th), 1e-7, "child y at speed 2");
    done(&s, &t);
}

/* Past the last key nothing is found: every joint takes its next motion
 * (the last key) and the velocity is zero. */
Test(skeletal_motion, holds_the_last_key)
{
    test_rt t;
    st_scene *s = sk_scene(&t, "");
    st_mstate *ms = state(s, "dofs");
    steps(s, 150);
    const double *x = ms->position.r, *v = ms->velocity.r;
    near(x[0], 2, 1e-12, "root x");
    near(x[5], sqrt(0.5), 1e-12, "root qz");
    near(x[7], 2, 1e-12, "child x");
    near(x[8], 1, 1e-12, "child y");
    for (int k = 0; k < 12; k++)
        near(v[k], 0, 0, "v");
    done(&s, &t);

    /* inactive: the points fall freely */
    s = sk_scene(&t, ", active: false");
    ms = state(s, "dofs");
    steps(s, 10);
    cr_assert(ms->position.r[1] < -1e-3, "inactive: y = %g", ms->position.r[1]);
    done(&s, &t);
}

static void sk_fails(const char *joints, const char *bones, const char *want)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [" PLUGINS "]}\n"
             "    - EulerExplicitSolver: {}\n"
             "    - MechanicalObject: {template: Rigid3d, position: \"0 0 0 0 0 0 1\"}\n"
             "    - UniformMass: {vertexMass: 1}\n"
             "    - SkeletalMotionProjectiveConstraint: {joints: \"%s\", bones: \"%s\"}\n",
             joints, bones);
    test_rt t;
    st_scene *s = NULL;
    st_error err = {0};
    test_rt_open(&t);
    cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_neq(st_scene_init(s, &err), ST_OK, "%s should fail", joints);
    cr_assert(strstr(err.msg, want), "want '%s' in: %s", want, err.msg);
    done(&s, &t);
}

#define SK_J(parent)                                                                               \
    "Parent " parent " Channels 0 Times 0 PreviousMotion 0 0 0 0 0 0 1 NextMotion 0 0 0 0 0 0 1 " \
    "LocalRigid 0 0 0 0 0 0 1"

Test(skeletal_motion, bad_input)
{
    sk_fails("Parent -1", "0", "expected '[' at the start");
    sk_fails("[ Parent -1 Channels 1 0 0 0 ]", "0", "joint 0: expected a channel");
    sk_fails("[ " SK_J("-1") " ; ]", "0", "expected ',' or ']' after joint 0");
    sk_fails("[ " SK_J("3") " ]", "0", "joint 0: parent 3 is not a joint");
    sk_fails("[ " SK_J("1") ", " SK_J("0") " ]", "0", "parents form a cycle");
    sk_fails("[ " SK_J("-1") " ]", "1", "bone 0: joint 1 does not exist");
    sk_fails("[ " SK_J("-1") " ]", "[0, 0]", "2 bones but the state has 1 points");
    sk_fails("[ " SK_J("-1") " ]", "[0, x]", "bones: expected a joint index at character 5");
    sk_fails("[ " SK_J("-1") " ]", "[0", "expected ']' at the end");
}
