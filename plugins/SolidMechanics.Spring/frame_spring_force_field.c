/* frame_spring_force_field.c - FrameSpringForceField: 6D springs between
 * Rigid3d frames, one per `BEGIN_SPRING m1 m2 ... END_SPRING` group of the
 * `spring` text, as SOFA's FrameSpringForceField.
 *
 * With c1, c2 the centres, q1, q2 the orientations, R1, R2 their rotations,
 * r1 = R1 vec1, r2 = R2 vec2 the attachment vectors in the world, v, w the
 * linear and angular velocities, ks, kr, kd the spring's KS_T, KS_R, KD:
 *   fT = ks ((c2 + r2) - (c1 + r1)) + kd (v2 - v1)
 *   fR = kr rotvec(q1^-1 q2)        (the rotation vector, angle in [0, pi],
 *                                    in frame 1's axes, used as a world torque)
 *   C1 = fR + r1 x fT + kd (w2 - w1)
 *   C2 = fR + r2 x fT - kd (w2 - w1)
 *   f1 += (fT, C1),  f2 -= (fT, C2)
 * so, as in SOFA, the angular damping acts on the second frame with the
 * sign that feeds its relative spin (+kd (w2 - w1) on frame 2).
 *
 * The tangent is SOFA's approximation, with R1 the rotation of frame 1 at
 * the last force computation (SOFA's springRef):
 *   df1 += (R1 (ks R1^T dv), R1 (kr R1^T dw)),  df2 -= the same,
 * with dv, dw the linear and angular parts of dx2 - dx1 (so ks dv and
 * kr dw to rounding): no derivative of r1, r2 nor of the cross products.
 * As SOFA's, it is NOT scaled by the solver's stiffness factor (SOFA's
 * addDForce does not read kFactor): an implicit solver receives K dx
 * whatever its factor. It is added whenever the kernel asks for a product
 * with a nonzero stiffness or damping factor (SOFA's addMBKdx), and there
 * is no assembled stiffness (SOFA's class has no addKToMatrix: the base
 * class's "addKToMatrix not implemented"). Both are said in a warning at
 * init when a spring has a nonzero stiffness. Potential energy: SOFA's 0
 * (none given).
 *
 * The text is read as SOFA's operator>> reads it into one reused Spring:
 * an attribute a group does not give keeps the previous group's value
 * (the first group starts from 0: KS_T 0, KS_R 0, KD 0, VEC1 and VEC2 0).
 * Where SOFA goes astray (a word other than BEGIN_SPRING, where it appends
 * a copy of the previous spring; an unknown attribute, where it logs an
 * error and reads on from the attribute's values; a missing END_SPRING),
 * settee refuses the text with the spring's index. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "springs.h"
#include "../shared/euler_quat.h"

typedef struct frame_spring {
    unsigned m1, m2;
    double vec1[3], vec2[3]; /* attachment vectors, in each frame's axes */
    double kd;               /* "KD" */
    double ks;               /* "KS_T" */
    double kr;               /* "KS_R" */
} frame_spring;

typedef struct frame_spring_ff {
    st_component base;
    char *spring_text;       /* "spring" */
    bool show_lawful;        /* "showLawfulTorsion" */
    bool show_extra;         /* "showExtraTorsion" */
    double rayleigh_stiffness;
    st_component *object1, *object2;
    st_mstate *ms1, *ms2;
    frame_spring *s;         /* n springs, owned */
    size_t n;
    double (*ref)[4];        /* n: q1 of each spring at the last add_force (SOFA's springRef) */
} frame_spring_ff;

/* Reads one group into s (BEGIN_SPRING already read), keeping s's values
 * for the attributes it does not give. */
static st_status fs_read_one(spring_text *r, frame_spring *s, st_error *err)
{
    frame_spring_ff *j = (frame_spring_ff *)r->owner;
    ST_TRY(spring_text_index(r, j->ms1, "first", &s->m1, err));
    ST_TRY(spring_text_index(r, j->ms2, "second", &s->m2, err));
    char tok[64];
    for (;;) {
        if (!spring_text_token(r, tok, sizeof tok))
            return st_component_error(&j->base, "spring", err, ST_EPARSE,
                                      "spring %zu: the text ends before END_SPRING", r->index);
        if (!strcmp(tok, "END_SPRING"))
            return ST_OK;
        if (!strcmp(tok, "KS_T"))
            ST_TRY(spring_text_numbers(r, tok, &s->ks, 1, err));
        else if (!strcmp(tok, "KS_R"))
            ST_TRY(spring_text_numbers(r, tok, &s->kr, 1, err));
        else if (!strcmp(tok, "KD"))
            ST_TRY(spring_text_numbers(r, tok, &s->kd, 1, err));
        else if (!strcmp(tok, "VEC1"))
            ST_TRY(spring_text_numbers(r, tok, s->vec1, 3, err));
        else if (!strcmp(tok, "VEC2"))
            ST_TRY(spring_text_numbers(r, tok, s->vec2, 3, err));
        else
            return st_component_error(&j->base, "spring", err, ST_EPARSE,
                                      "spring %zu: unknown attribute '%s' (expected KS_T, KS_R, "
                                      "KD, VEC1, VEC2 or END_SPRING)",
                                      r->index, tok);
    }
}

