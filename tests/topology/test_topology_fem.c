/* test_topology_fem.c - the FEM force fields across topological changes
 * (issue 27): after elements (and the points they leave isolated) are
 * removed, a force field's elements and their data equal those of a fresh
 * scene built directly from the remaining elements and the state as it is
 * (same positions, rest positions and velocities), and so do the next
 * steps, in the explicit (EulerExplicitSolver), CG (EulerImplicitSolver +
 * CGLinearSolver) and direct (SparseLDLSolver) paths; a removal far from
 * the loaded elements leaves the force on them unchanged; a force field
 * that does not follow its topology makes the change an error (the kernel's
 * reader rule).
 *
 * The scenes have no fixed points (FixedProjectiveConstraint does not follow
 * topologies here) and a UniformMass of one vertexMass; when UniformMass
 * does not follow the topology itself, the test makes its "indices" follow
 * the points (SOFA's TopologySubsetIndices) so that the change is allowed. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "topo_support.h"

#include "../plugins/SolidMechanics.FEM.Elastic/element_fem.h"
#include "../plugins/SolidMechanics.FEM.Elastic/hexahedron_fem.h"
#include "../plugins/SolidMechanics.FEM.Elastic/tetrahedron_fem.h"
#include "../plugins/SolidMechanics.FEM.Elastic/triangle_fem.h"
#include "../plugins/SolidMechanics.FEM.Elastic/triangular_fem.h"
#include "../plugins/SolidMechanics.FEM.HyperElastic/hyper_fem.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(topology_fem, .init = setup, .fini = teardown);

/* ---- Meshes ---- */

typedef struct mesh {
    st_elem kind;
    size_t np, ne;
    double rest[64][3], pos[64][3], vel[64][3];
    unsigned el[64][8];
} mesh;

/* A deterministic perturbation of the rest shape, and a velocity. */
static void perturb(mesh *m, double amp)
{
    for (size_t i = 0; i < m->np; i++)
        for (int c = 0; c < 3; c++) {
            double s = sin(1.7 * (double)i + 2.3 * c + 0.4);
            m->pos[i][c] = m->rest[i][c] + amp * s;
            m->vel[i][c] = 0.1 * amp * cos(0.9 * (double)i + c);
        }
}

/* nx x 1 x 1 unit cubes: point x + (nx+1) (y + 2 z). */
static unsigned gp(unsigned nx, unsigned x, unsigned y, unsigned z)
{
    return x + (nx + 1) * (y + 2 * z);
}

static void grid_points(mesh *m, unsigned nx)
{
    m->np = 4 * (nx + 1);
    for (unsigned z = 0; z < 2; z++)
        for (unsigned y = 0; y < 2; y++)
            for (unsigned x = 0; x <= nx; x++) {
                double *p = m->rest[gp(nx, x, y, z)];
                p[0] = x, p[1] = 0.8 * y, p[2] = 1.2 * z;
            }
}

