/* diagonal_mass.c - DiagonalMass: a lumped (diagonal) mass computed from
 * the topology's elements, as SOFA's.
 *
 * The element type is the highest the topology has (hexahedra, tetrahedra,
 * quads, triangles, edges). Each element gives rho |e| / k to each of its k
 * vertices (edge length, triangle area, quad area as two triangles,
 * tetrahedron volume, hexahedron volume as six tetrahedra), measured on the
 * geometry state's rest positions (computeMassOnRest, default true) or
 * positions. Precedence: totalMass set (wins, warning if others set) >
 * massDensity set > vertexMass set > nothing (totalMass = 1). A negative
 * totalMass falls back to 1 with a warning, as SOFA.
 *
 * Rigid3d (SOFA's DiagonalMass<Rigid3>): nothing is computed from the
 * elements; vertexMass gives each point's RigidMass, "mass volume
 * inertia(9)" (11 values per point, the inertia per unit mass), a short list
 * padded with its last entry; gravity acts on the centres. */
#include <float.h>
#include <math.h>
#include <string.h>

#include <settee/settee.h>

#include "mass.h"

typedef struct diagonal_mass {
    st_component base;
    st_array vertex_mass;       /* "vertexMass": per vertex, input and result */
    double mass_density;        /* "massDensity" */
    double total_mass;          /* "totalMass" */
    bool compute_mass_on_rest;  /* "computeMassOnRest" */
    bool show_gravity_center;
    double show_axis_size;
    char *filename;             /* "filename" (alias "fileMass") */
    bool separate_gravity;
    double rayleigh_mass, rayleigh_stiffness;
    st_component *topology, *geometry_state, *mstate;
    /* Set at init. */
    st_mstate *ms;
    st_type elem;               /* element type used */
    mass_rigid *rigid;          /* Rigid3d: one per point (owned), else NULL */
    /* Topological changes: a copy of the mass elements (w vertices each),
     * following the topology's elements of that kind, so that a removed
     * element's mass can be taken off its vertices (SOFA reads it in the
     * container before the container changes). */
    unsigned *copy;
    size_t ncopy;
    st_component *followed;
} diagonal_mass;

extern const st_class st_diagonal_mass_class;

/* ---- mass computation ---- */

static const st_array *dm_elems(const diagonal_mass *m, st_type kind)
{
    const st_array *a = m->topology->cls->topology->elements(m->topology, kind);
    return a && a->n ? a : NULL;
}

/* The mass one element gives each of its vertices: rho |e| / k. */
static double dm_elem_mass(st_type elem, const double *x, const unsigned *v, double density)
{
    switch (elem) {
    case ST_T_EDGES:
        return (density * mass_edge_length(x + 3 * v[0], x + 3 * v[1])) / 2.0;
    case ST_T_TRIANGLES:
        return (density * mass_tri_area(x + 3 * v[0], x + 3 * v[1], x + 3 * v[2])) / 3.0;
    case ST_T_QUADS: {
        double area = mass_tri_area(x + 3 * v[0], x + 3 * v[1], x + 3 * v[2]) +
                      mass_tri_area(x + 3 * v[0], x + 3 * v[2], x + 3 * v[3]);
        return (density * area) / 4.0;
    }
    case ST_T_TETRAS:
        return (density * mass_tet_volume(x + 3 * v[0], x + 3 * v[1], x + 3 * v[2], x + 3 * v[3])) /
               4.0;
    case ST_T_HEXAS: {
        const double *p[8];
        for (int j = 0; j < 8; j++)
            p[j] = x + 3 * v[j];
        return (density * mass_hexa_volume(p)) / 8.0;
    }
    default:
        return 0.0;
    }
}

/* Fills vertexMass with the masses for a density; returns their sum
 * (accumulated vertex by vertex, as SOFA). */
