/* btd_linear_solver.c - BTDLinearSolver: SOFA's direct solver for block
 * tridiagonal matrices (Thomas' algorithm on 6x6 blocks, SOFA's only
 * template BTDMatrix6d). The assembled matrix is read as blocks A_i (on the
 * diagonal), B_i (below) and C_i (above), i = 0 .. nb-1, nb = n / 6, and
 * factored M = L U with
 *   a_0 = A_0,  l_0 = a_0^-1 C_0,
 *   a_i = A_i - B_i l_{i-1},  l_i = a_i^-1 C_i,
 * then M x = b is solved forward, x_0 = a_0^-1 b_0,
 * x_i = a_i^-1 (b_i - B_i x_{i-1}), and backward, x_i -= l_i x_{i+1}.
 * The block size is 6 scalars whatever the state (one Rigid3d point, two
 * Vec3d points), as SOFA's BTDMatrix<6>; a system whose size is not a
 * multiple of 6 is refused (SOFA's matrix has no room for the rest).
 * Entries outside the three block diagonals are not part of SOFA's matrix:
 * SOFA drops those above the band (and writes those below it into other
 * blocks' memory); settee drops both, keeps SOFA's answer for the banded
 * part and warns once per matrix pattern, with the count and the largest
 * dropped value. A block a_i is inverted as SOFA does: 1 / diagonal when its
 * off-diagonal terms are at most 1e-10 times the diagonal term of their row,
 * else a full inverse (Gauss-Jordan with partial pivoting). O(nb) per
 * factorization and solve; no allocation after bind. */
#include <math.h>
#include <string.h>

#include "direct_common.h"

#define BTD_B 6
#define BTD_BB (BTD_B * BTD_B)

typedef struct btd_solver {
    st_component base;
    char *template_name;           /* "template" */
    bool verbose;                  /* "verbose" (ignored) */
    bool show_problem;             /* "showProblem" (ignored) */
    bool subpart_solve;            /* "subpartSolve" (ignored) */
    bool verification;             /* "verification" (ignored) */
    double block_size;             /* "blockSize" (deprecated in SOFA, ignored) */
    bool parallel_inverse;         /* "parallelInverseProduct" (ignored) */
    st_component *linear_system;   /* "linearSystem" (ignored) */
    int dropped;                   /* "droppedEntries" (settee, output) */
    /* Runtime. */
    st_system *sys;
    st_matrix *m;
    size_t n, nb;
    double *a, *b, *c;             /* nb blocks each, row-major 6x6: A_i, B_i, C_i */
    double *ainv, *lam;            /* nb blocks each: a_i^-1, l_i */
    unsigned long warned_version;  /* pattern version last warned about, 0 none */
    bool factored;
} btd_solver;

static const st_field btd_fields[] = {
    ST_STRING(btd_solver, template_name, "template", "BTDMatrix6d",
              "Matrix type: BTDMatrix6d (block tridiagonal, 6x6 blocks), SOFA's only one"),
    ST_IGNORED(btd_solver, verbose, "verbose", ST_T_BOOL, bool, "false",
               "Dump system state at each iteration"),
    ST_IGNORED(btd_solver, show_problem, "showProblem", ST_T_BOOL, bool, "false",
               "display debug information about subpartSolve computation"),
    ST_IGNORED(btd_solver, subpart_solve, "subpartSolve", ST_T_BOOL, bool, "false",
               "Allows for the computation of a subpart of the system (settee: the whole system "
               "is solved; SOFA's partial solve serves only its unbuilt constraint resolution "
               "and gives the same numbers)"),
    ST_IGNORED(btd_solver, verification, "verification", ST_T_BOOL, bool, "false",
               "verification of the subpartSolve"),
    ST_IGNORED(btd_solver, block_size, "blockSize", ST_T_REAL, double, "6",
               "Deprecated since SOFA 23.06: the block size is always 6"),
    DIRECT_F_MATRIX_SOLVER(btd_solver),
    ST_OUTPUT(btd_solver, dropped, "droppedEntries", ST_T_INT, int,
              "Non-zero entries of the last matrix outside the three block diagonals, left out "
              "of the factorization as SOFA's block tridiagonal matrix leaves them (settee)"),
    ST_FIELD_END};

static st_status btd_init(st_component *self, st_error *err)
{
    btd_solver *s = (btd_solver *)self;
    if (s->template_name && s->template_name[0] && strcmp(s->template_name, "BTDMatrix6d") != 0)
        return st_component_error(self, "template", err, ST_ESCENE,
                                  "unsupported template '%s': expected BTDMatrix6d",
                                  s->template_name);
    if (st_component_is_set(self, "blockSize"))
        st_component_warn(self, "The attribute 'blockSize' is deprecated since SOFA 23.06: the "
                                "block size is always 6");
    return ST_OK;
}

