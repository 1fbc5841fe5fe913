/* joint_spring_force_field.c - JointSpringForceField: 6D springs between
 * the frames of Rigid3d points (SOFA's JointSpring), one per
 * `BEGIN_SPRING m1 m2 ... END_SPRING` group of the `spring` text.
 *
 * With q1, q2 the orientations of the ends (x y z w), R1 the rotation of
 * q1, c1, c2 the centres and v, w the linear and angular velocities:
 *   d   = c2 - c1 - REST_T                     (world)
 *   q   = normalise(q1^-1 q2 REST_R)           (relative, in frame 1)
 *   tau = axis * angle of q, angle in (-pi, pi]  (the "torsion")
 *   fT  = R1 (KT . R1^T d) + kd (v2 - v1)
 *   fR  = R1 fR0 + kd (w2 - w1)
 *   f1 += (fT, fR), f2 -= (fT, fR)
 * KT[i] is the soft translational stiffness on a free axis (FREE_AXIS flag
 * i set), the hard one otherwise; KR[i] likewise for rotations. fR0:
 *   - no rotation free: KR . tau;
 *   - one axis a free and tau[a] inside its limits (a pivot): KR[a] tau[a]
 *     on a, and on the two other axes the torque that brings the image of
 *     axis a back onto a, KR[b] theta (e_a x M e_a)[b], with M the matrix of
 *     q and theta the angle between e_a and M e_a;
 *   - otherwise: tau is projected into the limits (SOFA's projectTorsion:
 *     a locked axis to 0, one outside its limits to the nearer limit,
 *     counted modulo 2 pi); an axis free but outside its limits pulls back
 *     with the blocking stiffness KS_B times its part of the excess
 *     rotation (tau minus the projection, its norm taken modulo 2 pi), the
 *     others with KR[i] tau[i].
 * The tangent (add_dforce, the assembled matrix) is SOFA's: with K =
 * blockdiag(R1 diag(KT) R1^T, R1 diag(KR) R1^T) of the last force,
 * df1 = kfactor K (dx2 - dx1), df2 = -df1. It is the exact derivative at a
 * rest state (d = 0, tau = 0) away from a pivot; elsewhere it is SOFA's
 * approximation (no derivative of R1, of the pivot terms, of the damping).
 *
 * Defaults of a spring (SOFA's): translations locked, rotations free
 * (FREE_AXIS 0 0 0 1 1 1), KS_T 0 10000, KS_R 0 10000, KS_B = the hard
 * rotational stiffness / 100 when not given (or 0), KD 0, no angle limit
 * (+-100000), REST_T 0, REST_R identity. A rotation whose two limits are
 * equal is locked. As in SOFA, giving REST_T makes the spring take both
 * its rest offset and its rest orientation from the positions at the first
 * force computation (c2 - c1 and q2 q1^-1), so the REST_T and REST_R
 * values are then unused: said in a warning. SOFA's potential energy of
 * this force field is always 0: settee gives none. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "springs.h"

#define JS_PI 3.14159265358979323846

typedef struct joint_spring {
    unsigned m1, m2;
    double kd;
    double soft_kt, hard_kt, soft_kr, hard_kr, bloc_kr;
    double limits[6];     /* (min, max) per rotation axis, radians */
    bool free_axis[6];    /* translations x y z, then rotations */
    double rest_t[3];     /* REST_T (world) */
    double rest_r[4];     /* REST_R (x y z w) */
    bool rest_from_state; /* REST_T given: rest taken from the positions */
    /* Of the last force computation (SOFA's mutable spring data). */
    double ref[4];        /* q1 */
    double torsion[3], lawful[3];
    double kt[3], kr[3];
} joint_spring;

typedef struct joint_spring_ff {
    st_component base;
    char *spring_text;      /* "spring" */
    char *outfile;          /* "outfile": refused when set */
    char *infile;           /* "infile": refused when set */
    double period;          /* "period" */
    bool reinit_file;       /* "reinit" */
    bool show_lawful;       /* "showLawfulTorsion" */
    bool show_extra;        /* "showExtraTorsion" */
    double show_factor;     /* "showFactorSize" */
    double rayleigh_stiffness;
    st_component *object1, *object2;
    st_mstate *ms1, *ms2;
    joint_spring *s;        /* n springs, owned */
    size_t n;
    bool rest_pending;      /* some spring takes its rest from the positions */
} joint_spring_ff;

