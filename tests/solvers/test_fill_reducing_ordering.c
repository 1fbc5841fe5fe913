/* test_fill_reducing_ordering.c - SofaMatrix's FillReducingOrdering: its
 * permutation is a permutation and invPermutation its inverse, the
 * reordered positions and elements follow them, the permutation is the
 * one METIS_NodeND gives (default options) on the nodal graph of the same
 * elements (hexahedra first, then tetrahedra) called here directly, or with
 * approximateMinimumDegree the one Eigen's AMDOrdering gives (as SOFA), and it
 * reduces the fill of the Cholesky factor of a grid's matrix (every pair
 * of points of an element coupled) versus the identity ordering, counted by
 * symbolic elimination. A reordered FEM beam moves as the original one,
 * point for point through the permutation. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <metis.h>

#include "support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(fill_reducing_ordering, .init = setup, .fini = teardown);

#define PLUGINS                                                                                   \
    "<RequiredPlugin name='Sofa.Component.StateContainer'/>"                                      \
    "<RequiredPlugin name='Sofa.Component.Topology.Container.Grid'/>"                             \
    "<RequiredPlugin name='Sofa.Component.Topology.Container.Constant'/>"                         \
    "<RequiredPlugin name='SofaMatrix'/>"

static st_scene *load(const char *xml)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "fro.scn", &s, &err), ST_OK, "%s",
                 err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    return s;
}

static const st_array *field(st_component *c, const char *name)
{
    st_error err = {0};
    cr_assert_eq(st_component_refresh(c, &err), ST_OK, "%s", err.msg);
    const st_field *f = st_component_field(c, name);
    cr_assert_not_null(f, "no field %s", name);
    return st_component_field_ptr(c, f);
}

static const st_array *elements(st_component *topo, st_type kind)
{
    const st_array *a = topo->cls->topology->elements(topo, kind);
    static const st_array none = {0};
    return a ? a : &none;
}

/* perm and iperm of METIS_NodeND on METIS_MeshToNodal of the hexahedra then
 * the tetrahedra (SOFA's element order). */
static void metis_order(const st_array *hexa, const st_array *tetra, idx_t n, idx_t *perm,
                        idx_t *iperm)
{
    idx_t ne = (idx_t)(hexa->n + tetra->n), numflag = 0;
    idx_t *eptr = malloc(((size_t)ne + 1) * sizeof *eptr);
    idx_t *eind = malloc((8 * hexa->n + 4 * tetra->n + 1) * sizeof *eind);
    idx_t p = 0, e = 0;
    eptr[0] = 0;
    for (size_t k = 0; k < hexa->n; k++) {
        for (int j = 0; j < 8; j++)
            eind[p++] = (idx_t)hexa->u[8 * k + (size_t)j];
        eptr[++e] = p;
    }
    for (size_t k = 0; k < tetra->n; k++) {
        for (int j = 0; j < 4; j++)
            eind[p++] = (idx_t)tetra->u[4 * k + (size_t)j];
        eptr[++e] = p;
    }
    idx_t *xadj, *adjncy;
    cr_assert_eq(METIS_MeshToNodal(&ne, &n, eptr, eind, &numflag, &xadj, &adjncy), METIS_OK);
    cr_assert_eq(METIS_NodeND(&n, xadj, adjncy, NULL, NULL, perm, iperm), METIS_OK);
    METIS_Free(xadj);
    METIS_Free(adjncy);
    free(eptr);
    free(eind);
}

/* Non-zeros of the Cholesky factor L (diagonal included) of a matrix
 * coupling every two points of an element, eliminated in the order
 * order[0], order[1], ... (symbolic elimination on a dense pattern). */
static size_t factor_nnz(size_t n, const st_array *hexa, const st_array *tetra,
                         const unsigned *order)
{
    unsigned char *a = calloc(n * n, 1), *done = calloc(n, 1);
    const st_array *lists[2] = {hexa, tetra};
    const unsigned widths[2] = {8, 4};
    for (int l = 0; l < 2; l++)
        for (size_t k = 0; k < lists[l]->n; k++) {
            const unsigned *v = lists[l]->u + widths[l] * k;
            for (unsigned i = 0; i < widths[l]; i++)
                for (unsigned j = 0; j < widths[l]; j++)
                    a[(size_t)v[i] * n + v[j]] = 1;
        }
    size_t nnz = 0;
    unsigned *nb = malloc(n * sizeof *nb);
    for (size_t k = 0; k < n; k++) {
        const unsigned v = order[k];
        size_t m = 0;
        for (size_t j = 0; j < n; j++)
            if (j != v && !done[j] && a[(size_t)v * n + j])
                nb[m++] = (unsigned)j;
        nnz += m + 1;
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < m; j++)
                a[(size_t)nb[i] * n + nb[j]] = 1;
        done[v] = 1;
    }
    free(a), free(done), free(nb);
    return nnz;
}

