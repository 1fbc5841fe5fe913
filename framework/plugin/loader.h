/* loader.h - plugin loading, above the object model: finding, checking
 * (ELF, ABI) and dlopen-ing plugin files, the RequiredPlugin component that
 * asks for them, and unloading them with the runtime. */
#ifndef SETTEE_KERNEL_PLUGIN_LOADER_H
#define SETTEE_KERNEL_PLUGIN_LOADER_H

#include "core/core.h"

/* Test builds (SETTEE_EXPORT_INTERNALS) export these internals so that the
 * test suites can reach them; other builds export only the public API. */
#ifdef SETTEE_EXPORT_INTERNALS
#pragma GCC visibility push(default)
#endif

/* Maps "Sofa.Component.X.Y" to "X.Y"; returns a pointer into name. */
const char *st__plugin_short_name(const char *name);
/* Checks a plugin file before dlopen (plugin_file.c): a regular file whose
 * ELF header, segments and sections lie inside it; ST_EPLUGIN saying
 * "damaged" and naming the file otherwise. */
st_status st__plugin_file_check(const char *file, st_error *err);
/* Loads the first installed plugin (search order) that registers a scene
 * reader for path's extension; *found says whether there was one (plugin.c). */
st_status st__plugin_load_reader(st_runtime *rt, const char *path, bool *found, st_error *err);
/* Unloads all plugins (runtime destruction). */
void st__plugins_unload_all(st_runtime *rt);
/* Loads a plugin named by a RequiredPlugin component (kernel built-in). */
st_status st__required_plugin_load(st_component *c, st_error *err);
extern const st_class st__required_plugin_class;
/* How many times this runtime dlopen-ed a plugin file (loading, or
 * indexing a new or changed file): what the plugin index saves. */
unsigned long st__plugin_open_count(const st_runtime *rt);

/* ---- the index of installed plugins (plugin_index.c) ---- */

/* What identifies one version of a file. */
typedef struct st__pindex_key {
    uint64_t dev, ino, size;
    int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
} st__pindex_key;

enum { ST__PINDEX_PROVIDES, ST__PINDEX_CLASS, ST__PINDEX_READER };

/* One plugin file as last indexed. */
typedef struct st__pindex_entry {
    char *file;            /* resolved path, owned */
    st__pindex_key key;
    bool ok;               /* loads: name and strs are set; false: it failed (not cached) */
    char *name;            /* the descriptor's name, owned */
    char **strs;           /* owned: provided modules, then class names and aliases, then
                            * reader extensions */
    size_t nprovides, nclasses, nreaders, cap;
} st__pindex_entry;

typedef struct st__pindex {
    st__pindex_entry **e;  /* owned, any order */
    size_t n, cap;
    char *cache;           /* the cache file, NULL when there is none */
    bool dirty;            /* changed since the cache file was read or written */
    bool logged;           /* the first lookup was reported */
} st__pindex;

/* Creates an index holding the cache file's entries (SETTEE_PLUGIN_CACHE,
 * XDG_CACHE_HOME); *cache_state says what became of the file ("read",
 * "none yet", "disabled", "... ignored"). ST_ENOMEM only. */
st_status st__pindex_create(st__pindex **out, const char **cache_state, st_error *err);
void st__pindex_destroy(st__pindex **p);
/* The key of a regular file; false when it cannot be stat-ed. */
bool st__pindex_stat(const char *file, st__pindex_key *k);
bool st__pindex_key_eq(const st__pindex_key *a, const st__pindex_key *b);
/* The entry of a resolved path, or NULL. */
st__pindex_entry *st__pindex_find(const st__pindex *x, const char *file);
/* Adds e (taking it) in place of any entry of the same file; false when out
 * of memory (e is freed). */
bool st__pindex_put(st__pindex *x, st__pindex_entry *e);
/* Appends a string of a kind (ST__PINDEX_*) to e; false when out of memory. */
bool st__pindex_entry_add(st__pindex_entry *e, int kind, const char *s, size_t len);
void st__pindex_entry_free(st__pindex_entry *e);
/* Writes the cache file when entries changed (temporary file, then rename);
 * false with the reason in why when it cannot: the run goes on. */
bool st__pindex_save(st__pindex *x, char *why, size_t size);

#ifdef SETTEE_EXPORT_INTERNALS
#pragma GCC visibility pop
#endif

#endif
