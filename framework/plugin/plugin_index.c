/* plugin_index.c - the index of installed plugins: for each plugin file, its
 * name, the SOFA modules it provides, the class names (and aliases) and the
 * scene-reader extensions it registers. Finding which plugin provides a
 * module or a class then opens no plugin but the one wanted (issue 31).
 *
 * The index is kept in a cache file (GStreamer's registry cache in spirit):
 * SETTEE_PLUGIN_CACHE=FILE, "0"/"off" for none, by default
 * $XDG_CACHE_HOME/settee/plugin-index (else ~/.cache/settee/plugin-index).
 * Each entry is valid for one version of one file, known by its resolved
 * path, device, inode, size, mtime and ctime (ns), and the whole file for
 * one settee ABI and version. The file is a hint, never trusted: anything
 * unexpected in it (truncation, a bad line, a size past the bounds below)
 * drops it all, to be rebuilt; it is written whole to a temporary file
 * renamed over the old one, and a cache that cannot be written only costs
 * the next run its speed. Files that fail to load are not written: they are
 * tried, and reported, again by the next run. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin/loader.h"

/* Bounds of the cache file, far above any installation (34 plugins with
 * about 600 classes in all), so that a hostile file cannot cost much. */
#define CACHE_MAX_BYTES (16u << 20)
#define CACHE_MAX_ENTRIES 4096
#define CACHE_MAX_STRS 16384 /* strings of one entry */
#define CACHE_MAX_NAME 1023  /* bytes of a name */
#define CACHE_FORMAT 1

void st__pindex_entry_free(st__pindex_entry *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->nprovides + e->nclasses + e->nreaders; i++)
        st_free(e->strs[i]);
    st_free(e->strs);
    st_free(e->file);
    st_free(e->name);
    st_free(e);
}

bool st__pindex_entry_add(st__pindex_entry *e, int kind, const char *s, size_t len)
{
    size_t n = e->nprovides + e->nclasses + e->nreaders;
    if (n >= e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 16;
        char **v = st_realloc(e->strs, cap * sizeof *v);
        if (!v)
            return false;
        e->strs = v;
        e->cap = cap;
    }
    char *copy = st_malloc(len + 1);
    if (!copy)
        return false;
    memcpy(copy, s, len);
    copy[len] = '\0';
    /* Keep the three groups in order: provides, classes, readers. */
    size_t at = kind == ST__PINDEX_PROVIDES ? e->nprovides
                : kind == ST__PINDEX_CLASS  ? e->nprovides + e->nclasses
                                            : n;
    memmove(e->strs + at + 1, e->strs + at, (n - at) * sizeof *e->strs);
    e->strs[at] = copy;
    if (kind == ST__PINDEX_PROVIDES)
        e->nprovides++;
    else if (kind == ST__PINDEX_CLASS)
        e->nclasses++;
    else
        e->nreaders++;
    return true;
}

bool st__pindex_stat(const char *file, st__pindex_key *k)
{
    struct stat sb;
    if (stat(file, &sb) != 0 || !S_ISREG(sb.st_mode))
        return false;
    memset(k, 0, sizeof *k);
    k->dev = (uint64_t)sb.st_dev;
    k->ino = (uint64_t)sb.st_ino;
    k->size = (uint64_t)sb.st_size;
    k->mtime_s = (int64_t)sb.st_mtim.tv_sec;
    k->mtime_ns = (int64_t)sb.st_mtim.tv_nsec;
    k->ctime_s = (int64_t)sb.st_ctim.tv_sec;
    k->ctime_ns = (int64_t)sb.st_ctim.tv_nsec;
    return true;
}

bool st__pindex_key_eq(const st__pindex_key *a, const st__pindex_key *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns && a->ctime_s == b->ctime_s &&
           a->ctime_ns == b->ctime_ns;
}

st__pindex_entry *st__pindex_find(const st__pindex *x, const char *file)
{
    for (size_t i = 0; x && i < x->n; i++)
        if (strcmp(x->e[i]->file, file) == 0)
            return x->e[i];
    return NULL;
}

