/* test_fem_newframework.c - SOFA's element framework:
 * LinearSmallStrainFEMForceField and CorotationalFEMForceField on
 * tetrahedra and hexahedra, FEMMass with NodalMassDensity.
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
#include <settee/check.h>
#include <stdio.h>

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
        st_system *sys = s->systems[0];
        unsigned seed = 3;
        for (size_t i = 0; i < sys->xsize; i++)
            sys->x[i] += 0.05 * rnd(&seed);
        check_jacobian(sys, fem_find(s, "A", "LinearSmallStrainFEMForceField"), 1e-6);
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

/* Bad input: a template not implemented, an unknown rotation method, no
 * NodalMassDensity: clear errors naming the field. */
Test(fem_newframework, bad_input)
{
    static const char *const objs[3] = {
        SOLVER "<LinearSmallStrainFEMForceField template='Vec3d,Prism'/>",
        SOLVER "<CorotationalFEMForceField template='Vec3d,Tetrahedron' rotationMethod='qr'/>",
        SOLVER "<FEMMass template='Vec3d,Hexahedron'/>"};
    static const char *const want[3] = {"template", "rotationMethod", "nodalMassDensity"};
    for (int k = 0; k < 3; k++) {
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
