/* test_springs.c - SpringForceField, MeshSpringForceField and
 * RestShapeSpringsForceField: SOFA's spring force examples, defaults, every
 * field, the springs MeshSpringForceField creates, and bad values; the
 * bending springs (TriangularBendingSprings, FastTriangularBendingSprings,
 * QuadularBendingSprings) and RegularGridSpringForceField against closed
 * forms: which springs exist, forces, energies. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "spring_test_util.h"

TestSuite(spring_force_field, .init = setup, .fini = teardown);

/* SOFA's SpringForceField_test: ks = 1, kd = 0.1, L0 = 1, after a rigid
 * transform of the two particles. */
Test(spring_force_field, sofa_examples)
{
    set(DOFS, "position", "0 0 0  2 0 0");
    st_component *ff = add(B, "SpringForceField", "s");
    set(ff, "spring", "0 1 1 0.1 1");
    init_ok();
    /* rotation about (1,2,2)/3 by 0.7 rad and a translation */
    double ax[3] = {1 / 3.0, 2 / 3.0, 2 / 3.0}, c = cos(0.7), s = sin(0.7), R[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            R[i][j] = (i == j ? c : 0) + (1 - c) * ax[i] * ax[j];
    R[0][1] -= s * ax[2], R[0][2] += s * ax[1], R[1][0] += s * ax[2];
    R[1][2] -= s * ax[0], R[2][0] -= s * ax[1], R[2][1] += s * ax[0];
    const double t[3] = {0.3, -1.2, 4};
    const double p[2][3] = {{0, 0, 0}, {2, 0, 0}};
    double x[6], v[6] = {0}, f[6];
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 3; i++)
            x[3 * k + i] = R[i][0] * p[k][0] + R[i][1] * p[k][1] + R[i][2] * p[k][2] + t[i];
    force(ff, x, v, f, 2);
    for (int i = 0; i < 3; i++) {
        cr_assert(fabs(f[i] - R[i][0]) < 1e-14, "f0[%d] = %.17g, want %.17g", i, f[i], R[i][0]);
        cr_assert(fabs(f[3 + i] + R[i][0]) < 1e-14);
    }
    /* x1 = (1,0,0) (rest length), v0 = (-1,0,0), v1 = (1,0,0): damping only, 0.2 */
    for (int i = 0; i < 3; i++) {
        x[i] = t[i];
        x[3 + i] = R[i][0] + t[i];
        v[i] = -R[i][0];
        v[3 + i] = R[i][0];
    }
    force(ff, x, v, f, 2);
    for (int i = 0; i < 3; i++)
        cr_assert(fabs(f[i] - 0.2 * R[i][0]) < 1e-14, "f0[%d] = %.17g", i, f[i]);
    /* energy 1/2 ks (d - L0)^2 */
    double x2[6] = {0, 0, 0, 3, 0, 0};
    cr_assert(CLOSE(ff->cls->forcefield->potential_energy(ff, &S->systems[0]->mp, x2), 2.0));
}

Test(spring_force_field, defaults_from_indices)
{
    set(DOFS, "position", "0 0 0  2 0 0  0 3 0");
    st_component *ff = add(B, "SpringForceField", "s");
    cr_assert_eq(arr(ff, "stiffness")->n, 1);
    cr_assert_eq(arr(ff, "stiffness")->r[0], 100.0);
    cr_assert_eq(arr(ff, "damping")->r[0], 5.0);
    set(ff, "indices1", "0 0");
    set(ff, "indices2", "1 2");
    init_ok();
    /* lists padded to 2 springs; rest length 0 */
    cr_assert_eq(arr(ff, "stiffness")->n, 2);
    cr_assert_eq(arr(ff, "lengths")->n, 2);
    double x[9] = {0, 0, 0, 2, 0, 0, 0, 3, 0}, v[9] = {0}, f[9];
    force(ff, x, v, f, 3);
    cr_assert(CLOSE(f[0], 200.0) && CLOSE(f[1], 300.0), "f0 = (%g, %g)", f[0], f[1]);
}

