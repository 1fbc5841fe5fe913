/* springs.c - SOFA's linear spring: force, cached Jacobian, stiffness
 * matrix and energy, shared by SpringForceField and MeshSpringForceField.
 *
 * For a spring (a in state 1, b in state 2, ks, kd, L0):
 *   u = x2[b] - x1[a], d = |u|; active when enabled, d > 1e-9 and (not
 *   elongationOnly or d > L0); then with U = u/d:
 *   F = ks (d - L0) + kd U.(v2[b] - v1[a]); f1[a] += F U; f2[b] -= F U;
 *   J = (ks - F/d) U U^T + (F/d) I = df1[a]/dx2[b] (cached, F includes the
 *   damping part as in SOFA); an inactive spring has J = 0.
 * add_dforce ignores bfactor (SOFA's springs have no damping matrix). The
 * arithmetic follows SOFA's order so results agree to the last bit. */
#include <math.h>
#include <string.h>

#include "springs.h"

st_status springs_push(spring_set *set, spring sp, st_error *err)
{
    if (set->n == set->cap) {
        size_t cap = set->cap ? 2 * set->cap : 64;
        spring *s = st_realloc(set->s, cap * sizeof *s);
        if (!s)
            return st_error_set(err, ST_ENOMEM, "out of memory (%zu springs)", cap);
        set->s = s;
        set->cap = cap;
    }
    set->s[set->n++] = sp;
    return ST_OK;
}

st_status springs_finish(spring_set *set, st_error *err)
{
    st_free(set->dfdx);
    set->dfdx = NULL;
    if (set->n == 0)
        return ST_OK;
    set->dfdx = st_calloc(set->n, sizeof *set->dfdx);
    if (!set->dfdx)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu springs)", set->n);
    return ST_OK;
}

void springs_free(spring_set *set)
{
    st_free(set->s);
    st_free(set->dfdx);
    memset(set, 0, sizeof *set);
}

void springs_add_force(spring_set *set, double *f, const double *x, const double *v)
{
    double *f1 = st_slice(f, set->ms1), *f2 = st_slice(f, set->ms2);
    const double *x1 = st_slice(x, set->ms1), *x2 = st_slice(x, set->ms2);
    const double *v1 = st_slice(v, set->ms1), *v2 = st_slice(v, set->ms2);
    for (size_t i = 0; i < set->n; i++) {
        const spring *s = &set->s[i];
        double *J = set->dfdx[i];
        const double *pa = x1 + 3 * s->m1, *pb = x2 + 3 * s->m2;
        double u[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
        double d = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        if (!(s->enabled && d > 1.0e-9 && (!s->elongation_only || d > s->l0))) {
            memset(J, 0, 9 * sizeof *J);
            continue;
        }
        double inv = 1.0 / d;
        u[0] *= inv, u[1] *= inv, u[2] *= inv;
        double elong = d - s->l0;
        const double *va = v1 + 3 * s->m1, *vb = v2 + 3 * s->m2;
        double rv[3] = {vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]};
        double elong_v = u[0] * rv[0] + u[1] * rv[1] + u[2] * rv[2];
        double F = s->ks * elong + s->kd * elong_v;
        double fo[3] = {u[0] * F, u[1] * F, u[2] * F};
        double *fa = f1 + 3 * s->m1, *fb = f2 + 3 * s->m2;
        fa[0] += fo[0], fa[1] += fo[1], fa[2] += fo[2];
        fb[0] += -fo[0], fb[1] += -fo[1], fb[2] += -fo[2];
        double tgt = F * inv;
        for (int j = 0; j < 3; j++) {
            for (int k = 0; k < 3; k++)
                J[3 * j + k] = (s->ks - tgt) * u[j] * u[k];
            J[3 * j + j] += tgt;
        }
    }
}

void springs_add_dforce(spring_set *set, double *df, const double *dx, double kfactor)
{
    double *df1 = st_slice(df, set->ms1), *df2 = st_slice(df, set->ms2);
    const double *dx1 = st_slice(dx, set->ms1), *dx2 = st_slice(dx, set->ms2);
    for (size_t i = 0; i < set->n; i++) {
        const spring *s = &set->s[i];
        const double *J = set->dfdx[i];
        const double *a = dx1 + 3 * s->m1, *b = dx2 + 3 * s->m2;
        double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double r[3];
        for (int j = 0; j < 3; j++)
            r[j] = (J[3 * j] * d[0] + J[3 * j + 1] * d[1] + J[3 * j + 2] * d[2]) * kfactor;
        double *fa = df1 + 3 * s->m1, *fb = df2 + 3 * s->m2;
        fa[0] += r[0], fa[1] += r[1], fa[2] += r[2];
        fb[0] -= r[0], fb[1] -= r[1], fb[2] -= r[2];
    }
}

void springs_add_k(spring_set *set, st_matrix *m, double kfactor)
{
    size_t o1 = set->ms1->offset, o2 = set->ms2->offset;
    for (size_t i = 0; i < set->n; i++) {
        const spring *s = &set->s[i];
        double kb[9], nb[9];
        for (int j = 0; j < 9; j++) {
            kb[j] = set->dfdx[i][j] * kfactor;
            nb[j] = -kb[j];
        }
        size_t a = o1 + s->m1, b = o2 + s->m2;
        st_matrix_add_block(m, a, a, nb);
        st_matrix_add_block(m, a, b, kb);
        st_matrix_add_block(m, b, a, kb);
        st_matrix_add_block(m, b, b, nb);
    }
}

double springs_energy(const spring_set *set, const double *x)
{
    const double *x1 = st_slice(x, set->ms1), *x2 = st_slice(x, set->ms2);
    double e = 0;
    for (size_t i = 0; i < set->n; i++) {
        const spring *s = &set->s[i];
        const double *pa = x1 + 3 * s->m1, *pb = x2 + 3 * s->m2;
        double u[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
        double el = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) - s->l0;
        e += el * el * s->ks / 2;
    }
    return e;
}
