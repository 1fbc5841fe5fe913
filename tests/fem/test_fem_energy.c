/* test_fem_energy.c - the potential energy of the elastic force fields
 * that SOFA leaves at 0 (TetrahedralCorotationalFEMForceField,
 * FastTetrahedralCorotationalForceField, TriangularFEMForceField, its Optim
 * and Anisotropic twins, QuadBendingFEMForceField): settee returns the
 * strain energy 1/2 sum_e u_e^T K_e u_e of each model. Checked: 0 at rest
 * and for a rigidly moved rest shape (translated only for the small
 * displacement models), 1/2 u^T K u with add_dforce's K at a small
 * displacement, non-negative at large random deformations, and f = -dE/dx
 * by central differences wherever the model's force is a gradient (method
 * small / none; coordinates that move neither the element frame nor the
 * lengths the stiffness depends on). */
#include <stdio.h>

#include "fem_test_util.h"

#define SCENE(POS, TOPO, FF)                                                                      \
    "<Node name='root' gravity='0 0 0'><DefaultAnimationLoop/>"                                   \
    "<EulerImplicitSolver/><CGLinearSolver/>"                                                     \
    "<MechanicalObject name='dof' position='" POS "'/>" TOPO FF "</Node>"

#define CUBE(FF)                                                                                  \
    "<Node name='root' gravity='0 0 0'><DefaultAnimationLoop/>"                                   \
    "<RegularGridTopology name='grid' n='3 3 3' min='0 0 0' max='1 1 1.2'/>"                      \
    "<Node name='Body'><EulerImplicitSolver/><CGLinearSolver/>"                                   \
    "<MechanicalObject name='dof' position='@../grid.position'/>"                                 \
    "<TetrahedronSetTopologyContainer name='topo'/><TetrahedronSetTopologyModifier/>"             \
    "<Hexa2TetraTopologicalMapping input='@../grid' output='@topo'/>" FF "</Node></Node>"

#define TRI_POS "0 0 0  1 0 0  2 0 0  0 1 0  1.1 1.05 0  2 1 0"
#define TRI_TOPO "<TriangleSetTopologyContainer triangles='0 1 4  0 4 3  1 2 5  1 5 4'/>"
#define ONE_TRI "0 0 0  1.2 0 0  0.3 0.9 0"
#define ONE_TRI_TOPO "<TriangleSetTopologyContainer triangles='0 1 2'/>"
#define QUAD_POS "0 0 0  2 0 0  2 1 0  0 1 0"
#define QUAD_TOPO "<MeshTopology quads='0 1 2 3'/>"

typedef struct energy_case {
    st_scene *scene;
    st_component *ff;
    st_system *sys;
    size_t n;         /* 3 times the number of vertices */
    const double *x0; /* rest positions */
} energy_case;

static double rnd(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return ((*state >> 8) & 0xFFFF) / 32767.5 - 1.0;
}

static void open_case(test_rt *t, energy_case *c, const char *xml, const char *cls)
{
    fem_open_rt(t);
    c->scene = fem_load_xml(t, xml);
    c->ff = fem_find(c->scene, "FEM", cls);
    c->sys = c->scene->systems[0];
    c->n = 3 * c->sys->nall;
    st_mstate *ms = (st_mstate *)test_find_object(c->scene, "dof");
    cr_assert_not_null(ms);
    cr_assert_eq(3 * ms->n, c->n);
    c->x0 = ms->rest_position.r;
}

static void close_case(test_rt *t, energy_case *c)
{
    st_scene_destroy(&c->scene);
    test_rt_close(t);
}

static double energy(const energy_case *c, const double *x)
{
    return c->ff->cls->forcefield->potential_energy(c->ff, &c->sys->mp, x);
}

/* x = x0 + amp u, u random in [-1, 1] on the coordinates idx[0..ni) (all
 * when idx is NULL). */
static void displaced(const energy_case *c, const size_t *idx, size_t ni, double amp,
                      unsigned seed, double *x)
{
    memcpy(x, c->x0, c->n * sizeof *x);
    size_t m = idx ? ni : c->n;
    for (size_t k = 0; k < m; k++)
        x[idx ? idx[k] : k] += amp * rnd(&seed);
}

/* (a) E = 0 at rest and at the rest shape translated (and, rotate, turned):
 * at most 1e-12 of the energy of a 1% random deformation; (d) E >= 0 at
 * random deformations of 10%. Returns that reference energy. */
