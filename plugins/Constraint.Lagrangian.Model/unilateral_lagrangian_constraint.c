/* unilateral_lagrangian_constraint.c - UnilateralLagrangianConstraint
 * (alias UnilateralInteractionConstraint), Vec3d: SOFA's contact constraint
 * with Coulomb friction between point pairs of two objects. In SOFA the
 * FrictionContactConstraint response fills its contacts (settee: the
 * Collision plugin's CollisionResponse does that itself); here a scene can
 * list them (settee's fields first_point, second_point, normals,
 * contactDistance, mu). Contact i: Q = object1's point first_point[i], P =
 * object2's second_point[i], normal n from Q to P; rows n (and SOFA's
 * tangents t, s when mu > 0) with J = -dir on Q, +dir on P; violation
 * (P_free - Q_free).n - contactDistance and the tangential displacements
 * from the positions at the start of the step (contact_violation);
 * resolution UnilateralConstraintResolution (mu = 0) or
 * UnilateralConstraintResolutionWithFriction (shared/contact_resolution.c),
 * no warm start, as SOFA.
 *
 * AugmentedLagrangianConstraint is the same contact set with SOFA's
 * augmented Lagrangian resolutions (settee field epsilon, as
 * AugmentedLagrangianContactParameters): without friction lambda -= d / W_ll
 * clamped at 0 (epsilon unused, as SOFA's AugmentedLagrangianResolution);
 * with mu > 0 the normal and tangential forces step by epsilon times the
 * violation (contact_auglag_friction_resolution). */
#include <math.h>
#include <string.h>

#include <settee/settee.h>

#include "model_common.h"

#include "../shared/contact_resolution.h"

typedef struct unilateral {
    st_component base;
    st_component *object1, *object2; /* "object1", "object2" */
    st_array m1, m2;                 /* "first_point", "second_point" (settee) */
    st_array normals;                /* "normals" (settee) */
    st_array dist;                   /* "contactDistance" (settee) */
    double mu;                       /* "mu" (settee) */
    double epsilon;                  /* "epsilon" (settee; AugmentedLagrangianConstraint) */
    bool augmented;                  /* set at init from the class */
    int group;                       /* "group" */
    unsigned constraint_index;       /* "constraintIndex" */
    /* Runtime. */
    st_mstate *ms1, *ms2;
    double *at;                      /* 15 per contact: Q, P at the step start, n, t, s */
    double *w;                       /* 6 per contact: W's block */
    size_t cap, first;
} unilateral;

static const st_field unilateral_fields[] = {
    LAGRANGE_PAIR_LINKS(unilateral),
    ST_UINTS(unilateral, m1, "first_point", NULL,
             "settee: index of each contact's point on the first object (SOFA fills its "
             "contacts from a FrictionContactConstraint response)"),
    ST_UINTS(unilateral, m2, "second_point", NULL,
             "settee: index of each contact's point on the second object"),
    ST_VEC3S(unilateral, normals, "normals", NULL,
             "settee: each contact's normal, from the first point to the second (one for "
             "every contact when only one is given; normalised)"),
    ST_REALS(unilateral, dist, "contactDistance", "0",
             "settee: each contact's distance (one for every contact when only one is given)"),
    ST_REAL(unilateral, mu, "mu", "0",
            "settee: friction coefficient of the contacts (0: frictionless, one row per "
            "contact), as UnilateralLagrangianContactParameters"),
    LAGRANGE_PAIR_IGNORED(unilateral),
    ST_FIELD_END};

extern const st_class augmented_lagrangian_constraint_class;

static size_t count(const unilateral *u)
{
    return u->m1.n < u->m2.n ? u->m1.n : u->m2.n;
}

static unsigned nrows(const unilateral *u) { return u->mu > 0.0 ? 3 : 1; }

