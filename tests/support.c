/* support.c - helpers shared by the test suites. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void collect(st_log_level level, const char *where, const char *path, const char *msg,
                    void *ud)
{
    test_rt *t = ud;
    static const char *names[] = {"error", "warning", "info"};
    int k = snprintf(t->log + t->len, sizeof t->log - t->len, "%s|%s|%s|%s\n", names[level],
                     where ? where : "", path ? path : "", msg);
    if (k > 0 && t->len + (size_t)k < sizeof t->log)
        t->len += (size_t)k;
    if (level == ST_LOG_ERROR)
        t->nerrors++;
}

void test_log_clear(test_rt *t)
{
    t->log[0] = 0;
    t->len = 0;
}

void test_rt_open(test_rt *t)
{
    memset(t, 0, sizeof *t);
    st_error err = {0};
    if (st_runtime_create(&t->rt, &err) != ST_OK) {
        fprintf(stderr, "runtime: %s\n", err.msg);
        abort();
    }
    st_runtime_set_log(t->rt, collect, t);
}

void test_rt_close(test_rt *t) { st_runtime_destroy(&t->rt); }

st_status test_load_string(test_rt *t, const char *yaml, st_scene **out, st_error *err)
{
    return st_scene_load_string(t->rt, yaml, strlen(yaml), "test.yaml", out, err);
}

const char *test_write_temp(const char *name, const char *text)
{
    static char paths[8][512];
    static int slot;
    char *p = paths[slot++ % 8];
    snprintf(p, 512, "%s/settee-test-%d-%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getpid(), name);
    FILE *f = fopen(p, "w");
    if (!f)
        abort();
    fputs(text, f);
    fclose(f);
    return p;
}

char *test_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t n = 0, cap = 4096;
    char *buf = malloc(cap);
    for (size_t k; buf && (k = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
        n += k;
        if (cap - n - 1 == 0) {
            char *q = realloc(buf, 2 * cap);
            if (!q)
                free(buf);
            buf = q;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = 0;
    return buf;
}

int test_run(const char *cmd, char *out, size_t size)
{
    char full[4096];
    snprintf(full, sizeof full, "%s 2>&1", cmd);
    FILE *p = popen(full, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, size - 1, p);
    out[n] = 0;
    /* Drain what does not fit, so that a long output does not end the
     * command with SIGPIPE. */
    char sink[4096];
    while (fread(sink, 1, sizeof sink, p) > 0)
        ;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int test_settee_run_in(const char *dir, const char *scene, const char *args, char *out,
                       size_t size)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && SETTEE_PLUGIN_PATH=%s %s run '%s' --no-progress -q %s 2>&1", dir,
             SETTEE_BUILD_PLUGIN_DIR, SETTEE_CLI, scene, args);
    return test_run(cmd, out, size);
}

bool test_same_files_in(const char *dir, const char *a, const char *b)
{
    char cmd[1400], o[256];
    snprintf(cmd, sizeof cmd, "cd '%s' && test -f '%s' && test -f '%s' && cmp '%s' '%s'", dir, a,
             b, a, b);
    return test_run(cmd, o, sizeof o) == 0;
}

st_status test_load_init(test_rt *t, const char *text, const char *file, st_scene **out,
                         st_error *err)
{
    *out = NULL;
    st_status st = st_scene_load_string(t->rt, text, strlen(text), file, out, err);
    if (st == ST_OK)
        st = st_scene_init(*out, err);
    if (st != ST_OK)
        st_scene_destroy(out);
    return st;
}

st_component *test_find_object(st_scene *s, const char *name)
{
    st_component *all[64];
    size_t n = st_node_find_all(st_scene_root(s), ST_ROLE_ANY, ST_SEARCH_DOWN, all, 64);
    for (size_t i = 0; i < n && i < 64; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

extern void dgesv_(int *n, int *nrhs, double *a, int *lda, int *ipiv, double *b, int *ldb,
                   int *info);

int test_dense_solve(int n, double *a, double *b)
{
    int *ipiv = malloc((size_t)n * sizeof *ipiv), one = 1, info = -1;
    if (!ipiv)
        return -1;
    dgesv_(&n, &one, a, &n, ipiv, b, &n, &info);
    free(ipiv);
    return info;
}

void test_make_dir(char *dir, size_t size, const char *prefix)
{
    snprintf(dir, size, "%s/%s-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", prefix);
    if (!mkdtemp(dir))
        abort();
}

void test_remove_dir(const char *dir)
{
    char cmd[1024], out[64];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    (void)test_run(cmd, out, sizeof out);
}

const char *test_resume_failure(const char *dir, const char *scene, int total, int at, char *out,
                                size_t size)
{
    static char why[256];
    char args[3][160];
    snprintf(args[0], sizeof args[0], "-n %d --export-state full.json", total);
    snprintf(args[1], sizeof args[1], "-n %d --checkpoint run.ck --export-state atcheckpoint.json",
             at);
    snprintf(args[2], sizeof args[2], "-n %d --resume run.ck --export-state resumed.json", total);
    for (int i = 0; i < 3; i++)
        if (test_settee_run_in(dir, scene, args[i], out, size) != 0) {
            snprintf(why, sizeof why, "%s: `settee run %s` failed: see its output", scene,
                     args[i]);
            return why;
        }
    if (!test_same_files_in(dir, "full.json", "resumed.json")) {
        snprintf(why, sizeof why, "%s: the resumed run differs from the uninterrupted one", scene);
        return why;
    }
    if (test_same_files_in(dir, "atcheckpoint.json", "resumed.json")) {
        snprintf(why, sizeof why, "%s: the resumed run did not step", scene);
        return why;
    }
    return NULL;
}

bool test_write_in_dir(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

const char *test_beam_yaml(const char *extra_plugins, const char *ode, const char *solver)
{
    static char yaml[8192];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  gravity: [0, -9.81, 0]\n"
             "  dt: 0.01\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Direct,\n"
             "                      LinearSolver.Iterative, Mass, Topology, SolidMechanics.Spring,\n"
             "                      Constraint.Projective, Engine.Select%s]}\n"
             "    - DefaultAnimationLoop: {}\n"
             "  children:\n"
             "    - name: Beam\n"
             "      objects:\n"
             "        - %s\n"
             "        - %s\n"
             "        - MechanicalObject: {name: dofs}\n"
             "        - RegularGridTopology: {name: grid, nx: 4, ny: 4, nz: 11,\n"
             "                                xmin: -1.5, xmax: 1.5, ymin: -1.5, ymax: 1.5,\n"
             "                                zmin: 0, zmax: 10}\n"
             "        - UniformMass: {totalMass: 15}\n"
             "        - BoxROI: {name: box, box: [-1.5, -1.5, 0, 1.5, 1.5, 0.0001]}\n"
             "        - FixedProjectiveConstraint: {name: fixed, indices: \"@box.indices\"}\n"
             "        - MeshSpringForceField: {name: springs, stiffness: 300}\n",
             extra_plugins, ode, solver);
    return yaml;
}

int test_exported_points(const char *text)
{
    const char *p = text ? strstr(text, "\"position\"") : NULL;
    const char *end = p ? strstr(p, "\"velocity\"") : NULL;
    if (!p || !end)
        return -1;
    int points = -1; /* the list's own bracket */
    for (const char *q = p; q < end; q++)
        points += *q == '[';
    return points;
}
