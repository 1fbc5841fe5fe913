/* mass_geometry.c - what the topology-based masses share: finding their
 * state, topology and geometry state, element measures in SOFA's
 * arithmetic order (so that masses round alike), and separate gravity. */
#include <math.h>

#include "mass.h"

static double norm3(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

static void sub3(const double *p, const double *q, double r[3])
{
    r[0] = p[0] - q[0], r[1] = p[1] - q[1], r[2] = p[2] - q[2];
}

static void cross3(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

double mass_tri_area(const double *p0, const double *p1, const double *p2)
{
    double a[3], b[3], c[3];
    sub3(p1, p0, a);
    sub3(p2, p0, b);
    cross3(a, b, c);
    return 0.5 * norm3(c);
}

double mass_tet_volume(const double *p0, const double *p1, const double *p2, const double *p3)
{
    double a[3], b[3], c[3], x[3];
    sub3(p1, p0, a);
    sub3(p2, p0, b);
    sub3(p3, p0, c);
    cross3(a, b, x);
    return fabs((x[0] * c[0] + x[1] * c[1] + x[2] * c[2]) / 6.0);
}

double mass_hexa_volume(const double *const p[8])
{
    return mass_tet_volume(p[0], p[5], p[1], p[6]) + mass_tet_volume(p[0], p[1], p[3], p[6]) +
           mass_tet_volume(p[1], p[3], p[6], p[2]) + mass_tet_volume(p[6], p[3], p[0], p[7]) +
           mass_tet_volume(p[6], p[7], p[0], p[5]) + mass_tet_volume(p[7], p[5], p[4], p[0]);
}

double mass_edge_length(const double *p0, const double *p1)
{
    double d[3];
    sub3(p1, p0, d);
    return norm3(d);
}

st_status mass_bind_topology(st_component *self, st_mstate **ms, st_component **topology,
                             st_component **geometry_state, st_error *err)
{
    *ms = st_component_mstate(self);
    if (!*ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "No compatible MechanicalState found in the current context "
                                  "(%s needs a MechanicalObject in its node)",
                                  self->cls->name);
    if (!*topology)
        *topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!*topology || !(*topology)->cls->topology)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "No topology component found at path: %s, nor in current "
                                  "context: %s",
                                  *topology ? (*topology)->name : "(none)",
                                  st_node_name(self->node));
    if (!*geometry_state) {
        *geometry_state = (st_component *)st_node_mstate((*topology)->node);
        if (!*geometry_state)
            return st_component_error(self, "geometryState", err, ST_ESCENE,
                                      "No compatible state associated with the topology has been "
                                      "found.");
    } else if (!st_component_has_role(*geometry_state, ST_ROLE_STATE)) {
        return st_component_error(self, "geometryState", err, ST_ELINK,
                                  "geometryState must link a MechanicalObject, not a %s",
                                  (*geometry_state)->cls->name);
    }
    return ST_OK;
}

void mass_add_gravity_to_v(const st_mstate *ms, const st_mparams *mp, double *v, double dt)
{
    double *vs = st_slice(v, ms);
    const double hg[3] = {mp->gravity[0] * dt, mp->gravity[1] * dt, mp->gravity[2] * dt};
    for (size_t i = 0; i < ms->n; i++) {
        vs[3 * i] += hg[0];
        vs[3 * i + 1] += hg[1];
        vs[3 * i + 2] += hg[2];
    }
}

st_status mass_check_vertex_masses(st_component *self, const char *field, const double *mass,
                                   size_t n, double scale, st_error *err)
{
    for (size_t i = 0; i < n; i++) {
        double v = mass[i] * scale;
        if (!(v > 0.0) || !isfinite(v))
            return st_component_error(self, field, err, ST_ESCENE,
                                      "vertex %zu gets the mass %g; every vertex needs a "
                                      "positive, finite mass (is an element degenerate, a vertex "
                                      "in no element, or a density or mass zero?)",
                                      i, v);
    }
    return ST_OK;
}
