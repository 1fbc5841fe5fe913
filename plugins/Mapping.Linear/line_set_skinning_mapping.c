/* line_set_skinning_mapping.c - LineSetSkinningMapping (Rigid3d -> Vec3d):
 * points skinned on a set of rigid lines, as SOFA's. The lines are the
 * edges of the topology of the input's node (or above); line l moves with
 * the frame of its first point.
 *
 * At init, for each output point p (positions of the input and output at
 * init):
 *  - every line gets the weight  w = |l| / 1000  sum_{i=0..1000}
 *    |a + i (b - a) / 1000 - p|^-weightCoef  (SOFA's "false integration");
 *  - the lines are sorted by decreasing weight (SOFA's insertion, a later
 *    line of equal weight first), each with p's position in its first
 *    frame, R^T (p - c);
 *  - p keeps the heaviest line and, in that order, up to
 *    numberInfluencedLines - 1 more among the lines within neighborhoodLevel
 *    of it (SOFA's neighbourhood: lines l2 with l1[0] = l2[0], l1[0] = l2[1]
 *    or l1[1] = l2[0], grown neighborhoodLevel - 1 times), and the weights
 *    are normalised.
 * Then x_p = sum w (c + R local) (SOFA's order: w c, then R (w local)),
 * v_p = sum w (v_c - R local x omega), and J^T adds w f to the frame's force
 * and w (R local) x f to its torque. SOFA's applyJT first clears the whole
 * force vector of the frames (losing what their own force fields added);
 * settee adds, as every mapping's J^T does. neighborhoodLevel 0, which
 * SOFA loops over 2^32 times, is an error. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"

typedef struct lss_mapping {
    map_head h;
    unsigned neighborhood_level;
    unsigned influenced;
    int weight_coef;
    /* Set at init. */
    size_t n, nin;
    size_t *start;   /* n + 1 */
    unsigned *frame; /* per influence: the frame (the line's first point) */
    double *w;       /* per influence: its normalised weight */
    double *local;   /* per influence: 3, R0^T (p - c0) */
    double *rot;     /* per influence: 3, R local at the last apply */
} lss_mapping;

static void lss_free(lss_mapping *m)
{
    st_free(m->start), st_free(m->frame), st_free(m->w), st_free(m->local), st_free(m->rot);
    m->start = NULL, m->frame = NULL, m->w = NULL, m->local = NULL, m->rot = NULL;
    m->n = 0;
}

static double convolution(const double *a, const double *b, const double *p, int coef)
{
    const int steps = 1000;
    double line[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, sum = 0.0;
    for (int i = 0; i <= steps; i++) {
        double d[3];
        for (int k = 0; k < 3; k++)
            d[k] = ((line[k] * i) / steps + a[k]) - p[k];
        sum += pow(1 / sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), coef);
    }
    sum *= sqrt(line[0] * line[0] + line[1] * line[1] + line[2] * line[2]) / steps;
    return sum;
}

/* SOFA's neighbourhoods of the lines as an nl x nl membership table. */
static bool *neighbourhoods(const unsigned *e, size_t nl, unsigned level)
{
    bool *direct = st_calloc(nl * nl + 1, sizeof *direct);
    bool *nb = st_calloc(nl * nl + 1, sizeof *nb);
    bool *next = st_calloc(nl + 1, sizeof *next);
    if (!direct || !nb || !next) {
        st_free(direct), st_free(nb), st_free(next);
        return NULL;
    }
    for (size_t i = 0; i < nl; i++)
        for (size_t j = 0; j < nl; j++)
            direct[i * nl + j] = e[2 * i] == e[2 * j] || e[2 * i] == e[2 * j + 1] ||
                                 e[2 * i + 1] == e[2 * j];
    memcpy(nb, direct, nl * nl * sizeof *nb);
    for (size_t i = 0; i < nl; i++)
        for (unsigned it = 0; it + 1 < level; it++) {
            memcpy(next, nb + i * nl, nl * sizeof *next);
            for (size_t j = 0; j < nl; j++)
                if (nb[i * nl + j])
                    for (size_t k = 0; k < nl; k++)
                        next[k] = next[k] || direct[j * nl + k];
            memcpy(nb + i * nl, next, nl * sizeof *next);
        }
    st_free(direct), st_free(next);
    return nb;
}

typedef struct ranked {
    unsigned line;
    double w, pos[3];
} ranked;