Test(spring_force_field, lists_padded_with_warning)
{
    set(DOFS, "position", "0 0 0  1 0 0  2 0 0");
    st_component *ff = add(B, "StiffSpringForceField", "s");
    cr_assert_str_eq(ff->cls->name, "SpringForceField", "StiffSpringForceField is an alias");
    set(ff, "indices1", "0 1");
    set(ff, "indices2", "1 2");
    set(ff, "stiffness", "10 20 30");
    set(ff, "length", "0.5");
    set(ff, "elongationOnly", "1");
    init_ok();
    cr_assert(strstr(T.log, "different size than indices1"), "%s", T.log);
    cr_assert_eq(arr(ff, "lengths")->r[1], 0.5);
    /* elongationOnly: a compressed spring gives no force */
    double x[9] = {0, 0, 0, 0.4, 0, 0, 2, 0, 0}, v[9] = {0}, f[9];
    force(ff, x, v, f, 3);
    cr_assert_eq(f[0], 0.0);
    cr_assert(CLOSE(f[3], 20 * 1.1), "f1 = %g", f[3]);
}

Test(spring_force_field, disabled_and_rayleigh)
{
    set(DOFS, "position", "0 0 0  1 0 0");
    st_component *ff = add(B, "SpringForceField", "s");
    set(ff, "indices1", "0");
    set(ff, "indices2", "1");
    set(ff, "enabled", "0");
    set(ff, "rayleighStiffness", "0.25");
    init_ok();
    double x[6] = {0, 0, 0, 3, 0, 0}, v[6] = {0}, f[6];
    force(ff, x, v, f, 2);
    cr_assert_eq(f[0], 0.0);
    cr_assert_eq(ff->cls->forcefield->rayleigh_stiffness(ff), 0.25);
}

Test(spring_force_field, bad_spring_list)
{
    set(DOFS, "position", "0 0 0  1 0 0");
    st_component *ff = add(B, "SpringForceField", "s");
    set(ff, "spring", "0 1 100 5");
    st_error err = init_fails();
    cr_assert(strstr(err.msg, "5 numbers per spring"), "%s", err.msg);
}

Test(spring_force_field, bad_index)
{
    set(DOFS, "position", "0 0 0  1 0 0");
    st_component *ff = add(B, "SpringForceField", "s");
    set(ff, "spring", "0 7 100 5 1");
    st_error err = init_fails();
    cr_assert(strstr(err.msg, "out of range"), "%s", err.msg);
}

Test(spring_force_field, index_sizes_differ)
{
    set(DOFS, "position", "0 0 0  1 0 0");
    st_component *ff = add(B, "SpringForceField", "s");
    set(ff, "indices1", "0 1");
    set(ff, "indices2", "1");
    st_error err = init_fails();
    cr_assert(strstr(err.msg, "sizes are different"), "%s", err.msg);
}

/* ---- MeshSpringForceField ---- */

TestSuite(mesh_spring_force_field, .init = setup, .fini = teardown);

static st_component *grid(const char *n, const char *max)
{
    st_component *g = add(B, "RegularGridTopology", "grid");
    set(g, "n", n);
    set(g, "min", "0 0 0");
    set(g, "max", max);
    return g;
}

/* The number of springs shows in the energy of a uniform dilation: every
 * spring has (d - L0)^2 ks / 2 = (0.1 L0)^2 (s / L0) / 2. */
static double dilation_energy(st_component *ff, size_t n)
{
    st_system *sys = S->systems[0];
    double *x = calloc(3 * n, sizeof *x);
    for (size_t i = 0; i < 3 * n; i++)
        x[i] = 1.1 * sys->x0[i];
    double e = ff->cls->forcefield->potential_energy(ff, &sys->mp, x);
    free(x);
    return e;
}