static void cube_corners(unsigned nx, unsigned c, unsigned h[8])
{
    const unsigned d[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                              {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    for (int k = 0; k < 8; k++)
        h[k] = gp(nx, c + d[k][0], d[k][1], d[k][2]);
}

/* nx cubes, each cut into 6 tetrahedra around its diagonal 0-6. */
static void tet_grid(mesh *m, unsigned nx)
{
    static const unsigned cut[6][4] = {{0, 5, 1, 6}, {0, 1, 3, 6}, {1, 3, 6, 2},
                                       {6, 3, 0, 7}, {6, 7, 0, 5}, {7, 5, 4, 0}};
    memset(m, 0, sizeof *m);
    m->kind = ST_ELEM_TETRAHEDRON;
    grid_points(m, nx);
    for (unsigned c = 0; c < nx; c++) {
        unsigned h[8];
        cube_corners(nx, c, h);
        for (int t = 0; t < 6; t++)
            for (int k = 0; k < 4; k++)
                m->el[m->ne + (size_t)t][k] = h[cut[t][k]];
        m->ne += 6;
    }
    perturb(m, 0.05);
}

static void hex_grid(mesh *m, unsigned nx)
{
    memset(m, 0, sizeof *m);
    m->kind = ST_ELEM_HEXAHEDRON;
    grid_points(m, nx);
    for (unsigned c = 0; c < nx; c++)
        cube_corners(nx, c, m->el[m->ne++]);
    perturb(m, 0.05);
}

/* A flat strip of nx x 2 squares in z = 0 (slightly lifted), as triangles
 * or quads: point x + (nx+1) y. */
static void strip(mesh *m, unsigned nx, bool quads)
{
    memset(m, 0, sizeof *m);
    m->kind = quads ? ST_ELEM_QUAD : ST_ELEM_TRIANGLE;
    m->np = 3 * (nx + 1);
    for (unsigned y = 0; y < 3; y++)
        for (unsigned x = 0; x <= nx; x++) {
            double *p = m->rest[x + (nx + 1) * y];
            p[0] = x, p[1] = 0.9 * y, p[2] = 0.0;
        }
    for (unsigned y = 0; y < 2; y++)
        for (unsigned x = 0; x < nx; x++) {
            unsigned a = x + (nx + 1) * y, b = a + 1, c = b + nx + 1, d = a + nx + 1;
            if (quads) {
                unsigned *q = m->el[m->ne++];
                q[0] = a, q[1] = b, q[2] = c, q[3] = d;
            } else {
                unsigned *t0 = m->el[m->ne++], *t1 = m->el[m->ne++];
                t0[0] = a, t0[1] = b, t0[2] = c;
                t1[0] = a, t1[1] = c, t1[2] = d;
            }
        }
    perturb(m, 0.04);
}

/* ---- Scenes ---- */

static const char *const solver_yaml[3] = {
    "        - EulerExplicitSolver: {symplectic: true}\n",
    "        - EulerImplicitSolver: {}\n"
    "        - CGLinearSolver: {iterations: 2000, tolerance: 1e-30, threshold: 1e-300}\n",
    "        - EulerImplicitSolver: {}\n"
    "        - SparseLDLSolver: {}\n"};
static const char *const solver_name[3] = {"explicit", "CG", "SparseLDL"};

static const char *container_of(st_elem k)
{
    switch (k) {
    case ST_ELEM_TRIANGLE: return "TriangleSet";
    case ST_ELEM_QUAD: return "QuadSet";
    case ST_ELEM_TETRAHEDRON: return "TetrahedronSet";
    default: return "HexahedronSet";
    }
}

typedef struct buf {
    char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int w = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        cr_assert_geq(w, 0);
        if (b->n + (size_t)w < b->cap) {
            b->n += (size_t)w;
            return;
        }
        b->cap = 2 * (b->cap + (size_t)w + 64);
        b->p = realloc(b->p, b->cap);
        cr_assert_not_null(b->p);
    }
}

static void put_vecs(buf *b, const char *name, const double (*v)[3], size_t n)
{
    put(b, "%s: [", name);
    for (size_t i = 0; i < n; i++)
        put(b, "%s%.17g, %.17g, %.17g", i ? ", " : "", v[i][0], v[i][1], v[i][2]);
    put(b, "]");
}

/* The scene of mesh m with force field ff (YAML flow map, named ff) and
 * solver path k. */
static st_scene *scene_of(const mesh *m, const char *ff, int k)
{
    buf b = {NULL, 0, 0};
    unsigned w = st_elem_vertices(m->kind);
    put(&b, "format: settee/1\nroot:\n  name: root\n  gravity: [0, 0, 0]\n  dt: 0.01\n"
            "  objects:\n"
            "    - RequiredPlugin: {pluginName: [ODESolver.Forward, ODESolver.Backward, "
            "LinearSolver.Direct, LinearSolver.Iterative, Mass, Topology, "
            "SolidMechanics.FEM.Elastic, SolidMechanics.FEM.HyperElastic, MultiThreading]}\n"
            "    - DefaultAnimationLoop: {}\n"
            "  children:\n    - name: body\n      objects:\n");
    put(&b, "%s", solver_yaml[k]);
    put(&b, "        - MechanicalObject: {name: dof, ");
    put_vecs(&b, "position", (const double(*)[3])m->pos, m->np);
    put(&b, ", ");
    put_vecs(&b, "rest_position", (const double(*)[3])m->rest, m->np);
    put(&b, ", ");
    put_vecs(&b, "velocity", (const double(*)[3])m->vel, m->np);
    put(&b, "}\n        - %sTopologyContainer: {name: topo, ", container_of(m->kind));
    put_vecs(&b, "position", (const double(*)[3])m->rest, m->np);
    put(&b, ", %s: [", st_elem_name(m->kind));
    for (size_t i = 0; i < m->ne; i++)
        for (unsigned j = 0; j < w; j++)
            put(&b, "%s%u", i || j ? ", " : "", m->el[i][j]);
    put(&b, "]}\n        - %sTopologyModifier: {}\n", container_of(m->kind));
    if (!strstr(ff, "AndMass")) /* a node holds one mass */
        put(&b, "        - UniformMass: {name: mass, vertexMass: 1.5}\n");
    put(&b, "        - %s\n", ff);
    st_scene *s = topo_scene(&T, b.p);
    free(b.p);
    return s;
}

static st_status mass_follows(st_component *owner, st_component *topology,
                              const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)owner, (void)topology, (void)ev, (void)nev, (void)err;
    return ST_OK;
}

/* UniformMass's indices follow the points (SOFA's TopologySubsetIndices)
 * unless UniformMass already follows the topology by itself. */
static void let_mass_follow(st_scene *s)
{
    st_component *mass = NULL, *topo = topo_get(s, "body/topo");
    st_error e0 = {0};
    if (st_node_resolve(st_scene_root(s), "body/mass", ST_LINK_ANY, &mass, &e0) != ST_OK || !mass)
        return;
    for (size_t i = 0; i < s->ntopo_links; i++)
        if (s->topo_links[i].owner == mass)
            return;
    st_error err = {0};
    cr_assert_eq(st_topology_follow_subset(mass, "indices", topo, ST_ELEM_POINT, &err), ST_OK,
                 "%s", err.msg);
    cr_assert_eq(st_topology_listen(mass, topo, mass_follows, &err), ST_OK, "%s", err.msg);
}

static void step(st_scene *s, int n)
{
    st_error err = {0};
    for (int i = 0; i < n; i++)
        cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "step: %s %s", err.path, err.msg);
}

/* The mesh of s as it is now: the container's elements, the state's rest
 * positions, positions and velocities. */
