/* particle_source.c - ParticleSource: SOFA's emitter of fluid particles.
 *
 * At the start of each step (ANIMATE_BEGIN) with start <= t <= stop, the
 * source emits floor((t - last) / delay) waves (last starts at
 * max(0, start - delay) and advances by delay per wave); each wave puts one
 * particle at every center c:  p = c scale + translation + jitter, with
 * jitter radius (component by component) times a uniform number in [0, 1]
 * when addNoise, else radius itself; the particle starts at
 * p + velocity (t - last) with the velocity. As SOFA's, the newest particles
 * (the last wave and half of the ones before, SOFA's "lastparticles") are
 * held on their emission path while the source runs: positions
 * lastpos + velocity (t - last), velocities `velocity`, zero responses.
 * A state of one point counts as empty (SOFA's, for MechanicalObject's
 * default point; so a single-center source rewrites its one particle at
 * every wave, as SOFA's does). SOFA's reset also shrinks the state to one
 * point: settee's does so when the source resizes the state itself; with a
 * topology it restarts the source and leaves the state to its own reset.
 *
 * With a topology container in the node, particles are added through it
 * (st_topology_add_points, SOFA's PointSetTopologyModifier::addPoints), so
 * the state's vectors and every per-point data follow, and the held
 * particles are renumbered when a ParticleSink removes points. Without
 * one, the state is resized directly (st_mstate_resize, SOFA's
 * mstate->resize): nothing is renumbered, as in SOFA (its lastparticles
 * have no topology handler then: a point removed by a ParticleSink leaves
 * a held index naming another particle, or none), and each component
 * deals with the new size as SOFA's does (UniformMass keeps its indices).
 * A topology that cannot add points is refused.
 * Noise: SOFA draws rand() / RAND_MAX (the C library's generator, shared
 * with the process and different between platforms). settee draws from its
 * own generator (splitmix64, seed 1, restarted by reset), so a run is
 * reproducible everywhere; the jitter follows the same law (uniform in
 * [0, radius]) but not SOFA's exact numbers.
 * Template: Vec3d. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <settee/settee.h>

typedef struct particle_source {
    st_component base;
    st_vec3 translation; /* "translation" */
    double scale;        /* "scale" */
    st_array center;     /* "center" (Vec3d list) */
    st_vec3 radius;      /* "radius" */
    st_vec3 velocity;    /* "velocity" */
    double delay;        /* "delay" */
    double start;        /* "start" */
    double stop;         /* "stop" */
    bool add_noise;      /* "addNoise" */
    st_mstate *ms;       /* set by init */
    st_component *topo;  /* set by init: the topology adding points, or NULL (resize) */
    double last_time;    /* SOFA's m_lastTime */
    double max_dist;     /* SOFA's m_maxdist */
    size_t nlast;        /* particles held (SOFA's lastparticles) */
    unsigned *last;      /* their indices */
    double *lastpos;     /* their emission points (3 each) */
    size_t cap;
    uint64_t rng;        /* splitmix64 state */
} particle_source;

