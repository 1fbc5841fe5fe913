/* run.c - `settee run`: load, initialise and step a scene, print a summary,
 * optionally export the final state as JSON. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#define RUN_DEFAULT_STEPS 100UL

void cli_help_run(FILE *f)
{
    fprintf(f,
            "usage: settee run SCENE [options]\n"
            "\n"
            "Loads SCENE (settee YAML, or SOFA XML: .scn, .xml), initialises it and runs its\n"
            "animation loop.\n"
            "\n"
            "Options:\n"
            "  -n, --steps N           number of steps (default %lu); 0 only loads and initialises\n"
            "  --dt DT                 time step in seconds, instead of the root node's dt\n"
            "  --export-state FILE     after the run, write time, steps and the positions and\n"
            "                          velocities of every MechanicalObject and MappedObject to\n"
            "                          FILE as JSON, every number with 17 significant digits\n"
            "                          (reads back bit-exact)\n"
            "  --export-state-every N also write that export every N steps, to FILE with _STEP\n"
            "                          before its extension (state.json: state_400.json, ...)\n"
            "  --output DIR            write every MechanicalObject (cells from its node's topology)\n"
            "                          as DIR/NODE-PATH.pvd + .vtu files (ParaView), at init and\n"
            "                          every --every steps, and DIR/summary.json (docs/results.md)\n"
            "  --every N               steps between two --output frames (default 1)\n"
            "  --checkpoint FILE       write a checkpoint to FILE (atomically) at the end of the\n"
            "                          run, every --checkpoint-every steps and on Ctrl-C\n"
            "  --checkpoint-every N    steps between two checkpoints\n"
            "  --resume FILE           continue the run saved in the checkpoint FILE (same scene\n"
            "                          and options): -n counts from the start of the run, so the\n"
            "                          command of an interrupted run plus --resume finishes it\n"
            "  --set PATH.FIELD=VALUE  set a field before init, parsed as the scene would\n"
            "                          (/Beam/springs.stiffness=500, dt=0.005; repeatable)\n"
            "  --collect [NAME=]PATH.FIELD[I][J]\n"
            "                          after the run, read a data field (/Beam/dofs.position,\n"
            "                          /Beam/dofs.position[-1][1]: the last point's y; time, dt,\n"
            "                          gravity); repeatable; printed as JSON on stdout unless\n"
            "                          --collect-json is given\n"
            "  --collect-json FILE     write the collected values to FILE as JSON\n"
            "  --summary-json FILE     write the outcome of the run to FILE as JSON: ok, failed\n"
            "                          (load, init, step, output) and the error, steps, simulated\n"
            "                          time, wall-clock seconds of load, init and steps, what the\n"
            "                          solvers reported (solvers) and what the scene is (systems,\n"
            "                          rois, as settee check --json); written also when the run\n"
            "                          fails\n"
            "  --plugin-path DIR       search DIR for plugins before SETTEE_PLUGIN_PATH (repeatable)\n"
            "  --threads N             threads of the linear algebra (OpenBLAS and CHOLMOD's\n"
            "                          OpenMP) for the direct solvers, and of the\n"
            "                          MultiThreading plugin's Parallel* components; default\n"
            "                          $SETTEE_THREADS, else 1 (threads only cost on small\n"
            "                          systems)\n"
            "  -q, --quiet             no summary line (errors and warnings are still printed)\n"
            "  -v, --verbose           also print information messages\n"
            "  --strict                an unknown attribute in a SOFA scene (.scn/.xml) is an\n"
            "                          error, as in YAML scenes (by default a warning, as SOFA)\n"
            "  --no-progress           never draw the progress bar (by default it is drawn on\n"
            "                          stderr when it is a terminal, once the run passes 1 s)\n"
            "  -h, --help              show this help\n"
            "\n"
            "On success one summary line goes to stdout, e.g.\n"
            "  100 steps, simulated 1 s in 0.012 s (8333 steps/s), load 2.1 ms, init 0.4 ms\n"
            "then one line per solver that exposes outcomes as output fields (statistics over\n"
            "the steps: mean, min, max, last of numbers, counts of texts), e.g.\n"
            "  CGLinearSolver /Beam/cg: nbIterations mean 12.3, min 9, max 25, last 11; ...\n"
            "\n"
            "Exit status: 0 on success; 1 when the scene does not load or initialise, a step\n"
            "fails, the final state holds NaN or infinity, or the export cannot be written;\n"
            "2 on a usage error; 130 when interrupted by Ctrl-C (the steps done are reported).\n",
            RUN_DEFAULT_STEPS);
}

typedef struct run_opts {
    const char *scene;
    unsigned long steps;
    double dt;              /* <= 0: the scene's */
    const char *export_path;
    unsigned long export_every; /* --export-state-every */
    const char *output_dir;  /* --output */
    unsigned long every;     /* --every */
    const char *checkpoint;  /* --checkpoint FILE */
    unsigned long checkpoint_every;
    const char *resume;      /* --resume FILE */
    bool quiet, verbose, progress;
    bool strict;            /* --strict: unknown attributes of a .scn scene are errors */
    const char **plugin_paths;
    size_t npaths;
    const char **sets;      /* "PATH.FIELD=VALUE" */
    size_t nsets;
    cli_collect_item *collect; /* --collect */
    size_t ncollect;
    const char *collect_json;  /* --collect-json FILE, or NULL: stdout */
    unsigned long threads;     /* --threads, else $SETTEE_THREADS, else 1 */
    const char *summary_json;  /* --summary-json FILE, or NULL */
} run_opts;

