/* test_bending_springs_sff.c - QuadBendingSprings and TriangleBendingSprings,
 * SOFA's SpringForceFields whose springs are made from the mesh at init:
 * which springs exist on small meshes worked out by hand (ends, order, rest
 * lengths, stiffness and damping), localRange, the springs' force, the
 * rewritten lists, and bad input. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "internal.h"
#include "spring_test_util.h"

/* The `spring` output equals want (5 numbers per spring). */
static void springs_are(st_component *ff, const double *want, size_t n)
{
    const st_array *s = arr(ff, "spring");
    cr_assert_eq(s->n, 5 * n, "%zu springs, want %zu", s->n / 5, n);
    for (size_t i = 0; i < 5 * n; i++)
        cr_assert(CLOSE(s->r[i], want[i]), "spring %zu value %zu: %.17g, want %.17g", i / 5,
                  i % 5, s->r[i], want[i]);
}

TestSuite(quad_bending_springs, .init = setup, .fini = teardown);

/* A 3 x 2 grid of unit cells: 0 1 2 on y = 0, 3 4 5 on y = 1. */
static void strip(void)
{
    set(DOFS, "position", "0 0 0  1 0 0  2 0 0  0 1 0  1 1 0  2 1 0");
    set(add(B, "MeshTopology", "topo"), "quads", "0 1 4 3  1 2 5 4");
}

Test(quad_bending_springs, two_quads_make_two_springs)
{
    /* The edge (1, 4) is shared. Quad 0 registers it facing (0, 3); quad 1
     * meets it as (4, 1) facing (5, 2), i.e. (1, 4) facing (2, 5): springs
     * (2, 0) then (5, 3), rest length 2. */
    strip();
    st_component *ff = add(B, "QuadBendingSprings", "b");
    set(ff, "stiffness", "10");
    set(ff, "damping", "0.5");
    init_ok();
    const double want[] = {2, 0, 10, 0.5, 2, 5, 3, 10, 0.5, 2};
    springs_are(ff, want, 2);
    const st_array *i1 = arr(ff, "springsIndices1"), *i2 = arr(ff, "springsIndices2"),
                   *k = arr(ff, "stiffness"), *l = arr(ff, "lengths");
    cr_assert(i1->n == 2 && i1->u[0] == 2 && i1->u[1] == 5);
    cr_assert(i2->n == 2 && i2->u[0] == 0 && i2->u[1] == 3);
    cr_assert(k->n == 2 && k->r[1] == 10 && l->n == 2 && l->r[1] == 2);

    st_system *sys = S->systems[0];
    double x[18], v[18] = {0}, f[18];
    memcpy(x, sys->x0, sizeof x);
    force(ff, x, v, f, 6);
    for (int i = 0; i < 18; i++)
        cr_assert(fabs(f[i]) < 1e-15, "f[%d] = %g at rest", i, f[i]);
    /* Vertex 2 pulled to x = 2.5: spring (2, 0) stretches by 0.5. */
    x[6] = 2.5;
    force(ff, x, v, f, 6);
    cr_assert(CLOSE(f[6], -5.0) && CLOSE(f[0], 5.0), "f2 %g f0 %g", f[6], f[0]);
    /* With vertex 2 moving at +1 along x, the damping adds kd = 0.5. */
    v[6] = 1;
    force(ff, x, v, f, 6);
    cr_assert(CLOSE(f[6], -5.5) && CLOSE(f[0], 5.5), "f2 %g f0 %g", f[6], f[0]);
}

/* A 3 x 3 grid of points, 2 x 2 quads:
 *   6 7 8
 *   3 4 5
 *   0 1 2 */
static void square4(void)
{
    set(DOFS, "position", "0 0 0  1 0 0  2 0 0  0 1 0  1 1 0  2 1 0  0 2 0  1 2 0  2 2 0");
    set(add(B, "MeshTopology", "topo"), "quads", "0 1 4 3  1 2 5 4  3 4 7 6  4 5 8 7");
}

