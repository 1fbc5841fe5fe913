/* uniform_mass.c - UniformMass: the same mass on every vertex (or on a
 * subset), as SOFA's: gravity as a force, M dx, M^-1 f, the diagonal mass
 * matrix and the energies, on Vec1d, Vec2d, Vec3d, Rigid2d and Rigid3d states.
 *
 * Rigid2d (SOFA's RigidMass<2>): vertexMass is "mass [volume inertia]",
 * the scalar inertia per unit mass (default 1); the angular row of M is
 * mass * inertia; gravity acts on the centre only.
 *
 * Rigid3d (SOFA's RigidMass): vertexMass is "mass [volume inertia(9)]",
 * the inertia per unit mass (default identity); the angular block of M is
 * mass * inertia, constant in the world frame as in SOFA; gravity acts on
 * the centre only. */
#include <math.h>
#include <string.h>

#include <settee/settee.h>

#include "mass.h"
#include "rigid_file.h"

typedef struct uniform_mass {
    st_component base;
    st_mass_value vertex_mass_in; /* "vertexMass" (Rigid3d: mass [volume inertia(9)]) */
    double vertex_mass;       /* the mass of each point */
    mass_rigid rigid;         /* Rigid3d: mass, mass * inertia (world frame), its inverse */
    double inertia2;          /* Rigid2d: the scalar inertia times the mass (SOFA's inertiaMassMatrix) */
    double total_mass;        /* "totalMass" */
    char *filename;           /* "filename" (rigid templates only) */
    st_vec2 local_range;      /* "localRange" */
    st_array indices;         /* "indices": empty means every vertex */
    bool preserve_total_mass;
    bool separate_gravity;
    double rayleigh_mass;
    double rayleigh_stiffness;
    bool show_gravity_center, compute_mapping_inertia, show_initial_center, show_x0;
    double show_axis_size;
    st_component *topology;   /* "topology" link */
    st_component *mstate;     /* "mstate" link */
    /* Set at init. */
    st_mstate *ms;
    st_component *followed;   /* the topology whose changes the indices follow */
    bool valid;
    bool all;                 /* idx is 0..nidx-1: flat loops */
    /* The indices the loops use: the field's, less those past the state's
     * end (a state resized without a topology: SOFA keeps the indices). */
    const unsigned *idx;
    size_t nidx;
    st_array live;            /* idx when some are past the end */
    bool warned_massless;     /* the growth warning was given */
} uniform_mass;

