/* global_system_matrix_exporter.c - GlobalSystemMatrixExporter (SOFA's
 * SofaMatrix plugin): writes the global matrix of a linear system,
 * A = mf M + bf B + kf K with the projective constraints applied, as its ODE
 * solver last handed it to the linear solver (the step's system), on SOFA's
 * BaseSimulationExporter events, in SOFA's formats (matrix_export.h).
 *
 * The system is the linearSystem link, else the first linear system
 * (MatrixLinearSystem ...) of the node and its ancestors, else the first
 * linear solver there (SOFA: the linear system the solver made for itself).
 * A matrix-free solver (template GraphScattered, no linear system) has no
 * matrix: as SOFA, each export warns and writes nothing. Before the first
 * solve the matrix is empty (0 x 0: "[ ]" in txt). exportAtEnd writes the
 * last step's matrix, kept at the end of each step. */
#include <string.h>

#include "matrix_export.h"

typedef struct gsm_exporter {
    st_component base;
    sim_exporter ex;
    char *format;
    int precision;
    st_component *system; /* "linearSystem" */
    /* settee */
    st_component *solver; /* the linear solver when no linear system was found */
    bool matrix_free;
    bool fresh; /* the kept matrix is this step's */
    st_matrix *mat; /* assembled at each export */
    st_system *sys;
    /* the matrix last assembled (exportAtEnd writes it after the systems are unbound) */
    size_t n, nnz, cap_rows, cap_nnz;
    int *rowptr, *colind;
    double *values;
} gsm_exporter;

static const st_field fields[] = {
    MX_EXPORTER_FIELDS(gsm_exporter),
    ST_LINK(gsm_exporter, system, "linearSystem", ST_LINK_ANY,
            "Linear system used to export its matrix"),
    ST_FIELD_END};

static bool is_linear_system(const st_component *c)
{
    return c && c->cls->category && !strcmp(c->cls->category, "LinearSystem");
}

static st_component *find_up(st_node *n, bool (*pred)(const st_component *))
{
    for (; n; n = st_node_parent(n))
        for (size_t i = 0; i < st_node_object_count(n); i++)
            if (pred(st_node_object(n, i)))
                return st_node_object(n, i);
    return NULL;
}

static bool is_linear_solver(const st_component *c) { return c && c->cls->linsolver; }

static bool solver_is_matrix_free(st_component *solver)
{
    const st_field *f = st_component_field(solver, "template");
    if (!f || f->type != ST_T_STRING)
        return false;
    const char *t = *(char **)st_component_field_ptr(solver, f);
    return t && !strcmp(t, "GraphScattered");
}

