/* multi_adaptive_beam_mapping.c - MultiAdaptiveBeamMapping (SOFA's BeamAdapter
 * plugin, Rigid3d to Vec3d): one collision model along the combined
 * instruments of an InterventionalRadiologyController.
 *
 * At init the node's edge topology is filled with one chain: a point at the
 * origin, then for each instrument its collision edges (the sum of its rod
 * sections' nbEdgesCollis, each dx = its length / that number, at x = the
 * previous instruments' (edges + 1) dx plus k dx); the output is sized to the
 * chain's points. Every point has an instrument and an abscissa on it. Before
 * each step (and at init) the controller walks them from the tip back
 * (irc_collision_controls): the first point at the combined tip, on the
 * first instrument deployed there, each next one a collision edge of that
 * instrument before (the rest shape's nbEdgesCollis sampling at the point),
 * changing instrument where the nodes' instrument changes. Each point is
 * then mapped by its instrument as AdaptiveBeamMapping maps a curvilinear
 * abscissa (useCurvAbs; otherwise beam + bary) on that instrument's current
 * beams; velocities and forces likewise, per point, through its
 * instrument's beams. An instrument without beams maps none of its points
 * and, as SOFA's sub-mapping, sets the first as many points of the output to
 * 0 (its "init hack").
 *
 * BeamAdapter's controller also fills a buffer of "activated" points, which
 * nothing reads (every point collides, there as here).
 *
 * Not in settee: the barycentric use by BeamAdapter's contact mapper
 * (addBaryPoint), the edge removal for a point past its instrument's end (a
 * warning: it needs a point's instrument to shrink under it, which the
 * controller's walk does not do), and parallelMapping (sequential). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "beam_adapter.h"
#include "../shared/mapping_common.h"

/* What SOFA's per-instrument AdaptiveBeamMapping holds. */
typedef struct mabm_sub {
    size_t *ids;     /* the output points it maps (SOFA's idPointSubMap) */
    double *x;       /* their abscissae on the instrument (points[i][0]) */
    size_t n;
    ba_point *dist;  /* their beams and barycentric coordinates */
    size_t ndist;
} mabm_sub;

typedef struct multi_adaptive_beam_mapping {
    map_head h;
    st_array controller;         /* "controller": one path ("@path", or bare) */
    bool use_curv_abs;           /* "useCurvAbs" */
    bool parallel;               /* "parallelMapping" */
    /* Set by init. */
    ir_controller *irc;
    size_t ninst;
    mabm_sub sub[IRC_MAX_INSTRUMENTS];
    size_t n;                    /* output points */
    double *xp;                  /* n: SOFA's _xPointList */
    int *ip;                     /* n: SOFA's _idm_instrumentList */
    int *remove;                 /* ninst: edges to remove (scratch) */
    double *xlast;               /* the input's coordinates at the last apply */
    size_t nin;
} multi_adaptive_beam_mapping;

static void mabm_free(multi_adaptive_beam_mapping *m)
{
    for (size_t i = 0; i < IRC_MAX_INSTRUMENTS; i++) {
        st_free(m->sub[i].ids);
        st_free(m->sub[i].x);
        st_free(m->sub[i].dist);
        memset(&m->sub[i], 0, sizeof m->sub[i]);
    }
    st_free(m->xp);
    st_free(m->ip);
    st_free(m->remove);
    st_free(m->xlast);
    m->xp = NULL;
    m->ip = NULL;
    m->remove = NULL;
    m->xlast = NULL;
    m->n = m->ninst = m->nin = 0;
}

static const beam_interpolation *inst_bi(const multi_adaptive_beam_mapping *m, size_t i)
{
    return &m->irc->inst[i]->bi;
}

/* SOFA's computeDistribution of one sub-mapping. */
static void distribute(multi_adaptive_beam_mapping *m, size_t i)
{
    mabm_sub *s = &m->sub[i];
    const beam_interpolation *bi = inst_bi(m, i);
    const size_t nb = ba_num_beams(bi);
    s->ndist = 0;
    if (nb == 0)
        return;
    for (size_t k = 0; k < s->n; k++) {
        ba_point *p = &s->dist[s->ndist++];
        p->y = p->z = 0.0;
        if (m->use_curv_abs) {
            ba_beam_at_curv_abs(bi, s->x[k], &p->beam, &p->bary);
        } else {
            const double fl = floor(s->x[k]);
            size_t b = fl < 0.0 ? 0 : (size_t)fl;
            p->beam = b > nb - 1 ? nb - 1 : b;
            p->bary = s->x[k] - fl;
        }
    }
}