static void mesh_now(st_scene *s, st_elem kind, mesh *m)
{
    memset(m, 0, sizeof *m);
    m->kind = kind;
    st_mstate *ms = (st_mstate *)topo_get(s, "body/dof");
    const st_array *el = topo_arr(topo_get(s, "body/topo"), st_elem_name(kind));
    unsigned w = st_elem_vertices(kind);
    m->np = ms->rest_position.n;
    m->ne = el->n;
    cr_assert_leq(m->np, 64);
    cr_assert_leq(m->ne, 64);
    memcpy(m->rest, ms->rest_position.r, 3 * m->np * sizeof(double));
    memcpy(m->pos, ms->position.r, 3 * m->np * sizeof(double));
    memcpy(m->vel, ms->velocity.r, 3 * m->np * sizeof(double));
    for (size_t i = 0; i < m->ne; i++)
        memcpy(m->el[i], el->u + w * i, w * sizeof(unsigned));
}

/* ---- Element data compared ---- */

/* The element array of a force field: ne items of size bytes; each item's
 * vertex indices (nv) first, then doubles from offset d0 to d1. */
typedef struct elems {
    const char *base;
    size_t ne, size, d0, d1;
    unsigned nv;
} elems;

static elems elems_of(st_component *ff)
{
    const char *cls = ff->cls->name;
    if (!strcmp(cls, "TetrahedronFEMForceField") ||
        !strcmp(cls, "TetrahedralCorotationalFEMForceField")) {
        const tetra_fem *s = (const tetra_fem *)ff;
        return (elems){(const char *)s->e, s->ne, sizeof(tet), offsetof(tet, J),
                       offsetof(tet, plastic) + sizeof s->e->plastic, 4};
    }
    if (!strncmp(cls, "HexahedronFEMForceField", 23)) {
        const hexa_fem *s = (const hexa_fem *)ff;
        return (elems){(const char *)s->e, s->ne, sizeof(hexa), offsetof(hexa, K),
                       offsetof(hexa, mcoef) + sizeof(double), 8};
    }
    if (!strcmp(cls, "TriangleFEMForceField")) {
        const tri_fem *s = (const tri_fem *)ff;
        return (elems){(const char *)s->e, s->ne, sizeof(tri), offsetof(tri, K),
                       offsetof(tri, rest) + sizeof s->e->rest, 3};
    }
    if (!strncmp(cls, "TriangularFEMForceField", 23)) {
        const trf_fem *s = (const trf_fem *)ff;
        return (elems){(const char *)s->e, s->ne, sizeof(trf_elem), offsetof(trf_elem, K),
                       offsetof(trf_elem, stress) + sizeof s->e->stress, 3};
    }
    if (!strcmp(cls, "TetrahedronHyperelasticityFEMForceField") ||
        !strcmp(cls, "StandardTetrahedralFEMForceField")) {
        const hyper_ff *s = (const hyper_ff *)ff;
        return (elems){(const char *)s->e, s->ne, sizeof(helem), offsetof(helem, g),
                       offsetof(helem, S) + sizeof s->e->S, 4};
    }
    return (elems){0}; /* QuadBendingFEMForceField: private layout, the state is compared */
}

/* LinearSmallStrainFEMForceField, CorotationalFEMForceField: their
 * elements' vertices, stiffnesses, rotations and initial frames. */
static bool is_element_fem(const st_component *ff)
{
    return !strcmp(ff->cls->name, "LinearSmallStrainFEMForceField") ||
           !strcmp(ff->cls->name, "CorotationalFEMForceField");
}

static void assert_same_element_fem(const element_fem *a, const element_fem *b, const char *what)
{
    cr_assert_eq(a->ne, b->ne, "%s: %zu elements, fresh scene %zu", what, a->ne, b->ne);
    cr_assert_eq(a->nK, a->ne, "%s: %zu stiffnesses for %zu elements", what, a->nK, a->ne);
    const size_t nn = (size_t)a->nn, nd = (size_t)a->d * nn;
    cr_assert_eq(memcmp(a->v, b->v, a->ne * nn * sizeof *a->v), 0, "%s: other vertices", what);
    double scale = 0;
    for (size_t i = 0; i < b->ne * nd * nd; i++)
        scale = fmax(scale, fabs(b->K[i]));
    cr_assert_gt(scale, 0.0, "%s: stiffness", what);
    for (size_t i = 0; i < a->ne * nd * nd; i++)
        cr_assert(fabs(a->K[i] - b->K[i]) <= 1e-12 * scale, "%s: element %zu K %zu: %.17g, "
                  "fresh scene %.17g", what, i / (nd * nd), i % (nd * nd), a->K[i], b->K[i]);
    for (size_t i = 0; i < 9 * a->ne; i++) {
        cr_assert(fabs(a->R[i] - b->R[i]) <= 1e-12, "%s: element %zu R: %.17g, fresh %.17g",
                  what, i / 9, a->R[i], b->R[i]);
        cr_assert(fabs(a->R0[i] - b->R0[i]) <= 1e-12, "%s: element %zu R0: %.17g, fresh %.17g",
                  what, i / 9, a->R0[i], b->R0[i]);
    }
}