static st_status dm_compute(diagonal_mass *m, double density, double *total, st_error *err)
{
    size_t n = m->ms->n;
    ST_TRY(st_array_resize(&m->vertex_mass, ST_T_REALS, n, err));
    double *vm = m->vertex_mass.r;
    memset(vm, 0, n * sizeof *vm);
    st_mstate *g = (st_mstate *)m->geometry_state;
    const st_array *pos = m->compute_mass_on_rest ? &g->rest_position : &g->position;
    const double *x = pos->r;
    const st_array *e = dm_elems(m, m->elem);
    unsigned w = st_type_width(m->elem);
    double t = 0;
    for (size_t i = 0; e && i < e->n; i++) {
        const unsigned *v = e->u + (size_t)w * i;
        for (unsigned j = 0; j < w; j++)
            if (v[j] >= pos->n || v[j] >= n)
                return st_component_error(&m->base, "topology", err, ST_EINVAL,
                                          "element %zu of the topology uses vertex %u but the "
                                          "state has %zu points",
                                          i, v[j], pos->n < n ? pos->n : n);
        double mass = dm_elem_mass(m->elem, x, v, density);
        for (unsigned j = 0; j < w; j++) {
            vm[v[j]] += mass;
            t += mass;
        }
    }
    *total = t;
    return ST_OK;
}

static void dm_check_total_init(diagonal_mass *m)
{
    if (m->total_mass < 0.0) {
        st_component_warn(&m->base,
                          "totalMass data can not have a negative value. To remove this warning, "
                          "you need to set a strictly positive value to the totalMass data");
        st_component_warn(&m->base, "Switching back to default values: totalMass = 1.0");
        m->total_mass = 1.0;
    }
}

static st_status dm_from_total(diagonal_mass *m, st_error *err)
{
    double sum;
    ST_TRY(dm_compute(m, 1.0, &sum, err));
    m->mass_density = sum < DBL_EPSILON ? 1.0 : m->total_mass / sum;
    for (size_t i = 0; i < m->vertex_mass.n; i++)
        m->vertex_mass.r[i] *= m->mass_density;
    return ST_OK;
}

static st_status dm_from_density(diagonal_mass *m, st_error *err)
{
    double sum;
    ST_TRY(dm_compute(m, m->mass_density, &sum, err));
    m->total_mass = sum;
    return ST_OK;
}

static bool dm_check_vertex_mass(diagonal_mass *m)
{
    size_t np = mass_topology_nb_points(m->topology);
    if (m->vertex_mass.n != np) {
        st_component_warn(&m->base,
                          "Inconsistent size of vertexMass vector (%zu) compared to the DOFs "
                          "size (%zu).",
                          m->vertex_mass.n, np);
        return false;
    }
    for (size_t i = 0; i < m->vertex_mass.n; i++)
        if (m->vertex_mass.r[i] < 0) {
            st_component_warn(&m->base, "Negative value of vertexMass vector: vertexMass[%zu] = %g",
                              i, m->vertex_mass.r[i]);
            return false;
        }
    return true;
}

static st_status dm_from_vertex_mass(diagonal_mass *m, st_error *err)
{
    size_t n = m->vertex_mass.n;
    double *save = st_malloc((n ? n : 1) * sizeof *save);
    if (!save)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    memcpy(save, m->vertex_mass.r, n * sizeof *save);
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += save[i];
    m->total_mass = total;
    double sum;
    st_status st = dm_compute(m, 1.0, &sum, err);
    if (st == ST_OK) {
        m->mass_density = sum < DBL_EPSILON ? 1.0 : total / sum;
        st = st_array_resize(&m->vertex_mass, ST_T_REALS, n, err);
        if (st == ST_OK)
            memcpy(m->vertex_mass.r, save, n * sizeof *save);
    }
    st_free(save);
    return st;
}

/* Rigid3d: one RigidMass per point from vertexMass (11 values each). */
static st_status dm_init_rigid(diagonal_mass *m, st_error *err)
{
    st_component *self = &m->base;
    m->ms = st_component_mstate(self);
    if (!m->ms)
        return st_component_error(self, "mstate", err, ST_ESCENE,
                                  "no MechanicalObject in the node or its ancestors (DiagonalMass "
                                  "needs one)");
    const st_array *vm = &m->vertex_mass;
    if (vm->n == 0 || vm->n % 11)
        return st_component_error(self, "vertexMass", err, ST_ESCENE,
                                  "on Rigid3d, vertexMass gives each point's mass, volume and "
                                  "3x3 inertia matrix (11 values per point); got %zu values",
                                  vm->n);
    size_t n = m->ms->n, given = vm->n / 11;
    st_free(m->rigid);
    m->rigid = st_calloc(n ? n : 1, sizeof *m->rigid);
    if (!m->rigid)
        return st_component_error(self, NULL, err, ST_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const double *r = vm->r + 11 * (i < given ? i : given - 1);
        if (!(r[0] > 0.0) || !mass_rigid_set(&m->rigid[i], r[0], r + 2))
            return st_component_error(self, "vertexMass", err, ST_ESCENE,
                                      "point %zu: the mass must be positive and mass * inertia "
                                      "invertible",
                                      i);
    }
    return ST_OK;
}

