/* springs.c - SOFA's linear spring: force, cached Jacobian, stiffness
 * matrix and energy, shared by SpringForceField and MeshSpringForceField.
 *
 * For a spring (a in state 1, b in state 2, ks, kd, L0):
 *   u = x2[b] - x1[a], d = |u|; active when enabled, d > 1e-9 (min_length
 *   when set: SOFA's bending springs use 1e-4) and (not
 *   elongationOnly or d > L0) (RepulsiveSpringForceField: 0 < d < L0); then
 *   with U = u/d:
 *   F = ks (d - L0) + kd U.(v2[b] - v1[a]); f1[a] += F U; f2[b] -= F U;
 *   J = (ks - F/d) U U^T + (F/d) I = df1[a]/dx2[b] (cached as its five
 *   factors and rebuilt with SOFA's operations where used, see springs.h;
 *   F includes the damping part as in SOFA); an inactive spring has J = 0.
 * Vec1d and Vec2d states (D = 1, 2) run the same arithmetic with the
 * missing components zero (Rigid3d: on the frames' origins, no torque), so that a chain along one or two axes moves
 * exactly as the Vec3d chain restricted to them. Vec3d keeps its own copy
 * of the force, dforce and matrix loops on purpose: GCC vectorises those and
 * not the generic D loop (a CG step of bench_implicit was 15-20% slower
 * through the generic one).
 * add_dforce ignores bfactor (SOFA's springs have no damping matrix). The
 * arithmetic follows SOFA's order so results agree to the last bit. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <math.h>
#include <stdint.h>
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

st_status springs_link_state(st_component *self, st_component *link, const char *field,
                             st_mstate **out, st_error *err)
{
    if (link) {
        if (!st_component_has_role(link, ST_ROLE_STATE))
            return st_component_error(self, field, err, ST_ELINK,
                                      "'%s' must link a MechanicalObject, not a %s", field,
                                      link->cls->name);
        *out = (st_mstate *)link;
        return ST_OK;
    }
    *out = st_component_mstate(self);
    if (!*out)
        return st_component_error(self, field, err, ST_ESCENE,
                                  "no MechanicalObject for '%s': link one or add one to the node",
                                  field);
    return ST_OK;
}

st_status springs_push_rest(spring_set *set, const double *x0, unsigned m1, unsigned m2,
                            double ks, double kd, st_error *err)
{
    const double *p = x0 + 3 * (size_t)m1, *q = x0 + 3 * (size_t)m2;
    double u[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
    spring sp = {m1, m2, ks, kd, sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]), false, true};
    return springs_push(set, sp, err);
}

st_status springs_finish(spring_set *set, st_error *err)
{
    st_free(set->jac);
    st_free(set->ends);
    set->jac = NULL;
    set->ends = NULL;
    if (set->n == 0)
        return ST_OK;
    set->jac = st_calloc(set->n, sizeof *set->jac);
    set->ends = st_malloc(set->n * sizeof *set->ends);
    if (!set->jac || !set->ends)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu springs)", set->n);
    for (size_t i = 0; i < set->n; i++) {
        set->ends[i][0] = set->s[i].m1;
        set->ends[i][1] = set->s[i].m2;
    }
    return ST_OK;
}

st_status springs_transfer(spring_set *set, st_checkpoint *ck, st_error *err)
{
    uint64_t n = set->n;
    ST_TRY(st_checkpoint_data(ck, &n, sizeof n, err));
    if (n > SIZE_MAX / (6 * sizeof(double)))
        return st_error_set(err, ST_EINVAL, "checkpoint: a spring set of %llu springs",
                            (unsigned long long)n);
    /* six numbers a spring, written out so that no padding is saved */
    double *buf = st_malloc((n ? n : 1) * 6 * sizeof *buf);
    if (!buf)
        return st_error_set(err, ST_ENOMEM, "out of memory (%llu springs)",
                            (unsigned long long)n);
    bool reading = st_checkpoint_reading(ck);
    for (size_t i = 0; !reading && i < set->n; i++) {
        const spring *sp = &set->s[i];
        double *b = buf + 6 * i;
        b[0] = sp->m1, b[1] = sp->m2, b[2] = sp->ks, b[3] = sp->kd, b[4] = sp->l0;
        b[5] = (sp->elongation_only ? 1 : 0) + (sp->enabled ? 2 : 0);
    }
    st_status st = n ? st_checkpoint_data(ck, buf, (size_t)n * 6 * sizeof *buf, err) : ST_OK;
    if (st == ST_OK && reading) {
        if (n > set->cap) {
            spring *q = st_realloc(set->s, (size_t)n * sizeof *q);
            if (!q)
                st = st_error_set(err, ST_ENOMEM, "out of memory (%llu springs)",
                                  (unsigned long long)n);
            else
                set->s = q, set->cap = (size_t)n;
        }
        for (size_t i = 0; st == ST_OK && i < n; i++) {
            const double *b = buf + 6 * i;
            int flags = (int)b[5];
            set->s[i] = (spring){(unsigned)b[0], (unsigned)b[1], b[2], b[3], b[4],
                                 (flags & 1) != 0, (flags & 2) != 0};
        }
        if (st == ST_OK) {
            set->n = (size_t)n;
            st = springs_finish(set, err);
        }
    }
    st_free(buf);
    return st;
}

