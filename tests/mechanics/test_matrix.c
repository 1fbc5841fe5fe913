/* test_matrix.c - block sparse assembly (framework/mechanics/matrix.c): the pattern
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

Test(matrix, changed_calls_grow_the_pattern)
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
    /* Same number of calls, different block: also detected. The pattern
     * only grows: the block (0, 4) stays, holding zero. */
    cr_assert_eq(st_component_set(f.tb, "pairs", "0 2 0 3", &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(m, f.sys, 1, 0, -1, &err), ST_OK, "%s", err.msg);
    st_matrix_csr(m, &a);
    unsigned long v2 = a.pattern_version;
    cr_assert_neq(v2, v1);
    cr_assert(present(&a, 0, 9) && present(&a, 0, 12));
    cr_assert(fabs(entry(&a, 0, 9) + 0.25) < 1e-15);
    cr_assert_eq(entry(&a, 0, 12), 0.0);
    /* Back to a set inside the pattern: new slots, same pattern. */
    cr_assert_eq(st_component_set(f.tb, "pairs", "0 4", &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(m, f.sys, 1, 0, -1, &err), ST_OK, "%s", err.msg);
    st_matrix_csr(m, &a);
    cr_assert_eq(a.pattern_version, v2);
    cr_assert(fabs(entry(&a, 0, 12) + 0.25) < 1e-15);
    cr_assert_eq(entry(&a, 0, 9), 0.0);
    cr_assert_eq(entry(&a, 0, 6), 0.0);
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

/* ---- changing active sets (ABI 2.2) ---- */

/* A contact-like force field: unilateral springs between candidate pairs
 * of points, active only while the two points are closer than "rest"
 * (they repel, never attract), so the set of blocks it writes changes from
 * step to step. With "reserve" it declares every candidate pair once
 * (reserve_pattern). */
typedef struct test_contact {
    st_component base;
    st_array pairs;
    double stiffness, rest;
    bool reserve;
    unsigned char *active;  /* per pair, from the last add_force */
    double *dir;            /* per pair: unit direction j - i, and length */
    size_t npairs;
} test_contact;

static const st_field test_contact_fields[] = {
    ST_UINTS(test_contact, pairs, "pairs", NULL, "candidate vertex pairs"),
    ST_REAL(test_contact, stiffness, "stiffness", "100", "penalty stiffness"),
    ST_REAL(test_contact, rest, "rest", "1", "contact distance"),
    ST_BOOL(test_contact, reserve, "reserve", "true", "declare the candidate blocks"),
    ST_FIELD_END};

static st_status tc_init(st_component *self, st_error *err)
{
    test_contact *t = (test_contact *)self;
    t->npairs = t->pairs.n / 2;
    t->active = st_calloc(t->npairs ? t->npairs : 1, 1);
    t->dir = st_calloc(t->npairs ? 4 * t->npairs : 1, sizeof *t->dir);
    if (!t->active || !t->dir)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    return ST_OK;
}

static void tc_cleanup(st_component *self)
{
    test_contact *t = (test_contact *)self;
    st_free(t->active);
    st_free(t->dir);
}

static void tc_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp;
    (void)v;
    test_contact *t = (test_contact *)self;
    st_mstate *ms = st_component_mstate(self);
    double *fs = st_slice(f, ms);
    const double *xs = st_slice_x(x, ms);
    for (size_t k = 0; k < t->npairs; k++) {
        unsigned i = t->pairs.u[2 * k], j = t->pairs.u[2 * k + 1];
        double d[3], len = 0.0;
        for (int a = 0; a < 3; a++) {
            d[a] = xs[3 * j + a] - xs[3 * i + a];
            len += d[a] * d[a];
        }
        len = sqrt(len);
        t->active[k] = len < t->rest && len > 0.0;
        if (!t->active[k])
            continue;
        for (int a = 0; a < 3; a++)
            t->dir[4 * k + a] = d[a] / len;
        t->dir[4 * k + 3] = len;
        double pen = t->rest - len;
        for (int a = 0; a < 3; a++) {
            fs[3 * i + a] -= t->stiffness * pen * t->dir[4 * k + a];
            fs[3 * j + a] += t->stiffness * pen * t->dir[4 * k + a];
        }
    }
}

/* K of one active pair on (j, j): -k (n n^T) - k pen / len (I - n n^T)
 * (the full derivative of the repulsion); (i, i) the same, (i, j) its
 * opposite. */
static void tc_block(const test_contact *t, size_t k, double b[9])
{
    const double *n = &t->dir[4 * k];
    double len = t->dir[4 * k + 3], pen = t->rest - len;
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++) {
            double nn = n[a] * n[c];
            b[3 * a + c] = -t->stiffness * nn + t->stiffness * pen / len * ((a == c) - nn);
        }
}

