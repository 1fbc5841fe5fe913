/* penality_contact_force_field.c - PenalityContactForceField as a scene
 * object: SOFA's distance-based, frictionless penalty between points of
 * object1 and object2 (the force field SOFA's CollisionResponse creates for
 * each pair of colliding models; settee's pipeline makes its own in
 * penalty.c). Its contacts are given in the scene, 11 numbers each, SOFA's
 * text: m1 m2 index1 index2 nx ny nz dist ks pen age (index1, index2 and
 * age unused, pen rewritten at each force evaluation). With u = x2[m2] -
 * x1[m1] and pen = dist - u.n, a contact with pen > 0 adds
 *   f1[m1] -= ks pen n,   f2[m2] += ks pen n,
 * and its stiffness is -ks n n^T on the relative displacement (kfactor with
 * the Rayleigh stiffness). No potential energy (SOFA's is not
 * implemented). Template: Vec3d (SOFA's one). */
#include <math.h>
#include <string.h>

#include <settee/settee.h>

enum { PC_WIDTH = 11 };

typedef struct penality_ff {
    st_component base;
    st_component *object1, *object2; /* "object1", "object2" */
    st_array contacts;               /* "contacts": PC_WIDTH reals per contact */
    double rayleigh_stiffness;
    st_mstate *ms1, *ms2;
} penality_ff;

static st_status link_state(st_component *self, st_component *link, const char *field,
                            st_mstate **out, st_error *err)
{
    *out = link ? (st_mstate *)link : st_component_mstate(self);
    if (link && !st_component_has_role(link, ST_ROLE_STATE))
        return st_component_error(self, field, err, ST_ELINK,
                                  "'%s' must link a MechanicalObject, not a %s", field,
                                  link->cls->name);
    if (!*out)
        return st_component_error(self, field, err, ST_ESCENE,
                                  "no MechanicalObject for '%s': link one or add one to the node",
                                  field);
    if ((*out)->type->deriv_size != 3 || (*out)->type->coord_size != 3)
        return st_component_error(self, field, err, ST_ESCENE,
                                  "the state '%s' is %s; PenalityContactForceField is Vec3d",
                                  (*out)->base.name, (*out)->type->name);
    return ST_OK;
}

static st_status pc_init(st_component *self, st_error *err)
{
    penality_ff *p = (penality_ff *)self;
    ST_TRY(link_state(self, p->object1, "object1", &p->ms1, err));
    ST_TRY(link_state(self, p->object2, "object2", &p->ms2, err));
    if (p->contacts.n % PC_WIDTH)
        return st_component_error(self, "contacts", err, ST_ESCENE,
                                  "%zu numbers: a contact is 11 (m1 m2 index1 index2 nx ny nz "
                                  "dist ks pen age)",
                                  p->contacts.n);
    for (size_t c = 0; c < p->contacts.n / PC_WIDTH; c++) {
        const double *r = p->contacts.r + PC_WIDTH * c;
        for (int k = 0; k < 2; k++) {
            const st_mstate *ms = k ? p->ms2 : p->ms1;
            if (!(r[k] >= 0 && r[k] == floor(r[k]) && r[k] < (double)ms->n))
                return st_component_error(self, "contacts", err, ST_ESCENE,
                                          "contact %zu: m%d = %g is not a point of '%s' (%zu "
                                          "points)",
                                          c, k + 1, r[k], ms->base.name, ms->n);
        }
    }
    return ST_OK;
}

/* A contact's record: its two points, normal (from m1 to m2), distance
 * threshold, stiffness and penetration. */
enum { PC_M1 = 0, PC_M2 = 1, PC_N = 4, PC_DIST = 7, PC_KS = 8, PC_PEN = 9 };

static void pc_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp, (void)v;
    penality_ff *p = (penality_ff *)self;
    double *f1 = st_slice(f, p->ms1), *f2 = st_slice(f, p->ms2);
    const double *x1 = st_slice_x(x, p->ms1), *x2 = st_slice_x(x, p->ms2);
    for (size_t c = 0; c < p->contacts.n / PC_WIDTH; c++) {
        double *r = p->contacts.r + PC_WIDTH * c;
        const size_t m1 = (size_t)r[PC_M1], m2 = (size_t)r[PC_M2];
        const double *n = r + PC_N;
        double u[3];
        for (int a = 0; a < 3; a++)
            u[a] = x2[3 * m2 + a] - x1[3 * m1 + a];
        r[PC_PEN] = r[PC_DIST] - (u[0] * n[0] + u[1] * n[1] + u[2] * n[2]);
        if (r[PC_PEN] > 0) {
            const double fn = r[PC_KS] * r[PC_PEN];
            for (int a = 0; a < 3; a++) {
                const double force = -n[a] * fn;
                f1[3 * m1 + a] += force;
                f2[3 * m2 + a] -= force;
            }
        }
    }
}

