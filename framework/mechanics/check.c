/* check.c - st_check_forcefield: a force field's add_dforce, assembled
 * stiffness and potential energy against central finite differences of its
 * add_force (settee/check.h). Test code: it allocates freely and is never
 * called during a step. */
#include <math.h>
#include <string.h>

#include "mechanics/mechanics.h"

#define HAS_OP(ops, type, member)                                                                  \
    ((ops) && (ops)->struct_size >= offsetof(type, member) + sizeof((ops)->member) &&             \
     (ops)->member)

typedef struct check_buf {
    double *x, *f, *fp, *kfd, *col, *dx;
} check_buf;

static void free_buf(check_buf *b)
{
    st_free(b->x);
    st_free(b->f);
    st_free(b->fp);
    st_free(b->kfd);
    st_free(b->col);
    st_free(b->dx);
}

/* f = the force field's force at x (the system's velocities). */
static void force_at(st_component *ff, const st_mparams *mp, st_system *sys, double *f,
                     const double *x)
{
    memset(f, 0, sys->size_all * sizeof *f);
    ff->cls->forcefield->add_force(ff, mp, f, x, sys->v);
}

/* x = sys->x (+) s e_k (k a derivative scalar of the independent states). */
static void perturb(st_system *sys, check_buf *b, size_t k, double s)
{
    memcpy(b->x, sys->x, sys->xsize_all * sizeof *b->x);
    memset(b->dx, 0, sys->size_all * sizeof *b->dx);
    b->dx[k] = 1.0;
    st_vec_x_op(sys, b->x, sys->x, b->dx, s);
}

/* The system whose force fields include ff. */
static st_status find_system(st_component *ff, st_system **out, st_error *err)
{
    st_scene *sc = ff->node ? ff->node->scene : NULL;
    for (size_t k = 0; sc && k < sc->nsystems; k++) {
        st_system *sys = sc->systems[k];
        st_component *list[1024];
        size_t n = sys ? st__system_components(sys, ST_ROLE_FORCEFIELD, list, 1024) : 0;
        for (size_t i = 0; i < n && i < 1024; i++)
            if (list[i] == ff) {
                if (sys->size > ST_CHECK_MAX_SIZE)
                    return st_component_error(ff, NULL, err, ST_EINVAL,
                                              "st_check_forcefield: %zu derivative scalars, more "
                                              "than the check's %d",
                                              sys->size, ST_CHECK_MAX_SIZE);
                *out = sys;
                return ST_OK;
            }
    }
    return st_component_error(ff, NULL, err, ST_EINVAL,
                              "st_check_forcefield: the force field is in no mechanical system "
                              "(is the scene initialised, with an ODE solver above it?)");
}