static void tc_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    (void)mp;
    (void)bfactor;
    test_contact *t = (test_contact *)self;
    st_mstate *ms = st_component_mstate(self);
    double *d = st_slice(df, ms);
    const double *u = st_slice(dx, ms);
    for (size_t k = 0; k < t->npairs; k++) {
        if (!t->active[k])
            continue;
        unsigned i = t->pairs.u[2 * k], j = t->pairs.u[2 * k + 1];
        double b[9];
        tc_block(t, k, b);
        for (int a = 0; a < 3; a++)
            for (int c = 0; c < 3; c++) {
                double r = kfactor * b[3 * a + c] * (u[3 * j + c] - u[3 * i + c]);
                d[3 * j + a] += r;
                d[3 * i + a] -= r;
            }
    }
}

static void tc_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    test_contact *t = (test_contact *)self;
    st_mstate *ms = st_component_mstate(self);
    for (size_t k = 0; k < t->npairs; k++) {
        if (!t->active[k])
            continue;
        unsigned i = t->pairs.u[2 * k], j = t->pairs.u[2 * k + 1];
        double b[9], nb[9];
        tc_block(t, k, b);
        for (int a = 0; a < 9; a++) {
            b[a] *= kfactor;
            nb[a] = -b[a];
        }
        st_matrix_add_block(m, ms, i, ms, i, b);
        st_matrix_add_block(m, ms, j, ms, j, b);
        st_matrix_add_block(m, ms, i, ms, j, nb);
        st_matrix_add_block(m, ms, j, ms, i, nb);
    }
}

static void tc_reserve(st_component *self, const st_mparams *mp, st_matrix *m)
{
    (void)mp;
    test_contact *t = (test_contact *)self;
    if (!t->reserve)
        return;
    st_mstate *ms = st_component_mstate(self);
    for (size_t k = 0; k < t->npairs; k++)
        st_matrix_reserve_block(m, ms, t->pairs.u[2 * k], ms, t->pairs.u[2 * k + 1]);
}

static const st_forcefield_ops tc_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = tc_add_force,
    .add_dforce = tc_add_dforce,
    .add_k_to_matrix = tc_add_k,
    .reserve_pattern = tc_reserve,
};

static const st_class test_contact_class = {
    .struct_size = sizeof(st_class),
    .name = "TestContact",
    .category = "ForceField",
    .description = "contact-like unilateral springs",
    .instance_size = sizeof(test_contact),
    .fields = test_contact_fields,
    .init = tc_init,
    .cleanup = tc_cleanup,
    .forcefield = &tc_ops,
};

/* 24 particles on a line, 0.9 apart, neighbours joined by springs of rest
 * length 0.9, with alternating velocities: the chain oscillates, and
 * neighbours come closer than the contact distance 0.85 and part again
 * all the time. Runs 1000 steps of EulerImplicitSolver with the given linear
 * solver and returns the final positions, the number of contact-set
 * changes, the allocations after the first step, and the symbolic
 * analyses. */