static void springs_erase(spring_set *set, size_t i)
{
    memmove(set->s + i, set->s + i + 1, (set->n - i - 1) * sizeof *set->s);
    set->n--;
}

bool springs_edge_topology(const st_component *topology)
{
    return topology && !strcmp(topology->cls->name, "EdgeSetTopologyContainer");
}

/* One side's handler over the whole change (SOFA's applyRemovedEdges and
 * applyRemovedPoints). */
static void springs_side_changed(spring_set *set, int side, bool edge_type,
                                 const st_topo_event *ev, size_t nev, bool *changed)
{
    for (size_t e = 0; e < nev; e++) {
        const st_topo_event *x = &ev[e];
        if (x->change != ST_TOPO_REMOVED || !x->n)
            continue;
        if (x->elem == ST_ELEM_EDGE && edge_type && x->vertices) {
            /* The first spring on each removed edge, erased last to first. */
            size_t *del = st_malloc(x->n * sizeof *del), nd = 0;
            if (!del)
                continue;
            for (size_t k = 0; k < x->n; k++) {
                unsigned a = x->vertices[2 * k], b = x->vertices[2 * k + 1];
                for (size_t i = 0; i < set->n; i++) {
                    unsigned p = side ? set->s[i].m2 : set->s[i].m1;
                    unsigned q = side ? set->s[i].m1 : set->s[i].m2;
                    if (p == a && q == b) {
                        del[nd++] = i;
                        break;
                    }
                }
            }
            /* Sorted, then erased from the last (a spring found twice is
             * erased twice, as SOFA's loop does). */
            for (size_t i = 1; i < nd; i++)
                for (size_t j = i; j > 0 && del[j - 1] > del[j]; j--) {
                    size_t t = del[j];
                    del[j] = del[j - 1];
                    del[j - 1] = t;
                }
            for (size_t i = nd; i-- > 0;)
                if (del[i] < set->n) {
                    springs_erase(set, del[i]);
                    *changed = true;
                }
            st_free(del);
        } else if (x->elem == ST_ELEM_POINT) {
            size_t nb = x->before;
            for (size_t k = 0; k < x->n; k++) {
                unsigned p = x->index[k];
                nb--;
                size_t w = 0;
                for (size_t i = 0; i < set->n; i++) {
                    unsigned end = side ? set->s[i].m2 : set->s[i].m1;
                    if (end != p)
                        set->s[w++] = set->s[i];
                }
                if (w != set->n)
                    *changed = true;
                set->n = w;
                if (p == nb)
                    continue;
                for (size_t i = 0; i < set->n; i++) {
                    unsigned *end = side ? &set->s[i].m2 : &set->s[i].m1;
                    if (*end == nb) {
                        *end = p;
                        *changed = true;
                    }
                }
            }
        }
    }
}

st_status springs_topology_changed(spring_set *set, unsigned sides, bool edge_type,
                                   const st_topo_event *ev, size_t nev, bool *changed,
                                   st_error *err)
{
    *changed = false;
    for (int side = 0; side < 2; side++)
        if (sides & (1u << side))
            springs_side_changed(set, side, edge_type, ev, nev, changed);
    return springs_finish(set, err);
}