bool st__pindex_put(st__pindex *x, st__pindex_entry *e)
{
    for (size_t i = 0; i < x->n; i++)
        if (strcmp(x->e[i]->file, e->file) == 0) {
            st__pindex_entry_free(x->e[i]);
            x->e[i] = e;
            x->dirty = true;
            return true;
        }
    if (x->n == x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 64;
        st__pindex_entry **v = st_realloc(x->e, cap * sizeof *v);
        if (!v) {
            st__pindex_entry_free(e);
            return false;
        }
        x->e = v;
        x->cap = cap;
    }
    x->e[x->n++] = e;
    x->dirty = true;
    return true;
}

/* ---- where the cache lives ---- */

static bool cache_disabled(const char *v)
{
    return !strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "no") ||
           !strcasecmp(v, "false");
}

/* The cache file's path into buf, or false when there is none. */
static bool cache_path(char *buf, size_t size)
{
    const char *v = getenv("SETTEE_PLUGIN_CACHE");
    int k;
    if (v && *v) {
        if (cache_disabled(v) || v[0] != '/')
            return false; /* a relative name would follow the working directory */
        k = snprintf(buf, size, "%s", v);
    } else {
        const char *xdg = getenv("XDG_CACHE_HOME");
        const char *home = getenv("HOME");
        if (xdg && xdg[0] == '/')
            k = snprintf(buf, size, "%s/settee/plugin-index", xdg);
        else if (home && home[0] == '/')
            k = snprintf(buf, size, "%s/.cache/settee/plugin-index", home);
        else
            return false;
    }
    return k > 0 && (size_t)k < size;
}

/* The first line: the format, the ABI and the version of this settee. */
static void header_line(char *buf, size_t size)
{
    snprintf(buf, size, "settee-plugin-index %d abi %u.%u version %s", CACHE_FORMAT,
             (unsigned)ST_ABI_MAJOR, (unsigned)ST_ABI_MINOR, ST_VERSION_STRING);
}

/* ---- reading: every line checked, any surprise drops the file ---- */

/* A name as written in the cache: 1..CACHE_MAX_NAME bytes, no control
 * characters. */
static bool good_name(const char *s, size_t len)
{
    if (len == 0 || len > CACHE_MAX_NAME)
        return false;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return false;
    return true;
}

/* Parses a decimal number of at most 20 digits up to a space; advances *p. */
static bool take_num(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    size_t nd = 0;
    while (s < end && *s >= '0' && *s <= '9') {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = 10 * v + d;
        s++;
        nd++;
    }
    if (nd == 0 || s >= end || *s != ' ')
        return false;
    *out = v;
    *p = s + 1;
    return true;
}

/* Parses the "file ..." line's rest into a new entry; NULL when bad. */
static st__pindex_entry *parse_file_line(const char *s, const char *end)
{
    uint64_t v[7];
    for (int i = 0; i < 7; i++)
        if (!take_num(&s, end, &v[i]))
            return NULL;
    size_t len = (size_t)(end - s);
    if (len == 0 || len >= PATH_MAX || s[0] != '/' ||
        v[4] >= 1000000000u || v[6] >= 1000000000u)
        return NULL;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20)
            return NULL;
    st__pindex_entry *e = st_calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->file = st_malloc(len + 1);
    if (!e->file) {
        st_free(e);
        return NULL;
    }
    memcpy(e->file, s, len);
    e->file[len] = '\0';
    e->ok = true;
    e->key.dev = v[0];
    e->key.ino = v[1];
    e->key.size = v[2];
    e->key.mtime_s = (int64_t)v[3];
    e->key.mtime_ns = (int64_t)v[4];
    e->key.ctime_s = (int64_t)v[5];
    e->key.ctime_ns = (int64_t)v[6];
    return e;
}

/* Starts with "word " (the keyword and its space). */
static bool keyword(const char *s, const char *end, const char *word, const char **rest)
{
    size_t n = strlen(word);
    if ((size_t)(end - s) <= n || memcmp(s, word, n) != 0 || s[n] != ' ')
        return false;
    *rest = s + n + 1;
    return true;
}

/* Parses the whole cache text into x; false (x left as it was) on anything
 * unexpected. */