static void assert_same_elements(st_component *a, st_component *b, const char *what)
{
    if (is_element_fem(a)) {
        assert_same_element_fem((const element_fem *)a, (const element_fem *)b, what);
        return;
    }
    elems ea = elems_of(a), eb = elems_of(b);
    if (!ea.base && !eb.base)
        return;
    cr_assert_eq(ea.ne, eb.ne, "%s: %zu elements, fresh scene %zu", what, ea.ne, eb.ne);
    double scale = 0;
    size_t nd = (ea.d1 - ea.d0) / sizeof(double);
    for (size_t i = 0; i < ea.ne; i++)
        for (size_t k = 0; k < nd; k++) {
            double x = ((const double *)(eb.base + i * eb.size + eb.d0))[k];
            scale = fmax(scale, fabs(x));
        }
    for (size_t i = 0; i < ea.ne; i++) {
        const char *pa = ea.base + i * ea.size, *pb = eb.base + i * eb.size;
        cr_assert_eq(memcmp(pa, pb, ea.nv * sizeof(unsigned)), 0,
                     "%s: element %zu has other vertices", what, i);
        const double *da = (const double *)(pa + ea.d0), *db = (const double *)(pb + eb.d0);
        for (size_t k = 0; k < nd; k++)
            cr_assert(fabs(da[k] - db[k]) <= 1e-12 * scale,
                      "%s: element %zu value %zu: %.17g, fresh scene %.17g", what, i, k, da[k],
                      db[k]);
    }
}

static void assert_same_state(st_scene *a, st_scene *b, const char *what)
{
    st_mstate *ma = (st_mstate *)topo_get(a, "body/dof"), *mb = (st_mstate *)topo_get(b, "body/dof");
    cr_assert_eq(ma->position.n, mb->position.n, "%s: point counts", what);
    for (size_t i = 0; i < 3 * ma->position.n; i++) {
        cr_assert(fabs(ma->position.r[i] - mb->position.r[i]) <= 1e-12,
                  "%s: position %zu: %.17g, fresh scene %.17g", what, i, ma->position.r[i],
                  mb->position.r[i]);
        cr_assert(fabs(ma->velocity.r[i] - mb->velocity.r[i]) <= 1e-10,
                  "%s: velocity %zu: %.17g, fresh scene %.17g", what, i, ma->velocity.r[i],
                  mb->velocity.r[i]);
    }
}

/* The force field's potential energy at the state's positions. */
static double energy_of(st_scene *s)
{
    st_component *ff = topo_get(s, "body/ff");
    st_system *sys = s->systems[0];
    if (!ff->cls->forcefield->potential_energy)
        return 0.0;
    return ff->cls->forcefield->potential_energy(ff, &sys->mp, sys->x);
}

/* Scene m with force field ff under solver k: 2 steps, the removal of ids
 * (elements of m's kind), then the changed scene and a fresh one built
 * from what remains step together. Returns the number of elements left. */
static size_t check_fresh(const mesh *m, const char *ff, int k, const unsigned *ids, size_t nid)
{
    char what[256];
    snprintf(what, sizeof what, "%.60s, %s", ff, solver_name[k]);
    st_scene *a = scene_of(m, ff, k);
    let_mass_follow(a);
    step(a, 2);
    st_error err = {0};
    cr_assert_eq(st_topology_remove(topo_get(a, "body/topo"), m->kind, ids, nid, &err), ST_OK,
                 "%s: remove: %s %s", what, err.path, err.msg);
    mesh left;
    mesh_now(a, m->kind, &left);
    cr_assert_lt(left.ne, m->ne, "%s: elements were removed", what);
    st_scene *b = scene_of(&left, ff, k);
    st_component *fa = topo_get(a, "body/ff"), *fb = topo_get(b, "body/ff");
    elems ea = elems_of(fa), eb = elems_of(fb);
    cr_assert_eq(ea.ne, eb.ne, "%s: the force field holds %zu elements, the fresh one %zu", what,
                 ea.ne, eb.ne);
    if (is_element_fem(fa))
        cr_assert_eq(((element_fem *)fa)->ne, left.ne, "%s: elements after the removal", what);
    for (int n = 0; n < 3; n++) {
        step(a, 1);
        step(b, 1);
        assert_same_state(a, b, what);
        assert_same_elements(fa, fb, what);
        double wa = energy_of(a), wb = energy_of(b);
        cr_assert(fabs(wa - wb) <= 1e-12 * fmax(1.0, fabs(wb)), "%s: energy %.17g, fresh %.17g",
                  what, wa, wb);
    }
    /* the state moved: the forces are not trivial */
    st_mstate *ms = (st_mstate *)topo_get(a, "body/dof");
    double moved = 0;
    for (size_t i = 0; i < 3 * ms->position.n; i++)
        moved = fmax(moved, fabs(ms->position.r[i] - ms->rest_position.r[i]));
    cr_assert_gt(moved, 1e-4, "%s: the state must be deformed", what);
    st_scene_destroy(&a);
    st_scene_destroy(&b);
    return left.ne;
}

static void check_all_solvers(const mesh *m, const char *ff, const unsigned *ids, size_t nid)
{
    /* HexahedronFEMForceFieldAndMass: its element mass (SOFA's, every block
     * equal) needs a linear solver, and with no fixed point the free body's
     * matrix is singular for SparseLDL: CG only */
    bool and_mass = strstr(ff, "AndMass") != NULL;
    for (int k = and_mass ? 1 : 0; k < (and_mass ? 2 : 3); k++)
        check_fresh(m, ff, k, ids, nid);
}

/* ---- TetrahedronFEMForceField, TetrahedralCorotationalFEMForceField ---- */

/* Removing tetrahedra 1 and 7 of 12 (none isolates a point) and the 6 of
 * the second cube (its 4 far points are isolated and removed: the last
 * points move into their places). */
static const unsigned tet_some[] = {7, 1};
static const unsigned tet_cube[] = {6, 7, 8, 9, 10, 11};