/* Parses a step count: digits only, no sign. */
static bool parse_steps(const char *s, unsigned long *out)
{
    if (!*s || strspn(s, "0123456789") != strlen(s))
        return false;
    errno = 0;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

static bool parse_dt(const char *s, double *out)
{
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || v <= 0)
        return false;
    *out = v;
    return true;
}

/* Returns -1 when the options are fine, else the exit code. */
static int parse_run_args(int argc, char **argv, run_opts *o)
{
    cli_args a = {.argc = argc, .argv = argv, .i = 1, .cmd = "run"};
    o->steps = RUN_DEFAULT_STEPS;
    o->progress = true;
    const char *opt, *pos, *v;
    for (;;) {
        if (!cli_next(&a, &opt, &pos)) {
            if (!pos)
                break;
            if (o->scene)
                return cli_usage_error("run", "one scene at a time ('%s' and '%s' given)",
                                       o->scene, pos);
            o->scene = pos;
        } else if (cli_is(opt, "-n", "--steps")) {
            if (!(v = cli_value(&a)))
                return CLI_EXIT_USAGE;
            if (!parse_steps(v, &o->steps))
                return cli_usage_error("run", "-n expects a number of steps >= 0, not '%s'", v);
        } else if (cli_is(opt, NULL, "--dt")) {
            if (!(v = cli_value(&a)))
                return CLI_EXIT_USAGE;
            if (!parse_dt(v, &o->dt))
                return cli_usage_error("run", "--dt expects a finite time step > 0, not '%s'", v);
        } else if (cli_is(opt, NULL, "--export-state")) {
            if (!(v = cli_value(&a)))
                return CLI_EXIT_USAGE;
            if (!*v)
                return cli_usage_error("run", "--export-state expects a file name");
            o->export_path = v;
        } else if (cli_is(opt, NULL, "--export-state-every")) {
            if (!(v = cli_value(&a)))
                return CLI_EXIT_USAGE;
            if (!parse_steps(v, &o->export_every) || o->export_every == 0)
                return cli_usage_error("run", "--export-state-every expects a number of steps "
                                       ">= 1, not '%s'", v);
        } else if (cli_is(opt, NULL, "--output")) {
            if (!(v = cli_value(&a)))
                return CLI_EXIT_USAGE;
            if (!*v)
                return cli_usage_error("run", "--output expects a folder");
            o->output_dir = v;
        } else if (cli_is(opt, NULL, "--every")) {
            if (!(v = cli_value(&a)))
                return CLI_EXIT_USAGE;
            if (!parse_steps(v, &o->every) || o->every == 0)
                return cli_usage_error("run", "--every expects a number of steps >= 1, not '%s'", v);
        } else if (cli_is(opt, NULL, "--checkpoint")) {
            if (!(v = cli_value(&a)))
                return CLI_EXIT_USAGE;
            if (!*v)
                return cli_usage_error("run", "--checkpoint expects a file name");
            o->checkpoint = v;
        } else if (cli_is(opt, NULL, "--checkpoint-every")) {
            if (!(v = cli_value(&a)))
                return CLI_EXIT_USAGE;
            if (!parse_steps(v, &o->checkpoint_every) || o->checkpoint_every == 0)
                return cli_usage_error("run", "--checkpoint-every expects a number of steps "
                                       ">= 1, not '%s'", v);
        } else if (cli_is(opt, NULL, "--resume")) {
            if (!(v = cli_value(&a)))
                return CLI_EXIT_USAGE;
            if (!*v)
                return cli_usage_error("run", "--resume expects a checkpoint file");
            o->resume = v;
        } else if (cli_is(opt, NULL, "--plugin-path")) {
            if (!(v = cli_value(&a)))
                return CLI_EXIT_USAGE;
            if (!*v)
                return cli_usage_error("run", "--plugin-path expects a directory, not ''");
            o->plugin_paths[o->npaths++] = v;
        } else if (cli_is(opt, NULL, "--set")) {
            if (!(v = cli_value(&a)))
                return CLI_EXIT_USAGE;
            const char *eq = strchr(v, '=');
            if (!eq || eq == v)
                return cli_usage_error("run", "--set expects PATH.FIELD=VALUE (e.g. "
                                       "/Beam/springs.stiffness=500 or dt=0.005), not '%s'", v);
            o->sets[o->nsets++] = v;
        } else if (cli_is(opt, NULL, "--collect")) {
            char msg[1200];
            if (!(v = cli_value(&a)))
                return CLI_EXIT_USAGE;
            if (!cli_collect_parse(v, &o->collect[o->ncollect++], msg, sizeof msg))
                return cli_usage_error("run", "%s", msg);
        } else if (cli_is(opt, NULL, "--collect-json")) {
            if (!(v = cli_value(&a)))
                return CLI_EXIT_USAGE;
            if (!*v)
                return cli_usage_error("run", "--collect-json expects a file name");
            o->collect_json = v;
        } else if (cli_is(opt, NULL, "--threads")) {
            if (!(v = cli_value(&a)))
                return CLI_EXIT_USAGE;
            if (!parse_steps(v, &o->threads) || o->threads == 0 || o->threads > 1024)
                return cli_usage_error("run", "--threads expects a number of threads from 1 to "
                                       "1024, not '%s'", v);
        } else if (cli_is(opt, NULL, "--summary-json")) {
            if (!(v = cli_value(&a)))
                return CLI_EXIT_USAGE;
            if (!*v)
                return cli_usage_error("run", "--summary-json expects a file name");
            o->summary_json = v;
        } else if (cli_is(opt, "-q", "--quiet")) {
            if (!cli_flag(&a))
                return CLI_EXIT_USAGE;
            o->quiet = true;
        } else if (cli_is(opt, "-v", "--verbose")) {
            if (!cli_flag(&a))
                return CLI_EXIT_USAGE;
            o->verbose = true;
        } else if (cli_is(opt, NULL, "--strict")) {
            if (!cli_flag(&a))
                return CLI_EXIT_USAGE;
            o->strict = true;
        } else if (cli_is(opt, NULL, "--no-progress")) {
            if (!cli_flag(&a))
                return CLI_EXIT_USAGE;
            o->progress = false;
        } else {
            return cli_unknown_option(&a);
        }
    }
    if (!o->scene)
        return cli_usage_error("run", "missing the scene file");
    if (o->collect_json && !o->ncollect)
        return cli_usage_error("run", "--collect-json needs at least one --collect");
    if (o->export_every && !o->export_path)
        return cli_usage_error("run", "--export-state-every goes with --export-state FILE");
    if (o->checkpoint_every && !o->checkpoint)
        return cli_usage_error("run", "--checkpoint-every goes with --checkpoint FILE");
    if (o->every && !o->output_dir)
        return cli_usage_error("run", "--every goes with --output DIR");
    /* an output that is the scene file (or a link to it) would replace it */
    struct stat in, st;
    const char *outs[][2] = {{"--checkpoint", o->checkpoint},
                             {"--export-state", o->export_path},
                             {"--summary-json", o->summary_json},
                             {"--collect-json", o->collect_json}};
    for (size_t i = 0; i < sizeof outs / sizeof *outs && stat(o->scene, &in) == 0; i++)
        if (outs[i][1] && stat(outs[i][1], &st) == 0 && st.st_dev == in.st_dev &&
            st.st_ino == in.st_ino)
            return cli_usage_error("run", "%s '%s' is the scene file '%s': an output must not "
                                   "replace an input of the run",
                                   outs[i][0], outs[i][1], o->scene);
    if (!o->every)
        o->every = 1;
    if (!o->threads) {
        const char *env = getenv("SETTEE_THREADS");
        o->threads = 1;
        if (env && *env && (!parse_steps(env, &o->threads) || o->threads == 0 ||
                            o->threads > 1024))
            return cli_usage_error("run", "SETTEE_THREADS must be a number of threads from 1 "
                                   "to 1024, not '%s'", env);
    }
    return -1;
}