Test(mesh_spring_force_field, cube_28_springs)
{
    grid("2 2 2", "1 1 1");
    st_component *ff = add(B, "MeshSpringForceField", "s");
    set(ff, "stiffness", "300");
    init_ok();
    /* 12 edges L=1, 12 face diagonals L=sqrt2, 4 body diagonals L=sqrt3:
     * energy = sum 0.005 s L */
    double want = 0.005 * 300 * (12 + 12 * sqrt(2.0) + 4 * sqrt(3.0));
    cr_assert(CLOSE(dilation_energy(ff, 8), want), "E = %.17g, want %.17g",
              dilation_energy(ff, 8), want);
    /* stiffness per unit length: pulling vertex 0 along x */
    st_system *sys = S->systems[0];
    double dx[24] = {0}, df[24] = {0}, f[24] = {0}, v[24] = {0};
    ff->cls->forcefield->add_force(ff, &sys->mp, f, sys->x0, v);
    dx[0] = 1;
    ff->cls->forcefield->add_dforce(ff, &sys->mp, df, dx, 1.0, 0.0);
    double s = 300, k = s + s / sqrt(2.0) + s / (3 * sqrt(3.0));
    cr_assert(CLOSE(df[0], -k), "K00 = %.17g, want %.17g", df[0], -k);
}

Test(mesh_spring_force_field, grid_3x3x3_count)
{
    grid("3 3 3", "2 2 2");
    st_component *ff = add(B, "MeshSpringForceField", "s");
    set(ff, "linesStiffness", "1");
    set(ff, "trianglesStiffness", "1");
    set(ff, "quadsStiffness", "1");
    set(ff, "cubesStiffness", "1");
    init_ok();
    /* 54 axis edges (L=1) + 36 + 36 face diagonals (L=sqrt2) + 32 body diagonals (L=sqrt3) */
    double want = 0.005 * (54 + 72 * sqrt(2.0) + 32 * sqrt(3.0));
    cr_assert(CLOSE(dilation_energy(ff, 27), want), "E = %.17g, want %.17g",
              dilation_energy(ff, 27), want);
}

Test(mesh_spring_force_field, first_type_wins)
{
    grid("2 2 2", "1 1 1");
    st_component *ff = add(B, "MeshSpringForceField", "s");
    set(ff, "stiffness", "100");
    set(ff, "linesStiffness", "1000");
    init_ok();
    /* edges and one diagonal per face come from the lines (1000), the other
     * face diagonals from quads, the body diagonals from cubes (100) */
    double want = 0.005 * (1000 * (12 + 6 * sqrt(2.0)) + 100 * (6 * sqrt(2.0) + 4 * sqrt(3.0)));
    cr_assert(CLOSE(dilation_energy(ff, 8), want), "E = %.17g, want %.17g",
              dilation_energy(ff, 8), want);
}

Test(mesh_spring_force_field, nothing_set_no_spring)
{
    grid("2 2 2", "1 1 1");
    st_component *ff = add(B, "MeshSpringForceField", "s");
    init_ok();
    cr_assert_eq(dilation_energy(ff, 8), 0.0);
}

Test(mesh_spring_force_field, no_compression_and_damping)
{
    grid("2 2 2", "1 1 1");
    st_component *ff = add(B, "MeshSpringForceField", "s");
    set(ff, "cubesStiffness", "10");
    set(ff, "cubesDamping", "2");
    set(ff, "noCompression", "true");
    init_ok();
    st_system *sys = S->systems[0];
    double x[24], v[24] = {0}, f[24];
    for (int i = 0; i < 24; i++)
        x[i] = 0.9 * sys->x0[i];
    force(ff, x, v, f, 8);
    for (int i = 0; i < 24; i++)
        cr_assert_eq(f[i], 0.0, "compressed springs give no force");
    /* damping per unit length on the x edge 0-1 stretched: kd = 2 */
    for (int i = 0; i < 24; i++)
        x[i] = 1.5 * sys->x0[i];
    v[3] = 1.0;
    force(ff, x, v, f, 8);
    double f_nodamp[24];
    v[3] = 0.0;
    force(ff, x, v, f_nodamp, 8);
    cr_assert(f[0] - f_nodamp[0] > 1.99, "edge damping kd = 2 adds >= 2: %g", f[0] - f_nodamp[0]);
}

