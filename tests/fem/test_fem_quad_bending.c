/* test_fem_quad_bending.c - QuadBendingFEMForceField: closed forms of one
 * square element (membrane stretch, out-of-plane shear stiffness), the
 * patch test on a 2x2 grid, the three solver paths on a clamped plate, and
 * (in test_jacobians) add_dforce and the assembled K against finite
 * differences at rest. */
#include <stdio.h>

#include "fem_test_util.h"

#define ONE_QUAD(L, H)                                                                            \
    "<Node name='root' gravity='0 0 0'><DefaultAnimationLoop/><EulerExplicitSolver/>"             \
    "<MechanicalObject name='dofs' position='0 0 0  " L " 0 0  " L " " H " 0  0 " H " 0'/>"       \
    "<MeshTopology quads='0 1 2 3'/>"                                                             \
    "<QuadBendingFEMForceField name='FEM' youngModulus='2000' poissonRatio='0.25' "               \
    "thickness='0.1'/></Node>"

/* A 2 x 1 rectangle: a uniform stretch e along x (y held) loads the right
 * edge with sigma t (2h) split over its two vertices, sigma = E e / (1 -
 * nu^2); lifting one vertex by dz meets the shear stiffness
 * 4 l h k G t (1 / (16 l^2) + 1 / (16 h^2)) (G t = E t / (2 (1 + nu))). */
Test(fem_quad_bending, one_element_closed_forms)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, ONE_QUAD("2", "1"));
    st_component *ff = test_find_object(s, "FEM");
    st_system *sys = s->systems[0];
    double E = 2000, nu = 0.25, th = 0.1, l = 1, h = 0.5, e = 1e-3;
    double x0[12] = {0, 0, 0, 2, 0, 0, 2, 1, 0, 0, 1, 0}, x[12], f[12];
    for (int i = 0; i < 12; i++)
        x[i] = x0[i] * (i % 3 == 0 ? 1 + e : 1);
    fem_forces_at(ff, sys, x, f);
    /* K takes l from the stretched edge, l (1 + e): the x stiffness, which
     * goes as h / l, is that much lower */
    double sigma = E * e / (1 - nu * nu) * th, fx = sigma * h / (1 + e);
    fem_near(f[3], -fx, 1e-9 * fx, "f1x");
    fem_near(f[6], -fx, 1e-9 * fx, "f2x");
    fem_near(f[0], fx, 1e-9 * fx, "f0x");
    fem_near(f[9], fx, 1e-9 * fx, "f3x");
    memcpy(x, x0, sizeof x);
    x[8] += 1e-3;
    fem_forces_at(ff, sys, x, f);
    double kgt = 5.0 / 6.0 * E * th / (2 * (1 + nu));
    double kzz = 4 * l * h * kgt * (1 / (16 * l * l) + 1 / (16 * h * h));
    fem_near(f[8], -kzz * 1e-3, 1e-6 * kzz * 1e-3, "f2z");
    double fz = 0;
    for (int i = 0; i < 4; i++)
        fz += f[3 * i + 2];
    fem_near(fz, 0, 1e-15, "sum of z forces");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

#define GRID(SOLVER, FIX)                                                                         \
    "<Node name='root' gravity='0 0 -9.81' dt='0.01'><DefaultAnimationLoop/>"                     \
    "<RegularGridTopology name='grid' n='5 3 1' min='0 0 0' max='2 1 0'/>"                        \
    "<Node name='Plate'>" SOLVER "<MechanicalObject name='dof' position='@../grid.position'/>"    \
    "<MeshTopology name='topo' quads='@../grid.quads'/>"                                          \
    "<UniformMass totalMass='1'/>"                                                                \
    "<FixedProjectiveConstraint indices='" FIX "'/>"                                              \
    "<QuadBendingFEMForceField name='FEM' youngModulus='2000' poissonRatio='0.3' "                \
    "thickness='0.1'/></Node></Node>"

/* Patch test on the 4x2 grid: u = A x (in plane) and w = a x + b y leave
 * the interior vertices (6, 7, 8) without force. */
Test(fem_quad_bending, patch_test)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(&t, GRID("<EulerImplicitSolver/><SparseLDLSolver/>", "0"));
    st_component *ff = test_find_object(s, "FEM");
    st_system *sys = s->systems[0];
    st_mstate *ms = (st_mstate *)test_find_object(s, "dof");
    size_t n = sys->nall;
    cr_assert_eq(n, 15);
    double *x = calloc(3 * n, sizeof *x), *f = calloc(3 * n, sizeof *f);
    for (size_t i = 0; i < n; i++) {
        const double *p = ms->rest_position.r + 3 * i;
        x[3 * i] = p[0] + 1e-3 * p[0] + 4e-4 * p[1] + 0.1;
        x[3 * i + 1] = p[1] - 2e-4 * p[0] + 2e-3 * p[1];
        x[3 * i + 2] = 3e-3 * p[0] - 1e-3 * p[1] + 0.2;
    }
    fem_forces_at(ff, sys, x, f);
    const unsigned inner[3] = {6, 7, 8};
    fem_assert_interior_free(f, n, inner, 3, 1e-9, 1e-4, "quad bending");
    free(x), free(f);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* A plate clamped along x = 0 sags under gravity (vertex 14, the far
 * corner, along -z) under the three solver paths. */
Test(fem_quad_bending, solver_paths)
{
    fem_three_solvers(GRID("%s", "0 5 10"), 14, 2, 10, 0.01);
}