/* SOFA's assignSubMappingFromControllerInfo, without the applies. */
static void assign(multi_adaptive_beam_mapping *m)
{
    size_t nrem = 0;
    irc_collision_controls(m->irc, m->xp, m->ip, m->n, m->remove, &nrem);
    for (size_t i = 0; i < m->ninst; i++)
        m->sub[i].n = 0;
    for (size_t k = 0; k < m->n; k++) {
        const size_t id = m->ip[k] >= 0 && (size_t)m->ip[k] < m->ninst ? (size_t)m->ip[k] : 0;
        mabm_sub *s = &m->sub[id];
        s->ids[s->n] = k;
        s->x[s->n++] = m->xp[k];
    }
    if (nrem)
        st_component_warn(&m->h.base, "%zu collision point(s) past their instrument's end: "
                                      "settee does not remove their edges",
                          nrem);
    for (size_t i = 0; i < m->ninst; i++)
        distribute(m, i);
}

static void apply_all(multi_adaptive_beam_mapping *m, const double *xin, double *xout)
{
    memcpy(m->xlast, xin, 7 * m->nin * sizeof(double));
    for (size_t i = 0; i < m->ninst; i++) {
        const mabm_sub *s = &m->sub[i];
        for (size_t k = 0; k < s->ndist; k++)
            ba_point_position(inst_bi(m, i), &s->dist[k], xin, xout + 3 * s->ids[k]);
        /* SOFA's sub-mapping sets out[k] = 0 for its points past its
         * distribution, by their own index k, not the output's */
        for (size_t k = s->ndist; k < s->n && k < m->n; k++)
            xout[3 * k] = xout[3 * k + 1] = xout[3 * k + 2] = 0.0;
    }
}

static void apply_j_all(multi_adaptive_beam_mapping *m, const double *x, const double *vin,
                        double *vout)
{
    for (size_t i = 0; i < m->ninst; i++) {
        const mabm_sub *s = &m->sub[i];
        for (size_t k = 0; k < s->ndist; k++) {
            unsigned n0, n1;
            ba_node_indices(inst_bi(m, i), s->dist[k].beam, &n0, &n1);
            ba_point_velocity(inst_bi(m, i), &s->dist[k], x, vin + 6 * (size_t)n0,
                              vin + 6 * (size_t)n1, vout + 3 * s->ids[k]);
        }
        for (size_t k = s->ndist; k < s->n; k++) /* not mapped: no velocity */
            memset(vout + 3 * s->ids[k], 0, 3 * sizeof(double));
    }
}

static bool ready(const multi_adaptive_beam_mapping *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->n &&
           m->h.in->n == m->nin;
}

/* Redistributes the points on the instruments' current beams (SOFA's
 * sub-mappings do it in apply and applyJ with useCurvAbs). */
static void refresh(multi_adaptive_beam_mapping *m)
{
    if (m->use_curv_abs)
        for (size_t i = 0; i < m->ninst; i++)
            distribute(m, i);
}

static void mabm_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    multi_adaptive_beam_mapping *m = (multi_adaptive_beam_mapping *)self;
    double *xout = ready(m) ? map_head_xout(&m->h, x) : NULL;
    if (!xout)
        return;
    refresh(m);
    apply_all(m, st_slice_x(x, m->h.in), xout);
    map_head_touch_visual(&m->h);
}

static void mabm_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    multi_adaptive_beam_mapping *m = (multi_adaptive_beam_mapping *)self;
    if (!ready(m) || m->h.visual)
        return;
    refresh(m);
    apply_j_all(m, m->xlast, st_slice(v, m->h.in), st_slice(v, m->h.out));
}

static void mabm_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    multi_adaptive_beam_mapping *m = (multi_adaptive_beam_mapping *)self;
    if (!ready(m) || m->h.visual)
        return;
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out);
    for (size_t i = 0; i < m->ninst; i++) {
        const mabm_sub *s = &m->sub[i];
        for (size_t k = 0; k < s->ndist; k++) {
            unsigned n0, n1;
            double F0[6], F1[6];
            ba_node_indices(inst_bi(m, i), s->dist[k].beam, &n0, &n1);
            ba_point_force(inst_bi(m, i), &s->dist[k], m->xlast, fout + 3 * s->ids[k], F0, F1);
            for (int c = 0; c < 6; c++) {
                fin[6 * (size_t)n0 + c] += F0[c];
                fin[6 * (size_t)n1 + c] += F1[c];
            }
        }
    }
}

static void mabm_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    multi_adaptive_beam_mapping *m = (multi_adaptive_beam_mapping *)self;
    if (!ready(m) || m->h.visual)
        return;
    const double zero[6] = {0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < m->ninst; i++) {
        const mabm_sub *s = &m->sub[i];
        for (size_t k = 0; k < s->ndist; k++) {
            unsigned nd[2];
            ba_node_indices(inst_bi(m, i), s->dist[k].beam, &nd[0], &nd[1]);
            for (int e = 0; e < 2; e++) {
                double B[18];
                for (int j = 0; j < 6; j++) {
                    double u[6] = {0, 0, 0, 0, 0, 0}, o[3];
                    u[j] = 1.0;
                    ba_point_velocity(inst_bi(m, i), &s->dist[k], m->xlast, e ? zero : u,
                                      e ? u : zero, o);
                    for (int r = 0; r < 3; r++)
                        B[6 * r + j] = o[r];
                }
                st_jbuilder_add(jb, s->ids[k], m->h.in, nd[e], B);
            }
        }
    }
}

