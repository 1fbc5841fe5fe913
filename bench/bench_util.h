/* bench_util.h - small helpers shared by the benchmarks (header only: each
 * bench_*.c is its own program). */
#ifndef SETTEE_BENCH_UTIL_H
#define SETTEE_BENCH_UTIL_H

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <settee/settee.h>

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n timings (sorted in place). */
static inline double median(double *t, size_t n)
{
    if (n == 0)
        return 0.0;
    qsort(t, n, sizeof *t, bench_cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* The first component named name in the scene (the first 64 searched). */
static inline st_component *find(st_scene *s, const char *name)
{
    st_component *all[64];
    size_t n = st_node_find_all(st_scene_root(s), ST_ROLE_ANY, ST_SEARCH_DOWN, all, 64);
    for (size_t i = 0; i < n && i < 64; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

/* A numeric field of c (uint or real) as a double; NAN when c has none. */
static inline double bench_field_num(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    if (!f)
        return NAN;
    if (f->type == ST_T_UINT)
        return (double)*(const unsigned *)st_component_field_ptr(c, f);
    return *(const double *)st_component_field_ptr(c, f);
}

/* Wall clock in milliseconds (CLOCK_MONOTONIC). */
static inline double bench_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

/* The 4x4x11 hexahedral beam on SparseLDL that bench_load and bench_threads
 * time as whole `settee` runs (YAML). */
#define BENCH_LDL_BEAM_YAML \
    "format: settee/1\n" \
    "root:\n" \
    "  name: root\n" \
    "  dt: 0.01\n" \
    "  gravity: [0, -9.81, 0]\n" \
    "  objects:\n" \
    "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct, Topology,\n" \
    "        Mass, SolidMechanics.FEM.Elastic, Constraint.Projective, Engine.Select]}\n" \
    "    - DefaultAnimationLoop: {}\n" \
    "  children:\n" \
    "    - name: beam\n" \
    "      objects:\n" \
    "        - EulerImplicitSolver: {rayleighStiffness: 0.1, rayleighMass: 0.1}\n" \
    "        - SparseLDLSolver: {template: CompressedRowSparseMatrixMat3x3d}\n" \
    "        - RegularGridTopology: {name: grid, n: [4, 4, 11], min: [0, 0, 0], max: [1, 1, 5]}\n" \
    "        - MechanicalObject: {template: Vec3d}\n" \
    "        - UniformMass: {totalMass: 1}\n" \
    "        - HexahedronFEMForceField: {youngModulus: 1e5, poissonRatio: 0.3, method: large}\n" \
    "        - BoxROI: {name: box, box: [-0.1, -0.1, -0.1, 1.1, 1.1, 0.1]}\n" \
    "        - FixedProjectiveConstraint: {indices: \"@box.indices\"}\n"

#endif