/* permutation is a permutation, invPermutation its inverse, position and
 * the elements follow them. */
static void check_permuted(st_component *fro, st_component *topo, st_component *dofs)
{
    const st_array *perm = field(fro, "permutation"), *iperm = field(fro, "invPermutation");
    const st_array *pos = field(fro, "position"), *x = field(dofs, "position");
    const st_array *hexa = elements(topo, ST_T_HEXAS), *tetra = elements(topo, ST_T_TETRAS);
    const size_t n = x->n;
    cr_assert_gt(n, 0);
    cr_assert_eq(perm->n, n);
    cr_assert_eq(iperm->n, n);
    cr_assert_eq(pos->n, n);
    unsigned char *seen = calloc(n, 1);
    for (size_t i = 0; i < n; i++) {
        cr_assert_lt(perm->u[i], n);
        cr_assert_eq(seen[perm->u[i]], 0, "%u appears twice", perm->u[i]);
        seen[perm->u[i]] = 1;
        cr_assert_eq(iperm->u[perm->u[i]], i);
        for (int c = 0; c < 3; c++)
            cr_assert_eq(pos->r[3 * i + c], x->r[3 * perm->u[i] + c]);
    }
    free(seen);
    const st_array *oh = field(fro, "hexahedra"), *ot = field(fro, "tetrahedra");
    cr_assert_eq(oh->n, hexa->n);
    cr_assert_eq(ot->n, tetra->n);
    for (size_t k = 0; k < 8 * hexa->n; k++)
        cr_assert_eq(oh->u[k], iperm->u[hexa->u[k]]);
    for (size_t k = 0; k < 4 * tetra->n; k++)
        cr_assert_eq(ot->u[k], iperm->u[tetra->u[k]]);
}

/* check_permuted, and the permutation is METIS_NodeND's called here */
static void check_outputs(st_component *fro, st_component *topo, st_component *dofs)
{
    check_permuted(fro, topo, dofs);
    const st_array *perm = field(fro, "permutation"), *iperm = field(fro, "invPermutation");
    const size_t n = perm->n;
    idx_t *mp = malloc(n * sizeof *mp), *mi = malloc(n * sizeof *mi);
    metis_order(elements(topo, ST_T_HEXAS), elements(topo, ST_T_TETRAS), (idx_t)n, mp, mi);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(perm->u[i], (unsigned)mp[i], "permutation[%zu]", i);
        cr_assert_eq(iperm->u[i], (unsigned)mi[i], "invPermutation[%zu]", i);
    }
    free(mp), free(mi);
}

Test(fill_reducing_ordering, grid_hexahedra)
{
    st_scene *s = load("<Node name='root'>" PLUGINS
                       "<Node name='mesh'>"
                       "<RegularGridTopology name='grid' nx='7' ny='7' nz='7' min='0 0 0' "
                       "max='6 6 6'/>"
                       "<MechanicalObject name='dofs'/>"
                       "</Node>"
                       "<Node name='reordered'>"
                       "<FillReducingOrdering name='reorder' mstate='@../mesh/dofs' "
                       "topology='@../mesh/grid'/>"
                       "</Node></Node>");
    st_component *fro = test_find_object(s, "reorder"), *grid = test_find_object(s, "grid"),
                 *dofs = test_find_object(s, "dofs");
    check_outputs(fro, grid, dofs);
    const st_array *hexa = elements(grid, ST_T_HEXAS), *none = elements(grid, ST_T_TETRAS);
    cr_assert_eq(hexa->n, 216);
    const size_t n = 343;
    unsigned *id = malloc(n * sizeof *id);
    for (size_t i = 0; i < n; i++)
        id[i] = (unsigned)i;
    const size_t fill_id = factor_nnz(n, hexa, none, id);
    const size_t fill_nd = factor_nnz(n, hexa, none, field(fro, "permutation")->u);
    cr_log_info("factor non-zeros: nested dissection %zu, identity %zu", fill_nd, fill_id);
    cr_assert_lt(fill_nd, fill_id, "nested dissection %zu, identity %zu", fill_nd, fill_id);
    /* a lexicographic 7^3 grid's factor fills its band (49 + 7 + 1 below
     * the diagonal for an inner point) */
    cr_assert_gt(fill_id, 343 * 40);
    free(id);
    st_scene_destroy(&s);
}