Test(mesh_spring_force_field, no_topology)
{
    set(DOFS, "position", "0 0 0");
    add(B, "MeshSpringForceField", "s");
    st_error err = init_fails();
    cr_assert(strstr(err.msg, "No topology"), "%s", err.msg);
}

/* ---- RestShapeSpringsForceField ---- */

TestSuite(rest_shape_springs, .init = setup, .fini = teardown);

Test(rest_shape_springs, defaults)
{
    set(DOFS, "position", "0 0 0  1 0 0");
    st_component *ff = add(B, "RestShapeSpringsForceField", "rs");
    init_ok();
    cr_assert_eq(arr(ff, "stiffness")->n, 1);
    cr_assert_eq(arr(ff, "stiffness")->r[0], 100.0);
    double x[6] = {0.1, 0, 0, 1, 0.2, -0.3}, v[6] = {0}, f[6];
    force(ff, x, v, f, 2);
    cr_assert(CLOSE(f[0], -10.0) && CLOSE(f[4], -20.0) && CLOSE(f[5], 30.0));
}

Test(rest_shape_springs, points_stiffness_directions)
{
    set(DOFS, "position", "0 0 0  1 0 0  2 0 0");
    st_component *ff = add(B, "RestShapeSpringsForceField", "rs");
    set(ff, "points", "2 0");
    set(ff, "stiffness", "5 7");
    set(ff, "activeDirections", "1 0 1");
    init_ok();
    double x[9] = {1, 1, 1, 2, 2, 2, 3, 3, 3}, v[9] = {0}, f[9];
    force(ff, x, v, f, 3);
    cr_assert(CLOSE(f[6], -5.0) && f[7] == 0.0 && CLOSE(f[8], -15.0), "point 2: k = 5");
    cr_assert(CLOSE(f[0], -7.0) && f[1] == 0.0, "point 0: k = 7");
    cr_assert(f[3] == 0.0 && f[4] == 0.0, "point 1 is free");
}

/* Vec1d (SOFA's template used under DistanceMapping): each scalar pulled
 * back to its rest value; the stiffness matrix is the force's Jacobian. */
Test(rest_shape_springs, vec1d)
{
    set(DOFS, "template", "Vec1d");
    set(DOFS, "position", "0 1 2");
    st_component *ff = add(B, "RestShapeSpringsForceField", "rs");
    set(ff, "template", "Vec1d");
    set(ff, "points", "2 0");
    set(ff, "stiffness", "5 7");
    init_ok();
    st_system *sys = S->systems[0];
    cr_assert_eq(sys->size, 3, "one scalar per point");
    double x[3] = {0.5, 3, 2.25}, v[3] = {0}, f[3] = {0};
    ff->cls->forcefield->add_force(ff, &sys->mp, f, x, v);
    cr_assert(CLOSE(f[2], -1.25) && CLOSE(f[0], -3.5) && f[1] == 0.0, "f = %g %g %g", f[0],
              f[1], f[2]);
    double dx[3] = {1, 1, 1}, df[3] = {0};
    ff->cls->forcefield->add_dforce(ff, &sys->mp, df, dx, 2.0, 0.0);
    cr_assert(CLOSE(df[0], -14.0) && df[1] == 0.0 && CLOSE(df[2], -10.0));
    double e = ff->cls->forcefield->potential_energy(ff, &sys->mp, x);
    cr_assert(CLOSE(e, 0.5 * 5 * 0.0625 + 0.5 * 7 * 0.25), "E = %.17g", e);
}

Test(rest_shape_springs, external_rest_shape)
{
    st_node *r = NULL;
    st_error err = {0};
    cr_assert_eq(st_node_add_child(st_scene_root(S), "Ref", &r, &err), ST_OK);
    set(add(r, "MechanicalObject", "ref"), "position", "5 5 5  6 6 6");
    set(DOFS, "position", "0 0 0");
    st_component *ff = add(B, "RestShapeSpringsForceField", "rs");
    set(ff, "external_rest_shape", "@/Ref/ref");
    set(ff, "external_points", "1");
    set(ff, "stiffness", "2");
    init_ok();
    double x[3] = {0, 0, 0}, v[3] = {0}, f[3];
    force(ff, x, v, f, 1);
    cr_assert(CLOSE(f[0], 12.0), "pulled towards (6,6,6): %g", f[0]);
}