static st_status fs_parse(frame_spring_ff *j, st_error *err)
{
    spring_text r = {.p = j->spring_text ? j->spring_text : "", .owner = &j->base};
    frame_spring cur = {0};
    char tok[64];
    size_t cap = 0;
    while (spring_text_token(&r, tok, sizeof tok)) {
        if (strcmp(tok, "BEGIN_SPRING"))
            return st_component_error(&j->base, "spring", err, ST_EPARSE,
                                      "spring %zu: expected BEGIN_SPRING, got '%s'", r.index,
                                      tok);
        ST_TRY(fs_read_one(&r, &cur, err));
        if (j->n == cap) {
            size_t nc = cap ? 2 * cap : 4;
            frame_spring *ns = st_realloc(j->s, nc * sizeof *ns);
            if (!ns)
                return st_error_set(err, ST_ENOMEM, "FrameSpringForceField: out of memory");
            j->s = ns, cap = nc;
        }
        j->s[j->n++] = cur;
        r.index++;
    }
    if (j->n) {
        j->ref = st_calloc(j->n, sizeof *j->ref);
        if (!j->ref)
            return st_error_set(err, ST_ENOMEM, "FrameSpringForceField: out of memory");
        for (size_t i = 0; i < j->n; i++)
            j->ref[i][3] = 1.0;
    }
    return ST_OK;
}

static void fs_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp;
    frame_spring_ff *j = (frame_spring_ff *)self;
    const double *x1 = st_slice_x(x, j->ms1), *x2 = st_slice_x(x, j->ms2);
    const double *v1 = st_slice(v, j->ms1), *v2 = st_slice(v, j->ms2);
    double *f1 = st_slice(f, j->ms1), *f2 = st_slice(f, j->ms2);
    for (size_t i = 0; i < j->n; i++) {
        const frame_spring *s = &j->s[i];
        const double *a = x1 + 7 * (size_t)s->m1, *b = x2 + 7 * (size_t)s->m2;
        const double *va = v1 + 6 * (size_t)s->m1, *vb = v2 + 6 * (size_t)s->m2;
        memcpy(j->ref[i], a + 3, sizeof j->ref[i]);
        double r1[3], r2[3], ft[3], fr[3], inv[4], q[4], c1[3], c2[3];
        st_quat_rotate(r1, a + 3, s->vec1);
        st_quat_rotate(r2, b + 3, s->vec2);
        for (int k = 0; k < 3; k++)
            ft[k] = s->ks * ((b[k] + r2[k]) - (a[k] + r1[k])) + s->kd * (vb[k] - va[k]);
        inv[0] = -a[3], inv[1] = -a[4], inv[2] = -a[5], inv[3] = a[6];
        st_quat_mul(q, inv, b + 3);
        quat_to_rotation_vector(q, fr);
        for (int k = 0; k < 3; k++)
            fr[k] *= s->kr;
        st_v3_cross(c1, r1, ft);
        st_v3_cross(c2, r2, ft);
        for (int k = 0; k < 3; k++) {
            double dw = s->kd * (vb[3 + k] - va[3 + k]);
            f1[6 * (size_t)s->m1 + k] += ft[k];
            f1[6 * (size_t)s->m1 + 3 + k] += fr[k] + c1[k] + dw;
            f2[6 * (size_t)s->m2 + k] -= ft[k];
            f2[6 * (size_t)s->m2 + 3 + k] -= fr[k] + c2[k] - dw;
        }
    }
}

/* out = R (k (R^T v)), R the rotation of q. */
static void fs_scaled(double out[3], const double q[4], double k, const double v[3])
{
    double inv[4] = {-q[0], -q[1], -q[2], q[3]}, loc[3];
    st_quat_rotate(loc, inv, v);
    for (int a = 0; a < 3; a++)
        loc[a] *= k;
    st_quat_rotate(out, q, loc);
}