/* The file of the export at step `step` with --export-state-every: "_STEP"
 * inserted before the extension of the file name (or appended). */
static void export_step_name(const char *path, unsigned long step, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    if (!dot || dot == (slash ? slash + 1 : path))
        snprintf(out, size, "%s_%lu", path, step);
    else
        snprintf(out, size, "%.*s_%lu%s", (int)(dot - path), path, step, dot);
}

/* True, with the component's path, when a MechanicalObject holds a NaN or
 * an infinity in its positions or velocities. */
static bool find_non_finite(st_scene *s, char *path, size_t size)
{
    size_t n = st_scene_states(s, NULL, 0);
    st_mstate **states = calloc(n ? n : 1, sizeof *states);
    if (!states)
        return false;
    n = st_scene_states(s, states, n);
    bool found = false;
    for (size_t i = 0; i < n && !found; i++) {
        /* Widths of the state's type: 1 for Vec1d, 7 and 6 for Rigid3d. */
        const st_array *arrs[2] = {&states[i]->position, &states[i]->velocity};
        const size_t w[2] = {states[i]->type->coord_size, states[i]->type->deriv_size};
        for (int k = 0; k < 2 && !found; k++)
            for (size_t j = 0; j < w[k] * arrs[k]->n && !found; j++)
                found = !isfinite(arrs[k]->r[j]);
        if (found)
            st_component_path(&states[i]->base, path, size);
    }
    free(states);
    return found;
}

