/* fem_mass.c - FEMMass: SOFA's finite-element mass (inertia and body force)
 * of SOFA's elements (Vec1d, Vec2d, Vec3d edges; Vec2d, Vec3d triangles and
 * quads; Vec3d tetrahedra, hexahedra, prisms, pyramids), with the density
 * of a NodalMassDensity.
 *
 * Per element, at init from the state's rest positions, with the element's
 * own quadrature rule (plugins/shared/fem_element.c):
 *   M_e(a, b) = sum_q w |det J| rho(q) N_a(q) N_b(q), rho(q) = sum N_i rho_i
 * (one point at the centroid for edges, triangles and tetrahedra, so M_e
 * = rho V / n^2 in every entry for a uniform density, not the exact
 * consistent matrix; exact for parallelepiped hexahedra with the 2x2x2
 * Gauss points; the total rho x measure is exact for every element of
 * uniform density, |det J| being integrated exactly). The element comes
 * from the template as for the element force fields (no template: SOFA's
 * VecNd,Edge, with a warning); gravity takes the state's first d
 * components (SOFA's DataTypes::set). M is never
 * lumped: add_m_dx, the matrix and the kinetic energy use the full
 * element matrices, gravity adds g times the row sums, and acc_from_f is
 * absent (SOFA reports an error there). */
#include <string.h>

#include "../shared/fem_element.h"
#include "mass.h"

typedef struct fem_mass {
    st_component base;
    char *template_name;       /* "template" */
    st_component *density;     /* "nodalMassDensity" */
    st_component *topology;    /* "topology" */
    bool separate_gravity;
    double rayleigh_mass, rayleigh_stiffness;
    st_component *mstate;
    /* Computed at init. */
    st_mstate *ms;
    fe_kind kind;
    int d, nn; /* space dimension, nodes per element */
    size_t ne;
    unsigned *v;    /* ne x nn vertices, owned */
    double *M;      /* ne element matrices, nn x nn each, owned */
    double *rowsum; /* per vertex: sum of its row of M, owned */
} fem_mass;

static void fm_free(fem_mass *m)
{
    st_free(m->v), st_free(m->M), st_free(m->rowsum);
    m->v = NULL, m->M = m->rowsum = NULL;
    m->ne = 0;
}

static void fm_cleanup(st_component *self) { fm_free((fem_mass *)self); }

/* SOFA's context lookup: the first NodalMassDensity of the node, else of
 * the nearest ancestor holding one. */
static st_component *find_density(const st_node *n)
{
    for (; n; n = st_node_parent(n))
        for (size_t i = 0; i < st_node_object_count(n); i++) {
            st_component *c = st_node_object(n, i);
            if (c->cls == &st_nodal_mass_density_class)
                return c;
        }
    return NULL;
}

/* The element of the template (see element_fem_common.c: the same rules
 * as the element force fields). */
static st_status parse_template(fem_mass *m, st_error *err)
{
    const char *t = m->template_name ? m->template_name : "";
    const int sd = m->ms->type->rigid ? 0 : (int)m->ms->type->coord_size;
    if (!sd)
        return st_component_error(&m->base, "template", err, ST_ESCENE,
                                  "FEMMass acts on Vec1d, Vec2d or Vec3d states, not on the %s "
                                  "state",
                                  m->ms->type->name);
    if (!t[0]) {
        m->d = sd, m->kind = FE_EDGE;
        st_component_warn(&m->base,
                          "no template given: SOFA's choice for a Vec%dd state is Vec%dd,Edge "
                          "(the topology's edges); set template to the element type wanted",
                          sd, sd);
    } else if (!fe_parse_template(t, &m->d, &m->kind) || !fe_registered(m->d, m->kind)) {
        return st_component_error(&m->base, "template", err, ST_ESCENE,
                                  "FEMMass has no template '%s' (SOFA registers Vec1d, Vec2d "
                                  "and Vec3d edges, Vec2d and Vec3d triangles and quads, Vec3d "
                                  "tetrahedra, hexahedra, prisms and pyramids)",
                                  t);
    }
    if (m->d != sd)
        return st_component_error(&m->base, "template", err, ST_ESCENE,
                                  "template %s does not match the %s state the mass acts on", t,
                                  m->ms->type->name);
    return ST_OK;
}

