/* test_fem_hexahedral_mass.c - HexahedralFEMForceFieldAndMass on one cube
 * of side 2 (volume 8) and density 0.5 (m_tot = 4), by hand: SOFA's element
 * mass matrix m_e (1 1^T (x) I3) with m_e = 8/27 m_tot in M dx; the
 * assembled matrix with only its vertex blocks m_e I; gravity on the
 * vertex masses m_tot / 8; the lumped masses 8 m_e driving an explicit
 * step; the outputs; and the forces of HexahedralFEMForceField unchanged. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

#define CUBE "[0, 0, 0, 2, 0, 0, 2, 2, 0, 0, 2, 0, 0, 0, 2, 2, 0, 2, 2, 2, 2, 0, 2, 2]"

static st_scene *load(test_rt *t, const char *ff, const char *solver)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, -10, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Forward, ODESolver.Backward,\n"
             "                      LinearSolver.Direct, Topology, SolidMechanics.FEM.Elastic]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "  children:\n"
             "    - name: P\n"
             "      objects:\n"
             "        - %s\n"
             "        - MechanicalObject: {name: dofs, position: " CUBE "}\n"
             "        - MeshTopology: {hexahedra: [0, 1, 2, 3, 4, 5, 6, 7]}\n"
             "        - %s\n",
             solver, ff);
    test_rt_open(t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(t, yaml, &s, &err), ST_OK, "load: %s\n%s", err.msg, t->log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s\n%s", err.msg, t->log);
    return s;
}

static const double MTOT = 4.0, ME = 8.0 / 27.0 * 4.0;

Test(hexahedral_fem_mass, mass_products_matrix_and_outputs)
{
    test_rt t;
    st_scene *s = load(&t, "HexahedralFEMForceFieldAndMass: {name: fem, density: 0.5, "
                           "youngModulus: 1000, poissonRatio: 0.3}",
                       "EulerImplicitSolver: {}\n        - SparseLDLSolver: {template: "
                       "CompressedRowSparseMatrixd}");
    st_component *c = test_find_object(s, "fem");
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    st_system *sys = ms->system;
    /* M dx with dx = (1, 0, 0) on vertex 0 and (0, 2, 0) on vertex 5:
     * every vertex gets m_e (1, 2, 0). */
    double dx[24] = {0}, r[24] = {0};
    dx[0] = 1.0;
    dx[3 * 5 + 1] = 2.0;
    c->cls->mass->add_m_dx(c, &sys->mp, r, dx, 1.0);
    for (int w = 0; w < 8; w++) {
        cr_assert_float_eq(r[3 * w], ME, 1e-14, "vertex %d x: %.17g", w, r[3 * w]);
        cr_assert_float_eq(r[3 * w + 1], 2 * ME, 1e-14);
        cr_assert_eq(r[3 * w + 2], 0.0);
    }
    cr_assert(!c->cls->mass->is_diagonal(c));
    /* The assembled mass: 24 diagonal entries m_e, nothing else. */
    st_matrix *m = NULL;
    st_error err = {0};
    cr_assert_eq(st_matrix_create(sys, &m, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(m, sys, 1.0, 0.0, 0.0, &err), ST_OK, "%s", err.msg);
    st_csr a;
    st_matrix_csr(m, &a);
    cr_assert_eq(a.n, 24u);
    for (size_t i = 0; i < a.n; i++)
        for (int k = a.rowptr[i]; k < a.rowptr[i + 1]; k++) {
            const double want = (size_t)a.colind[k] == i ? ME : 0.0;
            cr_assert_float_eq(a.values[k], want, 1e-14, "(%zu, %d): %.17g", i, a.colind[k],
                               a.values[k]);
        }
    st_matrix_destroy(&m);
    /* Gravity on m_tot / 8 per vertex, at rest: no elastic force. */
    double f[24] = {0};
    c->cls->mass->add_gravity_to_force(c, &sys->mp, f, sys->x, sys->v);
    for (int w = 0; w < 8; w++)
        cr_assert_float_eq(f[3 * w + 1], -10.0 * MTOT / 8, 1e-14);
    /* Outputs. */
    const st_array *tm = st_component_field_ptr(c, st_component_field(c, "totalMass"));
    const st_array *pm = st_component_field_ptr(c, st_component_field(c, "particleMasses"));
    const st_array *lm = st_component_field_ptr(c, st_component_field(c, "lumpedMasses"));
    cr_assert_eq(tm->n, 1u);
    cr_assert_float_eq(tm->r[0], MTOT, 1e-14);
    cr_assert_eq(pm->n, 8u);
    cr_assert_float_eq(pm->r[7], 0.5, 1e-15);
    cr_assert_float_eq(lm->r[3 * 7 + 2], 8 * ME, 1e-13);
    /* A step falls: the solve used the assembled (M, K). */
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_lt(ms->velocity.r[1], 0.0);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(hexahedral_fem_mass, lumped_explicit_step)
{
    test_rt t;
    st_scene *s = load(&t, "HexahedralFEMForceFieldAndMass: {name: fem, density: 0.5, "
                           "lumpedMass: true}",
                       "EulerExplicitSolver: {}");
    st_component *c = test_find_object(s, "fem");
    cr_assert(c->cls->mass->is_diagonal(c));
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    /* a = g (m_tot / 8) / (8 m_e) = -10 * 0.5 / 9.48; v = dt a. */
    const double v = 0.01 * -10.0 * 0.5 / (8 * ME);
    for (int w = 0; w < 8; w++)
        cr_assert_float_eq(ms->velocity.r[3 * w + 1], v, 1e-15, "vertex %d: %.17g vs %.17g", w,
                           ms->velocity.r[3 * w + 1], v);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(hexahedral_fem_mass, forces_are_hexahedral_fem_force_fields)
{
    test_rt ta, tb;
    st_scene *a = load(&ta, "HexahedralFEMForceFieldAndMass: {name: fem, youngModulus: 500, "
                            "poissonRatio: 0.25}",
                       "EulerImplicitSolver: {}\n        - SparseLDLSolver: {}");
    st_scene *b = load(&tb, "HexahedralFEMForceField: {name: fem, youngModulus: 500, "
                            "poissonRatio: 0.25}",
                       "EulerImplicitSolver: {}\n        - SparseLDLSolver: {}");
    st_component *ca = test_find_object(a, "fem"), *cb = test_find_object(b, "fem");
    st_mstate *ma = (st_mstate *)test_find_object(a, "dofs");
    st_mstate *mb = (st_mstate *)test_find_object(b, "dofs");
    double x[24], fa[24] = {0}, fb[24] = {0};
    memcpy(x, ma->position.r, sizeof x);
    x[3 * 6] += 0.3;
    x[3 * 6 + 1] -= 0.1;
    ca->cls->forcefield->add_force(ca, &ma->system->mp, fa, x, ma->system->v);
    cb->cls->forcefield->add_force(cb, &mb->system->mp, fb, x, mb->system->v);
    double norm = 0.0;
    for (int i = 0; i < 24; i++) {
        cr_assert_eq(fa[i], fb[i], "component %d", i);
        norm += fabs(fa[i]);
    }
    cr_assert_gt(norm, 1.0);
    st_scene_destroy(&a);
    st_scene_destroy(&b);
    test_rt_close(&ta);
    test_rt_close(&tb);
}
