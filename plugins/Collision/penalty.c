/* penalty.c - the penalty response. A contact's two points are mapped from
 * their models' states as SOFA's contact mappers do: on a triangle or a
 * line a barycentric combination of the element's vertices
 * (BarycentricContactMapper), on a point or a Vec3d sphere the vertex or
 * the centre itself (IdentityContactMapper, the sphere's radius joining the
 * rest distance), on a Rigid3d sphere a point fixed in the body frame
 * (RigidContactMapper, its radius joining the rest distance too). Forces go
 * to the vertices with the weights (J^T), stiffness as J^T K J. The
 * rigid mapping's geometric stiffness (the lever arm turning with the
 * frame: d(r x F) = (dtheta x r) x F, SOFA's RigidMapping applyDJT and
 * updateK with geometricStiffness 1) is added when the pair's response
 * asks for it (responseParams geometricStiffness=1); SOFA's contact mapper
 * leaves it out (its RigidMapping's default, 0), and so does settee by
 * default. */
#include <math.h>
#include <string.h>

#include "penalty.h"

static bool is_rigid(const cmodel *m) { return cmodel_rigid(m); }

/* Base of the side's coordinates: the system's vector when its state is
 * integrated there, else the state's own positions (a static model). */
static const double *side_x(const cpair *p, int k, const double *x)
{
    const st_mstate *ms = p->m[k]->ms;
    return p->in_sys[k] ? st_slice_x(x, ms) : ms->position.r;
}

/* The side's point at coordinates x; rigid sides keep their lever arm. */
void cside_point(const cmodel *m, cside *s, const double *xs, double out[3])
{
    if (is_rigid(m)) {
        const double *c = xs + 7 * (size_t)s->idx[0];
        st_quat_rotate(s->arm, c + 3, s->local);
        for (int a = 0; a < 3; a++)
            out[a] = c[a] + s->arm[a];
        return;
    }
    out[0] = out[1] = out[2] = 0.0;
    for (unsigned v = 0; v < s->n; v++) {
        const double *q = xs + 3 * (size_t)s->idx[v];
        for (int a = 0; a < 3; a++)
            out[a] += s->w[v] * q[a];
    }
}

static void side_point(const cpair *p, int k, cside *s, const double *x, double out[3])
{
    cside_point(p->m[k], s, side_x(p, k, x), out);
}

/* The side's point velocity for derivatives d (J d). */
static void side_deriv(const cpair *p, int k, const cside *s, const double *d, double out[3])
{
    out[0] = out[1] = out[2] = 0.0;
    if (!p->in_sys[k])
        return;
    const double *ds = st_slice(d, p->m[k]->ms);
    if (is_rigid(p->m[k])) {
        const double *v = ds + 6 * (size_t)s->idx[0], *w = v + 3, *r = s->arm;
        out[0] = v[0] + w[1] * r[2] - w[2] * r[1];
        out[1] = v[1] + w[2] * r[0] - w[0] * r[2];
        out[2] = v[2] + w[0] * r[1] - w[1] * r[0];
        return;
    }
    for (unsigned v = 0; v < s->n; v++) {
        const double *q = ds + 3 * (size_t)s->idx[v];
        for (int a = 0; a < 3; a++)
            out[a] += s->w[v] * q[a];
    }
}

/* fs += J^T F on model m's state (fs: the state's own derivatives). */
static void spread(const cmodel *m, const cside *s, double *fs, const double F[3])
{
    if (is_rigid(m)) {
        double *lin = fs + 6 * (size_t)s->idx[0], *ang = lin + 3;
        const double *r = s->arm;
        for (int a = 0; a < 3; a++)
            lin[a] += F[a];
        ang[0] += r[1] * F[2] - r[2] * F[1];
        ang[1] += r[2] * F[0] - r[0] * F[2];
        ang[2] += r[0] * F[1] - r[1] * F[0];
        return;
    }
    for (unsigned v = 0; v < s->n; v++) {
        double *q = fs + 3 * (size_t)s->idx[v];
        for (int a = 0; a < 3; a++)
            q[a] += s->w[v] * F[a];
    }
}

/* f_side += J^T F. */
static void side_spread(const cpair *p, int k, const cside *s, double *f, const double F[3])
{
    if (p->in_sys[k])
        spread(p->m[k], s, st_slice(f, p->m[k]->ms), F);
}

/* The stick spring's force on side 1 for points p1 p2 and point
 * velocities v1 v2 (NULL: none). */