Test(rest_shape_springs, bad_points)
{
    set(DOFS, "position", "0 0 0");
    st_component *ff = add(B, "RestShapeSpringsForceField", "rs");
    set(ff, "points", "3");
    st_error err = init_fails();
    cr_assert(strstr(err.msg, "Out of Bounds"), "%s", err.msg);
}

/* ---- bending springs and grid springs ---- */

TestSuite(bending_springs, .init = setup, .fini = teardown);

/* The unit square (0,0) (1,0) (1,1) (0,1) in z = 0, cut along (0, 2). */
static void square(void)
{
    set(DOFS, "position", "0 0 0  1 0 0  1 1 0  0 1 0");
    set(add(B, "MeshTopology", "topo"), "triangles", "0 1 2  0 2 3");
}

Test(bending_springs, triangular_one_spring_across_the_shared_edge)
{
    square();
    st_component *ff = add(B, "TriangularBendingSprings", "b");
    set(ff, "stiffness", "1000");
    set(ff, "damping", "0");
    init_ok();
    st_system *sys = S->systems[0];
    /* Vertex 3 moved along the diagonal away from 1: the spring (3, 1) of
     * rest length sqrt 2 stretches by 0.2 sqrt 2. */
    double x[12], v[12] = {0}, f[12];
    memcpy(x, sys->x0, sizeof x);
    x[9] = -0.2, x[10] = 1.2;
    force(ff, x, v, f, 4);
    const double want[12] = {0, 0, 0, -200, 200, 0, 0, 0, 0, 200, -200, 0};
    for (int i = 0; i < 12; i++)
        cr_assert(CLOSE(f[i], want[i]), "f[%d] = %.17g, want %g", i, f[i], want[i]);
    double e = ff->cls->forcefield->potential_energy(ff, &sys->mp, x);
    cr_assert(CLOSE(e, 40.0), "E = %.17g", e);
    /* The border edges make no spring: whatever the motion, only vertices
     * 1 and 3 feel a force, of size ks |d - L0|. */
    memcpy(x, sys->x0, sizeof x);
    x[5] = 0.3, x[11] = 0.3;
    x[3] = 1 - 0.1, x[4] = 0.1;
    x[9] = 0.1, x[10] = 1 - 0.1;
    double d = hypot(hypot(x[3] - x[9], x[4] - x[10]), x[5] - x[11]);
    force(ff, x, v, f, 4);
    double stretch = 1000 * (d - sqrt(2.0)); /* |f| on vertex 1 */
    cr_assert(CLOSE(hypot(hypot(f[3], f[4]), f[5]), fabs(stretch)), "|f1| = %.17g, want %.17g",
              hypot(hypot(f[3], f[4]), f[5]), fabs(stretch));
    cr_assert(CLOSE(f[0], 0.0) && CLOSE(f[6], 0.0));
}

Test(bending_springs, triangular_defaults_and_needs_triangles)
{
    set(DOFS, "position", "0 0 0  1 0 0");
    set(add(B, "MeshTopology", "topo"), "edges", "0 1");
    st_component *ff = add(B, "TriangularBendingSprings", "b");
    cr_assert_eq(*(double *)st_component_field_ptr(ff, st_component_field(ff, "stiffness")),
                 100000.0);
    cr_assert_eq(*(double *)st_component_field_ptr(ff, st_component_field(ff, "damping")), 1.0);
    st_error err = init_fails();
    cr_assert(strstr(err.msg, "Triangular"), "%s", err.msg);
}

Test(bending_springs, triangular_negative_stiffness_is_refused)
{
    square();
    st_component *ff = add(B, "TriangularBendingSprings", "b");
    st_error err = {0};
    cr_assert_neq(st_component_set(ff, "stiffness", "-1", &err), ST_OK);
}