/* A 4 x 3 x 3 grid of points (3 x 2 x 2 cubes) cut into 6 tetrahedra per
 * cube (Kuhn's split), listed in a MeshTopology with one hexahedron too. */
static char *tet_scene(const char *extra)
{
    enum { NX = 4, NY = 3, NZ = 3 };
    size_t cap = 65536, len = 0;
    char *x = malloc(cap);
    len += (size_t)snprintf(x + len, cap - len,
                            "<Node name='root'>" PLUGINS
                            "<Node name='mesh'><MeshTopology name='topo' position='");
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                len += (size_t)snprintf(x + len, cap - len, "%d %d %d ", i, j, k);
    len += (size_t)snprintf(x + len, cap - len, "' tetrahedra='");
    static const int kuhn[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7},
                                   {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};
    for (int k = 0; k < NZ - 1; k++)
        for (int j = 0; j < NY - 1; j++)
            for (int i = 1; i < NX - 1; i++) {
                int v[8];
                for (int c = 0; c < 8; c++)
                    v[c] = (i + (c & 1)) + NX * ((j + (c >> 1 & 1)) + NY * (k + (c >> 2)));
                for (int t = 0; t < 6; t++)
                    len += (size_t)snprintf(x + len, cap - len, "%d %d %d %d ", v[kuhn[t][0]],
                                            v[kuhn[t][1]], v[kuhn[t][2]], v[kuhn[t][3]]);
            }
    /* the cubes at i = 0 as hexahedra (SOFA's vertex order) */
    len += (size_t)snprintf(x + len, cap - len, "' hexahedra='");
    for (int k = 0; k < NZ - 1; k++)
        for (int j = 0; j < NY - 1; j++) {
            const int b = NX * (j + NY * k);
            len += (size_t)snprintf(x + len, cap - len, "%d %d %d %d %d %d %d %d ", b, b + 1,
                                    b + 1 + NX, b + NX, b + NX * NY, b + 1 + NX * NY,
                                    b + 1 + NX + NX * NY, b + NX + NX * NY);
        }
    len += (size_t)snprintf(x + len, cap - len,
                            "'/><MechanicalObject name='dofs'/></Node>%s</Node>", extra);
    return x;
}

Test(fill_reducing_ordering, tetrahedra_and_hexahedra)
{
    char *xml = tet_scene("<Node name='reordered'><FillReducingOrdering name='reorder' "
                          "mstate='@../mesh/dofs' topology='@../mesh/topo' orderingMethod='0'/>"
                          "</Node>");
    st_scene *s = load(xml);
    free(xml);
    st_component *topo = test_find_object(s, "topo");
    cr_assert_eq(elements(topo, ST_T_TETRAS)->n, 6 * 2 * 2 * 2);
    cr_assert_eq(elements(topo, ST_T_HEXAS)->n, 4);
    check_outputs(test_find_object(s, "reorder"), topo, test_find_object(s, "dofs"));
    st_scene_destroy(&s);
}

Test(fill_reducing_ordering, written_before_its_mesh)
{
    /* in the node before the state and the topology, and before the mesh's
     * node: computed at the end of the scene's init */
    st_scene *s = load("<Node name='root'>" PLUGINS
                       "<FillReducingOrdering name='reorder' mstate='@mesh/dofs' "
                       "topology='@mesh/grid'/>"
                       "<Node name='mesh'>"
                       "<FillReducingOrdering name='local'/>"
                       "<RegularGridTopology name='grid' nx='3' ny='4' nz='5'/>"
                       "<MechanicalObject name='dofs'/></Node></Node>");
    st_component *grid = test_find_object(s, "grid"), *dofs = test_find_object(s, "dofs");
    check_outputs(test_find_object(s, "reorder"), grid, dofs);
    check_outputs(test_find_object(s, "local"), grid, dofs);
    st_scene_destroy(&s);
}

Test(fill_reducing_ordering, context_state_and_topology)
{
    /* no links: the node's state and topology (SOFA would mark itself
     * invalid here, see fill_reducing_ordering.c) */
    st_scene *s = load("<Node name='root'>" PLUGINS
                       "<RegularGridTopology name='grid' nx='3' ny='4' nz='5'/>"
                       "<MechanicalObject name='dofs'/>"
                       "<FillReducingOrdering name='reorder'/>"
                       "</Node>");
    check_outputs(test_find_object(s, "reorder"), test_find_object(s, "grid"),
                  test_find_object(s, "dofs"));
    st_scene_destroy(&s);
}

