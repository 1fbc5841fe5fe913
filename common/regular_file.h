/* regular_file.h - the one way settee opens a named file for reading: only a
 * regular file, and never in a way that blocks (a FIFO, a terminal, a device
 * such as /dev/zero). Compiled into libsettee (the scene reader,
 * checkpoints), the settee program (sweep plans, records) and each plugin
 * that reads files (plugins/shared is not a plugin itself). */
#ifndef SETTEE_SHARED_REGULAR_FILE_H
#define SETTEE_SHARED_REGULAR_FILE_H

#include <stdbool.h>

/* Opens path read-only (O_NONBLOCK until fstat has said what it is, then
 * blocking as usual). Returns the descriptor (the caller closes it), or -1
 * with errno set; *not_regular is set when path exists but is a directory,
 * device, FIFO or socket (errno is then EINVAL). */
int regular_open(const char *path, bool *not_regular);

#endif
