/* status.h - error values with context.
 *
 * Every fallible settee function returns an st_status and takes a
 * caller-owned st_error * as its last parameter. On failure the error holds
 * a message, the scene position it concerns (file, 1-based line and column)
 * when one is known, and the path of the component it concerns. The library
 * never prints and never exits: the program that called it decides.
 */
#ifndef SETTEE_STATUS_H
#define SETTEE_STATUS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "settee/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. ST_OK is zero; every other value is a failure class. */
typedef enum st_status {
    ST_OK = 0,
    ST_ENOMEM,     /* an allocation failed */
    ST_EINVAL,     /* a bad argument or value */
    ST_ENOTFOUND,  /* a name, file or path that does not exist */
    ST_EPARSE,     /* a value or file that does not parse */
    ST_ESCENE,     /* a scene that is not valid (structure, fields, types) */
    ST_ELINK,      /* a link that does not resolve */
    ST_EPLUGIN,    /* a plugin that cannot be loaded or registered */
    ST_EABI,       /* a plugin built for an incompatible ABI */
    ST_ESOLVER,    /* a numerical solver failure (factorization, divergence) */
    ST_EIO,        /* a file that cannot be read or written */
    ST_ESTATE,     /* an operation on a component in the wrong state */
    ST_EINTERNAL   /* a bug in settee */
} st_status;

#if defined(__GNUC__)
#define ST_WARN_UNUSED __attribute__((warn_unused_result))
#define ST_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define ST_WARN_UNUSED
#define ST_PRINTF(a, b)
#endif

#define ST_ERROR_MSG_MAX 2048
#define ST_ERROR_WHERE_MAX 512
#define ST_ERROR_PATH_MAX 512

/* An error, owned by the caller (usually on the stack). Zero-initialise it or
 * call st_error_clear() before use. */
typedef struct st_error {
    st_status code;                   /* ST_OK when no error is recorded */
    char where[ST_ERROR_WHERE_MAX];   /* "scene.yaml:12:7" (1-based) or "" */
    char path[ST_ERROR_PATH_MAX];     /* component path "/Beam/dofs" or "" */
    char msg[ST_ERROR_MSG_MAX];       /* what went wrong and what was expected */
    bool reported;                    /* already sent to the log sink */
} st_error;

/* Resets an error to "no error". Accepts NULL. */
ST_API void st_error_clear(st_error *err);

/* Records an error and returns its code, so that `return st_error_set(...)`
 * reads naturally. A NULL err is accepted (the error is then dropped). */
ST_API st_status st_error_set(st_error *err, st_status code, const char *fmt, ...)
    ST_PRINTF(3, 4);
ST_API st_status st_error_vset(st_error *err, st_status code, const char *fmt, va_list ap);

/* Records an error at a scene position. line and col are 1-based; file may
 * be NULL (no position). */
ST_API st_status st_error_set_at(st_error *err, st_status code, const char *file, int line,
                                 int col, const char *fmt, ...) ST_PRINTF(6, 7);

/* Sets the component path of an error that has none yet. */
ST_API void st_error_set_path(st_error *err, const char *path);

/* Prepends context to the message ("while initialising X: ..."). */
ST_API void st_error_prefix(st_error *err, const char *fmt, ...) ST_PRINTF(2, 3);

/* Formats "FILE:LINE:COL: error: [PATH: ]MESSAGE" into buf (always
 * NUL-terminated). Returns buf. */
ST_API const char *st_error_format(const st_error *err, char *buf, size_t size);

/* A short name of a status code ("ST_ESCENE"). */
ST_API const char *st_status_name(st_status code);

/* Propagates a failure: evaluates call and returns its status when it fails. */
#define ST_TRY(call)                                                                               \
    do {                                                                                           \
        st_status st_try_s_ = (call);                                                              \
        if (st_try_s_ != ST_OK)                                                                    \
            return st_try_s_;                                                                      \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif
