/* test_monitor.c - Monitor (SOFA's gnuplot files of chosen points) and
 * EnergyMonitor (the scene's kinetic and potential energy per step): the
 * files hold the run's own values, checked against the state stepped here
 * and the energies' closed forms. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define NSTEPS 5

/* Loads and initialises the scene text (written next to the test's files). */
static st_scene *load_init(test_rt *t, const char *name, const char *scene)
{
    const char *path = test_write_temp(name, scene);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load(t->rt, path, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    return s;
}

/* Four particles of 0.1 kg under gravity (explicit symplectic Euler), with
 * `root_extra` appended to the root's objects and `extra` to the
 * particles'. */
static st_scene *particles(test_rt *t, const char *root_extra, const char *extra)
{
    char scene[4096];
    snprintf(scene, sizeof scene,
             "format: settee/1\n"
             "root:\n"
             "  gravity: [0, -9.81, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, Playback]}\n"
             "%s"
             "  children:\n"
             "    - name: P\n"
             "      objects:\n"
             "        - EulerExplicitSolver: {symplectic: true}\n"
             "        - MechanicalObject:\n"
             "            name: dofs\n"
             "            position: [[0, 0, 0], [1, 2, 3], [2, 0, 1], [3, 1, 0]]\n"
             "            velocity: [[0, 1, 0], [1, 0, 0], [0, 0, 2], [1, 1, 1]]\n"
             "        - UniformMass: {totalMass: 0.4}\n"
             "%s",
             root_extra, extra);
    return load_init(t, "particles.yaml", scene);
}

/* The file next to the scene written by test_write_temp. */
static char *read_output(const char *name)
{
    char path[1024];
    const char *scene = test_write_temp("probe.txt", "");
    snprintf(path, sizeof path, "%.*s/%s", (int)(strrchr(scene, '/') - scene), scene, name);
    char *text = test_read_file(path);
    cr_assert(text, "%s was not written", path);
    return text;
}

Test(monitor, gnuplot_files_hold_the_monitored_points)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = particles(&t, "", "        - Monitor: {name: mon, indices: [3, 1], "
                                "ExportPositions: true, ExportVelocities: true, "
                                "ExportForces: true, showTrajectories: true}\n");
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    double x[NSTEPS][12], v[NSTEPS][12], f[NSTEPS][12], time[NSTEPS];
    st_error err = {0};
    for (int k = 0; k < NSTEPS; k++) {
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
        memcpy(x[k], ms->position.r, sizeof x[k]);
        memcpy(v[k], ms->velocity.r, sizeof v[k]);
        memcpy(f[k], ms->force.r, sizeof f[k]);
        time[k] = st_scene_time(s);
    }
    st_scene_destroy(&s);
    cr_assert_eq(t.nerrors, 0, "%s", t.log);
    test_rt_close(&t);

    const char *names[3] = {"mon_x.txt", "mon_v.txt", "mon_f.txt"};
    const char *what[3] = {"positions", "velocities", "forces"};
    double(*vals[3])[12] = {x, v, f};
    for (int q = 0; q < 3; q++) {
        char *text = read_output(names[q]);
        char head[256];
        snprintf(head, sizeof head,
                 "# Gnuplot File : %s of 2 particle(s) Monitored\n"
                 "# 1st Column : time, others : particle(s) number 3 1 \n",
                 what[q]);
        cr_assert(!strncmp(text, head, strlen(head)), "%s header:\n%s", names[q], text);
        char *p = text + strlen(head);
        for (int k = 0; k < NSTEPS; k++) {
            char *end;
            cr_assert_eq(strtod(p, &end), time[k], "%s line %d", names[q], k);
            cr_assert_eq(*end, '\t');
            p = end;
            const int idx[2] = {3, 1};
            for (int i = 0; i < 2; i++)
                for (int c = 0; c < 3; c++) {
                    double got = strtod(p, &end);
                    cr_assert(end != p, "%s: short line %d", names[q], k);
                    cr_assert_eq(got, vals[q][k][3 * idx[i] + c], "%s step %d point %d", names[q],
                                 k, idx[i]);
                    p = end;
                }
            cr_assert(!strncmp(p, "\t\n", 2), "%s: line %d ends with '%.5s'", names[q], k, p);
            p += 2;
        }
        cr_assert_eq(*p, 0, "%s: extra lines: %s", names[q], p);
        free(text);
    }
}