static void pc_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    penality_ff *p = (penality_ff *)self;
    double *df1 = st_slice(df, p->ms1), *df2 = st_slice(df, p->ms2);
    const double *dx1 = st_slice(dx, p->ms1), *dx2 = st_slice(dx, p->ms2);
    for (size_t c = 0; c < p->contacts.n / PC_WIDTH; c++) {
        const double *r = p->contacts.r + PC_WIDTH * c;
        const size_t m1 = (size_t)r[PC_M1], m2 = (size_t)r[PC_M2];
        const double *n = r + PC_N;
        if (!(r[PC_PEN] > 0))
            continue;
        double dpen = 0;
        for (int a = 0; a < 3; a++)
            dpen -= (dx2[3 * m2 + a] - dx1[3 * m1 + a]) * n[a];
        const double dfn = r[PC_KS] * dpen * kfactor;
        for (int a = 0; a < 3; a++) {
            const double d = -n[a] * dfn;
            df1[3 * m1 + a] += d;
            df2[3 * m2 + a] -= d;
        }
    }
}

static void pc_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    penality_ff *p = (penality_ff *)self;
    for (size_t c = 0; c < p->contacts.n / PC_WIDTH; c++) {
        const double *r = p->contacts.r + PC_WIDTH * c;
        const size_t m1 = (size_t)r[PC_M1], m2 = (size_t)r[PC_M2];
        const double *n = r + PC_N, k = r[PC_KS] * kfactor;
        if (!(r[PC_PEN] > 0))
            continue;
        double kb[9], nb[9];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                kb[3 * i + j] = k * n[i] * n[j];
                nb[3 * i + j] = -kb[3 * i + j];
            }
        st_matrix_add_block(m, p->ms1, m1, p->ms1, m1, nb);
        st_matrix_add_block(m, p->ms1, m1, p->ms2, m2, kb);
        st_matrix_add_block(m, p->ms2, m2, p->ms1, m1, kb);
        st_matrix_add_block(m, p->ms2, m2, p->ms2, m2, nb);
    }
}

/* Every contact may come into penetration: its four blocks, once. */
static void pc_reserve(st_component *self, const st_mparams *mp, st_matrix *m)
{
    (void)mp;
    penality_ff *p = (penality_ff *)self;
    for (size_t c = 0; c < p->contacts.n / PC_WIDTH; c++) {
        const double *r = p->contacts.r + PC_WIDTH * c;
        const size_t m1 = (size_t)r[PC_M1], m2 = (size_t)r[PC_M2];
        st_matrix_reserve_block(m, p->ms1, m1, p->ms1, m1);
        st_matrix_reserve_block(m, p->ms1, m1, p->ms2, m2);
        st_matrix_reserve_block(m, p->ms2, m2, p->ms1, m1);
        st_matrix_reserve_block(m, p->ms2, m2, p->ms2, m2);
    }
}

static double pc_rayleigh(const st_component *self)
{
    return ((const penality_ff *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops pc_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = pc_add_force,
    .add_dforce = pc_add_dforce,
    .add_k_to_matrix = pc_add_k,
    .rayleigh_stiffness = pc_rayleigh,
    .reserve_pattern = pc_reserve,
};

static const st_field pc_fields[] = {
    ST_LINK(penality_ff, object1, "object1", ST_LINK_STATE,
            "First object in interaction (default: the node's MechanicalObject)"),
    ST_LINK(penality_ff, object2, "object2", ST_LINK_STATE,
            "Second object in interaction (default: the node's MechanicalObject)"),
    ST_REALS(penality_ff, contacts, "contacts", "",
             "Contacts: m1 m2 index1 index2 nx ny nz dist ks pen age for each (the normal from "
             "m1 to m2; pen is rewritten at each force evaluation)"),
    ST_REAL(penality_ff, rayleigh_stiffness, "rayleighStiffness", "0",
            "Rayleigh damping - stiffness matrix coefficient"),
    ST_FIELD_END};

static const char *const pc_templates[] = {"Vec3d", NULL};

const st_class penality_contact_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "PenalityContactForceField",
    .category = "ForceField",
    .description = "Distance-based, frictionless penalty force between points of two states "
                   "(the response SOFA's collision pipeline creates; here with the contacts "
                   "given)",
    .instance_size = sizeof(penality_ff),
    .fields = pc_fields,
    .init = pc_init,
    .forcefield = &pc_ops,
    .templates = pc_templates,
};
