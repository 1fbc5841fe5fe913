/* plugin.c - the plugin loader: the search path, finding a plugin by name,
 * file or provided SOFA module name, dlopen with ABI checks, registration
 * into the runtime's registry, `which plugin provides this class`, and
 * unloading when the runtime is destroyed. */
#include <dirent.h>
#include <errno.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plugin/loader.h"

#ifndef SETTEE_BUILD_LIB_DIR
#define SETTEE_BUILD_LIB_DIR ""
#endif
#ifndef SETTEE_BUILD_PLUGIN_DIR
#define SETTEE_BUILD_PLUGIN_DIR ""
#endif
#ifndef SETTEE_INSTALL_PLUGIN_DIR
#define SETTEE_INSTALL_PLUGIN_DIR ""
#endif

/* Under AddressSanitizer shared objects stay mapped after dlclose, so that
 * leak reports can name plugin functions and memory that a plugin's
 * dependencies keep in their globals (BLAS/SuiteSparse initialisation) is
 * not reported as leaked when they unmap. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ST_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(ST_UNDER_ASAN)
#define PLUGIN_DLOPEN_FLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)
#else
#define PLUGIN_DLOPEN_FLAGS (RTLD_NOW | RTLD_LOCAL)
#endif

#define SOFA_COMPONENT_PREFIX "Sofa.Component."
#define PLUGIN_HINT                                                                                \
    "hint: add the plugin's directory with --plugin-path DIR or "                                  \
    "SETTEE_PLUGIN_PATH=DIR[:DIR...]"

/* The descriptor bytes a plugin must provide: everything up to and
 * including register_classes (all of ABI 1.0). */
#define DESC_MIN_SIZE (offsetof(st_plugin_desc, register_classes) + sizeof(st_plugin_register_fn))

/* ---- small helpers ---- */

/* A growable list of owned strings. */
typedef struct strlist {
    char **v;
    size_t n, cap;
} strlist;

static void sl_free(strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        st_free(l->v[i]);
    st_free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

static bool sl_push_n(strlist *l, const char *s, size_t len)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        char **v = st_realloc(l->v, cap * sizeof *v);
        if (!v)
            return false;
        l->v = v;
        l->cap = cap;
    }
    char *copy = st_malloc(len + 1);
    if (!copy)
        return false;
    memcpy(copy, s, len);
    copy[len] = '\0';
    l->v[l->n++] = copy;
    return true;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A fixed-size text accumulator that records truncation. */
typedef struct textbuf {
    char *s;
    size_t len, size;
    bool full;
} textbuf;

static void tb_add(textbuf *t, const char *fmt, ...) ST_PRINTF(2, 3);
static void tb_add(textbuf *t, const char *fmt, ...)
{
    if (t->full)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->s + t->len, t->size - t->len, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= t->size - t->len) {
        t->s[t->len] = '\0'; /* drop the partial piece */
        t->full = true;
        return;
    }
    t->len += (size_t)k;
}