static void dm_cleanup(st_component *self)
{
    diagonal_mass *m = (diagonal_mass *)self;
    st_free(m->rigid);
    m->rigid = NULL;
    st_free(m->copy);
    m->copy = NULL;
    m->ncopy = 0;
}

/* ---- topological changes (SOFA's DiagonalMass handlers) ---- */

static st_elem dm_elem_kind(st_type t)
{
    switch (t) {
    case ST_T_EDGES: return ST_ELEM_EDGE;
    case ST_T_TRIANGLES: return ST_ELEM_TRIANGLE;
    case ST_T_QUADS: return ST_ELEM_QUAD;
    case ST_T_TETRAS: return ST_ELEM_TETRAHEDRON;
    default: return ST_ELEM_HEXAHEDRON;
    }
}

/* Adds sign * rho |e| / k to the element's vertices and k times that to
 * totalMass, on the geometry state's rest positions and with massDensity,
 * as SOFA's applyXxxCreation / applyXxxDestruction. */
static void dm_elem_apply(diagonal_mass *m, const unsigned *v, double sign)
{
    st_mstate *g = (st_mstate *)m->geometry_state;
    unsigned w = st_type_width(m->elem);
    for (unsigned j = 0; j < w; j++)
        if (v[j] >= g->rest_position.n || v[j] >= m->vertex_mass.n)
            return;
    double mass = dm_elem_mass(m->elem, g->rest_position.r, v, m->mass_density);
    for (unsigned j = 0; j < w; j++)
        m->vertex_mass.r[v[j]] += sign * mass;
    m->total_mass += sign * ((double)w * mass);
}

static void dm_elem_destroy(void *ud, size_t i, void *item)
{
    (void)i;
    dm_elem_apply(ud, item, -1.0);
}

static void dm_elem_create(void *ud, size_t i, void *item, const st_topo_event *ev, size_t k)
{
    (void)i;
    diagonal_mass *m = ud;
    unsigned w = st_type_width(m->elem);
    if (!ev->vertices)
        return;
    memcpy(item, ev->vertices + k * w, w * sizeof(unsigned));
    dm_elem_apply(m, item, 1.0);
}

static const st_topo_follow_ops dm_elem_ops = {
    .struct_size = sizeof(st_topo_follow_ops),
    .destroy = dm_elem_destroy,
    .create = dm_elem_create,
};

/* SOFA's applyPointDestruction: totalMass -= the point's mass (a new
 * point's mass is 0: the kernel zero-fills it). */
static void dm_point_destroy(void *ud, size_t i, void *item)
{
    (void)i;
    diagonal_mass *m = ud;
    m->total_mass -= *(const double *)item;
}

static const st_topo_follow_ops dm_point_ops = {
    .struct_size = sizeof(st_topo_follow_ops),
    .destroy = dm_point_destroy,
};

/* After the change: the copies' vertices renumbered as the container
 * renumbered its elements (the last point fills each removed one's place). */
static st_status dm_topology_changed(st_component *self, st_component *topology,
                                     const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology, (void)err;
    diagonal_mass *m = (diagonal_mass *)self;
    size_t total = m->ncopy * st_type_width(m->elem);
    for (size_t e = 0; e < nev; e++) {
        if (ev[e].change != ST_TOPO_REMOVED || ev[e].elem != ST_ELEM_POINT)
            continue;
        for (size_t k = 0; k < ev[e].n; k++) {
            unsigned id = ev[e].index[k], last = (unsigned)(ev[e].before - 1 - k);
            for (size_t j = 0; j < total; j++)
                if (m->copy[j] == last)
                    m->copy[j] = id;
        }
    }
    st_component_touch(self, st_component_field(self, "vertexMass"));
    st_component_touch(self, st_component_field(self, "totalMass"));
    return ST_OK;
}