static const st_field uniform_mass_fields[] = {
    ST_MASS(uniform_mass, vertex_mass_in, "vertexMass", "1",
             "Specify one single, positive, real value for the mass of each particle (Rigid3d: "
             "mass, then optionally volume and the 3x3 inertia matrix per unit mass). If "
             "unspecified or wrongly set, the totalMass information is used."),
    ST_REAL(uniform_mass, total_mass, "totalMass", "1",
            "Specify the total mass resulting from all particles. If unspecified or wrongly set, "
            "the default value is used: totalMass = 1.0"),
    ST_STRING(uniform_mass, filename, "filename", "unused",
              "rigid file to load the mass parameters (SOFA's .rigid: vertexMass, volm, inrt; "
              "Rigid3d states only; \"unused\" reads none)"),
    ST_VEC2(uniform_mass, local_range, "localRange", "-1 -1",
            "optional range of local DOF indices. Any computation involving only indices outside "
            "of this range are discarded (useful for parallelization using mesh partitioning)"),
    ST_UINTS(uniform_mass, indices, "indices", NULL,
             "optional local DOF indices. Any computation involving only indices outside of this "
             "list are discarded"),
    ST_BOOL(uniform_mass, preserve_total_mass, "preserveTotalMass", "false",
            "Prevent totalMass from decreasing when removing particles."),
    MASS_F_SHOW(uniform_mass),
    ST_IGNORED(uniform_mass, compute_mapping_inertia, "compute_mapping_inertia", ST_T_BOOL, bool,
               "false", "to be used if the mass is placed under a mapping (unused in SOFA too)"),
    ST_IGNORED(uniform_mass, show_initial_center, "showInitialCenterOfGravity", ST_T_BOOL, bool,
               "false", "display the initial center of gravity of the system"),
    ST_IGNORED(uniform_mass, show_x0, "showX0", ST_T_BOOL, bool, "false",
               "display the rest positions"),
    ST_LINK(uniform_mass, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container"),
    MASS_F_COMMON(uniform_mass),
    ST_FIELD_END};

/* A Rigid2d state: x y theta, derivatives vx vy w; the angular part
 * weighs inertia2 (SOFA's RigidMass<2> times a RigidDeriv<2>). */
static bool is_rigid2(const uniform_mass *m)
{
    return m->ms->type->rigid && m->ms->type->deriv_size == 3;
}

/* The indices the loops use (idx, nidx): the field's when they all name
 * points of the state, else a copy without those past its end. */
static st_status uniform_mass_live(uniform_mass *m, st_error *err)
{
    size_t n = m->indices.n, size = m->ms->n, k = 0;
    bool clip = false;
    for (size_t i = 0; i < n; i++)
        clip = clip || m->indices.u[i] >= size;
    m->idx = m->indices.u;
    m->nidx = n;
    if (clip) {
        ST_TRY(st_array_resize(&m->live, ST_T_UINTS, n, err));
        for (size_t i = 0; i < n; i++)
            if (m->indices.u[i] < size)
                m->live.u[k++] = m->indices.u[i];
        m->idx = m->live.u;
        m->nidx = k;
    }
    m->all = true;
    for (size_t i = 0; i < m->nidx && m->all; i++)
        m->all = m->idx[i] == i;
    return ST_OK;
}

/* The indices (localRange, else every vertex) and the mass values. */
static st_status uniform_mass_setup(uniform_mass *m, st_error *err)
{
    st_component *self = &m->base;
    m->valid = false;
    size_t size = m->ms->n;
    const st_state_type *t = m->ms->type;
    st_mass_value *vmi = &m->vertex_mass_in;
    static const double id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const bool rigid2 = t->rigid && t->deriv_size == 3;
    if (!t->rigid && (vmi->volume != 1.0 || memcmp(vmi->inertia, id, sizeof id)))
        return st_component_error(self, "vertexMass", err, ST_ESCENE,
                                  "a volume and an inertia are for rigid states; the "
                                  "state is %s: give one value",
                                  t->name);
    bool three = true; /* written "m v I", SOFA's Rigid2Mass */
    for (int i = 1; i < 9; i++)
        three = three && vmi->inertia[i] == 0.0;
    if (t->rigid && !rigid2 && three)
        return st_component_error(self, "vertexMass", err, ST_ESCENE,
                                  "\"m v I\" (3 values) is SOFA's Rigid2d mass; a %s state takes "
                                  "one value or 11 (mass, volume, 3x3 inertia)",
                                  t->name);
    if (rigid2 && !three && memcmp(vmi->inertia, id, sizeof id))
        return st_component_error(self, "vertexMass", err, ST_ESCENE,
                                  "a %s mass is \"m v I\" (mass, volume, scalar inertia); a 3x3 "
                                  "inertia is for Rigid3d states",
                                  t->name);
    bool vm_set = st_component_is_set(self, "vertexMass");
    bool tm_set = st_component_is_set(self, "totalMass");
    if (m->filename && m->filename[0] && strcmp(m->filename, "unused")) {
        if (!t->rigid)
            return st_component_error(self, "filename", err, ST_ESCENE,
                                      "a .rigid file ('%s') is for Rigid3d states; the state is "
                                      "%s: remove filename, or use a Rigid3d state",
                                      m->filename, t->name);
        /* SOFA: the file's values replace vertexMass's; when the scene
         * did not give vertexMass, the file's mass is used and totalMass
         * is dropped. */
        bool mass_given = false;
        ST_TRY(rigid_file_read(self, "filename", m->filename, vmi, &mass_given, err));
        if (mass_given && !vm_set) {
            if (tm_set)
                st_component_warn(self,
                                  "totalMass is dropped: the mass comes from the file '%s' (as "
                                  "in SOFA)",
                                  m->filename);
            vm_set = true;
            tm_set = false;
        }
    }
    m->vertex_mass = vmi->mass;

    int a = (int)m->local_range[0], b = (int)m->local_range[1];
    if (a >= 0 && b > 0 && (size_t)b + 1 < size) {
        ST_TRY(st_array_resize(&m->indices, ST_T_UINTS, (size_t)(b - a + 1), err));
        for (int i = a; i <= b; i++)
            m->indices.u[i - a] = (unsigned)i;
    }
    if (m->indices.n == 0 && size > 0) {
        ST_TRY(st_array_resize(&m->indices, ST_T_UINTS, size, err));
        for (size_t i = 0; i < size; i++)
            m->indices.u[i] = (unsigned)i;
    }
    for (size_t i = 0; i < m->indices.n; i++)
        if (m->indices.u[i] >= size)
            return st_component_error(self, "indices", err, ST_ESCENE,
                                      "index %u is out of range: the state has %zu vertices",
                                      m->indices.u[i], size);

    ST_TRY(uniform_mass_live(m, err));

    size_t n = m->indices.n;
    if (tm_set) {
        if (vm_set)
            st_component_warn(self,
                              "totalMass value overriding the value of the attribute vertexMass. "
                              "vertexMass = totalMass / nb_dofs. To remove this warning you need "
                              "to set either totalMass or vertexMass data field, but not both.");
        if (!(m->total_mass > 0.0))
            return st_component_error(self, "totalMass", err, ST_ESCENE,
                                      "totalMass must be a positive value (got %g); set one "
                                      "single, positive value to totalMass",
                                      m->total_mass);
        if (n > 0)
            m->vertex_mass = m->total_mass / (double)n;
    } else if (vm_set) {
        if (!(m->vertex_mass > 0.0))
            return st_component_error(self, "vertexMass", err, ST_ESCENE,
                                      "vertexMass must be a positive value (got %g); set one "
                                      "single, positive value to vertexMass",
                                      m->vertex_mass);
        m->total_mass = m->vertex_mass * (double)n;
    } else {
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "No input mass information has been set. Please define one of "
                                  "both Data: vertexMass or totalMass. For your information, prior "
                                  "to #3927, default value was totalMass=\"1.0\".");
    }
    vmi->mass = m->vertex_mass; /* the data shows the mass in use, as SOFA's */
    if (rigid2) {
        /* SOFA's RigidMass<2>::recalc refuses a zero inertia or mass. */
        m->inertia2 = vmi->inertia[0] * m->vertex_mass;
        if (!(m->inertia2 != 0.0) || !isfinite(1.0 / m->inertia2))
            return st_component_error(self, "vertexMass", err, ST_ESCENE,
                                      "the inertia times the mass is %g: it must be non-zero",
                                      m->inertia2);
    } else if (t->rigid) {
        if (!mass_rigid_set(&m->rigid, m->vertex_mass, vmi->inertia))
            return st_component_error(self, "vertexMass", err, ST_ESCENE,
                                      "the inertia matrix times the mass is not invertible");
    }
    m->valid = true;
    return ST_OK;
}

