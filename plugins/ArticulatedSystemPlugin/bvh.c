/* bvh.c - the BVH reader (bvh.h): a tokenizer that keeps line and column,
 * a recursive reader of the joint hierarchy (depth bounded), and the
 * motion table, checked against the channel count. Stricter than SOFA's
 * reader, which skips what it does not know: an unknown keyword or
 * channel, a missing value, a value too many or a non-finite number is an
 * error at its position. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/regular_file.h"
#include "bvh.h"

/* Deeper hierarchies are refused (the reader recurses once per level). */
#define BVH_MAX_DEPTH 256

typedef struct lexer {
    const char *p, *end;
    const char *name;
    int line, col;
    /* the last token read */
    const char *tok;
    size_t len;
    int tline, tcol;
} lexer;

typedef struct reader {
    lexer lx;
    bvh *b;
    size_t cap;
    st_error *err;
} reader;

/* Reads the next whitespace-separated token; false at the end of text. */
static bool next(lexer *lx)
{
    while (lx->p < lx->end &&
           (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r' || *lx->p == '\n' ||
            *lx->p == '\f' || *lx->p == '\v')) {
        if (*lx->p == '\n')
            lx->line++, lx->col = 1;
        else
            lx->col++;
        lx->p++;
    }
    lx->tline = lx->line, lx->tcol = lx->col;
    if (lx->p >= lx->end) {
        lx->tok = lx->p, lx->len = 0;
        return false;
    }
    lx->tok = lx->p;
    while (lx->p < lx->end && *lx->p != ' ' && *lx->p != '\t' && *lx->p != '\r' &&
           *lx->p != '\n' && *lx->p != '\f' && *lx->p != '\v' && *lx->p != '\0')
        lx->p++, lx->col++;
    if (lx->p == lx->tok) { /* a NUL byte: a one-byte token that matches nothing */
        lx->p++, lx->col++;
    }
    lx->len = (size_t)(lx->p - lx->tok);
    return true;
}

static bool is(const lexer *lx, const char *word)
{
    return lx->len == strlen(word) && memcmp(lx->tok, word, lx->len) == 0;
}

/* The error at the last token: "found 'TOKEN'" or "found the end of the file". */
static st_status fail(reader *r, const char *expected)
{
    lexer *lx = &r->lx;
    char shown[48];
    if (lx->len == 0) {
        snprintf(shown, sizeof shown, "the end of the file");
    } else {
        size_t n = lx->len < 32 ? lx->len : 32;
        char tok[33];
        for (size_t i = 0; i < n; i++)
            tok[i] = (lx->tok[i] >= 32 && lx->tok[i] < 127) ? lx->tok[i] : '?';
        tok[n] = '\0';
        snprintf(shown, sizeof shown, "'%s%s'", tok, lx->len > 32 ? "..." : "");
    }
    return st_error_set_at(r->err, ST_EPARSE, lx->name, lx->tline, lx->tcol,
                           "BVH: expected %s, found %s", expected, shown);
}

static st_status expect(reader *r, const char *word)
{
    if (next(&r->lx) && is(&r->lx, word))
        return ST_OK;
    char what[64];
    snprintf(what, sizeof what, "'%s'", word);
    return fail(r, what);
}

/* The next token as a finite real number. */
static st_status real(reader *r, const char *what, double *out)
{
    lexer *lx = &r->lx;
    if (!next(lx) || lx->len >= 64)
        return fail(r, what);
    char buf[64];
    memcpy(buf, lx->tok, lx->len);
    buf[lx->len] = '\0';
    char *e = NULL;
    errno = 0;
    double v = strtod(buf, &e);
    if (e == buf || *e != '\0' || !isfinite(v) || errno == ERANGE)
        return fail(r, what);
    *out = v;
    return ST_OK;
}

/* The next token as an integer in [lo, hi]. */
static st_status integer(reader *r, const char *what, long lo, long hi, long *out)
{
    lexer *lx = &r->lx;
    if (!next(lx) || lx->len >= 32)
        return fail(r, what);
    char buf[32];
    memcpy(buf, lx->tok, lx->len);
    buf[lx->len] = '\0';
    char *e = NULL;
    errno = 0;
    long v = strtol(buf, &e, 10);
    if (e == buf || *e != '\0' || errno == ERANGE || v < lo || v > hi)
        return fail(r, what);
    *out = v;
    return ST_OK;
}