/* What, beside the scene file, defines a run: the options that change the
 * scene (recorded in checkpoints, which refuse another). */
static char *run_tag(const run_opts *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return NULL;
    if (o->dt > 0)
        fprintf(m, "dt=%a;", o->dt);
    for (size_t i = 0; i < o->nsets; i++)
        fprintf(m, "set=%s;", o->sets[i]);
    fclose(m);
    return buf;
}

static bool write_checkpoint(const run_opts *o, st_scene *s, const char *tag, cli_log *log)
{
    st_error err = {0};
    if (st_scene_checkpoint_write(s, o->checkpoint, tag, &err) != ST_OK) {
        cli_report(log, &err);
        return false;
    }
    return true;
}

/* Writes the --collect values (also when the state diverged: they show it). */
static bool write_collected(const run_opts *o, st_scene *s, unsigned long done, cli_log *log)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    st_error err = {0};
    bool ok = m && cli_collect_write(o->collect, o->ncollect, s, done, m, &err) == ST_OK;
    if (m)
        fclose(m);
    if (!m)
        st_error_set(&err, ST_ENOMEM, "--collect: out of memory");
    if (ok && o->collect_json && !cli_write_file_atomic(o->collect_json, buf, len)) {
        st_error_set(&err, ST_EIO, "--collect-json %s: %s", o->collect_json, strerror(errno));
        ok = false;
    } else if (ok && !o->collect_json) {
        fwrite(buf, 1, len, stdout);
        fflush(stdout);
    }
    free(buf);
    if (!ok)
        cli_report(log, &err);
    return ok;
}

