/* datapath.c - the files a scene names: file names resolved as SOFA's data
 * repository resolves them (relative to the file that wrote the name, then
 * the scene's folder, then each folder of SETTEE_DATA_PATH and of
 * SOFA_DATA_PATH, so that a SOFA user's setup works unchanged). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scenefile/scene_desc.h"

/* The folder part of a file name ("" for a bare name), into buf. */
static const char *dir_of(const char *file, char *buf, size_t size)
{
    const char *slash = file ? strrchr(file, '/') : NULL;
    size_t len = slash ? (size_t)(slash - file) : 0;
    if (slash && len == 0)
        len = 1; /* "/x" -> "/" */
    if (len >= size)
        len = size - 1;
    memcpy(buf, file ? file : "", len);
    buf[len] = 0;
    return buf;
}

typedef struct tried {
    char list[1536];
    size_t len;
    int n;
} tried;

/* Tries dir/name; true when it is a regular file (written to out). A name
 * that exists but is not a regular file is an error. */
static bool try_one(const char *dir, const char *name, char *out, size_t size, tried *t,
                    bool *not_regular)
{
    char path[4096];
    int k = dir && dir[0] ? snprintf(path, sizeof path, "%s%s%s", dir,
                                     dir[strlen(dir) - 1] == '/' ? "" : "/", name)
                          : snprintf(path, sizeof path, "%s", name);
    if (k < 0 || (size_t)k >= sizeof path)
        return false;
    for (size_t i = 0, off = 0; i < (size_t)t->n; i++) { /* skip folders already tried */
        const char *p = t->list + off;
        if (!strncmp(p, path, strlen(path)) && (p[strlen(path)] == ',' || !p[strlen(path)]))
            return false;
        const char *c = strstr(p, ", ");
        if (!c)
            break;
        off = (size_t)(c + 2 - t->list);
    }
    if (t->len < sizeof t->list)
        t->len += (size_t)snprintf(t->list + t->len, sizeof t->list - t->len, "%s%s",
                                   t->n ? ", " : "", path);
    t->n++;
    struct stat st;
    if (stat(path, &st) != 0)
        return false;
    if (!S_ISREG(st.st_mode)) {
        *not_regular = true;
        snprintf(out, size, "%s", path);
        return false;
    }
    if ((size_t)k >= size)
        return false;
    memcpy(out, path, (size_t)k + 1);
    return true;
}

static bool try_env(const char *var, const char *name, char *out, size_t size, tried *t,
                    bool *not_regular)
{
    const char *v = getenv(var);
    while (v && *v && !*not_regular) {
        const char *colon = strchr(v, ':');
        size_t len = colon ? (size_t)(colon - v) : strlen(v);
        char dir[4096];
        if (len && len < sizeof dir) {
            memcpy(dir, v, len);
            dir[len] = 0;
            if (try_one(dir, name, out, size, t, not_regular))
                return true;
        }
        v = colon ? colon + 1 : NULL;
    }
    return false;
}

bool st__data_find(const char *dir1, const char *dir2, const char *name, char *out, size_t size,
                   char *tried_out, size_t tried_size, bool *not_regular)
{
    tried t = {.len = 0, .n = 0};
    t.list[0] = 0;
    *not_regular = false;
    bool found = false;
    if (name[0] == '/') {
        found = try_one(NULL, name, out, size, &t, not_regular);
    } else {
        if (dir1)
            found = try_one(dir1, name, out, size, &t, not_regular);
        if (!found && !*not_regular && dir2)
            found = try_one(dir2, name, out, size, &t, not_regular);
        if (!found && !*not_regular)
            found = try_env("SETTEE_DATA_PATH", name, out, size, &t, not_regular);
        if (!found && !*not_regular)
            found = try_env("SOFA_DATA_PATH", name, out, size, &t, not_regular);
    }
    if (tried_out && tried_size)
        snprintf(tried_out, tried_size, "%s", t.list);
    return found;
}

const char *st__dir_of(const char *file, char *buf, size_t size) { return dir_of(file, buf, size); }