static void fs_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    (void)mp;
    frame_spring_ff *j = (frame_spring_ff *)self;
    if (kfactor == 0.0 && bfactor == 0.0)
        return;
    const double *d1 = st_slice(dx, j->ms1), *d2 = st_slice(dx, j->ms2);
    double *f1 = st_slice(df, j->ms1), *f2 = st_slice(df, j->ms2);
    for (size_t i = 0; i < j->n; i++) {
        const frame_spring *s = &j->s[i];
        const double *a = d1 + 6 * (size_t)s->m1, *b = d2 + 6 * (size_t)s->m2;
        double lin[3], ang[3], fl[3], fa[3];
        for (int k = 0; k < 3; k++)
            lin[k] = b[k] - a[k], ang[k] = b[3 + k] - a[3 + k];
        fs_scaled(fl, j->ref[i], s->ks, lin);
        fs_scaled(fa, j->ref[i], s->kr, ang);
        for (int k = 0; k < 3; k++) {
            f1[6 * (size_t)s->m1 + k] += fl[k];
            f1[6 * (size_t)s->m1 + 3 + k] += fa[k];
            f2[6 * (size_t)s->m2 + k] -= fl[k];
            f2[6 * (size_t)s->m2 + 3 + k] -= fa[k];
        }
    }
}

static double fs_rayleigh(const st_component *self)
{
    return ((const frame_spring_ff *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops fs_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = fs_add_force,
    .add_dforce = fs_add_dforce,
    .rayleigh_stiffness = fs_rayleigh,
};

static void fs_cleanup(st_component *self)
{
    frame_spring_ff *j = (frame_spring_ff *)self;
    st_free(j->s);
    st_free(j->ref);
    j->s = NULL;
    j->ref = NULL;
    j->n = 0;
}

static st_status fs_init(st_component *self, st_error *err)
{
    frame_spring_ff *j = (frame_spring_ff *)self;
    fs_cleanup(self);
    ST_TRY(springs_link_state(self, j->object1, "object1", &j->ms1, err));
    ST_TRY(springs_link_state(self, j->object2, "object2", &j->ms2, err));
    const st_mstate *both[2] = {j->ms1, j->ms2};
    for (int k = 0; k < 2; k++)
        if (both[k]->type != &st_rigid3d_type)
            return st_component_error(self, k ? "object2" : "object1", err, ST_ESCENE,
                                      "the state '%s' is %s: a FrameSpringForceField joins the "
                                      "frames of Rigid3d states",
                                      both[k]->base.name, both[k]->type->name);
    ST_TRY(fs_parse(j, err));
    if (j->n == 0) {
        st_component_warn_field(self, "spring", "no spring: the force field does nothing");
        return ST_OK;
    }
    for (size_t i = 0; i < j->n; i++)
        if (j->s[i].ks != 0.0 || j->s[i].kr != 0.0) {
            st_component_warn(self,
                              "as in SOFA, the tangent of FrameSpringForceField is not scaled "
                              "by the solver's stiffness factor and is not assembled into a "
                              "matrix: an implicit solver does not integrate these springs as "
                              "backward Euler would");
            break;
        }
    return ST_OK;
}

static const st_field fs_fields[] = {
    ST_STRING(frame_spring_ff, spring_text, "spring", NULL,
              "pairs of indices, stiffness, damping, rest length: 'BEGIN_SPRING m1 m2 [KS_T ks] "
              "[KS_R kr] [KD kd] [VEC1 x y z] [VEC2 x y z] END_SPRING' repeated (an attribute "
              "not given keeps the previous spring's value)"),
    ST_IGNORED(frame_spring_ff, show_lawful, "showLawfulTorsion", ST_T_BOOL, bool, "false",
               "display the lawful part of the joint rotation"),
    ST_IGNORED(frame_spring_ff, show_extra, "showExtraTorsion", ST_T_BOOL, bool, "false",
               "display the illicit part of the joint rotation"),
    SPRING_F_RAYLEIGH(frame_spring_ff),
    SPRING_F_OBJECTS(frame_spring_ff),
    ST_FIELD_END};

static const char *const fs_templates[] = {"Rigid3d", NULL};

const st_class frame_spring_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "FrameSpringForceField",
    .category = "ForceField",
    .description = "Springs for Flexibles: 6D springs between Rigid3d frames (translational and "
                   "rotational stiffness, damping, attachment vectors)",
    .instance_size = sizeof(frame_spring_ff),
    .fields = fs_fields,
    .init = fs_init,
    .cleanup = fs_cleanup,
    .forcefield = &fs_ops,
    .templates = fs_templates,
};
