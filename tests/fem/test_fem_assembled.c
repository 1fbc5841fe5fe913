/* test_fem_assembled.c - the assembled stiffness of TetrahedronFEMForceField
 * and HexahedronFEMForceField (fem_bsr, fem.h): when the linear solver
 * announces enough products (st_mparams.dforce_calls), add_dforce multiplies
 * by K assembled from the element blocks; it must give the element loop's
 * df to round-off for every method, follow the rotations of each add_force,
 * and follow a topological change. */
#include "fem_test_util.h"

#include "../plugins/SolidMechanics.FEM.Elastic/hexahedron_fem.h"
#include "../plugins/SolidMechanics.FEM.Elastic/tetrahedron_fem.h"

/* A 3 x 3 x 4 grid of nodes, cut into tetrahedra or kept as hexahedra. */
static const char tet_fmt[] =
    "<Node name='root' gravity='0 -9.81 0' dt='0.01'>"
    "<EulerImplicitSolver/><CGLinearSolver iterations='25' tolerance='1e-9' threshold='1e-20'/>"
    "<RegularGridTopology name='grid' n='3 3 4' min='0 0 0' max='1 1 1.5'/>"
    "<MechanicalObject name='dof'/>"
    "<Node name='tets'>"
    "<TetrahedronSetTopologyContainer name='topo'/><TetrahedronSetTopologyModifier/>"
    "<Hexa2TetraTopologicalMapping input='@../grid' output='@topo'/>"
    "<TetrahedronFEMForceField name='FEM' topology='@topo' method='%s' youngModulus='3000' "
    "poissonRatio='0.3'/>"
    "</Node>"
    "<UniformMass totalMass='1'/>"
    "</Node>";

static const char hex_fmt[] =
    "<Node name='root' gravity='0 -9.81 0' dt='0.01'>"
    "<EulerImplicitSolver/><CGLinearSolver iterations='25' tolerance='1e-9' threshold='1e-20'/>"
    "<RegularGridTopology name='grid' n='3 3 4' min='0 0 0' max='1 1 1.5'/>"
    "<MechanicalObject name='dof'/>"
    "<HexahedronFEMForceField name='FEM' method='%s' youngModulus='3000' poissonRatio='0.3'/>"
    "<UniformMass totalMass='1'/>"
    "</Node>";

static unsigned next(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}
static double rnd(unsigned *s) { return (double)next(s) / 16777216.0 - 0.5; }

/* x = the rest shape turned about an axis by angle a, stretched along z by
 * 1 + stretch, plus noise. */
static void deformed(const double *x0, double *x, size_t n, double a, double stretch,
                     unsigned seed)
{
    const double c = cos(a), s = sin(a);
    for (size_t i = 0; i < n; i++) {
        const double p[3] = {x0[3 * i], x0[3 * i + 1], x0[3 * i + 2] * (1 + stretch)};
        x[3 * i] = c * p[0] - s * p[2] + 0.02 * rnd(&seed);
        x[3 * i + 1] = p[1] + 0.02 * rnd(&seed);
        x[3 * i + 2] = s * p[0] + c * p[2] + 0.02 * rnd(&seed);
    }
}

/* add_force at x, then df for a random dx through the element loop
 * (dforce_calls 0) and through the assembled K (dforce_calls 25): equal to
 * 1e-12 of the largest; the assembled path is the one taken (K valid). */