/* ---- the `spring` text ---- */

/* SOFA's defaults of a spring read from text. */
static void js_defaults(joint_spring *s)
{
    memset(s, 0, sizeof *s);
    s->hard_kt = 10000.0;
    s->hard_kr = 10000.0;
    for (int a = 0; a < 3; a++) {
        s->free_axis[3 + a] = true;
        s->limits[2 * a] = -100000.0;
        s->limits[2 * a + 1] = 100000.0;
    }
    s->rest_r[3] = 1.0;
    s->ref[3] = 1.0;
}

/* Reads one BEGIN_SPRING ... END_SPRING group (BEGIN_SPRING already read). */
static st_status js_read_one(spring_text *r, joint_spring *s, st_error *err)
{
    joint_spring_ff *j = (joint_spring_ff *)r->owner;
    js_defaults(s);
    ST_TRY(spring_text_index(r, j->ms1, "first", &s->m1, err));
    ST_TRY(spring_text_index(r, j->ms2, "second", &s->m2, err));
    char tok[64];
    for (;;) {
        if (!spring_text_token(r, tok, sizeof tok))
            return st_component_error(&j->base, "spring", err, ST_EPARSE,
                                      "spring %zu: the text ends before END_SPRING", r->index);
        if (!strcmp(tok, "END_SPRING"))
            break;
        if (!strcmp(tok, "FREE_AXIS")) {
            double f[6];
            ST_TRY(spring_text_numbers(r, tok, f, 6, err));
            for (int a = 0; a < 6; a++)
                s->free_axis[a] = f[a] != 0.0;
        } else if (!strcmp(tok, "KS_T")) {
            double k[2];
            ST_TRY(spring_text_numbers(r, tok, k, 2, err));
            s->soft_kt = k[0], s->hard_kt = k[1];
        } else if (!strcmp(tok, "KS_R")) {
            double k[2];
            ST_TRY(spring_text_numbers(r, tok, k, 2, err));
            s->soft_kr = k[0], s->hard_kr = k[1];
        } else if (!strcmp(tok, "KS_B")) {
            ST_TRY(spring_text_numbers(r, tok, &s->bloc_kr, 1, err));
        } else if (!strcmp(tok, "KD")) {
            ST_TRY(spring_text_numbers(r, tok, &s->kd, 1, err));
        } else if (!strcmp(tok, "R_LIM_X") || !strcmp(tok, "R_LIM_Y") ||
                   !strcmp(tok, "R_LIM_Z")) {
            int a = tok[6] - 'X';
            ST_TRY(spring_text_numbers(r, tok, s->limits + 2 * a, 2, err));
        } else if (!strcmp(tok, "REST_T")) {
            ST_TRY(spring_text_numbers(r, tok, s->rest_t, 3, err));
            s->rest_from_state = true;
        } else if (!strcmp(tok, "REST_R")) {
            ST_TRY(spring_text_numbers(r, tok, s->rest_r, 4, err));
        } else {
            return st_component_error(&j->base, "spring", err, ST_EPARSE,
                                      "spring %zu: unknown attribute '%s' (expected FREE_AXIS, "
                                      "KS_T, KS_R, KS_B, KD, R_LIM_X, R_LIM_Y, R_LIM_Z, REST_T, "
                                      "REST_R or END_SPRING)",
                                      r->index, tok);
        }
    }
    if (s->bloc_kr == 0.0)
        s->bloc_kr = s->hard_kr / 100.0;
    for (int a = 0; a < 3; a++)
        if (s->limits[2 * a] == s->limits[2 * a + 1])
            s->free_axis[3 + a] = false;
    if (s->rest_from_state)
        st_component_warn_field(&j->base, "spring",
                                "spring %zu: REST_T is given, so (as in SOFA) the rest offset "
                                "and orientation are taken from the positions of the two "
                                "points; the REST_T and REST_R values are not used",
                                r->index);
    return ST_OK;
}