static void stick_force(const ccontact *c, const double p1[3], const double p2[3],
                        const double *v1, const double *v2, double F[3])
{
    for (int a = 0; a < 3; a++) {
        F[a] = c->ks * (p2[a] - p1[a] - c->rest[a]);
        if (v1 && v2)
            F[a] += c->kd * (v2[a] - v1[a]);
    }
}

void penalty_add_external(cpair *p)
{
    double *fe[2];
    for (int k = 0; k < 2; k++)
        fe[k] = p->n ? st_mstate_external_force(p->m[k]->ms) : NULL;
    for (size_t i = 0; i < p->n; i++) {
        ccontact *c = &p->c[i];
        double p1[3], p2[3];
        cside_point(p->m[0], &c->s[0], p->m[0]->ms->position.r, p1);
        cside_point(p->m[1], &c->s[1], p->m[1]->ms->position.r, p2);
        if (p->kind == CR_STICKFF) {
            double F[3], G[3];
            stick_force(c, p1, p2, NULL, NULL, F);
            for (int a = 0; a < 3; a++)
                G[a] = -F[a];
            if (fe[0])
                spread(p->m[0], &c->s[0], fe[0], F);
            if (fe[1])
                spread(p->m[1], &c->s[1], fe[1], G);
            continue;
        }
        double un = (p2[0] - p1[0]) * c->norm[0] + (p2[1] - p1[1]) * c->norm[1] +
                    (p2[2] - p1[2]) * c->norm[2];
        c->pen = c->dist - un;
        if (c->pen > 0) {
            double fn = c->ks * c->pen;
            double F[3] = {-c->norm[0] * fn, -c->norm[1] * fn, -c->norm[2] * fn};
            double G[3] = {-F[0], -F[1], -F[2]};
            if (fe[0])
                spread(p->m[0], &c->s[0], fe[0], F);
            if (fe[1])
                spread(p->m[1], &c->s[1], fe[1], G);
        }
    }
}

void penalty_add_force(cpair *p, double *f, const double *x, const double *v)
{
    for (size_t i = 0; i < p->n; i++) {
        ccontact *c = &p->c[i];
        double p1[3], p2[3];
        side_point(p, 0, &c->s[0], x, p1);
        side_point(p, 1, &c->s[1], x, p2);
        if (p->kind == CR_STICKFF) {
            double v1[3], v2[3], F[3], G[3];
            side_deriv(p, 0, &c->s[0], v, v1);
            side_deriv(p, 1, &c->s[1], v, v2);
            stick_force(c, p1, p2, v1, v2, F);
            for (int a = 0; a < 3; a++)
                G[a] = -F[a];
            side_spread(p, 0, &c->s[0], f, F);
            side_spread(p, 1, &c->s[1], f, G);
            double e = 0;
            for (int a = 0; a < 3; a++)
                e += (p2[a] - p1[a] - c->rest[a]) * (p2[a] - p1[a] - c->rest[a]);
            c->pen = e; /* |u - rest|^2, for the energy */
            continue;
        }
        double un = (p2[0] - p1[0]) * c->norm[0] + (p2[1] - p1[1]) * c->norm[1] +
                    (p2[2] - p1[2]) * c->norm[2];
        c->pen = c->dist - un;
        if (c->pen > 0) {
            double fn = c->ks * c->pen;
            double F[3] = {-c->norm[0] * fn, -c->norm[1] * fn, -c->norm[2] * fn};
            double G[3] = {-F[0], -F[1], -F[2]};
            side_spread(p, 0, &c->s[0], f, F);
            side_spread(p, 1, &c->s[1], f, G);
        }
    }
}

/* The rigid side's geometric stiffness on its rotation: with F the force
 * on side k and r its lever arm, df_rot -= kfactor F x (dtheta x r)
 * (= kfactor [F]x [r]x dtheta). */
static void side_geometric(const cpair *p, int k, const cside *s, double *df, const double *dx,
                           const double F[3], double kfactor)
{
    if (!p->geometric_stiffness || !p->in_sys[k] || !is_rigid(p->m[k]))
        return;
    const double *w = st_slice(dx, p->m[k]->ms) + 6 * (size_t)s->idx[0] + 3, *r = s->arm;
    double t[3] = {w[1] * r[2] - w[2] * r[1], w[2] * r[0] - w[0] * r[2], w[0] * r[1] - w[1] * r[0]};
    double *ang = st_slice(df, p->m[k]->ms) + 6 * (size_t)s->idx[0] + 3;
    ang[0] -= kfactor * (F[1] * t[2] - F[2] * t[1]);
    ang[1] -= kfactor * (F[2] * t[0] - F[0] * t[2]);
    ang[2] -= kfactor * (F[0] * t[1] - F[1] * t[0]);
}