static bool parse_cache(st__pindex *x, const char *text, size_t size)
{
    const char *p = text, *end = text + size;
    char header[128];
    header_line(header, sizeof header);
    st__pindex tmp = {0};
    st__pindex_entry *cur = NULL;
    bool ok = false, first = true, done = false;
    int group = 0; /* the last group added to cur: 0 provides, 1 classes, 2 readers */
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            goto out; /* every line ends with a newline: a truncated file */
        const char *rest;
        if (done)
            goto out; /* text after the end mark */
        if (first) {
            if ((size_t)(nl - p) != strlen(header) || memcmp(p, header, strlen(header)) != 0)
                goto out;
            first = false;
        } else if (!cur && keyword(p, nl, "file", &rest)) {
            if (tmp.n >= CACHE_MAX_ENTRIES || !(cur = parse_file_line(rest, nl)))
                goto out;
            group = 0;
        } else if (!cur && keyword(p, nl, "eof", &rest)) {
            uint64_t n;
            const char *q = rest;
            /* take_num wants a following space: parse by hand. */
            n = 0;
            if (q == nl)
                goto out;
            for (; q < nl; q++) {
                if (*q < '0' || *q > '9' || n > CACHE_MAX_ENTRIES)
                    goto out;
                n = 10 * n + (uint64_t)(*q - '0');
            }
            if (n != tmp.n)
                goto out;
            done = true;
        } else if (cur && keyword(p, nl, "name", &rest)) {
            if (cur->name || !good_name(rest, (size_t)(nl - rest)))
                goto out;
            cur->name = st_malloc((size_t)(nl - rest) + 1);
            if (!cur->name)
                goto out;
            memcpy(cur->name, rest, (size_t)(nl - rest));
            cur->name[nl - rest] = '\0';
        } else if (cur && (keyword(p, nl, "provides", &rest) || keyword(p, nl, "class", &rest) ||
                           keyword(p, nl, "reader", &rest))) {
            int kind = p[0] == 'p' ? ST__PINDEX_PROVIDES
                       : p[0] == 'c' ? ST__PINDEX_CLASS
                                     : ST__PINDEX_READER;
            int g = kind == ST__PINDEX_PROVIDES ? 0 : kind == ST__PINDEX_CLASS ? 1 : 2;
            if (g < group || !good_name(rest, (size_t)(nl - rest)) ||
                cur->nprovides + cur->nclasses + cur->nreaders >= CACHE_MAX_STRS ||
                !st__pindex_entry_add(cur, kind, rest, (size_t)(nl - rest)))
                goto out;
            group = g;
        } else if (cur && (size_t)(nl - p) == 3 && memcmp(p, "end", 3) == 0) {
            if (!cur->name || st__pindex_find(&tmp, cur->file))
                goto out;
            if (!st__pindex_put(&tmp, cur)) {
                cur = NULL;
                goto out;
            }
            cur = NULL;
        } else {
            goto out;
        }
        p = nl + 1;
    }
    ok = done;
out:
    st__pindex_entry_free(cur);
    if (ok) {
        for (size_t i = 0; i < tmp.n; i++)
            if (!st__pindex_put(x, tmp.e[i]))
                ok = false;
        st_free(tmp.e);
        x->dirty = false;
        return ok;
    }
    for (size_t i = 0; i < tmp.n; i++)
        st__pindex_entry_free(tmp.e[i]);
    st_free(tmp.e);
    return false;
}

