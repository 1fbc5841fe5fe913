/* parallel_cg_linear_solver.c - ParallelCGLinearSolver: CGLinearSolver
 * (plugins/LinearSolver.Iterative, compiled into this plugin) with SOFA's
 * task scheduler fields. Matrix-free (GraphScattered), its products run
 * through the force fields, which are parallel when they are this plugin's
 * twins; on an assembled matrix, the product runs on the pool, a fixed
 * range of rows per thread, each row summed as st_matrix_mul sums it. The
 * vector operations are CG's own, so the iterates are CGLinearSolver's to
 * the bit at any thread count. */
#include "iterative_common.h"
#include "mt_pool.h"

extern const st_class cg_linear_solver_class;

typedef struct cg_tail {
    mt_user u;
    mt_pool *pool;
    /* The current product. */
    st_csr a;
    double *q;
    const double *p;
} cg_tail;

static cg_tail *tail_of(st_component *self) { return mt_tail(self, sizeof(cg_tail)); }

static void rows_part(void *ctx, unsigned part, unsigned nparts)
{
    cg_tail *t = ctx;
    size_t b, e;
    mt_range(t->a.n, part, nparts, &b, &e);
    const int *rp = t->a.rowptr, *ci = t->a.colind;
    const double *v = t->a.values, *p = t->p;
    for (size_t i = b; i < e; i++) {
        double s = 0.0;
        for (int k = rp[i]; k < rp[i + 1]; k++)
            s += v[k] * p[ci[k]];
        t->q[i] = s;
    }
}

static void par_mul(void *ctx, const st_matrix *m, double *q, const double *p)
{
    cg_tail *t = ctx;
    st_matrix_csr(m, &t->a);
    if (t->a.n == 0) { /* nothing recorded: st_matrix_mul's zeros */
        st_matrix_mul(m, q, p);
        return;
    }
    t->q = q;
    t->p = p;
    mt_pool_run(t->pool, rows_part, t);
}

static st_status par_cg_init(st_component *self, st_error *err)
{
    cg_tail *t = tail_of(self);
    ST_TRY(cg_linear_solver_class.init(self, err));
    unsigned n;
    ST_TRY(mt_thread_count(self, &t->u, &n, NULL, err));
    return mt_pool_ensure(&t->pool, n, err);
}

static st_status par_cg_bind(st_component *self, st_system *sys, st_error *err)
{
    ST_TRY(cg_linear_solver_class.linsolver->bind(self, sys, err));
    cg_tail *t = tail_of(self);
    iter_op *op = cg_linear_solver_op(self);
    op->mul = mt_pool_threads(t->pool) > 1 ? par_mul : NULL;
    op->mul_ctx = t;
    return ST_OK;
}

static void par_cg_cleanup(st_component *self)
{
    cg_linear_solver_class.cleanup(self);
    mt_pool_destroy(&tail_of(self)->pool);
}

static const st_field par_cg_fields[] = {MT_USER_FIELDS(cg_tail, u), ST_FIELD_END};

static st_class par_class;
static st_field par_table[32];
static st_linsolver_ops par_ops;

const st_class *parallel_cg_linear_solver_class(void)
{
    if (!mt_twin_class(&par_class, &cg_linear_solver_class, "ParallelCGLinearSolver",
                       "CGLinearSolver with its products on threads: matrix-free through the "
                       "parallel force fields, assembled by rows (the iterates of "
                       "CGLinearSolver, to the bit)",
                       sizeof(cg_tail), par_cg_fields, par_table,
                       sizeof par_table / sizeof *par_table))
        return NULL;
    par_ops = *cg_linear_solver_class.linsolver;
    par_ops.bind = par_cg_bind;
    par_class.linsolver = &par_ops;
    par_class.init = par_cg_init;
    par_class.reinit = par_cg_init;
    par_class.cleanup = par_cg_cleanup;
    return &par_class;
}