Test(bending_springs, fast_volino_element_closed_form)
{
    square();
    st_component *ff = add(B, "FastTriangularBendingSprings", "b");
    set(ff, "bendingStiffness", "3");
    init_ok();
    st_system *sys = S->systems[0];
    double x[12], v[12] = {0}, f[12];
    /* At rest, and after any rigid motion of the flat rest shape: no force. */
    const double c = cos(0.7), s = sin(0.7);
    for (int i = 0; i < 4; i++) {
        const double *p = sys->x0 + 3 * i;
        x[3 * i] = c * p[0] - s * p[2] + 0.3;
        x[3 * i + 1] = p[1] - 1.1;
        x[3 * i + 2] = s * p[0] + c * p[2] + 2;
    }
    force(ff, x, v, f, 4);
    for (int i = 0; i < 12; i++)
        cr_assert(fabs(f[i]) < 1e-12, "rigid motion: f[%d] = %g", i, f[i]);
    /* Lifting A = vertex 1 by h: alpha = (1/2, 1/2, -1/2, -1/2) for
     * (A, B, C, D) = (1, 3, 2, 0), lambda = 2/3 (2 / sqrt2) / (1/4) sqrt2 k
     * = 16 k / 3, R = (0, 0, h/2): f_A = -lambda/2 R, f_C = +lambda/2 R,
     * energy = lambda h^2 / 8. */
    const double h = 0.1, k = 3, lambda = 16 * k / 3;
    memcpy(x, sys->x0, sizeof x);
    x[5] = h;
    force(ff, x, v, f, 4);
    const double fz[4] = {lambda / 2 * h / 2, -lambda / 2 * h / 2, lambda / 2 * h / 2,
                          -lambda / 2 * h / 2};
    for (int i = 0; i < 4; i++) {
        cr_assert(CLOSE(f[3 * i + 2], fz[i]), "f%d.z = %.17g, want %.17g", i, f[3 * i + 2],
                  fz[i]);
        cr_assert(fabs(f[3 * i]) < 1e-15 && fabs(f[3 * i + 1]) < 1e-15);
    }
    double e = ff->cls->forcefield->potential_energy(ff, &sys->mp, x);
    cr_assert(CLOSE(e, lambda * h * h / 8), "E = %.17g", e);
    cr_assert(CLOSE(e, 2 * k * h * h / 3));
}

Test(bending_springs, fast_degenerate_element_is_skipped)
{
    /* The two triangles' opposite vertices coincide: no element. */
    set(DOFS, "position", "0 0 0  1 0 0  1 1 0  1 0 0");
    set(add(B, "MeshTopology", "topo"), "triangles", "0 1 2  0 2 3");
    st_component *ff = add(B, "FastTriangularBendingSprings", "b");
    init_ok();
    double x[12] = {0, 0, 0, 1, 0, 0.5, 1, 1, 0, 1, 0, 0}, v[12] = {0}, f[12];
    force(ff, x, v, f, 4);
    for (int i = 0; i < 12; i++)
        cr_assert_eq(f[i], 0.0);
}