Test(topology_fem, tetrahedron_fem_all_methods_all_solvers)
{
    mesh m;
    tet_grid(&m, 2);
    static const char *const ffs[] = {
        "TetrahedronFEMForceField: {name: ff, method: small, youngModulus: 1000, poissonRatio: 0.3}",
        "TetrahedronFEMForceField: {name: ff, method: large, youngModulus: 1000, poissonRatio: 0.3}",
        "TetrahedronFEMForceField: {name: ff, method: polar, youngModulus: 1000, poissonRatio: 0.3}",
        "TetrahedronFEMForceField: {name: ff, method: svd, youngModulus: 1000, poissonRatio: 0.3}",
        "TetrahedronFEMForceField: {name: ff, method: small, computeGlobalMatrix: true, "
        "youngModulus: 1000, poissonRatio: 0.3}",
        "TetrahedronFEMForceField: {name: ff, method: large, computeGlobalMatrix: true, "
        "youngModulus: 1000, poissonRatio: 0.3}",
        "TetrahedronFEMForceField: {name: ff, method: large, updateStiffnessMatrix: true, "
        "youngModulus: 1000, poissonRatio: 0.3, computeVonMisesStress: 2}",
        "TetrahedralCorotationalFEMForceField: {name: ff, method: large, youngModulus: 1000, "
        "poissonRatio: 0.3}",
        "TetrahedralCorotationalFEMForceField: {name: ff, method: polar, youngModulus: 1000, "
        "poissonRatio: 0.3}",
        /* the parallel twin rebuilds its vertex -> element adjacency */
        "ParallelTetrahedronFEMForceField: {name: ff, method: large, youngModulus: 1000, "
        "poissonRatio: 0.3, nbThreads: 2}",
    };
    for (size_t f = 0; f < sizeof ffs / sizeof *ffs; f++) {
        check_all_solvers(&m, ffs[f], tet_some, 2);
        check_all_solvers(&m, ffs[f], tet_cube, 6);
    }
}

/* A per-element Young modulus follows its elements: after the removal each
 * remaining element keeps its own value (the fresh scene is given the
 * remaining elements' values in their new order). */
Test(topology_fem, tetrahedron_fem_per_element_young_modulus_follows)
{
    mesh m;
    tet_grid(&m, 2);
    char ff[1024];
    int w = snprintf(ff, sizeof ff, "TetrahedronFEMForceField: {name: ff, method: large, "
                                    "poissonRatio: 0.3, youngModulus: [");
    for (size_t i = 0; i < m.ne; i++)
        w += snprintf(ff + w, sizeof ff - (size_t)w, "%s%g", i ? ", " : "", 1000.0 + 100.0 * (double)i);
    snprintf(ff + w, sizeof ff - (size_t)w, "]}");
    st_scene *a = scene_of(&m, ff, 2);
    let_mass_follow(a);
    st_error err = {0};
    cr_assert_eq(st_topology_remove(topo_get(a, "body/topo"), ST_ELEM_TETRAHEDRON, tet_some, 2,
                                    &err),
                 ST_OK, "%s", err.msg);
    /* removing 7 moves 11 into 7, then removing 1 moves 10 into 1 */
    double want[10];
    for (size_t i = 0; i < 10; i++)
        want[i] = 1000.0 + 100.0 * (double)i;
    want[7] = 1000.0 + 1100.0;
    want[1] = 1000.0 + 1000.0;
    st_array *young = topo_arr(topo_get(a, "body/ff"), "youngModulus");
    cr_assert_eq(young->n, 10);
    for (size_t i = 0; i < 10; i++)
        cr_assert_float_eq(young->r[i], want[i], 1e-12, "youngModulus[%zu]", i);
    mesh left;
    mesh_now(a, ST_ELEM_TETRAHEDRON, &left);
    w = snprintf(ff, sizeof ff, "TetrahedronFEMForceField: {name: ff, method: large, "
                                "poissonRatio: 0.3, youngModulus: [");
    for (size_t i = 0; i < 10; i++)
        w += snprintf(ff + w, sizeof ff - (size_t)w, "%s%g", i ? ", " : "", want[i]);
    snprintf(ff + w, sizeof ff - (size_t)w, "]}");
    st_scene *b = scene_of(&left, ff, 2);
    step(a, 1);
    step(b, 1);
    assert_same_elements(topo_get(a, "body/ff"), topo_get(b, "body/ff"), "per-element young");
    assert_same_state(a, b, "per-element young");
    st_scene_destroy(&a);
    st_scene_destroy(&b);
}

/* TetrahedronFEMForceField on hexahedra (cut into 6 tetrahedra each, as
 * SOFA's force field does): the cut is redone after a change (SOFA's
 * reinit). */
Test(topology_fem, tetrahedron_fem_on_hexahedra)
{
    mesh m;
    hex_grid(&m, 3);
    static const unsigned one[] = {1};
    check_all_solvers(&m, "TetrahedronFEMForceField: {name: ff, method: large, youngModulus: "
                          "1000, poissonRatio: 0.3}",
                      one, 1);
}

/* ---- HexahedronFEMForceField(AndMass) ---- */

/* Removing hexahedron 1 of 3 (no point isolated) and hexahedron 2 (its 4
 * far points go). */