/* The 3x3 Jacobian from its cached factors: the operations (and so the
 * bits) of SOFA's loop m[j][k] = (ks - tgt) * u[j] * u[k]; m[j][j] += tgt. */
static inline void springs_jacobian(const double c[5], double J[9])
{
    for (int j = 0; j < 3; j++) {
        const double cj = c[0] * c[1 + j];
        for (int k = 0; k < 3; k++)
            J[3 * j + k] = cj * c[1 + k];
        J[3 * j + j] += c[4];
    }
}

/* Caches the factors of a spring's Jacobian (all zero: J = 0). */
static inline void springs_cache(double c[5], double ct, const double u[3], double tgt)
{
    c[0] = ct;
    c[1] = u[0];
    c[2] = u[1];
    c[3] = u[2];
    c[4] = tgt;
}

void springs_free(spring_set *set)
{
    st_free(set->s);
    st_free(set->jac);
    st_free(set->ends);
    memset(set, 0, sizeof *set);
}

/* The components a spring acts on for a state of D derivative scalars per
 * point: all of Vec1d, Vec2d, Vec3d; the translation of Rigid3d (D = 6),
 * as SOFA's SpringForceField<Rigid3> (its springs join the frames' origins
 * and apply no torque). */
static inline unsigned used_of(unsigned D) { return D < 3 ? D : 3; }

/* Point i of an array of `stride` scalars per point, its first U (<= 3)
 * components as 3 values: in place for stride 3, else zero-padded into
 * buf. */
static inline const double *pt3(const double *a, size_t i, unsigned stride, unsigned U,
                                double buf[3])
{
    if (stride == 3)
        return a + 3 * i;
    const double *q = a + (size_t)stride * i;
    buf[0] = q[0];
    buf[1] = U > 1 ? q[1] : 0.0;
    buf[2] = U > 2 ? q[2] : 0.0;
    return buf;
}

/* Whether spring s of length d acts (SOFA's SpringForceField test, or
 * RepulsiveSpringForceField's). */
static inline bool spring_active(const spring_set *set, const spring *s, double d, double min_len)
{
    if (set->repulsive)
        return d != 0 && d < s->l0;
    return s->enabled && d > min_len && (!s->elongation_only || d > s->l0);
}

/* The loop for D derivative scalars per point (Vec1d, Vec2d, Rigid3d: C
 * coordinate scalars). */
static void
springs_add_force_d(spring_set *set, double *f, const double *x, const double *v,
                    const unsigned D)
{
    const unsigned C = set->ms1->type->coord_size, U = used_of(D);
    double *f1 = st_slice(f, set->ms1), *f2 = st_slice(f, set->ms2);
    const double *x1 = st_slice_x(x, set->ms1), *x2 = st_slice_x(x, set->ms2);
    const double *v1 = st_slice(v, set->ms1), *v2 = st_slice(v, set->ms2);
    const double min_len = set->min_length > 0 ? set->min_length : 1.0e-9;
    for (size_t i = 0; i < set->n; i++) {
        const spring *s = &set->s[i];
        double *J = set->jac[i];
        double ba[3], bb[3];
        const double *pa = pt3(x1, s->m1, C, U, ba), *pb = pt3(x2, s->m2, C, U, bb);
        double u[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
        double d = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        if (!spring_active(set, s, d, min_len)) {
            memset(J, 0, 5 * sizeof *J);
            continue;
        }
        double inv = 1.0 / d;
        u[0] *= inv, u[1] *= inv, u[2] *= inv;
        double elong = d - s->l0;
        const double *va = pt3(v1, s->m1, D, U, ba), *vb = pt3(v2, s->m2, D, U, bb);
        double rv[3] = {vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]};
        double elong_v = u[0] * rv[0] + u[1] * rv[1] + u[2] * rv[2];
        double F = s->ks * elong + s->kd * elong_v;
        double fo[3] = {u[0] * F, u[1] * F, u[2] * F};
        double *fa = f1 + D * s->m1, *fb = f2 + D * s->m2;
        for (unsigned j = 0; j < U; j++)
            fa[j] += fo[j];
        for (unsigned j = 0; j < U; j++)
            fb[j] += -fo[j];
        double tgt = F * inv;
        springs_cache(J, s->ks - tgt, u, tgt);
    }
}