void penalty_add_dforce(cpair *p, double *df, const double *dx, double kfactor)
{
    for (size_t i = 0; i < p->n; i++) {
        const ccontact *c = &p->c[i];
        if (p->kind == CR_STICKFF) {
            double d1[3], d2[3], F[3], G[3];
            side_deriv(p, 0, &c->s[0], dx, d1);
            side_deriv(p, 1, &c->s[1], dx, d2);
            for (int a = 0; a < 3; a++) {
                F[a] = c->ks * kfactor * (d2[a] - d1[a]);
                G[a] = -F[a];
            }
            side_spread(p, 0, &c->s[0], df, F);
            side_spread(p, 1, &c->s[1], df, G);
            continue;
        }
        if (!(c->pen > 0))
            continue;
        double d1[3], d2[3];
        side_deriv(p, 0, &c->s[0], dx, d1);
        side_deriv(p, 1, &c->s[1], dx, d2);
        double dpen = -((d2[0] - d1[0]) * c->norm[0] + (d2[1] - d1[1]) * c->norm[1] +
                        (d2[2] - d1[2]) * c->norm[2]);
        double dfn = c->ks * dpen * kfactor;
        double F[3] = {-c->norm[0] * dfn, -c->norm[1] * dfn, -c->norm[2] * dfn};
        double G[3] = {-F[0], -F[1], -F[2]};
        side_spread(p, 0, &c->s[0], df, F);
        side_spread(p, 1, &c->s[1], df, G);
        if (p->geometric_stiffness) {
            double fn = c->ks * c->pen;
            double F0[3] = {-c->norm[0] * fn, -c->norm[1] * fn, -c->norm[2] * fn};
            double F1[3] = {-F0[0], -F0[1], -F0[2]};
            side_geometric(p, 0, &c->s[0], df, dx, F0, kfactor);
            side_geometric(p, 1, &c->s[1], df, dx, F1, kfactor);
        }
    }
}

/* The 3 x d Jacobian of side point v (a vertex weight or the rigid map). */
static unsigned side_jac(const cpair *p, int k, const cside *s, unsigned v, double J[18])
{
    if (is_rigid(p->m[k])) {
        const double *r = s->arm;
        /* d P = dv + w x r = dv - [r]x w */
        const double b[18] = {1, 0, 0, 0, r[2], -r[1], 0, 1, 0, -r[2], 0, r[0],
                              0, 0, 1, r[1], -r[0], 0};
        memcpy(J, b, sizeof b);
        return 6;
    }
    memset(J, 0, 9 * sizeof *J);
    J[0] = J[4] = J[8] = s->w[v];
    return 3;
}

/* The rigid side's geometric stiffness block: kfactor [F]x [r]x on the
 * frame's rotation (SOFA's RigidMapping updateK, geometricStiffness 1). */
static void side_geometric_k(const cpair *p, int k, const cside *s, const double F[3],
                             st_matrix *m, double kfactor)
{
    if (!p->geometric_stiffness || !p->in_sys[k] || !is_rigid(p->m[k]))
        return;
    const double *r = s->arm;
    const double fx[9] = {0, -F[2], F[1], F[2], 0, -F[0], -F[1], F[0], 0};
    const double rx[9] = {0, -r[2], r[1], r[2], 0, -r[0], -r[1], r[0], 0};
    double blk[36] = {0};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double v = 0;
            for (int q = 0; q < 3; q++)
                v += fx[3 * a + q] * rx[3 * q + b];
            blk[6 * (3 + a) + 3 + b] = kfactor * v;
        }
    st_matrix_add_block(m, p->m[k]->ms, s->idx[0], p->m[k]->ms, s->idx[0], blk);
}

