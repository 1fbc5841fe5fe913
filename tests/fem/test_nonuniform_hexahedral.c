/* test_nonuniform_hexahedral.c - NonUniformHexahedralFEMForceFieldAndMass
 * (plugin SolidMechanics.FEM.NonUniform) and its condensation
 * (hexa_condensation.c, compiled in), against closed forms: the trilinear
 * fields nest, so condensing every voxel of a uniform subdivision gives
 * back the coarse element's stiffness (HexahedralFEMForceField's, computed
 * by a scene of its own; equal to 1e-6 relative: SOFA rounds its entries
 * to float, which the sums of rounded entries do not keep) and the
 * consistent mass of the coarse element; a
 * uniform strain's energy counts the voxels present; the scenes read the
 * voxels from a MultilevelHexahedronSetTopologyContainer, weigh
 * density x voxel volume, and fall freely at g under the consistent mass. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plugins/SolidMechanics.FEM.NonUniform/hexa_condensation.h"
#include "plugins/SolidMechanics.FEM.NonUniform/nonuniform.h"
#include "internal.h"
#include "topo_support.h"

static const char *const plugins[] = {"ODESolver.Backward", "LinearSolver.Iterative", "Topology",
                                      "Constraint.Projective", "SolidMechanics.FEM.Elastic",
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
TestSuite(nonuniform_hexahedral, .init = setup, .fini = teardown);

static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                 {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

/* A row of nx cubes of side h along x: points (nx + 1) x 2 x 2, x fastest. */
static void row_of_cubes(char *pos, size_t psize, char *hexas, size_t hsize, int nx, double h)
{
    size_t p = 0, q = 0;
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++)
            for (int i = 0; i <= nx; i++)
                p += (size_t)snprintf(pos + p, psize - p, "%g %g %g ", i * h, j * h, k * h);
    for (int e = 0; e < nx; e++)
        for (int w = 0; w < 8; w++) {
            int i = e + corner[w][0], j = corner[w][1], k = corner[w][2];
            q += (size_t)snprintf(hexas + q, hsize - q, "%d ", i + (nx + 1) * (j + 2 * k));
        }
}

/* One node with a row of nx cubes of side h, topology `topo` (its
 * attributes; the hexahedra are added) and force field `ff`. */
static st_scene *scene_rc(int nx, double h, const char *topo, const char *ff, const char *extra,
                          st_status *rc, st_error *err)
{
    char pos[2048], hexas[1024], xml[8192];
    row_of_cubes(pos, sizeof pos, hexas, sizeof hexas, nx, h);
    snprintf(xml, sizeof xml,
             "<Node name='root' gravity='0 -10 0' dt='0.01'><DefaultAnimationLoop/>"
             "<Node name='B'><EulerImplicitSolver rayleighStiffness='0' rayleighMass='0'/>"
             "<CGLinearSolver iterations='200' tolerance='1e-20' threshold='1e-30'/>"
             "<MechanicalObject name='dofs' position='%s'/>"
             "<%s name='topo' hexahedra='%s'/>%s%s</Node></Node>",
             pos, topo, hexas, ff, extra);
    st_scene *s = NULL;
    *rc = st_scene_load_string(T.rt, xml, strlen(xml), "t.scn", &s, err);
    if (*rc == ST_OK)
        *rc = st_scene_init(s, err);
    return s;
}

static st_scene *scene(int nx, double h, const char *topo, const char *ff, const char *extra)
{
    st_error err = {0};
    st_status rc;
    st_scene *s = scene_rc(nx, h, topo, ff, extra, &rc, &err);
    cr_assert_eq(rc, ST_OK, "%s: %s", err.path, err.msg);
    return s;
}

/* HexahedralFEMForceField's stiffness of a cube of side h. */
static void cube_stiffness(double K[24][24], double h, double E, double nu)
{
    char ff[256];
    snprintf(ff, sizeof ff, "<HexahedralFEMForceField name='fem' youngModulus='%g' "
                            "poissonRatio='%g'/>", E, nu);
    st_scene *s = scene(1, h, "MeshTopology", ff, "");
    const hexal_fem *f = (const hexal_fem *)test_find_object(s, "fem");
    cr_assert_eq(f->ne, 1u);
    memcpy(K, f->e[0].K, sizeof f->e[0].K);
    st_scene_destroy(&s);
}