static double check_rest_and_sign(const energy_case *c, bool rotate)
{
    double *x = calloc(c->n, sizeof *x);
    displaced(c, NULL, 0, 0.01, 7, x);
    double eref = energy(c, x);
    cr_assert_gt(eref, 0.0, "%s: energy of a deformation", c->ff->cls->name);
    double e0 = energy(c, c->x0);
    cr_assert(fabs(e0) <= 1e-12 * eref, "%s: energy %g at rest (reference %g)",
              c->ff->cls->name, e0, eref);
    const double a = 1.1, co = cos(a), sn = sin(a);
    const double R[9] = {co, -sn, 0, sn * 0.6, co * 0.6, -0.8, sn * 0.8, co * 0.8, 0.6};
    for (size_t i = 0; i < c->n / 3; i++) {
        if (rotate)
            fem_mulv3(x + 3 * i, R, c->x0 + 3 * i);
        else
            memcpy(x + 3 * i, c->x0 + 3 * i, 3 * sizeof *x);
        x[3 * i] += 3.0, x[3 * i + 1] -= 1.5, x[3 * i + 2] += 0.7;
    }
    double er = energy(c, x);
    cr_assert(fabs(er) <= 1e-12 * eref, "%s: energy %g of the rest shape moved rigidly "
              "(reference %g)", c->ff->cls->name, er, eref);
    for (unsigned seed = 1; seed <= 5; seed++) {
        displaced(c, NULL, 0, 0.1, seed, x);
        double e = energy(c, x);
        cr_assert(e >= 0.0, "%s: negative energy %g", c->ff->cls->name, e);
    }
    free(x);
    return eref;
}

/* (c) E(x0 + eps u) = 1/2 eps^2 u^T K u, K the stiffness add_dforce applies
 * after an add_force at rest (df = -K dx), to 1e-5 relative. */
static void check_quadratic_form(const energy_case *c)
{
    const st_forcefield_ops *ops = c->ff->cls->forcefield;
    double *u = calloc(c->n, sizeof *u), *df = calloc(c->n, sizeof *df);
    double *x = calloc(c->n, sizeof *x), *f = calloc(c->n, sizeof *f);
    unsigned seed = 11;
    for (size_t i = 0; i < c->n; i++)
        u[i] = rnd(&seed);
    fem_forces_at(c->ff, c->sys, c->x0, f);
    ops->add_dforce(c->ff, &c->sys->mp, df, u, 1.0, 0.0);
    double uku = 0;
    for (size_t i = 0; i < c->n; i++)
        uku -= u[i] * df[i];
    const double eps = 1e-6;
    for (size_t i = 0; i < c->n; i++)
        x[i] = c->x0[i] + eps * u[i];
    double want = 0.5 * eps * eps * uku, got = energy(c, x);
    cr_assert_gt(want, 0.0);
    cr_assert(fabs(got - want) <= 1e-5 * want, "%s: E %.12g, 1/2 u^T K u %.12g",
              c->ff->cls->name, got, want);
    free(u), free(df), free(x), free(f);
}

/* (b) f = -dE/dx by central differences (step h) on the coordinates
 * idx[0..ni) (all when NULL) at x0 displaced by amp on those coordinates:
 * max |f_i + dE/dx_i| <= tol max |f_i|. Returns that relative error. */
static double check_gradient(const energy_case *c, const size_t *idx, size_t ni, double amp,
                             double h, double tol)
{
    double *x = calloc(c->n, sizeof *x), *f = calloc(c->n, sizeof *f);
    displaced(c, idx, ni, amp, 5, x);
    fem_forces_at(c->ff, c->sys, x, f);
    double fmax = 0, emax = 0;
    size_t m = idx ? ni : c->n;
    for (size_t k = 0; k < m; k++) {
        size_t i = idx ? idx[k] : k;
        double xi = x[i];
        x[i] = xi + h;
        double ep = energy(c, x);
        x[i] = xi - h;
        double em = energy(c, x);
        x[i] = xi;
        double d = -(ep - em) / (2 * h);
        fmax = fmax > fabs(f[i]) ? fmax : fabs(f[i]);
        emax = emax > fabs(d - f[i]) ? emax : fabs(d - f[i]);
    }
    cr_assert_gt(fmax, 0.0, "%s: some force expected", c->ff->cls->name);
    cr_assert(emax <= tol * fmax, "%s: max |f + dE/dx| = %g (max |f| = %g)", c->ff->cls->name,
              emax, fmax);
    free(x), free(f);
    return emax / fmax;
}

static void run_case(const char *xml, const char *cls, bool rotate, const size_t *idx,
                     size_t ni, double amp, double h, double tol)
{
    test_rt t;
    energy_case c;
    open_case(&t, &c, xml, cls);
    check_rest_and_sign(&c, rotate);
    check_quadratic_form(&c);
    if (tol > 0) {
        double rel = check_gradient(&c, idx, ni, amp, h, tol);
        fprintf(stderr, "%s: relative |f + dE/dx| %.3g\n", cls, rel);
    }
    close_case(&t, &c);
}

#define TCFEM "TetrahedralCorotationalFEMForceField"
#define TCFEM_FF(METHOD)                                                                          \
    "<" TCFEM " name='FEM' youngModulus='1000' poissonRatio='0.3' method='" METHOD "'/>"

Test(fem_energy, tetrahedral_corotational_small)
{
    run_case(CUBE(TCFEM_FF("small")), TCFEM, false, NULL, 0, 0.05, 1e-6, 1e-6);
}