static bool is_regular_file(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A name that is a file: contains a slash or ends in ".so". */
static bool looks_like_path(const char *name)
{
    return strchr(name, '/') != NULL || ends_with(name, ".so");
}

static bool join_path(char *out, size_t size, const char *dir, const char *file)
{
    int k = snprintf(out, size, "%s/%s", dir, file);
    return k > 0 && (size_t)k < size;
}

/* The file name of a path (after the last '/'). */
static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

const char *st__plugin_short_name(const char *name)
{
    size_t n = strlen(SOFA_COMPONENT_PREFIX);
    if (name && strncmp(name, SOFA_COMPONENT_PREFIX, n) == 0 && name[n] != '\0')
        return name + n;
    return name;
}

static bool same_plugin_name(const char *a, const char *b)
{
    return a && b && strcmp(st__plugin_short_name(a), st__plugin_short_name(b)) == 0;
}

/* True when a descriptor's name or provides list answers to name. */
static bool answers_to(const char *pname, const char *const *provides, const char *name)
{
    if (same_plugin_name(pname, name))
        return true;
    for (size_t i = 0; provides && provides[i]; i++)
        if (same_plugin_name(provides[i], name))
            return true;
    return false;
}

/* ---- the search path ---- */

/* Two directory names denote the same directory (by realpath when both
 * exist, else textually). */
static bool same_dir(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return true;
    char ra[PATH_MAX], rb[PATH_MAX];
    if (!realpath(a, ra) || !realpath(b, rb))
        return false;
    return strcmp(ra, rb) == 0;
}

/* Appends dir (len bytes, trailing slashes dropped) unless empty or already
 * listed. Returns false only when out of memory. */
static bool add_dir(strlist *l, const char *dir, size_t len)
{
    while (len > 1 && dir[len - 1] == '/')
        len--;
    if (len == 0)
        return true;
    char tmp[PATH_MAX];
    if (len >= sizeof tmp)
        return true; /* cannot name a real directory */
    memcpy(tmp, dir, len);
    tmp[len] = '\0';
    for (size_t i = 0; i < l->n; i++)
        if (same_dir(l->v[i], tmp))
            return true;
    return sl_push_n(l, tmp, len);
}

static bool add_dir_str(strlist *l, const char *dir) { return add_dir(l, dir, strlen(dir)); }

/* The directory holding libsettee itself, found with dladdr. */
static bool self_lib_dir(char *out, size_t size)
{
    Dl_info info;
    if (!dladdr((void *)&st_runtime_plugin_dirs, &info) || !info.dli_fname)
        return false;
    char real[PATH_MAX];
    if (!realpath(info.dli_fname, real))
        return false;
    char *slash = strrchr(real, '/');
    if (!slash)
        return false;
    *slash = '\0';
    if (slash == real)
        strcpy(real, "/");
    int k = snprintf(out, size, "%s", real);
    return k > 0 && (size_t)k < size;
}

/* Builds the full search list into l. Returns false when out of memory. */
static bool build_dirs(const st_runtime *rt, strlist *l)
{
    for (size_t i = 0; i < rt->npaths; i++)
        if (!add_dir_str(l, rt->paths[i]))
            return false;

    const char *env = getenv("SETTEE_PLUGIN_PATH");
    while (env && *env) {
        const char *colon = strchr(env, ':');
        size_t len = colon ? (size_t)(colon - env) : strlen(env);
        if (!add_dir(l, env, len))
            return false;
        env = colon ? colon + 1 : NULL;
    }

    char self[PATH_MAX];
    bool have_self = self_lib_dir(self, sizeof self);
    if (have_self && SETTEE_BUILD_LIB_DIR[0] != '\0' && same_dir(self, SETTEE_BUILD_LIB_DIR) &&
        SETTEE_BUILD_PLUGIN_DIR[0] != '\0') {
        if (!add_dir_str(l, SETTEE_BUILD_PLUGIN_DIR))
            return false;
    }
    if (have_self) {
        char rel[PATH_MAX];
        if (join_path(rel, sizeof rel, strcmp(self, "/") == 0 ? "" : self, "settee/plugins") &&
            !add_dir_str(l, rel))
            return false;
    }
    if (SETTEE_INSTALL_PLUGIN_DIR[0] != '\0' && !add_dir_str(l, SETTEE_INSTALL_PLUGIN_DIR))
        return false;
    return true;
}

/* Rebuilds rt->dirs, keeping the old array (and the pointers handed out)
 * when nothing changed or memory runs out. False when out of memory. */
static bool refresh_dirs(st_runtime *rt)
{
    strlist l = {0};
    if (!build_dirs(rt, &l)) {
        sl_free(&l);
        return false;
    }
    bool same = l.n == rt->ndirs;
    for (size_t i = 0; same && i < l.n; i++)
        same = strcmp(l.v[i], rt->dirs[i]) == 0;
    if (same) {
        sl_free(&l);
        return true;
    }
    for (size_t i = 0; i < rt->ndirs; i++)
        st_free(rt->dirs[i]);
    st_free(rt->dirs);
    rt->dirs = l.v;
    rt->ndirs = l.n;
    return true;
}

static st_status dirs_oom(st_error *err)
{
    return st_error_set(err, ST_ENOMEM, "out of memory building the plugin search path");
}

st_status st_runtime_add_plugin_path(st_runtime *rt, const char *dir, st_error *err)
{
    if (!rt || !dir || !*dir)
        return st_error_set(err, ST_EINVAL, "plugin path: expected a directory name, got %s",
                            dir ? "an empty string" : "NULL");
    for (size_t i = 0; i < rt->npaths; i++)
        if (strcmp(rt->paths[i], dir) == 0)
            return ST_OK;
    char **v = st_realloc(rt->paths, (rt->npaths + 1) * sizeof *v);
    if (!v)
        return st_error_set(err, ST_ENOMEM, "out of memory adding plugin path '%s'", dir);
    rt->paths = v;
    v[rt->npaths] = st_strdup(dir);
    if (!v[rt->npaths])
        return st_error_set(err, ST_ENOMEM, "out of memory adding plugin path '%s'", dir);
    rt->npaths++;
    return ST_OK;
}

size_t st_runtime_plugin_dirs(st_runtime *rt, const char **out, size_t max)
{
    if (!rt)
        return 0;
    (void)refresh_dirs(rt); /* out of memory: the previous list */
    for (size_t i = 0; out && i < rt->ndirs && i < max; i++)
        out[i] = rt->dirs[i];
    return rt->ndirs;
}

/* Lists the lib*.so files of dir, sorted. Returns false when out of memory
 * (a missing directory is an empty list). */
static bool list_plugin_files(const char *dir, strlist *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return true;
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strncmp(n, "lib", 3) != 0 || !ends_with(n, ".so") || strlen(n) <= 6)
            continue;
        char path[PATH_MAX];
        if (!join_path(path, sizeof path, dir, n) || !is_regular_file(path))
            continue;
        ok = sl_push_n(out, path, strlen(path));
    }
    closedir(d);
    if (ok && out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, cmp_str);
    return ok;
}

/* ---- lookups in the loaded set ---- */

static st_plugin_rec *find_by_file(const st_runtime *rt, const char *real)
{
    for (size_t i = 0; i < rt->nplugins; i++)
        if (rt->plugins[i]->handle && rt->plugins[i]->file &&
            strcmp(rt->plugins[i]->file, real) == 0)
            return rt->plugins[i];
    return NULL;
}

static st_plugin_rec *find_by_desc_name(const st_runtime *rt, const char *name)
{
    for (size_t i = 0; i < rt->nplugins; i++)
        if (rt->plugins[i]->info.name && strcmp(rt->plugins[i]->info.name, name) == 0)
            return rt->plugins[i];
    return NULL;
}

