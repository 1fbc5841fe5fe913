/* test_nonuniform_fem.c - NonUniformHexahedronFEMForceFieldAndMass (plugin
 * SolidMechanics.FEM.NonUniform): its element stiffness and mass matrices
 * are SOFA's condensation of the finer levels of a sparse grid. Checked
 * against HexahedronFEMForceFieldAndMass on the fine grid itself, condensed
 * here level by level as SOFA's equations say (K_parent = sum over the 8
 * children of P_i^T K_i P_i, P_i the trilinear interpolation of child i's
 * corners from its parent's); on a grid whose finest cells all have
 * coefficient 1 the condensation gives back the coarse element (the
 * trilinear fields nest); useMass false and the fallbacks. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plugins/SolidMechanics.FEM.Elastic/hexahedron_fem.h"
#include "internal.h"
#include "topo_support.h"

static const char *const plugins[] = {"ODESolver.Backward", "LinearSolver.Iterative", "Topology",
                                      "SolidMechanics.FEM.Elastic",
                                      "SolidMechanics.FEM.NonUniform"};

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
TestSuite(nonuniform_fem, .init = setup, .fini = teardown);

#define arr topo_arr

static st_scene *scene(const char *grid, const char *ff)
{
    char xml[2048];
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 0 -9.81'><DefaultAnimationLoop/><Node name='B'>"
             "<EulerImplicitSolver/><CGLinearSolver iterations='10' tolerance='1e-9' "
             "threshold='1e-12'/>"
             "<SparseGridTopology name='grid' fileTopology='%s' %s/>"
             "<MechanicalObject name='dofs'/>%s</Node></Node>",
             topo_unit_cube_obj(), grid, ff);
    st_error err = {0};
    st_scene *s = NULL;
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "t.scn", &s, &err), ST_OK, "%s",
                 err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s: %s", err.path, err.msg);
    return s;
}

static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                 {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

/* SOFA's FINE_TO_COARSE[child][k][j]: weight of parent corner j at corner
 * k of child `child` (that corner sits halfway between the parent's
 * corners child and k). */
static double f2c(int child, int k, int j)
{
    double w = 1;
    for (int a = 0; a < 3; a++) {
        double t = (corner[child][a] + corner[k][a]) / 2.0;
        w *= corner[j][a] ? t : 1 - t;
    }
    return w;
}

/* coarse += P_child^T fine P_child (SOFA's addFineToCoarse). */
static void add_fine_to_coarse(double coarse[24][24], const double *fine, int child)
{
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 24; j++) {
            double acc = 0;
            for (int k = 0; k < 24; k++) {
                if (k % 3 != i % 3)
                    continue;
                for (int l = 0; l < 24; l++)
                    if (l % 3 == j % 3)
                        acc += f2c(child, k / 3, i / 3) * fine[24 * k + l] *
                               f2c(child, l / 3, j / 3);
            }
            coarse[i][j] += acc;
        }
}

/* The cell (integer triple) of hexahedron h's first vertex on a grid of
 * spacing d from lo. */
static void cell_of(st_component *topo, size_t h, const double lo[3], double d, int ijk[3])
{
    const st_array *hx = arr(topo, "hexahedra"), *pos = arr(topo, "position");
    const double *p = pos->r + 3 * hx->u[8 * h];
    for (int a = 0; a < 3; a++)
        ijk[a] = (int)lround((p[a] - lo[a]) / d);
}

static double max_abs(const double *a, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(a[i]));
    return m;
}

/* A box twice the cube's size, n = 3 (coarse cells of 1), 2 virtual
 * levels: the finest cells (0.25) are empty, BOUNDARY (0.5) or INSIDE (1).
 * The fine reference is HexahedronFEMForceFieldAndMass on the 9x9x9 grid
 * over the same box, whose element matrices carry the same coefficients. */
