/* contact_constraint.c - the Lagrangian contact responses of
 * CollisionResponse: SOFA's FrictionContactConstraint (a
 * UnilateralLagrangianConstraint per pair of models, friction mu) and
 * StickContactConstraint (a BilateralLagrangianConstraint per pair).
 *
 * Each step the pipeline detects on the positions at the start of the step
 * (x_t, as SOFA's FreeMotionAnimationLoop: the free motion is in the free
 * positions then) and contact_constraint_fill maps each detection output on
 * the models' states as SOFA's contact mappers do (barycentric on
 * triangles and lines, the vertex or centre on points and Vec3d spheres, a
 * point fixed in the body frame on Rigid3d spheres) and keeps the mapped
 * points q (first model) and p (second) at x_t. The constraint solver then
 * asks CollisionResponse (the constraint model) for its rows, at the free
 * positions:
 *   friction, mu > 0: three rows n, t, s (SOFA's frame), violation
 *     (p_free - q_free).n - distance and the tangential free displacements
 *     (contact_violation), resolution UnilateralConstraintResolutionWithFriction;
 *   mu = 0: one row n, UnilateralConstraintResolution;
 *   stick: three rows x, y, z, violation p_free - q_free - (p - q) at
 *     detection, resolution BilateralConstraintResolution3Dof.
 * J = -dir on the first side's vertices (times their weights; a rigid
 * frame gets (dir, arm x dir)), +dir on the second's; rows on mapped states
 * go down the mappings in the solver. Contacts live one step: the next
 * detection replaces them (StickContactConstraint's keepAlive keeps a
 * pair's last contacts while it has no detection). */
#include <math.h>
#include <string.h>

#include "../shared/contact_resolution.h"
#include "collision.h"

static bool rigid(const cmodel *m) { return cmodel_rigid(m); }

static unsigned rows_per_contact(const cresponse *r)
{
    return (r->kind == CR_FRICTION || r->kind == CR_AUGLAG) && r->mu > 0.0 ? 3
           : r->kind == CR_STICK                                        ? 3
                                                                        : 1;
}

st_status contact_constraint_fill(const cresponse *r, cpair *p, double d0, st_error *err)
{
    if (r->kind == CR_STICK && r->keep_alive && p->ndet == 0)
        return ST_OK;
    ST_TRY(cgrow((void **)&p->u, &p->capu, p->ndet, sizeof *p->u, err));
    p->nu = 0;
    const double *x0 = cmodel_x(p->m[0]), *x1 = cmodel_x(p->m[1]);
    for (size_t i = 0; i < p->ndet; i++) {
        const cdetect *d = &p->det[i];
        bool dup = false;
        for (size_t j = 0; j < p->nu && !dup; j++) {
            const ucontact *c = &p->u[j];
            double e = 0.0;
            for (int k = 0; k < 3; k++) {
                double a = d->p[0][k] - c->pt[0][k], b = d->p[1][k] - c->pt[1][k];
                e += a * a + b * b;
            }
            dup = e < 1e-8;
        }
        if (dup)
            continue;
        ucontact *c = &p->u[p->nu++];
        memset(c, 0, sizeof *c);
        double r1, r2;
        cside_make(p->m[0], d->e[0], d->p[0], d->w[0], &c->s[0], &r1);
        cside_make(p->m[1], d->e[1], d->p[1], d->w[1], &c->s[1], &r2);
        memcpy(c->n, d->normal, sizeof c->n);
        contact_frame(c->n, c->t, c->sv);
        c->dist = d0 + r1 + r2;
        memcpy(c->pt, d->p, sizeof c->pt);
        cside_point(p->m[0], &c->s[0], x0, c->q);
        cside_point(p->m[1], &c->s[1], x1, c->p);
        for (int k = 0; k < 3; k++)
            c->rest[k] = c->p[k] - c->q[k];
    }
    return ST_OK;
}

/* The terms of one side in a row: vertices with a non-zero weight, or the
 * rigid frame; none on a state no solver integrates. */
static unsigned side_terms(const cmodel *m, const cside *s)
{
    if (!m->ms->system)
        return 0;
    return rigid(m) ? 1 : s->n;
}

