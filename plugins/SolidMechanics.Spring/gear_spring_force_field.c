/* gear_spring_force_field.c - GearSpringForceField (Rigid3d): SOFA's gear
 * couplings between rigid frames. A spring `BEGIN_SPRING p1 m1 p2 m2 [AXIS
 * a1 a2] [KS_T kt] [KS_R soft hard] [KD kd] [RATIO r] END_SPRING` joins
 * gear m1 of object1 to its parent (support) frame p1, and gear m2 of
 * object2 to p2 (p = m: the gear's position at init stands for the
 * parent). Defaults (SOFA's default spring): axes 0 0, KS_T 10000, KS_R
 * 10000 10000, KD 10000, RATIO 1. Per side k, with c the gear's frame, p
 * its parent's, M(q) the rotation of a frame and a_k its free axis:
 *   fT = kt (p.centre - c.centre) + kd (v_p - v_c)            (linear)
 *   fR = hard w(M(c) e_a, M(p) e_a) + kd (w_p - w_c)         (angular)
 *   f_c += (fT, fR), f_p -= (fT, fR)  (p != c)
 * where w(u, v) = (u x v) / |u x v| atan2(|u x v|, u . v) is the rotation
 * taking u to v: the hard springs hold the gear on its parent and its axis
 * along the parent's. The gear's angle about a_k is the mean over the two
 * other axes of the signed angles from the parent's axis to the gear's
 * (getAngleAroundAxis); its change since the last force computation is
 * accumulated into angle_k after unwrapping by steps of 2/pi (SOFA's
 * M_2_PI, which is 2/pi, not 2 pi: kept). The coupling torque
 *   f = -soft (r angle_1 + angle_2)
 * is added about gear 1's axis (f) and gear 2's (f / r). add_dforce is
 * SOFA's linearisation: the translations with kt, the rotations with hard
 * on the two locked axes in the parent's last frame, and the coupling
 * -soft (r da_1 + da_2) and -soft (da_1 + da_2 / r) with da_k the
 * rotation increment about the free axis in that frame; no damping term,
 * no assembled matrix (SOFA's has neither; use a matrix-free linear solver
 * such as CGLinearSolver). SOFA's potential energy of it is always 0:
 * settee gives none. `filename` (SOFA's angle log) is refused when set. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "springs.h"

typedef struct gear_spring {
    unsigned m1, m2, p1, p2;
    unsigned axis[2];
    double kt, soft_kr, hard_kr, kd, ratio;
    /* Mutable state (SOFA's spring members). */
    double prev_angle[2], angle[2];
    double ini[2][7]; /* the parents' last frames (the gear's own at init when p = m) */
} gear_spring;

typedef struct gear_ff {
    st_component base;
    char *spring_text;  /* "spring" */
    char *filename;     /* "filename": refused when set */
    double period;      /* "period" */
    bool reinit_file;   /* "reinit" */
    double show_factor; /* "showFactorSize" */
    double rayleigh_stiffness;
    st_component *object1, *object2;
    st_mstate *ms1, *ms2;
    gear_spring *s;
    size_t n;
} gear_ff;

/* ---- the `spring` text ---- */