Test(nonuniform_fem, matches_the_fine_grid_condensed_as_sofa_does)
{
    const char *box = "min='-0.5 -0.5 -0.5' max='1.5 1.5 1.5'";
    const char *mat = "youngModulus='1000' poissonRatio='0.3' density='2' method='large'";
    char g[256], f[256];
    snprintf(g, sizeof g, "n='3 3 3' nbVirtualFinerLevels='2' %s", box);
    snprintf(f, sizeof f, "<NonUniformHexahedronFEMForceFieldAndMass name='fem' "
                          "nbVirtualFinerLevels='2' %s/>", mat);
    st_scene *coarse = scene(g, f);
    snprintf(g, sizeof g, "n='9 9 9' %s", box);
    snprintf(f, sizeof f, "<HexahedronFEMForceFieldAndMass name='fem' %s/>", mat);
    st_scene *fine = scene(g, f);
    st_component *cg = test_find_object(coarse, "grid"), *fg = test_find_object(fine, "grid");
    st_component *cf = test_find_object(coarse, "fem"), *ff = test_find_object(fine, "fem");
    size_t nc = arr(cg, "hexahedra")->n, nfine = arr(fg, "hexahedra")->n;
    cr_assert_eq(nc, 8);
    cr_assert(nfine > 100 && nfine < 512, "%zu fine cells", nfine);
    const st_array *fk = arr(ff, "stiffnessMatrices"), *fm = arr(ff, "massMatrices");
    const st_array *ck = arr(cf, "stiffnessMatrices"), *cm = arr(cf, "massMatrices");
    const double lo[3] = {-0.5, -0.5, -0.5};
    /* The fine cells' coefficients differ (boundary 0.5, inside 1). */
    const st_array *coefs = arr(fg, "stiffnessCoefs");
    bool half = false, one = false;
    for (size_t i = 0; i < nfine; i++)
        half |= coefs->r[i] == 0.5, one |= coefs->r[i] == 1.0;
    cr_assert(half && one);
    for (size_t H = 0; H < nc; H++) {
        int c[3];
        cell_of(cg, H, lo, 1.0, c);
        static double K[24][24], M[24][24];
        memset(K, 0, sizeof K), memset(M, 0, sizeof M);
        for (int a = 0; a < 8; a++) {
            static double Ka[24][24], Ma[24][24];
            memset(Ka, 0, sizeof Ka), memset(Ma, 0, sizeof Ma);
            for (int b = 0; b < 8; b++)
                for (size_t h = 0; h < nfine; h++) {
                    int q[3];
                    cell_of(fg, h, lo, 0.25, q);
                    bool match = true;
                    for (int x = 0; x < 3; x++)
                        match &= q[x] == 4 * c[x] + 2 * corner[a][x] + corner[b][x];
                    if (!match)
                        continue;
                    add_fine_to_coarse(Ka, fk->r + 576 * h, b);
                    add_fine_to_coarse(Ma, fm->r + 576 * h, b);
                }
            add_fine_to_coarse(K, &Ka[0][0], a);
            add_fine_to_coarse(M, &Ma[0][0], a);
        }
        double kmax = max_abs(&K[0][0], 576), mmax = max_abs(&M[0][0], 576);
        cr_assert(kmax > 10 && mmax > 1e-3, "element %zu: |K| %g |M| %g", H, kmax, mmax);
        for (int i = 0; i < 24; i++)
            for (int j = 0; j < 24; j++) {
                cr_assert(fabs(ck->r[576 * H + 24 * i + j] - K[i][j]) <= 1e-10 * kmax,
                          "K%zu(%d,%d): %.12g vs %.12g", H, i, j, ck->r[576 * H + 24 * i + j],
                          K[i][j]);
                cr_assert(fabs(cm->r[576 * H + 24 * i + j] - M[i][j]) <= 1e-10 * mmax,
                          "M%zu(%d,%d): %.12g vs %.12g", H, i, j, cm->r[576 * H + 24 * i + j],
                          M[i][j]);
            }
    }
    /* The particle masses (the weight): the coarse volume times the grid's
     * filled fraction, so the total is the fine grid's. */
    const hexa_fem *hc = (const hexa_fem *)cf, *hf = (const hexa_fem *)ff;
    double mc = 0, mf = 0;
    for (size_t i = 0; i < hc->np; i++)
        mc += hc->particle_mass[i];
    for (size_t i = 0; i < hf->np; i++)
        mf += hf->particle_mass[i];
    cr_assert(fabs(mc - mf) <= 1e-12 * mf && mf > 1, "%g vs %g", mc, mf);
    st_scene_destroy(&coarse);
    st_scene_destroy(&fine);
}