static double ps_rand(particle_source *s)
{
    uint64_t z = (s->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740991.0; /* [0, 1] as rand() / RAND_MAX */
}

static void ps_cleanup(st_component *self)
{
    particle_source *s = (particle_source *)self;
    free(s->last);
    free(s->lastpos);
    s->last = NULL;
    s->lastpos = NULL;
    s->nlast = s->cap = 0;
}

static void ps_restart(particle_source *s)
{
    s->last_time = s->start - s->delay;
    if (s->last_time < 0)
        s->last_time = 0;
    s->max_dist = 0;
    s->nlast = 0;
    s->rng = 1;
}

/* SOFA's lastparticles is a subset of the topology's points: a removed
 * point leaves it (with its emission point), and the point that moves into
 * the hole is renumbered. */
static st_status ps_topology_changed(st_component *owner, st_component *topology,
                                     const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    (void)err;
    particle_source *s = (particle_source *)owner;
    for (size_t e = 0; e < nev; e++) {
        if (ev[e].change != ST_TOPO_REMOVED || ev[e].elem != ST_ELEM_POINT)
            continue;
        for (size_t k = 0; k < ev[e].n; k++) {
            unsigned gone = ev[e].index[k], moved = (unsigned)(ev[e].before - 1 - k);
            size_t w = 0;
            for (size_t j = 0; j < s->nlast; j++) {
                if (s->last[j] == gone)
                    continue;
                s->last[w] = s->last[j] == moved ? gone : s->last[j];
                memmove(s->lastpos + 3 * w, s->lastpos + 3 * j, 3 * sizeof *s->lastpos);
                w++;
            }
            s->nlast = w;
        }
    }
    return ST_OK;
}

static st_status ps_init(st_component *self, st_error *err)
{
    particle_source *s = (particle_source *)self;
    ps_cleanup(self);
    s->ms = st_component_mstate(self);
    if (!s->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in this node or its ancestors to add "
                                  "particles to");
    if (strcmp(s->ms->type->name, "Vec3d") != 0)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "the state is %s; settee's ParticleSource emits Vec3d particles",
                                  s->ms->type->name);
    if (!(s->delay > 0))
        return st_component_error(self, "delay", err, ST_ESCENE,
                                  "the delay between waves must be > 0 (got %g)", s->delay);
    s->topo = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_LOCAL);
    if (!s->topo) {
        /* SOFA resizes the state itself; the source's own data need no
         * news of it (no topology handler in SOFA either) */
        if (!st_mstate_can_resize(s->ms))
            return st_component_error(self, NULL, err, ST_ESCENE,
                                      "the state %s cannot be resized without a topology: add "
                                      "a PointSetTopologyContainer and a "
                                      "PointSetTopologyModifier beside it",
                                      s->ms->base.name ? s->ms->base.name : "?");
        ST_TRY(st_mstate_follow_resize(self, s->ms, NULL, err));
    } else if (!st_topology_can_change(s->topo, ST_TOPO_ADDED, ST_ELEM_POINT)) {
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "the node's topology %s (%s) cannot add points while the scene "
                                  "runs: use a PointSetTopologyContainer (or another dynamic "
                                  "container) beside the MechanicalObject",
                                  s->topo->name, s->topo->cls->name);
    } else {
        ST_TRY(st_topology_listen(self, s->topo, ps_topology_changed, err));
    }
    ps_restart(s);
    return ST_OK;
}

static void ps_reset(st_component *self)
{
    particle_source *s = (particle_source *)self;
    ps_restart(s);
    st_error err = {0};
    if (s->ms && !s->topo && st_mstate_resize(s->ms, 1, &err) != ST_OK)
        st_component_warn(self, "could not shrink the state back to one point: %s", err.msg);
}

static bool ps_running(const particle_source *s, double t)
{
    return s->ms && s->nlast && t >= s->start && t <= s->stop;
}

static st_status ps_reserve(particle_source *s, size_t n, st_error *err)
{
    if (n <= s->cap)
        return ST_OK;
    size_t cap = s->cap ? s->cap : 64;
    while (cap < n)
        cap *= 2;
    unsigned *l = realloc(s->last, cap * sizeof *l);
    if (l)
        s->last = l;
    double *p = realloc(s->lastpos, cap * 3 * sizeof *p);
    if (p)
        s->lastpos = p;
    if (!l || !p)
        return st_error_set(err, ST_ENOMEM, "ParticleSource: out of memory for %zu particles", n);
    s->cap = cap;
    return ST_OK;
}

