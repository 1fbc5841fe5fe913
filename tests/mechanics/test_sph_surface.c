/* test_sph_surface.c - SPHFluidSurfaceMapping (SofaSphFluid): one particle
 * gives a closed sphere of the radius the kernel and isoValue imply, with or
 * without an SPHFluidForceField (its densities scale the field, its mass the
 * iso value); a block and a random cloud of particles give closed surfaces
 * (every edge shared by two triangles in opposite directions), across the
 * grid's blocks; the surface follows moving particles; bad input is refused
 * with a message naming the field. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* A scene: particles (YAML list) with velocity v, an explicit solver, the
 * extra objects of the particles' node (an SPHFluidForceField), and a
 * child node with an OglModel and the mapping with the given fields. */
static st_scene *surface_scene(test_rt *t, const char *points, const char *velocity,
                               const char *extra, const char *model, const char *mapping,
                               st_error *err)
{
    static char yaml[65536];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  gravity: [0, 0, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, SofaSphFluid,"
             " GL.Rendering3D]}\n"
             "  children:\n"
             "    - name: fluid\n"
             "      objects:\n"
             "        - EulerExplicitSolver: {symplectic: true}\n"
             "        - MechanicalObject: {name: dofs, position: %s, velocity: %s}\n"
             "        - UniformMass: {vertexMass: 1}\n"
             "%s"
             "      children:\n"
             "        - name: visual\n"
             "          objects:\n"
             "            - OglModel: {name: model%s}\n"
             "            - SPHFluidSurfaceMapping: {name: surface, input: \"@../dofs\","
             " output: \"@model\"%s}\n",
             points, velocity, extra, model, mapping);
    test_rt_open(t);
    st_scene *s = NULL;
    cr_assert_eq(test_load_string(t, yaml, &s, err), ST_OK, "load: %s", err->msg);
    if (st_scene_init(s, err) != ST_OK) {
        st_scene_destroy(&s);
        return NULL;
    }
    return s;
}

static st_scene *surface_ok(test_rt *t, const char *points, const char *velocity,
                            const char *extra, const char *model, const char *mapping)
{
    st_error err = {0};
    st_scene *s = surface_scene(t, points, velocity, extra, model, mapping, &err);
    cr_assert_not_null(s, "init: %s\n%s", err.msg, t->log);
    return s;
}

static void done(st_scene **s, test_rt *t)
{
    st_scene_destroy(s);
    test_rt_close(t);
}

static st_array *arr(st_scene *s, const char *obj, const char *field)
{
    st_component *c = test_find_object(s, obj);
    cr_assert_not_null(c, "no %s", obj);
    const st_field *f = st_component_field(c, field);
    cr_assert_not_null(f, "no %s.%s", obj, field);
    return st_component_field_ptr(c, f);
}

static double real_field(st_scene *s, const char *obj, const char *field)
{
    st_component *c = test_find_object(s, obj);
    return *(double *)st_component_field_ptr(c, st_component_field(c, field));
}

