/* log.h - messages from the library to the program.
 *
 * The library never prints. Warnings, information and the errors found
 * while loading a scene go to the runtime's log sink; the program decides
 * what to show. Without a sink, messages are dropped.
 */
#ifndef SETTEE_LOG_H
#define SETTEE_LOG_H

#include "settee/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum st_log_level { ST_LOG_ERROR = 0, ST_LOG_WARNING, ST_LOG_INFO } st_log_level;

/* where: "scene.yaml:3:5" or ""; path: component path or "". */
typedef void (*st_log_fn)(st_log_level level, const char *where, const char *path,
                          const char *msg, void *ud);

#ifdef __cplusplus
}
#endif
#endif