static void compare_at(st_component *ff, st_system *sys, const fem_bsr *K, const double *x,
                       unsigned seed, const char *what)
{
    const size_t n = 3 * sys->nall;
    double *f = calloc(n, sizeof *f), *v = calloc(n, sizeof *v), *dx = calloc(n, sizeof *dx);
    double *loop = calloc(n, sizeof *loop), *asm_ = calloc(n, sizeof *asm_);
    const st_forcefield_ops *ops = ff->cls->forcefield;
    st_mparams mp = sys->mp;
    ops->add_force(ff, &mp, f, x, v);
    /* the old K dropped, or a new one assembled in add_force (eager), not
     * taken by any product yet */
    cr_assert(!K->valid || !K->claimed, "%s: add_force must drop the assembled K", what);
    for (size_t i = 0; i < n; i++)
        dx[i] = rnd(&seed);
    mp.dforce_calls = 0;
    ops->add_dforce(ff, &mp, loop, dx, -0.37, 0.0);
    cr_assert(!(K->valid && K->claimed), "%s: no products announced, yet K was used", what);
    mp.dforce_calls = 25;
    ops->add_dforce(ff, &mp, asm_, dx, -0.37, 0.0);
    cr_assert(K->valid && K->claimed, "%s: 25 products announced, K not assembled", what);
    double big = 0, diff = 0;
    for (size_t i = 0; i < n; i++) {
        big = fmax(big, fabs(loop[i]));
        diff = fmax(diff, fabs(loop[i] - asm_[i]));
    }
    cr_assert_gt(big, 1e-3, "%s: no stiffness at all", what);
    cr_assert(diff <= 1e-12 * big, "%s: assembled df differs from the element loop's by %g of %g",
              what, diff, big);
    /* valid K reused: a second product is the same to the bit */
    double *again = calloc(n, sizeof *again);
    ops->add_dforce(ff, &mp, again, dx, -0.37, 0.0);
    cr_assert(memcmp(again, asm_, n * sizeof *again) == 0, "%s: reuse changed df", what);
    free(f), free(v), free(dx), free(loop), free(asm_), free(again);
}