static void cc_size(st_component *self, size_t *rows, size_t *terms)
{
    cresponse *r = (cresponse *)self;
    *rows = *terms = 0;
    if (r->kind == CR_PENALTY || r->kind == CR_STICKFF || r->kind == CR_NONE)
        return;
    unsigned nr = rows_per_contact(r);
    for (size_t k = 0; k < r->npairs; k++) {
        const cpair *p = &r->pairs[k];
        for (size_t i = 0; i < p->nu; i++) {
            const ucontact *c = &p->u[i];
            *rows += nr;
            *terms += nr * (side_terms(p->m[0], &c->s[0]) + side_terms(p->m[1], &c->s[1]));
        }
    }
}

/* Appends sign * dir on the side's state to the last row of J. */
static void add_side(st_cjacobian *J, const cmodel *m, const cside *s, const double dir[3],
                     double sign)
{
    if (!m->ms->system)
        return;
    if (rigid(m)) {
        const double *a = s->arm;
        double d[6] = {sign * dir[0], sign * dir[1], sign * dir[2],
                       sign * (a[1] * dir[2] - a[2] * dir[1]),
                       sign * (a[2] * dir[0] - a[0] * dir[2]),
                       sign * (a[0] * dir[1] - a[1] * dir[0])};
        st_cjac_add(J, m->ms, s->idx[0], d, 6);
        return;
    }
    for (unsigned v = 0; v < s->n; v++) {
        if (s->w[v] == 0.0)
            continue;
        double d[3] = {sign * s->w[v] * dir[0], sign * s->w[v] * dir[1], sign * s->w[v] * dir[2]};
        st_cjac_add(J, m->ms, s->idx[v], d, 3);
    }
}

