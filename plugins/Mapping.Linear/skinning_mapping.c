/* skinning_mapping.c - SkinningMapping (Rigid3d to Vec3d): linear blend
 * skinning. Each output point i follows the rigid frames k of its
 * `indices` with the weights w_ik (normalised to sum 1):
 *   x_i = sum_k w_ik (c_k + R_k l_ik),  l_ik = R0_k^T (p_i - c0_k)
 * with p_i its initial position (`initPos`, by default the output's
 * positions at init) and (c0_k, R0_k) frame k at init (its rest position,
 * or its position with computeWeightsFromPosition). With the rotated
 * offsets r_ik = w_ik R_k l_ik:
 *   v_i = sum_k w_ik v_k + w_k x r_ik        J_ik = [ w_ik I  -[r_ik]x ]
 *   f_k += w_ik f_i,  torque_k += r_ik x f_i  (J^T)
 * As SOFA's, the mapping is linear in its Jacobian's use (no geometric
 * stiffness) and J is taken at the last apply.
 *
 * Weights (SOFA's updateWeights, when `indices` or `weight` does not give
 * one group per output point): the nbRef[0] frames nearest to p_i, by
 * decreasing 1/d^2 (a frame at distance 0 gets the largest double), then
 * normalised. nbRef holds one count, or one per point (then used per point
 * when the weights give one group per point). A point's frames are used in
 * order up to its first weight that is not positive. `indices` and
 * `weight` are read in SOFA's text, one bracketed group per point:
 * "[ 0, 1 ] [ 1, 2 ]"; computed, they are written back in that text (the
 * weights as updateWeights normalised them). */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"

typedef struct skinning_mapping {
    map_head h;
    st_array init_pos;       /* "initPos": vec3 per output point */
    st_array nb_ref;         /* "nbRef" */
    char *indices_text;      /* "indices": SOFA's vector of SVector */
    char *weight_text;       /* "weight" */
    bool from_position;      /* "computeWeightsFromPosition" */
    unsigned show_from_index; /* "showFromIndex" (drawing) */
    bool show_weights;       /* "showWeights" (drawing) */
    /* Set at init. */
    size_t n, nin;           /* output points, input frames */
    size_t *start;           /* n + 1: point i's influences are start[i] .. start[i+1] */
    size_t *used;            /* n: how many of them apply (up to the first w <= 0) */
    unsigned *idx;           /* frame of each influence */
    double *w;               /* its normalised weight */
    double *local;           /* 3 per influence: w R0^T (p - c0) */
    double *rot;             /* 3 per influence: w R (local / w) at the last apply */
} skinning_mapping;

static void skin_free(skinning_mapping *m)
{
    st_free(m->start);
    st_free(m->used);
    st_free(m->idx);
    st_free(m->w);
    st_free(m->local);
    st_free(m->rot);
    m->start = m->used = NULL;
    m->idx = NULL;
    m->w = m->local = m->rot = NULL;
    m->n = 0;
}

/* ---- SOFA's text of a vector of SVector: "[ a, b ] [ c ]" ---- */

typedef struct groups {
    double *v;      /* the values, all groups one after another */
    size_t *start;  /* ngroups + 1 */
    size_t ngroups, nv;
} groups;

static void groups_free(groups *g)
{
    st_free(g->v);
    st_free(g->start);
    memset(g, 0, sizeof *g);
}

static bool push(void **p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return true;
    size_t nc = *cap ? 2 * *cap : 16;
    void *np = st_realloc(*p, nc * size);
    if (!np)
        return false;
    *p = np;
    *cap = nc;
    return true;
}

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    return s;
}