bool st__data_find_in(const st_scene *s, const char *dir1, const char *dir2, const char *name,
                      char *out, size_t size, char *tried_out, size_t tried_size,
                      bool *not_regular)
{
    bool found = st__data_find(dir1, dir2, name, out, size, tried_out, tried_size, not_regular);
    if (found || *not_regular || name[0] == '/' || !s)
        return found;
    size_t tl = tried_out ? strlen(tried_out) : 0;
    for (size_t i = 0; i < s->ndata_paths; i++) {
        tried t = {.len = 0, .n = 0};
        t.list[0] = 0;
        found = try_one(s->data_paths[i], name, out, size, &t, not_regular);
        if (tried_out && tl + 2 < tried_size)
            tl += (size_t)snprintf(tried_out + tl, tried_size - tl, "%s%s", tl ? ", " : "",
                                   t.list);
        if (found || *not_regular)
            break;
    }
    return found;
}

/* The scene a component belongs to, or NULL. */
static st_scene *scene_of(const st_component *c)
{
    const st_node *root = c && c->node ? st_node_root(c->node) : NULL;
    return root ? root->scene : NULL;
}

st_runtime *st_component_runtime(const st_component *c)
{
    return c ? st__cinfo(c)->rt : NULL;
}

st_status st_component_find_dir(const st_component *c, const char *field, const char *dir,
                                 char *out, size_t size, st_error *err)
{
    if (!dir || !dir[0])
        return st_component_error(c, field, err, ST_EINVAL, "no folder given");
    char base[4096];
    int i = field ? st__component_field_index(c, field) : -1;
    const char *wrote = i >= 0 ? st__cinfo(c)->fs[i].mark.file : NULL;
    if (!wrote || !wrote[0])
        wrote = st_node_scene_file(c->node);
    dir_of(wrote, base, sizeof base);
    int k = dir[0] == '/' ? snprintf(out, size, "%s", dir)
                          : snprintf(out, size, "%s%s%s", base, base[0] ? "/" : "", dir);
    if (k < 0 || (size_t)k >= size)
        return st_component_error(c, field, err, ST_EINVAL, "folder name too long");
    struct stat st;
    if (stat(out, &st) != 0)
        return st_component_error(c, field, err, ST_ENOTFOUND, "folder '%s' does not exist (%s)",
                                  dir, out);
    if (!S_ISDIR(st.st_mode))
        return st_component_error(c, field, err, ST_EINVAL, "'%s' is not a folder (%s)", dir, out);
    return ST_OK;
}

st_status st_component_add_data_path(const st_component *c, const char *field, const char *dir,
                                     st_error *err)
{
    char path[4096];
    ST_TRY(st_component_find_dir(c, field, dir, path, sizeof path, err));
    st_scene *s = scene_of(c);
    if (!s)
        return st_component_error(c, field, err, ST_ESTATE, "the component is in no scene");
    for (size_t i = 0; i < s->ndata_paths; i++)
        if (!strcmp(s->data_paths[i], path))
            return ST_OK;
    char **v = st_realloc(s->data_paths, (s->ndata_paths + 1) * sizeof *v);
    if (!v)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    s->data_paths = v;
    if (!(v[s->ndata_paths] = st_strdup(path)))
        return st_error_set(err, ST_ENOMEM, "out of memory");
    s->ndata_paths++;
    return ST_OK;
}

st_status st_component_find_file(const st_component *c, const char *field, const char *name,
                                 char *out, size_t size, st_error *err)
{
    if (!name || !name[0])
        return st_component_error(c, field, err, ST_EINVAL, "no file name given");
    bool not_regular = false;
    char d1[4096], d2[4096], list[1536];
    /* The file that wrote the name (an included file), then the scene's. */
    int i = field ? st__component_field_index(c, field) : -1;
    const char *wrote = i >= 0 ? st__cinfo(c)->fs[i].mark.file : NULL;
    const char *scene = st_node_scene_file(c->node);
    bool found = st__data_find_in(scene_of(c), wrote && wrote[0] ? dir_of(wrote, d1, sizeof d1)
                                                                 : NULL,
                                  dir_of(scene, d2, sizeof d2), name, out, size, list,
                                  sizeof list, &not_regular);
    if (found)
        return ST_OK;
    if (not_regular)
        return st_component_error(c, field, err, ST_EINVAL,
                                  "'%s' is not a regular file (a directory, device or pipe)", out);
    return st_component_error(c, field, err, ST_ENOTFOUND,
                              "cannot find file '%s' (tried %s%s)", name, list,
                              name[0] == '/' ? ""
                                             : "; relative names are searched in the scene's "
                                               "folder, then SETTEE_DATA_PATH and SOFA_DATA_PATH, "
                                               "then the scene's AddDataRepository folders");
}