/* After a change of the topology: SOFA's ENDING_EVENT callback,
 * updateMassOnResize(indices.size()). The kernel renumbered the indices as
 * SOFA's TopologySubsetIndices; points added join the subset (SOFA's
 * supportNewTopologyElements). */
static st_status uniform_mass_topology_changed(st_component *self, st_component *topology,
                                               const st_topo_event *ev, size_t nev,
                                               st_error *err)
{
    (void)topology;
    uniform_mass *m = (uniform_mass *)self;
    for (size_t e = 0; e < nev; e++) {
        if (ev[e].change != ST_TOPO_ADDED || ev[e].elem != ST_ELEM_POINT || !ev[e].n)
            continue;
        size_t k = m->indices.n;
        ST_TRY(st_array_resize(&m->indices, ST_T_UINTS, k + ev[e].n, err));
        for (size_t i = 0; i < ev[e].n; i++)
            m->indices.u[k + i] = ev[e].index[i];
    }
    size_t n = m->indices.n;
    if (n == 0)
        m->total_mass = 0.0;
    else if (m->preserve_total_mass)
        m->vertex_mass = m->total_mass / (double)n;
    else
        m->total_mass = (double)n * m->vertex_mass;
    m->vertex_mass_in.mass = m->vertex_mass;
    if (is_rigid2(m))
        m->inertia2 = m->vertex_mass_in.inertia[0] * m->vertex_mass;
    else if (m->ms->type->rigid && n > 0 &&
             !mass_rigid_set(&m->rigid, m->vertex_mass, m->vertex_mass_in.inertia))
        return st_component_error(self, "vertexMass", err, ST_ESCENE,
                                  "the inertia matrix times the mass is not invertible");
    ST_TRY(uniform_mass_live(m, err));
    st_component_touch(self, st_component_field(self, "totalMass"));
    st_component_touch(self, st_component_field(self, "vertexMass"));
    st_component_touch(self, st_component_field(self, "indices"));
    return ST_OK;
}

