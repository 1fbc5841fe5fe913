/* test_particles_repulsion.c - ParticlesRepulsionForceField (SofaSphFluid):
 * the force of a pair worked by hand (stiffness and SOFA's overlap-scaled
 * damping), nothing beyond the distance, SOFA's product (the stiffness
 * along the pair only), Vec2d, the pairs of a cloud spread over many grid
 * cells against an O(n^2) search, and a SpatialGridContainer whose cells
 * are smaller than the distance (a warning). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "support.h"

static st_scene *rep_scene(test_rt *t, const char *tmpl, const char *points, const char *vel,
                           const char *fields, const char *extra)
{
    static char yaml[65536];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  gravity: [0, 0, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative, "
             "Mass, SofaSphFluid]}\n"
             "    - EulerImplicitSolver: {}\n"
             "    - CGLinearSolver: {iterations: 100, tolerance: 1e-12, threshold: 1e-20}\n"
             "    - MechanicalObject: {name: dofs, template: %s, position: %s%s%s}\n"
             "    - UniformMass: {vertexMass: 1}\n"
             "%s"
             "    - ParticlesRepulsionForceField: {%s}\n",
             tmpl, points, vel ? ", velocity: " : "", vel ? vel : "", extra ? extra : "", fields);
    test_rt_open(t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(t, yaml, &s, &err), ST_OK, "load: %s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s\n%s", err.msg, t->log);
    return s;
}

static void done(st_scene **s, test_rt *t)
{
    st_scene_destroy(s);
    test_rt_close(t);
}

static void force_at(st_scene *s, double *f)
{
    st_system *sys = s->systems[0];
    memset(f, 0, sys->size_all * sizeof *f);
    st_system_compute_force(sys, f, sys->x, sys->v);
}

/* Two particles 0.12 apart along (3, 4, 0)/5 with h = 0.2, ks = 1000,
 * kd = 0.5: e = 0.12 - 0.2 = -0.08, F = u ks e - (v1 - v0) kd e. */
Test(particles_repulsion, a_pair_worked_by_hand)
{
    test_rt t;
    st_scene *s = rep_scene(&t, "Vec3d", "[[1, 1, 1], [1.072, 1.096, 1]]",
                            "[[0, 0, 0], [0, 0, 2]]",
                            "distance: 0.2, stiffness: 1000, damping: 0.5", NULL);
    double f[6];
    force_at(s, f);
    const double e = hypot(0.072, 0.096) - 0.2, u[3] = {0.6, 0.8, 0}, vr[3] = {0, 0, 2};
    for (int a = 0; a < 3; a++) {
        double F = u[a] * 1000 * e - vr[a] * 0.5 * e;
        cr_assert(fabs(f[a] - F) <= 1e-12 * (1 + fabs(F)), "f0[%d] %.17g want %.17g", a, f[a], F);
        cr_assert(fabs(f[3 + a] + F) <= 1e-12 * (1 + fabs(F)), "f1[%d] %.17g", a, f[3 + a]);
    }
    cr_assert(f[0] < 0 && f[1] < 0, "particle 0 is pushed away from 1");
    /* the damping pulls particle 0 along the other's velocity (e < 0) */
    cr_assert(f[2] > 0 && f[5] < 0, "damping %g %g", f[2], f[5]);

    /* SOFA's product: df_0 = u ks kf (u . (dx_1 - dx_0)), the stiffness
     * along the pair only */
    st_system *sys = s->systems[0];
    double dx[6] = {0.1, -0.2, 0.3, -0.4, 0.5, 0.7}, df[6] = {0};
    st_system_add_mbkdx(sys, df, dx, 0, 0, 2.0, false);
    double rel[3] = {-0.5, 0.7, 0.4}, dot = u[0] * rel[0] + u[1] * rel[1];
    for (int a = 0; a < 3; a++) {
        double want = u[a] * 2.0 * 1000 * dot;
        cr_assert(fabs(df[a] - want) <= 1e-9 * (1 + fabs(want)), "df0[%d] %.17g want %.17g", a,
                  df[a], want);
        cr_assert(fabs(df[3 + a] + want) <= 1e-9 * (1 + fabs(want)), "df1[%d]", a);
    }
    done(&s, &t);

    /* beyond the distance nothing acts */
    s = rep_scene(&t, "Vec3d", "[[0, 0, 0], [0.2001, 0, 0]]", NULL, "distance: 0.2", NULL);
    force_at(s, f);
    for (int a = 0; a < 6; a++)
        cr_assert_eq(f[a], 0.0, "f[%d] = %g", a, f[a]);
    done(&s, &t);
}