Test(quad_bending_springs, a_vertex_pair_gets_one_spring)
{
    /* Four shared edges would make 8 springs; (7, 1) and (5, 3) are made
     * twice (across (4, 5) and (4, 7)) and kept once: 6 springs, in the
     * order of the quads meeting their shared edges. */
    square4();
    st_component *ff = add(B, "QuadBendingSprings", "b");
    init_ok();
    /* SpringForceField's defaults: stiffness [100], damping [5]. */
    const double want[] = {2, 0, 100, 5, 2, 5, 3, 100, 5, 2, 6, 0, 100, 5, 2,
                           7, 1, 100, 5, 2, 8, 2, 100, 5, 2, 8, 6, 100, 5, 2};
    springs_are(ff, want, 6);
}

Test(quad_bending_springs, local_range_skips_pairs_outside)
{
    /* Of the 6 springs above, a pair is skipped when both ends are below
     * localRange[0] = 3: only (2, 0); 5 springs left, from (5, 3). */
    square4();
    st_component *ff = add(B, "QuadBendingSprings", "b");
    set(ff, "localRange", "3 -1");
    init_ok();
    const st_array *i1 = arr(ff, "springsIndices1");
    cr_assert_eq(i1->n, 5);
    cr_assert_eq(i1->u[0], 5);
    /* Both ends above localRange[1] = 5: only (8, 6) is skipped. */
    teardown();
    setup();
    square4();
    ff = add(B, "QuadBendingSprings", "b");
    set(ff, "localRange", "-1 5");
    init_ok();
    i1 = arr(ff, "springsIndices1");
    const st_array *i2 = arr(ff, "springsIndices2");
    cr_assert_eq(i1->n, 5);
    for (size_t i = 0; i < i1->n; i++)
        cr_assert(!(i1->u[i] == 8 && i2->u[i] == 6), "spring (8, 6) should be skipped");
}

Test(quad_bending_springs, springs_of_the_scene_come_first)
{
    strip();
    st_component *ff = add(B, "QuadBendingSprings", "b");
    set(ff, "spring", "0 5 7 0 1.5");
    set(ff, "stiffness", "10");
    set(ff, "damping", "0");
    init_ok();
    const double want[] = {0, 5, 7, 0, 1.5, 2, 0, 10, 0, 2, 5, 3, 10, 0, 2};
    springs_are(ff, want, 3);
}

Test(quad_bending_springs, rest_lengths_from_the_current_positions)
{
    /* SOFA measures the rest lengths in `position`, not `rest_position`. */
    strip();
    set(DOFS, "rest_position", "0 0 0  1 0 0  2 0 0  0 1 0  1 1 0  2 1 0");
    set(DOFS, "position", "0 0 0  1 0 0  3 0 0  0 1 0  1 1 0  2 1 0");
    st_component *ff = add(B, "QuadBendingSprings", "b");
    init_ok();
    const st_array *l = arr(ff, "lengths");
    cr_assert(l->n == 2 && l->r[0] == 3 && l->r[1] == 2, "lengths %g %g", l->r[0], l->r[1]);
}

Test(quad_bending_springs, bad_input)
{
    set(DOFS, "position", "0 0 0  1 0 0  1 1 0");
    add(B, "QuadBendingSprings", "b");
    st_error e = init_fails(); /* no topology */
    cr_assert(strstr(e.msg, "No topology component found"), "%s", e.msg);
    teardown();
    setup();
    strip();
    st_component *ff = add(B, "QuadBendingSprings", "b");
    set(ff, "springsIndices1", "0");
    e = init_fails();
    cr_assert(strstr(e.msg, "'springsIndices1' is not read"), "%s", e.msg);
    teardown();
    setup();
    set(DOFS, "position", "0 0 0  1 0 0  1 1 0");
    set(add(B, "MeshTopology", "topo"), "quads", "0 1 2 3");
    add(B, "QuadBendingSprings", "b");
    e = init_fails();
    cr_assert(strstr(e.msg, "uses vertex 3 but the state has 3 points"), "%s", e.msg);
}

TestSuite(triangle_bending_springs, .init = setup, .fini = teardown);