/* What a run did, for the summary line and --summary-json. */
typedef struct run_result {
    const char *failed;       /* NULL, "load", "init", "step", "output" */
    char error[ST_ERROR_MSG_MAX + ST_ERROR_PATH_MAX + 8]; /* the first error, if any */
    double load, init, wall;  /* wall-clock seconds: load, init, the steps */
    double sim, time;         /* simulated seconds of the run; time at the end */
    unsigned long done;
    bool interrupted;
} run_result;

static void run_failed(run_result *r, const char *stage, const st_error *err)
{
    if (r->failed)
        return;
    r->failed = stage;
    if (err && err->code != ST_OK)
        snprintf(r->error, sizeof r->error, "%s%s%s", err->path[0] ? err->path : "",
                 err->path[0] ? ": " : "", err->msg[0] ? err->msg : st_status_name(err->code));
}

/* --summary-json FILE: the run's outcome, its timings, what the solvers
 * did and (once initialised) what the scene is, for scripts. */
static void write_summary_json(const run_opts *o, st_scene *s, bool initialised,
                               const run_result *r, const cli_solver_stats *stats, cli_log *log)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) {
        cli_error("--summary-json: out of memory");
        log->nerrors++;
        return;
    }
    jw w = {.f = m};
    jw_object(&w, NULL);
    jw_string(&w, "scene", o->scene);
    jw_bool(&w, "ok", !r->failed && !r->interrupted);
    if (r->failed) {
        jw_string(&w, "failed", r->failed);
        jw_string(&w, "error", r->error);
    } else {
        jw_null(&w, "failed");
        jw_null(&w, "error");
    }
    jw_bool(&w, "interrupted", r->interrupted);
    jw_uint(&w, "steps", r->done);
    jw_uint(&w, "planned_steps", o->steps);
    jw_real(&w, "simulated", r->sim);
    jw_real(&w, "time", r->time);
    jw_array(&w, "set");
    for (size_t i = 0; i < o->nsets; i++)
        jw_string(&w, NULL, o->sets[i]);
    jw_end_array(&w);
    jw_object(&w, "wall_seconds");
    jw_real(&w, "load", r->load);
    jw_real(&w, "init", r->init);
    jw_real(&w, "steps", r->wall);
    jw_real(&w, "total", r->load + r->init + r->wall);
    jw_end_object(&w);
    if (r->wall > 0 && r->done > 0)
        jw_real(&w, "steps_per_second", (double)r->done / r->wall);
    else
        jw_null(&w, "steps_per_second");
    cli_solver_stats_json(stats, &w);
    cli_phases_json(initialised ? s : NULL, &w);
    if (initialised) {
        cli_scene_report(s, NULL, &w);
    } else {
        jw_array(&w, "systems");
        jw_end_array(&w);
        jw_array(&w, "rois");
        jw_end_array(&w);
    }
    jw_end_object(&w);
    fclose(m);
    if (!cli_write_file_atomic(o->summary_json, buf, len)) {
        cli_error("--summary-json %s: %s", o->summary_json, strerror(errno));
        log->nerrors++;
    }
    free(buf);
}

