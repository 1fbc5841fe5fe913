/* regular_file.c - opening a named file for reading only when it is a
 * regular file, without blocking on a FIFO (regular_file.h). */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC */
#endif
#include "regular_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int regular_open(const char *path, bool *not_regular)
{
    *not_regular = false;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    struct stat st;
    int flags = fcntl(fd, F_GETFL);
    bool stat_ok = fstat(fd, &st) == 0;
    if (!stat_ok || !S_ISREG(st.st_mode) || flags < 0 ||
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        int e = errno;
        *not_regular = stat_ok && !S_ISREG(st.st_mode);
        close(fd);
        errno = *not_regular ? EINVAL : e;
        return -1;
    }
    return fd;
}