static st_status uni_init(st_component *self, st_error *err)
{
    unilateral *u = (unilateral *)self;
    u->augmented = self->cls == &augmented_lagrangian_constraint_class;
    if (u->augmented && u->mu > 0.0 && !(u->epsilon > 0.0))
        return st_component_error(self, "epsilon", err, ST_EINVAL,
                                  "epsilon: %g, the augmented Lagrangian step of a friction "
                                  "contact must be > 0",
                                  u->epsilon);
    u->ms1 = u->object1 ? (st_mstate *)u->object1 : st_component_mstate(self);
    u->ms2 = u->object2 ? (st_mstate *)u->object2 : st_component_mstate(self);
    ST_TRY(lagrange_check_vec3_side(self, "first_point", u->ms1, &u->m1, err));
    ST_TRY(lagrange_check_vec3_side(self, "second_point", u->ms2, &u->m2, err));
    size_t n = count(u);
    if (u->m1.n != u->m2.n)
        return st_component_error(self, "second_point", err, ST_EINVAL,
                                  "first_point has %zu indices and second_point %zu", u->m1.n,
                                  u->m2.n);
    if (n && u->normals.n != 1 && u->normals.n != n)
        return st_component_error(self, "normals", err, ST_EINVAL,
                                  "normals: %zu given for %zu contacts (give one, or one each)",
                                  u->normals.n, n);
    if (n && u->dist.n != 1 && u->dist.n != n)
        return st_component_error(self, "contactDistance", err, ST_EINVAL,
                                  "contactDistance: %zu values for %zu contacts (give one, or "
                                  "one each)",
                                  u->dist.n, n);
    if (!(u->mu >= 0.0))
        return st_component_error(self, "mu", err, ST_EINVAL, "mu: %g is negative", u->mu);
    u->at = st_calloc(15 * (n ? n : 1), sizeof *u->at);
    u->w = st_calloc(6 * (n ? n : 1), sizeof *u->w);
    if (!u->at || !u->w)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    u->cap = n;
    for (size_t i = 0; i < n; i++) {
        double *a = u->at + 15 * i;
        const double *nn = u->normals.p;
        nn += u->normals.n == 1 ? 0 : 3 * i;
        double len = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
        if (!(len > 0.0))
            return st_component_error(self, "normals", err, ST_EINVAL,
                                      "normals: contact %zu has a zero normal", i);
        for (int k = 0; k < 3; k++)
            a[6 + k] = nn[k] / len;
        contact_frame(a + 6, a + 9, a + 12);
    }
    return ST_OK;
}

static void uni_cleanup(st_component *self)
{
    unilateral *u = (unilateral *)self;
    st_free(u->at);
    st_free(u->w);
    u->at = u->w = NULL;
    u->cap = 0;
}

/* The positions at the start of a step: SOFA's P and Q (position, while the
 * free motion goes to freePosition). */
static void uni_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    unilateral *u = (unilateral *)self;
    if (ev != ST_EVENT_ANIMATE_BEGIN || !u->ms1 || !u->ms2)
        return;
    const unsigned *m1 = u->m1.p, *m2 = u->m2.p;
    const double *x1 = u->ms1->position.p, *x2 = u->ms2->position.p;
    for (size_t i = 0; i < u->cap; i++) {
        memcpy(u->at + 15 * i, x1 + 3 * (size_t)m1[i], 3 * sizeof(double));
        memcpy(u->at + 15 * i + 3, x2 + 3 * (size_t)m2[i], 3 * sizeof(double));
    }
}

static void uni_size(st_component *self, size_t *rows, size_t *terms)
{
    unilateral *u = (unilateral *)self;
    *rows = nrows(u) * u->cap;
    *terms = 2 * *rows;
}

static st_status uni_build(st_component *self, st_cjacobian *J, double *violation, st_error *err)
{
    (void)err;
    unilateral *u = (unilateral *)self;
    const unsigned *m1 = u->m1.p, *m2 = u->m2.p;
    const double *x1 = u->ms1->position.p, *x2 = u->ms2->position.p;
    const double *dist = u->dist.p;
    unsigned nr = nrows(u);
    for (size_t i = 0; i < u->cap; i++) {
        const double *a = u->at + 15 * i;
        const double *qf = x1 + 3 * (size_t)m1[i], *pf = x2 + 3 * (size_t)m2[i];
        double v[3];
        contact_violation(a + 3, a, pf, qf, a + 6, a + 9, a + 12,
                          dist[u->dist.n == 1 ? 0 : i], v);
        for (unsigned l = 0; l < nr; l++) {
            const double *dir = a + 6 + 3 * l;
            double neg[3] = {-dir[0], -dir[1], -dir[2]};
            size_t r = st_cjac_row(J);
            st_cjac_add(J, u->ms1, m1[i], neg, 3);
            st_cjac_add(J, u->ms2, m2[i], dir, 3);
            violation[r] = v[l];
        }
    }
    return ST_OK;
}