static void print_seconds(const char *what, double t)
{
    if (t >= 1e-3)
        printf("%s %.3g s", what, t);
    else
        printf("%s %.3g ms", what, 1e3 * t);
}

static void print_summary(const run_result *r, unsigned long planned, unsigned long threads,
                          const char *const *sets, size_t nsets)
{
    unsigned long done = r->done;
    double wall = r->wall, sim = r->sim;
    if (r->interrupted)
        printf("interrupted after %lu of %lu steps, ", done, planned);
    else
        printf("%lu step%s, ", done, done == 1 ? "" : "s");
    if (wall >= 100)
        printf("simulated %.6g s in %.0f s", sim, wall);
    else if (wall >= 1e-3)
        printf("simulated %.6g s in %.3g s", sim, wall);
    else
        printf("simulated %.6g s in %.3g ms", sim, 1e3 * wall);
    printf(" on %lu thread%s", threads, threads == 1 ? "" : "s");
    if (wall > 0 && done > 0)
        printf(" (%.0f steps/s)", (double)done / wall);
    print_seconds(", load", r->load);
    print_seconds(", init", r->init);
    for (size_t i = 0; i < nsets; i++)
        printf("%s%s", i ? ", " : "; with --set ", sets[i]);
    printf("\n");
    fflush(stdout);
}

/* Loads the scene, applies --set, prepares --output and initialises.
 * Returns false (the error reported, r->failed set) on failure. */
static bool run_setup(const run_opts *o, st_runtime *rt, st_scene **sp, cli_output *out,
                      run_result *r, cli_log *log)
{
    st_error err = {0};
    double t0 = cli_now();
    st_status st = st_scene_load(rt, o->scene, sp, &err);
    r->load = cli_now() - t0;
    if (st != ST_OK) {
        run_failed(r, "load", &err);
        cli_report(log, &err);
        return false;
    }
    for (size_t i = 0; i < o->nsets; i++) {
        char target[1024];
        const char *eq = strchr(o->sets[i], '=');
        snprintf(target, sizeof target, "%.*s", (int)(eq - o->sets[i]), o->sets[i]);
        if (st_scene_set(*sp, target, eq + 1, &err) != ST_OK) {
            run_failed(r, "load", &err);
            cli_report(log, &err);
            return false;
        }
    }
    t0 = cli_now();
    if ((o->output_dir && cli_output_prepare(out, rt, *sp, &err) != ST_OK) ||
        st_scene_init(*sp, &err) != ST_OK ||
        cli_collect_resolve(o->collect, o->ncollect, *sp, &err) != ST_OK) {
        r->init = cli_now() - t0;
        run_failed(r, "init", &err);
        cli_report(log, &err);
        return false;
    }
    r->init = cli_now() - t0;
    return true;
}

