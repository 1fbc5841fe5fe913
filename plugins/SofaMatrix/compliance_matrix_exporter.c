/* compliance_matrix_exporter.c - ComplianceMatrixExporter (SOFA's SofaMatrix
 * plugin): writes the compliance matrix W = J A^-1 J^T of the constraint
 * problem a Lagrangian constraint solver built at the last step (dim x dim,
 * the constraint rows in the solver's order), on SOFA's
 * BaseSimulationExporter events, in SOFA's formats (matrix_export.h).
 *
 * The solver is the constraintSolver link, else the first constraint solver
 * (GenericConstraintSolver, LCPConstraintSolver ...) of the node and its
 * ancestors. Before the first step the problem is empty (0 x 0). exportAtEnd
 * writes the last step's matrix, kept at the end of each step. */
#include <string.h>

#include "matrix_export.h"

typedef struct cm_exporter {
    st_component base;
    sim_exporter ex;
    char *format;
    int precision;
    st_component *solver; /* "constraintSolver" */
    /* settee: the last problem's W, kept for exportAtEnd */
    double *W;
    size_t dim, cap;
    bool fresh;
} cm_exporter;

static const st_field fields[] = {
    MX_EXPORTER_FIELDS(cm_exporter),
    ST_LINK(cm_exporter, solver, "constraintSolver", ST_LINK_ANY,
            "Constraint solver used to export its compliance matrix"),
    ST_FIELD_END};

static bool tells_problem(const st_component *c)
{
    const st_csolver_ops *cs = c ? c->cls->constraint_solver : NULL;
    return cs && cs->struct_size >= offsetof(st_csolver_ops, problem) + sizeof cs->problem &&
           cs->problem;
}

static st_status cm_init(st_component *self, st_error *err)
{
    cm_exporter *e = (cm_exporter *)self;
    ST_TRY(mx_check_format(self, err));
    if (e->solver) {
        if (!tells_problem(e->solver))
            return st_component_error(self, "constraintSolver", err, ST_ELINK,
                                      "%s is a %s, not a constraint solver whose compliance "
                                      "matrix can be read (GenericConstraintSolver ...)",
                                      e->solver->name, e->solver->cls->name);
    } else {
        for (st_node *n = self->node; n && !e->solver; n = st_node_parent(n))
            for (size_t i = 0; i < st_node_object_count(n) && !e->solver; i++)
                if (tells_problem(st_node_object(n, i)))
                    e->solver = st_node_object(n, i);
        if (!e->solver)
            return st_component_error(self, "constraintSolver", err, ST_ELINK,
                                      "No constraint solver found in the current context, "
                                      "whereas it is required. This component exports the "
                                      "matrix from a constraint solver.");
    }
    e->ex.step = 0;
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

/* Keeps W of the solver's last problem. */
static st_status snapshot(st_component *self, st_error *err)
{
    cm_exporter *e = (cm_exporter *)self;
    st_cproblem p = {.struct_size = sizeof p};
    e->solver->cls->constraint_solver->problem(e->solver, &p);
    const size_t n = p.dim * p.dim;
    if (n > e->cap) {
        double *w = st_realloc(e->W, n * sizeof *w);
        if (!w)
            return st_error_set(err, ST_ENOMEM, "out of memory for a %zu x %zu matrix", p.dim,
                                p.dim);
        e->W = w;
        e->cap = n;
    }
    if (n)
        memcpy(e->W, p.W, n * sizeof *e->W);
    e->dim = p.dim;
    return ST_OK;
}

static st_status write_kept(cm_exporter *e, st_error *err)
{
    mx_matrix m = {.rows = e->dim, .cols = e->dim, .dense = e->W};
    char what[300];
    snprintf(what, sizeof what, "compliance matrix from constraint solver '%s'",
             e->solver->name);
    return mx_export(&e->base, &e->ex, e->format, e->precision, &m, what, err);
}

static st_status cm_write(st_component *self, st_error *err)
{
    cm_exporter *e = (cm_exporter *)self;
    if (!e->fresh)
        ST_TRY(snapshot(self, err));
    return write_kept(e, err);
}

static st_status cm_write_at_end(st_component *self, st_error *err)
{
    return write_kept((cm_exporter *)self, err);
}

static void cm_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    cm_exporter *e = (cm_exporter *)self;
    mx_event(self, &e->ex, &e->fresh, ev, snapshot, cm_write);
}

static void cm_cleanup(st_component *self)
{
    cm_exporter *e = (cm_exporter *)self;
    sim_exporter_cleanup(self, &e->ex, cm_write_at_end);
    st_free(e->W);
    e->W = NULL;
    e->dim = e->cap = 0;
}

const st_class compliance_matrix_exporter_class = {
    .struct_size = sizeof(st_class),
    .name = "ComplianceMatrixExporter",
    .category = "Exporter",
    .description = "Export the compliance matrix from a constraint solver.",
    .instance_size = sizeof(cm_exporter),
    .fields = fields,
    .init = cm_init,
    .on_event = cm_event,
    .cleanup = cm_cleanup,
};