static double max_abs(const double *a, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(a[i]));
    return m;
}

static void assert_close(const double A[24][24], const double B[24][24], double tol,
                         const char *what)
{
    const double scale = max_abs(&B[0][0], 576);
    cr_assert(scale > 0, "%s: empty reference", what);
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 24; j++)
            cr_assert(fabs(A[i][j] - B[i][j]) <= tol * scale, "%s (%d, %d): %.15g vs %.15g",
                      what, i, j, A[i][j], B[i][j]);
}

/* 1/2 u^T K u for u = (eps x, 0, 0) at the corners of a box of side L. */
static double stretch_energy(const double K[24][24], double L, double eps)
{
    double u[24] = {0};
    for (int w = 0; w < 8; w++)
        u[3 * w] = eps * L * corner[w][0];
    double e = 0;
    for (int a = 0; a < 24; a++)
        for (int b = 0; b < 24; b++)
            e += 0.5 * u[a] * K[a][b] * u[b];
    return e;
}

/* Every voxel of a level-1 and a level-2 subdivision: the coarse cube's own
 * stiffness and consistent mass, by the full-element rule, the recursion
 * and the sum over the voxels (two halves summed by hand). */
Test(nonuniform_hexahedral, full_subdivision_gives_the_coarse_element)
{
    const double E = 700, nu = 0.3, h = 0.5, mf = 0.125;
    double Kf[24][24], Mf[24][24];
    cube_stiffness(Kf, h, E, nu);
    hcond_voxel_mass(Mf, mf);
    for (int level = 1; level <= 2; level++) {
        const int s = 1 << level;
        double Kc[24][24], Mc[24][24];
        cube_stiffness(Kc, h * s, E, nu);
        hcond_voxel_mass(Mc, mf * s * s * s);
        int vox[64][3];
        size_t nv = 0;
        for (int k = 0; k < s; k++)
            for (int j = 0; j < s; j++)
                for (int i = 0; i < s; i++, nv++) {
                    /* fine-grid positions of a coarse cell away from the origin */
                    vox[nv][0] = 3 * s + i, vox[nv][1] = s + j, vox[nv][2] = k;
                }
        static double K[24][24], M[24][24], K2[24][24], M2[24][24];
        double m, m2;
        for (int rec = 0; rec <= 1; rec++) {
            cr_assert(hcond_condense(K, M, &m, (const double(*)[24])Kf, (const double(*)[24])Mf,
                                     mf, level, (const int(*)[3])vox, nv, rec));
            assert_close((const double(*)[24])K, (const double(*)[24])Kc, 1e-6, "K");
            assert_close((const double(*)[24])M, (const double(*)[24])Mc, 1e-12, "M");
            cr_assert_float_eq(m, mf * (double)nv, 1e-12);
        }
        /* The plain sum: two halves, neither full. */
        cr_assert(hcond_condense(K, M, &m, (const double(*)[24])Kf, (const double(*)[24])Mf, mf,
                                 level, (const int(*)[3])vox, nv / 2, false));
        cr_assert(hcond_condense(K2, M2, &m2, (const double(*)[24])Kf, (const double(*)[24])Mf,
                                 mf, level, (const int(*)[3])(vox + nv / 2), nv - nv / 2, false));
        for (int i = 0; i < 24; i++)
            for (int j = 0; j < 24; j++)
                K[i][j] += K2[i][j], M[i][j] += M2[i][j];
        assert_close((const double(*)[24])K, (const double(*)[24])Kc, 1e-6, "K by voxels");
        assert_close((const double(*)[24])M, (const double(*)[24])Mc, 1e-12, "M by voxels");
    }
    /* The consistent mass itself: 8/216 of m on the diagonal, 1/216 between
     * opposite corners, m per axis in all. */
    cr_assert_float_eq(Mf[0][0], mf * 8 / 216, 1e-15);
    cr_assert_float_eq(Mf[0][3 * 6], mf / 216, 1e-15);
    cr_assert_eq(Mf[0][1], 0.0);
    double sum = 0;
    for (int a = 0; a < 24; a += 3)
        for (int b = 0; b < 24; b += 3)
            sum += Mf[a][b];
    cr_assert_float_eq(sum, mf, 1e-15);
}

/* Seven voxels of eight: recursion and sum agree, rigid translations cost
 * nothing, a uniform stretch stores 7/8 of the full cube's energy and the
 * mass is 7 voxels'. */