#define NP 24
typedef struct contact_run {
    double x[3 * NP];
    int changes;
    unsigned long allocs;
    long analyses;
} contact_run;

static void run_contacts(bool reserve, const char *solver, contact_run *out)
{
    test_rt t;
    test_rt_open(&t);
    st_error err = {0};
    cr_assert_eq(st_registry_add(st_runtime_registry(t.rt), &test_contact_class, &err), ST_OK,
                 "%s", err.msg);
    char pos[2048] = "", vel[2048] = "", pairs[2048] = "", springs[2048] = "";
    size_t lp = 0, lv = 0, lq = 0, ls_ = 0;
    for (int i = 0; i < NP; i++) {
        lp += (size_t)snprintf(pos + lp, sizeof pos - lp, "%s%g,%g,0", i ? ", " : "", 0.9 * i,
                               0.01 * (i % 3));
        lv += (size_t)snprintf(vel + lv, sizeof vel - lv, "%s%g,0,0", i ? ", " : "",
                               (i % 2 ? -2.0 : 2.0) * (1 + 0.1 * (i % 5)));
        if (i + 1 < NP)
            ls_ += (size_t)snprintf(springs + ls_, sizeof springs - ls_, "%s%d %d 50 0 0.9",
                                    i ? ", " : "", i, i + 1);
        for (int d = 1; d <= 2 && i + d < NP; d++)
            lq += (size_t)snprintf(pairs + lq, sizeof pairs - lq, "%s%d,%d", lq ? ", " : "", i,
                                   i + d);
    }
    char yaml[8192];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  dt: 0.01\n"
             "  gravity: [0, 0, 0]\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct, "
             "LinearSolver.Iterative, Mass, SolidMechanics.Spring]}\n"
             "    - EulerImplicitSolver: {}\n"
             "    - %s\n"
             "    - MechanicalObject: {name: dofs, position: [%s], velocity: [%s]}\n"
             "    - UniformMass: {totalMass: 24}\n"
             "    - SpringForceField: {spring: [%s]}\n"
             "    - TestContact: {name: tc, pairs: [%s], stiffness: 500, rest: 0.85, reserve: %s}\n",
             solver, pos, vel, springs, pairs, reserve ? "true" : "false");
    st_scene *s = NULL;
    cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "%s\n%s", err.msg, t.log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s\n%s", err.msg, t.log);
    st_component *tc = test_find_object(s, "tc");
    st_component *ls = test_find_object(s, "ls");
    cr_assert(tc && ls);
    test_contact *c = (test_contact *)tc;
    unsigned char prev[3 * NP] = {0};
    out->changes = 0;
    unsigned long before = 0;
    for (int k = 0; k < 1000; k++) {
        cr_assert_eq(st_scene_step(s, 0.0, &err), ST_OK, "step %d: %s", k, err.msg);
        if (k == 0)
            before = st_alloc_count();
        if (k > 0 && memcmp(prev, c->active, c->npairs) != 0)
            out->changes++;
        memcpy(prev, c->active, c->npairs);
    }
    out->allocs = st_alloc_count() - before;
    out->analyses = -1;
    const st_field *fa = st_component_field(ls, "symbolicAnalyses");
    if (fa)
        out->analyses = *(const int *)st_component_field_ptr(ls, fa);
    st_mstate *ms = st_component_mstate(tc);
    memcpy(out->x, ms->position.r, sizeof out->x);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(matrix, changing_active_set_inside_declared_pattern_costs_nothing, .timeout = 120)
{
    contact_run r, g, cg;
    run_contacts(true, "SparseLDLSolver: {name: ls}", &r);
    /* The active set really changes, many times. */
    cr_assert_gt(r.changes, 20, "only %d changes of the active set", r.changes);
    cr_assert_eq(r.allocs, 0, "%lu allocations after the first step", r.allocs);
    cr_assert_eq(r.analyses, 1, "%ld symbolic analyses", r.analyses);
    /* Without the declaration: the pattern grows to the union of what was
     * written (a few rebuilds), with the same trajectory. */
    run_contacts(false, "SparseLDLSolver: {name: ls}", &g);
    cr_log_info("contacts: %d changes, %lu allocs, %ld analyses; without reserve %ld analyses\n", r.changes, r.allocs, r.analyses, g.analyses);
    cr_assert_gt(g.analyses, 1);
    cr_assert_lt(g.analyses, g.changes, "%ld analyses for %d changes", g.analyses, g.changes);
    /* And the matrix-free path agrees. */
    run_contacts(true,
                 "CGLinearSolver: {name: ls, iterations: 500, tolerance: 1e-14, threshold: 1e-20}",
                 &cg);
    for (int i = 0; i < 3 * NP; i++) {
        cr_assert(fabs(r.x[i] - g.x[i]) < 1e-9, "x[%d]: %.17g vs %.17g", i, r.x[i], g.x[i]);
        cr_assert(fabs(r.x[i] - cg.x[i]) < 1e-6, "x[%d]: %.17g vs CG %.17g", i, r.x[i], cg.x[i]);
    }
}

