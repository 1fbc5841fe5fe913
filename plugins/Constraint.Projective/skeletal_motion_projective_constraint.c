/* skeletal_motion_projective_constraint.c - SkeletalMotionProjectiveConstraint
 * (formerly SkeletalMotionConstraint): rigid bones driven by a key-framed
 * joint hierarchy, as SOFA's. Template: Rigid3d only.
 *
 * joints is SOFA's text: "[ J, J, ... ]", each J written
 *   Parent p Channels n c_1..c_n Times n t_1..t_n PreviousMotion c NextMotion c LocalRigid c
 * (c a Rigid3d coordinate "x y z qx qy qz qw", p = -1 for a root; the words
 * are not checked, as SOFA reads them as placeholders). bones lists the joint
 * whose world frame each point of the state takes, point i <- bones[i].
 *
 * With cT = time * animationSpeed, when cT != 0:
 *  - key search (at a time s): for each joint whose channel and time counts
 *    agree, the last key with t_j <= s becomes its previous motion, the first
 *    with t_j > s its next motion (and marks the search as "found"); a joint
 *    past its last key keeps its previous next motion;
 *  - interpolation: if found, a joint with distinct previous and next times
 *    gets centre = lerp and orientation = slerp (shortest path, linear when
 *    1 - |cos| < 0.01) at a = (s - t_prev) / (t_next - t_prev); otherwise
 *    (and for every joint when nothing was found) its next motion;
 *  - world frame of a joint = L_root ... L_parent L_joint (Rigid3d product:
 *    c = c1 + q1 c2, q = q1 q2), and x[i] = world(bones[i]).
 * projectPosition sets x at s = cT. projectVelocity searches at s = cT + dt
 * (dt not scaled), and if found sets v[i] = (world(bones[i]) at cT + dt (-)
 * x_i) / dt from the state's current positions, else v = 0. The response of
 * every point is zeroed, and the matrix rows and columns of every point are
 * cleared (unit diagonal), while active. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "projective.h"

typedef struct sk_joint {
    int parent;            /* -1 for a root */
    size_t n;              /* key frames */
    double *channels;      /* 7 x n, local frames */
    double *times;         /* n */
    double prev[7], next[7], local[7], world[7];
    double prev_time, next_time;
} sk_joint;

typedef struct skeletal {
    st_component base;
    char *joints_text;      /* "joints" */
    char *bones_text;       /* "bones": SOFA's "[0, 1, ...]" */
    unsigned *bones;        /* parsed bones (owned) */
    size_t nb;
    double animation_speed; /* "animationSpeed" */
    bool active;            /* "active" */
    double end_time;        /* "endTime" */
    int group;              /* "group" (ignored) */
    st_component *topology; /* "topology" */
    st_component *mstate;   /* "mstate" */
    st_mstate *ms;          /* set by init */
    sk_joint *joints;       /* parsed joints (owned) */
    size_t nj;
    double *next_x;         /* 7 x bones: positions at cT + dt */
    bool found;             /* the last key search found a next key */
} skeletal;

static void sk_free_joints(skeletal *s)
{
    for (size_t i = 0; i < s->nj; i++) {
        st_free(s->joints[i].channels);
        st_free(s->joints[i].times);
    }
    st_free(s->joints);
    s->joints = NULL;
    s->nj = 0;
    st_free(s->next_x);
    s->next_x = NULL;
    st_free(s->bones);
    s->bones = NULL;
    s->nb = 0;
}

static void sk_cleanup(st_component *self) { sk_free_joints((skeletal *)self); }

/* A small reader over the joints text. */
typedef struct sk_reader {
    const char *p;
    const char *what; /* what was expected when it failed */
} sk_reader;

static void rd_space(sk_reader *r)
{
    while (*r->p && isspace((unsigned char)*r->p))
        r->p++;
}

static bool rd_char(sk_reader *r, char c)
{
    rd_space(r);
    if (*r->p != c)
        return false;
    r->p++;
    return true;
}

static bool rd_word(sk_reader *r, const char *what)
{
    rd_space(r);
    r->what = what;
    if (!*r->p)
        return false;
    while (*r->p && !isspace((unsigned char)*r->p))
        r->p++;
    return true;
}

static bool rd_real(sk_reader *r, double *v, const char *what)
{
    rd_space(r);
    r->what = what;
    char *end;
    *v = strtod(r->p, &end);
    if (end == r->p || !isfinite(*v))
        return false;
    r->p = end;
    return true;
}

