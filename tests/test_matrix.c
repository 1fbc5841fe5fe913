/* test_matrix.c - block sparse assembly (framework/matrix.c): the pattern
 * is built once and re-assembly neither searches nor allocates; the pattern
 * is symmetric with sorted columns and every diagonal; factors and Rayleigh
 * coefficients; projection of constrained DOFs; the product agrees with the
 * matrix-free one; a changed call sequence rebuilds the pattern. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

/* A test force field: for each pair (i, j) of "pairs" it adds the block
 * value * B (B[a][b] = 1 + 3a + b) at (i, j); add_dforce applies the same
 * operator, so assembled and matrix-free products must agree. */
typedef struct test_blocks {
    st_component base;
    st_array pairs;
    double value;
    double rayleigh;
} test_blocks;

static const st_field test_blocks_fields[] = {
    ST_UINTS(test_blocks, pairs, "pairs", NULL, "vertex pairs"),
    ST_REAL(test_blocks, value, "value", "1", "scale"),
    ST_REAL(test_blocks, rayleigh, "rayleighStiffness", "0", "Rayleigh stiffness"),
    ST_FIELD_END};

static void tb_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
}

static void tb_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    test_blocks *t = (test_blocks *)self;
    st_mstate *ms = st_component_mstate(self);
    double *d = st_slice(df, ms);
    const double *x = st_slice(dx, ms);
    for (size_t k = 0; k + 1 < t->pairs.n; k += 2) {
        unsigned i = t->pairs.u[k], j = t->pairs.u[k + 1];
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                d[3 * i + a] += kfactor * t->value * (1 + 3 * a + b) * x[3 * j + b];
    }
}

static void tb_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    test_blocks *t = (test_blocks *)self;
    st_mstate *ms = st_component_mstate(self);
    for (size_t k = 0; k + 1 < t->pairs.n; k += 2) {
        double b[9];
        for (int a = 0; a < 9; a++)
            b[a] = kfactor * t->value * (1 + a);
        st_matrix_add_block(m, ms, t->pairs.u[k], ms, t->pairs.u[k + 1], b);
    }
}

static double tb_rayleigh(const st_component *self) { return ((const test_blocks *)self)->rayleigh; }

static const st_forcefield_ops tb_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = tb_add_force,
    .add_dforce = tb_add_dforce,
    .add_k_to_matrix = tb_add_k,
    .rayleigh_stiffness = tb_rayleigh,
};

static const st_class test_blocks_class = {
    .struct_size = sizeof(st_class),
    .name = "TestBlocks",
    .category = "ForceField",
    .description = "test blocks",
    .instance_size = sizeof(test_blocks),
    .fields = test_blocks_fields,
    .forcefield = &tb_ops,
};

typedef struct fixture {
    test_rt t;
    st_scene *s;
    st_system *sys;
    st_component *tb;
} fixture;

/* 5 vertices, UniformMass 10 (2 per vertex, rayleighMass 0.5), TestBlocks,
 * vertex 1 fixed; solved by EulerImplicitSolver + SparseLDLSolver. */
static void open_fixture(fixture *f, const char *pairs)
{
    test_rt_open(&f->t);
    st_error err = {0};
    cr_assert_eq(st_registry_add(st_runtime_registry(f->t.rt), &test_blocks_class, &err), ST_OK,
                 "%s", err.msg);
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct, Mass,\n"
             "                                    Constraint.Projective]}\n"
             "    - EulerImplicitSolver: {}\n"
             "    - SparseLDLSolver: {}\n"
             "    - MechanicalObject: {name: dofs, position: [0,0,0, 1,0,0, 2,0,0, 3,0,0, "
             "4,0,0]}\n"
             "    - UniformMass: {totalMass: 10, rayleighMass: 0.5}\n"
             "    - TestBlocks: {name: tb, pairs: [%s], value: 0.25, rayleighStiffness: 0.2}\n"
             "    - FixedProjectiveConstraint: {indices: [1]}\n",
             pairs);
    cr_assert_eq(test_load_string(&f->t, yaml, &f->s, &err), ST_OK, "%s\n%s", err.msg, f->t.log);
    cr_assert_eq(st_scene_init(f->s, &err), ST_OK, "%s\n%s", err.msg, f->t.log);
    f->sys = f->s->systems[0];
    st_component *all[16];
    size_t n = st_node_find_all(st_scene_root(f->s), ST_ROLE_FORCEFIELD, ST_SEARCH_DOWN, all, 16);
    f->tb = NULL;
    for (size_t i = 0; i < n; i++)
        if (all[i]->cls == &test_blocks_class)
            f->tb = all[i];
    cr_assert_not_null(f->tb);
}

