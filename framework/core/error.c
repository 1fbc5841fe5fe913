/* error.c - error values with context, and similarity suggestions. */
#include <stdio.h>
#include <string.h>

#include "core/core.h"

void st_error_clear(st_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
}

st_status st_error_vset(st_error *err, st_status code, const char *fmt, va_list ap)
{
    if (!err)
        return code;
    err->code = code;
    err->reported = false;
    /* A message longer than msg (a path of thousands of characters) keeps
     * its head and its tail, where the reason is, with " ... " between. */
    char whole[16384];
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(whole, sizeof whole, fmt, aq);
    va_end(aq);
    if (n < (int)sizeof err->msg) {
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        return code;
    }
    size_t len = n < (int)sizeof whole ? (size_t)n : sizeof whole - 1;
    size_t keep = (sizeof err->msg - 6) / 2;
    memcpy(err->msg, whole, keep);
    memcpy(err->msg + keep, " ... ", 5);
    memcpy(err->msg + keep + 5, whole + len - keep, keep);
    err->msg[2 * keep + 5] = 0;
    return code;
}

st_status st_error_set(st_error *err, st_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    st_error_vset(err, code, fmt, ap);
    va_end(ap);
    if (err) {
        err->where[0] = 0;
        err->path[0] = 0;
    }
    return code;
}

st_status st_error_set_at(st_error *err, st_status code, const char *file, int line, int col,
                          const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    st_error_vset(err, code, fmt, ap);
    va_end(ap);
    if (err) {
        err->path[0] = 0;
        if (file && line > 0)
            snprintf(err->where, sizeof err->where, "%s:%d:%d", file, line, col > 0 ? col : 1);
        else if (file)
            snprintf(err->where, sizeof err->where, "%s", file);
        else
            err->where[0] = 0;
    }
    return code;
}

st_status st__error_at(st_error *err, st_status code, st_mark m, const char *fmt, ...)
{
    if (!err)
        return code;
    va_list ap;
    va_start(ap, fmt);
    st_error_vset(err, code, fmt, ap);
    va_end(ap);
    err->path[0] = 0;
    if (m.file && m.line > 0)
        snprintf(err->where, sizeof err->where, "%s:%d:%d", m.file, m.line, m.col > 0 ? m.col : 1);
    else if (m.file && m.line < 0) /* a label, not a file position ("--set PATH=VALUE") */
        snprintf(err->where, sizeof err->where, "%s", m.file);
    else
        err->where[0] = 0;
    return code;
}

void st_error_set_path(st_error *err, const char *path)
{
    if (err && !err->path[0] && path)
        snprintf(err->path, sizeof err->path, "%s", path);
}

void st_error_prefix(st_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char pre[ST_ERROR_MSG_MAX], old[ST_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    snprintf(err->msg, sizeof err->msg, "%s%s", pre, old);
}

const char *st_error_format(const st_error *err, char *buf, size_t size)
{
    if (!buf || !size)
        return buf;
    if (!err || err->code == ST_OK) {
        snprintf(buf, size, "no error");
        return buf;
    }
    snprintf(buf, size, "%s%serror: %s%s%s", err->where, err->where[0] ? ": " : "", err->path,
             err->path[0] ? ": " : "", err->msg);
    return buf;
}

const char *st_status_name(st_status code)
{
    static const char *const names[] = {
        "ST_OK",     "ST_ENOMEM", "ST_EINVAL",  "ST_ENOTFOUND", "ST_EPARSE", "ST_ESCENE", "ST_ELINK",
        "ST_EPLUGIN", "ST_EABI",  "ST_ESOLVER", "ST_EIO",       "ST_ESTATE", "ST_EINTERNAL"};
    if ((unsigned)code < sizeof names / sizeof names[0])
        return names[code];
    return "ST_E?";
}

/* Levenshtein distance on lower-cased strings (short names only). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 127 || lb > 127)
        return la > lb ? la : lb;
    size_t row[128];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            char ca = a[i - 1], cb = b[j - 1];
            if (ca >= 'A' && ca <= 'Z')
                ca = (char)(ca - 'A' + 'a');
            if (cb >= 'A' && cb <= 'Z')
                cb = (char)(cb - 'A' + 'a');
            size_t cost = ca == cb ? 0 : 1;
            size_t best = prev + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            prev = row[j];
            row[j] = best;
        }
    }
    return row[lb];
}

static double similarity(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), m = la > lb ? la : lb;
    if (!m)
        return 1.0;
    double s = 1.0 - (double)edit_distance(a, b) / (double)m;
    /* A name that contains the other (case-insensitively) is a strong hint. */
    if (la >= 3 && lb >= 3 && (strcasestr(a, b) || strcasestr(b, a)) && s < 0.75)
        s = 0.75;
    return s;
}

size_t st__suggest(const char *name, const char *const *cands, size_t n, const char **out,
                   size_t max)
{
    double score[16];
    size_t k = 0;
    if (max > 16)
        max = 16;
    for (size_t i = 0; i < n; i++) {
        double s = similarity(name, cands[i]);
        if (s < 0.5)
            continue;
        bool dup = false;
        for (size_t j = 0; j < k; j++)
            if (!strcmp(out[j], cands[i]))
                dup = true;
        if (dup)
            continue;
        size_t pos = k;
        while (pos > 0 && score[pos - 1] < s)
            pos--;
        if (pos >= max)
            continue;
        size_t last = k < max ? k : max - 1;
        for (size_t j = last; j > pos; j--) {
            out[j] = out[j - 1];
            score[j] = score[j - 1];
        }
        out[pos] = cands[i];
        score[pos] = s;
        if (k < max)
            k++;
    }
    return k;
}