static st_status js_parse(joint_spring_ff *j, st_error *err)
{
    spring_text r = {.p = j->spring_text ? j->spring_text : "", .owner = &j->base};
    char tok[64];
    size_t cap = 0;
    while (spring_text_token(&r, tok, sizeof tok)) {
        if (strcmp(tok, "BEGIN_SPRING"))
            return st_component_error(&j->base, "spring", err, ST_EPARSE,
                                      "spring %zu: expected BEGIN_SPRING, got '%s'", r.index,
                                      tok);
        if (j->n == cap) {
            size_t nc = cap ? 2 * cap : 4;
            joint_spring *ns = st_realloc(j->s, nc * sizeof *ns);
            if (!ns)
                return st_error_set(err, ST_ENOMEM, "JointSpringForceField: out of memory");
            j->s = ns, cap = nc;
        }
        ST_TRY(js_read_one(&r, &j->s[j->n], err));
        j->rest_pending |= j->s[j->n].rest_from_state;
        j->n++;
        r.index++;
    }
    return ST_OK;
}

/* ---- geometry ---- */

static void js_quat_inv(double out[4], const double q[4])
{
    out[0] = -q[0], out[1] = -q[1], out[2] = -q[2], out[3] = q[3];
}

/* Rotation matrix (row-major) of a unit quaternion. */
static void js_quat_matrix(const double q[4], double m[9])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    m[0] = 1 - 2 * (y * y + z * z), m[1] = 2 * (x * y - z * w), m[2] = 2 * (x * z + y * w);
    m[3] = 2 * (x * y + z * w), m[4] = 1 - 2 * (x * x + z * z), m[5] = 2 * (y * z - x * w);
    m[6] = 2 * (x * z - y * w), m[7] = 2 * (y * z + x * w), m[8] = 1 - 2 * (x * x + y * y);
}

/* out = R diag(k) R^T v, R the rotation of q. */
static void js_rotated_scale(double out[3], const double q[4], const double k[3],
                             const double v[3])
{
    double inv[4], loc[3];
    js_quat_inv(inv, q);
    st_quat_rotate(loc, inv, v);
    for (int a = 0; a < 3; a++)
        loc[a] *= k[a];
    st_quat_rotate(out, q, loc);
}

/* The rest of the springs given REST_T, from the positions x (SOFA's bwdInit). */
static void js_rest_from(joint_spring_ff *j, const double *x1, const double *x2)
{
    for (size_t i = 0; i < j->n; i++) {
        joint_spring *s = &j->s[i];
        if (!s->rest_from_state)
            continue;
        const double *a = x1 + 7 * (size_t)s->m1, *b = x2 + 7 * (size_t)s->m2;
        double inv[4];
        for (int k = 0; k < 3; k++)
            s->rest_t[k] = b[k] - a[k];
        js_quat_inv(inv, a + 3);
        st_quat_mul(s->rest_r, b + 3, inv);
    }
    j->rest_pending = false;
}

/* SOFA's projectTorsion: tau into the allowed angles. */
static void js_project(joint_spring *s)
{
    for (int a = 0; a < 3; a++) {
        double t = s->torsion[a], lo = s->limits[2 * a], hi = s->limits[2 * a + 1];
        if (!s->free_axis[3 + a])
            s->lawful[a] = 0.0;
        else if (t > lo && t < hi)
            s->lawful[a] = t;
        else {
            double d1 = t > 0 ? t - hi : t - hi + 2 * JS_PI;
            double d2 = t > 0 ? lo + 2 * JS_PI - t : lo - t;
            s->lawful[a] = d1 < d2 ? hi : lo;
        }
    }
}

