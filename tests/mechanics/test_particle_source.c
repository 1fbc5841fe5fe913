/* test_particle_source.c - ParticleSource (SofaSphFluid): waves emitted at
 * SOFA's times through the topology (the state and the mass follow), the
 * newest particles held on their emission path, the seeded noise
 * (reproducible, within [0, radius]), the stop time, and without a
 * topology container the state resized directly as SOFA's (the mass keeps
 * its indices), or refused while a component would not follow. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "support.h"

/* dt and delay are exact in binary, so the wave count floor((t - last) /
 * delay) has no rounding doubt. */
static st_status source_scene(test_rt *t, const char *source, bool topology, st_scene **out,
                              st_error *err)
{
    static char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  gravity: [0, 0, 0]\n"
             "  dt: 0.25\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, Topology, "
             "SofaSphFluid, MechanicalLoad]}\n"
             "    - EulerExplicitSolver: {symplectic: true}\n"
             "    - MechanicalObject: {name: dofs}\n"
             "    - ParticleSource: {name: src, %s}\n"
             "    - UniformMass: {vertexMass: 1}\n"
             "%s",
             source,
             topology ? "    - PointSetTopologyContainer: {name: con}\n"
                        "    - PointSetTopologyModifier: {name: mod}\n"
                      : "");
    test_rt_open(t);
    *out = NULL;
    ST_TRY(test_load_string(t, yaml, out, err));
    return st_scene_init(*out, err);
}