static int run_scene(const run_opts *o, st_runtime *rt, cli_log *log)
{
    st_error err = {0};
    st_scene *s = NULL;
    run_result r = {0};
    cli_output out = {.dir = o->output_dir, .every = o->every, .resuming = o->resume != NULL};
    cli_solver_stats *stats = NULL;
    if (!run_setup(o, rt, &s, &out, &r, log)) {
        if (o->summary_json)
            write_summary_json(o, s, false, &r, NULL, log);
        st_scene_destroy(&s);
        cli_output_free(&out);
        return CLI_EXIT_ERROR;
    }
    /* An export path that cannot be written fails before the run; an export
     * left by an earlier run goes, so that a failed run leaves none. */
    st_error_clear(&err);
    if (o->export_path && st_scene_export_prepare(o->export_path, &err) != ST_OK) {
        cli_report(log, &err);
        st_scene_destroy(&s);
        cli_output_free(&out);
        return CLI_EXIT_ERROR;
    }
    int rc = CLI_EXIT_OK;
    unsigned long done = 0;
    char *tag = run_tag(o);
    if ((o->resume || o->checkpoint) && !tag) {
        cli_error("out of memory");
        st_scene_destroy(&s);
        cli_output_free(&out);
        return CLI_EXIT_ERROR;
    }
    if (o->resume) {
        st_error_clear(&err);
        if (st_scene_checkpoint_read(s, o->resume, tag, &done, &err) != ST_OK) {
            cli_report(log, &err);
            free(tag);
            st_scene_destroy(&s);
            cli_output_free(&out);
            return CLI_EXIT_ERROR;
        }
        if (done > o->steps) {
            cli_error("the checkpoint '%s' is at step %lu, beyond the %lu steps asked (-n)",
                      o->resume, done, o->steps);
            free(tag);
            st_scene_destroy(&s);
            cli_output_free(&out);
            return CLI_EXIT_USAGE;
        }
        if (o->verbose)
            fprintf(stderr, "settee: resuming '%s' at step %lu (t = %.17g)\n", o->resume, done,
                    st_scene_time(s));
    }
    stats = cli_solver_stats_create(s);
    const unsigned long start = done;
    if (o->output_dir)
        cli_output_begin(&out, s, !o->resume);
    out.resumed_at = start;
    int errors0 = log->nerrors;
    double t0 = st_scene_time(s);
    cli_progress bar;
    cli_catch_sigint();
    cli_progress_start(&bar, o->steps, o->progress);
    if (o->output_dir)
        bar.files_dir = o->output_dir;
    double wall0 = cli_now();
    while (done < o->steps && !cli_interrupted()) {
        if (st_scene_step(s, o->dt, &err) != ST_OK) {
            rc = CLI_EXIT_ERROR;
            break;
        }
        done++;
        cli_solver_stats_record(stats);
        if (o->output_dir)
            cli_output_step(&out, s, done);
        if (o->export_every && done % o->export_every == 0) {
            char name[PATH_MAX + 32];
            export_step_name(o->export_path, done, name, sizeof name);
            if (st_scene_export_state(s, name, done, &err) != ST_OK) {
                rc = CLI_EXIT_ERROR;
                break;
            }
        }
        if (o->checkpoint_every && done % o->checkpoint_every == 0 && done < o->steps &&
            !write_checkpoint(o, s, tag, log)) {
            rc = CLI_EXIT_ERROR;
            break;
        }
        if (bar.files_dir && bar.enabled)
            bar.files = cli_output_files(&out);
        cli_progress_update(&bar, done, st_scene_time(s));
    }
    r.wall = cli_now() - wall0;
    cli_progress_clear(&bar);
    cli_active_progress = NULL;
    r.done = done - start;
    r.time = st_scene_time(s);
    r.sim = r.time - t0;

    if (rc != CLI_EXIT_OK) {
        run_failed(&r, "step", &err);
        cli_report(log, &err);
        fprintf(stderr, "settee: note: the run stopped at step %lu of %lu (simulated time %.6g s)\n",
                done + 1, o->steps, st_scene_time(s));
    } else if (cli_interrupted()) {
        rc = CLI_EXIT_SIGINT;
        r.interrupted = true;
        print_summary(&r, o->steps - start, o->threads, o->sets, o->nsets);
        if (o->checkpoint && write_checkpoint(o, s, tag, log))
            printf("checkpoint at step %lu written to %s; continue with --resume %s\n", done,
                   o->checkpoint, o->checkpoint);
    } else if (log->nerrors > errors0) {
        /* Components that failed during the steps (an output that could not
         * be written) logged errors: the run is not a success. */
        fprintf(stderr, "settee: note: %d error%s during the run\n", log->nerrors - errors0,
                log->nerrors - errors0 == 1 ? "" : "s");
        run_failed(&r, "step", NULL);
        rc = CLI_EXIT_ERROR;
    } else {
        if (!o->quiet) {
            print_summary(&r, o->steps - start, o->threads, o->sets, o->nsets);
            cli_solver_stats_print(stats, stdout);
            cli_phases_print(s, stdout);
        }
        if (o->checkpoint && !write_checkpoint(o, s, tag, log))
            rc = CLI_EXIT_ERROR;
        if (o->ncollect && !write_collected(o, s, done, log))
            rc = CLI_EXIT_ERROR;
        if (o->export_path) {
            st_error_clear(&err);
            if (st_scene_export_state(s, o->export_path, done, &err) != ST_OK) {
                run_failed(&r, "output", &err);
                cli_report(log, &err);
                rc = CLI_EXIT_ERROR;
            }
        } else {
            char path[ST_ERROR_PATH_MAX];
            if (find_non_finite(s, path, sizeof path)) {
                st_error_clear(&err);
                st_error_set(&err, ST_ESOLVER,
                             "the state holds NaN or infinity after %lu steps: the simulation "
                             "diverged (try a smaller --dt)",
                             done);
                st_error_set_path(&err, path);
                run_failed(&r, "step", &err);
                cli_report(log, &err);
                rc = CLI_EXIT_ERROR;
            }
        }
    }
    if (o->output_dir && rc != CLI_EXIT_ERROR) {
        st_error_clear(&err);
        if (cli_output_finish(&out, s, o->scene, done, r.wall, &err) != ST_OK) {
            run_failed(&r, "output", &err);
            cli_report(log, &err);
            rc = CLI_EXIT_ERROR;
        } else if (!o->quiet) {
            printf("wrote %lu VTU files and summary.json to %s\n", cli_output_files(&out),
                   out.absdir);
        }
    }
    free(tag);
    if (o->summary_json) {
        int errors1 = log->nerrors;
        write_summary_json(o, s, true, &r, stats, log);
        if (log->nerrors > errors1)
            rc = CLI_EXIT_ERROR;
    }
    cli_solver_stats_free(stats);
    st_scene_destroy(&s);
    cli_output_free(&out);
    return rc;
}