size_t st_runtime_plugin_count(const st_runtime *rt) { return rt ? rt->nplugins : 0; }

const st_plugin_info *st_runtime_plugin(const st_runtime *rt, size_t i)
{
    if (!rt || i >= rt->nplugins)
        return NULL;
    return &rt->plugins[i]->info;
}

const st_plugin_info *st_runtime_find_plugin(const st_runtime *rt, const char *name)
{
    if (!rt || !name || !*name)
        return NULL;
    if (looks_like_path(name)) {
        char real[PATH_MAX];
        if (realpath(name, real)) {
            st_plugin_rec *r = find_by_file(rt, real);
            if (r)
                return &r->info;
        }
    }
    for (size_t i = 0; i < rt->nplugins; i++) {
        const st_plugin_rec *r = rt->plugins[i];
        if (answers_to(r->info.name, r->info.provides, name))
            return &r->info;
    }
    return NULL;
}

size_t st_runtime_plugin_classes(const st_runtime *rt, const char *plugin, const st_class **out,
                                 size_t max)
{
    const st_plugin_info *pi = st_runtime_find_plugin(rt, plugin);
    if (!pi || !rt->reg)
        return 0;
    size_t n = st_registry_count(rt->reg), k = 0;
    for (size_t i = 0; i < n; i++) {
        const st_class *cls = st_registry_class(rt->reg, i);
        const char *p = cls ? st_registry_class_plugin(rt->reg, cls) : NULL;
        if (!p || strcmp(p, pi->name) != 0)
            continue;
        if (out && k < max)
            out[k] = cls;
        k++;
    }
    return k;
}

/* ---- threads of the plugins' libraries ---- */

/* OpenMP (libgomp) and OpenBLAS read their thread counts from the
 * environment once, when they are loaded: inside the dlopen of the first
 * plugin that links them (LinearSolver.Direct). settee's default
 * (SETTEE_THREADS, else 1) is handed to them there, so that it holds for
 * the CLI and for programs that embed libsettee alike:
 *  - OMP_THREAD_LIMIT caps every OpenMP team, including CHOLMOD's loops that
 *    ask for 4 threads with a num_threads clause, which neither
 *    omp_set_num_threads (the plugin's) nor OMP_NUM_THREADS limit;
 *  - OPENBLAS_NUM_THREADS keeps OpenBLAS from starting its thread pool.
 * A variable the user set is left alone; the ones set here are removed right
 * after the dlopen, so that child processes (sweep cases) see the user's
 * environment. Once libgomp is loaded its limit is fixed for the process
 * (docs/solvers.md). */
typedef struct thread_env {
    bool omp, blas; /* set here, to remove after the dlopen */
} thread_env;

static pthread_mutex_t thread_env_lock = PTHREAD_MUTEX_INITIALIZER;

static void thread_env_push(thread_env *te)
{
    te->omp = te->blas = false;
    char buf[16];
    snprintf(buf, sizeof buf, "%u", st_threads_default());
    if (!getenv("OMP_THREAD_LIMIT"))
        te->omp = setenv("OMP_THREAD_LIMIT", buf, 0) == 0;
    if (!getenv("OPENBLAS_NUM_THREADS"))
        te->blas = setenv("OPENBLAS_NUM_THREADS", buf, 0) == 0;
}

static void thread_env_pop(const thread_env *te)
{
    if (te->omp)
        unsetenv("OMP_THREAD_LIMIT");
    if (te->blas)
        unsetenv("OPENBLAS_NUM_THREADS");
}

/* ---- opening a shared object ---- */

/* The plugin name a file stands for: its base name without "lib" and
 * ".so", as a short name ("libMass.so" and "Sofa.Component.Mass.so" give
 * "Mass"). Returns false when it does not fit buf. */
static bool file_plugin_name(const char *file, char *buf, size_t size)
{
    const char *b = base_name(file);
    if (strncmp(b, "lib", 3) == 0 && strlen(b) > 6)
        b += 3;
    size_t len = strlen(b);
    if (ends_with(b, ".so"))
        len -= 3;
    if (len >= size)
        return false;
    memcpy(buf, b, len);
    buf[len] = '\0';
    memmove(buf, st__plugin_short_name(buf), strlen(st__plugin_short_name(buf)) + 1);
    return true;
}

/* dlopens file (a resolved path, already checked by st__plugin_file_check),
 * reads its descriptor and checks the ABI, the descriptor's mandatory fields
 * and that its name agrees with the file's. On success the caller owns
 * *handle; on failure nothing stays open. */
