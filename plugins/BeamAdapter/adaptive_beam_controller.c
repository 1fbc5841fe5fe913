/* adaptive_beam_controller.c - AdaptiveBeamController (SOFA's BeamAdapter
 * plugin): at each step's beginning, redistributes the frames of a
 * BeamInterpolation along the beams so that each beam covers the same
 * share of a "spline length" that grows where a beam is stretched or
 * compressed.
 *
 * For beam b with control points P0..P3 (at its rest length L_b) the
 * spline length is l_b = |P1 - P0| + |P2 - P1| + |P3 - P2| + 30 |l - L_b|
 * (l: the polygon's length). The total is cut into as many equal parts as
 * there are beams; each cut's abscissa on the wire (sum of the L_b) is
 * interpolated linearly in its beam; every inner frame then moves to the
 * old splines' frame at its new abscissa (in place, in frame order, as
 * SOFA's), its velocity to the blend of the old beam's two node
 * velocities, and the beams' lengths (lengthList) become the new
 * intervals. The beams are assumed to be a chain of frames 0, 1, 2, ...
 * (SOFA's assumption).
 *
 * xtip, rotationInstrument, step, angularStep, speed and
 * controlledInstrument serve SOFA's keyboard and mouse only (speed is
 * read at init but no step uses it): accepted, no effect. */
#include <math.h>
#include <string.h>

#include "beam_adapter.h"
#include "../shared/state_view.h"

typedef struct adaptive_beam_controller {
    st_component base;
    st_array interpolation_path; /* "interpolation": paths, the first used */
    int controlled;              /* "controlledInstrument" */
    st_array xtip;               /* "xtip" */
    st_array rotation;           /* "rotationInstrument" */
    double step, angular_step, speed;
    /* Set by init. */
    beam_interpolation *bi;
    double *work;                /* 3 (nb + 1) reals */
    size_t nwork;
} adaptive_beam_controller;

static void abc_cleanup(st_component *self)
{
    adaptive_beam_controller *a = (adaptive_beam_controller *)self;
    st_free(a->work);
    a->work = NULL;
    a->nwork = 0;
}