/* SOFA's UniformMass follows a dynamic topology (its "topology" link, else
 * the first one up the tree): indices as TopologySubsetIndices, the masses
 * updated after each change. */
static st_status uniform_mass_follow(uniform_mass *m, st_error *err)
{
    st_component *self = &m->base;
    st_component *topo = m->topology;
    if (!topo)
        topo = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!topo || !topo->cls->topology || topo == m->followed)
        return ST_OK;
    ST_TRY(st_topology_follow_subset(self, "indices", topo, ST_ELEM_POINT, err));
    ST_TRY(st_topology_listen(self, topo, uniform_mass_topology_changed, err));
    m->followed = topo;
    return ST_OK;
}

/* The state resized without a topology (a ParticleSource or ParticleSink
 * in a node without one): SOFA's indices and masses stay as they are (no
 * topology event reaches them), so points added later have no mass and
 * get no weight; indices past the state's end are skipped. */
static st_status uniform_mass_resized(st_component *self, st_mstate *ms, size_t before,
                                      st_error *err)
{
    uniform_mass *m = (uniform_mass *)self;
    ST_TRY(uniform_mass_live(m, err));
    /* SOFA's numbers, which mislead: say so once. */
    if (ms->n > before && m->nidx < ms->n && !m->warned_massless) {
        m->warned_massless = true;
        st_component_warn(self,
                          "the state grew from %zu to %zu points without a topology: as in "
                          "SOFA, the mass keeps its %zu indices, so the points added have no "
                          "mass and no weight (they keep their velocity)",
                          before, ms->n, m->nidx);
    }
    return ST_OK;
}

static void uniform_mass_cleanup(st_component *self)
{
    uniform_mass *m = (uniform_mass *)self;
    st_array_free(&m->live, ST_T_UINTS);
    m->idx = NULL;
    m->nidx = 0;
}

static st_status uniform_mass_init(st_component *self, st_error *err)
{
    uniform_mass *m = (uniform_mass *)self;
    m->ms = st_component_mstate(self);
    if (!m->ms)
        return st_component_error(self, "mstate", err, ST_ESCENE,
                                  "No compatible MechanicalState found in the current context: "
                                  "add a MechanicalObject before the mass in this node, or set "
                                  "mstate");
    ST_TRY(uniform_mass_setup(m, err));
    ST_TRY(st_mstate_follow_resize(self, m->ms, uniform_mass_resized, err));
    return uniform_mass_follow(m, err);
}

static st_status uniform_mass_reinit(st_component *self, st_error *err)
{
    uniform_mass *m = (uniform_mass *)self;
    if (!m->ms)
        return uniform_mass_init(self, err);
    return uniform_mass_setup(m, err);
}

static void uniform_mass_add_gravity_to_force(st_component *self, const st_mparams *mp, double *f,
                                              const double *x, const double *v)
{
    uniform_mass *m = (uniform_mass *)self;
    if (!m->valid || m->separate_gravity)
        return;
    double *fs = st_slice(f, m->ms);
    const double mg[3] = {mp->gravity[0] * m->vertex_mass, mp->gravity[1] * m->vertex_mass,
                          mp->gravity[2] * m->vertex_mass};
    const unsigned D = m->ms->type->deriv_size;
    if (D != 3 || is_rigid2(m)) { /* Vec1d, Vec2d: the first D components; rigid: the centre */
        unsigned sp = m->ms->type->spatial_size;
        for (size_t k = 0; k < m->nidx; k++)
            for (unsigned a = 0; a < sp; a++)
                fs[D * (size_t)m->idx[k] + a] += mg[a];
        return;
    }
    if (m->all) {
        for (size_t i = 0, n3 = 3 * m->nidx; i < n3; i += 3) {
            fs[i] += mg[0];
            fs[i + 1] += mg[1];
            fs[i + 2] += mg[2];
        }
        return;
    }
    const unsigned *idx = m->idx;
    for (size_t k = 0, n = m->nidx; k < n; k++) {
        double *fi = fs + 3 * (size_t)idx[k];
        fi[0] += mg[0];
        fi[1] += mg[1];
        fi[2] += mg[2];
    }
}