static st_status gs_read_one(spring_text *r, gear_spring *s, st_error *err)
{
    gear_ff *g = (gear_ff *)r->owner;
    memset(s, 0, sizeof *s);
    s->kt = s->soft_kr = s->hard_kr = s->kd = 10000.0;
    s->ratio = 1.0;
    ST_TRY(spring_text_index(r, g->ms1, "p1", &s->p1, err));
    ST_TRY(spring_text_index(r, g->ms1, "m1", &s->m1, err));
    ST_TRY(spring_text_index(r, g->ms2, "p2", &s->p2, err));
    ST_TRY(spring_text_index(r, g->ms2, "m2", &s->m2, err));
    char tok[64];
    for (;;) {
        if (!spring_text_token(r, tok, sizeof tok))
            return st_component_error(&g->base, "spring", err, ST_EPARSE,
                                      "spring %zu: the text ends before END_SPRING", r->index);
        if (!strcmp(tok, "END_SPRING"))
            break;
        if (!strcmp(tok, "AXIS")) {
            double a[2];
            ST_TRY(spring_text_numbers(r, tok, a, 2, err));
            for (int k = 0; k < 2; k++) {
                if (a[k] != 0 && a[k] != 1 && a[k] != 2)
                    return st_component_error(&g->base, "spring", err, ST_EINVAL,
                                              "spring %zu: AXIS %g is not 0, 1 or 2 (x, y, z)",
                                              r->index, a[k]);
                s->axis[k] = (unsigned)a[k];
            }
        } else if (!strcmp(tok, "KS_T")) {
            ST_TRY(spring_text_numbers(r, tok, &s->kt, 1, err));
        } else if (!strcmp(tok, "KS_R")) {
            double k[2];
            ST_TRY(spring_text_numbers(r, tok, k, 2, err));
            s->soft_kr = k[0], s->hard_kr = k[1];
        } else if (!strcmp(tok, "KD")) {
            ST_TRY(spring_text_numbers(r, tok, &s->kd, 1, err));
        } else if (!strcmp(tok, "RATIO")) {
            ST_TRY(spring_text_numbers(r, tok, &s->ratio, 1, err));
            if (s->ratio == 0.0)
                return st_component_error(&g->base, "spring", err, ST_EINVAL,
                                          "spring %zu: RATIO 0 (the second gear's torque "
                                          "divides by it)",
                                          r->index);
        } else {
            return st_component_error(&g->base, "spring", err, ST_EPARSE,
                                      "spring %zu: unknown attribute '%s' (expected AXIS, KS_T, "
                                      "KS_R, KD, RATIO or END_SPRING)",
                                      r->index, tok);
        }
    }
    return ST_OK;
}

/* ---- geometry ---- */

/* Column j of the rotation matrix of q (x y z w): q rotates e_j. */
static void gs_column(const double q[4], unsigned j, double out[3])
{
    double e[3] = {0, 0, 0};
    e[j] = 1.0;
    st_quat_rotate(out, q, e);
}

static void gs_inverse_rotate(const double q[4], const double v[3], double out[3])
{
    const double qi[4] = {-q[0], -q[1], -q[2], q[3]};
    st_quat_rotate(out, qi, v);
}

/* w = the rotation vector taking u to v. */
static void gs_vector_angle(const double u[3], const double v[3], double w[3])
{
    st_v3_cross(w, u, v);
    const double nw = st_v3_norm(w), dt = st_v3_dot(u, v);
    if (nw != 0.0)
        for (int i = 0; i < 3; i++)
            w[i] *= atan2(nw, dt) / nw;
}

/* SOFA's getAngleAroundAxis(p, c, axis): the mean over the other two axes
 * of the angle from p's to c's, signed by p's axis. */
static double gs_angle_around(const double *p, const double *c, unsigned axis)
{
    double W[3], u[3], v[3], w[3], angle = 0.0;
    gs_column(p + 3, axis, W);
    for (unsigned j = 0; j < 3; j++) {
        if (j == axis)
            continue;
        gs_column(p + 3, j, u);
        gs_column(c + 3, j, v);
        gs_vector_angle(u, v, w);
        angle += st_v3_dot(w, W) < 0 ? -st_v3_norm(w) : st_v3_norm(w);
    }
    return angle / 2.0;
}

/* SOFA's unwrapping, by M_2_PI (= 2 / pi). */
static double gs_unwrap(double a, double prev)
{
    const double step = 2.0 / 3.14159265358979323846, pi = 3.14159265358979323846;
    while (a - prev > pi)
        a -= step;
    while (a - prev < -pi)
        a += step;
    return a;
}

/* ---- lifecycle ---- */

static void gs_reset_angles(gear_ff *g)
{
    for (size_t i = 0; i < g->n; i++) {
        gear_spring *s = &g->s[i];
        const st_mstate *ms[2] = {g->ms1, g->ms2};
        const unsigned p[2] = {s->p1, s->p2}, m[2] = {s->m1, s->m2};
        for (int k = 0; k < 2; k++) {
            const double *x = ms[k]->position.r;
            if (p[k] == m[k]) {
                s->angle[k] = s->prev_angle[k] = 0.0;
                memcpy(s->ini[k], x + 7 * p[k], sizeof s->ini[k]);
            } else {
                s->angle[k] = s->prev_angle[k] =
                    gs_angle_around(x + 7 * p[k], x + 7 * m[k], s->axis[k]);
            }
        }
    }
}

