/* output.c - `settee run --output DIR [--every N]`: results of a run
 * without editing the scene.
 *
 * Before init, one VTKExporter (plugin IO.Mesh) joins the node of every
 * MechanicalObject, writing DIR/NODE-PATH.pvd and DIR/NODE-PATH<k>.vtu at
 * init and every N steps, with the node's own topology as cells (only the
 * elements of its highest dimension), the velocity and force as point data.
 * During the run the time and energies of each frame are recorded; at the
 * end DIR/summary.json gathers them with the run's counts and wall time.
 * Write failures are logged by the exporters as errors (the run fails). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Name of the exporters added to the scene. */
#define OUTPUT_EXPORTER "settee_output"

/* The file stem of a state: its node's path without the leading '/' (the
 * root: the root's name), and the state's name when its node has others. */
static void state_stem(const st_mstate *ms, char *out, size_t size)
{
    st_node *n = ms->base.node;
    char path[ST_ERROR_PATH_MAX];
    st_node_path(n, path, sizeof path);
    const char *p = path[1] ? path + 1 : st_node_name(n);
    size_t nstates = 0;
    for (size_t i = 0; i < st_node_object_count(n); i++)
        nstates += st_component_has_role(st_node_object(n, i), ST_ROLE_STATE);
    if (nstates > 1)
        snprintf(out, size, "%s_%s", p, ms->base.name);
    else
        snprintf(out, size, "%s", p);
}

/* The file stem of a visual model: its node's path, with its name when
 * the node holds a MechanicalObject or another component of its class. */
static void component_stem(const st_component *vm, char *out, size_t size)
{
    st_node *n = vm->node;
    char path[ST_ERROR_PATH_MAX];
    st_node_path(n, path, sizeof path);
    const char *p = path[1] ? path + 1 : st_node_name(n);
    size_t others = 0;
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        const st_component *c = st_node_object(n, i);
        others += c != vm && (c->cls == vm->cls || st_component_has_role(c, ST_ROLE_STATE));
    }
    if (others)
        snprintf(out, size, "%s_%s", p, vm->name);
    else
        snprintf(out, size, "%s", p);
}

static st_status set_field(st_component *c, const char *name, const char *value, st_error *err)
{
    st_status s = st_component_set(c, name, value, err);
    if (s != ST_OK)
        st_error_prefix(err, "--output: ");
    return s;
}

/* A fresh run into a folder an earlier run wrote: the frames of the same
 * states (STEM.pvd, STEM<k>.vtu) go first, so that no stale frame lies
 * beside the new PVD; says how many. A resumed run keeps them (they are
 * its own earlier frames). */
static void remove_stale_frames(const cli_output *o)
{
    size_t removed = 0;
    for (size_t i = 0; i < o->nstems; i++) {
        char path[PATH_MAX + ST_ERROR_PATH_MAX + 16];
        snprintf(path, sizeof path, "%s/%s.pvd", o->absdir, o->stems[i]);
        removed += unlink(path) == 0;
        char dir[PATH_MAX + ST_ERROR_PATH_MAX];
        snprintf(dir, sizeof dir, "%s/%s", o->absdir, o->stems[i]);
        char *slash = strrchr(dir, '/');
        const char *base = slash + 1;
        *slash = 0;
        DIR *d = opendir(dir);
        size_t blen = strlen(base);
        for (struct dirent *e; d && (e = readdir(d));) {
            const char *n = e->d_name;
            size_t len = strlen(n);
            if (len <= blen + 4 || strncmp(n, base, blen) || strcmp(n + len - 4, ".vtu"))
                continue;
            bool digits = true;
            for (size_t k = blen; k < len - 4; k++)
                digits = digits && n[k] >= '0' && n[k] <= '9';
            snprintf(path, sizeof path, "%s/%s", dir, n);
            if (digits && unlink(path) == 0)
                removed++;
        }
        if (d)
            closedir(d);
    }
    if (removed)
        fprintf(stderr,
                "settee: note: --output: removed %zu file%s of an earlier run of these states "
                "from %s\n",
                removed, removed == 1 ? "" : "s", o->dir);
}