Test(particles_repulsion, vec2d)
{
    test_rt t;
    st_scene *s = rep_scene(&t, "Vec2d", "[[0, 0], [0, 0.5]]", NULL,
                            "distance: 1, stiffness: 10, damping: 0", NULL);
    double f[4];
    force_at(s, f);
    /* u = +y, e = 0.5 - 1: particle 0 pushed down by 10 x 0.5 */
    cr_assert(fabs(f[1] + 5.0) < 1e-12 && fabs(f[3] - 5.0) < 1e-12 && f[0] == 0 && f[2] == 0,
              "f = %g %g %g %g", f[0], f[1], f[2], f[3]);
    done(&s, &t);
}

/* 400 particles spread over a box of many cells: the force equals the one
 * of an O(n^2) search over every pair (a pair the grid missed shows). */
Test(particles_repulsion, cloud_against_all_pairs)
{
    enum { N = 400 };
    static double x[3 * N];
    char *pts = malloc(N * 80 + 16);
    cr_assert_not_null(pts);
    size_t len = 0;
    len += (size_t)sprintf(pts + len, "[");
    srand(7);
    for (int i = 0; i < N; i++) {
        for (int a = 0; a < 3; a++)
            x[3 * i + a] = -1.3 + 2.6 * rand() / (double)RAND_MAX;
        len += (size_t)sprintf(pts + len, "%s[%.17g, %.17g, %.17g]", i ? ", " : "", x[3 * i],
                               x[3 * i + 1], x[3 * i + 2]);
    }
    sprintf(pts + len, "]");
    test_rt t;
    st_scene *s = rep_scene(&t, "Vec3d", pts, NULL, "distance: 0.35, stiffness: 7, damping: 0",
                            NULL);
    free(pts);
    static double f[3 * N], g[3 * N];
    force_at(s, f);
    const double h = 0.35;
    memset(g, 0, sizeof g);
    int pairs = 0;
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++) {
            double u[3], d2 = 0;
            for (int a = 0; a < 3; a++) {
                u[a] = x[3 * j + a] - x[3 * i + a];
                d2 += u[a] * u[a];
            }
            if (d2 >= h * h || d2 == 0)
                continue;
            pairs++;
            double d = sqrt(d2);
            for (int a = 0; a < 3; a++) {
                double F = u[a] / d * 7 * (d - h);
                g[3 * i + a] += F;
                g[3 * j + a] -= F;
            }
        }
    cr_assert(pairs > 300, "a cloud with few pairs (%d) tests little", pairs);
    for (int k = 0; k < 3 * N; k++)
        cr_assert(fabs(f[k] - g[k]) <= 1e-12 * (1 + fabs(g[k])), "f[%d] %.17g want %.17g", k, f[k],
                  g[k]);
    done(&s, &t);
}

Test(particles_repulsion, grid_cells_smaller_than_the_distance_are_said)
{
    test_rt t;
    st_scene *s = rep_scene(&t, "Vec3d", "[[0, 0, 0], [0.1, 0, 0]]", NULL, "distance: 0.2",
                            "    - SpatialGridContainer: {cellWidth: 0.05}\n");
    cr_assert(strstr(t.log, "cellWidth (0.05) is smaller than the distance"), "%s", t.log);
    done(&s, &t);
    s = rep_scene(&t, "Vec3d", "[[0, 0, 0], [0.1, 0, 0]]", NULL, "distance: 0.2",
                  "    - SpatialGridContainer: {cellWidth: 0.2}\n");
    cr_assert_null(strstr(t.log, "smaller than the distance"), "%s", t.log);
    done(&s, &t);
}

/* A 50-step implicit run of a packed column keeps every pair at a finite
 * distance and spreads the particles (the repulsion acts). */
Test(particles_repulsion, a_run_spreads_a_packed_column)
{
    test_rt t;
    st_scene *s = rep_scene(&t, "Vec3d", "[[0, 0, 0], [0, 0.05, 0], [0, 0.1, 0], [0, 0.15, 0]]",
                            NULL, "distance: 0.2, stiffness: 100, damping: 0.1", NULL);
    st_error e = {0};
    for (int k = 0; k < 50; k++)
        cr_assert_eq(st_scene_step(s, 0, &e), ST_OK, "step %d: %s", k, e.msg);
    const double *x = s->systems[0]->x;
    double span = x[10] - x[1];
    cr_assert(isfinite(span) && span > 0.15 + 0.1, "the column spread to %g", span);
    done(&s, &t);
}