/* The side's point velocity from its state's velocities (J v). */
static void side_velocity(const cmodel *m, const cside *s, double out[3])
{
    const st_mstate *ms = m->ms;
    out[0] = out[1] = out[2] = 0.0;
    if (!ms->velocity.r || ms->velocity.n < ms->n)
        return;
    if (rigid(m)) {
        const double *v = ms->velocity.r + 6 * (size_t)s->idx[0], *w = v + 3, *a = s->arm;
        out[0] = v[0] + w[1] * a[2] - w[2] * a[1];
        out[1] = v[1] + w[2] * a[0] - w[0] * a[2];
        out[2] = v[2] + w[0] * a[1] - w[1] * a[0];
        return;
    }
    for (unsigned k = 0; k < s->n; k++)
        for (int a = 0; a < 3; a++)
            out[a] += s->w[k] * ms->velocity.r[3 * (size_t)s->idx[k] + a];
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static st_status cc_build(st_component *self, st_cjacobian *J, double *violation, st_error *err)
{
    cresponse *r = (cresponse *)self;
    if (r->kind == CR_PENALTY || r->kind == CR_STICKFF || r->kind == CR_NONE)
        return ST_OK;
    /* SOFA's VEL order (FreeMotionAnimationLoop solveVelocityConstraintFirst):
     * the states hold x_t and the free velocities; a contact's normal row
     * asks (v_P - v_Q + (P - Q) / dt).n - distance / dt, its tangent rows
     * (v_P - v_Q).t and .s (BaseContactLagrangianConstraint's
     * getVelocityViolation). */
    bool vel = J->order == ST_CORDER_VEL;
    if (vel && r->kind == CR_STICK)
        return st_component_error(self, "response", err, ST_EINVAL,
                                  "StickContactConstraint cannot solve velocity constraints in "
                                  "settee (solveVelocityConstraintFirst)");
    double inv_dt = vel ? 1.0 / st_node_dt(self->node) : 0.0;
    static const double axes[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    unsigned nr = rows_per_contact(r);
    for (size_t k = 0; k < r->npairs; k++) {
        cpair *p = &r->pairs[k];
        const double *x0 = cmodel_x(p->m[0]), *x1 = cmodel_x(p->m[1]);
        for (size_t i = 0; i < p->nu; i++) {
            ucontact *c = &p->u[i];
            double qf[3], pf[3], v[3];
            /* At the free positions (VEL order: at x_t); rigid sides take
             * their lever arm there. */
            cside_point(p->m[0], &c->s[0], x0, qf);
            cside_point(p->m[1], &c->s[1], x1, pf);
            const double *dirs[3] = {c->n, c->t, c->sv};
            if (r->kind == CR_STICK) {
                for (int a = 0; a < 3; a++) {
                    dirs[a] = axes[a];
                    v[a] = pf[a] - qf[a] - c->rest[a];
                }
            } else if (vel) {
                double vq[3], vp[3], dv[3], d[3];
                side_velocity(p->m[0], &c->s[0], vq);
                side_velocity(p->m[1], &c->s[1], vp);
                for (int a = 0; a < 3; a++) {
                    dv[a] = vp[a] - vq[a];
                    d[a] = dv[a] + (pf[a] - qf[a]) * inv_dt;
                }
                v[0] = dot3(d, c->n) - c->dist * inv_dt;
                v[1] = dot3(dv, c->t);
                v[2] = dot3(dv, c->sv);
            } else {
                contact_violation(c->p, c->q, pf, qf, c->n, c->t, c->sv, c->dist, v);
            }
            for (unsigned l = 0; l < nr; l++) {
                size_t row = st_cjac_row(J);
                add_side(J, p->m[0], &c->s[0], dirs[l], -1.0);
                add_side(J, p->m[1], &c->s[1], dirs[l], 1.0);
                violation[row] = v[l];
            }
        }
    }
    return ST_OK;
}

static void cc_init_resolution(st_component *self, size_t first, const double *W, size_t dim,
                               double *lambda)
{
    (void)lambda; /* SOFA's contacts start from zero (no warm start) */
    cresponse *r = (cresponse *)self;
    r->first = first;
    if (r->kind == CR_PENALTY || r->kind == CR_STICKFF || r->kind == CR_NONE)
        return;
    size_t row = first;
    unsigned nr = rows_per_contact(r);
    for (size_t k = 0; k < r->npairs; k++) {
        cpair *p = &r->pairs[k];
        for (size_t i = 0; i < p->nu; i++, row += nr) {
            ucontact *c = &p->u[i];
            if (r->kind == CR_FRICTION && nr == 3) {
                contact_friction_block(W, dim, row, c->w);
            } else if (r->kind == CR_STICK) {
                double blk[9];
                for (unsigned a = 0; a < 3; a++)
                    for (unsigned b = 0; b < 3; b++)
                        blk[3 * a + b] = W[(row + a) * dim + row + b];
                double det = st_m3_inverse(c->w, blk);
                if (det == 0.0 || !isfinite(det))
                    memset(c->w, 0, 9 * sizeof *c->w);
            }
        }
    }
}

static unsigned cc_block_rows(const st_component *self)
{
    return rows_per_contact((const cresponse *)self);
}

/* The contact of row (the k-th contact of the solve, pairs in order). */
static ucontact *contact_at(cresponse *r, size_t index)
{
    for (size_t k = 0; k < r->npairs; k++) {
        cpair *p = &r->pairs[k];
        if (index < p->nu)
            return &p->u[index];
        index -= p->nu;
    }
    return NULL;
}

static void cc_resolution(st_component *self, size_t row, const double *W, size_t dim,
                          const double *d, double *lambda)
{
    cresponse *r = (cresponse *)self;
    unsigned nr = rows_per_contact(r);
    if (nr == 1) {
        contact_unilateral_resolution(W, dim, row, d, lambda);
        return;
    }
    ucontact *c = contact_at(r, (row - r->first) / nr);
    if (!c)
        return;
    if (r->kind == CR_FRICTION) {
        contact_friction_resolution(r->mu, c->w, row, d, lambda);
        return;
    }
    if (r->kind == CR_AUGLAG) {
        contact_auglag_friction_resolution(r->mu, r->epsilon, row, d, lambda);
        return;
    }
    for (unsigned a = 0; a < 3; a++)
        for (unsigned b = 0; b < 3; b++)
            lambda[row + a] -= c->w[3 * a + b] * d[row + b];
}

static void cc_store(st_component *self, size_t first, const double *lambda, bool converged)
{
    (void)converged;
    cresponse *r = (cresponse *)self;
    unsigned nr = rows_per_contact(r);
    size_t row = first;
    r->active = 0;
    for (size_t k = 0; k < r->npairs; k++) {
        cpair *p = &r->pairs[k];
        for (size_t i = 0; i < p->nu; i++, row += nr) {
            ucontact *c = &p->u[i];
            for (unsigned l = 0; l < 3; l++)
                c->lambda[l] = l < nr ? lambda[row + l] : 0.0;
            if (r->kind == CR_STICK || c->lambda[0] != 0.0)
                r->active++;
        }
    }
}

const st_constraint_ops contact_constraint_ops = {
    .struct_size = sizeof(st_constraint_ops),
    .size = cc_size,
    .build = cc_build,
    .init_resolution = cc_init_resolution,
    .block_rows = cc_block_rows,
    .resolution = cc_resolution,
    .store = cc_store,
    .velocity_order = true,
};
