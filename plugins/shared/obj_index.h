/* obj_index.h - how an OBJ face refers to a vertex, in one place for the
 * readers of OBJ files (MeshOBJLoader in IO.Mesh, SparseGridTopology's
 * fileTopology in Topology): 1-based, or negative for "from the last one
 * defined so far"; 0 and anything outside the vertices defined so far are
 * refused. Header only (plugins/shared is not a plugin itself). */
#ifndef SETTEE_SHARED_OBJ_INDEX_H
#define SETTEE_SHARED_OBJ_INDEX_H

#include <stdbool.h>
#include <stddef.h>

/* The 0-based vertex that reference v names when count vertices are
 * defined; false when it names none. */
static inline bool obj_resolve_index(long long v, size_t count, size_t *out)
{
    if (v == 0 || (v > 0 && (unsigned long long)v > count) ||
        (v < 0 && (v < -(long long)count || count > (size_t)9223372036854775807LL)))
        return false;
    *out = v > 0 ? (size_t)(v - 1) : count - (size_t)(-v);
    return true;
}

#endif
