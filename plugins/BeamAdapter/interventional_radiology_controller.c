/* interventional_radiology_controller.c - InterventionalRadiologyController
 * (SOFA's BeamAdapter plugin): one or more wires (WireBeamInterpolation)
 * pushed into the scene through the same Rigid3d frames, each with the
 * curvilinear abscissa of its tip (xtip) and a turn about its axis
 * (rotationInstrument).
 *
 * Instrument i covers the abscissae [xtip_i - L_i, xtip_i] (L_i its rest
 * shape's length); the deployed length is the largest xtip (at least
 * FLT_EPSILON: xtip_0 is raised to it). At each step's beginning (and at
 * init) the controller
 *  - moves the controlled instrument's tip by speed * dt when speed > 0
 *    (clamped to its length);
 *  - samples the deployed part: 0, every instrument's key points that are
 *    out (> 0), and between key points nbBeams per section length, counted
 *    back from each section's end over the part beyond the previous sample
 *    (SOFA's loop, whose running end is shared by the instruments), plus
 *    the rigidCurvAbs pairs; sorted, points closer than threshold to the
 *    last one kept merged;
 *  - gives the n deployed nodes to the last n frames of the state: a node
 *    already there (within threshold of an abscissa of the previous step,
 *    the abscissae of single-instrument nodes first shifted by the length
 *    change) keeps its frame, another one takes the previous spline's frame
 *    at its abscissa (startingPos before the first node);
 *  - lays a beam on edge (frames - 1) - beams + b for each sample interval
 *    inside an instrument (within threshold), on that instrument, its nodes
 *    turned by rotationInstrument about x;
 *  - puts the frames before the first deployed one, but the one just
 *    before it, at startingPos (positions and rest positions, velocities
 *    zeroed) and makes them the FixedProjectiveConstraint's indices
 *    (indexFirstNode: the one just before); rigidCurvAbs pairs fix the
 *    nodes between them too;
 *  - lists the beams of each instrument for collision (beamCollision).
 *
 * A BeamAdapterActionController may drive it instead (its actions: a step
 * of xtip or rotationInstrument, another instrument controlled; no speed
 * and no clamping then, as SOFA's).
 *
 * Settee's differences: no keyboard or mouse control; at most 32
 * instruments; where SOFA reads past its node list (an
 * abscissa beyond every previous one, an empty instrument list) settee
 * takes the last node or instrument 0. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "beam_adapter.h"
#include "../shared/state_view.h"
#include "../shared/topology_link.h"


/* ---- Small growing arrays ---- */

typedef struct dvec {
    double *v;
    size_t n, cap;
} dvec;