static void expect_error(const char *xml, const char *what)
{
    st_scene *s;
    st_error err = {0};
    cr_assert_neq(test_load_init(&T, xml, "bad.scn", &s, &err), ST_OK, "%s: initialised", what);
    cr_assert_not_null(strstr(err.msg, what), "message: %s", err.msg);
}

Test(fill_reducing_ordering, methods)
{
    expect_error("<Node name='root'>" PLUGINS "<FillReducingOrdering/></Node>",
                 "No compatible MechanicalState found");
    expect_error("<Node name='root'>" PLUGINS "<MeshTopology edges='0 1  1 3'/>"
                 "<MechanicalObject position='0 0 0  1 0 0  2 0 0'/>"
                 "<FillReducingOrdering orderingMethod='approximateMinimumDegree'/></Node>",
                 "edge 1 names point 3 of 3");
    /* SOFA's own example writes "AMD": OptionsGroup warns and keeps
     * nestedDissection */
    st_scene *s = load("<Node name='root'>" PLUGINS
                       "<RegularGridTopology name='grid' nx='3' ny='3' nz='3'/>"
                       "<MechanicalObject name='dofs'/>"
                       "<FillReducingOrdering name='reorder' orderingMethod='AMD'/>"
                       "</Node>");
    cr_assert_not_null(strstr(T.log, "\"AMD\" is not a parameter in button list"), "%s", T.log);
    check_outputs(test_find_object(s, "reorder"), test_find_object(s, "grid"),
                  test_find_object(s, "dofs"));
    st_scene_destroy(&s);
}

/* approximateMinimumDegree: SOFA hands Eigen's AMDOrdering the pattern of
 * the matrix coupling the two ends of each edge of the topology (the
 * triplets (a,a) (a,b) (b,a) (b,b) of each edge, over the state's points).
 * The expected permutations were computed outside this repository by
 * Eigen 3.4's AMDOrdering<int> (Debian's libeigen3-dev, which SOFA builds
 * with) on those patterns, the topologies' edges being SOFA's (compared
 * with SOFA's own containers). */
static void expect_amd(const char *xml, const unsigned *want, size_t n)
{
    st_scene *s = load(xml);
    st_component *fro = test_find_object(s, "reorder");
    check_permuted(fro, test_find_object(s, "topo"), test_find_object(s, "dofs"));
    const st_array *perm = field(fro, "permutation");
    cr_assert_eq(perm->n, n);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(perm->u[i], want[i], "permutation[%zu] = %u, Eigen: %u", i, perm->u[i],
                     want[i]);
    const char *m = st_component_field_ptr(fro, st_component_field(fro, "orderingMethod"));
    cr_assert_str_eq(*(const char *const *)m, "approximateMinimumDegree");
    st_scene_destroy(&s);
}

#define AMD_SCENE(TOPO, DOFS)                                                                     \
    "<Node name='root'>" PLUGINS "<Node name='mesh'>" TOPO DOFS "</Node>"                         \
    "<Node name='reordered'><FillReducingOrdering name='reorder' mstate='@../mesh/dofs' "         \
    "topology='@../mesh/topo' orderingMethod='approximateMinimumDegree'/></Node></Node>"

Test(fill_reducing_ordering, amd_grids)
{
    /* 27 points, 54 edges; CXSparse's cs_amd (which drops the diagonal)
     * orders it otherwise */
    static const unsigned g333[] = {18, 9,  2, 20, 11, 23, 19, 10, 6,  24, 15, 25, 21, 22,
                                    12, 8, 17, 0,  1,  3,  4,  7,  26, 13, 5,  14, 16};
    expect_amd(AMD_SCENE("<RegularGridTopology name='topo' nx='3' ny='3' nz='3'/>",
                         "<MechanicalObject name='dofs'/>"),
               g333, 27);
    static const unsigned g432[] = {15, 3,  11, 23, 7, 19, 2,  14, 6,  18, 1,  12,
                                    13, 0,  20, 8,  22, 5, 9,  10, 16, 17, 21, 4};
    expect_amd(AMD_SCENE("<RegularGridTopology name='topo' nx='4' ny='3' nz='2' min='0 0 0' "
                         "max='3 2 1'/>",
                         "<MechanicalObject name='dofs'/>"),
               g432, 24);
}

/* A unit cube cut into 12 tetrahedra around its centre 8, and a point 9 on
 * no edge. The centre's 8 neighbours reach the dense threshold (n - 2 = 8
 * for 10 points) and point 9 has no diagonal entry: Eigen sets both aside
 * and orders them last, in index order (cs_amd would order the centre
 * among the others). */