/* The rotational torque in frame 1 (fR0 above); updates s->kr. */
static void js_torque(joint_spring *s, const double q[4], double fr0[3])
{
    const bool *fa = s->free_axis + 3;
    const double *t = s->torsion;
    if (!fa[0] && !fa[1] && !fa[2]) {
        for (int a = 0; a < 3; a++)
            fr0[a] = t[a] * s->kr[a];
        return;
    }
    for (int a = 0; a < 3; a++) {
        int b = (a + 1) % 3, c = (a + 2) % 3;
        if (fa[a] && !fa[b] && !fa[c] && t[a] > s->limits[2 * a] && t[a] < s->limits[2 * a + 1]) {
            /* pivot about axis a: m = M e_a, the image of the axis */
            double M[9];
            js_quat_matrix(q, M);
            double m[3] = {M[a], M[3 + a], M[6 + a]};
            double theta = atan2(sqrt(m[b] * m[b] + m[c] * m[c]), m[a]);
            /* e_a x m has components (.., -m[c], m[b]) on (b, c) */
            fr0[a] = t[a] * s->kr[a];
            fr0[b] = -m[c] * theta * s->kr[b];
            fr0[c] = m[b] * theta * s->kr[c];
            return;
        }
    }
    js_project(s);
    double extra[3];
    for (int a = 0; a < 3; a++)
        extra[a] = t[a] - s->lawful[a];
    double psi = st_v3_norm(extra);
    if (psi > 0) {
        double wrapped = psi;
        while (wrapped > JS_PI)
            wrapped -= 2 * JS_PI;
        for (int a = 0; a < 3; a++)
            extra[a] *= wrapped / psi;
    }
    for (int a = 0; a < 3; a++) {
        if (fa[a] && t[a] != s->lawful[a]) {
            s->kr[a] = s->bloc_kr;
            fr0[a] = extra[a] * s->kr[a];
        } else
            fr0[a] = t[a] * s->kr[a];
    }
}

/* ---- role functions ---- */

static void js_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp;
    joint_spring_ff *j = (joint_spring_ff *)self;
    const double *x1 = st_slice_x(x, j->ms1), *x2 = st_slice_x(x, j->ms2);
    const double *v1 = st_slice(v, j->ms1), *v2 = st_slice(v, j->ms2);
    double *f1 = st_slice(f, j->ms1), *f2 = st_slice(f, j->ms2);
    if (j->rest_pending)
        js_rest_from(j, x1, x2);
    for (size_t i = 0; i < j->n; i++) {
        joint_spring *s = &j->s[i];
        const double *a = x1 + 7 * (size_t)s->m1, *b = x2 + 7 * (size_t)s->m2;
        const double *va = v1 + 6 * (size_t)s->m1, *vb = v2 + 6 * (size_t)s->m2;
        memcpy(s->ref, a + 3, sizeof s->ref);
        double d[3], inv[4], q[4];
        for (int k = 0; k < 3; k++)
            d[k] = b[k] - a[k] - s->rest_t[k];
        js_quat_inv(inv, a + 3);
        st_quat_mul(q, inv, b + 3);
        st_quat_mul(q, q, s->rest_r);
        st_quat_normalize(q);
        /* axis-angle with the angle in [0, pi] (SOFA's quatToAxis) */
        double qa[4] = {q[0], q[1], q[2], q[3]}, axis[3], phi = 0.0;
        if (qa[3] < 0)
            for (int k = 0; k < 4; k++)
                qa[k] = -qa[k];
        st_quat_to_axis(qa, axis, &phi);
        while (phi < -JS_PI)
            phi += 2 * JS_PI;
        while (phi > JS_PI)
            phi -= 2 * JS_PI;
        for (int k = 0; k < 3; k++)
            s->torsion[k] = axis[k] * phi;
        for (int k = 0; k < 3; k++) {
            s->kt[k] = s->free_axis[k] ? s->soft_kt : s->hard_kt;
            s->kr[k] = s->free_axis[3 + k] ? s->soft_kr : s->hard_kr;
        }
        double ft[3], fr0[3], fr[3];
        js_rotated_scale(ft, s->ref, s->kt, d);
        js_torque(s, q, fr0);
        st_quat_rotate(fr, s->ref, fr0);
        for (int k = 0; k < 3; k++) {
            double lin = ft[k] + (vb[k] - va[k]) * s->kd;
            double ang = fr[k] + (vb[3 + k] - va[3 + k]) * s->kd;
            f1[6 * (size_t)s->m1 + k] += lin;
            f1[6 * (size_t)s->m1 + 3 + k] += ang;
            f2[6 * (size_t)s->m2 + k] -= lin;
            f2[6 * (size_t)s->m2 + 3 + k] -= ang;
        }
    }
}