static st_status dlopen_plugin(st_runtime *rt, const char *file, void **handle,
                               const st_plugin_desc **desc, st_error *err)
{
    *handle = NULL;
    *desc = NULL;
    rt->plugin_opens++;
    thread_env te;
    pthread_mutex_lock(&thread_env_lock);
    thread_env_push(&te);
    dlerror();
    void *h = dlopen(file, PLUGIN_DLOPEN_FLAGS);
    thread_env_pop(&te);
    pthread_mutex_unlock(&thread_env_lock);
    if (!h) {
        const char *why = dlerror();
        return st_error_set(err, ST_EPLUGIN,
                            "cannot load plugin file %s: %s (is it a settee plugin built for "
                            "this system?)",
                            file, why ? why : "unknown dlopen error");
    }
    dlerror();
    const st_plugin_desc *d = (const st_plugin_desc *)dlsym(h, ST_PLUGIN_SYMBOL);
    if (!d) {
        dlclose(h);
        return st_error_set(err, ST_EPLUGIN,
                            "%s is not a settee plugin: it does not export the symbol '%s' "
                            "(define it with ST_PLUGIN_DEFINE from <settee/plugin.h>)",
                            file, ST_PLUGIN_SYMBOL);
    }
    st_status s = ST_OK;
    if (d->abi_major != ST_ABI_MAJOR) {
        s = st_error_set(err, ST_EABI,
                         "plugin %s was built for settee ABI %u.%u; this settee provides ABI "
                         "%u.%u: the ABI major version must match, rebuild the plugin against "
                         "this settee",
                         file, (unsigned)d->abi_major, (unsigned)d->abi_minor, ST_ABI_MAJOR,
                         ST_ABI_MINOR);
    } else if (d->abi_minor > ST_ABI_MINOR) {
        s = st_error_set(err, ST_EABI,
                         "plugin %s was built for settee ABI %u.%u; this settee provides ABI "
                         "%u.%u: the plugin needs a newer settee (upgrade settee or rebuild the "
                         "plugin against this one)",
                         file, (unsigned)d->abi_major, (unsigned)d->abi_minor, ST_ABI_MAJOR,
                         ST_ABI_MINOR);
    } else if (d->struct_size < DESC_MIN_SIZE) {
        s = st_error_set(err, ST_EABI,
                         "plugin %s has a descriptor of %u bytes; settee ABI %u.%u needs at "
                         "least %u: the descriptor is damaged or was not made with "
                         "ST_PLUGIN_DEFINE",
                         file, (unsigned)d->struct_size, (unsigned)d->abi_major,
                         (unsigned)d->abi_minor, (unsigned)DESC_MIN_SIZE);
    } else if (!d->name || !*d->name) {
        s = st_error_set(err, ST_EPLUGIN, "plugin %s: its descriptor has no name", file);
    } else if (!d->register_classes) {
        s = st_error_set(err, ST_EPLUGIN,
                         "plugin '%s' (%s): its descriptor has no registration function",
                         d->name, file);
    } else {
        char fname[256];
        const char *dname = st__plugin_short_name(d->name);
        if (file_plugin_name(file, fname, sizeof fname) && strcmp(fname, dname) != 0)
            s = st_error_set(err, ST_EPLUGIN,
                             "plugin file %s calls itself '%s': a plugin named '%s' must be in a "
                             "file lib%s.so, and %s stands for a plugin '%s' (rename the file or "
                             "fix the name given to ST_PLUGIN_DEFINE)",
                             file, d->name, d->name, dname, base_name(file), fname);
    }
    if (s != ST_OK) {
        dlclose(h);
        return s;
    }
    *handle = h;
    *desc = d;
    return ST_OK;
}

/* Checks the file (st__plugin_file_check), then dlopen_plugin. */
static st_status open_plugin(st_runtime *rt, const char *file, void **handle,
                             const st_plugin_desc **desc, st_error *err)
{
    *handle = NULL;
    *desc = NULL;
    ST_TRY(st__plugin_file_check(file, err));
    return dlopen_plugin(rt, file, handle, desc, err);
}

/* open_plugin for the scans that look for a plugin by what it provides:
 * a damaged file is skipped with a warning naming it, other refusals
 * silently (the file is simply not the one looked for). */
static bool scan_open(st_runtime *rt, const char *file, void **handle,
                      const st_plugin_desc **desc)
{
    st_error e;
    st_error_clear(&e);
    if (st__plugin_file_check(file, &e) != ST_OK) {
        st__log(rt, ST_LOG_WARNING, ST_NO_MARK, "", "skipping %s", e.msg);
        return false;
    }
    return dlopen_plugin(rt, file, handle, desc, &e) == ST_OK;
}

/* Registers an opened plugin into the runtime and records it. Takes
 * ownership of handle (closed on failure or when the plugin is already
 * loaded under the same name). */
static st_status register_plugin(st_runtime *rt, void *handle, const st_plugin_desc *desc,
                                 const char *file, st_error *err)
{
    st_plugin_rec *dup = find_by_desc_name(rt, desc->name);
    if (dup) {
        bool same = dup->handle == handle;
        st_status s = ST_OK;
        /* The message reads the descriptor: write it before dlclose unmaps it. */
        if (!same)
            s = st_error_set(err, ST_EPLUGIN,
                             "plugin file %s claims the name '%s', which the plugin loaded from "
                             "%s already has: two plugins cannot share a name (remove one file)",
                             file, desc->name, dup->info.file ? dup->info.file : "(built in)");
        dlclose(handle);
        return s;
    }

    st_plugin_rec **v = st_realloc(rt->plugins, (rt->nplugins + 1) * sizeof *v);
    if (v)
        rt->plugins = v;
    st_plugin_rec *rec = v ? st_calloc(1, sizeof *rec) : NULL;
    char *fcopy = rec ? st_strdup(file) : NULL;
    if (!fcopy) {
        st_free(rec);
        dlclose(handle);
        return st_error_set(err, ST_ENOMEM, "out of memory loading plugin %s", file);
    }
    rec->handle = handle;
    rec->file = fcopy;
    rec->desc = desc;
    rec->info.name = desc->name;
    rec->info.file = fcopy;
    rec->info.version = desc->version ? desc->version : "";
    rec->info.description = desc->description ? desc->description : "";
    rec->info.license = desc->license ? desc->license : "";
    rec->info.abi_major = desc->abi_major;
    rec->info.abi_minor = desc->abi_minor;
    rec->info.provides = desc->provides;

    st_error rerr;
    st_error_clear(&rerr);
    st__registry_set_current(rt->reg, desc->name, fcopy);
    st_status s = desc->register_classes(rt->reg, &rerr);
    st__registry_set_current(rt->reg, NULL, NULL);
    if (s != ST_OK) {
        st__registry_remove_plugin(rt->reg, desc->name);
        const char *why = rerr.msg[0] ? rerr.msg : "(the plugin gave no message)";
        /* Out of memory stays out of memory: the plugin is not at fault. */
        st_status code = s == ST_ENOMEM ? ST_ENOMEM : ST_EPLUGIN;
        st_error_set(err, code, "plugin '%s' (%s) failed to register its classes: %s",
                     desc->name, fcopy, why);
        dlclose(handle);
        st_free(fcopy);
        st_free(rec);
        return code;
    }
    rt->plugins[rt->nplugins++] = rec;
    return ST_OK;
}

