/* export.h - symbol visibility and the ABI version of the public headers. */
#ifndef SETTEE_EXPORT_H
#define SETTEE_EXPORT_H

#if defined(__GNUC__)
#define ST_API __attribute__((visibility("default")))
#else
#define ST_API
#endif

/* ABI version of the plugin interface. The major changes when a public
 * struct or function changes incompatibly; the minor when something is
 * appended. The loader refuses a plugin whose major differs from the
 * kernel's, or whose minor is newer than the kernel's. */
#define ST_ABI_MAJOR 2
#define ST_ABI_MINOR 12

/* Version of settee itself. */
#define ST_VERSION_MAJOR 0
#define ST_VERSION_MINOR 1
#define ST_VERSION_PATCH 0
#define ST_VERSION_STRING "0.1.0"

#endif