static void js_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    joint_spring_ff *j = (joint_spring_ff *)self;
    const double *d1 = st_slice(dx, j->ms1), *d2 = st_slice(dx, j->ms2);
    double *f1 = st_slice(df, j->ms1), *f2 = st_slice(df, j->ms2);
    for (size_t i = 0; i < j->n; i++) {
        const joint_spring *s = &j->s[i];
        const double *a = d1 + 6 * (size_t)s->m1, *b = d2 + 6 * (size_t)s->m2;
        double lin[3], ang[3], fl[3], fa[3];
        for (int k = 0; k < 3; k++)
            lin[k] = b[k] - a[k], ang[k] = b[3 + k] - a[3 + k];
        js_rotated_scale(fl, s->ref, s->kt, lin);
        js_rotated_scale(fa, s->ref, s->kr, ang);
        for (int k = 0; k < 3; k++) {
            f1[6 * (size_t)s->m1 + k] += fl[k] * kfactor;
            f1[6 * (size_t)s->m1 + 3 + k] += fa[k] * kfactor;
            f2[6 * (size_t)s->m2 + k] -= fl[k] * kfactor;
            f2[6 * (size_t)s->m2 + 3 + k] -= fa[k] * kfactor;
        }
    }
}

/* The 6x6 block K = blockdiag(R diag(kt) R^T, R diag(kr) R^T) of a spring. */
static void js_block(const joint_spring *s, double K[36])
{
    double R[9];
    memset(K, 0, 36 * sizeof *K);
    js_quat_matrix(s->ref, R);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            double t = 0, o = 0;
            for (int k = 0; k < 3; k++) {
                t += R[3 * r + k] * s->kt[k] * R[3 * c + k];
                o += R[3 * r + k] * s->kr[k] * R[3 * c + k];
            }
            K[6 * r + c] = t;
            K[6 * (3 + r) + 3 + c] = o;
        }
}

static void js_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    joint_spring_ff *j = (joint_spring_ff *)self;
    for (size_t i = 0; i < j->n; i++) {
        const joint_spring *s = &j->s[i];
        double K[36], neg[36];
        js_block(s, K);
        for (int k = 0; k < 36; k++) {
            K[k] *= kfactor;
            neg[k] = -K[k];
        }
        /* df1 = K (dx2 - dx1), df2 = -df1 */
        st_matrix_add_block(m, j->ms1, s->m1, j->ms1, s->m1, neg);
        st_matrix_add_block(m, j->ms1, s->m1, j->ms2, s->m2, K);
        st_matrix_add_block(m, j->ms2, s->m2, j->ms1, s->m1, K);
        st_matrix_add_block(m, j->ms2, s->m2, j->ms2, s->m2, neg);
    }
}

