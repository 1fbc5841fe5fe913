/* mass_geometry.c - what the topology-based masses share: finding their
 * state, topology and geometry state, element measures in SOFA's
 * arithmetic order (so that masses round alike), and separate gravity. */
#include <math.h>
#include <string.h>

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

/* The topology a mass uses when its link is empty: SOFA's context topology
 * (getMeshTopology), the one its node registered last (a node keeps a single
 * topology: each new one replaces the previous), else its parent's. A grid
 * followed by the container a Hexa2TetraTopologicalMapping fills thus gives
 * the container, as for the force fields beside the mass. */
static st_component *mass_context_topology(const st_node *node)
{
    for (const st_node *n = node; n; n = st_node_parent(n)) {
        for (size_t i = st_node_object_count(n); i-- > 0;) {
            st_component *c = st_node_object(n, i);
            if (c->cls->topology && st_component_has_role(c, ST_ROLE_TOPOLOGY))
                return c;
        }
    }
    return NULL;
}

st_status mass_bind_topology(st_component *self, st_mstate **ms, st_component **topology,
                             st_component **geometry_state, st_error *err)
{
    *ms = st_component_mstate(self);
    if (!*ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "No compatible MechanicalState found in the current context "
                                  "(%s needs a MechanicalObject in its node or its ancestors)",
                                  self->cls->name);
    if (!*topology)
        *topology = mass_context_topology(self->node);
    if (!*topology || !(*topology)->cls->topology)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "No topology component found at path: %s, nor in current "
                                  "context: %s",
                                  *topology ? (*topology)->name : "(none)",
                                  st_node_name(self->node));
    if (!*geometry_state) {
        /* SOFA: the topology's context's state, searched upwards (a mass
         * in a child node holding only a topology uses the parent's) */
        *geometry_state = st_node_find((*topology)->node, ST_ROLE_STATE, ST_SEARCH_UP);
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
    const unsigned d = ms->type->deriv_size; /* Rigid3d: the linear part */
    const unsigned k = d < 3 ? d : 3; /* Vec1d, Vec2d: the first components */
    for (size_t i = 0; i < ms->n; i++)
        for (unsigned q = 0; q < k; q++)
            vs[d * i + q] += hg[q];
}

/* inv = m^-1 for a 3x3 row-major matrix; false when singular. */
static bool invert3(const double m[9], double inv[9])
{
    double c0 = m[4] * m[8] - m[5] * m[7], c1 = m[5] * m[6] - m[3] * m[8],
           c2 = m[3] * m[7] - m[4] * m[6];
    double det = m[0] * c0 + m[1] * c1 + m[2] * c2;
    if (det == 0.0)
        return false;
    double id = 1.0 / det;
    inv[0] = c0 * id;
    inv[1] = (m[2] * m[7] - m[1] * m[8]) * id;
    inv[2] = (m[1] * m[5] - m[2] * m[4]) * id;
    inv[3] = c1 * id;
    inv[4] = (m[0] * m[8] - m[2] * m[6]) * id;
    inv[5] = (m[2] * m[3] - m[0] * m[5]) * id;
    inv[6] = c2 * id;
    inv[7] = (m[1] * m[6] - m[0] * m[7]) * id;
    inv[8] = (m[0] * m[4] - m[1] * m[3]) * id;
    return true;
}

bool mass_rigid_set(mass_rigid *r, double m, const double inertia[9])
{
    r->m = m;
    for (int k = 0; k < 9; k++)
        r->im[k] = inertia[k] * m;
    return invert3(r->im, r->inv);
}

/* o = A w for a 3x3 row-major A. */
static void mul3(double o[3], const double A[9], const double w[3])
{
    for (int a = 0; a < 3; a++)
        o[a] = A[3 * a] * w[0] + A[3 * a + 1] * w[1] + A[3 * a + 2] * w[2];
}

void mass_rigid_mdx(const mass_rigid *r, double *res, const double *dx, double factor)
{
    double im[9], t[3];
    for (int k = 0; k < 9; k++)
        im[k] = r->im[k] * factor;
    const double mf = r->m * factor;
    for (int a = 0; a < 3; a++)
        res[a] += dx[a] * mf;
    mul3(t, im, dx + 3);
    for (int a = 0; a < 3; a++)
        res[3 + a] += t[a];
}

void mass_rigid_acc(const mass_rigid *r, double *a, const double *f)
{
    for (int c = 0; c < 3; c++)
        a[c] = f[c] / r->m;
    mul3(a + 3, r->inv, f + 3);
}

void mass_rigid_block(const mass_rigid *r, double b[36], double factor)
{
    memset(b, 0, 36 * sizeof *b);
    for (int a = 0; a < 3; a++) {
        b[7 * a] = r->m * factor;
        for (int c = 0; c < 3; c++)
            b[6 * (3 + a) + 3 + c] = r->im[3 * a + c] * factor;
    }
}

double mass_rigid_vmv(const mass_rigid *r, const double *v)
{
    double t[3];
    mul3(t, r->im, v + 3);
    return (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) * r->m +
           (v[3] * t[0] + v[4] * t[1] + v[5] * t[2]);
}

st_status mass_check_vertex_masses(st_component *self, const char *field, const double *mass,
                                   size_t n, double scale, st_error *err)
{
    size_t zeros = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        double v = mass[i] * scale;
        if (v == 0.0) {
            if (!zeros++)
                first = i;
            continue;
        }
        if (!(v > 0.0) || !isfinite(v))
            return st_component_error(self, field, err, ST_ESCENE,
                                      "vertex %zu gets the mass %g; every vertex needs a "
                                      "positive, finite mass (is an element inverted, or a "
                                      "density or mass negative?)",
                                      i, v);
    }
    /* SOFA gives a vertex in no element (or only in degenerate ones) the
     * mass 0 and runs: an implicit solve with CG leaves it where it is. The
     * same here, and said. */
    if (zeros)
        st_component_warn_field(self, field,
                                "%zu of %zu vertices get the mass 0 (vertex %zu first): they are "
                                "in no element, or only in degenerate ones, or the density or "
                                "mass is 0. As in SOFA they are kept: an implicit solve with CG "
                                "leaves them in place, an explicit solver cannot move them (no "
                                "acceleration: NaN) and a direct solver needs something else to "
                                "hold them (a singular matrix otherwise)",
                                zeros, n, first);
    return ST_OK;
}

size_t mass_topology_nb_points(st_component *topology)
{
    size_t n = topology->cls->topology->nb_points(topology);
    const st_field *f = st_component_field(topology, "nbPoints");
    if (f && f->type == ST_T_UINT) {
        unsigned declared = *(const unsigned *)st_component_field_ptr(topology, f);
        if (declared > n)
            n = declared;
    }
    return n;
}