static bool rd_count(sk_reader *r, size_t *n, const char *what)
{
    double v;
    if (!rd_real(r, &v, what) || v < 0 || v != floor(v) || v > 1e7)
        return false;
    *n = (size_t)v;
    return true;
}

static bool rd_coord(sk_reader *r, double c[7], const char *what)
{
    for (int k = 0; k < 7; k++)
        if (!rd_real(r, &c[k], what))
            return false;
    return true;
}

static bool rd_joint(sk_reader *r, sk_joint *j, bool *oom)
{
    double p;
    if (!rd_word(r, "'Parent'") || !rd_real(r, &p, "the parent index") || p != floor(p) ||
        p < -1 || p > 1e9)
        return false;
    j->parent = (int)p;
    size_t n;
    if (!rd_word(r, "'Channels'") || !rd_count(r, &n, "the number of channels"))
        return false;
    j->n = n;
    j->channels = st_calloc(n ? 7 * n : 1, sizeof *j->channels);
    j->times = st_calloc(n ? n : 1, sizeof *j->times);
    if (!j->channels || !j->times) {
        *oom = true;
        return false;
    }
    for (size_t k = 0; k < n; k++)
        if (!rd_coord(r, j->channels + 7 * k, "a channel (7 numbers: x y z qx qy qz qw)"))
            return false;
    size_t nt;
    if (!rd_word(r, "'Times'") || !rd_count(r, &nt, "the number of times"))
        return false;
    /* SOFA sizes the times by their own count; a joint whose counts differ
     * is skipped by the key search. Keep the first min(n, nt). */
    for (size_t k = 0; k < nt; k++) {
        double t;
        if (!rd_real(r, &t, "a key time"))
            return false;
        if (k < n)
            j->times[k] = t;
    }
    if (nt != n)
        j->n = 0; /* mismatched: never animated (SOFA's check) */
    return rd_word(r, "'PreviousMotion'") && rd_coord(r, j->prev, "the previous motion") &&
           rd_word(r, "'NextMotion'") && rd_coord(r, j->next, "the next motion") &&
           rd_word(r, "'LocalRigid'") && rd_coord(r, j->local, "the local rigid");
}

static st_status sk_parse_joints(skeletal *s, st_error *err)
{
    st_component *self = &s->base;
    const char *text = s->joints_text ? s->joints_text : "";
    sk_reader r = {text, "'['"};
    rd_space(&r);
    if (!*r.p)
        return ST_OK;
    if (!rd_char(&r, '['))
        return st_component_error(self, "joints", err, ST_ESCENE,
                                  "expected '[' at the start of the joints (SOFA's list "
                                  "'[ joint, joint ]')");
    if (rd_char(&r, ']'))
        return ST_OK;
    for (;;) {
        sk_joint *grown = st_realloc(s->joints, (s->nj + 1) * sizeof *grown);
        if (!grown)
            return st_component_error(self, "joints", err, ST_ENOMEM, "out of memory");
        s->joints = grown;
        sk_joint *j = &s->joints[s->nj++];
        memset(j, 0, sizeof *j);
        bool oom = false;
        if (!rd_joint(&r, j, &oom))
            return st_component_error(self, "joints", err, oom ? ST_ENOMEM : ST_ESCENE,
                                      "joint %zu: expected %s at character %zu (each joint is "
                                      "'Parent p Channels n c.. Times n t.. PreviousMotion c "
                                      "NextMotion c LocalRigid c')",
                                      s->nj - 1, r.what, (size_t)(r.p - text) + 1);
        if (rd_char(&r, ','))
            continue;
        if (rd_char(&r, ']'))
            break;
        return st_component_error(self, "joints", err, ST_ESCENE,
                                  "expected ',' or ']' after joint %zu at character %zu",
                                  s->nj - 1, (size_t)(r.p - text) + 1);
    }
    rd_space(&r);
    if (*r.p)
        return st_component_error(self, "joints", err, ST_ESCENE,
                                  "unexpected text after ']' at character %zu",
                                  (size_t)(r.p - text) + 1);
    return ST_OK;
}

/* bones: "[0, 1, 2]" as SOFA writes it; the brackets and commas may be left
 * out ("0 1 2"). */