/* Spring i's force on its first end (Vec3d) into fo, its Jacobian cached;
 * false when it has none (the cache then zero). x1, x2, v1, v2: the states'
 * slices. */
static inline bool spring_force3(spring_set *set, size_t i, const double *x1, const double *x2,
                                 const double *v1, const double *v2, double min_len, double fo[3])
{
    const spring *s = &set->s[i];
    double *J = set->jac[i];
    const double *pa = x1 + 3 * s->m1, *pb = x2 + 3 * s->m2;
    double u[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
    double d = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    if (!spring_active(set, s, d, min_len)) {
        memset(J, 0, 5 * sizeof *J);
        return false;
    }
    double inv = 1.0 / d;
    u[0] *= inv, u[1] *= inv, u[2] *= inv;
    double elong = d - s->l0;
    const double *va = v1 + 3 * s->m1, *vb = v2 + 3 * s->m2;
    double rv[3] = {vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]};
    double elong_v = u[0] * rv[0] + u[1] * rv[1] + u[2] * rv[2];
    double F = s->ks * elong + s->kd * elong_v;
    fo[0] = u[0] * F, fo[1] = u[1] * F, fo[2] = u[2] * F;
    double tgt = F * inv;
    springs_cache(J, s->ks - tgt, u, tgt);
    return true;
}

static void springs_add_force3(spring_set *set, double *f, const double *x, const double *v)
{
    double *f1 = st_slice(f, set->ms1), *f2 = st_slice(f, set->ms2);
    const double *x1 = st_slice_x(x, set->ms1), *x2 = st_slice_x(x, set->ms2);
    const double *v1 = st_slice(v, set->ms1), *v2 = st_slice(v, set->ms2);
    const double min_len = set->min_length > 0 ? set->min_length : 1.0e-9;
    for (size_t i = 0; i < set->n; i++) {
        double fo[3];
        if (!spring_force3(set, i, x1, x2, v1, v2, min_len, fo))
            continue;
        const spring *s = &set->s[i];
        double *fa = f1 + 3 * s->m1, *fb = f2 + 3 * s->m2;
        fa[0] += fo[0], fa[1] += fo[1], fa[2] += fo[2];
        fb[0] += -fo[0], fb[1] += -fo[1], fb[2] += -fo[2];
    }
}

bool springs_one_state3(const spring_set *set)
{
    return set->ms1 == set->ms2 && set->ms1 && set->ms1->type->deriv_size == 3;
}

void springs_forces_range(spring_set *set, const double *x, const double *v, size_t begin,
                          size_t end, double *g)
{
    const double min_len = set->min_length > 0 ? set->min_length : 1.0e-9;
    for (size_t i = begin; i < end; i++) {
        double fo[3], *gi = g + 6 * (i - begin);
        if (!spring_force3(set, i, x, x, v, v, min_len, fo)) {
            memset(gi, 0, 6 * sizeof *gi);
            continue;
        }
        gi[0] = fo[0], gi[1] = fo[1], gi[2] = fo[2];
        gi[3] = -fo[0], gi[4] = -fo[1], gi[5] = -fo[2];
    }
}

void springs_add_force(spring_set *set, double *f, const double *x, const double *v)
{
    /* Vec3d, the common case, gets its own constant-D copy. */
    if (set->ms1->type->deriv_size == 3)
        springs_add_force3(set, f, x, v);
    else
        springs_add_force_d(set, f, x, v, set->ms1->type->deriv_size);
}