/* Every finest cell with coefficient 1 (fillWeighted false, the cube fills
 * the box): the condensed stiffness is the coarse element's, as
 * HexahedronFEMForceFieldAndMass computes it on the coarse grid; one level
 * on the force field of a grid with two gives the same. */
Test(nonuniform_fem, full_grid_gives_the_coarse_element)
{
    const char *grid = "n='3 2 2' nbVirtualFinerLevels='2' fillWeighted='false'";
    const char *mat = "youngModulus='500' poissonRatio='0.35' density='3' method='polar'";
    char f[512];
    snprintf(f, sizeof f, "<HexahedronFEMForceFieldAndMass name='fem' %s/>", mat);
    st_scene *ref = scene(grid, f);
    const st_array *k0 = arr(test_find_object(ref, "fem"), "stiffnessMatrices");
    cr_assert_eq(k0->n, 2 * 576);
    double kmax = max_abs(k0->r, k0->n);
    cr_assert(kmax > 10);
    for (int levels = 1; levels <= 2; levels++) {
        snprintf(f, sizeof f,
                 "<NonUniformHexahedronFEMForceFieldAndMass name='fem' "
                 "nbVirtualFinerLevels='%d' %s/>",
                 levels, mat);
        st_scene *s = scene(grid, f);
        const st_array *k = arr(test_find_object(s, "fem"), "stiffnessMatrices");
        cr_assert_eq(k->n, k0->n);
        for (size_t i = 0; i < k0->n; i++)
            cr_assert(fabs(k->r[i] - k0->r[i]) <= 1e-10 * kmax, "%d levels [%zu] %.12g vs %.12g",
                      levels, i, k->r[i], k0->r[i]);
        st_scene_destroy(&s);
    }
    st_scene_destroy(&ref);
}

/* useMass false: each particle weighs totalMass / (number of elements), in
 * addMDx and in the weight. */
Test(nonuniform_fem, use_mass_false_takes_total_mass_per_element)
{
    st_scene *s = scene("n='3 2 2' nbVirtualFinerLevels='1'",
                        "<NonUniformHexahedronFEMForceFieldAndMass name='fem' "
                        "nbVirtualFinerLevels='1' useMass='false' totalMass='6'/>");
    st_component *c = test_find_object(s, "fem");
    const hexa_fem *h = (const hexa_fem *)c;
    cr_assert_eq(h->ne, 2);
    cr_assert_eq(h->np, 12);
    for (size_t i = 0; i < h->np; i++)
        cr_assert_float_eq(h->particle_mass[i], 3.0, 1e-15);
    double dx[36], r[36] = {0};
    for (int i = 0; i < 36; i++)
        dx[i] = i + 1;
    st_mparams mp = {0};
    c->cls->mass->add_m_dx(c, &mp, r, dx, 0.5);
    for (int i = 0; i < 36; i++)
        cr_assert_float_eq(r[i], 1.5 * (i + 1), 1e-12);
    /* One step: the weight is 12 particles x 3 x g. */
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "%s", err.msg);
    const st_array *v = arr(test_find_object(s, "dofs"), "velocity");
    double vz = 0;
    for (size_t i = 0; i < h->np; i++)
        vz += v->r[3 * i + 2];
    cr_assert(vz < -1e-3, "the weight pulls down: %g", vz);
    st_scene_destroy(&s);
}

