/* test_sparse_grid_fem.c - hexahedral FEM on SparseGridTopology: SOFA's
 * HexahedronFEMForceField scales each element's stiffness by the grid's
 * getStiffnessCoef and HexahedronFEMForceFieldAndMass its element and
 * particle masses by getMassCoef (0.5 for boundary cells with fillWeighted,
 * the filled fraction with virtual finer levels); and the shipped scene
 * scenes/sofa/sparse_grid_octahedron.scn (sparse grid with a virtual level,
 * corotational hexahedra, a surface mapped by BarycentricMapping) runs, its
 * surface following the grid's trilinear interpolation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/SolidMechanics.FEM.Elastic/hexahedron_fem.h"
#include "internal.h"
#include "topo_support.h"

static const char *const plugins[] = {"ODESolver.Backward",  "LinearSolver.Iterative",
                                      "Mass",                "Topology",
                                      "Constraint.Projective", "Engine.Select",
                                      "SolidMechanics.FEM.Elastic", "IO.Mesh",
                                      "Mapping.Linear"};

static test_rt T;
static void setup(void)
{
    st_error err = {0};
    test_rt_open(&T);
    cr_assert_eq(st_runtime_add_plugin_path(T.rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK);
    for (size_t i = 0; i < sizeof plugins / sizeof *plugins; i++)
        cr_assert_eq(st_runtime_load_plugin(T.rt, plugins[i], &err), ST_OK, "%s", err.msg);
}
static void teardown(void) { test_rt_close(&T); }
TestSuite(sparse_grid_fem, .init = setup, .fini = teardown);

#define arr topo_arr

static st_scene *cube_scene(const char *grid_fields)
{
    char xml[2048];
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 -9.81 0'><DefaultAnimationLoop/><Node name='B'>"
             "<EulerImplicitSolver/><CGLinearSolver iterations='10' tolerance='1e-9' "
             "threshold='1e-12'/>"
             "<SparseGridTopology name='grid' fileTopology='%s' %s/>"
             "<MechanicalObject name='dofs'/>"
             "<HexahedronFEMForceFieldAndMass name='fem' youngModulus='1000' "
             "poissonRatio='0.3' density='2' method='large'/></Node></Node>",
             topo_unit_cube_obj(), grid_fields);
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "t.scn", &s, &err), ST_OK, "%s",
                 err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    return s;
}

/* The unit cube on a 5x5x5 grid: 64 equal cells, the 56 outer ones
 * BOUNDARY (coefficient 0.5 with fillWeighted), the 8 inner ones INSIDE;
 * every element matrix of a boundary cell is 0.5 times an inside cell's,
 * and the particle masses sum to rho sum(V_e c_e). */
Test(sparse_grid_fem, element_matrices_take_the_grid_coefficients)
{
    for (int fw = 0; fw < 2; fw++) {
        st_scene *s = cube_scene(fw ? "n='5 5 5'" : "n='5 5 5' fillWeighted='false'");
        st_component *g = test_find_object(s, "grid");
        hexa_fem *h = (hexa_fem *)test_find_object(s, "fem");
        const st_array *types = arr(g, "cellTypes");
        cr_assert_eq(h->ne, 64);
        size_t b = 0, in = 63;
        cr_assert_eq(types->u[b], 1u);
        cr_assert_eq(types->u[in], 2u);
        double c = fw ? 0.5 : 1.0, kmax = 0;
        for (int i = 0; i < 24; i++)
            for (int j = 0; j < 24; j++) {
                double kb = h->e[b].K[i][j], ki = h->e[in].K[i][j];
                kmax = fmax(kmax, fabs(ki));
                cr_assert(fabs(kb - c * ki) <= 1e-12 * fabs(ki) + 1e-9, "K(%d,%d): %g vs %g", i,
                          j, kb, c * ki);
                cr_assert(fabs(h->M[b][i][j] - c * h->M[in][i][j]) <= 1e-15,
                          "M(%d,%d): %g vs %g", i, j, h->M[b][i][j], c * h->M[in][i][j]);
            }
        cr_assert_gt(kmax, 10.0, "the stiffness is not trivial (%g)", kmax);
        /* stiffnessMatrices (the output) carries the scaled matrices. */
        cr_assert(fabs(h->stiffness_matrices.r[0] - h->e[0].K[0][0]) == 0);
        const double w = 1.02 / 4, ve = w * w * w;
        double sum = 0;
        for (size_t i = 0; i < h->np; i++)
            sum += h->particle_mass[i];
        double want = 2 * ve * (56 * c + 8);
        cr_assert(fabs(sum - want) <= 1e-12 * want, "particle masses %.17g, expected %.17g", sum,
                  want);
        st_scene_destroy(&s);
    }
}

/* With one virtual finer level (n 3 -> 5 fine points) each of the 8 coarse
 * cells holds 7 boundary children and 1 inside child: coefficient 0.5625,
 * so K_e = 0.5625 times the same cell's K on a RegularGridTopology. */
Test(sparse_grid_fem, virtual_level_fraction_scales_the_stiffness)
{
    st_scene *s = cube_scene("n='3 3 3' nbVirtualFinerLevels='1'");
    hexa_fem *h = (hexa_fem *)test_find_object(s, "fem");
    cr_assert_eq(h->ne, 8);
    char xml[1024];
    snprintf(xml, sizeof xml,
             "<Node name='root'><Node name='B'><RegularGridTopology name='grid' n='2 2 2' "
             "min='0 0 0' max='0.51 0.51 0.51'/><MechanicalObject/>"
             "<HexahedronFEMForceField name='fem' youngModulus='1000' poissonRatio='0.3' "
             "method='large'/></Node></Node>");
    st_error err = {0};
    st_scene *r = NULL;
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "r.scn", &r, &err), ST_OK, "%s",
                 err.msg);
    cr_assert_eq(st_scene_init(r, &err), ST_OK, "%s", err.msg);
    hexa_fem *ref = (hexa_fem *)test_find_object(r, "fem");
    for (size_t e = 0; e < 8; e++)
        for (int i = 0; i < 24; i++)
            for (int j = 0; j < 24; j++) {
                double want = 0.5625 * ref->e[0].K[i][j];
                cr_assert(fabs(h->e[e].K[i][j] - want) <= 1e-10 * (fabs(want) + 1),
                          "element %zu K(%d,%d) %g vs %g", e, i, j, h->e[e].K[i][j], want);
            }
    st_scene_destroy(&r);
    st_scene_destroy(&s);
}