static st_status ps_emit(particle_source *s, double t, st_error *err)
{
    st_component *self = &s->base;
    if (t < s->start || t > s->stop)
        return ST_OK;
    size_t i0 = s->ms->n;
    bool reuse_first = i0 == 1; /* SOFA ignores a lone default point */
    if (reuse_first)
        i0 = 0;
    size_t waves = (size_t)(int)((t - s->last_time) / s->delay);
    size_t nc = s->center.n;
    if (!waves || !nc)
        return ST_OK;
    size_t nnew = waves * nc;
    double *newx = malloc(nnew * 3 * sizeof *newx);
    if (!newx)
        return st_error_set(err, ST_ENOMEM, "ParticleSource: out of memory");
    double speed = sqrt(s->velocity[0] * s->velocity[0] + s->velocity[1] * s->velocity[1] +
                        s->velocity[2] * s->velocity[2]);
    size_t made = 0;
    for (size_t w = 0; w < waves; w++) {
        s->last_time += s->delay;
        s->max_dist += s->delay * speed / s->scale;
        /* keep the newest half of the held particles, moved one delay on */
        size_t keep = s->nlast / 2, shift = s->nlast - keep;
        for (size_t k = 0; k < keep; k++) {
            s->last[k] = s->last[k + shift];
            for (int c = 0; c < 3; c++)
                s->lastpos[3 * k + c] = s->lastpos[3 * (k + shift) + c] + s->velocity[c] * s->delay;
        }
        s->nlast = keep;
        ST_TRY(ps_reserve(s, keep + nc, err));
        for (size_t j = 0; j < nc; j++) {
            double p[3];
            for (int c = 0; c < 3; c++) {
                p[c] = s->center.r[3 * j + c] * s->scale + s->translation[c];
                p[c] += s->add_noise ? s->radius[c] * ps_rand(s) : s->radius[c];
            }
            memcpy(s->lastpos + 3 * s->nlast, p, sizeof p);
            s->last[s->nlast++] = (unsigned)(i0 + made);
            for (int c = 0; c < 3; c++)
                newx[3 * made + c] = p[c] + s->velocity[c] * (t - s->last_time);
            made++;
        }
    }
    /* the state grows to i0 + made points, through the topology, else
     * resized directly */
    size_t have = s->ms->n, want = i0 + made;
    st_status st = ST_OK;
    if (!s->topo)
        st = st_mstate_resize(s->ms, want, err);
    else if (want > have)
        st = st_topology_add_points(s->topo, want - have, NULL, NULL, NULL, err);
    if (st == ST_OK && s->ms->n != want)
        st = st_component_error(self, NULL, err, ST_ESCENE,
                                "the topology did not grow the state to %zu points (it has %zu)",
                                want, s->ms->n);
    if (st == ST_OK) {
        double *x = s->ms->position.r, *v = s->ms->velocity.r;
        for (size_t k = 0; k < made; k++)
            for (int c = 0; c < 3; c++) {
                x[3 * (i0 + k) + c] = newx[3 * k + c];
                v[3 * (i0 + k) + c] = s->velocity[c];
            }
    }
    free(newx);
    return st;
}

static void ps_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    particle_source *s = (particle_source *)self;
    if (ev != ST_EVENT_ANIMATE_BEGIN || !s->ms)
        return;
    st_error err = {0};
    if (ps_emit(s, st_node_time(self->node), &err) != ST_OK) {
        st_component_warn(self, "could not emit particles: %s", err.msg);
        s->ms = NULL; /* stop, as a component in error */
    }
}

static void ps_project_response(st_component *self, const st_mparams *mp, double *dx)
{
    (void)mp;
    particle_source *s = (particle_source *)self;
    if (!ps_running(s, st_node_time(self->node)))
        return;
    double *d = st_slice(dx, s->ms);
    for (size_t k = 0; k < s->nlast; k++)
        if (s->last[k] < s->ms->n)
            memset(d + 3 * (size_t)s->last[k], 0, 3 * sizeof *d);
}

static void ps_project_velocity(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    particle_source *s = (particle_source *)self;
    if (!ps_running(s, st_node_time(self->node)))
        return;
    double *d = st_slice(v, s->ms);
    for (size_t k = 0; k < s->nlast; k++)
        if (s->last[k] < s->ms->n)
            memcpy(d + 3 * (size_t)s->last[k], s->velocity, 3 * sizeof *d);
}