Test(nonuniform_hexahedral, partial_subdivision_counts_the_voxels)
{
    const double E = 1000, nu = 0.25, h = 1.0, mf = 2.0;
    double Kf[24][24], Mf[24][24], Kc[24][24];
    cube_stiffness(Kf, h, E, nu);
    cube_stiffness(Kc, 2 * h, E, nu);
    hcond_voxel_mass(Mf, mf);
    int vox[7][3];
    for (int o = 0, n = 0; o < 8; o++)
        if (o != 5)
            vox[n][0] = o & 1, vox[n][1] = (o >> 1) & 1, vox[n][2] = o >> 2, n++;
    static double K[24][24], M[24][24], Kr[24][24], Mr[24][24];
    double m, mr;
    cr_assert(hcond_condense(K, M, &m, (const double(*)[24])Kf, (const double(*)[24])Mf, mf, 1,
                             (const int(*)[3])vox, 7, false));
    cr_assert(hcond_condense(Kr, Mr, &mr, (const double(*)[24])Kf, (const double(*)[24])Mf, mf, 1,
                             (const int(*)[3])vox, 7, true));
    assert_close((const double(*)[24])Kr, (const double(*)[24])K, 1e-12, "recursive K");
    assert_close((const double(*)[24])Mr, (const double(*)[24])M, 1e-12, "recursive M");
    cr_assert_float_eq(m, 7 * mf, 1e-12);
    cr_assert_float_eq(mr, 7 * mf, 1e-12);
    const double kmax = max_abs(&K[0][0], 576);
    for (int a = 0; a < 24; a++)
        for (int c = 0; c < 3; c++) {
            double t = 0;
            for (int w = 0; w < 8; w++)
                t += K[a][3 * w + c];
            cr_assert(fabs(t) <= 1e-6 * kmax, "row %d, translation %d: %g", a, c, t);
        }
    const double full = stretch_energy((const double(*)[24])Kc, 2 * h, 1e-3);
    cr_assert(full > 0);
    cr_assert_float_eq(stretch_energy((const double(*)[24])K, 2 * h, 1e-3), 7.0 / 8.0 * full,
                       1e-6 * full);
    /* The missing voxel (x = 1, y = 0, z = 1) holds less mass at coarse
     * vertex 5 than at vertex 3, diagonally away from it. */
    cr_assert(M[3 * 5][3 * 5] < M[3 * 3][3 * 3]);
}

#define ML "MultilevelHexahedronSetTopologyContainer resolution='%d 2 2' level='%d' " \
           "idxInRegularGrid='0 1'"

static st_scene *ml_scene(int level, const char *ff_attrs, const char *extra)
{
    char topo[256], ff[512];
    snprintf(topo, sizeof topo, ML, 2 << level, level);
    snprintf(ff, sizeof ff, "<NonUniformHexahedralFEMForceFieldAndMass name='fem' %s/>",
             ff_attrs);
    return scene(2, 1.0, topo, ff, extra);
}

/* Level 0: each hexahedron is its voxel: HexahedralFEMForceField's
 * stiffness, density x volume, and SOFA's 1/216 consistent mass in M dx
 * (not the AndMass's 8/27 pattern). */
