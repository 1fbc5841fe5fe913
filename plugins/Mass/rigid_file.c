/* rigid_file.c - SOFA's .rigid files (rigid_file.h). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rigid_file.h"
#include "../../common/regular_file.h"

#define RIGID_FILE_MAX (1u << 20) /* bytes: a .rigid file holds a few lines */
#define RIGID_VALUE_MAX 1e30

typedef struct cursor {
    const char *p, *end, *path;
    int line;
} cursor;

/* The next word (NULL at the end), its line in *line. */
static const char *next_word(cursor *k, size_t *len, int *line)
{
    while (k->p < k->end && isspace((unsigned char)*k->p)) {
        if (*k->p == '\n')
            k->line++;
        k->p++;
    }
    if (k->p >= k->end)
        return NULL;
    const char *s = k->p;
    while (k->p < k->end && !isspace((unsigned char)*k->p))
        k->p++;
    *len = (size_t)(k->p - s);
    *line = k->line;
    return s;
}

static void skip_line(cursor *k)
{
    while (k->p < k->end && *k->p != '\n')
        k->p++;
}

static st_status read_numbers(st_component *c, const char *field, cursor *k, const char *kw,
                              int kwline, double *out, int n, st_error *err)
{
    for (int i = 0; i < n; i++) {
        size_t len;
        int line;
        const char *w = next_word(k, &len, &line);
        char buf[64], *end;
        if (!w)
            return st_component_error(c, field, err, ST_EPARSE,
                                      "%s:%d: '%s' expects %d number%s, the file ends after %d",
                                      k->path, kwline, kw, n, n == 1 ? "" : "s", i);
        if (len >= sizeof buf)
            len = sizeof buf - 1;
        memcpy(buf, w, len);
        buf[len] = 0;
        errno = 0;
        double x = strtod(buf, &end);
        if (end == buf || *end)
            return st_component_error(c, field, err, ST_EPARSE,
                                      "%s:%d: '%s' expects %d number%s, got '%s'", k->path, line,
                                      kw, n, n == 1 ? "" : "s", buf);
        if (!isfinite(x) || fabs(x) > RIGID_VALUE_MAX)
            return st_component_error(c, field, err, ST_EPARSE,
                                      "%s:%d: '%s': '%s' is not a finite number of magnitude at "
                                      "most %g",
                                      k->path, line, kw, buf, RIGID_VALUE_MAX);
        out[i] = x;
    }
    return ST_OK;
}

static st_status parse(st_component *c, const char *field, cursor *k, st_mass_value *m,
                       bool *mass_given, st_error *err)
{
    static const struct {
        const char *kw;
        int n;
    } unused[] = {{"cntr", 3}, {"center", 3}, {"frme", 4}, {"grav", 3},
                  {"visc", 1}, {"stck", 1},   {"step", 1}, {"prec", 1}};
    skip_line(k); /* the header ("Xsp 3.0") */
    size_t len;
    int line;
    const char *w;
    while ((w = next_word(k, &len, &line)) != NULL) {
        char kw[32];
        snprintf(kw, sizeof kw, "%.*s", (int)(len < sizeof kw ? len : sizeof kw - 1), w);
        double v[9];
        if (w[0] == '#') {
            skip_line(k);
        } else if (!strcmp(kw, "vertexMass")) {
            ST_TRY(read_numbers(c, field, k, kw, line, v, 1, err));
            m->mass = v[0];
            *mass_given = true;
        } else if (!strcmp(kw, "volm")) {
            ST_TRY(read_numbers(c, field, k, kw, line, v, 1, err));
            m->volume = v[0];
        } else if (!strcmp(kw, "inrt")) {
            ST_TRY(read_numbers(c, field, k, kw, line, v, 9, err));
            memcpy(m->inertia, v, sizeof m->inertia);
        } else {
            int n = -1;
            for (size_t i = 0; i < sizeof unused / sizeof *unused && n < 0; i++)
                if (!strcmp(kw, unused[i].kw))
                    n = unused[i].n;
            if (n < 0)
                return st_component_error(
                    c, field, err, ST_EPARSE,
                    "%s:%d: unknown keyword '%s' (a .rigid file has vertexMass, volm, inrt, "
                    "cntr or center, frme, grav, visc, stck, step, prec and # comments)",
                    k->path, line, kw);
            ST_TRY(read_numbers(c, field, k, kw, line, v, n, err));
        }
    }
    return ST_OK;
}

st_status rigid_file_read(st_component *c, const char *field, const char *name,
                          st_mass_value *m, bool *mass_given, st_error *err)
{
    char path[4096];
    *mass_given = false;
    ST_TRY(st_component_find_file(c, field, name, path, sizeof path, err));
    bool not_regular = false;
    int fd = regular_open(path, &not_regular);
    if (fd < 0)
        return st_component_error(c, field, err, not_regular ? ST_EINVAL : ST_EIO,
                                  not_regular ? "'%s' is not a regular file"
                                              : "cannot open '%s': %s",
                                  path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || (size_t)sb.st_size > RIGID_FILE_MAX) {
        close(fd);
        return st_component_error(c, field, err, ST_EINVAL,
                                  "'%s' is larger than %u bytes: not a .rigid file", path,
                                  RIGID_FILE_MAX);
    }
    size_t size = (size_t)sb.st_size;
    char *text = st_malloc(size + 1);
    if (!text) {
        close(fd);
        return st_component_error(c, NULL, err, ST_ENOMEM, "out of memory");
    }
    size_t got = 0;
    while (got < size) {
        ssize_t r = read(fd, text + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (got != size) {
        st_free(text);
        return st_component_error(c, field, err, ST_EIO, "cannot read '%s'", path);
    }
    text[size] = 0;
    cursor k = {text, text + size, path, 1};
    st_status s = parse(c, field, &k, m, mass_given, err);
    st_free(text);
    return s;
}
