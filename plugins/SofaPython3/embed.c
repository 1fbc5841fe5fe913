/* embed.c - the bridge to Python. The plugin links no Python: in a process
 * that already runs an interpreter (`python3`, importing settee) it uses
 * that one; otherwise (`settee run scene.py`) it opens libpython, starts an
 * interpreter and keeps it for the life of the process. Either way it
 * imports settee._settee, whose capsule gives the table of stpy_api. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sofapython3.h"

static const stpy_api *g_api;

typedef int (*int_void_fn)(void);
typedef void (*void_int_fn)(int);
typedef int (*gil_ensure_fn)(void);
typedef void (*gil_release_fn)(int);
typedef void *(*capsule_import_fn)(const char *, int);
typedef int (*run_string_fn)(const char *);
typedef void (*err_fetch_fn)(void **, void **, void **);
typedef void *(*obj_str_fn)(void *);
typedef const char *(*utf8_fn)(void *);
typedef void (*decref_fn)(void *);

static void *sym(void *lib, const char *name)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    return p ? p : (lib ? dlsym(lib, name) : NULL);
}

static bool is_dir_with(const char *dir, const char *rel)
{
    char p[PATH_MAX];
    struct stat st;
    return (size_t)snprintf(p, sizeof p, "%s/%s", dir, rel) < sizeof p && stat(p, &st) == 0;
}

/* The folder holding the settee, Sofa and SofaRuntime packages: next to
 * this plugin in the build tree or the install prefix. */
static bool python_dir(char *out, size_t size)
{
    Dl_info info;
    if (!dladdr((void *)&python_dir, &info) || !info.dli_fname)
        return false;
    char self[PATH_MAX];
    if (!realpath(info.dli_fname, self))
        return false;
    char *slash = strrchr(self, '/');
    if (!slash)
        return false;
    *slash = 0;
    const char *rels[] = {STPY_REL_BUILD, STPY_REL_INSTALL};
    for (size_t i = 0; i < 2; i++) {
        char cand[PATH_MAX], real[PATH_MAX];
        if ((size_t)snprintf(cand, sizeof cand, "%s/%s", self, rels[i]) >= sizeof cand)
            continue;
        if (realpath(cand, real) && is_dir_with(real, "settee/__init__.py")) {
            snprintf(out, size, "%s", real);
            return true;
        }
    }
    return false;
}

/* The pending Python exception as text (then cleared). */
static void py_error_text(void *lib, char *buf, size_t size)
{
    err_fetch_fn fetch = (err_fetch_fn)sym(lib, "PyErr_Fetch");
    obj_str_fn str = (obj_str_fn)sym(lib, "PyObject_Str");
    utf8_fn utf8 = (utf8_fn)sym(lib, "PyUnicode_AsUTF8");
    decref_fn decref = (decref_fn)sym(lib, "Py_DecRef");
    snprintf(buf, size, "(no Python error)");
    if (!fetch || !str || !utf8 || !decref)
        return;
    void *t = NULL, *v = NULL, *tb = NULL;
    fetch(&t, &v, &tb);
    void *s = v ? str(v) : (t ? str(t) : NULL);
    const char *u = s ? utf8(s) : NULL;
    if (u)
        snprintf(buf, size, "%s", u);
    if (s)
        decref(s);
    if (t)
        decref(t);
    if (v)
        decref(v);
    if (tb)
        decref(tb);
}

const stpy_api *sp3_api(st_error *err)
{
    if (g_api)
        return g_api;
    void *lib = NULL;
    int_void_fn is_init = (int_void_fn)dlsym(RTLD_DEFAULT, "Py_IsInitialized");
    if (!is_init) {
        /* Global, so that extension modules (numpy, settee._settee) find it. */
        lib = dlopen(STPY_LIBPYTHON, RTLD_NOW | RTLD_GLOBAL);
        if (!lib)
            return st_error_set(err, ST_EPLUGIN, "SofaPython3: cannot open %s: %s", STPY_LIBPYTHON,
                                dlerror()),
                   NULL;
        is_init = (int_void_fn)dlsym(lib, "Py_IsInitialized");
    }
    void_int_fn init_ex = (void_int_fn)sym(lib, "Py_InitializeEx");
    gil_ensure_fn ensure = (gil_ensure_fn)sym(lib, "PyGILState_Ensure");
    gil_release_fn release = (gil_release_fn)sym(lib, "PyGILState_Release");
    capsule_import_fn cimport = (capsule_import_fn)sym(lib, "PyCapsule_Import");
    run_string_fn run = (run_string_fn)sym(lib, "PyRun_SimpleString");
    if (!is_init || !init_ex || !ensure || !release || !cimport || !run)
        return st_error_set(err, ST_EPLUGIN, "SofaPython3: %s lacks the Python C API",
                            STPY_LIBPYTHON),
               NULL;
    if (!is_init())
        init_ex(0); /* no signal handlers: the host program keeps its own */
    int g = ensure();
    char dir[PATH_MAX], code[PATH_MAX + 128];
    if (python_dir(dir, sizeof dir) && !strchr(dir, '\'') && !strchr(dir, '\\')) {
        snprintf(code, sizeof code,
                 "import sys\nif '%s' not in sys.path: sys.path.insert(0, '%s')\n", dir, dir);
        (void)run(code);
    }
    const stpy_api *api = cimport(STPY_CAPSULE, 0);
    if (!api) {
        char why[1024];
        py_error_text(lib, why, sizeof why);
        release(g);
        return st_error_set(err, ST_EPLUGIN,
                            "SofaPython3: cannot import settee._settee (%s); set PYTHONPATH to "
                            "settee's python folder",
                            why),
               NULL;
    }
    release(g);
    if (api->struct_size < sizeof(stpy_api) || api->version != STPY_API_VERSION)
        return st_error_set(err, ST_EPLUGIN,
                            "SofaPython3: settee._settee has interface %u, the plugin needs %u "
                            "(they come from different builds)",
                            api->version, STPY_API_VERSION),
               NULL;
    g_api = api;
    return g_api;
}