static void btd_free(btd_solver *s)
{
    st_free(s->a);
    st_free(s->b);
    st_free(s->c);
    st_free(s->ainv);
    st_free(s->lam);
    s->a = s->b = s->c = s->ainv = s->lam = NULL;
    st_matrix_destroy(&s->m);
}

static st_status btd_bind(st_component *self, st_system *sys, st_error *err)
{
    btd_solver *s = (btd_solver *)self;
    btd_free(s);
    s->sys = sys;
    s->factored = false;
    s->warned_version = 0;
    if (sys->size % BTD_B != 0)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "the system has %zu degrees of freedom, not a multiple of the "
                                  "block size 6 (BTDMatrix6d: one Rigid3d point or two Vec3d "
                                  "points per block)",
                                  sys->size);
    ST_TRY(st_matrix_create(sys, &s->m, err));
    s->n = sys->size;
    s->nb = sys->size / BTD_B;
    size_t bytes = (s->nb ? s->nb : 1) * BTD_BB * sizeof(double);
    s->a = st_malloc(bytes);
    s->b = st_malloc(bytes);
    s->c = st_malloc(bytes);
    s->ainv = st_malloc(bytes);
    s->lam = st_malloc(bytes);
    if (!s->a || !s->b || !s->c || !s->ainv || !s->lam)
        return st_component_error(self, NULL, err, ST_ENOMEM,
                                  "out of memory for %zu blocks of 6x6", s->nb);
    return ST_OK;
}

/* inv = m^-1 (6x6, row-major) as SOFA's BTDLinearSolver::invert: the
 * reciprocal diagonal when every row's off-diagonal terms are within 1e-10
 * times its diagonal term, else Gauss-Jordan with partial pivoting. SOFA
 * checks only the terms right of the diagonal (exact for the symmetric
 * blocks of a symmetric matrix); settee checks both sides so that a
 * non-symmetric block is never inverted as a diagonal one. False when m is
 * singular. */
static bool invert6(double *inv, const double *m)
{
    bool diagonal = true;
    for (int i = 0; i < BTD_B && diagonal; i++) {
        double eps = m[i * BTD_B + i] * 1.0e-10;
        for (int j = 0; j < BTD_B; j++)
            if (j != i && (fabs(m[i * BTD_B + j]) > eps || fabs(m[j * BTD_B + i]) > eps)) {
                diagonal = false;
                break;
            }
    }
    if (diagonal) {
        memset(inv, 0, BTD_BB * sizeof *inv);
        for (int i = 0; i < BTD_B; i++) {
            if (m[i * BTD_B + i] == 0.0)
                return false;
            inv[i * BTD_B + i] = 1.0 / m[i * BTD_B + i];
        }
        return true;
    }
    double w[BTD_B][2 * BTD_B];
    for (int i = 0; i < BTD_B; i++)
        for (int j = 0; j < BTD_B; j++) {
            w[i][j] = m[i * BTD_B + j];
            w[i][BTD_B + j] = i == j ? 1.0 : 0.0;
        }
    for (int k = 0; k < BTD_B; k++) {
        int p = k;
        for (int i = k + 1; i < BTD_B; i++)
            if (fabs(w[i][k]) > fabs(w[p][k]))
                p = i;
        if (w[p][k] == 0.0 || !isfinite(w[p][k]))
            return false;
        if (p != k)
            for (int j = 0; j < 2 * BTD_B; j++) {
                double t = w[k][j];
                w[k][j] = w[p][j];
                w[p][j] = t;
            }
        double d = 1.0 / w[k][k];
        for (int j = 0; j < 2 * BTD_B; j++)
            w[k][j] *= d;
        for (int i = 0; i < BTD_B; i++) {
            if (i == k || w[i][k] == 0.0)
                continue;
            double f = w[i][k];
            for (int j = 0; j < 2 * BTD_B; j++)
                w[i][j] -= f * w[k][j];
        }
    }
    for (int i = 0; i < BTD_B; i++)
        for (int j = 0; j < BTD_B; j++)
            inv[i * BTD_B + j] = w[i][BTD_B + j];
    return true;
}

/* r = p q (6x6). */
static void mul6(double *r, const double *p, const double *q)
{
    for (int i = 0; i < BTD_B; i++)
        for (int j = 0; j < BTD_B; j++) {
            double s = 0.0;
            for (int k = 0; k < BTD_B; k++)
                s += p[i * BTD_B + k] * q[k * BTD_B + j];
            r[i * BTD_B + j] = s;
        }
}

/* y = p x (6x6 times 6). */
static void mulv6(double *y, const double *p, const double *x)
{
    for (int i = 0; i < BTD_B; i++) {
        double s = 0.0;
        for (int k = 0; k < BTD_B; k++)
            s += p[i * BTD_B + k] * x[k];
        y[i] = s;
    }
}