/* Loads a plugin file (any path); a file already loaded is a no-op. */
static st_status load_file(st_runtime *rt, const char *path, st_error *err)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        return st_error_set(err, ST_EPLUGIN, "plugin file %.*s%s: %s", 300, path,
                            strlen(path) > 300 ? "..." : "", strerror(errno));
    if (!is_regular_file(real))
        return st_error_set(err, ST_EPLUGIN, "plugin file %s is not a regular file", path);
    if (find_by_file(rt, real))
        return ST_OK;
    void *h;
    const st_plugin_desc *d;
    ST_TRY(open_plugin(rt, real, &h, &d, err));
    return register_plugin(rt, h, d, real, err);
}

/* ---- the index of installed plugins (plugin_index.c) ---- */

unsigned long st__plugin_open_count(const st_runtime *rt) { return rt ? rt->plugin_opens : 0; }

/* Registers an opened plugin into a scratch registry: its classes (when
 * the registration succeeds) and readers go into e. False when out of
 * memory. */
static bool index_classes(const st_plugin_desc *d, const char *file, st__pindex_entry *e)
{
    st_registry *scratch = NULL;
    st_error er;
    st_error_clear(&er);
    if (st__registry_create(&scratch, &er) != ST_OK)
        return false;
    st__registry_set_current(scratch, d->name, file);
    st_status s = d->register_classes(scratch, &er);
    st__registry_set_current(scratch, NULL, NULL);
    bool ok = true;
    const char *n;
    for (size_t i = 0; ok && s == ST_OK && (n = st__registry_name(scratch, i)) != NULL; i++)
        ok = st__pindex_entry_add(e, ST__PINDEX_CLASS, n, strlen(n));
    for (size_t i = 0; ok && s == ST_OK && (n = st__registry_reader_ext(scratch, i)) != NULL; i++)
        ok = st__pindex_entry_add(e, ST__PINDEX_READER, n, strlen(n));
    st__registry_destroy(&scratch);
    return ok;
}

/* Opens a new or changed plugin file to index it. NULL when out of memory;
 * an entry with ok false for a file that does not load (a damaged file is
 * reported, as by the scans). */
static st__pindex_entry *index_file(st_runtime *rt, const char *real, const st__pindex_key *key)
{
    st__pindex_entry *e = st_calloc(1, sizeof *e);
    if (!e || !(e->file = st_strdup(real))) {
        st_free(e);
        return NULL;
    }
    e->key = *key;
    void *h;
    const st_plugin_desc *d;
    if (!scan_open(rt, real, &h, &d))
        return e;
    bool ok = (e->name = st_strdup(d->name)) != NULL;
    for (size_t i = 0; ok && d->provides && d->provides[i]; i++)
        ok = st__pindex_entry_add(e, ST__PINDEX_PROVIDES, d->provides[i],
                                  strlen(d->provides[i]));
    ok = ok && index_classes(d, real, e);
    dlclose(h);
    if (!ok) {
        st__pindex_entry_free(e);
        return NULL;
    }
    e->ok = true;
    return e;
}

/* The plugin files of the search dirs as index entries, in search order
 * (directory, then file name) into *out (owned by the caller; the entries
 * are the index's). Files new or changed since the index (or its cache
 * file) saw them are opened and indexed; the cache file is rewritten when
 * anything changed. */