/* More levels on the force field than on the grid, or a grid with none:
 * the uniform matrices, with a warning. */
Test(nonuniform_fem, level_conflict_keeps_uniform_properties)
{
    const char *grid = "n='3 2 2' nbVirtualFinerLevels='1'";
    st_scene *ref = scene(grid, "<HexahedronFEMForceFieldAndMass name='fem'/>");
    st_scene *s = scene(grid, "<NonUniformHexahedronFEMForceFieldAndMass name='fem' "
                              "nbVirtualFinerLevels='2'/>");
    const st_array *a = arr(test_find_object(ref, "fem"), "stiffnessMatrices"),
                   *b = arr(test_find_object(s, "fem"), "stiffnessMatrices");
    cr_assert_eq(a->n, b->n);
    cr_assert_eq(memcmp(a->r, b->r, a->n * sizeof(double)), 0);
    cr_assert(strstr(T.log, "Conflict in nb of virtual levels"));
    st_scene_destroy(&s);
    st_scene_destroy(&ref);
}

/* A SparseGridMultipleTopology (ramified, as SOFA's composite scenes use
 * it): one surface whose cells all take its stiffness coefficient 3
 * (fillWeighted false); the condensation is then 3 times the coarse
 * element, which HexahedronFEMForceFieldAndMass gives from the grid's
 * elementStiffnessCoefs. */
Test(nonuniform_fem, multiple_topology_takes_the_files_coefficients)
{
    char grid[512], xml[2048];
    snprintf(grid, sizeof grid,
             "<SparseGridMultipleTopology name='grid' n='3 2 2' fileTopology='%s' "
             "fileTopologies='%s' stiffnessCoefs='3' massCoefs='1' fillWeighted='false' "
             "finestConnectivity='false' nbVirtualFinerLevels='2'/>",
             topo_unit_cube_obj(), topo_unit_cube_obj());
    const char *ffs[2] = {"<HexahedronFEMForceFieldAndMass name='fem' youngModulus='100'/>",
                          "<NonUniformHexahedronFEMForceFieldAndMass name='fem' "
                          "youngModulus='100' nbVirtualFinerLevels='2'/>"};
    st_scene *s[2];
    for (int k = 0; k < 2; k++) {
        snprintf(xml, sizeof xml,
                 "<Node name='root'><DefaultAnimationLoop/><Node name='B'><EulerImplicitSolver/>"
                 "<CGLinearSolver/>%s<MechanicalObject name='dofs'/>%s</Node></Node>",
                 grid, ffs[k]);
        st_error err = {0};
        cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "t.scn", &s[k], &err), ST_OK,
                     "%s", err.msg);
        cr_assert_eq(st_scene_init(s[k], &err), ST_OK, "%s: %s", err.path, err.msg);
    }
    const st_array *coefs = arr(test_find_object(s[0], "grid"), "elementStiffnessCoefs");
    cr_assert_eq(coefs->n, 2);
    cr_assert_float_eq(coefs->r[0], 3.0, 1e-6);
    const st_array *a = arr(test_find_object(s[0], "fem"), "stiffnessMatrices"),
                   *b = arr(test_find_object(s[1], "fem"), "stiffnessMatrices");
    cr_assert_eq(a->n, b->n);
    double kmax = max_abs(a->r, a->n);
    cr_assert(kmax > 1);
    for (size_t i = 0; i < a->n; i++)
        cr_assert(fabs(a->r[i] - b->r[i]) <= 1e-6 * kmax, "[%zu] %.12g vs %.12g", i, a->r[i],
                  b->r[i]);
    st_scene_destroy(&s[0]);
    st_scene_destroy(&s[1]);
}