static void close_fixture(fixture *f)
{
    st_scene_destroy(&f->s);
    test_rt_close(&f->t);
}

static double entry(const st_csr *a, size_t i, size_t j)
{
    for (int k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
        if ((size_t)a->colind[k] == j)
            return a->values[k];
    return 0.0;
}

static bool present(const st_csr *a, size_t i, size_t j)
{
    for (int k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
        if ((size_t)a->colind[k] == j)
            return true;
    return false;
}

Test(matrix, pattern_values_and_projection)
{
    fixture f;
    open_fixture(&f, "0, 2, 3, 4, 2, 2, 1, 3");
    st_error err = {0};
    st_matrix *m = NULL;
    cr_assert_eq(st_matrix_create(f.sys, &m, &err), ST_OK, "%s", err.msg);
    const double mf = 2, bf = -0.1, kf = -0.5;
    cr_assert_eq(st_matrix_assemble(m, f.sys, mf, bf, kf, &err), ST_OK, "%s", err.msg);
    st_csr a;
    st_matrix_csr(m, &a);
    cr_assert_eq(a.n, 15u);
    /* Blocks: 5 diagonals + (0,2),(2,0),(3,4),(4,3),(1,3),(3,1) = 11 blocks. */
    cr_assert_eq(a.nnz, 9u * 11u);
    for (size_t i = 0; i < a.n; i++) {
        cr_assert(present(&a, i, i), "diagonal %zu", i);
        for (int k = a.rowptr[i] + 1; k < a.rowptr[i + 1]; k++)
            cr_assert_lt(a.colind[k - 1], a.colind[k], "sorted row %zu", i);
        for (int k = a.rowptr[i]; k < a.rowptr[i + 1]; k++)
            cr_assert(present(&a, (size_t)a.colind[k], i), "symmetric pattern");
    }
    /* Values: mass factor mf - bf * 0.5, spring factor kf + bf * 0.2. */
    const double vm = 2.0, mfac = mf - bf * 0.5, kfac = kf + bf * 0.2;
    cr_assert(fabs(entry(&a, 0, 0) - mfac * vm) < 1e-15);
    cr_assert(fabs(entry(&a, 0, 6 + 1) - kfac * 0.25 * 2) < 1e-15, "block (0,2) entry (0,1)");
    cr_assert_eq(entry(&a, 6 + 1, 0), 0.0, "transposed slot exists but holds zero");
    /* Block (2,2) adds to the mass diagonal. */
    cr_assert(fabs(entry(&a, 6, 6) - (mfac * vm + kfac * 0.25 * 1)) < 1e-15);
    cr_assert(fabs(entry(&a, 7, 8) - kfac * 0.25 * 6) < 1e-15);
    /* Vertex 1 fixed: rows and columns 3..5 cleared, diagonal 1; the block
     * (1,3) written by the force field is gone. */
    for (size_t d = 3; d < 6; d++)
        for (size_t j = 0; j < a.n; j++) {
            cr_assert_eq(entry(&a, d, j), d == j ? 1.0 : 0.0, "row %zu col %zu", d, j);
            cr_assert_eq(entry(&a, j, d), d == j ? 1.0 : 0.0, "row %zu col %zu", j, d);
        }
    st_matrix_destroy(&m);
    close_fixture(&f);
}

Test(matrix, pattern_once_and_no_allocation)
{
    fixture f;
    open_fixture(&f, "0, 2, 3, 4, 2, 2");
    st_error err = {0};
    st_matrix *m = NULL;
    cr_assert_eq(st_matrix_create(f.sys, &m, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(m, f.sys, 1, 0, -1, &err), ST_OK, "%s", err.msg);
    st_csr a;
    st_matrix_csr(m, &a);
    unsigned long version = a.pattern_version;
    const int *rp = a.rowptr;
    double v00 = entry(&a, 0, 0);
    unsigned long before = st_alloc_count();
    for (int i = 0; i < 10; i++)
        cr_assert_eq(st_matrix_assemble(m, f.sys, 3, -0.2, -2, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_alloc_count(), before, "re-assembly allocated");
    st_matrix_csr(m, &a);
    cr_assert_eq(a.pattern_version, version);
    cr_assert_eq(a.rowptr, rp, "same storage");
    /* Values were cleared and rewritten, not accumulated. */
    cr_assert(fabs(entry(&a, 0, 0) - (3 + 0.2 * 0.5) * 2) < 1e-15, "%.17g vs first %.17g",
              entry(&a, 0, 0), v00);
    st_matrix_destroy(&m);
    close_fixture(&f);
}

Test(matrix, product_matches_matrix_free)
{
    fixture f;
    open_fixture(&f, "0, 2, 3, 4, 2, 2, 1, 3, 4, 0");
    st_error err = {0};
    st_matrix *m = NULL;
    cr_assert_eq(st_matrix_create(f.sys, &m, &err), ST_OK, "%s", err.msg);
    const double mf = 1.3, bf = -0.01, kf = -0.7;
    cr_assert_eq(st_matrix_assemble(m, f.sys, mf, bf, kf, &err), ST_OK, "%s", err.msg);
    size_t n = f.sys->size;
    double p[15], q1[15], q2[15];
    for (size_t i = 0; i < n; i++)
        p[i] = sin(1.0 + (double)i);
    /* The matrix-free product is P A p for a projected p. */
    st_system_project_response(f.sys, p);
    st_matrix_mul(m, q1, p);
    st_system_add_mbkdx(f.sys, q2, p, mf, bf, kf, true);
    st_system_project_response(f.sys, q2);
    for (size_t i = 0; i < n; i++)
        cr_assert(fabs(q1[i] - q2[i]) <= 1e-13, "row %zu: %.17g vs %.17g", i, q1[i], q2[i]);
    st_matrix_destroy(&m);
    close_fixture(&f);
}

Test(matrix, changed_calls_rebuild_the_pattern)
{
    fixture f;
    open_fixture(&f, "0, 2");
    st_error err = {0};
    st_matrix *m = NULL;
    cr_assert_eq(st_matrix_create(f.sys, &m, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(m, f.sys, 1, 0, -1, &err), ST_OK, "%s", err.msg);
    st_csr a;
    st_matrix_csr(m, &a);
    unsigned long v1 = a.pattern_version;
    cr_assert(!present(&a, 0, 12));
    cr_assert_eq(st_component_set(f.tb, "pairs", "0 2 0 4", &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(m, f.sys, 1, 0, -1, &err), ST_OK, "%s", err.msg);
    st_matrix_csr(m, &a);
    cr_assert_neq(a.pattern_version, v1);
    cr_assert(present(&a, 0, 12) && present(&a, 12, 0));
    cr_assert(fabs(entry(&a, 0, 12) + 0.25) < 1e-15);
    /* Same number of calls, different block: also detected. */
    cr_assert_eq(st_component_set(f.tb, "pairs", "0 2 0 3", &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(m, f.sys, 1, 0, -1, &err), ST_OK, "%s", err.msg);
    st_matrix_csr(m, &a);
    cr_assert(present(&a, 0, 9) && !present(&a, 0, 12));
    cr_assert(fabs(entry(&a, 0, 9) + 0.25) < 1e-15);
    st_matrix_destroy(&m);
    close_fixture(&f);
}

Test(matrix, out_of_range_vertex_is_an_error)
{
    fixture f;
    open_fixture(&f, "0, 2");
    st_error err = {0};
    st_matrix *m = NULL;
    cr_assert_eq(st_matrix_create(f.sys, &m, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_component_set(f.tb, "pairs", "0 7", &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(m, f.sys, 1, 0, -1, &err), ST_EINVAL);
    cr_assert(strstr(err.msg, "vertex 7") && strstr(err.msg, "tb"), "%s", err.msg);
    st_matrix_destroy(&m);
    close_fixture(&f);
}