static double js_rayleigh(const st_component *self)
{
    return ((const joint_spring_ff *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops js_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = js_add_force,
    .add_dforce = js_add_dforce,
    .add_k_to_matrix = js_add_k,
    .rayleigh_stiffness = js_rayleigh,
};

/* ---- life cycle ---- */

static st_status js_init(st_component *self, st_error *err)
{
    joint_spring_ff *j = (joint_spring_ff *)self;
    st_free(j->s);
    j->s = NULL;
    j->n = 0;
    j->rest_pending = false;
    static const char *const files[2] = {"outfile", "infile"};
    const char *given[2] = {j->outfile, j->infile};
    for (int k = 0; k < 2; k++)
        if (given[k] && given[k][0])
            return st_component_error(self, files[k], err, ST_EINVAL,
                                      "'%s' ('%s') is not supported by settee yet: the %s file "
                                      "of a JointSpringForceField is neither read nor written",
                                      files[k], given[k], k ? "constant joint force" : "output");
    ST_TRY(springs_link_state(self, j->object1, "object1", &j->ms1, err));
    ST_TRY(springs_link_state(self, j->object2, "object2", &j->ms2, err));
    const st_mstate *both[2] = {j->ms1, j->ms2};
    for (int k = 0; k < 2; k++)
        if (both[k]->type != &st_rigid3d_type)
            return st_component_error(self, k ? "object2" : "object1", err, ST_ESCENE,
                                      "the state '%s' is %s: a JointSpringForceField joins the "
                                      "frames of Rigid3d states",
                                      both[k]->base.name, both[k]->type->name);
    ST_TRY(js_parse(j, err));
    if (j->n == 0)
        st_component_warn_field(self, "spring", "no spring: the force field does nothing");
    return ST_OK;
}

static void js_cleanup(st_component *self)
{
    joint_spring_ff *j = (joint_spring_ff *)self;
    st_free(j->s);
    j->s = NULL;
    j->n = 0;
}

/* The rest taken from the positions is state that the steps made. */
static st_status js_transfer(st_component *self, st_checkpoint *ck, st_error *err)
{
    joint_spring_ff *j = (joint_spring_ff *)self;
    ST_TRY(st_checkpoint_data(ck, &j->rest_pending, sizeof j->rest_pending, err));
    for (size_t i = 0; i < j->n; i++) {
        ST_TRY(st_checkpoint_data(ck, j->s[i].rest_t, sizeof j->s[i].rest_t, err));
        ST_TRY(st_checkpoint_data(ck, j->s[i].rest_r, sizeof j->s[i].rest_r, err));
    }
    return ST_OK;
}

static const st_checkpoint_ops js_ck = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = js_transfer,
};

static const st_field js_fields[] = {
    ST_STRING(joint_spring_ff, spring_text, "spring", NULL,
              "The springs, each 'BEGIN_SPRING m1 m2 [FREE_AXIS tx ty tz rx ry rz] [KS_T soft "
              "hard] [KS_R soft hard] [KS_B k] [KD kd] [R_LIM_X min max] [R_LIM_Y min max] "
              "[R_LIM_Z min max] [REST_T x y z] [REST_R x y z w] END_SPRING' (pairs of indices, "
              "stiffness, damping, rest length)"),
    ST_STRING(joint_spring_ff, outfile, "outfile", NULL,
              "output file name (not supported yet: an error when set)"),
    ST_STRING(joint_spring_ff, infile, "infile", NULL,
              "input file containing constant joint force (not supported yet: an error when "
              "set)"),
    ST_IGNORED(joint_spring_ff, period, "period", ST_T_REAL, double, "0",
               "period between outputs (of outfile, not supported yet)"),
    ST_IGNORED(joint_spring_ff, reinit_file, "reinit", ST_T_BOOL, bool, "false",
               "flag enabling reinitialization of the output file at each timestep (of "
               "outfile, not supported yet)"),
    ST_IGNORED(joint_spring_ff, show_lawful, "showLawfulTorsion", ST_T_BOOL, bool, "false",
               "display the lawful part of the joint rotation"),
    ST_IGNORED(joint_spring_ff, show_extra, "showExtraTorsion", ST_T_BOOL, bool, "false",
               "display the illicit part of the joint rotation"),
    ST_IGNORED(joint_spring_ff, show_factor, "showFactorSize", ST_T_REAL, double, "1",
               "modify the size of the debug information of a given factor"),
    SPRING_F_RAYLEIGH(joint_spring_ff),
    SPRING_F_OBJECTS(joint_spring_ff),
    ST_FIELD_END};

static const char *const js_templates[] = {"Rigid3d", NULL};

const st_class joint_spring_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "JointSpringForceField",
    .category = "ForceField",
    .description = "6D springs between the frames of Rigid3d points (joints with free axes, "
                   "angle limits and soft and hard stiffnesses)",
    .instance_size = sizeof(joint_spring_ff),
    .fields = js_fields,
    .init = js_init,
    .cleanup = js_cleanup,
    .forcefield = &js_ops,
    .checkpoint = &js_ck,
    .templates = js_templates,
};