/* The stick spring's tangent: df_a / dx_b = ks (a == b ? -1 : +1) Ja^T Jb. */
static void stick_add_k(cpair *p, const ccontact *c, st_matrix *m, double kfactor)
{
    for (int a = 0; a < 2; a++) {
        if (!p->in_sys[a])
            continue;
        for (int b = 0; b < 2; b++) {
            if (!p->in_sys[b])
                continue;
            double kab = c->ks * kfactor * (a == b ? -1.0 : 1.0);
            const cside *sa = &c->s[a], *sb = &c->s[b];
            for (unsigned va = 0; va < sa->n; va++)
                for (unsigned vb = 0; vb < sb->n; vb++) {
                    double w = kab * sa->w[va] * sb->w[vb];
                    double blk[9] = {w, 0, 0, 0, w, 0, 0, 0, w};
                    st_matrix_add_block(m, p->m[a]->ms, sa->idx[va], p->m[b]->ms, sb->idx[vb],
                                        blk);
                }
        }
    }
}

void penalty_add_k(cpair *p, st_matrix *m, double kfactor)
{
    for (size_t i = 0; i < p->n; i++) {
        const ccontact *c = &p->c[i];
        if (p->kind == CR_STICKFF) {
            stick_add_k(p, c, m, kfactor);
            continue;
        }
        if (!(c->pen > 0))
            continue;
        if (p->geometric_stiffness) {
            double fn = c->ks * c->pen;
            double F0[3] = {-c->norm[0] * fn, -c->norm[1] * fn, -c->norm[2] * fn};
            double F1[3] = {-F0[0], -F0[1], -F0[2]};
            side_geometric_k(p, 0, &c->s[0], F0, m, kfactor);
            side_geometric_k(p, 1, &c->s[1], F1, m, kfactor);
        }
        const double *n = c->norm;
        for (int a = 0; a < 2; a++) {
            if (!p->in_sys[a])
                continue;
            for (int b = 0; b < 2; b++) {
                if (!p->in_sys[b])
                    continue;
                /* df_a / dx_b = -ks n n^T sa sb, side signs -1 (first), +1 (second). */
                double kab = -c->ks * kfactor * (a == b ? 1.0 : -1.0);
                const cside *sa = &c->s[a], *sb = &c->s[b];
                unsigned na = is_rigid(p->m[a]) ? 1 : sa->n, nb = is_rigid(p->m[b]) ? 1 : sb->n;
                for (unsigned va = 0; va < na; va++)
                    for (unsigned vb = 0; vb < nb; vb++) {
                        double Ja[18], Jb[18], blk[36];
                        unsigned da = side_jac(p, a, sa, va, Ja);
                        unsigned db = side_jac(p, b, sb, vb, Jb);
                        /* blk = Ja^T (kab n n^T) Jb = kab (Ja^T n)(n^T Jb). */
                        double an[6] = {0}, bn[6] = {0};
                        for (unsigned r = 0; r < da; r++)
                            for (int q = 0; q < 3; q++)
                                an[r] += Ja[q * da + r] * n[q];
                        for (unsigned r = 0; r < db; r++)
                            for (int q = 0; q < 3; q++)
                                bn[r] += Jb[q * db + r] * n[q];
                        for (unsigned r = 0; r < da; r++)
                            for (unsigned q = 0; q < db; q++)
                                blk[r * db + q] = kab * an[r] * bn[q];
                        st_matrix_add_block(m, p->m[a]->ms, is_rigid(p->m[a]) ? sa->idx[0] : sa->idx[va],
                                            p->m[b]->ms, is_rigid(p->m[b]) ? sb->idx[0] : sb->idx[vb],
                                            blk);
                    }
            }
        }
    }
}

double penalty_energy(const cpair *p)
{
    double e = 0.0;
    for (size_t i = 0; i < p->n; i++)
        if (p->kind == CR_STICKFF)
            e += 0.5 * p->c[i].ks * p->c[i].pen;
        else if (p->c[i].pen > 0)
            e += 0.5 * p->c[i].ks * p->c[i].pen * p->c[i].pen;
    return e;
}

/* ---- the response: detection outputs to contacts ---- */

/* Where the contact point of element e sits on model m, for detection
 * point pt with barycentric weights w; r receives the radius the mapper
 * adds to the rest distance. */