static int cmp_u64(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

/* Checks that the triangles form a closed oriented surface: each directed
 * edge (a, b) appears once and (b, a) once. Returns the number of
 * undirected edges. */
static size_t assert_closed(const st_array *tri, size_t nv)
{
    size_t nt = tri->n;
    cr_assert(nt > 0, "no triangle");
    unsigned long long *e = malloc(3 * nt * sizeof *e);
    for (size_t i = 0; i < nt; i++)
        for (int k = 0; k < 3; k++) {
            unsigned a = tri->u[3 * i + k], b = tri->u[3 * i + (k + 1) % 3];
            cr_assert(a < nv && b < nv, "triangle %zu indexes beyond %zu vertices", i, nv);
            cr_assert_neq(a, b, "degenerate triangle %zu", i);
            e[3 * i + k] = (unsigned long long)a << 32 | b;
        }
    qsort(e, 3 * nt, sizeof *e, cmp_u64);
    for (size_t i = 0; i + 1 < 3 * nt; i++)
        cr_assert_neq(e[i], e[i + 1], "directed edge %llu-%llu used twice", e[i] >> 32,
                      e[i] & 0xffffffffu);
    for (size_t i = 0; i < 3 * nt; i++) {
        unsigned long long r = (e[i] & 0xffffffffu) << 32 | e[i] >> 32;
        cr_assert_not_null(bsearch(&r, e, 3 * nt, sizeof *e, cmp_u64),
                           "edge %llu-%llu has no triangle on its other side", e[i] >> 32,
                           e[i] & 0xffffffffu);
    }
    free(e);
    return 3 * nt / 2;
}

/* Volume enclosed by the triangles (divergence theorem). */
static double volume(const st_array *x, const st_array *tri)
{
    double v = 0;
    for (size_t i = 0; i < tri->n; i++) {
        const double *a = x->r + 3 * tri->u[3 * i], *b = x->r + 3 * tri->u[3 * i + 1],
                     *c = x->r + 3 * tri->u[3 * i + 2];
        v += a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
             a[2] * (b[0] * c[1] - b[1] * c[0]);
    }
    return v / 6;
}

/* The vertices' distances to p: min and max. */
static void distances(const st_array *x, const double *p, double *lo, double *hi)
{
    *lo = INFINITY, *hi = 0;
    for (size_t i = 0; i < x->n; i++) {
        const double *q = x->r + 3 * i;
        double d = sqrt((q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) +
                        (q[2] - p[2]) * (q[2] - p[2]));
        *lo = fmin(*lo, d), *hi = fmax(*hi, d);
    }
}

/* One particle, no force field: F = (1 - r^2/h^2)^3, so with h = 1 and
 * isoValue 0.125 the surface is the sphere r = sqrt(1 - 0.5) = 0.70711. */
Test(sph_surface, one_particle_gives_the_sphere_of_the_kernel)
{
    test_rt t;
    const double p[3] = {0.013, 0.021, -0.017}, r = sqrt(0.5);
    st_scene *s = surface_ok(&t, "[[0.013, 0.021, -0.017]]", "[[0, 0, 0]]", "",
                             ", updateNormals: false", ", radius: 1, step: 0.05, isoValue: 0.125");
    st_array *x = arr(s, "model", "position"), *tri = arr(s, "model", "triangles");
    st_array *n = arr(s, "model", "normal");
    double lo, hi;
    distances(x, p, &lo, &hi);
    cr_assert(fabs(lo - r) < 2e-3 && fabs(hi - r) < 2e-3, "vertices at %.6f..%.6f, want %.6f",
              lo, hi, r);
    size_t ne = assert_closed(tri, x->n);
    /* a sphere: V - E + F = 2 */
    cr_assert_eq((long)x->n - (long)ne + (long)tri->n, 2, "V %zu E %zu F %zu", x->n, ne, tri->n);
    /* counter-clockwise seen from outside: a positive volume, the ball's */
    double v = volume(x, tri), want = 4.0 / 3.0 * M_PI * r * r * r;
    cr_assert(fabs(v - want) < 0.01 * want, "volume %.6f want %.6f", v, want);
    /* the mapping's normals (the model keeps them: updateNormals false)
     * point out, along the radius */
    cr_assert_eq(n->n, x->n);
    for (size_t i = 0; i < x->n; i++) {
        const double *q = x->r + 3 * i, *g = n->r + 3 * i;
        double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
        double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        double c = (d[0] * g[0] + d[1] * g[1] + d[2] * g[2]) / l;
        cr_assert(c > 0.999, "normal %zu off the radius: cos %.6f", i, c);
    }
    cr_assert_eq(real_field(s, "surface", "isoValue"), 0.125, "no force field: kept");
    done(&s, &t);
}

/* With an SPHFluidForceField (radius 1, mass 2) in the particles' node, the
 * field is (1 - r^2)^3 / rho and isoValue 0.5 becomes 0.5 / (C m), C = 315 /
 * (64 pi): the surface is where (1 - r^2)^3 = 0.5 rho / (C m). Before any
 * force evaluation rho is the rest density (3 here); after a step, a lone
 * particle's rho = m C (kernelType 0): r = sqrt(1 - 0.5^(1/3)). */
Test(sph_surface, sph_densities_and_mass_set_the_surface)
{
    test_rt t;
    const double p[3] = {0.31, -0.22, 0.05}, C = 315 / (64 * M_PI), m = 2;
    st_scene *s = surface_ok(&t, "[[0.31, -0.22, 0.05]]", "[[0, 0, 0]]",
                             "        - SPHFluidForceField: {radius: 1, mass: 2, density: 3}\n", "",
                             ", radius: 1, step: 0.04");
    double iso = real_field(s, "surface", "isoValue");
    cr_assert(fabs(iso - 0.5 / (C * m)) < 1e-15, "isoValue %.17g want %.17g", iso, 0.5 / (C * m));
    st_array *x = arr(s, "model", "position"), *tri = arr(s, "model", "triangles");
    double r0 = sqrt(1 - cbrt(0.5 * 3 / (C * m))), lo, hi;
    distances(x, p, &lo, &hi);
    cr_assert(fabs(lo - r0) < 2e-3 && fabs(hi - r0) < 2e-3, "init: %.6f..%.6f, want %.6f", lo,
              hi, r0);
    assert_closed(tri, x->n);
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "%s", err.msg);
    double r1 = sqrt(1 - cbrt(0.5));
    distances(x, p, &lo, &hi);
    cr_assert(fabs(lo - r1) < 2e-3 && fabs(hi - r1) < 2e-3, "step: %.6f..%.6f, want %.6f", lo,
              hi, r1);
    assert_closed(tri, x->n);
    done(&s, &t);
}