/* Before each step: the controller's new points, mapped at once (SOFA
 * applies to the output's position there). */
static void mabm_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    multi_adaptive_beam_mapping *m = (multi_adaptive_beam_mapping *)self;
    if (ev != ST_EVENT_ANIMATE_BEGIN || !ready(m) || m->h.out->position.n < m->n)
        return;
    assign(m);
    apply_all(m, m->h.in->position.r, m->h.out->position.r);
}

/* The controller: the link ("@path" or, as SOFA converts it, a bare path),
 * else the first one found from this node up (with SOFA's warnings). */
static st_status find_controller(multi_adaptive_beam_mapping *m, st_error *err)
{
    st_component *self = &m->h.base, *c = NULL;
    if (m->controller.n > 1)
        return st_component_error(self, "controller", err, ST_EINVAL,
                                  "one InterventionalRadiologyController, not %zu",
                                  m->controller.n);
    const char *p = m->controller.n ? m->controller.s[0] : NULL;
    if (p && *p) {
        if (p[0] != '@')
            st_component_warn_field(self, "controller",
                                    "Attribute 'controller' (or 'ircontroller') is now a link, "
                                    "not a string anymore. The value needs to be a link (i.e "
                                    "starts with '@'). The current string value will be "
                                    "converted to a link.");
        ST_TRY(st_node_resolve(self->node, p[0] == '@' ? p + 1 : p, ST_LINK_ANY, &c, err));
        if (c->cls != &interventional_radiology_controller_class)
            return st_component_error(self, "controller", err, ST_EINVAL,
                                      "'%s' is a %s, not an InterventionalRadiologyController",
                                      p, c->cls->name);
    } else {
        st_component_warn(self, "The InterventionalRadiologyController has not been set, "
                                "searching in the parent node...");
        c = map_find_upward(self->node, "InterventionalRadiologyController");
        if (!c)
            return st_component_error(self, "controller", err, ST_ESCENE,
                                      "No InterventionalRadiologyController found, this "
                                      "component cannot work and will be invalid.");
        st_component_warn(self, "An InterventionalRadiologyController named %s has been found, "
                                "and will be used for this component.",
                          c->name);
    }
    if (c->state != ST_CSTATE_VALID)
        ST_TRY(c->cls->init(c, err));
    m->irc = (ir_controller *)c;
    return ST_OK;
}

/* SOFA's init: the node's topology becomes the chain of every instrument's
 * collision edges; returns the number of points. */
static st_status fill_topology(multi_adaptive_beam_mapping *m, size_t *npoints, st_error *err)
{
    st_component *self = &m->h.base;
    st_component *topo = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!topo)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no topology container in this node or above (an "
                                  "EdgeSetTopologyContainer receives the collision edges)");
    if (!map_find_upward(self->node, "EdgeSetTopologyModifier"))
        st_component_warn(self, "EdgeSetController has no binding EdgeSetTopologyModifier.");
    char *pos = NULL, *edg = NULL;
    size_t pl = 0, pc = 0, el = 0, ec = 0;
    st_status st = ba_buf_add(&pos, &pl, &pc, err, "%.17g %.17g 0 ", 0.0, 0.0);
    double prev_x = 0.0;
    size_t prev_edges = 0;
    for (size_t i = 0; i < m->ninst && st == ST_OK; i++) {
        const wire_rest_shape *w = m->irc->inst[i]->wrs;
        unsigned lines = 0;
        for (size_t k = 0; k < w->nsec; k++)
            lines += w->sec[k]->nb_edges_collis;
        if (lines == 0) {
            st = st_component_error(self, NULL, err, ST_ESCENE,
                                    "instrument %s has no collision edges (nbEdgesCollis of "
                                    "its rod sections)",
                                    m->irc->inst[i]->bi.base.name);
            break;
        }
        const double dx = wrs_length(w) / lines;
        for (unsigned k = 1; k <= lines && st == ST_OK; k++)
            st = ba_buf_add(&pos, &pl, &pc, err, "%.17g %.17g 0 ", prev_x + k * dx, 0.0);
        for (unsigned k = 0; k < lines && st == ST_OK; k++)
            st = ba_buf_add(&edg, &el, &ec, err, "%.0f %.0f ", (double)(prev_edges + k),
                            (double)(prev_edges + k + 1));
        prev_x += (lines + 1) * dx;
        prev_edges += lines;
    }
    if (st == ST_OK)
        st = st_component_set(topo, "position", pos, err);
    if (st == ST_OK)
        st = st_component_set(topo, "edges", edg ? edg : "", err);
    free(pos);
    free(edg);
    ST_TRY(st);
    if (topo->state == ST_CSTATE_VALID && topo->cls->reinit)
        ST_TRY(topo->cls->reinit(topo, err));
    *npoints = prev_edges + 1;
    return ST_OK;
}