static void lss_apply_points(lss_mapping *m, const double *xin, double *xout)
{
    for (size_t i = 0; i < m->n; i++) {
        double *o = xout + 3 * i;
        o[0] = o[1] = o[2] = 0.0;
        for (size_t a = m->start[i]; a < m->start[i + 1]; a++) {
            const double *c = xin + 7 * (size_t)m->frame[a], w = m->w[a];
            const double lw[3] = {m->local[3 * a] * w, m->local[3 * a + 1] * w,
                                  m->local[3 * a + 2] * w};
            double r[3];
            st_quat_rotate(r, c + 3, lw);
            st_quat_rotate(m->rot + 3 * a, c + 3, m->local + 3 * a);
            for (int k = 0; k < 3; k++) {
                o[k] += c[k] * w;
                o[k] += r[k];
            }
        }
    }
}

static void lss_apply_j_points(const lss_mapping *m, const double *vin, double *vout)
{
    for (size_t i = 0; i < m->n; i++) {
        double *o = vout + 3 * i;
        o[0] = o[1] = o[2] = 0.0;
        for (size_t a = m->start[i]; a < m->start[i + 1]; a++) {
            const double *v = vin + 6 * (size_t)m->frame[a], *om = v + 3, *ip = m->rot + 3 * a;
            const double w = m->w[a];
            const double c[3] = {ip[1] * om[2] - ip[2] * om[1], ip[2] * om[0] - ip[0] * om[2],
                                 ip[0] * om[1] - ip[1] * om[0]};
            for (int k = 0; k < 3; k++)
                o[k] += (v[k] - c[k]) * w;
        }
    }
}

static void init_apply(st_component *self, const double *xin, double *xout)
{
    lss_apply_points((lss_mapping *)self, xin, xout);
}

static void init_apply_j(st_component *self, const double *vin, double *vout)
{
    lss_apply_j_points((const lss_mapping *)self, vin, vout);
}

/* The weights and local positions of every output point (SOFA's init). */
static st_status lss_weights(lss_mapping *m, const unsigned *e, size_t nl, st_error *err)
{
    st_component *self = &m->h.base;
    const double *xin = m->h.in->position.r, *xout = m->h.out->position.r;
    bool *nb = neighbourhoods(e, nl, m->neighborhood_level);
    ranked *lines = st_calloc(nl + 1, sizeof *lines);
    m->start = st_calloc(m->n + 1, sizeof *m->start);
    size_t cap = m->n * (m->influenced ? m->influenced : 1) + 1;
    m->frame = st_calloc(cap, sizeof *m->frame);
    m->w = st_calloc(cap, sizeof *m->w);
    m->local = st_calloc(3 * cap, sizeof *m->local);
    m->rot = st_calloc(3 * cap, sizeof *m->rot);
    if (!nb || !lines || !m->start || !m->frame || !m->w || !m->local || !m->rot) {
        st_free(nb), st_free(lines);
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu points and %zu lines", m->n,
                            nl);
    }
    size_t used = 0;
    for (size_t p = 0; p < m->n; p++) {
        const double *x = xout + 3 * p;
        memset(lines, 0, nl * sizeof *lines);
        for (size_t l = 0; l < nl; l++) {
            const double *c = xin + 7 * (size_t)e[2 * l];
            const double w = convolution(c, xin + 7 * (size_t)e[2 * l + 1], x, m->weight_coef);
            for (size_t s = 0; s < nl; s++) {
                if (!(lines[s].w <= w))
                    continue;
                memmove(lines + s + 1, lines + s, (nl - 1 - s) * sizeof *lines);
                lines[s].line = (unsigned)l;
                lines[s].w = w;
                const double d[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
                const double qi[4] = {-c[3], -c[4], -c[5], c[6]};
                st_quat_rotate(lines[s].pos, qi, d);
                break;
            }
        }
        const unsigned best = lines[0].line;
        size_t first = used;
        double sum = 0.0;
        for (size_t s = 0; s < nl && (s == 0 || used - first < m->influenced); s++) {
            if (s > 0 && !nb[(size_t)best * nl + lines[s].line])
                continue;
            sum += lines[s].w;
            m->frame[used] = e[2 * (size_t)lines[s].line];
            m->w[used] = lines[s].w;
            memcpy(m->local + 3 * used, lines[s].pos, sizeof lines[s].pos);
            used++;
        }
        for (size_t a = first; a < used; a++)
            m->w[a] /= sum;
        m->start[p + 1] = used;
    }
    st_free(nb), st_free(lines);
    (void)self;
    return ST_OK;
}