Test(monitor, index_beyond_the_points_is_an_init_error)
{
    test_rt t;
    test_rt_open(&t);
    char scene[1024];
    snprintf(scene, sizeof scene,
             "format: settee/1\n"
             "root:\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [Playback]}\n"
             "    - MechanicalObject: {position: [[0, 0, 0], [1, 0, 0]]}\n"
             "    - Monitor: {indices: [0, 2], ExportPositions: true}\n");
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&t, scene, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "index 2 is beyond the 2 points"), "%s", err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* Kinetic energy 1/2 m |v|^2 and potential -m g.x of every particle (the
 * mass's closed forms), read back from the file at every step. */
Test(monitor, energy_monitor_writes_the_closed_forms)
{
    test_rt t;
    test_rt_open(&t);
    /* In the root: the whole scene. */
    st_scene *s = particles(&t, "    - EnergyMonitor: {name: en, fileName: en}\n", "");
    st_error err = {0};
    st_mstate *ms = (st_mstate *)test_find_object(s, "dofs");
    double ke[NSTEPS + 1], pe[NSTEPS + 1], time[NSTEPS + 1];
    for (int k = 0; k <= NSTEPS; k++) {
        if (k)
            cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
        ke[k] = pe[k] = 0;
        for (int i = 0; i < 4; i++) {
            const double *vi = ms->velocity.r + 3 * i, *xi = ms->position.r + 3 * i;
            ke[k] += 0.5 * 0.1 * (vi[0] * vi[0] + vi[1] * vi[1] + vi[2] * vi[2]);
            pe[k] += 0.1 * 9.81 * xi[1];
        }
        time[k] = st_scene_time(s);
    }
    st_component *en = test_find_object(s, "en");
    double out = *(double *)st_component_field_ptr(en, st_component_field(en, "kineticEnergy"));
    cr_assert_float_eq(out, ke[NSTEPS], 1e-14);
    st_scene_destroy(&s);
    cr_assert_eq(t.nerrors, 0, "%s", t.log);
    test_rt_close(&t);

    char *text = read_output("en_energy.txt");
    char *p = strchr(strchr(text, '\n') + 1, '\n') + 1;
    const char *head = "# Gnuplot File : energies of the systems below /\n";
    cr_assert(!strncmp(text, head, strlen(head)), "%s", text);
    for (int k = 0; k <= NSTEPS; k++) {
        double tt, kk, pp, tot;
        int used;
        cr_assert_eq(sscanf(p, "%lf\t%lf\t%lf\t%lf\n%n", &tt, &kk, &pp, &tot, &used), 4,
                     "line %d: %s", k, p);
        cr_assert_eq(tt, time[k]);
        cr_assert_float_eq(kk, ke[k], 1e-14, "step %d: %.17g vs %.17g", k, kk, ke[k]);
        cr_assert_float_eq(pp, pe[k], 1e-14, "step %d: %.17g vs %.17g", k, pp, pe[k]);
        cr_assert_eq(tot, kk + pp);
        p += used;
    }
    cr_assert_eq(*p, 0, "extra lines: %s", p);
    free(text);
}

/* ---- CompareTopology on a hand-written SOFA topology file ---- */

/* The 2x2x2 grid's quads and hexahedron as the Topology plugin orders them
 * (the same lists --export-state writes). */
#define GRID_QUADS "0 1 3 2 4 5 7 6 0 1 5 4 2 3 7 6 0 2 6 4 1 3 7 5"

/* The 2x2x2 grid with one more object (its YAML "Class: {...}"), run for
 * `steps` steps. */
static st_scene *grid_run(test_rt *t, const char *name, const char *object, int steps)
{
    char scene[2048];
    snprintf(scene, sizeof scene,
             "format: settee/1\n"
             "root:\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [Topology, Playback]}\n"
             "    - MechanicalObject: {name: dofs}\n"
             "    - RegularGridTopology: {name: grid, n: [2, 2, 2], min: [0, 0, 0],\n"
             "                            max: [1, 1, 1]}\n"
             "    - %s\n",
             object);
    st_scene *s = load_init(t, name, scene);
    st_error err = {0};
    for (int k = 0; k < steps; k++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    return s;
}

static st_scene *grid_with(test_rt *t, const char *compare)
{
    char object[1400];
    snprintf(object, sizeof object, "CompareTopology: {name: cmp, %s}", compare);
    return grid_run(t, "grid.yaml", object, 3);
}

static unsigned output_uint(st_scene *s, const char *field)
{
    st_component *c = test_find_object(s, "cmp");
    return *(unsigned *)st_component_field_ptr(c, st_component_field(c, field));
}

Test(monitor, compare_topology_counts_as_sofa)
{
    /* t = 0: all equal (Edges= 0 is skipped, as SOFA); t = 0.01: one
     * hexahedron differs in one index, and 5 quads instead of 6 count 1. */
    const char *ref = test_write_temp("ref_topology.txt", "T= 0\n"
                                        "  Edges= 0\n"
                                        "\n"
                                        "  Quads= 6\n"
                                        "  " GRID_QUADS "\n"
                                        "  Hexahedra= 1\n"
                                        "  0 1 3 2 4 5 7 6\n"
                                        "T= 0.01\n"
                                        "  Quads= 5\n"
                                        "  0 1 3 2 4 5 7 6 0 1 5 4 2 3 7 6 0 2 6 4\n"
                                        "  Hexahedra= 1\n"
                                        "  0 1 3 2 4 5 6 7\n");
    test_rt t;
    test_rt_open(&t);
    char opts[600];
    snprintf(opts, sizeof opts, "filename: %s", ref);
    st_scene *s = grid_with(&t, opts);
    cr_assert_eq(output_uint(s, "quadsError"), 1);
    cr_assert_eq(output_uint(s, "hexahedraError"), 1);
    cr_assert_eq(output_uint(s, "edgesError"), 0);
    cr_assert_eq(output_uint(s, "totalError"), 2);
    st_scene_destroy(&s);
    cr_assert_eq(t.nerrors, 0, "%s", t.log);
    test_rt_close(&t);
}

/* ReadTopology reads the blocks up to each step's time: after step 1 (read
 * at t = 0) the quads and hexahedron of T= 0; after step 2 (t = 0.01) the
 * T= 0.01 block's; a block of 0 edges leaves the edges as they were, and a
 * block with fewer indices than its count is a warning naming its line. */
Test(monitor, read_topology_reads_each_block)
{
    const char *ref = test_write_temp("read_topology.txt", "T= 0\n"
                                        "  Edges= 1\n"
                                        "  4 5\n"
                                        "  Quads= 6\n"
                                        "  " GRID_QUADS "\n"
                                        "  Hexahedra= 1\n"
                                        "  0 1 3 2 4 5 7 6\n"
                                        "T= 0.01\n"
                                        "  Edges= 0\n"
                                        "\n"
                                        "  Quads= 2\n"
                                        "  0 1 3 2 4 5 7 6\n"
                                        "  Hexahedra= 1\n"
                                        "  0 1 3 2 4 5 6\n");
    test_rt t;
    test_rt_open(&t);
    char object[600];
    snprintf(object, sizeof object, "ReadTopology: {name: rd, filename: %s}", ref);
    st_scene *s = grid_run(&t, "grid.yaml", object, 1);
    st_component *c = test_find_object(s, "rd");
    const st_array *q = st_component_field_ptr(c, st_component_field(c, "quads"));
    const st_array *h = st_component_field_ptr(c, st_component_field(c, "hexahedra"));
    const st_array *e = st_component_field_ptr(c, st_component_field(c, "edges"));
    cr_assert_eq(q->n, 6);
    cr_assert_eq(q->u[23], 5);
    cr_assert_eq(h->n, 1);
    cr_assert_eq(h->u[7], 6);
    cr_assert_eq(e->n, 1);
    cr_assert_eq(e->u[0], 4);
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(q->n, 2);
    cr_assert_eq(q->u[7], 6);
    cr_assert_eq(e->n, 1, "Edges= 0 leaves the edges");
    cr_assert_eq(h->n, 0, "a short hexahedron line is not read");
    cr_assert(strstr(t.log, "7 indices for 1 Hexahedra (8 expected)"), "%s", t.log);
    /* the grid's own topology is not changed, as in SOFA */
    st_component *grid = test_find_object(s, "grid");
    cr_assert_eq(grid->cls->topology->elements(grid, ST_T_QUADS)->n, 6);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(monitor, compare_topology_strict_fails_on_a_difference)
{
    const char *ref = test_write_temp("ref2_topology.txt", "T= 0\n"
                                         "  Quads= 6\n"
                                         "  " GRID_QUADS "\n"
                                         "  Hexahedra= 1\n"
                                         "  0 1 3 2 4 5 7 7\n");
    test_rt t;
    test_rt_open(&t);
    char opts[600];
    snprintf(opts, sizeof opts, "filename: %s, strict: true", ref);
    st_scene *s = grid_with(&t, opts);
    cr_assert_eq(output_uint(s, "totalError"), 1);
    st_scene_destroy(&s);
    cr_assert_eq(t.nerrors, 1, "%s", t.log);
    cr_assert(strstr(t.log, "1 of the 1 Hexahedra of the reference"), "%s", t.log);
    cr_assert(strstr(t.log, "ref2_topology.txt:4 differ"), "%s", t.log);
    test_rt_close(&t);
}

/* ---- WriteTopology ---- */

static st_scene *grid_writing(test_rt *t, const char *name, const char *opts, int steps)
{
    char object[1400];
    snprintf(object, sizeof object, "WriteTopology: {name: wt, %s}", opts);
    return grid_run(t, name, object, steps);
}

static int count_of(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

/* Every step by default, in SOFA's layout; CompareTopology reads it back
 * with no difference; with a period and no times SOFA's rule writes from
 * t = period on (t >= last + period, last starting at 0). */
Test(monitor, write_topology_writes_what_compare_topology_reads)
{
    test_rt t;
    test_rt_open(&t);
    st_scene *s = grid_writing(&t, "wt.yaml", "filename: wt_topology.txt", 3);
    st_scene_destroy(&s);
    cr_assert_eq(t.nerrors, 0, "%s", t.log);
    test_rt_close(&t);
    char *text = read_output("wt_topology.txt");
    cr_assert(!strncmp(text, "T= 0\n  Edges= ", 14), "%s", text);
    cr_assert(strstr(text, "  Quads= 6\n" GRID_QUADS "\n  Tetrahedra= 0\n\n"
                           "  Hexahedra= 1\n0 1 3 2 4 5 7 6\nT= 0.01\n"),
              "%s", text);
    cr_assert_eq(count_of(text, "T= "), 3, "%s", text);
    cr_assert(strstr(text, "T= 0.02\n"), "%s", text);
    free(text);

    test_rt_open(&t);
    char opts[1200], path[1024];
    const char *probe = test_write_temp("probe.txt", "");
    snprintf(path, sizeof path, "%.*s/wt_topology.txt", (int)(strrchr(probe, '/') - probe), probe);
    snprintf(opts, sizeof opts, "filename: %s, strict: true", path);
    s = grid_with(&t, opts);
    cr_assert_eq(output_uint(s, "totalError"), 0);
    st_scene_destroy(&s);
    cr_assert_eq(t.nerrors, 0, "%s", t.log);
    test_rt_close(&t);

    test_rt_open(&t);
    s = grid_writing(&t, "wp.yaml", "filename: wp_topology.txt, period: 0.02", 5);
    st_scene_destroy(&s);
    test_rt_close(&t);
    text = read_output("wp_topology.txt");
    cr_assert_eq(count_of(text, "T= "), 2, "%s", text);
    cr_assert(!strncmp(text, "T= 0.02\n", 8) && strstr(text, "T= 0.04"), "%s", text);
    free(text);

    test_rt_open(&t);
    s = grid_writing(&t, "wg.yaml", "filename: wg_topology.txt.gz, time: [0.01]", 3);
    st_scene_destroy(&s);
    test_rt_close(&t);
    text = read_output("wg_topology.txt.gz");
    cr_assert((unsigned char)text[0] == 0x1f && (unsigned char)text[1] == 0x8b, "gzip magic");
    free(text);
}