/* The rotation-invariant checks with each corotational method of cls. */
static void run_corotational(const char *cls, const char *const *methods, size_t nm)
{
    char xml[2048];
    for (size_t k = 0; k < nm; k++) {
        snprintf(xml, sizeof xml, CUBE("<%s name='FEM' youngModulus='1000' poissonRatio='0.3' "
                                       "method='%s'/>"),
                 cls, methods[k]);
        run_case(xml, cls, true, NULL, 0, 0, 0, 0);
    }
}

Test(fem_energy, tetrahedral_corotational_large_polar)
{
    static const char *const methods[] = {"large", "polar"};
    run_corotational(TCFEM, methods, 2);
    run_case(CUBE("<" TCFEM " name='FEM' youngModulus='1000' poissonRatio='0.3' method='large' "
                  "updateStiffnessMatrix='true'/>"),
             TCFEM, true, NULL, 0, 0, 0, 0);
}

#define FTC "FastTetrahedralCorotationalForceField"
#define FTC_FF(METHOD)                                                                            \
    "<" FTC " name='FEM' youngModulus='1000' poissonRatio='0.3' method='" METHOD "'/>"

Test(fem_energy, fast_tetrahedral_none)
{
    run_case(CUBE(FTC_FF("none")), FTC, false, NULL, 0, 0.05, 1e-6, 1e-6);
}

Test(fem_energy, fast_tetrahedral_corotational)
{
    static const char *const methods[] = {"qr", "polar", "polar2"};
    run_corotational(FTC, methods, 3);
}

/* One triangle with vertex 0 at the origin and edge 01 along x: moving
 * x0, x1, x2, y2 keeps it in the plane with 01 along x, so the large frame
 * does not turn (a pure in-plane stretch and shear). */
static const size_t tri_frame_free[] = {0, 3, 6, 7};

#define TRF_FF(CLS, METHOD)                                                                       \
    "<" CLS " name='FEM' youngModulus='1000' poissonRatio='0.3' method='" METHOD "'/>"

/* TriangularFEMForceField's J is that of the current shape (SOFA's), so its
 * force is the gradient of its energy only up to the strain: checked at a
 * 1e-6 deformation to 1e-5. */
Test(fem_energy, triangular)
{
    const char *cls = "TriangularFEMForceField";
    run_case(SCENE(TRI_POS, TRI_TOPO, TRF_FF("TriangularFEMForceField", "small")), cls, false,
             NULL, 0, 1e-6, 1e-9, 1e-5);
    run_case(SCENE(TRI_POS, TRI_TOPO, TRF_FF("TriangularFEMForceField", "large")), cls, true,
             NULL, 0, 0, 0, 0);
    run_case(SCENE(ONE_TRI, ONE_TRI_TOPO, TRF_FF("TriangularFEMForceField", "large")), cls, true,
             tri_frame_free, 4, 1e-6, 1e-9, 1e-5);
}

Test(fem_energy, triangular_anisotropic)
{
    const char *cls = "TriangularAnisotropicFEMForceField";
    run_case(SCENE(TRI_POS, TRI_TOPO,
                   "<TriangularAnisotropicFEMForceField name='FEM' youngModulus='1000' "
                   "transverseYoungModulus='300' poissonRatio='0.3' fiberAngle='30'/>"),
             cls, true, NULL, 0, 0, 0, 0);
    run_case(SCENE(ONE_TRI, ONE_TRI_TOPO,
                   "<TriangularAnisotropicFEMForceField name='FEM' youngModulus='1000' "
                   "transverseYoungModulus='300' poissonRatio='0.3' fiberAngle='30'/>"),
             cls, true, tri_frame_free, 4, 1e-6, 1e-9, 1e-5);
}

/* The Optim element keeps J of the rest shape: exact gradient where the
 * frame does not turn. */
Test(fem_energy, triangular_optim)
{
    const char *cls = "TriangularFEMForceFieldOptim";
    run_case(SCENE(TRI_POS, TRI_TOPO,
                   "<TriangularFEMForceFieldOptim name='FEM' youngModulus='1000' "
                   "poissonRatio='0.3'/>"),
             cls, true, NULL, 0, 0, 0, 0);
    run_case(SCENE(ONE_TRI, ONE_TRI_TOPO,
                   "<TriangularFEMForceFieldOptim name='FEM' youngModulus='1000' "
                   "poissonRatio='0.3'/>"),
             cls, true, tri_frame_free, 4, 0.05, 1e-6, 1e-6);
}

/* Moving vertex 2 alone keeps the lengths of edges 01 and 03 that K
 * depends on: exact gradient there. */
Test(fem_energy, quad_bending)
{
    static const size_t v2[] = {6, 7, 8};
    const char *cls = "QuadBendingFEMForceField";
    run_case(SCENE(QUAD_POS, QUAD_TOPO,
                   "<QuadBendingFEMForceField name='FEM' youngModulus='2000' poissonRatio='0.25' "
                   "thickness='0.1'/>"),
             cls, false, v2, 3, 0.05, 1e-6, 1e-6);
}