Test(bending_springs, quadular_two_springs_across_the_shared_edge)
{
    /* Quads (0,1,4,3) and (1,2,5,4) on a 3 x 2 grid of unit cells: the edge
     * (1, 4) gets the springs (5, 3) and (2, 0), rest length 2. */
    set(DOFS, "position", "0 0 0  1 0 0  2 0 0  0 1 0  1 1 0  2 1 0");
    set(add(B, "MeshTopology", "topo"), "quads", "0 1 4 3  1 2 5 4");
    st_component *ff = add(B, "QuadularBendingSprings", "b");
    set(ff, "stiffness", "10");
    set(ff, "damping", "0");
    init_ok();
    st_system *sys = S->systems[0];
    double x[18], v[18] = {0}, f[18];
    memcpy(x, sys->x0, sizeof x);
    force(ff, x, v, f, 6);
    for (int i = 0; i < 18; i++)
        cr_assert(fabs(f[i]) < 1e-15);
    /* Vertex 2 pulled to x = 2.5: spring (2, 0) stretches by 0.5. */
    x[6] = 2.5;
    force(ff, x, v, f, 6);
    cr_assert(CLOSE(f[6], -5.0) && CLOSE(f[0], 5.0), "f2 %g f0 %g", f[6], f[0]);
    for (int i = 0; i < 18; i++)
        if (i != 0 && i != 6)
            cr_assert(fabs(f[i]) < 1e-15, "f[%d] = %g", i, f[i]);
    /* Vertex 5 pulled to y = 1.5: spring (5, 3) of length sqrt(4.25). */
    memcpy(x, sys->x0, sizeof x);
    x[16] = 1.5;
    force(ff, x, v, f, 6);
    double d = sqrt(4.25), F = 10 * (d - 2);
    cr_assert(CLOSE(f[15], -F * 2 / d) && CLOSE(f[16], -F * 0.5 / d), "f5 %g %g", f[15], f[16]);
    cr_assert(CLOSE(f[9], F * 2 / d) && CLOSE(f[10], F * 0.5 / d));
    double e = ff->cls->forcefield->potential_energy(ff, &sys->mp, x);
    cr_assert(CLOSE(e, 5 * (d - 2) * (d - 2)), "E = %.17g", e);
}

Test(bending_springs, grid_springs_count_and_stiffness_per_length)
{
    grid("3 3 2", "1 1.5 2");
    st_component *ff = add(B, "RegularGridSpringForceField", "g");
    set(ff, "linesStiffness", "4");
    set(ff, "quadsStiffness", "0");
    set(ff, "cubesStiffness", "0");
    set(ff, "damping", "0");
    init_ok();
    st_system *sys = S->systems[0];
    /* Stretch along x by 10 %: only the 2 x 3 x 2 = 12 x-lines (dx = 0.5)
     * stretch, each (0.05)^2 (4 / 0.5) / 2. */
    double x[54];
    for (int i = 0; i < 18; i++) {
        x[3 * i] = 1.1 * sys->x0[3 * i];
        x[3 * i + 1] = sys->x0[3 * i + 1];
        x[3 * i + 2] = sys->x0[3 * i + 2];
    }
    double e = ff->cls->forcefield->potential_energy(ff, &sys->mp, x);
    cr_assert(CLOSE(e, 12 * 0.05 * 0.05 * 8 / 2), "E = %.17g", e);
}

Test(bending_springs, grid_springs_all_families)
{
    grid("3 3 2", "1 1.5 2");
    st_component *ff = add(B, "RegularGridSpringForceField", "g");
    set(ff, "stiffness", "2"); /* all three families, as SOFA's alias */
    set(ff, "damping", "0");
    init_ok();
    /* A uniform dilation by 10 % of all 89 springs: lines 33, face
     * diagonals 40, cell diagonals 16, each (0.1 L)^2 (s / L) / 2. */
    const double dx = 0.5, dy = 0.75, dz = 2;
    double sumL = 12 * dx + 12 * dy + 9 * dz +
                  2 * (8 * hypot(dx, dy) + 6 * hypot(dx, dz) + 6 * hypot(dy, dz)) +
                  16 * sqrt(dx * dx + dy * dy + dz * dz);
    cr_assert(CLOSE(dilation_energy(ff, 18), 0.005 * 2 * sumL), "E = %.17g, want %.17g",
              dilation_energy(ff, 18), 0.005 * 2 * sumL);
    /* At rest: no force. */
    st_system *sys = S->systems[0];
    double v[54] = {0}, f[54];
    force(ff, sys->x0, v, f, 18);
    for (int i = 0; i < 54; i++)
        cr_assert(fabs(f[i]) < 1e-13, "f[%d] = %g", i, f[i]);
}

Test(bending_springs, grid_springs_extra_list_and_no_grid)
{
    set(DOFS, "position", "0 0 0  2 0 0");
    st_component *ff = add(B, "RegularGridSpringForceField", "g");
    set(ff, "spring", "0 1 3 0 1");
    init_ok();
    st_system *sys = S->systems[0];
    double v[6] = {0}, f[6];
    force(ff, sys->x0, v, f, 2);
    cr_assert(CLOSE(f[0], 3.0) && CLOSE(f[3], -3.0), "%g %g", f[0], f[3]);
    cr_assert(strstr(T.log, "no RegularGridTopology"), "%s", T.log);
}