static st_status abc_init(st_component *self, st_error *err)
{
    adaptive_beam_controller *a = (adaptive_beam_controller *)self;
    self->state = ST_CSTATE_INVALID;
    abc_cleanup(self);
    st_component *c = NULL;
    if (a->interpolation_path.n) {
        const char *p = a->interpolation_path.s[0];
        ST_TRY(st_node_resolve(self->node, p[0] == '@' ? p + 1 : p, ST_LINK_ANY, &c, err));
    } else {
        for (size_t i = 0; i < st_node_object_count(self->node) && !c; i++)
            if (st_node_object(self->node, i)->cls == &beam_interpolation_class)
                c = st_node_object(self->node, i);
    }
    if (!c || c->cls != &beam_interpolation_class)
        return st_component_error(self, "interpolation", err, ST_ESCENE,
                                  "No Beam Interpolation component found%s%s. This component is "
                                  "thus de-actiated.",
                                  c ? ": " : "", c ? c->cls->name : "");
    ST_TRY(ba_find_interpolation(self, c, &a->bi, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

/* SOFA's applyController. */
static void apply(adaptive_beam_controller *a)
{
    beam_interpolation *bi = a->bi;
    const size_t nb = ba_num_beams(bi);
    if (nb == 0)
        return;
    if (a->nwork < 3 * (nb + 1)) {
        double *w = st_realloc(a->work, 3 * (nb + 1) * sizeof *w);
        if (!w) {
            st_component_warn(&a->base, "out of memory for %zu beams", nb);
            return;
        }
        a->work = w;
        a->nwork = 3 * (nb + 1);
    }
    double *old_abs = a->work, *spline_abs = old_abs + nb + 1, *new_abs = spline_abs + nb + 1;
    st_mstate *ms = bi->ms;
    double *x = ms->position.r, *v = ms->velocity.n >= ms->position.n ? ms->velocity.r : NULL;
    old_abs[0] = spline_abs[0] = 0.0;
    for (size_t b = 0; b < nb; b++) {
        const double L = ba_length(bi, b);
        ba_xf g0, g1;
        double P[4][3], d[3], l = 0.0;
        ba_compute_transform(bi, b, x, &g0, &g1);
        ba_control_points(&g0, &g1, L, P);
        for (int k = 0; k < 3; k++) {
            st_v3_sub(d, P[k + 1], P[k]);
            l += st_v3_norm(d);
        }
        l += 30.0 * fabs(l - L);
        old_abs[b + 1] = old_abs[b] + L;
        spline_abs[b + 1] = spline_abs[b] + l;
    }
    const double total = old_abs[nb], sampling = spline_abs[nb] / (double)nb;
    new_abs[0] = 0.0;
    double xs = 0.0;
    size_t j = 0;
    for (size_t b = 0; b + 1 < nb; b++) {
        xs += sampling;
        while (j < nb && xs > spline_abs[j])
            j++;
        if (j == 0)
            j = 1; /* SOFA reads before its list */
        const double ratio = (xs - spline_abs[j - 1]) / (spline_abs[j] - spline_abs[j - 1]);
        if (ratio < 0 || ratio > 1)
            st_component_warn(&a->base, "Ratio = %g while it should be between 0 and 1 ", ratio);
        new_abs[b + 1] = old_abs[j - 1] + ratio * (old_abs[j] - old_abs[j - 1]);
    }
    new_abs[nb] = total;
    j = 0;
    for (size_t i = 1; i < nb; i++) {
        while (new_abs[i] > old_abs[j])
            if (++j > nb)
                return; /* SOFA's guard */
        if (j == 0)
            j = 1;
        double L = ba_length(bi, j - 1);
        const double ratio = (new_abs[i] - old_abs[j - 1]) / L;
        ba_xf g0, g1, g;
        ba_compute_transform(bi, j - 1, x, &g0, &g1);
        ba_interpolate_transform(&g, ratio, &g0, &g1, L);
        memcpy(x + 7 * i, g.t, 3 * sizeof(double));
        memcpy(x + 7 * i + 3, g.q, 4 * sizeof(double));
        if (v)
            for (int c = 0; c < 6; c++)
                v[6 * i + c] = v[6 * (j - 1) + c] * (1 - ratio) + v[6 * j + c] * ratio;
        bi->length_list.r[i - 1] = new_abs[i] - new_abs[i - 1];
    }
    bi->length_list.r[nb - 1] = new_abs[nb] - new_abs[nb - 1];
    state_view_propagate(ms);
}

static void abc_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    adaptive_beam_controller *a = (adaptive_beam_controller *)self;
    if (self->state == ST_CSTATE_VALID && ev == ST_EVENT_ANIMATE_BEGIN &&
        a->bi->base.state == ST_CSTATE_VALID)
        apply(a);
}

/* SOFA's reinit: one redistribution. */
static st_status abc_reinit(st_component *self, st_error *err)
{
    (void)err;
    adaptive_beam_controller *a = (adaptive_beam_controller *)self;
    if (self->state == ST_CSTATE_VALID && a->bi->base.state == ST_CSTATE_VALID)
        apply(a);
    return ST_OK;
}

#define T adaptive_beam_controller
static const st_field abc_fields[] = {
    ST_STRINGS(T, interpolation_path, "interpolation", "",
               "Path to the Interpolation component on scene"),
    ST_INT(T, controlled, "controlledInstrument", "0",
           "provide the id of the interventional radiology instrument which is under control: "
           "press contr + number to change it (settee: no keyboard, no effect)"),
    ST_REALS(T, xtip, "xtip", "",
             "curvilinear abscissa of the tip of each interventional radiology instrument "
             "(settee: no mouse or keyboard, no effect)"),
    ST_REALS(T, rotation, "rotationInstrument", "",
             "angle of rotation for each interventional radiology instrument (no effect)"),
    ST_REAL(T, step, "step", "0.1", "base step when changing beam length (no effect)"),
    ST_REAL(T, angular_step, "angularStep", "0.15708",
            "base step when changing beam angle (SOFA: 3.1416 / 20; no effect)"),
    ST_REAL(T, speed, "speed", "0",
            "continuous beam length increase/decrease (as in SOFA, no step reads it)"),
    ST_FIELD_END};
#undef T

static const char *const abc_templates[] = {"Rigid3d", NULL};

/* The beams' lengths it rewrote at each step (the interpolation's
 * lengthList), which the next step's redistribution starts from. */
static st_status abc_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    adaptive_beam_controller *a = (adaptive_beam_controller *)self;
    if (self->state != ST_CSTATE_VALID || !a->bi)
        return ST_OK;
    st_array *l = &a->bi->length_list;
    ST_TRY(st_checkpoint_data(ck, l->r, l->n * sizeof *l->r, err));
    if (st_checkpoint_reading(ck))
        st_component_touch(&a->bi->base, st_component_field(&a->bi->base, "lengthList"));
    return ST_OK;
}

static const st_checkpoint_ops abc_checkpoint_ops = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = abc_checkpoint,
};

const st_class adaptive_beam_controller_class = {
    .struct_size = sizeof(st_class),
    .name = "AdaptiveBeamController",
    .category = "Controller",
    .description = "Redistributes a BeamInterpolation's frames along its beams each step, "
                   "evening out a spline length that grows with stretching (BeamAdapter)",
    .instance_size = sizeof(adaptive_beam_controller),
    .fields = abc_fields,
    .init = abc_init,
    .reinit = abc_reinit,
    .cleanup = abc_cleanup,
    .on_event = abc_on_event,
    .templates = abc_templates,
    .checkpoint = &abc_checkpoint_ops,
};