static void uniform_mass_add_gravity_to_v(st_component *self, const st_mparams *mp, double *v,
                                          double dt)
{
    uniform_mass *m = (uniform_mass *)self;
    if (!m->valid || !m->separate_gravity)
        return;
    double *vs = st_slice(v, m->ms);
    const double hg[3] = {mp->gravity[0] * dt, mp->gravity[1] * dt, mp->gravity[2] * dt};
    const unsigned D = m->ms->type->deriv_size, sp = m->ms->type->spatial_size;
    for (size_t k = 0; k < m->nidx; k++) {
        double *vi = vs + D * (size_t)m->idx[k];
        for (unsigned a = 0; a < sp; a++)
            vi[a] += hg[a];
    }
}

static void uniform_mass_add_m_dx(st_component *self, const st_mparams *mp, double *res,
                                  const double *dx, double factor)
{
    uniform_mass *m = (uniform_mass *)self;
    if (!m->valid)
        return;
    double *r = st_slice(res, m->ms);
    const double *d = st_slice(dx, m->ms);
    const double mf = m->vertex_mass * factor;
    const unsigned D = m->ms->type->deriv_size;
    if (is_rigid2(m)) {
        for (size_t k = 0; k < m->nidx; k++) {
            size_t i = 3 * (size_t)m->idx[k];
            r[i] += d[i] * mf;
            r[i + 1] += d[i + 1] * mf;
            r[i + 2] += d[i + 2] * (m->inertia2 * factor);
        }
        return;
    }
    if (m->ms->type->rigid) {
        for (size_t k = 0; k < m->nidx; k++)
            mass_rigid_mdx(&m->rigid, r + 6 * (size_t)m->idx[k],
                           d + 6 * (size_t)m->idx[k], factor);
        return;
    }
    if (D != 3) {
        for (size_t k = 0; k < m->nidx; k++)
            for (unsigned a = 0; a < D; a++)
                r[D * (size_t)m->idx[k] + a] += d[D * (size_t)m->idx[k] + a] * mf;
        return;
    }
    for (size_t k = 0; k < m->nidx; k++) {
        size_t i = 3 * (size_t)m->idx[k];
        r[i] += d[i] * mf;
        r[i + 1] += d[i + 1] * mf;
        r[i + 2] += d[i + 2] * mf;
    }
}

static void uniform_mass_acc_from_f(st_component *self, const st_mparams *mp, double *a,
                                    const double *f)
{
    uniform_mass *m = (uniform_mass *)self;
    if (!m->valid)
        return;
    double *as = st_slice(a, m->ms);
    const double *fs = st_slice(f, m->ms);
    const double vm = m->vertex_mass;
    const unsigned D = m->ms->type->deriv_size;
    if (is_rigid2(m)) {
        for (size_t k = 0; k < m->nidx; k++) {
            size_t i = 3 * (size_t)m->idx[k];
            as[i] = fs[i] / vm;
            as[i + 1] = fs[i + 1] / vm;
            as[i + 2] = fs[i + 2] / m->inertia2;
        }
        return;
    }
    if (m->ms->type->rigid) {
        for (size_t k = 0; k < m->nidx; k++)
            mass_rigid_acc(&m->rigid, as + 6 * (size_t)m->idx[k],
                           fs + 6 * (size_t)m->idx[k]);
        return;
    }
    if (D != 3) {
        for (size_t k = 0; k < m->nidx; k++)
            for (unsigned c = 0; c < D; c++)
                as[D * (size_t)m->idx[k] + c] = fs[D * (size_t)m->idx[k] + c] / vm;
        return;
    }
    if (m->all) {
        /* Same divisions, in a loop the compiler can vectorise. */
        for (size_t i = 0, n3 = 3 * m->nidx; i < n3; i++)
            as[i] = fs[i] / vm;
        return;
    }
    const unsigned *idx = m->idx;
    for (size_t k = 0, n = m->nidx; k < n; k++) {
        size_t i = 3 * (size_t)idx[k];
        as[i] = fs[i] / vm;
        as[i + 1] = fs[i + 1] / vm;
        as[i + 2] = fs[i + 2] / vm;
    }
}