static st_status index_sync(st_runtime *rt, st__pindex_entry ***out, size_t *nout,
                            st_error *err)
{
    *out = NULL;
    *nout = 0;
    if (!refresh_dirs(rt))
        return dirs_oom(err);
    const char *state = NULL;
    if (!rt->pindex)
        ST_TRY(st__pindex_create(&rt->pindex, &state, err));
    st__pindex *x = rt->pindex;
    unsigned long opens = rt->plugin_opens;
    size_t cap = 0;
    st__pindex_entry **v = NULL;
    for (size_t i = 0; i < rt->ndirs; i++) {
        strlist files = {0};
        bool ok = list_plugin_files(rt->dirs[i], &files);
        for (size_t j = 0; ok && j < files.n; j++) {
            char real[PATH_MAX];
            st__pindex_key key;
            if (!realpath(files.v[j], real) || !st__pindex_stat(real, &key))
                continue;
            st__pindex_entry *e = st__pindex_find(x, real);
            if (!e || !st__pindex_key_eq(&e->key, &key)) {
                e = index_file(rt, real, &key);
                ok = e && st__pindex_put(x, e);
            }
            if (ok && *nout == cap) {
                cap = cap ? 2 * cap : 64;
                st__pindex_entry **nv = st_realloc(v, cap * sizeof *nv);
                ok = nv != NULL;
                if (ok)
                    v = nv;
            }
            if (ok)
                v[(*nout)++] = e;
        }
        sl_free(&files);
        if (!ok) {
            st_free(v);
            *nout = 0;
            return st_error_set(err, ST_ENOMEM, "out of memory indexing the plugins of %s",
                                rt->dirs[i]);
        }
    }
    /* Said once per runtime, and only when the index cost something: a
     * warm cache is silent. */
    char why[PATH_MAX + 128];
    if (!st__pindex_save(x, why, sizeof why) && !x->logged) {
        x->logged = true;
        st__log(rt, ST_LOG_INFO, ST_NO_MARK, "",
                "plugin index: the cache is not kept (%s); set SETTEE_PLUGIN_CACHE=FILE, or "
                "SETTEE_PLUGIN_CACHE=0 to go without",
                why);
    }
    if (rt->plugin_opens > opens && !x->logged) {
        x->logged = true;
        st__log(rt, ST_LOG_INFO, ST_NO_MARK, "",
                "plugin index: opened %lu of %zu plugin files to index them (cache %s: %s)",
                rt->plugin_opens - opens, *nout, x->cache ? x->cache : "none",
                state ? state : "read");
    }
    *out = v;
    return ST_OK;
}

/* An indexed plugin answers to a name (its own or a provided module). */
static bool entry_answers_to(const st__pindex_entry *e, const char *name)
{
    if (same_plugin_name(e->name, name))
        return true;
    for (size_t i = 0; i < e->nprovides; i++)
        if (same_plugin_name(e->strs[i], name))
            return true;
    return false;
}

/* An indexed plugin registers a class (or alias) of that name, also as
 * "Plugin::Class", as st_registry_find would find it in its own registry. */
static bool entry_has_class(const st__pindex_entry *e, const char *class_name)
{
    const char *sep = strstr(class_name, "::");
    if (sep) {
        size_t lp = (size_t)(sep - class_name);
        if (strlen(e->name) != lp || strncmp(e->name, class_name, lp) != 0)
            return false;
        class_name = sep + 2;
    }
    for (size_t i = e->nprovides; i < e->nprovides + e->nclasses; i++)
        if (strcmp(e->strs[i], class_name) == 0)
            return true;
    return false;
}

/* An indexed plugin reads scene files of path's extension. */
static bool entry_reads(const st__pindex_entry *e, const char *path)
{
    size_t n = strlen(path);
    for (size_t i = e->nprovides + e->nclasses; i < e->nprovides + e->nclasses + e->nreaders;
         i++) {
        size_t m = strlen(e->strs[i]);
        if (m > 1 && n > m && strcasecmp(path + n - m, e->strs[i]) == 0)
            return true;
    }
    return false;
}

/* Forgets an entry that did not hold what the index said (a file changed
 * within the resolution of its times): the next lookup indexes it again. */
static void entry_forget(st__pindex_entry *e)
{
    memset(&e->key, 0, sizeof e->key);
}

/* Loads the first plugin of the search dirs whose descriptor provides name,
 * opening only the one the index names. *found tells whether one was found
 * (the status then is that of its registration). */
static st_status load_providing(st_runtime *rt, const char *name, bool *found, st_error *err)
{
    *found = false;
    st__pindex_entry **v;
    size_t n;
    ST_TRY(index_sync(rt, &v, &n, err));
    for (size_t i = 0; i < n; i++) {
        if (!v[i]->ok || find_by_file(rt, v[i]->file) || !entry_answers_to(v[i], name))
            continue;
        void *h;
        const st_plugin_desc *d;
        if (!scan_open(rt, v[i]->file, &h, &d))
            continue;
        if (!answers_to(d->name, d->provides, name)) {
            dlclose(h);
            entry_forget(v[i]);
            continue;
        }
        *found = true;
        char real[PATH_MAX];
        snprintf(real, sizeof real, "%s", v[i]->file);
        st_free(v);
        return register_plugin(rt, h, d, real, err);
    }
    st_free(v);
    return ST_OK;
}

/* An indexed plugin provides a SOFA module inside the collection name
 * ("Sofa.Component.Collision.Geometry" is in "Sofa.Component.Collision",
 * "Sofa.Component" and "Sofa"). */
static bool entry_in_collection(const st__pindex_entry *e, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < e->nprovides; i++)
        if (strlen(e->strs[i]) > n + 1 && strncmp(e->strs[i], name, n) == 0 &&
            e->strs[i][n] == '.')
            return true;
    return false;
}

/* SOFA's collection plugins (Sofa.Component, Sofa.GL.Component,
 * Sofa.Component.Collision, ...) load every module under their name: the
 * same here, with every installed plugin that provides one. *found is the
 * number of plugins the collection holds. */