static void ps_project_position(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    particle_source *s = (particle_source *)self;
    double t = st_node_time(self->node);
    if (!ps_running(s, t))
        return;
    double *d = st_slice_x(x, s->ms);
    for (size_t k = 0; k < s->nlast; k++)
        if (s->last[k] < s->ms->n)
            for (int c = 0; c < 3; c++)
                d[3 * (size_t)s->last[k] + c] =
                    s->lastpos[3 * k + c] + s->velocity[c] * (t - s->last_time);
}

static void ps_apply_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m)
{
    (void)mp;
    particle_source *s = (particle_source *)self;
    if (!ps_running(s, st_node_time(self->node)))
        return;
    for (size_t k = 0; k < s->nlast; k++)
        if (s->last[k] < s->ms->n)
            for (unsigned a = 0; a < 3; a++)
                st_matrix_project_dof(m, s->ms, s->last[k], a);
}

static const st_projective_ops ps_ops = {
    .struct_size = sizeof(st_projective_ops),
    .project_response = ps_project_response,
    .project_velocity = ps_project_velocity,
    .project_position = ps_project_position,
    .apply_to_matrix = ps_apply_to_matrix,
};

static const st_field ps_fields[] = {
    ST_VEC3(particle_source, translation, "translation", "0 0 0",
            "translation applied to center(s)"),
    ST_REAL(particle_source, scale, "scale", "1", "scale applied to center(s)"),
    ST_VEC3S(particle_source, center, "center", "0 0 0", "Source center(s)"),
    ST_VEC3(particle_source, radius, "radius", "0 0 0", "Source radius"),
    ST_VEC3(particle_source, velocity, "velocity", "0 0 0", "Particle initial velocity"),
    ST_REAL(particle_source, delay, "delay", "0.01", "Delay between particles creation"),
    ST_REAL(particle_source, start, "start", "0", "Source starting time"),
    ST_REAL(particle_source, stop, "stop", "1e10", "Source stopping time"),
    ST_BOOL(particle_source, add_noise, "addNoise", "true",
            "Will add random value to the radius of new created particles (settee: its own "
            "seeded generator, reproducible, not the C library's rand())"),
    ST_FIELD_END};

static const char *const ps_templates[] = {"Vec3d", NULL};

/* The emission's run state: its clock, the particles of the last waves and
 * their emission points, and the noise generator. */
static st_status ps_transfer(st_component *self, st_checkpoint *ck, st_error *err)
{
    particle_source *s = (particle_source *)self;
    ST_TRY(st_checkpoint_data(ck, &s->last_time, sizeof s->last_time, err));
    ST_TRY(st_checkpoint_data(ck, &s->max_dist, sizeof s->max_dist, err));
    ST_TRY(st_checkpoint_data(ck, &s->rng, sizeof s->rng, err));
    uint64_t n = s->nlast;
    ST_TRY(st_checkpoint_data(ck, &n, sizeof n, err));
    if (st_checkpoint_reading(ck)) {
        if (n > SIZE_MAX / (3 * sizeof *s->lastpos))
            return st_component_error(self, NULL, err, ST_EINVAL,
                                      "checkpoint: %llu particles held", (unsigned long long)n);
        ST_TRY(ps_reserve(s, (size_t)n, err));
    }
    s->nlast = (size_t)n;
    if (!n)
        return ST_OK;
    ST_TRY(st_checkpoint_data(ck, s->last, (size_t)n * sizeof *s->last, err));
    return st_checkpoint_data(ck, s->lastpos, (size_t)n * 3 * sizeof *s->lastpos, err);
}

static const st_checkpoint_ops ps_checkpoint = {sizeof(st_checkpoint_ops), ps_transfer};

const st_class particle_source_class = {
    .struct_size = sizeof(st_class),
    .name = "ParticleSource",
    .category = "ProjectiveConstraint",
    .description = "Parametrable particle generator",
    .instance_size = sizeof(particle_source),
    .fields = ps_fields,
    .init = ps_init,
    .reinit = ps_init,
    .reset = ps_reset,
    .cleanup = ps_cleanup,
    .on_event = ps_on_event,
    .projective = &ps_ops,
    .checkpoint = &ps_checkpoint,
    .templates = ps_templates,
};