/* ABI 2.5: one component's own contribution, no projection, no other
 * component; a mass gives its M; a component of no matrix role or of
 * another system is refused with its path. */
Test(matrix, one_component_alone)
{
    fixture f;
    open_fixture(&f, "0, 2, 1, 3");
    st_error err = {0};
    st_matrix *m = NULL;
    cr_assert_eq(st_matrix_create_component(f.sys, f.tb, &m, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(m, f.sys, 3.0, 0.0, 1.0, &err), ST_OK, "%s", err.msg);
    st_csr a;
    st_matrix_csr(m, &a);
    cr_assert_eq(a.n, 15u);
    /* No mass (mf 3 ignored: not a mass), the fixed vertex 1 keeps its block. */
    cr_assert_eq(entry(&a, 0, 0), 0.0);
    cr_assert(fabs(entry(&a, 0, 6 + 1) - 0.25 * 2) < 1e-15, "block (0,2) entry (0,1)");
    cr_assert(fabs(entry(&a, 3, 9) - 0.25 * 1) < 1e-15, "block (1,3) not projected");
    st_matrix_destroy(&m);

    st_component *mass = st_node_find(st_scene_root(f.s), ST_ROLE_MASS, ST_SEARCH_DOWN);
    cr_assert_not_null(mass);
    cr_assert_eq(st_matrix_create_component(f.sys, mass, &m, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_matrix_assemble(m, f.sys, 1.0, 0.0, 1.0, &err), ST_OK, "%s", err.msg);
    st_matrix_csr(m, &a);
    for (size_t i = 0; i < a.n; i++)
        for (size_t j = 0; j < a.n; j++)
            cr_assert_eq(entry(&a, i, j), i == j ? 2.0 : 0.0, "M(%zu,%zu)", i, j);
    st_matrix_destroy(&m);

    st_component *solver = st_node_find(st_scene_root(f.s), ST_ROLE_ODESOLVER, ST_SEARCH_DOWN);
    cr_assert_eq(st_matrix_create_component(f.sys, solver, &m, &err), ST_EINVAL);
    cr_assert_null(m);
    cr_assert(strstr(err.msg, "neither a force field nor a mass"), "%s", err.msg);
    cr_assert_eq(st_matrix_create_component(f.sys, NULL, &m, &err), ST_EINVAL);
    close_fixture(&f);

    /* A force field of another scene's system is not part of this one. */
    fixture g, h;
    open_fixture(&g, "0, 1");
    open_fixture(&h, "0, 1");
    cr_assert_eq(st_matrix_create_component(g.sys, h.tb, &m, &err), ST_EINVAL);
    cr_assert_null(m);
    cr_assert(strstr(err.msg, "not part of this mechanical system"), "%s", err.msg);
    close_fixture(&h);
    close_fixture(&g);
}