Test(topology_fem, hexahedron_fem_all_methods_all_solvers)
{
    mesh m;
    hex_grid(&m, 3);
    static const unsigned mid[] = {1}, end[] = {2};
    static const char *const ffs[] = {
        "HexahedronFEMForceField: {name: ff, method: large, youngModulus: 1000, poissonRatio: 0.3}",
        "HexahedronFEMForceField: {name: ff, method: polar, youngModulus: 1000, poissonRatio: 0.3}",
        "HexahedronFEMForceField: {name: ff, method: small, youngModulus: 1000, poissonRatio: 0.3}",
        "HexahedronFEMForceFieldAndMass: {name: ff, method: large, youngModulus: 1000, "
        "poissonRatio: 0.3, density: 2, lumpedMass: true}",
        "HexahedronFEMForceFieldAndMass: {name: ff, method: polar, youngModulus: 1000, "
        "poissonRatio: 0.3, density: 2, lumpedMass: true}",
        "ParallelHexahedronFEMForceField: {name: ff, method: large, youngModulus: 1000, "
        "poissonRatio: 0.3, nbThreads: 2}",
    };
    for (size_t f = 0; f < sizeof ffs / sizeof *ffs; f++) {
        check_all_solvers(&m, ffs[f], mid, 1);
        check_all_solvers(&m, ffs[f], end, 1);
    }
}

/* HexahedralFEMForceField (its element data are private: the states and
 * energies are compared) */
Test(topology_fem, hexahedral_fem_all_methods_all_solvers)
{
    mesh m;
    hex_grid(&m, 3);
    static const unsigned mid[] = {1}, end[] = {2};
    static const char *const ffs[] = {
        "HexahedralFEMForceField: {name: ff, method: large, youngModulus: 1000, poissonRatio: 0.3}",
        "HexahedralFEMForceField: {name: ff, method: polar, youngModulus: 1000, poissonRatio: 0.3}",
    };
    for (size_t f = 0; f < sizeof ffs / sizeof *ffs; f++) {
        check_all_solvers(&m, ffs[f], mid, 1);
        check_all_solvers(&m, ffs[f], end, 1);
    }
}

/* ---- Triangles and quads ---- */

/* 3 x 2 squares, 12 triangles: removing 2 and 5 isolates no point;
 * removing the last column's 4 triangles isolates its 3 points. */
static const unsigned tri_some[] = {2, 5};
static const unsigned tri_column[] = {4, 5, 10, 11};

Test(topology_fem, triangle_fems_all_solvers)
{
    mesh m;
    strip(&m, 3, false);
    static const char *const ffs[] = {
        "TriangleFEMForceField: {name: ff, method: large, youngModulus: 1000, poissonRatio: 0.3, "
        "thickness: 0.1}",
        "TriangleFEMForceField: {name: ff, method: small, youngModulus: 1000, poissonRatio: 0.3}",
        "TriangularFEMForceField: {name: ff, method: large, youngModulus: 1000, poissonRatio: 0.3}",
        "TriangularFEMForceField: {name: ff, method: small, youngModulus: 1000, poissonRatio: 0.3}",
        "TriangularFEMForceFieldOptim: {name: ff, youngModulus: 1000, poissonRatio: 0.3}",
    };
    for (size_t f = 0; f < sizeof ffs / sizeof *ffs; f++) {
        check_all_solvers(&m, ffs[f], tri_some, 2);
        check_all_solvers(&m, ffs[f], tri_column, 4);
    }
}

Test(topology_fem, quad_bending_fem_all_solvers)
{
    mesh m;
    strip(&m, 3, true);
    static const unsigned some[] = {1}, column[] = {2, 5};
    const char *ff = "QuadBendingFEMForceField: {name: ff, youngModulus: 1000, poissonRatio: 0.3, "
                     "thickness: 0.1}";
    check_all_solvers(&m, ff, some, 1);
    check_all_solvers(&m, ff, column, 2);
}

/* ---- SOFA's element framework: LinearSmallStrain, Corotational ---- */

Test(topology_fem, element_fems_on_tetrahedra_and_hexahedra_all_solvers)
{
    mesh m;
    tet_grid(&m, 2);
    static const char *const tet_ffs[] = {
        "LinearSmallStrainFEMForceField: {name: ff, template: \"Vec3d,Tetrahedron\", "
        "youngModulus: 1000, poissonRatio: 0.3}",
        "CorotationalFEMForceField: {name: ff, template: \"Vec3d,Tetrahedron\", "
        "youngModulus: 1000, poissonRatio: 0.3}",
        "CorotationalFEMForceField: {name: ff, template: \"Vec3d,Tetrahedron\", "
        "rotationMethod: stable_polar, youngModulus: 1000, poissonRatio: 0.3}",
    };
    for (size_t f = 0; f < sizeof tet_ffs / sizeof *tet_ffs; f++) {
        check_all_solvers(&m, tet_ffs[f], tet_some, 2);
        check_all_solvers(&m, tet_ffs[f], tet_cube, 6);
    }
    hex_grid(&m, 3);
    static const unsigned mid[] = {1}, end[] = {2};
    static const char *const hex_ffs[] = {
        "LinearSmallStrainFEMForceField: {name: ff, template: \"Vec3d,Hexahedron\", "
        "youngModulus: 1000, poissonRatio: 0.3}",
        "CorotationalFEMForceField: {name: ff, template: \"Vec3d,Hexahedron\", "
        "youngModulus: 1000, poissonRatio: 0.3}",
    };
    for (size_t f = 0; f < sizeof hex_ffs / sizeof *hex_ffs; f++) {
        check_all_solvers(&m, hex_ffs[f], mid, 1);
        check_all_solvers(&m, hex_ffs[f], end, 1);
    }
}