Test(fill_reducing_ordering, amd_tetrahedra_and_a_free_point)
{
    static const unsigned want[] = {6, 4, 5, 2, 3, 0, 7, 1, 8, 9};
    expect_amd(AMD_SCENE("<MeshTopology name='topo' tetrahedra='8 0 1 3  8 0 3 2  8 4 6 7  "
                         "8 4 7 5  8 0 4 5  8 0 5 1  8 2 3 7  8 2 7 6  8 0 2 6  8 0 6 4  "
                         "8 1 5 7  8 1 7 3'/>",
                         "<MechanicalObject name='dofs' position='0 0 0  1 0 0  0 1 0  1 1 0  "
                         "0 0 1  1 0 1  0 1 1  1 1 1  0.5 0.5 0.5  5 5 5'/>"),
               want, 10);
}

/* SOFA's example, small: the same hexahedral beam simulated as meshed and
 * as reordered (positions and hexahedra from FillReducingOrdering), both
 * clamped at z = 0 by a box, with a direct solver: after 10 steps, point i
 * of the reordered beam is point permutation[i] of the original. */
Test(fill_reducing_ordering, reordered_beam_moves_as_the_original)
{
#define BODY(TOPO)                                                                                \
    "<EulerImplicitSolver rayleighStiffness='0.1' rayleighMass='0.1'/>"                           \
    "<SparseLDLSolver template='CompressedRowSparseMatrixMat3x3d'/>" TOPO                         \
    "<MechanicalObject name='dofs'/>"                                                             \
    "<UniformMass totalMass='2'/>"                                                                \
    "<BoxROI name='box' box='-0.1 -0.1 -0.1  1.1 1.1 0.1'/>"                                      \
    "<FixedProjectiveConstraint indices='@box.indices'/>"                                         \
    "<HexahedronFEMForceField youngModulus='3000' poissonRatio='0.3' method='large'/>"
    st_scene *s = load(
        "<Node name='root' dt='0.02' gravity='0 -10 0'>" PLUGINS
        "<RequiredPlugin name='Sofa.Component.ODESolver.Backward'/>"
        "<RequiredPlugin name='Sofa.Component.LinearSolver.Direct'/>"
        "<RequiredPlugin name='Sofa.Component.Mass'/>"
        "<RequiredPlugin name='Sofa.Component.Engine.Select'/>"
        "<RequiredPlugin name='Sofa.Component.Constraint.Projective'/>"
        "<RequiredPlugin name='Sofa.Component.SolidMechanics.FEM.Elastic'/>"
        "<DefaultAnimationLoop/>"
        "<Node name='mesh'>"
        "<RegularGridTopology name='grid' nx='3' ny='3' nz='6' min='0 0 0' max='1 1 3'/>"
        "<MechanicalObject name='dofs'/>"
        "</Node>"
        "<Node name='original'>" BODY(
            "<MeshTopology position='@../mesh/grid.position' hexahedra='@../mesh/grid.hexahedra'/>")
        "</Node>"
        "<Node name='reordered'>"
        "<FillReducingOrdering name='reorder' mstate='@../mesh/dofs' topology='@../mesh/grid'/>"
        BODY("<MeshTopology position='@reorder.position' hexahedra='@reorder.hexahedra'/>")
        "</Node></Node>");
#undef BODY
    st_error err = {0};
    for (int i = 0; i < 10; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_node *root = st_scene_root(s);
    st_component *a = NULL, *b = NULL;
    for (size_t k = 0; k < st_node_child_count(root); k++) {
        st_node *c = st_node_child(root, k);
        if (!strcmp(st_node_name(c), "original"))
            a = (st_component *)st_node_mstate(c);
        if (!strcmp(st_node_name(c), "reordered"))
            b = (st_component *)st_node_mstate(c);
    }
    cr_assert(a && b);
    const st_array *perm = field(test_find_object(s, "reorder"), "permutation");
    const st_array *xa = field(a, "position"), *xb = field(b, "position");
    cr_assert_eq(xa->n, 54);
    cr_assert_eq(xb->n, 54);
    double moved = 0;
    for (size_t i = 0; i < 54; i++)
        for (int c = 0; c < 3; c++) {
            const double va = xa->r[3 * perm->u[i] + c], vb = xb->r[3 * i + c];
            cr_assert_float_eq(vb, va, 1e-10, "point %zu axis %d: %g vs %g", i, c, vb, va);
        }
    const st_array *x0 = field(test_find_object(s, "reorder"), "position");
    for (size_t i = 0; i < 54; i++)
        moved = fmax(moved, fabs(xb->r[3 * i + 1] - x0->r[3 * i + 1]));
    cr_assert_gt(moved, 1e-3, "the beam did not bend");
    st_scene_destroy(&s);
}