st_status st_check_forcefield(st_component *ff, st_jacobian_check *out, st_error *err)
{
    if (!ff || !out || out->struct_size < sizeof(st_jacobian_check))
        return st_error_set(err, ST_EINVAL, "st_check_forcefield: no component or report");
    const st_forcefield_ops *ops = ff->cls->forcefield;
    if (!HAS_OP(ops, st_forcefield_ops, add_force))
        return st_component_error(ff, NULL, err, ST_EINVAL,
                                  "st_check_forcefield: %s is not a force field", ff->cls->name);
    st_system *sys = NULL;
    ST_TRY(find_system(ff, &sys, err));
    size_t n = sys->size;
    out->size = n;
    out->dforce_error = out->matrix_error = out->energy_error = -1.0;
    out->worst_row = out->worst_col = 0;
    st_mparams mp = sys->mp;
    mp.implicit = true;

    double h = out->h;
    if (!(h > 0.0)) {
        double xmax = 0.0;
        for (size_t i = 0; i < sys->xsize; i++)
            xmax = fmax(xmax, fabs(sys->x[i]));
        h = fmax(1e-6 * xmax, 1e-7);
    }
    check_buf b = {0};
    b.x = st_malloc(sys->xsize_all * sizeof *b.x);
    b.f = st_malloc(sys->size_all * sizeof *b.f);
    b.fp = st_malloc(sys->size_all * sizeof *b.fp);
    b.col = st_malloc(sys->size_all * sizeof *b.col);
    b.dx = st_malloc(sys->size_all * sizeof *b.dx);
    b.kfd = st_malloc((n ? n * n : 1) * sizeof *b.kfd);
    if (!b.x || !b.f || !b.fp || !b.col || !b.dx || !b.kfd) {
        free_buf(&b);
        return st_error_set(err, ST_ENOMEM, "st_check_forcefield: out of memory");
    }

    /* Finite-difference Jacobian, column k = (f(x + h e_k) - f(x - h e_k)) / 2h,
     * and the energy's gradient. */
    bool has_energy = HAS_OP(ops, st_forcefield_ops, potential_energy);
    double egrad_err = 0.0, fmaxabs = 0.0, scale = 0.0;
    force_at(ff, &mp, sys, b.f, sys->x);
    for (size_t i = 0; i < n; i++)
        fmaxabs = fmax(fmaxabs, fabs(b.f[i]));
    for (size_t i = n; i < sys->size_all; i++)
        if (b.f[i] != 0.0) {
            free_buf(&b);
            return st_component_error(ff, NULL, err, ST_EINVAL,
                                      "st_check_forcefield: the force field acts on a mapped "
                                      "state; check it on an independent one");
        }
    for (size_t k = 0; k < n; k++) {
        perturb(sys, &b, k, h);
        force_at(ff, &mp, sys, b.fp, b.x);
        double ep = has_energy ? ops->potential_energy(ff, &mp, b.x) : 0.0;
        perturb(sys, &b, k, -h);
        force_at(ff, &mp, sys, b.col, b.x);
        double em = has_energy ? ops->potential_energy(ff, &mp, b.x) : 0.0;
        for (size_t i = 0; i < n; i++) {
            double d = (b.fp[i] - b.col[i]) / (2.0 * h);
            b.kfd[i * n + k] = d;
            scale = fmax(scale, fabs(d));
        }
        if (has_energy)
            egrad_err = fmax(egrad_err, fabs(b.f[k] + (ep - em) / (2.0 * h)));
    }
    out->scale = scale;
    double denom = scale > 0.0 ? scale : 1.0;
    if (has_energy)
        out->energy_error = egrad_err / (fmaxabs > 0.0 ? fmaxabs : 1.0);

    /* add_dforce, column by column, at the state of an add_force at x. */
    double worst = 0.0;
    if (HAS_OP(ops, st_forcefield_ops, add_dforce)) {
        force_at(ff, &mp, sys, b.f, sys->x);
        double e = 0.0;
        for (size_t k = 0; k < n; k++) {
            memset(b.dx, 0, sys->size_all * sizeof *b.dx);
            memset(b.col, 0, sys->size_all * sizeof *b.col);
            b.dx[k] = 1.0;
            ops->add_dforce(ff, &mp, b.col, b.dx, 1.0, 0.0);
            for (size_t i = 0; i < n; i++) {
                double d = fabs(b.col[i] - b.kfd[i * n + k]);
                if (d > e)
                    e = d;
                if (d > worst) {
                    worst = d;
                    out->worst_row = i;
                    out->worst_col = k;
                }
            }
        }
        out->dforce_error = e / denom;
    }

    /* The force field's stiffness assembled alone. */
    if (HAS_OP(ops, st_forcefield_ops, add_k_to_matrix)) {
        st_matrix *m = NULL;
        st_status st = st__matrix_create_single(sys, ff, &m, err);
        if (st == ST_OK) {
            force_at(ff, &mp, sys, b.f, sys->x);
            st = st_matrix_assemble(m, sys, 0.0, 0.0, 1.0, err);
        }
        if (st != ST_OK) {
            st_matrix_destroy(&m);
            free_buf(&b);
            return st;
        }
        st_csr a;
        st_matrix_csr(m, &a);
        double e = 0.0;
        /* Entries of the pattern against the dense Jacobian, and the
         * Jacobian's entries outside the pattern against zero. */
        for (size_t i = 0; i < n; i++) {
            memset(b.col, 0, n * sizeof *b.col);
            for (int q = a.rowptr[i]; q < a.rowptr[i + 1]; q++)
                b.col[a.colind[q]] = a.values[q];
            for (size_t k = 0; k < n; k++) {
                double d = fabs(b.col[k] - b.kfd[i * n + k]);
                if (d > e)
                    e = d;
                if (d > worst) {
                    worst = d;
                    out->worst_row = i;
                    out->worst_col = k;
                }
            }
        }
        out->matrix_error = e / denom;
        st_matrix_destroy(&m);
    }
    free_buf(&b);
    return ST_OK;
}
