/* test_sph_fluid.c - SPHFluidForceField (SofaSphFluid): the force of two
 * particles worked by hand with the default kernels, the pressure force as
 * minus the gradient of its energy with the cubic spline (finite
 * differences over a cloud spread across many grid cells, so a neighbour
 * the hash grid missed shows), viscosity, Vec2d, and a 50-step run. */
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

/* A scene with the given points (YAML list), state template and SPH fields. */
static st_scene *sph_scene(test_rt *t, const char *tmpl, const char *points, const char *sph,
                           const char *gravity)
{
    static char yaml[16384];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  gravity: [%s]\n"
             "  dt: 0.001\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, SofaSphFluid]}\n"
             "    - EulerExplicitSolver: {symplectic: true}\n"
             "    - MechanicalObject: {name: dofs, template: %s, position: %s}\n"
             "    - UniformMass: {vertexMass: 1}\n"
             "    - SPHFluidForceField: {%s}\n",
             gravity, tmpl, points, sph);
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

/* f(x, v) of the scene's system (gravity 0 in these scenes). */
static void force_at(st_scene *s, double *f, const double *x, const double *v)
{
    st_system *sys = s->systems[0];
    memset(f, 0, sys->size_all * sizeof *f);
    st_system_compute_force(sys, f, x, v);
}

/* Two particles 0.5 apart, h = 1, m = 1, k = 100, rho0 = 1, no viscosity:
 * rho = C (1 + (1 - 0.25)^3), C = 315 / (64 pi); p = 100 (rho - 1);
 * f_0 = (x_0 - x_1) g (-2 p / rho^2), g = -3 (15 / pi) (1 - 0.5)^2 / 0.5. */
Test(sph_fluid, two_particles_worked_by_hand)
{
    test_rt t;
    st_scene *s = sph_scene(&t, "Vec3d", "[[0, 0, 0], [0.5, 0, 0]]", "viscosity: 0", "0, 0, 0");
    st_system *sys = s->systems[0];
    double f[6];
    force_at(s, f, sys->x, sys->v);
    double C = 315 / (64 * M_PI), rho = C * (1 + 0.421875), p = 100 * (rho - 1);
    double g = -3 * (15 / M_PI) * 0.25 / 0.5, fx = -0.5 * g * (-2 * p / (rho * rho));
    cr_assert(fabs(f[0] - fx) < 1e-12 * fabs(fx), "f0x %.17g want %.17g", f[0], fx);
    cr_assert(fabs(f[3] + fx) < 1e-12 * fabs(fx), "f1x %.17g", f[3]);
    cr_assert(fabs(f[1]) + fabs(f[2]) + fabs(f[4]) + fabs(f[5]) == 0, "off-axis force");
    /* rho < rho0 here (C = 1.57, rho = 2.23 > 1): the pair repels */
    cr_assert(f[0] < 0, "particle 0 pushed away (f0x = %g)", f[0]);
    done(&s, &t);

    /* beyond the radius nothing acts */
    s = sph_scene(&t, "Vec3d", "[[0, 0, 0], [1.0001, 0, 0]]", "viscosity: 0", "0, 0, 0");
    sys = s->systems[0];
    force_at(s, f, sys->x, sys->v);
    for (int k = 0; k < 6; k++)
        cr_assert_eq(f[k], 0, "f[%d] = %g beyond h", k, f[k]);
    done(&s, &t);
}

/* Three particles: 0 has neighbours 1 (0.3) and 2 (0.6), 1 and 2 are 0.9
 * apart on the other side: each density sums all three, worked here with the
 * poly6 kernel, and the force on 1 from 0 and 2 follows. */
Test(sph_fluid, density_sums_the_neighbours)
{
    test_rt t;
    st_scene *s = sph_scene(&t, "Vec3d", "[[0, 0, 0], [0.3, 0, 0], [-0.6, 0, 0]]",
                            "viscosity: 0, radius: 1, mass: 2, pressure: 50, density: 3", "0, 0, 0");
    st_system *sys = s->systems[0];
    double f[9];
    force_at(s, f, sys->x, sys->v);
    const double C = 315 / (64 * M_PI), m = 2;
#define WD(q) (C * pow(1 - (q) * (q), 3))
#define GP(q) (-3 * (15 / M_PI) * (1 - (q)) * (1 - (q)) / (q))
    double rho0 = m * (WD(0) + WD(0.3) + WD(0.6)), rho1 = m * (WD(0) + WD(0.3) + WD(0.9));
    double rho2 = m * (WD(0) + WD(0.6) + WD(0.9));
    double p0 = 50 * (rho0 - 3), p1 = 50 * (rho1 - 3), p2 = 50 * (rho2 - 3);
    /* on particle 1: from 0 (d = x1 - x0 = 0.3) and from 2 (d = 0.9) */
    double f1 = 0.3 * GP(0.3) * (-m * m * (p1 / (rho1 * rho1) + p0 / (rho0 * rho0))) +
                0.9 * GP(0.9) * (-m * m * (p1 / (rho1 * rho1) + p2 / (rho2 * rho2)));
    cr_assert(fabs(f[3] - f1) < 1e-12 * fabs(f1), "f1x %.17g want %.17g", f[3], f1);
    cr_assert(fabs(f[0] + f[3] + f[6]) < 1e-12 * fabs(f1), "momentum: sum %g", f[0] + f[3] + f[6]);
    done(&s, &t);
#undef WD
#undef GP
}