/* Reads the cache file into x. Returns what happened, for the log. */
static const char *read_cache(st__pindex *x)
{
    int fd = open(x->cache, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return errno == ENOENT ? "none yet" : "unreadable, ignored";
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0 ||
        (uint64_t)sb.st_size > CACHE_MAX_BYTES) {
        close(fd);
        return "not a regular file of a sane size, ignored";
    }
    size_t size = (size_t)sb.st_size;
    char *text = st_malloc(size);
    size_t got = 0;
    while (text && got < size) {
        ssize_t k = read(fd, text + got, size - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    const char *what = "read";
    if (!text || got != size || !parse_cache(x, text, size))
        what = "damaged or from another settee, ignored and rebuilt";
    st_free(text);
    return what;
}

st_status st__pindex_create(st__pindex **out, const char **cache_state, st_error *err)
{
    *out = st_calloc(1, sizeof **out);
    if (!*out)
        return st_error_set(err, ST_ENOMEM, "out of memory creating the plugin index");
    char path[PATH_MAX];
    *cache_state = "disabled";
    if (cache_path(path, sizeof path)) {
        (*out)->cache = st_strdup(path);
        if (!(*out)->cache) {
            st__pindex_destroy(out);
            return st_error_set(err, ST_ENOMEM, "out of memory creating the plugin index");
        }
        *cache_state = read_cache(*out);
    }
    return ST_OK;
}

void st__pindex_destroy(st__pindex **p)
{
    if (!p || !*p)
        return;
    for (size_t i = 0; i < (*p)->n; i++)
        st__pindex_entry_free((*p)->e[i]);
    st_free((*p)->e);
    st_free((*p)->cache);
    st_free(*p);
    *p = NULL;
}

/* ---- writing ---- */

/* mkdir -p of the directories above file (mode 0700, as XDG asks). */
static bool make_parents(const char *file)
{
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", file) >= (int)sizeof dir)
        return false;
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return true;
    *slash = '\0';
    for (char *s = dir + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            if (mkdir(dir, 0700) != 0 && errno != EEXIST)
                return false;
            *s = c;
            if (c == '\0')
                break;
        }
    }
    return true;
}

/* An entry worth writing: loadable, its file still as indexed, every
 * string writable on one line. */
static bool writable_entry(const st__pindex_entry *e)
{
    st__pindex_key now;
    if (!e->ok || !e->name || !good_name(e->name, strlen(e->name)) ||
        !st__pindex_stat(e->file, &now) || !st__pindex_key_eq(&now, &e->key))
        return false;
    for (const char *s = e->file; *s; s++)
        if ((unsigned char)*s < 0x20)
            return false;
    for (size_t i = 0; i < e->nprovides + e->nclasses + e->nreaders; i++)
        if (!good_name(e->strs[i], strlen(e->strs[i])))
            return false;
    return e->nprovides + e->nclasses + e->nreaders <= CACHE_MAX_STRS;
}

bool st__pindex_save(st__pindex *x, char *why, size_t size)
{
    why[0] = '\0';
    if (!x->cache || !x->dirty)
        return true;
    x->dirty = false; /* one try per change: a read-only cache costs one attempt */
    if (!make_parents(x->cache)) {
        snprintf(why, size, "cannot create the folder of %s: %s", x->cache, strerror(errno));
        return false;
    }
    char tmp[PATH_MAX];
    static unsigned long serial;
    if (snprintf(tmp, sizeof tmp, "%s.%ld.%lu.tmp", x->cache, (long)getpid(), ++serial) >=
        (int)sizeof tmp) {
        snprintf(why, size, "the name %s is too long", x->cache);
        return false;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        snprintf(why, size, "cannot write %s: %s", tmp, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        return false;
    }
    char header[128];
    header_line(header, sizeof header);
    fprintf(f, "%s\n", header);
    size_t n = 0;
    for (size_t i = 0; i < x->n && n < CACHE_MAX_ENTRIES; i++) {
        const st__pindex_entry *e = x->e[i];
        if (!writable_entry(e))
            continue;
        fprintf(f, "file %llu %llu %llu %lld %lld %lld %lld %s\nname %s\n",
                (unsigned long long)e->key.dev, (unsigned long long)e->key.ino,
                (unsigned long long)e->key.size, (long long)e->key.mtime_s,
                (long long)e->key.mtime_ns, (long long)e->key.ctime_s,
                (long long)e->key.ctime_ns, e->file, e->name);
        for (size_t j = 0; j < e->nprovides + e->nclasses + e->nreaders; j++)
            fprintf(f, "%s %s\n",
                    j < e->nprovides                 ? "provides"
                    : j < e->nprovides + e->nclasses ? "class"
                                                     : "reader",
                    e->strs[j]);
        fputs("end\n", f);
        n++;
    }
    fprintf(f, "eof %zu\n", n);
    bool ok = fflush(f) == 0 && !ferror(f);
    int saved = errno;
    if (fclose(f) != 0)
        ok = false;
    if (!ok || rename(tmp, x->cache) != 0) {
        snprintf(why, size, "cannot write %s: %s", x->cache, strerror(ok ? errno : saved));
        unlink(tmp);
        return false;
    }
    return true;
}