static st_status load_collection(st_runtime *rt, const char *name, size_t *found, st_error *err)
{
    *found = 0;
    if (strncmp(name, "Sofa.", 5) != 0)
        return ST_OK;
    st__pindex_entry **v;
    size_t n;
    ST_TRY(index_sync(rt, &v, &n, err));
    st_status s = ST_OK;
    size_t loaded = 0;
    for (size_t i = 0; i < n && s != ST_ENOMEM; i++) {
        if (!v[i]->ok || !entry_in_collection(v[i], name))
            continue;
        (*found)++;
        if (find_by_file(rt, v[i]->file)) {
            loaded++;
            continue;
        }
        /* a member that does not load is said; the others still load */
        st_error e;
        st_error_clear(&e);
        s = load_file(rt, v[i]->file, &e);
        if (s == ST_OK)
            loaded++;
        else if (s != ST_ENOMEM)
            st__log(rt, ST_LOG_WARNING, ST_NO_MARK, "", "%s: skipping %s: %s", name,
                    base_name(v[i]->file), e.msg);
        else
            *err = e;
    }
    st_free(v);
    if (s == ST_ENOMEM)
        return s;
    s = ST_OK;
    if (*found && !loaded)
        return st_error_set(err, ST_EPLUGIN,
                            "%s is a collection of SOFA modules, but none of its %zu plugins "
                            "loads (see the warnings above)",
                            name, *found);
    if (*found)
        st__log(rt, ST_LOG_INFO, ST_NO_MARK, "",
                "%s is a collection of SOFA modules: loaded the %zu plugins that provide its "
                "modules",
                name, *found);
    return s;
}

/* The error for a plugin that no search dir holds: every path tried, one
 * per line, then a hint. */
static st_status not_found(st_runtime *rt, const char *name, const char *file_name,
                           st_error *err)
{
    char trailer[640];
    if (rt->ndirs == 0)
        snprintf(trailer, sizeof trailer, "%s", PLUGIN_HINT);
    else
        snprintf(trailer, sizeof trailer,
                 "and no plugin in those directories provides '%s'\n" PLUGIN_HINT, name);
    char msg[ST_ERROR_MSG_MAX];
    msg[0] = '\0';
    /* Leave room for the trailer and a "more paths" line. */
    textbuf t = {msg, 0, sizeof msg - strlen(trailer) - 48, false};
    if (strcmp(name, file_name) != 0)
        tb_add(&t, "plugin '%s' (as '%s') not found", name, file_name);
    else
        tb_add(&t, "plugin '%s' not found", name);
    /* Did you mean: the plugins of the search dirs, by their file names. */
    strlist files = {0};
    for (size_t i = 0; i < rt->ndirs; i++)
        if (!list_plugin_files(rt->dirs[i], &files))
            break;
    const char **stems = st_calloc(files.n ? files.n : 1, sizeof *stems);
    if (stems) {
        for (size_t i = 0; i < files.n; i++) {
            char *base = strrchr(files.v[i], '/');
            base = base ? base + 1 : files.v[i];
            if (!strncmp(base, "lib", 3))
                base += 3;
            char *dot = strstr(base, ".so");
            if (dot)
                *dot = 0;
            stems[i] = base;
        }
        const char *sugg[3];
        size_t ns = st__suggest(file_name, stems, files.n, sugg, 3);
        for (size_t k = 0; k < ns; k++)
            tb_add(&t, "%s'%s'%s", k == 0 ? " (did you mean " : k + 1 == ns ? " or " : ", ",
                   sugg[k], k + 1 == ns ? "?)" : "");
        st_free(stems);
    }
    sl_free(&files);
    size_t shown = 0, total = 2 * rt->ndirs;
    if (rt->ndirs == 0)
        tb_add(&t, "; the plugin search path is empty\n");
    else
        tb_add(&t, "; tried:\n");
    for (size_t i = 0; i < rt->ndirs && !t.full; i++) {
        for (int k = 0; k < 2 && !t.full; k++) {
            tb_add(&t, "  %s/%s%s.so\n", rt->dirs[i], k == 0 ? "lib" : "", file_name);
            if (!t.full)
                shown++;
        }
    }
    t.size = sizeof msg;
    t.full = false;
    if (shown < total)
        tb_add(&t, "  ... and %zu more paths\n", total - shown);
    tb_add(&t, "%s", trailer);
    return st_error_set(err, ST_EPLUGIN, "%s", msg);
}

st_status st_runtime_load_plugin(st_runtime *rt, const char *name, st_error *err)
{
    if (!rt || !name || !*name)
        return st_error_set(err, ST_EINVAL, "load plugin: expected a plugin name or file, got %s",
                            name ? "an empty string" : "NULL");
    if (looks_like_path(name))
        return load_file(rt, name, err);
    if (st_runtime_find_plugin(rt, name))
        return ST_OK;

    const char *file_name = st__plugin_short_name(name);
    if (!refresh_dirs(rt))
        return dirs_oom(err);
    for (size_t i = 0; i < rt->ndirs; i++) {
        for (int k = 0; k < 2; k++) {
            char file[PATH_MAX], path[PATH_MAX];
            int n = snprintf(file, sizeof file, "%s%s.so", k == 0 ? "lib" : "", file_name);
            if (n <= 0 || (size_t)n >= sizeof file ||
                !join_path(path, sizeof path, rt->dirs[i], file))
                continue;
            if (is_regular_file(path))
                return load_file(rt, path, err);
        }
    }

    bool found;
    st_status s = load_providing(rt, name, &found, err);
    if (found || s != ST_OK)
        return s;
    size_t members;
    s = load_collection(rt, name, &members, err);
    if (members || s != ST_OK)
        return s;
    return not_found(rt, name, file_name, err);
}

