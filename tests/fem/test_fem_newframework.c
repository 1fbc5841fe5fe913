/* test_fem_newframework.c - SOFA's element framework:
 * LinearSmallStrainFEMForceField and CorotationalFEMForceField on every
 * element type SOFA registers (tetrahedra and hexahedra; edges in Vec1d,
 * Vec2d, Vec3d; triangles and quads in Vec2d, Vec3d; prisms, pyramids),
 * FEMMass with NodalMassDensity.
 *
 * Other element types: the patch test (interior residual, and u . f equal
 * to twice the exact strain energy of the constant stress, 1e-11),
 * corotational rigid-motion invariance for every rotation method, finite-
 * difference Jacobians (1e-6), FEMMass totals rho x measure (1e-12),
 * TriangleFEMForceField small (plane stress = Vec2d, plane strain = Vec3d)
 * and large (= corotational Vec3d,Triangle), MeshMatrixMass's lumped masses
 * on triangles and quads, SOFA's FiniteElement_test identities.
 *
 * Checked: LinearSmallStrain on tetrahedra equals TetrahedronFEMForceField
 * method small (both are V B^T C B) to round-off; the hexahedral patch test;
 * add_dforce and the assembled matrix against finite differences of
 * add_force (SDK check), for the corotational one at a rigidly moved rest
 * shape where SOFA's tangent (no derivative of R) is exact; rigid-motion
 * invariance of every rotation method; FEMMass total mass = density x
 * volume, the tetrahedron's one-point element matrix rho V / 16, equality
 * with MeshMatrixMass exactHexahedra on hexahedra, gravity and kinetic
 * energy; implicit CG and SparseLDL agree on a hexahedral beam. SOFA has no
 * numeric unit test for these classes (its FEMMass test checks only
 * generic mass identities, done here by the same checks). */
#include <float.h>
#include <settee/check.h>
#include <stdio.h>

#include "plugins/SolidMechanics.FEM.Elastic/element_fem.h"
#include "fem_test_util.h"

#define NX 2
#define NY 2
#define NZ 2
#define NP ((NX + 1) * (NY + 1) * (NZ + 1))

static unsigned pid(int i, int j, int k) { return (unsigned)(i + (NX + 1) * (j + (NY + 1) * k)); }

/* Grid points, unit cells, interior points moved by a fixed amount so the
 * elements are general (not parallelepipeds) unless flat is true. */
static void grid_points(double *p, bool flat)
{
    for (int k = 0; k <= NZ; k++)
        for (int j = 0; j <= NY; j++)
            for (int i = 0; i <= NX; i++) {
                double *q = p + 3 * pid(i, j, k);
                q[0] = i, q[1] = 1.2 * j, q[2] = 0.9 * k;
                if (!flat && i == 1 && j == 1 && k == 1)
                    q[0] += 0.13, q[1] -= 0.08, q[2] += 0.11;
            }
}

/* SOFA's hexahedron order: (0,0,0) (1,0,0) (1,1,0) (0,1,0), then z + 1. */
static void grid_hexas(unsigned (*h)[8])
{
    int n = 0;
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++, n++) {
                unsigned c[8] = {pid(i, j, k),         pid(i + 1, j, k),
                                 pid(i + 1, j + 1, k), pid(i, j + 1, k),
                                 pid(i, j, k + 1),     pid(i + 1, j, k + 1),
                                 pid(i + 1, j + 1, k + 1), pid(i, j + 1, k + 1)};
                memcpy(h[n], c, sizeof c);
            }
}

/* Six tetrahedra per hexahedron around its diagonal 0-6, positively
 * oriented. */
static void grid_tetras(const double *p, unsigned (*t)[4])
{
    unsigned h[NX * NY * NZ][8];
    grid_hexas(h);
    static const int split[6][4] = {{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6},
                                    {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}};
    for (int e = 0; e < NX * NY * NZ; e++)
        for (int s = 0; s < 6; s++) {
            unsigned *q = t[6 * e + s];
            for (int c = 0; c < 4; c++)
                q[c] = h[e][split[s][c]];
            const double *a = p + 3 * q[0], *b = p + 3 * q[1], *c = p + 3 * q[2],
                         *d = p + 3 * q[3];
            double u[3], v[3], w[3], n[3];
            for (int k = 0; k < 3; k++)
                u[k] = b[k] - a[k], v[k] = c[k] - a[k], w[k] = d[k] - a[k];
            fem_cross(n, u, v);
            if (n[0] * w[0] + n[1] * w[1] + n[2] * w[2] < 0) {
                unsigned tmp = q[1];
                q[1] = q[2], q[2] = tmp;
            }
        }
}

/* A SOFA scene: one state named dof on the grid, the topology of kind
 * "tetra" or "hexa", and the extra objects. */
static char *grid_scene(bool tetra, bool flat, const char *objects)
{
    double p[3 * NP];
    grid_points(p, flat);
    size_t cap = 65536, len = 0;
    char *x = malloc(cap);
    len += (size_t)snprintf(x + len, cap - len,
                            "<Node name='root' gravity='0 -9.81 0' dt='0.01'>"
                            "<DefaultAnimationLoop/><MechanicalObject name='dof' position='");
    for (int i = 0; i < 3 * NP; i++)
        len += (size_t)snprintf(x + len, cap - len, "%.17g ", p[i]);
    if (tetra) {
        unsigned t[6 * NX * NY * NZ][4];
        grid_tetras(p, t);
        len += (size_t)snprintf(x + len, cap - len,
                                "'/><TetrahedronSetTopologyContainer name='topo' tetrahedra='");
        for (int e = 0; e < 6 * NX * NY * NZ; e++)
            len += (size_t)snprintf(x + len, cap - len, "%u %u %u %u ", t[e][0], t[e][1],
                                    t[e][2], t[e][3]);
    } else {
        unsigned h[NX * NY * NZ][8];
        grid_hexas(h);
        len += (size_t)snprintf(x + len, cap - len,
                                "'/><HexahedronSetTopologyContainer name='topo' hexahedra='");
        for (int e = 0; e < NX * NY * NZ; e++)
            for (int c = 0; c < 8; c++)
                len += (size_t)snprintf(x + len, cap - len, "%u ", h[e][c]);
    }
    snprintf(x + len, cap - len, "'/>%s</Node>", objects);
    return x;
}

static st_scene *load_grid(test_rt *t, bool tetra, bool flat, const char *objects)
{
    char *xml = grid_scene(tetra, flat, objects);
    st_scene *s = fem_load_xml(t, xml);
    free(xml);
    cr_assert_geq(s->nsystems, 1);
    return s;
}

static double rnd(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return ((*state >> 8) & 0xFFFF) / 32767.5 - 1.0;
}

static double max_abs(const double *a, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fabs(a[i]) > m ? fabs(a[i]) : m;
    return m;
}

#define SOLVER "<EulerImplicitSolver/><CGLinearSolver iterations='100' tolerance='1e-12' threshold='1e-20'/>"

/* Same mesh, same material: forces and df of LinearSmallStrain and of
 * TetrahedronFEMForceField small agree to round-off. */