/* The loop for D derivative scalars per point (Vec1d, Vec2d, Rigid3d). */
static void
springs_add_dforce_d(spring_set *set, double *df, const double *dx, double kfactor,
                     const unsigned D)
{
    const unsigned U = used_of(D);
    double *df1 = st_slice(df, set->ms1), *df2 = st_slice(df, set->ms2);
    const double *dx1 = st_slice(dx, set->ms1), *dx2 = st_slice(dx, set->ms2);
    for (size_t i = 0; i < set->n; i++) {
        const unsigned m1 = set->ends[i][0], m2 = set->ends[i][1];
        double J[9];
        springs_jacobian(set->jac[i], J);
        double ba[3], bb[3];
        const double *a = pt3(dx1, m1, D, U, ba), *b = pt3(dx2, m2, D, U, bb);
        double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double r[3];
        for (int j = 0; j < 3; j++)
            r[j] = (J[3 * j] * d[0] + J[3 * j + 1] * d[1] + J[3 * j + 2] * d[2]) * kfactor;
        double *fa = df1 + D * m1, *fb = df2 + D * m2;
        for (unsigned j = 0; j < U; j++)
            fa[j] += r[j];
        for (unsigned j = 0; j < U; j++)
            fb[j] -= r[j];
    }
}

/* Spring i's share of df at its first end (Vec3d): J (dx2 - dx1) kfactor. */
static inline void spring_dforce3(const spring_set *set, size_t i, const double *dx1,
                                  const double *dx2, double kfactor, double r[3])
{
    const unsigned m1 = set->ends[i][0], m2 = set->ends[i][1];
    double J[9];
    springs_jacobian(set->jac[i], J);
    const double *a = dx1 + 3 * m1, *b = dx2 + 3 * m2;
    double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    for (int j = 0; j < 3; j++)
        r[j] = (J[3 * j] * d[0] + J[3 * j + 1] * d[1] + J[3 * j + 2] * d[2]) * kfactor;
}

static void springs_add_dforce3(spring_set *set, double *df, const double *dx, double kfactor)
{
    double *df1 = st_slice(df, set->ms1), *df2 = st_slice(df, set->ms2);
    const double *dx1 = st_slice(dx, set->ms1), *dx2 = st_slice(dx, set->ms2);
    for (size_t i = 0; i < set->n; i++) {
        double r[3];
        spring_dforce3(set, i, dx1, dx2, kfactor, r);
        const unsigned m1 = set->ends[i][0], m2 = set->ends[i][1];
        double *fa = df1 + 3 * m1, *fb = df2 + 3 * m2;
        fa[0] += r[0], fa[1] += r[1], fa[2] += r[2];
        fb[0] -= r[0], fb[1] -= r[1], fb[2] -= r[2];
    }
}

void springs_dforces_range(const spring_set *set, const double *dx, double kfactor, size_t begin,
                           size_t end, double *g)
{
    for (size_t i = begin; i < end; i++) {
        double r[3], *gi = g + 6 * (i - begin);
        spring_dforce3(set, i, dx, dx, kfactor, r);
        /* what df loses: -r at the first end, r at the second */
        gi[0] = -r[0], gi[1] = -r[1], gi[2] = -r[2];
        gi[3] = r[0], gi[4] = r[1], gi[5] = r[2];
    }
}

void springs_add_dforce(spring_set *set, double *df, const double *dx, double kfactor)
{
    /* Vec3d, the common case, gets its own constant-D copy. */
    if (set->ms1->type->deriv_size == 3)
        springs_add_dforce3(set, df, dx, kfactor);
    else
        springs_add_dforce_d(set, df, dx, kfactor, set->ms1->type->deriv_size);
}

/* The loop for D derivative scalars per point (Vec1d, Vec2d, Rigid3d). */
static void
springs_add_k_d(spring_set *set, st_matrix *m, double kfactor, const unsigned D)
{
    const st_mstate *m1 = set->ms1, *m2 = set->ms2;
    const unsigned U = used_of(D);
    for (size_t i = 0; i < set->n; i++) {
        const spring *s = &set->s[i];
        double kb[36] = {0}, nb[36] = {0}, J[9];
        springs_jacobian(set->jac[i], J);
        /* The U x U top-left of the 3x3 Jacobian in a D x D block (Rigid3d:
         * the translation rows and columns; no rotational stiffness). */
        for (unsigned j = 0; j < U; j++)
            for (unsigned k = 0; k < U; k++) {
                kb[D * j + k] = J[3 * j + k] * kfactor;
                nb[D * j + k] = -kb[D * j + k];
            }
        st_matrix_add_block(m, m1, s->m1, m1, s->m1, nb);
        st_matrix_add_block(m, m1, s->m1, m2, s->m2, kb);
        st_matrix_add_block(m, m2, s->m2, m1, s->m1, kb);
        st_matrix_add_block(m, m2, s->m2, m2, s->m2, nb);
    }
}

