/* parallel_cg_linear_solver.c - ParallelCGLinearSolver: CGLinearSolver
 * (plugins/LinearSolver.Iterative, compiled into this plugin) with SOFA's
 * task scheduler fields. Its matrix-free products run through the force
 * fields, which are parallel when they are the Parallel* twins of this
 * plugin; the vector operations and the assembled product are CG's own,
 * sequential, so its iterates are CGLinearSolver's to the bit. */
#include <stddef.h>

#include "mt_pool.h"

extern const st_class cg_linear_solver_class;

/* CG's instance, whose size only the class knows, then the fields. */
typedef struct par_cg {
    unsigned char cg[256];
    mt_user u;
} par_cg;

static st_status par_cg_init(st_component *self, st_error *err)
{
    par_cg *s = (par_cg *)self;
    ST_TRY(cg_linear_solver_class.init(self, err));
    unsigned n;
    return mt_thread_count(self, &s->u, &n, err);
}

static const st_field par_cg_fields[] = {MT_USER_FIELDS(par_cg, u), ST_FIELD_END};

static st_class par_class;
static st_field par_table[32];

const st_class *parallel_cg_linear_solver_class(void)
{
    if (cg_linear_solver_class.instance_size > offsetof(par_cg, u))
        return NULL;
    if (!mt_twin_class(&par_class, &cg_linear_solver_class, "ParallelCGLinearSolver",
                       "CGLinearSolver whose matrix-free products go through the parallel force "
                       "fields (the iterates of CGLinearSolver, to the bit)",
                       sizeof(par_cg), par_cg_fields, par_table,
                       sizeof par_table / sizeof *par_table))
        return NULL;
    par_class.init = par_cg_init;
    return &par_class;
}