void cside_make(const cmodel *m, unsigned e, const double pt[3], const double w[4], cside *s,
                double *r)
{
    *r = 0.0;
    memset(s, 0, sizeof *s);
    switch (m->kind) {
    case CM_TETRA:
    case CM_TRIANGLE:
    case CM_CAPSULE:
    case CM_LINE: {
        unsigned nv = m->kind == CM_LINE || m->kind == CM_CAPSULE ? 2
                      : m->kind == CM_TRIANGLE                   ? 3
                                                                 : 4;
        if (m->kind == CM_CAPSULE) /* SOFA's CapsuleContactMapper: the radius joins the rest */
            *r = cmodel_capsule_radius(m, e);
        s->n = nv;
        for (unsigned v = 0; v < nv; v++) {
            s->idx[v] = m->elems[nv * e + v];
            s->w[v] = w[v];
        }
        break;
    }
    case CM_OBB:
    case CM_RIGIDCAPSULE:
    case CM_RIGIDDGRID:
    case CM_RIGIDSPHERE: {
        const double *c = cmodel_x(m) + 7 * (size_t)e;
        double d[3] = {pt[0] - c[0], pt[1] - c[1], pt[2] - c[2]};
        double qi[4] = {-c[3], -c[4], -c[5], c[6]};
        st_quat_rotate(s->local, qi, d);
        st_quat_rotate(s->arm, c + 3, s->local);
        s->idx[0] = e;
        s->n = 1;
        s->w[0] = 1.0;
        *r = m->kind == CM_RIGIDSPHERE   ? cmodel_radius(m, e)
             : m->kind == CM_RIGIDCAPSULE ? cmodel_capsule_radius(m, e)
                                          : 0.0;
        break;
    }
    case CM_FFDDGRID:
        dgrid_ffd_side(m, e, pt, s);
        break;
    case CM_SPHERE:
        *r = cmodel_radius(m, e);
        /* fall through */
    default:
        s->idx[0] = e;
        s->w[0] = 1.0;
        s->n = 1;
        break;
    }
}

st_status cgrow(void **p, size_t *cap, size_t need, size_t size, st_error *err)
{
    if (need <= *cap)
        return ST_OK;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *q = st_realloc(*p, c * size);
    if (!q)
        return st_error_set(err, ST_ENOMEM, "out of memory growing a contact list (%zu entries)", need);
    *p = q;
    *cap = c;
    return ST_OK;
}

st_status penalty_fill(cpair *p, double d0, st_error *err)
{
    /* StickContactForceField keeps its springs through a step without
     * detection (keepAlive) */
    if (p->kind == CR_STICKFF && p->ndet == 0 && p->keep_alive)
        return ST_OK;
    /* SOFA's duplicate rule: outputs sharing an id keep the one of lower
     * value (the first of equal ones). by_id holds index + 1. */
    size_t keep = 0;
    for (size_t i = 0; i < p->ndet; i++) {
        unsigned id = p->det[i].id;
        int prev = id < p->nid ? p->by_id[id] : 0;
        if (prev > 0 && p->det[prev - 1].value <= p->det[i].value) {
            p->det[i].id = (unsigned)-1; /* dropped */
            continue;
        }
        if (prev > 0)
            p->det[prev - 1].id = (unsigned)-1;
        if (id < p->nid)
            p->by_id[id] = (int)i + 1;
    }
    for (size_t i = 0; i < p->ndet; i++) {
        if (p->det[i].id != (unsigned)-1) {
            if (p->det[i].id < p->nid)
                p->by_id[p->det[i].id] = 0;
            keep++;
        }
    }
    ST_TRY(cgrow((void **)&p->c, &p->cap, keep, sizeof *p->c, err));
    double ks0 = p->m[0]->contact_stiffness * p->m[1]->contact_stiffness;
    p->n = 0;
    for (size_t i = 0; i < p->ndet; i++) {
        const cdetect *d = &p->det[i];
        if (d->id == (unsigned)-1)
            continue;
        ccontact *c = &p->c[p->n++];
        double r1, r2;
        cside_make(p->m[0], d->e[0], d->p[0], d->w[0], &c->s[0], &r1);
        cside_make(p->m[1], d->e[1], d->p[1], d->w[1], &c->s[1], &r2);
        memcpy(c->norm, d->normal, sizeof c->norm);
        c->dist = d0 + r1 + r2;
        c->ks = c->dist != 0.0 ? ks0 / c->dist : ks0;
        c->pen = 0.0;
        if (p->kind == CR_STICKFF) {
            c->ks = p->m[0]->contact_stiffness + p->m[1]->contact_stiffness;
            c->kd = p->m[0]->contact_friction + p->m[1]->contact_friction;
            for (int a = 0; a < 3; a++)
                c->rest[a] = d->p[1][a] - d->p[0][a];
        }
        c->elem[0] = d->e[0];
        c->elem[1] = d->e[1];
        memcpy(c->pt, d->p, sizeof c->pt);
    }
    return ST_OK;
}
