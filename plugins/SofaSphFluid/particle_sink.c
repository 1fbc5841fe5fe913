/* particle_sink.c - ParticleSink: SOFA's drain of fluid particles below a
 * plane.
 *
 * With n the normal: at the start of each step (ANIMATE_BEGIN) the points
 * with x.n - d1 < 0 are removed, through the topology (st_topology_remove
 * of points, SOFA's PointSetTopologyModifier::removePoints: the last point
 * moves into each hole, and the state and every per-point data follow).
 * While the ODE solver projects positions, the points with x.n - d0 < 0
 * are listed in the output "fixed", and projecting velocities zeroes
 * theirs (SOFA's: positions and responses are left alone).
 *
 * Without a topology (no "topology" link and none in the node or its
 * ancestors) the points are removed from the state itself, as SOFA's
 * MechanicalObject branch: in the same order, the last point's values are
 * copied onto each removed one (st_mstate_replace_value), then the state is
 * shrunk (st_mstate_resize); nothing is renumbered for other components,
 * as in SOFA. A topology that cannot remove points is refused, as SOFA
 * refuses one without a modifier. showPlane only draws.
 * Template: Vec3d. */
#include <stdlib.h>
#include <string.h>

#include <settee/settee.h>

typedef struct particle_sink {
    st_component base;
    st_vec3 normal;         /* "normal" */
    double d0;              /* "d0" */
    double d1;              /* "d1" */
    bool show_plane;        /* "showPlane" */
    st_array fixed;         /* "fixed" (output) */
    st_component *topology; /* "topology" */
    st_mstate *ms;          /* set by init */
    st_component *topo;     /* set by init: the topology removing points, or NULL */
} particle_sink;

static double side(const particle_sink *k, const double *x)
{
    return x[0] * k->normal[0] + x[1] * k->normal[1] + x[2] * k->normal[2];
}

/* The listed points are recomputed at each position projection; a change
 * of the topology empties the list until then. */
static st_status pk_topology_changed(st_component *owner, st_component *topology,
                                     const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    (void)ev;
    (void)nev;
    (void)err;
    ((particle_sink *)owner)->fixed.n = 0;
    return ST_OK;
}

/* The state resized directly: the list is recomputed at the next position
 * projection, which comes before any velocity projection (SOFA's d_fixed
 * keeps stale indices until then, unused). */
static st_status pk_resized(st_component *owner, st_mstate *ms, size_t before, st_error *err)
{
    (void)ms, (void)before, (void)err;
    ((particle_sink *)owner)->fixed.n = 0;
    return ST_OK;
}

static st_status pk_init(st_component *self, st_error *err)
{
    particle_sink *k = (particle_sink *)self;
    k->ms = st_component_mstate(self);
    if (!k->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in this node or its ancestors to drain");
    if (strcmp(k->ms->type->name, "Vec3d") != 0)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "the state is %s; settee's ParticleSink drains Vec3d particles",
                                  k->ms->type->name);
    k->topo = k->topology ? k->topology : st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!k->topo) {
        /* SOFA removes the points from the MechanicalObject itself */
        if (!st_mstate_can_resize(k->ms))
            return st_component_error(self, NULL, err, ST_ESCENE,
                                      "No external object supporting removing points! (the "
                                      "state %s cannot be resized without a topology)",
                                      k->ms->base.name ? k->ms->base.name : "?");
        ST_TRY(st_mstate_follow_resize(self, k->ms, pk_resized, err));
    } else if (!st_topology_can_change(k->topo, ST_TOPO_REMOVED, ST_ELEM_POINT)) {
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "Topology component has been found in Node at: %s but this "
                                  "topology is not dynamic. ParticleSink will not be able to "
                                  "remove points. (%s; use a PointSetTopologyContainer)",
                                  k->topo->name, k->topo->cls->name);
    } else {
        ST_TRY(st_topology_listen(self, k->topo, pk_topology_changed, err));
    }
    k->fixed.n = 0;
    return ST_OK;
}