static st_status gs_init(st_component *self, st_error *err)
{
    gear_ff *g = (gear_ff *)self;
    st_free(g->s);
    g->s = NULL;
    g->n = 0;
    if (g->filename && g->filename[0])
        return st_component_error(self, "filename", err, ST_EINVAL,
                                  "writing the gear angles to a file is not supported; remove "
                                  "filename");
    ST_TRY(springs_link_state(self, g->object1, "object1", &g->ms1, err));
    ST_TRY(springs_link_state(self, g->object2, "object2", &g->ms2, err));
    const st_mstate *both[2] = {g->ms1, g->ms2};
    for (int k = 0; k < 2; k++)
        if (both[k]->type != &st_rigid3d_type)
            return st_component_error(self, k ? "object2" : "object1", err, ST_ESCENE,
                                      "the state '%s' is %s: GearSpringForceField joins the "
                                      "frames of Rigid3d states",
                                      both[k]->base.name, both[k]->type->name);
    spring_text r = {.p = g->spring_text ? g->spring_text : "", .owner = &g->base};
    char tok[64];
    size_t cap = 0;
    while (spring_text_token(&r, tok, sizeof tok)) {
        if (strcmp(tok, "BEGIN_SPRING"))
            return st_component_error(self, "spring", err, ST_EPARSE,
                                      "spring %zu: expected BEGIN_SPRING, got '%s'", r.index,
                                      tok);
        if (g->n == cap) {
            size_t nc = cap ? 2 * cap : 4;
            gear_spring *ns = st_realloc(g->s, nc * sizeof *ns);
            if (!ns)
                return st_error_set(err, ST_ENOMEM, "GearSpringForceField: out of memory");
            g->s = ns, cap = nc;
        }
        ST_TRY(gs_read_one(&r, &g->s[g->n], err));
        g->n++;
        r.index++;
    }
    gs_reset_angles(g);
    return ST_OK;
}

static void gs_cleanup(st_component *self)
{
    gear_ff *g = (gear_ff *)self;
    st_free(g->s);
    g->s = NULL;
    g->n = 0;
}

/* ---- forces ---- */

static void gs_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp;
    gear_ff *g = (gear_ff *)self;
    double *fk[2] = {st_slice(f, g->ms1), st_slice(f, g->ms2)};
    const double *xk[2] = {st_slice_x(x, g->ms1), st_slice_x(x, g->ms2)};
    const double *vk[2] = {st_slice(v, g->ms1), st_slice(v, g->ms2)};
    for (size_t i = 0; i < g->n; i++) {
        gear_spring *s = &g->s[i];
        const unsigned m[2] = {s->m1, s->m2}, p[2] = {s->p1, s->p2};
        double axis[2][3];
        for (int k = 0; k < 2; k++) {
            const double *c = xk[k] + 7 * m[k];
            double dv[6];
            for (int a = 0; a < 6; a++)
                dv[a] = -vk[k][6 * m[k] + a];
            if (m[k] != p[k]) {
                memcpy(s->ini[k], xk[k] + 7 * p[k], sizeof s->ini[k]);
                for (int a = 0; a < 6; a++)
                    dv[a] += vk[k][6 * p[k] + a];
            }
            const double *cp = s->ini[k];
            double force[6], u[3], w[3], rot[3];
            for (int a = 0; a < 3; a++)
                force[a] = (cp[a] - c[a]) * s->kt + dv[a] * s->kd;
            gs_column(c + 3, s->axis[k], u);
            gs_column(cp + 3, s->axis[k], w);
            gs_vector_angle(u, w, rot);
            for (int a = 0; a < 3; a++)
                force[3 + a] = rot[a] * s->hard_kr + dv[3 + a] * s->kd;
            for (int a = 0; a < 6; a++) {
                fk[k][6 * m[k] + a] += force[a];
                if (m[k] != p[k])
                    fk[k][6 * p[k] + a] -= force[a];
            }
            gs_column(c + 3, s->axis[k], axis[k]);
            double na = gs_unwrap(gs_angle_around(cp, c, s->axis[k]), s->prev_angle[k]);
            s->angle[k] += na - s->prev_angle[k];
            s->prev_angle[k] = na;
        }
        const double t = (-s->angle[0] * s->ratio - s->angle[1]) * s->soft_kr;
        for (int a = 0; a < 3; a++) {
            fk[0][6 * m[0] + 3 + a] += axis[0][a] * t;
            fk[1][6 * m[1] + 3 + a] += axis[1][a] * t / s->ratio;
        }
    }
}