static st_status sk_parse_bones(skeletal *s, st_error *err)
{
    st_component *self = &s->base;
    const char *text = s->bones_text ? s->bones_text : "";
    sk_reader r = {text, ""};
    bool open = rd_char(&r, '[');
    s->bones = st_calloc(strlen(text) / 2 + 1, sizeof *s->bones);
    if (!s->bones)
        return st_component_error(self, "bones", err, ST_ENOMEM, "out of memory");
    for (;;) {
        rd_space(&r);
        if (!*r.p || *r.p == ']')
            break;
        size_t b;
        if (!rd_count(&r, &b, "") || b > 0xffffffffu)
            return st_component_error(self, "bones", err, ST_ESCENE,
                                      "expected a joint index at character %zu",
                                      (size_t)(r.p - text) + 1);
        s->bones[s->nb++] = (unsigned)b;
        rd_char(&r, ',');
    }
    if (open && !rd_char(&r, ']'))
        return st_component_error(self, "bones", err, ST_ESCENE, "expected ']' at the end");
    rd_space(&r);
    if (*r.p)
        return st_component_error(self, "bones", err, ST_ESCENE,
                                  "unexpected text at character %zu", (size_t)(r.p - text) + 1);
    return ST_OK;
}

static st_status sk_init(st_component *self, st_error *err)
{
    skeletal *s = (skeletal *)self;
    sk_free_joints(s);
    s->found = false;
    ST_TRY(projective_check_mstate(self, s->mstate, err));
    s->ms = st_component_mstate(self);
    if (!s->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "Missing mstate: no MechanicalObject in this node or its "
                                  "ancestors to constrain");
    ST_TRY(sk_parse_joints(s, err));
    ST_TRY(sk_parse_bones(s, err));
    for (size_t i = 0; i < s->nj; i++) {
        /* the chain up to a root must end (SOFA would loop forever) */
        size_t steps = 0;
        for (int p = s->joints[i].parent; p != -1; p = s->joints[p].parent) {
            if (p < 0 || (size_t)p >= s->nj)
                return st_component_error(self, "joints", err, ST_ESCENE,
                                          "joint %zu: parent %d is not a joint (%zu joints, -1 "
                                          "for a root)",
                                          i, p, s->nj);
            if (++steps > s->nj)
                return st_component_error(self, "joints", err, ST_ESCENE,
                                          "joint %zu: its parents form a cycle", i);
        }
    }
    for (size_t i = 0; i < s->nb; i++)
        if ((size_t)s->bones[i] >= s->nj)
            return st_component_error(self, "bones", err, ST_ESCENE,
                                      "bone %zu: joint %u does not exist (%zu joints)", i,
                                      s->bones[i], s->nj);
    if (s->nb > s->ms->n)
        return st_component_error(self, "bones", err, ST_ESCENE,
                                  "%zu bones but the state has %zu points (one point per bone)",
                                  s->nb, s->ms->n);
    s->next_x = st_calloc(s->nb ? 7 * s->nb : 1, sizeof *s->next_x);
    if (!s->next_x)
        return st_component_error(self, NULL, err, ST_ENOMEM, "out of memory");
    return ST_OK;
}

static void sk_find_keys(skeletal *s, double ct)
{
    s->found = false;
    for (size_t i = 0; i < s->nj; i++) {
        sk_joint *j = &s->joints[i];
        for (size_t k = 0; k < j->n; k++) {
            if (j->times[k] <= ct) {
                j->prev_time = j->times[k];
                memcpy(j->prev, j->channels + 7 * k, sizeof j->prev);
            } else {
                j->next_time = j->times[k];
                memcpy(j->next, j->channels + 7 * k, sizeof j->next);
                s->found = true;
                break;
            }
        }
    }
}

/* SOFA's Quat::slerp with the shortest path. */
static void sk_slerp(double q[4], const double a[4], const double b[4], double t)
{
    double c = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3], c1, c2;
    if (1.0 - fabs(c) < 0.01) {
        c1 = 1.0 - t;
        c2 = t;
    } else {
        double ang = acos(fabs(c)), sa = sin(ang);
        c1 = sin(ang * (1.0 - t)) / sa;
        c2 = sin(ang * t) / sa;
    }
    if (c < 0)
        c1 = -c1;
    for (int k = 0; k < 4; k++)
        q[k] = c1 * a[k] + c2 * b[k];
}

/* Sets the joints' local frames at time ct, then writes the bones' world
 * frames into out (7 x bones). */
