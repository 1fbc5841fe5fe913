/* wire_beam_interpolation.c - WireBeamInterpolation (SOFA's BeamAdapter
 * plugin): BaseBeamInterpolation's beams whose section, material and rest
 * shape come from a WireRestShape instead of the interpolation's own data.
 *
 * Its data are BaseBeamInterpolation's (edgeList, lengthList, the two
 * DOF-to-node transform lists, curvAbsList, beamCollision,
 * dofsAndBeamsAligned, topology) and the link WireRestShape (required: none
 * is an error, as SOFA's "Missing WireRestShape"). Unlike BeamInterpolation
 * it never lays beams itself: the beams are those of edgeList, given by the
 * scene or by an instrument controller (InterventionalRadiologyController)
 * during the run; without either there are none (SOFA's bwdInit message,
 * here a warning once the scene is initialised).
 *
 * Beam b covers the abscissae curvAbsList[b] = (x0, x1) of the wire. Its
 * section, Young's modulus, Poisson's ratio and mass density are those of
 * the rod section that holds x1 (x1 - 1e-10 at most the section's end key
 * point); the force field's massDensity is overridden by the section's
 * (SOFA's getMechanicalParameters). Its rest spline: while a controller
 * drives the interpolation, the rest shape's frames at x0 and x1 seen from
 * its frame at (x0 + x1) / 2 (a spire section gives its helix's
 * curvature); otherwise a straight beam, the nodes at -L/2 and +L/2 along
 * x (SOFA: the same, with a warning at each call). The rest total length
 * (for the abscissa of a point along the beams) is the rest shape's length.
 *
 * Checks SOFA leaves to undefined behaviour are errors here: an edge index
 * outside the topology, fewer lengths or curvilinear-abscissa pairs than
 * beams, a beam's x1 past the wire's end. */
#include <math.h>
#include <string.h>

#include "beam_adapter.h"
#include "../shared/topology_link.h"

#define WBI_EPS 1e-10

static const wire_beam_interpolation *wire_of(const beam_interpolation *bi)
{
    return (const wire_beam_interpolation *)bi;
}

/* The rod section holding the end of beam b (init checked that one does). */
static const rod_section *beam_rod(const beam_interpolation *bi, size_t b)
{
    return wrs_section_at(wire_of(bi)->wrs, bi->curv_abs_list.r[2 * b + 1]);
}

static const ba_section *wire_section(const beam_interpolation *bi, size_t b)
{
    static const ba_section none; /* SOFA's empty section; init rules it out */
    const rod_section *r = beam_rod(bi, b);
    return r ? &r->section : &none;
}

static void wire_mechanical(const beam_interpolation *bi, size_t b, double *E, double *nu,
                            double *rho)
{
    const rod_section *r = beam_rod(bi, b);
    if (!r)
        return;
    *E = r->young;
    *nu = r->poisson;
    *rho = r->mass_density;
}

static void wire_spline_rest(const beam_interpolation *bi, size_t b, ba_xf *l0, ba_xf *l1)
{
    const wire_beam_interpolation *w = wire_of(bi);
    if (w->controlled) {
        const double x0 = bi->curv_abs_list.r[2 * b], x1 = bi->curv_abs_list.r[2 * b + 1];
        ba_xf gm, g0, g1, inv;
        wrs_rest_transform(w->wrs, 0.5 * (x0 + x1), &gm);
        wrs_rest_transform(w->wrs, x0, &g0);
        wrs_rest_transform(w->wrs, x1, &g1);
        ba_xf_inv(&inv, &gm);
        ba_xf_mul(l0, &inv, &g0);
        ba_xf_mul(l1, &inv, &g1);
        return;
    }
    const double h = ba_length(bi, b) / 2.0;
    ba_xf_identity(l0);
    ba_xf_identity(l1);
    l0->t[0] = -h;
    l1->t[0] = h;
}

static double wire_rest_total_length(const beam_interpolation *bi)
{
    return wrs_length(wire_of(bi)->wrs);
}

static const ba_beam_hooks wire_hooks = {
    .section = wire_section,
    .mechanical = wire_mechanical,
    .spline_rest = wire_spline_rest,
    .rest_total_length = wire_rest_total_length,
};