static st_status parse_groups(st_component *self, const char *field, const char *text, groups *g,
                              st_error *err)
{
    size_t vcap = 0, scap = 0;
    memset(g, 0, sizeof *g);
    const char *s = skip_ws(text ? text : "");
    st_status st = ST_OK;
    if (!push((void **)&g->start, &scap, 0, sizeof *g->start))
        goto oom;
    g->start[0] = 0;
    while (*s) {
        if (*s != '[') {
            st = st_component_error(self, field, err, ST_EPARSE,
                                    "group %zu: expected '[' (SOFA's \"[ a, b ] [ c ]\"), got "
                                    "'%c'",
                                    g->ngroups, *s);
            goto fail;
        }
        s = skip_ws(s + 1);
        if (*s == ']')
            s++;
        else
            for (;;) {
                char *end;
                double v = strtod(s, &end);
                if (end == s) {
                    st = st_component_error(self, field, err, ST_EPARSE,
                                            "group %zu: expected a number, got '%.10s'",
                                            g->ngroups, s);
                    goto fail;
                }
                if (!push((void **)&g->v, &vcap, g->nv, sizeof *g->v))
                    goto oom;
                g->v[g->nv++] = v;
                s = skip_ws(end);
                if (*s == ',') {
                    s = skip_ws(s + 1);
                    continue;
                }
                if (*s == ']') {
                    s++;
                    break;
                }
                st = st_component_error(self, field, err, ST_EPARSE,
                                        "group %zu: expected ',' or ']' after a value, got "
                                        "'%.10s'",
                                        g->ngroups, *s ? s : "the end");
                goto fail;
            }
        if (!push((void **)&g->start, &scap, g->ngroups + 1, sizeof *g->start))
            goto oom;
        g->start[++g->ngroups] = g->nv;
        s = skip_ws(s);
    }
    return ST_OK;
oom:
    st = st_error_set(err, ST_ENOMEM, "out of memory reading '%s' of a SkinningMapping", field);
fail:
    groups_free(g);
    return st;
}

/* ---- init ---- */

static unsigned nbref_of(const skinning_mapping *m, size_t i, bool per_point)
{
    return per_point ? m->nb_ref.u[i] : m->nb_ref.u[0];
}

/* SOFA's updateWeights: the nbRef[0] nearest frames, 1/d^2, normalised. */
static st_status nearest_weights(skinning_mapping *m, const double *from, st_error *err)
{
    unsigned nb = m->nb_ref.u[0];
    size_t total = m->n * nb;
    m->idx = st_calloc(total ? total : 1, sizeof *m->idx);
    m->w = st_calloc(total ? total : 1, sizeof *m->w);
    if (!m->idx || !m->w)
        return st_error_set(err, ST_ENOMEM, "out of memory initialising a SkinningMapping");
    for (size_t i = 0; i < m->n; i++) {
        const double *p = m->init_pos.r + 3 * i;
        unsigned *ix = m->idx + (size_t)nb * i;
        double *w = m->w + (size_t)nb * i;
        for (size_t k = 0; k < m->nin; k++) {
            const double *c = from + 7 * k;
            double d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
            double wk = st_v3_dot(d, d);
            wk = wk != 0.0 ? 1.0 / wk : DBL_MAX;
            unsigned at = 0;
            while (at != nb && w[at] > wk)
                at++;
            if (at == nb)
                continue;
            for (unsigned q = nb - 1; q > at; q--) {
                w[q] = w[q - 1];
                ix[q] = ix[q - 1];
            }
            w[at] = wk;
            ix[at] = (unsigned)k;
        }
    }
    return ST_OK;
}

/* The influences from the `indices` and `weight` texts (one group per point). */
static st_status given_weights(skinning_mapping *m, const groups *gi, const groups *gw,
                               bool per_point, st_error *err)
{
    st_component *self = &m->h.base;
    size_t total = 0;
    for (size_t i = 0; i < m->n; i++) {
        unsigned nb = nbref_of(m, i, per_point);
        size_t ni = gi->start[i + 1] - gi->start[i], nw = gw->start[i + 1] - gw->start[i];
        if (ni < nb || nw < nb)
            return st_component_error(self, ni < nb ? "indices" : "weight", err, ST_EINVAL,
                                      "point %zu has %zu %s, nbRef asks for %u", i,
                                      ni < nb ? ni : nw, ni < nb ? "indices" : "weights", nb);
        total += nb;
    }
    m->idx = st_calloc(total ? total : 1, sizeof *m->idx);
    m->w = st_calloc(total ? total : 1, sizeof *m->w);
    if (!m->idx || !m->w)
        return st_error_set(err, ST_ENOMEM, "out of memory initialising a SkinningMapping");
    size_t at = 0;
    for (size_t i = 0; i < m->n; i++) {
        unsigned nb = nbref_of(m, i, per_point);
        for (unsigned j = 0; j < nb; j++, at++) {
            double v = gi->v[gi->start[i] + j];
            if (v < 0 || v != (double)(unsigned)v || v >= (double)m->nin)
                return st_component_error(self, "indices", err, ST_EINVAL,
                                          "point %zu: index %g is not a frame of '%s' (%zu "
                                          "frames)",
                                          i, v, m->h.in->base.name, m->nin);
            m->idx[at] = (unsigned)v;
            m->w[at] = gw->v[gw->start[i] + j];
        }
    }
    return ST_OK;
}