static void sk_interpolate(skeletal *s, double ct, double *out)
{
    for (size_t i = 0; i < s->nj; i++) {
        sk_joint *j = &s->joints[i];
        if (!j->n)
            continue;
        if (s->found && j->prev_time != j->next_time) {
            /* SOFA passes the fraction as a float */
            double a = (ct - j->prev_time) / (j->next_time - j->prev_time);
            a = (double)(float)a;
            for (int k = 0; k < 3; k++)
                j->local[k] = j->prev[k] + (j->next[k] - j->prev[k]) * a;
            sk_slerp(j->local + 3, j->prev + 3, j->next + 3, a);
        } else {
            memcpy(j->local, j->next, sizeof j->local);
        }
    }
    for (size_t i = 0; i < s->nj; i++) {
        double w[7];
        memcpy(w, s->joints[i].local, sizeof w);
        for (int p = s->joints[i].parent; p != -1; p = s->joints[p].parent) {
            const double *l = s->joints[p].local;
            double c[3], q[4];
            st_quat_rotate(c, l + 3, w);
            st_quat_mul(q, l + 3, w + 3);
            for (int k = 0; k < 3; k++)
                w[k] = l[k] + c[k];
            memcpy(w + 3, q, sizeof q);
        }
        memcpy(s->joints[i].world, w, sizeof w);
    }
    for (size_t b = 0; b < s->nb; b++)
        memcpy(out + 7 * b, s->joints[s->bones[b]].world, 7 * sizeof *out);
}

static bool sk_acting(const skeletal *s, const st_mparams *mp)
{
    return s->ms && s->active && projective_active(s->end_time, mp);
}

static void sk_project_response(st_component *self, const st_mparams *mp, double *dx)
{
    skeletal *s = (skeletal *)self;
    if (!sk_acting(s, mp))
        return;
    memset(st_slice(dx, s->ms), 0, s->ms->n * s->ms->type->deriv_size * sizeof *dx);
}

static void sk_project_velocity(st_component *self, const st_mparams *mp, double *v)
{
    skeletal *s = (skeletal *)self;
    if (!sk_acting(s, mp))
        return;
    double ct = st_node_time(self->node) * s->animation_speed, dt = st_node_dt(self->node);
    if (ct == 0.0)
        return;
    double *sv = st_slice(v, s->ms);
    sk_find_keys(s, ct + dt);
    if (!s->found || dt == 0.0) {
        memset(sv, 0, s->ms->n * 6 * sizeof *sv);
        return;
    }
    sk_interpolate(s, ct + dt, s->next_x);
    s->ms->type->diff(sv, s->next_x, s->ms->position.r, s->nb);
    for (size_t i = 0; i < 6 * s->nb; i++)
        sv[i] /= dt;
}

static void sk_project_position(st_component *self, const st_mparams *mp, double *x)
{
    skeletal *s = (skeletal *)self;
    if (!sk_acting(s, mp))
        return;
    double ct = st_node_time(self->node) * s->animation_speed;
    if (ct == 0.0)
        return;
    sk_find_keys(s, ct);
    sk_interpolate(s, ct, st_slice_x(x, s->ms));
}

static void sk_apply_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m)
{
    skeletal *s = (skeletal *)self;
    if (!sk_acting(s, mp))
        return;
    for (size_t i = 0; i < s->ms->n; i++)
        for (unsigned a = 0; a < s->ms->type->deriv_size; a++)
            st_matrix_project_dof(m, s->ms, i, a);
}

static const st_projective_ops sk_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_response = sk_project_response,
    .project_velocity = sk_project_velocity,
    .project_position = sk_project_position,
    .apply_to_matrix = sk_apply_to_matrix,
};

static const st_field sk_fields[] = {
    ST_STRING(skeletal, joints_text, "joints", "",
              "skeleton joints: '[ Parent p Channels n c.. Times n t.. PreviousMotion c "
              "NextMotion c LocalRigid c, ... ]'"),
    ST_STRING(skeletal, bones_text, "bones", "",
              "skeleton bones: '[j0, j1, ...]', the joint whose world frame each point of the "
              "state follows"),
    ST_REAL(skeletal, animation_speed, "animationSpeed", "1", "animation speed"),
    ST_BOOL(skeletal, active, "active", "true", "is the constraint active?"),
    PROJ_F_COMMON(skeletal, ), ST_FIELD_END};

static const char *const sk_aliases[] = {"SkeletalMotionConstraint", NULL};
static const char *const sk_templates[] = {"Rigid3d", NULL};

const st_class skeletal_motion_projective_constraint_class = {
    .struct_size = sizeof(st_class),
    .name = "SkeletalMotionProjectiveConstraint",
    .category = "ProjectiveConstraint",
    .description = "Impose a key-framed skeletal motion (translation and rotation) on the rigid "
                   "points of a MechanicalObject",
    .aliases = sk_aliases,
    .instance_size = sizeof(skeletal),
    .fields = sk_fields,
    .init = sk_init,
    .reinit = sk_init,
    .cleanup = sk_cleanup,
    .projective = &sk_ops,
    .templates = sk_templates,
};