static st_mstate *steps(st_scene *s, int n)
{
    st_error err = {0};
    for (int k = 0; k < n; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step %d: %s", k, err.msg);
    return (st_mstate *)test_find_object(s, "dofs");
}

#define STILL "translation: [0, 10, 0], radius: [0.1, 0.2, 0.3], delay: 0.5"
#define BASIC STILL ", velocity: [0, -1, 0]"

Test(particle_source, waves_at_sofa_times_and_held_on_their_path)
{
    test_rt t;
    st_scene *s;
    st_error err = {0};
    cr_assert_eq(source_scene(&t, BASIC ", addNoise: false, center: [[0, 0, 0], [1, 0, 0]]",
                              true, &s, &err),
                 ST_OK, "%s\n%s", err.msg, t.log);
    /* steps begin at t = 0, 0.25: no wave yet (last = 0); the lone default
     * point, if any, is not a particle */
    st_mstate *ms = steps(s, 2);
    cr_assert_leq(ms->n, 1, "no particle before t = delay (%zu points)", ms->n);
    /* t = 0.5, 0.75, 1.0: a wave at 0.5 and one at 1.0, 2 centers each */
    ms = steps(s, 3);
    cr_assert_eq(ms->n, 4, "two waves of two particles, got %zu", ms->n);
    /* x, z: center scale + translation + radius (no noise); y: emitted at
     * 10.2 and moved at -1 from the emission time to the start of the last
     * step (held particles move with the source, free ones freely) */
    const double want_y[4] = {10.2 - 0.5, 10.2 - 0.5, 10.2, 10.2};
    for (size_t i = 0; i < 4; i++) {
        const double *x = ms->position.r + 3 * i, *v = ms->velocity.r + 3 * i;
        cr_assert(fabs(x[0] - (i % 2 ? 1.1 : 0.1)) < 1e-12, "x[%zu] = %g", i, x[0]);
        cr_assert(fabs(x[1] - want_y[i]) < 1e-12, "y[%zu] = %.17g want %g", i, x[1], want_y[i]);
        cr_assert(fabs(x[2] - 0.3) < 1e-12, "z[%zu] = %g", i, x[2]);
        cr_assert(v[0] == 0 && v[1] == -1 && v[2] == 0, "v[%zu] = %g %g %g", i, v[0], v[1], v[2]);
    }
    /* the velocity vector and the system grew with the positions */
    cr_assert_eq(ms->velocity.n, 4);
    cr_assert_eq(s->systems[0]->size_all, 12, "system size %zu", (size_t)s->systems[0]->size_all);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(particle_source, stops_after_stop)
{
    test_rt t;
    st_scene *s;
    st_error err = {0};
    cr_assert_eq(source_scene(&t, BASIC ", addNoise: false, stop: 1.1, center: [[0, 0, 0], [1, 0, 0]]",
                              true, &s, &err),
                 ST_OK, "%s\n%s", err.msg, t.log);
    st_mstate *ms = steps(s, 12); /* steps begin at 0 .. 2.75 */
    cr_assert_eq(ms->n, 4, "waves at 0.5 and 1.0 only, got %zu points", ms->n);
    st_scene_destroy(&s);
    test_rt_close(&t);

    /* SOFA's quirk, kept: a state of one point counts as empty, so a source
     * with a single center rewrites its one particle at every wave */
    cr_assert_eq(source_scene(&t, BASIC ", addNoise: false, center: [[0, 0, 0]]", true, &s, &err),
                 ST_OK, "%s", err.msg);
    ms = steps(s, 5);
    cr_assert_eq(ms->n, 1, "%zu points", ms->n);
    cr_assert(fabs(ms->position.r[1] - 10.2) < 1e-12, "the wave of t = 1.0: y = %g",
              ms->position.r[1]);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(particle_source, noise_is_reproducible_and_within_radius)
{
    double first[3 * 8];
    for (int run = 0; run < 2; run++) {
        test_rt t;
        st_scene *s;
        st_error err = {0};
        cr_assert_eq(source_scene(&t, STILL ", center: [[0, 0, 0], [5, 0, 0]]",
                                  true, &s, &err),
                     ST_OK, "%s\n%s", err.msg, t.log);
        st_mstate *ms = steps(s, 9); /* waves at 0.5 .. 2.0 */
        cr_assert_eq(ms->n, 8, "%zu points", ms->n);
        bool differ = false;
        for (size_t i = 0; i < 8; i++) {
            const double *x = ms->position.r + 3 * i;
            double j[3] = {x[0] - (i % 2 ? 5 : 0), x[1] - 10, x[2]};
            const double r[3] = {0.1, 0.2, 0.3};
            for (int c = 0; c < 3; c++)
                cr_assert(j[c] >= 0 && j[c] <= r[c], "jitter %g of point %zu outside [0, %g]",
                          j[c], i, r[c]);
            if (i && fabs(j[0] - (ms->position.r[3 * (i - 1)] - ((i - 1) % 2 ? 5 : 0))) > 1e-9)
                differ = true;
        }
        cr_assert(differ, "the noise gives every particle its own jitter");
        if (run == 0)
            memcpy(first, ms->position.r, sizeof first);
        else
            cr_assert(memcmp(first, ms->position.r, sizeof first) == 0,
                      "two runs give the same particles");
        st_scene_destroy(&s);
        test_rt_close(&t);
    }
}

/* Without a topology container SOFA resizes the state itself, and nothing
 * else hears of it: UniformMass keeps the indices it took at init (the
 * lone default point, 0), so only the particle in slot 0 has a weight; the
 * others move at their emission velocity once released. dt and delay are
 * exact in binary. Waves: floor((t - last) / delay) with last = 0 at
 * first: t = 0.25 gives 2 (at 0.09375, 0.1875), t = 0.5 gives 3 (0.28125,
 * 0.375, 0.46875), t = 0.75 is past stop. */
#define NOTOPO_SCENE(extra)                                                                        \
    "format: settee/1\n"                                                                           \
    "root:\n"                                                                                      \
    "  gravity: [0, -10, 0]\n"                                                                     \
    "  dt: 0.25\n"                                                                                 \
    "  objects:\n"                                                                                 \
    "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, SofaSphFluid, "                  \
    "MechanicalLoad, Constraint.Projective]}\n"                                                   \
    "    - EulerExplicitSolver: {symplectic: true}\n"                                              \
    "    - MechanicalObject: {name: dofs}\n"                                                       \
    "    - ParticleSource: {name: src, translation: [0, 10, 0], radius: [0.1, 0.2, 0.3], "        \
    "velocity: [0, -2, 0], delay: 0.09375, start: 0, stop: 0.6, addNoise: false, "               \
    "center: [[0, 0, 0], [1, 0, 0]]}\n"                                                           \
    "    - UniformMass: {name: mass, vertexMass: 1}\n" extra

Test(particle_source, resizes_the_state_without_topology)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t, NOTOPO_SCENE(""), &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s\n%s", err.msg, t.log);
    const size_t want_n[5] = {1, 4, 10, 10, 10};
    st_mstate *ms = NULL;
    for (int k = 0; k < 5; k++) {
        ms = steps(s, 1);
        cr_assert_eq(ms->n, want_n[k], "after step %d: %zu points, want %zu", k, ms->n,
                     want_n[k]);
        cr_assert_eq(ms->velocity.n, ms->n);
        cr_assert_eq(s->systems[0]->size_all, 3 * ms->n);
        if (k != 2)
            continue;
        /* after the step that began at t = 0.5 (symplectic Euler, dt
         * 0.25; emission point y = 10 + 0.2):
         * slot 0 (1st wave, weighed): emitted at 10.2 - 2 (0.25 - 0.09375)
         * = 9.8875, then v -2 -> -4.5 -> -7, y 9.8875 -> 8.7625 -> 7.0125;
         * slot 1 (1st wave, held at the first step, free and weightless at
         * the second): 9.8875 - 2 * 0.25 = 9.3875, v -2;
         * slot 6 (3rd wave of this step, released by the 4th): 10.2 - 2
         * (0.5 - 0.375) - 2 * 0.25 = 9.45;
         * slots 8, 9 (last wave, held): 10.2 - 2 (0.5 - 0.46875) */
        const double *x = ms->position.r, *v = ms->velocity.r;
        const struct {
            size_t i;
            double x, y, vy;
        } want[] = {{0, 0.1, 7.0125, -7},   {1, 1.1, 9.3875, -2}, {6, 0.1, 9.45, -2},
                    {8, 0.1, 10.1375, -2}, {9, 1.1, 10.1375, -2}};
        for (size_t w = 0; w < sizeof want / sizeof *want; w++) {
            size_t i = want[w].i;
            cr_assert(fabs(x[3 * i] - want[w].x) < 1e-12, "x[%zu] = %.17g", i, x[3 * i]);
            cr_assert(fabs(x[3 * i + 1] - want[w].y) < 1e-12, "y[%zu] = %.17g want %g", i,
                      x[3 * i + 1], want[w].y);
            cr_assert(fabs(x[3 * i + 2] - 0.3) < 1e-12, "z[%zu] = %.17g", i, x[3 * i + 2]);
            cr_assert(v[3 * i] == 0 && fabs(v[3 * i + 1] - want[w].vy) < 1e-12 &&
                          v[3 * i + 2] == 0,
                      "v[%zu] = %g %g %g, want vy %g", i, v[3 * i], v[3 * i + 1], v[3 * i + 2],
                      want[w].vy);
        }
    }
    /* the mass heard of nothing: its indices and total are SOFA's of init */
    st_component *m = test_find_object(s, "mass");
    const st_array *idx = st_component_field_ptr(m, st_component_field(m, "indices"));
    cr_assert(idx->n == 1 && idx->u[0] == 0, "indices: %zu entries", idx->n);
    const double *total = st_component_field_ptr(m, st_component_field(m, "totalMass"));
    cr_assert(*total == 1.0, "totalMass %g", *total);
    /* SOFA's numbers, which mislead: a warning, given once */
    const char *w = strstr(t.log, "grew from 1 to 4 points without a topology");
    cr_assert(w && strstr(w, "the points added have no mass"), "%s", t.log);
    cr_assert_null(strstr(w + 1, "grew from"), "%s", t.log);
    /* reset: SOFA's source shrinks the state back to one point */
    cr_assert_eq(st_scene_reset(s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(ms->n, 1, "after reset: %zu points", ms->n);
    ms = steps(s, 2);
    cr_assert_eq(ms->n, 4, "the waves again after reset: %zu points", ms->n);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* A component that may hold data sized by the particles and does not
 * follow a resize without topology stops the run, naming it. */
Test(particle_source, refuses_a_resize_a_component_would_not_follow)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t,
                                  NOTOPO_SCENE("    - ConstantForceField: {name: push, "
                                               "indices: [0], forces: [[1, 0, 0]]}\n"),
                                  &s, &err),
                 ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s\n%s", err.msg, t.log);
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "no wave at t = 0: %s", err.msg);
    cr_assert_neq(st_scene_step(s, 0, &err), ST_OK, "the first wave is refused");
    cr_assert(strstr(err.msg, "push") && strstr(err.msg, "ConstantForceField") &&
                  strstr(err.msg, "PointSetTopologyContainer"),
              "message: %s", err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* The same fluid as below, without a topology: the force fields made again
 * for every new size (SOFA's resize lazily at their next evaluation). */
Test(particle_source, feeds_a_fluid_without_topology)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t,
                                  NOTOPO_SCENE("    - SpatialGridContainer: {cellWidth: 0.75}\n"
                                               "    - SPHFluidForceField: {radius: 0.7, density: "
                                               "25, pressure: 100, viscosity: 1}\n"
                                               "    - PlaneForceField: {normal: [0, 1, 0], d: 8}\n"
                                               "    - FixedProjectiveConstraint: {indices: [0]}\n"),
                                  &s, &err),
                 ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s\n%s", err.msg, t.log);
    st_mstate *ms = steps(s, 3);
    cr_assert_eq(ms->n, 10, "%zu points", ms->n);
    for (size_t i = 0; i < 3 * ms->n; i++)
        cr_assert(isfinite(ms->position.r[i]) && isfinite(ms->velocity.r[i]), "entry %zu", i);
    /* slot 0 is fixed (its accelerations zeroed: it keeps its emission
     * velocity); the fluid's forces reach every particle, but the mass
     * turns only slot 0's into an acceleration (SOFA's accFromF over its
     * indices): the free ones (1 .. 6) keep v = (0, -2, 0) */
    const double *v = ms->velocity.r, *f = ms->force.r;
    cr_assert(v[0] == 0 && v[1] == -2 && v[2] == 0, "slot 0 fixed: %g %g %g", v[0], v[1], v[2]);
    size_t pushed = 0;
    for (size_t i = 1; i <= 6; i++) {
        cr_assert(v[3 * i] == 0 && v[3 * i + 1] == -2 && v[3 * i + 2] == 0, "v[%zu]", i);
        pushed += fabs(f[3 * i]) + fabs(f[3 * i + 1]) + fabs(f[3 * i + 2]) > 1e-9;
    }
    cr_assert_geq(pushed, 4, "the fluid acts on the new particles (%zu of 6)", pushed);
    ms = steps(s, 5);
    cr_assert_eq(ms->n, 10, "%zu points", ms->n);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* The fluid and a floor follow the particles the source adds. */
Test(particle_source, feeds_a_fluid_above_a_floor)
{
    test_rt t;
    st_scene *s;
    st_error err = {0};
    cr_assert_eq(source_scene(&t,
                              BASIC ", addNoise: false, center: [[0, 0, 0], [0.3, 0, 0], "
                              "[0, 0, 0.3]]}\n"
                              "    - SPHFluidForceField: {radius: 0.7, density: 25, pressure: 100, "
                              "viscosity: 1}\n"
                              "    - PlaneForceField: {normal: [0, 1, 0], d: 8",
                              true, &s, &err),
                 ST_OK, "%s\n%s", err.msg, t.log);
    st_mstate *ms = steps(s, 12); /* waves at 0.5 .. 2.75 */
    cr_assert_eq(ms->n, 15, "five waves of three, got %zu", ms->n);
    for (size_t i = 0; i < 3 * ms->n; i++)
        cr_assert(isfinite(ms->position.r[i]) && isfinite(ms->velocity.r[i]), "entry %zu", i);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* A sink that empties the state (its lone default point falls through the
 * plane) before the source's first wave: the state grows again from zero
 * points, its vectors with it (the kernel leaves an empty array empty; the
 * state's own vectors are not optional), and the mass and the fluid follow.
 * It once left the state empty while the topology counted the new points,
 * and the mass then read past the state's vectors. */
Test(particle_source, refills_a_state_a_sink_emptied)
{
    static const char *yaml =
        "format: settee/1\n"
        "root:\n"
        "  gravity: [0, -10, 0]\n"
        "  dt: 0.01\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, Topology, SofaSphFluid]}\n"
        "    - EulerExplicitSolver: {symplectic: true}\n"
        "    - MechanicalObject: {name: dofs}\n"
        "    - ParticleSource: {name: src, translation: [0, 2, 0], radius: [0, 0, 0], "
        "velocity: [0, -1, 0], delay: 0.02, start: 0, stop: 0.05, addNoise: false, "
        "center: [[-0.2, 0, 0], [0.2, 0, 0], [0, 0, 0.2]]}\n"
        "    - PointSetTopologyContainer: {name: con}\n"
        "    - PointSetTopologyModifier: {name: mod}\n"
        "    - UniformMass: {vertexMass: 1}\n"
        "    - SPHFluidForceField: {radius: 0.5, density: 25}\n"
        "    - ParticleSink: {normal: [0, 1, 0], d0: -10, d1: 0}\n";
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    st_mstate *ms = steps(s, 2);
    cr_assert_eq(ms->n, 0, "the sink removed the default point (%zu left)", ms->n);
    ms = steps(s, 1); /* t = 0.02: the first wave */
    cr_assert_eq(ms->n, 3, "%zu points\n%s", ms->n, t.log);
    cr_assert_eq(ms->velocity.n, 3);
    cr_assert_eq(ms->force.n, 3);
    for (size_t i = 0; i < 3; i++)
        cr_assert(fabs(ms->position.r[3 * i + 1] - 2.0) < 0.05, "y %g", ms->position.r[3 * i + 1]);
    ms = steps(s, 20);
    cr_assert(ms->n >= 6, "the later waves came (%zu points)", ms->n);
    for (size_t i = 0; i < 3 * ms->n; i++)
        cr_assert(isfinite(ms->position.r[i]));
    cr_assert_null(strstr(t.log, "could not emit"), "%s", t.log);
    st_scene_destroy(&s);
    test_rt_close(&t);
}