Test(fem_newframework, small_strain_tetra_equals_tetrahedron_fem_small)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = load_grid(&t, true, false,
                            SOLVER "<LinearSmallStrainFEMForceField name='A' "
                                   "template='Vec3d,Tetrahedron' youngModulus='1000' "
                                   "poissonRatio='0.3'/>"
                                   "<TetrahedronFEMForceField name='B' method='small' "
                                   "youngModulus='1000' poissonRatio='0.3'/>");
    st_system *sys = s->systems[0];
    st_component *a = fem_find(s, "A", "LinearSmallStrainFEMForceField");
    st_component *b = fem_find(s, "B", "TetrahedronFEMForceField");
    size_t n = sys->xsize;
    double *x = malloc(n * sizeof *x), *fa = malloc(n * sizeof *fa), *fb = malloc(n * sizeof *fb);
    unsigned seed = 7;
    for (size_t i = 0; i < n; i++)
        x[i] = sys->x[i] + 0.05 * rnd(&seed);
    fem_forces_at(a, sys, x, fa);
    fem_forces_at(b, sys, x, fb);
    double fmax = max_abs(fa, n);
    cr_assert_gt(fmax, 1.0);
    for (size_t i = 0; i < n; i++)
        fem_near(fa[i], fb[i], 1e-11 * fmax, "force, small strain vs TetrahedronFEM small");
    /* df for a random dx */
    memset(fa, 0, n * sizeof *fa), memset(fb, 0, n * sizeof *fb);
    a->cls->forcefield->add_dforce(a, &sys->mp, fa, x, 1.0, 0.0);
    b->cls->forcefield->add_dforce(b, &sys->mp, fb, x, 1.0, 0.0);
    fmax = max_abs(fa, n);
    for (size_t i = 0; i < n; i++)
        fem_near(fa[i], fb[i], 1e-11 * fmax, "dforce, small strain vs TetrahedronFEM small");
    free(x), free(fa), free(fb);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* On a grid of rectangular boxes, LinearSmallStrain on hexahedra against
 * HexahedronFEMForceField method small: forces for a random displacement
 * agree to 7e-13 relative (the Gauss points at SOFA's truncated sqrt(3)). */
Test(fem_newframework, small_strain_hexa_vs_hexahedron_fem_small)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = load_grid(&t, false, true,
                            SOLVER "<LinearSmallStrainFEMForceField name='A' "
                                   "template='Vec3d,Hexahedron' youngModulus='1000' "
                                   "poissonRatio='0.3'/>"
                                   "<HexahedronFEMForceField name='B' method='small' "
                                   "youngModulus='1000' poissonRatio='0.3'/>");
    st_system *sys = s->systems[0];
    size_t n = sys->xsize;
    double *x = malloc(n * sizeof *x), *fa = malloc(n * sizeof *fa), *fb = malloc(n * sizeof *fb);
    unsigned seed = 9;
    for (size_t i = 0; i < n; i++)
        x[i] = sys->x[i] + 0.05 * rnd(&seed);
    fem_forces_at(fem_find(s, "A", "LinearSmallStrainFEMForceField"), sys, x, fa);
    fem_forces_at(fem_find(s, "B", "HexahedronFEMForceField"), sys, x, fb);
    double fmax = max_abs(fa, n), dmax = 0;
    for (size_t i = 0; i < n; i++)
        dmax = fabs(fa[i] - fb[i]) > dmax ? fabs(fa[i] - fb[i]) : dmax;
    cr_log_info("hexa small strain vs HexahedronFEM small: max |df| %g of max |f| %g", dmax, fmax);
    cr_assert_lt(dmax, 1e-11 * fmax, "max difference %g of %g", dmax, fmax);
    free(x), free(fa), free(fb);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Hexahedral patch test: a linear displacement field leaves no force on
 * the interior vertex (the grid's centre, moved off the regular position). */
Test(fem_newframework, hexa_patch_test)
{
    const char *const ffs[2] = {"LinearSmallStrainFEMForceField", "CorotationalFEMForceField"};
    for (int k = 0; k < 2; k++) {
        test_rt t;
        fem_open_rt(&t);
        char obj[512];
        snprintf(obj, sizeof obj,
                 SOLVER "<%s name='A' template='Vec3d,Hexahedron' youngModulus='1000' "
                        "poissonRatio='0.35'/>",
                 ffs[k]);
        st_scene *s = load_grid(&t, false, false, obj);
        st_system *sys = s->systems[0];
        st_component *a = fem_find(s, "A", ffs[k]);
        size_t n = sys->xsize;
        double *x = malloc(n * sizeof *x), *f = malloc(n * sizeof *f);
        static const double G[9] = {0.01, 0.004, -0.003, 0.002, -0.006, 0.001, 0.005, 0.002, 0.008};
        for (size_t i = 0; i < n / 3; i++) {
            double u[3];
            fem_mulv3(u, G, sys->x + 3 * i);
            for (int c = 0; c < 3; c++)
                x[3 * i + c] = sys->x[3 * i + c] + u[c];
        }
        fem_forces_at(a, sys, x, f);
        const unsigned inner[1] = {pid(1, 1, 1)};
        fem_assert_interior_free(f, n / 3, inner, 1, k == 0 ? 1e-12 : 1e-3, 1e-3, ffs[k]);
        free(x), free(f);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

static void check_jacobian(st_system *sys, st_component *ff, double tol)
{
    st_jacobian_check chk = {.struct_size = sizeof chk, .h = 1e-6};
    st_error err = {0};
    cr_assert_eq(st_check_forcefield(ff, &chk, &err), ST_OK, "%s", err.msg);
    cr_assert_lt(chk.dforce_error, tol, "%s: dforce error %g", ff->cls->name, chk.dforce_error);
    cr_assert_lt(chk.matrix_error, tol, "%s: matrix error %g", ff->cls->name, chk.matrix_error);
    (void)sys;
}

/* The LinearSmallStrainFEMForceField named A of s: add_dforce and K equal
 * the finite-difference Jacobian at a fixed random perturbation of the rest
 * state (1e-6 relative). */
static void check_small_strain_perturbed(st_scene *s)
{
    st_system *sys = s->systems[0];
    unsigned seed = 3;
    for (size_t i = 0; i < sys->xsize; i++)
        sys->x[i] += 0.05 * rnd(&seed);
    check_jacobian(sys, fem_find(s, "A", "LinearSmallStrainFEMForceField"), 1e-6);
}

/* LinearSmallStrain: add_dforce and K equal the finite-difference Jacobian
 * at a random deformed state (tetrahedra and hexahedra). */
Test(fem_newframework, small_strain_jacobian)
{
    for (int tetra = 0; tetra < 2; tetra++) {
        test_rt t;
        fem_open_rt(&t);
        char obj[512];
        snprintf(obj, sizeof obj,
                 SOLVER "<LinearSmallStrainFEMForceField name='A' template='Vec3d,%s' "
                        "youngModulus='1000' poissonRatio='0.3'/>",
                 tetra ? "Tetrahedron" : "Hexahedron");
        st_scene *s = load_grid(&t, tetra, false, obj);
        check_small_strain_perturbed(s);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* Corotational: every rotation method gives no force on a rigidly moved
 * rest shape, and at that state SOFA's tangent R K R^T is the exact
 * Jacobian (the derivative of R multiplies K u = 0). */
Test(fem_newframework, corotational_rigid_motion)
{
    static const char *const meth[2][4] = {{"triangle", "polar", "stable_polar", ""},
                                           {"hexahedron", "polar", "stable_polar", ""}};
    for (int tetra = 0; tetra < 2; tetra++)
        for (int m = 0; m < 4; m++) {
            test_rt t;
            fem_open_rt(&t);
            char obj[512];
            snprintf(obj, sizeof obj,
                     SOLVER "<CorotationalFEMForceField name='A' template='Vec3d,%s' "
                            "youngModulus='1000' poissonRatio='0.3' rotationMethod='%s'/>",
                     tetra ? "Tetrahedron" : "Hexahedron", meth[!tetra][m]);
            st_scene *s = load_grid(&t, tetra, false, obj);
            st_system *sys = s->systems[0];
            st_component *a = fem_find(s, "A", "CorotationalFEMForceField");
            fem_assert_rigid_free(a, sys, sys->x, 1e-9);
            /* the same rigid motion, then the Jacobian check there */
            const double an = 1.1, c = cos(an), sn = sin(an);
            const double R[9] = {c, -sn, 0, sn * 0.6, c * 0.6, -0.8, sn * 0.8, c * 0.8, 0.6};
            for (size_t i = 0; i < sys->xsize / 3; i++) {
                double q[3];
                fem_mulv3(q, R, sys->x + 3 * i);
                memcpy(sys->x + 3 * i, q, sizeof q);
            }
            check_jacobian(sys, a, 1e-6);
            st_scene_destroy(&s);
            test_rt_close(&t);
        }
}

/* Corotational at a small deformation agrees with small strain to first
 * order; the identity rotation is small strain about the centroids
 * (exactly small strain, since K annihilates translations). The second
 * force field is written with SOFA's template alias Vec3. */
Test(fem_newframework, corotational_small_deformation)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = load_grid(&t, false, false,
                            SOLVER "<CorotationalFEMForceField name='A' "
                                   "template='Vec3d,Hexahedron' youngModulus='1000' "
                                   "poissonRatio='0.3'/>"
                                   "<CorotationalFEMForceField name='I' "
                                   "template='Vec3,Hexahedron' youngModulus='1000' "
                                   "poissonRatio='0.3' rotationMethod='identity'/>"
                                   "<LinearSmallStrainFEMForceField name='B' "
                                   "template='Vec3d,Hexahedron' youngModulus='1000' "
                                   "poissonRatio='0.3'/>");
    st_system *sys = s->systems[0];
    size_t n = sys->xsize;
    double *x = malloc(n * sizeof *x), *fa = malloc(n * sizeof *fa), *fb = malloc(n * sizeof *fb),
           *fi = malloc(n * sizeof *fi);
    unsigned seed = 11;
    const double eps = 1e-5;
    for (size_t i = 0; i < n; i++)
        x[i] = sys->x[i] + eps * rnd(&seed);
    fem_forces_at(fem_find(s, "A", "CorotationalFEMForceField"), sys, x, fa);
    fem_forces_at(fem_find(s, "I", "CorotationalFEMForceField"), sys, x, fi);
    fem_forces_at(fem_find(s, "B", "LinearSmallStrainFEMForceField"), sys, x, fb);
    double fmax = max_abs(fb, n);
    for (size_t i = 0; i < n; i++) {
        fem_near(fa[i], fb[i], 1e-3 * fmax, "corotational vs small strain, small deformation");
        fem_near(fi[i], fb[i], 1e-9 * fmax, "identity rotation vs small strain");
    }
    free(x), free(fa), free(fb), free(fi);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* M dx of the mass named name for a given dx (sys->size scalars). */
static void m_dx(st_component *m, st_system *sys, const double *dx, double *res)
{
    memset(res, 0, sys->size * sizeof *res);
    m->cls->mass->add_m_dx(m, &sys->mp, res, dx, 1.0);
}

static double grid_volume(void) { return NX * 1.0 * NY * 1.2 * NZ * 0.9; }

/* FEMMass: total mass = density x volume (one translation row of M), the
 * tetrahedron's one-point element matrix, gravity, kinetic energy. */
Test(fem_newframework, fem_mass_totals)
{
    for (int tetra = 0; tetra < 2; tetra++) {
        test_rt t;
        fem_open_rt(&t);
        char obj[512];
        snprintf(obj, sizeof obj,
                 SOLVER "<NodalMassDensity property='2.5'/><FEMMass name='M' "
                        "template='Vec3d,%s'/>",
                 tetra ? "Tetrahedron" : "Hexahedron");
        st_scene *s = load_grid(&t, tetra, false, obj);
        st_system *sys = s->systems[0];
        st_component *m = fem_find(s, "M", "FEMMass");
        size_t n = sys->size;
        double *dx = calloc(n, sizeof *dx), *r = calloc(n, sizeof *r);
        for (size_t i = 0; i < n; i += 3)
            dx[i + 1] = 1.0;
        m_dx(m, sys, dx, r);
        double total = 0;
        for (size_t i = 0; i < n; i++)
            total += r[i];
        fem_near(total, 2.5 * grid_volume(), 1e-12 * total, "total mass");
        /* gravity: sum of f = total g */
        memset(r, 0, n * sizeof *r);
        m->cls->mass->add_gravity_to_force(m, &sys->mp, r, sys->x, sys->v);
        double fy = 0;
        for (size_t i = 1; i < n; i += 3)
            fy += r[i];
        fem_near(fy, -9.81 * total, 1e-12 * total * 9.81, "weight");
        /* a uniform velocity: 1/2 m |v|^2 */
        for (size_t i = 0; i < n; i += 3)
            dx[i] = 3.0, dx[i + 1] = -1.0, dx[i + 2] = 0.5;
        fem_near(m->cls->mass->kinetic_energy(m, &sys->mp, dx), 0.5 * total * 10.25,
                 1e-12 * total * 10, "kinetic energy");
        cr_assert_null(m->cls->mass->acc_from_f);
        cr_assert(!m->cls->mass->is_diagonal(m));
        free(dx), free(r);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* One tetrahedron: SOFA's one-point rule gives rho V / 16 in every entry
 * of the element matrix (MeshMatrixMass's consistent V/10, V/20 is not
 * what FEMMass computes: the two disagree entrywise, agree in total). */
Test(fem_newframework, fem_mass_one_tetrahedron)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = fem_load_xml(
        &t, "<Node name='root' gravity='0 0 0'><DefaultAnimationLoop/>" SOLVER
            "<MechanicalObject name='dof' position='0 0 0  2 0 0  0 3 0  0 0 4'/>"
            "<TetrahedronSetTopologyContainer tetrahedra='0 1 2 3'/>"
            "<NodalMassDensity property='1 2 3 6'/>"
            "<FEMMass name='M' template='Vec3d,Tetrahedron'/></Node>");
    st_system *sys = s->systems[0];
    st_component *m = fem_find(s, "M", "FEMMass");
    double dx[12] = {0}, r[12];
    dx[0] = 1.0; /* vertex 0, x */
    m_dx(m, sys, dx, r);
    /* V = 4, density at the centroid (1 + 2 + 3 + 6) / 4 = 3 */
    for (int k = 0; k < 4; k++)
        fem_near(r[3 * k], 4.0 * 3.0 / 16.0, 1e-14, "M(k, 0)");
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Hexahedra: FEMMass equals MeshMatrixMass exactHexahedra (both the exact
 * trilinear consistent mass) on a parallelepiped grid, to round-off of
 * SOFA's truncated sqrt(3) in the Gauss points. */
/* M dx on the parallelepiped hexahedral grid for the mass objects obj
 * (one mass named M) and a fixed pseudo-random dx. */
static void hexa_m_dx(const char *obj, const char *cls, double *res)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = load_grid(&t, false, true, obj);
    st_system *sys = s->systems[0];
    size_t n = sys->size;
    double *dx = malloc(n * sizeof *dx);
    unsigned seed = 5;
    for (size_t i = 0; i < n; i++)
        dx[i] = rnd(&seed);
    m_dx(fem_find(s, "M", cls), sys, dx, res);
    free(dx);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(fem_newframework, fem_mass_hexa_equals_exact_mesh_matrix_mass)
{
    double ra[3 * NP], rb[3 * NP];
    hexa_m_dx(SOLVER "<NodalMassDensity property='2'/><FEMMass name='M' "
                     "template='Vec3d,Hexahedron'/>",
              "FEMMass", ra);
    hexa_m_dx(SOLVER "<MeshMatrixMass name='M' massDensity='2' exactHexahedra='true'/>",
              "MeshMatrixMass", rb);
    double mx = max_abs(rb, 3 * NP);
    cr_assert_gt(mx, 0.1);
    for (size_t i = 0; i < 3 * NP; i++)
        fem_near(ra[i], rb[i], 1e-10 * mx, "FEMMass vs MeshMatrixMass exactHexahedra");
}

/* A hexahedral block fixed at x = 0 falling under FEMMass's weight:
 * implicit Euler with CG (matrix-free) and with SparseLDL (assembled K and
 * M) agree. */
Test(fem_newframework, implicit_cg_and_ldl_agree)
{
    static const char *const solvers[2] = {
        "<EulerImplicitSolver/><CGLinearSolver iterations='5000' tolerance='1e-16' "
        "threshold='1e-30'/>",
        "<EulerImplicitSolver/><SparseLDLSolver/>"};
    double got[2][3];
    for (int k = 0; k < 2; k++) {
        test_rt t;
        fem_open_rt(&t);
        char obj[1024];
        snprintf(obj, sizeof obj,
                 "%s<NodalMassDensity property='1'/><FEMMass template='Vec3d,Hexahedron'/>"
                 "<CorotationalFEMForceField template='Vec3d,Hexahedron' youngModulus='2000' "
                 "poissonRatio='0.3'/><FixedProjectiveConstraint indices='%u %u %u %u %u %u %u "
                 "%u %u'/>",
                 solvers[k], pid(0, 0, 0), pid(0, 1, 0), pid(0, 2, 0), pid(0, 0, 1),
                 pid(0, 1, 1), pid(0, 2, 1), pid(0, 0, 2), pid(0, 1, 2), pid(0, 2, 2));
        st_scene *s = load_grid(&t, false, false, obj);
        st_mstate *ms = (st_mstate *)test_find_object(s, "dof");
        fem_step(s, 20, 0.01);
        memcpy(got[k], ms->position.r + 3 * pid(2, 2, 2), sizeof got[k]);
        cr_assert_lt(got[k][1], 1.2 * 2 - 1e-4, "the tip must fall");
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
    for (int c = 0; c < 3; c++)
        fem_near(got[1][c], got[0][c], 1e-8, "SparseLDL vs CG");
}

/* Bad input: an unknown element, an unknown rotation method, no
 * NodalMassDensity, a template of another state type than the state's, a
 * pair SOFA does not register (corotational Vec1d, Vec2d tetrahedra), the
 * frame rotation of another element: clear errors naming the field. */
Test(fem_newframework, bad_input)
{
    static const char *const objs[7] = {
        SOLVER "<LinearSmallStrainFEMForceField template='Vec3d,Wedge'/>",
        SOLVER "<CorotationalFEMForceField template='Vec3d,Tetrahedron' rotationMethod='qr'/>",
        SOLVER "<FEMMass template='Vec3d,Hexahedron'/>",
        SOLVER "<LinearSmallStrainFEMForceField template='Vec2d,Triangle'/>",
        SOLVER "<CorotationalFEMForceField template='Vec1d,Edge'/>",
        SOLVER "<FEMMass template='Vec2d,Tetrahedron'/><NodalMassDensity/>",
        SOLVER "<CorotationalFEMForceField template='Vec3d,Prism' rotationMethod='triangle'/>"};
    static const char *const want[7] = {"template", "rotationMethod", "nodalMassDensity",
                                        "template", "template",       "template",
                                        "rotationMethod"};
    for (int k = 0; k < 7; k++) {
        test_rt t;
        fem_open_rt(&t);
        char *xml = grid_scene(k == 1, false, objs[k]);
        st_error err = {0};
        st_scene *s = NULL;
        cr_assert_eq(st_scene_load_string(t.rt, xml, strlen(xml), "test.scn", &s, &err), ST_OK,
                     "%s", err.msg);
        cr_assert_neq(st_scene_init(s, &err), ST_OK);
        cr_assert(strstr(err.msg, want[k]) || strstr(err.where, want[k]), "%s: %s", want[k],
                  err.msg);
        free(xml);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* ---- The other element types SOFA registers: edges (Vec1d, Vec2d,
 * Vec3d), triangles and quads (Vec2d, Vec3d), prisms and pyramids (Vec3d) */

/* A small mesh of one element type with interior vertices. */
typedef struct mesh_case {
    const char *elem; /* SOFA's element name in the template */
    int d;            /* state dimension */
    const char *list; /* the MeshTopology list holding the elements */
    int nn;           /* nodes per element */
    size_t np, ne;
    double pos[3 * 32]; /* d per point */
    unsigned el[6 * 24];
    unsigned inner[2];
    int ninner;
    double measure; /* total length, area or volume */
    double P[9];    /* projector on the elements' tangent space (d x d, stride 3) */
} mesh_case;

static const double GRAD[9] = {0.01, 0.004, -0.003, 0.002, -0.006, 0.001, 0.005, 0.002, 0.008};

/* Points on a line along t (d dimensions): three edges, two interior
 * vertices, length 2.6. */
static void edge_case(mesh_case *m, int d)
{
    static const double t[3][3] = {{1, 0, 0}, {0.6, 0.8, 0}, {2. / 3, 1. / 3, 2. / 3}};
    static const double sv[4] = {0, 0.7, 1.5, 2.6};
    *m = (mesh_case){.elem = "Edge", .d = d, .list = "edges", .nn = 2, .np = 4, .ne = 3,
                     .inner = {1, 2}, .ninner = 2, .measure = 2.6};
    for (int i = 0; i < 4; i++)
        for (int c = 0; c < d; c++)
            m->pos[d * i + c] = sv[i] * t[d - 1][c];
    for (unsigned e = 0; e < 3; e++)
        m->el[2 * e] = e, m->el[2 * e + 1] = e + 1;
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++)
            m->P[3 * a + b] = t[d - 1][a] * t[d - 1][b];
}

/* The 3x3 points of a 2 x 1.6 rectangle, the centre (vertex 4) moved by
 * (dx, dy), in the plane z = z when d = 3. */
static void grid2(mesh_case *m, double dx, double dy, double z, size_t off)
{
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            double *q = m->pos + (size_t)m->d * (off + (size_t)(3 * j + i));
            q[0] = i + (i == 1 && j == 1 ? dx : 0);
            q[1] = 0.8 * j + (i == 1 && j == 1 ? dy : 0);
            if (m->d == 3)
                q[2] = z;
        }
}

/* Two triangles per cell with their first edge along x (so that
 * TriangleFEMForceField's small method is exact): (i,j) (i+1,j)
 * (i+1,j+1) and (i+1,j+1) (i,j+1) (i,j). */
static void grid_triangles(unsigned *t)
{
    for (unsigned j = 0, n = 0; j < 2; j++)
        for (unsigned i = 0; i < 2; i++, n += 2) {
            unsigned a = 3 * j + i, b = a + 1, c = a + 4, e = a + 3;
            unsigned tr[6] = {a, b, c, c, e, a};
            memcpy(t + 3 * n, tr, sizeof tr);
        }
}

static void tri_case(mesh_case *m, int d)
{
    *m = (mesh_case){.elem = "Triangle", .d = d, .list = "triangles", .nn = 3, .np = 9,
                     .ne = 8, .inner = {4}, .ninner = 1, .measure = 3.2,
                     .P = {1, 0, 0, 0, 1, 0, 0, 0, 0}};
    grid2(m, 0.13, 0.0, 0.0, 0);
    grid_triangles(m->el);
}

/* Four quads, distorted (the centre moved) unless flat. */
static void quad_case(mesh_case *m, int d, bool flat)
{
    *m = (mesh_case){.elem = "Quad", .d = d, .list = "quads", .nn = 4, .np = 9, .ne = 4,
                     .inner = {4}, .ninner = 1, .measure = 3.2, .P = {1, 0, 0, 0, 1, 0, 0, 0, 0}};
    grid2(m, flat ? 0.0 : 0.13, flat ? 0.0 : -0.08, 0.0, 0);
    for (unsigned j = 0, n = 0; j < 2; j++)
        for (unsigned i = 0; i < 2; i++, n++) {
            unsigned a = 3 * j + i, q[4] = {a, a + 1, a + 4, a + 3};
            memcpy(m->el + 4 * n, q, sizeof q);
        }
}

/* The triangles extruded over two layers (z = 0, 0.6, 1.5): 16 prisms,
 * the centre of the middle layer interior. */
static void prism_case(mesh_case *m)
{
    *m = (mesh_case){.elem = "Prism", .d = 3, .list = "prisms", .nn = 6, .np = 27, .ne = 16,
                     .inner = {13}, .ninner = 1, .measure = 3.2 * 1.5,
                     .P = {1, 0, 0, 0, 1, 0, 0, 0, 1}};
    static const double z[3] = {0, 0.6, 1.5};
    for (int l = 0; l < 3; l++)
        grid2(m, 0.13, -0.08, z[l], 9 * (size_t)l);
    unsigned t[24];
    grid_triangles(t);
    for (unsigned l = 0, n = 0; l < 2; l++)
        for (int k = 0; k < 8; k++, n++)
            for (int c = 0; c < 3; c++) {
                m->el[6 * n + c] = t[3 * k + c] + 9 * l;
                m->el[6 * n + 3 + c] = t[3 * k + c] + 9 * (l + 1);
            }
}

/* SOFA's cube of six pyramids (its PyramidCorotationalFEMForceField
 * example's connectivity), the common apex moved off the centre. */
static void pyramid_case(mesh_case *m)
{
    *m = (mesh_case){.elem = "Pyramid", .d = 3, .list = "pyramids", .nn = 5, .np = 9, .ne = 6,
                     .inner = {8}, .ninner = 1, .measure = 8.0,
                     .P = {1, 0, 0, 0, 1, 0, 0, 0, 1}};
    static const double p[27] = {-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1, -1, -1, 1,
                                 1,  -1, 1,  1, 1,  1,  -1, 1, 1, 0.2, -0.1, 0.15};
    static const unsigned e[30] = {0, 1, 5, 4, 8, 1, 5, 6, 2, 8, 2, 3, 7, 6, 8,
                                   0, 3, 7, 4, 8, 3, 2, 1, 0, 8, 6, 7, 4, 5, 8};
    memcpy(m->pos, p, sizeof p);
    memcpy(m->el, e, sizeof e);
}

/* Every case: Vec1d, Vec2d, Vec3d edges; Vec2d, Vec3d triangles and
 * quads; prisms; pyramids. */
#define NCASES 9
static void make_case(int k, mesh_case *m)
{
    switch (k) {
    case 0: case 1: case 2: edge_case(m, k + 1); break;
    case 3: case 4: tri_case(m, k - 1); break;
    case 5: case 6: quad_case(m, k - 3, false); break;
    case 7: prism_case(m); break;
    default: pyramid_case(m); break;
    }
}

/* A SOFA scene of the case: state dof (Vec<d>d), a MeshTopology with the
 * elements, then objects (one %s: the template "Vec<d>d,<Element>"). */
static st_scene *load_case(test_rt *t, const mesh_case *m, const char *gravity,
                           const char *objects_fmt)
{
    size_t cap = 65536, len = 0;
    char *x = malloc(cap), templ[64], objects[2048];
    snprintf(templ, sizeof templ, "Vec%dd,%s", m->d, m->elem);
    snprintf(objects, sizeof objects, objects_fmt, templ, templ);
    len += (size_t)snprintf(x + len, cap - len,
                            "<Node name='root' gravity='%s' dt='0.01'><DefaultAnimationLoop/>" SOLVER
                            "<MechanicalObject name='dof' template='Vec%dd' position='",
                            gravity, m->d);
    for (size_t i = 0; i < (size_t)m->d * m->np; i++)
        len += (size_t)snprintf(x + len, cap - len, "%.17g ", m->pos[i]);
    len += (size_t)snprintf(x + len, cap - len, "'/><MeshTopology name='topo' %s='", m->list);
    for (size_t i = 0; i < (size_t)m->nn * m->ne; i++)
        len += (size_t)snprintf(x + len, cap - len, "%u ", m->el[i]);
    snprintf(x + len, cap - len, "'/>%s</Node>", objects);
    st_scene *s = fem_load_xml(t, x);
    free(x);
    return s;
}

#define MAT "youngModulus='1000' poissonRatio='0.3'"

/* f = the force field's add_force at x (zero velocity), for states of any
 * dimension (sys->size scalars). */
static void forces_at(st_component *ff, st_system *sys, const double *x, double *f)
{
    double *v = calloc(sys->size, sizeof *v);
    memset(f, 0, sys->size * sizeof *f);
    ff->cls->forcefield->add_force(ff, &sys->mp, f, x, v);
    free(v);
}

/* The element strain energy of u = G x (times 2): measure (lambda tr(e)^2
 * + 2 mu e:e), e = sym(G P) in d dimensions, SOFA's d-dimensional Lame
 * coefficients. */
static double patch_energy(const mesh_case *m, const double *G)
{
    double lambda, mu, e[3][3], tr = 0, ee = 0, gp[3][3] = {{0}};
    fe_lame(1000, 0.3, m->d, &lambda, &mu);
    for (int a = 0; a < m->d; a++)
        for (int b = 0; b < m->d; b++)
            for (int k = 0; k < m->d; k++)
                gp[a][b] += G[3 * a + k] * m->P[3 * k + b];
    for (int a = 0; a < m->d; a++)
        for (int b = 0; b < m->d; b++)
            e[a][b] = 0.5 * (gp[a][b] + gp[b][a]);
    for (int a = 0; a < m->d; a++) {
        tr += e[a][a];
        for (int b = 0; b < m->d; b++)
            ee += e[a][b] * e[a][b];
    }
    return m->measure * (lambda * tr * tr + 2 * mu * ee);
}

/* Patch test of every element type: the displacement u = G x leaves no
 * force on the interior vertices (1e-11 of the largest, small strain;
 * 1e-3 corotational, whose rotations of a pure strain are not exactly the
 * identity) and, small strain, u . f is minus twice the exact strain energy
 * of the constant stress (1e-11 relative). */
Test(fem_newframework, element_types_patch_test)
{
    for (int k = 0; k < NCASES; k++)
        for (int corot = 0; corot < 2; corot++) {
            mesh_case m;
            make_case(k, &m);
            if (corot && m.d == 1)
                continue; /* SOFA registers no Vec1d corotational */
            const char *cls = corot ? "CorotationalFEMForceField" : "LinearSmallStrainFEMForceField";
            char obj[256];
            snprintf(obj, sizeof obj, "<%s name='A' template='%%s' " MAT "/>", cls);
            test_rt t;
            fem_open_rt(&t);
            st_scene *s = load_case(&t, &m, "0 0 0", obj);
            st_system *sys = s->systems[0];
            st_component *a = fem_find(s, "A", cls);
            cr_assert_eq(((element_fem *)a)->ne, m.ne, "%s: elements", m.elem);
            const int d = m.d;
            size_t n = sys->xsize;
            double *x = malloc(n * sizeof *x), *f = malloc(n * sizeof *f), G[9];
            for (int i = 0; i < 9; i++) /* symmetric and 10 times smaller, corotational */
                G[i] = corot ? 0.05 * (GRAD[i] + GRAD[3 * (i % 3) + i / 3]) : GRAD[i];
            for (size_t i = 0; i < m.np; i++)
                for (int r = 0; r < d; r++) {
                    double u = 0;
                    for (int c = 0; c < d; c++)
                        u += G[3 * r + c] * sys->x[d * i + c];
                    x[d * i + r] = sys->x[d * i + r] + u;
                }
            forces_at(a, sys, x, f);
            double fmax = max_abs(f, n), uf = 0;
            cr_assert_gt(fmax, 1e-4, "%s Vec%dd: boundary forces expected", m.elem, d);
            for (int v = 0; v < m.ninner; v++)
                for (int c = 0; c < d; c++)
                    cr_assert(fabs(f[d * m.inner[v] + c]) <= (corot ? 1e-3 : 1e-11) * fmax,
                              "%s %s Vec%dd: interior residual %g (max %g)", cls, m.elem, d,
                              f[d * m.inner[v] + c], fmax);
            for (size_t i = 0; i < n; i++)
                uf += (x[i] - sys->x[i]) * f[i];
            if (!corot) {
                double want = patch_energy(&m, G);
                cr_log_info("patch %s Vec%dd: -u.f %.15g, exact %.15g", m.elem, d, -uf, want);
                fem_near(-uf, want, 1e-11 * want, "u.f = -2 W (constant stress)");
            }
            free(x), free(f);
            st_scene_destroy(&s);
            test_rt_close(&t);
        }
}

static fe_kind kind_of(const char *elem)
{
    char t[64];
    int d;
    fe_kind k = FE_EDGE;
    snprintf(t, sizeof t, "Vec3d,%s", elem);
    cr_assert(fe_parse_template(t, &d, &k), "%s", t);
    return k;
}

/* The rest shape turned by a fixed rotation and translated (d = 2 or 3). */
static void rigid_move(const mesh_case *m, const double *x0, double *x)
{
    const double an = 1.1, c = cos(an), sn = sin(an);
    const double R3[9] = {c, -sn, 0, sn * 0.6, c * 0.6, -0.8, sn * 0.8, c * 0.8, 0.6};
    const double R2[9] = {c, -sn, 0, sn, c, 0, 0, 0, 1}, T[3] = {3.0, -1.5, 0.7};
    const double *R = m->d == 3 ? R3 : R2;
    const int d = m->d;
    for (size_t i = 0; i < m->np; i++)
        for (int r = 0; r < d; r++) {
            double a = T[r];
            for (int k = 0; k < d; k++)
                a += R[3 * r + k] * x0[d * i + k];
            x[d * i + r] = a;
        }
}

/* CorotationalFEMForceField, every element type and rotation method
 * (SOFA's default, stable_polar, polar): no force on a rigidly moved rest
 * shape, and there add_dforce and the assembled K equal the finite
 * difference Jacobian of add_force to 1e-6 (SOFA's tangent R K R^T is
 * exact at a rigid motion when K annihilates infinitesimal rotations: the
 * elements of full dimension; for edges in 2D and 3D and surfaces in 3D,
 * whose 3D elasticity tensor on in-element gradients penalizes them, it is
 * not, as in SOFA, and only add_dforce = K is checked). polar is left out on the edges, triangles and
 * quads of Vec3d states: their H = sum (x - c)(x0 - c0)^T is singular and
 * SOFA's polar decomposition (not the stable one) returns H itself there,
 * not a rotation (settee does the same and warns at init). */
Test(fem_newframework, element_types_corotational_rigid_motion)
{
    static const char *const meth[3] = {"", "stable_polar", "polar"};
    for (int k = 0; k < NCASES; k++)
        for (int mi = 0; mi < 3; mi++) {
            mesh_case m;
            make_case(k, &m);
            if (m.d == 1 || (mi == 2 && m.d == 3 && fe_topo_dim(kind_of(m.elem)) < 3))
                continue;
            char obj[256];
            snprintf(obj, sizeof obj,
                     "<CorotationalFEMForceField name='A' template='%%s' " MAT
                     " rotationMethod='%s'/>",
                     meth[mi]);
            test_rt t;
            fem_open_rt(&t);
            st_scene *s = load_case(&t, &m, "0 0 0", obj);
            st_system *sys = s->systems[0];
            st_component *a = fem_find(s, "A", "CorotationalFEMForceField");
            size_t n = sys->xsize;
            double *x = malloc(n * sizeof *x), *f = malloc(n * sizeof *f);
            rigid_move(&m, sys->x, x);
            forces_at(a, sys, x, f);
            for (size_t i = 0; i < n; i++)
                cr_assert(fabs(f[i]) <= 1e-9, "%s Vec%dd '%s': force %g at a rigid motion",
                          m.elem, m.d, meth[mi], f[i]);
            memcpy(sys->x, x, n * sizeof *x);
            st_jacobian_check chk = {.struct_size = sizeof chk, .h = 1e-6};
            st_error err = {0};
            cr_assert_eq(st_check_forcefield(a, &chk, &err), ST_OK, "%s", err.msg);
            cr_log_info("%s Vec%dd '%s': dforce error %g matrix error %g", m.elem, m.d,
                        meth[mi], chk.dforce_error, chk.matrix_error);
            if (fe_topo_dim(kind_of(m.elem)) < m.d) {
                /* K of a lower-dimensional element does not annihilate
                 * infinitesimal rotations: SOFA's tangent, without dR, is
                 * then not the Jacobian (measured: 0.35 Vec2d edges, 0.29
                 * Vec3d edges, 0.22 Vec3d triangles, 0.19 Vec3d quads);
                 * add_dforce and K still agree with each other. */
                cr_assert_gt(chk.dforce_error, 0.05);
                cr_assert_lt(fabs(chk.dforce_error - chk.matrix_error), 1e-9);
            } else {
                cr_assert_lt(chk.dforce_error, 1e-6, "%s dforce %g", m.elem, chk.dforce_error);
                cr_assert_lt(chk.matrix_error, 1e-6, "%s matrix %g", m.elem, chk.matrix_error);
            }
            free(x), free(f);
            st_scene_destroy(&s);
            test_rt_close(&t);
        }
}

/* LinearSmallStrainFEMForceField, every element type: add_dforce and K
 * equal the finite-difference Jacobian of add_force at a random deformed
 * state (1e-6 relative). */
Test(fem_newframework, element_types_small_strain_jacobian)
{
    for (int k = 0; k < NCASES; k++) {
        mesh_case m;
        make_case(k, &m);
        test_rt t;
        fem_open_rt(&t);
        st_scene *s = load_case(&t, &m, "0 0 0",
                                "<LinearSmallStrainFEMForceField name='A' template='%s' " MAT
                                "/>");
        check_small_strain_perturbed(s);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* FEMMass, every element type: total mass = density x measure (length,
 * area, volume) to 1e-12, the weight sum f = total g on each of the
 * state's d axes (SOFA's gravity, first d components) and 1/2 m |v|^2. */
Test(fem_newframework, element_types_fem_mass_total)
{
    static const double g[3] = {1.5, -9.81, 0.5};
    for (int k = 0; k < NCASES; k++) {
        mesh_case m;
        make_case(k, &m);
        test_rt t;
        fem_open_rt(&t);
        st_scene *s = load_case(&t, &m, "1.5 -9.81 0.5",
                                "<NodalMassDensity property='2.5'/><FEMMass name='M' "
                                "template='%s'/>");
        st_system *sys = s->systems[0];
        st_component *mm = fem_find(s, "M", "FEMMass");
        const int d = m.d;
        size_t n = sys->size;
        double *dx = calloc(n, sizeof *dx), *r = calloc(n, sizeof *r);
        for (size_t i = 0; i < n; i += (size_t)d)
            dx[i] = 1.0;
        m_dx(mm, sys, dx, r);
        double total = 0, want = 2.5 * m.measure;
        for (size_t i = 0; i < n; i++)
            total += r[i];
        cr_log_info("FEMMass %s Vec%dd: total %.17g, rho measure %.17g", m.elem, d, total, want);
        fem_near(total, want, 1e-12 * want, "total mass = rho x measure");
        memset(r, 0, n * sizeof *r);
        mm->cls->mass->add_gravity_to_force(mm, &sys->mp, r, sys->x, sys->v);
        for (int c = 0; c < d; c++) {
            double fc = 0;
            for (size_t i = (size_t)c; i < n; i += (size_t)d)
                fc += r[i];
            fem_near(fc, g[c] * want, 1e-12 * want * 10, "weight");
        }
        for (size_t i = 0; i < n; i++)
            dx[i] = (i % (size_t)d) == 0 ? 3.0 : -1.0;
        fem_near(mm->cls->mass->kinetic_energy(mm, &sys->mp, dx),
                 0.5 * want * (9.0 + (d - 1) * 1.0), 1e-12 * want * 10, "kinetic energy");
        free(dx), free(r);
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* The forces of the force field named A of a case scene for a fixed
 * displacement of amplitude amp (in the plane z = 0: x and y only), 2 per
 * vertex. */
static void planar_forces(const mesh_case *m, const char *obj, const char *cls, double amp,
                          double *out)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = load_case(&t, m, "0 0 0", obj);
    st_system *sys = s->systems[0];
    const int d = m->d;
    size_t n = sys->xsize;
    double *x = malloc(n * sizeof *x), *f = malloc(n * sizeof *f);
    unsigned seed = 21;
    memcpy(x, sys->x, n * sizeof *x);
    for (size_t i = 0; i < m->np; i++)
        for (int c = 0; c < 2; c++)
            x[d * i + c] += amp * rnd(&seed);
    forces_at(fem_find(s, "A", cls), sys, x, f);
    for (size_t i = 0; i < m->np; i++)
        for (int c = 0; c < 2; c++)
            out[2 * i + c] = f[d * i + c];
    free(x), free(f);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Triangles against the older TriangleFEMForceField method small (whose
 * local formula is exact here: every triangle's first edge lies along x):
 * LinearSmallStrain Vec2d,Triangle uses SOFA's 2D Lame coefficients, i.e.
 * plane stress, and equals TriangleFEMForceField (planeStrain false);
 * Vec3d,Triangle uses the 3D ones, i.e. plane strain, and equals it with
 * planeStrain true, for in-plane motion. TriangleFEMForceField small
 * evaluates its strain-displacement matrix at the current shape (SOFA's),
 * so the two agree to first order: at displacements of 1e-7, forces agree
 * to 1e-6 relative (and differ by 6% at 0.05). */
Test(fem_newframework, triangle_small_strain_vs_triangle_fem)
{
    for (int d = 2; d <= 3; d++) {
        mesh_case m2, m3;
        tri_case(&m2, d);
        tri_case(&m3, 3);
        double fa[18], fb[18];
        planar_forces(&m2, "<LinearSmallStrainFEMForceField name='A' template='%s' " MAT "/>",
                      "LinearSmallStrainFEMForceField", 1e-7, fa);
        char obj[256];
        snprintf(obj, sizeof obj,
                 "<TriangleFEMForceField name='A' method='small' planeStrain='%s' " MAT "/>",
                 d == 2 ? "false" : "true");
        planar_forces(&m3, obj, "TriangleFEMForceField", 1e-7, fb);
        double fmax = max_abs(fb, 18);
        cr_assert_gt(fmax, 1e-5);
        for (int i = 0; i < 18; i++)
            fem_near(fa[i], fb[i], 1e-6 * fmax,
                     d == 2 ? "Vec2d,Triangle vs TriangleFEM small (plane stress)"
                            : "Vec3d,Triangle vs TriangleFEM small planeStrain");
    }
}

/* M 1 (the lumped masses, first axis) of the case's mass named M. */
static void lumped(const mesh_case *m, const char *obj, const char *cls, double *out)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = load_case(&t, m, "0 0 0", obj);
    st_system *sys = s->systems[0];
    const int d = m->d;
    double *dx = calloc(sys->size, sizeof *dx), *r = calloc(sys->size, sizeof *r);
    for (size_t i = 0; i < m->np; i++)
        dx[d * i] = 1.0;
    m_dx(fem_find(s, "M", cls), sys, dx, r);
    for (size_t i = 0; i < m->np; i++)
        out[i] = r[d * i];
    free(dx), free(r);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* FEMMass against MeshMatrixMass on triangles and quads: the element
 * matrices differ (FEMMass's one-point triangle rule gives rho A / 9 in
 * every entry, MeshMatrixMass the consistent rho A / 6, rho A / 12; on
 * quads SOFA's 3-point rule against MeshMatrixMass's rho A / 8, rho A / 16
 * on the edges), but the row sums, the lumped masses, are the same
 * integral of N_a and agree to 1e-12 (on rectangles for the quads:
 * neither SOFA's 3-point rule nor MeshMatrixMass's rho A / 4 is the exact
 * integral of N_a on a general quad, and they differ there by about 1%). (MeshMatrixMass computes no mass on
 * edges in settee, so edges are compared with rho L / 2 directly in the
 * total test.) */
Test(fem_newframework, fem_mass_lumped_equals_mesh_matrix_mass)
{
    for (int k = 0; k < 2; k++) {
        mesh_case m;
        if (k == 0)
            tri_case(&m, 3);
        else
            quad_case(&m, 3, true);
        double la[9], lb[9];
        lumped(&m, "<NodalMassDensity property='2'/><FEMMass name='M' template='%s'/>",
               "FEMMass", la);
        lumped(&m, "<MeshMatrixMass name='M' massDensity='2'/>", "MeshMatrixMass", lb);
        for (int i = 0; i < 9; i++)
            fem_near(la[i], lb[i], 1e-12 * 2 * m.measure, "lumped FEMMass vs MeshMatrixMass");
    }
}

/* SOFA's FiniteElement_test: the quadrature weights of each element sum
 * to its reference measure (2, 1/2, 4, 1/6, 8, 1/2, 8) and the gradients
 * of the shape functions sum to zero (here at each quadrature point and at
 * SOFA's evaluation points 0 and 1); and the shape functions are a
 * partition of unity whose gradients are the finite differences of N. */
Test(fem_newframework, finite_elements_as_sofa)
{
    static const double wsum[FE_KINDS] = {[FE_EDGE] = 2,        [FE_TRIANGLE] = 0.5,
                                          [FE_QUAD] = 4,        [FE_TETRAHEDRON] = 1. / 6.,
                                          [FE_HEXAHEDRON] = 8,  [FE_PRISM] = 0.5,
                                          [FE_PYRAMID] = 8};
    for (int k = 0; k < FE_KINDS; k++) {
        double sw = 0;
        for (int i = 0; i < fe_quadrature_count((fe_kind)k); i++) {
            double q[3], w;
            fe_quadrature((fe_kind)k, i, q, &w);
            sw += w;
        }
        cr_assert(fabs(sw - wsum[k]) <= 4 * DBL_EPSILON * wsum[k], "%s: weights sum %.17g",
                  fe_kind_name((fe_kind)k), sw);
        const double pts[3][3] = {{0, 0, 0}, {1, 1, 1}, {0.3, -0.2, 0.1}};
        for (int p = 0; p < 3; p++) {
            double N[FE_MAX_NODES], dN[FE_MAX_NODES][3], sN = 0, sg[3] = {0};
            fe_shape((fe_kind)k, pts[p], N);
            fe_shape_gradient((fe_kind)k, pts[p], dN);
            for (int a = 0; a < fe_nodes((fe_kind)k); a++) {
                sN += N[a];
                for (int c = 0; c < 3; c++)
                    sg[c] += dN[a][c];
            }
            fem_near(sN, 1.0, 1e-15, "partition of unity");
            for (int c = 0; c < 3; c++)
                fem_near(sg[c], 0.0, 1e-15, "sum of the gradients");
            for (int c = 0; c < fe_topo_dim((fe_kind)k); c++) {
                double qp[3], qm[3], Np[FE_MAX_NODES], Nm[FE_MAX_NODES];
                memcpy(qp, pts[p], sizeof qp), memcpy(qm, pts[p], sizeof qm);
                qp[c] += 1e-6, qm[c] -= 1e-6;
                fe_shape((fe_kind)k, qp, Np);
                fe_shape((fe_kind)k, qm, Nm);
                for (int a = 0; a < fe_nodes((fe_kind)k); a++)
                    fem_near(dN[a][c], (Np[a] - Nm[a]) / 2e-6, 1e-8, "dN = finite differences");
            }
        }
    }
}

/* No template: SOFA's factory takes the first registered template of the
 * state's type by name, Vec3d,Edge here, and acts on the topology's edges
 * (derived from the hexahedra); a template naming a volume element acts
 * on that kind only (a force field per kind on a mixed topology). */
Test(fem_newframework, no_template_is_edges)
{
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = load_grid(&t, false, false,
                            SOLVER "<LinearSmallStrainFEMForceField name='A' " MAT "/>"
                                   "<FEMMass name='M'/><NodalMassDensity property='1'/>");
    element_fem *a = (element_fem *)fem_find(s, "A", "LinearSmallStrainFEMForceField");
    st_component *topo = test_find_object(s, "topo");
    const st_array *edges = topo->cls->topology->elements(topo, ST_T_EDGES);
    cr_assert_eq(a->kind, FE_EDGE);
    cr_assert_eq(a->d, 3);
    cr_assert_not_null(edges);
    cr_assert_eq(a->ne, edges->n, "%zu edge elements, topology %zu", a->ne, edges->n);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* The forces (3 per vertex) of the force field named A in the Vec3d
 * triangle case at the rest shape rigidly moved (rigid_move) plus a fixed
 * displacement of amplitude amp. */
static void moved_triangle_forces(const char *obj, const char *cls, double amp, double *out)
{
    mesh_case m;
    tri_case(&m, 3);
    test_rt t;
    fem_open_rt(&t);
    st_scene *s = load_case(&t, &m, "0 0 0", obj);
    st_system *sys = s->systems[0];
    size_t n = sys->xsize;
    double *x = malloc(n * sizeof *x);
    rigid_move(&m, sys->x, x);
    unsigned seed = 17;
    for (size_t i = 0; i < n; i++)
        x[i] += amp * rnd(&seed);
    forces_at(fem_find(s, "A", cls), sys, x, out);
    free(x);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* CorotationalFEMForceField Vec3d,Triangle (rotation "triangle": x along
 * the first edge, z normal, as TriangleFEMForceField's large method) against
 * TriangleFEMForceField method large with planeStrain (the 3D Lame
 * coefficients), after a large rigid rotation and a displacement of 1e-7:
 * the same rotation, the same material; the older component's
 * strain-displacement matrix of the current shape makes them agree to first
 * order, 1e-6 relative. */
Test(fem_newframework, corotational_triangle_vs_triangle_fem_large)
{
    double fa[27], fb[27];
    moved_triangle_forces("<CorotationalFEMForceField name='A' template='%s' " MAT "/>",
                          "CorotationalFEMForceField", 1e-7, fa);
    moved_triangle_forces("<TriangleFEMForceField name='A' method='large' planeStrain='true' " MAT
                          "/>",
                          "TriangleFEMForceField", 1e-7, fb);
    double fmax = max_abs(fb, 27);
    cr_assert_gt(fmax, 1e-5);
    for (int i = 0; i < 27; i++)
        fem_near(fa[i], fb[i], 1e-6 * fmax, "Corotational Vec3d,Triangle vs TriangleFEM large");
}