Test(nonuniform_hexahedral, level_zero_is_the_hexahedral_element)
{
    const char *mat = "youngModulus='800' poissonRatio='0.3' density='3'";
    st_scene *s = ml_scene(0, mat, "");
    const nuhexal *n = (const nuhexal *)test_find_object(s, "fem");
    double Kc[24][24];
    cube_stiffness(Kc, 1.0, 800, 0.3);
    cr_assert_eq(n->hm.ff.ne, 2u);
    for (size_t i = 0; i < 2; i++)
        assert_close((const double(*)[24])n->hm.ff.e[i].K, (const double(*)[24])Kc, 1e-14,
                     "K");
    cr_assert_eq(n->hm.total_mass.n, 2u);
    cr_assert_float_eq(n->hm.total_mass.r[0], 3.0, 1e-14);
    cr_assert_float_eq(n->hm.total_mass.r[1], 3.0, 1e-14);
    /* Points 0 and 1 end an x edge of hexahedron 0, point 1 is shared. */
    cr_assert_float_eq(n->hm.particle_masses.r[0], 3.0 / 8, 1e-14);
    cr_assert_float_eq(n->hm.particle_masses.r[1], 6.0 / 8, 1e-14);
    cr_assert_eq(n->hm.lumped_masses.n, 0u, "no lumped masses without lumpedMass (SOFA)");
    st_component *c = (st_component *)n;
    double dx[36] = {0}, r[36] = {0};
    dx[0] = 1.0; /* point 0 (vertex 0 of hexahedron 0), along x */
    st_mparams mp = {0};
    c->cls->mass->add_m_dx(c, &mp, r, dx, 2.0);
    const double m = 3.0;
    cr_assert_float_eq(r[0], 2 * m * 8 / 216, 1e-14);      /* itself */
    cr_assert_float_eq(r[3 * 1], 2 * m * 4 / 216, 1e-14);  /* point 1: vertex 1, along x */
    cr_assert_float_eq(r[3 * 4], 2 * m * 2 / 216, 1e-14);  /* point 4: vertex 2 */
    cr_assert_float_eq(r[3 * 10], 2 * m * 1 / 216, 1e-14); /* point 10: vertex 6 */
    cr_assert_eq(r[3 * 2], 0.0);                           /* point 2: hexahedron 1 only */
    cr_assert_eq(r[1], 0.0);
    st_scene_destroy(&s);
}

/* Level 1 (SOFA's init: each hexahedron is one voxel of its coarse cell):
 * a voxel of half the hexahedron's side, condensed onto its corners: 1/8
 * of the mass, 1/8 of a uniform stretch's energy; recursive agrees; the
 * lumped masses are the row sums. */
Test(nonuniform_hexahedral, level_one_condenses_one_voxel)
{
    st_scene *s0 = ml_scene(0, "youngModulus='800' poissonRatio='0.3' density='3'", "");
    st_scene *s1 = ml_scene(1, "youngModulus='800' poissonRatio='0.3' density='3' "
                               "lumpedMass='true'", "");
    st_scene *s2 = ml_scene(1, "youngModulus='800' poissonRatio='0.3' density='3' "
                               "recursive='true'", "");
    const nuhexal *n0 = (const nuhexal *)test_find_object(s0, "fem");
    const nuhexal *n1 = (const nuhexal *)test_find_object(s1, "fem");
    const nuhexal *n2 = (const nuhexal *)test_find_object(s2, "fem");
    for (size_t i = 0; i < 2; i++) {
        cr_assert_float_eq(n1->hm.total_mass.r[i], 3.0 / 8, 1e-14);
        const double full = stretch_energy((const double(*)[24])n0->hm.ff.e[i].K, 1.0, 1e-3);
        cr_assert_float_eq(stretch_energy((const double(*)[24])n1->hm.ff.e[i].K, 1.0, 1e-3),
                           full / 8, 1e-6 * full);
        assert_close((const double(*)[24])n2->hm.ff.e[i].K,
                     (const double(*)[24])n1->hm.ff.e[i].K, 1e-13, "recursive");
    }
    /* Hexahedron 1's voxel is (1, 0, 0) in its cell: its corner 1 gets
     * more of the mass than its corner 3. */
    cr_assert(n1->M[1][3 * 1][3 * 1] > n1->M[1][3 * 3][3 * 3]);
    cr_assert_eq(n1->hm.lumped_masses.n, 12u);
    double total = 0;
    for (size_t p = 0; p < 12; p++) {
        double row = 0;
        for (size_t i = 0; i < 2; i++)
            for (int w = 0; w < 8; w++)
                if (n1->hm.ff.e[i].v[w] == p)
                    for (int b = 0; b < 24; b++)
                        row += n1->M[i][3 * w][b];
        cr_assert_float_eq(n1->hm.lumped_masses.r[3 * p], row, 1e-14);
        total += n1->hm.lumped_masses.r[3 * p + 1];
    }
    cr_assert_float_eq(total, 2 * 3.0 / 8, 1e-13);
    st_scene_destroy(&s2);
    st_scene_destroy(&s1);
    st_scene_destroy(&s0);
}

/* Free fall at level 0: the consistent mass's rows sum to the particle
 * masses, so one implicit step from rest gives every point v = g dt. (At
 * level 1 they do not: the condensed rows favour the voxel's corner while
 * SOFA's weight is totalMass / 8 per vertex.) */