/* SOFA's cubic spline with C = 48 / (pi h^3). */
static double cubic_w(double q, double h)
{
    double c = 48 / M_PI / (h * h * h);
    if (q < 0.5)
        return c * (1.0 / 6.0 - q * q + q * q * q);
    if (q < 1)
        return c * pow(1 - q, 3) / 3;
    return 0;
}

/* E = sum_i m k (ln rho_i + rho0 / rho_i): dE/drho = m p / rho^2, so with the
 * same kernel for density and pressure (kernelType 1) f = -grad E. */
static double sph_energy(const double *x, size_t n, double h, double m, double k, double r0)
{
    double e = 0;
    for (size_t i = 0; i < n; i++) {
        double rho = m * cubic_w(0, h);
        for (size_t j = 0; j < n; j++) {
            if (j == i)
                continue;
            double r2 = 0;
            for (int a = 0; a < 3; a++)
                r2 += (x[3 * i + a] - x[3 * j + a]) * (x[3 * i + a] - x[3 * j + a]);
            if (r2 < h * h)
                rho += m * cubic_w(sqrt(r2) / h, h);
        }
        e += m * k * (log(rho) + r0 / rho);
    }
    return e;
}

Test(sph_fluid, cubic_pressure_is_minus_the_energy_gradient)
{
    enum { N = 40 };
    const double h = 0.5;
    char pts[4096] = "[";
    unsigned seed = 12345;
    for (int i = 0; i < N; i++) {
        double c[3];
        for (int a = 0; a < 3; a++) {
            seed = seed * 1103515245u + 12345u;
            c[a] = -0.7 + 1.4 * ((seed >> 8) & 0xffff) / 65536.0; /* 3 cells of 0.5 a side */
        }
        size_t l = strlen(pts);
        snprintf(pts + l, sizeof pts - l, "%s[%.6f, %.6f, %.6f]", i ? ", " : "", c[0], c[1], c[2]);
    }
    strcat(pts, "]");
    test_rt t;
    st_scene *s = sph_scene(&t, "Vec3d", pts,
                            "kernelType: 1, viscosity: 0, radius: 0.5, mass: 0.1, pressure: 20, "
                            "density: 1.5",
                            "0, 0, 0");
    st_system *sys = s->systems[0];
    double f[3 * N], x[3 * N];
    memcpy(x, sys->x, sizeof x);
    force_at(s, f, x, sys->v);
    double fmax = 0;
    for (int i = 0; i < 3 * N; i++)
        fmax = fmax > fabs(f[i]) ? fmax : fabs(f[i]);
    cr_assert(fmax > 1e-3, "no force at all (%g)", fmax);
    const double eps = 1e-6;
    for (int i = 0; i < 3 * N; i++) {
        double xp[3 * N], xm[3 * N];
        memcpy(xp, x, sizeof x);
        memcpy(xm, x, sizeof x);
        xp[i] += eps;
        xm[i] -= eps;
        double fd = -(sph_energy(xp, N, h, 0.1, 20, 1.5) - sph_energy(xm, N, h, 0.1, 20, 1.5)) /
                    (2 * eps);
        cr_assert(fabs(f[i] - fd) < 1e-6 * fmax, "dof %d: f %.12g, -dE/dx %.12g", i, f[i], fd);
    }
    done(&s, &t);
}

/* Viscosity (type 1): two particles at rest distance but moving apart add
 * (v_j - v_i) m^2 mu / rho^2 lapWv(q), lapWv = 6 (15 / (2 pi)) (1 - q) for h = 1;
 * the artificial one (type 2) only acts on approaching particles. */
Test(sph_fluid, viscosity)
{
    test_rt t;
    st_scene *s = sph_scene(&t, "Vec3d", "[[0, 0, 0], [0.5, 0, 0]]", "viscosity: 0.2", "0, 0, 0");
    st_system *sys = s->systems[0];
    double f0[6], f1[6], v[6] = {0, 1, 0, 0, -2, 0};
    force_at(s, f0, sys->x, sys->v);
    force_at(s, f1, sys->x, v);
    double C = 315 / (64 * M_PI), rho = C * (1 + 0.421875);
    double fy = (-2 - 1) * 0.2 / (rho * rho) * 6 * (15 / (2 * M_PI)) * 0.5;
    cr_assert(fabs(f1[1] - f0[1] - fy) < 1e-12 * fabs(fy), "fy %.17g want %.17g", f1[1] - f0[1], fy);
    cr_assert(fabs(f1[4] - f0[4] + fy) < 1e-12 * fabs(fy), "opposite on 1");
    done(&s, &t);

    s = sph_scene(&t, "Vec3d", "[[0, 0, 0], [0.5, 0, 0]]", "viscosity: 0.2, viscosityType: 2",
                  "0, 0, 0");
    sys = s->systems[0];
    double apart[6] = {-1, 0, 0, 1, 0, 0}, closer[6] = {1, 0, 0, -1, 0, 0};
    force_at(s, f0, sys->x, sys->v);
    force_at(s, f1, sys->x, apart);
    cr_assert_eq(f1[0], f0[0], "moving apart: no artificial viscosity");
    force_at(s, f1, sys->x, closer);
    /* vx = (v0 - v1).(x0 - x1) = 2 * -0.5 = -1: pressure factor += -1 * 0.2 * 1 * 1 /
     * ((0.25 + 0.01) rho) */
    double g = -3 * (15 / M_PI) * 0.25 / 0.5, extra = -0.2 / (0.26 * rho);
    double want = -0.5 * g * extra;
    cr_assert(fabs(f1[0] - f0[0] - want) < 1e-12 * fabs(want), "approaching: %.17g want %.17g",
              f1[0] - f0[0], want);
    done(&s, &t);
}