static bool dvec_push(dvec *a, double x)
{
    if (a->n == a->cap) {
        const size_t nc = a->cap ? 2 * a->cap : 64;
        double *p = st_realloc(a->v, nc * sizeof *p);
        if (!p)
            return false;
        a->v = p;
        a->cap = nc;
    }
    a->v[a->n++] = x;
    return true;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int first_instrument(uint32_t set)
{
    for (int i = 0; i < IRC_MAX_INSTRUMENTS; i++)
        if (set & (1u << i))
            return i;
    return 0;
}

static double inst_length(const ir_controller *c, size_t i)
{
    return ba_rest_total_length(&c->inst[i]->bi);
}

/* ---- The sampling ---- */

/* SOFA's computeInstrumentsCurvAbs and sortCurvAbs. */
static bool sample(ir_controller *c, dvec *abs, const double *xbegin, double total)
{
    double xs = 0.0; /* the running end of the sampling, shared by the instruments */
    for (size_t i = 0; i < c->ninst; i++) {
        const wire_rest_shape *w = c->inst[i]->wrs;
        const size_t nk = w->key_points.n;
        for (size_t j = 0; j + 1 < nk; j++) {
            const double xp = w->key_points.r[j], nxp = w->key_points.r[j + 1];
            const double a = xbegin[i] + xp, na = xbegin[i] + nxp;
            if (a > 0 && !dvec_push(abs, a))
                return false;
            const double interval = na - xs;
            if (interval > 0) {
                const double seg = nxp - xp;
                const unsigned dens = w->density.u[j];
                if (seg <= 0 || dens == 0) {
                    xs = na;
                    continue;
                }
                const double ratio = dens / seg;
                for (int k = (int)floor(interval * ratio); k > 0; k--)
                    if (!dvec_push(abs, na - k / ratio))
                        return false;
                xs = na;
            }
        }
        const double last = xbegin[i] + w->key_points.r[nk - 1];
        if (last > 0 && !dvec_push(abs, last))
            return false;
    }
    const size_t nr = c->rigid_curv_abs.n;
    if (nr > 0 && nr % 2 == 0) {
        bool begin = true;
        for (size_t k = 0; k < nr; k++) {
            const double a = c->rigid_curv_abs.r[k];
            if (!(a < total))
                continue;
            /* SOFA compares the pair's end with a maximum it leaves at 0:
             * only the begin gets a point one step before */
            if (begin && !dvec_push(abs, a - c->step))
                return false;
            begin = !begin;
            if (!dvec_push(abs, a))
                return false;
        }
    }
    qsort(abs->v, abs->n, sizeof *abs->v, cmp_double);
    size_t k = 0;
    for (size_t i = 0; i < abs->n; i++)
        if (k == 0 || !(fabs(abs->v[k - 1] - abs->v[i]) < c->threshold))
            abs->v[k++] = abs->v[i];
    abs->n = k;
    return true;
}

/* ---- The fixed frames ---- */

static st_status set_fixed(ir_controller *c, const unsigned *ids, size_t n, st_error *err)
{
    st_component *fc = c->fixed;
    const st_field *f = st_component_field(fc, "indices");
    st_array *a = st_component_field_ptr(fc, f);
    ST_TRY(st_array_resize(a, ST_T_UINTS, n, err));
    if (n)
        memcpy(a->u, ids, n * sizeof *ids);
    st_component_touch(fc, f);
    return ST_OK;
}

/* ---- One update ---- */

static st_status apply_controller(ir_controller *c, st_error *err)
{
    const double th = c->threshold;
    double xbegin[IRC_MAX_INSTRUMENTS], xend[IRC_MAX_INSTRUMENTS];
    double total = 0.0;
    for (int pass = 0; pass < 2; pass++) {
        total = 0.0;
        for (size_t i = 0; i < c->ninst; i++) {
            xend[i] = c->xtip.r[i];
            xbegin[i] = xend[i] - inst_length(c, i);
            if (xend[i] > total)
                total = xend[i];
        }
        if (!(total < FLT_EPSILON))
            break;
        c->xtip.r[0] = FLT_EPSILON; /* SOFA: never an empty wire */
    }
    for (size_t i = 0; i < c->ninst; i++)
        ST_TRY(ba_clear_beams(&c->inst[i]->bi, err));
    dvec abs = {0};
    uint32_t *table = NULL;
    double *mod = NULL, *xbuf = NULL;
    unsigned *fixed = NULL;
    st_status st = ST_OK;
    if (total > 0.0 && !dvec_push(&abs, 0.0))
        goto oom;
    if (!sample(c, &abs, xbegin, total))
        goto oom;
    const size_t nabs = abs.n;
    /* the instruments at each abscissa */
    table = st_calloc(nabs ? nabs : 1, sizeof *table);
    mod = st_calloc(nabs ? nabs : 1, sizeof *mod);
    st_mstate *ms = c->ms;
    const size_t nn = ms->n ? ms->n : ms->position.n;
    xbuf = st_malloc((nn ? nn : 1) * 7 * sizeof *xbuf);
    fixed = st_malloc((nn ? nn : 1) * sizeof *fixed);
    if (!table || !mod || !xbuf || !fixed)
        goto oom;
    for (size_t i = 0; i < c->ninst; i++)
        for (size_t k = 0; k < nabs; k++) {
            if (abs.v[k] < xbegin[i] - th)
                continue;
            if (abs.v[k] > xend[i] + th)
                break;
            table[k] |= 1u << i;
        }
    /* SOFA's totalLengthIsChanging: single-instrument nodes shifted back by
     * the change of the deployed length */
    memcpy(mod, abs.v, nabs * sizeof *mod);
    const double dlen = (nabs ? abs.v[nabs - 1] : 0.0) - c->node_abs[c->nnode - 1];
    if (fabs(dlen) > th)
        for (size_t k = 0; k < nabs; k++) {
            const uint32_t t = table[k];
            if (t && !(t & (t - 1))) {
                mod[k] -= dlen;
                if (k > 1 && mod[k] < mod[k - 1])
                    mod[k] = mod[k - 1];
            }
        }
    /* the frames of the deployed nodes */
    double *x = ms->position.r, *x0 = ms->rest_position.r, *v = ms->velocity.r;
    memcpy(xbuf, x, nn * 7 * sizeof *xbuf);
    size_t nsim = nabs;
    if (nsim > nn) {
        st_component_warn(&c->base, "Parameters missmatch. There are more curv abscisses '%zu' "
                                    "than the number of dof: %zu",
                          nsim, nn);
        nsim = nn;
    }
    const size_t unactive = nn - nsim;
    const size_t prev_unactive = nn > c->nnode ? nn - c->nnode : 0;
    for (size_t k = 0; k < nsim; k++) {
        double *dst = x + 7 * (unactive + k);
        const double a = mod[k];
        size_t p = 0;
        while (p < c->nnode && !(c->node_abs[p] + th > a))
            p++;
        if (p == c->nnode)
            p = c->nnode - 1; /* SOFA: "should never happen"; it reads past its list */
        const size_t pg = prev_unactive + p < nn ? prev_unactive + p : nn - 1;
        const double pa = c->node_abs[p];
        if (fabs(pa - a) < th) {
            memcpy(dst, xbuf + 7 * pg, 7 * sizeof *dst);
            continue;
        }
        if (p == 0 || pg == 0) {
            memcpy(dst, c->start, sizeof c->start);
            continue;
        }
        const double L = pa - c->node_abs[p - 1];
        double bary = 1.0;
        if (L < FLT_EPSILON)
            st_component_warn(&c->base, "Two consecutives curvAbs with the same position. "
                                        "Length is null. Using barycenter coefficient: "
                                        "baryCoef = 1");
        else
            bary = (a - c->node_abs[p - 1]) / L;
        ba_xf g0, g1, g;
        memcpy(g0.t, xbuf + 7 * (pg - 1), 3 * sizeof(double));
        memcpy(g0.q, xbuf + 7 * (pg - 1) + 3, 4 * sizeof(double));
        memcpy(g1.t, xbuf + 7 * pg, 3 * sizeof(double));
        memcpy(g1.q, xbuf + 7 * pg + 3, 4 * sizeof(double));
        ba_interpolate_transform(&g, bary, &g0, &g1, L);
        memcpy(dst, g.t, 3 * sizeof(double));
        memcpy(dst + 3, g.q, 4 * sizeof(double));
    }
    /* the beams */
    size_t nbeams = nabs ? nabs - 1 : 0;
    const size_t nedges = nn ? nn - 1 : 0;
    if (nedges < nbeams) {
        st_component_warn(&c->base, "Not enough edges in the topology. Only: %zu while nbrBeam "
                                    "= %zu. Will simulate only %zu beams.",
                          nedges, nbeams, nedges);
        nbeams = nedges;
    }
    for (size_t b = 0; b < nbeams; b++) {
        const double a0 = abs.v[b], a1 = abs.v[b + 1];
        for (size_t i = 0; i < c->ninst; i++) {
            const double lo = xbegin[i] - th, hi = xend[i] + th;
            if (a0 > lo && a0 < hi && a1 > lo && a1 < hi)
                if ((st = ba_add_beam(&c->inst[i]->bi, (unsigned)(nedges - nbeams + b), a1 - a0,
                                      a0 - xbegin[i], a1 - xbegin[i], c->rotation.r[i], err)) !=
                    ST_OK)
                    goto out;
        }
    }
    /* the frames not deployed: at the start, fixed */
    const size_t first = nn - nbeams;
    size_t nfixed = 0;
    if (first == 0) {
        st_component_warn(&c->base, "An invalid value of firstSimulatedNode equal to 0 has been "
                                    "given to fixFirstNodesWithUntil() method.");
        c->index_first_node = 0;
    } else {
        for (size_t i = 0; i + 1 < first; i++) {
            memcpy(x + 7 * i, c->start, sizeof c->start);
            if (x0 && ms->rest_position.n >= nn)
                memcpy(x0 + 7 * i, c->start, sizeof c->start);
            if (v && ms->velocity.n >= nn)
                memset(v + 6 * i, 0, 6 * sizeof *v);
            fixed[nfixed++] = (unsigned)i;
        }
        c->index_first_node = (unsigned)(first - 1);
    }
    /* rigidified parts */
    const size_t nr = c->rigid_curv_abs.n;
    if (first > 0 && nr > 0 && nr % 2 == 0) {
        bool rigid = false;
        size_t it = 0;
        for (size_t k = 0; k < nabs && nfixed < nn; k++) {
            const double r = c->rigid_curv_abs.r[it];
            /* SOFA counts from the first simulated node, one past the
             * entry node: the tip's index is past the state, left out */
            const bool inside = first + k < nn;
            if (abs.v[k] < r + FLT_EPSILON && abs.v[k] > r - FLT_EPSILON) {
                if (inside)
                    fixed[nfixed++] = (unsigned)(first + k);
                rigid = !rigid;
                if (++it == nr)
                    break;
            } else if (rigid && inside) {
                fixed[nfixed++] = (unsigned)(first + k);
            }
        }
    }
    if ((st = set_fixed(c, fixed, nfixed, err)) != ST_OK)
        goto out;
    /* data links read these (RestShapeSpringsForceField's points) */
    st_component_touch(&c->base, st_component_field(&c->base, "indexFirstNode"));
    st_component_touch(&c->base, st_component_field(&c->base, "xtip"));
    /* beams for collision */
    for (size_t i = 0; i < c->ninst; i++)
        if ((st = st_array_resize(&c->inst[i]->bi.beam_collision, ST_T_UINTS, 0, err)) != ST_OK)
            goto out;
    for (size_t p = 0; p + 1 < nabs; p++) {
        const int i0 = first_instrument(nabs == 1 ? table[0] : table[p + 1]);
        bool rigid = false;
        for (size_t k = 0; k < nr && !(abs.v[p + 1] <= c->rigid_curv_abs.r[k]); k++)
            rigid = !rigid;
        if (!rigid) {
            st_array *bc = &c->inst[i0]->bi.beam_collision;
            if ((st = st_array_resize(bc, ST_T_UINTS, bc->n + 1, err)) != ST_OK)
                goto out;
            bc->u[bc->n - 1] = (unsigned)p;
        }
    }
    /* this step's nodes */
    st_free(c->node_abs);
    st_free(c->node_inst);
    c->node_abs = abs.v;
    c->node_inst = table;
    c->nnode = nabs;
    abs.v = NULL;
    table = NULL;
    if (nabs == 0) { /* never: 0 is always sampled; keep one node for the next step */
        c->node_abs = st_calloc(1, sizeof *c->node_abs);
        c->node_inst = st_calloc(1, sizeof *c->node_inst);
        c->nnode = 1;
        if (!c->node_abs || !c->node_inst)
            goto oom;
    }
    state_view_propagate(ms);
    goto out;
oom:
    st = st_error_set(err, ST_ENOMEM, "InterventionalRadiologyController: out of memory");
out:
    st_free(abs.v);
    st_free(table);
    st_free(mod);
    st_free(xbuf);
    st_free(fixed);
    return st;
}

/* ---- Init and steps ---- */

static void irc_cleanup(st_component *self)
{
    ir_controller *c = (ir_controller *)self;
    st_free(c->node_abs);
    st_free(c->node_inst);
    c->node_abs = NULL;
    c->node_inst = NULL;
    c->nnode = 0;
}

static st_status resize_per_instrument(ir_controller *c, st_array *a, const char *field,
                                       st_error *err)
{
    if (st_component_is_set(&c->base, field) && a->n != c->ninst)
        st_component_warn_field(&c->base, field,
                                "Discrepancy for %s value: it manages %zu tools, but there are "
                                "%zu defined in instrumentPathList. %s",
                                field, a->n, c->ninst,
                                a->n > c->ninst ? "The superfluous values will be ignored."
                                                : "The missing values will be set as zero.");
    return st_array_resize(a, ST_T_REALS, c->ninst, err);
}

static st_status add_instrument(ir_controller *c, st_component *o, st_error *err)
{
    if (c->ninst == IRC_MAX_INSTRUMENTS)
        return st_component_error(&c->base, "instruments", err, ST_EINVAL,
                                  "more than %d instruments", IRC_MAX_INSTRUMENTS);
    if (o->state != ST_CSTATE_VALID)
        ST_TRY(o->cls->init(o, err));
    c->inst[c->ninst++] = (wire_beam_interpolation *)o;
    return ST_OK;
}

static st_status irc_init(st_component *self, st_error *err)
{
    ir_controller *c = (ir_controller *)self;
    self->state = ST_CSTATE_INVALID;
    irc_cleanup(self);
    c->ninst = 0;
    ST_TRY(st_find_topology(self, &c->topology, err));
    if (c->instruments.n == 0) {
        for (size_t i = 0; i < st_node_object_count(self->node); i++) {
            st_component *o = st_node_object(self->node, i);
            if (o->cls == &wire_beam_interpolation_class)
                ST_TRY(add_instrument(c, o, err));
        }
    } else {
        for (size_t i = 0; i < c->instruments.n; i++) {
            const char *p = c->instruments.s[i];
            st_component *o = NULL;
            ST_TRY(st_node_resolve(self->node, p[0] == '@' ? p + 1 : p, ST_LINK_ANY, &o, err));
            if (o->cls != &wire_beam_interpolation_class)
                return st_component_error(self, "instruments", err, ST_EINVAL,
                                          "Interpolation of instrument %s not found (%s is a "
                                          "%s, not a WireBeamInterpolation)",
                                          p, o->name, o->cls->name);
            ST_TRY(add_instrument(c, o, err));
        }
    }
    if (c->ninst == 0)
        return st_component_error(self, "instruments", err, ST_ESCENE,
                                  "No instrument found (no WireBeamInterpolation)! the component "
                                  "can not work and will be set to Invalid.");
    c->forward = c->speed > 0;
    c->backward = false; /* use_actions: set by an action controller, in any init order */
    ST_TRY(resize_per_instrument(c, &c->xtip, "xtip", err));
    ST_TRY(resize_per_instrument(c, &c->rotation, "rotationInstrument", err));
    for (size_t i = 0; i < c->ninst; i++)
        c->inst[i]->controlled = true;
    if (!c->fixed)
        for (size_t i = 0; i < st_node_object_count(self->node) && !c->fixed; i++) {
            st_component *o = st_node_object(self->node, i);
            if (!strcmp(o->cls->name, "FixedProjectiveConstraint"))
                c->fixed = o;
        }
    if (!c->fixed)
        return st_component_error(self, "fixedConstraint", err, ST_ESCENE,
                                  "No FixedProjectiveConstraint found or set (the frames not "
                                  "deployed are fixed through it)");
    if (strcmp(c->fixed->cls->name, "FixedProjectiveConstraint") != 0)
        return st_component_error(self, "fixedConstraint", err, ST_ESCENE,
                                  "%s is a %s, not a FixedProjectiveConstraint", c->fixed->name,
                                  c->fixed->cls->name);
    /* the previous step's nodes: 0 and the tips out, from the last one */
    const size_t n0 = c->ninst + 1;
    c->node_abs = st_calloc(n0, sizeof *c->node_abs);
    if (!c->node_abs)
        return st_error_set(err, ST_ENOMEM, "InterventionalRadiologyController: out of memory");
    c->nnode = 1;
    for (size_t i = c->ninst; i > 0; i--)
        if (c->xtip.r[i - 1] > 0.0)
            c->node_abs[c->nnode++] = c->xtip.r[i - 1];
    /* startingPos, its rotation normalised */
    memcpy(c->start, c->starting_pos.r, sizeof c->start);
    st_quat_normalize(c->start + 3);
    memcpy(c->starting_pos.r, c->start, sizeof c->start);
    c->ms = st_component_mstate(self);
    if (!c->ms || c->ms->type != &st_rigid3d_type)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "No MechanicalState found (a Rigid3d MechanicalObject). The "
                                  "component can not work and will be set to Invalid.");
    const size_t nn = c->ms->n ? c->ms->n : c->ms->position.n;
    size_t need = 0;
    for (size_t i = 0; i < c->ninst; i++)
        for (size_t k = 0; k < c->inst[i]->wrs->density.n; k++)
            need += c->inst[i]->wrs->density.u[k];
    if (need + 1 > nn)
        st_component_warn(self, "The associated Mechanical Object does not contain enough nodes "
                                "(%zu) whereas the provided tool(s) need(s) at least %zu nodes.",
                          nn, need + 1);
    const st_array *edges = c->topology->cls->topology->elements
                                ? c->topology->cls->topology->elements(c->topology, ST_T_EDGES)
                                : NULL;
    const size_t ne = edges ? edges->n : 0;
    if (need > ne)
        st_component_warn(self, "The associated Topology does not contain enough edges (%zu) "
                                "whereas the provided tool(s) need(s) at least %zu edges.",
                          ne, need);
    for (size_t i = 0; i < c->ninst; i++)
        if (c->inst[i]->bi.nedges + 1 > nn || c->inst[i]->bi.ms != c->ms)
            return st_component_error(self, "instruments", err, ST_ESCENE,
                                      "instrument %s works on another state or on more edges "
                                      "than this state has frames",
                                      c->inst[i]->bi.base.name);
    if (c->ms->rest_position.n < nn) {
        ST_TRY(st_array_resize_width(&c->ms->rest_position, 7, nn, err));
    }
    for (size_t i = 0; i < nn; i++) {
        memcpy(c->ms->position.r + 7 * i, c->start, sizeof c->start);
        memcpy(c->ms->rest_position.r + 7 * i, c->start, sizeof c->start);
    }
    ST_TRY(apply_controller(c, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static int node_first_instrument(const ir_controller *c, size_t node)
{
    return c->node_inst && node < c->nnode ? first_instrument(c->node_inst[node]) : 0;
}

void irc_collision_controls(const ir_controller *c, double *x, int *inst, size_t n,
                            int *remove, size_t *nremove)
{
    *nremove = 0;
    if (c->nnode == 0)
        return;
    size_t node = c->nnode - 1;
    double xabs = c->node_abs[node];
    int first = node_first_instrument(c, node);
    size_t seg[IRC_MAX_INSTRUMENTS] = {0};
    for (size_t i = n; i-- > 0;) {
        const int id = inst[i] >= 0 && (size_t)inst[i] < c->ninst ? inst[i] : 0;
        if (x[i] > inst_length(c, (size_t)id)) {
            seg[id] = i; /* past the instrument: its edge goes */
            continue;
        }
        const double xbegin = c->xtip.r[first] - inst_length(c, (size_t)first);
        x[i] = xabs - xbegin;
        inst[i] = first;
        xabs -= wrs_collision_sampling(c->inst[first]->wrs, x[i]);
        if (xabs < 0.0) {
            xabs = 0.0;
            continue;
        }
        while (node > 0 && xabs < c->node_abs[node - 1]) {
            node--;
            if (node_first_instrument(c, node) != first) {
                first = node_first_instrument(c, node);
                xabs = c->node_abs[node];
                break;
            }
        }
    }
    for (size_t k = 0; k < c->ninst; k++)
        if (seg[k] != 0)
            remove[(*nremove)++] = (int)seg[k];
}

st_status irc_update(ir_controller *c, st_error *err)
{
    return c->base.state == ST_CSTATE_VALID ? apply_controller(c, err) : ST_OK;
}

void irc_apply_action(ir_controller *c, int action)
{
    st_component *self = &c->base;
    const int id = c->controlled, n = (int)c->ninst;
    if (id < 0 || id >= n) {
        st_component_warn(self, "Controlled Instrument num %d does not exist (size =%d).", id, n);
        return;
    }
    switch (action) {
    case BA_MOVE_FORWARD:
        c->xtip.r[id] += c->step;
        break;
    case BA_MOVE_BACKWARD:
        c->xtip.r[id] -= c->step;
        break;
    case BA_SPIN_RIGHT:
        c->rotation.r[id] += c->angular_step;
        break;
    case BA_SPIN_LEFT:
        c->rotation.r[id] -= c->angular_step;
        break;
    case BA_SWITCH_NEXT_TOOL:
        if (id + 1 >= n)
            st_component_warn(self, "Switching to next tool is not possible, no more instrument "
                                    "in list.");
        else
            c->controlled = id + 1;
        break;
    case BA_SWITCH_PREVIOUS_TOOL:
        if (id == 0)
            st_component_warn(self, "Switching to previous tool is not possible, already "
                                    "controlling first instrument.");
        else
            c->controlled = id - 1;
        break;
    case BA_USE_TOOL_0:
    case BA_USE_TOOL_1:
    case BA_USE_TOOL_2: {
        const int tool = action - BA_USE_TOOL_0;
        if (tool >= n)
            st_component_warn(self, "Controlled Instument num %d do not exist (size =%d) do not "
                                    "change the instrument id",
                              tool, n);
        else
            c->controlled = tool;
        break;
    }
    case BA_DROP_TOOL:
        st_component_warn(self, "Releasing catheter or brokenIn2 mode is not anymore supported. "
                                "Feature has been removed after release v23.06");
        break;
    default:
        break;
    }
}

static void irc_on_event(st_component *self, st_event ev, double dt)
{
    ir_controller *c = (ir_controller *)self;
    if (self->state != ST_CSTATE_VALID || ev != ST_EVENT_ANIMATE_BEGIN || c->use_actions)
        return;
    if (c->forward || c->backward) {
        int id = c->controlled;
        if (id < 0 || (size_t)id >= c->ninst) {
            st_component_warn(self, "Controlled Instument num %d does not exist (size =%zu) use "
                                    "instrument 0 instead",
                              id, c->ninst);
            id = 0;
        }
        if (c->forward)
            c->xtip.r[id] += c->speed * dt;
        if (c->backward) {
            c->xtip.r[id] -= c->speed * dt;
            if (c->xtip.r[id] < 0.0) {
                c->xtip.r[id] = 0.0;
                c->backward = false;
            }
        }
    }
    for (size_t i = 0; i < c->ninst; i++)
        if (c->xtip.r[i] > inst_length(c, i))
            c->xtip.r[i] = inst_length(c, i);
    st_error err = {0};
    if (apply_controller(c, &err) != ST_OK)
        st_component_warn(self, "%s", err.msg);
}

#define T ir_controller
static const st_field irc_fields[] = {
    ST_STRINGS(T, instruments, "instruments",
               "", "List of paths to WireInterpolation components on the scene"),
    ST_INT(T, controlled, "controlledInstrument", "0",
           "provide the id of the interventional radiology instrument which is under control: "
           "press contr + number to change it"),
    ST_REALS(T, xtip, "xtip", "",
             "curvilinear abscissa of the tip of each interventional radiology instrument"),
    ST_REALS(T, rotation, "rotationInstrument", "",
             "angle of rotation for each interventional radiology instrument"),
    ST_REAL(T, step, "step", "0.1", "base step when changing beam length"),
    ST_REAL(T, angular_step, "angularStep", "0.15708",
            "base step when changing beam angle (SOFA: 3.1416 / 20; settee: no keyboard, read "
            "by no action)"),
    ST_REAL(T, speed, "speed", "0", "continuous beam length increase/decrease"),
    ST_REALS_N(T, starting_pos, "startingPos", "0 0 0 0 0 0 1",
               "starting pos for inserting the instrument (x y z qx qy qz qw)", 7),
    ST_REAL(T, threshold, "threshold", "0.01",
            "threshold for controller precision which is homogeneous to the unit of length used "
            "in the simulation"),
    ST_REALS(T, rigid_curv_abs, "rigidCurvAbs", "",
             "pairs of curv abs for beams we want to rigidify"),
    ST_FIELD_EX(T, index_first_node, "indexFirstNode", ST_T_UINT, unsigned, "0",
                "first node (should be fixed with restshape)", 0, NULL, 0.0, 0.0),
    ST_LINK(T, fixed, "fixedConstraint", ST_LINK_ANY, "Path to the FixedProjectiveConstraint"),
    ST_LINK(T, topology, "topology", ST_LINK_TOPOLOGY, "Path to the mechanical topology"),
    ST_FIELD_END};
#undef T

/* What the next step's resampling starts from: the tips' abscissae and
 * rotations (moved at each step by speed), the direction flags, the
 * controlled instrument, and the last step's nodes with their instruments
 * (the beams, frames and fixed frames are rebuilt from these at the start
 * of the next step, before any use). */
static st_status irc_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    ir_controller *c = (ir_controller *)self;
    ST_TRY(st_checkpoint_data(ck, c->xtip.r, c->xtip.n * sizeof *c->xtip.r, err));
    ST_TRY(st_checkpoint_data(ck, c->rotation.r, c->rotation.n * sizeof *c->rotation.r, err));
    ST_TRY(st_checkpoint_data(ck, &c->controlled, sizeof c->controlled, err));
    bool flags[2] = {c->forward, c->backward};
    ST_TRY(st_checkpoint_data(ck, flags, sizeof flags, err));
    c->forward = flags[0];
    c->backward = flags[1];
    ST_TRY(st_checkpoint_data(ck, &c->index_first_node, sizeof c->index_first_node, err));
    uint64_t n = c->nnode;
    ST_TRY(st_checkpoint_data(ck, &n, sizeof n, err));
    if (st_checkpoint_reading(ck) && n != c->nnode) {
        if (n == 0 || n > SIZE_MAX / sizeof(double))
            return st_component_error(self, NULL, err, ST_EINVAL,
                                      "the checkpoint holds %llu nodes", (unsigned long long)n);
        double *a = st_realloc(c->node_abs, (size_t)n * sizeof *a);
        if (!a)
            return st_component_error(self, NULL, err, ST_ENOMEM, "out of memory for %llu nodes",
                                      (unsigned long long)n);
        c->node_abs = a;
        c->nnode = (size_t)n;
        st_free(c->node_inst); /* allocated again below at the new size */
        c->node_inst = NULL;
    }
    ST_TRY(st_checkpoint_data(ck, c->node_abs, c->nnode * sizeof *c->node_abs, err));
    bool have_inst = c->node_inst != NULL;
    ST_TRY(st_checkpoint_data(ck, &have_inst, sizeof have_inst, err));
    if (!have_inst) {
        st_free(c->node_inst);
        c->node_inst = NULL;
    } else if (!c->node_inst) {
        c->node_inst = st_calloc(c->nnode, sizeof *c->node_inst);
        if (!c->node_inst)
            return st_component_error(self, NULL, err, ST_ENOMEM, "out of memory");
    }
    if (have_inst)
        ST_TRY(st_checkpoint_data(ck, c->node_inst, c->nnode * sizeof *c->node_inst, err));
    return ST_OK;
}

static const st_checkpoint_ops irc_checkpoint_ops = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = irc_checkpoint,
};

static const char *const irc_templates[] = {"Rigid3d", NULL};

const st_class interventional_radiology_controller_class = {
    .struct_size = sizeof(st_class),
    .name = "InterventionalRadiologyController",
    .category = "Controller",
    .description = "Wires (WireBeamInterpolation) pushed through the same Rigid3d frames by "
                   "the curvilinear abscissa of their tips: deployed beams resampled each step, "
                   "the frames not deployed fixed at the start (BeamAdapter)",
    .instance_size = sizeof(ir_controller),
    .fields = irc_fields,
    .init = irc_init,
    .reinit = irc_init,
    .cleanup = irc_cleanup,
    .on_event = irc_on_event,
    .templates = irc_templates,
    .checkpoint = &irc_checkpoint_ops,
};