static const char *const channel_names[] = {"Xposition", "Yposition", "Zposition",
                                            "Xrotation", "Yrotation", "Zrotation"};

static st_status add_joint(reader *r, const char *name, size_t len, int parent, bool end_site,
                           size_t *index)
{
    bvh *b = r->b;
    if (b->njoints == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        bvh_joint *j = st_realloc(b->joints, cap * sizeof *j);
        if (!j)
            return st_error_set(r->err, ST_ENOMEM, "out of memory reading a BVH hierarchy");
        b->joints = j;
        r->cap = cap;
    }
    bvh_joint *j = &b->joints[b->njoints];
    memset(j, 0, sizeof *j);
    j->name = st_malloc(len + 1);
    if (!j->name)
        return st_error_set(r->err, ST_ENOMEM, "out of memory reading a BVH hierarchy");
    memcpy(j->name, name, len);
    j->name[len] = '\0';
    j->parent = parent;
    j->end_site = end_site;
    j->column = b->ncolumns;
    *index = b->njoints++;
    if (parent >= 0)
        b->joints[parent].nchildren++;
    return ST_OK;
}

/* A joint's block, from its '{' to its '}' (the name was read). */
static st_status joint_body(reader *r, size_t self, int depth)
{
    lexer *lx = &r->lx;
    bool end_site = r->b->joints[self].end_site;
    bool has_offset = false, has_channels = false;
    ST_TRY(expect(r, "{"));
    for (;;) {
        if (!next(lx))
            return fail(r, "'}' closing the joint");
        if (is(lx, "}"))
            break;
        bvh_joint *j = &r->b->joints[self];
        if (is(lx, "OFFSET")) {
            if (has_offset)
                return fail(r, "one OFFSET per joint");
            has_offset = true;
            for (int a = 0; a < 3; a++)
                ST_TRY(real(r, "an OFFSET coordinate (a finite number)", &j->offset[a]));
        } else if (is(lx, "CHANNELS") && !end_site) {
            if (has_channels)
                return fail(r, "one CHANNELS per joint");
            has_channels = true;
            if (r->b->joints[self].nchildren > 0)
                return fail(r, "CHANNELS before the joint's children");
            long n;
            ST_TRY(integer(r, "a channel count from 0 to 6", 0, BVH_MAX_CHANNELS, &n));
            for (long c = 0; c < n; c++) {
                if (!next(lx))
                    return fail(r, "a channel name");
                size_t k = 0;
                while (k < BVH_MAX_CHANNELS && !is(lx, channel_names[k]))
                    k++;
                if (k == BVH_MAX_CHANNELS)
                    return fail(r, "a channel name (Xposition, Yposition, Zposition, Xrotation, "
                                   "Yrotation or Zrotation)");
                j = &r->b->joints[self];
                j->channels[j->nchannels++] = (bvh_channel)k;
                r->b->ncolumns++;
            }
        } else if ((is(lx, "JOINT") || is(lx, "End")) && !end_site) {
            if (depth + 1 >= BVH_MAX_DEPTH) {
                char what[64];
                snprintf(what, sizeof what, "a hierarchy at most %d joints deep", BVH_MAX_DEPTH);
                return fail(r, what);
            }
            bool site = is(lx, "End");
            if (site)
                ST_TRY(expect(r, "Site"));
            else if (!next(lx) || is(lx, "{") || is(lx, "}"))
                return fail(r, "a joint name");
            size_t child;
            if (site)
                ST_TRY(add_joint(r, "End Site", 8, (int)self, true, &child));
            else
                ST_TRY(add_joint(r, lx->tok, lx->len, (int)self, false, &child));
            ST_TRY(joint_body(r, child, depth + 1));
        } else {
            return fail(r, end_site ? "OFFSET or '}' in an End Site"
                                    : "OFFSET, CHANNELS, JOINT, End Site or '}'");
        }
    }
    if (!has_offset)
        return fail(r, "an OFFSET in the joint before its '}'");
    return ST_OK;
}