st_status wbi_prepare(wire_beam_interpolation *w, st_error *err)
{
    beam_interpolation *bi = &w->bi;
    st_component *self = &bi->base;
    self->state = ST_CSTATE_INVALID;
    bi->hooks = &wire_hooks;
    bi->constant = true;
    ST_TRY(ba_bind_frames_and_edges(bi, err));
    st_component *rs = w->rest_shape;
    if (!rs)
        return st_component_error(self, "WireRestShape", err, ST_ESCENE,
                                  "Missing WireRestShape. The component is thus de-activated "
                                  "(link one with WireRestShape='@path')");
    if (rs->cls != &wire_rest_shape_class)
        return st_component_error(self, "WireRestShape", err, ST_ESCENE,
                                  "%s is a %s, not a WireRestShape", rs->name, rs->cls->name);
    if (rs->state != ST_CSTATE_VALID)
        ST_TRY(rs->cls->init(rs, err));
    w->wrs = (wire_rest_shape *)rs;
    const double total = wrs_length(w->wrs);
    const size_t nb = bi->edge_list.n;
    for (size_t j = 0; j < nb; j++)
        if (bi->edge_list.u[j] >= bi->nedges)
            return st_component_error(self, "edgeList", err, ST_EINVAL,
                                      "The provided edge index '%u' is larger than '%zu' the "
                                      "amount of edges in the topology",
                                      bi->edge_list.u[j], bi->nedges);
    if (bi->length_list.n < nb)
        return st_component_error(self, "lengthList", err, ST_EINVAL,
                                  "%zu lengths for %zu beams (edgeList): one per beam",
                                  bi->length_list.n, nb);
    if (bi->curv_abs_list.n % 2 || bi->curv_abs_list.n / 2 < nb)
        return st_component_error(self, "curvAbsList", err, ST_EINVAL,
                                  "%zu values for %zu beams: a pair (x0 x1) per beam, the "
                                  "abscissae along the WireRestShape",
                                  bi->curv_abs_list.n, nb);
    for (size_t j = 0; j < nb; j++) {
        const double x0 = bi->curv_abs_list.r[2 * j], x1 = bi->curv_abs_list.r[2 * j + 1];
        if (!(x1 - WBI_EPS <= total) || !(x0 <= x1))
            return st_component_error(self, "curvAbsList", err, ST_EINVAL,
                                      "beam %zu spans (%g, %g): expected x0 <= x1 <= %g, the "
                                      "length of %s",
                                      j, x0, x1, total, rs->name);
        if (!(bi->length_list.r[j] > 0.0))
            return st_component_error(self, "lengthList", err, ST_EINVAL,
                                      "beam %zu has length %g: expected > 0", j,
                                      bi->length_list.r[j]);
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

/* SOFA's bwdInit, once every component is initialised: a controller has
 * claimed the interpolation by then. */
static void wbi_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    const wire_beam_interpolation *w = (const wire_beam_interpolation *)self;
    if (ev == ST_EVENT_INIT_DONE && self->state == ST_CSTATE_VALID &&
        ba_num_beams(&w->bi) == 0 && !w->controlled)
        st_component_warn(self, "no beam: edgeList is empty and no controller drives this "
                                "interpolation (SOFA: \"not straightRestShape or "
                                "this->Edge_List is assigned\")");
}

static st_status wbi_init(st_component *self, st_error *err)
{
    return wbi_prepare((wire_beam_interpolation *)self, err);
}

#define T wire_beam_interpolation
static const st_field wbi_fields[] = {
    BA_BASE_FIELDS(T, bi.),
    ST_LINK(T, rest_shape, "WireRestShape", ST_LINK_ANY, "link to the component on the scene"),
    ST_FIELD_END};
#undef T

static const char *const wbi_templates[] = {"Rigid3d", NULL};

const st_class wire_beam_interpolation_class = {
    .struct_size = sizeof(st_class),
    .name = "WireBeamInterpolation",
    .category = "Misc",
    .description = "Adaptive 6D beams along a wire: each beam's section, material and rest "
                   "shape from a WireRestShape by its curvilinear abscissae (BeamAdapter)",
    .instance_size = sizeof(wire_beam_interpolation),
    .fields = wbi_fields,
    .init = wbi_init,
    .reinit = wbi_init,
    .on_event = wbi_on_event,
    .templates = wbi_templates,
};