static st_status dm_follow(diagonal_mass *m, st_error *err)
{
    st_component *self = &m->base;
    if (m->followed == m->topology)
        return ST_OK;
    const st_array *e = dm_elems(m, m->elem);
    unsigned w = st_type_width(m->elem);
    size_t n = e ? e->n : 0;
    st_free(m->copy);
    m->copy = st_malloc((n ? n : 1) * w * sizeof *m->copy);
    if (!m->copy)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    if (n)
        memcpy(m->copy, e->u, n * w * sizeof *m->copy);
    m->ncopy = n;
    ST_TRY(st_topology_follow_field(self, "vertexMass", m->topology, ST_ELEM_POINT, &dm_point_ops,
                                    m, err));
    ST_TRY(st_topology_follow(self, m->topology, dm_elem_kind(m->elem), (void **)&m->copy,
                              &m->ncopy, w * sizeof *m->copy, &dm_elem_ops, m, err));
    ST_TRY(st_topology_listen(self, m->topology, dm_topology_changed, err));
    m->followed = m->topology;
    return ST_OK;
}

static st_status dm_init(st_component *self, st_error *err)
{
    diagonal_mass *m = (diagonal_mass *)self;
    if (m->filename && m->filename[0])
        return st_component_error(self, "filename", err, ST_EINVAL,
                                  "Xsp mass files are not supported: give vertexMass, massDensity "
                                  "or totalMass instead");
    const st_state_type *t = st_component_state_type(self);
    if (t && t->rigid)
        return dm_init_rigid(m, err);
    ST_TRY(mass_bind_topology(self, &m->ms, &m->topology, &m->geometry_state, err));
    static const st_type order[5] = {ST_T_HEXAS, ST_T_TETRAS, ST_T_QUADS, ST_T_TRIANGLES,
                                     ST_T_EDGES};
    m->elem = 0;
    for (int i = 0; i < 5 && !m->elem; i++)
        if (dm_elems(m, order[i]))
            m->elem = order[i];
    if (!m->elem)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "Topology empty: the topology '%s' has no edges, triangles, "
                                  "quads, tetrahedra or hexahedra",
                                  m->topology->name);

    /* A short vertexMass is padded with its last value. */
    size_t n = m->ms->n, vn = m->vertex_mass.n;
    if (vn > 0 && vn < n) {
        ST_TRY(st_array_resize(&m->vertex_mass, ST_T_REALS, n, err));
        for (size_t i = vn; i < n; i++)
            m->vertex_mass.r[i] = m->vertex_mass.r[vn - 1];
    }

    bool vm_set = st_component_is_set(self, "vertexMass");
    bool md_set = st_component_is_set(self, "massDensity");
    bool tm_set = st_component_is_set(self, "totalMass");
    if (tm_set) {
        if (vm_set || md_set)
            st_component_warn(self, "totalMass value overriding other mass information "
                                    "(vertexMass or massDensity). To remove this warning you need "
                                    "to define only one single mass information data field.");
        dm_check_total_init(m);
        ST_TRY(dm_from_total(m, err));
    } else if (md_set) {
        if (vm_set)
            st_component_warn(self, "massDensity value overriding the value of the attribute "
                                    "vertexMass. To remove this warning you need to set either "
                                    "vertexMass or massDensity data field, but not both.");
        if (m->mass_density < 0.0) {
            st_component_warn(self, "Negative value of massDensity: massDensity = %g",
                              m->mass_density);
            dm_check_total_init(m);
            ST_TRY(dm_from_total(m, err));
        } else {
            ST_TRY(dm_from_density(m, err));
        }
    } else if (vm_set) {
        if (!dm_check_vertex_mass(m)) {
            dm_check_total_init(m);
            ST_TRY(dm_from_total(m, err));
        } else {
            ST_TRY(dm_from_vertex_mass(m, err));
        }
    } else {
        st_component_info(self, "No information about the mass is given. Default : totalMass = "
                                "1.0");
        dm_check_total_init(m);
        ST_TRY(dm_from_total(m, err));
    }
    /* accFromF divides by each vertex's mass: a zero (or negative) one would
     * give infinite accelerations. */
    ST_TRY(mass_check_vertex_masses(self, "vertexMass", m->vertex_mass.r,
                                    m->vertex_mass.n < n ? m->vertex_mass.n : n, 1.0, err));
    st_component_touch(self, st_component_field(self, "vertexMass"));
    st_component_touch(self, st_component_field(self, "massDensity"));
    st_component_touch(self, st_component_field(self, "totalMass"));
    return dm_follow(m, err);
}