st_status st_runtime_load_all_plugins(st_runtime *rt, st_error *err)
{
    if (!rt)
        return st_error_set(err, ST_EINVAL, "load all plugins: no runtime");
    if (!refresh_dirs(rt))
        return dirs_oom(err);
    for (size_t i = 0; i < rt->ndirs; i++) {
        strlist files = {0};
        if (!list_plugin_files(rt->dirs[i], &files)) {
            sl_free(&files);
            return st_error_set(err, ST_ENOMEM, "out of memory scanning %s", rt->dirs[i]);
        }
        for (size_t j = 0; j < files.n; j++) {
            st_error e;
            st_error_clear(&e);
            st_status s = load_file(rt, files.v[j], &e);
            if (s == ST_ENOMEM) {
                sl_free(&files);
                return st_error_set(err, ST_ENOMEM, "%s", e.msg);
            }
            if (s != ST_OK)
                st__log(rt, ST_LOG_WARNING, ST_NO_MARK, "", "skipping %s: %s",
                        base_name(files.v[j]), e.msg);
        }
        sl_free(&files);
    }
    return ST_OK;
}

/* Registers one opened plugin into a scratch registry and tells whether it
 * registers a scene reader for path's extension (reader.h). */
static bool plugin_has_reader(const st_plugin_desc *d, const char *file, const char *path)
{
    st_registry *scratch = NULL;
    st_error e;
    st_error_clear(&e);
    if (st__registry_create(&scratch, &e) != ST_OK)
        return false;
    st__registry_set_current(scratch, d->name, file);
    st_status s = d->register_classes(scratch, &e);
    st__registry_set_current(scratch, NULL, NULL);
    bool has = s == ST_OK && st_registry_find_reader(scratch, path) != NULL;
    st__registry_destroy(&scratch);
    return has;
}

st_status st__plugin_load_reader(st_runtime *rt, const char *path, bool *found, st_error *err)
{
    *found = false;
    st__pindex_entry **v;
    size_t n;
    ST_TRY(index_sync(rt, &v, &n, err));
    for (size_t i = 0; i < n; i++) {
        if (!v[i]->ok || find_by_file(rt, v[i]->file) || find_by_desc_name(rt, v[i]->name) ||
            !entry_reads(v[i], path))
            continue;
        void *h;
        const st_plugin_desc *d;
        if (!scan_open(rt, v[i]->file, &h, &d))
            continue;
        if (find_by_desc_name(rt, d->name) || !plugin_has_reader(d, v[i]->file, path)) {
            dlclose(h);
            entry_forget(v[i]);
            continue;
        }
        *found = true;
        char real[PATH_MAX];
        snprintf(real, sizeof real, "%s", v[i]->file);
        st_free(v);
        return register_plugin(rt, h, d, real, err);
    }
    st_free(v);
    return ST_OK;
}

static void copy_name(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s", name ? name : "");
}

bool st_runtime_which_plugin(st_runtime *rt, const char *class_name, char *buf, size_t size)
{
    if (!rt || !class_name || !*class_name || !buf || size == 0)
        return false;
    buf[0] = '\0';
    const st_class *cls = rt->reg ? st_registry_find(rt->reg, class_name) : NULL;
    if (cls) {
        copy_name(buf, size, st_registry_class_plugin(rt->reg, cls));
        return true;
    }
    /* The index answers without opening any plugin. */
    st__pindex_entry **v;
    size_t n;
    st_error e;
    st_error_clear(&e);
    if (index_sync(rt, &v, &n, &e) != ST_OK)
        return false;
    bool has = false;
    for (size_t i = 0; i < n && !has; i++) {
        /* A loaded plugin's classes are in the runtime's registry; skip a
         * copy of a loaded plugin found under another path. */
        if (!v[i]->ok || find_by_file(rt, v[i]->file) || find_by_desc_name(rt, v[i]->name) ||
            !entry_has_class(v[i], class_name))
            continue;
        copy_name(buf, size, v[i]->name);
        has = true;
    }
    st_free(v);
    return has;
}

void st__plugins_unload_all(st_runtime *rt)
{
    if (!rt)
        return;
    for (size_t i = rt->nplugins; i-- > 0;) {
        st_plugin_rec *rec = rt->plugins[i];
        if (!rec)
            continue;
        if (rec->handle) {
            if (rt->reg)
                st__registry_remove_plugin(rt->reg, rec->info.name);
            dlclose(rec->handle);
        }
        st_free(rec->file);
        st_free(rec);
    }
    st_free(rt->plugins);
    rt->plugins = NULL;
    rt->nplugins = 0;
    for (size_t i = 0; i < rt->ndirs; i++)
        st_free(rt->dirs[i]);
    st_free(rt->dirs);
    rt->dirs = NULL;
    rt->ndirs = 0;
    for (size_t i = 0; i < rt->npaths; i++)
        st_free(rt->paths[i]);
    st_free(rt->paths);
    rt->paths = NULL;
    rt->npaths = 0;
    st__pindex_destroy(&rt->pindex);
}