Test(nonuniform_hexahedral, free_fall_at_g)
{
    st_scene *s = ml_scene(0, "youngModulus='800' poissonRatio='0.3' density='3'", "");
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "%s", err.msg);
    const st_array *v = topo_arr(test_find_object(s, "dofs"), "velocity");
    cr_assert_eq(v->n, 12u);
    for (size_t p = 0; p < 12; p++) {
        cr_assert(fabs(v->r[3 * p + 1] + 0.1) < 1e-9, "point %zu: vy %.12g", p,
                  v->r[3 * p + 1]);
        cr_assert(fabs(v->r[3 * p]) < 1e-9 && fabs(v->r[3 * p + 2]) < 1e-9);
    }
    st_scene_destroy(&s);
}

/* A cantilever held at x = 0 sags under its weight and settles (steps of
 * 1 s: implicit Euler damps them) where HexahedralFEMForceFieldAndMass's
 * does: at level 0 the stiffness and the weights are the same, only the
 * mass matrices differ. */
Test(nonuniform_hexahedral, cantilever_settles_as_the_hexahedral_one)
{
    const char *fix = "<FixedProjectiveConstraint indices='0 3 6 9'/>";
    const char *mat = "youngModulus='2000' poissonRatio='0.3' density='1'";
    char ff[256], topo[256];
    st_scene *s = ml_scene(0, mat, fix);
    snprintf(ff, sizeof ff, "<HexahedralFEMForceFieldAndMass name='fem' %s/>", mat);
    snprintf(topo, sizeof topo, ML, 2, 0);
    st_scene *r = scene(2, 1.0, topo, ff, fix);
    st_error err = {0};
    for (int i = 0; i < 60; i++) {
        cr_assert_eq(st_scene_step(s, 1.0, &err), ST_OK, "%s", err.msg);
        cr_assert_eq(st_scene_step(r, 1.0, &err), ST_OK, "%s", err.msg);
    }
    const st_array *x = topo_arr(test_find_object(s, "dofs"), "position");
    const st_array *xr = topo_arr(test_find_object(r, "dofs"), "position");
    const double tip = x->r[3 * 2 + 1];
    cr_assert(tip < -1e-4 && tip > -0.2, "tip y %g", tip);
    cr_assert_eq(x->r[1], 0.0);
    for (size_t k = 0; k < 36; k++)
        cr_assert(fabs(x->r[k] - xr->r[k]) < 1e-6 * fabs(tip), "coordinate %zu: %.12g vs %.12g",
                  k, x->r[k], xr->r[k]);
    st_scene_destroy(&r);
    st_scene_destroy(&s);
}

/* SOFA refuses another topology; a mass needs a positive density. */
Test(nonuniform_hexahedral, bad_input_is_refused)
{
    st_error err = {0};
    st_status rc;
    st_scene *s = scene_rc(1, 1.0, "MeshTopology",
                           "<NonUniformHexahedralFEMForceFieldAndMass name='fem'/>", "", &rc,
                           &err);
    cr_assert_neq(rc, ST_OK);
    cr_assert(strstr(err.msg, "MultilevelHexahedronSetTopologyContainer"), "%s", err.msg);
    st_scene_destroy(&s);
    memset(&err, 0, sizeof err);
    s = scene_rc(1, 1.0,
                 "MultilevelHexahedronSetTopologyContainer resolution='1 1 1' "
                 "idxInRegularGrid='0'",
                 "<NonUniformHexahedralFEMForceFieldAndMass name='fem' density='0'/>", "", &rc,
                 &err);
    cr_assert_neq(rc, ST_OK);
    cr_assert(strstr(err.msg, "density"), "%s", err.msg);
    st_scene_destroy(&s);
}

/* SOFA's matrices do not follow the container (its handler is compiled
 * out): removing a hexahedron is refused, naming the force field. */
Test(nonuniform_hexahedral, container_change_is_refused)
{
    st_scene *s = ml_scene(0, "", "");
    st_error err = {0};
    const unsigned gone = 1;
    cr_assert_neq(st_topology_remove(test_find_object(s, "topo"), ST_ELEM_HEXAHEDRON, &gone, 1,
                                     &err),
                  ST_OK);
    char msg[1024];
    cr_assert(strstr(st_error_format(&err, msg, sizeof msg), "fem"), "%s", msg);
    st_scene_destroy(&s);
}