/* SOFA's text of the groups of n points, count[i] values from v (reals or
 * indices), into a new string (NULL: out of memory). */
static char *groups_text(const skinning_mapping *m, size_t stride, bool indices)
{
    size_t cap = 64, len = 0;
    char *out = st_malloc(cap);
    if (!out)
        return NULL;
    out[0] = 0;
    for (size_t i = 0; i < m->n; i++)
        for (size_t j = 0; j <= stride; j++) {
            char item[48];
            if (j == stride)
                snprintf(item, sizeof item, " ]%s", i + 1 < m->n ? " " : "");
            else if (indices)
                snprintf(item, sizeof item, "%s%u", j ? ", " : "[ ", m->idx[stride * i + j]);
            else
                snprintf(item, sizeof item, "%s%.17g", j ? ", " : "[ ", m->w[stride * i + j]);
            size_t il = strlen(item);
            if (len + il + 1 > cap) {
                char *n = st_realloc(out, 2 * (len + il + 1));
                if (!n) {
                    st_free(out);
                    return NULL;
                }
                out = n;
                cap = 2 * (len + il + 1);
            }
            memcpy(out + len, item, il + 1);
            len += il;
        }
    return out;
}

/* SOFA's updateWeights writes the indices and weights it computed. */
static st_status write_groups(skinning_mapping *m, size_t stride, st_error *err)
{
    char *ti = groups_text(m, stride, true), *tw = groups_text(m, stride, false);
    if (!ti || !tw) {
        st_free(ti);
        st_free(tw);
        return st_error_set(err, ST_ENOMEM, "out of memory initialising a SkinningMapping");
    }
    st_free(m->indices_text);
    st_free(m->weight_text);
    m->indices_text = ti;
    m->weight_text = tw;
    st_component_touch(&m->h.base, st_component_field(&m->h.base, "indices"));
    st_component_touch(&m->h.base, st_component_field(&m->h.base, "weight"));
    return ST_OK;
}

static void skin_apply_points(skinning_mapping *m, const double *xin, double *xout)
{
    for (size_t i = 0; i < m->n; i++) {
        double *o = xout + 3 * i;
        o[0] = o[1] = o[2] = 0.0;
        for (size_t a = m->start[i]; a < m->start[i] + m->used[i]; a++) {
            const double *c = xin + 7 * (size_t)m->idx[a];
            double *r = m->rot + 3 * a;
            st_quat_rotate(r, c + 3, m->local + 3 * a);
            for (int k = 0; k < 3; k++)
                o[k] += c[k] * m->w[a] + r[k];
        }
    }
}

static void skin_apply_j_points(const skinning_mapping *m, const double *vin, double *vout)
{
    for (size_t i = 0; i < m->n; i++) {
        double *o = vout + 3 * i;
        o[0] = o[1] = o[2] = 0.0;
        for (size_t a = m->start[i]; a < m->start[i] + m->used[i]; a++) {
            const double *v = vin + 6 * (size_t)m->idx[a], *om = v + 3, *r = m->rot + 3 * a;
            double wa = m->w[a];
            o[0] += v[0] * wa + (om[1] * r[2] - om[2] * r[1]);
            o[1] += v[1] * wa + (om[2] * r[0] - om[0] * r[2]);
            o[2] += v[2] * wa + (om[0] * r[1] - om[1] * r[0]);
        }
    }
}

static void init_apply(st_component *self, const double *xin, double *xout)
{
    skin_apply_points((skinning_mapping *)self, xin, xout);
}

static void init_apply_j(st_component *self, const double *vin, double *vout)
{
    skin_apply_j_points((const skinning_mapping *)self, vin, vout);
}