/* A 3 x 3 x 3 block of particles 0.5 apart across the grid's blocks (the
 * nodes' blocks change at 0 and at -2 with step 0.25): one closed surface
 * of genus 0, holding the particles. */
Test(sph_surface, a_block_of_particles_gives_one_closed_surface)
{
    test_rt t;
    char pts[4096];
    size_t k = 0;
    k += (size_t)snprintf(pts + k, sizeof pts - k, "[");
    for (int i = 0; i < 27; i++)
        k += (size_t)snprintf(pts + k, sizeof pts - k, "%s[%g, %g, %g]", i ? ", " : "",
                              -0.6 + 0.5 * (i % 3), -2.3 + 0.5 * (i / 3 % 3),
                              -0.2 + 0.5 * (i / 9));
    snprintf(pts + k, sizeof pts - k, "]");
    st_scene *s = surface_ok(&t, pts, "[[0, 0, 0]]", "", "",
                             ", radius: 0.75, step: 0.25, isoValue: 0.5");
    st_array *x = arr(s, "model", "position"), *tri = arr(s, "model", "triangles");
    size_t ne = assert_closed(tri, x->n);
    cr_assert_eq((long)x->n - (long)ne + (long)tri->n, 2, "V %zu E %zu F %zu", x->n, ne, tri->n);
    /* the surface wraps the block: its box holds the particles' box */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < x->n; i++)
        for (int d = 0; d < 3; d++)
            lo[d] = fmin(lo[d], x->r[3 * i + d]), hi[d] = fmax(hi[d], x->r[3 * i + d]);
    cr_assert(lo[0] < -0.6 && hi[0] > 0.4 && lo[1] < -2.3 && hi[1] > -1.3 && lo[2] < -0.2 &&
                  hi[2] > 0.8,
              "box %g %g %g .. %g %g %g", lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
    cr_assert(volume(x, tri) > 1.0, "volume %g (the particles' box is 1)", volume(x, tri));
    done(&s, &t);
}