Test(bending_springs, grid_springs_refuse_index_lists)
{
    grid("2 2 2", "1 1 1");
    st_component *ff = add(B, "RegularGridSpringForceField", "g");
    set(ff, "springsIndices1", "0");
    st_error err = init_fails();
    cr_assert(strstr(err.msg, "springsIndices1") || strstr(err.path, "springsIndices1"),
              "%s", err.msg);
}

/* SOFA's TriangularBendingSprings_test (checkFEMValues): a 20 x 20 grid of
 * triangles over [0, 10]^2 falling under g = -1 y with EulerImplicitSolver,
 * CG (20 iterations, tolerance 1e-5, threshold 1e-8), DiagonalMass density
 * 0.1, ks = 300, kd = 0.5: 1121 edges; point 20 from (0, 0.5263, 0) to
 * (-0.000132, 0.520924, 0) after 10 steps of 0.01 (1e-4), energy
 * 7.7932855e-06 in the last force computation. */
Test(bending_springs, sofa_falling_grid_values)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(
        test_load_string(
            &T,
            "format: settee/1\n"
            "root:\n"
            "  name: root\n"
            "  gravity: [0, -1, 0]\n"
            "  dt: 0.01\n"
            "  objects:\n"
            "    - RequiredPlugin: {pluginName: [Sofa.Component.Topology.Container.Grid, "
            "Sofa.Component.Topology.Container.Dynamic, Sofa.Component.SolidMechanics.Spring, "
            "Sofa.Component.ODESolver.Backward, Sofa.Component.LinearSolver.Iterative, "
            "Sofa.Component.Mass]}\n"
            "    - DefaultAnimationLoop: {}\n"
            "    - RegularGridTopology: {name: grid, n: [20, 20, 1], min: [0, 0, 0], "
            "max: [10, 10, 0]}\n"
            "  children:\n"
            "    - name: SpringNode\n"
            "      objects:\n"
            "        - EulerImplicitSolver: {}\n"
            "        - CGLinearSolver: {iterations: 20, tolerance: 1e-5, threshold: 1e-8}\n"
            "        - MechanicalObject: {name: dof, position: \"@../grid.position\"}\n"
            "        - TriangleSetTopologyContainer: {name: topo, position: "
            "\"@../grid.position\", edges: \"@../grid.edges\", triangles: "
            "\"@../grid.triangles\"}\n"
            "        - TriangleSetTopologyModifier: {}\n"
            "        - TriangularBendingSprings: {name: TBS, stiffness: 300, damping: 0.5}\n"
            "        - DiagonalMass: {name: mass, massDensity: 0.1}\n",
            &s, &err),
        ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    st_component *topo = test_find_object(s, "topo");
    st_component *tbs = test_find_object(s, "TBS");
    cr_assert_eq(arr(topo, "edges")->n, 1121);
    st_system *sys = s->systems[0];
    double *xprev = calloc(3 * 400, sizeof *xprev);
    for (int i = 0; i < 10; i++) {
        memcpy(xprev, sys->x, 3 * 400 * sizeof *xprev);
        cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "%s", err.msg);
    }
    const double *p = sys->x + 3 * 20;
    cr_assert(fabs(p[0] - -0.000132) < 1e-4 && fabs(p[1] - 0.520924) < 1e-4 && p[2] == 0,
              "point 20: %.9g %.9g %.9g", p[0], p[1], p[2]);
    /* The energy of the last force computation: at the step's start. */
    double e = tbs->cls->forcefield->potential_energy(tbs, &sys->mp, xprev);
    cr_assert(fabs(e - 7.7932855e-06) < 1e-6 * 7.7932855e-06 * 4, "E = %.9g", e);
    free(xprev);
    st_scene_destroy(&s);
}
