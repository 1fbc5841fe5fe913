/* output_file.c - output file names, folders and atomic writes (see
 * output_file.h). */
#define _POSIX_C_SOURCE 200809L
#include "output_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

st_status out_resolve(const st_component *c, const char *field, const char *name, char *out,
                      size_t size, st_error *err)
{
    if (!name || !*name)
        return st_component_error(c, field, err, ST_EINVAL, "'%s' is empty: give a file name",
                                  field);
    const char *scene = c->node ? st_node_scene_file(c->node) : NULL;
    const char *slash = scene ? strrchr(scene, '/') : NULL;
    int k;
    if (name[0] == '/' || !slash)
        k = snprintf(out, size, "%s", name);
    else
        k = snprintf(out, size, "%.*s/%s", (int)(slash - scene), scene, name);
    if (k < 0 || (size_t)k >= size)
        return st_component_error(c, field, err, ST_EINVAL,
                                  "'%s': the file name is longer than %zu bytes", name, size - 1);
    return ST_OK;
}

st_status out_make_parents(const char *path, st_error *err)
{
    char dir[OUT_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *end = strrchr(dir, '/');
    if (!end || end == dir)
        return ST_OK;
    *end = 0;
    for (char *p = dir + 1;; p++) {
        bool last = *p == 0;
        if (*p == '/' || last) {
            char keep = *p;
            *p = 0;
            struct stat sb;
            if (stat(dir, &sb) != 0) {
                if (mkdir(dir, 0777) != 0 && errno != EEXIST)
                    return st_error_set(err, ST_EIO, "cannot create the folder '%s': %s", dir,
                                        strerror(errno));
            } else if (!S_ISDIR(sb.st_mode)) {
                return st_error_set(err, ST_EIO, "'%s' is not a folder", dir);
            }
            *p = keep;
        }
        if (last)
            break;
    }
    return ST_OK;
}

st_status out_open(out_file *o, const char *path, st_error *err)
{
    o->f = NULL;
    o->tmp[0] = 0;
    int k = snprintf(o->dst, sizeof o->dst, "%s", path);
    int t = snprintf(o->tmp, sizeof o->tmp, "%s.tmpXXXXXX", path);
    if (k < 0 || (size_t)k >= sizeof o->dst || t < 0 || (size_t)t >= sizeof o->tmp)
        return st_error_set(err, ST_EIO, "'%s': the file name is too long", path);
    ST_TRY(out_make_parents(path, err));
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        st_status s = st_error_set(err, ST_EIO, "cannot write '%s': %s", path, strerror(errno));
        o->tmp[0] = 0;
        return s;
    }
    /* mkstemp creates 0600: give the file the permissions of an ordinary one. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        close(fd);
        unlink(o->tmp);
        o->tmp[0] = 0;
        return st_error_set(err, ST_EIO, "cannot write '%s': %s", path, strerror(errno));
    }
    return ST_OK;
}

st_status out_commit(out_file *o, st_error *err)
{
    bool bad = fflush(o->f) != 0 || ferror(o->f);
    int e = errno;
    if (fclose(o->f) != 0 && !bad) {
        bad = true;
        e = errno;
    }
    o->f = NULL;
    if (bad || rename(o->tmp, o->dst) != 0) {
        if (!bad)
            e = errno;
        unlink(o->tmp);
        o->tmp[0] = 0;
        return st_error_set(err, ST_EIO, "cannot write '%s': %s", o->dst, strerror(e));
    }
    o->tmp[0] = 0;
    return ST_OK;
}

void out_abort(out_file *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp[0])
        unlink(o->tmp);
    o->tmp[0] = 0;
}

void out_log_error(const st_component *c, const st_error *err)
{
    char path[ST_ERROR_PATH_MAX];
    st_component_path(c, path, sizeof path);
    st_runtime_log(st_component_runtime(c), ST_LOG_ERROR, err->where, path, "%s: %s",
                   c->cls->name, err->msg);
}

static st_status restarted_file(st_component *self, st_checkpoint *ck, st_error *err)
{
    (void)err;
    if (st_checkpoint_reading(ck))
        st_component_warn(self, "the run was resumed from a checkpoint: the file it writes was "
                                "started again at this run's init and holds the resumed part "
                                "of the run only");
    return ST_OK;
}

const st_checkpoint_ops out_restarted_file_checkpoint = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = restarted_file,
};

bool out_stream_open(out_stream *s, const char *path)
{
    size_t len = strlen(path);
    s->gz = NULL;
    s->f = NULL;
    if (len >= 3 && !strcmp(path + len - 3, ".gz"))
        s->gz = gzopen(path, "wb");
    else
        s->f = fopen(path, "w");
    return s->gz || s->f;
}

bool out_stream_is_open(const out_stream *s) { return s->gz || s->f; }

void out_stream_printf(out_stream *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (s->gz) {
        char buf[512];
        int n = vsnprintf(buf, sizeof buf, fmt, ap);
        if (n > 0)
            gzwrite((gzFile)s->gz, buf, (unsigned)(n < (int)sizeof buf ? n : (int)sizeof buf - 1));
    } else if (s->f) {
        vfprintf(s->f, fmt, ap);
    }
    va_end(ap);
}

bool out_stream_flush(out_stream *s)
{
    if (s->gz)
        return gzflush((gzFile)s->gz, Z_SYNC_FLUSH) == Z_OK;
    if (s->f)
        return fflush(s->f) == 0 && !ferror(s->f);
    return false;
}

void out_stream_close(out_stream *s)
{
    if (s->gz)
        gzclose((gzFile)s->gz);
    if (s->f)
        fclose(s->f);
    s->gz = NULL;
    s->f = NULL;
}