/* Random clouds meet every kind of cube (ambiguous faces too): the surface
 * stays closed and oriented, whatever its pieces. */
Test(sph_surface, random_clouds_give_closed_surfaces)
{
    unsigned seed = 12345;
    for (int trial = 0; trial < 4; trial++) {
        test_rt t;
        char pts[16384];
        size_t k = (size_t)snprintf(pts, sizeof pts, "[");
        for (int i = 0; i < 80; i++) {
            double c[3];
            for (int d = 0; d < 3; d++) {
                seed = seed * 1103515245u + 12345u;
                c[d] = -1.5 + 3.0 * (double)(seed >> 8 & 0xffff) / 65536.0;
            }
            k += (size_t)snprintf(pts + k, sizeof pts - k, "%s[%.6f, %.6f, %.6f]", i ? ", " : "",
                                  c[0], c[1], c[2]);
        }
        snprintf(pts + k, sizeof pts - k, "]");
        const char *fields[4] = {", radius: 0.5, step: 0.1, isoValue: 0.3",
                                 ", radius: 0.6, step: 0.2, isoValue: 0.5",
                                 ", radius: 0.4, step: 0.07, isoValue: 0.05",
                                 ", radius: 0.75, step: 0.25, isoValue: 0.9"};
        st_scene *s = surface_ok(&t, pts, "[[0, 0, 0]]", "", "", fields[trial]);
        st_array *x = arr(s, "model", "position"), *tri = arr(s, "model", "triangles");
        assert_closed(tri, x->n);
        cr_assert(volume(x, tri) > 0, "trial %d: volume %g", trial, volume(x, tri));
        done(&s, &t);
    }
}

/* A particle moving at 1 along x: after 10 steps of 0.01 its sphere's
 * vertices are centred 0.1 further. */
Test(sph_surface, the_surface_follows_the_particles)
{
    test_rt t;
    st_scene *s = surface_ok(&t, "[[0.02, 0.03, 0.04]]", "[[1, 0, 0]]", "", "",
                             ", radius: 1, step: 0.1, isoValue: 0.125");
    st_array *x = arr(s, "model", "position");
    double c0[3] = {0, 0, 0}, c1[3] = {0, 0, 0};
    for (size_t i = 0; i < x->n; i++)
        for (int d = 0; d < 3; d++)
            c0[d] += x->r[3 * i + d] / (double)x->n;
    st_error err = {0};
    for (int i = 0; i < 10; i++)
        cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "%s", err.msg);
    x = arr(s, "model", "position");
    for (size_t i = 0; i < x->n; i++)
        for (int d = 0; d < 3; d++)
            c1[d] += x->r[3 * i + d] / (double)x->n;
    cr_assert(fabs(c1[0] - c0[0] - 0.1) < 0.01, "moved %g along x", c1[0] - c0[0]);
    cr_assert(fabs(c1[1] - c0[1]) < 0.01 && fabs(c1[2] - c0[2]) < 0.01, "moved off axis");
    double p[3] = {0.12, 0.03, 0.04}, lo, hi;
    distances(x, p, &lo, &hi);
    cr_assert(fabs(lo - sqrt(0.5)) < 0.01 && fabs(hi - sqrt(0.5)) < 0.01, "%g..%g", lo, hi);
    assert_closed(arr(s, "model", "triangles"), x->n);
    done(&s, &t);
}