static st_status gsm_init(st_component *self, st_error *err)
{
    gsm_exporter *e = (gsm_exporter *)self;
    ST_TRY(mx_check_format(self, err));
    e->solver = NULL;
    e->matrix_free = false;
    if (e->system) {
        if (!is_linear_system(e->system) && !is_linear_solver(e->system))
            return st_component_error(self, "linearSystem", err, ST_ELINK,
                                      "%s is a %s, not a linear system (MatrixLinearSystem ...)",
                                      e->system->name, e->system->cls->name);
    } else {
        e->system = find_up(self->node, is_linear_system);
    }
    if (!e->system) {
        e->solver = find_up(self->node, is_linear_solver);
        if (!e->solver)
            return st_component_error(self, "linearSystem", err, ST_ELINK,
                                      "No linear system found in the current context, whereas "
                                      "it is required. This component exports the matrix from "
                                      "a linear system.");
        e->matrix_free = solver_is_matrix_free(e->solver);
    } else if (is_linear_solver(e->system)) {
        e->solver = e->system;
        e->system = NULL;
        e->matrix_free = solver_is_matrix_free(e->solver);
    }
    e->ex.step = 0;
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static const char *system_name(const gsm_exporter *e)
{
    return e->system ? e->system->name : e->solver->name;
}

static st_status grow(gsm_exporter *e, size_t n, size_t nnz, st_error *err)
{
    if (n + 1 > e->cap_rows) {
        int *p = st_realloc(e->rowptr, (n + 1) * sizeof *p);
        if (!p)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        e->rowptr = p;
        e->cap_rows = n + 1;
    }
    if (nnz > e->cap_nnz) {
        int *c = st_realloc(e->colind, nnz * sizeof *c);
        if (c)
            e->colind = c;
        double *v = c ? st_realloc(e->values, nnz * sizeof *v) : NULL;
        if (!v)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        e->values = v;
        e->cap_nnz = nnz;
    }
    return ST_OK;
}

/* Keeps the matrix of the step's linear system (empty before any). */
static st_status snapshot(st_component *self, st_error *err)
{
    gsm_exporter *e = (gsm_exporter *)self;
    if (e->matrix_free)
        return ST_OK;
    st_system *sys = st_node_system(e->system ? e->system->node : e->solver->node);
    if (!sys) {
        e->n = e->nnz = 0;
        return ST_OK;
    }
    st_linsolve_record rec = {.struct_size = sizeof rec};
    st_system_last_linsolve(sys, &rec);
    if (!rec.assembled) {
        e->n = e->nnz = 0;
        return ST_OK;
    }
    if (sys != e->sys) {
        st_matrix_destroy(&e->mat);
        e->sys = sys;
    }
    if (!e->mat)
        ST_TRY(st_matrix_create(sys, &e->mat, err));
    st_status s = st_matrix_assemble(e->mat, sys, rec.mf, rec.bf, rec.kf, err);
    if (s != ST_OK) {
        st_error_prefix(err, "assembling the system matrix: ");
        char path[ST_ERROR_PATH_MAX];
        st_error_set_path(err, st_component_path(self, path, sizeof path));
        return s;
    }
    st_csr csr;
    st_matrix_csr(e->mat, &csr);
    ST_TRY(grow(e, csr.n, csr.nnz, err));
    e->n = csr.n;
    e->nnz = csr.nnz;
    memcpy(e->rowptr, csr.rowptr, (csr.n + 1) * sizeof *e->rowptr);
    if (csr.nnz) {
        memcpy(e->colind, csr.colind, csr.nnz * sizeof *e->colind);
        memcpy(e->values, csr.values, csr.nnz * sizeof *e->values);
    }
    return ST_OK;
}

static st_status write_kept(gsm_exporter *e, st_error *err)
{
    static const int empty_rowptr[1] = {0};
    st_csr csr = {.n = e->n,
                  .nnz = e->nnz,
                  .rowptr = e->n ? e->rowptr : empty_rowptr,
                  .colind = e->colind,
                  .values = e->values};
    mx_matrix m = {.rows = e->n, .cols = e->n, .csr = &csr};
    char what[300];
    snprintf(what, sizeof what, "global system matrix from linear solver '%s'", system_name(e));
    return mx_export(&e->base, &e->ex, e->format, e->precision, &m, what, err);
}

static bool warn_matrix_free(gsm_exporter *e)
{
    if (!e->matrix_free)
        return false;
    st_component_warn(&e->base,
                      "Matrix cannot be exported, probably because the linear solver '%s' does "
                      "not assemble explicitly the system matrix.",
                      e->solver->name);
    e->ex.skipped = true;
    return true;
}

static st_status gsm_write(st_component *self, st_error *err)
{
    gsm_exporter *e = (gsm_exporter *)self;
    if (warn_matrix_free(e))
        return ST_OK;
    if (!e->fresh)
        ST_TRY(snapshot(self, err));
    return write_kept(e, err);
}

static st_status gsm_write_at_end(st_component *self, st_error *err)
{
    gsm_exporter *e = (gsm_exporter *)self;
    if (warn_matrix_free(e))
        return ST_OK;
    return write_kept(e, err);
}

static void gsm_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    gsm_exporter *e = (gsm_exporter *)self;
    mx_event(self, &e->ex, &e->fresh, ev, snapshot, gsm_write);
}

static void gsm_cleanup(st_component *self)
{
    gsm_exporter *e = (gsm_exporter *)self;
    sim_exporter_cleanup(self, &e->ex, gsm_write_at_end);
    st_matrix_destroy(&e->mat);
    st_free(e->rowptr), st_free(e->colind), st_free(e->values);
    e->rowptr = e->colind = NULL;
    e->values = NULL;
    e->cap_rows = e->cap_nnz = e->n = e->nnz = 0;
}

const st_class global_system_matrix_exporter_class = {
    .struct_size = sizeof(st_class),
    .name = "GlobalSystemMatrixExporter",
    .category = "Exporter",
    .description = "Export the global system matrix from a linear solver.",
    .instance_size = sizeof(gsm_exporter),
    .fields = fields,
    .init = gsm_init,
    .on_event = gsm_event,
    .cleanup = gsm_cleanup,
};