/* ---- role functions ---- */

static void dm_add_m_dx(st_component *self, const st_mparams *mp, double *res, const double *dx,
                        double factor)
{
    (void)mp;
    diagonal_mass *m = (diagonal_mass *)self;
    double *r = st_slice(res, m->ms);
    const double *d = st_slice(dx, m->ms);
    const double *vm = m->vertex_mass.r;
    if (m->rigid) {
        for (size_t i = 0; i < m->ms->n; i++)
            mass_rigid_mdx(&m->rigid[i], r + 6 * i, d + 6 * i, factor);
        return;
    }
    size_t n = m->vertex_mass.n < m->ms->n ? m->vertex_mass.n : m->ms->n;
    if (factor == 1.0) {
        for (size_t i = 0; i < 3 * n; i++)
            r[i] += d[i] * vm[i / 3];
    } else {
        for (size_t i = 0; i < 3 * n; i++)
            r[i] += (d[i] * vm[i / 3]) * factor;
    }
}

static void dm_acc_from_f(st_component *self, const st_mparams *mp, double *a, const double *f)
{
    (void)mp;
    diagonal_mass *m = (diagonal_mass *)self;
    double *as = st_slice(a, m->ms);
    const double *fs = st_slice(f, m->ms);
    const double *vm = m->vertex_mass.r;
    if (m->rigid) {
        for (size_t i = 0; i < m->ms->n; i++)
            mass_rigid_acc(&m->rigid[i], as + 6 * i, fs + 6 * i);
        return;
    }
    size_t n = m->vertex_mass.n < m->ms->n ? m->vertex_mass.n : m->ms->n;
    for (size_t i = 0; i < 3 * n; i++)
        as[i] = fs[i] / vm[i / 3];
}

static void dm_add_m_to_matrix(st_component *self, const st_mparams *mp, st_matrix *mat,
                               double mfactor)
{
    (void)mp;
    diagonal_mass *m = (diagonal_mass *)self;
    if (m->rigid) {
        for (size_t i = 0; i < m->ms->n; i++) {
            double b[36];
            mass_rigid_block(&m->rigid[i], b, mfactor);
            st_matrix_add_block(mat, m->ms, i, m->ms, i, b);
        }
        return;
    }
    size_t n = m->vertex_mass.n < m->ms->n ? m->vertex_mass.n : m->ms->n;
    for (size_t i = 0; i < n; i++)
        st_matrix_add_diag(mat, m->ms, i, m->vertex_mass.r[i] * mfactor);
}

static void dm_add_gravity(st_component *self, const st_mparams *mp, double *f, const double *x,
                           const double *v)
{
    (void)x, (void)v;
    diagonal_mass *m = (diagonal_mass *)self;
    if (m->separate_gravity)
        return;
    double *fs = st_slice(f, m->ms);
    const double *g = mp->gravity;
    if (m->rigid) {
        for (size_t i = 0; i < m->ms->n; i++)
            for (int a = 0; a < 3; a++)
                fs[6 * i + a] += g[a] * m->rigid[i].m;
        return;
    }
    size_t n = m->vertex_mass.n < m->ms->n ? m->vertex_mass.n : m->ms->n;
    for (size_t i = 0; i < n; i++) {
        double mi = m->vertex_mass.r[i];
        fs[3 * i] += g[0] * mi;
        fs[3 * i + 1] += g[1] * mi;
        fs[3 * i + 2] += g[2] * mi;
    }
}

static void dm_add_gravity_to_v(st_component *self, const st_mparams *mp, double *v, double dt)
{
    diagonal_mass *m = (diagonal_mass *)self;
    if (m->separate_gravity)
        mass_add_gravity_to_v(m->ms, mp, v, dt);
}

static double dm_kinetic(st_component *self, const st_mparams *mp, const double *v)
{
    (void)mp;
    diagonal_mass *m = (diagonal_mass *)self;
    const double *vs = st_slice(v, m->ms);
    double e = 0;
    if (m->rigid) {
        for (size_t i = 0; i < m->ms->n; i++)
            e += mass_rigid_vmv(&m->rigid[i], vs + 6 * i);
        return e / 2;
    }
    size_t n = m->vertex_mass.n < m->ms->n ? m->vertex_mass.n : m->ms->n;
    for (size_t i = 0; i < n; i++) {
        double mi = m->vertex_mass.r[i];
        const double *w = vs + 3 * i;
        e += (w[0] * mi) * w[0] + (w[1] * mi) * w[1] + (w[2] * mi) * w[2];
    }
    return e / 2;
}