/* Vec2d: the same pair in the plane gives the 3D numbers (SOFA keeps the 3D
 * constants). A 4 x 4 block then falls 50 steps and stays finite, with a
 * pair closer than h at the end. */
Test(sph_fluid, vec2d_and_a_run)
{
    test_rt t;
    st_scene *s = sph_scene(&t, "Vec2d", "[[0, 0], [0.5, 0]]", "viscosity: 0", "0, 0, 0");
    st_system *sys = s->systems[0];
    double f[4];
    force_at(s, f, sys->x, sys->v);
    double C = 315 / (64 * M_PI), rho = C * (1 + 0.421875), p = 100 * (rho - 1);
    double g = -3 * (15 / M_PI) * 0.25 / 0.5, fx = -0.5 * g * (-2 * p / (rho * rho));
    cr_assert(fabs(f[0] - fx) < 1e-12 * fabs(fx), "2D f0x %.17g want %.17g", f[0], fx);
    done(&s, &t);

    char pts[1024] = "[";
    for (int i = 0; i < 16; i++) {
        size_t l = strlen(pts);
        snprintf(pts + l, sizeof pts - l, "%s[%g, %g, 0]", i ? ", " : "", 0.1 * (i % 4),
                 0.1 * (i / 4));
    }
    strcat(pts, "]");
    s = sph_scene(&t, "Vec3d", pts, "radius: 0.15, mass: 0.01, pressure: 1, density: 1",
                  "0, -10, 0");
    st_error err = {0};
    for (int k = 0; k < 50; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "step %d: %s", k, err.msg);
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    for (size_t i = 0; i < 48; i++)
        cr_assert(isfinite(ms->position.r[i]), "x[%zu] not finite", i);
    cr_assert(ms->position.r[1] < -1e-3, "the block fell (y0 = %g)", ms->position.r[1]);
    done(&s, &t);
}

Test(sph_fluid, bad_radius_is_refused)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t,
                                  "format: settee/1\nroot:\n  objects:\n"
                                  "    - RequiredPlugin: {pluginName: [SofaSphFluid]}\n"
                                  "    - MechanicalObject: {position: [[0, 0, 0]]}\n"
                                  "    - SPHFluidForceField: {radius: 0}\n",
                                  &s, &err),
                 ST_OK, "%s", err.msg);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "radius must be > 0"), "%s", err.msg);
    done(&s, &t);
}

/* SpatialGridContainer keeps SOFA's data; the fluid beside it gives the same
 * forces (settee's fluid always uses its own grid); a cellWidth <= 0 is refused. */
Test(sph_fluid, spatial_grid_container)
{
    const char *fmt = "format: settee/1\nroot:\n  gravity: [0, 0, 0]\n  objects:\n"
                      "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, SofaSphFluid]}\n"
                      "    - EulerExplicitSolver: {}\n"
                      "    - MechanicalObject: {position: [[0, 0, 0], [0.5, 0, 0]]}\n"
                      "    - UniformMass: {vertexMass: 1}\n"
                      "    - SpatialGridContainer: {cellWidth: %s, sortPoints: true}\n"
                      "    - SPHFluidForceField: {viscosity: 0}\n";
    char yaml[1024];
    test_rt t;
    st_scene *s = NULL;
    st_error err = {0};
    snprintf(yaml, sizeof yaml, fmt, "0.75");
    test_rt_open(&t);
    cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    double f[6];
    force_at(s, f, s->systems[0]->x, s->systems[0]->v);
    double C = 315 / (64 * M_PI), rho = C * (1 + 0.421875), p = 100 * (rho - 1);
    double g = -3 * (15 / M_PI) * 0.25 / 0.5, fx = -0.5 * g * (-2 * p / (rho * rho));
    cr_assert(fabs(f[0] - fx) < 1e-12 * fabs(fx), "f0x %.17g want %.17g", f[0], fx);
    done(&s, &t);

    snprintf(yaml, sizeof yaml, fmt, "0");
    test_rt_open(&t);
    cr_assert_eq(test_load_string(&t, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "cell width must be > 0"), "%s", err.msg);
    done(&s, &t);
}