static void springs_add_k3(spring_set *set, st_matrix *m, double kfactor)
{
    const st_mstate *m1 = set->ms1, *m2 = set->ms2;
    for (size_t i = 0; i < set->n; i++) {
        const spring *s = &set->s[i];
        double kb[9], nb[9], J[9];
        springs_jacobian(set->jac[i], J);
        for (int j = 0; j < 9; j++) {
            kb[j] = J[j] * kfactor;
            nb[j] = -kb[j];
        }
        st_matrix_add_block(m, m1, s->m1, m1, s->m1, nb);
        st_matrix_add_block(m, m1, s->m1, m2, s->m2, kb);
        st_matrix_add_block(m, m2, s->m2, m1, s->m1, kb);
        st_matrix_add_block(m, m2, s->m2, m2, s->m2, nb);
    }
}

void springs_add_k(spring_set *set, st_matrix *m, double kfactor)
{
    /* Vec3d, the common case, gets its own constant-D copy. */
    if (set->ms1->type->deriv_size == 3)
        springs_add_k3(set, m, kfactor);
    else
        springs_add_k_d(set, m, kfactor, set->ms1->type->deriv_size);
}

double springs_energy(const spring_set *set, const double *x)
{
    const unsigned C = set->ms1->type->coord_size, U = used_of(set->ms1->type->deriv_size);
    const double *x1 = st_slice_x(x, set->ms1), *x2 = st_slice_x(x, set->ms2);
    double e = 0;
    for (size_t i = 0; !set->repulsive && i < set->n; i++) {
        const spring *s = &set->s[i];
        double ba[3], bb[3];
        const double *pa = pt3(x1, s->m1, C, U, ba), *pb = pt3(x2, s->m2, C, U, bb);
        double u[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
        double el = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) - s->l0;
        e += el * el * s->ks / 2;
    }
    return e;
}

bool spring_text_token(spring_text *r, char *tok, size_t size)
{
    while (*r->p && isspace((unsigned char)*r->p))
        r->p++;
    if (!*r->p)
        return false;
    size_t n = 0;
    while (*r->p && !isspace((unsigned char)*r->p)) {
        if (n + 1 < size)
            tok[n++] = *r->p;
        r->p++;
    }
    tok[n] = 0;
    return true;
}

st_status spring_text_numbers(spring_text *r, const char *what, double *out, size_t count,
                              st_error *err)
{
    char tok[64];
    for (size_t i = 0; i < count; i++) {
        if (!spring_text_token(r, tok, sizeof tok))
            return st_component_error(r->owner, "spring", err, ST_EPARSE,
                                      "spring %zu: %s expects %zu numbers, the text ends after "
                                      "%zu",
                                      r->index, what, count, i);
        char *end;
        errno = 0;
        double v = strtod(tok, &end);
        if (end == tok || *end || errno == ERANGE || !isfinite(v))
            return st_component_error(r->owner, "spring", err, ST_EPARSE,
                                      "spring %zu: %s expects %zu numbers, got '%s'", r->index,
                                      what, count, tok);
        out[i] = v;
    }
    return ST_OK;
}

st_status spring_text_index(spring_text *r, const st_mstate *ms, const char *end_name,
                            unsigned *out, st_error *err)
{
    double v = 0; /* set by spring_text_numbers; GCC -O3 cannot see it */
    ST_TRY(spring_text_numbers(r, "BEGIN_SPRING", &v, 1, err));
    if (v < 0 || v != floor(v) || v >= (double)ms->n)
        return st_component_error(r->owner, "spring", err, ST_EINVAL,
                                  "spring %zu: %s index %g is not a point of '%s' (%zu points)",
                                  r->index, end_name, v, ms->base.name, ms->n);
    *out = (unsigned)v;
    return ST_OK;
}