static st_status skin_init(st_component *self, st_error *err)
{
    skinning_mapping *m = (skinning_mapping *)self;
    self->state = ST_CSTATE_INVALID;
    skin_free(m);
    ST_TRY(map_head_bind(&m->h, &st_rigid3d_type, &st_vec3d_type, err));
    st_mstate *in = m->h.in, *out = m->h.out;
    m->n = out->position.n;
    m->nin = in->position.n;
    if (m->nb_ref.n == 0)
        return st_component_error(self, "nbRef", err, ST_EINVAL,
                                  "nbRef is empty: give the number of frames influencing each "
                                  "point (SOFA's default: 4)");
    /* initPos: the output's positions unless it has one per point */
    if (m->init_pos.n != m->n) {
        ST_TRY(st_array_resize(&m->init_pos, ST_T_VEC3S, m->n, err));
        memcpy(m->init_pos.r, out->position.r, 3 * m->n * sizeof(double));
    }
    const double *from = m->from_position || in->rest_position.n != m->nin ? in->position.r
                                                                             : in->rest_position.r;
    groups gi, gw;
    ST_TRY(parse_groups(self, "indices", m->indices_text, &gi, err));
    st_status st = parse_groups(self, "weight", m->weight_text, &gw, err);
    if (st != ST_OK) {
        groups_free(&gi);
        return st;
    }
    bool given = gi.ngroups == m->n && gw.ngroups == m->n;
    /* SOFA reads nbRef per point when it has one value per weight group
     * (one per output point, given or computed) */
    bool per_point = m->nb_ref.n == m->n;
    if (!given && per_point)
        for (size_t i = 0; i < m->n; i++)
            if (m->nb_ref.u[i] > m->nb_ref.u[0]) {
                groups_free(&gi);
                groups_free(&gw);
                return st_component_error(self, "nbRef", err, ST_EINVAL,
                                          "nbRef[%zu] = %u: the weights computed from the "
                                          "distances have nbRef[0] = %u frames per point",
                                          i, m->nb_ref.u[i], m->nb_ref.u[0]);
            }
    if (!given && (gi.ngroups || gw.ngroups))
        st_component_warn(self, "indices (%zu groups) and weight (%zu groups) do not both give "
                                "one group per output point (%zu): the weights are computed "
                                "from the distances, as in SOFA",
                          gi.ngroups, gw.ngroups, m->n);
    st = given ? given_weights(m, &gi, &gw, per_point, err) : nearest_weights(m, from, err);
    groups_free(&gi);
    groups_free(&gw);
    ST_TRY(st);
    /* lay out the influences; normalise; precompute the local offsets */
    size_t stride = m->nb_ref.u[0];
    m->start = st_calloc(m->n + 1, sizeof *m->start);
    m->used = st_calloc(m->n ? m->n : 1, sizeof *m->used);
    size_t total = 0;
    for (size_t i = 0; i < m->n; i++)
        total += given ? nbref_of(m, i, per_point) : stride;
    m->local = st_calloc(total ? 3 * total : 1, sizeof *m->local);
    m->rot = st_calloc(total ? 3 * total : 1, sizeof *m->rot);
    if (!m->start || !m->used || !m->local || !m->rot)
        return st_error_set(err, ST_ENOMEM, "out of memory initialising a SkinningMapping");
    size_t unmapped = 0;
    for (size_t i = 0; i < m->n; i++) {
        size_t s0 = m->start[i];
        size_t count = given ? nbref_of(m, i, per_point) : stride;
        /* SOFA's reinit reads nbref per point when nbRef has one per point */
        size_t nb = per_point ? nbref_of(m, i, true) : count;
        m->start[i + 1] = s0 + count;
        double sum = 0;
        for (size_t j = 0; j < nb; j++)
            sum += m->w[s0 + j];
        if (sum != 0.0)
            for (size_t j = 0; j < nb; j++)
                m->w[s0 + j] /= sum;
        const double *p = m->init_pos.r + 3 * i;
        size_t used = 0;
        while (used < nb && m->w[s0 + used] > 0.0)
            used++;
        m->used[i] = used;
        unmapped += used == 0;
        for (size_t j = 0; j < nb; j++) {
            const double *c = from + 7 * (size_t)m->idx[s0 + j];
            const double d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
            const double qi[4] = {-c[3], -c[4], -c[5], c[6]};
            double *l = m->local + 3 * (s0 + j), *r = m->rot + 3 * (s0 + j);
            st_quat_rotate(l, qi, d);
            for (int k = 0; k < 3; k++) {
                l[k] *= m->w[s0 + j];
                r[k] = d[k] * m->w[s0 + j];
            }
        }
    }
    if (!given)
        ST_TRY(write_groups(m, stride, err));
    if (unmapped)
        st_component_warn(self, "%zu of %zu points have no positive weight: they stay at the "
                                "origin (as in SOFA)",
                          unmapped, m->n);
    ST_TRY(map_init_outputs(&m->h, init_apply, init_apply_j, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void skin_cleanup(st_component *self)
{
    skin_free((skinning_mapping *)self);
    map_head_release(&((skinning_mapping *)self)->h);
}

static bool ready(const skinning_mapping *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->n &&
           m->h.in->n == m->nin;
}

static bool ready_mech(const skinning_mapping *m) { return ready(m) && !m->h.visual; }

static void skin_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    skinning_mapping *m = (skinning_mapping *)self;
    double *xout = ready(m) ? map_head_xout(&m->h, x) : NULL;
    if (!xout)
        return;
    skin_apply_points(m, st_slice_x(x, m->h.in), xout);
    map_head_touch_visual(&m->h);
}

static void skin_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    skinning_mapping *m = (skinning_mapping *)self;
    if (ready_mech(m))
        skin_apply_j_points(m, st_slice(v, m->h.in), st_slice(v, m->h.out));
}

static void skin_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    skinning_mapping *m = (skinning_mapping *)self;
    if (!ready_mech(m))
        return;
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out);
    for (size_t i = 0; i < m->n; i++) {
        const double *fi = fout + 3 * i;
        for (size_t a = m->start[i]; a < m->start[i] + m->used[i]; a++) {
            double *F = fin + 6 * (size_t)m->idx[a], *T = F + 3;
            const double *r = m->rot + 3 * a;
            for (int k = 0; k < 3; k++)
                F[k] += fi[k] * m->w[a];
            T[0] += r[1] * fi[2] - r[2] * fi[1];
            T[1] += r[2] * fi[0] - r[0] * fi[2];
            T[2] += r[0] * fi[1] - r[1] * fi[0];
        }
    }
}