static st_status lss_init(st_component *self, st_error *err)
{
    lss_mapping *m = (lss_mapping *)self;
    self->state = ST_CSTATE_INVALID;
    lss_free(m);
    ST_TRY(map_head_bind(&m->h, &st_rigid3d_type, &st_vec3d_type, err));
    if (m->neighborhood_level == 0)
        return st_component_error(self, "neighborhoodLevel", err, ST_EINVAL,
                                  "neighborhoodLevel is 0: at least 1 (SOFA grows the "
                                  "neighbourhood neighborhoodLevel - 1 times)");
    m->n = m->h.out->position.n;
    m->nin = m->h.in->position.n;
    st_component *topo = st_node_find(m->h.in->base.node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    const st_array *edges = topo ? topo->cls->topology->elements(topo, ST_T_EDGES) : NULL;
    const size_t nl = edges ? edges->n : 0;
    for (size_t i = 0; i < 2 * nl; i++)
        if (edges->u[i] >= m->nin)
            return st_component_error(self, "input", err, ST_ESCENE,
                                      "line %zu of '%s' uses frame %u of %zu", i / 2, topo->name,
                                      edges->u[i], m->nin);
    if (nl == 0) {
        st_component_warn(self, "the input has no lines (edges of a topology in its node or "
                                "above): the points are not mapped (SOFA's: at the origin)");
        m->start = st_calloc(m->n + 1, sizeof *m->start);
        if (!m->start)
            return st_error_set(err, ST_ENOMEM, "out of memory");
    } else {
        ST_TRY(lss_weights(m, edges->u, nl, err));
    }
    ST_TRY(map_init_outputs(&m->h, init_apply, init_apply_j, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void lss_cleanup(st_component *self)
{
    lss_free((lss_mapping *)self);
    map_head_release(&((lss_mapping *)self)->h);
}

static bool ready(const lss_mapping *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->n &&
           m->h.in->n == m->nin;
}

static bool ready_mech(const lss_mapping *m) { return ready(m) && !m->h.visual; }

static void lss_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    lss_mapping *m = (lss_mapping *)self;
    double *xout = ready(m) ? map_head_xout(&m->h, x) : NULL;
    if (!xout)
        return;
    lss_apply_points(m, st_slice_x(x, m->h.in), xout);
    map_head_touch_visual(&m->h);
}

static void lss_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    lss_mapping *m = (lss_mapping *)self;
    if (ready_mech(m))
        lss_apply_j_points(m, st_slice(v, m->h.in), st_slice(v, m->h.out));
}

static void lss_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    lss_mapping *m = (lss_mapping *)self;
    if (!ready_mech(m))
        return;
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out);
    for (size_t i = 0; i < m->n; i++) {
        const double *fi = fout + 3 * i;
        for (size_t a = m->start[i]; a < m->start[i + 1]; a++) {
            double *F = fin + 6 * (size_t)m->frame[a], *T = F + 3;
            const double *ip = m->rot + 3 * a, w = m->w[a];
            for (int k = 0; k < 3; k++)
                F[k] += fi[k] * w;
            T[0] += (ip[1] * fi[2] - ip[2] * fi[1]) * w;
            T[1] += (ip[2] * fi[0] - ip[0] * fi[2]) * w;
            T[2] += (ip[0] * fi[1] - ip[1] * fi[0]) * w;
        }
    }
}

static void lss_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    lss_mapping *m = (lss_mapping *)self;
    if (!ready_mech(m))
        return;
    for (size_t i = 0; i < m->n; i++)
        for (size_t a = m->start[i]; a < m->start[i + 1]; a++) {
            const double *r = m->rot + 3 * a, w = m->w[a];
            /* [ w I  -w [r]x ], 3 x 6 row-major */
            const double b[18] = {w, 0, 0, 0,          w * r[2], -w * r[1],
                                  0, w, 0, -w * r[2], 0,        w * r[0],
                                  0, 0, w, w * r[1],  -w * r[0], 0};
            st_jbuilder_add(jb, i, m->h.in, m->frame[a], b);
        }
}

static const st_mapping_ops lss_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = lss_apply,
    .apply_j = lss_apply_j,
    .apply_jt = lss_apply_jt,
    .get_j = lss_get_j,
    .flags = map_head_flags,
};

static const st_field lss_fields[] = {
    MAP_HEAD_FIELDS(lss_mapping),
    ST_UINT(lss_mapping, neighborhood_level, "neighborhoodLevel", "3",
            "Set the neighborhood line level"),
    ST_UINT(lss_mapping, influenced, "numberInfluencedLines", "4",
            "Set the number of most influenced lines by each vertice"),
    ST_INT(lss_mapping, weight_coef, "weightCoef", "4",
           "Set the coefficient used to compute the weight of lines"),
    ST_FIELD_END};

static const char *const rigid_only[] = {"Rigid3d", NULL};

const st_class line_set_skinning_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "LineSetSkinningMapping",
    .category = "Mapping",
    .description = "Skin a model from a set of rigid lines.",
    .instance_size = sizeof(lss_mapping),
    .fields = lss_fields,
    .init = lss_init,
    .reinit = lss_init,
    .cleanup = lss_cleanup,
    .mapping = &lss_ops,
    .templates = rigid_only,
};