/* The shipped scene: 57 hexahedra from the virtual level, fractional
 * coefficients; the skin starts on the loader's points and, after 100
 * steps, every skin point still equals the trilinear interpolation of its
 * rest cell's corners (the mapping), the held points have not moved and the
 * body has settled downwards. */
Test(sparse_grid_fem, octahedron_scene_runs_and_the_surface_follows)
{
    st_error err = {0};
    st_scene *s = NULL;
    char path[1024];
    snprintf(path, sizeof path, "%s/scenes/sofa/sparse_grid_octahedron.scn", SETTEE_SOURCE_DIR);
    cr_assert_eq(st_scene_load(T.rt, path, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    st_component *g = test_find_object(s, "grid");
    const st_array *hx = arr(g, "hexahedra"), *k = arr(g, "stiffnessCoefs");
    cr_assert_eq(hx->n, 57);
    size_t partial = 0;
    for (size_t e = 0; e < k->n; e++) {
        cr_assert(k->r[e] > 0 && k->r[e] <= 1);
        partial += k->r[e] != 0.5 && k->r[e] != 1.0;
    }
    cr_assert_gt(partial, 0, "a virtual level gives fractions other than 0.5 and 1");
    st_mstate *dofs = (st_mstate *)test_find_object(s, "dofs");
    st_mstate *skin = (st_mstate *)test_find_object(s, "skin");
    st_component *loader = test_find_object(s, "loader");
    const st_array *lp = arr(loader, "position");
    cr_assert_eq(skin->n, 66);
    for (size_t i = 0; i < 3 * skin->n; i++)
        cr_assert(fabs(skin->position.r[i] - lp->r[i]) < 1e-12, "skin starts on the surface");
    /* Rest cell and local coordinates of every skin point. */
    size_t n = dofs->n;
    double *x0 = malloc(3 * n * sizeof *x0);
    memcpy(x0, dofs->position.r, 3 * n * sizeof *x0);
    size_t cell[66];
    double loc[66][3];
    size_t found = 0;
    for (size_t v = 0; v < 66; v++) {
        cell[v] = (size_t)-1;
        const double *p = lp->r + 3 * v;
        for (size_t e = 0; e < hx->n && cell[v] == (size_t)-1; e++) {
            const double *a = x0 + 3 * hx->u[8 * e], *b = x0 + 3 * hx->u[8 * e + 6];
            double f[3];
            bool in = true;
            for (int c = 0; c < 3; c++) {
                f[c] = (p[c] - a[c]) / (b[c] - a[c]);
                in = in && f[c] >= -1e-12 && f[c] <= 1 + 1e-12;
            }
            if (in) {
                cell[v] = e;
                memcpy(loc[v], f, sizeof f);
                found++;
            }
        }
    }
    cr_assert_eq(found, 66, "every surface point lies in a grid cell");
    const st_array *fixed = arr(test_find_object(s, "tip"), "indices");
    cr_assert_gt(fixed->n, 0);
    for (int i = 0; i < 100; i++)
        cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "step %d: %s", i, err.msg);
    double dy = 0;
    for (size_t i = 0; i < n; i++) {
        for (int c = 0; c < 3; c++)
            cr_assert(isfinite(dofs->position.r[3 * i + (size_t)c]));
        dy += dofs->position.r[3 * i + 1] - x0[3 * i + 1];
    }
    dy /= (double)n;
    cr_assert_lt(dy, -1e-3, "the body settles under gravity (mean dy %g)", dy);
    cr_assert_gt(dy, -0.2, "and does not collapse (mean dy %g)", dy);
    cr_log_info("mean dy %g", dy);
    for (size_t i = 0; i < fixed->n; i++)
        for (int c = 0; c < 3; c++)
            cr_assert_eq(dofs->position.r[3 * fixed->u[i] + (size_t)c],
                         x0[3 * fixed->u[i] + (size_t)c]);
    for (size_t v = 0; v < 66; v++) {
        double want[3] = {0, 0, 0};
        const double *f = loc[v];
        for (int m = 0; m < 8; m++) {
            /* SOFA's hexahedron corner m sits at (m&1 ^ m>>1&1, m>>1&1, m>>2&1). */
            int ix = ((m & 1) ^ (m >> 1 & 1)), iy = m >> 1 & 1, iz = m >> 2 & 1;
            double wgt = (ix ? f[0] : 1 - f[0]) * (iy ? f[1] : 1 - f[1]) * (iz ? f[2] : 1 - f[2]);
            const double *q = dofs->position.r + 3 * hx->u[8 * cell[v] + (size_t)m];
            for (int c = 0; c < 3; c++)
                want[c] += wgt * q[c];
        }
        for (int c = 0; c < 3; c++)
            cr_assert(fabs(skin->position.r[3 * v + (size_t)c] - want[c]) < 1e-9,
                      "skin point %zu axis %d: %.12g, interpolation %.12g", v, c,
                      skin->position.r[3 * v + (size_t)c], want[c]);
    }
    free(x0);
    st_scene_destroy(&s);
}
