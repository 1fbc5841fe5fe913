/* parallel_tetrahedron_fem_force_field.c - ParallelTetrahedronFEMForceField:
 * TetrahedronFEMForceField (plugins/SolidMechanics.FEM.Elastic, compiled
 * into this plugin) with addForce and addDForce run on a pool of threads.
 * Each thread computes the world-frame forces of a fixed range of elements
 * into a per-element buffer with the sequential class's own element
 * functions; then each thread adds, for a fixed range of vertices, the
 * buffer's values to its vertices in element order. That is the order of
 * the sequential loop, so the forces are the same to the bit at any thread
 * count. One thread runs the sequential class's functions directly. */
#include <string.h>

#include "mt_pool.h"
#include "tetrahedron_fem.h"

typedef struct par_tfem {
    tetra_fem fem;       /* first: the sequential instance */
    mt_user u;
    /* Runtime. */
    mt_pool *pool;
    mt_adjacency adj;
    double *g;           /* ne x 12 element values, owned */
    size_t g_n;          /* elements g holds */
    /* The current run. */
    const double *in;    /* positions (add_force) or dx (add_dforce), the state's slice */
    double *out;         /* f or df, the state's slice */
    double kfactor;
    int phase;           /* 0 force, 1 dforce, 2 sum + (force), 3 sum - (dforce) */
} par_tfem;

static void run_part(void *ctx, unsigned part, unsigned nparts)
{
    par_tfem *s = ctx;
    size_t b, e;
    switch (s->phase) {
    case 0:
        mt_range(s->fem.ne, part, nparts, &b, &e);
        tfem_forces_range(&s->fem, s->in, b, e, s->g);
        break;
    case 1:
        mt_range(s->fem.ne, part, nparts, &b, &e);
        tfem_dforces_range(&s->fem, s->in, s->kfactor, b, e, s->g);
        break;
    default:
        mt_range(s->adj.np, part, nparts, &b, &e);
        mt_adjacency_add(&s->adj, s->out, s->g, s->phase == 2 ? 1 : -1, b, e);
        break;
    }
}

/* The buffer and the adjacency for the current elements; false (run the
 * sequential loop) when they cannot be had. */
static bool ready(par_tfem *s)
{
    tetra_fem *f = &s->fem;
    if (mt_pool_threads(s->pool) < 2 || f->ne == 0)
        return false;
    if (s->g_n != f->ne) {
        st_free(s->g);
        s->g_n = 0;
        s->g = st_calloc(12 * f->ne, sizeof *s->g);
        if (!s->g)
            return false;
        s->g_n = f->ne;
    }
    st_error err = {0};
    st_status st = mt_adjacency_update(&s->adj, f->e[0].v, sizeof(tet) / sizeof(unsigned), f->ne,
                                       4, f->ms->n, &err);
    return st == ST_OK;
}

static void par_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                          const double *v)
{
    par_tfem *s = (par_tfem *)self;
    if (!ready(s)) {
        tetrahedron_fem_force_field_class.forcefield->add_force(self, mp, f, x, v);
        return;
    }
    s->in = fem_coords(x, s->fem.ms);
    s->out = fem_derivs(f, s->fem.ms);
    s->phase = 0;
    mt_pool_run(s->pool, run_part, s);
    if (tfem_has_force(&s->fem)) {
        s->phase = 2;
        mt_pool_run(s->pool, run_part, s);
    }
    tfem_add_force_finish(&s->fem);
}

static void par_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                           double kfactor, double bfactor)
{
    par_tfem *s = (par_tfem *)self;
    /* the adjacency add_force checked is still the elements' (topological
     * changes happen between steps, before add_force) */
    if (mt_pool_threads(s->pool) < 2 || !s->g || s->g_n != s->fem.ne || s->adj.ne != s->fem.ne ||
        s->adj.np != s->fem.ms->n) {
        tetrahedron_fem_force_field_class.forcefield->add_dforce(self, mp, df, dx, kfactor,
                                                                 bfactor);
        return;
    }
    s->in = fem_coords(dx, s->fem.ms);
    s->out = fem_derivs(df, s->fem.ms);
    s->kfactor = kfactor;
    s->phase = 1;
    mt_pool_run(s->pool, run_part, s);
    s->phase = 3;
    mt_pool_run(s->pool, run_part, s);
}

static st_status par_init(st_component *self, st_error *err)
{
    par_tfem *s = (par_tfem *)self;
    ST_TRY(tetrahedron_fem_force_field_class.init(self, err));
    unsigned n;
    ST_TRY(mt_thread_count(self, &s->u, &n, err));
    return mt_pool_ensure(&s->pool, n, err);
}

static void par_cleanup(st_component *self)
{
    par_tfem *s = (par_tfem *)self;
    tetrahedron_fem_force_field_class.cleanup(self);
    mt_pool_destroy(&s->pool);
    mt_adjacency_free(&s->adj);
    st_free(s->g);
    s->g = NULL;
    s->g_n = 0;
}

static const st_field par_fields[] = {MT_USER_FIELDS(par_tfem, u), ST_FIELD_END};

static st_class par_class;
static st_field par_table[96];
static st_forcefield_ops par_ops;

const st_class *parallel_tetrahedron_fem_class(void)
{
    if (!mt_twin_class(&par_class, &tetrahedron_fem_force_field_class,
                       "ParallelTetrahedronFEMForceField",
                       "TetrahedronFEMForceField with addForce and addDForce parallel over the "
                       "elements (the same forces to the bit at any thread count)",
                       sizeof(par_tfem), par_fields, par_table, sizeof par_table / sizeof *par_table))
        return NULL;
    par_ops = *tetrahedron_fem_force_field_class.forcefield;
    par_ops.add_force = par_add_force;
    par_ops.add_dforce = par_add_dforce;
    par_class.forcefield = &par_ops;
    par_class.init = par_init;
    par_class.reinit = par_init;
    par_class.cleanup = par_cleanup;
    return &par_class;
}