static void skin_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    skinning_mapping *m = (skinning_mapping *)self;
    if (!ready_mech(m))
        return;
    for (size_t i = 0; i < m->n; i++)
        for (size_t a = m->start[i]; a < m->start[i] + m->used[i]; a++) {
            const double *r = m->rot + 3 * a, w = m->w[a];
            /* [ w I  -[r]x ], 3 x 6 row-major */
            const double b[18] = {w, 0, 0, 0,     r[2],  -r[1], 0, w, 0, -r[2], 0,
                                  r[0], 0, 0, w, r[1], -r[0], 0};
            st_jbuilder_add(jb, i, m->h.in, m->idx[a], b);
        }
}

static const st_mapping_ops skin_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = skin_apply,
    .apply_j = skin_apply_j,
    .apply_jt = skin_apply_jt,
    .get_j = skin_get_j,
    .flags = map_head_flags,
};

static const st_field skin_fields[] = {
    MAP_HEAD_FIELDS(skinning_mapping),
    ST_VEC3S(skinning_mapping, init_pos, "initPos", "",
             "initial child coordinates in the world reference frame (default: the output's "
             "positions at init)"),
    ST_UINTS(skinning_mapping, nb_ref, "nbRef", "4",
             "Number of primitives influencing each point (one value, or one per point)"),
    ST_STRING(skinning_mapping, indices_text, "indices", NULL,
              "parent indices for each child, one bracketed group per child: \"[ 0, 1 ] [ 1, 2 "
              "]\" (default: the nbRef nearest frames)"),
    ST_STRING(skinning_mapping, weight_text, "weight", NULL,
              "influence weights of the Dofs, one bracketed group per child (normalised; "
              "default: 1/d^2 to the nearest frames)"),
    ST_BOOL(skinning_mapping, from_position, "computeWeightsFromPosition", "false",
            "By default, the weights are computed w.r.t the rest positions of the input model. "
            "Set to true to compute them from the position instead."),
    ST_IGNORED(skinning_mapping, show_from_index, "showFromIndex", ST_T_UINT, unsigned, "0",
               "Displayed From Index."),
    ST_IGNORED(skinning_mapping, show_weights, "showWeights", ST_T_BOOL, bool, "false",
               "Show influence."),
    ST_FIELD_END};

static const char *const rigid_only[] = {"Rigid3d", NULL};

const st_class skinning_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "SkinningMapping",
    .category = "Mapping",
    .description = "Linear blend skinning: points follow the rigid frames nearest to them, "
                   "weighted by 1/d^2",
    .instance_size = sizeof(skinning_mapping),
    .fields = skin_fields,
    .init = skin_init,
    .reinit = skin_init,
    .cleanup = skin_cleanup,
    .mapping = &skin_ops,
    .templates = rigid_only,
};