static st_status pk_drain(particle_sink *k, st_error *err)
{
    size_t n = k->ms->n, nr = 0;
    const double *x = k->ms->position.r;
    for (size_t i = n; i-- > 0;)
        if (side(k, x + 3 * i) - k->d1 < 0)
            nr++;
    if (!nr)
        return ST_OK;
    unsigned *ids = malloc(nr * sizeof *ids);
    if (!ids)
        return st_error_set(err, ST_ENOMEM, "ParticleSink: out of memory");
    size_t r = 0;
    for (size_t i = n; i-- > 0;) /* in reverse order, as SOFA's */
        if (side(k, x + 3 * i) - k->d1 < 0)
            ids[r++] = (unsigned)i;
    st_status st = ST_OK;
    if (k->topo) {
        st = st_topology_remove(k->topo, ST_ELEM_POINT, ids, nr, err);
    } else {
        /* SOFA's MechanicalObject branch: the then-last point onto each
         * removed one, in reverse order, then the state shrinks */
        size_t last = n;
        for (size_t j = 0; j < nr && st == ST_OK; j++)
            st = st_mstate_replace_value(k->ms, --last, ids[j], err);
        if (st == ST_OK)
            st = st_mstate_resize(k->ms, last, err);
    }
    free(ids);
    return st;
}

static void pk_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    particle_sink *k = (particle_sink *)self;
    if (ev != ST_EVENT_ANIMATE_BEGIN || !k->ms)
        return;
    st_error err = {0};
    if (pk_drain(k, &err) != ST_OK) {
        st_component_warn(self, "could not remove particles: %s", err.msg);
        k->ms = NULL;
    }
}

static void pk_project_position(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    particle_sink *k = (particle_sink *)self;
    if (!k->ms)
        return;
    const double *s = st_slice_x(x, k->ms);
    size_t nf = 0;
    for (size_t i = 0; i < k->ms->n; i++)
        if (side(k, s + 3 * i) - k->d0 < 0)
            nf++;
    st_error err = {0};
    if (st_array_resize(&k->fixed, ST_T_UINTS, nf, &err) != ST_OK) {
        k->fixed.n = 0;
        return;
    }
    nf = 0;
    for (size_t i = 0; i < k->ms->n; i++)
        if (side(k, s + 3 * i) - k->d0 < 0)
            k->fixed.u[nf++] = (unsigned)i;
}

static void pk_project_velocity(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    particle_sink *k = (particle_sink *)self;
    if (!k->ms)
        return;
    double *s = st_slice(v, k->ms);
    for (size_t j = 0; j < k->fixed.n; j++)
        if (k->fixed.u[j] < k->ms->n)
            memset(s + 3 * (size_t)k->fixed.u[j], 0, 3 * sizeof *s);
}

static const st_projective_ops pk_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_velocity = pk_project_velocity,
    .project_position = pk_project_position,
};

static const st_field pk_fields[] = {
    ST_VEC3(particle_sink, normal, "normal", "0 1 0", "plane normal"),
    ST_REAL(particle_sink, d0, "d0", "0",
            "plane d coef at which particles acceleration is constrained to 0"),
    ST_REAL(particle_sink, d1, "d1", "0", "plane d coef at which particles are removed"),
    ST_IGNORED(particle_sink, show_plane, "showPlane", ST_T_BOOL, bool, "false",
               "enable/disable drawing of plane"),
    ST_OUTPUT(particle_sink, fixed, "fixed", ST_T_UINTS, st_array, "indices of fixed particles"),
    ST_LINK(particle_sink, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container"),
    ST_FIELD_END};

static const char *const pk_templates[] = {"Vec3d", NULL};

const st_class particle_sink_class = {
    .struct_size = sizeof(st_class),
    .name = "ParticleSink",
    .category = "ProjectiveConstraint",
    .description = "Parametrable particle generator",
    .instance_size = sizeof(particle_sink),
    .fields = pk_fields,
    .init = pk_init,
    .reinit = pk_init,
    .on_event = pk_on_event,
    .projective = &pk_ops,
    .templates = pk_templates,
};