static void assert_refused(const char *mapping, const char *model_node_extra, const char *want)
{
    test_rt t;
    st_error err = {0};
    st_scene *s = NULL;
    if (model_node_extra) {
        /* the output is a MechanicalObject */
        static char yaml[4096];
        snprintf(yaml, sizeof yaml,
                 "format: settee/1\n"
                 "root:\n"
                 "  objects:\n"
                 "    - RequiredPlugin: {pluginName: [SofaSphFluid, GL.Rendering3D]}\n"
                 "    - MechanicalObject: {name: dofs, position: [[0, 0, 0]]}\n"
                 "  children:\n"
                 "    - name: visual\n"
                 "      objects:\n"
                 "%s",
                 model_node_extra);
        test_rt_open(&t);
        cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "load: %s", err.msg);
        cr_assert_neq(st_scene_init(s, &err), ST_OK, "accepted");
        st_scene_destroy(&s);
    } else {
        s = surface_scene(&t, "[[0, 0, 0]]", "[[0, 0, 0]]", "", "", mapping, &err);
        cr_assert_null(s, "accepted: %s", mapping);
    }
    cr_assert(strstr(err.msg, want), "message: %s (want '%s')", err.msg, want);
    test_rt_close(&t);
}

Test(sph_surface, bad_input_is_refused)
{
    assert_refused(", step: 0", NULL, "step must be > 0");
    assert_refused(", radius: -1", NULL, "radius must be > 0");
    assert_refused(", isoValue: 0", NULL, "iso value must be > 0");
    assert_refused(", radius: 10, step: 0.1", NULL, "more than 64 grid steps");
    assert_refused(NULL,
                   "        - MechanicalObject: {name: out}\n"
                   "        - SPHFluidSurfaceMapping: {input: \"@../dofs\", output: \"@out\"}\n",
                   "must be a visual model");
}

/* Particles come (ParticleSource) and go (ParticleSink) through the node's
 * topology: the mapping follows the changes (the run is not refused) and
 * the surface stays closed at every step. */
Test(sph_surface, particles_added_and_removed)
{
    static const char *yaml =
        "format: settee/1\n"
        "root:\n"
        "  gravity: [0, -10, 0]\n"
        "  dt: 0.01\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, SofaSphFluid,"
        " GL.Rendering3D, Topology]}\n"
        "  children:\n"
        "    - name: fluid\n"
        "      objects:\n"
        "        - EulerExplicitSolver: {symplectic: true}\n"
        "        - MechanicalObject: {name: dofs}\n"
        "        - ParticleSource: {translation: [0, 0.5, 0], radius: [0.01, 0.1, 0.01],"
        " velocity: [0, -5, 0], delay: 0.02, start: -0.1, stop: 0.2, addNoise: 0,"
        " center: [[-0.2, 0, 0], [0.2, 0, 0], [0, 0, 0.2]]}\n"
        "        - PointSetTopologyContainer: {}\n"
        "        - PointSetTopologyModifier: {}\n"
        "        - UniformMass: {vertexMass: 1}\n"
        "        - SPHFluidForceField: {radius: 0.5, density: 25, kernelType: 1,"
        " viscosityType: 2, viscosity: 10, pressure: 1000}\n"
        "        - ParticleSink: {normal: [0, 1, 0], d0: -10, d1: -0.5}\n"
        "      children:\n"
        "        - name: visual\n"
        "          objects:\n"
        "            - OglModel: {name: model}\n"
        "            - SPHFluidSurfaceMapping: {name: surface, input: \"@../dofs\","
        " output: \"@model\", radius: 0.5, step: 0.125}\n";
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "load: %s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s\n%s", err.msg, t.log);
    st_array *x = arr(s, "model", "position"), *tri = arr(s, "model", "triangles");
    st_array *dofs = arr(s, "dofs", "position");
    size_t most = 0, removed = 0, last = 0;
    for (int i = 0; i < 40; i++) {
        cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "step %d: %s", i, err.msg);
        if (dofs->n < last)
            removed++;
        last = dofs->n;
        most = dofs->n > most ? dofs->n : most;
        if (dofs->n) {
            assert_closed(tri, x->n);
            cr_assert(volume(x, tri) > 0, "step %d", i);
        } else {
            cr_assert_eq(tri->n, 0, "step %d: no particle, %zu triangles", i, tri->n);
        }
    }
    cr_assert(most >= 9 && removed > 0, "at most %zu particles, %zu removals", most, removed);
    done(&s, &t);
}
