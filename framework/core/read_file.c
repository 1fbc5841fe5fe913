/* read_file.c - a regular file read whole into memory (st__read_file): the
 * scene readers, `settee convert` and checkpoints use it. A directory,
 * device or pipe is refused before anything is read (common/regular_file.c
 * opens it without blocking). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "common/regular_file.h"

st_status st__read_file(const char *path, char **out, size_t *outlen, st_error *err)
{
    *out = NULL;
    *outlen = 0;
    bool not_regular;
    int fd = regular_open(path, &not_regular);
    if (not_regular)
        return st_error_set_at(err, ST_EIO, path, 0, 0,
                               "cannot read '%s': not a regular file (a directory, device or "
                               "pipe)",
                               path);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (fd >= 0 && !f)
        close(fd);
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int saved = 0;
    if (f) {
        for (;;) {
            if (len + 4096 + 1 > cap) {
                size_t ncap = cap ? 2 * cap : 16384;
                char *p = st_realloc(buf, ncap);
                if (!p) {
                    st_free(buf);
                    fclose(f);
                    return st_error_set(err, ST_ENOMEM, "out of memory reading '%s'", path);
                }
                buf = p;
                cap = ncap;
            }
            size_t k = fread(buf + len, 1, cap - len - 1, f);
            len += k;
            if (k == 0) {
                if (ferror(f))
                    saved = errno ? errno : EIO;
                break;
            }
        }
        fclose(f);
    } else {
        saved = errno;
    }
    if (!f || saved) {
        st_free(buf);
        return st_error_set_at(err, ST_EIO, path, 0, 0, "cannot read '%s': %s", path,
                               strerror(saved));
    }
    buf[len] = 0;
    *out = buf;
    *outlen = len;
    return ST_OK;
}