static double dm_potential(st_component *self, const st_mparams *mp, const double *x)
{
    diagonal_mass *m = (diagonal_mass *)self;
    const double *xs = st_slice_x(x, m->ms);
    const double *g = mp->gravity;
    double e = 0;
    if (m->rigid) {
        for (size_t i = 0; i < m->ms->n; i++) {
            const double *p = xs + 7 * i;
            e -= (g[0] * p[0] + g[1] * p[1] + g[2] * p[2]) * m->rigid[i].m;
        }
        return e;
    }
    size_t n = m->vertex_mass.n < m->ms->n ? m->vertex_mass.n : m->ms->n;
    for (size_t i = 0; i < n; i++) {
        const double *p = xs + 3 * i;
        e -= (g[0] * p[0] + g[1] * p[1] + g[2] * p[2]) * m->vertex_mass.r[i];
    }
    return e;
}

static bool dm_is_diagonal(const st_component *self)
{
    (void)self;
    return true;
}

static double dm_rayleigh_mass(const st_component *self)
{
    return ((const diagonal_mass *)self)->rayleigh_mass;
}

static const st_mass_ops dm_mass_ops = {
    .struct_size = sizeof(st_mass_ops),
    .add_m_dx = dm_add_m_dx,
    .acc_from_f = dm_acc_from_f,
    .add_m_to_matrix = dm_add_m_to_matrix,
    .add_gravity_to_force = dm_add_gravity,
    .add_gravity_to_v = dm_add_gravity_to_v,
    .kinetic_energy = dm_kinetic,
    .potential_energy = dm_potential,
    .is_diagonal = dm_is_diagonal,
    .rayleigh_mass = dm_rayleigh_mass,
};

static const st_field dm_fields[] = {
    ST_FIELD_EX(diagonal_mass, vertex_mass, "vertexMass", ST_T_REALS, st_array, NULL,
                "Specify a vector giving the mass of each vertex. If unspecified or wrongly set, "
                "the massDensity or totalMass information is used.",
                ST_F_BRACKETS, NULL, 0.0, 0.0),
    ST_REAL(diagonal_mass, mass_density, "massDensity", "1",
            "Specify one single real and positive value for the mass density. If unspecified or "
            "wrongly set, the totalMass information is used."),
    ST_REAL(diagonal_mass, total_mass, "totalMass", "1",
            "Specify the total mass resulting from all particles. If unspecified or wrongly set, "
            "the default value is used: totalMass = 1.0"),
    ST_BOOL(diagonal_mass, compute_mass_on_rest, "computeMassOnRest", "true",
            "If true, the mass of every element is computed based on the rest position rather "
            "than the position"),
    MASS_F_SHOW(diagonal_mass),
    ST_FIELD_EX(diagonal_mass, filename, "filename", ST_T_STRING, char *, NULL,
                "Xsp3.0 file to specify the mass parameters (not supported: an error when set)",
                0, "fileMass", 0.0, 0.0),
    ST_LINK(diagonal_mass, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the node's last topology, else its parent's)"),
    ST_LINK(diagonal_mass, geometry_state, "geometryState", ST_LINK_STATE,
            "link to the MechanicalObject associated with the geometry (default: the "
            "topology's node's)"),
    MASS_F_COMMON(diagonal_mass),
    ST_FIELD_END};

/* Vec3d from the elements; Rigid3d from vertexMass (SOFA's specialisation). */
static const char *const dm_templates[] = {"Vec3d", "Rigid3d", NULL};

const st_class st_diagonal_mass_class = {
    .struct_size = sizeof(st_class),
    .name = "DiagonalMass",
    .category = "Mass",
    .description = "Lumped mass from the topology's elements (edges to hexahedra)",
    .instance_size = sizeof(diagonal_mass),
    .fields = dm_fields,
    .init = dm_init,
    .cleanup = dm_cleanup,
    .mass = &dm_mass_ops,
    .templates = dm_templates,
};