int cli_run(int argc, char **argv)
{
    const char **paths = calloc((size_t)argc + 1, sizeof *paths);
    const char **sets = calloc((size_t)argc + 1, sizeof *sets);
    if (!paths || !sets) {
        free(paths);
        free(sets);
        cli_error("out of memory");
        return CLI_EXIT_ERROR;
    }
    cli_collect_item *collect = calloc((size_t)argc + 1, sizeof *collect);
    run_opts o = {.plugin_paths = paths, .sets = sets, .collect = collect};
    int rc = collect ? parse_run_args(argc, argv, &o) : CLI_EXIT_ERROR;
    if (rc >= 0) {
        if (!collect)
            cli_error("out of memory");
        free(paths);
        free(sets);
        free(collect);
        return rc;
    }
    cli_log log = {.show_info = o.verbose, .show_warnings = true};
    /* The linear-algebra plugins read it when they register (e.g.
     * LinearSolver.Direct sets OpenBLAS's and OpenMP's threads). */
    char threads[24];
    snprintf(threads, sizeof threads, "%lu", o.threads);
    setenv("SETTEE_THREADS", threads, 1);
    st_runtime *rt = NULL;
    if (!cli_runtime_open(&rt, &log, o.plugin_paths, o.npaths)) {
        rc = CLI_EXIT_ERROR;
    } else {
        st_runtime_set_strict(rt, o.strict);
        rc = run_scene(&o, rt, &log);
    }
    st_runtime_destroy(&rt);
    cli_log_free(&log);
    free(paths);
    free(sets);
    free(collect);
    return rc;
}