static void gs_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    gear_ff *g = (gear_ff *)self;
    double *dfk[2] = {st_slice(df, g->ms1), st_slice(df, g->ms2)};
    const double *dxk[2] = {st_slice(dx, g->ms1), st_slice(dx, g->ms2)};
    for (size_t i = 0; i < g->n; i++) {
        const gear_spring *s = &g->s[i];
        const unsigned m[2] = {s->m1, s->m2}, p[2] = {s->p1, s->p2};
        double dangle[2];
        for (int k = 0; k < 2; k++) {
            const double *q = s->ini[k] + 3;
            double d[6];
            for (int a = 0; a < 6; a++)
                d[a] = -dxk[k][6 * m[k] + a];
            if (m[k] != p[k])
                for (int a = 0; a < 6; a++)
                    d[a] += dxk[k][6 * p[k] + a];
            double dforce[6], local[3], rot[3];
            for (int a = 0; a < 3; a++)
                dforce[a] = d[a] * s->kt;
            gs_inverse_rotate(q, d + 3, local);
            for (int a = 0; a < 3; a++)
                local[a] *= a == (int)s->axis[k] ? 0.0 : s->hard_kr;
            st_quat_rotate(rot, q, local);
            memcpy(dforce + 3, rot, sizeof rot);
            for (int a = 0; a < 6; a++) {
                dfk[k][6 * m[k] + a] += dforce[a] * kfactor;
                if (m[k] != p[k])
                    dfk[k][6 * p[k] + a] -= dforce[a] * kfactor;
            }
            double lw[3];
            gs_inverse_rotate(q, dxk[k] + 6 * m[k] + 3, lw);
            dangle[k] = lw[s->axis[k]];
        }
        const double t[2] = {-s->soft_kr * (dangle[0] * s->ratio + dangle[1]),
                             -s->soft_kr * (dangle[0] + dangle[1] / s->ratio)};
        for (int k = 0; k < 2; k++) {
            double local[3] = {0, 0, 0}, rot[3];
            local[s->axis[k]] = t[k];
            st_quat_rotate(rot, s->ini[k] + 3, local);
            for (int a = 0; a < 3; a++)
                dfk[k][6 * m[k] + 3 + a] += rot[a] * kfactor;
        }
    }
}

static double gs_rayleigh(const st_component *self)
{
    return ((const gear_ff *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops gs_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = gs_add_force,
    .add_dforce = gs_add_dforce,
    .rayleigh_stiffness = gs_rayleigh,
};

static const st_field gs_fields[] = {
    ST_STRING(gear_ff, spring_text, "spring", NULL,
              "pairs of indices, stiffness, damping: 'BEGIN_SPRING p1 m1 p2 m2 [AXIS a1 a2] "
              "[KS_T k] [KS_R soft hard] [KD kd] [RATIO r] END_SPRING' per spring"),
    ST_STRING(gear_ff, filename, "filename", NULL,
              "output file name (not supported: an error when set)"),
    ST_REAL(gear_ff, period, "period", "0", "period between outputs"),
    ST_BOOL(gear_ff, reinit_file, "reinit", "false",
            "flag enabling reinitialization of the output file at each timestep"),
    ST_IGNORED(gear_ff, show_factor, "showFactorSize", ST_T_REAL, double, "1",
               "modify the size of the debug information of a given factor"),
    SPRING_F_RAYLEIGH(gear_ff),
    ST_LINK(gear_ff, object1, "object1", ST_LINK_STATE,
            "First object in interaction (default: the node's state)"),
    ST_LINK(gear_ff, object2, "object2", ST_LINK_STATE,
            "Second object in interaction (default: the node's state)"),
    ST_FIELD_END};

static const char *const gs_templates[] = {"Rigid3d", NULL};

const st_class gear_spring_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "GearSpringForceField",
    .category = "ForceField",
    .description = "Gear springs for Rigids.",
    .instance_size = sizeof(gear_ff),
    .fields = gs_fields,
    .init = gs_init,
    .reinit = gs_init,
    .cleanup = gs_cleanup,
    .forcefield = &gs_ops,
    .templates = gs_templates,
};