static st_status hierarchy(reader *r)
{
    lexer *lx = &r->lx;
    ST_TRY(expect(r, "HIERARCHY"));
    ST_TRY(expect(r, "ROOT"));
    if (!next(lx) || is(lx, "{"))
        return fail(r, "the root joint's name");
    size_t root;
    ST_TRY(add_joint(r, lx->tok, lx->len, -1, false, &root));
    ST_TRY(joint_body(r, root, 0));
    if (!next(lx) || !is(lx, "MOTION"))
        return fail(r, "MOTION after the root joint (one ROOT per file)");
    return ST_OK;
}

static st_status motion(reader *r)
{
    bvh *b = r->b;
    lexer *lx = &r->lx;
    long nframes;
    ST_TRY(expect(r, "Frames:"));
    ST_TRY(integer(r, "a frame count of at least 1", 1, 100000000L, &nframes));
    int count_line = lx->tline, count_col = lx->tcol;
    ST_TRY(expect(r, "Frame"));
    ST_TRY(expect(r, "Time:"));
    ST_TRY(real(r, "a frame time (a finite number)", &b->frame_time));
    if (!(b->frame_time > 0))
        return fail(r, "a frame time > 0");
    b->nframes = (size_t)nframes;
    size_t total = b->nframes * b->ncolumns;
    /* Each value takes at least a character and a separator: a count the
     * rest of the file cannot hold is refused before anything is allocated. */
    size_t left = (size_t)(lx->end - lx->p);
    if (b->ncolumns && (total / b->ncolumns != b->nframes || total > left / 2 + 1))
        return st_error_set_at(r->err, ST_EPARSE, lx->name, count_line, count_col,
                               "BVH: %zu frames of %zu values do not fit in the %zu bytes left "
                               "in the file",
                               b->nframes, b->ncolumns, left);
    b->frames = st_malloc((total ? total : 1) * sizeof *b->frames);
    if (!b->frames)
        return st_error_set(r->err, ST_ENOMEM, "out of memory for %zu BVH frames of %zu values",
                            b->nframes, b->ncolumns);
    for (size_t i = 0; i < total; i++) {
        char what[96];
        snprintf(what, sizeof what, "value %zu of %zu of frame %zu of %zu (a finite number)",
                 i % b->ncolumns + 1, b->ncolumns, i / b->ncolumns + 1, b->nframes);
        ST_TRY(real(r, what, &b->frames[i]));
    }
    if (next(lx)) {
        char what[96];
        snprintf(what, sizeof what, "the end of the file after %zu frames of %zu values",
                 b->nframes, b->ncolumns);
        return fail(r, what);
    }
    return ST_OK;
}

st_status bvh_parse(const char *text, size_t len, const char *name, bvh **out, st_error *err)
{
    *out = NULL;
    reader r = {.lx = {.p = text, .end = text + len, .name = name, .line = 1, .col = 1},
                .err = err};
    r.b = st_calloc(1, sizeof *r.b);
    if (!r.b)
        return st_error_set(err, ST_ENOMEM, "out of memory reading a BVH file");
    st_status st = hierarchy(&r);
    if (st == ST_OK)
        st = motion(&r);
    if (st != ST_OK) {
        bvh_destroy(&r.b);
        return st;
    }
    *out = r.b;
    return ST_OK;
}

st_status bvh_read(const char *path, bvh **out, st_error *err)
{
    *out = NULL;
    bool not_regular = false;
    int fd = regular_open(path, &not_regular);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        if (not_regular)
            return st_error_set(err, ST_EINVAL, "the BVH file '%s' is not a regular file", path);
        return st_error_set(err, ST_EIO, "cannot open the BVH file '%s': %s", path,
                            strerror(e));
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 4096) {
            size_t ncap = cap ? 2 * cap : 65536;
            char *t = st_realloc(text, ncap);
            if (!t) {
                st_free(text);
                fclose(f);
                return st_error_set(err, ST_ENOMEM, "out of memory reading '%s'", path);
            }
            text = t, cap = ncap;
        }
        size_t got = fread(text + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad) {
        st_free(text);
        return st_error_set(err, ST_EIO, "cannot read the BVH file '%s'", path);
    }
    st_status st = bvh_parse(text, len, path, out, err);
    st_free(text);
    return st;
}

void bvh_destroy(bvh **pb)
{
    if (!pb || !*pb)
        return;
    bvh *b = *pb;
    for (size_t i = 0; i < b->njoints; i++)
        st_free(b->joints[i].name);
    st_free(b->joints);
    st_free(b->frames);
    st_free(b);
    *pb = NULL;
}