Test(triangle_bending_springs, one_spring_across_the_diagonal)
{
    /* Triangles (0 1 2) and (0 2 3) of the unit square: (0 2) is shared,
     * opposite 1 in the first and 3 in the second: spring (3, 1), rest
     * length sqrt 2, SpringForceField's default stiffness and damping. */
    set(DOFS, "position", "0 0 0  1 0 0  1 1 0  0 1 0");
    set(add(B, "MeshTopology", "topo"), "triangles", "0 1 2  0 2 3");
    st_component *ff = add(B, "TriangleBendingSprings", "b");
    init_ok();
    const double want[] = {3, 1, 100, 5, sqrt(2.0)};
    springs_are(ff, want, 1);
    st_system *sys = S->systems[0];
    double x[12], v[12] = {0}, f[12];
    memcpy(x, sys->x0, sizeof x);
    /* Vertex 3 moved away from 1 along the diagonal by 0.2 sqrt 2. */
    x[9] = -0.2, x[10] = 1.2;
    force(ff, x, v, f, 4);
    const double fw[12] = {0, 0, 0, -20, 20, 0, 0, 0, 0, 20, -20, 0};
    for (int i = 0; i < 12; i++)
        cr_assert(CLOSE(f[i], fw[i]), "f[%d] = %.17g, want %g", i, f[i], fw[i]);
}

Test(triangle_bending_springs, quads_are_cut_into_two_triangles)
{
    /* A triangle (0 1 4) and the quad (1 2 3 4) of a strip, the quad visited
     * after the triangles as (1 2 3) and (1 3 4): the edge (1 4) is shared
     * by the triangle (opposite 0) and the quad's second half (opposite 3),
     * the edge (1 3) by the quad's halves (opposite 2, then 4). The second
     * half meets (1 3) first: springs (4, 2) then (3, 0). */
    set(DOFS, "position", "0 0 0  1 0 0  2 0 0  2 1 0  1 1 0");
    st_component *topo = add(B, "MeshTopology", "topo");
    set(topo, "triangles", "0 1 4");
    set(topo, "quads", "1 2 3 4");
    st_component *ff = add(B, "TriangleBendingSprings", "b");
    set(ff, "stiffness", "50");
    set(ff, "damping", "0.25");
    init_ok();
    const double want[] = {4, 2, 50, 0.25, sqrt(2.0), 3, 0, 50, 0.25, sqrt(5.0)};
    springs_are(ff, want, 2);
    const st_array *k = arr(ff, "stiffness");
    cr_assert(k->n == 2 && k->r[0] == 50 && k->r[1] == 50);
}

Test(triangle_bending_springs, springs_of_the_scene_are_replaced)
{
    set(DOFS, "position", "0 0 0  1 0 0  1 1 0  0 1 0");
    set(add(B, "MeshTopology", "topo"), "triangles", "0 1 2  0 2 3");
    st_component *ff = add(B, "TriangleBendingSprings", "b");
    set(ff, "spring", "0 2 7 0 1.5");
    init_ok();
    const double want[] = {3, 1, 100, 5, sqrt(2.0)};
    springs_are(ff, want, 1);
    cr_assert(strstr(T.log, "'spring' is not used") || strstr(T.log, "for 'spring' is not used"),
              "log:\n%s", T.log);
}

Test(triangle_bending_springs, vec2d_state)
{
    st_component *dofs2 = NULL;
    st_node *n = NULL;
    st_error err = {0};
    cr_assert_eq(st_node_add_child(st_scene_root(S), "Flat", &n, &err), ST_OK, "%s", err.msg);
    add(n, "EulerExplicitSolver", "solver");
    dofs2 = add(n, "MechanicalObject", "dofs");
    set(dofs2, "template", "Vec2d");
    set(dofs2, "position", "0 0  1 0  1 1  0 1");
    set(add(n, "MeshTopology", "topo"), "triangles", "0 1 2  0 2 3");
    st_component *ff = add(n, "TriangleBendingSprings", "b");
    set(ff, "template", "Vec2d");
    set(DOFS, "position", "0 0 0");
    init_ok();
    const double want[] = {3, 1, 100, 5, sqrt(2.0)};
    springs_are(ff, want, 1);
}