static void check_methods(const char *fmt, const char *const *methods, size_t nm, bool tetra)
{
    for (size_t m = 0; m < nm; m++) {
        test_rt t;
        fem_open_rt(&t);
        char xml[2048];
        snprintf(xml, sizeof xml, fmt, methods[m]);
        st_scene *s = fem_load_xml(&t, xml);
        st_component *ff = test_find_object(s, "FEM");
        st_mstate *ms = (st_mstate *)test_find_object(s, "dof");
        cr_assert(ff && ms && ms->system);
        st_system *sys = ms->system;
        cr_assert_eq(sys->mp.dforce_calls, 25u, "CGLinearSolver announces its iteration cap");
        const fem_bsr *K = tetra ? &((tetra_fem *)ff)->K : &((hexa_fem *)ff)->Kg;
        const size_t n = 3 * sys->nall;
        double *x = calloc(n, sizeof *x);
        char what[64];
        /* two states, the second turned further: K must follow the rotations */
        deformed(ms->rest_position.r, x, sys->nall, 0.4, 0.05, 3);
        snprintf(what, sizeof what, "%s %s, first state", tetra ? "tet" : "hexa", methods[m]);
        compare_at(ff, sys, K, x, 11, what);
        /* tetrahedra: from now on add_force assembles K itself (eager), and
         * the second state checks those values */
        cr_assert(!tetra || K->eager, "%s: a lazy assembly used must turn eager on", what);
        deformed(ms->rest_position.r, x, sys->nall, 1.3, -0.08, 5);
        snprintf(what, sizeof what, "%s %s, second state", tetra ? "tet" : "hexa", methods[m]);
        compare_at(ff, sys, K, x, 17, what);
        /* and steps through CG run finite with it */
        fem_step(s, 3, 0.01);
        cr_assert(isfinite(ms->position.r[3 * (ms->n - 1) + 1]));
        cr_assert_lt(ms->position.r[3 * (ms->n - 1) + 1], ms->rest_position.r[3 * (ms->n - 1) + 1]);
        free(x);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

Test(fem_assembled, tetrahedra_every_method_matches_the_element_loop)
{
    static const char *const methods[] = {"small", "large", "polar", "svd"};
    check_methods(tet_fmt, methods, 4, true);
}

Test(fem_assembled, hexahedra_every_method_matches_the_element_loop)
{
    static const char *const methods[] = {"large", "polar", "small"};
    check_methods(hex_fmt, methods, 3, false);
}

/* Few iterations announced: the element loop, as before (no assembly). */
Test(fem_assembled, few_products_keep_the_element_loop)
{
    test_rt t;
    fem_open_rt(&t);
    char xml[2048];
    snprintf(xml, sizeof xml, tet_fmt, "large");
    char *it = strstr(xml, "iterations='25'");
    cr_assert_not_null(it);
    memcpy(it, "iterations='05'", 15);
    st_scene *s = fem_load_xml(&t, xml);
    tetra_fem *ff = (tetra_fem *)test_find_object(s, "FEM");
    fem_step(s, 2, 0.01);
    cr_assert(!ff->K.valid && !ff->K.pattern, "5 iterations: K must not be assembled");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Eager assembly follows the solver: values assembled in add_force are
 * used only by a solve that would have assembled them (enough products
 * announced), so that a solve with few products keeps the element loop's
 * results; and an eager assembly nobody used turns the mode off. */
Test(fem_assembled, eager_assembly_is_taken_only_as_the_lazy_one_would_be)
{
    test_rt t;
    fem_open_rt(&t);
    char xml[2048];
    snprintf(xml, sizeof xml, tet_fmt, "large");
    st_scene *s = fem_load_xml(&t, xml);
    tetra_fem *ff = (tetra_fem *)test_find_object(s, "FEM");
    st_mstate *ms = (st_mstate *)test_find_object(s, "dof");
    fem_step(s, 2, 0.01); /* CG, 25 products announced: lazy, then eager */
    cr_assert(ff->K.eager && ff->K.valid && ff->K.claimed);
    st_system *sys = ms->system;
    const st_forcefield_ops *ops = ff->base.cls->forcefield;
    const size_t n = 3 * sys->nall;
    double *x = calloc(n, sizeof *x), *f = calloc(n, sizeof *f), *v = calloc(n, sizeof *v);
    double *dx = calloc(n, sizeof *dx), *few = calloc(n, sizeof *few), *loop = calloc(n, sizeof *loop);
    unsigned seed = 41;
    deformed(ms->rest_position.r, x, sys->nall, 0.9, 0.04, 7);
    for (size_t i = 0; i < n; i++)
        dx[i] = rnd(&seed);
    st_mparams mp = sys->mp;
    ops->add_force(&ff->base, &mp, f, x, v);
    cr_assert(ff->K.valid && !ff->K.claimed, "eager: add_force assembles, unclaimed");
    mp.dforce_calls = 3;
    ops->add_dforce(&ff->base, &mp, few, dx, -0.5, 0.0);
    cr_assert(!ff->K.claimed, "3 products announced: the element loop, as without eager");
    /* the next add_force sees its assembly unused: the mode goes off */
    ops->add_force(&ff->base, &mp, f, x, v);
    cr_assert(!ff->K.eager && !ff->K.valid, "an unused eager assembly must turn eager off");
    ops->add_dforce(&ff->base, &mp, loop, dx, -0.5, 0.0);
    cr_assert(memcmp(few, loop, n * sizeof *few) == 0,
              "the few-product df must be the element loop's, to the bit");
    free(x), free(f), free(v), free(dx), free(few), free(loop);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Tetrahedra removed while the run goes on: the pattern is rebuilt for the
 * remaining elements, and the products still match the element loop. */
Test(fem_assembled, pattern_follows_a_topological_change)
{
    test_rt t;
    fem_open_rt(&t);
    st_error err = {0};
    cr_assert_eq(st_runtime_load_plugin(t.rt, "Topology.Utility", &err), ST_OK, "%s", err.msg);
    char xml[2048];
    snprintf(xml, sizeof xml, tet_fmt, "large");
    st_scene *s = fem_load_xml(&t, xml);
    tetra_fem *ff = (tetra_fem *)test_find_object(s, "FEM");
    st_mstate *ms = (st_mstate *)test_find_object(s, "dof");
    st_component *topo = test_find_object(s, "topo");
    cr_assert_not_null(topo);
    fem_step(s, 1, 0.01);
    cr_assert(ff->K.pattern);
    const size_t before = ff->ne;
    unsigned gone[] = {0, 5, 9};
    cr_assert_eq(st_topology_remove(topo, ST_ELEM_TETRAHEDRON, gone, 3, &err), ST_OK, "%s",
                 err.msg);
    cr_assert_eq(ff->ne, before - 3);
    cr_assert(!ff->K.pattern, "the change must drop the pattern");
    fem_step(s, 1, 0.01); /* the systems are compiled again */
    cr_assert(ff->K.pattern && ff->K.ne == before - 3);
    st_system *sys = ms->system;
    cr_assert_not_null(sys);
    double *x = calloc(3 * sys->nall, sizeof *x);
    deformed(ms->rest_position.r, x, sys->nall, 0.7, 0.03, 23);
    compare_at(&ff->base, sys, &ff->K, x, 29, "after removing 3 tetrahedra");
    cr_assert_eq(ff->K.ne, before - 3);
    free(x);
    st_scene_destroy(&s);
    test_rt_close(&t);
}