static st_status fm_init(st_component *self, st_error *err)
{
    fem_mass *m = (fem_mass *)self;
    fm_free(m);
    self->state = ST_CSTATE_INVALID;
    if (m->separate_gravity)
        return st_component_error(self, "separateGravity", err, ST_ESCENE,
                                  "FEMMass: separateGravity is not implemented (SOFA's FEMMass "
                                  "always adds gravity to the force)");
    st_component *geometry = NULL;
    ST_TRY(mass_bind_topology(self, &m->ms, &m->topology, &geometry, err));
    ST_TRY(parse_template(m, err));
    if (!m->density)
        m->density = find_density(self->node);
    if (!m->density)
        return st_component_error(self, "nodalMassDensity", err, ST_ESCENE,
                                  "No nodal mass density component found at path: (none), nor "
                                  "in current context: %s",
                                  st_node_name(self->node));
    if (m->density->cls != &st_nodal_mass_density_class)
        return st_component_error(self, "nodalMassDensity", err, ST_ELINK,
                                  "nodalMassDensity must link a NodalMassDensity, not a %s",
                                  m->density->cls->name);
    const nodal_mass_density *rho = (const nodal_mass_density *)m->density;
    size_t ne = 0;
    const unsigned *el = fe_topology_elements(m->topology, m->kind, &ne);
    m->nn = fe_nodes(m->kind);
    const size_t nn = (size_t)m->nn, np = m->ms->rest_position.n, d = (size_t)m->d;
    m->ne = el ? ne : 0;
    m->rowsum = st_calloc(np ? np : 1, sizeof *m->rowsum);
    if (m->ne) {
        m->v = st_calloc(m->ne * nn, sizeof *m->v);
        m->M = st_calloc(m->ne * nn * nn, sizeof *m->M);
    }
    if (!m->rowsum || (m->ne && (!m->v || !m->M))) {
        fm_free(m);
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu elements)", m->ne);
    }
    if (m->ne)
        memcpy(m->v, el, m->ne * nn * sizeof *m->v);
    for (size_t i = 0; i < m->ne * nn; i++)
        if (m->v[i] >= np)
            return st_component_error(self, "topology", err, ST_EINVAL,
                                      "element %zu uses vertex %u; the state has %zu", i / nn,
                                      m->v[i], np);
    const double *x0 = m->ms->rest_position.r;
    for (size_t e = 0; e < m->ne; e++) {
        const unsigned *v = m->v + nn * e;
        double x[FE_MAX_DOFS], r[FE_MAX_NODES];
        for (size_t j = 0; j < nn; j++) {
            memcpy(x + d * j, x0 + d * v[j], d * sizeof *x);
            r[j] = nodal_mass_density_at(rho, v[j]);
        }
        double *Me = m->M + nn * nn * e;
        fe_mass(m->kind, m->d, x, r, Me);
        for (size_t a = 0; a < nn; a++)
            for (size_t b = 0; b < nn; b++)
                m->rowsum[v[a]] += Me[a * nn + b];
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void fm_add_m_dx(st_component *self, const st_mparams *mp, double *res, const double *dx,
                        double factor)
{
    (void)mp;
    fem_mass *m = (fem_mass *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    double *r = st_slice(res, m->ms);
    const double *d = st_slice(dx, m->ms);
    const size_t nn = (size_t)m->nn, dim = (size_t)m->d;
    for (size_t e = 0; e < m->ne; e++) {
        const unsigned *v = m->v + nn * e;
        const double *Me = m->M + nn * nn * e;
        for (size_t a = 0; a < nn; a++)
            for (size_t b = 0; b < nn; b++) {
                double t = factor * Me[a * nn + b];
                const double *db = d + dim * v[b];
                double *ra = r + dim * v[a];
                for (size_t c = 0; c < dim; c++)
                    ra[c] += t * db[c];
            }
    }
}

static void fm_add_m_to_matrix(st_component *self, const st_mparams *mp, st_matrix *mat,
                               double mfactor)
{
    (void)mp;
    fem_mass *m = (fem_mass *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    const size_t nn = (size_t)m->nn;
    for (size_t e = 0; e < m->ne; e++) {
        const unsigned *v = m->v + nn * e;
        const double *Me = m->M + nn * nn * e;
        for (size_t a = 0; a < nn; a++)
            for (size_t b = 0; b < nn; b++) {
                double t = mfactor * Me[a * nn + b];
                double blk[9] = {0};
                for (int c = 0; c < m->d; c++)
                    blk[(m->d + 1) * c] = t; /* t I, d x d */
                st_matrix_add_block(mat, m->ms, v[a], m->ms, v[b], blk);
            }
    }
}

static void fm_add_gravity(st_component *self, const st_mparams *mp, double *f, const double *x,
                           const double *v)
{
    (void)x, (void)v;
    fem_mass *m = (fem_mass *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    double *fs = st_slice(f, m->ms);
    const double *g = mp->gravity;
    for (size_t i = 0; i < m->ms->rest_position.n && i < m->ms->n; i++)
        for (int c = 0; c < m->d; c++)
            fs[(size_t)m->d * i + c] += m->rowsum[i] * g[c];
}

static double fm_kinetic(st_component *self, const st_mparams *mp, const double *v)
{
    (void)mp;
    fem_mass *m = (fem_mass *)self;
    if (self->state != ST_CSTATE_VALID)
        return 0.0;
    const double *vs = st_slice(v, m->ms);
    const size_t nn = (size_t)m->nn, d = (size_t)m->d;
    double e = 0;
    for (size_t k = 0; k < m->ne; k++) {
        const unsigned *vi = m->v + nn * k;
        const double *Me = m->M + nn * nn * k;
        for (size_t a = 0; a < nn; a++)
            for (size_t b = 0; b < nn; b++) {
                const double *va = vs + d * vi[a], *vb = vs + d * vi[b];
                double dot = 0;
                for (size_t c = 0; c < d; c++)
                    dot += va[c] * vb[c];
                e += Me[a * nn + b] * dot;
            }
    }
    return e / 2;
}

static double fm_potential(st_component *self, const st_mparams *mp, const double *x)
{
    fem_mass *m = (fem_mass *)self;
    if (self->state != ST_CSTATE_VALID)
        return 0.0;
    const double *xs = st_slice_x(x, m->ms);
    const double *g = mp->gravity;
    double e = 0;
    for (size_t i = 0; i < m->ms->rest_position.n && i < m->ms->n; i++) {
        const double *p = xs + (size_t)m->d * i;
        double gp = 0;
        for (int c = 0; c < m->d; c++)
            gp += g[c] * p[c];
        e -= gp * m->rowsum[i];
    }
    return e;
}

static bool fm_is_diagonal(const st_component *self)
{
    (void)self;
    return false;
}

static double fm_rayleigh_mass(const st_component *self)
{
    return ((const fem_mass *)self)->rayleigh_mass;
}

static const st_mass_ops fm_mass_ops = {
    .struct_size = sizeof(st_mass_ops),
    .add_m_dx = fm_add_m_dx,
    .add_m_to_matrix = fm_add_m_to_matrix,
    .add_gravity_to_force = fm_add_gravity,
    .kinetic_energy = fm_kinetic,
    .potential_energy = fm_potential,
    .is_diagonal = fm_is_diagonal,
    .rayleigh_mass = fm_rayleigh_mass,
};

static const char *const fm_templates[] = {"Vec1d", "Vec2d", "Vec3d", NULL};

static const st_field fm_fields[] = {
    ST_STRING(fem_mass, template_name, "template", "",
              "state type and element type, as SOFA's (Vec3d,Tetrahedron, Vec2d,Quad, "
              "Vec1d,Edge, ...). Empty: SOFA's choice, edges of the state's dimension "
              "(VecNd,Edge), with a warning"),
    ST_LINK(fem_mass, density, "nodalMassDensity", ST_LINK_ANY,
            "Link to nodal mass density (default: the first NodalMassDensity found upward)"),
    ST_LINK(fem_mass, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the node's last topology, else its parent's)"),
    MASS_F_COMMON(fem_mass),
    ST_FIELD_END};

const st_class st_fem_mass_class = {
    .struct_size = sizeof(st_class),
    .name = "FEMMass",
    .category = "Mass",
    .description = "Finite-element mass (inertia and body force) of SOFA's elements (template "
                   "Vec1d, Vec2d or Vec3d with Edge, Vec2d or Vec3d with Triangle or Quad, "
                   "Vec3d with Tetrahedron, Hexahedron, Prism or Pyramid), integrated with the "
                   "element's quadrature from a NodalMassDensity; never lumped (no accFromF)",
    .instance_size = sizeof(fem_mass),
    .fields = fm_fields,
    .init = fm_init,
    .cleanup = fm_cleanup,
    .mass = &fm_mass_ops,
    .templates = fm_templates,
};