Test(topology_fem, element_fems_on_triangles_and_quads_all_solvers)
{
    mesh m;
    strip(&m, 3, false);
    static const char *const tri_ffs[] = {
        "LinearSmallStrainFEMForceField: {name: ff, template: \"Vec3d,Triangle\", "
        "youngModulus: 1000, poissonRatio: 0.3}",
        "CorotationalFEMForceField: {name: ff, template: \"Vec3d,Triangle\", "
        "youngModulus: 1000, poissonRatio: 0.3}",
    };
    for (size_t f = 0; f < sizeof tri_ffs / sizeof *tri_ffs; f++) {
        check_all_solvers(&m, tri_ffs[f], tri_some, 2);
        check_all_solvers(&m, tri_ffs[f], tri_column, 4);
    }
    strip(&m, 3, true);
    static const unsigned some[] = {1}, column[] = {2, 5};
    const char *ff = "CorotationalFEMForceField: {name: ff, template: \"Vec3d,Quad\", "
                     "youngModulus: 1000, poissonRatio: 0.3}";
    check_all_solvers(&m, ff, some, 1);
    check_all_solvers(&m, ff, column, 2);
}

/* One Young modulus per element: removing tetrahedra 7 then 1 moves the
 * values of the last ones (2100 into 7, then 2000 into 1), with their
 * elements; the stiffnesses equal those of a scene built with the
 * remaining elements and that list. */
Test(topology_fem, element_fem_per_element_young_modulus_follows)
{
    mesh m, left;
    tet_grid(&m, 2);
    st_scene *a = scene_of(&m, "CorotationalFEMForceField: {name: ff, template: "
                               "\"Vec3d,Tetrahedron\", youngModulus: [1000, 1100, 1200, 1300, "
                               "1400, 1500, 1600, 1700, 1800, 1900, 2000, 2100], poissonRatio: "
                               "0.3}", 1);
    let_mass_follow(a);
    step(a, 2);
    st_error err = {0};
    cr_assert_eq(st_topology_remove(topo_get(a, "body/topo"), ST_ELEM_TETRAHEDRON, tet_some, 2,
                                    &err),
                 ST_OK, "%s", err.msg);
    static const double want[10] = {1000, 2000, 1200, 1300, 1400, 1500, 1600, 2100, 1800, 1900};
    const st_array *ym = topo_arr(topo_get(a, "body/ff"), "youngModulus");
    cr_assert_eq(ym->n, 10);
    for (int i = 0; i < 10; i++)
        cr_assert_eq(ym->r[i], want[i], "youngModulus[%d] = %g, want %g", i, ym->r[i], want[i]);
    mesh_now(a, ST_ELEM_TETRAHEDRON, &left);
    st_scene *b = scene_of(&left, "CorotationalFEMForceField: {name: ff, template: "
                                  "\"Vec3d,Tetrahedron\", youngModulus: [1000, 2000, 1200, "
                                  "1300, 1400, 1500, 1600, 2100, 1800, 1900], poissonRatio: 0.3}",
                           1);
    for (int n = 0; n < 3; n++) {
        step(a, 1);
        step(b, 1);
        assert_same_state(a, b, "per-element youngModulus");
        assert_same_elements(topo_get(a, "body/ff"), topo_get(b, "body/ff"),
                             "per-element youngModulus");
    }
    st_scene_destroy(&a);
    st_scene_destroy(&b);
}

/* Tetrahedra added back (st_topology_add) get their stiffness and frame
 * from the rest positions: the scene then equals one built with them. */
Test(topology_fem, element_fem_added_tetrahedra_equal_a_scene_built_with_them)
{
    mesh full, part;
    tet_grid(&full, 2);
    part = full;
    part.ne = 10; /* without the second cube's last two tetrahedra */
    const char *ff = "CorotationalFEMForceField: {name: ff, template: \"Vec3d,Tetrahedron\", "
                     "youngModulus: 1000, poissonRatio: 0.3}";
    st_scene *a = scene_of(&part, ff, 1), *b = scene_of(&full, ff, 1);
    let_mass_follow(a);
    st_error err = {0};
    const unsigned added[8] = {full.el[10][0], full.el[10][1], full.el[10][2], full.el[10][3],
                               full.el[11][0], full.el[11][1], full.el[11][2], full.el[11][3]};
    cr_assert_eq(st_topology_add(topo_get(a, "body/topo"), ST_ELEM_TETRAHEDRON, added, 2, &err),
                 ST_OK, "%s %s", err.path, err.msg);
    element_fem *fa = (element_fem *)topo_get(a, "body/ff");
    cr_assert_eq(fa->ne, 12);
    for (int n = 0; n < 3; n++) {
        step(a, 1);
        step(b, 1);
        assert_same_state(a, b, "added tetrahedra");
        assert_same_elements(&fa->base, topo_get(b, "body/ff"), "added tetrahedra");
    }
    st_scene_destroy(&a);
    st_scene_destroy(&b);
}

/* ---- Hyperelasticity ---- */