static void init_apply(st_component *self, const double *xin, double *xout)
{
    apply_all((multi_adaptive_beam_mapping *)self, xin, xout);
}

static void init_apply_j(st_component *self, const double *vin, double *vout)
{
    multi_adaptive_beam_mapping *m = (multi_adaptive_beam_mapping *)self;
    apply_j_all(m, m->xlast, vin, vout);
}

static st_status mabm_init(st_component *self, st_error *err)
{
    multi_adaptive_beam_mapping *m = (multi_adaptive_beam_mapping *)self;
    self->state = ST_CSTATE_INVALID;
    mabm_free(m);
    ST_TRY(map_head_bind(&m->h, &st_rigid3d_type, &st_vec3d_type, err));
    ST_TRY(find_controller(m, err));
    if (m->irc->ms != m->h.in)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "the controller %s moves %s, not this mapping's input %s",
                                  m->irc->base.name, m->irc->ms->base.name, m->h.in->base.name);
    m->ninst = m->irc->ninst;
    size_t n = 0;
    ST_TRY(fill_topology(m, &n, err));
    m->n = n;
    m->nin = m->h.in->position.n;
    m->xp = st_calloc(n, sizeof *m->xp);
    m->ip = st_calloc(n, sizeof *m->ip);
    m->remove = st_calloc(m->ninst, sizeof *m->remove);
    m->xlast = st_calloc(m->nin ? 7 * m->nin : 1, sizeof *m->xlast);
    bool ok = m->xp && m->ip && m->remove && m->xlast;
    for (size_t i = 0; i < m->ninst && ok; i++) {
        m->sub[i].ids = st_malloc(n * sizeof *m->sub[i].ids);
        m->sub[i].x = st_malloc(n * sizeof *m->sub[i].x);
        m->sub[i].dist = st_malloc(n * sizeof *m->sub[i].dist);
        ok = m->sub[i].ids && m->sub[i].x && m->sub[i].dist;
    }
    if (!ok)
        return st_error_set(err, ST_ENOMEM, "MultiAdaptiveBeamMapping: out of memory (%zu points)",
                            n);
    if (m->h.out->position.n != n)
        ST_TRY(map_resize_output(m->h.out, n, err));
    assign(m);
    memcpy(m->xlast, m->h.in->position.r, 7 * m->nin * sizeof(double));
    ST_TRY(map_init_outputs(&m->h, init_apply, init_apply_j, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void mabm_cleanup(st_component *self)
{
    multi_adaptive_beam_mapping *m = (multi_adaptive_beam_mapping *)self;
    mabm_free(m);
    map_head_release(&m->h);
}

#define T multi_adaptive_beam_mapping
static const st_field mabm_fields[] = {
    MAP_HEAD_FIELDS(T),
    ST_FIELD_EX(T, controller, "controller", ST_T_STRINGS, st_array, "",
                "Link to the ircontroller component on scene", ST_F_NOLINK, NULL, 0.0, 0.0),
    ST_BOOL(T, use_curv_abs, "useCurvAbs", "true",
            "true if the curvilinear abscissa of the points remains the same during the "
            "simulation if not the curvilinear abscissa moves with adaptivity and the num of "
            "segment per beam is always the same"),
    ST_BOOL(T, parallel, "parallelMapping", "false",
            "flag to enable parallel internal computation in all the submappings (settee: "
            "always sequential)"),
    ST_FIELD_END};
#undef T

static const st_mapping_ops mabm_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = mabm_apply,
    .apply_j = mabm_apply_j,
    .apply_jt = mabm_apply_jt,
    .get_j = mabm_get_j,
    .flags = map_head_flags,
};

static const char *const mabm_templates[] = {"Rigid3d", NULL};

const st_class multi_adaptive_beam_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "MultiAdaptiveBeamMapping",
    .category = "Mapping",
    .description = "One collision model along the combined instruments of an "
                   "InterventionalRadiologyController: each point mapped by the instrument "
                   "under it, as AdaptiveBeamMapping maps a curvilinear abscissa (BeamAdapter)",
    .instance_size = sizeof(multi_adaptive_beam_mapping),
    .fields = mabm_fields,
    .init = mabm_init,
    .reinit = mabm_init,
    .cleanup = mabm_cleanup,
    .on_event = mabm_on_event,
    .mapping = &mabm_ops,
    .templates = mabm_templates,
};