static st_status btd_set_system(st_component *self, st_system *sys, double mf, double bf,
                                double kf, st_error *err)
{
    btd_solver *s = (btd_solver *)self;
    if (!s->m || s->sys != sys)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    s->factored = false;
    ST_TRY(st_matrix_assemble(s->m, sys, mf, bf, kf, err));
    st_csr a;
    st_matrix_csr(s->m, &a);
    const size_t nb = s->nb;
    if (nb == 0)
        return ST_OK;
    size_t bytes = nb * BTD_BB * sizeof(double);
    memset(s->a, 0, bytes);
    memset(s->b, 0, bytes);
    memset(s->c, 0, bytes);
    /* The three block diagonals; the rest counted and dropped. */
    int dropped = 0;
    double dropped_max = 0.0;
    for (size_t r = 0; r < a.n; r++) {
        size_t bi = r / BTD_B, ri = r % BTD_B;
        for (int k = a.rowptr[r]; k < a.rowptr[r + 1]; k++) {
            size_t col = (size_t)a.colind[k];
            size_t bj = col / BTD_B, cj = col % BTD_B;
            double v = a.values[k];
            double *dst = bj == bi ? s->a : bj + 1 == bi ? s->b : bj == bi + 1 ? s->c : NULL;
            if (dst) {
                dst[bi * BTD_BB + ri * BTD_B + cj] += v;
            } else if (v != 0.0) {
                dropped++;
                dropped_max = fmax(dropped_max, fabs(v));
            }
        }
    }
    s->dropped = dropped;
    if (dropped > 0 && s->warned_version != a.pattern_version) {
        s->warned_version = a.pattern_version;
        st_component_warn(self,
                          "the matrix has %d non-zero entries outside its three block diagonals "
                          "(6x6 blocks; largest magnitude %g): they are left out of the "
                          "factorization, as SOFA's BTDMatrix6d leaves them, so the solution "
                          "is that of the banded part only. Order the points along the "
                          "structure (a chain of beams) or use SparseLDLSolver",
                          dropped, dropped_max);
    }
    /* Factorization: a_i = A_i - B_i l_{i-1}, l_i = a_i^-1 C_i. */
    double t[BTD_BB];
    for (size_t i = 0; i < nb; i++) {
        double *ai = s->a + i * BTD_BB;
        if (i > 0) {
            mul6(t, s->b + i * BTD_BB, s->lam + (i - 1) * BTD_BB);
            for (int k = 0; k < BTD_BB; k++)
                ai[k] -= t[k];
        }
        if (!invert6(s->ainv + i * BTD_BB, ai))
            return st_component_error(self, NULL, err, ST_ESOLVER,
                                      "the diagonal block %zu of the block LU factorization "
                                      "(degrees of freedom %zu to %zu) is singular at t=%g",
                                      i, i * BTD_B, i * BTD_B + BTD_B - 1,
                                      st_node_time(self->node));
        if (i + 1 < nb)
            mul6(s->lam + i * BTD_BB, s->ainv + i * BTD_BB, s->c + i * BTD_BB);
    }
    s->factored = true;
    return ST_OK;
}

static st_status btd_solve(st_component *self, st_system *sys, double *x, const double *b,
                           st_error *err)
{
    (void)sys;
    btd_solver *s = (btd_solver *)self;
    const size_t nb = s->nb;
    if (nb == 0)
        return ST_OK;
    if (!s->factored)
        return st_component_error(self, NULL, err, ST_ESTATE,
                                  "solve called before the matrix was factored");
    double r[BTD_B], y[BTD_B];
    /* Forward: x_i = a_i^-1 (b_i - B_i x_{i-1}). */
    for (size_t i = 0; i < nb; i++) {
        memcpy(r, b + i * BTD_B, sizeof r);
        if (i > 0) {
            mulv6(y, s->b + i * BTD_BB, x + (i - 1) * BTD_B);
            for (int k = 0; k < BTD_B; k++)
                r[k] -= y[k];
        }
        mulv6(x + i * BTD_B, s->ainv + i * BTD_BB, r);
    }
    /* Backward: x_i -= l_i x_{i+1}. */
    for (size_t i = nb - 1; i-- > 0;) {
        mulv6(y, s->lam + i * BTD_BB, x + (i + 1) * BTD_B);
        for (int k = 0; k < BTD_B; k++)
            x[i * BTD_B + k] -= y[k];
    }
    return ST_OK;
}

static void btd_cleanup(st_component *self) { btd_free((btd_solver *)self); }

static const st_linsolver_ops btd_ops = {
    .struct_size = sizeof(st_linsolver_ops),
    .bind = btd_bind,
    .set_system = btd_set_system,
    .solve = btd_solve,
};

const st_class btd_linear_solver_class = {
    .struct_size = sizeof(st_class),
    .name = "BTDLinearSolver",
    .category = "LinearSolver",
    .description = "Linear system solver using Thomas Algorithm for Block Tridiagonal matrices "
                   "(6x6 blocks)",
    .instance_size = sizeof(btd_solver),
    .fields = btd_fields,
    .init = btd_init,
    .cleanup = btd_cleanup,
    .linsolver = &btd_ops,
};
