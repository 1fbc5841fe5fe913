/* parallel_cg_linear_solver.c - ParallelCGLinearSolver: CGLinearSolver
 * (plugins/LinearSolver.Iterative, compiled into this plugin) with SOFA's
 * task scheduler fields. Its matrix-free products run through the force
 * fields, which are parallel when they are the Parallel* twins of this
 * plugin; the vector operations and the assembled product are CG's own,
 * sequential, so its iterates are CGLinearSolver's to the bit. */
#include "mt_pool.h"

extern const st_class cg_linear_solver_class;

static st_status par_cg_init(st_component *self, st_error *err)
{
    ST_TRY(cg_linear_solver_class.init(self, err));
    unsigned n;
    return mt_thread_count(self, mt_tail(self, sizeof(mt_user)), &n, err);
}

typedef struct mt_user_tail {
    mt_user u;
} mt_user_tail;

static const st_field par_cg_fields[] = {MT_USER_FIELDS(mt_user_tail, u), ST_FIELD_END};

static st_class par_class;
static st_field par_table[32];

const st_class *parallel_cg_linear_solver_class(void)
{
    if (!mt_twin_class(&par_class, &cg_linear_solver_class, "ParallelCGLinearSolver",
                       "CGLinearSolver whose matrix-free products go through the parallel force "
                       "fields (the iterates of CGLinearSolver, to the bit)",
                       sizeof(mt_user_tail), par_cg_fields, par_table,
                       sizeof par_table / sizeof *par_table))
        return NULL;
    par_class.init = par_cg_init;
    return &par_class;
}