Test(topology_fem, hyperelastic_fem_all_solvers)
{
    mesh m;
    tet_grid(&m, 2);
    static const char *const ffs[] = {
        "TetrahedronHyperelasticityFEMForceField: {name: ff, materialName: NeoHookean, "
        "ParameterSet: [400, 600]}",
        "TetrahedronHyperelasticityFEMForceField: {name: ff, materialName: StVenantKirchhoff, "
        "ParameterSet: [400, 600]}",
    };
    for (size_t f = 0; f < sizeof ffs / sizeof *ffs; f++) {
        check_all_solvers(&m, ffs[f], tet_some, 2);
        check_all_solvers(&m, ffs[f], tet_cube, 6);
    }
}

/* ---- Continuity, refusal ---- */

/* The force field's add_force at the state's positions (one state: its
 * vectors are the global ones). */
static double *forces_now(st_scene *s)
{
    st_component *ff = topo_get(s, "body/ff");
    st_mstate *ms = (st_mstate *)topo_get(s, "body/dof");
    size_t n = 3 * ms->position.n;
    double *f = calloc(n, sizeof *f), *v = calloc(n, sizeof *v);
    st_mparams mp = {0};
    ff->cls->forcefield->add_force(ff, &mp, f, ms->position.r, v);
    free(v);
    return f;
}

/* 3 cubes of tetrahedra; removing the third cube (its 4 far points go:
 * 15, then 11 <- 14, 7 <- 13, 3 <- 12) leaves the force on the points of
 * the first two cubes' x = 0 and x = 1 faces unchanged (their elements are
 * all kept), under the new numbering. */
Test(topology_fem, removal_far_from_loaded_elements_keeps_their_forces)
{
    static const char *const ffs[] = {
        "TetrahedronFEMForceField: {name: ff, method: small, youngModulus: 1000, poissonRatio: 0.3}",
        "TetrahedronFEMForceField: {name: ff, method: svd, youngModulus: 1000, poissonRatio: 0.3}",
        "TetrahedronHyperelasticityFEMForceField: {name: ff, materialName: NeoHookean, "
        "ParameterSet: [400, 600]}",
    };
    static const unsigned third[] = {12, 13, 14, 15, 16, 17};
    static const unsigned old_ids[8] = {0, 4, 8, 12, 1, 5, 9, 13};
    static const unsigned new_ids[8] = {0, 4, 8, 3, 1, 5, 9, 7};
    for (size_t k = 0; k < sizeof ffs / sizeof *ffs; k++) {
        mesh m;
        tet_grid(&m, 3);
        st_scene *s = scene_of(&m, ffs[k], 1);
        let_mass_follow(s);
        step(s, 2);
        double *before = forces_now(s);
        double big = 0;
        for (size_t i = 0; i < 3 * m.np; i++)
            big = fmax(big, fabs(before[i]));
        cr_assert_gt(big, 1e-3, "%s: loaded", ffs[k]);
        st_error err = {0};
        cr_assert_eq(st_topology_remove(topo_get(s, "body/topo"), ST_ELEM_TETRAHEDRON, third, 6,
                                        &err),
                     ST_OK, "%s", err.msg);
        st_mstate *ms = (st_mstate *)topo_get(s, "body/dof");
        cr_assert_eq(ms->position.n, 12);
        double *after = forces_now(s);
        for (int p = 0; p < 8; p++)
            for (int c = 0; c < 3; c++) {
                double a = after[3 * new_ids[p] + c], b = before[3 * old_ids[p] + c];
                cr_assert(fabs(a - b) <= 1e-12 * big, "%s: point %u (was %u) force %d: %.17g, "
                          "before the removal %.17g", ffs[k], new_ids[p], old_ids[p], c, a, b);
            }
        /* and the run goes on */
        step(s, 2);
        free(before);
        free(after);
        st_scene_destroy(&s);
    }
}

/* Without a follow registration the kernel refuses the change, naming the
 * component: a test force field of ours that reads the topology without
 * following it (st_topology_use) stands for one; the same scene with
 * TetrahedronFEMForceField changes. */
Test(topology_fem, a_force_field_that_does_not_follow_refuses_the_change)
{
    mesh m;
    tet_grid(&m, 2);
    st_scene *s = scene_of(&m, "TetrahedronFEMForceField: {name: ff, youngModulus: 1000, "
                               "poissonRatio: 0.3}", 1);
    let_mass_follow(s);
    st_error err = {0};
    st_component *topo = topo_get(s, "body/topo"), *ff = topo_get(s, "body/ff");
    /* drop the force field's records, then let it only read the topology */
    size_t kept = 0;
    for (size_t i = 0; i < s->ntopo_links; i++)
        if (s->topo_links[i].owner != ff)
            s->topo_links[kept++] = s->topo_links[i];
    s->ntopo_links = kept;
    cr_assert_eq(st_topology_use(ff, topo, &err), ST_OK, "%s", err.msg);
    cr_assert_neq(st_topology_remove(topo, ST_ELEM_TETRAHEDRON, tet_some, 2, &err), ST_OK);
    cr_assert(strstr(err.msg, "TetrahedronFEMForceField"), "%s", err.msg);
    st_scene_destroy(&s);
    s = scene_of(&m, "TetrahedronFEMForceField: {name: ff, youngModulus: 1000, poissonRatio: "
                     "0.3}", 1);
    let_mass_follow(s);
    topo = topo_get(s, "body/topo");
    cr_assert_eq(st_topology_remove(topo, ST_ELEM_TETRAHEDRON, tet_some, 2, &err), ST_OK, "%s",
                 err.msg);
    cr_assert_eq(topo_arr(topo, "tetrahedra")->n, 10);
    st_scene_destroy(&s);
}