static void uniform_mass_add_m_to_matrix(st_component *self, const st_mparams *mp, st_matrix *mat,
                                         double mfactor)
{
    uniform_mass *m = (uniform_mass *)self;
    if (!m->valid)
        return;
    const double d = m->vertex_mass * mfactor;
    if (is_rigid2(m)) {
        const double b[9] = {d, 0, 0, 0, d, 0, 0, 0, m->inertia2 * mfactor};
        for (size_t k = 0; k < m->nidx; k++)
            st_matrix_add_block(mat, m->ms, m->idx[k], m->ms, m->idx[k], b);
        return;
    }
    if (m->ms->type->rigid) {
        double b[36];
        mass_rigid_block(&m->rigid, b, mfactor);
        for (size_t k = 0; k < m->nidx; k++)
            st_matrix_add_block(mat, m->ms, m->idx[k], m->ms, m->idx[k], b);
        return;
    }
    for (size_t k = 0; k < m->nidx; k++)
        st_matrix_add_diag(mat, m->ms, m->idx[k], d);
}

static double uniform_mass_kinetic_energy(st_component *self, const st_mparams *mp,
                                          const double *v)
{
    uniform_mass *m = (uniform_mass *)self;
    if (!m->valid)
        return 0.0;
    const double *vs = st_slice(v, m->ms);
    const unsigned D = m->ms->type->deriv_size;
    double e = 0.0;
    for (size_t k = 0; k < m->nidx; k++) {
        const double *vi = vs + D * (size_t)m->idx[k];
        if (D == 3 && is_rigid2(m)) {
            e += (vi[0] * vi[0] + vi[1] * vi[1]) * m->vertex_mass + vi[2] * vi[2] * m->inertia2;
            continue;
        }
        if (D == 3) {
            e += (vi[0] * vi[0] + vi[1] * vi[1] + vi[2] * vi[2]) * m->vertex_mass;
            continue;
        }
        if (D == 6) {
            e += mass_rigid_vmv(&m->rigid, vi);
            continue;
        }
        double s = 0.0;
        for (unsigned a = 0; a < D; a++)
            s += vi[a] * vi[a];
        e += s * m->vertex_mass;
    }
    return e / 2.0;
}

static double uniform_mass_potential_energy(st_component *self, const st_mparams *mp,
                                            const double *x)
{
    uniform_mass *m = (uniform_mass *)self;
    if (!m->valid)
        return 0.0;
    const double *xs = st_slice_x(x, m->ms);
    const double *g = mp->gravity;
    const unsigned w = m->ms->type->coord_size, sp = m->ms->type->spatial_size;
    double e = 0.0;
    for (size_t k = 0; k < m->nidx; k++) {
        const double *xi = xs + w * (size_t)m->idx[k];
        double s = g[0] * xi[0];
        for (unsigned a = 1; a < sp; a++)
            s += g[a] * xi[a];
        e -= s * m->vertex_mass;
    }
    return e;
}

static bool uniform_mass_is_diagonal(const st_component *self)
{
    return true;
}

static double uniform_mass_rayleigh_mass(const st_component *self)
{
    return ((const uniform_mass *)self)->rayleigh_mass;
}

static const st_mass_ops uniform_mass_ops = {
    .struct_size = sizeof(st_mass_ops),
    .add_m_dx = uniform_mass_add_m_dx,
    .acc_from_f = uniform_mass_acc_from_f,
    .add_m_to_matrix = uniform_mass_add_m_to_matrix,
    .add_gravity_to_force = uniform_mass_add_gravity_to_force,
    .add_gravity_to_v = uniform_mass_add_gravity_to_v,
    .kinetic_energy = uniform_mass_kinetic_energy,
    .potential_energy = uniform_mass_potential_energy,
    .is_diagonal = uniform_mass_is_diagonal,
    .rayleigh_mass = uniform_mass_rayleigh_mass,
};

const st_class st_uniform_mass_class = {
    .struct_size = sizeof(st_class),
    .name = "UniformMass",
    .category = "Mass",
    .description = "Define the same mass for all the particles",
    .instance_size = sizeof(uniform_mass),
    .fields = uniform_mass_fields,
    .init = uniform_mass_init,
    .reinit = uniform_mass_reinit,
    .cleanup = uniform_mass_cleanup,
    .mass = &uniform_mass_ops,
    .templates = st_all_state_types,
};