st_status cli_output_prepare(cli_output *o, st_runtime *rt, st_scene *s, st_error *err)
{
    if (!cli_mkdirs(o->dir)) {
        if (errno == ENOTDIR)
            return st_error_set(err, ST_EIO, "--output: '%s' is not a folder", o->dir);
        return st_error_set(err, ST_EIO, "--output: cannot create the folder '%s': %s", o->dir,
                            strerror(errno));
    }
    if (!realpath(o->dir, o->absdir))
        return st_error_set(err, ST_EIO, "--output: '%s': %s", o->dir, strerror(errno));
    /* An old summary must not look like this run's. */
    char sum[PATH_MAX + 16];
    snprintf(sum, sizeof sum, "%s/summary.json", o->absdir);
    if (unlink(sum) != 0 && errno != ENOENT)
        return st_error_set(err, ST_EIO, "--output: cannot remove '%s': %s", sum,
                            strerror(errno));
    st_status ls = st_runtime_load_plugin(rt, "IO.Mesh", err);
    if (ls != ST_OK) {
        st_error_prefix(err, "--output needs the VTKExporter of plugin IO.Mesh: ");
        return ls;
    }
    size_t n = st_scene_states(s, NULL, 0), nv = st_scene_visual_models(s, NULL, 0);
    st_mstate **states = calloc(n ? n : 1, sizeof *states);
    st_component **visual = calloc(nv ? nv : 1, sizeof *visual);
    o->stems = calloc(n + nv ? n + nv : 1, sizeof *o->stems);
    o->exporters = calloc(n + nv ? n + nv : 1, sizeof *o->exporters);
    if (!states || !visual || !o->stems || !o->exporters) {
        free(states);
        free(visual);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    n = st_scene_states(s, states, n);
    nv = st_scene_visual_models(s, visual, nv);
    char every[32], name[64], text[PATH_MAX + ST_ERROR_PATH_MAX + 8];
    snprintf(every, sizeof every, "%lu", o->every);
    st_status st = ST_OK;
    for (size_t i = 0; i < n && st == ST_OK; i++) {
        st_mstate *ms = states[i];
        st_node *node = ms->base.node;
        char stem[ST_ERROR_PATH_MAX];
        state_stem(ms, stem, sizeof stem);
        o->stems[i] = strdup(stem);
        o->nstems = i + 1;
        if (!o->stems[i]) {
            st = st_error_set(err, ST_ENOMEM, "out of memory");
            break;
        }
        snprintf(name, sizeof name, "%s%zu", OUTPUT_EXPORTER, i);
        st_component *c = NULL;
        st = st_node_add_object(node, "VTKExporter", name, &c, err);
        if (st != ST_OK)
            break;
        o->exporters[o->nexporters++] = c;
        snprintf(text, sizeof text, "%s/%s", o->absdir, stem);
        st_component *topo = st_node_find(node, ST_ROLE_TOPOLOGY, ST_SEARCH_LOCAL);
        const char *kinds[] = {"edges", "triangles", "quads", "tetras", "hexas"};
        st = set_field(c, "filename", text, err);
        for (size_t k = 0; k < 5 && st == ST_OK; k++)
            st = set_field(c, kinds[k], topo ? "true" : "false", err);
        if (st == ST_OK && topo) {
            snprintf(text, sizeof text, "@%s", topo->name);
            st = set_field(c, "topology", text, err);
        }
        if (st == ST_OK) {
            snprintf(text, sizeof text, "@%s", ms->base.name);
            st = set_field(c, "mstate", text, err);
        }
        if (st == ST_OK) {
            snprintf(text, sizeof text, "velocity=@%s.velocity force=@%s.force", ms->base.name,
                     ms->base.name);
            st = set_field(c, "pointsDataFields", text, err);
        }
        if (st == ST_OK)
            st = set_field(c, "topDimensionOnly", "true", err);
        if (st == ST_OK)
            st = set_field(c, "exportAtBegin", "true", err);
        if (st == ST_OK)
            st = set_field(c, "exportEveryNumberOfSteps", every, err);
    }
    /* The visual models mappings move (SOFA's VisualModelImpl positions):
     * their positions and faces. */
    for (size_t i = 0; i < nv && st == ST_OK; i++) {
        st_component *vm = visual[i];
        char stem[ST_ERROR_PATH_MAX];
        component_stem(vm, stem, sizeof stem);
        o->stems[o->nstems] = strdup(stem);
        if (!o->stems[o->nstems]) {
            st = st_error_set(err, ST_ENOMEM, "out of memory");
            break;
        }
        o->nstems++;
        snprintf(name, sizeof name, "%s%zu", OUTPUT_EXPORTER, n + i);
        st_component *c = NULL;
        st = st_node_add_object(vm->node, "VTKExporter", name, &c, err);
        if (st != ST_OK)
            break;
        o->exporters[o->nexporters++] = c;
        snprintf(text, sizeof text, "%s/%s", o->absdir, stem);
        st = set_field(c, "filename", text, err);
        if (st == ST_OK) {
            snprintf(text, sizeof text, "@%s", vm->name);
            st = set_field(c, "visualModel", text, err);
        }
        const char *kinds[] = {"edges", "triangles", "quads"};
        for (size_t k = 0; k < 3 && st == ST_OK; k++)
            st = set_field(c, kinds[k], "true", err);
        if (st == ST_OK)
            st = set_field(c, "topDimensionOnly", "true", err);
        if (st == ST_OK)
            st = set_field(c, "exportAtBegin", "true", err);
        if (st == ST_OK)
            st = set_field(c, "exportEveryNumberOfSteps", every, err);
    }
    free(states);
    free(visual);
    if (st == ST_OK && !o->resuming)
        remove_stale_frames(o);
    return st;
}

/* Kinetic and potential energy summed over the scene's mechanical systems. */
static void scene_energies(st_scene *s, double *ke, double *pe)
{
    *ke = *pe = 0;
    size_t n = st_scene_states(s, NULL, 0);
    st_mstate *buf[256];
    st_mstate **states = n <= 256 ? buf : malloc(n * sizeof *states);
    if (!states)
        return;
    n = st_scene_states(s, states, n);
    for (size_t i = 0; i < n; i++) {
        st_system *sys = states[i]->system;
        bool seen = !sys || states[i]->mapped;
        for (size_t j = 0; j < i && !seen; j++)
            seen = states[j]->system == sys;
        if (seen)
            continue;
        *ke += st_system_kinetic_energy(sys);
        *pe += st_system_potential_energy(sys);
    }
    if (states != buf)
        free(states);
}

static void record(cli_output *o, st_scene *s, unsigned long step)
{
    if (o->nframes == o->capframes) {
        size_t cap = o->capframes ? 2 * o->capframes : 256;
        output_frame *f = realloc(o->frames, cap * sizeof *f);
        if (!f)
            return;
        o->frames = f;
        unsigned long *log = o->nsolvers ? realloc(o->its_log, cap * o->nsolvers * sizeof *log)
                                         : NULL;
        if (o->nsolvers && !log)
            return;
        o->its_log = log;
        o->capframes = cap;
    }
    for (size_t i = 0; i < o->nsolvers; i++) {
        o->its_log[o->nframes * o->nsolvers + i] = o->its_acc[i];
        o->its_acc[i] = 0;
    }
    output_frame *f = &o->frames[o->nframes++];
    f->step = step;
    f->time = st_scene_time(s);
    scene_energies(s, &f->kinetic, &f->potential);
}

/* The linear solvers with an "nbIterations" output (CG, PCG). */
static void find_solvers(cli_output *o, st_scene *s)
{
    st_node *root = st_scene_root(s);
    size_t n = st_node_find_all(root, ST_ROLE_LINSOLVER, ST_SEARCH_DOWN, NULL, 0);
    o->solvers = calloc(n ? n : 1, sizeof *o->solvers);
    o->solver_its = calloc(n ? n : 1, sizeof *o->solver_its);
    o->its_acc = calloc(n ? n : 1, sizeof *o->its_acc);
    if (!o->solvers || !o->solver_its || !o->its_acc)
        return;
    n = st_node_find_all(root, ST_ROLE_LINSOLVER, ST_SEARCH_DOWN, o->solvers, n);
    for (size_t i = 0; i < n; i++) {
        const st_field *f = st_component_field(o->solvers[i], "nbIterations");
        if (f && f->type == ST_T_UINT) {
            o->solvers[o->nsolvers] = o->solvers[i];
            o->solver_its[o->nsolvers++] = st_component_field_ptr(o->solvers[i], f);
        }
    }
}

void cli_output_begin(cli_output *o, st_scene *s, bool first_frame)
{
    find_solvers(o, s);
    if (first_frame)
        record(o, s, 0);
}

void cli_output_step(cli_output *o, st_scene *s, unsigned long done)
{
    for (size_t i = 0; i < o->nsolvers; i++)
        o->its_acc[i] += *o->solver_its[i];
    if (o->every && done % o->every == 0)
        record(o, s, done);
}

/* Files written so far by the exporters ("filesWritten"). */
unsigned long cli_output_files(const cli_output *o)
{
    unsigned long total = 0;
    for (size_t i = 0; i < o->nexporters; i++) {
        const st_field *f = st_component_field(o->exporters[i], "filesWritten");
        if (f)
            total += *(unsigned *)st_component_field_ptr(o->exporters[i], f);
    }
    return total;
}

st_status cli_output_finish(cli_output *o, st_scene *s, const char *scene_file,
                            unsigned long done, double wall, st_error *err)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/summary.json", o->absdir);
    /* Written whole, then renamed over the file (cli_write_file_atomic). */
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return st_error_set(err, ST_EIO, "cannot write '%s': %s", path, strerror(errno));
    jw w = {.f = mem};
    jw_object(&w, NULL);
    jw_string(&w, "scene", scene_file);
    jw_uint(&w, "steps", done);
    jw_real(&w, "time", st_scene_time(s));
    jw_real(&w, "wall_time", wall);
    jw_uint(&w, "every", o->every);
    if (o->resumed_at)
        jw_uint(&w, "resumed_at", o->resumed_at);
    jw_array(&w, "outputs");
    for (size_t i = 0; i < o->nexporters; i++) {
        char cpath[ST_ERROR_PATH_MAX], pvd[ST_ERROR_PATH_MAX + 8];
        const st_field *mf = st_component_field(o->exporters[i], "mstate");
        st_component *ms = mf ? *(st_component **)st_component_field_ptr(o->exporters[i], mf)
                              : NULL;
        const st_field *ff = st_component_field(o->exporters[i], "filesWritten");
        jw_object(&w, NULL);
        jw_string(&w, "state", ms ? st_component_path(ms, cpath, sizeof cpath) : NULL);
        snprintf(pvd, sizeof pvd, "%s.pvd", o->stems[i]);
        jw_string(&w, "pvd", pvd);
        jw_uint(&w, "files", ff ? *(unsigned *)st_component_field_ptr(o->exporters[i], ff) : 0);
        jw_end_object(&w);
    }
    jw_end_array(&w);
    jw_array(&w, "frames");
    for (size_t i = 0; i < o->nframes; i++) {
        const output_frame *fr = &o->frames[i];
        jw_object(&w, NULL);
        jw_uint(&w, "step", fr->step);
        jw_real(&w, "time", fr->time);
        jw_real(&w, "kinetic_energy", fr->kinetic);
        jw_real(&w, "potential_energy", fr->potential);
        if (o->nsolvers) {
            jw_object(&w, "iterations");
            for (size_t k = 0; k < o->nsolvers; k++) {
                char spath[ST_ERROR_PATH_MAX];
                st_component_path(o->solvers[k], spath, sizeof spath);
                jw_uint(&w, spath, o->its_log[i * o->nsolvers + k]);
            }
            jw_end_object(&w);
        }
        jw_end_object(&w);
    }
    jw_end_array(&w);
    jw_end_object(&w);
    fputc('\n', mem);
    bool ok = fclose(mem) == 0 && buf && cli_write_file_atomic(path, buf, len);
    int e = errno;
    free(buf);
    if (!ok)
        return st_error_set(err, ST_EIO, "cannot write '%s': %s", path, strerror(e));
    return ST_OK;
}

void cli_output_free(cli_output *o)
{
    for (size_t i = 0; i < o->nstems; i++)
        free(o->stems[i]);
    free(o->stems);
    free(o->exporters);
    free(o->frames);
    free(o->solvers);
    free(o->solver_its);
    free(o->its_acc);
    free(o->its_log);
    o->solvers = NULL;
    o->solver_its = NULL;
    o->its_acc = o->its_log = NULL;
    o->stems = NULL;
    o->exporters = NULL;
    o->frames = NULL;
}