static void uni_init_resolution(st_component *self, size_t first, const double *W, size_t dim,
                                double *lambda)
{
    (void)lambda;
    unilateral *u = (unilateral *)self;
    u->first = first;
    if (nrows(u) == 3)
        for (size_t i = 0; i < u->cap; i++)
            contact_friction_block(W, dim, first + 3 * i, u->w + 6 * i);
}

static unsigned uni_block_rows(const st_component *self)
{
    return nrows((const unilateral *)self);
}

static void uni_resolution(st_component *self, size_t row, const double *W, size_t dim,
                           const double *d, double *lambda)
{
    unilateral *u = (unilateral *)self;
    if (nrows(u) == 1)
        contact_unilateral_resolution(W, dim, row, d, lambda);
    else if (u->augmented)
        contact_auglag_friction_resolution(u->mu, u->epsilon, row, d, lambda);
    else
        contact_friction_resolution(u->mu, u->w + 6 * ((row - u->first) / 3), row, d, lambda);
}

static const st_constraint_ops unilateral_ops = {
    .struct_size = sizeof(st_constraint_ops),
    .size = uni_size,
    .build = uni_build,
    .init_resolution = uni_init_resolution,
    .block_rows = uni_block_rows,
    .resolution = uni_resolution,
};

static const char *const unilateral_aliases[] = {"UnilateralInteractionConstraint", NULL};

const st_class unilateral_lagrangian_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "UnilateralLagrangianConstraint",
    .category = "Constraint",
    .description = "Lagrangian-based inequality constraint: non-penetration contacts between "
                   "point pairs of two objects, with Coulomb friction mu",
    .aliases = unilateral_aliases,
    .instance_size = sizeof(unilateral),
    .fields = unilateral_fields,
    .init = uni_init,
    .cleanup = uni_cleanup,
    .on_event = uni_on_event,
    .constraint = &unilateral_ops,
};

static const st_field augmented_fields[] = {
    LAGRANGE_PAIR_LINKS(unilateral),
    ST_UINTS(unilateral, m1, "first_point", NULL,
             "settee: index of each contact's point on the first object (SOFA fills its "
             "contacts from an AugmentedLagrangianResponseConstraint response)"),
    ST_UINTS(unilateral, m2, "second_point", NULL,
             "settee: index of each contact's point on the second object"),
    ST_VEC3S(unilateral, normals, "normals", NULL,
             "settee: each contact's normal, from the first point to the second (one for "
             "every contact when only one is given; normalised)"),
    ST_REALS(unilateral, dist, "contactDistance", "0",
             "settee: each contact's distance (one for every contact when only one is given)"),
    ST_REAL(unilateral, mu, "mu", "0",
            "settee: friction coefficient of the contacts (0: frictionless, one row per "
            "contact), as AugmentedLagrangianContactParameters"),
    ST_REAL(unilateral, epsilon, "epsilon", "0",
            "settee: augmented Lagrangian step of the friction contacts (force change per unit "
            "of violation), as AugmentedLagrangianContactParameters"),
    LAGRANGE_PAIR_IGNORED(unilateral),
    ST_FIELD_END};

const st_class augmented_lagrangian_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "AugmentedLagrangianConstraint",
    .category = "Constraint",
    .description = "Lagrangian-based inequality constraint: contacts between point pairs of two "
                   "objects solved by the augmented Lagrangian (step epsilon), Coulomb friction mu",
    .instance_size = sizeof(unilateral),
    .fields = augmented_fields,
    .init = uni_init,
    .cleanup = uni_cleanup,
    .on_event = uni_on_event,
    .constraint = &unilateral_ops,
};
