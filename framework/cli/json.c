/* json.c - a small streaming JSON writer with stable, indented output, used
 * by `settee inspect --json`, `run --collect` and `sweep`. */
#include <math.h>

#include "cli.h"

/* Starts a value: the separator, the indentation and the key. */
static void jw_begin_value(jw *w, const char *key)
{
    if (w->depth > 0) {
        fputs(w->count[w->depth] ? ",\n" : "\n", w->f);
        w->count[w->depth]++;
        for (int i = 0; i < w->depth; i++)
            fputs("  ", w->f);
    }
    if (key) {
        jw_write_string(w->f, key);
        fputs(": ", w->f);
    }
}

void jw_write_string(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

static void jw_open(jw *w, const char *key, char c)
{
    jw_begin_value(w, key);
    fputc(c, w->f);
    if (w->depth + 1 < JW_MAX_DEPTH)
        w->depth++;
    w->count[w->depth] = 0;
}

static void jw_close(jw *w, char c)
{
    bool empty = w->count[w->depth] == 0;
    if (w->depth > 0)
        w->depth--;
    if (!empty) {
        fputc('\n', w->f);
        for (int i = 0; i < w->depth; i++)
            fputs("  ", w->f);
    }
    fputc(c, w->f);
    if (w->depth == 0)
        fputc('\n', w->f);
}

void jw_object(jw *w, const char *key) { jw_open(w, key, '{'); }
void jw_array(jw *w, const char *key) { jw_open(w, key, '['); }
void jw_end_object(jw *w) { jw_close(w, '}'); }
void jw_end_array(jw *w) { jw_close(w, ']'); }

void jw_string(jw *w, const char *key, const char *value)
{
    jw_begin_value(w, key);
    jw_write_string(w->f, value);
}

void jw_uint(jw *w, const char *key, unsigned long value)
{
    jw_begin_value(w, key);
    fprintf(w->f, "%lu", value);
}

void jw_real(jw *w, const char *key, double value)
{
    jw_begin_value(w, key);
    if (isfinite(value))
        fprintf(w->f, "%.17g", value);
    else
        fputs("null", w->f);
}

void jw_bool(jw *w, const char *key, bool value)
{
    jw_begin_value(w, key);
    fputs(value ? "true" : "false", w->f);
}

void jw_raw(jw *w, const char *key, const char *json)
{
    jw_begin_value(w, key);
    fputs(json, w->f);
}

void jw_null(jw *w, const char *key)
{
    jw_begin_value(w, key);
    fputs("null", w->f);
}
